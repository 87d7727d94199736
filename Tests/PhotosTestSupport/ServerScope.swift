import FixtureServerKit
import Foundation

/// Runs `body` with a fixture server of its own, then stops the server, also when `body`
/// throws; a failure to stop is reported unless `body` already failed.
public func withFixtureServer<T>(
    _ configuration: FixtureServerConfiguration = .init(), _ body: (FixtureServer) async throws -> T
) async throws -> T {
    let server = try await FixtureServer.start(configuration)
    let result: T
    do {
        result = try await body(server)
    } catch {
        try? await server.shutdown()
        throw error
    }
    try await server.shutdown()
    return result
}

/// Runs `body` with a fixture server and a `photos` binary set up for it, then stops both.
public func withServer<T>(
    _ configuration: FixtureServerConfiguration = .init(), _ body: (FixtureServer, PhotosBinary) async throws -> T
) async throws -> T {
    try await withFixtureServer(configuration) { server in
        let photos = try PhotosBinary(server: server)
        defer { photos.remove() }
        return try await body(server, photos)
    }
}
