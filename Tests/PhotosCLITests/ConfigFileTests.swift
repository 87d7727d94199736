import Testing
import Foundation
import PhotosCore
import PhotosTerminal

@testable import PhotosCLI

@Suite struct ConfigFileTests {
    @Test func readsTablesStringsNumbersAndComments() throws {
        let config = try ConfigFile.parse("""
            # photos settings
            [defaults]
            provider = "flickr"   # the usual one

            [flickr]
            api_key = "abc#123"
            [cache]
            max_size_mb = 1_000
            enabled = true
            """)
        #expect(config.values["defaults.provider"] == "flickr")
        #expect(config.values["flickr.api_key"] == "abc#123")
        #expect(config.values["cache.max_size_mb"] == "1000")
        #expect(config.values["cache.enabled"] == "true")
    }

    @Test(arguments: ["[flickr", "api_key", "api_key = bare words", "bad key = 1", "x = \"unterminated"])
    func reportsTheLineOfAnError(text: String) {
        #expect(throws: ConfigFile.ParseError.self) { try ConfigFile.parse("[ok]\n\(text)") }
        do {
            _ = try ConfigFile.parse("[ok]\n\(text)")
        } catch let error as ConfigFile.ParseError {
            #expect(error.line == 2)
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    /// A table below a section, empty or not, is no setting: refused on its header's line
    /// (an empty one was passed over without a word, and `[nosuch.sub]` with a key in it was
    /// refused without a line). A string left open is said as that, not as the TOML parser's
    /// "unescaped control characters".
    @Test(arguments: [
        ("[nosuch.sub]", 2, "unknown table [nosuch]"), ("[cache.sub]", 2, "unknown key 'sub' in [cache]"),
        ("[flickr.extra]", 2, "unknown key 'extra' in [flickr]"), ("[nosuch.sub]\nx = 1", 2, "unknown table [nosuch]"),
        ("dir = \"/tmp/x\nmax_size_mb = 5", 2, "its closing \" is missing"),
    ])
    func mistakesAreSaidAsWhatTheyAreOnTheirLine(text: String, line: Int, reason: String) {
        do {
            _ = try ConfigFile.parse("[cache]\n\(text)\n", schema: ConfigSchema(registry: .standard))
            Issue.record("accepted")
        } catch let error as ConfigFile.ParseError {
            #expect(error.line == line && "\(error)".contains(reason), "\(error)")
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    /// What the TOML parser finds is said in plain words on its line, not in the parser's own
    /// ("Error while parsing table header: expected ']', saw '\n'").
    @Test(arguments: [
        ("[flickr\napi_key = \"x\"", 2, "expected ']', found the end of the line (in a table header)"),
        ("[dup]\n[dup]", 3, "table 'dup' is defined a second time: each table and key is given once"),
        ("a = 1\na = 2", 3, "'a' is defined a second time"),
    ])
    func theTOMLParsersFindingsAreSaidInPlainWords(text: String, line: Int, reason: String) {
        do {
            _ = try ConfigFile.parse("[ok]\n\(text)\n")
            Issue.record("accepted \(String(reflecting: text))")
        } catch let error as ConfigFile.ParseError {
            #expect(error.line == line, "\(error)")
            #expect(error.reason.contains(reason), "\(error)")
            #expect(!error.reason.contains("Error while parsing") && !error.reason.contains("saw"), "\(error)")
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    /// A table name or key of thousands of dotted parts (a 4 KB file) took tens of seconds and,
    /// at tens of thousands of parts, crashed the TOML parser (its recursion overflowed the
    /// stack): refused at once, on its line.
    @Test(arguments: [
        "[" + Array(repeating: "a", count: 2000).joined(separator: ".") + "]",
        Array(repeating: "k", count: 100).joined(separator: ".") + " = 1",
        "[" + Array(repeating: "a", count: 100_000).joined(separator: ".") + "]",
    ])
    func keysOfThousandsOfPartsAreRefused(text: String) {
        do {
            _ = try ConfigFile.parse("[ok]\n\(text)\n", schema: ConfigSchema(registry: .standard))
            Issue.record("accepted")
        } catch let error as ConfigFile.ParseError {
            #expect(error.line == 2 && "\(error)".contains("more than 32 dotted parts"), "\(error)")
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    /// Mistakes are said from the top of the file down, and the first of them is the one a
    /// command refuses with, whatever the names of the tables they are in.
    @Test func mistakesComeInTheOrderOfTheFile() throws {
        let text = "[cache]\nmax_sise_mb = 5\nrecent_searches = \"ten\"\n\n[bogus]\nx = 1\n"
        let lenient = try ConfigFile.parse(text, schema: ConfigSchema(registry: .standard), lenient: true)
        #expect(lenient.problems.map(\.line) == [2, 3, 5], "an unknown table at its header")
        do {
            _ = try ConfigFile.parse(text, schema: ConfigSchema(registry: .standard))
            Issue.record("a mistake is refused")
        } catch let error as ConfigFile.ParseError {
            #expect(error.line == 2, "\(error)")
        }
    }

    /// Each of these made the TOML parser (toml++ inside TOMLKit) abort on an assertion; the
    /// config fuzz target found them. Each is a line error.
    @Test(arguments: [
        "[= \"flickr\"]", "[.a]", "[[ =]]", "[\n", "[ ", "[\u{8}cache]",
        // and, found next, values that start like none or brackets closed by the other kind
        "a = ]", "a = [1, }]", "a = [[[}]]]", "a = [1}", "a = { , }", "a = { b = ] }", "a = {b=1]",
        // a lone carriage return is no white space to TOML
        "[[\r\rt]]", "[\rt]", "a = [\r1]",
        // numbers, dates and words that are no TOML value
        "_h = 0----o---- 0", "a = 1__0", "a = [1, 2x]", "a = { b = 07:3 }", "a = truely",
    ])
    func malformedTOMLThatWouldAbortTheParserIsALineError(text: String) {
        // Behind a byte-order mark too, which the TOML parser skips.
        #expect(throws: ConfigFile.ParseError.self) { try ConfigFile.parse("\u{FEFF}\(text)") }
        do {
            _ = try ConfigFile.parse("[ok]\n\(text)")
            Issue.record("accepted \(String(reflecting: text))")
        } catch let error as ConfigFile.ParseError {
            #expect(error.line == 2, "\(error)")
            #expect(error.reason.hasPrefix("expected") || error.reason.contains("closes") || error.reason.contains("not a TOML value"), "\(error)")
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test func everyKindOfTOMLValueStillReads() throws {
        let config = try ConfigFile.parse("""
            [t]
            a = 1_000
            b = 0x1F
            c = -1.5e3
            d = -inf
            e = 1979-05-27T07:32:00Z
            f = 1979-05-27 07:32:00.5+01:00
            g = 07:32:00
            h = [true, false, 0o17, 0b101, nan]
            i = { j = 1, k = "x" }
            """)
        #expect(config.values["t.a"] == "1000")
        #expect(config.values["t.b"] == "31")
        #expect(config.values["t.i.j"] == "1")
        #expect(config.values.count == 10, "\(config.values)")
    }

    @Test func environmentWinsOverTheConfigFile() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("photos-config-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("config.toml").path
        try "[flickr]\napi_key = \"from-file\"\n[placeholder]\napi = \"https://example.test\"\n"
            .write(toFile: path, atomically: true, encoding: .utf8)
        let environment = try AppEnvironment.load(environment: ["PHOTOS_CONFIG": path, "FLICKR_API_KEY": "from-env"])
        #expect(environment.settings["FLICKR_API_KEY"] == "from-env")
        #expect(environment.settings["PHOTOS_PLACEHOLDER_API"] == "https://example.test")
    }

    @Test func connectionsPerHostComeFromTheNetworkTableOrTheEnvironment() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("photos-config-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("config.toml").path
        #expect(try AppEnvironment.load(environment: ["PHOTOS_CONFIG": path]).maxConnectionsPerHost() == 6, "the default")

        try "[network]\nmax_connections_per_host = 1\n".write(toFile: path, atomically: true, encoding: .utf8)
        let file = try AppEnvironment.load(environment: ["PHOTOS_CONFIG": path])
        #expect(try file.maxConnectionsPerHost() == 1)
        #expect(try file.makeTransport().configuration.maxConnectionsPerHost == 1, "the transport gets it")
        #expect(try !file.makeTransport().isStarted, "libcurl is loaded only for a first request")
        let environment = try AppEnvironment.load(environment: ["PHOTOS_CONFIG": path, "PHOTOS_MAX_CONNECTIONS_PER_HOST": "3"])
        #expect(try environment.maxConnectionsPerHost() == 3)

        for bad in ["0", "33", "many"] {
            let refused = try AppEnvironment.load(environment: ["PHOTOS_CONFIG": path, "PHOTOS_MAX_CONNECTIONS_PER_HOST": bad])
            #expect(throws: PhotosError.self) { try refused.maxConnectionsPerHost() }
        }
    }

    @Test func aFileThatCannotBeReadSaysWhy() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("photos-config-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        func reason(_ path: String) -> String? {
            do {
                _ = try ConfigFile.load(path: path)
                return nil
            } catch let error as ConfigFile.ParseError {
                return error.reason
            } catch {
                return "\(error)"
            }
        }
        #expect(reason(folder.path) == "is a folder, not a file")
        let latin1 = folder.appendingPathComponent("latin1.toml")
        try Data([0x5B, 0x78, 0x5D, 0x0A, 0x61, 0x20, 0x3D, 0x20, 0x22, 0xE9, 0x22, 0x0A]).write(to: latin1)
        #expect(reason(latin1.path) == "is not UTF-8 text")
        #expect(reason(folder.appendingPathComponent("missing.toml").path) == nil, "no file is no settings")
        #expect(reason("/dev/null") == nil, "PHOTOS_CONFIG=/dev/null is no settings, as an empty file")
        // A FIFO nobody writes to: said at once, not waited on forever.
        let fifo = folder.appendingPathComponent("fifo.toml")
        #expect(mkfifo(fifo.path, 0o600) == 0)
        #expect(reason(fifo.path) == "is not a regular file")
        let huge = folder.appendingPathComponent("huge.toml")
        try Data(repeating: 0x23, count: (1 << 20) + 1).write(to: huge)
        #expect(reason(huge.path)?.hasPrefix("is larger than 1 MiB") == true)
    }

    @Test func configShowOnAnEightyColumnTerminalKeepsEachSourceWhole() throws {
        let environment = try AppEnvironment.load(environment: ["PHOTOS_CONFIG": "/dev/null", "PHOTOS_CACHE_DIR": "/tmp/photos-cache", "HOME": "/root"])
        let table = ConfigReport(environment: environment, curl: nil).table(width: 80)
        let lines = table.split(separator: "\n")
        #expect(lines.allSatisfy { TerminalText.displayWidth(String($0)) <= 80 }, "\(lines.filter { $0.count > 80 })")
        let dir = try #require(lines.first { $0.hasPrefix("[cache] dir") })
        #expect(dir.contains("/tmp/photos-cache") && dir.hasSuffix("env PHOTOS_CACHE_DIR"), "\(dir)")
        // Wide, the variables have their own column and the source its long form.
        let wide = ConfigReport(environment: environment, curl: nil).table(width: 160)
        #expect(wide.contains("VARIABLE") && wide.contains("environment PHOTOS_CACHE_DIR"))
    }

    @Test func numbersOfTheNetworkTableAreIntegers() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("photos-config-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("config.toml").path
        try "[network]\nmax_image_mb = 64\nstall_seconds = 12\n".write(toFile: path, atomically: true, encoding: .utf8)
        let environment = try AppEnvironment.load(environment: ["PHOTOS_CONFIG": path])
        #expect(try environment.maxImageBytes() == 64 << 20)
        #expect(try environment.transportConfiguration().lowSpeedTime == .seconds(12))
        // A number in quotes is a string, as for every other number of the file; the message
        // shows how to write it.
        try "[network]\nmax_image_mb = \"64\"\n".write(toFile: path, atomically: true, encoding: .utf8)
        #expect {
            _ = try AppEnvironment.load(environment: ["PHOTOS_CONFIG": path])
        } throws: { error in
            "\(error)".contains("max_image_mb must be an integer, got a string (write max_image_mb = 50)")
        }
    }
}
