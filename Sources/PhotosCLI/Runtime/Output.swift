import PhotosCache
import PhotosCore
import PhotosTerminal
import PhotosTransport
import StandardStreams
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes diagnostics, warnings and progress to stderr, always sanitised.
enum Diagnostics {
    /// Whether the last text written left the cursor inside a line (a progress bar's, which
    /// redraws itself with a carriage return): the next message then starts on a line of its own.
    private static let midLine = Mutex(false)

    static func error(_ message: String) { write("photos: error: " + TerminalText.sanitize(message)) }
    static func warning(_ message: String) { write("photos: warning: " + TerminalText.sanitize(message)) }
    static func note(_ message: String) { write(TerminalText.sanitize(message)) }
    /// Something worth knowing that is neither a warning nor an error, said as warnings are.
    static func remark(_ message: String) { write("photos: note: " + TerminalText.sanitize(message)) }

    /// Raw output to stderr (progress bars); the caller has made it safe. Nothing is drawn while
    /// photos runs in the background: the terminal's line is then the shell's, and a progress
    /// line would land in what the user types. The next step after `fg` draws it again.
    static func raw(_ text: String) {
        midLine.withLock { midLine in
            guard !text.isEmpty else { return }
            guard TTY.isForeground(STDERR_FILENO) else {
                midLine = false
                return
            }
            Output.writeAll(text, to: STDERR_FILENO)
            midLine = leavesCursorMidLine(text)
        }
    }

    /// Whether the cursor is inside a line once `text` is written: not after a newline, a
    /// carriage return, or a progress bar cleared (a carriage return and erase-line). Bytes, as
    /// "\r\n" is one Character, which `hasSuffix("\n")` would not see.
    static func leavesCursorMidLine(_ text: String) -> Bool {
        let last = text.utf8.last
        let cleared = text.utf8.reversed().starts(with: "\r\u{1B}[2K".utf8.reversed())
        return !(last == UInt8(ascii: "\n") || last == UInt8(ascii: "\r") || cleared)
    }

    /// `line` and a newline, on a line of its own: a progress line it interrupts is erased (it
    /// is drawn again below at its next step), not left on the screen with stale counts. In the
    /// background the line is the shell's, and is not erased.
    private static func rawLine(_ line: String) {
        midLine.withLock { midLine in
            let erase = midLine && TTY.isForeground(STDERR_FILENO)
            Output.writeAll((erase ? "\r\u{1B}[2K" : "") + line + "\n", to: STDERR_FILENO)
            midLine = false
        }
    }

    private static func write(_ line: String) {
        let holding = held.withLock { held -> (kept: Bool, show: (@Sendable (String) -> Void)?) in
            guard var kept = held else { return (false, nil) }
            kept.lines.append(line)
            held = kept
            return (true, kept.show)
        }
        if holding.kept { holding.show?(line) } else { rawLine(line) }
    }

    /// Lines said while a full-screen view owns the terminal (browse), which would land on top of
    /// it: kept until ``release()``, and handed to `show` (its status line) meanwhile.
    private static let held = Mutex<(lines: [String], show: (@Sendable (String) -> Void)?)?>(nil)

    /// From now on, errors, warnings and notes are kept for ``release()`` and given to `show`.
    static func hold(showing show: (@Sendable (String) -> Void)? = nil) {
        held.withLock { $0 = ($0?.lines ?? [], show) }
    }

    /// Writes the lines kept since ``hold(showing:)``, in order, and writes new ones at once again.
    static func release() {
        let lines = held.withLock { held -> [String] in
            defer { held = nil }
            return held?.lines ?? []
        }
        for line in lines { rawLine(line) }
    }

    /// An error as one line for a message: photos' and the transport's own wording, the
    /// system's reason for a file that could not be written, never an NSError dump.
    static func describe(_ error: any Error) -> String { PhotoCache.describe(error) }
}

/// Why stdout could not take the output.
enum OutputError: Error {
    /// The reader went away (a closed pipe): nothing more is wanted.
    case readerGone
    /// The write failed (a full disk, an I/O error): exit 74.
    case failed(String)
}

/// Output written to stdout in pieces as it is made (``JSONText``'s flush): the first failure is
/// kept and what follows it dropped; ``finish()`` throws it as ``Output/write(bytes:)`` would.
final class PiecewiseOutput {
    private var failure: Int32?
    private let closed = Output.standardOutputWasClosed

    /// The size of a piece: a few pages, written again and again.
    static let pieceBytes = 64 * 1024

    func write(_ buffer: UnsafeRawBufferPointer) {
        guard failure == nil, !closed else { return }
        failure = Output.writeAll(buffer, to: STDOUT_FILENO)
    }

    func finish() throws {
        if closed { throw OutputError.failed(Output.closedStandardOutput) }
        if let failure { throw failure == EPIPE ? OutputError.readerGone : OutputError.failed(String(cString: strerror(failure))) }
    }
}

/// Writes data to stdout.
enum Output {
    /// Why output meant for a stdout closed at start (`>&-`) is an error.
    static let closedStandardOutput = "the standard output is closed; send it to a file, or to /dev/null to discard it"

    /// Whether stdout was closed when photos started.
    static var standardOutputWasClosed: Bool { photos_standard_stream_was_closed(STDOUT_FILENO) }

    /// Leaves with 74 when stdout was closed at start, for output written before any command
    /// runs (`--version`, help).
    static func exitIfStandardOutputWasClosed() {
        guard standardOutputWasClosed else { return }
        writeAll("photos: error: cannot write the output: \(closedStandardOutput)\n", to: STDERR_FILENO)
        _exit(74)
    }

    /// Writes to stdout.
    /// - Throws: `OutputError`: the command then winds down as after any error (the cache
    ///   records what was done, the transport stops) before photos exits.
    static func write(_ text: String) throws {
        try write(bytes: Array(text.utf8))
    }

    /// Writes UTF-8 bytes to stdout.
    /// - Throws: `OutputError`, as ``write(_:)``.
    static func write(bytes: [UInt8]) throws {
        // Started with stdout closed: descriptor 1 is /dev/null (see StandardStreams), and the
        // output would vanish without a word.
        if standardOutputWasClosed { throw OutputError.failed(closedStandardOutput) }
        if let error = writeAll(bytes: bytes, to: STDOUT_FILENO) {
            throw error == EPIPE ? OutputError.readerGone : OutputError.failed(String(cString: strerror(error)))
        }
    }

    /// Writes every byte, retrying short writes and interruptions. Returns the errno of a
    /// failed write, nil when everything was written.
    @discardableResult
    static func writeAll(_ text: String, to descriptor: Int32) -> Int32? {
        writeAll(bytes: Array(text.utf8), to: descriptor)
    }

    @discardableResult
    static func writeAll(bytes: [UInt8], to descriptor: Int32) -> Int32? {
        bytes.withUnsafeBytes { writeAll($0, to: descriptor) }
    }

    /// Writes all of `buffer` (through EINTR and short writes); returns errno on failure.
    ///
    /// A descriptor inherited non-blocking (a pipe set up so by the program reading it, as some
    /// CI runners and Node-based tools do) answers EAGAIN when the reader is behind: photos waits
    /// until it can write, as a blocking descriptor would, rather than failing the output.
    @discardableResult
    static func writeAll(_ buffer: UnsafeRawBufferPointer, to descriptor: Int32) -> Int32? {
        guard var pointer = buffer.baseAddress else { return nil }
        var remaining = buffer.count
        while remaining > 0 {
            let written = Glibc.write(descriptor, pointer, remaining)
            if written < 0 {
                if errno == EINTR { continue }
                if errno == EAGAIN || errno == EWOULDBLOCK {
                    var ready = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
                    if poll(&ready, 1, -1) >= 0 || errno == EINTR { continue }
                }
                return errno
            }
            remaining -= written
            pointer += written
        }
        return nil
    }
}
