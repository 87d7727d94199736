import ArgumentParser
import PhotosCache
import PhotosImaging

/// How results are printed.
enum OutputFormat: String, ExpressibleByArgument, CaseIterable {
    case table, json, jsonl, grid

    static var allValueStrings: [String] { allCases.map(\.rawValue) }
}

/// Options every data command shares.
struct OutputOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp(
        "Output format: table (for people), json (one object), jsonl (one photo per line) or grid (thumbnails drawn in the terminal; a table when not a terminal).",
        valueName: "format"))
    var format: OutputFormat = .table
}

/// How commands may use the cache and the network: `--refresh` and `--offline`.
struct CacheOptions: ParsableArguments {
    @Flag(help: "Always ask the network, whatever is cached (a failure still falls back to the cache, with a warning).")
    var refresh = false

    @Flag(help: "Never use the network: only what is cached (exit 69 when nothing is).")
    var offline = false

    func validate() throws {
        if refresh && offline { throw ValidationError("--refresh and --offline contradict each other; choose one") }
    }

    var mode: ListingMode {
        if offline { return .offline }
        return refresh ? .refresh : .normal
    }
}

extension GraphicsMode: ExpressibleByArgument {}

/// How pictures are drawn in the terminal.
struct GraphicsOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp(
        "Picture protocol: auto (from TERM, TERM_PROGRAM, ...), kitty, iterm, sixel, symbols (any colour terminal) or none. Example: --graphics symbols",
        valueName: "mode"))
    var graphics: GraphicsMode = .auto
}
