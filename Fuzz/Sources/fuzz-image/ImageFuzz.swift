import Foundation
import FuzzSupport
import PhotosCore
import PhotosImaging

// The image decoders (JPEG through TurboJPEG, PNG through libpng, WebP through libwebp) as the
// grid and previews use them: sniff the bytes, read the header, decode at full size and scaled
// to a thumbnail tile. Any ImageDecodingError is fine; a crash, a hang or runaway memory is a
// finding, and so is a decoded image whose buffer does not match its size.
//
// The pixel limit is lower than photos' 50 MP so that an input announcing a huge image costs
// milliseconds: the size checks run the same way whatever the limit.

let decoder = ImageDecoder(maximumPixels: 4_000_000)
/// A tile of the thumbnail grid is a few dozen pixels a side.
let tile = PixelSize(width: 48, height: 48)

@_cdecl("LLVMFuzzerTestOneInput")
public func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = Data(fuzzBytes(data, size))
    let kind = ImageKind(sniffing: bytes)
    let format = ImageFormat.sniff(bytes)
    if let format, kind?.rawValue != format.rawValue {
        violated("the cache's sniffing and the decoder's agree", "\(String(describing: kind)) and \(format)")
    }
    guard let header = try? decoder.header(of: bytes) else { return 0 }
    guard header.size.width > 0, header.size.height > 0,
        header.size.width.multipliedReportingOverflow(by: header.size.height).partialValue <= decoder.maximumPixels
    else {
        violated("a header that passed is within the pixel limit", header.size.description)
    }
    for minimum in [nil, tile] {
        guard let image = try? decoder.decode(bytes, minimumSize: minimum) else { continue }
        guard image.width > 0, image.height > 0, image.width <= header.size.width, image.height <= header.size.height,
            image.pixels.count == image.width * image.height * 4
        else {
            violated("a decoded image fits its header", "\(image.size) from \(header.size)")
        }
        // The grid reserves decode memory by this size before decoding: it must be exact.
        guard image.size == decoder.outputSize(of: header, minimumSize: minimum) else {
            violated("the decoded size is the one reserved for", "\(image.size), reserved \(decoder.outputSize(of: header, minimumSize: minimum))")
        }
    }
    return 0
}
