#if canImport(Glibc)
    import Glibc
#endif
public import RocketTerminalCore

/// What a raw-mode session got from one wait, after the shared handling: cursor-position
/// reports are consumed, a resize has already cleared the screen for a full redraw.
public enum TTYInput: Sendable {
    /// Keys to handle (possibly none: a timeout with nothing pending).
    case keys([Key])
    /// The terminal was resized: update the layout width; the next frame is drawn in full.
    case resized
    /// A termination signal (SIGINT, SIGTERM, SIGHUP).
    case signal(Int32)
    /// The input ended (the terminal went away).
    case ended
}

/// The part every raw-mode session shares: the inline renderer, the key decoder, the
/// cursor-position query that maps mouse rows, and resize handling. Sessions differ only in
/// what they draw and what keys mean.
///
/// ```swift
/// var screen = TTYScreen(depth: .truecolor)
/// screen.start(on: terminal)
/// screen.draw(frame, on: terminal)
/// switch screen.interpret(terminal.wait(timeout: screen.timeout(nil), suspending: false), on: terminal) { … }
/// ```
public struct TTYScreen: Sendable {
    /// The renderer (its `startRow` maps mouse rows).
    public var renderer: InlineRenderer
    private var decoder = KeyDecoder()
    /// After a resize: the cursor-position reports still to come, and until when to wait for the
    /// last one before redrawing without it.
    private var resizeReports = 0
    private var resizeDeadline = 0.0
    /// How long a resize waits for the terminal's cursor-position report (terminals answer in a
    /// millisecond or two; one that never does gets the full redraw of `InlineRenderer/invalidate(screenHeight:)`).
    public static let resizeReportWait = 0.15
    /// False when nothing reads the terminal's answers (the app reads no keys): a resize then
    /// redraws in full without asking.
    public var asksTerminal = true

    /// A screen at a colour depth.
    public init(depth: ColorDepth) {
        renderer = InlineRenderer(depth: depth)
    }

    /// Asks where the region starts (answered as a key, consumed by ``interpret(_:on:now:)``).
    public func start(on terminal: Terminal) {
        terminal.write("\u{1B}[6n")
    }

    /// Writes the changes that bring the screen to `frame` (nothing while a resize waits for
    /// the terminal to say where the cursor went).
    public mutating func draw(_ frame: ScreenBuffer, on terminal: Terminal, now: Double = 0) {
        draw(frame, size: terminal.size, on: terminal, now: now)
    }

    /// ``draw(_:on:now:)`` with the terminal's size already asked for (one `ioctl` per frame).
    public mutating func draw(_ frame: ScreenBuffer, size: (columns: Int, rows: Int), on terminal: Terminal, now: Double = 0) {
        // The size changed before its signal arrived: a resize all the same (a frame drawn in
        // place now would land on rows the terminal has just re-wrapped).
        if let drawn = drawnSize, drawn != size, resizeReports == 0 { beginResize(on: terminal, now: now) }
        guard resizeReports == 0 else { return }
        drawnSize = size
        terminal.write(renderer.render(frame, screenHeight: size.rows))
    }

    private var drawnSize: (columns: Int, rows: Int)?  // the size the last frame was drawn at

    /// Stops waiting for a resize's report (the app has ended: its last frame is drawn now, in
    /// full from the top of the screen).
    public mutating func settleResize(on terminal: Terminal) {
        guard resizeReports > 0 else { return }
        resizeReports = 0
        terminal.write(renderer.invalidate(screenHeight: terminal.size.rows))
    }

    /// Asks where the cursor went after a resize, and holds drawing until the answer (or the wait) ends.
    private mutating func beginResize(on terminal: Terminal, now: Double) {
        drawnSize = terminal.size  // this size is being dealt with
        guard asksTerminal else {
            terminal.write(renderer.invalidate(screenHeight: terminal.size.rows))
            return
        }
        terminal.write("\u{1B}[6n")
        resizeReports += 1
        resizeDeadline = now + Self.resizeReportWait
    }

    /// Writes lines above the live region (which moves down under them), then asks again where
    /// the region starts, for mouse rows.
    public mutating func printAbove(_ lines: [String], on terminal: Terminal) {
        guard !lines.isEmpty else { return }
        terminal.write(renderer.printAbove(lines))
        terminal.write("\u{1B}[6n")
    }

    /// Leaves the cursor below the region, styles reset, the cursor shown.
    public mutating func finish(on terminal: Terminal) {
        terminal.write(renderer.finish())
    }

    /// The wait timeout: `wanted`, shortened to 50 ms while a lone Esc waits to be resolved, and
    /// to the rest of ``resizeReportWait`` while a resize waits for its report.
    public func timeout(_ wanted: Double?, now: Double = 0) -> Double? {
        var t = decoder.hasPending ? min(wanted ?? 0.05, 0.05) : wanted
        if resizeReports > 0 { t = min(t ?? .infinity, max(0, resizeDeadline - now)) }
        return t
    }

    /// The frame row under a screen row (for mouse clicks), once the start row is known.
    public func frameRow(forScreenRow row: Int, on terminal: Terminal) -> Int? {
        renderer.frameRow(forScreenRow: row, screenHeight: terminal.size.rows)
    }

    /// Turns what a wait returned into keys or a session event.
    ///
    /// A resize asks the terminal where the cursor went and draws nothing until it answers: the
    /// answer places the region again (`InlineRenderer/resize(cursorRow:width:screenHeight:)`),
    /// so rows a re-wrapping terminal pushed into its scrollback are not drawn twice. Without an
    /// answer within ``resizeReportWait`` the screen is erased and the frame redrawn in full.
    public mutating func interpret(_ wake: Terminal.Wake, on terminal: Terminal, now: Double = 0) -> TTYInput {
        var keys: [Key]
        switch wake {
        case .input(let bytes):
            if bytes.isEmpty { return .ended }
            keys = decoder.feed(bytes)
        case .signal(SIGTSTP):
            // Ctrl-Z (from a wait with `suspending: false`): the region is erased so that the
            // shell's lines take its place, the process stops, and once continued the frame is
            // drawn again as a new region where the cursor is then.
            resizeReports = 0
            terminal.suspend(writingFirst: renderer.suspend())
            drawnSize = terminal.size
            if asksTerminal { start(on: terminal) }
            return .resized
        case .signal(let s):
            guard s == SIGWINCH else { return .signal(s) }
            beginResize(on: terminal, now: now)
            return .resized
        case .timeout:
            keys = decoder.flush()
            if resizeReports > 0 && now >= resizeDeadline {
                resizeReports = 0
                terminal.write(renderer.invalidate(screenHeight: terminal.size.rows))
                return .resized
            }
        }
        var placed = false
        keys.removeAll { key in
            if case .cursorPosition(let row, _) = key {
                if resizeReports > 0 {
                    resizeReports -= 1
                    // The last report after the last resize is the one that tells where things are.
                    if resizeReports == 0 {
                        let size = terminal.size
                        terminal.write(renderer.resize(cursorRow: row, width: size.columns, screenHeight: size.rows))
                        placed = true
                    }
                } else if renderer.startRow == nil {
                    renderer.place(reportedRow: row)
                }
                return true
            }
            return false
        }
        return placed && keys.isEmpty ? .resized : .keys(keys)
    }
}
