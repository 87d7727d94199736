import PhotosCore

/// `list --format json`: DESIGN.md's listing object, plus a per-provider summary.
struct ListingJSON: Encodable {
    struct ProviderSummary: Encodable {
        var name: String
        var firstPage: Int
        var lastPage: Int
        var total: Int?
        var hasMore: Bool
        var count: Int
        var cached: Bool
        var ageSeconds: Int
        /// What stopped the walk before it ended as asked (`--all` or `--limit` with a page
        /// failing after the first), said on stderr too; nil when nothing did. A script sees
        /// that `has_more` is not the whole story.
        var error: String? = nil

        enum CodingKeys: String, CodingKey {
            case name, total, count, cached, error
            case firstPage = "first_page", lastPage = "last_page", hasMore = "has_more", ageSeconds = "age_seconds"
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(name, forKey: .name)
            try container.encode(firstPage, forKey: .firstPage)
            try container.encode(lastPage, forKey: .lastPage)
            try container.encode(total, forKey: .total)
            try container.encode(hasMore, forKey: .hasMore)
            try container.encode(count, forKey: .count)
            try container.encode(cached, forKey: .cached)
            try container.encode(ageSeconds, forKey: .ageSeconds)
            try container.encode(error, forKey: .error)
        }
    }

    /// A provider that failed while others listed (they are also warned of on stderr).
    struct Failure: Encodable {
        var provider: String
        var error: String
    }

    var page: Int
    var perPage: Int
    var total: Int?
    var hasMore: Bool
    var photos: [PhotoJSON]
    var providers: [ProviderSummary]
    /// Whether the whole listing came from the cache.
    var cached: Bool
    /// Seconds since the network last confirmed the oldest page shown (0 when fetched now).
    var ageSeconds: Int
    /// Providers that failed: a script sees that the listing lacks them, not only a person
    /// reading stderr.
    var failed: [Failure] = []

    enum CodingKeys: String, CodingKey {
        case page, total, photos, providers, cached, failed
        case perPage = "per_page", hasMore = "has_more", ageSeconds = "age_seconds"
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(page, forKey: .page)
        try container.encode(perPage, forKey: .perPage)
        try container.encode(total, forKey: .total)
        try container.encode(hasMore, forKey: .hasMore)
        try container.encode(photos, forKey: .photos)
        try container.encode(providers, forKey: .providers)
        try container.encode(cached, forKey: .cached)
        try container.encode(ageSeconds, forKey: .ageSeconds)
        try container.encode(failed, forKey: .failed)
    }
}

extension ListingJSON {
    /// The document as `JSONOutput.encode(self, pretty:)` writes it, photos by ``PhotoJSON/write(to:)``.
    func write(to json: inout JSONText) {
        json.beginObject()
        json.key("age_seconds")
        json.int(ageSeconds)
        json.key("cached")
        json.bool(cached)
        json.key("failed")
        json.beginArray()
        for failure in failed {
            json.element()
            json.beginObject()
            json.key("error")
            json.string(failure.error)
            json.key("provider")
            json.string(failure.provider)
            json.endObject()
        }
        json.endArray()
        json.key("has_more")
        json.bool(hasMore)
        json.key("page")
        json.int(page)
        json.key("per_page")
        json.int(perPage)
        json.key("photos")
        json.beginArray()
        for photo in photos {
            json.element()
            photo.write(to: &json)
        }
        json.endArray()
        json.key("providers")
        json.beginArray()
        for provider in providers {
            json.element()
            json.beginObject()
            json.key("age_seconds")
            json.int(provider.ageSeconds)
            json.key("cached")
            json.bool(provider.cached)
            json.key("count")
            json.int(provider.count)
            json.key("error")
            json.string(provider.error)
            json.key("first_page")
            json.int(provider.firstPage)
            json.key("has_more")
            json.bool(provider.hasMore)
            json.key("last_page")
            json.int(provider.lastPage)
            json.key("name")
            json.string(provider.name)
            json.key("total")
            json.int(provider.total)
            json.endObject()
        }
        json.endArray()
        json.key("total")
        json.int(total)
        json.endObject()
    }
}
