import Testing

@testable import PhotosTerminal

/// The ASCII fast paths of sanitising, measuring and truncating give what the general paths give.
struct TerminalTextASCIITests {
    /// ASCII texts with every kind of byte: controls, DEL, runs of spaces, spaces at the ends.
    static func texts() -> [String] {
        var texts = ["", " ", "  ", "a", " a ", "a  b", "a\tb", "a\r\nb", "\u{1B}[31mred\u{1B}[0m", "x\u{7F}y", "\t\n", "end ", " start"]
        var state: UInt32 = 12345
        let alphabet: [UInt8] = [0x00, 0x07, 0x09, 0x0A, 0x0D, 0x1B, 0x1F, 0x20, 0x20, 0x20, 0x41, 0x61, 0x7A, 0x7E, 0x7F, 0x2E]
        for _ in 0..<2000 {
            state = state &* 1_103_515_245 &+ 12345
            let length = Int(state >> 16) % 12
            var bytes: [UInt8] = []
            for _ in 0..<length {
                state = state &* 1_103_515_245 &+ 12345
                bytes.append(alphabet[Int(state >> 16) % alphabet.count])
            }
            texts.append(String(decoding: bytes, as: UTF8.self))
        }
        return texts
    }

    @Test func sanitisingASCIIMatchesTheScalarPath() {
        for text in Self.texts() {
            #expect(TerminalText.sanitizeASCII(text) == TerminalText.sanitizeScalars(text), "\(Array(text.utf8))")
        }
        #expect(TerminalText.sanitizeASCII("é") == nil)
    }

    @Test func widthAndTruncationOfSafeASCIIMatchTheGraphemePath() {
        for text in Self.texts().map(TerminalText.sanitize) {
            #expect(TerminalText.displayWidth(text) == text.reduce(0) { $0 + TerminalText.displayWidth($1) })
            for width in 0...12 {
                let cut = TerminalText.truncate(text, width: width)
                #expect(TerminalText.displayWidth(cut) <= max(0, width))
                if width > 0 && text.count > width { #expect(cut == String(text.prefix(width - 1)) + "…") }
                if text.count <= width { #expect(cut == text) }
            }
        }
    }

    /// Latin-1 and Latin Extended texts (`1024×768`, `Zoë`), with the characters next to the
    /// range's edges: a soft hyphen, C1 controls, a combining mark after a Latin letter.
    @Test func widthAndTruncationOfLatinTextMatchTheGraphemePath() {
        let pieces = ["a", "×", "ë", "ß", "Ž", "ʰ", "\u{A0}", "\u{AD}", "\u{85}", "\u{2FF}", "e\u{301}", "\u{300}", "日", " "]
        var texts = ["1024×768", "Zoë Ångström", "\u{AD}", "x\u{AD}y", "e\u{301}", "naïve café"]
        var state: UInt32 = 777
        for _ in 0..<2000 {
            state = state &* 1_103_515_245 &+ 12345
            let length = Int(state >> 16) % 10
            var text = ""
            for _ in 0..<length {
                state = state &* 1_103_515_245 &+ 12345
                text += pieces[Int(state >> 16) % pieces.count]
            }
            texts.append(text)
        }
        for text in texts.map(TerminalText.sanitize) {
            let graphemeWidth = text.reduce(0) { $0 + TerminalText.displayWidth($1) }
            #expect(TerminalText.displayWidth(text) == graphemeWidth, "\(text.unicodeScalars.map(\.value))")
            guard TerminalText.isSimpleLatin(text) else { continue }
            for width in 0...12 {
                let cut = TerminalText.truncate(text, width: width)
                #expect(TerminalText.displayWidth(cut) <= max(0, width))
                if width > 0 && text.count > width { #expect(cut == String(text.prefix(width - 1)) + "…") }
                if text.count <= width { #expect(cut == text) }
            }
        }
    }
}
