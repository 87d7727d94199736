import Foundation
import GRDB

/// What `photos cache stats` reports.
public struct CacheStatistics: Sendable, Equatable {
    public var path: String
    public var listings: Int
    public var photos: Int
    public var images: Int
    public var imageBytes: Int64
    public var indexBytes: Int64
    public var maxBytes: Int64
    /// When the oldest listing or image still cached was stored.
    public var oldestEntry: Date?
    /// How many recent runs the hit rates cover.
    public var runs: Int
    /// Listing pages served without downloading a body (fresh, 304, offline or stale), of all asked.
    public var listingHitRate: Double?
    /// Images served from memory or disk, of all asked.
    public var imageHitRate: Double?
    public var listingHits: Int
    public var listingMisses: Int
    public var imageHits: Int
    public var imageMisses: Int
    /// Per provider: listings and images.
    public var providers: [ProviderStatistics]
    /// Files an interrupted `cache clear` set aside (`trash-*`), not deleted yet, and their bytes.
    public var deletingFiles = 0
    public var deletingBytes: Int64 = 0
    /// Whether the cache's folder is there: none until a run that fetches makes it (a mistyped
    /// PHOTOS_CACHE_DIR names one that never will be).
    public var folderExists = true

    public struct ProviderStatistics: Sendable, Equatable {
        public var name: String
        public var listings: Int
        public var images: Int
        public var imageBytes: Int64
    }

    public var totalBytes: Int64 { imageBytes + indexBytes }
}

extension PhotoCache {
    /// How many runs the hit rates of ``statistics(lastRuns:)`` cover by default.
    public static let statisticsRuns = 20

    /// Counts and sizes from the index (the images folder is not listed), hit rates of the last
    /// runs, and what an interrupted clear left to delete (its `trash-*` folders are).
    /// - Throws: ``CacheUnavailable`` or a database error.
    public func statistics(lastRuns: Int = PhotoCache.statisticsRuns) throws -> CacheStatistics {
        var statistics = try indexStatistics(lastRuns: lastRuns)
        // What an interrupted clear left to delete: on disk, though no longer in the cache.
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: root.path)) ?? []
        for entry in entries where Self.isTrashFolderName(entry) {
            for file in configuration.fileSystem.files(under: root.appendingPathComponent(entry).path) {
                statistics.deletingFiles += 1
                statistics.deletingBytes += file.size
            }
        }
        return statistics
    }

    private func indexStatistics(lastRuns: Int) throws -> CacheStatistics {
        // A cache without an index is reported empty, and no index is made by looking at it. An
        // index that cannot be looked at (a folder the user may not read) is no empty cache: the
        // open below says why it cannot be used.
        var info = stat()
        if lstat(indexPath, &info) != 0, errno == ENOENT {
            var empty = Self.statistics(
                path: root.path, listings: 0, photos: 0, images: 0, imageBytes: 0, indexBytes: 0, maxBytes: configuration.maxSizeBytes,
                oldest: nil, runs: runLog.last(lastRuns), providers: [])
            empty.folderExists = !CacheIndex.isAbsent(root.path)
            return empty
        }
        return try index.read { db in
            let listings = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM listing") ?? 0
            let photos = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM photo") ?? 0
            let images = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM image") ?? 0
            let imageBytes = try Int64.fetchOne(db, sql: "SELECT COALESCE(SUM(size), 0) FROM image") ?? 0
            // Times that are not times (infinite, before 1970, in the future: a tampered index) are
            // left out, so that the oldest entry is a date photos can print.
            let oldest = try Double.fetchOne(
                db,
                sql: """
                    SELECT MIN(t) FROM (SELECT MIN(stored_at) AS t FROM listing WHERE stored_at BETWEEN 0 AND ?1
                        UNION ALL SELECT MIN(created_at) FROM image WHERE created_at BETWEEN 0 AND ?1)
                    """,
                arguments: [now.timeIntervalSince1970 + 86_400])
            let runs = runLog.last(lastRuns)
            var byProvider: [String: CacheStatistics.ProviderStatistics] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT provider, COUNT(*) AS n FROM listing GROUP BY provider") {
                guard let name: String = row.value("provider") else { continue }
                byProvider[name, default: .init(name: name, listings: 0, images: 0, imageBytes: 0)].listings = row.value("n") ?? 0
            }
            for row in try Row.fetchAll(
                db, sql: "SELECT provider, COUNT(*) AS n, SUM(size) AS bytes FROM image WHERE provider IS NOT NULL GROUP BY provider")
            {
                guard let name: String = row.value("provider") else { continue }
                byProvider[name, default: .init(name: name, listings: 0, images: 0, imageBytes: 0)].images = row.value("n") ?? 0
                byProvider[name, default: .init(name: name, listings: 0, images: 0, imageBytes: 0)].imageBytes = row.value("bytes") ?? 0
            }
            // The index as its files hold it on the disk (what `du` sees): recent writes are in
            // its journal (-wal, up to a few MiB until SQLite copies them into the index), and a
            // broken index moved aside at a rebuild is kept until a clear.
            let indexBytes = ["", "-wal", "-shm", ".corrupt"].reduce(Int64(0)) { total, suffix in
                var info = stat()
                return total + (lstat(index.path + suffix, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG ? Int64(info.st_size) : 0)
            }
            return Self.statistics(
                path: root.path, listings: listings, photos: photos, images: images, imageBytes: imageBytes, indexBytes: indexBytes,
                maxBytes: configuration.maxSizeBytes, oldest: oldest, runs: runs, providers: byProvider.values.sorted { $0.name < $1.name })
        }
    }

    /// The statistics of these counts, with the hit rates of `runs`.
    private static func statistics(
        path: String, listings: Int, photos: Int, images: Int, imageBytes: Int64, indexBytes: Int64, maxBytes: Int64, oldest: Double?,
        runs: [RunLog.Run], providers: [CacheStatistics.ProviderStatistics]
    ) -> CacheStatistics {
        let lh = runs.reduce(0) { $0 + $1.listingHits }
        let lm = runs.reduce(0) { $0 + $1.listingMisses }
        let ih = runs.reduce(0) { $0 + $1.imageHits }
        let im = runs.reduce(0) { $0 + $1.imageMisses }
        return CacheStatistics(
            path: path, listings: listings, photos: photos, images: images, imageBytes: imageBytes, indexBytes: indexBytes,
            maxBytes: maxBytes, oldestEntry: oldest.map(Date.init(timeIntervalSince1970:)), runs: runs.count,
            listingHitRate: lh + lm > 0 ? Double(lh) / Double(lh + lm) : nil,
            imageHitRate: ih + im > 0 ? Double(ih) / Double(ih + im) : nil,
            listingHits: lh, listingMisses: lm, imageHits: ih, imageMisses: im, providers: providers)
    }

    /// Runs `PRAGMA integrity_check`; "ok" when the index is sound.
    /// - Throws: ``CacheUnavailable`` or a database error.
    public func integrityCheck() throws -> String {
        try index.read { db in try String.fetchAll(db, sql: "PRAGMA integrity_check").joined(separator: "\n") }
    }
}
