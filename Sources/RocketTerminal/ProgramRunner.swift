public import RocketCore
#if canImport(Glibc)
    import Glibc
#endif
import RocketPlatform
public import RocketText
public import RocketTerminalCore

/// The one program loop: runs any `TerminalProgram` on a ``Terminal``, in raw-mode TTY or in
/// line mode, and restores the terminal on every path.
///
/// One `poll` waits for input, signals and the app's next deadline, off the main actor so that
/// work the app started (an alert's loading actions) runs meanwhile. Keys go to the app's update
/// step; Ctrl-C, signals and a vanished terminal become `.interrupt`; clicks are resolved against
/// the last frame's hit regions; the frame is redrawn after every wake. In line mode, bounded
/// lines are read and handed over one at a time, secrets with echo off, and the app's output is
/// printed.
///
/// ```swift
/// let runner = ProgramRunner(terminal: terminal, clock: SystemClock(), strings: .english)
/// let outcome = await runner.run(app, lineMode: false)
/// ```
@MainActor
public final class ProgramRunner {
    let terminal: Terminal
    let clock: any RocketClock
    package let strings: UIStrings
    /// Colour depth (TTY).
    public var depth: ColorDepth = .indexed256
    /// The characters the terminal shows (the frames of the TTY, the lines of line mode).
    public var glyphs = GlyphSet.unicode

    /// The colour depth and the characters of the terminal the environment describes
    /// (`ColorDepth.detect`, `GlyphSet.detect`).
    public func adopt(_ env: [String: String]) {
        depth = ColorDepth.detect(env)
        glyphs = GlyphSet.detect(env)
    }
    /// The colours (TTY); nil asks the terminal for its background (OSC 11): the first frame is
    /// drawn at once in `TerminalTheme/safe` colours, and repainted in place in the dark or
    /// light theme when the answer comes (it never delays start-up).
    public var theme: TerminalTheme?
    /// Capture the mouse in TTY mode (off by default: scroll-back and selection keep working).
    public var mouse = false
    /// What the UI leaves in the scrollback when it ends (TTY): its last frame (a conversation's
    /// transcript), the app's one-line summary (a prompt), or nothing.
    public var residue: Residue = .lastFrame

    /// See ``residue``.
    public enum Residue: Sendable {
        /// The last frame stays.
        case lastFrame
        /// One dimmed line with the question and the answer (`TerminalProgram/summary`); nothing
        /// for an app without a summary.
        case summary
        /// Nothing: the region is erased and the cursor put back where the UI started.
        case nothing
    }
    /// Where refused lines are reported (stderr by default, through the sanitizer).
    public var reportError: (String) -> Void = { Terminal(outputFD: 2).write(Sanitizer.clean($0, keepNewlines: false) + "\n") }
    /// Line-mode input an earlier run read ahead (lines typed for what comes next).
    public var typedAhead: (bytes: [UInt8], ended: Bool) = ([], false)
    /// Line-mode input read but not used, and whether the input has ended.
    public private(set) var unreadInput: (bytes: [UInt8], ended: Bool) = ([], false)
    /// True when the last line-mode run's input was no terminal and ended before it gave a
    /// line (`< /dev/null`, an empty pipe, a git hook's standard input): the program was told
    /// of the end without any answer read.
    public private(set) var endedWithoutAnswer = false
    /// Lines waiting to be printed above the live area (TTY), or to the terminal (line mode).
    private var pendingAbove: [String] = []
    private var drawingTTY = false

    /// Prints a line of text that is not part of the app's frame (an action's name, a command's
    /// output) where it cannot tear the screen: in the terminal UI above the live area, which
    /// moves down under it, at the next frame; in line mode at once, on the runner's terminal.
    /// The text is sanitized (no escape sequences reach the terminal); newlines split it; on an
    /// ASCII terminal (``glyphs``) it is written in ASCII look-alikes, as every line is.
    public func printAbove(_ text: String) {
        let lines = Sanitizer.clean(text).split(separator: "\n", omittingEmptySubsequences: false).map { shown(String($0)) }
        if drawingTTY {
            pendingAbove += lines
        } else {
            terminal.write(lines.map { $0 + "\n" }.joined())
        }
    }

    /// A runner on a terminal and a clock.
    public init(terminal: Terminal, clock: any RocketClock, strings: UIStrings) {
        self.terminal = terminal
        self.clock = clock
        self.strings = strings
    }

    /// Runs the app until it has an outcome. Falls back to line mode when raw mode cannot be entered.
    ///
    /// Cancelling the task that runs it ends the app as Ctrl-C does: its outcome is
    /// `.interrupted(signal: SIGINT)`, its last frame or summary is drawn and the terminal is
    /// restored before `run` returns.
    public func run<P: TerminalProgram>(_ program: P, lineMode: Bool) async -> ProgramOutcome<P.Value> {
        terminal.installSignalHandlers()
        let terminal = self.terminal
        return await withTaskCancellationHandler {
            await runInstalled(program, lineMode: lineMode)
        } onCancel: {
            terminal.wake()
        }
    }

    /// ``run(_:lineMode:)`` once the signal handlers are in place.
    private func runInstalled<P: TerminalProgram>(_ program: P, lineMode: Bool) async -> ProgramOutcome<P.Value> {
        defer { terminal.restore() }  // raw mode, or echo turned off for a secret
        if !lineMode && !program.readsKeys && terminal.isInteractive {
            program.lineMode = false
            return await runTTY(program, readingKeys: false)
        }
        if !lineMode {
            do {
                try terminal.enterRawMode(mouse: mouse)
                program.lineMode = false
                return await runTTY(program)
            } catch {
                // Not a terminal after all: line mode.
            }
        }
        program.lineMode = true
        return await runLines(program)
    }

    /// Waits for input, a signal or the timeout: on a thread of its own when the app has work
    /// running on the main actor meanwhile (an alert's loading actions), else right here (no
    /// thread per key: start-up, memory and CPU stay at whiptail's level).
    private func wait(timeout: Double?, wantInput: Bool = true, suspending: Bool = true, offMainActor: Bool) async -> Terminal.Wake {
        let terminal = self.terminal
        guard offMainActor else { return terminal.wait(timeout: timeout, wantInput: wantInput, suspending: suspending) }
        return await OffThread.run { terminal.wait(timeout: timeout, wantInput: wantInput, suspending: suspending) }
    }

    /// A cancelled task interrupts the program, as Ctrl-C does.
    private func cancelIfAsked<P: TerminalProgram>(_ program: P) {
        if Task.isCancelled, program.outcome == nil { _ = program.update(.interrupt(signal: SIGINT), now: clock.now) }
    }

    /// Ticks until nothing is due now (bounded), so that input goes to the block that is current
    /// once due timers have fired (a question that advances at once, then its buttons).
    private func settle<P: TerminalProgram>(_ program: P) -> [ProgramOutput] {
        var out = program.update(.tick, now: clock.now)
        var rounds = 0
        while program.outcome == nil, rounds < 64, let d = program.nextDeadline(now: clock.now), d <= clock.now {
            out += program.update(.tick, now: clock.now)
            rounds += 1
        }
        return out
    }

    private func timeout(_ program: some TerminalProgram) -> Double? {
        let now = clock.now
        return program.nextDeadline(now: now).map { max(0, $0 - now) }
    }

    // MARK: TTY

    /// The TTY loop. `readingKeys` false (an app that only draws): the terminal's mode is left as
    /// it is, nothing is read from it and nothing is asked of it (a reply would land in the input
    /// of whoever reads the terminal), so the theme is the given one or `TerminalTheme/safe`.
    private func runTTY<P: TerminalProgram>(_ program: P, readingKeys: Bool = true) async -> ProgramOutcome<P.Value> {
        var screen = TTYScreen(depth: depth)
        screen.renderer.glyphs = glyphs
        screen.asksTerminal = readingKeys
        // Auto theme: ask, and draw meanwhile; the reply is picked out of the input when it comes.
        var awaitingReply = false
        var replyBuffer: [UInt8] = []
        if let theme {
            screen.renderer.theme = theme
        } else if readingKeys {
            terminal.write(TerminalReplies.query)
            awaitingReply = true
        }
        if readingKeys { screen.start(on: terminal) }
        drawingTTY = true
        defer { drawingTTY = false }
        _ = program.start(now: clock.now)
        var hits: [HitRegion<P.Target>] = []
        while true {
            cancelIfAsked(program)
            _ = settle(program)
            // Views have a smallest width; below it the frame is cut so that no row wraps.
            let size = terminal.size
            let columns = max(1, size.columns - 1)
            var frame = program.view(width: columns, height: size.rows, now: clock.now)
            frame.buffer = frame.buffer.cropped(toWidth: columns)
            hits = frame.hits
            if !pendingAbove.isEmpty {
                screen.printAbove(pendingAbove, on: terminal)
                pendingAbove = []
            }
            let outcome = program.outcome
            if outcome != nil { screen.settleResize(on: terminal) }
            switch (outcome, residue) {
            case (.some, .summary):
                screen.draw(program.summary?.buffer(width: columns) ?? ScreenBuffer(width: 1), size: size, on: terminal, now: clock.now)
            case (.some, .nothing):
                screen.draw(ScreenBuffer(width: 1), size: size, on: terminal, now: clock.now)
            default:
                screen.draw(frame.buffer, size: size, on: terminal, now: clock.now)
            }
            if let outcome {
                screen.finish(on: terminal)
                // A reply still on its way would land in the shell's input after we exit: wait
                // for it briefly (a terminal answers in a millisecond or two) and drop it.
                if awaitingReply { drainReply(after: replyBuffer) }
                return outcome
            }
            // Ctrl-Z comes back to the screen, which erases the region before the process stops.
            var wake = await wait(
                timeout: screen.timeout(timeout(program), now: clock.now), wantInput: readingKeys, suspending: false,
                offMainActor: program.runsWhileWaiting)
            // Replies to the start-up query are not typing: taken out before key decoding (a
            // reply split across reads waits, bounded, for its end).
            if case .input(let bytes) = wake, !bytes.isEmpty, awaitingReply || bytes.contains(0x1B) {
                let replies = TerminalReplies.parse(replyBuffer + bytes)
                replyBuffer = []
                var rest = replies.rest
                if awaitingReply, let background = replies.background {
                    screen.renderer.theme = TerminalTheme.forBackground(background)
                    screen.renderer.repaint()
                }
                if replies.done { awaitingReply = false }
                if awaitingReply, let start = TerminalReplies.incompleteTail(rest), rest.count - start <= 256 {
                    replyBuffer = Array(rest[start...])
                    rest.removeSubrange(start...)
                }
                if rest.isEmpty { continue }
                wake = .input(rest)
            }
            switch screen.interpret(wake, on: terminal, now: clock.now) {
            case .keys(let keys):
                for key in KeyDecoder.coalescingPastes(keys) where program.outcome == nil {
                    switch key {
                    case .ctrl("c"):
                        _ = program.update(.interrupt(signal: SIGINT), now: clock.now)
                    case .ctrl("\\"):
                        // In raw mode the quit key is a byte, not SIGQUIT: it ends the program as
                        // the signal does (exit 131), as Ctrl-C does as SIGINT.
                        _ = program.update(.interrupt(signal: SIGQUIT), now: clock.now)
                    case .mouse(let row, let column):
                        // Screen rows → frame rows; without a known origin a click cannot be placed.
                        guard let frameRow = screen.frameRow(forScreenRow: row, on: terminal),
                            let target = HitRegion.target(in: hits, row: frameRow, column: column)
                        else { continue }
                        _ = program.update(.click(target), now: clock.now)
                    default:
                        _ = program.update(.key(key), now: clock.now)
                    }
                }
            case .resized:
                break  // the next frame is laid out at the new width and drawn in full
            case .signal(let s):
                _ = program.update(.interrupt(signal: s), now: clock.now)
            case .ended:
                _ = program.update(.interrupt(signal: SIGHUP), now: clock.now)
            }
        }
    }

    /// Reads and drops the rest of the start-up query's replies, for at most 100 ms.
    private func drainReply(after pending: [UInt8]) {
        var received = pending
        let deadline = clock.now + 0.1
        while clock.now < deadline, received.count < 4096 {
            guard case .input(let bytes) = terminal.wait(timeout: max(0, deadline - clock.now)), !bytes.isEmpty else { return }
            received += bytes
            if TerminalReplies.parse(received).done { return }
        }
    }

    // MARK: Line mode

    /// A line of line mode as the terminal shows it (``glyphs``).
    private func shown(_ line: String) -> String { glyphs == .ascii ? GlyphSet.ascii(line) : line }

    private func emit(_ outputs: [ProgramOutput]) {
        for output in outputs {
            switch output {
            case .say(let line): terminal.write(shown(line) + "\n")
            case .refuse(let message): reportError(shown(message))
            }
        }
    }

    private func runLines<P: TerminalProgram>(_ program: P) async -> ProgramOutcome<P.Value> {
        var input = LineReader(pending: typedAhead.bytes, ended: typedAhead.ended)
        defer { unreadInput = (input.pending, input.ended) }
        var linesRead = 0
        endedWithoutAnswer = false
        emit(program.start(now: clock.now))
        while true {
            cancelIfAsked(program)
            emit(settle(program))
            if let outcome = program.outcome { return outcome }
            let request = program.lineRequest
            if let request {
                // A secret typed on a terminal is not shown: echo off while its line is read.
                terminal.setEcho(!request.secret)
                if let read = input.next() {
                    // The Enter of a secret was not echoed either.
                    if request.secret && isatty(terminal.inputFD) == 1 { terminal.write("\n") }
                    linesRead += 1
                    switch read {
                    case .text(let line): emit(program.update(.line(line), now: clock.now))
                    case .tooLong: reportError(shown(ChoiceParser.tooLong(strings: strings, limit: input.limit)))
                    }
                    continue
                }
                if input.ended {
                    if linesRead == 0 && isatty(terminal.inputFD) != 1 { endedWithoutAnswer = true }
                    emit(program.update(.inputEnded, now: clock.now))
                    continue
                }
            }
            switch await wait(timeout: timeout(program), wantInput: request != nil && !input.ended, offMainActor: program.runsWhileWaiting) {
            case .input(let bytes): input.feed(bytes)
            case .signal(let s): if s != SIGWINCH { emit(program.update(.interrupt(signal: s), now: clock.now)) }
            case .timeout: break
            }
        }
    }
}
