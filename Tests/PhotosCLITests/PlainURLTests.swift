import Foundation
import Testing

@testable import PhotosCore

/// The byte-wise reader of plain http(s) URLs answers only where Foundation's parser agrees.
@Suite struct PlainURLTests {
    static func urls() -> [String] {
        var urls = [
            "https://live.staticflickr.com/65535/1_abc_b.jpg", "HTTP://Example.org:8080/a/b.PNG?x=1&y=2#top", "https://h", "https://h/",
            "https://h?q", "https://h#f", "https://h:/", "https://h:123456/", "https://u@h/", "https://[::1]/", "https://h/a%20b.jpg",
            "https://h/a b.jpg", "https://h/a#b#c", "ftp://h/a", "httpx://h/", "https:/h", "https://", "https://h/é.jpg", "javascript:alert(1)",
            "https://h/~user/(x)!$&'*+,;=:@/?q=/?", "https://h/\u{7F}", "https://h/{x}", "http://-/", "http://./a",
        ]
        let schemes = ["https://", "http://", "HTTPS://", "Http://", "https:/", "ftp://", "https//", ""]
        let hosts = ["h", "example.org", "A-1.b", "", "-", "u@h", "[::1]", "é.fr", "h h", "h:80", "h:", "h:99999999"]
        let pieces = ["/", "a.jpg", "?", "q=1&r=2", "#", "%20", "%zz", " ", "@", "[", "]", "é", "-", ".", "~", "|", ":", "(", "'", "\\", "^"]
        var state: UInt32 = 31337
        func next(_ bound: Int) -> Int {
            state = state &* 1_103_515_245 &+ 12345
            return Int(state >> 16) % bound
        }
        for _ in 0..<4000 {
            var url = schemes[next(schemes.count)] + hosts[next(hosts.count)]
            for _ in 0..<next(7) { url += pieces[next(pieces.count)] }
            urls.append(url)
        }
        return urls
    }

    @Test func plainURLsAreOnesFoundationAcceptsWithTheSameHostAndPath() {
        var plain = 0
        for url in Self.urls() {
            guard let parsed = PlainHTTPURL(url) else { continue }
            plain += 1
            #expect(URLPolicy.isAllowedByComponents(url), "\(url)")
            let components = URLComponents(string: url)
            #expect(components?.host == parsed.host, "\(url)")
            #expect(components?.path == parsed.path, "\(url)")
        }
        #expect(plain > 100, "the corpus holds plain URLs")
        for url in Self.urls() {
            #expect(URLPolicy.isAllowed(url) == URLPolicy.isAllowedByComponents(url), "\(url)")
        }
    }

    /// A URL with a user name or password is never fetched (libcurl would send them to the
    /// host); the fast parser took `https://alice@evil.example/x` for host `alice`.
    @Test func urlsWithCredentialsAreRefused() {
        for url in [
            "https://alice:s3cret@images.example/a.jpg", "https://alice@images.example/a.jpg", "http://a:b@127.0.0.1:8080/x",
            "https://alice@evil.example", "https://:pw@images.example/a.jpg",
        ] {
            #expect(PlainHTTPURL(url) == nil, "\(url)")
            #expect(!URLPolicy.isAllowed(url), "\(url)")
        }
        #expect(URLPolicy.isAllowed("https://images.example/a@2x.jpg"), "an @ in the path is no user name")
        #expect(PlainHTTPURL("https://images.example/a@2x.jpg")?.host == "images.example")
    }

    /// URLs libcurl refuses as "invalid URL": refused here, where the setting or listing that
    /// holds them can be named.
    @Test func urlsWithAPortPast65535OrAControlCharacterAreRefused() {
        for url in [
            "https://127.0.0.1:99999/", "https://images.example:65536/a.jpg", "https://images.example:0/a.jpg",
            "https://images.example/a\tb.jpg", "https://images.example/a\nb.jpg", "https://exa\u{1B}mple.org/", "https://images.example/a b.jpg",
            "https://images.example/a\u{7F}.jpg",
        ] {
            #expect(!URLPolicy.isAllowed(url), "\(url.debugDescription)")
        }
        for url in ["https://images.example:65535/a.jpg", "http://127.0.0.1:1/x", "https://images.example/caf%C3%A9.jpg", "https://images.example/café.jpg"] {
            #expect(URLPolicy.isAllowed(url), "\(url)")
        }
    }
}
