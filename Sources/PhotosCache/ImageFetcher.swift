import Foundation
import PhotosCore

/// Brings images into the cache in parallel: disk first, then the network, one transfer per URL.
public struct ImageFetcher: Sendable {
    public let store: ImageStore
    public let http: any HTTPFetching

    /// Images larger than this are not cached.
    public var maxImageBytes = 64 * 1024 * 1024

    public init(store: ImageStore, http: any HTTPFetching) {
        self.store = store
        self.http = http
    }

    /// What a batch fetch produced.
    public struct Batch: Sendable {
        /// Files by the URL they came from.
        public var files: [String: URL] = [:]
        /// Failures grouped by host, each with its first error and how many URLs failed.
        public var failuresByHost: [String: (error: String, count: Int)] = [:]
        /// URLs refused before any request (not http or https).
        public var refused = 0

        public var failed: Int { failuresByHost.values.reduce(0) { $0 + $1.count } + refused }
    }

    /// Fetches one image into the cache and returns its file.
    /// - Throws: `TransportError` or `PhotosError.unavailable` for a non-2xx status.
    public func fetch(_ url: String) async throws -> URL {
        guard URLPolicy.isAllowed(url) else { throw TransportError.unsupportedScheme(URLComponents(string: url)?.scheme ?? "") }
        if let file = store.existingFile(for: url) { return file }
        try store.prepareFolder(for: url)
        let target = store.path(for: url)
        let response = try await http.download(HTTPRequest(url: url, maxBodyBytes: maxImageBytes), to: target)
        guard response.isSuccess else {
            throw PhotosError.unavailable(provider: Self.host(url), detail: "HTTP \(response.status)")
        }
        return target
    }

    /// Fetches every URL concurrently. Never throws: failures are counted by host.
    /// - Parameter progress: called once per URL as it finishes, with whether it failed.
    public func fetchAll(_ urls: [String], progress: @escaping @Sendable (Bool) -> Void = { _ in }) async -> Batch {
        let unique = Array(Set(urls))
        return await withTaskGroup(of: (String, Result<URL, any Error>).self) { group in
            for url in unique {
                group.addTask {
                    do {
                        let file = try await fetch(url)
                        progress(false)
                        return (url, .success(file))
                    } catch {
                        progress(true)
                        return (url, .failure(error))
                    }
                }
            }
            var batch = Batch()
            for await (url, result) in group {
                switch result {
                case .success(let file):
                    batch.files[url] = file
                case .failure(TransportError.unsupportedScheme):
                    batch.refused += 1
                case .failure(let error):
                    let host = Self.host(url)
                    let count = (batch.failuresByHost[host]?.count ?? 0) + 1
                    let first = batch.failuresByHost[host]?.error ?? String(describing: error)
                    batch.failuresByHost[host] = (first, count)
                }
            }
            return batch
        }
    }

    static func host(_ url: String) -> String {
        URLComponents(string: url)?.host ?? "unknown host"
    }
}
