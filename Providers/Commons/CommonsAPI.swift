import Foundation
import PhotosCore

/// Builds MediaWiki Action API requests for Wikimedia Commons. Every value is percent-encoded,
/// so search text such as `a&b=c` stays one parameter.
struct CommonsAPI: Sendable {
    static let defaultEndpoint = "https://commons.wikimedia.org/w/api.php"
    /// Where the default feed comes from.
    static let featuredCategory = "Category:Featured_pictures_on_Wikimedia_Commons"
    /// Width of listing thumbnails: one of Wikimedia's standard thumbnail steps (other widths
    /// may be refused or redirected).
    static let thumbnailWidth = 330
    /// Larger standard steps offered as sizes in a photo's detail.
    static let detailSteps = [(label: "medium", width: 960), (label: "large", width: 1920)]
    /// The metadata a listing reads (the full set is asked for only in a detail).
    static let listingMetadata = "ObjectName|Artist|LicenseShortName|LicenseUrl|DateTimeOriginal"
    static let imageProperties = "url|size|mime|extmetadata|timestamp|user"
    /// CirrusSearch serves offsets up to 10000 (offset + limit).
    static let searchWindow = 10_000
    /// The largest `cmlimit` for ordinary clients, used to skip ahead in the feed.
    static let maxListLimit = 500

    /// The API endpoint (`PHOTOS_COMMONS_API`).
    var endpoint: String

    init(settings: [String: String]) {
        let value = settings["PHOTOS_COMMONS_API"]?.trimmingWhitespaceAndNewlines() ?? ""
        endpoint = value.isEmpty ? Self.defaultEndpoint : value
    }

    /// `endpoint?action=query&format=json&formatversion=2&<parameters>`.
    func url(_ parameters: [(String, String)]) -> String {
        let items = [("action", "query"), ("format", "json"), ("formatversion", "2")] + parameters
        let query = items.map { "\(Self.percentEncode($0.0))=\(Self.percentEncode($0.1))" }.joined(separator: "&")
        let separator = endpoint.contains("?") ? (endpoint.hasSuffix("?") || endpoint.hasSuffix("&") ? "" : "&") : "?"
        return endpoint + separator + query
    }

    /// imageinfo for every page a query names.
    static func imageInfo(metadata: String?) -> [(String, String)] {
        var items = [("prop", "imageinfo"), ("iiprop", imageProperties), ("iiurlwidth", String(thumbnailWidth))]
        if let metadata { items.append(("iiextmetadatafilter", metadata)) }
        return items
    }

    /// A search in the File namespace, bitmaps only, with imageinfo.
    func search(_ text: String, offset: Int, limit: Int, sort: String?) -> String {
        var items: [(String, String)] = [
            ("generator", "search"), ("gsrnamespace", "6"), ("gsrsearch", "filetype:bitmap \(text)"),
            ("gsrlimit", String(limit)), ("gsroffset", String(offset)),
        ]
        if let sort { items.append(("gsrsort", sort)) }
        return url(items + Self.imageInfo(metadata: Self.listingMetadata))
    }

    /// The featured pictures, newest first (`ascending`: oldest first), one page of ids.
    func featured(limit: Int, continuation: String?, idsOnly: Bool, ascending: Bool) -> String {
        var items: [(String, String)] = [
            ("list", "categorymembers"), ("cmtitle", Self.featuredCategory), ("cmtype", "file"),
            ("cmsort", "timestamp"), ("cmdir", ascending ? "asc" : "desc"),
            ("cmprop", idsOnly ? "ids" : "ids|title|timestamp"), ("cmlimit", String(limit)),
        ]
        if let continuation { items.append(("cmcontinue", continuation)) }
        return url(items)
    }

    /// imageinfo for the given pages (at most 50 for ordinary clients).
    func pages(_ ids: [String], fullMetadata: Bool) -> String {
        url([("pageids", ids.joined(separator: "|"))] + Self.imageInfo(metadata: fullMetadata ? nil : Self.listingMetadata))
    }

    /// RFC 3986 unreserved characters stay; everything else is escaped.
    static func percentEncode(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? ""
    }

    private static let unreserved = CharacterSet(
        charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    /// `url` without tracking parameters (`utm_*`), or nil when it is not an http(s) URL written
    /// as URLs are sent (visible ASCII only: no spaces or controls).
    static func cleanURL(_ url: String?) -> String? {
        guard let url, url.unicodeScalars.allSatisfy({ (0x21...0x7E).contains($0.value) }), URLPolicy.isAllowed(url),
            var components = URLComponents(string: url)
        else { return nil }
        if let items = components.percentEncodedQueryItems {
            let kept = items.filter { !$0.name.lowercased().hasPrefix("utm_") }
            components.percentEncodedQueryItems = kept.isEmpty ? nil : kept
        }
        guard let cleaned = components.string, URLPolicy.isAllowed(cleaned) else { return nil }
        return cleaned
    }

    /// The same thumbnail at another standard width: Wikimedia thumbnail URLs end in
    /// `/<W>px-<name>` (or `/<prefix>-<W>px-<name>`, e.g. `lossy-page1-330px-...`). Nil when
    /// `thumbnail` does not have that form.
    static func thumbnail(_ thumbnail: String, width: Int, at newWidth: Int) -> String? {
        guard var components = URLComponents(string: thumbnail) else { return nil }
        let path = components.percentEncodedPath
        guard let slash = path.lastIndex(of: "/") else { return nil }
        let name = path[path.index(after: slash)...]
        let marker = "\(width)px-"
        guard let range = name.range(of: marker),
            range.lowerBound == name.startIndex || name[name.index(before: range.lowerBound)] == "-"
        else { return nil }
        var newName = name
        newName.replaceSubrange(range, with: "\(newWidth)px-")
        components.percentEncodedPath = String(path[...slash]) + newName
        return components.string
    }
}
