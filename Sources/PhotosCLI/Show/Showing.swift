import Foundation
import PhotosCache
import PhotosCore
import PhotosImaging
import PhotosTerminal
import PhotosTransport

/// Runs `photos show`.
struct Showing {
    let context: CommandContext
    var environment: AppEnvironment { context.environment }

    struct Options: Sendable {
        var format: OutputFormat = .table
        var open = false
        var preview = false
        var graphics: GraphicsMode = .auto
        var mode: ListingMode = .normal
    }

    func run(id text: String, options: Options) async throws {
        guard let typed = PhotoID(text) else {
            throw PhotosError.usage("\(TerminalText.quoted(text)) is not a photo id; ids look like provider:id, e.g. flickr:53624890009 or placeholder:17")
        }
        let cache = context.cache
        let mode = options.mode
        let known = environment.registry.names
        guard let provider = environment.registry.make(typed.provider, context: context.providers) else {
            if typed.isWebAddress { throw PhotosError.usage(PhotoID.webAddressMessage(TerminalText.quoted(text))) }
            throw ProviderSelection.unknownProvider(typed.provider, known: known, origin: " in \(TerminalText.quoted(text))")
        }
        guard let raw = provider.canonicalID(typed.raw) else {
            let form = environment.registry.descriptor(typed.provider).map { ": they look like \($0.idSyntax), e.g. \($0.idExample)" } ?? ""
            throw PhotosError.usage("\(TerminalText.quoted(typed.raw, width: 40)) is not a valid \(typed.provider) photo id\(form)")
        }
        let id = PhotoID(provider: typed.provider, raw: raw)
        let detail: PhotoDetail
        if mode == .offline {
            guard let photo = cache.cachedPhoto(id) else { throw PhotosError.offlineNothingCached("photo \(id)" + cache.noCacheNote) }
            detail = PhotoDetail(photo: photo, tags: photo.tags, sizes: photo.sizes)
        } else {
            do {
                detail = try await provider.detail(id)
                cache.remember(detail)
            } catch {
                guard !(error is CancellationError), PhotoCache.allowsStaleFallback(error), let photo = cache.cachedPhoto(id) else {
                    throw environment.namingEndpoint(error, provider: id.provider)
                }
                Diagnostics.warning("\(id.provider) could not be reached, showing what the cache knows about \(id): \(PhotoCache.describe(error))")
                detail = PhotoDetail(photo: photo, tags: photo.tags, sizes: photo.sizes)
            }
        }

        var imagePath: URL?
        // An image that cannot be had (offline and not cached, not an image) is said after the
        // details, which still print, as when the viewer is missing.
        var openFailure: (any Error)?
        let fetcher = context.imageFetcher(offline: mode == .offline)
        if options.open {
            guard let url = detail.largestImageURL else {
                throw PhotosError.unavailable(provider: id.provider, detail: "\(id) has no image photos may download")
            }
            do {
                imagePath = try await viewable(url, id: id, fetcher: fetcher) { Diagnostics.remark($0) }
            } catch where !(error is CancellationError) {
                openFailure = error
            }
        }
        let preview = options.preview
            ? await drawPreview(detail, opened: imagePath, graphics: options.graphics, cache: cache, fetcher: fetcher) : nil
        // The thumbnail, and the full image when an earlier `--open` (or a save) downloaded it.
        let largest = imagePath == nil ? detail.largestImageURL : nil
        let cached = cache.cachedImages([detail.photo.thumbnailURL, largest].compactMap { $0 })
        let thumbnail = detail.photo.thumbnailURL.flatMap { cached[$0] }
        let file = imagePath ?? largest.flatMap { cached[$0] }

        switch options.format {
        case .json, .jsonl, .grid:
            let json = PhotoJSON(photo: detail.photo, thumbnailPath: thumbnail?.path, detail: detail, imagePath: file?.path)
            try Output.write(try JSONOutput.encode(json, pretty: true) + "\n")
        case .table:
            try Output.write((preview ?? "") + Self.render(detail, imagePath: file, width: environment.reportWidth))
        }
        if let openFailure { throw openFailure }
        if let imagePath { try await launchOpener(imagePath) }
    }

    /// The preview drawn from the opened image, else the largest cached size, else a medium size
    /// fetched now. Problems become a warning: the details still print.
    private func drawPreview(
        _ detail: PhotoDetail, opened: URL?, graphics requested: GraphicsMode, cache: PhotoCache, fetcher: ImageFetcher
    ) async -> String? {
        let graphics = environment.graphics(requested)
        guard graphics.mode != .none else {
            // Asked for no pictures: nothing to say. Otherwise detection found no way to draw.
            if requested != .none {
                let term = environment.environment["TERM"] ?? ""
                // TERM=dumb counts as no terminal for output: said as what it is.
                let why = isatty(STDOUT_FILENO) != 1 ? "stdout is not a terminal"
                    : term.isEmpty ? "TERM is not set" : "TERM=\(term) draws no pictures"
                Diagnostics.remark("no preview: \(why) (force one with --graphics symbols)")
            }
            return nil
        }
        let candidates = Self.previewCandidates(detail)
        var file = opened
        if file == nil {
            let cached = cache.cachedImages(candidates)
            file = candidates.lazy.compactMap { cached[$0] }.first
        }
        do {
            if file == nil, let medium = Self.mediumSize(detail) {
                file = try await fetcher.fetch(medium, provider: detail.photo.provider)
            }
            guard let file else {
                Diagnostics.warning("no preview: \(detail.photo.id) has no image photos may download")
                return nil
            }
            let rows = TerminalGraphics.rows(of: STDOUT_FILENO).map { max(8, $0 - 12) }
            return try Preview.render(
                path: file, maxColumns: min(environment.terminalWidth, 100), maxRows: rows, graphics: graphics,
                cache: environment.tileCache) + "\n"
        } catch is CancellationError {
            return nil
        } catch {
            Diagnostics.warning("no preview: \(PhotoCache.describe(error))")
            return nil
        }
    }

    /// Image URLs of the photo, largest first.
    static func previewCandidates(_ detail: PhotoDetail) -> [String] {
        var urls = detail.sizes.sorted { $0.longestEdge > $1.longestEdge }.map(\.url).filter(URLPolicy.isAllowed)
        for url in [detail.photo.imageURL, detail.photo.thumbnailURL].compactMap({ $0 }) where URLPolicy.isAllowed(url) {
            if !urls.contains(url) { urls.append(url) }
        }
        return urls
    }

    /// A size big enough for a terminal preview without fetching the original: the smallest with
    /// a longest edge of at least 500 px and at most 1024, else the photo's image.
    static func mediumSize(_ detail: PhotoDetail) -> String? {
        let usable = detail.sizes.filter { URLPolicy.isAllowed($0.url) }
        return usable.filter { (500...1024).contains($0.longestEdge) }.min { $0.longestEdge < $1.longestEdge }?.url
            ?? detail.photo.imageURL.flatMap { URLPolicy.isAllowed($0) ? $0 : nil }
            ?? usable.min { $0.longestEdge < $1.longestEdge }?.url
    }

    /// The detail as rows of label and value, the values wrapped at `width` columns (nil: one
    /// line each) under their column; a URL or path is never cut or broken.
    static func render(_ detail: PhotoDetail, imagePath: URL?, width: Int?) -> String {
        let photo = detail.photo
        var rows: [(String, String)] = [
            ("ID", photo.id.description),
            ("Title", TerminalText.title(photo.title)),
        ]
        if let owner = photo.owner, TerminalText.showsSomething(owner) { rows.append(("Owner", owner)) }
        if let description = detail.description, !description.isEmpty { rows.append(("Description", description)) }
        if let taken = detail.takenAt ?? photo.takenAt { rows.append(("Taken", taken.formatted(.iso8601))) }
        if let uploaded = detail.uploadedAt ?? photo.uploadedAt { rows.append(("Uploaded", uploaded.formatted(.iso8601))) }
        let tags = (detail.tags.isEmpty ? photo.tags : detail.tags).filter(TerminalText.showsSomething)
        if !tags.isEmpty { rows.append(("Tags", tags.joined(separator: ", "))) }
        for key in detail.extra.keys.sorted() {
            let label = key.replacingOccurrences(of: "_", with: " ")
            rows.append((label.prefix(1).uppercased() + label.dropFirst(), detail.extra[key] ?? ""))
        }
        if let page = photo.pageURL { rows.append(("Page", page)) }
        // `Image` is the JSON's `image_url` (the size a listing shows); `Largest`, when it is
        // another, is what `--open` and `save --size original` download.
        if let image = photo.imageURL, URLPolicy.isAllowed(image) { rows.append(("Image", image)) }
        if let largest = detail.largestImageURL, largest != photo.imageURL { rows.append(("Largest", largest)) }
        for size in detail.sizes.sorted(by: { $0.longestEdge < $1.longestEdge }) {
            rows.append(("Size", "\(size.label) \(Self.dimensions(size))"))
        }
        if let imagePath { rows.append(("File", imagePath.path)) }

        return TerminalText.labelled(rows, width: width, whole: ["ID", "Page", "Image", "Largest", "File"])
    }

    /// A size's dimensions as far as the provider gave them (Openverse names its thumbnail
    /// without any).
    static func dimensions(_ size: PhotoSize) -> String {
        switch (size.width, size.height) {
        case let (width?, height?): "\(width)×\(height)"
        case let (width?, nil): "\(width) px wide"
        case let (nil, height?): "\(height) px high"
        case (nil, nil): "(dimensions not given)"
        }
    }

    /// The downloaded image as a file the desktop may open: its bytes must be an image (a web
    /// page or an archive served as a "photo" is refused, exit 65), and its name ends in the
    /// extension of what it is, not of what its URL said.
    /// A private folder in TMPDIR for images the cache cannot hold or name (a read-only cache).
    static var outsideFolder: URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("photos-\(geteuid())", isDirectory: true)
    }

    /// The full image at `url`, fetched (into the cache, else into ``outsideFolder``) and named
    /// as a viewer needs it; `note` hears why it is outside the cache, when it is.
    func viewable(_ url: String, id: PhotoID, fetcher: ImageFetcher, note: (String) -> Void) async throws -> URL {
        let fetched = try await fetcher.fetchForViewing(url, provider: id.provider, outside: Self.outsideFolder)
        if let reason = fetched.notCached {
            note("the cache cannot keep the image (\(reason)); it was downloaded to \(fetched.file.path)")
        }
        return try openable(fetched.file, id: id)
    }

    func openable(_ file: URL, id: PhotoID) throws -> URL {
        guard let kind = ImageKind(file: file) else {
            throw PhotosError.badData(
                provider: id.provider, detail: "the full image of \(id) is not a JPEG, PNG, GIF or WebP image; it was not opened")
        }
        guard file.pathExtension.lowercased() != kind.fileExtension else { return file }
        let name = file.deletingPathExtension().lastPathComponent + "." + kind.fileExtension
        do {
            let folder = environment.cacheRoot.appendingPathComponent(CacheLayout.openedFolder, isDirectory: true)
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            return try Self.link(file, as: folder.appendingPathComponent(name))
        } catch {
            // A cache that cannot be written (read-only): named in the private folder instead.
            try ImageFetcher.preparePrivateFolder(Self.outsideFolder)
            return try Self.link(file, as: Self.outsideFolder.appendingPathComponent(name))
        }
    }

    /// `file` under the name `named`: a hard link, else a copy.
    private static func link(_ file: URL, as named: URL) throws -> URL {
        try? FileManager.default.removeItem(at: named)
        do {
            try FileManager.default.linkItem(at: file, to: named)
        } catch {
            try FileManager.default.copyItem(at: file, to: named)
        }
        return named
    }

    /// Runs the opener with the path as its last argument, without a shell.
    func launchOpener(_ file: URL) async throws {
        let viewer = try opener(for: file)
        let pid = try viewer.start(output: .standardError, file: file)
        // A viewer that failed (xdg-open that found no program for images, a viewer that could
        // not read the file) showed nothing: said as an error, with 69 as for no viewer at all,
        // so that `photos show ID --open || ...` sees it.
        if let status = try await Viewer.waitAsync(pid), status != 0 {
            throw PhotosError.unavailable(provider: "opener", detail: "\(viewer.name) exited with status \(status); the image is at \(file.path)")
        }
    }

    /// The viewer (PHOTOS_OPENER, else xdg-open or open) set up to open `file`, not yet started:
    /// the path is its last argument, never passed through a shell. PHOTOS_OPENER names a
    /// program, or a program and its options split at spaces (`feh --fullscreen`).
    /// - Throws: `PhotosError.unavailable` when the program cannot be found.
    func opener(for file: URL) throws -> Viewer {
        let opener = environment.settings["PHOTOS_OPENER"] ?? {
            #if os(macOS)
            return "open"
            #else
            return "xdg-open"
            #endif
        }()
        let path = environment.environment["PATH"] ?? "/usr/bin:/bin"
        // The whole value first: a program whose path holds spaces.
        var options: [String] = []
        var executable = Self.findExecutable(opener, path: path)
        var words = [opener]
        if executable == nil {
            // Words as a shell splits them (quotes keep a path with spaces whole), never expanded;
            // a value whose quotes do not pair (`/home/o'brien/view --full`) at spaces alone.
            words = Self.words(opener) ?? opener.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
            let split = words
            if let first = split.first, let program = Self.findExecutable(first, path: path) {
                executable = program
                options = Array(split.dropFirst())
            }
        }
        guard let executable else {
            let name = words.count > 1 && !opener.hasPrefix("/") ? words[0] : (words.count == 1 ? words[0] : opener)
            // A value that opens a quote it never closes (a path with an apostrophe in it,
            // `/home/o'brien/view`, is said as a program not found).
            if Self.words(opener) == nil, opener.first == "\"" || opener.first == "'" {
                throw PhotosError.usage(
                    "PHOTOS_OPENER \(TerminalText.quoted(opener)) has a quote that is not closed, and names no program as it is; close the quote, or write a path with spaces in quotes: PHOTOS_OPENER='\"/opt/my viewer/view\" --full'")
            }
            throw PhotosError.unavailable(
                provider: "opener",
                detail: "no program \(TerminalText.quoted(name)) to open the image with (set PHOTOS_OPENER or config [defaults] opener to a viewer); the image is at \(file.path)")
        }
        return Viewer(executable: executable, arguments: options + [file.path])
    }

    /// `text` split into words at spaces and tabs, as a shell would, without expanding anything:
    /// '...' keeps everything, "..." keeps all but `\"` and `\\`, and a backslash outside
    /// quotes keeps the next character. Nil when a quote is not closed.
    static func words(_ text: String) -> [String]? {
        var words: [String] = []
        var current = ""
        var inWord = false
        var quote: Character?
        var escaped = false
        var pendingBackslash = false
        for character in text {
            if escaped {
                if pendingBackslash, !"\"\\$`".contains(character) { current.append("\\") }
                current.append(character)
                escaped = false
                pendingBackslash = false
                continue
            }
            switch (quote, character) {
            case ("'", "'"), ("\"", "\""):
                quote = nil
            case ("'", _):
                current.append(character)
            case (nil, "\\"):
                escaped = true
                inWord = true
            case ("\"", "\\"):
                // Inside "...", a backslash escapes only what the shell lets it: " \\ $ `.
                escaped = true
                pendingBackslash = true
            case ("\"", _):
                current.append(character)
            case (nil, "'"), (nil, "\""):
                quote = character
                inWord = true
            case (nil, " "), (nil, "\t"):
                if inWord { words.append(current) }
                current = ""
                inWord = false
            default:
                current.append(character)
                inWord = true
            }
        }
        guard quote == nil, !escaped else { return nil }
        if inWord { words.append(current) }
        return words
    }

    static func findExecutable(_ name: String, path: String) -> String? {
        if name.contains("/") { return isProgram(name) ? name : nil }
        for folder in path.split(separator: ":") {
            let candidate = "\(folder)/\(name)"
            if isProgram(candidate) { return candidate }
        }
        return nil
    }

    /// An executable file: a folder's search bit is not a program (`PHOTOS_OPENER=/tmp`).
    private static func isProgram(_ path: String) -> Bool {
        var info = stat()
        guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return false }
        return access(path, X_OK) == 0
    }
}
