public import RocketConversation
import RocketCore
public import RocketText
public import RocketTerminalCore

/// What a key or a line asks the session to do.
public enum FrontEndAction: Hashable, Sendable {
    /// Send an intent to the conversation.
    case send(RocketIntent)
    /// Stop: Ctrl-C.
    case interrupt
    /// Only the front end's own state changed (focus, editor): redraw.
    case redraw
    /// Nothing to do.
    case none
}

/// Maps keys to intents for the interactive terminal. Shared rules: Enter or Space taps a text
/// block; ←/→/Tab/Shift-Tab move button focus; Enter or Space presses; typing edits the input;
/// Enter submits (a multi-line input: Enter starts a line, Ctrl-D submits); Esc is the close
/// button; Ctrl-C interrupts. (Clicks are resolved by the
/// runtime against the frame's hit regions.)
///
/// ```swift
/// var ui = ConversationUI()
/// KeyController.handle(.enter, conversation: c, ui: &ui)   // .send(.tap) on a text block
/// ```
public enum KeyController {
    /// Brings the UI state in line with the interactive block (a new block resets focus and text).
    public static func sync(_ ui: inout ConversationUI, with c: Conversation) {
        let index = c.interactiveIndex
        if ui.blockIndex != index, let index {
            let (today, time, now) = (ui.today, ui.timeOfDay, ui.now)
            ui = ConversationUI()
            (ui.today, ui.timeOfDay, ui.now) = (today, time, now)
            ui.blockIndex = index
            if case .textInput(let input) = c.node(at: index).content { ui.editor.multiline = input.multiline }
            // What the block starts from: a multiple choice's ticks, the option or rating value
            // it had when the person went back to it.
            if let start = c.startingChoices(at: index), let first = start.first {
                switch c.node(at: index).content {
                case .choice(let choice) where choice.multiple: ui.ticked = Set(start)
                case .choice: ui.focus = first
                case .rating:
                    ui.focus = first
                    ui.ratingPicked = true
                default: break
                }
            }
        }
    }

    /// How soon after a digit on a rating another one makes a number with it, in seconds.
    public static let digitPause = RocketRatingNode.digitPause

    /// The option a typed character moves the focus to, as a menu of whiptail or dialog does:
    /// the next one after the focus (going round) whose title begins with it, letters in any case.
    static func jump(to ch: Character, from focus: Int, in choice: RocketChoiceNode, _ c: Conversation) -> Int? {
        TypeAhead.next(ch, after: focus, in: choice.options.map { Sanitizer.clean(c.interpolate($0.title), keepNewlines: false) })
    }

    /// The action for a key.
    public static func handle(_ key: Key, conversation c: Conversation, ui: inout ConversationUI) -> FrontEndAction {
        sync(&ui, with: c)
        switch key {
        case .ctrl("c"): return .interrupt
        case .escape: return .send(.close)
        // Shift-Tab goes back to the previous answer (as huh's forms do) when there is one;
        // otherwise it moves the focus as before.
        case .backTab where c.backTarget != nil: return .send(.back)
        default: break
        }
        guard let index = c.interactiveIndex else { return .none }
        switch c.node(at: index).kind {
        case .text, .image:
            return key == .enter || key == .character(" ") ? .send(.tap) : .none
        case .button:
            return key == .enter || key == .character(" ") ? .send(.pressButton) : .none
        case .doubleButton:
            switch key {
            case .left, .backTab, .up: ui.focus = 0; return .redraw
            case .right, .tab, .down: ui.focus = 1; return .redraw
            case .enter, .character(" "): return .send(ui.focus == 0 ? .pressLeft : .pressRight)
            default: return .none
            }
        case .rating:
            guard case .rating(let rating) = c.node(at: index).content else { return .none }
            let values = rating.values
            let steps = values.count
            // Nothing is picked until a key picks it (the first arrow picks the bottom), and
            // Enter or Space send only a picked value.
            let picked = ui.ratingPicked
            let digits = ui.ratingDigits, digitsAt = ui.ratingDigitsAt
            (ui.ratingDigits, ui.ratingDigitsAt) = ("", nil)
            switch key {
            case .left, .down, .backTab: ui.focus = picked ? max(0, ui.focus - 1) : 0
            case .right, .up, .tab: ui.focus = picked ? min(steps - 1, ui.focus + 1) : 0
            case .home: ui.focus = 0
            case .end: ui.focus = steps - 1
            case .character(let ch) where ch.isASCII && ch.isWholeNumber:
                // A digit picks its value; one typed soon after another makes a number with it
                // while that is on the scale ("1", "0": 10), as a person types a two-digit score.
                var typed = String(ch)
                if let at = digitsAt, let now = ui.now, now - at < digitPause, let n = Int(digits + typed), values.contains(n) {
                    typed = digits + typed
                }
                guard let n = Int(typed), values.contains(n) else { return .none }
                ui.focus = n - values.lowerBound
                (ui.ratingDigits, ui.ratingDigitsAt) = (typed, ui.now)
            case .character(" ") where picked, .enter where picked:
                return .send(.rate(values.lowerBound + min(steps - 1, ui.focus)))
            case .character(" "), .enter:
                // Sent before a value is picked: said under the scale, not ignored unseen.
                ui.ratingAsked = true
                return .redraw
            default: return .none
            }
            ui.ratingPicked = true
            ui.ratingAsked = false
            return .redraw
        case .choice:
            guard case .choice(let choice) = c.node(at: index).content else { return .none }
            if choice.multiple {
                // Options, then the confirming button; Space ticks, Enter confirms (on an option too).
                switch key {
                case .up, .left, .backTab: ui.focus = max(0, ui.focus - 1); return .redraw
                case .down, .right, .tab: ui.focus = min(choice.options.count, ui.focus + 1); return .redraw
                case .home: ui.focus = 0; return .redraw
                case .end: ui.focus = choice.options.count; return .redraw
                case .pageUp: ui.focus = max(0, ui.focus - max(1, ui.page)); return .redraw
                case .pageDown: ui.focus = min(choice.options.count, ui.focus + max(1, ui.page)); return .redraw
                case .character(let ch) where ch != " ":
                    guard let k = jump(to: ch, from: ui.focus, in: choice, c) else { return .none }
                    ui.focus = k
                    return .redraw
                case .character(" ") where ui.focus < choice.options.count:
                    if ui.ticked.contains(ui.focus) { ui.ticked.remove(ui.focus) } else { ui.ticked.insert(ui.focus) }
                    ui.error = nil  // a refusal is about the ticks it was given
                    return .redraw
                case .enter, .character(" "): return .send(.chooseMany(ui.ticked.sorted()))
                default: return .none
                }
            }
            switch key {
            case .left, .backTab, .up: ui.focus = max(0, ui.focus - 1); return .redraw
            case .right, .tab, .down: ui.focus = min(choice.options.count - 1, ui.focus + 1); return .redraw
            case .home: ui.focus = 0; return .redraw
            case .end: ui.focus = max(0, choice.options.count - 1); return .redraw
            case .pageUp: ui.focus = max(0, ui.focus - max(1, ui.page)); return .redraw
            case .pageDown: ui.focus = min(max(0, choice.options.count - 1), ui.focus + max(1, ui.page)); return .redraw
            case .enter, .character(" "): return .send(.choose(ui.focus))
            case .character(let ch):
                guard let k = jump(to: ch, from: ui.focus, in: choice, c) else { return .none }
                ui.focus = k
                return .redraw
            default: return .none
            }
        case .textInput:
            // Several lines: Enter starts a new one and Ctrl-D (the end of input) sends.
            if ui.editor.multiline {
                if key == .ctrl("d") { return .send(.submit(ui.editor.text)) }
                if key == .enter { ui.editor.insert("\n"); ui.error = nil; return .redraw }
            }
            if key == .enter { return .send(.submit(ui.editor.text)) }
            // A date, a time or a whole number: ↑/↓ step a day, five minutes or one, PgUp/PgDn a
            // month, an hour or ten, within the input's bounds.
            if case .textInput(let input) = c.node(at: index).content, [.date, .time, .integer].contains(input.inputType),
                let step: (sign: Int, large: Bool) = [Key.up: (1, false), .down: (-1, false), .pageUp: (1, true), .pageDown: (-1, true)][key]
            {
                let text = ui.editor.text
                let next: String?
                switch input.inputType {
                case .date: next = steppedDay(text, by: step.large ? (0, step.sign) : (step.sign, 0), input: input, today: ui.today)
                case .time: next = steppedTime(text, by: step.sign * (step.large ? 60 : 5), input: input, now: ui.timeOfDay)
                default: next = steppedInteger(text, by: step.sign * (step.large ? 10 : 1), input: input)
                }
                guard let next, next != text else { return .none }
                ui.editor.clear()
                ui.editor.insert(next)
                ui.error = nil
                return .redraw
            }
            if ui.editor.handle(key) { ui.error = nil; return .redraw }
            return .none
        case .set, .condition, .jump:
            return .none  // never shown
        }
    }
}

/// The day a date input's ↑/↓ (a day) or PgUp/PgDn (a month) makes of `text`: from the typed day
/// when there is one, else from `today` (or the nearest bound) without stepping; always within
/// the input's `min` and `max`. Nil when there is nothing to start from.
func steppedDay(_ text: String, by step: (days: Int, months: Int), input: RocketInputNode, today: String?) -> String? {
    let typed = text.trimmingSpaces()
    var day: String?
    if RocketInputType.isDate(typed) {
        day = RocketInputType.day(typed, days: step.days, months: step.months)
    } else {
        day = today
    }
    // Bounds counted from today (today+1d) count from the same today.
    if case .text(let b)? = input.minimum, let lo = RocketInputType.resolveDay(b, today: today), day.map({ $0 < lo }) ?? true { day = lo }
    if case .text(let b)? = input.maximum, let hi = RocketInputType.resolveDay(b, today: today), day.map({ $0 > hi }) ?? false { day = hi }
    return day
}

/// The time a time input's ↑/↓ (`minutes` ±5: to the next or last multiple of five) or PgUp/PgDn
/// (±60) makes of `text`: from the typed time when there is one, else from `now` (or the nearest
/// bound) without stepping; never past midnight either way, and always within the input's `min`
/// and `max`. Nil when there is nothing to start from.
func steppedTime(_ text: String, by minutes: Int, input: RocketInputNode, now: String?) -> String? {
    func parts(_ t: String) -> Int? {
        guard RocketInputType.isTime(t) else { return nil }
        let b = Array(t.utf8)
        return (Int(b[0] - 0x30) * 10 + Int(b[1] - 0x30)) * 60 + Int(b[3] - 0x30) * 10 + Int(b[4] - 0x30)
    }
    var time: Int?
    if case .text(let typed)? = RocketInputType.time.parse(text), let m = parts(typed) {
        var next = m + minutes
        if abs(minutes) < 60 { next = minutes > 0 ? (m / 5 + 1) * 5 : ((m + 4) / 5 - 1) * 5 }
        time = min(max(next, 0), 23 * 60 + 59)
    } else {
        time = now.flatMap(parts)
    }
    if case .text(let lo)? = input.minimum, let l = parts(lo), time.map({ $0 < l }) ?? true { time = l }
    if case .text(let hi)? = input.maximum, let h = parts(hi), time.map({ $0 > h }) ?? false { time = h }
    return time.map { CivilDate.clock(minutes: $0) }
}

/// The whole number an integer input's ↑/↓ (`by` ±1) or PgUp/PgDn (±10) makes of `text`: from
/// the typed number when there is one, else 0 (or the nearest bound) without stepping; always
/// within the input's `min` and `max` (their whole numbers) and ±``RocketInputType/largestBound``.
func steppedInteger(_ text: String, by step: Int, input: RocketInputNode) -> String {
    let limit = RocketInputType.largestBound
    var n: Double
    if case .number(let typed)? = RocketInputType.integer.parse(text), abs(typed) <= limit {
        n = typed + Double(step)
    } else {
        n = 0
    }
    if case .number(let lo)? = input.minimum { n = max(n, lo.rounded(.up)) }
    if case .number(let hi)? = input.maximum { n = min(n, hi.rounded(.down)) }
    return RocketValue.format(min(max(n, -limit), limit))
}

/// Maps a line of plain-mode input to an intent: any line taps a text block; a button is chosen
/// by its number (1-based, left first) or its title (case-insensitive), and an empty line presses
/// a single button; an input takes the line.
///
/// ```swift
/// PlainController.intent(for: "2", block: doubleButton, strings: .english)   // .success(.pressRight)
/// ```
public enum PlainController {
    /// The intent, or the message explaining why the line is not a valid answer.
    public static func intent(for line: String, block: RocketNode, strings: UIStrings) -> Result<RocketIntent, PlainInputError> {
        // A line that is exactly "<" goes back to the previous answer; "\<" is a typed "<".
        if line == "<" { return .success(.back) }
        if line == "\\<", case .textInput = block.content { return .success(.submit("<")) }
        let trimmed = line.trimmingSpaces()
        func choose(_ titles: [String], _ intents: [RocketIntent]) -> Result<RocketIntent, PlainInputError> {
            switch ChoiceParser.parse(trimmed, titles: titles) {
            case .success(let k): return .success(intents[k])
            case .failure(let refusal): return .failure(PlainInputError(message: refusal.message(strings: strings, count: titles.count)))
            }
        }
        switch block.content {
        case .button(let b): return trimmed.isEmpty ? .success(.pressButton) : choose([b.title], [.pressButton])
        case .doubleButton(let l, let r): return choose([l.title, r.title], [.pressLeft, .pressRight])
        case .choice(let c) where c.multiple:
            switch ChoiceParser.parseMany(trimmed, titles: c.options.map(\.title)) {
            case .success(let set): return .success(.chooseMany(set.sorted()))
            case .failure(let refusal): return .failure(PlainInputError(message: refusal.message(strings: strings, count: c.options.count)))
            }
        case .choice(let c): return choose(c.options.map(\.title), c.options.indices.map { .choose($0) })
        case .rating(let r):
            // A number of the scale, or an end's word.
            let values = r.values
            if let n = Int(trimmed.trimmingSpaces()), values.contains(n) { return .success(.rate(n)) }
            var aliases: [Int: String] = [:]
            if let low = r.labels.low { aliases[0] = low }
            if let high = r.labels.high { aliases[values.count - 1] = high }
            switch ChoiceParser.parse(trimmed, titles: values.map(String.init), aliases: aliases) {
            case .success(let k) where Int(trimmed.trimmingSpaces()) == nil: return .success(.rate(values.lowerBound + k))
            case .success, .failure:
                let what = strings.plainNotAChoice.replacingAll("%@", with: "\"\(trimmed)\"")
                return .failure(PlainInputError(message: what + " — " + r.filling(strings.plainRate)))
            }
        case .textInput: return .success(.submit(line))
        case .text, .image: return .success(.tap)
        case .set, .condition, .jump: return .failure(PlainInputError(message: ""))  // never shown
        }
    }
}

/// Why a plain-mode line was not accepted.
public struct PlainInputError: Error, Hashable, Sendable {
    /// The message printed on stderr.
    public var message: String
}
