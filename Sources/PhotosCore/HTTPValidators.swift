import Foundation

/// The validators a server sent with a response (`ETag`, `Last-Modified`), kept so that a later
/// request can ask "has this changed?" and get a bodiless 304 when it has not.
public struct HTTPValidators: Sendable, Hashable, Codable {
    /// The `ETag` header as sent, quotes and `W/` prefix included.
    public var etag: String?
    /// The `Last-Modified` header as sent.
    public var lastModified: String?

    public init(etag: String? = nil, lastModified: String? = nil) {
        self.etag = etag.flatMap(Self.clean)
        self.lastModified = lastModified.flatMap(Self.clean)
    }

    /// The validators of a response's headers (none when the server sent none).
    public init(headers: HTTPHeaders) {
        self.init(etag: headers["ETag"], lastModified: headers["Last-Modified"])
    }

    /// Whether there is nothing to revalidate with.
    public var isEmpty: Bool { etag == nil && lastModified == nil }

    /// `If-None-Match` / `If-Modified-Since` request headers for these validators.
    public var conditionalHeaders: [String: String] {
        var headers: [String: String] = [:]
        if let etag { headers["If-None-Match"] = etag }
        if let lastModified { headers["If-Modified-Since"] = lastModified }
        return headers
    }

    /// Header values are echoed back to the server: refuse anything that could split a header.
    private static func clean(_ value: String) -> String? {
        let trimmed = value.trimmingWhitespace()
        guard !trimmed.isEmpty, trimmed.count <= 512,
              trimmed.unicodeScalars.allSatisfy({ $0.value >= 0x20 && $0.value < 0x7F })
        else { return nil }
        return trimmed
    }
}

/// What a conditional listing request produced.
public enum ListRevalidation: Sendable {
    /// The page changed (or the request was unconditional): the new page and its validators.
    case modified(PhotoPage, HTTPValidators)
    /// The server answered 304: the cached page is still current. Carries any validators the
    /// 304 repeated or updated (empty when it sent none).
    case notModified(HTTPValidators)
}
