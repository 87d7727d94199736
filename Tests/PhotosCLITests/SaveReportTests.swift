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

        let downloads = report(saved: 0, failures: [.badData]).summaryLine(folder: folder)
        #expect(downloads.hasSuffix("; 1 failed."), "\(downloads)")
    }
}
