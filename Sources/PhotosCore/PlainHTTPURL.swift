/// The plainest http and https URLs, read byte by byte (a listing's hundreds of image URLs):
/// `http(s)://HOST[:PORT][/PATH][?QUERY][#FRAGMENT]` with a host of ASCII letters, digits,
/// dots and dashes, and nothing after it but characters a URL holds as they are (no `%`
/// escapes, no brackets, no spaces). Any other URL is nil, for Foundation's parser to judge.
public struct PlainHTTPURL: Sendable {
    /// The host as written.
    public let host: String
    /// The path as written (no escapes to decode), `""` when there is none.
    public let path: String

    public init?(_ url: String) {
        var url = url
        guard let parts = url.withUTF8({ bytes in
            Self.parse(bytes).map {
                (String(decoding: UnsafeBufferPointer(rebasing: bytes[$0.host]), as: UTF8.self),
                 String(decoding: UnsafeBufferPointer(rebasing: bytes[$0.path]), as: UTF8.self))
            }
        }) else { return nil }
        (host, path) = parts
    }

    /// Whether `url` is one this type reads, without making its host and path (the check of
    /// every thumbnail a listing names).
    public static func isPlain(_ url: String) -> Bool {
        var url = url
        return url.withUTF8 { parse($0) != nil }
    }

    private static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> (host: Range<Int>, path: Range<Int>)? {
        func lower(_ byte: UInt8) -> UInt8 { byte | 0x20 }
        var index = 0
        for letter in "http".utf8 {
            guard index < bytes.count, lower(bytes[index]) == letter else { return nil }
            index += 1
        }
        if index < bytes.count, lower(bytes[index]) == UInt8(ascii: "s") { index += 1 }
        for byte in "://".utf8 {
            guard index < bytes.count, bytes[index] == byte else { return nil }
            index += 1
        }
        let hostStart = index
        while index < bytes.count, isHostByte(bytes[index]) { index += 1 }
        let hostEnd = index
        guard hostEnd > hostStart else { return nil }
        if index < bytes.count, bytes[index] == UInt8(ascii: ":") {
            index += 1
            let portStart = index
            var port = 0
            while index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39, index - portStart < 6 {
                port = port * 10 + Int(bytes[index] - 0x30)
                index += 1
            }
            guard index > portStart, (1...65535).contains(port) else { return nil }
        }
        // The host ends the authority: what follows is the path, a query or a fragment. Anything
        // else (`https://user@host/`, `https://user:secret@host/`) is user information, left to
        // Foundation's parser, which names the real host.
        if index < bytes.count, bytes[index] != UInt8(ascii: "/"), bytes[index] != UInt8(ascii: "?"), bytes[index] != UInt8(ascii: "#") {
            return nil
        }
        let pathStart = index
        var pathEnd = bytes.count
        var fragment = false
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "?") || byte == UInt8(ascii: "#") { pathEnd = min(pathEnd, index) }
            if byte == UInt8(ascii: "#") {
                guard !fragment else { return nil }
                fragment = true
            } else if !isPlainURLByte(byte) {
                return nil
            }
            index += 1
        }
        // The host ends at the first byte that is not a host byte: it must end the authority.
        if pathStart < bytes.count {
            let next = bytes[pathStart]
            guard next == UInt8(ascii: "/") || next == UInt8(ascii: "?") || next == UInt8(ascii: "#") else { return nil }
        }
        return (hostStart..<hostEnd, pathStart..<pathEnd)
    }

    private static func isHostByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "."), UInt8(ascii: "-"):
            return true
        default:
            return false
        }
    }

    /// RFC 3986's unreserved and sub-delimiter characters, `:`, `@`, `/` and `?`.
    private static func isPlainURLByte(_ byte: UInt8) -> Bool {
        if isHostByte(byte) { return true }
        switch byte {
        case UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "!"), UInt8(ascii: "$"), UInt8(ascii: "&"), UInt8(ascii: "'"),
            UInt8(ascii: "("), UInt8(ascii: ")"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: ","), UInt8(ascii: ";"),
            UInt8(ascii: "="), UInt8(ascii: ":"), UInt8(ascii: "@"), UInt8(ascii: "/"), UInt8(ascii: "?"):
            return true
        default:
            return false
        }
    }
}
