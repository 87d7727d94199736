import FixtureServerKit
import Foundation
import PhotosTestSupport
import Synchronization
import Testing

/// `photos list` end to end: the built binary against the fixture server over TLS and HTTP/2.
@Suite struct ListCommandTests {
    @Test func placeholderTableListsThirtyPhotosAndHintsTheNextPage() async throws {
        try await withServer { server, photos in
            let run = try await photos.run(["list", "--provider", "placeholder"])
            #expect(run.status == 0)
            let lines = run.stdout.split(separator: "\n")
            #expect(lines.first?.hasPrefix("ID") == true)
            #expect(lines.count == 31)
            #expect(lines[1].contains("placeholder:1 ") && lines[1].contains("accusamus beatae ad facilis cum similique qui sunt"))
            #expect(run.stderr.contains("Next page: photos list --provider placeholder --page 2"))
            #expect(!run.stdoutBytes.contains(0x1B), "no raw ESC byte reaches stdout")
            for line in lines { #expect(line.count <= 100) }

            // A narrow terminal (COLUMNS): no line wider than it, the id and title kept, the size
            // then the owner left out; a very narrow one gets the narrowest table cut at its edge
            // (not wrapped onto the next line).
            for columns in [40, 60, 20] {
                let narrow = try await photos.run(["list", "--provider", "flickr", "--query", "dogs", "--per-page", "5"], environment: ["COLUMNS": String(columns)])
                #expect(narrow.status == 0, "\(narrow.stderr)")
                let rows = narrow.stdout.split(separator: "\n")
                #expect(rows.count == 6 && rows[1].hasPrefix(columns >= 36 ? "flickr:53624890009  Rex at" : "flickr:53624890009"), "\(narrow.stdout)")
                for row in rows { #expect(row.count <= columns, "COLUMNS=\(columns): \(row)") }
                if columns == 60 {
                    #expect(rows[0].contains("OWNER"), "room for the owner: \(rows[0])")
                } else {
                    #expect(!rows[0].contains("OWNER") && !rows[0].contains("SIZE"), "COLUMNS=\(columns): \(rows[0])")
                }
            }

            // The Flickr search of 8 holds nine records, one unreadable: one of the eight read is left out.
            let over = try await photos.run(["list", "--provider", "flickr", "--query", "dogs", "--per-page", "8", "--format", "jsonl", "--no-thumbnails"])
            #expect(over.stderr.contains("pages held more records than asked for; 1 was left out"), "\(over.stderr)")

            // Offline, the next page is asked for offline too.
            let offline = try await photos.run(["list", "--provider", "placeholder", "--offline"])
            #expect(offline.status == 0, "\(offline.stderr)")
            #expect(offline.stderr.contains("Next page: photos list --provider placeholder --offline --page 2"), "\(offline.stderr)")
        }
    }

    @Test(arguments: [
        (["--limit", "7"], 8),  // the page size --limit chose is part of the hint
        (["--limit", "7", "--per-page", "5"], 6),  // a page --limit cut short is shown again
        (["--limit", "25", "--per-page", "10"], 21),
        (["--per-page", "10"], 11),
    ])
    func theNextPageHintContinuesWhereTheListingStopped(arguments: [String], first: Int) async throws {
        try await withServer { _, photos in
            let run = try await photos.run(["list", "--provider", "placeholder", "--no-thumbnails"] + arguments)
            #expect(run.status == 0)
            let hint = try #require(run.stderr.components(separatedBy: "Next page: photos ").last?.split(separator: "\n").first)
            let next = try await photos.run(hint.split(separator: " ").map(String.init) + ["--no-thumbnails", "--format", "jsonl"])
            let firstID = try #require(next.stdout.split(separator: "\n").first.flatMap {
                try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
            }?["id"] as? String)
            #expect(firstID == "placeholder:\(first)", "\(arguments): \(hint)")
        }
    }

    /// `--limit` ending inside the provider's last page leaves photos to list: `has_more` says so
    /// and the hint shows that page again (it said false, with no hint, and 10 of album 1's 50
    /// photos were never listed).
    @Test func aLimitEndingInsideTheLastPageHasMore() async throws {
        try await withServer { _, photos in
            let listing = ["list", "--provider", "placeholder", "--album", "1", "--per-page", "30", "--limit", "40", "--no-thumbnails"]
            let json = try await photos.run(listing + ["--format", "json"])
            #expect(json.status == 0, "\(json.stderr)")
            let object = try json.json()
            #expect((object["photos"] as? [Any])?.count == 40 && object["total"] as? Int == 50, "\(json.stdout.prefix(300))")
            #expect(object["has_more"] as? Bool == true, "\(json.stdout.prefix(300))")
            let table = try await photos.run(listing)
            #expect(table.stderr.contains("Showing 40 of 50") && table.stderr.contains("--per-page 30 --page 2"), "\(table.stderr)")
            // The whole album is not cut short.
            let whole = try await photos.run(["list", "--provider", "placeholder", "--album", "1", "--per-page", "30", "--limit", "50", "--no-thumbnails", "--format", "json"])
            #expect(try whole.json()["has_more"] as? Bool == false, "\(whole.stdout.prefix(300))")
        }
    }

    /// The next page's command never skips a photo and can be run as printed: of several
    /// providers, the one furthest behind sets the page (the furthest ahead set it, and the
    /// others' photos in between were never shown); a search starting with "-" is given as
    /// `--limit` ends the listing inside a page: the thumbnails fetched are those of the photos
    /// listed, not the whole last page's (600 of 500 a page fetched 1,000).
    @Test(arguments: [(["--limit", "60", "--per-page", "50"], 60), (["--limit", "30", "--per-page", "50", "--page", "3"], 30)])
    func aLimitInsideAPageFetchesTheThumbnailsOfThePhotosListedOnly(arguments: [String], listed: Int) async throws {
        try await withServer { _, photos in
            let run = try await photos.run(["list", "--provider", "flickr", "--query", "many", "--format", "jsonl"] + arguments)
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.stdout.split(separator: "\n").count == listed)
            let images = try FileManager.default.contentsOfDirectory(atPath: photos.cacheFolder.appendingPathComponent("images").path)
            #expect(images.count == listed, "\(arguments): \(images.count) thumbnails in the cache")
        }
    }

    /// --query=-dogs (as a word of its own, it was taken for an option: exit 64).
    @Test func theNextPageHintSkipsNothingAndRuns() async throws {
        try await withServer { _, photos in
            let merged = try await photos.run(["list", "--provider", "flickr,nasa", "--query", "dogs", "--per-page", "10", "--limit", "19", "--no-thumbnails"])
            #expect(merged.status == 0, "\(merged.stderr)")
            #expect(merged.stderr.contains("--per-page 10 --page 2"), "\(merged.stderr)")
            let dashed = try await photos.run(["list", "--provider", "commons", "--query=-dogs", "--per-page", "5", "--no-thumbnails"])
            #expect(dashed.stderr.contains("Next page: photos list --provider commons --query=-dogs --per-page 5 --page 2"), "\(dashed.stderr)")
            let next = try await photos.run(["list", "--provider", "commons", "--query=-dogs", "--per-page", "5", "--page", "2", "--no-thumbnails"])
            #expect(next.status == 0, "\(next.stderr)")
        }
    }

    /// Past the end of every provider, where one of them refuses the page (Openverse serves 400
    /// results): the code that provider has alone (64: a page it cannot serve), not 69, which
    /// says to try again later.
    @Test func aPagePastEveryProvidersEndIsAUsageError() async throws {
        try await withServer { _, photos in
            let run = try await photos.run(["list", "--query", "dogs", "--page", "21", "--per-page", "20", "--no-thumbnails"])
            #expect(run.status == 64, "\(run.stderr)")
            #expect(run.stderr.contains("Openverse serves anonymous clients only the first 400 results"), "\(run.stderr)")
        }
    }

    /// Ids are shown whole and as `show` takes them, and a photo without a title says so, as
    /// `show` does (the cell was blank).
    @Test func tableIdsAreWholeAndAnUntitledPhotoSaysSo() async throws {
        try await withServer { _, photos in
            let run = try await photos.run(["list", "--provider", "flickr", "--query", "dogs", "--per-page", "10", "--no-thumbnails"], environment: ["COLUMNS": "60"])
            #expect(run.status == 0, "\(run.stderr)")
            let untitled = run.stdout.split(separator: "\n").first { $0.hasPrefix("flickr:53619543218 ") }
            #expect(untitled?.contains("(untitled)") == true, "\(run.stdout)")
        }
    }

    /// Standard output inherited non-blocking (some CI runners and Node-based tools hand one
    /// over so) with a reader that is behind: photos waits, as on a blocking pipe. It failed
    /// with "cannot write the output: Resource temporarily unavailable" (74) after 64 KiB.
    @Test func aNonBlockingPipeThatIsReadLateGetsTheWholeOutput() async throws {
        try await withServer { _, photos in
            let pipe = Pipe()
            let writing = pipe.fileHandleForWriting.fileDescriptor
            #expect(fcntl(writing, F_SETFL, fcntl(writing, F_GETFL) | O_NONBLOCK) == 0)
            let process = Process()
            process.executableURL = PhotosBinary.executable
            process.arguments = ["list", "--provider", "flickr", "--query", "many", "--limit", "2000", "--format", "jsonl", "--no-thumbnails"]
            process.environment = photos.environment
            process.standardOutput = pipe
            process.standardError = FileHandle.nullDevice
            try process.run()
            try pipe.fileHandleForWriting.close()
            // Behind: nothing is read until the pipe (64 KiB) is full, so that photos' next
            // write finds no room.
            let reading = pipe.fileHandleForReading.fileDescriptor
            var waiting: Int32 = 0
            // Generous: on a loaded machine the 2,000 photos' first 64 KiB took over 30 s.
            let deadline = Date().addingTimeInterval(120)
            func available() -> Int32 {
                withUnsafeMutablePointer(to: &waiting) { _ = ioctl(reading, UInt(FIONREAD), $0) }
                return waiting
            }
            while process.isRunning, Date() < deadline, available() < 64 * 1024 {
                try await Task.sleep(for: .milliseconds(20))
            }
            #expect(waiting >= 64 * 1024 || !process.isRunning, "the pipe filled")
            let output = pipe.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            #expect(process.terminationStatus == 0)
            #expect(output.count > 64 * 1024)
            #expect(output.split(separator: UInt8(ascii: "\n")).count == 2000)
        }
    }

    /// Openverse drops dead links from its pages, so a page may hold fewer than 20 results, or
    /// none, with more after it. A listing of pages larger than 20 asked for no more once the
    /// first came back short, and placed each page's results as if it held 20: with pages of
    /// 19, 0, 20 and 5 results, --all found 19 of 44 at 30 a page (44 at 20 a page, where one
    /// request is one page, stopped at the empty second).
    @Test func openversePagesShortOfTwentyLoseNothing() async throws {
        try await withServer { server, photos in
            let counts = [19, 0, 20, 5]
            server.addRoute { request in
                guard request.path == "/ov-short/images/" else { return nil }
                let page = Int(request.queryValue("page") ?? "1") ?? 1
                let size = Int(request.queryValue("page_size") ?? "20") ?? 20
                guard size == 20, (1...counts.count).contains(page) else {
                    return .json(#"{"result_count": 44, "page_count": 4, "page_size": 20, "page": \#(page), "results": []}"#)
                }
                let results = (0..<counts[page - 1]).map { index in
                    let number = (page - 1) * 20 + index
                    let id = String(format: "%08x-0000-4000-8000-%012x", number, number)
                    return #"{"id": "\#(id)", "title": "result \#(number)", "creator": "c", "url": "\#(server.url)/images/thumb.jpg", "thumbnail": "\#(server.url)/images/thumb.jpg"}"#
                }
                return .json(#"{"result_count": 44, "page_count": 4, "page_size": 20, "page": \#(page), "results": [\#(results.joined(separator: ","))]}"#)
            }
            let environment = ["PHOTOS_OPENVERSE_API": server.url + "/ov-short/"]
            for perPage in ["20", "30", "40"] {
                let run = try await photos.run(
                    ["list", "--provider", "openverse", "--query", "dogs", "--per-page", perPage, "--all", "--no-thumbnails", "--format", "jsonl", "--refresh"],
                    environment: environment)
                #expect(run.status == 0, "\(perPage): \(run.stderr)")
                let titles = run.stdout.split(separator: "\n").compactMap { line in
                    (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["title"] as? String
                }
                #expect(titles.count == 44, "\(perPage) a page: \(titles.count) of 44")
                #expect(Set(titles).count == titles.count, "\(perPage) a page: none twice")
            }
        }
    }

    @Test func theNextPageOfAGridIsAGrid() async throws {
        try await withServer { _, photos in
            let run = try await photos.run(["list", "--provider", "placeholder", "--format", "grid", "--columns", "4", "--graphics", "symbols", "--per-page", "8"])
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.stderr.contains("Next page: photos list --provider placeholder --per-page 8 --format grid --columns 4 --graphics symbols --page 2"), "\(run.stderr)")
        }
    }

    @Test func aRepeatedListingSaysItCameFromTheCache() async throws {
        try await withServer { server, photos in
            let first = try await photos.run(["list", "--provider", "placeholder", "--per-page", "5"])
            #expect(first.stderr.contains("Showing 5 of 500.") && !first.stderr.contains("from the cache"))
            let requests = server.stats().requests
            let second = try await photos.run(["list", "--provider", "placeholder", "--per-page", "5"])
            #expect(second.stdout == first.stdout)
            #expect(second.stderr.contains("Showing 5 of 500 (from the cache, "))
            #expect(server.stats().requests == requests, "no request at all: listing and thumbnails are cached")
        }
    }

    /// --no-thumbnails fetches none, but the JSON still names those an earlier listing cached.
    @Test func withoutThumbnailsTheCachedOnesAreStillNamed() async throws {
        try await withServer { server, photos in
            let none = try await photos.run(["list", "--provider", "placeholder", "--per-page", "3", "--format", "jsonl", "--no-thumbnails"])
            #expect(none.status == 0, "\(none.stderr)")
            func paths(_ run: PhotosBinary.Run) throws -> [Any] {
                try run.stdout.split(separator: "\n").map { try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])["thumbnail_path"] ?? NSNull() }
            }
            #expect(try paths(none).allSatisfy { $0 is NSNull }, "nothing cached yet")
            let fetched = try await photos.run(["list", "--provider", "placeholder", "--per-page", "3", "--format", "jsonl"])
            let cached = try paths(fetched).compactMap { $0 as? String }
            #expect(cached.count == 3 && cached.allSatisfy { FileManager.default.fileExists(atPath: $0) }, "\(fetched.stdout)")
            let requests = server.stats().requests
            let again = try await photos.run(["list", "--provider", "placeholder", "--per-page", "3", "--format", "jsonl", "--no-thumbnails"])
            #expect(try paths(again).compactMap { $0 as? String } == cached, "\(again.stdout)")
            #expect(server.stats().requests == requests, "and nothing was fetched")
        }
    }

    @Test func aListingCachedFromOneEndpointIsNotServedForAnother() async throws {
        try await withServer { server, photos in
            let first = try await photos.run(["list", "--provider", "placeholder", "--per-page", "5", "--no-thumbnails"])
            #expect(first.status == 0, "\(first.stderr)")
            // The same provider pointed at another endpoint (here: one that answers 500) is
            // asked, not answered from the first endpoint's pages.
            let broken = ["PHOTOS_PLACEHOLDER_API": server.url + "/__faults/status=500"]
            let elsewhere = try await photos.run(["list", "--provider", "placeholder", "--per-page", "5", "--no-thumbnails"], environment: broken)
            #expect(elsewhere.status == 69 && elsewhere.stderr.contains("500"), "\(elsewhere.status): \(elsewhere.stderr)")
            // Back at the first endpoint, its pages are still there.
            let requests = server.stats().requests
            let again = try await photos.run(["list", "--provider", "placeholder", "--per-page", "5", "--no-thumbnails"])
            #expect(again.stdout == first.stdout && again.stderr.contains("from the cache"), "\(again.stderr)")
            #expect(server.stats().requests == requests)
        }
    }

    @Test func jsonOutputHasEveryContractField() async throws {
        try await withServer { server, photos in
            let run = try await photos.run(["list", "--provider", "placeholder", "--per-page", "5", "--format", "json"])
            #expect(run.status == 0)
            let json = try run.json()
            #expect(json["page"] as? Int == 1)
            #expect(json["per_page"] as? Int == 5)
            #expect(json["total"] as? Int == 500)
            #expect(json["has_more"] as? Bool == true)
            let list = try #require(json["photos"] as? [[String: Any]])
            #expect(list.count == 5)
            let first = list[0]
            #expect(first["id"] as? String == "placeholder:1")
            #expect(first["provider"] as? String == "placeholder")
            #expect(first["title"] as? String == "accusamus beatae ad facilis cum similique qui sunt")
            #expect((first["thumbnail_url"] as? String)?.hasPrefix(server.url + "/placeholder-img/150/") == true)
            #expect((first["image_url"] as? String)?.hasPrefix(server.url + "/placeholder-img/600/") == true)
            #expect(first["width"] as? Int == 600 && first["height"] as? Int == 600)
            #expect(first["page_url"] as? String == server.url + "/photos/1")
            let path = try #require(first["thumbnail_path"] as? String)
            let image = try Data(contentsOf: URL(fileURLWithPath: path))
            #expect(image.prefix(2) == Data([0xFF, 0xD8]), "thumbnail_path is the cached JPEG")
            #expect(path.hasPrefix(photos.environment["PHOTOS_CACHE_DIR"] ?? "?"))
        }
    }

    @Test func jsonlPrintsOnePhotoPerLine() async throws {
        try await withServer { _, photos in
            let run = try await photos.run(["list", "--provider", "placeholder", "--per-page", "7", "--format", "jsonl", "--no-thumbnails"])
            #expect(run.status == 0)
            let lines = run.stdout.split(separator: "\n")
            #expect(lines.count == 7)
            for (index, line) in lines.enumerated() {
                let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
                #expect(object?["id"] as? String == "placeholder:\(index + 1)")
                #expect(object?["thumbnail_path"] is NSNull)
            }
        }
    }

    @Test func noThumbnailsFetchesNoImages() async throws {
        try await withServer { server, photos in
            let run = try await photos.run(["list", "--provider", "placeholder", "--no-thumbnails", "--format", "json"])
            #expect(run.status == 0)
            #expect(server.stats().requests == 1, "only the listing itself")
        }
    }

    @Test func aColdListingOpensTheConnectionsItsThumbnailsNeedWhileItIsOnItsWay() async throws {
        try await withServer { server, photos in
            // 250 thumbnails on the listing's own host (PHOTOS_FLICKR_STATIC): three connections
            // of 100 streams, the listing's own and two brought up by a HEAD each meanwhile.
            let run = try await photos.run(["list", "--provider", "flickr", "--query", "many", "--per-page", "250", "--format", "json"])
            #expect(run.status == 0, "\(run.stderr)")
            let listed = try #require(try run.json()["photos"] as? [[String: Any]])
            #expect(listed.count == 250 && listed.allSatisfy { $0["thumbnail_path"] is String })
            #expect(server.stats().connections == 3)
            #expect(server.stats().requests == 1 + 250 + 2, "the listing, its thumbnails and a HEAD for each connection opened ahead")

            // Served from the cache, the listing opens nothing.
            let again = try await photos.run(["list", "--provider", "flickr", "--query", "many", "--per-page", "250", "--format", "json"])
            #expect(again.status == 0)
            #expect(server.stats().requests == 1 + 250 + 2)
        }
    }

    @Test func limitWalksPagesAndAllStopsAtTheLast() async throws {
        try await withServer { _, photos in
            let limited = try await photos.run(["list", "--provider", "placeholder", "--per-page", "10", "--limit", "25", "--format", "jsonl", "--no-thumbnails"])
            #expect(limited.status == 0)
            #expect(limited.stdout.split(separator: "\n").count == 25)

            let all = try await photos.run(["list", "--provider", "placeholder", "--query", "sunt", "--per-page", "10", "--all", "--format", "json", "--no-thumbnails"])
            #expect(all.status == 0)
            let json = try all.json()
            #expect((json["photos"] as? [Any])?.count == 18)
            #expect(json["has_more"] as? Bool == false)

            let album = try await photos.run(["list", "--provider", "placeholder", "--album", "3", "--per-page", "50", "--format", "jsonl", "--no-thumbnails"])
            let ids = album.stdout.split(separator: "\n").compactMap {
                (try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])?["id"] as? String
            }
            #expect(ids.first == "placeholder:101" && ids.last == "placeholder:150" && ids.count == 50)
        }
    }

    @Test func flickrSearchKeepsHostileTitlesOutOfTheTerminal() async throws {
        try await withServer { _, photos in
            let table = try await photos.run(["list", "--provider", "flickr", "--query", "dogs"])
            #expect(table.status == 0)
            #expect(!table.stdoutBytes.contains(0x1B), "no raw ESC byte reaches stdout")
            #expect(!table.stdout.unicodeScalars.contains { $0 == "\u{202E}" || $0 == "\u{07}" || $0 == "\r" })
            #expect(table.stdout.split(separator: "\n").count == 10, "header and 9 photos: the ../ id is skipped")
            #expect(!table.stdout.contains("etc/passwd"))
            #expect(!table.stderr.unicodeScalars.contains { $0 == "\u{1B}" || $0 == "\u{202E}" })

            let json = try await photos.run(["list", "--provider", "flickr", "--query", "dogs", "--format", "json"]).json()
            let list = try #require(json["photos"] as? [[String: Any]])
            let byID = Dictionary(uniqueKeysWithValues: list.compactMap { photo in (photo["id"] as? String).map { ($0, photo) } })
            #expect((byID["flickr:53622876540"]?["title"] as? String)?.utf8.count ?? 0 >= 10_000, "JSON keeps the data as sent")
            #expect((byID["flickr:53625112784"]?["title"] as? String)?.contains("\u{1B}[31m") == true)
            #expect(byID["flickr:53620654329"]?["thumbnail_url"] is NSNull, "a file:// thumbnail is dropped")
            #expect(byID["flickr:53620654329"]?["thumbnail_path"] is NSNull)
            #expect(byID.keys.allSatisfy { !$0.contains("/") })
            #expect(json["total"] as? Int == 28)
        }
    }

    @Test func flickrRecentAndSecondPageWithStringNumbers() async throws {
        try await withServer { _, photos in
            let recent = try await photos.run(["list", "--provider", "flickr", "--format", "json", "--no-thumbnails"]).json()
            #expect((recent["photos"] as? [Any])?.count == 10)
            #expect(recent["total"] as? Int == 1000)
            let second = try await photos.run(["list", "--provider", "flickr", "--query", "dogs", "--page", "2", "--format", "json", "--no-thumbnails"]).json()
            #expect(second["page"] as? Int == 2)
            #expect((second["photos"] as? [Any])?.count == 10)
            let first = (second["photos"] as? [[String: Any]])?.first
            #expect(first?["width"] is Int)
        }
    }

    @Test func flickrErrorCodesMapToExitCodesWithoutLeakingTheKey() async throws {
        try await withServer { _, photos in
            let missing = try await photos.run(["list", "--provider", "flickr"], environment: ["FLICKR_API_KEY": nil])
            #expect(missing.status == 77)
            #expect(missing.stderr.contains("FLICKR_API_KEY"))

            let bad = try await photos.run(["list", "--provider", "flickr", "--query", "dogs"], environment: ["FLICKR_API_KEY": "bad-key"])
            #expect(bad.status == 77)
            #expect(bad.stderr.contains("FLICKR_API_KEY"))
            #expect(bad.stderr.hasPrefix("photos: error: Flickr refused the API key"), "the provider named once: \(bad.stderr)")
            #expect(!bad.stderr.contains("bad-key") && !bad.stdout.contains("bad-key"))

            let unavailable = try await photos.run(["list", "--provider", "flickr", "--query", FixtureProviderEmulation.flickrUnavailableText])
            #expect(unavailable.status == 69)
            #expect(!unavailable.stderr.contains(FixtureProviderEmulation.validFlickrAPIKey))

            let pastCap = try await photos.run(["list", "--provider", "flickr", "--query", "dogs", "--page", "41", "--per-page", "100"])
            #expect(pastCap.status == 64)
            #expect(pastCap.stderr.contains("4000"))
        }
    }

    @Test func aResponseThatIsNotJSONExits65() async throws {
        try await withServer { server, photos in
            // Both APIs pointed at an image: a 200 whose body is not what the provider expects.
            let placeholder = try await photos.run(
                ["list", "--provider", "placeholder"], environment: ["PHOTOS_PLACEHOLDER_API": server.url + "/images/sample.jpg?x="])
            #expect(placeholder.status == 65)
            #expect(placeholder.stderr.contains("placeholder sent data photos cannot read"))
            let flickr = try await photos.run(
                ["list", "--provider", "flickr"], environment: ["PHOTOS_FLICKR_API": server.url + "/images/sample.png?x="])
            #expect(flickr.status == 65)
            #expect(!flickr.stderr.contains(FixtureProviderEmulation.validFlickrAPIKey))
            #expect(!flickr.stderr.unicodeScalars.contains("\u{1B}"))
        }
    }

    @Test func allProvidersListEvenWhenOneIsDown() async throws {
        try await withServer { _, photos in
            // Flickr points at a port nothing listens on.
            let run = try await photos.run(
                ["list", "--provider", "all", "--format", "json", "--no-thumbnails", "--per-page", "5"],
                environment: ["PHOTOS_FLICKR_API": "https://127.0.0.1:9/services/rest/"])
            #expect(run.status == 0)
            #expect(run.stderr.contains("flickr"))
            // Every other ready provider still lists (whichever the registry holds); none of
            // flickr's photos, and each provider's share is at most the page asked for.
            let json = try run.json()
            let list = try #require(json["photos"] as? [[String: Any]])
            #expect(!list.contains { $0["provider"] as? String == "flickr" })
            #expect(list.filter { $0["provider"] as? String == "placeholder" }.count == 5)
            let shares = try #require(json["providers"] as? [[String: Any]])
            #expect(!shares.contains { $0["name"] as? String == "flickr" })
            // A script sees which provider is missing, and why, in the document itself.
            let failed = try #require(json["failed"] as? [[String: Any]], "\(run.stdout.prefix(300))")
            #expect(failed.count == 1 && failed.first?["provider"] as? String == "flickr" && (failed.first?["error"] as? String)?.isEmpty == false, "\(failed)")
            #expect(shares.allSatisfy { ($0["count"] as? Int ?? 0) <= 5 }, "\(shares)")

            // Both answering: their photos alternate, each provider near the top.
            let both = try await photos.run(["list", "--provider", "flickr,placeholder", "--per-page", "3", "--format", "jsonl", "--no-thumbnails"])
            let providers = both.stdout.split(separator: "\n").compactMap {
                (try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])?["provider"] as? String
            }
            #expect(both.status == 0, "\(both.stderr)")
            #expect(providers == ["flickr", "placeholder", "flickr", "placeholder", "flickr", "placeholder"])

            // The only provider that answered had nothing, and the one that might have failed:
            // not "no photos match" with 0, but 69, as when all fail; the JSON still says it all.
            let empty = try await photos.run(
                ["list", "--provider", "flickr,placeholder", "--query", "nothing-has-this-title", "--format", "json", "--no-thumbnails"],
                environment: ["PHOTOS_FLICKR_API": "https://127.0.0.1:9/services/rest/"])
            #expect(empty.status == 69, "\(empty.stderr)")
            #expect(empty.stderr.contains("photos: error: no photos: flickr failed, and placeholder had none"), "\(empty.stderr)")
            let document = try empty.json()
            #expect((document["photos"] as? [Any])?.isEmpty == true && (document["failed"] as? [Any])?.count == 1, "\(empty.stdout)")
        }
    }

    @Test func idsInATableAreWholeSoTheyCanBeCopied() async throws {
        try await withServer { _, photos in
            let table = try await photos.run(["list", "--provider", "openverse", "--query", "dogs", "--no-thumbnails"])
            #expect(table.status == 0, "\(table.stderr)")
            let ids = table.stdout.split(separator: "\n").dropFirst().compactMap { $0.split(separator: " ").first.map(String.init) }
            #expect(!ids.isEmpty)
            #expect(ids.allSatisfy { $0.count == "openverse:".count + 36 && !$0.hasSuffix("…") }, "\(ids)")
            let shown = try await photos.run(["show", try #require(ids.first), "--format", "json"])
            #expect(shown.status == 0, "\(shown.stderr)")
        }
    }

    @Test func aDeadImageHostFailsOnceWithOneWarning() async throws {
        try await withServer { _, photos in
            // Without PHOTOS_FLICKR_STATIC one photo's thumbnail points at the real image host,
            // which this machine cannot reach.
            let run = try await photos.run(["list", "--provider", "flickr", "--query", "dogs"], environment: ["PHOTOS_FLICKR_STATIC": nil])
            #expect(run.status == 0)
            let warnings = run.stderr.split(separator: "\n").filter { $0.contains("thumbnails could not be fetched") }
            #expect(warnings.count == 1)
            #expect(warnings.first?.contains("live.staticflickr.com") == true)
            #expect(run.stderr.contains("warning: flickr: 1 record could not be read and was skipped"), "the ../ id")
        }
    }

    /// A server that sends more photos than asked for (a mirror, a test server): the listing
    /// shows the page asked for, and fetches no thumbnail for the photos it leaves out (it
    /// fetched all ten, and said "10 of 2 thumbnails were not fetched" without a cache).
    @Test func thumbnailsAreFetchedOnlyForThePhotosShown() async throws {
        try await withServer { server, photos in
            let ten = (1...10).map { (id: "\(820 + $0)", title: "t\($0)", owner: "o", url: "\(server.url)/images/large.jpg") }
            let environment = ["PHOTOS_FLICKR_API": SaveCommandTests.route(server, "ten", try SaveCommandTests.flickrListing(ten))]
            let list = try await photos.run(["list", "--provider", "flickr", "--query", "q", "--per-page", "2", "--format", "jsonl"], environment: environment)
            #expect(list.status == 0 && list.stdout.split(separator: "\n").count == 2, "\(list.stderr)")
            let images = (try? FileManager.default.contentsOfDirectory(atPath: photos.cacheFolder.appendingPathComponent("images").path)) ?? []
            #expect(images.count == 2, "\(images)")
            let file = photos.home.appendingPathComponent("not-a-folder")
            try "x".write(to: file, atomically: true, encoding: .utf8)
            var uncached = environment
            uncached["PHOTOS_CACHE_DIR"] = file.path
            let without = try await photos.run(["list", "--provider", "flickr", "--query", "q", "--per-page", "2"], environment: uncached)
            #expect(without.stderr.contains("2 of 2 thumbnails were not fetched"), "\(without.stderr)")
        }
    }

    /// A thumbnail whose body ends early where nothing said its length (an HTTP/1.1 server
    /// closing mid-answer) is not kept in the cache as the image: the listing says it failed,
    /// and the next listing fetches it again rather than showing the broken one.
    @Test func aThumbnailCutShortWithoutALengthIsNotCached() async throws {
        try await withServer { server, photos in
            let jpeg = Array(try Data(contentsOf: FixtureFiles.image("large.jpg")))
            let cut = try CloseDelimitedServer(body: jpeg, sending: 20_000)
            defer { cut.stop() }
            let whole = try CloseDelimitedServer(body: jpeg, sending: jpeg.count)
            defer { whole.stop() }
            // Each photo's thumbnail (url_q) from one of the two servers.
            let records = [("811", cut.url), ("812", whole.url)].map { id, url -> [String: Any] in
                ["id": id, "owner": "1@N01", "secret": "abc", "server": "1", "title": "t", "url_q": url, "width_q": 150, "height_q": 150]
            }
            let body: [String: Any] = ["photos": ["page": 1, "pages": 1, "perpage": 2, "total": 2, "photo": records], "stat": "ok"]
            let listing = String(decoding: try JSONSerialization.data(withJSONObject: body), as: UTF8.self)
            let environment = ["PHOTOS_FLICKR_API": SaveCommandTests.route(server, "cut-thumbnail", listing)]
            let list = ["list", "--provider", "flickr", "--query", "q", "--format", "jsonl"]
            let first = try await photos.run(list, environment: environment)
            #expect(first.stderr.contains("ended early"), "\(first.stderr)")
            func thumbnails(_ run: PhotosBinary.Run) throws -> [String: String] {
                var paths: [String: String] = [:]
                for line in run.stdout.split(separator: "\n") {
                    let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
                    if let id = object["id"] as? String, let path = object["thumbnail_path"] as? String { paths[id] = path }
                }
                return paths
            }
            let paths = try thumbnails(first)
            #expect(paths["flickr:811"] == nil, "no thumbnail for the cut image: \(first.stdout)")
            let kept = try #require(paths["flickr:812"], "\(first.stdout)")
            #expect(try Data(contentsOf: URL(fileURLWithPath: kept)) == Data(jpeg))

            let offline = try await photos.run(list + ["--offline"], environment: environment)
            #expect(try thumbnails(offline)["flickr:811"] == nil, "the cache holds no cut copy: \(offline.stdout)")
        }
    }

    /// A page none of whose records can be read is a broken answer, not "no photos match": it
    /// exits 65 and never replaces the cached copy, which `--refresh` serves with a warning.
    @Test func aPageOfOnlyUnreadableRecordsIsBadDataAndNeverReplacesTheCachedPage() async throws {
        try await withServer { server, photos in
            let url = "\(server.url)/images/large.jpg"
            let good = try SaveCommandTests.flickrListing([(id: "801", title: "first", owner: "o", url: url), (id: "802", title: "second", owner: "o", url: url)])
            let broken = try SaveCommandTests.flickrListing([(id: "x801", title: "first", owner: "o", url: url), (id: "../802", title: "second", owner: "o", url: url)])
            let answer = Mutex(good)
            server.addRoute { request in request.path == "/unreadable-rest/" ? .json(answer.withLock { $0 }) : nil }
            let environment = ["PHOTOS_FLICKR_API": server.url + "/unreadable-rest/"]
            let list = ["list", "--provider", "flickr", "--query", "q", "--format", "jsonl", "--no-thumbnails"]
            let first = try await photos.run(list, environment: environment)
            #expect(first.status == 0 && first.stdout.split(separator: "\n").count == 2, "\(first.stderr)")

            answer.withLock { $0 = broken }
            let refreshed = try await photos.run(list + ["--refresh"], environment: environment)
            #expect(refreshed.status == 0, "\(refreshed.stderr)")
            #expect(refreshed.stdout.split(separator: "\n").count == 2, "the cached page: \(refreshed.stdout)")
            #expect(refreshed.stderr.contains("none of its 2 records could be read"), "\(refreshed.stderr)")
            let offline = try await photos.run(list + ["--offline"], environment: environment)
            #expect(offline.stdout.split(separator: "\n").count == 2, "the cached page is still there: \(offline.stdout) \(offline.stderr)")

            let uncached = try await photos.run(["list", "--provider", "flickr", "--query", "other", "--no-thumbnails"], environment: environment)
            #expect(uncached.status == 65, "\(uncached.status) \(uncached.stderr)")
            #expect(uncached.stderr.contains("flickr sent data photos cannot read: none of its 2 records could be read"), "\(uncached.stderr)")
            #expect(!uncached.stdout.contains("No photos match") && !uncached.stderr.contains("No photos match"))
        }
    }

    /// A provider that answers every page with the same photos ends `--all` at the first page
    /// that brings nothing new, rather than being asked up to the page bound.
    @Test func aProviderRepeatingItsPageEndsTheWalk() async throws {
        try await withServer { server, photos in
            let url = "\(server.url)/images/large.jpg"
            var body = try #require(try JSONSerialization.jsonObject(with: Data(SaveCommandTests.flickrListing(
                [(id: "801", title: "first", owner: "o", url: url), (id: "802", title: "second", owner: "o", url: url)]).utf8)) as? [String: Any])
            body["photos"] = (body["photos"] as? [String: Any]).map { $0.merging(["pages": 50, "total": 100, "perpage": 2]) { $1 } }
            let same = String(decoding: try JSONSerialization.data(withJSONObject: body), as: UTF8.self)
            let asked = Mutex(0)
            server.addRoute { request in
                guard request.path == "/same-rest/" else { return nil }
                asked.withLock { $0 += 1 }
                return .json(same)
            }
            let run = try await photos.run(
                ["list", "--provider", "flickr", "--query", "q", "--all", "--per-page", "2", "--format", "jsonl", "--no-thumbnails"],
                environment: ["PHOTOS_FLICKR_API": server.url + "/same-rest/"])
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.stdout.split(separator: "\n").count == 2, "\(run.stdout)")
            #expect(run.stderr.contains("came more than once"), "\(run.stderr)")
            // The first page, and the pages asked ahead of the walk with the second (four).
            #expect(asked.withLock { $0 } <= 6, "pages asked: \(asked.withLock { $0 })")
        }
    }

    /// One page of nothing new (an upload moved a newest-first listing along by a page) does not
    /// end the walk: the pages after it are still listed.
    @Test func onePageOfRepeatsDoesNotEndTheWalk() async throws {
        try await withServer { server, photos in
            let url = "\(server.url)/images/large.jpg"
            func page(_ number: Int, _ ids: [String]) throws -> String {
                var body = try #require(try JSONSerialization.jsonObject(with: Data(SaveCommandTests.flickrListing(
                    ids.map { (id: $0, title: "photo \($0)", owner: "o", url: url) }).utf8)) as? [String: Any])
                body["photos"] = (body["photos"] as? [String: Any]).map { $0.merging(["page": number, "pages": 4, "total": 8, "perpage": 2]) { $1 } }
                return String(decoding: try JSONSerialization.data(withJSONObject: body), as: UTF8.self)
            }
            // Page 2 repeats page 1; pages 3 and 4 are new.
            let pages = [try page(1, ["801", "802"]), try page(2, ["801", "802"]), try page(3, ["803", "804"]), try page(4, ["805", "806"])]
            server.addRoute { request in
                guard request.path == "/shifted-rest/" else { return nil }
                let number = request.query.first { $0.0 == "page" }.flatMap { Int($0.1) } ?? 1
                return .json(pages[max(0, min(3, number - 1))])
            }
            let run = try await photos.run(
                ["list", "--provider", "flickr", "--query", "q", "--all", "--per-page", "2", "--format", "jsonl", "--no-thumbnails"],
                environment: ["PHOTOS_FLICKR_API": server.url + "/shifted-rest/"])
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.stdout.split(separator: "\n").count == 6, "\(run.stdout)")
        }
    }

    /// A table sent to a pipe or a file keeps long titles whole (for grep), up to a bound that
    /// keeps one very long title from padding every row.
    @Test func aTableInAPipeKeepsLongTitlesWhole() async throws {
        try await withServer { server, photos in
            let long = String(repeating: "a long title ", count: 11) + "end"  // 146 characters
            let huge = String(repeating: "x", count: 400)
            let endpoint = SaveCommandTests.route(
                server, "titles",
                try SaveCommandTests.flickrListing([
                    (id: "801", title: long, owner: "o", url: "\(server.url)/images/large.jpg"),
                    (id: "802", title: huge, owner: "o", url: "\(server.url)/images/large.jpg"),
                ]))
            let run = try await photos.run(
                ["list", "--provider", "flickr", "--query", "titles", "--no-thumbnails"], environment: ["PHOTOS_FLICKR_API": endpoint, "COLUMNS": ""])
            #expect(run.status == 0, "\(run.stderr)")
            let lines = run.stdout.split(separator: "\n")
            #expect(lines.contains { $0.contains(long) }, "\(run.stdout)")
            #expect(!run.stdout.contains(huge) && lines.allSatisfy { $0.count <= 200 }, "cut at 200 columns")
            let narrow = try await photos.run(
                ["list", "--provider", "flickr", "--query", "titles", "--no-thumbnails"], environment: ["PHOTOS_FLICKR_API": endpoint, "COLUMNS": "80"])
            #expect(narrow.stdout.split(separator: "\n").allSatisfy { $0.count <= 80 }, "COLUMNS, when given, is the width")
        }
    }

    /// A page past the end of a search that has photos says so, and how many pages there are,
    /// rather than that nothing matches.
    @Test func aPagePastTheEndSaysWhereTheEndIs() async throws {
        try await withServer { _, photos in
            let past = try await photos.run(["list", "--provider", "flickr", "--query", "dogs", "--page", "5", "--per-page", "7"])
            #expect(past.status == 0 && past.stdout.isEmpty)
            #expect(past.stderr.contains("Page 5 is past the end: 28 photos make 4 pages of 7."), "\(past.stderr)")
            // Commons does not say its total: its page past the end is said as such too.
            let commons = try await photos.run(["list", "--provider", "commons", "--query", "dogs", "--page", "40", "--no-thumbnails"])
            #expect(commons.status == 0 && commons.stdout.isEmpty, "\(commons.stdout)")
            #expect(commons.stderr.contains("Page 40 has no photos: the results end before it."), "\(commons.stderr)")
            let none = try await photos.run(["list", "--provider", "flickr", "--query", "nothingatall"])
            #expect(none.status == 0 && none.stderr.contains("No photos match \"nothingatall\"."), "\(none.stderr)")
        }
    }

    /// Another process clears the cache (`photos cache clear`) while a listing's thumbnails
    /// download: the images folder goes from under them. They are fetched again, not failed.
    @Test func thumbnailsStillArriveWhenTheCacheIsClearedMeanwhile() async throws {
        let images = Mutex<String?>(nil)
        let clearing: FixtureRouteHandler = { request in
            guard request.path.hasSuffix("_q.jpg"), let folder = images.withLock({ folder in defer { folder = nil }; return folder }) else { return nil }
            try? FileManager.default.removeItem(atPath: folder)
            return nil
        }
        try await withServer(FixtureServerConfiguration(routes: [clearing])) { _, photos in
            images.withLock { $0 = photos.cacheFolder.appendingPathComponent("images").path }
            let run = try await photos.run(["list", "--provider", "flickr", "--query", "many", "--per-page", "60", "--format", "jsonl"])
            #expect(run.status == 0, "\(run.stderr)")
            #expect(images.withLock { $0 } == nil, "the folder was removed during the run")
            #expect(!run.stderr.contains("thumbnails could not be fetched"), "\(run.stderr)")
            let lines = run.stdout.split(separator: "\n")
            #expect(lines.count == 60)
            for line in lines {
                let photo = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
                let path = try #require(photo["thumbnail_path"] as? String, "\(line)")
                #expect(FileManager.default.fileExists(atPath: path), "\(path)")
            }
        }
    }

    /// The thumbnails a clear took from under a listing are fetched again together, as the
    /// first time: one at a time, at 300 ms a request, a listing of 60 took 18 s more.
    @Test func thumbnailsClearedAwayAreFetchedAgainTogether() async throws {
        let images = Mutex<String?>(nil)
        let arrivals = Mutex<[Date]>([])
        // The folder goes when the 60th thumbnail is asked for: every one is on its way then
        // (its temp file made), none has arrived (6 s: under a loaded suite the 60 requests
        // came over 0.6 s, and with two more test runs beside it over more than the 1 s this
        // waited first, and in a fresh-clone CI run over more than the 2.5 s it waited next,
        // when files that had arrived went with the folder after their check), so every one
        // must be fetched again.
        let clearing: FixtureRouteHandler = { request in
            guard request.path.hasSuffix("_q.jpg") else { return nil }
            let count = arrivals.withLock { $0.append(Date()); return $0.count }
            if count == 60, let folder = images.withLock({ $0 }) { try? FileManager.default.removeItem(atPath: folder) }
            return nil
        }
        try await withServer(FixtureServerConfiguration(latencyMilliseconds: 6000, routes: [clearing])) { server, photos in
            images.withLock { $0 = photos.cacheFolder.appendingPathComponent("images").path }
            let run = try await photos.run(["list", "--provider", "flickr", "--query", "many", "--per-page", "60", "--format", "jsonl"])
            #expect(run.status == 0, "\(run.stderr)")
            let paths = run.stdout.split(separator: "\n").compactMap { line in
                (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["thumbnail_path"] as? String
            }
            #expect(paths.count == 60 && paths.allSatisfy { FileManager.default.fileExists(atPath: $0) }, "\(run.stderr)")
            // Asked again one after another, each would wait for the one before (6 s): ten would
            // take 54 s. Together they came over 0.1 s alone, and up to 2.3 s under a loaded
            // suite.
            let again = arrivals.withLock { Array($0.dropFirst(60)) }
            #expect(again.count >= 10, "thumbnails fetched again: \(again.count)")
            let span = (again.last ?? .distantPast).timeIntervalSince(again.first ?? .distantPast)
            #expect(span < 20, "\(again.count) fetched again over \(span) s")
        }
    }

    /// A walk (`--all`) that a failing page ends early says so in its JSON, not only on stderr:
    /// `has_more` alone made a cut-short listing look like one a script could page on from.
    @Test func aWalkCutShortByAFailingPageSaysWhyInItsJSON() async throws {
        let failing: FixtureRouteHandler = { request in
            guard request.path.hasPrefix("/services/rest"), request.queryValue("page") == "2" else { return nil }
            return .json(#"{"error":"down"}"#, status: 500)
        }
        try await withServer(FixtureServerConfiguration(routes: [failing])) { _, photos in
            let run = try await photos.run(["list", "--provider", "flickr", "--query", "many", "--per-page", "50", "--all", "--no-thumbnails", "--format", "json"])
            #expect(run.status == 0, "what was listed is printed: \(run.stderr)")
            #expect(run.stderr.contains("flickr: stopped after page 1"), "\(run.stderr)")
            let document = try run.json()
            let provider = try #require((document["providers"] as? [[String: Any]])?.first)
            #expect(provider["count"] as? Int == 50 && provider["last_page"] as? Int == 1)
            let error = try #require(provider["error"] as? String, "\(provider)")
            #expect(error.contains("500"), "\(error)")
            let whole = try await photos.run(["list", "--provider", "placeholder", "--per-page", "3", "--no-thumbnails", "--format", "json"])
            #expect((try whole.json()["providers"] as? [[String: Any]])?.first?["error"] is NSNull, "\(whole.stdout)")
        }
    }

    @Test func thumbnailsThatFailedForDifferentReasonsAreNotGivenOne() async throws {
        // Three thumbnails of one host fail: one 404, two 500s.
        let failing: FixtureRouteHandler = { request in
            guard request.path.hasSuffix("_q.jpg") else { return nil }
            if request.path.contains("53624890009") { return .json(#"{"error":"gone"}"#, status: 404) }
            if request.path.contains("53625112784") || request.path.contains("53623987651") { return .json(#"{"error":"down"}"#, status: 500) }
            return nil
        }
        try await withServer(FixtureServerConfiguration(routes: [failing])) { server, photos in
            let run = try await photos.run(["list", "--provider", "flickr", "--query", "dogs", "--format", "jsonl"])
            #expect(run.status == 0, "\(run.stderr)")
            let host = try #require(URL(string: server.url)?.host)
            let warning = try #require(run.stderr.split(separator: "\n").first { $0.contains("thumbnails could not be fetched") }, "\(run.stderr)")
            // The first to fail is a 404 (two others) or a 500 (one other).
            #expect(warning.contains("3 from \(host) (") && (warning.contains("; 2 of them for other reasons)") || warning.contains("; 1 of them for other reasons)")),
                "the first reason is not given as every one's: \(warning)")
        }
    }

    @Test(arguments: [
        ["list", "--per-page", "0"], ["list", "--page", "0"], ["list", "--provider", "nope"],
        ["list", "--bogus"], ["list", "--query", "  "], ["show"], ["show", "flickr:../../etc/passwd"],
        ["show", "nonsense"], ["show", "nope:1"], ["lst"], ["help", "bogus"], ["cache", "stat"], ["config", "shw"],
        ["list", "--query", String(repeating: "dog ", count: 4000)], ["save", "--provider", "flickr", "--query", String(repeating: "x", count: 1001)],
        ["list", "--provider", "flickr", "--filter", "tags=" + String(repeating: "a,", count: 600)],
        ["browse", "--query", String(repeating: "x", count: 1001)],
    ])
    func wrongUsageExits64WithAMessage(arguments: [String]) async throws {
        let photos = try PhotosBinary(server: nil)
        defer { photos.remove() }
        let run = try await photos.run(arguments)
        #expect(run.status == 64)
        #expect(run.stderr.hasPrefix("photos: error: "), "said as every error is: \(run.stderr)")
        #expect(run.stdout.isEmpty)
    }

    /// A mistyped command is answered with the one meant, a word that is no command with the
    /// list of commands.
    @Test func aMistypedCommandIsAnsweredWithTheOneMeant() async throws {
        let photos = try PhotosBinary(server: nil)
        defer { photos.remove() }
        let typo = try await photos.run(["lst", "--provider", "flickr"])
        #expect(typo.status == 64 && typo.stderr.hasPrefix("photos: error: no command 'lst' in photos; did you mean 'list'?"), "\(typo.stderr)")
        let inner = try await photos.run(["cache", "stat"])
        #expect(inner.stderr.contains("no command 'stat' in photos cache; did you mean 'stats'?"), "\(inner.stderr)")
        let help = try await photos.run(["help", "bogus"])
        #expect(help.status == 64 && help.stdout.isEmpty)
        #expect(help.stderr.contains("the commands are list, show, save, browse, providers, cache, config"), "\(help.stderr)")
        #expect(try await photos.run(["help", "cache", "stats"]).status == 0, "help for a command that is one")
    }

    @Test func providerNamesThatCannotBeUsedSayWhereTheyCameFrom() async throws {
        let photos = try PhotosBinary(server: nil)
        defer { photos.remove() }
        let mixed = try await photos.run(["list", "--provider", "all,flickr"])
        #expect(mixed.status == 64)
        #expect(mixed.stderr.contains("'all' names every ready provider and goes alone: --provider all"), "\(mixed.stderr)")
        // A negative number is a value, not an option: its range is what is wrong.
        let negative = try await photos.run(["list", "--per-page", "-5"])
        #expect(negative.status == 64)
        #expect(negative.stderr.contains("--per-page must be between 1 and 500, got -5"), "\(negative.stderr)")
        for command in ["list", "save"] {
            let album = try await photos.run([command, "--album", "-1"])
            #expect(album.status == 64 && album.stderr.contains("--album must be at least 1, got -1"), "\(command): \(album.stderr)")
        }
        let config = photos.home.appendingPathComponent("defaults.toml")
        try "[defaults]\nprovider = \"nope\"\n".write(to: config, atomically: true, encoding: .utf8)
        let configured = try await photos.run(["list", "--offline"], environment: ["PHOTOS_CONFIG": config.path])
        #expect(configured.status == 64)
        #expect(configured.stderr.contains("unknown provider 'nope' (config [defaults] provider); choose from"), "\(configured.stderr)")
    }

    @Test func aFilterValueOneProviderRefusesSkipsItWhenPhotosChoseTheProviders() async throws {
        try await withServer { _, photos in
            let run = try await photos.run(["list", "--query", "dogs", "--filter", "sort=interestingness-desc", "--no-thumbnails", "--format", "jsonl"])
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.stderr.contains("photos: note: commons skipped: commons filter sort takes one of"), "\(run.stderr)")
            let ids = run.stdout.split(separator: "\n").compactMap {
                (try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])?["id"] as? String
            }
            #expect(!ids.isEmpty && ids.allSatisfy { $0.hasPrefix("flickr:") }, "\(ids)")
            // A provider the user named is held to the value.
            let named = try await photos.run(["list", "--provider", "commons", "--query", "dogs", "--filter", "sort=interestingness-desc"])
            #expect(named.status == 64 && named.stderr.contains("commons filter sort takes one of"))
            // One value per filter: a second would silently win.
            let twice = try await photos.run(["list", "--provider", "flickr", "--query", "dogs", "--filter", "license=9", "--filter", "license=10"])
            #expect(twice.status == 64 && twice.stderr.contains("--filter license= is given twice"), "\(twice.stderr)")
            for bad in ["album=0", "album=101", "album=1,,2", "album=x"] {
                let outside = try await photos.run(["list", "--provider", "placeholder", "--filter", bad])
                #expect(outside.status == 64 && outside.stderr.contains("album must be an album number from 1 to 100"), "\(bad): \(outside.stderr)")
            }
            // Said in neither syntax, for it is given either way.
            let flag = try await photos.run(["list", "--provider", "placeholder", "--album", "999"])
            #expect(flag.status == 64 && flag.stderr.contains("album must be an album number from 1 to 100"), "\(flag.stderr)")
            #expect(!flag.stderr.contains("album="), "\(flag.stderr)")
            let album = try await photos.run(["list", "--provider", "placeholder", "--album", "3", "--filter", "album=4"])
            #expect(album.status == 64 && album.stderr.contains("--album and --filter album= both name an album"), "\(album.stderr)")
        }
    }

    @Test func aPageSizeAProviderDoesNotServeIsSaidNotCutSilently() async throws {
        try await withServer { _, photos in
            let cut = try await photos.run(["list", "--provider", "commons", "--query", "dogs", "--per-page", "80", "--no-thumbnails", "--format", "json"])
            #expect(cut.status == 0, "\(cut.stderr)")
            #expect(try cut.json()["per_page"] as? Int == 50)
            #expect(cut.stderr.contains("commons: serves at most 50 photos a page, so its pages hold 50, not 80"), "\(cut.stderr)")
            let served = try await photos.run(["list", "--provider", "commons", "--query", "dogs", "--per-page", "50", "--no-thumbnails", "--format", "json"])
            #expect(served.status == 0 && !served.stderr.contains("serves at most"), "\(served.stderr)")
            // --limit alone chooses the page size: nothing was asked that is not served.
            let limited = try await photos.run(["list", "--provider", "commons", "--query", "dogs", "--limit", "80", "--no-thumbnails", "--format", "json"])
            #expect(limited.status == 0 && !limited.stderr.contains("serves at most"), "\(limited.stderr)")
        }
    }

    @Test func oddQueriesAreRefusedOrQuotedShort() async throws {
        try await withServer { _, photos in
            // Bytes that are not UTF-8 reach photos as U+FFFD: refused, not searched for.
            let mangled = try await photos.run(["list", "--provider", "placeholder", "--query", "caf\u{FFFD}"])
            #expect(mangled.status == 64 && mangled.stderr.contains("--query is not valid UTF-8 text"), "\(mangled.stderr)")
            let filter = try await photos.run(["list", "--provider", "openverse", "--filter", "tags=\u{FFFD}"])
            #expect(filter.status == 64 && filter.stderr.contains("--filter tags= is not valid UTF-8 text"), "\(filter.stderr)")
            // A query that matches nothing is quoted back, but not all 1000 characters of it.
            let long = String(repeating: "a", count: 1000)
            let none = try await photos.run(["list", "--provider", "placeholder", "--query", long, "--no-thumbnails"])
            #expect(none.status == 0, "\(none.stderr)")
            #expect(none.stderr.contains("No photos match \"aaa") && none.stderr.utf8.count < 300, "\(none.stderr.utf8.count) bytes")
            // Longer than any search is refused before a request.
            let tooLong = try await photos.run(["list", "--provider", "placeholder", "--query", long + "a", "--no-thumbnails"])
            #expect(tooLong.status == 64 && tooLong.stderr.contains("--query is 1001 bytes long; a search is at most 1000"), "\(tooLong.stderr)")
        }
    }

    @Test func helpTeachesEveryFlagWithAnExample() async throws {
        let photos = try PhotosBinary(server: nil)
        defer { photos.remove() }
        let root = try await photos.run(["--help"])
        #expect(root.status == 0)
        #expect(root.stdout.contains("photos list --provider flickr --query dogs"))
        let list = try await photos.run(["list", "--help"])
        for flag in ["--provider", "--query", "--page", "--per-page", "--limit", "--all", "--format", "--no-thumbnails", "--album"] {
            #expect(list.stdout.contains(flag), "list --help mentions \(flag)")
        }
        #expect(list.stdout.contains("Examples:"))
        // Help wraps its lines: compared with the words on one line.
        func words(_ text: String) -> String { text.split(whereSeparator: \.isWhitespace).joined(separator: " ") }
        #expect(words(list.stdout).contains("(values: table, json, jsonl, grid; default: table)"))
        for command in ["show", "save"] {
            let help = try await photos.run([command, "--help"])
            #expect(words(help.stdout).contains("(values: table, json; default: table)"), "\(command) offers only the formats it prints")
        }
        let version = try await photos.run(["--version"])
        #expect(version.stdout.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ".").count == 3)

        // Every help fits an 80-column terminal: no usage line or example runs past it.
        for command in [[], ["list"], ["show"], ["save"], ["browse"], ["providers"], ["cache"], ["cache", "stats"], ["config"], ["config", "init"]] {
            let help = try await photos.run(command + ["--help"], environment: ["COLUMNS": "80"])
            let long = help.stdout.split(separator: "\n").filter { $0.count > 80 }
            #expect(long.isEmpty, "photos \(command.joined(separator: " ")) --help: \(long)")
            // Each option says its default once (--columns said "(default 3; ...) (default: 3)").
            var options: [String] = []
            for line in help.stdout.split(separator: "\n") {
                if line.hasPrefix("  -") { options.append("") }
                if !options.isEmpty { options[options.count - 1] += " " + line }
            }
            let twice = options.filter { words($0).components(separatedBy: "(default").count > 2 }
            #expect(twice.isEmpty, "photos \(command.joined(separator: " ")) --help: \(twice)")
        }
    }
}
