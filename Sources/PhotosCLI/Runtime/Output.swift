import PhotosCore
import PhotosTerminal
import PhotosTransport
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

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

    /// An error as one line for a message: photos' and the transport's own wording.
    static func describe(_ error: any Error) -> String {
        switch error {
        case let error as PhotosError: return error.description
        case let error as TransportError: return error.description
        default: return String(describing: error)
        }
    }
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
