import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The lock on one photo's `NAME.part` while a save writes it and renames it to `NAME`.
///
/// The folder lock (``SaveFolderLock``) keeps two saves out of one `--to`, but two saves into
/// trees that overlap (`--to D` and `--to D/flickr`) can still name the same file: each would
/// write into the other's `NAME.part`, and the file renamed to `NAME` would be a mix of both
/// downloads. A save therefore holds an exclusive `flock` on `NAME.part` from before its first
/// byte until after the rename; another save that wants the same file waits for it, then finds
/// the file there.
///
/// The lock counts only on the file the name still holds: the holder renames its `.part` away
/// before it lets go, so a save that was waiting on that file opens `NAME.part` again.
final class PartFileLock: Sendable {
    private let descriptor: Int32
    let path: String

    private init(descriptor: Int32, path: String) {
        self.descriptor = descriptor
        self.path = path
    }

    /// Takes the lock of the `.part` at `path` (made empty when there is none), calling
    /// `waiting` once if another process holds it. Nil when the file cannot be opened (a link
    /// or a folder there, a folder photos cannot write into, a full disk): the save then meets
    /// that itself.
    /// - Throws: `CancellationError` when the task is cancelled while it waits.
    static func acquire(_ path: String, waiting: () -> Void) async throws -> PartFileLock? {
        try await NamedFileLock.acquire(path, mode: 0o666, waiting: waiting).map { PartFileLock(descriptor: $0, path: path) }
    }

    /// Whether the `.part` is empty (nothing was written into it under this lock or before).
    var isEmpty: Bool {
        var info = stat()
        return fstat(descriptor, &info) == 0 && info.st_size == 0
    }

    /// Removes the `.part` if it is still this lock's file (not renamed to its name yet).
    func removeFile() {
        if NamedFileLock.names(path, descriptor) { unlink(path) }
    }

    /// Lets the next save in.
    func release() {
        flock(descriptor, LOCK_UN)
        close(descriptor)
    }
}
