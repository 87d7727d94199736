import Foundation
import PhotosCache
import PhotosCore
import PhotosImaging

/// What `photos list` was asked for, parsed.
struct ListingRequest: Sendable {
    var providers: String?
    var text: String?
    /// `--filter key=value` pairs (and `--album N` as `album=N`), as typed.
    var filters: [(key: String, value: String)] = []
    var page: Int
    var perPage: Int?
    /// Whether `perPage` is the user's `--per-page` (a provider serving fewer is then said), not
    /// a size photos chose for walking pages (`save --limit`).
    var perPageTyped = true
    var limit: Int?
    var walkAll: Bool
    var thumbnails: Bool
    var format: OutputFormat
    var columns: Int = 3
    var graphics: GraphicsMode = .auto
    var mode: ListingMode = .normal

    static let defaultPerPage = 30
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
    /// Photos a provider sent more than once (listed once).
    var duplicates = 0
    /// Records a provider sent that were not readable photos.
    var skipped = 0
    /// Records beyond the page size asked for (left out).
    var oversized = 0
    /// Whether `--all` stopped at the walk's page bound while the provider said there was more.
    var pageBoundReached = false
    /// Why the walk ended while the provider said more pages followed, when its pages stopped
    /// bringing photos (empty, or only photos already listed).
    var endedEarly: EarlyEnd?

    enum EarlyEnd: Sendable, Equatable {
        /// Pages in a row that held no photos at all.
        case emptyPages(Int)
        /// Pages in a row that held only photos listed before.
        case repeatedPages(Int)
    }
    /// The `--per-page` asked for, when the provider serves smaller pages (``perPage``).
    var perPageAsked: Int?
    /// Whether `--limit` ended the walk inside its last page: photos of that page were left
    /// out, so the page to continue with is that one, not the next.
    var endsInsidePage = false
}

/// What one provider's task produced (a struct: tuples of existentials through a task group
/// crashed in release builds).
struct ProviderOutcome: Sendable {
    var index: Int
    var name: String
    var result: Result<ProviderListing, any Error>
    /// Its thumbnails, fetched as soon as its listing arrived.
    var thumbnails: Listing.ThumbnailPart? = nil
}

/// A page served from the cache because the network failed: which, how old, and why.
struct StalePage: Sendable {
    var page: Int
    var age: TimeInterval
    var reason: String
}
