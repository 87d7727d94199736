import Foundation
import PhotosCache
import PhotosCore
import PhotosTerminal
import Testing

@testable import PhotosCLI

/// `photos browse`'s state machine: selection, scrolling, paging and what to prefetch, without a
/// terminal or a network.
struct BrowseModelTests {
    typealias Model = BrowseModel

    static func photos(_ range: ClosedRange<Int>, thumbnails: Bool = true) -> [Photo] {
        range.map { number in
            Photo(
                id: PhotoID(provider: "test", raw: String(number)), title: "photo \(number)",
                thumbnailURL: thumbnails ? "https://img.test/\(number).jpg" : nil)
        }
    }

    static func page(_ number: Int, _ photos: [Photo], hasMore: Bool = true, generation: Int = 0, total: Int? = 100) -> Model.Event {
        .pageLoaded(Model.Page(generation: generation, number: number, photos: photos, hasMore: hasMore, total: total, source: .network))
    }

    /// A model 3 columns by 2 rows (6 tiles a screen) with the first page of 30 photos loaded.
    static func loaded(pages: Int = 1) -> Model {
        var model = Model(layout: .init(columns: 3, rows: 2), query: "dogs", offline: false)
        _ = model.start()
        for number in 1...pages {
            _ = model.handle(page(number, photos((number - 1) * 30 + 1...number * 30)))
            if number < pages { _ = model.handle(.key(.end)) }
        }
        return model
    }

    static func pageLoads(_ effects: [Model.Effect]) -> [Int] {
        effects.compactMap { if case .loadPage(_, let page, _, _) = $0 { return page } else { return nil } }
    }

    static func thumbnailURLs(_ effects: [Model.Effect]) -> [String] {
        effects.flatMap { effect -> [String] in
            if case .loadThumbnails(let requests) = effect { return requests.map(\.url) }
            return []
        }
    }

    @Test func startsByLoadingTheFirstPageOfTheSearch() {
        var model = Model(layout: .init(columns: 3, rows: 2), query: "dogs", offline: false)
        #expect(model.start() == [.loadPage(generation: 0, page: 1, query: "dogs", mode: .normal)])
        #expect(model.loadingPage == 1)
    }

    @Test func aPageAsksForTheThumbnailsOfTheScreenAndTheTwoAfterIt() {
        var model = Model(layout: .init(columns: 3, rows: 2), query: nil, offline: false)
        _ = model.start()
        let effects = model.handle(Self.page(1, Self.photos(1...30)))
        #expect(Self.thumbnailURLs(effects) == (1...18).map { "https://img.test/\($0).jpg" })
        #expect(Self.pageLoads(effects).isEmpty, "the selection is far from the end")
        #expect(model.thumbnailsLoading == 18)
        // Moving within the screen asks for nothing new; a row down brings one more row ahead.
        #expect(Self.thumbnailURLs(model.handle(.key(.right))).isEmpty)
        #expect(Self.thumbnailURLs(model.handle(.key(.down))).isEmpty)
        #expect(Self.thumbnailURLs(model.handle(.key(.down))) == (19...21).map { "https://img.test/\($0).jpg" })
    }

    @Test func theNextPageIsFetchedOnceTheSelectionIsWithinAScreenOfTheEnd() {
        var model = Self.loaded()
        var asked: [Int] = []
        // 30 photos, 6 a screen: page 2 is wanted once the selection reaches photo 25 (index 24).
        for _ in 0..<8 {
            asked += Self.pageLoads(model.handle(.key(.down)))
            if model.selection < 24 { #expect(asked.isEmpty, "no page before the last screen (at \(model.selection))") }
        }
        #expect(asked == [2], "page 2 asked for exactly once while it loads")
        #expect(model.loadingPage == 2)
        _ = model.handle(Self.page(2, Self.photos(31...60)))
        #expect(model.photos.count == 60)
        #expect(model.loadingPage == nil)
        #expect(model.nextPage == 3)
    }

    @Test func answersForAnOlderSearchOrPageAreIgnored() {
        var model = Self.loaded()
        _ = model.handle(.key(.character("/")))
        _ = model.handle(.key(.clearLine))
        for character in "cats" { _ = model.handle(.key(.character(character))) }
        let effects = model.handle(.key(.enter))
        #expect(effects == [.loadPage(generation: 1, page: 1, query: "cats", mode: .normal)])
        #expect(model.photos.isEmpty)
        _ = model.handle(Self.page(2, Self.photos(31...60), generation: 0))
        #expect(model.photos.isEmpty, "page 2 of the old search is dropped")
        _ = model.handle(Self.page(1, Self.photos(101...110), hasMore: false, generation: 1))
        #expect(model.photos.map(\.title).first == "photo 101")
        #expect(model.query == "cats")
        #expect(model.reachedEnd)
    }

    @Test func theEndOfTheResultsStopsThePaging() {
        var model = Model(layout: .init(columns: 3, rows: 2), query: nil, offline: false)
        _ = model.start()
        _ = model.handle(Self.page(1, Self.photos(1...8), hasMore: false, total: 8))
        #expect(model.reachedEnd)
        for _ in 0..<5 { #expect(Self.pageLoads(model.handle(.key(.down))).isEmpty) }
        #expect(model.selection == 7, "the selection stops at the last photo")
    }

    @Test func aScreenThatIsNotFullAsksForMoreAtOnce() {
        var model = Model(layout: .init(columns: 4, rows: 5), query: nil, offline: false)
        _ = model.start()
        let effects = model.handle(Self.page(1, Self.photos(1...10)))
        #expect(Self.pageLoads(effects) == [2])
    }

    @Test func aFailedPageIsNotRetriedUntilTheSelectionMoves() {
        var model = Self.loaded()
        _ = model.handle(.key(.end))
        #expect(model.loadingPage == 2)
        #expect(model.handle(.pageFailed(generation: 0, page: 2, reason: "timed out")).isEmpty)
        #expect(model.pageFailure == "timed out")
        #expect(Self.pageLoads(model.handle(.thumbnailLoaded(url: "https://img.test/1.jpg", file: nil))).isEmpty)
        #expect(Self.pageLoads(model.handle(.key(.left))) == [2])
    }

    @Test func selectionAndScrollingKeys() {
        var model = Self.loaded(pages: 2)  // 60 photos, 3 columns, 2 rows
        _ = model.handle(.key(.home))
        #expect(model.selection == 0 && model.topRow == 0)
        _ = model.handle(.key(.character("l")))
        _ = model.handle(.key(.character("j")))
        #expect(model.selection == 4)
        _ = model.handle(.key(.character("j")))
        #expect(model.selection == 7 && model.topRow == 1, "the view follows the selection a row at a time")
        _ = model.handle(.key(.pageDown))
        #expect(model.selection == 13 && model.topRow == 3)
        _ = model.handle(.key(.character(" ")))
        #expect(model.selection == 19)
        _ = model.handle(.key(.pageUp))
        #expect(model.selection == 13 && model.topRow == 3)
        _ = model.handle(.key(.character("k")))
        _ = model.handle(.key(.character("k")))
        #expect(model.selection == 7 && model.topRow == 2)
        _ = model.handle(.key(.character("h")))
        #expect(model.selection == 6)
        _ = model.handle(.key(.left))
        #expect(model.selection == 5 && model.topRow == 1)
        _ = model.handle(.key(.character("G")))
        #expect(model.selection == 59 && model.topRow == 18)
        _ = model.handle(.key(.wheelUp))
        #expect(model.topRow == 17 && model.selection == 56, "the wheel scrolls; the selection stays on screen")
        _ = model.handle(.key(.character("g")))
        #expect(model.selection == 0 && model.topRow == 0)
    }

    @Test func enterShowsTheDetailAndEscapeReturnsToTheSamePlace() {
        var model = Self.loaded()
        for _ in 0..<3 { _ = model.handle(.key(.down)) }
        let place = (model.selection, model.topRow)
        #expect(model.handle(.key(.enter)) == [.showDetail(model.photos[9])])
        #expect(model.mode == .detail(9))
        #expect(model.handle(.key(.right)) == [.showDetail(model.photos[10])], "→ shows the next photo")
        _ = model.handle(.key(.left))
        #expect(model.handle(.key(.character("o"))) == [.open(model.photos[9])])
        #expect(model.handle(.key(.character("s"))) == [.save(model.photos[9])])
        _ = model.handle(.key(.escape))
        #expect(model.mode == .grid)
        #expect((model.selection, model.topRow) == place)
        _ = model.handle(.key(.enter))
        _ = model.handle(.key(.backspace))
        #expect(model.mode == .grid)
    }

    @Test func searchFieldEditsAndCancels() {
        var model = Self.loaded()
        _ = model.handle(.key(.character("/")))
        #expect(model.mode == .search("dogs"))
        _ = model.handle(.key(.backspace))
        _ = model.handle(.key(.character("e")))
        #expect(model.mode == .search("doge"))
        #expect(model.handle(.key(.character("q"))).isEmpty, "q is a letter while typing")
        _ = model.handle(.key(.clearLine))
        #expect(model.mode == .search(""))
        _ = model.handle(.key(.escape))
        #expect(model.mode == .grid && model.query == "dogs" && model.photos.count == 30)
        _ = model.handle(.key(.character("/")))
        _ = model.handle(.key(.clearLine))
        #expect(model.handle(.key(.enter)) == [.loadPage(generation: 1, page: 1, query: nil, mode: .normal)], "an empty search is the default feed")
    }

    /// The field opens with the current search, which the first letter typed replaces (the
    /// helper says so); Backspace edits it instead.
    @Test func typingAtOnceReplacesTheSearchShown() {
        var model = Self.loaded()
        _ = model.handle(.key(.character("/")))
        #expect(model.searchReplaces)
        #expect(BrowseStatus.line(model, providers: ["flickr"], message: nil, width: 120).contains("type to replace"))
        for character in "cats" { _ = model.handle(.key(.character(character))) }
        #expect(model.mode == .search("cats"), "not dogscats")
        #expect(!BrowseStatus.line(model, providers: ["flickr"], message: nil, width: 120).contains("type to replace"))
        #expect(model.handle(.key(.enter)) == [.loadPage(generation: 1, page: 1, query: "cats", mode: .normal)])
        _ = model.handle(.key(.character("/")))
        _ = model.handle(.key(.backspace))
        _ = model.handle(.key(.character("g")))
        #expect(model.mode == .search("catg"), "Backspace edits what is there")
    }

    @Test func refreshAsksTheNetworkAgainAndRetriesFailedThumbnails() {
        var model = Self.loaded()
        _ = model.handle(.thumbnailLoaded(url: "https://img.test/1.jpg", file: nil))
        _ = model.handle(.thumbnailLoaded(url: "https://img.test/2.jpg", file: URL(fileURLWithPath: "/cache/2.jpg")))
        #expect(model.thumbnail(at: 0) == .failed)
        let effects = model.handle(.key(.character("r")))
        #expect(effects == [.loadPage(generation: 1, page: 1, query: "dogs", mode: .refresh)])
        let again = model.handle(Self.page(1, Self.photos(1...30), generation: 1))
        #expect(Self.thumbnailURLs(again).contains("https://img.test/1.jpg"))
        #expect(!Self.thumbnailURLs(again).contains("https://img.test/2.jpg"), "a thumbnail in the cache is not fetched again")
        #expect(model.thumbnail(at: 1) == .ready(URL(fileURLWithPath: "/cache/2.jpg")))
        #expect(model.handle(.key(.end)).contains(.loadPage(generation: 1, page: 2, query: "dogs", mode: .refresh)),
                "the later pages of a refreshed search are asked for again too")
    }

    /// A refresh keeps the place: the selection goes back to the photo it was on, across as many
    /// pages as it takes, or to its place when the listing no longer has it; a key moved first wins.
    @Test func refreshReturnsToThePhotoThatWasSelected() {
        var model = Self.loaded(pages: 2)
        _ = model.handle(.key(.home))
        for _ in 0..<13 { _ = model.handle(.key(.down)) }  // photo 40 (index 39), on page 2
        #expect(model.selected?.title == "photo 40")
        _ = model.handle(.key(.character("r")))
        let first = model.handle(Self.page(1, Self.photos(1...30), generation: 1))
        #expect(Self.pageLoads(first) == [2], "the page that holds it is asked for at once")
        _ = model.handle(Self.page(2, Self.photos(31...60), generation: 1))
        #expect(model.selected?.title == "photo 40", "back on the same photo")
        #expect(model.visibleRange.contains(39))

        // Gone from the listing: the same place.
        _ = model.handle(.key(.character("r")))
        _ = model.handle(Self.page(1, Self.photos(1...30), generation: 2))
        _ = model.handle(Self.page(2, Self.photos(61...90), generation: 2))
        #expect(model.selection == 39, "its place, as the photo is gone: \(model.selection)")

        // A key pressed while the pages come: the user's move stands.
        _ = model.handle(.key(.character("r")))
        _ = model.handle(Self.page(1, Self.photos(1...30), generation: 3))
        _ = model.handle(.key(.home))
        _ = model.handle(Self.page(2, Self.photos(61...90), generation: 3))
        #expect(model.selection == 0)
    }

    @Test func offlineUsesOnlyTheCacheEvenOnRefresh() {
        var model = Model(layout: .init(columns: 3, rows: 2), query: nil, offline: true)
        #expect(model.start() == [.loadPage(generation: 0, page: 1, query: nil, mode: .offline)])
        _ = model.handle(Self.page(1, Self.photos(1...30)))
        #expect(model.handle(.key(.character("r"))) == [.loadPage(generation: 1, page: 1, query: nil, mode: .offline)])
    }

    @Test func thumbnailsWithoutAUsableURLAreMarkedFailedWithoutARequest() {
        var model = Model(layout: .init(columns: 3, rows: 2), query: nil, offline: false)
        _ = model.start()
        var photos = Self.photos(1...3, thumbnails: false)
        photos[1].thumbnailURL = "file:///etc/passwd"
        let effects = model.handle(Self.page(1, photos, hasMore: false))
        #expect(Self.thumbnailURLs(effects).isEmpty)
        #expect(model.thumbnail(at: 0) == .failed)
        #expect(model.thumbnail(at: 1) == .failed)
    }

    @Test func photosSeenOnAnEarlierPageAreListedOnce() {
        var model = Self.loaded()
        _ = model.handle(.key(.end))
        _ = model.handle(Self.page(2, Self.photos(25...40)))
        #expect(model.photos.count == 40)
        #expect(Set(model.photos.map(\.id)).count == 40)
    }

    @Test func aResizeKeepsTheSelectionOnScreen() {
        var model = Self.loaded()
        for _ in 0..<4 { _ = model.handle(.key(.down)) }
        #expect(model.selection == 12 && model.topRow == 3)
        _ = model.handle(.resized(.init(columns: 5, rows: 3)))
        #expect(model.selection == 12)
        #expect(model.visibleRange.contains(12))
    }

    /// A full search field says it is full (typing on did nothing, silently); a long search
    /// in the grid's status leaves the counts after it in sight.
    @Test func aFullSearchFieldSaysSoAndALongSearchLeavesTheCounts() {
        var model = Self.loaded()
        _ = model.handle(.key(.character("/")))
        _ = model.handle(.key(.clearLine))
        for character in String(repeating: "long search ", count: 20) { _ = model.handle(.key(.character(character))) }
        guard case .search(let text) = model.mode else { Issue.record("not searching: \(model.mode)"); return }
        #expect(text.count == BrowseModel.searchLimit)
        let full = BrowseStatus.line(model, providers: ["flickr"], message: nil, width: 100)
        #expect(full.contains("full: 200 characters at most"), "\(full)")
        #expect(full.contains("▏"), "the caret stays: \(full)")
        #expect(TerminalText.displayWidth(full) == 100, "\(full)")
        _ = model.handle(.key(.enter))
        _ = model.handle(.pageLoaded(BrowseModel.Page(
            generation: model.generation, number: 1, photos: Self.photos(1...30), hasMore: true, total: 4000, source: .network)))
        let grid = BrowseStatus.line(model, providers: ["flickr"], message: nil, width: 100)
        #expect(grid.contains("1/30 of 4000"), "\(grid)")
    }

    @Test func quitAndInterrupt() {
        var model = Self.loaded()
        #expect(model.handle(.key(.character("q"))) == [.quit])
        #expect(model.handle(.key(.interrupt)) == [.interrupt])
        _ = model.handle(.key(.character("/")))
        #expect(model.handle(.key(.interrupt)) == [.interrupt], "Ctrl-C works while typing a search too")
    }

    /// At 80 columns the keys stay in sight: the status is cut short for them, unless it says
    /// something that went wrong, which keeps the whole line.
    @Test func theKeysStayAt80ColumnsUnlessSomethingWentWrong() {
        var model = Model(layout: .init(columns: 3, rows: 2), query: "a longer search of dogs", offline: false)
        _ = model.start()
        _ = model.handle(.pageLoaded(Model.Page(
            generation: 0, number: 1, photos: Self.photos(1...30), hasMore: true, total: 4000, source: .cache(age: 300))))
        let line = BrowseStatus.line(model, providers: ["flickr"], message: nil, width: 80)
        #expect(line.hasSuffix("↵ view · / search · r refresh · q quit "), "\(line)")
        #expect(line.hasPrefix(" flickr “a longer search"), "\(line)")
        #expect(TerminalText.displayWidth(line) == 80)
        let failed = BrowseStatus.line(model, providers: ["flickr"], message: "could not save: cannot write /a/long/folder/name", width: 80)
        #expect(!failed.contains("q quit") && failed.contains("could not save"), "\(failed)")
        // Offline, what the photos are stays in sight rather than the keys.
        var offline = Model(layout: .init(columns: 3, rows: 2), query: "a longer search of dogs", offline: true)
        _ = offline.start()
        _ = offline.handle(.pageLoaded(Model.Page(
            generation: 0, number: 1, photos: Self.photos(1...30), hasMore: true, total: 4000, source: .cache(age: 300))))
        let cached = BrowseStatus.line(offline, providers: ["flickr"], message: nil, width: 120)
        #expect(cached.contains("offline: cached photos only"), "\(cached)")
    }

    /// A search longer than the line shows its end, where the typing is.
    @Test func aLongSearchShowsWhereTheTypingIs() {
        var model = Self.loaded()
        _ = model.handle(.key(.character("/")))
        for character in "a very long search text that goes on and on past the edge of the line" { _ = model.handle(.key(.character(character))) }
        let line = BrowseStatus.line(model, providers: ["test"], message: nil, width: 50)
        #expect(line.contains("…") && line.contains("edge of the line▏"), "\(line)")
        #expect(TerminalText.displayWidth(line) <= 50)
    }

    @Test func aStalePageMarksTheListingAsFromTheCache() {
        var model = Model(layout: .init(columns: 3, rows: 2), query: nil, offline: false)
        _ = model.start()
        _ = model.handle(.pageLoaded(Model.Page(
            generation: 0, number: 1, photos: Self.photos(1...30), hasMore: true, total: nil,
            source: .stale(age: 600, reason: "connection refused"))))
        #expect(model.source == .stale(age: 600, reason: "connection refused"))
        let line = BrowseStatus.line(model, providers: ["test"], message: nil, width: 200)
        #expect(line.contains("network failed"))
        // The network back for a later page: the pages shown are cached ones of that age, and
        // the failure is no longer said.
        var recovered = model
        _ = recovered.handle(.key(.end))
        _ = recovered.handle(.pageLoaded(Model.Page(generation: 0, number: 2, photos: Self.photos(31...60), hasMore: true, total: nil, source: .network)))
        #expect(recovered.source == .cache(age: 600))
        #expect(!BrowseStatus.line(recovered, providers: ["test"], message: nil, width: 200).contains("network failed"))
        #expect(line.contains("10 min"))
    }

    /// A failed page says first what to do about it: a long reason is cut at the screen's edge.
    /// Offline, trying again cannot help, and is not offered.
    @Test func aFailedPageSaysHowToTryAgainBeforeWhy() {
        var model = Self.loaded()
        _ = model.handle(.key(.end))
        _ = model.handle(.pageFailed(generation: 0, page: 2, reason: String(repeating: "a long reason ", count: 20)))
        let line = BrowseStatus.line(model, providers: ["test"], message: nil, width: 160)
        #expect(line.contains("page 2 failed (r tries again): a long reason"), "\(line)")

        var offline = Model(layout: .init(columns: 3, rows: 2), query: nil, offline: true)
        _ = offline.start()
        _ = offline.handle(.pageFailed(generation: 0, page: 1, reason: "offline and nothing cached"))
        let said = BrowseStatus.line(offline, providers: ["test"], message: nil, width: 100)
        #expect(said.contains("page 1 failed: offline and nothing cached") && !said.contains("tries again"), "\(said)")
    }
}
