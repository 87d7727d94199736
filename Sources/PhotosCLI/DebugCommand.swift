import ArgumentParser
import Foundation
import PhotosCore
import PhotosTransport
import Synchronization

/// Hidden commands for demos and benchmarks of the transport.
struct DebugCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "debug",
        abstract: "Developer tools: exercise the transport directly.",
        shouldDisplay: false,
        subcommands: [Fetch.self]
    )

    struct Fetch: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Download every URL of a list in parallel and print a JSON summary.",
            discussion: """
                Example:
                  photos debug fetch --urls urls.txt --out /tmp/thumbs
                """
        )

        @Option(help: "File with one URL per line.")
        var urls: String

        @Option(help: "Folder the files are written to (created if missing).")
        var out: String

        @Option(help: "Connections per host.")
        var connectionsPerHost = 1

        func run() async throws {
            let list = try String(contentsOfFile: urls, encoding: .utf8)
                .split(whereSeparator: \.isNewline).map(String.init).filter { !$0.isEmpty }
            let folder = URL(fileURLWithPath: out, isDirectory: true)
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            var configuration = TransportConfiguration.fromEnvironment()
            configuration.maxConnectionsPerHost = connectionsPerHost
            let transport = try CurlTransport(configuration: configuration)
            let firstError = FirstError()
            let clock = ContinuousClock()
            let started = clock.now
            let failures = await withTaskGroup(of: Bool.self) { group in
                var next = 0
                func addNext() {
                    guard next < list.count else { return }
                    let (index, url) = (next, list[next])
                    next += 1
                    group.addTask {
                        let target = folder.appendingPathComponent(String(format: "%05d", index), isDirectory: false)
                        do {
                            let response = try await transport.download(HTTPRequest(url: url), to: target)
                            if !response.isSuccess { firstError.record("HTTP \(response.status)") }
                            return response.isSuccess
                        } catch {
                            firstError.record(String(describing: error))
                            return false
                        }
                    }
                }
                // A window of tasks: a connection's worth of streams plus a little.
                for _ in 0..<128 { addNext() }
                var failures = 0
                for await ok in group {
                    addNext()
                    if !ok { failures += 1 }
                }
                return failures
            }
            let elapsed = clock.now - started
            let statistics = transport.statistics
            transport.shutdown()
            let versions = statistics.transfersByVersion.map { "\"\($0.key.rawValue)\":\($0.value)" }.sorted()
            print(
                "{\"files\":\(list.count),\"failed\":\(failures),\"connections\":\(statistics.connectionsOpened),"
                    + "\"versions\":{\(versions.joined(separator: ","))},\"bytes\":\(statistics.bytesReceived),"
                    + "\"wall_ms\":\(elapsed.milliseconds)}"
            )
            if failures > 0 {
                Diagnostics.error("\(failures) of \(list.count) downloads failed; the first: \(firstError.message ?? "unknown")")
                throw ExitCode(69)
            }
        }
    }
}

/// Keeps the first error message reported from many tasks.
final class FirstError: Sendable {
    private let value = Mutex<String?>(nil)
    func record(_ message: String) { value.withLock { if $0 == nil { $0 = message } } }
    var message: String? { value.withLock { $0 } }
}
