public import RocketConversation
public import RocketBanners
import RocketCore
#if canImport(Glibc)
    import Glibc
#endif

/// How a terminal session ended.
public enum SessionOutcome: Hashable, Sendable {
    /// The flow reached a nil `next`.
    case completed
    /// The user closed it: close button, Esc, or end of input in plain mode.
    case closed
    /// Ctrl-C or a signal (its number).
    case interrupted(signal: Int32)

    /// The documented exit status: 0, 1, or 128 + signal (130 for Ctrl-C and SIGINT, 143 for SIGTERM).
    public var exitCode: Int32 {
        switch self {
        case .completed: return 0
        case .closed: return 1
        case .interrupted(let s): return 128 + s
        }
    }
}

/// Runs one conversation in the terminal, in raw-mode TTY mode or plain line mode.
///
/// Both modes share the engine, the clock and the event loop (input, signals and the next
/// timer deadline, one `poll`); they differ only in drawing and in how input becomes intents.
///
/// ```swift
/// let session = TerminalSession(host: host, terminal: Terminal(), mode: .tty, strings: .english)
/// let outcome = session.run()
/// exit(outcome.exitCode)
/// ```
public final class TerminalSession {
    /// The drawing mode.
    public enum Mode: Sendable { case tty, plain }

    let rocket: ConversationHost
    let terminal: Terminal
    let mode: Mode
    let strings: UIStrings
    /// Colour depth for TTY mode.
    public var depth: ColorDepth = .indexed256
    /// Where plain mode reports refused lines (stderr by default).
    public var reportError: (String) -> Void = { Terminal(outputFD: 2).write(Sanitizer.clean($0, keepNewlines: false) + "\n") }
    /// Print hints in plain mode (when a person is typing).
    public var plainHints = false

    /// Capture the mouse (clicks press buttons). Off by default in the inline UI, so that wheel
    /// scroll-back and text selection keep working (`--mouse` turns it on).
    public var mouse = false
    /// A banner shown over the conversation (a flow-level banner), on the same clock.
    public var banner: Banner?
    /// Called when the banner goes away, with the line `rocket banner` would print.
    public var onBannerDismissed: ((BannerOutcome) -> Void)?
    /// Skip banner animations.
    public var reducedMotion = false
    private var bannerCenter: BannerCenter?
    private var bannerToken: BannerToken?

    private var ui = ConversationUI()
    private var interruptedBy: Int32?

    /// Creates a session; call ``run()`` once.
    public init(host: ConversationHost, terminal: Terminal, mode: Mode, strings: UIStrings) {
        self.rocket = host
        self.terminal = terminal
        self.mode = mode
        self.strings = strings
    }

    /// Shows the conversation and runs until it ends; the terminal is restored on every path.
    public func run() -> SessionOutcome {
        terminal.installSignalHandlers()
        switch mode {
        case .tty:
            do { try terminal.enterRawMode(mouse: mouse) } catch { return runPlain() }
            defer { terminal.restore() }
            return runTTY()
        case .plain:
            defer { terminal.restore() }  // echo back on, if a secret turned it off
            return runPlain()
        }
    }

    private var outcome: SessionOutcome? {
        if let s = interruptedBy { return .interrupted(signal: s) }
        switch rocket.conversation.status {
        case .dismissed(.completed): return .completed
        case .dismissed(.closedByUser): return .closed
        case .dismissed(.interrupted), .dismissed(.dismissedByApp): return .interrupted(signal: SIGINT)
        default: return nil
        }
    }

    private func timeout(extra: Double? = nil) -> Double? {
        let deadline = rocket.nextDeadline.map { max(0, $0 - rocket.clock.now) }
        switch (deadline, extra) {
        case let (d?, e?): return min(d, e)
        case let (d?, nil): return d
        case let (nil, e): return e
        }
    }

    private func handleSignal(_ s: Int32) -> Bool {
        if s == SIGWINCH { return false }
        interruptedBy = s
        rocket.dismiss(reason: .interrupted)
        return true
    }

    // MARK: TTY

    private var imageCache: [String: TerminalImage?] = [:]

    /// Loads (once) every picture the transcript shows, and the author's.
    private func loadImages() -> [String: TerminalImage] {
        var wanted: [RocketImage] = rocket.conversation.author.image.map { [$0] } ?? []
        let c = rocket.conversation
        for case .block(_, let id, _) in c.transcript {
            if case .image(let img) = c.graph[id].content { wanted.append(img.image) }
        }
        for image in wanted where imageCache[image.cacheKey] == nil {
            imageCache[image.cacheKey] = try? image.decoded().get()
        }
        return imageCache.compactMapValues { $0 }
    }

    private func view() -> ConversationView {
        var view = ConversationView(
            width: terminal.size.columns - 1, author: rocket.conversation.author, closeTitle: rocket.conversation.closeButton?.title, strings: strings)
        view.drawsImages = depth > .none
        return view
    }

    /// Starts the flow-level banner, if any.
    private func showBanner() {
        guard let banner else { return }
        let center = BannerCenter(clock: rocket.clock, queue: BannerQueue(reducedMotion: reducedMotion || mode == .plain))
        bannerCenter = center
        bannerToken = center.show(
            banner,
            dismissHandler: { [weak self] reason in
                var title: String?
                if case .button(let tag) = reason { title = banner.buttons.items.first { $0.tag == tag }?.title }
                self?.onBannerDismissed?(.dismissed(reason, buttonTitle: title))
            })
    }

    /// Banner keys during a conversation (the conversation keeps every other key, and a text
    /// input keeps its focus, M16): Ctrl-B opens the banner (its first button, or a background
    /// tap), Ctrl-X swipes it away.
    private func bannerKey(_ key: Key) -> Bool {
        guard let center = bannerCenter, let token = bannerToken, let banner, center.queue.visible.contains(where: { $0.token == token }) else { return false }
        switch key {
        case .ctrl("b"): try? center.send(.tap(banner.buttons.items.first?.tag ?? .background), to: token)
        case .ctrl("x"): try? center.send(.swipe, to: token)
        default: return false
        }
        return true
    }

    private func runTTY() -> SessionOutcome {
        var screen = TTYScreen(depth: depth)
        var view = view()
        var bannerView = BannerView(width: view.width, strings: strings)
        bannerView.reducedMotion = reducedMotion
        bannerView.hint = banner.map { $0.buttons.items.isEmpty ? strings.bannerHintInFlow : strings.bannerHintInFlowButtons } ?? nil
        var hits: [HitRegion] = []
        var bannerRows = 0
        screen.start(on: terminal)
        rocket.show()
        showBanner()
        while true {
            rocket.tick()
            bannerCenter?.tick()
            KeyController.sync(&ui, with: rocket.conversation)
            if view.drawsImages { view.images = loadImages() }
            var (frame, newHits) = view.layout(rocket.conversation, ui: ui)
            // The banner goes over the top: its rows first, the conversation's below.
            let now = rocket.clock.now
            var animating = false
            if let showing = bannerCenter?.queue.visible.first {
                let rows = bannerView.rows(for: showing, at: now, focus: nil)
                animating = showing.progress(at: now) < 1 && !reducedMotion
                bannerRows = rows.count
                frame.rows.insert(contentsOf: rows, at: 0)
                if let c = frame.cursor { frame.cursor = (c.row + rows.count, c.column) }
                newHits = newHits.map { HitRegion(row: $0.row + rows.count, columns: $0.columns, intent: $0.intent) }
            } else {
                bannerRows = 0
            }
            hits = newHits
            screen.draw(frame, on: terminal)
            if let outcome {
                if let center = bannerCenter, let token = bannerToken { center.dismiss(token, animated: false) }
                screen.finish(on: terminal)
                return outcome
            }
            var extra: Double?
            if let d = bannerCenter?.nextDeadline { extra = max(0, d - now) }
            if animating { extra = min(extra ?? 1 / 30, 1 / 30) }
            switch screen.interpret(terminal.wait(timeout: screen.timeout(timeout(extra: extra))), on: terminal) {
            case .keys(let keys):
                for key in keys { handleKey(key, screen: screen, hits: hits, bannerRows: bannerRows, bannerView: bannerView) }
            case .resized:
                view = self.view()
                bannerView.width = view.width
            case .signal(let s):
                _ = handleSignal(s)
            case .ended:
                interruptedBy = SIGHUP
                rocket.dismiss(reason: .interrupted)
            }
        }
    }

    private func handleKey(_ key: Key, screen: TTYScreen, hits: [HitRegion], bannerRows: Int = 0, bannerView: BannerView? = nil) {
        if bannerKey(key) { return }
        switch key {
        case .mouse(let row, let column):
            // Screen rows → frame rows; without a known origin a click cannot be placed.
            guard let frameRow = screen.frameRow(forScreenRow: row, on: terminal) else { return }
            if frameRow >= 0 && frameRow < bannerRows, let center = bannerCenter, let token = bannerToken, let banner, let bannerView {
                let tag = frameRow == 0 ? bannerView.buttonColumns(for: banner).first { $0.columns.contains(column) }?.tag : nil
                try? center.send(.tap(tag ?? .background), to: token)
                return
            }
            apply(KeyController.handle(.mouse(row: frameRow, column: column), conversation: rocket.conversation, ui: &ui, hits: hits))
        default:
            apply(KeyController.handle(key, conversation: rocket.conversation, ui: &ui, hits: hits))
        }
    }

    private func apply(_ action: FrontEndAction) {
        switch action {
        case .send(let intent):
            do {
                try rocket.send(intent)
            } catch .invalidInput(let failure) {
                ui.error = rocket.conversation.interpolate(strings.message(for: failure))
            } catch .noCloseButton {
                // Esc without a close button still ends the conversation, as the user asked.
                rocket.dismiss(reason: .closedByUser)
            } catch {
                // Not applicable now (a bounce is running, or the block already fired): ignore.
            }
        case .interrupt:
            interruptedBy = SIGINT
            rocket.dismiss(reason: .interrupted)
        case .redraw, .none:
            break
        }
    }

    // MARK: Plain

    private var printedItems = 0
    private var promptedIndex: Int?
    private var input = LineReader()

    /// Plain-mode input read but not used (lines typed ahead for whatever comes next), and
    /// whether the input has ended.
    public var unreadInput: (bytes: [UInt8], ended: Bool) { (input.pending, input.ended) }

    private func say(_ s: String) { terminal.write(s + "\n") }

    private func printNewItems() {
        let transcript = rocket.conversation.transcript
        let name = Sanitizer.clean(rocket.conversation.author.name, keepNewlines: false)
        while printedItems < transcript.count {
            switch transcript[printedItems] {
            case .block(_, let id, let rawText):
                let text = Sanitizer.clean(rawText).replacing("\n", with: "\n  ")
                let c = rocket.conversation
                switch c.graph[id].content {
                case .image(let img):
                    let file = img.image.path.map { ": " + Sanitizer.clean(PathName.lastComponent($0), keepNewlines: false) } ?? ""
                    say("\(name): [\(strings.imageLabel)\(file)]" + (text.isEmpty ? "" : " " + text))
                case .button(let b):
                    say("\(name): [1] \(Sanitizer.clean(c.interpolate(b.title), keepNewlines: false))")
                case .doubleButton(let l, let r):
                    say(
                        "\(name): [1] \(Sanitizer.clean(c.interpolate(l.title), keepNewlines: false))  [2] \(Sanitizer.clean(c.interpolate(r.title), keepNewlines: false))"
                    )
                default:
                    say("\(name): \(text)")
                }
            case .reply(_, let text, _):
                // On a terminal the user's own line is already on the screen: say it once.
                if !plainHints { say("\(strings.you): \(Sanitizer.clean(text, keepNewlines: false))") }
            }
            printedItems += 1
        }
    }

    private func runPlain() -> SessionOutcome {
        rocket.show()
        if let banner {
            var text = "[" + Sanitizer.clean(banner.title, keepNewlines: false) + "]"
            if case .text(let icon)? = banner.icon { text = Sanitizer.clean(icon, keepNewlines: false) + " " + text }
            if let sub = banner.subtitle, !sub.isEmpty { text += " " + Sanitizer.clean(sub, keepNewlines: false) }
            say(text)
        }
        while true {
            rocket.tick()
            printNewItems()
            if let outcome { return outcome }
            let c = rocket.conversation
            if let index = c.interactiveIndex {
                let block = c.node(at: index)
                // A secret typed on a terminal is not shown: echo off while its line is read.
                var secret = false
                if case .textInput(let i) = block.content, i.isSecret { secret = true }
                terminal.setEcho(!secret)
                if promptedIndex != index {
                    promptedIndex = index
                    if plainHints {
                        switch block.kind {
                        case .text, .image: say(strings.plainContinue)
                        case .button, .doubleButton:
                            say(strings.plainChoose.replacing("%d", with: block.kind == .button ? "1" : "2"))
                        case .textInput: say(strings.plainType)
                        }
                    }
                }
                if let read = input.next() {
                    if secret && plainHints { say("") }  // the Enter was not echoed either
                    guard case .text(let line) = read else {
                        reportError(strings.lineTooLong.replacing("%d", with: String(input.limit / 1024)))
                        continue
                    }
                    switch PlainController.intent(for: line, block: block, strings: strings) {
                    case .success(let intent):
                        do {
                            try rocket.send(intent)
                            // A button choice is echoed by its title (what "1" chose).
                            switch (intent, block.content) {
                            case (.pressButton, .button(let b)):
                                say("\(strings.you): \(Sanitizer.clean(rocket.conversation.interpolate(b.title), keepNewlines: false))")
                            case (.pressLeft, .doubleButton(let l, _)), (.pressRight, .doubleButton(_, let l)):
                                say("\(strings.you): \(Sanitizer.clean(rocket.conversation.interpolate(l.title), keepNewlines: false))")
                            default: break
                            }
                        } catch .invalidInput(let failure) {
                            reportError(rocket.conversation.interpolate(strings.message(for: failure)))
                        } catch {
                            // A block that is not interactive now: the line is dropped.
                        }
                    case .failure(let e):
                        reportError(e.message)
                    }
                    continue
                }
                if input.ended {
                    // End of input closes the conversation, as the close button does.
                    if (try? rocket.send(.close)) == nil { rocket.dismiss(reason: .closedByUser) }
                    continue
                }
            }
            let wantInput = c.interactiveIndex != nil && !input.ended
            switch terminal.wait(timeout: timeout(), wantInput: wantInput) {
            case .input(let bytes):
                input.feed(bytes)
            case .signal(let s):
                _ = handleSignal(s)
            case .timeout:
                break
            }
        }
    }
}
