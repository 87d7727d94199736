import Foundation
import GRDB
import GRDBSQLite
import PhotosCore
import SQLiteShim
import Synchronization

/// The SQLite index of the cache (GRDB, WAL): opened lazily on first use, migrated from the first
/// schema version on, and rebuilt with one warning when it is corrupt, unreadable or was deleted
/// while images remained.
///
/// Rebuild policy: the broken database is moved aside as `index.sqlite.corrupt` (replacing an older
/// one) and the images folder is moved to `trash-*` and deleted at the end of the command, since
/// files the new index does not know could never be evicted.
final class CacheIndex: Sendable {
    let root: URL
    let configuration: CacheConfiguration
    private let state = Mutex<State>(.closed)
    /// Whether this process made the index in an empty file, not in place of a broken one.
    private let madeNew = Mutex(false)

    private enum State {
        case closed
        case open(DatabaseQueue)
        /// The index cannot be used this run: why, as a warning says it (reported once, unless
        /// the command is about the cache itself), and as such a command's error says it.
        case disabled(String, problem: String)
    }

    static let fileName = "index.sqlite"
    static let markerName = "index.needs-rebuild"

    /// - Parameter rootPath: `root`'s path without a trailing `/`.
    init(root: URL, rootPath: String, configuration: CacheConfiguration) {
        self.root = root
        self.configuration = configuration
        path = rootPath + "/" + Self.fileName
        lockPath = rootPath + "/cache.lock"
    }

    let path: String
    let lockPath: String
    private var fs: any CacheFileSystem { configuration.fileSystem }

    /// Whether the database was opened during this process (nothing to flush otherwise).
    var isOpen: Bool {
        state.withLock { if case .open = $0 { return true } else { return false } }
    }

    /// Whether the index was opened read-only, on a read-only file system.
    var isReadOnly: Bool { readOnly.withLock { $0 } }
    private let readOnly = Mutex(false)

    /// Whether the index was made new by this process in an empty cache, not rebuilt: it
    /// holds nothing a maintenance sweep would remove.
    var isNewThisRun: Bool { madeNew.withLock { $0 } }

    /// Whether the index is unusable this run because there is no cache folder (see
    /// ``NoCacheFolder``).
    var isMissingFolder: Bool { missingFolder.withLock { $0 } }
    private let missingFolder = Mutex(false)

    /// Why the index is unusable this run, if it is.
    var disabledReason: String? {
        state.withLock { if case .disabled(let reason, _) = $0 { return reason } else { return nil } }
    }

    /// The open database, opening (and if need be rebuilding) it on first use.
    /// - Throws: ``CacheUnavailable`` when the index cannot be used this run.
    func database() throws -> DatabaseQueue {
        try state.withLock { state in
            switch state {
            case .open(let queue):
                return queue
            case .disabled(let reason, let problem):
                throw CacheUnavailable(reason: reason, problem: problem)
            case .closed:
                do {
                    let queue = try openOrRebuild()
                    state = .open(queue)
                    return queue
                } catch let error as NoCacheFolder {
                    state = .disabled(error.reason, problem: error.reason)
                    missingFolder.withLock { $0 = true }
                    throw CacheUnavailable(reason: error.reason)
                } catch {
                    var isFolder: ObjCBool = false
                    // What is wrong, and what to do, said around "continuing without the cache"
                    // in the warning; a command about the cache itself says them as its error.
                    let (problem, advice): (String, String) =
                        if let foreign = error as? ForeignCacheFolder {
                            (foreign.problem, "; photos leaves it alone: set PHOTOS_CACHE_DIR to a folder of its own")
                        } else if let newer = error as? NewerCacheIndex {
                            ("the cache index at \(path) cannot be used: \(newer)",
                             " (use that photos, or photos cache clear to start an empty cache for this one)")
                        } else if FileManager.default.fileExists(atPath: root.path, isDirectory: &isFolder) && !isFolder.boolValue {
                            ("the cache folder \(root.path) is a file, not a folder (PHOTOS_CACHE_DIR or config [cache] dir names a folder)", "")
                        } else {
                            ("the cache index at \(path) cannot be used (\(Self.accessProblem(root: root.path, index: path) ?? Self.describe(error)))", "")
                        }
                    let reason = (error as? ForeignCacheFolder)?.reason ?? problem + "; continuing without the cache" + advice
                    if configuration.warnsWhenUnusable { configuration.warn(reason) }
                    state = .disabled(reason, problem: problem + advice)
                    throw CacheUnavailable(reason: reason, problem: problem + advice)
                }
            }
        }
    }

    /// Reads in a transaction.
    func read<T>(_ body: (Database) throws -> T) throws -> T {
        let queue = try database()
        do {
            return try queue.read(body)
        } catch {
            throw noteFailure(error)
        }
    }

    /// Writes in one short IMMEDIATE transaction (waits up to the busy timeout for other processes).
    func write<T>(_ body: (Database) throws -> T) throws -> T {
        let queue = try database()
        do {
            return try queue.write(body)
        } catch {
            throw noteFailure(error)
        }
    }

    /// Gives the space of deleted rows back to the file system: the index is rebuilt, then
    /// written back from the WAL, which is emptied, so that nothing deleted stays in either
    /// file (a search is the user's own) and both shrink now rather than at some later run's
    /// checkpoint.
    func vacuum() throws {
        let queue = try database()
        try queue.vacuum()
        try queue.writeWithoutTransaction { try $0.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
    }

    /// The database last closed, kept until the index itself goes: whoever holds the cache
    /// until exit (ExitTeardown in the CLI) spares the process its deinitialisation.
    private let closedQueue = Mutex<DatabaseQueue?>(nil)

    /// Closes the database (a later use opens it again).
    func close() {
        let closed = state.withLock { state -> DatabaseQueue? in
            defer { state = .closed }
            guard case .open(let queue) = state else { return nil }
            try? queue.close()
            return queue
        }
        if let closed { closedQueue.withLock { $0 = closed } }
        removeCopy()
    }

    /// Replaces the index with an empty one: for `cache clear` on a disk so full that deleting
    /// rows cannot be written (SQLite journals a delete). The caller holds the cache lock (taking
    /// it here would wait for the caller). A process that has the old index open keeps writing
    /// to its unlinked file; nothing of it reaches the new one.
    func reset() throws {
        close()
        closedQueue.withLock { $0 = nil }
        for suffix in ["", "-wal", "-shm"] { fs.remove(atPath: path + suffix) }
        let queue = try openAndMigrateRetryingBusy()
        state.withLock { $0 = .open(queue) }
    }

    /// Replaces an index a newer photos made with an empty one, under the cache lock: what
    /// `cache clear` does for a cache this photos cannot otherwise use.
    /// - Returns: the newer schema version replaced, or nil when the index is not newer.
    func replaceIfNewer() throws -> Int? {
        func version() -> Int {
            // A FIFO there would block the read-only open forever: only a file is read.
            guard fs.exists(atPath: path), Self.nonRegularKind(path) == nil else { return 0 }
            var grdb = Configuration()
            grdb.readonly = true
            grdb.busyMode = .timeout(configuration.busyTimeout)
            guard let queue = try? DatabaseQueue(path: path, configuration: grdb) else { return 0 }
            defer { try? queue.close() }
            return (try? queue.read { try Int.fetchOne($0, sql: "PRAGMA user_version") } ?? 0) ?? 0
        }
        guard version() > CacheSchema.migrations.count else { return nil }
        let lock = try FileLock.acquire(lockPath, wait: true)
        defer { lock?.unlock() }
        // Asked again under the lock: another clear may have replaced it meanwhile.
        let newer = version()
        guard newer > CacheSchema.migrations.count else { return nil }
        try reset()
        return newer
    }

    /// A corruption found after opening: leave a marker so the next command rebuilds the index.
    private func noteFailure(_ error: any Error) -> any Error {
        if let error = error as? DatabaseError, Self.isCorruption(error) {
            _ = FileManager.default.createFile(atPath: root.appendingPathComponent(Self.markerName).path, contents: nil)
            let reason = "the cache index is corrupt (\(error.message ?? "\(error.resultCode)")); it will be rebuilt on the next run"
            if configuration.warnsWhenUnusable { configuration.warn(reason) }
            state.withLock { state in
                if case .open(let queue) = state { try? queue.close() }
                state = .disabled(reason, problem: reason)
            }
            return CacheUnavailable(reason: reason)
        }
        return error
    }

    // MARK: Opening

    private func openOrRebuild() throws -> DatabaseQueue {
        // A cache on a read-only file system (a snapshot, a read-only mount) is read as it is:
        // WAL needs files SQLite cannot make there.
        if access(root.path, W_OK) != 0, errno == EROFS, fs.exists(atPath: path) {
            return try openReadOnly()
        }
        if !configuration.createsFolder, Self.isAbsent(root.path) {
            throw NoCacheFolder(reason: "there is no cache at \(root.path) yet")
        }
        try fs.createDirectory(atPath: root.path)
        let marker = root.appendingPathComponent(Self.markerName).path
        if fs.exists(atPath: marker) {
            return try rebuild(because: "it was found corrupt by an earlier run") { _ in true }
        }
        if !fs.exists(atPath: path) {
            // A folder of photos' names that is not photos' (the cache pointed at a folder of the
            // user's own) is never moved aside, swept or cleared: the cache is not used instead.
            for (name, isOwn) in Self.ownFolders {
                let folder = root.appendingPathComponent(name).path
                // Not a folder at all (a file, a FIFO, a link): not photos' either.
                var info = stat()
                if lstat(folder, &info) == 0, (info.st_mode & S_IFMT) != S_IFDIR {
                    throw ForeignCacheFolder(
                        problem: "the cache folder \(root.path) has \(name) that is not a folder (photos keeps a folder of that name there)")
                }
                guard fs.exists(atPath: folder), let foreign = Self.foreignFile(in: folder, fs: fs, isOwn: isOwn) else { continue }
                let article = name.first.map { "aeiou".contains($0) } == true ? "an" : "a"
                throw ForeignCacheFolder(problem: "the cache folder \(root.path) has \(article) \(name) folder photos did not make (it holds \(foreign))")
            }
        }
        if !fs.exists(atPath: path), fs.exists(atPath: root.appendingPathComponent("images").path) {
            // Images without an index: the index was deleted. Re-check under the lock, since a
            // process starting at the same moment as another may see the folder first.
            return try rebuild(because: "it was missing while images remained") { [fs, path] _ in !fs.exists(atPath: path) }
        }
        do {
            return try openAndMigrateRetryingBusy()
        } catch let error as DatabaseError where Self.isCorruption(error) {
            // Only a file that is not a database, or a damaged one, is rebuilt. An index that
            // cannot be opened now (permissions, a full disk, too many open files, a folder in
            // its place) is left alone: `database()` continues without the cache this run, and
            // other processes keep theirs.
            let detail = error.message ?? "\(error.resultCode)"
            return try rebuild(because: "it could not be read (\(detail))") { [self] _ in
                do {
                    let queue = try openAndMigrate()
                    try queue.close()
                    return false
                } catch {
                    return true
                }
            }
        }
    }

    /// Under the cache lock: if `stillNeeded` says so, moves the index and the images aside, then
    /// opens a fresh index. Warns once.
    private func rebuild(because reason: String, stillNeeded: (String) -> Bool) throws -> DatabaseQueue {
        // Without a lock file (a folder in its place), rebuilt all the same: the index is
        // unusable otherwise, and a rebuild only moves things aside.
        let lock = (try? FileLock.acquire(lockPath, wait: true)) ?? nil
        defer { lock?.unlock() }
        let marker = root.appendingPathComponent(Self.markerName).path
        if stillNeeded(path) || fs.exists(atPath: marker) {
            if fs.exists(atPath: path) {
                try? fs.move(atPath: path, toPath: path + ".corrupt")
            }
            fs.remove(atPath: path + "-wal")
            fs.remove(atPath: path + "-shm")
            let images = root.appendingPathComponent("images").path
            if fs.exists(atPath: images) {
                try? fs.move(atPath: images, toPath: root.appendingPathComponent("trash-\(UUID().uuidString)").path)
            }
            fs.remove(atPath: marker)
            configuration.warn("the cache index was rebuilt because \(reason); cached listings and images were dropped")
        }
        let queue = try openAndMigrateRetryingBusy()
        // The images moved to the trash go at this command's sweep.
        madeNew.withLock { $0 = false }
        return queue
    }

    /// Opening can meet SQLITE_BUSY that SQLite's busy handler does not wait out (WAL recovery,
    /// another process switching a new file to WAL): retry for up to the busy timeout.
    private func openAndMigrateRetryingBusy() throws -> DatabaseQueue {
        let deadline = Date().addingTimeInterval(configuration.busyTimeout)
        var pause: UInt32 = 2_000
        while true {
            do {
                return try openAndMigrate()
            } catch let error as DatabaseError
                where (error.resultCode == .SQLITE_BUSY || error.resultCode == .SQLITE_LOCKED) && Date() < deadline {
                usleep(pause + UInt32.random(in: 0...pause))
                pause = min(pause * 2, 100_000)
            }
        }
    }

    private func openAndMigrate() throws -> DatabaseQueue {
        var grdb = Configuration()
        grdb.busyMode = .timeout(configuration.busyTimeout)
        let mapsIndex = configuration.mapsIndex
        let onlyReads = configuration.onlyReads
        let maxBytes = configuration.maxSizeBytes
        // A new index (no file, or an empty one) is made without waiting for the disk: switching
        // it to WAL and creating the schema would otherwise flush six times (the rollback journal,
        // its folder, the file, the new WAL and its folder), a first run's longest wait. A crash
        // meanwhile can only spoil an index that holds nothing yet, which the next run rebuilds.
        var info = stat()
        let isNew = stat(path, &info) != 0 || info.st_size == 0
        // WAL is set here rather than with GRDB's `.wal`, whose set-up stats the -wal file through
        // Foundation (a passwd/group lookup) and writes a dummy transaction on every open.
        grdb.prepareDatabase { db in
            if isNew { try db.execute(sql: "PRAGMA synchronous = OFF") }
            // Asking first avoids the write lock a switch takes when the file is WAL already.
            var mode = try String.fetchOne(db, sql: "PRAGMA journal_mode")
            if mode?.lowercased() != "wal" {
                mode = try String.fetchOne(db, sql: "PRAGMA journal_mode = WAL")
            }
            guard mode?.lowercased() == "wal" else {
                throw DatabaseError(resultCode: .SQLITE_ERROR, message: "could not turn on WAL (journal mode \(mode ?? "unknown"))")
            }
            if !isNew { try db.execute(sql: "PRAGMA synchronous = NORMAL") }
            // The -wal and -shm files stay when the last connection closes (emptied, not
            // deleted): every command that reads the cache would otherwise create both, size the
            // shared-memory file page by page, and delete them again at exit.
            var persist: Int32 = 1
            sqlite3_file_control(db.sqliteConnection, nil, SQLITE_FCNTL_PERSIST_WAL, &persist)
            // Nor does the last connection checkpoint as it closes: that wrote every page of
            // the run's transactions again and flushed the disk three times (14 ms of a cold
            // listing's 35 after its last thumbnail arrived). The WAL is checkpointed instead
            // when a commit leaves it over SQLite's 1,000 pages, once in several runs.
            photos_sqlite_skip_checkpoint_on_close(UnsafeMutableRawPointer(db.sqliteConnection))
            // The WAL is disk the cache uses beside its cap: kept to an eighth of a small cap
            // (a cache capped at 1 MiB used 5 on the disk), SQLite's 1,000 pages (4 MiB) otherwise.
            let journal = Self.journalLimit(maxBytes: maxBytes)
            try db.execute(sql: "PRAGMA journal_size_limit = \(journal)")
            if journal < Self.defaultJournalLimit { try db.execute(sql: "PRAGMA wal_autocheckpoint = \(max(16, journal / 4096))") }
            // A page cache of 512 KB rather than SQLite's 2 MB: reads by key touch a few pages,
            // and the rest of the default only filled up with the pages a long write leaves
            // behind (a save of 1000 photos), memory the run does not read again. A run that
            // only reads (``CacheConfiguration/onlyReads``) takes 64 KB: it reads each page once, and pages still in the journal
            // (a listing stored since the last checkpoint) are copied into the cache as they
            // are read. 512 KB of them were most of a cached listing's memory: with 64 KB, a
            // cached table of 500 touched 588 pages of memory rather than 733.
            try db.execute(sql: "PRAGMA cache_size = \(onlyReads ? -64 : -512)")
            if mapsIndex {
                // SQLite still writes with write(2), and re-checks the file's size at each
                // transaction, so another process's checkpoint or vacuum is seen.
                try db.execute(sql: "PRAGMA mmap_size = 268435456")
            }
        }
        grdb.label = "photos-cache"
        // SQLite follows links; a link where the index belongs is refused instead.
        if lstat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFLNK {
            throw DatabaseError(resultCode: .SQLITE_CANTOPEN, message: "\(path) is a symbolic link; photos does not follow links in its cache")
        }
        if let kind = Self.nonRegularKind(path) {
            throw DatabaseError(resultCode: .SQLITE_CANTOPEN, message: "\(path) is \(kind), not a file; remove it and photos makes a new index")
        }
        // So are its journal's files (SQLite said "unable to open database file", or "attempt
        // to write a readonly database", for a folder there; it would write through a link).
        for journal in [path + "-wal", path + "-shm"] {
            if lstat(journal, &info) == 0, (info.st_mode & S_IFMT) == S_IFLNK {
                throw DatabaseError(
                    resultCode: .SQLITE_CANTOPEN, message: "\(journal) is a symbolic link; photos does not follow links in its cache: remove it and photos makes a new one")
            }
            if let kind = Self.nonRegularKind(journal) {
                throw DatabaseError(
                    resultCode: .SQLITE_CANTOPEN, message: "\(journal) is \(kind), not a file (one of the index's journal files); remove it and photos makes a new one")
            }
        }
        let queue = try DatabaseQueue(path: path, configuration: grdb)
        // Only the user may read the index (their searches) and its journal.
        for file in [path, path + "-wal", path + "-shm"] { chmod(file, 0o600) }
        do {
            if try CacheSchema.migrate(queue) { madeNew.withLock { $0 = true } }
            if isNew { try queue.inDatabase { try $0.execute(sql: "PRAGMA synchronous = NORMAL") } }
            return queue
        } catch {
            try? queue.close()
            throw error
        }
    }

    /// Opens the index of a read-only cache, after saying once that nothing will be kept.
    /// - Throws: when the file is not an index of this version.
    private func openReadOnly() throws -> DatabaseQueue {
        var grdb = Configuration()
        grdb.readonly = true
        grdb.label = "photos-cache"
        // A URI, whose path escapes what a URI would read otherwise.
        var escaped = ""
        for character in path.unicodeScalars {
            switch character {
            case "%", "?", "#": escaped += String(format: "%%%02X", character.value)
            default: escaped.unicodeScalars.append(character)
            }
        }
        // What the last runs wrote may still be in the WAL (no connection checkpoints as it
        // closes): the index is then read with it, which SQLite does without writing when the
        // -wal and -shm files are there (they are kept), and from a copy of both otherwise (a
        // backup that left -shm out), removed at close. Only an index whose WAL is empty is
        // read as an immutable file.
        var wal = stat()
        let walHoldsPages = stat(path + "-wal", &wal) == 0 && wal.st_size > 0
        let queue: DatabaseQueue
        if walHoldsPages, !fs.exists(atPath: path + "-shm") {
            queue = try openCopy()
        } else {
            queue = try DatabaseQueue(path: "file:\(escaped)?\(walHoldsPages ? "mode=ro" : "immutable=1")", configuration: grdb)
        }
        let version: Int
        do {
            version = try queue.read { try Int.fetchOne($0, sql: "PRAGMA user_version") } ?? 0
        } catch {
            try? queue.close()
            removeCopy()
            throw error
        }
        guard version == CacheSchema.migrations.count else {
            try? queue.close()
            removeCopy()
            throw DatabaseError(resultCode: .SQLITE_READONLY, message: "a read-only index of another version (\(version)) cannot be brought up to date")
        }
        configuration.warn("the cache at \(root.path) is on a read-only file system: photos reads what it holds and keeps nothing new")
        readOnly.withLock { $0 = true }
        return queue
    }

    /// The folder of the copy ``openCopy()`` made, until the index closes.
    private let copyFolder = Mutex<String?>(nil)

    /// Copies the index and its WAL into a new folder of the temporary folder (only the user
    /// may read it: it holds their searches) and opens the copy, where SQLite reads the WAL.
    private func openCopy() throws -> DatabaseQueue {
        Self.removeCopiesOfEndedProcesses()
        // The process's id in the name: a copy whose process was killed (SIGKILL: no chance to
        // remove it) is recognised and removed by the next process that makes one.
        let name = "\(Self.copyPrefix)\(getpid())-XXXXXX"
        var template = Array((NSTemporaryDirectory() as NSString).appendingPathComponent(name).utf8CString)
        guard let made = mkdtemp(&template) else {
            throw DatabaseError(resultCode: .SQLITE_CANTOPEN, message: "could not make a folder to read the index from: \(String(cString: strerror(errno)))")
        }
        let folder = String(cString: made)
        copyFolder.withLock { $0 = folder }
        do {
            for suffix in ["", "-wal"] {
                try FileManager.default.copyItem(atPath: path + suffix, toPath: folder + "/" + Self.fileName + suffix)
            }
            var grdb = Configuration()
            grdb.label = "photos-cache"
            return try DatabaseQueue(path: folder + "/" + Self.fileName, configuration: grdb)
        } catch {
            removeCopy()
            throw error
        }
    }

    /// The start of the name of a copy's folder in the temporary folder; the process id follows.
    static let copyPrefix = "photos-index-"

    /// Removes the copies of the index left in the temporary folder by processes of this user
    /// that have ended (killed before they could remove theirs).
    static func removeCopiesOfEndedProcesses() {
        let temporary = NSTemporaryDirectory()
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: temporary) else { return }
        for name in names where name.hasPrefix(copyPrefix) {
            // photos-index-PID-XXXXXX, of this user, whose process is gone.
            let parts = name.dropFirst(copyPrefix.count).split(separator: "-")
            guard parts.count == 2, parts[1].count == 6, let pid = Int32(parts[0]), pid > 0, pid != getpid() else { continue }
            let path = (temporary as NSString).appendingPathComponent(name)
            var info = stat()
            guard lstat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR, info.st_uid == geteuid() else { continue }
            guard kill(pid, 0) != 0, errno == ESRCH else { continue }
            try? FileManager.default.removeItem(atPath: path)
        }
    }

    private func removeCopy() {
        if let folder = copyFolder.withLock({ folder in defer { folder = nil }; return folder }) {
            try? FileManager.default.removeItem(atPath: folder)
        }
    }

    /// A file in `folder` that photos would not have written there (named otherwise than
    /// `HEX64.ext`, a temp file, or in a folder other than an old two-letter shard), if any.
    static func foreignFile(inImages folder: String, fs: any CacheFileSystem) -> String? {
        foreignFile(in: folder, fs: fs, isOwn: isOwnImage)
    }

    /// The folders photos makes in the cache folder, each with what its files' names are
    /// (relative to it): checked before a cache folder without an index is taken as photos'.
    static let ownFolders: [(name: String, isOwn: @Sendable (Substring) -> Bool)] = [
        ("images", isOwnImage), (CacheLayout.tilesFolder, isOwnTile), (CacheLayout.openedFolder, isOwnOpened),
        (CacheLayout.synthesizedFolder, isOwnSynthesized),
    ]

    private static func isHex(_ text: Substring) -> Bool { text.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x66) } }

    /// `HEX64[.ext]`: an image named by its URL's SHA-256, or the temporary file of one.
    private static func isImageName(_ name: Substring) -> Bool {
        if name.hasPrefix("."), name.hasSuffix(CacheLayout.partialSuffix) { return true }
        let stem = name.prefix { $0 != "." }
        let ext = name.dropFirst(stem.count)
        return stem.count == 64 && isHex(stem) && (ext.isEmpty || (2...6).contains(ext.count) && ext.dropFirst().allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) })
    }

    /// An image, directly in `images/` or in a two-hex-digit folder of it (an older layout).
    static func isOwnImage(_ relative: Substring) -> Bool {
        let parts = relative.split(separator: "/", omittingEmptySubsequences: false)
        guard let name = parts.last, parts.count == 1 || (parts.count == 2 && parts[0].count == 2 && isHex(parts[0])) else { return false }
        return isImageName(name)
    }

    /// A rendered tile, `HEX16.tile`, or a temporary file being written beside one.
    static func isOwnTile(_ relative: Substring) -> Bool {
        guard !relative.contains("/") else { return false }
        if relative.hasPrefix(".") { return true }
        return relative.count == 21 && relative.hasSuffix(".tile") && isHex(relative.prefix(16))
    }

    /// A drawn thumbnail, `150x150-92c952.png`, or the temporary file of one being written.
    static func isOwnSynthesized(_ relative: Substring) -> Bool {
        guard !relative.contains("/") else { return false }
        if relative.hasPrefix(".") { return true }
        guard relative.hasSuffix(".png"), let dash = relative.firstIndex(of: "-") else { return false }
        let size = relative[..<dash].split(separator: "x", omittingEmptySubsequences: false)
        let colour = relative[relative.index(after: dash)...].dropLast(".png".count)
        return size.count == 2 && size.allSatisfy { !$0.isEmpty && $0.allSatisfy { $0.isASCII && $0.isNumber } } && colour.count == 6 && isHex(colour)
    }

    /// An image handed to a viewer: an image's name.
    static func isOwnOpened(_ relative: Substring) -> Bool {
        !relative.contains("/") && isImageName(relative)
    }

    static func foreignFile(in folder: String, fs: any CacheFileSystem, isOwn: (Substring) -> Bool) -> String? {
        let prefix = folder + "/"
        for file in fs.files(under: folder) {
            let relative = file.path.hasPrefix(prefix) ? file.path.dropFirst(prefix.count) : Substring(file.path)
            if !isOwn(relative) { return String(relative) }
        }
        return nil
    }

    /// What is at `path` when it is there and neither a file nor a link ("a FIFO", "a
    /// socket", "a device"; a folder is said by SQLite itself): opening one may block or
    /// read what is no database.
    /// SQLite's own bound on the WAL between checkpoints: 1,000 pages of 4 KiB.
    static let defaultJournalLimit: Int64 = 4 << 20

    /// The most the WAL may hold on the disk for a cache capped at `maxBytes`: an eighth of the
    /// cap, at least 64 KiB, at most ``defaultJournalLimit``.
    static func journalLimit(maxBytes: Int64) -> Int64 {
        min(defaultJournalLimit, max(64 << 10, maxBytes / 8))
    }

    /// Whether nothing is at `path`: not whether it cannot be looked at (a folder above it this
    /// user may not enter is a problem to say, not a cache that is not there yet).
    static func isAbsent(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) != 0 && errno == ENOENT
    }

    static func nonRegularKind(_ path: String) -> String? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        switch info.st_mode & S_IFMT {
        case S_IFIFO: return "a FIFO (named pipe)"
        case S_IFSOCK: return "a socket"
        case S_IFCHR, S_IFBLK: return "a device"
        case S_IFDIR: return "a folder"
        default: return nil
        }
    }

    static func isCorruption(_ error: DatabaseError) -> Bool {
        error.resultCode == .SQLITE_CORRUPT || error.resultCode == .SQLITE_NOTADB
    }

    /// Why this user cannot use the cache folder or its index, when permissions are the reason
    /// (SQLite says only "unable to open database file").
    static func accessProblem(root: String, index: String) -> String? {
        if access(root, R_OK | W_OK | X_OK) != 0 {
            let code = errno
            if code == EACCES || code == EPERM { return "the folder \(root) is not readable and writable by this user" }
            if code == EROFS { return "the folder \(root) is on a read-only file system" }
            if code == ENOENT {
                // Not there: the nearest folder that is could not take it.
                var parent = (root as NSString).deletingLastPathComponent
                while parent.count > 1, access(parent, F_OK) != 0 { parent = (parent as NSString).deletingLastPathComponent }
                if !parent.isEmpty, access(parent, W_OK | X_OK) != 0 {
                    let code = errno
                    if code == EACCES || code == EPERM { return "the folder \(root) cannot be made: \(parent) is not writable by this user" }
                    if code == EROFS { return "the folder \(root) cannot be made: \(parent) is on a read-only file system" }
                }
            }
        }
        if access(index, F_OK) == 0, access(index, R_OK | W_OK) != 0, errno == EACCES || errno == EPERM {
            return "the file is not readable and writable by this user"
        }
        return nil
    }

    static func describe(_ error: any Error) -> String {
        if let error = error as? DatabaseError { return error.message ?? "SQLite error \(error.resultCode.rawValue)" }
        return PhotoCache.describe(error)
    }
}

/// A cache folder that holds what photos did not make, where it would otherwise delete it.
struct ForeignCacheFolder: Error {
    /// What is there that photos did not make.
    var problem: String
    var reason: String {
        problem + "; photos leaves it alone and continues without the cache: set PHOTOS_CACHE_DIR to a folder of its own"
    }
}

/// No cache folder, for a run that makes none (``CacheConfiguration/createsFolder``): not a
/// failure to warn of, as nothing is cached; what the run finds missing says it
/// (``PhotoCache/noCacheNote``).
struct NoCacheFolder: Error {
    var reason: String
}

/// The cache index cannot be used this run (the reason was already said as a warning, unless
/// the command is about the cache itself: ``CacheConfiguration/warnsWhenUnusable``).
struct CacheUnavailable: Error, CustomStringConvertible {
    var reason: String
    /// The reason without "continuing without the cache": what a command about the cache says.
    var problem: String
    var description: String { reason }

    init(reason: String, problem: String? = nil) {
        self.reason = reason
        self.problem = problem ?? reason
    }
}
