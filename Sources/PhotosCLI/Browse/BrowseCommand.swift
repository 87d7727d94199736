import ArgumentParser
import Foundation
import PhotosCore
import PhotosImaging
import PhotosTerminal

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension PhotosCommand {
    /// `photos browse`: the grid, full screen, with infinite scroll.
    struct Browse: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "browse",
            abstract: "Browse photos full screen: a grid of thumbnails that loads more as you scroll.",
            usage: "photos browse [--provider <name>] [--query <text>] [<options>]",
            discussion: """
                Takes the whole terminal (its alternate screen, so your scrollback stays as it \
                was) and shows the photos as a grid of thumbnails, three columns or more when \
                the window is wide. The next page is fetched as the selection comes within a \
                screen of the end, and its thumbnails before they are needed; keys work while \
                anything loads. The last line says which provider and search, how many photos \
                of how many, and what is loading.

                Keys:
                  arrows, h j k l     move the selection
                  PgDn/space, PgUp/b  a screen down or up
                  Home/g, End/G       the first or last photo loaded
                  Enter               the photo as large as fits, with its details
                  Esc, Backspace      back to the grid, at the same place
                  o                   open the full image in the viewer (PHOTOS_OPENER)
                  s                   save the full image (config [save] dir, else here)
                  /                   a new search, typed in the status line (the first letter
                                      replaces the current one; Backspace edits it, Ctrl-U
                                      clears it)
                  r                   refresh: ask the network again, staying on the photo
                  q                   quit (Ctrl-C too, with exit status 130)
                  Ctrl-Z              stop, with the terminal given back; fg goes on

                With --offline only the cache is used; when the network fails, cached pages are \
                shown and the status line says so. Needs a terminal on stdin and stdout: for a \
                printed grid use photos list --format grid.

                Examples:
                  photos browse --provider flickr --query dogs
                  photos browse --provider commons --query lighthouse
                  photos browse --provider placeholder --graphics symbols
                  photos browse --query dogs --offline
                """
        )

        @Option(name: .long, help: ArgumentHelp(
            "Provider name, several separated by commas, or 'all' (default: config [defaults] provider, else every ready provider). Example: --provider flickr",
            valueName: "name"), completion: Completions.providers)
        var provider: String?

        @Option(name: [.customShort("q"), .long], help: ArgumentHelp("Search text (change it with / while browsing). Example: --query \"golden retriever\"", valueName: "text"))
        var query: String?

        @OptionGroup var pictures: GraphicsOptions

        @Flag(help: "Never use the network: browse what the cache holds.")
        var offline = false

        func validate() throws {
            if let query, query.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
                throw ValidationError("--query is empty; leave it out to browse the provider's default feed")
            }
            try FilterOptions.checkText(query: query, filters: [])
            guard isatty(STDIN_FILENO) == 1, isatty(STDOUT_FILENO) == 1 else {
                throw ValidationError(
                    "browse needs a terminal on stdin and stdout; to print a grid of thumbnails instead use: photos list --format grid")
            }
            guard TTY.isTerminal(STDOUT_FILENO) else {
                let term = ProcessInfo.processInfo.environment["TERM"] ?? ""
                let why = term.isEmpty ? "TERM is not set, so its type is unknown" : "TERM=\(term) says this one cannot"
                throw ValidationError(
                    "browse needs a terminal that can move its cursor, and \(why); "
                        + "set TERM to your terminal's type (xterm-256color is the usual one), or use: photos list --format grid")
            }
        }

        func run() async throws {
            let options = BrowseSession.Options(providers: provider, query: query, graphics: pictures.graphics, offline: offline)
            MainThreadExecutor.takeJobControlSignals()
            try await CommandRuntime.run(command: "browse", network: !offline, sideBySide: true) { context in
                try await BrowseSession(context: context, options: options).run()
                // Pictures a missing library kept from being drawn showed as failed; say why.
                for failure in ImagingLibrary.loadFailures { Diagnostics.warning(failure.description) }
            }
        }
    }
}
