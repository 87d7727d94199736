import Foundation
import Testing

@testable import PhotosCLI
@testable import PhotosCore

/// `list --format json` and `jsonl`, written by hand (JSONText), are byte for byte what
/// JSONOutput.encode made of the same values through JSONEncoder.
struct ListingJSONTextTests {
    static let hostile = [
        "", "plain", "quote \" backslash \\ slash / url https://x.test/a?b=c&d",
        "controls \u{0}\u{1}\u{8}\u{9}\u{A}\u{B}\u{C}\u{D}\u{1B}[31m\u{1F} end", "del \u{7F} c1 \u{80}\u{9F} nbsp \u{A0}",
        "bidi \u{202E}evil\u{202C} isolate \u{2066}x\u{2069} zwj \u{200D} zwsp \u{200B} bom \u{FEFF}",
        "lines \u{2028} \u{2029} tag \u{E0041}", "é 中文 日本 🐕‍🦺 👍🏽 flag 🇫🇷", "soft\u{AD}hyphen",
    ]

    static func photos() -> [Photo] {
        var photos: [Photo] = []
        for (index, text) in hostile.enumerated() {
            photos.append(
                Photo(
                    // Ids are written as two parts and a colon: one of them with what needs escaping.
                    id: PhotoID(provider: "flickr", raw: index == 3 ? "a\"b\\c é\u{1}\u{202E}" + text : String(index + 1)), title: text, owner: index % 3 == 0 ? nil : text,
                    thumbnailURL: index % 2 == 0 ? "https://x.test/\(index)_q.jpg" : nil, imageURL: index % 4 == 1 ? nil : text,
                    width: index % 2 == 0 ? 1024 * index : nil, height: index % 3 == 0 ? nil : -index,
                    pageURL: index % 5 == 0 ? nil : "https://www.flickr.com/photos/x/\(index)/",
                    takenAt: index % 2 == 0 ? Date(timeIntervalSince1970: 1_700_000_000 + Double(index)) : nil,
                    uploadedAt: index % 3 == 1 ? Date(timeIntervalSince1970: Double(index) * 1e8) : nil,
                    tags: index % 3 == 2 ? [] : [text, "dog", ""]))
        }
        return photos
    }

    /// Strings are quoted eight bytes at a time where they can be: every ASCII byte and a
    /// character that is not ASCII, at every position of strings of every length up to 24 (each
    /// place in and around a word of eight), quote as the scalar-by-scalar way quotes them.
    @Test func quotingByWordsMatchesQuotingByScalars() {
        let fills = ["a", "/"]
        var odd: [String] = (0..<0x80).map { String(UnicodeScalar(UInt8($0))) }
        odd += ["é", "\u{80}", "\u{202E}", "中", "🐕"]
        for length in 1...24 {
            for fill in fills {
                for position in 0..<length {
                    for character in odd {
                        var text = String(repeating: fill, count: position) + character
                        text += String(repeating: fill, count: length - position - 1)
                        var quoted: [UInt8] = []
                        JSONText.appendQuoted(text, to: &quoted)
                        var expected: [UInt8] = [0x22]
                        JSONText.appendEscapedScalars(text, to: &expected)
                        expected.append(0x22)
                        #expect(quoted == expected, "\(Array(text.utf8))")
                    }
                }
            }
        }
    }

    @Test func jsonLinesAreWhatJSONEncoderWrote() throws {
        for (index, photo) in Self.photos().enumerated() {
            let value = PhotoJSON(
                photo: photo, thumbnailPath: index % 2 == 0 ? "/cache/images/\(index).jpg" : nil, thumbnailSynthesized: index == 3)
            var json = JSONText(pretty: false)
            value.write(to: &json)
            #expect(json.text == (try JSONOutput.encode(value, pretty: false)), "photo \(index)")
        }
    }

    @Test func theListingDocumentIsWhatJSONEncoderWrote() throws {
        for photos in [Self.photos(), []] {
            let document = ListingJSON(
                page: 2, perPage: 30, total: photos.isEmpty ? nil : 12345, hasMore: true,
                photos: photos.map { PhotoJSON(photo: $0, thumbnailPath: $0.thumbnailURL.map { "/c/\($0.count)" }) },
                providers: [
                    .init(name: "flickr", firstPage: 2, lastPage: 3, total: nil, hasMore: true, count: 9, cached: false, ageSeconds: 0),
                    .init(name: "nasa \u{202E}", firstPage: 1, lastPage: 1, total: 4, hasMore: false, count: 4, cached: true, ageSeconds: 61),
                ],
                cached: false, ageSeconds: 61, failed: [.init(provider: "openverse", error: "cannot connect \u{1B}[31m")])
            var json = JSONText(pretty: true)
            document.write(to: &json)
            #expect(json.text == (try JSONOutput.encode(document, pretty: true)))
        }
        let empty = ListingJSON(page: 1, perPage: 1, total: 0, hasMore: false, photos: [], providers: [], cached: true, ageSeconds: 0)
        var json = JSONText(pretty: true)
        empty.write(to: &json)
        #expect(json.text == (try JSONOutput.encode(empty, pretty: true)))
    }

    /// Numbers written digit by digit are what String(value) writes, at the ends of Int too;
    /// nesting past the 64 levels kept in bits still separates members right.
    @Test func numbersAndDeepNestingAreWrittenAsJSONEncoderWould() throws {
        for value in [0, 7, -1, 9, 10, -10, 1_234_567_890, Int.max, Int.min, Int.min + 1] {
            var json = JSONText(pretty: false)
            json.int(value)
            #expect(json.text == String(value))
        }
        var nested = JSONText(pretty: false)
        var expected = ""
        for _ in 0..<70 {
            nested.beginArray()
            nested.element()
            nested.int(1)
            nested.element()
            expected += "[1,"
        }
        nested.int(2)
        expected += "2"
        for level in 0..<70 {
            nested.endArray()
            expected += "]"
            // A member after a closed array, at every level: the comma comes from the level's bit.
            if level < 69 {
                nested.element()
                nested.int(3)
                expected += ",3"
            }
        }
        #expect(nested.text == expected)
        let decoded = try JSONSerialization.jsonObject(with: Data(nested.bytes))
        #expect(decoded is [Any])
    }

    /// Written in pieces as it is made (a listing of 500 is most of a megabyte): the pieces put
    /// together are the document, and the buffer stays near the piece size.
    @Test func aDocumentWrittenInPiecesIsTheSameDocument() throws {
        let photos = Array(repeating: Self.photos(), count: 20).flatMap { $0 }
        let document = ListingJSON(
            page: 1, perPage: photos.count, total: nil, hasMore: false, photos: photos.map { PhotoJSON(photo: $0, thumbnailPath: nil) },
            providers: [], cached: false, ageSeconds: 0)
        for threshold in [1, 100, 4096] {
            nonisolated(unsafe) var pieces: [[UInt8]] = []
            var json = JSONText(pretty: true, flushingEvery: threshold) { pieces.append(Array($0)) }
            document.write(to: &json)
            json.raw("\n")
            json.flushNow()
            #expect(json.bytes.isEmpty)
            #expect(String(decoding: pieces.flatMap { $0 }, as: UTF8.self) == (try JSONOutput.encode(document, pretty: true)) + "\n")
            #expect(pieces.count > 10, "\(threshold): \(pieces.count) pieces")
            // A piece ends at the first member or element after the threshold: one value more.
            #expect(pieces.dropLast().allSatisfy { $0.count >= threshold && $0.count < threshold + 2_000 }, "\(threshold): \(pieces.map(\.count).max() ?? 0)")
        }
    }

    /// Dates are written as Foundation's `.iso8601` style writes them, whether by arithmetic (the
    /// Gregorian calendar's days to the year 9999, fractions of a second, times before 1970) or,
    /// outside that, by Foundation itself (the Julian calendar before 1582-10-15).
    @Test func datesAreWrittenAsFoundationsISO8601Style() {
        var generator = SystemRandomNumberGenerator()
        var seconds: [Double] = [0, -0.5, -1, 0.999, 86_399.9, -86_400, 951_782_400, 4_107_542_400, -62_135_596_800, -12_219_292_800, -12_219_292_800.5, 253_402_300_799.5,
                                 1_234_567_890, -5.5, 1e8, 1_700_000_000.25]
        for _ in 0..<20_000 { seconds.append(Double.random(in: -62_135_596_800..<253_402_300_800, using: &generator)) }
        for _ in 0..<2_000 { seconds.append(Double(Int.random(in: -1_000_000...1_000_000, using: &generator)) * 86_400) }
        for value in seconds {
            let date = Date(timeIntervalSince1970: value)
            #expect(PhotoJSON.format(date) == date.formatted(.iso8601), "\(value)")
        }
        // Beyond the years 1 to 9999: Foundation's own answer.
        for value in [-62_135_596_801, 253_402_300_800, 1e15, -1e15] as [Double] {
            let date = Date(timeIntervalSince1970: value)
            #expect(PhotoJSON.format(date) == date.formatted(.iso8601), "\(value)")
        }
    }
}
