import RocketCore
public import RocketText

/// A prompt that gives up when nobody answers: it wraps any app and ends it once `seconds` pass
/// with no key, click or line. Every key, click or line starts the wait again, so a person who is
/// typing is never cut off. A dim line under the frame counts down; line mode says the limit
/// once, at the start. What a timeout means (a default answer, or exit 124) is the host's to
/// decide from ``timedOut``.
///
/// ```swift
/// let app = PromptTimeout(ChooseApp(…), seconds: 30, question: "Colour", strings: .english)
/// let outcome = await runner.run(app, lineMode: false)
/// if app.timedOut { … }   // outcome is .declined(nil)
/// ```
@MainActor
public final class PromptTimeout<Inner: TerminalProgram>: TerminalProgram {
    /// The wrapped app's value.
    public typealias Value = Inner.Value
    /// The wrapped app's click targets.
    public typealias Target = Inner.Target

    /// The wrapped app.
    public let inner: Inner
    /// How long the prompt waits for a key, a click or a line.
    public let seconds: Double
    /// The question, for the line a timed-out prompt leaves.
    public let question: String?
    /// What the line a timed-out prompt leaves says before "timed out" (the default it answers
    /// with), if anything.
    public var answerOnTimeout: String?
    /// True once the wait ran out before the wrapped app ended.
    public private(set) var timedOut = false
    private let strings: UIStrings
    private var deadline = Double.infinity

    /// Wraps `inner`, which gives up after `seconds` without input.
    public init(_ inner: Inner, seconds: Double, question: String?, strings: UIStrings) {
        self.inner = inner
        self.seconds = seconds
        self.question = question
        self.strings = strings
    }

    /// The wrapped app's mode.
    public var lineMode: Bool {
        get { inner.lineMode }
        set { inner.lineMode = newValue }
    }

    /// `.declined(nil)` once timed out, else the wrapped app's outcome.
    public var outcome: ProgramOutcome<Value>? { timedOut ? .declined(nil) : inner.outcome }

    /// Nothing once timed out, else what the wrapped app waits for.
    public var lineRequest: LineRequest? { timedOut ? nil : inner.lineRequest }

    /// The wrapped app's, which may load while it waits.
    public var runsWhileWaiting: Bool { inner.runsWhileWaiting }

    /// The wrapped app's summary; once timed out, the question and "timed out".
    public var summary: ProgramSummary? {
        guard timedOut else { return inner.summary }
        let said = [answerOnTimeout, strings.timedOut].compactMap { $0 }.joined(separator: " · ")
        return ProgramSummary(question: question.flatMap { $0.isEmpty ? nil : Sanitizer.clean($0, keepNewlines: false) }, answer: said)
    }

    /// Starts the wrapped app and the wait; line mode says the limit.
    public func start(now: Double) -> [ProgramOutput] {
        deadline = now + seconds
        var out = inner.start(now: now)
        if lineMode { out.append(.say("(" + strings.timesOutIn.replacingAll("%@", with: RocketDuration.format(seconds)) + ")")) }
        return out
    }

    /// Input starts the wait again; a tick past the deadline ends the prompt.
    public func update(_ event: ProgramEvent<Target>, now: Double) -> [ProgramOutput] {
        guard !timedOut else { return [] }
        switch event {
        case .key, .click, .line: deadline = now + seconds
        case .tick where now >= deadline && inner.outcome == nil:
            timedOut = true
            return []
        default: break
        }
        return inner.update(event, now: now)
    }

    /// The wrapped app's next deadline, this prompt's, and (drawn on a terminal) the next whole
    /// second of the countdown.
    public func nextDeadline(now: Double) -> Double? {
        guard !timedOut, inner.outcome == nil else { return inner.nextDeadline(now: now) }
        var next = deadline
        if !lineMode {
            // The countdown shows whole seconds, rounded up: it changes when the rest crosses one.
            let left = deadline - now
            let step = left - (left.rounded(.up) - 1)
            if step > 0 && step < left { next = now + step }
        }
        return [inner.nextDeadline(now: now), next].compactMap { $0 }.min()
    }

    /// The wrapped app's frame with the countdown under it.
    public func view(width: Int, now: Double) -> ProgramFrame<Target> {
        counted(inner.view(width: width, now: now), width: width, now: now)
    }

    /// The wrapped app's frame, a row shorter, with the countdown under it.
    public func view(width: Int, height: Int, now: Double) -> ProgramFrame<Target> {
        counted(inner.view(width: width, height: max(1, height - 1), now: now), width: width, now: now)
    }

    private func counted(_ inner: ProgramFrame<Target>, width: Int, now: Double) -> ProgramFrame<Target> {
        var frame = inner
        guard !timedOut, self.inner.outcome == nil, width > 2 else { return frame }
        // Lined up with the frame's last row (the key hint, as a rule).
        let indent = min(width - 2, frame.buffer.rows.last.map { row in row.prefix { $0.text == " " }.count } ?? 2)
        let r = frame.buffer.addRow()
        var dim = CellStyle()
        dim.dim = true
        frame.buffer.put(DisplayWidth.truncate(remainingText(max(0, deadline - now)), to: width - indent), row: r, column: indent, style: dim)
        return frame
    }

    /// The wrapped app's.
    public var readsKeys: Bool { inner.readsKeys }

    private func remainingText(_ left: Double) -> String {
        strings.timesOutIn.replacingAll("%@", with: RocketDuration.format(max(1, left.rounded(.up))))
    }
}
