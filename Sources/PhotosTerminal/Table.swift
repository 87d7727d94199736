/// A plain-text table sized to a terminal width. Cells are sanitised and truncated by display
/// width; one column may be flexible and takes the space left.
public struct Table {
    public struct Column {
        public var title: String
        /// The most columns this one may take; nil makes it the flexible column.
        public var maxWidth: Int?
        public var alignRight: Bool

        public init(_ title: String, maxWidth: Int? = nil, alignRight: Bool = false) {
            self.title = title
            self.maxWidth = maxWidth
            self.alignRight = alignRight
        }
    }

    public var columns: [Column]
    public var rows: [[String]] = []

    public init(columns: [Column]) {
        self.columns = columns
    }

    public mutating func append(_ cells: [String]) {
        rows.append(cells.map(TerminalText.sanitize))
    }

    /// The table as lines no wider than `width` columns.
    public func render(width: Int, gap: Int = 2) -> String {
        var widths = columns.enumerated().map { index, column in
            let content = rows.map { TerminalText.displayWidth($0[safe: index] ?? "") }.max() ?? 0
            let natural = max(content, TerminalText.displayWidth(column.title))
            return column.maxWidth.map { min(natural, $0) } ?? natural
        }
        if let flexible = columns.firstIndex(where: { $0.maxWidth == nil }) {
            let fixed = widths.enumerated().filter { $0.offset != flexible }.map(\.element).reduce(0, +)
            let available = width - fixed - gap * (columns.count - 1)
            widths[flexible] = max(8, min(widths[flexible], available))
        }
        var lines = [line(columns.map(\.title), widths: widths, gap: gap)]
        for row in rows { lines.append(line(row, widths: widths, gap: gap)) }
        return lines.joined(separator: "\n") + "\n"
    }

    private func line(_ cells: [String], widths: [Int], gap: Int) -> String {
        var parts: [String] = []
        for (index, width) in widths.enumerated() {
            let cell = TerminalText.truncate(cells[safe: index] ?? "", width: width)
            let padding = String(repeating: " ", count: max(0, width - TerminalText.displayWidth(cell)))
            let isLast = index == widths.count - 1
            if columns[index].alignRight {
                parts.append(padding + cell)
            } else {
                parts.append(isLast ? cell : cell + padding)
            }
        }
        return parts.joined(separator: String(repeating: " ", count: gap))
    }
}

extension Array {
    subscript(safe index: Int) -> Element? {
        indices.contains(index) ? self[index] : nil
    }
}
