import Foundation
import PhotosCore
import PhotosTerminal

/// A `--name` template: text with `{field}`s, `/` between folders, e.g. `{provider}/{id}.{ext}`.
///
/// Every field's value comes from a provider and is made into part of one safe path component
/// (``FileNameSanitizer``): it can never add a folder, climb out of `--to` or hide a file.
struct NameTemplate: Sendable, Equatable {
    enum Field: String, CaseIterable, Sendable {
        case provider, id, rawID = "raw_id", title, owner, date, ext

        var summary: String {
            switch self {
            case .provider: return "the provider's name (flickr)"
            case .id: return "the photo's id, as a file name (flickr_53624890009)"
            case .rawID: return "the id without the provider (53624890009)"
            case .title: return "the title ('untitled' when it has none)"
            case .owner: return "who took or posted it ('unknown' when not said)"
            case .date: return "the date taken, else uploaded, as YYYY-MM-DD ('undated')"
            case .ext: return "the image's extension (jpg, png, gif, webp)"
            }
        }
    }

    enum Piece: Sendable, Equatable {
        case text(String)
        case field(Field)
    }

    static let defaultTemplate = "{provider}/{id}.{ext}"

    /// The template's folders and file name, each a sequence of pieces.
    let components: [[Piece]]
    let source: String

    /// Parses `template`. `{{` and `}}` are literal braces.
    /// - Throws: `PhotosError.usage` for an unknown or unclosed field, an empty, absolute, `.` or
    ///   `..` component, or a character no file name may hold.
    init(_ template: String) throws {
        source = template
        guard !template.isEmpty else { throw PhotosError.usage("--name is empty; the default is \(Self.defaultTemplate)") }
        guard !template.hasPrefix("/") else {
            throw PhotosError.usage("--name is relative to --to; '\(template)' starts with /")
        }
        var components: [[Piece]] = []
        var pieces: [Piece] = []
        var text = ""
        var characters = template.makeIterator()
        func flushText() {
            if !text.isEmpty { pieces.append(.text(text)) }
            text = ""
        }
        func endComponent() throws {
            flushText()
            if pieces.isEmpty { throw PhotosError.usage("--name '\(template)' has an empty folder name (two / in a row, or one at the end)") }
            if case .text(let literal) = pieces.first, pieces.count == 1, literal == "." || literal == ".." {
                throw PhotosError.usage("--name may not use '\(literal)' as a folder: every file stays inside --to")
            }
            components.append(pieces)
            pieces = []
        }
        while let character = characters.next() {
            switch character {
            case "/":
                try endComponent()
            case "{":
                var name = ""
                var closed = false
                var escaped = false
                while let next = characters.next() {
                    if next == "}" {
                        closed = true
                        break
                    }
                    if next == "{" && name.isEmpty {
                        escaped = true
                        break
                    }
                    name.append(next)
                }
                if escaped {
                    text.append("{")  // `{{`
                    continue
                }
                guard closed else { throw PhotosError.usage("--name '\(template)' has a '{' without its '}'") }
                guard let field = Field(rawValue: name) else {
                    let known = Field.allCases.map { "{\($0.rawValue)}" }.joined(separator: " ")
                    throw PhotosError.usage("--name has no field {\(name)}; the fields are \(known)")
                }
                flushText()
                pieces.append(.field(field))
            case "}":
                guard characters.next() == "}" else {
                    throw PhotosError.usage("--name '\(template)' has a '}' without its '{' (write }} for a brace)")
                }
                text.append("}")
            default:
                if character.unicodeScalars.contains(where: { FileNameSanitizer.isInvisible($0) || $0 == "\0" }) {
                    throw PhotosError.usage("--name holds a control or invisible character")
                }
                text.append(character)
            }
        }
        try endComponent()
        // Text longer than a name may be would be cut with the fields after it ({id} gone, and
        // two photos under one name): refused. The renderer shortens fields to fit, none below
        // 16 bytes; an extension is a few. The file name keeps 5 bytes for .part and -N.
        for (index, pieces) in components.enumerated() {
            var text = 0, fields = 0
            for piece in pieces {
                switch piece {
                case .text(let literal): text += FileNameSanitizer.literal(literal).utf8.count
                case .field(.ext): fields += 5
                case .field: fields += 16
                }
            }
            let room = FileNameSanitizer.maxComponentBytes - (index == components.count - 1 ? 5 : 0)
            if text + fields > room {
                let fieldsNeed = fields > 0 ? " and its fields at least \(fields)" : ""
                throw PhotosError.usage(
                    "--name has \(text) bytes of text in one \(index == components.count - 1 ? "file" : "folder") name\(fieldsNeed): "
                        + "such a name holds \(room) bytes here; shorten it")
            }
        }
        self.components = components
    }

    /// The fields the template uses.
    var uses: Set<Field> {
        Set(components.joined().compactMap { if case .field(let field) = $0 { return field } else { return nil } })
    }

    /// Whether the file name ends in an extension: `{ext}`, or a literal one such as `.jpg`.
    var namesFileType: Bool {
        guard let fileName = components.last else { return false }
        if fileName.contains(where: { if case .field(.ext) = $0 { return true } else { return false } }) { return true }
        guard case .text(let text) = fileName.last, let dot = text.lastIndex(of: ".") else { return false }
        let suffix = text[text.index(after: dot)...]
        return !suffix.isEmpty && suffix.allSatisfy { $0.isLetter || $0.isNumber }
    }

    /// Whether the file name ends in `.{ext}`: its extension is the one the image's URL names.
    var endsInExtensionField: Bool {
        guard let fileName = components.last, fileName.last == .field(.ext), fileName.count >= 2,
            case .text(let text) = fileName[fileName.count - 2]
        else { return false }
        return text.hasSuffix(".")
    }

    /// The extension the template writes out (`txt` of `{id}.txt`, lowercased), when the file
    /// name ends in one rather than in `{ext}`.
    var literalExtension: String? {
        guard let fileName = components.last, case .text(let text) = fileName.last, let dot = text.lastIndex(of: ".") else { return nil }
        let suffix = text[text.index(after: dot)...]
        guard !suffix.isEmpty, suffix.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }), suffix.contains(where: \.isLetter) else { return nil }
        return suffix.lowercased()
    }

    /// The path below `--to` for one photo, one safe component per folder and the file name.
    /// - Parameter reserve: bytes the file name leaves free (for `.part`, `.json` and `-N`).
    func render(_ values: NameFields, reserve: Int = 0) -> [String] {
        components.enumerated().map { index, pieces in
            let isFileName = index == components.count - 1
            let maxBytes = FileNameSanitizer.maxComponentBytes - (isFileName ? reserve : 0)
            var rendered = pieces.map { piece -> (text: String, isField: Bool) in
                switch piece {
                case .text(let text): return (FileNameSanitizer.literal(text), false)
                case .field(let field): return (FileNameSanitizer.field(values[field], fallback: values.fallback(field)), true)
                }
            }
            Self.shortenFields(&rendered, toFit: maxBytes)
            return FileNameSanitizer.component(rendered.map(\.text).joined(), maxBytes: maxBytes)
        }
    }

    /// Shortens the longest fields of a name over `maxBytes` (a long title, then the next
    /// longest), each to no fewer than 16 bytes, so that the rest of the template (a date, the
    /// id, the extension) is kept rather than cut off with the end of the name.
    static func shortenFields(_ pieces: inout [(text: String, isField: Bool)], toFit maxBytes: Int) {
        let shortest = 16
        var excess = pieces.reduce(0) { $0 + $1.text.utf8.count } - maxBytes
        while excess > 0 {
            guard let longest = pieces.indices.filter({ pieces[$0].isField && pieces[$0].text.utf8.count > shortest })
                .max(by: { pieces[$0].text.utf8.count < pieces[$1].text.utf8.count })
            else { return }
            let size = pieces[longest].text.utf8.count
            let kept = FileNameSanitizer.prefix(pieces[longest].text, maxBytes: max(shortest, size - excess))
            excess -= size - kept.utf8.count
            pieces[longest].text = kept
        }
    }
}

/// The values of a template's fields for one photo.
struct NameFields: Sendable {
    var provider: String
    var id: String
    var rawID: String
    var title: String
    var owner: String?
    var date: Date?
    var ext: String

    init(photo: Photo, imageURL: String) {
        provider = photo.provider
        id = photo.id.description
        rawID = photo.id.raw
        title = photo.title
        owner = photo.owner
        date = photo.takenAt ?? photo.uploadedAt
        ext = Self.fileExtension(of: imageURL) ?? "jpg"
    }

    subscript(field: NameTemplate.Field) -> String {
        switch field {
        case .provider: return provider
        case .id: return id
        case .rawID: return rawID
        case .title: return title
        case .owner: return owner ?? ""
        case .date: return date.map(Self.day) ?? ""
        case .ext: return ext
        }
    }

    func fallback(_ field: NameTemplate.Field) -> String {
        switch field {
        case .title: return "untitled"
        case .owner: return "unknown"
        case .date: return "undated"
        case .ext: return "jpg"
        default: return "_"
        }
    }

    /// `2024-01-31`, in UTC.
    static func day(_ date: Date) -> String {
        let components = Self.calendar.dateComponents([.year, .month, .day], from: date)
        guard let year = components.year, let month = components.month, let day = components.day else { return "" }
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : String(value) }
        return "\(year)-\(two(month))-\(two(day))"
    }

    private static let calendar: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(secondsFromGMT: 0) ?? calendar.timeZone
        return calendar
    }()

    /// The image extension the URL's path ends in (`jpeg` as `jpg`); nil for any other.
    static func fileExtension(of url: String) -> String? {
        // The path's last segment, without the query or fragment (no URL parser: this runs for
        // every photo of a save). An ASCII URL is read as bytes, with the same result.
        var bytes = url
        if let known = bytes.withUTF8({ asciiExtension($0) }) { return known }
        return fileExtensionByCharacters(of: url)
    }

    /// ``fileExtension(of:)`` read by Characters: for URLs that are not all ASCII.
    static func fileExtensionByCharacters(of url: String) -> String? {
        let path = url.prefix { $0 != "?" && $0 != "#" }
        guard let dot = path.lastIndex(of: "."), !path[dot...].contains("/"), path.contains("://") else { return nil }
        return imageExtension(path[path.index(after: dot)...].lowercased())
    }

    /// ``fileExtension(of:)`` of an ASCII URL; nil (outside) when the URL is not ASCII.
    private static func asciiExtension(_ bytes: UnsafeBufferPointer<UInt8>) -> String?? {
        var end = 0
        while end < bytes.count, bytes[end] != UInt8(ascii: "?"), bytes[end] != UInt8(ascii: "#") {
            guard bytes[end] < 0x80 else { return nil }
            end += 1
        }
        guard !bytes[end...].contains(where: { $0 >= 0x80 }) else { return nil }
        let path = bytes[..<end]
        guard let dot = path.lastIndex(of: UInt8(ascii: ".")), !path[dot...].contains(UInt8(ascii: "/")) else { return .some(nil) }
        let scheme: [UInt8] = Array("://".utf8)
        guard path.count >= 3, (0...(path.count - 3)).contains(where: { path[$0..<($0 + 3)].elementsEqual(scheme) }) else {
            return .some(nil)
        }
        return .some(imageExtension(String(decoding: path[(dot + 1)...].map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }, as: UTF8.self)))
    }

    /// The extension photos saves for a lowercased URL extension; nil for one that is no image's.
    private static func imageExtension(_ text: String) -> String? {
        switch text {
        case "jpg", "jpeg": return "jpg"
        case "png": return "png"
        case "gif": return "gif"
        case "webp": return "webp"
        default: return nil
        }
    }
}

/// Makes text from providers into file names every common file system accepts.
enum FileNameSanitizer {
    /// The longest file name ext4, XFS, Btrfs, APFS and NTFS (in UTF-16 units) accept, in bytes.
    static let maxComponentBytes = 255

    /// Characters that are not allowed in a name on some file system (`/` anywhere; the rest
    /// on FAT, exFAT, NTFS and SMB shares, where people copy their photos).
    private static let refused: Set<Character> = ["/", "\\", ":", "*", "?", "\"", "<", ">", "|"]

    /// Control characters (C0, DEL, C1), format characters (bidi controls, zero-width
    /// characters, tags) and line or paragraph separators: invisible or able to reorder text.
    static func isInvisible(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .control, .format, .lineSeparator, .paragraphSeparator, .surrogate, .privateUse: return true
        // Letters that show as nothing (Hangul fillers, Khmer's inherent vowels, the combining
        // grapheme joiner): a name of them alone would look blank in a file manager.
        default: return scalar.value == 0x7F || TerminalText.isInvisibleFiller(scalar)
        }
    }

    /// A field's value as part of one component: invisible characters dropped, white space
    /// (tabs, newlines, no-break spaces) as single spaces, refused characters as `_`, leading
    /// and trailing dots and spaces trimmed; `fallback` when nothing is left.
    static func field(_ value: String, fallback: String) -> String {
        if let ascii = asciiField(value) { return ascii.isEmpty ? fallback : ascii }
        return unicodeField(value, fallback: fallback)
    }

    /// ``field(_:fallback:)`` for any text, a Character at a time.
    static func unicodeField(_ value: String, fallback: String) -> String {
        var result = ""
        var pendingSpace = false
        for character in FileNameSanitizer.composed(value) {
            if character.isWhitespace || character.isNewline {
                pendingSpace = !result.isEmpty
                continue
            }
            let cleaned = clean(character)
            guard !cleaned.isEmpty else { continue }
            if pendingSpace { result.append(" ") }
            pendingSpace = false
            result += cleaned
        }
        // No hidden file, no `.` or `..`, nothing Windows would drop. Trimmed by scalars, as
        // Foundation's trimmingCharacters(in:) would, without its cost.
        let scalars = result.unicodeScalars
        let kept: (Unicode.Scalar) -> Bool = { $0 != "." && $0 != " " }
        guard let first = scalars.firstIndex(where: kept), let last = scalars.lastIndex(where: kept) else { return fallback }
        return String(scalars[first...last])
    }

    /// ``field(_:fallback:)`` for ASCII text (most titles, owners and ids), byte by byte: the
    /// same rules without a String per character; nil when `value` is not ASCII. This runs for
    /// every field of every file a save names, a re-run included.
    private static func asciiField(_ value: String) -> String? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(value.utf8.count)
        var pendingSpace = false
        for byte in value.utf8 {
            guard byte < 0x80 else { return nil }
            if isASCIIWhitespace(byte) {
                pendingSpace = !bytes.isEmpty
                continue
            }
            if byte < 0x20 || byte == 0x7F { continue }  // controls are dropped
            if pendingSpace { bytes.append(0x20) }
            pendingSpace = false
            bytes.append(isRefusedASCII(byte) ? 0x5F : byte)
        }
        var start = 0, end = bytes.count
        while start < end, bytes[start] == 0x2E || bytes[start] == 0x20 { start += 1 }
        while end > start, bytes[end - 1] == 0x2E || bytes[end - 1] == 0x20 { end -= 1 }
        return String(decoding: bytes[start..<end], as: UTF8.self)
    }

    /// Tab, line feed, vertical tab, form feed, carriage return and space: the ASCII characters
    /// Swift calls white space or newlines.
    private static func isASCIIWhitespace(_ byte: UInt8) -> Bool {
        (0x09...0x0D).contains(byte) || byte == 0x20
    }

    /// ``refused`` for an ASCII byte.
    private static func isRefusedASCII(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x2F, 0x5C, 0x3A, 0x2A, 0x3F, 0x22, 0x3C, 0x3E, 0x7C: return true  // / \ : * ? " < > |
        default: return false
        }
    }

    /// `text` in Unicode's composed form (NFC), as macOS and most tools expect names; ASCII
    /// text (most names) as it is, without Foundation's work.
    static func composed(_ text: String) -> String {
        text.utf8.allSatisfy { $0 < 0x80 } ? text : text.precomposedStringWithCanonicalMapping
    }

    /// Literal template text: the same characters refused, spaces kept as typed.
    static func literal(_ text: String) -> String {
        if text.utf8.allSatisfy({ $0 < 0x80 }) {
            var bytes: [UInt8] = []
            var previous: UInt8 = 0
            for byte in text.utf8 {
                defer { previous = byte }
                if byte == 0x0A && previous == 0x0D { continue }  // CR LF is one character
                if isASCIIWhitespace(byte) {
                    bytes.append(0x20)
                } else if !(byte < 0x20 || byte == 0x7F) {
                    bytes.append(isRefusedASCII(byte) ? 0x5F : byte)
                }
            }
            return String(decoding: bytes, as: UTF8.self)
        }
        return unicodeLiteral(text)
    }

    /// ``literal(_:)`` for any text, a Character at a time.
    static func unicodeLiteral(_ text: String) -> String {
        composed(text).map(clean).joined()
    }

    private static func clean(_ character: Character) -> String {
        if character.isWhitespace || character.isNewline { return " " }
        if refused.contains(character) { return "_" }
        var text = ""
        text.unicodeScalars.append(contentsOf: character.unicodeScalars.filter { !isInvisible($0) })
        return text
    }

    /// One whole component: no leading dot (no hidden file, never `.` or `..`), no leading or
    /// trailing spaces and dots (Windows drops them), no device name Windows reserves
    /// (`CON`, `nul.txt`, `COM1`...), not ending in `.part` (photos' own partial files), at
    /// most `maxBytes` bytes of UTF-8 cut between characters and keeping the extension.
    static func component(_ text: String, maxBytes: Int = maxComponentBytes) -> String {
        var name = Substring(text)
        while let first = name.first, first == "." || first == " " { name = name.dropFirst() }
        while let last = name.last, last == "." || last == " " { name = name.dropLast() }
        var result = String(name)
        if result.isEmpty { result = "_" }
        if isReservedDeviceName(result) { result = "_" + result }
        // A name a shell would misread: `-rf _.jpg` is an option to `rm *`, and a folder named
        // `~` is the home folder to whoever types its path.
        if result.hasPrefix("-") { result = "_" + result.dropFirst() }
        if result == "~" { result = "_" }
        if result.lowercased().hasSuffix(".part") { result += "_" }
        return fit(result, maxBytes: maxBytes)
    }

    /// `name` cut to `maxBytes` UTF-8 bytes on a character boundary, keeping its extension
    /// (up to 16 bytes after the last dot) when there is one.
    static func fit(_ name: String, maxBytes: Int) -> String {
        guard name.utf8.count > maxBytes else { return name }
        var stem = Substring(name)
        var ext: Substring = ""
        if let dot = name.lastIndex(of: "."), dot != name.startIndex, name.utf8.distance(from: dot, to: name.endIndex) <= 17 {
            stem = name[..<dot]
            ext = name[dot...]
        }
        return prefix(stem, maxBytes: maxBytes - ext.utf8.count) + ext
    }

    /// The longest start of `text` of at most `maxBytes` UTF-8 bytes that ends between two
    /// characters, without trailing spaces or dots; `_` when nothing fits.
    static func prefix(_ text: some StringProtocol, maxBytes: Int) -> String {
        var kept = ""
        var used = 0
        for character in text {
            let size = character.utf8.count
            guard used + size <= maxBytes else { break }
            kept.append(character)
            used += size
        }
        while let last = kept.last, last == "." || last == " " { kept.removeLast() }
        return kept.isEmpty ? "_" : kept
    }

    /// Windows' reserved device names, alone or before an extension: CON, PRN, AUX, NUL,
    /// COM0-9, LPT0-9 (any case).
    static func isReservedDeviceName(_ name: String) -> Bool {
        // Most names: an ASCII stem longer than any reserved name, spaces and tabs aside.
        var letters = 0
        for byte in name.utf8 {
            if byte == 0x2E { break }
            if byte >= 0x80 { letters = 0; break }
            if byte != 0x20 && byte != 0x09 { letters += 1 }
            if letters > 7 { return false }
        }
        let stem = name.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false).first.map { $0.uppercased() } ?? ""
        let trimmed = stem.trimmingWhitespace()
        if ["CON", "PRN", "AUX", "NUL", "CONIN$", "CONOUT$"].contains(trimmed) { return true }
        if trimmed.count == 4, trimmed.hasPrefix("COM") || trimmed.hasPrefix("LPT"), let digit = trimmed.last, digit.isASCII, digit.isNumber {
            return true
        }
        return false
    }
}
