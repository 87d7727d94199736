import Foundation

/// JSON as photos prints it: sorted keys, unescaped slashes, invisible characters escaped.
enum JSONOutput {
    static func encode(_ value: some Encodable, pretty: Bool) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = pretty ? [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes] : [.sortedKeys, .withoutEscapingSlashes]
        return escapingInvisibles(String(decoding: try encoder.encode(value), as: UTF8.self))
    }

    /// JSONEncoder escapes only U+0000-001F. DEL, C1 controls and format characters (bidi
    /// overrides and isolates, zero-width characters, tags) are escaped here as `\uXXXX`, so
    /// JSON piped to a terminal or a pager cannot move the cursor or reorder text, and a parser
    /// still reads the same string. They only ever occur inside JSON strings.
    static func escapingInvisibles(_ json: String) -> String {
        guard json.utf8.contains(where: { $0 >= 0x7F }) else { return json }
        var result = String.UnicodeScalarView()
        for scalar in json.unicodeScalars {
            guard scalar.value >= 0x7F,
                (0x7F...0x9F).contains(scalar.value) || scalar.properties.generalCategory == .format
                    || scalar.properties.generalCategory == .lineSeparator
                    || scalar.properties.generalCategory == .paragraphSeparator
            else {
                result.append(scalar)
                continue
            }
            for unit in String(scalar).utf16 {
                let hex = String(unit, radix: 16)
                result.append(contentsOf: ("\\u" + String(repeating: "0", count: 4 - hex.count) + hex).unicodeScalars)
            }
        }
        return String(result)
    }
}
