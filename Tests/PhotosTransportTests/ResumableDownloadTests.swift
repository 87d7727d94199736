import FixtureServerKit
import Foundation
import PhotosCore
import PhotosTestSupport
import Testing

@testable import PhotosTransport

/// `download(_:resuming:)`: a file written in place and continued with Range + If-Range, against
/// the fixture server's ranges over TLS and HTTP/2.
@Suite struct ResumableDownloadTests {
    static let image = FixtureFiles.image("large.jpg")

    /// The server's strong ETag for `path` (what a first download would have recorded).
    static func etag(_ transport: CurlTransport, _ url: String) async throws -> String {
        try #require(try await transport.data(for: HTTPRequest(url: url)).headers["ETag"])
    }

    @Test func aPartialFileIsContinuedWithARange() async throws {
        try await withFixtureServer { server in
            let transport = try CurlTransportTests.transport(for: server, retry: .none)
            let folder = try TemporaryFolder()
            let url = "\(server.url)/images/large.jpg"
            let whole = try Data(contentsOf: Self.image)
            let part = folder.appending("large.jpg.part")
            try whole.prefix(20_000).write(to: part)
            #expect(ExtendedAttribute.set(ExtendedAttribute.resumableDownload, try await Self.etag(transport, url) + "\n" + url, path: part.path))
            server.resetStats()

            let response = try await transport.download(HTTPRequest(url: url), resuming: part)
            #expect(response.status == 206)
            #expect(response.bytes == whole.count - 20_000, "only the rest came")
            #expect(response.headers["Content-Range"] == "bytes 20000-\(whole.count - 1)/\(whole.count)")
            #expect(try Data(contentsOf: part) == whole)
            #expect(server.stats().ranges == 1)
            #expect(try folder.contents() == ["large.jpg.part"], "nothing renamed, nothing beside it")
        }
    }

    @Test func aChangedRepresentationReplacesTheOldBytes() async throws {
        try await withFixtureServer { server in
            let transport = try CurlTransportTests.transport(for: server, retry: .none)
            let folder = try TemporaryFolder()
            let url = "\(server.url)/images/large.jpg"
            let part = folder.appending("large.jpg.part")
            try Data(repeating: 0x41, count: 30_000).write(to: part)
            ExtendedAttribute.set(ExtendedAttribute.resumableDownload, "\"an-old-version\"\n" + url, path: part.path)

            let response = try await transport.download(HTTPRequest(url: url), resuming: part)
            #expect(response.status == 200, "If-Range did not match: the whole new body")
            #expect(try Data(contentsOf: part) == Data(contentsOf: Self.image))
            let recorded = try #require(ExtendedAttribute.get(ExtendedAttribute.resumableDownload, path: part.path))
            #expect(recorded == (try await Self.etag(transport, url)) + "\n" + url, "the new validator is recorded")
        }
    }

    @Test func bytesWithoutAValidatorOrForAnotherURLAreNeverContinued() async throws {
        try await withFixtureServer { server in
            let transport = try CurlTransportTests.transport(for: server, retry: .none)
            let folder = try TemporaryFolder()
            let url = "\(server.url)/images/large.jpg"
            let part = folder.appending("large.jpg.part")
            try Data(repeating: 0x41, count: 30_000).write(to: part)
            ExtendedAttribute.set(ExtendedAttribute.resumableDownload, (try await Self.etag(transport, url)) + "\n" + url + "?other", path: part.path)
            server.resetStats()

            let response = try await transport.download(HTTPRequest(url: url), resuming: part)
            #expect(response.status == 200)
            #expect(server.stats().ranges == 0, "no Range for bytes of another URL")
            #expect(try Data(contentsOf: part) == Data(contentsOf: Self.image))
        }
    }

    @Test func aCutTransferKeepsItsBytesAndTheNextAttemptContinues() async throws {
        try await withFixtureServer { server in
            let transport = try CurlTransportTests.transport(for: server, retry: .none)
            let folder = try TemporaryFolder()
            // Every response stops after 20,000 bytes: three attempts bring the 49,796.
            let url = "\(server.url)/images/large.jpg?reset_after=20000"
            let part = folder.appending("large.jpg.part")
            for attempt in 1...2 {
                await #expect(throws: TransportError.self, "attempt \(attempt) is cut") {
                    _ = try await transport.download(HTTPRequest(url: url), resuming: part)
                }
                #expect(try Data(contentsOf: part).count == 20_000 * attempt, "the bytes received are kept")
            }
            let response = try await transport.download(HTTPRequest(url: url), resuming: part)
            #expect(response.status == 206)
            #expect(try Data(contentsOf: part) == Data(contentsOf: Self.image))
            #expect(server.stats().ranges == 2)
        }
    }

    @Test func retriesContinueFromWhatTheAttemptBeforeLeft() async throws {
        try await withFixtureServer { server in
            var retry = RetryPolicy.quick
            retry.maxAttempts = 3
            let transport = try CurlTransportTests.transport(for: server, retry: retry)
            let folder = try TemporaryFolder()
            let url = "\(server.url)/images/large.jpg?reset_after=20000"
            let part = folder.appending("large.jpg.part")
            let response = try await transport.download(HTTPRequest(url: url), resuming: part)
            #expect(response.status == 206 && response.attempts == 3)
            #expect(try Data(contentsOf: part) == Data(contentsOf: Self.image))
        }
    }

    @Test func anErrorStatusLeavesTheFileAsItWas() async throws {
        try await withFixtureServer { server in
            let transport = try CurlTransportTests.transport(for: server, retry: .none)
            let folder = try TemporaryFolder()
            let part = folder.appending("x.part")
            let response = try await transport.download(HTTPRequest(url: "\(server.url)/images/missing.jpg"), resuming: part)
            #expect(response.status == 404)
            #expect(!FileManager.default.fileExists(atPath: part.path), "no file for an error")
            try Data([1, 2, 3]).write(to: part)
            _ = try await transport.download(HTTPRequest(url: "\(server.url)/images/large.jpg?status=503"), resuming: part)
            #expect(try Data(contentsOf: part) == Data([1, 2, 3]))
        }
    }

    @Test func aLinkIsNeverWrittenThrough() async throws {
        try await withFixtureServer { server in
            let transport = try CurlTransportTests.transport(for: server, retry: .none)
            let folder = try TemporaryFolder()
            let victim = folder.appending("victim")
            try Data("keep".utf8).write(to: victim)
            let part = folder.appending("x.part")
            try FileManager.default.createSymbolicLink(at: part, withDestinationURL: victim)
            await #expect(throws: TransportError.self) {
                _ = try await transport.download(HTTPRequest(url: "\(server.url)/images/large.jpg"), resuming: part)
            }
            #expect(try Data(contentsOf: victim) == Data("keep".utf8))
        }
    }

    @Test func aSecondWriterOfTheSameFileIsRefusedWhileTheFirstRuns() async throws {
        try await withFixtureServer(FixtureServerConfiguration(latencyMilliseconds: 300)) { server in
            let transport = try CurlTransportTests.transport(for: server, retry: .none)
            let folder = try TemporaryFolder()
            let part = folder.appending("large.jpg.part")
            let url = "\(server.url)/images/large.jpg"
            let first = Task { try await transport.download(HTTPRequest(url: url), resuming: part) }
            try await waitUntil { server.stats().requests == 1 }
            do {
                _ = try await transport.download(HTTPRequest(url: url), resuming: part)
                Issue.record("a second download into the same file ran")
            } catch TransportError.fileSystem(let path, let detail) {
                #expect(path == part.standardizedFileURL.path)
                #expect(detail.contains("another download"))
            }
            let response = try await first.value
            #expect(response.status == 200)
            #expect(try Data(contentsOf: part) == Data(contentsOf: Self.image), "the first writer's bytes alone")
            #expect(server.stats().requests == 1, "the refused call asked nothing")
            // Once the first is done, the file is free again: the next call asks for what follows
            // the whole file, and the server says there is nothing.
            let again = try await transport.download(HTTPRequest(url: url), resuming: part)
            #expect(again.status == 416)
            #expect(server.stats().ranges == 1)
        }
    }

    @Test func theServerAnswersRangesAsRFC9110Says() async throws {
        try await withFixtureServer { server in
            let transport = try CurlTransportTests.transport(for: server, retry: .none)
            let url = "\(server.url)/images/large.jpg"
            let whole = try Data(contentsOf: Self.image)
            let etag = try await Self.etag(transport, url)
            let suffix = try await transport.data(for: HTTPRequest(url: url, headers: ["Range": "bytes=-100"]))
            #expect(suffix.status == 206 && suffix.body == whole.suffix(100))
            let middle = try await transport.data(for: HTTPRequest(url: url, headers: ["Range": "bytes=10-19", "If-Range": etag]))
            #expect(middle.status == 206 && middle.body == whole[10..<20])
            let past = try await transport.data(for: HTTPRequest(url: url, headers: ["Range": "bytes=\(whole.count)-"]))
            #expect(past.status == 416 && past.headers["Content-Range"] == "bytes */\(whole.count)")
            let stale = try await transport.data(for: HTTPRequest(url: url, headers: ["Range": "bytes=10-", "If-Range": "\"other\""]))
            #expect(stale.status == 200 && stale.body == whole)
            #expect(ContentRange("bytes 10-19/49796") == ContentRange(first: 10, last: 19, total: 49796))
            #expect(ContentRange("bytes */49796") == ContentRange(first: nil, last: nil, total: 49796))
            #expect(ContentRange("bytes 20-10/49796") == nil && ContentRange("bytes 0-49796/49796") == nil)
        }
    }
}
