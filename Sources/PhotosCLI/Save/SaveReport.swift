import Foundation
import PhotosTerminal
import Synchronization

/// What a save did, for the progress line, the summary and the exit code.
struct SaveReport {
    let started: ContinuousClock.Instant
    /// Inputs received so far (photos, ids, lines).
    var received = 0
    private(set) var saved = 0
    /// Files already there, repeats included (as `--format json` counts them).
    var skipped = 0
    /// Those of `skipped` that repeat a photo named earlier in the run, said apart in the summary.
    var repeats = 0
    /// Bytes of the files saved by this run (whole files, also when resumed).
    private(set) var bytes = 0
    var failures: [SaveFailure] = []
    /// Sidecars written beside files already there (`--metadata` on a re-run).
    var sidecars = 0
    /// Whether a download ended because the save was interrupted.
    var cancelled = false

    init(started: ContinuousClock.Instant) {
        self.started = started
    }

    mutating func saved(bytes: Int) {
        saved += 1
        self.bytes = self.bytes.addingSaturating(bytes)
    }

    var done: Int { saved + skipped + failures.count }

    private var elapsed: Double {
        let duration = ContinuousClock.now - started
        return Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    /// `12.3 MiB  4.1 MiB/s  8 s left` for the progress line: `bytes` received so far (files
    /// still arriving included), how fast they arrive lately (``ByteRate``), and the time left
    /// at the pace of the photos done in `elapsed` seconds.
    static func progressDetail(bytes: Int, rate: Double?, elapsed seconds: Double, done: Int, total: Int) -> String {
        var parts = [ByteText.format(Int64(bytes))]
        if let rate, rate >= 1 { parts.append(ByteText.format(Int64(rate)) + "/s") }
        if seconds >= 1, done > 0, total > done {
            let left = seconds / Double(done) * Double(total - done)
            if left >= 1 { parts.append(AgeText.format(left) + " left") }
        }
        return parts.joined(separator: "  ")
    }

    /// `Saved 298 photos (14.2 MiB) to DIR in 1.3 s; 2 were already there; 1 repeat skipped; 1 failed; 1 input names
    /// no photo (see above).`
    func summaryLine(folder: URL) -> String {
        let seconds = elapsed
        let time = seconds < 10 ? String(format: "%.1f s", seconds) : AgeText.format(seconds)
        var line = "Saved \(saved) \(saved == 1 ? "photo" : "photos") (\(ByteText.format(Int64(bytes)))) to \(folder.path) in \(time)"
        let there = skipped - repeats
        if there > 0 { line += "; \(there) \(there == 1 ? "was" : "were") already there" }
        if repeats > 0 { line += "; \(repeats) \(repeats == 1 ? "repeat" : "repeats") skipped" }
        if sidecars > 0 { line += "; \(sidecars) missing \(sidecars == 1 ? "sidecar" : "sidecars") written" }
        // Inputs that name no photo are said apart: running the save again cannot fix them.
        let unnamed = failures.count { $0.kind == .input }
        if failures.count > unnamed {
            line += "; \(failures.count - unnamed) failed"
            if failures.contains(where: { $0.kind.isRetryable }) { line += " (run the same command again to retry)" }
        }
        if unnamed > 0 { line += "; \(unnamed) \(unnamed == 1 ? "input names" : "inputs name") no photo (see above)" }
        if done == 0 { line = "Nothing to save" }
        return TerminalText.sanitize(line + ".")
    }

    /// One warning per failed photo with its reason (the first 20; JSON lists them all).
    func failureLines(limit: Int = 20) -> [String] {
        var lines = failures.prefix(limit).map { "\($0.id): \($0.error)" }
        if failures.count > limit {
            lines.append("... and \(failures.count - limit) more (--format json lists every one)")
        }
        return lines
    }

    /// `{"saved":N,"skipped":N,"failed":[{"id","error"}],"bytes":N}`.
    struct JSON: Encodable {
        var saved: Int
        var skipped: Int
        var failed: [SaveFailure]
        var bytes: Int
    }

    var json: JSON { JSON(saved: saved, skipped: skipped, failed: failures, bytes: bytes) }

    /// 75 when some photos failed; 65 when every failure was an input that names no photo; else,
    /// inputs that name no photo beside them changing nothing, 74 when every other failure was a
    /// file that could not be written, 77 when every one was a key the provider refused; when
    /// nothing was saved or there, 69 if every one was the network's or the provider's, 65 if
    /// every one was bad data; nil when all is well.
    var exitCode: Int32? {
        guard !failures.isEmpty else { return nil }
        if failures.allSatisfy({ $0.kind == .input }) { return 65 }
        let others = failures.filter { $0.kind != .input }
        if others.allSatisfy({ $0.kind == .write }) { return 74 }
        if others.allSatisfy({ $0.kind == .authentication }) { return 77 }
        if saved + skipped == 0 {
            if others.allSatisfy({ $0.kind == .unreachable || $0.kind == .missing }) { return 69 }
            if others.allSatisfy({ $0.kind == .badData }) { return 65 }
        }
        return 75
    }
}

/// How fast bytes arrive over the last few seconds, from a running total sampled every so often
/// (the progress line's redraws, four a second): not since the save started, which counts the
/// time a save reading ids as they are typed waits for them.
final class ByteRate: Sendable {
    private let samples = Mutex<[(time: ContinuousClock.Instant, bytes: Int)]>([])
    private let window: Duration

    init(window: Duration = .seconds(3)) {
        self.window = window
    }

    /// Records the running total `bytes` at `time` (now when nil, read under the lock: samples
    /// from two threads stay in order); returns bytes per second since the oldest sample of the
    /// window, nil until the samples span half a second.
    func record(_ bytes: Int, at time: ContinuousClock.Instant? = nil) -> Double? {
        samples.withLock { samples in
            let now = time ?? .now
            samples.append((now, bytes))
            samples.removeAll { now - $0.time > window }
            guard let first = samples.first else { return nil }
            let span = now - first.time
            guard span >= .milliseconds(500) else { return nil }
            let seconds = Double(span.components.seconds) + Double(span.components.attoseconds) / 1e18
            return Double(max(0, bytes - first.bytes)) / seconds
        }
    }
}
