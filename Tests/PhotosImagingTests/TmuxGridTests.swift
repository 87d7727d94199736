import Foundation
import PhotosTerminal
import Testing

@testable import PhotosImaging

/// The grid as a real terminal shows it: photos-grid-sample runs inside a detached tmux pane of
/// a fixed width, and `tmux capture-pane -p -e` reads back what was drawn (colours included).
/// Each test runs its own tmux server on a socket in its temporary folder, so a user's tmux is
/// never touched and nothing is left behind.
@Suite(.serialized) struct TmuxGridTests {
    static let tmux = findExecutable("tmux")
    static let names = ["sample.jpg", "large.jpg", "thumb.jpg", "sample.png", "sample.webp"]

    @Test(.enabled(if: tmux != nil && Fixture.gridSample != nil, "needs tmux and the built photos-grid-sample"),
          arguments: [80, 160])
    func gridUnderTmux(width: Int) async throws {
        let tmux = try #require(Self.tmux)
        let tool = try #require(Fixture.gridSample)
        let folder = try Fixture.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let marker = folder.appendingPathComponent("done")

        var titles = Self.names.map { "Photo \($0)" }
        titles[1] = "evil\u{1B}]0;owned\u{07}title \u{202E}txt.exe"
        titles.append("no thumbnail")
        var arguments = [tool.path, "--graphics", "auto", "--columns", "3"]
        for title in titles { arguments += ["--title", title] }
        arguments += Self.names.map { Fixture.image($0).path } + [":missing"]
        let command = arguments.map(shellQuote).joined(separator: " ") + "; touch \(shellQuote(marker.path)); sleep 60"

        let socket = folder.appendingPathComponent("tmux.sock").path
        let environment = [
            "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin",
            "HOME": folder.path, "TERM": "xterm-256color", "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8",
        ]
        let tmuxArguments = ["-u", "-S", socket, "-f", "/dev/null"]
        let started = try spawnAndWait(
            tmux, tmuxArguments + ["new-session", "-d", "-x", "\(width)", "-y", "100", "-s", "grid", command],
            environment: environment)
        // kill-session, not kill-server: kill-server signals itself with SIGTERM, which does nothing
        // where SIGTERM is ignored (inherited); the server exits with its last session anyway.
        defer { _ = try? spawnAndWait(tmux, tmuxArguments + ["kill-session", "-t", "grid"], environment: environment) }
        try #require(started == 0, "tmux new-session failed")

        // The tool has exited once the marker exists; tmux may still be reading the pty, so poll
        // the pane until the last caption line shows up (sleeping without holding one of the few
        // cooperative threads the other tests run on).
        // Generous: on a loaded 2-core machine the debug build's rendering can take tens of seconds.
        let deadline = Date().addingTimeInterval(120)
        var capture = ""
        while Date() < deadline {
            if FileManager.default.fileExists(atPath: marker.path) {
                capture = try run(tmux, tmuxArguments + ["capture-pane", "-p", "-e", "-t", "grid", "-S", "-", "-E", "-"], environment: environment).stdout
                if capture.contains("sample:6") { break }
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        try #require(capture.contains("sample:6"), "the grid did not appear in the pane in time")

        #expect(capture.contains("\u{1B}["), "capture-pane -e shows the colours")
        let rawLines = capture.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let lines = rawLines.map(ANSI.strip)
        for line in lines { #expect(TerminalText.displayWidth(line) <= width, "line wider than the pane: \(line)") }

        // Expected geometry, from the same layout rules the grid uses.
        let tileWidth = ThumbnailGrid.layout(columns: 3, terminalColumns: width).tileWidth
        let renderer = ChafaRenderer(graphics: TerminalGraphics(mode: .symbols))
        let heights = try Self.names.map { name in
            renderer.cellSize(
                forImage: try ImageDecoder().header(of: Fixture.data(name)).size,
                maxColumns: tileWidth, maxRows: tileWidth * 3 / 4
            ).rows
        }
        let firstRow = try #require(heights.prefix(3).max())
        let secondRow = try #require(heights.suffix(2).max())
        try #require(lines.count > firstRow + 4 + secondRow, "too few lines in the pane")

        // Nothing wrapped: the first captions sit right under the tallest first-row thumbnail.
        let titleLine = lines[firstRow]
        #expect(titleLine.hasPrefix("Photo sample.jpg"), "captions not at line \(firstRow): \(titleLine)")
        #expect(column(of: "eviltitle", in: titleLine) == nil)
        #expect(column(of: "evil]0;ownedtitle txt.exe".prefix(tileWidth - 1), in: titleLine) == tileWidth + 1)
        #expect(column(of: "Photo thumb.jpg", in: titleLine) == 2 * (tileWidth + 1))
        #expect(lines[firstRow + 1].hasPrefix("sample:1"))
        #expect(column(of: "sample:3", in: lines[firstRow + 1]) == 2 * (tileWidth + 1))
        // Every thumbnail line is drawn in colour (no line lost or blank inside the pictures).
        for line in rawLines[0..<firstRow] { #expect(line.contains("\u{1B}[")) }

        let secondTitles = firstRow + 3 + secondRow
        #expect(lines[secondTitles].hasPrefix("Photo sample.png"))
        #expect(column(of: "no thumbnail", in: lines[secondTitles]) == 2 * (tileWidth + 1))
        #expect(lines[firstRow + 3..<secondTitles].contains { $0.contains("no image") })
        #expect(lines[secondTitles + 1].contains("sample:6"))
    }

    private func column<S: StringProtocol>(of needle: S, in line: String) -> Int? {
        guard let range = line.range(of: needle) else { return nil }
        return TerminalText.displayWidth(String(line[..<range.lowerBound]))
    }

    private func shellQuote(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}
