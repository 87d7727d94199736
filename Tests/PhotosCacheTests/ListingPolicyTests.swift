import FixtureServerKit
import Foundation
import GRDB
import PhotosCore
import PhotosTransport
import PlaceholderProvider
import Synchronization
import Testing

@testable import PhotosCache

/// The listing policy: TTL, revalidation, --refresh, --offline and stale-if-error.
@Suite struct ListingPolicyTests {
    @Test func freshListingIsServedWithoutTheNetworkUntilItsTTLExpires() async throws {
        let bed = try CacheBed()
        defer { bed.remove() }
        let cache = bed.cache(ttl: 600)
        defer { cache.close() }
        let provider = FakeProvider { _, _ in .page(FakeProvider.photos("p", count: 3)) }
        let query = ListQuery(text: "dogs", page: 1, perPage: 3)

        let first = try await cache.listing(query, from: provider, mode: .normal)
        #expect(first.origin == .network && first.age == 0 && first.page.photos.count == 3)
        bed.clock.advance(599)
        let second = try await cache.listing(query, from: provider, mode: .normal)
        #expect(second.origin == .cache && second.age == 599 && provider.callCount == 1)
        #expect(second.page.photos == first.page.photos, "photos round-trip through the index, tags included")

        bed.clock.advance(2)
        let third = try await cache.listing(query, from: provider, mode: .normal)
        #expect(third.origin == .network && provider.callCount == 2)

        // Another page, per-page, query or filter is another listing.
        _ = try await cache.listing(ListQuery(text: "dogs", page: 2, perPage: 3), from: provider, mode: .normal)
        _ = try await cache.listing(ListQuery(text: "dogs", page: 1, perPage: 4), from: provider, mode: .normal)
        _ = try await cache.listing(ListQuery(text: "cats", page: 1, perPage: 3), from: provider, mode: .normal)
        _ = try await cache.listing(ListQuery(text: "dogs", page: 1, perPage: 3, filters: ["album": "2"]), from: provider, mode: .normal)
        #expect(provider.callCount == 6)
    }

    @Test func aPageFromTheNetworkIsHandedOverBeforeItIsStored() async throws {
        let bed = try CacheBed()
        defer { bed.remove() }
        let cache = bed.cache(ttl: 600)
        defer { cache.close() }
        let provider = FakeProvider { _, _ in .page(FakeProvider.photos("p", count: 3)) }
        let query = ListQuery(text: "dogs", page: 1, perPage: 3)
        let seen = Mutex<[(photos: Int, stored: Result<Bool, any Error>)]>([])
        let first = try await cache.listing(query, from: provider, mode: .normal) { page in
            let stored = Result { try cache.storedListing(ListingKey(provider: provider.name, query: query)) != nil }
            seen.withLock { $0.append((page.photos.count, stored)) }
        }
        #expect(seen.withLock { $0.map(\.photos) } == [3])
        let storedYet = try seen.withLock { try $0.map { try $0.stored.get() } }
        #expect(storedYet == [false], "the hook runs before the index write")
        #expect(first.origin == .network)
        let cached = try await cache.listing(query, from: provider, mode: .normal) { _ in
            seen.withLock { $0.append((-1, .success(true))) }
        }
        #expect(cached.origin == .cache && cached.page.photos == first.page.photos, "stored after the hook")
        #expect(seen.withLock { $0.count } == 1, "a page read from the index is not handed over")
    }

    @Test func aListingTheIndexCannotStoreIsStillShownAndSaidOnce() async throws {
        let bed = try CacheBed()
        defer { bed.remove() }
        let cache = bed.cache()
        defer { cache.close() }
        let provider = FakeProvider { _, _ in .page(FakeProvider.photos("p", count: 3)) }
        _ = try await cache.listing(ListQuery(text: "warm", page: 1, perPage: 3), from: provider, mode: .normal)
        // Every later write of a listing fails, as on a full disk.
        try cache.index.write { db in
            try db.execute(sql: "CREATE TRIGGER refuse BEFORE INSERT ON listing BEGIN SELECT RAISE(FAIL, 'database or disk is full'); END")
        }
        for text in ["dogs", "cats"] {
            let page = try await cache.listing(ListQuery(text: text, page: 1, perPage: 3), from: provider, mode: .normal)
            #expect(page.origin == .network && page.page.photos.count == 3, "the listing is shown")
        }
        #expect(bed.warnings.all.count == 1, "said once: \(bed.warnings.all)")
        #expect(bed.warnings.all.first?.contains("could not store a listing (database or disk is full)") == true)
    }

    @Test func refreshAlwaysAsksTheNetworkUnconditionally() async throws {
        let bed = try CacheBed()
        defer { bed.remove() }
        let cache = bed.cache()
        defer { cache.close() }
        let provider = FakeProvider { _, _ in .page(FakeProvider.photos("p", count: 2), validators: HTTPValidators(etag: "\"v1\"")) }
        let query = ListQuery(page: 1, perPage: 2)
        _ = try await cache.listing(query, from: provider, mode: .normal)
        let refreshed = try await cache.listing(query, from: provider, mode: .refresh)
        #expect(refreshed.origin == .network && provider.callCount == 2)
        #expect(provider.lastValidators == .some(nil), "--refresh sends no validators")
    }

    @Test func offlineServesAnyAgeAndFailsClearlyWhenNothingIsCached() async throws {
        let bed = try CacheBed()
        defer { bed.remove() }
        let cache = bed.cache(ttl: 10)
        defer { cache.close() }
        let provider = FakeProvider { _, _ in .page(FakeProvider.photos("p", count: 2)) }
        let query = ListQuery(text: "sunt", page: 1, perPage: 2)
        await #expect(throws: PhotosError.offlineNothingCached("fake search \"sunt\" page 1 (2 per page)")) {
            _ = try await cache.listing(query, from: provider, mode: .offline)
        }
        #expect(PhotosError.offlineNothingCached("x").exitCode == 69)
        _ = try await cache.listing(query, from: provider, mode: .normal)
        bed.clock.advance(86_400)
        let offline = try await cache.listing(query, from: provider, mode: .offline)
        #expect(offline.origin == .cache && offline.age == 86_400 && provider.callCount == 1)
    }

    @Test func networkFailureServesTheStaleCopyWithItsAgeAndReason() async throws {
        let bed = try CacheBed()
        defer { bed.remove() }
        let cache = bed.cache(ttl: 60)
        defer { cache.close() }
        let provider = FakeProvider { _, _ in .page(FakeProvider.photos("p", count: 2)) }
        let query = ListQuery(page: 1, perPage: 2)
        _ = try await cache.listing(query, from: provider, mode: .normal)
        bed.clock.advance(3600)
        provider.answer { _, _ in .failure(TransportError.cannotConnect(host: "api.example", detail: "refused")) }
        let stale = try await cache.listing(query, from: provider, mode: .normal)
        #expect(stale.origin == .stale(reason: "cannot connect to api.example (refused)") && stale.age == 3600)
        let refreshed = try await cache.listing(query, from: provider, mode: .refresh)
        #expect(refreshed.fromCache && refreshed.age == 3600, "--refresh gets the freshest there is")

        provider.answer { _, _ in .failure(PhotosError.unavailable(provider: "fake", detail: "HTTP 503")) }
        #expect(try await cache.listing(query, from: provider, mode: .normal).origin == .stale(reason: "fake is unavailable: HTTP 503"))

        // Credentials are the user's to fix: never hidden behind a stale page.
        provider.answer { _, _ in .failure(PhotosError.authentication(provider: "fake", detail: "bad key")) }
        await #expect(throws: PhotosError.authentication(provider: "fake", detail: "bad key")) {
            _ = try await cache.listing(query, from: provider, mode: .normal)
        }
        // Without a cached copy the error stands.
        provider.answer { _, _ in .failure(TransportError.cannotConnect(host: "api.example", detail: "refused")) }
        await #expect(throws: TransportError.cannotConnect(host: "api.example", detail: "refused")) {
            _ = try await cache.listing(ListQuery(page: 2, perPage: 2), from: provider, mode: .normal)
        }
    }

    /// Found by the cache fuzz target: a finite fetch time long before 1970 made the age 1e300
    /// seconds, which `photos list --format json` turned into an Int and crashed on.
    @Test(arguments: [-1e300, -Double.infinity, -1, 1e300])
    func aTamperedFetchTimeGivesAnAgeOfSecondsPhotosCanPrint(fetchedAt: Double) async throws {
        let bed = try CacheBed()
        defer { bed.remove() }
        let cache = bed.cache(ttl: 600)
        defer { cache.close() }
        let provider = FakeProvider { _, _ in .page(FakeProvider.photos("p", count: 2)) }
        let query = ListQuery(page: 1, perPage: 2)
        _ = try await cache.listing(query, from: provider, mode: .normal)
        try cache.index.write { db in try db.execute(sql: "UPDATE listing SET fetched_at = ?", arguments: [fetchedAt]) }

        let offline = try await cache.listing(query, from: provider, mode: .offline)
        #expect(offline.age == bed.clock.now.timeIntervalSince1970, "as old as can be, and a whole number of seconds")
        #expect(Int(exactly: offline.age) != nil)
        provider.answer { _, _ in .failure(TransportError.cannotConnect(host: "api.example", detail: "refused")) }
        let stale = try await cache.listing(query, from: provider, mode: .normal)
        #expect(stale.origin == .stale(reason: "cannot connect to api.example (refused)") && Int(exactly: stale.age) != nil)
    }

    /// Found by the cache fuzz target: a stored_at of inf (or -1e300) became the oldest entry of
    /// `photos cache stats`, whose age in seconds (an Int) crashed it.
    @Test(arguments: [Double.infinity, -Double.infinity, -1e300, 1e300, -1])
    func statisticsLeaveTimesThatAreNotTimesOut(storedAt: Double) async throws {
        let bed = try CacheBed()
        defer { bed.remove() }
        let cache = bed.cache()
        defer { cache.close() }
        let provider = FakeProvider { _, _ in .page(FakeProvider.photos("p", count: 1)) }
        _ = try await cache.listing(ListQuery(page: 1, perPage: 1), from: provider, mode: .normal)
        bed.clock.advance(100)
        _ = try await cache.listing(ListQuery(page: 2, perPage: 1), from: provider, mode: .normal)
        try cache.index.write { db in
            try db.execute(sql: "UPDATE listing SET stored_at = ? WHERE page = 1", arguments: [storedAt])
        }
        let oldest = try #require(try cache.statistics().oldestEntry)
        #expect(oldest == bed.clock.now, "the one listing with a real time")
        try cache.index.write { db in try db.execute(sql: "UPDATE listing SET stored_at = ?", arguments: [storedAt]) }
        #expect(try cache.statistics().oldestEntry == nil)
    }

    @Test func listingKeysAreProviderQueryFiltersPageAndPerPage() {
        let key = ListingKey(provider: "flickr", query: ListQuery(text: " dogs ", page: 2, perPage: 50, filters: ["b": "2", "a": "1"]))
        #expect(key.key == "flickr\u{1F}q=dogs\u{1F}a=1&b=2\u{1F}2\u{1F}50")
        #expect(key.searchKey == "flickr\u{1F}q=dogs\u{1F}a=1&b=2")
    }

    /// The keys of listings already in users' caches stay as they were: the encoding that skips
    /// Foundation for plain text gives what Foundation gives, for every kind of text.
    @Test func keyTextIsEncodedAsFoundationEncodesIt() {
        let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-._~ "))
        var texts = ["dogs", "black cat", "a-b.c_d~e", "", "100%", "a&b=c", "a/b?c#d", "Zürich", "東京", "naïve café", "🐕 dog",
                     "tab\there", "new\nline", "e\u{301}", "\u{1F}", "x+y", "'quoted'", "~~"]
        var generator = SystemRandomNumberGenerator()
        let alphabet = Array("abcXYZ09 -._~%&=+/?#é東🐕\u{1F}\t")
        for _ in 0..<500 {
            texts.append(String((0..<Int.random(in: 1...12, using: &generator)).map { _ in alphabet.randomElement(using: &generator)! }))
        }
        for text in texts {
            #expect(ListingKey.encode(text) == text.addingPercentEncoding(withAllowedCharacters: allowed), "\(text.debugDescription)")
        }
    }

    // MARK: Against the fixture server

    @Test func revalidationCostsA304WithoutABody() async throws {
        let bed = try CacheBed()
        defer { bed.remove() }
        let server = try await ServerBed.start()
        let cache = bed.cache(ttl: 600)
        defer { cache.close() }
        let provider = PlaceholderProvider(context: ProviderContext(http: server.transport, settings: server.settings))
        let query = ListQuery(text: "sunt", page: 1, perPage: 5)

        let first = try await cache.listing(query, from: provider, mode: .normal)
        #expect(first.origin == .network && first.page.photos.count == 5)
        let stored = try #require(try cache.storedListing(ListingKey(provider: "placeholder", scope: provider.cacheScope, query: query)))
        #expect(stored.validators.etag?.hasPrefix("W/\"") == true, "json-server's weak ETag is kept")

        server.server.resetStats()
        bed.clock.advance(601)
        let second = try await cache.listing(query, from: provider, mode: .normal)
        #expect(second.origin == .revalidated && second.age == 0 && second.page == first.page)
        #expect(server.server.stats().requests == 1 && server.emulation.notModifiedResponses == 1)
        let request = try #require(server.emulation.handledRequests.last)
        #expect(request.header("if-none-match") == stored.validators.etag)

        // Revalidated means fresh again: no request within the TTL.
        bed.clock.advance(300)
        #expect(try await cache.listing(query, from: provider, mode: .normal).origin == .cache)
        #expect(server.server.stats().requests == 1)
        // --refresh is unconditional: a full 200.
        #expect(try await cache.listing(query, from: provider, mode: .refresh).origin == .network)
        #expect(server.emulation.notModifiedResponses == 1 && server.server.stats().requests == 2)
        try await server.server.shutdown()
    }

    @Test func stoppedServerMeansStaleIfErrorAndOfflineStillWorks() async throws {
        let bed = try CacheBed()
        defer { bed.remove() }
        let server = try await ServerBed.start()
        let cache = bed.cache(ttl: 600)
        defer { cache.close() }
        let provider = PlaceholderProvider(context: ProviderContext(http: server.transport, settings: server.settings))
        let query = ListQuery(page: 1, perPage: 4)
        _ = try await cache.listing(query, from: provider, mode: .normal)
        try await server.server.shutdown()

        bed.clock.advance(7200)
        let stale = try await cache.listing(query, from: provider, mode: .normal)
        guard case .stale(let reason) = stale.origin else {
            Issue.record("expected a stale page, got \(stale.origin)")
            return
        }
        #expect(reason.contains("127.0.0.1") && stale.age == 7200 && stale.page.photos.count == 4)
        #expect(try await cache.listing(query, from: provider, mode: .refresh).fromCache)
        #expect(try await cache.listing(query, from: provider, mode: .offline).origin == .cache)
        await #expect(throws: PhotosError.self) {
            _ = try await cache.listing(ListQuery(page: 9, perPage: 4), from: provider, mode: .offline)
        }
    }
}
