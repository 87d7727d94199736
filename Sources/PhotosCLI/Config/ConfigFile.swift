import Foundation
import TOMLKit

/// The config file, TOML (parsed by TOMLKit: tables, arrays, inline tables, quoted keys,
/// multi-line strings). Checked against a ``ConfigSchema``: a syntax error, an unknown key or a
/// value of the wrong type is reported with the file, its line and the key.
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
/// ```
struct ConfigFile: Equatable {
    /// Values by `section.key`, as text (integers in decimal, arrays of strings joined by commas).
    var values: [String: String] = [:]
    /// The line each value is on, by `section.key`.
    var lines: [String: Int] = [:]
    /// What a lenient read passed over (``parse(_:path:schema:lenient:)``); empty otherwise.
    var problems: [ParseError] = []
    /// Whether a lenient read found no TOML it could parse (the one problem says where).
    var unparsed = false

    struct ParseError: Error, CustomStringConvertible, Equatable {
        let path: String
        let line: Int
        let reason: String
        var description: String { line > 0 ? "\(path):\(line): \(reason)" : "\(path): \(reason)" }
    }

    /// Where the config file is read from: PHOTOS_CONFIG, else the XDG config folder.
    static func location(environment: [String: String]) -> String {
        if let path = AppEnvironment.setValue(environment["PHOTOS_CONFIG"]) { return HomePath.expand(path, environment: environment) }
        // The XDG spec: a relative path in these variables is invalid and ignored.
        if let xdg = environment["XDG_CONFIG_HOME"], xdg.hasPrefix("/") { return xdg + "/photos/config.toml" }
        let home = HomePath.home(environment: environment)
        return (home.hasSuffix("/") ? home : home + "/") + ".config/photos/config.toml"
    }

    /// Reads the file at `path`; a missing file is an empty config.
    /// - Throws: ``ParseError`` for a file that cannot be read, is not TOML, or (with a schema)
    ///   holds a key the schema does not know or a value of the wrong type.
    /// - Parameter schema: made only when there is a file to check against it (most runs have
    ///   none, and making it sorts every setting of every provider).
    /// The largest config file read: far more than any set of settings takes.
    static let maxBytes = 1 << 20

    /// Whether anything is at `path`, or may be (it cannot be looked at): all but "no such file".
    static func isSomething(at path: String) -> Bool {
        var info = stat()
        if lstat(path, &info) == 0 { return true }
        return errno != ENOENT && errno != ENOTDIR
    }

    static func load(path: String, schema: @autoclosure () -> ConfigSchema? = nil, lenient: Bool = false) throws -> ConfigFile {
        // Only a path where nothing is counts as no file: one that cannot be looked at (a folder
        // the user may not enter, a loop of links) or a link to nothing is said, not skipped.
        var found = stat()
        if stat(path, &found) != 0 {
            let code = errno
            guard isSomething(at: path) else { return ConfigFile() }
            let reason = code == ENOENT ? "is a symbolic link to nothing" : "cannot be read: \(String(cString: strerror(code)))"
            throw ParseError(path: path, line: 0, reason: reason)
        }
        guard (found.st_mode & S_IFMT) != S_IFDIR else { throw ParseError(path: path, line: 0, reason: "is a folder, not a file") }
        // Opened without waiting (a FIFO would block until a writer came) and read by hand, so
        // that a file that cannot be read says why (permissions, not a file), not that its text
        // is no UTF-8.
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard descriptor >= 0 else {
            throw ParseError(path: path, line: 0, reason: "cannot be read: \(String(cString: strerror(errno)))")
        }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else {
            throw ParseError(path: path, line: 0, reason: "cannot be read: \(String(cString: strerror(errno)))")
        }
        // PHOTOS_CONFIG=/dev/null: no config, as an empty file.
        if path == "/dev/null" { return ConfigFile() }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            throw ParseError(path: path, line: 0, reason: "is not a regular file")
        }
        guard info.st_size <= Self.maxBytes else {
            throw ParseError(path: path, line: 0, reason: "is larger than \(Self.maxBytes >> 20) MiB; a config file is a few lines of TOML")
        }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        while bytes.count <= Self.maxBytes {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw ParseError(path: path, line: 0, reason: "cannot be read: \(String(cString: strerror(errno)))")
            }
            if count == 0 { break }
            bytes += chunk.prefix(count)
        }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw ParseError(path: path, line: 0, reason: "is not UTF-8 text")
        }
        var config = try parse(text, path: path, schema: schema(), lenient: lenient)
        config.resolvePaths(from: path)
        return config
    }

    /// Settings that name a file or folder: a relative one in the file is relative to the file's
    /// folder, as a path written in a config file is in git's and most tools', not to wherever
    /// photos is run (each folder would have had a cache of its own).
    static let pathKeys: Set<String> = ["cache.dir", "save.dir", "tls.ca_bundle"]

    /// Makes the relative values of ``pathKeys`` start at the folder of the file at `path`
    /// (`~` is the home folder's, and stays as written).
    mutating func resolvePaths(from path: String) {
        let folder = (path as NSString).deletingLastPathComponent
        for key in Self.pathKeys {
            guard let value = values[key], !value.isEmpty, !value.hasPrefix("/"), !value.hasPrefix("~") else { continue }
            values[key] = (folder.isEmpty ? "." : folder) + "/" + value
        }
    }

    /// - Parameter lenient: a key the schema does not know or a value of the wrong type is
    ///   passed over and noted in ``problems`` rather than thrown (`photos config show`, which
    ///   shows the rest); TOML that cannot be parsed still throws.
    static func parse(_ text: String, path: String = "config", schema: ConfigSchema? = nil, lenient: Bool = false) throws -> ConfigFile {
        let locations = TOMLKeyLines(text)
        if let mistake = locations.mistake {
            throw ParseError(path: path, line: mistake.line, reason: mistake.reason)
        }
        let table: TOMLTable
        do {
            table = try TOMLTable(string: text)
        } catch let error as TOMLParseError {
            throw ParseError(path: path, line: error.source.begin.line, reason: Self.plainTOMLReason(error.description))
        }
        var reader = Reader(path: path, schema: schema, locations: locations, lenient: lenient)
        try reader.read(table, at: [])
        return reader.config
    }

    /// The TOML parser's message in plain words: "Error while parsing table header: expected
    /// ']', saw '\n'" is said "expected ']', found the end of the line (in a table header)", and a
    /// table or key given twice is said as that.
    static func plainTOMLReason(_ message: String) -> String {
        var reason = Substring(message)
        var scope: Substring?
        let prefix = "Error while parsing "
        if reason.hasPrefix(prefix), let colon = reason.range(of: ": ") {
            scope = reason[reason.index(reason.startIndex, offsetBy: prefix.count)..<colon.lowerBound]
            reason = reason[colon.upperBound...]
        }
        let redefined = "cannot redefine existing "
        if reason.hasPrefix(redefined), let quote = reason.firstIndex(of: "'") {
            let kind = reason[reason.index(reason.startIndex, offsetBy: redefined.count)..<quote]
                .trimmingCharacters(in: .whitespaces)
            let name = reason[quote...]
            return "\(kind.isEmpty ? "" : kind + " ")\(name) is defined a second time: each table and key is given once"
        }
        var text = String(reason)
        for (said, plain) in [
            (", saw '\\n'", ", found the end of the line"), (", saw '\n'", ", found the end of the line"),
            (", saw '\\r'", ", found a carriage return"), (", saw comma", ", found a comma"), (", saw '", ", found '"),
            ("encountered end-of-file", "the file ends first"),
        ] {
            text = text.replacingOccurrences(of: said, with: plain)
        }
        guard let scope, !scope.isEmpty else { return text }
        let article = scope.first.map { "aeiou".contains($0) } == true ? "an" : "a"
        return text + " (in \(article) \(scope))"
    }

    /// Walks the parsed document, flattening it to `section.key` values and checking each.
    private struct Reader {
        let path: String
        let schema: ConfigSchema?
        let locations: TOMLKeyLines
        let lenient: Bool
        var config = ConfigFile()

        /// Throws `problem`, or when lenient notes it (the caller then passes the key over).
        mutating func refuse(_ problem: ParseError) throws {
            guard lenient else { throw problem }
            config.problems.append(problem)
        }

        mutating func read(_ table: TOMLTable, at prefix: [String]) throws {
            if let schema, prefix.count == 1, table.isEmpty, !schema.sections.contains(prefix[0]) {
                return try refuse(error(at: prefix, "unknown table [\(prefix[0])]; \(knownSections(schema))"))
            }
            // Settings are two deep (`[cache] dir`): an empty table below a section
            // (`[cache.sub]`, `[nosuch.sub]`) is no setting either, not something to pass over.
            if let schema, prefix.count >= 2, table.isEmpty {
                let at = schema.keys(in: prefix[0]).isEmpty ? [prefix[0]] : prefix
                return try refuse(error(at: at, unknownKey(prefix, schema)))
            }
            // In the order of the file, so that mistakes are said (and the first one refused)
            // from the top down.
            let keys = table.keys.map { key in (line: locations.line(of: prefix + [key]) ?? Int.max, key: key) }
            for key in keys.sorted(by: { ($0.line, $0.key) < ($1.line, $1.key) }).map(\.key) {
                guard let value = table[key] else { continue }
                let path = prefix + [key]
                if value.type == .table, let inner = value.table {
                    if let schema, let setting = schema.setting(path.joined(separator: ".")) {
                        try refuse(error(at: path, "\(setting.displayKey) must be \(setting.kind.typeName), not a table"))
                        continue
                    }
                    try read(inner, at: path)
                } else {
                    try store(value, at: path)
                }
            }
        }

        mutating func store(_ value: any TOMLValueConvertible, at path: [String]) throws {
            let configKey = path.joined(separator: ".")
            guard let schema else {
                config.values[configKey] = Self.text(value)
                config.lines[configKey] = locations.line(of: path)
                return
            }
            guard path.count == 2, let setting = schema.setting(configKey) else {
                // `[[cache]]`: an array of tables where one table is meant.
                if path.count == 1, schema.sections.contains(path[0]), let array = value.array, array.contains(where: { $0.table != nil }) {
                    return try refuse(error(at: path, "[[\(path[0])]] makes an array of tables; settings take one table: write [\(path[0])], once"))
                }
                // A table the schema does not know is said at its header, not at its first key.
                let at = path.count > 1 && schema.keys(in: path[0]).isEmpty ? [path[0]] : path
                return try refuse(error(at: at, unknownKey(path, schema)))
            }
            let text: String
            switch setting.kind {
            case .string:
                guard let string = value.string else { return try refuse(wrongType(setting, value, at: path)) }
                text = string
            case .integer(let range):
                guard let number = value.int else { return try refuse(wrongType(setting, value, at: path)) }
                guard range.contains(number) else {
                    return try refuse(error(
                        at: path,
                        "\(setting.displayKey) must be a whole number from \(range.lowerBound) to \(range.upperBound), got \(number)"))
                }
                text = String(number)
            case .providerList:
                if let string = value.string {
                    text = string
                } else if let array = value.array, let names = Optional(array.compactMap(\.string)),
                    names.count == array.count, !names.isEmpty
                {
                    text = names.joined(separator: ",")
                } else {
                    return try refuse(wrongType(setting, value, at: path))
                }
            }
            // An empty value is no value, as an empty environment variable is.
            guard !text.isEmpty else { return }
            config.values[configKey] = text
            config.lines[configKey] = locations.line(of: path)
        }

        func error(at path: [String], _ reason: String) -> ParseError {
            ParseError(path: self.path, line: locations.line(of: path) ?? 0, reason: reason)
        }

        func wrongType(_ setting: ConfigSetting, _ value: any TOMLValueConvertible, at path: [String]) -> ParseError {
            let example: String
            switch setting.kind {
            case .string: example = "\(setting.key) = \"...\""
            case .integer: example = "\(setting.key) = \(setting.defaultValue ?? "10")"
            case .providerList:
                let name = setting.example ?? "all"
                example = "\(setting.key) = \"\(name)\" or \(setting.key) = [\"\(name)\"]"
            }
            return error(
                at: path,
                "\(setting.displayKey) must be \(setting.kind.typeName), got \(Self.describeValue(value)) (write \(example))")
        }

        func unknownKey(_ path: [String], _ schema: ConfigSchema) -> String {
            let written = path.map(Self.displayPart)
            if path.count == 1 {
                return "unknown key '\(written[0])' outside any table; settings live in tables (\(knownSections(schema)))"
            }
            let section = path[0]
            let keys = schema.keys(in: section)
            if keys.isEmpty {
                return "unknown table [\(written[0])]; \(knownSections(schema))"
            }
            let key = written.dropFirst().joined(separator: ".")
            return "unknown key '\(key)' in [\(section)]; it knows: \(keys.joined(separator: ", "))"
        }

        func knownSections(_ schema: ConfigSchema) -> String {
            "known tables: " + schema.sections.map { "[\($0)]" }.joined(separator: ", ")
        }

        static func displayPart(_ part: String) -> String {
            part.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == "-") } ? part : "\"\(part)\""
        }

        /// What a value is, arrays by what they hold: "an array" alone would contradict "must be
        /// an array of strings".
        static func describeValue(_ value: any TOMLValueConvertible) -> String {
            guard let array = value.array else { return describe(value.type) }
            guard let other = array.first(where: { $0.string == nil }) else {
                return array.isEmpty ? "an empty array" : "an array of strings"
            }
            return "an array holding \(describe(other.type))"
        }

        static func describe(_ type: TOMLType) -> String {
            switch type {
            case .table: return "a table"
            case .array: return "an array"
            case .string: return "a string"
            case .int: return "an integer"
            case .double: return "a floating-point number"
            case .bool: return "a boolean"
            case .date: return "a date"
            case .time: return "a time"
            case .dateTime: return "a date-time"
            }
        }

        /// A value as text, for a config read without a schema.
        static func text(_ value: any TOMLValueConvertible) -> String {
            if let string = value.string { return string }
            if let number = value.int { return String(number) }
            if let flag = value.bool { return flag ? "true" : "false" }
            if let number = value.double { return String(number) }
            if let array = value.array { return array.map { text($0) }.joined(separator: ",") }
            return value.debugDescription
        }
    }
}
