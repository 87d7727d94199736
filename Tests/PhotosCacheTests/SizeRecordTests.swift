import PhotosCore
import Testing

@testable import PhotosCache

/// The sizes of a cached photo, as one text column: records of width, height, label and URL.
@Suite struct SizeRecordTests {
    /// What decoding meant when it split Characters: the reference for the byte-wise reader.
    static func reference(_ text: String) -> [PhotoSize] {
        text.split(separator: "\u{1E}").compactMap { record in
            let fields = record.split(separator: "\u{1F}", maxSplits: 3, omittingEmptySubsequences: false)
            guard fields.count == 4, !fields[3].isEmpty else { return nil }
            return PhotoSize(label: String(fields[2]), width: Int(fields[0]), height: Int(fields[1]), url: String(fields[3]))
        }
    }

    @Test func sizesReadBackAsTheyWereWritten() throws {
        let sizes = [
            PhotoSize(label: "Large", width: 1024, height: 768, url: "https://live.staticflickr.com/65535/1_b.jpg"),
            PhotoSize(label: "Größe ☃︎ 🇫🇷", width: nil, height: 5, url: "https://h/é?x=1&y=ü"),
            PhotoSize(label: "", width: nil, height: nil, url: "https://h/n.jpg"),
        ]
        let text = try #require(PhotoCache.encodeSizes(sizes))
        #expect(PhotoCache.decodeSizes(text) == sizes)
    }

    @Test func recordsAreWidthHeightLabelAndURLAndSizesHoldingASeparatorAreLeftOut() throws {
        let sizes = [
            PhotoSize(label: "L", width: 1024, height: nil, url: "u"), PhotoSize(label: "bad\u{1E}", width: 1, height: 1, url: "v"),
            PhotoSize(label: "N", width: -5, height: 0, url: "w\u{1F}x"), PhotoSize(label: "B", width: Int.max, height: 1_000_000_000, url: "y"),
        ]
        // A side of zero or less, or past a million pixels, is no size: it is kept as unknown.
        #expect(PhotoCache.encodeSizes(sizes) == "1024\u{1F}\u{1F}L\u{1F}u\u{1E}\u{1F}\u{1F}B\u{1F}y")
        #expect(PhotoCache.encodeSizes([PhotoSize(label: "N", width: -5, height: 0, url: "w")]) == "\u{1F}\u{1F}N\u{1F}w")
        #expect(PhotoCache.encodeSizes([]) == nil)
        #expect(PhotoCache.encodeSizes([sizes[1]]) == nil)
    }

    @Test(arguments: [
        "", "\u{1E}", "\u{1E}\u{1E}", "1\u{1F}2\u{1F}a", "1\u{1F}2\u{1F}a\u{1F}", "\u{1F}\u{1F}\u{1F}u",
        "1\u{1F}2\u{1F}a\u{1F}u\u{1F}more\u{1E}x\u{1F}y\u{1F}\u{1F}v\u{1E}", "\r\n\u{1F}\r\n\u{1F}\r\n\u{1F}\r\n",
        "e\u{301}\u{1F}9\u{1F}l\u{1F}u\u{1E}\u{1E}3\u{1F}\u{1F}\u{1F}w",
        "+5\u{1F}-3\u{1F}l\u{1F}u", "0012\u{1F}99999999999999999999\u{1F}l\u{1F}u", "\u{661}\u{662}\u{1F}1 \u{1F}l\u{1F}u",
        "999999999999999999\u{1F}9223372036854775807\u{1F}\u{1F}u\u{1E}9223372036854775808\u{1F}0x1\u{1F}\u{1F}u",
    ])
    func damagedOrOddRecordsReadAsTheCharacterSplitReadThem(text: String) {
        #expect(PhotoCache.decodeSizes(text) == Self.reference(text))
    }
}
