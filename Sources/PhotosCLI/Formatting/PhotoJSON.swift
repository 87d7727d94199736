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

extension PhotoJSON {
    /// The listing form of the photo (no detail), the bytes `JSONOutput.encode` makes of it, at a
    /// fraction of the cost: listings print hundreds. Keys in sorted order.
    func write(to json: inout JSONText) {
        json.beginObject()
        json.key("height")
        json.int(photo.height)
        json.key("id")
        json.string(photo.id.description)
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
