import ArgumentParser
import FixtureServerKit
import Foundation

@main
struct PhotosFixtureServer: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "photos-fixture-server",
        abstract: "HTTPS + HTTP/2 test bed for photos: fixtures, thumbnails, faults (see Sources/FixtureServerKit/README.md)."
    )

    @Option(help: "Port on 127.0.0.1; 0 picks a free one.")
    var port = 0

    @Option(help: "Fixtures directory (default: the repository's Fixtures/).")
    var fixtures: String?

    @Option(name: .customLong("latency-ms"), help: "Delay before every response, in milliseconds.")
    var latencyMs = 0

    @Option(name: .customLong("max-streams"), help: "HTTP/2 MAX_CONCURRENT_STREAMS.")
    var maxStreams = 100

    @Option(
        name: .customLong("env-file"),
        help: "Write NAME='value' lines that point photos at this server (CA, endpoints, test key), for `set -a; . FILE`.")
    var envFile: String?

    mutating func run() async throws {
        var configuration = FixtureServerConfiguration(
            port: port, latencyMilliseconds: latencyMs, maxConcurrentStreams: maxStreams)
        if let fixtures {
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: fixtures, isDirectory: &isFolder), isFolder.boolValue else {
                throw ValidationError("--fixtures \(fixtures) is not a folder (the repository's Fixtures/ is one)")
            }
            configuration.fixturesDirectory = URL(fileURLWithPath: fixtures, isDirectory: true).standardizedFileURL
        }
        let server = try await FixtureServer.start(configuration)
        if let envFile {
            try server.photosEnvironmentScript.write(toFile: envFile, atomically: true, encoding: .utf8)
        }
        FileHandle.standardOutput.write(Data((server.readyLine + "\n").utf8))
        await FixtureServer.waitForTerminationSignal()
        try await server.shutdown()
    }
}
