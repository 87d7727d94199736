internal import ImagingShim
import Foundation

/// libwebp's advanced decoding API, which can rescale while decoding.
enum WebPCodec {
    static func dimensions(of data: Data) throws -> PixelSize {
        try ImagingLibrary.webP.load()
        var width: Int32 = 0, height: Int32 = 0
        let ok = data.withUnsafeBytes { raw -> Int32 in
            guard let base = raw.bindMemory(to: UInt8.self).baseAddress else { return 0 }
            return photos_WebPGetInfo(base, raw.count, &width, &height)
        }
        guard ok != 0 else { throw ImageDecodingError.corrupt(.webp, "bad header") }
        return PixelSize(width: Int(width), height: Int(height))
    }

    /// Proportional downscale to the smallest size covering `minimum`; never upscales.
    static func scaledSize(of size: PixelSize, covering minimum: PixelSize?) -> PixelSize {
        guard let minimum, minimum.width > 0, minimum.height > 0,
              minimum.width < size.width, minimum.height < size.height else { return size }
        let scale = max(Double(minimum.width) / Double(size.width), Double(minimum.height) / Double(size.height))
        return PixelSize(
            width: min(size.width, max(1, Int((Double(size.width) * scale).rounded(.up)))),
            height: min(size.height, max(1, Int((Double(size.height) * scale).rounded(.up))))
        )
    }

    static func decode(_ data: Data, header: ImageHeader, minimumSize: PixelSize?) throws -> DecodedImage {
        try ImagingLibrary.webP.load()
        let size = scaledSize(of: header.size, covering: minimumSize)
        var config = WebPDecoderConfig()
        guard photos_WebPInitDecoderConfig(&config) != 0 else {
            throw ImageDecodingError.corrupt(.webp, "libwebp version mismatch")
        }
        if size != header.size {
            config.options.use_scaling = 1
            config.options.scaled_width = Int32(size.width)
            config.options.scaled_height = Int32(size.height)
        }
        config.output.colorspace = MODE_RGBA
        config.output.is_external_memory = 1
        var pixels = [UInt8](repeating: 0, count: size.width * size.height * 4)
        let status = data.withUnsafeBytes { raw -> VP8StatusCode in
            guard let base = raw.bindMemory(to: UInt8.self).baseAddress else { return VP8_STATUS_NOT_ENOUGH_DATA }
            return pixels.withUnsafeMutableBufferPointer { destination in
                config.output.u.RGBA.rgba = destination.baseAddress
                config.output.u.RGBA.stride = Int32(size.width * 4)
                config.output.u.RGBA.size = destination.count
                defer { photos_WebPFreeDecBuffer(&config.output) }
                return photos_WebPDecode(base, raw.count, &config)
            }
        }
        guard status == VP8_STATUS_OK else { throw ImageDecodingError.corrupt(.webp, describe(status)) }
        return DecodedImage(width: size.width, height: size.height, pixels: pixels)
    }

    private static func describe(_ status: VP8StatusCode) -> String {
        switch status {
        case VP8_STATUS_OUT_OF_MEMORY: return "out of memory"
        case VP8_STATUS_INVALID_PARAM: return "invalid parameter"
        case VP8_STATUS_BITSTREAM_ERROR: return "bitstream error"
        case VP8_STATUS_UNSUPPORTED_FEATURE: return "unsupported feature (animation?)"
        case VP8_STATUS_SUSPENDED: return "suspended"
        case VP8_STATUS_USER_ABORT: return "aborted"
        case VP8_STATUS_NOT_ENOUGH_DATA: return "truncated data"
        default: return "error \(status.rawValue)"
        }
    }
}
