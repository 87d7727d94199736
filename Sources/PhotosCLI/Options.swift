import ArgumentParser
import PhotosCache
import PhotosImaging
import PhotosTerminal

/// A value of a fixed set of lower-case names, taken whatever its case (`--format JSON`), as
/// provider names are.
public protocol CaseInsensitiveArgument: ExpressibleByArgument, RawRepresentable where RawValue == String {}

extension CaseInsensitiveArgument {
    public init?(argument: String) { self.init(rawValue: argument.lowercased()) }
}

/// How results are printed.
enum OutputFormat: String, CaseInsensitiveArgument, CaseIterable {
    case table, json, jsonl, grid

    static var allValueStrings: [String] { allCases.map(\.rawValue) }
}

/// The formats of a command that prints one thing (a photo's detail, a save's summary): its
/// help offers only these.
enum SingleOutputFormat: String, CaseInsensitiveArgument, CaseIterable {
    case table, json

    static var allValueStrings: [String] { allCases.map(\.rawValue) }

    var output: OutputFormat { self == .json ? .json : .table }
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

extension GraphicsMode: CaseInsensitiveArgument {}

/// How pictures are drawn in the terminal.
struct GraphicsOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp(
        "Picture protocol: auto (from TERM, TERM_PROGRAM, ...), kitty, iterm, sixel, symbols (any colour terminal) or none. Example: --graphics symbols",
        valueName: "mode"))
    var graphics: GraphicsMode = .auto
}

/// `--filter key=value`, repeatable: filters one provider understands (see `photos providers`).
struct FilterOptions: ParsableArguments {
    @Option(name: .customLong("filter"), parsing: .singleValue, help: ArgumentHelp(
        "A provider's filter as key=value; repeat for several. Which keys each provider knows: photos providers. Example: --filter license=cc0",
        valueName: "key=value"))
    var filters: [String] = []

    func validate() throws {
        for filter in filters {
            guard Self.split(filter) != nil else {
                throw ValidationError("--filter takes key=value, e.g. --filter license=cc0; got \(TerminalText.quoted(filter))")
            }
        }
    }

    /// The pairs in the order given, with `--album N` as `album=N` first.
    func pairs(album: Int? = nil) -> [(key: String, value: String)] {
        Self.pairs(filters, album: album)
    }

    /// A usage error when `--query` or a filter holds bytes that were not UTF-8 (the system
    /// gives them as U+FFFD): they would be searched for as replacement characters.
    /// The longest search or filter value accepted, in UTF-8 bytes.
    static let maxTextBytes = 1000

    static func checkText(query: String?, filters: [String]) throws {
        if let query, query.contains("\u{FFFD}") {
            throw ValidationError("--query is not valid UTF-8 text (is the terminal's encoding UTF-8?)")
        }
        // No provider searches for pages of text; a server answers such a request with an error
        // or not at all, after every retry.
        if let query, query.utf8.count > maxTextBytes {
            throw ValidationError("--query is \(query.utf8.count) bytes long; a search is at most \(maxTextBytes)")
        }
        if let filter = filters.first(where: { $0.utf8.count > maxTextBytes }) {
            throw ValidationError("--filter \(filter.prefix(40))... is \(filter.utf8.count) bytes long; a filter is at most \(maxTextBytes)")
        }
        if let filter = filters.first(where: { $0.contains("\u{FFFD}") }) {
            throw ValidationError("--filter \(filter.prefix { $0 != "=" })= is not valid UTF-8 text (is the terminal's encoding UTF-8?)")
        }
        // An escape sequence or another control character pasted into a search: sent as it
        // was, it matched nothing, while the message that said so showed it as nothing at all.
        if let query, let control = controlCharacter(in: query) {
            throw ValidationError("--query holds the control character \(control), which no search matches; give the words alone")
        }
        for filter in filters {
            let key = String(filter.prefix { $0 != "=" })
            if let control = controlCharacter(in: key) {
                throw ValidationError("--filter \(TerminalText.quoted(key, width: 40)) holds the control character \(control) in its name; type the name alone")
            }
            if let control = controlCharacter(in: String(filter.dropFirst(key.count))) {
                throw ValidationError("--filter \(key)= holds the control character \(control); give the value alone")
            }
        }
    }

    /// The first control character of `text` other than tab, line feed and carriage return
    /// (which searches take as spaces), written as `\u{1B}`; nil when there is none.
    static func controlCharacter(in text: String) -> String? {
        text.unicodeScalars.first { $0.properties.generalCategory == .control && !["\t", "\n", "\r"].contains($0) }
            .map { "\\u{" + String($0.value, radix: 16, uppercase: true) + "}" }
    }

    /// A usage error when a filter is given twice (`--album N` counts as `album=N`): only one
    /// value would be used, and which one would be a guess.
    static func checkRepeats(_ filters: [String], album: Int?) throws {
        var seen = Set<String>()
        for (key, _) in pairs(filters, album: album) where !seen.insert(key).inserted {
            if key == "album", album != nil { throw ValidationError("--album and --filter album= both name an album; give one") }
            throw ValidationError("--filter \(key)= is given twice; give one value (comma-separated where the filter takes several, e.g. --filter \(key)=a,b)")
        }
    }

    /// ``pairs(album:)`` of `filters` as typed.
    static func pairs(_ filters: [String], album: Int?) -> [(key: String, value: String)] {
        var pairs: [(key: String, value: String)] = []
        if let album { pairs.append(("album", String(album))) }
        pairs += filters.compactMap(split)
        return pairs
    }

    static func split(_ filter: String) -> (key: String, value: String)? {
        guard let equals = filter.firstIndex(of: "=") else { return nil }
        let key = filter[..<equals].trimmingCharacters(in: .whitespaces).lowercased()
        let value = filter[filter.index(after: equals)...].trimmingCharacters(in: .whitespaces)
        guard !key.isEmpty, !value.isEmpty else { return nil }
        return (key, value)
    }
}
