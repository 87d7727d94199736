import PhotosTestSupport
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
            #expect(TerminalText.sanitizeASCII(text) == TerminalText.rebuildSanitized(text), "\(Array(text.utf8))")
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
        let texts = ["1024×768", "Zoë Ångström", "\u{AD}", "x\u{AD}y", "e\u{301}", "naïve café"]
            + generatedTexts(2000, of: pieces, maxPieces: 10, seed: 777)
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

    /// Text that sanitising leaves alone is recognised without being rebuilt, and only such text:
    /// generated from Latin letters, wide characters, emoji with joiners, and every kind of
    /// character sanitising drops or changes, next to and inside runs of spaces.
    @Test func textLeftAsItIsIsRecognisedWithoutBeingRebuilt() {
        let pieces = ["a", "×", "ë", "ʰ", "\u{A0}", "\u{AD}", "\u{85}", "\u{2FF}", "\u{300}", "日", "東京", " ", "  ", "\t", "\n",
                      "\u{200D}", "\u{200E}", "\u{202E}", "\u{2028}", "\u{3000}", "\u{E000}", "\u{378}", "👩‍💻", "\u{1B}", "é"]
        let texts = ["1024×768", "Zoë", " Zoë", "Zoë ", "Zo  ë", "東京 タワー", "a\u{200D}b", "\u{200D}"]
            + generatedTexts(3000, of: pieces, maxPieces: 8, seed: 4242)
        // A space before a combining mark or a joiner is one character with it, which trimming
        // keeps; such text is rebuilt (to the same text) rather than recognised.
        var recognised = 0
        for text in texts where TerminalText.sanitizeASCII(text) == nil {
            let rebuilt = TerminalText.rebuildSanitized(text)
            if TerminalText.isUnchangedBySanitizing(text) {
                #expect(rebuilt == text, "\(text.unicodeScalars.map(\.value))")
                recognised += 1
            } else if rebuilt == text {
                #expect(text.unicodeScalars.first == " ", "\(text.unicodeScalars.map(\.value))")
            }
            #expect(TerminalText.sanitize(text) == rebuilt)
        }
        #expect(recognised > 100)
    }

    /// The scalars recognised by value as kept, U+00A1 to U+02FF but the soft hyphen, are each kept
    /// by the rule that reads their category.
    @Test func theLatinScalarsRecognisedByValueAreKept() {
        for value in UInt32(0xA1)..<0x300 where value != 0xAD {
            let text = "x" + String(Unicode.Scalar(value)!) + "y"
            #expect(TerminalText.rebuildSanitized(text) == text, "U+\(String(value, radix: 16))")
        }
        #expect(TerminalText.rebuildSanitized("x\u{AD}y") == "xy")
    }
}
