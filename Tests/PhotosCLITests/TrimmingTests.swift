import Foundation
import PhotosCore
import PhotosTestSupport
import Testing

/// The trimming shortcuts give what Foundation's trimming gives, whatever the text.
@Suite struct TrimmingTests {
    @Test func trimmingMatchesFoundationForEveryKindOfEnd() {
        let pieces = ["a", "7", "~", "!", " ", "\t", "\n", "\r", "\u{0B}", "\u{0C}", "\u{00}", "\u{1F}", "\u{7F}", "\u{85}", "\u{A0}",
                      "\u{2028}", "\u{3000}", "\u{200B}", "é", "日", "e\u{301}", "\u{301}"]
        let texts = ["", " ", "x", " x ", "\u{A0}x", "x\u{3000}", "\u{0B}x"] + generatedTexts(4000, of: pieces, maxPieces: 6, seed: 99)
        for text in texts {
            #expect(text.trimmingWhitespace() == text.trimmingCharacters(in: .whitespaces), "\(text.unicodeScalars.map(\.value))")
            #expect(
                text.trimmingWhitespaceAndNewlines() == text.trimmingCharacters(in: .whitespacesAndNewlines),
                "\(text.unicodeScalars.map(\.value))")
        }
    }
}

/// The environment read from `environ` is Foundation's.
@Suite struct ProcessEnvironmentTests {
    @Test func theEnvironmentIsFoundationsReading() {
        let mine = ProcessEnvironment.current()
        #expect(mine == ProcessInfo.processInfo.environment)
        #expect(mine["PATH"] != nil && mine["PATH"] == String(cString: getenv("PATH")))
    }
}
