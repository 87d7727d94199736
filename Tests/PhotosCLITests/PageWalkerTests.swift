import Foundation
import PhotosCache
import PhotosCore
import Synchronization
import Testing

@testable import PhotosCLI

/// How `list` walks one provider's pages: `--all`, `--limit`, and a page failing midway.
struct PageWalkerTests {
    /// A provider serving scripted pages of `perPage` photos, remembering which it was asked for.
    final class ScriptedProvider: PhotoProvider {
        let name = "scripted"
        let maxPerPage: Int
        let pages: Int
        let failing: Set<Int>
        let emptyFrom: Int?
        let asked = Mutex<[(page: Int, perPage: Int)]>([])

        init(pages: Int, maxPerPage: Int = 100, failing: Set<Int> = [], emptyFrom: Int? = nil) {
            self.pages = pages
            self.maxPerPage = maxPerPage
            self.failing = failing
            self.emptyFrom = emptyFrom
        }

        var askedPages: [Int] { asked.withLock { $0.map(\.page) } }

        func list(_ query: ListQuery) async throws -> PhotoPage {
            asked.withLock { $0.append((query.page, query.perPage)) }
            if failing.contains(query.page) {
                throw PhotosError.unavailable(provider: name, detail: "page \(query.page) timed out")
            }
            let count = emptyFrom.map { query.page >= $0 } == true ? 0 : query.perPage
            let photos = (0..<count).map { index in
                let number = (query.page - 1) * query.perPage + index + 1
                return Photo(id: PhotoID(provider: name, raw: String(number)), title: "photo \(number)")
            }
            return PhotoPage(page: query.page, perPage: query.perPage, total: pages * query.perPage, hasMore: query.page < pages, photos: photos)
        }

        func detail(_ id: PhotoID) async throws -> PhotoDetail { throw PhotosError.notFound(id) }
        func isValidID(_ raw: String) -> Bool { Int(raw) != nil }
    }

    static func request(page: Int = 1, perPage: Int? = nil, limit: Int? = nil, all: Bool = false) -> ListingRequest {
        ListingRequest(
            providers: "scripted", text: nil, page: page, perPage: perPage, limit: limit, walkAll: all, thumbnails: false,
            format: .table)
    }

    static func walk(_ request: ListingRequest, _ provider: ScriptedProvider) async throws -> ProviderListing {
        let cache = PhotoCache(configuration: CacheConfiguration(location: .temporary))
        defer { cache.close() }
        return try await PageWalker(cache: cache, registry: ProviderRegistry([])).walk(request, from: provider)
    }

    /// Two pages that repeat photos within and across them, one photo named by another provider.
    final class RepeatingProvider: PhotoProvider {
        let name = "scripted"
        let maxPerPage = 100
        static let pages: [[PhotoID]] = [
            ["1", "2", "2", "3"].map { PhotoID(provider: "scripted", raw: $0) },
            ["3", "4", "1", "5"].map { PhotoID(provider: "scripted", raw: $0) } + [PhotoID(provider: "other", raw: "1")],
        ]

        func list(_ query: ListQuery) async throws -> PhotoPage {
            let ids = Self.pages[query.page - 1]
            return PhotoPage(
                page: query.page, perPage: query.perPage, total: 9, hasMore: query.page < Self.pages.count,
                photos: ids.map { Photo(id: $0, title: "\($0)") })
        }

        func detail(_ id: PhotoID) async throws -> PhotoDetail { throw PhotosError.notFound(id) }
        func isValidID(_ raw: String) -> Bool { true }
    }

    @Test func aPhotoSeenBeforeIsListedOnceWhereItFirstCameAndCounted() async throws {
        let cache = PhotoCache(configuration: CacheConfiguration(location: .temporary))
        defer { cache.close() }
        let listing = try await PageWalker(cache: cache, registry: ProviderRegistry([])).walk(
            Self.request(perPage: 5, all: true), from: RepeatingProvider())
        #expect(listing.photos.map(\.id.description) == ["scripted:1", "scripted:2", "scripted:3", "scripted:4", "scripted:5", "other:1"])
        #expect(listing.duplicates == 3, "one within the first page, two from it on the second")
    }

    @Test func withoutAllOrLimitOnlyTheAskedPageIsFetched() async throws {
        let provider = ScriptedProvider(pages: 3)
        let listing = try await Self.walk(Self.request(page: 2, perPage: 10), provider)
        #expect(provider.askedPages == [2])
        #expect(listing.photos.map(\.title).first == "photo 11")
        #expect(listing.photos.count == 10)
        #expect(listing.firstPage == 2 && listing.lastPage == 2)
        #expect(listing.hasMore, "page 3 is still there")
    }

    @Test func allWalksToTheLastPage() async throws {
        let provider = ScriptedProvider(pages: 3)
        let listing = try await Self.walk(Self.request(perPage: 4, all: true), provider)
        #expect(provider.askedPages == [1, 2, 3])
        #expect(listing.photos.map(\.title) == (1...12).map { "photo \($0)" })
        #expect(listing.lastPage == 3)
        #expect(!listing.hasMore)
        #expect(listing.partialError == nil)
    }

    @Test func limitStopsAsSoonAsItIsReachedAndCutsTheLastPage() async throws {
        let provider = ScriptedProvider(pages: 10, maxPerPage: 2)
        let listing = try await Self.walk(Self.request(limit: 5), provider)
        #expect(provider.askedPages == [1, 2, 3], "three pages of two hold five photos")
        #expect(provider.asked.withLock { $0.allSatisfy { $0.perPage == 2 } }, "pages as large as the provider allows")
        #expect(listing.photos.count == 5)
        #expect(listing.photos.last?.title == "photo 5")
    }

    @Test func aSmallLimitAsksForASmallPage() async throws {
        let provider = ScriptedProvider(pages: 10)
        let listing = try await Self.walk(Self.request(limit: 7), provider)
        #expect(provider.asked.withLock { $0.map(\.perPage) } == [7])
        #expect(listing.photos.count == 7)
    }

    @Test func aLaterPageFailingKeepsWhatArrivedAndSaysWhy() async throws {
        let provider = ScriptedProvider(pages: 5, failing: [3])
        let listing = try await Self.walk(Self.request(perPage: 2, all: true), provider)
        #expect(provider.askedPages == [1, 2, 3])
        #expect(listing.photos.count == 4)
        #expect(listing.lastPage == 2)
        #expect(listing.partialError?.contains("page 3 timed out") == true)
    }

    @Test func theFirstPageFailingIsTheProvidersFailure() async throws {
        let provider = ScriptedProvider(pages: 5, failing: [1])
        await #expect(throws: PhotosError.self) { try await Self.walk(Self.request(all: true), provider) }
    }

    /// An empty page the server says more follow is walked past (Openverse empties a page of
    /// dead links, with results after it), but three in a row end the walk: a server that
    /// says "more" of every empty page is not asked to the page bound.
    @Test func threeEmptyPagesInARowEndTheWalkEvenWhenTheServerSaysThereIsMore() async throws {
        let provider = ScriptedProvider(pages: 1000, emptyFrom: 3)
        let listing = try await Self.walk(Self.request(perPage: 5, all: true), provider)
        #expect(provider.askedPages == [1, 2, 3, 4, 5])
        #expect(listing.photos.count == 10)
        // Said: the user asked for every page, and the provider says there are more.
        #expect(listing.endedEarly == .emptyPages(3))
        #expect(Listing.dataWarnings(listing).contains(
            "scripted: stopped after page 5: its last 3 pages held no photos although it says there are more; use --page 6 to try further"),
            "\(Listing.dataWarnings(listing))")
        // A page that ends the walk because the provider has no more is no early end.
        let short = try await Self.walk(Self.request(perPage: 5, all: true), ScriptedProvider(pages: 2))
        #expect(short.endedEarly == nil && Listing.dataWarnings(short).isEmpty)
    }
}
