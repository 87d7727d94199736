import FixtureServerKit
import Foundation
import PhotosTestSupport

/// Starts a fixture server for one test, with a `photos` binary set up for it, and stops both.
func withServer<T>(
    _ configuration: FixtureServerConfiguration = .init(), _ body: (FixtureServer, PhotosBinary) async throws -> T
) async throws -> T {
    let server = try await FixtureServer.start(configuration)
    let photos = try PhotosBinary(server: server)
    defer { photos.remove() }
    do {
        let result = try await body(server, photos)
        try await server.shutdown()
        return result
    } catch {
        try? await server.shutdown()
        throw error
    }
}
