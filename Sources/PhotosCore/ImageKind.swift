import Foundation

/// What an image file really is, from its first bytes: never from its URL or name, which a
/// server chooses.
public enum ImageKind: String, Sendable, CaseIterable {
    case jpeg, png, gif, webp

    /// The file name extension for this kind.
    public var fileExtension: String {
        switch self {
        case .jpeg: return "jpg"
        case .png: return "png"
        case .gif: return "gif"
        case .webp: return "webp"
        }
    }

    /// The kind the bytes start like, or nil for anything else (HTML, a ZIP or .jar, text).
    public init?(sniffing bytes: some Collection<UInt8>) {
        let head = Array(bytes.prefix(12))
        func starts(_ magic: [UInt8], at offset: Int = 0) -> Bool {
            head.count >= offset + magic.count && Array(head[offset..<offset + magic.count]) == magic
        }
        if starts([0xFF, 0xD8, 0xFF]) {
            self = .jpeg
        } else if starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) {
            self = .png
        } else if starts(Array("GIF87a".utf8)) || starts(Array("GIF89a".utf8)) {
            self = .gif
        } else if starts(Array("RIFF".utf8)) && starts(Array("WEBP".utf8), at: 8) {
            self = .webp
        } else {
            return nil
        }
    }

    /// The kind of the file at `url`, reading its first 12 bytes; nil when it is not an image
    /// or cannot be read.
    public init?(file url: URL) {
        self.init(path: url.path)
    }

    /// The kind of the file at `path` (its first 12 bytes, read with three system calls: this
    /// runs for every image the cache stores).
    public init?(path: String) {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var head = [UInt8](repeating: 0, count: 12)
        let count = head.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, 12) }
        guard count > 0 else { return nil }
        self.init(sniffing: head.prefix(count))
    }

    /// Why a body that fails ``endsWhole(path:)`` is refused.
    public static let cutShortReason = "the image ended early (the server said no length and closed before its end)"

    /// Whether the file at `path`, an image of this kind, ends as one does: a JPEG's end
    /// marker, a PNG's `IEND` chunk, a GIF's trailer (each allowing a few bytes of padding after
    /// it), a WebP's RIFF length. A body cut short where nothing said its length fails it.
    public func endsWhole(path: String) -> Bool {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { return false }
        let size = Int(info.st_size)
        if self == .webp {
            var head = [UInt8](repeating: 0, count: 8)
            guard head.withUnsafeMutableBytes({ pread(descriptor, $0.baseAddress, 8, 0) }) == 8 else { return false }
            let declared = Int(head[4]) | Int(head[5]) << 8 | Int(head[6]) << 16 | Int(head[7]) << 24
            return size >= declared + 8
        }
        let count = min(size, 32)
        var tail = [UInt8](repeating: 0, count: count)
        guard tail.withUnsafeMutableBytes({ pread(descriptor, $0.baseAddress, count, off_t(size - count)) }) == count else { return false }
        switch self {
        case .jpeg: return zip(tail, tail.dropFirst()).contains { $0 == 0xFF && $1 == 0xD9 }
        case .png: return count >= 4 && (0...(count - 4)).contains { Array(tail[$0..<$0 + 4]) == Array("IEND".utf8) }
        case .gif: return tail.suffix(4).contains(0x3B)
        case .webp: return true
        }
    }
}
