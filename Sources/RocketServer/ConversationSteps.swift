import RocketConversation
import RocketJSON

/// One change of a conversation as the archive keeps it between two snapshots: what was done
/// to the engine and when. Replaying the steps after their snapshot (the engine is pure, time a
/// parameter) gives the conversation back, so a change costs a small row instead of its whole
/// snapshot. A step never holds text a visitor typed: an answered text is saved as a snapshot,
/// which leaves out secret answers (docs/SNAPSHOT_FORMAT.md, "Steps").
enum ConversationStep: Equatable, Sendable {
    /// An intent sent at a time (never `submit`).
    case send(RocketIntent, at: Double)
    /// The timers due at a time ran.
    case advance(to: Double)
    /// Auto-advance held (true) or released at a time.
    case hold(Bool, at: Double)

    /// The most steps kept after a snapshot: the next change writes a whole snapshot again, so
    /// a load replays at most this many.
    static let perSnapshot = 16

    /// The step of `intent` sent at `now`, or nil when it must be saved as a snapshot (a
    /// typed answer, which may be secret).
    static func sending(_ intent: RocketIntent, at now: Double) -> ConversationStep? {
        if case .submit = intent { return nil }
        return .send(intent, at: now)
    }

    /// The steps as the archive stores them: one JSON object per line.
    static func text(_ steps: [ConversationStep]) -> String {
        var w = JSONBytes(capacity: steps.count * 48)
        for (k, step) in steps.enumerated() {
            if k > 0 { w.out.append(0x0A) }
            step.write(into: &w)
        }
        return String(decoding: w.out, as: UTF8.self)
    }

    private func write(into w: inout JSONBytes) {
        w.open()
        switch self {
        case .send(let intent, let at):
            w.key("op", first: true)
            w.string("send")
            w.key("intent")
            w.string(intent.name.rawValue)
            switch intent {
            case .choose(let n):
                w.key("option")
                w.number(n)
            case .chooseMany(let list):
                w.key("options")
                w.numbers(list)
            case .rate(let v):
                w.key("value")
                w.number(v)
            case .tap, .pressButton, .pressLeft, .pressRight, .close, .back, .submit: break
            }
            w.key("at")
            w.number(at)
        case .advance(let at):
            w.key("op", first: true)
            w.string("advance")
            w.key("at")
            w.number(at)
        case .hold(let held, let at):
            w.key("op", first: true)
            w.string("hold")
            w.key("held")
            w.bool(held)
            w.key("at")
            w.number(at)
        }
        w.close()
    }

    /// Why stored steps could not be read.
    struct Failure: Error, Sendable {
        /// What was wrong, naming the line.
        var message: String
    }

    /// Reads the lines ``text(_:)`` wrote.
    static func parse(_ text: String) throws(Failure) -> [ConversationStep] {
        var out: [ConversationStep] = []
        for (n, line) in Array(text.utf8).split(separator: 0x0A).enumerated() {
            do throws(JSONShapeError) {
                let tape: JSONTape
                do throws(JSONSyntaxError) { tape = try JSONTape.parse(Array(line)) } catch { throw JSONShapeError(error.message) }
                let f = try JSONFields(tape, 0, path: "", allowed: ["op", "intent", "option", "options", "value", "held", "at"])
                let at = try f.double("at")
                switch try f.string("op") {
                case "advance": out.append(.advance(to: at))
                case "hold": out.append(.hold(try f.bool("held"), at: at))
                case "send":
                    let word = try f.string("intent")
                    let intent: RocketIntent
                    let name = RocketIntent.Name(rawValue: word)
                    switch name {
                    case .tap, .pressButton, .pressLeft, .pressRight, .close, .back: intent = name?.plainIntent ?? .tap  // never nil for these
                    case .choose: intent = .choose(try f.int("option"))
                    case .rate: intent = .rate(try f.int("value"))
                    case .chooseMany:
                        var list: [Int] = []
                        for item in try f.items("options") {
                            guard let v = tape.number(item), let n = Int(exactly: v) else { throw JSONShapeError("\"options\" must hold whole numbers") }
                            list.append(n)
                        }
                        intent = .chooseMany(list)
                    case .submit, nil: throw JSONShapeError("\"intent\" cannot be \"\(word)\" in a stored step")
                    }
                    out.append(.send(intent, at: at))
                case let op: throw JSONShapeError("unknown step \"\(op)\"")
                }
            } catch {
                throw Failure(message: "stored step \(n + 1): \(error.message)")
            }
        }
        return out
    }
}

extension ConversationService.Entry {
    /// Sends `intent` as the intent route does: the engine's step, the count of accepted
    /// intents, and what falls due at once (a bounce of 0 s under reduced motion). The live
    /// route and a replay of stored steps both come here.
    mutating func send(_ intent: RocketIntent, at now: Double) -> Result<[ConversationEffect], RocketIntentError> {
        var effects: [ConversationEffect]
        do throws(RocketIntentError) {
            effects = try conversation.send(intent, at: now)
        } catch {
            return .failure(error)
        }
        lastIntent = (step, intent)
        step += 1
        if let due = conversation.nextDeadline, due <= now { effects += conversation.advance(to: now) }
        return .success(effects)
    }

    /// Holds or releases auto-advance; nil when it already was as asked (no change).
    mutating func hold(_ held: Bool, at now: Double) -> [ConversationEffect]? {
        guard held != conversation.isHoldingAutoAdvance else { return nil }
        if held {
            conversation.hold(at: now)
            return []
        }
        return conversation.release(at: now)
    }

    /// Runs the timers due at `now`; nil when none is due (no change).
    mutating func advanceDue(at now: Double) -> [ConversationEffect]? {
        guard let at = conversation.nextDeadline, at <= now else { return nil }
        return conversation.advance(to: now)
    }

    /// The steps to save for the changes since the last save, and resets them: nil when the
    /// save must be a whole snapshot (new or loaded, a typed answer, a failed save, or more than
    /// ``ConversationStep/perSnapshot`` steps since the last snapshot).
    ///
    /// `replacing`: true when a snapshot must delete steps of it that may be stored.
    mutating func takeSteps() -> (steps: [ConversationStep]?, replacing: Bool) {
        defer { unsavedSteps = [] }
        guard let steps = unsavedSteps, !steps.isEmpty, stepsSinceSnapshot + steps.count <= ConversationStep.perSnapshot else {
            stepsSinceSnapshot = 0
            defer { stepsStored = false }
            return (nil, stepsStored)
        }
        stepsSinceSnapshot += steps.count
        stepsStored = true
        return (steps, false)
    }
}
