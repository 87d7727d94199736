import ArgumentParser
import Foundation
import PhotosCore

extension ImageSizeChoice: CaseInsensitiveArgument {}

extension PhotosCommand {
    /// `photos save`: full images of photos named by id, read from stdin, or of a listing.
    struct Save: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "save",
            abstract: "Download full images: of photos by id, from stdin, or of a whole search.",
            discussion: """
                Photos come from ids (provider:id), from - (stdin: ids one per line, the \
                output of `photos list --format jsonl` or json, or its table, read by its first \
                column; # starts a comment), or, without either, from a listing with the same options as \
                photos list (--provider, --query, --album, --filter, --limit, --all): pages are \
                walked as needed and downloads start while the next page is fetched.

                Files are downloaded in parallel over HTTP/2 and written to NAME.part, renamed to \
                NAME only once complete and checked (the byte count, and the bytes of a JPEG, PNG, \
                GIF or WebP image; anything else is refused and leaves no file). Run the same \
                command again to resume: complete files are skipped without a request, .part \
                files continue where they stopped. A file saved earlier for a smaller --size is \
                saved again at this one; one saved for a larger size is kept. An image \
                `photos show --open` already fetched is copied from the cache.

                --name is a path below --to made of text and fields; every field is made into \
                one safe file name (no /, no .., no control characters, at most 255 bytes). \
                Two photos that would get the same name get NAME-2.EXT, NAME-3.EXT... in the \
                order of the input. Fields:
                \(NameTemplate.Field.allCases.map { "  " + "{\($0.rawValue)}".padding(toLength: 11, withPad: " ", startingAt: 0) + $0.summary }.joined(separator: "\n"))

                --metadata writes NAME.json beside each file: the photo as show --format json \
                prints it, from the provider's detail (one more request per sidecar, two on \
                Flickr; a re-run asks only for the sidecars that are missing).

                Exit codes: 0 everything saved or already there, 75 some downloads failed (each \
                is named; run again to resume), 64 wrong usage, 65 the input named no photo or \
                what came was no image, 69 nothing could be fetched (or no such photo), 74 a \
                file could not be written (the disk is full: the downloads it cut short are \
                removed, to give the room back), 77 the API key was refused, 130 interrupted and \
                143 terminated (.part files are kept for the next run). Two saves that write the \
                same file (into one folder, or folders that overlap) take turns: the second finds \
                the file there.

                Examples:
                  photos save flickr:53624890009 placeholder:17
                  photos save --provider flickr --query dogs --limit 200 --to ~/Pictures/dogs
                  photos save --provider flickr -q dogs --all --name "{owner}/{title}.{ext}"
                  photos save --provider flickr -q dogs --limit 50 --size large --metadata
                  photos list --provider flickr -q cats --format jsonl | photos save -
                  photos save --provider placeholder --album 3 --metadata --format json
                """
        )

        static let walkingPageSize = 100

        @Argument(
            help: ArgumentHelp("Photos as provider:id, or - to read ids or `photos list --format jsonl` lines from stdin.", valueName: "id"),
            completion: Completions.photoIDs)
        var ids: [String] = []

        @Option(
            help: ArgumentHelp(
                "Folder to save into, e.g. --to ~/Pictures/dogs; created when missing. Default: PHOTOS_SAVE_DIR or the config's [save] dir, else the current folder.",
                valueName: "dir"), completion: .directory)
        var to: String?

        @Option(help: ArgumentHelp("Which size: original (the largest offered), large (about 1024 px), medium (640) or small (320).", valueName: "size"))
        var size: ImageSizeChoice = .original

        @Option(help: ArgumentHelp("Path of each file below --to, with fields (see above).", valueName: "template"))
        var name: String = NameTemplate.defaultTemplate

        @Flag(help: "Write NAME.json beside each file: the photo's details as show --format json prints them.")
        var metadata = false

        @Option(name: .long, help: ArgumentHelp(
            "Provider name, several separated by commas, or 'all' (as for photos list). Example: --provider flickr", valueName: "name"),
            completion: Completions.providers)
        var provider: String?

        @Option(name: [.customShort("q"), .long], help: ArgumentHelp("Search text. Example: --query \"golden retriever\"", valueName: "text"))
        var query: String?

        @Option(parsing: .unconditional, help: ArgumentHelp("Only this album (placeholder; the same as --filter album=N).", valueName: "n"))
        var album: Int?

        @OptionGroup var filterOptions: FilterOptions

        @Option(parsing: .unconditional, help: ArgumentHelp("Page of the listing to start at (1 is the first).", valueName: "n"))
        var page: Int = 1

        @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Photos per page of the listing (default: --limit's count, up to 100, with --limit; 100 with --all; else 30; at most 500, less on some providers: photos providers --verbose). --page counts pages of this size.", valueName: "n"))
        var perPage: Int?

        @Option(parsing: .unconditional, help: ArgumentHelp("Save at most this many photos per provider, walking pages as needed (without --limit or --all, the photos of one page). Example: --limit 200", valueName: "n"))
        var limit: Int?

        @Flag(help: "Walk every page of the listing to the last one (or to --limit).")
        var all = false

        @Flag(help: "Ask the provider for the listing again, though a copy younger than 10 minutes is cached (files already saved are still skipped).")
        var refresh = false

        @Option(name: .long, help: ArgumentHelp("Summary format: table (one line for people) or json ({\"saved\",\"skipped\",\"failed\",\"bytes\"}).", valueName: "format"))
        var format: SingleOutputFormat = .table

        func validate() throws {
            if let to, to.isEmpty { throw ValidationError("--to is empty; leave it out to save into the default folder ([save] dir, else the current folder)") }
            guard page >= 1 else { throw ValidationError("--page starts at 1, got \(page)") }
            if let perPage, !(1...500).contains(perPage) { throw ValidationError("--per-page must be between 1 and 500, got \(perPage)") }
            if let limit, limit < 1 { throw ValidationError("--limit must be at least 1, got \(limit)") }
            if let album, album < 1 { throw ValidationError("--album must be at least 1, got \(album)") }
            try FilterOptions.checkRepeats(filterOptions.filters, album: album)
            try FilterOptions.checkText(query: query, filters: filterOptions.filters)
            if let query, query.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
                throw ValidationError("--query is empty; leave it out to save the provider's default feed")
            }
            let listing = provider != nil || query != nil || album != nil || !filterOptions.filters.isEmpty || limit != nil || all
                || page != 1 || perPage != nil
            if refresh && !listing { throw ValidationError("--refresh asks for a listing again; give one (--provider, --query, ...)") }
            if !ids.isEmpty && listing {
                throw ValidationError("give photo ids (or -) or listing options (--provider, --query, ...), not both")
            }
            if ids.contains("-") && ids.count > 1 { throw ValidationError("- reads the ids from stdin; give no other ids with it") }
            // Nothing named at all would save every provider's default feed into the current
            // folder: not what `photos save` alone is typed for.
            if ids.isEmpty && !listing {
                throw ValidationError(
                    "name the photos to save: ids (photos save flickr:53624890009), - to read them from stdin, "
                        + "or a listing (--provider, --query, --album, --filter, --limit or --all)")
            }
            do {
                _ = try NameTemplate(name)
            } catch let error as PhotosError {
                throw ValidationError(error.description)
            }
        }

        func run() async throws {
            let template = try NameTemplate(name)
            if !template.namesFileType {
                Diagnostics.warning("--name \"\(name)\" gives the files no extension, so viewers may not know them for images; end it with .{ext}")
            }
            let source: SaveRequest.Source
            if ids == ["-"] {
                source = .standardInput
            } else if !ids.isEmpty {
                source = .ids(ids)
            } else {
                // Walking pages of at most 100: the first downloads start after a short page, and
                // memory does not grow with the count (list's default of one page of 30 otherwise).
                let pageSize = perPage ?? (limit != nil || all ? min(limit ?? Self.walkingPageSize, Self.walkingPageSize) : nil)
                var listing = ListingRequest(
                    providers: provider, text: query, filters: filterOptions.pairs(album: album), page: page, perPage: pageSize,
                    limit: limit, walkAll: all, thumbnails: false, format: .table)
                listing.perPageTyped = perPage != nil
                if refresh { listing.mode = .refresh }
                source = .listing(listing)
            }
            let request = SaveRequest(
                source: source, folder: to.map { URL(fileURLWithPath: HomePath.expand($0, environment: ProcessEnvironment.current())) }, size: size, template: template,
                metadata: metadata, format: format.output)
            try await CommandRuntime.run(command: "save", network: true, sideBySide: true) { context in
                try await Saving(context: context).run(request)
            }
        }
    }
}

/// What `photos save` was asked for, parsed.
struct SaveRequest: Sendable {
    enum Source: Sendable {
        case ids([String])
        case standardInput
        case listing(ListingRequest)
    }

    var source: Source
    /// `--to`; nil: `PHOTOS_SAVE_DIR` or the config's `[save] dir`, else the current folder.
    var folder: URL?
    var size: ImageSizeChoice
    var template: NameTemplate
    var metadata: Bool
    var format: OutputFormat
}
