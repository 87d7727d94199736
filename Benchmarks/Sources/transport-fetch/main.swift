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
    // Split as bytes: by Characters, a thousand lines cost 17 M instructions.
    let data = try Data(contentsOf: URL(fileURLWithPath: urlsFile))
    list = data.split(separator: UInt8(ascii: "\n")).map { String(decoding: $0, as: UTF8.self) }.filter { !$0.isEmpty }
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

/// The first error message reported.
let firstError = Mutex<String?>(nil)
let failures = Mutex(0)

let clock = ContinuousClock()
let started = clock.now
// As photos fetches thumbnails: every file handed to the transport as one batch.
// Paths made as strings (String(format:) and URLs cost more than the transfers' own set-up).
let base = folder.path.hasSuffix("/") ? folder.path : folder.path + "/"
let items = list.enumerated().map { index, url in
    let digits = String(index)
    return (request: HTTPRequest(url: url), path: base + String(repeating: "0", count: max(0, 5 - digits.utf8.count)) + digits)
}
await transport.downloadAll(items) { _, result in
    let problem: String
    switch result {
    case .success(let response) where response.isSuccess: return
    case .success(let response): problem = "HTTP \(response.status)"
    case .failure(let error): problem = String(describing: error)
    }
    failures.withLock { $0 += 1 }
    firstError.withLock { if $0 == nil { $0 = problem } }
}
let elapsed = clock.now - started
let statistics = transport.statistics
transport.shutdown()
let failed = failures.withLock { $0 }
let versions = statistics.transfersByVersion.map { "\"\($0.key.rawValue)\":\($0.value)" }.sorted()
let milliseconds = elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000
print(
    "{\"files\":\(list.count),\"failed\":\(failed),\"connections\":\(statistics.connectionsOpened),"
        + "\"versions\":{\(versions.joined(separator: ","))},\"bytes\":\(statistics.bytesReceived),\"wall_ms\":\(milliseconds)}")
if failed > 0 {
    fail("\(failed) of \(list.count) downloads failed; the first: \(firstError.withLock { $0 } ?? "unknown")", code: 69)
}
