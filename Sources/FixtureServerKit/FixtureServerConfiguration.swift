import Foundation

/// A route handler: returns a response for the requests it owns, `nil` for the rest.
public typealias FixtureRouteHandler = @Sendable (FixtureRequest) -> FixtureResponse?

/// How a ``FixtureServer`` listens and what it serves.
public struct FixtureServerConfiguration: Sendable {
    /// TCP port on 127.0.0.1; 0 picks a free port (read it back from ``FixtureServer/port``).
    public var port: Int
    /// Root of the served files; `/images/sample.jpg` maps to `<fixturesDirectory>/images/sample.jpg`.
    public var fixturesDirectory: URL
    /// Delay before every response (except `/__stats`), scheduled on the event loop.
    public var latencyMilliseconds: Int
    /// HTTP/2 SETTINGS_MAX_CONCURRENT_STREAMS advertised to clients.
    public var maxConcurrentStreams: Int
    /// Directory holding `ca.pem`, `server.pem` and `server.key`.
    /// `nil`: `<fixturesDirectory>/tls` when it exists, otherwise `<defaultFixturesDirectory>/tls`.
    public var tlsDirectory: URL?
    /// Extra route handlers, asked in order before the built-in routes; the first non-nil answer wins.
    /// More can be added after start with ``FixtureServer/addRoute(_:)``.
    public var routes: [FixtureRouteHandler]
    /// Whether ALPN offers `h2`; false makes an HTTP/1.1-only server (for fallback tests).
    public var offerHTTP2 = true
    /// Connections accepted after this many are counted and then left silent: no TLS handshake,
    /// no answer, as an overloaded server or a dropped SYN-ACK looks to a client (for tests of
    /// a client's extra connections that never come up). nil: every connection is served.
    public var silentAfterConnections: Int?
    /// Where jsonplaceholder's image URLs point: nil for this server's `/placeholder-img`; set it
    /// to a host that cannot be reached to serve what real users get (via.placeholder.com is gone).
    public var placeholderImageBase: String?

    /// Creates a configuration; every parameter has a default suitable for tests.
    public init(
        port: Int = 0,
        fixturesDirectory: URL = FixtureServerConfiguration.defaultFixturesDirectory,
        latencyMilliseconds: Int = 0,
        maxConcurrentStreams: Int = 100,
        tlsDirectory: URL? = nil,
        routes: [FixtureRouteHandler] = []
    ) {
        self.port = port
        self.fixturesDirectory = fixturesDirectory
        self.latencyMilliseconds = latencyMilliseconds
        self.maxConcurrentStreams = maxConcurrentStreams
        self.tlsDirectory = tlsDirectory
        self.routes = routes
    }

    /// `<repository>/Fixtures`, found from this source file's location.
    public static var defaultFixturesDirectory: URL {
        URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent()  // FixtureServerKit
            .deletingLastPathComponent()  // Sources
            .deletingLastPathComponent()  // repository root
            .appendingPathComponent("Fixtures", isDirectory: true)
    }

    /// Registers a route handler to run before the built-in routes (see ``routes``).
    public mutating func addRoute(_ handler: @escaping FixtureRouteHandler) {
        routes.append(handler)
    }

    var resolvedTLSDirectory: URL {
        if let tlsDirectory { return tlsDirectory }
        let own = fixturesDirectory.appendingPathComponent("tls", isDirectory: true)
        if FileManager.default.fileExists(atPath: own.appendingPathComponent("server.pem").path) {
            return own
        }
        return Self.defaultFixturesDirectory.appendingPathComponent("tls", isDirectory: true)
    }
}
