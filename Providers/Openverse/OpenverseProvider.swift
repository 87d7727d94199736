import Foundation
import PhotosCore

/// Openverse's images API, anonymously: search (`/v1/images/?q=`), or without a search text the
/// same endpoint without `q` (Openverse's whole catalogue, in its own popularity order), and
/// detail (`/v1/images/{id}/`, trailing slash required).
///
/// Anonymous clients get at most 20 results a request (more is a 401) and 20 pages of a query
/// (so 400 results at most); a larger `--per-page` is served by asking for several pages of 20
/// and a page past the depth is refused before any request, saying why. Rate limiting (429)
/// says when to try again and what the limit is.
///
/// Settings: `PHOTOS_OPENVERSE_API` (default https://api.openverse.org/v1/).
public struct OpenverseProvider: RegisteredProvider {
    public static let name = "openverse"
    public static let defaultEndpoint = "https://api.openverse.org/v1/"
    /// The largest `page_size` Openverse serves anonymous clients.
    public static let anonymousPageSize = 20
    /// The deepest `page` Openverse serves (its MAX_PAGINATION_DEPTH).
    public static let maxPage = 20
    /// What photos serves in one listing, from several requests when above 20.
    public static let maxPerPage = 100
    /// Results an anonymous client can reach in one query.
    public static var maxDepth: Int { anonymousPageSize * maxPage }

    static let licenses = ["by", "by-sa", "by-nd", "by-nc", "by-nc-sa", "by-nc-nd", "cc0", "pdm", "sampling+", "nc-sampling+"]
    static let licenseTypes = ["all", "all-cc", "commercial", "modification"]

    public static let descriptor = ProviderDescriptor(
        name: name,
        summary: "Openverse, openly licensed: search (--query) or all images",
        homepage: "https://openverse.org",
        settings: [.endpoint("PHOTOS_OPENVERSE_API", configKey: "openverse.api", default: defaultEndpoint, summary: "Openverse API base URL")],
        filters: [
            ProviderFilter("license", "licences, comma-separated: \(licenses.joined(separator: ", "))", example: "by,by-sa,cc0"),
            ProviderFilter("license_type", "licence groups, comma-separated: \(licenseTypes.joined(separator: ", "))", example: "commercial"),
            ProviderFilter("source", "collections, comma-separated (e.g. flickr, wikimedia, met, nasa)", example: "wikimedia"),
            ProviderFilter("creator", "one creator's works; Openverse applies it only without --query", example: "NASA"),
            ProviderFilter("extension", "file types, comma-separated", example: "jpg,png"),
            ProviderFilter("category", "kind of image", example: "photograph", values: ["photograph", "illustration", "digitized_artwork"]),
            ProviderFilter("aspect_ratio", "shape", example: "wide", values: ["tall", "wide", "square"]),
            ProviderFilter("size", "image size", example: "large", values: ["small", "medium", "large"]),
        ],
        idSyntax: "openverse:<uuid>", idExample: "openverse:edd420e4-471c-4f3f-a2ed-bc48ab3879af", maxPerPage: maxPerPage,
        paging: .pageNumbers)

    private let http: any HTTPFetching
    /// The API base URL, ending with `/`.
    private let base: String

    public init(context: ProviderContext) {
        http = context.http
        var base = context.settings["PHOTOS_OPENVERSE_API"]?.trimmingWhitespaceAndNewlines() ?? ""
        if base.isEmpty { base = Self.defaultEndpoint }
        if !base.hasSuffix("/") { base += "/" }
        self.base = base
    }

    public var cacheScope: String? { Self.cacheScope([(base, Self.defaultEndpoint)]) }

    // MARK: IDs

    /// Openverse ids are lower-case UUIDs: 8-4-4-4-12 hexadecimal digits.
    public static func isValidID(_ raw: String) -> Bool {
        let bytes = Array(raw.utf8)
        guard bytes.count == 36 else { return false }
        for (offset, byte) in bytes.enumerated() {
            if [8, 13, 18, 23].contains(offset) {
                guard byte == UInt8(ascii: "-") else { return false }
            } else {
                guard (0x30...0x39).contains(byte) || (0x61...0x66).contains(byte) else { return false }
            }
        }
        return true
    }

    public func isValidID(_ raw: String) -> Bool { Self.isValidID(raw) }

    /// Openverse's UUIDs are lower case; one in capitals is the same id.
    public func canonicalID(_ raw: String) -> String? {
        let lower = raw.lowercased()
        return Self.isValidID(lower) ? lower : nil
    }

    // MARK: Listing

    public func list(_ query: ListQuery) async throws -> PhotoPage {
        let page = max(1, query.page)
        let perPage = min(max(1, query.perPage), Self.maxPerPage)
        let text = query.text?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
        let parameters = (text.isEmpty ? [] : [("q", text)]) + (try filters(query.filters, searching: !text.isEmpty))

        let offset = (page - 1).multipliedSaturating(by: perPage)
        guard offset < Self.maxDepth else {
            throw PhotosError.usage(
                "Openverse serves anonymous clients only the first \(Self.maxDepth) results of a query "
                    + "(\(Self.maxPage) pages of \(Self.anonymousPageSize)); page \(page) at \(perPage) per page starts past them")
        }
        if perPage <= Self.anonymousPageSize && page <= Self.maxPage {
            // One request: the API's own page of this size.
            let search = try await fetch(parameters, page: page, pageSize: perPage)
            // A server that sends more than asked for does not stretch the page. A photo sent
            // twice stays: the listing keeps it once and says so, as for every provider.
            let readable = search.results.compactMap(photo(from:))
            let photos = Array(readable.prefix(perPage))
            let lastPage = min(search.pageCount ?? 0, Self.maxPage)
            // A page that came back empty (Openverse drops dead links from its pages, all of a
            // page's at times) ends nothing: the pages after it may hold results.
            let hasMore = page < lastPage && page * perPage < Self.maxDepth
            var result = PhotoPage(
                page: page, perPage: perPage, total: search.resultCount, hasMore: hasMore, photos: photos,
                skippedRecords: search.results.count - readable.count + search.nonObjects)
            result.extraRecords = readable.count - photos.count  // said by the listing
            return result
        }

        // Pages of 20 covering [offset, offset + perPage): the first says how many pages exist,
        // the rest are asked for together.
        let size = Self.anonymousPageSize
        let firstPage = offset / size + 1
        let wantedLast = min((offset + perPage - 1) / size + 1, Self.maxPage)
        let first = try await fetch(parameters, page: firstPage, pageSize: size)
        let available = min(first.pageCount ?? firstPage, Self.maxPage)
        let lastPage = min(wantedLast, max(available, firstPage))
        var pages = [(firstPage, first.results)]
        var nonObjects = first.nonObjects
        // Asked for whatever the first holds: Openverse drops dead links from a page, so a page
        // short of 20 is no end (stopping there lost the rest of every larger page).
        if lastPage > firstPage {
            pages += try await withThrowingTaskGroup(of: (Int, OpenverseSearch).self) { group in
                for number in (firstPage + 1)...lastPage {
                    group.addTask { (number, try await fetch(parameters, page: number, pageSize: size)) }
                }
                var pages: [(Int, [OpenverseImage])] = []
                for try await (number, search) in group {
                    pages.append((number, search.results))
                    nonObjects += search.nonObjects
                }
                return pages
            }
            pages.sort { $0.0 < $1.0 }
        }
        // Each API page holds the results of its own 20 places, fewer when some were dropped:
        // the window takes the places in [offset, offset + perPage), page by page (counting
        // a short page as 20 would shift every later page into the next window, or out of all).
        var window: [OpenverseImage] = []
        for (number, results) in pages {
            let start = (number - 1) * size
            for (index, result) in results.prefix(size).enumerated() where (offset..<(offset + perPage)).contains(start + index) {
                window.append(result)
            }
        }
        let readable = window.compactMap(photo(from:))
        let photos = readable
        let hasMore = offset + perPage < min(available * size, Self.maxDepth)
        return PhotoPage(
            page: page, perPage: perPage, total: first.resultCount, hasMore: hasMore, photos: photos,
            skippedRecords: window.count - readable.count + nonObjects)
    }

    /// `--filter` values as API parameters, checked where Openverse would refuse them.
    private func filters(_ filters: [String: String], searching: Bool) throws -> [(String, String)] {
        var parameters: [(String, String)] = []
        for key in filters.keys.sorted() {
            guard let value = filters[key]?.trimmingCharacters(in: .whitespacesAndNewlines), !value.isEmpty else { continue }
            guard Self.descriptor.filter(named: key) != nil else {
                throw PhotosError.usage("openverse has no filter '\(key)'")
            }
            let items = value.lowercased().split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            switch key {
            case "license":
                if let bad = items.first(where: { !Self.licenses.contains($0) }) {
                    throw PhotosError.usage("openverse filter license takes \(Self.licenses.joined(separator: ", ")); got '\(bad)'")
                }
                parameters.append((key, items.joined(separator: ",")))
            case "license_type":
                if let bad = items.first(where: { !Self.licenseTypes.contains($0) }) {
                    throw PhotosError.usage("openverse filter license_type takes \(Self.licenseTypes.joined(separator: ", ")); got '\(bad)'")
                }
                parameters.append((key, items.joined(separator: ",")))
            case "creator":
                guard !searching else {
                    throw PhotosError.usage("Openverse ignores creator in a text search: use --filter creator=NAME without --query")
                }
                parameters.append((key, value))
            default:
                parameters.append((key, value))
            }
        }
        return parameters
    }

    /// The unified photo, or nil when the record has no valid id.
    func photo(from image: OpenverseImage) -> Photo? {
        guard let raw = image.id, Self.isValidID(raw) else { return nil }
        let thumbnail = image.thumbnail.flatMap(Self.allowed)
        let original = image.url.flatMap(Self.allowed)
        // The listing names both sizes: `photos save` chooses without asking for the detail.
        var sizes: [PhotoSize] = []
        if let thumbnail { sizes.append(PhotoSize(label: "thumbnail", width: nil, height: nil, url: thumbnail)) }
        if let original { sizes.append(PhotoSize(label: "original", width: image.width, height: image.height, url: original)) }
        return Photo(
            id: PhotoID(provider: Self.name, raw: raw),
            title: image.title ?? "",
            owner: Self.nonEmpty(image.creator),
            thumbnailURL: image.thumbnail.flatMap(Self.allowed),
            imageURL: image.url.flatMap(Self.allowed),
            width: image.width,
            height: image.height,
            pageURL: image.foreignLandingURL.flatMap(Self.allowed),
            tags: Self.distinct(image.tags),
            sizes: sizes
        )
    }

    // MARK: Detail

    public func detail(_ id: PhotoID) async throws -> PhotoDetail {
        guard id.provider == Self.name else {
            throw PhotosError.usage("\(id.provider) ids are not Openverse image ids")
        }
        guard Self.isValidID(id.raw) else {
            throw PhotosError.usage("an openverse photo id is a lower-case UUID, e.g. \(Self.descriptor.idExample)")
        }
        // The id is a validated UUID: safe in a path. The trailing slash matters (without it, 301).
        let response = try await get(base + "images/\(id.raw)/")
        if response.status == 404 { throw PhotosError.notFound(id) }
        guard response.isSuccess else { throw Self.httpStatus(response) }
        guard let object = (try? JSONSerialization.jsonObject(with: response.body)) as? [String: Any] else {
            throw PhotosError.badData(provider: Self.name, detail: "the images/\(id.raw)/ response is not a JSON object")
        }
        let image = OpenverseImage(object)
        guard let photo = photo(from: image), photo.id == id else {
            throw PhotosError.badData(provider: Self.name, detail: "the images/\(id.raw)/ response does not describe \(id)")
        }
        var extra: [String: String] = [:]
        if let license = image.licenseName { extra["license"] = license }
        if let url = image.licenseURL.flatMap(Self.allowed) { extra["license_url"] = url }
        if let attribution = Self.nonEmpty(image.attribution) { extra["attribution"] = attribution }
        if let source = Self.nonEmpty(image.source) { extra["source"] = source }
        if let provider = Self.nonEmpty(image.provider), provider != image.source { extra["provider"] = provider }
        if let creatorURL = image.creatorURL.flatMap(Self.allowed) { extra["creator_url"] = creatorURL }
        if let category = Self.nonEmpty(image.category) { extra["category"] = category }
        if let filetype = Self.nonEmpty(image.filetype) { extra["filetype"] = filetype }
        return PhotoDetail(photo: photo, tags: Self.distinct(image.tags), sizes: photo.sizes, extra: extra)
    }

    // MARK: Requests

    /// One page of `images/`.
    private func fetch(_ parameters: [(String, String)], page: Int, pageSize: Int) async throws -> OpenverseSearch {
        let items = parameters + [("page", String(page)), ("page_size", String(pageSize))]
        let query = items.map { "\(Self.percentEncode($0.0))=\(Self.percentEncode($0.1))" }.joined(separator: "&")
        let response = try await get(base + "images/?" + query)
        guard response.isSuccess else { throw Self.httpStatus(response) }
        guard let search = OpenverseSearch(response.body) else {
            throw PhotosError.badData(provider: Self.name, detail: "the images/ response is not a page of results")
        }
        return search
    }

    private func get(_ url: String) async throws -> HTTPResponse {
        guard URLPolicy.isAllowed(base) else {
            throw PhotosError.usage("PHOTOS_OPENVERSE_API (config [openverse] api) must be an http or https URL" + URLPolicy.refusalDetail(base))
        }
        return try await http.data(for: HTTPRequest(url: url, headers: ["Accept": "application/json"]))
    }

    static func httpStatus(_ response: HTTPResponse) -> PhotosError {
        let detail = openverseDetail(response.body)
        switch response.status {
        case 429:
            var text = "Openverse is rate limiting anonymous requests (HTTP 429)"
            let limits = response.headers.filter { $0.name.lowercased().hasPrefix("x-ratelimit-limit-") }
                .map { "\($0.name.dropFirst("x-ratelimit-limit-".count)) \($0.value.trimmingCharacters(in: .whitespaces))" }
            if !limits.isEmpty { text += "; anonymous limits: \(limits.joined(separator: ", "))" }
            if let wait = response.headers["Retry-After"].flatMap({ Int($0.trimmingCharacters(in: .whitespaces)) }) {
                text += "; try again in \(wait) s"
            } else {
                text += "; try again later"
            }
            return .unavailable(provider: name, detail: text)
        case 400:
            if let detail, detail.lowercased().contains("page") {
                return .usage(
                    "Openverse serves anonymous clients only the first \(maxPage) pages (\(maxDepth) results) of a query: \(detail)")
            }
            return .usage("Openverse refused the request (HTTP 400)\(detail.map { ": \($0)" } ?? "")")
        case 401, 403:
            return .unavailable(
                provider: name,
                detail: "Openverse refused an anonymous request (HTTP \(response.status))\(detail.map { ": \($0)" } ?? "")")
        default:
            return .unavailable(provider: name, detail: "Openverse answered HTTP \(response.status)\(detail.map { ": \($0)" } ?? "")\(response.tryAgainAdvice)")
        }
    }

    // MARK: Helpers

    static func percentEncode(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? ""
    }

    private static let unreserved = CharacterSet(
        charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    /// An http(s) URL written as URLs are sent: visible ASCII only (no spaces or controls).
    static func allowed(_ url: String) -> String? {
        url.unicodeScalars.allSatisfy({ (0x21...0x7E).contains($0.value) }) && URLPolicy.isAllowed(url) ? url : nil
    }

    /// `tags` without repeats, in their order (Openverse lists a tag once per source that has it).
    static func distinct(_ tags: [String]) -> [String] {
        var seen = Set<String>()
        return tags.filter { seen.insert($0).inserted }
    }

    static func nonEmpty(_ text: String?) -> String? {
        guard let text, !text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else { return nil }
        return text
    }
}
