import RocketCore

/// Wall-clock time for scenarios (seconds since 1970, UTC), and the two textual forms the CLI
/// accepts: ISO-8601 (`2026-01-01T00:00:00Z`, offsets and fractions allowed, or a bare date)
/// and `@EPOCHSECONDS`.
///
/// ```swift
/// WallTime.parse("2026-01-01T00:00:00Z")   // 1_767_225_600
/// WallTime.parse("@1767225600")            // 1_767_225_600
/// WallTime.format(1_767_225_600)           // "2026-01-01T00:00:00Z"
/// ```
public enum WallTime {
    /// The instants accepted anywhere: from 0001-01-01 to 9999-12-31T23:59:59Z.
    public static let validRange: ClosedRange<Double> = CivilDate.instants

    /// Seconds since 1970 for a text, or nil when it is neither form or outside ``validRange``.
    public static func parse(_ text: String) -> Double? { parseWithOffset(text)?.instant }

    /// An instant as ``parse(_:)`` reads it, or a duration with its unit (`7d`, `12h`, `90m`) read
    /// as that long before `now`: how a report's `--since` and `--until` are given. Nil for
    /// anything else, or an instant outside ``validRange``.
    public static func parse(_ text: String, orDurationBefore now: Double) -> Double? {
        if let t = parse(text) { return t }
        guard let last = text.last, last.isLetter, let ago = RocketDuration.parse(text), validRange.contains(now - ago) else { return nil }
        return now - ago
    }

    /// The instant a text names and the offset from UTC written with it, in seconds (0 for `Z`,
    /// a bare date and `@SECONDS`): `2026-12-06T09:30+01:00` is 08:30 UTC, written 3,600
    /// seconds ahead of it. Nil as ``parse(_:)``.
    public static func parseWithOffset(_ text: String) -> (instant: Double, offset: Int)? {
        guard let v = CivilDate.instant(fromText: text), validRange.contains(v.instant) else { return nil }
        return v
    }

    /// `YYYY-MM-DDTHH:MM:SS.mmmZ`: ``format(_:)`` to the millisecond (cut, not rounded), as
    /// logs write their times.
    public static func formatMilliseconds(_ seconds: Double) -> String {
        let whole = seconds.rounded(.down)
        let text = format(whole)
        guard text.hasSuffix("Z") else { return text }
        let millis = seconds.isFinite ? min(999, max(0, Int(((seconds - whole) * 1_000).rounded(.down)))) : 0
        return String(text.dropLast()) + "." + String(1000 + millis).dropFirst() + "Z"
    }

    /// `YYYY-MM-DDTHH:MM:SSZ` (whole seconds, UTC); `@SECONDS` for an instant outside
    /// ``validRange`` (which only a store written by something else can hold), never a trap.
    public static func format(_ seconds: Double) -> String {
        guard seconds.isFinite, validRange.contains(seconds) else { return "@\(seconds)" }
        let total = Int(seconds.rounded(.down))
        var days = total / 86_400
        var rest = total % 86_400
        if rest < 0 { rest += 86_400; days -= 1 }
        func two(_ v: Int) -> String { v < 10 ? "0\(v)" : "\(v)" }
        return CivilDate.text(days: days) + "T\(two(rest / 3600)):\(two(rest % 3600 / 60)):\(two(rest % 60))Z"
    }
}
