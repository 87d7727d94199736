import ArgumentParser
import Dispatch
import Foundation
import PhotosCache
import PhotosCore
import PhotosTerminal
import PhotosTransport
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs a command's work: Ctrl-C, SIGTERM and SIGHUP cancel it (exit 130, 143, 129 within a
/// second, temp files removed), and every error becomes one sanitised line on stderr and its
/// documented exit code.
enum CommandRuntime {
    /// The signals that end a command, each with the name said on stderr.
    static let stopSignals: [(signal: Int32, name: String)] = [
        (SIGINT, "interrupted"), (SIGTERM, "terminated (SIGTERM)"), (SIGHUP, "hung up (SIGHUP)"),
    ]

    /// The fewest open files a command runs with: its index, connections, files and the
    /// threads' own (libdispatch stops the process when it cannot open what it monitors its
    /// threads with: `ulimit -n 16` crashed a save).
    static let minimumOpenFiles = 64

    /// - Parameters:
    ///   - sideBySide: runs the work on Swift's global executor, whose threads run its tasks
    ///     side by side, rather than on the main thread (``MainThreadExecutor``).
    ///   - work: the command's work.
    static func run(sideBySide: Bool = false, _ work: @escaping @Sendable () async throws -> Void) async throws {
        if OpenFileBudget.limit < minimumOpenFiles {
            throw report(PhotosError.usage(
                "photos needs at least \(minimumOpenFiles) open files and this process may open \(OpenFileBudget.limit) "
                    + "(ulimit -n); raise the limit, e.g. ulimit -n 1024"))
        }
        // The signal that stopped the work, 0 while none has.
        let received = Atomic<Int32>(0)
        let running = Mutex<Task<Void, any Error>?>(nil)
        signal(SIGPIPE, SIG_IGN)
        let stop: @Sendable (Int32) -> Void = { signal in
            guard received.compareExchange(expected: 0, desired: signal, ordering: .relaxed).exchanged else { return }
            stopping.store(true, ordering: .relaxed)
            running.withLock { $0 }?.cancel()
            // Cancellation normally ends the work at once; never hang on it.
            DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(900)) {
                leave(after: signal)
            }
        }
        // The signal sources are in place before the work starts. libdispatch installs its
        // handler for a signal when the first source for it registers, on its own thread a
        // moment later; a command that adds its own sources (browse) must not register first, or
        // the handler set here would replace libdispatch's. Until the source is registered, a
        // signal is recorded by that handler (ignored, it was lost, and the command ran to its
        // end), and the registration acts on it.
        let sources = stopSignals.map { stopping in
            if !hasHandler(stopping.signal) {
                _ = earlyStop.load(ordering: .relaxed)  // made now, never first in the handler
                var action = signalAction(recordEarlyStop)
                action.sa_flags = SA_RESTART
                sigaction(stopping.signal, &action, nil)
            }
            let source = DispatchSource.makeSignalSource(signal: stopping.signal, queue: .global())
            source.setEventHandler { stop(stopping.signal) }
            source.setRegistrationHandler {
                let early = earlyStop.exchange(0, ordering: .relaxed)
                if early != 0 { stop(early) }
            }
            source.resume()
            return source
        }
        defer { for source in sources { source.cancel() } }
        let task = Task(executorPreference: sideBySide ? nil : MainThreadExecutor.running) { try await work() }
        running.withLock { $0 = task }
        if received.load(ordering: .relaxed) != 0 { task.cancel() }  // a signal came before the work started

        // A signal the early handler recorded after the source's registration looked (the
        // handler ran late): never an exit of 0 after it.
        func unhandledEarlyStop() -> Int32 { earlyStop.exchange(0, ordering: .relaxed) }
        do {
            try await task.value
            if received.load(ordering: .relaxed) != 0 { leave(after: received.load(ordering: .relaxed)) }
            let late = unhandledEarlyStop()
            if late != 0 { leave(after: late) }
        } catch {
            let late = unhandledEarlyStop()
            let signal = received.load(ordering: .relaxed) != 0 ? received.load(ordering: .relaxed) : late
            if signal != 0 || error is CancellationError {
                // The work has wound down (temp files removed, downloads recorded); leave
                // without running exit handlers, which could race threads still finishing.
                leave(after: signal == 0 ? SIGINT : signal)
            }
            throw report(error)
        }
    }

    /// Whether `signal` already has a handler (libdispatch's, from an earlier command in this
    /// process), which must not be replaced.
    private static func hasHandler(_ signal: Int32) -> Bool {
        let handler = currentSignalHandler(signal)
        return handler != unsafeBitCast(SIG_DFL, to: Int.self) && handler != unsafeBitCast(SIG_IGN, to: Int.self)
    }

    /// Says why on stderr and exits with 128 + the signal's number, as shells report it.
    private static func leave(after signal: Int32) -> Never {
        // Downloads the transport's thread has not wound down yet (a command that left at its
        // deadline, or before the loop took every cancel) leave no temp file behind.
        PartialDownloads.removeAll()
        // stderr may be a terminal that reads nothing or a full pipe, as stdout was: a message
        // that cannot be written must not keep photos from ending.
        DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(250)) { _exit(128 + signal) }
        Diagnostics.error(stopSignals.first { $0.signal == signal }?.name ?? "interrupted")
        _exit(128 + signal)
    }

    /// The exit code a transfer's failure ends a command with: 69 (unavailable) but for two.
    static func exitCode(of error: TransportError) -> Int32 {
        switch error {
        // A file that could not be written (a full disk under the cache) is photos' own output
        // failing, not the provider: 74, as DESIGN has it.
        case .fileSystem: return 74
        // An answer far larger than any page (a decompression bomb) is bad data from the
        // provider (65), as save counts an image over the cap.
        case .tooLarge: return PhotosError.badData(provider: "", detail: "").exitCode
        default: return PhotosError.unavailable(provider: "", detail: "").exitCode
        }
    }

    /// What a file error of Foundation's says: the file, and the system's reason.
    static func fileProblem(_ error: CocoaError) -> String {
        let path = error.filePath ?? error.url?.path
        let reason = PhotoCache.describe(error)
        return path.map { "\(TerminalText.sanitize($0)): \(reason)" } ?? reason
    }

    /// Prints `error` (after `prefix`) and returns the exit code to leave with.
    static func report(_ error: any Error, prefix: String = "", suffix: String = "") -> any Error {
        switch error {
        case let error as ExitCode:
            return error
        case let failure as ProviderFailure:
            return report(failure.error, prefix: prefix + failure.provider + ": ", suffix: suffix)
        case let hinted as HintedError:
            return report(hinted.error, prefix: prefix, suffix: "; " + hinted.hint + suffix)
        case OutputError.readerGone:
            return ExitCode.success  // `photos list | head`: the reader has what it wanted
        case OutputError.failed(let reason):
            Diagnostics.error("cannot write the output: \(reason)")
            return ExitCode(74)
        case let error as PhotosError:
            Diagnostics.error(prefix + error.description + suffix)
            return ExitCode(error.exitCode)
        case let error as TransportError:
            Diagnostics.error(prefix + error.description + suffix)
            return ExitCode(exitCode(of: error))
        case let error as ValidationError:
            return error
        // A file photos could not write or read (Foundation's errors, the system's): said in the
        // system's words, not as an NSError dump, and 74 as any output photos could not write.
        case let error as CocoaError where error.isFileError:
            Diagnostics.error(prefix + Self.fileProblem(error) + suffix)
            // Writing (CocoaError's 512...767 codes): 74; reading: as any other failure.
            return ExitCode((512..<768).contains(error.code.rawValue) ? 74 : 1)
        case let error as POSIXError where [.ENOSPC, .EDQUOT, .EROFS, .EFBIG, .EIO].contains(error.code):
            Diagnostics.error(prefix + String(cString: strerror(error.code.rawValue)) + suffix)
            return ExitCode(74)
        default:
            Diagnostics.error(prefix + String(describing: error) + suffix)
            return ExitCode(1)
        }
    }
}

/// Set once a stop signal (SIGINT, SIGTERM, SIGHUP) has been received: the command is ending.
private let stopping = Atomic(false)

extension CommandRuntime {
    /// Whether a stop signal has been received: a wait that would keep photos from ending (a
    /// browse stopped in the background) gives up.
    static var isStopping: Bool { stopping.load(ordering: .relaxed) }
}

/// A stop signal that came before libdispatch's handler was in place (see
/// `CommandRuntime.run`), 0 when none did.
private let earlyStop = Atomic<Int32>(0)

/// The handler until then: records the signal (an atomic store is safe in a signal handler).
private func recordEarlyStop(_ signal: Int32) {
    _ = earlyStop.compareExchange(expected: 0, desired: signal, ordering: .relaxed)
}

/// An error and what the user may check about it, said after it; its exit status is the
/// error's own.
struct HintedError: Error, CustomStringConvertible {
    let error: any Error
    let hint: String

    var description: String { Diagnostics.describe(error) + "; " + hint }
}

/// One provider's failure, where several failed: said with the provider's name, as the others
/// are, and leaving with its own exit code.
struct ProviderFailure: Error, CustomStringConvertible {
    let provider: String
    let error: any Error

    var description: String { provider + ": " + Diagnostics.describe(error) }
}
