import Foundation
import GRDB
import PhotosCore
import Synchronization
import Testing

@testable import PhotosCache

/// Eviction: size cap, LRU by recorded access, recent searches last, the lock, orphans.
@Suite struct EvictionTests {
    /// Lists `search` (one page of `count` photos) and fetches its thumbnails, at the bed's clock.
    func browse(_ search: String, count: Int, cache: PhotoCache, http: FakeImages) async throws -> [String] {
        let provider = FakeProvider { _, _ in .page(FakeProvider.photos(search, count: count)) }
        let page = try await cache.listing(ListQuery(text: search, page: 1, perPage: count), from: provider, mode: .normal)
        let urls = page.page.photos.compactMap(\.thumbnailURL)
        _ = await ImageFetcher(cache: cache, http: http).fetchAll(urls.map { ($0, "fake") })
        return urls
    }

    @Test func leastRecentlyUsedGoesFirstDownToNinetyPercent() async throws {
        let bed = try CacheBed()
        defer { bed.remove() }
        let http = FakeImages(size: 10_000)
        // No protected searches: pure LRU.
        var cache = bed.cache(maxBytes: 1_000_000_000, recentSearches: 0)
        var urls: [String] = []
        for index in 0..<10 {
            urls += try await browse("s\(index)", count: 5, cache: cache, http: http)
            cache.finish(command: "test")
            bed.clock.advance(60)
        }
        cache.close()
        // Touch s0's images: now the most recently used.
        cache = bed.cache(maxBytes: 1_000_000_000, recentSearches: 0)
        #expect(cache.cachedImages(Array(urls[0..<5])).count == 5)
        cache.finish(command: "test")
        cache.close()

        let total = try bed.cache().totalBytes()
        let cap = total - 100_000  // 10 images over
        cache = bed.cache(maxBytes: cap, recentSearches: 0)
        defer { cache.close() }
        let report = try cache.evict(wait: false)
        #expect(report.ran && report.bytesAfter <= cap / 10 * 9 && report.bytesBefore == total)
        let left = try cache.indexedImages(urls)
        let evicted = urls.filter { left[$0] == nil }
        // s1, s2, ... were least recently used; s0 was touched last.
        #expect(Array(evicted.prefix(10)) == Array(urls[5..<15]))
        #expect(urls[0..<5].allSatisfy { left[$0] != nil })
        #expect(evicted.allSatisfy { !FileManager.default.fileExists(atPath: cache.store.path(for: $0).path) })
    }

    @Test func imagesOfTheMostRecentSearchesAreEvictedLast() async throws {
        let bed = try CacheBed()
        defer { bed.remove() }
        let http = FakeImages(size: 10_000)
        var cache = bed.cache(recentSearches: 2)
        var bySearch: [String: [String]] = [:]
        for index in 0..<6 {
            bySearch["s\(index)"] = try await browse("s\(index)", count: 5, cache: cache, http: http)
            cache.finish(command: "test")
            bed.clock.advance(60)
        }
        cache.close()
        // Touch the images of s0 and s1 long after: by LRU alone they would stay, but the two
        // most recent searches are s4 and s5.
        cache = bed.cache(recentSearches: 2)
        _ = cache.cachedImages((bySearch["s0"] ?? []) + (bySearch["s1"] ?? []))
        cache.finish(command: "test")
        cache.close()

        let total = try bed.cache().totalBytes()
        cache = bed.cache(maxBytes: total - 250_000, recentSearches: 2)  // must free ~28 of 30 images
        defer { cache.close() }
        let report = try cache.evict(wait: false)
        #expect(report.evictedImages >= 25)
        let left = try cache.indexedImages(bySearch.values.flatMap { $0 })
        let recent = (bySearch["s4"] ?? []) + (bySearch["s5"] ?? [])
        #expect(left.count <= 5 && left.keys.allSatisfy { recent.contains($0) }, "survivors are images of the recent searches")
        #expect((bySearch["s0"] ?? []).allSatisfy { left[$0] == nil })
    }

    /// Fills the bed's cache with the images of one search (10 KB each), as a run that ended.
    func fill(_ bed: CacheBed, search: String, count: Int) async throws {
        let filling = bed.cache()
        _ = try await browse(search, count: count, cache: filling, http: FakeImages(size: 10_000))
        filling.finish(command: "fill")
        filling.close()
    }

    @Test func evictionSkipsWhenAnotherProcessHoldsTheLock() async throws {
        let bed = try CacheBed()
        defer { bed.remove() }
        try await fill(bed, search: "s", count: 3)
        let cache = bed.cache(maxBytes: 1)
        defer { cache.close() }
        let held = try #require(try FileLock.acquire(bed.folder.appendingPathComponent("cache.lock").path, wait: false))
        #expect(try cache.evict(wait: false) == .skipped)
        held.unlock()
        let report = try cache.evict(wait: false)
        #expect(report.ran && report.evictedImages == 3)
    }

    /// A process that writes while another evicts skips its own eviction (it never waits for the
    /// lock); the one evicting looks again once it lets the lock go, so the cache ends under its
    /// cap whichever process finished last (eight processes sharing a 1 MiB cache once ended a
    /// quarter over it).
    @Test func imagesWrittenDuringAnEvictionAreEvictedWhenItEnds() async throws {
        let bed = try CacheBed()
        defer { bed.remove() }
        try await fill(bed, search: "old", count: 10)
        let cap = try bed.cache().totalBytes() - 30_000

        // Another process has downloaded ten images and finishes while this one evicts.
        let late = bed.cache(maxBytes: cap)
        defer { late.close() }
        _ = try await browse("late", count: 10, cache: late, http: FakeImages(size: 10_000))
        let fileSystem = DuringRemoval(finishing: late)
        let evicting = bed.cache(maxBytes: cap, fileSystem: fileSystem)
        defer { evicting.close() }
        let report = try evicting.evict(wait: false)
        #expect(fileSystem.finished.withLock { $0 } == .some(.skipped), "the late process found the lock held")
        let total = try bed.cache().totalBytes()
        #expect(report.ran && total <= cap, "\(total) bytes against a cap of \(cap)")
        #expect(report.bytesAfter == total)
        // The late images were in the index to be evicted (a first pass alone takes about five).
        #expect(report.evictedImages > 10, "\(report.evictedImages) evicted")
    }

    /// The live file system, finishing another cache's run at the first removal.
    final class DuringRemoval: CacheFileSystem {
        let live = LiveFileSystem()
        let other: PhotoCache
        /// What the other cache's finish did: nil until the first removal.
        let finished = Mutex<EvictionReport??>(nil)
        init(finishing other: PhotoCache) { self.other = other }
        func fileSize(atPath path: String) -> Int64? { live.fileSize(atPath: path) }
        func exists(atPath path: String) -> Bool { live.exists(atPath: path) }
        func createDirectory(atPath path: String) throws { try live.createDirectory(atPath: path) }
        func remove(atPath path: String) {
            live.remove(atPath: path)
            let first = finished.withLock { $0 == nil }
            if first { finished.withLock { $0 = .some(other.finish(command: "late")) } }
        }
        func files(under folder: String) -> [(path: String, size: Int64, modified: Date)] { live.files(under: folder) }
        func move(atPath source: String, toPath destination: String) throws { try live.move(atPath: source, toPath: destination) }
    }

    @Test func finishEvictsOnlyWhenTheCommandWrote() async throws {
        let bed = try CacheBed()
        defer { bed.remove() }
        let http = FakeImages(size: 10_000)
        var cache = bed.cache()
        let urls = try await browse("s", count: 4, cache: cache, http: http)
        cache.finish(command: "test")
        cache.close()
        cache = bed.cache(maxBytes: 1)
        _ = cache.cachedImages(urls)
        #expect(cache.finish(command: "read only") == nil)
        _ = try await browse("t", count: 1, cache: cache, http: http)
        let report = try #require(cache.finish(command: "wrote"))
        #expect(report.ran && report.evictedImages == 5)
        cache.close()
    }

    @Test func orphanedTempFilesOlderThanAnHourAreRemoved() async throws {
        let bed = try CacheBed()
        defer { bed.remove() }
        let http = FakeImages(size: 100)
        let cache = bed.cache()
        defer { cache.close() }
        let urls = try await browse("s", count: 2, cache: cache, http: http)
        cache.finish(command: "test")
        let folder = cache.store.imagesFolder.appendingPathComponent("ab")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let oldTemp = folder.appendingPathComponent(".abc.jpg.1234.photos-partial")
        let youngTemp = folder.appendingPathComponent(".abd.jpg.5678.photos-partial")
        let untracked = folder.appendingPathComponent("abe.jpg")
        for file in [oldTemp, youngTemp, untracked] { try Data([1, 2, 3]).write(to: file) }
        // The clock of the test is in 2023; files written now look young to it unless aged.
        let real = Date()
        bed.clock.advance(real.timeIntervalSince(bed.clock.now))
        for file in [oldTemp, untracked] {
            try FileManager.default.setAttributes([.modificationDate: real.addingTimeInterval(-7200)], ofItemAtPath: file.path)
        }
        let report = try cache.evict(wait: true, sweep: true)
        #expect(report.removedOrphans == 2)
        #expect(!FileManager.default.fileExists(atPath: oldTemp.path) && !FileManager.default.fileExists(atPath: untracked.path))
        #expect(FileManager.default.fileExists(atPath: youngTemp.path), "a young temp file may be a download in progress")
        #expect(cache.cachedImages(urls).count == 2, "indexed images are never orphans")
    }

    /// A command that runs for hours (browse) writes its images to the index as it goes:
    /// another command's sweep, which removes the files the index does not know once they are
    /// an hour old, never takes them for orphans (they were until the command ended, and a
    /// session of more than an hour lost its first thumbnails).
    @Test func aLongCommandsImagesAreNotSweptAsOrphans() async throws {
        let bed = try CacheBed()
        defer { bed.remove() }
        bed.clock.advance(Date().timeIntervalSince(bed.clock.now))  // the files' clock
        let long = bed.cache()
        defer { long.close() }
        let early = try await browse("early", count: 3, cache: long, http: FakeImages(size: 1_000))
        // Eleven minutes on, one more image: what the run has so far is written down (by a
        // task of its own, waited for here).
        bed.clock.advance(660)
        let later = try await browse("later", count: 1, cache: long, http: FakeImages(size: 1_000))
        try await waitForRows(early + later, in: bed)
        // Two hours on, for the files too: another command sweeps the folder.
        bed.clock.advance(7200)
        for file in try FileManager.default.contentsOfDirectory(atPath: long.store.imagesFolder.path) {
            let path = long.store.imagesFolder.appendingPathComponent(file).path
            try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(-7200)], ofItemAtPath: path)
        }
        let other = bed.cache()
        let report = try other.evict(wait: true, sweep: true)
        other.close()
        #expect(report.removedOrphans == 0, "\(report)")
        #expect(long.cachedImages(early).count == 3, "the long command's images are where they were")
        long.finish(command: "browse")
        #expect(try bed.cache().indexedImages(early).count == 3)
    }

    /// A session left idle (nothing downloaded after its first images) writes them down all
    /// the same, once the interval has passed.
    @Test func anIdleCommandsImagesAreWrittenDownAfterTheInterval() async throws {
        let bed = try CacheBed()
        defer { bed.remove() }
        var configuration = CacheConfiguration(location: .path(bed.folder), now: bed.clock.function)
        configuration.recordInterval = 0.2
        let idle = PhotoCache(configuration: configuration)
        defer { idle.close() }
        let urls = try await browse("idle", count: 2, cache: idle, http: FakeImages(size: 1_000))
        try await waitForRows(urls, in: bed)
        idle.finish(command: "browse")
        #expect(try bed.cache().indexedImages(urls).count == 2)
    }

    /// Waits (up to 20 s) until the index of `bed` has a row for each of `urls`.
    func waitForRows(_ urls: [String], in bed: CacheBed) async throws {
        let deadline = Date().addingTimeInterval(20)
        func rows() throws -> Int {
            let cache = bed.cache()
            defer { cache.close() }
            return try cache.indexedImages(urls).count
        }
        while try rows() < urls.count, Date() < deadline { try await Task.sleep(for: .milliseconds(20)) }
        #expect(try rows() == urls.count, "the images were written to the index while the command ran")
    }

    /// The sweep drops the rows whose files are gone, but not a row another process wrote anew
    /// meanwhile (it downloaded the same image again after the sweep listed the folder): it
    /// deleted rows by path alone, and the new file became an orphan.
    @Test func theSweepKeepsARowWrittenAnewWhileItRuns() async throws {
        let bed = try CacheBed()
        defer { bed.remove() }
        let first = bed.cache()
        let urls = try await browse("s", count: 1, cache: first, http: FakeImages(size: 1_000))
        first.finish(command: "first")
        first.close()
        let url = try #require(urls.first)
        let path = try #require(bed.cache().cachedImages([url])[url]).path
        try FileManager.default.removeItem(atPath: path)  // gone by hand

        // Another process downloads it again, and records it just after the sweep has listed
        // the folder (the listing missed the file).
        bed.clock.advance(10)
        let late = bed.cache()
        defer { late.close() }
        _ = await ImageFetcher(cache: late, http: FakeImages(size: 1_000)).fetchAll([(url, "fake")])
        #expect(FileManager.default.fileExists(atPath: path))
        let sweeping = bed.cache(fileSystem: ListingBefore(finishing: late, hiding: path))
        defer { sweeping.close() }
        _ = try sweeping.evict(wait: true, sweep: true)
        #expect(try bed.cache().indexedImages([url]).count == 1, "the row written anew is kept")
        #expect(FileManager.default.fileExists(atPath: path))
    }

    /// The live file system, whose folder listing misses `hidden` (listed just before it was
    /// renamed into place) and then has another cache finish its run.
    final class ListingBefore: CacheFileSystem {
        let live = LiveFileSystem()
        let other: PhotoCache
        let hidden: String
        init(finishing other: PhotoCache, hiding hidden: String) {
            self.other = other
            self.hidden = hidden
        }
        func fileSize(atPath path: String) -> Int64? { live.fileSize(atPath: path) }
        func exists(atPath path: String) -> Bool { live.exists(atPath: path) }
        func createDirectory(atPath path: String) throws { try live.createDirectory(atPath: path) }
        func remove(atPath path: String) { live.remove(atPath: path) }
        func files(under folder: String) -> [(path: String, size: Int64, modified: Date)] {
            let listed = live.files(under: folder).filter { $0.path != hidden }
            other.finish(command: "late")
            return listed
        }
        func move(atPath source: String, toPath destination: String) throws { try live.move(atPath: source, toPath: destination) }
    }

    /// A link where the images folder belongs is not followed by the sweep: the files it points
    /// at are not photos', however old and unknown to the index.
    @Test func theSweepNeverDeletesThroughALinkedImagesFolder() async throws {
        let bed = try CacheBed()
        defer { bed.remove() }
        let cache = bed.cache()
        defer { cache.close() }
        _ = try await browse("s", count: 2, cache: cache, http: FakeImages(size: 100))
        cache.finish(command: "test")
        let outside = FileManager.default.temporaryDirectory.appendingPathComponent("photos-outside-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: outside) }
        let precious = outside.appendingPathComponent("sub/precious.jpg")
        try FileManager.default.createDirectory(at: precious.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data("mine".utf8).write(to: precious)
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(-7200)], ofItemAtPath: precious.path)
        try FileManager.default.removeItem(at: cache.store.imagesFolder)
        try FileManager.default.createSymbolicLink(at: cache.store.imagesFolder, withDestinationURL: outside)
        bed.clock.advance(Date().timeIntervalSince(bed.clock.now))
        let report = try cache.evict(wait: true, sweep: true)
        #expect(report.removedOrphans == 0)
        #expect(FileManager.default.fileExists(atPath: precious.path), "a file outside the cache is never swept")
    }

    /// Rows whose files are gone (a clear killed between moving the images aside and deleting
    /// their rows) are dropped by the sweep, so the cache's size is its files'.
    @Test func theSweepDropsRowsWhoseFilesAreGone() async throws {
        let bed = try CacheBed()
        defer { bed.remove() }
        let cache = bed.cache()
        defer { cache.close() }
        let urls = try await browse("s", count: 3, cache: cache, http: FakeImages(size: 1000))
        cache.finish(command: "test")
        #expect(try cache.statistics().images == 3)
        let files = cache.cachedImages(urls)
        try FileManager.default.removeItem(at: try #require(files[urls[0]]))
        _ = try cache.evict(wait: true, sweep: true)
        let after = try cache.statistics()
        #expect(after.images == 2 && after.imageBytes == 2000, "the row of the deleted file is gone: \(after.images)")
        // The whole folder moved aside, as an interrupted clear leaves it (named as a clear
        // names it); a folder of the user's whose name only starts as one does is left alone.
        let trash = bed.folder.appendingPathComponent("trash-\(UUID().uuidString)")
        try FileManager.default.moveItem(at: cache.store.imagesFolder, to: trash)
        let users = bed.folder.appendingPathComponent("trash-can-photos")
        try FileManager.default.createDirectory(at: users, withIntermediateDirectories: true)
        try Data("mine".utf8).write(to: users.appendingPathComponent("keep.jpg"))
        _ = try cache.evict(wait: true, sweep: true)
        #expect(try cache.statistics().images == 0)
        #expect(!FileManager.default.fileExists(atPath: trash.path))
        #expect(FileManager.default.fileExists(atPath: users.appendingPathComponent("keep.jpg").path), "not photos' to delete")
    }

    /// The real file system, with Ctrl-C pressed as soon as the images are moved aside.
    struct InterruptedAfterMove: CacheFileSystem {
        let live = LiveFileSystem()
        func fileSize(atPath path: String) -> Int64? { live.fileSize(atPath: path) }
        func exists(atPath path: String) -> Bool { live.exists(atPath: path) }
        func createDirectory(atPath path: String) throws { try live.createDirectory(atPath: path) }
        func remove(atPath path: String) { live.remove(atPath: path) }
        func files(under folder: String) -> [(path: String, size: Int64, modified: Date)] { live.files(under: folder) }
        func move(atPath source: String, toPath destination: String) throws {
            try live.move(atPath: source, toPath: destination)
            if destination.contains("/trash-") { withUnsafeCurrentTask { $0?.cancel() } }
        }
    }

    /// `cache stats` gives the index as much room as its files take on the disk, journal
    /// included, and a small cap keeps that journal small: the stats said 1.7 MB where `du` said
    /// 5.8 after fifteen listings, and a cache capped at 1 MiB took 5 MiB.
    @Test func theIndexIsCountedAsItsFilesAndASmallCapKeepsItsJournalSmall() async throws {
        for (cap, journal) in [(Int64(500) << 20, Int64(4) << 20), (Int64(1) << 20, Int64(128) << 10)] {
            let bed = try CacheBed()
            defer { bed.remove() }
            let cache = bed.cache(maxBytes: cap)
            for page in 1...40 {
                let provider = FakeProvider { _, _ in .page(FakeProvider.photos("p\(page)-", count: 100)) }
                _ = try await cache.listing(ListQuery(text: "q", page: page, perPage: 100), from: provider, mode: .normal)
            }
            cache.finish(command: "test")
            let onDisk = ["", "-wal", "-shm"].reduce(Int64(0)) { total, suffix in
                total + ((try? FileManager.default.attributesOfItem(atPath: bed.folder.appendingPathComponent("index.sqlite" + suffix).path)[.size] as? Int64) ?? 0)
            }
            let stats = try cache.statistics()
            #expect(stats.indexBytes == onDisk, "cap \(cap): stats \(stats.indexBytes), files \(onDisk)")
            let wal = (try FileManager.default.attributesOfItem(atPath: bed.folder.appendingPathComponent("index.sqlite-wal").path)[.size] as? Int64) ?? 0
            // A checkpoint runs when a commit leaves the WAL past its bound: it may exceed it by
            // the last commit (a page of 100 photos, some 200 KB here).
            #expect(wal <= journal + 256 << 10, "cap \(cap): the journal holds \(wal) bytes")
            cache.close()
        }
    }

    /// The real file system where renames may be refused (a cache folder that takes no new
    /// name: its mode, or a folder of another user's) and only the files `deletes` picks can be
    /// deleted (the others another user's).
    struct Refusing: CacheFileSystem {
        var renames: Bool
        var deletes: @Sendable (String) -> Bool
        let live = LiveFileSystem()
        func fileSize(atPath path: String) -> Int64? { live.fileSize(atPath: path) }
        func exists(atPath path: String) -> Bool { live.exists(atPath: path) }
        func createDirectory(atPath path: String) throws { try live.createDirectory(atPath: path) }
        func remove(atPath path: String) {
            // A folder goes when nothing is left in it (rmdir): only files may be another user's.
            var isFolder: ObjCBool = false
            let folder = FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) && isFolder.boolValue
            if deletes(path) || (folder && live.files(under: path).isEmpty) { live.remove(atPath: path) }
        }
        func files(under folder: String) -> [(path: String, size: Int64, modified: Date)] { live.files(under: folder) }
        func move(atPath source: String, toPath destination: String) throws {
            guard renames else { throw POSIXError(.EACCES) }
            try live.move(atPath: source, toPath: destination)
        }
    }

    /// A clear deletes the images where they are when their folder cannot be renamed; the ones
    /// it cannot delete stay known to the index, with the listings, and the clear fails saying
    /// so (a clear that said "Removed 5 images" left them on the disk, unknown to every later
    /// command), whether all of the cache or one provider's.
    @Test func aClearForgetsOnlyTheImagesItCouldDelete() async throws {
        let bed = try CacheBed()
        defer { bed.remove() }
        let first = bed.cache()
        let urls = try await browse("c", count: 6, cache: first, http: FakeImages(size: 100))
        first.finish(command: "test")
        first.close()
        func cache(renames: Bool = false, deletes: @escaping @Sendable (String) -> Bool) -> PhotoCache {
            bed.cache(fileSystem: Refusing(renames: renames, deletes: deletes))
        }
        let images = bed.cache().store.imagesFolder.path
        let stuck = cache { _ in false }
        #expect(throws: CacheClearRefused.self) { try stuck.clear() }
        #expect(throws: CacheClearRefused.self) { try stuck.clear(provider: "fake") }
        stuck.close()
        #expect(LiveFileSystem().files(under: images).count == 6)
        #expect(try bed.cache().statistics().images == 6, "the index still knows the images it could not delete")

        // Half of them another user's: the other half go, and only they are forgotten.
        let names = LiveFileSystem().files(under: images).map(\.path).sorted()
        let deletable = Set(names.prefix(3))
        let half = cache { deletable.contains($0) }
        do {
            _ = try half.clear()
            Issue.record("a clear that left 3 images said it was done")
        } catch let refused as CacheClearRefused {
            #expect(refused.left == 3 && refused.deleted == 3)
            #expect(refused.description.hasPrefix("3 images in \(images) cannot be deleted (Permission denied); the 3 that could be are gone"))
        }
        half.close()
        let left = bed.cache()
        #expect(LiveFileSystem().files(under: images).map(\.path).sorted() == Array(names.suffix(3)))
        #expect(try left.statistics().images == 3 && left.cachedImages(urls).count == 3, "the rows of the files still there")
        #expect(try left.statistics().listings > 0, "nothing else was cleared")
        left.close()

        let inPlace = cache { _ in true }
        let removed = try inPlace.clear()
        inPlace.close()
        #expect(removed.images == 3 && removed.bytes == 300)
        #expect(LiveFileSystem().files(under: images).isEmpty, "the files are deleted where they are")
        let after = bed.cache()
        #expect(try after.statistics().images == 0 && after.cachedImages(urls).isEmpty)
        after.close()
    }

    /// Files another user left in a folder this one may rename are set aside with it but stay on
    /// the disk: the clear says where they are.
    @Test func filesAClearSetAsideButCouldNotDeleteAreSaid() async throws {
        let bed = try CacheBed()
        defer { bed.remove() }
        let first = bed.cache()
        _ = try await browse("c", count: 2, cache: first, http: FakeImages(size: 100))
        first.finish(command: "test")
        first.close()
        let cache = bed.cache(fileSystem: Refusing(renames: true, deletes: { _ in false }))
        let removed = try cache.clear()
        cache.close()
        #expect(removed.images == 2)
        let said = bed.warnings.all.first { $0.contains("could not be deleted") } ?? ""
        #expect(said.hasPrefix("2 files of the cache could not be deleted (Permission denied); they are in \(bed.folder.path)/trash-"), "\(bed.warnings.all)")
    }

    /// Clearing or pruning a cache folder that is not there makes none (they made the folder a
    /// mistyped PHOTOS_CACHE_DIR named, and an index in it).
    @Test func clearingOrPruningAMissingCacheFolderMakesNone() throws {
        let bed = try CacheBed()
        defer { bed.remove() }
        let missing = bed.folder.appendingPathComponent("not-there")
        let cache = bed.cache(at: missing)
        let removed = try cache.clear()
        let pruned = try cache.evict(wait: true, sweep: true)
        cache.close()
        #expect(removed.images == 0 && removed.bytes == 0)
        #expect(pruned.evictedImages == 0 && pruned.removedOrphans == 0 && pruned.bytesAfter == 0)
        #expect(!FileManager.default.fileExists(atPath: missing.path), "neither clear nor prune makes it")
    }

    /// Ctrl-C during a clear: before the images are moved aside, nothing is removed; after, the
    /// index is emptied all the same (no listing or image is served again), and the old files
    /// left in `trash-*` go at the next sweep.
    @Test func aClearInterruptedHalfwayLeavesAnEmptyCacheAndTheRestToTheSweep() async throws {
        let bed = try CacheBed()
        defer { bed.remove() }
        let cache = bed.cache()
        let urls = try await browse("c", count: 5, cache: cache, http: FakeImages(size: 100))
        cache.finish(command: "test")
        cache.close()

        let early = Task { () throws -> (images: Int, bytes: Int64) in
            withUnsafeCurrentTask { $0?.cancel() }
            return try bed.cache().clear()
        }
        await #expect(throws: CancellationError.self) { try await early.value }
        #expect(bed.cache().cachedImages(urls).count == 5, "interrupted before it began, nothing is removed")

        let interrupted = bed.cache(fileSystem: InterruptedAfterMove())
        let removed = try await Task { try interrupted.clear() }.value
        #expect(removed.images == 5)
        interrupted.close()
        let after = bed.cache()
        #expect(after.cachedImages(urls).isEmpty)
        #expect(try after.indexedImages(urls).isEmpty, "the index is emptied")
        let trash = try FileManager.default.contentsOfDirectory(atPath: bed.folder.path).filter { $0.hasPrefix("trash-") }
        #expect(trash.count == 1, "the old files are left aside: \(trash)")
        let left = try after.statistics()
        #expect(left.deletingFiles == 5 && left.deletingBytes == 500, "stats say what is left to delete: \(left.deletingFiles)")
        let swept = try after.evict(wait: true, sweep: true)
        #expect(swept.removedOrphans == 5, "the sweep says what it deleted: \(swept.removedOrphans)")
        #expect(try after.statistics().deletingFiles == 0)
        #expect(try FileManager.default.contentsOfDirectory(atPath: bed.folder.path).filter { $0.hasPrefix("trash-") }.isEmpty)
        after.close()
    }

    /// Images handed to a viewer (`show --open`) are links to cached images: kept a day for the
    /// viewer, then swept, and gone with `cache clear`, which would otherwise free nothing of a
    /// linked image.
    @Test func imagesHandedToAViewerGoAfterADayAndWithAClear() async throws {
        let bed = try CacheBed()
        defer { bed.remove() }
        let cache = bed.cache()
        defer { cache.close() }
        _ = try await browse("s", count: 1, cache: cache, http: FakeImages(size: 100))
        cache.finish(command: "test")
        let opened = bed.folder.appendingPathComponent(CacheLayout.openedFolder)
        try FileManager.default.createDirectory(at: opened, withIntermediateDirectories: true)
        let image = opened.appendingPathComponent("abc.jpg")
        try Data([0xFF, 0xD8, 0xFF]).write(to: image)
        // The clock of the test is in 2023: brought to now, the file is young.
        let real = Date()
        bed.clock.advance(real.timeIntervalSince(bed.clock.now))
        _ = try cache.evict(wait: true, sweep: true)
        #expect(FileManager.default.fileExists(atPath: image.path), "a viewer may still be opening it")
        bed.clock.advance(2 * 86_400)
        let report = try cache.evict(wait: true, sweep: true)
        #expect(!FileManager.default.fileExists(atPath: image.path))
        #expect(report.removedOrphans == 1)

        try Data([0xFF, 0xD8, 0xFF]).write(to: image)
        try cache.clear()
        #expect(!FileManager.default.fileExists(atPath: opened.path), "a clear empties the viewer's folder too")
    }

    /// A cache made by this run holds nothing to sweep: its first run only notes the time, and
    /// the sweep comes an hour later, as for any cache.
    @Test func aNewCacheIsFirstSweptAnHourLater() async throws {
        let bed = try CacheBed()
        defer { bed.remove() }
        let http = FakeImages(size: 100)
        let cache = bed.cache()
        defer { cache.close() }
        _ = try await browse("s", count: 2, cache: cache, http: http)
        let untracked = cache.store.imagesFolder.appendingPathComponent("abe.jpg")
        try Data([1, 2, 3]).write(to: untracked)
        let real = Date()
        bed.clock.advance(real.timeIntervalSince(bed.clock.now))
        try FileManager.default.setAttributes([.modificationDate: real.addingTimeInterval(-7200)], ofItemAtPath: untracked.path)

        let first = try #require(cache.finish(command: "first"))
        #expect(first.removedOrphans == 0)
        #expect(FileManager.default.fileExists(atPath: untracked.path))

        bed.clock.advance(3601)
        _ = try await browse("t", count: 1, cache: cache, http: http)
        let later = try #require(cache.finish(command: "an hour later"))
        #expect(later.removedOrphans == 1)
        #expect(!FileManager.default.fileExists(atPath: untracked.path))
    }
}
