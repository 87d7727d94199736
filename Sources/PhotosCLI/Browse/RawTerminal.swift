import Foundation
import PhotosCore
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The terminal taken over for full-screen use: raw input (termios), the alternate screen, the
/// cursor hidden, mouse wheel reports on. ``restore()`` gives every bit of it back and is safe to
/// call from any thread, any number of times; after it, writes are dropped so that nothing drawn
/// late lands on the user's own screen. A crash (SIGSEGV, SIGILL, SIGABRT, ...) restores the
/// terminal too, before the runtime's own handler reports it.
final class RawTerminal: @unchecked Sendable {
    let input: Int32
    let output: Int32
    private var original: termios
    private var raw: termios
    private let lock = NSLock()
    private var restored = false
    /// Given back for a while (Ctrl-Z), to be taken again at ``resume()``.
    private var suspended = false
    /// Set first by ``restore()``, without the lock: a frame being written stops at its next
    /// piece.
    private let stopping = Atomic(false)
    /// A frame is written in pieces of this size, `stopping` checked between them.
    static let piece = 1024

    /// The alternate screen, the cursor hidden, wheel reports (SGR), and a question: does the
    /// terminal support synchronized output (DECRQM for mode 2026)? The answer comes as input.
    static let enterSequence = "\u{1B}[?1049h\u{1B}[?25l\u{1B}[?1000h\u{1B}[?1006h\u{1B}[H\u{1B}[2J\u{1B}[?2026$p"
    /// Ends a synchronized update left open, resets colours, stops mouse reports, shows the
    /// cursor and leaves the alternate screen.
    static let restoreSequence = "\u{1B}[?2026l\u{1B}[0m\u{1B}[?1006l\u{1B}[?1000l\u{1B}[?25h\u{1B}[?1049l"

    /// Takes the terminal on `input`/`output`.
    /// - Throws: `PhotosError.usage` when either is not a terminal or its mode cannot be set.
    init(input: Int32 = STDIN_FILENO, output: Int32 = STDOUT_FILENO) throws {
        self.input = input
        self.output = output
        let notATerminal = PhotosError.usage("browse needs a terminal on stdin and stdout; to print a grid instead use: photos list --format grid")
        guard isatty(input) == 1, isatty(output) == 1 else { throw notATerminal }
        // Started in the background (`photos browse &`): stopped as any program that sets a
        // terminal's modes from there is (SIGTTOU), until the shell's `fg`; ended meanwhile
        // (`kill %1` continues it with SIGTERM pending), it gives up.
        guard Self.waitForForeground(input, stoppingWith: SIGTTOU, giveUp: { Task.isCancelled || CommandRuntime.isStopping }) else {
            if Task.isCancelled || CommandRuntime.isStopping { throw CancellationError() }
            throw PhotosError.usage("browse needs the terminal, and another program has it in the foreground; run photos browse in the foreground")
        }
        // The mode to give back is read once in the foreground: from the background it would be
        // the shell's line editor's (no echo, no line editing).
        var mode = termios()
        guard tcgetattr(input, &mode) == 0 else { throw notATerminal }
        original = mode
        var raw = mode
        raw.c_iflag &= ~tcflag_t(IGNBRK | BRKINT | PARMRK | ISTRIP | INLCR | IGNCR | ICRNL | IXON)
        raw.c_lflag &= ~tcflag_t(ECHO | ECHONL | ICANON | ISIG | IEXTEN)
        raw.c_cflag |= tcflag_t(CS8)
        withUnsafeMutableBytes(of: &raw.c_cc) { cc in
            cc[Int(VMIN)] = 1
            cc[Int(VTIME)] = 0
        }
        guard tcsetattr(input, TCSAFLUSH, &raw) == 0 else {
            throw PhotosError.usage("cannot put the terminal into raw mode: \(String(cString: strerror(errno)))")
        }
        self.raw = raw
        CrashRestore.install(original: original, input: input, output: output, sequence: Self.restoreSequence)
        _ = Output.writeAll(Self.enterSequence, to: output)
    }

    /// Writes `text` unless the terminal was restored.
    /// - Throws: `OutputError.failed` when the terminal cannot be written (it went away).
    func write(_ text: String) throws {
        lock.lock()
        defer { lock.unlock() }
        guard !restored, !suspended else { return }
        var text = text
        let error = text.withUTF8 { bytes -> Int32? in
            var start = 0
            while start < bytes.count, !stopping.load(ordering: .relaxed) {
                let end = min(start + Self.piece, bytes.count)
                if let error = Output.writeAll(UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes[start..<end])), to: output) { return error }
                start = end
            }
            return nil
        }
        if let error { throw OutputError.failed(String(cString: strerror(error))) }
    }

    /// Gives the terminal back as it was. Idempotent; any thread.
    func restore() {
        // A terminal that reads nothing (a stalled connection) leaves the interface thread stuck
        // in a frame's write, holding the lock, and would take no restore sequence either: the
        // lock is waited for a moment only, the frame stops at its next piece if it can, and
        // the sequence is written when the terminal has room, or else by a child process that
        // waits for it, so that photos can end (its runtime ends it within a second anyway).
        stopping.store(true, ordering: .relaxed)
        let locked = lock.lock(before: Date(timeIntervalSinceNow: 0.3))
        defer { if locked { lock.unlock() } }
        guard !restored else { return }
        restored = true
        CrashRestore.uninstall()
        // Stopped (Ctrl-Z), the terminal is the shell's already, and photos may be in the
        // background (`kill %1` continues it to end it): touching the terminal from there would
        // stop it again (SIGTTOU).
        guard !suspended else { return }
        if locked, Self.hasRoom(output) {
            _ = Output.writeAll(Self.restoreSequence, to: output)
        } else {
            Self.writeRestoreSequenceLater(to: output)
        }
        // Keys typed meanwhile are dropped (they were photos', not the shell's), without waiting
        // for the output to drain (TCSAFLUSH): a terminal that reads nothing would never let go.
        tcflush(input, TCIFLUSH)
        var mode = original
        _ = tcsetattr(input, TCSANOW, &mode)
    }

    /// Whether `output` takes a write now or within a moment.
    private static func hasRoom(_ output: Int32) -> Bool {
        var ready = pollfd(fd: output, events: Int16(POLLOUT), revents: 0)
        return poll(&ready, 1, 300) == 1 && ready.revents & Int16(POLLOUT) != 0
    }

    /// The restore sequence, for a child process to write: its bytes made before the fork.
    private static let restoreBytes: [UInt8] = Array(restoreSequence.utf8)

    /// Writes the restore sequence from a child process, which waits (in `write`) for the
    /// terminal to read again, then ends: photos itself need not wait. The child calls only
    /// `write` and `_exit`, as a child of a process with threads may.
    private static func writeRestoreSequenceLater(to output: Int32) {
        restoreBytes.withUnsafeBytes { bytes in
            guard let base = bytes.baseAddress else { return }
            let count = bytes.count
            if fork() == 0 {
                _ = Glibc.write(output, base, count)
                _exit(0)
            }
        }
    }

    /// Gives the terminal back as it was, for the shell while photos is stopped (Ctrl-Z);
    /// ``resume()`` takes it again. Writes meanwhile are dropped.
    func suspend() {
        lock.lock()
        defer { lock.unlock() }
        guard !restored, !suspended else { return }
        suspended = true
        _ = Output.writeAll(Self.restoreSequence, to: output)
        var mode = original
        _ = tcsetattr(input, TCSADRAIN, &mode)
    }

    /// Takes the terminal again after a stop: raw mode (the shell set its own at `fg`) and the
    /// alternate screen, cleared; the caller redraws everything.
    /// - Returns: whether the terminal was taken: not while photos is in the background (`bg`),
    ///   where it waits for the next `fg`.
    @discardableResult
    func resume() -> Bool {
        lock.lock()
        defer { lock.unlock() }
        guard !restored, tcgetpgrp(input) == getpgrp() else { return false }
        suspended = false
        var mode = raw
        _ = tcsetattr(input, TCSAFLUSH, &mode)
        _ = Output.writeAll(Self.enterSequence, to: output)
        return true
    }

    /// Stops photos as Ctrl-Z does in a shell: the terminal given back first, then SIGTSTP
    /// with its default action (the signal source that reported it set it aside) to the whole
    /// process group, as the terminal would send it (a script that runs photos stops too, so
    /// the shell sees a stopped job); photos goes on here once the shell continues it (`fg`,
    /// SIGCONT), with the terminal taken again if it is in the foreground.
    /// - Returns: whether the terminal was taken again.
    @discardableResult
    func stopProcess() -> Bool {
        suspend()
        Self.stopProcessGroup(with: SIGTSTP)
        return resume()
    }

    /// Sends `signal` (a stop signal) with its default action to photos' process group and
    /// returns once the group is continued.
    private static func stopProcessGroup(with signal: Int32) {
        var stop = signalAction(SIG_DFL)
        var previous = sigaction()
        sigaction(signal, &stop, &previous)
        // Delivered to this thread, which may block it as the runtime's threads do.
        var only = sigset_t()
        var mask = sigset_t()
        sigemptyset(&only)
        sigaddset(&only, signal)
        pthread_sigmask(SIG_UNBLOCK, &only, &mask)
        kill(0, signal)
        pthread_sigmask(SIG_SETMASK, &mask, nil)
        sigaction(signal, &previous, nil)
    }

    /// Whether another process group than photos' has the terminal on `input` (photos runs in
    /// the background of a shell). False when it has no foreground group to say (not photos'
    /// controlling terminal).
    static func isInBackground(_ input: Int32) -> Bool {
        let foreground = tcgetpgrp(input)
        return foreground > 0 && foreground != getpgrp()
    }

    /// Waits while photos is in the background, stopped by `signal` as the terminal would stop
    /// a background job that touches it (SIGTTOU to set its modes, SIGTTIN to read it), until a
    /// shell's `fg` gives it the terminal.
    /// - Parameter giveUp: asked while continued in the background (`kill %1` continues a
    ///   stopped job with SIGTERM pending, `bg` to run on): true ends the wait.
    /// - Returns: true in the foreground; false in the background when nothing could continue a
    ///   stopped photos (no shell with job control above its process group in its session: the
    ///   kernel discards stop signals to such an orphaned group), or when `giveUp` said so.
    static func waitForForeground(_ input: Int32, stoppingWith signal: Int32, giveUp: () -> Bool) -> Bool {
        guard isInBackground(input) else { return true }
        // Looked at once, before the loop: between the check of the foreground and the stop
        // signal nothing slow may run, or a shell's `fg` in between would find photos stopping
        // itself in the foreground.
        guard hasJobControl() else { return false }
        while isInBackground(input) {
            stopProcessGroup(with: signal)
            // Continued: a moment for a stop signal that came with it to take effect (the
            // runtime cancels the work), then stopped again if still in the background.
            for _ in 0..<20 where isInBackground(input) {
                if giveUp() { return false }
                usleep(10_000)
            }
            if giveUp() { return false }
        }
        return true
    }

    /// Whether a shell's job control can continue photos' process group once stopped: an
    /// ancestor outside the group (photos' own parent, or a script's parent when a script runs
    /// photos) is in the same session. Ancestors are read from /proc; without it, the parent.
    private static func hasJobControl() -> Bool {
        let group = getpgrp()
        var ancestor = getppid()
        for _ in 0..<64 where ancestor > 1 && getpgid(ancestor) == group {
            guard let next = parent(of: ancestor) else { break }
            ancestor = next
        }
        return ancestor > 0 && getpgid(ancestor) != group && getsid(ancestor) == getsid(0)
    }

    /// A process's parent, from /proc/PID/stat (the field after the state, after the name's
    /// closing parenthesis, which the name itself may hold).
    private static func parent(of pid: pid_t) -> pid_t? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8), let close = stat.lastIndex(of: ")") else { return nil }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        return fields.count > 1 ? pid_t(fields[1]) : nil
    }

    /// The window's size in cells, and a cell's width over its height when the terminal says.
    func size() -> (columns: Int, rows: Int, cellAspect: Double?) {
        var size = winsize()
        guard ioctl(output, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0, size.ws_row > 0 else { return (80, 24, nil) }
        var aspect: Double?
        if size.ws_xpixel > 0, size.ws_ypixel > 0 {
            aspect = (Double(size.ws_xpixel) / Double(size.ws_col)) / (Double(size.ws_ypixel) / Double(size.ws_row))
        }
        return (Int(size.ws_col), Int(size.ws_row), aspect)
    }
}

/// Restores the terminal from a fatal signal's handler: only async-signal-safe calls (tcsetattr,
/// write) on memory prepared beforehand, then the previous handler (the Swift runtime's
/// backtracer, or the default action) runs as it would have. Besides crashes, the signals whose
/// default action ends the process and that photos does not handle itself (SIGQUIT, SIGUSR1,
/// SIGALRM, ...): `kill -QUIT` leaves a shell, not raw mode on the alternate screen.
private enum CrashRestore {
    static let signals: [Int32] = [
        SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP,
        SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM, SIGXCPU, SIGXFSZ,
    ]
    /// The signals that are no crash: caught only where their action is the default one (a
    /// signal the parent set to be ignored, or one another handler owns, is left as it is).
    static let terminating: Set<Int32> = [SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM, SIGXCPU, SIGXFSZ]
    nonisolated(unsafe) static var caught = UnsafeMutablePointer<Bool>.allocate(capacity: signals.count)
    nonisolated(unsafe) static var mode = UnsafeMutablePointer<termios>.allocate(capacity: 1)
    nonisolated(unsafe) static var bytes = UnsafeMutablePointer<UInt8>.allocate(capacity: 128)
    nonisolated(unsafe) static var length = 0
    nonisolated(unsafe) static var input: Int32 = 0
    nonisolated(unsafe) static var output: Int32 = 1
    nonisolated(unsafe) static var previous = UnsafeMutablePointer<sigaction>.allocate(capacity: signals.count)
    nonisolated(unsafe) static var installed = false

    static func install(original: termios, input: Int32, output: Int32, sequence: String) {
        mode.initialize(to: original)
        let utf8 = Array(sequence.utf8.prefix(128))
        for (index, byte) in utf8.enumerated() { bytes[index] = byte }
        length = utf8.count
        Self.input = input
        Self.output = output
        for (index, signal) in signals.enumerated() {
            caught[index] = false
            if terminating.contains(signal) {
                guard currentSignalHandler(signal) == unsafeBitCast(SIG_DFL, to: Int.self) else { continue }
            }
            var action = signalAction(crashHandler)
            sigaction(signal, &action, previous + index)
            caught[index] = true
        }
        installed = true
    }

    static func uninstall() {
        guard installed else { return }
        installed = false
        for (index, signal) in signals.enumerated() where caught[index] { sigaction(signal, previous + index, nil) }
    }
}

/// The handler `signal` has now, as a number to compare with `SIG_DFL` and `SIG_IGN`.
func currentSignalHandler(_ signal: Int32) -> Int {
    var current = sigaction()
    sigaction(signal, nil, &current)
    #if canImport(Glibc)
    return unsafeBitCast(current.__sigaction_handler.sa_handler, to: Int.self)
    #else
    return unsafeBitCast(current.__sigaction_u.__sa_handler, to: Int.self)
    #endif
}

/// An action that runs `handler` (or SIG_DFL, SIG_IGN), with no signal blocked and no flags.
func signalAction(_ handler: (@convention(c) (Int32) -> Void)?) -> sigaction {
    var action = sigaction()
    #if canImport(Glibc)
    action.__sigaction_handler.sa_handler = handler
    #else
    action.__sigaction_u.__sa_handler = handler
    #endif
    sigemptyset(&action.sa_mask)
    action.sa_flags = 0
    return action
}

private func crashHandler(_ signal: Int32) {
    if CrashRestore.installed {
        _ = write(CrashRestore.output, CrashRestore.bytes, CrashRestore.length)
        _ = tcsetattr(CrashRestore.input, TCSANOW, CrashRestore.mode)
        CrashRestore.installed = false
    }
    if let index = CrashRestore.signals.firstIndex(of: signal) {
        sigaction(signal, CrashRestore.previous + index, nil)
    }
    raise(signal)
}
