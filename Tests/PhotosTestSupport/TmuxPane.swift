import Foundation

/// A program running in a detached tmux pane of a fixed size, driven as a person would: keys
/// sent with `send-keys`, the screen read back with `capture-pane`. Each pane has a tmux server
/// of its own on a socket in its folder, so a user's tmux is never touched; ``kill()`` ends it.
public final class TmuxPane: @unchecked Sendable {
    /// tmux on PATH, if any.
    public static let executable: String? = {
        for folder in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") {
            let candidate = "\(folder)/tmux"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }()

    public static var isAvailable: Bool { executable != nil }

    public let folder: URL
    private let tmux: String
    private let socket: String
    private let session = "photos"

    /// Starts `command` (run by /bin/sh) in a `width` x `height` pane.
    /// - Throws: when tmux is missing or does not start.
    public init(command: String, width: Int, height: Int, folder: URL) throws {
        guard let tmux = Self.executable else { throw CocoaError(.executableNotLoadable) }
        self.tmux = tmux
        self.folder = folder
        socket = folder.appendingPathComponent("tmux.sock").path
        let status = try spawnAndWait(baseArguments + ["new-session", "-d", "-x", "\(width)", "-y", "\(height)", "-s", session, command])
        guard status == 0 else { throw CocoaError(.fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: "tmux new-session failed"]) }
    }

    private var baseArguments: [String] { ["-u", "-S", socket, "-f", "/dev/null"] }

    /// Runs tmux with `arguments`; returns its stdout.
    private var environment: [String: String] {
        [
            "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin", "HOME": folder.path,
            "TERM": "xterm-256color", "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8",
        ]
    }

    /// Starts the tmux server (which outlives the command that forks it) with posix_spawn and
    /// waitpid: Foundation's `Process.waitUntilExit` on Linux would also wait for the
    /// descriptors the server inherits.
    private func spawnAndWait(_ arguments: [String]) throws -> Int32 {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for descriptor: Int32 in 0...2 {
            posix_spawn_file_actions_addopen(&actions, descriptor, "/dev/null", descriptor == 0 ? O_RDONLY : O_WRONLY, 0)
        }
        let argv = ([tmux] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid: pid_t = 0
        let status = posix_spawn(&pid, tmux, &actions, nil, argv, envp)
        guard status == 0 else { throw POSIXError(POSIXErrorCode(rawValue: status) ?? .EIO) }
        var exitStatus: Int32 = 0
        while waitpid(pid, &exitStatus, 0) == -1, errno == EINTR {}
        return (exitStatus >> 8) & 0xFF
    }

    /// Runs a tmux command that ends at once; returns its stdout.
    @discardableResult
    public func run(_ arguments: [String]) throws -> String {
        let run = try runProgram(tmux, baseArguments + arguments, environment: environment)
        guard run.status == 0 else {
            throw CocoaError(.fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: "tmux \(arguments.first ?? "") failed"])
        }
        return run.stdout
    }

    /// The screen as text (no colours).
    public func capture() throws -> String {
        try run(["capture-pane", "-p", "-t", session])
    }

    /// Sends keys by tmux's names (`Down`, `Enter`, `Escape`, `C-c`, `q`, ...).
    public func send(_ keys: String...) throws {
        try run(["send-keys", "-t", session] + keys)
    }

    /// Types `text` literally.
    public func type(_ text: String) throws {
        try run(["send-keys", "-t", session, "-l", text])
    }

    /// A tmux format about the pane, e.g. `#{alternate_on}` or `#{cursor_flag}`.
    public func display(_ format: String) throws -> String {
        try run(["display-message", "-p", "-t", session, format]).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    public func resize(width: Int, height: Int) throws {
        try run(["resize-window", "-t", session, "-x", "\(width)", "-y", "\(height)"])
    }

    /// Ends the pane's tmux server (kill-session: the server exits with its last session).
    public func kill() {
        _ = try? run(["kill-session", "-t", session])
    }

    /// Polls the screen until `condition` holds, and returns it; throws with the last screen
    /// after `timeout`. Polls sleep between captures, so a loaded machine only makes it slower.
    @discardableResult
    public func waitForScreen(
        _ what: String, timeout: Duration = .seconds(120), _ condition: (String) -> Bool
    ) async throws -> String {
        try await waitFor(what, timeout: timeout) {
            let screen = try capture()
            return condition(screen) ? screen : nil
        }
    }

    /// Polls `probe` every 50 ms until it returns a value; throws after `timeout` with what it waited for.
    @discardableResult
    public func waitFor<T>(_ what: String, timeout: Duration = .seconds(120), _ probe: () throws -> T?) async throws -> T {
        let deadline = ContinuousClock.now + timeout
        while true {
            if let value = try probe() { return value }
            guard ContinuousClock.now < deadline else {
                let screen = (try? capture()) ?? "(no screen)"
                throw WaitTimeout(description: "timed out waiting for \(what); the screen:\n\(screen)")
            }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    public struct WaitTimeout: Error, CustomStringConvertible {
        public let description: String
    }
}
