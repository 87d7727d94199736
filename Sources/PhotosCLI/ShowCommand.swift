import ArgumentParser
import Foundation
import PhotosCache
import PhotosCore
import PhotosTerminal

extension PhotosCommand {
    /// `photos show ID`: every detail of one photo; `--open` fetches the full image and opens it.
    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show every detail of one photo, optionally opening the full image.",
            discussion: """
                ID is provider:id, as `photos list` prints it.

                --open downloads the largest allowed size into the cache and runs PHOTOS_OPENER \
                (default: xdg-open on Linux, open on macOS) with the file's path as its only \
                argument (never through a shell).

                Details always come from the provider; with --offline (or when the provider \
                cannot be reached) photos shows what a cached listing knows about the photo.

                Examples:
                  photos show flickr:53624890009
                  photos show placeholder:17 --format json
                  photos show flickr:53624890009 --open
                  PHOTOS_OPENER=feh photos show placeholder:1 --open
                """
        )

        @Argument(help: ArgumentHelp("The photo, as provider:id. Example: flickr:53624890009", valueName: "id"))
        var id: String

        @Flag(help: "Download the full-size image into the cache and open it with PHOTOS_OPENER.")
        var open = false

        @OptionGroup var output: OutputOptions

        @OptionGroup var cacheOptions: CacheOptions

        func validate() throws {
            if output.format == .jsonl { throw ValidationError("show prints one photo: use --format table or json") }
        }

        func run() async throws {
            let (id, format, open, mode) = (id, output.format, open, cacheOptions.mode)
            try await CommandRuntime.run {
                let environment = try AppEnvironment.load()
                try await Showing(environment: environment).run(id: id, format: format, open: open, mode: mode)
            }
        }
    }
}

/// Runs `photos show`.
struct Showing {
    let environment: AppEnvironment

    func run(id text: String, format: OutputFormat, open: Bool, mode: ListingMode = .normal) async throws {
        guard let id = PhotoID(text) else {
            throw PhotosError.usage("'\(text)' is not a photo id; ids look like provider:id, e.g. flickr:53624890009 or placeholder:17")
        }
        let cache = try environment.makeCache()
        defer { cache.close() }
        let transport: any HTTPFetching = mode == .offline ? NoNetwork() : try environment.makeTransport()
        do {
            try await run(id: id, text: text, format: format, open: open, mode: mode, cache: cache, transport: transport)
        } catch {
            if !(error is CancellationError) && !Task.isCancelled { cache.finish(command: "show") }
            throw error
        }
        cache.finish(command: "show")
    }

    private func run(
        id: PhotoID, text: String, format: OutputFormat, open: Bool, mode: ListingMode, cache: PhotoCache, transport: any HTTPFetching
    ) async throws {
        let known = environment.registry.names
        guard let provider = environment.registry.make(id.provider, context: environment.context(http: transport)) else {
            throw PhotosError.usage("unknown provider '\(id.provider)' in \(text); choose from \(known.joined(separator: ", "))")
        }
        guard provider.isValidID(id.raw) else {
            throw PhotosError.usage("'\(id.raw)' is not a valid \(id.provider) photo id")
        }
        let detail: PhotoDetail
        if mode == .offline {
            guard let photo = cache.cachedPhoto(id) else { throw PhotosError.offlineNothingCached("photo \(id)") }
            detail = PhotoDetail(photo: photo, tags: photo.tags)
        } else {
            do {
                detail = try await provider.detail(id)
            } catch {
                guard !(error is CancellationError), PhotoCache.allowsStaleFallback(error), let photo = cache.cachedPhoto(id) else { throw error }
                Diagnostics.warning("\(id.provider) could not be reached, showing what the cache knows about \(id): \(PhotoCache.describe(error))")
                detail = PhotoDetail(photo: photo, tags: photo.tags)
            }
        }

        var imagePath: URL?
        if open {
            guard let url = detail.largestImageURL else {
                throw PhotosError.unavailable(provider: id.provider, detail: "\(id) has no image photos may download")
            }
            let fetcher = ImageFetcher(cache: cache, http: transport, offline: mode == .offline)
            imagePath = try await fetcher.fetch(url, provider: id.provider)
        }
        let thumbnail = detail.photo.thumbnailURL.flatMap { cache.cachedImages([$0])[$0] }

        switch format {
        case .json, .jsonl:
            let json = PhotoJSON(photo: detail.photo, thumbnailPath: thumbnail?.path, detail: detail, imagePath: imagePath?.path)
            Output.write(try JSONOutput.encode(json, pretty: true) + "\n")
        case .table:
            Output.write(Self.render(detail, imagePath: imagePath, width: environment.terminalWidth))
        }
        if let imagePath { try launchOpener(imagePath) }
    }

    static func render(_ detail: PhotoDetail, imagePath: URL?, width: Int) -> String {
        let photo = detail.photo
        var rows: [(String, String)] = [
            ("ID", photo.id.description),
            ("Title", photo.title.isEmpty ? "(untitled)" : photo.title),
        ]
        if let owner = photo.owner { rows.append(("Owner", owner)) }
        if let description = detail.description, !description.isEmpty { rows.append(("Description", description)) }
        if let taken = detail.takenAt ?? photo.takenAt { rows.append(("Taken", taken.formatted(.iso8601))) }
        if let uploaded = detail.uploadedAt ?? photo.uploadedAt { rows.append(("Uploaded", uploaded.formatted(.iso8601))) }
        let tags = detail.tags.isEmpty ? photo.tags : detail.tags
        if !tags.isEmpty { rows.append(("Tags", tags.joined(separator: ", "))) }
        for key in detail.extra.keys.sorted() {
            let label = key.replacingOccurrences(of: "_", with: " ")
            rows.append((label.prefix(1).uppercased() + label.dropFirst(), detail.extra[key] ?? ""))
        }
        if let page = photo.pageURL { rows.append(("Page", page)) }
        if let image = detail.largestImageURL { rows.append(("Image", image)) }
        for size in detail.sizes.sorted(by: { $0.longestEdge < $1.longestEdge }) {
            let dimensions = size.width.flatMap { w in size.height.map { "\(w)×\($0)" } } ?? "?"
            rows.append(("Size", "\(size.label) \(dimensions)"))
        }
        if let imagePath { rows.append(("File", imagePath.path)) }

        let labelWidth = rows.map { $0.0.count }.max() ?? 0
        let valueWidth = max(20, width - labelWidth - 2)
        return rows.map { label, value in
            TerminalText.pad(label, width: labelWidth) + "  " + TerminalText.fit(value, width: valueWidth)
        }.joined(separator: "\n") + "\n"
    }

    /// Runs the opener with the path as its only argument, without a shell.
    func launchOpener(_ file: URL) throws {
        let opener = environment.settings["PHOTOS_OPENER"] ?? {
            #if os(macOS)
            return "open"
            #else
            return "xdg-open"
            #endif
        }()
        guard let executable = Self.findExecutable(opener, path: environment.environment["PATH"] ?? "/usr/bin:/bin") else {
            throw PhotosError.unavailable(
                provider: "opener",
                detail: "no program '\(opener)' to open the image with; the image is at \(file.path) (set PHOTOS_OPENER to a viewer)")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = [file.path]
        do {
            try process.run()
        } catch {
            throw PhotosError.unavailable(
                provider: "opener", detail: "cannot run \(executable): \(error.localizedDescription); the image is at \(file.path)")
        }
        process.waitUntilExit()
        if process.terminationStatus != 0 {
            Diagnostics.warning("\(opener) exited with status \(process.terminationStatus); the image is at \(file.path)")
        }
    }

    static func findExecutable(_ name: String, path: String) -> String? {
        if name.contains("/") { return FileManager.default.isExecutableFile(atPath: name) ? name : nil }
        for folder in path.split(separator: ":") {
            let candidate = "\(folder)/\(name)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }
}
