import Foundation
import PhotosCore
import PlaceholderProvider
import Testing

/// PlaceholderProvider against Fixtures/placeholder/photos.json, through a fake transport that
/// pages the recorded records the way json-server does.
@Suite struct PlaceholderProviderTests {
    static let base = "https://placeholder.example.test"

    static func provider(_ http: FakeHTTP, base: String? = base) -> PlaceholderProvider {
        var settings: [String: String] = [:]
        if let base { settings["PHOTOS_PLACEHOLDER_API"] = base }
        return PlaceholderProvider(context: ProviderContext(http: http, settings: settings))
    }

    /// `/photos?_page&_limit&albumId` and `/photos/N` from the recorded file; `totalHeader: false`
    /// leaves out X-Total-Count.
    static func fixtures(totalHeader: Bool = true) throws -> FakeHTTP {
        let records = try FixtureFiles.placeholderRecords()
        let encoded = try records.map { try JSONSerialization.data(withJSONObject: $0) }
        let albumIDs = records.map { $0["albumId"] as? Int ?? -1 }
        return FakeHTTP { components in
            let path = components.path
            if path.hasPrefix("/photos/") {
                let id = Int(path.dropFirst("/photos/".count)) ?? 0
                guard (1...encoded.count).contains(id) else { return FakeHTTP.response("{}", status: 404) }
                return FakeHTTP.response(encoded[id - 1])
            }
            let items = components.queryItems ?? []
            let page = Int(items.first { $0.name == "_page" }?.value ?? "1") ?? 1
            let limit = Int(items.first { $0.name == "_limit" }?.value ?? "10") ?? 10
            let albums = items.filter { $0.name == "albumId" }.compactMap { $0.value.flatMap(Int.init) }
            let selected = albumIDs.indices.filter { albums.isEmpty || albums.contains(albumIDs[$0]) }
            let slice = selected.dropFirst((page - 1) * limit).prefix(limit)
            let body = Data("[".utf8) + slice.map { encoded[$0] }.joined(separator: Data(",".utf8)) + Data("]".utf8)
            return FakeHTTP.response(body, headers: totalHeader ? [("X-Total-Count", String(selected.count))] : [])
        }
    }

    @Test func firstPageDecodes() async throws {
        let http = try Self.fixtures()
        let page = try await Self.provider(http).list(ListQuery(page: 1, perPage: 10))
        #expect(http.requestedURLs == ["https://placeholder.example.test/photos?_page=1&_limit=10"])
        #expect(page.page == 1 && page.perPage == 10 && page.total == 500 && page.hasMore)
        #expect(page.photos.count == 10)
        let first = page.photos[0]
        #expect(first.id.description == "placeholder:1")
        #expect(first.title == "accusamus beatae ad facilis cum similique qui sunt")
        #expect(first.thumbnailURL == "https://via.placeholder.com/150/92c952")
        #expect(first.imageURL == "https://via.placeholder.com/600/92c952")
        #expect(first.width == 600 && first.height == 600)
        #expect(first.pageURL == "https://placeholder.example.test/photos/1")
        #expect(first.owner == nil)
    }

    @Test func lastPageHasNoMore() async throws {
        let page = try await Self.provider(try Self.fixtures()).list(ListQuery(page: 50, perPage: 10))
        #expect(page.photos.count == 10 && !page.hasMore && page.total == 500)
        let past = try await Self.provider(try Self.fixtures()).list(ListQuery(page: 51, perPage: 10))
        #expect(past.photos.isEmpty && !past.hasMore)
    }

    /// A total no list can have (a broken proxy's header) is no crash: the page count saturates.
    @Test func anAbsurdTotalCountIsNoCrash() async throws {
        let http = FakeHTTP { _ in
            FakeHTTP.response(#"[{"albumId":1,"id":1,"title":"t","url":"https://via.placeholder.com/600/92c952","thumbnailUrl":"https://via.placeholder.com/150/92c952"}]"#,
                headers: [("X-Total-Count", "9223372036854775807")])
        }
        let page = try await Self.provider(http).list(ListQuery(page: 1, perPage: 30))
        #expect(page.photos.count == 1 && page.hasMore)
    }

    @Test func withoutTotalHeaderAFullPageMeansMore() async throws {
        let provider = Self.provider(try Self.fixtures(totalHeader: false))
        let full = try await provider.list(ListQuery(page: 1, perPage: 30))
        #expect(full.total == nil && full.hasMore)
        let short = try await provider.list(ListQuery(page: 2, perPage: 300))
        #expect(short.photos.count == 200 && !short.hasMore)
    }

    @Test func hostileRecordsKeepTheirTitlesButLoseFileURLs() async throws {
        let page = try await Self.provider(try Self.fixtures()).list(ListQuery(page: 1, perPage: 100))
        let byID = Dictionary(uniqueKeysWithValues: page.photos.map { ($0.id.raw, $0) })
        #expect(byID["13"]?.title.contains("\u{1B}[31m") == true)
        #expect(byID["27"]?.title.unicodeScalars.contains("\u{202E}") == true)
        #expect(byID["42"]?.title.contains("\n") == true)
        #expect(byID["77"]?.thumbnailURL == nil)
        #expect(byID["77"]?.imageURL?.hasPrefix("https://via.placeholder.com/600/") == true)
    }

    @Test func queryAndAlbumFiltersAreEncoded() async throws {
        let http = try Self.fixtures()
        let page = try await Self.provider(http).list(ListQuery(text: "sunt & q=x", page: 2, perPage: 5, filters: ["album": "3, 4"]))
        let url = try #require(http.requestedURLs.first)
        #expect(url == "https://placeholder.example.test/photos?_page=2&_limit=5&q=sunt%20%26%20q%3Dx&albumId=3&albumId=4")
        #expect(page.total == 100)
        #expect(page.photos.map(\.id.raw) == ["106", "107", "108", "109", "110"])
    }

    @Test func badAlbumIsAUsageError() async throws {
        let http = try Self.fixtures()
        let error = await photosError { try await Self.provider(http).list(ListQuery(filters: ["album": "1&_limit=5000"])) }
        #expect(error?.kind == "usage")
        #expect(http.requestedURLs.isEmpty)
    }

    @Test func detailHasSizesAndAlbum() async throws {
        let http = try Self.fixtures()
        let detail = try await Self.provider(http).detail(PhotoID(provider: "placeholder", raw: "17"))
        #expect(http.requestedURLs == ["https://placeholder.example.test/photos/17"])
        #expect(detail.photo.id.description == "placeholder:17")
        #expect(detail.extra["album"] == "1")
        #expect(detail.sizes.map(\.label) == ["thumbnail", "full"])
        #expect(detail.sizes.map(\.width) == [150, 600])
        #expect(detail.largestImageURL == detail.photo.imageURL)
    }

    @Test func unknownPhotoIsNotFound() async throws {
        let id = PhotoID(provider: "placeholder", raw: "9999")
        #expect(await photosError { try await Self.provider(try Self.fixtures()).detail(id) } == .notFound(id))
        // json-server answers `{}`; some proxies turn that into a 200.
        let empty = FakeHTTP { _ in FakeHTTP.response("{}") }
        #expect(await photosError { try await Self.provider(empty).detail(id) } == .notFound(id))
    }

    @Test func idsAreValidated() async throws {
        let http = try Self.fixtures()
        let provider = Self.provider(http)
        #expect(provider.isValidID("1") && provider.isValidID("123456789"))
        for raw in ["0x1", "1234567890", "../1", "-1", ""] {
            #expect(!provider.isValidID(raw))
        }
        let error = await photosError { try await provider.detail(PhotoID(provider: "placeholder", raw: "../../etc/passwd")) }
        #expect(error?.kind == "usage")
        #expect(http.requestedURLs.isEmpty)
    }

    @Test func errors() async throws {
        let invalid = FakeHTTP { _ in FakeHTTP.response("<html>oops</html>") }
        #expect(await photosError { try await Self.provider(invalid).list(ListQuery()) }?.kind == "badData")
        #expect(await photosError { try await Self.provider(invalid).detail(PhotoID(provider: "placeholder", raw: "1")) }?.kind == "badData")

        let down = FakeHTTP { _ in FakeHTTP.response("", status: 503) }
        #expect(await photosError { try await Self.provider(down).list(ListQuery()) }?.kind == "unavailable")
        #expect(await photosError { try await Self.provider(down).detail(PhotoID(provider: "placeholder", raw: "1")) }?.kind == "unavailable")

        let object = FakeHTTP { _ in FakeHTTP.response(#"{"photos":[]}"#) }
        #expect(await photosError { try await Self.provider(object).list(ListQuery()) }?.kind == "badData")
    }

    @Test func lenientRecords() async throws {
        let body = #"""
            [{"albumId":"2","id":"51","title":"string numbers","url":"https://picsum.photos/seed/abc/600","thumbnailUrl":"https://picsum.photos/seed/abc/150"},
             {"id":"x1","title":"bad id"}, 7, null,
             {"albumId":2,"id":52,"url":"ftp://example.com/600/ff0000","thumbnailUrl":"https://via.placeholder.com/150/ff0000"}]
            """#
        let page = try await Self.provider(FakeHTTP { _ in FakeHTTP.response(body) }).list(ListQuery(perPage: 10))
        #expect(page.photos.map(\.id.raw) == ["51", "52"])
        #expect(page.photos[0].width == 600 && page.photos[0].title == "string numbers")
        #expect(page.photos[1].title == "" && page.photos[1].imageURL == nil && page.photos[1].width == nil)
        #expect(!page.hasMore)
        #expect(page.skippedRecords == 3, "the bad id, 7 and null are counted, so the listing says it left them out")

        // A page of nothing but numbers is three records skipped, not an empty listing said
        // nothing about; a full page of them still says there may be more.
        let numbers = try await Self.provider(FakeHTTP { _ in FakeHTTP.response("[1,2,3]") }).list(ListQuery(perPage: 3))
        #expect(numbers.photos.isEmpty && numbers.skippedRecords == 3 && numbers.hasMore)
    }

    @Test func defaultsAndMetadata() async throws {
        let http = try Self.fixtures()
        let provider = Self.provider(http, base: nil)
        _ = try await provider.list(ListQuery(perPage: 3))
        #expect(http.requestedURLs == ["https://jsonplaceholder.typicode.com/photos?_page=1&_limit=3"])
        #expect(PlaceholderProvider.name == "placeholder" && provider.name == "placeholder")
        #expect(!PlaceholderProvider.descriptor.summary.isEmpty)
    }

    @Test func imageURLsSayWhatTheyDrew() throws {
        let provider = Self.provider(FakeHTTP { _ in FakeHTTP.response("[]") })
        #expect(provider.syntheticImage(for: "https://via.placeholder.com/150/92c952")
            == SyntheticImage(width: 150, height: 150, rgb: 0x92C952, label: "150x150"))
        #expect(provider.syntheticImage(for: "https://via.placeholder.com/600/fff")
            == SyntheticImage(width: 600, height: 600, rgb: 0xFFFFFF, label: "600x600"))
        // jsonplaceholder's data holds colours of five digits too (one record in nine).
        #expect(provider.syntheticImage(for: "https://via.placeholder.com/600/9ea06")
            == SyntheticImage(width: 600, height: 600, rgb: 0x09EA06, label: "600x600"))
        #expect(provider.syntheticImage(for: "https://via.placeholder.com/600/92c9521") == nil, "7 hex digits is no colour")
        #expect(provider.syntheticImage(for: "https://via.placeholder.com/99999/92c952") == nil, "too large to draw")
        #expect(provider.syntheticImage(for: "https://via.placeholder.com/150/zzzzzz") == nil)
        #expect(provider.syntheticImage(for: "not a url") == nil)
    }
}
