import Foundation
import PhotosCore
import Testing

/// Provider fields read leniently from JSONSerialization's values: numbers as strings are read,
/// booleans and numbers no field holds are not.
@Suite struct LenientJSONTests {
    static func fields(_ json: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
    }

    @Test func aBooleanIsNeitherTextNorANumber() throws {
        let object = try Self.fields(#"{"yes": true, "no": false, "one": 1, "zero": 0, "text": "t"}"#)
        #expect(LenientJSON.string(object["yes"]) == nil && LenientJSON.string(object["no"]) == nil, "title false was the title 0")
        #expect(LenientJSON.int(object["yes"]) == nil && LenientJSON.int(object["no"]) == nil, "width true was 1 pixel")
        #expect(LenientJSON.int(object["one"]) == 1 && LenientJSON.int(object["zero"]) == 0)
        #expect(LenientJSON.string(object["one"]) == "1" && LenientJSON.string(object["text"]) == "t")
    }

    @Test func numbersAsStringsAreBoundedAsNumbersAre() throws {
        let object = try Self.fields(
            #"{"big": "9223372036854775807", "min": "-9223372036854775808", "sixteen": "1000000000000000", "bigNumber": 9223372036854775807, "fine": " 4096 ", "edge": 999999999999999, "half": 1.5, "neg": "-12"}"#)
        #expect(LenientJSON.int(object["big"]) == nil, "a string of 19 digits was read whole, a number of them refused")
        #expect(LenientJSON.int(object["min"]) == nil, "Int.min as a string is refused, never a trap")
        #expect(LenientJSON.int(object["sixteen"]) == nil, "16 digits, as a number of them is refused")
        #expect(LenientJSON.int(object["bigNumber"]) == nil)
        #expect(LenientJSON.int(object["fine"]) == 4096 && LenientJSON.int(object["edge"]) == 999_999_999_999_999)
        #expect(LenientJSON.int(object["half"]) == nil && LenientJSON.int(object["neg"]) == -12)
        #expect(LenientJSON.int(object["missing"]) == nil && LenientJSON.string(object["missing"]) == nil)
    }
}
