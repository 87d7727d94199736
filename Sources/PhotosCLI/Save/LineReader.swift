import Dispatch
import Foundation
import PhotosCore
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads lines from a file descriptor (stdin) in batches, on a dispatch thread: a pipe whose
/// writer is slow (`photos list ... | photos save -`) never holds one of the few threads that run
/// Swift's tasks.
final class LineReader: @unchecked Sendable {
    private let descriptor: Int32
    private let queue = DispatchQueue(label: "photos.stdin")
    // Touched only on `queue`.
    private var pending: [UInt8] = []
    /// Where the unread part of `pending` starts.
    private var start = 0
    /// `pending[start..<scanned]` holds no newline: searched once, not again after every read
    /// (a line of megabytes took time growing with its square: 10 MB, 75 s).
    private var scanned = 0
    private var atEnd = false
    /// Set when the task waiting for lines is cancelled (Ctrl-C): a read that waits stops.
    private let cancelled = Atomic(false)

    /// The longest line kept; longer ones are cut. A photo object is a few KB, but one line
    /// may be a whole `photos list --format json` document made compact (`jq -c`): thousands of
    /// photos, as many as the JSON joiner takes.
    static let maxLineBytes = 8 << 20

    init(descriptor: Int32 = STDIN_FILENO) {
        self.descriptor = descriptor
    }

    /// Up to `count` lines (without their newline; a last line without one included), waiting
    /// for at least one; nil at the end of the input.
    /// - Throws: `PhotosError.usage` when the input cannot be read, `CancellationError` when the
    ///   task is cancelled while no input comes (stdin a terminal or a pipe left open).
    func next(upTo count: Int) async throws -> [String]? {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                queue.async { [self] in
                    do {
                        continuation.resume(returning: try readLines(upTo: count))
                    } catch {
                        continuation.resume(throwing: error)
                    }
                }
            }
        } onCancel: {
            cancelled.store(true, ordering: .relaxed)
        }
    }

    private func readLines(upTo count: Int) throws -> [String]? {
        var lines: [String] = []
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while lines.count < count {
            if let newline = pending[max(start, scanned)...].firstIndex(of: 0x0A) {
                lines.append(line(pending[start..<newline]))
                start = newline + 1
                scanned = start
                continue
            }
            pending.removeFirst(start)
            start = 0
            scanned = pending.count
            if atEnd {
                if !pending.isEmpty {
                    lines.append(line(pending[...]))
                    pending.removeAll()
                    scanned = 0
                }
                break
            }
            // Lines already read are handed over before waiting for more.
            if !lines.isEmpty && !Self.isReadable(descriptor) { break }
            // Nothing to read yet: waited for in short steps, so that a cancelled save stops.
            while !Self.isReadable(descriptor, waiting: 100) {
                if cancelled.load(ordering: .relaxed) { throw CancellationError() }
            }
            let read = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if read < 0 {
                if errno == EINTR { continue }
                throw PhotosError.usage("cannot read the standard input: \(String(cString: strerror(errno)))")
            }
            if read == 0 {
                atEnd = true
            } else {
                pending += buffer[..<read]
                // A line longer than the longest kept: its middle goes as it comes, the bytes
                // just read stay (they may end it).
                if scanned > Self.maxLineBytes {
                    pending.removeSubrange(Self.maxLineBytes..<scanned)
                    scanned = Self.maxLineBytes
                }
            }
        }
        return lines.isEmpty && atEnd ? nil : lines
    }

    private func line(_ bytes: ArraySlice<UInt8>) -> String {
        var slice = bytes.prefix(Self.maxLineBytes)
        if slice.last == 0x0D { slice = slice.dropLast() }
        // A byte order mark (Windows editors write one) is no part of an id.
        if slice.starts(with: [0xEF, 0xBB, 0xBF]) { slice = slice.dropFirst(3) }
        return String(decoding: slice, as: UTF8.self)
    }

    /// Whether a read of `descriptor` would not wait (data, its end, or an error to report),
    /// waiting up to `milliseconds` for it.
    private static func isReadable(_ descriptor: Int32, waiting milliseconds: Int32 = 0) -> Bool {
        var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        let ready = poll(&poller, 1, milliseconds)
        // A descriptor poll cannot watch is read as before (the read says what is wrong).
        return ready != 0 || (ready < 0 && errno != EINTR)
    }
}
