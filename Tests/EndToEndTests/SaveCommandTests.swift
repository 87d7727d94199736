import FixtureServerKit
import Foundation
import Synchronization
import PhotosTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `photos save` end to end: the built binary against the fixture server over TLS and HTTP/2.
@Suite struct SaveCommandTests {
    static let large = FixtureFiles.image("large.jpg")

    /// Every regular file below `folder`, relative to it, sorted.
    static func files(under folder: URL) -> [String] {
        let root = folder.standardizedFileURL.path
        guard let enumerator = FileManager.default.enumerator(atPath: root) else { return [] }
        return enumerator.compactMap { $0 as? String }.filter { path in
            var isDirectory: ObjCBool = false
            return FileManager.default.fileExists(atPath: root + "/" + path, isDirectory: &isDirectory) && !isDirectory.boolValue
        }.sorted()
    }

    /// A Flickr search answer (the fields photos reads) for a route of a test's own.
    static func flickrListing(_ photos: [(id: String, title: String, owner: String, url: String)]) throws -> String {
        let records: [[String: Any]] = photos.map { photo in
            [
                "id": photo.id, "owner": "1@N01", "secret": "abc", "server": "1", "title": photo.title, "ownername": photo.owner,
                "url_o": photo.url, "width_o": 1024, "height_o": 768,
            ]
        }
        let body: [String: Any] = [
            "photos": ["page": 1, "pages": 1, "perpage": photos.count, "total": photos.count, "photo": records], "stat": "ok",
        ]
        return String(decoding: try JSONSerialization.data(withJSONObject: body), as: UTF8.self)
    }

    /// Serves `listing` as Flickr REST at `/<name>-rest/`; returns the endpoint for PHOTOS_FLICKR_API.
    static func route(_ server: FixtureServer, _ name: String, _ listing: String) -> String {
        server.addRoute { request in
            request.path == "/\(name)-rest/" ? .json(listing) : nil
        }
        return server.url + "/\(name)-rest/"
    }

    @Test func threeHundredPhotosOfAListingAreSavedAndARerunAsksForNothing() async throws {
        try await withServer { server, photos in
            let folder = try TemporaryFolder("save")
            let arguments = [
                "save", "--provider", "flickr", "--query", "many", "--limit", "300", "--size", "large", "--to", folder.url.path,
                "--format", "json",
            ]
            let run = try await photos.run(arguments)
            #expect(run.status == 0, "\(run.stderr)\(run.stdout)")
            let summary = try run.json()
            #expect(summary["saved"] as? Int == 300 && summary["skipped"] as? Int == 0)
            #expect((summary["failed"] as? [Any])?.isEmpty == true)
            let whole = try Data(contentsOf: Self.large)
            #expect(summary["bytes"] as? Int == 300 * whole.count)
            let files = Self.files(under: folder.url)
            #expect(files.count == 300)
            #expect(files.first == "flickr/flickr_5300000001.jpg" && files.last == "flickr/flickr_5300000300.jpg")
            for file in files.prefix(5) {
                #expect(try Data(contentsOf: folder.url.appendingPathComponent(file)) == whole)
            }
            #expect((1...4).contains(server.stats().connections), "no more connections than 303 requests need at 100 streams each")
            #expect(
                server.stats().requests == 304,
                "three listing requests (pages of 100), one per image, and a HEAD for the second of the two connections the 200 files in flight need, opened while the first page was on its way")

            server.resetStats()
            let again = try await photos.run(arguments)
            #expect(again.status == 0)
            let repeated = try again.json()
            #expect(repeated["saved"] as? Int == 0 && repeated["skipped"] as? Int == 300 && repeated["bytes"] as? Int == 0)
            #expect(server.stats().requests == 0, "a re-run asks for nothing: the listing is cached, the files are there")
        }
    }

    /// The page size a save chooses for walking pages is no `--per-page` of the user's: a
    /// provider serving smaller pages is said only when `--per-page` asked for more (a save of
    /// 60 from Commons warned "its pages hold 50, not 60").
    @Test func aProviderServingSmallerPagesIsSaidOnlyForATypedPageSize() async throws {
        try await withServer { _, photos in
            let folder = try TemporaryFolder("save-pages")
            let chosen = try await photos.run(["save", "--provider", "commons", "--limit", "60", "--to", folder.url.path, "--format", "json"])
            #expect(chosen.status == 0, "\(chosen.stderr)")
            #expect(!chosen.stderr.contains("serves at most"), "\(chosen.stderr)")
            let typed = try await photos.run(["save", "--provider", "commons", "--limit", "60", "--per-page", "100", "--to", folder.url.path, "--format", "json"])
            #expect(typed.status == 0, "\(typed.stderr)")
            #expect(typed.stderr.contains("commons: serves at most 50 photos a page, so its pages hold 50, not 100"), "\(typed.stderr)")
        }
    }

    /// Files are renamed into place without an fsync each (that would serialise a save of
    /// hundreds on the disk's journal). After a power cut a renamed file can be left empty; a
    /// re-run tells such a file of its own from a saved image and fetches it again.
    @Test func aRerunFetchesAgainAnOwnFileThatIsNoLongerAnImage() async throws {
        try await withServer { server, photos in
            let folder = try TemporaryFolder("save-emptied")
            let arguments = [
                "save", "--provider", "flickr", "--query", "many", "--limit", "3", "--size", "large", "--to", folder.url.path,
                "--format", "json",
            ]
            let first = try await photos.run(arguments)
            #expect(first.status == 0, "\(first.stderr)")
            let files = Self.files(under: folder.url)
            #expect(files.count == 3)
            let emptied = folder.url.appendingPathComponent(try #require(files.first))
            let whole = try Data(contentsOf: emptied)
            try Data().write(to: emptied)  // keeps the file and its extended attribute, as a power cut would

            server.resetStats()
            let again = try await photos.run(arguments)
            #expect(again.status == 0, "\(again.stderr)")
            let summary = try again.json()
            #expect(summary["saved"] as? Int == 1 && summary["skipped"] as? Int == 2)
            #expect(server.stats().requests == 1, "only the emptied file's image is asked for")
            #expect(try Data(contentsOf: emptied) == whole)
        }
    }

    /// A save for a larger size into a folder an earlier save filled saves the larger files over
    /// the smaller ones; one for a smaller size keeps the larger files and says so.
    @Test func aLargerSizeReplacesAnEarlierSaveAndASmallerOneKeepsIt() async throws {
        try await withServer { server, photos in
            let folder = try TemporaryFolder("save-sizes")
            let arguments = ["save", "--provider", "flickr", "--query", "many", "--limit", "4", "--to", folder.url.path, "--format", "json"]
            let small = try Data(contentsOf: FixtureFiles.image("sample.jpg"))
            let large = try Data(contentsOf: Self.large)
            func contents() throws -> [Data] {
                try Self.files(under: folder.url).map { try Data(contentsOf: folder.url.appendingPathComponent($0)) }
            }

            let first = try await photos.run(arguments + ["--size", "small"])
            #expect(first.status == 0, "\(first.stderr)")
            let names = Self.files(under: folder.url)
            #expect(names.count == 4)
            #expect(try contents() == Array(repeating: small, count: 4))

            server.resetStats()
            let larger = try await photos.run(arguments + ["--size", "original"])
            #expect(larger.status == 0, "\(larger.stderr)")
            let replaced = try larger.json()
            #expect(replaced["saved"] as? Int == 4 && replaced["skipped"] as? Int == 0, "\(larger.stdout)")
            #expect(Self.files(under: folder.url) == names, "the same names, no .part left")
            #expect(try contents() == Array(repeating: large, count: 4))
            #expect(!larger.stderr.contains("warning"), "\(larger.stderr)")

            server.resetStats()
            let smaller = try await photos.run(arguments + ["--size", "small"])
            #expect(smaller.status == 0, "\(smaller.stderr)")
            let kept = try smaller.json()
            #expect(kept["saved"] as? Int == 0 && kept["skipped"] as? Int == 4, "\(smaller.stdout)")
            #expect(try contents() == Array(repeating: large, count: 4))
            #expect(
                smaller.stderr.contains("warning: 4 photos were saved here earlier at a larger size than --size small, and kept"),
                "\(smaller.stderr)")
            #expect(server.stats().requests == 0, "the listing is cached and nothing is downloaded")

            let same = try await photos.run(arguments + ["--size", "original"])
            let unchanged = try same.json()
            #expect(same.status == 0 && unchanged["skipped"] as? Int == 4)
            #expect(same.stderr.isEmpty, "\(same.stderr)")
            #expect(server.stats().requests == 0)
        }
    }

    @Test func aSaveOpensConnectionsAsItsStreamsRunOutAndOneWhenTheConfigSaysSo() async throws {
        // The latency keeps the first page's downloads in flight while the next pages and their
        // downloads come: more than a hundred transfers at once, more than one connection's
        // streams. A config file with max_connections_per_host = 1 keeps them on one.
        try await withServer(FixtureServerConfiguration(latencyMilliseconds: 150)) { server, photos in
            let arguments = ["save", "--provider", "flickr", "--query", "many", "--limit", "250", "--size", "large", "--format", "json"]
            // Kept until the end: a folder released at once would be removed before the save
            // made it again, and left behind.
            let first = try TemporaryFolder("save"), second = try TemporaryFolder("save")
            let byNeed = try await photos.run(arguments + ["--to", first.url.path])
            #expect(byNeed.status == 0, "\(byNeed.stderr)")
            #expect(try byNeed.json()["saved"] as? Int == 250)
            #expect((2...3).contains(server.stats().connections), "253 requests, 100 streams per connection")

            server.resetStats()
            let config = photos.home.appendingPathComponent("one-connection.toml")
            try "[network]\nmax_connections_per_host = 1\n".write(to: config, atomically: true, encoding: .utf8)
            let one = try await photos.run(arguments + ["--to", second.url.path], environment: ["PHOTOS_CONFIG": config.path])
            #expect(one.status == 0, "\(one.stderr)")
            #expect(try one.json()["saved"] as? Int == 250)
            #expect(server.stats().connections == 1)
        }
    }

    /// Behind a proxy (`https_proxy`), a resumed save continues its `.part` files as it does
    /// without one: the proxy's own answer to CONNECT ("200 Connection established") is not the
    /// server's. It was taken for one: the file was emptied for a whole new body, then the 206
    /// that followed was written at the old offset, after zeros, and the image refused.
    @Test func anInterruptedSaveResumesBehindAProxy() async throws {
        try await withServer { server, photos in
            let stalled = (1...4).map { index in
                (id: "\(800 + index)", title: "proxied \(index)", owner: "o", url: "\(server.url)/images/large.jpg?stall_after=30000&n=\(index)")
            }
            let endpoint = Self.route(server, "proxied", try Self.flickrListing(stalled))
            let folder = try TemporaryFolder("save-proxy")
            let proxy = try ConnectProxy()
            defer { proxy.stop() }
            let environment = ["PHOTOS_FLICKR_API": endpoint, "https_proxy": proxy.url, "no_proxy": ""]
            let arguments = ["save", "--provider", "flickr", "--query", "proxied", "--to", folder.url.path, "--format", "json"]
            func partBytes() -> [Int] {
                Self.files(under: folder.url).filter { $0.hasSuffix(".part") }.map {
                    (try? FileManager.default.attributesOfItem(atPath: folder.url.appendingPathComponent($0).path)[.size] as? Int) ?? 0
                }
            }
            let running = try photos.start(arguments, environment: environment)
            let deadline = Date().addingTimeInterval(25)
            while partBytes().filter({ $0 == 30_000 }).count < 4, Date() < deadline, running.process.isRunning {
                try await Task.sleep(for: .milliseconds(20))
            }
            kill(running.process.processIdentifier, SIGINT)
            let interrupted = try await running.finish()
            #expect(interrupted.status == 130, "\(interrupted.stderr)")
            #expect(partBytes() == Array(repeating: 30_000, count: 4), "every .part is kept for the resume")

            server.resetStats()
            let tunnelsBefore = proxy.tunnels
            let resumed = try await photos.run(arguments, environment: environment)
            #expect(resumed.status == 0, "\(resumed.stderr)")
            #expect(try resumed.json()["saved"] as? Int == 4, "\(resumed.stdout)")
            #expect(proxy.tunnels > tunnelsBefore, "the resume went through the proxy")
            #expect(server.stats().ranges == 4, "the server saw a Range for every file")
            let whole = try Data(contentsOf: Self.large)
            let files = Self.files(under: folder.url)
            #expect(files.count == 4 && files.allSatisfy { !$0.hasSuffix(".part") }, "\(files)")
            for file in files { #expect(try Data(contentsOf: folder.url.appendingPathComponent(file)) == whole, "\(file)") }
        }
    }

    /// A proxy that fails is named as what failed, with what to do: one that asks for a
    /// password (said as the server's connection lost, before), one that refuses connections
    /// or whose name does not resolve (said as the server being unreachable, or as "curl 5",
    /// sending the user to look at a machine photos never reached).
    @Test func aProxyThatFailsIsNamedAsWhatFailed() async throws {
        try await withServer { _, photos in
            let asking = try ConnectProxy(refusing: "407 Proxy Authentication Required")
            defer { asking.stop() }
            let closed = try ClosedPort()
            let cases: [(proxy: String, says: String)] = [
                (asking.url, "(the proxy in https_proxy wants a user name and password (407); give them in it, as http://USER:PASSWORD@HOST:PORT)"),
                ("http://127.0.0.1:\(closed.port)", "(the proxy 127.0.0.1:\(closed.port) in https_proxy: connection refused)"),
                ("http://proxy.photos-test.invalid:3128", "(the proxy's name in https_proxy could not be resolved)"),
            ]
            for (proxy, says) in cases {
                let run = try await photos.run(
                    ["list", "--provider", "placeholder", "--no-thumbnails"], environment: ["https_proxy": proxy, "no_proxy": ""])
                #expect(run.status == 69, "\(proxy): \(run.stderr)")
                #expect(run.stderr.contains(says), "\(proxy): \(run.stderr)")
                #expect(!run.stderr.contains("was lost") && !run.stderr.contains("curl "), "\(proxy): \(run.stderr)")
            }
        }
    }

    /// An https:// URL to a port that serves something else than TLS (plain HTTP) is said as
    /// that, not as a certificate to trust; and a certificate that the CA file given does not
    /// verify names that file instead of asking for one.
    @Test func tlsFailuresSayWhatToCheck() async throws {
        try await withServer { _, photos in
            let plain = try ConnectProxy()
            defer { plain.stop() }
            let notTLS = try await photos.run(
                ["list", "--provider", "placeholder", "--no-thumbnails"], environment: ["PHOTOS_PLACEHOLDER_API": "https://127.0.0.1:\(plain.port)"])
            #expect(notTLS.status == 69, "\(notTLS.stderr)")
            #expect(notTLS.stderr.contains("127.0.0.1:\(plain.port) does not answer in TLS on that port (it may serve plain HTTP there)"), "\(notTLS.stderr)")
            #expect(!notTLS.stderr.contains("PHOTOS_CA_BUNDLE"), "\(notTLS.stderr)")
            let otherCA = FixtureFiles.url("tls/other-ca.pem").path
            let wrongCA = try await photos.run(
                ["list", "--provider", "placeholder", "--no-thumbnails"], environment: ["PHOTOS_CA_BUNDLE": otherCA])
            #expect(wrongCA.status == 69, "\(wrongCA.stderr)")
            #expect(wrongCA.stderr.contains("neither by the system's CAs nor by those in \(otherCA) (PHOTOS_CA_BUNDLE)"), "\(wrongCA.stderr)")
            #expect(!wrongCA.stderr.contains("set PHOTOS_CA_BUNDLE"), "\(wrongCA.stderr)")
        }
    }

    /// Commons lists TIFF scans among bitmaps: their original is no image photos saves, so
    /// the largest of Commons' JPEG renderings is saved instead (the whole TIFF was downloaded,
    /// then refused as "not a JPEG, PNG, GIF or WebP image", on every run).
    @Test func aCommonsTIFFIsSavedAsItsLargestRendering() async throws {
        try await withServer { server, photos in
            let jpeg = Array(try Data(contentsOf: FixtureFiles.image("sample.jpg")))
            let upload = server.url + "/cm-tiff-upload"
            let answer = #"{"batchcomplete": true, "query": {"pages": [{"pageid": 9001, "ns": 6, "title": "File:Scan.tif", "index": 1, "imageinfo": [{"timestamp": "2020-01-01T00:00:00Z", "user": "u", "size": 48000000, "width": 4000, "height": 3000, "mime": "image/tiff", "thumburl": "\#(upload)/thumb/a/ab/Scan.tif/lossy-page1-330px-Scan.tif.jpg", "thumbwidth": 330, "thumbheight": 248, "url": "\#(upload)/a/ab/Scan.tif", "descriptionurl": "https://commons.wikimedia.org/wiki/File:Scan.tif"}]}]}}"#
            let tiffAsked = Mutex(0)
            server.addRoute { request in
                if request.path == "/cm-tiff/w/api.php" { return .json(answer) }
                if request.path.hasPrefix("/cm-tiff-upload/thumb/") { return .bytes(jpeg, contentType: "image/jpeg") }
                if request.path == "/cm-tiff-upload/a/ab/Scan.tif" {
                    tiffAsked.withLock { $0 += 1 }
                    return .bytes(Array("II*\u{0}".utf8) + Array(repeating: 0, count: 4096), contentType: "image/tiff")
                }
                return nil
            }
            let folder = try TemporaryFolder("save")
            let run = try await photos.run(
                ["save", "--provider", "commons", "--query", "scan", "--to", folder.url.path, "--format", "json"],
                environment: ["PHOTOS_COMMONS_API": server.url + "/cm-tiff/w/api.php"])
            #expect(run.status == 0, "\(run.stderr)")
            #expect(try run.json()["saved"] as? Int == 1, "\(run.stdout)")
            let saved = try Data(contentsOf: folder.url.appendingPathComponent("commons/commons_9001.jpg"))
            #expect(Array(saved) == jpeg, "the rendering, a JPEG")
            #expect(tiffAsked.withLock { $0 } == 0, "the TIFF is not downloaded")
        }
    }

    /// A body that ends early where nothing said its length (no Content-Length, the connection
    /// closed) is no photo: it was saved as one, and every later run skipped it. The same body
    /// whole is saved.
    @Test func anImageCutShortWithoutALengthIsNotSaved() async throws {
        try await withServer { _, photos in
            let jpeg = Array(try Data(contentsOf: FixtureFiles.image("large.jpg")))
            let cut = try CloseDelimitedServer(body: jpeg, sending: 20_000)
            defer { cut.stop() }
            let whole = try CloseDelimitedServer(body: jpeg, sending: jpeg.count)
            defer { whole.stop() }
            let folder = try TemporaryFolder("save-cut")
            func line(_ id: String, _ url: String) -> String {
                #"{"id": "flickr:\#(id)", "sizes": [{"label": "Large", "width": 1024, "height": 768, "url": "\#(url)"}]}"#
            }
            let input = folder.appending("input.jsonl")
            try (line("5300000001", cut.url) + "\n" + line("5300000002", whole.url) + "\n").write(to: input, atomically: true, encoding: .utf8)
            let piped = try runProgram("/bin/sh", ["-c", "exec \"$0\" save - --to \"$1\" --format json < \"$2\"", PhotosBinary.executable.path,
                folder.appending("out").path, input.path], environment: photos.environment)
            #expect(piped.status == 75, "\(piped.stderr)")
            #expect(piped.stdout.contains("the image ended early"), "\(piped.stdout)")
            let saved = Self.files(under: folder.appending("out"))
            #expect(saved == ["flickr/flickr_5300000002.jpg"], "\(saved)")
            #expect(try Data(contentsOf: folder.appending("out/flickr/flickr_5300000002.jpg")) == Data(jpeg))
        }
    }

    @Test func anInterruptedSaveResumesWithRanges() async throws {
        try await withServer { server, photos in
            // Every image stops after 30,000 of its 49,796 bytes and the save is interrupted there;
            // the rest of each (asked for with a Range) is shorter than that and comes whole.
            let stalled = (1...6).map { index in
                (id: "\(700 + index)", title: "stalled \(index)", owner: "o", url: "\(server.url)/images/large.jpg?stall_after=30000&n=\(index)")
            }
            let endpoint = Self.route(server, "stalled", try Self.flickrListing(stalled))
            let folder = try TemporaryFolder("save")
            let arguments = ["save", "--provider", "flickr", "--query", "stalled", "--to", folder.url.path]
            // The stalled transfers are never given up on before the interrupt, however slow a
            // loaded machine makes this test.
            let running = try photos.start(
                arguments + ["--format", "json"], environment: ["PHOTOS_FLICKR_API": endpoint, "PHOTOS_STALL_SECONDS": "600"])
            func parts() -> [String] { Self.files(under: folder.url).filter { $0.hasSuffix(".part") } }
            func partBytes() -> [Int] {
                parts().map { (try? FileManager.default.attributesOfItem(atPath: folder.url.appendingPathComponent($0).path)[.size] as? Int) ?? 0 }
            }
            let deadline = Date().addingTimeInterval(120)
            while partBytes().filter({ $0 == 30_000 }).count < 6, Date() < deadline, running.process.isRunning {
                try await Task.sleep(for: .milliseconds(20))
            }
            kill(running.process.processIdentifier, SIGINT)
            let interrupted = try await running.finish()
            #expect(interrupted.status == 130, "\(interrupted.stderr)")
            #expect(interrupted.stderr.contains("Stopped: 0 saved before the stop; run the same command again to resume"), "\(interrupted.stderr)")
            #expect(interrupted.stderr.hasSuffix("photos: error: interrupted\n"), "\(interrupted.stderr)")
            let summary = try interrupted.json()
            #expect(summary["saved"] as? Int == 0 && (summary["failed"] as? [Any])?.isEmpty == true, "the JSON summary of what was done: \(interrupted.stdout)")
            #expect(partBytes() == Array(repeating: 30_000, count: 6), "every .part is kept for the resume")
            #expect(Self.files(under: folder.url).allSatisfy { $0.hasSuffix(".part") }, "nothing half-written under a final name")

            server.resetStats()
            let resumed = try await photos.run(arguments + ["--format", "json"], environment: ["PHOTOS_FLICKR_API": endpoint])
            #expect(resumed.status == 0, "\(resumed.stderr)")
            #expect(try resumed.json()["saved"] as? Int == 6)
            #expect(server.stats().ranges == 6, "the server saw a Range for every file")
            let whole = try Data(contentsOf: Self.large)
            let files = Self.files(under: folder.url)
            #expect(files.count == 6 && parts().isEmpty)
            for file in files { #expect(try Data(contentsOf: folder.url.appendingPathComponent(file)) == whole) }
        }
    }

    @Test func hostileTitlesStayInsideTheFolder() async throws {
        try await withServer { server, photos in
            let titles = [
                "../../../../tmp/escaped", "/etc/passwd", "..", ".", ".hidden", "a/b/c", "C:\\evil", "CON", "bidi\u{202E}gpj.exe",
                "bell\u{07}\u{1B}[2Jclear", "new\nline", String(repeating: "日本", count: 200), "", "x.part", "same", "same", "SAME",
            ]
            let listing = titles.enumerated().map { index, title in
                (id: "\(800 + index)", title: title, owner: "../owner\(index % 2)", url: "\(server.url)/images/large.jpg")
            }
            let endpoint = Self.route(server, "hostile", try Self.flickrListing(listing))
            let parent = try TemporaryFolder("save")
            let folder = parent.url.appendingPathComponent("inside")
            let run = try await photos.run(
                ["save", "--provider", "flickr", "--query", "hostile", "--to", folder.path, "--name", "{owner}/{title}.{ext}", "--metadata"],
                environment: ["PHOTOS_FLICKR_API": endpoint])
            #expect(run.status == 0, "\(run.stderr)")
            #expect(try parent.contents() == ["inside"], "nothing outside --to")
            let files = Self.files(under: folder)
            #expect(files.filter { $0.hasSuffix(".jpg") }.count == titles.count, "every photo its own file: \(files)")
            #expect(files.filter { $0.hasSuffix(".jpg.json") }.count == titles.count)
            for file in files {
                let components = file.split(separator: "/")
                #expect(components.count == 2)
                #expect(components.allSatisfy { !$0.hasPrefix(".") && $0.utf8.count <= 255 }, "\(file.debugDescription)")
                #expect(!file.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) || $0 == "\u{202E}" })
            }
            #expect(Set(files.map { $0.split(separator: "/")[0] }) == ["_owner0", "_owner1"])
            #expect(files.contains("_owner0/same.jpg") && files.contains("_owner1/same.jpg") && files.contains("_owner0/SAME-2.jpg"),
                "names that differ only in case are told apart")
        }
    }

    @Test func aDeadHostFailsItsPhotosAndTheRestAreSaved() async throws {
        var configuration = FixtureServerConfiguration()
        configuration.placeholderImageBase = "https://127.0.0.1:9"  // nothing listens: connection refused
        try await withServer(configuration) { _, photos in
            let folder = try TemporaryFolder("save")
            let run = try await photos.run(
                ["save", "flickr:53624890009", "placeholder:1", "placeholder:2", "flickr:53625112784", "--to", folder.url.path, "--format", "json"])
            #expect(run.status == 75, "\(run.stderr)")
            let summary = try run.json()
            #expect(summary["saved"] as? Int == 2)
            let failed = try #require(summary["failed"] as? [[String: String]])
            #expect(failed.map { $0["id"] } == ["placeholder:1", "placeholder:2"])
            #expect(failed.allSatisfy { $0["error"]?.contains("127.0.0.1") == true }, "\(failed)")
            #expect(Self.files(under: folder.url) == ["flickr/flickr_53624890009.jpg", "flickr/flickr_53625112784.jpg"])

            let table = try await photos.run(["save", "placeholder:3", "--to", folder.url.path])
            #expect(table.status == 69, "nothing could be fetched")
            #expect(table.stderr.contains("placeholder:3: ") && table.stderr.contains("127.0.0.1"))
        }
    }

    /// A transfer cut short every time is a failure running the save again may mend: the
    /// summary says to, and the exit status is 75.
    @Test func aTransferCutShortIsOneToRetry() async throws {
        try await withServer { server, photos in
            let listing = [
                (id: "911", title: "cut", owner: "o", url: "\(server.url)/images/large.jpg?wrong_length=100"),
                (id: "912", title: "whole", owner: "o", url: "\(server.url)/images/sample.jpg"),
            ]
            let endpoint = Self.route(server, "cut", try Self.flickrListing(listing))
            let folder = try TemporaryFolder("save")
            let run = try await photos.run(
                ["save", "--provider", "flickr", "--query", "cut", "--to", folder.url.path], environment: ["PHOTOS_FLICKR_API": endpoint])
            #expect(run.status == 75, "\(run.stderr)")
            #expect(run.stderr.contains("flickr:911: "), "\(run.stderr)")
            #expect(run.stdout.contains("1 failed (run the same command again to retry)"), "\(run.stdout)")
        }
    }

    @Test func aBodyThatIsNotAnImageIsRefusedAndLeavesNoFile() async throws {
        try await withServer { server, photos in
            let listing = [
                (id: "901", title: "page", owner: "o", url: "\(server.url)/__html/photo.jpg"),
                (id: "902", title: "photo", owner: "o", url: "\(server.url)/images/large.jpg"),
            ]
            let endpoint = Self.route(server, "html", try Self.flickrListing(listing))
            let folder = try TemporaryFolder("save")
            let run = try await photos.run(
                ["save", "--provider", "flickr", "--query", "html", "--to", folder.url.path], environment: ["PHOTOS_FLICKR_API": endpoint])
            #expect(run.status == 75)
            #expect(run.stderr.contains("flickr:901: not a JPEG, PNG, GIF or WebP image"), "\(run.stderr)")
            #expect(Self.files(under: folder.url) == ["flickr/flickr_902.jpg"], "neither a file nor a .part for the page")
            #expect(run.stdout.hasPrefix("Saved 1 photo "))
        }
    }

    @Test func anImageTheCacheHoldsIsCopiedNotFetched() async throws {
        try await withServer { server, photos in
            let opened = try await photos.run(["show", "flickr:53624890009", "--open"], environment: ["PHOTOS_OPENER": "/bin/true"])
            #expect(opened.status == 0, "\(opened.stderr)")
            server.resetStats()
            let folder = try TemporaryFolder("save")
            let run = try await photos.run(["save", "flickr:53624890009", "--to", folder.url.path, "--format", "json"])
            #expect(run.status == 0, "\(run.stderr)")
            #expect(try run.json()["saved"] as? Int == 1)
            #expect(server.stats().requests == 0, "the detail show fetched was kept, and the image came from the cache")
            #expect(try Data(contentsOf: folder.appending("flickr/flickr_53624890009.jpg")) == Data(contentsOf: Self.large))
        }
    }

    @Test func photosListOutputOnStdinIsSaved() async throws {
        try await withServer { server, photos in
            let listed = try await photos.run(["list", "--provider", "flickr", "--query", "many", "--per-page", "20", "--format", "jsonl"])
            #expect(listed.status == 0)
            server.resetStats()
            let folder = try TemporaryFolder("save")
            let input = folder.appending("input.jsonl")
            // A cut-off object does not take the lines after it down with it, and a photo named
            // twice is saved once.
            let lines = listed.stdout + "{\"broken json\nflickr:53624890009\n\nnot an id\nflickr:53624890009\n"
            try lines.write(to: input, atomically: true, encoding: .utf8)
            // The binary's runs read /dev/null: a shell feeds the file instead.
            let shell = try runProgram(
                "/bin/sh",
                [
                    "-c", "exec \"$0\" save - --to \"$1\" --size small --format json < \"$2\"", PhotosBinary.executable.path,
                    folder.appending("piped").path, input.path,
                ],
                environment: photos.environment)
            let data = Data(shell.stdout.utf8)
            #expect(shell.status == 65, "the lines that name no photo fail, as bad input: \(shell.stderr)")
            #expect(!shell.stderr.contains("retry"), "running it again would not help")
            let summary = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
            #expect(summary["saved"] as? Int == 21)
            #expect(summary["skipped"] as? Int == 1, "the id given twice")
            let failed = try #require(summary["failed"] as? [[String: String]])
            #expect(failed.map { $0["id"] } == ["{\"broken json", "not an id"])
            #expect(Self.files(under: folder.appending("piped")).count == 21)
            #expect(server.stats().requests == 20 + 2 + 1, "20 images; getInfo and getSizes for the bare id and its image; no request per listed photo")
        }
    }

    /// A file photos did not save keeps its name, whatever it holds: the photo takes the next
    /// name, and is counted saved only once it is.
    @Test func aFileThatIsNotPhotosOwnIsNeverTakenForASavedPhoto() async throws {
        try await withServer { _, photos in
            let folder = try TemporaryFolder("save-foreign")
            let target = folder.appending("flickr")
            try FileManager.default.createDirectory(at: target, withIntermediateDirectories: true)
            let foreign: [(String, Data)] = [("flickr_53624890009.jpg", Data("my precious file".utf8)), ("flickr_53625112784.jpg", Data())]
            for (name, data) in foreign { try data.write(to: target.appendingPathComponent(name)) }
            let ids = ["flickr:53624890009", "flickr:53625112784"]
            let run = try await photos.run(["save"] + ids + ["--to", folder.url.path, "--size", "small", "--format", "json"])
            #expect(run.status == 0, "\(run.stderr)")
            let summary = try run.json()
            #expect(summary["saved"] as? Int == 2 && summary["skipped"] as? Int == 0, "\(run.stdout)")
            for (name, data) in foreign {
                #expect(try Data(contentsOf: target.appendingPathComponent(name)) == data, "\(name) is left as it was")
                let numbered = target.appendingPathComponent(name.replacingOccurrences(of: ".jpg", with: "-2.jpg"))
                let saved = try Data(contentsOf: numbered)
                #expect(saved.starts(with: [0xFF, 0xD8, 0xFF]), "the photo is saved beside it, a JPEG: \(numbered.lastPathComponent)")
            }
            #expect(run.stderr.contains("photos: note: 2 photos were saved under the next free name because a file photos did not save held the name"), "\(run.stderr)")
            let again = try await photos.run(["save"] + ids + ["--to", folder.url.path, "--size", "small", "--format", "json"])
            #expect(try again.json()["skipped"] as? Int == 2, "a re-run finds its own files under their numbered names")

            // A name held by another photo's file (saved earlier): the next name, and nothing said
            // of a file photos did not save.
            let shared = folder.appending("shared")
            #expect(try await photos.run(["save", "placeholder:5", "--to", shared.path, "--name", "same.{ext}"]).status == 0)
            let other = try await photos.run(["save", "placeholder:6", "--to", shared.path, "--name", "same.{ext}"])
            #expect(other.status == 0 && Self.files(under: shared) == ["same-2.jpg", "same.jpg"], "\(Self.files(under: shared))")
            #expect(!other.stderr.contains("next free name"), "\(other.stderr)")

            // A link where NAME.part or NAME belongs, or a folder at NAME, is not written through:
            // the photo takes the next name, what the link points at is untouched, and the save
            // says so, as of a file photos did not save.
            let outside = folder.appending("outside.txt")
            try Data("not yours".utf8).write(to: outside)
            let linked = folder.appending("linked")
            try FileManager.default.createDirectory(at: linked.appendingPathComponent("placeholder/placeholder_9.jpg"), withIntermediateDirectories: true)
            try FileManager.default.createSymbolicLink(at: linked.appendingPathComponent("placeholder/placeholder_7.jpg.part"), withDestinationURL: outside)
            try FileManager.default.createSymbolicLink(at: linked.appendingPathComponent("placeholder/placeholder_8.jpg"), withDestinationURL: outside)
            let link = try await photos.run(["save", "placeholder:7", "placeholder:8", "placeholder:9", "--to", linked.path])
            #expect(link.status == 0, "\(link.stderr)")
            for number in 7...9 {
                #expect(FileManager.default.fileExists(atPath: linked.appendingPathComponent("placeholder/placeholder_\(number)-2.jpg").path),
                    "\(Self.files(under: linked))")
            }
            #expect(try Data(contentsOf: outside) == Data("not yours".utf8))
            #expect(link.stderr.contains("photos: note: 3 photos were saved under the next free name because a file photos did not save held the name"),
                "\(link.stderr)")
        }
    }

    /// A saved folder copied without its extended attributes (cp, rsync without -X, a backup)
    /// holds photos' images unmarked: a save into the copy takes each that is the same image
    /// as the photo's own, rather than saving it again as NAME-2, and the run after asks for
    /// nothing.
    @Test func aCopyOfASavedFolderIsRecognisedByItsBytes() async throws {
        try await withServer { server, photos in
            let folder = try TemporaryFolder("save-copied")
            let ids = ["flickr:53624890009", "flickr:53625112784", "placeholder:4"]
            let first = try await photos.run(["save"] + ids + ["--to", folder.appending("original").path, "--size", "small", "--metadata"])
            #expect(first.status == 0, "\(first.stderr)")
            let copy = folder.appending("copy")
            #expect(try runTool("/bin/cp", ["-r", folder.appending("original").path, copy.path]).status == 0, "a plain copy, without attributes")

            let run = try await photos.run(["save"] + ids + ["--to", copy.path, "--size", "small", "--metadata", "--format", "json"])
            #expect(run.status == 0, "\(run.stderr)")
            let summary = try run.json()
            #expect(summary["saved"] as? Int == 0 && summary["skipped"] as? Int == 3, "\(run.stdout)")
            #expect(!Self.files(under: copy).contains { $0.contains("-2") }, "\(Self.files(under: copy))")
            #expect(Self.files(under: copy) == Self.files(under: folder.appending("original")))
            #expect(!run.stderr.contains("next free name"), "\(run.stderr)")

            server.resetStats()
            let again = try await photos.run(["save"] + ids + ["--to", copy.path, "--size", "small", "--metadata", "--format", "json"])
            #expect(try again.json()["skipped"] as? Int == 3)
            #expect(server.stats().requests == 0, "marked as the photos' own now: nothing asked")
        }
    }

    /// A NAME.json that photos did not write (the user's notes) is never written over by
    /// --metadata, as an image's name is not: it takes the name, and the photo and its sidecar are
    /// saved under the next free one (the save failed with 75, "retry", and the retry then
    /// counted the photo as saved with no metadata written). Its own sidecar, from this run or an
    /// earlier one, is written again as before.
    @Test func metadataNeverWritesOverAFilePhotosDidNotWrite() async throws {
        try await withServer { _, photos in
            let folder = try TemporaryFolder("save-sidecar")
            let notes = folder.appending("flickr/flickr_53624890009.jpg.json")
            try FileManager.default.createDirectory(at: notes.deletingLastPathComponent(), withIntermediateDirectories: true)
            try "my notes\n".write(to: notes, atomically: true, encoding: .utf8)
            let run = try await photos.run(["save", "flickr:53624890009", "placeholder:4", "--to", folder.url.path, "--metadata", "--format", "json"])
            #expect(run.status == 0, "\(run.stderr)")
            #expect(try run.json()["saved"] as? Int == 2, "\(run.stdout)")
            #expect(run.stderr.contains("saved under the next free name because a file photos did not save held the name "
                + "(flickr/flickr_53624890009-2.jpg, as flickr/flickr_53624890009.jpg.json is not its own)"), "\(run.stderr)")
            #expect(try String(contentsOf: notes, encoding: .utf8) == "my notes\n")
            let moved = try JSONSerialization.jsonObject(with: Data(contentsOf: folder.appending("flickr/flickr_53624890009-2.jpg.json"))) as? [String: Any]
            #expect(moved?["id"] as? String == "flickr:53624890009" && FileManager.default.fileExists(atPath: folder.appending("flickr/flickr_53624890009-2.jpg").path))
            let rerun = try await photos.run(["save", "flickr:53624890009", "--to", folder.url.path, "--metadata", "--format", "json"])
            let skipped = try rerun.json()["skipped"] as? Int
            #expect(rerun.status == 0 && skipped == 1, "\(rerun.stdout) \(rerun.stderr)")
            let own = folder.appending("placeholder/placeholder_4.jpg.json")
            #expect(FileManager.default.fileExists(atPath: own.path))
            // Its own sidecar is rewritten when the image is saved again (here, for a larger size).
            let again = try await photos.run(["save", "placeholder:4", "--to", folder.url.path, "--metadata", "--size", "original"])
            #expect(again.status == 0, "\(again.stderr)")
            try FileManager.default.removeItem(at: notes)
            let third = try await photos.run(["save", "flickr:53624890009", "--to", folder.url.path, "--metadata"])
            #expect(third.status == 0, "\(third.stderr)")
            let written = try JSONSerialization.jsonObject(with: Data(contentsOf: notes)) as? [String: Any]
            #expect(written?["id"] as? String == "flickr:53624890009")

            // A photo saved earlier (without --metadata) beside which the user then put notes:
            // kept under its name, not saved a second time under the next one; said.
            let plain = folder.appending("plain")
            #expect(try await photos.run(["save", "placeholder:5", "--to", plain.path]).status == 0)
            let theirs = plain.appendingPathComponent("placeholder/placeholder_5.jpg.json")
            try "notes\n".write(to: theirs, atomically: true, encoding: .utf8)
            let later = try await photos.run(["save", "placeholder:5", "--to", plain.path, "--metadata", "--format", "json"])
            let laterSkipped = try later.json()["skipped"] as? Int
            #expect(later.status == 0 && laterSkipped == 1, "\(later.stdout) \(later.stderr)")
            #expect(Self.files(under: plain) == ["placeholder/placeholder_5.jpg", "placeholder/placeholder_5.jpg.json"], "\(Self.files(under: plain))")
            #expect(later.stderr.contains("1 photo saved earlier got no metadata: its NAME.json is a file photos did not write"), "\(later.stderr)")
            #expect(try String(contentsOf: theirs, encoding: .utf8) == "notes\n")
        }
    }

    /// A photo the provider has no detail for is saved from its listing's image whether the
    /// listing is walked by save itself or piped in as JSON Lines.
    @Test func aListingPipedInSavesWhatTheSameListingSaves() async throws {
        try await withServer { _, photos in
            let folder = try TemporaryFolder("save-agree")
            let walked = try await photos.run(["save", "--provider", "nasa", "--query", "dogs", "--to", folder.appending("walked").path, "--format", "json"])
            let walkedSummary = try walked.json()
            let listed = try await photos.run(["list", "--provider", "nasa", "--query", "dogs", "--format", "jsonl", "--no-thumbnails"])
            #expect(listed.status == 0)
            let input = folder.appending("input.jsonl")
            try listed.stdout.write(to: input, atomically: true, encoding: .utf8)
            let piped = try runProgram(
                "/bin/sh", ["-c", "exec \"$0\" save - --to \"$1\" --format json < \"$2\"", PhotosBinary.executable.path,
                    folder.appending("piped").path, input.path],
                environment: photos.environment)
            let pipedSummary = try #require(try JSONSerialization.jsonObject(with: Data(piped.stdout.utf8)) as? [String: Any])
            let saved = try #require(walkedSummary["saved"] as? Int)
            #expect(saved > 10, "\(walked.stdout)")
            #expect(pipedSummary["saved"] as? Int == saved, "\(piped.stdout) \(piped.stderr)")
            #expect((pipedSummary["failed"] as? [Any])?.count == (walkedSummary["failed"] as? [Any])?.count)
            #expect(walked.stderr.contains("no detail ("), "the fallback is said: \(walked.stderr)")
            #expect(!piped.stderr.contains("no detail ("), "a detail the provider does not have is not asked for again: \(piped.stderr)")
            // A photo that failed is said once, with one reason, and never as saved from its listing.
            let failed = try #require(walkedSummary["failed"] as? [[String: String]])
            #expect(!failed.isEmpty)
            for failure in failed {
                let id = try #require(failure["id"]), error = try #require(failure["error"])
                #expect(!error.contains(id), "the id is not said again in its reason: \(error)")
                #expect(!walked.stderr.contains("\(id): no detail"), "no warning that \(id) is saved after all: \(walked.stderr)")
            }
            #expect(Self.files(under: folder.appending("piped")).count == saved)
        }
    }

    /// A JSON line that gives an image with an id names no photo when the id is no provider's:
    /// refused as a typed id is (65), never saved under it. A good id is saved under the spelling
    /// its provider gives it.
    @Test func aPipedLineWithSizesIsCheckedAsAnIdIs() async throws {
        try await withServer { server, photos in
            let folder = try TemporaryFolder("save-piped-ids")
            func line(_ id: String) -> String {
                #"{"id": "\#(id)", "sizes": [{"label": "original", "width": 100, "height": 100, "url": "\#(server.url)/images/sample.jpg"}]}"#
            }
            func save(_ ids: [String], into name: String) throws -> ProgramRun {
                let input = folder.appending("\(name).jsonl")
                try (ids.map(line).joined(separator: "\n") + "\n").write(to: input, atomically: true, encoding: .utf8)
                return try runProgram(
                    "/bin/sh", ["-c", "exec \"$0\" save - --to \"$1\" --format json --metadata < \"$2\"", PhotosBinary.executable.path,
                        folder.appending(name).path, input.path],
                    environment: photos.environment)
            }
            let bad = try save(["nosuch:../../x", "flickr:12ab"], into: "bad")
            #expect(bad.status == 65, "\(bad.status) \(bad.stderr)")
            let summary = try #require(try JSONSerialization.jsonObject(with: Data(bad.stdout.utf8)) as? [String: Any], "\(bad.stdout)")
            let failed = try #require(summary["failed"] as? [[String: String]], "\(bad.stdout)")
            #expect(failed.map { $0["id"] ?? "" } == ["nosuch:../../x", "flickr:12ab"], "\(failed)")
            #expect(failed.first?["error"]?.contains("unknown provider 'nosuch'") == true && failed.last?["error"]?.contains("not a valid flickr photo id") == true, "\(failed)")
            #expect(summary["saved"] as? Int == 0 && Self.files(under: folder.appending("bad")).isEmpty, "\(Self.files(under: folder.appending("bad")))")

            let good = try save(["flickr:0053624890009"], into: "good")
            #expect(good.status == 0, "\(good.stderr)")
            #expect(Self.files(under: folder.appending("good")) == ["flickr/flickr_53624890009.jpg", "flickr/flickr_53624890009.jpg.json"], "\(Self.files(under: folder.appending("good")))")
        }
    }

    @Test func aSaveOfOnePageSaysTheSearchHasMore() async throws {
        try await withServer { _, photos in
            let folder = try TemporaryFolder("save-more")
            let page = try await photos.run(["save", "--provider", "flickr", "--query", "many", "--per-page", "3", "--size", "small", "--to", folder.url.path])
            #expect(page.status == 0, "\(page.stderr)")
            #expect(page.stderr.contains("flickr has more photos than this page: --limit N saves the first N, --all every one."), "\(page.stderr)")
            let limited = try await photos.run(["save", "--provider", "flickr", "--query", "many", "--limit", "3", "--size", "small", "--to", folder.url.path])
            #expect(limited.status == 0 && !limited.stderr.contains("more photos"), "a limit is what was asked for: \(limited.stderr)")
        }
    }

    /// `--refresh` asks for a listing cached minutes ago again, as `list --refresh` does; the
    /// files already saved are still skipped without a request.
    @Test func refreshAsksForTheListingAgainAndStillSkipsSavedFiles() async throws {
        try await withServer { server, photos in
            let folder = try TemporaryFolder("save-refresh")
            let arguments = ["save", "--provider", "flickr", "--query", "many", "--limit", "3", "--size", "small", "--to", folder.url.path]
            #expect(try await photos.run(arguments).status == 0)
            server.resetStats()
            let cached = try await photos.run(arguments)
            #expect(cached.status == 0 && server.stats().requests == 0, "the listing from the cache, the files there: \(server.stats().requests)")
            let refreshed = try await photos.run(arguments + ["--refresh", "--format", "json"])
            #expect(refreshed.status == 0, "\(refreshed.stderr)")
            #expect(server.stats().requests == 1, "the listing alone: \(server.stats().requests)")
            #expect(try refreshed.json()["skipped"] as? Int == 3)
            let ids = try await photos.run(["save", "flickr:53624890009", "--refresh", "--to", folder.url.path])
            #expect(ids.status == 64 && ids.stderr.contains("--refresh asks for a listing again"), "\(ids.stderr)")
        }
    }

    /// `photos save -` with the terminal as its input says that it reads from it, and how the
    /// list ends, instead of waiting without a word (`script` gives it a terminal).
    @Test func idsTypedAtTheTerminalAreAskedForAndEndWithControlD() async throws {
        try await withServer { _, photos in
            let folder = try TemporaryFolder("save-typed")
            let run = try runProgram(
                "/bin/sh",
                ["-c", "printf 'placeholder:1\\n\\004' | script -qec \"'$0' save - --to '$1'\" /dev/null", PhotosBinary.executable.path, folder.url.path],
                environment: photos.environment)
            #expect(run.status == 0, "\(run.stdout) \(run.stderr)")
            #expect(run.stdout.contains("Reading photo ids from the terminal, one a line; Ctrl-D ends the list."), "\(run.stdout)")
            #expect(Self.files(under: folder.url) == ["placeholder/placeholder_1.jpg"])
        }
    }

    /// A terminal whose type is not known (TERM unset or empty, as under `env -i` or some
    /// service managers) gets no progress bar: its cursor moves and line erasing may print as
    /// garbage. A known TERM on the same terminal does get one (`script` gives it a terminal).
    @Test(arguments: ["xterm-256color", nil, ""])
    func aTerminalOfUnknownTypeGetsNoProgressBar(term: String?) async throws {
        try await withServer(FixtureServerConfiguration(latencyMilliseconds: 100)) { _, photos in
            let folder = try TemporaryFolder("save-term")
            var environment = photos.environment
            environment["TERM"] = term
            let run = try runProgram(
                "/bin/sh",
                ["-c", "script -qec \"'$0' save --provider placeholder --limit 40 --to '$1'\" /dev/null", PhotosBinary.executable.path, folder.url.path],
                environment: environment)
            #expect(run.status == 0, "\(run.stdout) \(run.stderr)")
            #expect(Self.files(under: folder.url).count == 40)
            #expect(run.stdout.contains("Saved 40"), "\(run.stdout)")
            let drawn = run.stdout.contains("░") || run.stdout.contains("\u{1B}[")
            #expect(drawn == (term == "xterm-256color"), "TERM=\(term ?? "(unset)"): \(run.stdout.debugDescription)")
        }
    }

    /// A `--name` whose folder is a file an earlier save made is said as that, with the file's
    /// path, not in the system's words ("File exists"); the other photos are saved.
    @Test func aFileWhereTheNamePutsAFolderIsSaidAsSuch() async throws {
        try await withServer { _, photos in
            let folder = try TemporaryFolder("save-file-folder")
            let first = try await photos.run(["save", "placeholder:1", "--name", "{raw_id}", "--to", folder.url.path])
            #expect(first.status == 0, "\(first.stderr)")
            let run = try await photos.run(["save", "placeholder:1", "placeholder:2", "--name", "{raw_id}/photo.{ext}", "--to", folder.url.path])
            #expect(run.status == 74, "\(run.stderr)")
            #expect(run.stderr.contains("placeholder:1: cannot write \(folder.url.path)/1: \(folder.url.path)/1 is a file, where the name puts a folder"),
                "\(run.stderr)")
            #expect(!run.stderr.contains("File exists"), "\(run.stderr)")
            #expect(Self.files(under: folder.url) == ["1", "2/photo.jpg"])
        }
    }

    @Test func aCurrentFolderThatWasDeletedIsSaidAsSuch() async throws {
        try await withServer { _, photos in
            let folder = try TemporaryFolder("save-gone")
            let gone = folder.appending("gone").path
            let run = try runProgram(
                "/bin/sh", ["-c", "mkdir \"$1\" && cd \"$1\" && rmdir \"$1\" && exec \"$0\" save flickr:53624890009", PhotosBinary.executable.path, gone],
                environment: photos.environment)
            #expect(run.status == 74)
            #expect(run.stderr.contains("the current folder no longer exists"), "\(run.stderr)")
            #expect(!run.stderr.contains("URL type"), "no Foundation jargon: \(run.stderr)")
        }
    }

    /// `[save] dir` (or PHOTOS_SAVE_DIR) is where `photos save` saves without --to, as browse's
    /// `s` does; --to still wins, and a setting that names a file says which setting it is.
    @Test func theConfiguredSaveFolderIsTheDefaultOfTo() async throws {
        try await withServer { _, photos in
            let folder = try TemporaryFolder("save-configured")
            let configured = folder.appending("from config")
            let config = photos.home.appendingPathComponent("save-dir.toml")
            try "[save]\ndir = \"\(configured.path)\"\n".write(to: config, atomically: true, encoding: .utf8)
            let here = folder.appending("here")
            try FileManager.default.createDirectory(at: here, withIntermediateDirectories: true)
            let run = try runProgram(
                "/bin/sh", ["-c", "cd \"$1\" && exec \"$0\" save flickr:53624890009 --size small", PhotosBinary.executable.path, here.path],
                environment: photos.environment.merging(["PHOTOS_CONFIG": config.path]) { $1 })
            #expect(run.status == 0, "\(run.stderr)")
            #expect(Self.files(under: configured).count == 1, "saved into [save] dir")
            #expect(Self.files(under: here).isEmpty, "not into the current folder")
            #expect(run.stdout.contains(configured.path), "the summary says where: \(run.stdout)")

            let given = folder.appending("given")
            let explicit = try await photos.run(
                ["save", "flickr:53624890009", "--size", "small", "--to", given.path], environment: ["PHOTOS_CONFIG": config.path])
            #expect(explicit.status == 0, "\(explicit.stderr)")
            #expect(Self.files(under: given).count == 1, "--to wins over the setting")

            let file = folder.appending("a file")
            try Data("x".utf8).write(to: file)
            let wrong = try await photos.run(["save", "flickr:53624890009", "--size", "small"], environment: ["PHOTOS_SAVE_DIR": file.path])
            #expect(wrong.status == 74)
            #expect(wrong.stderr.contains("PHOTOS_SAVE_DIR or [save] dir") && wrong.stderr.contains("names a file"), "\(wrong.stderr)")

            // Spaces alone are no setting, as an empty value is: the current folder.
            let blank = try runProgram(
                "/bin/sh", ["-c", "cd \"$1\" && exec \"$0\" save flickr:53624890009 --size small", PhotosBinary.executable.path, here.path],
                environment: photos.environment.merging(["PHOTOS_SAVE_DIR": "   "]) { $1 })
            #expect(blank.status == 0 && Self.files(under: here).count == 1, "\(blank.stderr)")
        }
    }

    /// `--name "{id}.png"` for JPEG images saves them as asked, and says once that the names
    /// do not say what the files are; `.jpeg` for a JPEG, or `.{ext}`, says nothing.
    @Test func anExtensionThatIsNotTheImagesTypeIsSaidOnce() async throws {
        try await withServer { _, photos in
            let folder = try TemporaryFolder("save-misnamed")
            let ids = ["placeholder:1", "placeholder:2", "placeholder:3"]
            let png = try await photos.run(["save"] + ids + ["--to", folder.appending("png").path, "--name", "{raw_id}.png"])
            #expect(png.status == 0, "\(png.stderr)")
            #expect(Self.files(under: folder.appending("png")) == ["1.png", "2.png", "3.png"], "saved as asked")
            let warnings = png.stderr.split(separator: "\n").filter { $0.contains("not their type") }
            #expect(warnings.count == 1, "\(png.stderr)")
            #expect(warnings.first?.contains("3 files were saved under an extension that is not their type (1.png holds a JPEG image)") == true, "\(png.stderr)")
            #expect(warnings.first?.contains(".{ext}") == true)
            // Any extension that is not the images' type, image extension or not.
            for template in ["{raw_id}.txt", "{raw_id}.tar.gz"] {
                let other = try await photos.run(["save"] + ids + ["--to", folder.appending(template).path, "--name", template])
                #expect(other.status == 0 && other.stderr.contains("3 files were saved under an extension that is not their type"), "\(template): \(other.stderr)")
            }
            for template in ["{raw_id}.jpeg", "{raw_id}.{ext}", "{raw_id}.JPG", "{raw_id} v1.2.{ext}"] {
                let fine = try await photos.run(["save"] + ids + ["--to", folder.appending(template).path, "--name", template])
                #expect(fine.status == 0 && !fine.stderr.contains("not their type"), "\(template): \(fine.stderr)")
            }
            // {ext} comes from the image's URL: one that names another type is said as such, not
            // with advice to do what the name already does.
            let commons = try await photos.run(["save", "--provider", "commons", "--query", "pwned", "--to", folder.appending("commons").path])
            let said = commons.stderr.split(separator: "\n").filter { $0.contains("not their type") }
            #expect(said.count == 1 && said.first?.contains("holds a JPEG image") == true, "\(commons.stderr)")
            #expect(said.first?.contains("end --name with .{ext}") == false && said.first?.contains("URL") == true, "\(commons.stderr)")
        }
    }

    /// A second save of what the first saved asks nothing for the files already there, also when
    /// their photos needed a detail to be named (NASA's listings name no image for some).
    @Test func aRerunAsksNothingForTheFilesAlreadyThere() async throws {
        let paths = Mutex<[String]>([])
        let recording: FixtureRouteHandler = { request in
            paths.withLock { $0.append(request.target) }
            return nil
        }
        try await withServer(FixtureServerConfiguration(routes: [recording])) { _, photos in
            let folder = try TemporaryFolder("save-rerun")
            let arguments = ["save", "--provider", "nasa", "--limit", "20", "--to", folder.url.path, "--format", "json"]
            let first = try await photos.run(arguments)
            #expect(first.stderr.contains("no detail ("), "some photos are saved from their listing's image: \(first.stderr)")
            let failed = try #require(try first.json()["failed"] as? [[String: Any]]).compactMap { $0["id"] as? String }
            paths.withLock { $0.removeAll() }
            let again = try await photos.run(arguments)
            #expect(try again.json()["saved"] as? Int == 0, "\(again.stdout)")
            let asked = paths.withLock { $0 }
            let failing = failed.map { $0.replacingOccurrences(of: "nasa:", with: "") }
            #expect(asked.allSatisfy { path in failing.contains { path.contains($0) } }, "asked for files already there: \(asked)")
        }
    }

    /// --to naming a link to nothing or a loop of links is said as such ("File exists" said
    /// neither what was wrong nor what to do).
    @Test func aToThatIsABrokenLinkIsSaidAsOne() async throws {
        try await withServer { _, photos in
            let folder = try TemporaryFolder("save-broken-link")
            let dangling = folder.appending("dangling"), loop = folder.appending("loop")
            try FileManager.default.createSymbolicLink(atPath: dangling.path, withDestinationPath: folder.appending("gone/deeper").path)
            try FileManager.default.createSymbolicLink(atPath: loop.path, withDestinationPath: loop.path)
            for (path, what) in [(dangling.path, "a symbolic link to nothing"), (loop.path, "a loop of symbolic links")] {
                let run = try await photos.run(["save", "placeholder:1", "--to", path])
                #expect(run.status == 74 && run.stderr.contains("--to names \(what): \(path)"), "\(run.stderr)")
            }
            #expect(!FileManager.default.fileExists(atPath: folder.appending("gone").path), "nothing made through the link")
        }
    }

    /// Folders of a name whose path grew too long partway are removed with the others left
    /// empty: 16 empty folders stayed behind.
    @Test func foldersMadeBeforeAPathGrewTooLongAreRemoved() async throws {
        try await withServer { _, photos in
            let folder = try TemporaryFolder("save-too-deep")
            let level = String(repeating: "a", count: 250)
            let template = Array(repeating: level, count: 17).joined(separator: "/") + "/{raw_id}.{ext}"
            let run = try await photos.run(["save", "placeholder:1", "--to", folder.url.path, "--name", template])
            #expect(run.status == 74, "\(run.status) \(run.stderr)")
            let left = try FileManager.default.contentsOfDirectory(atPath: folder.url.path).filter { !$0.hasPrefix(".") }
            #expect(left.isEmpty, "\(left)")

            // The same with --to itself too long: 20 folders were made before it failed, and the
            // message repeated all 4,500 characters.
            let tooLong = folder.url.path + "/" + Array(repeating: String(repeating: "d", count: 200), count: 22).joined(separator: "/")
            let to = try await photos.run(["save", "placeholder:1", "--to", tooLong])
            #expect(to.status == 74 && to.stderr.contains("cannot create '\(folder.url.path)/ddd") && to.stderr.contains("', --to: "), "\(to.stderr.prefix(400))")
            #expect(to.stderr.utf8.count < 400, "\(to.stderr.utf8.count) bytes")
            let after = try FileManager.default.contentsOfDirectory(atPath: folder.url.path).filter { !$0.hasPrefix(".") }
            #expect(after.isEmpty, "\(after)")
            let unmade = try await photos.run(["save", "placeholder:1"], environment: ["PHOTOS_SAVE_DIR": "/proc/photos-not-here"])
            #expect(unmade.status == 74 && unmade.stderr.contains("', the save folder (PHOTOS_SAVE_DIR or [save] dir): "), "\(unmade.stderr)")
        }
    }

    @Test func aPhotoNamedTwiceIsSavedOnceAndItsRepeatSaidAsOne() async throws {
        try await withServer { _, photos in
            let folder = try TemporaryFolder("save-twice")
            let arguments = ["save", "flickr:53624890009", "flickr:53624890009", "--to", folder.url.path, "--size", "small"]
            let first = try await photos.run(arguments)
            #expect(first.status == 0, "\(first.stderr)")
            #expect(first.stdout.hasPrefix("Saved 1 photo ") && first.stdout.hasSuffix("; 1 repeat skipped.\n"), "\(first.stdout)")
            #expect(!first.stdout.contains("already there"), "nothing was there before: \(first.stdout)")
            let again = try await photos.run(arguments)
            #expect(again.stdout.hasPrefix("Saved 0 photos ") && again.stdout.hasSuffix("; 1 was already there; 1 repeat skipped.\n"), "\(again.stdout)")
            #expect(Self.files(under: folder.url).count == 1)
        }
    }

    /// An id piped in is spelled as its provider spells it before repeats are looked for, as one
    /// given as an argument is: `flickr:053624890009` is `flickr:53624890009`.
    @Test func anIdPipedInTwiceInTwoSpellingsIsSavedOnce() async throws {
        try await withServer { _, photos in
            let folder = try TemporaryFolder("save-spelled")
            let input = folder.appending("ids.txt")
            try "flickr:053624890009\nflickr:53624890009\nplaceholder:01\nplaceholder:1\n".write(to: input, atomically: true, encoding: .utf8)
            let run = try runProgram(
                "/bin/sh", ["-c", "exec \"$0\" save - --to \"$1\" --size small < \"$2\"", PhotosBinary.executable.path,
                    folder.appending("out").path, input.path],
                environment: photos.environment)
            #expect(run.stdout.contains("Saved 2 photos ") && run.stdout.contains("; 2 repeats skipped"), "\(run.stdout) \(run.stderr)")
            let files = Self.files(under: folder.appending("out"))
            #expect(files.count == 2 && files.contains("flickr/flickr_53624890009.jpg") && files.contains { $0.hasPrefix("placeholder/placeholder_1.") },
                "\(files)")
        }
    }

    /// A limit as large as an Int takes, for several providers at once, is no limit: their sum
    /// overflowed, and photos died of SIGILL before saying anything.
    @Test func aLimitAsLargeAsAnIntForSeveralProvidersSavesEveryPhoto() async throws {
        try await withServer { _, photos in
            let folder = try TemporaryFolder("save-huge-limit")
            let run = try await photos.run([
                "save", "--provider", "commons,openverse", "--query", "dogs", "--limit", String(Int.max), "--to", folder.url.path, "--format", "json",
            ])
            #expect(run.status == 0 || run.status == 75, "\(run.status) \(run.stderr)")
            let summary = try run.json()
            let every = try await photos.run([
                "save", "--provider", "commons,openverse", "--query", "dogs", "--all", "--to", folder.appending("all").path, "--format", "json",
            ])
            let saved = try #require(summary["saved"] as? Int)
            let all = try every.json()["saved"] as? Int
            #expect(saved > 10 && saved == all, "as --all: \(run.stdout) \(every.stdout)")
        }
    }

    /// The table `photos list` prints into a pipe is read by its first column.
    @Test func photosListTableOnStdinIsSaved() async throws {
        try await withServer { _, photos in
            let folder = try TemporaryFolder("save-table")
            let shell = try runProgram(
                "/bin/sh",
                [
                    "-c", "\"$0\" list --provider flickr --query many --per-page 5 | \"$0\" save - --to \"$1\" --size small --format json",
                    PhotosBinary.executable.path, folder.appending("piped").path,
                ],
                environment: photos.environment)
            #expect(shell.status == 0, "\(shell.stderr)")
            let summary = try #require(try JSONSerialization.jsonObject(with: Data(shell.stdout.utf8)) as? [String: Any])
            #expect(summary["saved"] as? Int == 5 && (summary["failed"] as? [Any])?.isEmpty == true, "\(shell.stdout)")
            #expect(Self.files(under: folder.appending("piped")).count == 5)
        }
    }

    @Test func aSidecarIsTheDetailShowPrintsAlsoForAListedPhoto() async throws {
        try await withServer { server, photos in
            let folder = try TemporaryFolder("save")
            let arguments = ["save", "--provider", "flickr", "--query", "dogs", "--limit", "3", "--metadata", "--to", folder.url.path]
            let run = try await photos.run(arguments)
            #expect(run.status == 0, "\(run.stderr)")
            let sidecar = folder.appending("flickr/flickr_53624890009.jpg.json")
            let shown = try await photos.run(["show", "flickr:53624890009", "--format", "json"]).json()
            func read() throws -> [String: Any] { try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: sidecar)) as? [String: Any]) }
            let written = try read()
            #expect((written["description"] as? String)?.hasPrefix("Rex loves the sea.") == true, "the detail's description")
            #expect((written["extra"] as? [String: String])?["license"] == (shown["extra"] as? [String: String])?["license"])
            #expect((written["sizes"] as? [Any])?.count == (shown["sizes"] as? [Any])?.count)

            // A sidecar that went missing is written again, asking for that photo's detail only.
            try FileManager.default.removeItem(at: sidecar)
            server.resetStats()
            let again = try await photos.run(arguments + ["--format", "json"])
            #expect(try again.json()["skipped"] as? Int == 3)
            #expect((try read()["description"] as? String)?.hasPrefix("Rex loves the sea.") == true)
            #expect(server.stats().requests == 2, "getInfo and getSizes of the one photo")
            // The summary says so (the JSON's counts stay as the contract has them).
            try FileManager.default.removeItem(at: sidecar)
            let table = try await photos.run(arguments)
            #expect(table.stdout.contains("; 3 were already there; 1 missing sidecar written."), "\(table.stdout)")
        }
    }

    @Test func filesThatCannotBeWrittenExitSeventyFourWithoutAskingForARetry() async throws {
        try await withServer { _, photos in
            let folder = try TemporaryFolder("save")
            // A file where the provider's folder would go: nothing can be written below it
            // (permissions would do the same, but tests may run as root).
            try Data("not a folder".utf8).write(to: folder.appending("flickr"))
            let run = try await photos.run(["save", "flickr:53624890009", "placeholder:1", "--to", folder.url.path])
            #expect(run.status == 74, "\(run.stderr)")
            #expect(run.stderr.contains("flickr:53624890009: cannot write \(folder.appending("flickr").path)"), "\(run.stderr)")
            #expect(run.stdout.contains("1 failed") && !run.stdout.contains("retry"), "\(run.stdout)")
            #expect(Self.files(under: folder.url) == ["flickr", "placeholder/placeholder_1.jpg"])

            let intoAFile = try await photos.run(["save", "placeholder:2", "--to", folder.appending("flickr").path])
            #expect(intoAFile.status == 74)
            #expect(intoAFile.stderr.contains("--to names a file, not a folder: \(folder.appending("flickr").path)"), "\(intoAFile.stderr)")
        }
    }

    @Test func namesAreDeterministicAndMetadataIsWritten() async throws {
        try await withServer { _, photos in
            let folder = try TemporaryFolder("save")
            let arguments = [
                "save", "--provider", "flickr", "--query", "many", "--limit", "12", "--size", "small", "--to", folder.url.path,
                "--name", "{owner}/{date}.{ext}", "--metadata",
            ]
            let run = try await photos.run(arguments)
            #expect(run.status == 0, "\(run.stderr)")
            let expected = ["Fixture Owner/2024-02-03.jpg"] + (2...12).map { "Fixture Owner/2024-02-03-\($0).jpg" }
            let files = Self.files(under: folder.url)
            #expect(Set(files.filter { !$0.hasSuffix(".json") }) == Set(expected))
            let sidecar = try JSONSerialization.jsonObject(with: Data(contentsOf: folder.appending("Fixture Owner/2024-02-03-2.jpg.json")))
            let object = try #require(sidecar as? [String: Any])
            #expect(object["id"] as? String == "flickr:5300000002", "the second photo of the listing got the second name")
            #expect((object["sizes"] as? [Any])?.count == 8)
            #expect(object["image_path"] as? String == folder.appending("Fixture Owner/2024-02-03-2.jpg").path)

            try FileManager.default.removeItem(at: folder.appending("Fixture Owner/2024-02-03-5.jpg.json"))
            let again = try await photos.run(arguments + ["--format", "json"])
            #expect(try again.json()["skipped"] as? Int == 12)
            #expect(FileManager.default.fileExists(atPath: folder.appending("Fixture Owner/2024-02-03-5.jpg.json").path), "a missing sidecar is written again")
        }
    }

    @Test func aPhotoSavedByIdIsSkippedLaterWithoutAskingTheProvider() async throws {
        try await withServer { server, photos in
            let folder = photos.home.appendingPathComponent("by-id")
            let first = try await photos.run(["save", "commons:22459639", "--format", "json", "--to", folder.path])
            #expect(try first.status == 0 && first.json()["saved"] as? Int == 1, "\(first.stderr)")
            server.resetStats()
            let again = try await photos.run(["save", "commons:22459639", "--format", "json", "--to", folder.path])
            #expect(try again.status == 0 && again.json()["skipped"] as? Int == 1, "\(again.stdout)")
            #expect(server.stats().requests == 0, "the detail's sizes were kept: \(server.stats().requests) requests")

            // The detail kept also serves show --offline, and the original --open fetched.
            #expect(try await photos.run(["show", "commons:22459639", "--open"], environment: ["PHOTOS_OPENER": "/bin/true"]).status == 0)
            let offline = try await photos.run(["show", "commons:22459639", "--offline", "--open", "--format", "json"], environment: ["PHOTOS_OPENER": "/bin/true"])
            #expect(offline.status == 0, "\(offline.stderr)")
            #expect(try offline.json()["image_path"] is String)
        }
    }

    @Test func aProviderWhoseListingFailsIsAFailureOfTheSave() async throws {
        try await withServer { _, photos in
            let folder = photos.home.appendingPathComponent("partly")
            // Flickr refuses its key; placeholder delivers.
            let run = try await photos.run(
                ["save", "--provider", "flickr,placeholder", "--query", "sunt", "--limit", "3", "--format", "json", "--to", folder.path],
                environment: ["FLICKR_API_KEY": "invalid-key"])
            #expect(run.status == 77, "not a success, and the key is what to mend: \(run.stderr)")
            #expect(!(run.stdout + run.stderr).contains("retry"), "running it again cannot help: \(run.stderr)")
            let summary = try run.json()
            #expect(summary["saved"] as? Int == 3, "\(run.stdout)")
            let failed = try #require(summary["failed"] as? [[String: Any]])
            #expect(failed.count == 1 && failed.first?["id"] as? String == "flickr", "\(failed)")
            #expect((failed.first?["error"] as? String)?.hasPrefix("its listing failed: ") == true, "\(failed)")
        }
    }

    @Test func stdinWithAByteOrderMarkOrOneLongCompactDocumentIsRead() async throws {
        try await withServer { _, photos in
            let folder = try TemporaryFolder("stdin")
            // A compact `list --format json` document of 500 photos, over 1 MiB on one line, and a
            // byte order mark before an id.
            let listed = try await photos.run(["list", "--provider", "placeholder", "--per-page", "500", "--no-thumbnails", "--format", "json"])
            let document = try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [String: Any] ?? [:]
            var grown = document
            var compact = try JSONSerialization.data(withJSONObject: grown)
            while compact.count <= 1 << 20 {
                grown["photos"] = (grown["photos"] as? [Any] ?? []) + (document["photos"] as? [Any] ?? [])
                compact = try JSONSerialization.data(withJSONObject: grown)
            }
            let input = folder.appending("input.txt")
            try (Data([0xEF, 0xBB, 0xBF]) + Data("placeholder:7\r\n".utf8) + compact + Data("\n".utf8)).write(to: input)
            let shell = try runProgram(
                "/bin/sh", ["-c", "exec \"$0\" save - --to \"$1\" --size small --format json < \"$2\"", PhotosBinary.executable.path, folder.appending("out").path, input.path],
                environment: photos.environment)
            #expect(shell.status == 0, "\(shell.stderr)")
            let summary = try #require(try JSONSerialization.jsonObject(with: Data(shell.stdout.utf8)) as? [String: Any], "\(shell.stdout.prefix(300))")
            #expect((summary["failed"] as? [Any])?.isEmpty == true, "\(shell.stdout.prefix(500))")
            // 500 photos named several times over, and placeholder:7 among them: each saved once.
            #expect(summary["saved"] as? Int == 500, "\(summary)")
            #expect((summary["saved"] as? Int ?? 0) + (summary["skipped"] as? Int ?? 0) == (grown["photos"] as? [Any] ?? []).count + 1, "\(summary)")
        }
    }

    @Test func twoSavesIntoOneFolderAtOnceLeaveEveryFileWholeAndNamedOnce() async throws {
        try await withServer(FixtureServerConfiguration(latencyMilliseconds: 20)) { _, photos in
            let folder = photos.home.appendingPathComponent("shared")
            let arguments = ["save", "--provider", "placeholder", "--limit", "300", "--format", "json", "--to", folder.path]
            let first = try photos.start(arguments)
            let second = try photos.start(arguments)
            let runs = [try await first.finish(), try await second.finish()]
            for run in runs {
                #expect(run.status == 0, "\(run.stderr)")
                let summary = try run.json()
                #expect((summary["failed"] as? [Any])?.isEmpty == true, "\(run.stdout)")
                #expect((summary["saved"] as? Int ?? 0) + (summary["skipped"] as? Int ?? 0) == 300, "\(run.stdout)")
            }
            let files = Self.files(under: folder)
            #expect(files.count == 300 && files.allSatisfy { $0.hasSuffix(".jpg") }, "named once, nothing left over: \(files)")
            for file in files {
                let bytes = try Data(contentsOf: folder.appendingPathComponent(file))
                #expect(bytes.count > 100 && bytes.prefix(2) == Data([0xFF, 0xD8]) || bytes.prefix(4) == Data([0x89, 0x50, 0x4E, 0x47]), "\(file) is whole")
            }
        }
    }

    /// Two saves whose folders differ (each holds its own folder's lock) but whose names meet
    /// (`--to D --name "sub/{id}.{ext}"` and `--to D/sub --name "{id}.{ext}"`): each file is
    /// written by one of them and found there by the other, never a mix of both downloads.
    @Test func twoSavesIntoOverlappingFoldersNeverWriteOneFileTogether() async throws {
        try await withServer { server, photos in
            let ids = (1...8).map { "\(900 + $0)" }
            // The same photos, each save's listing naming another image for them, sent slowly
            // enough for the downloads of the two saves to overlap.
            func listing(_ image: String) throws -> String {
                try Self.flickrListing(ids.map { id in
                    (id: id, title: "overlap \(id)", owner: "o", url: "\(server.url)/images/\(image)?slow_bps=150000&n=\(id)")
                })
            }
            let first = Self.route(server, "overlap-large", try listing("large.jpg"))
            let second = Self.route(server, "overlap-sample", try listing("sample.jpg"))
            let root = try TemporaryFolder("save-overlap")
            let shared = root.url.appendingPathComponent("sub")
            let arguments = ["save", "--provider", "flickr", "--query", "overlap", "--format", "json"]
            let outer = try photos.start(
                arguments + ["--to", root.url.path, "--name", "sub/{id}.{ext}"], environment: ["PHOTOS_FLICKR_API": first])
            let inner = try photos.start(
                arguments + ["--to", shared.path, "--name", "{id}.{ext}"], environment: ["PHOTOS_FLICKR_API": second])
            let runs = [try await outer.finish(), try await inner.finish()]
            var saved = 0
            for run in runs {
                #expect(run.status == 0, "\(run.stderr)")
                let summary = try run.json()
                #expect((summary["failed"] as? [Any])?.isEmpty == true, "\(run.stdout)")
                #expect((summary["saved"] as? Int ?? 0) + (summary["skipped"] as? Int ?? 0) == ids.count, "\(run.stdout)")
                saved += summary["saved"] as? Int ?? 0
            }
            #expect(saved == ids.count, "each file saved by one of the two, found there by the other")
            let large = try Data(contentsOf: Self.large), sample = try Data(contentsOf: FixtureFiles.image("sample.jpg"))
            let files = Self.files(under: root.url)
            #expect(files == ids.map { "sub/flickr_\($0).jpg" }.sorted(), "no .part left over: \(files)")
            for file in files {
                let bytes = try Data(contentsOf: root.url.appendingPathComponent(file))
                #expect(bytes == large || bytes == sample, "\(file) is one whole image, not a mix: \(bytes.count) bytes")
            }
        }
    }

    /// Ctrl-C while a save waits for another one writing into its folder stops it at once,
    /// with its (empty) JSON summary: the wait was one blocking flock that no signal ended.
    @Test func anInterruptWhileWaitingForTheFolderStopsAtOnceWithASummary() async throws {
        try await withServer { _, photos in
            let folder = try TemporaryFolder("save-waiting")
            // Another save holds the folder's lock (held here, as a save holds it).
            let lock = open(folder.appending(".photos-save.lock").path, O_RDWR | O_CREAT, 0o600)
            try #require(lock >= 0 && flock(lock, LOCK_EX) == 0)
            defer { close(lock) }
            let waiter = try photos.start(["save", "placeholder:1", "--to", folder.url.path, "--format", "json"])
            // Interrupted once it waits: when it has the lock file open (its signal handlers are
            // in place well before).
            let lockPath = folder.appending(".photos-save.lock").path
            func waits() -> Bool {
                let fds = "/proc/\(waiter.process.processIdentifier)/fd"
                let names = (try? FileManager.default.contentsOfDirectory(atPath: fds)) ?? []
                return names.contains { (try? FileManager.default.destinationOfSymbolicLink(atPath: fds + "/" + $0)) == lockPath }
            }
            let deadline = Date().addingTimeInterval(60)
            while !waits(), waiter.process.isRunning, Date() < deadline { try await Task.sleep(for: .milliseconds(20)) }
            #expect(waits(), "the save reached the wait")
            kill(waiter.process.processIdentifier, SIGINT)
            let run = try await waiter.finish()
            #expect(run.status == 130, "\(run.stderr)")
            // Stopped by the interrupt, not by the fallback exit (which prints no summary).
            #expect(try run.json()["saved"] as? Int == 0, "\(run.stdout)")
            #expect(run.stderr.contains("waiting for it to finish") && run.stderr.contains("Stopped: 0 saved"), "\(run.stderr)")
        }
    }

    /// A process allowed few open files (`ulimit -n 128`; macOS's default soft limit is 256)
    /// saves hundreds of files all the same: it keeps fewer in flight instead of failing them
    /// with "Too many open files".
    @Test func aLowOpenFileLimitSavesEveryFile() async throws {
        try await withServer { server, photos in
            let folder = try TemporaryFolder("save-few-files")
            let input = folder.appending("input.jsonl")
            let lines = (1...300).map { index in
                #"{"id": "flickr:\#(5_300_003_000 + index)", "sizes": [{"label": "Large", "width": 100, "height": 100, "url": "\#(server.url)/thumbs/\#(index).jpg"}]}"#
            }
            try (lines.joined(separator: "\n") + "\n").write(to: input, atomically: true, encoding: .utf8)
            let run = try runProgram(
                "/bin/sh", ["-c", "ulimit -n 128 && exec \"$0\" save - --to \"$1\" --format json < \"$2\"", PhotosBinary.executable.path,
                    folder.appending("out").path, input.path], environment: photos.environment)
            #expect(run.status == 0, "\(run.stderr)")
            let summary = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any], "\(run.stdout)")
            #expect(summary["saved"] as? Int == 300 && (summary["failed"] as? [Any])?.isEmpty == true, "\(run.stdout)")
            #expect(Self.files(under: folder.appending("out")).count == 300)
            // Far too few (16: libdispatch stopped the process with SIGILL when it could not open
            // what it watches its threads with): refused at the start, saying what to raise.
            let tiny = try runProgram(
                "/bin/sh", ["-c", "ulimit -n 16 && exec \"$0\" save - --to \"$1\" --format json < \"$2\"", PhotosBinary.executable.path,
                    folder.appending("tiny").path, input.path], environment: photos.environment)
            #expect(tiny.status == 64 && tiny.stderr.contains("photos needs at least 64 open files") && tiny.stderr.contains("ulimit -n"), "\(tiny.status) \(tiny.stderr)")
        }
    }

    /// Ctrl-C while stdin is still open (`photos save -` reading a pipe whose writer is still
    /// there, or a terminal) stops the save as any other: its JSON summary printed, the folder's
    /// lock file removed.
    @Test func anInterruptWhileStdinIsOpenStillSummarises() async throws {
        try await withServer { _, photos in
            let folder = try TemporaryFolder("save-stdin-open")
            var ends: [Int32] = [0, 0]
            try #require(pipe(&ends) == 0)
            defer { close(ends[1]) }
            let running = try photos.start(["save", "-", "--to", folder.url.path, "--format", "json"], standardInput: ends[0])
            close(ends[0])
            let line = Array("placeholder:3\n".utf8)
            #expect(write(ends[1], line, line.count) == line.count)
            let saved = folder.appending("placeholder/placeholder_3.jpg")
            let deadline = Date().addingTimeInterval(20)
            while !FileManager.default.fileExists(atPath: saved.path), Date() < deadline, running.process.isRunning {
                try await Task.sleep(for: .milliseconds(20))
            }
            kill(running.process.processIdentifier, SIGINT)
            let run = try await running.finish()
            #expect(run.status == 130, "\(run.stderr)")
            let summary = try run.json()
            #expect(summary["saved"] as? Int == 1 && (summary["failed"] as? [Any])?.isEmpty == true, "\(run.stdout)")
            #expect(run.stderr.contains("Stopped: 1 saved before the stop"), "\(run.stderr)")
            #expect(Self.files(under: folder.url) == ["placeholder/placeholder_3.jpg"], "no lock file or .part left")
        }
    }

    /// A save whose listing fails before any photo is known still prints its JSON summary
    /// (with the provider as what failed) and exits with the failure's code.
    @Test func aSaveWhoseListingFailsStillPrintsItsJSONSummary() async throws {
        try await withServer { _, photos in
            let folder = try TemporaryFolder("save-listing-fails")
            let refused = try await photos.run(
                ["save", "--provider", "flickr", "--query", "dogs", "--to", folder.url.path, "--format", "json"],
                environment: ["FLICKR_API_KEY": "not-the-key"])
            #expect(refused.status == 77, "\(refused.stderr)")
            #expect(refused.stderr.contains("Flickr refused the API key"), "\(refused.stderr)")
            let summary = try refused.json()
            let failed = try #require(summary["failed"] as? [[String: Any]], "\(refused.stdout)")
            #expect(failed.count == 1 && failed.first?["id"] as? String == "flickr", "\(refused.stdout)")
            #expect(summary["saved"] as? Int == 0 && summary["bytes"] as? Int == 0, "\(refused.stdout)")
            #expect(!refused.stdout.contains("not-the-key") && !refused.stderr.contains("not-the-key"), "no key in the output")
            // A refused key and a dead host: 69 (77 only when every failure is a refused key),
            // whichever provider is named first.
            for providers in ["flickr,nasa", "nasa,flickr"] {
                let mixed = try await photos.run(
                    ["save", "--provider", providers, "--query", "moon", "--limit", "2", "--to", folder.url.path, "--format", "json"],
                    environment: ["FLICKR_API_KEY": "not-the-key", "PHOTOS_NASA_API": "https://127.0.0.1:1/nasa"])
                #expect(mixed.status == 69, "\(providers): \(mixed.stderr)")
                #expect((try mixed.json()["failed"] as? [Any])?.count == 2, "\(mixed.stdout)")
            }
        }
    }

    /// "Run the same command again to retry" only where a retry may help: a server error, not
    /// an image that is gone or a link photos will never follow.
    @Test func retryIsAdvisedOnlyWhereItMayHelp() async throws {
        try await withServer { server, photos in
            func save(_ name: String, _ url: String) async throws -> PhotosBinary.Run {
                let endpoint = Self.route(server, name, try Self.flickrListing([(id: "901", title: "t", owner: "o", url: url)]))
                return try await photos.run(
                    ["save", "--provider", "flickr", "--query", name, "--to", photos.home.appendingPathComponent(name).path],
                    environment: ["PHOTOS_FLICKR_API": endpoint])
            }
            let gone = try await save("gone", "\(server.url)/images/large.jpg?status=404")
            #expect(gone.status == 69 && gone.stderr.contains("answered HTTP 404"), "\(gone.stderr)")
            // Nothing saved: the folders the save made (--to, and flickr/ in it) are gone again.
            #expect(!FileManager.default.fileExists(atPath: photos.home.appendingPathComponent("gone").path))
            #expect(!(gone.stdout + gone.stderr).contains("retry"), "\(gone.stdout)")
            // Refused as it is (403, 400): 69 as a photo that is gone, no retry (they were 75, "retry").
            for status in [403, 400] {
                let refused = try await save("refused\(status)", "\(server.url)/images/large.jpg?status=\(status)")
                #expect(refused.status == 69 && refused.stderr.contains("answered HTTP \(status)"), "\(status): \(refused.status) \(refused.stderr)")
                #expect(!(refused.stdout + refused.stderr).contains("retry"), "\(status): \(refused.stdout)")
            }
            // A rate limit passes: a retry may help.
            let limited = try await save("limited", "\(server.url)/images/large.jpg?status=429")
            #expect(limited.status == 69 && limited.stdout.contains("run the same command again to retry"), "\(limited.status) \(limited.stdout) \(limited.stderr)")
            let local = try await save("local", "\(server.url)/images/large.jpg?redirect=file:///etc/passwd")
            #expect(local.status == 65 && local.stderr.contains("file"), "a redirect to a file: \(local.stderr)")
            #expect(!(local.stdout + local.stderr).contains("retry"), "\(local.stdout) \(local.stderr)")
            let failing = try await save("failing", "\(server.url)/images/large.jpg?status=503")
            #expect(failing.status == 69 && failing.stdout.contains("run the same command again to retry"), "\(failing.stdout)")
            // A key Flickr refuses, or none, for photos named by id: 77, as a listing or show
            // says, and no retry until the key is mended.
            for key in ["wrong-key", nil] {
                let refused = try await photos.run(
                    ["save", "flickr:53624890009", "--to", photos.home.appendingPathComponent("refused").path], environment: ["FLICKR_API_KEY": key])
                #expect(refused.status == 77, "\(key ?? "no key"): \(refused.status) \(refused.stderr)")
                #expect(!(refused.stdout + refused.stderr).contains("retry") && refused.stderr.contains("FLICKR_API_KEY"), "\(refused.stdout) \(refused.stderr)")
                #expect(!FileManager.default.fileExists(atPath: photos.home.appendingPathComponent("refused").path), "no empty --to folder left")
            }
        }
    }

    @Test func wrongUsageExitsSixtyFourBeforeAnyRequest() async throws {
        try await withServer { server, photos in
            for arguments in [
                ["save", "flickr:1", "--query", "dogs"], ["save", "--name", "{nope}"], ["save", "--name", "../{id}"],
                ["save", "flickr:abc"], ["save", "nope:1"], ["save", "--size", "huge"], ["save", "-", "flickr:1"],
                ["save", "--format", "jsonl"], ["save"], ["save", "--to", photos.home.appendingPathComponent("somewhere").path, "--metadata"],
            ] {
                let run = try await photos.run(arguments)
                #expect(run.status == 64, "\(arguments): \(run.stderr)")
            }
            let nothing = try await photos.run(["save"])
            #expect(nothing.stderr.contains("name the photos to save"), "photos save alone saves no default feed: \(nothing.stderr)")
            #expect(server.stats().requests == 0)

            // A photo the provider does not have: 69 as for show, and no advice to retry.
            let unknown = try await photos.run(["save", "flickr:11111111111", "--to", photos.home.appendingPathComponent("unknown").path])
            #expect(unknown.status == 69, "\(unknown.stderr)")
            #expect(unknown.stderr.contains("flickr:11111111111") && !(unknown.stdout + unknown.stderr).contains("retry"), "\(unknown.stdout) \(unknown.stderr)")
        }
    }
}

/// `photos save` onto a nearly full file system: a small tmpfs (mounting one needs root; see
/// FullDiskTests).
@Suite(.enabled(if: getuid() == 0, "mounting a tmpfs needs root"))
struct SaveFullDiskTests {
    @Test func aFullDiskStopsTheSaveAndLeavesNoPartialFileUnderAFinalName() async throws {
        try await withServer { _, photos in try await withTmpfs(photos, "tiny", size: "300k") { mountPoint in

            let run = try await photos.run(
                ["save", "--provider", "flickr", "--query", "many", "--limit", "100", "--size", "large", "--to", mountPoint.path])
            #expect(run.status == 74, "\(run.stderr)")
            #expect(run.stderr.contains("No space left on device"))
            let whole = try Data(contentsOf: SaveCommandTests.large)
            let files = SaveCommandTests.files(under: mountPoint)
            let finals = files.filter { !$0.hasSuffix(".part") }
            // The downloads the full disk cut short leave nothing: the room goes back to the user.
            #expect(finals == files, "no .part left: \(files.filter { $0.hasSuffix(".part") })")
            // How many fit depends on how the parallel downloads interleave: maybe none.
            #expect(finals.count < 100, "the disk was full before the end: \(files.count) files")
            for file in finals {
                #expect(try Data(contentsOf: mountPoint.appendingPathComponent(file)) == whole, "\(file) is whole")
            }
            #expect(!run.stdout.contains("Nothing to save"), "photos were not saved, not absent: \(run.stdout)")

            // The JSON summary names the photos the full disk stopped: the disk filled to its
            // last block by a file of the user's.
            let filler = open(mountPoint.appendingPathComponent("filler").path, O_WRONLY | O_CREAT | O_EXCL, 0o644)
            try #require(filler >= 0)
            let block = [UInt8](repeating: 1, count: 4096)
            while block.withUnsafeBytes({ write(filler, $0.baseAddress, $0.count) }) > 0 {}
            close(filler)
            let json = try await photos.run(
                ["save", "flickr:53624890009", "placeholder:2", "--size", "large", "--format", "json", "--to", mountPoint.appendingPathComponent("more").path])
            #expect(json.status == 74, "\(json.stderr)")
            let summary = try json.json()
            let failed = try #require(summary["failed"] as? [[String: Any]], "\(json.stdout)")
            #expect(!failed.isEmpty && failed.allSatisfy { ($0["error"] as? String)?.contains("No space left on device") == true }, "\(failed)")
            #expect((summary["saved"] as? Int ?? 0) + (summary["skipped"] as? Int ?? 0) + failed.count >= 1, "\(summary)")
        } }
    }

    /// A full disk stops the save at once, the downloads in flight with it, and is said as a full
    /// disk (74): the downloads it cut short made the save say "interrupted" and exit 130 when
    /// more files waited than were in flight, and ran to their end when fewer did.
    @Test func aFullDiskStopsTheDownloadsInFlightAndIsNoInterrupt() async throws {
        try await withServer { server, photos in try await withTmpfs(photos, "tiny-slow", size: "300k") { mountPoint in
            func line(_ id: Int, _ url: String) -> String {
                #"{"id": "flickr:\#(5_300_004_000 + id)", "sizes": [{"label": "Large", "width": 100, "height": 100, "url": "\#(url)"}]}"#
            }
            // A body larger than the disk, then images trickled at 200 bytes/s (two minutes each).
            for (name, slow, limit) in [("more", 15, "ulimit -n 100"), ("fewer", 3, "true")] {
                let input = photos.home.appendingPathComponent("\(name).jsonl")
                let lines = [line(0, "\(server.url)/images/large.jpg?huge=600000")]
                    + (1...slow).map { line($0, "\(server.url)/images/sample.jpg?slow_bps=200&n=\(name)\($0)") }
                try (lines.joined(separator: "\n") + "\n").write(to: input, atomically: true, encoding: .utf8)
                let started = Date()
                let run = try runProgram(
                    "/bin/sh", ["-c", "\(limit) && exec \"$0\" save - --to \"$1\" --format json < \"$2\"", PhotosBinary.executable.path,
                        mountPoint.appendingPathComponent(name).path, input.path], environment: photos.environment)
                let seconds = Date().timeIntervalSince(started)
                #expect(run.status == 74, "\(name): \(run.status) \(run.stderr)")
                #expect(run.stderr.contains("No space left on device") && !run.stderr.contains("interrupted"), "\(name): \(run.stderr)")
                #expect(seconds < 30, "\(name): the trickling downloads were stopped, not waited for: \(seconds) s")
                let summary = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any], "\(run.stdout)")
                #expect(summary["saved"] as? Int == 0, "\(name): \(run.stdout)")
                // Room for the next try: the image that filled the disk is gone.
                try? FileManager.default.removeItem(at: mountPoint.appendingPathComponent(name))
            }
        } }
    }
}
