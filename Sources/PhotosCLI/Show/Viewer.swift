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
/// it starts with no signal blocked and every signal at its default action, in its own process
/// group (a viewer outlives a browse, and Ctrl-C meant for photos is not meant for it), with no
/// descriptor of photos' but its standard input, output and error.
struct Viewer: Sendable {
    let executable: String
    let arguments: [String]

    /// The program's name, for messages.
    var name: String { URL(fileURLWithPath: executable).lastPathComponent }

    /// Where the viewer's standard output and error go. Its standard input is /dev/null.
    enum Output {
        /// Both to photos' standard error: what a viewer prints is not photos' data.
        case standardError
        /// Nowhere: a viewer must not draw on browse's screen.
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
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP))

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

    /// Waits for the viewer `pid` to end.
    /// - Returns: its exit status; nil when a signal ended it (the user closing it so is no failure).
    static func wait(_ pid: pid_t) -> Int32? {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            guard errno == EINTR else { return nil }
        }
        return status & 0x7F == 0 ? (status >> 8) & 0xFF : nil
    }

    /// glibc 2.34's `posix_spawn_file_actions_addclosefrom_np`, which Swift's Glibc does not export.
    private typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
    private static let addCloseFrom: AddCloseFrom? = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np")
        .map { unsafeBitCast($0, to: AddCloseFrom.self) }
}
