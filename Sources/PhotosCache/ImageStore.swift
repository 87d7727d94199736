import Foundation
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

    /// The path below the root, as the index records it: `images/ab/ab12...ef.jpg`.
    public func relativePath(for url: String) -> String {
        let hash = SHA256.hex(url)
        return "images/\(hash.prefix(2))/\(hash)\(Self.fileExtension(of: url))"
    }

    /// Creates the folder that will hold `url`'s file.
    public func prepareFolder(for url: String) throws {
        try FileManager.default.createDirectory(
            at: path(for: url).deletingLastPathComponent(), withIntermediateDirectories: true)
    }

    /// A safe extension from the URL path: only short alphanumeric ones, defaulting to none.
    static func fileExtension(of url: String) -> String {
        guard let path = URLComponents(string: url)?.path else { return "" }
        let last = path.split(separator: "/").last ?? ""
        guard let dot = last.lastIndex(of: ".") else { return "" }
        let ext = last[last.index(after: dot)...].lowercased()
        guard (1...5).contains(ext.count), ext.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) else { return "" }
        return "." + ext
    }
}
