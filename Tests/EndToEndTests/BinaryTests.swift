import FixtureServerKit
import PhotosTestSupport
import Foundation
import PhotosCore
import Synchronization
import Testing

@testable import PhotosCache

/// The built `photos` binary against the fixture server, as users and scripts run it.
/// Serialized: the timing of the SIGINT test must not compete with eight busy processes.
@Suite(.serialized) struct BinaryTests {
    typealias Photos = PhotosBinary

    // MARK: Listing through the binary

    @Test func secondListingComesFromTheCacheAndSaysSo() async throws {
        try await withServer { server, photos in
            let first = try await photos.run(["list", "--provider", "placeholder", "--per-page", "6", "--format", "json"])
            #expect(first.status == 0, "\(first.stderr)")
            let firstJSON = try first.json()
            #expect(firstJSON["cached"] as? Bool == false && firstJSON["age_seconds"] as? Int == 0)
            let paths = (firstJSON["photos"] as? [[String: Any]] ?? []).compactMap { $0["thumbnail_path"] as? String }
            #expect(paths.count == 6 && paths.allSatisfy { $0.hasPrefix(photos.cacheFolder.path + "/images/") })

            server.resetStats()
            let second = try await photos.run(["list", "--provider", "placeholder", "--per-page", "6", "--format", "json"])
            let json = try second.json()
            #expect(json["cached"] as? Bool == true && (json["age_seconds"] as? Int).map { $0 >= 0 } == true)
            let providers = json["providers"] as? [[String: Any]] ?? []
            #expect(providers.first?["cached"] as? Bool == true && providers.first?["age_seconds"] is Int)
            #expect(server.stats().requests == 0, "listing and thumbnails both from the cache")

            let offline = try await photos.run(["list", "--provider", "placeholder", "--per-page", "6", "--offline", "--format", "json"])
            #expect(try offline.status == 0 && offline.json()["cached"] as? Bool == true)
            #expect(server.stats().requests == 0)

            let stats = try await photos.run(["cache", "stats", "--format", "json"])
            let statsJSON = try stats.json()
            #expect(statsJSON["listings"] as? Int == 1 && statsJSON["images"] as? Int == 6)
            #expect((statsJSON["listing_hit_rate"] as? Double).map { abs($0 - 2.0 / 3.0) < 0.01 } == true)
            #expect(statsJSON["oldest_entry"] is String && statsJSON["runs"] as? Int == 3)
            let table = try await photos.run(["cache", "stats"])
            #expect(table.status == 0 && table.stdout.contains("Listing hits"))
            #expect(table.stdout.contains("1 page, 6 photos") && table.stdout.contains("6 files"), "one page is not '1 pages': \(table.stdout)")
            let path = try await photos.run(["cache", "path"])
            #expect(path.stdout == photos.cacheFolder.path + "\n")
        }
    }

    /// The fixture server refuses a fixtures folder that is not there, rather than serving
    /// 404s for every route and an env file without endpoints.
    @Test func theFixtureServerRefusesAMissingFixturesFolder() throws {
        let server = PhotosBinary.executable.deletingLastPathComponent().appendingPathComponent("photos-fixture-server")
        let envFile = FileManager.default.temporaryDirectory.appendingPathComponent("fixture-env-\(UUID().uuidString)")
        let run = try runTool(server.path, ["--port", "0", "--fixtures", "/nonexistent-fixtures", "--env-file", envFile.path])
        #expect(run.status == 64 && run.stderr.contains("--fixtures /nonexistent-fixtures is not a folder"), "\(run.status) \(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: envFile.path), "no env file for a server that did not start")
    }

    @Test func statsOfACacheNeverMadeIsEmptyAndMakesNothing() async throws {
        let photos = try Photos(server: nil)
        defer { photos.remove() }
        #expect(!FileManager.default.fileExists(atPath: photos.cacheFolder.path))
        let stats = try await photos.run(["cache", "stats", "--format", "json"])
        #expect(stats.status == 0, "\(stats.stderr)")
        let json = try stats.json()
        #expect(json["listings"] as? Int == 0 && json["images"] as? Int == 0 && json["runs"] as? Int == 0)
        let table = try await photos.run(["cache", "stats"])
        #expect(table.status == 0 && table.stdout.contains("0 pages, 0 photos"))
        #expect(!FileManager.default.fileExists(atPath: photos.cacheFolder.path), "looking made no cache folder")
    }

    /// The cache set to a folder of the user's that already has a `tiles`, `opened` or
    /// `synthesized` folder (names photos uses): it is not taken as photos' own, so `cache clear`
    /// deletes nothing of the user's and photos writes nothing there.
    @Test(arguments: ["tiles", "opened", "synthesized"])
    func aFolderOfTheUsersWithTilesOrOpenedIsNotTakenForTheCache(folder: String) async throws {
        try await withServer { _, photos in
            let mine = photos.home.appendingPathComponent("mine")
            let notes = mine.appendingPathComponent("\(folder)/notes.txt")
            try FileManager.default.createDirectory(at: notes.deletingLastPathComponent(), withIntermediateDirectories: true)
            try "mine\n".write(to: notes, atomically: true, encoding: .utf8)
            let environment = ["PHOTOS_CACHE_DIR": mine.path]
            let list = try await photos.run(["list", "--provider", "placeholder", "--per-page", "3", "--format", "jsonl"], environment: environment)
            #expect(list.status == 0, "\(list.stderr)")
            #expect(list.stderr.contains("has a\(folder == "opened" ? "n" : "") \(folder) folder photos did not make (it holds notes.txt)"), "\(list.stderr)")
            let clear = try await photos.run(["cache", "clear"], environment: environment)
            #expect(clear.status == 69, "\(clear.stderr)")
            #expect(clear.stderr == "photos: error: the cache is unavailable: the cache folder \(mine.path) has a\(folder == "opened" ? "n" : "") \(folder) "
                + "folder photos did not make (it holds notes.txt); photos leaves it alone: set PHOTOS_CACHE_DIR to a folder of its own\n", "\(clear.stderr)")
            #expect(try String(contentsOf: notes, encoding: .utf8) == "mine\n", "the user's file is where it was")
            let names = try FileManager.default.contentsOfDirectory(atPath: mine.path)
            #expect(names == [folder], "nothing of photos' beside it: \(names)")
        }
    }

    /// A FIFO where the index belongs: every command says so and goes on or exits 69, none
    /// waits on it (`cache clear` opened it to read its version and blocked forever).
    @Test func aFIFOInPlaceOfTheIndexIsSaidAndBlocksNothing() async throws {
        try await withServer { _, photos in
            let listed = try await photos.run(["list", "--provider", "placeholder", "--per-page", "2", "--no-thumbnails"])
            #expect(listed.status == 0, "\(listed.stderr)")
            let index = photos.cacheFolder.appendingPathComponent("index.sqlite").path
            for suffix in ["", "-wal", "-shm"] { unlink(index + suffix) }
            #expect(mkfifo(index, 0o600) == 0)
            for arguments in [["cache", "clear"], ["cache", "stats"], ["cache", "prune"], ["list", "--provider", "placeholder", "--per-page", "2", "--no-thumbnails"]] {
                let running = try photos.start(arguments)
                let deadline = Date().addingTimeInterval(60)
                while running.process.isRunning, Date() < deadline { try await Task.sleep(for: .milliseconds(20)) }
                if running.process.isRunning {
                    kill(running.process.processIdentifier, SIGKILL)
                    Issue.record("\(arguments) blocked on the FIFO")
                }
                let run = try await running.finish()
                #expect(run.stderr.contains("is a FIFO (named pipe), not a file"), "\(arguments): \(run.stderr)")
                #expect(run.status == (arguments[0] == "list" ? 0 : 69), "\(arguments): \(run.status)")
            }
            // A folder there is said as what it is, with what to do (it said "unable to open
            // database file").
            unlink(index)
            #expect(mkdir(index, 0o700) == 0)
            for arguments in [["cache", "stats"], ["list", "--provider", "placeholder", "--per-page", "2", "--no-thumbnails"]] {
                let run = try await photos.run(arguments)
                #expect(run.stderr.contains("index.sqlite is a folder, not a file; remove it and photos makes a new index"), "\(arguments): \(run.stderr)")
                #expect(run.status == (arguments[0] == "list" ? 0 : 69), "\(arguments): \(run.status)")
            }
            // So is one where its journal's files belong (it said "unable to open database
            // file", or "attempt to write a readonly database").
            rmdir(index)
            for suffix in ["-wal", "-shm"] {
                let made = try await photos.run(["list", "--provider", "placeholder", "--per-page", "2", "--no-thumbnails"])
                #expect(made.status == 0 && !made.stderr.contains("warning"), "\(made.stderr)")
                unlink(index + suffix)
                #expect(mkdir(index + suffix, 0o700) == 0)
                for arguments in [["cache", "stats"], ["list", "--provider", "placeholder", "--per-page", "2", "--no-thumbnails", "--refresh"]] {
                    let run = try await photos.run(arguments)
                    #expect(run.stderr.contains("index.sqlite\(suffix) is a folder, not a file (one of the index's journal files); remove it and photos makes a new one"),
                        "\(suffix) \(arguments): \(run.stderr)")
                    #expect(run.status == (arguments[0] == "list" ? 0 : 69), "\(arguments): \(run.status)")
                }
                rmdir(index + suffix)
            }
        }
    }

    /// A relative cache folder is one cache per working folder: said, with the folder it is.
    @Test func aRelativeCacheFolderIsSaid() async throws {
        let photos = try Photos(server: nil)
        defer { photos.remove() }
        let name = "relative-cache-\(UUID().uuidString)"
        let relative = try await photos.run(["cache", "stats"], environment: ["PHOTOS_CACHE_DIR": name])
        #expect(relative.status == 0)
        let folder = FileManager.default.currentDirectoryPath + "/" + name
        #expect(relative.stderr.contains("is a relative path, '\(name)': the cache is "), "\(relative.stderr)")
        #expect(relative.stdout.contains(name) && !FileManager.default.fileExists(atPath: folder), "stats makes no folder: \(relative.stdout)")
        let absolute = try await photos.run(["cache", "stats"])
        #expect(absolute.status == 0 && absolute.stderr.isEmpty, "\(absolute.stderr)")
    }

    @Test func offlineWithNothingCachedExits69() async throws {
        let photos = try Photos(server: nil)
        defer { photos.remove() }
        let run = try await photos.run(["list", "--provider", "placeholder", "--query", "sunt", "--offline"])
        #expect(run.status == 69)
        #expect(run.stderr.contains("offline and nothing cached for placeholder search \"sunt\""))
        // No cache folder yet: the error says so (a mistyped PHOTOS_CACHE_DIR is the likely
        // cause), and none is made, nor an empty index in it.
        let noFolder = ": there is no cache at \(photos.cacheFolder.path) yet"
        #expect(run.stderr.contains("(30 per page)" + noFolder), "\(run.stderr)")
        // Several providers: said once for them all, not on a line each.
        let none = try await photos.run(["list", "--provider", "placeholder,commons,nasa", "--offline"])
        #expect(none.status == 69)
        #expect(none.stderr == "photos: error: offline and nothing cached for placeholder, commons and nasa\(noFolder) "
            + "(PHOTOS_CACHE_DIR or config [cache] dir says where); run it once without --offline\n", "\(none.stderr)")
        let shown = try await photos.run(["show", "placeholder:1", "--offline"])
        #expect(shown.status == 69 && shown.stderr.contains("photo placeholder:1" + noFolder), "\(shown.stderr)")
        // cache stats says the folder is not there, rather than showing an empty cache.
        let stats = try await photos.run(["cache", "stats"])
        #expect(stats.status == 0 && stats.stdout.contains("Folder        not there yet: the first run that fetches makes it"), "\(stats.stdout)")
        let statsJSON = try await photos.run(["cache", "stats", "--format", "json"])
        #expect(try statsJSON.json()["exists"] as? Bool == false)
        #expect(!FileManager.default.fileExists(atPath: photos.cacheFolder.path), "an offline run makes no cache folder")
        // With a cache that lacks them, each line names its own page.
        try FileManager.default.createDirectory(at: photos.cacheFolder, withIntermediateDirectories: true)
        let several = try await photos.run(["list", "--provider", "placeholder,commons,nasa", "--offline"])
        #expect(several.status == 69)
        let lines = several.stderr.split(separator: "\n")
        #expect(Set(lines.map { $0.split(separator: ":").prefix(3).joined(separator: ":") })
            == ["photos: error: placeholder", "photos: error: commons", "photos: error: nasa"], "\(several.stderr)")
        #expect(!several.stderr.contains("there is no cache"), "\(several.stderr)")
        let made = try await photos.run(["cache", "stats", "--format", "json"])
        let madeTable = try await photos.run(["cache", "stats"])
        #expect(try made.json()["exists"] as? Bool == true && !madeTable.stdout.contains("Folder"), "\(madeTable.stdout)")
        let both = try await photos.run(["list", "--offline", "--refresh"])
        #expect(both.status == 64)
    }

    @Test func staleIfErrorWarnsWithTheAgeAndExitsZero() async throws {
        let server = try await FixtureServer.start()
        let photos = try Photos(server: server)
        defer { photos.remove() }
        let first = try await photos.run(["list", "--provider", "placeholder", "--per-page", "4", "--no-thumbnails"])
        #expect(first.status == 0)
        try await server.shutdown()
        let stale = try await photos.run(["list", "--provider", "placeholder", "--per-page", "4", "--no-thumbnails", "--refresh", "--format", "json"])
        #expect(stale.status == 0, "\(stale.stderr)")
        #expect(stale.stderr.contains("warning: placeholder: could not refresh, showing the cached listing from"))
        #expect(stale.stderr.contains(" ago: ") && stale.stderr.contains("127.0.0.1"))
        #expect(try stale.json()["cached"] as? Bool == true)
        let expired = try await photos.run(["list", "--provider", "placeholder", "--per-page", "4", "--no-thumbnails"], environment: ["PHOTOS_CACHE_LISTING_TTL_SECONDS": "0"])
        #expect(expired.status == 0 && expired.stderr.contains("could not refresh"))
    }

    @Test func theFlickrAPIKeyIsNeverWrittenToTheCache() async throws {
        try await withServer { _, photos in
            let key = "k3y-\(UUID().uuidString.prefix(8))"
            // The emulation accepts one key only; use it, then a distinctive one that fails.
            for (arguments, environment) in [
                (["list", "--provider", "flickr", "--query", "dogs", "--per-page", "10", "--format", "json"], [String: String]()),
                (["list", "--provider", "flickr", "--format", "json"], [:]),
                (["show", "flickr:53624890009", "--open"], ["PHOTOS_OPENER": "true"]),
                (["list", "--provider", "flickr", "--query", "cats"], ["FLICKR_API_KEY": key]),
            ] {
                _ = try await photos.run(arguments, environment: environment)
            }
            let stats = try await photos.run(["cache", "stats", "--format", "json"])
            #expect((try stats.json()["images"] as? Int ?? 0) > 5)
            let needles = [FixtureProviderEmulation.validFlickrAPIKey, key].map { Data($0.utf8) }
            let files = FileManager.default.enumerator(atPath: photos.cacheFolder.path)?.compactMap { $0 as? String } ?? []
            #expect(files.contains("index.sqlite"))
            for file in files {
                guard let data = try? Data(contentsOf: photos.cacheFolder.appendingPathComponent(file)) else { continue }
                for needle in needles {
                    #expect(data.range(of: needle) == nil, "\(file) holds the API key")
                }
            }
        }
    }

    /// The binary runs with no descriptor of the test process but stdin, stdout and stderr: the
    /// tests' servers and files, hundreds at a time, are not the command's to hold.
    @Test func runsInheritNoDescriptorButTheStandardThree() async throws {
        let folder = try TemporaryFolder()
        let out = folder.url.appendingPathComponent("out")
        _ = FileManager.default.createFile(atPath: out.path, contents: nil)
        let handle = try FileHandle(forWritingTo: out)
        let held = try FileHandle(forReadingFrom: out)  // open here, and must not be there
        let child = try SpawnedProcess(
            "/bin/ls", arguments: ["/proc/self/fd"], environment: [:], standardOutput: handle.fileDescriptor,
            standardError: handle.fileDescriptor)
        child.waitUntilExit()
        try handle.close()
        try held.close()
        #expect(child.terminationReason == .exit && child.terminationStatus == 0)
        // ls lists 0, 1, 2 and the descriptor it reads the folder with.
        let listed = String(decoding: try Data(contentsOf: out), as: UTF8.self).split(separator: "\n").compactMap { Int($0) }
        #expect(listed.count == 4 && listed.prefix(3) == [0, 1, 2], "\(listed)")
    }

    /// Offline, a table neither fetches thumbnails nor shows them: it does not look them up, nor
    /// say that they are not cached. JSON lines, which name each thumbnail's file, still do.
    @Test func anOfflineTableLooksUpNoThumbnails() async throws {
        try await withServer { _, photos in
            let listing = ["list", "--provider", "flickr", "--query", "dogs", "--per-page", "10"]
            #expect(try await photos.run(listing + ["--no-thumbnails"]).status == 0)
            let table = try await photos.run(listing + ["--offline", "--format", "table"])
            #expect(table.status == 0 && table.stdout.contains("flickr:"))
            #expect(!table.stderr.contains("thumbnails"), "\(table.stderr)")
            let lines = try await photos.run(listing + ["--offline", "--format", "jsonl"])
            #expect(lines.status == 0 && lines.stderr.contains("thumbnails are not cached (--offline)"), "\(lines.stderr)")
        }
    }

    @Test func clearTakesProvidersAsTheOtherCommandsDo() async throws {
        try await withServer { _, photos in
            _ = try await photos.run(["list", "--provider", "flickr", "--query", "dogs", "--per-page", "10"])
            _ = try await photos.run(["list", "--provider", "placeholder", "--per-page", "3"])
            _ = try await photos.run(["list", "--provider", "commons", "--query", "dogs", "--per-page", "2"])
            let two = try await photos.run(["cache", "clear", "--provider", "flickr, placeholder", "--format", "json"])
            #expect(two.status == 0, "\(two.stderr)")
            let removed = try two.json()
            #expect(removed["provider"] as? String == "flickr,placeholder" && removed["images"] as? Int == 11, "\(two.stdout)")
            #expect(try (await photos.run(["cache", "stats", "--format", "json"])).json()["listings"] as? Int == 1, "commons' listing stays")
            let unknown = try await photos.run(["cache", "clear", "--provider", "commons,bogus"])
            #expect(unknown.status == 64 && unknown.stderr.contains("unknown provider 'bogus'") && unknown.stderr.contains("leave out --provider"))
            #expect(try (await photos.run(["cache", "stats", "--format", "json"])).json()["listings"] as? Int == 1, "nothing cleared on a mistake")
            let all = try await photos.run(["cache", "clear", "--provider", "all"])
            #expect(all.status == 0 && all.stderr.hasPrefix("Removed 2 images"), "\(all.stderr)")
            let stats = try (await photos.run(["cache", "stats", "--format", "json"])).json()
            #expect(stats["listings"] as? Int == 0 && stats["images"] as? Int == 0)
        }
    }

    @Test func clearByProviderAndAll() async throws {
        try await withServer { _, photos in
            _ = try await photos.run(["list", "--provider", "flickr", "--query", "dogs", "--per-page", "10"])
            _ = try await photos.run(["list", "--provider", "placeholder", "--per-page", "3"])
            let cleared = try await photos.run(["cache", "clear", "--provider", "flickr"])
            #expect(cleared.status == 0 && cleared.stderr.contains("Removed 8 images"))
            let stats = try (await photos.run(["cache", "stats", "--format", "json"])).json()
            #expect(stats["listings"] as? Int == 1 && stats["images"] as? Int == 3)
            let offline = try await photos.run(["list", "--provider", "flickr", "--query", "dogs", "--per-page", "10", "--offline"])
            #expect(offline.status == 69)
            let all = try await photos.run(["cache", "clear", "--format", "json"])
            #expect(all.status == 0 && all.stderr.isEmpty, "\(all.stderr)")
            let removed = try all.json()
            #expect(removed["provider"] is NSNull && removed["images"] as? Int == 3, "\(all.stdout)")
            #expect(removed["image_bytes"] as? Int == stats["image_bytes"] as? Int)
            _ = try await photos.run(["list", "--provider", "placeholder", "--per-page", "1"])
            let one = try await photos.run(["cache", "clear"])
            #expect(one.stderr.hasPrefix("Removed 1 image ("), "one image is not '1 images': \(one.stderr)")
            let empty = try (await photos.run(["cache", "stats", "--format", "json"])).json()
            #expect(empty["listings"] as? Int == 0 && empty["images"] as? Int == 0)
            let pruned = try await photos.run(["cache", "prune", "--format", "json"])
            #expect(pruned.status == 0 && pruned.stderr.isEmpty, "\(pruned.stderr)")
            let prune = try pruned.json()
            #expect(prune["evicted_images"] as? Int == 0 && prune["evicted_bytes"] as? Int == 0, "\(pruned.stdout)")
            // The size it says is the one cache stats says (the files on the disk) after it.
            let after = try (await photos.run(["cache", "stats", "--format", "json"])).json()
            #expect(prune["total_bytes"] as? Int == after["total_bytes"] as? Int && prune["max_bytes"] as? Int == empty["max_bytes"] as? Int,
                "\(String(describing: prune["total_bytes"])) \(String(describing: after["total_bytes"]))")
            #expect(try await photos.run(["cache", "prune"]).status == 0)
            #expect(try await photos.run(["cache", "clear", "--provider", "nope"]).status == 64)
        }
    }

    /// A folder where the lock file belongs: prune and clear, which need the lock, refuse and say
    /// why (prune said it had nothing to do, "0 B"), and a listing that cannot make room says so.
    @Test func aLockFileThatCannotBeOpenedIsSaidNotIgnored() async throws {
        try await withServer { _, photos in
            _ = try await photos.run(["list", "--provider", "placeholder", "--per-page", "3"])
            let lock = photos.cacheFolder.appendingPathComponent("cache.lock")
            try FileManager.default.removeItem(at: lock)
            try FileManager.default.createDirectory(at: lock, withIntermediateDirectories: false)
            for arguments in [["cache", "prune", "--format", "json"], ["cache", "clear"]] {
                let run = try await photos.run(arguments)
                #expect(run.status == 69 && run.stdout.isEmpty, "\(arguments): \(run.status) \(run.stdout)")
                #expect(run.stderr.contains("lock file \(lock.path) cannot be opened (Is a directory)"), "\(arguments): \(run.stderr)")
            }
            let stats = try (await photos.run(["cache", "stats", "--format", "json"])).json()
            #expect(stats["images"] as? Int == 3, "nothing was cleared without the lock")
            let full = try await photos.run(["list", "--provider", "placeholder", "--per-page", "5"], environment: ["PHOTOS_CACHE_MAX_SIZE_MB": "1"])
            #expect(full.status == 0 && full.stderr.contains("could not make room") && full.stderr.contains("cannot be opened"), "\(full.stderr)")
        }
    }

    /// A size cap smaller than one listing's thumbnails: the listing evicts, as it ends, images it
    /// printed the paths of. Every printed path exists, or a warning says that some are gone and
    /// which setting keeps them (146 of 199 were gone without a word).
    @Test func thumbnailsAListingEvictsAgainAreSaidToBeGone() async throws {
        try await withServer { _, photos in
            func paths(_ run: PhotosBinary.Run) throws -> [String] {
                let photos = try #require(try run.json()["photos"] as? [[String: Any]], "\(run.stdout)")
                return photos.compactMap { $0["thumbnail_path"] as? String }
            }
            let listing = ["list", "--provider", "placeholder", "--limit", "200", "--format", "json"]
            let small = try await photos.run(listing, environment: ["PHOTOS_CACHE_MAX_SIZE_MB": "1"])
            #expect(small.status == 0, "\(small.stderr)")
            let gone = try paths(small).filter { !FileManager.default.fileExists(atPath: $0) }
            #expect(!gone.isEmpty, "200 thumbnails do not fit in 1 MiB")
            #expect(small.stderr.contains("the cache's size cap (1 MiB) is smaller than what this run used: \(gone.count) images it used were removed again"), "\(small.stderr)")
            #expect(small.stderr.contains("raise PHOTOS_CACHE_MAX_SIZE_MB"), "\(small.stderr)")
            // With room for them, every path printed is there, and nothing is said.
            let roomy = try await photos.run(listing, environment: ["PHOTOS_CACHE_MAX_SIZE_MB": "20"])
            #expect(roomy.status == 0 && roomy.stderr.isEmpty, "\(roomy.stderr)")
            let printed = try paths(roomy)
            #expect(printed.count > 150 && printed.allSatisfy { FileManager.default.fileExists(atPath: $0) }, "\(printed.count) paths")
        }
    }

    /// A size cap, TTL or count of recent searches that is not a number stops every command that
    /// uses it, but not `cache clear`, which uses none: it clears, saying the setting is bad (it
    /// refused, so a cache could not be cleared until the setting was mended).
    @Test func aBadCacheLimitDoesNotStopACacheClear() async throws {
        try await withServer { _, photos in
            let listed = try await photos.run(["list", "--provider", "placeholder", "--per-page", "3"])
            #expect(listed.status == 0, "\(listed.stderr)")
            let bad = ["PHOTOS_CACHE_MAX_SIZE_MB": "lots"]
            let stats = try await photos.run(["cache", "stats"], environment: bad)
            #expect(stats.status == 64 && stats.stderr.contains("PHOTOS_CACHE_MAX_SIZE_MB"), "\(stats.stderr)")
            let clear = try await photos.run(["cache", "clear"], environment: bad)
            #expect(clear.status == 0, "\(clear.stderr)")
            #expect(clear.stderr.contains("got 'lots' (this command does not use it"), "\(clear.stderr)")
            let after = try (await photos.run(["cache", "stats", "--format", "json"])).json()
            #expect(after["images"] as? Int == 0, "\(after)")
        }
    }

    /// `cache clear` leaves nothing of what it cleared in the index's files, write-ahead log
    /// included: not the searches (they are the user's own), not the photos' titles; and the
    /// index gives its room back.
    @Test func clearingTheCacheLeavesNoTraceOfWhatItHeld() async throws {
        try await withServer { _, photos in
            for page in 1...3 {
                let run = try await photos.run(["list", "--provider", "flickr", "--query", "many", "--page", "\(page)", "--per-page", "200", "--no-thumbnails"])
                #expect(run.status == 0, "\(run.stderr)")
            }
            _ = try await photos.run(["list", "--provider", "flickr", "--query", "a private search", "--no-thumbnails"])
            let clear = try await photos.run(["cache", "clear"])
            #expect(clear.status == 0, "\(clear.stderr)")
            var bytes = 0
            for name in ["index.sqlite", "index.sqlite-wal"] {
                let data = FileManager.default.contents(atPath: photos.cacheFolder.appendingPathComponent(name).path) ?? Data()
                bytes += data.count
                #expect(data.range(of: Data("a private search".utf8)) == nil, "\(name) holds the search")
                #expect(data.range(of: Data("Synthetic photo".utf8)) == nil, "\(name) holds a title")
            }
            #expect(bytes < 256 * 1024, "the index's files hold \(bytes) bytes")
        }
    }

    @Test(arguments: [["cache", "clear"], ["cache", "clear", "--provider", "placeholder"], ["cache", "prune"]])
    func maintenanceOfABrokenIndexRebuildsItAndEnds(arguments: [String]) async throws {
        try await withServer { _, photos in
            _ = try await photos.run(["list", "--provider", "placeholder", "--per-page", "3"])
            var garbage = SystemRandomNumberGenerator()
            // The index and its write-ahead log, where the run's pages still are (no checkpoint).
            for name in ["index.sqlite", "index.sqlite-wal"] {
                try Data((0..<65_536).map { _ in UInt8.random(in: 0...255, using: &garbage) })
                    .write(to: photos.cacheFolder.appendingPathComponent(name))
            }
            // The command rebuilt the index under the cache lock it held itself, and waited for
            // itself forever: given a deadline rather than left to hang the suite.
            let running = try photos.start(arguments)
            let deadline = Date().addingTimeInterval(20)
            while running.process.isRunning, Date() < deadline { try await Task.sleep(for: .milliseconds(20)) }
            let hung = running.process.isRunning
            if hung { kill(running.process.processIdentifier, SIGKILL) }
            let run = try await running.finish()
            #expect(!hung, "\(arguments) ended")
            #expect(run.status == 0, "\(arguments): \(run.stderr)")
            #expect(run.stderr.contains("the cache index was rebuilt"), "\(run.stderr)")
            #expect(try await photos.run(["cache", "stats"]).status == 0)
        }
    }

    @Test func aCacheFolderThatIsAFileIsSaidSoAndTheListingStillComes() async throws {
        try await withServer { _, photos in
            let file = photos.home.appendingPathComponent("not-a-folder")
            try Data().write(to: file)
            let run = try await photos.run(["list", "--provider", "placeholder", "--per-page", "3"], environment: ["PHOTOS_CACHE_DIR": file.path])
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.stdout.contains("placeholder:3"))
            let warnings = run.stderr.split(separator: "\n").filter { $0.hasPrefix("photos: warning: ") }
            #expect(warnings.count == 1, "the folder, once: \(run.stderr)")
            #expect(warnings.first?.contains("the cache folder \(file.path) is a file, not a folder") == true, "\(run.stderr)")
            // Thumbnails are not fetched with nowhere to keep them, and a note says so.
            #expect(run.stderr.contains("note: 3 of 3 thumbnails were not fetched: without the cache there is nowhere to keep them"), "\(run.stderr)")
            #expect(!run.stderr.contains("could not be stored"), "\(run.stderr)")
            // The cache commands say it the same way, and find no empty cache there.
            for command in [["cache", "clear"], ["cache", "prune"], ["cache", "stats"]] {
                let cache = try await photos.run(command, environment: ["PHOTOS_CACHE_DIR": file.path])
                #expect(cache.status == 69 && cache.stderr.contains("the cache folder \(file.path) is a file, not a folder"), "\(command): \(cache.stderr)")
                #expect(!cache.stderr.contains("File exists") && !cache.stdout.contains("0 pages"), "\(command): \(cache.stdout) \(cache.stderr)")
                // In one line, its error: not a warning that it goes on without the cache, then
                // an error that it cannot.
                #expect(cache.stderr.hasPrefix("photos: error: the cache is unavailable: the cache folder \(file.path) is a file")
                    && cache.stderr.split(separator: "\n").count == 1 && !cache.stderr.contains("continuing"), "\(command): \(cache.stderr)")
            }
        }
    }

    // MARK: Start-up

    /// libcurl and the imaging libraries are loaded on first use (CurlShim, ImagingShim): a
    /// command that needs none of them, such as `photos --version`, starts without them.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/readelf")))
    func linksNoLibraryItLoadsOnFirstUse() async throws {
        let readelf = try runProgram("/usr/bin/readelf", ["--dynamic", Photos.executable.path])
        let output = readelf.stdout
        #expect(readelf.status == 0)
        let needed = output.split(separator: "\n").filter { $0.contains("(NEEDED)") }
        #expect(!needed.isEmpty, "\(output)")
        for library in ["libcurl", "libchafa", "libglib", "libturbojpeg", "libpng", "libwebp"] {
            #expect(!needed.contains { $0.contains("[\(library)") }, "\(library) is linked")
        }
        let photos = try Photos(server: nil)
        defer { photos.remove() }
        #expect(try await photos.run(["--version"]).status == 0)
    }

    // MARK: Many processes

    @Test func eightProcessesTwentyRunsEachShareOneCache() async throws {
        try await withServer { _, photos in
            // A 1 MiB cap makes the processes evict while others list; TTL 0 makes them revalidate.
            let environment = ["PHOTOS_CACHE_MAX_SIZE_MB": "1", "PHOTOS_CACHE_LISTING_TTL_SECONDS": "0"]
            let failures = Warnings()
            let photos = photos
            await withTaskGroup(of: Void.self) { group in
                for worker in 0..<8 {
                    group.addTask {
                        for index in 0..<20 {
                            let page = String((worker + index) % 6 + 1)
                            let arguments: [String] = switch index % 4 {
                            case 0: ["list", "--provider", "placeholder", "--per-page", "12", "--page", page, "--format", "json"]
                            case 1: ["list", "--provider", "placeholder", "--per-page", "12", "--page", page, "--refresh"]
                            case 2: ["show", "placeholder:\(worker * 20 + index + 1)", "--format", "json"]
                            default: ["list", "--provider", "placeholder", "--query", "sunt", "--per-page", "8", "--page", String(index % 3 + 1), "--format", "jsonl"]
                            }
                            do {
                                let run = try await photos.run(arguments, environment: environment)
                                // Eight runs at once use more than the cap: a run may evict images it used
                                // itself, or another run the ones it found, which it says; any other
                                // warning is a failure.
                                let warnings = run.stderr.split(separator: "\n").filter {
                                    $0.contains("warning") && !$0.contains("is smaller than what this run used")
                                        && !$0.contains("removed from the cache while this listing ran")
                                }
                                if run.status != 0 || run.stderr.contains("locked") || !warnings.isEmpty {
                                    failures.sink("\(arguments.joined(separator: " ")): \(run.status) \(run.stderr)")
                                }
                            } catch {
                                failures.sink("\(arguments): \(error)")
                            }
                        }
                    }
                }
            }
            let failed = failures.all
            #expect(failed.isEmpty, "\(failed.prefix(5))")
            let cache = PhotoCache(configuration: CacheConfiguration(location: .path(photos.cacheFolder)))
            defer { cache.close() }
            #expect(try cache.integrityCheck() == "ok")
            let stats = try cache.statistics(lastRuns: 1000)
            #expect(stats.runs == 100, "the run log keeps the last 100 runs")
            // What the cap bounds (images and the index's live pages) is under it, whichever process
            // ended last; on the disk, the index's journal and free pages come on top.
            let bounded = try cache.totalBytes()
            #expect(bounded <= 1024 * 1024, "images and live index pages: \(bounded) (images \(stats.imageBytes), index files \(stats.indexBytes))")
            #expect(stats.totalBytes <= 1024 * 1024 + 200_000, "evicted back near the cap: \(stats.totalBytes) (images \(stats.imageBytes), index files \(stats.indexBytes))")
            #expect(partialFiles(under: photos.cacheFolder).isEmpty)
        }
    }

    // MARK: Ctrl-C

    /// A stop signal in the first milliseconds, while the command puts its handlers in place, is
    /// never lost: the command ends with the signal's code (or, before photos could handle it at
    /// all, is ended by the signal itself), never with 0 after doing all its work. Ignored until
    /// libdispatch took the signal over, about one trial in forty was lost.
    @Test func aSignalInTheFirstMillisecondsIsNeverLost() async throws {
        try await withServer(FixtureServerConfiguration(latencyMilliseconds: 400)) { _, photos in
            var lost: [String] = []
            for trial in 0..<60 {
                let signal = [SIGINT, SIGTERM, SIGHUP][trial % 3]
                let running = try photos.start(["list", "--provider", "flickr", "--query", "dogs", "--refresh", "--no-thumbnails"])
                // From 1 ms to 30 ms after the start: the window moves with the machine's speed.
                try await Task.sleep(for: .microseconds(1_000 + trial * 500))
                kill(running.process.processIdentifier, signal)
                let run = try await running.finish()
                let byItself = running.process.terminationReason == .uncaughtSignal && run.status == signal
                if run.status != 128 + signal && !byItself {
                    lost.append("signal \(signal) after \(1 + Double(trial) / 2) ms: exit \(run.status) \(run.stderr)")
                }
            }
            #expect(lost.isEmpty, "\(lost)")
        }
    }

    /// A signal ends photos when its output goes nowhere: stdout and stderr one full pipe (a
    /// terminal that reads nothing is the same). The message it says on leaving blocked on that
    /// pipe, and photos never ended (a grid to a stalled terminal went on for minutes).
    @Test func aSignalEndsPhotosWhoseOutputNobodyReads() async throws {
        try await withServer { _, photos in
            var ends: [Int32] = [0, 0]
            #expect(pipe(&ends) == 0)
            let (readEnd, writeEnd) = (ends[0], ends[1])
            defer { close(readEnd) }
            let process = try SpawnedProcess(
                PhotosBinary.executable.path, arguments: ["list", "--provider", "placeholder", "--per-page", "500", "--no-thumbnails", "--format", "jsonl"],
                environment: photos.environment, standardOutput: writeEnd, standardError: writeEnd)
            close(writeEnd)
            // Until the pipe is full (64 KiB of a listing of 150).
            func buffered() -> Int32 {
                var count: Int32 = 0
                _ = ioctl(readEnd, UInt(FIONREAD), &count)
                return count
            }
            let deadline = Date().addingTimeInterval(30)
            while buffered() < 60_000, Date() < deadline, process.isRunning { try await Task.sleep(for: .milliseconds(20)) }
            #expect(buffered() >= 60_000, "the listing filled the pipe")
            kill(process.processIdentifier, SIGTERM)
            let signalled = Date()
            while process.isRunning, Date().timeIntervalSince(signalled) < 10 { try await Task.sleep(for: .milliseconds(10)) }
            let ended = !process.isRunning
            if !ended {
                // Read what it waits to write, for it to end.
                var bytes = [UInt8](repeating: 0, count: 65_536)
                while process.isRunning { _ = read(readEnd, &bytes, bytes.count) }
            }
            #expect(ended, "still running 10 s after SIGTERM")
            #expect(process.terminationStatus == 143)
        }
    }

    /// `browse` gives the terminal back when a signal comes while the terminal reads nothing
    /// (a stalled connection) in the middle of a frame: it waited for the frame's write to end,
    /// then for the output to drain, and the runtime left first with the terminal raw, on the
    /// alternate screen, the cursor hidden, mouse reports on.
    @Test func browseGivesTheTerminalBackWhenASignalComesWhileNothingIsRead() async throws {
        try await withServer { _, photos in
            let master = open("/dev/ptmx", O_RDWR | O_NOCTTY)
            try #require(master >= 0)
            defer { close(master) }
            // unlockpt and ptsname, which Swift's Glibc does not export: TIOCSPTLCK and TIOCGPTN.
            var locked: Int32 = 0
            var number: UInt32 = 0
            #expect(ioctl(master, UInt(0x4004_5431), &locked) == 0 && ioctl(master, UInt(0x8004_5430), &number) == 0)
            let terminal = open("/dev/pts/\(number)", O_RDWR | O_NOCTTY)
            try #require(terminal >= 0)
            defer { close(terminal) }
            var size = winsize(ws_row: 40, ws_col: 160, ws_xpixel: 0, ws_ypixel: 0)
            _ = ioctl(master, UInt(TIOCSWINSZ), &size)
            var before = termios()
            tcgetattr(terminal, &before)
            /// What the terminal shows within `seconds` (all that photos wrote, read as it comes).
            func read(for seconds: Double) -> [UInt8] {
                var bytes: [UInt8] = []
                var chunk = [UInt8](repeating: 0, count: 65_536)
                let end = Date().addingTimeInterval(seconds)
                while Date() < end {
                    var ready = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
                    guard poll(&ready, 1, 50) > 0 else { continue }
                    let count = Glibc.read(master, &chunk, chunk.count)
                    if count <= 0 { break }
                    bytes += chunk[0..<count]
                }
                return bytes
            }
            var environment = photos.environment
            environment["TERM"] = "xterm-256color"
            let process = try SpawnedProcess(
                PhotosBinary.executable.path, arguments: ["browse", "--provider", "placeholder"], environment: environment,
                standardOutput: terminal, standardError: terminal, standardInput: terminal)
            let drawn = read(for: 4)
            #expect(drawn.count > 10_000, "the first screen: \(drawn.count) bytes")
            // A redraw the terminal does not read, then the signal.
            _ = Glibc.write(master, "G", 1)
            try await Task.sleep(for: .seconds(2))
            kill(process.processIdentifier, SIGTERM)
            let signalled = Date()
            while process.isRunning, Date().timeIntervalSince(signalled) < 10 { try await Task.sleep(for: .milliseconds(10)) }
            let ended = !process.isRunning
            let rest = read(for: ended ? 1 : 30)
            #expect(ended, "still running 10 s after SIGTERM, the terminal unread")
            #expect(process.terminationStatus == 143)
            let tail = String(decoding: rest.suffix(200), as: UTF8.self)
            #expect(tail.contains("\u{1B}[?1049l") && tail.contains("\u{1B}[?25h") && tail.contains("\u{1B}[?1000l"), "the screen is given back: \(tail.debugDescription)")
            var after = termios()
            tcgetattr(terminal, &after)
            #expect(after.c_lflag == before.c_lflag && after.c_iflag == before.c_iflag, "the terminal's modes are as before")
        }
    }

    /// Ctrl-C while `show --open` waits for its viewer ends photos at once (it waited for the
    /// viewer in a blocking call, and left only at the 0.9 s deadline); the viewer, a program of
    /// its own, stays open.
    @Test func aSignalWhileTheViewerIsOpenEndsPhotosAtOnce() async throws {
        try await withServer { _, photos in
            let started = photos.home.appendingPathComponent("viewer.pid")
            let viewer = photos.home.appendingPathComponent("viewer.sh")
            try "#!/bin/sh\necho $$ > '\(started.path).tmp' && mv '\(started.path).tmp' '\(started.path)'\nexec sleep 30\n".write(
                to: viewer, atomically: true, encoding: .utf8)
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: viewer.path)
            let running = try photos.start(["show", "placeholder:2", "--open"], environment: ["PHOTOS_OPENER": viewer.path])
            let deadline = Date().addingTimeInterval(20)
            while !FileManager.default.fileExists(atPath: started.path), Date() < deadline, running.process.isRunning {
                try await Task.sleep(for: .milliseconds(10))
            }
            let pid = try #require(Int32(try String(contentsOf: started, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)))
            defer { kill(pid, SIGKILL) }
            let signalled = Date()
            kill(running.process.processIdentifier, SIGINT)
            while running.process.isRunning, Date().timeIntervalSince(signalled) < 10 {
                try await Task.sleep(for: .milliseconds(5))
            }
            let elapsed = Date().timeIntervalSince(signalled)
            let run = try await running.finish()
            #expect(run.status == 130 && run.stderr.contains("interrupted"), "\(run.status) \(run.stderr)")
            #expect(elapsed < 0.7, "exited \(elapsed) s after Ctrl-C: the 0.9 s deadline, not at once")
            #expect(kill(pid, 0) == 0, "the viewer is still open")
        }
    }

    /// Ctrl-C while hundreds of thumbnails are on their way: none of their temp files is left in
    /// the cache, however many the transport still held when the command ended (the command
    /// left while the loop thread was still removing them).
    @Test func ctrlCWithHundredsOfThumbnailsOnTheirWayLeavesNoTempFile() async throws {
        try await withServer { server, photos in
            let cache = PhotoCache(configuration: CacheConfiguration(location: .path(photos.cacheFolder)))
            let slow = (1...400).map { index in
                Photo(
                    id: PhotoID(provider: "placeholder", raw: "\(index)"), title: "slow \(index)",
                    thumbnailURL: "\(server.url)/placeholder-img/150/\(String(0xb0000 + index, radix: 16))?slow_bps=300")
            }
            try cache.store(
                PhotoPage(page: 1, perPage: 400, total: 400, hasMore: false, photos: slow),
                key: ListingKey(provider: "placeholder", scope: photos.environment["PHOTOS_PLACEHOLDER_API"], query: ListQuery(page: 1, perPage: 400)),
                validators: HTTPValidators())
            cache.close()

            for round in 1...3 {
                let running = try photos.start(["list", "--provider", "placeholder", "--per-page", "400"])
                let deadline = Date().addingTimeInterval(20)
                while partialFiles(under: photos.cacheFolder).count < 300, Date() < deadline, running.process.isRunning {
                    try await Task.sleep(for: .milliseconds(20))
                }
                #expect(partialFiles(under: photos.cacheFolder).count >= 300, "round \(round): the thumbnails were under way")
                kill(running.process.processIdentifier, SIGINT)
                let run = try await running.finish()
                #expect(run.status == 130, "round \(round): \(run.stderr)")
                #expect(partialFiles(under: photos.cacheFolder).isEmpty, "round \(round): \(partialFiles(under: photos.cacheFolder).count) temp files left")
            }
        }
    }

    @Test(arguments: [(SIGINT, "interrupted"), (SIGTERM, "terminated"), (SIGHUP, "hung up")])
    func aSignalDuringThumbnailPrefetchExitsQuicklyKeepingWhatArrived(signal: Int32, said: String) async throws {
        try await withServer { server, photos in
            // A cached listing: two thumbnails arrive at once, three trickle in at 400 bytes a second.
            let cache = PhotoCache(configuration: CacheConfiguration(location: .path(photos.cacheFolder)))
            let slow = (1...5).map { index in
                Photo(
                    id: PhotoID(provider: "placeholder", raw: "\(index)"), title: "slow \(index)",
                    thumbnailURL: "\(server.url)/placeholder-img/150/\(String(0xa0000 + index, radix: 16))"
                        + (index > 2 ? "?slow_bps=400" : ""))
            }
            try cache.store(
                PhotoPage(page: 1, perPage: 5, total: 5, hasMore: false, photos: slow),
                // Kept as photos keeps pages of the fixture server's endpoint: apart from the real one's.
                key: ListingKey(provider: "placeholder", scope: photos.environment["PHOTOS_PLACEHOLDER_API"], query: ListQuery(page: 1, perPage: 5)),
                validators: HTTPValidators())
            cache.close()

            let running = try photos.start(["list", "--provider", "placeholder", "--per-page", "5"])
            let process = running.process
            let deadline = Date().addingTimeInterval(20)
            let images = photos.cacheFolder.appendingPathComponent("images")
            // Complete images carry their final name; temp files start with a dot.
            func arrived() -> Int {
                ((try? FileManager.default.contentsOfDirectory(atPath: images.path)) ?? []).filter { !$0.hasPrefix(".") }.count
            }
            while partialFiles(under: photos.cacheFolder).count < 3 || arrived() < 2, Date() < deadline, process.isRunning {
                try await Task.sleep(for: .milliseconds(20))
            }
            #expect(partialFiles(under: photos.cacheFolder).count == 3, "the slow prefetches were under way")
            let signalled = Date()
            kill(process.processIdentifier, signal)
            while process.isRunning, Date().timeIntervalSince(signalled) < 10 {
                try await Task.sleep(for: .milliseconds(5))
            }
            let elapsed = Date().timeIntervalSince(signalled)
            let run = try await running.finish()
            #expect(run.status == 128 + signal && process.terminationReason == .exit, "\(run.stderr)")
            // The command's own deadline is 0.9 s; the rest is slack for a loaded machine.
            #expect(elapsed < 3, "exited \(elapsed) s after the signal")
            #expect(run.stderr.contains(said))
            #expect(partialFiles(under: photos.cacheFolder).isEmpty)

            let offline = try await photos.run(["list", "--provider", "placeholder", "--per-page", "5", "--offline", "--format", "json"])
            let paths = try #require(try offline.json()["photos"] as? [[String: Any]]).compactMap { $0["thumbnail_path"] as? String }
            #expect(paths.count == 2, "the two thumbnails that arrived before the signal stay usable offline")
        }
    }
}
