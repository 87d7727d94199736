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

    static func format(_ date: Date) -> String {
        date.formatted(.iso8601)
    }
}

enum JSONOutput {
    static func encode(_ value: some Encodable, pretty: Bool) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = pretty ? [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes] : [.sortedKeys, .withoutEscapingSlashes]
        return escapingInvisibles(String(decoding: try encoder.encode(value), as: UTF8.self))
    }

    /// JSONEncoder escapes only U+0000-001F. DEL, C1 controls and format characters (bidi
    /// overrides and isolates, zero-width characters, tags) are escaped here as `\uXXXX`, so
    /// JSON piped to a terminal or a pager cannot move the cursor or reorder text, and a parser
    /// still reads the same string. They only ever occur inside JSON strings.
    static func escapingInvisibles(_ json: String) -> String {
        guard json.utf8.contains(where: { $0 >= 0x7F }) else { return json }
        var result = String.UnicodeScalarView()
        for scalar in json.unicodeScalars {
            guard scalar.value >= 0x7F,
                (0x7F...0x9F).contains(scalar.value) || scalar.properties.generalCategory == .format
                    || scalar.properties.generalCategory == .lineSeparator
                    || scalar.properties.generalCategory == .paragraphSeparator
            else {
                result.append(scalar)
                continue
            }
            for unit in String(scalar).utf16 {
                let hex = String(unit, radix: 16)
                result.append(contentsOf: ("\\u" + String(repeating: "0", count: 4 - hex.count) + hex).unicodeScalars)
            }
        }
        return String(result)
    }
}
