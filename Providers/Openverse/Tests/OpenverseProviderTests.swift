import Foundation
import PhotosCore
import Testing

@testable import OpenverseProvider

/// OpenverseProvider against the recorded-format answers in Fixtures/openverse, through a fake
/// transport that enforces Openverse's anonymous limits.
@Suite struct OpenverseProviderTests {
    static let base = "https://openverse.example.test/v1/"
    static let duhok = "edd420e4-471c-4f3f-a2ed-bc48ab3879af"

    static func provider(_ http: FakeTransport) -> OpenverseProvider {
        OpenverseProvider(context: ProviderContext(http: http, settings: ["PHOTOS_OPENVERSE_API": base]))
    }

    /// The fixtures as the emulation serves them; a page size above 20 is a 401, as for
    /// anonymous clients, and a page above 20 a 400.
    static func fixtures() -> FakeTransport {
        FakeTransport { path, query in
            if path.hasPrefix("/v1/images/"), path != "/v1/images/" {
                let id = path.dropFirst("/v1/images/".count).dropLast()
                guard let data = try? OpenverseFixtures.data("image-\(id).json") else {
                    return FakeTransport.answer(#"{"detail":"Not found."}"#, status: 404)
                }
                return FakeTransport.answer(data)
            }
            let size = Int(query["page_size"] ?? "20") ?? 20
            let page = Int(query["page"] ?? "1") ?? 1
            guard size <= 20 else { return FakeTransport.answer(#"{"detail":"Ensure this value is less than or equal to 20."}"#, status: 401) }
            guard page <= 20 else {
                return FakeTransport.answer(#"{"detail":{"page":["Ensure this value is less than or equal to 20."]}}"#, status: 400)
            }
            let name: String
            switch query["q"] {
            case nil: name = "feed-\(size)-\(page).json"
            case "dogs": name = "search-dogs-\(size)-\(page).json"
            case "pwned": name = "search-pwned.json"
            default: name = ""
            }
            guard let data = try? OpenverseFixtures.data(name) else {
                return FakeTransport.answer(#"{"result_count":0,"page_count":0,"page_size":20,"page":1,"results":[]}"#)
            }
            return FakeTransport.answer(data)
        }
    }

    /// The titles of the 45 recorded dog results, in rank order.
    static func dogTitles() throws -> [String] {
        try (1...3).flatMap { page in
            ((try OpenverseFixtures.object("search-dogs-20-\(page).json"))["results"] as? [[String: Any]] ?? []).compactMap { $0["title"] as? String }
        }
    }

    // MARK: Paging within the anonymous limits

    @Test func aPageOfTwentyOrLessIsOneRequest() async throws {
        let http = Self.fixtures()
        let page = try await Self.provider(http).list(ListQuery(text: "dogs", page: 2, perPage: 10))
        #expect(http.urls == [Self.base + "images/?q=dogs&page=2&page_size=10"])
        #expect(page.photos.map(\.title) == Array(try Self.dogTitles()[10..<20]))
        #expect(page.total == 45 && page.hasMore)
        let last = try await Self.provider(Self.fixtures()).list(ListQuery(text: "dogs", page: 5, perPage: 10))
        #expect(last.photos.count == 5 && !last.hasMore)
    }

    @Test func aLargerPageIsServedFromSeveralPagesOfTwentyNeverA401() async throws {
        let http = Self.fixtures()
        let first = try await Self.provider(http).list(ListQuery(text: "dogs", page: 1, perPage: 30))
        #expect(http.queries.allSatisfy { $0["page_size"] == "20" })
        #expect(http.queries.compactMap { $0["page"] }.sorted() == ["1", "2"])
        #expect(first.photos.map(\.title) == Array(try Self.dogTitles()[0..<30]))
        #expect(first.hasMore && first.perPage == 30)

        let http2 = Self.fixtures()
        let second = try await Self.provider(http2).list(ListQuery(text: "dogs", page: 2, perPage: 30))
        #expect(http2.queries.compactMap { $0["page"] }.sorted() == ["2", "3"])
        #expect(second.photos.map(\.title) == Array(try Self.dogTitles()[30..<45]))
        #expect(!second.hasMore)
    }

    @Test func pagesPastThoseThatExistAreNotAskedFor() async throws {
        let http = Self.fixtures()
        let page = try await Self.provider(http).list(ListQuery(text: "dogs", page: 1, perPage: 100))
        #expect(http.queries.compactMap { $0["page"] }.sorted() == ["1", "2", "3"], "page_count is 3")
        #expect(page.photos.count == 45 && !page.hasMore)
    }

    @Test func theDepthLimitIsExplainedWithoutARequest() async throws {
        for (page, perPage) in [(21, 20), (5, 100), (41, 10)] {
            let http = Self.fixtures()
            let error = await photosError { try await Self.provider(http).list(ListQuery(text: "dogs", page: page, perPage: perPage)) }
            guard case .usage(let message)? = error else {
                Issue.record("page \(page) at \(perPage): \(String(describing: error))")
                continue
            }
            #expect(message.contains("400 results") && message.contains("anonymous"))
            #expect(http.urls.isEmpty)
        }
    }

    @Test func smallPagesPastPageTwentyStillReachFourHundredResults() async throws {
        let http = Self.fixtures()
        _ = try await Self.provider(http).list(ListQuery(text: "dogs", page: 30, perPage: 5))
        #expect(http.queries.first?["page"] == "8" && http.queries.first?["page_size"] == "20", "results 145..149 are on page 8 of 20")
    }

    @Test func theLastReachablePageSaysThereIsNoMore() async throws {
        let body = #"{"result_count":10000,"page_count":20,"page_size":20,"page":20,"results":[\#((1...20).map { n in #"{"id":"00000000-0000-4000-8000-\#(String(format: "%012d", n))","title":"t\#(n)"}"# }.joined(separator: ","))]}"#
        let page = try await Self.provider(FakeTransport { _, _ in FakeTransport.answer(body) }).list(ListQuery(text: "x", page: 20, perPage: 20))
        #expect(page.photos.count == 20 && !page.hasMore, "page 20 is as deep as anonymous clients go")
    }

    /// Results that are not objects are records photos cannot read: counted, for the listing
    /// to say, on a page of one request and on one made of several.
    @Test func resultsThatAreNotObjectsAreCountedAsSkipped() async throws {
        let body = #"{"result_count":4,"page_count":1,"page_size":20,"page":1,"results":[1,"x",null,{"id":"00000000-0000-4000-8000-000000000001","title":"t"}]}"#
        let page = try await Self.provider(FakeTransport { _, _ in FakeTransport.answer(body) }).list(ListQuery(text: "x", perPage: 20))
        #expect(page.photos.count == 1 && page.skippedRecords == 3)
        let larger = try await Self.provider(FakeTransport { _, _ in FakeTransport.answer(body) }).list(ListQuery(text: "x", perPage: 30))
        #expect(larger.photos.count == 1 && larger.skippedRecords == 3)
    }

    @Test func aServerSendingMoreThanAskedDoesNotStretchThePage() async throws {
        let ten = try OpenverseFixtures.data("search-dogs-10-1.json")
        let page = try await Self.provider(FakeTransport { _, _ in FakeTransport.answer(ten) }).list(ListQuery(text: "dogs", perPage: 5))
        #expect(page.photos.count == 5)
        #expect(page.extraRecords == 5, "the 5 left out are counted, for the listing to say")
    }

    // MARK: Records

    @Test func aResultCarriesItsLinksCreatorAndTags() async throws {
        let page = try await Self.provider(Self.fixtures()).list(ListQuery(text: "dogs", page: 1, perPage: 10))
        let photo = try #require(page.photos.first)
        #expect(photo.thumbnailURL == "https://api.openverse.org/v1/images/\(photo.id.raw)/thumb/")
        #expect(photo.imageURL?.hasPrefix("https://live.staticflickr.com/") == true)
        #expect(photo.pageURL?.hasPrefix("https://www.flickr.com/photos/") == true)
        #expect(photo.owner == "wgauthier" && photo.tags == ["dog", "dogs", "mammal"])
        #expect(page.photos.contains { $0.width == nil && $0.height == nil }, "null dimensions stay unknown")
        #expect(page.photos.contains { $0.owner == nil }, "a null creator stays unknown")
    }

    @Test func hostileAndBrokenRecordsAreFilteredButTheirTextIsKept() async throws {
        let page = try await Self.provider(Self.fixtures()).list(ListQuery(text: "pwned", perPage: 20))
        #expect(page.photos.count == 5, "no traversal id or upper-case id; the duplicate stays for the listing to count and say")
        #expect(Set(page.photos.map(\.id)).count == 4)
        #expect(page.skippedRecords == 2, "the two records that are no photo are counted, for the warning")
        #expect(page.photos[0].title.contains("\u{1B}]0;pwned\u{07}"))
        #expect(page.photos[1].owner?.unicodeScalars.contains("\u{202E}") == true)
        #expect(page.photos[2].title.unicodeScalars.contains("\u{9B}") && page.photos[2].owner == "Eve\u{1B}[2J")
        #expect(page.photos[2].imageURL == nil, "a URL with a raw space or escape is not a URL")
        let broken = page.photos[3]
        #expect(broken.title == "" && broken.thumbnailURL == nil && broken.pageURL == nil)
        #expect(broken.imageURL != nil)
    }

    // MARK: Detail

    @Test func detailShowsLicenceAndAttribution() async throws {
        let http = Self.fixtures()
        let detail = try await Self.provider(http).detail(PhotoID(provider: "openverse", raw: Self.duhok))
        #expect(http.urls == [Self.base + "images/\(Self.duhok)/"], "the trailing slash matters")
        #expect(detail.photo.title == "University of Duhok" && detail.photo.owner == "wgauthier")
        #expect(detail.extra["license"] == "CC BY-SA 2.0")
        #expect(detail.extra["license_url"] == "https://creativecommons.org/licenses/by-sa/2.0/")
        #expect(detail.extra["attribution"] == #""University of Duhok" by wgauthier is licensed under CC BY-SA 2.0. To view a copy of this license, visit https://creativecommons.org/licenses/by-sa/2.0/."#)
        #expect(detail.extra["source"] == "flickr" && detail.extra["provider"] == nil)
        #expect(detail.sizes.map(\.label) == ["thumbnail", "original"])
        #expect(detail.sizes.last?.width == 1024 && detail.sizes.last?.height == 683)
        #expect(detail.largestImageURL == "https://live.staticflickr.com/5212/5434110551_ca8a6ee5dd_b.jpg")
        #expect(detail.tags.contains("kurdistan"))
    }

    @Test func anUnknownImageIsNotFound() async throws {
        let id = PhotoID(provider: "openverse", raw: "00000000-0000-4000-8000-000000000000")
        #expect(await photosError { try await Self.provider(Self.fixtures()).detail(id) } == .notFound(id))
    }

    @Test func anotherImageInTheAnswerIsBadData() async throws {
        let other = try OpenverseFixtures.data("image-\(Self.duhok).json")
        let id = PhotoID(provider: "openverse", raw: "00000000-0000-4000-8000-000000000001")
        guard case .badData? = await photosError({ try await Self.provider(FakeTransport { _, _ in FakeTransport.answer(other) }).detail(id) }) else {
            Issue.record("an answer about another image is bad data")
            return
        }
    }

    @Test func idsAreLowerCaseUUIDsOnly() async throws {
        #expect(OpenverseProvider.isValidID(Self.duhok))
        for raw in ["abc", "..", Self.duhok.uppercased(), String(Self.duhok.dropLast()), Self.duhok + "0", "edd420e4/471c-4f3f-a2ed-bc48ab3879af",
                    "edd420e4-471c-4f3f-a2ed-bc48ab3879ag", "edd420e4-471c-4f3f-a2ed_bc48ab3879af"] {
            #expect(!OpenverseProvider.isValidID(raw), "\(raw)")
            let http = Self.fixtures()
            let error = await photosError { try await Self.provider(http).detail(PhotoID(provider: "openverse", raw: raw)) }
            #expect(error.map { if case .usage = $0 { return true } else { return false } } == true)
            #expect(http.urls.isEmpty)
        }
    }

    @Test func licenceNamesFollowOpenverse() {
        func name(_ license: String?, _ version: String?) -> String? {
            var object: [String: Any] = [:]
            object["license"] = license
            object["license_version"] = version
            return OpenverseImage(object).licenseName
        }
        #expect(name("by-nc-sa", "2.0") == "CC BY-NC-SA 2.0")
        #expect(name("cc0", "1.0") == "CC0 1.0")
        #expect(name("pdm", "1.0") == "Public Domain Mark 1.0")
        #expect(name("sampling+", "1.0") == "CC Sampling+ 1.0")
        #expect(name("BY", nil) == "CC BY" && name(nil, "1.0") == nil)
    }

    // MARK: Filters and failures

    @Test func filtersBecomeParametersAndBadValuesAreUsageErrors() async throws {
        let http = Self.fixtures()
        _ = try await Self.provider(http).list(
            ListQuery(text: "a&b=c", perPage: 5, filters: ["license": "BY,cc0", "aspect_ratio": "wide", "source": "wikimedia"]))
        let query = try #require(http.queries.first)
        #expect(query["q"] == "a&b=c" && query["license"] == "by,cc0" && query["aspect_ratio"] == "wide" && query["source"] == "wikimedia")

        let feed = Self.fixtures()
        _ = try await Self.provider(feed).list(ListQuery(perPage: 5, filters: ["creator": "NASA"]))
        #expect(feed.queries.first?["creator"] == "NASA" && feed.queries.first?["q"] == nil)

        for (text, filters) in [("dogs", ["license": "gpl"]), ("dogs", ["license_type": "free"]), ("dogs", ["creator": "NASA"])] {
            let http = Self.fixtures()
            let error = await photosError { try await Self.provider(http).list(ListQuery(text: text, filters: filters)) }
            #expect(error.map { if case .usage = $0 { return true } else { return false } } == true, "\(filters)")
            #expect(http.urls.isEmpty)
        }
    }

    @Test func failuresSayWhatHappened() async throws {
        let throttled = FakeTransport { _, _ in
            FakeTransport.answer(
                #"{"detail":"Request was throttled. Expected available in 42 seconds."}"#, status: 429,
                headers: [("Retry-After", "42"), ("X-RateLimit-Limit-anon_burst", "20/min"), ("X-RateLimit-Available-anon_burst", "0")])
        }
        guard case .unavailable(_, let rate)? = await photosError({ try await Self.provider(throttled).list(ListQuery(text: "x")) }) else {
            Issue.record("429 is unavailable")
            return
        }
        #expect(rate.contains("HTTP 429") && rate.contains("anon_burst 20/min") && rate.contains("try again in 42 s"))

        let deep = FakeTransport { _, _ in
            FakeTransport.answer(#"{"detail":{"page":["Ensure this value is less than or equal to 20."]}}"#, status: 400)
        }
        guard case .usage(let depth)? = await photosError({ try await Self.provider(deep).list(ListQuery(text: "x")) }) else {
            Issue.record("a refused page is a usage error")
            return
        }
        #expect(depth.contains("first 20 pages") && depth.contains("page: Ensure this value is less than or equal to 20."))

        for body in ["<!doctype html><title>Sign in</title>", #"{"detail": "nothing"}"#, #"{"results": [{"id": "1", "title": "cut sh"#] {
            guard case .badData? = await photosError({ try await Self.provider(FakeTransport { _, _ in FakeTransport.answer(body) }).list(ListQuery(text: "x")) }) else {
                Issue.record("\(body) is bad data")
                continue
            }
        }
    }
}
