import ArgumentParser
import Foundation
import PhotosCache
import PhotosCore
import PhotosTerminal

/// Runs `photos save`: inputs in order, each photo resolved to one URL and one name, the files
/// saved in parallel, a summary.
///
/// Memory stays flat whatever the count: inputs arrive a batch (a page) at a time through
/// bounded channels, at most ``window`` files are in flight, and nothing per photo is kept
/// once its file is done but its name (for collisions) and, when it failed, its reason.
struct Saving {
    let context: CommandContext
    var environment: AppEnvironment { context.environment }

    /// Files in flight at once: up to ``filesInFlight`` on the transport (fewer when it carries
    /// fewer at once) and some queued behind; fewer still when the process may open few files
    /// (each file in flight holds its `.part` twice, for its lock and its bytes, besides the
    /// connections, the cache's index and the standard streams).
    var window: Int {
        min(min(context.http.concurrentTransfers, Self.filesInFlight) + 28, max(4, (OpenFileBudget.limit - 64) / 3))
    }
    /// Two connections' worth of HTTP/2 streams. More would not save faster: 200 images in
    /// flight are about 10 MB on the way, more than any link's bandwidth-delay product, and a
    /// save is then bound by the bytes and the CPU that moves them. But every file in flight
    /// holds its transfer's buffers and task, so memory would grow with the count up to the
    /// transport's 600 streams.
    static let filesInFlight = 200
    /// Detail requests at once, for ids whose sizes no listing named.
    static let detailWindow = 16

    func run(_ request: SaveRequest) async throws {
        let configured = request.folder == nil ? BrowseSaving.configuredDirectory(environment) : nil
        let folder = (request.folder ?? configured ?? URL(fileURLWithPath: ".")).standardizedFileURL
        // Where the folder came from, as the messages about it say.
        let setting = request.folder != nil ? "--to" : configured != nil ? "the save folder (PHOTOS_SAVE_DIR or [save] dir)" : "the current folder"
        // A relative --to (the default, ".") in a current folder that was deleted meanwhile:
        // Foundation cannot make the path absolute.
        if !folder.path.hasPrefix("/") {
            throw TransportError.fileSystem(
                path: folder.path, detail: "the current folder no longer exists (was it deleted?); cd to one that does, or name the folder with --to")
        }
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: folder.path, isDirectory: &isFolder), !isFolder.boolValue {
            throw OutputError.failed("\(setting) names a file, not a folder: \(folder.path)")
        }
        // The folders this save makes: removed again at the end if they are still empty (nothing
        // saved: a provider unreachable, a refused key, Ctrl-C during the listing).
        var made: [String] = []
        var missing = folder.path
        var info = stat()
        while missing != "/", lstat(missing, &info) != 0, errno == ENOENT || errno == ENAMETOOLONG {
            made.append(missing)
            missing = (missing as NSString).deletingLastPathComponent
        }
        // A link to nothing, or a loop of links, where the folder should be: said as what it is
        // (creating the folder said "File exists").
        let reached = stat(folder.path, &info) == 0 ? 0 : errno
        if reached == ENOENT || reached == ELOOP, lstat(folder.path, &info) == 0, (info.st_mode & S_IFMT) == S_IFLNK {
            let what = reached == ELOOP ? "a loop of symbolic links" : "a symbolic link to nothing"
            throw OutputError.failed("\(setting) names \(what): \(folder.path); name a folder, or make the one the link points to")
        }
        defer {
            // rmdir removes only an empty folder: never anything saved or the user's. Those never
            // made (a path too long, made up to where it failed) are passed over.
            for path in made where rmdir(path) != 0 && errno != ENOENT && errno != ENAMETOOLONG { break }
        }
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
            // A path of thousands of characters is said by its start, with where it came from.
            throw OutputError.failed("cannot create \(TerminalText.quoted(folder.path, width: 160)), \(setting): \(PhotoCache.describe(error))")
        }
        // A folder that cannot be written into (a read-only file system, another user's) is said
        // once, before anything is downloaded.
        if access(folder.path, W_OK | X_OK) != 0 {
            throw TransportError.fileSystem(path: folder.path, detail: String(cString: strerror(errno)))
        }
        // Another save into this folder finishes first; its files are then skipped here.
        let folderLock: SaveFolderLock?
        do {
            folderLock = try await SaveFolderLock.acquire(in: folder.path) {
                Diagnostics.remark("another photos save is writing into \(folder.path); waiting for it to finish")
            }
        } catch {
            // Stopped (Ctrl-C) while waiting: nothing was saved, and a script still learns so.
            Diagnostics.note("Stopped: 0 saved before the stop, while waiting for the other save.")
            if request.format == .json { try? printSummary(SaveReport(started: .now), format: request.format, folder: folder) }
            throw error
        }
        defer { folderLock?.release() }
        let inputs = SaveInputs(context: context)
        let lanes = try inputs.lanes(for: request.source)
        let files = SavedFiles(
            folder: folder, http: context.http, maxImageBytes: context.maxImageBytes, metadata: request.metadata, size: request.size,
            literalExtension: request.template.literalExtension)
        defer { files.removeEmptyFolders() }
        var report = SaveReport(started: .now)
        // The progress bar's total: what each lane has sent, or its limit while it may send
        // more, then what it sent once it has ended (a --limit 1000 of a listing of 45 counts
        // 45). Added without overflow: --limit takes any Int.
        var laneReceived = [Int](repeating: 0, count: lanes.count)
        var laneEnded = [Bool](repeating: false, count: lanes.count)
        func expectedTotal() -> Int {
            lanes.indices.reduce(0) { sum, index in
                let received = laneReceived[index]
                let lane = laneEnded[index] ? received : max(received, lanes[index].expected ?? received)
                let (added, overflow) = sum.addingReportingOverflow(lane)
                return overflow ? Int.max : added
            }
        }
        var total = expectedTotal()
        let progress = ProgressBar(label: "Saving", total: total, enabled: environment.stderrIsTerminal, columns: { TTY.columns(STDERR_FILENO) }, write: { Diagnostics.raw($0) })
        // The line shows the bytes as they arrive, redrawn between photos done: a save of a few
        // large originals would otherwise show nothing for seconds. The bytes are those received
        // (files still arriving included), or those saved when more (files copied from the cache);
        // the speed is the network's, over the last seconds.
        let http = context.http, baseBytes = context.http.bodyBytesReceived, rate = ByteRate(), started = report.started
        let savedBytes = RunningTotal()
        let liveDetail: @Sendable (Int, Int) -> String = { done, total in
            let received = max(0, http.bodyBytesReceived - baseBytes)
            let elapsed = ContinuousClock.now - started
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            return SaveReport.progressDetail(
                bytes: max(received, savedBytes.total), rate: rate.record(received), elapsed: seconds, done: done, total: total)
        }
        // Redrawn only while bytes arrive: a line redrawn while nothing does would wipe, four
        // times a second, the ids a user types into `save -` (and show 0 B while a listing loads).
        let ticker = environment.stderrIsTerminal ? Task {
            var last = http.bodyBytesReceived
            while !Task.isCancelled {
                try? await Task.sleep(for: .milliseconds(250))
                let received = http.bodyBytesReceived
                guard received != last else { continue }
                last = received
                progress.refresh(detail: liveDetail)
            }
        } : nil
        defer { ticker?.cancel() }

        var laneFailures: [(String, any Error)] = []
        var fatal: String?
        /// Files saved here earlier for a larger `--size`, kept in place of this run's size.
        var keptLarger = 0
        /// Photos saved earlier whose NAME.json is a file photos did not write: no metadata.
        var foreignSidecars: (count: Int, first: String?) = (0, nil)
        await withTaskGroup(of: Void.self) { producers in
            for lane in lanes {
                producers.addTask { await lane.produce(lane.channel) }
            }
            await withTaskGroup(of: Labelled.self) { downloads in
                var inFlight = 0
                var assigner = NameAssigner(metadata: request.metadata)
                // Photos named twice (the same id given or piped again, a listing that repeats
                // one across pages) are saved once; the repeat counts as already there in JSON,
                // and apart in the summary.
                var seen = Set<PhotoID>()
                var sequence = 0
                func record(_ outcome: FileOutcome, _ label: String, _ order: Int) {
                    switch outcome {
                    case .saved(let bytes):
                        report.saved(bytes: bytes)
                        savedBytes.add(bytes)
                    case .skipped: report.skipped += 1
                    case .failed(let reason, let kind):
                        report.failures.append(SaveFailure(id: label, error: reason, kind: kind, order: order))
                    case .diskFull(let reason):
                        // The save stops; the photo is named in the summary (and its JSON) as
                        // one that was not saved.
                        fatal = fatal ?? reason
                        report.failures.append(SaveFailure(id: label, error: reason, kind: .write, order: order))
                    case .cancelled:
                        // Cut short by the user's stop, or by the full disk that stops the save
                        // (said as that, not as an interrupt).
                        if fatal == nil { report.cancelled = true }
                    }
                    var failed = false
                    switch outcome {
                    case .failed, .diskFull: failed = true
                    default: break
                    }
                    progress.advance(failed: failed, detail: { liveDetail(report.done, total) })
                }
                func collect() async {
                    guard let outcome = await downloads.next() else { return }
                    inFlight -= 1
                    record(outcome.outcome, outcome.label, outcome.order)
                }

                var active = Array(lanes.indices)
                var turn = 0
                // Lanes are read in turn, a batch each: the order of a multi-provider save, and so
                // its names, do not depend on which provider answers first.
                while !active.isEmpty, fatal == nil, !Task.isCancelled {
                    turn %= active.count
                    let lane = lanes[active[turn]]
                    let batch: [SaveInput]?
                    let laneIndex = active[turn]
                    func laneEnds() {
                        active.remove(at: turn)
                        laneEnded[laneIndex] = true
                        total = expectedTotal()
                        progress.update(total: total)
                    }
                    do {
                        batch = try await lane.channel.next()
                    } catch {
                        if !(error is CancellationError) { laneFailures.append((lane.name, error)) }
                        laneEnds()
                        continue
                    }
                    guard let batch else {
                        laneEnds()
                        continue
                    }
                    turn += 1
                    report.received += batch.count
                    laneReceived[laneIndex] += batch.count
                    total = expectedTotal()
                    progress.update(total: total)
                    var pending: [(label: String, order: Int, item: SaveItem)] = []
                    // Files already saved whose sidecar is missing (`--metadata`).
                    var sidecarsOnly: [(label: String, order: Int, item: SaveItem)] = []
                    let firsts = batch.filter { input in
                        guard let id = input.photoID, !seen.insert(id).inserted else { return true }
                        sequence += 1
                        report.repeats += 1
                        record(.skipped, input.label, sequence)
                        return false
                    }
                    for resolved in await resolve(firsts, size: request.size) {
                        guard fatal == nil, !Task.isCancelled else { break }
                        sequence += 1
                        let order = sequence
                        guard case .success(var item) = resolved.result else {
                            if case .failure(let failure) = resolved.result { record(.failed(failure.error, failure.kind), failure.id, order) }
                            continue
                        }
                        let components = request.template.render(NameFields(photo: item.photo, imageURL: item.url), reserve: 5)
                        var state = SavedFiles.Existing.none
                        let id = item.photo.id
                        let url = item.url
                        var displaced: String?
                        var wanted: String?
                        item.path = assigner.assign(components) { path in
                            state = files.existing(path, id: id, url: url)
                            // With --metadata, NAME.json is the photo's too: a file there that
                            // photos did not write for it (the user's notes) takes a name still
                            // free. One whose image photos saved earlier keeps it (saved again
                            // under another, it would be there twice); its metadata is not written.
                            if state == .none || state == .smaller, request.metadata,
                                SavedFiles.isForeignSidecar(files.filePath(path) + ".json", id: id)
                            {
                                state = .taken
                                if wanted == nil { wanted = path + ".json" }
                            }
                            // Said of what photos did not save (a file, a link, a folder), not of
                            // another photo's file that has the same name.
                            if state == .taken, wanted == nil {
                                let unmarked = files.unmarkedFile(path)
                                if unmarked.isUnmarked { wanted = path }
                                if unmarked.isImage { displaced = path }
                            }
                            return state == .taken
                        }
                        item.displaced = displaced
                        item.wanted = wanted
                        if state == .larger { keptLarger += 1 }
                        if state == .own || state == .larger {
                            if files.needsSidecar(item) {
                                sidecarsOnly.append((resolved.label, order, item))
                            } else {
                                if request.metadata, SavedFiles.isForeignSidecar(files.filePath(item.path) + ".json", id: id) {
                                    foreignSidecars.count += 1
                                    if foreignSidecars.first == nil { foreignSidecars.first = item.path + ".json" }
                                }
                                record(.skipped, resolved.label, order)
                            }
                            continue
                        }
                        do {
                            try files.prepareFolders(for: item.path)
                        } catch {
                            record(SavedFiles.outcome(for: TransportError.fileSystem(path: files.url(item.path).deletingLastPathComponent().path,
                                detail: PhotoCache.describe(error))), resolved.label, order)
                            continue
                        }
                        pending.append((resolved.label, order, item))
                    }
                    if request.metadata {
                        // A sidecar is `show --format json`: the provider's detail (description,
                        // license, every size), which no listing holds, asked for each sidecar
                        // still to write.
                        pending = await withDetails(pending)
                        sidecarsOnly = await withDetails(sidecarsOnly)
                    }
                    for (label, order, item) in sidecarsOnly {
                        let outcome = files.completeSkipped(item)
                        if case .skipped = outcome { report.sidecars += 1 }
                        record(outcome, label, order)
                    }
                    // Only files still to save are looked up in the cache (a re-run asks nothing).
                    let cached = pending.isEmpty ? [:] : context.cache.cachedImages(pending.map(\.item.url))
                    // The downloads about to start, for the transport to open their connections together.
                    let downloading = pending.lazy.map(\.item.url).filter { cached[$0] == nil }.prefix(max(0, window - inFlight))
                    if !downloading.isEmpty { context.http.expectRequests(for: Array(downloading)) }
                    for (label, order, var item) in pending {
                        guard fatal == nil, !Task.isCancelled else { break }
                        item.cachedFile = cached[item.url]
                        while inFlight >= window { await collect() }
                        // The slot came with a full disk, or the stop: nothing more starts.
                        guard fatal == nil, !Task.isCancelled else { break }
                        downloads.addTask { [item] in Labelled(label: label, order: order, outcome: await files.save(item)) }
                        inFlight += 1
                    }
                }
                if fatal != nil || Task.isCancelled { downloads.cancelAll() }
                // A full disk met by one of the last downloads stops the others too.
                while inFlight > 0 {
                    await collect()
                    if fatal != nil { downloads.cancelAll() }
                }
            }
            // A lane still producing (the save stopped early) is told to stop.
            producers.cancelAll()
        }
        ticker?.cancel()
        await ticker?.value
        progress.finish()
        report.failures.sort { $0.order < $1.order }
        if Task.isCancelled || report.cancelled {
            // What the next run will find: the files saved are skipped, the .part files continue.
            var done = "\(report.saved) saved"
            if report.skipped > report.repeats { done += ", \(report.skipped - report.repeats) already there" }
            Diagnostics.note("Stopped: \(done) before the stop; run the same command again to resume (files saved are skipped, .part files continue).")
            // A script still learns what was saved (the exit code, 130 or 143, says the rest).
            if request.format == .json { try? printSummary(report, format: request.format, folder: folder) }
            throw CancellationError()
        }

        for warning in listingWarnings(inputs) { Diagnostics.warning(warning) }
        let misnamed = files.misnamed.withLock { $0 }
        if misnamed.count > 0, let first = misnamed.first {
            let files = misnamed.count == 1 ? "1 file was" : "\(misnamed.count) files were"
            // A name ending in .{ext} takes the extension the image's URL gives, which the files
            // are found by again; a server serving another type under it is said, not advised on.
            Diagnostics.warning(
                request.template.endsInExtensionField
                    ? "\(files) saved under an extension that is not their type (\(first)): {ext} is the one the image's URL names, and the server sent another type"
                    : "\(files) saved under an extension that is not their type (\(first)); end --name with .{ext} to name each by what it is")
        }
        let renamed = files.renamed.withLock { $0 }
        if renamed.count > 0, let first = renamed.first {
            let photos = renamed.count == 1 ? "1 photo was" : "\(renamed.count) photos were"
            Diagnostics.remark("\(photos) saved under the next free name because a file photos did not save held the name (\(first))")
        }
        if foreignSidecars.count > 0, let first = foreignSidecars.first {
            let (photos, their) = foreignSidecars.count == 1 ? ("1 photo", "its") : ("\(foreignSidecars.count) photos", "their")
            Diagnostics.warning("\(photos) saved earlier got no metadata: \(their) NAME.json is a file photos did not write, left as it is (\(first))")
        }
        if keptLarger > 0 {
            let photos = keptLarger == 1 ? "1 photo was" : "\(keptLarger) photos were"
            Diagnostics.warning(
                "\(photos) saved here earlier at a larger size than --size \(request.size.rawValue), and kept; "
                    + "to have this size too, save into another folder (--to)")
        }
        if let fatal {
            try? printSummary(report, format: request.format, folder: folder)
            throw OutputError.failed("\(fatal); \(report.saved) saved, run the same command again when there is room")
        }
        // A provider whose listing failed while others delivered is a failure of the save too:
        // named in the summary (and its JSON) by the provider, and not an exit 0.
        func recordListingFailures() {
            for (name, error) in laneFailures {
                guard case .failed(let reason, let kind) = SavedFiles.outcome(for: error) else { continue }
                report.failures.append(SaveFailure(id: name, error: "its listing failed: " + reason, kind: kind == .missing ? .unreachable : kind, order: Int.max))
            }
        }
        if report.received == 0 && report.failures.isEmpty, let (_, error) = laneFailures.first {
            if request.format == .json, !(error is CancellationError) {
                // A script still gets its summary: nothing saved, and why (the exit code and
                // stderr say the same as without --format json).
                recordListingFailures()
                try? printSummary(report, format: request.format, folder: folder)
            }
            guard laneFailures.count > 1 else { throw error }
            // The exit code is a refused key's (77) only when every listing failed so: the
            // failure thrown (said last) is another when there is one, whatever the order of
            // --provider.
            func isRefusedKey(_ error: any Error) -> Bool {
                if case .failed(_, .authentication) = SavedFiles.outcome(for: error) { return true }
                return false
            }
            let thrown = laneFailures.firstIndex { !isRefusedKey($0.1) } ?? 0
            for (index, (name, other)) in laneFailures.enumerated() where index != thrown {
                Diagnostics.error("\(name): \(Diagnostics.describe(other))")
            }
            let (name, chosen) = laneFailures[thrown]
            throw chosen is CancellationError ? chosen : ProviderFailure(provider: name, error: chosen)
        }
        recordListingFailures()
        try printSummary(report, format: request.format, folder: folder)
        if let hint = morePhotosHint(inputs, request: request) { Diagnostics.note(hint) }
        if let code = report.exitCode { throw ExitCode(code) }
    }

    /// Said after the summary when a listing saved without `--limit` or `--all` (one page) has
    /// more photos: a save of one page should not look like a save of the search.
    private func morePhotosHint(_ inputs: SaveInputs, request: SaveRequest) -> String? {
        guard case .listing(let listing) = request.source, listing.limit == nil, !listing.walkAll, request.format == .table else { return nil }
        let more = inputs.listings.withLock { $0 }.values.filter(\.hasMore).map(\.name).sorted()
        guard !more.isEmpty else { return nil }
        let names = more.joined(separator: ", ")
        return "\(names) \(more.count == 1 ? "has" : "have") more photos than this page: --limit N saves the first N, --all every one."
    }

    /// Photos of one batch with the URL of the chosen size, in the batch's order: from what the
    /// input knew, the cache's copy of a listing, or the provider's detail (asked in parallel,
    /// and only when nothing else names the photo's sizes).
    func resolve(_ batch: [SaveInput], size: ImageSizeChoice) async -> [Resolved] {
        var results = [Resolved?](repeating: nil, count: batch.count)
        var needDetail: [(index: Int, id: PhotoID, known: Photo?)] = []
        for (index, input) in batch.enumerated() {
            switch input {
            case .invalid(let text, let reason):
                results[index] = Resolved(label: text, result: .failure(SaveFailure(id: text, error: reason, kind: .input)))
            case .photo(var photo):
                if photo.sizes.isEmpty && (size == .original || photo.imageURL == nil) {
                    // The sizes an earlier detail gave (a re-run asks the provider nothing).
                    if let cached = context.cache.cachedPhoto(photo.id), !cached.sizes.isEmpty {
                        photo.sizes = cached.sizes
                        results[index] = Resolved(label: photo.id.description, photo: photo, detail: nil, size: size)
                    } else {
                        needDetail.append((index, photo.id, photo))
                    }
                } else {
                    results[index] = Resolved(label: photo.id.description, photo: photo, detail: nil, size: size)
                }
            case .id(let typed, var described, var listed):
                // Checked as a typed id is, whatever the line says besides: sizes given with an id
                // of no provider photos knows still name no photo.
                let id: PhotoID
                switch checked(typed) {
                case .failure(let failure):
                    results[index] = Resolved(label: typed.description, result: .failure(failure))
                    continue
                case .success(let found): id = found.id
                }
                described?.id = id
                listed?.id = id
                if let cached = context.cache.cachedPhoto(id), !cached.sizes.isEmpty {
                    results[index] = Resolved(label: id.description, photo: cached, detail: nil, size: size)
                } else if let described {
                    results[index] = Resolved(label: id.description, photo: described, detail: nil, size: size)
                } else {
                    // A listed photo's image serves when the provider has no detail for it.
                    needDetail.append((index, id, listed))
                }
            }
        }
        if !needDetail.isEmpty {
            await withTaskGroup(of: (Int, Resolved).self) { group in
                var next = 0
                func addNext() {
                    guard next < needDetail.count else { return }
                    let (index, id, known) = needDetail[next]
                    next += 1
                    group.addTask { (index, await detailed(id, known: known, size: size)) }
                }
                for _ in 0..<Self.detailWindow { addNext() }
                for await (index, resolved) in group {
                    results[index] = resolved
                    addNext()
                }
            }
        }
        return results.compactMap { $0 }
    }

    /// `id` as its provider spells it, with that provider, or why it names no photo.
    private func checked(_ id: PhotoID) -> Result<(id: PhotoID, provider: any PhotoProvider), SaveFailure> {
        let label = id.description
        guard let provider = environment.registry.make(id.provider, context: context.providers) else {
            let error = id.isWebAddress ? "a web address, not a photo id; ids look like provider:id (photos list prints them)" : "unknown provider '\(id.provider)'"
            return .failure(SaveFailure(id: label, error: error, kind: .input))
        }
        guard let raw = provider.canonicalID(id.raw) else {
            let form = environment.registry.descriptor(id.provider).map { ": they look like \($0.idSyntax), e.g. \($0.idExample)" } ?? ""
            return .failure(SaveFailure(id: label, error: "not a valid \(id.provider) photo id\(form)", kind: .input))
        }
        return .success((PhotoID(provider: id.provider, raw: raw), provider))
    }

    private func detailed(_ typed: PhotoID, known: Photo?, size: ImageSizeChoice) async -> Resolved {
        let label = typed.description
        let (id, provider): (PhotoID, any PhotoProvider)
        switch checked(typed) {
        case .failure(let failure): return Resolved(label: label, result: .failure(failure))
        case .success(let found): (id, provider) = found
        }
        do {
            let detail = try await provider.detail(id)
            context.cache.remember(detail)
            var photo = detail.photo
            if !detail.sizes.isEmpty { photo.sizes = detail.sizes }
            if photo.sizes.isEmpty, let known { photo.sizes = known.sizes }
            return Resolved(label: label, photo: photo, detail: detail, size: size)
        } catch {
            guard case .failed(let reason, let kind) = SavedFiles.outcome(for: error) else {
                return Resolved(label: label, result: .failure(SaveFailure(id: label, error: "cancelled")))
            }
            if let known {
                // The listing's own image still serves when the detail cannot be had.
                if let url = size.url(for: known) {
                    // A provider with no detail for the photo (not one failing now) will have
                    // none on the next run either: the listing's image is kept as its one size,
                    // and a re-run asks nothing (it asked again for every such photo).
                    if case PhotosError.notFound = error {
                        var photo = known
                        photo.sizes = [PhotoSize(label: "listing", width: known.width, height: known.height, url: url)]
                        context.cache.remember(PhotoDetail(photo: photo))
                    }
                    Diagnostics.warning("\(label): no detail (\(reason)); saving the listing's image")
                    return Resolved(label: label, photo: known, detail: nil, size: size)
                }
                let failure = "no image to download: \(id.provider) gave no image link for it, and no detail (\(reason))"
                return Resolved(label: label, result: .failure(SaveFailure(id: label, error: failure, kind: .badData)))
            }
            return Resolved(label: label, result: .failure(SaveFailure(id: label, error: reason, kind: kind)))
        }
    }

    /// `items` with the provider's detail of each photo that has none yet, asked for
    /// ``detailWindow`` at a time; a photo whose detail cannot be had keeps what its listing knew,
    /// with a warning.
    private func withDetails(_ items: [(label: String, order: Int, item: SaveItem)]) async -> [(label: String, order: Int, item: SaveItem)] {
        let wanted = items.indices.filter { items[$0].item.detail == nil }
        guard !wanted.isEmpty, !Task.isCancelled else { return items }
        var result = items
        await withTaskGroup(of: (Int, PhotoDetail?).self) { group in
            var next = 0
            func addNext() {
                guard next < wanted.count else { return }
                let index = wanted[next]
                next += 1
                let id = items[index].item.photo.id
                group.addTask { [environment, context] in
                    guard let provider = environment.registry.make(id.provider, context: context.providers) else { return (index, nil) }
                    do {
                        let detail = try await provider.detail(id)
                        context.cache.remember(detail)
                        return (index, detail)
                    } catch {
                        if !(error is CancellationError) {
                            Diagnostics.warning("\(id): no detail for its metadata (\(Diagnostics.describe(error))); its sidecar holds what the listing knew")
                        }
                        return (index, nil)
                    }
                }
            }
            for _ in 0..<Self.detailWindow { addNext() }
            for await (index, detail) in group {
                result[index].item.detail = detail
                addNext()
            }
        }
        return result
    }

    /// What the listings' walks reported, as `list` reports it (a provider whose listing failed
    /// is among the save's failures).
    private func listingWarnings(_ inputs: SaveInputs) -> [String] {
        var lines: [String] = []
        for (_, listing) in inputs.listings.withLock({ $0 }).sorted(by: { $0.key < $1.key }) {
            if let partial = listing.partialError {
                lines.append("\(listing.name): stopped after page \(listing.lastPage): \(partial)")
            }
            lines += Listing.dataWarnings(listing)
        }
        return lines
    }

    private func printSummary(_ report: SaveReport, format: OutputFormat, folder: URL) throws {
        switch format {
        case .json, .jsonl:
            try Output.write(try JSONOutput.encode(report.json, pretty: false) + "\n")
        case .table, .grid:
            for line in report.failureLines() { Diagnostics.warning(line) }
            try Output.write(report.summaryLine(folder: folder) + "\n")
        }
    }
}

/// One input resolved: an item to save, or why it cannot be.
struct Resolved: Sendable {
    var label: String
    var result: Result<SaveItem, SaveFailure>

    init(label: String, result: Result<SaveItem, SaveFailure>) {
        self.label = label
        self.result = result
    }

    init(label: String, photo: Photo, detail: PhotoDetail?, size: ImageSizeChoice) {
        self.label = label
        if let url = size.url(for: photo) {
            result = .success(SaveItem(photo: photo, detail: detail, url: url))
        } else {
            result = .failure(SaveFailure(id: label, error: "no image to download: \(photo.provider) gave no image link for it", kind: .badData))
        }
    }
}

extension SaveFailure: Error {}

/// A file's outcome with the photo it was for (a struct: tuples of existentials through a task
/// group crashed release builds).
struct Labelled: Sendable {
    var label: String
    /// The photo's place in the input, so that failures are listed in the input's order.
    var order: Int
    var outcome: FileOutcome
}
