import Foundation
import GRDB
import PhotosCore
import Synchronization

/// The disk cache of photos: an SQLite index (WAL) of listings, photos and content-addressed
/// image files under one root folder, shared safely by many processes.
///
/// Open one per command, use it, then call ``finish(command:)`` (records hit counts, evicts if
/// the command wrote) and ``close()``. The index is opened on first use only.
public final class PhotoCache: Sendable {
    public let configuration: CacheConfiguration
    /// The root folder (for `.temporary`, a fresh folder).
    public let root: URL
    /// `root`'s path, to which relative paths are joined as strings (a URL stats and parses).
    let rootPath: String
    /// Where image files live.
    public let store: ImageStore
    let index: CacheIndex

    /// Verified image files of this process, by URL (the memory tier): absolute paths, not
    /// `URL`s, which cost more to make and to read the path back from than the look-up itself.
    let memory = Mutex<[String: String]>([:])
    /// Image downloads in flight in this process, by URL.
    let inFlight = Mutex<[String: SharedDownload]>([:])
    /// What this run did, flushed by `finish`.
    let run = Mutex(RunState())

    struct RunState {
        var listingHits = 0
        var listingMisses = 0
        var imageHits = 0
        var imageMisses = 0
        /// Whether the command added bytes (listings or files): eviction runs only then.
        var wrote = false
        /// Listings read, by row id, with the access the index recorded for them, perhaps more
        /// than once (an array: a set of Int64 would cost a cached listing a scan of every
        /// protocol conformance in the binary, to hash them).
        var listingAccesses: [(id: Int64, recorded: Double)] = []
        /// Images read from the index, with the access it recorded for them.
        var imageAccesses: [String: Double] = [:]

        /// Notes a read of listing `id`, whose recorded access is `recorded`. Reads of the same
        /// listings are folded together now and then: a browse session reads pages for hours.
        mutating func noteListing(_ id: Int64, recorded: Double) {
            listingAccesses.append((id, recorded))
            if listingAccesses.count >= 1024 {
                listingAccesses.sort { $0.id < $1.id }
                var kept: [(id: Int64, recorded: Double)] = []
                for access in listingAccesses where kept.last?.id != access.id { kept.append(access) }
                listingAccesses = kept
            }
        }
        var newImages: [String: ImageRecord] = [:]
        /// When the oldest of ``newImages`` arrived (seconds since 1970).
        var firstNewImage: Double?
        /// Rows whose file was missing or of another size, with the size the row said.
        var brokenImages: [String: Int64] = [:]
        /// Whether a failure to read or write the index has been reported this run.
        var failureReported = false
    }

    /// ": there is no cache at PATH yet" once a run that makes no cache folder found none, for
    /// what it says is not cached (a mistyped PHOTOS_CACHE_DIR is the likely cause); else "".
    public var noCacheNote: String {
        guard index.isMissingFolder else { return "" }
        return ": there is no cache at \(root.path) yet (PHOTOS_CACHE_DIR or config [cache] dir says where)"
    }

    /// Says once per run that the cache failed at `what` (the command goes on without it). An
    /// index that could not be opened at all has been reported already.
    func reportFailure(_ what: String, _ error: any Error) {
        // A read-only cache was said to keep nothing new when it was opened.
        guard !(error is CacheUnavailable), !(index.isReadOnly && Self.isReadOnly(error)) else { return }
        let first = run.withLock { state in
            defer { state.failureReported = true }
            return !state.failureReported
        }
        if first { configuration.warn("the cache could not \(what) (\(CacheIndex.describe(error))); continuing without it") }
    }

    struct ImageRecord: Sendable {
        var url: String
        var path: String
        var size: Int64
        var provider: String?
    }

    /// - Parameter configuration: location, limits, clock and file system.
    public init(configuration: CacheConfiguration) {
        self.configuration = configuration
        switch configuration.location {
        case .path(let url):
            root = url
        case .temporary:
            root = FileManager.default.temporaryDirectory.appendingPathComponent("photos-cache-\(UUID().uuidString)", isDirectory: true)
        }
        rootPath = ImageStore.folderPath(root)
        store = ImageStore(root: root, rootPath: rootPath)
        index = CacheIndex(root: root, rootPath: rootPath, configuration: configuration)
    }

    /// The current time from the injected clock.
    var now: Date { configuration.now() }

    /// Where the index lives.
    public var indexPath: String { index.path }

    /// Closes the index; a `.temporary` cache removes its folder.
    public func close() {
        index.close()
        if configuration.location == .temporary {
            configuration.fileSystem.remove(atPath: root.path)
        }
    }

    /// How old a recorded access must be to be recorded again: eviction keeps the most recently
    /// used to the minute, and a command that reads what was read a moment ago writes nothing.
    static let accessGranularity: TimeInterval = 60

    /// Where the runs are counted for `cache stats`.
    var runLog: RunLog { RunLog(path: rootPath + "/" + RunLog.fileName, lockPath: index.lockPath) }

    /// Ends a command: counts the run in ``runLog``, records what it wrote and the accesses
    /// eviction needs in one short transaction (none when there are none: a listing read from
    /// the cache again writes nothing to the index) and, when it added bytes, evicts down to the
    /// size cap (skipped if another process is evicting).
    /// - Parameters:
    ///   - command: the command's name, for `cache stats`.
    ///   - evicting: false for a command that was stopped: what it downloaded is recorded (so it
    ///     stays usable offline) without the wait eviction may take.
    /// - Returns: what eviction did, if it ran.
    @discardableResult
    public func finish(command: String, evicting: Bool = true) -> EvictionReport? {
        let state = run.withLock { state -> RunState in
            let copy = state
            state = RunState()
            return copy
        }
        let touched = state.listingHits + state.listingMisses + state.imageHits + state.imageMisses > 0
        let time = now.timeIntervalSince1970
        // Counted only where the cache was used: a folder photos declined (not its own) gets no
        // file of photos'.
        if touched, index.isOpen {
            runLog.append(
                RunLog.Run(
                    at: time, command: command, listingHits: state.listingHits, listingMisses: state.listingMisses,
                    imageHits: state.imageHits, imageMisses: state.imageMisses))
        }
        // Accesses are written when the recorded one is older than the granularity, judged now:
        // a long session writes what it read at its start.
        let isStale = { (recorded: Double) -> Bool in
            let age = time - recorded
            return !(age >= 0 && age < Self.accessGranularity)
        }
        var listings = state.listingAccesses.filter { isStale($0.recorded) }.map(\.id).sorted()
        listings.removeConsecutiveDuplicates()
        let images = state.imageAccesses.filter { state.newImages[$0.key] == nil && isStale($0.value) }.map(\.key)
        let writes = !state.newImages.isEmpty || !state.brokenImages.isEmpty || !images.isEmpty || !listings.isEmpty
        guard index.isOpen else { return nil }
        if writes { recordAccesses(state, listings: listings, images: images, at: time) }
        guard evicting, state.wrote || !state.newImages.isEmpty else { return nil }
        do {
            // The images this command used, evicted by its own pass: their files are gone, and
            // a path the command gave for one (thumbnail_path) with them.
            let used = Set(state.newImages.keys).union(state.imageAccesses.keys)
            let report = try evict(wait: false, inUse: used)
            if report.evictedInUse > 0 {
                let images = report.evictedInUse == 1 ? "1 image" : "\(report.evictedInUse) images"
                let limit = configuration.maxSizeBytes
                let cap = limit >= 1 << 20 && limit % (1 << 20) == 0 ? "\(limit >> 20) MiB" : "\(limit) bytes"
                let (were, their) = report.evictedInUse == 1 ? ("was", "its file is") : ("were", "their files are")
                configuration.warn(
                    "the cache's size cap (\(cap)) is smaller than what this run used: \(images) it used \(were) removed again as it "
                        + "ended, and \(their) gone; raise PHOTOS_CACHE_MAX_SIZE_MB (config [cache] max_size_mb) to keep them")
            }
            return report
        } catch {
            reportFailure("make room", error)
            return nil
        }
    }

    /// Writes what `state` holds for the index: new images, broken ones, and the accesses of
    /// `listings` and `images`.
    private func recordAccesses(_ state: RunState, listings: [Int64], images: [String], at time: Double) {
        do {
            try index.write { db in
                // Guarded by the size seen: a row another process has rewritten since stays.
                for (url, size) in state.brokenImages {
                    try db.execute(sql: "DELETE FROM image WHERE url = ? AND size = ?", arguments: [url, size])
                }
                try insertImages(state.newImages.values, at: time, in: db)
                for chunk in images.chunked(500) {
                    try db.execute(
                        sql: "UPDATE image SET last_access = ? WHERE url IN (\(Self.questionMarks(chunk.count)))",
                        arguments: StatementArguments([time as (any DatabaseValueConvertible)?] + chunk.map { $0 }))
                }
                for chunk in listings.chunked(500) {
                    try db.execute(
                        sql: "UPDATE listing SET last_access = ? WHERE id IN (\(Self.questionMarks(chunk.count)))",
                        arguments: StatementArguments([time as (any DatabaseValueConvertible)?] + chunk.map { $0 }))
                }
            }
        } catch {
            // Access times are hints; losing them must not fail the command. The images this run
            // downloaded are another matter: files the index does not know are never found again
            // (and, on a full disk, hold the room the index needed), so they go.
            var removed = 0
            for record in state.newImages.values where Self.isSafeRelativePath(record.path) {
                configuration.fileSystem.remove(atPath: root.appendingPathComponent(record.path).path)
                removed += 1
            }
            // Their paths may have been printed already (thumbnail_path): say they are gone.
            if removed > 0, !(error is CacheUnavailable) {
                let images = removed == 1 ? "the image" : "the \(removed) images"
                configuration.warn(
                    "the cache could not record \(images) this run fetched (\(CacheIndex.describe(error))), so they were removed: "
                        + "a path printed for one of them no longer exists")
            }
        }
    }
}

extension PhotoCache {
    /// Writes the rows of images downloaded by this process, in the caller's transaction.
    func insertImages(_ records: some Collection<ImageRecord>, at time: Double, in db: Database) throws {
        guard !records.isEmpty else { return }
        // One prepared statement for every new image (a save or a list of hundreds).
        let insert = BoundStatement(
            try db.cachedStatement(
                sql: """
                    INSERT INTO image (url, path, size, provider, created_at, last_access) VALUES (?, ?, ?, ?, ?, ?)
                    ON CONFLICT(url) DO UPDATE SET path = excluded.path, size = excluded.size,
                        provider = COALESCE(excluded.provider, image.provider),
                        created_at = excluded.created_at, last_access = excluded.last_access
                    """), in: db)
        // A file gone since it arrived (another process's `cache clear` moved the images away)
        // gets no row: the index only names files that are there. Joined as a string: appending
        // to a URL would stat the file a second time.
        for record in records where configuration.fileSystem.fileSize(atPath: rootPath + "/" + record.path) == record.size {
            insert.bind(1, record.url)
            insert.bind(2, record.path)
            insert.bind(3, record.size)
            insert.bind(4, record.provider)
            insert.bind(5, time)
            insert.bind(6, time)
            try insert.run()
        }
    }

    /// Notes a download recorded in ``RunState/newImages``: when the oldest of them has waited
    /// ``CacheConfiguration/recordInterval`` they are written to the index, by a task of their
    /// own (this runs on the transport's thread, which a write waiting for another process's
    /// lock would hold up), and in any case that long after the first of them arrives (a
    /// session left idle downloads nothing that would write them). A command that runs for
    /// hours (`browse`) so keeps its images from another command's sweep, which removes the
    /// files the index does not know once they are an hour old.
    func noteNewImage(first: Bool) {
        let interval = configuration.recordInterval
        if first {
            Task.detached(priority: .background) { [self] in
                try? await Task.sleep(for: .seconds(interval))
                recordNewImages(force: true)
            }
        }
        let time = now.timeIntervalSince1970
        let due = run.withLock { run in run.firstNewImage.map { time - $0 >= interval } ?? false }
        if due { Task.detached { [self] in recordNewImages(force: false) } }
    }

    /// Writes the images downloaded so far to the index: when the oldest of them has waited
    /// ``CacheConfiguration/recordInterval`` by the cache's clock, or at once (`force`). On
    /// failure they stay to be written when the command ends.
    func recordNewImages(force: Bool) {
        let time = now.timeIntervalSince1970
        let due = run.withLock { run -> [String: ImageRecord] in
            guard let first = run.firstNewImage, force || time - first >= configuration.recordInterval else { return [:] }
            let records = run.newImages
            run.newImages = [:]
            run.firstNewImage = nil
            // Still this run's: added, so eviction runs at its end, and used (recorded now).
            run.wrote = true
            for url in records.keys { run.imageAccesses[url] = time }
            return records
        }
        guard !due.isEmpty else { return }
        do {
            try index.write { db in try insertImages(due.values, at: time, in: db) }
        } catch {
            run.withLock { run in
                for (url, record) in due where run.newImages[url] == nil { run.newImages[url] = record }
                run.firstNewImage = run.firstNewImage ?? time
            }
        }
    }

    /// `?,?,?`: `count` SQL parameters.
    static func questionMarks(_ count: Int) -> String {
        String(repeating: "?,", count: count).dropLast().description
    }
}

extension Array where Element: Equatable {
    /// Keeps the first of each run of equal elements (of a sorted array: each value once).
    mutating func removeConsecutiveDuplicates() {
        guard count > 1 else { return }
        var kept = 1
        for index in 1..<count where self[index] != self[kept - 1] {
            self[kept] = self[index]
            kept += 1
        }
        removeLast(count - kept)
    }
}

extension Array {
    func chunked(_ size: Int) -> [ArraySlice<Element>] {
        stride(from: 0, to: count, by: size).map { self[$0..<Swift.min($0 + size, count)] }
    }
}
