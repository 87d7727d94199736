import Foundation
import Testing

@testable import PhotosImaging

@Suite struct ImageDecoderTests {
    let decoder = ImageDecoder()

    @Test(arguments: [
        ("sample.jpg", ImageFormat.jpeg, 640, 480),
        ("large.jpg", .jpeg, 1024, 768),
        ("thumb.jpg", .jpeg, 150, 150),
        ("sample.png", .png, 320, 240),
        ("sample.webp", .webp, 640, 480),
    ])
    func decodesFixturesAtFullSize(name: String, format: ImageFormat, width: Int, height: Int) throws {
        let data = try Fixture.data(name)
        #expect(ImageFormat.sniff(data) == format)
        #expect(try decoder.header(of: data) == ImageHeader(format: format, size: PixelSize(width: width, height: height)))
        let image = try decoder.decode(data)
        #expect(image.size == PixelSize(width: width, height: height))
        #expect(image.pixels.count == width * height * 4)
        // Opaque images: every alpha byte is 255, and the picture is not blank.
        #expect(stride(from: 3, to: image.pixels.count, by: 4).allSatisfy { image.pixels[$0] == 255 })
        #expect(Set(image.pixels.prefix(4096)).count > 10)
    }

    @Test func jpegUsesTheSmallestDCTScaleCoveringTheTarget() throws {
        let data = try Fixture.data("large.jpg")  // 1024x768
        #expect(try decoder.decode(data, minimumSize: PixelSize(width: 300, height: 200)).size == PixelSize(width: 384, height: 288))
        #expect(try decoder.decode(data, minimumSize: PixelSize(width: 640, height: 300)).size == PixelSize(width: 640, height: 480))
        #expect(try decoder.decode(data, minimumSize: PixelSize(width: 10, height: 10)).size == PixelSize(width: 128, height: 96))
        // Never upscales: a target larger than the image decodes at full size.
        #expect(try decoder.decode(data, minimumSize: PixelSize(width: 4000, height: 10)).size == PixelSize(width: 1024, height: 768))
    }

    @Test func webpScalesWhileDecoding() throws {
        let data = try Fixture.data("sample.webp")  // 640x480
        #expect(try decoder.decode(data, minimumSize: PixelSize(width: 160, height: 100)).size == PixelSize(width: 160, height: 120))
        #expect(try decoder.decode(data, minimumSize: PixelSize(width: 1000, height: 100)).size == PixelSize(width: 640, height: 480))
    }

    @Test func zeroByteFileIsEmpty() throws {
        #expect(throws: ImageDecodingError.empty) { try decoder.decode(Data()) }
        let folder = try Fixture.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("empty.jpg")
        try Data().write(to: file)
        #expect(throws: ImageDecodingError.empty) { try decoder.decode(contentsOf: file) }
    }

    @Test func missingFileIsUnreadable() {
        #expect {
            try decoder.decode(contentsOf: URL(fileURLWithPath: "/nonexistent/photos/thumb.jpg"))
        } throws: { error in
            if case ImageDecodingError.unreadable = error { return true }
            return false
        }
    }

    @Test func unknownBytesAreRefused() {
        #expect(throws: ImageDecodingError.unknownFormat) { try decoder.decode(Data("<html>not an image</html>".utf8)) }
        #expect(throws: ImageDecodingError.unknownFormat) { try decoder.decode(Data([0xFF])) }
    }

    @Test func corruptJPEGHeaderIsAnError() throws {
        var bytes = [UInt8](try Fixture.data("sample.jpg"))
        for index in 4..<400 { bytes[index] = UInt8(truncatingIfNeeded: index &* 37) }
        expectCorrupt(.jpeg) { try decoder.decode(Data(bytes)) }
    }

    @Test func truncatedJPEGIsAnError() throws {
        let data = try Fixture.data("sample.jpg")
        expectCorrupt(.jpeg) { try decoder.decode(data.prefix(data.count * 6 / 10)) }
        // Only the start of the header: still an error, not a crash.
        expectCorrupt(.jpeg) { try decoder.decode(data.prefix(40)) }
    }

    @Test func damagedJPEGScanDataNeverCrashes() throws {
        var bytes = [UInt8](try Fixture.data("sample.jpg"))
        for index in stride(from: 2_000, to: bytes.count - 2, by: 97) { bytes[index] ^= 0x5A }
        // Either a clean error or some pixels; what matters is that we get here.
        if let image = try? decoder.decode(Data(bytes)) { #expect(image.width == 640) }
    }

    @Test func jpegDimensionBombIsRefusedBeforeDecoding() throws {
        var bytes = [UInt8](try Fixture.data("sample.jpg"))
        // SOF0 at offset 158: FF C0, length (2), precision (1), height (2), width (2).
        #expect(bytes[158] == 0xFF && bytes[159] == 0xC0)
        bytes[163] = 0xEA; bytes[164] = 0x60  // height 60000
        bytes[165] = 0xEA; bytes[166] = 0x60  // width 60000
        #expect(throws: ImageDecodingError.tooLarge(width: 60_000, height: 60_000, limit: 50_000_000)) {
            try decoder.decode(Data(bytes))
        }
    }

    @Test func pngBombHeaderIsRefusedBeforeDecoding() {
        let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        // 100000 x 100000 RGB, 8 bits: 30 GB of pixels announced by 45 bytes.
        let ihdr = pngChunk("IHDR", bigEndian(100_000) + bigEndian(100_000) + [8, 2, 0, 0, 0])
        let idat = pngChunk("IDAT", [0x78, 0x9C, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01])
        let bomb = Data(signature + ihdr + idat + pngChunk("IEND", []))
        #expect(throws: ImageDecodingError.tooLarge(width: 100_000, height: 100_000, limit: 50_000_000)) {
            try decoder.header(of: bomb)
        }
        #expect(throws: ImageDecodingError.tooLarge(width: 100_000, height: 100_000, limit: 50_000_000)) {
            try decoder.decode(bomb)
        }
    }

    @Test func pngWithinLimitsButMissingDataIsAnError() {
        let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        let ihdr = pngChunk("IHDR", bigEndian(2_000) + bigEndian(2_000) + [8, 2, 0, 0, 0])
        let png = Data(signature + ihdr + pngChunk("IDAT", [0x78, 0x9C, 0x03, 0x00]) + pngChunk("IEND", []))
        expectCorrupt(.png) { try decoder.decode(png) }
        let zero = Data(signature + pngChunk("IHDR", bigEndian(0) + bigEndian(10) + [8, 2, 0, 0, 0]))
        expectCorrupt(.png) { try decoder.decode(zero) }
    }

    @Test func truncatedPNGIsAnError() throws {
        let data = try Fixture.data("sample.png")
        expectCorrupt(.png) { try decoder.decode(data.prefix(data.count / 2)) }
        expectCorrupt(.png) { try decoder.decode(data.prefix(20)) }
    }

    @Test func truncatedOrCorruptWebPIsAnError() throws {
        let data = try Fixture.data("sample.webp")
        expectCorrupt(.webp) { try decoder.decode(data.prefix(data.count / 2)) }
        var bytes = [UInt8](data)
        for index in 20..<60 { bytes[index] = 0 }
        expectCorrupt(.webp) { try decoder.decode(Data(bytes)) }
        expectCorrupt(.webp) { try decoder.decode(Data("RIFF\u{0}\u{0}\u{0}\u{0}WEBPVP8 ".utf8)) }
    }

    @Test func limitIsConfigurable() throws {
        let small = ImageDecoder(maximumPixels: 10_000)
        #expect(throws: ImageDecodingError.tooLarge(width: 150, height: 150, limit: 10_000)) {
            try small.decode(Fixture.data("thumb.jpg"))
        }
    }

    private func expectCorrupt(
        _ format: ImageFormat, sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> DecodedImage
    ) {
        do {
            let image = try body()
            Issue.record("decoded \(image.size) instead of failing", sourceLocation: sourceLocation)
        } catch let error as ImageDecodingError {
            guard case .corrupt(let actual, _) = error else {
                Issue.record("expected corrupt \(format), got \(error)", sourceLocation: sourceLocation)
                return
            }
            #expect(actual == format, sourceLocation: sourceLocation)
        } catch {
            Issue.record("unexpected error \(error)", sourceLocation: sourceLocation)
        }
    }
}

/// Progressive JPEGs can hold any number of scans, each making the decoder pass over every
/// coefficient again: a few kilobytes can cost minutes of CPU. TurboJPEG stops at 500 scans.
@Suite struct ProgressiveScanLimitTests {
    /// A valid 8x8 grey progressive JPEG with `1 + 63 * 14` scans: the DC scan, then every AC
    /// coefficient in a band of its own, first at point transform 13 and refined down to 0.
    /// Every coefficient is zero, so each scan's entropy data is one end-of-band code.
    static func manyScans(acBands: ClosedRange<Int> = 1...63) -> (data: Data, scans: Int) {
        func segment(_ marker: UInt8, _ payload: [UInt8]) -> [UInt8] {
            let length = payload.count + 2
            return [0xFF, marker, UInt8(length >> 8), UInt8(length & 0xFF)] + payload
        }
        func scan(_ start: UInt8, _ end: UInt8, high: UInt8, low: UInt8) -> [UInt8] {
            segment(0xDA, [1, 1, 0x00, start, end, high << 4 | low]) + [0x7F]
        }
        let oneCode: [UInt8] = [1] + [UInt8](repeating: 0, count: 15) + [0]  // one symbol, 0x00
        var bytes: [UInt8] = [0xFF, 0xD8]
        bytes += segment(0xDB, [0] + [UInt8](repeating: 1, count: 64))
        bytes += segment(0xC2, [8, 0, 8, 0, 8, 1, 1, 0x11, 0])  // SOF2: 8x8, one component
        bytes += segment(0xC4, [0x00] + oneCode + [0x10] + oneCode)
        bytes += scan(0, 0, high: 0, low: 0)
        var scans = 1
        for band in acBands {
            bytes += scan(UInt8(band), UInt8(band), high: 0, low: 13)
            scans += 1
            for low in stride(from: 13, to: 0, by: -1) {
                bytes += scan(UInt8(band), UInt8(band), high: UInt8(low), low: UInt8(low - 1))
                scans += 1
            }
        }
        return (Data(bytes + [0xFF, 0xD9]), scans)
    }

    @Test func aJPEGWithOver500ScansIsRefused() {
        let (data, scans) = Self.manyScans()
        #expect(scans == 883)
        #expect {
            try ImageDecoder().decode(data)
        } throws: { error in
            guard case ImageDecodingError.corrupt(.jpeg, let reason) = error else { return false }
            return reason.contains("scans")
        }
    }

    @Test func aProgressiveJPEGWithFewerScansStillDecodes() throws {
        let (data, scans) = Self.manyScans(acBands: 1...20)
        #expect(scans == 281)
        let image = try ImageDecoder().decode(data)
        #expect(image.size == PixelSize(width: 8, height: 8))
    }
}
