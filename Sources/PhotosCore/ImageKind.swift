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
}
