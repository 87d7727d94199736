import Foundation
import PhotosCore
import PhotosImaging
import PhotosTerminal
import Testing

@testable import PhotosCLI

/// What `photos browse` writes to the terminal: everything once, then only what changed.
struct BrowsePainterTests {
    static let geometry = BrowseGeometry(width: 80, height: 24)  // 3 columns, 2 rows

    /// A model whose first `ready` thumbnails are in the cache (files /t/N.jpg).
    static func model(photos count: Int = 30, ready: Int = 6, titles: [Int: String] = [:], hasMore: Bool = true) -> BrowseModel {
        var model = BrowseModel(layout: geometry.layout, query: "dogs", offline: false)
        _ = model.start()
        let photos = (1...count).map { number in
            Photo(
                id: PhotoID(provider: "test", raw: String(number)), title: titles[number] ?? "photo \(number)",
                thumbnailURL: "https://img.test/\(number).jpg")
        }
        _ = model.handle(.pageLoaded(.init(generation: 0, number: 1, photos: photos, hasMore: hasMore, total: count, source: .network)))
        for number in (1...count).prefix(ready) {
            _ = model.handle(.thumbnailLoaded(url: "https://img.test/\(number).jpg", file: URL(fileURLWithPath: "/t/\(number).jpg")))
        }
        return model
    }

    /// Every picture is a block of one letter per photo, so the output shows which were drawn.
    static func pictures(_ key: PictureStore.Key) -> PictureLookup {
        let number = Int(URL(fileURLWithPath: key.file).deletingPathExtension().lastPathComponent) ?? 0
        let letter = Character(Unicode.Scalar(UInt8(ascii: "A") + UInt8(number % 26)))
        let line = String(repeating: letter, count: key.box.columns - 4)
        return .ready(RenderedTile(
            cells: CellSize(columns: key.box.columns - 4, rows: key.box.rows),
            output: Array(repeating: line, count: key.box.rows).joined(separator: "\n")))
    }

    static func scene(_ model: BrowseModel) -> BrowseScene {
        BrowseScene(model: model, geometry: geometry, status: BrowseStatus.line(model, providers: ["test"], message: nil, width: 80), detail: nil)
    }

    static func visible(_ text: String) -> String {
        text.replacing(#/\x1B\[[0-9;?]*[A-Za-z]/#, with: "")
    }

    @Test func theFirstFrameDrawsEverythingInsideSynchronizedOutput() {
        var painter = BrowsePainter(graphics: TerminalGraphics(mode: .symbols))
        painter.synchronized = true
        let frame = painter.frame(Self.scene(Self.model()), pictures: Self.pictures)
        #expect(frame.hasPrefix("\u{1B}[?2026h") && frame.hasSuffix("\u{1B}[?2026l"))
        #expect(!frame.contains("\u{1B}[2J"), "symbols are overwritten line by line, never cleared first")
        let text = Self.visible(frame)
        for number in 1...6 { #expect(text.contains("photo \(number)")) }
        #expect(!text.contains("photo 7"))
        #expect(text.contains("BBBB") && text.contains("GGGG"), "pictures of photos 1 and 6")
        #expect(frame.contains("\u{1B}[24;1H"), "the status line is the last line")
        #expect(text.contains("test “dogs” · 1/30 of 30"))
        #expect(painter.frame(Self.scene(Self.model()), pictures: Self.pictures).isEmpty, "nothing changed, nothing written")
    }

    /// A window too small for the grid says so whole, wrapped on the rows above the status line.
    @Test(arguments: [(10, 4), (6, 5), (16, 2), (3, 8)])
    func aWindowTooSmallSaysSoWhole(width: Int, height: Int) {
        var painter = BrowsePainter(graphics: TerminalGraphics(mode: .symbols))
        let geometry = BrowseGeometry(width: width, height: height)
        #expect(geometry.isTooSmall)
        let model = Self.model()
        let frame = painter.frame(
            BrowseScene(model: model, geometry: geometry, status: BrowseStatus.line(model, providers: ["test"], message: nil, width: width), detail: nil),
            pictures: Self.pictures)
        // The screen as the terminal shows it: text overwrites from the last cursor move.
        var screen: [Int: [Character]] = [:]
        var row = 1
        var column = 1
        for piece in frame.split(separator: "\u{1B}[", omittingEmptySubsequences: true) {
            guard let end = piece.firstIndex(where: { $0.isLetter }) else { continue }
            if piece[end] == "H" {
                let numbers = piece[..<end].split(separator: ";").map { Int($0) ?? 1 }
                row = numbers.first ?? 1
                column = numbers.count > 1 ? numbers[1] : 1
            }
            for character in piece[piece.index(after: end)...] {
                var line = screen[row, default: []]
                while line.count < column - 1 { line.append(" ") }
                if line.count >= column { line[column - 1] = character } else { line.append(character) }
                screen[row] = line
                column += 1
            }
        }
        #expect(screen.keys.allSatisfy { (1...height).contains($0) }, "\(screen)")
        #expect(screen.values.allSatisfy { $0.count <= width }, "\(screen)")
        let said = (1..<height).map { String(screen[$0] ?? []) }.joined()
        #expect(said.replacingOccurrences(of: " ", with: "") == "windowtoosmall", "\(said)")
    }

    @Test func movingTheSelectionRedrawsTwoFramesAndNoPicture() {
        var painter = BrowsePainter(graphics: TerminalGraphics(mode: .symbols))
        var model = Self.model()
        let full = painter.frame(Self.scene(model), pictures: Self.pictures)
        _ = model.handle(.key(.right))
        let frame = painter.frame(Self.scene(model), pictures: Self.pictures)
        #expect(!frame.isEmpty)
        #expect(frame.utf8.count * 2 < full.utf8.count, "a move writes a fraction of a screen")
        #expect(!frame.contains("BBBB") && !frame.contains("CCCC"), "pictures are not written again")
        #expect(frame.contains("┌") && frame.contains("└"))
        #expect(Self.visible(frame).contains("photo 2"))
        #expect(Self.visible(frame).contains("2/30"), "the status line follows")
    }

    @Test func anArrivingThumbnailRedrawsOnlyItsTile() {
        var painter = BrowsePainter(graphics: TerminalGraphics(mode: .symbols))
        var model = Self.model(ready: 5)
        let first = painter.frame(Self.scene(model), pictures: Self.pictures)
        #expect(Self.visible(first).contains("loading"), "a placeholder until the thumbnail arrives")
        _ = model.handle(.thumbnailLoaded(url: "https://img.test/6.jpg", file: URL(fileURLWithPath: "/t/6.jpg")))
        let frame = painter.frame(Self.scene(model), pictures: Self.pictures)
        #expect(frame.contains("GGGG"))
        #expect(!frame.contains("BBBB"))
    }

    @Test func aFailedThumbnailIsAMarkedEmptyTile() {
        var painter = BrowsePainter(graphics: TerminalGraphics(mode: .symbols))
        var model = Self.model(ready: 5)
        _ = model.handle(.thumbnailLoaded(url: "https://img.test/6.jpg", file: nil))
        #expect(Self.visible(painter.frame(Self.scene(model), pictures: Self.pictures)).contains("× no image"))
    }

    @Test func scrollingARowMovesWhatIsDrawnAndWritesOnlyTheNewRow() {
        var painter = BrowsePainter(graphics: TerminalGraphics(mode: .symbols))
        var model = Self.model(ready: 30)
        _ = painter.frame(Self.scene(model), pictures: Self.pictures)
        for _ in 0..<2 { _ = model.handle(.key(.down)) }
        #expect(model.topRow == 1)
        let frame = painter.frame(Self.scene(model), pictures: Self.pictures)
        let tiles = Self.geometry.rows * Self.geometry.tileHeight
        #expect(frame.contains("\u{1B}[1;\(tiles)r\u{1B}[\(Self.geometry.tileHeight)S\u{1B}[r"), "the tiles' region scrolls up one row")
        let text = Self.visible(frame)
        for number in 7...9 { #expect(text.contains("photo \(number)")) }
        #expect(frame.contains("HHHH") && frame.contains("JJJJ"), "the pictures of the new row")
        #expect(!frame.contains("EEEE") && !frame.contains("FFFF"), "the row that moved up is not written again")

        _ = model.handle(.key(.pageDown))
        let page = painter.frame(Self.scene(model), pictures: Self.pictures)
        #expect(!page.contains("S\u{1B}[r"), "a whole screen further is drawn anew")
        for number in 10...15 { #expect(Self.visible(page).contains("photo \(number)")) }
        _ = model.handle(.key(.up))
        _ = model.handle(.key(.up))
        #expect(model.topRow == 2)
        let back = painter.frame(Self.scene(model), pictures: Self.pictures)
        #expect(back.contains("T\u{1B}[r"), "scrolling back moves the region down")
    }

    @Test func titlesFromProvidersAreSanitised() {
        var painter = BrowsePainter(graphics: TerminalGraphics(mode: .symbols))
        let model = Self.model(titles: [1: "evil\u{1B}]0;owned\u{07}title \u{202E}txt.exe"])
        let frame = painter.frame(Self.scene(model), pictures: Self.pictures)
        #expect(!frame.contains("\u{1B}]"))
        #expect(!frame.unicodeScalars.contains("\u{202E}"))
        #expect(!frame.unicodeScalars.contains("\u{07}"))
    }

    @Test func theEndOfTheResultsIsShown() {
        var painter = BrowsePainter(graphics: TerminalGraphics(mode: .symbols))
        let model = Self.model(photos: 4, ready: 4, hasMore: false)
        let text = Self.visible(painter.frame(Self.scene(model), pictures: Self.pictures))
        #expect(text.contains("end of results"))
    }

    @Test func noColorKeepsTheSelectionVisibleWithoutColours() {
        var painter = BrowsePainter(graphics: TerminalGraphics(mode: .symbols, colors: .monochrome))
        let frame = painter.frame(Self.scene(Self.model()), pictures: Self.pictures)
        #expect(!frame.contains("\u{1B}[1;33m") && !frame.contains("\u{1B}[2m"))
        #expect(frame.contains("\u{1B}[7m"), "reverse video marks the selected title")
    }
}
