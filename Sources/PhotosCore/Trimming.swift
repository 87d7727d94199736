import Foundation

extension String {
    /// `trimmingCharacters(in: .whitespaces)`, answered without Foundation when the text starts
    /// and ends with visible ASCII: the usual case for ids, numbers and header values, read per
    /// photo and per file.
    public func trimmingWhitespace() -> String {
        hasVisibleASCIIEnds ? self : trimmingCharacters(in: .whitespaces)
    }

    /// `trimmingCharacters(in: .whitespacesAndNewlines)`, with the same shortcut.
    public func trimmingWhitespaceAndNewlines() -> String {
        hasVisibleASCIIEnds ? self : trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Whether the first and last bytes are ASCII from `!` to `~`: neither is, or begins, a
    /// character of Foundation's whitespace or newline sets.
    private var hasVisibleASCIIEnds: Bool {
        guard let first = utf8.first, let last = utf8.last else { return false }
        return (0x21...0x7E).contains(first) && (0x21...0x7E).contains(last)
    }
}
