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
                The cache (PHOTOS_CACHE_DIR, default $XDG_CACHE_HOME/photos, else ~/.cache/photos) holds listings and images, \
                indexed in SQLite. Settings under [cache] in the config file: max_size_mb \
                (default 500), listing_ttl_seconds (600), recent_searches (10); the environment \
                variables PHOTOS_CACHE_MAX_SIZE_MB, PHOTOS_CACHE_LISTING_TTL_SECONDS and \
                PHOTOS_CACHE_RECENT_SEARCHES override them.

                Examples:
                  photos cache stats
                  photos cache stats --format json
                  photos cache clear --provider flickr
                  photos cache prune --format json
                  du -sh "$(photos cache path)"
                """,
            subcommands: [Stats.self, Clear.self, Prune.self, Path.self]
        )

        enum StatsFormat: String, CaseInsensitiveArgument, CaseIterable {
            case table, json
        }

        struct Stats: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "stats",
                abstract: "Entries, bytes, hit rate of the last runs and the oldest entry.",
                discussion: """
                    Examples:
                      photos cache stats
                      photos cache stats --format json | jq .total_bytes
                    """)

            @Option(help: ArgumentHelp("Output format: table or json.", valueName: "format"))
            var format: StatsFormat = .table

            func run() async throws {
                let format = format
                try await CommandRuntime.run(command: "cache stats", network: false, aboutTheCache: true) { context in
                    let stats = try CacheCommandError.wrap(root: context.cache.root.path) { try context.cache.statistics() }
                    let now = Date()
                    switch format {
                    case .json:
                        try Output.write(try JSONOutput.encode(CacheStatsJSON(stats, now: now), pretty: true) + "\n")
                    case .table:
                        try Output.write(Self.render(stats, now: now, width: context.environment.reportWidth))
                    }
                }
            }

            /// The statistics as rows of label and value, wrapped at `width` columns (nil: one line
            /// each); the path whole.
            static func render(_ stats: CacheStatistics, now: Date, width: Int?) -> String {
                func percent(_ rate: Double?) -> String { rate.map { String(format: "%.0f%%", $0 * 100) } ?? "-" }
                func counted(_ count: Int, _ noun: String) -> String { "\(count) \(noun)\(count == 1 ? "" : "s")" }
                var rows: [(String, String)] = [
                    ("Path", stats.path)
                ]
                if !stats.folderExists {
                    rows.append(("Folder", "not there yet: the first run that fetches makes it (PHOTOS_CACHE_DIR or config [cache] dir says where)"))
                }
                rows += [
                    ("Listings", "\(counted(stats.listings, "page")), \(counted(stats.photos, "photo"))"),
                    ("Images", "\(counted(stats.images, "file")), \(ByteText.format(stats.imageBytes))"),
                    ("Index", ByteText.format(stats.indexBytes)),
                    ("Total", "\(ByteText.format(stats.totalBytes)) of \(ByteText.format(stats.maxBytes))"),
                ]
                if stats.deletingFiles > 0 {
                    rows.append((
                        "Being deleted",
                        "\(counted(stats.deletingFiles, "file")), \(ByteText.format(stats.deletingBytes)) set aside by a clear or an index rebuild and not deleted yet: photos cache prune deletes them"))
                }
                rows += [
                    ("Oldest entry", stats.oldestEntry.map { "\($0.formatted(.iso8601)) (\(AgeText.format(now.timeIntervalSince($0))) ago)" } ?? "-"),
                    ("Listing hits", "\(percent(stats.listingHitRate)) in the last \(counted(stats.runs, "run")) (\(counted(stats.listingHits, "hit")), \(stats.listingMisses) fetched)"),
                    ("Image hits", "\(percent(stats.imageHitRate)) (\(counted(stats.imageHits, "hit")), \(stats.imageMisses) fetched)"),
                ]
                for provider in stats.providers {
                    rows.append((provider.name, "\(counted(provider.listings, "page")), \(counted(provider.images, "image")), \(ByteText.format(provider.imageBytes))"))
                }
                return TerminalText.labelled(rows, width: width, whole: ["Path"])
            }
        }

        struct Clear: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "clear",
                abstract: "Remove everything cached, or only one provider's listings and images.",
                discussion: """
                    Removes at once, without asking; what is removed is only ever the cache's own
                    (saved files elsewhere are untouched), and it comes back as photos is used.

                    Examples:
                      photos cache clear
                      photos cache clear --provider flickr
                      photos cache clear --provider commons,nasa --format json
                    """)

            @Option(
                help: ArgumentHelp(
                    "Only these providers' listings and images, comma-separated (all: every provider's, keeping the run log). "
                        + "Example: --provider flickr,nasa", valueName: "names"),
                completion: Completions.providers)
            var provider: String?

            @Option(help: ArgumentHelp(
                "What was removed, as a sentence on stderr (table) or as JSON on stdout: {\"provider\",\"images\",\"image_bytes\"}.",
                valueName: "format"))
            var format: StatsFormat = .table

            func run() async throws {
                let provider = provider?.lowercased()
                let format = format
                try await CommandRuntime.run(command: "cache clear", network: false, aboutTheCache: true, usesCacheLimits: false) { context in
                    let names = context.environment.registry.names
                    // As --provider takes them elsewhere: a comma list, or all.
                    let chosen = provider.map { text in
                        text == "all" ? names : text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
                    }
                    for name in chosen ?? [] where !names.contains(name) {
                        if name == "all" {
                            throw PhotosError.usage("'all' names every provider and goes alone: --provider all, or names such as --provider \(names.prefix(2).joined(separator: ","))")
                        }
                        throw PhotosError.usage(
                            ProviderSelection.unknownProviderMessage(name, known: names + ["all"]) + " (or leave out --provider to clear everything)")
                    }
                    if let chosen, chosen.isEmpty { throw PhotosError.usage("--provider names no provider; choose from \(names.joined(separator: ", "))") }
                    let removed = try CacheCommandError.wrap(root: context.cache.root.path) { () -> (images: Int, bytes: Int64) in
                        guard let chosen else { return try context.cache.clear() }
                        return try chosen.reduce((images: 0, bytes: Int64(0))) { total, name in
                            let one = try context.cache.clear(provider: name)
                            return (total.images + one.images, total.bytes + one.bytes)
                        }
                    }
                    let provider = chosen?.joined(separator: ",")
                    if format == .json {
                        try Output.write(try JSONOutput.encode(CacheClearJSON(provider: provider, images: removed.images, imageBytes: removed.bytes), pretty: true) + "\n")
                        return
                    }
                    if Task.isCancelled {
                        // Interrupted after the point of no return: the cache is empty, some old
                        // files are still on the disk, and the exit is 130 all the same.
                        Diagnostics.note("The cache is emptied (\(removed.images) \(removed.images == 1 ? "image" : "images"), \(ByteText.format(removed.bytes))); "
                            + "interrupted before all the old files were deleted: photos cache prune deletes the rest now (else the hourly sweep of a later command does).")
                        return
                    }
                    Diagnostics.note("Removed \(removed.images) \(removed.images == 1 ? "image" : "images") (\(ByteText.format(removed.bytes)))"
                        + (provider.map { " and the listings of \($0)" } ?? " and every listing") + ".")
                }
            }
        }

        struct Prune: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "prune",
                abstract: "Evict now: down to 90% of the size cap, and remove orphaned temp files.",
                discussion: """
                    Orphans are files in the cache's images folder that its index does not know:
                    the temp files of downloads a killed photos left, and files put there by hand.
                    Those over an hour old are removed; a younger one may be a download still
                    running.

                    Examples:
                      photos cache prune
                      PHOTOS_CACHE_MAX_SIZE_MB=100 photos cache prune   # down to 90 MiB
                    """)

            @Option(help: ArgumentHelp(
                "What was removed, as a sentence on stderr (table) or as JSON on stdout: {\"evicted_images\",\"evicted_bytes\",\"removed_orphans\",\"total_bytes\",\"max_bytes\"}.",
                valueName: "format"))
            var format: StatsFormat = .table

            func run() async throws {
                let format = format
                try await CommandRuntime.run(command: "cache prune", network: false, aboutTheCache: true) { context in
                    let cache = context.cache
                    var report = try CacheCommandError.wrap(root: cache.root.path) { try cache.evict(wait: true, sweep: true) }
                    // What the cache takes on the disk now, as cache stats says it (the index's
                    // journal included), rather than the part of it the cap bounds.
                    if let total = try? cache.statistics().totalBytes { report.bytesAfter = total }
                    if format == .json {
                        try Output.write(try JSONOutput.encode(CachePruneJSON(report, maxBytes: cache.configuration.maxSizeBytes), pretty: true) + "\n")
                        return
                    }
                    Diagnostics.note(
                        "Evicted \(report.evictedImages) images (\(ByteText.format(report.evictedBytes))), removed \(report.removedOrphans) "
                            + "orphaned files; the cache holds \(ByteText.format(report.bytesAfter)) of \(ByteText.format(cache.configuration.maxSizeBytes)).")
                }
            }
        }

        struct Path: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "path", abstract: "Print the cache folder.",
                discussion: """
                    Examples:
                      photos cache path
                      du -sh "$(photos cache path)"
                    """)

            func run() async throws {
                try await CommandRuntime.run { environment in
                    try Output.write(environment.cacheRoot.path + "\n")
                }
            }
        }
    }
}

/// Cache failures that reach a `photos cache` command: the cache is the unavailable service (exit 69).
enum CacheCommandError {
    static func wrap<T>(root: String, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch is CancellationError {
            throw CancellationError()  // Ctrl-C: said as an interruption (130)
        } catch {
            // Said here, once: a cache command does not warn that it goes on without the cache.
            if let reason = PhotoCache.unusableReason(error) {
                throw PhotosError.unavailable(provider: "the cache", detail: reason)
            }
            // A read-only cache (said when it was opened) cannot be changed: a write that fails (74).
            if PhotoCache.isReadOnly(error) {
                throw TransportError.fileSystem(path: root, detail: "the cache is on a read-only file system; nothing in it can be changed")
            }
            // A full disk is photos failing to write (74), with what the user can do.
            if PhotoCache.isDiskFull(error) {
                throw TransportError.fileSystem(
                    path: root, detail: "No space left on device; free some space, or empty the cache with photos cache clear")
            }
            // Images that could not be deleted: a write that failed (74), and the index untouched.
            if let refused = error as? CacheClearRefused {
                throw TransportError.fileSystem(path: root, detail: refused.description)
            }
            // A file where the folder belongs: said as the other commands say it.
            var info = stat()
            if stat(root, &info) == 0, (info.st_mode & S_IFMT) != S_IFDIR {
                throw PhotosError.unavailable(
                    provider: "the cache", detail: "the cache folder \(root) is a file, not a folder (PHOTOS_CACHE_DIR or config [cache] dir names a folder)")
            }
            throw PhotosError.unavailable(provider: "the cache", detail: PhotoCache.describe(error))
        }
    }
}
