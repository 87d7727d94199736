/// Makes untrusted text (titles, names, messages from providers) safe for a terminal and fits
/// it to a display width.
///
/// Unicode control and format characters (C0, DEL, C1, bidi overrides and isolates, ...) are
/// dropped, so no escape sequence or reordering reaches the terminal; newlines and tabs become
/// single spaces. Zero-width joiners stay only where they join (emoji sequences, Indic
/// conjuncts), so such text survives.
public enum TerminalText {
    public static func sanitize(_ text: String) -> String {
        sanitizeASCII(text) ?? sanitizeScalars(text)
    }

    /// `sanitize` scalar by scalar, for any text: the text itself when nothing changes.
    static func sanitizeScalars(_ text: String) -> String {
        isUnchangedBySanitizing(text) ? text : rebuildSanitized(text)
    }

    /// Whether sanitising leaves `text` as it is: every scalar is kept (Latin by its value, others
    /// by their category), no space is doubled and none starts or ends it. Most titles that are
    /// not ASCII (`1024×768`, `Zoë`, `東京`) are, and are then used without being rebuilt scalar by
    /// scalar.
    static func isUnchangedBySanitizing(_ text: String) -> Bool {
        var previousWasSpace = true
        var previous: Unicode.Scalar?
        var marksInRow = 0
        // The scalar before a joiner, until the one after it says whether it joins (see
        // `rebuildSanitized`).
        var beforeJoiner: Unicode.Scalar?
        for scalar in text.unicodeScalars {
            defer { previous = scalar }
            let value = scalar.value
            if let before = beforeJoiner {
                guard joins(before, scalar) else { return false }
                beforeJoiner = nil
            }
            if value == 0x200D {
                guard !previousWasSpace, let previous else { return false }
                beforeJoiner = previous
                continue
            }
            if value == 0x20 {
                if previousWasSpace { return false }
                previousWasSpace = true
                continue
            }
            previousWasSpace = false
            if (value > 0x20 && value < 0x7F) || (value >= 0xA1 && value < 0x300 && value != 0xAD) {
                marksInRow = 0
                continue
            }
            marksInRow = isCombining(scalar) ? marksInRow + 1 : 0
            if marksInRow > maxCombiningMarksInRow { return false }
            switch scalar.properties.generalCategory {
            case .control, .lineSeparator, .paragraphSeparator, .spaceSeparator, .surrogate, .privateUse, .unassigned, .format:
                return false
            default:
                if isInvisibleFiller(scalar) { return false }
                continue
            }
        }
        return !previousWasSpace && (beforeJoiner.map { joins($0, nil) } ?? true)
    }

    /// The default-ignorable characters that are not format characters and are not variation
    /// selectors: Hangul fillers, the combining grapheme joiner and Khmer's inherent vowels. A
    /// terminal shows nothing for them: they can make a title look empty. (Variation selectors
    /// stay: they choose how the character before them is drawn.)
    public static func isInvisibleFiller(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x34F, 0x115F, 0x1160, 0x17B4, 0x17B5, 0x3164, 0xFFA0: return true
        default: return false
        }
    }

    /// Whether a zero-width joiner between `previous` and `next` (nil: the end) joins something:
    /// an emoji sequence (👩‍💻), or a virama on either side in an Indic script (a half form, a
    /// Malayalam chillu at a word's end, Bengali's ra with ya-phala, Sinhala's touching letters).
    /// Anywhere else (between Latin letters, at an end, in a run) it only hides itself, and goes.
    static func joins(_ previous: Unicode.Scalar?, _ next: Unicode.Scalar?) -> Bool {
        guard let previous, previous.value > 0x7F else { return false }
        if previous.properties.canonicalCombiningClass == .virama { return true }
        guard let next, next.value > 0x7F else { return false }
        if next.properties.canonicalCombiningClass == .virama { return true }
        let emojiBefore = previous.properties.isEmoji || previous.properties.isEmojiModifier || previous.value == 0xFE0F
        return emojiBefore && next.properties.isEmoji
    }

    /// Combining marks kept in a row, past which the rest of the run is dropped: the limit of
    /// Unicode's Stream-Safe Text Format (UAX #15), which no text needs to pass. A title of one
    /// letter and 5,000 accents would otherwise fill every frame it is drawn in.
    static let maxCombiningMarksInRow = 30

    /// Whether `scalar` combines with the one before it (a non-starter: its canonical combining
    /// class is not 0).
    static func isCombining(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value >= 0x300 && scalar.properties.canonicalCombiningClass != .notReordered
    }

    /// `sanitize`, building the result scalar by scalar.
    static func rebuildSanitized(_ text: String) -> String {
        var result = String.UnicodeScalarView()
        var lastWasSpace = false
        var marksInRow = 0
        let scalars = Array(text.unicodeScalars)
        for index in 0..<scalars.count {
            let scalar = scalars[index]
            if scalar == "\u{200D}" {
                if !lastWasSpace, joins(result.last, index + 1 < scalars.count ? scalars[index + 1] : nil) { result.append(scalar) }
                continue
            }
            if isInvisibleFiller(scalar) { continue }
            if isCombining(scalar) {
                marksInRow += 1
                if marksInRow > maxCombiningMarksInRow { continue }
            } else {
                marksInRow = 0
            }
            switch scalar.properties.generalCategory {
            case .control, .lineSeparator, .paragraphSeparator, .spaceSeparator:
                // Newlines, tabs and other breaks flatten to one space.
                if scalar.properties.generalCategory == .control
                    && !(scalar == "\n" || scalar == "\r" || scalar == "\t") {
                    continue
                }
                if !lastWasSpace { result.append(" ") }
                lastWasSpace = true
            case .format, .surrogate, .privateUse, .unassigned:
                continue
            default:
                result.append(scalar)
                lastWasSpace = false
            }
        }
        return String(result).trimmingSpaces()
    }

    /// `sanitize` for text that is all ASCII (most titles, ids and names), byte by byte: the
    /// text itself when nothing changes. Nil for text with other characters.
    static func sanitizeASCII(_ text: String) -> String? {
        enum Outcome {
            case notASCII, unchanged, changed(String)
        }
        var copy = text
        let outcome = copy.withUTF8 { bytes -> Outcome in
            var clean = true
            var previous: UInt8 = 0x20
            for byte in bytes {
                if byte >= 0x80 { return .notASCII }
                if byte < 0x20 || byte == 0x7F || (byte == 0x20 && previous == 0x20) { clean = false }
                previous = byte
            }
            if clean && previous != 0x20 { return .unchanged }
            if clean && bytes.isEmpty { return .changed("") }
            var result: [UInt8] = []
            result.reserveCapacity(bytes.count)
            var lastWasSpace = false
            for byte in bytes {
                switch byte {
                case 0x20, 0x0A, 0x0D, 0x09:
                    if !lastWasSpace { result.append(0x20) }
                    lastWasSpace = true
                case 0x00..<0x20, 0x7F:
                    continue
                default:
                    result.append(byte)
                    lastWasSpace = false
                }
            }
            let start = result.firstIndex { $0 != 0x20 } ?? result.endIndex
            let end = (result.lastIndex { $0 != 0x20 }).map { $0 + 1 } ?? start
            return .changed(String(decoding: result[start..<max(start, end)], as: UTF8.self))
        }
        switch outcome {
        case .notASCII: return nil
        case .unchanged: return text
        case .changed(let result): return result
        }
    }

    /// Whether every byte is printable ASCII (one column each).
    static func isPrintableASCII(_ text: String) -> Bool {
        // Over the bytes themselves (a small string's are copied to the stack): the UTF-8 view's
        // iterator costs several times as much per byte.
        text.utf8.withContiguousStorageIfAvailable { bytes in
            for byte in bytes where byte < 0x20 || byte >= 0x7F { return false }
            return true
        } ?? text.utf8.allSatisfy { $0 >= 0x20 && $0 < 0x7F }
    }

    /// A photo's title as a terminal shows it: sanitised, and `(untitled)` when nothing visible
    /// is left (a title of joiners and bidi marks showed as a blank, the check made before
    /// sanitising).
    public static func title(_ text: String) -> String {
        let clean = sanitize(text)
        return clean.isEmpty ? "(untitled)" : clean
    }

    /// Whether `text` shows anything once sanitised: a name or tag made only of joiners, bidi
    /// marks or fillers shows as a blank, and is left out rather than listed empty.
    public static func showsSomething(_ text: String) -> Bool {
        !sanitize(text).trimmingSpaces().isEmpty
    }

    /// Sanitises `text` and truncates it to `width` terminal columns, ending with `…` when cut.
    public static func fit(_ text: String, width: Int) -> String {
        truncate(sanitize(text), width: width)
    }

    /// A message of several lines that may hold what the user typed (the argument parser's
    /// errors quote it): its layout kept (newlines, tabs, runs of spaces), and every other
    /// character that would not show as itself written as `\u{XXXX}`, as ``quoted(_:width:)``
    /// writes them, so that no escape sequence in an argument reaches the terminal.
    public static func escapingControls(_ text: String) -> String {
        var shown = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            switch scalar.properties.generalCategory {
            case .control where scalar != "\n" && scalar != "\t", .format, .lineSeparator, .paragraphSeparator, .surrogate, .privateUse:
                shown.append(contentsOf: "\\u{\(String(scalar.value, radix: 16, uppercase: true))}".unicodeScalars)
            default:
                shown.append(scalar)
            }
        }
        return String(shown)
    }

    /// A path or URL as it is, safe for the terminal: every space kept (sanitising makes a run
    /// of them one, which would show another path), and what would not show as itself written
    /// as ``quoted(_:width:)`` writes it, without the quotes and never cut.
    public static func verbatim(_ text: String) -> String {
        String(quoted(text, width: Int.max / 4).dropFirst().dropLast())
    }

    /// What the user typed, quoted back in a message: in single quotes, cut to `width` columns,
    /// with every character that would not show as itself (controls, tabs, format characters
    /// such as U+200B, spaces other than U+0020) written as `\u{XXXX}`, so that `'flickr:1\u{200B}'`
    /// explains why an id that looks right is refused. Safe for the terminal like ``sanitize``.
    public static func quoted(_ text: String, width: Int = 60) -> String {
        var shown = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            let visible: Bool
            switch scalar.properties.generalCategory {
            case .control, .format, .lineSeparator, .paragraphSeparator, .surrogate, .privateUse, .unassigned: visible = false
            case .spaceSeparator: visible = scalar == " "
            default: visible = true
            }
            if visible {
                shown.append(scalar)
            } else {
                shown.append(contentsOf: "\\u{\(String(scalar.value, radix: 16, uppercase: true))}".unicodeScalars)
            }
        }
        return "'" + truncate(String(shown), width: width) + "'"
    }

    /// Whether every scalar is printable and below the combining marks (U+0300): Latin-1 and
    /// the Latin extensions, whose scalars are one grapheme and one column each. `1024×768` and
    /// `Zoë` are; a soft hyphen (a format character, no column) is not.
    static func isSimpleLatin(_ text: String) -> Bool {
        text.unicodeScalars.allSatisfy { scalar in
            let value = scalar.value
            return (value >= 0x20 && value < 0x7F) || (value >= 0xA0 && value < 0x300 && value != 0xAD)
        }
    }

    /// Sanitises `text` and wraps it at spaces into lines of at most `width` columns. A word
    /// wider than that (a URL, a path) stays whole on a line of its own, for the terminal to
    /// wrap: cut or broken it could not be copied. At least one line.
    ///
    /// With `breakingWords`, such a word is broken between characters instead, for a column
    /// that must keep its width.
    public static func wrap(_ text: String, width: Int, breakingWords: Bool = false) -> [String] {
        let clean = sanitize(text)
        guard width > 0, displayWidth(clean) > width else { return [clean] }
        if breakingWords {
            return wrap(clean, width: width).flatMap { line in displayWidth(line) > width ? pieces(line, width: width) : [line] }
        }
        var lines: [String] = []
        var line = ""
        var used = 0
        for word in clean.split(separator: " ", omittingEmptySubsequences: true) {
            let size = displayWidth(String(word))
            if used > 0, used + 1 + size > width {
                lines.append(line)
                line = ""
                used = 0
            }
            if used > 0 {
                line += " "
                used += 1
            }
            line += word
            used += size
        }
        if !line.isEmpty || lines.isEmpty { lines.append(line) }
        return lines
    }

    /// Rows of a label and a value, the labels in a column: each value wrapped at `width`
    /// columns under its own column (nil: on one line), never cut. The values of the labels in
    /// `whole` (paths, URLs) stay on one line, for the terminal to wrap: broken at a space they
    /// could not be copied.
    public static func labelled(_ rows: [(String, String)], width: Int?, whole: Set<String> = []) -> String {
        let labelWidth = rows.map { displayWidth(sanitize($0.0)) }.max() ?? 0
        let valueWidth = width.map { max(20, $0 - labelWidth - 2) }
        let indent = "\n" + String(repeating: " ", count: labelWidth + 2)
        return rows.map { label, value in
            let lines = whole.contains(label) ? [verbatim(value)] : valueWidth.map { wrap(value, width: $0) } ?? [sanitize(value)]
            return pad(sanitize(label), width: labelWidth) + "  " + lines.joined(separator: indent)
        }.joined(separator: "\n") + "\n"
    }

    /// Safe text cut into pieces of at most `width` columns, between characters.
    static func pieces(_ text: String, width: Int) -> [String] {
        var pieces: [String] = []
        var piece = ""
        var used = 0
        for character in text {
            let size = displayWidth(character)
            if used > 0, used + size > width {
                pieces.append(piece)
                piece = ""
                used = 0
            }
            piece.append(character)
            used += size
        }
        if !piece.isEmpty { pieces.append(piece) }
        return pieces
    }

    /// Truncates already-safe text to `width` columns.
    public static func truncate(_ text: String, width: Int) -> String {
        guard width > 0 else { return "" }
        if isPrintableASCII(text) {
            return text.utf8.count <= width ? text : String(decoding: text.utf8.prefix(width - 1), as: UTF8.self) + "…"
        }
        if isSimpleLatin(text) {
            let scalars = text.unicodeScalars
            if scalars.count <= width { return text }
            return String(String.UnicodeScalarView(scalars.prefix(width - 1))) + "…"
        }
        if displayWidth(text) <= width { return text }
        var result = ""
        var used = 0
        for character in text {
            let w = displayWidth(character)
            if used + w > width - 1 { break }
            result.append(character)
            used += w
        }
        return result + "…"
    }

    /// Pads safe text with spaces to exactly `width` columns (truncating when longer).
    public static func pad(_ text: String, width: Int) -> String {
        let cut = truncate(text, width: width)
        return cut + String(repeating: " ", count: max(0, width - displayWidth(cut)))
    }

    /// Columns `text` takes in a terminal.
    public static func displayWidth(_ text: String) -> Int {
        if isPrintableASCII(text) { return text.utf8.count }
        if isSimpleLatin(text) { return text.unicodeScalars.count }
        return text.reduce(0) { $0 + displayWidth($1) }
    }

    /// Columns one grapheme takes. An emoji sequence (a presentation selector, a zero-width
    /// joiner, an emoji drawn as one) is one wide glyph: 2. Otherwise a terminal draws each
    /// scalar of the grapheme as `wcwidth` measures it, so the widths add up: a letter followed by
    /// hundreds of spacing marks, or a run of Hangul leading consonants (one grapheme to Swift),
    /// takes a column or two for each, not for the first alone.
    public static func displayWidth(_ character: Character) -> Int {
        let scalars = character.unicodeScalars
        guard let first = scalars.first else { return 0 }
        if first.properties.isEmojiPresentation || scalars.contains(where: { $0 == "\u{FE0F}" || $0 == "\u{200D}" }) { return 2 }
        var width = 0
        for scalar in scalars { width += displayWidth(scalar) }
        return width
    }

    /// Columns one scalar takes on its own, as `wcwidth` has it: 0 for marks that combine,
    /// format and control characters and the Hangul vowels and finals that join a leading
    /// consonant; 2 for East Asian wide and full-width characters; else 1.
    static func displayWidth(_ scalar: Unicode.Scalar) -> Int {
        let value = scalar.value
        if (0x1160...0x11FF).contains(value) || (0xD7B0...0xD7FF).contains(value) { return 0 }
        if isWide(value) || scalar.properties.isEmojiPresentation { return 2 }
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .format, .control: return 0
        default: return 1
        }
    }

    /// East Asian wide and full-width ranges (emoji drawn wide are those with emoji presentation,
    /// checked apart: a text-style one such as U+1F321 takes one column).
    private static func isWide(_ value: UInt32) -> Bool {
        switch value {
        case 0x1100...0x115F, 0x2329...0x232A, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF,
             0xA000...0xA4CF, 0xA960...0xA97F, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE10...0xFE19, 0xFE30...0xFE6F,
             0xFF00...0xFF60, 0xFFE0...0xFFE6, 0x16FE0...0x16FE4, 0x17000...0x18CFF, 0x18D00...0x18D08, 0x1AFF0...0x1B2FF,
             0x1F200...0x1F202, 0x1F210...0x1F23B, 0x1F240...0x1F248, 0x1F250...0x1F251,
             0x20000...0x2FFFD, 0x30000...0x3FFFD:
            return true
        default:
            return false
        }
    }
}

extension String {
    func trimmingSpaces() -> String {
        var view = Substring(self)
        while view.first == " " { view.removeFirst() }
        while view.last == " " { view.removeLast() }
        return String(view)
    }
}
