/// Why a conversation ended.
///
/// ```swift
/// if case .dismissed(let reason, _, _) = event, reason == .completed { print("done") }
/// ```
public enum RocketDismissReason: String, Hashable, Sendable, CaseIterable, Codable {
    /// A nil `next` was reached (tap, button, input, or auto-advance).
    case completed
    /// The user activated the close button (Esc in the terminal).
    case closedByUser
    /// The app called `dismiss()`.
    case dismissedByApp
    /// The host was interrupted (Ctrl-C, a signal, task cancellation).
    case interrupted
}

/// What an event says about a block: its tag, kind and text as shown.
///
/// ```swift
/// let info = RocketBlockInfo(id: "hi", kind: .text, text: "Hi")
/// ```
public struct RocketBlockInfo: Hashable, Sendable, Codable {
    /// The block's user tag.
    public var id: String?
    /// The block's kind.
    public var kind: RocketBlockKind
    /// The text as shown (placeholders filled), or the button title(s) joined by " | ".
    public var text: String
    /// A rating's scale, bottom to top, when a block was added (records carry it, so a report
    /// knows a 0–10 question); nil for other blocks.
    public var scale: ClosedRange<Int>?

    /// Creates a snapshot from its parts.
    public init(id: String?, kind: RocketBlockKind, text: String, scale: ClosedRange<Int>? = nil) {
        self.id = id
        self.kind = kind
        self.text = text
        self.scale = scale
    }
}

/// Which of a double button's buttons.
public enum RocketButtonSide: String, Hashable, Sendable, Codable, CaseIterable {
    case left, right
}

/// What happened in a conversation, as typed values (the `NotificationCenter` events carry the
/// same facts in the original's payload format).
///
/// ```swift
/// for await event in rocket.events {
///     if case .blockAdded(let index, let block) = event { print(index, block.text) }
/// }
/// ```
public enum RocketEvent: Hashable, Sendable {
    /// A block was appended at `index` (0-based).
    case blockAdded(index: Int, block: RocketBlockInfo)
    /// A text or image block was tapped (or its timer fired).
    case tapped(index: Int, id: String?, automatic: Bool)
    /// A button was pressed, or a choice or rating answered; `side` is nil but for a double
    /// button. `options` are the places of what was chosen within the block (0-based): 0 for a
    /// button, 0 (left) or 1 (right) for a double button, the options of a choice, a rating's
    /// value − 1. `titles` are their titles as shown, in the same order (`title` joins them).
    case buttonPressed(index: Int, id: String?, side: RocketButtonSide?, title: String, options: [Int] = [], titles: [String] = [])
    /// A named action ran.
    case action(name: String, blockID: String?)
    /// Text was accepted by an input block; `text` is nil for secret inputs.
    case inputSubmitted(index: Int, id: String?, text: String?)
    /// Text was refused; the same input block stays active.
    case inputRejected(index: Int, id: String?, failure: RocketValidationFailure)
    /// The user's reply was echoed into the transcript (when echoing is on).
    case replyShown(afterIndex: Int, text: String)
    /// The conversation started closing. `count` and `blocks` as in `rocketDismissEvent`.
    case dismissed(reason: RocketDismissReason, count: Int, blocks: [RocketBlockInfo])
    /// The closing animation finished; the conversation is gone.
    case didFinishClosing(reason: RocketDismissReason)
    /// An intent that app code sent from inside a handler was queued, then refused when its turn
    /// came (a direct call throws instead).
    case intentRefused(intent: RocketIntent, error: RocketIntentError)
    /// The host showed (or, for the holdout, did not show) the flow named `flow` as a variant of
    /// an experiment.
    case exposure(experiment: String, variant: String, shown: Bool, flow: String)
    /// The host began showing the flow named `flow`: a conversation's first record (after its
    /// exposure), which reports count as a start; `version` names the flow's version (the start
    /// of its identity), so a report can compare what an edit changed.
    case started(flow: String, version: String? = nil)
    /// A jump block went on to `to` (a block id, nil for the end), into `flow` when it names one.
    case jumped(blockID: String?, to: String?, flow: String?)
    /// `.back` returned to the block shown at `index`, which takes an answer again.
    case wentBack(index: Int, id: String?)
    /// A `set` block gave a variable a new value (the value is not in the event: it may come
    /// from an answer, and answers stay out of events).
    case variableSet(name: String, blockID: String?)
    /// A `condition` block went on through the branch at this index, or through `else` (nil).
    case conditionTaken(blockID: String?, branch: Int?)
    /// An expression could not be evaluated (a condition counts as false, a variable keeps its
    /// value); `path` names it within the block (`branches[0].if`, `set.visits`).
    case expressionError(blockID: String?, path: String, error: RocketExpressionError)
}
