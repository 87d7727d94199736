import Foundation

/// The config file: a small TOML subset of `[section]` tables and `key = value` lines with
/// strings, integers and booleans. Anything else is reported with its line number.
///
/// ```toml
/// [defaults]
/// provider = "flickr"
///
/// [flickr]
/// api_key = "0123456789abcdef"
///
/// [cache]
/// max_size_mb = 500
/// listing_ttl_seconds = 600
/// recent_searches = 10
/// ```
struct ConfigFile: Equatable {
    /// Values by `section.key`.
    var values: [String: String] = [:]

    struct ParseError: Error, CustomStringConvertible {
        let path: String
        let line: Int
        let reason: String
        var description: String { "\(path):\(line): \(reason)" }
    }

    /// Where the config file is read from: PHOTOS_CONFIG, else the XDG config folder.
    static func location(environment: [String: String]) -> String {
        if let path = environment["PHOTOS_CONFIG"], !path.isEmpty { return path }
        if let xdg = environment["XDG_CONFIG_HOME"], !xdg.isEmpty { return xdg + "/photos/config.toml" }
        let home = environment["HOME"] ?? NSHomeDirectory()
        return home + "/.config/photos/config.toml"
    }

    /// Reads the file at `path`; a missing file is an empty config.
    static func load(path: String) throws -> ConfigFile {
        guard FileManager.default.fileExists(atPath: path) else { return ConfigFile() }
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw ParseError(path: path, line: 0, reason: "cannot be read as UTF-8 text")
        }
        return try parse(text, path: path)
    }

    static func parse(_ text: String, path: String = "config") throws -> ConfigFile {
        var config = ConfigFile()
        var section = ""
        for (index, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let number = index + 1
            let line = stripComment(String(rawLine)).trimmingCharacters(in: .whitespaces)
            if line.isEmpty { continue }
            if line.hasPrefix("[") {
                guard line.hasSuffix("]"), line.count > 2 else {
                    throw ParseError(path: path, line: number, reason: "a table header looks like [name]")
                }
                section = String(line.dropFirst().dropLast()).trimmingCharacters(in: .whitespaces)
                guard isBareKey(section) else {
                    throw ParseError(path: path, line: number, reason: "table names use letters, digits, _ and -")
                }
                continue
            }
            guard let equals = line.firstIndex(of: "=") else {
                throw ParseError(path: path, line: number, reason: "expected key = value")
            }
            let key = line[..<equals].trimmingCharacters(in: .whitespaces)
            let rawValue = line[line.index(after: equals)...].trimmingCharacters(in: .whitespaces)
            guard isBareKey(key) else {
                throw ParseError(path: path, line: number, reason: "keys use letters, digits, _ and -")
            }
            guard let value = parseValue(rawValue) else {
                throw ParseError(path: path, line: number, reason: "values are \"strings\", integers, true or false")
            }
            config.values[section.isEmpty ? key : "\(section).\(key)"] = value
        }
        return config
    }

    private static func isBareKey(_ text: String) -> Bool {
        !text.isEmpty && text.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == "-") }
    }

    private static func stripComment(_ line: String) -> String {
        var inString = false
        var previous: Character = " "
        for (offset, character) in line.enumerated() {
            if character == "\"" && previous != "\\" { inString.toggle() }
            if character == "#" && !inString { return String(line.prefix(offset)) }
            previous = character
        }
        return line
    }

    private static func parseValue(_ text: String) -> String? {
        if text.count >= 2, text.hasPrefix("\""), text.hasSuffix("\"") {
            var result = ""
            var escaping = false
            for character in text.dropFirst().dropLast() {
                if escaping {
                    switch character {
                    case "n": result.append("\n")
                    case "t": result.append("\t")
                    case "\"", "\\": result.append(character)
                    default: return nil
                    }
                    escaping = false
                } else if character == "\\" {
                    escaping = true
                } else if character == "\"" {
                    return nil
                } else {
                    result.append(character)
                }
            }
            return escaping ? nil : result
        }
        if text.count >= 2, text.hasPrefix("'"), text.hasSuffix("'") {
            let inner = String(text.dropFirst().dropLast())
            return inner.contains("'") ? nil : inner
        }
        if text == "true" || text == "false" { return text }
        if Int(text.replacingOccurrences(of: "_", with: "")) != nil { return text.replacingOccurrences(of: "_", with: "") }
        return nil
    }
}
