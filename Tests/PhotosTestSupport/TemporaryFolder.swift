import Foundation

/// A fresh folder under the system temp directory, removed when the value is released.
public final class TemporaryFolder: Sendable {
    public let url: URL

    public init(_ label: String = "tests") throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("photos-\(label)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    public func appending(_ name: String) -> URL { url.appendingPathComponent(name) }

    /// The names in the folder (not recursive).
    public func contents() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: url.path)
    }

    /// Every file below the folder whose name ends with `suffix` (photos' temp files end in
    /// `.photos-partial`).
    public func files(endingWith suffix: String) -> [String] {
        FileManager.default.enumerator(atPath: url.path)?.compactMap { $0 as? String }.filter { $0.hasSuffix(suffix) } ?? []
    }
}

/// A fresh folder under the temporary directory that the caller removes.
public func temporaryFolder(_ label: String = "tests") throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("photos-\(label)-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

/// Every file under `folder` whose name ends in `.photos-partial` (photos' temp files).
public func partialFiles(under folder: URL) -> [String] {
    guard let enumerator = FileManager.default.enumerator(atPath: folder.path) else { return [] }
    return enumerator.compactMap { $0 as? String }.filter { $0.hasSuffix(".photos-partial") }
}
