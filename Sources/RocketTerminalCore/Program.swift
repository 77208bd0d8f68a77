import RocketCore
public import RocketText

/// How any terminal app ended: the one outcome type shared by the conversation, the banner, the
/// alert and the prompts. Its exit status is the same everywhere: 0 when done, 1 when declined,
/// 128 + N for signal N.
public enum ProgramOutcome<Value: Hashable & Sendable>: Hashable, Sendable {
    /// The user finished: a conversation completed, an action or button was chosen, an answer given.
    case done(Value)
    /// The user declined: closed, cancelled, swiped, timed out, or the input ended. A value is
    /// attached when there is one to report (the cancel action's title, the banner's reason).
    case declined(Value?)
    /// Ctrl-C, a signal (its number), or the terminal went away (SIGHUP).
    case interrupted(signal: Int32)

    /// 0 when done, 1 when declined, 128 + signal when interrupted.
    public var exitCode: Int32 {
        switch self {
        case .done: return 0
        case .declined: return 1
        case .interrupted(let s): return 128 + s
        }
    }

    /// The value, done or declined.
    public var value: Value? {
        switch self {
        case .done(let v): return v
        case .declined(let v): return v
        case .interrupted: return nil
        }
    }
}

/// The POSIX signal numbers apps speak of (apps make no system calls, so they do not import the
/// C library for them).
public enum ProgramSignal {
    /// SIGINT: Ctrl-C.
    public static let interrupt: Int32 = 2
}

/// A clickable part of a frame: a row, a range of columns, and what a click there means to the
/// app that drew it. The one hit-region type of every app; the runtime resolves clicks.
public struct HitRegion<Target: Hashable & Sendable>: Hashable, Sendable {
    /// Frame row.
    public var row: Int
    /// Columns covered.
    public var columns: Range<Int>
    /// What a click here means.
    public var target: Target

    /// A region.
    public init(row: Int, columns: Range<Int>, target: Target) {
        self.row = row
        self.columns = columns
        self.target = target
    }

    /// The target of the first region containing the cell, if any.
    public static func target(in regions: [HitRegion], row: Int, column: Int) -> Target? {
        regions.first { $0.row == row && $0.columns.contains(column) }?.target
    }
}

/// What an app draws: the frame and where clicks land.
public struct ProgramFrame<Target: Hashable & Sendable>: Sendable {
    /// The cells (and the cursor, if any).
    public var buffer: ScreenBuffer
    /// Clickable regions, the most specific first.
    public var hits: [HitRegion<Target>]

    /// A frame.
    public init(buffer: ScreenBuffer, hits: [HitRegion<Target>] = []) {
        self.buffer = buffer
        self.hits = hits
    }
}

/// What reaches an app's update step.
public enum ProgramEvent<Target: Hashable & Sendable>: Sendable {
    /// Time passed: run what is due.
    case tick
    /// A key (raw-mode TTY).
    case key(Key)
    /// A click on a region the last frame declared.
    case click(Target)
    /// A line of input (line mode).
    case line(String)
    /// Line mode: the input ended.
    case inputEnded
    /// Ctrl-C, a signal, or the terminal went away.
    case interrupt(signal: Int32)
}

/// What an app asks the runtime to print in line mode.
public enum ProgramOutput: Hashable, Sendable {
    /// A line of the transcript or prompt (stderr in line mode: stdout carries results only).
    case say(String)
    /// Why an input line was refused (stderr, one line).
    case refuse(String)
}

/// What an app waits for in line mode.
public struct LineRequest: Hashable, Sendable {
    /// Read with echo off (a secret).
    public var secret: Bool

    /// A request.
    public init(secret: Bool = false) { self.secret = secret }
}

/// An app of the terminal runtime, in the shape of a Model/Update/View program: the runtime
/// feeds it events and time, draws its view, prints its line-mode output and stops when it has an
/// outcome. Apps make no system calls; `ProgramRunner` is the host that does.
///
/// An app works in one of two modes, set by the runtime before ``start(now:)``: TTY (keys and
/// clicks in, frames out) or line mode (lines in, ``ProgramOutput`` out).
@MainActor
public protocol TerminalProgram: AnyObject {
    /// What the app reports when it ends.
    associatedtype Value: Hashable & Sendable
    /// What a click may hit.
    associatedtype Target: Hashable & Sendable

    /// Line mode (set by the runtime before ``start(now:)``).
    var lineMode: Bool { get set }
    /// Set once the app has ended; the runtime draws the last frame and returns it.
    var outcome: ProgramOutcome<Value>? { get }
    /// Line mode: what the app waits for now (nil while it waits for time only).
    var lineRequest: LineRequest? { get }

    /// Shows the app at `now`.
    func start(now: Double) -> [ProgramOutput]
    /// Applies one event at `now`.
    func update(_ event: ProgramEvent<Target>, now: Double) -> [ProgramOutput]
    /// When the app next needs a `.tick` (absolute time), if ever.
    func nextDeadline(now: Double) -> Double?
    /// The frame at a width.
    func view(width: Int, now: Double) -> ProgramFrame<Target>
    /// The frame at a width, for a screen `height` rows tall. The runtime draws a frame taller
    /// than the screen from its bottom (the rows above go into the scrollback and are never drawn
    /// again), so an app whose focus could end up above the screen (a long list, a banner over a
    /// long conversation) lays out what must be seen within the last `height` rows. Apps that
    /// need no height have the default: ``view(width:now:)``.
    func view(width: Int, height: Int, now: Double) -> ProgramFrame<Target>
    /// True when the app has work that runs on the main actor while the runtime waits for input
    /// (an alert whose actions load): the wait then happens on a thread of its own.
    var runsWhileWaiting: Bool { get }
    /// Once the app has ended: its question and the answer, for the one line a prompt leaves in
    /// the scrollback (`ProgramRunner/residue`); nil when the app has no such line.
    var summary: ProgramSummary? { get }
    /// False for an app that only draws while something else owns the keyboard (a command under
    /// `rocket spin` that may read the terminal): the runtime then leaves the terminal's mode
    /// alone and reads nothing from it; Ctrl-C still arrives, as the signal it then is.
    var readsKeys: Bool { get }
}

extension TerminalProgram {
    /// Most apps draw the same frame at every height.
    public func view(width: Int, height: Int, now: Double) -> ProgramFrame<Target> { view(width: width, now: now) }
    /// Most apps change only when an event reaches them.
    public var runsWhileWaiting: Bool { false }
    /// Apps are not prompts unless they say so.
    public var summary: ProgramSummary? { nil }
    /// Apps read the keys unless they say otherwise.
    public var readsKeys: Bool { true }
}

/// The one line a prompt leaves behind when it ends: the question (if it had one) and the answer,
/// or a cross when it was declined or interrupted.
public struct ProgramSummary: Hashable, Sendable {
    /// The question, title or heading.
    public var question: String?
    /// The answer as the user would read it (a secret is masked).
    public var answer: String

    /// A summary.
    public init(question: String?, answer: String) {
        self.question = question
        self.answer = answer
    }

    /// What a declined or interrupted prompt shows as its answer.
    public static let declinedMark = "✕"
    /// What a secret answer shows (always the same length: the scrollback says nothing of it).
    public static let secretMask = "••••••"

    /// The summary for an outcome: `answer` when done, the declined mark otherwise.
    public static func of<V>(_ outcome: ProgramOutcome<V>?, question: String?, answer: () -> String) -> ProgramSummary? {
        guard let outcome else { return nil }
        let q = question.map { Sanitizer.clean($0.replacingAll("\n", with: " "), keepNewlines: false) }.flatMap { $0.isEmpty ? nil : $0 }
        // One line: the lines of a multi-line answer are joined by a return mark.
        if case .done = outcome {
            return ProgramSummary(question: q, answer: Sanitizer.clean(answer().replacingAll("\n", with: " ⏎ "), keepNewlines: false))
        }
        return ProgramSummary(question: q, answer: declinedMark)
    }

    /// The line, dimmed, at `width`: the question, two spaces, the answer in bold; cut to fit.
    public func buffer(width: Int) -> ScreenBuffer {
        var screen = ScreenBuffer(width: max(1, width))
        let r = screen.addRow()
        var dim = CellStyle()
        dim.dim = true
        var strong = dim
        strong.bold = true
        var column = 0
        if let question {
            let q = DisplayWidth.truncate(question, to: max(1, width - min(DisplayWidth.of(answer), width / 2) - 2))
            column = screen.put(q, row: r, column: 0, style: dim) + 2
        }
        if column < width { screen.put(DisplayWidth.truncate(answer, to: width - column), row: r, column: column, style: strong) }
        return screen
    }
}

/// The one reading of a typed choice among titled options, for every line-mode app: a number
/// (1-based) or a title (case-insensitive, surrounding spaces ignored).
public enum ChoiceParser {
    /// Why a line chose nothing.
    public enum Refusal: Hashable, Sendable, Error {
        /// Not a number in range nor a title.
        case notAChoice(String)
        /// The option exists but cannot be chosen now.
        case unavailable(title: String)

        /// The sentence for stderr.
        public func message(strings: UIStrings, count: Int) -> String {
            switch self {
            case .notAChoice(let line):
                let what = strings.plainNotAChoice.replacingAll("%@", with: "\"\(line)\"")
                return count > 0 ? what + " — " + strings.plainChoose.replacingAll("%d", with: String(count)) : what
            case .unavailable(let title):
                return strings.alertDisabled.replacingAll("%@", with: "\"\(title)\"")
            }
        }
    }

    /// The index chosen by `line` among `titles`; `enabled` (same count, or empty for all)
    /// marks what may be chosen; `aliases` are extra names per index (such as "close").
    public static func parse(_ line: String, titles: [String], enabled: [Bool] = [], aliases: [Int: String] = [:]) -> Result<Int, Refusal> {
        let trimmed = line.trimmingSpaces()
        let lowered = trimmed.lowercased()
        var found: Int?
        if let n = Int(trimmed), n >= 1, n <= titles.count {
            found = n - 1
        } else if let k = titles.firstIndex(where: { $0.lowercased() == lowered }) {
            found = k
        } else if let alias = aliases.filter({ $0.value.lowercased() == lowered }).keys.min() {
            found = alias  // the first in the list when several share the name
        } else {
            // Typed without its accents (`cafe` for `Café`), when that names one title.
            let key = GlyphSet.searchKey(trimmed)
            let folded = titles.indices.filter { GlyphSet.searchKey(titles[$0]) == key }
            if folded.count == 1 { found = folded[0] }
        }
        guard let index = found else { return .failure(.notAChoice(trimmed)) }
        if enabled.indices.contains(index), !enabled[index] { return .failure(.unavailable(title: titles[index])) }
        return .success(index)
    }

    /// Several options of `titles` in one line: the whole line as one choice, else its numbers or
    /// titles separated by commas or spaces (`1, 3`, `tea cake`). The set chosen, or why the line
    /// is not one (an empty line chooses nothing: the caller decides whether that is enough).
    /// `aliases` are extra names per index, as ``parse(_:titles:enabled:aliases:)`` takes.
    public static func parseMany(_ line: String, titles: [String], aliases: [Int: String] = [:]) -> Result<Set<Int>, Refusal> {
        parseInOrder(line, titles: titles, aliases: aliases).map { Set($0) }
    }

    /// The options ``parseMany(_:titles:aliases:)`` reads, in the order the line names them (each
    /// once, where it first comes): `3, 1` is the third, then the first.
    public static func parseInOrder(_ line: String, titles: [String], aliases: [Int: String] = [:]) -> Result<[Int], Refusal> {
        let trimmed = line.trimmingSpaces()
        if trimmed.isEmpty { return .success([]) }
        if case .success(let k) = parse(trimmed, titles: titles, aliases: aliases) { return .success([k]) }
        var chosen: [Int] = []
        var seen: Set<Int> = []
        for token in trimmed.split(whereSeparator: { $0 == "," || $0 == " " || $0 == "\t" }) {
            switch parse(String(token), titles: titles, aliases: aliases) {
            case .success(let k): if seen.insert(k).inserted { chosen.append(k) }
            case .failure(let refusal): return .failure(refusal)
            }
        }
        return .success(chosen)
    }

    /// The message for a line that is longer than the reader keeps.
    public static func tooLong(strings: UIStrings, limit: Int) -> String {
        strings.lineTooLong.replacingAll("%d", with: String(limit / 1024))
    }
}

/// A key-hint line that fits its width: items are dropped whole from the end (never cut
/// mid-word); when not even the first fits, it ends in an ellipsis.
public enum HintLine {
    /// The items joined by `separator`, as many as fit in `width` columns.
    public static func fit(_ items: [String], width: Int, separator: String = "  ·  ") -> String {
        guard width > 0 else { return "" }
        var line = ""
        for item in items {
            let candidate = line.isEmpty ? item : line + separator + item
            if DisplayWidth.of(candidate) <= width {
                line = candidate
            } else {
                break
            }
        }
        if line.isEmpty, let first = items.first { return DisplayWidth.truncate(first, to: width) }
        return line
    }
}
