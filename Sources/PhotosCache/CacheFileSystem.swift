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
        // lstat: a link where a cached image belongs is no image of the cache's (it could point
        // anywhere), and is fetched again rather than read or handed out.
        var info = stat()
        guard lstat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
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
        // readdir and lstat: FileManager's enumerator built each entry's path through
        // NSString, at a cost per file that a sweep of thousands of images noticed.
        var result: [(path: String, size: Int64, modified: Date)] = []
        var pending = [folder]
        while let current = pending.popLast() {
            // Never through a link, the folder itself included: a link where the cache's images
            // belong points at files photos does not own.
            let descriptor = open(current, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            guard descriptor >= 0 else { continue }
            guard let directory = fdopendir(descriptor) else {
                close(descriptor)
                continue
            }
            defer { closedir(directory) }
            while let entry = readdir(directory) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { bytes in
                    String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
                }
                if name == "." || name == ".." { continue }
                let path = current + "/" + name
                var info = stat()
                guard lstat(path, &info) == 0 else { continue }
                switch info.st_mode & S_IFMT {
                case S_IFDIR:
                    pending.append(path)
                case S_IFREG:
                    let modified = Date(timeIntervalSince1970: TimeInterval(info.st_mtim.tv_sec) + TimeInterval(info.st_mtim.tv_nsec) / 1e9)
                    result.append((path, Int64(info.st_size), modified))
                default:
                    continue
                }
            }
        }
        return result
    }
}
