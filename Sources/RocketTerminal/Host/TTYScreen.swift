#if canImport(Glibc)
    import Glibc
#endif

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
/// switch screen.interpret(terminal.wait(timeout: screen.timeout(nil)), on: terminal) { … }
/// ```
public struct TTYScreen: Sendable {
    /// The renderer (its `startRow` maps mouse rows).
    public var renderer: InlineRenderer
    private var decoder = KeyDecoder()

    /// A screen at a colour depth.
    public init(depth: ColorDepth) {
        renderer = InlineRenderer(depth: depth)
    }

    /// Asks where the region starts (answered as a key, consumed by ``interpret(_:on:)``).
    public func start(on terminal: Terminal) {
        terminal.write("\u{1B}[6n")
    }

    /// Writes the changes that bring the screen to `frame`.
    public mutating func draw(_ frame: ScreenBuffer, on terminal: Terminal) {
        terminal.write(renderer.render(frame, screenHeight: terminal.size.rows))
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

    /// The wait timeout: `wanted`, shortened to 50 ms while a lone Esc waits to be resolved.
    public func timeout(_ wanted: Double?) -> Double? {
        decoder.hasPending ? min(wanted ?? 0.05, 0.05) : wanted
    }

    /// The frame row under a screen row (for mouse clicks), once the start row is known.
    public func frameRow(forScreenRow row: Int, on terminal: Terminal) -> Int? {
        renderer.frameRow(forScreenRow: row, screenHeight: terminal.size.rows)
    }

    /// Turns what a wait returned into keys or a session event.
    public mutating func interpret(_ wake: Terminal.Wake, on terminal: Terminal) -> TTYInput {
        var keys: [Key]
        switch wake {
        case .input(let bytes):
            if bytes.isEmpty { return .ended }
            keys = decoder.feed(bytes)
        case .signal(let s):
            guard s == SIGWINCH else { return .signal(s) }
            terminal.write(renderer.invalidate(screenHeight: terminal.size.rows))
            return .resized
        case .timeout:
            keys = decoder.flush()
        }
        keys.removeAll { key in
            if case .cursorPosition(let row, _) = key {
                if renderer.startRow == nil { renderer.startRow = row }
                return true
            }
            return false
        }
        return .keys(keys)
    }
}
