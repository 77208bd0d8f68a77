/// Identifies one showing of a banner in a queue.
public struct BannerToken: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The sequence number.
    public let value: Int
    public static func < (a: BannerToken, b: BannerToken) -> Bool { a.value < b.value }
    public var description: String { "#\(value)" }
}

/// Why a banner went away. Every showing ends with exactly one reason.
public enum BannerDismissal: Hashable, Sendable {
    /// A button was tapped (its tag; `.close` for the "X").
    case button(BannerTag)
    /// The banner itself was tapped.
    case background
    /// The user swiped it away.
    case swipe
    /// Its duration passed.
    case timeout
    /// The app dismissed it (animated or not).
    case programmatic(animated: Bool)
    /// The queue hid it (`hide(id:)`, `hideCounted`, `hideAll`), before or after it showed.
    case hidden
}

/// What a user does to a visible banner.
public enum BannerIntent: Hashable, Sendable {
    /// A tap: `.background` on the banner itself, or a button's tag.
    case tap(BannerTag)
    /// A swipe that goes past the banner's height: gone at once, without the button handler.
    case swipe
    /// A drag started: auto-dismiss is cancelled for good, as in the original (M8).
    case beginDrag
}

/// What happened in a banner queue, in order.
public enum BannerEvent: Hashable, Sendable {
    /// A banner with an id already waiting or showing was not queued again (never silent).
    case deduplicated(id: String, existing: BannerToken)
    /// A banner starts its entrance.
    case willShow(BannerToken)
    /// Its entrance finished.
    case didShow(BannerToken)
    /// A button (or the background) was tapped: the button handler runs now, after the exit began.
    case buttonTapped(BannerToken, BannerTag)
    /// Its exit began (or, for a swipe or an unanimated dismissal, happened).
    case willHide(BannerToken, BannerDismissal)
    /// It is gone: the dismiss handler runs now, exactly once per showing.
    case didHide(BannerToken, BannerDismissal)
}

/// MPGNotification's banners with a real presentation queue (M7), as a pure state machine on
/// injected time: one banner at a time by default, FIFO within priority, deduplication by id,
/// hide by id, counted hide, hide all, a pause between banners, and "show only if the work takes
/// longer than `delay`, then keep it up at least `minimum`".
///
/// ```swift
/// var queue = BannerQueue()
/// let (token, _) = queue.enqueue(Banner(title: "Saved"), at: 0)
/// queue.advance(to: 0.25)              // [.didShow(token)]
/// try queue.send(.tap(.background), to: token!, at: 1)
/// ```
public struct BannerQueue: Sendable {
    /// Banners visible at once (default 1).
    public var maxVisible: Int
    /// Seconds between one banner leaving and the next entering (default 0.5, as SwiftMessages).
    public var pauseBetween: Double
    /// Skip entrance and exit animations (the timer semantics stay).
    public var reducedMotion: Bool

    private struct Waiting {
        var token: BannerToken
        var banner: Banner
        var showAt: Double
        var minimum: Double
    }

    enum Phase: Hashable, Sendable {
        case entering(until: Double)
        case shown
        case leaving(until: Double, reason: BannerDismissal)
    }

    /// A visible banner, for drawing.
    public struct Showing: Sendable {
        /// Its token.
        public let token: BannerToken
        /// The banner.
        public let banner: Banner
        /// When it started entering.
        public let shownAt: Double
        var phase: Phase
        var timerDeadline: Double?
        var dragged = false
        var minimumUntil: Double
        var pendingHide: BannerDismissal?

        /// How far in (0 hidden … 1 fully shown), for entrance and exit animations.
        public func progress(at now: Double) -> Double {
            switch phase {
            case .shown: return 1
            case .entering(let until):
                let total = max(1e-9, until - shownAt)
                return min(1, max(0, 1 - (until - now) / total))
            case .leaving(let until, _):
                return min(1, max(0, (until - now) / banner.animationType.exit))
            }
        }

        /// True while it accepts taps and swipes (not once its exit began, M4).
        public var isInteractive: Bool {
            if case .leaving = phase { return false }
            return true
        }
    }

    private var waiting: [Waiting] = []
    /// The visible banners, oldest first.
    public private(set) var visible: [Showing] = []
    private var nextToken = 1
    private var showCounts: [String: Int] = [:]
    private var lastHideAt = -Double.infinity

    /// A queue.
    public init(maxVisible: Int = 1, pauseBetween: Double = 0.5, reducedMotion: Bool = false) {
        self.maxVisible = max(1, maxVisible)
        self.pauseBetween = max(0, pauseBetween)
        self.reducedMotion = reducedMotion
    }

    /// Banners waiting their turn.
    public var waitingCount: Int { waiting.count }

    /// True when nothing is waiting or visible.
    public var isIdle: Bool { waiting.isEmpty && visible.isEmpty }

    /// Queues a banner. With `delay`, it shows only if it is still wanted after that many seconds
    /// (hide it before, and it never shows); with `minimum`, once shown it stays at least that
    /// long (earlier hides wait). A banner whose id is already waiting or showing is not queued:
    /// the event says so, and the returned token is the existing one.
    public mutating func enqueue(_ banner: Banner, at now: Double, delay: Double = 0, minimum: Double = 0) -> (BannerToken, [BannerEvent]) {
        if let id = banner.id {
            showCounts[id, default: 0] += 1
            if let existing = waiting.first(where: { $0.banner.id == id })?.token ?? visible.first(where: { $0.banner.id == id && $0.isInteractive })?.token {
                return (existing, [.deduplicated(id: id, existing: existing)])
            }
        }
        let token = BannerToken(value: nextToken)
        nextToken += 1
        waiting.append(Waiting(token: token, banner: banner, showAt: now + max(0, delay), minimum: max(0, minimum)))
        return (token, advance(to: now))
    }

    /// The earliest time `advance(to:)` has work, or nil.
    public var nextDeadline: Double? {
        var times: [Double] = []
        for s in visible {
            switch s.phase {
            case .entering(let until), .leaving(let until, _): times.append(until)
            case .shown:
                if let t = s.timerDeadline, !s.dragged { times.append(t) }
                if s.pendingHide != nil { times.append(s.minimumUntil) }
            }
        }
        if visible.count < maxVisible, let next = nextWaitingIndex(ignoringTime: true) {
            times.append(max(waiting[next].showAt, lastHideAt + pauseBetween))
        }
        return times.min()
    }

    private func nextWaitingIndex(ignoringTime: Bool, now: Double = 0) -> Int? {
        waiting.indices
            .filter { ignoringTime || waiting[$0].showAt <= now }
            .min { (-waiting[$0].banner.priority, waiting[$0].token.value) < (-waiting[$1].banner.priority, waiting[$1].token.value) }
    }

    /// Moves time to `now`: entrances finish, timers fire, exits end, the next banners enter.
    @discardableResult
    public mutating func advance(to now: Double) -> [BannerEvent] {
        var events: [BannerEvent] = []
        var progressed = true
        while progressed {
            progressed = false
            for i in visible.indices.reversed() {
                switch visible[i].phase {
                case .entering(let until) where until <= now:
                    visible[i].phase = .shown
                    if visible[i].banner.animationType.timerStartsAfterEntrance, visible[i].banner.duration > 0 {
                        visible[i].timerDeadline = until + visible[i].banner.duration
                    }
                    events.append(.didShow(visible[i].token))
                    progressed = true
                case .shown:
                    if let reason = visible[i].pendingHide, visible[i].minimumUntil <= now {
                        visible[i].pendingHide = nil
                        beginExit(i, reason: reason, animated: true, at: visible[i].minimumUntil, into: &events)
                        progressed = true
                    } else if let t = visible[i].timerDeadline, !visible[i].dragged, t <= now {
                        visible[i].timerDeadline = nil
                        beginExit(i, reason: .timeout, animated: true, at: t, into: &events)
                        progressed = true
                    }
                case .leaving(let until, let reason) where until <= now:
                    let token = visible[i].token
                    visible.remove(at: i)
                    lastHideAt = until
                    events.append(.didHide(token, reason))
                    progressed = true
                default:
                    break
                }
            }
            while visible.count < maxVisible, now >= lastHideAt + pauseBetween, let next = nextWaitingIndex(ignoringTime: false, now: now) {
                let w = waiting.remove(at: next)
                let entrance = reducedMotion ? 0 : w.banner.animationType.entrance
                var showing = Showing(
                    token: w.token, banner: w.banner, shownAt: now, phase: .entering(until: now + entrance),
                    minimumUntil: now + w.minimum)
                if !w.banner.animationType.timerStartsAfterEntrance, w.banner.duration > 0 {
                    showing.timerDeadline = now + w.banner.duration
                }
                visible.append(showing)
                events.append(.willShow(w.token))
                progressed = true
            }
        }
        return events
    }

    private mutating func beginExit(_ i: Int, reason: BannerDismissal, animated: Bool, at now: Double, into events: inout [BannerEvent]) {
        let token = visible[i].token
        if let id = visible[i].banner.id { showCounts[id] = nil }
        events.append(.willHide(token, reason))
        if animated && !reducedMotion {
            visible[i].phase = .leaving(until: now + visible[i].banner.animationType.exit, reason: reason)
            visible[i].timerDeadline = nil
        } else {
            visible.remove(at: i)
            lastHideAt = now
            events.append(.didHide(token, reason))
        }
    }

    /// A user's action on a visible banner.
    ///
    /// - Throws: ``BannerError`` for a tag the banner does not have, or a disabled background tap
    ///   or swipe. Input on a banner that is leaving or gone is ignored (no events).
    public mutating func send(_ intent: BannerIntent, to token: BannerToken, at now: Double) throws(BannerError) -> [BannerEvent] {
        var events = advance(to: now)
        guard let i = visible.firstIndex(where: { $0.token == token }), visible[i].isInteractive else { return events }
        let banner = visible[i].banner
        switch intent {
        case .beginDrag:
            visible[i].dragged = true
        case .swipe:
            guard banner.swipeToDismissEnabled else { throw BannerError("this banner cannot be swiped away") }
            beginExit(i, reason: .swipe, animated: false, at: now, into: &events)
        case .tap(let tag):
            if tag == .background {
                guard banner.backgroundTapsEnabled else { throw BannerError("background taps are disabled for this banner") }
            } else if !banner.buttons.items.contains(where: { $0.tag == tag }) {
                throw BannerError("this banner has no button with tag \(tag.rawValue)")
            }
            let reason: BannerDismissal = tag == .background ? .background : .button(tag)
            // The exit begins, then the handler runs (the original's order).
            let animated = !reducedMotion
            events.append(.willHide(token, reason))
            events.append(.buttonTapped(token, tag))
            if let id = banner.id { showCounts[id] = nil }
            if animated {
                visible[i].phase = .leaving(until: now + banner.animationType.exit, reason: reason)
                visible[i].timerDeadline = nil
            } else {
                visible.remove(at: i)
                lastHideAt = now
                events.append(.didHide(token, reason))
            }
        }
        return events + advance(to: now)
    }

    /// The app dismisses a banner (waiting or visible): animated with its type's exit, or at once.
    public mutating func dismiss(_ token: BannerToken, animated: Bool, at now: Double) -> [BannerEvent] {
        var events = advance(to: now)
        if let w = waiting.firstIndex(where: { $0.token == token }) {
            waiting.remove(at: w)
            return events + [.willHide(token, .programmatic(animated: animated)), .didHide(token, .programmatic(animated: animated))]
        }
        guard let i = visible.firstIndex(where: { $0.token == token }), visible[i].isInteractive else { return events }
        beginExit(i, reason: .programmatic(animated: animated), animated: animated, at: now, into: &events)
        return events + advance(to: now)
    }

    /// Hides every banner with this id, waiting or visible (a visible one stays until its minimum).
    public mutating func hide(id: String, at now: Double) -> [BannerEvent] {
        var events = advance(to: now)
        showCounts[id] = nil
        for w in waiting where w.banner.id == id {
            events += [.willHide(w.token, .hidden), .didHide(w.token, .hidden)]
        }
        waiting.removeAll { $0.banner.id == id }
        for i in visible.indices.reversed() where visible[i].banner.id == id && visible[i].isInteractive {
            if visible[i].minimumUntil > now { visible[i].pendingHide = .hidden } else { beginExit(i, reason: .hidden, animated: true, at: now, into: &events) }
        }
        return events + advance(to: now)
    }

    /// Balances one `enqueue` of this id: the banner hides only when every show has its hide.
    public mutating func hideCounted(id: String, at now: Double) -> [BannerEvent] {
        guard let count = showCounts[id] else { return advance(to: now) }
        if count > 1 {
            showCounts[id] = count - 1
            return advance(to: now)
        }
        return hide(id: id, at: now)
    }

    /// Hides everything, waiting and visible.
    public mutating func hideAll(at now: Double) -> [BannerEvent] {
        var events = advance(to: now)
        for w in waiting { events += [.willHide(w.token, .hidden), .didHide(w.token, .hidden)] }
        waiting.removeAll()
        showCounts.removeAll()
        for i in visible.indices.reversed() where visible[i].isInteractive {
            if visible[i].minimumUntil > now { visible[i].pendingHide = .hidden } else { beginExit(i, reason: .hidden, animated: true, at: now, into: &events) }
        }
        return events + advance(to: now)
    }
}
