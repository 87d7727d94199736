internal import ImagingShim
import Foundation
import PhotosCore

/// Draws a ``SyntheticImage`` (a plain colour with its label, as placeholder services drew
/// them) as a PNG, for image hosts that no longer exist.
public enum SyntheticImageRenderer {
    public enum RenderError: Error, CustomStringConvertible {
        case tooLarge(Int, Int)
        case encoding(String)

        public var description: String {
            switch self {
            case .tooLarge(let width, let height): return "a \(width)×\(height) picture is too large to draw"
            case .encoding(let message): return "could not encode the picture as PNG: \(message)"
            }
        }
    }

    /// The largest edge drawn; placeholder images are at most a few hundred pixels.
    public static let maxEdge = 2000

    /// The picture as PNG bytes.
    /// - Throws: `RenderError` for a picture over ``maxEdge`` or a libpng failure;
    ///   `ImagingLibraryError` when libpng cannot be loaded.
    public static func png(_ picture: SyntheticImage) throws -> Data {
        let width = picture.width
        let height = picture.height
        guard (1...maxEdge).contains(width), (1...maxEdge).contains(height) else {
            throw RenderError.tooLarge(width, height)
        }
        let red = UInt8(truncatingIfNeeded: picture.rgb >> 16)
        let green = UInt8(truncatingIfNeeded: picture.rgb >> 8)
        let blue = UInt8(truncatingIfNeeded: picture.rgb)
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        for index in stride(from: 0, to: pixels.count, by: 3) {
            pixels[index] = red
            pixels[index + 1] = green
            pixels[index + 2] = blue
        }
        // Dark text on light colours, light text on dark ones.
        let luminance = (299 * Int(red) + 587 * Int(green) + 114 * Int(blue)) / 1000
        let ink: UInt8 = luminance > 140 ? 0x33 : 0xEE
        drawLabel(picture.label, into: &pixels, width: width, height: height, ink: ink)
        return try encode(pixels, width: width, height: height)
    }

    // MARK: Text

    /// A 5×7 font for what labels hold: digits, `x` and space. Each row is five bits, high bit left.
    private static let glyphs: [Character: [UInt8]] = [
        "0": [0x0E, 0x11, 0x13, 0x15, 0x19, 0x11, 0x0E], "1": [0x04, 0x0C, 0x04, 0x04, 0x04, 0x04, 0x0E],
        "2": [0x0E, 0x11, 0x01, 0x02, 0x04, 0x08, 0x1F], "3": [0x1F, 0x02, 0x04, 0x02, 0x01, 0x11, 0x0E],
        "4": [0x02, 0x06, 0x0A, 0x12, 0x1F, 0x02, 0x02], "5": [0x1F, 0x10, 0x1E, 0x01, 0x01, 0x11, 0x0E],
        "6": [0x06, 0x08, 0x10, 0x1E, 0x11, 0x11, 0x0E], "7": [0x1F, 0x01, 0x02, 0x04, 0x08, 0x08, 0x08],
        "8": [0x0E, 0x11, 0x11, 0x0E, 0x11, 0x11, 0x0E], "9": [0x0E, 0x11, 0x11, 0x0F, 0x01, 0x02, 0x0C],
        "x": [0x00, 0x00, 0x11, 0x0A, 0x04, 0x0A, 0x11], " ": [0, 0, 0, 0, 0, 0, 0],
    ]

    private static func drawLabel(_ label: String, into pixels: inout [UInt8], width: Int, height: Int, ink: UInt8) {
        let characters = label.filter { glyphs[$0] != nil }
        guard !characters.isEmpty else { return }
        let advance = 6  // five columns and a gap
        let textColumns = characters.count * advance - 1
        // As large as fits in half the width, at least one pixel per dot.
        let scale = max(1, min(width / 2 / textColumns, height / 4 / 7))
        guard textColumns * scale <= width, 7 * scale <= height else { return }
        let left = (width - textColumns * scale) / 2
        let top = (height - 7 * scale) / 2
        for (position, character) in characters.enumerated() {
            guard let rows = glyphs[character] else { continue }
            for (row, bits) in rows.enumerated() {
                for column in 0..<5 where bits & (0x10 >> UInt8(column)) != 0 {
                    let x0 = left + (position * advance + column) * scale
                    let y0 = top + row * scale
                    for y in y0..<(y0 + scale) {
                        for x in x0..<(x0 + scale) {
                            let offset = (y * width + x) * 3
                            pixels[offset] = ink
                            pixels[offset + 1] = ink
                            pixels[offset + 2] = ink
                        }
                    }
                }
            }
        }
    }

    // MARK: PNG

    private static func encode(_ pixels: [UInt8], width: Int, height: Int) throws -> Data {
        try ImagingLibrary.png.load()
        var image = png_image()
        image.version = UInt32(PNG_IMAGE_VERSION)
        image.width = UInt32(width)
        image.height = UInt32(height)
        image.format = UInt32(PNG_FORMAT_FLAG_COLOR)
        defer { photos_png_image_free(&image) }
        var size = 0
        // First call: how many bytes the PNG needs.
        guard photos_png_image_write_to_memory(&image, nil, &size, 0, pixels, Int32(width * 3), nil) != 0, size > 0 else {
            throw RenderError.encoding(message(image))
        }
        var output = [UInt8](repeating: 0, count: size)
        let written = output.withUnsafeMutableBytes { buffer in
            photos_png_image_write_to_memory(&image, buffer.baseAddress, &size, 0, pixels, Int32(width * 3), nil)
        }
        guard written != 0 else { throw RenderError.encoding(message(image)) }
        return Data(output.prefix(size))
    }

    private static func message(_ image: png_image) -> String {
        withUnsafeBytes(of: image.message) { raw in
            let text = String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            return text.isEmpty ? "libpng failed" : text
        }
    }
}
