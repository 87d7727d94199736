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
    ///
    /// Built as bytes in one buffer, each cell's width worked out once: this runs for every row
    /// of a listing, 500 of them for a page read from the cache.
    public func render(width: Int, gap: Int = 2) -> String {
        String(decoding: renderBytes(width: width, gap: gap), as: UTF8.self)
    }

    /// ``render(width:gap:)``'s UTF-8, for output that is written as bytes (no validation pass
    /// over a table of hundreds of rows).
    public func renderBytes(width: Int, gap: Int = 2) -> [UInt8] {
        let count = columns.count
        var cellWidths: [Int] = []
        cellWidths.reserveCapacity(rows.count * count)
        var widths = columns.map { TerminalText.displayWidth($0.title) }
        for row in rows {
            for index in 0..<count {
                let cellWidth = index < row.count ? TerminalText.displayWidth(row[index]) : 0
                cellWidths.append(cellWidth)
                widths[index] = max(widths[index], cellWidth)
            }
        }
        for (index, column) in columns.enumerated() {
            if let maxWidth = column.maxWidth { widths[index] = min(widths[index], maxWidth) }
        }
        if let flexible = columns.firstIndex(where: { $0.maxWidth == nil }) {
            let fixed = widths.enumerated().filter { $0.offset != flexible }.map(\.element).reduce(0, +)
            let available = width - fixed - gap * (count - 1)
            widths[flexible] = max(8, min(widths[flexible], available))
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity((rows.count + 1) * (widths.reduce(0, +) + gap * count + 1))
        func spaces(_ count: Int) {
            for _ in 0..<max(0, count) { bytes.append(0x20) }
        }
        func cell(_ text: String, width cellWidth: Int, index: Int) {
            var text = text
            var used = cellWidth
            if used > widths[index] {
                text = TerminalText.truncate(text, width: widths[index])
                used = TerminalText.displayWidth(text)
            }
            let padding = widths[index] - used
            if index > 0 { spaces(gap) }
            if columns[index].alignRight { spaces(padding) }
            bytes.append(contentsOf: text.utf8)
            if !columns[index].alignRight && index < count - 1 { spaces(padding) }
        }
        for (index, column) in columns.enumerated() {
            cell(column.title, width: TerminalText.displayWidth(column.title), index: index)
        }
        bytes.append(0x0A)
        for (number, row) in rows.enumerated() {
            for index in 0..<count {
                cell(index < row.count ? row[index] : "", width: cellWidths[number * count + index], index: index)
            }
            bytes.append(0x0A)
        }
        return bytes
    }
}
