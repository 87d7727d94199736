import Foundation
import Testing

@testable import PhotosCLI

/// The thumbnails a JSON listing names are files that are there when it prints: another photos
/// may clear or prune the cache while a listing walks its pages (50 of 150 paths printed were
/// gone, without a word).
struct ListingThumbnailsTests {
    @Test func thumbnailFilesGoneBeforeTheOutputAreNotNamed() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("photos-thumbnails-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let kept = folder.appendingPathComponent("kept.jpg").path
        let removed = folder.appendingPathComponent("removed.jpg").path
        for path in [kept, removed] { #expect(FileManager.default.createFile(atPath: path, contents: Data([0xFF, 0xD8]))) }
        var thumbnails = Listing.Thumbnails(files: ["https://x.test/kept.jpg": kept, "https://x.test/removed.jpg": removed])
        #expect(Listing.dropVanished(&thumbnails) == 0, "nothing gone yet")
        try FileManager.default.removeItem(atPath: removed)
        #expect(Listing.dropVanished(&thumbnails) == 1)
        #expect(thumbnails.files == ["https://x.test/kept.jpg": kept])
    }
}
