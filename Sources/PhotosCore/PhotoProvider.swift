import Foundation

/// A source of photos. Providers depend on the core only; they reach the network through
/// `HTTPFetching` and return the unified model.
public protocol PhotoProvider: Sendable {
    /// The name users type (`--provider NAME`) and the prefix of its photo ids.
    var name: String { get }
    /// The largest page the provider serves.
    var maxPerPage: Int { get }

    /// One page of photos: a search when `query.text` is set, else the provider's default feed.
    /// - Throws: `PhotosError` (authentication, unavailable, bad data) or `TransportError`.
    func list(_ query: ListQuery) async throws -> PhotoPage

    /// One page, asked conditionally: with `validators` from an earlier answer the provider may
    /// send `If-None-Match` / `If-Modified-Since` and return `.notModified` for a 304.
    ///
    /// The default implementation ignores the validators and calls ``list(_:)``; providers whose
    /// API sends validators override it.
    /// - Parameters:
    ///   - query: the page to fetch.
    ///   - validators: what the cached copy was validated with; nil or empty for an unconditional request.
    /// - Throws: as ``list(_:)``.
    func list(_ query: ListQuery, revalidating validators: HTTPValidators?) async throws -> ListRevalidation

    /// Everything known about one photo.
    /// - Throws: `PhotosError.notFound` for an unknown id, or as `list`.
    func detail(_ id: PhotoID) async throws -> PhotoDetail

    /// Whether `raw` is a well-formed id for this provider (never trust it as a file name).
    func isValidID(_ raw: String) -> Bool

    /// `raw` as this provider spells its ids, for an id a person typed or pasted (a UUID in
    /// capitals, a number with leading zeros); nil when it is no id of this provider. By
    /// default `raw` itself when it is valid.
    func canonicalID(_ raw: String) -> String?

    /// The picture an image URL stands for, drawn locally when its host cannot be reached (see
    /// ``SyntheticImage``); nil by default.
    func syntheticImage(for url: String) -> SyntheticImage?

    /// A URL on the host most of its images (thumbnails and larger sizes) come from, when that
    /// is known before any listing: `photos list` and `photos save` connect to it while a
    /// listing is on its way. Nil by default.
    var imageHost: String? { get }

    /// A URL on the host its listings are asked from (the connection a listing opens may carry
    /// images too). Nil by default.
    var listingHost: String? { get }

    /// Where its listings come from, when that is not its usual endpoint (a mirror, a test
    /// server): the cache keeps listings of different endpoints apart, so that pages cached from
    /// one are never served for another. Nil for the default endpoint (and by default).
    var cacheScope: String? { get }
}

/// A provider photos ships: it describes itself, so the registry can offer it without making one.
public protocol RegisteredProvider: PhotoProvider {
    /// What the provider is, what it reads and understands: see ``ProviderDescriptor``.
    static var descriptor: ProviderDescriptor { get }

    /// A provider reading its settings from `context` (it never fails: a missing key is
    /// reported when the provider is asked for something).
    init(context: ProviderContext)
}

extension RegisteredProvider {
    public var name: String { Self.descriptor.name }
    public var maxPerPage: Int { Self.descriptor.maxPerPage }
}

extension PhotoProvider {
    public func list(_ query: ListQuery, revalidating validators: HTTPValidators?) async throws -> ListRevalidation {
        .modified(try await list(query), HTTPValidators())
    }
}

/// What a provider is built with.
public struct ProviderContext: Sendable {
    public var http: any HTTPFetching
    /// Settings by name (environment variables, then the config file), e.g. `FLICKR_API_KEY`.
    public var settings: [String: String]

    public init(http: any HTTPFetching, settings: [String: String]) {
        self.http = http
        self.settings = settings
    }
}

/// The providers the CLI knows, in the order they are shown.
public struct ProviderRegistry: Sendable {
    public private(set) var providers: [any RegisteredProvider.Type] = []

    public init() {}

    public init(_ providers: [any RegisteredProvider.Type]) {
        self.providers = providers
    }

    public mutating func register(_ provider: any RegisteredProvider.Type) {
        providers.append(provider)
    }

    public var descriptors: [ProviderDescriptor] { providers.map { $0.descriptor } }

    public var names: [String] { providers.map { $0.descriptor.name } }

    public func descriptor(_ name: String) -> ProviderDescriptor? {
        providers.first { $0.descriptor.name == name }?.descriptor
    }

    public func make(_ name: String, context: ProviderContext) -> (any PhotoProvider)? {
        providers.first { $0.descriptor.name == name }.map { $0.init(context: context) }
    }

    /// Every setting of every provider, in registration order.
    public var settings: [ProviderSetting] { descriptors.flatMap(\.settings) }
}

/// A picture photos can draw itself when an image host is gone: a plain colour with a label,
/// as placeholder services drew them. Providers describe it; the imaging layer draws it.
public struct SyntheticImage: Sendable, Hashable {
    public var width: Int
    public var height: Int
    /// The background colour, 0xRRGGBB.
    public var rgb: UInt32
    /// Short text drawn in the middle (digits, `x` and spaces), e.g. `150x150`.
    public var label: String

    public init(width: Int, height: Int, rgb: UInt32, label: String) {
        self.width = width
        self.height = height
        self.rgb = rgb
        self.label = label
    }

    /// A file name that is the same for the same picture: `150x150-92c952.png`.
    public var fileName: String {
        let hex = String(rgb, radix: 16)
        return "\(width)x\(height)-\(String(repeating: "0", count: max(0, 6 - hex.count)))\(hex).png"
    }
}

extension PhotoProvider {
    /// The picture an image URL of this provider stands for, when the provider's images can be
    /// drawn without their host; nil for real photos (the default).
    public func syntheticImage(for url: String) -> SyntheticImage? { nil }

    public func canonicalID(_ raw: String) -> String? { isValidID(raw) ? raw : nil }

    /// ``canonicalID(_:)`` for providers whose ids are numbers: `raw` without leading zeros,
    /// when that is valid.
    public func canonicalNumberID(_ raw: String) -> String? {
        let number = Self.withoutLeadingZeros(raw)
        return isValidID(number) ? number : nil
    }

    /// A number's digits without the zeros before its first other digit ("017" is 17): for
    /// providers whose ids are numbers.
    public static func withoutLeadingZeros(_ raw: String) -> String {
        guard raw.utf8.count > 1, raw.utf8.first == UInt8(ascii: "0"), raw.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return raw }
        let digits = raw.drop { $0 == "0" }
        return digits.isEmpty ? "0" : String(digits)
    }

    public var imageHost: String? { nil }

    public var listingHost: String? { nil }

    public var cacheScope: String? { nil }

    /// ``cacheScope`` for a provider whose listings come from `endpoints`: nil when each is its
    /// default, else the endpoints as they are set.
    public static func cacheScope(_ endpoints: [(value: String, default: String)]) -> String? {
        guard endpoints.contains(where: { $0.value != $0.default }) else { return nil }
        return endpoints.map(\.value).joined(separator: " ")
    }
}
