import ArgumentParser
import Foundation
import PhotosCache
import PhotosCore
import PhotosImaging
import PhotosTerminal
import PhotosTransport

extension PhotosCommand {
    /// `photos show ID`: every detail of one photo; `--open` fetches the full image and opens it.
    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "show",
            abstract: "Show every detail of one photo, optionally opening the full image.",
            usage: "photos show <id> [--open] [--preview] [--format table|json] [<options>]",
            discussion: """
                ID is provider:id, as `photos list` prints it.

                --open downloads the largest allowed size into the cache and runs PHOTOS_OPENER \
                (default: xdg-open on Linux, open on macOS) with the file's path as its last \
                argument, never through a shell: PHOTOS_OPENER is a program, or a program and \
                its options split at spaces (PHOTOS_OPENER="feh --fullscreen").

                Details always come from the provider; with --offline (or when the provider \
                cannot be reached) photos shows what a cached listing knows about the photo.

                Exit codes: 0 shown (and opened), 64 wrong usage (an id that is no id, an \
                unknown provider), 65 what came was no image, 69 no such photo, the provider \
                unreachable (or --offline) with nothing cached about it, or no viewer that could \
                open the image (none found, or it failed), 74 the output could not \
                be written, 77 the API key was refused or is missing, 130 interrupted, 143 \
                terminated.

                Examples:
                  photos show flickr:53624890009
                  photos show placeholder:17 --format json
                  photos show flickr:53624890009 --open
                  PHOTOS_OPENER=feh photos show placeholder:1 --open
                  photos show flickr:53624890009 --preview --graphics symbols
                """
        )

        @Argument(
            help: ArgumentHelp("The photo, as provider:id. Example: flickr:53624890009", valueName: "id"),
            completion: Completions.photoIDs)
        var id: String

        @Flag(help: "Download the full-size image into the cache and open it with PHOTOS_OPENER.")
        var open = false

        @Flag(help: "Draw the photo in the terminal above its details (from the largest cached size, else a medium one).")
        var preview = false

        @Option(name: .long, help: ArgumentHelp("Output format: table (for people) or json (one object, with the detail fields).", valueName: "format"))
        var format: SingleOutputFormat = .table

        @OptionGroup var pictures: GraphicsOptions

        @OptionGroup var cacheOptions: CacheOptions

        func validate() throws {
            if preview && format == .json {
                throw ValidationError("--preview draws in the terminal; it does not go with --format json")
            }
        }

        func run() async throws {
            let options = Showing.Options(
                format: format.output, open: open, preview: preview, graphics: pictures.graphics, mode: cacheOptions.mode)
            try await CommandRuntime.run(command: "show", network: options.mode != .offline, fetchesFirst: options.mode == .refresh) { [id] context in
                try await Showing(context: context).run(id: id, options: options)
            }
        }
    }
}
