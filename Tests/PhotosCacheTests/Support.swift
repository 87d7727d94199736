import FixtureServerKit
import PhotosTestSupport
import Foundation
import PhotosCore
import PhotosTransport
import Synchronization
import Testing

@testable import PhotosCache

/// A clock tests move by hand.
final class TestClock: Sendable {
    private let current = Mutex(Date(timeIntervalSince1970: 1_700_000_000))
    var now: Date { current.withLock { $0 } }
    func advance(_ seconds: TimeInterval) { current.withLock { $0 += seconds } }
    var function: @Sendable () -> Date { { [self] in now } }
}

/// A cache in its own folder with an injected clock.
struct CacheBed {
    let folder: URL
    let clock = TestClock()
    let warnings = Warnings()

    init() throws {
        folder = try temporaryFolder("cache")
    }

    func cache(
        maxBytes: Int64 = 500 * 1024 * 1024, ttl: TimeInterval = 600, recentSearches: Int = 10, fileSystem: any CacheFileSystem = LiveFileSystem(),
        at location: URL? = nil
    ) -> PhotoCache {
        PhotoCache(configuration: CacheConfiguration(
            location: .path(location ?? folder), maxSizeBytes: maxBytes, listingTTL: ttl, recentSearches: recentSearches,
            now: clock.function, fileSystem: fileSystem, warn: warnings.sink))
    }

    func remove() { try? FileManager.default.removeItem(at: folder) }
}

/// A scripted provider: answers pages from a closure and counts calls.
final class FakeProvider: PhotoProvider, Sendable {
    enum Answer: Sendable {
        case page([Photo], validators: HTTPValidators = HTTPValidators())
        case notModified
        case failure(any Error)
    }

    let name: String
    let maxPerPage = 500
    private let script: Mutex<@Sendable (ListQuery, HTTPValidators?) -> Answer>
    private let calls = Mutex<[(ListQuery, HTTPValidators?)]>([])

    init(name: String = "fake", _ answer: @escaping @Sendable (ListQuery, HTTPValidators?) -> Answer) {
        self.name = name
        self.script = Mutex(answer)
    }

    var callCount: Int { calls.withLock { $0.count } }
    var lastValidators: HTTPValidators?? { calls.withLock { $0.last.map { $0.1 } } }

    func answer(with answer: @escaping @Sendable (ListQuery, HTTPValidators?) -> Answer) {
        script.withLock { $0 = answer }
    }

    func list(_ query: ListQuery) async throws -> PhotoPage {
        switch try await list(query, revalidating: nil) {
        case .modified(let page, _): return page
        case .notModified: throw PhotosError.badData(provider: name, detail: "304")
        }
    }

    func list(_ query: ListQuery, revalidating validators: HTTPValidators?) async throws -> ListRevalidation {
        calls.withLock { $0.append((query, validators)) }
        switch script.withLock({ $0 })(query, validators) {
        case .page(let photos, let fresh):
            return .modified(PhotoPage(page: query.page, perPage: query.perPage, total: 100, hasMore: true, photos: photos), fresh)
        case .notModified:
            return .notModified(HTTPValidators())
        case .failure(let error):
            throw error
        }
    }

    func detail(_ id: PhotoID) async throws -> PhotoDetail { PhotoDetail(photo: Photo(id: id, title: "?")) }
    func isValidID(_ raw: String) -> Bool { true }

    static func photos(_ prefix: String, count: Int, imageHost: String = "https://img.example") -> [Photo] {
        (1...max(1, count)).prefix(count).map { index in
            Photo(
                id: PhotoID(provider: "fake", raw: "\(prefix)\(index)"), title: "\(prefix) \(index)",
                thumbnailURL: "\(imageHost)/\(prefix)/\(index)_t.jpg", imageURL: "\(imageHost)/\(prefix)/\(index).jpg",
                tags: ["a", "b"])
        }
    }
}

/// An in-memory transport: serves bytes per URL, counts downloads, writes like the real one
/// (temp file + rename).
final class FakeImages: HTTPFetching, Sendable {
    private let downloads = Mutex<[String: Int]>([:])
    private let delay: Duration
    let size: Int
    /// Bodies that end early (no end marker), as a close-delimited answer cut short does; no
    /// response says a length.
    let cutShort: Bool

    init(size: Int = 1000, delay: Duration = .zero, cutShort: Bool = false) {
        self.size = size
        self.delay = delay
        self.cutShort = cutShort
    }

    func count(_ url: String) -> Int { downloads.withLock { $0[url] ?? 0 } }

    /// `size` bytes that start and end like a JPEG (its end marker, from 6 bytes up): the cache
    /// keeps nothing else as an image, and a body of no said length must end as one.
    static func image(_ size: Int) -> Data {
        let magic: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0], end: [UInt8] = [0xFF, 0xD9]
        guard size >= magic.count + end.count else { return Data(magic.prefix(size)) + Data(repeating: 7, count: max(0, size - magic.count)) }
        return Data(magic) + Data(repeating: 7, count: size - magic.count - end.count) + Data(end)
    }
    var total: Int { downloads.withLock { $0.values.reduce(0, +) } }

    func data(for request: HTTPRequest) async throws -> HTTPResponse {
        throw TransportError.cannotConnect(host: "fake", detail: "no data requests")
    }

    func download(_ request: HTTPRequest, to destination: URL) async throws -> HTTPResponse {
        downloads.withLock { $0[request.url, default: 0] += 1 }
        if delay > .zero { try await Task.sleep(for: delay) }
        let temp = destination.deletingLastPathComponent().appendingPathComponent(".\(destination.lastPathComponent).\(UUID().uuidString).photos-partial")
        try (cutShort ? Self.image(size + 2).dropLast(2) : Self.image(size)).write(to: temp)
        guard rename(temp.path, destination.path) == 0 else {
            throw TransportError.fileSystem(path: destination.path, detail: "rename failed")
        }
        return HTTPResponse(status: 200, effectiveURL: request.url, bytes: size)
    }
}

/// A fixture server with the provider emulation, a transport that trusts it, and settings.
struct ServerBed {
    let server: FixtureServer
    let emulation: FixtureProviderEmulation
    let transport: CurlTransport

    var settings: [String: String] {
        [
            "PHOTOS_FLICKR_API": server.url + "/services/rest/",
            "PHOTOS_FLICKR_STATIC": server.url + "/flickr-static",
            "PHOTOS_PLACEHOLDER_API": server.url,
        ]
    }

    static func start(latencyMilliseconds: Int = 0) async throws -> ServerBed {
        let emulation = FixtureProviderEmulation(fixtures: FixtureFiles.root)
        let server = try await FixtureServer.start(FixtureServerConfiguration(
            fixturesDirectory: FixtureFiles.root, latencyMilliseconds: latencyMilliseconds, routes: [emulation.route]))
        var configuration = TransportConfiguration()
        configuration.caBundlePath = server.caFile
        configuration.retry = .none
        return ServerBed(server: server, emulation: emulation, transport: try CurlTransport(configuration: configuration))
    }
}
