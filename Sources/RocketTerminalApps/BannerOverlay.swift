public import RocketBanners
import RocketCore
public import RocketTerminalCore

/// How a banner went away: the reason, and the button's title when a button was pressed.
public struct BannerResult: Hashable, Sendable {
    /// Why it went away.
    public var dismissal: BannerDismissal
    /// The pressed button's title (nil for the close button and other reasons).
    public var buttonTitle: String?

    /// A result.
    public init(dismissal: BannerDismissal, buttonTitle: String? = nil) {
        self.dismissal = dismissal
        self.buttonTitle = buttonTitle
    }

    /// True for a button (other than close) or a background tap: what `rocket banner` counts as done.
    public var isDone: Bool {
        switch dismissal {
        case .button(.close): return false
        case .button, .background: return true
        default: return false
        }
    }

    /// The line `rocket banner` prints: `button:TITLE`, `background`, `close`, `swipe` or `timeout`.
    public var line: String {
        switch dismissal {
        case .button(.close): return "close"
        case .button: return "button:" + Sanitizer.clean(buttonTitle ?? "", keepNewlines: false)
        case .background: return "background"
        case .timeout: return "timeout"
        default: return "swipe"
        }
    }
}

/// One banner shown on a `BannerCenter` and drawn over whatever else is on screen: the one
/// banner overlay, used by `rocket banner` alone and by a flow's banner over its conversation.
/// It draws the banner's rows (animation included), declares its hit regions (buttons first,
/// then the whole banner as a background tap) and records how the banner went away.
@MainActor
public final class BannerOverlay {
    /// The banner.
    public let banner: Banner
    /// The center it is shown on (and its clock).
    public let center: BannerCenter
    /// How it is drawn.
    public var view: BannerView
    /// The focused button (an index into the banner's buttons), or nil to show no focus.
    public var focus: Int?
    /// How the banner went away, once it has.
    public private(set) var result: BannerResult?
    /// Called once when the banner goes away (after the queue's state change).
    public var onDismissed: ((BannerResult) -> Void)?
    private var token: BannerToken?

    /// An overlay for a banner on a center.
    public init(banner: Banner, center: BannerCenter, view: BannerView) {
        self.banner = banner
        self.center = center
        self.view = view
    }

    /// Shows the banner (once).
    public func show() {
        guard token == nil else { return }
        let banner = self.banner
        token = center.show(
            banner,
            dismissHandler: { [weak self] reason in
                var title: String?
                if case .button(let tag) = reason { title = banner.buttons.items.first { $0.tag == tag }?.title }
                let result = BannerResult(dismissal: reason, buttonTitle: title)
                self?.result = result
                self?.onDismissed?(result)
            })
    }

    /// True while the banner is on screen (entering, shown or leaving).
    public var isVisible: Bool { token.map { t in center.queue.visible.contains { $0.token == t } } ?? false }
    /// True when nothing is shown or waiting.
    public var isIdle: Bool { center.queue.isIdle }

    /// Runs what is due on the center's clock.
    public func tick() { center.tick() }

    /// The next time something changes: a timer, or the next animation frame (30 per second).
    public func nextDeadline(now: Double) -> Double? {
        var deadline = center.nextDeadline
        if let showing = center.queue.visible.first, showing.progress(at: now) < 1, !view.reducedMotion {
            deadline = min(deadline ?? now + 1 / 30, now + 1 / 30)
        }
        return deadline
    }

    /// Sends an intent to the banner (ignored when it is gone or the intent is not allowed now).
    public func send(_ intent: BannerIntent) {
        guard let token else { return }
        try? center.send(intent, to: token)
    }

    /// Takes the banner away at once (the program it sits on has ended).
    public func dismissNow() {
        guard let token, isVisible else { return }
        center.dismiss(token, animated: false)
    }

    /// The rows to draw at `now` at a width, and their hit regions (rows from 0).
    public func frame(width: Int, now: Double) -> (rows: [[Cell]], hits: [HitRegion<BannerTag>]) {
        guard let showing = center.queue.visible.first else { return ([], []) }
        view.width = width
        let rows = view.rows(for: showing, at: now, focus: focus)
        var hits = view.buttonColumns(for: banner).map { HitRegion(row: $0.row, columns: $0.columns, target: $0.tag) }
        for r in rows.indices { hits.append(HitRegion(row: r, columns: 0..<max(1, width), target: .background)) }
        return (rows, hits)
    }

    /// The keys of a banner shown alone: ←/→/Tab move focus, Enter or Space presses the focused
    /// button (with no buttons, a background tap), Esc or ↑ swipes. True when the key was used.
    public func handleKey(_ key: Key) -> Bool {
        let count = banner.buttons.items.count
        let current = focus ?? 0
        switch key {
        case .left, .backTab: if count > 0 { focus = (current + count - 1) % count }
        case .right, .tab: if count > 0 { focus = (current + 1) % count }
        case .enter, .character(" "): send(count == 0 ? .tap(.background) : .tap(banner.buttons.items[min(current, count - 1)].tag))
        case .escape, .up: send(.swipe)
        default: return false
        }
        return true
    }

    /// The keys of a banner over a conversation, which keeps every other key (a text input keeps
    /// its focus): Ctrl-B opens the banner (its first button, or a background tap), Ctrl-X swipes
    /// it away. True when the key was used.
    public func handleOverlayKey(_ key: Key) -> Bool {
        guard isVisible else { return false }
        switch key {
        case .ctrl("b"): send(.tap(banner.buttons.items.first?.tag ?? .background))
        case .ctrl("x"): send(.swipe)
        default: return false
        }
        return true
    }

    /// The banner as one line of text (line mode): icon, title in brackets, subtitle.
    public var lineText: String { Self.lineText(for: banner) }

    /// A banner as one line of text (line mode): icon, title in brackets, subtitle.
    public static func lineText(for banner: Banner) -> String {
        var text = "[" + Sanitizer.clean(banner.title, keepNewlines: false) + "]"
        if case .text(let icon)? = banner.icon { text = Sanitizer.clean(icon, keepNewlines: false) + " " + text }
        if let sub = banner.subtitle, !sub.isEmpty { text += " " + Sanitizer.clean(sub, keepNewlines: false) }
        return text
    }
}
