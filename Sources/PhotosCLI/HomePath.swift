import Foundation

/// `~` in a path the user gave (a flag, a variable, the config file): the home folder is `$HOME`,
/// as the shell has it, and the account's only when HOME is not set. `~user/...` is that
/// user's home folder.
enum HomePath {
    static func expand(_ path: String, environment: [String: String]) -> String {
        guard path.hasPrefix("~") else { return path }
        if path == "~" || path.hasPrefix("~/") {
            let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
            return home + path.dropFirst()
        }
        return (path as NSString).expandingTildeInPath
    }
}
