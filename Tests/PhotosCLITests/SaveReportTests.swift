import Foundation
import Testing

@testable import PhotosCLI

/// The line a save ends with: what a user reads to know what to do next.
struct SaveReportTests {
    private func report(saved: Int, failures: [SaveFailure.Kind]) -> SaveReport {
        var report = SaveReport(started: .now)
        for _ in 0..<saved { report.saved(bytes: 1024) }
        report.failures = failures.enumerated().map { SaveFailure(id: "x:\($0.offset)", error: "no", kind: $0.element) }
        return report
    }

    @Test func inputsThatNameNoPhotoAreNotCalledFailedDownloads() {
        let folder = URL(fileURLWithPath: "/tmp/out")
        let lines = report(saved: 2, failures: [.input, .input]).summaryLine(folder: folder)
        #expect(lines.hasSuffix("; 2 inputs name no photo (see above)."), "\(lines)")
        #expect(!lines.contains("failed") && !lines.contains("retry"), "running it again cannot fix them: \(lines)")
        #expect(report(saved: 2, failures: [.input, .input]).exitCode == 65)

        let mixed = report(saved: 1, failures: [.unreachable, .input]).summaryLine(folder: folder)
        #expect(mixed.hasSuffix("; 1 failed (run the same command again to retry); 1 input names no photo (see above)."), "\(mixed)")
        #expect(report(saved: 1, failures: [.unreachable, .input]).exitCode == 75)

        #expect(report(saved: 0, failures: [.authentication, .authentication]).exitCode == 77)
        #expect(!report(saved: 0, failures: [.authentication]).summaryLine(folder: folder).contains("retry"))

        // Nothing saved, and nothing a second run could change: an input that names no photo
        // beside one that is not there is 69 as that one alone, not 75 ("run again").
        #expect(report(saved: 0, failures: [.input, .missing]).exitCode == 69)
        #expect(report(saved: 0, failures: [.badData, .input]).exitCode == 65)
        #expect(report(saved: 0, failures: [.input, .unreachable]).exitCode == 69)
        #expect(report(saved: 0, failures: [.input, .other]).exitCode == 75)
        #expect(report(saved: 0, failures: [.input, .authentication]).exitCode == 77)
        #expect(report(saved: 0, failures: [.write, .input]).exitCode == 74)

        let downloads = report(saved: 0, failures: [.badData]).summaryLine(folder: folder)
        #expect(downloads.hasSuffix("; 1 failed."), "\(downloads)")
    }

    /// The speed on the progress line is that of the last seconds: a save reading ids as they
    /// are typed showed the bytes over all the time it waited for them.
    @Test func theSpeedIsThatOfTheLastSeconds() throws {
        // Sampled four times a second, as the progress line is redrawn.
        let rate = ByteRate(window: .seconds(3))
        let start = ContinuousClock.now
        func tick(_ quarter: Int, _ bytes: Int) -> Double? { rate.record(bytes, at: start + .milliseconds(250 * quarter)) }
        #expect(tick(0, 0) == nil, "no speed from one sample")
        #expect(tick(1, 1_000_000) == nil, "nor from a quarter of a second")
        #expect(tick(2, 2_000_000) == 4_000_000)
        // Ten seconds of waiting for the next id: nothing arrives, whatever came before.
        for quarter in 3..<40 { _ = tick(quarter, 2_000_000) }
        #expect(tick(40, 2_000_000) == 0)
        // Then 3 MB in a second: over the last three seconds, 1 MB a second (over the whole
        // run it would be 0.45).
        for quarter in 41..<44 { _ = tick(quarter, 2_000_000 + (quarter - 40) * 750_000) }
        let after = try #require(tick(44, 5_000_000))
        #expect(abs(after - 1_000_000) < 1, "the last seconds, not the whole run: \(after)")
        #expect(SaveReport.progressDetail(bytes: 5_000_000, rate: 0, elapsed: 11, done: 1, total: 2).hasPrefix("4.8 MiB  11 s left"))
        #expect(SaveReport.progressDetail(bytes: 5_000_000, rate: 3_145_728, elapsed: 0.4, done: 0, total: 2) == "4.8 MiB  3.0 MiB/s")
    }
}
