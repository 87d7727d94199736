import FixtureServerKit
import Foundation
import PhotosTestSupport
import Testing

/// `photos providers`, the default set of providers, and `--filter`, through the binary.
@Suite struct ProvidersCommandTests {
    @Test func jsonNamesEveryProviderWithWhatItNeeds() async throws {
        try await withServer { server, photos in
            let run = try await photos.run(["providers", "--format", "json"], environment: ["FLICKR_API_KEY": nil])
            #expect(run.status == 0, "\(run.stderr)")
            let list = try #require(try JSONSerialization.jsonObject(with: run.stdoutBytes) as? [[String: Any]])
            let byName = Dictionary(list.compactMap { entry in (entry["name"] as? String).map { ($0, entry) } }) { first, _ in first }
            let flickr = try #require(byName["flickr"])
            #expect(flickr["needs"] as? [String] == ["FLICKR_API_KEY"] && flickr["configured"] as? Bool == false)
            #expect(flickr["endpoint"] as? String == server.url + "/services/rest/")
            let placeholder = try #require(byName["placeholder"])
            #expect(placeholder["needs"] as? [String] == [] && placeholder["configured"] as? Bool == true)
            #expect((placeholder["filters"] as? [[String: Any]])?.first?["name"] as? String == "album")
            for entry in list {
                #expect(entry["summary"] is String && entry["endpoint"] is String, "\(entry)")
            }
            #expect(run.stdout.contains("FLICKR_API_KEY") && !run.stdout.contains("test-key"), "settings, never secrets")

            let keyed = try await photos.run(["providers", "--format", "json"])
            #expect(keyed.stdout.contains("\"configured\" : true") && !keyed.stdout.contains("test-key"))
        }
    }

    @Test func tableSaysWhatIsMissing() async throws {
        try await withServer { _, photos in
            let run = try await photos.run(["providers"], environment: ["FLICKR_API_KEY": nil])
            #expect(run.status == 0)
            let flickrLine = try #require(run.stdout.split(separator: "\n").first { $0.hasPrefix("flickr") })
            #expect(flickrLine.contains("no: set FLICKR_API_KEY"))
            let verbose = try await photos.run(["providers", "--verbose"])
            #expect(verbose.stdout.contains("--filter album=3") && verbose.stdout.contains("PHOTOS_PLACEHOLDER_API"))

            // Settings that are there but cannot work are not "ready": spaces for a key, an
            // endpoint that is no URL (as list would find out).
            func flickrRow(_ environment: [String: String?]) async throws -> String {
                let run = try await photos.run(["providers"], environment: environment)
                return String(try #require(run.stdout.split(separator: "\n").first { $0.hasPrefix("flickr") }))
            }
            #expect(try await flickrRow(["FLICKR_API_KEY": "   "]).contains("no: set FLICKR_API_KEY"))
            #expect(try await flickrRow(["PHOTOS_FLICKR_API": "notaurl"]).contains("no: PHOTOS_FLICKR_API is not an http"))
            let json = try await photos.run(["providers", "--format", "json"], environment: ["PHOTOS_FLICKR_API": "notaurl"])
            #expect(json.stdout.contains("\"configured\" : false"), "\(json.stdout)")
            let list = try await photos.run(["list", "--provider", "flickr"], environment: ["PHOTOS_FLICKR_API": "notaurl"])
            #expect(list.status == 64, "list refuses it as before")
        }
    }

    @Test func allSkipsProvidersThatNeedAKeyAndSaysWhich() async throws {
        try await withServer { _, photos in
            let run = try await photos.run(
                ["list", "--provider", "all", "--per-page", "3", "--no-thumbnails", "--format", "json"],
                environment: ["FLICKR_API_KEY": nil])
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.stderr.contains("flickr skipped: it needs FLICKR_API_KEY"))
            let providers = Set(try run.json()["providers"].flatMap { $0 as? [[String: Any]] }?.compactMap { $0["name"] as? String } ?? [])
            #expect(providers.contains("placeholder") && !providers.contains("flickr"))
        }
    }

    @Test func theDefaultSetLeavesOutSampleData() async throws {
        try await withServer { _, photos in
            let run = try await photos.run(["list", "--query", "dogs", "--per-page", "3", "--no-thumbnails", "--format", "json"])
            #expect(run.status == 0, "\(run.stderr)")
            let names = Set((try run.json()["providers"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String })
            #expect(names.contains("flickr") && !names.contains("placeholder"))

            let config = photos.home.appendingPathComponent("config.toml")
            try "[defaults]\nprovider = \"placeholder\"\n".write(to: config, atomically: true, encoding: .utf8)
            let configured = try await photos.run(
                ["list", "--per-page", "3", "--no-thumbnails", "--format", "json"], environment: ["PHOTOS_CONFIG": config.path])
            let chosen = (try configured.json()["providers"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
            #expect(chosen == ["placeholder"])
        }
    }

    @Test func filtersReachTheProviderAndUnknownOnesAreUsageErrors() async throws {
        try await withServer { _, photos in
            let album = try await photos.run(["list", "--provider", "placeholder", "--filter", "album=3", "--per-page", "50", "--no-thumbnails", "--format", "json"])
            #expect(album.status == 0, "\(album.stderr)")
            let ids = (try album.json()["photos"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
            #expect(ids.count == 50 && ids.first == "placeholder:101" && ids.last == "placeholder:150")
            let legacy = try await photos.run(["list", "--provider", "placeholder", "--album", "3", "--per-page", "50", "--no-thumbnails", "--format", "json"])
            let legacyIDs = (try legacy.json()["photos"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
            #expect(legacyIDs == ids, "--album N is --filter album=N")
            #expect(try legacy.json()["cached"] as? Bool == true, "the same listing, so the same cache entry")

            let unknown = try await photos.run(["list", "--provider", "placeholder", "--filter", "colour=red"])
            #expect(unknown.status == 64)
            #expect(unknown.stderr.contains("placeholder has no filter 'colour'; it knows album"))
            // A near miss is named.
            let near = try await photos.run(["list", "--provider", "flickr", "--query", "dogs", "--filter", "tag=beach"])
            #expect(near.status == 64 && near.stderr.contains("flickr has no filter 'tag'; did you mean 'tags'? (it knows tags,"), "\(near.stderr)")
            // A filter of another provider's (--album is placeholder's) says whose it is.
            let elsewhere = try await photos.run(["list", "--provider", "openverse", "--album", "3"])
            #expect(elsewhere.status == 64 && elsewhere.stderr.contains("openverse has no filter 'album' (placeholder has it: --provider placeholder)"), "\(elsewhere.stderr)")

            // Without --provider: placeholder, listed only when named, is the one that has it.
            let unnamed = try await photos.run(["list", "--album", "3"])
            #expect(unnamed.status == 64)
            #expect(unnamed.stderr == "photos: error: no provider listed by default has the filter album; placeholder has it: name it, as in --provider placeholder\n",
                "the error alone, without a note per provider skipped: \(unnamed.stderr)")

            let badValue = try await photos.run(["list", "--provider", "flickr", "--query", "dogs", "--filter", "sort=newest"])
            #expect(badValue.status == 64 && badValue.stderr.contains("sort takes one of"))

            let malformed = try await photos.run(["list", "--provider", "placeholder", "--filter", "album"])
            #expect(malformed.status == 64 && malformed.stderr.contains("--filter takes key=value"))

            let hint = try await photos.run(["list", "--provider", "placeholder", "--filter", "album=3", "--per-page", "5", "--no-thumbnails"])
            #expect(hint.stderr.contains("Next page: photos list --provider placeholder --filter album=3 --per-page 5 --page 2"))
        }
    }

    /// Flickr's recent photos take no licence, order or safety level: a licence filter without a
    /// search listed every recent photo, all rights reserved ones included, and exited 0 (with
    /// `--provider all`, mixed into the openly licensed ones the user asked for).
    @Test func flickrFiltersOfSearchesAloneAreRefusedForRecentPhotos() async throws {
        try await withServer { _, photos in
            let named = try await photos.run(["list", "--provider", "flickr", "--filter", "license=cc0", "--no-thumbnails", "--format", "json"])
            #expect(named.status == 64 && named.stdout.isEmpty)
            #expect(named.stderr.contains("flickr applies filter license only to a search: add --query, or --filter tags="), "\(named.stderr)")
            // A value it never takes is said first: adding a search would not have helped.
            let bogus = try await photos.run(["list", "--provider", "flickr", "--filter", "license=bogus", "--no-thumbnails"])
            #expect(bogus.status == 64 && bogus.stdout.isEmpty)
            #expect(bogus.stderr.contains("flickr filter license takes by, by-sa") && bogus.stderr.contains("got 'bogus'"), "\(bogus.stderr)")
            #expect(!bogus.stderr.contains("only to a search"), "\(bogus.stderr)")
            for filter in ["sort=relevance", "safe_search=1", "tag_mode=all"] {
                let other = try await photos.run(["list", "--provider", "flickr", "--filter", filter, "--no-thumbnails"])
                #expect(other.status == 64 && other.stderr.contains("only to a search"), "\(filter): \(other.stderr)")
            }

            // Among providers photos chose, Flickr is skipped, said so, and the others list.
            let all = try await photos.run(["list", "--provider", "all", "--filter", "license=cc0", "--per-page", "3", "--no-thumbnails", "--format", "json"])
            #expect(all.status == 0, "\(all.stderr)")
            #expect(all.stderr.contains("flickr skipped: its filter license applies only to a search (add --query, or a filter that makes one)"), "\(all.stderr)")
            let names = Set((try all.json()["providers"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String })
            #expect(names == ["openverse"], "\(names)")
            let ids = (try all.json()["photos"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
            #expect(!ids.isEmpty && ids.allSatisfy { $0.hasPrefix("openverse:") }, "\(ids)")

            // Providers the config names are the user's defaults, not this command's: Flickr is
            // skipped as among those photos chose, said with where its name came from; named
            // alone there, the error says so.
            let config = photos.home.appendingPathComponent("defaults.toml")
            try "[defaults]\nprovider = \"flickr,openverse\"\n".write(to: config, atomically: true, encoding: .utf8)
            let configured = try await photos.run(
                ["list", "--filter", "license=cc0", "--per-page", "3", "--no-thumbnails", "--format", "json"], environment: ["PHOTOS_CONFIG": config.path])
            #expect(configured.status == 0, "\(configured.stderr)")
            #expect(configured.stderr.contains(
                "flickr (named by config [defaults] provider) skipped: its filter license applies only to a search"), "\(configured.stderr)")
            let listed = (try configured.json()["photos"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
            #expect(!listed.isEmpty && listed.allSatisfy { $0.hasPrefix("openverse:") }, "\(listed)")
            try "[defaults]\nprovider = \"flickr\"\n".write(to: config, atomically: true, encoding: .utf8)
            let alone = try await photos.run(["list", "--filter", "license=cc0", "--no-thumbnails"], environment: ["PHOTOS_CONFIG": config.path])
            #expect(alone.status == 64 && alone.stdout.isEmpty)
            #expect(alone.stderr.hasPrefix("photos: error: flickr applies filter license only to a search: add --query"), "\(alone.stderr)")
            #expect(alone.stderr.contains("; flickr is named by config [defaults] provider (--provider names others)\n") && !alone.stderr.contains("skipped"), "\(alone.stderr)")
            let typo = try await photos.run(["list", "--filter", "licence=cc0", "--no-thumbnails"], environment: ["PHOTOS_CONFIG": config.path])
            #expect(typo.status == 64 && typo.stderr.contains("flickr (named by config [defaults] provider) has no filter 'licence'; did you mean 'license'?"), "\(typo.stderr)")

            // A search, by --query or by a filter that makes one, takes them.
            let search = try await photos.run(["list", "--provider", "flickr", "--query", "dogs", "--filter", "license=cc0", "--per-page", "3", "--no-thumbnails", "--format", "json"])
            #expect(search.status == 0, "\(search.stderr)")
            let tagged = try await photos.run(["list", "--provider", "flickr", "--filter", "tags=beach", "--filter", "license=cc0", "--per-page", "3", "--no-thumbnails"])
            #expect(tagged.status == 0, "\(tagged.stderr)")

            let described = try await photos.run(["providers", "--verbose"])
            #expect(described.stdout.contains("--filter license=by,cc0,pdm: ") && described.stdout.contains("a search only (--query, or a filter that makes one)"))
            // Scripts read the same from the JSON.
            let json = try await photos.run(["providers", "--format", "json"])
            let providers = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]])
            let flickr = try #require(providers.first { $0["name"] as? String == "flickr" }?["filters"] as? [[String: Any]])
            let scopes = Dictionary(uniqueKeysWithValues: flickr.compactMap { filter in (filter["name"] as? String).map { ($0, filter["scope"] as? String ?? "") } })
            #expect(scopes == ["tags": "makes_search", "user": "makes_search", "tag_mode": "search", "sort": "search", "license": "search", "safe_search": "search"], "\(scopes)")
        }
    }

    @Test func placeholderPicturesAreDrawnWhenTheirHostIsGone() async throws {
        var configuration = FixtureServerConfiguration()
        configuration.placeholderImageBase = "https://via.placeholder.invalid"
        try await withServer(configuration) { _, photos in
            let run = try await photos.run(["list", "--provider", "placeholder", "--per-page", "6", "--format", "json"])
            #expect(run.status == 0, "\(run.stderr)")
            let list = try #require(try run.json()["photos"] as? [[String: Any]])
            #expect(list.count == 6)
            for photo in list {
                #expect(photo["thumbnail_synthesized"] as? Bool == true)
                let path = try #require(photo["thumbnail_path"] as? String)
                let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
                #expect(bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]), "a PNG")
            }
            let notes = run.stderr.split(separator: "\n").filter { $0.contains("via.placeholder.invalid") }
            #expect(notes.count == 1 && notes[0].contains("drew 6 thumbnails"), "\(run.stderr)")
            #expect(!run.stderr.contains("could not be fetched"))

            let offline = try await photos.run(["list", "--provider", "placeholder", "--per-page", "6", "--offline", "--format", "json"])
            let again = try #require(try offline.json()["photos"] as? [[String: Any]])
            #expect(again.allSatisfy { $0["thumbnail_synthesized"] as? Bool == true && $0["thumbnail_path"] is String })
            #expect(!offline.stderr.contains("not cached"), "\(offline.stderr)")

            // They are the cache's: `cache clear` removes them with the rest (they stayed).
            let drawn = photos.cacheFolder.appendingPathComponent("synthesized").path
            #expect(((try? FileManager.default.contentsOfDirectory(atPath: drawn)) ?? []).count == 6)
            let clear = try await photos.run(["cache", "clear"])
            #expect(clear.status == 0, "\(clear.stderr)")
            #expect(((try? FileManager.default.contentsOfDirectory(atPath: drawn)) ?? []).isEmpty, "\((try? FileManager.default.contentsOfDirectory(atPath: drawn)) ?? [])")
            #expect(try FileManager.default.contentsOfDirectory(atPath: photos.cacheFolder.path).allSatisfy { !$0.hasPrefix("trash-") }, "nothing left aside")
        }
    }

    @Test func picturesThatCannotBeStoredAreSaidOnceInPlainWords() async throws {
        var configuration = FixtureServerConfiguration()
        configuration.placeholderImageBase = "https://via.placeholder.invalid"
        try await withServer(configuration) { _, photos in
            // A file where the drawn pictures' folder goes: nothing can be written there, as in
            // a read-only cache (which tests running as root cannot make). In a cache that has
            // its index: in a folder without one, it would make the folder not photos' own.
            let made = try await photos.run(["list", "--provider", "placeholder", "--per-page", "1", "--no-thumbnails"])
            #expect(made.status == 0, "\(made.stderr)")
            try Data().write(to: photos.cacheFolder.appendingPathComponent("synthesized"))
            let run = try await photos.run(["list", "--provider", "placeholder", "--per-page", "6"])
            #expect(run.status == 0, "\(run.stderr)")
            let lines = run.stderr.split(separator: "\n").filter { $0.contains("could not draw") }
            #expect(lines.count == 1, "once, not per photo: \(run.stderr)")
            #expect(lines.first?.contains("could not draw thumbnails into \(photos.cacheFolder.appendingPathComponent("synthesized").path)") == true)
            #expect(!run.stderr.contains("NSCocoaErrorDomain") && !run.stderr.contains("Error Domain"), "\(run.stderr)")
        }
    }

    @Test func thumbnailsTheCacheCannotStoreAreNotBlamedOnTheirHost() async throws {
        try await withServer { server, photos in
            #expect(try await photos.run(["list", "--provider", "placeholder", "--per-page", "4", "--no-thumbnails"]).status == 0)
            // A file where the images folder goes, as a cache that cannot be written.
            try Data().write(to: photos.cacheFolder.appendingPathComponent("images"))
            let run = try await photos.run(["list", "--provider", "placeholder", "--per-page", "4"])
            #expect(run.status == 0, "\(run.stderr)")
            let host = try #require(URL(string: server.url)?.host)
            #expect(run.stderr.contains("4 of 4 thumbnails could not be fetched: 4 could not be stored in the cache (cannot write "), "\(run.stderr)")
            #expect(!run.stderr.contains("from \(host)"), "the host did nothing wrong: \(run.stderr)")
            #expect(!run.stderr.contains("Error Domain"), "\(run.stderr)")
        }
    }
}
