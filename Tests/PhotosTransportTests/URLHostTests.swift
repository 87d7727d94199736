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
}
