import PhotosCache
import PhotosCore

/// Walks one provider's pages through the cache.
struct PageWalker: Sendable {
    let cache: PhotoCache
    let registry: ProviderRegistry
    /// The most pages one walk asks for, however long a server says there is more.
    var maxPages = 1000
    /// Sees each page from the network once decoded, before the index write (see
    /// ``PhotoCache/listing(_:from:mode:beforeStoring:)``).
    var beforeStoring: (@Sendable (PhotoPage) -> Void)?
    /// Runs before a page the cache does not hold is asked for (see
    /// ``PhotoCache/listing(_:from:mode:fields:beforeStoring:beforeFetching:)``).
    var beforeFetching: (@Sendable () -> Void)?
    /// What photos read from the cache bring back: `photos list` shows no sizes, and a table
    /// few fields; `save` and `browse` choose among the sizes.
    var fields = CachedPhotoFields.all

    /// One provider's share: `request.page`, then, with `--all` or `--limit`, the pages after it
    /// until the provider says there are no more or the limit is reached. A page that fails
    /// after others arrived ends the walk with what came (`partialError`); a first page that
    /// fails is the provider's failure.
    func walk(_ request: ListingRequest, from provider: any PhotoProvider) async throws -> ProviderListing {
        var pages = self.pages(request, from: provider)
        var photos: [Photo] = []
        // The first page is taken as it is: appending it to an empty array would copy every photo.
        while let batch = try await pages.next() {
            if photos.isEmpty { photos = batch } else { photos += batch }
        }
        var listing = pages.listing
        listing.photos = photos
        return listing
    }

    /// The same walk one page at a time, for a caller that uses each page as it arrives
    /// (`photos save` downloads a page's photos while the next one is fetched).
    func pages(_ request: ListingRequest, from provider: any PhotoProvider) -> Pages {
        Pages(walker: self, request: request, provider: provider)
    }

    /// The pages of one walk, in order. ``listing`` describes the walk so far (its `photos` stay
    /// empty: the caller has them).
    struct Pages: Sendable {
        let walker: PageWalker
        let request: ListingRequest
        let provider: any PhotoProvider
        let perPage: Int
        private let filters: [String: String]
        private(set) var listing: ProviderListing
        /// Photos handed out so far.
        private(set) var delivered = 0
        private var page: Int
        private var allCached = true
        /// The raw ids of the photos handed out, all of them the provider's. A set of `PhotoID`s
        /// would cost a scan of every protocol conformance in the binary (to hash them) the
        /// first time; strings are hashed already. Ids of another provider, which no provider
        /// sends, are kept apart whole.
        private var seen = Set<String>()
        private var seenElsewhere = Set<String>()
        private var walked = 0
        private var finished = false
        /// Pages in a row that brought nothing not delivered before.
        private var repeatedPages = 0
        /// Pages in a row that held no photo while the provider said more follow.
        private var emptyPages = 0
        /// Pages asked for ahead of the walk, by number (see ``askAhead(after:)``).
        private var ahead: [Int: Task<CachedPage, any Error>] = [:]
        /// Whether any page can be asked for directly (page numbers or offsets, not tokens).
        private let directPaging: Bool

        /// The most pages asked for ahead of the one being read.
        static let lookahead = 4

        init(walker: PageWalker, request: ListingRequest, provider: any PhotoProvider) {
            self.walker = walker
            self.request = request
            self.provider = provider
            perPage = min(
                request.perPage ?? request.limit.map { min($0, provider.maxPerPage) } ?? ListingRequest.defaultPerPage, provider.maxPerPage)
            let descriptor = walker.registry.descriptor(provider.name)
            filters = descriptor.map { ProviderSelection.canonicalFilters(request.filters, for: $0) } ?? [:]
            directPaging = descriptor.map { $0.paging != .continuationTokens } ?? false
            listing = ProviderListing(
                name: provider.name, firstPage: request.page, lastPage: request.page, perPage: perPage,
                total: nil, hasMore: false, photos: [])
            page = request.page
            if let asked = request.perPage, asked > perPage, request.perPageTyped { listing.perPageAsked = asked }
        }

        /// The next page's new photos (duplicates of earlier ones left out); nil when the walk
        /// is over. A page that fails after photos were delivered ends the walk (nil) and sets
        /// `listing.partialError`.
        /// - Throws: the first page's failure, or `CancellationError`.
        mutating func next() async throws -> [Photo]? {
            guard !finished else { return nil }
            walked += 1
            if walked == 1 { askWithFirst() }
            let result: PhotoPage
            let fromNetwork: Bool
            do {
                let answer: CachedPage
                if let asked = ahead.removeValue(forKey: page) {
                    answer = try await withTaskCancellationHandler { try await asked.value } onCancel: { asked.cancel() }
                } else {
                    answer = try await walker.cache.listing(
                        query(page), from: provider, mode: request.mode, fields: walker.fields, beforeStoring: walker.beforeStoring,
                        beforeFetching: walker.beforeFetching)
                }
                result = answer.page
                fromNetwork = !answer.fromCache
                allCached = allCached && answer.fromCache
                listing.cached = allCached
                listing.age = max(listing.age, answer.age)
                if case .stale(let reason) = answer.origin { listing.stale.append(StalePage(page: page, age: answer.age, reason: reason)) }
            } catch {
                finish()
                if delivered == 0 || error is CancellationError { throw error }
                listing.partialError = Diagnostics.describe(error)
                return nil
            }
            var photos = result.photos
            listing.oversized += max(0, result.extraRecords)
            if photos.count > perPage {
                listing.oversized += photos.count - perPage
                photos.removeLast(photos.count - perPage)
            }
            let received = photos.count
            seen.reserveCapacity(seen.count + received)
            // The page's array is shared with the answer: it is rebuilt (each photo copied) only
            // when it holds a photo seen before, as few pages do.
            if let duplicate = photos.indices.first(where: { !firstSighting(photos[$0].id) }) {
                var kept = Array(photos[..<duplicate])
                for index in (duplicate + 1)..<photos.count where firstSighting(photos[index].id) { kept.append(photos[index]) }
                photos = kept
            }
            listing.duplicates += received - photos.count
            listing.skipped += max(0, result.skippedRecords)
            listing.lastPage = page
            listing.total = result.total
            listing.hasMore = result.hasMore
            if let limit = request.limit, delivered + photos.count >= limit {
                listing.endsInsidePage = delivered + photos.count > limit
                // Photos of this page are left, whatever the provider says of the pages after it.
                if listing.endsInsidePage { listing.hasMore = true }
                photos = Array(photos.prefix(limit - delivered))
                delivered += photos.count
                finish()
                return photos
            }
            delivered += photos.count
            let walks = request.walkAll || request.limit != nil
            // Two pages in a row of nothing but photos already delivered end the walk too: a
            // provider that answers every page with the same photos (or repeats itself at the end
            // of a deep search, as Flickr does) would otherwise be asked up to the page bound. One
            // such page can be an upload moving a newest-first listing along by a page.
            repeatedPages = photos.isEmpty && !result.photos.isEmpty && walked > 1 ? repeatedPages + 1 : 0
            // An empty page the provider says more follow is walked past (Openverse drops dead
            // links from its pages, a whole page's at times); three in a row end the walk.
            emptyPages = result.photos.isEmpty ? emptyPages + 1 : 0
            if !walks || !result.hasMore || emptyPages >= 3 || repeatedPages >= 2 || page == Int.max {
                // Said: the provider promised more pages, and a user who asked for every one
                // would otherwise take the end of its answers for the end of its photos.
                if walks, result.hasMore, page < Int.max {
                    if emptyPages >= 3 { listing.endedEarly = .emptyPages(emptyPages) }
                    else if repeatedPages >= 2 { listing.endedEarly = .repeatedPages(repeatedPages) }
                }
                finish()
            } else if walked >= walker.maxPages {
                listing.pageBoundReached = true
                finish()
            } else {
                page += 1
                if fromNetwork { askAhead(after: result) }
            }
            return photos
        }

        /// Whether `id` is new to this walk (and notes it).
        private mutating func firstSighting(_ id: PhotoID) -> Bool {
            id.provider == provider.name ? seen.insert(id.raw).inserted : seenElsewhere.insert(id.description).inserted
        }

        private func query(_ page: Int) -> ListQuery {
            ListQuery(text: request.text, page: page, perPage: perPage, filters: filters)
        }

        /// With `--limit`, asks for the pages after the first that the limit needs together with
        /// the first, up to ``lookahead`` of them: a save of 500 in pages of 100 has all five in
        /// the time of one round trip, and its downloads start from the first page as before. A
        /// listing shorter than the limit costs the requests for the pages past its end, at most
        /// ``lookahead``; they are cancelled, or their answers left unread, once the walk knows
        /// where the listing ends. Providers whose pages are reached by tokens are walked one
        /// page at a time.
        private mutating func askWithFirst() {
            guard directPaging, let limit = request.limit, limit > perPage, page < Int.max else { return }
            let needed = limit / perPage + (limit % perPage == 0 ? 0 : 1)
            let last = min(
                page.addingSaturating(needed - 1), page.addingSaturating(Self.lookahead), request.page.addingSaturating(walker.maxPages - 1))
            guard last > page else { return }
            ask(page + 1...last)
        }

        /// Asks for the pages the walk will need after `result` all at once, up to
        /// ``lookahead`` of them, rather than one round trip after another. Only pages known to
        /// exist and be needed are asked for: up to the last page the provider says it serves
        /// (``PhotoPage/lastPage``) and, with `--limit`, up to the limit. When the provider
        /// cannot say, or its pages are reached by tokens, the walk stays one page at a time
        /// (past those a limit had asked with the first page). Pages read from the cache are not
        /// asked ahead: reading them in turn is quick.
        private mutating func askAhead(after result: PhotoPage) {
            guard directPaging, var last = result.lastPage else { return }
            if let limit = request.limit {
                // The pages the rest of the limit needs, rounded up; `--limit` and `--page` may be
                // as large as an Int holds, so no sum here may overflow.
                let remaining = limit - delivered
                let needed = remaining / perPage + (remaining % perPage == 0 ? 0 : 1)
                last = min(last, (page - 1).addingSaturating(needed))
            }
            last = min(last, page.addingSaturating(Self.lookahead - 1), request.page.addingSaturating(walker.maxPages - 1))
            guard last >= page else { return }
            ask(page...last)
        }

        /// Starts fetching `pages`, those not asked for already.
        private mutating func ask(_ pages: ClosedRange<Int>) {
            let cache = walker.cache, provider = provider, mode = request.mode, fields = walker.fields, hook = walker.beforeStoring,
                fetching = walker.beforeFetching
            for number in pages where ahead[number] == nil {
                let query = query(number)
                ahead[number] = Task {
                    try await cache.listing(query, from: provider, mode: mode, fields: fields, beforeStoring: hook, beforeFetching: fetching)
                }
            }
        }

        /// Ends the walk; pages asked for ahead and not read are not wanted any more.
        private mutating func finish() {
            finished = true
            for task in ahead.values { task.cancel() }
            ahead.removeAll()
        }
    }
}
