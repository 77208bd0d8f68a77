/// A terminal colour: the default, one of the 16 ANSI colours, a 256-colour index, or truecolour.
public enum TermColor: Hashable, Sendable {
    case `default`
    case ansi(UInt8)
    case indexed(UInt8)
    case rgb(UInt8, UInt8, UInt8)
}

/// How a cell is drawn.
///
/// ```swift
/// var style = CellStyle()
/// style.bold = true
/// style.foreground = .rgb(0x31, 0x9C, 0xF7)
/// ```
public struct CellStyle: Hashable, Sendable {
    /// Text colour.
    public var foreground: TermColor = .default
    /// Cell colour.
    public var background: TermColor = .default
    /// Bold (SGR 1).
    public var bold = false
    /// Dim (SGR 2).
    public var dim = false
    /// Italic (SGR 3).
    public var italic = false
    /// Underlined (SGR 4).
    public var underline = false
    /// Inverse video (SGR 7).
    public var inverse = false

    /// The plain style.
    public init() {}

    /// A style with a foreground colour and optional bold.
    public init(foreground: TermColor, bold: Bool = false) {
        self.foreground = foreground
        self.bold = bold
    }
}

/// One screen cell: a grapheme cluster and its style. A wide character occupies its cell and
/// a following continuation cell whose `text` is empty.
public struct Cell: Hashable, Sendable {
    /// The grapheme drawn here; "" for the right half of a wide character.
    public var text: String
    /// The style.
    public var style: CellStyle

    /// A cell.
    public init(_ text: String = " ", style: CellStyle = CellStyle()) {
        self.text = text
        self.style = style
    }

    /// A blank cell.
    public static let blank = Cell()
}

/// A grid of cells: what a front end wants on screen, independent of how it is written.
///
/// ```swift
/// var screen = ScreenBuffer(width: 10, height: 2)
/// screen.put("界a", row: 0, column: 0)
/// screen.rowText(0)   // "界a       "
/// ```
public struct ScreenBuffer: Hashable, Sendable {
    /// Columns.
    public private(set) var width: Int
    /// Rows.
    public var rows: [[Cell]]
    /// Where the terminal cursor should be, or nil to hide it.
    public var cursor: (row: Int, column: Int)? {
        get { cursorRow.map { ($0, cursorColumn) } }
        set { cursorRow = newValue?.row; cursorColumn = newValue?.column ?? 0 }
    }
    private var cursorRow: Int?
    private var cursorColumn = 0

    /// An empty buffer.
    public init(width: Int, height: Int = 0) {
        self.width = max(1, width)
        self.rows = Array(repeating: Array(repeating: .blank, count: max(1, width)), count: max(0, height))
    }

    /// The buffer cut to `columns` (at least 1) when it is wider: views have a smallest width
    /// they lay out at, and the terminal may be narrower still, so every row is cut to fit (a
    /// wide character cut in two becomes a space) and the cursor kept inside.
    public func cropped(toWidth columns: Int) -> ScreenBuffer {
        let columns = max(1, columns)
        guard width > columns else { return self }
        var out = ScreenBuffer(width: columns)
        out.rows = rows.map { row in
            var cut = Array(row.prefix(columns))
            // A wide character whose continuation is cut off: a space in its style.
            var k = columns - 1
            while k > 0 && cut[k].text.isEmpty { k -= 1 }
            if !cut[k].text.isEmpty, DisplayWidth.of(cut[k].text) > columns - k { cut[k] = Cell(" ", style: cut[k].style) }
            return cut
        }
        if let c = cursor { out.cursor = (c.row, min(c.column, columns - 1)) }
        return out
    }

    /// Appends a blank row and returns its index.
    @discardableResult
    public mutating func addRow() -> Int {
        rows.append(Array(repeating: .blank, count: width))
        return rows.count - 1
    }

    /// Writes text from a column, clipping at the right edge (a wide character that would be cut
    /// is replaced by a space). Returns the column after the last cell written.
    @discardableResult
    public mutating func put(_ text: String, row: Int, column: Int, style: CellStyle = CellStyle()) -> Int {
        guard rows.indices.contains(row) else { return column }
        var col = max(0, column)
        // Printable ASCII (most of what is drawn): a cell per byte, no grapheme breaking.
        if text.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) {
            for byte in text.utf8 {
                guard col < width else { return width }
                rows[row][col] = Cell(String(Unicode.Scalar(byte)), style: style)
                col += 1
            }
            return col
        }
        for ch in text {
            let w = DisplayWidth.of(ch)
            if w == 0 { continue }
            if col + w > width {
                if col < width { rows[row][col] = Cell(" ", style: style) }
                return width
            }
            rows[row][col] = Cell(String(ch), style: style)
            for k in 1..<w { rows[row][col + k] = Cell("", style: style) }  // continuation cells
            col += w
        }
        return col
    }

    /// Fills a range of a row with a style (keeping the text).
    public mutating func paint(row: Int, from: Int, to: Int, style: CellStyle) {
        guard rows.indices.contains(row) else { return }
        for c in max(0, from)..<min(width, max(from, to)) { rows[row][c].style = style }
    }

    /// The text of a row (continuation cells skipped), for tests.
    public func rowText(_ row: Int) -> String {
        rows[row].map(\.text).joined()
    }

    /// The text of every row, trailing spaces trimmed, for golden tests.
    public var lines: [String] {
        rows.indices.map { i in
            var s = rowText(i)
            while s.hasSuffix(" ") { s.removeLast() }
            return s
        }
    }

    public static func == (a: ScreenBuffer, b: ScreenBuffer) -> Bool {
        a.width == b.width && a.rows == b.rows && a.cursorRow == b.cursorRow && a.cursorColumn == b.cursorColumn
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(width)
        hasher.combine(rows)
    }
}
