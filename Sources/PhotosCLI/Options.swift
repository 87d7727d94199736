import ArgumentParser
import PhotosCache

/// How results are printed.
enum OutputFormat: String, ExpressibleByArgument, CaseIterable {
    case table, json, jsonl

    static var allValueStrings: [String] { allCases.map(\.rawValue) }
}

/// Options every data command shares.
struct OutputOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp(
        "Output format: table (for people), json (one object) or jsonl (one photo per line).",
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
