import Foundation

/// A JSON text parsed once into a flat list of values, read in place.
///
/// Providers decode listings of hundreds of records with dozens of fields each; Foundation's
/// `JSONDecoder` spends most of that time in containers, coding keys and conformance look-ups.
/// Here one pass over the bytes records where every value starts and ends (a "tape"): strings
/// and numbers are converted only when a caller asks for them, and a value that is skipped
/// costs nothing more than the scan.
///
/// The parser is RFC 8259 over UTF-8 (an optional byte-order mark is skipped): no comments,
/// trailing commas, NaN or leading zeros, and escapes well formed. Inside strings it is as
/// lenient as servers need: a raw control byte is kept (the terminal sanitiser and the JSON
/// writer deal with it), and bytes that are not UTF-8 and lone `\u` surrogates read as U+FFFD,
/// so one odd title does not make a whole page unreadable. A name given twice in an object: the
/// last one counts, as in JavaScript's `JSON.parse`. Nesting deeper than
/// ``maxDepth`` and texts over 2 GiB are refused. Nothing in the input can make it trap: every
/// index is checked and numbers are converted with overflow checks.
public final class JSONDocument: Sendable {
    /// What a value is.
    public enum Kind: UInt8, Sendable {
        case null, `false`, `true`, number, string, array, object
    }

    /// One value: for strings and numbers the byte range of its text (a string's without its
    /// quotes); for arrays and objects `end` is the index of the node after its last
    /// descendant, and `start` its number of elements (members for objects).
    struct Node {
        var kind: Kind
        /// Strings: whether the text holds an escape (it must be decoded, not copied).
        var escaped: Bool
        var start: UInt32
        var end: UInt32
    }

    /// Why a text was refused, with the byte offset where parsing stopped.
    public struct ParseError: Error, CustomStringConvertible, Equatable {
        public var offset: Int
        public var reason: String
        public var description: String { "invalid JSON at byte \(offset): \(reason)" }
    }

    /// The deepest nesting of arrays and objects accepted (JSONDecoder's own limit).
    public static let maxDepth = 512

    let bytes: [UInt8]
    let nodes: [Node]

    /// Parses `data`.
    /// - Throws: ``ParseError`` when `data` is not one JSON value (with optional white space).
    public init(parsing data: Data) throws(ParseError) {
        var bytes = [UInt8](data)
        guard bytes.count < Int(UInt32.max / 2) else { throw ParseError(offset: 0, reason: "text too large") }
        // A UTF-8 byte-order mark, which some servers send, is read as white space.
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF {
            bytes.replaceSubrange(0..<3, with: [0x20, 0x20, 0x20])
        }
        let parsed = bytes.withUnsafeBufferPointer { buffer in
            var parser = Parser(bytes: buffer)
            return Result { () throws(ParseError) -> [Node] in
                try parser.parse()
                return parser.nodes
            }
        }
        self.bytes = bytes
        self.nodes = try parsed.get()
    }

    /// The top-level value.
    public var root: JSONValue { JSONValue(document: self, index: 0) }
}

/// One value of a ``JSONDocument``.
public struct JSONValue: Sendable {
    let document: JSONDocument
    let index: Int

    var node: JSONDocument.Node { document.nodes[index] }

    public var kind: JSONDocument.Kind { node.kind }
    public var isNull: Bool { kind == .null }

    /// Index of the value after this one and its descendants.
    var next: Int {
        let node = self.node
        return node.kind == .array || node.kind == .object ? Int(node.end) : index + 1
    }

    // MARK: Scalars

    /// The string, when this is a string.
    public var string: String? {
        let node = self.node
        guard node.kind == .string else { return nil }
        let bytes = document.bytes
        let start = Int(node.start)
        let end = Int(node.end)
        if !node.escaped {
            return bytes.withUnsafeBufferPointer { String(decoding: UnsafeBufferPointer(rebasing: $0[start..<end]), as: UTF8.self) }
        }
        return JSONDocument.unescape(bytes, start, end)
    }

    /// The boolean, when this is `true` or `false`.
    public var bool: Bool? {
        switch kind {
        case .true: return true
        case .false: return false
        default: return nil
        }
    }

    /// The number as an `Int` when it is written as an integer (no fraction or exponent) that
    /// fits; nil for any other value.
    public var integer: Int? {
        let node = self.node
        guard node.kind == .number else { return nil }
        let bytes = document.bytes
        var position = Int(node.start)
        let end = Int(node.end)
        let negative = bytes[position] == UInt8(ascii: "-")
        if negative { position += 1 }
        var value = 0
        while position < end {
            let byte = bytes[position]
            guard byte >= 0x30, byte <= 0x39 else { return nil }
            let digit = Int(byte - 0x30)
            let (times, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = negative ? times.subtractingReportingOverflow(digit) : times.addingReportingOverflow(digit)
            if overflow1 || overflow2 { return nil }
            value = sum
            position += 1
        }
        return value
    }

    /// The number as a `Double` (rounded to the nearest; infinite when out of range).
    public var double: Double? {
        let node = self.node
        guard node.kind == .number else { return nil }
        let text = document.bytes.withUnsafeBufferPointer {
            String(decoding: UnsafeBufferPointer(rebasing: $0[Int(node.start)..<Int(node.end)]), as: UTF8.self)
        }
        return Double(text)
    }

    // MARK: Containers

    /// Elements of an array, or members of an object.
    public var count: Int {
        let node = self.node
        return node.kind == .array || node.kind == .object ? Int(node.start) : 0
    }

    /// The elements, when this is an array (empty otherwise).
    public var elements: Elements { Elements(value: self) }

    /// The members in their order, when this is an object (empty otherwise). A name that occurs
    /// more than once is listed each time.
    public var members: Members { Members(value: self) }

    /// The value of the member `name` when this is an object; the last one when the name occurs
    /// more than once (as `JSONDecoder` reads it).
    public subscript(name: String) -> JSONValue? {
        guard kind == .object else { return nil }
        var found: JSONValue?
        var name = name
        name.withUTF8 { wanted in
            for member in members where member.key.equals(wanted) { found = member.value }
        }
        return found
    }

    public struct Elements: Sequence, Sendable {
        let value: JSONValue

        public struct Iterator: IteratorProtocol {
            let document: JSONDocument
            var index: Int
            let end: Int

            public mutating func next() -> JSONValue? {
                guard index < end else { return nil }
                let value = JSONValue(document: document, index: index)
                index = value.next
                return value
            }
        }

        public func makeIterator() -> Iterator {
            guard value.kind == .array else { return Iterator(document: value.document, index: 0, end: 0) }
            return Iterator(document: value.document, index: value.index + 1, end: value.next)
        }
    }

    public struct Members: Sequence, Sendable {
        let value: JSONValue

        public struct Iterator: IteratorProtocol {
            let document: JSONDocument
            var index: Int
            let end: Int

            public mutating func next() -> (key: JSONKey, value: JSONValue)? {
                guard index + 1 < end else { return nil }
                let key = JSONKey(document: document, index: index)
                let value = JSONValue(document: document, index: index + 1)
                index = value.next
                return (key, value)
            }
        }

        public func makeIterator() -> Iterator {
            guard value.kind == .object else { return Iterator(document: value.document, index: 0, end: 0) }
            return Iterator(document: value.document, index: value.index + 1, end: value.next)
        }
    }
}

/// The name of an object member, compared without making a `String`.
public struct JSONKey: Sendable {
    let document: JSONDocument
    let index: Int

    /// The name as a string.
    public var string: String { JSONValue(document: document, index: index).string ?? "" }

    /// Whether the name is exactly these UTF-8 bytes (escapes decoded).
    public func equals(_ wanted: UnsafeBufferPointer<UInt8>) -> Bool {
        let node = document.nodes[index]
        if node.escaped { return Array(string.utf8).elementsEqual(wanted) }
        let start = Int(node.start)
        let length = Int(node.end) - start
        guard length == wanted.count else { return false }
        return document.bytes.withUnsafeBufferPointer { bytes in
            guard let base = bytes.baseAddress, let other = wanted.baseAddress else { return length == 0 }
            return memcmp(base + start, other, length) == 0
        }
    }

    /// Whether the name is `wanted`.
    public func equals(_ wanted: StaticString) -> Bool {
        wanted.withUTF8Buffer { equals($0) }
    }

    /// Calls `body` with the name's UTF-8 bytes (escapes decoded), without making a `String`
    /// for a name that holds no escape (most names).
    public func withUTF8<Result>(_ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
        let node = document.nodes[index]
        guard !node.escaped else {
            var name = string
            return name.withUTF8(body)
        }
        return document.bytes.withUnsafeBufferPointer { bytes in
            body(UnsafeBufferPointer(rebasing: bytes[Int(node.start)..<Int(node.end)]))
        }
    }
}

// MARK: Parsing

extension JSONDocument {
    struct Parser {
        let bytes: UnsafeBufferPointer<UInt8>
        var nodes: [Node] = []
        var position = 0

        init(bytes: UnsafeBufferPointer<UInt8>) {
            self.bytes = bytes
            // About one value per 12 bytes in typical API responses.
            nodes.reserveCapacity(bytes.count / 12 + 4)
        }

        func fail(_ reason: String) -> ParseError { ParseError(offset: position, reason: reason) }

        mutating func skipSpace() {
            while position < bytes.count {
                switch bytes[position] {
                case 0x20, 0x0A, 0x0D, 0x09: position += 1
                default: return
                }
            }
        }

        /// The whole text: one value between optional white space. Containers are parsed with
        /// an explicit stack (no recursion), so nesting costs no machine stack.
        mutating func parse() throws(ParseError) {
            // Open containers: node index, and whether a member name is expected next.
            var stack: [Int] = []
            skipSpace()
            try value(&stack)
            while !stack.isEmpty {
                skipSpace()
                guard position < bytes.count else { throw fail("unterminated container") }
                let open = stack[stack.count - 1]
                let isObject = nodes[open].kind == .object
                let byte = bytes[position]
                if byte == (isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) {
                    position += 1
                    nodes[open].end = UInt32(nodes.count)
                    stack.removeLast()
                    continue
                }
                if nodes[open].start > 0 {
                    guard byte == UInt8(ascii: ",") else { throw fail("expected ',' or a closing bracket") }
                    position += 1
                    skipSpace()
                }
                if isObject {
                    guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") else { throw fail("expected a member name") }
                    try string()
                    skipSpace()
                    guard position < bytes.count, bytes[position] == UInt8(ascii: ":") else { throw fail("expected ':'") }
                    position += 1
                    skipSpace()
                }
                nodes[open].start += 1
                try value(&stack)
            }
            skipSpace()
            guard position == bytes.count else { throw fail("text after the value") }
        }

        /// One value at `position`: scalars whole, containers opened (pushed on `stack`).
        mutating func value(_ stack: inout [Int]) throws(ParseError) {
            guard position < bytes.count else { throw fail("expected a value") }
            switch bytes[position] {
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                guard stack.count < JSONDocument.maxDepth else { throw fail("nested too deeply") }
                let kind: Kind = bytes[position] == UInt8(ascii: "{") ? .object : .array
                position += 1
                stack.append(nodes.count)
                nodes.append(Node(kind: kind, escaped: false, start: 0, end: 0))
                skipSpace()
                // An empty container closes at once, so that a ',' is required between members.
                if position < bytes.count, bytes[position] == (kind == .object ? UInt8(ascii: "}") : UInt8(ascii: "]")) {
                    position += 1
                    nodes[nodes.count - 1].end = UInt32(nodes.count)
                    stack.removeLast()
                }
            case UInt8(ascii: "\""):
                try string()
            case UInt8(ascii: "t"):
                try literal("true", .true)
            case UInt8(ascii: "f"):
                try literal("false", .false)
            case UInt8(ascii: "n"):
                try literal("null", .null)
            case UInt8(ascii: "-"), 0x30...0x39:
                try number()
            default:
                throw fail("unexpected character")
            }
        }

        mutating func literal(_ word: StaticString, _ kind: Kind) throws(ParseError) {
            let length = word.utf8CodeUnitCount
            guard position + length <= bytes.count else { throw fail("unexpected end") }
            let matches = word.withUTF8Buffer { word in
                (0..<length).allSatisfy { bytes[position + $0] == word[$0] }
            }
            guard matches else { throw fail("unexpected word") }
            nodes.append(Node(kind: kind, escaped: false, start: UInt32(position), end: UInt32(position + length)))
            position += length
        }

        mutating func number() throws(ParseError) {
            let start = position
            func isDigit(_ index: Int) -> Bool { index < bytes.count && bytes[index] >= 0x30 && bytes[index] <= 0x39 }
            if bytes[position] == UInt8(ascii: "-") { position += 1 }
            guard isDigit(position) else { throw fail("expected a digit") }
            if bytes[position] == 0x30 {
                position += 1
                if isDigit(position) { throw fail("leading zero") }
            } else {
                while isDigit(position) { position += 1 }
            }
            if position < bytes.count, bytes[position] == UInt8(ascii: ".") {
                position += 1
                guard isDigit(position) else { throw fail("expected a digit after '.'") }
                while isDigit(position) { position += 1 }
            }
            if position < bytes.count, bytes[position] == UInt8(ascii: "e") || bytes[position] == UInt8(ascii: "E") {
                position += 1
                if position < bytes.count, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-") { position += 1 }
                guard isDigit(position) else { throw fail("expected an exponent") }
                while isDigit(position) { position += 1 }
            }
            nodes.append(Node(kind: .number, escaped: false, start: UInt32(start), end: UInt32(position)))
        }

        /// A string at `position` (its opening quote): checks its escapes, records its text's
        /// range.
        mutating func string() throws(ParseError) {
            position += 1
            let start = position
            var escaped = false
            let count = bytes.count
            while true {
                // The plain run up to the next quote or escape.
                while position < count {
                    let byte = bytes[position]
                    if byte == 0x22 || byte == 0x5C { break }
                    position += 1
                }
                guard position < count else { throw fail("unterminated string") }
                if bytes[position] == UInt8(ascii: "\"") { break }
                // An escape.
                escaped = true
                position += 1
                guard position < count else { throw fail("unterminated escape") }
                switch bytes[position] {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
                    UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                    position += 1
                case UInt8(ascii: "u"):
                    guard let unit = hex4(position + 1) else { throw fail("bad \\u escape") }
                    position += 5
                    // A high surrogate takes the low one that follows; a lone one reads as U+FFFD.
                    if (0xD800...0xDBFF).contains(unit), position + 1 < count, bytes[position] == UInt8(ascii: "\\"),
                        bytes[position + 1] == UInt8(ascii: "u"), let low = hex4(position + 2), (0xDC00...0xDFFF).contains(low)
                    {
                        position += 6
                    }
                default:
                    throw fail("bad escape")
                }
            }
            // Bytes that are not UTF-8 are repaired when the string is read (String(decoding:)).
            nodes.append(Node(kind: .string, escaped: escaped, start: UInt32(start), end: UInt32(position)))
            position += 1
        }

        func hex4(_ at: Int) -> UInt32? {
            guard at + 4 <= bytes.count else { return nil }
            var value: UInt32 = 0
            for index in at..<(at + 4) {
                guard let digit = JSONDocument.hexValue(bytes[index]) else { return nil }
                value = value << 4 | digit
            }
            return value
        }
    }

    static func hexValue(_ byte: UInt8) -> UInt32? {
        switch byte {
        case 0x30...0x39: return UInt32(byte - 0x30)
        case 0x41...0x46: return UInt32(byte - 0x41 + 10)
        case 0x61...0x66: return UInt32(byte - 0x61 + 10)
        default: return nil
        }
    }

    /// A string's text with its escapes decoded (already checked by the parser).
    static func unescape(_ bytes: [UInt8], _ start: Int, _ end: Int) -> String {
        var output: [UInt8] = []
        output.reserveCapacity(end - start)
        var index = start
        func appendScalar(_ value: UInt32) {
            let scalar = Unicode.Scalar(value) ?? "\u{FFFD}"
            output.append(contentsOf: String(Character(scalar)).utf8)
        }
        func hex(_ at: Int) -> UInt32 {
            var value: UInt32 = 0
            for offset in 0..<4 { value = value << 4 | (hexValue(bytes[at + offset]) ?? 0) }
            return value
        }
        while index < end {
            let byte = bytes[index]
            guard byte == UInt8(ascii: "\\"), index + 1 < end else {
                output.append(byte)
                index += 1
                continue
            }
            let kind = bytes[index + 1]
            index += 2
            switch kind {
            case UInt8(ascii: "b"): output.append(0x08)
            case UInt8(ascii: "f"): output.append(0x0C)
            case UInt8(ascii: "n"): output.append(0x0A)
            case UInt8(ascii: "r"): output.append(0x0D)
            case UInt8(ascii: "t"): output.append(0x09)
            case UInt8(ascii: "u") where index + 4 <= end:
                let unit = hex(index)
                index += 4
                if (0xD800...0xDBFF).contains(unit), index + 6 <= end, bytes[index] == UInt8(ascii: "\\"),
                    bytes[index + 1] == UInt8(ascii: "u"), case let low = hex(index + 2), (0xDC00...0xDFFF).contains(low)
                {
                    index += 6
                    appendScalar(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00))
                } else {
                    appendScalar(unit)  // a lone surrogate is U+FFFD
                }
            default: output.append(kind)
            }
        }
        return String(decoding: output, as: UTF8.self)
    }
}
