import Foundation
import PhotosCore
import PhotosTransport
import Synchronization

/// The transport of one run, started on its first request. A run that finds everything it needs
/// in the cache (a re-run of a finished save, a listing still fresh) then never loads libcurl,
/// its TLS library and their dependencies, nor starts the loop thread.
final class LazyTransport: HTTPFetching {
    let configuration: TransportConfiguration
    /// The transport once started; `closed` after ``shutdown()``, when no request starts one.
    private let state = Mutex<(transport: CurlTransport?, closed: Bool)>((nil, false))

    init(configuration: TransportConfiguration) {
        self.configuration = configuration
    }

    /// The transport, started now if this is the first request.
    /// - Throws: `TransportError` when libcurl cannot be loaded, `CancellationError` after shutdown.
    func transport() throws -> CurlTransport {
        try state.withLock { state in
            if let transport = state.transport { return transport }
            guard !state.closed else { throw CancellationError() }
            let transport = try CurlTransport(configuration: configuration)
            state.transport = transport
            return transport
        }
    }

    /// Whether a request has started the transport.
    var isStarted: Bool { state.withLock { $0.transport != nil } }

    var concurrentTransfers: Int { configuration.maxActiveTransfers }

    var bodyBytesReceived: Int { state.withLock { $0.transport }?.bodyBytesReceived ?? 0 }

    func data(for request: HTTPRequest) async throws -> HTTPResponse {
        try await transport().data(for: request)
    }

    func download(_ request: HTTPRequest, to destination: URL) async throws -> HTTPResponse {
        try await transport().download(request, to: destination)
    }

    func download(_ request: HTTPRequest, resuming partial: URL) async throws -> HTTPResponse {
        try await transport().download(request, resuming: partial)
    }

    func downloadAll(
        _ items: [(request: HTTPRequest, path: String)],
        each: @escaping @Sendable (Int, Result<HTTPResponse, any Error>) -> Void
    ) async {
        guard !items.isEmpty else { return }
        let transport: CurlTransport
        do {
            transport = try self.transport()
        } catch {
            for index in items.indices { each(index, .failure(error)) }
            return
        }
        await transport.downloadAll(items, each: each)
    }

    /// A transport not started yet has no host that failed.
    func retryFailedHosts() {
        state.withLock { $0.transport }?.retryFailedHosts()
    }

    /// Starts the transport: the requests follow. One that cannot start fails them on their own.
    func expectRequests(for urls: [String]) {
        guard !urls.isEmpty else { return }
        (try? transport())?.expectRequests(for: urls)
    }

    /// Starts the transport: the request `alongside` follows.
    func preconnect(to url: String, forTransfers transfers: Int, alongside: String?) {
        (try? transport())?.preconnect(to: url, forTransfers: transfers, alongside: alongside)
    }

    /// Stops the transport if a request started it; later requests fail. Safe to call twice.
    func shutdown() {
        let started = state.withLock { state -> CurlTransport? in
            state.closed = true
            defer { state.transport = nil }
            return state.transport
        }
        started?.shutdown()
    }
}
