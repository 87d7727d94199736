import Foundation
import PhotosCore

/// Flickr through its REST API: search (`flickr.photos.search`), recent photos
/// (`flickr.photos.getRecent`) and detail (`getInfo` + `getSizes` in parallel).
///
/// Settings: `FLICKR_API_KEY` (required), `PHOTOS_FLICKR_API`, `PHOTOS_FLICKR_STATIC`.
public struct FlickrProvider: RegisteredProvider {
    public static let name = "flickr"
    /// Flickr's largest `per_page`.
    public static let maxPerPage = 500
    /// Flickr serves only the first 4000 results of a search.
    public static let searchResultLimit = 4000

    public static let descriptor = ProviderDescriptor(
        name: name,
        summary: "Flickr search (--query) or recent photos; needs FLICKR_API_KEY",
        homepage: "https://www.flickr.com/services/api/",
        settings: [
            ProviderSetting(
                variable: "FLICKR_API_KEY", configKey: "flickr.api_key",
                summary: "Flickr API key (https://www.flickr.com/services/api/misc.api_keys.html)", role: .key,
                isSecret: true, isRequired: true),
            .endpoint("PHOTOS_FLICKR_API", configKey: "flickr.api", default: FlickrAPI.defaultEndpoint, summary: "Flickr REST endpoint"),
            .endpoint(
                "PHOTOS_FLICKR_STATIC", configKey: "flickr.static", default: FlickrAPI.defaultStaticHost,
                summary: "image host for responses without image URLs"),
        ],
        filters: [
            ProviderFilter("tags", "photos with these tags, comma-separated", example: "beach,sunset", scope: .makesSearch),
            ProviderFilter("tag_mode", "any tag (any) or every tag (all)", example: "all", values: ["any", "all"], scope: .searchOnly),
            ProviderFilter("user", "one member's photos (NSID or path alias)", example: "105731165@N07", aliases: ["user_id"], scope: .makesSearch),
            ProviderFilter(
                "sort", "order of search results", example: "interestingness-desc",
                values: [
                    "date-posted-desc", "date-posted-asc", "date-taken-desc", "date-taken-asc", "interestingness-desc",
                    "interestingness-asc", "relevance",
                ], scope: .searchOnly),
            ProviderFilter(
                "license", "licences, comma-separated: by, by-sa, by-nd, by-nc, by-nc-sa, by-nc-nd, cc0, pdm, or Flickr's ids (4 = CC BY 2.0, 9 = CC0, 10 = public domain)",
                example: "by,cc0,pdm", scope: .searchOnly, check: { _ = try FlickrProvider.licenseIDs($0) }),
            ProviderFilter("safe_search", "1 safe, 2 moderate, 3 restricted", example: "1", values: ["1", "2", "3"], scope: .searchOnly),
        ],
        idSyntax: "flickr:<1 to 20 digits>", idExample: "flickr:53624890009", maxPerPage: maxPerPage, paging: .pageNumbers)

    private let http: any HTTPFetching
    let api: FlickrAPI

    public init(context: ProviderContext) {
        http = context.http
        api = FlickrAPI(settings: context.settings)
    }

    // MARK: IDs and URLs

    /// Flickr photo ids are 1 to 20 ASCII digits.
    public static func isValidID(_ raw: String) -> Bool {
        (1...20).contains(raw.utf8.count) && raw.utf8.allSatisfy { $0 >= 0x30 && $0 <= 0x39 }
    }

    public func isValidID(_ raw: String) -> Bool { Self.isValidID(raw) }

    public func canonicalID(_ raw: String) -> String? { canonicalNumberID(raw) }

    /// The licence names `--filter license=` shares with Openverse, in the order help gives them.
    static let sharedLicenseNames = ["by", "by-sa", "by-nd", "by-nc", "by-nc-sa", "by-nc-nd", "cc0", "pdm"]
    /// Those names as Flickr's ids.
    static let licenseIDsByName: [String: String] = [
        "by-nc-sa": "1", "by-nc": "2", "by-nc-nd": "3", "by": "4", "by-sa": "5", "by-nd": "6", "cc0": "9", "pdm": "10",
    ]

    /// `--filter license=` as the ids Flickr's search takes: each item a shared name (`cc0`) or an
    /// id of Flickr's own (`9`).
    /// - Throws: `PhotosError.usage` for an item that is neither.
    static func licenseIDs(_ value: String) throws -> String {
        let items = value.lowercased().split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        let ids = try items.map { item -> String in
            if let id = licenseIDsByName[item] { return id }
            guard (1...3).contains(item.utf8.count), item.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else {
                throw PhotosError.usage(
                    "flickr filter license takes \(sharedLicenseNames.joined(separator: ", ")) or Flickr's licence ids (0 to 10); got '\(item)'")
            }
            return Self.withoutLeadingZeros(item)
        }
        return ids.joined(separator: ",")
    }

    /// Flickr's license ids (flickr.photos.licenses.getInfo).
    static let licenseNames: [String: String] = [
        "0": "All Rights Reserved", "1": "CC BY-NC-SA 2.0", "2": "CC BY-NC 2.0", "3": "CC BY-NC-ND 2.0",
        "4": "CC BY 2.0", "5": "CC BY-SA 2.0", "6": "CC BY-ND 2.0", "7": "No known copyright restrictions",
        "8": "United States Government Work", "9": "CC0 1.0", "10": "Public Domain Mark 1.0",
    ]


    // MARK: Listing

    /// The static host (`PHOTOS_FLICKR_STATIC`, live.staticflickr.com unless set): where Flickr
    /// serves its images, those the url_* extras name included.
    public var imageHost: String? { URLPolicy.isAllowed(api.staticHost) ? api.staticHost : nil }

    public var cacheScope: String? {
        Self.cacheScope([(api.endpoint, FlickrAPI.defaultEndpoint), (api.staticHost, FlickrAPI.defaultStaticHost)])
    }

    public var listingHost: String? { URLPolicy.isAllowed(api.endpoint) ? api.endpoint : nil }

    public func list(_ query: ListQuery) async throws -> PhotoPage {
        let page = max(1, query.page)
        let perPage = min(max(1, query.perPage), Self.maxPerPage)
        let text = query.text?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
        let tags = filter(query, "tags")
        let user = filter(query, "user") ?? filter(query, "user_id")
        let isSearch = !text.isEmpty || tags != nil || user != nil

        // Recent photos take no licence, order or safety level: listing them unfiltered would
        // hand out photos the filter was there to keep out.
        if let license = filter(query, "license") { _ = try Self.licenseIDs(license) }
        if let unusable = Self.descriptor.filterNeedingSearch(query.filters.keys.filter { filter(query, $0) != nil }.sorted(), query: text) {
            throw PhotosError.usage(Self.descriptor.needsSearchMessage(unusable))
        }
        if isSearch, (page - 1).multipliedSaturating(by: perPage) >= Self.searchResultLimit {
            throw PhotosError.usage(
                "Flickr returns only the first \(Self.searchResultLimit) results of a search; "
                    + "page \(page) at \(perPage) per page is past them")
        }
        let key = try apiKey()

        var parameters: [(String, String)] = []
        let method: String
        if isSearch {
            method = "flickr.photos.search"
            // Photos only: Flickr's search lists videos too by default (`media=all`).
            parameters.append(("media", "photos"))
            if !text.isEmpty { parameters.append(("text", text)) }
            if let tags { parameters.append(("tags", tags)) }
            if let user { parameters.append(("user_id", user)) }
            if let mode = filter(query, "tag_mode") { parameters.append(("tag_mode", mode)) }
            if let license = filter(query, "license") { parameters.append(("license", try Self.licenseIDs(license))) }
            if let safe = filter(query, "safe_search") { parameters.append(("safe_search", safe)) }
            if let sort = filter(query, "sort") {
                parameters.append(("sort", sort))
            } else if !text.isEmpty {
                parameters.append(("sort", "relevance"))
            }
        } else {
            method = "flickr.photos.getRecent"
        }
        parameters += [("extras", FlickrAPI.extras), ("per_page", String(perPage)), ("page", String(page))]

        let body = try await call(method, apiKey: key, parameters, photo: nil)
        let list: FlickrPhotoList
        do {
            list = try FlickrPhotoList(body.get())
        } catch {
            throw FlickrError.badData("the \(method) response is not a photo list (\(Self.reason(error)))")
        }

        // Videos (getRecent has no `media` argument) are not photos: left out, and not counted
        // as records that could not be read.
        let videos = list.photos.count { $0.media == "video" }
        let photos = list.photos.compactMap { $0.media == "video" ? nil : photo(from: $0) }
        let servedPage = list.page ?? page
        // A page size Flickr cannot serve (past its 500; a broken proxy's or mirror's number) is
        // the one asked for: arithmetic on it would overflow.
        let servedPerPage = list.perPage.flatMap { (1...Self.maxPerPage).contains($0) ? $0 : nil } ?? perPage
        let hasMore: Bool
        var lastPage: Int?
        if isSearch {
            // Flickr repeats earlier results past the first 4000: never offer a page beyond them.
            let end = servedPage.multipliedSaturating(by: servedPerPage)
            if let total = list.total ?? list.pages.map({ $0.multipliedSaturating(by: servedPerPage) }) {
                hasMore = end < min(total, Self.searchResultLimit)
                let served = min(total, Self.searchResultLimit)
                lastPage = max(1, (served + servedPerPage - 1) / servedPerPage)
            } else {
                hasMore = list.photos.count >= servedPerPage && end < Self.searchResultLimit
            }
        } else if let pages = list.pages {
            hasMore = servedPage < pages
            lastPage = pages
        } else if let total = list.total {
            hasMore = servedPage.multipliedSaturating(by: servedPerPage) < total
        } else {
            hasMore = list.photos.count >= servedPerPage
        }
        var listed = PhotoPage(
            page: servedPage, perPage: servedPerPage, total: list.total, hasMore: hasMore, photos: photos,
            skippedRecords: list.photos.count - videos - photos.count + list.nonObjects)
        listed.lastPage = lastPage
        return listed
    }

    private func filter(_ query: ListQuery, _ name: String) -> String? {
        guard let value = query.filters[name]?.trimmingCharacters(in: .whitespacesAndNewlines), !value.isEmpty else {
            return nil
        }
        return value
    }

    /// The unified photo, or nil when the id is not a Flickr id (never trusted as a path).
    func photo(from record: FlickrPhotoRecord) -> Photo? {
        guard let raw = record.id, Self.isValidID(raw) else { return nil }

        let thumbnailURL: String?
        if let q = record.urls["q"] {
            thumbnailURL = Self.allowed(q.url)
        } else {
            thumbnailURL = api.staticURL(server: record.server, id: raw, secret: record.secret, suffix: "q")
        }

        var imageURL: String?
        var width: Int?
        var height: Int?
        let present = ["l", "z", "m"].compactMap { record.urls[$0] }
        if present.isEmpty {
            imageURL = api.staticURL(server: record.server, id: raw, secret: record.secret, suffix: "b")
        } else if let best = present.first(where: { URLPolicy.isAllowed($0.url) }) {
            imageURL = best.url
            width = best.width
            height = best.height
        }

        // Checked against URLPolicy where one is used (parsing eight URLs per photo here would
        // cost a listing more than its decoding).
        let sizes = Self.sizeLabels.compactMap { key, label -> PhotoSize? in
            guard let size = record.urls[key] else { return nil }
            return PhotoSize(label: label, width: size.width, height: size.height, url: size.url)
        }

        let owner = Self.nonEmpty(record.ownerName) ?? Self.nonEmpty(record.owner)
        return Photo(
            id: PhotoID(provider: Self.name, raw: raw),
            // Flickr's titles come with HTML entities at times (`Rex &amp; Bella`).
            title: record.title.map(HTMLText.decodeEntities) ?? "",
            owner: owner,
            thumbnailURL: thumbnailURL,
            imageURL: imageURL,
            width: width,
            height: height,
            pageURL: FlickrAPI.pageURL(owner: Self.nonEmpty(record.owner), id: raw),
            takenAt: FlickrDates.taken(record.dateTaken),
            uploadedAt: FlickrDates.unix(record.dateUpload),
            tags: Self.tags(record.tags),
            sizes: sizes
        )
    }

    /// The url_* extras by key, smallest first, with the labels flickr.photos.getSizes uses.
    static let sizeLabels: [(key: String, label: String)] = [
        ("sq", "Square"), ("t", "Thumbnail"), ("q", "Large Square"), ("s", "Small"), ("n", "Small 320"), ("w", "Small 400"),
        ("m", "Medium"), ("z", "Medium 640"), ("c", "Medium 800"), ("l", "Large"), ("h", "Large 1600"), ("k", "Large 2048"),
        ("o", "Original"),
    ]

    // MARK: Requests

    func apiKey() throws -> String {
        guard let key = api.apiKey else { throw FlickrError.missingKey }
        return key
    }

    /// Calls `method` and returns the body (callback wrapper removed) of a successful answer,
    /// parsed once: the caller reads it, or says that it is not JSON.
    /// - Throws: `PhotosError` for Flickr failures and HTTP errors; `TransportError` unchanged.
    func call(
        _ method: String, apiKey: String, _ parameters: [(String, String)], photo: PhotoID?
    ) async throws -> Result<JSONDocument, JSONDocument.ParseError> {
        guard URLPolicy.isAllowed(api.endpoint) else {
            throw PhotosError.usage("PHOTOS_FLICKR_API (config [flickr] api) must be an http or https URL" + URLPolicy.refusalDetail(api.endpoint))
        }
        guard URLPolicy.isAllowed(api.staticHost) else {
            throw PhotosError.usage("PHOTOS_FLICKR_STATIC (config [flickr] static) must be an http or https URL" + URLPolicy.refusalDetail(api.staticHost))
        }
        let request = HTTPRequest(url: api.url(method: method, apiKey: apiKey, parameters), headers: ["Accept": "application/json"])
        let response = try await http.data(for: request)
        let body = Result { () throws(JSONDocument.ParseError) -> JSONDocument in
            try JSONDocument(parsing: Self.unwrapCallback(response.body))
        }
        if case .success(let document) = body, let status = FlickrStatus(document), status.isFailure {
            throw FlickrError.failure(code: status.code, message: status.message, photo: photo, apiKey: apiKey)
        }
        guard response.isSuccess else { throw FlickrError.httpStatus(response.status, advice: response.tryAgainAdvice) }
        return body
    }

    /// Removes a `jsonFlickrApi(...)` wrapper, for servers that ignore `nojsoncallback=1`.
    static func unwrapCallback(_ body: Data) -> Data {
        let prefix = Array("jsonFlickrApi(".utf8)
        var start = body.startIndex
        var end = body.endIndex
        func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 }
        while start < end, isSpace(body[start]) { start += 1 }
        while end > start, isSpace(body[end - 1]) { end -= 1 }
        guard end - start > prefix.count, body[start..<(start + prefix.count)].elementsEqual(prefix) else { return body }
        if body[end - 1] == UInt8(ascii: ";") { end -= 1 }
        while end > start, isSpace(body[end - 1]) { end -= 1 }
        guard end > start + prefix.count, body[end - 1] == UInt8(ascii: ")") else { return body }
        return Data(body[(start + prefix.count)..<(end - 1)])
    }

    // MARK: Helpers

    static func allowed(_ url: String) -> String? { URLPolicy.isAllowed(url) ? url : nil }

    static func nonEmpty(_ text: String?) -> String? {
        guard let text else { return nil }
        // A first byte that is visible ASCII settles it (the usual case, once per photo).
        if let first = text.utf8.first, first > 0x20, first < 0x7F { return text }
        guard !text.trimmingWhitespaceAndNewlines().isEmpty else { return nil }
        return text
    }

    /// The words of Flickr's space-separated `tags`: by bytes when the text is ASCII (most
    /// tags, and every photo of a listing has them), else by characters, where a space that
    /// starts a grapheme cluster with a combining mark is not a separator.
    static func tags(_ text: String?) -> [String] {
        guard var text, !text.isEmpty else { return [] }
        let ascii = text.withUTF8 { bytes -> [String]? in
            var tags: [String] = []
            var start = 0
            for index in 0..<bytes.count {
                let byte = bytes[index]
                if byte >= 0x80 { return nil }
                guard byte == 0x20 else { continue }
                if index > start { tags.append(String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)) }
                start = index + 1
            }
            if bytes.count > start { tags.append(String(decoding: UnsafeBufferPointer(rebasing: bytes[start...]), as: UTF8.self)) }
            return tags
        }
        return ascii ?? text.split(whereSeparator: { $0 == " " }).map(String.init)
    }

    /// A short reason for a decoding failure, without the body.
    static func reason(_ error: any Error) -> String {
        switch error {
        case FlickrDecodingError.missing(let key): return "no '\(key)'"
        case FlickrDecodingError.notAnObject: return "unexpected JSON type"
        case is JSONDocument.ParseError: return "invalid JSON"
        default: return "unreadable"
        }
    }
}
