import Foundation

// Lenient Decodable types for Flickr's JSON. Types drift between recordings (numbers as numbers
// or strings, objects with `_content` or plain strings), so every field is read leniently and a
// malformed field becomes nil instead of failing the whole response.

/// A coding key for any name.
struct FlickrKey: CodingKey {
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

typealias FlickrObject = KeyedDecodingContainer<FlickrKey>

extension KeyedDecodingContainer where Key == FlickrKey {
    /// A string, or a number rendered as a string.
    func string(_ name: String) -> String? {
        let key = FlickrKey(name)
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
        let key = FlickrKey(name)
        if let number = try? decodeIfPresent(Int.self, forKey: key) { return number }
        if let number = try? decodeIfPresent(Double.self, forKey: key) { return Int(exactly: number.rounded(.towardZero)) }
        if let text = try? decodeIfPresent(String.self, forKey: key) { return flickrInt(text) }
        return nil
    }

    /// A plain string or an object's `_content`.
    func content(_ name: String) -> String? {
        if let text = string(name) { return text }
        return object(name)?.string("_content")
    }

    func object(_ name: String) -> FlickrObject? {
        try? nestedContainer(keyedBy: FlickrKey.self, forKey: FlickrKey(name))
    }

    /// The objects of an array; elements that are not objects are skipped. A single object is
    /// read as a one-element array (some serializers collapse one-element lists).
    func objects(_ name: String) -> [FlickrObject] {
        let key = FlickrKey(name)
        if var array = try? nestedUnkeyedContainer(forKey: key) {
            var result: [FlickrObject] = []
            while !array.isAtEnd {
                if let element = try? array.nestedContainer(keyedBy: FlickrKey.self) {
                    result.append(element)
                } else if (try? array.decode(Skip.self)) == nil {
                    break
                }
            }
            return result
        }
        return object(name).map { [$0] } ?? []
    }
}

/// Consumes one array element of any type.
private struct Skip: Decodable {
    init(from decoder: any Decoder) throws {}
}

/// `"12"` -> 12, `"12.0"` -> 12, anything else nil.
func flickrInt(_ text: String) -> Int? {
    let trimmed = text.trimmingCharacters(in: .whitespaces)
    if let value = Int(trimmed) { return value }
    if let value = Double(trimmed), value.isFinite { return Int(exactly: value.rounded(.towardZero)) }
    return nil
}

/// `{"stat":"fail","code":N,"message":"..."}`, or the `stat` of any response.
struct FlickrStatus: Decodable {
    var stat: String?
    var code: Int?
    var message: String?

    init(from decoder: any Decoder) throws {
        let object = try decoder.container(keyedBy: FlickrKey.self)
        stat = object.string("stat")
        code = object.int("code")
        message = object.string("message")
    }

    var isFailure: Bool { stat?.lowercased() == "fail" }
}

/// One photo of a search or recent listing, with the extras photos asks for.
struct FlickrPhotoRecord {
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

    init(_ object: FlickrObject) {
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
struct FlickrPhotoList: Decodable {
    var page: Int?
    var pages: Int?
    var perPage: Int?
    var total: Int?
    var photos: [FlickrPhotoRecord]

    init(from decoder: any Decoder) throws {
        let root = try decoder.container(keyedBy: FlickrKey.self)
        guard let list = root.object("photos") else {
            throw DecodingError.keyNotFound(
                FlickrKey("photos"), .init(codingPath: [], debugDescription: "no 'photos' object"))
        }
        page = list.int("page")
        pages = list.int("pages")
        perPage = list.int("perpage") ?? list.int("per_page")
        total = list.int("total")
        photos = list.objects("photo").map(FlickrPhotoRecord.init)
    }
}

/// flickr.photos.getInfo: `{"photo":{...},"stat":"ok"}`.
struct FlickrInfo: Decodable {
    var id: String?
    var secret: String?
    var server: String?
    var title: String?
    var description: String?
    var ownerNSID: String?
    var ownerUsername: String?
    var ownerRealName: String?
    var ownerLocation: String?
    var posted: String?
    var taken: String?
    var dateUploaded: String?
    var views: String?
    var license: String?
    var media: String?
    var tags: [String] = []
    var photoPageURL: String?

    init(from decoder: any Decoder) throws {
        let root = try decoder.container(keyedBy: FlickrKey.self)
        guard let photo = root.object("photo") else {
            throw DecodingError.keyNotFound(FlickrKey("photo"), .init(codingPath: [], debugDescription: "no 'photo' object"))
        }
        id = photo.string("id")
        secret = photo.string("secret")
        server = photo.string("server")
        title = photo.content("title")
        description = photo.content("description")
        if let owner = photo.object("owner") {
            ownerNSID = owner.string("nsid")
            ownerUsername = owner.string("username")
            ownerRealName = owner.string("realname")
            ownerLocation = owner.string("location")
        } else {
            ownerNSID = photo.string("owner")
        }
        if let dates = photo.object("dates") {
            posted = dates.string("posted")
            taken = dates.string("taken")
        }
        dateUploaded = photo.string("dateuploaded")
        views = photo.string("views")
        license = photo.string("license")
        media = photo.string("media")
        if let tagList = photo.object("tags") {
            tags = tagList.objects("tag").compactMap { tag in
                let text = tag.string("_content") ?? tag.string("raw")
                return text.flatMap { $0.isEmpty ? nil : $0 }
            }
        } else if let raw = photo.string("tags") {
            tags = raw.split(separator: " ").map(String.init)
        }
        if let urls = photo.object("urls") {
            photoPageURL = urls.objects("url").first { $0.string("type") == "photopage" }?.string("_content")
        }
    }
}

/// flickr.photos.getSizes: `{"sizes":{"size":[{"label","width","height","source","url","media"}]},"stat":"ok"}`.
struct FlickrSizes: Decodable {
    struct Size {
        var label: String
        var width: Int?
        var height: Int?
        var source: String
    }

    var sizes: [Size]

    init(from decoder: any Decoder) throws {
        let root = try decoder.container(keyedBy: FlickrKey.self)
        guard let list = root.object("sizes") else {
            throw DecodingError.keyNotFound(FlickrKey("sizes"), .init(codingPath: [], debugDescription: "no 'sizes' object"))
        }
        sizes = list.objects("size").compactMap { size in
            guard let source = size.string("source") else { return nil }
            return Size(label: size.string("label") ?? "", width: size.int("width"), height: size.int("height"), source: source)
        }
    }
}

enum FlickrDates {
    private static let utc: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar
    }()

    /// A unix time (seconds, as text) -> Date; nil for anything else or 0.
    static func unix(_ text: String?) -> Date? {
        guard let text, let seconds = flickrInt(text), seconds > 0 else { return nil }
        return Date(timeIntervalSince1970: TimeInterval(seconds))
    }

    /// `YYYY-MM-DD HH:MM:SS` (read as UTC) -> Date; nil for `0000-00-00 00:00:00` and malformed text.
    static func taken(_ text: String?) -> Date? {
        guard let text else { return nil }
        let parts = text.trimmingCharacters(in: .whitespaces).split(whereSeparator: { $0 == " " || $0 == "T" })
        guard parts.count >= 1, parts.count <= 2 else { return nil }
        let day = parts[0].split(separator: "-", omittingEmptySubsequences: false).map { Int($0) }
        let time = parts.count == 2 ? parts[1].split(separator: ":", omittingEmptySubsequences: false).map { Int($0) } : [0, 0, 0]
        guard day.count == 3, (2...3).contains(time.count),
            let year = day[0], let month = day[1], let dayOfMonth = day[2],
            let hour = time[0], let minute = time[1], let second = time.count == 3 ? time[2] : 0,
            (1...9999).contains(year), (1...12).contains(month), (1...31).contains(dayOfMonth),
            (0...23).contains(hour), (0...59).contains(minute), (0...60).contains(second)
        else { return nil }
        let components = DateComponents(year: year, month: month, day: dayOfMonth, hour: hour, minute: minute, second: second)
        guard let date = utc.date(from: components), utc.component(.day, from: date) == dayOfMonth else { return nil }
        return date
    }
}
