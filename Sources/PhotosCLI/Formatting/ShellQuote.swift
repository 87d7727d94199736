/// Quotes a word for a POSIX shell, so printed commands can be pasted back.
enum ShellQuote {
    static func quote(_ word: String) -> String {
        let safe = word.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "-_.,:/@=".contains($0)) }
        if safe && !word.isEmpty { return word }
        return "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}
