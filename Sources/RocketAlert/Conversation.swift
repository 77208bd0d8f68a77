import Foundation

/// The durations of the original's animations, which decide when blocks appear.
///
/// ```swift
/// let tests = RocketTiming.original          // 2 s intro, 0.3 s bounces, 2 s closing
/// let scripts = RocketTiming.instant         // everything at once, auto-advance included
/// let terminal = RocketTiming.reducedMotion  // no animation delays, auto-advance kept
/// ```
public struct RocketTiming: Hashable, Sendable {
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
public struct ConversationOptions: Sendable {
    /// Durations (default: the original's).
    public var timing: RocketTiming
    /// Append the user's typed reply to the transcript (the original never did, R19).
    public var echoReplies: Bool
    /// Answers known before the conversation starts (`--var NAME=VALUE`).
    public var initialAnswers: [String: String]

    /// Creates options; the defaults reproduce the original.
    public init(timing: RocketTiming = .original, echoReplies: Bool = false, initialAnswers: [String: String] = [:]) {
        self.timing = timing
        self.echoReplies = echoReplies
        self.initialAnswers = initialAnswers
    }
}

/// What the user can do to a conversation.
///
/// ```swift
/// try conversation.send(.tap, at: clock.now)
/// try conversation.send(.submit("Ada"), at: clock.now)
/// ```
public enum RocketIntent: Hashable, Sendable {
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
}

/// Why an intent was refused. The conversation is unchanged when one is thrown, except that an
/// ``invalidInput(_:)`` refusal is recorded in ``ConversationState/inputError``.
public enum RocketIntentError: Error, Hashable, Sendable {
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
}

/// Where a conversation is in its life.
public enum ConversationStatus: Hashable, Sendable {
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

    /// True while the conversation is on screen (presenting, active or closing).
    public var isVisible: Bool {
        switch self {
        case .presenting, .active, .closing: return true
        default: return false
        }
    }
}

/// One line of the transcript: a shown block, or the user's own reply.
public enum TranscriptItem {
    /// A block at `index` in ``Conversation/blocks``, with its text as shown.
    case block(index: Int, block: RocketBlock, text: String)
    /// The user's reply to the input block at `blockIndex`; masked when secret.
    case reply(blockIndex: Int, text: String, isSecret: Bool)
}

/// A stored answer.
public struct RocketAnswer: Hashable, Sendable {
    /// The typed text or chosen button title.
    public var value: String
    /// True for secret inputs: never written to events or files.
    public var isSecret: Bool

    /// Creates an answer.
    public init(value: String, isSecret: Bool = false) {
        self.value = value
        self.isSecret = isSecret
    }
}

/// The headless RocketAlert engine: a state machine of blocks, intents and time.
///
/// It never reads a clock and never draws. Hosts pass the current instant to every call, read
/// ``state``-like properties to render, and call ``advance(to:)`` when ``nextDeadline`` passes.
/// Each call returns the events it caused, in order. Block handlers (button actions, input
/// handlers) are the user's own code and run synchronously inside the call, as in the original.
///
/// ```swift
/// let second = TextRocketBlock(text: "Second")
/// var c = Conversation(root: TextRocketBlock(text: "First", next: second),
///                      options: ConversationOptions(timing: .instant))
/// c.start(at: 0)               // [.blockAdded(0, First)]
/// try c.send(.tap, at: 1)      // [.tapped, .blockAdded(1, Second)]
/// try c.send(.tap, at: 2)      // [.tapped, .dismissed(.completed, 2, …), .didFinishClosing]
/// ```
public struct Conversation {
    private struct BlockState {
        var fired = false
        var tapEnabled = true
    }

    private enum TimerAction {
        case appendRoot
        case autoAdvance(index: Int)
        case advance(from: Int, to: RocketBlock?)
        case closeByUser
        case finishClosing(RocketDismissReason)
    }

    private struct Timer {
        var deadline: Double
        var sequence: Int
        var action: TimerAction
    }

    /// The block shown first.
    public let root: RocketBlock
    /// Options fixed at creation.
    public let options: ConversationOptions
    /// Blocks shown so far, in order (the original's `blocks`).
    public private(set) var blocks: [RocketBlock] = []
    /// Everything shown so far, replies included when echoing is on.
    public private(set) var transcript: [TranscriptItem] = []
    /// Where the conversation is in its life.
    public private(set) var status: ConversationStatus = .notShown
    /// Answers by block id (typed text, or the chosen button's title), plus initial answers.
    public private(set) var answers: [String: RocketAnswer]
    /// The last refusal of typed text for the current input block (cleared on acceptance).
    public private(set) var inputError: RocketValidationFailure?
    /// The double button side pressed (kept so front ends can draw it pressed).
    public private(set) var pressedSide: [Int: RocketButtonSide] = [:]

    private var states: [BlockState] = []
    private var timers: [Timer] = []
    private var sequence = 0
    /// Deadlines within this many seconds of `now` are due (absorbs floating-point sums).
    static let tolerance = 1e-6
    /// Safety valve: at most this many timers fire in one ``advance(to:)`` call.
    private let maxFiringsPerAdvance = 100_000

    /// Creates a conversation that has not been shown.
    public init(root: RocketBlock, options: ConversationOptions = ConversationOptions()) {
        self.root = root
        self.options = options
        self.answers = options.initialAnswers.mapValues { RocketAnswer(value: $0) }
    }

    // MARK: Reading the state

    /// The earliest pending timer, or nil when nothing will happen without input.
    public var nextDeadline: Double? { timers.map(\.deadline).min() }

    /// The index of the block that accepts input now, or nil.
    public var interactiveIndex: Int? {
        guard status == .active, let last = blocks.indices.last, !states[last].fired else { return nil }
        if blocks[last] is TextRocketBlock && !states[last].tapEnabled { return nil }
        return last
    }

    /// The block that accepts input now, or nil.
    public var interactiveBlock: RocketBlock? { interactiveIndex.map { blocks[$0] } }

    /// True when the block at `index` has fired (it will never accept input again).
    public func hasFired(_ index: Int) -> Bool { states.indices.contains(index) && states[index].fired }

    /// True when the newest block is a text block waiting for its timer.
    public var isWaitingForAutoAdvance: Bool {
        guard status == .active, let last = blocks.indices.last else { return false }
        return blocks[last] is TextRocketBlock && !states[last].tapEnabled && !states[last].fired
    }

    /// Fills `{{name}}` placeholders from the answers; unknown names stay as written, secret
    /// answers show as bullets.
    public func interpolate(_ template: String) -> String {
        RocketTemplate.render(template, answers: answers)
    }

    // MARK: Driving

    /// Shows the conversation: the root block comes after the intro. A second call does nothing
    /// and returns no events (the original presented twice, R2).
    @discardableResult
    public mutating func start(at now: Double) -> [RocketEvent] {
        guard status == .notShown else { return [] }
        status = .presenting
        schedule(.appendRoot, at: now + options.timing.intro)
        return advance(to: now)
    }

    /// Fires every timer due at `now`, in deadline order, and returns the events.
    @discardableResult
    public mutating func advance(to now: Double) -> [RocketEvent] {
        var events: [RocketEvent] = []
        var firings = 0
        while firings < maxFiringsPerAdvance,
              let i = timers.indices.min(by: { (timers[$0].deadline, timers[$0].sequence) < (timers[$1].deadline, timers[$1].sequence) }),
              timers[i].deadline <= now + Conversation.tolerance {
            let timer = timers.remove(at: i)
            firings += 1
            fire(timer, now: now, into: &events)
        }
        return events
    }

    /// Applies a user intent at `now`, then fires timers already due.
    ///
    /// - Throws: ``RocketIntentError`` when the intent does not apply now.
    @discardableResult
    public mutating func send(_ intent: RocketIntent, at now: Double) throws(RocketIntentError) -> [RocketEvent] {
        var events: [RocketEvent] = []
        if intent == .close {
            guard status == .presenting || status == .active else { throw .notActive }
            // Input stops at once; the close button bounces, then dismisses.
            for i in states.indices { states[i].fired = true }
            timers.removeAll { if case .finishClosing = $0.action { return false }; return true }
            schedule(.closeByUser, at: now + options.timing.bounce)
            return events + advance(to: now)
        }
        guard status == .active else { throw .notActive }
        guard let index = blocks.indices.last, !states[index].fired else { throw .noInteractiveBlock }
        let block = blocks[index]
        switch (intent, block) {
        case (.tap, let text as TextRocketBlock):
            guard states[index].tapEnabled else { throw .tapDisabled }
            states[index].fired = true
            states[index].tapEnabled = false
            events.append(.tapped(index: index, id: block.id, automatic: false))
            schedule(.advance(from: index, to: text.next), at: now + options.timing.bounce)
        case (.pressButton, let button as ButtonRocketBlock):
            states[index].fired = true
            record(answer: button.title, for: button.id)
            events.append(.buttonPressed(index: index, id: button.id, side: nil, title: button.title))
            runAction(of: button, blockID: button.id, into: &events)
            schedule(.advance(from: index, to: button.tapHandler?.next), at: now + options.timing.bounce)
        case (.pressLeft, let double as DoubleButtonRocketBlock), (.pressRight, let double as DoubleButtonRocketBlock):
            states[index].fired = true
            let side: RocketButtonSide = intent == .pressLeft ? .left : .right
            let button = side == .left ? double.left : double.right
            pressedSide[index] = side
            record(answer: button.title, for: double.id)
            events.append(.buttonPressed(index: index, id: double.id, side: side, title: button.title))
            runAction(of: button, blockID: double.id, into: &events)
            schedule(.advance(from: index, to: button.tapHandler?.next), at: now + options.timing.doubleBounce)
        case (.submit(let text), let input as TextInputRocketBlock):
            if let failure = input.validation?.check(text) {
                inputError = failure
                throw .invalidInput(failure)
            }
            inputError = nil
            states[index].fired = true
            record(answer: text, for: input.id, secret: input.isSecret)
            events.append(.inputSubmitted(index: index, id: input.id, text: input.isSecret ? nil : text))
            if options.echoReplies {
                let shown = input.isSecret ? RocketTemplate.mask(text) : text
                transcript.append(.reply(blockIndex: index, text: shown, isSecret: input.isSecret))
                events.append(.replyShown(afterIndex: index, text: shown))
            }
            // The next block comes at once, with no bounce (original behaviour).
            appendOrDismiss(input.resolveNext(for: text), now: now, into: &events)
        default:
            throw .wrongKind(expected: block.kind, intent: intent)
        }
        return events + advance(to: now)
    }

    /// Dismisses on the app's request: no legacy dismiss event, a typed `.dismissed(.dismissedByApp)`.
    /// Does nothing once closing has started.
    @discardableResult
    public mutating func dismiss(at now: Double, reason: RocketDismissReason = .dismissedByApp) -> [RocketEvent] {
        guard status == .presenting || status == .active else { return [] }
        var events: [RocketEvent] = []
        beginClosing(reason, now: now, into: &events)
        return events + advance(to: now)
    }

    // MARK: Internals

    private mutating func schedule(_ action: TimerAction, at deadline: Double) {
        sequence += 1
        timers.append(Timer(deadline: deadline, sequence: sequence, action: action))
    }

    private mutating func record(answer: String, for id: String?, secret: Bool = false) {
        guard let id else { return }
        answers[id] = RocketAnswer(value: answer, isSecret: secret)
    }

    private func runAction(of button: ButtonRocketBlock, blockID: String?, into events: inout [RocketEvent]) {
        button.tapHandler?.action?()
        if let name = button.tapHandler?.actionName {
            events.append(.action(name: name, blockID: blockID))
        }
    }

    private mutating func fire(_ timer: Timer, now: Double, into events: inout [RocketEvent]) {
        switch timer.action {
        case .appendRoot:
            status = .active
            append(root, at: timer.deadline, into: &events)
        case .autoAdvance(let index):
            // The original runs the tap action without checking the flag.
            guard states.indices.contains(index), let text = blocks[index] as? TextRocketBlock else { return }
            states[index].fired = true
            states[index].tapEnabled = false
            events.append(.tapped(index: index, id: text.id, automatic: true))
            schedule(.advance(from: index, to: text.next), at: timer.deadline + options.timing.bounce)
        case .advance(_, let next):
            appendOrDismiss(next, now: timer.deadline, into: &events)
        case .closeByUser:
            beginClosing(.closedByUser, now: timer.deadline, into: &events)
        case .finishClosing(let reason):
            status = .dismissed(reason)
            events.append(.didFinishClosing(reason: reason))
        }
    }

    private mutating func appendOrDismiss(_ next: RocketBlock?, now: Double, into events: inout [RocketEvent]) {
        if let next {
            append(next, at: now, into: &events)
        } else {
            beginClosing(.completed, now: now, into: &events)
        }
    }

    private mutating func append(_ block: RocketBlock, at now: Double, into events: inout [RocketEvent]) {
        let index = blocks.count
        blocks.append(block)
        var state = BlockState()
        let shownText = interpolate(RocketBlockInfo.rawText(of: block))
        transcript.append(.block(index: index, block: block, text: shownText))
        if let text = block as? TextRocketBlock, let delay = text.showNextAfter, delay > 0 {
            state.tapEnabled = false
            schedule(.autoAdvance(index: index), at: now + delay * options.timing.autoAdvanceScale)
        }
        states.append(state)
        events.append(.blockAdded(index: index, block: RocketBlockInfo(id: block.id, kind: block.kind, text: shownText)))
    }

    private mutating func beginClosing(_ reason: RocketDismissReason, now: Double, into events: inout [RocketEvent]) {
        guard status == .presenting || status == .active else { return }
        status = .closing(reason)
        for i in states.indices { states[i].fired = true }
        timers.removeAll()  // timers belong to this showing (R3)
        let infos = transcript.compactMap { item -> RocketBlockInfo? in
            if case .block(_, let block, let text) = item { return RocketBlockInfo(id: block.id, kind: block.kind, text: text) }
            return nil
        }
        events.append(.dismissed(reason: reason, count: blocks.count, blocks: infos))
        schedule(.finishClosing(reason), at: now + options.timing.closing)
    }
}
