/// A key (or mouse wheel step) `photos browse` reacts to, decoded from the terminal's bytes.
enum BrowseKey: Equatable, Sendable {
    case up, down, left, right
    case pageUp, pageDown, home, end
    case enter, escape, backspace, tab
    /// Ctrl-C: raw mode delivers it as a byte, not as SIGINT.
    case interrupt
    /// Ctrl-Z: raw mode delivers it as a byte, not as SIGTSTP.
    case suspend
    /// Ctrl-U: clears the search being typed.
    case clearLine
    case wheelUp, wheelDown
    /// A printable character (already UTF-8 decoded).
    case character(Character)
    /// Not a key: the terminal's answer to whether it supports synchronized output (mode 2026).
    case synchronizedOutput(Bool)
}

/// Turns the bytes a terminal sends in raw mode into keys.
///
/// Knows the xterm family's sequences in both cursor-key modes (`ESC [ A` and `ESC O A`, with or
/// without modifiers), the `ESC [ n ~` editing keys, and SGR mouse reports (`ESC [ < b ; x ; y M`)
/// for the wheel; every other complete escape sequence is consumed and ignored, so a key the
/// browser does not use never arrives as stray characters. A sequence cut between two reads is
/// kept until the next `decode`; `flush` turns what is left (a lone ESC) into keys once no more
/// bytes came within the escape timeout.
struct KeyDecoder {
    private var pending: [UInt8] = []

    /// Whether bytes are waiting for the rest of a sequence.
    var hasPending: Bool { !pending.isEmpty }

    mutating func decode(_ bytes: some Sequence<UInt8>) -> [BrowseKey] {
        pending.append(contentsOf: bytes)
        var keys: [BrowseKey] = []
        var index = 0
        while index < pending.count {
            guard let (key, length) = Self.parse(pending, from: index) else { break }  // incomplete
            if let key { keys.append(key) }
            index += length
        }
        pending.removeFirst(index)
        return keys
    }

    /// The keys an incomplete sequence stands for when nothing more arrives: a lone ESC is the
    /// Escape key; `ESC x` is Escape then x; a cut UTF-8 character is dropped.
    mutating func flush() -> [BrowseKey] {
        let bytes = pending
        pending.removeAll()
        guard bytes.first == 0x1B else { return [] }
        var rest = KeyDecoder()
        return [.escape] + rest.decode(bytes.dropFirst())
    }

    /// One key (or nil for a byte sequence to ignore) and its length starting at `start`, or nil
    /// when the bytes there are an incomplete sequence.
    static func parse(_ bytes: [UInt8], from start: Int) -> (BrowseKey?, Int)? {
        let byte = bytes[start]
        switch byte {
        case 0x1B:
            guard start + 1 < bytes.count else { return nil }
            let next = bytes[start + 1]
            if next == UInt8(ascii: "[") { return parseCSI(bytes, from: start) }
            // DCS, OSC, APC, PM and SOS strings (a terminal's replies: `ESC P 1 $ r ... ESC \`,
            // `ESC ] 11 ; rgb:... BEL`, kitty's `ESC _ G ... ESC \`) up to BEL or ST, whole:
            // read as keys, their letters moved the selection and refreshed.
            if [UInt8(ascii: "P"), UInt8(ascii: "]"), UInt8(ascii: "_"), UInt8(ascii: "^"), UInt8(ascii: "X")].contains(next) {
                return parseString(bytes, from: start)
            }
            if next == UInt8(ascii: "O") {
                guard start + 2 < bytes.count else { return nil }
                return (ss3Key(bytes[start + 2]), 3)
            }
            return (.escape, 1)  // ESC ESC, or Alt+x: Escape, then x on its own
        case 0x03: return (.interrupt, 1)
        case 0x1A: return (.suspend, 1)
        case 0x0D, 0x0A: return (.enter, 1)
        case 0x7F, 0x08: return (.backspace, 1)
        case 0x09: return (.tab, 1)
        case 0x15: return (.clearLine, 1)
        case 0x00..<0x20: return (nil, 1)
        case 0x20..<0x80: return (.character(Character(Unicode.Scalar(byte))), 1)
        default:
            return parseUTF8(bytes, from: start)
        }
    }

    private static func ss3Key(_ final: UInt8) -> BrowseKey? {
        switch final {
        case UInt8(ascii: "A"): return .up
        case UInt8(ascii: "B"): return .down
        case UInt8(ascii: "C"): return .right
        case UInt8(ascii: "D"): return .left
        case UInt8(ascii: "H"): return .home
        case UInt8(ascii: "F"): return .end
        case UInt8(ascii: "M"): return .enter  // keypad Enter in application mode
        default: return nil
        }
    }

    /// A control string from `start` (ESC and its introducer) to its BEL or ST (`ESC \`),
    /// ignored; nil while it is incomplete (``KeyDecoder/flush()`` reads what is left as keys:
    /// Alt+P typed alone).
    private static func parseString(_ bytes: [UInt8], from start: Int) -> (BrowseKey?, Int)? {
        var end = start + 2
        while end < bytes.count {
            if bytes[end] == 0x07 { return (nil, end - start + 1) }
            if bytes[end] == 0x1B {
                guard end + 1 < bytes.count else { return nil }
                // ST ends it; any other ESC ends it too, unterminated, and starts what follows.
                return bytes[end + 1] == UInt8(ascii: "\\") ? (nil, end - start + 2) : (nil, end - start)
            }
            end += 1
        }
        // A runaway string is dropped, not buffered forever.
        return end - start > 4096 ? (nil, end - start) : nil
    }

    /// `ESC [ params final`: parameters and intermediates are 0x20...0x3F, the final byte 0x40...0x7E.
    private static func parseCSI(_ bytes: [UInt8], from start: Int) -> (BrowseKey?, Int)? {
        var end = start + 2
        while end < bytes.count, (0x20...0x3F).contains(bytes[end]) { end += 1 }
        guard end < bytes.count else {
            // A runaway sequence (no final byte for a long time) is dropped, not buffered forever.
            return end - start > 64 ? (nil, end - start) : nil
        }
        let final = bytes[end]
        let length = end - start + 1
        guard (0x40...0x7E).contains(final) else { return (nil, length - 1) }  // malformed: drop the prefix
        if end == start + 2, final == UInt8(ascii: "M") {
            // An X10 mouse report (`ESC [ M` and three bytes: button, column, row), as a terminal
            // without SGR reports sends: swallowed whole (its bytes were read as keys: `o`, `q`...).
            return end + 3 < bytes.count ? (nil, length + 3) : nil
        }
        let parameters = String(decoding: bytes[(start + 2)..<end], as: UTF8.self)
        if parameters.hasPrefix("<") {
            // SGR mouse: button 64 is wheel up, 65 wheel down (modifier bits 4, 8, 16 may be added).
            guard final == UInt8(ascii: "M"), let button = Int(parameters.dropFirst().split(separator: ";").first ?? "") else {
                return (nil, length)
            }
            switch button & ~(4 | 8 | 16) {
            case 64: return (.wheelUp, length)
            case 65: return (.wheelDown, length)
            default: return (nil, length)
            }
        }
        if final == UInt8(ascii: "y"), parameters.hasPrefix("?2026;"), parameters.hasSuffix("$") {
            // DECRPM, the answer to `CSI ? 2026 $ p`: 1 set, 2 reset (both: supported), 0 or 4 not.
            let value = Int(parameters.dropFirst(6).dropLast())
            return (.synchronizedOutput(value == 1 || value == 2), length)
        }
        let first = Int(parameters.split(separator: ";").first ?? "")
        switch final {
        case UInt8(ascii: "A"): return (.up, length)
        case UInt8(ascii: "B"): return (.down, length)
        case UInt8(ascii: "C"): return (.right, length)
        case UInt8(ascii: "D"): return (.left, length)
        case UInt8(ascii: "H"): return (.home, length)
        case UInt8(ascii: "F"): return (.end, length)
        case UInt8(ascii: "Z"): return (nil, length)  // Shift-Tab
        case UInt8(ascii: "~"):
            switch first {
            case 1, 7: return (.home, length)
            case 4, 8: return (.end, length)
            case 5: return (.pageUp, length)
            case 6: return (.pageDown, length)
            default: return (nil, length)
            }
        default: return (nil, length)
        }
    }

    private static func parseUTF8(_ bytes: [UInt8], from start: Int) -> (BrowseKey?, Int)? {
        let lead = bytes[start]
        let length: Int
        switch lead {
        case 0xC2...0xDF: length = 2
        case 0xE0...0xEF: length = 3
        case 0xF0...0xF4: length = 4
        default: return (nil, 1)
        }
        guard start + length <= bytes.count else { return nil }
        let slice = bytes[start..<(start + length)]
        guard slice.dropFirst().allSatisfy({ $0 & 0xC0 == 0x80 }) else { return (nil, 1) }
        let text = String(decoding: slice, as: UTF8.self)
        guard let character = text.first, text.unicodeScalars.first != "\u{FFFD}",
              !character.unicodeScalars.contains(where: { $0.properties.generalCategory == .control || $0.properties.generalCategory == .format })
        else { return (nil, length) }
        return (.character(character), length)
    }
}
