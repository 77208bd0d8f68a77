import RocketCore
public import RocketReactor
#if canImport(Glibc)
    import Glibc
#endif

/// How an alert in the terminal ended.
public enum AlertOutcome: Hashable, Sendable {
    /// The user chose the button at this index (in state order), with its title.
    case chosen(index: Int, title: String)
    /// Esc with no cancel action, or end of input in plain mode.
    case cancelled
    /// Ctrl-C or a signal.
    case interrupted(signal: Int32)

    /// 0 for a choice, 1 when cancelled, 128 + signal when interrupted.
    public var exitCode: Int32 {
        switch self {
        case .chosen: return 0
        case .cancelled: return 1
        case .interrupted(let s): return 128 + s
        }
    }
}

/// Shows an `AlertController` in the terminal until a button is chosen.
///
/// TTY: an alert is a centred box, an action sheet a list at the bottom; ←/→/↑/↓/Tab move focus
/// over enabled buttons, Enter or Space chooses, Esc chooses the cancel action when there is one
/// (else it ends with `.cancelled`), a click chooses what it hits; the alert updates live while
/// its actions load. Plain mode prints the title, the message and the actions numbered in state
/// order (disabled ones marked), then reads lines: a number or a title (case-insensitive); an
/// invalid or disabled choice says why on stderr and reads again.
@MainActor
public final class AlertSession<A: AlertActionType> {
    let controller: AlertController<A>
    let terminal: Terminal
    let strings: UIStrings
    /// Colour depth.
    public var depth: ColorDepth = .indexed256
    /// Where plain mode reports refused lines.
    public var reportError: (String) -> Void = { Terminal(outputFD: 2).write(Sanitizer.clean($0, keepNewlines: false) + "\n") }
    /// Seconds plain mode waits for actions still loading before it prints them.
    public var plainLoadingWait: Double = 10
    /// Input an earlier plain-mode session read ahead (see ``TerminalSession/unreadInput``).
    public var typedAhead: (bytes: [UInt8], ended: Bool) = ([], false)

    private var focus: Int?
    private var outcome: AlertOutcome?

    /// A session for a controller.
    public init(controller: AlertController<A>, terminal: Terminal, strings: UIStrings) {
        self.controller = controller
        self.terminal = terminal
        self.strings = strings
    }

    /// Waits for input, a signal or the timeout off the main actor, so the reactor's updates run meanwhile.
    private func wait(timeout: Double?, wantInput: Bool = true) async -> Terminal.Wake {
        let terminal = self.terminal
        return await OffThread.run { terminal.wait(timeout: timeout, wantInput: wantInput) }
    }

    private var items: [AlertView.Item] { controller.buttons.map { ($0.title, $0.style, $0.isEnabled) } }

    private func choose(_ index: Int) {
        let title = controller.buttons.indices.contains(index) ? controller.buttons[index].title : ""
        if controller.select(index) { outcome = .chosen(index: index, title: title) }
    }

    /// Presents the alert and runs until it ends; the terminal is restored on every path.
    public func run(plain: Bool) async -> AlertOutcome {
        terminal.installSignalHandlers()
        controller.present()
        if plain { return await runPlain() }
        do { try terminal.enterRawMode() } catch { return await runPlain() }
        defer { terminal.restore() }
        return await runTTY()
    }

    private func runTTY() async -> AlertOutcome {
        var screen = TTYScreen(depth: depth)
        var view = AlertView(width: terminal.size.columns - 1, strings: strings)
        screen.start(on: terminal)
        while true {
            if focus == nil || !(items.indices.contains(focus!) && items[focus!].isEnabled) {
                focus = AlertView.initialFocus(buttons: items)
            }
            let (frame, hits) = view.layout(
                title: controller.title, message: controller.message, buttons: items,
                style: controller.style, focus: focus)
            screen.draw(frame, on: terminal)
            if let outcome {
                screen.finish(on: terminal)
                return outcome
            }
            // While actions load, wake every 50 ms to draw them.
            let timeout: Double? = controller.store.runningCount > 0 ? 0.05 : nil
            var keys: [Key] = []
            switch screen.interpret(await wait(timeout: screen.timeout(timeout)), on: terminal) {
            case .keys(let k): keys = k
            case .resized: view.width = terminal.size.columns - 1
            case .signal(let s):
                controller.dismiss()
                outcome = .interrupted(signal: s)
            case .ended:
                outcome = .interrupted(signal: SIGHUP)
            }
            for key in keys where outcome == nil {
                switch key {
                case .ctrl("c"):
                    controller.dismiss()
                    outcome = .interrupted(signal: SIGINT)
                case .left, .up, .backTab: focus = AlertView.nextFocus(from: focus, step: -1, buttons: items)
                case .right, .down, .tab: focus = AlertView.nextFocus(from: focus, step: 1, buttons: items)
                case .enter, .character(" "): if let focus { choose(focus) }
                case .escape:
                    if let cancel = controller.cancelIndex, items[cancel].isEnabled {
                        choose(cancel)
                    } else {
                        controller.dismiss()
                        outcome = .cancelled
                    }
                case .mouse(let row, let column):
                    guard let frameRow = screen.frameRow(forScreenRow: row, on: terminal) else { break }
                    if let hit = hits.first(where: { $0.value.row == frameRow && $0.value.columns.contains(column) }) { choose(hit.key) }
                default:
                    break
                }
            }
        }
    }

    private func runPlain() async -> AlertOutcome {
        // Let lazily loaded actions arrive before listing them (plain output cannot redraw).
        var waited = 0.0
        while controller.store.runningCount > 0 && waited < plainLoadingWait {
            _ = await wait(timeout: 0.05, wantInput: false)
            waited += 0.05
        }
        if let t = controller.title, !t.isEmpty { terminal.write(Sanitizer.clean(t, keepNewlines: false) + "\n") }
        if let m = controller.message, !m.isEmpty { terminal.write(Sanitizer.clean(m) + "\n") }
        for (i, b) in controller.buttons.enumerated() {
            var line = "[\(i + 1)] " + Sanitizer.clean(b.title, keepNewlines: false)
            if b.style == .cancel { line += " (\(strings.styleCancel))" }
            if b.style == .destructive { line += " (\(strings.styleDestructive))" }
            if !b.isEnabled { line += " (\(strings.unavailable))" }
            terminal.write(line + "\n")
        }
        var input = LineReader(pending: typedAhead.bytes, ended: typedAhead.ended)
        while outcome == nil {
            if let read = input.next() {
                guard case .text(let raw) = read else {
                    reportError(strings.lineTooLong.replacing("%d", with: String(input.limit / 1024)))
                    continue
                }
                let line = raw.trimmingSpaces()
                let buttons = controller.buttons
                let index = Int(line).map { $0 - 1 } ?? buttons.firstIndex { $0.title.lowercased() == line.lowercased() }
                guard let index, buttons.indices.contains(index) else {
                    reportError(
                        strings.plainNotAChoice.replacing("%@", with: "\"\(line)\"") + " — " + strings.plainChoose.replacing("%d", with: String(buttons.count)))
                    continue
                }
                guard buttons[index].isEnabled else {
                    reportError(strings.alertDisabled.replacing("%@", with: "\"\(buttons[index].title)\""))
                    continue
                }
                choose(index)
                continue
            }
            if input.ended { controller.dismiss(); outcome = .cancelled; break }
            switch await wait(timeout: nil) {
            case .input(let bytes): input.feed(bytes)
            case .signal(let s): if s != SIGWINCH { controller.dismiss(); outcome = .interrupted(signal: s) }
            case .timeout: break
            }
        }
        return outcome!
    }
}

/// Runs blocking work (a `poll` on the terminal) on a thread of its own, so it never holds a
/// thread of Swift's cooperative pool.
enum OffThread {
    private final class Job: Sendable {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }

    /// The value of `body`, computed on a new detached thread.
    static func run<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { (continuation: CheckedContinuation<T, Never>) in
            let job = Job { continuation.resume(returning: body()) }
            let retained = Unmanaged.passRetained(job)
            var thread = pthread_t()
            let rc = pthread_create(
                &thread, nil,
                { raw in
                    guard let raw else { return nil }
                    Unmanaged<Job>.fromOpaque(raw).takeRetainedValue().body()
                    return nil
                }, retained.toOpaque())
            if rc == 0 {
                pthread_detach(thread)
            } else {
                retained.release()
                continuation.resume(returning: body())
            }
        }
    }
}
