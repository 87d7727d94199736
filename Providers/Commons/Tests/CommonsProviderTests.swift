import Foundation
import PhotosCore
import Testing

@testable import CommonsProvider

/// CommonsProvider against the recorded-format answers in Fixtures/commons, through a fake
/// transport.
@Suite struct CommonsProviderTests {
    static let endpoint = "https://commons.example.test/w/api.php"

    static func provider(_ http: FakeTransport) -> CommonsProvider {
        CommonsProvider(context: ProviderContext(http: http, settings: ["PHOTOS_COMMONS_API": endpoint]))
    }

    /// Serves the fixtures the way the emulation does.
    static func fixtures() -> FakeTransport {
        FakeTransport { query in
            if query["generator"] == "search" {
                let text = query["gsrsearch"] ?? ""
                let name = text.contains("dogs") ? "search-dogs" : text.contains("pwned") ? "search-pwned" : ""
                guard !name.isEmpty, let data = try? CommonsFixtures.data("\(name)-\(query["gsroffset"] ?? "").json") else {
                    return FakeTransport.answer(#"{"batchcomplete":true}"#)
                }
                return FakeTransport.answer(data)
            }
            if query["list"] == "categorymembers" {
                switch query["cmcontinue"] {
                case nil: return FakeTransport.answer(try CommonsFixtures.data("feed-list-1.json"))
                case let token? where token.hasSuffix("|75080373"): return FakeTransport.answer(try CommonsFixtures.data("feed-list-2.json"))
                case let token? where token.hasSuffix("|129634207"): return FakeTransport.answer(try CommonsFixtures.data("feed-list-3.json"))
                default: return FakeTransport.answer(#"{"batchcomplete":true,"query":{"categorymembers":[]}}"#)
                }
            }
            let ids = (query["pageids"] ?? "").split(separator: "|").map(String.init)
            if ids.count == 1, let data = try? CommonsFixtures.data("page-\(ids[0]).json") {
                return FakeTransport.answer(data)
            }
            for number in 1...3 {
                let info = try CommonsFixtures.object("feed-info-\(number).json")
                let pages = ((info["query"] as? [String: Any])?["pages"] as? [[String: Any]]) ?? []
                if let first = pages.first?["pageid"] as? Int, ids.contains(String(first)) {
                    return FakeTransport.answer(try CommonsFixtures.data("feed-info-\(number).json"))
                }
            }
            return FakeTransport.answer(#"{"batchcomplete":true,"query":{"pages":[{"pageid":\#(ids.first ?? "0"),"missing":true}]}}"#)
        }
    }

    // MARK: Search

    @Test func searchAsksForBitmapsInTheFileNamespaceAtTheOffsetOfThePage() async throws {
        let http = Self.fixtures()
        _ = try await Self.provider(http).list(ListQuery(text: "dogs", page: 3, perPage: 10))
        let query = try #require(http.queries.first)
        #expect(http.urls.first?.hasPrefix(Self.endpoint + "?action=query&format=json&formatversion=2&") == true)
        #expect(query["generator"] == "search" && query["gsrnamespace"] == "6")
        #expect(query["gsrsearch"] == "filetype:bitmap dogs")
        #expect(query["gsrlimit"] == "10" && query["gsroffset"] == "20")
        #expect(query["prop"] == "imageinfo" && query["iiurlwidth"] == "330")
        #expect(query["iiprop"]?.split(separator: "|").contains("extmetadata") == true)
    }

    @Test func theImageHostIsNamedOnlyForWikimediasOwnAPIAndIsWhereItsListingsImagesAre() async throws {
        let own = CommonsProvider(context: ProviderContext(http: Self.fixtures(), settings: [:]))
        let host = try #require(own.imageHost.flatMap { URL(string: $0)?.host })
        let page = try await own.list(ListQuery(text: "dogs", page: 1, perPage: 10))
        #expect(!page.photos.isEmpty)
        #expect(page.photos.allSatisfy { URL(string: $0.thumbnailURL ?? "")?.host == host }, "the recorded thumbnails come from \(host)")
        #expect(own.listingHost == CommonsAPI.defaultEndpoint)
        // Another endpoint (a mirror, a test server) may serve its images from anywhere.
        #expect(Self.provider(Self.fixtures()).imageHost == nil)
        #expect(Self.provider(Self.fixtures()).listingHost == Self.endpoint)
    }

    @Test func searchTextStaysOneParameter() async throws {
        let http = Self.fixtures()
        _ = try await Self.provider(http).list(ListQuery(text: "cats&gsrnamespace=0 #1", page: 1, perPage: 5))
        let query = try #require(http.queries.first)
        #expect(query["gsrsearch"] == "filetype:bitmap cats&gsrnamespace=0 #1")
        #expect(query["gsrnamespace"] == "6")
    }

    @Test func searchResultsKeepTheSearchOrderNotThePageIDOrder() async throws {
        let page = try await Self.provider(Self.fixtures()).list(ListQuery(text: "dogs", page: 1, perPage: 10))
        #expect(page.photos.count == 10 && page.hasMore && page.page == 1)
        #expect(page.photos.first?.title == "Golden Retriever Dukedestiny01 drvd")
        #expect(page.photos[1].title == "Dog on the beach at Playa de la Concha")
        #expect(page.photos.last?.title == "Bernese Mountain Dog 02")
        let ids = page.photos.map { Int($0.id.raw) ?? 0 }
        #expect(ids != ids.sorted(), "the fixture's page-id order differs from its search order")
    }

    @Test func aSearchPhotoCarriesItsSizeLinksAuthorAndDates() async throws {
        let page = try await Self.provider(Self.fixtures()).list(ListQuery(text: "dogs", page: 1, perPage: 10))
        let photo = try #require(page.photos.first { $0.title == "Dog on the beach at Playa de la Concha" })
        #expect(photo.thumbnailURL?.hasPrefix("https://upload.wikimedia.org/wikipedia/commons/thumb/") == true)
        #expect(photo.thumbnailURL?.hasSuffix("/330px-Dog_on_the_beach_at_Playa_de_la_Concha.jpg") == true)
        #expect(photo.imageURL?.hasSuffix("/Dog_on_the_beach_at_Playa_de_la_Concha.jpg") == true, "the tracking query is gone")
        #expect(photo.pageURL == "https://commons.wikimedia.org/wiki/File:Dog_on_the_beach_at_Playa_de_la_Concha.jpg")
        #expect(photo.owner == "Diego Delso", "Artist's HTML as text")
        #expect((photo.width ?? 0) > 0 && (photo.height ?? 0) > 0)
        #expect(photo.uploadedAt != nil && photo.takenAt != nil)
    }

    @Test func theLastSearchPageHasNoMore() async throws {
        let page = try await Self.provider(Self.fixtures()).list(ListQuery(text: "dogs", page: 3, perPage: 10))
        #expect(page.photos.count == 5 && !page.hasMore)
        let none = try await Self.provider(Self.fixtures()).list(ListQuery(text: "no such thing", page: 1, perPage: 10))
        #expect(none.photos.isEmpty && !none.hasMore, "a search without hits has no query key")
    }

    @Test func pagesKeyedByIDAsInFormatVersion1AreOrderedByIndex() async throws {
        let body = #"""
            {"batchcomplete":"","continue":{"gsroffset":3,"continue":"gsroffset||"},"query":{"pages":{
              "300":{"pageid":300,"ns":6,"title":"File:Third.jpg","index":3,"imageinfo":[{"url":"https://upload.wikimedia.org/c.jpg","mime":"image/jpeg","extmetadata":[]}]},
              "100":{"pageid":100,"ns":6,"title":"File:Second.png","index":2,"imageinfo":[{"url":"https://upload.wikimedia.org/b.png","mime":"image/png"}]},
              "200":{"pageid":"200","ns":"6","title":"File:First.jpeg","index":"1","imageinfo":[{"url":"https://upload.wikimedia.org/a.jpeg","width":"640","height":480}]}
            }}}
            """#
        let page = try await Self.provider(FakeTransport { _ in FakeTransport.answer(body) }).list(ListQuery(text: "x", perPage: 3))
        #expect(page.photos.map(\.title) == ["First", "Second", "Third"])
        #expect(page.photos.first?.width == 640 && page.photos.first?.height == 480, "numbers as strings are read")
        #expect(page.photos.last?.thumbnailURL == nil && page.photos.last?.owner == nil, "missing fields stay nil")
        #expect(page.hasMore)
    }

    /// When a page's imageinfo is larger than the API hands out at once, the answer holds it
    /// for only some pages and says `iicontinue`: the others are asked for by id, not lost.
    @Test func imageInfoCutShortByTheAPIIsAskedForAndNoPhotoIsLost() async throws {
        let search = #"""
            {"continue":{"iicontinue":"Second.png|20240101000000","gsroffset":3,"continue":"gsroffset||"},"query":{"pages":[
              {"pageid":100,"ns":6,"title":"File:First.jpg","index":1,"imageinfo":[{"url":"https://upload.wikimedia.org/a.jpg","mime":"image/jpeg"}]},
              {"pageid":200,"ns":6,"title":"File:Second.png","index":2},
              {"pageid":300,"ns":6,"title":"File:Third.jpg","index":3}
            ]}}
            """#
        let rest = #"""
            {"batchcomplete":true,"query":{"pages":[
              {"pageid":200,"ns":6,"title":"File:Second.png","imageinfo":[{"url":"https://upload.wikimedia.org/b.png","mime":"image/png"}]},
              {"pageid":300,"ns":6,"title":"File:Third.jpg","imageinfo":[{"url":"https://upload.wikimedia.org/c.jpg","mime":"image/jpeg"}]}
            ]}}
            """#
        let http = FakeTransport { query in FakeTransport.answer(query["generator"] == "search" ? search : rest) }
        let page = try await Self.provider(http).list(ListQuery(text: "x", perPage: 3))
        #expect(page.photos.map(\.title) == ["First", "Second", "Third"], "in the search's order")
        #expect(page.photos.map(\.imageURL) == ["https://upload.wikimedia.org/a.jpg", "https://upload.wikimedia.org/b.png", "https://upload.wikimedia.org/c.jpg"])
        #expect(page.skippedRecords == 0 && page.hasMore)
        #expect(http.queries.count == 2 && http.queries.last?["pageids"] == "200|300", "\(http.queries)")

        // An API that never sends it: the files are said as records photos could not read.
        let never = FakeTransport { query in
            FakeTransport.answer(query["generator"] == "search" ? search : #"{"batchcomplete":true,"query":{"pages":[{"pageid":200,"ns":6},{"pageid":300,"ns":6}]}}"#)
        }
        let partial = try await Self.provider(never).list(ListQuery(text: "x", perPage: 3))
        #expect(partial.photos.map(\.title) == ["First"] && partial.skippedRecords == 2)
    }

    /// Pages that are not objects are records photos cannot read: counted, for the listing to
    /// say, not dropped in silence.
    @Test func pagesThatAreNotObjectsAreCountedAsSkipped() async throws {
        let body = #"""
            {"batchcomplete":true,"query":{"pages":[1,"x",null,
              {"pageid":100,"ns":6,"title":"File:First.jpg","index":1,"imageinfo":[{"url":"https://upload.wikimedia.org/a.jpg","mime":"image/jpeg"}]}
            ]}}
            """#
        let page = try await Self.provider(FakeTransport { _ in FakeTransport.answer(body) }).list(ListQuery(text: "x", perPage: 10))
        #expect(page.photos.map(\.title) == ["First"] && page.skippedRecords == 3)
    }

    @Test func hostileAndBrokenRecordsAreFilteredButTheirTextIsKept() async throws {
        let page = try await Self.provider(Self.fixtures()).list(ListQuery(text: "pwned", page: 1, perPage: 20))
        #expect(page.photos.map(\.id.raw) == ["90000001", "90000002", "90000003", "90000004", "90000001"],
            "no traversal id, video, non-file page or missing file; the duplicate stays for the listing to count and say")
        #expect(page.skippedRecords == 1, "the record without a page id is counted, for the listing to say; a video is a result left out")
        let ansi = page.photos[0]
        #expect(ansi.title.contains("\u{1B}[31mRED"))
        #expect(ansi.owner?.unicodeScalars.contains("\u{202E}") == true)
        let script = page.photos[1]
        #expect(script.owner?.hasPrefix("Eve ") == true && script.owner?.contains("document") == false, "a script's text is dropped")
        #expect(script.owner?.unicodeScalars.contains("\u{1B}") == true, "an entity decodes to the character it names")
        #expect(page.photos[2].owner == "Trudy \u{9D}", "NEL is a line break; the C1 control stays for the terminal layer")
        let broken = page.photos[3]
        #expect(broken.thumbnailURL == nil && broken.pageURL == nil, "file: and javascript: URLs are dropped")
        #expect(broken.imageURL != nil)
    }

    @Test func searchesPastTheWindowAreRefusedWithoutARequest() async throws {
        let http = Self.fixtures()
        let error = await photosError { try await Self.provider(http).list(ListQuery(text: "dogs", page: 201, perPage: 50)) }
        guard case .usage(let message)? = error else { Issue.record("expected a usage error, got \(String(describing: error))"); return }
        #expect(message.contains("10000"))
        #expect(http.urls.isEmpty)
    }

    @Test func aServerSendingMoreThanAskedDoesNotStretchThePage() async throws {
        // The recorded pages hold 10; asked for 5, the provider keeps the first 5 of each list.
        let search = try await Self.provider(Self.fixtures()).list(ListQuery(text: "dogs", page: 1, perPage: 5))
        #expect(search.photos.count == 5 && search.photos.first?.title == "Golden Retriever Dukedestiny01 drvd")
        #expect(search.extraRecords == 5, "the 5 left out are counted, for the listing to say")
        let http = Self.fixtures()
        let feed = try await Self.provider(http).list(ListQuery(page: 1, perPage: 5))
        #expect(feed.photos.count == 5 && http.queries.last?["pageids"]?.split(separator: "|").count == 5)
    }

    // MARK: Featured feed

    @Test func theFeedListsFeaturedPicturesNewestFirstInListOrder() async throws {
        let http = Self.fixtures()
        let page = try await Self.provider(http).list(ListQuery(page: 1, perPage: 10))
        #expect(http.queries.count == 2)
        let list = http.queries[0]
        #expect(list["list"] == "categorymembers" && list["cmtitle"] == "Category:Featured_pictures_on_Wikimedia_Commons")
        #expect(list["cmsort"] == "timestamp" && list["cmdir"] == "desc" && list["cmtype"] == "file" && list["cmlimit"] == "10")
        let members = try #require(
            (CommonsFixtures.object("feed-list-1.json")["query"] as? [String: Any])?["categorymembers"] as? [[String: Any]])
        let listed = members.compactMap { $0["pageid"] as? Int }.map(String.init)
        #expect(http.queries[1]["pageids"] == listed.joined(separator: "|"))
        #expect(page.photos.map(\.id.raw) == listed, "the list's order, not imageinfo's page-id order")
        #expect(page.photos.first?.title == "Aurora borealis over Lofoten, Norway")
        #expect(page.hasMore)
    }

    @Test func laterFeedPagesAreReachedByWalkingTheTokens() async throws {
        let http = Self.fixtures()
        let page = try await Self.provider(http).list(ListQuery(page: 3, perPage: 10))
        #expect(http.queries.count == 4, "two token walks, the page's list, its imageinfo")
        #expect(http.queries[0]["cmprop"] == "ids" && http.queries[0]["cmlimit"] == "20" && http.queries[0]["cmcontinue"] == nil)
        #expect(http.queries[1]["cmprop"] == "ids" && http.queries[1]["cmcontinue"] == "20240801120000|75080373")
        #expect(http.queries[2]["cmcontinue"] == "20240701120000|129634207")
        #expect(page.photos.count == 5 && !page.hasMore)
        #expect(page.photos.first?.title == "Namib desert oryx")
    }

    @Test func theFeedTakesOnlyItsOwnOrders() async throws {
        let http = Self.fixtures()
        _ = try await Self.provider(http).list(ListQuery(page: 1, perPage: 5, filters: ["sort": "create_timestamp_asc"]))
        #expect(http.queries.first?["cmdir"] == "asc")
        let error = await photosError { try await Self.provider(http).list(ListQuery(page: 1, perPage: 5, filters: ["sort": "last_edit_desc"])) }
        #expect(error.map { if case .usage = $0 { return true } else { return false } } == true)
    }

    // MARK: Detail

    @Test func detailHasAuthorLicenceDescriptionAndSizes() async throws {
        let http = Self.fixtures()
        let detail = try await Self.provider(http).detail(PhotoID(provider: "commons", raw: "22459639"))
        #expect(http.queries.first?["pageids"] == "22459639" && http.queries.first?["iiextmetadatafilter"] == nil)
        #expect(detail.photo.title == "Port Townsend, WA - First Presbyterian Church 04")
        #expect(detail.photo.owner == "Photo by Charles J. Sharp & Sharp Photography")
        #expect(detail.extra["license"] == "CC BY-SA 4.0" && detail.extra["credit"] == "Own work")
        #expect(detail.extra["license_url"] == "https://creativecommons.org/licenses/by-sa/4.0")
        #expect(detail.extra["usage_terms"] == "Creative Commons Attribution-Share Alike 4.0")
        let description = try #require(detail.description)
        #expect(description.hasPrefix("English: Port Townsend, WA - First Presbyterian Church 04, photographed on a winter morning & published"))
        #expect(description.hasSuffix("See also Wikipedia."))
        #expect(!description.contains("<") && !description.contains("&amp;"))
        #expect(detail.sizes.map(\.label) == ["thumbnail", "medium", "large", "original"])
        let medium = try #require(detail.sizes.first { $0.label == "medium" })
        #expect(medium.width == 960 && medium.url.hasSuffix("/960px-Port_Townsend%2C_WA_-_First_Presbyterian_Church_04.jpg"))
        #expect(detail.sizes.last?.width == 3020 && detail.sizes.last?.height == 2385)
        #expect(detail.largestImageURL == "https://upload.wikimedia.org/wikipedia/commons/c/cc/Port_Townsend%2C_WA_-_First_Presbyterian_Church_04.jpg")
        #expect(detail.takenAt != nil)
    }

    @Test func anUnknownPageIsNotFoundAndANonFilePageToo() async throws {
        let id = PhotoID(provider: "commons", raw: "999999999")
        #expect(await photosError { try await Self.provider(Self.fixtures()).detail(id) } == .notFound(id))
        let article = FakeTransport { _ in FakeTransport.answer(#"{"batchcomplete":true,"query":{"pages":[{"pageid":1,"ns":0,"title":"Main Page"}]}}"#) }
        let main = PhotoID(provider: "commons", raw: "1")
        #expect(await photosError { try await Self.provider(article).detail(main) } == .notFound(main))
    }

    @Test func invalidIDsAreRefusedWithoutARequest() async throws {
        for raw in ["abc", "12/34", "..", "0123", "1234567890123", "-5", "12 34", "١٢٣"] {
            #expect(!CommonsProvider.isValidID(raw), "\(raw)")
            let http = Self.fixtures()
            let error = await photosError { try await Self.provider(http).detail(PhotoID(provider: "commons", raw: raw)) }
            #expect(error.map { if case .usage = $0 { return true } else { return false } } == true)
            #expect(http.urls.isEmpty)
        }
        #expect(CommonsProvider.isValidID("22459639") && CommonsProvider.isValidID("1"))
    }

    /// A page id typed with leading zeros is the number it spells; anything else is no id.
    @Test func typedIDsAreTakenAsTheNumberTheySpell() {
        let provider = Self.provider(Self.fixtures())
        #expect(provider.canonicalID("0022459639") == "22459639")
        #expect(provider.canonicalID("22459639") == "22459639")
        #expect(provider.canonicalID("0") == nil, "no page has id 0")
        #expect(provider.canonicalID("00") == nil)
        #expect(provider.canonicalID("0x12") == nil && provider.canonicalID("") == nil && provider.canonicalID("12 34") == nil)
    }

    // MARK: Failures

    @Test func failuresSayWhatHappened() async throws {
        let lagged = FakeTransport { _ in
            FakeTransport.answer(#"{"error":{"code":"maxlag","info":"Waiting for 10.64.48.35: 5.2 seconds lagged."},"servedby":"mw1380"}"#)
        }
        guard case .unavailable(_, let maxlag)? = await photosError({ try await Self.provider(lagged).list(ListQuery(text: "x")) }) else {
            Issue.record("maxlag is unavailable")
            return
        }
        #expect(maxlag.contains("maxlag"))

        let refused = FakeTransport { _ in FakeTransport.answer("Please set a user-agent and respect our robot policy", status: 403) }
        guard case .unavailable(_, let forbidden)? = await photosError({ try await Self.provider(refused).list(ListQuery(text: "x")) }) else {
            Issue.record("403 is unavailable")
            return
        }
        #expect(forbidden.contains("User-Agent") && forbidden.contains(PhotosVersion.userAgent))

        let limited = FakeTransport { _ in FakeTransport.answer("", status: 429, headers: [("Retry-After", "30")]) }
        guard case .unavailable(_, let rate)? = await photosError({ try await Self.provider(limited).list(ListQuery()) }) else {
            Issue.record("429 is unavailable")
            return
        }
        #expect(rate.contains("rate limiting") && rate.contains("30 s"))

        // An `error` that is not the API's object (a proxy's or a test bed's) is no empty result:
        // it is bad data, and nothing is cached as "no photos".
        for body in ["<!doctype html><title>Sign in</title>", #"{"results": []}"#, "[1, 2]", #"{"error":"injected"}"#, #"{"error":null}"#] {
            let odd = FakeTransport { _ in FakeTransport.answer(body) }
            guard case .badData? = await photosError({ try await Self.provider(odd).list(ListQuery(text: "x")) }) else {
                Issue.record("\(body) is bad data")
                continue
            }
        }
    }

    // MARK: URLs

    @Test func thumbnailStepsAreDerivedOnlyFromWikimediaThumbnailURLs() {
        let jpeg = "https://upload.wikimedia.org/wikipedia/commons/thumb/a/ab/A_330px-photo.jpg/330px-A_330px-photo.jpg"
        #expect(CommonsAPI.thumbnail(jpeg, width: 330, at: 960)
            == "https://upload.wikimedia.org/wikipedia/commons/thumb/a/ab/A_330px-photo.jpg/960px-A_330px-photo.jpg")
        let tiff = "https://upload.wikimedia.org/wikipedia/commons/thumb/1/12/Scan.tif/lossy-page1-330px-Scan.tif.jpg"
        #expect(CommonsAPI.thumbnail(tiff, width: 330, at: 1920)?.hasSuffix("/lossy-page1-1920px-Scan.tif.jpg") == true)
        #expect(CommonsAPI.thumbnail("https://upload.wikimedia.org/wikipedia/commons/1/12/Small.jpg", width: 200, at: 960) == nil)
        #expect(CommonsAPI.thumbnail("https://upload.wikimedia.org/thumb/x/Thing2330px-a.jpg", width: 330, at: 960) == nil)
    }

    @Test func trackingParametersAreRemovedAndOtherSchemesRefused() {
        #expect(CommonsAPI.cleanURL("https://upload.wikimedia.org/a/ab/X.jpg?utm_source=commons.wikimedia.org&utm_campaign=imageinfo")
            == "https://upload.wikimedia.org/a/ab/X.jpg")
        #expect(CommonsAPI.cleanURL("https://upload.wikimedia.org/X.jpg?page=2&utm_content=original") == "https://upload.wikimedia.org/X.jpg?page=2")
        #expect(CommonsAPI.cleanURL("file:///etc/passwd") == nil && CommonsAPI.cleanURL("javascript:alert(1)") == nil)
        #expect(CommonsAPI.cleanURL("https://upload.wikimedia.org/a b.jpg") == nil)
        #expect(CommonsAPI.cleanURL("https://upload.wikimedia.org/\u{1B}[2J.jpg") == nil)
    }
}
