import Foundation
import PhotosCore
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A file being written beside its final name, published by rename only when complete.
///
/// Temp names end in `TempFile.suffix` so a cache can find orphans left by a killed process.
struct TempFile {
    static let suffix = CacheLayout.partialSuffix

    /// The path the file is renamed to when complete.
    let target: String
    let path: String
    private var descriptor: Int32
    /// Whether this file holds one of the process's ``heldOpenLimit`` places for prepared files.
    private var holdsPlace = false

    /// Prepared files held open at once in the whole process. Past it, a prepared file is
    /// closed and reopened by its first write. The bound keeps the process's descriptors in the
    /// hundreds however many downloads are queued: Foundation's `Process` (`show --open`, the
    /// tests' runs of the binary) enumerates every open descriptor when it spawns, and crashed
    /// in CI doing so while a test process held more than 1,350 of them.
    static let heldOpenLimit = 256
    private static let heldOpen = Atomic<Int>(0)
    /// Prepared files holding their descriptor now, in the whole process (for tests).
    static var heldOpenCount: Int { heldOpen.load(ordering: .relaxed) }
    /// Whether the file's descriptor is open now (for tests).
    var isOpen: Bool { descriptor >= 0 }

    /// Whether a download prepared ahead of its turn may hold its file open until it runs. The
    /// first use raises the soft limit on open files to the hard one (at most 65,536,
    /// ``OpenFileBudget``), as many servers and downloaders do; hundreds of prepared downloads are then far below it. Under a
    /// lower limit, files are closed when prepared and reopened by their first write, which costs
    /// an open and a close more per file.
    static let mayKeepPreparedFilesOpen: Bool = OpenFileBudget.limit >= 8_192

    /// Temp names are unique in this process by a counter, and between processes by a random
    /// prefix drawn once (`O_EXCL` refuses the rare clash): one `getrandom` call per process
    /// rather than per file.
    private static let processPrefix = String(UInt32.random(in: 0...UInt32.max), radix: 16) + "-"
    private static let counter = Atomic<UInt64>(0)

    /// Creates the file. With `keepOpen` false the descriptor is closed at once and reopened on
    /// the first write: a download prepared ahead of its turn holds no file descriptor.
    init(for target: String, keepOpen: Bool = true) throws(TransportError) {
        self.target = target
        // Plain string work: this runs once per download.
        let full = target
        let slash = full.utf8.lastIndex(of: UInt8(ascii: "/")) ?? full.startIndex
        let directory = full[..<slash]
        let name = full[full.index(after: slash)...]
        let number = Self.counter.wrappingAdd(1, ordering: .relaxed).newValue
        path = directory + "/." + name + "." + Self.processPrefix + String(number, radix: 16) + Self.suffix
        // Made and recorded under the lock that ``removeLeftovers(under:refusingMore:)`` takes:
        // a process leaving on a signal either removes this file or makes it refused, never
        // exits between its creation and its record.
        let path = path
        let created = Self.live.withLock { live -> (descriptor: Int32, error: Int32)? in
            guard !live.closed else { return nil }
            let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
            if descriptor >= 0 { live.paths.insert(path) }
            return (descriptor, errno)
        }
        guard let created else { throw .fileSystem(path: target, detail: "photos is stopping") }
        descriptor = created.descriptor
        guard descriptor >= 0 else {
            throw .fileSystem(path: target, detail: String(cString: strerror(created.error)))
        }
        if keepOpen, Self.takePlace() {
            holdsPlace = true
        } else {
            close(descriptor)
            descriptor = -1
        }
    }

    private static func takePlace() -> Bool {
        if heldOpen.wrappingAdd(1, ordering: .relaxed).oldValue < heldOpenLimit { return true }
        heldOpen.wrappingSubtract(1, ordering: .relaxed)
        return false
    }

    /// Gives back the place held since `init`, once the file is closed.
    private mutating func leavePlace() {
        guard holdsPlace else { return }
        holdsPlace = false
        Self.heldOpen.wrappingSubtract(1, ordering: .relaxed)
    }

    /// Writes all of `bytes`, retrying short writes and interrupted calls.
    mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) throws(TransportError) {
        if descriptor < 0 {
            // Reopening an existing file is cheap; creating it was the slow part.
            descriptor = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC)
            guard descriptor >= 0 else {
                throw .fileSystem(path: target, detail: String(cString: strerror(errno)))
            }
        }
        guard var pointer = bytes.baseAddress else { return }
        var remaining = bytes.count
        while remaining > 0 {
            let written = write(descriptor, pointer, remaining)
            if written < 0 {
                if errno == EINTR { continue }
                throw .fileSystem(path: target, detail: String(cString: strerror(errno)))
            }
            remaining -= written
            pointer += written
        }
    }

    /// Closes the file and renames it to its target, atomically replacing any old file.
    mutating func commit() throws(TransportError) {
        let closed = descriptor >= 0 ? close(descriptor) : 0
        descriptor = -1
        leavePlace()
        defer { Self.live.withLock { _ = $0.paths.remove(path) } }
        guard closed == 0, rename(path, target) == 0 else {
            let detail = String(cString: strerror(errno))
            unlink(path)
            throw .fileSystem(path: target, detail: detail)
        }
    }

    /// Closes and deletes the partial file.
    mutating func discard() {
        if descriptor >= 0 {
            close(descriptor)
            descriptor = -1
        }
        leavePlace()
        unlink(path)
        Self.live.withLock { _ = $0.paths.remove(path) }
    }

    /// The temp files of this process that are neither committed nor discarded yet, and
    /// whether new ones are refused (the process is leaving).
    private static let live = Mutex<(paths: Set<String>, closed: Bool)>(([], false))

    /// Deletes the temp files this process has not committed or discarded, under `folder` (a
    /// path prefix; every one when nil), and returns how many: for a command that leaves on a
    /// signal while the transport's thread is still winding its downloads down. With
    /// `refusingMore`, no temp file is made after it (a download still being set up fails).
    static func removeLeftovers(under folder: String? = nil, refusingMore: Bool = false) -> Int {
        let paths = live.withLock { live in
            if refusingMore { live.closed = true }
            let taken = live.paths.filter { folder.map($0.hasPrefix) ?? true }
            live.paths.subtract(taken)
            return taken
        }
        for path in paths { unlink(path) }
        return paths.count
    }
}

/// The files downloads are written to before they are complete (see ``TempFile``).
public enum PartialDownloads {
    /// Deletes every temp file of this process's downloads that has not been committed or
    /// discarded, and refuses new ones: call it when leaving at once on a signal, whatever the
    /// transport's thread is still doing (a file it renames after this keeps its final name;
    /// one it writes after this is already unlinked). Returns how many were deleted.
    @discardableResult
    public static func removeAll() -> Int { TempFile.removeLeftovers(refusingMore: true) }
}
