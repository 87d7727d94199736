import Foundation
import PhotosTerminal
import Synchronization
import Testing

@testable import PhotosImaging

@Suite struct ThumbnailGridTests {
    static let fixtureNames = ["sample.jpg", "large.jpg", "thumb.jpg", "sample.png", "sample.webp"]
    static let symbols = TerminalGraphics(mode: .symbols, colors: .truecolor)

    static func tiles() -> [GridTile] {
        fixtureNames.enumerated().map { index, name in
            GridTile(title: "Photo \(name)", id: "fixture:\(index + 1)", imagePath: Fixture.image(name))
        }
    }

    @Test(arguments: [80, 160, 40])
    func linesFitTheTerminalAndCaptionsAppear(width: Int) {
        let tiles = Self.tiles()
        let grid = ThumbnailGrid.render(tiles: tiles, columns: 3, terminalColumns: width, graphics: Self.symbols)
        #expect(grid.failures == 0)
        #expect(grid.text.hasSuffix("\n"))
        let lines = grid.text.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
        #expect(lines.allSatisfy { ANSI.visibleWidth($0) <= width })
        let plain = ANSI.strip(grid.text)
        let tileWidth = ThumbnailGrid.layout(columns: 3, terminalColumns: width).tileWidth
        for tile in tiles {
            #expect(plain.contains(TerminalText.fit(tile.title, width: tileWidth)))
            #expect(plain.contains(tile.id))
        }
    }

    @Test func rowsAreAsTallAsTheirTallestThumbnailAndCaptionsAlign() throws {
        let grid = ThumbnailGrid.render(tiles: Self.tiles(), columns: 3, terminalColumns: 80, graphics: Self.symbols)
        let lines = ANSI.strip(grid.text).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        // 80 columns, 3 tiles: 26 wide. Row 1: 640x480 and 1024x768 are 26x10, 150x150 is 26x13.
        let captions = try #require(lines.firstIndex { $0.hasPrefix("Photo sample.jpg") })
        #expect(captions == 13)
        let caption = lines[captions]
        #expect(caption.distance(of: "Photo large.jpg") == 27)
        #expect(caption.distance(of: "Photo thumb.jpg") == 54)
        #expect(lines[captions + 1].hasPrefix("fixture:1"))
        #expect(lines[captions + 2].isEmpty)  // blank line between grid rows
        // Row 2: 320x240 and 640x480 are both 26x10.
        #expect(lines[captions + 3 + 10].hasPrefix("Photo sample.png"))
    }

    @Test func failedThumbnailsArePlaceholdersAndCounted() throws {
        let folder = try Fixture.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let corrupt = folder.appendingPathComponent("corrupt.jpg")
        try Data([0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10, 0x4A]).write(to: corrupt)
        let empty = folder.appendingPathComponent("empty.png")
        try Data().write(to: empty)
        let tiles = [
            GridTile(title: "ok", id: "a:1", imagePath: Fixture.image("thumb.jpg")),
            GridTile(title: "no thumbnail", id: "a:2", imagePath: nil),
            GridTile(title: "corrupt", id: "a:3", imagePath: corrupt),
            GridTile(title: "empty", id: "a:4", imagePath: empty),
            GridTile(title: "gone", id: "a:5", imagePath: folder.appendingPathComponent("missing.webp")),
        ]
        let grid = ThumbnailGrid.render(tiles: tiles, columns: 3, terminalColumns: 80, graphics: Self.symbols)
        #expect(grid.failures == 4)
        let plain = ANSI.strip(grid.text)
        #expect(plain.components(separatedBy: "no image").count - 1 == 4)
        #expect(plain.contains("┌" + String(repeating: "─", count: 24) + "┐"))
        for tile in tiles { #expect(plain.contains(tile.title)) }
    }

    @Test func untrustedTitlesAreSanitisedAndTruncated() {
        let evil = "pwned\u{1B}]0;title\u{07}\u{1B}[2J \u{202E}gnp.exe\u{202C}\nnext line"
        let long = String(repeating: "犬", count: 100)
        let tiles = [
            GridTile(title: evil, id: "x:1\u{1B}[31m", imagePath: nil),
            GridTile(title: long, id: "x:2", imagePath: nil),
        ]
        let grid = ThumbnailGrid.render(tiles: tiles, columns: 2, terminalColumns: 40, graphics: Self.symbols)
        #expect(!grid.text.contains("\u{1B}]"))
        #expect(!grid.text.contains("\u{1B}[2J"))
        #expect(!grid.text.contains("\u{1B}[31m"))
        #expect(!grid.text.contains("\u{202E}"))
        #expect(!grid.text.contains("\u{07}"))
        let lines = grid.text.split(separator: "\n").map(String.init)
        #expect(lines.allSatisfy { ANSI.visibleWidth($0) <= 40 })
        #expect(grid.text.contains("…"))
    }

    @Test func monochromeHasNoEscapes() {
        let graphics = TerminalGraphics(mode: .symbols, colors: .monochrome)
        var tiles = Self.tiles()
        tiles.append(GridTile(title: "missing", id: "m:1", imagePath: nil))
        let grid = ThumbnailGrid.render(tiles: tiles, terminalColumns: 80, graphics: graphics)
        #expect(!grid.text.contains("\u{1B}"))
        #expect(grid.failures == 1)
    }

    @Test(arguments: [GraphicsMode.kitty, .sixel, .iterm])
    func pixelModesPlaceEveryImage(mode: GraphicsMode) {
        var tiles = Self.tiles()
        tiles.append(GridTile(title: "missing", id: "m:1", imagePath: nil))
        let grid = ThumbnailGrid.render(tiles: tiles, terminalColumns: 80, graphics: TerminalGraphics(mode: mode))
        let start: String
        switch mode {
        case .kitty: start = "\u{1B}_Ga=T"
        case .sixel: start = "\u{1B}P"
        default: start = "\u{1B}]1337;File="
        }
        #expect(grid.text.components(separatedBy: start).count - 1 == 5)
        #expect(grid.failures == 1)
        // Each image is drawn from the saved row origin, moved right to its column.
        #expect(grid.text.contains("\u{1B}8\u{1B}[27C" + start))
        #expect(grid.text.contains("Photo sample.jpg"))
    }

    @Test func noneLaysOutCaptionsOnly() {
        let grid = ThumbnailGrid.render(tiles: Self.tiles(), terminalColumns: 80, graphics: TerminalGraphics(mode: .none))
        #expect(grid.failures == 0)
        #expect(ANSI.strip(grid.text).split(separator: "\n").count == 4)  // 2 grid rows of 2 caption lines
        #expect(ANSI.strip(grid.text).contains("Photo sample.jpg"))
    }

    @Test func narrowTerminalsGetFewerColumns() {
        #expect(ThumbnailGrid.layout(columns: 3, terminalColumns: 80) == (3, 26))
        #expect(ThumbnailGrid.layout(columns: 3, terminalColumns: 160) == (3, 52))
        #expect(ThumbnailGrid.layout(columns: 3, terminalColumns: 20) == (2, 9))
        #expect(ThumbnailGrid.layout(columns: 5, terminalColumns: 5) == (1, 8))
        #expect(ThumbnailGrid.layout(columns: 0, terminalColumns: 80) == (1, 80))
        #expect(ThumbnailGrid.render(tiles: [], terminalColumns: 80, graphics: Self.symbols) == ("", 0))
    }

    @Test func cachedTilesAreReusedUntilTheFileChanges() throws {
        let folder = try Fixture.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let image = folder.appendingPathComponent("thumb.jpg")
        try FileManager.default.copyItem(at: Fixture.image("thumb.jpg"), to: image)
        let cache = TileCache(directory: folder.appendingPathComponent("tiles"))
        let tiles = [GridTile(title: "t", id: "c:1", imagePath: image)]

        let first = ThumbnailGrid.render(tiles: tiles, terminalColumns: 80, graphics: Self.symbols, cache: cache)
        let uncached = ThumbnailGrid.render(tiles: tiles, terminalColumns: 80, graphics: Self.symbols)
        #expect(first == uncached)
        let files = try FileManager.default.contentsOfDirectory(atPath: cache.directory.path)
        #expect(files.count == 1)

        // Prove the hit is used: doctor the stored drawing and see it come back.
        let tileFile = cache.directory.appendingPathComponent(try #require(files.first))
        var stored = try String(contentsOf: tileFile, encoding: .utf8)
        stored = stored.replacingOccurrences(of: "▀", with: "X")
        try stored.write(to: tileFile, atomically: true, encoding: .utf8)
        let second = ThumbnailGrid.render(tiles: tiles, terminalColumns: 80, graphics: Self.symbols, cache: cache)
        #expect(second.text.contains("X"))

        // Another size, mode or a touched file is another key.
        let wider = ThumbnailGrid.render(tiles: tiles, terminalColumns: 100, graphics: Self.symbols, cache: cache)
        #expect(!wider.text.contains("X"))
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: 60)], ofItemAtPath: image.path)
        let touched = ThumbnailGrid.render(tiles: tiles, terminalColumns: 80, graphics: Self.symbols, cache: cache)
        #expect(touched == uncached)
    }

    @Test func cacheSurvivesGarbageAndStaysBounded() throws {
        let folder = try Fixture.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let cache = TileCache(directory: folder, maximumEntries: 4)
        let renderer = ChafaRenderer(graphics: Self.symbols)
        let box = CellSize(columns: 10, rows: 7)
        let key = try #require(cache.key(for: Fixture.image("thumb.jpg"), box: box, renderer: renderer))
        #expect(cache.load(key: key) == nil)
        cache.store(RenderedTile(cells: CellSize(columns: 2, rows: 1), output: "ab"), key: key)
        #expect(cache.load(key: key) == RenderedTile(cells: CellSize(columns: 2, rows: 1), output: "ab"))
        // A truncated or foreign file is a miss, not a crash.
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) {
            try Data("photos-tile 1 2 1 99999\nshort".utf8).write(to: folder.appendingPathComponent(name))
        }
        #expect(cache.load(key: key) == nil)
        // Beyond the limit the oldest go.
        for index in 0..<10 { cache.store(RenderedTile(cells: box, output: "\(index)"), key: "key \(index)") }
        cache.prune()
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).count <= 4)
        #expect(cache.key(for: folder.appendingPathComponent("absent.jpg"), box: box, renderer: renderer) == nil)
    }
}

extension String {
    /// Column (in Characters) where `other` starts, or -1.
    fileprivate func distance(of other: String) -> Int {
        guard let range = range(of: other) else { return -1 }
        return self.distance(from: startIndex, to: range.lowerBound)
    }
}

/// The grid decodes its tiles in parallel; the pixels held at once stay within the decode
/// budget whatever the number of tiles or cores.
@Suite struct GridDecodeMemoryTests {
    static let symbols = TerminalGraphics(mode: .symbols, colors: .truecolor)

    @Test func tilesDecodedInParallelStayWithinTheBudget() {
        // sample.png is 320x240: 307,200 bytes of RGBA, decoded whole (PNG is never scaled).
        let onePNG = 320 * 240 * 4
        let budget = DecodeBudget(capacity: onePNG * 2)
        let tiles = (0..<24).map { GridTile(title: "tile \($0)", id: "t:\($0)", imagePath: Fixture.image("sample.png")) }
        let images = ThumbnailGrid.renderImages(
            tiles: tiles, box: CellSize(columns: 20, rows: 15), graphics: Self.symbols, cache: nil, budget: budget)
        #expect(images.allSatisfy { $0 != nil })
        #expect(budget.peakBytes <= budget.capacity)
        #expect(budget.peakBytes >= onePNG)
    }

    @Test func anImageLargerThanTheBudgetIsDecodedAlone() {
        let budget = DecodeBudget(capacity: 1000)
        let tiles = (0..<4).map { GridTile(title: "tile \($0)", id: "t:\($0)", imagePath: Fixture.image("large.jpg")) }
        let images = ThumbnailGrid.renderImages(
            tiles: tiles, box: CellSize(columns: 40, rows: 30), graphics: Self.symbols, cache: nil, budget: budget)
        #expect(images.allSatisfy { $0 != nil })
        #expect(budget.peakBytes == 1000)
    }

    @Test func waitingReservationsNeverExceedTheCapacity() {
        let budget = DecodeBudget(capacity: 100)
        let holding = Mutex((now: 0, most: 0))
        let done = DispatchGroup()
        // Sixteen threads of their own, each holding 40 for a moment: without the budget they
        // would hold 640 at once.
        for _ in 0..<16 {
            done.enter()
            Thread {
                budget.withReservation(of: 40) {
                    holding.withLock { $0.now += 40; $0.most = max($0.most, $0.now) }
                    usleep(5000)
                    holding.withLock { $0.now -= 40 }
                }
                done.leave()
            }.start()
        }
        done.wait()
        #expect(holding.withLock { $0.most } <= 80)
        #expect(budget.peakBytes <= 80)
    }
}
