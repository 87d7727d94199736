import FixtureServerKit
import Foundation
import PhotosCore
import PhotosTransport
import Testing

@testable import CommonsProvider

/// CommonsProvider through the real transport against photos-fixture-server's Commons
/// emulation (Fixtures/commons/emulation.json), which refuses clients as Wikimedia does.
@Suite struct CommonsEmulationTests {
    static func withProvider(userAgent: String = PhotosVersion.userAgent, _ body: (CommonsProvider, FixtureServer) async throws -> Void)
        async throws
    {
        let emulation = FixtureProviderEmulation(fixtures: CommonsFixtures.root)
        let server = try await FixtureServer.start(
            FixtureServerConfiguration(fixturesDirectory: CommonsFixtures.root, routes: [emulation.route]))
        do {
            var configuration = TransportConfiguration()
            configuration.caBundlePath = server.caFile
            configuration.retry = .none
            configuration.userAgent = userAgent
            let transport = try CurlTransport(configuration: configuration)
            let settings = emulation.settings(server: server.url)
            try await body(CommonsProvider(context: ProviderContext(http: transport, settings: settings)), server)
            transport.shutdown()
        } catch {
            try? await server.shutdown()
            throw error
        }
        try await server.shutdown()
    }

    @Test func aUserAgentWithoutAContactURLIsRefusedAsWikimediaDoes() async throws {
        try await Self.withProvider(userAgent: "photos/0.1.0") { provider, _ in
            let error = await photosError { try await provider.list(ListQuery(text: "dogs", perPage: 10)) }
            guard case .unavailable(let name, let detail)? = error else {
                Issue.record("expected unavailable, got \(String(describing: error))")
                return
            }
            #expect(name == "commons" && detail.contains("HTTP 403") && detail.contains("User-Agent"))
        }
    }

    @Test func photosUserAgentIsServedAndImagesComeFromTheServer() async throws {
        try await Self.withProvider { provider, server in
            let page = try await provider.list(ListQuery(text: "dogs", perPage: 10))
            #expect(page.photos.count == 10 && page.hasMore)
            #expect(page.photos.allSatisfy { $0.thumbnailURL?.hasPrefix(server.url + "/commons-upload/wikipedia/commons/thumb/") == true })
            let feed = try await provider.list(ListQuery(page: 2, perPage: 10))
            #expect(feed.photos.first?.title == "Tower Bridge at night, London" && feed.hasMore)
            let detail = try await provider.detail(PhotoID(provider: "commons", raw: "22459639"))
            #expect(detail.extra["license"] == "CC BY-SA 4.0")
        }
    }
}
