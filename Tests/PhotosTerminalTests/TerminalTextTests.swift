import Foundation
import Synchronization
import Testing

@testable import PhotosTerminal

@Suite struct TerminalTextTests {
    @Test func aWrappingColumnShowsItsCellWholeOverSeveralLines() {
        let url = "https://api.flickr.com/services/rest/?method=flickr.photos.search"
        var table = Table(columns: [.init("SETTING", maxWidth: 12), .init("VALUE", maxWidth: 20, wraps: true), .init("SOURCE")])
        table.append(["[flickr] api", url, "default"])
        table.append(["[nasa] api", "short", "env PHOTOS_NASA_API"])
        let lines = table.render(width: 60).split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
        #expect(lines.allSatisfy { TerminalText.displayWidth($0) <= 60 }, "\(lines)")
        let valueStart = "SETTING".count + 5 + 2  // the setting column (12) and the gap
        let pieces = lines.dropFirst().prefix { !$0.hasPrefix("[nasa]") }.map { String($0.dropFirst(valueStart).prefix(20)).trimmingCharacters(in: .whitespaces) }
        #expect(pieces.joined() == url, "the URL whole over \(pieces.count) lines: \(lines)")
        #expect(lines[1].hasPrefix("[flickr] api") && lines[1].hasSuffix("default"), "the other cells on the row's first line")
        #expect(lines.last?.hasPrefix("[nasa] api") == true && lines.last?.contains("short") == true)
        #expect(!lines.joined().contains("…"))
    }

    /// A title with nothing visible in it is said as untitled (it showed as a blank in browse
    /// and show: the check for an empty title came before sanitising).
    @Test func aTitleOfNothingVisibleIsUntitled() {
        #expect(TerminalText.title("\u{200D}\u{200D}\u{202E}\u{2066}") == "(untitled)")
        #expect(TerminalText.title(" \t\n ") == "(untitled)" && TerminalText.title("") == "(untitled)")
        #expect(TerminalText.title("Lake \u{1B}[31mTahoe") == TerminalText.sanitize("Lake \u{1B}[31mTahoe"))
        #expect(TerminalText.title("東京") == "東京")
    }

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

    /// A run of combining marks is kept to the 30 that Unicode's Stream-Safe Text Format allows
    /// (UAX #15): a title of one letter and 5,000 accents was 10 KB in every frame of browse.
    /// Text that needs marks keeps every one of them.
    @Test func keepsAtMostThirtyCombiningMarksInARow() {
        let zalgo = "a" + String(repeating: "\u{301}", count: 5_000) + "b" + String(repeating: "\u{300}\u{316}", count: 40)
        let safe = TerminalText.sanitize(zalgo)
        #expect(safe == "a" + String(repeating: "\u{301}", count: 30) + "b" + String(repeating: "\u{300}\u{316}", count: 15), "\(safe.unicodeScalars.count) scalars")
        #expect(TerminalText.title(zalgo) == safe)
        for kept in ["Tiếng Việt", "cafe\u{301}", "עִבְרִית", "བོད་ཡིག", "a" + String(repeating: "\u{301}", count: 30)] {
            #expect(TerminalText.sanitize(kept) == kept, "\(kept)")
        }
    }

    @Test func keepsEmojiSequencesAndMeasuresThemWide() {
        let family = "👨‍👩‍👧"
        #expect(TerminalText.sanitize("dogs \(family)") == "dogs \(family)")
        #expect(TerminalText.displayWidth(family) == 2)
        #expect(TerminalText.displayWidth("日本") == 4)
        #expect(TerminalText.displayWidth("cafe\u{301}") == 4)
    }

    /// A zero-width joiner stays only where it joins (emoji sequences, a conjunct after a
    /// virama); elsewhere it hides inside a word or fills a name that looks empty, and goes, as
    /// do Hangul fillers and other invisible characters. Variation selectors stay.
    @Test(arguments: [
        ("pay\u{200D}pal", "paypal"),
        (String(repeating: "\u{200D}", count: 30), ""),
        ("\u{200D}dogs\u{200D} \u{200D}x", "dogs x"),
        ("🐕\u{200D}\u{200D}🦺", "🐕\u{200D}🦺"),
        ("🏳\u{FE0F}\u{200D}🌈 flag", "🏳\u{FE0F}\u{200D}🌈 flag"),
        ("👩🏽\u{200D}💻", "👩🏽\u{200D}💻"),
        ("क्\u{200D}ष", "क्\u{200D}ष"),
        ("র\u{200D}\u{09CD}যাব", "র\u{200D}\u{09CD}যাব"),
        ("അവന്\u{200D} x", "അവന്\u{200D} x"),
        ("അവന്\u{200D}", "അവന്\u{200D}"),
        ("a\u{3164}b \u{115F}\u{1160}c \u{FFA0}", "ab c"),
        ("\u{3164}", ""),
        ("x\u{34F}y", "xy"),
        ("❤\u{FE0F} 葛\u{E0100}", "❤\u{FE0F} 葛\u{E0100}"),
    ])
    func keepsJoinersOnlyWhereTheyJoin(input: String, expected: String) {
        #expect(TerminalText.sanitize(input) == expected, "\(TerminalText.sanitize(input).unicodeScalars.map { String($0.value, radix: 16) })")
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
        // Narrower than the columns can go (the ID's 8, the title's 8, two gaps): each line is
        // cut at the edge, not wrapped onto the next by the terminal.
        for width in [1, 5, 12, 20, 23] {
            let lines = table.render(width: width).split(separator: "\n")
            #expect(lines.count == 3 && lines.allSatisfy { TerminalText.displayWidth(String($0)) <= width }, "\(width): \(lines)")
        }
    }

    /// On a terminal too narrow for every column, the columns that may shrink do, then those that
    /// may go are left out, before the flexible one is cut below its minimum.
    @Test func aNarrowTerminalShrinksThenLeavesOutColumnsBeforeTheTitle() {
        var table = Table(columns: [
            .init("ID", maxWidth: 50), .init("TITLE"), .init("OWNER", maxWidth: 20, minWidth: 10, dropOrder: 1),
            .init("SIZE", maxWidth: 11, alignRight: true, dropOrder: 0),
        ])
        table.append(["flickr:53624890009", "Rex at Playa de la Concha, the long way round", "Andrea Ruiz Fernández", "1024×768"])
        table.append(["flickr:2", "🐶 dog", "x", "640×480"])
        func lines(_ width: Int) -> [Substring] { table.render(width: width).split(separator: "\n") }
        for width in [30, 40, 50, 60, 80, 100] {
            for line in lines(width) { #expect(TerminalText.displayWidth(String(line)) <= width, "\(width): \(line)") }
        }
        #expect(lines(100)[0].contains("OWNER") && lines(100)[0].contains("SIZE"))
        #expect(lines(64)[0].contains("OWNER") && lines(64)[0].contains("SIZE"), "the owner shrinks first: \(lines(64))")
        #expect(lines(64)[1].contains("  Andrea Ruiz Fer…  "), "\(lines(64))")
        #expect(lines(56)[0].contains("OWNER") && !lines(56)[0].contains("SIZE"), "then the size goes: \(lines(56))")
        #expect(lines(56)[1].contains("  Andrea Ruiz Ferná…"), "and the owner takes back what it can: \(lines(56))")
        #expect(!lines(44)[0].contains("OWNER") && !lines(44)[0].contains("SIZE"), "then the owner goes: \(lines(44))")
        #expect(lines(44)[1].hasPrefix("flickr:53624890009  Rex at Playa"), "the id stays whole: \(lines(44))")
        #expect(lines(44)[2].hasSuffix("🐶 dog"), "no padding after the last column shown: \(lines(44))")

        // A column nobody filled (a provider without owners) goes before one that says something.
        var ownerless = Table(columns: table.columns)
        ownerless.append(["placeholder:1", "accusamus beatae ad facilis cum similique qui sunt", "", "600×600"])
        let narrow = ownerless.render(width: 42).split(separator: "\n")
        #expect(narrow[0].contains("SIZE") && !narrow[0].contains("OWNER"), "the empty owner column goes first: \(narrow)")
        #expect(narrow[1].hasSuffix("600×600"), "\(narrow)")
    }

    /// The table as it was laid out cell by cell with strings, before it was built as bytes
    /// (and, as since, cut at the terminal's edge when its columns cannot be narrower).
    static func referenceRender(_ table: Table, width: Int, gap: Int = 2) -> String {
        func at(_ cells: [String], _ index: Int) -> String { index < cells.count ? cells[index] : "" }
        var widths = table.columns.enumerated().map { index, column in
            let content = table.rows.map { TerminalText.displayWidth(at($0, index)) }.max() ?? 0
            let natural = max(content, TerminalText.displayWidth(column.title))
            return column.maxWidth.map { min(natural, $0) } ?? natural
        }
        if let flexible = table.columns.firstIndex(where: { $0.maxWidth == nil }) {
            let fixed = widths.enumerated().filter { $0.offset != flexible }.map(\.element).reduce(0, +)
            widths[flexible] = max(8, min(widths[flexible], width - fixed - gap * (table.columns.count - 1)))
        }
        func line(_ cells: [String]) -> String {
            var parts: [String] = []
            for (index, columnWidth) in widths.enumerated() {
                let cell = TerminalText.truncate(at(cells, index), width: columnWidth)
                let padding = String(repeating: " ", count: max(0, columnWidth - TerminalText.displayWidth(cell)))
                if table.columns[index].alignRight {
                    parts.append(padding + cell)
                } else {
                    parts.append(index == widths.count - 1 ? cell : cell + padding)
                }
            }
            return parts.joined(separator: String(repeating: " ", count: gap))
        }
        var lines = [line(table.columns.map(\.title))] + table.rows.map(line)
        // Wider than the terminal (the columns at their narrowest): each line cut at its edge.
        if widths.reduce(0, +) + gap * (widths.count - 1) > width { lines = lines.map { TerminalText.truncate($0, width: width) } }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Tables of every shape lay out as they did: cells wider than their column, wide and
    /// combining characters, short rows, right-aligned and flexible columns, narrow terminals.
    @Test func tablesLayOutAsTheyDidCellByCell() {
        let words = ["", "a", "flickr:53624890009", "Synthetic photo 1", "🐶 dog", "東京の夜", "Zoë", "e\u{301}te", "1024×768",
                     String(repeating: "long ", count: 30), "x\ty", "  padded  "]
        var state: UInt32 = 11
        func next(_ bound: Int) -> Int {
            state = state &* 1_103_515_245 &+ 12_345
            return Int(state >> 16) % bound
        }
        for _ in 0..<300 {
            let columns = (0..<(1 + next(4))).map { index in
                Table.Column("C\(index)", maxWidth: next(3) == 0 ? nil : 1 + next(25), alignRight: next(3) == 0)
            }
            var table = Table(columns: columns)
            for _ in 0..<next(6) {
                table.append((0..<next(columns.count + 1)).map { _ in words[next(words.count)] })
            }
            let width = 10 + next(100)
            #expect(table.render(width: width) == Self.referenceRender(table, width: width), "\(table.rows) at \(width)")
        }
    }

    @Test func quotedInputShowsWhatDoesNotShowItself() {
        #expect(TerminalText.quoted("flickr:1") == "'flickr:1'")
        #expect(TerminalText.quoted(" 1") == "' 1'", "a leading space stays, inside the quotes")
        #expect(TerminalText.quoted("1\u{200B}") == "'1\\u{200B}'")
        #expect(TerminalText.quoted("a\tb\nc") == "'a\\u{9}b\\u{A}c'")
        #expect(TerminalText.quoted("\u{1B}[31mred") == "'\\u{1B}[31mred'", "no escape reaches the terminal")
        #expect(TerminalText.quoted("flickr\u{202E}") == "'flickr\\u{202E}'")
        #expect(TerminalText.quoted("a\u{00A0}b") == "'a\\u{A0}b'", "a space that is not U+0020")
        #expect(TerminalText.quoted("Zoë 🐶") == "'Zoë 🐶'")
        #expect(TerminalText.quoted(String(repeating: "x", count: 100), width: 10) == "'xxxxxxxxx…'")
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

    /// A line whose steps are large files is drawn again while they arrive, with the counts so
    /// far: a save of a few originals showed nothing for seconds.
    @Test func aProgressLineMovesBetweenSteps() {
        let drawn = Mutex<[String]>([])
        let bar = ProgressBar(label: "Saving", total: 3, enabled: true) { line in drawn.withLock { $0.append(line) } }
        bar.refresh { done, total in "\(done) of \(total): 1.5 MiB" }
        bar.finish()
        let lines = drawn.withLock { $0 }
        #expect(lines.first == "\r\u{1B}[2KSaving ░░░░░░░░░░░░░░░░░░░░░░░░ 0/3  0 of 3: 1.5 MiB", "\(lines)")
        #expect(lines.last == "\r\u{1B}[2K", "and cleared at the end")
        let silent = ProgressBar(label: "x", total: 3, enabled: false) { _ in Issue.record("drew while disabled") }
        silent.refresh { _, _ in "y" }
    }

    /// A progress line longer than the terminal wraps, and the erase before each redraw clears
    /// only its last row: the line always fits, the bar narrowing first, then going.
    @Test func aProgressLineFitsItsTerminal() {
        let bar = ProgressBar(label: "Saving", total: 500, enabled: true) { _ in }
        for columns in 1...100 {
            let line = bar.render(done: 123, failed: 4, total: 500, detail: "12.5 MiB  3.2 MiB/s  2 s left", columns: columns)
            #expect(TerminalText.displayWidth(line) <= max(1, columns - 1), "\(columns): \(line)")
        }
        #expect(bar.render(done: 1, failed: 0, total: 2, columns: 80) == "Saving ████████████░░░░░░░░░░░░ 1/2", "the whole bar where it fits")
        let narrow = bar.render(done: 1, failed: 0, total: 2, columns: 30)
        #expect(narrow.hasPrefix("Saving ███") && narrow.hasSuffix(" 1/2") && TerminalText.displayWidth(narrow) == 29, "\(narrow)")
        #expect(bar.render(done: 1, failed: 0, total: 2, columns: 16) == "Saving 1/2", "no room for a bar")
    }
}

/// Widths as the terminal draws them: glibc's `wcswidth` in a UTF-8 locale is what terminals
/// measure with; a row measured narrower than it is drawn runs past the window.
@Suite struct TerminalWidthTests {
    /// glibc's `wcwidth` (not exported to Swift by its Glibc module).
    static let wcwidth = unsafeBitCast(dlsym(UnsafeMutableRawPointer(bitPattern: 0), "wcwidth"), to: (@convention(c) (Int32) -> Int32).self)

    @Test func widthsAreWhatTheTerminalDraws() {
        setlocale(LC_CTYPE, "C.UTF-8")
        let cases = [
            String(repeating: "\u{1100}", count: 300),  // Hangul leading consonants: one grapheme to Swift, 600 columns
            "\u{915}" + String(repeating: "\u{93E}", count: 300),  // a Devanagari letter and 300 spacing vowel signs
            "\u{17000}\u{1B000}\u{FE10}\u{2329}\u{A960}",  // wide ranges: Tangut, Kana Supplement, vertical forms
            "\u{1F321}\u{1F54A}",  // emoji in text style: one column each
            "\u{1F600}日本", "cafe\u{301}", "\u{D55C}\u{AE00}", "\u{1100}\u{1161}\u{11A8}",
        ]
        for text in cases {
            let drawn = text.unicodeScalars.reduce(0) { $0 + Int(Self.wcwidth(Int32(bitPattern: $1.value))) }
            #expect(drawn > 0)
            #expect(TerminalText.displayWidth(text) == drawn, "\(text.unicodeScalars.map { String($0.value, radix: 16) }.prefix(4))")
            for width in [1, 5, 20, 79] {
                #expect(TerminalText.displayWidth(TerminalText.truncate(text, width: width)) <= width)
            }
        }
        // An emoji sequence is one glyph (terminals draw it so; wcswidth adds its parts).
        #expect(TerminalText.displayWidth("\u{1F468}\u{200D}\u{1F469}\u{200D}\u{1F467}") == 2)
        #expect(TerminalText.displayWidth("\u{1F321}\u{FE0F}") == 2)
    }
}
