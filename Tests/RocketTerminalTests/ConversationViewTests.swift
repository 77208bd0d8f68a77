import Testing
@testable import RocketTerminal
@testable import RocketTerminalApps
@testable import RocketTerminalCore

import RocketConversation
import RocketCore
import RocketText

/// A graph of text nodes (and others) where each text node leads to the next one given.
func chain(_ nodes: RocketNode...) -> RocketGraph {
    var g = RocketGraph()
    for (k, var node) in nodes.enumerated() {
        if case .text(var t) = node.content, k + 1 < nodes.count {
            t.next = RocketNodeID(k + 1)
            node.content = .text(t)
        }
        g.add(node)
    }
    g.root = nodes.isEmpty ? nil : RocketNodeID(0)
    return g
}

/// A conversation through every block kind, on the instant timing.
func sampleConversation(echo: Bool = true) -> Conversation {
    var g = RocketGraph()
    let done = g.add(RocketNode(id: "done", text: "Thanks, {{name}}! 👍"))
    let input = g.add(RocketNode(id: "name", content: .textInput(RocketInputNode(text: "What's your name?", buttonTitle: "Send", next: done))))
    let ask = g.add(
        RocketNode(
            id: "ask",
            content: .doubleButton(
                left: RocketButtonNode(title: "Sure", next: input),
                right: RocketButtonNode(title: "Later", font: .lightButton))))
    g.root = g.add(RocketNode(id: "hello", text: "Hi! 界 I'm Rocket.", next: ask))
    return Conversation(graph: g, closeButton: RocketCloseButton(title: "Close"), options: ConversationOptions(timing: .instant, echoReplies: echo))
}

@Suite("Conversation layout goldens")
struct ConversationViewTests {
    let author = RocketAuthor(image: nil, style: .circular, name: "Rocket")

    func render(_ c: Conversation, width: Int, ui: ConversationUI = ConversationUI()) -> [String] {
        var ui = ui
        KeyController.sync(&ui, with: c)
        return ConversationView(width: width, author: author, closeTitle: "Close", strings: .english).layout(c, ui: ui).0.lines
    }

    @Test("A text block waiting for a tap, at 60 columns")
    func textBlock() {
        var c = sampleConversation()
        c.start(at: 0)
        #expect(
            render(c, width: 60) == [
                "    ╭────────────────────╮",
                " R  │ Hi! 界 I'm Rocket. │",
                "    ╰────────────────────╯",
                "    Enter continue · Esc Close · Ctrl-C quit",
            ])
    }

    @Test("Buttons, then the input with its cursor, then the reply on the right")
    func fullFlow() throws {
        var c = sampleConversation()
        c.start(at: 0)
        try c.send(.tap, at: 0)
        #expect(
            // At 40 columns the hint keeps the items that fit whole: none is cut mid-word.
            // The badge marked the run's first bubble; the buttons that follow in the same run have none.
            render(c, width: 40).suffix(2) == ["    [ Sure ]  [ Later ]", "    ←/→ choose · Enter press · Esc Close"])
        try c.send(.pressLeft, at: 0)
        var ui = ConversationUI()
        KeyController.sync(&ui, with: c)
        ui.editor.insert("Ada")
        let (screen, _) = ConversationView(width: 40, author: author, closeTitle: "Close", strings: .english).layout(c, ui: ui)
        let inputRow = screen.lines.firstIndex { $0.contains("› Ada") }
        #expect(inputRow != nil)
        #expect(screen.cursor?.row == inputRow && screen.cursor?.column == 9)
        #expect(screen.lines[inputRow!].hasSuffix("[ Send ]"))
        try c.send(.submit("Ada"), at: 0)
        let lines = render(c, width: 40)
        #expect(lines.contains("                                 ╭─────╮"))
        #expect(lines.contains("                                 │ Ada │"))
        #expect(lines.contains(" R  │ Thanks, Ada! 👍 │"))
    }

    @Test("Narrow widths wrap and stack; nothing passes the right edge", arguments: [12, 16, 24])
    func narrow(width: Int) throws {
        var c = sampleConversation()
        c.start(at: 0)
        try c.send(.tap, at: 0)
        let lines = render(c, width: width)
        #expect(lines.allSatisfy { DisplayWidth.of($0) <= width })
        #expect(lines.contains { $0.contains("Sure") })
        // Every button is shown, with both brackets; below 16 columns a long title ends in "…".
        #expect(lines.contains { $0.contains(width >= 16 ? "[ Later ]" : "[ L") })
        #expect(lines.filter { $0.contains("[ ") }.allSatisfy { $0.contains(" ]") })
    }

    @Test("Secret input is masked; validation messages show under the field")
    func secretAndError() {
        var c = Conversation(
            graph: chain(RocketNode(id: "pin", content: .textInput(RocketInputNode(text: "PIN?", buttonTitle: "OK", isSecret: true)))),
            options: ConversationOptions(timing: .instant))
        c.start(at: 0)
        var ui = ConversationUI()
        KeyController.sync(&ui, with: c)
        ui.editor.insert("1234")
        ui.error = "Four digits, please"
        let lines = render(c, width: 40, ui: ui)
        #expect(lines.contains { $0.contains("› ••••") })
        #expect(!lines.joined().contains("1234"))
        #expect(lines.contains("      Four digits, please"))
    }

    @Test("A typing indicator shows while an auto-advance delay runs")
    func typing() {
        var c = Conversation(
            graph: chain(RocketNode(text: "wait", showNextAfter: 2), RocketNode(text: "next")),
            options: ConversationOptions(timing: .reducedMotion))
        c.start(at: 0)
        #expect(render(c, width: 40).contains("    • • •  typing…"))
    }

    @Test("The author's badge marks the first bubble of each run of the author's bubbles; a wrapped reply reads from the left")
    func badgePerRun() throws {
        var c = sampleConversation()
        c.start(at: 0)
        try c.send(.tap, at: 0)
        try c.send(.pressLeft, at: 0)
        try c.send(.submit("Ada Lovelace, Countess of Lovelace, mathematician"), at: 0)
        let lines = render(c, width: 40)
        let badged = lines.indices.filter { lines[$0].hasPrefix(" R ") }
        let replyEnd = try #require(lines.lastIndex { $0.contains("╯") && !$0.hasPrefix("    ╰") })
        // One at the start, one after the reply: two runs.
        #expect(badged.count == 2)
        #expect(badged.first! < replyEnd && badged.last! > replyEnd)
        // The reply's wrapped lines start at its left border.
        let replyRows = lines.filter { $0.prefix { $0 == " " }.count > 4 && $0.contains("│") }
        #expect(replyRows.count >= 2, "\(lines.joined(separator: "\n"))")
        let columns = Set(replyRows.map { row in row.prefix { $0 == " " }.count })
        #expect(columns.count == 1)
        for row in replyRows {
            let afterBorder = row.drop { $0 == " " }.dropFirst()  // "│"
            #expect(afterBorder.hasPrefix(" ") && !afterBorder.hasPrefix("  "), "\(row)")
        }
    }

    @Test("A single button's hint says Enter, not ←/→ (there is nothing to choose between)")
    func singleButtonHint() {
        var c = Conversation(graph: chain(RocketNode(id: "b", content: .button(RocketButtonNode(title: "Go")))), options: ConversationOptions(timing: .instant))
        c.start(at: 0)
        let hint = render(c, width: 60).last ?? ""
        #expect(hint.hasPrefix("    Enter press · Esc Close"))
        #expect(!hint.contains("←/→"))
    }

    @Test("Hostile text cannot reach the terminal as escapes")
    func sanitised() {
        var c = Conversation(graph: chain(RocketNode(text: "hi\u{1B}[2J\u{7}")), options: ConversationOptions(timing: .instant))
        c.start(at: 0)
        let all = render(c, width: 40).joined()
        #expect(!all.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 })
    }

    @Test("Built-in texts in English, Chinese and Italian from the locale variables")
    func localisation() {
        #expect(UIStrings.forEnvironment(["LANG": "zh_CN.UTF-8"]).language == "zh")
        #expect(UIStrings.forEnvironment(["LC_ALL": "it_IT.UTF-8", "LANG": "zh_CN"]).language == "it")
        #expect(UIStrings.forEnvironment(["LC_MESSAGES": "it_IT"]).language == "it")
        #expect(UIStrings.forEnvironment([:]).language == "en")
        let failure = RocketValidationFailure(rule: .tooLong(5), message: nil)
        #expect(UIStrings.italian.message(for: failure) == "Scrivi al massimo 5 caratteri.")
        #expect(UIStrings.chinese.message(for: failure) == "最多只能输入 5 个字符。")
        #expect(UIStrings.english.message(for: RocketValidationFailure(rule: .required, message: "Custom")) == "Custom")
    }
}

@Suite("Key and line controllers")
struct ControllerTests {
    /// A conversation of one input block, started, as the key controller sees it.
    static func started(_ input: RocketInputNode) -> Conversation {
        var g = RocketGraph()
        g.root = g.add(RocketNode(id: "in", content: .textInput(input)))
        var c = Conversation(graph: g, author: RocketAuthor(image: nil, name: ""), options: ConversationOptions(timing: .instant))
        c.start(at: 0)
        return c
    }

    @Test("An empty field shows its hint dimmed: the flow's placeholder, else the answer's bounds or form; typing hides it")
    func fieldHints() throws {
        func field(_ c: Conversation, ui: ConversationUI = ConversationUI(), width: Int = 60) -> (text: String, dim: Bool) {
            var ui = ui
            KeyController.sync(&ui, with: c)
            let (buffer, _) = ConversationView(width: width, author: c.author, closeTitle: nil, strings: .english).layout(c, ui: ui)
            guard let row = (0..<buffer.rows.count).first(where: { buffer.rowText($0).hasPrefix("    ›") }) else { return ("", false) }
            let text = buffer.rowText(row)
            let cells = buffer.rows[row]
            return (text, cells.count > 6 && cells[6].style.dim)
        }
        var age = RocketInputNode(text: "Age?", buttonTitle: "OK")
        age.inputType = .integer
        age.minimum = .number(18)
        let shown = field(Self.started(age))
        #expect(shown.text.contains("› ≥ 18") && shown.dim, "\(shown)")
        var day = RocketInputNode(text: "When?", buttonTitle: "OK")
        day.inputType = .date
        #expect(field(Self.started(day)).text.contains("› YYYY-MM-DD"))
        // Too long for a narrow field: cut, and said to be.
        day.minimum = .text("2026-12-08")
        day.maximum = .text("2026-12-21")
        #expect(field(Self.started(day)).text.contains("› 2026-12-08 – 2026-12-21"))
        let narrow = field(Self.started(day), width: 24).text
        #expect(narrow.contains("› 2026") && narrow.contains("…") && !narrow.contains("12-21"), "\(narrow)")
        age.placeholder = "your age"
        #expect(field(Self.started(age)).text.contains("› your age"))
        // Typed text takes the hint's place.
        var ui = ConversationUI()
        KeyController.sync(&ui, with: Self.started(age))
        ui.editor.insert("4")
        let typed = field(Self.started(age), ui: ui)
        #expect(typed.text.contains("› 4") && !typed.text.contains("your age"), "\(typed)")
        // Plain text without a placeholder shows none.
        let plain = field(Self.started(RocketInputNode(text: "Note?", buttonTitle: "OK"))).text
        #expect(plain.dropFirst(5).drop(while: { $0 == " " }).hasPrefix("[ OK ]"), "\(plain)")
    }

    @Test("A date input: ↑/↓ step a day and PgUp/PgDn a month from the typed day, else from today, within min and max")
    func dateSteps() throws {
        var input = RocketInputNode(text: "When?", buttonTitle: "OK")
        input.inputType = .date
        input.minimum = .text("2026-01-15")
        input.maximum = .text("2026-03-31")
        let c = Self.started(input)
        var ui = ConversationUI()
        ui.today = "2026-02-28"
        #expect(KeyController.handle(.up, conversation: c, ui: &ui) == .redraw)
        #expect(ui.editor.text == "2026-02-28")  // empty: today, not stepped
        _ = KeyController.handle(.up, conversation: c, ui: &ui)
        #expect(ui.editor.text == "2026-03-01")
        _ = KeyController.handle(.pageUp, conversation: c, ui: &ui)
        #expect(ui.editor.text == "2026-03-31")  // April 1 is past max
        #expect(KeyController.handle(.up, conversation: c, ui: &ui) == .none)  // at max already
        for _ in 0..<3 { _ = KeyController.handle(.pageDown, conversation: c, ui: &ui) }
        #expect(ui.editor.text == "2026-01-15")  // December 31 is before min
        // Typing still edits; ← and → move in the text.
        #expect(KeyController.handle(.left, conversation: c, ui: &ui) == .redraw)
        let view = ConversationView(width: 60, author: c.author, closeTitle: nil, strings: .english)
        var cache = ConversationLayoutCache()
        let (buffer, _) = view.layout(c, ui: ui, cache: &cache)
        #expect((0..<buffer.rows.count).contains { buffer.rowText($0).contains("↑/↓ day · PgUp/PgDn month · Enter send") })
        // No day typed, no today and no bounds: nothing to step from.
        var open = RocketInputNode(text: "When?", buttonTitle: "OK")
        open.inputType = .date
        #expect(steppedDay("", by: (1, 0), input: open, today: nil) == nil)
        #expect(steppedDay("soon", by: (1, 0), input: open, today: "2026-05-05") == "2026-05-05")
    }

    @Test("A whole-number input: ↑/↓ step one and PgUp/PgDn ten from the typed number, else from 0 or the nearest bound, within min and max")
    func integerSteps() throws {
        var input = RocketInputNode(text: "How many?", buttonTitle: "OK")
        input.inputType = .integer
        input.minimum = .number(2.5)
        input.maximum = .number(30)
        let c = Self.started(input)
        var ui = ConversationUI()
        KeyController.sync(&ui, with: c)
        #expect(KeyController.handle(.up, conversation: c, ui: &ui) == .redraw)
        #expect(ui.editor.text == "3", "empty: 0, brought up to the least whole number allowed")
        _ = KeyController.handle(.up, conversation: c, ui: &ui)
        #expect(ui.editor.text == "4")
        _ = KeyController.handle(.pageUp, conversation: c, ui: &ui)
        #expect(ui.editor.text == "14")
        for _ in 0..<3 { _ = KeyController.handle(.pageUp, conversation: c, ui: &ui) }
        #expect(ui.editor.text == "30", "never past max")
        #expect(KeyController.handle(.up, conversation: c, ui: &ui) == .none, "at max already")
        _ = KeyController.handle(.down, conversation: c, ui: &ui)
        #expect(ui.editor.text == "29")
        // The hint says so.
        let (buffer, _) = ConversationView(width: 60, author: c.author, closeTitle: nil, strings: .english).layout(c, ui: ui)
        #expect((0..<buffer.rows.count).contains { buffer.rowText($0).contains("↑/↓ 1 · PgUp/PgDn 10 · Enter send") })
        // Without bounds, from 0 and below it; a typed number past the largest is not stepped from.
        var open = RocketInputNode(text: "?", buttonTitle: "OK")
        open.inputType = .integer
        #expect(steppedInteger("", by: -1, input: open) == "0")
        #expect(steppedInteger("-7", by: -10, input: open) == "-17")
        #expect(steppedInteger("lots", by: 1, input: open) == "0")
        #expect(steppedInteger("9000000000000000", by: 1, input: open) == "9000000000000000")
        #expect(steppedInteger("1e300", by: 1, input: open) == "0")
        // A decimal input is not stepped: ↑ moves nothing there.
        var decimal = RocketInputNode(text: "?", buttonTitle: "OK")
        decimal.inputType = .number
        var dui = ConversationUI()
        let dc = Self.started(decimal)
        KeyController.sync(&dui, with: dc)
        _ = KeyController.handle(.up, conversation: dc, ui: &dui)
        #expect(dui.editor.text == "")
    }

    @Test("A time input: ↑/↓ go to the next or last five minutes and PgUp/PgDn an hour, from the typed time, else from now, within min and max")
    func timeSteps() throws {
        var input = RocketInputNode(text: "When?", buttonTitle: "OK")
        input.inputType = .time
        input.minimum = .text("09:00")
        input.maximum = .text("17:30")
        let c = Self.started(input)
        var ui = ConversationUI()
        ui.timeOfDay = "14:07"
        #expect(KeyController.handle(.up, conversation: c, ui: &ui) == .redraw)
        #expect(ui.editor.text == "14:07")  // empty: now, not stepped
        _ = KeyController.handle(.up, conversation: c, ui: &ui)
        #expect(ui.editor.text == "14:10")  // to the next five minutes
        _ = KeyController.handle(.down, conversation: c, ui: &ui)
        _ = KeyController.handle(.down, conversation: c, ui: &ui)
        #expect(ui.editor.text == "14:00")
        for _ in 0..<4 { _ = KeyController.handle(.pageUp, conversation: c, ui: &ui) }
        #expect(ui.editor.text == "17:30")  // 18:00 is past max
        #expect(KeyController.handle(.pageUp, conversation: c, ui: &ui) == .none)
        for _ in 0..<9 { _ = KeyController.handle(.pageDown, conversation: c, ui: &ui) }
        #expect(ui.editor.text == "09:00")  // before min
        let view = ConversationView(width: 60, author: c.author, closeTitle: nil, strings: .english)
        var cache = ConversationLayoutCache()
        let (buffer, _) = view.layout(c, ui: ui, cache: &cache)
        #expect((0..<buffer.rows.count).contains { buffer.rowText($0).contains("↑/↓ 5 min · PgUp/PgDn hour · Enter send") })
        // A typed "9:58" steps from itself; nothing to start from without a time, now or bounds;
        // never past midnight.
        var open = RocketInputNode(text: "When?", buttonTitle: "OK")
        open.inputType = .time
        #expect(steppedTime("9:58", by: 5, input: open, now: nil) == "10:00")
        #expect(steppedTime("9:58", by: -5, input: open, now: nil) == "09:55")
        #expect(steppedTime("", by: 5, input: open, now: nil) == nil)
        #expect(steppedTime("later", by: 5, input: open, now: "08:15") == "08:15")
        #expect(steppedTime("23:58", by: 5, input: open, now: nil) == "23:59")
        #expect(steppedTime("00:20", by: -60, input: open, now: nil) == "00:00")
    }

    /// A started conversation of one multi-line input ("notes") without an author.
    static func notes() -> Conversation {
        var input = RocketInputNode(text: "Notes?", buttonTitle: "OK")
        input.multiline = true
        var g = RocketGraph()
        g.root = g.add(RocketNode(id: "notes", content: .textInput(input)))
        var c = Conversation(graph: g, author: RocketAuthor(image: nil, name: ""), options: ConversationOptions(timing: .instant))
        c.start(at: 0)
        return c
    }

    @Test("A multi-line input: Enter starts a line, Ctrl-D sends the lines; the field grows and the hint says so")
    func multiline() throws {
        var c = Self.notes()
        var ui = ConversationUI()
        for ch in "ab" { _ = KeyController.handle(.character(ch), conversation: c, ui: &ui) }
        #expect(KeyController.handle(.enter, conversation: c, ui: &ui) == .redraw)
        _ = KeyController.handle(.paste("cd\r\ne"), conversation: c, ui: &ui)
        #expect(ui.editor.text == "ab\ncd\ne")
        let view = ConversationView(width: 40, author: c.author, closeTitle: nil, strings: .english)
        var cache = ConversationLayoutCache()
        let (buffer, _) = view.layout(c, ui: ui, cache: &cache)
        let text = (0..<buffer.rows.count).map { buffer.rowText($0) }
        #expect(text.contains { $0.contains("› ab") && $0.contains("[ OK ]") }, "\(text)")
        #expect(text.contains { $0.contains("┊ cd") } && text.contains { $0.contains("┊ e") }, "\(text)")
        #expect(text.contains { $0.contains("Enter new line · Ctrl-D send") }, "\(text)")
        #expect(KeyController.handle(.ctrl("d"), conversation: c, ui: &ui) == .send(.submit("ab\ncd\ne")))
        try c.send(.submit("ab\ncd\ne"), at: 0)
        #expect(c.answers["notes"]?.value == "ab\ncd\ne")
    }

    @Test("A multi-line field on a short screen shows no more rows than fit under its question: the cursor stays in sight")
    func multilineShortScreen() throws {
        let c = Self.notes()
        var ui = ConversationUI()
        _ = KeyController.handle(.paste((1...10).map { "line \($0)" }.joined(separator: "\n")), conversation: c, ui: &ui)
        for _ in 0..<8 { _ = KeyController.handle(.up, conversation: c, ui: &ui) }
        var view = ConversationView(width: 40, author: c.author, closeTitle: nil, strings: .english)
        view.height = 7
        var cache = ConversationLayoutCache()
        let (buffer, _) = view.layout(c, ui: ui, cache: &cache)
        let text = (0..<buffer.rows.count).map { buffer.rowText($0) }
        // The question (3 rows), the field and the key hint fill the 7 rows; the cursor is on line 2.
        #expect(buffer.rows.count == 7 && text[0].contains("╭") && text[1].contains("Notes?"), "\(text)")
        let cursor = try #require(buffer.cursor)
        #expect(text[cursor.row].contains("line 2"), "\(text), cursor \(cursor)")
        view.height = nil
        #expect(view.layout(c, ui: ui, cache: &cache).0.rows.count == 3 + 8 + 1, "without a height, the field's 8 rows")
    }

    @Test("Keys map to intents by block kind")
    func keys() throws {
        var c = sampleConversation()
        c.start(at: 0)
        var ui = ConversationUI()
        #expect(KeyController.handle(.character("x"), conversation: c, ui: &ui) == .none)
        #expect(KeyController.handle(.enter, conversation: c, ui: &ui) == .send(.tap))
        #expect(KeyController.handle(.character(" "), conversation: c, ui: &ui) == .send(.tap))
        #expect(KeyController.handle(.escape, conversation: c, ui: &ui) == .send(.close))
        #expect(KeyController.handle(.ctrl("c"), conversation: c, ui: &ui) == .interrupt)
        try c.send(.tap, at: 0)
        #expect(KeyController.handle(.enter, conversation: c, ui: &ui) == .send(.pressLeft))
        #expect(KeyController.handle(.tab, conversation: c, ui: &ui) == .redraw)
        #expect(KeyController.handle(.enter, conversation: c, ui: &ui) == .send(.pressRight))
        #expect(KeyController.handle(.backTab, conversation: c, ui: &ui) == .redraw)
        #expect(ui.focus == 0)
        let hits = [HitRegion(row: 3, columns: 4..<12, target: RocketIntent.pressRight)]
        #expect(HitRegion.target(in: hits, row: 3, column: 5) == .pressRight)
        #expect(HitRegion.target(in: hits, row: 9, column: 5) == nil)
        try c.send(.pressLeft, at: 0)
        #expect(KeyController.handle(.character("A"), conversation: c, ui: &ui) == .redraw)
        #expect(ui.focus == 0 && ui.editor.text == "A")  // a new block reset the focus
        #expect(KeyController.handle(.enter, conversation: c, ui: &ui) == .send(.submit("A")))
    }

    @Test("Plain lines: any line taps; numbers or titles choose; inputs take the line")
    func lines() {
        let d = RocketNode(content: .doubleButton(left: RocketButtonNode(title: "Sure"), right: RocketButtonNode(title: "Later")))
        #expect(PlainController.intent(for: "2", block: d, strings: .english) == .success(.pressRight))
        #expect(PlainController.intent(for: " later ", block: d, strings: .english) == .success(.pressRight))
        #expect(PlainController.intent(for: "SURE", block: d, strings: .english) == .success(.pressLeft))
        guard case .failure(let e) = PlainController.intent(for: "3", block: d, strings: .english) else { Issue.record("accepted 3"); return }
        #expect(e.message == "Not a choice: \"3\" — Choose 1-2 or type a title:")
        #expect(PlainController.intent(for: "anything", block: RocketNode(text: "x"), strings: .english) == .success(.tap))
        let single = RocketNode(content: .button(RocketButtonNode(title: "OK")))
        #expect(PlainController.intent(for: "", block: single, strings: .english) == .success(.pressButton))
        #expect(PlainController.intent(for: "  ", block: single, strings: .english) == .success(.pressButton))
        #expect(PlainController.intent(for: "", block: d, strings: .english) != .success(.pressLeft))
        #expect(
            PlainController.intent(for: " a b ", block: RocketNode(content: .textInput(RocketInputNode(text: "q", buttonTitle: "b"))), strings: .english)
                == .success(.submit(" a b ")))
    }
}
