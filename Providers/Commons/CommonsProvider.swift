import Foundation
import PhotosCore

/// Wikimedia Commons through the MediaWiki Action API, no key: a search in the File namespace
/// (bitmaps only) or, without a search text, the featured pictures, newest first; a photo's
/// detail with its author, licence, description and sizes.
///
/// Search pages are reached by offset (`gsroffset`, the token the API itself hands back); the
/// featured feed only by continuation tokens (`cmcontinue`), so page N of it is reached by
/// walking the category list to it (ids only, up to 500 a request) before fetching the page.
/// Wikimedia refuses clients without a descriptive User-Agent: the transport sends one that
/// names photos and its home page.
///
/// Settings: `PHOTOS_COMMONS_API` (default https://commons.wikimedia.org/w/api.php).
public struct CommonsProvider: RegisteredProvider {
    public static let name = "commons"
    /// `gsrlimit` and `pageids` allow 50 for ordinary clients.
    public static let maxPerPage = 50
    /// The orders CirrusSearch offers (`gsrsort`).
    static let sortValues = ["relevance", "create_timestamp_desc", "create_timestamp_asc", "last_edit_desc", "last_edit_asc"]

    public static let descriptor = ProviderDescriptor(
        name: name,
        summary: "Wikimedia Commons: search (--query) or newest featured pictures",
        homepage: "https://commons.wikimedia.org",
        settings: [
            .endpoint(
                "PHOTOS_COMMONS_API", configKey: "commons.api", default: CommonsAPI.defaultEndpoint,
                summary: "MediaWiki Action API endpoint of Wikimedia Commons")
        ],
        filters: [
            ProviderFilter(
                "sort",
                "order of search results; without --query only create_timestamp_desc (newest featured first, the default) "
                    + "or create_timestamp_asc",
                example: "create_timestamp_desc", values: sortValues)
        ],
        idSyntax: "commons:<pageid>", idExample: "commons:22459639", maxPerPage: maxPerPage, paging: .continuationTokens)

    private let http: any HTTPFetching
    private let api: CommonsAPI

    public init(context: ProviderContext) {
        http = context.http
        api = CommonsAPI(settings: context.settings)
    }

    // MARK: IDs

    /// Page ids are 1 to 12 ASCII digits without a leading zero.
    public static func isValidID(_ raw: String) -> Bool {
        let bytes = Array(raw.utf8)
        return (1...12).contains(bytes.count) && bytes[0] != 0x30 && bytes.allSatisfy { $0 >= 0x30 && $0 <= 0x39 }
    }

    public func isValidID(_ raw: String) -> Bool { Self.isValidID(raw) }

    public func canonicalID(_ raw: String) -> String? { canonicalNumberID(raw) }

    // MARK: Listing

    /// Where Wikimedia serves the files and thumbnails its API lists.
    static let uploadHost = "https://upload.wikimedia.org/"

    /// upload.wikimedia.org when the API is Wikimedia's own; nil for another endpoint (a
    /// mirror, a test server), whose images may come from anywhere.
    public var imageHost: String? { api.endpoint == CommonsAPI.defaultEndpoint ? Self.uploadHost : nil }

    public var cacheScope: String? { Self.cacheScope([(api.endpoint, CommonsAPI.defaultEndpoint)]) }

    public var listingHost: String? { URLPolicy.isAllowed(api.endpoint) ? api.endpoint : nil }

    public func list(_ query: ListQuery) async throws -> PhotoPage {
        let page = max(1, query.page)
        let perPage = min(max(1, query.perPage), Self.maxPerPage)
        let text = query.text?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
        let sort = Self.nonEmpty(query.filters["sort"]?.trimmingCharacters(in: .whitespacesAndNewlines))
        if let sort, !Self.sortValues.contains(sort) {
            throw PhotosError.usage("commons filter sort takes one of \(Self.sortValues.joined(separator: ", ")); got '\(sort)'")
        }
        if text.isEmpty {
            return try await featured(page: page, perPage: perPage, sort: sort)
        }
        return try await search(text, page: page, perPage: perPage, sort: sort)
    }

    private func search(_ text: String, page: Int, perPage: Int, sort: String?) async throws -> PhotoPage {
        let offset = (page - 1).multipliedSaturating(by: perPage)
        guard offset.addingSaturating(perPage) <= CommonsAPI.searchWindow else {
            throw PhotosError.usage(
                "Wikimedia Commons serves only the first \(CommonsAPI.searchWindow) results of a search; "
                    + "page \(page) at \(perPage) per page is past them")
        }
        let answer = try await call(api.search(text, offset: offset, limit: perPage, sort: sort), what: "search")
        let pages = try await withImageInfo(answer.pages)
        // `query.pages` comes in page-id order (or keyed by id): the search order is `index`.
        let ordered = pages.enumerated().sorted { left, right in
            switch (left.element.index, right.element.index) {
            case let (l?, r?) where l != r: return l < r
            case (.some, nil): return true
            case (nil, .some): return false
            default: return left.offset < right.offset
            }
        }.map(\.element)
        // A server that sends more than asked for does not stretch the page. A photo sent twice
        // stays: the listing keeps it once and says so, as for every provider.
        let readable = ordered.compactMap(photo(from:))
        let photos = Array(readable.prefix(perPage))
        let hasMore = answer.continuation("gsroffset") != nil && offset + perPage < CommonsAPI.searchWindow
        // Pages without a page id, or whose imageinfo never came, are records photos cannot
        // read (files that are no bitmap, a sound or a PDF, are results it leaves out on purpose).
        let unreadable = ordered.filter { $0.pageID.map(Self.isValidID) != true || Self.lacksImageInfo($0) }.count + answer.nonObjectPages
        var result = PhotoPage(page: page, perPage: perPage, total: nil, hasMore: hasMore, photos: photos, skippedRecords: unreadable)
        result.extraRecords = readable.count - photos.count  // said by the listing
        return result
    }

    /// The featured pictures: the category list gives the order and the next token, then one
    /// request gives the imageinfo of that page's files.
    private func featured(page: Int, perPage: Int, sort: String?) async throws -> PhotoPage {
        if let sort, sort != "create_timestamp_desc", sort != "create_timestamp_asc" {
            throw PhotosError.usage(
                "without --query commons lists the featured pictures in the order they were featured: "
                    + "sort=create_timestamp_desc (newest first) or create_timestamp_asc")
        }
        let ascending = sort == "create_timestamp_asc"
        let empty = PhotoPage(page: page, perPage: perPage, total: nil, hasMore: false, photos: [])
        var token: String?
        var skip = (page - 1).multipliedSaturating(by: perPage)
        while skip > 0 {
            let limit = min(skip, CommonsAPI.maxListLimit)
            let answer = try await call(
                api.featured(limit: limit, continuation: token, idsOnly: true, ascending: ascending), what: "featured pictures")
            let count = answer.memberIDs.count
            guard count > 0, let next = answer.continuation("cmcontinue") else { return empty }
            token = next
            skip -= min(count, limit)
        }
        let list = try await call(
            api.featured(limit: perPage, continuation: token, idsOnly: false, ascending: ascending), what: "featured pictures")
        var seen: Set<String> = []
        let ids = Array(list.memberIDs.filter { Self.isValidID($0) && seen.insert($0).inserted }.prefix(perPage))
        guard !ids.isEmpty else { return empty }
        let info = try await withImageInfo(try await call(api.pages(ids, fullMetadata: false), what: "imageinfo").pages)
        var byID: [String: CommonsPage] = [:]
        for page in info { if let id = page.pageID, byID[id] == nil { byID[id] = page } }
        let photos = ids.compactMap { byID[$0].flatMap(photo(from:)) }
        // Files whose imageinfo never came are said as records photos could not read.
        let unread = ids.filter { id in byID[id].map(Self.lacksImageInfo) ?? false }.count
        return PhotoPage(
            page: page, perPage: perPage, total: nil, hasMore: list.continuation("cmcontinue") != nil, photos: photos, skippedRecords: unread)
    }

    /// `pages` with the imageinfo of those that came without it filled in. The API hands out
    /// imageinfo in batches of bounded size: when a page's worth is larger (long extmetadata),
    /// the answer holds it for only some pages and says `iicontinue`. The rest are asked for by
    /// their ids, a few more times while some still lack it; pages that never get it stay
    /// without (counted as records photos could not read).
    func withImageInfo(_ pages: [CommonsPage]) async throws -> [CommonsPage] {
        var pages = pages
        for _ in 0..<3 {
            let lacking = pages.indices.filter { Self.lacksImageInfo(pages[$0]) }
            guard !lacking.isEmpty else { break }
            let ids = lacking.compactMap { pages[$0].pageID }
            var found: [String: CommonsImageInfo] = [:]
            for page in try await call(api.pages(ids, fullMetadata: false), what: "imageinfo").pages {
                if let id = page.pageID, let info = page.info, found[id] == nil { found[id] = info }
            }
            guard !found.isEmpty else { break }
            for index in lacking { if let id = pages[index].pageID { pages[index].info = found[id] } }
        }
        return pages
    }

    /// Whether `page` is a file photos could show but came without its imageinfo.
    static func lacksImageInfo(_ page: CommonsPage) -> Bool {
        page.info == nil && !page.isMissing && page.pageID.map(isValidID) == true && (page.namespace == nil || page.namespace == 6)
    }

    /// The unified photo; nil for pages that are not image files (or whose id is not a page id).
    func photo(from page: CommonsPage) -> Photo? {
        guard let raw = page.pageID, Self.isValidID(raw), !page.isMissing, page.namespace == nil || page.namespace == 6,
            let info = page.info, Self.isBitmap(info.mime)
        else { return nil }
        var photo = Photo(
            id: PhotoID(provider: Self.name, raw: raw),
            title: Self.displayTitle(page.title),
            owner: info.text("Artist") ?? Self.nonEmpty(info.user),
            thumbnailURL: CommonsAPI.cleanURL(info.thumbURL),
            imageURL: CommonsAPI.cleanURL(info.url),
            width: info.width,
            height: info.height,
            pageURL: CommonsAPI.cleanURL(info.descriptionURL),
            takenAt: CommonsDates.taken(info.text("DateTimeOriginal")),
            uploadedAt: CommonsDates.timestamp(info.timestamp)
        )
        photo.sizes = Self.sizes(of: photo, info: info)
        return photo
    }

    /// The thumbnail, the standard widths below the original, and the original: all known from
    /// the listing, so `photos save` chooses a size without asking for the detail.
    static func sizes(of photo: Photo, info: CommonsImageInfo) -> [PhotoSize] {
        var sizes: [PhotoSize] = []
        if let thumbnail = photo.thumbnailURL {
            sizes.append(PhotoSize(label: "thumbnail", width: info.thumbWidth, height: info.thumbHeight, url: thumbnail))
            if let thumbWidth = info.thumbWidth, let width = photo.width, let height = photo.height {
                for step in CommonsAPI.detailSteps where step.width < width {
                    guard let url = CommonsAPI.thumbnail(thumbnail, width: thumbWidth, at: step.width) else { continue }
                    let scaled = Int((Double(height) * Double(step.width) / Double(width)).rounded())
                    sizes.append(PhotoSize(label: step.label, width: step.width, height: max(1, scaled), url: url))
                }
            }
        }
        // An original no browser shows (TIFF, XCF: `filetype:bitmap` lists them) is not offered to
        // save: photos saves JPEG, PNG, GIF and WebP, and refused one on every run after
        // downloading all of it. Commons' renderings of it (the thumbnail's sizes) are JPEGs.
        if let original = photo.imageURL, isWebImage(info.mime) {
            sizes.append(PhotoSize(label: "original", width: photo.width, height: photo.height, url: original))
        }
        return sizes
    }

    /// Whether `mime` is an image format photos saves (JPEG, PNG, GIF, WebP); unknown is taken
    /// for one, as the file's own bytes are checked when it is saved.
    static func isWebImage(_ mime: String?) -> Bool {
        guard let mime = mime?.lowercased() else { return true }
        return ["image/jpeg", "image/jpg", "image/png", "image/gif", "image/webp"].contains(mime)
    }

    // MARK: Detail

    public func detail(_ id: PhotoID) async throws -> PhotoDetail {
        guard id.provider == Self.name else {
            throw PhotosError.usage("\(id.provider) ids are not Wikimedia Commons page ids")
        }
        guard Self.isValidID(id.raw) else {
            throw PhotosError.usage("a commons photo id is a page id (digits), e.g. \(Self.descriptor.idExample)")
        }
        let answer = try await call(api.pages([id.raw], fullMetadata: true), what: "imageinfo")
        let pages = answer.pages
        guard !pages.isEmpty else {
            throw PhotosError.badData(provider: Self.name, detail: "the imageinfo response for \(id) lists no page")
        }
        guard let page = pages.first(where: { $0.pageID == id.raw }) else {
            if pages.contains(where: \.isMissing) { throw PhotosError.notFound(id) }
            throw PhotosError.badData(provider: Self.name, detail: "the imageinfo response for \(id) describes another page")
        }
        // A missing page, a page that is not a file, or a file without an image: no such photo.
        guard let photo = photo(from: page), let info = page.info else { throw PhotosError.notFound(id) }


        var extra: [String: String] = [:]
        if let license = info.text("LicenseShortName") { extra["license"] = license }
        if let url = info.text("LicenseUrl").flatMap(Self.absolute) { extra["license_url"] = url }
        if let terms = info.text("UsageTerms"), terms != extra["license"] { extra["usage_terms"] = terms }
        if let credit = info.text("Credit") { extra["credit"] = credit }
        if let uploader = Self.nonEmpty(info.user) { extra["uploader"] = uploader }
        if let mime = Self.nonEmpty(info.mime) { extra["mime"] = mime }
        return PhotoDetail(
            photo: photo,
            description: info.text("ImageDescription"),
            takenAt: photo.takenAt,
            uploadedAt: photo.uploadedAt,
            sizes: photo.sizes,
            extra: extra
        )
    }

    // MARK: Requests

    /// GETs `url` and returns the answer of a successful call.
    /// - Throws: `PhotosError` for HTTP errors, API errors and unreadable bodies; `TransportError` unchanged.
    private func call(_ url: String, what: String) async throws -> CommonsAnswer {
        guard URLPolicy.isAllowed(api.endpoint) else {
            throw PhotosError.usage("PHOTOS_COMMONS_API (config [commons] api) must be an http or https URL" + URLPolicy.refusalDetail(api.endpoint))
        }
        let response = try await http.data(for: HTTPRequest(url: url, headers: ["Accept": "application/json"]))
        guard response.isSuccess else { throw Self.httpStatus(response) }
        guard let answer = CommonsAnswer(response.body), !answer.hasUnreadableError else {
            throw PhotosError.badData(provider: Self.name, detail: "the \(what) response is not a MediaWiki API answer")
        }
        if let error = answer.error { throw Self.apiError(code: error.code, info: error.info) }
        return answer
    }

    static func httpStatus(_ response: HTTPResponse) -> PhotosError {
        switch response.status {
        case 403:
            return .unavailable(
                provider: name,
                detail: "Wikimedia refused the request (HTTP 403); it refuses clients whose User-Agent does not name "
                    + "them and a contact URL. photos sends '\(PhotosVersion.userAgent)': check that no proxy replaces it")
        case 429:
            let wait = response.headers["Retry-After"].flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }
            return .unavailable(
                provider: name,
                detail: "Wikimedia is rate limiting requests (HTTP 429); try again " + (wait.map { "in \($0) s" } ?? "later"))
        default:
            return .unavailable(provider: name, detail: "Wikimedia Commons answered HTTP \(response.status)\(response.tryAgainAdvice)")
        }
    }

    /// `{"error":{"code","info"}}`: the API's own refusals, sent with HTTP 200.
    static func apiError(code: String, info: String?) -> PhotosError {
        let text = info.map { HTMLText.collapse($0) }.map { $0.count > 300 ? String($0.prefix(300)) + "…" : $0 }
        switch code {
        case "maxlag":
            return .unavailable(provider: name, detail: "Wikimedia's database servers are lagging (maxlag); try again shortly")
        case "ratelimited":
            return .unavailable(provider: name, detail: "Wikimedia is rate limiting requests (ratelimited); try again later")
        default:
            return .unavailable(provider: name, detail: "Commons API error \(HTMLText.collapse(code)): \(text ?? "no message")")
        }
    }

    // MARK: Helpers

    /// `File:Port Townsend, WA - Church 04.jpg` -> `Port Townsend, WA - Church 04`.
    static func displayTitle(_ title: String?) -> String {
        guard var title = title, !title.isEmpty else { return "" }
        if title.hasPrefix("File:") { title.removeFirst("File:".count) }
        if let dot = title.lastIndex(of: "."), dot > title.startIndex {
            let suffix = title[title.index(after: dot)...]
            if (1...5).contains(suffix.count), suffix.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) {
                title = String(title[..<dot])
            }
        }
        return title
    }

    /// Images that can be shown: not SVG drawings or DjVu/PDF documents (their thumbnails are
    /// renderings); a missing mime type is given the benefit of the doubt.
    static func isBitmap(_ mime: String?) -> Bool {
        guard let mime = mime?.lowercased() else { return true }
        return mime.hasPrefix("image/") && !mime.contains("svg") && !mime.contains("djvu")
    }

    /// Extmetadata URLs are often protocol-relative or plain http (`//creativecommons.org/...`).
    static func absolute(_ url: String) -> String? {
        let candidate = url.hasPrefix("//") ? "https:" + url : url
        return URLPolicy.isAllowed(candidate) ? candidate : nil
    }

    static func nonEmpty(_ text: String?) -> String? {
        guard let text, !text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else { return nil }
        return text
    }
}

/// MediaWiki's timestamps and the free-form dates of `DateTimeOriginal`.
enum CommonsDates {
    private static let utc: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(secondsFromGMT: 0) ?? calendar.timeZone
        return calendar
    }()

    /// `2019-03-04T12:34:56Z` -> Date.
    static func timestamp(_ text: String?) -> Date? {
        guard let text else { return nil }
        return date(text.replacingOccurrences(of: "Z", with: ""), separator: "T")
    }

    /// `2009-02-01`, `2009-02-01 14:22:10` or `2009-02-01T14:22:10` (read as UTC); anything else
    /// (`circa 1890`, `1890s`) is nil.
    static func taken(_ text: String?) -> Date? {
        guard let text = text?.trimmingCharacters(in: .whitespaces), text.count >= 10 else { return nil }
        if text.count == 10 { return date(text, separator: " ") }
        return date(text, separator: text.contains("T") ? "T" : " ")
    }

    private static func date(_ text: String, separator: Character) -> Date? {
        let parts = text.split(separator: separator, omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count) else { return nil }
        let day = parts[0].split(separator: "-", omittingEmptySubsequences: false).map { Int($0) }
        let time = parts.count == 2 ? parts[1].split(separator: ":", omittingEmptySubsequences: false).map { Int($0) } : [0, 0, 0]
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
