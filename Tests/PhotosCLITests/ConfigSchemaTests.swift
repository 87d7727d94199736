import Testing

import PhotosCore
import PhotosProviders

@testable import PhotosCLI

/// The config file read with TOMLKit and checked against every known setting.
@Suite struct ConfigSchemaTests {
    @Test func readsFullTOML() throws {
        let config = try ConfigFile.parse(
            #"""
            "flickr" = { api_key = 'literal\key' }

            [defaults]
            provider = ["flickr", "placeholder"]   # an array

            [cache]
            "max_size_mb" = 0x10
            dir = """
            /tmp/photos"""

            [placeholder]
            api = "https://example.test"
            """#, path: "c.toml", schema: ConfigSchema(registry: .standard))
        #expect(config.values["defaults.provider"] == "flickr,placeholder")
        #expect(config.values["flickr.api_key"] == #"literal\key"#)
        #expect(config.values["cache.max_size_mb"] == "16")
        #expect(config.values["cache.dir"] == "/tmp/photos")
        #expect(config.lines["defaults.provider"] == 4)
        #expect(config.lines["flickr.api_key"] == 1, "a key in an inline table is at its table's line")
        #expect(config.lines["cache.max_size_mb"] == 7)
        #expect(config.lines["placeholder.api"] == 12, "lines of a multi-line string are skipped")
    }

    @Test(arguments: [
        ("[flickr]\napi_key = 1\n", 2, "[flickr] api_key must be a string, got an integer"),
        ("[cache]\nrecent_searches = true\n", 2, "[cache] recent_searches must be an integer, got a boolean"),
        ("x = 1\n", 1, "unknown key 'x' outside any table"),
        ("[flickr]\n\n  \"api key\" = \"k\"\n", 3, "unknown key '\"api key\"' in [flickr]"),
        ("[cache.dir]\nx = 1\n", 1, "[cache] dir must be a string, not a table"),
        ("[cache]\nmax_size_mb = -1\n", 2, "from 1 to"),
        ("[network]\nmax_connections_per_host = \"6\"\n", 2, "[network] max_connections_per_host must be an integer, got a string"),
        ("[network]\nmax_image_mb = 0\n", 2, "[network] max_image_mb must be a whole number from 1 to 4096, got 0"),
        ("[network]\nstall_seconds = \"soon\"\n", 2, "[network] stall_seconds must be an integer, got a string"),
        ("[network]\nmax_connections_per_host = 0\n", 2, "must be a whole number from 1 to 32, got 0"),
        // Arrays are said by what they hold: "got an array" contradicts "an array of strings".
        ("[defaults]\nprovider = []\n", 2, "[defaults] provider must be a string or an array of strings, got an empty array"),
        ("[defaults]\nprovider = [\"nasa\", 1]\n", 2, "got an array holding an integer (write provider = \""),
        ("[cache]\ndir = [\"/a\"]\n", 2, "[cache] dir must be a string, got an array of strings"),
        ("[[cache]]\ndir = \"/a\"\n", 1, "[[cache]] makes an array of tables; settings take one table: write [cache], once"),
        // A table photos does not know is said at its header, not at its first key.
        ("# c\n\n[bogus]\n\nx = 1\n", 3, "unknown table [bogus]"),
    ])
    func reportsUnknownKeysAndWrongTypesWithTheirLine(text: String, line: Int, reason: String) {
        do {
            _ = try ConfigFile.parse(text, path: "c.toml", schema: ConfigSchema(registry: .standard))
            Issue.record("no error for \(text)")
        } catch let error as ConfigFile.ParseError {
            #expect(error.line == line, "\(error)")
            #expect(error.reason.contains(reason), "\(error)")
            #expect(error.description.hasPrefix("c.toml:\(line): "))
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test func keyLinesFollowHeadersDottedKeysAndMultiLineValues() {
        let lines = TOMLKeyLines(
            #"""
            top = 1
            [a]
            b.c = '''
            [not.a.table]
            '''
            d = [
              1, # [nor.this]
              2,
            ]
            [[e]]
            "f.g" = "#"
            """#)
        #expect(lines.line(of: ["top"]) == 1)
        #expect(lines.line(of: ["a"]) == 2)
        #expect(lines.line(of: ["a", "b", "c"]) == 3)
        #expect(lines.line(of: ["not", "a", "table"]) == nil)
        #expect(lines.line(of: ["a", "d"]) == 6)
        #expect(lines.line(of: ["nor", "this"]) == nil)
        #expect(lines.line(of: ["e", "f.g"]) == 11)
        #expect(lines.line(of: ["a", "d", "x"]) == 6, "the nearest known key")
    }

    @Test func theSchemaComesFromTheRegistry() {
        let schema = ConfigSchema(registry: .standard)
        for setting in ProviderRegistry.standard.settings {
            #expect(schema.setting(setting.configKey)?.variable == setting.variable)
            #expect(schema.setting(setting.configKey)?.isSecret == setting.isSecret)
        }
        #expect(schema.setting("cache.max_size_mb") != nil && schema.setting("defaults.provider") != nil)
        #expect(schema.sections.first == "defaults")
    }
}
