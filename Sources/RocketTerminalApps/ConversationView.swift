public import RocketConversation
import RocketCore
public import RocketText
public import RocketTerminalCore

/// The front end's own state beside the conversation: which button has focus, the text being
/// typed, the last validation message.
///
/// ```swift
/// var ui = ConversationUI()
/// ui.editor.insert("Ada")
/// ```
public struct ConversationUI: Hashable, Sendable {
    /// The focused button of the interactive block (0 = left/first).
    public var focus = 0
    /// The text input's editor.
    public var editor = LineEditor()
    /// The validation message shown under the input.
    public var error: String?
    /// The index of the block the editor and focus belong to (reset when it changes).
    public var blockIndex: Int?
    /// The options ticked in a multiple choice.
    public var ticked: Set<Int> = []
    /// True once a key picked a rating's value: until then nothing is picked and Enter sends
    /// nothing, so no answer is given by accident (the browser's radios start unpicked too).
    public var ratingPicked = false
    /// True when a rating was sent (Enter, Space) before a value was picked: the view says to
    /// pick one, until a key picks it.
    public var ratingAsked = false
    /// The digits just typed on a rating and when (the host's clock): digits typed within
    /// ``KeyController/digitPause`` of each other make one number, so "1" then "0" picks 10.
    public var ratingDigits = ""
    /// When the last of ``ratingDigits`` was typed.
    public var ratingDigitsAt: Double?
    /// The local day (`YYYY-MM-DD`) ↑ or ↓ start from in an empty date input; nil: the input's
    /// bounds, else nothing to start from.
    public var today: String?
    /// The local time (`HH:MM`) ↑ or ↓ start from in an empty time input; nil: the input's
    /// bounds, else nothing to start from.
    public var timeOfDay: String?
    /// How far PgUp/PgDn move the focus in a list of options: the rows of its window as last
    /// drawn on a screen too short for it (`ConversationLayoutCache`), else 10.
    public var page = 10
    /// The conversation's time as the host last drew it: the day the hint of an empty date
    /// field counts bounds such as `today+1d` from (`Conversation.fieldHint(at:now:)`); nil
    /// leaves such bounds out of it.
    public var now: Double?

    /// A fresh state.
    public init() {}
}

/// The rows of a conversation's transcript items as last laid out, by item and by what their
/// drawing depends on (its place, the badge, its pressed, chosen or fired state), for one width
/// and one set of pictures: ``ConversationView/layout(_:ui:cache:)`` reuses them.
public struct ConversationLayoutCache: Sendable {
    struct Key: Hashable, Sendable {
        var position: Int
        var node: Int
        var textLength: Int
        var badge: Bool
        var pressed: Int
        var chosen: Int
        var fired: Bool
    }
    var rows: [Key: [[Cell]]] = [:]
    var hints: [Int: [Cell]] = [:]
    /// The options shown of each list longer than the screen, by block index: the window moves
    /// only as far as the focus needs, and PgUp/PgDn move the focus by its rows.
    package var lists: [Int: Range<Int>] = [:]
    private var width = -1
    private var images = -1

    /// An empty cache.
    public init() {}

    private var items = 0

    /// Forgets everything when the width or the pictures changed, or the transcript shrank.
    mutating func prepare(width: Int, images: Int, items: Int) {
        if width != self.width || images != self.images || items < self.items {
            rows.removeAll(keepingCapacity: true)
            hints.removeAll()
            self.width = width
            self.images = images
        }
        self.items = items
    }
}

/// Lays a conversation out as a screen buffer: author badge, word-wrapped bubbles, the user's
/// replies on the right, buttons, the input field with its cursor, a typing indicator and the
/// key hints. Pure: same input, same cells.
///
/// ```swift
/// let view = ConversationView(width: 60, author: rocket.author, closeTitle: "Close", strings: .english)
/// let (screen, hits) = view.layout(rocket.conversation, ui: ui)
/// ```
public struct ConversationView: Sendable {
    /// Drawing width in columns (the terminal width minus one, so nothing writes the last column).
    /// The columns to lay out in; at least 12 whatever is assigned (a tiny terminal clips the
    /// frame instead of crashing the layout).
    public var width: Int {
        didSet { if width < 12 { width = 12 } }
    }
    /// The speaker.
    public var author: RocketAuthor
    /// The close button's title, shown in the hint line.
    public var closeTitle: String?
    /// Built-in texts.
    public var strings: UIStrings
    /// Decoded pictures by file path (the session loads them; missing ones fall back to text).
    public var images: [String: TerminalImage] = [:]
    /// Draw pictures as half-block cells (false without colour: text fallback).
    public var drawsImages = true
    /// The rows of the screen the frame is drawn on (nil: as many as it takes). A list of
    /// options that would not fit under its question shows a window of them that holds the
    /// focus, since a frame taller than the screen is drawn from its bottom.
    public var height: Int?
    /// The tallest picture, in rows (the original drew 140 pt).
    public static let imageRows = TerminalImage.tallestRows

    /// Creates a view.
    public init(width: Int, author: RocketAuthor, closeTitle: String?, strings: UIStrings) {
        self.width = max(12, width)
        self.author = author
        self.closeTitle = closeTitle
        self.strings = strings
    }

    static let gutter = 4
    /// The most rows a multi-line input shows at once (it scrolls to keep the cursor in view).
    static let multilineRows = 8
    static let border = CellStyle(foreground: .indexed(245))
    static let dim: CellStyle = {
        var s = CellStyle(); s.dim = true; return s
    }()
    static let errorStyle = CellStyle(foreground: .rgb(0xEC, 0x5E, 0x61), bold: false)
    static let replyStyle = CellStyle(foreground: .rgb(0x31, 0x9C, 0xF7))

    /// The terminal style of a RocketFont: its colour, bold for semibold and heavier.
    public static func style(for font: RocketFont?) -> CellStyle {
        guard let font else { return CellStyle() }
        let (r, g, b) = font.color.rgb8
        return CellStyle(foreground: .rgb(r, g, b), bold: font.font.weight.isBold)
    }

    /// A conversation without an author (a prompt: no name, no picture) shows no badge.
    var showsBadge: Bool { !author.name.isEmpty || author.image != nil }

    var badgeStyle: CellStyle {
        guard showsBadge else { return CellStyle() }
        var s = CellStyle(foreground: .rgb(255, 255, 255), bold: true)
        s.background = .rgb(0x31, 0x9C, 0xF7)
        return s
    }

    var badgeText: String {
        guard showsBadge else { return "  " }
        let initial = Sanitizer.clean(author.name, keepNewlines: false).first.map { String($0) } ?? "R"
        return DisplayWidth.of(initial) == 2 ? initial : " \(initial)"
    }

    /// The frame and the clickable regions.
    public func layout(_ c: Conversation, ui: ConversationUI) -> (ScreenBuffer, [HitRegion<RocketIntent>]) {
        var cache = ConversationLayoutCache()
        return layout(c, ui: ui, cache: &cache)
    }

    /// The frame and the clickable regions, reusing the rows of transcript items that have not
    /// changed since the last frame (a typed key then lays out only the input and the hint).
    public func layout(_ c: Conversation, ui: ConversationUI, cache: inout ConversationLayoutCache) -> (ScreenBuffer, [HitRegion<RocketIntent>]) {
        cache.prepare(width: width, images: drawsImages ? images.count : -1, items: c.transcript.count)
        var screen = ScreenBuffer(width: width)
        var hits: [HitRegion<RocketIntent>] = []
        var cursor: (row: Int, column: Int)?
        let interactive = c.interactiveIndex
        let bubbleMax = max(8, min(width - ConversationView.gutter - 4, 72))
        if drawsImages, let avatarImage = author.image, let avatar = images[avatarImage.cacheKey], !c.transcript.isEmpty {
            let size = avatar.fit(maxColumns: 8, maxRows: 3)
            let rows = avatar.cells(columns: size.columns, rows: size.rows, style: author.style)
            for (k, cells) in rows.enumerated() {
                let r = screen.addRow()
                for (x, cell) in cells.enumerated() where x < width { screen.rows[r][x] = cell }
                if k == rows.count / 2 {
                    screen.put(
                        Sanitizer.clean(author.name, keepNewlines: false), row: r, column: size.columns + 2,
                        style: CellStyle(foreground: .default, bold: true))
                }
            }
        }
        // The author's badge marks the first bubble of each run of the author's bubbles (at the
        // start, and after each of the user's replies), not every bubble.
        var badgeDue = true
        for (position, item) in c.transcript.enumerated() {
            switch item {
            case .block(let index, let id, let text):
                let active = interactive == index
                // A block that is not the one in use draws the same until its state changes.
                let key = ConversationLayoutCache.Key(
                    position: position, node: id.rawValue, textLength: text.utf8.count, badge: badgeDue,
                    pressed: c.pressedSide[index].map { $0 == .left ? 1 : 2 } ?? 0,
                    chosen: c.chosenSets[index].map { $0.reduce(0) { $0 &* 131 &+ $1 &+ 1 } } ?? c.chosenOptions[index] ?? -1,
                    fired: c.hasFired(index))
                if !active, let rows = cache.rows[key] {
                    screen.rows += rows
                } else if active, case .textInput = c.graph[id].content, !text.isEmpty {
                    // The input in use: its question's bubble does not change while typing.
                    var question = key
                    question.pressed = -1
                    let asked = screen.rows.count
                    if let rows = cache.rows[question] {
                        screen.rows += rows
                    } else {
                        let before = screen.rows.count
                        drawBlock(
                            c.graph[id], index: index, text: Sanitizer.clean(text), conversation: c, ui: ui,
                            active: false, badge: badgeDue, bubbleMax: bubbleMax, into: &screen, hits: &hits, cursor: &cursor, lists: &cache.lists)
                        cache.rows[question] = Array(screen.rows[before...])
                    }
                    drawBlock(
                        c.graph[id], index: index, text: "", conversation: c, ui: ui,
                        active: true, badge: badgeDue, bubbleMax: bubbleMax, into: &screen, hits: &hits, cursor: &cursor, lists: &cache.lists,
                        asked: screen.rows.count - asked)
                } else {
                    let before = screen.rows.count
                    drawBlock(
                        c.graph[id], index: index, text: Sanitizer.clean(text), conversation: c, ui: ui,
                        active: active, badge: badgeDue, bubbleMax: bubbleMax, into: &screen, hits: &hits, cursor: &cursor, lists: &cache.lists)
                    if !active { cache.rows[key] = Array(screen.rows[before...]) }
                }
                if case .textInput = c.graph[id].content, text.isEmpty {} else { badgeDue = false }
            case .reply(_, let text, _):
                let key = ConversationLayoutCache.Key(
                    position: position, node: -1, textLength: text.utf8.count, badge: false, pressed: 0, chosen: -1, fired: true)
                if let rows = cache.rows[key] {
                    screen.rows += rows
                } else {
                    let before = screen.rows.count
                    // An optional question left empty: its reply says so (dimmed), not an empty bubble.
                    if text.isEmpty {
                        drawReply(strings.noAnswer, style: ConversationView.dim, bubbleMax: bubbleMax, into: &screen)
                    } else {
                        drawReply(Sanitizer.clean(text), bubbleMax: bubbleMax, into: &screen)
                    }
                    cache.rows[key] = Array(screen.rows[before...])
                }
                badgeDue = true
            }
        }
        if c.status == .presenting || c.isWaitingForAutoAdvance {
            let r = screen.addRow()
            if badgeDue { screen.put(badgeText, row: r, column: 0, style: badgeStyle) }
            screen.put("• • •  " + strings.typing, row: r, column: ConversationView.gutter, style: ConversationView.dim)
        }
        // Hint line: the same for the same kind of block.
        // The hint depends on the block's kind, a rating's scale, a multiple choice, and whether
        // there is an answer to go back to.
        let hintKey =
            interactive.map { i -> Int in
                let node = c.node(at: i)
                var key = (RocketBlockKind.allCases.firstIndex(of: node.kind) ?? 0) * 1000
                if case .rating(let r) = node.content { key += r.scale * 10 + (r.lowest == 0 ? 2 : 0) }
                if case .choice(let choice) = node.content, choice.multiple { key += 500 }
                if case .textInput(let input) = node.content, input.multiline { key += 500 }
                if case .textInput(let input) = node.content, input.inputType == .date { key += 250 }
                if case .textInput(let input) = node.content, input.inputType == .time { key += 260 }
                return key + (c.backTarget != nil ? 1 : 0)
            } ?? -1
        if case .active = c.status, let row = cache.hints[hintKey] {
            screen.rows.append(row)
        } else if case .active = c.status {
            var hint: [String] = []
            if let i = interactive {
                switch c.node(at: i).kind {
                case .text, .image: hint.append(strings.continueHint)
                case .doubleButton: hint.append(strings.chooseHint)
                case .button: hint.append(strings.chooseHint.splitting(at: " · ").last.map(String.init) ?? strings.chooseHint)  // nothing to choose between
                case .choice: hint.append(strings.listHint.splitting(at: " · ").prefix(2).joined(separator: " · "))
                case .textInput:
                    if case .textInput(let input) = c.node(at: i).content, input.multiline {
                        hint.append(strings.multilineHint)
                    } else if case .textInput(let input) = c.node(at: i).content, input.inputType == .date {
                        hint.append(strings.dateHint)
                    } else if case .textInput(let input) = c.node(at: i).content, input.inputType == .time {
                        hint.append(strings.timeHint)
                    } else if case .textInput(let input) = c.node(at: i).content, input.inputType == .integer {
                        hint.append(strings.integerHint)
                    } else {
                        hint.append(strings.sendHint)
                    }
                case .rating:
                    if case .rating(let r) = c.node(at: i).content { hint.append(r.filling(strings.rateHint)) }
                case .set, .condition, .jump: break  // never shown
                }
                if case .choice(let choice) = c.node(at: i).content, choice.multiple { hint[hint.count - 1] = strings.tickHint }
            }
            hint.append(strings.closeHint + " " + (closeTitle.map { Sanitizer.clean($0, keepNewlines: false) } ?? "✕"))
            // After closing: at narrow widths going back's hint is dropped before the way out.
            if c.backTarget != nil { hint.append(strings.backHint) }
            hint.append(strings.interruptHint)
            let r = screen.addRow()
            // At narrow widths whole items are dropped, never cut mid-word.
            let items = hint.flatMap { $0.splitting(at: " · ").map(String.init) }
            screen.put(
                HintLine.fit(items, width: width - ConversationView.gutter, separator: " · "), row: r, column: ConversationView.gutter,
                style: ConversationView.dim)
            cache.hints[hintKey] = screen.rows[r]
        }
        // The terminal's cursor sits at the insertion point while typing, else it is hidden.
        screen.cursor = cursor
        return (screen, hits)
    }

    /// A bubble's top or bottom border on a new row.
    private func edge(_ leftCorner: String, _ rightCorner: String, inner: Int, left: Int, style: CellStyle, into screen: inout ScreenBuffer) {
        let row = screen.addRow()
        screen.put(leftCorner + String(repeating: "─", count: inner + 2) + rightCorner, row: row, column: left, style: style)
    }

    private func drawBubble(_ lines: [String], style: CellStyle, into screen: inout ScreenBuffer, badge: Bool) {
        let inner = lines.map { DisplayWidth.of($0) }.max() ?? 0
        let left = ConversationView.gutter
        edge("╭", "╮", inner: inner, left: left, style: ConversationView.border, into: &screen)
        for (k, line) in lines.enumerated() {
            let r = screen.addRow()
            if badge && k == 0 { screen.put(badgeText, row: r, column: 0, style: badgeStyle) }
            screen.put("│ ", row: r, column: left, style: ConversationView.border)
            screen.put(line, row: r, column: left + 2, style: style)
            screen.put(" │", row: r, column: left + 2 + inner, style: ConversationView.border)
        }
        edge("╰", "╯", inner: inner, left: left, style: ConversationView.border, into: &screen)
    }

    private func drawReply(_ text: String, style: CellStyle = CellStyle(), bubbleMax: Int, into screen: inout ScreenBuffer) {
        let lines = TextWrap.wrap(text, width: bubbleMax)
        let inner = lines.map { DisplayWidth.of($0) }.max() ?? 0
        let left = max(ConversationView.gutter, width - inner - 4)
        edge("╭", "╮", inner: inner, left: left, style: ConversationView.replyStyle, into: &screen)
        for line in lines {
            let r = screen.addRow()
            screen.put("│ ", row: r, column: left, style: ConversationView.replyStyle)
            screen.put(line, row: r, column: left + 2, style: style)  // the bubble sits on the right; its lines read from the left
            screen.put(" │", row: r, column: left + 2 + inner, style: ConversationView.replyStyle)
        }
        edge("╰", "╯", inner: inner, left: left, style: ConversationView.replyStyle, into: &screen)
    }

    /// A button as drawn, at most `maxWidth` columns: too long a title ends in an ellipsis
    /// inside the brackets, which are never cut.
    private func buttonLabel(_ title: String, maxWidth: Int) -> String {
        "[ " + DisplayWidth.truncate(Sanitizer.clean(title, keepNewlines: false), to: max(1, maxWidth - 4)) + " ]"
    }

    /// The options of a list drawn now: all of them, unless the block is in use on a screen
    /// too short for them under the `used` rows (its question, and what follows the list). Then
    /// a window of them (a row above and one below say how many are out of sight) that holds
    /// the focus, moved from where it last stood only as far as the focus needs. A list left
    /// unanswered (Ctrl-C, Esc, the end of input) keeps the window it had, so the scrollback
    /// holds what was on the screen, not every option.
    private func listWindow(
        count: Int, focus: Int, index: Int, active: Bool, answered: Bool, used: Int, lists: inout [Int: Range<Int>]
    ) -> Range<Int> {
        if !active, !answered, let kept = lists[index], kept.upperBound <= count { return kept }
        guard active, let height, count > height - used else {
            lists[index] = nil
            return 0..<count
        }
        let shown = ListWindow.visible(count: count, focus: focus, rows: height - used - 2, top: lists[index]?.lowerBound ?? 0)
        lists[index] = shown
        return shown
    }

    /// The rows under a block's buttons or options for the focused one's picture (a picture
    /// choice, as the browser shows each option's): ``imageRows`` whenever one of them has a
    /// picture, so the layout stands still as the focus moves and each picture is decoded only
    /// once focused; fewer on a short screen, where the `used` rows and `list` rows of options
    /// come first. 0 when none has a picture, pictures are not drawn, or fewer than 3 rows are
    /// left for one.
    private func previewRows(_ pictures: [RocketImage?], used: Int, list: Int) -> Int {
        guard drawsImages, pictures.contains(where: { $0 != nil }) else { return 0 }
        var rows = ConversationView.imageRows
        if let height { rows = min(rows, height - used - list) }
        return rows >= 3 ? rows : 0
    }

    /// The focused button's or option's picture in `rows` rows under its block (empty rows when
    /// it has none), the rounded style the browser draws it in. A click on it does what a click
    /// on its button does (`press`), as the browser's picture is part of its button.
    private func drawPreview(
        _ image: RocketImage?, press: RocketIntent, rows: Int, bubbleMax: Int, into screen: inout ScreenBuffer,
        hits: inout [HitRegion<RocketIntent>]
    ) {
        guard rows > 0 else { return }
        let first = screen.rows.count
        for _ in 0..<rows { _ = screen.addRow() }
        guard let image, let picture = images[image.cacheKey] else { return }
        let size = picture.fit(maxColumns: max(1, bubbleMax), maxRows: rows)
        for (k, row) in picture.cells(columns: size.columns, rows: size.rows, style: .round).enumerated() {
            for (x, cell) in row.enumerated() where ConversationView.gutter + x < width {
                screen.rows[first + k][ConversationView.gutter + x] = cell
            }
            let end = min(width, ConversationView.gutter + row.count)
            if end > ConversationView.gutter { hits.append(HitRegion(row: first + k, columns: ConversationView.gutter..<end, target: press)) }
        }
    }

    /// Over a list's window (`above`) or under it (`below`): how many options are out of sight
    /// that way; an empty row when none are, so the window stands still. Nothing for a list
    /// shown whole.
    private func moreRow(above: Int? = nil, below: Int? = nil, of count: Int, shown: Range<Int>, into screen: inout ScreenBuffer) {
        guard shown.count < count else { return }
        let r = screen.addRow()
        let n = above ?? below ?? 0
        guard n > 0 else { return }
        let words = strings.outOfSight(n, above: above != nil)
        screen.put(
            DisplayWidth.truncate(words, to: max(1, width - ConversationView.gutter)), row: r, column: ConversationView.gutter,
            style: ConversationView.dim)
    }

    private func drawButtons(
        _ buttons: [(RocketButtonNode, RocketIntent)], first: Int = 0, index: Int, c: Conversation, ui: ConversationUI,
        active: Bool, list: Bool = false, badge: Bool, into screen: inout ScreenBuffer, hits: inout [HitRegion<RocketIntent>]
    ) {
        let labels = buttons.map { buttonLabel($0.0.shownTitle(in: c), maxWidth: width - ConversationView.gutter) }
        let total = labels.map { DisplayWidth.of($0) }.reduce(0, +) + 2 * (labels.count - 1)
        let sideBySide = !list && ConversationView.gutter + total <= width
        let pressed =
            list
            ? (c.chosenOptions[index] == nil ? nil : 0)
            : c.pressedSide[index].map { $0 == .left ? 0 : 1 } ?? (c.hasFired(index) && buttons.count == 1 ? 0 : nil)
        var row = screen.addRow()
        if !list && badge { screen.put(badgeText, row: row, column: 0, style: badgeStyle) }
        var col = ConversationView.gutter
        for (k, (button, intent)) in buttons.enumerated() {
            if !sideBySide && k > 0 { row = screen.addRow(); col = ConversationView.gutter }
            var style = ConversationView.style(for: button.font)
            if active && ui.focus == first + k { style.inverse = true; style.bold = true }
            if let pressed { if pressed == k { style.inverse = true } else { style = ConversationView.dim } } else if !active { style.dim = true }
            let end = screen.put(labels[k], row: row, column: col, style: style)
            if active { hits.append(HitRegion(row: row, columns: col..<end, target: intent)) }
            col = end + 2
        }
    }

    private func drawBlock(
        _ block: RocketNode, index: Int, text: String, conversation c: Conversation, ui: ConversationUI,
        active: Bool, badge: Bool, bubbleMax: Int, into screen: inout ScreenBuffer, hits: inout [HitRegion<RocketIntent>],
        cursor: inout (row: Int, column: Int)?, lists: inout [Int: Range<Int>], asked: Int = 0
    ) {
        switch block.content {
        case .image(let image):
            let padLeft = Int((image.paddingLeft / 8).rounded()), padRight = Int((image.paddingRight / 8).rounded())
            let name = image.image.path.map { ": " + Sanitizer.clean(PathName.lastComponent($0), keepNewlines: false) } ?? ""
            let textLines = text.isEmpty ? [] : TextWrap.wrap(text, width: bubbleMax)
            let style = ConversationView.style(for: image.font)
            if drawsImages, let picture = images[image.image.cacheKey] {
                let size = picture.fit(maxColumns: max(1, bubbleMax - padLeft - padRight), maxRows: ConversationView.imageRows)
                let cells = picture.cells(columns: size.columns, rows: size.rows, style: image.imageStyle)
                let inner = max(padLeft + size.columns + padRight, textLines.map { DisplayWidth.of($0) }.max() ?? 0)
                let left = ConversationView.gutter
                edge("╭", "╮", inner: inner, left: left, style: ConversationView.border, into: &screen)
                for (k, row) in cells.enumerated() {
                    let r = screen.addRow()
                    if k == 0 && badge { screen.put(badgeText, row: r, column: 0, style: badgeStyle) }
                    screen.put("│ ", row: r, column: left, style: ConversationView.border)
                    for (x, cell) in row.enumerated() where left + 2 + padLeft + x < width { screen.rows[r][left + 2 + padLeft + x] = cell }
                    screen.put(" │", row: r, column: left + 2 + inner, style: ConversationView.border)
                }
                for line in textLines {
                    let r = screen.addRow()
                    screen.put("│ ", row: r, column: left, style: ConversationView.border)
                    screen.put(line, row: r, column: left + 2, style: style)
                    screen.put(" │", row: r, column: left + 2 + inner, style: ConversationView.border)
                }
                edge("╰", "╯", inner: inner, left: left, style: ConversationView.border, into: &screen)
            } else {
                let lines = [String(repeating: " ", count: padLeft) + "▣ " + strings.imageLabel + name]
                drawBubble(lines + textLines, style: style, into: &screen, badge: badge)
            }
            if active { hits.append(HitRegion(row: screen.rows.count - 2, columns: 0..<width, target: .tap)) }
        case .text(let t):
            drawBubble(TextWrap.wrap(text, width: bubbleMax), style: ConversationView.style(for: t.font), into: &screen, badge: badge)
        case .choice(let choice) where choice.multiple:
            // The question, then each option with its box; once answered, only the options chosen.
            let before = screen.rows.count
            drawBubble(TextWrap.wrap(text, width: bubbleMax), style: ConversationView.style(for: choice.font), into: &screen, badge: badge)
            let chosen = c.chosenSets[index]
            let rule = active ? strings.chooseRule(least: choice.minChosen, most: choice.maxChosen) : nil
            let ruleLines = rule.map { TextWrap.wrap($0, width: width - ConversationView.gutter) } ?? []
            let errorLines = active && ui.blockIndex == index ? ui.error.map { TextWrap.wrap($0, width: width - ConversationView.gutter) } ?? [] : []
            // Under the list: the rule, Done, a refusal and the key hint.
            let shown = listWindow(
                count: choice.options.count, focus: ui.focus, index: index, active: active, answered: chosen != nil,
                used: screen.rows.count - before + ruleLines.count + 1 + errorLines.count + 1, lists: &lists)
            moreRow(above: shown.lowerBound, of: choice.options.count, shown: shown, into: &screen)
            for (k, option) in choice.options.enumerated() where shown.contains(k) {
                if let chosen, !chosen.contains(k) { continue }
                let r = screen.addRow()
                let ticked = chosen != nil || (active && ui.ticked.contains(k))
                var style = ConversationView.style(for: option.font)
                if !active { style.dim = true }
                if active && ui.focus == k { style.inverse = true; style.bold = true }
                let label =
                    (ticked ? "☑ " : "☐ ")
                    + DisplayWidth.truncate(Sanitizer.clean(c.interpolate(option.title), keepNewlines: false), to: max(1, width - ConversationView.gutter - 2))
                screen.put(label, row: r, column: ConversationView.gutter, style: style)
            }
            moreRow(below: choice.options.count - shown.upperBound, of: choice.options.count, shown: shown, into: &screen)
            if active {
                // How many may be ticked, as the browser says it; then Done; then a refusal.
                for line in ruleLines {
                    screen.put(line, row: screen.addRow(), column: ConversationView.gutter, style: ConversationView.dim)
                }
                let r = screen.addRow()
                let title = buttonLabel(c.interpolate(choice.buttonTitle ?? strings.done), maxWidth: width - ConversationView.gutter)
                var style = ConversationView.style(for: .button)
                if ui.focus == choice.options.count { style.inverse = true; style.bold = true }
                let end = screen.put(title, row: r, column: ConversationView.gutter, style: style)
                hits.append(HitRegion(row: r, columns: ConversationView.gutter..<end, target: .chooseMany(ui.ticked.sorted())))
                for line in errorLines {
                    screen.put(line, row: screen.addRow(), column: ConversationView.gutter, style: ConversationView.errorStyle)
                }
            }
        case .rating(let rating):
            // The question, then the scale: stars filled up to the focused or chosen value, or for
            // a scale from 0 its numbers with that one marked; then the words under the ends.
            drawBubble(TextWrap.wrap(text, width: bubbleMax), style: ConversationView.style(for: rating.font), into: &screen, badge: badge)
            let values = rating.values
            let value =
                c.chosenOptions[index].map { $0 + values.lowerBound }
                ?? (active && ui.ratingPicked ? min(values.upperBound, values.lowerBound + ui.focus) : nil)
            let r = screen.addRow()
            var col = ConversationView.gutter
            // Steps past a narrow terminal's edge are not drawn (a digit or ←/→ still picks them).
            for k in values where col < width {
                var style = ConversationView.style(for: .button)
                let mark: String
                if values.lowerBound == 0 {
                    mark = String(k)
                    if !active { style.dim = k != value }
                } else {
                    mark = k <= (value ?? 0) ? "★" : "☆"
                    if !active { style.dim = k > (value ?? 0) }
                }
                if active && k == value { style.bold = true; style.inverse = true }
                let end = screen.put(mark, row: r, column: col, style: style)
                if active { hits.append(HitRegion(row: r, columns: col..<end, target: .rate(k))) }
                col = end + 1
            }
            screen.put("\(value.map(String.init) ?? "–")/\(values.upperBound)", row: r, column: col, style: ConversationView.dim)
            let low = rating.labels.low.map { c.interpolate($0) }, high = rating.labels.high.map { c.interpolate($0) }
            if active, low != nil || high != nil {
                let lr = screen.addRow()
                let words =
                    "\(values.lowerBound) " + Sanitizer.clean(low ?? "", keepNewlines: false) + " … \(values.upperBound) "
                    + Sanitizer.clean(high ?? "", keepNewlines: false)
                screen.put(
                    DisplayWidth.truncate(words, to: max(1, width - ConversationView.gutter)), row: lr, column: ConversationView.gutter,
                    style: ConversationView.dim)
            }
            if active && ui.ratingAsked {
                for line in TextWrap.wrap(rating.filling(strings.pickRating), width: width - ConversationView.gutter) {
                    screen.put(line, row: screen.addRow(), column: ConversationView.gutter, style: ConversationView.errorStyle)
                }
            }
        case .choice(let choice):
            // The question in a bubble, then the options as a list (once chosen, only the choice).
            let before = screen.rows.count
            drawBubble(TextWrap.wrap(text, width: bubbleMax), style: ConversationView.style(for: choice.font), into: &screen, badge: badge)
            var options = choice.options.enumerated().map { ($0.element, RocketIntent.choose($0.offset)) }
            if let chosen = c.chosenOptions[index], options.indices.contains(chosen) { options = [options[chosen]] }
            // Under the list: the focused option's picture, if any has one, and the key hint.
            let pictures = active ? choice.options.map(\.image) : []
            let preview = previewRows(pictures, used: screen.rows.count - before + 1, list: options.count <= 3 ? options.count : 5)
            let shown = listWindow(
                count: options.count, focus: ui.focus, index: index, active: active, answered: c.chosenOptions[index] != nil,
                used: screen.rows.count - before + preview + 1, lists: &lists)
            moreRow(above: shown.lowerBound, of: options.count, shown: shown, into: &screen)
            drawButtons(
                Array(options[shown]), first: shown.lowerBound, index: index, c: c, ui: ui, active: active, list: true, badge: badge,
                into: &screen, hits: &hits)
            moreRow(below: options.count - shown.upperBound, of: options.count, shown: shown, into: &screen)
            if active { hits.append(HitRegion(row: screen.rows.count - 2, columns: 0..<width, target: .tap)) }
            drawPreview(
                pictures.indices.contains(ui.focus) ? pictures[ui.focus] : nil, press: .choose(ui.focus), rows: preview, bubbleMax: bubbleMax,
                into: &screen, hits: &hits)
        case .button(let b):
            drawButtons([(b, .pressButton)], index: index, c: c, ui: ui, active: active, badge: badge, into: &screen, hits: &hits)
            let preview = active ? previewRows([b.image], used: 2, list: 0) : 0
            drawPreview(b.image, press: .pressButton, rows: preview, bubbleMax: bubbleMax, into: &screen, hits: &hits)
        case .doubleButton(let left, let right):
            drawButtons([(left, .pressLeft), (right, .pressRight)], index: index, c: c, ui: ui, active: active, badge: badge, into: &screen, hits: &hits)
            let preview = active ? previewRows([left.image, right.image], used: 3, list: 0) : 0
            drawPreview(
                ui.focus == 1 ? right.image : left.image, press: ui.focus == 1 ? .pressRight : .pressLeft, rows: preview, bubbleMax: bubbleMax,
                into: &screen, hits: &hits)
        case .textInput(let input):
            // An input without a question (`rocket input` with no --title) is the field alone.
            if !text.isEmpty {
                drawBubble(TextWrap.wrap(text, width: bubbleMax), style: ConversationView.style(for: input.font), into: &screen, badge: badge)
            }
            guard active else { return }
            let r = screen.addRow()
            let fieldStart = ConversationView.gutter + 2
            let button = buttonLabel(c.interpolate(input.buttonTitle), maxWidth: max(5, (width - fieldStart - 2) / 2))
            let fieldWidth = max(4, width - fieldStart - DisplayWidth.of(button) - 2)
            screen.put("›", row: r, column: ConversationView.gutter, style: ConversationView.replyStyle)
            let editor = ui.blockIndex == index ? ui.editor : LineEditor()
            // The empty field says what it takes: the flow's placeholder, else the answer's bounds or form.
            if editor.characters.isEmpty, let hint = c.fieldHint(at: index, now: ui.now) {
                screen.put(
                    DisplayWidth.truncate(Sanitizer.clean(strings.words(for: hint), keepNewlines: false), to: fieldWidth), row: r,
                    column: fieldStart, style: ConversationView.dim)
            }
            let buttonStart = fieldStart + fieldWidth + 2
            let end = screen.put(button, row: r, column: buttonStart, style: ConversationView.style(for: input.buttonStyle))
            hits.append(HitRegion(row: r, columns: buttonStart..<end, target: .submit(editor.text)))
            if input.multiline {
                // Several lines, wrapped at the field's width: the rows that show the cursor, no
                // more than the screen has under the question (`asked` rows) and over the
                // refusal and the key hint, so the cursor is never above the screen.
                let errorRows = ui.blockIndex == index ? ui.error.map { TextWrap.wrap($0, width: width - fieldStart).count } ?? 0 : 0
                let room = height.map { $0 - max(0, asked) - errorRows - 1 } ?? ConversationView.multilineRows
                let shown = editor.rows(width: fieldWidth, rows: max(1, min(ConversationView.multilineRows, room)))
                for (k, line) in shown.rows.enumerated() {
                    let row = k == 0 ? r : screen.addRow()
                    if k > 0 { screen.put("┊", row: row, column: ConversationView.gutter, style: ConversationView.replyStyle) }
                    screen.put(line, row: row, column: fieldStart)
                }
                cursor = (r + shown.cursorRow, fieldStart + shown.cursorColumn)
            } else {
                let view = editor.view(width: fieldWidth, mask: input.isSecret ? "•" : nil)
                screen.put(view.text, row: r, column: fieldStart)
                cursor = (r, fieldStart + view.cursorColumn)
            }
            if let error = ui.error, ui.blockIndex == index {
                for line in TextWrap.wrap(error, width: width - fieldStart) {
                    let er = screen.addRow()
                    screen.put(line, row: er, column: fieldStart, style: ConversationView.errorStyle)
                }
            }
        case .set, .condition, .jump: break  // never shown
        }
    }
}

/// Word wrapping by display width.
///
/// ```swift
/// TextWrap.wrap("the quick brown fox", width: 10)   // ["the quick", "brown fox"]
/// ```
public enum TextWrap {
    /// Lines of at most `width` columns: breaks at spaces, splits words longer than a line,
    /// keeps explicit newlines.
    public static func wrap(_ text: String, width: Int) -> [String] {
        let width = max(1, width)
        var out: [String] = []
        for paragraph in text.split(separator: "\n", omittingEmptySubsequences: false) {
            var line = ""
            var lineWidth = 0
            for word in paragraph.split(separator: " ", omittingEmptySubsequences: true) {
                var w = String(word)
                var ww = DisplayWidth.of(w)
                // A line holding only zero-width text (a lone joiner or mark) still holds text:
                // it is never written over.
                if !line.isEmpty && lineWidth + 1 + ww <= width {
                    line += " " + w
                    lineWidth += 1 + ww
                    continue
                }
                if !line.isEmpty { out.append(line); line = ""; lineWidth = 0 }
                while ww > width {
                    let head = DisplayWidth.prefix(w, fitting: width)
                    let cut = head.isEmpty ? String(w.prefix(1)) : head
                    out.append(cut)
                    w = String(w.dropFirst(cut.count))
                    ww = DisplayWidth.of(w)
                }
                line = w
                lineWidth = ww
            }
            out.append(line)
        }
        return out
    }
}

extension RocketButtonNode {
    /// The title as the terminal shows it, in the frame and in line mode alike: placeholders
    /// filled, and ↗ after it when the press opens a page, as the browser marks it (the address
    /// is printed when it is pressed). Typed answers are still matched against the title itself.
    func shownTitle(in c: Conversation) -> String { c.interpolate(title) + (link == nil ? "" : " ↗") }
}

extension RocketRatingNode {
    /// `template` with `%b` and `%d` the bottom and the top of the scale (the hint, the
    /// line-mode prompt).
    func filling(_ template: String) -> String {
        template.replacingAll("%b", with: String(values.lowerBound)).replacingAll("%d", with: String(values.upperBound))
    }
}
