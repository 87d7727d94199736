import Foundation
import PhotosTestSupport
import Testing

@testable import PhotosTransport

/// However many downloads are prepared ahead of their turn, the process holds at most a few
/// hundred of their files open; the others are reopened by their first write and lose nothing.
@Suite struct TempFileTests {
    @Test func preparedFilesHoldABoundedNumberOfDescriptors() throws {
        let folder = try TemporaryFolder()
        var files = try (0..<(TempFile.heldOpenLimit + 100)).map { index in
            try TempFile(for: folder.url.appendingPathComponent("\(index).jpg").path, keepOpen: true)
        }
        // Other tests may hold places meanwhile: never more than the bound in all.
        #expect(files.filter(\.isOpen).count <= TempFile.heldOpenLimit)
        #expect(TempFile.heldOpenCount <= TempFile.heldOpenLimit)
        #expect(files.contains { !$0.isOpen }, "a hundred past the bound were closed")
        let bytes: [UInt8] = Array("complete".utf8)
        for index in files.indices {
            try bytes.withUnsafeBufferPointer { try files[index].append($0) }
            try files[index].commit()
        }
        for index in files.indices {
            let target = folder.url.appendingPathComponent("\(index).jpg")
            #expect(try Data(contentsOf: target) == Data(bytes), "\(index).jpg")
        }
        #expect(try folder.contents().count == files.count, "no temp file is left")
    }

    /// What a command leaving on a signal removes: the temp files neither committed nor
    /// discarded yet, and nothing else (a committed file keeps its name).
    @Test func leftoversAreTheTempFilesNotCommittedOrDiscarded() throws {
        let folder = try TemporaryFolder()
        func file(_ name: String) throws -> TempFile { try TempFile(for: folder.url.appendingPathComponent(name).path) }
        var committed = try file("committed.jpg"), discarded = try file("discarded.jpg")
        let left = try (0..<3).map { try file("left-\($0).jpg") }
        try committed.commit()
        discarded.discard()
        #expect(try folder.contents().count == 4, "the committed file and three temp files")
        #expect(TempFile.removeLeftovers(under: folder.url.path + "/") == left.count)
        #expect(try folder.contents() == ["committed.jpg"])
        #expect(TempFile.removeLeftovers(under: folder.url.path + "/") == 0, "each is removed once")
    }
}
