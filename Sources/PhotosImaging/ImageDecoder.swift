import Foundation

/// An image file format `ImageDecoder` reads, recognised by its first bytes.
public enum ImageFormat: String, Sendable, CaseIterable {
    case jpeg, png, webp

    /// The format whose signature `bytes` starts with, or nil.
    public static func sniff(_ bytes: Data) -> ImageFormat? {
        let head = [UInt8](bytes.prefix(12))
        if head.starts(with: [0xFF, 0xD8, 0xFF]) { return .jpeg }
        if head.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
        if head.count >= 12, head.starts(with: Array("RIFF".utf8)), head[8..<12].elementsEqual("WEBP".utf8) { return .webp }
        return nil
    }
}

/// A size in pixels.
public struct PixelSize: Hashable, Sendable, CustomStringConvertible {
    public var width: Int
    public var height: Int

    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    public var description: String { "\(width)x\(height)" }
}

/// What an image file says about itself before any pixel is decoded.
public struct ImageHeader: Hashable, Sendable {
    public let format: ImageFormat
    /// Full size as stored in the file.
    public let size: PixelSize
}

/// Decoded pixels: 8-bit RGBA with unassociated alpha, rows packed (`width * 4` bytes each).
public struct DecodedImage: Sendable {
    public let width: Int
    public let height: Int
    public let pixels: [UInt8]

    /// - Precondition: `pixels.count == width * height * 4`.
    public init(width: Int, height: Int, pixels: [UInt8]) {
        precondition(pixels.count == width * height * 4, "RGBA buffer does not match its size")
        self.width = width
        self.height = height
        self.pixels = pixels
    }

    public var size: PixelSize { PixelSize(width: width, height: height) }
}

/// Why an image could not be decoded. Every failure on bad input lands here; none crashes.
public enum ImageDecodingError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The file has no bytes.
    case empty
    /// The bytes start with no JPEG, PNG or WebP signature.
    case unknownFormat
    /// The header announces more pixels than the decoder accepts.
    case tooLarge(width: Int, height: Int, limit: Int)
    /// The format was recognised but the data is corrupt or truncated.
    case corrupt(ImageFormat, String)
    /// The file could not be read.
    case unreadable(String)

    public var description: String {
        switch self {
        case .empty: return "empty image file"
        case .unknownFormat: return "not a JPEG, PNG or WebP image"
        case .tooLarge(let width, let height, let limit):
            return "image too large: \(width)x\(height) is over \(limit / 1_000_000) megapixels"
        case .corrupt(let format, let reason): return "corrupt \(format.rawValue.uppercased()) image: \(reason)"
        case .unreadable(let reason): return "cannot read image: \(reason)"
        }
    }
}

/// Decodes JPEG (TurboJPEG, scaled DCT), PNG (libpng's simplified API) and WebP (libwebp) into RGBA.
///
/// Header dimensions are checked against `maximumPixels` before any pixel buffer is allocated,
/// so a decompression bomb costs a few bytes of parsing.
public struct ImageDecoder: Sendable {
    /// 50 megapixels: far above any photo `photos` previews, far below what exhausts memory.
    public static let defaultMaximumPixels = 50_000_000

    /// Images with more pixels than this (by their header) are refused.
    public var maximumPixels: Int

    public init(maximumPixels: Int = ImageDecoder.defaultMaximumPixels) {
        self.maximumPixels = maximumPixels
    }

    /// Reads the format and full dimensions without decoding pixels.
    /// - Throws: `ImageDecodingError` when the data is empty, unknown, malformed or too large;
    ///   `ImagingLibraryError` when the format's library cannot be loaded.
    public func header(of data: Data) throws -> ImageHeader {
        guard !data.isEmpty else { throw ImageDecodingError.empty }
        guard let format = ImageFormat.sniff(data) else { throw ImageDecodingError.unknownFormat }
        let size: PixelSize
        switch format {
        case .jpeg: size = try JPEGCodec.dimensions(of: data)
        case .png: size = try PNGCodec.dimensions(of: data)
        case .webp: size = try WebPCodec.dimensions(of: data)
        }
        guard size.width > 0, size.height > 0 else {
            throw ImageDecodingError.corrupt(format, "zero width or height")
        }
        let (pixels, overflow) = size.width.multipliedReportingOverflow(by: size.height)
        guard !overflow, pixels <= maximumPixels else {
            throw ImageDecodingError.tooLarge(width: size.width, height: size.height, limit: maximumPixels)
        }
        return ImageHeader(format: format, size: size)
    }

    /// Decodes `data`, downscaling while decoding where the format allows (JPEG DCT scaling in
    /// 1/8 steps, WebP's rescaler) to the smallest size that still covers `minimumSize`.
    ///
    /// - Parameters:
    ///   - data: the encoded file.
    ///   - minimumSize: the size the caller will draw at; nil decodes at full size.
    /// - Throws: `ImageDecodingError`; `ImagingLibraryError` when the format's library cannot be loaded.
    public func decode(_ data: Data, minimumSize: PixelSize? = nil) throws -> DecodedImage {
        let header = try header(of: data)
        switch header.format {
        case .jpeg: return try JPEGCodec.decode(data, header: header, minimumSize: minimumSize)
        case .png: return try PNGCodec.decode(data, header: header)
        case .webp: return try WebPCodec.decode(data, header: header, minimumSize: minimumSize)
        }
    }

    /// The size `decode(_:minimumSize:)` produces for an image with `header` (PNG is never
    /// scaled while decoding).
    public func outputSize(of header: ImageHeader, minimumSize: PixelSize?) -> PixelSize {
        switch header.format {
        case .jpeg: return JPEGCodec.scaledSize(of: header.size, covering: minimumSize)
        case .png: return header.size
        case .webp: return WebPCodec.scaledSize(of: header.size, covering: minimumSize)
        }
    }

    /// Reads and decodes the file at `url`; see `decode(_:minimumSize:)`.
    /// - Throws: `ImageDecodingError` (`.unreadable` when the file cannot be read); `ImagingLibraryError`.
    public func decode(contentsOf url: URL, minimumSize: PixelSize? = nil) throws -> DecodedImage {
        try decode(Self.read(url), minimumSize: minimumSize)
    }

    static func read(_ url: URL) throws -> Data {
        do {
            return try Data(contentsOf: url)
        } catch {
            throw ImageDecodingError.unreadable("\(url.lastPathComponent): \(error.localizedDescription)")
        }
    }
}
