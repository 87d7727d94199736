import PhotosCache
import PhotosCore

/// Walks one provider's pages through the cache.
struct PageWalker: Sendable {
    let cache: PhotoCache
    let registry: ProviderRegistry
    /// The most pages one walk asks for, however long a server says there is more.
    var maxPages = 1000

    /// One provider's share: `request.page`, then, with `--all` or `--limit`, the pages after it
    /// until the provider says there are no more or the limit is reached. A page that fails
    /// after others arrived ends the walk with what came (`partialError`); a first page that
    /// fails is the provider's failure.
    func walk(_ request: ListingRequest, from provider: any PhotoProvider) async throws -> ProviderListing {
        var pages = self.pages(request, from: provider)
        var photos: [Photo] = []
        while let batch = try await pages.next() { photos += batch }
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
        private var seen = Set<PhotoID>()
        private var walked = 0
        private var finished = false

        init(walker: PageWalker, request: ListingRequest, provider: any PhotoProvider) {
            self.walker = walker
            self.request = request
            self.provider = provider
            perPage = min(
                request.perPage ?? request.limit.map { min($0, provider.maxPerPage) } ?? ListingRequest.defaultPerPage, provider.maxPerPage)
            filters = walker.registry.descriptor(provider.name).map { ProviderSelection.canonicalFilters(request.filters, for: $0) } ?? [:]
            listing = ProviderListing(
                name: provider.name, firstPage: request.page, lastPage: request.page, perPage: perPage,
                total: nil, hasMore: false, photos: [])
            page = request.page
        }

        /// The next page's new photos (duplicates of earlier ones left out); nil when the walk
        /// is over. A page that fails after photos were delivered ends the walk (nil) and sets
        /// `listing.partialError`.
        /// - Throws: the first page's failure, or `CancellationError`.
        mutating func next() async throws -> [Photo]? {
            guard !finished else { return nil }
            walked += 1
            let result: PhotoPage
            do {
                let answer = try await walker.cache.listing(
                    ListQuery(text: request.text, page: page, perPage: perPage, filters: filters), from: provider, mode: request.mode)
                result = answer.page
                allCached = allCached && answer.fromCache
                listing.cached = allCached
                listing.age = max(listing.age, answer.age)
                if case .stale(let reason) = answer.origin { listing.stale.append(StalePage(page: page, age: answer.age, reason: reason)) }
            } catch {
                finished = true
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
            photos.removeAll { !seen.insert($0.id).inserted }
            listing.duplicates += received - photos.count
            listing.skipped += max(0, result.skippedRecords)
            listing.lastPage = page
            listing.total = result.total
            listing.hasMore = result.hasMore
            if let limit = request.limit, delivered + photos.count >= limit {
                photos = Array(photos.prefix(limit - delivered))
                delivered += photos.count
                finished = true
                return photos
            }
            delivered += photos.count
            let walks = request.walkAll || request.limit != nil
            if !walks || !result.hasMore || result.photos.isEmpty || page == Int.max {
                finished = true
            } else if walked >= walker.maxPages {
                listing.pageBoundReached = true
                finished = true
            } else {
                page += 1
            }
            return photos
        }
    }
}
