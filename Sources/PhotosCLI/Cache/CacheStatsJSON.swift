import Foundation
import PhotosCache

/// `photos cache stats --format json`.
struct CacheStatsJSON: Encodable {
    var stats: CacheStatistics
    var now: Date

    init(_ stats: CacheStatistics, now: Date) {
        self.stats = stats
        self.now = now
    }

    struct ProviderJSON: Encodable {
        var provider: CacheStatistics.ProviderStatistics
        enum Keys: String, CodingKey { case name, listings, images, imageBytes = "image_bytes" }
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Keys.self)
            try container.encode(provider.name, forKey: .name)
            try container.encode(provider.listings, forKey: .listings)
            try container.encode(provider.images, forKey: .images)
            try container.encode(provider.imageBytes, forKey: .imageBytes)
        }
    }

    enum Keys: String, CodingKey {
        case path, exists, listings, photos, images, runs, providers
        case imageBytes = "image_bytes", indexBytes = "index_bytes", totalBytes = "total_bytes", maxBytes = "max_bytes"
        case oldestEntry = "oldest_entry", oldestEntryAge = "oldest_entry_age_seconds"
        case listingHitRate = "listing_hit_rate", imageHitRate = "image_hit_rate"
        case listingHits = "listing_hits", listingMisses = "listing_misses", imageHits = "image_hits", imageMisses = "image_misses"
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Keys.self)
        try container.encode(stats.path, forKey: .path)
        try container.encode(stats.folderExists, forKey: .exists)
        try container.encode(stats.listings, forKey: .listings)
        try container.encode(stats.photos, forKey: .photos)
        try container.encode(stats.images, forKey: .images)
        try container.encode(stats.imageBytes, forKey: .imageBytes)
        try container.encode(stats.indexBytes, forKey: .indexBytes)
        try container.encode(stats.totalBytes, forKey: .totalBytes)
        try container.encode(stats.maxBytes, forKey: .maxBytes)
        try container.encode(stats.oldestEntry.map(PhotoJSON.format), forKey: .oldestEntry)
        try container.encode(stats.oldestEntry.map { max(0, Int(now.timeIntervalSince($0))) }, forKey: .oldestEntryAge)
        try container.encode(stats.runs, forKey: .runs)
        try container.encode(stats.listingHitRate, forKey: .listingHitRate)
        try container.encode(stats.imageHitRate, forKey: .imageHitRate)
        try container.encode(stats.listingHits, forKey: .listingHits)
        try container.encode(stats.listingMisses, forKey: .listingMisses)
        try container.encode(stats.imageHits, forKey: .imageHits)
        try container.encode(stats.imageMisses, forKey: .imageMisses)
        try container.encode(stats.providers.map(ProviderJSON.init), forKey: .providers)
    }
}

/// `cache clear --format json`: what was removed.
struct CacheClearJSON: Encodable {
    /// The one provider cleared; nil (null) for the whole cache.
    var provider: String?
    var images: Int
    var imageBytes: Int64

    enum CodingKeys: String, CodingKey { case provider, images, imageBytes = "image_bytes" }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(provider, forKey: .provider)
        try container.encode(images, forKey: .images)
        try container.encode(imageBytes, forKey: .imageBytes)
    }
}

/// `cache prune --format json`: what was evicted and removed, and the size left.
struct CachePruneJSON: Encodable {
    var report: EvictionReport
    var maxBytes: Int64

    init(_ report: EvictionReport, maxBytes: Int64) {
        self.report = report
        self.maxBytes = maxBytes
    }

    enum CodingKeys: String, CodingKey {
        case evictedImages = "evicted_images", evictedBytes = "evicted_bytes", removedOrphans = "removed_orphans"
        case totalBytes = "total_bytes", maxBytes = "max_bytes"
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(report.evictedImages, forKey: .evictedImages)
        try container.encode(report.evictedBytes, forKey: .evictedBytes)
        try container.encode(report.removedOrphans, forKey: .removedOrphans)
        try container.encode(report.bytesAfter, forKey: .totalBytes)
        try container.encode(maxBytes, forKey: .maxBytes)
    }
}
