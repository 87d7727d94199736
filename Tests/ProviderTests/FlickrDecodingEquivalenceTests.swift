import Foundation
import PhotosCore
import Testing

@testable import FlickrProvider

/// Flickr listings read through JSONDocument give the photos the JSONDecoder-based reading gave
/// (LegacyFlickrDecoder.swift) on every recorded listing and fuzz seed, on those cut short, on a
/// synthesized search of 500 and on hand-made documents. Where the two differ they differ by
/// rule: JSONDocument refuses what is not JSON (trailing commas, text after the document) that
/// JSONDecoder let through, keeps a string with a raw control or a byte that is not UTF-8 (as
/// U+FFFD) where JSONDecoder dropped the field, and takes the last of a name given twice.
@Suite struct FlickrDecodingEquivalenceTests {
    static let provider = FlickrProvider(
        context: ProviderContext(http: FakeHTTP.flickrFixtures(), settings: FlickrProviderTests.settings))

    /// What a reading made of a body: the page's numbers and photos, or that it was refused.
    struct Outcome: Equatable {
        var numbers: [Int?]
        var photos: [Photo?]
    }

    static func legacy(_ body: Data) -> Outcome? {
        guard let list = try? JSONDecoder().decode(LegacyFlickrPhotoList.self, from: body) else { return nil }
        return Outcome(
            numbers: [list.page, list.pages, list.perPage, list.total], photos: list.photos.map { provider.photo(from: $0.record) })
    }

    static func current(_ body: Data) -> Outcome? {
        guard let document = try? JSONDocument(parsing: body), let list = try? FlickrPhotoList(document) else { return nil }
        return Outcome(numbers: [list.page, list.pages, list.perPage, list.total], photos: list.photos.map(provider.photo(from:)))
    }

    static func listings() throws -> [(String, Data)] {
        var bodies: [(String, Data)] = []
        for name in ["search-dogs-page1.json", "search-dogs-page2.json", "search-dogs-page3.json", "recent-page1.json"] {
            bodies.append((name, try FixtureFiles.data("flickr/\(name)")))
        }
        let seeds = FixtureFiles.root.appendingPathComponent("fuzz/provider-flickr")
        for name in try FileManager.default.contentsOfDirectory(atPath: seeds.path).sorted() {
            bodies.append(("fuzz/\(name)", FlickrProvider.unwrapCallback(try Data(contentsOf: seeds.appendingPathComponent(name)))))
        }
        return bodies
    }

    func expectSame(_ body: Data, _ label: String) {
        let old = Self.legacy(body)
        let new = Self.current(body)
        #expect(old == new, "\(label): \(String(decoding: body.prefix(200), as: UTF8.self))")
    }

    @Test func everyRecordedListingGivesTheSamePhotos() throws {
        let bodies = try Self.listings()
        #expect(bodies.count >= 8)
        for (name, body) in bodies {
            if !name.hasPrefix("fuzz/") { #expect(Self.current(body) != nil, "\(name) reads") }
            expectSame(body, name)
        }
    }

    @Test func listingsCutShortOrChangedAreReadOrRefusedAlike() throws {
        let replacements: [UInt8] = Array("\"\\{}[],:0-e.tn \u{7F}".utf8) + [0x00, 0x0A, 0x80, 0xC3, 0xFF]
        for (name, body) in try Self.listings() {
            let bytes = [UInt8](body)
            let step = max(1, bytes.count / 150)
            for cut in stride(from: 0, to: bytes.count, by: step) {
                expectSame(Data(bytes[..<cut]), "\(name) cut at \(cut)")
            }
            // A changed byte may make another valid document, or one the two read by different
            // rules: whatever is read is a page of well-formed Flickr photos, or it is refused.
            for (index, position) in stride(from: 0, to: bytes.count, by: max(1, bytes.count / 60)).enumerated() {
                var changed = bytes
                changed[position] = replacements[index % replacements.count]
                guard let outcome = Self.current(Data(changed)) else { continue }
                for photo in outcome.photos.compactMap({ $0 }) {
                    #expect(photo.id.provider == "flickr" && !photo.id.raw.isEmpty && photo.id.raw.allSatisfy(\.isASCII) && photo.id.raw.allSatisfy(\.isNumber),
                        "\(name) byte \(position) changed: \(photo.id)")
                    for url in [photo.thumbnailURL, photo.imageURL].compactMap({ $0 }) {
                        #expect(url.hasPrefix("https://"), "\(name) byte \(position) changed: \(url)")
                    }
                }
            }
        }
    }

    @Test func handMadeDocumentsAreReadAlike() {
        let photo = #""id":"123","owner":"1@N01","secret":"abc","server":"65535","title":"T""#
        let documents = [
            "", " ", "null", "[]", "{}", "\"photos\"", #"{"photos":null}"#, #"{"photos":[]}"#, #"{"photos":{}}"#,
            #"{"photos":{"photo":null}}"#, #"{"photos":{"photo":{\#(photo)}}}"#,
            #"{"photos":{"photo":[{\#(photo)},null,1,"x",[]]}}"#,
            // Numbers in every form, where strings are expected and where numbers are.
            #"{"photos":{"page":"2","pages":3.0,"perpage":"10.5","total":1e3,"photo":[{"id":123,"server":65535.0,"secret":"s","title":7,"dateupload":1.7e9,"views":-0,"width_q":"150","height_q":1.5e2,"url_q":"https://x.test/q.jpg","width_l":1e400,"url_l":"https://x.test/l.jpg","height_l":"-12"}]}}"#,
            #"{"photos":{"page":99999999999999999999,"pages":-9223372036854775808,"perpage":9223372036854775807,"total":1.5,"photo":[{"id":"1","title":true,"owner":false,"ownername":"","tags":"a  b"}]}}"#,
            // Titles as objects, and _content of every type.
            #"{"photos":{"photo":[{"id":"1","title":{"_content":"in content"},"description":{"_content":5}},{"id":"2","title":{"other":1}},{"id":"3","title":null}]}}"#,
            // Names written with escapes.
            #"{"photos":{"photo":[{"i\u0064":"77","title":"first","url_q":"https://x.test/a.jpg"}]}}"#,
            // Escapes and non-ASCII text.
            #"{"photos":{"photo":[{"id":"5","title":"tab\there \"q\" \\ \/ \u00e9\u4e2d\ud83d\ude00 \u0000 é 中"}]}}"#,
            "\u{FEFF}{\"photos\":{\"photo\":[]}}",
            String(repeating: "[", count: 600) + String(repeating: "]", count: 600),
            #"{"photos":{"photo":[{"id":"1","x":"#, String(repeating: "[", count: 400) + String(repeating: "]", count: 400) + "}]}}",
        ]
        for (index, text) in documents.enumerated() {
            expectSame(Data(text.utf8), "document \(index)")
        }
    }

    @Test func whatIsNotJSONIsRefused() {
        for text in [
            #"{"photos":{"photo":[],}}"#, #"{"photos":{"photo":[1,]}}"#, #"{"photos":{"photo":[01]}}"#, #"{"photos":NaN}"#,
            #"{"photos":{"photo":[]}} x"#, #"{"photos":{"photo":[]}}/* c */"#, #"{'photos':{}}"#, #"{"photos":{"photo":[-]}}"#,
            #"{"photos":{"photo":[1.]}}"#, #"{"photos":{"photo":[.5]}}"#, #"{"photos":{"photo":[1e]}}"#, #"{"photos":{"photo":[tru]}}"#,
            #"{"photos":{"photo":[{"id":"6","title":"bad \x escape"}]}}"#,
        ] {
            #expect(Self.current(Data(text.utf8)) == nil, "\(text)")
        }
        #expect(Self.current(Data([0xFF, 0xFE] + Array(#"{}"#.utf8))) == nil)
    }

    /// A title with a raw control, a byte that is not UTF-8 or a lone surrogate is kept (repaired
    /// as U+FFFD; the terminal sanitiser handles the control), not dropped with its field.
    @Test func oddTextInsideStringsIsKept() throws {
        func title(_ bytes: [UInt8]) -> String? {
            let body = Array(#"{"photos":{"photo":[{"id":"1","title":""#.utf8) + bytes + Array(#""}]}}"#.utf8)
            return Self.current(Data(body))?.photos.first??.title
        }
        #expect(title(Array("raw\ttab".utf8)) == "raw\ttab")
        #expect(title([0x61, 0xC3, 0x28]) == "a\u{FFFD}(")
        #expect(title(Array(#"\ud800 lone"#.utf8)) == "\u{FFFD} lone")
        #expect(title([0xF0, 0x9F, 0x98, 0x80]) == "😀")
    }

    /// A name given twice: the last one counts, for a field and for the whole listing.
    @Test func theLastOfANameGivenTwiceCounts() throws {
        let twice = Self.current(Data(#"{"photos":{"photo":[{"id":"77","title":"first","title":"second"}]}}"#.utf8))
        #expect(twice?.photos.first??.title == "second")
        let listings = Self.current(Data(#"{"photos":{"photo":[{"id":"78"}]},"photos":{"photo":[{"id":"79"}]}}"#.utf8))
        #expect(listings?.photos.compactMap { $0?.id.raw } == ["79"])
    }

    @Test func theSynthesizedSearchOfFiveHundredGivesTheSamePhotos() {
        var records: [String] = []
        for number in 1...500 {
            let id = 5_300_000_000 + number
            var sizes: [String] = []
            for (key, width) in [("q", 150), ("m", 500), ("n", 320), ("z", 640), ("l", 1024), ("h", 1600), ("k", 2048), ("o", 4000)] {
                sizes.append(#""url_\#(key)":"https://live.staticflickr.com/65535/\#(id)_s_\#(key).jpg","width_\#(key)":\#(width),"height_\#(key)":\#(width * 3 / 4)"#)
            }
            records.append(
                #"{"id":"\#(id)","owner":"12037949754@N01","secret":"s\#(number)","server":"65535","farm":66,"title":"Photo \#(number)","#
                    + #""description":{"_content":"d"},"dateupload":"\#(1_700_000_000 + number)","datetaken":"2024-02-03 10:20:30","#
                    + #""ownername":"Owner","views":"\#(number)","tags":"a b","pathalias":"p","media":"photo",\#(sizes.joined(separator: ","))}"#)
        }
        let body = Data((#"{"photos":{"page":1,"pages":8,"perpage":500,"total":4000,"photo":["# + records.joined(separator: ",") + "]},\"stat\":\"ok\"}").utf8)
        let outcome = Self.current(body)
        #expect(outcome?.photos.count == 500)
        #expect(outcome?.photos.allSatisfy { $0?.sizes.count == 8 && $0?.thumbnailURL?.hasSuffix("_q.jpg") == true } == true)
        expectSame(body, "synthesized 500")
    }
}
