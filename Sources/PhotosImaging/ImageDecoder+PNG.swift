internal import ImagingShim
import Foundation

/// libpng's simplified API (`png_image`), which handles libpng's longjmp error path internally.
enum PNGCodec {
    /// Width and height from the IHDR chunk, read by hand so that nothing is allocated for a bomb.
    static func dimensions(of data: Data) throws -> PixelSize {
        let bytes = [UInt8](data.prefix(24))
        guard bytes.count == 24, bytes[12..<16].elementsEqual("IHDR".utf8) else {
            throw ImageDecodingError.corrupt(.png, "missing IHDR chunk")
        }
        func bigEndian(_ offset: Int) -> Int {
            bytes[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
        }
        return PixelSize(width: bigEndian(16), height: bigEndian(20))
    }

    static func decode(_ data: Data, header: ImageHeader) throws -> DecodedImage {
        try ImagingLibrary.png.load()
        let size = header.size
        var pixels = [UInt8](repeating: 0, count: size.width * size.height * 4)
        var image = png_image()
        image.version = UInt32(PNG_IMAGE_VERSION)
        defer { photos_png_image_free(&image) }
        try data.withUnsafeBytes { raw in
            guard let base = raw.baseAddress else { throw ImageDecodingError.empty }
            guard photos_png_image_begin_read_from_memory(&image, base, raw.count) != 0 else {
                throw ImageDecodingError.corrupt(.png, message(image))
            }
            // libpng parsed IHDR itself: it must agree with what the size check saw.
            guard Int(image.width) == size.width, Int(image.height) == size.height else {
                throw ImageDecodingError.corrupt(.png, "inconsistent IHDR")
            }
            // PNG_FORMAT_RGBA is a compound macro Swift does not import: RGB (COLOR) | ALPHA.
            image.format = UInt32(PNG_FORMAT_FLAG_COLOR | PNG_FORMAT_FLAG_ALPHA)
            let finished = pixels.withUnsafeMutableBytes { destination in
                photos_png_image_finish_read(&image, nil, destination.baseAddress, Int32(size.width * 4), nil)
            }
            guard finished != 0 else { throw ImageDecodingError.corrupt(.png, message(image)) }
        }
        return DecodedImage(width: size.width, height: size.height, pixels: pixels)
    }

    private static func message(_ image: png_image) -> String {
        withUnsafeBytes(of: image.message) { raw in
            let text = String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            return text.isEmpty ? "unreadable data" : text
        }
    }
}
