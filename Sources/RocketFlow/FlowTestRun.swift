public import RocketConversation
import RocketCore
import RocketJSON

/// A case's failure: what did not hold, and the byte offset in the test file of what it names
/// (the expectation, the answer, or the case).
public struct FlowTestFailure: Hashable, Sendable {
    /// What did not hold, in a sentence.
    public var message: String
    /// Where in the test file.
    public var offset: Int
}

/// What one case did when it was played, and what of it failed.
public struct FlowTestResult: Sendable {
    /// How the run ended.
    public enum End: Hashable, Sendable {
        /// The flow reached its end.
        case completed
        /// A block waits for an answer none was given for (its id).
        case waiting(at: String)
        /// The flow's `when.if` said no to the case's values (why).
        case notShown(String)
        /// The run stopped: a given answer was refused, or the flow went on past the step limit.
        case stopped
    }
    /// How the run ended.
    public var end: End
    /// The ids of the blocks shown, in order.
    public var shown: [String] = []
    /// The variables at the end.
    public var variables: [String: RocketValue] = [:]
    /// The block whose given answer was refused, and why.
    public var refused: (id: String, message: String)?
    /// The actions fired, in order.
    public var actions: [String] = []
    /// The snooze the last snoozing press left (its `snooze` as written), nil for none.
    public var snooze: String?
    /// The texts of the blocks shown, placeholders filled.
    public var texts: [String] = []
    /// When it waits: the blocks after the one it waits at that take an answer the case does
    /// not give (by any path, nearest first).
    public var mayAskAfter: [String] = []
    /// What failed; empty when the case passed.
    public var failures: [FlowTestFailure] = []

    /// True when nothing failed.
    public var passed: Bool { failures.isEmpty }
}

extension FlowTestCase {
    /// Plays the case on `doc` (the flow in the case's language, jumps linked) with nobody there:
    /// time jumps to each timer at once, a text or picture waiting for a tap goes on, and each
    /// given answer is given once when its block waits. Then compares what happened with
    /// ``expect``. Pure: no clock, file or terminal is touched. `describe` words an input's
    /// refusal (the host's built-in texts, as a person would read it).
    public func run(on doc: FlowDocument, describe: (RocketValidationFailure) -> String) -> FlowTestResult {
        var failures: [FlowTestFailure] = []
        var given: [String: RocketValue] = [:]
        for v in vars { given[v.name] = v.value }
        let start: (variables: [String: RocketValue], answers: [String: String])
        switch doc.startValues(given) {
        case .success(let s): start = s
        case .failure(let p):
            return FlowTestResult(end: .stopped, failures: [FlowTestFailure(message: p.message, offset: vars.first { $0.name == p.name }?.offset ?? offset)])
        }
        let local = localSeconds.flatMap { RocketExpression.LocalTime(localSeconds: $0) }
        if let why = doc.refusal(variables: start.variables, answers: start.answers, local: local) {
            var result = FlowTestResult(end: .notShown(why))
            result.failures = compare(result)
            return result
        }
        var played = doc
        if let variant, let e = doc.experiment, let v = e.variants.first(where: { $0.name == variant.value }), let root = v.start {
            played.graph.root = root
        }
        // Timers keep their delays on the case's own clock, which jumps to each: one block a step,
        // so a loop of timers meets the step limit instead of firing thousands at one instant.
        // The case's clock starts at 0, at its `now`.
        let options = ConversationOptions(
            timing: .reducedMotion, echoReplies: true, initialAnswers: start.answers, initialVariables: start.variables, localShift: localSeconds)
        guard let conversation = played.makeConversation(options: options) else {
            return FlowTestResult(end: .stopped, failures: [FlowTestFailure(message: "the flow has no blocks", offset: offset)])
        }
        let clock = ManualClock(now: 0)
        let host = ConversationHost(conversation: conversation, clock: clock)
        var actions: [String] = []
        var snooze: String?
        host.onEvent = { [unowned host] event in
            switch event {
            case .action(let name, _): actions.append(name)
            case .buttonPressed(let index, _, let side, _, let options, _):
                if let s = host.conversation.node(at: index).pressed(side: side, option: options.first)?.snooze { snooze = s }
            case .expressionError(let block, let path, let error):
                let place = block.map { "block \(FlowDiagnostic.quoted($0))" } ?? "the flow"
                let hint =
                    switch error.code {
                    case "no-clock": " (give the case a \"now\")"
                    case "conversation-too-long", "loop": " (a loop with no way out?)"
                    default: ""
                    }
                failures.append(FlowTestFailure(message: "\(place): \(path.isEmpty ? "" : path + ": ")\(error.message)\(hint)", offset: offset))
            default: break
            }
        }
        var pending: [String: Answer] = [:]
        for a in answers { pending[a.id] = a }
        var end: FlowTestResult.End?
        var refusal: (id: String, message: String)?
        host.show()
        var steps = 0
        // The conversation is read afresh for each question (never held across a change, which
        // would copy its whole state each step).
        while end == nil {
            if let reason = host.conversation.status.reason {
                end = reason == .completed ? .completed : .stopped
                break
            }
            steps += 1
            if steps > RocketLimits.flowTestSteps {
                failures.append(
                    FlowTestFailure(message: "the flow did not end within \(RocketLimits.flowTestSteps) steps (a loop with no way out?)", offset: offset))
                end = .stopped
                break
            }
            if let index = host.conversation.interactiveIndex {
                let block = host.conversation.node(at: index)
                let id = block.id ?? ""
                if let answer = pending.removeValue(forKey: id) {
                    let refused: String?
                    switch host.conversation.intent(answering: answer.value, at: index) {
                    case .failure(let refusal): refused = refusal.message
                    case .success(let intent):
                        do {
                            try host.send(intent)
                            refused = nil
                        } catch .invalidInput(let failure) {
                            refused = host.conversation.interpolate(describe(failure))
                        } catch {
                            refused = "the block does not take it now (\(error))"
                        }
                    }
                    if let refused {
                        refusal = (id, refused)
                        if expect.refused?.value == id {
                            end = .waiting(at: id)
                        } else {
                            failures.append(
                                FlowTestFailure(message: "the answer for \(FlowDiagnostic.quoted(id)) is refused: \(refused)", offset: answer.valueOffset))
                            end = .stopped
                        }
                    }
                    continue
                }
                if block.kind == .text || block.kind == .image, (try? host.send(.tap)) != nil { continue }
                if block.takesAnswer {
                    end = .waiting(at: id)
                    break
                }
            }
            guard let deadline = host.nextDeadline else {
                // Nothing waits for an answer and nothing is due: the conversation cannot go on.
                let c = host.conversation
                end = .waiting(at: c.state.shown.last.map { c.graph[$0].id ?? "" } ?? "")
                break
            }
            clock.set(max(clock.now, deadline))
            host.tick()
        }
        let c = host.conversation
        var result = FlowTestResult(end: end ?? .stopped)
        result.shown = c.state.shown.map { c.graph[$0].id ?? "" }
        result.variables = c.variables
        result.actions = actions
        result.snooze = snooze
        result.refused = refusal
        result.texts = c.transcript.compactMap { if case .block(_, _, let text) = $0 { text } else { nil } }
        if case .waiting(let at) = result.end {
            let given = Set(answers.map(\.id))
            result.mayAskAfter = c.graph.answerable(after: at).filter { !given.contains($0) }
        }
        // Answers no block asked for are dead: a branch went another way than the case thinks.
        if failures.isEmpty {
            for a in answers where pending[a.id] != nil {
                failures.append(FlowTestFailure(message: "block \(FlowDiagnostic.quoted(a.id)) was answered but never asked", offset: a.keyOffset))
            }
        }
        // In the file's order, as a reader goes through the case.
        result.failures = (failures + (failures.isEmpty ? compare(result) : [])).enumerated()
            .sorted { ($0.element.offset, $0.offset) < ($1.element.offset, $1.offset) }.map(\.element)
        return result
    }

    /// What of ``expect`` does not hold for `result`.
    func compare(_ result: FlowTestResult) -> [FlowTestFailure] {
        var out: [FlowTestFailure] = []
        let e = expect
        func quoted(_ id: String) -> String { FlowDiagnostic.quoted(id) }
        let went = Self.route(result.shown)
        // How it ended.
        let endOffset = e.waitingAt?.offset ?? e.end?.offset ?? offset
        // A refusal expected and not met is said once, below, not as an end too.
        let refusalMissed = e.refused.map { $0.value != result.refused?.id } ?? false
        switch (e.expectedEnd, result.end) {
        case _ where refusalMissed: break
        case (.completed, .completed), (.notShown, .notShown): break
        case (.waiting, .waiting(let at)):
            if let w = e.waitingAt ?? e.refused, w.value != at {
                out.append(FlowTestFailure(message: "expected it to wait at \(quoted(w.value)); it waits at \(quoted(at)) (\(went))", offset: w.offset))
            }
        case (let wanted, .completed):
            out.append(FlowTestFailure(message: "expected it \(Self.phrase(wanted, e.waitingAt?.value)); it reached its end (\(went))", offset: endOffset))
        case (let wanted, .waiting(let at)):
            out.append(
                FlowTestFailure(
                    message:
                        "expected it \(Self.phrase(wanted, e.waitingAt?.value)); it waits at \(quoted(at)), which has no answer (\(went)); give it one in \"answers\", or expect \"waitingAt\": \(quoted(at))"
                        + (result.mayAskAfter.isEmpty ? "" : "; after it, \(result.mayAskAfter.map(quoted).listedForMessage()) may ask too"),
                    offset: endOffset))
        case (let wanted, .notShown(let why)):
            out.append(FlowTestFailure(message: "expected it \(Self.phrase(wanted, e.waitingAt?.value)); it is not shown: \(why)", offset: endOffset))
        case (_, .stopped):
            break  // said by the failure that stopped it
        }
        if refusalMissed, let r = e.refused {
            let why = result.shown.contains(r.value) ? "it was taken" : "the block was not reached"
            out.append(FlowTestFailure(message: "expected the answer for \(quoted(r.value)) to be refused; \(why) (\(went))", offset: r.offset))
        }
        if !refusalMissed, let wanted = e.refusal, let refused = result.refused, !refused.message.containsText(wanted.value) {
            out.append(
                FlowTestFailure(
                    message: "the refusal of the answer for \(quoted(refused.id)) says \(quoted(refused.message)), not \(quoted(wanted.value))",
                    offset: wanted.offset))
        }
        if let path = e.path {
            let wanted = path.map(\.value)
            if wanted != result.shown {
                let common = min(wanted.count, result.shown.count)
                let k = (0..<common).first { wanted[$0] != result.shown[$0] } ?? common
                let at = path.indices.contains(k) ? path[k].offset : e.pathOffset
                let detail: String
                if k < wanted.count, k < result.shown.count {
                    detail = "block \(k + 1) is \(quoted(result.shown[k])), not \(quoted(wanted[k]))"
                } else if k < wanted.count {
                    detail = "it showed \(k) blocks, then no \(quoted(wanted[k]))"
                } else {
                    detail = "it went on to \(quoted(result.shown[k]))"
                }
                out.append(FlowTestFailure(message: "the path differs: \(detail) (\(went))", offset: at))
            }
        }
        for id in e.reaches ?? [] where !result.shown.contains(id.value) {
            out.append(FlowTestFailure(message: "expected it to show \(quoted(id.value)) (\(went))", offset: id.offset))
        }
        for id in e.avoids ?? [] {
            if let k = result.shown.firstIndex(of: id.value) {
                out.append(FlowTestFailure(message: "expected it never to show \(quoted(id.value)); it is block \(k + 1) (\(went))", offset: id.offset))
            }
        }
        for v in e.vars {
            let actual = result.variables[v.name] ?? .null
            if actual != v.value {
                out.append(
                    FlowTestFailure(
                        message: "\(quoted(v.name)) is \(Self.shown(actual)), expected \(Self.shown(v.value))", offset: v.offset))
            }
        }
        if let actions = e.actions, actions.value != result.actions {
            out.append(
                FlowTestFailure(message: "expected the actions \(Self.list(actions.value)); they were \(Self.list(result.actions))", offset: actions.offset))
        }
        if let s = e.snooze {
            let wanted = s.value == "none" ? nil : RocketButtonNode.snoozeSeconds(s.value)
            if wanted != result.snooze.flatMap(RocketButtonNode.snoozeSeconds) {
                let left = result.snooze.map(quoted) ?? "none"
                out.append(FlowTestFailure(message: "expected the snooze \(quoted(s.value)); the presses left \(left) (\(went))", offset: s.offset))
            }
        }
        for text in e.says ?? [] where !result.texts.contains(where: { $0.containsText(text.value) }) {
            out.append(FlowTestFailure(message: "no block shown says \(quoted(text.value)) (\(went))", offset: text.offset))
        }
        return out
    }

    /// The blocks shown as a message writes them: `it went a → b → c` (at most 20, then …).
    static func route(_ shown: [String]) -> String {
        guard !shown.isEmpty else { return "it showed nothing" }
        let cut = shown.prefix(20).map { Sanitizer.excerpt($0, limit: 40) }.joined(separator: " → ")
        return "it went " + cut + (shown.count > 20 ? " → … (\(shown.count) blocks)" : "")
    }

    static func phrase(_ end: FlowTestExpectation.End, _ at: String?) -> String {
        switch end {
        case .completed: return "to reach its end"
        case .waiting: return at.map { "to wait at \(FlowDiagnostic.quoted($0))" } ?? "to wait for an answer"
        case .notShown: return "not to be shown"
        }
    }

    static func shown(_ value: RocketValue) -> String { Sanitizer.excerpt(value.json.serialized(pretty: false)) }

    static func list(_ items: [String]) -> String {
        "[" + items.prefix(20).map { FlowDiagnostic.quoted($0) }.joined(separator: ", ") + (items.count > 20 ? ", …" : "") + "]"
    }
}
