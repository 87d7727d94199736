import Foundation
import PhotosCore
import PhotosTestSupport
import Synchronization
import Testing

@testable import PhotosCache

/// Images: memory -> disk -> network, in-flight sharing, truncated and missing files.
@Suite struct ImageCacheTests {
    /// The index's image paths are trusted only inside images/, judged on bytes as the file
    /// system reads them. (Judged on Characters, `images/../\u{301}..` passed: the combining mark
    /// joined the slash before it into one Character, hiding the `..` the file system follows.)
    @Test func onlyPathsThatStayInsideImagesAreTrusted() {
        #expect(PhotoCache.isSafeRelativePath("images/ab/cd.jpg"))
        #expect(PhotoCache.isSafeRelativePath("images/..\u{301}/x"), "not a parent folder: a name")
        #expect(!PhotoCache.isSafeRelativePath("images/../\u{301}.."))
        #expect(!PhotoCache.isSafeRelativePath("images/../index.sqlite"))
        #expect(!PhotoCache.isSafeRelativePath("images/a/../../etc/passwd"))
        #expect(!PhotoCache.isSafeRelativePath("imagesx/a") && !PhotoCache.isSafeRelativePath("/images/a"))
        #expect(!PhotoCache.isSafeRelativePath("") && !PhotoCache.isSafeRelativePath("images"))
        // Any path it trusts stays below images/ when the file system walks its components.
        let pieces = ["images/", "images", "/", "..", ".", "a", "é", "\u{301}", "images/..", "../", "x/", ".../"]
        var state: UInt32 = 7
        for _ in 0..<3000 {
            var path = ""
            for _ in 0..<(1 + Int(state % 6)) {
                state = state &* 1_103_515_245 &+ 12_345
                path += pieces[Int(state >> 16) % pieces.count]
            }
            guard PhotoCache.isSafeRelativePath(path) else { continue }
            var depth = 0
            var below = true
            for component in path.utf8.split(separator: UInt8(ascii: "/")) {
                if component.elementsEqual("..".utf8) { depth -= 1 } else if !component.elementsEqual(".".utf8) { depth += 1 }
                if depth < 1 { below = false }
            }
            #expect(below && path.utf8.starts(with: "images/".utf8), "\(path)")
        }
    }

    @Test func diskThenMemoryThenNetworkAndOneDownloadPerURL() async throws {
        let bed = try CacheBed()
        defer { bed.remove() }
        let http = FakeImages(size: 1234, delay: .milliseconds(50))
        let urls = (1...20).map { "https://img.example/\($0).jpg" }

        let cache = bed.cache()
        let fetcher = ImageFetcher(cache: cache, http: http)
        // The same URL asked many times at once: one transfer.
        let batch = await fetcher.fetchAll((urls + urls + urls).map { ($0, "fake") })
        #expect(batch.files.count == 20 && batch.failed == 0 && batch.cached == 0)
        #expect(urls.allSatisfy { http.count($0) == 1 })
        async let one = fetcher.fetch("https://img.example/x.jpg")
        async let two = fetcher.fetch("https://img.example/x.jpg")
        #expect(try await one == two && http.count("https://img.example/x.jpg") == 1)
        cache.finish(command: "test")
        cache.close()

        // A new process: everything from disk, verified, nothing fetched.
        let again = bed.cache()
        let second = await ImageFetcher(cache: again, http: http).fetchAll(urls.map { ($0, "fake") })
        #expect(second.cached == 20 && http.total == 21)
        #expect(second.files.values.allSatisfy { (try? Data(contentsOf: URL(fileURLWithPath: $0)).count) == 1234 })
        again.finish(command: "test")
        let stats = try again.statistics()
        #expect(stats.images == 21 && stats.imageBytes == 21 * 1234 && stats.imageHits == 20 && stats.imageMisses == 21)
        again.close()
    }

    /// Two callers want the same image (a grid redrawn while its first page loads): the one
    /// that is cancelled leaves at once, and the other gets its image whichever of them started
    /// the download.
    @Test(arguments: [true, false])
    func aCancelledCallerLeavesTheOtherItsImage(cancelTheFirst: Bool) async throws {
        let bed = try CacheBed()
        defer { bed.remove() }
        let http = HeldImages(size: 1234)
        let cache = bed.cache()
        let url = "https://img.example/shared.jpg"
        let first = Task { try await cache.download(url, provider: "fake", http: http, maxBytes: 1 << 20) }
        try await waitUntil { http.count == 1 }  // the first caller's download has started
        let second = Task { try await cache.download(url, provider: "fake", http: http, maxBytes: 1 << 20) }
        try await waitUntil { cache.waitersForDownload(url) == 1 }  // the second waits for it
        let (cancelled, other) = cancelTheFirst ? (first, second) : (second, first)
        cancelled.cancel()
        await #expect(throws: CancellationError.self) { try await cancelled.value }
        http.release()
        let file = try await other.value
        #expect(try Data(contentsOf: file).count == 1234)
        // Downloaded again only when the caller that was downloading left.
        #expect(http.count == (cancelTheFirst ? 2 : 1))
        cache.close()
    }

    @Test func truncatedOrMissingFilesAreRefetched() async throws {
        let bed = try CacheBed()
        defer { bed.remove() }
        let http = FakeImages(size: 5000)
        let cache = bed.cache()
        let fetcher = ImageFetcher(cache: cache, http: http)
        let truncated = try await fetcher.fetch("https://img.example/a.jpg")
        let missing = try await fetcher.fetch("https://img.example/b.jpg")
        cache.finish(command: "test")
        cache.close()

        // Break the disk behind the index's back.
        let handle = try FileHandle(forWritingTo: truncated)
        try handle.truncate(atOffset: 1000)
        try handle.close()
        try FileManager.default.removeItem(at: missing)

        let next = bed.cache()
        let found = next.cachedImages(["https://img.example/a.jpg", "https://img.example/b.jpg"])
        #expect(found.isEmpty, "a file whose size differs from the index, or that is gone, is not a hit")
        let refetched = try await ImageFetcher(cache: next, http: http).fetch("https://img.example/a.jpg")
        #expect(try Data(contentsOf: refetched).count == 5000 && http.count("https://img.example/a.jpg") == 2)
        next.finish(command: "test")
        #expect(try next.indexedImages(["https://img.example/b.jpg"]).isEmpty, "the broken entry was dropped")
        #expect(try next.indexedImages(["https://img.example/a.jpg"])["https://img.example/a.jpg"]?.size == 5000)
        next.close()
    }

    /// A link planted where a cached image belongs, even to a file of the right size, is not
    /// the image: it is never handed out (to save, or a viewer), and the image is fetched again.
    @Test func aLinkInPlaceOfACachedImageIsNotTheImage() async throws {
        let bed = try CacheBed()
        defer { bed.remove() }
        let http = FakeImages(size: 5000)
        let cache = bed.cache()
        let file = try await ImageFetcher(cache: cache, http: http).fetch("https://img.example/a.jpg")
        cache.finish(command: "test")
        cache.close()
        let outside = bed.folder.deletingLastPathComponent().appendingPathComponent("outside-\(UUID().uuidString).jpg")
        defer { try? FileManager.default.removeItem(at: outside) }
        try Data(repeating: 0x41, count: 5000).write(to: outside)
        try FileManager.default.removeItem(at: file)
        try FileManager.default.createSymbolicLink(at: file, withDestinationURL: outside)

        let next = bed.cache()
        #expect(next.cachedImages(["https://img.example/a.jpg"]).isEmpty, "the link is not a hit")
        let refetched = try await ImageFetcher(cache: next, http: http).fetch("https://img.example/a.jpg")
        var info = stat()
        #expect(lstat(refetched.path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG, "a file of its own took the link's place")
        #expect(try Data(contentsOf: outside) == Data(repeating: 0x41, count: 5000), "the file the link pointed at is untouched")
        next.finish(command: "test")
        next.close()
    }

    /// Another process's `cache clear` moves the images away while a list still downloads:
    /// the rows this run writes at its end name only the files that are still there.
    @Test func imagesClearedAwayDuringTheRunAreNotRecorded() async throws {
        let bed = try CacheBed()
        defer { bed.remove() }
        let http = FakeImages(size: 5000)
        let cache = bed.cache()
        let fetcher = ImageFetcher(cache: cache, http: http)
        let kept = try await fetcher.fetch("https://img.example/kept.jpg")
        let cleared = try await fetcher.fetch("https://img.example/cleared.jpg")
        try FileManager.default.removeItem(at: cleared)
        cache.finish(command: "test")
        let rows = try cache.indexedImages(["https://img.example/kept.jpg", "https://img.example/cleared.jpg"])
        #expect(rows.keys.sorted() == ["https://img.example/kept.jpg"], "\(rows)")
        #expect(FileManager.default.fileExists(atPath: kept.path))
        cache.close()
    }

    @Test func aFileAnotherProcessJustReplacedIsNeitherDeletedNorForgotten() async throws {
        let bed = try CacheBed()
        defer { bed.remove() }
        let url = "https://img.example/a.jpg"
        let first = bed.cache()
        let file = try await ImageFetcher(cache: first, http: FakeImages(size: 5000)).fetch(url)
        first.finish(command: "test")
        first.close()
        let handle = try FileHandle(forWritingTo: file)
        try handle.truncate(atOffset: 1000)
        try handle.close()

        // This process finds the file broken...
        let reader = bed.cache()
        #expect(reader.cachedImages([url]).isEmpty)
        // ...while another downloads it again and records the new size.
        let other = bed.cache()
        _ = try await ImageFetcher(cache: other, http: FakeImages(size: 7000)).fetch(url)
        other.finish(command: "test")
        other.close()

        reader.finish(command: "test")
        reader.close()
        #expect(try Data(contentsOf: file).count == 7000, "the new file stays")
        let check = bed.cache()
        defer { check.close() }
        #expect(try check.indexedImages([url])[url]?.size == 7000, "and so does its row")
    }

    /// An image whose body ended early where nothing said its length is kept neither in the
    /// cache nor, when the cache cannot hold it, in the viewer's folder outside it.
    @Test func anImageCutShortWithoutALengthIsNotKept() async throws {
        let bed = try CacheBed()
        defer { bed.remove() }
        let url = "https://img.example/cut.jpg"
        let cache = bed.cache()
        await #expect(throws: PhotosError.self) {
            _ = try await ImageFetcher(cache: cache, http: FakeImages(size: 5000, cutShort: true)).fetch(url)
        }
        cache.finish(command: "test")
        cache.close()
        let check = bed.cache()
        #expect(try check.indexedImages([url])[url] == nil, "no row for it")
        check.close()
        let images = (try? FileManager.default.contentsOfDirectory(atPath: bed.folder.appendingPathComponent("images").path)) ?? []
        #expect(images.isEmpty, "no file for it: \(images)")

        // A cache that cannot hold images (its folder is a file): the viewer's copy is refused too.
        let notAFolder = bed.folder.appendingPathComponent("file")
        try Data("x".utf8).write(to: notAFolder)
        let blocked = PhotoCache(configuration: CacheConfiguration(location: .path(notAFolder), now: bed.clock.function, warn: bed.warnings.sink))
        defer { blocked.close() }
        let outside = bed.folder.appendingPathComponent("viewer")
        do {
            _ = try await ImageFetcher(cache: blocked, http: FakeImages(size: 5000, cutShort: true)).fetchForViewing(url, provider: nil, outside: outside)
            Issue.record("a cut image was handed to the viewer")
        } catch {
            #expect("\(error)".contains("ended early"), "\(error)")
        }
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: outside.path)) ?? []).isEmpty)
        // Whole, it is kept there.
        let whole = try await ImageFetcher(cache: blocked, http: FakeImages(size: 5000)).fetchForViewing(url, provider: nil, outside: outside)
        #expect(whole.notCached != nil && whole.file.path.hasPrefix(outside.path))
    }

    /// Commands opening the same image at once while the cache cannot hold it each download it
    /// into the viewer's folder: none reads, renames or removes another's file.
    @Test func viewersOfOneImageAtOnceEachGetItWhole() async throws {
        let bed = try CacheBed()
        defer { bed.remove() }
        let notAFolder = bed.folder.appendingPathComponent("file")
        try Data("x".utf8).write(to: notAFolder)
        let outside = bed.folder.appendingPathComponent("viewer")
        let url = "https://img.example/same.jpg"
        let results = await withTaskGroup(of: Result<URL, any Error>.self) { group in
            for _ in 0..<12 {
                group.addTask {
                    let blocked = PhotoCache(configuration: CacheConfiguration(location: .path(notAFolder), warn: { _ in }))
                    defer { blocked.close() }
                    do {
                        let http = FakeImages(size: 5000, delay: .milliseconds(Int.random(in: 0...5)))
                        return .success(try await ImageFetcher(cache: blocked, http: http).fetchForViewing(url, provider: nil, outside: outside).file)
                    } catch {
                        return .failure(error)
                    }
                }
            }
            var results: [Result<URL, any Error>] = []
            for await result in group { results.append(result) }
            return results
        }
        for result in results {
            switch result {
            case .success(let file): #expect(try Data(contentsOf: file) == FakeImages.image(5000))
            case .failure(let error): Issue.record("\(error)")
            }
        }
    }

    @Test func offlineFetchesNothing() async throws {
        let bed = try CacheBed()
        defer { bed.remove() }
        let http = FakeImages()
        let cache = bed.cache()
        defer { cache.close() }
        let batch = await ImageFetcher(cache: cache, http: http, offline: true).fetchAll([("https://img.example/1.jpg", nil)])
        #expect(batch.notCached == 1 && batch.files.isEmpty && http.total == 0)
        await #expect(throws: PhotosError.self) {
            _ = try await ImageFetcher(cache: cache, http: http, offline: true).fetch("https://img.example/1.jpg")
        }
    }
}

/// A transport whose downloads wait until the test releases them (or their task is cancelled).
private final class HeldImages: HTTPFetching, Sendable {
    private let (released, releasing) = AsyncStream<Never>.makeStream()
    private let downloads = Mutex(0)
    let size: Int

    init(size: Int) {
        self.size = size
    }

    var count: Int { downloads.withLock { $0 } }
    func release() { releasing.finish() }

    func data(for request: HTTPRequest) async throws -> HTTPResponse {
        throw TransportError.cannotConnect(host: "held", detail: "no data requests")
    }

    func download(_ request: HTTPRequest, to destination: URL) async throws -> HTTPResponse {
        downloads.withLock { $0 += 1 }
        for await _ in released {}  // ends when released, or at once when the task is cancelled
        try Task.checkCancellation()
        try FakeImages.image(size).write(to: destination, options: .atomic)
        return HTTPResponse(status: 200, effectiveURL: request.url, bytes: size)
    }
}

/// How errors are said in messages: in their own words or the system's, never a dump.
@Suite struct ErrorDescriptionTests {
    struct Described: Error, CustomStringConvertible {
        var description: String { "corrupt JPEG image: premature end" }
    }

    @Test func errorsAreSaidInWordsNotDumps() {
        #expect(PhotoCache.describe(Described()) == "corrupt JPEG image: premature end")
        #expect(PhotoCache.describe(CocoaError(.fileWriteOutOfSpace)) == "No space left on device")
        #expect(PhotoCache.describe(POSIXError(.EACCES)) == "Permission denied")
        #expect(PhotoCache.describe(NSError(domain: NSPOSIXErrorDomain, code: Int(ENOSPC))) == "No space left on device")
        #expect(PhotoCache.describe(CocoaError(.fileWriteNoPermission, userInfo: [NSUnderlyingErrorKey: POSIXError(.EROFS)])) == "Read-only file system")
        for error: any Error in [CocoaError(.fileWriteOutOfSpace), Described(), NSError(domain: "x", code: 1)] {
            #expect(!PhotoCache.describe(error).contains("Error Domain"), "\(error)")
        }
    }
}
