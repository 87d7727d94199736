import FixtureServerKit
import Foundation
import PhotosTestSupport
import Testing

/// `list --format grid` and `show --preview` end to end.
@Suite struct GridCommandTests {
    /// Visible text: ANSI escape sequences (CSI ... letter) removed.
    static func visible(_ text: String) -> String {
        text.replacing(#/\x1B\[[0-9;?]*[A-Za-z]/#, with: "")
    }

    @Test func gridOnANonTerminalPrintsThePlainTable() async throws {
        try await withServer { _, photos in
            let run = try await photos.run(["list", "--provider", "placeholder", "--per-page", "6", "--format", "grid"])
            #expect(run.status == 0)
            #expect(run.stdout.hasPrefix("ID "))
            #expect(run.stdout.split(separator: "\n").count == 7)
            #expect(!run.stdoutBytes.contains(0x1B))
        }
    }

    @Test func symbolsGridShowsTitlesIdsAndAPlaceholderForTheMissingThumbnail() async throws {
        try await withServer { _, photos in
            let run = try await photos.run(["list", "--provider", "flickr", "--query", "dogs", "--format", "grid", "--graphics", "symbols", "--columns", "3"])
            #expect(run.status == 0)
            let text = Self.visible(run.stdout)
            #expect(text.contains("flickr:53624890009"))
            #expect(text.contains("Rex at Playa de la Concha"))
            #expect(text.contains("no image"), "the file:// thumbnail becomes a placeholder tile")
            #expect(run.stderr.contains("1 of 9 thumbnails could not be shown"))
            for line in text.split(separator: "\n") {
                #expect(line.count <= 100, "grid lines fit COLUMNS=100")
            }
            // Hostile titles are sanitised in the grid too: only colour sequences (CSI ... m) remain.
            #expect(!run.stdout.contains("\u{1B}]"))
            #expect(!run.stdout.unicodeScalars.contains("\u{202E}"))
            let escapes = run.stdout.matches(of: #/\x1B\[[0-9;]*([A-Za-z])/#).map { String($0.output.1) }
            #expect(Set(escapes).isSubset(of: ["m"]))
        }
    }

    @Test func previewDrawsThePhotoAboveItsDetails() async throws {
        try await withServer { server, photos in
            let run = try await photos.run(["show", "flickr:53624890009", "--preview", "--graphics", "symbols"], environment: ["COLORTERM": "truecolor"])
            #expect(run.status == 0)
            let lines = Self.visible(run.stdout).split(separator: "\n", omittingEmptySubsequences: false)
            let details = try #require(lines.firstIndex { $0.hasPrefix("ID ") })
            #expect(details >= 8, "several lines of picture come first")
            #expect(run.stdout.contains("\u{1B}[38;2;"), "drawn in true colour (COLORTERM=truecolor)")
            let indexed = try await photos.run(["show", "flickr:53624890009", "--preview", "--graphics", "symbols"])
            #expect(indexed.stdout.contains("\u{1B}[38;5;") && !indexed.stdout.contains("\u{1B}[38;2;"), "256 colours otherwise")
            let monochrome = try await photos.run(["show", "flickr:53624890009", "--preview", "--graphics", "symbols"], environment: ["NO_COLOR": "1"])
            #expect(!monochrome.stdoutBytes.contains(0x1B), "NO_COLOR: no escape sequence at all")

            let plain = try await photos.run(["show", "flickr:53624890009", "--preview"])
            #expect(plain.status == 0)
            #expect(plain.stdout.hasPrefix("ID "), "no picture when stdout is not a terminal")
            #expect(plain.stderr.contains("not a terminal"))

            let json = try await photos.run(["show", "flickr:53624890009", "--preview", "--format", "json"])
            #expect(json.status == 64)
            _ = server
        }
    }
}
