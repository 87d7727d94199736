/// JSON written by hand, byte for byte as photos' `JSONEncoder` set-up writes it (sorted keys,
/// unescaped slashes, `prettyPrinted` with two-space indents and `" : "`), with the invisible
/// characters escaped that JSONEncoder leaves raw: DEL, C1 controls, format characters (bidi
/// controls, zero-width characters, tags) and line and paragraph separators become `\uXXXX`.
///
/// For output that is printed per photo (listings of hundreds): encoding through `Encodable`
/// costs several times more. The caller writes the keys of each object in sorted order.
public struct JSONText {
    /// The text so far, UTF-8 (for a writer that flushes, what has not been handed on yet).
    public private(set) var bytes: [UInt8] = []
    /// Whether objects and arrays span lines (JSONEncoder's `.prettyPrinted`).
    public let pretty: Bool
    private var depth = 0
    /// Whether each open object or array has had a member (a `,` is due before the next): bit N
    /// for depth N + 1. Deeper than 64 levels, ``deeperMembers`` keeps them (photos writes
    /// nothing that deep; the bits spare an array's checks at every key).
    private var memberBits: UInt64 = 0
    private var deeperMembers: [Bool] = []

    /// Where the text goes once `flushAt` bytes have gathered; nil keeps all of it in `bytes`.
    private let flush: ((UnsafeRawBufferPointer) -> Void)?
    private let flushAt: Int

    public init(pretty: Bool, capacity: Int = 0) {
        self.pretty = pretty
        flush = nil
        flushAt = .max
        bytes.reserveCapacity(capacity)
    }

    /// Text handed to `flush` in pieces of about `threshold` bytes as it is written (at the start
    /// of a member or an element, and at ``flushNow()``), in a buffer that stays that small: the
    /// JSON of hundreds of photos is most of a megabyte, memory touched once for nothing.
    public init(pretty: Bool, flushingEvery threshold: Int, to flush: @escaping (UnsafeRawBufferPointer) -> Void) {
        self.pretty = pretty
        self.flush = flush
        flushAt = threshold
        bytes.reserveCapacity(threshold + threshold / 4)
    }

    /// Hands what has gathered to the flush, if there is one.
    public mutating func flushNow() {
        guard let flush, !bytes.isEmpty else { return }
        bytes.withUnsafeBytes(flush)
        bytes.removeAll(keepingCapacity: true)
    }

    /// The text as a string.
    public var text: String { String(decoding: bytes, as: UTF8.self) }

    // MARK: Structure

    public mutating func beginObject() { open(UInt8(ascii: "{")) }
    public mutating func endObject() { close(UInt8(ascii: "}")) }
    public mutating func beginArray() { open(UInt8(ascii: "[")) }
    public mutating func endArray() { close(UInt8(ascii: "]")) }

    /// A member name (objects) with its separator; the value follows.
    public mutating func key(_ name: StaticString) {
        separate()
        let count = name.utf8CodeUnitCount
        let pretty = pretty
        // One append of the whole `"name":` (or `"name" : `), made on the stack.
        let total = count + (pretty ? 5 : 3)
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: total) { buffer in
            let base = buffer.baseAddress!
            base[0] = UInt8(ascii: "\"")
            (base + 1).initialize(from: name.utf8Start, count: count)
            base[count + 1] = UInt8(ascii: "\"")
            if pretty {
                base[count + 2] = 0x20
                base[count + 3] = UInt8(ascii: ":")
                base[count + 4] = 0x20
            } else {
                base[count + 2] = UInt8(ascii: ":")
            }
            bytes.append(contentsOf: UnsafeBufferPointer(start: base, count: total))
        }
        markValueStarted()
    }

    /// Before an array element.
    public mutating func element() {
        separate()
        markValueStarted()
    }

    // MARK: Values

    public mutating func string(_ value: String) { Self.appendQuoted(value, to: &bytes) }
    /// `first`, `separator` and `second` as one string (`"flickr:123"`), without making it;
    /// `separator` is printable ASCII that needs no escape.
    public mutating func string(_ first: String, _ separator: UInt8, _ second: String) {
        precondition((0x20..<0x7F).contains(separator) && separator != 0x22 && separator != 0x5C, "a separator that needs no escape")
        bytes.append(UInt8(ascii: "\""))
        Self.appendEscapedContents(first, to: &bytes)
        bytes.append(separator)
        Self.appendEscapedContents(second, to: &bytes)
        bytes.append(UInt8(ascii: "\""))
    }
    public mutating func string(_ value: String?) { if let value { string(value) } else { null() } }
    public mutating func int(_ value: Int) {
        // Digits written straight into the text (String(value) cost four times as much).
        var magnitude = value.magnitude
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // 24 bytes: Int.min is 19 digits and a sign
        var count = 0
        withUnsafeMutableBytes(of: &digits) { raw in
            repeat {
                count += 1
                raw[24 - count] = UInt8(truncatingIfNeeded: 0x30 + magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
            if value < 0 {
                count += 1
                raw[24 - count] = UInt8(ascii: "-")
            }
            bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: raw[(24 - count)...]))
        }
    }
    public mutating func int(_ value: Int?) { if let value { int(value) } else { null() } }
    public mutating func bool(_ value: Bool) { bytes.append(contentsOf: (value ? "true" : "false").utf8) }
    public mutating func null() { bytes.append(contentsOf: "null".utf8) }
    public mutating func raw(_ text: String) { bytes.append(contentsOf: text.utf8) }

    /// An array of strings.
    public mutating func strings(_ values: [String]) {
        beginArray()
        for value in values {
            element()
            string(value)
        }
        endArray()
    }

    // MARK: Layout

    private mutating func open(_ bracket: UInt8) {
        bytes.append(bracket)
        depth += 1
        if depth <= 64 {
            memberBits &= ~(1 << UInt64(depth - 1))
        } else {
            deeperMembers.append(false)
        }
    }

    /// Whether the innermost open object or array has a member already.
    private var currentHasMembers: Bool {
        guard depth > 0 else { return false }
        return depth <= 64 ? memberBits & (1 << UInt64(depth - 1)) != 0 : deeperMembers.last == true
    }

    private mutating func close(_ bracket: UInt8) {
        let had = currentHasMembers
        if depth > 64 { deeperMembers.removeLast() }
        depth -= 1
        if pretty {
            // JSONEncoder leaves an empty line inside an empty container.
            if !had { bytes.append(0x0A) }
            newline()
        }
        bytes.append(bracket)
    }

    private mutating func separate() {
        if bytes.count >= flushAt { flushNow() }
        if currentHasMembers { bytes.append(UInt8(ascii: ",")) }
        if pretty { newline() }
    }

    private mutating func markValueStarted() {
        guard depth > 0 else { return }
        if depth <= 64 {
            memberBits |= 1 << UInt64(depth - 1)
        } else {
            deeperMembers[deeperMembers.count - 1] = true
        }
    }

    private mutating func newline() {
        bytes.append(0x0A)
        bytes.append(contentsOf: repeatElement(0x20, count: 2 * depth))
    }

    // MARK: Strings

    /// `value` as a JSON string literal, appended to `text`.
    public static func appendQuoted(_ value: String, to text: inout String) {
        var bytes: [UInt8] = []
        appendQuoted(value, to: &bytes)
        text += String(decoding: bytes, as: UTF8.self)
    }

    /// `value` as a JSON string literal (UTF-8), appended to `bytes`.
    public static func appendQuoted(_ value: String, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
        appendEscapedContents(value, to: &bytes)
        bytes.append(UInt8(ascii: "\""))
    }

    /// The inside of `value`'s literal: ASCII by words of eight bytes, the rest scalar by scalar.
    static func appendEscapedContents(_ value: String, to bytes: inout [UInt8]) {
        let start = bytes.count
        var value = value
        let ascii = value.withUTF8 { utf8 -> Bool in
            guard let base = utf8.baseAddress else { return true }
            let count = utf8.count
            var plainFrom = 0
            var index = 0
            while index < count {
                // Runs of bytes that need nothing (most of a URL or a title) eight at a time.
                while index + 8 <= count, isPlain(UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self)) {
                    index += 8
                }
                guard index < count else { break }
                let byte = base[index]
                if byte >= 0x80 { return false }
                if byte < 0x20 || byte == 0x22 || byte == 0x5C || byte == 0x7F {
                    bytes.append(contentsOf: UnsafeBufferPointer(start: base + plainFrom, count: index - plainFrom))
                    appendEscaped(UInt32(byte), to: &bytes)
                    plainFrom = index + 1
                }
                index += 1
            }
            bytes.append(contentsOf: UnsafeBufferPointer(start: base + plainFrom, count: count - plainFrom))
            return true
        }
        if !ascii {
            // Start again scalar by scalar: the ASCII pass may have copied part of it.
            bytes.removeSubrange(start...)
            appendEscapedScalars(value, to: &bytes)
        }
    }

    /// Whether none of the eight bytes of `word` is escaped or starts a multi-byte character:
    /// each is printable ASCII other than `"`, `\` and DEL.
    static func isPlain(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
        // A byte of zero in `x`, exactly (the bit tricks' `haszero`).
        func hasZero(_ x: UInt64) -> Bool { (x &- ones) & ~x & highs != 0 }
        if word & highs != 0 { return false }
        // A byte below 0x20 (`hasless`, exact for bytes below 0x80).
        if (word &- ones &* 0x20) & ~word & highs != 0 { return false }
        return !hasZero(word ^ (ones &* 0x22)) && !hasZero(word ^ (ones &* 0x5C)) && !hasZero(word ^ (ones &* 0x7F))
    }

    /// The inside of `value`'s literal, scalar by scalar: the way for any text.
    static func appendEscapedScalars(_ value: String, to bytes: inout [UInt8]) {
        for scalar in value.unicodeScalars {
            if needsEscape(scalar) {
                appendEscaped(scalar.value, to: &bytes)
            } else {
                bytes.append(contentsOf: String(scalar).utf8)
            }
        }
    }

    static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        let value = scalar.value
        if value < 0x20 || value == 0x22 || value == 0x5C { return true }
        if value < 0x7F { return false }
        if value <= 0x9F { return true }
        switch scalar.properties.generalCategory {
        case .format, .lineSeparator, .paragraphSeparator: return true
        default: return false
        }
    }

    private static func appendEscaped(_ value: UInt32, to bytes: inout [UInt8]) {
        switch value {
        case 0x22: bytes.append(contentsOf: [0x5C, 0x22])
        case 0x5C: bytes.append(contentsOf: [0x5C, 0x5C])
        case 0x08: bytes.append(contentsOf: [0x5C, UInt8(ascii: "b")])
        case 0x09: bytes.append(contentsOf: [0x5C, UInt8(ascii: "t")])
        case 0x0A: bytes.append(contentsOf: [0x5C, UInt8(ascii: "n")])
        case 0x0C: bytes.append(contentsOf: [0x5C, UInt8(ascii: "f")])
        case 0x0D: bytes.append(contentsOf: [0x5C, UInt8(ascii: "r")])
        default:
            guard let scalar = Unicode.Scalar(value) else { return }
            for unit in String(scalar).utf16 {
                let hex: [UInt8] = Array("0123456789abcdef".utf8)
                bytes.append(contentsOf: [0x5C, UInt8(ascii: "u")])
                for shift in stride(from: 12, through: 0, by: -4) { bytes.append(hex[Int((unit >> UInt16(shift)) & 0xF)]) }
            }
        }
    }
}
