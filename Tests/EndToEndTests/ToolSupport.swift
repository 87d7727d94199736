import Foundation
import PhotosTestSupport

/// The package's root folder (holding Package.swift, scripts/ and .build/).
let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

/// Runs `program` with `arguments` to completion, stdin closed, output captured.
func runTool(_ program: String, _ arguments: [String], environment: [String: String]? = nil) throws -> ProgramRun {
    try runProgram(program, arguments, environment: environment)
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

/// Runs a program that leaves a daemon behind (tmux new-session) and returns its exit status.
/// `Process.waitUntilExit` on Linux also waits for descriptors the daemon inherits, so this uses
/// posix_spawn and waitpid, with stdio on /dev/null.
func spawnDaemonAndWait(_ executable: String, _ arguments: [String], environment: [String: String]) throws -> Int32 {
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
