import Foundation
import Testing

@testable import PhotosImaging

@Suite struct ChafaRendererTests {
    struct GoldenCase: CustomTestStringConvertible, Sendable {
        var image: String
        var columns: Int
        var colors: ColorDepth

        var goldenName: String {
            "symbols-\(image.replacingOccurrences(of: ".", with: "-"))-\(columns)-\(colors.rawValue).txt"
        }

        var testDescription: String { "\(image) at \(columns) columns, \(colors.rawValue)" }
    }

    static let goldenCases: [GoldenCase] = [
        GoldenCase(image: "sample.jpg", columns: 40, colors: .truecolor),
        GoldenCase(image: "large.jpg", columns: 40, colors: .truecolor),
        GoldenCase(image: "large.jpg", columns: 80, colors: .truecolor),
        GoldenCase(image: "thumb.jpg", columns: 26, colors: .truecolor),
        GoldenCase(image: "sample.png", columns: 40, colors: .truecolor),
        GoldenCase(image: "sample.webp", columns: 40, colors: .truecolor),
        GoldenCase(image: "sample.jpg", columns: 20, colors: .indexed256),
        GoldenCase(image: "thumb.jpg", columns: 20, colors: .indexed16),
        GoldenCase(image: "sample.jpg", columns: 30, colors: .monochrome),
    ]

    /// The symbols output of fixed images at fixed sizes is byte-for-byte stable.
    @Test(arguments: goldenCases)
    func symbolsMatchGolden(_ example: GoldenCase) throws {
        let graphics = TerminalGraphics(mode: .symbols, colors: example.colors)
        let output = try Preview.render(path: Fixture.image(example.image), maxColumns: example.columns, graphics: graphics)
        let lines = output.dropLast().split(separator: "\n", omittingEmptySubsequences: false)
        let header = try ImageDecoder().header(of: Fixture.data(example.image))
        let expected = ChafaRenderer(graphics: graphics)
            .cellSize(forImage: header.size, maxColumns: example.columns, maxRows: example.columns)
        #expect(output.hasSuffix("\n"))
        #expect(lines.count == expected.rows)
        #expect(lines.allSatisfy { ANSI.visibleWidth(String($0)) == expected.columns })
        if example.colors == .monochrome {
            #expect(!output.contains("\u{1B}"))
        } else {
            #expect(lines.allSatisfy { $0.hasSuffix("\u{1B}[0m") })
        }
        try expectGolden(output, named: example.goldenName)
    }

    @Test func sixelStartsWithDCSAndEndsWithST() throws {
        let output = try render("sample.jpg", mode: .sixel, cells: CellSize(columns: 20, rows: 8))
        #expect(output.hasPrefix("\u{1B}P"))
        #expect(output.hasSuffix("\u{1B}\\"))
        // ESC P <numeric parameters> q: the sixel introducer.
        let introducer = output.dropFirst(2).prefix { $0 != "q" }
        #expect(introducer.allSatisfy { $0.isNumber || $0 == ";" })
        #expect(output.dropFirst(2 + introducer.count).hasPrefix("q\"1;1;200;156"))  // 20x8 cells of 10x20, rounded to sixel rows
    }

    @Test func kittyStartsWithAPCAndEndsWithST() throws {
        let output = try render("sample.png", mode: .kitty, cells: CellSize(columns: 20, rows: 8))
        #expect(output.hasPrefix("\u{1B}_G"))
        #expect(output.hasSuffix("\u{1B}\\"))
        #expect(output.contains("c=20,r=8"))
    }

    @Test func itermIsAnInlineFileSequence() throws {
        let output = try render("sample.webp", mode: .iterm, cells: CellSize(columns: 20, rows: 8))
        #expect(output.hasPrefix("\u{1B}]1337;File=inline=1;width=20;height=8"))
        #expect(output.hasSuffix("\u{07}"))
    }

    /// Forcing a pixel mode never yields empty output (chafa's fallback sequences are used), and
    /// the output does not depend on TERM.
    @Test(arguments: [GraphicsMode.sixel, .kitty, .iterm, .symbols])
    func forcedModesAlwaysDrawSomething(mode: GraphicsMode) throws {
        let graphics = TerminalGraphics.detect(requested: mode, environment: ["TERM": "dumb"], stdoutIsTerminal: false)
        let output = try Preview.render(path: Fixture.image("thumb.jpg"), maxColumns: 10, graphics: graphics)
        #expect(output.count > 20)
    }

    @Test func noneDrawsNothing() throws {
        #expect(try Preview.render(path: Fixture.image("thumb.jpg"), maxColumns: 10, graphics: TerminalGraphics(mode: .none)) == "")
        let image = try ImageDecoder().decode(Fixture.data("thumb.jpg"))
        #expect(ChafaRenderer(graphics: TerminalGraphics(mode: .none)).render(image, cells: CellSize(columns: 4, rows: 2)) == "")
    }

    @Test func cellSizeKeepsAspectRatio() {
        let renderer = ChafaRenderer(graphics: TerminalGraphics(mode: .symbols))
        func cells(_ width: Int, _ height: Int, _ columns: Int, _ rows: Int) -> CellSize {
            renderer.cellSize(forImage: PixelSize(width: width, height: height), maxColumns: columns, maxRows: rows)
        }
        #expect(cells(640, 480, 40, 30) == CellSize(columns: 40, rows: 15))
        #expect(cells(150, 150, 26, 19) == CellSize(columns: 26, rows: 13))
        #expect(cells(480, 640, 26, 19) == CellSize(columns: 26, rows: 17))
        #expect(cells(100, 1000, 26, 19) == CellSize(columns: 4, rows: 19))
        #expect(cells(5000, 10, 26, 19) == CellSize(columns: 26, rows: 1))
        #expect(cells(0, 0, 26, 19) == CellSize(columns: 26, rows: 19))
        // Pixel modes use the cell's real shape.
        let square = ChafaRenderer(graphics: TerminalGraphics(mode: .kitty, cellPixelSize: PixelSize(width: 10, height: 10)))
        #expect(square.cellSize(forImage: PixelSize(width: 640, height: 480), maxColumns: 40, maxRows: 40) == CellSize(columns: 40, rows: 30))
    }

    @Test func decodeSizeFollowsTheMode() {
        let cells = CellSize(columns: 26, rows: 13)
        #expect(ChafaRenderer(graphics: TerminalGraphics(mode: .symbols)).pixelSizeNeeded(for: cells) == PixelSize(width: 208, height: 104))
        #expect(ChafaRenderer(graphics: TerminalGraphics(mode: .sixel)).pixelSizeNeeded(for: cells) == PixelSize(width: 260, height: 260))
    }

    @Test func previewOfALargeJPEGIsQuick() throws {
        let graphics = TerminalGraphics(mode: .symbols, colors: .truecolor)
        let clock = ContinuousClock()
        _ = try Preview.render(path: Fixture.image("large.jpg"), maxColumns: 80, graphics: graphics)  // warm up
        let elapsed = try clock.measure {
            _ = try Preview.render(path: Fixture.image("large.jpg"), maxColumns: 80, graphics: graphics)
        }
        // The goal is 50 ms of CPU in a release build; a debug build on a busy machine gets slack.
        #expect(elapsed < .milliseconds(500))
    }

    private func render(_ name: String, mode: GraphicsMode, cells: CellSize) throws -> String {
        let renderer = ChafaRenderer(graphics: TerminalGraphics(mode: mode))
        let image = try ImageDecoder().decode(Fixture.data(name), minimumSize: renderer.pixelSizeNeeded(for: cells))
        return renderer.render(image, cells: cells)
    }
}
