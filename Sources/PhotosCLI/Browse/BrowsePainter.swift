import Foundation
import PhotosCore
import PhotosImaging
import PhotosTerminal

/// What one screen of `photos browse` shows, gathered for the painter.
struct BrowseScene {
    var model: BrowseModel
    var geometry: BrowseGeometry
    /// The status line's text (already safe; the painter fits it to the width).
    var status: String
    /// The detail view's content when the model is in detail mode.
    var detail: DetailContent?
}

/// The detail view: the photo's picture above its details.
struct DetailContent: Equatable {
    var id: PhotoID
    /// Label and value pairs, values from the provider (sanitised when drawn).
    var lines: [(String, String)]
    /// The picture, once its file is known.
    var picture: PictureStore.Key?
    /// Shown in the picture's place while there is none: loading, or why there is no picture.
    var note: String

    static func == (lhs: DetailContent, rhs: DetailContent) -> Bool {
        lhs.id == rhs.id && lhs.picture == rhs.picture && lhs.note == rhs.note
            && lhs.lines.map(\.0) == rhs.lines.map(\.0) && lhs.lines.map(\.1) == rhs.lines.map(\.1)
    }
}

/// A picture as the painter finds it.
enum PictureLookup {
    case ready(RenderedTile)
    case failed
    case pending
}

/// Draws scenes as terminal output, remembering what is on screen so that each frame writes only
/// what changed: a moved selection redraws two frames, an arriving thumbnail one picture, a scroll
/// or a new layout the whole grid (line by line, never clearing first, so nothing flickers).
/// Where the terminal says it supports synchronized output (mode 2026), every frame is wrapped in
/// its markers, so the terminal shows each frame at once.
struct BrowsePainter {
    let graphics: TerminalGraphics
    var synchronized = false
    private var drawn: Drawn?

    init(graphics: TerminalGraphics) {
        self.graphics = graphics
    }

    private enum Screen: Equatable {
        case grid(topRow: Int)
        /// The detail view, and whether its picture was drawn.
        case detail(DetailContent, pictureDrawn: Bool)
        case tooSmall
    }

    private enum PictureState: Equatable {
        case none, loading, failed
        case ready(PictureStore.Key)
    }

    private struct Slot: Equatable {
        var id: PhotoID?
        var title: String
        var picture: PictureState
        var selected: Bool
        var marker: String?
    }

    private struct Drawn {
        var geometry: BrowseGeometry
        var screen: Screen
        var slots: [Slot]
        var status: String
    }

    /// Forgets what is on screen: the next frame redraws everything.
    mutating func invalidate() { drawn = nil }

    /// The output that brings the screen from what was drawn to `scene`; "" when nothing changed.
    mutating func frame(_ scene: BrowseScene, pictures: (PictureStore.Key) -> PictureLookup) -> String {
        let geometry = scene.geometry
        var out = ""
        let screen: Screen
        if geometry.isTooSmall {
            screen = .tooSmall
        } else if case .detail = scene.model.mode, let detail = scene.detail {
            var ready = false
            if let key = detail.picture, case .ready = pictures(key) { ready = true }
            screen = .detail(detail, pictureDrawn: ready)
        } else {
            screen = .grid(topRow: scene.model.topRow)
        }
        var full = drawn == nil || drawn?.geometry != geometry || drawn?.screen != screen
        var slots: [Slot] = []
        if case .grid = screen {
            slots = gridSlots(scene, pictures: pictures)
            // Pixel pictures cannot be painted over cell by cell: a grid whose photos changed
            // (a new search showing the same rows) is redrawn whole.
            if isPixelMode, let old = drawn?.slots, old.count == slots.count, zip(old, slots).contains(where: { $0.id != $1.id }) {
                full = true
            }
        }
        // A grid scrolled by fewer rows than the screen holds: the terminal moves what is drawn
        // (a scroll region over the tiles), and only the rows scrolled in are written.
        if full, !isPixelMode, drawn?.geometry == geometry, case .grid(let top) = screen, case .grid(let oldTop)? = drawn?.screen,
           let old = drawn?.slots, old.count == slots.count, abs(top - oldTop) < geometry.rows {
            let shift = top - oldTop
            let lines = abs(shift) * geometry.tileHeight
            out += "\u{1B}[0m\u{1B}[1;\(geometry.rows * geometry.tileHeight)r" + (shift > 0 ? "\u{1B}[\(lines)S" : "\u{1B}[\(lines)T") + "\u{1B}[r"
            let blank = Slot(id: nil, title: "", picture: .none, selected: false, marker: nil)
            drawn?.slots = old.indices.map { slot in
                let source = slot + shift * geometry.columns
                return old.indices.contains(source) ? old[source] : blank
            }
            drawn?.screen = screen
            full = false
        }
        if full && isPixelMode {
            out += Self.clearPixels
        }
        switch screen {
        case .tooSmall:
            if full {
                // Wrapped rather than cut ("window to…" in 10 columns), on the rows above the
                // status line.
                out += "\u{1B}[0m\u{1B}[2J"
                let lines = TerminalText.wrap("window too small", width: max(1, geometry.width), breakingWords: true)
                for (row, line) in lines.prefix(max(1, geometry.height - 1)).enumerated() {
                    out += Self.move(row: row + 1, column: 1) + line
                }
            }
        case .detail(let detail, _):
            if full { out += drawDetail(detail, geometry: geometry, pictures: pictures) }
        case .grid:
            out += drawGrid(slots, scene: scene, full: full, pictures: pictures)
        }
        let status = statusLine(scene.status, model: scene.model, width: geometry.width)
        if full || drawn?.status != status {
            out += Self.move(row: geometry.height, column: 1) + status
        }
        drawn = Drawn(geometry: geometry, screen: screen, slots: slots, status: status)
        guard !out.isEmpty else { return "" }
        return (synchronized ? Self.beginSync : "") + out + (synchronized ? Self.endSync : "")
    }

    // MARK: Grid

    private func gridSlots(_ scene: BrowseScene, pictures: (PictureStore.Key) -> PictureLookup) -> [Slot] {
        let model = scene.model
        let geometry = scene.geometry
        let first = model.topRow * geometry.columns
        return (0..<geometry.layout.tilesPerScreen).map { slot in
            let index = first + slot
            guard index < model.photos.count else {
                return Slot(id: nil, title: "", picture: .none, selected: false, marker: index == model.photos.count ? marker(model) : nil)
            }
            let photo = model.photos[index]
            let title = TerminalText.truncate(TerminalText.title(photo.title), width: max(1, geometry.tileWidth - 2))
            var picture = PictureState.loading
            if geometry.imageBox.rows == 0 || graphics.mode == .none {
                picture = .none
            } else {
                switch model.thumbnail(at: index) {
                case .failed: picture = .failed
                case .ready(let file):
                    let key = PictureStore.Key(file: file.path, box: geometry.imageBox)
                    switch pictures(key) {
                    case .ready: picture = .ready(key)
                    case .failed: picture = .failed
                    case .pending: picture = .loading
                    }
                case .loading, nil: picture = .loading
                }
            }
            return Slot(id: photo.id, title: title, picture: picture, selected: index == model.selection, marker: nil)
        }
    }

    /// What the first empty tile after the photos says.
    private func marker(_ model: BrowseModel) -> String? {
        if model.reachedEnd { return model.photos.isEmpty ? "no photos" : "end of results" }
        if model.loadingPage != nil { return model.photos.isEmpty ? "loading…" : "loading more…" }
        if model.pageFailure != nil { return model.photos.isEmpty ? "could not load" : "could not load more" }
        return nil
    }

    private func drawGrid(_ slots: [Slot], scene: BrowseScene, full: Bool, pictures: (PictureStore.Key) -> PictureLookup) -> String {
        let geometry = scene.geometry
        var out = ""
        if full {
            // Line by line across every tile, each line ended by erasing the rest: no clearing first.
            let blocks = slots.map { tileLines($0, geometry: geometry, pictures: pictures) }
            for row in 0..<geometry.rows {
                for line in 0..<geometry.tileHeight {
                    out += Self.move(row: row * geometry.tileHeight + line + 1, column: 1)
                    for column in 0..<geometry.columns {
                        if column > 0 { out += " " }
                        out += blocks[row * geometry.columns + column][line]
                    }
                    out += "\u{1B}[0m\u{1B}[K"
                }
            }
            for line in (geometry.rows * geometry.tileHeight + 1)..<geometry.height {
                out += Self.move(row: line, column: 1) + "\u{1B}[0m\u{1B}[K"
            }
            for (slot, state) in slots.enumerated() { out += placePixels(state, slot: slot, geometry: geometry, pictures: pictures) }
            return out
        }
        guard let old = drawn?.slots else { return out }
        for (slot, state) in slots.enumerated() where old[slot] != state {
            let before = old[slot]
            let (x, y) = geometry.origin(slot: slot)
            if before.id == state.id, before.picture == state.picture, before.marker == state.marker, before.title == state.title {
                // Only the selection changed: the frame and the title, never the picture.
                out += frameOnly(state, x: x, y: y, geometry: geometry)
            } else {
                for (line, text) in tileLines(state, geometry: geometry, pictures: pictures).enumerated() {
                    out += Self.move(row: y + line, column: x) + text
                }
                out += placePixels(state, slot: slot, geometry: geometry, pictures: pictures)
            }
        }
        return out
    }

    /// A tile as `tileHeight` lines of exactly `tileWidth` columns (pixel pictures are placed after).
    private func tileLines(_ slot: Slot, geometry: BrowseGeometry, pictures: (PictureStore.Key) -> PictureLookup) -> [String] {
        let width = geometry.tileWidth
        let inner = max(0, width - 2)
        let box = geometry.imageBox
        let blank = String(repeating: " ", count: width)
        guard slot.id != nil else {
            var lines = Array(repeating: blank, count: geometry.tileHeight)
            if let marker = slot.marker {
                lines[min(geometry.tileHeight - 1, geometry.tileHeight / 2)] = center(dim(marker), visible: TerminalText.truncate(marker, width: width), width: width)
            }
            return lines
        }
        let (open, close) = frameStyle(slot.selected)
        var lines: [String] = []
        lines.append(slot.selected ? open + "┌" + String(repeating: "─", count: inner) + "┐" + close : blank)
        let side = slot.selected ? open + "│" + close : " "
        let picture = pictureLines(slot.picture, box: box, pictures: pictures)
        for line in picture { lines.append(side + line + side) }
        let title = TerminalText.pad(slot.title, width: inner)
        lines.append(side + (slot.selected ? "\u{1B}[7m" + title + "\u{1B}[0m" : title) + side)
        lines.append(slot.selected ? open + "└" + String(repeating: "─", count: inner) + "┘" + close : blank)
        return lines
    }

    /// The frame and title of a tile whose picture stays as drawn.
    private func frameOnly(_ slot: Slot, x: Int, y: Int, geometry: BrowseGeometry) -> String {
        let inner = max(0, geometry.tileWidth - 2)
        let (open, close) = frameStyle(slot.selected)
        let blank = String(repeating: " ", count: geometry.tileWidth)
        var out = Self.move(row: y, column: x)
            + (slot.selected ? open + "┌" + String(repeating: "─", count: inner) + "┐" + close : blank)
        let side = slot.selected ? open + "│" + close : " "
        for line in 0..<geometry.imageBox.rows {
            out += Self.move(row: y + 1 + line, column: x) + side
            out += Self.move(row: y + 1 + line, column: x + geometry.tileWidth - 1) + side
        }
        let title = TerminalText.pad(slot.title, width: inner)
        out += Self.move(row: y + 1 + geometry.imageBox.rows, column: x)
            + side + (slot.selected ? "\u{1B}[7m" + title + "\u{1B}[0m" : title) + side
        out += Self.move(row: y + 2 + geometry.imageBox.rows, column: x)
            + (slot.selected ? open + "└" + String(repeating: "─", count: inner) + "┘" + close : blank)
        return out
    }

    /// The picture area's lines, `box.columns` wide: symbols centred, blanks for pixel pictures
    /// (placed afterwards), a quiet "loading" or a marked empty box.
    private func pictureLines(_ state: PictureState, box: CellSize, pictures: (PictureStore.Key) -> PictureLookup) -> [String] {
        let blank = String(repeating: " ", count: box.columns)
        var lines = Array(repeating: blank, count: box.rows)
        guard box.rows > 0 else { return lines }
        switch state {
        case .none:
            break
        case .loading:
            lines[(box.rows - 1) / 2] = center(dim("loading"), visible: "loading", width: box.columns)
        case .failed:
            lines = emptyBox(box)
        case .ready(let key):
            guard case .ready(let tile) = pictures(key) else { return emptyBox(box) }
            guard !isPixelMode else { break }
            let top = (box.rows - tile.cells.rows) / 2
            let left = (box.columns - tile.cells.columns) / 2
            let right = box.columns - tile.cells.columns - left
            let padLeft = String(repeating: " ", count: max(0, left))
            let padRight = String(repeating: " ", count: max(0, right))
            for (offset, line) in tile.output.split(separator: "\n", omittingEmptySubsequences: false).prefix(box.rows).enumerated()
            where top + offset < box.rows {
                lines[top + offset] = padLeft + line + padRight
            }
        }
        return lines
    }

    /// A box of the thumbnail's size saying there is no picture.
    private func emptyBox(_ box: CellSize) -> [String] {
        let width = box.columns
        guard width >= 2, box.rows >= 2 else {
            return Array(repeating: TerminalText.pad("×", width: width), count: box.rows)
        }
        let inner = width - 2
        let label = inner >= 10 ? "× no image" : "×"
        var lines = [dim("┌" + String(repeating: "─", count: inner) + "┐")]
        for row in 1..<(box.rows - 1) {
            let text = row == (box.rows - 1) / 2 ? center(label, visible: label, width: inner) : String(repeating: " ", count: inner)
            lines.append(dim("│" + text + "│"))
        }
        lines.append(dim("└" + String(repeating: "─", count: inner) + "┘"))
        return lines
    }

    /// Pixel pictures (kitty, iTerm2, sixel) go in after the text, from the box's first cell.
    private func placePixels(_ slot: Slot, slot index: Int, geometry: BrowseGeometry, pictures: (PictureStore.Key) -> PictureLookup) -> String {
        guard isPixelMode, case .ready(let key) = slot.picture, case .ready(let tile) = pictures(key) else { return "" }
        let (x, y) = geometry.origin(slot: index)
        let box = geometry.imageBox
        let top = (box.rows - tile.cells.rows) / 2
        let left = (box.columns - tile.cells.columns) / 2
        return Self.move(row: y + 1 + top, column: x + 1 + left) + tile.output
    }

    // MARK: Detail

    private func drawDetail(_ detail: DetailContent, geometry: BrowseGeometry, pictures: (PictureStore.Key) -> PictureLookup) -> String {
        let width = geometry.width
        let box = Self.detailBox(geometry: geometry, lines: detail.lines.count)
        var out = ""
        var pictureLines = Array(repeating: "", count: box.rows)
        var pixels = ""
        var picture: RenderedTile?
        if let key = detail.picture, case .ready(let tile) = pictures(key) { picture = tile }
        if let tile = picture {
            let top = (box.rows - tile.cells.rows) / 2
            let left = max(0, (width - tile.cells.columns) / 2)
            if isPixelMode {
                pixels = Self.move(row: top + 1, column: left + 1) + tile.output
            } else {
                for (offset, line) in tile.output.split(separator: "\n", omittingEmptySubsequences: false).prefix(box.rows).enumerated()
                where top + offset < box.rows {
                    pictureLines[top + offset] = String(repeating: " ", count: left) + line
                }
            }
        } else if box.rows > 0 {
            let note = TerminalText.truncate(detail.note, width: width)
            pictureLines[(box.rows - 1) / 2] = center(dim(note), visible: note, width: width)
        }
        for (row, line) in pictureLines.enumerated() {
            out += Self.move(row: row + 1, column: 1) + line + "\u{1B}[0m\u{1B}[K"
        }
        let labelWidth = detail.lines.map { TerminalText.displayWidth($0.0) }.max() ?? 0
        var row = box.rows + 1
        out += Self.move(row: row, column: 1) + "\u{1B}[K"
        for (label, value) in detail.lines where row + 1 < geometry.height {
            row += 1
            let text = TerminalText.fit(value, width: max(1, width - labelWidth - 2))
            out += Self.move(row: row, column: 1) + bold(TerminalText.pad(label, width: labelWidth)) + "  " + text + "\u{1B}[K"
        }
        while row + 1 < geometry.height {
            row += 1
            out += Self.move(row: row, column: 1) + "\u{1B}[K"
        }
        return out + pixels
    }

    /// The box the detail picture is fitted into: the whole width, the height above the details.
    static func detailBox(geometry: BrowseGeometry, lines: Int) -> CellSize {
        CellSize(columns: geometry.width, rows: max(0, geometry.height - 1 - lines - 1))
    }

    // MARK: Status line

    private func statusLine(_ text: String, model: BrowseModel, width: Int) -> String {
        "\u{1B}[0m\u{1B}[7m" + TerminalText.pad(text, width: width) + "\u{1B}[0m"
    }

    // MARK: Styles

    private var isPixelMode: Bool { [.kitty, .iterm, .sixel].contains(graphics.mode) }
    private var monochrome: Bool { graphics.colors == .monochrome }

    private func frameStyle(_ selected: Bool) -> (String, String) {
        guard selected else { return ("", "") }
        return (monochrome ? "\u{1B}[1m" : "\u{1B}[1;33m", "\u{1B}[0m")
    }

    private func dim(_ text: String) -> String { monochrome ? text : "\u{1B}[2m" + text + "\u{1B}[0m" }
    private func bold(_ text: String) -> String { "\u{1B}[1m" + text + "\u{1B}[0m" }

    /// `styled` (whose visible text is `visible`) centred in `width` columns.
    private func center(_ styled: String, visible: String, width: Int) -> String {
        let used = TerminalText.displayWidth(visible)
        guard used <= width else { return TerminalText.truncate(visible, width: width) }
        let left = (width - used) / 2
        return String(repeating: " ", count: left) + styled + String(repeating: " ", count: width - used - left)
    }

    static func move(row: Int, column: Int) -> String { "\u{1B}[\(row);\(column)H" }
    static let beginSync = "\u{1B}[?2026h"
    static let endSync = "\u{1B}[?2026l"
    /// Clears the screen and, for kitty, deletes every picture placed on it.
    static let clearPixels = "\u{1B}[0m\u{1B}[2J\u{1B}_Ga=d,d=A\u{1B}\\"
}
