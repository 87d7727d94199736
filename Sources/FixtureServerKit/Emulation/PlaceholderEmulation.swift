import Foundation

/// jsonplaceholder (json-server 0.16 semantics) at `/photos`, `/photos/<N>` and
/// `/albums/<N>/photos`, and its image host at `/placeholder-img/` (see ``FixtureProviderEmulation``).
extension FixtureProviderEmulation {
    // MARK: jsonplaceholder

    struct PlaceholderPhoto: Decodable {
        var albumId: Int
        var id: Int
        var title: String
        var url: String
        var thumbnailUrl: String

        func json(imageBase: String, indent: String) -> String {
            func rewrite(_ url: String) -> String {
                url.replacingOccurrences(of: "https://via.placeholder.com", with: imageBase)
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

    func placeholderRecords() -> [PlaceholderPhoto]? {
        if let cached = placeholderPhotos.withLock({ $0 }) { return cached }
        guard let bytes = fixture("placeholder/photos.json"),
            let records = try? JSONDecoder().decode([PlaceholderPhoto].self, from: Data(bytes))
        else { return nil }
        placeholderPhotos.withLock { $0 = records }
        return records
    }

    func placeholder(_ request: FixtureRequest) -> FixtureResponse? {
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
            return .json(record.json(imageBase: placeholderImageBase ?? base + "/placeholder-img", indent: ""), headers: cors)
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
            // Pages and limits come from the client: huge ones select nothing, never overflow.
            let start = min((page - 1).multipliedReportingOverflow(by: limit).overflow ? total : (page - 1) * limit, total)
            let end = min(page.multipliedReportingOverflow(by: limit).overflow ? total : page * limit, total)
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
        let body = selected.isEmpty ? "[]" : "[\n" + selected.map { $0.json(imageBase: placeholderImageBase ?? base + "/placeholder-img", indent: "  ") }.joined(separator: ",\n") + "\n]"
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
    static func target(_ request: FixtureRequest, page: Int) -> String {
        let parts = request.target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        let path = parts.first.map(String.init) ?? request.path
        let items = parts.count > 1 ? parts[1].split(separator: "&").map(String.init) : []
        let rewritten = items.map { $0.hasPrefix("_page=") ? "_page=\(page)" : $0 }
        return rewritten.isEmpty ? path : path + "?" + rewritten.joined(separator: "&")
    }

    /// `/placeholder-img/<size>/<colour>`: like via.placeholder.com, one picture per size and colour.
    func placeholderImage(_ path: String) -> FixtureResponse {
        let parts = path.split(separator: "/", omittingEmptySubsequences: true)
        guard parts.count == 3, let size = Int(parts[1]), (1...5000).contains(size),
            (1...6).contains(parts[2].count), parts[2].allSatisfy({ $0.isASCII && $0.isHexDigit }),
            let colour = Int(parts[2], radix: 16)
        else { return .notFound }
        return size <= 200 ? thumbnail(number: colour % 100_000) : image("sample.jpg")
    }
}
