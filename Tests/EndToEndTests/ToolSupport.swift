import Foundation

/// The package's root folder (holding Package.swift, scripts/ and .build/).
let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

/// What one run of a program printed and how it exited.
struct ToolRun {
    var status: Int32
    var stdout: String
    var stderr: String
}

/// Runs `program` with `arguments` to completion, stdin closed, output captured.
func runTool(
    _ program: String, _ arguments: [String], environment: [String: String]? = nil, directory: URL? = nil
) throws -> ToolRun {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: program)
    process.arguments = arguments
    if let environment { process.environment = environment }
    if let directory { process.currentDirectoryURL = directory }
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("photos-tool-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let out = folder.appendingPathComponent("out"), err = folder.appendingPathComponent("err")
    FileManager.default.createFile(atPath: out.path, contents: nil)
    FileManager.default.createFile(atPath: err.path, contents: nil)
    let outHandle = try FileHandle(forWritingTo: out), errHandle = try FileHandle(forWritingTo: err)
    process.standardOutput = outHandle
    process.standardError = errHandle
    process.standardInput = FileHandle.nullDevice
    try process.run()
    process.waitUntilExit()
    try outHandle.close()
    try errHandle.close()
    return ToolRun(
        status: process.terminationStatus, stdout: String(decoding: try Data(contentsOf: out), as: UTF8.self),
        stderr: String(decoding: try Data(contentsOf: err), as: UTF8.self))
}

/// The full path of `name` on PATH (or in the usual system folders), if it is installed.
func findExecutable(_ name: String) -> String? {
    let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
    for folder in path.split(separator: ":").map(String.init) + ["/usr/bin", "/bin", "/usr/sbin", "/sbin"] {
        let candidate = folder + "/" + name
        if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
    }
    return nil
}
