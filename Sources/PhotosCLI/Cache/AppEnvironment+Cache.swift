import Foundation
import PhotosCache
import PhotosCore
import PhotosTerminal

extension AppEnvironment {
    /// The cache for this command: PHOTOS_CACHE_DIR and `[cache]` settings (environment first);
    /// its warnings go to stderr.
    /// - Throws: `PhotosError.usage` for a bad `[cache]` setting.
    /// - Parameter mostlyReads: the run only reads the index (offline): it is read through a
    ///   mapping of its file (``CacheConfiguration/mapsIndex``).
    /// - Parameter warnsWhenUnusable: whether an index that cannot be used is said as a warning
    ///   (``CacheConfiguration/warnsWhenUnusable``).
    /// - Parameter usesLimits: false for a command the size cap, the TTL and the recent searches
    ///   do not concern (`cache clear`): a bad one is warned of and the defaults taken.
    func makeCache(
        mostlyReads: Bool = false, warnsWhenUnusable: Bool = true, usesLimits: Bool = true, now: @escaping @Sendable () -> Date = { Date() }
    ) throws -> PhotoCache {
        let settings: (maxSizeBytes: Int64, listingTTL: TimeInterval, recentSearches: Int)
        do {
            settings = try CacheConfiguration.settings(config: config.values, environment: environment)
        } catch let error as CacheConfiguration.SettingError {
            let message = error.message { TerminalText.quoted($0, width: 40) }
            guard !usesLimits else { throw PhotosError.usage(message) }
            Diagnostics.warning(message + " (this command does not use it; the others refuse to run until it is mended)")
            settings = try CacheConfiguration.settings(config: [:], environment: [:])
        }
        // A relative folder is one cache per working folder: said, as few mean that.
        if let dir = self.settings["PHOTOS_CACHE_DIR"], !HomePath.expand(dir, environment: environment).hasPrefix("/") {
            Diagnostics.warning(
                "the cache folder (PHOTOS_CACHE_DIR or config [cache] dir) is a relative path, \(TerminalText.quoted(dir, width: 80)): the cache is "
                    + "\(TerminalText.sanitize(cacheRoot.path)), another one in each folder photos runs in; give an absolute path (or ~/...) for one cache")
        }
        var configuration = CacheConfiguration(
            location: .path(cacheRoot), maxSizeBytes: settings.maxSizeBytes, listingTTL: settings.listingTTL,
            recentSearches: settings.recentSearches, now: now, warn: { Diagnostics.warning($0) })
        configuration.mapsIndex = mostlyReads
        configuration.createsFolder = !mostlyReads
        configuration.warnsWhenUnusable = warnsWhenUnusable
        // A command about the cache deletes and vacuums: not one that only reads.
        configuration.onlyReads = mostlyReads && warnsWhenUnusable
        return PhotoCache(configuration: configuration)
    }
}
