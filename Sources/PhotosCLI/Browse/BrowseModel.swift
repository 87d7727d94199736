import Foundation
import PhotosCache
import PhotosCore

/// What `photos browse` knows and decides, without a terminal or a network: the photos loaded,
/// the selection and scroll position, which page to fetch next and which thumbnails to fetch.
///
/// Every change comes through ``handle(_:)`` as an ``Event`` (a key, a page or a thumbnail that
/// arrived, a new window size) and answers with the ``Effect``s the session carries out (load a
/// page, fetch thumbnails, show a photo's detail, open, save, quit). Answers for an older search
/// carry its `generation` and are ignored, so a new search or a refresh never mixes listings.
struct BrowseModel {
    /// Tiles per row, and rows of tiles that fit on the screen.
    struct Layout: Equatable, Sendable {
        var columns: Int
        var rows: Int

        init(columns: Int, rows: Int) {
            self.columns = max(1, columns)
            self.rows = max(1, rows)
        }

        var tilesPerScreen: Int { columns * rows }
    }

    enum Mode: Equatable {
        case grid
        /// The detail view of the photo at this index.
        case detail(Int)
        /// The status line is a search field holding this text.
        case search(String)
    }

    /// A thumbnail's state; thumbnails not yet asked for have none.
    enum Thumbnail: Equatable, Sendable {
        case loading
        case ready(URL)
        case failed
    }

    /// Where the listing on screen came from.
    enum Source: Equatable, Sendable {
        case network
        /// From the cache (fresh enough, revalidated, or offline), this many seconds old.
        case cache(age: TimeInterval)
        /// The network failed; the cached copy shown is this old.
        case stale(age: TimeInterval, reason: String)
    }

    /// One page of results for one search (the pages of every provider browsed, merged).
    struct Page: Equatable, Sendable {
        var generation: Int
        var number: Int
        var photos: [Photo]
        var hasMore: Bool
        var total: Int?
        var source: Source
        /// Providers that failed while others answered, with why.
        var warnings: [String] = []
    }

    struct ThumbnailRequest: Equatable, Sendable {
        var url: String
        var provider: String
    }

    enum Event: Equatable, Sendable {
        case key(BrowseKey)
        case resized(Layout)
        case pageLoaded(Page)
        case pageFailed(generation: Int, page: Int, reason: String)
        /// A thumbnail arrived in the cache (its file), or could not be had (nil).
        case thumbnailLoaded(url: String, file: URL?)
    }

    enum Effect: Equatable, Sendable {
        case loadPage(generation: Int, page: Int, query: String?, mode: ListingMode)
        case loadThumbnails([ThumbnailRequest])
        case showDetail(Photo)
        case open(Photo)
        case save(Photo)
        case quit
        case interrupt
    }

    private(set) var photos: [Photo] = []
    private(set) var selection = 0
    /// The first row of tiles on screen.
    private(set) var topRow = 0
    private(set) var layout: Layout
    private(set) var mode: Mode = .grid
    /// Whether the search field still holds the search it opened with, untouched: the first
    /// letter typed replaces it.
    private(set) var searchReplaces = false
    private(set) var query: String?
    /// Bumped by every new search and refresh; answers for older ones are dropped.
    private(set) var generation = 0
    /// The page the next fetch asks for.
    private(set) var nextPage = 1
    private(set) var hasMore = true
    private(set) var total: Int?
    /// The page being fetched, if any.
    private(set) var loadingPage: Int?
    /// Why the last page fetch failed; moving again retries.
    private(set) var pageFailure: String?
    private(set) var source: Source?
    /// Providers that failed while others answered.
    private(set) var warnings: [String] = []
    /// Thumbnails by URL.
    private(set) var thumbnails: [String: Thumbnail] = [:]
    /// How the network may be used for pages: `.offline` throughout with `--offline`, `.refresh`
    /// for the pages of a search refreshed with `r`.
    private(set) var listingMode: ListingMode
    let offline: Bool
    /// Screens of thumbnails fetched ahead of the one shown.
    var thumbnailScreensAhead = 2
    /// False when no pictures are drawn (`--graphics none`): thumbnails are not fetched at all.
    var fetchesThumbnails = true
    private var seen: Set<PhotoID> = []
    /// After a refresh: the photo that was selected, and where. The selection goes back to it as
    /// the pages come again (to its place, if the listing no longer has it), unless a key moves
    /// it first.
    private var returning: (id: PhotoID, index: Int)?

    init(layout: Layout, query: String?, offline: Bool) {
        self.layout = layout
        self.query = query
        self.offline = offline
        listingMode = offline ? .offline : .normal
    }

    /// Whether every page has been loaded.
    var reachedEnd: Bool { !hasMore && loadingPage == nil }

    /// Thumbnails being fetched now.
    var thumbnailsLoading: Int { thumbnails.values.reduce(0) { $0 + ($1 == .loading ? 1 : 0) } }

    /// The indices of the photos on screen, in reading order.
    var visibleRange: Range<Int> {
        let start = min(photos.count, topRow * layout.columns)
        return start..<min(photos.count, start + layout.tilesPerScreen)
    }

    /// The effects to start with: the first page.
    mutating func start() -> [Effect] { settle() }

    mutating func handle(_ event: Event) -> [Effect] {
        var effects: [Effect] = []
        switch event {
        case .key(let key):
            effects += handle(key)
        case .resized(let layout):
            self.layout = layout
            scrollToSelection()
        case .pageLoaded(let page):
            guard page.generation == generation, page.number == loadingPage else { return [] }
            loadingPage = nil
            pageFailure = nil
            for photo in page.photos where seen.insert(photo.id).inserted { photos.append(photo) }
            nextPage = page.number.addingSaturating(1)
            // A page with nothing new cannot lead anywhere: stop rather than walk empty pages.
            hasMore = page.hasMore && !page.photos.isEmpty
            returnToPlace()
            total = page.total
            source = Self.merge(source, page.source, first: page.number == 1)
            warnings = page.warnings
        case .pageFailed(let generation, let page, let reason):
            guard generation == self.generation, page == loadingPage else { return [] }
            loadingPage = nil
            pageFailure = reason
        case .thumbnailLoaded(let url, let file):
            guard thumbnails[url] == .loading else { return [] }
            thumbnails[url] = file.map(Thumbnail.ready) ?? .failed
        }
        if effects.contains(.quit) || effects.contains(.interrupt) { return effects }
        return effects + settle()
    }

    // MARK: Keys

    private mutating func handle(_ key: BrowseKey) -> [Effect] {
        if key == .interrupt { return [.interrupt] }
        returning = nil  // the user's own move wins
        switch mode {
        case .grid: return gridKey(key)
        case .detail(let index): return detailKey(key, index: index)
        case .search(let text): return searchKey(key, text: text)
        }
    }

    private mutating func gridKey(_ key: BrowseKey) -> [Effect] {
        let columns = layout.columns
        switch key {
        case .left, .character("h"): move(to: selection - 1)
        case .right, .character("l"), .tab: move(to: selection + 1)
        case .up, .character("k"): move(to: selection - columns)
        case .down, .character("j"): move(to: selection + columns)
        case .wheelUp: scroll(by: -1)
        case .wheelDown: scroll(by: 1)
        case .pageDown, .character(" "), .character("f"): page(by: 1)
        case .pageUp, .character("b"): page(by: -1)
        case .home, .character("g"): move(to: 0)
        case .end, .character("G"): move(to: photos.count - 1)
        case .enter:
            guard let photo = selected else { return [] }
            mode = .detail(selection)
            return [.showDetail(photo)]
        case .character("/"):
            mode = .search(query ?? "")
            searchReplaces = query?.isEmpty == false
        case .character("r"):
            return refresh()
        case .character("o"):
            return selected.map { [.open($0)] } ?? []
        case .character("s"):
            return selected.map { [.save($0)] } ?? []
        case .character("q"):
            return [.quit]
        default:
            break
        }
        return []
    }

    private mutating func detailKey(_ key: BrowseKey, index: Int) -> [Effect] {
        switch key {
        case .escape, .backspace:
            mode = .grid
        case .left, .character("h"), .right, .character("l"):
            let step = key == .left || key == .character("h") ? -1 : 1
            let target = index + step
            guard photos.indices.contains(target) else { return [] }
            move(to: target)
            mode = .detail(selection)
            return [.showDetail(photos[selection])]
        case .character("o"):
            return photos.indices.contains(index) ? [.open(photos[index])] : []
        case .character("s"):
            return photos.indices.contains(index) ? [.save(photos[index])] : []
        case .character("r"):
            mode = .grid
            return refresh()
        case .character("q"):
            return [.quit]
        default:
            break
        }
        return []
    }

    /// The most characters the search field takes; the status line says so when it is full.
    static let searchLimit = 200

    private mutating func searchKey(_ key: BrowseKey, text: String) -> [Effect] {
        let replaces = searchReplaces
        searchReplaces = false
        switch key {
        case .escape:
            mode = .grid
        case .enter:
            mode = .grid
            let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
            return newSearch(trimmed.isEmpty ? nil : trimmed, mode: listingMode == .offline ? .offline : .normal)
        case .backspace:
            mode = .search(String(text.dropLast()))
        case .clearLine:
            mode = .search("")
        case .character(let character):
            // The search shown when the field opened is replaced by what is typed, as selected
            // text is; Backspace or → edits it instead. A search is short; a paste of a novel is
            // cut, not kept.
            if replaces {
                mode = .search(String(character))
            } else if text.count < Self.searchLimit {
                mode = .search(text + String(character))
            }
        default:
            break
        }
        return []
    }

    // MARK: Movement

    var selected: Photo? { photos.indices.contains(selection) ? photos[selection] : nil }

    private mutating func move(to index: Int) {
        guard !photos.isEmpty else { return }
        selection = min(max(0, index), photos.count - 1)
        pageFailure = nil  // moving is how a failed page is retried
        scrollToSelection()
    }

    private mutating func page(by screens: Int) {
        guard !photos.isEmpty else { return }
        let step = layout.tilesPerScreen * screens
        let lastRow = (photos.count - 1) / layout.columns
        topRow = min(max(0, topRow + layout.rows * screens), max(0, lastRow - layout.rows + 1))
        move(to: selection + step)
    }

    /// The wheel scrolls the view a row; the selection stays on screen.
    private mutating func scroll(by rows: Int) {
        guard !photos.isEmpty else { return }
        let lastRow = (photos.count - 1) / layout.columns
        topRow = min(max(0, topRow + rows), max(0, lastRow - layout.rows + 1))
        let row = selection / layout.columns
        if row < topRow { move(to: selection + (topRow - row) * layout.columns) }
        else if row >= topRow + layout.rows { move(to: selection - (row - topRow - layout.rows + 1) * layout.columns) }
        else { pageFailure = nil }
    }

    /// Keeps the selected row on screen, moving the view as little as possible.
    private mutating func scrollToSelection() {
        let row = selection / layout.columns
        if row < topRow { topRow = row }
        if row >= topRow + layout.rows { topRow = row - layout.rows + 1 }
        let lastRow = photos.isEmpty ? 0 : (photos.count - 1) / layout.columns
        topRow = max(0, min(topRow, max(0, lastRow - layout.rows + 1), row))
    }

    // MARK: Searches

    private mutating func refresh() -> [Effect] {
        // Thumbnails that failed are tried again too.
        thumbnails = thumbnails.filter { $0.value != .failed }
        let place = selected.map { (id: $0.id, index: selection) }
        let effects = newSearch(query, mode: offline ? .offline : .refresh)
        returning = place
        return effects
    }

    /// Moves the selection toward the photo selected before a refresh: onto it once a page has
    /// brought it, else as far as the pages go (which asks for the next), or, at the end, to its
    /// old place.
    private mutating func returnToPlace() {
        guard let place = returning, !photos.isEmpty else { return }
        if let index = photos.firstIndex(where: { $0.id == place.id }) {
            returning = nil
            move(to: index)
        } else if photos.count > place.index || !hasMore {
            returning = nil
            move(to: place.index)
        } else {
            move(to: photos.count - 1)
        }
    }

    private mutating func newSearch(_ text: String?, mode listing: ListingMode) -> [Effect] {
        generation += 1
        returning = nil
        query = text
        listingMode = listing
        photos = []
        seen = []
        selection = 0
        topRow = 0
        nextPage = 1
        hasMore = true
        total = nil
        loadingPage = nil
        pageFailure = nil
        source = nil
        warnings = []
        // Thumbnails stay: their files are still good, whatever the listing says now. Those
        // still loading will report; the rest are asked for again as they come on screen.
        return []
    }

    // MARK: What to fetch

    /// After every change: the next page when the selection is within a screen of the end of
    /// what is loaded (or the screen is not full), and the thumbnails of the screen shown and
    /// the ones after it that are not yet asked for.
    private mutating func settle() -> [Effect] {
        var effects: [Effect] = []
        if hasMore, loadingPage == nil, pageFailure == nil,
           photos.isEmpty || selection >= photos.count - layout.tilesPerScreen || visibleRange.upperBound + layout.tilesPerScreen > photos.count {
            loadingPage = nextPage
            effects.append(.loadPage(generation: generation, page: nextPage, query: query, mode: listingMode))
        }
        var requests: [ThumbnailRequest] = []
        for index in fetchesThumbnails ? thumbnailWindow : 0..<0 {
            let photo = photos[index]
            guard let url = photo.thumbnailURL else { continue }
            guard thumbnails[url] == nil else { continue }
            guard URLPolicy.isAllowed(url) else {
                thumbnails[url] = .failed
                continue
            }
            thumbnails[url] = .loading
            requests.append(ThumbnailRequest(url: url, provider: photo.provider))
        }
        if !requests.isEmpty { effects.append(.loadThumbnails(requests)) }
        return effects
    }

    /// The photos whose thumbnails are wanted now: the screen, then `thumbnailScreensAhead` after it.
    var thumbnailWindow: Range<Int> {
        let start = visibleRange.lowerBound
        return start..<min(photos.count, start + layout.tilesPerScreen * (1 + thumbnailScreensAhead))
    }

    /// The thumbnail state of the photo at `index` (`.failed` when it has none at all).
    func thumbnail(at index: Int) -> Thumbnail? {
        guard photos.indices.contains(index) else { return nil }
        guard let url = photos[index].thumbnailURL else { return .failed }
        return thumbnails[url]
    }

    /// The listing's source across pages: the first page sets it; a later stale page wins over
    /// fresher ones, so the status line never hides that the network failed, until a page comes
    /// from the network again: then what shows is cached pages of that age.
    private static func merge(_ current: Source?, _ new: Source, first: Bool) -> Source {
        guard !first, let current else { return new }
        switch (current, new) {
        case (.stale(let age, _), .network): return .cache(age: age)
        case (.stale, _): return current
        case (_, .stale): return new
        case (.cache(let a), .cache(let b)): return .cache(age: max(a, b))
        case (.network, _): return new
        case (.cache, .network): return current
        }
    }
}
