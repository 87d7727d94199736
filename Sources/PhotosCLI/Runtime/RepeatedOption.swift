import PhotosTerminal

/// An option that takes one value given twice with different values (`--to a --to b`): the
/// parser would keep the last without a word, and the first was meant just as much.
enum RepeatedOption {
    /// Options that take one value, in every command that has them (`--filter` adds up).
    static let single: Set<String> = [
        "--provider", "--query", "--to", "--format", "--page", "--per-page", "--limit", "--name", "--size", "--graphics",
        "--columns", "--album",
    ]
    static let shortNames = ["-q": "--query"]

    /// The error for `arguments` (without the program name), or nil when no such option is
    /// given twice with different values.
    static func error(for arguments: [String]) -> String? {
        var seen: [String: String] = [:]
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if argument == "--" { break }
            guard argument.hasPrefix("-") else { continue }
            var name = argument
            var value: String?
            if let equals = argument.firstIndex(of: "="), argument.hasPrefix("--") {
                name = String(argument[..<equals])
                value = String(argument[argument.index(after: equals)...])
            }
            name = shortNames[name] ?? name
            guard single.contains(name) else { continue }
            if value == nil {
                guard index < arguments.count else { break }
                value = arguments[index]
                index += 1
            }
            guard let value else { continue }
            if let first = seen[name], first != value {
                let both = "\(TerminalText.quoted(first, width: 40)) and \(TerminalText.quoted(value, width: 40))"
                if name == "--provider" {
                    return "--provider is given twice (\(both)); name several providers in one: --provider \(first),\(value)"
                }
                return "\(name) is given twice (\(both)); give it once"
            }
            seen[name] = value
        }
        return nil
    }
}
