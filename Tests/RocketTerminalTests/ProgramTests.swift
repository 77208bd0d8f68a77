import Testing
import Synchronization
import RocketText
@testable import RocketTerminal
@testable import RocketTerminalApps
@testable import RocketTerminalCore

import RocketBanners
import RocketConversation
import RocketCore
import RocketReactor
import RocketTestSupport

/// Drives an app in-process the way `ProgramRunner` does in TTY mode, drawing each frame into a
/// virtual terminal: no process, no pty, no wall clock.
@MainActor
final class Driver<P: TerminalProgram> {
    let app: P
    let clock: ManualClock
    var terminal: VirtualTerminal
    var renderer = InlineRenderer(depth: .truecolor)
    var hits: [HitRegion<P.Target>] = []

    init(_ app: P, clock: ManualClock, width: Int = 60, height: Int = 20, lineMode: Bool = false) {
        self.app = app
        self.clock = clock
        terminal = VirtualTerminal(width: width, height: height)
        app.lineMode = lineMode
        output = app.start(now: clock.now)
        draw()
    }

    /// Line-mode output so far.
    var output: [ProgramOutput] = []

    func draw() {
        output += app.update(.tick, now: clock.now)
        guard !app.lineMode else { return }
        let frame = app.view(width: terminal.width - 1, height: terminal.height, now: clock.now)
        hits = frame.hits
        terminal.feed(renderer.render(frame.buffer, screenHeight: terminal.height))
    }

    func send(_ event: ProgramEvent<P.Target>) {
        output += app.update(event, now: clock.now)
        draw()
    }

    func keys(_ keys: Key...) { for k in keys { send(.key(k)) } }

    func advance(_ seconds: Double) {
        clock.advance(by: seconds)
        draw()
    }

    /// Clicks the first region whose target matches.
    func click(where match: (P.Target) -> Bool) -> Bool {
        guard let hit = hits.first(where: { match($0.target) }) else { return false }
        send(.click(hit.target))
        return true
    }

    var screen: String { terminal.lines.joined(separator: "\n") }
    var said: [String] { output.compactMap { if case .say(let s) = $0 { return s } else { return nil } } }
    var refused: [String] { output.compactMap { if case .refuse(let s) = $0 { return s } else { return nil } } }
}

struct TestAction: AlertActionType {
    var title: String
    var style: AlertActionStyle = .default
    var isEnabled = true
}

@MainActor
@Suite("Apps of the one program loop, driven in-process")
struct ProgramTests {
    func conversationApp(clock: ManualClock, banner: Banner? = nil) -> ConversationApp {
        let host = ConversationHost(conversation: sampleConversation(), clock: clock)
        return ConversationApp(host: host, strings: .english, depth: .none, banner: banner, reducedMotion: true)
    }

    @Test("Conversation: keys move focus and press, the input validates and submits, the outcome is done")
    func conversationKeys() {
        let clock = ManualClock()
        let d = Driver(conversationApp(clock: clock), clock: clock)
        #expect(d.screen.contains("Hi! 界 I'm Rocket."))
        d.keys(.enter)  // taps the text block
        #expect(d.screen.contains("Sure") && d.screen.contains("Later"))
        d.keys(.right, .left, .enter)  // focus moves right and back; Enter presses "Sure"
        #expect(d.screen.contains("What's your name?"))
        for c in "Ada" { d.keys(.character(c)) }
        d.keys(.enter)
        #expect(d.screen.contains("Thanks, Ada!"))
        d.keys(.enter)
        #expect(d.app.outcome == .done(.completed))
    }

    @Test("Conversation: Esc closes (declined), Ctrl-C and signals interrupt with their number")
    func conversationEnds() {
        let clock = ManualClock()
        let closed = Driver(conversationApp(clock: clock), clock: clock)
        closed.keys(.escape)
        #expect(closed.app.outcome == .declined(.closed) && closed.app.outcome?.exitCode == 1)
        let interrupted = Driver(conversationApp(clock: clock), clock: clock)
        interrupted.send(.interrupt(signal: 15))
        #expect(interrupted.app.outcome == .interrupted(signal: 15) && interrupted.app.outcome?.exitCode == 143)
    }

    @Test("Conversation: a click resolves to the button it hits; the banner overlay sits on top and takes Ctrl-X")
    func conversationClicksAndBanner() {
        let clock = ManualClock()
        var banner = Banner(title: "Heads up")
        banner.duration = 0
        var ended: [String] = []
        let app = conversationApp(clock: clock, banner: banner)
        app.onBannerDismissed = { ended.append($0.line) }
        let d = Driver(app, clock: clock)
        #expect(d.terminal.lines.first?.contains("Heads up") == true)
        d.keys(.enter)
        #expect(d.click { $0 == .intent(.pressRight) })  // "Later" ends the flow…
        #expect(d.app.outcome == .done(.completed))
        #expect(ended == ["swipe"])  // …and a banner does not outlive its conversation
        var dismissed: [String] = []
        let e = Driver(conversationApp(clock: clock, banner: banner), clock: clock)
        e.app.onBannerDismissed = { dismissed.append($0.line) }
        e.keys(.ctrl("x"))
        e.advance(1)
        #expect(dismissed == ["swipe"])
        #expect(!e.screen.contains("Heads up"))
    }

    @Test("Conversation in line mode: transcript lines, refusals, the end of input closes")
    func conversationLines() {
        let clock = ManualClock()
        let d = Driver(conversationApp(clock: clock), clock: clock, lineMode: true)
        #expect(d.said == ["Rocket: Hi! 界 I'm Rocket."])
        #expect(d.app.lineRequest == LineRequest())
        d.send(.line(""))
        #expect(d.said.last == "Rocket: [1] Sure  [2] Later")
        d.send(.line("3"))
        #expect(d.refused == ["Not a choice: \"3\" — Choose 1-2 or type a title:"])
        d.send(.line("later"))
        #expect(d.said.contains("you: Later"))
        let e = Driver(conversationApp(clock: clock), clock: clock, lineMode: true)
        e.send(.inputEnded)
        #expect(e.app.outcome == .declined(.closed))
    }

    @Test("Alert: focus starts on the first safe action, Esc chooses the cancel action (declined), clicks choose")
    func alert() {
        let clock = ManualClock()
        let actions = [TestAction(title: "Delete", style: .destructive), TestAction(title: "Keep"), TestAction(title: "Cancel", style: .cancel)]
        let app = AlertApp(controller: AlertController(reactor: AlertReactor(title: "Delete item?", actions: actions)), strings: .english)
        let d = Driver(app, clock: clock)
        #expect(d.screen.contains("Delete item?"))
        d.keys(.enter)
        #expect(app.outcome == .done(AlertChoice(index: 1, title: "Keep")))
        let esc = Driver(AlertApp(controller: AlertController(reactor: AlertReactor(actions: actions)), strings: .english), clock: clock)
        esc.keys(.escape)
        #expect(esc.app.outcome == .declined(AlertChoice(index: 2, title: "Cancel")))
        let click = Driver(AlertApp(controller: AlertController(reactor: AlertReactor(actions: actions)), strings: .english), clock: clock)
        #expect(click.click { $0 == 0 })
        #expect(click.app.outcome == .done(AlertChoice(index: 0, title: "Delete")))
    }

    @Test("Alert: a live update keeps focus on the same action; when it is gone, focus follows the rule for a new alert")
    func alertLiveUpdateFocus() {
        let clock = ManualClock()
        let controller = AlertController(reactor: AlertReactor<TestAction>(title: "How was it?"))
        controller.store.isStubEnabled = true
        let notNow = TestAction(title: "Not now", style: .cancel)
        controller.store.setStubState(.init(actions: [TestAction(title: "(Loading…)", isEnabled: false), notNow]))
        let app = AlertApp(controller: controller, strings: .english)
        let d = Driver(app, clock: clock)
        #expect(d.screen.contains("(Loading…)"))
        // The actions arrive: focus stays on "Not now", which is now the third.
        controller.store.setStubState(.init(actions: [TestAction(title: "Loved it"), TestAction(title: "It was fine"), notNow]))
        d.draw()
        #expect(d.screen.contains("Loved it"))
        d.keys(.enter)
        #expect(app.outcome == .declined(AlertChoice(index: 2, title: "Not now")))

        // Moved by the user, focus follows the action it is on across an update that reorders.
        let other = AlertController(reactor: AlertReactor<TestAction>())
        other.store.isStubEnabled = true
        other.store.setStubState(.init(actions: [TestAction(title: "A"), TestAction(title: "B"), notNow]))
        let moved = Driver(AlertApp(controller: other, strings: .english), clock: clock)
        moved.keys(.right)  // A → B
        other.store.setStubState(.init(actions: [TestAction(title: "B"), TestAction(title: "C"), TestAction(title: "A"), notNow]))
        moved.draw()
        moved.keys(.enter)
        #expect(moved.app.outcome == .done(AlertChoice(index: 0, title: "B")))

        // The focused action is gone (or disabled): the first safe action, as for a new alert.
        let gone = AlertController(reactor: AlertReactor<TestAction>())
        gone.store.isStubEnabled = true
        gone.store.setStubState(.init(actions: [TestAction(title: "A"), TestAction(title: "B"), notNow]))
        let g = Driver(AlertApp(controller: gone, strings: .english), clock: clock)
        g.keys(.right)
        gone.store.setStubState(.init(actions: [TestAction(title: "C"), TestAction(title: "B", isEnabled: false), notNow]))
        g.draw()
        g.keys(.enter)
        #expect(g.app.outcome == .done(AlertChoice(index: 0, title: "C")))
    }

    @Test("Alert in line mode: listing, a disabled action refused, a title chooses")
    func alertLines() {
        let clock = ManualClock()
        let actions = [TestAction(title: "Archive", isEnabled: false), TestAction(title: "Keep")]
        let d = Driver(
            AlertApp(controller: AlertController(reactor: AlertReactor(title: "T", actions: actions)), strings: .english), clock: clock, lineMode: true)
        #expect(d.said == ["T", "[1] Archive (unavailable)", "[2] Keep"])
        d.send(.line("1"))
        #expect(d.refused == ["\"Archive\" is not available now."])
        d.send(.line(" KEEP "))
        #expect(d.app.outcome == .done(AlertChoice(index: 1, title: "Keep")))
    }

    @Test("Banner: focus and Enter press a button; the app ends after the exit animation; a timeout declines")
    func banner() throws {
        let clock = ManualClock()
        var b = Banner(title: "Update ready")
        b.buttons = try BannerButtons(configuration: 2, titles: ["Later", "Install"])
        b.duration = 0
        let app = BannerApp(banner: b, center: BannerCenter(clock: clock), view: BannerView(width: 40, strings: .english), strings: .english)
        let d = Driver(app, clock: clock)
        d.advance(1)
        #expect(d.screen.contains("Update ready") && d.screen.contains("Install"))
        d.keys(.right, .enter)
        d.advance(1)
        #expect(app.outcome == .done(BannerResult(dismissal: .button(.secondOfTwo), buttonTitle: "Install")))
        #expect(app.outcome?.line == "button:Install")
        var timed = Banner(title: "Brief")
        timed.duration = 2
        let t = Driver(
            BannerApp(banner: timed, center: BannerCenter(clock: clock), view: BannerView(width: 40, strings: .english), strings: .english), clock: clock)
        t.advance(1)
        #expect(t.app.outcome == nil)
        t.advance(3)
        #expect(t.app.outcome?.line == "timeout" && t.app.outcome?.exitCode == 1)
    }

    @Test("The choice parser: numbers, titles in any case, aliases, disabled options")
    func choiceParser() {
        #expect(ChoiceParser.parse(" 2 ", titles: ["a", "b"]) == .success(1))
        #expect(ChoiceParser.parse("B", titles: ["a", "b"]) == .success(1))
        #expect(ChoiceParser.parse("close", titles: ["a", "b"], aliases: [1: "close"]) == .success(1))
        #expect(ChoiceParser.parse("0", titles: ["a"]) == .failure(.notAChoice("0")))
        #expect(ChoiceParser.parse("a", titles: ["a"], enabled: [false]) == .failure(.unavailable(title: "a")))
        // Typed without accents, as an ASCII terminal shows a title: when it names one.
        #expect(ChoiceParser.parse("cafe", titles: ["thé", "Café"]) == .success(1))
        #expect(ChoiceParser.parse("CREME BRULEE", titles: ["crème brûlée"]) == .success(0))
        #expect(ChoiceParser.parse("cafe", titles: ["café", "cafe"]) == .success(1))  // the exact one first
        #expect(ChoiceParser.parse("cafe", titles: ["café", "cafè"]) == .failure(.notAChoice("cafe")))  // two: neither
        #expect(ChoiceParser.parse("??", titles: ["茶", "水"]) == .failure(.notAChoice("??")))
    }

    @Test("A search key folds case and Latin accents only: what choose filters and line mode matches with")
    func searchKeys() {
        #expect(GlyphSet.searchKey("Café Crème") == "cafe creme")
        #expect(GlyphSet.searchKey("e\u{301}te\u{301}") == "ete")  // combining marks
        #expect(GlyphSet.searchKey("Łódź") == "lodz")
        #expect(GlyphSet.searchKey("茶 × ÷ ß") == "茶 × ÷ s")
        #expect(GlyphSet.searchKey("ПРИВЕТ") == "привет")
        let clock = ManualClock()
        let d = Driver(ChooseApp(title: nil, options: ["café", "thé", "cafetière", "Kaffee"], limit: 1, strings: .english), clock: clock)
        d.send(.key(.paste("cafe")))
        #expect(d.app.matches == [0, 2])
        d.keys(.ctrl("u"))
        d.send(.key(.paste("É")))
        #expect(d.app.matches == [0, 1, 2, 3])
    }

    @Test("choose: a paste is one edit of the filter; the matches follow every change of the filter")
    func choosePasteFilter() {
        let clock = ManualClock()
        let app = ChooseApp(title: nil, options: (1...5000).map { "option-\($0)" } + ["Zebra"], limit: 1, strings: .english)
        let d = Driver(app, clock: clock)
        d.send(.key(.paste(String(repeating: "x", count: 200_000))))
        #expect(app.matches.isEmpty && d.screen.contains("no match"))
        d.keys(.ctrl("u"))
        #expect(app.matches.count == 5001)
        d.send(.key(.paste("ZEB")))
        #expect(app.matches == [5000])
        d.keys(.backspace, .backspace, .backspace)
        d.send(.key(.paste("n-4999")))
        #expect(app.matches == [4998])
        d.keys(.enter)
        #expect(app.outcome == .done(["option-4999"]))
    }

    @Test("Choose: arrows move, typing filters, Tab selects up to the limit, Enter chooses in list order, Esc declines")
    func choose() {
        let clock = ManualClock()
        let one = Driver(ChooseApp(title: "Color", options: ["red", "green", "blue"], limit: 1, strings: .english), clock: clock)
        #expect(one.screen.contains("❯ red"))
        one.keys(.down, .down, .down, .up)
        #expect(one.screen.contains("❯ green"))
        one.keys(.character("b"))
        #expect(one.screen.contains("❯ blue") && !one.screen.contains("green"))
        one.keys(.enter)
        #expect(one.app.outcome == .done(["blue"]))
        let many = Driver(ChooseApp(title: nil, options: ["a", "b", "c"], limit: 2, strings: .english), clock: clock)
        many.keys(.down, .down, .tab, .up, .up, .tab, .down, .tab, .enter)  // c, a; b refused (limit 2)
        #expect(many.app.outcome == .done(["a", "c"]))
        let none = Driver(ChooseApp(title: nil, options: ["a"], limit: 1, strings: .english), clock: clock)
        none.keys(.character("z"))
        #expect(none.screen.contains("no match"))
        none.keys(.enter, .escape)
        #expect(none.app.outcome == .declined(nil))
        let click = Driver(ChooseApp(title: nil, options: ["x", "y"], limit: 1, strings: .english), clock: clock)
        #expect(click.click { $0 == 1 })
        #expect(click.app.outcome == .done(["y"]))
    }

    @Test("Choose ordered: the ticks show their order, the choices come in it, an unticked one gives its place up")
    func chooseOrdered() {
        let clock = ManualClock()
        let app = ChooseApp(title: nil, options: ["a", "b", "c", "d"], limit: Int.max, strings: .english)
        app.ordered = true
        let d = Driver(app, clock: clock)
        d.keys(.down, .down, .tab, .up, .up, .tab, .down, .down, .down, .tab)  // c, a, d
        #expect(d.screen.contains("1 c") && d.screen.contains("2 a") && d.screen.contains("3 d") && d.screen.contains("○ b"), "\(d.screen)")
        d.keys(.up, .up, .up, .tab)  // a unticked: d moves up to 2
        #expect(d.screen.contains("2 d") && d.screen.contains("○ a"), "\(d.screen)")
        d.keys(.enter)
        #expect(app.outcome == .done(["c", "d"]) && app.summary?.answer == "c, d")
        // A typed line's order, each once; without `ordered`, list order.
        for (isOrdered, expected) in [(true, ["c", "a"]), (false, ["a", "c"])] {
            let line = ChooseApp(title: nil, options: ["a", "b", "c"], limit: 3, strings: .english)
            line.lineMode = true
            line.ordered = isOrdered
            let l = Driver(line, clock: clock)
            l.send(.line("3, 1, 3"))
            #expect(line.outcome == .done(expected), "\(isOrdered)")
        }
        #expect((try? ChoiceParser.parseInOrder("b a b", titles: ["a", "b"]).get()) == [1, 0])
    }

    @Test("Choose with values: the list shows and filters the labels, the outcome is the values, the summary the labels")
    func chooseValues() {
        let clock = ManualClock()
        let app = ChooseApp(title: "Env", options: ["Production", "Staging"], values: ["prod", "stage"], limit: 1, strings: .english)
        let d = Driver(app, clock: clock)
        #expect(d.screen.contains("❯ Production") && !d.screen.contains("prod\n"))
        d.keys(.character("p"), .character("r"), .character("o"), .character("d"))
        #expect(d.screen.contains("❯ Production"))
        d.keys(.enter)
        #expect(app.outcome == .done(["prod"]))
        #expect(app.summary?.answer == "Production")
        // Values are not searched: typing a letter only the value holds matches nothing.
        let hidden = Driver(ChooseApp(title: nil, options: ["Alpha"], values: ["zzz"], limit: 1, strings: .english), clock: clock)
        hidden.keys(.character("z"))
        #expect(hidden.screen.contains("no match"))
        // Values of the wrong count are ignored: the options answer.
        let odd = ChooseApp(title: nil, options: ["a", "b"], values: ["x"], limit: 1, strings: .english)
        let o = Driver(odd, clock: clock)
        o.keys(.enter)
        #expect(odd.outcome == .done(["a"]))
    }

    @Test("--timeout: every key starts the wait again, the countdown shows whole seconds, and the prompt ends declined once it runs out")
    func promptTimeout() {
        let clock = ManualClock()
        let app = PromptTimeout(
            ChooseApp(title: "Color", options: ["red", "green"], limit: 1, strings: .english), seconds: 3, question: "Color", strings: .english)
        let d = Driver(app, clock: clock)
        #expect(d.screen.contains("times out in 3s"))
        #expect(app.nextDeadline(now: clock.now) == clock.now + 1, "the countdown is redrawn when it crosses a whole second")
        d.advance(1.5)
        #expect(d.screen.contains("times out in 2s") && app.outcome == nil)
        d.keys(.down)  // a key: the wait starts again
        d.advance(2.5)
        #expect(d.screen.contains("times out in 1s") && app.outcome == nil && !app.timedOut)
        d.advance(0.5)
        #expect(app.timedOut && app.outcome == .declined(nil))
        #expect(app.summary == ProgramSummary(question: "Color", answer: "timed out"))
        d.keys(.enter)
        #expect(app.outcome == .declined(nil), "nothing reaches the prompt once it timed out")

        // An answer before the deadline is the prompt's own; the countdown goes with it.
        let answered = Driver(
            PromptTimeout(ChooseApp(title: nil, options: ["a", "b"], limit: 1, strings: .english), seconds: 1, question: nil, strings: .english), clock: clock)
        answered.keys(.enter)
        answered.advance(5)
        #expect(answered.app.outcome == .done(["a"]) && !answered.app.timedOut && !answered.screen.contains("times out"))

        // Line mode: said once; each line starts the wait again; a default answer is named in the line left.
        let lines = PromptTimeout(ChooseApp(title: nil, options: ["a", "b"], limit: 1, strings: .chinese), seconds: 90, question: "Q", strings: .chinese)
        lines.answerOnTimeout = "b"
        let l = Driver(lines, clock: clock, lineMode: true)
        #expect(l.said.contains("(1m30s 后超时)"))
        #expect(lines.nextDeadline(now: clock.now) == clock.now + 90, "no countdown to redraw in line mode")
        l.advance(60)
        l.send(.line("zz"))  // refused, but it is an answer: the wait starts again
        l.advance(60)
        #expect(!lines.timedOut)
        l.advance(30)
        #expect(lines.timedOut && lines.summary?.answer == "b · 已超时")
    }

    @Test("Choose --selected: the cursor starts on it (scrolled into view), ticked with a limit; Enter or an empty line takes it")
    func choosePreselected() {
        let clock = ManualClock()
        let one = ChooseApp(title: nil, options: (1...30).map { "o\($0)" }, limit: 1, strings: .english)
        one.visibleRows = 5
        one.preselect([24])
        let d = Driver(one, clock: clock)
        #expect(d.screen.contains("❯ o25") && !d.screen.contains("o1\n"))
        d.keys(.enter)
        #expect(one.outcome == .done(["o25"]))
        let many = ChooseApp(title: nil, options: ["a", "b", "c"], limit: 2, strings: .english)
        many.preselect([2, 0, 1])  // more than the limit: the first two
        let m = Driver(many, clock: clock)
        #expect(m.screen.contains("◉ a") && m.screen.contains("◉ c") && m.screen.contains("○ b"))
        m.keys(.tab, .enter)  // the cursor is on a: unticked
        #expect(many.outcome == .done(["c"]))
        let lines = ChooseApp(title: nil, options: ["a", "b"], limit: 1, strings: .english)
        lines.preselect([1])
        let l = Driver(lines, clock: clock, lineMode: true)
        #expect(l.said.contains("[2] b ✓"))
        l.send(.line(" "))
        #expect(lines.outcome == .done(["b"]))
    }

    @Test("Choose at 20 columns: long options end in an ellipsis and the hint drops whole items")
    func chooseNarrow() {
        let clock = ManualClock()
        let d = Driver(ChooseApp(title: nil, options: [String(repeating: "long ", count: 10)], limit: 1, strings: .english), clock: clock, width: 20)
        #expect(d.screen.contains("…"))
        let hint = d.terminal.lines.first { $0.contains("move") } ?? ""
        #expect(hint.trimmingSpaces() == "↑/↓ move")
    }

    @Test("Spin: nothing before --show-after; once shown it stays for --min-display; done with the status; Esc interrupts")
    func spin() {
        let clock = ManualClock()
        var status: Int32?
        let app = SpinApp(title: "Work", showAfter: 1, minDisplay: 2, status: { status })
        let d = Driver(app, clock: clock)
        d.advance(0.5)
        #expect(!app.isShown && !d.screen.contains("Work"))
        d.advance(0.6)
        #expect(app.isShown && d.screen.contains("Work"))
        status = 4
        d.advance(0.5)
        #expect(app.outcome == nil)  // shown 0.5 s ago: stays up for the minimum
        d.advance(1.6)
        #expect(app.outcome == .done(4) && !d.screen.contains("Work"))
        let quick = SpinApp(title: "Quick", showAfter: 1, minDisplay: 2, status: { 0 })
        let q = Driver(quick, clock: clock)
        #expect(quick.outcome == .done(0) && !quick.isShown)
        _ = q
        // Keys are the command's: Esc does nothing to the spinner (and the runtime reads none).
        let esc = Driver(SpinApp(title: "Esc", showAfter: 0, minDisplay: 0, status: { nil }), clock: clock)
        esc.keys(.escape)
        #expect(esc.app.outcome == nil && !esc.app.readsKeys)
    }

    @Test("Hint lines drop whole items, and truncation ends in an ellipsis")
    func hints() {
        #expect(HintLine.fit(["Enter send", "Esc ✕", "Ctrl-C quit"], width: 22) == "Enter send  ·  Esc ✕")
        #expect(HintLine.fit(["Enter send", "Esc ✕"], width: 6) == "Enter…")
        #expect(DisplayWidth.truncate("界界界", to: 4) == "界…")
    }

    @Test("A banner at 20 columns: the title ends in an ellipsis, buttons move to a row of their own, every one shown with its label end")
    func narrowBanner() throws {
        let clock = ManualClock()
        var b = Banner(title: "Maintenance window tonight")
        b.buttons = try BannerButtons(configuration: 2, titles: ["Remind me later", "Open now"])
        let app = BannerApp(
            banner: b, center: BannerCenter(clock: clock, queue: BannerQueue(reducedMotion: true)), view: BannerView(width: 20, strings: .english),
            strings: .english)
        let d = Driver(app, clock: clock, width: 21)
        #expect(d.terminal.lines[0].contains("Maintenance") && d.terminal.lines[0].contains("…"))
        let buttonRow = try #require(d.terminal.lines.firstIndex { $0.contains("Remin") })
        #expect(buttonRow > 0 && d.terminal.lines[buttonRow].contains("Open"))
        #expect(d.click { $0 == .secondOfTwo })  // the hit regions follow the buttons to their row
        clock.advance(by: 1)
        d.draw()
        #expect(app.outcome?.line == "button:Open now")
    }

    @Test("A choice block in the terminal: a list, ↑/↓ move, Enter chooses, only the choice stays; in line mode a number or a title")
    func choiceBlock() throws {
        let clock = ManualClock()
        var g = RocketGraph()
        let end = g.add(RocketNode(id: "end", text: "You chose {{plan}}."))
        let options = ["Free", "Pro", "Team"].map { RocketButtonNode(title: $0, next: end) }
        g.root = g.add(RocketNode(id: "plan", content: .choice(RocketChoiceNode(text: "Which plan?", options: options))))
        func app() -> ConversationApp {
            let c = Conversation(graph: g, options: ConversationOptions(timing: .instant))
            return ConversationApp(host: ConversationHost(conversation: c, clock: clock), strings: .english, depth: .none)
        }
        let d = Driver(app(), clock: clock)
        #expect(d.screen.contains("[ Free ]") && d.screen.contains("[ Pro ]") && d.screen.contains("[ Team ]"))
        d.keys(.down, .down, .down, .up, .enter)
        #expect(d.screen.contains("You chose Pro.") && !d.screen.contains("[ Team ]"))
        let click = Driver(app(), clock: clock)
        #expect(click.click { $0 == .intent(.choose(2)) })
        #expect(click.screen.contains("You chose Team."))
        let lines = Driver(app(), clock: clock, lineMode: true)
        #expect(lines.said.contains { $0.contains("[1] Free  [2] Pro  [3] Team") })
        lines.send(.line("4"))
        #expect(lines.refused == ["Not a choice: \"4\" — Choose 1-3 or type a title:"])
        lines.send(.line("team"))
        #expect(lines.said.contains("you: Team") && lines.said.contains("Rocket: You chose Team."))
    }

    @Test("A multiple choice with bounds says how many may be ticked; too many is refused in words on the screen, and a new tick clears them")
    func multipleChoiceBounds() throws {
        let clock = ManualClock()
        var g = RocketGraph()
        let end = g.add(RocketNode(id: "end", text: "You use {{tools}}."))
        var choice = RocketChoiceNode(text: "Which do you use?", options: ["Terminal", "Browser", "Scripts"].map { RocketButtonNode(title: $0) })
        (choice.multiple, choice.maxChosen, choice.next) = (true, 2, end)
        g.root = g.add(RocketNode(id: "tools", content: .choice(choice)))
        let c = Conversation(graph: g, options: ConversationOptions(timing: .instant))
        let d = Driver(ConversationApp(host: ConversationHost(conversation: c, clock: clock), strings: .english, depth: .none), clock: clock)
        #expect(d.screen.contains("Choose up to 2"), "\(d.screen)")
        d.keys(.character(" "), .down, .character(" "), .down, .character(" "), .enter)
        #expect(d.screen.contains("Choose at most 2.") && d.screen.contains("☑ Scripts"), "\(d.screen)")
        d.keys(.character(" "))
        #expect(!d.screen.contains("Choose at most 2.") && d.screen.contains("☐ Scripts"), "\(d.screen)")
        d.keys(.enter)
        #expect(d.screen.contains("You use Terminal, Browser."), "\(d.screen)")
        // Line mode lists a short list on one line (a long one, an option a line: longLists).
        let longLines = Driver(
            ConversationApp(
                host: ConversationHost(conversation: Conversation(graph: g, options: ConversationOptions(timing: .instant)), clock: clock),
                strings: .english, depth: .none), clock: clock, lineMode: true)
        #expect(longLines.said.contains("        [1] Terminal  [2] Browser  [3] Scripts"), "\(longLines.said)")
        // Line mode on a terminal says the rule before its prompt.
        let lineApp = ConversationApp(
            host: ConversationHost(conversation: Conversation(graph: g, options: ConversationOptions(timing: .instant)), clock: clock),
            strings: .english, depth: .none)
        lineApp.lineHints = true
        let lines = Driver(lineApp, clock: clock, lineMode: true)
        #expect(lines.said.contains("Choose up to 2") && lines.said.contains { $0.hasPrefix("Choose from 1-3") }, "\(lines.said)")
        lines.send(.line("1 2 3"))
        #expect(lines.refused == ["Choose at most 2."], "\(lines.refused)")
        // Every language words the rule, and both bounds read in order.
        for strings in UIStrings.all {
            let language = strings.language
            let rule = try #require(strings.chooseRule(least: 2, most: 3), "\(language)")
            #expect(!rule.contains("%") && rule.contains("2") && rule.contains("3"), "\(language): \(rule)")
            #expect(rule.firstRange(of: "2")!.lowerBound < rule.firstRange(of: "3")!.lowerBound, "\(language): \(rule)")
        }
        #expect(UIStrings.english.chooseRule(least: nil, most: nil) == nil)
        #expect(UIStrings.english.chooseRule(least: 2, most: nil) == "Choose at least 2")
        #expect(UIStrings.english.chooseRule(least: 2, most: 2) == "Choose 2", "not \"Choose 2 to 2\"")
    }

    @Test("A list longer than the screen shows a window under its question that holds the focus, with how many are out of sight")
    func longLists() throws {
        let clock = ManualClock()
        var g = RocketGraph()
        let end = g.add(RocketNode(id: "end", text: "You chose {{one}} and {{many}}."))
        let titles = (1...40).map { "Option \($0)" }
        var many = RocketChoiceNode(text: "Which ones?", options: titles.map { RocketButtonNode(title: $0) })
        (many.multiple, many.next) = (true, end)
        let manyID = g.add(RocketNode(id: "many", content: .choice(many)))
        g.root = g.add(
            RocketNode(id: "one", content: .choice(RocketChoiceNode(text: "Which one?", options: titles.map { RocketButtonNode(title: $0, next: manyID) }))))
        let c = Conversation(graph: g, options: ConversationOptions(timing: .instant))
        let lines = Driver(
            ConversationApp(host: ConversationHost(conversation: c, clock: clock), strings: .english, depth: .none), clock: clock, lineMode: true)
        #expect(lines.said.contains("        [1] Option 1") && lines.said.contains("        [40] Option 40"), "an option a line: \(lines.said)")
        let d = Driver(ConversationApp(host: ConversationHost(conversation: c, clock: clock), strings: .english, depth: .none), clock: clock, height: 12)
        #expect(d.screen.contains("Which one?") && d.screen.contains("[ Option 1 ]") && d.screen.contains("↓ 34 more"), "\(d.screen)")
        #expect(!d.screen.contains("[ Option 7 ]") && !d.screen.contains("↑ "))
        for _ in 0..<25 { d.keys(.down) }
        // The window moved as far as the focus needed: the focus on its last row.
        #expect(d.screen.contains("Which one?") && d.screen.contains("↑ 20 more") && d.screen.contains("[ Option 26 ]"), "\(d.screen)")
        #expect(d.terminal.lines.last { $0.contains("[ Option") }?.contains("Option 26") == true, "\(d.screen)")
        d.keys(.up, .up)
        #expect(d.screen.contains("↑ 20 more") && d.screen.contains("[ Option 24 ]"), "the window stands still while the focus is in it")
        // PgDn and PgUp move the focus by the window's rows (6 here).
        d.keys(.home, .pageDown)
        #expect(d.screen.contains("[ Option 7 ]") && d.screen.contains("↑ 1 more"), "\(d.screen)")
        d.keys(.pageUp)
        #expect(d.screen.contains("[ Option 1 ]") && !d.screen.contains("↑ "), "\(d.screen)")
        d.keys(.end, .enter)
        #expect(d.screen.contains("Which ones?") && d.screen.contains("☐ Option 1") && d.screen.contains("[ Done ]"), "\(d.screen)")
        d.keys(.end)
        #expect(d.screen.contains("☐ Option 40") && d.screen.contains("[ Done ]") && !d.screen.contains("↓ "), "\(d.screen)")
        d.keys(.up, .character(" "), .up, .up, .character(" "), .enter)
        #expect(d.screen.contains("You chose Option 40 and Option 38, Option 40."), "\(d.screen)")
        // What scrolled away is whole in the scrollback: each answered list keeps only its choice.
        let all = d.terminal.allLines
        #expect(all.filter { $0.contains("Which one?") }.count == 1 && all.filter { $0.contains("Which ones?") }.count == 1, "\(all)")
        #expect(all.filter { $0.contains("[ Option 40 ]") }.count == 1 && !all.contains { $0.contains("more") }, "\(all)")
    }

    @Test("A long list left unanswered (Ctrl-C, Esc) leaves the window that was on the screen in the scrollback, not every option")
    func longListLeftUnanswered() throws {
        let clock = ManualClock()
        let titles = (1...40).map { "Option \($0)" }
        for multiple in [false, true] {
            for ending in [ProgramEvent<ConversationTarget>.interrupt(signal: 2), .key(.escape)] {
                var g = RocketGraph()
                var list = RocketChoiceNode(text: "Which one?", options: titles.map { RocketButtonNode(title: $0) })
                list.multiple = multiple
                g.root = g.add(RocketNode(id: "one", content: .choice(list)))
                let c = Conversation(graph: g, options: ConversationOptions(timing: .instant))
                let d = Driver(
                    ConversationApp(host: ConversationHost(conversation: c, clock: clock), strings: .english, depth: .none), clock: clock, height: 12)
                for _ in 0..<9 { d.keys(.down) }
                d.send(ending)
                #expect(d.app.outcome != nil)
                let all = d.terminal.allLines
                let shown = all.filter { $0.contains("Option ") }
                #expect(shown.count <= 12 && all.contains { $0.contains("Option 10") }, "multiple \(multiple), \(ending): \(all)")
                #expect(!all.contains { $0.contains("Option 40") } && all.contains { $0.contains("↓ ") && $0.contains(" more") }, "\(all)")
            }
        }
    }

    @Test("A picture choice shows the focused option's picture under the list, in rows that stand still; fewer on a short screen, none without colour")
    func pictureChoice() throws {
        let clock = ManualClock()
        let square = TerminalImage(width: 16, height: 16, pixels: [UInt8](repeating: 255, count: 16 * 16 * 4))
        let asked = Mutex<[String]>([])
        let loader: PictureLoader = { image in
            asked.withLock { $0.append(image.cacheKey) }
            return image == .file("/f/a.png") || image == .file("/f/l.png") ? square : nil
        }
        func app(depth: ColorDepth = .indexed256, _ content: (RocketNodeID) -> RocketNodeContent) -> ConversationApp {
            var g = RocketGraph()
            let end = g.add(RocketNode(id: "end", text: "Noted: {{pick}}."))
            g.root = g.add(RocketNode(id: "pick", content: content(end)))
            let c = Conversation(graph: g, options: ConversationOptions(timing: .instant))
            return ConversationApp(host: ConversationHost(conversation: c, clock: clock), strings: .english, depth: depth, pictures: loader)
        }
        func picture(in text: [String]) -> [Int] { text.indices.filter { text[$0].contains("▀") || text[$0].contains("▄") } }
        let choice = { (end: RocketNodeID) in
            RocketNodeContent.choice(
                RocketChoiceNode(
                    text: "Which look?",
                    options: [
                        RocketButtonNode(title: "The rocket", next: end, image: .file("/f/a.png")),
                        RocketButtonNode(title: "Missing", next: end, image: .file("/f/x.png")), RocketButtonNode(title: "Neither", next: end),
                    ]))
        }
        let d = Driver(app(choice), clock: clock, height: 30)
        let lines = d.terminal.lines
        let last = try #require(lines.lastIndex { $0.contains("[ Neither ]") }), hint = try #require(lines.firstIndex { $0.contains("↑/↓") })
        let shown = picture(in: lines)
        #expect(!shown.isEmpty && shown.allSatisfy { $0 > last && $0 < hint }, "under the list, over the hint: \(d.screen)")
        let tall = d.app.view(width: 59, height: 30, now: clock.now).buffer.rows.count
        // Only the focused option's picture is decoded: not every picture of a long choice at once.
        #expect(asked.withLock { $0 } == ["/f/a.png"], "\(asked.withLock { $0 })")
        // The focus on an option without a picture (or whose picture cannot be read): the rows stay, empty.
        for _ in 0..<2 {
            d.keys(.down)
            #expect(picture(in: d.terminal.lines).isEmpty && d.app.view(width: 59, height: 30, now: clock.now).buffer.rows.count == tall, "\(d.screen)")
        }
        #expect(asked.withLock { $0 } == ["/f/a.png", "/f/x.png"], "each once, as it is focused: \(asked.withLock { $0 })")
        d.keys(.up, .up)
        #expect(picture(in: d.terminal.lines) == shown)
        // The picture is part of its option: a click on it chooses that option.
        let onPicture = d.app.view(width: 59, height: 30, now: clock.now).hits.filter {
            if case .intent(.choose(0)) = $0.target { true } else { false }
        }
        #expect(onPicture.count > shown.count, "the option's row and each of its picture's rows: \(onPicture.map(\.row))")
        // Once chosen, the choice alone: no picture in the scrollback.
        d.keys(.enter)
        #expect(d.screen.contains("Noted: The rocket.") && picture(in: d.terminal.allLines).isEmpty, "\(d.terminal.allLines)")
        // A short screen: the picture takes what is left under the options (never the options' room) …
        let short = Driver(app(choice), clock: clock, height: 12)
        #expect(short.screen.contains("Which look?") && short.screen.contains("[ Neither ]") && !picture(in: short.terminal.lines).isEmpty, "\(short.screen)")
        #expect(short.app.view(width: 59, height: 12, now: clock.now).buffer.rows.count <= 12)
        // … and none when fewer than 3 rows are left; none without colour, where pictures are not drawn.
        let shorter = Driver(app(choice), clock: clock, height: 9)
        #expect(picture(in: shorter.terminal.lines).isEmpty && shorter.screen.contains("[ Neither ]"), "\(shorter.screen)")
        #expect(picture(in: Driver(app(depth: .none, choice), clock: clock, height: 30).terminal.lines).isEmpty)
        // Two buttons: the focused side's picture.
        let sides = Driver(
            app { end in
                .doubleButton(left: RocketButtonNode(title: "Left", next: end, image: .file("/f/l.png")), right: RocketButtonNode(title: "Right", next: end))
            }, clock: clock, height: 30)
        #expect(!picture(in: sides.terminal.lines).isEmpty, "\(sides.screen)")
        sides.keys(.right)
        #expect(picture(in: sides.terminal.lines).isEmpty, "\(sides.screen)")
    }

    @Test("A banner over a conversation taller than the screen goes under it, in sight; no row of the conversation is lost")
    func bannerUnderTallConversation() throws {
        let clock = ManualClock()
        var g = RocketGraph()
        var next: RocketNodeID? = nil
        for k in (0..<8).reversed() { next = g.add(RocketNode(id: "t\(k)", text: "Line \(k) of the conversation.", next: next)) }
        g.root = next
        var banner = Banner(title: "Heads up")
        banner.duration = 60
        let c = Conversation(graph: g, options: ConversationOptions(timing: .instant))
        let app = ConversationApp(host: ConversationHost(conversation: c, clock: clock), strings: .english, depth: .none, banner: banner, reducedMotion: true)
        let d = Driver(app, clock: clock, height: 12)
        #expect(d.terminal.lines.first?.contains("Heads up") == true, "over a conversation that fits: \(d.screen)")
        for _ in 0..<7 { d.keys(.enter) }
        #expect(d.screen.contains("Heads up") && d.screen.contains("Line 7 of the conversation."), "\(d.screen)")
        // A click lands on the banner where it is drawn now (its regions moved with it).
        let frame = app.view(width: 59, height: 12, now: clock.now)
        let bannerRows = frame.hits.filter { if case .banner = $0.target { true } else { false } }.map(\.row)
        #expect(!bannerRows.isEmpty && bannerRows.allSatisfy { $0 >= frame.buffer.rows.count - 4 }, "\(bannerRows) of \(frame.buffer.rows.count)")
        #expect(bannerRows.contains { frame.buffer.rowText($0).contains("Heads up") }, "\(bannerRows)")
        let all = d.terminal.allLines
        for k in 0..<8 { #expect(all.filter { $0.contains("Line \(k) of") }.count == 1, "Line \(k): \(all)") }
    }

    @Test("An alert with more actions than the screen has rows keeps its title and the focused action in sight")
    func longAlert() throws {
        let clock = ManualClock()
        let actions = (1...25).map { TestAction(title: "Action \($0)") } + [TestAction(title: "Never mind", style: .cancel)]
        let app = AlertApp(controller: AlertController(reactor: AlertReactor(title: "Pick one", actions: actions)), strings: .english)
        let d = Driver(app, clock: clock, height: 12)
        #expect(d.screen.contains("Pick one") && d.screen.contains("Action 1") && d.screen.contains("↓ "), "\(d.screen)")
        for _ in 0..<14 { d.keys(.down) }
        #expect(d.screen.contains("Pick one") && d.screen.contains("Action 15") && d.screen.contains("↑ "), "\(d.screen)")
        d.keys(.up)
        #expect(d.screen.contains("Action 15"), "the window stands still while the focus is in it")
        // A typed letter moves to the next action that begins with it (the cancel action, here).
        d.keys(.character("N"), .enter)
        #expect(app.outcome == .declined(AlertChoice(index: 25, title: "Never mind")), "\(String(describing: app.outcome))")
        // Without a height (or with room for all), the list is whole.
        var view = AlertView(width: 60, strings: .english)
        let items = actions.map { (title: $0.title, style: $0.style, isEnabled: true) }
        let whole = view.frame(title: "Pick one", message: nil, buttons: items, style: .actionSheet, focus: 20).0.lines.joined(separator: "\n")
        #expect(whole.contains("Action 1 ") && whole.contains("Action 25") && !whole.contains("more"), "\(whole)")
    }

    @Test("An optional question sent empty: its reply says \"No answer\" (dimmed), not an empty bubble; line mode says it in brackets")
    func emptyReply() throws {
        let clock = ManualClock()
        func conversation() -> Conversation {
            var g = RocketGraph()
            let end = g.add(RocketNode(id: "end", text: "Thanks."))
            g.root = g.add(RocketNode(id: "mail", content: .textInput(RocketInputNode(text: "Your e-mail?", buttonTitle: "Send", next: end))))
            return Conversation(graph: g, options: ConversationOptions(timing: .instant, echoReplies: true))
        }
        let d = Driver(
            ConversationApp(host: ConversationHost(conversation: conversation(), clock: clock), strings: .english, depth: .none), clock: clock)
        d.keys(.enter)
        let lines = d.terminal.lines
        let reply = try #require(lines.firstIndex { $0.contains("No answer") }, "\(d.screen)")
        #expect(lines[reply - 1].contains("╭") && lines[reply + 1].contains("╰") && d.screen.contains("Thanks."), "\(d.screen)")
        #expect(!lines.contains { $0.contains("│  │") }, "no empty bubble: \(d.screen)")
        // What a prompt leaves behind (rocket input's summary line, a lone question) says it too.
        var lone = RocketGraph()
        lone.root = lone.add(RocketNode(id: "q", content: .textInput(RocketInputNode(text: "Your name?", buttonTitle: "OK"))))
        let prompt = Driver(
            ConversationApp(
                host: ConversationHost(conversation: Conversation(graph: lone, options: ConversationOptions(timing: .instant)), clock: clock),
                strings: .english, depth: .none), clock: clock)
        prompt.keys(.enter)
        #expect(prompt.app.summary == ProgramSummary(question: "Your name?", answer: "(No answer)"), "\(String(describing: prompt.app.summary))")
        let italian = Driver(
            ConversationApp(host: ConversationHost(conversation: conversation(), clock: clock), strings: .italian, depth: .none), clock: clock)
        italian.keys(.enter)
        #expect(italian.screen.contains("Nessuna risposta"), "\(italian.screen)")
        let line = Driver(
            ConversationApp(host: ConversationHost(conversation: conversation(), clock: clock), strings: .english, depth: .none), clock: clock,
            lineMode: true)
        line.send(.line(""))
        #expect(line.said.contains("you: (No answer)"), "\(line.said)")
        let japanese = Driver(
            ConversationApp(host: ConversationHost(conversation: conversation(), clock: clock), strings: .japanese, depth: .none), clock: clock,
            lineMode: true)
        japanese.send(.line(""))
        #expect(japanese.said.contains("あなた: （回答なし）"), "full-width brackets: \(japanese.said)")
    }

    @Test("A paste past the field's limit keeps what fits and says so under the field; the next edit clears the words")
    func pasteCut() throws {
        let clock = ManualClock()
        var g = RocketGraph()
        g.root = g.add(RocketNode(id: "name", content: .textInput(RocketInputNode(text: "Name?", buttonTitle: "OK"))))
        let c = Conversation(graph: g, options: ConversationOptions(timing: .instant))
        let app = ConversationApp(host: ConversationHost(conversation: c, clock: clock), strings: .english, depth: .none)
        let d = Driver(app, clock: clock)
        d.send(.key(.paste(String(repeating: "a", count: LineEditor.limit - 2))))
        #expect(!d.screen.contains("were kept"), "a paste that fits says nothing")
        d.send(.key(.paste("bcd")))
        #expect(d.screen.contains("Only the first 64 KiB were kept."), "\(d.screen)")
        d.keys(.backspace)
        #expect(!d.screen.contains("were kept"), "\(d.screen)")
        var editor = LineEditor()
        editor.insert(String(repeating: "é", count: LineEditor.limit / 2 + 1))
        #expect(editor.cut && editor.text.utf8.count == LineEditor.limit)
        editor.insert("")
        #expect(!editor.cut, "nothing to insert, nothing cut")
    }

    @Test("Type-ahead: the next title after the focus that begins with the letter, going round, in any case, past what is not allowed")
    func typeAhead() {
        let titles = ["Tea", "cake", "Coffee", "Milk", "Cocoa"]
        #expect(TypeAhead.next("c", after: 0, in: titles) == 1)
        #expect(TypeAhead.next("C", after: 1, in: titles) == 2)
        #expect(TypeAhead.next("c", after: 4, in: titles) == 1, "round from the end")
        #expect(TypeAhead.next("t", after: nil, in: titles) == 0, "no focus: from the first")
        #expect(TypeAhead.next("c", after: 0, in: titles, allowed: { $0 != 1 && $0 != 2 }) == 4, "past what is not allowed")
        #expect(TypeAhead.next("z", after: 0, in: titles) == nil && TypeAhead.next("a", after: 0, in: []) == nil)
        #expect(ListWindow.visible(count: 3, focus: 2, rows: 5, top: 0) == 0..<3)
        #expect(ListWindow.visible(count: 10, focus: 7, rows: 3, top: 0) == 5..<8)
        #expect(ListWindow.visible(count: 10, focus: 6, rows: 3, top: 5) == 5..<8, "the window stands still")
        #expect(ListWindow.visible(count: 10, focus: 99, rows: 0, top: -4) == 9..<10, "hostile numbers are held in range")
    }

    @Test("rocket choose on a screen shorter than its list keeps the filter and the focus in sight; PgDn moves by the rows shown")
    func chooseShortScreen() throws {
        let clock = ManualClock()
        let d = Driver(ChooseApp(title: "Pick", options: (1...50).map(String.init), limit: 1, strings: .english), clock: clock, height: 7)
        #expect(d.terminal.lines.first?.contains("Pick") == true && d.screen.contains("› type to filter") && d.screen.contains("❯ 1"), "\(d.screen)")
        d.keys(.pageDown)
        #expect(d.screen.contains("❯ 5") && d.screen.contains("Pick"), "\(d.screen)")
    }

    @Test("rocket choose: a list longer than its window says how many options are out of sight each way, as every list does; a filter that fits drops it")
    func chooseOutOfSight() throws {
        let clock = ManualClock()
        let app = ChooseApp(title: nil, options: (1...5000).map { "item \($0)" }, limit: 1, strings: .english)
        let d = Driver(app, clock: clock)
        let lines = { d.screen.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) }
        // Ten options, an empty row over them (none above yet, and the list stands still) and the count under them.
        #expect(
            lines().contains("  ↓ 4990 more") && !lines().contains { $0.hasPrefix("  ↑ ") } && d.screen.contains("❯ item 1") && d.screen.contains("item 10"),
            "\(d.screen)")
        let rows = lines().count
        d.keys(.pageDown, .pageDown, .down)
        #expect(lines().contains("  ↑ 12 more") && lines().contains("  ↓ 4978 more") && d.screen.contains("❯ item 22"), "\(d.screen)")
        #expect(lines().count == rows, "the list keeps its rows as it scrolls")
        d.send(.key(.paste("item 49")))
        // The 111 that start "item 49" first, then those with 49 elsewhere ("item 1249"), then those
        // with a 4 and a 9 in order.
        var phrase: [Int] = [48]  // "item 49", then "item 490" to "item 499" and "item 4900" to "item 4999"
        phrase += Array(489...498)
        phrase += Array(4899...4998)
        let first = Array(app.matches.prefix(112))
        #expect(first == phrase + [148], "\(first)")
        let kept = app.matches.count
        #expect(lines().contains("  ↓ \(kept - 10) more"), "the count is of the options the filter lets through: \(d.screen)")
        d.send(.key(.paste("99")))
        #expect(app.matches == [4998] && !d.screen.contains("more"), "a list that fits says nothing: \(d.screen)")
        // In another language, the same words a conversation's list uses.
        let zh = Driver(ChooseApp(title: nil, options: (1...30).map(String.init), limit: 1, strings: .chinese), clock: clock)
        #expect(zh.screen.contains(UIStrings.chinese.outOfSight(20, above: false)) && UIStrings.chinese.outOfSight(20, above: false) == "↓ 还有 20 项")
        // A short screen: counts while 3 options still fit beside them, the options alone below that.
        let tall = Driver(ChooseApp(title: "Pick", options: (1...50).map(String.init), limit: 1, strings: .english), clock: clock, height: 8)
        #expect(tall.screen.contains("↓ 47 more") && tall.screen.contains("❯ 1") && tall.screen.contains("  3\n"), "\(tall.screen)")
        let short = Driver(ChooseApp(title: "Pick", options: (1...50).map(String.init), limit: 1, strings: .english), clock: clock, height: 6)
        #expect(!short.screen.contains("more") && short.screen.contains("  3\n"), "\(short.screen)")
    }

    @Test("A button that opens a page says so with ↗ (> on an ASCII terminal); the press answers it as any press")
    func linkButton() throws {
        let clock = ManualClock()
        var g = RocketGraph()
        let end = g.add(RocketNode(id: "end", text: "Done."))
        g.root = g.add(
            RocketNode(
                id: "ask",
                content: .doubleButton(
                    left: RocketButtonNode(title: "Docs", next: end, link: "https://rocket.example/docs"), right: RocketButtonNode(title: "No", next: end))))
        let c = Conversation(graph: g, options: ConversationOptions(timing: .instant))
        let d = Driver(ConversationApp(host: ConversationHost(conversation: c, clock: clock), strings: .english, depth: .none), clock: clock)
        #expect(d.screen.contains("[ Docs ↗ ]  [ No ]"), "\(d.screen)")
        #expect(GlyphSet.ascii("[ Docs ↗ ]") == "[ Docs > ]")
        d.keys(.enter)
        #expect(d.screen.contains("Done."))
    }

    @Test("Every app survives tiny terminals, from 1 column up, and a resize back", arguments: [1, 2, 3, 5, 12, 20])
    func tinySizes(columns: Int) throws {
        let clock = ManualClock()
        var b = Banner(title: "Heads up")
        b.buttons = try BannerButtons(configuration: 2, titles: ["Reply", "Ignore"])
        let apps: [() -> String] = [
            {
                let d = Driver(self.conversationApp(clock: clock), clock: clock, width: columns, height: 2)
                d.keys(.enter, .right, .enter)
                return d.screen
            },
            {
                let actions = [TestAction(title: "Delete", style: .destructive), TestAction(title: "Cancel", style: .cancel)]
                let app = AlertApp(controller: AlertController(reactor: AlertReactor(title: "T", actions: actions)), strings: .english)
                let d = Driver(app, clock: clock, width: columns, height: 2)
                d.keys(.right, .left)
                return d.screen
            },
            {
                let view = BannerView(width: columns, strings: .english)
                let d = Driver(BannerApp(banner: b, center: BannerCenter(clock: clock), view: view, strings: .english), clock: clock, width: columns, height: 2)
                d.advance(1)
                d.keys(.right)
                return d.screen
            },
            {
                let d = Driver(ChooseApp(title: "Pick", options: ["a", "b"], limit: 2, strings: .english), clock: clock, width: columns, height: 2)
                d.keys(.tab, .down, .character("x"))
                return d.screen
            },
            {
                let d = Driver(SpinApp(title: "Work", showAfter: 0, minDisplay: 0, status: { nil }), clock: clock, width: columns, height: 2)
                d.advance(0.5)
                return d.screen
            },
        ]
        // Never a trap; from 5 columns on something readable is drawn (narrower, a clipped frame).
        for app in apps {
            let screen = app()
            if columns >= 5 { #expect(!screen.allSatisfy { $0 == " " || $0 == "\n" }) }
        }
    }
}

@Suite("choose's filter: every word in any order first, then letters in order")
@MainActor
struct ListFilterTests {
    @Test("Words are found in any order, folded as search keys; the characters that matched are the option's own offsets")
    func words() {
        let filter = ListFilter("BRA  fea")
        #expect(filter.words.count == 2)
        #expect(filter.match(ListFilter.Key("feature/branch")) == ListFilter.Match(rank: 1, positions: [0, 1, 2, 8, 9, 10]))
        // What was typed, whole (its spaces inside as typed), comes first.
        #expect(filter.match(ListFilter.Key("a bra  feature")) == ListFilter.Match(rank: 0, positions: Array(2...9)))
        #expect(filter.match(ListFilter.Key("main")) == nil)
        // Accents folded: the offsets are of characters, whatever their bytes.
        #expect(ListFilter("cafe").match(ListFilter.Key("Un café crème")) == ListFilter.Match(rank: 0, positions: [3, 4, 5, 6]))
        #expect(ListFilter("lodz").match(ListFilter.Key("e\u{301}Łódź")) == ListFilter.Match(rank: 0, positions: [1, 2, 3, 4]))
        #expect(ListFilter("   ").isEmpty)
        // A paste of many words looks for the first ones, each once.
        let many = ListFilter((0..<5000).map { "w\($0 % 40)" }.joined(separator: " "))
        #expect(many.words.count == ListFilter.maxWords && many.words.first == Array("w0"))
    }

    @Test("A word that is not there whole may stand as its letters in order, later in the list")
    func letters() {
        let filter = ListFilter("fb")
        #expect(filter.match(ListFilter.Key("Feature/branch")) == ListFilter.Match(rank: 2, positions: [0, 8]))
        #expect(filter.match(ListFilter.Key("bf")) == nil)  // out of order
        #expect(filter.match(ListFilter.Key("f")) == nil)  // shorter than the word
        let keys = ["fix/banner", "fb-2", "feature/branch", "docs", "a fb"].map(ListFilter.Key.init)
        let kept = filter.kept(keys)
        #expect(kept.map(\.index) == [1, 4, 0, 2])
        #expect(kept.map(\.match.rank) == [0, 0, 2, 2])
        // The three groups: whole, every word, letters.
        let words = ListFilter("item 49").kept(["item 1249", "item 49", "item 4x9", "other"].map(ListFilter.Key.init))
        #expect(words.map(\.index) == [1, 0, 2] && words.map(\.match.rank) == [0, 1, 2])
        // Every word must be there, one whole and one by its letters.
        #expect(ListFilter("ban fx").match(ListFilter.Key("fix/banner")) == ListFilter.Match(rank: 2, positions: [0, 2, 4, 5, 6]))
    }

    @Test("choose keeps the whole-word matches first, marks what matched, and never marks the ellipsis of a cut option")
    func chooseMarks() {
        let clock = ManualClock()
        let app = ChooseApp(title: nil, options: ["fix/banner-timer", "main", "feature/fuzzy", "release/fb"], limit: 1, strings: .english)
        let d = Driver(app, clock: clock)
        d.send(.key(.paste("fb")))
        #expect(app.matches == [3, 0])
        let frame = app.view(width: 40, now: 0).buffer
        // "release/fb" (the cursor's row): f and b underlined, the rest not.
        let row = frame.rows.first { r in r.map(\.text).joined().contains("release/fb") } ?? []
        #expect(row.filter(\.style.underline).map(\.text) == ["f", "b"])
        // Cut to the width, a mark past the cut is not drawn on the ellipsis.
        let narrow = app.view(width: 10, now: 0).buffer
        #expect(!narrow.rows.flatMap { $0 }.contains { $0.text == "…" && $0.style.underline })
        d.keys(.enter)
        #expect(app.outcome == .done(["release/fb"]))
    }
}
