import Foundation
import Testing

@testable import PhotosCLI
@testable import PhotosCache

/// `photos cache stats` as a table: counts said in words that agree with them.
struct CacheStatsTableTests {
    @Test func oneOfAnythingIsSingular() {
        let stats = CacheStatistics(
            path: "/cache", listings: 1, photos: 1, images: 1, imageBytes: 2048, indexBytes: 4096, maxBytes: 1 << 20,
            oldestEntry: nil, runs: 1, listingHitRate: 1, imageHitRate: 1, listingHits: 1, listingMisses: 0, imageHits: 1,
            imageMisses: 0, providers: [])
        let table = PhotosCommand.Cache.Stats.render(stats, now: Date(), width: nil)
        #expect(table.contains("1 page, 1 photo") && table.contains("1 file,"), "\(table)")
        #expect(table.contains("100% in the last 1 run (1 hit, 0 fetched)"), "\(table)")
        #expect(table.contains("Image hits    100% (1 hit, 0 fetched)"), "\(table)")
        #expect(!table.contains("Being deleted"), "nothing left by a clear: no line for it")
    }

    /// What a clear or an index rebuild set aside and did not delete yet is said, with what
    /// deletes it (not blamed on an interrupted clear: a rebuild leaves it too).
    @Test func filesAnInterruptedClearLeftAreSaid() {
        var stats = CacheStatistics(
            path: "/cache", listings: 0, photos: 0, images: 0, imageBytes: 0, indexBytes: 4096, maxBytes: 1 << 20,
            oldestEntry: nil, runs: 1, listingHitRate: nil, imageHitRate: nil, listingHits: 0, listingMisses: 0, imageHits: 0,
            imageMisses: 0, providers: [])
        stats.deletingFiles = 3
        stats.deletingBytes = 3 << 20
        let table = PhotosCommand.Cache.Stats.render(stats, now: Date(), width: nil)
        #expect(table.contains("Being deleted  3 files, 3.0 MiB set aside by a clear or an index rebuild and not deleted yet: photos cache prune deletes them"), "\(table)")
    }
}
