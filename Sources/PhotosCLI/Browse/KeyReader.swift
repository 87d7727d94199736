import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads keys from the terminal on a thread of its own, so keys are taken while everything else
/// (pages, thumbnails, drawing) goes on. Each key is reported with the moment its bytes arrived.
final class KeyReader: @unchecked Sendable {
    /// How long an ESC may wait for the rest of a sequence before it is the Escape key.
    static let escapeTimeoutMilliseconds: Int32 = 30

    private let input: Int32
    private let wake: (read: Int32, write: Int32)
    private let report: @Sendable ([BrowseKey], ContinuousClock.Instant) -> Void
    private let ended: @Sendable () -> Void
    private let waitForForeground: @Sendable (_ giveUp: () -> Bool) -> Bool
    /// Set by ``stop()``: a wait in the background gives up.
    private let stopping = Atomic(false)
    private var thread: Thread?

    /// - Parameters:
    ///   - report: keys as they arrive, with when.
    ///   - ended: stdin reached its end or failed (the terminal went away).
    ///   - waitForForeground: a read failed with EIO, as it does in the background (`bg` after
    ///     Ctrl-Z): returns once photos is in the foreground again, true, for reading to go on;
    ///     false when it cannot be or when `giveUp` says so (the reader was stopped), and the
    ///     input has ended.
    init(
        input: Int32, report: @escaping @Sendable ([BrowseKey], ContinuousClock.Instant) -> Void, ended: @escaping @Sendable () -> Void,
        waitForForeground: @escaping @Sendable (_ giveUp: () -> Bool) -> Bool = { _ in false }
    ) throws {
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        self.input = input
        wake = (fds[0], fds[1])
        self.report = report
        self.ended = ended
        self.waitForForeground = waitForForeground
    }

    deinit {
        close(wake.read)
        close(wake.write)
    }

    func start() {
        let thread = Thread { [self] in loop() }
        thread.name = "photos-keys"
        self.thread = thread
        thread.start()
    }

    /// Stops the thread (it exits at its next wake-up, at once when waiting).
    func stop() {
        stopping.store(true, ordering: .relaxed)
        var byte: UInt8 = 1
        _ = write(wake.write, &byte, 1)
    }

    private func loop() {
        var decoder = KeyDecoder()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            var fds = [pollfd(fd: input, events: Int16(POLLIN), revents: 0), pollfd(fd: wake.read, events: Int16(POLLIN), revents: 0)]
            let ready = poll(&fds, 2, decoder.hasPending ? Self.escapeTimeoutMilliseconds : -1)
            if ready < 0 {
                if errno == EINTR { continue }
                ended()
                return
            }
            if fds[1].revents != 0 { return }
            if ready == 0 {
                let keys = decoder.flush()
                if !keys.isEmpty { report(keys, .now) }
                continue
            }
            let count = read(input, &buffer, buffer.count)
            let arrived = ContinuousClock.now
            if count < 0 && (errno == EINTR || errno == EAGAIN) { continue }
            if count < 0 && errno == EIO && waitForForeground({ stopping.load(ordering: .relaxed) || CommandRuntime.isStopping }) { continue }
            if count <= 0 {
                ended()
                return
            }
            let keys = decoder.decode(buffer[0..<count])
            if !keys.isEmpty { report(keys, arrived) }
        }
    }
}
