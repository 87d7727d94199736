import Foundation
import GRDB
import PhotosCore
import Synchronization

extension PhotoCache {
    /// The cached, verified files among `urls`: memory first, then one index query, then a size
    /// check of each file against the recorded size (no folder is ever listed). An entry whose
    /// file is missing or has another size is dropped, so the image is fetched again.
    /// - Returns: files by URL; URLs not returned are not cached.
    public func cachedImages(_ urls: [String]) -> [String: URL] {
        cachedImagePaths(urls).mapValues { URL(fileURLWithPath: $0, isDirectory: false) }
    }

    /// ``cachedImages(_:)`` as absolute paths: what a listing of hundreds of photos prints.
    public func cachedImagePaths(_ urls: [String]) -> [String: String] {
        var found: [String: String] = [:]
        found.reserveCapacity(urls.count)
        var wanted: [String] = []
        memory.withLock { memory in
            for url in urls {
                if let file = memory[url] { found[url] = file } else { wanted.append(url) }
            }
        }
        var broken: [String: Int64] = [:]
        var rows: [(url: String, path: String, size: Int64, lastAccess: Double)] = []
        // An index this process made new holds no image of this run's (those are in memory
        // until the command ends), and at most what another process sharing the new cache
        // recorded meanwhile, which is then fetched again: a cold listing asks it nothing, and
        // so does not wait behind the listing being stored.
        if !wanted.isEmpty, !index.isNewThisRun {
            do {
                rows = try indexedImageRows(wanted)
            } catch {
                reportFailure("look up images", error)
            }
        }
        // The recorded accesses: the end of the command writes those older than the granularity.
        var recorded: [(String, Double)] = []
        do {
            recorded.reserveCapacity(rows.count)
            for entry in rows {
                // The recorded path is trusted only inside images/ (no hashing on the hot path),
                // and joined as a string.
                let path = rootPath + "/" + entry.path
                if Self.isSafeRelativePath(entry.path), configuration.fileSystem.fileSize(atPath: path) == entry.size {
                    found[entry.url] = path
                    recorded.append((entry.url, entry.lastAccess))
                } else {
                    broken[entry.url] = entry.size
                }
            }
        }
        let hits = found
        if !recorded.isEmpty {
            memory.withLock { memory in
                for (url, _) in recorded { memory[url] = hits[url] }
            }
        }
        run.withLock { run in
            run.imageHits += hits.count
            // The first reading of a URL this run is its recorded access; later ones come from memory.
            for (url, time) in recorded where run.imageAccesses[url] == nil { run.imageAccesses[url] = time }
            run.brokenImages.merge(broken) { $1 }
        }
        // The file is not removed here: another process may have just renamed a new, complete
        // one into its place. It is fetched again (and replaced by rename), or swept as an orphan.
        return found
    }

    /// Forgets the cached image of `url` whose `file` holds no image although its size is the one
    /// recorded (its bytes damaged on the disk or by hand): the next fetch downloads it again,
    /// and its row goes at the end of the command unless that download replaced it. The file is
    /// left to that download's rename, as a file of the wrong size is.
    public func forgetDamagedImage(_ url: String, file: URL) {
        let size = configuration.fileSystem.fileSize(atPath: file.path) ?? -1
        memory.withLock { $0[url] = nil }
        run.withLock { $0.brokenImages[url] = size }
    }

    /// Brings one image into the cache through `http` (temp file + rename by the transport),
    /// sharing a download already in flight in this process for the same URL.
    /// - Parameters:
    ///   - url: an http or https URL.
    ///   - provider: the provider the image belongs to (for `cache clear --provider`).
    ///   - http: the transport.
    ///   - maxBytes: larger images are refused.
    /// - Returns: the cached file.
    /// - Throws: `TransportError`, `PhotosError.unavailable` for a non-2xx status, `CancellationError`.
    ///
    /// The first caller downloads in its own task (no task of its own per image: hundreds are
    /// in flight at once); the others wait for its result. A waiter that is cancelled leaves at
    /// once; when the downloading caller is cancelled, a waiter that is not starts again.
    public func download(_ url: String, provider: String?, http: any HTTPFetching, maxBytes: Int) async throws -> URL {
        while true {
            let (shared, isFirst) = inFlight.withLock { downloads -> (SharedDownload, Bool) in
                if let running = downloads[url] { return (running, false) }
                let started = SharedDownload()
                downloads[url] = started
                return (started, true)
            }
            if isFirst {
                let result: Result<URL, any Error>
                do {
                    result = .success(try await performDownload(url, provider: provider, http: http, maxBytes: maxBytes))
                } catch {
                    result = .failure(error)
                }
                inFlight.withLock { downloads in
                    if downloads[url] === shared { downloads[url] = nil }
                }
                shared.finish(result)
                return try result.get()
            }
            do {
                return try await shared.wait()
            } catch is CancellationError where !Task.isCancelled {
                continue  // the caller that downloaded was cancelled, not this one
            }
        }
    }

    /// Brings every URL of `wanted` into the cache, as ``download(_:provider:http:maxBytes:)``
    /// does one, in one batch handed to the transport (``HTTPFetching/downloadAll(_:each:)``):
    /// each file is checked and recorded as its transfer ends, without a task per image. A URL
    /// another caller is downloading already is waited for instead.
    /// - Parameter progress: called once per URL as it ends, with whether it failed.
    /// - Returns: the file or the error of every URL.
    public func downloadAll(
        _ wanted: [(url: String, provider: String?)], http: any HTTPFetching, maxBytes: Int,
        progress: @escaping @Sendable (Bool) -> Void = { _ in }
    ) async -> [String: Result<URL, any Error>] {
        var mine: [(url: String, provider: String?, shared: SharedDownload)] = []
        var others: [(url: String, provider: String?)] = []
        inFlight.withLock { downloads in
            for item in wanted {
                if downloads[item.url] != nil {
                    others.append((item.url, item.provider))
                } else {
                    let started = SharedDownload()
                    downloads[item.url] = started
                    mine.append((item.url, item.provider, started))
                }
            }
        }
        var results: [String: Result<URL, any Error>] = [:]
        results.reserveCapacity(wanted.count)
        let relatives = mine.map { store.relativePath(for: $0.url) }
        // A batch, then once more, as a batch too, for the images another process's `cache clear`
        // took from under it (its folder is made again): one at a time, a clear during a listing
        // of 500 made it take minutes.
        var ended = [Result<URL, any Error>?](repeating: nil, count: mine.count)
        var pending = Array(mine.indices)
        for pass in 1...2 where !pending.isEmpty {
            let outcomes = await downloadBatch(
                pending.map { (mine[$0].url, mine[$0].provider, mine[$0].shared, relatives[$0]) }, http: http, maxBytes: maxBytes,
                lastPass: pass == 2, progress: progress)
            for (slot, index) in pending.enumerated() { ended[index] = outcomes[slot] }
            pending = pending.filter { ended[$0].map(Self.wasRemoved) == true }
        }
        for (index, item) in mine.enumerated() {
            let outcome = ended[index] ?? .failure(CancellationError())
            if ended[index] == nil { finishDownload(item.url, item.shared, outcome) }
            results[item.url] = outcome
        }
        // The rare URL another caller is downloading: waited for (and, if that caller was
        // cancelled, downloaded) all at once.
        await withTaskGroup(of: (String, Result<URL, any Error>).self) { group in
            for other in others {
                group.addTask { [self] in
                    do {
                        return (other.url, .success(try await download(other.url, provider: other.provider, http: http, maxBytes: maxBytes)))
                    } catch {
                        return (other.url, .failure(error))
                    }
                }
            }
            for await (url, result) in group {
                results[url] = result
                progress(Self.isFailure(result))
            }
        }
        return results
    }

    /// One batch of `downloadAll`: the images' folder made (one `mkdir`), every image asked for at
    /// once, each recorded as it arrives. An image whose file another process removed meanwhile
    /// comes back as `DownloadedFileRemoved` (its waiters keep waiting) unless `lastPass`.
    private func downloadBatch(
        _ batch: [(url: String, provider: String?, shared: SharedDownload, relative: String)], http: any HTTPFetching, maxBytes: Int,
        lastPass: Bool, progress: @escaping @Sendable (Bool) -> Void
    ) async -> [Result<URL, any Error>?] {
        let outcomes = Mutex([Result<URL, any Error>?](repeating: nil, count: batch.count))
        do {
            if let first = batch.first { try store.prepareFolder(relativePath: first.relative) }
        } catch {
            // The cache's own folder, not any host: said as a file that could not be written.
            let folder = (rootPath + "/" + (batch.first?.relative ?? "") as NSString).deletingLastPathComponent
            let failure: Result<URL, any Error> = .failure(TransportError.fileSystem(path: folder, detail: Self.describe(error)))
            for item in batch {
                finishDownload(item.url, item.shared, failure)
                progress(true)
            }
            return Array(repeating: failure, count: batch.count)
        }
        // Paths as strings: a file URL costs thousands of instructions to make, and as many to
        // read its path back; one is made per file saved, once it is.
        let items = batch.map { (request: HTTPRequest(url: $0.url, maxBodyBytes: maxBytes), path: rootPath + "/" + $0.relative) }
        await http.downloadAll(items) { [self] index, result in
            let item = batch[index]
            var outcome: Result<URL, any Error>
            if case .failure(let error) = result, removedMeanwhile(error, path: items[index].path) {
                // Another process cleared the cache while this batch ran: fetched again (after
                // a second clear, failed as it is).
                outcome = .failure(lastPass ? error : DownloadedFileRemoved.removed)
            } else {
                outcome = result.flatMap { response in
                    recordDownload(item.url, provider: item.provider, relative: item.relative, at: items[index].path, response: response)
                }
            }
            if lastPass, Self.wasRemoved(outcome) {
                outcome = .failure(TransportError.fileSystem(path: items[index].path, detail: "the downloaded file was removed before it could be used"))
            }
            outcomes.withLock { $0[index] = outcome }
            // Waiters of another caller learn it now; a file removed under us is fetched again,
            // so that one waits.
            if !Self.wasRemoved(outcome) {
                finishDownload(item.url, item.shared, outcome)
                progress(Self.isFailure(outcome))
            }
        }
        return outcomes.withLock { $0 }
    }

    /// Publishes the end of a download this caller ran to those waiting for it.
    private func finishDownload(_ url: String, _ shared: SharedDownload, _ result: Result<URL, any Error>) {
        inFlight.withLock { downloads in
            if downloads[url] === shared { downloads[url] = nil }
        }
        shared.finish(result)
    }

    private static func isSuccess(_ result: Result<URL, any Error>) -> Bool {
        if case .success = result { return true }
        return false
    }

    /// Whether `result` failed, not counting a download the command stopped (Ctrl-C): progress
    /// counts those as neither done well nor failed.
    private static func isFailure(_ result: Result<URL, any Error>) -> Bool {
        if case .failure(let error) = result { return !(error is CancellationError) }
        return false
    }

    /// Whether `result` says the file was gone before its size could be checked.
    private static func wasRemoved(_ result: Result<URL, any Error>) -> Bool {
        if case .failure(DownloadedFileRemoved.removed) = result { return true }
        return false
    }

    private enum DownloadedFileRemoved: Error { case removed }

    /// Whether `error` is the transport failing to write the file at `path` because another
    /// process removed it, or its folder, meanwhile (`cache clear`): its folder is gone, or a
    /// file it had made was (ENOENT, when reopening or renaming its temporary file).
    private func removedMeanwhile(_ error: any Error, path: String) -> Bool {
        guard case TransportError.fileSystem(_, let detail) = error, let slash = path.lastIndex(of: "/") else { return false }
        return detail == String(cString: strerror(ENOENT)) || !configuration.fileSystem.exists(atPath: String(path[..<slash]))
    }

    /// Checks and records a download that ended with `response`: the file and its size go to
    /// memory and, at the end of the command, to the index.
    private func recordDownload(
        _ url: String, provider: String?, relative: String, at path: String, response: HTTPResponse
    ) -> Result<URL, any Error> {
        guard response.isSuccess else {
            return .failure(PhotosError.unavailable(provider: URLComponents(string: url)?.host ?? "unknown host", detail: "HTTP \(response.status)"))
        }
        // The size from the file: it is also there still (another process's `cache clear` may
        // have moved it away since its rename; it is fetched again). What it is, from the first
        // bytes the transport wrote (no reading back: this runs for every image), or the file.
        guard let size = configuration.fileSystem.fileSize(atPath: path) else { return .failure(DownloadedFileRemoved.removed) }
        let kind = response.fileHead.map { ImageKind(sniffing: $0) } ?? ImageKind(path: path)
        // A body that is not an image (an error page sent with 200, HTML, a compressed bomb) is
        // never kept under an image's name: a later run, `--refresh` or not, would take it for
        // the image and never ask again.
        guard kind != nil else {
            // Gone since it was written (another process cleared the cache): fetched again, not
            // blamed on its host.
            guard configuration.fileSystem.exists(atPath: path) else { return .failure(DownloadedFileRemoved.removed) }
            configuration.fileSystem.remove(atPath: path)
            return .failure(PhotosError.badData(
                provider: URLComponents(string: url)?.host ?? "unknown host", detail: "not a JPEG, PNG, GIF or WebP image"))
        }
        // Nothing said how long it is (no Content-Length: a close-delimited HTTP/1.x body, which a
        // connection closed early ends as its end would): it must end as an image of its kind
        // does, or it is cut short and is not kept as the image.
        if let kind, response.headers["Content-Length"] == nil, !kind.endsWhole(path: path) {
            guard configuration.fileSystem.exists(atPath: path) else { return .failure(DownloadedFileRemoved.removed) }
            configuration.fileSystem.remove(atPath: path)
            return .failure(PhotosError.unavailable(
                provider: URLComponents(string: url)?.host ?? "unknown host",
                detail: ImageKind.cutShortReason))
        }
        let target = URL(fileURLWithPath: path, isDirectory: false)
        let record = ImageRecord(url: url, path: relative, size: size, provider: provider)
        memory.withLock { $0[url] = path }
        let first = run.withLock { run in
            run.imageMisses += 1
            let first = run.firstNewImage == nil
            if first { run.firstNewImage = now.timeIntervalSince1970 }
            run.newImages[url] = record
            run.brokenImages[url] = nil
            return first
        }
        noteNewImage(first: first)
        return .success(target)
    }

    /// Callers waiting for the download of `url` another caller is running (for tests).
    func waitersForDownload(_ url: String) -> Int {
        inFlight.withLock { $0[url] }?.waiterCount ?? 0
    }

    private func performDownload(_ url: String, provider: String?, http: any HTTPFetching, maxBytes: Int) async throws -> URL {
        // The file's name is the SHA-256 of its URL: worked out once per download.
        let relative = store.relativePath(for: url)
        try store.prepareFolder(relativePath: relative)
        // Joined as a string: appending a component to a URL parses it again, for every image.
        let path = rootPath + "/" + relative
        let target = URL(filePath: path, directoryHint: .notDirectory)
        // Another process sharing the cache may evict the file between its rename and the size
        // check below (its index does not know this process is using it yet): fetch it again,
        // once, rather than report a failure.
        for _ in 1...2 {
            let response = try await http.download(HTTPRequest(url: url, maxBodyBytes: maxBytes), to: target)
            switch recordDownload(url, provider: provider, relative: relative, at: path, response: response) {
            case .success(let file): return file
            case .failure(DownloadedFileRemoved.removed): continue
            case .failure(let error): throw error
            }
        }
        throw TransportError.fileSystem(path: target.path, detail: "the downloaded file was removed before it could be used")
    }

    /// Index rows for `urls`: one prepared statement run per URL (a listing's hundreds: SQLite
    /// parsed an `IN` list of 500 values in more instructions than the 500 look-ups take).
    /// The index's rows of `urls`, by URL.
    func indexedImages(_ urls: [String]) throws -> [String: (path: String, size: Int64, lastAccess: Double)] {
        var rows: [String: (path: String, size: Int64, lastAccess: Double)] = [:]
        for row in try indexedImageRows(urls) { rows[row.url] = (row.path, row.size, row.lastAccess) }
        return rows
    }

    /// The index's rows of `urls`, in their order (a URL asked for twice is found twice).
    func indexedImageRows(_ urls: [String]) throws -> [(url: String, path: String, size: Int64, lastAccess: Double)] {
        try index.read { db in
            let lookup = BoundStatement(try db.makeStatement(sql: "SELECT path, size, last_access FROM image WHERE url = ?"), in: db)
            var result: [(url: String, path: String, size: Int64, lastAccess: Double)] = []
            result.reserveCapacity(urls.count)
            for url in urls {
                lookup.bind(1, url)
                let row = try lookup.firstRow { columns -> (url: String, path: String, size: Int64, lastAccess: Double)? in
                    guard let path = columns.text(0), let size = columns.int64(1) else { return nil }
                    return (url, path, size, columns.double(2).flatMap { $0.isFinite ? $0 : nil } ?? 0)
                }
                if let row { result.append(row) }
            }
            return result
        }
    }
}

/// One image download that every caller asking for the same URL meanwhile waits for.
final class SharedDownload: Sendable {
    private typealias Waiter = CheckedContinuation<URL, any Error>

    private struct State {
        var result: Result<URL, any Error>?
        var waiters: [UInt64: Waiter] = [:]
        /// Waiters cancelled before their continuation existed.
        var cancelled: Set<UInt64> = []
        var nextID: UInt64 = 0
    }

    private let state = Mutex(State())

    var waiterCount: Int { state.withLock { $0.waiters.count } }

    /// Hands `result` to every waiter, and to those that come later.
    func finish(_ result: Result<URL, any Error>) {
        let waiters = state.withLock { state in
            state.result = result
            defer { state.waiters.removeAll() }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume(with: result) }
    }

    /// The download's result; `CancellationError` at once when the waiting task is cancelled.
    func wait() async throws -> URL {
        let id = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (waiter: Waiter) in
                let now: Result<URL, any Error>? = state.withLock { state in
                    if let result = state.result { return result }
                    if state.cancelled.remove(id) != nil { return .failure(CancellationError()) }
                    state.waiters[id] = waiter
                    return nil
                }
                if let now { waiter.resume(with: now) }
            }
        } onCancel: {
            let waiter = state.withLock { state -> Waiter? in
                if let waiter = state.waiters.removeValue(forKey: id) { return waiter }
                if state.result == nil { state.cancelled.insert(id) }
                return nil
            }
            waiter?.resume(throwing: CancellationError())
        }
    }
}
