import Foundation
import PhotosCore

// Flickr's JSON read leniently. Types drift between recordings (numbers as numbers or strings,
// objects with `_content` or plain strings), so every field is read leniently and a malformed
// field becomes nil instead of failing the whole response. The text is parsed once
// (JSONDocument); a listing's records are read in one pass over their members.

/// A JSON object read leniently: what a field holds is converted to what photos wants.
struct FlickrObject {
    let value: JSONValue

    init?(_ value: JSONValue?) {
        guard let value, value.kind == .object else { return nil }
        self.value = value
    }

    /// A string, or a number rendered as a string.
    func string(_ name: String) -> String? { value[name].flatMap(Self.string) }

    /// A number, or a numeric string (`"12"`, `"12.0"`).
    func int(_ name: String) -> Int? { value[name].flatMap(Self.int) }

    /// A plain string or an object's `_content`.
    func content(_ name: String) -> String? { value[name].flatMap(Self.content) }

    func object(_ name: String) -> FlickrObject? { FlickrObject(value[name]) }

    /// The objects of an array; elements that are not objects are skipped. A single object is
    /// read as a one-element array (some serializers collapse one-element lists).
    func objects(_ name: String) -> [FlickrObject] { value[name].map(Self.objects) ?? [] }

    static func string(_ value: JSONValue) -> String? {
        switch value.kind {
        case .string:
            return value.string
        case .number:
            if let number = value.integer { return String(number) }
            if let number = value.double, number.isFinite {
                return number == number.rounded() && abs(number) < 1e15 ? String(Int(number)) : String(number)
            }
            return nil
        case .true: return "1"
        case .false: return "0"
        default: return nil
        }
    }

    static func int(_ value: JSONValue) -> Int? {
        switch value.kind {
        case .number:
            if let number = value.integer { return number }
            guard let number = value.double, number.isFinite else { return nil }
            return Int(exactly: number.rounded(.towardZero))
        case .string:
            return value.string.flatMap(flickrInt)
        default:
            return nil
        }
    }

    static func content(_ value: JSONValue) -> String? {
        string(value) ?? FlickrObject(value)?.string("_content")
    }

    static func objects(_ value: JSONValue) -> [FlickrObject] {
        switch value.kind {
        case .array: return value.elements.compactMap(FlickrObject.init)
        case .object: return FlickrObject(value).map { [$0] } ?? []
        default: return []
        }
    }
}

/// `"12"` -> 12, `"12.0"` -> 12, anything else nil.
func flickrInt(_ text: String) -> Int? {
    let trimmed = text.trimmingWhitespace()
    if let value = Int(trimmed) { return value }
    if let value = Double(trimmed), value.isFinite { return Int(exactly: value.rounded(.towardZero)) }
    return nil
}

/// Why a response could not be read, for ``FlickrProvider/reason(_:)``.
enum FlickrDecodingError: Error {
    /// The top-level value is not an object.
    case notAnObject
    /// The object lacks the member every answer of this method has.
    case missing(String)
}

/// `{"stat":"fail","code":N,"message":"..."}`, or the `stat` of any response.
struct FlickrStatus {
    var stat: String?
    var code: Int?
    var message: String?

    /// Nil when the response is not an object.
    init?(_ document: JSONDocument) {
        guard let object = FlickrObject(document.root) else { return nil }
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
    var urls = SizeURLs()

    /// The url_* suffixes read, in the order of ``SizeURLs``.
    static let sizes = ["sq", "q", "t", "s", "n", "w", "m", "z", "c", "l", "h", "k", "o"]

    /// The url_* extras of one record, one slot per suffix of ``FlickrPhotoRecord/sizes``.
    struct SizeURLs {
        typealias Size = (url: String, width: Int?, height: Int?)
        private var slots = [Size?](repeating: nil, count: FlickrPhotoRecord.sizes.count)

        init() {}

        subscript(suffix: String) -> Size? {
            get { FlickrPhotoRecord.sizes.firstIndex(of: suffix).flatMap { slots[$0] } }
            set { if let index = FlickrPhotoRecord.sizes.firstIndex(of: suffix) { slots[index] = newValue } }
        }

        subscript(slot index: Int) -> Size? {
            get { slots[index] }
            set { slots[index] = newValue }
        }

        var count: Int { slots.reduce(0) { $0 + ($1 == nil ? 0 : 1) } }
    }

    init() {}

    /// The member names read, by length: field codes below 100 are ``Field`` cases; 100 + i,
    /// 200 + i and 300 + i are `url_`, `width_` and `height_` of ``sizes``[i].
    private static let names: [[(name: [UInt8], code: Int)]] = {
        var all: [(String, Int)] = Field.allCases.map { ($0.name, $0.rawValue) }
        for (index, size) in sizes.enumerated() {
            all += [("url_" + size, 100 + index), ("width_" + size, 200 + index), ("height_" + size, 300 + index)]
        }
        var table = [[(name: [UInt8], code: Int)]](repeating: [], count: (all.map(\.0.utf8.count).max() ?? 0) + 1)
        for (name, code) in all { table[name.utf8.count].append((Array(name.utf8), code)) }
        return table
    }()

    private enum Field: Int, CaseIterable {
        case id, owner, ownerName, secret, server, title, description, dateUpload, dateTaken, tags, license, views, media, pathAlias

        /// The member name (written out: `String(describing:)` of a case costs a conformance
        /// scan of the whole binary).
        var name: String {
            switch self {
            case .id: return "id"
            case .owner: return "owner"
            case .ownerName: return "ownername"
            case .secret: return "secret"
            case .server: return "server"
            case .title: return "title"
            case .description: return "description"
            case .dateUpload: return "dateupload"
            case .dateTaken: return "datetaken"
            case .tags: return "tags"
            case .license: return "license"
            case .views: return "views"
            case .media: return "media"
            case .pathAlias: return "pathalias"
            }
        }
    }

    /// The code of a member name (see ``names``), nil for a name photos does not read.
    private static func code(_ name: UnsafeBufferPointer<UInt8>) -> Int? {
        guard name.count < names.count else { return nil }
        // Same length by construction: one memcmp per candidate (the generic elementsEqual
        // walked both sides through iterators, for every member of every photo).
        for candidate in names[name.count] {
            let equal = candidate.name.withUnsafeBufferPointer { known in
                guard let left = known.baseAddress, let right = name.baseAddress else { return known.isEmpty && name.isEmpty }
                return memcmp(left, right, name.count) == 0
            }
            if equal { return candidate.code }
        }
        return nil
    }

    /// Reads the fields in one pass over the object's members (a later member of the same
    /// name replaces an earlier one, as JSONDecoder reads them).
    init(_ object: FlickrObject) {
        var url = [JSONValue?](repeating: nil, count: Self.sizes.count)
        var width = url
        var height = url
        for (key, value) in object.value.members {
            guard let code = key.withUTF8(Self.code) else { continue }
            switch code {
            case 100..<200: url[code - 100] = value
            case 200..<300: width[code - 200] = value
            case 300...: height[code - 300] = value
            default:
                switch Field(rawValue: code) {
                case .id: id = FlickrObject.string(value)
                case .owner: owner = FlickrObject.string(value)
                case .ownerName: ownerName = FlickrObject.string(value)
                case .secret: secret = FlickrObject.string(value)
                case .server: server = FlickrObject.string(value)
                case .title: title = FlickrObject.content(value)
                case .description: description = FlickrObject.content(value)
                case .dateUpload: dateUpload = FlickrObject.string(value)
                case .dateTaken: dateTaken = FlickrObject.string(value)
                case .tags: tags = FlickrObject.string(value)
                case .license: license = FlickrObject.string(value)
                case .views: views = FlickrObject.string(value)
                case .media: media = FlickrObject.string(value)
                case .pathAlias: pathAlias = FlickrObject.string(value)
                case nil: break
                }
            }
        }
        for index in 0..<Self.sizes.count {
            if let text = url[index].flatMap(FlickrObject.string) {
                urls[slot: index] = (text, width[index].flatMap(FlickrObject.int), height[index].flatMap(FlickrObject.int))
            }
        }
    }
}

/// `{"photos":{"page","pages","perpage","total","photo":[...]},"stat":"ok"}`.
struct FlickrPhotoList {
    var page: Int?
    var pages: Int?
    var perPage: Int?
    var total: Int?
    var photos: [FlickrPhotoRecord]
    /// Entries of `photo` that are not objects (a number, a string, null): records photos cannot read.
    var nonObjects = 0

    /// - Throws: ``FlickrDecodingError`` when the response is not a photo list.
    init(_ document: JSONDocument) throws {
        guard let root = FlickrObject(document.root) else { throw FlickrDecodingError.notAnObject }
        guard let list = root.object("photos") else { throw FlickrDecodingError.missing("photos") }
        page = list.int("page")
        pages = list.int("pages")
        perPage = list.int("perpage") ?? list.int("per_page")
        total = list.int("total")
        photos = list.objects("photo").map(FlickrPhotoRecord.init)
        if let entries = list.value["photo"], entries.kind == .array { nonObjects = entries.count - photos.count }
    }
}

/// flickr.photos.getInfo: `{"photo":{...},"stat":"ok"}`.
struct FlickrInfo {
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

    /// - Throws: ``FlickrDecodingError`` when the response is not a photo.
    init(_ document: JSONDocument) throws {
        guard let root = FlickrObject(document.root) else { throw FlickrDecodingError.notAnObject }
        guard let photo = root.object("photo") else { throw FlickrDecodingError.missing("photo") }
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
struct FlickrSizes {
    struct Size {
        var label: String
        var width: Int?
        var height: Int?
        var source: String
    }

    var sizes: [Size]

    /// - Throws: ``FlickrDecodingError`` when the response is not a size list.
    init(_ document: JSONDocument) throws {
        guard let root = FlickrObject(document.root) else { throw FlickrDecodingError.notAnObject }
        guard let list = root.object("sizes") else { throw FlickrDecodingError.missing("sizes") }
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

    /// The last second of the year 9999: later times are no upload's, and print as no date does.
    static let latestUnix = 253_402_300_799

    /// A unix time (seconds, as text) -> Date; nil for anything else, 0, or a time past 9999.
    static func unix(_ text: String?) -> Date? {
        guard let text, let seconds = flickrInt(text), seconds > 0, seconds <= latestUnix else { return nil }
        return Date(timeIntervalSince1970: TimeInterval(seconds))
    }

    /// `YYYY-MM-DD HH:MM:SS` (read as UTC) -> Date; nil for `0000-00-00 00:00:00` and malformed text.
    static func taken(_ text: String?) -> Date? {
        guard let text else { return nil }
        if let fast = takenFast(text) { return fast }
        return takenByCalendar(text)
    }

    /// `YYYY-MM-DD HH:MM:SS` exactly, as Flickr writes it, from 1583 on (where the Gregorian
    /// calendar is the calendar), by arithmetic; `.some(nil)` for such a text that names no
    /// date (`0000-00-00 00:00:00`, February 30), nil for any other text (read by the calendar).
    static func takenFast(_ text: String) -> Date?? {
        var text = text
        return text.withUTF8 { bytes -> Date?? in
            guard bytes.count == 19, bytes[4] == 0x2D, bytes[7] == 0x2D, bytes[10] == 0x20 || bytes[10] == 0x54,
                bytes[13] == 0x3A, bytes[16] == 0x3A
            else { return nil }
            func number(_ start: Int, _ count: Int) -> Int? {
                var value = 0
                for index in start..<(start + count) {
                    let digit = bytes[index] &- 0x30
                    guard digit < 10 else { return nil }
                    value = value * 10 + Int(digit)
                }
                return value
            }
            guard let year = number(0, 4), let month = number(5, 2), let day = number(8, 2), let hour = number(11, 2),
                let minute = number(14, 2), let second = number(17, 2)
            else { return nil }
            guard year >= 1583 else { return year == 0 ? .some(nil) : nil }
            let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
            let lengths = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
            guard (1...12).contains(month), (1...lengths[month - 1]).contains(day), (0...23).contains(hour),
                (0...59).contains(minute), (0...60).contains(second),
                // A 60th second carries into the next day only at 23:59, and the calendar then
                // names another day than the text: no date, as `takenByCalendar` says.
                !(hour == 23 && minute == 59 && second == 60)
            else { return .some(nil) }
            // Days since 1970-01-01 of a Gregorian date (H. Hinnant's days_from_civil).
            let y = month <= 2 ? year - 1 : year
            let era = y / 400
            let yearOfEra = y - era * 400
            let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
            let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
            let days = era * 146_097 + dayOfEra - 719_468
            return Date(timeIntervalSince1970: TimeInterval(days * 86_400 + hour * 3600 + minute * 60 + second))
        }
    }

    /// `taken` for any text, through the Gregorian calendar in UTC.
    static func takenByCalendar(_ text: String) -> Date? {
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
