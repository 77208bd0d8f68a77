import RocketCore
public import RocketReactor
public import RocketText
public import RocketTerminalCore

/// Lays out an alert as terminal cells: a centred box (alert style) or a list at the bottom
/// (action sheet). Destructive actions are red, the cancel action is set apart, disabled ones
/// are dimmed (and skipped by focus); the focused one is inverted.
///
/// ```swift
/// let screen = AlertView(width: 80, strings: .english).layout(title: "Delete?", message: nil,
///     buttons: [("Delete", .destructive, true), ("Cancel", .cancel, true)], style: .alert, focus: 0)
/// ```
public struct AlertView: Sendable {
    /// Drawing width.
    /// The columns to lay out in; at least 16 whatever is assigned (a tiny terminal clips the
    /// frame instead of crashing the layout).
    public var width: Int {
        didSet { if width < 16 { width = 16 } }
    }
    /// Built-in texts.
    public var strings: UIStrings
    /// The rows of the screen (nil: as many as it takes). Actions listed one a row that would
    /// not fit under the title and the message show a window of them that holds the focus.
    public var height: Int?
    /// Where the window of a long list of actions stood in the last frame
    /// (``frame(title:message:buttons:style:focus:)`` moves it only as far as the focus needs).
    public private(set) var listTop = 0

    /// A view.
    public init(width: Int, strings: UIStrings) {
        self.width = max(16, width)
        self.strings = strings
    }

    static let destructive = CellStyle(foreground: .rgb(0xEC, 0x5E, 0x61), bold: true)
    static let normal = CellStyle(foreground: .rgb(0x31, 0x9C, 0xF7), bold: true)
    static let cancel = CellStyle(foreground: .rgb(0x31, 0x9C, 0xF7))
    static let dimStyle: CellStyle = {
        var s = CellStyle(); s.dim = true; return s
    }()

    /// One button as drawn.
    public typealias Item = (title: String, style: AlertActionStyle, isEnabled: Bool)

    /// The style of a button.
    static func style(_ item: Item, focused: Bool) -> CellStyle {
        var s: CellStyle
        switch item.style {
        case .destructive: s = destructive
        case .cancel: s = cancel
        case .default: s = normal
        }
        if !item.isEnabled { s = CellStyle(); s.dim = true }
        if focused && item.isEnabled { s.inverse = true }
        return s
    }

    /// The frame, and for each button index the row and columns it occupies (for clicks).
    public func layout(
        title: String?, message: String?, buttons: [Item], style: AlertStyle, focus: Int?
    ) -> (ScreenBuffer, [Int: (row: Int, columns: Range<Int>)]) {
        let (screen, hits, _) = draw(title: title, message: message, buttons: buttons, style: style, focus: focus)
        return (screen, hits)
    }

    /// ``layout(title:message:buttons:style:focus:)`` for the frames of one alert in turn: a
    /// window of a long list of actions stays where it stood until the focus leaves it.
    public mutating func frame(
        title: String?, message: String?, buttons: [Item], style: AlertStyle, focus: Int?
    ) -> (ScreenBuffer, [Int: (row: Int, columns: Range<Int>)]) {
        let (screen, hits, top) = draw(title: title, message: message, buttons: buttons, style: style, focus: focus)
        listTop = top
        return (screen, hits)
    }

    private func draw(
        title: String?, message: String?, buttons: [Item], style: AlertStyle, focus: Int?
    ) -> (ScreenBuffer, [Int: (row: Int, columns: Range<Int>)], top: Int) {
        var screen = ScreenBuffer(width: width)
        var top = 0
        var hits: [Int: (Int, Range<Int>)] = [:]
        let boxWidth = style == .alert ? min(width - 2, 56) : width - 2
        let inner = boxWidth - 4
        let left = style == .alert ? (width - boxWidth) / 2 : 1
        let border = CellStyle(foreground: .indexed(245))
        func line(_ text: String, style: CellStyle, center: Bool) -> Int {
            let r = screen.addRow()
            screen.put("│", row: r, column: left, style: border)
            let clean = DisplayWidth.truncate(text, to: inner)
            let start = center ? left + 2 + (inner - DisplayWidth.of(clean)) / 2 : left + 2
            screen.put(clean, row: r, column: start, style: style)
            screen.put("│", row: r, column: left + boxWidth - 1, style: border)
            return r
        }
        func rule(_ l: String, _ r: String) {
            let row = screen.addRow()
            screen.put(l + String(repeating: "─", count: boxWidth - 2) + r, row: row, column: left, style: border)
        }
        rule("╭", "╮")
        let center = style == .alert
        if let title, !title.isEmpty {
            for t in TextWrap.wrap(Sanitizer.clean(title), width: inner) { _ = line(t, style: CellStyle(foreground: .default, bold: true), center: center) }
        }
        if let message, !message.isEmpty {
            for t in TextWrap.wrap(Sanitizer.clean(message), width: inner) { _ = line(t, style: CellStyle(), center: center) }
        }
        // Cancel set apart: the other buttons first (in state order), then a rule, then cancel.
        let order = Self.drawingOrder(buttons)
        // Disabled actions are dimmed and, for terminals without attributes, in parentheses.
        // Too long a title ends in an ellipsis inside its parentheses: brackets are never cut.
        let labels = buttons.map { b in
            b.isEnabled
                ? DisplayWidth.truncate(Sanitizer.clean(b.title, keepNewlines: false), to: inner)
                : "(" + DisplayWidth.truncate(Sanitizer.clean(b.title, keepNewlines: false), to: max(1, inner - 2)) + ")"
        }
        // Buttons in a row are two columns apart, as the conversation's are.
        let gap = 2
        let rowWidth = order.map { DisplayWidth.of(labels[$0]) + 4 }.reduce(0, +) + gap * max(0, order.count - 1)
        if style == .alert && rowWidth <= inner && buttons.count <= 3 {
            rule("├", "┤")
            let r = screen.addRow()
            screen.put("│", row: r, column: left, style: border)
            screen.put("│", row: r, column: left + boxWidth - 1, style: border)
            var col = left + 2 + (inner - rowWidth) / 2
            for i in order {
                let label = "[ " + labels[i] + " ]"
                let end = screen.put(label, row: r, column: col, style: Self.style(buttons[i], focused: focus == i))
                hits[i] = (r, col..<end)
                col = end + gap
            }
        } else {
            rule("├", "┤")
            // Under the list: the cancel action's rule, the box's bottom and the key hint.
            let separating = order.count > 1 && buttons[order.last ?? 0].style == .cancel && buttons[order[0]].style != .cancel
            let room = height.map { $0 - screen.rows.count - (separating ? 1 : 0) - 2 } ?? order.count
            var shown = 0..<order.count
            if order.count > room {
                // A row over the window and one under it say how many actions are out of sight.
                shown = ListWindow.visible(count: order.count, focus: focus.flatMap { order.firstIndex(of: $0) } ?? 0, rows: room - 2, top: listTop)
                top = shown.lowerBound
            }
            func more(_ n: Int, above: Bool) {
                guard shown.count < order.count else { return }
                _ = line(n > 0 ? strings.outOfSight(n, above: above) : "", style: Self.dimStyle, center: true)
            }
            more(shown.lowerBound, above: true)
            var separated = false
            for (k, i) in order.enumerated() where shown.contains(k) {
                if buttons[i].style == .cancel && !separated && order.first != i { rule("├", "┤"); separated = true }
                let r = line(labels[i], style: Self.style(buttons[i], focused: focus == i), center: true)
                hits[i] = (r, (left + 1)..<(left + boxWidth - 1))
            }
            more(order.count - shown.upperBound, above: false)
        }
        rule("╰", "╯")
        let hint = screen.addRow()
        // At narrow widths the hint keeps the items that fit whole.
        let text = HintLine.fit(strings.alertHint.splitting(at: " · ").map(String.init), width: width, separator: " · ")
        screen.put(text, row: hint, column: max(0, left + (boxWidth - DisplayWidth.of(text)) / 2), style: Self.dimStyle)
        return (screen, hits.mapValues { (row: $0.0, columns: $0.1) }, top)
    }

    /// The next enabled button from `index` in `step` direction (drawing order), or nil.
    /// Where focus starts: the first enabled action that is neither destructive nor cancel, else
    /// the cancel action, else any enabled one, so that a single Enter never destroys by itself.
    public static func initialFocus(buttons: [Item]) -> Int? {
        if let safe = buttons.indices.first(where: { buttons[$0].isEnabled && buttons[$0].style == .default }) { return safe }
        if let cancel = buttons.indices.first(where: { buttons[$0].isEnabled && buttons[$0].style == .cancel }) { return cancel }
        return buttons.indices.first { buttons[$0].isEnabled }
    }

    /// The buttons' indices in the order they are drawn: the cancel action last, set apart.
    static func drawingOrder(_ buttons: [Item]) -> [Int] {
        buttons.indices.filter { buttons[$0].style != .cancel } + buttons.indices.filter { buttons[$0].style == .cancel }
    }

    /// The next enabled action from `index` in drawing order (cancel last), `step` ±1.
    public static func nextFocus(from index: Int?, step: Int, buttons: [Item]) -> Int? {
        let order = drawingOrder(buttons)
        let enabled = order.filter { buttons[$0].isEnabled }
        guard !enabled.isEmpty else { return nil }
        guard let index, let at = enabled.firstIndex(of: index) else { return enabled.first }
        return enabled[(at + step + enabled.count) % enabled.count]
    }
}
