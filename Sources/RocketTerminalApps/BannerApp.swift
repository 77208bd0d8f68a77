public import RocketBanners
import RocketCore
public import RocketText
public import RocketTerminalCore

/// `rocket banner`: one banner until it goes away.
///
/// TTY: ←/→/Tab move focus between buttons; Enter or Space presses the focused button (with no
/// buttons, Enter is a background tap); Esc or ↑ is the swipe; a click presses what it hits. The
/// app ends once the exit animation is over. Line mode prints the banner as text and reads
/// lines: a button number or title (case-insensitive, or "close"); an empty line is a background
/// tap (refused when disabled); the duration still applies; end of input is a swipe.
///
/// Done (exit 0) for a button or a background tap; declined (exit 1) for close, swipe or timeout.
@MainActor
public final class BannerApp: TerminalProgram {
    /// The banner and how it is drawn.
    public let overlay: BannerOverlay
    /// See `TerminalProgram/lineMode`.
    public var lineMode = false
    let strings: UIStrings
    private var interruptedBy: Int32?

    /// An app for a banner on a center's clock; in TTY mode `view` draws it.
    public init(banner: Banner, center: BannerCenter, view: BannerView, strings: UIStrings) {
        overlay = BannerOverlay(banner: banner, center: center, view: view)
        overlay.focus = banner.buttons.items.isEmpty ? nil : 0
        self.strings = strings
    }

    /// See `TerminalProgram/outcome`.
    public var outcome: ProgramOutcome<BannerResult>? {
        if let s = interruptedBy { return .interrupted(signal: s) }
        guard let result = overlay.result, overlay.isIdle else { return nil }
        return result.isDone ? .done(result) : .declined(result)
    }

    /// See `TerminalProgram/lineRequest`.
    public var lineRequest: LineRequest? { lineMode && overlay.result == nil ? LineRequest() : nil }

    /// See `TerminalProgram/start(now:)`.
    public func start(now: Double) -> [ProgramOutput] {
        overlay.show()
        guard lineMode else { return [] }
        var out: [ProgramOutput] = [.say(overlay.lineText)]
        let items = overlay.banner.buttons.items
        if !items.isEmpty {
            out.append(
                .say(
                    items.enumerated().map {
                        "[\($0.offset + 1)] \($0.element.tag == .close ? "close" : Sanitizer.clean($0.element.title, keepNewlines: false))"
                    }
                    .joined(separator: "  ")))
        }
        return out
    }

    /// See `TerminalProgram/update(_:now:)`.
    public func update(_ event: ProgramEvent<BannerTag>, now: Double) -> [ProgramOutput] {
        switch event {
        case .tick: overlay.tick()
        case .key(let key): _ = overlay.handleKey(key)
        case .click(let tag): overlay.send(.tap(tag))
        case .interrupt(let s): interruptedBy = s
        case .line(let raw): return answer(raw)
        case .inputEnded:
            // End of input is the swipe (or, when swiping is off, the banner simply goes).
            if overlay.banner.swipeToDismissEnabled { overlay.send(.swipe) } else { overlay.dismissNow() }
        }
        return []
    }

    private func answer(_ raw: String) -> [ProgramOutput] {
        let banner = overlay.banner
        let line = raw.trimmingSpaces()
        if line.isEmpty {
            if banner.backgroundTapsEnabled {
                overlay.send(.tap(.background))
                return []
            }
            return [.refuse(strings.bannerBackgroundDisabled)]
        }
        let items = banner.buttons.items
        let aliases = items.firstIndex { $0.tag == .close }.map { [$0: "close"] } ?? [:]
        switch ChoiceParser.parse(line, titles: items.map(\.title), aliases: aliases) {
        case .success(let k): overlay.send(.tap(items[k].tag))
        case .failure(let refusal): return [.refuse(refusal.message(strings: strings, count: items.count))]
        }
        return []
    }

    /// See `TerminalProgram/nextDeadline(now:)`.
    public func nextDeadline(now: Double) -> Double? { overlay.nextDeadline(now: now) }

    /// See `TerminalProgram/view(width:now:)`.
    public func view(width: Int, now: Double) -> ProgramFrame<BannerTag> {
        let (rows, hits) = overlay.frame(width: width, now: now)
        var buffer = ScreenBuffer(width: overlay.view.width)
        for cells in rows {
            let r = buffer.addRow()
            buffer.rows[r] = cells
        }
        return ProgramFrame(buffer: buffer, hits: hits)
    }
}

extension ProgramOutcome where Value == BannerResult {
    /// The line `rocket banner` prints (`interrupted` for a signal).
    public var line: String { value?.line ?? "interrupted" }
}
