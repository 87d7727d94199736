import Dispatch
import Foundation
import PhotosCache
import PhotosCore
import PhotosImaging
import PhotosTerminal
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs `photos browse`: takes the terminal, and carries out what ``BrowseModel`` decides.
///
/// Three kinds of threads: one reads keys (``KeyReader``), one runs the interface (applies events
/// to the model, starts its effects, draws), and tasks in a task group do the network and cache
/// work, each reporting back through the interface's event queue. Pictures are rendered by the
/// ``PictureStore``'s own threads. The interface thread never waits for anything but its queue.
final class BrowseSession: @unchecked Sendable {
    struct Options: Sendable {
        var providers: String?
        var query: String?
        var graphics: GraphicsMode = .auto
        var offline = false
    }

    enum Event: Sendable {
        case keys([BrowseKey], ContinuousClock.Instant)
        case model(BrowseModel.Event)
        case resized
        /// SIGTSTP from outside (`kill -TSTP`): stop as Ctrl-Z does.
        case suspend
        /// SIGCONT: photos was stopped (by SIGSTOP too, which it cannot see) and goes on.
        case continued
        case pictureRendered
        case detail(token: Int, DetailUpdate)
        case message(String)
        case inputEnded
        case stop
    }

    enum DetailUpdate: Sendable {
        case info(PhotoDetail, note: String?)
        case picture(URL)
        case noPicture(String)
    }

    /// Work for the task group.
    struct Job: Sendable {
        let work: @Sendable () async -> Void
    }

    let context: CommandContext
    let options: Options
    var environment: AppEnvironment { context.environment }
    let queue = EventQueue<Event>()

    // Set up before the interface starts, read-only after.
    private var names: [String] = []
    /// The providers as the status line names them.
    private var shownProviders: [String] = []
    private var providers: [String: any PhotoProvider] = [:]
    private var graphics: TerminalGraphics
    private var jobs: AsyncStream<Job>.Continuation?
    private let ended = Mutex<[Int: Set<String>]>([:])
    /// Each provider's total for a search (generation), nil where it said none: the total shown
    /// is theirs together, also once some have no pages left to ask.
    private let totals = Mutex<[Int: [String: Int?]]>([:])
    /// Each provider's records that could not be read in a search (generation), across its pages.
    private let skipped = Mutex<[Int: [String: Int]]>([:])
    /// What a search (generation) said in the status line that is worth saying again once the
    /// terminal is given back: a provider that failed while others answered, a page served from
    /// the cache because the network failed.
    private let pageNotes = Mutex<[Int: [String]]>([:])
    private let timings: String?
    /// What could not be opened or saved: said in the status line, which the next key clears
    /// (and cuts at its edge), and again, whole, once the terminal is given back.
    private let failedActions = Mutex<[String]>([])
    /// The error of the last page that failed outright, with its search: browse ends with it
    /// when it is all the screen had to show.
    private let lastPageFailure = Mutex<(generation: Int, errors: [any Error])?>(nil)

    // The interface thread's own.
    private var model: BrowseModel
    private var geometry = BrowseGeometry(width: 80, height: 24)
    private var painter: BrowsePainter
    private var detail: DetailState?
    private var detailToken = 0
    private var message: String?
    /// Photos took the terminal again itself after a stop: the SIGCONT that continued it asks
    /// for nothing more.
    private var resumedItself = false
    private var keyLatencies: [Duration] = []
    private var firstScreen: Date?

    /// What the detail view knows of its photo so far.
    struct DetailState {
        var token: Int
        var photo: Photo
        var detail: PhotoDetail?
        var file: URL?
        var note: String
    }

    init(context: CommandContext, options: Options) {
        self.context = context
        self.options = options
        graphics = context.environment.graphics(options.graphics)
        painter = BrowsePainter(graphics: graphics)
        model = BrowseModel(layout: geometry.layout, query: options.query, offline: options.offline)
        timings = context.environment.environment["PHOTOS_BROWSE_TIMINGS"].flatMap { $0.isEmpty ? nil : $0 }
    }

    // MARK: Running

    func run() async throws {
        names = try ProviderSelection(environment: environment).resolve(options.providers)
        // `--provider all` is said as that in the status line: five names took 41 columns of it.
        shownProviders = options.providers?.trimmingCharacters(in: .whitespaces).lowercased() == "all" && names.count > 1 ? ["all"] : names
        for name in names {
            guard let provider = environment.registry.make(name, context: context.providers) else {
                throw PhotosError.usage("unknown provider \(name)")
            }
            // A provider named without what it needs (an API key) fails here, as `list` does,
            // rather than on a full screen that then shows only that.
            if !options.offline, let descriptor = environment.registry.descriptor(name), !descriptor.isConfigured(environment.settings) {
                let needs = descriptor.requiredSettings.map(\.variable).joined(separator: " and ")
                throw PhotosError.authentication(provider: name, detail: "it needs \(needs) to be set; photos providers says how")
            }
            providers[name] = provider
        }

        // Runs after the terminal is given back (the last deferred runs first).
        defer { Diagnostics.release() }
        let terminal = try RawTerminal()
        defer { terminal.restore() }
        // A warning said while the screen is ours (the cache cannot be used, say) would be
        // drawn over it: it shows in the status line, and is printed once the screen is back.
        Diagnostics.hold { [queue] line in queue.post(.message(line.hasPrefix("photos: ") ? String(line.dropFirst(8)) : line)) }
        // The runtime cancels the work on these; give the terminal back at once, whatever
        // the interface thread is doing.
        let signals = [SIGTERM, SIGHUP, SIGINT].map { number in
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { terminal.restore() }
            source.resume()
            return source
        }
        defer { for source in signals { source.cancel() } }
        signal(SIGWINCH, SIG_IGN)
        let resize = DispatchSource.makeSignalSource(signal: SIGWINCH, queue: .global())
        resize.setEventHandler { [queue] in queue.post(.resized) }
        resize.resume()
        defer { resize.cancel() }
        // Job control: stopped with the terminal given back, and taken again when continued.
        let jobControl = [(SIGTSTP, Event.suspend), (SIGCONT, Event.continued)].map { number, event in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { [queue] in queue.post(event) }
            source.resume()
            return source
        }
        defer {
            for source in jobControl { source.cancel() }
            signal(SIGTSTP, SIG_DFL)
            signal(SIGCONT, SIG_DFL)
        }

        let size = terminal.size()
        geometry = makeGeometry(size)
        model = BrowseModel(layout: geometry.layout, query: options.query, offline: options.offline)
        model.fetchesThumbnails = graphics.mode != .none
        let store = PictureStore(
            graphics: graphics, diskCache: environment.tileCache, capacity: max(64, geometry.layout.tilesPerScreen * 4)
        ) { [queue] _ in queue.post(.pictureRendered) }
        defer { store.stop() }
        let reader = try KeyReader(
            input: terminal.input, report: { [queue] keys, arrived in queue.post(.keys(keys, arrived)) },
            ended: { [queue] in queue.post(.inputEnded) },
            // Read from the background (Ctrl-Z, then `bg`): stopped until `fg`, whose SIGCONT
            // takes the terminal again.
            // (A terminal that hung up fails reads with EIO too: that input has ended.)
            waitForForeground: { [input = terminal.input] giveUp in
                RawTerminal.isInBackground(input) && RawTerminal.waitForForeground(input, stoppingWith: SIGTTIN, giveUp: giveUp)
            })
        reader.start()
        defer { reader.stop() }

        let (stream, continuation) = AsyncStream.makeStream(of: Job.self)
        jobs = continuation
        let failure = Mutex<(any Error)?>(nil)
        await withTaskCancellationHandler {
            await withDiscardingTaskGroup { group in
                let interface = Thread { [self] in
                    do {
                        try interfaceLoop(terminal: terminal, store: store)
                    } catch {
                        failure.withLock { $0 = error }
                    }
                    continuation.finish()
                }
                interface.name = "photos-browse"
                interface.start()
                for await job in stream { group.addTask { await job.work() } }
                group.cancelAll()
            }
        } onCancel: { [queue] in
            queue.post(.stop)
        }
        terminal.restore()
        // Each once, in order, and not a screenful of them.
        var said = Set<String>()
        let lines = failedActions.withLock { $0 }.filter { said.insert($0).inserted }
        for line in lines.prefix(20) { Diagnostics.warning(line) }
        if lines.count > 20 { Diagnostics.warning("... and \(lines.count - 20) more that could not be opened or saved") }
        // Records the last search left out, said again as `list` says them.
        for (name, count) in skipped.withLock({ $0[model.generation, default: [:]] }).sorted(by: { $0.key < $1.key }) {
            Diagnostics.warning(Self.skippedWarning(name, count))
        }
        // And what the status line said of its providers and the network, each once.
        var noted = Set<String>()
        for note in pageNotes.withLock({ $0[model.generation, default: []] }) where noted.insert(note).inserted {
            Diagnostics.warning(note)
        }
        environment.tileCache.prune()
        writeTimings()
        if let error = failure.withLock({ $0 }) { throw error }
        // Nothing to show but a failure (offline with nothing cached, a host down): said again
        // now that the screen is back, and the exit status is list's for the same failure.
        if model.photos.isEmpty, model.pageFailure != nil, let last = lastPageFailure.withLock({ $0 }), last.generation == model.generation,
            let first = last.errors.first
        {
            for other in last.errors.dropFirst() { Diagnostics.warning(Diagnostics.describe(other)) }
            throw first
        }
    }

    private func spawn(_ work: @escaping @Sendable () async -> Void) {
        jobs?.yield(Job(work: work))
    }

    private func makeGeometry(_ size: (columns: Int, rows: Int, cellAspect: Double?)) -> BrowseGeometry {
        let aspect = size.cellAspect ?? Double(graphics.cellPixelSize.width) / Double(graphics.cellPixelSize.height)
        return BrowseGeometry(width: size.columns, height: size.rows, cellAspect: aspect, pictures: graphics.mode != .none)
    }

    // MARK: The interface thread

    private func interfaceLoop(terminal: RawTerminal, store: PictureStore) throws {
        perform(model.start())
        try draw(terminal: terminal, store: store)
        while true {
            let events = queue.next()
            var arrivals: [ContinuousClock.Instant] = []
            for event in events {
                switch event {
                case .keys(let keys, let arrived):
                    if keys.contains(where: { if case .synchronizedOutput = $0 { false } else { true } }) {
                        arrivals.append(arrived)
                        message = nil
                    }
                    for key in keys {
                        if case .synchronizedOutput(let supported) = key {
                            painter.synchronized = supported
                            continue
                        }
                        if key == .interrupt { throw PhotosError.interrupted }
                        if key == .suspend {
                            suspend(terminal)
                            continue
                        }
                        let effects = model.handle(.key(key))
                        if effects.contains(.quit) { return }
                        perform(effects)
                    }
                case .model(let event):
                    perform(model.handle(event))
                case .resized:
                    geometry = makeGeometry(terminal.size())
                    perform(model.handle(.resized(geometry.layout)))
                    painter.invalidate()
                case .suspend:
                    suspend(terminal)
                case .continued:
                    // Stopped without being asked (SIGSTOP), or continued in the background
                    // before: the shell's `fg` set its own terminal mode. Taken again, and
                    // everything drawn anew.
                    if resumedItself {
                        resumedItself = false
                    } else if terminal.resume() {
                        redrawAll(terminal)
                    }
                case .pictureRendered:
                    break
                case .detail(let token, let update):
                    apply(update, token: token)
                case .message(let text):
                    message = text
                case .inputEnded, .stop:
                    return
                }
            }
            if case .detail = model.mode {} else { detail = nil }
            try draw(terminal: terminal, store: store)
            let drawn = ContinuousClock.now
            if timings != nil { keyLatencies += arrivals.map { drawn - $0 } }
        }
    }

    /// Ctrl-Z or SIGTSTP: stops with the terminal given back; on `fg`, takes it again and draws
    /// everything anew (the window may have changed size meanwhile).
    private func suspend(_ terminal: RawTerminal) {
        guard terminal.stopProcess() else { return }  // continued in the background: at `fg`
        resumedItself = true
        redrawAll(terminal)
    }

    private func redrawAll(_ terminal: RawTerminal) {
        geometry = makeGeometry(terminal.size())
        perform(model.handle(.resized(geometry.layout)))
        painter.invalidate()
    }

    private func perform(_ effects: [BrowseModel.Effect]) {
        for effect in effects {
            switch effect {
            case .loadPage(let generation, let page, let query, let mode):
                // `r` (its first page): a host that failed is asked again now, not a minute
                // after its failure; later pages of the search keep failing fast.
                if mode == .refresh, page == 1 { context.http.retryFailedHosts() }
                spawn { [self] in await loadPage(generation: generation, page: page, query: query, mode: mode) }
            case .loadThumbnails(let requests):
                for request in requests {
                    spawn { [self] in await loadThumbnail(request) }
                }
            case .showDetail(let photo):
                detailToken += 1
                let token = detailToken
                detail = DetailState(token: token, photo: photo, note: graphics.mode == .none ? "" : "loading…")
                // Said until the provider's detail arrives (a slow network showed nothing).
                message = Self.loadingDetails
                spawn { [self] in await loadDetail(photo, token: token) }
            case .open(let photo):
                message = "opening \(TerminalText.fit(photo.title, width: 40))…"
                let known = detail?.photo.id == photo.id ? detail?.detail : nil
                spawn { [self] in await open(photo, known: known) }
            case .save(let photo):
                message = "saving \(TerminalText.fit(photo.title, width: 40))…"
                let known = detail?.photo.id == photo.id ? detail?.detail : nil
                spawn { [self] in await save(photo, known: known) }
            case .quit, .interrupt:
                break  // handled where keys are
            }
        }
    }

    /// The status line's message while a photo's detail is asked for.
    static let loadingDetails = "loading details…"

    private func apply(_ update: DetailUpdate, token: Int) {
        guard var state = detail, state.token == token else { return }
        switch update {
        case .info(let info, let note):
            state.detail = info
            if let note {
                message = note
            } else if message == Self.loadingDetails {
                message = nil
            }
        case .picture(let file):
            state.file = file
        case .noPicture(let reason):
            state.note = reason
        }
        detail = state
    }

    private func draw(terminal: RawTerminal, store: PictureStore) throws {
        let content = detailContent()
        store.want(wantedPictures(content))
        let scene = BrowseScene(
            model: model, geometry: geometry,
            status: BrowseStatus.line(model, providers: shownProviders, message: message, width: geometry.width), detail: content)
        let output = painter.frame(scene) { key in
            if let tile = store.picture(key) { return .ready(tile) }
            return store.hasFailed(key) ? .failed : .pending
        }
        if !output.isEmpty { try terminal.write(output) }
        if firstScreen == nil, timings != nil, screenIsComplete(store) { firstScreen = Date() }
    }

    /// The pictures to render, most wanted first: the detail picture, the screen, the next screen.
    private func wantedPictures(_ content: DetailContent?) -> [PictureStore.Key] {
        var keys: [PictureStore.Key] = []
        if let key = content?.picture { keys.append(key) }
        guard geometry.imageBox.rows > 0, graphics.mode != .none else { return keys }
        let start = model.visibleRange.lowerBound
        let end = min(model.photos.count, start + geometry.layout.tilesPerScreen * 2)
        for index in start..<end {
            if case .ready(let file) = model.thumbnail(at: index) {
                keys.append(PictureStore.Key(file: file.path, box: geometry.imageBox))
            }
        }
        return keys
    }

    /// Whether the first page is in and every tile on screen has its picture or is marked empty.
    private func screenIsComplete(_ store: PictureStore) -> Bool {
        guard !model.photos.isEmpty || model.reachedEnd else { return false }
        for index in model.visibleRange {
            switch model.thumbnail(at: index) {
            case .failed: continue
            case .ready(let file):
                let key = PictureStore.Key(file: file.path, box: geometry.imageBox)
                if store.picture(key) == nil && !store.hasFailed(key) { return false }
            case .loading, nil: return false
            }
        }
        return true
    }

    private func detailContent() -> DetailContent? {
        guard case .detail = model.mode, let state = detail else { return nil }
        let info = state.detail ?? PhotoDetail(photo: state.photo, tags: state.photo.tags)
        let lines = Self.detailLines(info)
        let box = BrowsePainter.detailBox(geometry: geometry, lines: lines.count)
        let picture = state.file.flatMap { box.rows > 0 && graphics.mode != .none ? PictureStore.Key(file: $0.path, box: box) : nil }
        return DetailContent(id: state.photo.id, lines: lines, picture: picture, note: state.note)
    }

    /// The details under the picture: title, owner, date, tags, licence, size, page.
    static func detailLines(_ detail: PhotoDetail) -> [(String, String)] {
        let photo = detail.photo
        var lines: [(String, String)] = [("Title", TerminalText.title(photo.title))]
        if let owner = photo.owner, TerminalText.showsSomething(owner) { lines.append(("Owner", owner)) }
        if let date = detail.takenAt ?? photo.takenAt ?? detail.uploadedAt ?? photo.uploadedAt {
            lines.append(("Date", date.formatted(.iso8601.year().month().day())))
        }
        let tags = (detail.tags.isEmpty ? photo.tags : detail.tags).filter(TerminalText.showsSomething)
        if !tags.isEmpty { lines.append(("Tags", tags.joined(separator: ", "))) }
        if let licence = detail.extra["license"] ?? detail.extra["licence"] { lines.append(("Licence", licence)) }
        let largest = detail.sizes.max { $0.longestEdge < $1.longestEdge }
        if let width = photo.width ?? largest?.width, let height = photo.height ?? largest?.height {
            lines.append(("Size", "\(width)×\(height)"))
        }
        if let page = photo.pageURL { lines.append(("Page", page)) }
        lines.append(("ID", photo.id.description))
        return lines
    }

    // MARK: Work in tasks

    private func loadPage(generation: Int, page: Int, query: String?, mode: ListingMode) async {
        let walker = PageWalker(cache: context.cache, registry: environment.registry)
        let done = ended.withLock { $0[generation, default: []] }
        let asked = names.filter { !done.contains($0) }
        let outcomes = await withTaskGroup(of: ProviderOutcome.self) { group in
            for (index, name) in asked.enumerated() {
                guard let provider = providers[name] else { continue }
                group.addTask {
                    let request = ListingRequest(
                        providers: name, text: query, page: page, perPage: nil, limit: nil, walkAll: false, thumbnails: false,
                        format: .table, mode: mode)
                    do {
                        return ProviderOutcome(index: index, name: name, result: .success(try await walker.walk(request, from: provider)))
                    } catch {
                        return ProviderOutcome(index: index, name: name, result: .failure(error))
                    }
                }
            }
            var outcomes: [ProviderOutcome] = []
            for await outcome in group { outcomes.append(outcome) }
            return outcomes.sorted { $0.index < $1.index }
        }
        guard !Task.isCancelled else { return }
        var lists: [[Photo]] = []
        var failures: [String] = []
        var failed: [(name: String, error: any Error)] = []
        var hasMore = false
        var source: BrowseModel.Source = .network
        for outcome in outcomes {
            switch outcome.result {
            case .success(let listing):
                lists.append(listing.photos)
                if listing.skipped > 0 { skipped.withLock { $0[generation, default: [:]][outcome.name, default: 0] += listing.skipped } }
                if listing.hasMore { hasMore = true } else { ended.withLock { _ = $0[generation, default: []].insert(outcome.name) } }
                totals.withLock { $0[generation, default: [:]][outcome.name] = .some(listing.total) }
                source = Self.worse(source, Self.source(of: listing))
            case .failure(let error):
                failures.append((asked.count > 1 ? "\(outcome.name): " : "") + Diagnostics.describe(error))
                failed.append((outcome.name, error))
            }
        }
        if !lists.isEmpty {
            // A provider that failed while others answered is asked no more in this search (r
            // asks again): the others' end is then the end of results, as `list` lists the others.
            ended.withLock { ended in for (name, _) in failed { ended[generation, default: []].insert(name) } }
            var notes = failed.map { "\($0.name) failed, browsing the others: \(Diagnostics.describe($0.error))" }
            if case .stale(let age, let reason) = source {
                notes.append("the network failed (\(reason)), so the cache's copy from \(AgeText.format(age)) ago was shown")
            }
            if !notes.isEmpty { pageNotes.withLock { $0[generation, default: []] += notes } }
        }
        // Known only when every provider browsed has said its own.
        let known = totals.withLock { $0[generation, default: [:]] }
        let total: Int? = names.reduce(Optional(0)) { sum, name in
            guard let sum, case .some(.some(let own)) = known[name] else { return nil }
            return sum.addingSaturating(own)
        }
        // Records left out of the search so far, as `list` says them: "27 of 28" is explained.
        let dataWarnings = skipped.withLock { $0[generation, default: [:]] }.sorted { $0.key < $1.key }.map(Self.skippedWarning)
        if lists.isEmpty {
            let reason = failures.isEmpty ? "no provider left to ask" : failures.joined(separator: "; ")
            // Each named as list names them when several were asked.
            let errors = outcomes.compactMap { outcome -> (any Error)? in
                guard case .failure(let error) = outcome.result else { return nil }
                return asked.count > 1 ? ProviderFailure(provider: outcome.name, error: error) : error
            }
            if !errors.isEmpty { lastPageFailure.withLock { $0 = (generation, errors) } }
            queue.post(.model(.pageFailed(generation: generation, page: page, reason: reason)))
            return
        }
        queue.post(.model(.pageLoaded(BrowseModel.Page(
            generation: generation, number: page, photos: Listing.interleave(lists), hasMore: hasMore,
            total: total, source: source, warnings: failures + dataWarnings))))
    }

    /// `flickr: 1 record could not be read and was skipped`, as `list` says it.
    private static func skippedWarning(_ name: String, _ count: Int) -> String {
        count == 1 ? "\(name): 1 record could not be read and was skipped" : "\(name): \(count) records could not be read and were skipped"
    }

    private static func source(of listing: ProviderListing) -> BrowseModel.Source {
        if let stale = listing.stale.first { return .stale(age: stale.age, reason: stale.reason) }
        return listing.cached ? .cache(age: listing.age) : .network
    }

    private static func worse(_ a: BrowseModel.Source, _ b: BrowseModel.Source) -> BrowseModel.Source {
        switch (a, b) {
        case (.stale, _): return a
        case (_, .stale): return b
        case (.cache(let x), .cache(let y)): return .cache(age: max(x, y))
        case (.cache, _): return a
        default: return b
        }
    }

    private func loadThumbnail(_ request: BrowseModel.ThumbnailRequest) async {
        let fetcher = context.imageFetcher(offline: options.offline)
        var file: URL?
        do {
            file = try await fetcher.fetch(request.url, provider: request.provider)
        } catch {
            if error is CancellationError || Task.isCancelled { return }
            file = synthesized(request)
        }
        queue.post(.model(.thumbnailLoaded(url: request.url, file: file)))
    }

    /// A thumbnail drawn from what its URL describes, for providers that can (jsonplaceholder's
    /// coloured squares, whose host is gone), as `list` does.
    private func synthesized(_ request: BrowseModel.ThumbnailRequest) -> URL? {
        guard let picture = providers[request.provider]?.syntheticImage(for: request.url) else { return nil }
        let folder = environment.cacheRoot.appendingPathComponent(CacheLayout.synthesizedFolder, isDirectory: true)
        let file = folder.appendingPathComponent(picture.fileName)
        if FileManager.default.fileExists(atPath: file.path) { return file }
        guard !options.offline else { return nil }
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try SyntheticImageRenderer.png(picture).write(to: file, options: .atomic)
            return file
        } catch {
            return nil
        }
    }

    /// Everything the provider says about `photo`; what the listing said when it cannot be asked.
    private func photoDetail(_ photo: Photo) async -> (PhotoDetail, note: String?) {
        let fallback = PhotoDetail(photo: photo, tags: photo.tags)
        guard !options.offline else {
            let cached = context.cache.cachedPhoto(photo.id) ?? photo
            return (PhotoDetail(photo: cached, tags: cached.tags, sizes: cached.sizes), nil)
        }
        guard let provider = providers[photo.provider] else { return (fallback, nil) }
        do {
            let detail = try await provider.detail(photo.id)
            // Kept, as `show` keeps it: offline, its sizes name the full image `o` fetched.
            context.cache.remember(detail)
            return (detail, nil)
        } catch {
            if error is CancellationError { return (fallback, nil) }
            return (fallback, "details from the listing only: \(TerminalText.sanitize(Diagnostics.describe(error)))")
        }
    }

    private func loadDetail(_ photo: Photo, token: Int) async {
        let (info, note) = await photoDetail(photo)
        guard !Task.isCancelled else { return }
        queue.post(.detail(token: token, .info(info, note: note)))
        guard graphics.mode != .none else { return }
        let candidates = Showing.previewCandidates(info)
        let cached = context.cache.cachedImages(candidates)
        if let file = candidates.lazy.compactMap({ cached[$0] }).first {
            queue.post(.detail(token: token, .picture(file)))
            return
        }
        guard let medium = Showing.mediumSize(info) else {
            queue.post(.detail(token: token, .noPicture("no image photos may download")))
            return
        }
        do {
            let file = try await context.imageFetcher(offline: options.offline).fetch(medium, provider: photo.provider)
            queue.post(.detail(token: token, .picture(file)))
        } catch {
            if error is CancellationError || Task.isCancelled { return }
            queue.post(.detail(token: token, .noPicture("no image: " + TerminalText.sanitize(PhotoCache.describe(error)))))
        }
    }

    /// The full image of `photo` in the cache, fetched if needed.
    private func fullImage(_ photo: Photo, known: PhotoDetail?) async throws -> URL {
        var info = known
        if info == nil { info = await photoDetail(photo).0 }
        guard let url = info?.largestImageURL else {
            throw PhotosError.unavailable(provider: photo.provider, detail: "\(photo.id) has no image photos may download")
        }
        return try await context.imageFetcher(offline: options.offline).fetch(url, provider: photo.provider)
    }

    private func open(_ photo: Photo, known: PhotoDetail?) async {
        do {
            let showing = Showing(context: context)
            var info = known
            if info == nil { info = await photoDetail(photo).0 }
            guard let url = info?.largestImageURL else {
                throw PhotosError.unavailable(provider: photo.provider, detail: "\(photo.id) has no image photos may download")
            }
            // A cache that cannot hold it (read-only, full) does not keep it from the viewer.
            let file = try await showing.viewable(url, id: photo.id, fetcher: context.imageFetcher(offline: options.offline)) { [queue] note in
                queue.post(.message(TerminalText.sanitize(note)))
            }
            let viewer = try showing.opener(for: file)
            // The viewer must not draw on this screen or read its keys.
            let pid = try viewer.start(output: .discarded, file: file)
            queue.post(.message(TerminalText.sanitize("opened with \(viewer.name)")))
            // The viewer runs on while browsing goes on; one that fails says so when it ends,
            // after "opened". Waited for on a thread of its own: it may stay open for hours.
            let waiter = Thread { [queue] in
                let status = Viewer.wait(pid) {
                    queue.post(.message(TerminalText.sanitize("\(viewer.name) stopped (it may have wanted the terminal browse is using): it was closed")))
                }
                guard let status, status != 0 else { return }
                queue.post(.message(TerminalText.sanitize("\(viewer.name) exited with status \(status); the image is at \(file.path)")))
            }
            waiter.start()
        } catch {
            if error is CancellationError { return }
            let line = "\(photo.id): could not open: " + TerminalText.sanitize(Diagnostics.describe(error))
            failedActions.withLock { $0.append(line) }
            queue.post(.message("could not open: " + TerminalText.sanitize(Diagnostics.describe(error))))
        }
    }

    private func save(_ photo: Photo, known: PhotoDetail?) async {
        do {
            let file = try await fullImage(photo, known: known)
            let saved = try BrowseSaving.save(file, photo: photo, into: BrowseSaving.directory(environment))
            queue.post(.message((saved.existed ? "already saved: " : "saved ") + TerminalText.sanitize(saved.path)))
        } catch {
            if error is CancellationError { return }
            let line = "\(photo.id): could not save: " + TerminalText.sanitize(Diagnostics.describe(error))
            failedActions.withLock { $0.append(line) }
            queue.post(.message("could not save: " + TerminalText.sanitize(Diagnostics.describe(error))))
        }
    }

    // MARK: Timings (make bench)

    /// With PHOTOS_BROWSE_TIMINGS=FILE: when the first screen was complete (Unix time, ms) and
    /// each key's time from arrival to the end of its frame's write (µs).
    private func writeTimings() {
        guard let timings else { return }
        var text = ""
        if let firstScreen { text += "first_screen_unix_ms \(Int64(firstScreen.timeIntervalSince1970 * 1000))\n" }
        for latency in keyLatencies {
            let (seconds, attoseconds) = latency.components
            text += "key_to_drawn_us \(seconds * 1_000_000 + attoseconds / 1_000_000_000_000)\n"
        }
        try? text.write(toFile: timings, atomically: true, encoding: .utf8)
    }
}

/// Events for the interface thread: posted from any thread, taken all at once.
final class EventQueue<Event: Sendable>: @unchecked Sendable {
    private let condition = NSCondition()
    private var events: [Event] = []

    func post(_ event: Event) {
        condition.lock()
        events.append(event)
        condition.signal()
        condition.unlock()
    }

    /// Every event waiting, after waiting for at least one.
    func next() -> [Event] {
        condition.lock()
        defer { condition.unlock() }
        while events.isEmpty { condition.wait() }
        let taken = events
        events.removeAll(keepingCapacity: true)
        return taken
    }
}
