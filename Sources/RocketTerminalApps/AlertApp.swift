import RocketCore
public import RocketReactor
public import RocketText
public import RocketTerminalCore

/// The action an alert ended with: its index (in state order) and title.
public struct AlertChoice: Hashable, Sendable {
    /// Index in the controller's buttons.
    public var index: Int
    /// Its title.
    public var title: String

    /// A choice.
    public init(index: Int, title: String) {
        self.index = index
        self.title = title
    }
}

/// An `AlertController` in the terminal until an action is chosen.
///
/// TTY: an alert is a centred box, an action sheet a list at the bottom; ←/→/↑/↓/Tab move focus
/// over enabled actions (it starts on the first that is neither destructive nor disabled), Enter
/// or Space chooses, Esc chooses the cancel action when there is one, a click chooses what it
/// hits; the alert updates live while its actions load. Line mode waits (up to
/// `loadingWait` seconds) for loading actions, prints the title, the message and the actions
/// numbered in state order (disabled ones marked), then reads lines: a number or a title
/// (case-insensitive); a refused line says why and reads again.
///
/// Done (exit 0) with a choice; declined (exit 1) with the cancel-style action's choice, or
/// with none for Esc without a cancel action or the end of the input.
@MainActor
public final class AlertApp<A: AlertActionType>: TerminalProgram {
    let controller: AlertController<A>
    /// See `TerminalProgram/lineMode`.
    public var lineMode = false
    let strings: UIStrings
    var view: AlertView
    /// Seconds line mode waits for actions still loading before it prints them.
    public var loadingWait: Double = 10
    private var focus: Int?
    /// The focused action as it was drawn: found again by title and style when the actions change.
    private var focused: (title: String, style: AlertActionStyle)?
    private var result: ProgramOutcome<AlertChoice>?
    private var listed = false
    private var startedAt = 0.0

    /// An app for a controller.
    public init(controller: AlertController<A>, strings: UIStrings) {
        self.controller = controller
        self.strings = strings
        view = AlertView(width: 40, strings: strings)
    }

    private var items: [AlertView.Item] { controller.buttons.map { ($0.title, $0.style, $0.isEnabled) } }

    /// See `TerminalProgram/outcome`.
    public var outcome: ProgramOutcome<AlertChoice>? { result }

    /// See `TerminalProgram/summary`: the title (else the message) and the chosen action; the
    /// cancel action chosen with Esc is an answer too.
    public var summary: ProgramSummary? {
        let question = controller.title.flatMap { $0.isEmpty ? nil : $0 } ?? controller.message
        if case .declined(let choice?) = result { return ProgramSummary.of(ProgramOutcome<AlertChoice>.done(choice), question: question) { choice.title } }
        return ProgramSummary.of(result, question: question) { result?.value?.title ?? "" }
    }

    /// See `TerminalProgram/lineRequest`.
    public var lineRequest: LineRequest? { lineMode && listed && result == nil ? LineRequest() : nil }

    /// See `TerminalProgram/start(now:)`.
    public func start(now: Double) -> [ProgramOutput] {
        startedAt = now
        controller.present()
        return []
    }

    private func choose(_ index: Int) {
        let buttons = controller.buttons
        guard buttons.indices.contains(index) else { return }
        let choice = AlertChoice(index: index, title: buttons[index].title)
        let style = buttons[index].style
        if controller.select(index) { result = style == .cancel ? .declined(choice) : .done(choice) }
    }

    private func cancel(_ outcome: ProgramOutcome<AlertChoice>) {
        controller.dismiss()
        result = outcome
    }

    /// See `TerminalProgram/update(_:now:)`.
    public func update(_ event: ProgramEvent<Int>, now: Double) -> [ProgramOutput] {
        switch event {
        case .tick:
            if lineMode && !listed && (controller.store.runningCount == 0 || now - startedAt >= loadingWait) { return list() }
        case .interrupt(let s): cancel(.interrupted(signal: s))
        case .click(let index): choose(index)
        case .key(let key): handle(key)
        case .inputEnded: cancel(.declined(nil))
        case .line(let raw):
            let buttons = controller.buttons
            switch ChoiceParser.parse(raw, titles: buttons.map(\.title), enabled: buttons.map(\.isEnabled)) {
            case .success(let index): choose(index)
            case .failure(let refusal): return [.refuse(refusal.message(strings: strings, count: buttons.count))]
            }
        }
        return []
    }

    /// Keeps focus on the same action when the actions change (a live update): found by title and
    /// style; when it is gone or disabled, the rule for a new alert (``AlertView/initialFocus(buttons:)``).
    private func syncFocus(_ items: [AlertView.Item]) {
        func isSame(_ i: Int) -> Bool {
            guard let was = focused else { return false }
            return items[i].title == was.title && items[i].style == was.style && items[i].isEnabled
        }
        if let focus, items.indices.contains(focus), focused == nil ? items[focus].isEnabled : isSame(focus) { return }
        focus = items.indices.first(where: isSame) ?? AlertView.initialFocus(buttons: items)
        focused = focus.map { (items[$0].title, items[$0].style) }
    }

    private func handle(_ key: Key) {
        let items = self.items
        syncFocus(items)
        defer { focused = focus.map { (items[$0].title, items[$0].style) } }
        switch key {
        case .left, .up, .backTab: focus = AlertView.nextFocus(from: focus, step: -1, buttons: items)
        case .right, .down, .tab: focus = AlertView.nextFocus(from: focus, step: 1, buttons: items)
        case .enter, .character(" "): if let focus { choose(focus) }
        case .character(let ch):
            // The next enabled action that begins with the letter, in the order they are drawn.
            let order = AlertView.drawingOrder(items)
            let at = focus.flatMap { order.firstIndex(of: $0) }
            let titles = order.map { Sanitizer.clean(items[$0].title, keepNewlines: false) }
            if let k = TypeAhead.next(ch, after: at, in: titles, allowed: { items[order[$0]].isEnabled }) { focus = order[k] }
        case .escape:
            if let cancelIndex = controller.cancelIndex, items.indices.contains(cancelIndex), items[cancelIndex].isEnabled {
                choose(cancelIndex)
            } else {
                cancel(.declined(nil))
            }
        default: break
        }
    }

    private func list() -> [ProgramOutput] {
        listed = true
        var out: [ProgramOutput] = []
        if let t = controller.title, !t.isEmpty { out.append(.say(Sanitizer.clean(t, keepNewlines: false))) }
        if let m = controller.message, !m.isEmpty { out.append(.say(Sanitizer.clean(m))) }
        for (i, b) in controller.buttons.enumerated() {
            var line = "[\(i + 1)] " + Sanitizer.clean(b.title, keepNewlines: false)
            if b.style == .cancel { line += " (\(strings.styleCancel))" }
            if b.style == .destructive { line += " (\(strings.styleDestructive))" }
            if !b.isEnabled { line += " (\(strings.unavailable))" }
            out.append(.say(line))
        }
        return out
    }

    /// See `TerminalProgram/runsWhileWaiting`: the reactor updates the alert on the main actor.
    public var runsWhileWaiting: Bool { true }

    /// See `TerminalProgram/nextDeadline(now:)`: every 50 ms while actions load, to draw them.
    public func nextDeadline(now: Double) -> Double? {
        controller.store.runningCount > 0 ? now + 0.05 : nil
    }

    /// See `TerminalProgram/view(width:now:)`.
    public func view(width: Int, now: Double) -> ProgramFrame<Int> {
        frame(width: width, height: nil)
    }

    /// See `TerminalProgram/view(width:height:now:)`: a long list of actions shows a window
    /// of them that holds the focus, under the title and the message.
    public func view(width: Int, height: Int, now: Double) -> ProgramFrame<Int> {
        frame(width: width, height: height)
    }

    private func frame(width: Int, height: Int?) -> ProgramFrame<Int> {
        let items = self.items
        syncFocus(items)
        view.width = width
        view.height = height
        let (buffer, regions) = view.frame(title: controller.title, message: controller.message, buttons: items, style: controller.style, focus: focus)
        let hits = regions.sorted { $0.key < $1.key }.map { HitRegion(row: $0.value.row, columns: $0.value.columns, target: $0.key) }
        return ProgramFrame(buffer: buffer, hits: hits)
    }
}
