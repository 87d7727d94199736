import Foundation
import PhotosCore

/// Content-addressed image files under `<root>/images/`, named by the SHA-256 of their URL.
///
/// Files are only ever published by the transport's temp-file-and-rename, so a file that exists
/// is whole as downloaded.
public struct ImageStore: Sendable {
    public let root: URL

    public init(root: URL) {
        self.root = root
    }

    /// The folder of images.
    public var imagesFolder: URL { root.appendingPathComponent("images", isDirectory: true) }

    /// Where the image for `url` lives (whether or not it is there yet).
    public func path(for url: String) -> URL {
        let hash = SHA256.hex(url)
        let ext = Self.fileExtension(of: url)
        return imagesFolder
            .appendingPathComponent(String(hash.prefix(2)), isDirectory: true)
            .appendingPathComponent(hash + ext)
    }

    /// The cached file for `url`, if present and not empty.
    public func existingFile(for url: String) -> URL? {
        let path = path(for: url)
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path.path),
              let size = attributes[.size] as? NSNumber, size.intValue > 0
        else { return nil }
        return path
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
