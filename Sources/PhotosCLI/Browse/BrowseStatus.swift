import Foundation
import PhotosTerminal

/// The status line: which providers and search, how many photos of how many, what is loading,
/// where the listing came from, and the keys, as much as the width allows.
enum BrowseStatus {
    static func line(_ model: BrowseModel, providers: [String], message: String?, width: Int) -> String {
        let separator = " · "
        switch model.mode {
        case .search(let text):
            let field = "Search: " + TerminalText.sanitize(text) + "▏"
            let hints = model.searchReplaces ? "type to replace · ⌫ edits · Enter search · Esc cancel" : "Enter search · Esc cancel"
            return compose([field], hints: hints, width: width)
        case .detail(let index):
            var parts = ["\(index + 1) of \(model.photos.count)"]
            if let message { parts.append(message) }
            return compose(parts, hints: "← → photos · o open · s save · Esc back · q quit", width: width)
        case .grid:
            break
        }
        var parts: [String] = []
        let search = model.query.map { "“" + TerminalText.sanitize($0) + "”" } ?? "no search"
        parts.append(providers.joined(separator: ",") + " " + search)
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
        if let message { parts.append(message) }
        return compose([parts.joined(separator: separator)], hints: "↵ view · / search · r refresh · q quit", width: width)
    }

    /// `parts` on the left and `hints` on the right when both fit; the hints go first when not.
    private static func compose(_ parts: [String], hints: String, width: Int) -> String {
        let left = " " + parts.joined(separator: " · ")
        let leftWidth = TerminalText.displayWidth(left)
        let hintWidth = TerminalText.displayWidth(hints)
        if leftWidth + 3 + hintWidth + 1 <= width {
            return left + String(repeating: " ", count: width - leftWidth - hintWidth - 1) + hints + " "
        }
        return TerminalText.truncate(left, width: width)
    }
}
