import FixtureServerKit
import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The built `photos` binary, run as users and scripts run it: its own empty cache, no config
/// file, stdin closed, stdout and stderr captured.
public struct PhotosBinary: Sendable {
    /// What one run printed and how it exited.
    public struct Run: Sendable {
        public let status: Int32
        public let stdoutBytes: Data
        public let stderr: String
        public var stdout: String { String(decoding: stdoutBytes, as: UTF8.self) }

        /// stdout parsed as one JSON object.
        public func json() throws -> [String: Any] {
            guard let object = try JSONSerialization.jsonObject(with: stdoutBytes) as? [String: Any] else {
                throw CocoaError(.coderReadCorrupt)
            }
            return object
        }
    }

    /// A started run: wait for it, or signal it first.
    public final class Running: @unchecked Sendable {
        public let process: SpawnedProcess
        private let output: (out: URL, err: URL, handles: [FileHandle])

        fileprivate init(process: SpawnedProcess, out: URL, err: URL, handles: [FileHandle]) {
            self.process = process
            output = (out, err, handles)
        }

        /// Waits for the process without blocking a cooperative thread, then collects its output.
        public func finish() async throws -> Run {
            let exited = AsyncStream<Void>.makeStream()
            DispatchQueue.global().async { [process] in
                process.waitUntilExit()
                exited.continuation.finish()
            }
            for await _ in exited.stream {}
            for handle in output.handles { try handle.close() }
            defer {
                try? FileManager.default.removeItem(at: output.out)
                try? FileManager.default.removeItem(at: output.err)
            }
            return Run(
                status: process.terminationStatus, stdoutBytes: try Data(contentsOf: output.out),
                stderr: String(decoding: try Data(contentsOf: output.err), as: UTF8.self))
        }
    }

    /// The `photos` executable beside the test bundle (or in one of its parent folders).
    public static let executable: URL = {
        var url = Bundle.main.bundleURL
        while !FileManager.default.isExecutableFile(atPath: url.appendingPathComponent("photos").path) {
            let parent = url.deletingLastPathComponent()
            if parent == url { break }
            url = parent
        }
        return url.appendingPathComponent("photos")
    }()

    /// A private folder: HOME, the cache and captured output live here.
    public let home: URL
    public var environment: [String: String]
    public var cacheFolder: URL { home.appendingPathComponent("cache") }

    /// A binary set up for `server` (its CA, every provider's emulation, the test API key), or
    /// for no server at all.
    public init(server: FixtureServer?) throws {
        home = FileManager.default.temporaryDirectory.appendingPathComponent("photos-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        environment = [
            "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin",
            "HOME": home.path,
            "PHOTOS_CACHE_DIR": home.appendingPathComponent("cache").path,
            "PHOTOS_CONFIG": "/dev/null",
            "COLUMNS": "100",
            "TERM": "xterm-256color",
        ]
        if let server {
            // Every provider's endpoints, image hosts and test key, from Fixtures/*/emulation.json.
            environment.merge(server.photosEnvironment) { $1 }
        }
    }

    /// Removes the private folder.
    /// A viewer for PHOTOS_OPENER: a shell script in `home` running `command` with the image's
    /// path as `$1` and `RECORD` replaced by a file it may write to.
    /// - Returns: the script, and the file it records into.
    public func recordingOpener(_ command: String) throws -> (script: URL, record: URL) {
        let record = home.appendingPathComponent("opened.txt")
        let script = home.appendingPathComponent("opener.sh")
        try "#!/bin/sh\n\(command.replacingOccurrences(of: "RECORD", with: "'\(record.path)'"))\n".write(to: script, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: script.path)
        return (script, record)
    }

    public func remove() {
        try? FileManager.default.removeItem(at: home)
    }

    /// Starts `photos ARGS`; `overrides` set variables, or unset them with nil; `standardInput`
    /// is its stdin (/dev/null when nil).
    public func start(_ arguments: [String], environment overrides: [String: String?] = [:], standardInput: Int32? = nil) throws -> Running {
        var environment = self.environment
        for (key, value) in overrides { environment[key] = value }
        let id = UUID().uuidString
        let out = home.appendingPathComponent("stdout-\(id)")
        let err = home.appendingPathComponent("stderr-\(id)")
        _ = FileManager.default.createFile(atPath: out.path, contents: nil)
        _ = FileManager.default.createFile(atPath: err.path, contents: nil)
        let outHandle = try FileHandle(forWritingTo: out)
        let errHandle = try FileHandle(forWritingTo: err)
        let process = try SpawnedProcess(
            Self.executable.path, arguments: arguments, environment: environment,
            standardOutput: outHandle.fileDescriptor, standardError: errHandle.fileDescriptor, standardInput: standardInput)
        return Running(process: process, out: out, err: err, handles: [outHandle, errHandle])
    }

    /// Runs `photos ARGS` to completion.
    public func run(_ arguments: [String], environment overrides: [String: String?] = [:]) async throws -> Run {
        try await start(arguments, environment: overrides).finish()
    }
}

/// A child process started with `posix_spawn`, stdin from /dev/null, and no descriptor of this
/// process but the two given (`closefrom` in the child).
///
/// Not Foundation's `Process`: on Linux it walks `/proc/self/fd` and adds a close for each open
/// descriptor, and it crashed doing so while a test process held more than 1,350 of them (the
/// in-process transport tests, run in parallel, hold hundreds of files and sockets).
public final class SpawnedProcess: Sendable {
    public let processIdentifier: Int32
    /// The wait status once reaped.
    private let status = Mutex<Int32?>(nil)
    private let reaped = DispatchGroup()

    /// - Parameter standardInput: stdin (a terminal, for `browse`); /dev/null when nil.
    public init(
        _ path: String, arguments: [String], environment: [String: String], standardOutput: Int32, standardError: Int32,
        standardInput: Int32? = nil
    ) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if let standardInput {
            posix_spawn_file_actions_adddup2(&actions, standardInput, 0)
        } else {
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        }
        posix_spawn_file_actions_adddup2(&actions, standardOutput, 1)
        posix_spawn_file_actions_adddup2(&actions, standardError, 2)
        // glibc 2.34's posix_spawn_file_actions_addclosefrom_np, which Swift's Glibc does not export.
        if let closeFrom = Self.addCloseFrom { _ = closeFrom(&actions, 3) }
        // Its own process group, as Foundation's Process starts it, and with the signals a shell
        // gives a command: none blocked, each at its default (the test process's threads block
        // them, and an ignored SIGINT would be inherited until photos sets its own handler).
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        var all = sigset_t()
        sigfillset(&all)
        sigdelset(&all, SIGKILL)
        sigdelset(&all, SIGSTOP)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in argv + envp { free(pointer) }
        }
        var pid: pid_t = 0
        let code = posix_spawn(&pid, path, &actions, &attributes, argv, envp)
        guard code == 0 else { throw POSIXError(POSIXErrorCode(rawValue: code) ?? .EINVAL) }
        processIdentifier = pid
        reaped.enter()
        let thread = Thread { [self] in
            var wait: Int32 = 0
            while waitpid(processIdentifier, &wait, 0) < 0 && errno == EINTR {}
            status.withLock { $0 = wait }
            reaped.leave()
        }
        thread.start()
    }

    private typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
    private static let addCloseFrom: AddCloseFrom? = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np")
        .map { unsafeBitCast($0, to: AddCloseFrom.self) }

    public var isRunning: Bool { status.withLock { $0 == nil } }

    public func waitUntilExit() { reaped.wait() }

    /// The exit code, or the signal that ended it (as Foundation's Process reports them).
    public var terminationStatus: Int32 {
        let wait = status.withLock { $0 } ?? 0
        return terminationReason == .exit ? (wait >> 8) & 0xFF : wait & 0x7F
    }

    public var terminationReason: Process.TerminationReason {
        let wait = status.withLock { $0 } ?? 0
        return wait & 0x7F == 0 ? .exit : .uncaughtSignal
    }
}
