import Foundation
import PhotosCore

/// Brings images into the cache in parallel: memory, then disk (verified against the index),
/// then the network, one transfer per URL.
public struct ImageFetcher: Sendable {
    public let cache: PhotoCache
    public let http: any HTTPFetching
    /// Offline: only what is cached; nothing is fetched.
    public var offline: Bool

    /// Images larger than this are refused while they download (PHOTOS_MAX_IMAGE_MB).
    public var maxImageBytes = Self.defaultMaxImageBytes

    /// The cap without PHOTOS_MAX_IMAGE_MB: 50 MiB.
    public static let defaultMaxImageBytes = 50 * 1024 * 1024

    public init(cache: PhotoCache, http: any HTTPFetching, offline: Bool = false) {
        self.cache = cache
        self.http = http
        self.offline = offline
    }

    /// What a batch fetch produced.
    public struct Batch: Sendable {
        /// Files by the URL they came from, as absolute paths.
        public var files: [String: String] = [:]
        /// Failures grouped by host, each with its first error, how many URLs failed, and how
        /// many of those failed for another reason than the first.
        public var failuresByHost: [String: (error: String, count: Int, otherReasons: Int)] = [:]
        /// URLs refused before any request (not http or https).
        public var refused = 0
        /// URLs served from the cache.
        public var cached = 0
        /// Offline URLs that were not cached.
        public var notCached = 0
        /// URLs not fetched because the cache cannot be used this run (its folder is a file,
        /// its index unusable): there is nowhere to keep them.
        public var withoutCache = 0
        /// Images that arrived but could not be written into the cache (a read-only or full
        /// cache folder), with the first reason: no host's fault.
        public var notStored: (error: String, count: Int)?

        public var failed: Int { failuresByHost.values.reduce(0) { $0 + $1.count } + refused + (notStored?.count ?? 0) }

        public init() {}

        /// Adds `other`'s files and counts (batches of different URLs, e.g. one per provider).
        public mutating func merge(_ other: Batch) {
            files.merge(other.files) { first, _ in first }
            for (host, failure) in other.failuresByHost {
                guard let mine = failuresByHost[host] else {
                    failuresByHost[host] = failure
                    continue
                }
                let others = mine.otherReasons + (failure.error == mine.error ? failure.otherReasons : failure.count)
                failuresByHost[host] = (mine.error, mine.count + failure.count, others)
            }
            refused += other.refused
            cached += other.cached
            notCached += other.notCached
            withoutCache += other.withoutCache
            if let stored = other.notStored { notStored = (notStored?.error ?? stored.error, (notStored?.count ?? 0) + stored.count) }
        }
    }

    /// Fetches one image into the cache and returns its file.
    /// - Parameter provider: the provider the image belongs to, for `cache clear --provider`.
    /// - Throws: `TransportError`, `PhotosError.unavailable` for a non-2xx status,
    ///   `PhotosError.offlineNothingCached` offline when the image is not cached.
    public func fetch(_ url: String, provider: String? = nil) async throws -> URL {
        guard URLPolicy.isAllowed(url) else { throw TransportError.unsupportedScheme(URLComponents(string: url)?.scheme ?? "") }
        if let file = cache.cachedImages([url])[url] {
            // Only images are kept: one that no longer reads as one is fetched again.
            if ImageKind(file: file) != nil { return file }
            cache.forgetDamagedImage(url, file: file)
        }
        if offline { throw PhotosError.offlineNothingCached("the image \(Self.host(url)) serves for this photo") }
        return try await cache.download(url, provider: provider, http: http, maxBytes: maxImageBytes)
    }

    /// Fetches every URL concurrently. Never throws: failures are counted by host.
    /// - Parameters:
    ///   - urls: image URLs, each with the provider it belongs to.
    ///   - willDownload: called once, before any transfer starts, with how many URLs need the network.
    ///   - progress: called once per URL fetched from the network as it finishes, with whether it failed.
    public func fetchAll(
        _ urls: [(url: String, provider: String?)], willDownload: (Int) -> Void = { _ in },
        progress: @escaping @Sendable (Bool) -> Void = { _ in }
    ) async -> Batch {
        var providers: [String: String?] = [:]
        providers.reserveCapacity(urls.count)
        var batch = Batch()
        // In the order asked: the first rows' images come first.
        var allowed: [String] = []
        for item in urls where providers[item.url] == nil {
            providers[item.url] = item.provider
            if URLPolicy.isAllowed(item.url) { allowed.append(item.url) } else { batch.refused += 1 }
        }
        batch.files = cache.cachedImagePaths(allowed)
        batch.cached = batch.files.count
        let missing = allowed.filter { batch.files[$0] == nil }
        if offline {
            batch.notCached = missing.count
            return batch
        }
        if !missing.isEmpty, cache.index.disabledReason != nil {
            batch.withoutCache = missing.count
            return batch
        }
        willDownload(missing.count)
        let results = await cache.downloadAll(
            missing.map { (url: $0, provider: providers[$0] ?? nil) }, http: http, maxBytes: maxImageBytes, progress: progress)
        for url in missing {
            switch results[url] ?? .failure(CancellationError()) {
            case .success(let file):
                batch.files[url] = file.path
            case .failure(TransportError.unsupportedScheme):
                batch.refused += 1
            case .failure(TransportError.fileSystem(let path, let detail)):
                batch.notStored = (batch.notStored?.error ?? "cannot write \(path): \(detail)", (batch.notStored?.count ?? 0) + 1)
            case .failure(let error):
                let host = Self.host(url)
                let reason = PhotoCache.describe(error)
                if let failure = batch.failuresByHost[host] {
                    batch.failuresByHost[host] = (failure.error, failure.count + 1, failure.otherReasons + (reason == failure.error ? 0 : 1))
                } else {
                    batch.failuresByHost[host] = (reason, 1, 0)
                }
            }
        }
        return batch
    }

    /// Fetches one image for a viewer, as ``fetch(_:provider:)`` does; when the cache cannot
    /// hold it (a cache on a read-only file system, a cache folder that is a file, a full disk),
    /// into `folder` instead, a private folder outside the cache, named by what its bytes are.
    /// The file stays after the command: a viewer may open it after photos has exited.
    /// - Returns: the file, and why the cache could not hold it when it is outside the cache.
    public func fetchForViewing(_ url: String, provider: String?, outside folder: URL) async throws -> (file: URL, notCached: String?) {
        let reason: String
        do {
            return (try await fetch(url, provider: provider), nil)
        } catch let error as CacheUnavailable {
            reason = error.reason
        } catch TransportError.fileSystem(let path, let detail) {
            reason = "cannot write \(path): \(detail)"
        } catch let error as CocoaError where error.isFileError {
            reason = PhotoCache.describe(error)
        }
        try Self.preparePrivateFolder(folder)
        let name = SHA256.hex(url)
        // A name of this download's own: two commands opening the same image at once each
        // download it, and must not rename or read each other's file.
        let partial = folder.appendingPathComponent(name + "." + UUID().uuidString + ".download")
        let response = try await http.download(HTTPRequest(url: url, maxBodyBytes: maxImageBytes), to: partial)
        guard response.isSuccess else {
            try? FileManager.default.removeItem(at: partial)
            throw PhotosError.unavailable(provider: Self.host(url), detail: "HTTP \(response.status)")
        }
        // Named as what it is; a body that is not an image is not kept, as in the cache.
        guard let kind = ImageKind(file: partial) else {
            try? FileManager.default.removeItem(at: partial)
            throw PhotosError.badData(provider: Self.host(url), detail: "not a JPEG, PNG, GIF or WebP image")
        }
        if response.headers["Content-Length"] == nil, !kind.endsWhole(path: partial.path) {
            try? FileManager.default.removeItem(at: partial)
            throw PhotosError.unavailable(provider: Self.host(url), detail: ImageKind.cutShortReason)
        }
        let target = folder.appendingPathComponent(name + "." + kind.fileExtension)
        guard rename(partial.path, target.path) == 0 else {
            let detail = String(cString: strerror(errno))
            try? FileManager.default.removeItem(at: partial)
            throw TransportError.fileSystem(path: target.path, detail: detail)
        }
        return (target, reason)
    }

    /// Makes `folder` (mode 0700), or checks that the one there is a folder of this user's that
    /// no one else may write: a folder in a shared /tmp could be another user's trap.
    public static func preparePrivateFolder(_ folder: URL) throws {
        if mkdir(folder.path, 0o700) != 0, errno != EEXIST {
            throw TransportError.fileSystem(path: folder.path, detail: String(cString: strerror(errno)))
        }
        var info = stat()
        guard lstat(folder.path, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR, info.st_uid == geteuid(), info.st_mode & 0o077 == 0 else {
            throw TransportError.fileSystem(path: folder.path, detail: "not a private folder of this user's; photos does not write there")
        }
        // Images viewed a day ago or more go: the folder is often in memory (tmpfs).
        let dayAgo = Date().addingTimeInterval(-86_400)
        for file in LiveFileSystem().files(under: folder.path) where file.modified < dayAgo { unlink(file.path) }
    }

    /// The host of `url`, as failures are grouped.
    public static func host(_ url: String) -> String {
        URLComponents(string: url)?.host ?? "unknown host"
    }
}
