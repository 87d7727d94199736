import Foundation
import PhotosCore
import PhotosTestSupport
import Testing

@testable import PhotosCache

/// The `tags` and `sizes` columns: what is written reads back the same, tags written by
/// JSONEncoder (older caches) still read, and what makes no sense reads as nothing.
struct PhotoColumnsTests {
    static let strings = ["", "dog", "quote \" back \\ slash /", "\u{0}\u{1F}\u{7F}\u{85}", "é 中 🐕‍🦺", "\u{202E}rtl", "\u{1E}\u{1F}"]

    @Test func tagsRoundTripAndOlderColumnsStillRead() throws {
        for count in 0...Self.strings.count {
            let tags = Array(Self.strings.prefix(count))
            #expect(PhotoCache.decodeTags(PhotoCache.encodeTags(tags)) == tags)
            let old = String(decoding: try JSONEncoder().encode(tags), as: UTF8.self)
            #expect(PhotoCache.decodeTags(old) == tags)
        }
        for broken in ["", "[", "{}", "[1]", "[\"a\",null]", "\"a\"", "[\"a\"] x"] {
            #expect(PhotoCache.decodeTags(broken) == [], "\(broken)")
        }
        // A lone surrogate is read as U+FFFD, as in any other JSON text photos reads.
        #expect(PhotoCache.decodeTags("[\"\\ud800\"]") == ["\u{FFFD}"])
    }

    /// Columns read byte by byte read as the JSON reader reads them, whatever they hold: texts
    /// made of brackets, quotes, commas, escapes, spaces, controls and letters.
    @Test func plainTagsReadAsJSONReadsThem() {
        let pieces = ["[", "]", "\"", ",", "\\", "a", "é", " ", "\u{1}", "\"a\"", "\"\",\"", "\\n", "中"]
        var texts = ["[]", "[\"a\"]", "[\"a\",\"b\"]", "[\"\"]", "[\"a\",]", "[,]", "[\"a\"\"b\"]", "[\"a]", "[\"]", "[ \"a\"]"]
        for (index, inside) in generatedTexts(5000, of: pieces, maxPieces: 9, seed: 99).enumerated() {
            texts.append(index % 3 == 0 ? "[" + inside : "[" + inside + "]")
        }
        var plain = 0
        for text in texts {
            #expect(PhotoCache.decodeTags(text) == PhotoCache.decodeTagsAsJSON(text), "\(text)")
            if PhotoCache.plainTags(text) != nil { plain += 1 }
        }
        #expect(plain > 200)
    }

    @Test func sizesRoundTripByBytes() {
        let sizes = [
            PhotoSize(label: "Large Square", width: 150, height: 150, url: "https://x.test/q.jpg"),
            PhotoSize(label: "é 中", width: nil, height: 7, url: "https://x.test/é.jpg"),
            PhotoSize(label: "", width: -1, height: nil, url: "u"),
        ]
        #expect(PhotoCache.decodeSizes(PhotoCache.encodeSizes(sizes) ?? "") == sizes)
        let separators = [PhotoSize(label: "a\u{1E}b", width: 1, height: 1, url: "u"), PhotoSize(label: "ok", width: 1, height: 1, url: "u\u{1F}")]
        #expect(PhotoCache.encodeSizes(separators) == nil)
        #expect(PhotoCache.decodeSizes("x\u{1F}y\u{1F}label\u{1F}url\u{1E}\u{1E}1\u{1F}2\u{1F}\u{1F}") == [
            PhotoSize(label: "label", width: nil, height: nil, url: "url")
        ])
    }
}
