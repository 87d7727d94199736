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

    public init(root: URL) {
        self.root = root
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
        let folder = root.appendingPathComponent(relativePath).deletingLastPathComponent()
        if mkdir(folder.path, 0o700) == 0 || errno == EEXIST { return }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    }

    /// A safe extension from the URL path: only short alphanumeric ones, defaulting to none.
    static func fileExtension(of url: String) -> String {
        guard let path = PlainHTTPURL(url)?.path ?? URLComponents(string: url)?.path else { return "" }
        let last = path.split(separator: "/").last ?? ""
        guard let dot = last.lastIndex(of: ".") else { return "" }
        let ext = last[last.index(after: dot)...].lowercased()
        guard (1...5).contains(ext.count), ext.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) else { return "" }
        return "." + ext
    }
}
