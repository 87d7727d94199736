import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Whether a stream is an interactive terminal (a TTY, and TERM is not `dumb`).
public enum TTY {
    public static func isTerminal(
        _ descriptor: Int32, environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> Bool {
        isatty(descriptor) == 1 && environment["TERM"] != "dumb"
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
