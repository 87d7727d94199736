import Foundation

/// A photo's identity across providers: `provider:raw`, e.g. `flickr:53624890009`.
///
/// The raw part is opaque to the core; each provider validates its own form before use.
public struct PhotoID: Hashable, Sendable, Comparable, CustomStringConvertible, LosslessStringConvertible {
    public let provider: String
    public let raw: String

    public init(provider: String, raw: String) {
        self.provider = provider
        self.raw = raw
    }

    /// Parses `provider:raw`. Returns nil without a provider name or a raw part.
    public init?(_ description: String) {
        guard let colon = description.firstIndex(of: ":") else { return nil }
        let provider = String(description[..<colon]).lowercased()
        let raw = String(description[description.index(after: colon)...])
        guard !provider.isEmpty, !raw.isEmpty,
              provider.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") })
        else { return nil }
        self.init(provider: provider, raw: raw)
    }

    public var description: String {
        // Written into its storage at once: appending to a reserved string cost 1,100
        // instructions an id, which a listing of 500 makes for its table and its JSON.
        var provider = provider, raw = raw
        let count = provider.utf8.count + 1 + raw.utf8.count
        return provider.withUTF8 { head in
            raw.withUTF8 { tail in
                String(unsafeUninitializedCapacity: count) { buffer in
                    _ = UnsafeMutableRawBufferPointer(buffer).copyBytes(from: UnsafeRawBufferPointer(head))
                    buffer[head.count] = UInt8(ascii: ":")
                    _ = UnsafeMutableRawBufferPointer(rebasing: UnsafeMutableRawBufferPointer(buffer)[(head.count + 1)...])
                        .copyBytes(from: UnsafeRawBufferPointer(tail))
                    return count
                }
            }
        }
    }

    public static func < (lhs: PhotoID, rhs: PhotoID) -> Bool { lhs.description < rhs.description }

    /// Whether this "id" is a web address (`https://…`, `file:///…`): what a user pastes for a
    /// photo, which parses as the provider `https`. Worth its own message, not "unknown provider".
    public var isWebAddress: Bool { raw.hasPrefix("//") || ["http", "https", "ftp", "file"].contains(provider) }

    /// What to say of an id that is a web address.
    public static func webAddressMessage(_ text: String) -> String {
        "\(text) is a web address, not a photo id; ids look like provider:id, e.g. flickr:53624890009 or placeholder:17 (photos list prints them)"
    }
}

extension PhotoID: Codable {
    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let id = PhotoID(text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "not a photo id"))
        }
        self = id
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}

/// One photo as every provider describes it. Strings are as the provider sent them: sanitise
/// them before they reach a terminal.
public struct Photo: Sendable, Equatable, Codable {
    public var id: PhotoID
    public var title: String
    public var owner: String?
    public var thumbnailURL: String?
    public var imageURL: String?
    public var width: Int?
    public var height: Int?
    public var pageURL: String?
    public var takenAt: Date?
    public var uploadedAt: Date?
    public var tags: [String]
    /// The sizes the listing itself named (Flickr's url_* extras, jsonplaceholder's two URLs), so
    /// that a size can be chosen without asking for the detail; empty when the listing names none.
    public var sizes: [PhotoSize]

    public var provider: String { id.provider }

    /// The longest side photos believes an image can have: a million pixels, ten times the
    /// widest panoramas on Commons. No image format in use reaches it (JPEG stops at 65,535).
    public static let largestSide = 1_000_000

    /// `value` as a side in pixels: nothing or less (a provider's -5), or more than
    /// ``largestSide`` (a trillion), is no size rather than one printed and compared.
    public static func side(_ value: Int?) -> Int? {
        value.flatMap { (1...largestSide).contains($0) ? $0 : nil }
    }

    public init(
        id: PhotoID, title: String, owner: String? = nil, thumbnailURL: String? = nil, imageURL: String? = nil,
        width: Int? = nil, height: Int? = nil, pageURL: String? = nil, takenAt: Date? = nil,
        uploadedAt: Date? = nil, tags: [String] = [], sizes: [PhotoSize] = []
    ) {
        self.id = id
        self.title = title
        self.owner = owner
        self.thumbnailURL = thumbnailURL
        self.imageURL = imageURL
        self.width = Self.side(width)
        self.height = Self.side(height)
        self.pageURL = pageURL
        self.takenAt = takenAt
        self.uploadedAt = uploadedAt
        self.tags = tags
        self.sizes = sizes
    }

    enum CodingKeys: String, CodingKey {
        case id, title, owner, thumbnailURL, imageURL, width, height, pageURL, takenAt, uploadedAt, tags, sizes
    }

    /// Reads photos encoded before `sizes` existed as photos without sizes.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            id: try container.decode(PhotoID.self, forKey: .id), title: try container.decode(String.self, forKey: .title),
            owner: try container.decodeIfPresent(String.self, forKey: .owner),
            thumbnailURL: try container.decodeIfPresent(String.self, forKey: .thumbnailURL),
            imageURL: try container.decodeIfPresent(String.self, forKey: .imageURL),
            width: try container.decodeIfPresent(Int.self, forKey: .width), height: try container.decodeIfPresent(Int.self, forKey: .height),
            pageURL: try container.decodeIfPresent(String.self, forKey: .pageURL),
            takenAt: try container.decodeIfPresent(Date.self, forKey: .takenAt),
            uploadedAt: try container.decodeIfPresent(Date.self, forKey: .uploadedAt),
            tags: try container.decodeIfPresent([String].self, forKey: .tags) ?? [],
            sizes: try container.decodeIfPresent([PhotoSize].self, forKey: .sizes) ?? [])
    }
}

/// One page of a listing.
public struct PhotoPage: Sendable, Equatable, Codable {
    public var page: Int
    public var perPage: Int
    /// Results in the whole listing, when the provider says.
    public var total: Int?
    public var hasMore: Bool
    public var photos: [Photo]
    /// Records in the response that were not photos photos can show (null, malformed, a bad
    /// id), so the listing can say how many it left out. Not stored in the cache.
    public var skippedRecords: Int
    /// Records beyond the page size that the provider did not decode. Not stored in the cache.
    public var extraRecords = 0
    /// The last page the provider serves for this listing, when it can tell (from its total,
    /// and how deep it lets a client go): a walk may ask for the pages up to it at once rather
    /// than one after another. Not stored in the cache.
    public var lastPage: Int?

    public init(page: Int, perPage: Int, total: Int?, hasMore: Bool, photos: [Photo], skippedRecords: Int = 0) {
        self.page = page
        self.perPage = perPage
        // "Showing 1 of -1" is no count: a negative total is unknown.
        self.total = total.flatMap { $0 >= 0 ? $0 : nil }
        self.hasMore = hasMore
        self.photos = photos
        self.skippedRecords = skippedRecords
    }

    enum CodingKeys: String, CodingKey {
        case page, perPage, total, hasMore, photos
    }

    /// Two pages are equal when they list the same photos the same way. What a provider said
    /// about its answer beyond that (records it skipped or left undecoded, its last page) is not
    /// part of the listing, and a page read back from the cache does not have it.
    public static func == (lhs: PhotoPage, rhs: PhotoPage) -> Bool {
        lhs.page == rhs.page && lhs.perPage == rhs.perPage && lhs.total == rhs.total && lhs.hasMore == rhs.hasMore
            && lhs.photos == rhs.photos
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            page: try container.decode(Int.self, forKey: .page), perPage: try container.decode(Int.self, forKey: .perPage),
            total: try container.decodeIfPresent(Int.self, forKey: .total), hasMore: try container.decode(Bool.self, forKey: .hasMore),
            photos: try container.decode([Photo].self, forKey: .photos))
    }
}

/// One size a provider offers for a photo.
public struct PhotoSize: Sendable, Equatable, Codable {
    public var label: String
    public var width: Int?
    public var height: Int?
    public var url: String

    public init(label: String, width: Int?, height: Int?, url: String) {
        self.label = label
        self.width = Photo.side(width)
        self.height = Photo.side(height)
        self.url = url
    }

    /// The longest edge, for choosing the largest size.
    public var longestEdge: Int { max(width ?? 0, height ?? 0) }
}

/// Everything known about one photo.
public struct PhotoDetail: Sendable, Equatable, Codable {
    public var photo: Photo
    public var description: String?
    public var takenAt: Date?
    public var uploadedAt: Date?
    public var tags: [String]
    public var sizes: [PhotoSize]
    /// Other facts worth showing (views, license, album...), in display order.
    public var extra: [String: String]

    public init(
        photo: Photo, description: String? = nil, takenAt: Date? = nil, uploadedAt: Date? = nil,
        tags: [String] = [], sizes: [PhotoSize] = [], extra: [String: String] = [:]
    ) {
        self.photo = photo
        self.description = description
        self.takenAt = takenAt
        self.uploadedAt = uploadedAt
        self.tags = tags
        self.sizes = sizes
        self.extra = extra
    }

    /// What `--open` and `save --size original` download: the size labelled original, else the
    /// largest measured one, else the last of those without dimensions (sizes come smallest
    /// first), each only with an http(s) URL; else the photo's own image URL. Taking the largest
    /// edge alone chose the thumbnail when no size had dimensions (Openverse's often have none).
    public var largestImageURL: String? {
        var photo = photo
        photo.sizes = sizes
        return ImageSizeChoice.original.url(for: photo)
    }
}

/// What a listing asks for.
public struct ListQuery: Sendable, Hashable, Codable {
    /// Free-text search; nil lists the provider's default feed (e.g. Flickr's recent photos).
    public var text: String?
    public var page: Int
    public var perPage: Int
    /// Provider-specific filters, e.g. `album` for placeholder.
    public var filters: [String: String]

    public init(text: String? = nil, page: Int = 1, perPage: Int = 30, filters: [String: String] = [:]) {
        self.text = text
        self.page = page
        self.perPage = perPage
        self.filters = filters
    }
}

/// Which URLs photos will fetch or hand to a viewer: http and https only.
public enum URLPolicy {
    public static func isAllowed(_ url: String) -> Bool {
        if PlainHTTPURL.isPlain(url) { return true }
        return isAllowedByComponents(url)
    }

    /// What a refused `url` lacks, as words that follow "must be an http or https URL": a user
    /// name or password, a port out of range, a space or a control character; "" when it is no
    /// web URL at all (or is allowed).
    public static func refusalDetail(_ url: String) -> String {
        guard !isAllowed(url) else { return "" }
        if url.utf8.contains(where: { $0 <= 0x20 || $0 == 0x7F }) { return " without spaces or control characters" }
        guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased(),
              scheme == "http" || scheme == "https", components.host?.isEmpty == false
        else { return "" }
        if components.percentEncodedUser != nil || components.percentEncodedPassword != nil {
            return " without a user name or password (photos sends none in a URL)"
        }
        if let port = components.port, !(1...65535).contains(port) { return " with a port from 1 to 65535" }
        return ""
    }

    /// What Foundation's parser says: the answer for every URL ``PlainHTTPURL`` is not sure of.
    /// A URL that carries a user name or password (`https://user:secret@host/`) is refused:
    /// fetched, its credentials would go to the host (a provider's listing names it, not the user).
    /// Nor are URLs libcurl refuses as "invalid URL" (a port past 65535, a control character or
    /// a space, which Foundation's parser escapes), so that the setting or listing that holds
    /// one is named rather than the transfer failing.
    static func isAllowedByComponents(_ url: String) -> Bool {
        guard !url.utf8.contains(where: { $0 <= 0x20 || $0 == 0x7F }),
              let components = URLComponents(string: url), let scheme = components.scheme?.lowercased(),
              scheme == "http" || scheme == "https", let host = components.host, !host.isEmpty,
              components.percentEncodedUser == nil, components.percentEncodedPassword == nil,
              components.port.map({ (1...65535).contains($0) }) ?? true
        else { return false }
        return true
    }
}
