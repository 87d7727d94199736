import Foundation
import PhotosCore
import Testing

/// The JSON parser providers read responses with: strict, bounded, and lazy about conversions.
struct JSONDocumentTests {
    func parse(_ text: String) throws -> JSONDocument { try JSONDocument(parsing: Data(text.utf8)) }

    @Test func readsValuesInPlace() throws {
        let document = try parse(#" {"a":[1,-2,3.5,1e2,"x\n\u00e9",true,false,null,{}],"b":{"c":"d"},"a\u0062c":9} "#)
        let root = document.root
        #expect(root.kind == .object && root.count == 3)
        let array = try #require(root["a"])
        #expect(array.count == 9)
        let elements = Array(array.elements)
        #expect(elements[0].integer == 1 && elements[1].integer == -2)
        #expect(elements[2].integer == nil && elements[2].double == 3.5 && elements[3].double == 100)
        #expect(elements[4].string == "x\né")
        #expect(elements[5].bool == true && elements[6].bool == false && elements[7].isNull && elements[8].count == 0)
        #expect(root["b"]?["c"]?.string == "d")
        #expect(root["abc"]?.integer == 9, "names are compared with their escapes decoded")
        #expect(root["missing"] == nil && array["a"] == nil)
        #expect(Array(root.members).map(\.key.string) == ["a", "b", "abc"])
    }

    @Test func integersOverflowToNil() throws {
        let document = try parse("[9223372036854775807,-9223372036854775808,9223372036854775808,-9223372036854775809]")
        #expect(Array(document.root.elements).map(\.integer) == [Int.max, Int.min, nil, nil])
    }

    @Test func refusesWhatIsNotStrictJSON() {
        for text in [
            "", "[", "]", "[1,]", "{\"a\":1,}", "{a:1}", "[01]", "[1.]", "[.1]", "[+1]", "[1e]", "[NaN]", "[tru]", "[\"\\x\"]",
            "[1] [2]", "{\"a\" 1}", "[\"\\u12\"]", "/**/[]",
        ] {
            #expect(throws: JSONDocument.ParseError.self, "\(text)") { try parse(text) }
        }
    }

    /// Servers send titles with raw tabs and bytes that are not UTF-8: the string is read (a
    /// control kept, for the sanitiser; a bad byte as U+FFFD) rather than the page refused.
    @Test func readsRawControlsAndBadUTF8InsideStrings() throws {
        #expect(try parse("[\"a\u{1}\tb\"]").root.elements.first(where: { _ in true })?.string == "a\u{1}\tb")
        #expect(try JSONDocument(parsing: Data([0x5B, 0x22, 0xC3, 0x28, 0x22, 0x5D])).root.elements.first(where: { _ in true })?.string == "\u{FFFD}(")
        #expect(try JSONDocument(parsing: Data([0x5B, 0x22, 0xED, 0xA0, 0x80, 0x22, 0x5D])).root.elements.first(where: { _ in true })?.string?.allSatisfy { $0 == "\u{FFFD}" } == true)
        #expect(try parse(#"["\ud800 lone", "\udc00\ud800", "\ud83d\ude00"]"#).root.elements.map(\.string) == ["\u{FFFD} lone", "\u{FFFD}\u{FFFD}", "😀"])
    }

    @Test func nestingIsBounded() throws {
        let deep = JSONDocument.maxDepth
        _ = try parse(String(repeating: "[", count: deep) + String(repeating: "]", count: deep))
        #expect(throws: JSONDocument.ParseError.self) {
            try parse(String(repeating: "[", count: deep + 1) + String(repeating: "]", count: deep + 1))
        }
        #expect(throws: JSONDocument.ParseError.self) { try parse(String(repeating: "[{\"a\":", count: 100_000)) }
    }

    @Test func aByteOrderMarkIsWhiteSpace() throws {
        #expect(try JSONDocument(parsing: Data([0xEF, 0xBB, 0xBF] + Array("[1]".utf8))).root.count == 1)
    }

    /// Values are counted outside strings only: commas and brackets in a title are text.
    @Test func answersWithFarTooManyValuesAreToldApart() {
        let empties = Data(("[" + Array(repeating: "{}", count: 20).joined(separator: ",") + "]").utf8)
        #expect(JSONLimits.exceeds(empties, limit: 30), "20 objects and 19 commas, and the array: 40")
        #expect(!JSONLimits.exceeds(empties, limit: 40))
        let text = Data(("[\"" + String(repeating: "{[,", count: 30) + "\\\",[{\"]").utf8)
        #expect(!JSONLimits.exceeds(text, limit: 2), "one array, one string holding brackets, commas and an escaped quote")
        let page = Data(("{\"photos\":[" + Array(repeating: #"{"id":"1","title":"a, b","tags":["x","y"]}"#, count: 500).joined(separator: ",") + "]}").utf8)
        #expect(!JSONLimits.exceeds(page), "a page of 500 is far from the limit")
        #expect(!JSONLimits.exceeds(Data(), limit: 0) && !JSONLimits.exceeds(Data("[]".utf8), limit: 1))
    }
}
