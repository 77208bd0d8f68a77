public import RocketBanners
import RocketCore
#if canImport(Glibc)
    import Glibc
#endif

/// How `rocket banner` ended.
public enum BannerOutcome: Hashable, Sendable {
    /// The banner went away for this reason.
    case dismissed(BannerDismissal, buttonTitle: String?)
    /// Ctrl-C or a signal.
    case interrupted(signal: Int32)

    /// The line the CLI prints: `button:TITLE`, `background`, `close`, `swipe` or `timeout`.
    public var line: String {
        switch self {
        case .dismissed(.button(.close), _): return "close"
        case .dismissed(.button, let title): return "button:" + Sanitizer.clean(title ?? "", keepNewlines: false)
        case .dismissed(.background, _): return "background"
        case .dismissed(.timeout, _): return "timeout"
        case .dismissed: return "swipe"
        case .interrupted: return "interrupted"
        }
    }

    /// 0 for a button or background tap, 1 otherwise, 128 + signal when interrupted.
    public var exitCode: Int32 {
        switch self {
        case .dismissed(.button(.close), _): return 1
        case .dismissed(.button, _), .dismissed(.background, _): return 0
        case .dismissed: return 1
        case .interrupted(let s): return 128 + s
        }
    }
}

/// Shows one banner in the terminal (raw-mode TTY, or plain lines) until it goes away.
///
/// Keys: ←/→/Tab move focus between buttons; Enter or Space presses the focused button (with no
/// buttons, Enter is a background tap); Esc or ↑ is the swipe; a click presses what it hits.
/// Plain mode prints the banner as text and reads one line: a button number or title
/// (case-insensitive); an empty line is a background tap (ignored when disabled); the duration
/// still applies; end of input is a swipe.
public final class BannerSession {
    let center: BannerCenter
    let terminal: Terminal
    let strings: UIStrings
    /// Colour depth for TTY mode.
    public var depth: ColorDepth = .indexed256
    /// Skip the entrance and exit animations (`ROCKET_REDUCED_MOTION=1`).
    public var reducedMotion = false
    /// Where plain mode reports refused lines.
    public var reportError: (String) -> Void = { Terminal(outputFD: 2).write(Sanitizer.clean($0, keepNewlines: false) + "\n") }

    private var token: BannerToken?
    private var outcome: BannerOutcome?
    private var focus = 0

    /// A session for `banner` on `center`'s clock.
    public init(center: BannerCenter, terminal: Terminal, strings: UIStrings) {
        self.center = center
        self.terminal = terminal
        self.strings = strings
    }

    private func record(_ banner: Banner) -> (BannerDismissal) -> Void {
        { [unowned self] reason in
            var title: String?
            if case .button(let tag) = reason { title = banner.buttons.items.first { $0.tag == tag }?.title }
            outcome = .dismissed(reason, buttonTitle: title)
        }
    }

    /// Shows the banner and waits for it to go.
    public func run(_ banner: Banner, plain: Bool) -> BannerOutcome {
        terminal.installSignalHandlers()
        token = center.show(banner, dismissHandler: record(banner))
        if plain { return runPlain(banner) }
        do { try terminal.enterRawMode() } catch { return runPlain(banner) }
        defer { terminal.restore() }
        return runTTY(banner)
    }

    private func press(_ intent: BannerIntent) {
        guard let token else { return }
        try? center.send(intent, to: token)
    }

    // MARK: TTY

    private func runTTY(_ banner: Banner) -> BannerOutcome {
        var screen = TTYScreen(depth: depth)
        var view = BannerView(width: terminal.size.columns - 1, strings: strings)
        view.reducedMotion = reducedMotion
        view.hint = banner.buttons.items.isEmpty ? strings.bannerHintNoButtons : strings.bannerHint
        if case .image(let img)? = banner.icon, depth > .none, let picture = try? img.decoded().get() { view.images[img.cacheKey] = picture }
        screen.start(on: terminal)
        while true {
            center.tick()
            var frame = ScreenBuffer(width: view.width)
            let showing = center.queue.visible.first
            if let showing {
                for cells in view.rows(for: showing, at: center.clock.now, focus: banner.buttons.items.isEmpty ? nil : focus) {
                    let r = frame.addRow()
                    frame.rows[r] = cells
                }
            }
            screen.draw(frame, on: terminal)
            if let outcome, center.queue.isIdle {
                screen.finish(on: terminal)
                return outcome
            }
            let animating = showing.map { $0.progress(at: center.clock.now) < 1 } ?? false
            var timeout = center.nextDeadline.map { max(0, $0 - center.clock.now) }
            if animating && !reducedMotion { timeout = min(timeout ?? 1 / 30, 1 / 30) }
            var keys: [Key] = []
            switch screen.interpret(terminal.wait(timeout: screen.timeout(timeout)), on: terminal) {
            case .keys(let k): keys = k
            case .resized: view.width = terminal.size.columns - 1
            case .signal(let s):
                screen.finish(on: terminal)
                return .interrupted(signal: s)
            case .ended:
                return .interrupted(signal: SIGHUP)
            }
            let count = banner.buttons.items.count
            for key in keys {
                switch key {
                case .ctrl("c"):
                    screen.finish(on: terminal)
                    return .interrupted(signal: SIGINT)
                case .left, .backTab: if count > 0 { focus = (focus + count - 1) % count }
                case .right, .tab: if count > 0 { focus = (focus + 1) % count }
                case .enter, .character(" "):
                    press(count == 0 ? .tap(.background) : .tap(banner.buttons.items[focus].tag))
                case .escape, .up:
                    press(.swipe)
                case .mouse(let row, let column):
                    guard let frameRow = screen.frameRow(forScreenRow: row, on: terminal),
                        frameRow >= 0, frameRow < frame.rows.count
                    else { break }
                    if frameRow == 0, let hit = view.buttonColumns(for: banner).first(where: { $0.columns.contains(column) }) {
                        press(.tap(hit.tag))
                    } else {
                        press(.tap(.background))
                    }
                default:
                    break
                }
            }
        }
    }

    // MARK: Plain

    private func runPlain(_ banner: Banner) -> BannerOutcome {
        center.tick()
        var text = "[" + Sanitizer.clean(banner.title, keepNewlines: false) + "]"
        if case .text(let icon)? = banner.icon { text = Sanitizer.clean(icon, keepNewlines: false) + " " + text }
        if let s = banner.subtitle, !s.isEmpty { text += " " + Sanitizer.clean(s, keepNewlines: false) }
        terminal.write(text + "\n")
        let items = banner.buttons.items
        if !items.isEmpty {
            terminal.write(
                items.enumerated().map { "[\($0.offset + 1)] \($0.element.tag == .close ? "close" : Sanitizer.clean($0.element.title, keepNewlines: false))" }
                    .joined(separator: "  ") + "\n")
        }
        var input = LineReader()
        while outcome == nil || !center.queue.isIdle {
            center.tick()
            if outcome != nil && center.queue.isIdle { break }
            if let read = input.next() {
                guard case .text(let raw) = read else {
                    reportError(strings.lineTooLong.replacing("%d", with: String(input.limit / 1024)))
                    continue
                }
                let line = raw.trimmingSpaces()
                if line.isEmpty {
                    if banner.backgroundTapsEnabled { press(.tap(.background)) } else { reportError(strings.bannerBackgroundDisabled) }
                } else if let n = Int(line), (1...items.count).contains(n) {
                    press(.tap(items[n - 1].tag))
                } else if let item = items.first(where: { $0.title.lowercased() == line.lowercased() || ($0.tag == .close && line.lowercased() == "close") }) {
                    press(.tap(item.tag))
                } else {
                    reportError(strings.plainNotAChoice.replacing("%@", with: "\"\(line)\""))
                }
                continue
            }
            if input.ended {
                // End of input is the swipe.
                if banner.swipeToDismissEnabled { press(.swipe) } else if let token { center.dismiss(token, animated: false) }
                if outcome != nil, case .dismissed(.programmatic, _)? = outcome { outcome = .dismissed(.swipe, buttonTitle: nil) }
                continue
            }
            let timeout = center.nextDeadline.map { max(0, $0 - center.clock.now) }
            switch terminal.wait(timeout: timeout, wantInput: outcome == nil) {
            case .input(let bytes): input.feed(bytes)
            case .signal(let s): if s != SIGWINCH { return .interrupted(signal: s) }
            case .timeout: break
            }
        }
        return outcome ?? .dismissed(.swipe, buttonTitle: nil)
    }
}
