import Foundation

@testable import FlickrProvider

// The JSONDecoder-based reading of Flickr listings that JSONDocument replaced, kept as the
// reference the new reading is compared with (FlickrDecodingEquivalenceTests): the same photos
// from every fixture and every variant of them, and a refusal wherever it refused.

/// A coding key for any name.
struct LegacyFlickrKey: CodingKey {
    var stringValue: String
    var intValue: Int?

    init(_ string: String) {
        stringValue = string
        intValue = nil
    }

    init?(stringValue: String) { self.init(stringValue) }

    init?(intValue: Int) {
        stringValue = String(intValue)
        self.intValue = intValue
    }
}

typealias LegacyFlickrObject = KeyedDecodingContainer<LegacyFlickrKey>

extension KeyedDecodingContainer where Key == LegacyFlickrKey {
    /// A string, or a number rendered as a string.
    func string(_ name: String) -> String? {
        let key = LegacyFlickrKey(name)
        if let text = try? decodeIfPresent(String.self, forKey: key) { return text }
        if let number = try? decodeIfPresent(Int.self, forKey: key) { return String(number) }
        if let number = try? decodeIfPresent(Double.self, forKey: key), number.isFinite {
            return number == number.rounded() && abs(number) < 1e15 ? String(Int(number)) : String(number)
        }
        if let flag = try? decodeIfPresent(Bool.self, forKey: key) { return flag ? "1" : "0" }
        return nil
    }

    /// A number, or a numeric string (`"12"`, `"12.0"`).
    func int(_ name: String) -> Int? {
        let key = LegacyFlickrKey(name)
        if let number = try? decodeIfPresent(Int.self, forKey: key) { return number }
        if let number = try? decodeIfPresent(Double.self, forKey: key) { return Int(exactly: number.rounded(.towardZero)) }
        if let text = try? decodeIfPresent(String.self, forKey: key) { return legacyFlickrInt(text) }
        return nil
    }

    /// A plain string or an object's `_content`.
    func content(_ name: String) -> String? {
        if let text = string(name) { return text }
        return object(name)?.string("_content")
    }

    func object(_ name: String) -> LegacyFlickrObject? {
        try? nestedContainer(keyedBy: LegacyFlickrKey.self, forKey: LegacyFlickrKey(name))
    }

    /// The objects of an array; elements that are not objects are skipped. A single object is
    /// read as a one-element array (some serializers collapse one-element lists).
    func objects(_ name: String) -> [LegacyFlickrObject] {
        let key = LegacyFlickrKey(name)
        if var array = try? nestedUnkeyedContainer(forKey: key) {
            var result: [LegacyFlickrObject] = []
            while !array.isAtEnd {
                if let element = try? array.nestedContainer(keyedBy: LegacyFlickrKey.self) {
                    result.append(element)
                } else if (try? array.decode(LegacySkip.self)) == nil {
                    break
                }
            }
            return result
        }
        return object(name).map { [$0] } ?? []
    }
}

/// Consumes one array element of any type.
private struct LegacySkip: Decodable {
    init(from decoder: any Decoder) throws {}
}

/// `"12"` -> 12, `"12.0"` -> 12, anything else nil.
func legacyFlickrInt(_ text: String) -> Int? {
    let trimmed = text.trimmingCharacters(in: .whitespaces)
    if let value = Int(trimmed) { return value }
    if let value = Double(trimmed), value.isFinite { return Int(exactly: value.rounded(.towardZero)) }
    return nil
}

/// `{"stat":"fail","code":N,"message":"..."}`, or the `stat` of any response.
struct LegacyFlickrStatus: Decodable {
    var stat: String?
    var code: Int?
    var message: String?

    init(from decoder: any Decoder) throws {
        let object = try decoder.container(keyedBy: LegacyFlickrKey.self)
        stat = object.string("stat")
        code = object.int("code")
        message = object.string("message")
    }

    var isFailure: Bool { stat?.lowercased() == "fail" }
}

/// One photo of a search or recent listing, with the extras photos asks for.
struct LegacyFlickrPhotoRecord {
    var id: String?
    var owner: String?
    var ownerName: String?
    var secret: String?
    var server: String?
    var title: String?
    var description: String?
    var dateUpload: String?
    var dateTaken: String?
    var tags: String?
    var license: String?
    var views: String?
    var media: String?
    var pathAlias: String?
    /// `url_X` with `width_X`/`height_X`, by suffix letter (q, m, z, l, o).
    var urls: [String: (url: String, width: Int?, height: Int?)] = [:]

    init(_ object: LegacyFlickrObject) {
        id = object.string("id")
        owner = object.string("owner")
        ownerName = object.string("ownername")
        secret = object.string("secret")
        server = object.string("server")
        title = object.content("title")
        description = object.content("description")
        dateUpload = object.string("dateupload")
        dateTaken = object.string("datetaken")
        tags = object.string("tags")
        license = object.string("license")
        views = object.string("views")
        media = object.string("media")
        pathAlias = object.string("pathalias")
        for size in ["sq", "q", "t", "s", "n", "w", "m", "z", "c", "l", "h", "k", "o"] {
            if let url = object.string("url_\(size)") {
                urls[size] = (url, object.int("width_\(size)"), object.int("height_\(size)"))
            }
        }
    }
}

/// `{"photos":{"page","pages","perpage","total","photo":[...]},"stat":"ok"}`.
struct LegacyFlickrPhotoList: Decodable {
    var page: Int?
    var pages: Int?
    var perPage: Int?
    var total: Int?
    var photos: [LegacyFlickrPhotoRecord]

    init(from decoder: any Decoder) throws {
        let root = try decoder.container(keyedBy: LegacyFlickrKey.self)
        guard let list = root.object("photos") else {
            throw DecodingError.keyNotFound(
                LegacyFlickrKey("photos"), .init(codingPath: [], debugDescription: "no 'photos' object"))
        }
        page = list.int("page")
        pages = list.int("pages")
        perPage = list.int("perpage") ?? list.int("per_page")
        total = list.int("total")
        photos = list.objects("photo").map(LegacyFlickrPhotoRecord.init)
    }
}

extension LegacyFlickrPhotoRecord {
    /// The record as the provider's mapping takes it.
    var record: FlickrPhotoRecord {
        var record = FlickrPhotoRecord()
        record.id = id
        record.owner = owner
        record.ownerName = ownerName
        record.secret = secret
        record.server = server
        record.title = title
        record.description = description
        record.dateUpload = dateUpload
        record.dateTaken = dateTaken
        record.tags = tags
        record.license = license
        record.views = views
        record.media = media
        record.pathAlias = pathAlias
        for (suffix, size) in urls { record.urls[suffix] = size }
        return record
    }
}
