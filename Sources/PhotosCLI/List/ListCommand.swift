import ArgumentParser
import Foundation
import PhotosCore

extension PhotosCommand {
    /// `photos list`: one page (or several) of photos from one provider or all of them.
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list",
            abstract: "List or search photos from one provider or all of them.",
            discussion: """
                Without --provider, photos asks every provider that is ready and serves real \
                photos (see photos providers), or the config's [defaults] provider. Without \
                --query a provider lists its default feed (Flickr: recent photos). Filters that \
                one provider understands are given as --filter key=value (photos providers lists \
                them). Thumbnails are fetched in parallel into the cache; JSON output names each file \
                in thumbnail_path.

                A page listed less than 10 minutes ago (config [cache] listing_ttl_seconds) comes \
                from the cache; older ones are revalidated or fetched again. --refresh always asks \
                the network, --offline never does. When the network fails, the cached page is \
                shown with a warning saying how old it is. JSON output says "cached" and \
                "age_seconds".

                Examples:
                  photos list --query lighthouse              # every ready provider
                  photos list --provider commons              # Commons' featured pictures
                  photos list --provider flickr --query dogs  # Flickr search
                  photos list --provider flickr -q dogs --filter license=9,10
                  photos list --provider flickr               # Flickr recent photos
                  photos list --provider placeholder --album 3 --per-page 50
                  photos list --provider all --query sunt --format json
                  photos list --provider flickr -q cats --limit 250 --format jsonl
                  photos list --provider flickr -q dogs --format grid --columns 4
                  photos list --provider placeholder --refresh
                  photos list --provider flickr --query dogs --offline
                """
        )

        @Option(name: .long, help: ArgumentHelp(
            "Provider name, several separated by commas, or 'all' (default: config [defaults] provider, else every ready provider of real photos). Example: --provider flickr,placeholder",
            valueName: "name"), completion: Completions.providers)
        var provider: String?

        @Option(name: [.customShort("q"), .long], help: ArgumentHelp("Search text. Example: --query \"golden retriever\"", valueName: "text"))
        var query: String?

        @Option(parsing: .unconditional, help: ArgumentHelp("Only this album (placeholder; the same as --filter album=N). Example: --album 3", valueName: "n"))
        var album: Int?

        @OptionGroup var filterOptions: FilterOptions

        @Option(parsing: .unconditional, help: ArgumentHelp("Page to start at, e.g. --page 2 for the second.", valueName: "n"))
        var page: Int = 1

        @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Photos per page (default 30; at most 500, less on some providers: photos providers --verbose). Example: --per-page 100", valueName: "n"))
        var perPage: Int?

        @Option(parsing: .unconditional, help: ArgumentHelp(
            "Stop after this many photos of each provider, walking pages as needed (without --limit or --all, one page); without --per-page, pages then hold up to this many (as many as the provider serves), and --page counts those. Example: --limit 250",
            valueName: "n"))
        var limit: Int?

        @Flag(help: "Walk every page to the last one (or to --limit).")
        var all = false

        @Flag(name: .long, help: "Do not fetch thumbnails (JSON still names those already cached).")
        var noThumbnails = false

        @Option(parsing: .unconditional, help: ArgumentHelp("Columns of the grid with --format grid, 1 to 12; fewer when the terminal is narrow. Example: --columns 4", valueName: "n"))
        var columns: Int = 3

        @OptionGroup var output: OutputOptions

        @OptionGroup var pictures: GraphicsOptions

        @OptionGroup var cacheOptions: CacheOptions

        func validate() throws {
            guard page >= 1 else { throw ValidationError("--page starts at 1, got \(page)") }
            if let perPage, !(1...500).contains(perPage) {
                throw ValidationError("--per-page must be between 1 and 500, got \(perPage)")
            }
            if let limit, limit < 1 { throw ValidationError("--limit must be at least 1, got \(limit)") }
            if !(1...12).contains(columns) { throw ValidationError("--columns must be between 1 and 12, got \(columns)") }
            if let album, album < 1 { throw ValidationError("--album must be at least 1, got \(album)") }
            try FilterOptions.checkRepeats(filterOptions.filters, album: album)
            try FilterOptions.checkText(query: query, filters: filterOptions.filters)
            if let query, query.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
                throw ValidationError("--query is empty; leave it out to list the provider's default feed")
            }
        }

        /// What the options ask for.
        var request: ListingRequest {
            ListingRequest(
                providers: provider, text: query, filters: filterOptions.pairs(album: album), page: page, perPage: perPage,
                limit: limit, walkAll: all, thumbnails: !noThumbnails, format: output.format,
                columns: columns, graphics: pictures.graphics, mode: cacheOptions.mode)
        }

        func run() async throws {
            try await Self.run(request)
        }

        /// Runs a listing (also for ``ListFastPath``, which reads common lines itself).
        static func run(_ request: ListingRequest) async throws {
            try await CommandRuntime.run(command: "list", network: request.mode != .offline, fetchesFirst: request.mode == .refresh) { context in
                try await Listing(context: context).run(request)
            }
        }
    }
}
