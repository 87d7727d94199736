import Foundation
import PhotosTerminal

/// The status line: which providers and search, how many photos of how many, what is loading,
/// where the listing came from, and the keys, as much as the width allows.
enum BrowseStatus {
    static func line(_ model: BrowseModel, providers: [String], message: String?, width: Int) -> String {
        let separator = " · "
        switch model.mode {
        case .search(let text):
            let typed = TerminalText.sanitize(text)
            let full = text.count >= BrowseModel.searchLimit
            let hints = model.searchReplaces
                ? "type to replace · ⌫ edits · Enter search · Esc cancel"
                : (full ? "full: \(BrowseModel.searchLimit) characters at most · " : "") + "Enter search · Esc cancel"
            // The end of a long search stays in sight: it is where the typing is.
            // A full field keeps its hint in sight: typing more does nothing, and says why.
            let room = width - 1 - TerminalText.displayWidth(" Search: ▏") - (full ? TerminalText.displayWidth(hints) + 4 : 0)
            let shown = TerminalText.displayWidth(typed) <= room ? typed : "…" + tail(of: typed, width: room - 1)
            return compose(["Search: " + shown + "▏"], hints: hints, width: width, urgent: true)
        case .detail(let index):
            var parts = ["\(index + 1) of \(model.photos.count)"]
            if let message { parts.append(message) }
            return compose(parts, hints: "← → photos · o open · s save · Esc back · q quit", width: width, urgent: message != nil)
        case .grid:
            break
        }
        var parts: [String] = []
        if !model.photos.isEmpty || model.total != nil {
            let position = model.photos.isEmpty ? "" : "\(model.selection + 1)/"
            parts.append(position + "\(model.photos.count)" + (model.total.map { " of \($0)" } ?? ""))
        }
        var loading: [String] = []
        if let page = model.loadingPage { loading.append("page \(page)") }
        let thumbnails = model.thumbnailsLoading
        if thumbnails > 0 { loading.append(thumbnails == 1 ? "1 thumbnail" : "\(thumbnails) thumbnails") }
        if !loading.isEmpty { parts.append("loading " + loading.joined(separator: ", ")) }
        if let failure = model.pageFailure {
            // What to do first: a long reason is cut at the screen's edge. Offline, trying
            // again cannot help; the reason says what can.
            let retry = model.offline ? "" : " (r tries again)"
            parts.append("page \(model.nextPage) failed\(retry): \(TerminalText.sanitize(failure))")
        } else if model.reachedEnd {
            parts.append(model.photos.isEmpty ? "nothing found" : "end of results")
        }
        if model.offline {
            parts.append("offline: cached photos only")
        } else if let source = model.source {
            switch source {
            case .network: break
            case .cache(let age): parts.append("cached \(AgeText.format(age)) ago")
            case .stale(let age, let reason):
                parts.append("network failed (\(TerminalText.sanitize(reason))), showing the cache from \(AgeText.format(age)) ago")
            }
        }
        for warning in model.warnings { parts.append(TerminalText.sanitize(warning)) }
        // A long search is cut to what the counts after it and the keys leave it (16 columns at
        // least), so that the counts stay in sight.
        let hints = "↵ view · / search · r refresh · q quit"
        let named = providers.joined(separator: ",")
        let counts = parts.first.map { TerminalText.displayWidth(separator + $0) } ?? 0
        let room = width - 1 - TerminalText.displayWidth(" " + named + " “”") - counts - 3 - TerminalText.displayWidth(hints) - 1
        let search = model.query.map { "“" + TerminalText.truncate(TerminalText.sanitize($0), width: max(16, room)) + "”" } ?? "no search"
        parts.insert(named + " " + search, at: 0)
        // The answer to the last key (saved, could not open) first: the line's end may be cut.
        if let message { parts.insert(message, at: 0) }
        // What the photos shown are (offline, stale) is not cut for the keys either.
        var urgent = message != nil || model.pageFailure != nil || !model.warnings.isEmpty || model.offline
        if case .stale = model.source { urgent = true }
        return compose([parts.joined(separator: separator)], hints: hints, width: width, urgent: urgent)
    }

    /// `parts` on the left and `hints` on the right when both fit. When not, what is `urgent`
    /// (a failure, a message) keeps the whole line; anything else is cut short to leave the
    /// hints their room, as long as 24 columns of it remain.
    private static func compose(_ parts: [String], hints: String, width: Int, urgent: Bool) -> String {
        let left = " " + parts.joined(separator: " · ")
        let leftWidth = TerminalText.displayWidth(left)
        let hintWidth = TerminalText.displayWidth(hints)
        if leftWidth + 3 + hintWidth + 1 <= width {
            return left + String(repeating: " ", count: width - leftWidth - hintWidth - 1) + hints + " "
        }
        let room = width - 3 - hintWidth - 1
        if !urgent, room >= 24 {
            let cut = TerminalText.truncate(left, width: room)
            return cut + String(repeating: " ", count: width - TerminalText.displayWidth(cut) - hintWidth - 1) + hints + " "
        }
        return TerminalText.truncate(left, width: width)
    }

    /// The end of `text` that fits in `width` columns.
    private static func tail(of text: String, width: Int) -> String {
        var kept = ""
        var used = 0
        for character in text.reversed() {
            let size = TerminalText.displayWidth(character)
            guard used + size <= width else { break }
            kept.insert(character, at: kept.startIndex)
            used += size
        }
        return kept
    }
}
