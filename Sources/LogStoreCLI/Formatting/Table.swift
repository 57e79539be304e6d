/// Aligned columns for the listing commands (`tasks`, `blobs`): widths from the page's own
/// content, a header row, and on a terminal the flexible column (a URL) clipped so that a row
/// fits its width. Cells are measured as plain text in terminal columns (``DisplayWidth``: a CJK
/// character or an emoji takes two) and painted after padding, so colours never count towards a
/// width.
struct Table {
    /// One column: its header, which side it is padded on, and whether it gives up width when
    /// the row is wider than the terminal.
    struct Column {
        var header: String
        var alignment: Alignment = .left
        /// Clipped (with `…`) to fit the terminal; the other columns keep their width.
        var isFlexible = false
    }

    enum Alignment {
        case left, right
    }

    /// A cell: pieces of plain (already escaped) text, each with the paint it gets.
    struct Cell {
        var pieces: [(text: String, paint: (String) -> String)]

        init(_ text: String, paint: @escaping (String) -> String = { $0 }) {
            pieces = [(text, paint)]
        }

        /// The terminal columns the text takes.
        var width: Int { pieces.reduce(0) { $0 + DisplayWidth.of($1.text) } }

        /// Adds a piece (an error after a URL).
        mutating func append(_ text: String, paint: @escaping (String) -> String = { $0 }) {
            pieces.append((text, paint))
        }

        /// The text cut to `width` columns, the last of them `…` when something was cut: cut
        /// between graphemes, and a space before the `…` when a two-column character did not
        /// fit in the last column left, so the cell is exactly `width` columns.
        func clipped(to width: Int) -> Cell {
            guard self.width > width else { return self }
            var result = Cell("")
            result.pieces = []
            var room = max(width - 1, 0)
            for piece in pieces where room > 0 {
                let (kept, keptWidth) = DisplayWidth.prefix(piece.text, fitting: room)
                result.pieces.append((String(kept), piece.paint))
                room -= keptWidth
                if kept.endIndex < piece.text.endIndex { break }
            }
            result.pieces.append((String(repeating: " ", count: room) + "…", { $0 }))
            return result
        }

        func rendered(padding: Int, alignment: Alignment) -> String {
            let painted = pieces.map { $0.paint($0.text) }.joined()
            let spaces = String(repeating: " ", count: max(padding, 0))
            return alignment == .left ? painted + spaces : spaces + painted
        }
    }

    var columns: [Column]
    var rows: [[Cell]] = []
    /// Between two columns.
    static let gap = "  "
    /// A flexible column keeps at least this many columns, however narrow the terminal.
    static let minimumFlexibleWidth = 12

    /// The header (in `headerPaint`, bold on a terminal) and the rows; with `width`, rows wider
    /// than it have their flexible columns clipped. The last column is never padded.
    func lines(width: Int?, headerPaint: @escaping (String) -> String) -> [String] {
        var widths = columns.indices.map { index in
            rows.reduce(DisplayWidth.of(columns[index].header)) { max($0, $1[index].width) }
        }
        if let width {
            let total = widths.reduce(0, +) + Self.gap.count * (columns.count - 1)
            var excess = total - width
            for index in columns.indices.reversed() where excess > 0 && columns[index].isFlexible {
                let cut = min(excess, widths[index] - Self.minimumFlexibleWidth)
                if cut > 0 {
                    widths[index] -= cut
                    excess -= cut
                }
            }
        }
        let header = columns.map { Cell($0.header, paint: headerPaint) }
        return ([header] + rows).map { row in
            row.indices.map { index in
                let cell = row[index].clipped(to: widths[index])
                let isLast = index == row.count - 1
                let padding = isLast && columns[index].alignment == .left ? 0 : widths[index] - cell.width
                return cell.rendered(padding: padding, alignment: columns[index].alignment)
            }.joined(separator: Self.gap)
        }
    }
}
