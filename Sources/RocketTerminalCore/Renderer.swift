import RocketCore

/// How many colours the terminal shows.
public enum ColorDepth: Int, Comparable, Sendable {
    /// No colour (NO_COLOR): bold, dim, underline and inverse still apply.
    case none = 0
    /// The 16 ANSI colours.
    case ansi16 = 1
    /// The xterm 256-colour palette.
    case indexed256 = 2
    /// 24-bit colour.
    case truecolor = 3

    public static func < (a: ColorDepth, b: ColorDepth) -> Bool { a.rawValue < b.rawValue }

    /// The depth a terminal offers, from the environment: `NO_COLOR` (none), `COLORTERM`
    /// (`truecolor`/`24bit`), `TERM` (`*-256color`, `dumb`); `CLICOLOR_FORCE` keeps at least 16
    /// colours where the terminal name alone would give none.
    ///
    /// ```swift
    /// ColorDepth.detect(["TERM": "xterm-256color"])   // .indexed256
    /// ColorDepth.detect(["NO_COLOR": "1"])            // .none
    /// ```
    public static func detect(_ env: [String: String]) -> ColorDepth {
        if let v = env["NO_COLOR"], !v.isEmpty { return .none }
        let term = env["TERM"] ?? ""
        let forced = (env["CLICOLOR_FORCE"].map { !$0.isEmpty && $0 != "0" }) ?? false
        if term == "dumb" || term.isEmpty { return forced ? .ansi16 : .none }
        let colorterm = (env["COLORTERM"] ?? "").lowercased()
        if colorterm == "truecolor" || colorterm == "24bit" { return .truecolor }
        if term.containsText("256color") { return .indexed256 }
        return .ansi16
    }
}

/// Turns screen buffers into the fewest bytes that update an inline region of the terminal.
///
/// The region starts at the cursor's row when the renderer is created and grows downwards;
/// rows that no longer fit scroll into the terminal's scrollback, where the transcript stays
/// after exit. Only cells that changed are written, in one buffer per frame; the SGR state and
/// the cursor are tracked so that typing one character at the cursor costs one byte.
///
/// ```swift
/// var renderer = InlineRenderer(depth: .truecolor)
/// var frame = ScreenBuffer(width: 20)
/// frame.addRow(); frame.put("Hi", row: 0, column: 0)
/// let bytes = renderer.render(frame, screenHeight: 24)   // write these to the terminal
/// ```
public struct InlineRenderer: Sendable {
    /// Colour depth used to encode styles.
    public var depth: ColorDepth
    /// The characters the terminal shows: with ``GlyphSet/ascii`` each cell is written as its
    /// ASCII look-alike, as wide.
    public var glyphs = GlyphSet.unicode
    private var previous: [[Cell]] = []
    private var topOffset = 0  // frame rows scrolled above the region
    private var createdRows = 1  // region rows that exist on screen (reachable without scrolling)
    private var cursorRow = 0  // terminal cursor, relative to the region top
    private var cursorColumn = 0
    private var style = CellStyle()  // the terminal's current SGR state
    private var cursorVisible = true
    private var out: [UInt8] = []
    /// The screen row (0-based) where the region started: from a cursor-position report, which
    /// may arrive after the first frames; after ``invalidate(screenHeight:)`` the row the next
    /// frame's first row is drawn on (negative when it is taller than the screen).
    public var startRow: Int?
    private var baseRows = 1  // rows that existed when the region started
    private var newlines = 0  // growth newlines written since then
    private var anchorBottom = false  // after a resize: the next frame is drawn at the screen's bottom
    private var resizedRows: [[Cell]]?  // after a placed resize or a suspension: the rows that went into the scrollback
    private var placedAbove = 0  // frame rows above the region's first drawn row when it was placed

    /// The frame row under a screen row, once the start row is known: frame row 0 sits at the
    /// start row, less every line the screen has scrolled since (each newline written below the
    /// screen's last row scrolls it by one).
    public func frameRow(forScreenRow row: Int, screenHeight: Int) -> Int? {
        guard let start = startRow else { return nil }
        // The screen row the region's first drawn row was placed on: rows above it (in the
        // scrollback) do not move the screen when the region grows.
        let top = start + placedAbove
        let scrolled = max(0, top + (baseRows - 1) + newlines - (screenHeight - 1))
        return row - (start - scrolled)
    }

    /// The colours for the terminal's background (the originals' palette mapped through it).
    public var theme = TerminalTheme.safe
    private struct ColorPair: Hashable, Sendable {
        var foreground: TermColor
        var background: TermColor
    }
    private var resolved: [ColorPair: (foreground: TermColor, background: TermColor)] = [:]
    private var resolvedFor = TerminalTheme.safe

    /// A renderer whose region starts at the current (fresh) line.
    public init(depth: ColorDepth) {
        self.depth = depth
    }

    /// The bytes that bring the terminal from the last frame to `frame`.
    public mutating func render(_ frame: ScreenBuffer, screenHeight: Int) -> [UInt8] {
        out.removeAll(keepingCapacity: true)
        if anchorBottom {
            anchorBottom = false
            let height = max(1, screenHeight)
            let n = max(1, min(frame.rows.count, height))
            emit("\u{1B}[\(height - n + 1);1H")
            topOffset = max(0, frame.rows.count - height)
            startRow = height - n - topOffset  // frame row 0: above the screen when the frame is taller
            placedAbove = topOffset
            baseRows = n
            createdRows = n
            cursorRow = 0
            cursorColumn = 0
        }
        if let kept = resizedRows {
            // After ``resize(cursorRow:width:screenHeight:)``: the leading rows that went into the
            // scrollback and are the same in this frame are not drawn again.
            resizedRows = nil
            var same = 0
            while same < kept.count, same < frame.rows.count, Self.sameInk(kept[same], frame.rows[same]) { same += 1 }
            topOffset = same
            placedAbove = same
            if let start = startRow { startRow = start - same }
        }
        let height = max(1, screenHeight)
        // Changed cells of the visible rows.
        // Rows top to bottom; a row that is not on screen yet is created first (scrolling the
        // region's top, already drawn, into the scrollback when the screen is full).
        var r = topOffset
        while r < frame.rows.count {
            defer { r += 1 }
            while topOffset + createdRows <= r {
                move(toRow: createdRows - 1, column: cursorRow == createdRows - 1 ? cursorColumn : 0)
                resetStyleIfNeeded()
                emit("\r\n")
                newlines += 1
                createdRows += 1
                cursorRow = createdRows - 1
                cursorColumn = 0
                if createdRows > height {
                    createdRows -= 1
                    cursorRow -= 1
                    topOffset += 1
                }
            }
            let row = frame.rows[r]
            var old: [Cell]? = r < previous.count && previous[r].count == row.count ? previous[r] : nil
            // An unchanged row costs nothing (a row the view reused is the same array: one compare).
            if let old, old == row { continue }
            // Only the row's ink is written: a row drawn for the first time lands on a blank line,
            // and blanks after the ink of a changed row are erased with "erase to end of line"
            // (below) instead of written as spaces. Written spaces are content to the terminal:
            // tmux re-wraps a row by its written length when it narrows, and a row padded with
            // spaces to the full width would wrap, even where its text fits.
            let lastInk = row.lastIndex { isInk($0) } ?? -1
            // A row that got shorter is erased whole and written again: "erase to end of line"
            // leaves the terminal's idea of the row's length as it was (tmux keeps it, and wraps
            // the row by it when the screen narrows), "erase line" does not.
            if let was = old, (was.lastIndex { isInk($0) } ?? -1) > lastInk {
                move(toRow: r - topOffset, column: 0)
                resetStyleIfNeeded()
                emit("\u{1B}[2K")
                old = nil
            }
            var c = 0
            while c <= lastInk {
                if let old, old[c] == row[c] { c += 1; continue }
                var start = c
                while row[start].text.isEmpty && start > 0 { start -= 1 }  // redraw a wide char from its first cell
                // Extend the run over changed cells, bridging unchanged gaps of up to 3 cells
                // (rewriting them is cheaper than moving the cursor).
                func changed(_ k: Int) -> Bool { old.map { $0[k] != row[k] } ?? (k <= lastInk) }
                var end = c + 1
                while true {
                    while end < row.count && changed(end) { end += 1 }
                    var k = end
                    while k < row.count && k < end + 4 && !changed(k) { k += 1 }
                    if k < row.count && k < end + 4 { end = k + 1 } else { break }
                }
                end = min(end, lastInk + 1)
                while end < row.count && row[end].text.isEmpty { end += 1 }  // keep wide chars whole
                move(toRow: r - topOffset, column: start)
                for k in start..<end {
                    let cell = row[k]
                    if cell.text.isEmpty { continue }
                    setStyle(cell.style)
                    if glyphs == .ascii && cell.text.utf8.count > 1 { emit(GlyphSet.ascii(character: cell.text)) } else { emit(cell.text) }
                    cursorColumn += DisplayWidth.of(cell.text)
                    // Terminals disagree on the width of clusters (VS16 emoji, ZWJ sequences, flags):
                    // put the cursor where this layout says the next cell is.
                    if cell.text.unicodeScalars.count > 1 { emit("\u{1B}[\(cursorColumn + 1)G") }
                }
                c = end
            }
            if let old, old[(lastInk + 1)...] != row[(lastInk + 1)...] {
                move(toRow: r - topOffset, column: lastInk + 1)
                resetStyleIfNeeded()
                emit("\u{1B}[K")
            }
        }
        // Rows the frame no longer has: clear them.
        if previous.count > frame.rows.count && frame.rows.count - topOffset < createdRows {
            let firstGone = max(0, frame.rows.count - topOffset)
            move(toRow: firstGone, column: 0)
            resetStyleIfNeeded()
            emit("\u{1B}[J")
        }
        previous = frame.rows
        resetStyleIfNeeded()
        if let cursor = frame.cursor, cursor.row >= topOffset {
            move(toRow: cursor.row - topOffset, column: cursor.column)
            if !cursorVisible { emit("\u{1B}[?25h"); cursorVisible = true }
        } else if cursorVisible {
            emit("\u{1B}[?25l")
            cursorVisible = false
        }
        return out
    }

    /// A resize, placed by where the terminal says the cursor went (a cursor-position report
    /// asked for after the resize): the terminal may have re-wrapped the region's rows (tmux does)
    /// and pushed its first ones into the scrollback. `cursorRow` is the report's 0-based row,
    /// `width` the new width in columns.
    ///
    /// The region's rows are re-wrapped at `width` as the terminal did; those that went above the
    /// screen are in the scrollback and are not drawn again when the next frame starts with the
    /// same rows (so the transcript is not left there twice); the rest of the frame is redrawn in
    /// full from the region's new top, which is erased down to the screen's end (earlier output
    /// above the region stays).
    public mutating func resize(cursorRow reported: Int, width: Int, screenHeight: Int) -> [UInt8] {
        out.removeAll(keepingCapacity: true)
        let width = max(1, width)
        // Rows of the region as the terminal holds them now: each of ours re-wrapped at `width`.
        func lines(_ r: Int) -> Int {
            guard r < previous.count else { return 1 }
            let ink = (previous[r].lastIndex { isInk($0) } ?? -1) + 1
            return max(1, (ink + width - 1) / width)
        }
        // Every row of the frame counts, those in the scrollback too: a terminal that re-wraps
        // re-wraps its history as well, and pulls lines back from it when it widens.
        var above = 0
        for r in 0..<min(previous.count, topOffset + cursorRow) { above += lines(r) }
        above += cursorColumn / width  // the cursor's own row may have wrapped before it
        let top = reported - above  // the region's first row on screen now (negative: pushed up)
        var pushed = max(0, -top)
        var inScrollback = 0
        while pushed > 0 && inScrollback < previous.count {
            pushed -= lines(inScrollback)
            inScrollback += 1
        }
        resetStyleIfNeeded()
        // Erased as in ``invalidate(screenHeight:)``: its first row, then the rows below it, never
        // "erase below" from the home position (tmux copies the screen into its history then).
        let first = max(0, top) + 1
        emit("\u{1B}[\(first);1H\u{1B}[2K\u{1B}[\(first + 1);1H\u{1B}[J\u{1B}[\(first);1H")
        resizedRows = Array(previous.prefix(inScrollback))
        restartRegion(at: max(0, top))
        anchorBottom = false
        return out
    }

    /// Places the region by a cursor-position report asked for where it starts (its 0-based
    /// screen row): ``startRow``, less the frame rows that stayed in the scrollback.
    public mutating func place(reportedRow row: Int) {
        startRow = row - placedAbove
    }

    /// Before the process stops (Ctrl-Z): erases the region's rows on screen and leaves the
    /// cursor where they began, styles reset and the cursor shown, so the shell's lines ("Stopped",
    /// its prompt, `fg`) take the region's place instead of landing inside it. The next frame is
    /// drawn as a new region from wherever the cursor is then; the frame's first rows, already in
    /// the scrollback above, are not drawn again while they are unchanged.
    public mutating func suspend() -> [UInt8] {
        out.removeAll(keepingCapacity: true)
        move(toRow: 0, column: 0)
        resetStyleIfNeeded()
        // The first row, then the rest, as ``invalidate(screenHeight:)`` erases (never "erase
        // below" from the screen's first row: tmux would copy the screen into its history).
        emit("\u{1B}[2K")
        if createdRows > 1 {
            move(toRow: 1, column: 0)
            emit("\u{1B}[J")
            move(toRow: 0, column: 0)
        }
        if !cursorVisible { emit("\u{1B}[?25h"); cursorVisible = true }
        resizedRows = topOffset > 0 ? Array(previous.prefix(topOffset)) : nil
        restartRegion(at: nil)
        anchorBottom = false
        return out
    }

    /// Makes the next frame rewrite every cell in place (the colours changed): nothing is
    /// cleared and the region keeps its place.
    public mutating func repaint() {
        previous = previous.map { row in row.map { _ in Cell("\u{0}") } }
    }

    /// Forgets what is on screen and clears it, for a full redraw after a resize: the region
    /// restarts at the top of the screen.
    public mutating func invalidate(screenHeight: Int) -> [UInt8] {
        out.removeAll(keepingCapacity: true)
        resetStyleIfNeeded()
        // Erase the first row, then from the second to the end, then home: terminals copy the
        // screen into the scrollback on "erase the whole screen" (VTE) and on "erase below" from
        // the home position (tmux), which left a copy of the transcript behind at every resize.
        emit("\u{1B}[H\u{1B}[2K\u{1B}[2;1H\u{1B}[J\u{1B}[H")
        // The next frame is drawn against the bottom of the screen: when a terminal that reflows
        // (tmux) wraps a long row at the next narrowing, the lines it pushes into its history
        // are the blank ones above the frame, not the frame's own.
        previous = []
        resizedRows = nil
        placedAbove = 0
        topOffset = 0
        startRow = 0
        baseRows = max(1, screenHeight)
        newlines = 0
        createdRows = max(1, screenHeight)
        cursorRow = 0
        cursorColumn = 0
        anchorBottom = true
        return out
    }

    /// Writes `lines` where the region starts and moves the region below them: what the visible
    /// rows showed is erased and the next frame is drawn in full under the lines, so the lines
    /// stay in the scrollback above the live area (as a command's output does above a spinner).
    /// The region's start row is unknown afterwards (`startRow` is nil) until it is asked again.
    public mutating func printAbove(_ lines: [String]) -> [UInt8] {
        out.removeAll(keepingCapacity: true)
        guard !lines.isEmpty else { return out }
        move(toRow: 0, column: 0)
        resetStyleIfNeeded()
        emit("\u{1B}[J")
        for line in lines { emit(line + "\r\n") }
        restartRegion(at: nil)
        return out
    }

    /// Forgets the region drawn: the next frame is a new region from the cursor, which stands at
    /// the start of its first row (screen row `start`, nil until a report says).
    private mutating func restartRegion(at start: Int?) {
        previous = []
        topOffset = 0
        createdRows = 1
        cursorRow = 0
        cursorColumn = 0
        startRow = start
        placedAbove = 0
        baseRows = 1
        newlines = 0
    }

    /// Leaves the cursor on a fresh line below the region, styles reset and the cursor shown,
    /// so the transcript stays in the scrollback.
    /// After an empty frame nothing is left: the cursor goes back to where the region started.
    public mutating func finish() -> [UInt8] {
        out.removeAll(keepingCapacity: true)
        let last = max(0, previous.count - topOffset - 1)
        move(toRow: last, column: 0)
        resetStyleIfNeeded()
        if !previous.isEmpty { emit("\r\n") }
        if !cursorVisible { emit("\u{1B}[?25h"); cursorVisible = true }
        return out
    }

    /// Whether two rows show the same cells (of any widths: blank cells after the ink do not count).
    static func sameInk(_ a: [Cell], _ b: [Cell]) -> Bool {
        func end(_ r: [Cell]) -> Int { (r.lastIndex { $0 != .blank } ?? -1) + 1 }
        let n = end(a)
        return n == end(b) && a.prefix(n).elementsEqual(b.prefix(n))
    }

    // MARK: Encoding

    /// Whether a cell shows anything: a space without a visible background, inverse video or
    /// underline is the same on screen as an erased cell.
    private func isInk(_ cell: Cell) -> Bool {
        if cell == .blank { return false }
        if cell.text != " " || cell.style.inverse || cell.style.underline { return true }
        return depth > .none && theme.mapKeepingInk(cell.style.background) != .default
    }

    private mutating func emit(_ s: String) { out.append(contentsOf: s.utf8) }

    private mutating func move(toRow row: Int, column: Int) {
        if row < cursorRow { emit("\u{1B}[\(cursorRow - row)A") } else if row > cursorRow { emit("\u{1B}[\(row - cursorRow)B") }
        cursorRow = row
        if column == cursorColumn { return }
        if column == 0 {
            emit("\r")
        } else if column > cursorColumn {
            emit(column - cursorColumn == 1 ? "\u{1B}[C" : "\u{1B}[\(column - cursorColumn)C")
        } else {
            emit(cursorColumn - column == 1 ? "\u{1B}[D" : "\u{1B}[\(cursorColumn - column)D")
        }
        cursorColumn = column
    }

    private mutating func resetStyleIfNeeded() {
        if style != CellStyle() {
            emit("\u{1B}[0m")
            style = CellStyle()
        }
    }

    private mutating func setStyle(_ new: CellStyle) {
        guard new != style else { return }
        var params: [String] = ["0"]
        if new.bold { params.append("1") }
        if new.dim { params.append("2") }
        if new.italic { params.append("3") }
        if new.underline { params.append("4") }
        if new.inverse { params.append("7") }
        let colors = resolvedColors(new)
        params += InlineRenderer.colorParams(colors.foreground, background: false, depth: depth)
        params += InlineRenderer.colorParams(colors.background, background: true, depth: depth)
        emit("\u{1B}[" + params.joined(separator: ";") + "m")
        style = new
    }

    /// A style's colours through the theme (``TerminalTheme/colors(foreground:background:)``),
    /// remembered per pair of colours while the theme stays the same (the readability search is
    /// not repeated at every style change).
    private mutating func resolvedColors(_ style: CellStyle) -> (foreground: TermColor, background: TermColor) {
        if resolvedFor != theme {
            resolved.removeAll(keepingCapacity: true)
            resolvedFor = theme
        }
        let key = ColorPair(foreground: style.foreground, background: style.background)
        if let hit = resolved[key] { return hit }
        let colors = theme.colors(foreground: style.foreground, background: style.background)
        if resolved.count < 256 { resolved[key] = colors }
        return colors
    }

    /// SGR parameters for a colour at a depth (downsampling truecolour when needed).
    static func colorParams(_ color: TermColor, background: Bool, depth: ColorDepth) -> [String] {
        guard depth > .none else { return [] }
        switch color {
        case .default:
            return []
        case .ansi(let n):
            let base = background ? (n < 8 ? 40 : 92) : (n < 8 ? 30 : 82)
            return [String(base + Int(n))]
        case .indexed(let n):
            if depth >= .indexed256 { return [background ? "48" : "38", "5", String(n)] }
            return colorParams(.ansi(n < 16 ? n : 7), background: background, depth: depth)
        case .rgb(let r, let g, let b):
            switch depth {
            case .truecolor: return [background ? "48" : "38", "2", String(r), String(g), String(b)]
            case .indexed256: return colorParams(.indexed(cubeIndex(r, g, b)), background: background, depth: depth)
            default: return colorParams(.ansi(nearestANSI(r, g, b)), background: background, depth: depth)
            }
        }
    }

    /// The nearest colour of the xterm 6×6×6 cube.
    static func cubeIndex(_ r: UInt8, _ g: UInt8, _ b: UInt8) -> UInt8 {
        func level(_ v: UInt8) -> Int { v < 48 ? 0 : v < 115 ? 1 : (Int(v) - 35) / 40 }
        return UInt8(16 + 36 * level(r) + 6 * level(g) + level(b))
    }

    /// The nearest of the 16 ANSI colours (by a simple brightness and hue split).
    static func nearestANSI(_ r: UInt8, _ g: UInt8, _ b: UInt8) -> UInt8 {
        let bright = max(r, g, b) > 200
        let bits = (r > 100 ? 1 : 0) | (g > 100 ? 2 : 0) | (b > 100 ? 4 : 0)
        return UInt8(bits) + (bright && bits != 0 ? 8 : 0)
    }
}
