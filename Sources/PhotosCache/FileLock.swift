import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An exclusive advisory lock on a file (`flock`), shared by every process using one cache.
/// Released by ``unlock()`` or when the process ends, however it ends.
final class FileLock {
    private var descriptor: Int32

    private init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    deinit { unlock() }

    /// Takes the lock at `path`; nil when `wait` is false and another process holds it.
    /// - Throws: ``CacheLockUnavailable`` when the lock file cannot be opened (a folder or a link
    ///   in its place, a read-only file system): the work it guards cannot be done safely.
    static func acquire(_ path: String, wait: Bool) throws -> FileLock? {
        // Never through a link someone planted in the cache folder.
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else { throw CacheLockUnavailable(path: path, code: errno) }
        while flock(descriptor, LOCK_EX | (wait ? 0 : LOCK_NB)) != 0 {
            let code = errno
            if code == EINTR { continue }
            close(descriptor)
            // Held by another process: only then is there no lock without an error. A file
            // system that takes no locks (ENOLCK) is no reason to go on without one.
            if !wait, code == EWOULDBLOCK { return nil }
            throw CacheLockUnavailable(path: path, code: code, opened: true)
        }
        return FileLock(descriptor: descriptor)
    }

    func unlock() {
        guard descriptor >= 0 else { return }
        flock(descriptor, LOCK_UN)
        close(descriptor)
        descriptor = -1
    }
}

/// The cache's lock file cannot be opened, so nothing that needs the lock (evicting, clearing)
/// is done.
struct CacheLockUnavailable: Error, CustomStringConvertible {
    var path: String
    var code: Int32
    /// Whether the file opened and only the lock failed.
    var opened = false

    var description: String {
        if opened { return "its lock file \(path) cannot be locked (\(String(cString: strerror(code)))); the file system may take no locks" }
        // O_NOFOLLOW refuses a link with ELOOP, whose own words ("Too many levels of symbolic
        // links") would mislead.
        let reason = code == ELOOP ? "it is a symbolic link" : String(cString: strerror(code))
        return "its lock file \(path) cannot be opened (\(reason)); remove what is there"
    }
}
