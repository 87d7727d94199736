import Foundation
import NIOCore
import NIOHTTP1
import NIOHTTP2
import NIOPosix
import NIOSSL

/// An HTTPS test server on 127.0.0.1 speaking HTTP/2 and HTTP/1.1 (ALPN), serving files from
/// `Fixtures/`, synthesized thumbnails, and faults on request. See README.md in this folder.
///
/// ```swift
/// let server = try await FixtureServer.start()
/// defer { Task { try await server.shutdown() } }
/// // fetch "\(server.url)/thumbs/5.jpg" trusting server.caFile
/// ```
public final class FixtureServer: Sendable {
    /// `https://127.0.0.1:PORT`.
    public let url: String
    /// The port actually bound.
    public let port: Int
    /// Absolute path of the CA certificate that signed the server certificate.
    public let caFile: String

    private let core: FixtureServerCore
    private let group: MultiThreadedEventLoopGroup
    private let channel: Channel

    private init(core: FixtureServerCore, group: MultiThreadedEventLoopGroup, channel: Channel, port: Int, caFile: String) {
        self.core = core
        self.group = group
        self.channel = channel
        self.port = port
        self.url = "https://127.0.0.1:\(port)"
        self.caFile = caFile
    }

    /// Errors raised while starting.
    public enum StartError: Error, CustomStringConvertible {
        case tlsMaterial(path: String, underlying: Error)
        case noPort

        public var description: String {
            switch self {
            case .tlsMaterial(let path, let underlying): return "cannot load TLS material \(path): \(underlying)"
            case .noPort: return "the listening socket has no port"
            }
        }
    }

    /// Starts listening on 127.0.0.1.
    ///
    /// - Parameter configuration: port, fixtures directory, latency, HTTP/2 stream limit, routes.
    /// - Returns: the running server; call ``shutdown()`` when done.
    /// - Throws: ``StartError`` when the TLS material cannot be loaded, or the bind error.
    public static func start(_ configuration: FixtureServerConfiguration = .init()) async throws -> FixtureServer {
        let tlsDirectory = configuration.resolvedTLSDirectory
        let sslContext = try makeSSLContext(tlsDirectory: tlsDirectory, offerHTTP2: configuration.offerHTTP2)
        let caFile = tlsDirectory.appendingPathComponent("ca.pem").standardizedFileURL.path
        let core = FixtureServerCore(configuration: configuration)
        let group = MultiThreadedEventLoopGroup(numberOfThreads: max(1, min(System.coreCount, 4)))

        let http2Connection = Self.http2ConnectionConfiguration(maxConcurrentStreams: configuration.maxConcurrentStreams)
        let http2Stream = Self.http2StreamConfiguration()
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 512)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { channel in
                let number = core.countConnection()
                if let silent = configuration.silentAfterConnections, number > silent {
                    return channel.eventLoop.makeSucceededVoidFuture()  // bytes in, nothing out
                }
                return channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: sslContext))
                }.flatMap {
                    channel.configureHTTP2SecureUpgrade(
                        h2ChannelConfigurator: { connection in
                            connection.eventLoop.makeCompletedFuture {
                                _ = try connection.pipeline.syncOperations.configureHTTP2Pipeline(
                                    mode: .server,
                                    connectionConfiguration: http2Connection,
                                    streamConfiguration: http2Stream
                                ) { stream in
                                    core.countStream()
                                    return stream.eventLoop.makeCompletedFuture {
                                        let sync = stream.pipeline.syncOperations
                                        try sync.addHandler(HTTP2FramePayloadToHTTP1ServerCodec())
                                        try sync.addHandler(FixtureHTTPHandler(core: core, transport: .http2))
                                    }
                                }
                            }
                        },
                        http1ChannelConfigurator: { connection in
                            connection.eventLoop.makeCompletedFuture {
                                let sync = connection.pipeline.syncOperations
                                try sync.configureHTTPServerPipeline(withErrorHandling: true)
                                try sync.addHandler(FixtureHTTPHandler(core: core, transport: .http1))
                            }
                        }
                    )
                }
            }

        do {
            let channel = try await bootstrap.bind(host: "127.0.0.1", port: configuration.port).get()
            guard let port = channel.localAddress?.port else {
                try? await channel.close()
                throw StartError.noPort
            }
            return FixtureServer(core: core, group: group, channel: channel, port: port, caFile: caFile)
        } catch {
            try? await group.shutdownGracefully()
            throw error
        }
    }

    /// Closes the listening socket and every open connection, and stops the event loops.
    public func shutdown() async throws {
        try? await channel.close()
        try await group.shutdownGracefully()
    }

    /// Current counters:
    /// - `connections`: TCP connections accepted (counted before the TLS handshake).
    /// - `streams`: HTTP/2 streams opened by clients; HTTP/1.1 requests do not count.
    /// - `requests`: requests over either protocol, except `/__stats` and `/__stats/reset`.
    public func stats() -> FixtureServerStats {
        core.stats.withLock { $0 }
    }

    /// Sets every counter back to zero (`fail_first` counters are kept).
    public func resetStats() {
        core.stats.withLock { $0 = FixtureServerStats() }
    }

    /// Registers a route handler, asked after the ones already registered and before the built-in
    /// routes; the first handler returning a response wins. Faults still apply to its responses.
    public func addRoute(_ handler: @escaping @Sendable (FixtureRequest) -> FixtureResponse?) {
        core.routes.withLock { $0.append(handler) }
    }

    /// The line the executable prints when ready: `{"url":"https://127.0.0.1:PORT","ca_file":"PATH"}`.
    public var readyLine: String {
        "{\"url\":\(jsonQuoted(url)),\"ca_file\":\(jsonQuoted(caFile))}"
    }

    /// The environment that points `photos` at this server: its CA, and every provider's endpoints,
    /// image hosts and test credentials from `Fixtures/*/emulation.json`.
    public var photosEnvironment: [String: String] {
        var environment = FixtureProviderEmulation(fixtures: core.configuration.fixturesDirectory).settings(server: url)
        environment["PHOTOS_CA_BUNDLE"] = caFile
        return environment
    }

    /// ``photosEnvironment`` as `NAME='value'` lines a POSIX shell can source.
    public var photosEnvironmentScript: String {
        photosEnvironment.sorted { $0.key < $1.key }.map { name, value in
            "\(name)='\(value.replacingOccurrences(of: "'", with: "'\\''"))'\n"
        }.joined()
    }

    // MARK: Setup

    private static func makeSSLContext(tlsDirectory: URL, offerHTTP2: Bool) throws -> NIOSSLContext {
        let certificatePath = tlsDirectory.appendingPathComponent("server.pem").path
        let keyPath = tlsDirectory.appendingPathComponent("server.key").path
        let certificates: [NIOSSLCertificate]
        let key: NIOSSLPrivateKey
        do {
            certificates = try NIOSSLCertificate.fromPEMFile(certificatePath)
        } catch {
            throw StartError.tlsMaterial(path: certificatePath, underlying: error)
        }
        do {
            key = try NIOSSLPrivateKey(file: keyPath, format: .pem)
        } catch {
            throw StartError.tlsMaterial(path: keyPath, underlying: error)
        }
        var tls = TLSConfiguration.makeServerConfiguration(
            certificateChain: certificates.map { .certificate($0) },
            privateKey: .privateKey(key)
        )
        tls.applicationProtocols = offerHTTP2 ? ["h2", "http/1.1"] : ["http/1.1"]
        return try NIOSSLContext(configuration: tls)
    }

    static func http2ConnectionConfiguration(maxConcurrentStreams: Int) -> NIOHTTP2Handler.ConnectionConfiguration {
        var configuration = NIOHTTP2Handler.ConnectionConfiguration()
        configuration.initialSettings = [
            HTTP2Setting(parameter: .maxConcurrentStreams, value: max(1, maxConcurrentStreams)),
            HTTP2Setting(parameter: .maxHeaderListSize, value: 64 * 1024),
        ]
        // `wrong_length` deliberately sends fewer bytes than content-length says; NIOHTTP2 would
        // otherwise turn that into a stream error before anything reaches the client.
        configuration.contentLengthValidation = .disabled
        // A test bed sees clients cancel many streams on purpose (stalls, cancellation tests):
        // don't treat that as a rapid-reset attack.
        configuration.maximumConnectionGlitches = 1_000_000
        return configuration
    }

    static func http2StreamConfiguration() -> NIOHTTP2Handler.StreamConfiguration {
        var configuration = NIOHTTP2Handler.StreamConfiguration()
        configuration.streamResetFrameRateLimit.maximumCount = 1_000_000
        configuration.streamErrorRateLimit.maximumCount = 1_000_000
        return configuration
    }
}
