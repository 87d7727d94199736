import FlickrProvider
import Foundation
import PhotosCore
import Testing

/// FlickrProvider against the recorded files in Fixtures/flickr, through a fake transport.
@Suite struct FlickrProviderTests {
    static let settings = [
        "FLICKR_API_KEY": "test-key",
        "PHOTOS_FLICKR_API": "https://api.example.test/services/rest/",
        "PHOTOS_FLICKR_STATIC": "https://static.example.test",
    ]

    static func provider(_ http: FakeHTTP, settings: [String: String] = settings) -> FlickrProvider {
        FlickrProvider(context: ProviderContext(http: http, settings: settings))
    }

    // MARK: Search

    @Test func searchPageOneDecodesInOneRequestAndSkipsTheBadID() async throws {
        let http = FakeHTTP.flickrFixtures()
        let page = try await Self.provider(http).list(ListQuery(text: "dogs", page: 1, perPage: 10))

        #expect(http.requestedURLs.count == 1, "extras come with the listing: no request per photo")
        #expect(page.page == 1 && page.perPage == 10 && page.total == 28 && page.hasMore)
        #expect(page.photos.count == 9)
        #expect(page.photos.allSatisfy { $0.provider == "flickr" })
        #expect(!page.photos.contains { $0.id.raw.contains("/") || $0.title == "nothing to see here" })
        #expect(page.photos.map(\.id.raw) == [
            "53624890009", "53625112784", "53623987651", "53624001122", "53622876540", "53621765431",
            "53620654329", "53619543218", "53618432107",
        ])

        let first = page.photos[0]
        #expect(first.id.description == "flickr:53624890009")
        #expect(first.title == "Rex at Playa de la Concha")
        #expect(first.owner == "Andrea Ruiz")
        #expect(first.thumbnailURL == "https://live.staticflickr.com/65535/53624890009_6ab707bfca_q.jpg")
        #expect(first.imageURL == "https://live.staticflickr.com/65535/53624890009_6ab707bfca_b.jpg")
        #expect(first.width == 1024 && first.height == 768)
        #expect(first.pageURL == "https://www.flickr.com/photos/105731165@N07/53624890009/")
        #expect(first.takenAt == utcDate(2024, 1, 1, 7, 0, 0))
        #expect(first.uploadedAt == Date(timeIntervalSince1970: 1_711_040_123))
        #expect(first.tags == ["dog", "dogs", "puppy", "pet"])
    }

    /// Entries of the photo list that are not objects (a number, a string, null) are records
    /// photos cannot read: counted, for the listing to say, not dropped in silence.
    @Test func recordsThatAreNotObjectsAreCountedAsSkipped() async throws {
        let body = #"{"photos":{"page":1,"pages":1,"perpage":10,"total":4,"photo":[1,"x",null,{"id":"5","secret":"abc","server":"1","title":"t"}]},"stat":"ok"}"#
        let page = try await Self.provider(FakeHTTP { _ in FakeHTTP.response(Data(body.utf8)) }).list(ListQuery(text: "x", perPage: 10))
        #expect(page.photos.map(\.id.raw) == ["5"] && page.skippedRecords == 3)
    }

    @Test func hostileTitlesArriveRawForTheTerminalToSanitise() async throws {
        let page = try await Self.provider(.flickrFixtures()).list(ListQuery(text: "dogs", perPage: 10))
        let titles = Dictionary(uniqueKeysWithValues: page.photos.map { ($0.id.raw, $0.title) })
        #expect(titles["53625112784"] == "\u{1B}[31mRED\u{1B}[0m dog \u{1B}]0;pwned\u{07} on the lawn")
        #expect(titles["53623987651"]?.unicodeScalars.contains("\u{202E}") == true)
        #expect(titles["53624001122"] == "line one\nline two\r\nline three\tand a tab")
        #expect((titles["53622876540"]?.count ?? 0) >= 10_000)
        #expect(titles["53621765431"]?.hasPrefix("\u{1F415}\u{200D}\u{1F9BA} service dog") == true)
        #expect(titles["53619543218"] == "", "an empty title is allowed")
    }

    @Test func nonHTTPURLsAreDroppedAndMissingExtrasAreBuilt() async throws {
        let page = try await Self.provider(.flickrFixtures()).list(ListQuery(text: "dogs", perPage: 10))
        let byID = Dictionary(uniqueKeysWithValues: page.photos.map { ($0.id.raw, $0) })

        let fileThumb = try #require(byID["53620654329"])
        #expect(fileThumb.thumbnailURL == nil, "file:///etc/passwd is never passed on")
        #expect(fileThumb.imageURL?.hasPrefix("https://") == true)

        let bare = try #require(byID["53619543218"])
        #expect(bare.thumbnailURL == "https://static.example.test/65535/53619543218_a24d01b1d2_q.jpg")
        #expect(bare.imageURL == "https://static.example.test/65535/53619543218_a24d01b1d2_b.jpg")
        #expect(bare.width == nil && bare.height == nil)
        #expect(bare.tags.isEmpty)

        let legacy = try #require(byID["53618432107"])
        #expect(legacy.owner == "48889646@N07", "no ownername: the owner's NSID")
        #expect(legacy.imageURL == "https://live.staticflickr.com/65535/53618432107_5352ff863e.jpg")
        #expect(legacy.width == 500 && legacy.height == 375)

        for photo in page.photos {
            for url in [photo.thumbnailURL, photo.imageURL, photo.pageURL].compactMap({ $0 }) {
                #expect(URLPolicy.isAllowed(url), "\(url)")
            }
        }
    }

    @Test func searchRequestCarriesEveryParameterInOneCall() async throws {
        let http = FakeHTTP.flickrFixtures()
        _ = try await Self.provider(http).list(ListQuery(text: "dogs", page: 2, perPage: 10))
        let url = try #require(http.requestedURLs.first)
        #expect(url.hasPrefix("https://api.example.test/services/rest/?"))
        let query = try #require(http.requestedQueries.first)
        #expect(query["method"] == ["flickr.photos.search"])
        #expect(query["text"] == ["dogs"])
        #expect(query["media"] == ["photos"], "videos are no photos")
        #expect(query["sort"] == ["relevance"])
        #expect(query["page"] == ["2"] && query["per_page"] == ["10"])
        #expect(query["format"] == ["json"] && query["nojsoncallback"] == ["1"])
        #expect(query["api_key"] == ["test-key"])
        #expect(query["extras"] == [
            "description,license,date_upload,date_taken,owner_name,tags,o_dims,views,media,path_alias,url_q,url_m,url_n,url_z,url_l,url_h,url_k,url_o"
        ])
    }

    @Test func searchTextCannotInjectParameters() async throws {
        let http = FakeHTTP.flickrFixtures()
        _ = try await Self.provider(http).list(ListQuery(text: "a&b=c #x+y%20", perPage: 5))
        let query = try #require(http.requestedQueries.first)
        #expect(query["text"] == ["a&b=c #x+y%20"])
        #expect(query["b"] == nil)
        let url = try #require(http.requestedURLs.first)
        #expect(url.contains("text=a%26b%3Dc%20%23x%2By%2520"))
    }

    @Test func filtersMapToFlickrParameters() async throws {
        let http = FakeHTTP.flickrFixtures()
        _ = try await Self.provider(http).list(
            ListQuery(text: nil, perPage: 5, filters: ["tags": "corgi,snow", "sort": "date-posted-desc", "user": "48889646@N07"]))
        let query = try #require(http.requestedQueries.first)
        #expect(query["method"] == ["flickr.photos.search"])
        #expect(query["tags"] == ["corgi,snow"] && query["sort"] == ["date-posted-desc"] && query["user_id"] == ["48889646@N07"])
        #expect(query["text"] == nil)
    }

    /// `--filter license=` takes the names Openverse takes too, and Flickr's own ids; anything
    /// else is refused before a request, as Openverse refuses it.
    @Test func licencesAreNamesOrFlickrIDs() async throws {
        let http = FakeHTTP.flickrFixtures()
        _ = try await Self.provider(http).list(ListQuery(text: "dogs", perPage: 5, filters: ["license": "cc0, PDM,by-sa,4,09"]))
        #expect(try #require(http.requestedQueries.first)["license"] == ["9,10,5,4,9"])
        for bad in ["cc-0", "public", "1234", "4;5", "-1"] {
            let none = FakeHTTP.flickrFixtures()
            let error = await photosError { try await Self.provider(none).list(ListQuery(text: "dogs", perPage: 5, filters: ["license": bad])) }
            #expect(error?.exitCode == 64, "\(bad)")
            #expect(error?.description.contains("by, by-sa, by-nd, by-nc, by-nc-sa, by-nc-nd, cc0, pdm") == true, "\(String(describing: error))")
            #expect(none.requestedURLs.isEmpty, "\(bad)")
        }
    }

    @Test func pageTwoDecodesNumbersSentAsStrings() async throws {
        let provider = Self.provider(.flickrFixtures())
        let page = try await provider.list(ListQuery(text: "dogs", page: 2, perPage: 10))
        #expect(page.page == 2 && page.perPage == 10 && page.total == 28 && page.hasMore)
        #expect(page.photos.count == 10)
        #expect(page.photos.allSatisfy { $0.width == 1024 && $0.height == 768 })
        #expect(page.photos[0].id.raw == "53617821096")
        #expect(page.photos[0].imageURL == "https://live.staticflickr.com/65535/53617821096_19adb903be_b.jpg", "\\/ unescaped")

        let last = try await provider.list(ListQuery(text: "dogs", page: 3, perPage: 10))
        #expect(last.photos.count == 8 && !last.hasMore)
    }

    @Test func impossibleNumbersAreUnknownNotPrinted() async throws {
        let body = #"""
            {"photos":{"page":1,"pages":1,"perpage":10,"total":"-1","photo":[
              {"id":"1","owner":"o","secret":"s","server":"1","farm":1,"title":"t","ispublic":1,
               "url_l":"https://live.staticflickr.com/1/1_s_b.jpg","width_l":-3,"height_l":"-5",
               "url_q":"https://live.staticflickr.com/1/1_s_q.jpg","width_q":0,"height_q":150},
              {"id":"2","owner":"o","secret":"s","server":"1","farm":1,"title":"t","ispublic":1,
               "url_l":"https://live.staticflickr.com/1/2_s_b.jpg","width_l":1000000000000,"height_l":"768",
               "url_k":"https://live.staticflickr.com/1/2_s_k.jpg","width_k":2048,"height_k":1000001}]},"stat":"ok"}
            """#
        let provider = Self.provider(FakeHTTP { _ in FakeHTTP.response(Data(body.utf8)) })
        let page = try await provider.list(ListQuery(text: "x", perPage: 10))
        #expect(page.total == nil, "a negative total is no total")
        let photo = try #require(page.photos.first)
        #expect(photo.width == nil && photo.height == nil)
        #expect(photo.sizes.allSatisfy { ($0.width ?? 1) > 0 && ($0.height ?? 1) > 0 }, "\(photo.sizes)")
        // A side of a trillion pixels (or anything past a million) is no image's: unknown, as
        // `show` and `--size` would otherwise print and compare it.
        let absurd = try #require(page.photos.last)
        #expect(absurd.sizes.allSatisfy { ($0.width ?? 0) <= Photo.largestSide && ($0.height ?? 0) <= Photo.largestSide }, "\(absurd.sizes)")
        #expect(absurd.sizes.contains { $0.width == nil && $0.height == 768 }, "\(absurd.sizes)")
        #expect(absurd.sizes.contains { $0.width == 2048 && $0.height == nil }, "\(absurd.sizes)")
        #expect(absurd.width == nil && absurd.height == 768, "\(absurd)")
    }

    /// A page size past Flickr's 500 (a broken proxy's or mirror's number) is no crash: the one
    /// asked for is used (the page count overflowed and trapped).
    @Test func anAbsurdPageSizeIsNoCrash() async throws {
        for perPage in ["9223372036854775807", "\"9223372036854775807\""] {
            let body = #"{"photos":{"page":1,"pages":1,"perpage":"# + perPage + #","total":5,"photo":[{"id":"1","owner":"o","secret":"s","server":"1","title":"t"}]},"stat":"ok"}"#
            let provider = Self.provider(FakeHTTP { _ in FakeHTTP.response(Data(body.utf8)) })
            let page = try await provider.list(ListQuery(text: "x", perPage: 10))
            #expect(page.perPage == 10 && page.photos.count == 1, "\(perPage)")
        }
    }

    /// Flickr's text is HTML at times: a title's entities are decoded, a description's markup
    /// made plain text (printed raw before); a video among recent photos is left out without
    /// being counted as a record that could not be read.
    @Test func entitiesAndMarkupAreTextAndVideosAreLeftOut() async throws {
        let list = #"{"photos":{"page":1,"pages":1,"perpage":10,"total":2,"photo":[{"id":"1","owner":"o","secret":"s","server":"1","title":"Rex &amp; Bella at &quot;La Concha&quot; &#039;24","media":"photo"},{"id":"2","owner":"o","secret":"s","server":"1","title":"a video","media":"video"}]},"stat":"ok"}"#
        let page = try await Self.provider(FakeHTTP { _ in FakeHTTP.response(Data(list.utf8)) }).list(ListQuery(perPage: 10))
        #expect(page.photos.map(\.title) == [#"Rex & Bella at "La Concha" '24"#])
        #expect(page.skippedRecords == 0)
        let info = #"{"photo":{"id":"1","secret":"s","server":"1","title":{"_content":"Rex &amp; Bella"},"description":{"_content":"Rex loves the sea. <a href=\"https://example.org\">Dogs &amp; Beaches</a><br />More"},"owner":{"nsid":"o","username":"u"},"dates":{"posted":"1","taken":"2020-01-01 00:00:00"},"urls":{"url":[]}},"stat":"ok"}"#
        let sizes = #"{"sizes":{"size":[{"label":"Large","width":1024,"height":768,"source":"https://live.staticflickr.com/1/1_s_b.jpg"}]},"stat":"ok"}"#
        let http = FakeHTTP { components in
            let method = components.queryItems?.first { $0.name == "method" }?.value
            return FakeHTTP.response(Data((method == "flickr.photos.getInfo" ? info : sizes).utf8))
        }
        let detail = try await Self.provider(http).detail(PhotoID(provider: "flickr", raw: "1"))
        #expect(detail.photo.title == "Rex & Bella")
        #expect(detail.description == "Rex loves the sea. Dogs & Beaches More", "\(String(describing: detail.description))")
    }

    @Test func recentPhotosUseGetRecent() async throws {
        let http = FakeHTTP.flickrFixtures()
        let page = try await Self.provider(http).list(ListQuery(page: 1, perPage: 10))
        let query = try #require(http.requestedQueries.first)
        #expect(query["method"] == ["flickr.photos.getRecent"])
        #expect(query["text"] == nil && query["sort"] == nil)
        #expect(query["extras"]?.first?.contains("url_q") == true)
        #expect(page.photos.count == 10 && page.total == 1000 && page.hasMore)
    }

    @Test func blankTextListsRecentPhotos() async throws {
        let http = FakeHTTP.flickrFixtures()
        _ = try await Self.provider(http).list(ListQuery(text: "  ", perPage: 10))
        #expect(http.requestedQueries.first?["method"] == ["flickr.photos.getRecent"])
    }

    /// Recent photos take none of a search's filters: asked for with one, nothing is listed
    /// (listing them unfiltered would hand out what the filter was there to keep out).
    @Test func recentPhotosWithAFilterOfSearchesIsAUsageErrorBeforeAnyRequest() async throws {
        let http = FakeHTTP.flickrFixtures()
        let error = await photosError { try await Self.provider(http).list(ListQuery(perPage: 10, filters: ["license": "cc0"])) }
        #expect(error?.exitCode == 64 && error?.description.contains("flickr applies filter license only to a search") == true, "\(String(describing: error))")
        let badLicence = await photosError { try await Self.provider(http).list(ListQuery(perPage: 10, filters: ["license": "bogus"])) }
        #expect(badLicence?.description.contains("got 'bogus'") == true, "a value that is no licence is said as such first")
        #expect(http.requestedURLs.isEmpty)
        _ = try await Self.provider(http).list(ListQuery(perPage: 10, filters: ["license": "cc0", "user": "105731165@N07"]))
        #expect(http.requestedQueries.first?["method"] == ["flickr.photos.search"] && http.requestedQueries.first?["license"] == ["9"])
    }

    // MARK: The 4000-result cap

    @Test func searchPagesPastTheFirst4000ResultsAreAUsageError() async throws {
        let http = FakeHTTP.flickrFixtures()
        let error = await photosError { try await Self.provider(http).list(ListQuery(text: "dogs", page: 401, perPage: 10)) }
        #expect(error == .usage("Flickr returns only the first 4000 results of a search; page 401 at 10 per page is past them"))
        #expect(http.requestedURLs.isEmpty)
        #expect(error?.exitCode == 64)
    }

    @Test func hasMoreStopsAtTheCapAndAtTheLastPage() async throws {
        let http = FakeHTTP { components in
            let page = Int(components.queryItems?.first { $0.name == "page" }?.value ?? "1") ?? 1
            let perPage = Int(components.queryItems?.first { $0.name == "per_page" }?.value ?? "1") ?? 1
            let pages = (112_301 + perPage - 1) / perPage
            return FakeHTTP.response(
                #"{"photos":{"page":\#(page),"pages":\#(pages),"perpage":\#(perPage),"total":112301,"photo":[]},"stat":"ok"}"#)
        }
        let provider = Self.provider(http)
        #expect(try await provider.list(ListQuery(text: "cats", page: 399, perPage: 10)).hasMore)
        #expect(try await !provider.list(ListQuery(text: "cats", page: 400, perPage: 10)).hasMore)
        #expect(try await !provider.list(ListQuery(text: "cats", page: 8, perPage: 500)).hasMore)
        // Recent photos have no cap: hasMore follows pages.
        #expect(try await provider.list(ListQuery(page: 400, perPage: 10)).hasMore)
    }

    // MARK: Detail

    @Test func detailMergesGetInfoAndGetSizesFetchedInParallel() async throws {
        let http = FakeHTTP.flickrFixtures(delay: .milliseconds(200))
        let detail = try await Self.provider(http).detail(PhotoID(provider: "flickr", raw: "53624890009"))

        let methods = http.requestedQueries.compactMap { $0["method"]?.first }.sorted()
        #expect(methods == ["flickr.photos.getInfo", "flickr.photos.getSizes"])
        #expect(http.requestedQueries.allSatisfy { $0["photo_id"] == ["53624890009"] })
        #expect(http.maxInFlight == 2, "getInfo and getSizes run at the same time")

        #expect(detail.photo.id.description == "flickr:53624890009")
        #expect(detail.photo.title == "Rex at Playa de la Concha")
        #expect(detail.photo.owner == "Andrea Ruiz")
        #expect(detail.description == "Rex loves the sea.\nShot on a Fujifilm X-T4, 35mm f/1.4.")
        #expect(detail.takenAt == utcDate(2024, 1, 1, 7, 0, 0))
        #expect(detail.uploadedAt == Date(timeIntervalSince1970: 1_711_040_123))
        #expect(detail.tags == ["dog", "beach", "goldenretriever", "sansebastián"])
        #expect(detail.extra["views"] == "1546" && detail.extra["license"] == "All Rights Reserved")
        #expect(detail.photo.pageURL == "https://www.flickr.com/photos/andrearuiz/53624890009/")
        #expect(detail.sizes.count == 13)
        #expect(detail.sizes.allSatisfy { $0.width != nil && $0.height != nil }, "widths as strings and numbers")
        #expect(detail.sizes.first { $0.label == "Original" }?.width == 4000)
        #expect(detail.largestImageURL?.hasSuffix("_o.jpg") == true)
        #expect(detail.photo.thumbnailURL?.hasSuffix("_q.jpg") == true)
        #expect(detail.photo.imageURL?.hasSuffix("_b.jpg") == true)
        #expect(detail.photo.width == 1024 && detail.photo.height == 768)
    }

    @Test func detailWithStringSizesAndNoTags() async throws {
        let detail = try await Self.provider(.flickrFixtures()).detail(PhotoID(provider: "flickr", raw: "53619543218"))
        #expect(detail.photo.title == "")
        #expect(detail.description == nil)
        #expect(detail.tags.isEmpty)
        #expect(detail.sizes.map(\.width) == [75, 150, 100, 240, 320, 400, 500, 640, 800, 1024, 1600, 2048, 4000])
    }

    @Test func unknownPhotoIsNotFound() async throws {
        let id = PhotoID(provider: "flickr", raw: "12345678901")
        let error = await photosError { try await Self.provider(.flickrFixtures()).detail(id) }
        #expect(error == .notFound(id))
    }

    @Test func malformedIDsAreRefusedBeforeAnyRequest() async throws {
        let http = FakeHTTP.flickrFixtures()
        let provider = Self.provider(http)
        for raw in ["../../etc/passwd", "123abc", "", "123456789012345678901", "１２３"] {
            #expect(!provider.isValidID(raw))
            let error = await photosError { try await provider.detail(PhotoID(provider: "flickr", raw: raw)) }
            #expect(error?.kind == "usage")
        }
        #expect(http.requestedURLs.isEmpty)
        #expect(provider.isValidID("53624890009") && provider.isValidID("1") && provider.isValidID("12345678901234567890"))
    }

    // MARK: Errors

    @Test func missingKeyFailsBeforeAnyRequest() async throws {
        for key in [nil, "", "  "] as [String?] {
            var settings = Self.settings
            settings["FLICKR_API_KEY"] = key
            let http = FakeHTTP.flickrFixtures()
            let error = await photosError { try await Self.provider(http, settings: settings).list(ListQuery(text: "dogs")) }
            #expect(error?.kind == "authentication")
            #expect(error?.exitCode == 77)
            let text = error.map(String.init(describing:)) ?? ""
            #expect(text.contains("FLICKR_API_KEY") && text.contains("[flickr]"))
            #expect(text.contains("https://www.flickr.com/services/api/misc.api_keys.html"))
            #expect(http.requestedURLs.isEmpty)
        }
    }

    @Test func refusedKeyIsAnAuthenticationErrorWithoutTheKey() async throws {
        var settings = Self.settings
        settings["FLICKR_API_KEY"] = "bad-key"
        let error = await photosError { try await Self.provider(.flickrFixtures(), settings: settings).list(ListQuery(text: "dogs")) }
        #expect(
            error
                == .authentication(
                    provider: "flickr",
                    detail: "Flickr refused the API key (error 100: Invalid API Key). Check the key in FLICKR_API_KEY or api_key under [flickr] in the config file (photos config show says which one is used)"
                ))
        #expect(!String(describing: error!).contains("bad-key"))
    }

    @Test func flickrErrorCodesMap() async throws {
        let unavailable = await photosError { try await Self.provider(.flickrFixtures()).list(ListQuery(text: "error105")) }
        #expect(unavailable == .unavailable(provider: "flickr", detail: "Flickr error 105: Service currently unavailable"))
        #expect(unavailable?.exitCode == 69)

        let other = FakeHTTP { _ in FakeHTTP.response(#"{"stat":"fail","code":112,"message":"Method \"flickr.x\" not found"}"#) }
        let error112 = await photosError { try await Self.provider(other).list(ListQuery()) }
        #expect(error112 == .unavailable(provider: "flickr", detail: "Flickr error 112: Method \"flickr.x\" not found"))

        // Code 1 means "not found" only for getInfo/getSizes; for a search, as 2 (an unknown
        // user), the search's arguments are wrong: a usage error (64), which trying again
        // cannot mend, not "unavailable" (69).
        let code1 = FakeHTTP { _ in FakeHTTP.response(#"{"stat":"fail","code":1,"message":"Too many tags in ALL query"}"#) }
        let searchCode1 = await photosError { try await Self.provider(code1).list(ListQuery(text: "a")) }
        #expect(searchCode1?.kind == "usage" && searchCode1?.exitCode == 64, "\(String(describing: searchCode1))")
        let code2 = FakeHTTP { _ in FakeHTTP.response(#"{"stat":"fail","code":2,"message":"Unknown user"}"#) }
        let unknownUser = await photosError { try await Self.provider(code2).list(ListQuery(text: "a")) }
        #expect(unknownUser == .usage("Flickr refused the search (error 2: Unknown user); check --query and --filter"))
    }

    @Test func failureBodiesWinOverHTTPStatusAndKeysAreScrubbed() async throws {
        let http = FakeHTTP { _ in
            FakeHTTP.response(#"{"stat":"fail","code":105,"message":"Service unavailable for key test-key"}"#, status: 503)
        }
        let error = await photosError { try await Self.provider(http).list(ListQuery(text: "dogs")) }
        #expect(error?.kind == "unavailable")
        #expect(!String(describing: error!).contains("test-key"))
    }

    @Test func httpErrorsAndBadBodies() async throws {
        let html = FakeHTTP { _ in FakeHTTP.response("<html>Bad Gateway</html>", status: 502) }
        #expect(await photosError { try await Self.provider(html).list(ListQuery(text: "dogs")) }?.kind == "unavailable")

        let limited = FakeHTTP { _ in FakeHTTP.response("", status: 429) }
        #expect(await photosError { try await Self.provider(limited).list(ListQuery(text: "dogs")) }?.kind == "unavailable")

        let garbage = FakeHTTP { _ in FakeHTTP.response("{\"photos\": [1, 2") }
        let bad = await photosError { try await Self.provider(garbage).list(ListQuery(text: "dogs")) }
        #expect(bad?.kind == "badData" && bad?.exitCode == 65)

        let wrongShape = FakeHTTP { _ in FakeHTTP.response(#"{"stat":"ok","sizes":{}}"#) }
        #expect(await photosError { try await Self.provider(wrongShape).list(ListQuery()) }?.kind == "badData")

        for error in [bad] {
            let text = String(describing: error!)
            #expect(!text.contains("test-key") && !text.contains("api.example.test"))
        }
    }

    @Test func transportErrorsPropagateUnchanged() async throws {
        let http = FakeHTTP { _ in throw TransportError.cannotResolve(host: "api.example.test") }
        do {
            _ = try await Self.provider(http).list(ListQuery(text: "dogs"))
            Issue.record("expected an error")
        } catch let error as TransportError {
            #expect(error == .cannotResolve(host: "api.example.test"))
        }
    }

    @Test func callbackWrappedBodiesAreUnwrapped() async throws {
        let recorded = try FixtureFiles.data("flickr/search-dogs-page1.json")
        let http = FakeHTTP { _ in FakeHTTP.response(Data("jsonFlickrApi(".utf8) + recorded + Data(")\n".utf8)) }
        let page = try await Self.provider(http).list(ListQuery(text: "dogs", perPage: 10))
        #expect(page.photos.count == 9)

        let failing = FakeHTTP { _ in FakeHTTP.response(" jsonFlickrApi({\"stat\":\"fail\",\"code\":100,\"message\":\"Invalid API Key\"});") }
        #expect(await photosError { try await Self.provider(failing).list(ListQuery()) }?.kind == "authentication")
    }

    @Test func lenientNumbersAndOddShapes() async throws {
        let body = #"""
            {"photos":{"page":"1","pages":1.0,"perpage":"2","total":"2","photo":[
              {"id":53600000001,"owner":"1@N01","secret":"abc123","server":65535,"title":{"_content":"numeric id"},
               "url_l":"https://live.staticflickr.com/65535/x_b.jpg","width_l":"1024.0","height_l":" 683","dateupload":1700000000,
               "datetaken":"0000-00-00 00:00:00"},
              "not an object",
              {"id":"53600000002","owner":"1@N01","secret":"../x","server":"65535","title":null,"url_m":"javascript:alert(1)",
               "width_m":"abc","datetaken":"2023-02-30 10:00:00"}
            ]},"stat":"ok"}
            """#
        let page = try await Self.provider(FakeHTTP { _ in FakeHTTP.response(body) }).list(ListQuery(perPage: 2))
        #expect(page.total == 2 && page.perPage == 2 && !page.hasMore)
        #expect(page.photos.count == 2)
        let first = page.photos[0]
        #expect(first.id.raw == "53600000001" && first.title == "numeric id")
        #expect(first.width == 1024 && first.height == 683)
        #expect(first.uploadedAt == Date(timeIntervalSince1970: 1_700_000_000))
        #expect(first.takenAt == nil)
        #expect(first.thumbnailURL == "https://static.example.test/65535/53600000001_abc123_q.jpg")
        let second = page.photos[1]
        #expect(second.title == "")
        #expect(second.imageURL == nil, "javascript: dropped")
        #expect(second.thumbnailURL == nil, "a secret with '/' never builds a URL")
        #expect(second.takenAt == nil, "30 February")
    }

    /// An upload time past the year 9999 is no date (one of Int64.max printed as the year 506713).
    @Test(arguments: [("9223372036854775807", nil), ("253402300800", nil), ("253402300799", 253_402_300_799.0), ("1700000000", 1_700_000_000.0)])
    func anUploadTimePastTheYear9999IsNoDate(text: String, seconds: Double?) async throws {
        let body = #"{"photos":{"page":1,"pages":1,"perpage":1,"total":1,"photo":[{"id":"1","owner":"1@N01","secret":"s","server":"1","title":"t","dateupload":"\#(text)"}]},"stat":"ok"}"#
        let page = try await Self.provider(FakeHTTP { _ in FakeHTTP.response(body) }).list(ListQuery(perPage: 1))
        #expect(page.photos.first?.uploadedAt == seconds.map { Date(timeIntervalSince1970: $0) }, "\(text)")
    }

    // MARK: Metadata

    @Test func metadata() {
        let provider = Self.provider(.flickrFixtures())
        #expect(FlickrProvider.name == "flickr" && provider.name == "flickr")
        #expect(!FlickrProvider.descriptor.summary.isEmpty && !FlickrProvider.descriptor.summary.contains("\n"))
        #expect(provider.maxPerPage == 500)
    }

    @Test func defaultsPointAtFlickr() async throws {
        let http = FakeHTTP.flickrFixtures()
        _ = try await Self.provider(http, settings: ["FLICKR_API_KEY": "test-key"]).list(ListQuery(perPage: 1))
        #expect(http.requestedURLs.first?.hasPrefix("https://api.flickr.com/services/rest/?method=flickr.photos.getRecent&") == true)
        let page = try await Self.provider(.flickrFixtures(), settings: ["FLICKR_API_KEY": "test-key"])
            .list(ListQuery(text: "dogs", perPage: 10))
        #expect(page.photos.first { $0.id.raw == "53619543218" }?.thumbnailURL?.hasPrefix("https://live.staticflickr.com/65535/") == true)
    }
}

/// A failing server's answer ends its message with when to try again.
@Suite struct TryAgainAdviceTests {
    static func advice(_ status: Int, retryAfter: String? = nil) -> String {
        HTTPResponse(status: status, headers: HTTPHeaders(retryAfter.map { [("Retry-After", $0)] } ?? []), effectiveURL: "https://example.com/").tryAgainAdvice
    }

    @Test func serverFailuresSayWhenToTryAgain() {
        #expect(Self.advice(503) == "; try again later")
        #expect(Self.advice(500, retryAfter: "30") == "; it asks to be tried again in 30 s")
        #expect(Self.advice(503, retryAfter: "3600") == "; it asks to be tried again in 60 min")
        #expect(Self.advice(503, retryAfter: "7200") == "; it asks to be tried again in 2 h")
        // A date, or nonsense: no time is made up.
        #expect(Self.advice(503, retryAfter: "Wed, 21 Oct 2015 07:28:00 GMT") == "; try again later")
        #expect(Self.advice(503, retryAfter: "-5") == "; try again later")
        // The server's number, however large, is no crash (it overflowed at Int.max).
        #expect(Self.advice(503, retryAfter: String(Int.max)) == "; try again later")
        #expect(Self.advice(503, retryAfter: String(8 * 86_400)) == "; try again later")
        // Not a server failure: nothing to add (404 will not change by waiting).
        #expect(Self.advice(404, retryAfter: "30").isEmpty && Self.advice(200).isEmpty)
    }
}
