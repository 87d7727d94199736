import Testing

@testable import PhotosCLI

/// Raw terminal bytes to keys, as xterm, tmux and their kin send them.
struct KeyDecoderTests {
    static func keys(_ text: String) -> [BrowseKey] {
        var decoder = KeyDecoder()
        return decoder.decode(Array(text.utf8))
    }

    @Test(arguments: [
        ("\u{1B}[A", BrowseKey.up), ("\u{1B}[B", .down), ("\u{1B}[C", .right), ("\u{1B}[D", .left),
        ("\u{1B}OA", .up), ("\u{1B}OD", .left), ("\u{1B}[1;5C", .right), ("\u{1B}[1;2B", .down),
        ("\u{1B}[5~", .pageUp), ("\u{1B}[6~", .pageDown), ("\u{1B}[H", .home), ("\u{1B}[F", .end),
        ("\u{1B}OH", .home), ("\u{1B}OF", .end), ("\u{1B}[1~", .home), ("\u{1B}[4~", .end), ("\u{1B}[7~", .home),
        ("\u{1B}[8~", .end), ("\r", .enter), ("\n", .enter), ("\u{7F}", .backspace), ("\u{08}", .backspace),
        ("\u{03}", .interrupt), ("\u{15}", .clearLine), ("\t", .tab), ("q", .character("q")), ("/", .character("/")),
        ("é", .character("é")), ("\u{1B}[<64;10;5M", .wheelUp), ("\u{1B}[<65;1;1M", .wheelDown),
    ])
    func decodesOneKey(bytes: String, key: BrowseKey) {
        #expect(Self.keys(bytes) == [key])
    }

    @Test func theAnswerAboutSynchronizedOutputIsReported() {
        #expect(Self.keys("\u{1B}[?2026;2$y") == [.synchronizedOutput(true)])
        #expect(Self.keys("\u{1B}[?2026;1$y") == [.synchronizedOutput(true)])
        #expect(Self.keys("\u{1B}[?2026;0$yq") == [.synchronizedOutput(false), .character("q")])
        #expect(Self.keys("\u{1B}[?2026;4$y") == [.synchronizedOutput(false)])
    }

    @Test func severalKeysInOneRead() {
        #expect(Self.keys("jj\u{1B}[Bq") == [.character("j"), .character("j"), .down, .character("q")])
    }

    @Test func sequencesTheBrowserDoesNotUseAreSwallowedWhole() {
        #expect(Self.keys("\u{1B}[3~\u{1B}[15~\u{1B}[<0;3;4M\u{1B}[<0;3;4m\u{1B}[?1;2cx") == [.character("x")])
        #expect(Self.keys("\u{01}\u{02}a") == [.character("a")], "other control characters are dropped")
        #expect(Self.keys("\u{1A}") == [.suspend], "Ctrl-Z, which raw mode delivers as a byte")
    }

    /// A terminal's replies (DCS, OSC, APC strings) and old-style X10 mouse reports are not keys:
    /// a kitty reply's `G` went to the end, an OSC reply's `r` refreshed, and a click at column
    /// 79 (byte `o`) opened the viewer.
    @Test func repliesAndX10MouseReportsAreNotKeys() {
        #expect(Self.keys("\u{1B}P1$r0m\u{1B}\\j") == [.character("j")])
        #expect(Self.keys("\u{1B}]11;rgb:0000/0000/0000\u{07}q") == [.character("q")])
        #expect(Self.keys("\u{1B}]11;rgb:0000/0000/0000\u{1B}\\q") == [.character("q")])
        #expect(Self.keys("\u{1B}_Gi=31;OK\u{1B}\\") == [])
        var decoder = KeyDecoder()
        #expect(decoder.decode([0x1B, UInt8(ascii: "["), UInt8(ascii: "M"), 32, 32 + 79]).isEmpty, "a report cut after two of its bytes")
        #expect(decoder.decode([32 + 5, UInt8(ascii: "j")]) == [.character("j")])
        #expect(decoder.decode(Array("\u{1B}_Gi=31;".utf8)).isEmpty, "a reply cut between reads")
        #expect(decoder.decode(Array("OK\u{1B}\\k".utf8)) == [.character("k")])
        // Alt+P typed alone: nothing ends it, and once nothing follows it is Escape, then P.
        #expect(decoder.decode([0x1B, UInt8(ascii: "P")]).isEmpty)
        #expect(decoder.flush() == [.escape, .character("P")])
    }

    @Test func aSequenceCutBetweenReadsIsCompletedByTheNext() {
        var decoder = KeyDecoder()
        #expect(decoder.decode(Array("\u{1B}".utf8)).isEmpty)
        #expect(decoder.hasPending)
        #expect(decoder.decode(Array("[".utf8)).isEmpty)
        #expect(decoder.decode(Array("6~".utf8)) == [.pageDown])
        #expect(!decoder.hasPending)
        #expect(decoder.decode([0xC3]).isEmpty)
        #expect(decoder.decode([0xA9]) == [.character("é")])
    }

    @Test func aLoneEscapeIsTheEscapeKeyOnceNothingFollows() {
        var decoder = KeyDecoder()
        #expect(decoder.decode([0x1B]).isEmpty)
        #expect(decoder.flush() == [.escape])
        #expect(!decoder.hasPending)
        #expect(decoder.decode([0x1B, UInt8(ascii: "q")]) == [.escape, .character("q")], "Alt+q: Escape, then q")
        #expect(decoder.decode([0x1B, 0x1B]) == [.escape])
        #expect(decoder.flush() == [.escape])
    }

    @Test func invalidUTF8AndRunawaySequencesAreDropped() {
        #expect(Self.keys("\u{FFFD}") == [], "U+FFFD from a bad byte is not a key")
        var decoder = KeyDecoder()
        #expect(decoder.decode([0xFF, 0x80, UInt8(ascii: "a")]) == [.character("a")])
        let runaway = [0x1B, UInt8(ascii: "[")] + Array(repeating: UInt8(ascii: "1"), count: 100)
        _ = decoder.decode(runaway)
        #expect(decoder.decode(Array("j".utf8)).last == .character("j"))
    }
}
