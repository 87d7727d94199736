import FuzzSupport
import PhotosCLI

// The config file parser: any UTF-8 text (photos reads the file as UTF-8 and reports anything
// else before parsing) through the one public parse call. A parse error is fine; a crash, a hang
// or runaway memory is a finding.

/// The parser under test; repoint this when the config file is read another way.
func parseConfig(_ text: String) throws -> [String: String] {
    try ConfigParsing.parse(text)
}

@_cdecl("LLVMFuzzerTestOneInput")
public func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let text = String(validating: fuzzBytes(data, size), as: UTF8.self) else { return 0 }
    _ = try? parseConfig(text)
    return 0
}
