// photos' transport on its own: downloads every URL of a list in parallel, each to its own file,
// and prints a JSON summary. Benchmarks/run.sh times it beside curl, wget2, h2load and URLSession.
//
// Usage: transport-fetch --urls FILE --out DIR [--connections-per-host N]
import Foundation
import PhotosCore
import PhotosTransport
import Synchronization

func fail(_ message: String, code: Int32 = 64) -> Never {
    FileHandle.standardError.write(Data("transport-fetch: \(message)\n".utf8))
    exit(code)
}

var options: [String: String] = [:]
var arguments = CommandLine.arguments.dropFirst()
while let name = arguments.popFirst() {
    guard name.hasPrefix("--"), let value = arguments.popFirst() else { fail("usage: transport-fetch --urls FILE --out DIR [--connections-per-host N]") }
    options[String(name.dropFirst(2))] = value
}
guard let urlsFile = options["urls"], let out = options["out"] else { fail("--urls and --out are required") }
// By default what photos itself uses (connections by need, up to TransportConfiguration's cap).
let connectionsPerHost = options["connections-per-host"].flatMap { Int($0) } ?? TransportConfiguration.defaultMaxConnectionsPerHost

let list: [String]
do {
    list = try String(contentsOfFile: urlsFile, encoding: .utf8).split(whereSeparator: \.isNewline).map(String.init).filter { !$0.isEmpty }
} catch {
    fail("cannot read \(urlsFile): \(error)")
}
let folder = URL(fileURLWithPath: out, isDirectory: true)
let transport: CurlTransport
do {
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    var configuration = TransportConfiguration.fromEnvironment()
    configuration.maxConnectionsPerHost = connectionsPerHost
    transport = try CurlTransport(configuration: configuration)
} catch {
    fail("\(error)", code: 69)
}

/// The first error message reported from many tasks.
let firstError = Mutex<String?>(nil)
func record(_ message: String) { firstError.withLock { if $0 == nil { $0 = message } } }

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
                if !response.isSuccess { record("HTTP \(response.status)") }
                return response.isSuccess
            } catch {
                record(String(describing: error))
                return false
            }
        }
    }
    // A window of tasks, as photos keeps: what the transport carries at once plus a little,
    // announced to the transport first, as photos does.
    let window = transport.concurrentTransfers + 28
    transport.expectRequests(for: Array(list.prefix(window)))
    for _ in 0..<window { addNext() }
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
let milliseconds = elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000
print(
    "{\"files\":\(list.count),\"failed\":\(failures),\"connections\":\(statistics.connectionsOpened),"
        + "\"versions\":{\(versions.joined(separator: ","))},\"bytes\":\(statistics.bytesReceived),\"wall_ms\":\(milliseconds)}")
if failures > 0 {
    fail("\(failures) of \(list.count) downloads failed; the first: \(firstError.withLock { $0 } ?? "unknown")", code: 69)
}
