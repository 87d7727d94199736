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

/// The providers the CLI knows, by name.
public struct ProviderRegistry: Sendable {
    public typealias Factory = @Sendable (ProviderContext) -> any PhotoProvider

    private var factories: [(name: String, summary: String, make: Factory)] = []

    public init() {}

    public mutating func register(_ name: String, summary: String, _ make: @escaping Factory) {
        factories.append((name, summary, make))
    }

    public var names: [String] { factories.map(\.name) }

    public var summaries: [(name: String, summary: String)] { factories.map { ($0.name, $0.summary) } }

    public func make(_ name: String, context: ProviderContext) -> (any PhotoProvider)? {
        factories.first { $0.name == name }?.make(context)
    }
}
