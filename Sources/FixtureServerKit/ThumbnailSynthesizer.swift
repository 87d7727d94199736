/// Synthesizes a distinct, valid, deterministic JPEG for every `/thumbs/<N>.jpg`.
///
/// The base JPEG gets a COM (0xFFFE) segment carrying N and padding, so every thumbnail decodes
/// to the same picture but has its own bytes and size. The segment goes right after SOI, or right
/// after the JFIF APP0 segment when the base has one (JFIF wants APP0 first).
enum ThumbnailSynthesizer {
    static let range = 0...99_999

    /// `N` for paths `/thumbs/<N>.jpg` with N in 0...99999; nil otherwise.
    static func number(fromPath path: String) -> Int? {
        guard path.hasPrefix("/thumbs/"), path.hasSuffix(".jpg") else { return nil }
        let digits = path.dropFirst("/thumbs/".count).dropLast(".jpg".count)
        guard (1...6).contains(digits.count), digits.allSatisfy({ $0.isASCII && $0.isNumber }),
            let number = Int(digits), range.contains(number)
        else { return nil }
        return number
    }

    /// Total size of thumbnail `number`: 5 KiB + (N * 7919 mod 15 KiB), so between 5 and 20 KiB.
    static func size(for number: Int) -> Int {
        5 * 1024 + (number * 7919) % (15 * 1024)
    }

    /// `abc...zabc...`, long enough for any thumbnail padding at any starting letter.
    private static let paddingPattern: [UInt8] = (0..<(65_533 + 26)).map { UInt8(ascii: "a") + UInt8($0 % 26) }

    static func jpeg(number: Int, base: [UInt8]) -> [UInt8] {
        let label = Array("photos-fixture-server thumbnail \(number)\n".utf8)
        // Segment = marker (2) + length (2) + payload; the length field counts itself.
        let wanted = size(for: number) - base.count - 4
        let payloadCount = min(max(wanted, label.count), 65_533)
        let paddingCount = payloadCount - label.count
        let paddingStart = number % 26
        let padding = paddingPattern[paddingStart..<(paddingStart + min(paddingCount, paddingPattern.count - 26))]
        let payload = label + padding
        let segmentLength = payload.count + 2
        let insertAt = insertionOffset(in: base)
        var out: [UInt8] = []
        out.reserveCapacity(base.count + payload.count + 4)
        out.append(contentsOf: base.prefix(insertAt))
        out.append(contentsOf: [0xFF, 0xFE, UInt8(segmentLength >> 8), UInt8(segmentLength & 0xFF)])
        out.append(contentsOf: payload)
        out.append(contentsOf: base.dropFirst(insertAt))
        return out
    }

    /// After SOI (2 bytes), and after an APP0 segment that directly follows it.
    static func insertionOffset(in base: [UInt8]) -> Int {
        guard base.count >= 6, base[2] == 0xFF, base[3] == 0xE0 else { return 2 }
        let end = 4 + (Int(base[4]) << 8 | Int(base[5]))
        return end <= base.count ? end : 2
    }
}
