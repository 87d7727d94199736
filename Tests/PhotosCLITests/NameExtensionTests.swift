import Testing

@testable import PhotosCLI

/// The extension a saved file gets from its URL, read as bytes for ASCII URLs: the same as the
/// Character reader for every URL.
@Suite struct NameExtensionTests {
    @Test func extensionsAreTheCharacterReadersForEveryURL() {
        let pieces = ["https://", "h", "/", ".", "jpg", "JPEG", "png", "Gif", "webp", "tiff", "?", "#", "x", ":", "//", "é", "\u{301}", "a.b"]
        var urls = ["https://h/a.jpg", "https://h/a.JPEG?x=1.png", "https://h/a.png#b.gif", "https://h/dir.jpg/a", "a.jpg", "https://h/a.jp", ""]
        var state: UInt32 = 555
        for _ in 0..<4000 {
            var url = ""
            state = state &* 1_103_515_245 &+ 12345
            for _ in 0..<(Int(state >> 16) % 8) {
                state = state &* 1_103_515_245 &+ 12345
                url += pieces[Int(state >> 16) % pieces.count]
            }
            urls.append(url)
        }
        #expect(NameFields.fileExtension(of: "https://h/a.JPEG?x=1.png") == "jpg")
        #expect(NameFields.fileExtension(of: "https://h/a.tiff") == nil)
        for url in urls {
            #expect(NameFields.fileExtension(of: url) == NameFields.fileExtensionByCharacters(of: url), "\(url.debugDescription)")
        }
    }
}
