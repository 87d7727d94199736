import Foundation
import GRDB
import PhotosCore
import Testing

@testable import PhotosCache

/// Runs are counted in `runs.log`, and a command that only reads the cache writes nothing to the
/// index unless an access it made is older than a minute.
@Suite struct RunCountTests {
    /// The index file's bytes: a write (of an access time) changes some, once checkpointed.
    static func stamp(_ path: String) -> Data? {
        FileManager.default.contents(atPath: path)
    }

    @Test func aListingReadAgainWithinAMinuteIsCountedWithoutWritingTheIndex() async throws {
        let bed = try CacheBed()
        defer { bed.remove() }
        let provider = FakeProvider { _, _ in .page(FakeProvider.photos("p", count: 5)) }
        let query = ListQuery(page: 1, perPage: 5)
        var cache = bed.cache()
        _ = try await cache.listing(query, from: provider, mode: .normal)
        cache.finish(command: "list")
        cache.close()
        let index = bed.folder.appendingPathComponent("index.sqlite").path
        let before = try #require(Self.stamp(index))
        let logBefore = Self.stamp(index + "-wal")

        bed.clock.advance(30)
        cache = bed.cache()
        let page = try await cache.listing(query, from: provider, mode: .offline)
        #expect(page.origin == .cache)
        cache.finish(command: "list")
        cache.close()
        #expect(Self.stamp(index) == before, "nothing written to the index")
        // Nor to its write-ahead log, which keeps what the first run wrote until a checkpoint.
        #expect(Self.stamp(index + "-wal") == logBefore, "nothing written to the index's log")

        let stats = try bed.cache().statistics()
        #expect(stats.runs == 2 && stats.listingHits == 1 && stats.listingMisses == 1)
    }

    @Test func anAccessOlderThanAMinuteIsRecordedAgain() async throws {
        let bed = try CacheBed()
        defer { bed.remove() }
        let provider = FakeProvider { _, _ in .page(FakeProvider.photos("p", count: 3)) }
        let query = ListQuery(page: 1, perPage: 3)
        var cache = bed.cache()
        let urls = try await cache.listing(query, from: provider, mode: .normal).page.photos.compactMap(\.thumbnailURL)
        _ = await ImageFetcher(cache: cache, http: FakeImages()).fetchAll(urls.map { ($0, "fake") })
        cache.finish(command: "list")
        cache.close()
        func accesses() throws -> [Double] {
            let reader = bed.cache()
            defer { reader.close() }
            return try reader.index.read { db in
                try Double.fetchAll(db, sql: "SELECT last_access FROM listing UNION ALL SELECT last_access FROM image")
            }
        }
        let stored = try accesses()
        #expect(stored.count == 4 && stored.allSatisfy { $0 == 1_700_000_000 })

        for (advance, expected) in [(59.0, 1_700_000_000.0), (2.0, 1_700_000_061.0)] {
            bed.clock.advance(advance)
            cache = bed.cache()
            _ = try await cache.listing(query, from: provider, mode: .offline)
            #expect(cache.cachedImages(urls).count == 3)
            cache.finish(command: "list")
            cache.close()
            #expect(try accesses() == Array(repeating: expected, count: 4), "after \(advance) s more")
        }
    }

    @Test func aLongSessionRecordsWhatItReadAtItsStart() async throws {
        // browse reads a page, then the user looks at it for minutes: at the end, the recorded
        // access is old, and the read is written, with the time the session ended.
        let bed = try CacheBed()
        defer { bed.remove() }
        let provider = FakeProvider { _, _ in .page(FakeProvider.photos("p", count: 2)) }
        let query = ListQuery(page: 1, perPage: 2)
        var cache = bed.cache()
        let urls = try await cache.listing(query, from: provider, mode: .normal).page.photos.compactMap(\.thumbnailURL)
        _ = await ImageFetcher(cache: cache, http: FakeImages()).fetchAll(urls.map { ($0, "fake") })
        cache.finish(command: "list")
        cache.close()

        bed.clock.advance(10)
        cache = bed.cache()
        _ = try await cache.listing(query, from: provider, mode: .offline)
        #expect(cache.cachedImages(urls).count == 2)
        bed.clock.advance(600)
        #expect(cache.cachedImages(urls).count == 2, "from memory now")
        cache.finish(command: "browse")
        cache.close()
        let reader = bed.cache()
        defer { reader.close() }
        let accesses = try reader.index.read { db in
            try Double.fetchAll(db, sql: "SELECT last_access FROM listing UNION ALL SELECT last_access FROM image")
        }
        #expect(accesses == Array(repeating: 1_700_000_610, count: 3))
    }

    @Test func theLogKeepsTheLastHundredRunsAndSkipsLinesThatAreNotRuns() throws {
        let bed = try CacheBed()
        defer { bed.remove() }
        let cache = bed.cache()
        defer { cache.close() }
        let log = cache.runLog
        for number in 1...400 {
            log.append(RunLog.Run(at: Double(number), command: "list\tx\n", listingHits: number, listingMisses: 0, imageHits: 1, imageMisses: 2))
        }
        let runs = log.last(1000)
        #expect(runs.count == RunLog.kept)
        #expect(runs.first?.listingHits == 301 && runs.last?.listingHits == 400, "the last hundred, oldest first")
        #expect(runs.allSatisfy { $0.command == "listx" })
        let size = (try FileManager.default.attributesOfItem(atPath: log.path)[.size] as? Int) ?? 0
        #expect(size <= RunLog.trimBytes + 100, "cut back as it grows: \(size) bytes")

        // Whatever else the file holds is skipped.
        let hostile = "garbage\n1\tlist\t1\t2\t3\n" + "nan\tlist\t1\t1\t1\t1\n" + "5\tlist\t-1\t0\t0\t0\n" + "7\tshow\t1\t0\t0\t0\n"
        try Data(hostile.utf8).write(to: URL(fileURLWithPath: log.path))
        #expect(log.last(10) == [RunLog.Run(at: 7, command: "show", listingHits: 1, listingMisses: 0, imageHits: 0, imageMisses: 0)])
        #expect(try cache.statistics().runs == 1)

        // A FIFO in its place neither blocks a command nor counts; a link is not followed.
        try FileManager.default.removeItem(atPath: log.path)
        #expect(mkfifo(log.path, 0o600) == 0)
        log.append(RunLog.Run(at: 8, command: "list", listingHits: 1, listingMisses: 0, imageHits: 0, imageMisses: 0))
        #expect(log.last(10).isEmpty)
        try FileManager.default.removeItem(atPath: log.path)
        let elsewhere = bed.folder.appendingPathComponent("elsewhere").path
        try Data("9\tlist\t1\t0\t0\t0\n".utf8).write(to: URL(fileURLWithPath: elsewhere))
        try FileManager.default.createSymbolicLink(atPath: log.path, withDestinationPath: elsewhere)
        log.append(RunLog.Run(at: 10, command: "list", listingHits: 1, listingMisses: 0, imageHits: 0, imageMisses: 0))
        #expect(log.last(10).isEmpty)
        #expect(try String(contentsOfFile: elsewhere, encoding: .utf8) == "9\tlist\t1\t0\t0\t0\n")
    }
}
