import Foundation

/// What a ``PhotoCache`` is and how it behaves: where it lives, how large it may grow, how long
/// listings stay fresh, and the clock and file system it runs against (injected by tests).
public struct CacheConfiguration: Sendable {
    /// Where the cache lives.
    public enum Location: Sendable, Equatable {
        /// A folder that persists: `index.sqlite`, `images/`, `cache.lock`.
        case path(URL)
        /// A fresh folder under the system temporary directory, removed by ``PhotoCache/close()``.
        case temporary
    }

    public var location: Location
    /// Images plus the live part of the index are kept below this many bytes (default 500 MiB).
    public var maxSizeBytes: Int64
    /// A listing younger than this is served without asking the network (default 10 minutes).
    public var listingTTL: TimeInterval
    /// Images of this many most recent searches are evicted last (default 10).
    public var recentSearches: Int
    /// How long a statement waits for another process's write lock (default 5 s).
    public var busyTimeout: TimeInterval
    /// Orphaned `*.photos-partial` temp files older than this are removed (default one hour).
    public var orphanAge: TimeInterval
    /// The images a command downloads are written to the index when it ends, and at least this
    /// often while it runs (default 10 minutes): well within ``orphanAge``, so that the sweep of
    /// another command never takes a long session's images (`browse`) for orphans.
    public var recordInterval: TimeInterval = 600
    /// The current time; tests inject a clock to age entries.
    public var now: @Sendable () -> Date
    /// The file system the cache reads and removes files through.
    public var fileSystem: any CacheFileSystem
    /// Receives the cache's own warnings (a rebuilt index, a disabled cache); the CLI prints them.
    public var warn: @Sendable (String) -> Void
    /// Whether an index that cannot be used is said as a warning when the run meets it (the run
    /// goes on without the cache). A command about the cache itself says it as its error instead
    /// (``PhotoCache/unusableReason(_:)``).
    public var warnsWhenUnusable = true
    /// Whether the index is read through a memory mapping of its file rather than copied into
    /// SQLite's page cache one read at a time (default false). For runs that mostly read
    /// (offline ones): a cached listing of 500 made 9 reads instead of 193 and about 100 page
    /// faults fewer, 6% of its time. Not for runs that write hundreds of rows: every page of
    /// the file they touch stays counted in their memory, 0.6 MB more in a save of 1000.
    public var mapsIndex = false
    /// Whether the run only reads the index (offline listings, `show`, `browse`; not the cache
    /// commands, which delete and vacuum): SQLite's page cache is then 64 KB rather than 512.
    public var onlyReads = false
    /// Whether the first use of the index makes the cache folder when it is not there (default
    /// true). False for runs that only read (`--offline`, `cache stats`): a folder that is not
    /// there holds nothing to read, and a mistyped PHOTOS_CACHE_DIR gets no folder and no empty
    /// index; what such a run finds missing says there is no cache (``PhotoCache/noCacheNote``).
    public var createsFolder = true

    public static let defaultMaxSizeMB = 500
    public static let defaultListingTTLSeconds = 600
    public static let defaultRecentSearches = 10

    public init(
        location: Location,
        maxSizeBytes: Int64 = Int64(CacheConfiguration.defaultMaxSizeMB) * 1024 * 1024,
        listingTTL: TimeInterval = TimeInterval(CacheConfiguration.defaultListingTTLSeconds),
        recentSearches: Int = CacheConfiguration.defaultRecentSearches,
        busyTimeout: TimeInterval = 5,
        orphanAge: TimeInterval = 3600,
        now: @escaping @Sendable () -> Date = { Date() },
        fileSystem: any CacheFileSystem = LiveFileSystem(),
        warn: @escaping @Sendable (String) -> Void = { _ in }
    ) {
        self.location = location
        self.maxSizeBytes = maxSizeBytes
        self.listingTTL = listingTTL
        self.recentSearches = recentSearches
        self.busyTimeout = busyTimeout
        self.orphanAge = orphanAge
        self.now = now
        self.fileSystem = fileSystem
        self.warn = warn
    }

    /// One `[cache]` setting: its config key (under `[cache]`), environment variable, default and
    /// accepted range. `photos config` lists these; ``settings(config:environment:)`` reads them.
    public struct Setting: Sendable {
        public var key: String
        public var variable: String
        public var summary: String
        public var defaultValue: Int
        public var range: ClosedRange<Int>
        /// `cache.KEY`, as the config file spells it.
        public var configKey: String { "cache.\(key)" }
    }

    public static let maxSizeSetting = Setting(
        key: "max_size_mb", variable: "PHOTOS_CACHE_MAX_SIZE_MB", summary: "size cap of the cache in MiB",
        defaultValue: defaultMaxSizeMB, range: 1...10_000_000)
    public static let listingTTLSetting = Setting(
        key: "listing_ttl_seconds", variable: "PHOTOS_CACHE_LISTING_TTL_SECONDS",
        summary: "seconds a cached listing is shown without asking the network",
        defaultValue: defaultListingTTLSeconds, range: 0...100_000_000)
    public static let recentSearchesSetting = Setting(
        key: "recent_searches", variable: "PHOTOS_CACHE_RECENT_SEARCHES",
        summary: "searches whose images are evicted last", defaultValue: defaultRecentSearches, range: 0...10_000)
    /// Every `[cache]` setting with a number value.
    public static let numericSettings = [maxSizeSetting, listingTTLSetting, recentSearchesSetting]

    /// Reads `[cache]` settings from config values (`cache.max_size_mb`, `cache.listing_ttl_seconds`,
    /// `cache.recent_searches`) with environment overrides (`PHOTOS_CACHE_MAX_SIZE_MB`,
    /// `PHOTOS_CACHE_LISTING_TTL_SECONDS`, `PHOTOS_CACHE_RECENT_SEARCHES`).
    /// - Throws: ``CacheConfiguration/SettingError`` for a value that is not a whole number in range.
    public static func settings(
        config: [String: String], environment: [String: String]
    ) throws -> (maxSizeBytes: Int64, listingTTL: TimeInterval, recentSearches: Int) {
        func value(_ setting: Setting) throws -> Int {
            let (text, source): (String?, String) =
                if let text = environment[setting.variable], !text.isEmpty {
                    (text, "\(setting.variable) (config [cache] \(setting.key))")
                } else {
                    (config[setting.configKey], "[cache] \(setting.key)")
                }
            guard let text else { return setting.defaultValue }
            guard let number = Int(text.trimmingCharacters(in: .whitespaces)), setting.range.contains(number) else {
                throw SettingError(setting: source, value: text, range: setting.range)
            }
            return number
        }
        let megabytes = try value(maxSizeSetting)
        let ttl = try value(listingTTLSetting)
        let recent = try value(recentSearchesSetting)
        return (Int64(megabytes) * 1024 * 1024, TimeInterval(ttl), recent)
    }

    /// A cache setting that is not a number in its range.
    public struct SettingError: Error, CustomStringConvertible, Sendable {
        public var setting: String
        public var value: String
        public var range: ClosedRange<Int>
        public var description: String { message { "'\($0)'" } }

        /// The message with the value as `quote` writes it (the CLI cuts it and names the
        /// characters that would not show).
        public func message(quoting quote: (String) -> String) -> String {
            "\(setting) must be a whole number from \(range.lowerBound) to \(range.upperBound), got \(quote(value))"
        }
    }
}
