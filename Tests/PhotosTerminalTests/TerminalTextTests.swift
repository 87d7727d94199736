import Testing

@testable import PhotosTerminal

@Suite struct TerminalTextTests {
    @Test(arguments: [
        ("\u{1B}[31mRED\u{1B}[0m", "[31mRED[0m"),
        ("title\u{1B}]0;pwned\u{07}", "title]0;pwned"),
        ("a\u{202E}evil\u{202C}b", "aevilb"),
        ("line one\nline two\r\n\tthree", "line one line two three"),
        ("C1\u{9B}31m", "C131m"),
        ("del\u{7F}ete", "delete"),
        ("  padded  ", "padded"),
    ])
    func dropsControlAndFormatCharacters(input: String, expected: String) {
        let safe = TerminalText.sanitize(input)
        #expect(safe == expected)
        #expect(!safe.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) })
    }

    @Test func keepsEmojiSequencesAndMeasuresThemWide() {
        let family = "👨‍👩‍👧"
        #expect(TerminalText.sanitize("dogs \(family)") == "dogs \(family)")
        #expect(TerminalText.displayWidth(family) == 2)
        #expect(TerminalText.displayWidth("日本") == 4)
        #expect(TerminalText.displayWidth("cafe\u{301}") == 4)
    }

    @Test func truncatesByDisplayWidth() {
        let title = String(repeating: "犬", count: 5000)
        let cut = TerminalText.fit(title, width: 21)
        #expect(TerminalText.displayWidth(cut) <= 21)
        #expect(cut.hasSuffix("…"))
        #expect(TerminalText.fit("short", width: 10) == "short")
        #expect(TerminalText.pad("ab", width: 4) == "ab  ")
    }

    @Test func tableFitsTheWidthAndCarriesNoEscape() {
        var table = Table(columns: [.init("ID", maxWidth: 20), .init("TITLE"), .init("OWNER", maxWidth: 10)])
        table.append(["flickr:1", "\u{1B}[2J" + String(repeating: "long ", count: 400), "someone"])
        table.append(["flickr:2", "🐶 dog", "x"])
        let text = table.render(width: 60)
        for line in text.split(separator: "\n") {
            #expect(TerminalText.displayWidth(String(line)) <= 60)
        }
        #expect(!text.contains("\u{1B}"))
        #expect(text.contains("🐶 dog"))
    }

    @Test func progressBarDrawsOnlyWhenEnabled() {
        let silent = ProgressBar(label: "x", total: 3, enabled: false) { _ in Issue.record("drew while disabled") }
        silent.advance()
        silent.finish()
        let bar = ProgressBar(label: "Thumbnails", total: 4, enabled: true) { _ in }
        #expect(bar.render(done: 2, failed: 1, total: 4) == "Thumbnails ████████████░░░░░░░░░░░░ 2/4 (1 failed)")
        #expect(bar.render(done: 2, failed: 0, total: 4, detail: "1.0 MiB") == "Thumbnails ████████████░░░░░░░░░░░░ 2/4  1.0 MiB")
        #expect(bar.render(done: 7, failed: 0, total: 0) == "Thumbnails 7", "no bar while the total is unknown")
    }
}
