import Foundation
import GRDB
import PhotosCore

/// What one eviction pass did.
public struct EvictionReport: Sendable, Equatable {
    /// False when another process held the cache lock, so this pass did nothing.
    public var ran: Bool
    public var bytesBefore: Int64
    public var bytesAfter: Int64
    public var evictedImages: Int
    public var evictedBytes: Int64
    /// Orphaned temp files and untracked files removed by the sweep.
    public var removedOrphans: Int
    /// Of the images evicted, those the caller named as in use (the command's own).
    public var evictedInUse = 0

    static let skipped = EvictionReport(ran: false, bytesBefore: 0, bytesAfter: 0, evictedImages: 0, evictedBytes: 0, removedOrphans: 0)
}

extension PhotoCache {
    /// Temp files the transport writes beside a target: `.<name>.<random>.photos-partial`.
    static let tempSuffix = CacheLayout.partialSuffix
    /// How often the end-of-command sweep of the images folder may run (it lists folders).
    static let sweepInterval: TimeInterval = 3600
    /// Listings unused for this long are dropped by the sweep.
    static let listingRetention: TimeInterval = 30 * 86_400
    /// How long an image handed to a viewer (``CacheLayout/openedFolder``) is kept.
    static let openedRetention: TimeInterval = 86_400

    /// Evicts down to 90% of the size cap when the cache is over it, least recently used first,
    /// images of the most recent searches last; at most once an hour (or with `sweep`), also
    /// removes orphaned temp files and untracked files older than ``CacheConfiguration/orphanAge``
    /// and listings unused for 30 days. Runs under the cache lock.
    /// - Parameters:
    ///   - wait: wait for the lock (`cache prune`) instead of skipping when another process holds it.
    ///   - sweep: sweep now, whenever the last sweep was.
    /// - Returns: what was done; `ran` is false when the lock was held elsewhere.
    /// - Throws: ``CacheUnavailable`` or a database error.
    @discardableResult
    /// - Parameter inUse: the URLs of images the command used: how many of them were evicted is
    ///   counted (``EvictionReport/evictedInUse``).
    public func evict(wait: Bool, sweep: Bool = false, inUse: Set<String> = []) throws -> EvictionReport {
        // No cache folder: nothing to evict, and none is made (a mistyped PHOTOS_CACHE_DIR).
        guard configuration.fileSystem.exists(atPath: root.path) || !CacheIndex.isAbsent(root.path) else {
            return EvictionReport(ran: true, bytesBefore: 0, bytesAfter: 0, evictedImages: 0, evictedBytes: 0, removedOrphans: 0)
        }
        // Opened before the lock is taken: a broken index is rebuilt under that same lock, which
        // this process, holding it through another descriptor, would wait for forever.
        _ = try index.database()
        var report = try evictOnce(wait: wait, sweep: sweep, inUse: inUse)
        // A process that finished writing while this one held the lock skipped its own pass (it
        // does not wait): what it wrote is seen here, once the lock is let go, and evicted by
        // this process, or by the one holding the lock now, which looks again in the same way.
        // Eight processes sharing a 1 MiB cache ended a quarter over it without this.
        // Every pass that ran is followed by a look, even one that found nothing to evict: a
        // process may have skipped its own while this one held the lock (stopping after a pass
        // that evicted nothing left eight processes' cache over its cap now and then).
        // A pass that ran is what is reported: a look that fails (the index busy) ends the looking.
        for _ in 0..<8 where report.ran {
            guard let total = try? totalBytes(), total > configuration.maxSizeBytes else { break }
            let next = try evictOnce(wait: false, sweep: false, inUse: inUse)
            guard next.ran else { break }
            report.bytesAfter = next.bytesAfter
            report.evictedImages += next.evictedImages
            report.evictedBytes += next.evictedBytes
            report.evictedInUse += next.evictedInUse
            // Over the cap with nothing left to evict (the index's own pages): no pass would help.
            if next.evictedImages == 0, next.bytesBefore > configuration.maxSizeBytes { break }
        }
        return report
    }

    /// One pass of ``evict(wait:sweep:)`` under the cache lock.
    private func evictOnce(wait: Bool, sweep: Bool, inUse: Set<String>) throws -> EvictionReport {
        guard let lock = try FileLock.acquire(index.lockPath, wait: wait) else { return .skipped }
        defer { lock.unlock() }

        var report = EvictionReport(ran: true, bytesBefore: 0, bytesAfter: 0, evictedImages: 0, evictedBytes: 0, removedOrphans: 0)
        let time = now.timeIntervalSince1970
        let lastSweep = try index.read { try Double.fetchOne($0, sql: "SELECT CAST(value AS REAL) FROM meta WHERE key = 'last_sweep'") }
        if sweep || lastSweep.map({ time - $0 >= Self.sweepInterval || time < $0 }) ?? true {
            if !sweep, lastSweep == nil, index.isNewThisRun {
                // An index this run made in an empty cache: no file in the folder is old enough
                // to be an orphan and no listing is unused for long, so only the time is kept
                // (listing 500 files and reading every path back cost a first run 5 M
                // instructions and a system call per file).
                try index.write { db in try Self.recordSweep(at: time, in: db) }
            } else {
                report.removedOrphans = try sweepFolder(now: time)
            }
        }

        report.bytesBefore = try totalBytes()
        report.bytesAfter = report.bytesBefore
        guard report.bytesBefore > configuration.maxSizeBytes else { return report }
        let target = configuration.maxSizeBytes / 10 * 9
        var excess = report.bytesBefore - target

        // LRU by recorded access, images of the N most recent searches last.
        let candidates = try index.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    WITH recent(search_key) AS (
                        SELECT search_key FROM listing GROUP BY search_key ORDER BY MAX(last_access) DESC LIMIT ?
                    ),
                    protected(url) AS (
                        SELECT p.thumbnail_url FROM listing l
                            JOIN listing_photo lp ON lp.listing_id = l.id JOIN photo p ON p.id = lp.photo_id
                            WHERE l.search_key IN (SELECT search_key FROM recent) AND p.thumbnail_url IS NOT NULL
                        UNION
                        SELECT p.image_url FROM listing l
                            JOIN listing_photo lp ON lp.listing_id = l.id JOIN photo p ON p.id = lp.photo_id
                            WHERE l.search_key IN (SELECT search_key FROM recent) AND p.image_url IS NOT NULL
                    )
                    SELECT url, path, size, created_at FROM image
                    ORDER BY (url IN (SELECT url FROM protected)), last_access, url
                    """,
                arguments: [configuration.recentSearches])
        }
        var victims: [(url: String, path: String, size: Int64, created: Double)] = []
        for row in candidates {
            guard excess > 0 else { break }
            guard let url: String = row.value("url"), let path: String = row.value("path") else { continue }
            let size: Int64 = row.value("size") ?? 0
            victims.append((url, path, size, row.value("created_at") ?? 0))
            excess -= size
        }
        // Short transactions, so listing processes never wait long; a row re-created by another
        // process meanwhile (new created_at) is left alone.
        for chunk in victims.chunked(200) {
            // Only the files whose rows this process deleted: a row another process re-created
            // (a new download of the same URL) keeps its file.
            let deleted = try index.write { db in
                try chunk.filter { victim in
                    try db.execute(sql: "DELETE FROM image WHERE url = ? AND created_at = ?", arguments: [victim.url, victim.created])
                    return db.changesCount > 0
                }
            }
            for victim in deleted where Self.isSafeRelativePath(victim.path) {
                configuration.fileSystem.remove(atPath: root.appendingPathComponent(victim.path).path)
                report.evictedImages += 1
                report.evictedBytes += victim.size
                if inUse.contains(victim.url) { report.evictedInUse += 1 }
            }
        }
        memory.withLock { memory in
            for victim in victims { memory.removeValue(forKey: victim.url) }
        }
        report.bytesAfter = try totalBytes()
        return report
    }

    /// Image bytes recorded in the index plus the live pages of the index itself: what the cap
    /// bounds. The index's journal and free pages are left out: deleting rows would not shrink
    /// them, and a small cap would be evicted to nothing for them (the journal is bounded by
    /// the cap instead, ``CacheIndex/journalLimit(maxBytes:)``).
    func totalBytes() throws -> Int64 {
        try index.read { db in
            let images = try Int64.fetchOne(db, sql: "SELECT COALESCE(SUM(size), 0) FROM image") ?? 0
            let pages = try Int64.fetchOne(db, sql: "PRAGMA page_count") ?? 0
            let free = try Int64.fetchOne(db, sql: "PRAGMA freelist_count") ?? 0
            let pageSize = try Int64.fetchOne(db, sql: "PRAGMA page_size") ?? 4096
            return images + max(0, pages - free) * pageSize
        }
    }

    /// Lists the images folder (maintenance only): removes temp files and files the index does
    /// not know, older than the orphan age; deletes `trash-*` folders left by an index rebuild;
    /// drops listings unused for 30 days and photos no listing holds.
    private func sweepFolder(now time: TimeInterval) throws -> Int {
        let fs = configuration.fileSystem
        var removed = 0
        // Read before the folder is listed: a row is written after its file, so a row read here
        // whose file the listing lacks is one whose file is gone.
        // With each row's time, so that a row another process writes anew meanwhile is kept.
        let known = try index.read { db in
            var rows: [String: Double?] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT path, created_at FROM image") {
                guard let path: String = row["path"] else { continue }
                rows.updateValue(row["created_at"] as Double?, forKey: path)  // a NULL time is kept as one
            }
            return rows
        }
        let prefix = root.path + "/"
        let oldest = Date(timeIntervalSince1970: time - configuration.orphanAge)
        var info = stat()
        let imagesFolder = store.imagesFolder.path
        let folderState = lstat(imagesFolder, &info) != 0 ? S_IFMT : info.st_mode & S_IFMT  // S_IFMT: not there
        var present = Set<String>()
        // A link in place of the folder is not photos' own: nothing in it is swept, and its rows
        // are left as they are.
        if folderState == S_IFDIR || folderState == S_IFMT {
            for file in fs.files(under: imagesFolder) {
                let relative = file.path.hasPrefix(prefix) ? String(file.path.dropFirst(prefix.count)) : file.path
                if file.modified < oldest, file.path.hasSuffix(Self.tempSuffix) || known[relative] == nil {
                    fs.remove(atPath: file.path)
                    removed += 1
                } else {
                    present.insert(relative)
                }
            }
            // Rows whose files are gone (a clear stopped by SIGKILL between moving the folder
            // aside and deleting its rows, files deleted by hand): they would be counted in the
            // cache's size and looked up for nothing.
            let gone = known.filter { !present.contains($0.key) }
            if !gone.isEmpty {
                for chunk in Array(gone).chunked(200) {
                    try index.write { db in
                        for (path, created) in chunk {
                            try db.execute(sql: "DELETE FROM image WHERE path = ? AND created_at IS ?", arguments: [path, created])
                        }
                    }
                }
            }
        }
        // Images handed to a viewer a day ago or more: the viewer has opened them long since. A
        // link's own age is its change time (its modification time is the image's).
        let openedFolder = root.appendingPathComponent(CacheLayout.openedFolder).path
        for name in (try? FileManager.default.contentsOfDirectory(atPath: openedFolder)) ?? [] {
            let path = openedFolder + "/" + name
            var info = stat()
            guard lstat(path, &info) == 0, Double(max(info.st_ctim.tv_sec, info.st_mtim.tv_sec)) < time - Self.openedRetention else { continue }
            fs.remove(atPath: path)
            removed += 1
        }
        if let entries = try? FileManager.default.contentsOfDirectory(atPath: root.path) {
            for entry in entries where Self.isTrashFolderName(entry) {
                // What an interrupted clear or a rebuild left: counted as the orphans it is.
                let trash = root.appendingPathComponent(entry).path
                removed += fs.files(under: trash).count
                fs.remove(atPath: trash)
            }
        }
        try index.write { db in
            try db.execute(sql: "DELETE FROM listing WHERE last_access < ?", arguments: [time - Self.listingRetention])
            // A photo no listing holds goes with its listings, unless a detail kept it lately
            // (``PhotoCache/remember(_:)``): those stay as long as an unused listing would.
            try db.execute(
                sql: "DELETE FROM photo WHERE id NOT IN (SELECT photo_id FROM listing_photo) AND updated_at < ?",
                arguments: [time - Self.listingRetention])
            try Self.recordSweep(at: time, in: db)
        }
        return removed
    }

    private static func recordSweep(at time: TimeInterval, in db: Database) throws {
        try db.execute(
            sql: "INSERT INTO meta (key, value) VALUES ('last_sweep', ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            arguments: [String(time)])
    }

    /// Index paths are written by this code, but the disk is not trusted: only `images/...`
    /// paths without `..` are ever deleted.
    /// Whether `name` is one a clear or a rebuild gives the folder it moves aside:
    /// `trash-<UUID>`, or that with `-tiles` or `-opened` after it. A folder of the user's that
    /// only starts with `trash-` (`trash-can-photos`, in a cache folder set to one that held
    /// files already) is not photos' to delete.
    static func isTrashFolderName(_ name: String) -> Bool {
        guard name.hasPrefix("trash-") else { return false }
        var rest = name.dropFirst("trash-".count)
        for suffix in ["-" + CacheLayout.tilesFolder, "-" + CacheLayout.openedFolder, "-" + CacheLayout.synthesizedFolder] where rest.hasSuffix(suffix) {
            rest = rest.dropLast(suffix.count)
        }
        return rest.count == 36 && UUID(uuidString: String(rest)) != nil
    }

    static func isSafeRelativePath(_ path: String) -> Bool {
        // Bytes, not Characters, in one pass over them: this runs for every cached image a
        // listing shows (splitting the path into an array cost 5,000 instructions a path).
        var path = path
        return path.withUTF8 { bytes in
            let prefix: StaticString = "images/"
            guard bytes.count >= prefix.utf8CodeUnitCount,
                  memcmp(bytes.baseAddress!, prefix.utf8Start, prefix.utf8CodeUnitCount) == 0
            else { return false }
            let slash = UInt8(ascii: "/"), dot = UInt8(ascii: ".")
            var start = 0
            for index in 0...bytes.count where index == bytes.count || bytes[index] == slash {
                if index - start == 2, bytes[start] == dot, bytes[start + 1] == dot { return false }
                start = index + 1
            }
            return true
        }
    }

    // MARK: Clear

    /// Deletes the folder `path` file by file, stopping when the task is cancelled (Ctrl-C);
    /// what is left goes at a later sweep (it is a `trash-*` folder).
    private func removeUnlessCancelled(_ path: String) {
        for file in configuration.fileSystem.files(under: path) {
            if Task.isCancelled { return }
            configuration.fileSystem.remove(atPath: file.path)
        }
        configuration.fileSystem.remove(atPath: path)
    }

    /// Removes every listing, photo and image, or only those of `provider`. Waits for the lock.
    /// Cancelled (Ctrl-C) before anything is removed, it throws; after the images are set aside,
    /// it still empties the index, and leaves the deleting of the old files to a later sweep.
    /// - Returns: how many images and bytes were removed.
    /// - Throws: ``CacheUnavailable``, a database error, or `CancellationError`.
    @discardableResult
    public func clear(provider: String? = nil) throws -> (images: Int, bytes: Int64) {
        // Ctrl-C before anything is removed: nothing is.
        try Task.checkCancellation()
        // No cache folder: nothing to clear, and none is made (a mistyped PHOTOS_CACHE_DIR).
        guard configuration.fileSystem.exists(atPath: root.path) || !CacheIndex.isAbsent(root.path) else { return (0, 0) }
        // An index a newer photos made is of no use to this one: a clear starts an empty one,
        // and the whole cache goes with it, whatever `provider` is (the images it knew would be
        // known to none).
        var provider = provider
        if let newer = try index.replaceIfNewer() {
            configuration.warn(
                "the cache index was made by a newer photos (schema \(newer)); an empty one for this photos replaced it, and the whole cache is cleared")
            provider = nil
        }
        // Opened (and rebuilt when broken) before the lock is taken, as in `evict`.
        _ = try index.database()
        let lock = try FileLock.acquire(index.lockPath, wait: true)
        defer { lock?.unlock() }
        memory.withLock { $0.removeAll() }
        // The files go before the rows: deleting rows writes to the index's journal, which a
        // full disk refuses until the images have made room. A row left without its file (the
        // write failing after all) is fetched again when next asked for.
        if let provider {
            let files = try index.read { db -> [(String, Int64)] in
                let rows = try Row.fetchAll(db, sql: "SELECT path, size FROM image WHERE provider = ?", arguments: [provider])
                return rows.compactMap { row in (row.value("path") as String?).map { ($0, row.value("size") ?? 0) } }
            }
            try deleteImages(files.map(\.0).filter(Self.isSafeRelativePath))
            try index.write { db in
                try db.execute(sql: "DELETE FROM image WHERE provider = ?", arguments: [provider])
                try db.execute(sql: "DELETE FROM listing WHERE provider = ?", arguments: [provider])
                try db.execute(sql: "DELETE FROM photo WHERE provider = ?", arguments: [provider])
            }
            return (files.count, files.reduce(0) { $0 + $1.1 })
        }
        let (count, bytes) = try index.read { db -> (Int, Int64) in
            let count = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM image") ?? 0
            let bytes = try Int64.fetchOne(db, sql: "SELECT COALESCE(SUM(size), 0) FROM image") ?? 0
            return (count, bytes)
        }
        // Move the folder aside first so other processes start a fresh one at once. From here
        // the clear is done whatever happens: Ctrl-C only stops the deleting of the old files,
        // and the next sweep (`cache prune`, or any command within the hour) deletes the
        // `trash-*` folder left.
        let trash = root.appendingPathComponent("trash-\(UUID().uuidString)").path
        let imagesFolder = store.imagesFolder.path
        let prefix = imagesFolder + "/"
        let rootPrefix = root.path + "/"
        /// Photos' own images in the folder, as paths relative to the cache root (as rows name them).
        func ownImages() -> [String] {
            configuration.fileSystem.files(under: imagesFolder).compactMap { file in
                guard file.path.hasPrefix(prefix), CacheIndex.isOwnImage(file.path.dropFirst(prefix.count)) else { return nil }
                return String(file.path.dropFirst(rootPrefix.count))
            }
        }
        if CacheIndex.foreignFile(inImages: imagesFolder, fs: configuration.fileSystem) != nil {
            // Something photos did not put there (a file the user copied in): only photos' own
            // images go, one by one, and the rest stays where it is.
            try deleteImages(ownImages())
        } else if (try? configuration.fileSystem.move(atPath: imagesFolder, toPath: trash)) != nil {
            removeUnlessCancelled(trash)
            // Files of another user's (a `sudo photos` run) in a folder this one may rename:
            // set aside, out of the cache, but still on the disk.
            let left = Task.isCancelled ? 0 : configuration.fileSystem.files(under: trash).count
            if left > 0 {
                configuration.warn(
                    "\(left) \(left == 1 ? "file" : "files") of the cache could not be deleted (Permission denied); they are in \(trash): delete them as the user who owns them")
            }
        } else if configuration.fileSystem.exists(atPath: imagesFolder) {
            // The cache folder takes no new name (its mode, or a folder of another user's): the
            // images are deleted where they are.
            try deleteImages(ownImages())
        }
        // Rendered terminal tiles (list --format grid, show --preview) go too, and the images
        // handed to a viewer (links keep a cleared image's bytes on disk).
        for folder in [CacheLayout.tilesFolder, CacheLayout.openedFolder, CacheLayout.synthesizedFolder] {
            let path = root.appendingPathComponent(folder).path
            if (try? configuration.fileSystem.move(atPath: path, toPath: trash + "-" + folder)) != nil {
                configuration.fileSystem.remove(atPath: trash + "-" + folder)
            } else {
                for file in configuration.fileSystem.files(under: path) { configuration.fileSystem.remove(atPath: file.path) }
            }
        }
        do {
            try index.write { db in
                try db.execute(sql: "DELETE FROM listing_photo; DELETE FROM listing; DELETE FROM photo; DELETE FROM image; DELETE FROM run")
            }
            // Giving the space back can take a while on a large index: not after Ctrl-C.
            if !Task.isCancelled { try? index.vacuum() }
        } catch where Self.isDiskFull(error) {
            // The disk is full of something else, or of the index itself: an empty index in
            // its place is what was asked for, and frees its room.
            try index.reset()
        }
        // A broken index moved aside at a rebuild (kept to look into) is cache data too.
        configuration.fileSystem.remove(atPath: index.path + ".corrupt")
        runLog.clear()
        return (count, bytes)
    }
}

extension PhotoCache {
    /// Deletes the images at `paths` (relative to the cache root) where they are, stopping at
    /// Ctrl-C. When some are left (files of another user's, a folder photos may not write in, or
    /// Ctrl-C), the index forgets only those deleted and the clear stops there: an image the
    /// index forgot but the disk kept would hold its room for good, and the clear be said done.
    /// - Throws: ``CacheClearRefused`` naming what is left, or `CancellationError`.
    fileprivate func deleteImages(_ paths: [String]) throws {
        var deleted: [String] = []
        var left = 0
        for path in paths {
            if Task.isCancelled {
                left += 1
                continue
            }
            let file = root.appendingPathComponent(path).path
            configuration.fileSystem.remove(atPath: file)
            if configuration.fileSystem.exists(atPath: file) { left += 1 } else { deleted.append(path) }
        }
        guard left > 0 else { return }
        for chunk in deleted.chunked(500) {
            try index.write { db in
                try db.execute(sql: "DELETE FROM image WHERE path IN (\(Self.questionMarks(chunk.count)))", arguments: StatementArguments(chunk))
            }
        }
        try Task.checkCancellation()
        throw CacheClearRefused(folder: store.imagesFolder.path, left: left, deleted: deleted.count)
    }
}

/// `cache clear` could not delete every cached image (files of another user's, a folder photos
/// may not write in): the index forgot only those deleted, and nothing else was cleared.
public struct CacheClearRefused: Error, CustomStringConvertible {
    /// The images folder whose files are still there.
    public var folder: String
    /// Images still there, and images deleted.
    public var left: Int
    public var deleted: Int
    public var description: String {
        "\(left) \(left == 1 ? "image" : "images") in \(folder) cannot be deleted (Permission denied)"
            + (deleted > 0 ? "; the \(deleted) that could be are gone" : "")
            + ", and nothing else was cleared; delete the rest as the user who owns them (ls -l says who), then clear again"
    }
}
