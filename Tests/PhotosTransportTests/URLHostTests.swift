import PhotosCore
import Testing

@testable import PhotosTransport

/// The byte-wise host reader gives what the Character-wise one gives, for every ASCII URL.
@Suite struct URLHostTests {
    static func urls() -> [String] {
        var urls = [
            "https://example.org/a", "HTTP://Example.ORG:8080/x?y#z", "https://u:p@h.example/", "https://[::1]:443/", "https://[::1",
            "https://", "https:/", "https:", "http://h", "ftp://h/", "FILE:///etc/passwd", "1http://h/", "://h", "h t://x/",
            "https://a b/", "https://a\tb/", "https://a\r\nb/", "https://@/", "https://h@/", "https://:80/", "https://h?q", "https://h#f",
            "https://a@b@c/", "mailto:x@y", "https//h", "",
        ]
        let pieces = ["http", "https", "HTTPS", "ftp", ":", "//", "/", "@", "[", "]", ":443", "?", "#", "h", "example.org", " ", "\t", "\r\n", "1", "+", "."]
        var state: UInt32 = 2024
        for _ in 0..<3000 {
            var url = ""
            state = state &* 1_103_515_245 &+ 12345
            for _ in 0..<(Int(state >> 16) % 7) {
                state = state &* 1_103_515_245 &+ 12345
                url += pieces[Int(state >> 16) % pieces.count]
            }
            urls.append(url)
        }
        return urls
    }

    @Test func asciiURLsGiveTheSameHostOrErrorAsTheCharacterReader() throws {
        for url in Self.urls() {
            let fast = Result { () throws(TransportError) -> String? in try CurlTransport.validatedASCIIHost(url) }
            let slow = Result { () throws(TransportError) -> String? in try CurlTransport.validatedHostByCharacters(url) }
            #expect(fast == slow, "\(url.debugDescription)")
        }
        #expect(try CurlTransport.validatedASCIIHost("https://é.example/") == nil, "not ASCII: the Character reader decides")
    }

    /// A host's port is part of what its connections and failures are kept by.
    @Test func aPortNamedInTheURLIsPartOfTheHost() throws {
        #expect(try CurlTransport.validatedHost("https://127.0.0.1:8443/a") == "127.0.0.1:8443")
        #expect(try CurlTransport.validatedHost("https://Example.ORG:8080?x") == "example.org:8080")
        #expect(try CurlTransport.validatedHost("https://[::1]:8443/") == "[::1]:8443")
        #expect(try CurlTransport.validatedHost("https://[::1]/") == "::1")
        #expect(try CurlTransport.validatedHost("https://example.org/") == "example.org")
        #expect(try CurlTransport.validatedHost("https://example.org:/") == "example.org", "an empty port is the default one")
        #expect(try CurlTransport.validatedHost("https://ex.org:443é/") == "ex.org", "no port but digits")
        for host in ["localhost:8080", "127.0.0.1:1", "[::1]:443", "::1", "localhost", "127.0.0.1"] {
            #expect(CurlTransport.isLoopback(host), "\(host)")
        }
        for host in ["example.org:127", "example.org", "localhost.example:80", "[::2]:443"] {
            #expect(!CurlTransport.isLoopback(host), "\(host)")
        }
    }
}
