import Dispatch
import Foundation
import PhotosTerminal

/// One cell of the grid: a photo's thumbnail with its title and id under it.
public struct GridTile: Hashable, Sendable {
    /// Untrusted (from a provider): sanitised and truncated before display.
    public var title: String
    /// Shown under the title, e.g. "flickr:53624890009"; sanitised too.
    public var id: String
    /// The cached thumbnail file; nil draws the placeholder (and counts as a failure).
    public var imagePath: URL?

    public init(title: String, id: String, imagePath: URL?) {
        self.title = title
        self.id = id
        self.imagePath = imagePath
    }
}

/// `photos list --format grid`: thumbnails in `columns` columns sized from the terminal width.
public enum ThumbnailGrid {
    /// Blank columns between tiles.
    public static let gap = 1
    /// Narrower tiles are not worth drawing; fewer columns are used instead.
    public static let minimumTileWidth = 8

    /// The width of each tile for a terminal `terminalColumns` wide, and the columns that fit.
    public static func layout(columns: Int, terminalColumns: Int) -> (columns: Int, tileWidth: Int) {
        var columns = max(1, columns)
        let width = max(minimumTileWidth, terminalColumns)
        while columns > 1, (width - (columns - 1) * gap) / columns < minimumTileWidth { columns -= 1 }
        return (columns, max(1, (width - (columns - 1) * gap) / columns))
    }

    /// Renders `tiles` as a grid.
    ///
    /// Each thumbnail keeps its aspect ratio inside a tile `tileWidth` cells wide and at most
    /// 3/4 of that tall; rows are as tall as their tallest thumbnail. Under each thumbnail come
    /// its sanitised title and id, truncated to the tile width. A missing, unreadable, corrupt or
    /// oversized thumbnail, or one whose library cannot be loaded (`ImagingLibrary.loadFailures`
    /// then says why), is drawn as a placeholder box and counted in `failures`. Thumbnails are
    /// decoded and rendered in parallel, and reused from `cache` when unchanged.
    ///
    /// Symbols output is plain lines; pixel modes (kitty, iterm, sixel) reserve each row's lines
    /// first and then place every image with cursor save/restore and moves. With `.none` only
    /// the captions are laid out and nothing counts as failed (callers print their table instead).
    ///
    /// - Parameters:
    ///   - tiles: the photos, in order.
    ///   - columns: tiles per row (`--columns`, default 3); reduced when the terminal is too narrow.
    ///   - terminalColumns: the terminal width (`TTY.columns(1) ?? 80`).
    ///   - graphics: from `TerminalGraphics.detect`.
    ///   - cache: optional rendered-tile cache.
    /// - Returns: the text to print (ends with a newline unless empty) and the number of placeholders.
    public static func render(
        tiles: [GridTile], columns: Int = 3, terminalColumns: Int, graphics: TerminalGraphics, cache: TileCache? = nil
    ) -> (text: String, failures: Int) {
        guard !tiles.isEmpty else { return ("", 0) }
        let (columns, tileWidth) = layout(columns: columns, terminalColumns: terminalColumns)
        let box = CellSize(columns: tileWidth, rows: max(1, tileWidth * 3 / 4))
        let images = renderImages(tiles: tiles, box: box, graphics: graphics, cache: cache)
        if cache != nil, images.contains(where: { $0 != nil }) { cache?.prune() }

        let style = CaptionStyle(colors: graphics.mode == .none ? .monochrome : graphics.colors)
        var text = ""
        var failures = 0
        for rowStart in stride(from: 0, to: tiles.count, by: columns) {
            let indices = Array(rowStart..<min(rowStart + columns, tiles.count))
            if graphics.mode != .none { failures += indices.filter { images[$0] == nil }.count }
            if rowStart > 0 { text += "\n" }
            let rowHeight = indices.compactMap { images[$0]?.cells.rows }.max() ?? max(3, tileWidth * 3 / 8)
            switch graphics.mode {
            case .none:
                break
            case .auto, .symbols:
                text += symbolRow(indices.map { images[$0] }, tileWidth: tileWidth, rowHeight: rowHeight, style: style)
            case .kitty, .iterm, .sixel:
                text += pixelRow(indices.map { images[$0] }, tileWidth: tileWidth, rowHeight: rowHeight, style: style)
            }
            text += joinTiles(indices.map { style.title(tiles[$0].title, width: tileWidth) }, tileWidth: tileWidth) + "\n"
            text += joinTiles(indices.map { style.id(tiles[$0].id, width: tileWidth) }, tileWidth: tileWidth) + "\n"
        }
        return (text, failures)
    }

    /// Decodes and renders every thumbnail, spread over the cores, with the decoded pixels in
    /// memory at once bounded by `budget`; nil where it failed.
    static func renderImages(
        tiles: [GridTile], box: CellSize, graphics: TerminalGraphics, cache: TileCache?, budget: DecodeBudget = .shared
    ) -> [RenderedTile?] {
        guard graphics.mode != .none else { return Array(repeating: nil, count: tiles.count) }
        let renderer = ChafaRenderer(graphics: graphics)
        let decoder = ImageDecoder()
        let results = ResultSlots(count: tiles.count)
        DispatchQueue.concurrentPerform(iterations: tiles.count) { index in
            guard let path = tiles[index].imagePath else { return }
            let tile = try? ImageTile.render(file: path, box: box, renderer: renderer, decoder: decoder, cache: cache, budget: budget)
            results.set(index, tile)
        }
        return results.values
    }

    /// One row of symbol tiles, each line padded to the tile width and reset at its end.
    static func symbolRow(_ images: [RenderedTile?], tileWidth: Int, rowHeight: Int, style: CaptionStyle) -> String {
        let blocks: [[String]] = images.map { image in
            guard let image else { return style.placeholder(width: tileWidth, height: rowHeight) }
            let left = (tileWidth - image.cells.columns) / 2
            let right = tileWidth - image.cells.columns - left
            var lines = image.output.split(separator: "\n", omittingEmptySubsequences: false).prefix(rowHeight).map {
                String(repeating: " ", count: left) + $0 + String(repeating: " ", count: right)
            }
            while lines.count < rowHeight { lines.append(String(repeating: " ", count: tileWidth)) }
            return lines
        }
        var text = ""
        for line in 0..<rowHeight {
            text += joinTiles(blocks.map { $0[line] }, tileWidth: tileWidth) + "\n"
        }
        return text
    }

    /// One row of pixel-mode tiles: reserve the lines (scrolling happens now, not mid-image),
    /// then draw each image from the saved row origin, then leave the cursor under the images.
    static func pixelRow(_ images: [RenderedTile?], tileWidth: Int, rowHeight: Int, style: CaptionStyle) -> String {
        let esc = "\u{1B}"
        let reserved = rowHeight + 2
        var text = String(repeating: "\n", count: reserved) + "\(esc)[\(reserved)A\r\(esc)7"
        func moveTo(column: Int, row: Int) -> String {
            "\(esc)8" + (row > 0 ? "\(esc)[\(row)B" : "") + (column > 0 ? "\(esc)[\(column)C" : "")
        }
        for (slot, image) in images.enumerated() {
            let x = slot * (tileWidth + gap)
            if let image {
                text += moveTo(column: x + (tileWidth - image.cells.columns) / 2, row: 0) + image.output
            } else {
                for (row, line) in style.placeholder(width: tileWidth, height: rowHeight).enumerated() {
                    text += moveTo(column: x, row: row) + line
                }
            }
        }
        return text + moveTo(column: 0, row: rowHeight)
    }

    /// Tiles of one line side by side, `gap` apart; trailing blanks dropped.
    static func joinTiles(_ parts: [String], tileWidth: Int) -> String {
        var line = parts.joined(separator: String(repeating: " ", count: gap))
        while line.last == " " { line.removeLast() }
        return line
    }
}

/// Captions and placeholders, plain under NO_COLOR.
struct CaptionStyle {
    let colors: ColorDepth

    private var dim: String { colors == .monochrome ? "" : "\u{1B}[2m" }
    private var reset: String { colors == .monochrome ? "" : "\u{1B}[0m" }

    func title(_ title: String, width: Int) -> String {
        TerminalText.pad(TerminalText.sanitize(title), width: width)
    }

    func id(_ id: String, width: Int) -> String {
        let text = TerminalText.fit(id, width: width)
        let padding = String(repeating: " ", count: max(0, width - TerminalText.displayWidth(text)))
        return (dim.isEmpty || text.isEmpty ? text : dim + text + reset) + padding
    }

    /// A box the size of a thumbnail saying there is none.
    func placeholder(width: Int, height: Int) -> [String] {
        guard width >= 2, height >= 2 else {
            return Array(repeating: TerminalText.pad("×", width: width), count: max(1, height))
        }
        let inner = width - 2
        let label = inner >= 8 ? "no image" : "×"
        var lines = ["┌" + String(repeating: "─", count: inner) + "┐"]
        for row in 1..<(height - 1) {
            if row == (height - 1) / 2 {
                let left = (inner - TerminalText.displayWidth(label)) / 2
                lines.append("│" + String(repeating: " ", count: left) + TerminalText.pad(label, width: inner - left) + "│")
            } else {
                lines.append("│" + String(repeating: " ", count: inner) + "│")
            }
        }
        lines.append("└" + String(repeating: "─", count: inner) + "┘")
        return lines.map { dim.isEmpty ? $0 : dim + $0 + reset }
    }
}

/// Slots written from `concurrentPerform` workers, each index once.
private final class ResultSlots: @unchecked Sendable {
    private let lock = NSLock()
    private var slots: [RenderedTile?]

    init(count: Int) { slots = Array(repeating: nil, count: count) }

    func set(_ index: Int, _ value: RenderedTile?) {
        lock.lock()
        slots[index] = value
        lock.unlock()
    }

    var values: [RenderedTile?] {
        lock.lock()
        defer { lock.unlock() }
        return slots
    }
}
