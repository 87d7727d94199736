import Foundation
import PhotosCore
import PhotosTransport

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `s` in `photos browse`: a full image copied out of the cache into the save folder, under the
/// name `photos save` gives by default (`{provider}/{id}.{ext}`, by its own template), so that a
/// later `photos save` of the photo into that folder finds it there. The copy is written beside
/// its final name and renamed into place, so the folder never holds half an image.
enum BrowseSaving {
    /// Where images are saved: `PHOTOS_SAVE_DIR` or the config's `[save] dir` (`~` is the home
    /// folder), else the current folder; as `photos save` without `--to`.
    static func directory(_ environment: AppEnvironment) -> URL {
        guard let configured = configuredDirectory(environment) else {
            return URL(fileURLWithPath: FileManager.default.currentDirectoryPath, isDirectory: true)
        }
        return configured
    }

    /// `PHOTOS_SAVE_DIR` or the config's `[save] dir`, when set.
    static func configuredDirectory(_ environment: AppEnvironment) -> URL? {
        // Blank is unset (AppEnvironment.setValue); the file's value is in settings too.
        guard let configured = environment.settings["PHOTOS_SAVE_DIR"] else { return nil }
        return URL(fileURLWithPath: HomePath.expand(configured, environment: environment.environment), isDirectory: true)
    }

    /// Copies `file` (the photo's full image in the cache) to the name `photos save` would give
    /// it in `folder`.
    /// - Returns: the saved file's path, and whether an identical file was already there.
    /// - Throws: a file-system error when the folder or the copy cannot be written.
    static func save(_ file: URL, photo: Photo, into folder: URL) throws -> (path: String, existed: Bool) {
        let fileExtension = ImageKind(file: file)?.fileExtension ?? (file.pathExtension.isEmpty ? "jpg" : file.pathExtension.lowercased())
        let name = try NameTemplate(NameTemplate.defaultTemplate).render(NameFields(photo: photo, imageURL: "image." + fileExtension), reserve: 5)
        let manager = FileManager.default
        let size = (try? manager.attributesOfItem(atPath: file.path)[.size] as? Int) ?? nil
        // As `photos save` names it: a file there that is this photo's (its mark says so) is the
        // photo saved already; any other file keeps its name, and the photo takes the next one.
        var existed = false
        var assigner = NameAssigner(metadata: false)
        let relative = assigner.assign(name) { path in
            let candidate = folder.path + "/" + path
            var info = stat()
            guard lstat(candidate, &info) == 0 else { return false }
            guard (info.st_mode & S_IFMT) == S_IFREG else { return true }
            if let owner = ExtendedAttribute.get(SavedFiles.ownerAttribute, path: candidate) {
                existed = owner == photo.id.description
            } else {
                // Where the file system keeps no marks, the same number of bytes stands for them.
                existed = !ExtendedAttribute.areKept(at: candidate) && size == Int(info.st_size)
            }
            return !existed
        }
        let target = folder.appendingPathComponent(relative)
        if existed { return (target.path, true) }
        // A folder that cannot be made names itself and the setting that chose it.
        let setting = "set PHOTOS_SAVE_DIR or [save] dir to a folder you can write"
        do {
            try manager.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
        } catch {
            throw TransportError.fileSystem(path: target.deletingLastPathComponent().path, detail: "\(Diagnostics.describe(error)); \(setting)")
        }
        let part = target.appendingPathExtension("part")
        try? manager.removeItem(at: part)
        // Written anew rather than copied: a copy would keep the cache's private mode (0600),
        // where `photos save` gives its files the user's usual one. A copy the disk cannot hold
        // leaves no `.part` behind.
        do {
            try Data(contentsOf: file).write(to: part)
        } catch {
            try? manager.removeItem(at: part)
            throw TransportError.fileSystem(path: target.path, detail: Diagnostics.describe(error))
        }
        ExtendedAttribute.set(SavedFiles.ownerAttribute, photo.id.description, path: part.path)
        guard rename(part.path, target.path) == 0 else {
            let reason = String(cString: strerror(errno))
            try? manager.removeItem(at: part)
            throw PhotosError.unavailable(provider: "save", detail: "cannot write \(target.path): \(reason)")
        }
        return (target.path, false)
    }
}
