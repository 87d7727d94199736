import Foundation
import PhotosCache
import PhotosCore
import PhotosImaging
import PhotosTerminal
import PhotosTransport
import Synchronization

/// What `photos list` was asked for, parsed.
struct ListingRequest: Sendable {
    var providers: String?
    var text: String?
    /// `--filter key=value` pairs (and `--album N` as `album=N`), as typed.
    var filters: [(key: String, value: String)] = []
    var page: Int
    var perPage: Int?
    var limit: Int?
    var walkAll: Bool
    var thumbnails: Bool
    var format: OutputFormat
    var columns: Int = 3
    var graphics: GraphicsMode = .auto
    var mode: ListingMode = .normal
}

/// One provider's share of a listing.
struct ProviderListing: Sendable {
    var name: String
    var firstPage: Int
    var lastPage: Int
    var perPage: Int
    var total: Int?
    var hasMore: Bool
    var photos: [Photo]
    /// Set when a later page failed after earlier ones arrived.
    var partialError: String?
    /// Whether every page came from the cache (fresh, revalidated, offline or stale).
    var cached = false
    /// Seconds since the network last confirmed the oldest page (0 when fetched now).
    var age: TimeInterval = 0
    /// Pages served stale because the network failed.
    var stale: [StalePage] = []
}

/// What one provider's task produced (a struct: tuples of existentials through a task group
/// crashed in release builds).
struct ProviderOutcome: Sendable {
    var index: Int
    var name: String
    var result: Result<ProviderListing, any Error>
}

/// A page served from the cache because the network failed: which, how old, and why.
struct StalePage: Sendable {
    var page: Int
    var age: TimeInterval
    var reason: String
}

/// Runs `photos list`: providers concurrently, pages walked, thumbnails fetched, output printed.
struct Listing {
    let environment: AppEnvironment

    static let defaultPerPage = 30

    func run(_ request: ListingRequest) async throws {
        let names = try resolveProviders(request.providers, filters: request.filters)
        let cache = try environment.makeCache()
        defer { cache.close() }
        // Offline never starts libcurl: the warm path stays a few milliseconds.
        let transport: any HTTPFetching = request.mode == .offline ? NoNetwork() : try environment.makeTransport()
        defer { (transport as? CurlTransport)?.shutdown() }
        do {
            try await run(request, names: names, cache: cache, transport: transport)
        } catch {
            if !(error is CancellationError) && !Task.isCancelled { cache.finish(command: "list") }
            throw error
        }
        cache.finish(command: "list")
    }

    private func run(_ request: ListingRequest, names: [String], cache: PhotoCache, transport: any HTTPFetching) async throws {
        let context = environment.context(http: transport)

        let outcomes = await withTaskGroup(of: ProviderOutcome.self) { group in
            for (index, name) in names.enumerated() {
                group.addTask {
                    guard let provider = environment.registry.make(name, context: context) else {
                        return ProviderOutcome(index: index, name: name, result: .failure(PhotosError.usage("unknown provider \(name)")))
                    }
                    do {
                        return ProviderOutcome(index: index, name: name, result: .success(try await fetch(request, from: provider, cache: cache)))
                    } catch {
                        return ProviderOutcome(index: index, name: name, result: .failure(error))
                    }
                }
            }
            var outcomes: [ProviderOutcome] = []
            for await outcome in group { outcomes.append(outcome) }
            return outcomes.sorted { $0.index < $1.index }.map { ($0.name, $0.result) }
        }
        try Task.checkCancellation()

        var listings: [ProviderListing] = []
        var failures: [(String, any Error)] = []
        for (name, outcome) in outcomes {
            switch outcome {
            case .success(let listing):
                listings.append(listing)
                if let partial = listing.partialError {
                    Diagnostics.warning("\(name): stopped after page \(listing.lastPage): \(partial)")
                }
                for stale in listing.stale {
                    let what = listing.firstPage == listing.lastPage ? "the cached listing" : "the cached page \(stale.page)"
                    Diagnostics.warning(
                        "\(name): could not refresh, showing \(what) from \(AgeText.format(stale.age)) ago: \(stale.reason)")
                }
            case .failure(let error):
                failures.append((name, error))
            }
        }
        if listings.isEmpty, let (_, error) = failures.first {
            if failures.count > 1 {
                for (name, error) in failures.dropFirst() { Diagnostics.error("\(name): \(describe(error))") }
            }
            throw error
        }
        for (name, error) in failures {
            Diagnostics.warning("\(name) failed, listing the others: \(describe(error))")
        }

        let photos = Self.interleave(listings.map(\.photos))
        var thumbnails = Thumbnails()
        if request.thumbnails {
            thumbnails = await fetchThumbnails(photos, cache: cache, http: transport, offline: request.mode == .offline, context: context)
            try Task.checkCancellation()
        }
        try print(listings: listings, photos: photos, thumbnails: thumbnails, request: request)
    }

    // MARK: Providers

    /// The providers a listing asks: those named (`a,b`), every ready one (`all`), or, when none
    /// is named, the config's `[defaults] provider`, else every ready provider of real photos.
    /// With filters, only providers that understand them: a named one that does not is a usage
    /// error naming the filters it knows.
    func resolveProviders(_ spec: String?, filters: [(key: String, value: String)] = []) throws -> [String] {
        let registry = environment.registry
        let known = registry.names
        let requested = (spec ?? environment.defaultProviders ?? "")
            .split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }.filter { !$0.isEmpty }
        if spec != nil, requested.isEmpty {
            throw PhotosError.usage("--provider needs a name: \(known.joined(separator: ", ")) or all")
        }
        var names: [String] = []
        let chosenByPhotos = requested.isEmpty || requested == ["all"]
        if requested.isEmpty {
            names = environment.readyProviders.filter { !$0.isSampleData }.map(\.name)
            guard !names.isEmpty else {
                throw PhotosError.usage("no provider is ready to use; see photos providers, or name one with --provider")
            }
        } else if requested == ["all"] {
            for descriptor in registry.descriptors {
                if descriptor.isConfigured(environment.settings) {
                    names.append(descriptor.name)
                } else {
                    let needs = descriptor.requiredSettings.map(\.variable).joined(separator: " and ")
                    Diagnostics.note("note: \(descriptor.name) skipped: it needs \(needs) (see photos providers)")
                }
            }
        } else {
            for name in requested {
                guard known.contains(name) else {
                    throw PhotosError.usage("unknown provider '\(name)'; choose from \(known.joined(separator: ", ")) or all")
                }
                if !names.contains(name) { names.append(name) }
            }
        }
        guard !filters.isEmpty else { return names }

        var understood: [String] = []
        for name in names {
            guard let descriptor = registry.descriptor(name) else { continue }
            if let unknown = filters.first(where: { descriptor.filter(named: $0.key) == nil }) {
                let knows = descriptor.filters.isEmpty ? "it has no filters" : "it knows \(descriptor.filters.map(\.name).joined(separator: ", "))"
                if !chosenByPhotos {
                    throw PhotosError.usage("\(name) has no filter '\(unknown.key)'; \(knows)")
                }
                Diagnostics.note("note: \(name) skipped: it has no filter '\(unknown.key)'")
                continue
            }
            for (key, value) in filters {
                try descriptor.filter(named: key)?.validate(value, provider: name)
            }
            understood.append(name)
        }
        guard !understood.isEmpty else {
            let keys = Set(filters.map(\.key)).sorted().joined(separator: ", ")
            let offers = registry.descriptors.filter { !$0.filters.isEmpty }
                .map { "\($0.name): \($0.filters.map(\.name).joined(separator: ", "))" }.joined(separator: "; ")
            throw PhotosError.usage("no provider has the filter \(keys); filters by provider: \(offers)")
        }
        return understood
    }

    /// `filters` under the names `descriptor` uses (its aliases resolved), later values winning.
    static func canonicalFilters(_ filters: [(key: String, value: String)], for descriptor: ProviderDescriptor) -> [String: String] {
        var result: [String: String] = [:]
        for (key, value) in filters {
            result[descriptor.filter(named: key)?.name ?? key] = value
        }
        return result
    }

    func fetch(_ request: ListingRequest, from provider: any PhotoProvider, cache: PhotoCache) async throws -> ProviderListing {
        let perPage = min(request.perPage ?? request.limit.map { min($0, provider.maxPerPage) } ?? Self.defaultPerPage, provider.maxPerPage)
        let filters = environment.registry.descriptor(provider.name).map { Self.canonicalFilters(request.filters, for: $0) } ?? [:]
        let walks = request.walkAll || request.limit != nil
        var listing = ProviderListing(
            name: provider.name, firstPage: request.page, lastPage: request.page, perPage: perPage,
            total: nil, hasMore: false, photos: [])
        var page = request.page
        var allCached = true
        while true {
            let result: PhotoPage
            do {
                let answer = try await cache.listing(
                    ListQuery(text: request.text, page: page, perPage: perPage, filters: filters), from: provider, mode: request.mode)
                result = answer.page
                allCached = allCached && answer.fromCache
                listing.cached = allCached
                listing.age = max(listing.age, answer.age)
                if case .stale(let reason) = answer.origin { listing.stale.append(StalePage(page: page, age: answer.age, reason: reason)) }
            } catch {
                if listing.photos.isEmpty || error is CancellationError { throw error }
                listing.partialError = describe(error)
                return listing
            }
            listing.photos += result.photos
            listing.lastPage = page
            listing.total = result.total
            listing.hasMore = result.hasMore
            if let limit = request.limit, listing.photos.count >= limit {
                listing.photos = Array(listing.photos.prefix(limit))
                break
            }
            guard walks, result.hasMore, !result.photos.isEmpty else { break }
            page += 1
        }
        return listing
    }

    /// Merges providers' photos round-robin, so that every provider shows near the top.
    static func interleave(_ lists: [[Photo]]) -> [Photo] {
        var merged: [Photo] = []
        merged.reserveCapacity(lists.reduce(0) { $0 + $1.count })
        let longest = lists.map(\.count).max() ?? 0
        for index in 0..<longest {
            for list in lists where index < list.count { merged.append(list[index]) }
        }
        return merged
    }

    // MARK: Thumbnails

    /// Thumbnail files by URL, and which of them photos drew itself.
    struct Thumbnails {
        var files: [String: URL] = [:]
        var synthesized: Set<String> = []

        func path(_ photo: Photo) -> String? { photo.thumbnailURL.flatMap { files[$0]?.path } }
        func isSynthesized(_ photo: Photo) -> Bool { photo.thumbnailURL.map(synthesized.contains) ?? false }
    }

    func fetchThumbnails(
        _ photos: [Photo], cache: PhotoCache, http: any HTTPFetching, offline: Bool, context: ProviderContext
    ) async -> Thumbnails {
        let items = photos.compactMap { photo in photo.thumbnailURL.map { (url: $0, provider: Optional(photo.provider)) } }
        let urls = items.map(\.url)
        guard !urls.isEmpty else { return Thumbnails() }
        let fetcher = ImageFetcher(cache: cache, http: http, offline: offline)
        let bar = Mutex<ProgressBar?>(nil)
        var batch = await fetcher.fetchAll(items) { downloads in
            guard downloads > 0 else { return }
            bar.withLock {
                $0 = ProgressBar(label: "Thumbnails", total: downloads, enabled: environment.stderrIsTerminal, write: { Diagnostics.raw($0) })
            }
        } progress: { failed in
            bar.withLock { $0?.advance(failed: failed) }
        }
        bar.withLock { $0?.finish() }
        let drawn = synthesizeMissing(items, batch: &batch, offline: offline, context: context)
        if batch.notCached > 0 {
            Diagnostics.note("note: \(batch.notCached) of \(Set(urls).count) thumbnails are not cached (--offline)")
        }
        if batch.failed > 0 {
            var parts = batch.failuresByHost.sorted { $0.key < $1.key }.map { host, failure in
                "\(failure.count) from \(host) (\(failure.error))"
            }
            if batch.refused > 0 { parts.append("\(batch.refused) refused (not an http or https URL)") }
            Diagnostics.warning("\(batch.failed) of \(Set(urls).count) thumbnails could not be fetched: \(parts.joined(separator: "; "))")
        }
        return Thumbnails(files: batch.files, synthesized: drawn)
    }

    /// Draws the thumbnails whose host failed (or, offline, were drawn before) when their
    /// provider says what they show (jsonplaceholder's coloured squares), and takes them out of
    /// the batch's failures. Says once what it did.
    private func synthesizeMissing(
        _ items: [(url: String, provider: String?)], batch: inout ImageFetcher.Batch, offline: Bool, context: ProviderContext
    ) -> Set<String> {
        let folder = environment.cacheRoot.appendingPathComponent("synthesized", isDirectory: true)
        var providers: [String: any PhotoProvider] = [:]
        var drawn: Set<String> = []
        var hosts: Set<String> = []
        for (url, name) in items where batch.files[url] == nil && !drawn.contains(url) {
            let host = ImageFetcher.host(url)
            guard offline || batch.failuresByHost[host] != nil, let name else { continue }
            if providers[name] == nil { providers[name] = environment.registry.make(name, context: context) }
            guard let picture = providers[name]?.syntheticImage(for: url) else { continue }
            let file = folder.appendingPathComponent(picture.fileName)
            do {
                if !FileManager.default.fileExists(atPath: file.path) {
                    guard !offline else { continue }
                    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
                    try SyntheticImageRenderer.png(picture).write(to: file, options: .atomic)
                }
            } catch {
                Diagnostics.warning("could not draw a thumbnail for \(host): \(error)")
                continue
            }
            batch.files[url] = file
            drawn.insert(url)
            hosts.insert(host)
            if let failure = batch.failuresByHost[host] {
                batch.failuresByHost[host] = failure.count > 1 ? (failure.error, failure.count - 1) : nil
            } else if offline {
                batch.notCached -= 1
            }
        }
        if !drawn.isEmpty, !offline {
            let names = hosts.sorted().joined(separator: ", ")
            Diagnostics.note(
                "note: \(names) cannot be reached; drew \(drawn.count) thumbnails from what their URLs describe (thumbnail_synthesized in JSON)")
        }
        return drawn
    }

    // MARK: Output

    func print(listings: [ProviderListing], photos: [Photo], thumbnails: Thumbnails, request: ListingRequest) throws {
        let path = thumbnails.path
        switch request.format {
        case .json:
            let totals = listings.map(\.total)
            let document = ListingJSON(
                page: request.page, perPage: listings.first?.perPage ?? request.perPage ?? Self.defaultPerPage,
                total: totals.contains(where: { $0 == nil }) ? nil : totals.compactMap { $0 }.reduce(0, +),
                hasMore: listings.contains(where: \.hasMore),
                photos: photos.map { PhotoJSON(photo: $0, thumbnailPath: path($0), thumbnailSynthesized: thumbnails.isSynthesized($0)) },
                providers: listings.map {
                    .init(
                        name: $0.name, firstPage: $0.firstPage, lastPage: $0.lastPage, total: $0.total, hasMore: $0.hasMore,
                        count: $0.photos.count, cached: $0.cached, ageSeconds: Int($0.age))
                },
                cached: !listings.isEmpty && listings.allSatisfy(\.cached),
                ageSeconds: Int(listings.map(\.age).max() ?? 0))
            Output.write(try JSONOutput.encode(document, pretty: true) + "\n")
        case .jsonl:
            var text = ""
            for photo in photos { text += try JSONOutput.encode(PhotoJSON(photo: photo, thumbnailPath: path(photo), thumbnailSynthesized: thumbnails.isSynthesized(photo)), pretty: false) + "\n" }
            Output.write(text)
        case .grid where !photos.isEmpty:
            let graphics = environment.graphics(request.graphics)
            guard graphics.mode != .none else { fallthrough }  // not a terminal: the plain table
            let tiles = photos.map { photo in
                GridTile(title: photo.title, id: photo.id.description, imagePath: path(photo).map { URL(fileURLWithPath: $0) })
            }
            let grid = ThumbnailGrid.render(
                tiles: tiles, columns: request.columns, terminalColumns: environment.terminalWidth, graphics: graphics,
                cache: environment.tileCache)
            Output.write(grid.text)
            if grid.failures > 0 {
                Diagnostics.warning("\(grid.failures) of \(tiles.count) thumbnails could not be shown (placeholder tiles)")
            }
            printNextPageHint(listings: listings, request: request)
        case .table, .grid:
            guard !photos.isEmpty else {
                Diagnostics.note(request.text.map { "No photos match \"\($0)\"." } ?? "No photos.")
                return
            }
            var table = Table(columns: [
                .init("ID", maxWidth: 28), .init("TITLE"), .init("OWNER", maxWidth: 20), .init("SIZE", maxWidth: 11, alignRight: true),
            ])
            for photo in photos {
                let size = photo.width.flatMap { w in photo.height.map { "\(w)×\($0)" } } ?? ""
                table.append([photo.id.description, photo.title, photo.owner ?? "", size])
            }
            Output.write(table.render(width: environment.terminalWidth))
            printNextPageHint(listings: listings, request: request)
        }
    }

    /// One line on stderr after a table or grid: how many were shown, whether they came from the
    /// cache, and the command for the next page.
    private func printNextPageHint(listings: [ProviderListing], request: ListingRequest) {
        let count = listings.reduce(0) { $0 + $1.photos.count }
        let totalText = listings.count == 1 ? listings[0].total.map { " of \($0)" } ?? "" : ""
        let cachedText = !listings.isEmpty && listings.allSatisfy(\.cached)
            ? " (from the cache, \(AgeText.format(listings.map(\.age).max() ?? 0)) old)" : ""
        var line = "Showing \(count)\(totalText)\(cachedText)."
        let more = listings.filter(\.hasMore)
        if !more.isEmpty, !request.walkAll {
            let next = (more.map(\.lastPage).max() ?? request.page) + 1
            var command = ["photos", "list"]
            if let providers = request.providers { command += ["--provider", ShellQuote.quote(providers)] }
            if let text = request.text { command += ["--query", ShellQuote.quote(text)] }
            for (key, value) in request.filters { command += ["--filter", ShellQuote.quote("\(key)=\(value)")] }
            if let perPage = request.perPage { command += ["--per-page", String(perPage)] }
            command += ["--page", String(next)]
            line += " Next page: \(command.joined(separator: " "))"
        }
        Diagnostics.note(line)
    }

    func describe(_ error: any Error) -> String {
        switch error {
        case let error as PhotosError: return error.description
        case let error as TransportError: return error.description
        default: return String(describing: error)
        }
    }
}

/// `list --format json`: DESIGN.md's listing object, plus a per-provider summary.
struct ListingJSON: Encodable {
    struct ProviderSummary: Encodable {
        var name: String
        var firstPage: Int
        var lastPage: Int
        var total: Int?
        var hasMore: Bool
        var count: Int
        var cached: Bool
        var ageSeconds: Int

        enum CodingKeys: String, CodingKey {
            case name, total, count, cached
            case firstPage = "first_page", lastPage = "last_page", hasMore = "has_more", ageSeconds = "age_seconds"
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(name, forKey: .name)
            try container.encode(firstPage, forKey: .firstPage)
            try container.encode(lastPage, forKey: .lastPage)
            try container.encode(total, forKey: .total)
            try container.encode(hasMore, forKey: .hasMore)
            try container.encode(count, forKey: .count)
            try container.encode(cached, forKey: .cached)
            try container.encode(ageSeconds, forKey: .ageSeconds)
        }
    }

    var page: Int
    var perPage: Int
    var total: Int?
    var hasMore: Bool
    var photos: [PhotoJSON]
    var providers: [ProviderSummary]
    /// Whether the whole listing came from the cache.
    var cached: Bool
    /// Seconds since the network last confirmed the oldest page shown (0 when fetched now).
    var ageSeconds: Int

    enum CodingKeys: String, CodingKey {
        case page, total, photos, providers, cached
        case perPage = "per_page", hasMore = "has_more", ageSeconds = "age_seconds"
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(page, forKey: .page)
        try container.encode(perPage, forKey: .perPage)
        try container.encode(total, forKey: .total)
        try container.encode(hasMore, forKey: .hasMore)
        try container.encode(photos, forKey: .photos)
        try container.encode(providers, forKey: .providers)
        try container.encode(cached, forKey: .cached)
        try container.encode(ageSeconds, forKey: .ageSeconds)
    }
}

/// Quotes a word for a POSIX shell, so printed commands can be pasted back.
enum ShellQuote {
    static func quote(_ word: String) -> String {
        let safe = word.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "-_.,:/@=".contains($0)) }
        if safe && !word.isEmpty { return word }
        return "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}
