import Foundation
import PhotosCore
import Testing

@testable import PhotosImaging

/// jsonplaceholder's pictures, drawn locally: a square of the URL's colour with its size on it.
@Suite struct SyntheticImageRendererTests {
    func pixel(_ image: DecodedImage, _ x: Int, _ y: Int) -> [UInt8] {
        let offset = (y * image.width + x) * 4
        return Array(image.pixels[offset..<offset + 3])
    }

    @Test func drawsTheColourWithTheLabelInTheMiddle() throws {
        let png = try SyntheticImageRenderer.png(SyntheticImage(width: 150, height: 150, rgb: 0x92C952, label: "150x150"))
        #expect(ImageFormat.sniff(png) == .png)
        let image = try ImageDecoder().decode(png)
        #expect(image.size == PixelSize(width: 150, height: 150))
        #expect(pixel(image, 0, 0) == [0x92, 0xC9, 0x52] && pixel(image, 149, 149) == [0x92, 0xC9, 0x52])
        // A light colour gets dark text, somewhere on the middle row band.
        let band = (60..<90).flatMap { y in (0..<150).map { x in pixel(image, x, y) } }
        #expect(band.contains([0x33, 0x33, 0x33]))
        #expect(!(0..<150).map { pixel(image, $0, 5) }.contains([0x33, 0x33, 0x33]), "no text near the edge")
    }

    @Test func darkColoursGetLightText() throws {
        let png = try SyntheticImageRenderer.png(SyntheticImage(width: 600, height: 600, rgb: 0x1F2B3C, label: "600x600"))
        let image = try ImageDecoder().decode(png)
        #expect(pixel(image, 10, 10) == [0x1F, 0x2B, 0x3C])
        #expect((280..<320).contains { y in (0..<600).contains { pixel(image, $0, y) == [0xEE, 0xEE, 0xEE] } })
    }

    @Test func refusesPicturesTooLargeToDraw() {
        #expect(throws: SyntheticImageRenderer.RenderError.self) {
            try SyntheticImageRenderer.png(SyntheticImage(width: 100_000, height: 100_000, rgb: 0, label: "x"))
        }
        #expect(throws: SyntheticImageRenderer.RenderError.self) {
            try SyntheticImageRenderer.png(SyntheticImage(width: 0, height: 10, rgb: 0, label: ""))
        }
    }
}
