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
