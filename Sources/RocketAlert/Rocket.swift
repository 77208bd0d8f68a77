import Foundation
public import RocketCore

/// The seed's control protocol: create with an author and a root block, show, dismiss.
public protocol RocketControl: AnyObject {
    /// Creates the alert.
    init(author: RocketAuthor, block: RocketBlock)
    /// Shows it.
    func show()
    /// Dismisses it.
    func dismiss()
}

/// A chat-bot-style alert: the seed's `Rocket`, driven headlessly.
///
/// `Rocket` owns a ``Conversation`` and a clock. It turns user intents and the passage of time
/// into events, which it posts three ways: the original's `NotificationCenter` events (with the
/// rocket as `object`, so two live rockets never see each other's events), a typed
/// `AsyncStream` per subscriber (``events``), and the ``onEvent`` callback. Front ends render
/// ``conversation`` and call ``send(_:)``; whoever hosts it calls ``tick()`` when
/// ``nextDeadline`` is reached (the terminal front end does this for you).
///
/// There is no window to search for: the host is whoever drives the rocket (R13).
///
/// ```swift
/// let author = RocketAuthor(image: .file("avatar.png"), style: .round)
/// let textBlock = TextRocketBlock(text: "This is your first Block")
/// let rocket = Rocket(author: author, block: textBlock)
/// rocket.show()
/// // later
/// rocket.dismiss()
/// ```
public final class Rocket: RocketControl {
    /// The speaker.
    public let author: RocketAuthor
    /// The root block.
    public let block: RocketBlock
    /// The optional close button; may change at any time.
    public var closeButton: RocketCloseButton?
    /// The clock read by ``show()``, ``send(_:)`` and ``tick()``.
    public let clock: any RocketClock
    /// The engine: blocks, transcript, status, answers.
    public private(set) var conversation: Conversation
    /// Code to run for named actions (`"action": "enable-notifications"` in a flow).
    public var actionHandlers: [String: () -> Void] = [:]
    /// Called with each event, after the notifications are posted.
    public var onEvent: ((RocketEvent) -> Void)?
    /// The notification center events are posted to (default: `.default`).
    public var notificationCenter: NotificationCenter = .default

    private var continuations: [AsyncStream<RocketEvent>.Continuation] = []

    /// The seed initializer: the original timings, the system clock.
    public required convenience init(author: RocketAuthor, block: RocketBlock) {
        self.init(author: author, block: block, clock: SystemClock())
    }

    /// Creates a rocket with an injected clock and options.
    ///
    /// ```swift
    /// let clock = ManualClock()
    /// let rocket = Rocket(author: author, block: first, clock: clock,
    ///                     options: ConversationOptions(echoReplies: true))
    /// ```
    public init(author: RocketAuthor, block: RocketBlock, clock: any RocketClock,
                options: ConversationOptions = ConversationOptions()) {
        self.author = author
        self.block = block
        self.clock = clock
        self.conversation = Conversation(root: block, options: options)
    }

    deinit {
        for c in continuations { c.finish() }
    }

    /// A new stream of this rocket's typed events; each subscriber gets its own. The stream ends
    /// when the conversation has finished closing.
    ///
    /// ```swift
    /// let stream = rocket.events
    /// rocket.show()
    /// for await event in stream { print(event) }
    /// ```
    public var events: AsyncStream<RocketEvent> {
        let (stream, continuation) = AsyncStream<RocketEvent>.makeStream(bufferingPolicy: .unbounded)
        if case .dismissed = conversation.status {
            continuation.finish()
        } else {
            continuations.append(continuation)
        }
        return stream
    }

    /// The instant at which ``tick()`` has work to do, or nil.
    public var nextDeadline: Double? { conversation.nextDeadline }

    /// Shows the conversation (a second call does nothing).
    public func show() {
        deliver(conversation.start(at: clock.now))
    }

    /// Dismisses the conversation. As in the original, this posts no `rocketDismissEvent`; the
    /// typed stream reports `.dismissed(.dismissedByApp, …)`.
    public func dismiss() {
        deliver(conversation.dismiss(at: clock.now))
    }

    /// Ends the conversation because the host was interrupted (Ctrl-C, a signal, cancellation).
    public func interrupt() {
        deliver(conversation.dismiss(at: clock.now, reason: .interrupted))
    }

    /// Applies a user intent now.
    ///
    /// ```swift
    /// try rocket.send(.tap)
    /// try rocket.send(.submit("Ada"))
    /// ```
    public func send(_ intent: RocketIntent) throws(RocketIntentError) {
        do {
            deliver(try conversation.send(intent, at: clock.now))
        } catch {
            if case .invalidInput(let failure) = error, let index = conversation.interactiveIndex {
                deliver([.inputRejected(index: index, id: conversation.blocks[index].id, failure: failure)])
            }
            throw error
        }
    }

    /// Fires the timers that are due by the clock's current time.
    public func tick() {
        deliver(conversation.advance(to: clock.now))
    }

    private func deliver(_ events: [RocketEvent]) {
        for event in events {
            switch event {
            case .blockAdded(let index, _):
                notificationCenter.post(name: .rocketBlockAddedEvent, object: self,
                                        userInfo: ["index": index, "block": conversation.blocks[index]])
            case .dismissed(let reason, let count, _) where reason == .completed || reason == .closedByUser:
                notificationCenter.post(name: .rocketDismissEvent, object: self,
                                        userInfo: ["count": count, "blocks": conversation.blocks])
            case .action(let name, _):
                actionHandlers[name]?()
            default:
                break
            }
            for c in continuations { c.yield(event) }
            onEvent?(event)
            if case .didFinishClosing = event {
                for c in continuations { c.finish() }
                continuations.removeAll()
            }
        }
    }
}
