import FixtureServerKit
import Foundation
import PhotosCore
import PhotosProviders
import PhotosTestSupport
import Testing

/// What every registered provider must do, checked through the built binary against its
/// emulation in the fixture server. A provider gets these tests by registering and shipping
/// `Fixtures/<name>/emulation.json` with a `conformance` section:
///
/// - `search`: a text with at least two pages of `per_page` results; `feed`: whether it has a
///   default feed; `detail` / `detail_title`: an id with a detail fixture and text of its title;
///   `unknown`: a well-formed id the API does not know; `invalid_ids`: ids the provider must
///   refuse without a request; `hostile`: a search whose results carry hostile strings.
@Suite struct ProviderConformanceTests {
    static let providers = ProviderRegistry.standard.names

    struct Expectations {
        var search: String
        var perPage: Int
        var feed: Bool
        var detail: String
        var detailTitle: String
        var unknown: String
        var invalidIDs: [String]
        var hostile: String
        var endpointVariable: String

        init(_ provider: String) throws {
            let file = FixtureServerConfiguration.defaultFixturesDirectory
                .appendingPathComponent(provider).appendingPathComponent("emulation.json")
            let data = try Data(contentsOf: file)
            let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
            let conformance = try #require(object["conformance"] as? [String: Any], "\(provider) has no conformance section")
            search = try #require(conformance["search"] as? String)
            perPage = try #require(conformance["per_page"] as? Int)
            feed = conformance["feed"] as? Bool ?? false
            detail = try #require(conformance["detail"] as? String)
            detailTitle = try #require(conformance["detail_title"] as? String)
            unknown = try #require(conformance["unknown"] as? String)
            invalidIDs = try #require(conformance["invalid_ids"] as? [String])
            hostile = try #require(conformance["hostile"] as? String)
            let descriptor = try #require(ProviderRegistry.standard.descriptor(provider))
            endpointVariable = try #require(descriptor.endpointSetting?.variable, "\(provider) declares no endpoint setting")
        }
    }

    static func photos(_ run: PhotosBinary.Run) throws -> [[String: Any]] {
        try #require(try run.json()["photos"] as? [[String: Any]])
    }

    @Test(arguments: providers) func searchPagesForward(provider: String) async throws {
        let expect = try Expectations(provider)
        try await withServer { _, photos in
            let base = ["list", "--provider", provider, "--query", expect.search, "--per-page", String(expect.perPage), "--format", "json"]
            let first = try await photos.run(base)
            #expect(first.status == 0, "\(first.stderr)")
            let page1 = try Self.photos(first)
            #expect(!page1.isEmpty && page1.count <= expect.perPage)
            #expect(try first.json()["has_more"] as? Bool == true, "the search has a second page")
            let ids1 = page1.compactMap { $0["id"] as? String }
            #expect(ids1.count == page1.count && Set(ids1).count == ids1.count, "ids are present and listed once")
            #expect(ids1.allSatisfy { $0.hasPrefix("\(provider):") })
            #expect(page1.allSatisfy { ($0["provider"] as? String) == provider && $0["title"] is String })

            let second = try await photos.run(base + ["--page", "2"])
            #expect(second.status == 0, "\(second.stderr)")
            let ids2 = try Self.photos(second).compactMap { $0["id"] as? String }
            #expect(!ids2.isEmpty)
            #expect(Set(ids1).isDisjoint(with: ids2), "page 2 holds other photos than page 1")
        }
    }

    @Test(arguments: providers) func defaultFeedLists(provider: String) async throws {
        let expect = try Expectations(provider)
        try #require(expect.feed, "\(provider) has a default feed")
        try await withServer { _, photos in
            let run = try await photos.run(["list", "--provider", provider, "--per-page", String(expect.perPage), "--format", "json"])
            #expect(run.status == 0, "\(run.stderr)")
            let list = try Self.photos(run)
            #expect(!list.isEmpty)
            #expect(list.allSatisfy { ($0["id"] as? String)?.hasPrefix("\(provider):") == true })
        }
    }

    @Test(arguments: providers) func thumbnailsAreFetchedIntoTheCache(provider: String) async throws {
        let expect = try Expectations(provider)
        try await withServer { _, photos in
            let run = try await photos.run(["list", "--provider", provider, "--query", expect.search, "--per-page", String(expect.perPage), "--format", "json"])
            #expect(run.status == 0, "\(run.stderr)")
            let paths = try Self.photos(run).compactMap { $0["thumbnail_path"] as? String }
            #expect(!paths.isEmpty, "thumbnails of \(provider) come into the cache")
            for path in paths {
                let head = try Data(contentsOf: URL(fileURLWithPath: path)).prefix(4)
                #expect(head.starts(with: [0xFF, 0xD8]) || head.starts(with: [0x89, 0x50, 0x4E, 0x47]), "an image: \(path)")
            }
        }
    }

    @Test(arguments: providers) func detailShowsThePhoto(provider: String) async throws {
        let expect = try Expectations(provider)
        try await withServer { _, photos in
            let json = try await photos.run(["show", expect.detail, "--format", "json"])
            #expect(json.status == 0, "\(json.stderr)")
            let object = try json.json()
            #expect(object["id"] as? String == expect.detail)
            #expect((object["title"] as? String)?.contains(expect.detailTitle) == true)
            #expect(!((object["sizes"] as? [Any]) ?? []).isEmpty, "the detail lists the sizes")
            let table = try await photos.run(["show", expect.detail])
            #expect(table.status == 0 && table.stdout.contains(expect.detailTitle))
        }
    }

    /// `photos save` of a search chooses each photo's size from the listing: one request for the
    /// listing and one per image, no detail per photo. Not Flickr's fixture search, which holds
    /// a photo without any url_* extra (its sizes need getSizes), nor NASA, whose search results
    /// name no original (each needs its asset list).
    @Test(arguments: ["placeholder", "commons", "openverse"])
    func savingASearchAsksForNoDetailPerPhoto(provider: String) async throws {
        let expect = try Expectations(provider)
        try await withServer { server, photos in
            let folder = try TemporaryFolder("save-\(provider)")
            let run = try await photos.run([
                "save", "--provider", provider, "--query", expect.search, "--limit", String(expect.perPage),
                "--size", "original", "--to", folder.url.path, "--format", "json",
            ])
            #expect(run.status == 0, "\(run.stderr)")
            let saved = try #require(try run.json()["saved"] as? Int)
            #expect(saved == expect.perPage)
            #expect(server.stats().requests == 1 + saved, "the listing, then one request per image")
        }
    }

    @Test(arguments: providers) func unknownIDIsNotFound(provider: String) async throws {
        let expect = try Expectations(provider)
        try await withServer { _, photos in
            let run = try await photos.run(["show", expect.unknown])
            #expect(run.status == 69, "\(run.stderr)")
            #expect(run.stderr.contains(expect.unknown) && run.stdout.isEmpty)
        }
    }

    @Test(arguments: providers) func invalidIDsAreRefusedWithoutARequest(provider: String) async throws {
        let expect = try Expectations(provider)
        try await withServer { server, photos in
            let before = server.stats().requests
            for id in expect.invalidIDs {
                let run = try await photos.run(["show", id])
                #expect(run.status == 64, "\(id): \(run.stderr)")
                #expect(run.stderr.contains("is not a valid \(provider) photo id"), "\(id): \(run.stderr)")
            }
            #expect(server.stats().requests == before, "no request for an invalid id")
        }
    }

    @Test func anIDRefusedForACharacterThatDoesNotShowNamesIt() async throws {
        let photos = try PhotosBinary(server: nil)
        defer { photos.remove() }
        // A zero-width space pasted with the id: the message shows it, or the id quoted back would
        // look valid.
        let hidden = try await photos.run(["show", "flickr:53624890009\u{200B}"])
        #expect(hidden.status == 64 && hidden.stderr.contains("'53624890009\\u{200B}' is not a valid flickr photo id"), "\(hidden.stderr)")
        let spaced = try await photos.run(["save", "flickr: 1", "--to", photos.home.appendingPathComponent("out").path])
        #expect(spaced.stderr.contains("'flickr: 1' is not a valid flickr photo id"), "\(spaced.stderr)")
    }

    /// A Flickr id of digits only, but too many of them, is refused saying how many there may be
    /// (the message said "they look like flickr:<digits>", which the id looked like).
    @Test func aFlickrIDOfTooManyDigitsIsRefusedSayingHowManyThereMayBe() async throws {
        let photos = try PhotosBinary(server: nil)
        defer { photos.remove() }
        let long = try await photos.run(["show", "flickr:" + String(repeating: "7", count: 21)])
        #expect(long.status == 64 && long.stderr.contains("is not a valid flickr photo id: they look like flickr:<1 to 20 digits>"), "\(long.stderr)")
        let twenty = try await photos.run(["show", "flickr:" + String(repeating: "7", count: 20), "--offline"])
        #expect(twenty.status == 69, "an id of 20 digits is one: \(twenty.stderr)")
    }

    @Test(arguments: providers) func unreadableBodiesExit65(provider: String) async throws {
        let expect = try Expectations(provider)
        try await withServer { server, photos in
            let endpoint = try #require(photos.environment[expect.endpointVariable])
            let path = String(endpoint.dropFirst(server.url.count))
            for broken in ["/__malformed", "/__html"] {
                let run = try await photos.run(
                    ["list", "--provider", provider, "--query", expect.search, "--no-thumbnails"],
                    environment: [expect.endpointVariable: server.url + broken + path])
                #expect(run.status == 65, "\(broken): \(run.stderr)")
                #expect(run.stderr.contains(provider) && run.stdout.isEmpty, "\(broken): \(run.stderr)")
            }
            let detail = try await photos.run(
                ["show", expect.detail], environment: [expect.endpointVariable: server.url + "/__malformed" + path])
            #expect(detail.status == 65, "\(detail.stderr)")
        }
    }

    @Test(arguments: providers) func unreachableHostExits69(provider: String) async throws {
        let expect = try Expectations(provider)
        try await withServer { server, photos in
            let endpoint = try #require(photos.environment[expect.endpointVariable])
            let path = String(endpoint.dropFirst(server.url.count))
            let run = try await photos.run(
                ["list", "--provider", provider, "--query", expect.search, "--no-thumbnails"],
                environment: [expect.endpointVariable: "https://127.0.0.1:1" + path])
            #expect(run.status == 69, "\(run.stderr)")
            #expect(run.stderr.contains("127.0.0.1") && run.stdout.isEmpty, "\(run.stderr)")
        }
    }

    /// Raw control and format characters a hostile title could use on a terminal.
    /// Whether `bytes` hold a control or format character a terminal would act on. With
    /// `allowingJoiners`, U+200D (which holds emoji sequences together in tables) is allowed.
    static func hasRawControls(_ bytes: Data, allowingJoiners: Bool = false) -> Bool {
        let text = String(decoding: bytes, as: UTF8.self)
        return text.unicodeScalars.contains { scalar in
            if allowingJoiners && scalar == "\u{200D}" { return false }
            return (scalar.value < 0x20 && scalar != "\n") || (0x7F...0x9F).contains(scalar.value)
                || scalar.properties.generalCategory == .format
        }
    }

    @Test(arguments: providers) func hostileStringsAreSanitisedAndEscaped(provider: String) async throws {
        let expect = try Expectations(provider)
        try await withServer { _, photos in
            let json = try await photos.run(["list", "--provider", provider, "--query", expect.hostile, "--format", "json"])
            #expect(json.status == 0, "\(json.stderr)")
            let texts = try Self.photos(json).flatMap { photo in
                ["title", "owner"].compactMap { photo[$0] as? String }
            }
            #expect(texts.contains { Self.hasRawControls(Data($0.utf8)) }, "the fixture carries hostile strings")
            #expect(!Self.hasRawControls(json.stdoutBytes), "JSON escapes every control and format character")

            for format in ["table", "jsonl"] {
                let run = try await photos.run(["list", "--provider", provider, "--query", expect.hostile, "--format", format])
                #expect(run.status == 0, "\(format): \(run.stderr)")
                #expect(!Self.hasRawControls(run.stdoutBytes, allowingJoiners: format == "table"), "\(format) output holds no raw control or format character")
                #expect(!Self.hasRawControls(Data(run.stderr.utf8)), "stderr holds none either")
            }
        }
    }
}
