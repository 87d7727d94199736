import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Whether a stream is an interactive terminal: a TTY whose type is known (TERM is set, and not
/// `dumb`). Without a TERM (`env -i`, some service managers and CI runners) nothing says the
/// terminal understands cursor moves or line erasing, so none are sent, as with `dumb`.
public enum TTY {
    /// - Parameter environment: the variables to read TERM from; the process's when nil.
    public static func isTerminal(_ descriptor: Int32, environment: [String: String]? = nil) -> Bool {
        guard isatty(descriptor) == 1 else { return false }
        let term = environment.map { $0["TERM"] } ?? getenv("TERM").map { String(cString: $0) }
        guard let term, !term.isEmpty else { return false }
        return term != "dumb"
    }
}

extension TTY {
    /// The terminal's width in columns, when `descriptor` is a terminal.
    public static func columns(_ descriptor: Int32) -> Int? {
        var size = winsize()
        guard isatty(descriptor) == 1, ioctl(descriptor, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return nil }
        return Int(size.ws_col)
    }
}

extension TTY {
    /// Whether this process is in the foreground of the terminal on `descriptor`: false in a job
    /// the shell runs in the background (`&`, or `bg` after Ctrl-Z), whose terminal line is the
    /// shell's. True when `descriptor` is no terminal, or not the process's controlling one.
    public static func isForeground(_ descriptor: Int32) -> Bool {
        let group = tcgetpgrp(descriptor)
        return group < 0 || group == getpgrp()
    }
}
