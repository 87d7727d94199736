import Foundation
import PhotosCore

/// What identifies one cached listing page: provider (and the endpoint it was asked, when not
/// its usual one) + query text + filters + page + per-page.
///
/// Never a URL: request URLs carry API keys, and the cache must not hold them. An endpoint that
/// is not the provider's default is kept only as a digest.
public struct ListingKey: Sendable, Hashable, CustomStringConvertible {
    public var provider: String
    /// A digest of the provider's ``PhotoProvider/cacheScope``; nil for its usual endpoint.
    public var scope: String?
    public var text: String?
    public var filters: [String: String]
    public var page: Int
    public var perPage: Int

    public init(provider: String, scope: String? = nil, query: ListQuery) {
        self.provider = provider
        self.scope = scope.map { String(SHA256.hex($0).prefix(16)) }
        let trimmed = query.text?.trimmingWhitespaceAndNewlines()
        self.text = trimmed?.isEmpty == false ? trimmed : nil
        self.filters = query.filters
        self.page = query.page
        self.perPage = query.perPage
    }

    /// Filters as `name=value` pairs, sorted, each part percent-encoded.
    var canonicalFilters: String {
        filters.sorted { $0.key < $1.key }
            .map { "\(Self.encode($0.key))=\(Self.encode($0.value))" }
            .joined(separator: "&")
    }

    /// The listing (a search or a feed) regardless of page: what "recent searches" counts.
    var searchKey: String {
        [provider + (scope.map { "@" + $0 } ?? ""), text.map { "q=" + Self.encode($0) } ?? "feed", canonicalFilters].joined(separator: "\u{1F}")
    }

    /// The unique key of this page.
    var key: String {
        [searchKey, String(page), String(perPage)].joined(separator: "\u{1F}")
    }

    /// For messages: `placeholder "sunt" album=3 page 1 (30 per page)`.
    public var description: String {
        var parts = [provider]
        parts.append(text.map { "search \"\($0)\"" } ?? "feed")
        if !filters.isEmpty { parts.append(canonicalFilters) }
        parts.append("page \(page) (\(perPage) per page)")
        return parts.joined(separator: " ")
    }

    private static let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-._~ "))
    /// `text` with what is not a letter, a digit or one of `-._~ ` percent-encoded. Text that
    /// needs no encoding (ASCII letters and digits) is returned as it is without building the
    /// Unicode character sets, a million instructions at their first use: most of what a cached
    /// listing spent on its key.
    static func encode(_ text: String) -> String {
        let plain = text.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: " "):
                true
            default: false
            }
        }
        if plain { return text }
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }
}
