import FixtureServerKit
import Foundation
import PhotosCore
import PhotosTransport
import Testing

@testable import NASAProvider

/// NASAProvider through the real transport against photos-fixture-server's NASA
/// emulation (Fixtures/nasa/emulation.json).
@Suite struct NASAEmulationTests {
    static func withProvider(_ body: (NASAProvider, FixtureServer) async throws -> Void) async throws {
        let emulation = FixtureProviderEmulation(fixtures: NASAFixtures.root)
        let server = try await FixtureServer.start(
            FixtureServerConfiguration(fixturesDirectory: NASAFixtures.root, routes: [emulation.route]))
        do {
            var configuration = TransportConfiguration()
            configuration.caBundlePath = server.caFile
            configuration.retry = .none
            let transport = try CurlTransport(configuration: configuration)
            let settings = emulation.settings(server: server.url)
            try await body(NASAProvider(context: ProviderContext(http: transport, settings: settings)), server)
            transport.shutdown()
        } catch {
            try? await server.shutdown()
            throw error
        }
        try await server.shutdown()
    }

    @Test func anIDWithSpacesRoundTripsThroughTheServer() async throws {
        try await Self.withProvider { provider, server in
            let detail = try await provider.detail(PhotoID(provider: "nasa", raw: "Apollo 11 Mission Crew"))
            #expect(detail.photo.title == "Apollo 11 crew portrait")
            #expect(detail.sizes.count == 5)
            #expect(detail.sizes.allSatisfy { $0.url.hasPrefix(server.url + "/nasa-assets/image/Apollo%2011%20Mission%20Crew/") })
            let feed = try await provider.list(ListQuery(perPage: 10))
            #expect(feed.photos.contains { $0.id.raw == "Apollo 11 Mission Crew" } && feed.hasMore)
        }
    }

    @Test func theLibrarysDepthRefusalIsExplained() async throws {
        try await Self.withProvider { provider, _ in
            let error = await photosError { try await provider.list(ListQuery(text: "toodeep")) }
            guard case .usage(let message)? = error else {
                Issue.record("expected a usage error, got \(String(describing: error))")
                return
            }
            #expect(message.contains("10000 results") && message.contains("refine your search"))
        }
    }
}
