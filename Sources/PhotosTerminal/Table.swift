/// A plain-text table sized to a terminal width. Cells are sanitised and truncated by display
/// width; one column may be flexible and takes the space left.
///
/// On a terminal too narrow for every column, the flexible column keeps at least
/// ``flexibleMinimum`` columns (less when its cells are shorter): the columns that may shrink
/// give up their space first, down to their `minWidth`, then the columns that may go are left
/// out, in their `dropOrder`. The others are kept whole, so a table wider than its terminal is
/// one whose kept columns alone do not fit.
public struct Table {
    public struct Column {
        public var title: String
        /// The most columns this one may take; nil makes it the flexible column.
        public var maxWidth: Int?
        public var alignRight: Bool
        /// How narrow the column may become on a narrow terminal (nil: never narrower than its
        /// cells and `maxWidth` make it).
        public var minWidth: Int?
        /// When the column is left out on a narrow terminal: the lowest first; nil: never.
        public var dropOrder: Int?
        /// A cell wider than the column goes on over the next lines, wrapped at spaces (a word
        /// wider than the column broken where it must), instead of being cut: for values that
        /// are read whole, such as URLs and paths.
        public var wraps: Bool

        public init(
            _ title: String, maxWidth: Int? = nil, alignRight: Bool = false, minWidth: Int? = nil, dropOrder: Int? = nil, wraps: Bool = false
        ) {
            self.title = title
            self.maxWidth = maxWidth
            self.alignRight = alignRight
            self.minWidth = minWidth
            self.dropOrder = dropOrder
            self.wraps = wraps
        }
    }

    /// The narrowest the flexible column is made before others shrink or go.
    public static let flexibleMinimum = 16

    public var columns: [Column]
    public var rows: [[String]] = []

    public init(columns: [Column]) {
        self.columns = columns
    }

    public mutating func append(_ cells: [String]) {
        rows.append(cells.map(TerminalText.sanitize))
    }

    /// Appends cells the caller has made safe to print already, as ``TerminalText/quoted(_:width:)``
    /// does: kept as they are, where sanitising would make a run of spaces one.
    public mutating func append(printable cells: [String]) {
        rows.append(cells)
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
        // Whether any row has something in the column.
        var filled = Array(repeating: false, count: count)
        for row in rows {
            for index in 0..<count {
                let cellWidth = index < row.count ? TerminalText.displayWidth(row[index]) : 0
                cellWidths.append(cellWidth)
                widths[index] = max(widths[index], cellWidth)
                if cellWidth > 0 { filled[index] = true }
            }
        }
        for (index, column) in columns.enumerated() {
            if let maxWidth = column.maxWidth { widths[index] = min(widths[index], maxWidth) }
        }
        var kept = Array(repeating: true, count: count)
        if let flexible = columns.firstIndex(where: { $0.maxWidth == nil }) {
            let wanted = min(widths[flexible], Self.flexibleMinimum)
            func available() -> Int {
                let shown = (0..<count).filter { kept[$0] }
                let fixed = shown.filter { $0 != flexible }.map { widths[$0] }.reduce(0, +)
                return width - fixed - gap * (shown.count - 1)
            }
            // Too narrow: the columns that may shrink give their space first, then those that
            // may go are left out, one after another, the others widened again each time.
            let natural = widths
            func shrink() -> Int {
                for index in 0..<count where index != flexible { widths[index] = natural[index] }
                for index in 0..<count where index != flexible && kept[index] && available() < wanted {
                    if let minWidth = columns[index].minWidth, widths[index] > minWidth {
                        widths[index] = max(minWidth, widths[index] - (wanted - available()))
                    }
                }
                return available()
            }
            var space = shrink()
            // A column with nothing in it goes first: it would show only its title.
            let droppable = (0..<count).filter { columns[$0].dropOrder != nil && $0 != flexible }
                .sorted { (filled[$0] ? 1 : 0, columns[$0].dropOrder ?? 0) < (filled[$1] ? 1 : 0, columns[$1].dropOrder ?? 0) }
            for index in droppable where space < wanted {
                kept[index] = false
                space = shrink()
            }
            widths[flexible] = max(8, min(widths[flexible], space))
        }
        let first = kept.firstIndex(of: true) ?? 0
        let last = kept.lastIndex(of: true) ?? count - 1
        var bytes: [UInt8] = []
        bytes.reserveCapacity((rows.count + 1) * (widths.reduce(0, +) + gap * count + 1))
        func spaces(_ count: Int) {
            if count > 0 { bytes.append(contentsOf: repeatElement(0x20, count: count)) }
        }
        func cell(_ text: String, width cellWidth: Int, index: Int) {
            var text = text
            var used = cellWidth
            if used > widths[index] {
                text = TerminalText.truncate(text, width: widths[index])
                used = TerminalText.displayWidth(text)
            }
            let padding = widths[index] - used
            if index != first { spaces(gap) }
            if columns[index].alignRight { spaces(padding) }
            bytes.append(contentsOf: text.utf8)
            if !columns[index].alignRight && index != last { spaces(padding) }
        }
        for (index, column) in columns.enumerated() where kept[index] {
            cell(column.title, width: TerminalText.displayWidth(column.title), index: index)
        }
        bytes.append(0x0A)
        let wrapping = (0..<count).filter { kept[$0] && columns[$0].wraps }
        for (number, row) in rows.enumerated() {
            let overflowing = wrapping.filter { $0 < row.count && cellWidths[number * count + $0] > widths[$0] }
            if !overflowing.isEmpty {
                // The row over several lines: the wrapped cells' pieces, the others on the first.
                var pieces: [Int: [String]] = [:]
                for index in overflowing { pieces[index] = TerminalText.wrap(row[index], width: widths[index], breakingWords: true) }
                let lines = pieces.values.map(\.count).max() ?? 1
                for line in 0..<lines {
                    for index in 0..<count where kept[index] {
                        let text = pieces[index].map { line < $0.count ? $0[line] : "" } ?? (line == 0 && index < row.count ? row[index] : "")
                        cell(text, width: TerminalText.displayWidth(text), index: index)
                    }
                    // A continuation line ends where its last piece does.
                    while bytes.last == 0x20 { bytes.removeLast() }
                    bytes.append(0x0A)
                }
                continue
            }
            for index in 0..<count where kept[index] {
                cell(index < row.count ? row[index] : "", width: cellWidths[number * count + index], index: index)
            }
            bytes.append(0x0A)
        }
        // A terminal narrower than the narrowest the columns go (some 20 columns): each line is
        // cut at its edge rather than wrapped onto the next.
        let shown = (0..<count).filter { kept[$0] }
        if width > 0, shown.map({ widths[$0] }).reduce(0, +) + gap * max(0, shown.count - 1) > width {
            var clipped: [UInt8] = []
            for line in bytes.split(separator: 0x0A, omittingEmptySubsequences: false).dropLast() {
                clipped += TerminalText.truncate(String(decoding: line, as: UTF8.self), width: width).utf8
                clipped.append(0x0A)
            }
            return clipped
        }
        return bytes
    }
}
