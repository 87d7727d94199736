import Foundation
import PhotosTestSupport
import Testing

@testable import FlickrProvider

/// The byte-wise readers a listing runs for every photo give what the general ones give.
@Suite struct FlickrFastPathTests {
    /// `YYYY-MM-DD HH:MM:SS` texts near every edge: leap days, month ends, second 60, the
    /// calendar's first Gregorian years, year 0, and random digits in every field.
    static func dateTexts() -> [String] {
        var texts = [
            "2024-02-29 12:00:00", "2023-02-29 12:00:00", "1900-02-29 00:00:00", "2000-02-29 00:00:00", "2023-04-31 00:00:00",
            "2023-12-31 23:59:60", "1583-01-01 00:00:00", "1582-10-15 00:00:00", "9999-12-31 23:59:59", "0000-00-00 00:00:00",
            "1970-01-01 00:00:00", "1969-12-31 23:59:59", "2023-01-01T10:20:30", "2023-13-01 00:00:00", "2023-00-10 00:00:00",
            "2023-01-00 00:00:00", "2023-01-01 24:00:00", "2023-01-01 00:60:00", "2023-01-01 00:00:61", "2023-1-01 00:00:000",
        ]
        var state: UInt32 = 4242
        func next(_ bound: Int) -> Int {
            state = state &* 1_103_515_245 &+ 12345
            return Int(state >> 16) % bound
        }
        for _ in 0..<3000 {
            let year = [1583, 1600, 1700, 1900, 1999, 2000, 2004, 2023, 2100, 2400, 9999][next(11)] + next(3) - 1
            let text = String(format: "%04d-%02d-%02d %02d:%02d:%02d", year, next(14), next(33), next(26), next(62), next(62))
            texts.append(text)
        }
        return texts
    }

    @Test func flickrDatesReadByArithmeticAsTheCalendarReadsThem() {
        var fast = 0
        for text in Self.dateTexts() {
            guard let date = FlickrDates.takenFast(text) else { continue }
            fast += 1
            #expect(date == FlickrDates.takenByCalendar(text), "\(text)")
        }
        #expect(fast > 2500)
        #expect(FlickrDates.taken("0000-00-00 00:00:00") == nil)
        #expect(FlickrDates.taken(" 2023-01-01 10:20:30 ") == FlickrDates.takenByCalendar("2023-01-01 10:20:30"))
        #expect(FlickrDates.takenFast("1582-10-04 00:00:00") == nil, "before 1583 the calendar decides")
    }

    @Test func pageURLsOfPlainOwnersNeedNoEscapingAndOthersAreEscaped() {
        #expect(FlickrAPI.pageURL(owner: "105731165@N07", id: "1") == "https://www.flickr.com/photos/105731165@N07/1/")
        #expect(FlickrAPI.pageURL(owner: "a-b_c.d~e", id: "1") == "https://www.flickr.com/photos/a-b_c.d~e/1/")
        #expect(FlickrAPI.pageURL(owner: "a b", id: "1") == "https://www.flickr.com/photos/a%20b/1/")
        #expect(FlickrAPI.pageURL(owner: "é", id: "1") == "https://www.flickr.com/photos/%C3%A9/1/")
        #expect(FlickrAPI.pageURL(owner: "a/b", id: "1") == "https://www.flickr.com/photo.gne?id=1")
        #expect(FlickrAPI.pageURL(owner: "", id: "1") == "https://www.flickr.com/photo.gne?id=1")
    }

    @Test func ownersAreEmptyWhenOnlyBlank() {
        #expect(FlickrProvider.nonEmpty("  ") == nil)
        #expect(FlickrProvider.nonEmpty("\u{3000}") == nil)
        #expect(FlickrProvider.nonEmpty(" x") == " x")
        #expect(FlickrProvider.nonEmpty("x") == "x")
        #expect(FlickrProvider.nonEmpty("") == nil)
        #expect(FlickrProvider.nonEmpty(nil) == nil)
    }

    /// Tags split by bytes as by characters: ASCII words, runs of spaces, spaces at the ends,
    /// and text that is not ASCII (a space before a combining mark is not a separator).
    @Test func tagsSplitByBytesAsByCharacters() {
        let pieces = ["a", "dog", " ", "  ", "\t", "\r\n", "é", " \u{301}", "中", "x:y=z"]
        let texts: [String?] = [nil, "", " ", "a", " a ", "a  b", " \u{301}x y"] + generatedTexts(3000, of: pieces, maxPieces: 8, seed: 77)
        for text in texts {
            #expect(FlickrProvider.tags(text) == (text ?? "").split(whereSeparator: { $0 == " " }).map(String.init), "\(String(describing: text))")
        }
    }
}
