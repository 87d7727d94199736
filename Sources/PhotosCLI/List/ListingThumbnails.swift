import Foundation
import PhotosCache
import PhotosCore
import PhotosImaging
import PhotosTerminal
import PhotosTransport
import Synchronization

extension Listing {
    /// Thumbnail files by URL, and which of them photos drew itself.
    struct Thumbnails {
        /// Absolute paths.
        var files: [String: String] = [:]
        var synthesized: Set<String> = []

        func path(_ photo: Photo) -> String? { photo.thumbnailURL.flatMap { files[$0] } }
        func isSynthesized(_ photo: Photo) -> Bool { photo.thumbnailURL.map(synthesized.contains) ?? false }
    }

    /// One provider's thumbnails as fetched (a struct: tuples through a task group crashed in
    /// release builds).
    struct ThumbnailPart: Sendable {
        var items: [(url: String, provider: String?)]
        var batch: ImageFetcher.Batch
    }

    /// The progress bar all providers' thumbnails share: each adds its downloads as its listing
    /// arrives.
    func thumbnailProgress() -> ProgressBar {
        ProgressBar(label: "Thumbnails", total: 0, enabled: environment.stderrIsTerminal, columns: { TTY.columns(STDERR_FILENO) }, write: { Diagnostics.raw($0) })
    }

    /// Fetches (or finds in the cache) the thumbnails of one provider's photos: called as soon
    /// as its listing arrives, while other providers' listings may still be on their way. With a
    /// `prefetch`, what its pages started is collected and only the rest is fetched.
    func downloadThumbnails(_ photos: [Photo], offline: Bool, progress: ProgressBar, prefetch: ThumbnailPrefetch? = nil) async -> ThumbnailPart {
        let items = ThumbnailPrefetch.items(photos)
        if let prefetch { return ThumbnailPart(items: items, batch: await prefetch.collect(items)) }
        guard !items.isEmpty else { return ThumbnailPart(items: [], batch: ImageFetcher.Batch()) }
        let batch = await context.imageFetcher(offline: offline).fetchAll(items) { downloads in
            progress.add(downloads)
        } progress: { failed in
            progress.advance(failed: failed)
        }
        return ThumbnailPart(items: items, batch: batch)
    }

    /// Every provider's thumbnails together: pictures drawn where a host is gone and its
    /// provider says what they show, then one note or warning for the whole listing.
    func finishThumbnails(_ parts: [ThumbnailPart], offline: Bool, progress: ProgressBar) -> Thumbnails {
        progress.finish()
        let items = parts.flatMap(\.items)
        guard !items.isEmpty else { return Thumbnails() }
        // One provider's batch as it is: merging it into an empty one would hash every URL again.
        var batch = parts.count == 1 ? parts[0].batch : ImageFetcher.Batch()
        if parts.count > 1 {
            for part in parts { batch.merge(part.batch) }
        }
        let drawn = synthesizeMissing(items, batch: &batch, offline: offline)
        // How many thumbnails there are, counted only when a message says it.
        var urls: Set<String> { Set(items.map(\.url)) }
        if batch.notCached > 0 {
            Diagnostics.remark("\(batch.notCached) of \(urls.count) thumbnails are not cached (--offline)")
        }
        if batch.withoutCache > 0 {
            Diagnostics.remark("\(batch.withoutCache) of \(urls.count) thumbnails were not fetched: without the cache there is nowhere to keep them")
        }
        if batch.failed > 0 {
            // The first reason of each host's, and how many failed otherwise: one reason is not
            // the story of a host that reset some transfers and stalled others.
            var parts = batch.failuresByHost.sorted { $0.key < $1.key }.map { host, failure in
                let others = failure.otherReasons > 0 ? "; \(failure.otherReasons) of them for other reasons" : ""
                return "\(failure.count) from \(host) (\(failure.error)\(others))"
            }
            if batch.refused > 0 { parts.append("\(batch.refused) refused (not an http or https URL)") }
            if let stored = batch.notStored { parts.append("\(stored.count) could not be stored in the cache (\(stored.error))") }
            Diagnostics.warning("\(batch.failed) of \(urls.count) thumbnails could not be fetched: \(parts.joined(separator: "; "))")
        }
        return Thumbnails(files: batch.files, synthesized: drawn)
    }

    /// Draws the thumbnails whose host failed (or, offline, were drawn before) when their
    /// provider says what they show (jsonplaceholder's coloured squares), and takes them out of
    /// the batch's failures. Says once what it did.
    private func synthesizeMissing(
        _ items: [(url: String, provider: String?)], batch: inout ImageFetcher.Batch, offline: Bool
    ) -> Set<String> {
        let folder = environment.cacheRoot.appendingPathComponent(CacheLayout.synthesizedFolder, isDirectory: true)
        var providers: [String: any PhotoProvider] = [:]
        var drawn: Set<String> = []
        var hosts: Set<String> = []
        // Offline every missing thumbnail may have been drawn before; online only those of hosts
        // that failed (the host is worked out only then: it parses the URL).
        guard offline ? batch.notCached > 0 : !batch.failuresByHost.isEmpty else { return [] }
        for (url, name) in items where batch.files[url] == nil && !drawn.contains(url) {
            guard let name else { continue }
            let failedHost = offline ? nil : ImageFetcher.host(url)
            if let failedHost, batch.failuresByHost[failedHost] == nil { continue }
            if providers[name] == nil { providers[name] = environment.registry.make(name, context: context.providers) }
            guard let picture = providers[name]?.syntheticImage(for: url) else { continue }
            let host = failedHost ?? ImageFetcher.host(url)
            let file = folder.appendingPathComponent(picture.fileName)
            do {
                if !FileManager.default.fileExists(atPath: file.path) {
                    guard !offline else { continue }
                    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
                    try SyntheticImageRenderer.png(picture).write(to: file, options: .atomic)
                }
            } catch let error as ImagingLibraryError {
                // Every other thumbnail would fail the same way.
                Diagnostics.warning("could not draw thumbnails: \(error)")
                break
            } catch {
                // A folder that cannot be written (a read-only cache): every other would fail
                // the same way, so it is said once, in the system's words.
                Diagnostics.warning("could not draw thumbnails into \(folder.path): \(PhotoCache.describe(error))")
                break
            }
            batch.files[url] = file.path
            drawn.insert(url)
            hosts.insert(host)
            if let failure = batch.failuresByHost[host] {
                batch.failuresByHost[host] = failure.count > 1 ? (failure.error, failure.count - 1, min(failure.otherReasons, failure.count - 2)) : nil
            } else if offline {
                batch.notCached -= 1
            }
        }
        if !drawn.isEmpty, !offline {
            let names = hosts.sorted().joined(separator: ", ")
            Diagnostics.remark(
                "\(names) did not serve them; drew \(drawn.count) thumbnails from what their URLs describe (thumbnail_synthesized in JSON)")
        }
        return drawn
    }
}

/// One provider's thumbnails, started page by page as the listing's pages are decoded (before
/// the index write), and collected once the walk is over. Each URL is fetched once, by the first
/// page that names it.
final class ThumbnailPrefetch: Sendable {
    let fetcher: ImageFetcher
    let progress: ProgressBar
    private let state = Mutex<(started: Set<String>, tasks: [Task<ImageFetcher.Batch, Never>])>(([], []))

    init(fetcher: ImageFetcher, progress: ProgressBar) {
        self.fetcher = fetcher
        self.progress = progress
    }

    /// The thumbnail URLs of `photos`, each with its provider.
    static func items(_ photos: [Photo]) -> [(url: String, provider: String?)] {
        photos.compactMap { photo in photo.thumbnailURL.map { (url: $0, provider: Optional(photo.provider)) } }
    }

    /// Starts fetching the thumbnails of `photos` not started yet.
    func start(_ photos: [Photo]) {
        start(items: Self.items(photos))
    }

    private func start(items: [(url: String, provider: String?)]) {
        let fetcher = fetcher, progress = progress
        state.withLock { state in
            let new = items.filter { state.started.insert($0.url).inserted }
            guard !new.isEmpty else { return }
            state.tasks.append(Task {
                await fetcher.fetchAll(new) { downloads in
                    progress.add(downloads)
                } progress: { failed in
                    progress.advance(failed: failed)
                }
            })
        }
    }

    /// What every start fetched, once done, after starting what `items` names and no page did.
    func collect(_ items: [(url: String, provider: String?)]) async -> ImageFetcher.Batch {
        start(items: items)
        let tasks = state.withLock { $0.tasks }
        return await withTaskCancellationHandler {
            var batch = ImageFetcher.Batch()
            for task in tasks { batch.merge(await task.value) }
            return batch
        } onCancel: {
            for task in tasks { task.cancel() }
        }
    }

    /// Stops what was started (the walk failed or was cancelled).
    func cancel() {
        for task in state.withLock({ $0.tasks }) { task.cancel() }
    }
}
