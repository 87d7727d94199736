import Dispatch
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The process's main thread as the executor of a command's tasks: the entry point starts the
/// command in a task that prefers this executor, then runs its jobs as they come, until the
/// command leaves the process.
///
/// On Swift's global executor a command ran on a thread of libdispatch's pool, which its first
/// job had to start, and every await that resumed from another thread (libcurl's, a signal's)
/// woke one of the pool's. A cached listing is one chain of awaits with nothing to run beside
/// it: the main thread, otherwise idle, runs it. Commands with work to run side by side (browse
/// decodes and draws while the keys are read) keep the pool; so do the tasks any command starts
/// with `Task { }`, which prefer no executor.
final class MainThreadExecutor: TaskExecutor {
    /// The executor, once ``run()`` runs its jobs: nil before (a command run in-process by a
    /// test), whose tasks then run on the global executor.
    static var running: MainThreadExecutor? { isRunning.load(ordering: .acquiring) ? shared : nil }

    static let shared = MainThreadExecutor()
    private static let isRunning = Atomic<Bool>(false)

    private let jobs = Mutex<[UnownedJob]>([])
    /// Signalled once per job enqueued.
    private let ready = DispatchSemaphore(value: 0)

    private init() {}

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        jobs.withLock { $0.append(job) }
        ready.signal()
    }

    /// Runs the jobs enqueued, in order, on the calling thread; never returns (the command
    /// leaves the process).
    func run() -> Never {
        Self.blockSignals()
        Self.isRunning.store(true, ordering: .releasing)
        let executor = asUnownedTaskExecutor()
        var batch: [UnownedJob] = []
        while true {
            ready.wait()
            jobs.withLock { swap(&$0, &batch) }
            // One wait per job: the first was for one of these, and the signals of the others
            // have come or are coming.
            for _ in batch.dropFirst() { ready.wait() }
            for job in batch { job.runSynchronously(on: executor) }
            batch.removeAll(keepingCapacity: true)
        }
    }

    /// The signals photos' signal sources watch: the stop signals (``CommandRuntime``), and
    /// browse's job control and resizing.
    static let watchedSignals = [SIGINT, SIGTERM, SIGHUP, SIGTSTP, SIGCONT, SIGWINCH]

    /// Blocks on this thread the signals that signal sources watch, and only those, as
    /// libdispatch's own threads block every signal: libdispatch reads them from a descriptor
    /// (signalfd), which sees a signal only while no thread takes it. (Left to this thread,
    /// Ctrl-Z in browse went to the handler that ignores it there, and the source never saw it.)
    /// The others come here, also when the parent blocked them (a program started from a
    /// thread of a libdispatch pool inherits its mask): SIGUSR1's default action ends photos,
    /// once browse has given the terminal back.
    private static func blockSignals() {
        var blocked = sigset_t()
        sigemptyset(&blocked)
        for signal in watchedSignals { sigaddset(&blocked, signal) }
        pthread_sigmask(SIG_SETMASK, &blocked, nil)
    }
}
