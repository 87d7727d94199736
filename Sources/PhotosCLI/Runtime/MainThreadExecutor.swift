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
/// decodes and draws while the keys are read, save copies files and checks them) keep the pool;
/// so do the tasks any command starts with `Task { }`, which prefer no executor.
///
/// The main thread runs nothing else: the main dispatch queue is never drained, so nothing photos
/// runs may use `DispatchQueue.main` or `@MainActor` (it would wait forever).
final class MainThreadExecutor: TaskExecutor {
    /// The executor, once ``run()`` runs its jobs: nil before (a command run in-process by a
    /// test), whose tasks then run on the global executor.
    static var running: MainThreadExecutor? { isRunning.load(ordering: .acquiring) ? shared : nil }

    static let shared = MainThreadExecutor()
    private static let isRunning = Atomic<Bool>(false)
    /// The thread ``run()`` runs on, written before ``isRunning`` is set.
    nonisolated(unsafe) private static var loopThread = pthread_self()

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
        Self.loopThread = pthread_self()
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

    /// The signals every command's signal sources watch (``CommandRuntime``'s stop signals).
    static let stopSignals = [SIGINT, SIGTERM, SIGHUP]
    /// The signals browse's sources watch besides: job control and resizing. Blocked for it
    /// alone (``takeJobControlSignals()``): a command that does not watch SIGTSTP must stop on
    /// Ctrl-Z, by its default action.
    static let jobControlSignals = [SIGTSTP, SIGCONT, SIGWINCH]

    /// Blocks on this thread the stop signals, and only those, as libdispatch's own threads
    /// block every signal: libdispatch reads the signals its sources watch from a descriptor
    /// (signalfd), which sees a signal only while no thread takes it. The others come here, also
    /// when the parent blocked them (a program started from a thread of a libdispatch pool
    /// inherits its mask): SIGUSR1's default action ends photos, Ctrl-Z stops it.
    private static func blockSignals() {
        var blocked = sigset_t()
        sigemptyset(&blocked)
        for signal in stopSignals { sigaddset(&blocked, signal) }
        pthread_sigmask(SIG_SETMASK, &blocked, nil)
    }

    /// Blocks the job-control signals on the main thread, for a command whose signal sources
    /// watch them (browse; left to the main thread, Ctrl-Z went to the handler that ignores it
    /// there, and the source never saw it). Called on the main thread, before the sources are
    /// made; does nothing elsewhere (a command run in-process by a test).
    static func takeJobControlSignals() {
        guard running != nil, pthread_equal(pthread_self(), loopThread) != 0 else { return }
        var blocked = sigset_t()
        sigemptyset(&blocked)
        for signal in jobControlSignals { sigaddset(&blocked, signal) }
        pthread_sigmask(SIG_BLOCK, &blocked, nil)
    }
}
