import ArgumentParser
import Foundation
import PhotosCache
import PhotosCore
import PhotosImaging
import PhotosTerminal
import PhotosTransport
import Synchronization

/// Runs `photos list`: providers concurrently, pages walked, thumbnails fetched, output printed.
struct Listing {
    let context: CommandContext
    var environment: AppEnvironment { context.environment }

    func run(_ request: ListingRequest) async throws {
        let started = ContinuousClock.now
        let names = try ProviderSelection(environment: environment).resolve(request.providers, filters: request.filters, query: request.text)
        let providers = context.providers
        let offline = request.mode == .offline
        // Offline, a table neither fetches thumbnails nor shows them: nothing to look up.
        let thumbnailsWanted = request.thumbnails && !(offline && request.format == .table)
        // A listing shows no sizes; a table without thumbnails to fetch, only its columns.
        let fields: CachedPhotoFields = request.format == .table && !thumbnailsWanted ? .tableColumns : .withoutSizes
        let walker = PageWalker(cache: context.cache, registry: environment.registry, fields: fields)
        let progress = thumbnailProgress()
        // Offline the cache answers at once; a terminal is told what a slow listing waits for.
        let waiting = ListingWait(names: names, enabled: !offline && environment.stderrIsTerminal)
        defer { waiting.stop() }
        @Sendable func outcome(_ index: Int, _ name: String) async -> ProviderOutcome {
            guard let provider = environment.registry.make(name, context: providers) else {
                return ProviderOutcome(index: index, name: name, result: .failure(PhotosError.usage("unknown provider \(name)")))
            }
            // Thumbnails start as each page is decoded, before the index write and while the
            // walk and slower providers go on.
            let prefetch = thumbnailsWanted && !offline ? ThumbnailPrefetch(fetcher: context.imageFetcher(offline: false), progress: progress) : nil
            var walker = walker
            // The photos a page shows: a server sending more than asked for (a mirror, a test
            // server) gets no thumbnails fetched for those the listing leaves out.
            let perPage = min(
                request.perPage ?? request.limit.map { min($0, provider.maxPerPage) } ?? ListingRequest.defaultPerPage,
                provider.maxPerPage)
            // With --limit, the listing may end inside a page: only the photos it will show, by
            // the page's place after the first (a page placed wrongly by its server has the rest
            // of its thumbnails fetched with the listing's, as photos missed here are).
            let limit = request.limit, firstPage = request.page
            if let prefetch {
                walker.beforeStoring = { page in
                    var shown = perPage
                    if let limit {
                        // The page number is the server's: no arithmetic on it may overflow.
                        let after = page.page > firstPage ? page.page - firstPage : 0
                        let (before, overflow) = after.multipliedReportingOverflow(by: perPage)
                        shown = overflow ? 0 : max(0, min(perPage, limit - before))
                    }
                    prefetch.start(Array(page.photos.prefix(shown)))
                }
            }
            if prefetch != nil, let imageHost = provider.imageHost {
                // While the first page the cache lacks is on its way, the connections its
                // thumbnails will need come up (those on the listing's own host included).
                let http = context.http, listingHost = provider.listingHost, once = OnceFlag()
                walker.beforeFetching = {
                    if once.claim() { http.preconnect(to: imageHost, forTransfers: perPage, alongside: listingHost) }
                }
            }
            do {
                let listing = try await walker.walk(request, from: provider)
                waiting.arrived(name)
                let thumbnails = thumbnailsWanted
                    ? await downloadThumbnails(listing.photos, offline: offline, progress: progress, prefetch: prefetch) : nil
                return ProviderOutcome(index: index, name: name, result: .success(listing), thumbnails: thumbnails)
            } catch {
                waiting.arrived(name)
                prefetch?.cancel()
                return ProviderOutcome(index: index, name: name, result: .failure(environment.namingEndpoint(error, provider: name)))
            }
        }
        let outcomes: [ProviderOutcome]
        if names.count == 1 {
            outcomes = [await outcome(0, names[0])]  // one provider: no task of its own to wait for
        } else {
            outcomes = await withTaskGroup(of: ProviderOutcome.self) { group in
                for (index, name) in names.enumerated() {
                    group.addTask { await outcome(index, name) }
                }
                var outcomes: [ProviderOutcome] = []
                for await outcome in group { outcomes.append(outcome) }
                return outcomes.sorted { $0.index < $1.index }
            }
        }
        waiting.stop()
        try Task.checkCancellation()

        var listings: [ProviderListing] = []
        var failures: [(String, any Error)] = []
        for outcome in outcomes {
            let name = outcome.name
            switch outcome.result {
            case .success(let listing):
                listings.append(listing)
                if let partial = listing.partialError {
                    Diagnostics.warning("\(name): stopped after page \(listing.lastPage): \(partial)")
                }
                for warning in Self.dataWarnings(listing) { Diagnostics.warning(warning) }
                for stale in listing.stale {
                    let what = listing.firstPage == listing.lastPage ? "the cached listing" : "the cached page \(stale.page)"
                    Diagnostics.warning(
                        "\(name): could not refresh, showing \(what) from \(AgeText.format(stale.age)) ago: \(stale.reason)")
                }
            case .failure(let error):
                failures.append((name, error))
            }
        }
        if listings.isEmpty, let (first, error) = failures.first {
            guard failures.count > 1 else { throw error }
            // Offline with no cache folder at all: one line says so for every provider, rather
            // than each repeating where the cache would be.
            let noCache = context.cache.noCacheNote
            if !noCache.isEmpty, failures.allSatisfy({ Self.isNothingCached($0.1) }) {
                throw PhotosError.offlineNothingCached(Self.joined(failures.map(\.0)) + noCache)
            }
            for (name, error) in failures.dropFirst() { Diagnostics.error("\(name): \(Diagnostics.describe(error))") }
            throw error is CancellationError ? error : ProviderFailure(provider: first, error: error)
        }
        for (name, error) in failures {
            Diagnostics.warning("\(name) failed, listing the others: \(Diagnostics.describe(error))")
        }

        let photos = Self.interleave(listings.map(\.photos))
        var thumbnails = Thumbnails()
        if thumbnailsWanted {
            thumbnails = finishThumbnails(outcomes.compactMap(\.thumbnails), offline: offline, progress: progress)
        } else if request.format == .json || request.format == .jsonl {
            // --no-thumbnails fetches none, but those already cached are still where the JSON
            // says (one look-up; none at all in a cache made this run).
            let urls = photos.compactMap(\.thumbnailURL)
            if !urls.isEmpty { thumbnails.files = context.cache.cachedImagePaths(urls) }
        }
        // A listing that took a while (pages walked, a slow network) looks again at the files it
        // found, which another photos' clear or prune may have removed meanwhile; a quick one,
        // which found them a moment ago, does not (a look per photo: 500 of them on a page).
        if request.format == .json || request.format == .jsonl, !thumbnails.files.isEmpty, ContinuousClock.now - started > .seconds(1) {
            let gone = Self.dropVanished(&thumbnails)
            if gone > 0 {
                let count = gone == 1 ? "1 thumbnail was" : "\(gone) thumbnails were"
                Diagnostics.warning("\(count) removed from the cache while this listing ran (by another photos): thumbnail_path is null for them")
            }
        }
        try print(listings: listings, photos: photos, thumbnails: thumbnails, request: request, failures: failures)
        // Nothing listed while providers failed: the ones that answered had nothing, but the
        // others might have. Not a success (0): the code the failures have alone (a page past
        // a provider's depth is 64, as for that provider by itself), else 69.
        if photos.isEmpty, !failures.isEmpty {
            let failed = Self.joined(failures.map(\.0)), answered = Self.joined(listings.map(\.name))
            Diagnostics.error("no photos: \(failed) failed, and \(answered) had none")
            let codes = Set(failures.map { Self.exitCode(of: $0.1) })
            throw ExitCode(codes.count == 1 ? codes.first! : PhotosError.unavailable(provider: "", detail: "").exitCode)
        }
        ExitTeardown.keep((listings, photos))
    }

    /// Takes out the thumbnail files that are gone since they were found or fetched (another
    /// photos cleared or pruned the cache while this listing walked its pages): the JSON names a
    /// file that is there, or none.
    /// - Returns: how many were gone.
    static func dropVanished(_ thumbnails: inout Thumbnails) -> Int {
        var info = stat()
        let gone = thumbnails.files.filter { lstat($0.value, &info) != 0 }
        for url in gone.keys { thumbnails.files.removeValue(forKey: url) }
        return gone.count
    }

    /// The exit code a provider's failure has when it ends a command: a ``PhotosError``'s own,
    /// through the wrappers that add a hint or a provider's name; 69 for the network's
    /// (74 and 65 for a file that cannot be written and an answer too large).
    static func exitCode(of error: any Error) -> Int32 {
        switch error {
        case let error as PhotosError: return error.exitCode
        case let hinted as HintedError: return exitCode(of: hinted.error)
        case let failure as ProviderFailure: return exitCode(of: failure.error)
        case let error as TransportError: return CommandRuntime.exitCode(of: error)
        default: return PhotosError.unavailable(provider: "", detail: "").exitCode
        }
    }

    /// Whether `error` is an offline run's "nothing cached", through the wrappers that add a
    /// hint or a provider's name.
    static func isNothingCached(_ error: any Error) -> Bool {
        switch error {
        case PhotosError.offlineNothingCached: return true
        case let hinted as HintedError: return isNothingCached(hinted.error)
        case let failure as ProviderFailure: return isNothingCached(failure.error)
        default: return false
        }
    }

    /// Names as a sentence says them: `a`, `a and b`, `a, b and c`.
    static func joined(_ names: [String]) -> String {
        guard let last = names.last, names.count > 1 else { return names.first ?? "" }
        return names.dropLast().joined(separator: ", ") + " and " + last
    }

    /// What a provider's answers held that the listing left out, one line each.
    static func dataWarnings(_ listing: ProviderListing) -> [String] {
        var lines: [String] = []
        let name = listing.name
        if let asked = listing.perPageAsked {
            lines.append("\(name): serves at most \(listing.perPage) photos a page, so its pages hold \(listing.perPage), not \(asked) (--page counts pages of \(listing.perPage))")
        }
        if listing.skipped > 0 {
            lines.append(listing.skipped == 1
                ? "\(name): 1 record could not be read and was skipped"
                : "\(name): \(listing.skipped) records could not be read and were skipped")
        }
        if listing.duplicates > 0 {
            lines.append(listing.duplicates == 1
                ? "\(name): 1 photo came twice and is listed once"
                : "\(name): \(listing.duplicates) photos came more than once and are listed once")
        }
        if listing.oversized > 0 {
            lines.append("\(name): pages held more records than asked for; \(listing.oversized) \(listing.oversized == 1 ? "was" : "were") left out")
        }
        switch listing.endedEarly {
        case .emptyPages(let count):
            lines.append("\(name): stopped after page \(listing.lastPage): its last \(count) pages held no photos although it says there are more; use --page \(listing.lastPage.addingSaturating(1)) to try further")
        case .repeatedPages(let count):
            lines.append("\(name): stopped after page \(listing.lastPage): its last \(count) pages held only photos already listed although it says there are more")
        case nil:
            break
        }
        if listing.pageBoundReached {
            lines.append("\(name): stopped after \(listing.lastPage - listing.firstPage + 1) pages although it says there are more; use --page \(listing.lastPage + 1) to go on")
        }
        return lines
    }

    /// Merges providers' photos round-robin, so that every provider shows near the top.
    static func interleave(_ lists: [[Photo]]) -> [Photo] {
        if lists.count == 1 { return lists[0] }  // one provider: its photos as they are, not copied one by one
        var merged: [Photo] = []
        merged.reserveCapacity(lists.reduce(0) { $0 + $1.count })
        let longest = lists.map(\.count).max() ?? 0
        for index in 0..<longest {
            for list in lists where index < list.count { merged.append(list[index]) }
        }
        return merged
    }
}

/// True for the first caller only.
final class OnceFlag: Sendable {
    private let claimed = Atomic(false)

    func claim() -> Bool { !claimed.exchange(true, ordering: .relaxed) }
}
