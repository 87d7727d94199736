import Foundation
import PhotosCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The file of a resumable download (`photos save`'s `NAME.part`): written in place, never
/// renamed or removed by the transport, so that what arrived survives a failure, Ctrl-C or a
/// crash and the next attempt asks only for the rest.
///
/// What the bytes are a prefix of is recorded in an extended attribute of the file
/// (``attributeName``): the validator the server sent with them (a strong `ETag`, else
/// `Last-Modified`) and the URL. A later attempt sends `Range: bytes=SIZE-` with
/// `If-Range: VALIDATOR`, so a server whose copy changed sends the whole new body instead
/// (200), which replaces the old bytes. Without the attribute (a file system without extended
/// attributes, a server that sends no validator, another URL) the download starts again from
/// the first byte: bytes are never joined to a representation they may not belong to.
struct ResumableFile {
    static let attributeName = ExtendedAttribute.resumableDownload

    /// The file's path.
    let target: String
    let url: String
    /// Bytes kept from an earlier attempt: the offset this attempt asks to continue from.
    let offset: Int
    private let validator: String?
    private var descriptor: Int32 = -1
    /// Whether the body being received continues the old bytes (206) or replaces them (200).
    private(set) var appending = false

    /// Reads what an earlier attempt left at `target` (nothing is opened or created yet).
    /// - Throws: `TransportError.fileSystem` when `target` is a symbolic link or not a regular file.
    init(for target: String, url: String) throws(TransportError) {
        self.target = target
        self.url = url
        var info = stat()
        guard lstat(target, &info) == 0 else {
            offset = 0
            validator = nil
            return
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            throw .fileSystem(path: target, detail: "not a regular file")
        }
        let recorded = Self.readAttribute(target)
        if info.st_size > 0, let recorded, recorded.url == url {
            offset = Int(info.st_size)
            validator = recorded.validator
        } else {
            offset = 0
            validator = nil
        }
    }

    /// `Range` and `If-Range` for continuing the old bytes; empty when starting afresh.
    var requestHeaders: [String: String] {
        guard offset > 0, let validator else { return [:] }
        return ["Range": "bytes=\(offset)-", "If-Range": validator]
    }

    /// Opens the file for a 2xx answer: a 206 must continue exactly at ``offset`` and is
    /// appended; a 200 replaces the old bytes and records its own validator.
    /// - Throws: `TransportError.protocolError` for a 206 that starts elsewhere (nothing is
    ///   written), `.fileSystem` when the file cannot be opened.
    mutating func begin(status: Int, headers: HTTPHeaders, host: String) throws(TransportError) {
        if status == 206 {
            guard offset > 0, let header = headers["Content-Range"], let range = ContentRange(header), range.first == offset else {
                throw .protocolError(host: host, detail: "the server sent a range photos did not ask for")
            }
            appending = true
        } else {
            appending = false
        }
        // Opened once per attempt: a second 2xx head would be a second response to one request.
        guard descriptor < 0 else { throw .protocolError(host: host, detail: "a second response came for one request") }
        descriptor = open(target, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o666)
        guard descriptor >= 0 else { throw .fileSystem(path: target, detail: String(cString: strerror(errno))) }
        if appending {
            guard lseek(descriptor, off_t(offset), SEEK_SET) == off_t(offset) else {
                throw .fileSystem(path: target, detail: String(cString: strerror(errno)))
            }
        } else {
            guard ftruncate(descriptor, 0) == 0 else { throw .fileSystem(path: target, detail: String(cString: strerror(errno))) }
            Self.writeAttribute(descriptor, validator: HTTPValidators(headers: headers).rangeValidator, url: url)
        }
    }

    /// Writes all of `bytes`, retrying short writes and interrupted calls.
    func append(_ bytes: UnsafeBufferPointer<UInt8>) throws(TransportError) {
        guard descriptor >= 0, var pointer = bytes.baseAddress else { return }
        var remaining = bytes.count
        while remaining > 0 {
            let written = write(descriptor, pointer, remaining)
            if written < 0 {
                if errno == EINTR { continue }
                throw .fileSystem(path: target, detail: String(cString: strerror(errno)))
            }
            remaining -= written
            pointer += written
        }
    }

    /// Closes the file, keeping every byte written.
    /// - Throws: `TransportError.fileSystem` when the last writes could not be stored.
    mutating func finishWriting() throws(TransportError) {
        guard descriptor >= 0 else { return }
        let closed = close(descriptor)
        descriptor = -1
        if closed != 0 { throw .fileSystem(path: target, detail: String(cString: strerror(errno))) }
    }

    // MARK: The attribute

    /// `VALIDATOR\nURL`, or nothing (then the bytes cannot be continued).
    private static func writeAttribute(_ descriptor: Int32, validator: String?, url: String) {
        guard let validator else {
            ExtendedAttribute.remove(attributeName, descriptor: descriptor)
            return
        }
        ExtendedAttribute.set(attributeName, validator + "\n" + url, descriptor: descriptor)
    }

    static func readAttribute(_ path: String) -> (validator: String, url: String)? {
        guard let text = ExtendedAttribute.get(attributeName, path: path), let newline = text.firstIndex(of: "\n") else { return nil }
        let validator = String(text[..<newline])
        guard !validator.isEmpty else { return nil }
        return (validator, String(text[text.index(after: newline)...]))
    }
}
