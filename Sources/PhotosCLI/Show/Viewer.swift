import Foundation
import PhotosCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The image viewer photos starts for the user (`show --open`, browse's `o`): a program and its
/// arguments, the image's path last, never through a shell.
///
/// Started with `posix_spawn` rather than Foundation's `Process`, which passed on the signal
/// mask of the thread it ran on: photos' threads block every signal, so the viewer could not be
/// stopped with Ctrl-C or `kill`, only with SIGKILL, and it ignored SIGPIPE as photos does. Here
/// it starts with no signal blocked and every signal at its default action, with no descriptor
/// of photos' but its standard input, output and error. `show --open` runs it in photos' own
/// process group, in the terminal's foreground (a viewer drawing in the terminal may set it up;
/// in a background group SIGTTOU would stop it); browse runs it in a group of its own, apart from
/// the screen browse is drawing.
struct Viewer: Sendable {
    let executable: String
    let arguments: [String]

    /// The program's name, for messages.
    var name: String { URL(fileURLWithPath: executable).lastPathComponent }

    /// Where the viewer's standard output and error go. Its standard input is /dev/null.
    enum Output {
        /// Both to photos' standard error (what a viewer prints is not photos' data), in photos'
        /// process group.
        case standardError
        /// Nowhere, in a process group of its own: a viewer must not draw on browse's screen.
        case discarded
    }

    /// Starts the viewer.
    /// - Returns: its process id.
    /// - Throws: `PhotosError.unavailable` when it cannot be started.
    func start(output: Output, file: URL) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        switch output {
        case .standardError:
            posix_spawn_file_actions_adddup2(&actions, 2, 1)
        case .discarded:
            posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
            posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        }
        if let closeFrom = Self.addCloseFrom { _ = closeFrom(&actions, 3) }

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
        var flags = POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF
        if case .discarded = output {
            posix_spawnattr_setpgroup(&attributes, 0)
            flags |= POSIX_SPAWN_SETPGROUP
        }
        posix_spawnattr_setflags(&attributes, Int16(flags))

        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let code = posix_spawn(&pid, executable, &actions, &attributes, argv, environ)
        guard code == 0 else {
            throw PhotosError.unavailable(
                provider: "opener", detail: "cannot run \(executable): \(String(cString: strerror(code))); the image is at \(file.path)")
        }
        return pid
    }

    /// Waits for browse's viewer `pid` to end, blocking the thread. A viewer that stops (most
    /// often for reaching for the terminal from its background group: SIGTTOU, SIGTTIN) would
    /// never end: `stopped` is called, and it is sent SIGTERM and continued.
    /// - Returns: its exit status; nil when a signal ended it (the user closing it so is no failure).
    static func wait(_ pid: pid_t, stopped: () -> Void) -> Int32? {
        var status: Int32 = 0
        while true {
            if waitpid(pid, &status, WUNTRACED) < 0 {
                guard errno == EINTR else { return nil }
                continue
            }
            guard status & 0xFF == 0x7F else { return exitStatus(status) }  // WIFSTOPPED
            stopped()
            kill(pid, SIGTERM)
            kill(pid, SIGCONT)
        }
    }

    /// Waits for the viewer `pid` to end, looking every 50 ms, so that a stop signal ends photos
    /// at once (a viewer the signal did not reach as well stays open).
    /// - Throws: `CancellationError`.
    static func waitAsync(_ pid: pid_t) async throws -> Int32? {
        var status: Int32 = 0
        while true {
            let reaped = waitpid(pid, &status, WNOHANG)
            if reaped == pid { return exitStatus(status) }
            if reaped < 0, errno != EINTR { return nil }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    private static func exitStatus(_ status: Int32) -> Int32? {
        status & 0x7F == 0 ? (status >> 8) & 0xFF : nil
    }

    /// glibc 2.34's `posix_spawn_file_actions_addclosefrom_np`, which Swift's Glibc does not export.
    private typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
    private static let addCloseFrom: AddCloseFrom? = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np")
        .map { unsafeBitCast($0, to: AddCloseFrom.self) }
}
