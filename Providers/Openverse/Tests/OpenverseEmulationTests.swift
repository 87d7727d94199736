import FixtureServerKit
import Foundation
import PhotosCore
import PhotosTransport
import Testing

@testable import OpenverseProvider

/// OpenverseProvider through the real transport against photos-fixture-server's Openverse
/// emulation (Fixtures/openverse/emulation.json), which keeps Openverse's anonymous limits.
@Suite struct OpenverseEmulationTests {
    static func withProvider(_ body: (OpenverseProvider, FixtureServer) async throws -> Void) async throws {
        let emulation = FixtureProviderEmulation(fixtures: OpenverseFixtures.root)
        let server = try await FixtureServer.start(
            FixtureServerConfiguration(fixturesDirectory: OpenverseFixtures.root, routes: [emulation.route]))
        do {
            var configuration = TransportConfiguration()
            configuration.caBundlePath = server.caFile
            configuration.retry = .none
            let transport = try CurlTransport(configuration: configuration)
            let settings = emulation.settings(server: server.url)
            try await body(OpenverseProvider(context: ProviderContext(http: transport, settings: settings)), server)
            transport.shutdown()
        } catch {
            try? await server.shutdown()
            throw error
        }
        try await server.shutdown()
    }

    @Test func anonymousLimitsHoldThroughTheServer() async throws {
        try await Self.withProvider { provider, server in
            let page = try await provider.list(ListQuery(text: "dogs", page: 2, perPage: 30))
            #expect(page.photos.count == 15 && !page.hasMore && page.total == 45)
            #expect(page.photos.allSatisfy { $0.thumbnailURL?.hasPrefix(server.url + "/openverse/v1/images/") == true })
            #expect(page.photos.allSatisfy { $0.imageURL?.hasPrefix(server.url + "/openverse-img/") == true })

            let error = await photosError { try await provider.list(ListQuery(text: "ratelimited")) }
            guard case .unavailable(_, let detail)? = error else {
                Issue.record("expected unavailable, got \(String(describing: error))")
                return
            }
            #expect(detail.contains("try again in 42 s") && detail.contains("anon_burst 20/min"))
        }
    }
}
