import Foundation
import PhotosCore

/// Builds Flickr REST and static-image URLs. Every query value is percent-encoded, so user text
/// such as `a&b=c` stays one parameter.
struct FlickrAPI: Sendable {
    static let defaultEndpoint = "https://api.flickr.com/services/rest/"
    static let defaultStaticHost = "https://live.staticflickr.com"

    /// Asked for in the listing call itself, so that no request per photo is needed.
    static let extras = [
        "description", "license", "date_upload", "date_taken", "owner_name", "tags", "o_dims", "views",
        "media", "path_alias", "url_q", "url_m", "url_n", "url_z", "url_l", "url_h", "url_k", "url_o",
    ].joined(separator: ",")

    /// The REST endpoint (`PHOTOS_FLICKR_API`).
    var endpoint: String
    /// Image host used when a response carries no url_* extras (`PHOTOS_FLICKR_STATIC`), no trailing slash.
    var staticHost: String
    /// The API key, or nil when none is configured.
    var apiKey: String?

    init(settings: [String: String]) {
        endpoint = Self.setting(settings, "PHOTOS_FLICKR_API") ?? Self.defaultEndpoint
        var host = Self.setting(settings, "PHOTOS_FLICKR_STATIC") ?? Self.defaultStaticHost
        while host.hasSuffix("/") { host.removeLast() }
        staticHost = host
        apiKey = Self.setting(settings, "FLICKR_API_KEY")
    }

    /// A non-empty, trimmed setting.
    static func setting(_ settings: [String: String], _ name: String) -> String? {
        guard let value = settings[name]?.trimmingWhitespaceAndNewlines(), !value.isEmpty else {
            return nil
        }
        return value
    }

    /// `endpoint?method=M&api_key=K&<parameters>&format=json&nojsoncallback=1`.
    func url(method: String, apiKey: String, _ parameters: [(String, String)]) -> String {
        var items: [(String, String)] = [("method", method), ("api_key", apiKey)]
        items += parameters
        items += [("format", "json"), ("nojsoncallback", "1")]
        let query = items.map { "\(Self.percentEncode($0.0))=\(Self.percentEncode($0.1))" }.joined(separator: "&")
        let separator = endpoint.contains("?") ? (endpoint.hasSuffix("?") || endpoint.hasSuffix("&") ? "" : "&") : "?"
        return endpoint + separator + query
    }

    /// RFC 3986 unreserved characters stay; everything else (including `&`, `=`, `+`, `#`, spaces) is escaped.
    static func percentEncode(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? ""
    }

    private static let unreserved = CharacterSet(
        charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    // MARK: Static image URLs

    /// `{static}/{server}/{id}_{secret}_{suffix}.jpg`, or nil when a part is missing or not plain.
    func staticURL(server: String?, id: String, secret: String?, suffix: String) -> String? {
        guard let server, let secret, Self.isPlain(server), Self.isPlain(secret), Self.isPlain(id) else { return nil }
        let url = "\(staticHost)/\(server)/\(id)_\(secret)_\(suffix).jpg"
        return URLPolicy.isAllowed(url) ? url : nil
    }

    /// `https://www.flickr.com/photos/{owner}/{id}/`.
    static func pageURL(owner: String?, id: String) -> String {
        // NSIDs (`12345678@N00`) and path aliases need no escaping: checked byte by byte first.
        if let owner, !owner.isEmpty, owner.utf8.allSatisfy(isPathSegmentByte) {
            return "https://www.flickr.com/photos/\(owner)/\(id)/"
        }
        if let owner, !owner.isEmpty,
            let encoded = owner.addingPercentEncoding(withAllowedCharacters: pathSegment), !encoded.contains("%2F")
        {
            return "https://www.flickr.com/photos/\(encoded)/\(id)/"
        }
        return "https://www.flickr.com/photo.gne?id=\(id)"
    }

    private static let pathSegment = unreserved.union(CharacterSet(charactersIn: "@"))

    /// Whether `byte` is in ``pathSegment``: an ASCII letter or digit, or one of `-._~@`.
    private static func isPathSegmentByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "@"):
            return true
        default:
            return false
        }
    }

    /// ASCII letters and digits only (servers, secrets, ids put into URLs).
    static func isPlain(_ text: String) -> Bool {
        !text.isEmpty && text.count <= 64 && text.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) }
    }
}
