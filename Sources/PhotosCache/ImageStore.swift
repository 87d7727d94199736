import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import PhotosCore

/// Content-addressed image files under `<root>/images/`, named by the SHA-256 of their URL.
///
/// Files are only ever published by the transport's temp-file-and-rename, so a file that exists
/// was whole when written; the index records its size so later truncation is noticed.
public struct ImageStore: Sendable {
    public let root: URL
    /// `root`'s path, to which relative paths are joined as strings.
    private let rootPath: String

    public init(root: URL) {
        self.init(root: root, rootPath: Self.folderPath(root))
    }

    /// - Parameter rootPath: `root`'s path without a trailing `/`: made once (``folderPath(_:)``),
    ///   for URL's `path` is slow (100,000 instructions a call).
    init(root: URL, rootPath: String) {
        self.root = root
        self.rootPath = rootPath
    }

    /// `folder`'s path without a trailing `/` (empty for `/`), to join names to with `/`.
    static func folderPath(_ folder: URL) -> String {
        let path = folder.path
        return path.hasSuffix("/") ? String(path.dropLast()) : path
    }

    /// The folder of images.
    public var imagesFolder: URL { root.appendingPathComponent("images", isDirectory: true) }

    /// Where the image for `url` lives (whether or not it is there yet).
    public func path(for url: String) -> URL {
        root.appendingPathComponent(relativePath(for: url))
    }

    /// The path below the root, as the index records it: `images/ab12...ef.jpg`.
    ///
    /// One flat folder: lookups go through the index, never a directory listing, and a cold
    /// listing of 100 photos would otherwise create up to 100 shard folders, which on a plain
    /// disk cost as much as writing the images. (Older sharded paths stay valid: the index
    /// records each file's own path.)
    public func relativePath(for url: String) -> String {
        "images/\(SHA256.hex(url))\(Self.fileExtension(of: url))"
    }

    /// Creates the folder that will hold `url`'s file: one `mkdir`, which fails harmlessly
    /// when the folder is there.
    public func prepareFolder(for url: String) throws {
        try prepareFolder(relativePath: relativePath(for: url))
    }

    /// Creates the folder of a ``relativePath(for:)``.
    func prepareFolder(relativePath: String) throws {
        let slash = relativePath.utf8.lastIndex(of: UInt8(ascii: "/"))
        let path = slash.map { rootPath + "/" + relativePath[..<$0] } ?? rootPath
        if mkdir(path, 0o700) == 0 || errno == EEXIST { return }
        let folder = URL(fileURLWithPath: path, isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    }

    /// A safe extension from the URL path: only short alphanumeric ones, defaulting to none.
    static func fileExtension(of url: String) -> String {
        guard var path = PlainHTTPURL(url)?.path ?? URLComponents(string: url)?.path else { return "" }
        // The last non-empty path component's text after its last dot: 1 to 5 ASCII letters
        // or digits, lowercased (bytes: this runs for every image a listing names).
        return path.withUTF8 { bytes -> String in
            var end = bytes.count
            while end > 0, bytes[end - 1] == UInt8(ascii: "/") { end -= 1 }
            var start = end
            while start > 0, bytes[start - 1] != UInt8(ascii: "/") { start -= 1 }
            guard let dot = bytes[start..<end].lastIndex(of: UInt8(ascii: ".")) else { return "" }
            let ext = bytes[(dot + 1)..<end]
            guard (1...5).contains(ext.count), ext.allSatisfy({ ($0 | 0x20 >= 0x61 && $0 | 0x20 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) }) else {
                return ""
            }
            return "." + String(decoding: ext.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }, as: UTF8.self)
        }
    }
}
