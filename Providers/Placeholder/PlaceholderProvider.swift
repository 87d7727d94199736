import Foundation
import PhotosCore

/// jsonplaceholder's `/photos` (json-server semantics): paging with `_page`/`_limit` and
/// `X-Total-Count`, full-text `q=`, and the `album` filter (`albumId=`, comma-separated for several).
///
/// Settings: `PHOTOS_PLACEHOLDER_API` (default https://jsonplaceholder.typicode.com).
public struct PlaceholderProvider: RegisteredProvider {
    public static let name = "placeholder"
    public static let defaultBaseURL = "https://jsonplaceholder.typicode.com"
    /// json-server has no limit of its own; photos asks for at most this many at once.
    public static let maxPerPage = 500

    public static let descriptor = ProviderDescriptor(
        name: name,
        summary: "jsonplaceholder sample data (not real photos); --query, --album N",
        homepage: "https://jsonplaceholder.typicode.com",
        settings: [.endpoint("PHOTOS_PLACEHOLDER_API", configKey: "placeholder.api", default: defaultBaseURL, summary: "jsonplaceholder base URL")],
        filters: [ProviderFilter("album", "one album (1 to 100), or several comma-separated", example: "3", aliases: ["albumId"])],
        idSyntax: "placeholder:<n>", idExample: "placeholder:17", maxPerPage: maxPerPage, paging: .pageNumbers,
        isSampleData: true)

    private let http: any HTTPFetching
    /// Base URL without a trailing slash.
    private let base: String

    public init(context: ProviderContext) {
        http = context.http
        var base = context.settings["PHOTOS_PLACEHOLDER_API"]?.trimmingWhitespaceAndNewlines() ?? ""
        if base.isEmpty { base = Self.defaultBaseURL }
        while base.hasSuffix("/") { base.removeLast() }
        self.base = base
    }

    public var cacheScope: String? { Self.cacheScope([(base, Self.defaultBaseURL)]) }

    /// Placeholder ids are 1 to 9 ASCII digits.
    public static func isValidID(_ raw: String) -> Bool {
        (1...9).contains(raw.utf8.count) && raw.utf8.allSatisfy { $0 >= 0x30 && $0 <= 0x39 }
    }

    public func isValidID(_ raw: String) -> Bool { Self.isValidID(raw) }

    public func canonicalID(_ raw: String) -> String? { canonicalNumberID(raw) }

    // MARK: Listing

    public func list(_ query: ListQuery) async throws -> PhotoPage {
        switch try await list(query, revalidating: nil) {
        case .modified(let page, _):
            return page
        case .notModified:
            // Only a conditional request can be answered 304; this one was not conditional.
            throw PhotosError.badData(provider: Self.name, detail: "the /photos response was 304 to an unconditional request")
        }
    }

    /// The albums jsonplaceholder has.
    static let albums = 1...100

    /// json-server sends an `ETag` with every listing: with `validators`, a 304 costs no body.
    public func list(_ query: ListQuery, revalidating validators: HTTPValidators?) async throws -> ListRevalidation {
        let page = max(1, query.page)
        let limit = min(max(1, query.perPage), Self.maxPerPage)
        var items: [(String, String)] = [("_page", String(page)), ("_limit", String(limit))]
        if let text = query.text?.trimmingCharacters(in: .whitespacesAndNewlines), !text.isEmpty {
            items.append(("q", text))
        }
        if let albums = query.filters["album"] ?? query.filters["albumId"] {
            let values = albums.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            guard !values.isEmpty, values.allSatisfy({ Int($0).map(Self.albums.contains) == true }) else {
                throw PhotosError.usage(
                    "album must be an album number from \(Self.albums.lowerBound) to \(Self.albums.upperBound), or several comma-separated, e.g. 3 or 3,7; got '\(albums)'")
            }
            items += values.map { ("albumId", $0) }
        }
        let response = try await get("/photos", query: items, headers: validators?.conditionalHeaders ?? [:])
        if response.status == 304, let validators, !validators.isEmpty {
            let repeated = HTTPValidators(headers: response.headers)
            return .notModified(repeated.isEmpty ? validators : repeated)
        }
        guard response.isSuccess else { throw Self.httpStatus(response.status, advice: response.tryAgainAdvice) }
        let records: [PlaceholderRecord]
        let extra: Int
        let unreadable: Int
        do {
            let decoder = JSONDecoder()
            decoder.userInfo[PlaceholderRecords.limitKey] = limit
            let decoded = try decoder.decode(PlaceholderRecords.self, from: response.body)
            records = decoded.records
            extra = decoded.extra
            unreadable = decoded.unreadable
        } catch {
            throw PhotosError.badData(provider: Self.name, detail: "the /photos response is not a JSON array of photos")
        }
        let photos = records.compactMap(photo(from:))
        let total = response.headers["X-Total-Count"].flatMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        let received = records.count + unreadable
        let hasMore = total.map { page.multipliedSaturating(by: limit) < $0 } ?? (received == limit)
        var listed = PhotoPage(page: page, perPage: limit, total: total, hasMore: hasMore, photos: photos, skippedRecords: received - photos.count)
        listed.extraRecords = extra
        listed.lastPage = total.map { max(1, $0.addingSaturating(limit - 1) / max(1, limit)) }
        return .modified(
            listed,
            HTTPValidators(headers: response.headers))
    }

    func photo(from record: PlaceholderRecord) -> Photo? {
        guard let raw = record.id, Self.isValidID(raw) else { return nil }
        let imageURL = record.url.flatMap(Self.allowed)
        let thumbnailURL = record.thumbnailUrl.flatMap(Self.allowed)
        let size = imageURL.map { Self.edge(of: $0) ?? 600 }
        var sizes: [PhotoSize] = []
        if let thumbnailURL {
            let edge = Self.edge(of: thumbnailURL) ?? 150
            sizes.append(PhotoSize(label: "thumbnail", width: edge, height: edge, url: thumbnailURL))
        }
        if let imageURL {
            sizes.append(PhotoSize(label: "full", width: size, height: size, url: imageURL))
        }
        return Photo(
            id: PhotoID(provider: Self.name, raw: raw),
            title: record.title ?? "",
            thumbnailURL: thumbnailURL,
            imageURL: imageURL,
            width: size,
            height: size,
            pageURL: "\(base)/photos/\(raw)",
            sizes: sizes
        )
    }

    // MARK: Detail

    public func detail(_ id: PhotoID) async throws -> PhotoDetail {
        guard id.provider == Self.name else {
            throw PhotosError.usage("\(id.provider) ids are not placeholder photo ids")
        }
        guard Self.isValidID(id.raw) else {
            throw PhotosError.usage("a placeholder photo id is a number, e.g. placeholder:17")
        }
        let response = try await get("/photos/\(id.raw)", query: [])
        if response.status == 404 { throw PhotosError.notFound(id) }
        guard response.isSuccess else { throw Self.httpStatus(response.status, advice: response.tryAgainAdvice) }
        let record: PlaceholderRecord
        do {
            record = try JSONDecoder().decode(PlaceholderRecord.self, from: response.body)
        } catch {
            throw PhotosError.badData(provider: Self.name, detail: "the /photos/\(id.raw) response is not a photo object")
        }
        // json-server answers `{}` for unknown ids; an empty object is "not found" whatever the status.
        guard let photo = photo(from: record), photo.id == id else {
            if record.id == nil { throw PhotosError.notFound(id) }
            throw PhotosError.badData(provider: Self.name, detail: "the /photos/\(id.raw) response describes another photo")
        }
        var extra: [String: String] = [:]
        if let album = record.albumId { extra["album"] = String(album) }
        return PhotoDetail(photo: photo, sizes: photo.sizes, extra: extra)
    }

    // MARK: Requests

    private func get(_ path: String, query: [(String, String)], headers: [String: String] = [:]) async throws -> HTTPResponse {
        guard URLPolicy.isAllowed(base) else {
            throw PhotosError.usage("PHOTOS_PLACEHOLDER_API (config [placeholder] api) must be an http or https URL" + URLPolicy.refusalDetail(base))
        }
        var url = base + path
        if !query.isEmpty {
            url += "?" + query.map { "\(Self.percentEncode($0.0))=\(Self.percentEncode($0.1))" }.joined(separator: "&")
        }
        return try await http.data(for: HTTPRequest(url: url, headers: headers.merging(["Accept": "application/json"]) { $1 }))
    }

    static func httpStatus(_ status: Int, advice: String = "") -> PhotosError {
        switch status {
        case 429: return .unavailable(provider: name, detail: "jsonplaceholder is rate limiting requests (HTTP 429); try again later")
        default: return .unavailable(provider: name, detail: "jsonplaceholder answered HTTP \(status)\(advice)")
        }
    }

    static func percentEncode(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? ""
    }

    private static let unreserved = CharacterSet(
        charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    static func allowed(_ url: String) -> String? { URLPolicy.isAllowed(url) ? url : nil }

    /// What a placeholder image URL drew (`https://via.placeholder.com/150/92c952`: a 150 px
    /// square of #92c952 labelled `150x150`), so photos can draw it when that host is gone.
    public func syntheticImage(for url: String) -> SyntheticImage? {
        guard let path = URLComponents(string: url)?.path else { return nil }
        let segments = path.split(separator: "/")
        guard segments.count >= 2, let edge = Self.edge(of: url), (1...2000).contains(edge),
            let colour = segments.last, (1...6).contains(colour.count), colour.allSatisfy(\.isHexDigit)
        else { return nil }
        // Three digits are CSS's short form; jsonplaceholder's data also holds colours of 4 and
        // 5 digits (one in nine: 9ea06), read as the number they write (#09ea06).
        let hex = colour.count == 3 ? colour.map { "\($0)\($0)" }.joined() : String(repeating: "0", count: 6 - colour.count) + colour
        guard let rgb = UInt32(hex, radix: 16) else { return nil }
        return SyntheticImage(width: edge, height: edge, rgb: rgb, label: "\(edge)x\(edge)")
    }

    /// The edge length in a placeholder image URL: the first all-digit path segment
    /// (`https://via.placeholder.com/600/92c952` -> 600), if plausible.
    static func edge(of url: String) -> Int? {
        guard let path = URLComponents(string: url)?.path else { return nil }
        for segment in path.split(separator: "/") where (1...5).contains(segment.count) && segment.allSatisfy(\.isASCII) {
            if let value = Int(segment), (1...10_000).contains(value) { return value }
        }
        return nil
    }
}
