import Testing
import Foundation
import PhotosCore

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
}
