import Foundation
import PhotosCore
import PhotosTerminal
import PhotosTransport
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A photo ready to be saved: what it is, the URL of the chosen size, its place below `--to`.
struct SaveItem: Sendable {
    var photo: Photo
    /// The provider's detail, when it was asked for (ids without a cached listing).
    var detail: PhotoDetail?
    var url: String
    /// The same image in the cache (`show --open` fetched it), copied instead of fetched.
    var cachedFile: URL?
    /// The path below `--to`, once named.
    var path = ""
    /// An image photos did not mark (a copy of an earlier save, made without its extended
    /// attributes) that holds the name this photo wanted: if the download is the same bytes, it
    /// is taken as this photo's file, not saved again beside it.
    var displaced: String?
    /// The name this photo wanted, when a file that is not its own held it (it then takes the
    /// next name, `NAME-2.jpg`).
    var wanted: String?
}

/// How one photo's save ended.
enum FileOutcome: Sendable {
    case saved(bytes: Int)
    /// Its file was already there (and its sidecar, with `--metadata`).
    case skipped
    case failed(String, SaveFailure.Kind)
    /// The disk is full: nothing more can be saved this run.
    case diskFull(String)
    case cancelled
}

/// A photo that could not be saved, and why.
struct SaveFailure: Sendable, Encodable {
    enum Kind: Sendable {
        /// The network or the provider (exit 69 when nothing else was saved).
        case unreachable
        /// Not an image, or not what the server said (65 when nothing else was saved).
        case badData
        /// An input that names no photo photos can ask for: a line of stdin that is no id, an
        /// unknown provider, an id the provider cannot have (65 when every failure is one).
        case input
        /// A file or folder below `--to` could not be written (74 when every failure is one).
        case write
        /// The provider has no photo of that id (69 when nothing else was saved, as for `show`):
        /// asking again cannot help.
        case missing
        /// The provider refused its API key, or has none (77 when every failure is one, as for
        /// `show`): asking again cannot help until the key is mended.
        case authentication
        case other

        /// Whether running the save again may succeed where this failed.
        var isRetryable: Bool { self == .unreachable || self == .other }
    }

    var id: String
    var error: String
    var kind: Kind = .other
    /// Its place in the input (failures are listed in the input's order, not as they happened).
    var order = 0

    enum CodingKeys: String, CodingKey { case id, error }
}

/// The files of one save below `--to`: skipping, copying, downloading, checking and
/// publishing each image, and its sidecar.
///
/// An image is written to `NAME.part` and renamed to `NAME` only once its byte count and first
/// bytes are right, so a name is never a partial or broken file; the rename carries the photo's
/// id in an extended attribute (``ownerAttribute``), so a later run tells its own files from
/// another photo's that happen to have the name it wants, and the size it is
/// (``sizeAttribute``), so a later run for a larger size saves that one over it.
final class SavedFiles: Sendable {
    static let ownerAttribute = "user.photos.id"
    /// `SIZE\nURL`: the `--size` a file was saved for, and the URL it came from.
    static let sizeAttribute = "user.photos.size"
    static let partSuffix = ".part"

    let folder: URL
    /// `folder`'s path, to which relative paths are joined without URL's work.
    private let folderPath: String
    let http: any HTTPFetching
    let maxImageBytes: Int
    let metadata: Bool
    /// The `--size` asked for.
    let size: ImageSizeChoice
    /// Folders below `--to` made ready this run, and those of them it had to make.
    private let folders = Mutex<(ready: Set<String>, made: [String])>(([], []))
    /// Whether a file of this save met a full disk: the `.part` files of the others then go.
    private let diskFull = Mutex(false)
    /// Said once, when a file this save wants is being written by another save.
    private let waitingSaid = OnceFlag()
    /// Files saved under an image extension that is not their type (`--name "{id}.png"` for a
    /// JPEG), and the first of them by name.
    let misnamed = Mutex<(count: Int, first: String?)>((0, nil))
    /// Photos saved under the next name because a file that was not theirs held the one they
    /// wanted, and the first of them by name.
    let renamed = Mutex<(count: Int, first: String?)>((0, nil))

    /// The extension `--name` writes out (`{id}.txt`), if it does: every file saved is checked
    /// against it, whatever it is.
    let literalExtension: String?

    init(folder: URL, http: any HTTPFetching, maxImageBytes: Int, metadata: Bool, size: ImageSizeChoice, literalExtension: String? = nil) {
        self.folder = folder
        self.literalExtension = literalExtension
        self.size = size
        folderPath = folder.path.hasSuffix("/") ? String(folder.path.dropLast()) : folder.path
        self.http = http
        self.maxImageBytes = maxImageBytes
        self.metadata = metadata
    }

    /// The file at `path` below `--to` (named a file, so that Foundation does not stat it to
    /// find out: this runs for every photo).
    func url(_ path: String) -> URL { URL(fileURLWithPath: filePath(path), isDirectory: false) }

    /// The file system path of `path` below `--to`: what ``url(_:)`` names, joined as a string
    /// (this runs for every photo of a save, a re-run included).
    func filePath(_ path: String) -> String { folderPath + "/" + path }

    // MARK: Names

    /// What is at `path`: nothing, a file of this photo (or, where the file system keeps no
    /// extended attributes, an image of no known photo: a complete earlier download), or
    /// something it must not take (another photo's file, a file photos did not save, a folder,
    /// a link).
    enum Existing {
        case none, own, taken
        /// This photo's, saved for a smaller `--size` than this run's: saved again over it.
        case smaller
        /// This photo's, saved for a larger `--size`: kept, the better copy.
        case larger
    }

    /// What is at `path` for photo `id`, whose chosen size this run is at `url`.
    ///
    /// A file marked as this photo's that no longer starts like an image (emptied by a power cut
    /// after its rename: files are not fsynced one by one) is `none`, so it is saved again.
    func existing(_ path: String, id: PhotoID, url: String) -> Existing {
        let file = filePath(path)
        var info = stat()
        guard lstat(file, &info) == 0 else {
            // NAME.part is where the download goes: a link or a folder there (nothing photos
            // wrote) is not written through; the photo takes the next name.
            if lstat(file + Self.partSuffix, &info) == 0, (info.st_mode & S_IFMT) != S_IFREG { return .taken }
            return .none
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else { return .taken }
        guard let owner = ExtendedAttribute.get(Self.ownerAttribute, path: file) else {
            // Unmarked: a file photos did not save (the user's own, or anything else), which
            // keeps its name; the photo gets the next one. Only where the file system keeps no
            // marks at all is an image there taken for an earlier save of this photo.
            return !ExtendedAttribute.areKept(at: file) && Self.startsLikeAnImage(file) ? .own : .taken
        }
        guard owner == id.description else { return .taken }
        guard Self.startsLikeAnImage(file) else { return .none }
        // Saved by a version that did not record sizes, or from the very URL this run would
        // fetch (a provider with one size answers every --size with it): nothing to change.
        guard let recorded = ExtendedAttribute.get(Self.sizeAttribute, path: file)?.split(separator: "\n", maxSplits: 1),
            recorded.count == 2, let earlier = ImageSizeChoice(rawValue: String(recorded[0])), recorded[1] != url
        else { return .own }
        return earlier.rank < size.rank ? .smaller : earlier.rank > size.rank ? .larger : .own
    }

    /// Whether the file at `path` starts with an image's bytes (its first 12 bytes read).
    static func startsLikeAnImage(_ path: String) -> Bool { imageKind(path) != nil }

    /// The kind of image the file at `path` starts as, if any (its first 12 bytes read).
    static func imageKind(_ path: String) -> ImageKind? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var head = [UInt8](repeating: 0, count: 12)
        let count = head.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, 12) }
        return count > 0 ? ImageKind(sniffing: Data(head.prefix(count))) : nil
    }

    /// Whether `name` ends in an image extension other than `kind`'s (`.jpeg` is `.jpg`).
    static func isMisnamed(_ name: String, as kind: ImageKind) -> Bool {
        guard let dot = name.lastIndex(of: "."), !name[name.index(after: dot)...].contains("/") else { return false }
        var suffix = name[name.index(after: dot)...].lowercased()
        if suffix == "jpeg" { suffix = "jpg" }
        return ImageKind.allCases.contains { $0.fileExtension == suffix } && suffix != kind.fileExtension
    }

    /// Creates the folders of `path` below `--to` (each once per run).
    /// - Throws: the file system's error.
    func prepareFolders(for path: String) throws {
        guard let slash = path.lastIndex(of: "/") else { return }
        let relative = String(path[..<slash])
        guard !folders.withLock({ $0.ready.contains(relative) }) else { return }
        // The folders this makes (each level of `a/b`), for ``removeEmptyFolders()``.
        var missing: [String] = []
        var level = Substring(relative)
        var info = stat()
        while !level.isEmpty, lstat(filePath(String(level)), &info) != 0 {
            missing.append(String(level))
            level = level.lastIndex(of: "/").map { level[..<$0] } ?? ""
        }
        // The nearest level there is must be a folder (or a link to one): a file there (a
        // `--name` whose folder is the name an earlier save gave a file) is said as that, not
        // as the system's "File exists".
        if !level.isEmpty {
            var target = stat()
            let path = filePath(String(level))
            if stat(path, &target) == 0, (target.st_mode & S_IFMT) != S_IFDIR { throw NotAFolder(path: path) }
        }
        do {
            try FileManager.default.createDirectory(at: url(relative), withIntermediateDirectories: true)
        } catch {
            // Levels made before one failed (a name too long, a full disk) go too, if empty.
            folders.withLock { $0.made.append(contentsOf: missing) }
            throw error
        }
        folders.withLock { folders in
            folders.ready.insert(relative)
            folders.made.append(contentsOf: missing)
        }
    }

    /// A file where a photo's name puts a folder.
    struct NotAFolder: Error, CustomStringConvertible {
        let path: String
        var description: String { "\(path) is a file, where the name puts a folder" }
    }

    /// Removes the folders this save made that are still empty (every photo in them failed).
    func removeEmptyFolders() {
        let made = folders.withLock { $0.made }
        // The deepest first: a folder is empty only once the ones in it are gone.
        for relative in made.sorted(by: { $0.utf8.count > $1.utf8.count }) { rmdir(filePath(relative)) }
    }

    // MARK: Saving

    /// Saves one photo whose file is not there yet: copied from the cache when it holds the
    /// image, else downloaded into `NAME.part` (continuing what an earlier run left there).
    func save(_ item: SaveItem) async -> FileOutcome {
        // Paths as strings: a URL's path is worked out again at every use.
        let final = filePath(item.path)
        let part = final + Self.partSuffix
        let lock: PartFileLock?
        do {
            lock = try await PartFileLock.acquire(part) {
                if waitingSaid.claim() { Diagnostics.remark("another photos save is writing some of the same files; waiting for it to finish each") }
            }
        } catch {
            return .cancelled
        }
        // Another save may have written this name since this one looked.
        let outcome = if lock != nil, let changed = changedMeanwhile(item) { changed } else { await saveUnlocked(item, final: final, part: part) }
        if case .diskFull = outcome { diskFull.withLock { $0 = true } }
        if let lock {
            switch outcome {
            case .saved, .skipped: if lock.isEmpty { lock.removeFile() }
            // A full disk: what this run downloaded only in part goes, to give the room back
            // (a save stopped by Ctrl-C keeps its .part files to continue them).
            case .failed, .diskFull, .cancelled:
                if lock.isEmpty || diskFull.withLock({ $0 }) { lock.removeFile() }
            }
            lock.release()
        }
        return outcome
    }

    /// What became of `item`'s name while this save waited for another one writing it: nil when
    /// it is still this save's to write.
    private func changedMeanwhile(_ item: SaveItem) -> FileOutcome? {
        switch existing(item.path, id: item.photo.id, url: item.url) {
        case .none, .smaller: return nil
        case .own, .larger: return completeSkipped(item)
        case .taken:
            return .failed("another photos save wrote a file named \(item.path) meanwhile; run this save again to save the photo under another name", .write)
        }
    }

    private func saveUnlocked(_ item: SaveItem, final: String, part: String) async -> FileOutcome {
        if let cached = item.cachedFile {
            let copied = copy(cached, to: part)
            if let size = copied.size { return publish(item, part: part, final: final, expected: size, contentType: nil) }
            // A full disk ends the save; a cached copy that went away or could not be read is fetched instead.
            if case .diskFull = copied.failure { return copied.failure ?? .cancelled }
        }
        var restarted = false
        while true {
            let response: HTTPResponse
            do {
                response = try await http.download(
                    HTTPRequest(url: item.url, maxBodyBytes: maxImageBytes), resuming: URL(fileURLWithPath: part, isDirectory: false))
            } catch {
                return Self.outcome(for: error)
            }
            if response.status == 416, !restarted {
                // The server cannot continue the .part (it changed, or the .part is whole but was
                // never checked): start again from the first byte (emptied, not removed: its
                // lock is on this file).
                truncate(part, 0)
                restarted = true
                continue
            }
            guard response.isSuccess else {
                let host = URLComponents(string: item.url)?.host ?? "the image host"
                // Gone or refused (404, 410, 403, 400...): as a photo the provider does not have,
                // nothing a retry mends. A server error (5xx), a timeout (408) or a rate limit
                // (429) may pass.
                let status = response.status
                let kind: SaveFailure.Kind =
                    status >= 500 || status == 408 || status == 429 ? .unreachable : (400..<500).contains(status) ? .missing : .other
                return .failed("\(host) answered HTTP \(response.status)", kind)
            }
            let expected: Int?
            if response.status == 206 {
                expected = response.headers["Content-Range"].flatMap(ContentRange.init)?.total
            } else {
                expected = response.headers["Content-Length"].flatMap { Int($0.trimmingWhitespace()) }
            }
            return publish(item, part: part, final: final, expected: expected, contentType: response.headers["Content-Type"])
        }
    }

    /// Checks the complete `.part` (size, image bytes), marks it as this photo's and renames it
    /// to its name; a `.part` that fails a check is removed (it could never become right).
    private func publish(_ item: SaveItem, part: String, final: String, expected: Int?, contentType: String?) -> FileOutcome {
        var info = stat()
        guard lstat(part, &info) == 0 else { return .failed("the downloaded file disappeared before it was checked", .other) }
        let size = Int(info.st_size)
        if let expected, size != expected {
            unlink(part)
            return .failed("the file has \(size) bytes where the server announced \(expected)", .badData)
        }
        guard let kind = Self.imageKind(part) else {
            unlink(part)
            let what = contentType.map { " (the server said \(TerminalText.fit($0, width: 40)))" } ?? ""
            return .failed("not a JPEG, PNG, GIF or WebP image\(what); nothing was saved", .badData)
        }
        // Nothing said how long it is (no Content-Length; a connection closed early ends such a
        // body as its end would): it must end as an image of its kind does, or it is cut short.
        if expected == nil, !kind.endsWhole(path: part) {
            unlink(part)
            return .failed(ImageKind.cutShortReason + "; nothing was saved", .unreachable)
        }
        if Self.isMisnamed(item.path, as: kind) || literalExtension.map({ ($0 == "jpeg" ? "jpg" : $0) != kind.fileExtension }) == true {
            // The example named is the first by name, whichever download ended first.
            let example = "\(item.path) holds a \(kind == .webp ? "WebP" : kind.rawValue.uppercased()) image"
            misnamed.withLock { misnamed in
                misnamed.count += 1
                if misnamed.first.map({ example < $0 }) ?? true { misnamed.first = example }
            }
        }
        if let displaced = item.displaced, Self.sameBytes(part, filePath(displaced), size: size) {
            // The photo is already here under the name it wanted: marked as its own, so that the
            // next run skips it without a download, and this download goes.
            unlink(part)
            let file = filePath(displaced)
            ExtendedAttribute.set(Self.ownerAttribute, item.photo.id.description, path: file)
            ExtendedAttribute.set(Self.sizeAttribute, "\(self.size.rawValue)\n\(item.url)", path: file)
            var there = item
            there.path = displaced
            return completeSkipped(there)
        }
        ExtendedAttribute.set(Self.ownerAttribute, item.photo.id.description, path: part)
        ExtendedAttribute.set(Self.sizeAttribute, "\(self.size.rawValue)\n\(item.url)", path: part)
        guard rename(part, final) == 0 else {
            return Self.fileSystemOutcome(errno, path: final)
        }
        if let wanted = item.wanted {
            let example = "\(item.path), as \(wanted) is not its own"
            renamed.withLock { renamed in
                renamed.count += 1
                if renamed.first.map({ example < $0 }) ?? true { renamed.first = example }
            }
        }
        if metadata, let failure = writeSidecar(item) { return failure }
        return .saved(bytes: size)
    }

    /// Whether the files at `a` and `b` hold the same `size` bytes (read in blocks; a file that
    /// cannot be read is not the same).
    static func sameBytes(_ a: String, _ b: String, size: Int) -> Bool {
        var info = stat()
        guard lstat(b, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, Int(info.st_size) == size else { return false }
        let first = open(a, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        let second = open(b, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        defer {
            if first >= 0 { close(first) }
            if second >= 0 { close(second) }
        }
        guard first >= 0, second >= 0 else { return false }
        let block = 64 * 1024
        var left = [UInt8](repeating: 0, count: block)
        var right = [UInt8](repeating: 0, count: block)
        while true {
            let count = left.withUnsafeMutableBytes { read(first, $0.baseAddress, block) }
            guard count >= 0 else { return false }
            if count == 0 { return right.withUnsafeMutableBytes { read(second, $0.baseAddress, 1) } == 0 }
            var filled = 0
            while filled < count {
                let got = right.withUnsafeMutableBytes { read(second, $0.baseAddress! + filled, count - filled) }
                guard got > 0 else { return false }
                filled += got
            }
            guard memcmp(left, right, count) == 0 else { return false }
        }
    }

    /// Whether what holds `path` below `--to` is something photos did not save: a file it did not
    /// mark (not one it saved for another photo), a folder or a link there, or a link or folder
    /// where its `.part` goes; and whether such a file starts like an image: perhaps a copy of
    /// one it saved.
    func unmarkedFile(_ path: String) -> (isUnmarked: Bool, isImage: Bool) {
        let file = filePath(path)
        var info = stat()
        guard lstat(file, &info) == 0 else {
            return (lstat(file + Self.partSuffix, &info) == 0 && (info.st_mode & S_IFMT) != S_IFREG, false)
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else { return (true, false) }
        guard ExtendedAttribute.get(Self.ownerAttribute, path: file) == nil else { return (false, false) }
        return (true, Self.startsLikeAnImage(file))
    }

    /// Writes the sidecar of an image already there when it is missing.
    func completeSkipped(_ item: SaveItem) -> FileOutcome {
        guard needsSidecar(item) else { return .skipped }
        return writeSidecar(item) ?? .skipped
    }

    /// Whether `item`'s sidecar is wanted (`--metadata`) and missing.
    func needsSidecar(_ item: SaveItem) -> Bool {
        guard metadata else { return false }
        var info = stat()
        return lstat(filePath(item.path) + ".json", &info) != 0
    }

    /// `NAME.json`: the photo as `show --format json` prints it, written to a temporary file
    /// and renamed, so it is whole or absent.
    private func writeSidecar(_ item: SaveItem) -> FileOutcome? {
        let final = url(item.path)
        let photo = item.photo
        let detail = item.detail
            ?? PhotoDetail(photo: photo, takenAt: photo.takenAt, uploadedAt: photo.uploadedAt, tags: photo.tags, sizes: photo.sizes)
        let json: String
        do {
            json = try JSONOutput.encode(PhotoJSON(photo: photo, thumbnailPath: nil, detail: detail, imagePath: final.path), pretty: true) + "\n"
        } catch {
            return .failed("its metadata could not be encoded: \(error)", .other)
        }
        let sidecar = final.path + ".json"
        // A file there that photos did not write (the user's notes) is never written over, as
        // an image's name is not.
        if Self.isForeignSidecar(sidecar, id: photo.id) {
            return .failed("\(item.path).json is a file photos did not write: it is left as it is, and no metadata was written", .other)
        }
        // A short temporary name: the sidecar's own may already be as long as names can be.
        let temporary = final.deletingLastPathComponent().path + "/.photos-" + String(UInt64.random(in: 0...UInt64.max), radix: 16) + ".json"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o666)
        guard descriptor >= 0 else { return Self.fileSystemOutcome(errno, path: sidecar) }
        let failed = Output.writeAll(json, to: descriptor)
        let closed = close(descriptor)
        if let failed {
            unlink(temporary)
            return Self.fileSystemOutcome(failed, path: sidecar)
        }
        ExtendedAttribute.set(Self.ownerAttribute, photo.id.description, path: temporary)
        guard closed == 0, rename(temporary, sidecar) == 0 else {
            let code = errno
            unlink(temporary)
            return Self.fileSystemOutcome(code, path: sidecar)
        }
        return nil
    }

    /// Whether the file at `path` (a sidecar's name) is something photos did not write for
    /// `id`: not marked as this photo's, nor (written before sidecars were marked) this photo's
    /// JSON.
    static func isForeignSidecar(_ path: String, id: PhotoID) -> Bool {
        var info = stat()
        guard lstat(path, &info) == 0 else { return false }
        guard (info.st_mode & S_IFMT) == S_IFREG else { return true }
        if let owner = ExtendedAttribute.get(ownerAttribute, path: path) { return owner != id.description }
        guard info.st_size < 4 << 20, let data = FileManager.default.contents(atPath: path),
            let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any]
        else { return true }
        return object["id"] as? String != id.description
    }

    /// Copies `source` over `part`, in small chunks (the buffer is all the memory it takes).
    private func copy(_ source: URL, to part: String) -> (size: Int?, failure: FileOutcome?) {
        let input = open(source.path, O_RDONLY | O_CLOEXEC)
        guard input >= 0 else { return (nil, .failed("cannot read the cached copy", .other)) }
        defer { close(input) }
        let output = open(part, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0o666)
        guard output >= 0 else { return (nil, Self.fileSystemOutcome(errno, path: part)) }
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        var total = 0
        while true {
            let count = buffer.withUnsafeMutableBytes { read(input, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                close(output)
                return (nil, .failed("cannot read the cached copy", .other))
            }
            if count == 0 { break }
            var offset = 0
            while offset < count {
                let written = buffer.withUnsafeBytes { bytes -> Int in
                    guard let base = bytes.baseAddress else { return 0 }
                    return write(output, base + offset, count - offset)
                }
                if written < 0 {
                    if errno == EINTR { continue }
                    let code = errno
                    close(output)
                    unlink(part)
                    return (nil, Self.fileSystemOutcome(code, path: part))
                }
                offset += written
            }
            total += count
        }
        guard close(output) == 0 else {
            let code = errno
            unlink(part)
            return (nil, Self.fileSystemOutcome(code, path: part))
        }
        // A copy is whole: no resume information may suggest otherwise.
        ExtendedAttribute.remove(ExtendedAttribute.resumableDownload, path: part)
        return (total, nil)
    }

    // MARK: Errors

    static func outcome(for error: any Error) -> FileOutcome {
        switch error {
        case is CancellationError:
            return .cancelled
        case TransportError.fileSystem(let path, let detail):
            if isDiskFull(detail) { return .diskFull("\(path): \(detail)") }
            return .failed("cannot write \(path): \(detail)", .write)
        case let error as TransportError:
            switch error {
            case .tooLarge, .truncated, .protocolError: return .failed(error.description, .badData)
            // A link photos will never follow (file:, plain http to another machine): no retry
            // mends it.
            case .unsupportedScheme, .invalidURL, .tooManyRedirects: return .failed(error.description, .badData)
            default: return .failed(error.description, .unreachable)
            }
        case let error as PhotosError:
            switch error {
            case .badData: return .failed(error.description, .badData)
            // Said after the photo's id: "nasa:X: nasa has no such photo", not the id twice.
            case .notFound(let id): return .failed("\(id.provider) has no such photo", .missing)
            case .unavailable, .offlineNothingCached: return .failed(error.description, .unreachable)
            case .authentication: return .failed(error.description, .authentication)
            default: return .failed(error.description, .other)
            }
        default:
            return .failed(Diagnostics.describe(error), .other)
        }
    }

    static func fileSystemOutcome(_ code: Int32, path: String) -> FileOutcome {
        let detail = String(cString: strerror(code))
        if code == ENOSPC || code == EDQUOT { return .diskFull("\(path): \(detail)") }
        return .failed("cannot write \(path): \(detail)", .write)
    }

    /// The transport reports a full disk in the system's words.
    static func isDiskFull(_ detail: String) -> Bool {
        detail == String(cString: strerror(ENOSPC)) || detail == String(cString: strerror(EDQUOT))
    }
}
