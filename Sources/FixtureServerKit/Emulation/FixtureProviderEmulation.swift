import Foundation

/// Emulates the provider APIs photos talks to, from the recorded-format files in `Fixtures/`.
///
/// Each provider's emulation is its own: Flickr and jsonplaceholder, whose APIs compute answers
/// (API keys, json-server's filters and paging), in code (FlickrEmulation.swift,
/// PlaceholderEmulation.swift); every other provider as data, in `Fixtures/<name>/emulation.json`
/// (see ``EmulationManifest``), which also says how to point photos at this server
/// (``settings(server:)``).
///
/// - Flickr REST at `/services/rest/` (`Fixtures/flickr/*.json`): `api_key` must be
///   ``validFlickrAPIKey`` (anything else: error 100); `flickr.photos.search` with text `dogs`
///   serves `search-dogs-page<N>.json` (3 pages), text `error105` error 105, text `many` a
///   synthesized search of 4000 photos with every url_* size (any page size), other text an empty
///   result; `flickr.photos.getRecent` serves `recent-page1.json`; `flickr.photos.getInfo` and
///   `flickr.photos.getSizes` serve `getInfo-<id>.json` / `getSizes-<id>.json` (unknown id:
///   error 1); other methods error 112. Without `nojsoncallback=1` the body is wrapped in
///   `jsonFlickrApi(...)`, as Flickr does.
/// - jsonplaceholder (json-server 0.16 semantics) at `/photos`, `/photos/<N>` and
///   `/albums/<N>/photos` from `Fixtures/placeholder/photos.json`: `_page`, `_limit` (default 10),
///   `_start`/`_end`, `_sort`/`_order`, `q` (case-insensitive substring over every field),
///   `albumId`/`id` filters (repeat to OR), `X-Total-Count` and `Link` headers; unknown id: 404 `{}`.
///   Listings carry a weak `ETag` derived from the body (as json-server's Express does) and a
///   matching `If-None-Match` gets a bodiless 304 (counted in ``notModifiedResponses``).
/// - Images: `/flickr-static/<server>/<id>_<secret>[_<suffix>].jpg` and
///   `/placeholder-img/<size>/<colour>`, from `Fixtures/images` (small sizes get a distinct
///   thumbnail per photo, synthesized from `thumb.jpg`).
/// - `/__malformed/...` and `/__html/...`: bodies no provider can read (see ``brokenBody(_:)``).
///
/// The recorded files point at the real image hosts; when serving, `https://live.staticflickr.com`
/// becomes `<this server>/flickr-static` and `https://via.placeholder.com` becomes
/// `<this server>/placeholder-img` (the server's own URL comes from the request's Host/:authority).
public final class FixtureProviderEmulation: Sendable {
    /// The only API key the Flickr emulation accepts.
    public static let validFlickrAPIKey = "test-key"
    /// The search text with several pages of results.
    public static let flickrSearchText = "dogs"
    /// The search text that answers Flickr error 105 (service unavailable).
    public static let flickrUnavailableText = "error105"
    /// The search text of a synthesized search of ``flickrManyTotal`` photos with every size.
    public static let flickrManyText = "many"
    /// Results of the ``flickrManyText`` search (Flickr's own cap for a search).
    public static let flickrManyTotal = 4000

    public let fixturesDirectory: URL

    let files = Locked([String: [UInt8]]())
    let placeholderPhotos = Locked<[PlaceholderPhoto]?>(nil)
    private let requests = Locked([FixtureRequest]())
    let notModified = Locked(0)

    /// Every `Fixtures/*/emulation.json`.
    let manifests: [EmulationManifest]

    /// jsonplaceholder's image host (see ``FixtureServerConfiguration/placeholderImageBase``).
    let placeholderImageBase: String?

    public init(fixtures: URL = FixtureServerConfiguration.defaultFixturesDirectory, placeholderImageBase: String? = nil) {
        fixturesDirectory = fixtures
        self.placeholderImageBase = placeholderImageBase
        manifests = EmulationManifest.loadAll(fixtures: fixtures)
    }

    /// The environment that points photos at a server reached as `server` for every provider with
    /// an `emulation.json` (endpoints, image hosts, the test API key).
    public func settings(server: String) -> [String: String] {
        var settings: [String: String] = [:]
        for manifest in manifests {
            for (name, value) in manifest.settings(server: server) { settings[name] = value }
        }
        return settings
    }

    /// The providers with an `emulation.json`, by folder name.
    public var providerNames: [String] { manifests.map(\.name) }

    /// A route handler for ``FixtureServer/addRoute(_:)`` or ``FixtureServerConfiguration/routes``.
    public var route: FixtureRouteHandler {
        { [self] request in handle(request) }
    }

    /// Every request this emulation answered, in order.
    public var handledRequests: [FixtureRequest] {
        requests.withLock { $0 }
    }

    /// How many listing requests were answered 304 Not Modified.
    public var notModifiedResponses: Int {
        notModified.withLock { $0 }
    }

    /// The answer for the provider and image paths; nil for every other path.
    public func handle(_ request: FixtureRequest) -> FixtureResponse? {
        let path = request.path
        let response: FixtureResponse?
        if let broken = brokenBody(request) {
            response = broken
        } else if path == "/services/rest/" || path == "/services/rest" {
            response = flickr(request)
        } else if path == "/photos" || path == "/photos/" || path.hasPrefix("/photos/") || path.hasPrefix("/albums/") {
            response = placeholder(request)
        } else if path.hasPrefix("/flickr-static/") {
            response = flickrStatic(path)
        } else if path.hasPrefix("/placeholder-img/") {
            response = placeholderImage(path)
        } else {
            response = manifestRoute(request)
        }
        if response != nil {
            requests.withLock { $0.append(request) }
        }
        return response
    }

    // MARK: Images

    func thumbnail(number: Int) -> FixtureResponse {
        guard let base = fixture("images/thumb.jpg"), base.count > 4 else {
            return .error("fixture images/thumb.jpg is missing", status: 500)
        }
        return .bytes(ThumbnailSynthesizer.jpeg(number: number, base: base), contentType: "image/jpeg")
    }

    func image(_ name: String) -> FixtureResponse {
        guard let bytes = fixture("images/\(name)") else { return .error("fixture images/\(name) is missing", status: 500) }
        return .bytes(bytes, contentType: "image/jpeg")
    }

    // MARK: Helpers

    /// A fixture file's bytes (read once), or nil when it does not exist.
    func fixture(_ relativePath: String) -> [UInt8]? {
        if let cached = files.withLock({ $0[relativePath] }) { return cached }
        let url = fixturesDirectory.appendingPathComponent(relativePath)
        guard let data = try? Data(contentsOf: url) else { return nil }
        let bytes = [UInt8](data)
        files.withLock { $0[relativePath] = bytes }
        return bytes
    }

    /// `https://<Host or :authority>`, the URL clients reached this server by.
    func baseURL(_ request: FixtureRequest) -> String {
        let host = request.header("host") ?? request.header(":authority") ?? ""
        let safe = !host.isEmpty && host.count <= 255
            && host.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || ".-:[]".contains($0)) }
        return "https://" + (safe ? host : "127.0.0.1")
    }
}

extension FixtureServer {
    /// A route handler emulating Flickr REST, jsonplaceholder and their image hosts from the
    /// files under `fixtures` (see ``FixtureProviderEmulation``).
    public static func providerRoutes(
        fixtures: URL = FixtureServerConfiguration.defaultFixturesDirectory
    ) -> FixtureRouteHandler {
        FixtureProviderEmulation(fixtures: fixtures).route
    }
}

extension FixtureServerConfiguration {
    /// Adds the Flickr and jsonplaceholder emulation for this configuration's fixtures directory.
    public mutating func addProviderRoutes() {
        addRoute(FixtureServer.providerRoutes(fixtures: fixturesDirectory))
    }
}
