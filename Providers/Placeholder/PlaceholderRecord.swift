import Foundation

/// One jsonplaceholder record, read leniently: numbers may arrive as numeric strings, and a
/// missing or mistyped field becomes nil instead of failing the page.
struct PlaceholderRecord: Decodable {
    var id: String?
    var albumId: Int?
    var title: String?
    var url: String?
    var thumbnailUrl: String?

    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(_ string: String) { stringValue = string }
        init?(stringValue: String) { self.init(stringValue) }
        init?(intValue: Int) { nil }
    }

    init(from decoder: any Decoder) throws {
        let object = try decoder.container(keyedBy: Key.self)
        func string(_ name: String) -> String? {
            let key = Key(name)
            if let text = try? object.decodeIfPresent(String.self, forKey: key) { return text }
            if let number = try? object.decodeIfPresent(Int.self, forKey: key) { return String(number) }
            return nil
        }
        id = string("id")
        albumId = string("albumId").flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        title = string("title")
        url = string("url")
        thumbnailUrl = string("thumbnailUrl")
    }
}

/// An array whose elements are decoded one by one; an element that is not a record is skipped.
struct PlaceholderRecords: Decodable {
    var records: [PlaceholderRecord]
    /// Records past `limit`, counted but not decoded.
    var extra = 0
    /// Records within `limit` that are not photo objects at all (`1`, `null`, a string).
    var unreadable = 0

    /// The most records decoded, from the decoder's `userInfo[.recordLimit]`: a server that
    /// sends a million records for a page of 30 costs the parse, not a million decodes.
    static let limitKey = CodingUserInfoKey(rawValue: "recordLimit")!

    private struct Skip: Decodable {
        init(from decoder: any Decoder) throws {}
    }

    init(from decoder: any Decoder) throws {
        var array = try decoder.unkeyedContainer()
        var records: [PlaceholderRecord] = []
        let limit = decoder.userInfo[Self.limitKey] as? Int ?? .max
        while !array.isAtEnd {
            if array.currentIndex >= limit {
                extra = (array.count ?? array.currentIndex) - array.currentIndex
                break
            }
            if let record = try? array.decode(PlaceholderRecord.self) {
                records.append(record)
            } else {
                _ = try array.decode(Skip.self)
                unreadable += 1
            }
        }
        self.records = records
    }
}
