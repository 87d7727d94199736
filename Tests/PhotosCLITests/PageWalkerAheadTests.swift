import Foundation
import PhotosCache
import PhotosCore
import Synchronization
import Testing

@testable import PhotosCLI

/// A walk with `--limit` asks for the pages the limit needs together with the first; one with
/// `--all` asks for the pages it will need together once the provider has said how far its
/// listing goes. Neither waits one round trip after another.
struct PageWalkerAheadTests {
    /// A provider with numbered pages of `perPage` photos, `pages` deep, that counts the pages
    /// asked at once. The pages after the first (and with `holdFirst` the first too) answer only
    /// once `holdUntilAsked` pages have been asked (or after a minute: a walk that asks one page
    /// after another fails then, slowly; one that asks them together is never held that long,
    /// however busy the machine keeps the tasks that ask), so that asking ahead
    /// shows without depending on speed. Past its last page it fails, as some APIs do.
    final class NumberedProvider: RegisteredProvider {
        static let descriptor = ProviderDescriptor(
            name: "numbered", summary: "pages by number", homepage: "https://example.test", settings: [],
            idSyntax: "numbered:<n>", idExample: "numbered:1", maxPerPage: 100, paging: .pageNumbers)

        let namesLastPage: Bool
        let holdUntilAsked: Int
        let holdFirst: Bool
        let pages: Int
        private let state = Mutex<(asked: [Int], inFlight: Int, most: Int)>(([], 0, 0))

        init(namesLastPage: Bool = true, holdUntilAsked: Int = 0, holdFirst: Bool = false, pages: Int = 10) {
            self.namesLastPage = namesLastPage
            self.holdUntilAsked = holdUntilAsked
            self.holdFirst = holdFirst
            self.pages = pages
        }

        convenience init(context: ProviderContext) {
            self.init()
        }

        var asked: [Int] { state.withLock { $0.asked } }
        var mostAtOnce: Int { state.withLock { $0.most } }

        func list(_ query: ListQuery) async throws -> PhotoPage {
            state.withLock { state in
                state.asked.append(query.page)
                state.inFlight += 1
                state.most = max(state.most, state.inFlight)
            }
            defer { state.withLock { $0.inFlight -= 1 } }
            if query.page > 1 || holdFirst {
                let deadline = ContinuousClock.now + .seconds(60)
                while state.withLock({ $0.asked.count }) < holdUntilAsked, ContinuousClock.now < deadline {
                    try await Task.sleep(for: .milliseconds(2))
                }
            }
            guard query.page <= pages else { throw PhotosError.unavailable(provider: "numbered", detail: "page \(query.page) is past the end") }
            let photos = (0..<query.perPage).map { index in
                let number = (query.page - 1) * query.perPage + index + 1
                return Photo(id: PhotoID(provider: "numbered", raw: String(number)), title: "photo \(number)")
            }
            var page = PhotoPage(
                page: query.page, perPage: query.perPage, total: pages * query.perPage, hasMore: query.page < pages, photos: photos)
            if namesLastPage { page.lastPage = pages }
            return page
        }

        func detail(_ id: PhotoID) async throws -> PhotoDetail { throw PhotosError.notFound(id) }
        func isValidID(_ raw: String) -> Bool { Int(raw) != nil }
    }

    static func walk(limit: Int? = nil, all: Bool = false, _ provider: NumberedProvider) async throws -> ProviderListing {
        let cache = PhotoCache(configuration: CacheConfiguration(location: .temporary))
        defer { cache.close() }
        let request = ListingRequest(
            providers: "numbered", text: nil, page: 1, perPage: 10, limit: limit, walkAll: all, thumbnails: false, format: .table)
        return try await PageWalker(cache: cache, registry: ProviderRegistry([NumberedProvider.self])).walk(request, from: provider)
    }

    @Test func theLimitsPagesAreAskedForTogetherWithTheFirst() async throws {
        let provider = NumberedProvider(holdUntilAsked: 5, holdFirst: true)
        let listing = try await Self.walk(limit: 50, provider)
        #expect(provider.asked.sorted() == [1, 2, 3, 4, 5], "the five pages fifty photos need, no more")
        #expect(provider.mostAtOnce == 5, "pages 1 to 5 at once")
        #expect(listing.photos.map(\.title) == (1...50).map { "photo \($0)" }, "in order, whatever order they came in")
    }

    @Test func aListingShorterThanTheLimitEndsWhereItEnds() async throws {
        // Pages 3 to 5 are asked with the first and fail: the walk ends at page 2, as the
        // provider says, and nothing of theirs reaches the listing.
        let provider = NumberedProvider(holdUntilAsked: 5, holdFirst: true, pages: 2)
        let listing = try await Self.walk(limit: 50, provider)
        #expect(provider.asked.sorted() == [1, 2, 3, 4, 5])
        #expect(listing.photos.map(\.title) == (1...20).map { "photo \($0)" })
        #expect(listing.lastPage == 2 && !listing.hasMore && listing.partialError == nil)
    }

    @Test func aLimitPastTheLookaheadAsksTheRestOncePageOneSaysTheyExist() async throws {
        let provider = NumberedProvider()
        let listing = try await Self.walk(limit: 100, provider)
        #expect(provider.asked.sorted() == Array(1...10))
        #expect(provider.asked.prefix(1 + PageWalker.Pages.lookahead).sorted() == Array(1...(1 + PageWalker.Pages.lookahead)))
        #expect(listing.photos.count == 100)
    }

    @Test func allAsksAFewPagesAheadUpToTheLastOne() async throws {
        let provider = NumberedProvider(holdUntilAsked: 1 + PageWalker.Pages.lookahead)
        let listing = try await Self.walk(all: true, provider)
        #expect(provider.asked.sorted() == Array(1...10), "never a page past the last the provider named")
        #expect(provider.mostAtOnce == PageWalker.Pages.lookahead)
        #expect(listing.photos.count == 100 && listing.lastPage == 10 && !listing.hasMore)
    }

    @Test func aProviderThatCannotSayHowFarItGoesIsWalkedOnePageAtATimePastTheLimitsFirstPages() async throws {
        let limited = NumberedProvider(namesLastPage: false, holdUntilAsked: 3, holdFirst: true)
        let listing = try await Self.walk(limit: 30, limited)
        #expect(limited.asked.sorted() == [1, 2, 3] && limited.mostAtOnce == 3, "what the limit needs, with the first")
        #expect(listing.photos.count == 30)

        let all = NumberedProvider(namesLastPage: false)
        let walked = try await Self.walk(all: true, all)
        #expect(all.asked == Array(1...10))
        #expect(all.mostAtOnce == 1)
        #expect(walked.photos.count == 100)
    }
}
