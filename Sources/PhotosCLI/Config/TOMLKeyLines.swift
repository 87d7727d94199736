/// The line on which each key of a TOML document is defined, so that an error about a key
/// (unknown, wrong type) can name its line. TOMLKit reports lines for syntax errors only.
///
/// Lenient, and safe on any text: it follows table headers (`[a.b]`, `[[a]]`), bare, quoted and
/// dotted keys, and skips strings (multi-line ones included), comments, arrays and inline
/// tables. A key inside an inline table or an array of tables is reported at the line of the
/// nearest enclosing key it knows.
///
/// It also finds the mistakes the TOML parser must not be shown: toml++ (inside TOMLKit)
/// asserts that they cannot happen and aborts the process when they do. They are a table header
/// whose name does not start like a key (`[= "x"]`, `[.a]`, a `[` ending its line), a value that
/// starts with what starts no value (`a = ]`, `[1, }]`), a key in an inline table that starts
/// like no key, and brackets that close what they did not open (`[1}`).
struct TOMLKeyLines {
    private var lines: [[String]: Int] = [:]
    /// The first such mistake: its line and what it is.
    private(set) var mistake: (line: Int, reason: String)?

    init(_ text: String) {
        var scanner = Scanner(bytes: Array(text.utf8))
        lines = scanner.run()
        mistake = scanner.mistake
    }

    /// The line of `path` (1-based), or of its longest prefix that was found; nil when none.
    func line(of path: [String]) -> Int? {
        var path = path
        while !path.isEmpty {
            if let line = lines[path] { return line }
            path.removeLast()
        }
        return nil
    }

    private struct Scanner {
        /// The most parts a key or table name may have (photos' settings have two).
        static let maxKeyParts = 32

        let bytes: [UInt8]
        var index = 0
        var line = 1
        var table: [String] = []
        var found: [[String]: Int] = [:]
        var mistake: (line: Int, reason: String)?

        mutating func note(_ reason: String) {
            if mistake == nil { mistake = (line, reason) }
        }

        init(bytes: [UInt8]) {
            self.bytes = bytes
            // A UTF-8 byte-order mark, which the TOML parser skips too.
            if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { index = 3 }
        }

        var current: UInt8? { index < bytes.count ? bytes[index] : nil }

        mutating func run() -> [[String]: Int] {
            while index < bytes.count {
                skipBlanks()
                guard let byte = current else { break }
                switch byte {
                case UInt8(ascii: "\n"): advance()
                case UInt8(ascii: "#"): skipToEndOfLine()
                case UInt8(ascii: "["):
                    advance()
                    if current == UInt8(ascii: "[") { advance() }
                    let headerLine = line
                    skipBlanks()
                    // toml++ checks for `]` itself; anything else but a key's first byte aborts it.
                    if current.map({ Self.startsKey($0) || $0 == UInt8(ascii: "]") }) != true {
                        note("expected a table name after '['")
                    }
                    table = readKey()
                    if table.count > Self.maxKeyParts {
                        // Deeper than any setting: toml++ recurses once per part (tens of
                        // thousands overflow its stack), and looking each one up costs its square.
                        note("a table name of more than \(Self.maxKeyParts) dotted parts")
                        return found
                    }
                    // Each table the header names or implies (`[a.b]` defines `a` too), for a
                    // mistake about one of them to be said at this line.
                    for count in stride(from: 1, through: table.count, by: 1) where found[Array(table.prefix(count))] == nil {
                        found[Array(table.prefix(count))] = headerLine
                    }
                    skipToEndOfLine()
                default:
                    let keyLine = line
                    let key = readKey()
                    if key.isEmpty {
                        skipToEndOfLine()
                        continue
                    }
                    if table.count + key.count > Self.maxKeyParts {
                        note("a key of more than \(Self.maxKeyParts) dotted parts")
                        return found
                    }
                    if found[table + key] == nil { found[table + key] = keyLine }
                    skipBlanks()
                    if current == UInt8(ascii: "=") { advance() }
                    skipBlanks()
                    if let byte = current, byte != UInt8(ascii: "\n"), byte != UInt8(ascii: "#"), !Self.startsValue(byte) {
                        note("expected a value after '='")
                    }
                    skipValue()
                }
            }
            return found
        }

        mutating func advance() {
            if current == UInt8(ascii: "\n") { line += 1 }
            index += 1
        }

        /// Spaces and tabs, and a carriage return only before a line feed: TOML takes a lone one
        /// for no white space (and toml++ asserts on one where a name or value starts).
        mutating func skipBlanks() {
            while let byte = current, byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") || isCarriageReturnBeforeLineFeed {
                advance()
            }
        }

        var isCarriageReturnBeforeLineFeed: Bool {
            current == UInt8(ascii: "\r") && index + 1 < bytes.count && bytes[index + 1] == UInt8(ascii: "\n")
        }

        mutating func skipToEndOfLine() {
            while let byte = current, byte != UInt8(ascii: "\n") { advance() }
        }

        /// A key: parts separated by dots, each bare or quoted; stops before `=` or `]`.
        mutating func readKey() -> [String] {
            var parts: [String] = []
            while true {
                skipBlanks()
                guard let byte = current else { return parts }
                if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
                    parts.append(readQuoted(byte))
                } else {
                    let start = index
                    while let byte = current, Self.isBare(byte) { advance() }
                    if index == start { return parts }
                    parts.append(String(decoding: bytes[start..<index], as: UTF8.self))
                }
                skipBlanks()
                guard current == UInt8(ascii: ".") else { return parts }
                advance()
            }
        }

        static func startsKey(_ byte: UInt8) -> Bool {
            isBare(byte) || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'")
        }

        /// Whether a value can start with `byte`: a string, array, inline table, number, date,
        /// boolean, inf or nan.
        static func startsValue(_ byte: UInt8) -> Bool {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "'"), UInt8(ascii: "["), UInt8(ascii: "{"), UInt8(ascii: "+"), UInt8(ascii: "-"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "t"), UInt8(ascii: "f"), UInt8(ascii: "i"), UInt8(ascii: "n"):
                return true
            default:
                return false
            }
        }

        static func isBare(_ byte: UInt8) -> Bool {
            (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
                || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: "_")
                || byte == UInt8(ascii: "-")
        }

        /// A one-line quoted key; basic strings' simple escapes are undone.
        mutating func readQuoted(_ quote: UInt8) -> String {
            advance()
            var text: [UInt8] = []
            while let byte = current, byte != quote, byte != UInt8(ascii: "\n") {
                if quote == UInt8(ascii: "\""), byte == UInt8(ascii: "\\") {
                    advance()
                    guard let escaped = current else { break }
                    switch escaped {
                    case UInt8(ascii: "n"): text.append(UInt8(ascii: "\n"))
                    case UInt8(ascii: "t"): text.append(UInt8(ascii: "\t"))
                    default: text.append(escaped)
                    }
                } else {
                    text.append(byte)
                }
                advance()
            }
            if current == quote { advance() }
            return String(decoding: text, as: UTF8.self)
        }

        /// A value up to the end of its line: strings (multi-line ones across lines), arrays and
        /// inline tables (across lines), then an optional comment. Notes a bracket that closes
        /// what it did not open, an element or inline key that starts like none, and a number,
        /// date, boolean, inf or nan not written as TOML writes them.
        mutating func skipValue() {
            var open: [UInt8] = []
            /// After `{` or `,` in an inline table: a key must come (or the close).
            var keyNext = false
            /// At the start, after `[`, after `,` in an array and after `=` in an inline table.
            var valueNext = true
            while let byte = current {
                let blank = byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") || byte == UInt8(ascii: "\n") || isCarriageReturnBeforeLineFeed
                if !blank, byte != UInt8(ascii: "#") {
                    if keyNext, !Self.startsKey(byte), byte != UInt8(ascii: "}") { note("expected a key in an inline table") }
                    if valueNext, !Self.startsValue(byte), byte != UInt8(ascii: "]") || open.last != UInt8(ascii: "[") {
                        note(open.isEmpty ? "expected a value after '='" : "expected a value")
                    }
                    keyNext = false
                }
                let startsElement = valueNext && !blank && byte != UInt8(ascii: "#")
                if startsElement { valueNext = false }
                switch byte {
                case UInt8(ascii: "\""), UInt8(ascii: "'"):
                    skipString(byte)
                case UInt8(ascii: "["), UInt8(ascii: "{"):
                    open.append(byte)
                    valueNext = byte == UInt8(ascii: "[")
                    keyNext = byte == UInt8(ascii: "{")
                    advance()
                case UInt8(ascii: "]"), UInt8(ascii: "}"):
                    let opener = byte == UInt8(ascii: "]") ? UInt8(ascii: "[") : UInt8(ascii: "{")
                    if open.last != opener { note("'\(Character(Unicode.Scalar(byte)))' closes nothing it opened") }
                    if !open.isEmpty { open.removeLast() }
                    advance()
                case UInt8(ascii: ","):
                    valueNext = open.last == UInt8(ascii: "[")
                    keyNext = open.last == UInt8(ascii: "{")
                    advance()
                case UInt8(ascii: "="):
                    valueNext = open.last == UInt8(ascii: "{")
                    advance()
                case UInt8(ascii: "#"):
                    skipToEndOfLine()
                case UInt8(ascii: "\n"):
                    if open.isEmpty { return }
                    advance()
                default:
                    if startsElement {
                        let scalar = readScalar()
                        if !Self.isScalar(scalar) { note("'\(String(decoding: scalar.prefix(40), as: UTF8.self))' is not a TOML value") }
                    } else {
                        advance()
                    }
                }
            }
        }

        /// A number, date, time, boolean, inf or nan: up to white space, `,`, `]`, `}` or `#`; a
        /// date followed by a space and a time is one value.
        mutating func readScalar() -> [UInt8] {
            func isEnd(_ byte: UInt8) -> Bool {
                [UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\r"), UInt8(ascii: "\n"), UInt8(ascii: ","),
                 UInt8(ascii: "]"), UInt8(ascii: "}"), UInt8(ascii: "#")].contains(byte)
            }
            let start = index
            while let byte = current, !isEnd(byte) { advance() }
            if index - start == 10, current == UInt8(ascii: " "), index + 3 < bytes.count,
                Self.isDigit(bytes[index + 1]), Self.isDigit(bytes[index + 2]), bytes[index + 3] == UInt8(ascii: ":")
            {
                advance()
                while let byte = current, !isEnd(byte) { advance() }
            }
            return Array(bytes[start..<index])
        }

        static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

        /// TOML's scalars (toml++ also takes a time without seconds).
        static let scalarPattern = [
            #"true|false|[+-]?(?:inf|nan)"#,
            #"[+-]?(?:0|[1-9](?:_?[0-9])*)(?:\.[0-9](?:_?[0-9])*)?(?:[eE][+-]?[0-9](?:_?[0-9])*)?"#,
            #"0x[0-9A-Fa-f](?:_?[0-9A-Fa-f])*|0o[0-7](?:_?[0-7])*|0b[01](?:_?[01])*"#,
            #"[0-9]{4}-[0-9]{2}-[0-9]{2}(?:[Tt ][0-9]{2}:[0-9]{2}(?::[0-9]{2}(?:\.[0-9]+)?)?(?:[Zz]|[+-][0-9]{2}:[0-9]{2})?)?"#,
            #"[0-9]{2}:[0-9]{2}(?::[0-9]{2}(?:\.[0-9]+)?)?"#,
        ].joined(separator: "|")

        /// Compiled once: compiling it for every value made a file of 10,000 keys take 9 s.
        /// Only read (matching does not change it), so sharing it is safe.
        nonisolated(unsafe) static let scalarRegex: Regex<AnyRegexOutput>? = try? Regex(scalarPattern)

        static func isScalar(_ bytes: [UInt8]) -> Bool {
            guard let pattern = scalarRegex else { return true }  // a constant: always compiles
            return String(decoding: bytes, as: UTF8.self).wholeMatch(of: pattern) != nil
        }

        mutating func skipString(_ quote: UInt8) {
            let isMultiLine = index + 2 < bytes.count && bytes[index + 1] == quote && bytes[index + 2] == quote
            if isMultiLine {
                index += 3
                while let byte = current {
                    if quote == UInt8(ascii: "\""), byte == UInt8(ascii: "\\") {
                        advance()
                        advance()
                        continue
                    }
                    if byte == quote, index + 2 < bytes.count, bytes[index + 1] == quote, bytes[index + 2] == quote {
                        index += 3
                        // Up to two more quotes may belong to the string (""""" ends it too).
                        while current == quote { index += 1 }
                        return
                    }
                    advance()
                }
                return
            }
            advance()
            while let byte = current, byte != UInt8(ascii: "\n") {
                if quote == UInt8(ascii: "\""), byte == UInt8(ascii: "\\") {
                    advance()
                    advance()
                    continue
                }
                advance()
                if byte == quote { return }
            }
            // The TOML parser says only "unescaped control characters" of the line break.
            note("a string is not closed on its line: its closing \(Character(Unicode.Scalar(quote))) is missing")
        }
    }
}
