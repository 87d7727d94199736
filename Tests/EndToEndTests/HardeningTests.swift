import FixtureServerKit
import Foundation
import GRDB
import PhotosTestSupport
import Testing

@testable import PhotosCache

/// Bad input from a user, a server or the disk: a documented exit code and one clear message,
/// never a crash, and nothing left behind.
@Suite struct HardeningTests {
    @Test func aPageNumberTooLargeForArithmeticIsNeverACrash() async throws {
        try await withServer { _, photos in
            let huge = String(Int.max)
            let flickr = try await photos.run(["list", "--provider", "flickr", "--query", "x", "--page", huge])
            #expect(flickr.status == 64, "\(flickr.stderr)")
            #expect(flickr.stderr.contains("first 4000 results"))
            let placeholder = try await photos.run(["list", "--provider", "placeholder", "--page", huge, "--no-thumbnails", "--all"])
            #expect(placeholder.status == 0, "\(placeholder.stderr)")
            #expect(placeholder.stderr.contains("is past the end: 500 photos make 17 pages of 30."), "\(placeholder.stderr)")
            // jsonl prints no line for it, and says why on stderr as the table does.
            let jsonl = try await photos.run(["list", "--provider", "placeholder", "--page", "99999", "--no-thumbnails", "--format", "jsonl"])
            #expect(jsonl.status == 0 && jsonl.stdout.isEmpty && jsonl.stderr.contains("Page 99999 is past the end: 500 photos make 17 pages of 30."), "\(jsonl.stderr)")
            // Providers that turn pages into offsets: a window error, not an overflow trap.
            for provider in ["nasa", "commons", "openverse"] {
                for page in [huge, "307445734561825862"] {
                    let run = try await photos.run(["list", "--provider", provider, "--query", "dogs", "--page", page, "--no-thumbnails"])
                    #expect(run.status == 64 && run.stderr.contains("serves"), "\(provider) --page \(page): \(run.status) \(run.stderr)")
                }
            }
            let save = try await photos.run(["save", "--provider", "openverse", "--query", "dogs", "--page", huge, "--to", photos.home.appendingPathComponent("out").path])
            #expect(save.status == 64, "\(save.status) \(save.stderr)")
            // A limit as large as an Int holds walks pages as any other.
            let limit = try await photos.run(["list", "--provider", "flickr", "--query", "dogs", "--limit", huge, "--no-thumbnails", "--format", "jsonl"])
            #expect(limit.status == 0, "\(limit.status) \(limit.stderr)")
            #expect(!limit.stdout.isEmpty)
        }
    }

    /// A photo a page holds twice is listed once, and the listing says so, whichever provider
    /// sent it (the recorded hostile searches of the keyless providers each repeat one record).
    @Test(arguments: ["commons", "openverse", "nasa"])
    func aPhotoSentTwiceIsListedOnceAndSaid(provider: String) async throws {
        try await withServer { _, photos in
            let run = try await photos.run(["list", "--provider", provider, "--query", "pwned", "--no-thumbnails", "--format", "jsonl"])
            #expect(run.status == 0, "\(run.stderr)")
            let ids = run.stdout.split(separator: "\n").compactMap { line in
                (try? JSONSerialization.jsonObject(with: Data(line.utf8))) .flatMap { ($0 as? [String: Any])?["id"] as? String }
            }
            #expect(!ids.isEmpty && Set(ids).count == ids.count, "\(ids)")
            #expect(run.stderr.contains("\(provider): 1 photo came twice and is listed once"), "\(run.stderr)")
            // From the cache, the same photos as they first came (the later copy, which differs,
            // did not overwrite the first).
            let cached = try await photos.run(["list", "--provider", provider, "--query", "pwned", "--no-thumbnails", "--format", "jsonl", "--offline"])
            #expect(cached.status == 0 && cached.stdout == run.stdout, "\(cached.stderr)\n\(cached.stdout)\n---\n\(run.stdout)")
        }
    }

    /// The argument parser quotes a wrong option or value back: an escape sequence in it (a
    /// pasted command line) is written out, never sent to the terminal.
    @Test func aWrongArgumentIsQuotedBackWithoutItsEscapeSequences() async throws {
        let photos = try PhotosBinary(server: nil)
        defer { photos.remove() }
        for arguments in [["list", "--\u{1B}[31mx"], ["list", "--format", "j\u{1B}]0;pwned\u{07}"], ["cache", "stats", "--format", "\u{9B}2J"]] {
            let run = try await photos.run(arguments)
            #expect(run.status == 64, "\(arguments): \(run.status)")
            #expect(!run.stderr.unicodeScalars.contains { $0.properties.generalCategory == .control && $0 != "\n" }, "\(run.stderr.debugDescription)")
            #expect(run.stderr.contains("\\u{1B}") || run.stderr.contains("\\u{9B}"), "the character is named: \(run.stderr)")
        }
    }

    /// A control character in a search or a filter (an escape sequence pasted with the words)
    /// is refused (64) and named: sent as it was, `--query $'sunt\e'` found nothing, and the
    /// message that said so showed the search as "sunt".
    @Test func aControlCharacterInASearchIsRefusedAndNamed() async throws {
        let photos = try PhotosBinary(server: nil)
        defer { photos.remove() }
        for (arguments, named) in [
            (["list", "--provider", "placeholder", "--query", "sunt\u{1B}"], "--query holds the control character \\u{1B}"),
            (["save", "--provider", "placeholder", "--query", "a\u{07}b", "--to", "out"], "--query holds the control character \\u{7}"),
            (["browse", "--query", "\u{9B}31mx"], "--query holds the control character \\u{9B}"),
            (["list", "--provider", "flickr", "--filter", "tags=a\u{1B}[31m"], "--filter tags= holds the control character \\u{1B}"),
            (["list", "--provider", "flickr", "--filter", "ta\u{1B}gs=a"], "--filter 'ta\\u{1B}gs' holds the control character \\u{1B} in its name"),
        ] {
            let run = try await photos.run(arguments)
            #expect(run.status == 64 && run.stderr.contains(named), "\(arguments): \(run.status) \(run.stderr)")
            #expect(!run.stderr.unicodeScalars.contains { $0.properties.generalCategory == .control && $0 != "\n" }, "\(run.stderr.debugDescription)")
        }
        // A tab is a space to a search: taken (here, nothing is cached for it).
        let tab = try await photos.run(["list", "--provider", "placeholder", "--query", "sunt\tculpa", "--offline"])
        #expect(tab.status == 69 && tab.stderr.contains("offline and nothing cached"), "\(tab.stderr)")
    }

    /// Every setting that names a provider's URL refuses what is not an http or https URL
    /// (64), before any request; `config show` says so too.
    @Test func anEndpointThatIsNotAWebURLIsRefused() async throws {
        try await withServer { _, photos in
            let settings = [
                ("PHOTOS_FLICKR_API", "flickr"), ("PHOTOS_FLICKR_STATIC", "flickr"), ("PHOTOS_PLACEHOLDER_API", "placeholder"),
                ("PHOTOS_COMMONS_API", "commons"), ("PHOTOS_OPENVERSE_API", "openverse"), ("PHOTOS_NASA_API", "nasa"),
            ]
            for (variable, provider) in settings {
                // A port past 65535 and a control character: libcurl said only "invalid URL" (69).
                for value in ["file:///etc", "notaurl", "https://127.0.0.1:99999/", "https://127.0.0.1/a\tb", "https://exa\u{1B}mple.org/"] {
                    let run = try await photos.run(["list", "--provider", provider, "--query", "dogs", "--refresh"], environment: [variable: value])
                    #expect(run.status == 64 && run.stderr.contains("\(variable) (config [\(provider)] ") && run.stderr.contains(") must be an http or https URL"), "\(variable)=\(value): \(run.status) \(run.stderr)")
                }
                // Said with what is wrong with a web URL that is refused.
                for (value, detail) in [
                    ("https://user:secret@example.org/", " without a user name or password"), ("https://127.0.0.1:99999/", " with a port from 1 to 65535"),
                    ("https://example.org/a b", " without spaces or control characters"),
                ] {
                    let run = try await photos.run(["list", "--provider", provider, "--query", "dogs", "--refresh"], environment: [variable: value])
                    #expect(run.status == 64 && run.stderr.contains(") must be an http or https URL" + detail), "\(variable)=\(value): \(run.stderr)")
                    #expect(!run.stderr.contains("secret"), "\(run.stderr)")
                    // config show and providers say the same before any command refuses it.
                    let shown = try await photos.run(["config", "show"], environment: [variable: value])
                    #expect(shown.stderr.contains("\(variable) (") && shown.stderr.contains("must be an http or https URL" + detail), "\(variable)=\(value): \(shown.stderr)")
                    #expect(!shown.stderr.contains("secret"), "\(shown.stderr)")
                    // (providers checks each provider's API endpoint; Flickr's image host is used later.)
                    guard variable != "PHOTOS_FLICKR_STATIC" else { continue }
                    let listed = try await photos.run(["providers", "--format", "json"], environment: [variable: value])
                    let entries = try #require(try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]])
                    let entry = try #require(entries.first { $0["name"] as? String == provider })
                    #expect(entry["configured"] as? Bool == false, "\(variable)=\(value): \(entry)")
                    let table = try await photos.run(["providers"], environment: [variable: value])
                    #expect(table.stdout.contains("must be an http or https URL" + detail), "\(variable)=\(value): \(table.stdout)")
                }
                let show = try await photos.run(["config", "show"], environment: [variable: "notaurl"])
                #expect(show.stderr.contains("\(variable) ("), "\(variable): \(show.stderr)")
            }
            // A CA file that is no PEM certificate is the user's setting (64), not a server whose
            // certificate failed (69).
            let notPEM = photos.home.appendingPathComponent("not-a-certificate.pem")
            try "just text\n".write(to: notPEM, atomically: true, encoding: .utf8)
            let run = try await photos.run(["list", "--provider", "commons", "--query", "dogs", "--refresh"], environment: ["PHOTOS_CA_BUNDLE": notPEM.path])
            #expect(run.status == 64 && run.stderr.contains("holds no PEM certificate"), "\(run.status) \(run.stderr)")
            let show = try await photos.run(["config", "show"], environment: ["PHOTOS_CA_BUNDLE": notPEM.path])
            #expect(show.status == 0 && show.stderr.contains("holds no PEM certificate"), "\(show.stderr)")
        }
    }

    @Test func aBodyThatIsNotAnImageIsNeverCachedAsOne() async throws {
        try await withServer { server, photos in
            // The image host answers its first request with a JSON error sent as a 200.
            let host = ["PHOTOS_FLICKR_STATIC": server.url + "/__faults/fail_first=1&status=200&key=not-an-image/flickr-static"]
            func thumbnail(_ run: PhotosBinary.Run) throws -> Any? {
                let line = try #require(run.stdout.split(separator: "\n").first { $0.contains("flickr:53619543218") }, "\(run.stdout)")
                return try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])["thumbnail_path"]
            }
            let first = try await photos.run(["list", "--provider", "flickr", "--query", "dogs", "--format", "jsonl"], environment: host)
            #expect(first.status == 0, "\(first.stderr)")
            #expect(try thumbnail(first) is NSNull, "an error page is no thumbnail")
            #expect(first.stderr.contains("not a JPEG, PNG, GIF or WebP image"), "\(first.stderr)")
            let stored = try FileManager.default.contentsOfDirectory(atPath: photos.cacheFolder.appendingPathComponent("images").path)
            for name in stored {
                let head = try Data(contentsOf: photos.cacheFolder.appendingPathComponent("images/" + name)).prefix(2)
                #expect(head == Data([0xFF, 0xD8]), "\(name) in the cache is not a JPEG")
            }
            // Asked again, now that the host sends the image, it is fetched and kept.
            let second = try await photos.run(["list", "--provider", "flickr", "--query", "dogs", "--format", "jsonl"], environment: host)
            let path = try #require(try thumbnail(second) as? String, "\(second.stderr)")
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)).prefix(2) == Data([0xFF, 0xD8]))
        }
    }

    @Test func aFullOutputExits74AndTheCacheStillRecordsTheRun() async throws {
        try await withServer { _, photos in
            let run = try runProgram(
                PhotosBinary.executable.path, ["list", "--provider", "placeholder", "--per-page", "5", "--format", "json"],
                environment: photos.environment, standardOutput: "/dev/full")
            let message = run.stderr
            #expect(run.status == 74, "\(message)")
            #expect(message.contains("cannot write the output: No space left on device"))
            #expect(message.split(separator: "\n").count == 1, "one line: \(message)")

            let stats = try await photos.run(["cache", "stats", "--format", "json"])
            #expect(try stats.json()["images"] as? Int == 5, "the thumbnails fetched before the failed write are recorded")
            #expect(try partialFiles(under: photos.cacheFolder).isEmpty)
        }
    }

    @Test(arguments: [["--version"], ["--version", "--verbose"], ["--help"], ["list", "--help"], ["--generate-completion-script", "bash"]])
    func helpAndVersionThatCannotBeWrittenExitSeventyFour(arguments: [String]) throws {
        let photos = try PhotosBinary(server: nil)
        defer { photos.remove() }
        let run = try runProgram(PhotosBinary.executable.path, arguments, environment: photos.environment, standardOutput: "/dev/full")
        #expect(run.status == 74, "\(arguments): \(run.stderr)")
        #expect(run.stderr == "photos: error: cannot write the output: No space left on device\n")
    }

    /// A standard stream closed at start (`>&-`) is said as such, and no file photos opens takes
    /// its descriptor: what is written to stdout or stderr never lands in the cache.
    @Test func aClosedStandardStreamIsSaidAndNoFileTakesItsPlace() async throws {
        try await withServer { _, photos in
            func shell(_ line: String) throws -> ProgramRun {
                try runProgram("/bin/sh", ["-c", line, PhotosBinary.executable.path], environment: photos.environment)
            }
            let list = "\"$0\" list --provider placeholder --per-page 5"
            let closedOut = try shell(list + " >&-")
            #expect(closedOut.status == 74)
            #expect(closedOut.stderr == "photos: error: cannot write the output: \(Self.closedOutput)\n", "\(closedOut.stderr)")
            for early in ["--version", "--help"] {
                let run = try shell("\"$0\" \(early) >&-")
                #expect(run.status == 74 && run.stderr.contains(Self.closedOutput), "\(early): \(run.stderr)")
            }

            let closedIn = try shell("\"$0\" save - <&-")
            #expect(closedIn.status == 64)
            #expect(closedIn.stderr.contains("the standard input is closed"), "\(closedIn.stderr)")

            // Warnings and notes to a closed stderr go nowhere; the listing is whole.
            let closedErr = try shell(list + " --offline 2>&-")
            #expect(closedErr.status == 0)
            #expect(closedErr.stdout.split(separator: "\n").count == 6, "a header and five photos: \(closedErr.stdout)")
            let stats = try await photos.run(["cache", "stats", "--format", "json"])
            let json = try stats.json()
            #expect(json["listings"] as? Int == 1 && json["images"] as? Int == 5, "the cache is sound: \(stats.stdout) \(stats.stderr)")
            #expect(try partialFiles(under: photos.cacheFolder).isEmpty)
        }
    }

    static let closedOutput = "the standard output is closed; send it to a file, or to /dev/null to discard it"

    @Test func aClosedPipeIsAQuietSuccess() async throws {
        try await withServer { _, photos in
            // About a megabyte of JSON Lines: far more than a pipe holds once head has gone.
            let shell = try runProgram(
                "/bin/bash",
                [
                    "-c",
                    "'\(PhotosBinary.executable.path)' list --provider placeholder --limit 2000 --per-page 100 --no-thumbnails --format jsonl | head -n 1 >/dev/null; echo \"${PIPESTATUS[0]}\"",
                ],
                environment: photos.environment)
            let status = shell.stdout
            let message = shell.stderr
            #expect(status == "0\n", "photos exited \(status)")
            #expect(message.isEmpty, "nothing said: \(message)")
            // Written in pieces, a full disk after the first is one error, 74.
            let full = try runProgram(
                "/bin/sh", ["-c", "exec \"$0\" list --provider placeholder --limit 2000 --per-page 100 --no-thumbnails --offline --format jsonl > /dev/full", PhotosBinary.executable.path],
                environment: photos.environment)
            #expect(full.status == 74, "\(full.status) \(full.stderr)")
            #expect(full.stderr.split(separator: "\n").count == 1 && full.stderr.contains("No space left on device"), "\(full.stderr)")
        }
    }

    @Test func theCacheIsTheUsersAlone() async throws {
        try await withServer { _, photos in
            let run = try await photos.run(["list", "--provider", "placeholder", "--per-page", "3"])
            #expect(run.status == 0)
            func mode(_ url: URL) throws -> Int {
                (try FileManager.default.attributesOfItem(atPath: url.path)[.posixPermissions] as? Int ?? 0) & 0o777
            }
            #expect(try mode(photos.cacheFolder) == 0o700)
            #expect(try mode(photos.cacheFolder.appendingPathComponent("index.sqlite")) == 0o600)
            #expect(try mode(photos.cacheFolder.appendingPathComponent("images")) == 0o700)
        }
    }

    /// An index a later photos made (a schema version past this one's) is left as it is and not
    /// used (it was used as current, and this photos wrote rows into tables it did not know);
    /// `cache clear` starts an empty one (it failed on the unknown tables, 69).
    @Test func anIndexOfANewerPhotosIsLeftAloneUntilACacheClear() async throws {
        try await withServer { _, photos in
            #expect(try await photos.run(["list", "--provider", "placeholder", "--per-page", "3"]).status == 0)
            let index = photos.cacheFolder.appendingPathComponent("index.sqlite").path
            func version() throws -> Int {
                let queue = try DatabaseQueue(path: index)
                defer { try? queue.close() }
                return try queue.read { try Int.fetchOne($0, sql: "PRAGMA user_version") } ?? 0
            }
            let current = try version()
            do {
                let queue = try DatabaseQueue(path: index)
                try await queue.write { db in
                    try db.execute(sql: "ALTER TABLE image RENAME COLUMN size TO size_bytes")
                    try db.execute(sql: "PRAGMA user_version = 999")
                }
                try queue.close()
            }
            let list = try await photos.run(["list", "--provider", "placeholder", "--per-page", "5", "--format", "json"])
            #expect(list.status == 0, "\(list.stderr)")
            #expect(list.stderr.contains("was made by a newer photos (schema 999; this one reads up to \(current))"), "\(list.stderr)")
            #expect(list.stderr.components(separatedBy: "warning:").count == 2, "one warning: \(list.stderr)")
            #expect(try version() == 999, "left as it is")
            // Even a clear of one provider empties the whole cache: no image is known any more.
            let clear = try await photos.run(["cache", "clear", "--provider", "placeholder"])
            #expect(clear.status == 0 && clear.stderr.contains("an empty one for this photos replaced it, and the whole cache is cleared"), "\(clear.stderr)")
            #expect(try version() == current)
            let images = photos.cacheFolder.appendingPathComponent("images").path
            let left = FileManager.default.enumerator(atPath: images)?.allObjects.compactMap { $0 as? String }.filter { $0.contains(".") } ?? []
            #expect(left.isEmpty, "\(left)")
            let stats = try await photos.run(["cache", "stats", "--format", "json"])
            #expect(try stats.status == 0 && (stats.json()["images"] as? Int) == 0, "\(stats.stderr)")
            #expect(try await photos.run(["list", "--provider", "placeholder", "--per-page", "3"]).status == 0)
        }
    }

    @Test func aTamperedFetchTimeIsRevalidatedNotACrash() async throws {
        try await withServer { _, photos in
            #expect(try await photos.run(["list", "--provider", "placeholder", "--per-page", "3", "--no-thumbnails"]).status == 0)
            let queue = try DatabaseQueue(path: photos.cacheFolder.appendingPathComponent("index.sqlite").path)
            try await queue.write { db in try db.execute(sql: "UPDATE listing SET fetched_at = -1e999") }
            try queue.close()

            let offline = try await photos.run(["list", "--provider", "placeholder", "--per-page", "3", "--offline", "--format", "json"])
            #expect(offline.status == 0, "\(offline.stderr)")
            #expect((try offline.json()["age_seconds"] as? Int).map { $0 > 1_000_000 } == true, "as old as can be")
            let normal = try await photos.run(["list", "--provider", "placeholder", "--per-page", "3", "--format", "json"])
            #expect(try normal.json()["age_seconds"] as? Int == 0, "an untrustworthy page is asked of the network again")
        }
    }

    @Test func aFullImageThatIsNotAnImageIsNeverOpened() async throws {
        let page: FixtureRouteHandler = { request in
            guard request.path.hasPrefix("/placeholder-img/600/") else { return nil }
            return .bytes(Array("<html><script>alert(1)</script></html>".utf8), contentType: "image/jpeg")
        }
        try await withServer(FixtureServerConfiguration(routes: [page])) { _, photos in
            let (opener, record) = try photos.recordingOpener(#"echo "$1" > RECORD"#)

            let run = try await photos.run(["show", "placeholder:2", "--open"], environment: ["PHOTOS_OPENER": opener.path])
            #expect(run.status == 65, "\(run.stderr)")
            #expect(run.stderr.contains("not a JPEG, PNG, GIF or WebP image"), "\(run.stderr)")
            #expect(!FileManager.default.fileExists(atPath: record.path), "the opener never ran")
        }
    }

    @Test func anImageOverTheSizeCapIsRefusedAndLeavesNothing() async throws {
        try await withServer { _, photos in
            let run = try await photos.run(
                ["show", "placeholder:2", "--open"], environment: ["PHOTOS_MAX_IMAGE_MB": "1", "PHOTOS_OPENER": "/bin/true"])
            #expect(run.status == 0, "a 600 px square is far below 1 MiB: \(run.stderr)")
            let bad = try await photos.run(["list", "--provider", "placeholder"], environment: ["PHOTOS_MAX_IMAGE_MB": "lots"])
            #expect(bad.status == 64)
            #expect(bad.stderr.contains("PHOTOS_MAX_IMAGE_MB"))
        }
    }
}
