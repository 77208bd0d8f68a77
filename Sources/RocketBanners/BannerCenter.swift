public import RocketCore

/// Shows banners on a clock and runs their handlers: the host-side partner of ``BannerQueue``.
///
/// The button handler runs when a button or the background is tapped, after the exit began; the
/// dismiss handler runs exactly once per showing, on every path, with the reason (the original
/// called it "auto dismiss" but ran it on every path, M9).
///
/// ```swift
/// let center = BannerCenter(clock: SystemClock())
/// center.show(banner, buttonHandler: { tag in print("tapped", tag) }, dismissHandler: { reason in print(reason) })
/// // the host calls center.tick() at center.nextDeadline, and send(_:to:) for input
/// ```
public final class BannerCenter {
    /// The queue (state for drawing).
    public private(set) var queue: BannerQueue
    /// The clock.
    public let clock: any RocketClock
    /// Every event, after the handlers ran.
    public var onEvent: ((BannerEvent) -> Void)?

    private var buttonHandlers: [BannerToken: (BannerTag) -> Void] = [:]
    private var dismissHandlers: [BannerToken: (BannerDismissal) -> Void] = [:]

    /// A center over a queue.
    public init(clock: any RocketClock, queue: BannerQueue = BannerQueue()) {
        self.clock = clock
        self.queue = queue
    }

    /// Queues a banner (the original's `show` / `showWithButtonHandler:`); returns its token.
    @discardableResult
    public func show(
        _ banner: Banner, delay: Double = 0, minimum: Double = 0, buttonHandler: ((BannerTag) -> Void)? = nil,
        dismissHandler: ((BannerDismissal) -> Void)? = nil
    ) -> BannerToken {
        let (token, events) = queue.enqueue(banner, at: clock.now, delay: delay, minimum: minimum)
        if case .deduplicated? = events.first {
        } else {
            buttonHandlers[token] = buttonHandler
            dismissHandlers[token] = dismissHandler
        }
        deliver(events)
        return token
    }

    /// The time the host should call ``tick()``, or nil.
    public var nextDeadline: Double? { queue.nextDeadline }

    /// Lets time pass.
    public func tick() { deliver(queue.advance(to: clock.now)) }

    /// A user's action.
    public func send(_ intent: BannerIntent, to token: BannerToken) throws(BannerError) {
        deliver(try queue.send(intent, to: token, at: clock.now))
    }

    /// The original's `dismissWithAnimation:`.
    public func dismiss(_ token: BannerToken, animated: Bool) { deliver(queue.dismiss(token, animated: animated, at: clock.now)) }
    /// Hides banners by id.
    public func hide(id: String) { deliver(queue.hide(id: id, at: clock.now)) }
    /// Balances one show of an id.
    public func hideCounted(id: String) { deliver(queue.hideCounted(id: id, at: clock.now)) }
    /// Hides everything.
    public func hideAll() { deliver(queue.hideAll(at: clock.now)) }

    private func deliver(_ events: [BannerEvent]) {
        for event in events {
            switch event {
            case .buttonTapped(let token, let tag):
                buttonHandlers[token]?(tag)
            case .didHide(let token, let reason):
                buttonHandlers[token] = nil
                dismissHandlers.removeValue(forKey: token)?(reason)
            default:
                break
            }
            onEvent?(event)
        }
    }
}
