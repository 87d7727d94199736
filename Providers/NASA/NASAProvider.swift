import Foundation
import PhotosCore

/// The NASA Image and Video Library (images-api.nasa.gov), no key: image search
/// (`/search?q=&media_type=image`), and a detail from `/search?nasa_id=` with its sizes from the
/// asset list (`/asset/{nasa_id}`: `~orig`, `~large`, `~medium`, `~small`, `~thumb`).
///
/// The API has no feed: a search needs `q` or another keyword. Without `--query` (and without a
/// keyword filter) photos searches for ``defaultQuery``. Searches reach 10000 results at most.
/// Asset links often come as `http://images-assets.nasa.gov/...`: they are upgraded to https;
/// plain http to any other host is dropped.
///
/// Settings: `PHOTOS_NASA_API` (default https://images-api.nasa.gov).
public struct NASAProvider: RegisteredProvider {
    public static let name = "nasa"
    public static let defaultEndpoint = "https://images-api.nasa.gov"
    /// What a listing without `--query` searches for.
    public static let defaultQuery = "apollo"
    /// What photos asks for in one request (the API's own default page size).
    public static let maxPerPage = 100
    /// The library serves the first 10000 results of a search.
    public static let searchWindow = 10_000
    /// The asset host, whose http links are upgraded to https.
    static let assetHost = "images-assets.nasa.gov"
    /// Filters that make a search without `q` (the API's "other keywords").
    static let keywordFilters: Set<String> = ["center", "photographer", "keywords", "location"]

    public static let descriptor = ProviderDescriptor(
        name: name,
        summary: "NASA Image and Video Library: search (--query), by default \(defaultQuery)",
        homepage: "https://images.nasa.gov",
        settings: [.endpoint("PHOTOS_NASA_API", configKey: "nasa.api", default: defaultEndpoint, summary: "NASA Image and Video Library API")],
        filters: [
            ProviderFilter("center", "the NASA center that published it (JPL, GSFC, JSC, KSC, MSFC, ARC, ...)", example: "JPL"),
            ProviderFilter("year_start", "created in or after this year (YYYY)", example: "1969"),
            ProviderFilter("year_end", "created in or before this year (YYYY)", example: "1972"),
            ProviderFilter("photographer", "the photographer's name", example: "Ingalls"),
            ProviderFilter("keywords", "keywords, comma-separated", example: "moon,apollo"),
            ProviderFilter("location", "where it was taken", example: "Houston"),
        ],
        idSyntax: "nasa:<nasa_id>", idExample: "nasa:as11-40-5874", maxPerPage: maxPerPage, paging: .pageNumbers)

    private let http: any HTTPFetching
    /// Base URL without a trailing slash.
    private let base: String

    public init(context: ProviderContext) {
        http = context.http
        var base = context.settings["PHOTOS_NASA_API"]?.trimmingWhitespaceAndNewlines() ?? ""
        if base.isEmpty { base = Self.defaultEndpoint }
        while base.hasSuffix("/") { base.removeLast() }
        self.base = base
    }

    // MARK: IDs

    /// NASA ids are 1 to 100 ASCII letters, digits, spaces and `-_.,()'+`, not starting or
    /// ending with a space or a dot and without `..` (they go into a URL path, encoded).
    public static func isValidID(_ raw: String) -> Bool {
        let allowed = Set("-_.,()'+ ".utf8)
        let bytes = Array(raw.utf8)
        guard (1...100).contains(bytes.count), !raw.contains(".."),
            let first = bytes.first, let last = bytes.last, first != 0x20, first != 0x2E, last != 0x20, last != 0x2E
        else { return false }
        return bytes.allSatisfy { byte in
            (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || allowed.contains(byte)
        }
    }

    public func isValidID(_ raw: String) -> Bool { Self.isValidID(raw) }

    // MARK: Listing

    /// images-assets.nasa.gov, where the library serves its thumbnails and originals, when the
    /// API is the library's own; nil for another endpoint (a mirror, a test server).
    public var imageHost: String? { base == Self.defaultEndpoint ? "https://\(Self.assetHost)/" : nil }

    public var cacheScope: String? { Self.cacheScope([(base, Self.defaultEndpoint)]) }

    public var listingHost: String? { URLPolicy.isAllowed(base) ? base : nil }

    public func list(_ query: ListQuery) async throws -> PhotoPage {
        let page = max(1, query.page)
        let perPage = min(max(1, query.perPage), Self.maxPerPage)
        let offset = (page - 1).multipliedSaturating(by: perPage)
        guard offset < Self.searchWindow else {
            throw PhotosError.usage(
                "the NASA Image and Video Library serves only the first \(Self.searchWindow) results of a search; "
                    + "page \(page) at \(perPage) per page starts past them")
        }
        let filters = try checkedFilters(query.filters)
        var items: [(String, String)] = []
        let text = query.text?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
        if !text.isEmpty {
            items.append(("q", text))
        } else if !filters.contains(where: { Self.keywordFilters.contains($0.0) }) {
            items.append(("q", Self.defaultQuery))
        }
        items += filters
        items += [("media_type", "image"), ("page", String(page)), ("page_size", String(perPage))]

        let response = try await get("/search", items)
        guard response.isSuccess else { throw Self.httpStatus(response) }
        guard let collection = NASACollection(response.body) else {
            throw PhotosError.badData(provider: Self.name, detail: "the /search response is not a collection of items")
        }
        // A photo sent twice stays: the listing keeps it once and says so, as for every provider.
        var unreadable = collection.nonObjects
        let readable = collection.items.compactMap { item -> Photo? in
            guard let photo = photo(from: item) else {
                unreadable += 1
                return nil
            }
            return photo
        }
        let photos = readable.prefix(perPage)
        let more = collection.hasNext ?? collection.totalHits.map { page * perPage < $0 } ?? (collection.items.count >= perPage)
        let hasMore = more && !collection.items.isEmpty && page * perPage < Self.searchWindow
        var result = PhotoPage(
            page: page, perPage: perPage, total: collection.totalHits, hasMore: hasMore, photos: Array(photos), skippedRecords: unreadable)
        result.extraRecords = readable.count - photos.count  // said by the listing
        return result
    }

    /// `--filter` values as API parameters; years must be years.
    private func checkedFilters(_ filters: [String: String]) throws -> [(String, String)] {
        var result: [(String, String)] = []
        for key in filters.keys.sorted() {
            guard let value = filters[key]?.trimmingCharacters(in: .whitespacesAndNewlines), !value.isEmpty else { continue }
            guard Self.descriptor.filter(named: key) != nil else { throw PhotosError.usage("nasa has no filter '\(key)'") }
            if key == "year_start" || key == "year_end" {
                guard value.count == 4, value.allSatisfy({ $0.isASCII && $0.isNumber }) else {
                    throw PhotosError.usage("nasa filter \(key) takes a year, e.g. 1969; got '\(value)'")
                }
            }
            result.append((key, value))
        }
        if let start = filters["year_start"].flatMap({ Int($0) }), let end = filters["year_end"].flatMap({ Int($0) }), start > end {
            throw PhotosError.usage("nasa filter year_start (\(start)) is after year_end (\(end))")
        }
        return result
    }

    /// The unified photo; nil for other media and ids that are not NASA ids.
    func photo(from item: NASAItem) -> Photo? {
        guard let data = item.data, let raw = data.nasaID, Self.isValidID(raw),
            data.mediaType == nil || data.mediaType?.lowercased() == "image"
        else { return nil }
        let images = item.links.filter { $0.render == nil || $0.render == "image" }
        let preview = images.first { $0.rel == "preview" } ?? images.first
        let canonical = images.first { $0.rel == "canonical" }
        return Photo(
            id: PhotoID(provider: Self.name, raw: raw),
            title: data.title ?? "",
            owner: Self.nonEmpty(data.photographer) ?? Self.nonEmpty(data.secondaryCreator) ?? Self.nonEmpty(data.center),
            thumbnailURL: Self.secure(preview?.href),
            imageURL: Self.secure(canonical?.href),
            width: canonical?.width,
            height: canonical?.height,
            pageURL: "https://images.nasa.gov/details/\(Self.percentEncode(raw))",
            takenAt: NASADates.iso(data.dateCreated),
            tags: data.keywords
        )
    }

    // MARK: Detail

    public func detail(_ id: PhotoID) async throws -> PhotoDetail {
        guard id.provider == Self.name else {
            throw PhotosError.usage("\(id.provider) ids are not NASA ids")
        }
        guard Self.isValidID(id.raw) else {
            throw PhotosError.usage("a nasa photo id is a NASA id such as \(Self.descriptor.idExample)")
        }
        // The id is validated, and encoded wherever it goes into the URL.
        async let searched = get("/search", [("nasa_id", id.raw)])
        async let listed = get("/asset/\(Self.percentEncode(id.raw))", [])
        let search = try await searched
        guard search.isSuccess else { throw Self.httpStatus(search) }
        guard let collection = NASACollection(search.body) else {
            throw PhotosError.badData(provider: Self.name, detail: "the /search?nasa_id= response is not a collection of items")
        }
        // `nasa_id=` can match more than the id asked for: only an exact match counts.
        guard let item = collection.items.first(where: { $0.data?.nasaID == id.raw }), var photo = photo(from: item) else {
            throw PhotosError.notFound(id)
        }
        // The asset list only adds sizes: when there is none (404) or what came is no list (a
        // sign-in page), the item's own links serve, as the search answered. A failure that may
        // pass (5xx, 429, the network) is said: a detail made without it would be kept thinner.
        let assets = try await listed
        var hrefs: [String] = []
        if assets.isSuccess {
            hrefs = NASAAssets(assets.body)?.hrefs ?? []
        } else if assets.status != 404 {
            throw Self.httpStatus(assets)
        }
        let sizes = Self.sizes(hrefs.isEmpty ? item.links.map(\.href) : hrefs, links: item.links)
        if let original = sizes.first(where: { $0.label == "original" }) ?? sizes.first {
            photo.imageURL = original.url
            photo.width = original.width ?? photo.width
            photo.height = original.height ?? photo.height
        }
        var extra: [String: String] = [:]
        if let center = Self.nonEmpty(item.data?.center) { extra["center"] = center }
        if let location = Self.nonEmpty(item.data?.location) { extra["location"] = location }
        if let credit = Self.nonEmpty(item.data?.secondaryCreator) { extra["credit"] = credit }
        if let photographer = Self.nonEmpty(item.data?.photographer), photographer != photo.owner { extra["photographer"] = photographer }
        let description = item.data?.description.map(HTMLText.plain).flatMap { $0.isEmpty ? nil : $0 }
        return PhotoDetail(photo: photo, description: description, takenAt: photo.takenAt, tags: photo.tags, sizes: sizes, extra: extra)
    }

    /// The images of an asset list (or of a search item's links), largest first: `~orig` is
    /// "original", `~large` "large" and so on. Dimensions come from the item's links when they
    /// carry them, and only when the original's are known (else the largest could not be told).
    static func sizes(_ hrefs: [String], links: [NASALink]) -> [PhotoSize] {
        let order = ["original", "large", "medium", "small", "thumb", "image"]
        var seen: Set<String> = []
        var sizes: [PhotoSize] = []
        for href in hrefs {
            guard let url = secure(href), seen.insert(url).inserted, let file = fileName(url) else { continue }
            let stem = file.lowercased()
            guard let dot = stem.lastIndex(of: "."), ["jpg", "jpeg", "png", "gif", "webp"].contains(stem[stem.index(after: dot)...]) else {
                continue
            }
            var label = "image"
            if let tilde = stem.lastIndex(of: "~") {
                let name = String(stem[stem.index(after: tilde)..<dot])
                label = name == "orig" ? "original" : (order.contains(name) ? name : "image")
            }
            let link = links.first { secure($0.href).flatMap(fileName) == file }
            sizes.append(PhotoSize(label: label, width: link?.width, height: link?.height, url: url))
        }
        sizes.sort { (order.firstIndex(of: $0.label) ?? order.count) < (order.firstIndex(of: $1.label) ?? order.count) }
        if let original = sizes.first, original.width == nil || original.height == nil {
            sizes = sizes.map { PhotoSize(label: $0.label, width: nil, height: nil, url: $0.url) }
        }
        return sizes
    }

    // MARK: Requests

    private func get(_ path: String, _ items: [(String, String)]) async throws -> HTTPResponse {
        guard URLPolicy.isAllowed(base) else {
            throw PhotosError.usage("PHOTOS_NASA_API (config [nasa] api) must be an http or https URL" + URLPolicy.refusalDetail(base))
        }
        var url = base + path
        if !items.isEmpty {
            url += "?" + items.map { "\(Self.percentEncode($0.0))=\(Self.percentEncode($0.1))" }.joined(separator: "&")
        }
        return try await http.data(for: HTTPRequest(url: url, headers: ["Accept": "application/json"]))
    }

    static func httpStatus(_ response: HTTPResponse) -> PhotosError {
        let reason = nasaReason(response.body)
        switch response.status {
        case 400:
            if let reason, reason.lowercased().contains("maximum number of search results") {
                return .usage("the NASA Image and Video Library serves only the first \(searchWindow) results of a search: \(reason)")
            }
            return .usage("NASA refused the search (HTTP 400)\(reason.map { ": \($0)" } ?? "")")
        case 429:
            let wait = response.headers["Retry-After"].flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }
            return .unavailable(
                provider: name, detail: "NASA is rate limiting requests (HTTP 429); try again " + (wait.map { "in \($0) s" } ?? "later"))
        default:
            return .unavailable(provider: name, detail: "NASA answered HTTP \(response.status)\(reason.map { ": \($0)" } ?? "")\(response.tryAgainAdvice)")
        }
    }

    // MARK: Helpers

    /// An https URL to fetch: `http://images-assets.nasa.gov/...` is upgraded, other plain http
    /// and anything that is not a URL as sent (spaces aside, which are encoded) is dropped.
    static func secure(_ href: String?) -> String? {
        guard let href = href?.trimmingCharacters(in: .whitespaces).replacingOccurrences(of: " ", with: "%20"),
            href.unicodeScalars.allSatisfy({ (0x21...0x7E).contains($0.value) }),
            var components = URLComponents(string: href), let scheme = components.scheme?.lowercased(),
            let host = components.host?.lowercased(), !host.isEmpty, components.user == nil, components.password == nil
        else { return nil }
        if scheme == "http" {
            guard host == assetHost else { return nil }
            components.scheme = "https"
        } else if scheme != "https" {
            return nil
        }
        guard let url = components.string, URLPolicy.isAllowed(url) else { return nil }
        return url
    }

    /// The last path segment of `url`, percent-decoded.
    static func fileName(_ url: String) -> String? {
        guard let path = URLComponents(string: url)?.path, let last = path.split(separator: "/").last else { return nil }
        return String(last)
    }

    static func percentEncode(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? ""
    }

    private static let unreserved = CharacterSet(
        charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    static func nonEmpty(_ text: String?) -> String? {
        guard let text, !text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else { return nil }
        return text
    }
}

/// `date_created`: `1969-07-20T00:00:00Z` (sometimes with fractional seconds or without a zone).
enum NASADates {
    private static let utc: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(secondsFromGMT: 0) ?? calendar.timeZone
        return calendar
    }()

    static func iso(_ text: String?) -> Date? {
        guard let text = text?.trimmingCharacters(in: .whitespaces), text.count >= 10 else { return nil }
        let day = text.prefix(10).split(separator: "-", omittingEmptySubsequences: false).map { Int($0) }
        var time: [Int?] = [0, 0, 0]
        if text.count >= 19 {
            let clock = text.dropFirst(11).prefix(8)
            time = clock.split(separator: ":", omittingEmptySubsequences: false).map { Int($0) }
        }
        guard day.count == 3, time.count == 3, let year = day[0], let month = day[1], let dayOfMonth = day[2],
            let hour = time[0], let minute = time[1], let second = time[2],
            (1...9999).contains(year), (1...12).contains(month), (1...31).contains(dayOfMonth),
            (0...23).contains(hour), (0...59).contains(minute), (0...60).contains(second)
        else { return nil }
        let components = DateComponents(year: year, month: month, day: dayOfMonth, hour: hour, minute: minute, second: second)
        guard let date = utc.date(from: components), utc.component(.day, from: date) == dayOfMonth else { return nil }
        return date
    }
}
