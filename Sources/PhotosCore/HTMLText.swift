import Foundation

/// Plain text from the HTML providers put in their text fields (Commons' `extmetadata`, NASA's
/// descriptions): links, spans, paragraphs, sometimes scripts. Tags are dropped (script and style
/// elements with their content), entities decoded, and whitespace collapsed to single spaces.
/// Entities are decoded after the tags are gone, so `&lt;b&gt;` stays the text `<b>` and is
/// never read as markup. Control characters that survive are left for the terminal layer to
/// sanitise (and for JSON output to escape).
public enum HTMLText {
    public static func plain(_ html: String) -> String {
        var text = String.UnicodeScalarView()
        let scalars = Array(html.unicodeScalars)
        var index = 0
        while index < scalars.count {
            let scalar = scalars[index]
            guard scalar == "<", index + 1 < scalars.count, startsTag(scalars[index + 1]) else {
                text.append(scalar)
                index += 1
                continue
            }
            if scalars[(index + 1)...].starts(with: "!--".unicodeScalars) {
                // A comment ends at `-->`, whatever it holds.
                index = endOfComment(in: scalars, from: index + 4) ?? scalars.count
                text.append(" ")
                continue
            }
            guard let close = firstIndex(of: ">", in: scalars, from: index + 1) else {
                // An unterminated tag: everything after it is markup, not text.
                break
            }
            let name = tagName(scalars[(index + 1)..<close])
            index = close + 1
            if name == "script" || name == "style" {
                // Skip to the matching end tag; without one, drop the rest.
                index = endOfElement(name, in: scalars, from: index) ?? scalars.count
            }
            // Block tags and line breaks separate words (`a<br>b`, `</p><p>`); inline ones
            // (`<a>`, `<span>`, `<b>`) sit inside text and leave nothing.
            if !inline.contains(name) { text.append(" ") }
        }
        return collapse(decodeEntities(String(text)))
    }

    private static let inline: Set<String> = [
        "a", "abbr", "b", "bdi", "bdo", "cite", "code", "em", "font", "i", "kbd", "q", "s", "small", "span", "strong",
        "sub", "sup", "time", "u", "var", "wbr",
    ]

    /// `<` followed by a letter, `/`, `!` or `?` opens a tag; otherwise it is text (`a < b`).
    private static func startsTag(_ next: Unicode.Scalar) -> Bool {
        next == "/" || next == "!" || next == "?" || (next.isASCII && CharacterSet.letters.contains(next))
    }

    private static func firstIndex(of target: Unicode.Scalar, in scalars: [Unicode.Scalar], from start: Int) -> Int? {
        var index = start
        while index < scalars.count {
            if scalars[index] == target { return index }
            index += 1
        }
        return nil
    }

    /// The lower-cased element name of a tag's inside (`/a`, `span class="x"`, `br/`).
    private static func tagName(_ inside: ArraySlice<Unicode.Scalar>) -> String {
        var name = ""
        for scalar in inside.drop(while: { $0 == "/" }) {
            guard scalar.isASCII, CharacterSet.alphanumerics.contains(scalar) else { break }
            name.unicodeScalars.append(scalar)
        }
        return name.lowercased()
    }

    /// The index after the next `-->`.
    private static func endOfComment(in scalars: [Unicode.Scalar], from start: Int) -> Int? {
        var index = start
        while index + 2 < scalars.count {
            if scalars[index] == "-", scalars[index + 1] == "-", scalars[index + 2] == ">" { return index + 3 }
            index += 1
        }
        return nil
    }

    /// The index after `</name ...>`, searching from `start`.
    private static func endOfElement(_ name: String, in scalars: [Unicode.Scalar], from start: Int) -> Int? {
        var index = start
        while let open = firstIndex(of: "<", in: scalars, from: index) {
            guard open + 1 < scalars.count, scalars[open + 1] == "/",
                let close = firstIndex(of: ">", in: scalars, from: open + 1)
            else {
                index = open + 1
                continue
            }
            if tagName(scalars[(open + 2)..<close]) == name { return close + 1 }
            index = close + 1
        }
        return nil
    }

    private static let named: [String: String] = [
        "amp": "&", "lt": "<", "gt": ">", "quot": "\"", "apos": "'", "nbsp": " ", "ndash": "–", "mdash": "—",
        "hellip": "…", "copy": "©", "reg": "®", "trade": "™", "laquo": "«", "raquo": "»", "lsquo": "‘",
        "rsquo": "’", "ldquo": "“", "rdquo": "”", "middot": "·", "deg": "°", "times": "×", "eacute": "é",
        "egrave": "è", "aacute": "á", "agrave": "à", "oacute": "ó", "uacute": "ú", "iacute": "í", "ntilde": "ñ",
        "ouml": "ö", "uuml": "ü", "auml": "ä", "szlig": "ß", "ccedil": "ç",
    ]

    /// `&amp;`, `&#233;`, `&#xE9;` and the common named entities; anything else stays as written.
    public static func decodeEntities(_ text: String) -> String {
        // The byte, not Foundation's `contains`, which searches as NSString does.
        guard text.utf8.contains(UInt8(ascii: "&")) else { return text }
        var result = ""
        var rest = Substring(text)
        while let amp = rest.firstIndex(of: "&") {
            result += rest[..<amp]
            let afterAmp = rest.index(after: amp)
            guard let semicolon = rest[afterAmp...].prefix(12).firstIndex(of: ";") else {
                result += "&"
                rest = rest[afterAmp...]
                continue
            }
            let entity = rest[afterAmp..<semicolon]
            if let decoded = decode(entity) {
                result += decoded
                rest = rest[rest.index(after: semicolon)...]
            } else {
                result += "&"
                rest = rest[afterAmp...]
            }
        }
        return result + rest
    }

    private static func decode(_ entity: Substring) -> String? {
        if entity.hasPrefix("#x") || entity.hasPrefix("#X") {
            return UInt32(entity.dropFirst(2), radix: 16).flatMap(scalarText)
        }
        if entity.hasPrefix("#") {
            return UInt32(entity.dropFirst(), radix: 10).flatMap(scalarText)
        }
        return named[String(entity)]
    }

    /// The character for a code point; NUL and surrogates are not characters.
    private static func scalarText(_ value: UInt32) -> String? {
        guard value != 0, let scalar = Unicode.Scalar(value) else { return nil }
        return String(scalar)
    }

    /// Runs of whitespace (spaces, tabs, newlines, no-break spaces) as one space, trimmed.
    public static func collapse(_ text: String) -> String {
        var result = ""
        var pendingSpace = false
        for character in text {
            if character.isWhitespace {
                pendingSpace = !result.isEmpty
            } else {
                if pendingSpace { result.append(" ") }
                pendingSpace = false
                result.append(character)
            }
        }
        return result
    }
}
