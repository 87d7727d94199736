import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What each command did with the cache (`runs.log` in its folder), for the hit rates of
/// `photos cache stats`: one line per run, appended with one `write` and no `fsync`.
///
/// The index is not the place for them: a command that only read the cache (a listing served
/// from it) would have to write to record its hits, and SQLite's write, WAL checkpoint and
/// fsyncs took 2 ms of such a run's 12. Lines are tab-separated: time, command, listing hits,
/// listing misses, image hits, image misses. Lines that do not read so are skipped, and only a
/// regular file's last ``readBytes`` are read: the disk is not trusted. Readers see the last
/// ``kept`` runs; past ``trimBytes`` the file is rewritten with them (by rename, by one process
/// at a time: the cache lock). A run appended by another process while the file is rewritten can
/// be lost: these are statistics.
struct RunLog {
    struct Run: Equatable, Sendable {
        var at: Double
        var command: String
        var listingHits: Int
        var listingMisses: Int
        var imageHits: Int
        var imageMisses: Int
    }

    static let fileName = "runs.log"
    /// The runs the file keeps, and the most a reader sees.
    static let kept = 100
    /// The size past which the file is cut back to the last ``kept`` runs.
    static let trimBytes = 16 * 1024
    /// The most of the file read: its end, which holds the last runs.
    static let readBytes = 64 * 1024

    let path: String
    let lockPath: String

    /// Appends `run`, cutting the file back when it has grown past ``trimBytes``. Best effort:
    /// the run goes unrecorded when the file cannot be written.
    func append(_ run: Run) {
        // A command name is one of photos' own; tabs and line ends are kept out all the same.
        let command = String(run.command.unicodeScalars.filter { $0 != "\t" && $0 != "\n" && $0 != "\r" })
        let line = "\(run.at)\t\(command)\t\(run.listingHits)\t\(run.listingMisses)\t\(run.imageHits)\t\(run.imageMisses)\n"
        // Not through a link, and never blocking on a FIFO someone put in its place.
        let descriptor = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0o600)
        guard descriptor >= 0 else { return }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return }
        let written = line.utf8CString.withUnsafeBufferPointer { buffer in
            write(descriptor, buffer.baseAddress, buffer.count - 1) == buffer.count - 1
        }
        if written, Int(info.st_size) + line.utf8.count > Self.trimBytes { trim() }
    }

    /// The last `count` runs (at most ``kept``), oldest first.
    func last(_ count: Int) -> [Run] {
        guard count > 0 else { return [] }
        return Array(Self.parse(tail()).suffix(min(count, Self.kept)))
    }

    /// The last ``readBytes`` of the file, from its first whole line; empty unless it is a
    /// regular file.
    private func tail() -> [UInt8] {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
        guard descriptor >= 0 else { return [] }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return [] }
        let start = max(0, Int(info.st_size) - Self.readBytes)
        var bytes = [UInt8](repeating: 0, count: Int(info.st_size) - start)
        let count = bytes.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, off_t(start)) }
        guard count > 0 else { return [] }
        bytes.removeLast(bytes.count - count)
        if start > 0, let newline = bytes.firstIndex(of: UInt8(ascii: "\n")) { bytes.removeFirst(newline + 1) }
        return bytes
    }

    /// Forgets every run.
    func clear() {
        unlink(path)
    }

    /// Rewrites the file with its last ``kept`` runs, unless another process holds the cache
    /// lock (it will be cut back by a later run).
    private func trim() {
        guard let lock = (try? FileLock.acquire(lockPath, wait: false)) ?? nil else { return }
        defer { lock.unlock() }
        let lines = tail().split(separator: UInt8(ascii: "\n")).suffix(Self.kept)
        guard !lines.isEmpty else { return }
        var bytes: [UInt8] = []
        for line in lines {
            bytes.append(contentsOf: line)
            bytes.append(UInt8(ascii: "\n"))
        }
        let temporary = path + ".\(getpid()).new"
        unlink(temporary)  // one a killed trim left
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else { return }
        let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) } == bytes.count
        close(descriptor)
        if !written || rename(temporary, path) != 0 { unlink(temporary) }
    }

    /// The runs in `data`, skipping every line that does not read as one.
    static func parse(_ bytes: [UInt8]) -> [Run] {
        var runs: [Run] = []
        for line in bytes.split(separator: UInt8(ascii: "\n")) {
            let fields = line.split(separator: UInt8(ascii: "\t"), omittingEmptySubsequences: false)
            guard fields.count == 6, let at = Double(String(decoding: fields[0], as: UTF8.self)), at.isFinite else { continue }
            let counts = fields[2...].map { Int(String(decoding: $0, as: UTF8.self)) }
            guard let lh = counts[0], let lm = counts[1], let ih = counts[2], let im = counts[3],
                  [lh, lm, ih, im].allSatisfy({ (0...1_000_000_000).contains($0) })
            else { continue }
            runs.append(Run(at: at, command: String(decoding: fields[1], as: UTF8.self), listingHits: lh, listingMisses: lm, imageHits: ih, imageMisses: im))
        }
        return runs
    }
}
