import RocketConversation
public import RocketBanners
public import RocketCore
public import RocketText
public import RocketTerminalCore

/// Draws a banner as rows of cells across the terminal: its background colour, the icon, the
/// bold title over up to two subtitle lines, buttons on the right on a darker shade (the
/// original's look), a close "X", and a key hint where the original had its swipe pill. The
/// entrance is animated by revealing rows: a slide, a drop that overshoots by a row and settles,
/// or a snap.
///
/// ```swift
/// let rows = BannerView(width: 80, strings: .english).rows(for: showing, at: now, focus: 0)
/// ```
public struct BannerView: Sendable {
    /// Columns.
    /// The columns to lay out in; at least 10 whatever is assigned (a tiny terminal clips the
    /// frame instead of crashing the layout).
    public var width: Int {
        didSet { if width < 10 { width = 10 } }
    }
    /// Built-in texts.
    public var strings: UIStrings
    /// Draw every frame of an animation as if it had finished (reduced motion, plain mode).
    public var reducedMotion = false
    /// Key hints to show (different in `rocket banner` and during `rocket play`).
    public var hint: String?
    /// Decoded icon pictures by cache key.
    public var images: [String: TerminalImage] = [:]

    /// A view.
    public init(width: Int, strings: UIStrings) {
        self.width = max(10, width)
        self.strings = strings
    }

    /// The default background when a banner has none (MPGNotification's demo blue).
    public static let defaultBackground = RocketColor(r8: 0x31, g8: 0x9C, b8: 0xF7)

    static func color(_ c: RocketColor) -> TermColor {
        let (r, g, b) = c.rgb8
        return .rgb(r, g, b)
    }

    /// The buttons' labels and columns, and whether they sit on the title row (they leave the
    /// title at least half the width) or on a row of their own (narrow terminals). On their own row
    /// too long labels end in an ellipsis inside the button, so every button is shown.
    func buttonLayout(for banner: Banner) -> (onTitleRow: Bool, items: [(label: String, columns: Range<Int>, tag: BannerTag)]) {
        let items = banner.buttons.items
        guard !items.isEmpty else { return (true, []) }
        var labels = items.map { $0.tag == .close ? "✕" : Sanitizer.clean($0.title, keepNewlines: false) }
        let total = labels.map { DisplayWidth.of($0) + 2 }.reduce(0, +) + labels.count - 1
        let onTitleRow = width - 1 - total >= max(12, width / 2)
        if !onTitleRow && total > width - 2 {
            let each = max(1, (width - 2 - (labels.count - 1)) / labels.count - 2)
            labels = labels.map { DisplayWidth.truncate($0, to: each) }
        }
        var col = width - 1
        var out: [(String, Range<Int>, BannerTag)] = []
        for (label, item) in zip(labels, items).reversed() {
            let text = " " + label + " "
            let w = DisplayWidth.of(text)
            col -= w
            out.append((text, max(0, col)..<max(0, col + w), item.tag))
            col -= 1
        }
        return (onTitleRow, out.reversed())
    }

    /// The number of subtitle rows a banner shows (at most two).
    func subtitleRows(for banner: Banner, available: Int) -> Int {
        guard let subtitle = banner.subtitle, !subtitle.isEmpty else { return 0 }
        return min(2, TextWrap.wrap(Sanitizer.clean(subtitle), width: available).count)
    }

    /// Where each button is, for mouse clicks: the row (0 is the title row), columns and the tag.
    public func buttonColumns(for banner: Banner) -> [(row: Int, columns: Range<Int>, tag: BannerTag)] {
        let layout = buttonLayout(for: banner)
        let row = layout.onTitleRow ? 0 : 1 + subtitleRows(for: banner, available: textGeometry(for: banner, layout: layout).available)
        return layout.items.map { (row, $0.columns, $0.tag) }
    }

    /// The content column, where the title starts (after the icon) and the room for the title
    /// and subtitle, for a button layout.
    func textGeometry(
        for banner: Banner, layout: (onTitleRow: Bool, items: [(label: String, columns: Range<Int>, tag: BannerTag)])
    ) -> (left: Int, textLeft: Int, available: Int) {
        let buttonsStart = layout.onTitleRow ? (layout.items.first?.columns.lowerBound ?? width) : width
        // The content column: centred, at most 64 cells, unless full width.
        let contentWidth = banner.fullWidthMessages ? buttonsStart - 2 : min(64, buttonsStart - 2)
        let left = banner.fullWidthMessages ? 1 : max(1, (buttonsStart - contentWidth) / 2)
        var textLeft = left
        switch banner.icon {
        case .text(let t)?: textLeft = left + DisplayWidth.of(Sanitizer.clean(t, keepNewlines: false)) + 2
        case .image(let img)?: if images[img.cacheKey] != nil { textLeft = left + 4 }
        case nil: break
        }
        return (left, textLeft, max(4, left + contentWidth - textLeft))
    }

    /// The full-size rows of a banner, with the focused button (an index into its buttons) marked.
    public func fullRows(for banner: Banner, focus: Int?) -> [[Cell]] {
        let background = Self.color(banner.backgroundColor ?? Self.defaultBackground)
        var base = CellStyle()
        base.background = background
        func blankRow() -> [Cell] { Array(repeating: Cell(" ", style: base), count: width) }
        var rows: [[Cell]] = []
        let layout = buttonLayout(for: banner)
        let (left, textLeft, available) = textGeometry(for: banner, layout: layout)
        var screen = ScreenBuffer(width: width)
        func row() -> Int {
            let r = screen.addRow()
            screen.rows[r] = blankRow()
            return r
        }
        let titleRow = row()
        if let icon = banner.icon {
            switch icon {
            case .text(let t):
                screen.put(Sanitizer.clean(t, keepNewlines: false), row: titleRow, column: left, style: base)
            case .image(let img):
                if let picture = images[img.cacheKey] {
                    let cells = picture.cells(columns: 2, rows: 1, style: .square)[0]
                    for (x, cell) in cells.enumerated() {
                        var c = cell; if c.style.background == .default { c.style.background = background }; screen.rows[titleRow][left + x] = c
                    }

                }
            }
        }
        var titleStyle = base
        titleStyle.foreground = Self.color(banner.titleColor)
        titleStyle.bold = true
        screen.put(
            DisplayWidth.truncate(Sanitizer.clean(banner.title, keepNewlines: false), to: available), row: titleRow, column: textLeft, style: titleStyle)
        if let subtitle = banner.subtitle, !subtitle.isEmpty {
            var subStyle = base
            subStyle.foreground = Self.color(banner.subtitleColor)
            let lines = TextWrap.wrap(Sanitizer.clean(subtitle), width: available)
            for (k, line) in lines.prefix(2).enumerated() {
                let r = row()
                let text = k == 1 && lines.count > 2 ? DisplayWidth.prefix(line, fitting: available - 1) + "…" : line
                screen.put(text, row: r, column: textLeft, style: subStyle)
            }
        }
        // Buttons on the title row (or their own row when narrow), on the darker shade; the focused one inverted.
        let darker = Self.color(Banner.darker(banner.backgroundColor ?? Self.defaultBackground))
        let buttonRow = layout.items.isEmpty || layout.onTitleRow ? titleRow : row()
        for (k, b) in layout.items.enumerated() {
            var style = CellStyle(foreground: .rgb(255, 255, 255), bold: true)
            style.background = darker
            if focus == k { style.inverse = true }
            screen.put(b.label, row: buttonRow, column: b.columns.lowerBound, style: style)
        }
        if let hint {
            let r = row()
            var hintStyle = base
            hintStyle.foreground = Self.color(banner.subtitleColor)
            hintStyle.dim = true
            // Whole items only: a hint is never cut mid-word.
            let text = HintLine.fit(hint.splitting(at: " · ").map(String.init), width: width - 2, separator: " · ")
            screen.put(text, row: r, column: max(1, (width - DisplayWidth.of(text)) / 2), style: hintStyle)
        }
        rows = screen.rows
        return rows
    }

    /// The rows to draw at `now`, animation included.
    public func rows(for showing: BannerQueue.Showing, at now: Double, focus: Int?) -> [[Cell]] {
        let full = fullRows(for: showing.banner, focus: focus)
        let p = reducedMotion ? 1 : showing.progress(at: now)
        if p >= 1 { return full }
        switch showing.banner.animationType {
        case .snap:
            return p > 0.4 ? full : []
        case .linear:
            let n = Int((Double(full.count) * p).rounded(.up))
            return Array(full.suffix(n))
        case .drop:
            // Falls fast, overshoots by one blank row, then settles.
            if p < 0.5 { return Array(full.suffix(Int((Double(full.count) * p * 2).rounded(.up)))) }
            if p < 0.8 { return full + [Array(repeating: Cell(" "), count: width)] }
            return full
        }
    }
}
