import Foundation
import PhotosTerminal
@_exported import PhotosTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

@testable import PhotosImaging

/// Paths and helpers shared by the imaging tests.
enum Fixture {
    static let root = FixtureFiles.root
    static let images = root.appendingPathComponent("images")
    static let golden = root.appendingPathComponent("golden")

    static func image(_ name: String) -> URL { images.appendingPathComponent(name) }

    static func data(_ name: String) throws -> Data { try Data(contentsOf: image(name)) }

    /// A fresh temporary folder, removed by the caller.
    static func temporaryFolder() throws -> URL { try PhotosTestSupport.temporaryFolder("imaging") }

    /// The built test tool (next to the test bundle).
    static let gridSample: URL? = {
        var url = Bundle.main.bundleURL
        while true {
            let candidate = url.appendingPathComponent("photos-grid-sample")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            let parent = url.deletingLastPathComponent()
            if parent == url { return nil }
            url = parent
        }
    }()
}

/// Compares `actual` with `Fixtures/golden/<name>`; PHOTOS_RECORD_GOLDEN=1 (re)writes the file.
func expectGolden(_ actual: String, named name: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
    let file = Fixture.golden.appendingPathComponent(name)
    if ProcessInfo.processInfo.environment["PHOTOS_RECORD_GOLDEN"] == "1" {
        try FileManager.default.createDirectory(at: Fixture.golden, withIntermediateDirectories: true)
        try Data(actual.utf8).write(to: file)
        return
    }
    guard let expected = FileManager.default.contents(atPath: file.path) else {
        Issue.record("missing golden \(name); run with PHOTOS_RECORD_GOLDEN=1 to record it", sourceLocation: sourceLocation)
        return
    }
    #expect(
        Data(actual.utf8) == expected,
        "output differs from golden \(name) (re-record with PHOTOS_RECORD_GOLDEN=1 if the change is intended)",
        sourceLocation: sourceLocation)
}

enum ANSI {
    /// Removes CSI sequences (`ESC [ ... final`) and two-byte escapes like `ESC 7`.
    static func strip(_ text: String) -> String {
        var result = String.UnicodeScalarView()
        var scalars = text.unicodeScalars.makeIterator()
        while let scalar = scalars.next() {
            guard scalar == "\u{1B}" else { result.append(scalar); continue }
            guard let next = scalars.next() else { break }
            if next == "[" {
                while let byte = scalars.next(), !(0x40...0x7E).contains(byte.value) {}
            }
        }
        return String(result)
    }

    /// Display width of one line after escapes are removed.
    static func visibleWidth(_ line: String) -> Int {
        TerminalText.displayWidth(strip(line))
    }
}

/// Runs a program to completion and returns its status and stdout.
@discardableResult
func run(_ executable: String, _ arguments: [String], environment: [String: String]? = nil) throws -> (status: Int32, stdout: String) {
    let run = try runProgram(executable, arguments, environment: environment)
    return (run.status, run.stdout)
}

/// Runs a program that leaves a daemon behind (tmux new-session) and returns its exit status.
///
/// Foundation's `Process.waitUntilExit` on Linux also waits for descriptors the daemon inherits,
/// so this uses posix_spawn and waitpid, with stdio on /dev/null.
func spawnAndWait(_ executable: String, _ arguments: [String], environment: [String: String]) throws -> Int32 {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    for descriptor: Int32 in 0...2 {
        posix_spawn_file_actions_addopen(&actions, descriptor, "/dev/null", descriptor == 0 ? O_RDONLY : O_WRONLY, 0)
    }
    let argv = ([executable] + arguments).map { strdup($0) } + [nil]
    let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
    defer { (argv + envp).forEach { free($0) } }
    var pid: pid_t = 0
    let status = posix_spawn(&pid, executable, &actions, nil, argv, envp)
    guard status == 0 else { throw POSIXError(POSIXErrorCode(rawValue: status) ?? .EIO) }
    var exitStatus: Int32 = 0
    while waitpid(pid, &exitStatus, 0) == -1, errno == EINTR {}
    return (exitStatus >> 8) & 0xFF
}

/// The first `which`-style match for `name` on PATH.
func findExecutable(_ name: String) -> String? {
    let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
    return path.split(separator: ":").map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
}

/// CRC-32 (PNG chunks), for crafting PNG headers in tests.
func crc32(_ bytes: [UInt8]) -> UInt32 {
    var crc: UInt32 = 0xFFFF_FFFF
    for byte in bytes {
        crc ^= UInt32(byte)
        for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
    }
    return ~crc
}

func bigEndian(_ value: UInt32) -> [UInt8] {
    [UInt8(value >> 24 & 0xFF), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
}

/// A PNG chunk with its length and CRC.
func pngChunk(_ type: String, _ payload: [UInt8]) -> [UInt8] {
    let body = Array(type.utf8) + payload
    return bigEndian(UInt32(payload.count)) + body + bigEndian(crc32(body))
}
