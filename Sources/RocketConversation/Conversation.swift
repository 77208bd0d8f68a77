import RocketCore

/// The durations of the original's animations, which decide when blocks appear.
///
/// ```swift
/// let tests = RocketTiming.original          // 2 s intro, 0.3 s bounces, 2 s closing
/// let scripts = RocketTiming.instant         // everything at once, auto-advance included
/// let terminal = RocketTiming.reducedMotion  // no animation delays, auto-advance kept
/// ```
public struct RocketTiming: Hashable, Sendable, Codable {
    /// From `show()` to the root block (author slide-in and bounce).
    public var intro: Double
    /// The bounce after a tap, a single-button press or the close button.
    public var bounce: Double
    /// The bounce after a double-button press (0.2 s × 3).
    public var doubleBounce: Double
    /// From the start of closing to the end.
    public var closing: Double
    /// Multiplies every `showNextAfter` (1 keeps them; 0 fires them at once).
    public var autoAdvanceScale: Double

    /// Creates a timing.
    public init(intro: Double, bounce: Double, doubleBounce: Double, closing: Double, autoAdvanceScale: Double = 1) {
        self.intro = intro
        self.bounce = bounce
        self.doubleBounce = doubleBounce
        self.closing = closing
        self.autoAdvanceScale = autoAdvanceScale
    }

    /// The original's durations.
    public static let original = RocketTiming(intro: 2, bounce: 0.3, doubleBounce: 0.6, closing: 2)
    /// No animation delays; `showNextAfter` kept (terminal default and reduced motion).
    public static let reducedMotion = RocketTiming(intro: 0, bounce: 0, doubleBounce: 0, closing: 0)
    /// Every delay fires at once, `showNextAfter` included (`rocket play --instant`).
    public static let instant = RocketTiming(intro: 0, bounce: 0, doubleBounce: 0, closing: 0, autoAdvanceScale: 0)
}

/// Options of a conversation beyond the original's behaviour.
///
/// ```swift
/// var options = ConversationOptions()
/// options.echoReplies = true   // show what the user typed, as front ends do by default
/// ```
public struct ConversationOptions: Hashable, Sendable, Codable {
    /// Durations (default: the original's).
    public var timing: RocketTiming
    /// Append the user's typed reply to the transcript (the original never did, R19).
    public var echoReplies: Bool
    /// Answers known before the conversation starts, as texts (kept for callers and snapshots
    /// of the release before variables had types; ``initialVariables`` is the typed form).
    public var initialAnswers: [String: String]
    /// Variables' values known before the conversation starts (`--var NAME=VALUE`, the API's
    /// `vars`), over the flow's defaults.
    public var initialVariables: [String: RocketValue]
    /// Seconds to add to the host's clock for the person's local time, as seconds since
    /// 1970-01-01T00:00 in their time zone: the wall clock's lead over the host's clock plus
    /// their offset from UTC. The flow's `today()`, `time()` and `weekday()` and a date input's
    /// bounds counted from today read it; nil gives them no clock.
    public var localShift: Double?
    /// The conversation ends (an `expressionError`, `conversation-too-long`) rather than show more than
    /// `RocketLimits.shownBlocks` blocks or hold more than `RocketLimits.transcriptBytes` of
    /// text: the default, and what `rocket serve`, `play` and `test` use. An app that runs a
    /// rotation of its own for ever may turn it off; the transcript then grows while it runs.
    public var boundsLength: Bool

    /// Creates options; the defaults reproduce the original.
    public init(
        timing: RocketTiming = .original, echoReplies: Bool = false, initialAnswers: [String: String] = [:],
        initialVariables: [String: RocketValue] = [:], localShift: Double? = nil, boundsLength: Bool = true
    ) {
        self.timing = timing
        self.echoReplies = echoReplies
        self.initialAnswers = initialAnswers
        self.initialVariables = initialVariables
        self.localShift = localShift
        self.boundsLength = boundsLength
    }

    private enum CodingKeys: String, CodingKey { case timing, echoReplies, initialAnswers, initialVariables, localShift, boundsLength }

    /// Decodes options (those written before variables existed have none).
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        timing = try c.decode(RocketTiming.self, forKey: .timing)
        echoReplies = try c.decode(Bool.self, forKey: .echoReplies)
        initialAnswers = try c.decode([String: String].self, forKey: .initialAnswers)
        initialVariables = try c.decodeIfPresent([String: RocketValue].self, forKey: .initialVariables) ?? [:]
        localShift = try c.decodeIfPresent(Double.self, forKey: .localShift)
        boundsLength = try c.decodeIfPresent(Bool.self, forKey: .boundsLength) ?? true
    }
}

/// What the user can do to a conversation.
///
/// ```swift
/// try conversation.send(.tap, at: clock.now)
/// try conversation.send(.submit("Ada"), at: clock.now)
/// ```
public enum RocketIntent: Hashable, Sendable, Codable {
    /// Tap the newest text or image block.
    case tap
    /// Press the newest single button.
    case pressButton
    /// Press the left button of the newest double button.
    case pressLeft
    /// Press the right button of the newest double button.
    case pressRight
    /// Submit text to the newest input block.
    case submit(String)
    /// Activate the close button.
    case close
    /// Choose an option (by index) of the newest choice block.
    case choose(Int)
    /// Choose these options (by index) of the newest multiple choice block.
    case chooseMany([Int])
    /// Answer the newest rating block with a value from its bottom (1, or 0) to its scale.
    case rate(Int)
    /// Go back to the last block before the newest one that took an answer, to answer it again.
    case back
}

extension RocketIntent {
    /// An intent's name: the one spelling of the server's API (`"intent"` and `accepts`), the web
    /// widget and the API's schema.
    public enum Name: String, CaseIterable, Hashable, Sendable {
        case tap, pressButton, pressLeft, pressRight, submit, choose, chooseMany, rate, back, close

        /// The intent of a name that takes no value (a tap, a button, close, back); nil for the
        /// names that need one (`submit`, `choose`, `chooseMany`, `rate`).
        public var plainIntent: RocketIntent? {
            switch self {
            case .tap: return .tap
            case .pressButton: return .pressButton
            case .pressLeft: return .pressLeft
            case .pressRight: return .pressRight
            case .close: return .close
            case .back: return .back
            case .submit, .choose, .chooseMany, .rate: return nil
            }
        }
    }

    /// This intent's name.
    public var name: Name {
        switch self {
        case .tap: return .tap
        case .pressButton: return .pressButton
        case .pressLeft: return .pressLeft
        case .pressRight: return .pressRight
        case .submit: return .submit
        case .close: return .close
        case .choose: return .choose
        case .chooseMany: return .chooseMany
        case .rate: return .rate
        case .back: return .back
        }
    }

    /// The intents that answer the newest block of `kind`.
    public static func names(answering kind: RocketBlockKind) -> [Name] {
        switch kind {
        case .text, .image: return [.tap]
        case .button: return [.pressButton]
        case .doubleButton: return [.pressLeft, .pressRight]
        case .textInput: return [.submit]
        case .choice: return [.choose]
        case .rating: return [.rate]
        case .set, .condition, .jump: return []
        }
    }

    /// The intents that answer `node` (a multiple choice takes `chooseMany`).
    public static func names(answering node: RocketNode) -> [Name] {
        if case .choice(let c) = node.content, c.multiple { return [.chooseMany] }
        return names(answering: node.kind)
    }
}

/// Why an intent was refused. The conversation is unchanged when one is thrown, except that an
/// ``invalidInput(_:)`` refusal is recorded in ``ConversationState/inputError``.
public enum RocketIntentError: Error, Hashable, Sendable, Codable {
    /// The conversation is not showing (not started, closing or dismissed).
    case notActive
    /// No block accepts interaction now (a bounce or timer is running, or the block already fired).
    case noInteractiveBlock
    /// The newest block goes on by itself (`showNextAfter` > 0), so it cannot be tapped.
    case tapDisabled
    /// The intent does not fit the newest block's kind.
    case wrongKind(expected: RocketBlockKind, intent: RocketIntent)
    /// The typed text broke a validation rule; the block stays active.
    case invalidInput(RocketValidationFailure)
    /// `.close` was sent to a conversation that has no close button.
    case noCloseButton
    /// `.choose(index)` named an option the choice block does not have.
    case noSuchOption(Int)
    /// `.back` with no answered block to go back to, or in a flow that does not allow it.
    case cannotGoBack
}

/// Where a conversation is in its life.
public enum ConversationStatus: Hashable, Sendable, Codable {
    /// Not shown yet.
    case notShown
    /// Shown; the root block comes after the intro.
    case presenting
    /// Blocks are on screen.
    case active
    /// Closing (the dismiss event has fired).
    case closing(RocketDismissReason)
    /// Gone.
    case dismissed(RocketDismissReason)

    /// The status as a word: `notShown`, `presenting`, `active`, `closing`, `dismissed` (the
    /// spelling of the stored snapshots and of the server's API).
    public var word: String {
        switch self {
        case .notShown: return "notShown"
        case .presenting: return "presenting"
        case .active: return "active"
        case .closing: return "closing"
        case .dismissed: return "dismissed"
        }
    }

    /// Why it ends, while closing or once dismissed.
    public var reason: RocketDismissReason? {
        switch self {
        case .closing(let r), .dismissed(let r): return r
        default: return nil
        }
    }

    /// The status of a word and a reason (nil when the word needs a reason and there is none).
    public init?(word: String, reason: RocketDismissReason?) {
        switch word {
        case "notShown": self = .notShown
        case "presenting": self = .presenting
        case "active": self = .active
        case "closing": guard let reason else { return nil }; self = .closing(reason)
        case "dismissed": guard let reason else { return nil }; self = .dismissed(reason)
        default: return nil
        }
    }

    /// True while the conversation is on screen (presenting, active or closing).
    public var isVisible: Bool {
        switch self {
        case .presenting, .active, .closing: return true
        default: return false
        }
    }
}

/// One line of the transcript: a shown block, or the user's own reply.
public enum TranscriptItem: Hashable, Sendable, Codable {
    /// The block shown at `index` (0-based, as in ``Conversation/blocks``), which is `node` of
    /// the graph, with its text as shown.
    case block(index: Int, node: RocketNodeID, text: String)
    /// The user's reply to the input block at `blockIndex`; masked when secret.
    case reply(blockIndex: Int, text: String, isSecret: Bool)
}

/// A stored answer.
public struct RocketAnswer: Hashable, Sendable, Codable {
    /// The typed text or chosen button title.
    public var value: String
    /// True for secret inputs: never written to events or files.
    public var isSecret: Bool
    /// The answer as a typed value when it is not a text: a number of a number input, a list of
    /// a multiple choice, null for an optional typed input left empty.
    public var typed: RocketValue?

    /// Creates an answer.
    public init(value: String, isSecret: Bool = false, typed: RocketValue? = nil) {
        self.value = value
        self.isSecret = isSecret
        self.typed = typed
    }

    /// The answer as expressions read it: the typed value, else the text.
    public var typedValue: RocketValue { typed ?? .text(value) }
}

/// What the host must do after a state change, in order.
///
/// The engine never runs app code. When a button has host code, or host code decides where an
/// input goes, the engine finishes its state change and returns an effect; the host runs the
/// code afterwards, so that code may call anything on the host again.
public enum ConversationEffect: Hashable, Sendable {
    /// Report this event (to streams, callbacks and notifications; `.action` runs a named action).
    case event(RocketEvent)
    /// Run the host's code for the button of `node` (`side` for a double button).
    case runTapAction(node: RocketNodeID, side: RocketButtonSide?)
    /// Ask the host's code where accepted `text` goes, then call
    /// ``Conversation/resolveInput(next:at:)``. Until then no block accepts input.
    case decideInput(node: RocketNodeID, index: Int, text: String)

    /// The event, when this effect is one.
    public var event: RocketEvent? {
        if case .event(let e) = self { return e }
        return nil
    }
}

extension Array where Element == ConversationEffect {
    /// The events among these effects, in order.
    public var events: [RocketEvent] { compactMap(\.event) }
}

/// Everything about a conversation that changes while it runs: a plain value, so it can be
/// compared, sent across tasks, and saved (see ``ConversationSnapshot``).
public struct ConversationState: Hashable, Sendable, Codable {
    /// Per shown block: it fired (never accepts input again); taps are allowed.
    public struct BlockFlags: Hashable, Sendable, Codable {
        /// It fired.
        public var fired: Bool
        /// It accepts a tap (false while its auto-advance timer runs).
        public var tapEnabled: Bool
    }

    /// What a pending timer will do.
    public enum TimerAction: Hashable, Sendable, Codable {
        /// Show the root block.
        case appendRoot
        /// Auto-advance the text block at this index.
        case autoAdvance(index: Int)
        /// Show `to` (nil: the conversation completes) after the block at `from`.
        case advance(from: Int, to: RocketNodeID?)
        /// The close button's bounce ended.
        case closeByUser
        /// The closing animation ended.
        case finishClosing(RocketDismissReason)
    }

    /// A pending timer.
    public struct Timer: Hashable, Sendable, Codable {
        /// When it fires, on the host's clock.
        public var deadline: Double
        /// Order among timers with the same deadline.
        public var sequence: Int
        /// What it does.
        public var action: TimerAction
    }

    /// Where the conversation is in its life.
    public var status: ConversationStatus = .notShown
    /// The graph nodes shown so far, in order.
    public var shown: [RocketNodeID] = []
    /// Flags of each shown block.
    public var flags: [BlockFlags] = []
    /// Everything shown so far, replies included when echoing is on.
    public var transcript: [TranscriptItem] = []
    /// Answers by block id.
    public var answers = [String: RocketAnswer]()
    /// The last refusal of typed text for the current input block.
    public var inputError: RocketValidationFailure?
    /// The double-button side pressed, by shown index.
    public var pressedSide = [Int: RocketButtonSide]()
    /// The option chosen in a choice block, by shown index (absent from snapshots made before
    /// choice blocks existed); for a rating block, the rating less its bottom.
    public var chosenOptions: [Int: Int]?
    /// The options chosen in a multiple choice block, by shown index, in option order.
    public var chosenSets: [Int: [Int]]?
    /// Pending timers.
    public var timers: [Timer] = []
    /// The last timer sequence number given out.
    public var sequence = 0
    /// The shown index of an input block whose accepted text awaits the host's decision.
    public var awaitingDecision: Int?
    /// When auto-advance was held (paused) for the visitor, or nil while it runs (WCAG 2.2.1:
    /// timing the visitor can pause). Held, auto-advance timers do not fire and the block they
    /// would advance takes a tap.
    public var heldSince: Double?
    /// The flow's variables by name: their defaults, the values given at the start, and what
    /// `set` blocks gave them since.
    public var variables = [String: RocketValue]()
    /// A value as it was when the block shown at `index` (one that takes an answer) was shown.
    public struct Checkpoint<Value: Hashable & Sendable & Codable>: Hashable, Sendable, Codable {
        /// The shown index.
        public var index: Int
        /// The value then.
        public var value: Value
    }
    /// The variables as they were when blocks that take an answer were shown, in shown order,
    /// one only where they had changed since the one before: going back to a block restores the
    /// last one at or before it.
    public var checkpoints: [Checkpoint<[String: RocketValue]>] = []
    /// Where each returning jump the conversation is inside goes on (innermost last; nil: it
    /// ends there too).
    public var returns: [RocketNodeID?] = []
    /// ``returns`` at blocks that take an answer, kept as ``checkpoints`` are.
    public var returnCheckpoints: [Checkpoint<[RocketNodeID?]>] = []
    /// What the block gone back to last was answered, which its front end starts from, to be
    /// changed (``Conversation/startingText(at:)``, ``Conversation/startingChoices(at:)``).
    public struct Draft: Hashable, Sendable, Codable {
        /// The shown index of the block gone back to.
        public var index: Int
        /// A text input's answer (never a secret one's).
        public var text: String?
        /// The options a choice had chosen, or a rating's value less its bottom.
        public var chosen: [Int]?
    }
    /// The block gone back to last, with its answer then.
    public var draft: Draft?
    /// The backtracking steps its expressions' `matches(…)` have been charged so far, of
    /// `RocketLimits.conversationPatternSteps`.
    public var patternSteps = 0

    /// A state that has not been shown.
    public init() {}

    private enum CodingKeys: String, CodingKey {
        case status, shown, flags, transcript, answers, inputError, pressedSide, chosenOptions, timers, sequence, awaitingDecision,
            heldSince, variables, chosenSets, checkpoints, returns, returnCheckpoints, draft, patternSteps
    }

    /// Decodes a state (one written before a field existed has that field's empty value).
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        status = try c.decode(ConversationStatus.self, forKey: .status)
        shown = try c.decode([RocketNodeID].self, forKey: .shown)
        flags = try c.decode([BlockFlags].self, forKey: .flags)
        transcript = try c.decode([TranscriptItem].self, forKey: .transcript)
        answers = try c.decode([String: RocketAnswer].self, forKey: .answers)
        inputError = try c.decodeIfPresent(RocketValidationFailure.self, forKey: .inputError)
        pressedSide = try c.decode([Int: RocketButtonSide].self, forKey: .pressedSide)
        chosenOptions = try c.decodeIfPresent([Int: Int].self, forKey: .chosenOptions)
        timers = try c.decode([Timer].self, forKey: .timers)
        sequence = try c.decode(Int.self, forKey: .sequence)
        awaitingDecision = try c.decodeIfPresent(Int.self, forKey: .awaitingDecision)
        heldSince = try c.decodeIfPresent(Double.self, forKey: .heldSince)
        variables = try c.decodeIfPresent([String: RocketValue].self, forKey: .variables) ?? [:]
        chosenSets = try c.decodeIfPresent([Int: [Int]].self, forKey: .chosenSets)
        checkpoints = try c.decodeIfPresent([Checkpoint<[String: RocketValue]>].self, forKey: .checkpoints) ?? []
        returns = try c.decodeIfPresent([RocketNodeID?].self, forKey: .returns) ?? []
        returnCheckpoints = try c.decodeIfPresent([Checkpoint<[RocketNodeID?]>].self, forKey: .returnCheckpoints) ?? []
        draft = try c.decodeIfPresent(Draft.self, forKey: .draft)
        patternSteps = try c.decodeIfPresent(Int.self, forKey: .patternSteps) ?? 0
    }
}

/// The headless RocketAlert engine: a value that holds a block graph and the state of one run
/// through it, changed only by its own mutating methods.
///
/// It never reads a clock, never draws and never runs app code. Hosts pass the current instant
/// to every call, render the read-only properties, call ``advance(to:)`` when ``nextDeadline``
/// passes, and perform the ``ConversationEffect``s each call returns once it has returned
/// (``ConversationHost`` does all of this).
///
/// ```swift
/// var graph = RocketGraph()
/// let second = graph.add(RocketNode(text: "Second"))
/// graph.root = graph.add(RocketNode(text: "First", next: second))
/// var c = Conversation(graph: graph, options: ConversationOptions(timing: .instant))
/// c.start(at: 0)               // [.event(.blockAdded(0, First))]
/// try c.send(.tap, at: 1)      // [.event(.tapped), .event(.blockAdded(1, Second))]
/// ```
public struct Conversation: Hashable, Sendable, Codable {
    /// The blocks, as values.
    public private(set) var graph: RocketGraph
    /// The speaker.
    public var author: RocketAuthor
    /// The close button; `.close` is refused while it is nil. May change at any time.
    public var closeButton: RocketCloseButton?
    /// Options fixed at creation.
    public let options: ConversationOptions
    /// Everything that changes while the conversation runs.
    public private(set) var state: ConversationState

    /// Deadlines within this many seconds of `now` are due (absorbs floating-point sums).
    static let tolerance = 1e-6
    /// Safety valve: at most this many timers fire in one ``advance(to:)`` call.
    static let maxFiringsPerAdvance = RocketLimits.firingsPerAdvance

    /// Creates a conversation over `graph` that has not been shown.
    public init(
        graph: RocketGraph, author: RocketAuthor = RocketAuthor(image: nil, name: "Rocket"),
        closeButton: RocketCloseButton? = nil, options: ConversationOptions = ConversationOptions()
    ) {
        self.graph = graph
        self.author = author
        self.closeButton = closeButton
        self.options = options
        self.state = ConversationState()
        // (Reserving room on the empty dictionary would allocate a table even for none.)
        if !options.initialAnswers.isEmpty { state.answers.reserveCapacity(options.initialAnswers.count) }
        for (k, v) in options.initialAnswers { state.answers[k] = RocketAnswer(value: v) }
        if !graph.variables.isEmpty || !options.initialVariables.isEmpty {
            state.variables.reserveCapacity(graph.variables.count)
            for v in graph.variables where v.defaultValue != .null { state.variables[v.name] = v.defaultValue }
            for (k, v) in options.initialVariables { state.variables[k] = v }
        }
    }

    /// Creates a conversation over `graph` in a given state (a restored snapshot).
    public init(
        graph: RocketGraph, author: RocketAuthor, closeButton: RocketCloseButton?, options: ConversationOptions,
        state: ConversationState
    ) {
        self.graph = graph
        self.author = author
        self.closeButton = closeButton
        self.options = options
        self.state = state
    }

    // MARK: Reading the state

    /// The block shown first.
    public var root: RocketNodeID? { graph.root }
    /// Where the conversation is in its life.
    public var status: ConversationStatus { state.status }
    /// Everything shown so far.
    public var transcript: [TranscriptItem] { state.transcript }
    /// Answers by block id (typed text, or the chosen button's title), plus initial answers.
    public var answers: [String: RocketAnswer] { state.answers }
    /// The last refusal of typed text for the current input block (cleared on acceptance).
    public var inputError: RocketValidationFailure? { state.inputError }
    /// The double-button side pressed, by shown index (so front ends can draw it pressed).
    public var pressedSide: [Int: RocketButtonSide] { state.pressedSide }
    /// The option chosen in each choice block, by shown index (for a rating block, the rating
    /// less its bottom: `RocketRatingNode.values`).
    public var chosenOptions: [Int: Int] { state.chosenOptions ?? [:] }
    /// The options chosen in each multiple choice block, by shown index.
    public var chosenSets: [Int: [Int]] { state.chosenSets ?? [:] }
    /// How many blocks have been shown.
    public var shownCount: Int { state.shown.count }
    /// The blocks shown so far, in order (the original's `blocks`). Builds an array: use
    /// ``node(at:)`` in loops.
    public var blocks: [RocketNode] { state.shown.map { graph[$0] } }
    /// The block shown at `index`.
    public func node(at index: Int) -> RocketNode { graph[state.shown[index]] }
    /// The graph id of the block shown at `index`.
    public func nodeID(at index: Int) -> RocketNodeID { state.shown[index] }

    /// The earliest pending timer, or nil when nothing will happen without input (auto-advance
    /// timers do not count while held).
    public var nextDeadline: Double? {
        var best: Double?
        for t in state.timers where (best == nil || t.deadline < best!) && !isHeld(t) { best = t.deadline }
        return best
    }

    /// True when `timer` waits because auto-advance is held.
    private func isHeld(_ timer: ConversationState.Timer) -> Bool {
        guard state.heldSince != nil, case .autoAdvance = timer.action else { return false }
        return true
    }

    /// True when the newest block goes on by itself and the visitor may hold it (an auto-advance
    /// timer runs or is held for it).
    public var autoAdvancePending: Bool {
        state.timers.contains {
            if case .autoAdvance = $0.action { return true }; return false
        }
    }

    /// True when the block shown at `index` waits on a held auto-advance timer.
    private func heldAutoAdvance(_ index: Int) -> Bool {
        state.heldSince != nil
            && state.timers.contains {
                if case .autoAdvance(index) = $0.action { return true }; return false
            }
    }

    /// True while auto-advance is held.
    public var isHoldingAutoAdvance: Bool { state.heldSince != nil }

    /// Holds auto-advance at `now` (the visitor is reading, typing, pointing at or focused in the
    /// conversation, or turned it off): its timers wait, and the block they would advance takes
    /// a tap instead. Nothing else changes; holding twice is holding once.
    public mutating func hold(at now: Double) {
        if state.heldSince == nil { state.heldSince = now }
    }

    /// Lets auto-advance run again at `now`: each held timer keeps the time it had left when held.
    public mutating func release(at now: Double) -> [ConversationEffect] {
        guard let since = state.heldSince else { return [] }
        let held = max(0, now - since)
        for i in state.timers.indices {
            if case .autoAdvance = state.timers[i].action { state.timers[i].deadline += held }
        }
        state.heldSince = nil
        var effects: [ConversationEffect] = []
        fireDue(now, into: &effects)
        return effects
    }

    /// The index of the block that accepts input now, or nil.
    public var interactiveIndex: Int? {
        guard state.status == .active, state.awaitingDecision == nil, let last = state.shown.indices.last,
            !state.flags[last].fired
        else { return nil }
        if !state.flags[last].tapEnabled && !heldAutoAdvance(last) { return nil }
        return last
    }

    /// The block that accepts input now, or nil.
    public var interactiveBlock: RocketNode? { interactiveIndex.map { node(at: $0) } }

    /// The button `intent` would press now (a button, a side of a double button, an option of a
    /// single choice), or nil: what a host looks at before it sends the intent (a snooze it keeps
    /// first).
    public func button(pressedBy intent: RocketIntent) -> RocketButtonNode? {
        guard let block = interactiveBlock else { return nil }
        switch (intent, block.content) {
        case (.pressButton, .button(let b)): return b
        case (.pressLeft, .doubleButton(let l, _)): return l
        case (.pressRight, .doubleButton(_, let r)): return r
        case (.choose(let k), .choice(let c)) where !c.multiple && c.options.indices.contains(k): return c.options[k]
        default: return nil
        }
    }

    /// The intents the conversation takes now: those of its interactive block, and `close` while
    /// it is on screen with a close button.
    public var acceptedIntents: [RocketIntent.Name] {
        var out = interactiveBlock.map { RocketIntent.names(answering: $0) } ?? []
        if backTarget != nil { out.append(.back) }
        if closeButton != nil, status == .active || status == .presenting { out.append(.close) }
        return out
    }

    /// The shown index `.back` would return to: the last block before the newest interactive
    /// one that took an answer, when the flow allows going back; nil otherwise.
    public var backTarget: Int? {
        guard graph.allowBack, let active = interactiveIndex else { return nil }
        var i = active - 1
        while i >= 0 {
            if graph[state.shown[i]].takesAnswer && state.flags[i].fired { return i }
            i -= 1
        }
        return nil
    }

    /// False when nothing can happen any more: the conversation is on screen with no block that
    /// takes input and no timer pending (a decision nobody will make, a closing that never ends).
    /// No step of the engine leads there; a hand-edited snapshot can.
    public var canMakeProgress: Bool {
        switch state.status {
        case .notShown, .dismissed: return true
        default: return interactiveIndex != nil || nextDeadline != nil
        }
    }

    /// True when the block at `index` has fired (it will never accept input again).
    public func hasFired(_ index: Int) -> Bool { state.flags.indices.contains(index) && state.flags[index].fired }

    /// True when the newest block is a text block waiting for its timer.
    public var isWaitingForAutoAdvance: Bool {
        guard state.status == .active, let last = state.shown.indices.last else { return false }
        return !state.flags[last].tapEnabled && !state.flags[last].fired
    }

    /// Fills `{{name}}` placeholders from the variables and the answers; unknown names stay as
    /// written, secret answers show as bullets.
    public func interpolate(_ template: String) -> String {
        if state.variables.isEmpty { return RocketTemplate.render(template, answers: state.answers) }
        return RocketTemplate.render(template) { name in
            if let v = state.variables[name], v != .null { return (v.displayText, false) }
            return state.answers[name].map { ($0.value, $0.isSecret) }
        }
    }

    /// The text the field of the input block shown at `index` starts with while it waits: the
    /// answer it had when the person went back to it (not when secret), else its `value` with `{{name}}`
    /// placeholders filled: a variable or a block of the flow with no value yet, or a secret
    /// answer, fills nothing; a name the flow does not have stays as written, as in every text.
    /// Nil when that is empty, the block is not a text input or it does not wait.
    ///
    /// ```swift
    /// c.startingText(at: c.interactiveIndex!)   // "ada@example.org"
    /// ```
    public func startingText(at index: Int) -> String? {
        guard index == interactiveIndex, case .textInput(let input) = graph[state.shown[index]].content else { return nil }
        if let draft = state.draft, draft.index == index, let text = draft.text { return text }
        guard let value = input.value else { return nil }
        let text = RocketTemplate.render(value) { name in
            if let v = state.variables[name], v != .null { return (v.displayText, false) }
            if let answer = state.answers[name] { return (answer.isSecret ? "" : answer.value, false) }
            let known = graph.variable(named: name) != nil || graph.nodes.contains { $0.id == name }
            return known ? ("", false) : nil
        }
        return text.isEmpty ? nil : text
    }

    /// What the empty field of the text input shown at `index` says it takes: the flow's
    /// `placeholder` (filled), else the bounds of its typed answer on the person's day at `now`
    /// (a bound counted from today is left out when `now` is nil or the conversation has no
    /// clock), else the form of a date or time; nil for a plain text field without a placeholder,
    /// or when the block is not a text input.
    ///
    /// ```swift
    /// c.fieldHint(at: c.interactiveIndex!, now: now)   // .range(low: "18", high: nil)
    /// ```
    public func fieldHint(at index: Int, now: Double?) -> RocketFieldHint? {
        guard state.shown.indices.contains(index), case .textInput(let input) = graph[state.shown[index]].content else { return nil }
        if let placeholder = input.placeholder {
            let text = interpolate(placeholder)
            return text.isEmpty ? nil : .text(text)
        }
        return input.typeHint(today: now.flatMap { localTime(at: $0) }?.dayText)
    }

    /// The options a choice or rating shown at `index` starts with while it waits: what it had
    /// chosen when the person went back to it (a single choice's option or a rating's value
    /// less its bottom, to start on; a multiple choice's options, ticked), else the options of a
    /// multiple choice the flow marks `selected`; nil when there are none or it does not wait.
    ///
    /// ```swift
    /// c.startingChoices(at: c.interactiveIndex!)   // [0, 2]: Tea and Milk ticked
    /// ```
    public func startingChoices(at index: Int) -> [Int]? {
        guard index == interactiveIndex else { return nil }
        if let draft = state.draft, draft.index == index, let chosen = draft.chosen {
            // (A snapshot may hold anything: only options the block has.)
            let count: Int
            switch graph[state.shown[index]].content {
            case .choice(let choice): count = choice.options.count
            case .rating(let rating): count = rating.values.count
            default: return nil
            }
            return chosen.filter { (0..<count).contains($0) }
        }
        guard case .choice(let choice) = graph[state.shown[index]].content, choice.multiple else { return nil }
        let selected = choice.options.indices.filter { choice.options[$0].selected == true }
        return selected.isEmpty ? nil : selected
    }

    /// What the block shown at `index` was answered, to start from when it is asked again: a
    /// text input's text (not a secret one's), a choice's or a rating's options.
    private func given(at index: Int) -> ConversationState.Draft? {
        switch graph[state.shown[index]].content {
        case .textInput(let input) where !input.isSecret:
            if let id = graph[state.shown[index]].id, let answer = state.answers[id] {
                return ConversationState.Draft(index: index, text: answer.value)
            }
            for case .reply(index, let text, false) in state.transcript.reversed() { return ConversationState.Draft(index: index, text: text) }
            return nil
        case .choice(let choice):
            let chosen = choice.multiple ? state.chosenSets?[index] : state.chosenOptions?[index].map { [$0] }
            return chosen.map { ConversationState.Draft(index: index, chosen: $0) }
        case .rating:
            return state.chosenOptions?[index].map { ConversationState.Draft(index: index, chosen: [$0]) }
        default: return nil
        }
    }

    /// The flow's variables by name (defaults, values given at the start, values set since).
    public var variables: [String: RocketValue] { state.variables }

    /// The value a name has in an expression: a variable's, else an answer's text, else nil.
    public func value(of name: String) -> RocketValue? {
        Self.value(of: name, state.variables, state.answers)
    }

    /// ``value(of:)`` over the two tables alone: evaluating with it holds references to them,
    /// not a copy of the whole conversation.
    static func value(of name: String, _ variables: [String: RocketValue], _ answers: [String: RocketAnswer]) -> RocketValue? {
        if let v = variables[name] { return v }
        return answers[name]?.typedValue
    }

    /// Evaluates `e` over the variables and answers as they are now, and the person's local
    /// time at host time `now`. Its `matches(…)` take their steps from what is left of the conversation's.
    private mutating func evaluate(_ e: RocketExpression, at now: Double) -> Result<RocketValue, RocketExpressionError> {
        let variables = state.variables, answers = state.answers
        var left = RocketLimits.conversationPatternSteps - state.patternSteps
        let result = e.evaluate({ Self.value(of: $0, variables, answers) }, local: localTime(at: now), patternSteps: &left)
        state.patternSteps = RocketLimits.conversationPatternSteps - left
        return result
    }

    /// The person's local date and time at host time `now`, or nil without
    /// ``ConversationOptions/localShift``.
    public func localTime(at now: Double) -> RocketExpression.LocalTime? {
        options.localShift.flatMap { RocketExpression.LocalTime(localSeconds: now + $0) }
    }

    // MARK: Driving

    /// Shows the conversation: the root block comes after the intro. A second call does nothing
    /// and returns nothing (the original presented twice, R2).
    @discardableResult
    public mutating func start(at now: Double) -> [ConversationEffect] {
        guard state.status == .notShown else { return [] }
        state.status = .presenting
        schedule(.appendRoot, at: now + options.timing.intro)
        var effects: [ConversationEffect] = []
        fireDue(now, into: &effects)
        return effects
    }

    /// Fires every timer due at `now`, in deadline order.
    @discardableResult
    public mutating func advance(to now: Double) -> [ConversationEffect] {
        var effects: [ConversationEffect] = []
        fireDue(now, into: &effects)
        return effects
    }

    /// Applies a user intent at `now`, then fires timers already due.
    ///
    /// - Throws: ``RocketIntentError`` when the intent does not apply now; the state is then
    ///   unchanged, except that an ``RocketIntentError/invalidInput(_:)`` refusal is recorded in
    ///   ``inputError``.
    @discardableResult
    public mutating func send(_ intent: RocketIntent, at now: Double) throws(RocketIntentError) -> [ConversationEffect] {
        var effects: [ConversationEffect] = []
        if intent == .close {
            guard state.status == .presenting || state.status == .active else { throw .notActive }
            guard closeButton != nil else { throw .noCloseButton }
            // Input stops at once; the close button bounces, then dismisses.
            for i in state.flags.indices { state.flags[i].fired = true }
            state.awaitingDecision = nil
            state.timers.removeAll {
                if case .finishClosing = $0.action { return false }; return true
            }
            schedule(.closeByUser, at: now + options.timing.bounce)
            fireDue(now, into: &effects)
            return effects
        }
        guard state.status == .active else { throw .notActive }
        if intent == .back {
            guard let target = backTarget else { throw .cannotGoBack }
            goBack(to: target, into: &effects)
            fireDue(now, into: &effects)
            return effects
        }
        guard state.awaitingDecision == nil, let index = state.shown.indices.last, !state.flags[index].fired else {
            throw .noInteractiveBlock
        }
        let nodeID = state.shown[index]
        let node = graph[nodeID]
        switch (intent, node.content) {
        case (.tap, .text), (.tap, .image):
            // A block whose auto-advance is held goes on with a tap, as any other would.
            if heldAutoAdvance(index) {
                state.timers.removeAll {
                    if case .autoAdvance(index) = $0.action { return true }; return false
                }
                state.flags[index].tapEnabled = true
            }
            guard state.flags[index].tapEnabled else { throw .tapDisabled }
            state.flags[index].fired = true
            state.flags[index].tapEnabled = false
            effects.append(.event(.tapped(index: index, id: node.id, automatic: false)))
            schedule(.advance(from: index, to: node.tapNext), at: now + options.timing.bounce)
        case (.pressButton, .button(let button)):
            state.flags[index].fired = true
            let title = interpolate(button.title)
            record(answer: title, for: node.id)
            effects.append(.event(.buttonPressed(index: index, id: node.id, side: nil, title: title, options: [0], titles: [title])))
            press(button, node: nodeID, side: nil, blockID: node.id, into: &effects)
            schedule(.advance(from: index, to: button.next), at: now + options.timing.bounce)
        case (.pressLeft, .doubleButton(let left, let right)), (.pressRight, .doubleButton(let left, let right)):
            state.flags[index].fired = true
            let side: RocketButtonSide = intent == .pressLeft ? .left : .right
            let button = side == .left ? left : right
            let title = interpolate(button.title)
            state.pressedSide[index] = side
            record(answer: title, for: node.id)
            effects.append(
                .event(.buttonPressed(index: index, id: node.id, side: side, title: title, options: [side == .left ? 0 : 1], titles: [title])))
            press(button, node: nodeID, side: side, blockID: node.id, into: &effects)
            schedule(.advance(from: index, to: button.next), at: now + options.timing.doubleBounce)
        case (.chooseMany(let picked), .choice(let choice)) where choice.multiple:
            var set = Set<Int>()
            for k in picked {
                guard choice.options.indices.contains(k) else { throw .noSuchOption(k) }
                set.insert(k)
            }
            let least = max(1, choice.minChosen ?? 1), most = choice.maxChosen ?? choice.options.count
            if set.count < least || set.count > most {
                let failure = RocketValidationFailure(rule: set.count < least ? .tooFewChosen(least) : .tooManyChosen(most), message: nil)
                state.inputError = failure
                throw .invalidInput(failure)
            }
            state.inputError = nil
            state.flags[index].fired = true
            let chosen = set.sorted()
            let titles = chosen.map { interpolate(choice.options[$0].title) }
            if let id = node.id { state.answers[id] = RocketAnswer(value: titles.joined(separator: ", "), typed: .list(titles)) }
            state.chosenSets = (state.chosenSets ?? [:]).merging([index: chosen]) { $1 }
            effects.append(.event(.buttonPressed(index: index, id: node.id, side: nil, title: titles.joined(separator: ", "), options: chosen, titles: titles)))
            for k in chosen { press(choice.options[k], node: nodeID, side: nil, blockID: node.id, into: &effects) }
            schedule(.advance(from: index, to: choice.next), at: now + options.timing.bounce)
        case (.rate(let value), .rating(let rating)):
            guard rating.values.contains(value) else { throw .noSuchOption(value) }
            state.flags[index].fired = true
            if let id = node.id { state.answers[id] = RocketAnswer(value: String(value), typed: .number(Double(value))) }
            let option = value - rating.values.lowerBound
            state.chosenOptions = (state.chosenOptions ?? [:]).merging([index: option]) { $1 }
            effects.append(.event(.buttonPressed(index: index, id: node.id, side: nil, title: String(value), options: [option], titles: [String(value)])))
            schedule(.advance(from: index, to: rating.next), at: now + options.timing.bounce)
        case (.choose(let k), .choice(let choice)) where !choice.multiple:
            guard choice.options.indices.contains(k) else { throw .noSuchOption(k) }
            state.flags[index].fired = true
            let option = choice.options[k]
            let title = interpolate(option.title)
            record(answer: title, for: node.id)
            effects.append(.event(.buttonPressed(index: index, id: node.id, side: nil, title: title, options: [k], titles: [title])))
            state.chosenOptions = (state.chosenOptions ?? [:]).merging([index: k]) { $1 }
            press(option, node: nodeID, side: nil, blockID: node.id, into: &effects)
            schedule(.advance(from: index, to: option.next), at: now + options.timing.bounce)
        case (.submit(let text), .textInput(let input)):
            let value: RocketValue
            switch input.accept(text, today: localTime(at: now)?.dayText) {
            case .success(let v): value = v
            case .failure(let failure):
                state.inputError = failure
                throw .invalidInput(failure)
            }
            state.inputError = nil
            state.flags[index].fired = true
            if input.inputType == .text {
                record(answer: text, for: node.id, secret: input.isSecret)
            } else if let id = node.id {
                state.answers[id] = RocketAnswer(value: value.displayText, isSecret: input.isSecret, typed: value)
            }
            effects.append(.event(.inputSubmitted(index: index, id: node.id, text: input.isSecret ? nil : text)))
            if options.echoReplies {
                let shown = input.isSecret ? RocketTemplate.mask(text) : text
                state.transcript.append(.reply(blockIndex: index, text: shown, isSecret: input.isSecret))
                effects.append(.event(.replyShown(afterIndex: index, text: shown)))
            }
            if input.decidedByHost {
                state.awaitingDecision = index
                effects.append(.decideInput(node: nodeID, index: index, text: text))
                return effects
            }
            // The next block comes at once, with no bounce (original behaviour).
            appendOrDismiss(input.resolveNext(for: text), now: now, into: &effects)
        default:
            throw .wrongKind(expected: node.kind, intent: intent)
        }
        fireDue(now, into: &effects)
        return effects
    }

    /// Continues after ``ConversationEffect/decideInput(node:index:text:)``: shows `next`, or
    /// completes the conversation when it is nil. Does nothing when no decision is pending or
    /// `next` is not a node of the graph (which completes the conversation instead).
    @discardableResult
    public mutating func resolveInput(next: RocketNodeID?, at now: Double) -> [ConversationEffect] {
        guard state.awaitingDecision != nil else { return [] }
        state.awaitingDecision = nil
        var effects: [ConversationEffect] = []
        guard state.status == .active else { return effects }
        appendOrDismiss(next.flatMap { graph.contains($0) ? $0 : nil }, now: now, into: &effects)
        fireDue(now, into: &effects)
        return effects
    }

    /// Dismisses on the app's request: no legacy dismiss event, a typed `.dismissed(reason)`.
    /// Does nothing once closing has started.
    @discardableResult
    public mutating func dismiss(at now: Double, reason: RocketDismissReason = .dismissedByApp) -> [ConversationEffect] {
        guard state.status == .presenting || state.status == .active else { return [] }
        var effects: [ConversationEffect] = []
        beginClosing(reason, now: now, into: &effects)
        fireDue(now, into: &effects)
        return effects
    }

    /// Adds nodes to the graph while the conversation runs (a host's code created a block).
    /// Returns the id the first added node received.
    @discardableResult
    public mutating func extendGraph(_ body: (inout RocketGraph) -> Void) -> RocketNodeID {
        let first = RocketNodeID(graph.nodes.count)
        body(&graph)
        return first
    }

    /// Replaces the graph before the conversation is shown; does nothing afterwards.
    package mutating func replaceGraph(_ newGraph: RocketGraph) {
        guard state.status == .notShown else { return }
        graph = newGraph
    }

    // MARK: Internals

    private mutating func schedule(_ action: ConversationState.TimerAction, at deadline: Double) {
        state.sequence += 1
        state.timers.append(ConversationState.Timer(deadline: deadline, sequence: state.sequence, action: action))
    }

    private mutating func record(answer: String, for id: String?, secret: Bool = false) {
        guard let id else { return }
        state.answers[id] = RocketAnswer(value: answer, isSecret: secret)
    }

    private func press(
        _ button: RocketButtonNode, node: RocketNodeID, side: RocketButtonSide?, blockID: String?,
        into effects: inout [ConversationEffect]
    ) {
        if button.hasHostAction { effects.append(.runTapAction(node: node, side: side)) }
        if let name = button.actionName { effects.append(.event(.action(name: name, blockID: blockID))) }
    }

    private mutating func fireDue(_ now: Double, into effects: inout [ConversationEffect]) {
        var firings = 0
        while firings < Conversation.maxFiringsPerAdvance, !state.timers.isEmpty {
            var best: Int? = nil
            for i in state.timers.indices where !isHeld(state.timers[i]) {
                guard let b = best else {
                    best = i
                    continue
                }
                let a = state.timers[i], c = state.timers[b]
                if a.deadline < c.deadline || (a.deadline == c.deadline && a.sequence < c.sequence) { best = i }
            }
            guard let best, state.timers[best].deadline <= now + Conversation.tolerance else { return }
            let timer = state.timers.remove(at: best)
            firings += 1
            fire(timer, into: &effects)
        }
    }

    private mutating func fire(_ timer: ConversationState.Timer, into effects: inout [ConversationEffect]) {
        switch timer.action {
        case .appendRoot:
            state.status = .active
            appendOrDismiss(graph.root.flatMap { graph.contains($0) ? $0 : nil }, now: timer.deadline, into: &effects)
        case .autoAdvance(let index):
            guard state.shown.indices.contains(index) else { return }
            let node = graph[state.shown[index]]
            state.flags[index].fired = true
            state.flags[index].tapEnabled = false
            effects.append(.event(.tapped(index: index, id: node.id, automatic: true)))
            schedule(.advance(from: index, to: node.tapNext), at: timer.deadline + options.timing.bounce)
        case .advance(_, let next):
            appendOrDismiss(next, now: timer.deadline, into: &effects)
        case .closeByUser:
            beginClosing(.closedByUser, now: timer.deadline, into: &effects)
        case .finishClosing(let reason):
            state.status = .dismissed(reason)
            effects.append(.event(.didFinishClosing(reason: reason)))
        }
    }

    private mutating func appendOrDismiss(_ next: RocketNodeID?, now: Double, into effects: inout [ConversationEffect]) {
        if let next = next ?? returnTarget() {
            append(next, at: now, into: &effects)
        } else {
            beginClosing(.completed, now: now, into: &effects)
        }
    }

    /// Where the conversation goes on when a way ends inside returning jumps: the innermost
    /// jump's `next` (one that is nil ends that jump too, and the next one out is asked).
    private mutating func returnTarget() -> RocketNodeID? {
        while let last = state.returns.popLast() {
            if let target = last, graph.contains(target) { return target }
        }
        return nil
    }

    /// Runs the `set` and `condition` blocks from `id` on, then shows the first block that is
    /// shown (or ends the conversation where the way ends). At most `RocketLimits.silentSteps`
    /// of them in a row: a loop of them is stopped there, with an `expressionError`.
    private mutating func append(_ first: RocketNodeID, at now: Double, into effects: inout [ConversationEffect]) {
        var id = first
        var steps = 0
        while true {
            let node = graph[id]
            let next: RocketNodeID?
            switch node.content {
            case .set(let set):
                for a in set.assignments { assign(a, blockID: node.id, at: now, into: &effects) }
                next = set.next
            case .condition(let condition):
                var taken: Int? = nil
                for (k, branch) in condition.branches.enumerated() {
                    let (holds, error) = RocketExpression.test(evaluate(branch.condition, at: now))
                    if let error {
                        effects.append(.event(.expressionError(blockID: node.id, path: "branches[\(k)].if", error: error)))
                    }
                    if holds {
                        taken = k
                        break
                    }
                }
                effects.append(.event(.conditionTaken(blockID: node.id, branch: taken)))
                next = taken.map { condition.branches[$0].next } ?? condition.elseNext
            case .jump(let jump):
                if jump.returns {
                    guard state.returns.count < RocketLimits.jumpDepth else {
                        let error = RocketExpressionError(
                            code: "jump-depth", message: "more than \(RocketLimits.jumpDepth) returning jumps inside each other", offset: 0)
                        effects.append(.event(.expressionError(blockID: node.id, path: "", error: error)))
                        beginClosing(.completed, now: now, into: &effects)
                        return
                    }
                    state.returns.append(jump.next)
                }
                effects.append(.event(.jumped(blockID: node.id, to: jump.to.flatMap { graph.contains($0) ? graph[$0].id : nil }, flow: jump.flow)))
                next = jump.to
            default:
                show(id, at: now, into: &effects)
                return
            }
            steps += 1
            guard let next = (next.flatMap { graph.contains($0) ? $0 : nil }) ?? returnTarget() else {
                beginClosing(.completed, now: now, into: &effects)
                return
            }
            if steps >= RocketLimits.silentSteps {
                let error = RocketExpressionError(
                    code: "loop", message: "\(RocketLimits.silentSteps) set and condition blocks ran in a row with nothing shown", offset: 0)
                effects.append(.event(.expressionError(blockID: node.id, path: "", error: error)))
                beginClosing(.completed, now: now, into: &effects)
                return
            }
            id = next
        }
    }

    /// Returns to the block shown at `target`: what came after it leaves the transcript, the
    /// answers and the timers; the variables are as they were when it was shown; it takes an
    /// answer again. Actions reported on the way are not undone.
    private mutating func goBack(to target: Int, into effects: inout [ConversationEffect]) {
        state.draft = given(at: target)
        let removed = state.shown[target...]
        for id in removed { if let name = graph[id].id { state.answers[name] = nil } }
        // Answers given before the start stay.
        for (k, v) in options.initialAnswers where state.answers[k] == nil { state.answers[k] = RocketAnswer(value: v) }
        state.shown.removeSubrange((target + 1)...)
        state.flags.removeSubrange((target + 1)...)
        state.flags[target] = ConversationState.BlockFlags(fired: false, tapEnabled: true)
        if let at = state.transcript.firstIndex(where: {
            if case .block(target, _, _) = $0 { return true }; return false
        }) {
            state.transcript.removeSubrange((at + 1)...)
        }
        state.pressedSide = state.pressedSide.filter { $0.key < target }
        state.chosenOptions = state.chosenOptions?.filter { $0.key < target }
        state.chosenSets = state.chosenSets?.filter { $0.key < target }
        state.checkpoints.removeAll { $0.index > target }
        state.variables = state.checkpoints.last?.value ?? [:]
        state.returnCheckpoints.removeAll { $0.index > target }
        state.returns = state.returnCheckpoints.last?.value ?? []
        state.inputError = nil
        state.timers.removeAll()
        let node = graph[state.shown[target]]
        effects.append(.event(.wentBack(index: target, id: node.id)))
    }

    /// Gives a variable the value of an assignment's expression, when it can be evaluated and
    /// has the variable's type (null clears it); otherwise the variable keeps its value and an
    /// `expressionError` says why.
    private mutating func assign(_ a: RocketAssignment, blockID: String?, at now: Double, into effects: inout [ConversationEffect]) {
        // The result is computed (and the tables' references dropped) before the variable changes,
        // so the change does not copy the table.
        let result = evaluate(a.expression, at: now)
        switch result {
        case .success(let v):
            if v != .null, let declared = graph.variable(named: a.name), declared.type != v.type {
                let error = RocketExpressionError(
                    code: "type", message: "\"\(a.name)\" holds \(declared.type.phrase), not \(RocketExpression.what(v))", offset: 0)
                effects.append(.event(.expressionError(blockID: blockID, path: "set.\(a.name)", error: error)))
                return
            }
            state.variables[a.name] = v
            effects.append(.event(.variableSet(name: a.name, blockID: blockID)))
        case .failure(let error):
            effects.append(.event(.expressionError(blockID: blockID, path: "set.\(a.name)", error: error)))
        }
    }

    /// Shows the block `id`.
    /// Shows block `id`, unless the conversation has shown `RocketLimits.shownBlocks` or its
    /// text would pass `RocketLimits.transcriptBytes` (``ConversationOptions/boundsLength``): it
    /// then ends (`conversation-too-long`).
    private mutating func show(_ id: RocketNodeID, at now: Double, into effects: inout [ConversationEffect]) {
        let index = state.shown.count
        let node = graph[id]
        let shownText = interpolate(node.rawText)
        if options.boundsLength, let tooLong = tooLong(adding: shownText) {
            effects.append(
                .event(.expressionError(blockID: node.id, path: "", error: RocketExpressionError(code: "conversation-too-long", message: tooLong, offset: 0))))
            beginClosing(.completed, now: now, into: &effects)
            return
        }
        if node.takesAnswer, graph.allowBack {
            // Only where they changed: a flow whose variables rarely change keeps few.
            if state.variables != (state.checkpoints.last?.value ?? [:]) {
                state.checkpoints.append(ConversationState.Checkpoint(index: index, value: state.variables))
            }
            if state.returns != (state.returnCheckpoints.last?.value ?? []) {
                state.returnCheckpoints.append(ConversationState.Checkpoint(index: index, value: state.returns))
            }
        }
        state.shown.append(id)
        var flags = ConversationState.BlockFlags(fired: false, tapEnabled: true)
        state.transcript.append(.block(index: index, node: id, text: shownText))
        if let delay = node.showNextAfter, delay > 0 {
            flags.tapEnabled = false
            schedule(.autoAdvance(index: index), at: now + delay * options.timing.autoAdvanceScale)
        }
        state.flags.append(flags)
        var scale: ClosedRange<Int>?
        if case .rating(let r) = node.content { scale = r.values }
        effects.append(.event(.blockAdded(index: index, block: RocketBlockInfo(id: node.id, kind: node.kind, text: shownText, scale: scale))))
    }

    /// Why showing `text` would make the conversation too long, or nil.
    private func tooLong(adding text: String) -> String? {
        if state.shown.count >= RocketLimits.shownBlocks {
            return "the conversation has shown \(RocketLimits.shownBlocks) blocks, the most one shows"
        }
        var bytes = text.utf8.count
        for item in state.transcript {
            switch item {
            case .block(_, _, let t), .reply(_, let t, _): bytes += t.utf8.count
            }
        }
        return bytes > RocketLimits.transcriptBytes ? "the conversation's text would pass \(RocketLimits.transcriptBytes) bytes, the most one holds" : nil
    }

    private mutating func beginClosing(_ reason: RocketDismissReason, now: Double, into effects: inout [ConversationEffect]) {
        guard state.status == .presenting || state.status == .active else { return }
        state.status = .closing(reason)
        state.awaitingDecision = nil
        for i in state.flags.indices { state.flags[i].fired = true }
        state.timers.removeAll()  // timers belong to this showing (R3)
        var infos: [RocketBlockInfo] = []
        infos.reserveCapacity(state.shown.count)
        for item in state.transcript {
            if case .block(_, let id, let text) = item {
                let node = graph[id]
                infos.append(RocketBlockInfo(id: node.id, kind: node.kind, text: text))
            }
        }
        effects.append(.event(.dismissed(reason: reason, count: state.shown.count, blocks: infos)))
        schedule(.finishClosing(reason), at: now + options.timing.closing)
    }
}
