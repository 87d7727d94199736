import ArgumentParser
import PhotosCache
import PhotosCore
import PhotosImaging

/// `photos list` read straight from the command line, without the argument parser.
///
/// swift-argument-parser builds its picture of a command by reflection: every option's wrapper
/// type is looked up against its protocols at run time, which on Linux means scanning all of the
/// binary's 6,600 conformance records for each new type, then it parses the line twice more
/// looking for `--generate-completion-script`. That is about 24 M instructions (8 ms) before a
/// listing starts, a quarter of a listing read from the cache.
///
/// The common lines (`list` and its own options, each once, with plain values) are read here.
/// Anything else, including every line the parser would refuse, is declined (nil) and goes to the
/// parser, which then gives its usual answer or error. Values are converted with the same
/// `ExpressibleByArgument` initialisers the parser uses and checked with the same rules as
/// `List.validate()`; `ListFastPathTests` holds the two readings equal over a thousand generated
/// lines.
enum ListFastPath {
    /// The request `arguments` (without the program name) ask for, or nil to use the parser.
    static func request(_ arguments: [String]) -> ListingRequest? {
        guard arguments.first == "list" else { return nil }
        var provider: String?, query: String?, album: Int?, page: Int?, perPage: Int?, limit: Int?, columns: Int?
        var format: OutputFormat?, graphics: GraphicsMode?
        var filters: [String] = []
        var all = false, noThumbnails = false, refresh = false, offline = false

        var index = 1
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            var name = argument
            var attached: String?
            if argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") {
                name = String(argument[..<equals])
                attached = String(argument[argument.index(after: equals)...])
            }
            // A value: attached with `=`, or the next argument. One that could be read as an
            // option, or an empty one, is the parser's to judge.
            func value() -> String? {
                let text: String
                if let attached {
                    text = attached
                } else {
                    guard index < arguments.count else { return nil }
                    text = arguments[index]
                    index += 1
                }
                guard let first = text.utf8.first, first != UInt8(ascii: "-") else { return nil }
                return text
            }
            // Each option once: a repeated one is left to the parser's rules.
            func set<T>(_ slot: inout T?, _ parsed: T?) -> Bool {
                guard slot == nil, let parsed else { return false }
                slot = parsed
                return true
            }
            func flag(_ slot: inout Bool) -> Bool {
                guard attached == nil, !slot else { return false }
                slot = true
                return true
            }
            let accepted: Bool
            switch name {
            case "--provider": accepted = set(&provider, value())
            case "--query", "-q": accepted = set(&query, value())
            case "--album": accepted = set(&album, value().flatMap(Int.init(argument:)))
            case "--filter":
                guard let text = value() else { return nil }
                filters.append(text)
                accepted = true
            case "--page": accepted = set(&page, value().flatMap(Int.init(argument:)))
            case "--per-page": accepted = set(&perPage, value().flatMap(Int.init(argument:)))
            case "--limit": accepted = set(&limit, value().flatMap(Int.init(argument:)))
            case "--columns": accepted = set(&columns, value().flatMap(Int.init(argument:)))
            case "--format": accepted = set(&format, value().flatMap(OutputFormat.init(argument:)))
            case "--graphics": accepted = set(&graphics, value().flatMap(GraphicsMode.init(argument:)))
            case "--all": accepted = flag(&all)
            case "--no-thumbnails": accepted = flag(&noThumbnails)
            case "--refresh": accepted = flag(&refresh)
            case "--offline": accepted = flag(&offline)
            default: accepted = false
            }
            guard accepted else { return nil }
        }

        // `List.validate()`, `FilterOptions.validate()` and `CacheOptions.validate()`: a line
        // they refuse gets the parser's message.
        let firstPage = page ?? 1
        guard firstPage >= 1, (1...12).contains(columns ?? 3), !(refresh && offline) else { return nil }
        if let perPage, !(1...500).contains(perPage) { return nil }
        if let limit, limit < 1 { return nil }
        if let album, album < 1 { return nil }
        if let query, query.trimmingWhitespaceAndNewlines().isEmpty { return nil }
        guard filters.allSatisfy({ FilterOptions.split($0) != nil }), (try? FilterOptions.checkRepeats(filters, album: album)) != nil,
            (try? FilterOptions.checkText(query: query, filters: filters)) != nil
        else { return nil }

        let mode: ListingMode = offline ? .offline : refresh ? .refresh : .normal
        return ListingRequest(
            providers: provider, text: query, filters: FilterOptions.pairs(filters, album: album), page: firstPage, perPage: perPage,
            limit: limit, walkAll: all, thumbnails: !noThumbnails, format: format ?? .table,
            columns: columns ?? 3, graphics: graphics ?? .auto, mode: mode)
    }
}
