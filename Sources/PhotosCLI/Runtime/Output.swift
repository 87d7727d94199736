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

/// Writes diagnostics, warnings and progress to stderr, always sanitised.
enum Diagnostics {
    private static let lock = Mutex(())

    static func error(_ message: String) { write("photos: error: " + TerminalText.sanitize(message)) }
    static func warning(_ message: String) { write("photos: warning: " + TerminalText.sanitize(message)) }
    static func note(_ message: String) { write(TerminalText.sanitize(message)) }

    /// Raw output to stderr (progress bars); the caller has made it safe.
    static func raw(_ text: String) {
        _ = lock.withLock { _ in Output.writeAll(text, to: STDERR_FILENO) }
    }

    private static func write(_ line: String) { raw(line + "\n") }

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

/// Writes data to stdout.
enum Output {
    /// Writes to stdout.
    /// - Throws: `OutputError`: the command then winds down as after any error (the cache
    ///   records what was done, the transport stops) before photos exits.
    static func write(_ text: String) throws {
        try write(bytes: Array(text.utf8))
    }

    /// Writes UTF-8 bytes to stdout.
    /// - Throws: `OutputError`, as ``write(_:)``.
    static func write(bytes: [UInt8]) throws {
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
        bytes.withUnsafeBytes { buffer -> Int32? in
            guard var pointer = buffer.baseAddress else { return nil }
            var remaining = buffer.count
            while remaining > 0 {
                let written = Glibc.write(descriptor, pointer, remaining)
                if written < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                remaining -= written
                pointer += written
            }
            return nil
        }
    }
}
