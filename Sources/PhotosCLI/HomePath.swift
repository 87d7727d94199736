import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The home folder, and `~` in a path the user gave (a flag, a variable, the config file).
enum HomePath {
    /// The home folder: `$HOME`, as the shell has it, and the account's when HOME is not set, is
    /// empty or is not an absolute path (a cache or config under a relative HOME would move with
    /// the current folder).
    static func home(environment: [String: String]) -> String {
        if let home = environment["HOME"], home.hasPrefix("/") { return home }
        if let account = getpwuid(getuid()), let directory = account.pointee.pw_dir {
            let path = String(cString: directory)
            if path.hasPrefix("/") { return path }
        }
        return "/"
    }

    /// `~` and `~/...` are in ``home(environment:)``; `~user/...` is in that user's home folder.
    static func expand(_ path: String, environment: [String: String]) -> String {
        guard path.hasPrefix("~") else { return path }
        if path == "~" || path.hasPrefix("~/") {
            let home = home(environment: environment)
            return (home == "/" && path.hasPrefix("~/") ? "" : home) + path.dropFirst()
        }
        return (path as NSString).expandingTildeInPath
    }
}
