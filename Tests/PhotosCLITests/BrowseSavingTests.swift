import Foundation
import PhotosCore
import PhotosTestSupport
import PhotosTransport
import Testing

@testable import PhotosCLI

/// `s` in browse saves as `photos save` does: under the default name, marked as the photo's,
/// never over a file that is not.
struct BrowseSavingTests {
    /// The first bytes of a JPEG, which is all the name and the checks look at.
    static let image = Data([0xFF, 0xD8, 0xFF, 0xE0] + Array(repeating: 0x20, count: 60))

    @Test func aFileThatIsNotThePhotosKeepsItsNameAndTheSaveIsFoundAgain() throws {
        let folder = try TemporaryFolder("browse-save")
        let cached = folder.appending("cached-image")
        try Self.image.write(to: cached)
        let photo = Photo(id: PhotoID(provider: "placeholder", raw: "1"), title: "one")
        let saves = folder.appending("saves")
        try FileManager.default.createDirectory(at: saves.appendingPathComponent("placeholder"), withIntermediateDirectories: true)
        let mine = saves.appendingPathComponent("placeholder/placeholder_1.jpg")
        try Data("my own notes, not a photo".utf8).write(to: mine)

        let first = try BrowseSaving.save(cached, photo: photo, into: saves)
        #expect(!first.existed)
        #expect(first.path == saves.appendingPathComponent("placeholder/placeholder_1-2.jpg").path)
        #expect(try Data(contentsOf: mine) == Data("my own notes, not a photo".utf8), "the user's file is left as it was")
        #expect(try Data(contentsOf: URL(fileURLWithPath: first.path)) == Self.image)
        #expect(ExtendedAttribute.get(SavedFiles.ownerAttribute, path: first.path) == "placeholder:1", "marked as photos save marks its files")

        let again = try BrowseSaving.save(cached, photo: photo, into: saves)
        #expect(again.existed && again.path == first.path, "saved once")
    }
}
