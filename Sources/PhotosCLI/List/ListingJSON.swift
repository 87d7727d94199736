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

        enum CodingKeys: String, CodingKey {
            case name, total, count, cached
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
        }
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

    enum CodingKeys: String, CodingKey {
        case page, total, photos, providers, cached
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
    }
}
