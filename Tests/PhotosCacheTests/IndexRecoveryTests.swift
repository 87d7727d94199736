import Foundation
import PhotosCore
import Testing

@testable import PhotosCache

/// A corrupt, unreadable or deleted index is rebuilt with one warning, never a crash.
@Suite struct IndexRecoveryTests {
    func populate(_ bed: CacheBed) async throws -> [String] {
        let cache = bed.cache()
        let provider = FakeProvider { _, _ in .page(FakeProvider.photos("p", count: 3)) }
        let page = try await cache.listing(ListQuery(page: 1, perPage: 3), from: provider, mode: .normal)
        let urls = page.page.photos.compactMap(\.thumbnailURL)
        _ = await ImageFetcher(cache: cache, http: FakeImages()).fetchAll(urls.map { ($0, "fake") })
        cache.finish(command: "test")
        cache.close()
        return urls
    }

    @Test func garbageIndexIsMovedAsideAndRebuilt() async throws {
        let bed = try CacheBed()
        defer { bed.remove() }
        let urls = try await populate(bed)
        let index = bed.folder.appendingPathComponent("index.sqlite")
        // The whole index: its file and its write-ahead log, which holds what the last runs
        // wrote until a checkpoint (SQLite reads pages from there first).
        try Data(repeating: 0x42, count: 8192).write(to: index)
        try Data(repeating: 0x42, count: 8192).write(to: URL(fileURLWithPath: index.path + "-wal"))

        let cache = bed.cache()
        defer { cache.close() }
        let provider = FakeProvider { _, _ in .page(FakeProvider.photos("p", count: 3)) }
        let page = try await cache.listing(ListQuery(page: 1, perPage: 3), from: provider, mode: .normal)
        #expect(page.origin == .network && provider.callCount == 1)
        #expect(bed.warnings.all.count == 1)
        #expect(bed.warnings.all.first?.contains("rebuilt") == true)
        #expect(FileManager.default.fileExists(atPath: index.path + ".corrupt"))
        #expect(cache.cachedImages(urls).isEmpty, "images the old index knew were dropped with it")
        #expect(try cache.integrityCheck() == "ok")
        // The trash goes at the end of the command, with the sweep a rebuilt index is due.
        #expect(cache.finish(command: "rebuilt") != nil)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: bed.folder.path).filter { $0.hasPrefix("trash-") }
        #expect(leftovers.isEmpty)

        // The broken index kept aside is counted as the cache's own, and goes with a clear.
        let live = try cache.statistics().indexBytes
        #expect(live >= 8192, "its 8192 bytes are in the index's size: \(live)")
        _ = try cache.clear()
        #expect(!FileManager.default.fileExists(atPath: index.path + ".corrupt"))
        #expect(try cache.statistics().indexBytes < live)
    }

    @Test func truncatedIndexIsRebuilt() async throws {
        let bed = try CacheBed()
        defer { bed.remove() }
        _ = try await populate(bed)
        let index = bed.folder.appendingPathComponent("index.sqlite")
        let bytes = try Data(contentsOf: index)
        try bytes.prefix(bytes.count / 3).write(to: index)

        let cache = bed.cache()
        defer { cache.close() }
        let provider = FakeProvider { _, _ in .page(FakeProvider.photos("p", count: 3)) }
        // Whatever SQLite makes of the half file, the listing works.
        _ = try await cache.listing(ListQuery(page: 1, perPage: 3), from: provider, mode: .normal)
        _ = try await cache.listing(ListQuery(page: 1, perPage: 3), from: provider, mode: .normal)
        cache.finish(command: "test")
        #expect(bed.warnings.all.count <= 1)
        cache.close()
        let again = bed.cache()
        defer { again.close() }
        #expect(try again.integrityCheck() == "ok")
        #expect(try again.storedListing(ListingKey(provider: "fake", query: ListQuery(page: 1, perPage: 3))) != nil)
    }

    @Test func deletedIndexDropsTheImagesItTracked() async throws {
        let bed = try CacheBed()
        defer { bed.remove() }
        let urls = try await populate(bed)
        for suffix in ["", "-wal", "-shm"] {
            try? FileManager.default.removeItem(at: bed.folder.appendingPathComponent("index.sqlite" + suffix))
        }
        let cache = bed.cache()
        defer { cache.close() }
        #expect(cache.cachedImages(urls).isEmpty)
        #expect(bed.warnings.all.count == 1 && bed.warnings.all.first?.contains("missing") == true)
        #expect(!FileManager.default.fileExists(atPath: cache.store.imagesFolder.path))
        // A second process finds the new index and warns no more.
        let other = bed.cache()
        defer { other.close() }
        _ = other.cachedImages(urls)
        #expect(bed.warnings.all.count == 1)
    }

    /// The cache pointed at a folder of the user's own that has an `images` folder: it is not
    /// taken for images an index lost, and nothing in it is moved or deleted.
    @Test func anImagesFolderPhotosDidNotMakeIsLeftAlone() async throws {
        let bed = try CacheBed()
        defer { bed.remove() }
        let holiday = bed.folder.appendingPathComponent("images/2019/holiday.jpg")
        try FileManager.default.createDirectory(at: holiday.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data("mine".utf8).write(to: holiday)
        let cache = bed.cache()
        defer { cache.close() }
        #expect(cache.cachedImages(["https://img.test/1.jpg"]).isEmpty)
        #expect(bed.warnings.all.count == 1, "\(bed.warnings.all)")
        #expect(bed.warnings.all.first?.contains("has an images folder photos did not make (it holds 2019/holiday.jpg)") == true, "\(bed.warnings.all)")
        #expect(throws: (any Error).self) { try cache.clear() }
        #expect(FileManager.default.fileExists(atPath: holiday.path), "the user's file is where it was")
        #expect(!FileManager.default.fileExists(atPath: bed.folder.appendingPathComponent("index.sqlite").path), "and no index was made beside it")
        // What photos itself leaves there (content-hashed names, a temp file) is its own.
        #expect(CacheIndex.foreignFile(inImages: holiday.deletingLastPathComponent().deletingLastPathComponent().path, fs: LiveFileSystem()) == "2019/holiday.jpg")
        let own = bed.folder.appendingPathComponent("own")
        try FileManager.default.createDirectory(at: own.appendingPathComponent("ab"), withIntermediateDirectories: true)
        for name in [String(repeating: "a", count: 64) + ".jpg", "ab/" + String(repeating: "b", count: 64), ".x.jpg.1.photos-partial"] {
            try Data([1]).write(to: own.appendingPathComponent(name))
        }
        #expect(CacheIndex.foreignFile(inImages: own.path, fs: LiveFileSystem()) == nil)
    }

    /// A file (or a FIFO, or a link) where photos keeps its images folder, in a folder with no
    /// index: it was taken for images an index had lost and moved to the trash, deleted at the
    /// end of the run. It is the user's: left where it is, and the cache not used.
    @Test func aFileWherePhotosKeepsItsImagesFolderIsLeftAlone() async throws {
        for kind in ["file", "fifo", "link"] {
            let bed = try CacheBed()
            defer { bed.remove() }
            let images = bed.folder.appendingPathComponent("images")
            try FileManager.default.createDirectory(at: bed.folder, withIntermediateDirectories: true)
            switch kind {
            case "file": try Data("mine".utf8).write(to: images)
            case "fifo": #expect(mkfifo(images.path, 0o600) == 0)
            default: try FileManager.default.createSymbolicLink(atPath: images.path, withDestinationPath: "/tmp")
            }
            let cache = bed.cache()
            #expect(cache.cachedImages(["https://img.test/1.jpg"]).isEmpty)
            _ = cache.finish(command: "list")
            cache.close()
            #expect(bed.warnings.all.count == 1, "\(kind): \(bed.warnings.all)")
            #expect(bed.warnings.all.first?.contains("has images that is not a folder") == true, "\(kind): \(bed.warnings.all)")
            var info = stat()
            #expect(lstat(images.path, &info) == 0, "\(kind): still there")
            if kind == "file" { #expect((try? String(contentsOf: images, encoding: .utf8)) == "mine") }
            let left = try FileManager.default.contentsOfDirectory(atPath: bed.folder.path)
            #expect(!left.contains { $0.hasPrefix("trash-") } && !left.contains("index.sqlite"), "\(kind): \(left)")
        }
    }

    /// A clear of the whole cache removes photos' images and leaves what someone else put in
    /// its images folder (a file, a hidden file, a folder, a link) where it is.
    @Test func aClearLeavesFilesPhotosDidNotPutInItsImagesFolder() async throws {
        let bed = try CacheBed()
        defer { bed.remove() }
        _ = try await populate(bed)
        let images = bed.folder.appendingPathComponent("images")
        let own = try FileManager.default.contentsOfDirectory(atPath: images.path)
        #expect(own.count == 3)
        let theirs = ["notmine.jpg", ".hidden", "subdir/f"]
        try FileManager.default.createDirectory(at: images.appendingPathComponent("subdir"), withIntermediateDirectories: true)
        for name in theirs { try Data("keep".utf8).write(to: images.appendingPathComponent(name)) }
        try FileManager.default.createSymbolicLink(atPath: images.appendingPathComponent("link.jpg").path, withDestinationPath: "/nonexistent")
        let cache = bed.cache()
        defer { cache.close() }
        let cleared = try cache.clear()
        #expect(cleared.images == 3)
        let left = Set((FileManager.default.enumerator(atPath: images.path)?.allObjects as? [String]) ?? [])
        #expect(left == ["notmine.jpg", ".hidden", "subdir", "subdir/f", "link.jpg"], "\(left)")
    }

    @Test func anIndexThatCannotBeOpenedNowIsLeftAloneWithItsImages() async throws {
        let bed = try CacheBed()
        defer { bed.remove() }
        let urls = try await populate(bed)
        let index = bed.folder.appendingPathComponent("index.sqlite")
        let aside = bed.folder.appendingPathComponent("index.sqlite.kept")
        // Something in the way that is not a damaged database: SQLite cannot open it (as with a
        // root-owned file, a full disk or too many open files).
        try FileManager.default.moveItem(at: index, to: aside)
        try FileManager.default.createDirectory(at: index, withIntermediateDirectories: false)

        let cache = bed.cache()
        let provider = FakeProvider { _, _ in .page(FakeProvider.photos("p", count: 3)) }
        let page = try await cache.listing(ListQuery(page: 1, perPage: 3), from: provider, mode: .normal)
        cache.close()
        #expect(page.origin == .network, "the listing still works, without the cache")
        #expect(bed.warnings.all.count == 1)
        #expect(bed.warnings.all.first?.contains("continuing without the cache") == true)
        #expect(!bed.warnings.all.contains { $0.contains("rebuilt") }, "nothing was rebuilt")
        let trash = try FileManager.default.contentsOfDirectory(atPath: bed.folder.path).filter { $0.hasPrefix("trash-") }
        #expect(trash.isEmpty, "the images were not binned")

        // Once the obstacle is gone, the same cache has everything.
        try FileManager.default.removeItem(at: index)
        try FileManager.default.moveItem(at: aside, to: index)
        let again = bed.cache()
        defer { again.close() }
        #expect(again.cachedImages(urls).count == urls.count)
    }

    @Test func aFreshCacheNeedsNoRebuild() async throws {
        let bed = try CacheBed()
        defer { bed.remove() }
        _ = try await populate(bed)
        #expect(bed.warnings.all.isEmpty)
    }
}
