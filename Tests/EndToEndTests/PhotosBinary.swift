import FixtureServerKit
import Foundation
import Testing

/// Runs the built `photos` binary as a user would, against the fixture server.
struct PhotosBinary {
    struct Run {
        let status: Int32
        let stdout: String
        let stderr: String
        let stdoutBytes: Data

        /// stdout parsed as one JSON object.
        func json() throws -> [String: Any] {
            guard let object = try JSONSerialization.jsonObject(with: stdoutBytes) as? [String: Any] else {
                throw CocoaError(.coderReadCorrupt)
            }
            return object
        }
    }

    /// The folder of the built products (where the test bundle lives).
    static let productsFolder: URL = {
        var url = Bundle.main.bundleURL
        while !FileManager.default.isExecutableFile(atPath: url.appendingPathComponent("photos").path) {
            let parent = url.deletingLastPathComponent()
            if parent == url { break }
            url = parent
        }
        return url
    }()

    static var executable: URL { productsFolder.appendingPathComponent("photos") }

    let server: FixtureServer?
    let cache: URL
    var environment: [String: String]

    /// A binary set up for `server`, with its own empty cache and no config file.
    init(server: FixtureServer?) throws {
        self.server = server
        cache = FileManager.default.temporaryDirectory.appendingPathComponent("photos-e2e-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: cache, withIntermediateDirectories: true)
        environment = [
            "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin",
            "HOME": cache.path,
            "PHOTOS_CACHE_DIR": cache.appendingPathComponent("cache").path,
            "PHOTOS_CONFIG": cache.appendingPathComponent("absent.toml").path,
            "COLUMNS": "100",
            "TERM": "xterm-256color",
        ]
        if let server {
            environment["PHOTOS_CA_BUNDLE"] = server.caFile
            environment["PHOTOS_FLICKR_API"] = server.url + "/services/rest/"
            environment["PHOTOS_FLICKR_STATIC"] = server.url + "/flickr-static"
            environment["PHOTOS_PLACEHOLDER_API"] = server.url
            environment["FLICKR_API_KEY"] = FixtureProviderEmulation.validFlickrAPIKey
        }
    }

    func remove() {
        try? FileManager.default.removeItem(at: cache)
    }

    /// Runs `photos ARGS` to completion with stdin closed.
    func run(_ arguments: [String], environment overrides: [String: String?] = [:]) throws -> Run {
        var environment = self.environment
        for (key, value) in overrides { environment[key] = value }
        let process = Process()
        process.executableURL = Self.executable
        process.arguments = arguments
        process.environment = environment
        let out = cache.appendingPathComponent("stdout-\(UUID().uuidString)")
        let err = cache.appendingPathComponent("stderr-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: out.path, contents: nil)
        _ = FileManager.default.createFile(atPath: err.path, contents: nil)
        let outHandle = try FileHandle(forWritingTo: out)
        let errHandle = try FileHandle(forWritingTo: err)
        process.standardOutput = outHandle
        process.standardError = errHandle
        process.standardInput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        try outHandle.close()
        try errHandle.close()
        let stdout = try Data(contentsOf: out)
        let stderr = try Data(contentsOf: err)
        try? FileManager.default.removeItem(at: out)
        try? FileManager.default.removeItem(at: err)
        return Run(
            status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
            stderr: String(decoding: stderr, as: UTF8.self), stdoutBytes: stdout)
    }
}

/// Starts a fixture server for one test and stops it afterwards.
func withServer<T>(
    _ configuration: FixtureServerConfiguration = .init(), _ body: (FixtureServer, PhotosBinary) async throws -> T
) async throws -> T {
    let server = try await FixtureServer.start(configuration)
    let photos = try PhotosBinary(server: server)
    defer { photos.remove() }
    do {
        let result = try await body(server, photos)
        try await server.shutdown()
        return result
    } catch {
        try? await server.shutdown()
        throw error
    }
}
