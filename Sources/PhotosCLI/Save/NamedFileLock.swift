import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An exclusive `flock` on the file a path names, shared by the folder's lock
/// (``SaveFolderLock``) and each photo's `.part` (``PartFileLock``).
///
/// The wait is in 50 ms steps, so that a cancelled task (Ctrl-C) stops waiting: one blocking
/// `flock` ends for no signal photos handles. The lock counts only on the file the name still
/// holds: a holder that removes or renames the file before letting go leaves the next one a lock
/// on a file no one else will look for, so the name is opened again.
enum NamedFileLock {
    /// The descriptor of `path` (made with `mode` when missing), locked; nil when it cannot be
    /// opened (and `retryOpen`, asked after each failed open with `errno` set, says not to try
    /// again) or locked. `waiting` is called once if another process holds the lock.
    /// - Throws: `CancellationError` when the task is cancelled while it waits.
    static func acquire(_ path: String, mode: mode_t, retryOpen: () -> Bool = { false }, waiting: () -> Void) async throws -> Int32? {
        var said = false
        while true {
            let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, mode)
            guard descriptor >= 0 else {
                if retryOpen() { continue }
                return nil
            }
            var locked = false
            while !locked {
                if flock(descriptor, LOCK_EX | LOCK_NB) == 0 {
                    locked = true
                } else if errno == EWOULDBLOCK {
                    if !said {
                        waiting()
                        said = true
                    }
                    do {
                        try await Task.sleep(for: .milliseconds(50))
                    } catch {
                        close(descriptor)
                        throw error
                    }
                } else if errno != EINTR {
                    break
                }
            }
            guard locked else {
                close(descriptor)
                return nil
            }
            if names(path, descriptor) { return descriptor }
            close(descriptor)
        }
    }

    /// Whether `path` still names the file open at `descriptor`.
    static func names(_ path: String, _ descriptor: Int32) -> Bool {
        var held = stat(), named = stat()
        return fstat(descriptor, &held) == 0 && lstat(path, &named) == 0 && held.st_dev == named.st_dev && held.st_ino == named.st_ino
    }
}
