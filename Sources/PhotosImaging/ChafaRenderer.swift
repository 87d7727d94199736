internal import ImagingShim
import Foundation

/// A size in terminal character cells.
public struct CellSize: Hashable, Sendable, CustomStringConvertible {
    public var columns: Int
    public var rows: Int

    public init(columns: Int, rows: Int) {
        self.columns = columns
        self.rows = rows
    }

    public var description: String { "\(columns)x\(rows)" }
}

/// Turns decoded pixels into terminal output (symbols, sixel, kitty or iTerm2) with libchafa.
///
/// Output is deterministic for a given image, size and `TerminalGraphics`, so golden files work.
/// Sequences come from chafa's fallback term info, which carries every sequence: a forced pixel
/// mode therefore never prints nothing, whatever TERM says.
public struct ChafaRenderer: Sendable {
    /// Resolution chafa matches symbols at: 8x8 pixels a cell.
    static let symbolCellPixels = 8

    public var graphics: TerminalGraphics
    /// How hard chafa searches for the best symbol, 0...1 (chafa's own default is 0.5).
    public var workFactor: Float

    /// - Parameters:
    ///   - graphics: mode, colours and cell size; `.none` renders nothing.
    ///   - workFactor: chafa's symbol search effort, 0...1.
    public init(graphics: TerminalGraphics, workFactor: Float = 0.5) {
        self.graphics = graphics
        self.workFactor = min(1, max(0, workFactor))
    }

    /// Width over height of one cell, as chafa's font ratio.
    var fontRatio: Double {
        Double(graphics.cellPixelSize.width) / Double(graphics.cellPixelSize.height)
    }

    /// The cells an image of `imageSize` fills when fitted into `maxColumns` x `maxRows`, aspect
    /// ratio kept (small images are enlarged to fill the box; the result is at least 1x1).
    public func cellSize(forImage imageSize: PixelSize, maxColumns: Int, maxRows: Int) -> CellSize {
        let maxColumns = max(1, maxColumns), maxRows = max(1, maxRows)
        guard imageSize.width > 0, imageSize.height > 0 else { return CellSize(columns: maxColumns, rows: maxRows) }
        let aspect = Double(imageSize.height) / Double(imageSize.width)
        var columns = maxColumns
        var rows = Int((Double(columns) * fontRatio * aspect).rounded())
        if rows > maxRows {
            rows = maxRows
            columns = Int((Double(rows) / (fontRatio * aspect)).rounded())
        }
        return CellSize(columns: min(maxColumns, max(1, columns)), rows: min(maxRows, max(1, rows)))
    }

    /// The pixel size worth decoding for `cells`: what chafa samples (8x8 a cell for symbols, the
    /// cell's pixel size for pixel modes). Decoders use it to pick a cheaper scaled decode.
    public func pixelSizeNeeded(for cells: CellSize) -> PixelSize {
        switch graphics.mode {
        case .kitty, .iterm, .sixel:
            return PixelSize(width: cells.columns * graphics.cellPixelSize.width, height: cells.rows * graphics.cellPixelSize.height)
        case .auto, .symbols, .none:
            return PixelSize(width: cells.columns * Self.symbolCellPixels, height: cells.rows * Self.symbolCellPixels)
        }
    }

    /// Renders `image` stretched to exactly `cells` (use `cellSize(forImage:...)` to keep its aspect).
    ///
    /// Symbols: `cells.rows` lines joined by "\n" (no trailing newline), each exactly
    /// `cells.columns` columns wide and ending with colours reset. Pixel modes: one escape sequence
    /// (sixel `ESC P ... ESC \`, kitty `ESC _G ... ESC \`, iTerm2 `ESC ]1337;File= ... BEL`).
    /// Empty when libchafa cannot be loaded (`ImagingLibrary.chafa.load()` says why).
    public func render(_ image: DecodedImage, cells: CellSize) -> String {
        guard graphics.mode != .none, image.width > 0, image.height > 0, cells.columns > 0, cells.rows > 0,
              let termInfo = ChafaTerm.info, let config = photos_chafa_canvas_config_new()
        else { return "" }
        defer { photos_chafa_canvas_config_unref(config) }
        photos_chafa_canvas_config_set_geometry(config, Int32(cells.columns), Int32(cells.rows))
        photos_chafa_canvas_config_set_work_factor(config, workFactor)
        photos_chafa_canvas_config_set_optimizations(config, CHAFA_OPTIMIZATION_REUSE_ATTRIBUTES)

        switch graphics.mode {
        case .kitty, .iterm, .sixel:
            photos_chafa_canvas_config_set_pixel_mode(config, pixelMode)
            photos_chafa_canvas_config_set_cell_geometry(
                config, Int32(graphics.cellPixelSize.width), Int32(graphics.cellPixelSize.height))
            photos_chafa_canvas_config_set_canvas_mode(config, CHAFA_CANVAS_MODE_TRUECOLOR)
        case .auto, .symbols, .none:
            photos_chafa_canvas_config_set_pixel_mode(config, CHAFA_PIXEL_MODE_SYMBOLS)
            photos_chafa_canvas_config_set_canvas_mode(config, canvasMode)
            if let symbols = photos_chafa_symbol_map_new() {
                photos_chafa_symbol_map_add_by_tags(symbols, tags(CHAFA_SYMBOL_TAG_BLOCK, CHAFA_SYMBOL_TAG_BORDER, CHAFA_SYMBOL_TAG_SPACE))
                photos_chafa_symbol_map_remove_by_tags(symbols, tags(CHAFA_SYMBOL_TAG_WIDE, CHAFA_SYMBOL_TAG_AMBIGUOUS))
                photos_chafa_canvas_config_set_symbol_map(config, symbols)
                photos_chafa_symbol_map_unref(symbols)
            }
        }

        guard let canvas = photos_chafa_canvas_new(config) else { return "" }
        defer { photos_chafa_canvas_unref(canvas) }
        image.pixels.withUnsafeBufferPointer { pixels in
            photos_chafa_canvas_draw_all_pixels(
                canvas, CHAFA_PIXEL_RGBA8_UNASSOCIATED, pixels.baseAddress,
                Int32(image.width), Int32(image.height), Int32(image.width * 4))
        }
        guard let printed = photos_chafa_canvas_print(canvas, termInfo) else { return "" }
        defer { photos_g_string_free(printed, 1) }
        guard let bytes = printed.pointee.str else { return "" }
        return String(decoding: UnsafeRawBufferPointer(start: bytes, count: Int(printed.pointee.len)), as: UTF8.self)
    }

    private var pixelMode: ChafaPixelMode {
        switch graphics.mode {
        case .kitty: return CHAFA_PIXEL_MODE_KITTY
        case .iterm: return CHAFA_PIXEL_MODE_ITERM2
        case .sixel: return CHAFA_PIXEL_MODE_SIXELS
        case .auto, .symbols, .none: return CHAFA_PIXEL_MODE_SYMBOLS
        }
    }

    private var canvasMode: ChafaCanvasMode {
        switch graphics.colors {
        case .truecolor: return CHAFA_CANVAS_MODE_TRUECOLOR
        // 240: leaves out the 16 colours every theme redefines.
        case .indexed256: return CHAFA_CANVAS_MODE_INDEXED_240
        case .indexed16: return CHAFA_CANVAS_MODE_INDEXED_16
        case .monochrome: return CHAFA_CANVAS_MODE_FGBG
        }
    }

    private func tags(_ list: ChafaSymbolTags...) -> ChafaSymbolTags {
        ChafaSymbolTags(rawValue: list.reduce(0) { $0 | $1.rawValue })
    }

    /// Identifies the renderer's output format in cache keys: a new libchafa may draw differently.
    static let version = "chafa-\(CHAFA_MAJOR_VERSION).\(CHAFA_MINOR_VERSION).\(CHAFA_MICRO_VERSION)/r1"
}

/// chafa's fallback term info holds every sequence chafa knows (SGR colours, sixel, kitty, iTerm2).
/// Created once; chafa only reads it while printing.
private enum ChafaTerm {
    nonisolated(unsafe) static let info: OpaquePointer? = {
        // chafa's own worker threads cost more than they save on thumbnail-sized canvases, and
        // the grid already renders tiles in parallel: one thread per canvas.
        photos_chafa_set_n_threads(1)
        return photos_chafa_term_db_get_fallback_info(photos_chafa_term_db_get_default())
    }()
}
