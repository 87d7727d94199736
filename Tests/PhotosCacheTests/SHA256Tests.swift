import Foundation
import Testing

@testable import PhotosCache

/// Cached files are named by the SHA-256 of their URL: the digests of FIPS 180-4's examples.
@Suite struct SHA256Tests {
    @Test(arguments: [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"),
        (
            "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
            "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"
        ),
    ])
    func digestsMatchTheStandardsExamples(text: String, digest: String) {
        #expect(SHA256.hex(text) == digest)
    }

    @Test func imagesAreNamedByTheirURLsDigestWithTheirExtension() {
        let store = ImageStore(root: .init(fileURLWithPath: "/cache"))
        #expect(store.relativePath(for: "abc") == "images/ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(store.relativePath(for: "https://h/a/b.JPG?x=1").hasSuffix(".jpg"))
    }

    /// What the extension was when it was read by Characters from Foundation's path.
    static func referenceExtension(_ url: String) -> String {
        guard let path = URLComponents(string: url)?.path else { return "" }
        let last = path.split(separator: "/").last ?? ""
        guard let dot = last.lastIndex(of: ".") else { return "" }
        let ext = last[last.index(after: dot)...].lowercased()
        guard (1...5).contains(ext.count), ext.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) else { return "" }
        return "." + ext
    }

    @Test func extensionsReadByBytesAsByCharacters() {
        let tails = ["a.jpg", "a.JPEG", "a.webp", "a.tiff2", "b.", ".x", "a.b.c", "x.JPG/", "dir.d/", "a.j%70g", "a.jp\u{301}g", "a.é", "a.1",
                     "noext", "", "/", "a.jpg?x=.png", "a.png#f.gif", "a.Ab1", "a.[x]", "a.^", "a.@"]
        for host in ["https://h/", "http://h/p/", "https://u@h/", "ftp://h/"] {
            for tail in tails {
                let url = host + tail
                #expect(ImageStore.fileExtension(of: url) == Self.referenceExtension(url), "\(url)")
            }
        }
    }
}
