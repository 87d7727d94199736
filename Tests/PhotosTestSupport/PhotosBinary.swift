import FixtureServerKit
import Foundation

/// The built `photos` binary, run as users and scripts run it: its own empty cache, no config
/// file, stdin closed, stdout and stderr captured.
public struct PhotosBinary: Sendable {
    /// What one run printed and how it exited.
    public struct Run: Sendable {
        public let status: Int32
        public let stdoutBytes: Data
        public let stderr: String
        public var stdout: String { String(decoding: stdoutBytes, as: UTF8.self) }

        /// stdout parsed as one JSON object.
        public func json() throws -> [String: Any] {
            guard let object = try JSONSerialization.jsonObject(with: stdoutBytes) as? [String: Any] else {
                throw CocoaError(.coderReadCorrupt)
            }
            return object
        }
    }

    /// A started run: wait for it, or signal it first.
    public final class Running: @unchecked Sendable {
        public let process: Process
        private let output: (out: URL, err: URL, handles: [FileHandle])

        fileprivate init(process: Process, out: URL, err: URL, handles: [FileHandle]) {
            self.process = process
            output = (out, err, handles)
        }

        /// Waits for the process without blocking a cooperative thread, then collects its output.
        public func finish() async throws -> Run {
            let exited = AsyncStream<Void>.makeStream()
            DispatchQueue.global().async { [process] in
                process.waitUntilExit()
                exited.continuation.finish()
            }
            for await _ in exited.stream {}
            for handle in output.handles { try handle.close() }
            defer {
                try? FileManager.default.removeItem(at: output.out)
                try? FileManager.default.removeItem(at: output.err)
            }
            return Run(
                status: process.terminationStatus, stdoutBytes: try Data(contentsOf: output.out),
                stderr: String(decoding: try Data(contentsOf: output.err), as: UTF8.self))
        }
    }

    /// The `photos` executable beside the test bundle (or in one of its parent folders).
    public static let executable: URL = {
        var url = Bundle.main.bundleURL
        while !FileManager.default.isExecutableFile(atPath: url.appendingPathComponent("photos").path) {
            let parent = url.deletingLastPathComponent()
            if parent == url { break }
            url = parent
        }
        return url.appendingPathComponent("photos")
    }()

    /// A private folder: HOME, the cache and captured output live here.
    public let home: URL
    public var environment: [String: String]
    public var cacheFolder: URL { home.appendingPathComponent("cache") }

    /// A binary set up for `server` (its CA, every provider's emulation, the test API key), or
    /// for no server at all.
    public init(server: FixtureServer?) throws {
        home = FileManager.default.temporaryDirectory.appendingPathComponent("photos-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        environment = [
            "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin",
            "HOME": home.path,
            "PHOTOS_CACHE_DIR": home.appendingPathComponent("cache").path,
            "PHOTOS_CONFIG": home.appendingPathComponent("absent.toml").path,
            "COLUMNS": "100",
            "TERM": "xterm-256color",
        ]
        if let server {
            // Every provider's endpoints, image hosts and test key, from Fixtures/*/emulation.json.
            environment.merge(server.photosEnvironment) { $1 }
        }
    }

    /// Removes the private folder.
    public func remove() {
        try? FileManager.default.removeItem(at: home)
    }

    /// Starts `photos ARGS`; `overrides` set variables, or unset them with nil.
    public func start(_ arguments: [String], environment overrides: [String: String?] = [:]) throws -> Running {
        var environment = self.environment
        for (key, value) in overrides { environment[key] = value }
        let process = Process()
        process.executableURL = Self.executable
        process.arguments = arguments
        process.environment = environment
        let id = UUID().uuidString
        let out = home.appendingPathComponent("stdout-\(id)")
        let err = home.appendingPathComponent("stderr-\(id)")
        _ = FileManager.default.createFile(atPath: out.path, contents: nil)
        _ = FileManager.default.createFile(atPath: err.path, contents: nil)
        let outHandle = try FileHandle(forWritingTo: out)
        let errHandle = try FileHandle(forWritingTo: err)
        process.standardOutput = outHandle
        process.standardError = errHandle
        process.standardInput = FileHandle.nullDevice
        try process.run()
        return Running(process: process, out: out, err: err, handles: [outHandle, errHandle])
    }

    /// Runs `photos ARGS` to completion.
    public func run(_ arguments: [String], environment overrides: [String: String?] = [:]) async throws -> Run {
        try await start(arguments, environment: overrides).finish()
    }
}
