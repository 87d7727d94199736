// urlsession-fetch --urls FILE --out DIR [--connections-per-host N]
//
// Downloads every URL of a list concurrently with one URLSession and writes each body to
// DIR/<index>, then prints the same JSON summary as `transport-fetch`:
// {"files":N,"failed":N,"bytes":N,"wall_ms":N}
//
// On Linux URLSession trusts only the system CA store, so the test CA has to be installed there
// (Benchmarks/run.sh does that for the duration of a run).
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

struct Options {
    var urls = ""
    var out = ""
    var connectionsPerHost = 100

    static func parse(_ arguments: [String]) -> Options {
        var options = Options()
        var iterator = arguments.dropFirst().makeIterator()
        while let argument = iterator.next() {
            switch argument {
            case "--urls": options.urls = iterator.next() ?? ""
            case "--out": options.out = iterator.next() ?? ""
            case "--connections-per-host": options.connectionsPerHost = Int(iterator.next() ?? "") ?? 100
            default: usage("unknown argument \(argument)")
            }
        }
        if options.urls.isEmpty || options.out.isEmpty { usage("--urls and --out are required") }
        return options
    }

    static func usage(_ message: String) -> Never {
        FileHandle.standardError.write(Data("urlsession-fetch: \(message)\nusage: urlsession-fetch --urls FILE --out DIR [--connections-per-host N]\n".utf8))
        exit(64)
    }
}

struct Outcome: Sendable {
    var ok: Bool
    var bytes: Int
}

let options = Options.parse(CommandLine.arguments)
let list: [String]
do {
    list = try String(contentsOfFile: options.urls, encoding: .utf8)
        .split(whereSeparator: \.isNewline).map(String.init).filter { !$0.isEmpty }
    try FileManager.default.createDirectory(atPath: options.out, withIntermediateDirectories: true)
} catch {
    FileHandle.standardError.write(Data("urlsession-fetch: \(error)\n".utf8))
    exit(66)
}

let configuration = URLSessionConfiguration.ephemeral
configuration.httpMaximumConnectionsPerHost = options.connectionsPerHost
configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
configuration.urlCache = nil
configuration.timeoutIntervalForRequest = 60
let session = URLSession(configuration: configuration)
let folder = URL(fileURLWithPath: options.out, isDirectory: true)
let verbose = ProcessInfo.processInfo.environment["URLSESSION_FETCH_VERBOSE"] != nil

let started = DispatchTime.now()
let outcomes = await withTaskGroup(of: Outcome.self) { group in
    for (index, text) in list.enumerated() {
        group.addTask {
            guard let url = URL(string: text) else { return Outcome(ok: false, bytes: 0) }
            do {
                let (data, response) = try await session.data(from: url)
                guard let http = response as? HTTPURLResponse, (200..<300).contains(http.statusCode) else {
                    return Outcome(ok: false, bytes: data.count)
                }
                try data.write(to: folder.appendingPathComponent(String(format: "%05d", index)))
                return Outcome(ok: true, bytes: data.count)
            } catch {
                if verbose { FileHandle.standardError.write(Data("\(text): \(error)\n".utf8)) }
                return Outcome(ok: false, bytes: 0)
            }
        }
    }
    var all: [Outcome] = []
    all.reserveCapacity(list.count)
    for await outcome in group { all.append(outcome) }
    return all
}
let elapsedMs = (DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds) / 1_000_000
session.finishTasksAndInvalidate()

let failed = outcomes.filter { !$0.ok }.count
let bytes = outcomes.reduce(0) { $0 + $1.bytes }
print("{\"files\":\(list.count),\"failed\":\(failed),\"bytes\":\(bytes),\"wall_ms\":\(elapsedMs)}")
exit(failed == 0 ? 0 : 69)
