import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// What one run of a program printed and how it exited.
public struct ProgramRun: Sendable {
    public var status: Int32
    public var stdout: String
    public var stderr: String
}

/// Runs `program` to completion with ``SpawnedProcess`` (never Foundation's `Process`, which
/// crashes while the test process holds more than about 1,350 descriptors): stdin from
/// /dev/null, stdout and stderr captured through files.
/// - Parameters:
///   - environment: the child's whole environment; this process's when nil.
///   - standardOutput: a file stdout is written to instead of being captured (`/dev/full`).
public func runProgram(
    _ program: String, _ arguments: [String], environment: [String: String]? = nil, standardOutput: String? = nil
) throws -> ProgramRun {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("photos-run-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let out = standardOutput ?? folder.appendingPathComponent("out").path
    let err = folder.appendingPathComponent("err").path
    let outDescriptor = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
    guard outDescriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
    defer { close(outDescriptor) }
    let errDescriptor = open(err, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
    guard errDescriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
    defer { close(errDescriptor) }
    let process = try SpawnedProcess(
        program, arguments: arguments, environment: environment ?? ProcessInfo.processInfo.environment,
        standardOutput: outDescriptor, standardError: errDescriptor)
    process.waitUntilExit()
    let stdout = standardOutput == nil ? String(decoding: try Data(contentsOf: URL(fileURLWithPath: out)), as: UTF8.self) : ""
    let stderr = String(decoding: try Data(contentsOf: URL(fileURLWithPath: err)), as: UTF8.self)
    return ProgramRun(status: process.terminationStatus, stdout: stdout, stderr: stderr)
}
