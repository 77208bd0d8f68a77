import RocketCore
public import RocketText
public import RocketTerminalCore

/// `rocket choose`: a list of options in the conversation's look, with arrow keys, type-to-filter
/// and multi-select.
///
/// TTY: ↑/↓ (or Ctrl-P/Ctrl-N) move; typing filters (case- and accent-insensitive: what was typed,
/// then its words in any order, then their letters in order, `ListFilter`; what matched underlined);
/// with a limit above one, Tab selects or unselects the option under the cursor (never more than
/// the limit); Enter chooses the selection, or the option under the cursor when nothing is
/// selected; Esc cancels; a click chooses (or, with a limit above one, selects) what it hits.
/// Line mode lists the options numbered and reads a line: a number or a title, or with a limit
/// above one several numbers separated by commas or spaces.
///
/// Done (exit 0) with the chosen options in list order, or in the order they were ticked with
/// ``ordered`` (their values, when they have values apart from what is shown); declined (exit 1)
/// on Esc or the end of the input.
@MainActor
public final class ChooseApp: TerminalProgram {
    /// See `TerminalProgram/lineMode`.
    public var lineMode = false
    let title: String?
    let options: [String]
    /// What choosing each option answers: the option itself unless values were given.
    let values: [String]
    let limit: Int
    let strings: UIStrings
    /// Most options shown at once (the list scrolls).
    public var visibleRows = 10
    private var filter = LineEditor()
    private var cursor = 0
    private var top = 0
    /// The options the last frame showed at once: ``visibleRows``, or fewer on a screen too short
    /// for them (PgUp/PgDn move by as many).
    private var shownRows = 10
    private var selected: Set<Int> = []
    /// The selected options in the order they were ticked (``ordered``).
    private var tickOrder: [Int] = []
    /// With a limit above one, the choices are the options in the order they were ticked (the
    /// ticks show 1, 2, 3…), and a typed line's in the order it names them; else in list order.
    public var ordered = false
    private var result: ProgramOutcome<[String]>?
    /// The options chosen, in list order (the summary shows them as the list did).
    private var chosen: [Int] = []

    /// A list of options; `limit` is how many may be chosen (1: one; `Int.max`: any number).
    /// `values` (as many as the options; nil: the options themselves) are what choosing each
    /// answers, as `rocket choose --label-delimiter` splits `Production:prod`: the list shows and
    /// filters the options, and line mode takes a value as well as a number or an option.
    public init(title: String?, options: [String], values: [String]? = nil, limit: Int, strings: UIStrings) {
        self.title = title
        self.options = options
        self.values = values.flatMap { $0.count == options.count ? $0 : nil } ?? options
        self.limit = max(1, limit)
        self.strings = strings
    }

    /// The options that start selected (`--selected`), as indices: the cursor starts on the
    /// first; with a limit above one they start ticked. Enter on an untouched list, an empty line
    /// in line mode, chooses them.
    public private(set) var preselected: [Int] = []

    /// Starts the list with `indices` selected (at most the limit; out-of-range ones ignored).
    public func preselect(_ indices: [Int]) {
        preselected = Array(indices.filter { options.indices.contains($0) }.prefix(limit))
        if let first = preselected.min() { cursor = first }
        if limit > 1 {
            selected = Set(preselected)
            tickOrder = preselected
        }
    }

    /// See `TerminalProgram/outcome`.
    public var outcome: ProgramOutcome<[String]>? { result }

    /// See `TerminalProgram/summary`: the heading and the choices as the list showed them,
    /// comma-separated.
    public var summary: ProgramSummary? {
        ProgramSummary.of(result, question: title) { chosen.map { options[$0] }.joined(separator: ", ") }
    }
    /// See `TerminalProgram/lineRequest`.
    public var lineRequest: LineRequest? { lineMode && result == nil ? LineRequest() : nil }

    /// The indices of the options the filter lets through, by `ListFilter`'s groups (what was
    /// typed whole, then every word of it, then its letters in order), each group in list order.
    /// Worked out once per filter text (frames and keys reuse it), against keys of the options
    /// made once.
    public var matches: [Int] { kept.map(\.index) }

    /// The options kept, with the characters that matched (for marking them).
    private var kept: [(index: Int, match: ListFilter.Match)] {
        let typed = filter.text
        if let cached = matchCache, cached.typed == typed { return cached.kept }
        let listFilter = ListFilter(typed)
        if keys.count != options.count && !listFilter.isEmpty {
            // The text as the list shows it (controls cleaned), so a match's offsets are its cells'.
            keys = options.map { ListFilter.Key(Sanitizer.clean($0, keepNewlines: false)) }
        }
        let found = listFilter.isEmpty ? options.indices.map { ($0, ListFilter.Match(rank: 0, positions: [])) } : listFilter.kept(keys)
        matchCache = (typed, found)
        return found
    }
    private var keys: [ListFilter.Key] = []
    private var matchCache: (typed: String, kept: [(index: Int, match: ListFilter.Match)])?

    /// See `TerminalProgram/start(now:)`.
    public func start(now: Double) -> [ProgramOutput] {
        guard lineMode else { return [] }
        var out: [ProgramOutput] = []
        if let title, !title.isEmpty { out.append(.say(Sanitizer.clean(title, keepNewlines: false))) }
        for (i, o) in options.enumerated() {
            out.append(.say("[\(i + 1)] " + Sanitizer.clean(o, keepNewlines: false) + (preselected.contains(i) ? " ✓" : "")))
        }
        if limit > 1 { out.append(.say(strings.plainChooseMany.replacingAll("%d", with: String(options.count)))) }
        return out
    }

    /// Ends with `indices` chosen: in the order given when ``ordered``, else in list order.
    private func finish(_ indices: [Int]) {
        chosen = ordered && limit > 1 ? indices : indices.sorted()
        result = .done(chosen.map { values[$0] })
    }

    /// The columns the largest place in the order takes (``ordered``).
    private var orderWidth: Int { String(min(limit, options.count)).count }

    /// Values that differ from their options, as names line mode also takes.
    private var valueAliases: [Int: String] {
        var aliases: [Int: String] = [:]
        for i in options.indices where values[i] != options[i] && !values[i].isEmpty { aliases[i] = values[i] }
        return aliases
    }

    private func toggle(_ index: Int) {
        if selected.contains(index) {
            selected.remove(index)
            tickOrder.removeAll { $0 == index }
        } else if selected.count < limit {
            selected.insert(index)
            tickOrder.append(index)
        }
    }

    /// See `TerminalProgram/update(_:now:)`.
    public func update(_ event: ProgramEvent<Int>, now: Double) -> [ProgramOutput] {
        switch event {
        case .tick: break
        case .interrupt(let s): result = .interrupted(signal: s)
        case .inputEnded: result = .declined(nil)
        case .click(let index): if limit > 1 { toggle(index) } else { finish([index]) }
        case .key(let key): handle(key)
        case .line(let line): return answer(line)
        }
        return []
    }

    private func handle(_ key: Key) {
        let visible = matches
        switch key {
        case .escape: result = .declined(nil)
        case .up, .ctrl("p"), .backTab: cursor = max(0, cursor - 1)
        case .down, .ctrl("n"): cursor = min(max(0, visible.count - 1), cursor + 1)
        case .pageUp: cursor = max(0, cursor - shownRows)
        case .pageDown: cursor = min(max(0, visible.count - 1), cursor + shownRows)
        case .tab: if limit > 1, visible.indices.contains(cursor) { toggle(visible[cursor]) }
        case .enter:
            if !selected.isEmpty {
                finish(tickOrder)
            } else if visible.indices.contains(cursor) {
                finish([visible[cursor]])
            }
        default:
            if filter.handle(key) { cursor = 0 }
        }
    }

    private func answer(_ raw: String) -> [ProgramOutput] {
        let line = raw.trimmingSpaces()
        if line.isEmpty && !preselected.isEmpty {
            finish(preselected)
            return []
        }
        let aliases = valueAliases
        if case .success(let k) = ChoiceParser.parse(line, titles: options, aliases: aliases) {
            finish([k])
            return []
        }
        guard limit > 1 else {
            return [.refuse(ChoiceParser.Refusal.notAChoice(line).message(strings: strings, count: options.count))]
        }
        let chosen: [Int]
        switch ChoiceParser.parseInOrder(line, titles: options, aliases: aliases) {
        case .success(let list): chosen = list
        case .failure(let refusal): return [.refuse(refusal.message(strings: strings, count: options.count))]
        }
        guard !chosen.isEmpty else { return [.refuse(ChoiceParser.Refusal.notAChoice(line).message(strings: strings, count: options.count))] }
        guard chosen.count <= limit else { return [.refuse(strings.tooManyChosen.replacingAll("%d", with: String(limit)))] }
        finish(chosen)
        return []
    }

    /// See `TerminalProgram/nextDeadline(now:)`: a list waits for keys only.
    public func nextDeadline(now: Double) -> Double? { nil }

    /// See `TerminalProgram/view(width:now:)`.
    public func view(width: Int, now: Double) -> ProgramFrame<Int> {
        frame(width: width, room: nil)
    }

    /// See `TerminalProgram/view(width:height:now:)`: on a screen too short for ``visibleRows``
    /// options under the title and the filter and over the key hint, fewer, so that the filter
    /// and the focused option stay on it.
    public func view(width: Int, height: Int, now: Double) -> ProgramFrame<Int> {
        let around = (title?.isEmpty == false ? 1 : 0) + 2
        return frame(width: width, room: height - around)
    }

    /// How many options are shown at once, and whether a row over them and one under them say
    /// how many are out of sight, for `count` matching options and `room` rows between the
    /// filter and the key hint (nil: no bound but ``visibleRows``). The rows that say so are
    /// there whenever the list does not fit, even when one of them has nothing to say, so the
    /// list stands still as it scrolls; on a screen that would then show fewer than 3 options,
    /// the options come first and the counts are left out.
    func window(count: Int, room: Int?) -> (rows: Int, counted: Bool) {
        let most = max(1, min(visibleRows, room ?? visibleRows))
        guard count > most else { return (most, false) }
        let besideCounts = min(visibleRows, (room ?? visibleRows + 2) - 2)
        return besideCounts >= min(3, visibleRows) ? (besideCounts, true) : (most, false)
    }

    /// Puts an option's text with the characters the filter matched underlined in the accent
    /// colour (the mark shows without colour too); `cut` when the text ends in the truncation's
    /// ellipsis, which is never marked. Returns the column after it.
    private func put(
        _ text: String, cut: Bool, marking positions: [Int], in buffer: inout ScreenBuffer, row: Int, column: Int, style: CellStyle
    )
        -> Int
    {
        guard !positions.isEmpty else { return buffer.put(text, row: row, column: column, style: style) }
        var marked = style
        marked.underline = true
        marked.foreground = .indexed(33)
        let characters = Array(text)
        let shown = cut ? characters.count - 1 : characters.count
        var column = column
        var run = ""
        var runMarked = false
        var next = 0  // the next position to mark
        for (offset, c) in characters.enumerated() {
            while next < positions.count && positions[next] < offset { next += 1 }
            let isMarked = offset < shown && next < positions.count && positions[next] == offset
            if isMarked != runMarked && !run.isEmpty {
                column = buffer.put(run, row: row, column: column, style: runMarked ? marked : style)
                run = ""
            }
            runMarked = isMarked
            run.append(c)
        }
        if !run.isEmpty { column = buffer.put(run, row: row, column: column, style: runMarked ? marked : style) }
        return column
    }

    private func frame(width: Int, room: Int?) -> ProgramFrame<Int> {
        let width = max(8, width)
        var buffer = ScreenBuffer(width: width)
        var hits: [HitRegion<Int>] = []
        let dim = ConversationView.dim
        let accent = CellStyle(foreground: .indexed(33), bold: true)
        if let title, !title.isEmpty {
            let r = buffer.addRow()
            var style = CellStyle()
            style.bold = true
            buffer.put(DisplayWidth.truncate(Sanitizer.clean(title, keepNewlines: false), to: width - 2), row: r, column: 2, style: style)
        }
        // The filter line, with the terminal's cursor in it.
        let filterRow = buffer.addRow()
        buffer.put("›", row: filterRow, column: 0, style: accent)
        if filter.text.isEmpty {
            buffer.put(DisplayWidth.truncate(strings.filterPlaceholder, to: width - 2), row: filterRow, column: 2, style: dim)
            buffer.cursor = (filterRow, 2)
        } else {
            let field = filter.view(width: width - 3)
            buffer.put(Sanitizer.clean(field.text, keepNewlines: false), row: filterRow, column: 2)
            buffer.cursor = (filterRow, 2 + field.cursorColumn)
        }
        let found = kept
        let visible = found.map(\.index)
        cursor = min(cursor, max(0, visible.count - 1))
        let (rows, counted) = window(count: visible.count, room: room)
        shownRows = rows
        let shown = ListWindow.visible(count: visible.count, focus: cursor, rows: rows, top: top)
        top = shown.lowerBound
        if visible.isEmpty {
            let r = buffer.addRow()
            buffer.put(strings.filterNoMatch, row: r, column: 2, style: dim)
        }
        func outOfSight(_ n: Int, above: Bool) {
            guard counted else { return }
            let r = buffer.addRow()
            if n > 0 { buffer.put(DisplayWidth.truncate(strings.outOfSight(n, above: above), to: width - 2), row: r, column: 2, style: dim) }
        }
        outOfSight(shown.lowerBound, above: true)
        for k in shown {
            let index = visible[k]
            let r = buffer.addRow()
            let here = k == cursor
            var column = 0
            if here { buffer.put("❯", row: r, column: 0, style: accent) }
            column = 2
            if limit > 1 {
                let ticked = selected.contains(index)
                if ordered {
                    // Its place in the order, right-aligned in the width of the largest.
                    let mark = ticked ? String((tickOrder.firstIndex(of: index) ?? 0) + 1) : "○"
                    let pad = String(repeating: " ", count: max(0, orderWidth - mark.count))
                    column = buffer.put(pad + mark + " ", row: r, column: column, style: ticked ? accent : dim)
                } else {
                    column = buffer.put(ticked ? "◉ " : "○ ", row: r, column: column, style: ticked ? accent : dim)
                }
            }
            var style = CellStyle()
            if here { style.bold = true }
            let clean = Sanitizer.clean(options[index], keepNewlines: false)
            let text = DisplayWidth.truncate(clean, to: max(1, width - column))
            let end = put(text, cut: text != clean, marking: found[k].match.positions, in: &buffer, row: r, column: column, style: style)
            hits.append(HitRegion(row: r, columns: 0..<max(1, end), target: index))
        }
        outOfSight(visible.count - shown.upperBound, above: false)
        var hint = [strings.listHint]
        if limit > 1 { hint.insert(strings.listSelectHint, at: 0) }
        let items = hint.flatMap { $0.splitting(at: " · ").map(String.init) }
        let r = buffer.addRow()
        buffer.put(HintLine.fit(items, width: width - 2, separator: " · "), row: r, column: 2, style: dim)
        return ProgramFrame(buffer: buffer, hits: hits)
    }
}
