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
