import Foundation

/// A request as route handlers see it.
public struct FixtureRequest: Sendable {
    /// `GET`, `HEAD`, `POST`, ...
    public var method: String
    /// Percent-decoded path without the query, e.g. `/services/rest/`.
    public var path: String
    /// Query items in order, percent-decoded (`+` is a space). Repeated names appear repeatedly.
    public var query: [(String, String)]
    /// Request headers in order; HTTP/2 names arrive lower-cased.
    public var headers: [(String, String)]
    /// The request target (path and query) as received, without a `/__faults/…` segment.
    public var target: String
    /// The faults of a `/__faults/…/` path segment, as received (`redirects=3&latency_ms=1`):
    /// a redirect keeps them, so that the next request meets them too.
    public var pathFaults: String?

    public init(
        method: String,
        path: String,
        query: [(String, String)] = [],
        headers: [(String, String)] = [],
        target: String? = nil
    ) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.target = target ?? path
    }

    /// The first value of query item `name`, or nil.
    public func queryValue(_ name: String) -> String? {
        query.first { $0.0 == name }?.1
    }

    /// All values of query item `name`.
    public func queryValues(_ name: String) -> [String] {
        query.filter { $0.0 == name }.map(\.1)
    }

    /// The first value of header `name` (case-insensitive), or nil.
    public func header(_ name: String) -> String? {
        let lowered = name.lowercased()
        return headers.first { $0.0.lowercased() == lowered }?.1
    }

    /// Parses a request target (`/path?a=1&b=2`) into a request.
    public init(method: String, target: String, headers: [(String, String)]) {
        var pathPart = Substring(target)
        var queryPart: Substring = ""
        // Absolute-form targets ("https://host/path") are legal; keep only the path.
        if !pathPart.hasPrefix("/"), let schemeEnd = pathPart.range(of: "://") {
            let afterAuthority = pathPart[schemeEnd.upperBound...]
            pathPart = afterAuthority.firstIndex(of: "/").map { afterAuthority[$0...] } ?? "/"
        }
        if let questionMark = pathPart.firstIndex(of: "?") {
            queryPart = pathPart[pathPart.index(after: questionMark)...]
            pathPart = pathPart[..<questionMark]
        }
        // `/__faults/status=503&retry_after=1/rest...`: faults for every request under an
        // endpoint, so that a client that builds its own query strings (any provider) can be
        // pointed at a failing server: `PHOTOS_PLACEHOLDER_API=$URL/__faults/reset_after=100`.
        var faults: [(String, String)] = []
        var pathFaults: String?
        var target = target
        if pathPart.hasPrefix("/__faults/") {
            let rest = pathPart.dropFirst("/__faults/".count)
            let end = rest.firstIndex(of: "/") ?? rest.endIndex
            faults = Self.parseQuery(rest[..<end])
            pathFaults = String(rest[..<end])
            pathPart = end == rest.endIndex ? "/" : rest[end...]
            target = String(pathPart) + (queryPart.isEmpty ? "" : "?" + queryPart)
        }
        let decodedPath = String(pathPart).removingPercentEncoding ?? String(pathPart)
        self.init(
            method: method,
            path: decodedPath.isEmpty ? "/" : decodedPath,
            query: Self.parseQuery(queryPart) + faults,
            headers: headers,
            target: target
        )
        self.pathFaults = pathFaults
    }

    static func parseQuery(_ query: Substring) -> [(String, String)] {
        query.split(separator: "&", omittingEmptySubsequences: true).map { item in
            let parts = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = decodeQueryComponent(parts[0])
            let value = parts.count > 1 ? decodeQueryComponent(parts[1]) : ""
            return (name, value)
        }
    }

    private static func decodeQueryComponent(_ component: Substring) -> String {
        let spaced = component.replacingOccurrences(of: "+", with: " ")
        return spaced.removingPercentEncoding ?? spaced
    }
}

/// A complete response produced by a route handler. Faults requested by query parameters are
/// applied on top of it by the server.
public struct FixtureResponse: Sendable {
    public var status: Int
    /// Response headers. `content-length` is always set by the server; do not set it here.
    public var headers: [(String, String)]
    public var body: [UInt8]

    public init(status: Int = 200, headers: [(String, String)] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A JSON response from already-encoded JSON text.
    public static func json(_ text: String, status: Int = 200, headers: [(String, String)] = []) -> FixtureResponse {
        FixtureResponse(
            status: status,
            headers: [("content-type", "application/json")] + headers,
            body: Array(text.utf8)
        )
    }

    /// A JSON response encoding `value`; a 500 JSON error if encoding fails.
    public static func json<Value: Encodable>(
        encoding value: Value,
        status: Int = 200,
        headers: [(String, String)] = []
    ) -> FixtureResponse {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(value) else {
            return .error("encoding failed", status: 500)
        }
        return FixtureResponse(
            status: status,
            headers: [("content-type", "application/json")] + headers,
            body: Array(data)
        )
    }

    /// Raw bytes with a content type.
    public static func bytes(_ body: [UInt8], contentType: String, status: Int = 200) -> FixtureResponse {
        FixtureResponse(status: status, headers: [("content-type", contentType)], body: body)
    }

    /// `{"error":"<message>"}` with the given status.
    public static func error(_ message: String, status: Int, headers: [(String, String)] = []) -> FixtureResponse {
        .json("{\"error\":\(jsonQuoted(message))}", status: status, headers: headers)
    }

    /// `404 {"error":"not found"}`.
    public static var notFound: FixtureResponse { .error("not found", status: 404) }
}

/// Server counters. See ``FixtureServer/stats()`` for what each one counts.
public struct FixtureServerStats: Sendable, Codable, Equatable {
    /// TCP connections accepted.
    public var connections: Int
    /// HTTP/2 streams opened by clients (HTTP/1.1 requests are not streams).
    public var streams: Int
    /// Requests received over either protocol, except those to `/__stats`.
    public var requests: Int
    /// GET requests with a `Range` header on a response that could be ranged (a 200).
    public var ranges: Int

    public init(connections: Int = 0, streams: Int = 0, requests: Int = 0, ranges: Int = 0) {
        self.connections = connections
        self.streams = streams
        self.requests = requests
        self.ranges = ranges
    }

    enum CodingKeys: String, CodingKey { case connections, streams, requests, ranges }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            connections: try container.decode(Int.self, forKey: .connections), streams: try container.decode(Int.self, forKey: .streams),
            requests: try container.decode(Int.self, forKey: .requests), ranges: try container.decodeIfPresent(Int.self, forKey: .ranges) ?? 0)
    }

    /// `{"connections":N,"streams":N,"requests":N,"ranges":N}` in exactly this order.
    public var json: String {
        "{\"connections\":\(connections),\"streams\":\(streams),\"requests\":\(requests),\"ranges\":\(ranges)}"
    }
}

/// A JSON string literal for `text`, quotes included.
func jsonQuoted(_ text: String) -> String {
    var out = "\""
    for scalar in text.unicodeScalars {
        switch scalar {
        case "\"": out += "\\\""
        case "\\": out += "\\\\"
        case "\n": out += "\\n"
        case "\r": out += "\\r"
        case "\t": out += "\\t"
        case let s where s.value < 0x20:
            out += String(format: "\\u%04x", s.value)
        default: out.unicodeScalars.append(scalar)
        }
    }
    return out + "\""
}
