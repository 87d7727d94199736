import Foundation
import PhotosCache
import PhotosCore
import Synchronization
import Testing

@testable import PhotosCLI

/// A walk with `--limit` or `--all` asks for the pages it will need together once the provider
/// has said how far its listing goes, instead of one round trip after another.
struct PageWalkerAheadTests {
    /// A provider with numbered pages of `perPage` photos, ten pages deep, that counts the pages
    /// asked at once. The pages after the first answer only once `holdUntilAsked` pages have been
    /// asked (or after five seconds), so that asking ahead shows without depending on speed.
    final class NumberedProvider: RegisteredProvider {
        static let descriptor = ProviderDescriptor(
            name: "numbered", summary: "pages by number", homepage: "https://example.test", settings: [],
            idSyntax: "numbered:<n>", idExample: "numbered:1", maxPerPage: 100, paging: .pageNumbers)

        let namesLastPage: Bool
        let holdUntilAsked: Int
        private let state = Mutex<(asked: [Int], inFlight: Int, most: Int)>(([], 0, 0))

        init(namesLastPage: Bool = true, holdUntilAsked: Int = 0) {
            self.namesLastPage = namesLastPage
            self.holdUntilAsked = holdUntilAsked
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
            if query.page > 1 {
                let deadline = ContinuousClock.now + .seconds(5)
                while state.withLock({ $0.asked.count }) < holdUntilAsked, ContinuousClock.now < deadline {
                    try await Task.sleep(for: .milliseconds(2))
                }
            }
            let photos = (0..<query.perPage).map { index in
                let number = (query.page - 1) * query.perPage + index + 1
                return Photo(id: PhotoID(provider: "numbered", raw: String(number)), title: "photo \(number)")
            }
            var page = PhotoPage(page: query.page, perPage: query.perPage, total: 10 * query.perPage, hasMore: query.page < 10, photos: photos)
            if namesLastPage { page.lastPage = 10 }
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

    @Test func theLimitsPagesAreAskedForTogetherAfterTheFirst() async throws {
        let provider = NumberedProvider(holdUntilAsked: 5)
        let listing = try await Self.walk(limit: 50, provider)
        #expect(provider.asked.first == 1)
        #expect(provider.asked.sorted() == [1, 2, 3, 4, 5], "the five pages fifty photos need, no more")
        #expect(provider.mostAtOnce == 4, "pages 2 to 5 at once")
        #expect(listing.photos.map(\.title) == (1...50).map { "photo \($0)" }, "in order, whatever order they came in")
    }

    @Test func allAsksAFewPagesAheadUpToTheLastOne() async throws {
        let provider = NumberedProvider(holdUntilAsked: 1 + PageWalker.Pages.lookahead)
        let listing = try await Self.walk(all: true, provider)
        #expect(provider.asked.sorted() == Array(1...10), "never a page past the last the provider named")
        #expect(provider.mostAtOnce == PageWalker.Pages.lookahead)
        #expect(listing.photos.count == 100 && listing.lastPage == 10 && !listing.hasMore)
    }

    @Test func aProviderThatCannotSayHowFarItGoesIsWalkedOnePageAtATime() async throws {
        let provider = NumberedProvider(namesLastPage: false)
        let listing = try await Self.walk(limit: 30, provider)
        #expect(provider.asked == [1, 2, 3])
        #expect(provider.mostAtOnce == 1)
        #expect(listing.photos.count == 30)
    }
}
