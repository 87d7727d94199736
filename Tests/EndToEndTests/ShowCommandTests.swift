import FixtureServerKit
import Foundation
import PhotosTestSupport
import Testing

/// `photos show` end to end.
@Suite struct ShowCommandTests {
    @Test func flickrDetailMergesInfoAndSizes() async throws {
        try await withServer { server, photos in
            let table = try await photos.run(["show", "flickr:53624890009"])
            #expect(table.status == 0)
            #expect(table.stdout.contains("Rex at Playa de la Concha"))
            #expect(table.stdout.contains("Andrea Ruiz"))
            #expect(table.stdout.contains("goldenretriever"))
            #expect(table.stdout.contains("Original"))

            let json = try await photos.run(["show", "flickr:53624890009", "--format", "json"]).json()
            #expect(json["id"] as? String == "flickr:53624890009")
            #expect((json["description"] as? String)?.hasPrefix("Rex loves the sea.") == true)
            #expect((json["tags"] as? [String])?.contains("beach") == true)
            #expect(json["taken_at"] as? String == "2024-01-01T07:00:00Z")
            #expect((json["sizes"] as? [[String: Any]])?.count == 13)
            #expect(json["image_path"] is NSNull)

            // The table's Image is the JSON's image_url; the largest size, which --open fetches,
            // is its own line.
            func line(_ label: String) -> Substring? {
                table.stdout.split(separator: "\n").first { $0.hasPrefix(label + " ") }.map { $0.dropFirst(label.count).drop { $0 == " " } }
            }
            let imageURL = try #require(json["image_url"] as? String)
            #expect(line("Image").map(String.init) == imageURL, "\(table.stdout)")
            let sizes = try #require(json["sizes"] as? [[String: Any]])
            let largest = try #require(sizes.max { ($0["width"] as? Int ?? 0) < ($1["width"] as? Int ?? 0) }?["url"] as? String)
            #expect(largest != imageURL && line("Largest").map(String.init) == largest, "\(table.stdout)")
        }
    }

    /// A cached image whose bytes were damaged, its size the same, is fetched again: `--open`
    /// failed with 65 ("placeholder sent data photos cannot read") at every run after, --refresh
    /// included, until the cache was cleared.
    @Test func aDamagedCachedImageIsFetchedAgain() async throws {
        try await withServer { server, photos in
            let environment = ["PHOTOS_OPENER": "/bin/true"]
            let first = try await photos.run(["show", "placeholder:2", "--open", "--format", "json"], environment: environment)
            #expect(first.status == 0, "\(first.stderr)")
            let path = try #require(try first.json()["image_path"] as? String, "\(first.stdout)")
            // The cached file behind the name the viewer got, damaged in place.
            let cached = try #require(try FileManager.default.contentsOfDirectory(atPath: photos.cacheFolder.appendingPathComponent("images").path)
                .map { photos.cacheFolder.appendingPathComponent("images/\($0)").path }
                .first { (try? Data(contentsOf: URL(fileURLWithPath: $0))) == (try? Data(contentsOf: URL(fileURLWithPath: path))) })
            let size = try Data(contentsOf: URL(fileURLWithPath: cached)).count
            try Data(count: size).write(to: URL(fileURLWithPath: cached))
            server.resetStats()
            let again = try await photos.run(["show", "placeholder:2", "--open", "--format", "json"], environment: environment)
            #expect(again.status == 0, "\(again.stderr)")
            let reopened = try #require(try again.json()["image_path"] as? String)
            #expect(try Data(contentsOf: URL(fileURLWithPath: reopened)).prefix(2) == Data([0xFF, 0xD8]), "an image again")
            #expect(server.stats().requests >= 1, "fetched again")
            // And kept: the next run finds it whole, without the network.
            let offline = try await photos.run(["show", "placeholder:2", "--open", "--offline"], environment: environment)
            #expect(offline.status == 0, "\(offline.stderr)")
        }
    }

    /// Openverse names its thumbnail without dimensions: the table says so in words.
    @Test func aSizeWithoutDimensionsIsSaidInWords() async throws {
        try await withServer { _, photos in
            let listed = try await photos.run(["list", "--provider", "openverse", "--query", "dogs", "--format", "jsonl", "--no-thumbnails"])
            let first = try #require(listed.stdout.split(separator: "\n").first)
            let id = try #require((try JSONSerialization.jsonObject(with: Data(first.utf8)) as? [String: Any])?["id"] as? String)
            let table = try await photos.run(["show", id])
            #expect(table.status == 0, "\(table.stderr)")
            let sizes = table.stdout.split(separator: "\n").filter { $0.hasPrefix("Size ") }
            #expect(sizes.contains { $0.hasSuffix("thumbnail (dimensions not given)") }, "\(table.stdout)")
            #expect(sizes.contains { $0.contains("original") && $0.contains("×") }, "\(table.stdout)")
            #expect(!sizes.contains { $0.hasSuffix("?") }, "\(table.stdout)")
        }
    }

    /// Openverse often gives no dimensions: the largest image (what --open downloads, and the
    /// "Largest" row) is the one labelled original, as `save --size original` takes it, not the
    /// thumbnail that came first among sizes all measuring nothing.
    @Test func theLargestImageOfSizesWithoutDimensionsIsTheOriginal() async throws {
        try await withServer { _, photos in
            let table = try await photos.run(["show", "openverse:6388d504-af32-40ad-a58a-676b9b109653"])
            #expect(table.status == 0, "\(table.stderr)")
            #expect(table.stdout.contains("original (dimensions not given)"), "the fixture still has no dimensions: \(table.stdout)")
            #expect(!table.stdout.split(separator: "\n").contains { $0.hasPrefix("Largest") && $0.contains("/thumb/") }, "\(table.stdout)")
            // The viewer gets the original's bytes (12,780 of them), not the thumbnail's (7,207).
            let (opener, record) = try photos.recordingOpener(#"wc -c < "$1" > RECORD"#)
            let open = try await photos.run(["show", "openverse:6388d504-af32-40ad-a58a-676b9b109653", "--open"], environment: ["PHOTOS_OPENER": opener.path])
            #expect(open.status == 0, "\(open.stderr)")
            let bytes = try String(contentsOf: record, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
            let original = try await photos.run(["save", "openverse:6388d504-af32-40ad-a58a-676b9b109653", "--to", photos.home.appendingPathComponent("saved").path, "--format", "json"])
            #expect(original.status == 0, "\(original.stderr)")
            let saved = try #require(FileManager.default.enumerator(atPath: photos.home.appendingPathComponent("saved").path)?.allObjects as? [String])
            let file = try #require(saved.first { $0.hasSuffix(".jpg") })
            let size = try FileManager.default.attributesOfItem(atPath: photos.home.appendingPathComponent("saved/" + file).path)[.size] as? Int
            #expect(Int(bytes) == size, "opened \(bytes) bytes; save --size original saved \(String(describing: size))")
        }
    }

    /// An id as a person may type or paste it: Openverse's UUID in capitals, a number with
    /// leading zeros. Each is the provider's id as it spells it.
    @Test func idsAreTakenAsTheProviderSpellsThem() async throws {
        try await withServer { _, photos in
            let listed = try await photos.run(["list", "--provider", "openverse", "--query", "dogs", "--format", "jsonl", "--no-thumbnails"])
            let first = try #require(listed.stdout.split(separator: "\n").first)
            let id = try #require((try JSONSerialization.jsonObject(with: Data(first.utf8)) as? [String: Any])?["id"] as? String)
            let raw = try #require(id.split(separator: ":").last)
            for (typed, expected) in [("openverse:" + raw.uppercased(), id), ("placeholder:017", "placeholder:17"), ("flickr:0053624890009", "flickr:53624890009")] {
                let shown = try await photos.run(["show", typed, "--format", "json"])
                #expect(shown.status == 0, "\(typed): \(shown.stderr)")
                #expect(try shown.json()["id"] as? String == expected, "\(typed)")
            }
            let folder = try TemporaryFolder("save-typed")
            let saved = try await photos.run(["save", "placeholder:0017", "--to", folder.url.path, "--format", "json"])
            #expect(saved.status == 0, "\(saved.stderr)")
            #expect(try saved.json()["saved"] as? Int == 1)
            #expect(FileManager.default.fileExists(atPath: folder.appending("placeholder/placeholder_17.jpg").path),
                "named as placeholder:17: \(String(describing: try? FileManager.default.subpathsOfDirectory(atPath: folder.url.path)))")
            let wrong = try await photos.run(["show", "openverse:XYZ"])
            #expect(wrong.status == 64 && wrong.stderr.contains("is not a valid openverse photo id"), "\(wrong.stderr)")
        }
    }

    @Test func aPreviewNotDrawnIsExplainedUnlessNoneWasAskedFor() async throws {
        try await withServer { _, photos in
            let auto = try await photos.run(["show", "placeholder:2", "--preview"])
            #expect(auto.status == 0)
            #expect(auto.stderr.contains("photos: note: no preview: stdout is not a terminal"), "\(auto.stderr)")
            let none = try await photos.run(["show", "placeholder:2", "--preview", "--graphics", "none"])
            #expect(none.status == 0)
            #expect(!none.stderr.contains("no preview"), "none was asked for: \(none.stderr)")
            // On a terminal that draws nothing (TERM=dumb): said as that, not as no terminal.
            let dumb = try runProgram(
                "/bin/sh", ["-c", "script -qec \"'$0' show placeholder:2 --preview\" /dev/null", PhotosBinary.executable.path],
                environment: photos.environment.merging(["TERM": "dumb"]) { $1 })
            #expect(dumb.stdout.contains("no preview: TERM=dumb draws no pictures"), "\(dumb.stdout)")
        }
    }

    @Test func hostileDetailNeverReachesTheTerminalRaw() async throws {
        try await withServer { _, photos in
            let run = try await photos.run(["show", "flickr:53625112784"])
            #expect(run.status == 0)
            #expect(!run.stdoutBytes.contains(0x1B))
        }
    }

    @Test func unknownPhotosAreNotFound() async throws {
        try await withServer { _, photos in
            let flickr = try await photos.run(["show", "flickr:11111111111"])
            #expect(flickr.status == 69)
            #expect(flickr.stderr.contains("flickr:11111111111"))
            let placeholder = try await photos.run(["show", "placeholder:4999"])
            #expect(placeholder.status == 69)
        }
    }

    @Test func openDownloadsTheLargestImageAndRunsTheOpenerWithoutAShell() async throws {
        try await withServer { server, photos in
            let record = photos.home.appendingPathComponent("opened.txt")
            let opener = photos.home.appendingPathComponent("opener.sh")
            let signals = photos.home.appendingPathComponent("signals.txt")
            // A viewer that talks on stdout (many do): its words must not mix into photos' data.
            // It notes the signals it blocks and ignores.
            try ("#!/bin/sh\nprintf '%s\\n' \"$#\" \"$1\" > '\(record.path)'\necho 'viewer says hello'\n"
                // Read by the shell itself: a child (grep) could catch it forking, signals blocked.
                + "while read -r key value; do case $key in SigBlk:|SigIgn:) echo \"$key\t$value\";; esac; done < /proc/$$/status > '\(signals.path)'\n").write(
                to: opener, atomically: true, encoding: .utf8)
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: opener.path)

            let run = try await photos.run(["show", "placeholder:2", "--open", "--format", "json"], environment: ["PHOTOS_OPENER": opener.path])
            #expect(run.status == 0)
            let lines = try String(contentsOf: record, encoding: .utf8).split(separator: "\n")
            #expect(lines.first == "1", "exactly one argument")
            let path = String(lines.last ?? "")
            #expect(try run.json()["image_path"] as? String == path, "stdout is photos' JSON alone: \(run.stdout)")
            #expect(run.stderr.contains("viewer says hello"), "the viewer's output goes to stderr")
            // photos' threads block every signal and it ignores SIGPIPE: none of that is the
            // viewer's, which Ctrl-C and `kill` must stop.
            // (The C library keeps signals 32 and 33 for itself: the standard ones are 1 to 31.)
            let masks = try String(contentsOf: signals, encoding: .utf8).split(separator: "\n").compactMap { line in
                line.split(separator: "\t").last.flatMap { UInt64($0, radix: 16) }.map { $0 & 0x7FFF_FFFF }
            }
            #expect(masks == [0, 0], "no signal blocked or ignored: \(masks.map { String($0, radix: 16) })")
            let image = try Data(contentsOf: URL(fileURLWithPath: path))
            #expect(image.prefix(2) == Data([0xFF, 0xD8]))
            #expect(server.stats().requests >= 2)

            // Later, without --open: the file the image was downloaded to, whole in a table
            // that goes to a pipe (a path cut short could not be copied).
            let again = try await photos.run(["show", "placeholder:2", "--format", "json"])
            let cached = try #require(try again.json()["image_path"] as? String, "\(again.stdout)")
            #expect(try Data(contentsOf: URL(fileURLWithPath: cached)) == image)
            let table = try await photos.run(["show", "placeholder:2"])
            #expect(table.status == 0)
            #expect(table.stdout.split(separator: "\n").contains { $0.hasPrefix("File") && $0.hasSuffix(cached) }, "\(table.stdout)")
            #expect(!table.stdout.contains("…"))
        }
    }

    /// A cache that cannot hold the image (its folder is a file here; a read-only file system
    /// does the same) does not keep it from the viewer: it is downloaded into a private folder
    /// in TMPDIR, and the note says where.
    @Test func openWorksWhenTheCacheCannotHoldTheImage() async throws {
        try await withServer { _, photos in
            let record = photos.home.appendingPathComponent("opened.txt")
            let opener = photos.home.appendingPathComponent("opener.sh")
            try "#!/bin/sh\nprintf '%s' \"$1\" > '\(record.path)'\n".write(to: opener, atomically: true, encoding: .utf8)
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: opener.path)
            let notAFolder = photos.home.appendingPathComponent("cache-file")
            try "not a folder".write(to: notAFolder, atomically: true, encoding: .utf8)
            let temporary = photos.home.appendingPathComponent("tmp")
            try FileManager.default.createDirectory(at: temporary, withIntermediateDirectories: true)

            let run = try await photos.run(
                ["show", "placeholder:2", "--open", "--format", "json"],
                environment: ["PHOTOS_OPENER": opener.path, "PHOTOS_CACHE_DIR": notAFolder.path, "TMPDIR": temporary.path])
            #expect(run.status == 0, "\(run.status): \(run.stderr)")
            let opened = try String(contentsOf: record, encoding: .utf8)
            #expect(opened.hasPrefix(temporary.path + "/photos-\(geteuid())/") && opened.hasSuffix(".jpg"), "\(opened)")
            #expect(try run.json()["image_path"] as? String == opened)
            #expect(try Data(contentsOf: URL(fileURLWithPath: opened)).prefix(2) == Data([0xFF, 0xD8]))
            #expect(run.stderr.contains("photos: note: the cache cannot keep the image") && run.stderr.contains(opened), "\(run.stderr)")
            #expect(!run.stderr.contains("NSCocoaErrorDomain"))

            // An image in the cache whose file must be named anew for the viewer (its URL has no
            // extension), where the cache's own folder for that cannot be made: named in TMPDIR.
            let cache = photos.home.appendingPathComponent("cache-blocked")
            try FileManager.default.createDirectory(at: cache, withIntermediateDirectories: true)
            try "in the way".write(to: cache.appendingPathComponent("opened"), atomically: true, encoding: .utf8)
            let renamed = try await photos.run(
                ["show", "placeholder:2", "--open", "--format", "json"],
                environment: ["PHOTOS_OPENER": opener.path, "PHOTOS_CACHE_DIR": cache.path, "TMPDIR": temporary.path])
            #expect(renamed.status == 0, "\(renamed.status): \(renamed.stderr)")
            let named = try String(contentsOf: record, encoding: .utf8)
            #expect(named.hasPrefix(temporary.path + "/photos-\(geteuid())/") && named.hasSuffix(".jpg"), "\(named)")

            // A folder there that is not this user's own is not written into.
            let shared = photos.home.appendingPathComponent("shared-tmp")
            try FileManager.default.createDirectory(at: shared.appendingPathComponent("photos-\(geteuid())"), withIntermediateDirectories: true)
            #expect(chmod(shared.appendingPathComponent("photos-\(geteuid())").path, 0o777) == 0)
            let refused = try await photos.run(
                ["show", "placeholder:2", "--open"], environment: ["PHOTOS_OPENER": opener.path, "PHOTOS_CACHE_DIR": notAFolder.path, "TMPDIR": shared.path])
            #expect(refused.status == 74 && refused.stderr.contains("not a private folder of this user's"), "\(refused.status): \(refused.stderr)")
        }
    }

    /// PHOTOS_OPENER may give the viewer options, as `feh --fullscreen`: split at spaces, never
    /// through a shell, the file last.
    @Test func theOpenerMayCarryOptions() async throws {
        try await withServer { _, photos in
            let record = photos.home.appendingPathComponent("arguments.txt")
            let opener = photos.home.appendingPathComponent("viewer")
            try "#!/bin/sh\nprintf '%s\\n' \"$@\" > '\(record.path)'\n".write(to: opener, atomically: true, encoding: .utf8)
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: opener.path)

            let run = try await photos.run(
                ["show", "placeholder:2", "--open", "--format", "json"], environment: ["PHOTOS_OPENER": "\(opener.path) --fullscreen  $HOME;x"])
            #expect(run.status == 0, "\(run.stderr)")
            let arguments = try String(contentsOf: record, encoding: .utf8).split(separator: "\n").map(String.init)
            let image = try #require(try run.json()["image_path"] as? String)
            #expect(arguments == ["--fullscreen", "$HOME;x", image], "no shell: words as written, the file last")

            let missing = try await photos.run(["show", "placeholder:2", "--open"], environment: ["PHOTOS_OPENER": "no-such-viewer --fullscreen"])
            #expect(missing.status == 69 && missing.stderr.contains("no program 'no-such-viewer' to open the image with"), "\(missing.stderr)")
            // A quote opened and never closed is the setting's mistake, said as one.
            let unclosed = try await photos.run(["show", "placeholder:2", "--open"], environment: ["PHOTOS_OPENER": "\"/opt/my viewer/view --full"])
            #expect(unclosed.status == 64 && unclosed.stderr.contains("has a quote that is not closed"), "\(unclosed.stderr)")

            // Quotes keep a viewer whose path holds spaces whole, with options after it.
            let spaced = photos.home.appendingPathComponent("My Viewer")
            try FileManager.default.createDirectory(at: spaced, withIntermediateDirectories: true)
            let viewer = spaced.appendingPathComponent("view it")
            try FileManager.default.copyItem(at: opener, to: viewer)
            let quoted = try await photos.run(
                ["show", "placeholder:2", "--open", "--format", "json"], environment: ["PHOTOS_OPENER": "'\(viewer.path)' --zoom \"two words\""])
            #expect(quoted.status == 0, "\(quoted.stderr)")
            let passed = try String(contentsOf: record, encoding: .utf8).split(separator: "\n").map(String.init)
            #expect(passed == ["--zoom", "two words", try #require(try quoted.json()["image_path"] as? String)], "\(passed)")
            // Quotes that do not pair (an apostrophe in a folder's name): split at spaces alone.
            let apostrophe = photos.home.appendingPathComponent("o'brien")
            try FileManager.default.createDirectory(at: apostrophe, withIntermediateDirectories: true)
            try FileManager.default.copyItem(at: opener, to: apostrophe.appendingPathComponent("view"))
            let unpaired = try await photos.run(
                ["show", "placeholder:2", "--open", "--format", "json"], environment: ["PHOTOS_OPENER": apostrophe.appendingPathComponent("view").path + " --full"])
            #expect(unpaired.status == 0, "\(unpaired.stderr)")
            let recorded = try String(contentsOf: record, encoding: .utf8)
            #expect(recorded.hasPrefix("--full\n"), "\(recorded)")
        }
    }

    @Test func withoutAnOpenerTheErrorNamesTheDownloadedFile() async throws {
        try await withServer { _, photos in
            let run = try await photos.run(["show", "flickr:53624890009", "--open"], environment: ["PHOTOS_OPENER": "no-such-viewer-\(UUID().uuidString)"])
            #expect(run.status == 69)
            let path = try #require(run.stderr.split(separator: " ").map(String.init).first { $0.hasPrefix("/") }?
                .trimmingCharacters(in: CharacterSet(charactersIn: ")\n.;")))
            #expect(FileManager.default.fileExists(atPath: path), "the named file exists: \(path)")

            // A viewer that fails opened nothing: an error with 69 too, naming the image.
            let failing = try await photos.run(["show", "flickr:53624890009", "--open"], environment: ["PHOTOS_OPENER": "/bin/false"])
            #expect(failing.status == 69 && failing.stderr.contains("photos: error: opener is unavailable: false exited with status 1; the image is at /"), "\(failing.stderr)")

            // A folder is no viewer, though it exists and may be searched.
            let folder = try await photos.run(["show", "flickr:53624890009", "--open"], environment: ["PHOTOS_OPENER": NSTemporaryDirectory()])
            #expect(folder.status == 69 && folder.stderr.contains("no program '\(NSTemporaryDirectory())' to open the image with"), "\(folder.stderr)")

            // A blank setting is no setting (the default opener, here not on PATH), not a program
            // named ' '.
            let noPath: [String: String?] = ["PATH": "/nonexistent"]
            let unset = try await photos.run(["show", "flickr:53624890009", "--open"], environment: noPath.merging(["PHOTOS_OPENER": nil]) { $1 })
            let blank = try await photos.run(["show", "flickr:53624890009", "--open"], environment: noPath.merging(["PHOTOS_OPENER": "   "]) { $1 })
            #expect(blank.status == 69 && blank.stderr.contains("no program 'xdg-open'"), "\(blank.stderr)")
            #expect(blank.status == unset.status && blank.stderr == unset.stderr, "\(unset.stderr)")
        }
    }

    /// An image that cannot be had offline is said after the details, which still print.
    @Test func offlineWithoutTheImageStillShowsTheDetails() async throws {
        try await withServer { _, photos in
            #expect(try await photos.run(["show", "placeholder:33"]).status == 0)
            let run = try await photos.run(["show", "placeholder:33", "--open", "--offline"], environment: ["PHOTOS_OPENER": "/bin/true"])
            #expect(run.status == 69)
            #expect(run.stdout.contains("ID     placeholder:33") && run.stdout.contains("Title"), "\(run.stdout)")
            #expect(run.stderr.contains("offline and nothing cached for the image"), "\(run.stderr)")
        }
    }

    /// A provider that cannot be reached falls back on the cache as --offline does, sizes
    /// included: the original saved by an earlier --open is opened again (the fallback knew no
    /// size, and failed with 69 although the image was on disk).
    @Test func anUnreachableProviderOpensTheCachedOriginal() async throws {
        try await withServer { _, photos in
            let first = try await photos.run(["show", "flickr:53624890009", "--open", "--format", "json"], environment: ["PHOTOS_OPENER": "/bin/true"])
            #expect(first.status == 0, "\(first.stderr)")
            let opened = try first.json()["image_path"] as? String
            #expect(opened?.isEmpty == false, "\(first.stdout)")
            let closed = try ClosedPort()
            let down = ["PHOTOS_OPENER": "/bin/true", "PHOTOS_FLICKR_API": "https://127.0.0.1:\(closed.port)/services/rest/",
                "PHOTOS_FLICKR_STATIC": "https://127.0.0.1:\(closed.port)"]
            let again = try await photos.run(["show", "flickr:53624890009", "--open", "--format", "json"], environment: down)
            #expect(again.status == 0, "\(again.stderr)")
            #expect(again.stderr.contains("flickr could not be reached, showing what the cache knows"), "\(again.stderr)")
            let detail = try again.json()
            #expect(detail["image_path"] as? String == opened, "\(again.stdout)")
            #expect((detail["sizes"] as? [Any])?.isEmpty == false, "\(again.stdout)")
        }
    }
}
