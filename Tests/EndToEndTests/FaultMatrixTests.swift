import FixtureServerKit
import Foundation
import GRDB
import PhotosTestSupport
import Testing

/// The binary against every kind of failure a server or a network can produce. Each row must
/// give its documented exit code with one clear message, never crash, and leave a cache that
/// the next run and `cache stats` are happy with.
@Suite struct FaultMatrixTests {
    struct Row: Sendable, CustomTestStringConvertible {
        var name: String
        /// The placeholder endpoint, relative to the fixture server (`/__faults/...`), or absolute.
        var endpoint: String
        var status: Int32
        /// Words the one error line (or a warning, for status 0) must hold.
        var says: String
        var environment: [String: String] = [:]
        var testDescription: String { name }
    }

    static let rows: [Row] = [
        Row(name: "reset mid-body", endpoint: "/__faults/reset_after=40", status: 69, says: "127.0.0.1"),
        Row(name: "stall", endpoint: "/__faults/stall_after=40", status: 69, says: "stalled: nothing arrived for too long (PHOTOS_STALL_SECONDS sets how long", environment: ["PHOTOS_STALL_SECONDS": "1"]),
        Row(name: "500", endpoint: "/__faults/status=500", status: 69, says: "answered HTTP 500; try again later"),
        Row(name: "503 for an hour", endpoint: "/__faults/status=503&retry_after=3600", status: 69, says: "answered HTTP 503; it asks to be tried again in 60 min"),
        Row(name: "429 with Retry-After, for good", endpoint: "/__faults/status=429&retry_after=1", status: 69, says: "429"),
        Row(name: "429 once, then served", endpoint: "/__faults/fail_first=1&status=429&retry_after=1&key=matrix", status: 0, says: ""),
        Row(name: "wrong Content-Length", endpoint: "/__faults/wrong_length=100", status: 69, says: "127.0.0.1"),
        Row(name: "gzip bomb", endpoint: "/__faults/gzip_bomb=1", status: 65, says: "too large"),
        Row(name: "three redirects, followed", endpoint: "/__faults/redirects=3&latency_ms=1", status: 0, says: ""),
        Row(name: "thirty redirects", endpoint: "/__faults/redirects=30&latency_ms=1", status: 69, says: "too many redirects"),
        Row(name: "a redirect to no URL", endpoint: "/__faults/redirect=file:///etc/passwd", status: 69, says: "redirected to something that is not a URL"),
        Row(name: "30 MB of noise", endpoint: "/__faults/huge=30000000", status: 65, says: "placeholder"),
        Row(name: "truncated JSON", endpoint: "/__malformed", status: 65, says: "placeholder"),
        Row(name: "a web page instead of JSON", endpoint: "/__html", status: 65, says: "placeholder"),
        Row(name: "TLS failure", endpoint: "", status: 69, says: "TLS",
            environment: ["PHOTOS_CA_BUNDLE": FixtureFiles.url("tls/other-ca.pem").path]),
        Row(name: "DNS failure", endpoint: "https://photos-fixture.invalid", status: 69, says: "photos-fixture.invalid"),
        // Far more values than a page holds is refused before decoding (a page of 500 holds
        // tens of thousands; two million empty objects decoded into gigabytes).
        Row(name: "30 MB array of records", endpoint: "/big", status: 65, says: "far more than a page of photos"),
        Row(name: "2 million empty records", endpoint: "/empties", status: 65, says: "far more than a page of photos"),
        Row(name: "a page a little over its size", endpoint: "/over", status: 0, says: "were left out"),
        Row(name: "duplicated and null records", endpoint: "/dups", status: 0, says: "listed once"),
    ]

    /// 30 MB of well-formed records on one page.
    static let bigPage: [UInt8] = {
        var text = "["
        var index = 1
        while text.utf8.count < 30_000_000 {
            if index > 1 { text += "," }
            text += #"{"albumId":1,"id":\#(index),"title":"record \#(index) of a page far too large","url":"https://via.placeholder.com/600/92c952","thumbnailUrl":"https://via.placeholder.com/150/92c952"}"#
            index += 1
        }
        return Array((text + "]").utf8)
    }()

    /// Two million `{}`: 6 MB that JSONSerialization would make two million objects of.
    static let emptyRecords: [UInt8] = Array(("[" + Array(repeating: "{}", count: 2_000_000).joined(separator: ",") + "]").utf8)

    /// A page of 60 records where 30 were asked for.
    static let overPage: [UInt8] = Array(("[" + (1...60).map { index in
        #"{"albumId":1,"id":\#(index),"title":"record \#(index)","url":"https://via.placeholder.com/600/92c952","thumbnailUrl":"https://via.placeholder.com/150/92c952"}"#
    }.joined(separator: ",") + "]").utf8)

    static let duplicated = Array("""
        [null, {"albumId":1,"id":1,"title":"one","url":"https://via.placeholder.com/600/1","thumbnailUrl":"https://via.placeholder.com/150/1"},
         {"albumId":1,"id":1,"title":"one again","url":"https://via.placeholder.com/600/1","thumbnailUrl":"https://via.placeholder.com/150/1"},
         {"albumId":1,"id":"../../etc","title":"bad id"}, 42,
         {"albumId":1,"id":2,"title":"two","url":"https://via.placeholder.com/600/2","thumbnailUrl":"https://via.placeholder.com/150/2"}]
        """.utf8)

    static let hostileBodies: FixtureRouteHandler = { request in
        switch request.path {
        case "/big/photos": return .bytes(bigPage, contentType: "application/json")
        case "/empties/photos": return .bytes(emptyRecords, contentType: "application/json")
        case "/over/photos": return .bytes(overPage, contentType: "application/json")
        case "/dups/photos": return .bytes(duplicated, contentType: "application/json")
        default: return nil
        }
    }

    @Test(arguments: rows)
    func everyFaultHasItsExitCodeAndOneMessage(row: Row) async throws {
        try await withServer(FixtureServerConfiguration(routes: [Self.hostileBodies])) { server, photos in
            var environment = row.environment
            if !row.endpoint.isEmpty {
                environment["PHOTOS_PLACEHOLDER_API"] = row.endpoint.hasPrefix("/") ? server.url + row.endpoint : row.endpoint
            }
            let started = ContinuousClock.now
            let run = try await photos.run(
                ["list", "--provider", "placeholder", "--per-page", "5", "--no-thumbnails", "--format", "json"],
                environment: environment.mapValues { $0 })
            #expect(run.status == row.status, "\(row.name): \(run.stderr)")
            // Not a measure of speed: a run that hung would take far longer (a stall is 1 s
            // here, retries are few), even on a two-core machine running the whole suite.
            #expect(ContinuousClock.now - started < .seconds(120), "\(row.name) ended in time")
            #expect(!run.stderr.contains("crashed") && !run.stderr.contains("Fatal error"))
            let errors = run.stderr.split(separator: "\n").filter { $0.hasPrefix("photos: error:") }
            if row.status == 0 {
                #expect(errors.isEmpty, "\(run.stderr)")
                #expect(row.says.isEmpty || run.stderr.contains(row.says), "\(row.name): \(run.stderr)")
                #expect(try run.json()["photos"] is [Any])
            } else {
                #expect(errors.count == 1, "one clear message: \(run.stderr)")
                #expect(errors.first?.contains(row.says) == true, "\(row.name): \(run.stderr)")
                #expect(run.stdout.isEmpty)
            }
            #expect(partialFiles(under: photos.cacheFolder).isEmpty)

            // Nothing left that the next run trips over.
            let stats = try await photos.run(["cache", "stats", "--format", "json"])
            #expect(stats.status == 0, "\(stats.stderr)")
            let index = photos.cacheFolder.appendingPathComponent("index.sqlite")
            if FileManager.default.fileExists(atPath: index.path) {
                let queue = try DatabaseQueue(path: index.path)
                let check = try await queue.read { db in try String.fetchOne(db, sql: "PRAGMA integrity_check") }
                try queue.close()
                #expect(check == "ok")
            }
            let again = try await photos.run(["list", "--provider", "placeholder", "--per-page", "5", "--no-thumbnails"])
            #expect(again.status == 0, "the real endpoint works after \(row.name): \(again.stderr)")
        }
    }
}
