import Foundation
import PhotosCore
@_exported import PhotosTestSupport

/// A fake transport: answers with a closure, records every URL, tracks concurrency.
final class FakeHTTP: HTTPFetching, @unchecked Sendable {
    typealias Responder = @Sendable (URLComponents) throws -> HTTPResponse

    private let lock = NSLock()
    private var urls: [String] = []
    private var inFlight = 0
    private var maxInFlightValue = 0
    private let delay: Duration
    private let responder: Responder

    init(delay: Duration = .zero, _ responder: @escaping Responder) {
        self.delay = delay
        self.responder = responder
    }

    var requestedURLs: [String] { lock.withLock { urls } }
    var maxInFlight: Int { lock.withLock { maxInFlightValue } }

    /// The query items of each request, decoded.
    var requestedQueries: [[String: [String]]] {
        requestedURLs.map { url in
            var items: [String: [String]] = [:]
            for item in URLComponents(string: url)?.queryItems ?? [] {
                items[item.name, default: []].append(item.value ?? "")
            }
            return items
        }
    }

    func data(for request: HTTPRequest) async throws -> HTTPResponse {
        lock.withLock {
            urls.append(request.url)
            inFlight += 1
            maxInFlightValue = max(maxInFlightValue, inFlight)
        }
        defer { lock.withLock { inFlight -= 1 } }
        if delay > .zero { try await Task.sleep(for: delay) }
        guard let components = URLComponents(string: request.url) else { throw TransportError.invalidURL }
        return try responder(components)
    }

    func download(_ request: HTTPRequest, to destination: URL) async throws -> HTTPResponse {
        let response = try await data(for: request)
        try response.body.write(to: destination)
        return response
    }

    // MARK: Canned answers

    static func response(_ body: Data, status: Int = 200, headers: [(String, String)] = [], url: String = "https://fake/")
        -> HTTPResponse
    {
        HTTPResponse(status: status, headers: HTTPHeaders(headers), body: body, effectiveURL: url, bytes: body.count)
    }

    static func response(_ text: String, status: Int = 200, headers: [(String, String)] = []) -> HTTPResponse {
        response(Data(text.utf8), status: status, headers: headers)
    }

    /// Flickr from the recorded files: `test-key` only; search `dogs` pages 1-3, recent page 1,
    /// getInfo/getSizes by id (else error 1), other methods error 112.
    static func flickrFixtures(delay: Duration = .zero) -> FakeHTTP {
        FakeHTTP(delay: delay) { components in
            let query = Dictionary(
                (components.queryItems ?? []).map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { first, _ in first })
            func file(_ name: String) throws -> HTTPResponse { response(try FixtureFiles.data("flickr/\(name)")) }
            guard query["api_key"] == "test-key" else { return try file("error-100.json") }
            let page = Int(query["page"] ?? "1") ?? 1
            switch query["method"] {
            case "flickr.photos.search":
                switch query["text"] {
                case "dogs": return try file("search-dogs-page\(page).json")
                case "error105": return try file("error-105.json")
                default: return response(#"{"photos":{"page":1,"pages":0,"perpage":10,"total":0,"photo":[]},"stat":"ok"}"#)
                }
            case "flickr.photos.getRecent":
                return try file("recent-page\(page).json")
            case "flickr.photos.getInfo", "flickr.photos.getSizes":
                let prefix = query["method"] == "flickr.photos.getInfo" ? "getInfo" : "getSizes"
                let id = query["photo_id"] ?? ""
                guard id.allSatisfy(\.isNumber),
                    FileManager.default.fileExists(atPath: FixtureFiles.root.appendingPathComponent("flickr/\(prefix)-\(id).json").path)
                else { return try file("error-1.json") }
                return try file("\(prefix)-\(id).json")
            default:
                return response(#"{"stat":"fail","code":112,"message":"Method not found"}"#)
            }
        }
    }
}

extension PhotosError {
    /// The case name, for concise expectations.
    var kind: String {
        switch self {
        case .usage: return "usage"
        case .badData: return "badData"
        case .unavailable: return "unavailable"
        case .offlineNothingCached: return "offline"
        case .authentication: return "authentication"
        case .notFound: return "notFound"
        case .interrupted: return "interrupted"
        }
    }
}

/// Runs `body` and returns the `PhotosError` it threw (nil when it threw nothing or something else).
func photosError<T>(_ body: () async throws -> T) async -> PhotosError? {
    do {
        _ = try await body()
        return nil
    } catch let error as PhotosError {
        return error
    } catch {
        return nil
    }
}

/// The same moment as `YYYY-MM-DD HH:MM:SS` in UTC.
func utcDate(_ year: Int, _ month: Int, _ day: Int, _ hour: Int, _ minute: Int, _ second: Int) -> Date {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = TimeZone(identifier: "UTC")!
    return calendar.date(from: DateComponents(year: year, month: month, day: day, hour: hour, minute: minute, second: second))!
}
