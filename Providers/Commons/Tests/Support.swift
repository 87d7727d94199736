import Foundation
import PhotosCore

/// The repository's `Fixtures/commons/` folder, found from this file.
enum CommonsFixtures {
    static let root: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()  // Commons
        .deletingLastPathComponent()  // Providers
        .deletingLastPathComponent()  // repository
        .appendingPathComponent("Fixtures", isDirectory: true)

    static func data(_ name: String) throws -> Data {
        try Data(contentsOf: root.appendingPathComponent("commons").appendingPathComponent(name))
    }

    /// A fixture as a JSON object, to build variations of it.
    static func object(_ name: String) throws -> [String: Any] {
        try JSONSerialization.jsonObject(with: data(name)) as? [String: Any] ?? [:]
    }
}

/// A transport that answers from a closure and records every request's query items.
final class FakeTransport: HTTPFetching, @unchecked Sendable {
    typealias Responder = @Sendable ([String: String]) throws -> HTTPResponse

    private let lock = NSLock()
    private var recorded: [String] = []
    private let responder: Responder

    init(_ responder: @escaping Responder) {
        self.responder = responder
    }

    var urls: [String] { lock.withLock { recorded } }

    /// Each request's query items (first value of each name), decoded.
    var queries: [[String: String]] { urls.map(Self.items) }

    static func items(_ url: String) -> [String: String] {
        var items: [String: String] = [:]
        for item in URLComponents(string: url)?.queryItems ?? [] where items[item.name] == nil {
            items[item.name] = item.value ?? ""
        }
        return items
    }

    func data(for request: HTTPRequest) async throws -> HTTPResponse {
        lock.withLock { recorded.append(request.url) }
        return try responder(Self.items(request.url))
    }

    func download(_ request: HTTPRequest, to destination: URL) async throws -> HTTPResponse {
        let response = try await data(for: request)
        try response.body.write(to: destination)
        return response
    }

    static func answer(_ body: Data, status: Int = 200, headers: [(String, String)] = []) -> HTTPResponse {
        HTTPResponse(status: status, headers: HTTPHeaders(headers), body: body, effectiveURL: "https://fake/", bytes: body.count)
    }

    static func answer(_ text: String, status: Int = 200, headers: [(String, String)] = []) -> HTTPResponse {
        answer(Data(text.utf8), status: status, headers: headers)
    }

    static func answer(json object: Any) throws -> HTTPResponse {
        answer(try JSONSerialization.data(withJSONObject: object))
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
