internal import ImagingShim
import Foundation

/// TurboJPEG: header parsing and decoding with DCT scaling (the cheapest way to shrink a JPEG).
enum JPEGCodec {
    static func dimensions(of data: Data) throws -> PixelSize {
        try withDecompressor { handle in
            try data.withUnsafeBytes { raw in
                guard let base = raw.bindMemory(to: UInt8.self).baseAddress else { throw ImageDecodingError.empty }
                var width: Int32 = 0, height: Int32 = 0, subsampling: Int32 = 0, colorspace: Int32 = 0
                guard photos_tjDecompressHeader3(handle, base, UInt(raw.count), &width, &height, &subsampling, &colorspace) == 0 else {
                    throw ImageDecodingError.corrupt(.jpeg, message(handle))
                }
                return PixelSize(width: Int(width), height: Int(height))
            }
        }
    }

    /// The smallest TurboJPEG scale (n/8, at most 1) whose output still covers `minimum`.
    static func scaledSize(of size: PixelSize, covering minimum: PixelSize?) -> PixelSize {
        guard let minimum else { return size }
        var count: Int32 = 0
        var best = size
        guard let factors = photos_tjGetScalingFactors(&count) else { return size }
        for index in 0..<Int(count) {
            let factor = factors[index]
            guard factor.num > 0, factor.denom > 0, factor.num <= factor.denom else { continue }
            let num = Int(factor.num), denom = Int(factor.denom)
            let scaled = PixelSize(
                width: (size.width * num + denom - 1) / denom,
                height: (size.height * num + denom - 1) / denom
            )
            if scaled.width >= minimum.width, scaled.height >= minimum.height, scaled.width < best.width {
                best = scaled
            }
        }
        return best
    }

    static func decode(_ data: Data, header: ImageHeader, minimumSize: PixelSize?) throws -> DecodedImage {
        let size = scaledSize(of: header.size, covering: minimumSize)
        var pixels = [UInt8](repeating: 0, count: size.width * size.height * 4)
        try withDecompressor { handle in
            try data.withUnsafeBytes { raw in
                guard let source = raw.bindMemory(to: UInt8.self).baseAddress else { throw ImageDecodingError.empty }
                let status = pixels.withUnsafeMutableBufferPointer { destination in
                    // STOPONWARNING: a truncated or damaged file is refused rather than drawn half
                    // grey. LIMITSCANS: a progressive file of over 500 scans is refused, since
                    // every scan is another pass over all coefficients (kilobytes costing minutes).
                    photos_tjDecompress2(
                        handle, source, UInt(raw.count), destination.baseAddress,
                        Int32(size.width), 0, Int32(size.height), Int32(TJPF_RGBA.rawValue),
                        TJFLAG_STOPONWARNING | TJFLAG_LIMITSCANS
                    )
                }
                guard status == 0 else { throw ImageDecodingError.corrupt(.jpeg, message(handle)) }
            }
        }
        return DecodedImage(width: size.width, height: size.height, pixels: pixels)
    }

    private static func withDecompressor<T>(_ body: (tjhandle) throws -> T) throws -> T {
        try ImagingLibrary.turboJPEG.load()
        guard let handle = photos_tjInitDecompress() else {
            throw ImageDecodingError.corrupt(.jpeg, "cannot create a TurboJPEG decompressor")
        }
        defer { photos_tjDestroy(handle) }
        return try body(handle)
    }

    private static func message(_ handle: tjhandle) -> String {
        guard let text = photos_tjGetErrorStr2(handle) else { return "unknown error" }
        return String(cString: text)
    }
}
