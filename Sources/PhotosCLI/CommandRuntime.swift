import ArgumentParser
import Dispatch
import Foundation
import PhotosCore
import PhotosTerminal
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs a command's work: Ctrl-C cancels it (exit 130 within a second), and every error
/// becomes one sanitised line on stderr and its documented exit code.
enum CommandRuntime {
    static func run(_ work: @escaping @Sendable () async throws -> Void) async throws {
        let interrupted = Atomic<Bool>(false)
        signal(SIGINT, SIG_IGN)
        signal(SIGPIPE, SIG_IGN)
        let task = Task { try await work() }
        let source = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
        source.setEventHandler {
            interrupted.store(true, ordering: .relaxed)
            task.cancel()
            // Cancellation normally ends the work at once; never hang on it.
            DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(900)) {
                Diagnostics.error("interrupted")
                _exit(130)
            }
        }
        source.resume()
        defer { source.cancel() }

        do {
            try await task.value
            if interrupted.load(ordering: .relaxed) { throw PhotosError.interrupted }
        } catch {
            if interrupted.load(ordering: .relaxed) || error is CancellationError {
                // The work has wound down (temp files removed); leave without running exit
                // handlers, which could race threads still finishing cancelled work.
                Diagnostics.error("interrupted")
                _exit(PhotosError.interrupted.exitCode)
            }
            throw report(error)
        }
    }

    /// Prints `error` and returns the exit code to leave with.
    static func report(_ error: any Error) -> any Error {
        switch error {
        case let error as ExitCode:
            return error
        case let error as PhotosError:
            Diagnostics.error(error.description)
            return ExitCode(error.exitCode)
        case let error as TransportError:
            Diagnostics.error(error.description)
            return ExitCode(PhotosError.unavailable(provider: "", detail: "").exitCode)
        case let error as ValidationError:
            return error
        default:
            Diagnostics.error(String(describing: error))
            return ExitCode(1)
        }
    }
}

/// Writes diagnostics, warnings and progress to stderr, always sanitised.
enum Diagnostics {
    private static let lock = Mutex(())

    static func error(_ message: String) { write("photos: error: " + TerminalText.sanitize(message)) }
    static func warning(_ message: String) { write("photos: warning: " + TerminalText.sanitize(message)) }
    static func note(_ message: String) { write(TerminalText.sanitize(message)) }

    /// Raw output to stderr (progress bars); the caller has made it safe.
    static func raw(_ text: String) {
        lock.withLock { _ in _ = Output.writeAll(text, to: STDERR_FILENO) }
    }

    private static func write(_ line: String) { raw(line + "\n") }
}

/// Writes data to stdout.
enum Output {
    /// Writes to stdout; a reader that went away (`photos list | head`) ends the process quietly.
    static func write(_ text: String) {
        if !writeAll(text, to: STDOUT_FILENO) { exit(0) }
    }

    /// Writes every byte, retrying short writes. Returns false when the reader is gone.
    static func writeAll(_ text: String, to descriptor: Int32) -> Bool {
        var bytes = Array(text.utf8)
        return bytes.withUnsafeMutableBytes { buffer in
            guard var pointer = buffer.baseAddress else { return true }
            var remaining = buffer.count
            while remaining > 0 {
                let written = Glibc.write(descriptor, pointer, remaining)
                if written < 0 {
                    if errno == EINTR { continue }
                    return false
                }
                remaining -= written
                pointer += written
            }
            return true
        }
    }
}
