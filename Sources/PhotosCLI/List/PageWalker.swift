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
        let perPage = min(request.perPage ?? request.limit.map { min($0, provider.maxPerPage) } ?? ListingRequest.defaultPerPage, provider.maxPerPage)
        let filters = registry.descriptor(provider.name).map { ProviderSelection.canonicalFilters(request.filters, for: $0) } ?? [:]
        let walks = request.walkAll || request.limit != nil
        var listing = ProviderListing(
            name: provider.name, firstPage: request.page, lastPage: request.page, perPage: perPage,
            total: nil, hasMore: false, photos: [])
        var page = request.page
        var allCached = true
        var seen = Set<PhotoID>()
        var walked = 0
        while true {
            walked += 1
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
                listing.partialError = Diagnostics.describe(error)
                return listing
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
            listing.photos += photos
            listing.lastPage = page
            listing.total = result.total
            listing.hasMore = result.hasMore
            if let limit = request.limit, listing.photos.count >= limit {
                listing.photos = Array(listing.photos.prefix(limit))
                break
            }
            guard walks, result.hasMore, !result.photos.isEmpty, page < Int.max else { break }
            guard walked < maxPages else {
                listing.pageBoundReached = true
                break
            }
            page += 1
        }
        return listing
    }
}
