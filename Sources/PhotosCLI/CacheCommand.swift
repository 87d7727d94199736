import ArgumentParser
import Foundation
import PhotosCache
import PhotosCore
import PhotosTerminal

extension PhotosCommand {
    /// `photos cache`: look at and manage the disk cache.
    struct Cache: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "cache",
            abstract: "Show, clear, prune or locate the disk cache.",
            discussion: """
                The cache (PHOTOS_CACHE_DIR, default ~/.cache/photos) holds listings and images, \
                indexed in SQLite. Settings under [cache] in the config file: max_size_mb \
                (default 500), listing_ttl_seconds (600), recent_searches (10); the environment \
                variables PHOTOS_CACHE_MAX_SIZE_MB, PHOTOS_CACHE_LISTING_TTL_SECONDS and \
                PHOTOS_CACHE_RECENT_SEARCHES override them.

                Examples:
                  photos cache stats
                  photos cache stats --format json
                  photos cache clear --provider flickr
                  photos cache prune
                  du -sh "$(photos cache path)"
                """,
            subcommands: [Stats.self, Clear.self, Prune.self, Path.self]
        )

        enum StatsFormat: String, ExpressibleByArgument, CaseIterable {
            case table, json
        }

        struct Stats: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "Entries, bytes, hit rate of the last runs and the oldest entry.")

            @Option(help: ArgumentHelp("Output format: table or json.", valueName: "format"))
            var format: StatsFormat = .table

            func run() async throws {
                let format = format
                try await CommandRuntime.run {
                    let environment = try AppEnvironment.load()
                    let cache = try environment.makeCache()
                    defer { cache.close() }
                    let stats = try CacheCommandError.wrap { try cache.statistics() }
                    let now = Date()
                    switch format {
                    case .json:
                        Output.write(try JSONOutput.encode(CacheStatsJSON(stats, now: now), pretty: true) + "\n")
                    case .table:
                        Output.write(Self.render(stats, now: now, width: environment.terminalWidth))
                    }
                }
            }

            static func render(_ stats: CacheStatistics, now: Date, width: Int) -> String {
                func percent(_ rate: Double?) -> String { rate.map { String(format: "%.0f%%", $0 * 100) } ?? "-" }
                var rows: [(String, String)] = [
                    ("Path", stats.path),
                    ("Listings", "\(stats.listings) pages, \(stats.photos) photos"),
                    ("Images", "\(stats.images) files, \(ByteText.format(stats.imageBytes))"),
                    ("Index", ByteText.format(stats.indexBytes)),
                    ("Total", "\(ByteText.format(stats.totalBytes)) of \(ByteText.format(stats.maxBytes))"),
                    ("Oldest entry", stats.oldestEntry.map { "\($0.formatted(.iso8601)) (\(AgeText.format(now.timeIntervalSince($0))) ago)" } ?? "-"),
                    ("Listing hits", "\(percent(stats.listingHitRate)) of the last \(stats.runs) runs (\(stats.listingHits) hits, \(stats.listingMisses) fetched)"),
                    ("Image hits", "\(percent(stats.imageHitRate)) (\(stats.imageHits) hits, \(stats.imageMisses) fetched)"),
                ]
                for provider in stats.providers {
                    rows.append((provider.name, "\(provider.listings) pages, \(provider.images) images, \(ByteText.format(provider.imageBytes))"))
                }
                let labelWidth = rows.map { $0.0.count }.max() ?? 0
                return rows.map { label, value in
                    TerminalText.pad(label, width: labelWidth) + "  " + TerminalText.fit(value, width: max(20, width - labelWidth - 2))
                }.joined(separator: "\n") + "\n"
            }
        }

        struct Clear: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "Remove everything cached, or only one provider's listings and images.")

            @Option(help: ArgumentHelp("Only this provider. Example: --provider flickr", valueName: "name"))
            var provider: String?

            func run() async throws {
                let provider = provider?.lowercased()
                try await CommandRuntime.run {
                    let environment = try AppEnvironment.load()
                    if let provider, !environment.registry.names.contains(provider) {
                        throw PhotosError.usage("unknown provider '\(provider)'; choose from \(environment.registry.names.joined(separator: ", "))")
                    }
                    let cache = try environment.makeCache()
                    defer { cache.close() }
                    let removed = try CacheCommandError.wrap { try cache.clear(provider: provider) }
                    Diagnostics.note("Removed \(removed.images) images (\(ByteText.format(removed.bytes)))"
                        + (provider.map { " and the listings of \($0)" } ?? " and every listing") + ".")
                }
            }
        }

        struct Prune: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "Evict now: down to 90% of the size cap, and remove orphaned temp files.")

            func run() async throws {
                try await CommandRuntime.run {
                    let environment = try AppEnvironment.load()
                    let cache = try environment.makeCache()
                    defer { cache.close() }
                    let report = try CacheCommandError.wrap { try cache.evict(wait: true, sweep: true) }
                    Diagnostics.note(
                        "Evicted \(report.evictedImages) images (\(ByteText.format(report.evictedBytes))), removed \(report.removedOrphans) "
                            + "orphaned files; the cache holds \(ByteText.format(report.bytesAfter)) of \(ByteText.format(cache.configuration.maxSizeBytes)).")
                }
            }
        }

        struct Path: AsyncParsableCommand {
            static let configuration = CommandConfiguration(abstract: "Print the cache folder.")

            func run() async throws {
                try await CommandRuntime.run {
                    let environment = try AppEnvironment.load()
                    Output.write(environment.cacheRoot.path + "\n")
                }
            }
        }
    }
}

/// Cache failures that reach a `photos cache` command: the cache is the unavailable service (exit 69).
enum CacheCommandError {
    static func wrap<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch {
            // The reason was given once already, as a warning when the index could not be opened.
            if PhotoCache.isUnavailable(error) {
                throw PhotosError.unavailable(provider: "the cache", detail: "see the warning above")
            }
            throw PhotosError.unavailable(provider: "the cache", detail: PhotoCache.describe(error))
        }
    }
}

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
        case path, listings, photos, images, runs, providers
        case imageBytes = "image_bytes", indexBytes = "index_bytes", totalBytes = "total_bytes", maxBytes = "max_bytes"
        case oldestEntry = "oldest_entry", oldestEntryAge = "oldest_entry_age_seconds"
        case listingHitRate = "listing_hit_rate", imageHitRate = "image_hit_rate"
        case listingHits = "listing_hits", listingMisses = "listing_misses", imageHits = "image_hits", imageMisses = "image_misses"
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Keys.self)
        try container.encode(stats.path, forKey: .path)
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

/// Byte counts for people: `12.3 MiB`.
enum ByteText {
    static func format(_ bytes: Int64) -> String {
        let units = ["B", "KiB", "MiB", "GiB", "TiB"]
        var value = Double(bytes)
        var unit = 0
        while value >= 1024, unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        return unit == 0 ? "\(bytes) B" : String(format: "%.1f %@", value, units[unit])
    }
}

/// Ages for people: `45 s`, `12 min`, `3 h 5 min`, `2 days`.
enum AgeText {
    static func format(_ seconds: TimeInterval) -> String {
        let total = max(0, Int(seconds))
        if total < 60 { return "\(total) s" }
        if total < 3600 { return "\(total / 60) min" }
        if total < 86_400 {
            let minutes = (total % 3600) / 60
            return minutes == 0 ? "\(total / 3600) h" : "\(total / 3600) h \(minutes) min"
        }
        let days = total / 86_400
        return days == 1 ? "1 day" : "\(days) days"
    }
}

/// A transport for offline commands: never touches the network (and never starts libcurl).
struct NoNetwork: HTTPFetching {
    func data(for request: HTTPRequest) async throws -> HTTPResponse {
        throw PhotosError.offlineNothingCached("this request (--offline)")
    }

    func download(_ request: HTTPRequest, to destination: URL) async throws -> HTTPResponse {
        throw PhotosError.offlineNothingCached("this image (--offline)")
    }
}

extension AppEnvironment {
    /// The cache for this command: PHOTOS_CACHE_DIR and `[cache]` settings (environment first);
    /// its warnings go to stderr.
    /// - Throws: `PhotosError.usage` for a bad `[cache]` setting.
    func makeCache(now: @escaping @Sendable () -> Date = { Date() }) throws -> PhotoCache {
        let settings: (maxSizeBytes: Int64, listingTTL: TimeInterval, recentSearches: Int)
        do {
            settings = try CacheConfiguration.settings(config: config.values, environment: environment)
        } catch let error as CacheConfiguration.SettingError {
            throw PhotosError.usage(error.description)
        }
        return PhotoCache(configuration: CacheConfiguration(
            location: .path(cacheRoot), maxSizeBytes: settings.maxSizeBytes, listingTTL: settings.listingTTL,
            recentSearches: settings.recentSearches, now: now, warn: { Diagnostics.warning($0) }))
    }
}
