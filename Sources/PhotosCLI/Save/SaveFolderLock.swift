import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One `photos save` at a time writes into a folder.
///
/// Two saves into one folder would share each photo's `NAME.part`: one truncating what the other
/// wrote, renaming it while the other still writes, each then failing a photo the other saved.
/// The second save waits for the first (an exclusive `flock` on `.photos-save.lock` in the
/// folder), then finds its files there and skips them. The lock file is removed when the save
/// ends; a save that took the lock on a file removed meanwhile takes it again on the new one.
final class SaveFolderLock {
    static let fileName = ".photos-save.lock"

    private var descriptor: Int32
    private let path: String

    private init(descriptor: Int32, path: String) {
        self.descriptor = descriptor
        self.path = path
    }

    deinit { release() }

    /// Takes the lock of `folder`, calling `waiting` once if another save holds it; nil when the
    /// lock file cannot be made (a folder photos cannot write into fails on its own files).
    /// - Throws: `CancellationError` when the task is cancelled (Ctrl-C) while it waits: the
    ///   wait is in short steps, not one blocking `flock` that no signal ends.
    static func acquire(in folder: String, waiting: () -> Void) async throws -> SaveFolderLock? {
        let path = folder + "/" + fileName
        // The save that held the lock made the folder, saved nothing and removed it again as it
        // left: made anew for this one.
        let descriptor = try await NamedFileLock.acquire(
            path, mode: 0o600, retryOpen: { errno == ENOENT && (mkdir(folder, 0o777) == 0 || errno == EEXIST) }, waiting: waiting)
        return descriptor.map { SaveFolderLock(descriptor: $0, path: path) }
    }

    /// Removes the lock file and lets the next save in.
    func release() {
        guard descriptor >= 0 else { return }
        unlink(path)
        flock(descriptor, LOCK_UN)
        close(descriptor)
        descriptor = -1
    }
}
