import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The file operations the cache performs, so tests can break a disk or watch what happens.
public protocol CacheFileSystem: Sendable {
    /// The size of the regular file at `path`, or nil when there is none.
    func fileSize(atPath path: String) -> Int64?
    /// Whether anything exists at `path`.
    func exists(atPath path: String) -> Bool
    /// Creates `path` and its parents.
    /// - Throws: the underlying error when the folder cannot be created.
    func createDirectory(atPath path: String) throws
    /// Removes the file or folder at `path` (recursively); a missing item is not an error.
    func remove(atPath path: String)
    /// Renames `source` to `destination`, replacing a file there.
    /// - Throws: the underlying error.
    func move(atPath source: String, toPath destination: String) throws
    /// Every regular file under `folder`, with its size and modification time (maintenance only:
    /// lookups never list folders).
    func files(under folder: String) -> [(path: String, size: Int64, modified: Date)]
}

/// The real file system, through POSIX calls where FileManager would be slow.
public struct LiveFileSystem: CacheFileSystem {
    public init() {}

    public func fileSize(atPath path: String) -> Int64? {
        var info = stat()
        guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        return Int64(info.st_size)
    }

    public func exists(atPath path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0
    }

    public func createDirectory(atPath path: String) throws {
        // Fast path for the usual case (it exists): one syscall, no Foundation attribute lookups.
        // Only the user may look in: the index holds their searches.
        if mkdir(path, 0o700) == 0 { return }
        var info = stat()
        if errno == EEXIST, stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR { return }
        try FileManager.default.createDirectory(
            atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    }

    public func remove(atPath path: String) {
        if unlink(path) == 0 || errno == ENOENT { return }
        try? FileManager.default.removeItem(atPath: path)
    }

    public func move(atPath source: String, toPath destination: String) throws {
        guard rename(source, destination) == 0 else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: destination, "reason": String(cString: strerror(errno))])
        }
    }

    public func files(under folder: String) -> [(path: String, size: Int64, modified: Date)] {
        guard let enumerator = FileManager.default.enumerator(atPath: folder) else { return [] }
        var result: [(path: String, size: Int64, modified: Date)] = []
        while let relative = enumerator.nextObject() as? String {
            let path = folder + "/" + relative
            var info = stat()
            guard lstat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { continue }
            let modified = Date(timeIntervalSince1970: TimeInterval(info.st_mtim.tv_sec) + TimeInterval(info.st_mtim.tv_nsec) / 1e9)
            result.append((path, Int64(info.st_size), modified))
        }
        return result
    }
}
