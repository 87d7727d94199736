import Testing

@testable import PhotosCLI

/// Messages on stderr start on a line of their own, also after a progress bar.
struct DiagnosticsTests {
    @Test func aMessageAfterAProgressBarStartsOnItsOwnLine() {
        // A bar drawn: the cursor stays after it, so an error written then needs a newline first.
        #expect(Diagnostics.leavesCursorMidLine("\r\u{1B}[2KThumbnails ███░░ 12/30"))
        // A bar cleared, a line ended (also by "\r\n", one Character), a carriage return: not.
        #expect(!Diagnostics.leavesCursorMidLine("\r\u{1B}[2K"))
        #expect(!Diagnostics.leavesCursorMidLine("photos: warning: x\n"))
        #expect(!Diagnostics.leavesCursorMidLine("done\r\n"))
        #expect(!Diagnostics.leavesCursorMidLine("\r"))
    }
}
