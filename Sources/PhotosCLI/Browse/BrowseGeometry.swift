import PhotosImaging

/// Where tiles go on a window of a given size: the columns (three, more when wide), each tile's
/// outer size (a one-cell frame around the thumbnail and its title), and the rows that fit above
/// the status line.
struct BrowseGeometry: Equatable, Sendable {
    /// The window, in cells.
    var width: Int
    var height: Int
    var columns: Int
    /// A tile's outer size: frame, thumbnail box, title line.
    var tileWidth: Int
    var tileHeight: Int
    /// Rows of tiles on screen.
    var rows: Int
    /// The box a thumbnail is fitted into, inside the frame.
    var imageBox: CellSize

    /// Blank columns between tiles.
    static let gap = 1
    /// Tiles are about this wide (frame included) when the window has room for more than three.
    static let preferredTileWidth = 36
    /// A tile narrower than this is not worth drawing; fewer columns are used instead.
    static let minimumTileWidth = 10
    static let minimumColumns = 3
    /// Frame top, title line, frame bottom.
    static let chromeRows = 3

    /// - Parameters:
    ///   - width: window columns.
    ///   - height: window rows (the last one is the status line).
    ///   - cellAspect: a cell's width over its height (0.5 for the usual 10x20 cell).
    ///   - pictures: false when no pictures are drawn (`--graphics none`): tiles are titles only.
    init(width: Int, height: Int, cellAspect: Double = 0.5, pictures: Bool = true) {
        self.width = max(1, width)
        self.height = max(1, height)
        let gap = Self.gap
        var columns = max(Self.minimumColumns, (self.width + gap) / (Self.preferredTileWidth + gap))
        while columns > 1, (self.width - (columns - 1) * gap) / columns < Self.minimumTileWidth { columns -= 1 }
        self.columns = columns
        tileWidth = max(1, (self.width - (columns - 1) * gap) / columns)
        let area = max(1, self.height - 1)
        let inner = max(1, tileWidth - 2)
        guard pictures else {
            rows = max(1, area / Self.chromeRows)
            tileHeight = Self.chromeRows
            imageBox = CellSize(columns: inner, rows: 0)
            return
        }
        // A 4:3 landscape thumbnail fills the box; taller ones are narrower inside it.
        let ideal = max(2, Int((Double(inner) * cellAspect * 0.75).rounded())) + Self.chromeRows
        rows = max(1, Int((Double(area) / Double(ideal)).rounded()))
        tileHeight = max(1, area / rows)
        imageBox = CellSize(columns: inner, rows: max(0, tileHeight - Self.chromeRows))
    }

    var layout: BrowseModel.Layout { BrowseModel.Layout(columns: columns, rows: rows) }

    /// The top-left cell (1-based, as cursor moves count) of the tile in `slot`, reading order.
    func origin(slot: Int) -> (column: Int, row: Int) {
        let x = (slot % columns) * (tileWidth + Self.gap) + 1
        let y = (slot / columns) * tileHeight + 1
        return (x, y)
    }

    /// Too small to draw anything useful: a message instead.
    var isTooSmall: Bool { width < Self.minimumTileWidth || height < Self.chromeRows + 2 }
}
