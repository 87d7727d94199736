import FixtureServerKit
import Foundation
import PhotosTestSupport
import Testing

/// A cache on a nearly full file system: a small tmpfs (mounting one needs root, which the
/// project's CI machines have; elsewhere the test is reported as skipped, with this reason).
@Suite(.enabled(if: getuid() == 0, "mounting a tmpfs needs root"))
struct FullDiskTests {
    @Test func aFullDiskFailsThumbnailsClearlyAndLeavesNoPartialFile() async throws {
        try await withServer { _, photos in try await withTmpfs(photos, "tiny", size: "200k") { mountPoint in
            let cache = mountPoint.appendingPathComponent("cache").path

            let run = try await photos.run(["list", "--provider", "placeholder", "--per-page", "100"], environment: ["PHOTOS_CACHE_DIR": cache])
            #expect(run.status == 0, "the listing still prints")
            #expect(run.stdout.split(separator: "\n").count == 101)
            #expect(run.stderr.contains("No space left on device"))
            let leftovers = FileManager.default.enumerator(atPath: cache)?.compactMap { $0 as? String }
                .filter { $0.hasSuffix(".photos-partial") } ?? []
            #expect(leftovers.isEmpty, "no partial file is left behind")

            let stats = try await photos.run(["cache", "stats"], environment: ["PHOTOS_CACHE_DIR": cache])
            #expect(stats.status == 0)

            // A full image that the full cache cannot hold still reaches the viewer: downloaded
            // outside the cache (TMPDIR), and the note says why and where.
            let open = try await photos.run(
                ["show", "flickr:53624890009", "--open"], environment: ["PHOTOS_CACHE_DIR": cache, "PHOTOS_OPENER": "/bin/true", "TMPDIR": photos.home.path])
            #expect(open.status == 0, "\(open.status): \(open.stderr)")
            #expect(open.stderr.contains("No space left on device") && open.stderr.contains("it was downloaded to \(photos.home.path)/photos-"), "\(open.stderr)")
        } }
    }
}

extension FullDiskTests {
    @Test func aCacheFilledByItsIndexHoldsNoUnknownFileAndCanBeCleared() async throws {
        try await withServer { _, photos in try await withTmpfs(photos, "small", size: "600k") { mountPoint in
            let cache = mountPoint.appendingPathComponent("cache")
            let environment = ["PHOTOS_CACHE_DIR": cache.path]

            // A listing of 300 whose index fills the disk before its thumbnails are recorded.
            let run = try await photos.run(["list", "--provider", "flickr", "--query", "many", "--per-page", "300", "--format", "jsonl"], environment: environment)
            #expect(run.status == 0, "\(run.stderr)")
            let files = (try? FileManager.default.contentsOfDirectory(atPath: cache.appendingPathComponent("images").path)) ?? []
            let stats = try await photos.run(["cache", "stats", "--format", "json"], environment: environment)
            #expect(files.count == (try stats.json()["images"] as? Int), "every image file is one the index knows: \(files.count) files")
            // Every thumbnail_path printed exists, or a warning says some no longer do.
            let printed = run.stdout.split(separator: "\n").compactMap { line in
                (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["thumbnail_path"] as? String
            }
            let missing = printed.filter { !FileManager.default.fileExists(atPath: $0) }
            #expect(missing.isEmpty || run.stderr.contains("a path printed for one of them no longer exists"),
                "\(missing.count) of \(printed.count) printed paths are gone: \(run.stderr)")

            // Clearing works on the full disk, and gives its room back.
            let clear = try await photos.run(["cache", "clear"], environment: environment)
            #expect(clear.status == 0, "\(clear.stderr)")
            let free = try FileManager.default.attributesOfFileSystem(forPath: mountPoint.path)[.systemFreeSize] as? Int ?? 0
            #expect(free > 300 * 1024, "the room came back: \(free) bytes free")
            let again = try await photos.run(["list", "--provider", "placeholder", "--per-page", "3", "--format", "jsonl"], environment: environment)
            #expect(again.status == 0 && again.stdout.split(separator: "\n").count == 3, "\(again.stderr)")
        } }
    }

    /// A cache on a file system mounted read-only (a snapshot, a shared copy) is read, with one
    /// warning that nothing new is kept; commands that would change it fail clearly (74).
    @Test func aCacheOnAReadOnlyFileSystemIsReadAndKeptAsItIs() async throws {
        try await withServer { _, photos in try await withTmpfs(photos, "readonly", size: "2m") { mountPoint in
            let environment = ["PHOTOS_CACHE_DIR": mountPoint.appendingPathComponent("cache").path]
            let listing = ["list", "--provider", "flickr", "--query", "many", "--per-page", "5", "--format", "jsonl"]
            let first = try await photos.run(listing, environment: environment)
            #expect(first.status == 0, "\(first.stderr)")
            #expect(try shell("/bin/mount", ["-o", "remount,ro", mountPoint.path]) == 0, "remount read-only")

            let offline = try await photos.run(listing + ["--offline"], environment: environment)
            #expect(offline.status == 0, "\(offline.stderr)")
            #expect(offline.stdout == first.stdout, "the same photos and thumbnail files")
            #expect(offline.stderr.hasPrefix("photos: warning: the cache at ") && offline.stderr.contains("is on a read-only file system: photos reads what it holds and keeps nothing new"), "\(offline.stderr)")
            #expect(offline.stderr.split(separator: "\n").count == 1, "one warning: [\(offline.stderr)]")

            let clear = try await photos.run(["cache", "clear"], environment: environment)
            #expect(clear.status == 74 && clear.stderr.contains("the cache is on a read-only file system; nothing in it can be changed"), "\(clear.stderr)")
        } }
    }

    /// A read-only copy of a cache without its `-shm` file (which looks temporary, and backups
    /// leave out) still holds the last runs' listings, in its write-ahead log: they are read.
    /// The copy of the index made to read them goes when the command ends.
    @Test func aReadOnlyCacheWithoutItsSharedMemoryFileIsReadWhole() async throws {
        try await withServer { _, photos in try await withTmpfs(photos, "readonly-noshm", size: "2m") { mountPoint in
            let cache = mountPoint.appendingPathComponent("cache")
            let temporary = photos.home.appendingPathComponent("tmp")
            try FileManager.default.createDirectory(at: temporary, withIntermediateDirectories: true)
            let environment = ["PHOTOS_CACHE_DIR": cache.path, "TMPDIR": temporary.path]
            let listing = ["list", "--provider", "flickr", "--query", "many", "--per-page", "5", "--format", "jsonl"]
            let first = try await photos.run(listing, environment: environment)
            #expect(first.status == 0, "\(first.stderr)")
            let wal = try FileManager.default.attributesOfItem(atPath: cache.appendingPathComponent("index.sqlite-wal").path)[.size] as? Int ?? 0
            #expect(wal > 0, "the run's pages are in the write-ahead log")
            try FileManager.default.removeItem(at: cache.appendingPathComponent("index.sqlite-shm"))
            #expect(try shell("/bin/mount", ["-o", "remount,ro", mountPoint.path]) == 0, "remount read-only")

            // The copy a reader killed by SIGKILL left (its process gone), and one of a process
            // still running (this one): the first is removed by the next reader, the second kept.
            let ended = try runProgram("/bin/sh", ["-c", "echo $$"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            let left = temporary.appendingPathComponent("photos-index-\(ended)-Ab3dEf")
            let running = temporary.appendingPathComponent("photos-index-\(getpid())-keepme")
            for folder in [left, running] {
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false)
                try Data("x".utf8).write(to: folder.appendingPathComponent("index.sqlite"))
            }

            let offline = try await photos.run(listing + ["--offline"], environment: environment)
            #expect(offline.status == 0, "\(offline.stderr)")
            #expect(offline.stdout == first.stdout, "the same photos and thumbnail files")
            #expect(offline.stderr.split(separator: "\n").count == 1 && offline.stderr.contains("is on a read-only file system"), "[\(offline.stderr)]")
            #expect(try FileManager.default.contentsOfDirectory(atPath: temporary.path) == [running.lastPathComponent],
                "no copy of the index is left but the running process's")
        } }
    }

    /// A cache folder that cannot be made, its parent on a read-only file system, is said as
    /// that (it was "the cache index at …/index.sqlite cannot be used (Read-only file system)").
    @Test func aCacheFolderThatCannotBeMadeIsSaidAsThat() async throws {
        try await withServer { _, photos in try await withTmpfs(photos, "readonly-parent", size: "1m") { mountPoint in
            #expect(try shell("/bin/mount", ["-o", "remount,ro", mountPoint.path]) == 0, "remount read-only")
            let cache = mountPoint.appendingPathComponent("photos/cache").path
            let run = try await photos.run(["list", "--provider", "placeholder", "--per-page", "2", "--no-thumbnails"], environment: ["PHOTOS_CACHE_DIR": cache])
            #expect(run.status == 0, "the listing goes on without the cache: \(run.stderr)")
            #expect(run.stderr.contains("the folder \(cache) cannot be made: \(mountPoint.path) is on a read-only file system"), "\(run.stderr)")
        } }
    }

    /// A save into a folder on a read-only file system says so once and downloads nothing.
    @Test func aSaveIntoAReadOnlyFolderStopsBeforeDownloading() async throws {
        try await withServer { server, photos in try await withTmpfs(photos, "readonly-to", size: "1m") { mountPoint in
            #expect(try shell("/bin/mount", ["-o", "remount,ro", mountPoint.path]) == 0, "remount read-only")
            server.resetStats()
            let run = try await photos.run(["save", "--provider", "flickr", "--query", "many", "--limit", "50", "--size", "small", "--to", mountPoint.path])
            #expect(run.status == 74)
            #expect(run.stderr == "photos: error: cannot write \(mountPoint.path): Read-only file system\n", "\(run.stderr)")
            #expect(server.stats().requests == 0, "no listing and no image fetched for a folder that cannot take them")
        } }
    }
}

/// Runs a program and returns its exit status.
func shell(_ program: String, _ arguments: [String]) throws -> Int32 {
    try runProgram(program, arguments).status
}

/// Runs `body` with a tmpfs of `size` mounted at a new folder `name` of `photos`' home: a disk
/// that fills up. Unmounted after, however `body` ends.
func withTmpfs<T>(_ photos: PhotosBinary, _ name: String, size: String, _ body: (URL) async throws -> T) async throws -> T {
    let mountPoint = photos.home.appendingPathComponent(name)
    try FileManager.default.createDirectory(at: mountPoint, withIntermediateDirectories: true)
    let mounted = try shell("/bin/mount", ["-t", "tmpfs", "-o", "size=\(size)", "tmpfs", mountPoint.path])
    #expect(mounted == 0, "mount -t tmpfs")
    defer { _ = try? shell("/bin/umount", [mountPoint.path]) }
    return try await body(mountPoint)
}
