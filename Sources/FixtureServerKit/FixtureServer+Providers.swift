import Foundation

/// Emulates the provider APIs photos talks to, from the recorded-format files in `Fixtures/`:
///
/// - Flickr REST at `/services/rest/` (`Fixtures/flickr/*.json`): `api_key` must be
///   ``validFlickrAPIKey`` (anything else: error 100); `flickr.photos.search` with text `dogs`
///   serves `search-dogs-page<N>.json` (3 pages), text `error105` error 105, other text an empty
///   result; `flickr.photos.getRecent` serves `recent-page1.json`; `flickr.photos.getInfo` and
///   `flickr.photos.getSizes` serve `getInfo-<id>.json` / `getSizes-<id>.json` (unknown id:
///   error 1); other methods error 112. Without `nojsoncallback=1` the body is wrapped in
///   `jsonFlickrApi(...)`, as Flickr does.
/// - jsonplaceholder (json-server 0.16 semantics) at `/photos`, `/photos/<N>` and
///   `/albums/<N>/photos` from `Fixtures/placeholder/photos.json`: `_page`, `_limit` (default 10),
///   `_start`/`_end`, `_sort`/`_order`, `q` (case-insensitive substring over every field),
///   `albumId`/`id` filters (repeat to OR), `X-Total-Count` and `Link` headers; unknown id: 404 `{}`.
///   Listings carry a weak `ETag` derived from the body (as json-server's Express does) and a
///   matching `If-None-Match` gets a bodiless 304 (counted in ``notModifiedResponses``).
/// - Images: `/flickr-static/<server>/<id>_<secret>[_<suffix>].jpg` and
///   `/placeholder-img/<size>/<colour>`, from `Fixtures/images` (small sizes get a distinct
///   thumbnail per photo, synthesized from `thumb.jpg`).
///
/// The recorded files point at the real image hosts; when serving, `https://live.staticflickr.com`
/// becomes `<this server>/flickr-static` and `https://via.placeholder.com` becomes
/// `<this server>/placeholder-img` (the server's own URL comes from the request's Host/:authority).
public final class FixtureProviderEmulation: Sendable {
    /// The only API key the Flickr emulation accepts.
    public static let validFlickrAPIKey = "test-key"
    /// The search text with several pages of results.
    public static let flickrSearchText = "dogs"
    /// The search text that answers Flickr error 105 (service unavailable).
    public static let flickrUnavailableText = "error105"

    public let fixturesDirectory: URL

    private let files = Locked([String: [UInt8]]())
    private let placeholderPhotos = Locked<[PlaceholderPhoto]?>(nil)
    private let requests = Locked([FixtureRequest]())
    private let notModified = Locked(0)

    public init(fixtures: URL = FixtureServerConfiguration.defaultFixturesDirectory) {
        fixturesDirectory = fixtures
    }

    /// A route handler for ``FixtureServer/addRoute(_:)`` or ``FixtureServerConfiguration/routes``.
    public var route: FixtureRouteHandler {
        { [self] request in handle(request) }
    }

    /// Every request this emulation answered, in order.
    public var handledRequests: [FixtureRequest] {
        requests.withLock { $0 }
    }

    /// How many listing requests were answered 304 Not Modified.
    public var notModifiedResponses: Int {
        notModified.withLock { $0 }
    }

    /// The answer for the provider and image paths; nil for every other path.
    public func handle(_ request: FixtureRequest) -> FixtureResponse? {
        let path = request.path
        let response: FixtureResponse?
        if path == "/services/rest/" || path == "/services/rest" {
            response = flickr(request)
        } else if path == "/photos" || path == "/photos/" || path.hasPrefix("/photos/") || path.hasPrefix("/albums/") {
            response = placeholder(request)
        } else if path.hasPrefix("/flickr-static/") {
            response = flickrStatic(path)
        } else if path.hasPrefix("/placeholder-img/") {
            response = placeholderImage(path)
        } else {
            response = nil
        }
        if response != nil {
            requests.withLock { $0.append(request) }
        }
        return response
    }

    // MARK: Flickr REST

    private func flickr(_ request: FixtureRequest) -> FixtureResponse {
        guard request.method == "GET" || request.method == "HEAD" || request.method == "POST" else {
            return .error("method not allowed", status: 405, headers: [("allow", "GET, HEAD, POST")])
        }
        let format = request.queryValue("format") ?? "rest"
        guard format == "json" else {
            let xml = "<?xml version=\"1.0\" encoding=\"utf-8\" ?>\n<rsp stat=\"fail\">\n\t<err code=\"111\" "
                + "msg=\"Format not found\" />\n</rsp>\n"
            return .bytes(Array(xml.utf8), contentType: "text/xml; charset=utf-8")
        }
        let wrap = request.queryValue("nojsoncallback") != "1"
        let base = baseURL(request)

        func answer(_ text: String) -> FixtureResponse {
            let rewritten = rewriteFlickr(text, base: base)
            let body = wrap ? "jsonFlickrApi(\(rewritten))" : rewritten
            return FixtureResponse(
                status: 200,
                headers: [("content-type", wrap ? "text/javascript; charset=utf-8" : "application/json; charset=utf-8")],
                body: Array(body.utf8)
            )
        }
        func file(_ name: String) -> FixtureResponse {
            guard let bytes = fixture("flickr/\(name)") else {
                return .error("fixture flickr/\(name) is missing", status: 500)
            }
            return answer(String(decoding: bytes, as: UTF8.self))
        }

        guard request.queryValue("api_key") == Self.validFlickrAPIKey else {
            return file("error-100.json")
        }
        let method = request.queryValue("method") ?? ""
        let page = request.queryValue("page").flatMap { Int($0) }.map { max(1, $0) } ?? 1
        let perPage = request.queryValue("per_page").flatMap { Int($0) }.map { min(max(1, $0), 500) } ?? 100
        switch method {
        case "flickr.photos.search":
            let text = (request.queryValue("text") ?? "").trimmingCharacters(in: .whitespaces).lowercased()
            let tags = (request.queryValue("tags") ?? "").trimmingCharacters(in: .whitespaces).lowercased()
            if text.isEmpty, tags.isEmpty, (request.queryValue("user_id") ?? "").isEmpty {
                return answer(
                    #"{"stat":"fail","code":3,"message":"Parameterless searches have been disabled. Please use flickr.photos.getRecent instead."}"#
                )
            }
            if text == Self.flickrUnavailableText {
                return file("error-105.json")
            }
            if text == Self.flickrSearchText || (text.isEmpty && tags == Self.flickrSearchText) {
                if page <= 3 {
                    return file("search-dogs-page\(page).json")
                }
                return answer(#"{"photos":{"page":\#(page),"pages":3,"perpage":10,"total":28,"photo":[]},"stat":"ok"}"#)
            }
            return answer(#"{"photos":{"page":\#(page),"pages":0,"perpage":\#(perPage),"total":0,"photo":[]},"stat":"ok"}"#)
        case "flickr.photos.getRecent":
            if page == 1 {
                return file("recent-page1.json")
            }
            return answer(#"{"photos":{"page":\#(page),"pages":100,"perpage":10,"total":1000,"photo":[]},"stat":"ok"}"#)
        case "flickr.photos.getInfo", "flickr.photos.getSizes":
            let id = request.queryValue("photo_id") ?? ""
            let prefix = method == "flickr.photos.getInfo" ? "getInfo" : "getSizes"
            guard (1...20).contains(id.count), id.allSatisfy({ $0.isASCII && $0.isNumber }),
                fixture("flickr/\(prefix)-\(id).json") != nil
            else {
                return file("error-1.json")
            }
            return file("\(prefix)-\(id).json")
        default:
            return answer("{\"stat\":\"fail\",\"code\":112,\"message\":\(jsonQuoted("Method \"\(method)\" not found"))}")
        }
    }

    private func rewriteFlickr(_ text: String, base: String) -> String {
        let own = base + "/flickr-static"
        return text
            .replacingOccurrences(of: "https://live.staticflickr.com", with: own)
            .replacingOccurrences(of: #"https:\/\/live.staticflickr.com"#, with: own.replacingOccurrences(of: "/", with: #"\/"#))
    }

    // MARK: jsonplaceholder

    struct PlaceholderPhoto: Decodable {
        var albumId: Int
        var id: Int
        var title: String
        var url: String
        var thumbnailUrl: String

        func json(base: String, indent: String) -> String {
            func rewrite(_ url: String) -> String {
                url.replacingOccurrences(of: "https://via.placeholder.com", with: base + "/placeholder-img")
            }
            let inner = indent + "  "
            return "\(indent){\n"
                + "\(inner)\"albumId\": \(albumId),\n"
                + "\(inner)\"id\": \(id),\n"
                + "\(inner)\"title\": \(jsonQuoted(title)),\n"
                + "\(inner)\"url\": \(jsonQuoted(rewrite(url))),\n"
                + "\(inner)\"thumbnailUrl\": \(jsonQuoted(rewrite(thumbnailUrl)))\n"
                + "\(indent)}"
        }

        /// json-server's `q`: a case-insensitive substring of any field.
        func matches(_ lowered: String) -> Bool {
            [String(albumId), String(id), title, url, thumbnailUrl].contains { $0.lowercased().contains(lowered) }
        }

        func field(_ name: String) -> String? {
            switch name {
            case "albumId": return String(albumId)
            case "id": return String(id)
            case "title": return title
            case "url": return url
            case "thumbnailUrl": return thumbnailUrl
            default: return nil
            }
        }
    }

    private func placeholderRecords() -> [PlaceholderPhoto]? {
        if let cached = placeholderPhotos.withLock({ $0 }) { return cached }
        guard let bytes = fixture("placeholder/photos.json"),
            let records = try? JSONDecoder().decode([PlaceholderPhoto].self, from: Data(bytes))
        else { return nil }
        placeholderPhotos.withLock { $0 = records }
        return records
    }

    private func placeholder(_ request: FixtureRequest) -> FixtureResponse? {
        let parts = request.path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        var albumFromPath: String?
        var single: String?
        switch parts.count {
        case 1 where parts[0] == "photos":
            break
        case 2 where parts[0] == "photos":
            single = parts[1]
        case 3 where parts[0] == "albums" && parts[2] == "photos":
            albumFromPath = parts[1]
        default:
            return parts.first == "albums" ? nil : .json("{}", status: 404)
        }
        guard request.method == "GET" || request.method == "HEAD" else {
            return .error("method not allowed", status: 405, headers: [("allow", "GET, HEAD")])
        }
        guard let records = placeholderRecords() else {
            return .error("fixture placeholder/photos.json is missing or unreadable", status: 500)
        }
        let base = baseURL(request)
        let cors: [(String, String)] = [("access-control-allow-origin", "*"), ("cache-control", "max-age=43200")]

        if let single {
            guard let record = records.first(where: { String($0.id) == single }) else {
                return .json("{}", status: 404, headers: cors)
            }
            return .json(record.json(base: base, indent: ""), headers: cors)
        }

        var selected = records
        var filters: [String: [String]] = [:]
        for (name, value) in request.query where name == "albumId" || name == "id" || name == "title" {
            filters[name, default: []].append(value)
        }
        if let albumFromPath { filters["albumId", default: []].append(albumFromPath) }
        for (name, values) in filters {
            selected = selected.filter { record in values.contains { $0 == record.field(name) } }
        }
        if let q = request.queryValue("q"), !q.isEmpty {
            let lowered = q.lowercased()
            selected = selected.filter { $0.matches(lowered) }
        }
        if let sort = request.queryValue("_sort"), ["id", "albumId", "title", "url", "thumbnailUrl"].contains(sort) {
            let descending = request.queryValue("_order")?.lowercased() == "desc"
            selected.sort { lhs, rhs in
                switch sort {
                case "id": return lhs.id < rhs.id
                case "albumId": return lhs.albumId == rhs.albumId ? lhs.id < rhs.id : lhs.albumId < rhs.albumId
                default: return (lhs.field(sort) ?? "", lhs.id) < (rhs.field(sort) ?? "", rhs.id)
                }
            }
            if descending { selected.reverse() }
        }

        var headers = cors
        let total = selected.count
        let pageText = request.queryValue("_page")
        let limitText = request.queryValue("_limit")
        let startText = request.queryValue("_start")
        let endText = request.queryValue("_end")
        if let pageText {
            let page = max(1, Int(pageText) ?? 1)
            let limit = Int(limitText ?? "").flatMap { $0 > 0 ? $0 : nil } ?? 10
            let start = min((page - 1) * limit, total)
            let end = min(page * limit, total)
            let items = Array(selected[start..<end])
            if !items.isEmpty, items.count != total {
                let last = (total + limit - 1) / limit
                var links: [String] = []
                func link(_ target: Int, _ rel: String) {
                    links.append("<\(base)\(Self.target(request, page: target))>; rel=\"\(rel)\"")
                }
                link(1, "first")
                if page > 1 { link(page - 1, "prev") }
                if end < total { link(page + 1, "next") }
                link(last, "last")
                headers.append(("link", links.joined(separator: ", ")))
            }
            headers.append(("x-total-count", String(total)))
            headers.append(("access-control-expose-headers", "X-Total-Count, Link"))
            selected = items
        } else if startText != nil || endText != nil || limitText != nil {
            let start = min(max(0, Int(startText ?? "") ?? 0), total)
            var end = total
            if let endText, let value = Int(endText) {
                end = value
            } else if let limitText, let value = Int(limitText) {
                end = start + value
            }
            end = min(max(start, end), total)
            selected = Array(selected[start..<end])
            headers.append(("x-total-count", String(total)))
            headers.append(("access-control-expose-headers", "X-Total-Count"))
        }
        let body = selected.isEmpty ? "[]" : "[\n" + selected.map { $0.json(base: base, indent: "  ") }.joined(separator: ",\n") + "\n]"
        let etag = Self.weakETag(Array(body.utf8))
        headers.append(("etag", etag))
        if let ifNoneMatch = request.header("if-none-match"), FixtureServerCore.etagMatches(ifNoneMatch, etag.replacingOccurrences(of: "W/", with: "")) {
            notModified.withLock { $0 += 1 }
            return FixtureResponse(status: 304, headers: headers.filter { $0.0 != "content-type" })
        }
        return .json(body, headers: headers)
    }

    /// `W/"<length hex>-<FNV-1a 64 hex>"`: changes whenever the body does, like Express's ETag.
    static func weakETag(_ body: [UInt8]) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in body {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        return "W/\"\(String(body.count, radix: 16))-\(String(hash, radix: 16))\""
    }

    /// The request target with `_page` set to `page` (other items as received).
    private static func target(_ request: FixtureRequest, page: Int) -> String {
        let parts = request.target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        let path = parts.first.map(String.init) ?? request.path
        let items = parts.count > 1 ? parts[1].split(separator: "&").map(String.init) : []
        let rewritten = items.map { $0.hasPrefix("_page=") ? "_page=\(page)" : $0 }
        return rewritten.isEmpty ? path : path + "?" + rewritten.joined(separator: "&")
    }

    // MARK: Images

    /// `/flickr-static/<server>/<id>_<secret>[_<suffix>].<jpg|png|gif>`.
    private func flickrStatic(_ path: String) -> FixtureResponse {
        let parts = path.split(separator: "/", omittingEmptySubsequences: true)
        guard parts.count == 3, parts[1].allSatisfy({ $0.isASCII && $0.isNumber }) else { return .notFound }
        let name = parts[2]
        guard let dot = name.lastIndex(of: "."), ["jpg", "png", "gif"].contains(name[name.index(after: dot)...]) else {
            return .notFound
        }
        let pieces = name[..<dot].split(separator: "_", omittingEmptySubsequences: false)
        guard (2...3).contains(pieces.count),
            let id = pieces.first, (1...20).contains(id.count), id.allSatisfy({ $0.isASCII && $0.isNumber }),
            !pieces[1].isEmpty, pieces[1].allSatisfy({ $0.isASCII && $0.isHexDigit })
        else { return .notFound }
        let suffix = pieces.count == 3 ? String(pieces[2]) : ""
        switch suffix {
        case "s", "q", "t", "sq":
            return thumbnail(number: Int(id.suffix(5)) ?? 0)
        case "", "m", "n", "w", "z", "c":
            return image("sample.jpg")
        case "b", "l", "h", "k", "o", "f", "3k", "4k", "5k", "6k":
            return image("large.jpg")
        default:
            return .notFound
        }
    }

    /// `/placeholder-img/<size>/<colour>`: like via.placeholder.com, one picture per size and colour.
    private func placeholderImage(_ path: String) -> FixtureResponse {
        let parts = path.split(separator: "/", omittingEmptySubsequences: true)
        guard parts.count == 3, let size = Int(parts[1]), (1...5000).contains(size),
            (1...6).contains(parts[2].count), parts[2].allSatisfy({ $0.isASCII && $0.isHexDigit }),
            let colour = Int(parts[2], radix: 16)
        else { return .notFound }
        return size <= 200 ? thumbnail(number: colour % 100_000) : image("sample.jpg")
    }

    private func thumbnail(number: Int) -> FixtureResponse {
        guard let base = fixture("images/thumb.jpg"), base.count > 4 else {
            return .error("fixture images/thumb.jpg is missing", status: 500)
        }
        return .bytes(ThumbnailSynthesizer.jpeg(number: number, base: base), contentType: "image/jpeg")
    }

    private func image(_ name: String) -> FixtureResponse {
        guard let bytes = fixture("images/\(name)") else { return .error("fixture images/\(name) is missing", status: 500) }
        return .bytes(bytes, contentType: "image/jpeg")
    }

    // MARK: Helpers

    /// A fixture file's bytes (read once), or nil when it does not exist.
    private func fixture(_ relativePath: String) -> [UInt8]? {
        if let cached = files.withLock({ $0[relativePath] }) { return cached }
        let url = fixturesDirectory.appendingPathComponent(relativePath)
        guard let data = try? Data(contentsOf: url) else { return nil }
        let bytes = [UInt8](data)
        files.withLock { $0[relativePath] = bytes }
        return bytes
    }

    /// `https://<Host or :authority>`, the URL clients reached this server by.
    private func baseURL(_ request: FixtureRequest) -> String {
        let host = request.header("host") ?? request.header(":authority") ?? ""
        let safe = !host.isEmpty && host.count <= 255
            && host.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || ".-:[]".contains($0)) }
        return "https://" + (safe ? host : "127.0.0.1")
    }
}

extension FixtureServer {
    /// A route handler emulating Flickr REST, jsonplaceholder and their image hosts from the
    /// files under `fixtures` (see ``FixtureProviderEmulation``).
    public static func providerRoutes(
        fixtures: URL = FixtureServerConfiguration.defaultFixturesDirectory
    ) -> FixtureRouteHandler {
        FixtureProviderEmulation(fixtures: fixtures).route
    }
}

extension FixtureServerConfiguration {
    /// Adds the Flickr and jsonplaceholder emulation for this configuration's fixtures directory.
    public mutating func addProviderRoutes() {
        addRoute(FixtureServer.providerRoutes(fixtures: fixturesDirectory))
    }
}
