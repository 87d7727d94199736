import Foundation
import PhotosTestSupport
import Testing

/// A cache folder the user may not read or write (another user's, or one made by `sudo photos`).
/// Root reads every folder, so photos runs as `nobody` through setpriv, which only root can do
/// (elsewhere the suite is reported as skipped, with this reason).
@Suite(.enabled(if: getuid() == 0 && findExecutable("setpriv") != nil, "running photos as another user needs root and setpriv"))
struct PermissionTests {
    @Test func aCacheFolderThisUserMayNotReadIsSaidNotReportedEmpty() async throws {
        let photos = try PhotosBinary(server: nil)
        defer { photos.remove() }
        // A cache with an index, made by root: its folder is the user's only (0700).
        try FileManager.default.createDirectory(at: photos.cacheFolder, withIntermediateDirectories: true)
        #expect(try await photos.run(["cache", "clear"]).status == 0)
        #expect(FileManager.default.fileExists(atPath: photos.cacheFolder.appendingPathComponent("index.sqlite").path))
        #expect(chmod(photos.cacheFolder.path, 0o700) == 0)
        // A copy of photos that nobody may run (the build folder may be in a private home).
        let bin = photos.home.appendingPathComponent("bin")
        try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
        let copy = bin.appendingPathComponent("photos")
        // Written through a descriptor no child inherits (O_CLOEXEC): a child another test
        // spawns meanwhile (a tmux server lives on) would hold it open for writing, and exec
        // would fail with ETXTBSY.
        let bytes = try Data(contentsOf: PhotosBinary.executable)
        let descriptor = open(copy.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o755)
        try #require(descriptor >= 0)
        let written = bytes.withUnsafeBytes { buffer -> Int in
            var done = 0
            while done < buffer.count {
                let count = write(descriptor, buffer.baseAddress! + done, buffer.count - done)
                if count <= 0 { break }
                done += count
            }
            return done
        }
        close(descriptor)
        try #require(written == bytes.count)
        #expect(chmod(copy.path, 0o755) == 0 && chmod(bin.path, 0o755) == 0 && chmod(photos.home.path, 0o755) == 0)

        func asNobody(_ arguments: [String]) throws -> ProgramRun {
            // The copy may still be open for writing in a child that another test forked
            // meanwhile (until it execs): exec then fails with ETXTBSY, for a moment.
            for _ in 1...50 {
                let run = try runTool(findExecutable("setpriv")!, ["--reuid=65534", "--regid=65534", "--clear-groups", copy.path] + arguments, environment: photos.environment)
                guard run.status == 126, run.stderr.contains("Text file busy") else { return run }
                usleep(100_000)
            }
            return try runTool(findExecutable("setpriv")!, ["--reuid=65534", "--regid=65534", "--clear-groups", copy.path] + arguments, environment: photos.environment)
        }
        let stats = try asNobody(["cache", "stats"])
        #expect(stats.status == 69, "\(stats.status): \(stats.stdout) \(stats.stderr)")
        #expect(!stats.stdout.contains("0 pages"), "an unreadable cache is not reported empty: \(stats.stdout)")
        #expect(stats.stderr.contains("the folder \(photos.cacheFolder.path) is not readable and writable by this user"), "\(stats.stderr)")
        let json = try asNobody(["cache", "stats", "--format", "json"])
        #expect(json.status == 69 && json.stdout.isEmpty, "\(json.status): \(json.stdout)")

        // A cache inside a folder this user may not enter is no cache that is not there yet:
        // what is wrong is said, and nothing claims it was cleared or holds nothing.
        let closed = photos.home.appendingPathComponent("closed")
        let inside = closed.appendingPathComponent("cache")
        try FileManager.default.createDirectory(at: inside, withIntermediateDirectories: true)
        #expect(chmod(closed.path, 0o700) == 0)
        var environment = photos.environment
        environment["PHOTOS_CACHE_DIR"] = inside.path
        for arguments in [["cache", "stats"], ["cache", "clear"], ["cache", "prune"], ["list", "--provider", "placeholder", "--offline"]] {
            let run = try runTool(findExecutable("setpriv")!, ["--reuid=65534", "--regid=65534", "--clear-groups", copy.path] + arguments, environment: environment)
            #expect(run.status == 69, "\(arguments): \(run.status) \(run.stdout) \(run.stderr)")
            #expect(!run.stderr.contains("no cache at") && !run.stdout.contains("Removed"), "\(arguments): \(run.stdout) \(run.stderr)")
            #expect(run.stderr.contains("not readable and writable by this user"), "\(arguments): \(run.stderr)")
        }
    }
}
