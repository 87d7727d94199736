import Testing

@testable import PhotosCLI

/// Where `photos browse` puts its tiles for a window size.
struct BrowseGeometryTests {
    @Test(arguments: [(80, 24), (100, 30), (120, 40), (160, 50), (240, 70), (30, 10), (12, 6), (300, 20)])
    func tilesFitTheWindowAboveTheStatusLine(width: Int, height: Int) {
        let geometry = BrowseGeometry(width: width, height: height)
        #expect(geometry.columns * geometry.tileWidth + (geometry.columns - 1) * BrowseGeometry.gap <= width)
        #expect(geometry.rows * geometry.tileHeight <= height - 1)
        #expect(geometry.imageBox.columns == geometry.tileWidth - 2)
        #expect(geometry.imageBox.rows == geometry.tileHeight - BrowseGeometry.chromeRows)
        let last = geometry.origin(slot: geometry.layout.tilesPerScreen - 1)
        #expect(last.column + geometry.tileWidth - 1 <= width)
        #expect(last.row + geometry.tileHeight - 1 <= height - 1)
    }

    @Test func threeColumnsByDefaultMoreWhenWide() {
        #expect(BrowseGeometry(width: 80, height: 24).columns == 3)
        #expect(BrowseGeometry(width: 120, height: 40).columns == 3)
        #expect(BrowseGeometry(width: 160, height: 50).columns == 4)
        #expect(BrowseGeometry(width: 240, height: 70).columns == 6)
        #expect(BrowseGeometry(width: 25, height: 24).columns == 2, "narrow windows get fewer, wider tiles")
    }

    @Test func rowsFollowTheHeight() {
        let small = BrowseGeometry(width: 80, height: 24)
        #expect(small.rows == 2)
        #expect(small.imageBox.rows >= 6)
        let tall = BrowseGeometry(width: 160, height: 50)
        #expect(tall.rows == 3)
        #expect(tall.imageBox.columns == 37 && tall.imageBox.rows == 13)
    }

    @Test func withoutPicturesTilesAreTitlesOnly() {
        let geometry = BrowseGeometry(width: 80, height: 24, pictures: false)
        #expect(geometry.imageBox.rows == 0)
        #expect(geometry.tileHeight == BrowseGeometry.chromeRows)
        #expect(geometry.rows == 7)
    }
}
