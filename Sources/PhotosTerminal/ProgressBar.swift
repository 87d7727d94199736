import Foundation
import Synchronization

/// A one-line progress bar on stderr, drawn only on a terminal and at most 20 times a second.
///
/// The line is written on a queue of its own: a step may be counted on the transport's loop
/// thread, which a terminal that stops reading (a paused pane, a full pipe) must not stop.
public final class ProgressBar: Sendable {
    private struct State {
        var total = 0
        var done = 0
        var failed = 0
        /// Shown after the counts (bytes, speed, time left).
        var detail = ""
        var lastDraw = ContinuousClock.now - .seconds(1)
        var visible = false
    }

    private let label: String
    private let enabled: Bool
    private let write: @Sendable (String) -> Void
    /// The terminal's width when the line is drawn: a line longer than that would wrap, and
    /// the erase before each redraw clears only its last row.
    private let columns: @Sendable () -> Int?
    private let state = Mutex(State())
    private let drawing = DispatchQueue(label: "photos.progress")

    /// - Parameter total: how many steps there are; 0 when not known yet (see ``add(_:)`` and
    ///   ``update(total:)``).
    /// - Parameter columns: the terminal's width, asked at each draw (nil: unknown).
    public init(
        label: String, total: Int, enabled: Bool, columns: @escaping @Sendable () -> Int? = { nil }, write: @escaping @Sendable (String) -> Void
    ) {
        self.label = TerminalText.sanitize(label)
        self.enabled = enabled
        self.write = write
        self.columns = columns
        state.withLock { $0.total = max(total, 0) }
    }

    /// Counts `count` more steps to come (work that joins while the bar is shown).
    public func add(_ count: Int) {
        state.withLock { $0.total += max(count, 0) }
    }

    /// Sets how many steps there are, once it is known or when it changes.
    public func update(total: Int) {
        state.withLock { $0.total = max(total, 0) }
    }

    /// One more step done; `detail` (sanitised) replaces the text after the counts. It is
    /// asked for only when the line is drawn (at most 20 times a second), not for every step.
    public func advance(failed: Bool = false, detail: (() -> String)? = nil) {
        guard enabled else { return }
        let text: String? = state.withLock { state in
            state.done += 1
            if failed { state.failed += 1 }
            let now = ContinuousClock.now
            guard now - state.lastDraw >= .milliseconds(50) || state.done == state.total else { return nil }
            if let detail { state.detail = TerminalText.sanitize(detail()) }
            return line(drawnAt: now, &state)
        }
        draw(text)
    }

    /// Draws the line again with a new `detail` (sanitised), given the counts so far, without a
    /// step done: a line whose steps are large files moves while they arrive. At most 20 times
    /// a second, as every draw.
    public func refresh(detail: (_ done: Int, _ total: Int) -> String) {
        guard enabled else { return }
        // The detail is made outside the lock: it may wait (for the transport, while it loads).
        let counts: (done: Int, total: Int)? = state.withLock { state in
            ContinuousClock.now - state.lastDraw >= .milliseconds(50) ? (state.done, state.total) : nil
        }
        guard let counts else { return }
        let made = TerminalText.sanitize(detail(counts.done, counts.total))
        let text: String? = state.withLock { state in
            let now = ContinuousClock.now
            guard now - state.lastDraw >= .milliseconds(50) else { return nil }
            state.detail = made
            return line(drawnAt: now, &state)
        }
        draw(text)
    }

    /// The line for `state`, recorded as drawn at `now`.
    private func line(drawnAt now: ContinuousClock.Instant, _ state: inout State) -> String {
        state.lastDraw = now
        state.visible = true
        return render(done: state.done, failed: state.failed, total: state.total, detail: state.detail, columns: columns())
    }

    /// Writes `text` over the line, on the drawing queue.
    private func draw(_ text: String?) {
        guard let text else { return }
        let write = write
        drawing.async { write("\r\u{1B}[2K" + text) }
    }

    /// Clears the bar, once the lines drawn before are out.
    public func finish() {
        guard enabled else { return }
        let visible = state.withLock { $0.visible }
        drawing.sync { if visible { write("\r\u{1B}[2K") } }
    }

    func render(done: Int, failed: Int) -> String {
        render(done: done, failed: failed, total: state.withLock { $0.total })
    }

    /// The line for these counts, within `columns` less one (a line that fills the last column
    /// wraps in some terminals): the bar narrows first, down to 5 cells, then goes, then the
    /// line is cut.
    func render(done: Int, failed: Int, total: Int, detail: String = "", columns: Int? = nil) -> String {
        let failures = failed > 0 ? " (\(failed) failed)" : ""
        let suffix = detail.isEmpty ? "" : "  " + detail
        let room = columns.map { max(1, $0 - 1) }
        func fitted(_ line: String) -> String { room.map { TerminalText.truncate(line, width: $0) } ?? line }
        guard total > 0 else { return fitted("\(label) \(done)\(failures)\(suffix)") }
        let counts = "\(done)/\(total)\(failures)\(suffix)"
        let width = min(24, room.map { $0 - TerminalText.displayWidth(label) - TerminalText.displayWidth(counts) - 2 } ?? 24)
        guard width >= 5 else { return fitted("\(label) \(counts)") }
        let filled = min(width, done * width / total)
        let bar = String(repeating: "█", count: filled) + String(repeating: "░", count: width - filled)
        return "\(label) \(bar) \(counts)"
    }
}
