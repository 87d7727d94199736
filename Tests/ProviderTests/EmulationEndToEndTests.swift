import FixtureServerKit
import FlickrProvider
import Foundation
import PhotosCore
import PhotosTransport
import PlaceholderProvider
import Testing

/// Both providers against photos-fixture-server's Flickr and jsonplaceholder emulation, in
/// process, over TLS (ALPN h2) through the real transport.
@Suite struct EmulationEndToEndTests {
    struct Bed {
        var server: FixtureServer
        var emulation: FixtureProviderEmulation
        var transport: CurlTransport
        var settings: [String: String]

        func flickr(key: String? = FixtureProviderEmulation.validFlickrAPIKey) -> FlickrProvider {
            var settings = settings
            settings["FLICKR_API_KEY"] = key
            return FlickrProvider(context: ProviderContext(http: transport, settings: settings))
        }

        var placeholder: PlaceholderProvider {
            PlaceholderProvider(context: ProviderContext(http: transport, settings: settings))
        }

        /// A header value without surrounding whitespace.
        static func header(_ response: HTTPResponse, _ name: String) -> String? {
            response.headers[name]?.trimmingCharacters(in: .whitespacesAndNewlines)
        }

        func get(_ pathAndQuery: String) async throws -> HTTPResponse {
            try await transport.data(for: HTTPRequest(url: server.url + pathAndQuery))
        }
    }

    /// Starts a server with the emulation, runs `body`, and always shuts the server down.
    static func withBed(_ body: (Bed) async throws -> Void) async throws {
        let emulation = FixtureProviderEmulation(fixtures: FixtureFiles.root)
        let server = try await FixtureServer.start(FixtureServerConfiguration(fixturesDirectory: FixtureFiles.root, routes: [emulation.route]))
        do {
            var configuration = TransportConfiguration()
            configuration.caBundlePath = server.caFile
            configuration.retry = .none
            let transport = try CurlTransport(configuration: configuration)
            let settings = [
                "PHOTOS_FLICKR_API": server.url + "/services/rest/",
                "PHOTOS_FLICKR_STATIC": server.url + "/flickr-static",
                "PHOTOS_PLACEHOLDER_API": server.url,
            ]
            try await body(Bed(server: server, emulation: emulation, transport: transport, settings: settings))
        } catch {
            try? await server.shutdown()
            throw error
        }
        try await server.shutdown()
    }

    // MARK: Flickr

    @Test func flickrSearchPagesThroughTheServer() async throws {
        try await Self.withBed { bed in
            let flickr = bed.flickr()
            let first = try await flickr.list(ListQuery(text: "dogs", page: 1, perPage: 10))
            #expect(first.photos.count == 9 && first.total == 28 && first.hasMore)
            #expect(!first.photos.contains { $0.id.raw.contains("/") })
            #expect(first.photos.first { $0.id.raw == "53620654329" }?.thumbnailURL == nil)
            #expect(first.photos.first { $0.id.raw == "53625112784" }?.title.contains("\u{1B}]0;pwned\u{07}") == true)
            #expect(first.photos.first { $0.id.raw == "53623987651" }?.title.unicodeScalars.contains("\u{202E}") == true)
            let thumbnails = first.photos.compactMap(\.thumbnailURL)
            #expect(thumbnails.count == 8)
            #expect(thumbnails.allSatisfy { $0.hasPrefix(bed.server.url + "/flickr-static/65535/") && $0.hasSuffix("_q.jpg") })
            #expect(first.photos.compactMap(\.imageURL).allSatisfy { $0.hasPrefix(bed.server.url + "/flickr-static/") })

            let second = try await flickr.list(ListQuery(text: "dogs", page: 2, perPage: 10))
            #expect(second.photos.count == 10 && second.page == 2 && second.total == 28 && second.hasMore)
            #expect(second.photos.allSatisfy { $0.width == 1024 && $0.imageURL?.hasPrefix(bed.server.url) == true })

            let third = try await flickr.list(ListQuery(text: "dogs", page: 3, perPage: 10))
            #expect(third.photos.count == 8 && !third.hasMore)

            let nothing = try await flickr.list(ListQuery(text: "no such thing", perPage: 10))
            #expect(nothing.photos.isEmpty && nothing.total == 0 && !nothing.hasMore)
        }
    }

    @Test func flickrImagesAreServed() async throws {
        try await Self.withBed { bed in
            let page = try await bed.flickr().list(ListQuery(text: "dogs", perPage: 10))
            let urls = page.photos.compactMap(\.thumbnailURL)
            var sizes = Set<Int>()
            for url in urls {
                let response = try await bed.transport.data(for: HTTPRequest(url: url))
                #expect(response.status == 200 && Bed.header(response, "content-type") == "image/jpeg")
                #expect(response.body.prefix(2) == Data([0xFF, 0xD8]))
                sizes.insert(response.body.count)
            }
            #expect(sizes.count == urls.count, "every photo gets its own thumbnail bytes")
            let large = try await bed.transport.data(for: HTTPRequest(url: try #require(page.photos[0].imageURL)))
            let largeFile = try FixtureFiles.data("images/large.jpg")
            #expect(large.status == 200 && large.body == largeFile)
            #expect(try await bed.get("/flickr-static/65535/..%2F..%2Fetc%2Fpasswd_q.jpg").status == 404)
        }
    }

    @Test func flickrRecent() async throws {
        try await Self.withBed { bed in
            let recent = try await bed.flickr().list(ListQuery(page: 1, perPage: 10))
            #expect(recent.photos.count == 10 && recent.total == 1000 && recent.hasMore)
            #expect(bed.emulation.handledRequests.last?.queryValue("method") == "flickr.photos.getRecent")
        }
    }

    @Test func flickrDetailMergesBothCalls() async throws {
        try await Self.withBed { bed in
            let flickr = bed.flickr()
            bed.server.resetStats()
            let detail = try await flickr.detail(PhotoID(provider: "flickr", raw: "53624890009"))
            #expect(bed.server.stats().requests == 2)
            let methods = bed.emulation.handledRequests.compactMap { $0.queryValue("method") }.sorted()
            #expect(methods == ["flickr.photos.getInfo", "flickr.photos.getSizes"])
            #expect(detail.photo.title == "Rex at Playa de la Concha")
            #expect(detail.sizes.count == 13)
            #expect(detail.sizes.allSatisfy { $0.url.hasPrefix(bed.server.url + "/flickr-static/65535/53624890009_") })
            #expect(detail.extra["views"] == "1546")
            #expect(detail.tags.contains("goldenretriever"))
            let original = try await bed.transport.data(for: HTTPRequest(url: try #require(detail.largestImageURL)))
            #expect(original.status == 200)

            let hostile = try await flickr.detail(PhotoID(provider: "flickr", raw: "53625112784"))
            #expect(hostile.description?.hasPrefix("\u{1B}[2J") == true)
        }
    }

    @Test func flickrErrors() async throws {
        try await Self.withBed { bed in
            for key in ["bad-key", "wrong"] {
                let error = await photosError { try await bed.flickr(key: key).list(ListQuery(text: "dogs")) }
                #expect(error?.kind == "authentication" && error?.exitCode == 77)
                let text = String(describing: error!)
                #expect(!text.contains("bad-key") && !text.contains("test-key") && !text.contains("wrong"))
                #expect(!text.contains(bed.server.url))
            }
            bed.server.resetStats()
            #expect(await photosError { try await bed.flickr(key: nil).list(ListQuery()) }?.kind == "authentication")
            #expect(bed.server.stats().requests == 0)

            let unavailable = await photosError { try await bed.flickr().list(ListQuery(text: "error105")) }
            #expect(unavailable?.kind == "unavailable" && unavailable?.exitCode == 69)

            let id = PhotoID(provider: "flickr", raw: "11111111111")
            #expect(await photosError { try await bed.flickr().detail(id) } == .notFound(id))

            let capped = await photosError { try await bed.flickr().list(ListQuery(text: "dogs", page: 41, perPage: 100)) }
            #expect(capped == .usage("Flickr returns only the first 4000 results of a search; page 41 at 100 per page is past them"))
        }
    }

    @Test func flickrServerFailuresAfterRetries() async throws {
        try await Self.withBed { bed in
            var settings = bed.settings
            settings["FLICKR_API_KEY"] = "test-key"
            settings["PHOTOS_FLICKR_API"] = bed.server.url + "/services/rest/?status=503"
            let flickr = FlickrProvider(context: ProviderContext(http: bed.transport, settings: settings))
            let error: any Error
            do {
                _ = try await flickr.list(ListQuery(text: "dogs"))
                Issue.record("expected a failure")
                return
            } catch let caught {
                error = caught
            }
            if let photos = error as? PhotosError {
                #expect(photos.kind == "unavailable")
            } else {
                #expect(error is TransportError)
            }
            #expect(!String(describing: error).contains("test-key"))
        }
    }

    @Test func emulationWrapsWithoutNoJSONCallbackAndKnowsMethods() async throws {
        try await Self.withBed { bed in
            let wrapped = try await bed.get("/services/rest/?method=flickr.photos.getRecent&api_key=test-key&format=json")
            let text = String(decoding: wrapped.body, as: UTF8.self)
            #expect(text.hasPrefix("jsonFlickrApi({\"photos\"") && text.hasSuffix(")"))
            #expect(text.contains("https:\\/\\/") == false || text.contains(bed.server.url.replacingOccurrences(of: "/", with: "\\/")))

            let unknown = try await bed.get("/services/rest/?method=flickr.photos.nope&api_key=test-key&format=json&nojsoncallback=1")
            #expect(String(decoding: unknown.body, as: UTF8.self).contains("\"code\":112"))
            let missingKey = try await bed.get("/services/rest/?method=flickr.photos.getRecent&format=json&nojsoncallback=1")
            #expect(String(decoding: missingKey.body, as: UTF8.self).contains("\"code\":100"))
            let parameterless = try await bed.get("/services/rest/?method=flickr.photos.search&api_key=test-key&format=json&nojsoncallback=1")
            #expect(String(decoding: parameterless.body, as: UTF8.self).contains("\"code\":3"))
            let page2 = try await bed.get("/services/rest/?method=flickr.photos.search&text=dogs&page=2&api_key=test-key&format=json&nojsoncallback=1")
            let page2Text = String(decoding: page2.body, as: UTF8.self)
            #expect(!page2Text.contains("live.staticflickr.com") && page2Text.contains("\"total\":\"28\""))
        }
    }

    // MARK: jsonplaceholder

    @Test func placeholderPaging() async throws {
        try await Self.withBed { bed in
            let placeholder = bed.placeholder
            let first = try await placeholder.list(ListQuery(page: 1, perPage: 10))
            #expect(first.photos.count == 10 && first.total == 500 && first.hasMore)
            #expect(first.photos[0].title == "accusamus beatae ad facilis cum similique qui sunt")
            #expect(first.photos[0].thumbnailURL == bed.server.url + "/placeholder-img/150/92c952")
            #expect(first.photos[0].imageURL == bed.server.url + "/placeholder-img/600/92c952")
            #expect(first.photos[0].width == 600)

            let last = try await placeholder.list(ListQuery(page: 5, perPage: 100))
            #expect(last.photos.count == 100 && !last.hasMore)
            #expect(last.photos.last?.id.raw == "500")

            let beyond = try await placeholder.list(ListQuery(page: 6, perPage: 100))
            #expect(beyond.photos.isEmpty && !beyond.hasMore && beyond.total == 500)

            let page8 = try await placeholder.list(ListQuery(page: 8, perPage: 10))
            #expect(page8.photos.first { $0.id.raw == "77" }?.thumbnailURL == nil)
        }
    }

    @Test func placeholderSearchAndAlbums() async throws {
        try await Self.withBed { bed in
            let placeholder = bed.placeholder
            let sunt1 = try await placeholder.list(ListQuery(text: "SUNT", page: 1, perPage: 10))
            #expect(sunt1.total == 18 && sunt1.photos.count == 10 && sunt1.hasMore)
            let sunt2 = try await placeholder.list(ListQuery(text: "sunt", page: 2, perPage: 10))
            #expect(sunt2.photos.count == 8 && !sunt2.hasMore)
            #expect(Set(sunt1.photos.map(\.id) + sunt2.photos.map(\.id)).count == 18)

            let album = try await placeholder.list(ListQuery(page: 1, perPage: 100, filters: ["album": "3"]))
            #expect(album.total == 50 && !album.hasMore)
            #expect(album.photos.map(\.id.raw) == (101...150).map(String.init))

            let albums = try await placeholder.list(ListQuery(text: "sunt", page: 1, perPage: 100, filters: ["album": "1,2"]))
            #expect(albums.photos.allSatisfy { (Int($0.id.raw) ?? 0) <= 100 })

            let none = try await placeholder.list(ListQuery(text: "no-such-words-anywhere", perPage: 10))
            #expect(none.photos.isEmpty && none.total == 0 && !none.hasMore)
        }
    }

    @Test func placeholderDetailAndNotFound() async throws {
        try await Self.withBed { bed in
            let detail = try await bed.placeholder.detail(PhotoID(provider: "placeholder", raw: "17"))
            #expect(detail.extra["album"] == "1" && detail.sizes.count == 2)
            let thumbnail = try await bed.transport.data(for: HTTPRequest(url: try #require(detail.photo.thumbnailURL)))
            #expect(thumbnail.status == 200 && thumbnail.body.prefix(2) == Data([0xFF, 0xD8]))
            let image = try await bed.transport.data(for: HTTPRequest(url: try #require(detail.photo.imageURL)))
            let sampleFile = try FixtureFiles.data("images/sample.jpg")
            #expect(image.status == 200 && image.body == sampleFile)

            let id = PhotoID(provider: "placeholder", raw: "5001")
            #expect(await photosError { try await bed.placeholder.detail(id) } == .notFound(id))
        }
    }

    @Test func jsonServerHeadersAndRoutes() async throws {
        try await Self.withBed { bed in
            let page = try await bed.get("/photos?_page=2&_limit=10")
            #expect(Bed.header(page, "x-total-count") == "500")
            let link = try #require(Bed.header(page, "link"))
            #expect(link.contains("<\(bed.server.url)/photos?_page=1&_limit=10>; rel=\"first\""))
            #expect(link.contains("<\(bed.server.url)/photos?_page=1&_limit=10>; rel=\"prev\""))
            #expect(link.contains("<\(bed.server.url)/photos?_page=3&_limit=10>; rel=\"next\""))
            #expect(link.contains("<\(bed.server.url)/photos?_page=50&_limit=10>; rel=\"last\""))

            let album = try await bed.get("/albums/2/photos?_limit=3")
            let records = try JSONSerialization.jsonObject(with: album.body) as? [[String: Any]] ?? []
            #expect(records.compactMap { $0["id"] as? Int } == [51, 52, 53])
            #expect(Bed.header(album, "x-total-count") == "50")

            let missing = try await bed.get("/photos/0")
            #expect(missing.status == 404 && String(decoding: missing.body, as: UTF8.self) == "{}")

            let all = try await bed.get("/photos?albumId=1&albumId=10")
            #expect((try JSONSerialization.jsonObject(with: all.body) as? [Any])?.count == 100)
            #expect(Bed.header(all, "x-total-count") == nil)

            let sorted = try await bed.get("/photos?_sort=id&_order=desc&_limit=2")
            #expect((try JSONSerialization.jsonObject(with: sorted.body) as? [[String: Any]])?.compactMap { $0["id"] as? Int } == [500, 499])

            #expect(try await bed.get("/placeholder-img/150/zzzzzz").status == 404)
        }
    }
}
