import Foundation
import PhotosCore
import Testing

/// The trimming shortcuts give what Foundation's trimming gives, whatever the text.
@Suite struct TrimmingTests {
    @Test func trimmingMatchesFoundationForEveryKindOfEnd() {
        let pieces = ["a", "7", "~", "!", " ", "\t", "\n", "\r", "\u{0B}", "\u{0C}", "\u{00}", "\u{1F}", "\u{7F}", "\u{85}", "\u{A0}",
                      "\u{2028}", "\u{3000}", "\u{200B}", "é", "日", "e\u{301}", "\u{301}"]
        var texts = ["", " ", "x", " x ", "\u{A0}x", "x\u{3000}", "\u{0B}x"]
        var state: UInt32 = 99
        for _ in 0..<4000 {
            state = state &* 1_103_515_245 &+ 12345
            let length = Int(state >> 16) % 6
            var text = ""
            for _ in 0..<length {
                state = state &* 1_103_515_245 &+ 12345
                text += pieces[Int(state >> 16) % pieces.count]
            }
            texts.append(text)
        }
        for text in texts {
            #expect(text.trimmingWhitespace() == text.trimmingCharacters(in: .whitespaces), "\(text.unicodeScalars.map(\.value))")
            #expect(
                text.trimmingWhitespaceAndNewlines() == text.trimmingCharacters(in: .whitespacesAndNewlines),
                "\(text.unicodeScalars.map(\.value))")
        }
    }
}
