import ArgumentParser
import PhotosCore
import PhotosTerminal

/// What photos says for a word where a command belongs that names none (`photos lst`,
/// `photos cache stat`, `photos help bogus`): the command meant, when one is close.
enum CommandSuggestion {
    /// The error for `arguments` (without the program name), or nil when every word that must
    /// name a command does.
    static func error(for arguments: [String]) -> String? {
        let top = PhotosCommand.configuration.subcommands
        guard let first = arguments.first else { return nil }
        if first == "help" {
            // `photos help WORD...`: each word must be a command (of the one before it).
            var level = top
            var path = ["photos"]
            for word in arguments.dropFirst() where !word.hasPrefix("-") {
                // `photos help help` is help's own help.
                if word == "help", path == ["photos"] { return nil }
                guard !level.isEmpty else {
                    let command = path.joined(separator: " ")
                    return "\(command) has no commands of its own, so none named \(TerminalText.quoted(word)); photos help \(path.dropFirst().joined(separator: " ")) says what it does"
                }
                guard let command = level.first(where: { name(of: $0) == word }) else {
                    return unknown(word, among: level, path: path)
                }
                level = command.configuration.subcommands
                path.append(word)
            }
            return nil
        }
        guard !first.hasPrefix("-") else { return nil }
        guard let command = top.first(where: { name(of: $0) == first }) else { return unknown(first, among: top, path: ["photos"]) }
        let inner = command.configuration.subcommands
        guard !inner.isEmpty, arguments.count > 1, !arguments[1].hasPrefix("-"), !inner.contains(where: { name(of: $0) == arguments[1] })
        else { return nil }
        return unknown(arguments[1], among: inner, path: ["photos", first])
    }

    private static func name(of command: any ParsableCommand.Type) -> String {
        command.configuration.commandName ?? ""
    }

    private static func unknown(_ word: String, among commands: [any ParsableCommand.Type], path: [String]) -> String {
        let names = commands.map(name(of:))
        let quoted = TerminalText.quoted(word)
        let list = path.joined(separator: " ")
        if let near = closest(word, among: names) {
            return "no command \(quoted) in \(list); did you mean '\(near)'? (\(list) --help lists them: \(names.joined(separator: ", ")))"
        }
        return "no command \(quoted) in \(list); the commands are \(names.joined(separator: ", ")) (\(list) --help says more)"
    }

    /// The name nearest to `word` (a prefix of it, or at most two edits away), if one is.
    static func closest(_ word: String, among names: [String]) -> String? {
        let lowered = word.lowercased()
        if lowered.count >= 2, let prefixed = names.first(where: { $0.hasPrefix(lowered) }) { return prefixed }
        let scored = names.map { (name: $0, distance: distance(lowered, $0)) }.min { $0.distance < $1.distance }
        guard let scored, scored.distance <= min(2, max(1, lowered.count / 2)) else { return nil }
        return scored.name
    }

    /// Levenshtein distance between two short words.
    private static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        guard !a.isEmpty else { return b.count }
        var previous = Array(0...b.count)
        for (i, x) in a.enumerated() {
            var current = [i + 1]
            for (j, y) in b.enumerated() {
                current.append(min(previous[j + 1] + 1, current[j] + 1, previous[j] + (x == y ? 0 : 1)))
            }
            previous = current
        }
        return previous[b.count]
    }
}
