import Foundation
import PhotosTerminal
import Synchronization

/// On a terminal, a line that says which providers photos waits for when a listing is slow to
/// come (a slow network, a busy provider), so that the screen is not left blank; cleared once
/// the listing is in, before anything is printed.
final class ListingWait: Sendable {
    /// How long a listing may take before the line is drawn.
    static let delay: Duration = .milliseconds(700)

    /// Whether the line is on the screen, whether the wait is over, and the providers whose
    /// listing has not come yet.
    private let state: Mutex<(drawn: Bool, stopped: Bool, waiting: [String])>
    private let task = Mutex<Task<Void, Never>?>(nil)

    /// How often the line is drawn again: a warning said meanwhile erases it.
    static let redraw: Duration = .seconds(1)

    /// Starts waiting for `names`; nothing is ever drawn unless `enabled` (stderr a terminal).
    init(names: [String], enabled: Bool) {
        state = Mutex((false, false, names))
        guard enabled, !names.isEmpty else { return }
        task.withLock {
            $0 = Task { [self] in
                try? await Task.sleep(for: Self.delay)
                while !Task.isCancelled {
                    draw()
                    try? await Task.sleep(for: Self.redraw)
                }
            }
        }
    }

    /// Draws the line, naming the providers still waited for, within the terminal's width (less
    /// one column): a longer line would wrap, and the erase before the next line clears only its
    /// last row.
    private func draw() {
        state.withLock { state in
            guard !state.stopped, !Task.isCancelled, !state.waiting.isEmpty else { return }
            state.drawn = true
            let line = "Waiting for " + TerminalText.sanitize(state.waiting.joined(separator: ", ")) + "…"
            let fitted = TTY.columns(STDERR_FILENO).map { TerminalText.truncate(line, width: max(1, $0 - 1)) } ?? line
            Diagnostics.raw("\r\u{1B}[2K" + fitted)
        }
    }

    /// `name`'s listing is in (or failed): no longer named, and once every provider's is, the
    /// line is cleared for good, so that it is not drawn over the thumbnails' progress.
    func arrived(_ name: String) {
        let done = state.withLock { state in
            state.waiting.removeAll { $0 == name }
            return state.waiting.isEmpty
        }
        if done { stop() }
    }

    /// The listing is in: clears the line if it was drawn. Idempotent.
    func stop() {
        task.withLock { $0?.cancel() }
        state.withLock { state in
            guard !state.stopped else { return }
            state.stopped = true
            if state.drawn { Diagnostics.raw("\r\u{1B}[2K") }
        }
    }
}
