import Foundation

/// The repository's `Fixtures/` folder and the files in it.
public enum FixtureFiles {
    public static let root: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // PhotosTestSupport
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()  // repository
        .appendingPathComponent("Fixtures", isDirectory: true)

    public static func url(_ relativePath: String) -> URL { root.appendingPathComponent(relativePath) }

    public static func data(_ relativePath: String) throws -> Data { try Data(contentsOf: url(relativePath)) }

    /// A sample image from Fixtures/images.
    public static func image(_ name: String) -> URL { url("images/\(name)") }

    /// The recorded placeholder records as JSON objects.
    public static func placeholderRecords() throws -> [[String: Any]] {
        try JSONSerialization.jsonObject(with: data("placeholder/photos.json")) as? [[String: Any]] ?? []
    }
}
