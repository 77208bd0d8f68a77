import RocketCore
public import RocketTerminalCore

/// `rocket spin`: a spinner and a title while a command runs, in the banners' manner: shown only
/// when the work takes longer than `showAfter`, then kept up for at least `minDisplay`, so quick
/// work never flashes. The app makes no system calls: `status` tells it whether the command has
/// ended (nil while it runs; a query, it never calls back into the app).
///
/// Done with the command's exit status; Ctrl-C (the signal, which the command gets too) or another
/// signal interrupts it, and the host then stops the command (`rocket spin`: SIGTERM, then
/// SIGKILL). The app reads no keys: the command owns the terminal while it runs. In line mode
/// nothing is drawn: the command's output goes straight through.
@MainActor
public final class SpinApp: TerminalProgram {
    /// See `TerminalProgram/lineMode`.
    public var lineMode = false
    let title: String
    let showAfter: Double
    let minDisplay: Double
    let status: () -> Int32?
    private var startedAt = 0.0
    private var shownAt: Double?
    private var result: ProgramOutcome<Int32>?
    /// The spinner's frames, one every ``frameInterval`` seconds.
    public static let frames: [String] = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"]
    /// Seconds per spinner frame.
    public static let frameInterval = 0.08
    /// How often the command is checked for its end.
    public static let pollInterval = 0.02

    /// A spinner over a running command.
    public init(title: String, showAfter: Double, minDisplay: Double, status: @escaping () -> Int32?) {
        self.title = title
        self.showAfter = showAfter
        self.minDisplay = minDisplay
        self.status = status
    }

    /// See `TerminalProgram/outcome`.
    public var outcome: ProgramOutcome<Int32>? { result }
    /// See `TerminalProgram/lineRequest`: a spinner reads no lines.
    public var lineRequest: LineRequest? { nil }
    /// See `TerminalProgram/readsKeys`: the command owns the keyboard while it runs (it gets
    /// every key; Ctrl-C is the signal it then is, for both).
    public var readsKeys: Bool { false }

    /// True while the spinner is on screen.
    public var isShown: Bool { shownAt != nil }

    /// See `TerminalProgram/start(now:)`.
    public func start(now: Double) -> [ProgramOutput] {
        startedAt = now
        if !lineMode && showAfter <= 0 { shownAt = now }
        return []
    }

    /// See `TerminalProgram/update(_:now:)`.
    public func update(_ event: ProgramEvent<Int>, now: Double) -> [ProgramOutput] {
        guard result == nil else { return [] }
        switch event {
        case .interrupt(let s):
            result = .interrupted(signal: s)
        default:
            if let code = status() {
                // Shown: stay up for the minimum, so it does not flash.
                if let shownAt, now < shownAt + minDisplay { return [] }
                result = .done(code)
            } else if shownAt == nil && !lineMode && now >= startedAt + showAfter {
                shownAt = now
            }
        }
        return []
    }

    /// See `TerminalProgram/nextDeadline(now:)`.
    public func nextDeadline(now: Double) -> Double? {
        if lineMode { return now + SpinApp.pollInterval * 5 }
        if let shownAt {
            // The next frame; after the command ended, the end of the minimum display time.
            if status() != nil { return max(now, shownAt + minDisplay) }
            return now + min(SpinApp.frameInterval, SpinApp.pollInterval * 2)
        }
        return min(now + SpinApp.pollInterval, startedAt + showAfter)
    }

    /// See `TerminalProgram/view(width:now:)`: nothing until shown, then the spinner and the title.
    public func view(width: Int, now: Double) -> ProgramFrame<Int> {
        var buffer = ScreenBuffer(width: max(4, width))
        guard let shownAt, result == nil else { return ProgramFrame(buffer: buffer) }
        let steps = max(0, min(1e9, ((now - shownAt) / SpinApp.frameInterval).rounded(.down)))
        let frame = Int(steps) % SpinApp.frames.count
        let r = buffer.addRow()
        let column = buffer.put(SpinApp.frames[max(0, frame)], row: r, column: 0, style: CellStyle(foreground: .indexed(33), bold: true))
        let text = DisplayWidth.truncate(Sanitizer.clean(title, keepNewlines: false), to: max(1, buffer.width - column - 1))
        buffer.put(text, row: r, column: column + 1)
        return ProgramFrame(buffer: buffer)
    }
}
