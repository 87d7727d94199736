import Foundation
import PhotosCore
import Testing

@testable import NASAProvider

/// NASAProvider against the recorded-format answers in Fixtures/nasa, through a fake transport.
@Suite struct NASAProviderTests {
    static let base = "https://nasa.example.test"
    static let empty = #"{"collection":{"version":"1.0","href":"x","items":[],"metadata":{"total_hits":0}}}"#

    /// Items that are not objects are records photos cannot read: counted, for the listing to
    /// say, not dropped in silence.
    @Test func itemsThatAreNotObjectsAreCountedAsSkipped() async throws {
        let item = #"{"data":[{"nasa_id":"KSC-1","title":"t","media_type":"image"}],"links":[{"href":"https://images-assets.nasa.gov/image/KSC-1/KSC-1~thumb.jpg","rel":"preview"}]}"#
        let body = #"{"collection":{"version":"1.0","href":"x","items":[1,"x",null,\#(item)],"metadata":{"total_hits":4}}}"#
        let page = try await Self.provider(FakeTransport { _, _ in FakeTransport.answer(body) }).list(ListQuery(text: "x", perPage: 10))
        #expect(page.photos.map(\.id.raw) == ["KSC-1"] && page.skippedRecords == 3)
    }

    static func provider(_ http: FakeTransport) -> NASAProvider {
        NASAProvider(context: ProviderContext(http: http, settings: ["PHOTOS_NASA_API": base + "/"]))
    }

    /// The fixtures as the emulation serves them.
    static func fixtures() -> FakeTransport {
        FakeTransport { path, query in
            if path.hasPrefix("/asset/") {
                let id = String(path.dropFirst("/asset/".count))
                guard let data = try? NASAFixtures.data("asset-\(id).json") else {
                    return FakeTransport.answer(#"{"reason": "No assets found with the given nasa_id."}"#, status: 404)
                }
                return FakeTransport.answer(data)
            }
            if let id = query["nasa_id"] {
                return FakeTransport.answer((try? NASAFixtures.data("item-\(id).json")) ?? Data(Self.empty.utf8))
            }
            let size = query["page_size"] ?? "100"
            let page = query["page"] ?? "1"
            let name: String
            switch query["q"] {
            case "dogs": name = "search-dogs-\(size)-\(page).json"
            case "apollo": name = "feed-\(size)-\(page).json"
            case "pwned": name = "search-pwned.json"
            default: name = ""
            }
            return FakeTransport.answer((try? NASAFixtures.data(name)) ?? Data(Self.empty.utf8))
        }
    }

    // MARK: Search

    @Test func theImageHostIsNamedOnlyForTheLibrarysOwnAPIAndIsWhereItsListingsImagesAre() async throws {
        let own = NASAProvider(context: ProviderContext(http: Self.fixtures(), settings: [:]))
        let host = try #require(own.imageHost.flatMap { URL(string: $0)?.host })
        let page = try await own.list(ListQuery(text: "dogs", page: 1, perPage: 10))
        #expect(!page.photos.isEmpty)
        #expect(page.photos.allSatisfy { URL(string: $0.thumbnailURL ?? "")?.host == host }, "the recorded thumbnails come from \(host)")
        #expect(own.listingHost == NASAProvider.defaultEndpoint)
        // Another endpoint (a mirror, a test server) may serve its images from anywhere.
        #expect(Self.provider(Self.fixtures()).imageHost == nil)
        #expect(Self.provider(Self.fixtures()).listingHost == Self.base)
    }

    @Test func searchAsksForImagesOnlyAndPages() async throws {
        let http = Self.fixtures()
        let page = try await Self.provider(http).list(ListQuery(text: "dogs", page: 2, perPage: 10))
        #expect(http.urls == [Self.base + "/search?q=dogs&media_type=image&page=2&page_size=10"])
        #expect(page.photos.count == 10 && page.total == 25 && page.hasMore)
        let last = try await Self.provider(Self.fixtures()).list(ListQuery(text: "dogs", page: 3, perPage: 10))
        #expect(last.photos.count == 5 && !last.hasMore, "no next link")
    }

    @Test func withoutAQueryTheDefaultSearchRunsUnlessAKeywordFilterStandsInForIt() async throws {
        let feed = Self.fixtures()
        let page = try await Self.provider(feed).list(ListQuery(perPage: 10))
        #expect(feed.queries.first?["q"] == NASAProvider.defaultQuery && page.photos.count == 10)

        let centre = Self.fixtures()
        _ = try await Self.provider(centre).list(ListQuery(perPage: 10, filters: ["center": "JPL"]))
        #expect(centre.queries.first?["q"] == nil && centre.queries.first?["center"] == "JPL")

        let years = Self.fixtures()
        _ = try await Self.provider(years).list(ListQuery(perPage: 10, filters: ["year_start": "1969", "year_end": "1972"]))
        #expect(years.queries.first?["q"] == NASAProvider.defaultQuery && years.queries.first?["year_start"] == "1969")

        let text = Self.fixtures()
        _ = try await Self.provider(text).list(ListQuery(text: "moon & stars #1", perPage: 10))
        #expect(text.queries.first?["q"] == "moon & stars #1" && text.queries.first?["media_type"] == "image")
    }

    @Test func badYearsAreUsageErrorsWithoutARequest() async throws {
        for filters in [["year_start": "69"], ["year_end": "19x9"], ["year_start": "1980", "year_end": "1970"]] {
            let http = Self.fixtures()
            let error = await photosError { try await Self.provider(http).list(ListQuery(filters: filters)) }
            #expect(error.map { if case .usage = $0 { return true } else { return false } } == true, "\(filters)")
            #expect(http.urls.isEmpty)
        }
    }

    @Test func aResultCarriesItsPreviewOwnerTagsAndDate() async throws {
        let page = try await Self.provider(Self.fixtures()).list(ListQuery(text: "dogs", page: 1, perPage: 10))
        let first = try #require(page.photos.first)
        #expect(first.title == "Search and rescue dogs at Kennedy" && first.owner == "Kim Shiflett")
        #expect(first.thumbnailURL?.hasPrefix("https://images-assets.nasa.gov/image/\(first.id.raw)/") == true)
        #expect(first.thumbnailURL?.hasSuffix("~thumb.jpg") == true)
        #expect(first.tags == ["K-9", "canine", "dogs"] && first.takenAt != nil)
        #expect(first.pageURL == "https://images.nasa.gov/details/\(first.id.raw)")
        #expect(first.imageURL?.hasSuffix("~orig.jpg") == true && (first.width ?? 0) > 0, "newer items carry a canonical link with its size")
        let second = page.photos[1]
        #expect(second.imageURL == nil && second.width == nil, "older items have only a preview")
        #expect(second.owner == "NASA/JSC", "no photographer: the secondary creator")
        #expect(page.photos[3].owner == "ARC", "neither: the center")
    }

    @Test func hostileAndBrokenRecordsAreFilteredButTheirTextIsKept() async throws {
        let page = try await Self.provider(Self.fixtures()).list(ListQuery(text: "pwned", perPage: 100))
        #expect(page.photos.map(\.id.raw) == ["PWNED-0001", "PWNED-0002", "PWNED-0003", "PWNED-0004", "PWNED-0005", "PWNED-0001"],
            "no traversal id or video; the duplicate stays for the listing to count and say")
        #expect(page.skippedRecords == 2, "the two records that are no photo are counted, for the warning (the duplicate is not)")
        #expect(page.photos[0].title.contains("\u{1B}]0;pwned\u{07}"))
        #expect(page.photos[1].owner?.unicodeScalars.contains("\u{202E}") == true)
        #expect(page.photos[2].owner == "Eve\u{1B}[2J")
        #expect(page.photos[3].thumbnailURL == nil && page.photos[4].thumbnailURL == nil, "file: and plain http elsewhere are dropped")
    }

    @Test func aServerSendingMoreThanAskedDoesNotStretchThePage() async throws {
        let ten = try NASAFixtures.data("search-dogs-10-1.json")
        let page = try await Self.provider(FakeTransport { _, _ in FakeTransport.answer(ten) }).list(ListQuery(text: "dogs", perPage: 4))
        #expect(page.photos.count == 4)
        #expect(page.extraRecords == 6, "the 6 left out are counted, for the listing to say")
    }

    @Test func searchesPastTheWindowAreRefused() async throws {
        let http = Self.fixtures()
        let error = await photosError { try await Self.provider(http).list(ListQuery(text: "dogs", page: 101, perPage: 100)) }
        guard case .usage(let message)? = error else { Issue.record("\(String(describing: error))"); return }
        #expect(message.contains("10000") && http.urls.isEmpty)

        let deep = FakeTransport { _, _ in
            FakeTransport.answer(#"{"reason": "Maximum number of search results have been displayed. Please refine your search."}"#, status: 400)
        }
        guard case .usage(let said)? = await photosError({ try await Self.provider(deep).list(ListQuery(text: "x")) }) else {
            Issue.record("the API's depth refusal is a usage error")
            return
        }
        #expect(said.contains("first 10000 results") && said.contains("Please refine your search."))
    }

    // MARK: Detail

    @Test func detailHasDescriptionCreditAndSizesFromTheAssetList() async throws {
        let http = Self.fixtures()
        let detail = try await Self.provider(http).detail(PhotoID(provider: "nasa", raw: "as11-40-5874"))
        #expect(Set(http.urls) == [Self.base + "/search?nasa_id=as11-40-5874", Self.base + "/asset/as11-40-5874"])
        #expect(detail.photo.title.contains("Astronaut Edwin Aldrin") && detail.photo.owner == "Neil A. Armstrong")
        #expect(detail.extra["center"] == "JSC" && detail.extra["location"] == "Sea of Tranquility")
        let description = try #require(detail.description)
        #expect(description.hasPrefix("Astronaut Edwin E. Aldrin Jr., lunar module pilot") && description.contains("camera — see Apollo 11."))
        #expect(!description.contains("<"))
        #expect(detail.sizes.map(\.label) == ["original", "large", "medium", "small", "thumb"], "metadata.json is not a size")
        #expect(detail.sizes.allSatisfy { $0.url.hasPrefix("https://images-assets.nasa.gov/image/as11-40-5874/") }, "http upgraded")
        #expect(detail.sizes.first?.width == detail.photo.width && (detail.photo.width ?? 0) > 1920)
        #expect(detail.sizes.first { $0.label == "large" }?.width == 1920)
        #expect(detail.largestImageURL == "https://images-assets.nasa.gov/image/as11-40-5874/as11-40-5874~orig.jpg")
        #expect(detail.tags.contains("ALDRIN"))
    }

    @Test func anIDWithSpacesIsEncodedInThePathAndTheQuery() async throws {
        let http = Self.fixtures()
        let detail = try await Self.provider(http).detail(PhotoID(provider: "nasa", raw: "Apollo 11 Mission Crew"))
        #expect(Set(http.urls) == [Self.base + "/search?nasa_id=Apollo%2011%20Mission%20Crew", Self.base + "/asset/Apollo%2011%20Mission%20Crew"])
        #expect(detail.sizes.count == 5 && detail.sizes.allSatisfy { $0.width == nil }, "an old-style item gives no dimensions")
        #expect(detail.photo.imageURL == "https://images-assets.nasa.gov/image/Apollo%2011%20Mission%20Crew/Apollo%2011%20Mission%20Crew~orig.jpg")
    }

    @Test func unknownIDsAreNotFoundAndOnlyAnExactMatchCounts() async throws {
        let unknown = PhotoID(provider: "nasa", raw: "as11-99-0000")
        #expect(await photosError { try await Self.provider(Self.fixtures()).detail(unknown) } == .notFound(unknown))
        let other = try NASAFixtures.data("item-as11-40-5874.json")
        let fuzzy = FakeTransport { path, _ in path.hasPrefix("/asset/") ? FakeTransport.answer("{}", status: 404) : FakeTransport.answer(other) }
        let near = PhotoID(provider: "nasa", raw: "as11-40-587")
        #expect(await photosError { try await Self.provider(fuzzy).detail(near) } == .notFound(near))
    }

    /// The asset list only adds sizes: missing (404) or no list at all (a sign-in page with
    /// 200), the search item's own links serve. Such an answer failed the whole detail (65)
    /// although the search had answered. (A 503 or 429 stays an error: it may pass, and a
    /// detail made without the list would be kept.)
    @Test(arguments: [
        (404, #"{"reason": "No assets found"}"#), (200, "<!doctype html><title>Sign in</title>"), (200, #"{"collection": {"items": "none"}}"#),
    ])
    func withoutAnAssetListTheItemsLinksAreTheSizes(status: Int, body: String) async throws {
        let item = try NASAFixtures.data("item-as11-40-5874.json")
        let http = FakeTransport { path, _ in
            path.hasPrefix("/asset/") ? FakeTransport.answer(body, status: status) : FakeTransport.answer(item)
        }
        let detail = try await Self.provider(http).detail(PhotoID(provider: "nasa", raw: "as11-40-5874"))
        #expect(detail.sizes.map(\.label) == ["original", "large", "medium", "small", "thumb"])
    }

    @Test func idsAreCheckedBeforeAnyRequest() async throws {
        for raw in ["a/b", "..", "a..b", " leading", "trailing ", ".hidden", "trailing.", "a%2Fb", "a?b", "a#b", "a\\b", "tab\there",
                    "é", String(repeating: "x", count: 101)] {
            #expect(!NASAProvider.isValidID(raw), "\(raw)")
            let http = Self.fixtures()
            let error = await photosError { try await Self.provider(http).detail(PhotoID(provider: "nasa", raw: raw)) }
            #expect(error.map { if case .usage = $0 { return true } else { return false } } == true)
            #expect(http.urls.isEmpty)
        }
        for raw in ["as11-40-5874", "PIA12345", "GSFC_20171208_Archive_e001465", "Apollo 11 Mission Crew", "KSC-69PC-442 (1)"] {
            #expect(NASAProvider.isValidID(raw), "\(raw)")
        }
    }

    // MARK: URLs and failures

    @Test func onlyHTTPSImagesAreKeptAndTheAssetHostIsUpgraded() {
        #expect(NASAProvider.secure("http://images-assets.nasa.gov/image/a/a~orig.jpg") == "https://images-assets.nasa.gov/image/a/a~orig.jpg")
        #expect(NASAProvider.secure("http://images-assets.nasa.gov/image/a b/a b~thumb.jpg") == "https://images-assets.nasa.gov/image/a%20b/a%20b~thumb.jpg")
        #expect(NASAProvider.secure("https://example.org/x.jpg") == "https://example.org/x.jpg")
        for href in ["http://evil.example/x.jpg", "http://images-assets.nasa.gov.evil.example/x.jpg", "http://x@images-assets.nasa.gov/a.jpg",
                     "file:///etc/passwd", "javascript:alert(1)", "https://images-assets.nasa.gov/\u{1B}[2J.jpg"] {
            #expect(NASAProvider.secure(href) == nil, "\(href)")
        }
    }

    @Test func failuresSayWhatHappened() async throws {
        let limited = FakeTransport { _, _ in FakeTransport.answer("", status: 429, headers: [("Retry-After", "10")]) }
        guard case .unavailable(_, let rate)? = await photosError({ try await Self.provider(limited).list(ListQuery(text: "x")) }) else {
            Issue.record("429 is unavailable")
            return
        }
        #expect(rate.contains("HTTP 429") && rate.contains("in 10 s"))
        let down = FakeTransport { _, _ in FakeTransport.answer(#"{"reason": "Internal error"}"#, status: 502) }
        guard case .unavailable(_, let bad)? = await photosError({ try await Self.provider(down).list(ListQuery(text: "x")) }) else {
            Issue.record("502 is unavailable")
            return
        }
        #expect(bad.contains("HTTP 502: Internal error"))
        for body in ["<!doctype html><title>Sign in</title>", #"{"collection": {}}"#, "[]"] {
            guard case .badData? = await photosError({ try await Self.provider(FakeTransport { _, _ in FakeTransport.answer(body) }).list(ListQuery(text: "x")) })
            else {
                Issue.record("\(body) is bad data")
                continue
            }
        }
    }
}
