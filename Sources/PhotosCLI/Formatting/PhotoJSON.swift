import Foundation
import PhotosCore

/// The JSON shape of a photo (DESIGN.md): snake_case keys, `thumbnail_path` always present.
struct PhotoJSON: Encodable {
    var photo: Photo
    var thumbnailPath: String?
    /// Whether photos drew the thumbnail itself because its host could not be reached.
    var thumbnailSynthesized = false
    var detail: PhotoDetail?
    var imagePath: String?

    enum Keys: String, CodingKey {
        case id, provider, title, owner, width, height, tags, description, sizes, extra
        case thumbnailURL = "thumbnail_url", imageURL = "image_url", thumbnailPath = "thumbnail_path"
        case thumbnailSynthesized = "thumbnail_synthesized"
        case pageURL = "page_url", takenAt = "taken_at", uploadedAt = "uploaded_at", imagePath = "image_path"
    }

    struct SizeJSON: Encodable {
        var size: PhotoSize
        enum Keys: String, CodingKey { case label, width, height, url }
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Keys.self)
            try container.encode(size.label, forKey: .label)
            try container.encode(size.width, forKey: .width)
            try container.encode(size.height, forKey: .height)
            try container.encode(size.url, forKey: .url)
        }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Keys.self)
        try container.encode(photo.id.description, forKey: .id)
        try container.encode(photo.provider, forKey: .provider)
        try container.encode(photo.title, forKey: .title)
        try container.encode(photo.owner, forKey: .owner)
        try container.encode(photo.thumbnailURL, forKey: .thumbnailURL)
        try container.encode(photo.imageURL, forKey: .imageURL)
        try container.encode(thumbnailPath, forKey: .thumbnailPath)
        try container.encode(thumbnailSynthesized, forKey: .thumbnailSynthesized)
        try container.encode(photo.width, forKey: .width)
        try container.encode(photo.height, forKey: .height)
        try container.encode(photo.pageURL, forKey: .pageURL)
        let taken = detail?.takenAt ?? photo.takenAt
        let uploaded = detail?.uploadedAt ?? photo.uploadedAt
        try container.encode(taken.map(Self.format), forKey: .takenAt)
        try container.encode(uploaded.map(Self.format), forKey: .uploadedAt)
        try container.encode(detail?.tags ?? photo.tags, forKey: .tags)
        if let detail {
            try container.encode(detail.description, forKey: .description)
            try container.encode(detail.sizes.map(SizeJSON.init), forKey: .sizes)
            try container.encode(detail.extra, forKey: .extra)
            try container.encode(imagePath, forKey: .imagePath)
        }
    }

    /// `date` as ISO 8601 in UTC to the second (`2024-02-03T10:20:30Z`), as Foundation's
    /// `.iso8601` style writes it. Worked out by arithmetic from the Gregorian calendar's first
    /// day (1582-10-15; Foundation writes earlier dates in the Julian calendar) to the year 9999:
    /// a listing prints two dates per photo, and the style costs thousands of instructions each.
    static func format(_ date: Date) -> String {
        let seconds = date.timeIntervalSince1970
        // 1582-10-15T00:00:00Z up to 9999-12-31T23:59:59Z; anything else is Foundation's to say.
        guard seconds.isFinite, seconds >= -12_219_292_800, seconds < 253_402_300_800 else { return date.formatted(.iso8601) }
        let whole = Int(seconds.rounded(.down))
        let days = whole >= 0 ? whole / 86_400 : (whole - 86_399) / 86_400
        let secondOfDay = whole - days * 86_400
        // Days since 1970-01-01 to a civil date (proleptic Gregorian; Howard Hinnant's algorithm).
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        return String(unsafeUninitializedCapacity: 20) { buffer in
            func put(_ value: Int, _ digits: Int, at offset: Int) {
                var value = value
                for index in stride(from: offset + digits - 1, through: offset, by: -1) {
                    buffer[index] = UInt8(ascii: "0") + UInt8(value % 10)
                    value /= 10
                }
            }
            put(year, 4, at: 0)
            put(month, 2, at: 5)
            put(day, 2, at: 8)
            put(secondOfDay / 3600, 2, at: 11)
            put(secondOfDay / 60 % 60, 2, at: 14)
            put(secondOfDay % 60, 2, at: 17)
            for (offset, byte) in [(4, "-"), (7, "-"), (10, "T"), (13, ":"), (16, ":"), (19, "Z")] as [(Int, Unicode.Scalar)] {
                buffer[offset] = UInt8(ascii: byte)
            }
            return 20
        }
    }
}

extension PhotoJSON {
    /// The listing form of the photo (no detail), the bytes `JSONOutput.encode` makes of it, at a
    /// fraction of the cost: listings print hundreds. Keys in sorted order.
    func write(to json: inout JSONText) {
        json.beginObject()
        json.key("height")
        json.int(photo.height)
        json.key("id")
        json.string(photo.id.provider, UInt8(ascii: ":"), photo.id.raw)
        json.key("image_url")
        json.string(photo.imageURL)
        json.key("owner")
        json.string(photo.owner)
        json.key("page_url")
        json.string(photo.pageURL)
        json.key("provider")
        json.string(photo.provider)
        json.key("tags")
        json.strings(photo.tags)
        json.key("taken_at")
        json.string(photo.takenAt.map(Self.format))
        json.key("thumbnail_path")
        json.string(thumbnailPath)
        json.key("thumbnail_synthesized")
        json.bool(thumbnailSynthesized)
        json.key("thumbnail_url")
        json.string(photo.thumbnailURL)
        json.key("title")
        json.string(photo.title)
        json.key("uploaded_at")
        json.string(photo.uploadedAt.map(Self.format))
        json.key("width")
        json.int(photo.width)
        json.endObject()
    }
}
