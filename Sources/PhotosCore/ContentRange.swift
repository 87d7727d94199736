import Foundation

/// A `Content-Range: bytes FIRST-LAST/TOTAL` header (RFC 9110 §14.4), or `bytes */TOTAL` on a
/// 416 answer.
public struct ContentRange: Sendable, Equatable {
    /// The first and last byte sent; nil for `bytes */TOTAL`.
    public var first: Int?
    public var last: Int?
    /// The whole representation's length; nil for `/*`.
    public var total: Int?

    public init(first: Int?, last: Int?, total: Int?) {
        self.first = first
        self.last = last
        self.total = total
    }

    /// Parses the header value; nil for anything that is not a single byte range.
    public init?(_ value: String) {
        let text = value.trimmingWhitespace()
        guard text.lowercased().hasPrefix("bytes ") else { return nil }
        let spec = text.dropFirst(6).trimmingCharacters(in: .whitespaces)
        let parts = spec.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2 else { return nil }
        if parts[1] == "*" {
            total = nil
        } else {
            guard let whole = Self.number(parts[1]) else { return nil }
            total = whole
        }
        if parts[0] == "*" {
            guard total != nil else { return nil }
            first = nil
            last = nil
            return
        }
        let bounds = parts[0].split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard bounds.count == 2, let start = Self.number(bounds[0]), let end = Self.number(bounds[1]), start <= end else { return nil }
        if let total, end >= total { return nil }
        first = start
        last = end
    }

    /// Bytes this range carries.
    public var length: Int? { first.flatMap { start in last.map { $0 - start + 1 } } }

    private static func number(_ text: Substring) -> Int? {
        guard !text.isEmpty, text.count <= 18, text.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        return Int(text)
    }
}

extension HTTPValidators {
    /// The validator an `If-Range` header may carry: a strong `ETag`, else `Last-Modified`
    /// (a weak ETag must not be used for ranges); nil when there is neither.
    public var rangeValidator: String? {
        if let etag, !etag.hasPrefix("W/") { return etag }
        return lastModified
    }
}
