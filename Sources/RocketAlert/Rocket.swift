public import Foundation
@_exported public import RocketConversation
@_exported public import RocketCore

/// The seed's control protocol: create with an author and a root block, show, dismiss.
public protocol RocketControl: AnyObject {
    /// Creates the alert.
    init(author: RocketAuthor, block: any RocketBlock)
    /// Shows it.
    func show()
    /// Dismisses it.
    func dismiss()
}

/// A chat-bot-style alert: the seed's `Rocket`, driven headlessly.
///
/// `Rocket` compiles its blocks into a value `RocketGraph` when shown and hosts the resulting
/// `Conversation` on a `ConversationHost`. Events go out three ways: the original's
/// `NotificationCenter` events (with the rocket as `object`, so two live rockets never see each
/// other's events), a typed `AsyncStream` per subscriber (``events``), and ``onEvent``. Front ends
/// render ``conversation`` and call ``send(_:)``; whoever hosts it calls ``tick()`` when
/// ``nextDeadline`` is reached (the terminal front end does this for you).
///
/// Handlers (`TapRocketHandler.action`, `InputRocketHandler.action`) run after the state change
/// they belong to has completed, so they may call anything on their rocket: a `dismiss()` inside a
/// tap action dismisses; an intent sent from a handler is applied after the current one.
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
    /// The root block (nil for a rocket made from a flow document's graph).
    public let block: (any RocketBlock)?
    /// The optional close button; may change at any time. `.close` is refused while it is nil.
    public var closeButton: RocketCloseButton? {
        didSet { host.setCloseButton(closeButton) }
    }
    /// The host that runs the conversation (front ends drive it directly).
    public let host: ConversationHost
    /// The clock read by ``show()``, ``send(_:)`` and ``tick()``.
    public var clock: any RocketClock { host.clock }
    /// The engine's state: blocks, transcript, status, answers.
    public var conversation: Conversation { host.conversation }
    /// Code to run for named actions (`"action": "enable-notifications"` in a flow).
    public var actionHandlers: [String: () -> Void] {
        get { host.actionHandlers }
        set { host.actionHandlers = newValue }
    }
    /// Called with each event, after the notifications are posted.
    public var onEvent: ((RocketEvent) -> Void)? {
        get { host.onEvent }
        set { host.onEvent = newValue }
    }
    /// The notification center events are posted to (default: `.default`).
    public var notificationCenter: NotificationCenter = .default

    private let compiler = SeedCompiler()
    private let options: ConversationOptions

    /// The seed initializer: the original timings, the system clock.
    public required convenience init(author: RocketAuthor, block: any RocketBlock) {
        self.init(author: author, block: block, clock: SystemClock())
    }

    /// Creates a rocket with an injected clock and options.
    ///
    /// ```swift
    /// let clock = ManualClock()
    /// let rocket = Rocket(author: author, block: first, clock: clock,
    ///                     options: ConversationOptions(echoReplies: true))
    /// ```
    public init(
        author: RocketAuthor, block: any RocketBlock, clock: any RocketClock,
        options: ConversationOptions = ConversationOptions()
    ) {
        self.author = author
        self.block = block
        self.options = options
        var graph = RocketGraph()
        graph.root = compiler.compile(block, into: &graph)
        host = ConversationHost(conversation: Conversation(graph: graph, author: author, options: options), clock: clock)
        wire()
    }

    /// Creates a rocket over a value graph (what a flow file builds); handlers are named actions.
    ///
    /// ```swift
    /// let rocket = Rocket(author: author, graph: graph, clock: ManualClock())
    /// ```
    public init(author: RocketAuthor, graph: RocketGraph, clock: any RocketClock, options: ConversationOptions = ConversationOptions()) {
        self.author = author
        self.block = nil
        self.options = options
        host = ConversationHost(conversation: Conversation(graph: graph, author: author, options: options), clock: clock)
        wire()
    }

    private func wire() {
        host.eventObserver = { [weak self] event in self?.post(event) }
        host.tapAction = { [weak self] node, side in self?.runTapAction(node, side) }
        if block != nil {
            host.inputDecider = { [weak self] node, text in self?.decide(node, text) }
        }
    }

    /// A new stream of this rocket's typed events; each subscriber gets its own. The stream ends
    /// when the conversation has finished closing.
    ///
    /// ```swift
    /// let stream = rocket.events
    /// rocket.show()
    /// for await event in stream { print(event) }
    /// ```
    public var events: AsyncStream<RocketEvent> { host.events }

    /// The instant at which ``tick()`` has work to do, or nil.
    public var nextDeadline: Double? { host.nextDeadline }

    /// Shows the conversation (a second call does nothing). The blocks are compiled now, so
    /// changes made to them after `init` and before `show()` count.
    public func show() {
        if let block, case .notShown = host.conversation.status {
            compiler.reset()
            var graph = RocketGraph()
            graph.root = compiler.compile(block, into: &graph)
            host.replaceGraph(graph)
        }
        host.show()
    }

    /// Dismisses the conversation. As in the original, this posts no `rocketDismissEvent`; the
    /// typed stream reports `.dismissed(.dismissedByApp, …)`.
    public func dismiss() { host.dismiss() }

    /// Ends the conversation because the host was interrupted (Ctrl-C, a signal, cancellation).
    public func interrupt() { host.dismiss(reason: .interrupted) }

    /// Applies a user intent now; from inside a handler it is queued and applied next.
    ///
    /// ```swift
    /// try rocket.send(.tap)
    /// try rocket.send(.submit("Ada"))
    /// ```
    ///
    /// - Throws: `RocketIntentError`; `.noCloseButton` for `.close` without a close button.
    public func send(_ intent: RocketIntent) throws(RocketIntentError) { try host.send(intent) }

    /// Fires the timers that are due by the clock's current time.
    public func tick() { host.tick() }

    /// The seed block behind the block shown at `index`, when the rocket was built from blocks.
    public func seedBlock(at index: Int) -> (any RocketBlock)? {
        compiler.block(for: conversation.nodeID(at: index))
    }

    // MARK: Host hooks

    private func runTapAction(_ node: RocketNodeID, _ side: RocketButtonSide?) {
        switch compiler.block(for: node) {
        case let button as ButtonRocketBlock: button.tapHandler?.action?()
        case let double as DoubleButtonRocketBlock: (side == .right ? double.right : double.left).tapHandler?.action?()
        default: break
        }
    }

    private func decide(_ node: RocketNodeID, _ text: String) -> RocketNodeID? {
        guard let input = compiler.block(for: node) as? TextInputRocketBlock else { return nil }
        let chosen = input.resolveNext(for: text)
        guard let chosen else { return nil }
        var id: RocketNodeID?
        host.extendGraph { graph in id = compiler.compile(chosen, into: &graph) }
        return id
    }

    private func post(_ event: RocketEvent) {
        switch event {
        case .blockAdded(let index, _):
            let id = conversation.nodeID(at: index)
            let block: Any = compiler.block(for: id) ?? conversation.graph[id]
            notificationCenter.post(name: .rocketBlockAddedEvent, object: self, userInfo: ["index": index, "block": block])
        case .dismissed(let reason, let count, _) where reason == .completed || reason == .closedByUser:
            let blocks: [Any] = (0..<conversation.shownCount).map { i -> Any in
                let id = conversation.nodeID(at: i)
                return compiler.block(for: id) ?? conversation.graph[id]
            }
            notificationCenter.post(name: .rocketDismissEvent, object: self, userInfo: ["count": count, "blocks": blocks])
        default:
            break
        }
    }
}

extension Notification.Name {
    /// Posted after each block is appended; userInfo `index` (Int) and `block` (the seed
    /// ``RocketBlock``, or the ``RocketNode`` for a rocket built from a graph); `object` is the
    /// emitting ``Rocket``.
    public static let rocketBlockAddedEvent = Notification.Name("rocketBlockAddedEvent")
    /// Posted when a conversation closes by itself or by its close button; userInfo `count` (Int)
    /// and `blocks` (as in `rocketBlockAddedEvent`); `object` is the emitting ``Rocket``. Not
    /// posted for `dismiss()`.
    public static let rocketDismissEvent = Notification.Name("rocketDismissEvent")
}

extension RocketBlockInfo {
    /// A snapshot of a seed block with its raw text.
    public init(_ block: any RocketBlock) {
        let node = SeedCompiler.node(for: block) { _ in nil }
        self.init(id: node.id, kind: node.kind, text: node.rawText)
    }
}
