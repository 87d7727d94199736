import Foundation

/// Decode-and-render of one image file into a box of cells, through the tile cache when given.
enum ImageTile {
    /// The decoded pixels live from the decode to the end of the render, inside a reservation
    /// of `budget`: tiles rendered at the same time hold at most its capacity between them.
    static func render(
        file: URL, box: CellSize, renderer: ChafaRenderer, decoder: ImageDecoder, cache: TileCache?,
        budget: DecodeBudget = .shared
    ) throws -> RenderedTile {
        let key = cache?.key(for: file, box: box, renderer: renderer)
        if let cache, let key, let hit = cache.load(key: key) { return hit }
        // A drawing from the cache needs no library; a new one needs libchafa whatever the format.
        try ImagingLibrary.chafa.load()

        let data = try ImageDecoder.read(file)
        let header = try decoder.header(of: data)
        let cells = renderer.cellSize(forImage: header.size, maxColumns: box.columns, maxRows: box.rows)
        let minimum = renderer.pixelSizeNeeded(for: cells)
        let pixels = decoder.outputSize(of: header, minimumSize: minimum)
        // The header check bounds width * height, so this product cannot overflow.
        let output = try budget.withReservation(of: pixels.width * pixels.height * 4) {
            renderer.render(try decoder.decode(data, minimumSize: minimum), cells: cells)
        }
        guard !output.isEmpty else { throw ImageDecodingError.corrupt(header.format, "nothing rendered") }
        let tile = RenderedTile(cells: cells, output: output)
        if let cache, let key { cache.store(tile, key: key) }
        return tile
    }
}

/// `photos show --preview`: one image, downscaled to the terminal.
public enum Preview {
    /// Renders the image at `path` fitted into `maxColumns` x `maxRows` cells, aspect ratio kept.
    ///
    /// - Parameters:
    ///   - path: a JPEG, PNG or WebP file (e.g. the largest cached size of the photo).
    ///   - maxColumns: width limit in cells, usually the terminal width.
    ///   - maxRows: height limit in cells; nil allows up to `maxColumns` rows.
    ///   - graphics: from `TerminalGraphics.detect`; `.none` returns "".
    ///   - cache: optional rendered-tile cache.
    /// - Returns: the drawing followed by a newline, ready for stdout.
    /// - Throws: `ImageDecodingError` for an unreadable, corrupt, unknown or oversized image;
    ///   `ImagingLibraryError` when a library it needs cannot be loaded.
    public static func render(
        path: URL, maxColumns: Int, maxRows: Int? = nil, graphics: TerminalGraphics, cache: TileCache? = nil
    ) throws -> String {
        guard graphics.mode != .none else { return "" }
        let box = CellSize(columns: max(1, maxColumns), rows: max(1, maxRows ?? maxColumns))
        let tile = try ImageTile.render(
            file: path, box: box, renderer: ChafaRenderer(graphics: graphics), decoder: ImageDecoder(), cache: cache)
        return tile.output + "\n"
    }

    /// Renders the image at `path` fitted into `box` (aspect ratio kept), for callers that place
    /// the picture themselves (`photos browse`).
    /// - Throws: `ImageDecodingError` for an unreadable, corrupt, unknown or oversized image;
    ///   `ImagingLibraryError` when a library it needs cannot be loaded.
    public static func tile(path: URL, box: CellSize, graphics: TerminalGraphics, cache: TileCache? = nil) throws -> RenderedTile {
        try ImageTile.render(
            file: path, box: CellSize(columns: max(1, box.columns), rows: max(1, box.rows)),
            renderer: ChafaRenderer(graphics: graphics), decoder: ImageDecoder(), cache: cache)
    }
}
