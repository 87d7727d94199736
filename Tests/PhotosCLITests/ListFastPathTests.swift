import ArgumentParser
import PhotosCache
import PhotosImaging
import Testing

@testable import PhotosCLI

/// `ListFastPath` reads `photos list` lines without the argument parser: every line it accepts,
/// the parser accepts too and reads into the same request; the rest it leaves to the parser.
@Suite struct ListFastPathTests {
    /// The request as fields that compare (filters as `key=value` text).
    static func fields(_ request: ListingRequest) -> [String] {
        [
            String(describing: request.providers), String(describing: request.text),
            request.filters.map { "\($0.key)=\($0.value)" }.joined(separator: "\u{1F}"),
            String(request.page), String(describing: request.perPage), String(describing: request.limit),
            String(request.walkAll), String(request.thumbnails), request.format.rawValue, String(request.columns),
            request.graphics.rawValue, String(describing: request.mode),
        ]
    }

    /// What the argument parser makes of `arguments`: the listing's request, or nil when it
    /// refuses them or reads another command.
    static func parsed(_ arguments: [String]) -> ListingRequest? {
        guard let command = try? PhotosCommand.parseAsRoot(arguments) else { return nil }
        return (command as? PhotosCommand.List)?.request
    }

    @Test func commonLinesAreReadAsTheParserReadsThem() throws {
        let lines: [[String]] = [
            ["list"],
            ["list", "--provider", "flickr", "--query", "dogs", "--per-page", "500", "--offline", "--format", "table"],
            ["list", "--provider=flickr", "-q", "golden retriever", "--limit", "250", "--format", "jsonl", "--no-thumbnails"],
            ["list", "--provider", "placeholder", "--album", "3", "--filter", "license=cc0", "--filter", " sort = views ", "--refresh"],
            ["list", "--all", "--format=grid", "--columns", "4", "--graphics", "symbols", "--page", "2"],
        ]
        for line in lines {
            let fast = try #require(ListFastPath.request(line), "\(line)")
            let slow = try #require(Self.parsed(line), "\(line)")
            #expect(Self.fields(fast) == Self.fields(slow), "\(line)")
        }
    }

    /// A fixed set's value is taken whatever its case, as provider names are (`--format JSON`
    /// was refused while `--provider FLICKR` was taken), by both readers, and by every command.
    @Test func valuesOfAFixedSetAreTakenWhateverTheirCase() throws {
        let line = ["list", "--provider", "FLICKR", "--format", "JSON", "--graphics", "Symbols"]
        let fast = try #require(ListFastPath.request(line))
        let slow = try #require(Self.parsed(line))
        #expect(fast.format == .json && fast.graphics == .symbols)
        #expect(Self.fields(fast) == Self.fields(slow))
        let show = try #require(try PhotosCommand.parseAsRoot(["show", "flickr:1", "--format", "Json"]) as? PhotosCommand.Show)
        #expect(show.format == .json)
        let save = try #require(try PhotosCommand.parseAsRoot(["save", "flickr:1", "--size", "LARGE"]) as? PhotosCommand.Save)
        #expect(save.size == .large)
        #expect(throws: (any Error).self) { try PhotosCommand.parseAsRoot(["list", "--format", "xml"]) }
    }

    @Test func linesTheParserShouldJudgeAreLeftToIt() {
        let lines: [[String]] = [
            ["show", "flickr:1"], [], ["list", "--help"], ["list", "-h"], ["list", "extra"], ["list", "--bogus"],
            ["list", "--page", "0"], ["list", "--per-page", "501"], ["list", "--limit", "0"], ["list", "--columns", "13"],
            ["list", "--album", "0"], ["list", "--query", "  "], ["list", "--query", ""], ["list", "--query", "-x"],
            ["list", "--filter", "novalue"], ["list", "--refresh", "--offline"], ["list", "--format", "xml"],
            ["list", "--provider", "a", "--provider", "b"], ["list", "--all", "--all"], ["list", "--all=true"],
            ["list", "--page"], ["list", "--page", "two"], ["list", "--", "--all"], ["list", "-q=dogs"],
            ["--offline", "list"],
        ]
        for line in lines {
            #expect(ListFastPath.request(line) == nil, "\(line)")
        }
    }

    @Test func everyGeneratedLineTheFastPathTakesTheParserReadsTheSame() {
        let valued: [(String, [String])] = [
            ("--provider", ["flickr", "placeholder", "flickr,placeholder", "all", "", "-x"]),
            ("--query", ["dogs", "golden retriever", "  ", "-x", "ü", "a=b", ""]),
            ("-q", ["cats", " x "]),
            ("--album", ["1", "3", "0", "-1", "x", "05", "+2"]),
            ("--filter", ["license=cc0", "a=", "=b", " k = v ", "x", "a=b=c"]),
            ("--page", ["1", "2", "0", "-3", "+2", "abc", "007"]),
            ("--per-page", ["1", "30", "500", "501", "0"]),
            ("--limit", ["1", "250", "0"]),
            ("--columns", ["1", "3", "12", "13", "0"]),
            ("--format", ["table", "json", "jsonl", "grid", "xml", "JSON"]),
            ("--graphics", ["auto", "kitty", "iterm", "sixel", "symbols", "none", "bad"]),
        ]
        let flags = ["--all", "--no-thumbnails", "--refresh", "--offline"]
        let junk = ["--help", "--bogus", "extra", "--", "-h", "--all=1"]
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
        var accepted = 0, declined = 0
        for _ in 0..<1000 {
            var line = ["list"]
            for _ in 0..<next(6) {
                switch next(10) {
                case 0..<6:
                    let (name, values) = valued[next(valued.count)]
                    let value = values[next(values.count)]
                    if name.hasPrefix("--"), next(3) == 0 { line.append("\(name)=\(value)") } else { line += [name, value] }
                case 6..<9: line.append(flags[next(flags.count)])
                default: line.append(junk[next(junk.count)])
                }
            }
            guard let fast = ListFastPath.request(line) else {
                declined += 1
                continue
            }
            accepted += 1
            guard let slow = Self.parsed(line) else {
                Issue.record("the fast path took \(line), which the parser refuses")
                continue
            }
            #expect(Self.fields(fast) == Self.fields(slow), "\(line)")
        }
        #expect(accepted > 150 && declined > 150, "both kinds of line were tried: \(accepted) taken, \(declined) left")
    }
}
