public import RocketCore

/// Drives one ``Conversation`` on a clock and performs its effects: reports events, runs named
/// actions and the app's button and input code.
///
/// Every state change completes before any app code runs, so app code may call anything on its
/// host: read ``conversation``, `dismiss()`, ``send(_:)``. A call made while the host is
/// performing effects is queued and applied after the current one, in order (as ReactorKit and
/// TCA queue actions sent from effects); a queued intent that is then refused is reported as
/// ``RocketEvent/intentRefused(intent:error:)``.
///
/// ```swift
/// let host = ConversationHost(conversation: conversation, clock: SystemClock())
/// host.actionHandlers["say-bye"] = { print("bye") }
/// host.show()
/// try host.send(.tap)
/// if let deadline = host.nextDeadline { /* call host.tick() at deadline */ }
/// ```
public final class ConversationHost {
    /// The conversation: read it to render.
    public private(set) var conversation: Conversation
    /// The clock read by ``show()``, ``send(_:)`` and ``tick()``.
    public let clock: any RocketClock
    /// Code to run for named actions (`"action": "enable-notifications"` in a flow).
    public var actionHandlers: [String: () -> Void] = [:]
    /// Called with each event, after `eventObserver`.
    public var onEvent: ((RocketEvent) -> Void)?
    /// Called once after a call that changed the conversation has finished, effects included
    /// (hosts save snapshots here).
    public var onChange: (() -> Void)?
    /// Code for buttons whose node has ``RocketButtonNode/hasHostAction``.
    package var tapAction: ((RocketNodeID, RocketButtonSide?) -> Void)?
    /// Decides where accepted text of a ``RocketInputNode/decidedByHost`` node goes; it may add
    /// nodes with ``extendGraph(_:)``. Without it the node's branches and `next` decide.
    package var inputDecider: ((RocketNodeID, String) -> RocketNodeID?)?
    /// Sees each event first (the seed layer posts notifications here).
    package var eventObserver: ((RocketEvent) -> Void)?

    private var continuations: [AsyncStream<RocketEvent>.Continuation] = []
    private var performing = false
    private var queued: [Operation] = []

    private enum Operation {
        case show
        case tick
        case send(RocketIntent)
        case dismiss(RocketDismissReason)
    }

    /// Hosts `conversation` on `clock`.
    public init(conversation: Conversation, clock: any RocketClock) {
        self.conversation = conversation
        self.clock = clock
    }

    deinit {
        for c in continuations { c.finish() }
    }

    /// A new stream of this conversation's events; each subscriber gets its own. It ends when the
    /// conversation has finished closing.
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
    public func show() { try? run(.show) }

    /// Fires the timers that are due by the clock's current time.
    public func tick() { try? run(.tick) }

    /// Dismisses the conversation (`reason` defaults to the app's request).
    public func dismiss(reason: RocketDismissReason = .dismissedByApp) { try? run(.dismiss(reason)) }

    /// Applies a user intent now. Called from app code while effects are performed, it is queued
    /// and returns at once.
    ///
    /// - Throws: ``RocketIntentError`` when the intent does not apply now (direct calls only).
    public func send(_ intent: RocketIntent) throws(RocketIntentError) { try run(.send(intent)) }

    /// Sets or removes the close button.
    public func setCloseButton(_ button: RocketCloseButton?) { conversation.closeButton = button }

    /// Replaces the graph of a conversation that has not been shown (a host recompiled it).
    package func replaceGraph(_ graph: RocketGraph) { conversation.replaceGraph(graph) }

    /// Adds nodes to the graph (for app code that creates blocks while the conversation runs).
    @discardableResult
    public func extendGraph(_ body: (inout RocketGraph) -> Void) -> RocketNodeID {
        conversation.extendGraph(body)
    }

    // MARK: Running

    private func run(_ first: Operation) throws(RocketIntentError) {
        if performing {
            queued.append(first)
            return
        }
        performing = true
        defer { performing = false }
        var firstError: RocketIntentError?
        var next: Operation? = first
        var isFirst = true
        var changed = false
        while let op = next {
            do {
                let effects = try apply(op)
                switch op {
                case .show, .send: changed = true
                case .tick, .dismiss: changed = changed || !effects.isEmpty
                }
                perform(effects)
            } catch {
                if isFirst {
                    firstError = error
                } else if case .send(let intent) = op {
                    deliver(.intentRefused(intent: intent, error: error))
                }
            }
            isFirst = false
            next = queued.isEmpty ? nil : queued.removeFirst()
        }
        if changed, let onChange {
            performing = false
            onChange()
        }
        if let firstError { throw firstError }
    }

    /// The state change of one operation; no app code runs here.
    private func apply(_ op: Operation) throws(RocketIntentError) -> [ConversationEffect] {
        let now = clock.now
        switch op {
        case .show: return conversation.start(at: now)
        case .tick: return conversation.advance(to: now)
        case .dismiss(let reason): return conversation.dismiss(at: now, reason: reason)
        case .send(let intent):
            do {
                return try conversation.send(intent, at: now)
            } catch {
                if case .invalidInput(let failure) = error, let index = conversation.interactiveIndex {
                    deliver(.inputRejected(index: index, id: conversation.node(at: index).id, failure: failure))
                }
                throw error
            }
        }
    }

    private func perform(_ effects: [ConversationEffect]) {
        for effect in effects {
            switch effect {
            case .event(let event):
                deliver(event)
            case .runTapAction(let node, let side):
                tapAction?(node, side)
            case .decideInput(let node, _, let text):
                let target: RocketNodeID?
                if let inputDecider {
                    target = inputDecider(node, text)
                } else if case .textInput(let input) = conversation.graph[node].content {
                    target = input.resolveNext(for: text)
                } else {
                    target = nil
                }
                perform(conversation.resolveInput(next: target, at: clock.now))
            }
        }
    }

    private func deliver(_ event: RocketEvent) {
        eventObserver?(event)
        if case .action(let name, _) = event { actionHandlers[name]?() }
        for c in continuations { c.yield(event) }
        onEvent?(event)
        if case .didFinishClosing = event {
            for c in continuations { c.finish() }
            continuations.removeAll()
        }
    }
}
