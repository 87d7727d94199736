import Foundation

/// What `Fixtures/<provider>/emulation.json` says: how to point photos at this server for that
/// provider, and, for providers without code of their own here, the routes that emulate its API
/// from the recorded files beside it. A provider ships its emulation as data, so adding one
/// touches nothing in this module.
///
/// ```json
/// {
///   "settings": {"PHOTOS_NASA_API": "{server}/nasa"},
///   "rewrite": {"https://images-assets.nasa.gov": "{server}/nasa-assets"},
///   "routes": [
///     {"path": "/nasa/search", "query": {"q": "~dogs", "page": "1|!"}, "file": "search-dogs-1.json"},
///     {"path": "/nasa/asset/*", "file": "asset-{1}.json"},
///     {"path": "/nasa/asset/*", "status": 404, "body": "{\"reason\": \"No assets found\"}"},
///     {"prefix": "/nasa-assets/", "image": "thumb"}
///   ],
///   "conformance": {"search": "dogs", "per_page": 5, "detail": "nasa:X", "unknown": "nasa:Y"}
/// }
/// ```
///
/// Routes are tried in order and the first that matches answers:
/// - `path` matches the whole path, `*` standing for one segment (captured as `{1}`, `{2}`, ...);
///   `prefix` matches the start of the path. `method` defaults to GET and HEAD.
/// - `query` maps a parameter to a pattern: a value (exact), `*` (present), `!` (absent), `~text`
///   (contains, ignoring case), `!~text` (absent or not containing), or alternatives separated
///   by `|` (`1|!`: 1 or absent). `request_headers` matches request headers the same way:
///   `{"prefix": "/commons", "request_headers": {"user-agent": "!~http"}, "status": 403, ...}`
///   refuses clients that do not say where they come from, as Wikimedia does.
/// - The answer is `file` (relative to the provider's folder; `{1}` and `{q:NAME}` are replaced by
///   captures and query values, which must be plain names; a missing file makes the route not
///   match), or `body`, or `image` (`thumb`: a distinct small JPEG per path; else a file in
///   Fixtures/images). `status` defaults to 200 and `headers` are added.
/// - `rewrite` replaces the real hosts in served bodies by this server, so images come from here.
/// - `{server}` is the URL the client reached this server by.
/// - `conformance` is read by the provider conformance tests, not by the server.
struct EmulationManifest: Sendable {
    struct Route: Sendable {
        var method: [String]
        var path: [Substring]?
        /// Whether `path` ends with `/` (significant: Openverse's detail path needs it).
        var trailingSlash: Bool
        var prefix: String?
        var query: [(name: String, pattern: String)]
        var requestHeaders: [(name: String, pattern: String)]
        var file: String?
        var body: String?
        var image: String?
        var status: Int
        var headers: [(String, String)]
    }

    /// The provider's folder name under Fixtures/.
    var name: String
    var settings: [(String, String)]
    var rewrite: [(String, String)]
    var routes: [Route]

    enum LoadError: Error, CustomStringConvertible {
        case invalid(String, String)
        var description: String {
            switch self {
            case .invalid(let file, let reason): return "\(file): \(reason)"
            }
        }
    }

    /// Every `Fixtures/*/emulation.json`, in folder-name order.
    static func loadAll(fixtures: URL) -> [EmulationManifest] {
        let folders = (try? FileManager.default.contentsOfDirectory(atPath: fixtures.path)) ?? []
        return folders.sorted().compactMap { folder in
            let file = fixtures.appendingPathComponent(folder).appendingPathComponent("emulation.json")
            guard let data = try? Data(contentsOf: file) else { return nil }
            do {
                return try EmulationManifest(name: folder, data: data)
            } catch {
                FileHandle.standardError.write(Data("photos-fixture-server: ignoring \(folder)/emulation.json: \(error)\n".utf8))
                return nil
            }
        }
    }

    init(name: String, data: Data) throws {
        self.name = name
        let file = "\(name)/emulation.json"
        guard let object = try JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw LoadError.invalid(file, "not a JSON object")
        }
        settings = Self.pairs(object["settings"])
        rewrite = Self.pairs(object["rewrite"]).sorted { $0.0.count > $1.0.count }
        var routes: [Route] = []
        for (index, item) in ((object["routes"] as? [Any]) ?? []).enumerated() {
            guard let route = item as? [String: Any] else { throw LoadError.invalid(file, "route \(index) is not an object") }
            let method = (route["method"] as? String).map { [$0.uppercased()] } ?? ["GET", "HEAD"]
            let path = (route["path"] as? String).map { $0.split(separator: "/", omittingEmptySubsequences: true) }
            let prefix = route["prefix"] as? String
            guard path != nil || prefix != nil else { throw LoadError.invalid(file, "route \(index) has neither path nor prefix") }
            let query = Self.pairs(route["query"]).map { (name: $0.0, pattern: $0.1) }
            let answer = (file: route["file"] as? String, body: route["body"] as? String, image: route["image"] as? String)
            guard answer.file != nil || answer.body != nil || answer.image != nil || route["status"] != nil else {
                throw LoadError.invalid(file, "route \(index) has no file, body, image or status")
            }
            routes.append(
                Route(
                    method: method, path: path, trailingSlash: (route["path"] as? String)?.hasSuffix("/") ?? false,
                    prefix: prefix, query: query,
                    requestHeaders: Self.pairs(route["request_headers"]).map { (name: $0.0.lowercased(), pattern: $0.1) },
                    file: answer.file, body: answer.body,
                    image: answer.image, status: (route["status"] as? Int) ?? 200, headers: Self.pairs(route["headers"])))
        }
        self.routes = routes
    }

    /// A JSON object of strings as ordered pairs (sorted by key: JSONSerialization keeps no order).
    private static func pairs(_ value: Any?) -> [(String, String)] {
        guard let object = value as? [String: Any] else { return [] }
        return object.keys.sorted().compactMap { key in
            if let text = object[key] as? String { return (key, text) }
            if let number = object[key] as? NSNumber { return (key, number.stringValue) }
            return nil
        }
    }

    /// The settings that point photos at a server reached as `server`.
    func settings(server: String) -> [(String, String)] {
        settings.map { ($0.0, $0.1.replacingOccurrences(of: "{server}", with: server)) }
    }

    /// Replaces the real hosts in `text` by this server (plain and JSON-escaped `\/` forms).
    func rewriting(_ text: String, server: String) -> String {
        var text = text
        for (from, to) in rewrite {
            let target = to.replacingOccurrences(of: "{server}", with: server)
            text = text.replacingOccurrences(of: from, with: target)
            text = text.replacingOccurrences(
                of: from.replacingOccurrences(of: "/", with: #"\/"#), with: target.replacingOccurrences(of: "/", with: #"\/"#))
        }
        return text
    }
}

extension EmulationManifest.Route {
    /// The captured `*` segments when this route matches `request`; nil otherwise.
    func captures(_ request: FixtureRequest) -> [String]? {
        guard method.contains(request.method.uppercased()) else { return nil }
        var captures: [String] = []
        if let path {
            let segments = request.path.split(separator: "/", omittingEmptySubsequences: true)
            guard segments.count == path.count else { return nil }
            for (pattern, segment) in zip(path, segments) {
                if pattern == "*" {
                    captures.append(String(segment))
                } else if pattern != segment {
                    return nil
                }
            }
            if !path.isEmpty, request.path.hasSuffix("/") != trailingSlash { return nil }
        }
        if let prefix, !request.path.hasPrefix(prefix) { return nil }
        for (name, pattern) in query where !Self.matches(request.queryValues(name), pattern) { return nil }
        for (name, pattern) in requestHeaders {
            let values = request.headers.filter { $0.0.lowercased() == name }.map(\.1)
            guard Self.matches(values, pattern) else { return nil }
        }
        return captures
    }

    static func matches(_ values: [String], _ pattern: String) -> Bool {
        pattern.split(separator: "|", omittingEmptySubsequences: false).contains { alternative in
            switch alternative {
            case "!": return values.isEmpty
            case "*": return !values.isEmpty
            default:
                if alternative.hasPrefix("!~") {
                    let needle = alternative.dropFirst(2).lowercased()
                    return !values.contains { $0.lowercased().contains(needle) }
                }
                if alternative.hasPrefix("~") {
                    let needle = alternative.dropFirst().lowercased()
                    return values.contains { $0.lowercased().contains(needle) }
                }
                return values.contains { $0 == alternative }
            }
        }
    }
}
