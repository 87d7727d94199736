import FuzzSupport
import PhotosTerminal

// The terminal sanitiser: any bytes a provider sends (as text) through TerminalText.sanitize,
// fit, truncate, pad and displayWidth. The first byte picks the column width. Besides crashes
// and hangs, a finding is sanitised text that could still steer a terminal (a control, format or
// bidi character, a line break), sanitising that changes sanitised text again, or fitted text
// wider than its columns.

@_cdecl("LLVMFuzzerTestOneInput")
public func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    var input = FuzzReader(fuzzBytes(data, size))
    let width = Int(input.byte()) - 8
    let text = String(decoding: input.rest(), as: UTF8.self)

    let safe = TerminalText.sanitize(text)
    for scalar in safe.unicodeScalars {
        switch scalar.properties.generalCategory {
        case .control, .lineSeparator, .paragraphSeparator, .surrogate, .privateUse, .unassigned:
            violated("sanitised text has no control, separator, private or unassigned characters", "U+\(hex(scalar))")
        case .format where scalar != "\u{200D}":
            violated("sanitised text has no format characters but the zero-width joiner", "U+\(hex(scalar))")
        default:
            break
        }
    }
    if safe.hasPrefix(" ") || safe.hasSuffix(" ") || safe.contains("  ") {
        violated("sanitised text has no leading, trailing or repeated spaces", String(reflecting: safe))
    }
    guard TerminalText.sanitize(safe) == safe else {
        violated("sanitising sanitised text changes nothing", String(reflecting: safe))
    }

    let fitted = TerminalText.fit(text, width: width)
    let columns = TerminalText.displayWidth(fitted)
    guard columns <= max(0, width) else {
        violated("fitted text takes at most its width", "\(columns) columns for \(width): \(String(reflecting: fitted))")
    }
    _ = TerminalText.pad(safe, width: width)
    _ = TerminalText.truncate(safe, width: width)
    return 0
}

func hex(_ scalar: Unicode.Scalar) -> String {
    let digits = String(scalar.value, radix: 16, uppercase: true)
    return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
}
