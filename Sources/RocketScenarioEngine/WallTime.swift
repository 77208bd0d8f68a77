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
    public static let validRange: ClosedRange<Double> = -62_135_596_800...253_402_300_799

    /// Seconds since 1970 for a text, or nil when it is neither form or outside ``validRange``.
    public static func parse(_ text: String) -> Double? {
        guard let v = parseUnchecked(text), validRange.contains(v) else { return nil }
        return v
    }

    private static func parseUnchecked(_ text: String) -> Double? {
        guard text.utf8.count <= 64 else { return nil }
        if text.hasPrefix("@") {
            guard let v = Double(text.dropFirst()), v.isFinite, !text.dropFirst().contains(where: { $0.isLetter }) else { return nil }
            return v
        }
        let chars = Array(text.utf8)
        var i = 0
        func number(_ digits: Int) -> Int? {
            guard i + digits <= chars.count else { return nil }
            var v = 0
            for k in 0..<digits {
                let c = chars[i + k]
                guard c >= 48 && c <= 57 else { return nil }
                v = v * 10 + Int(c - 48)
            }
            i += digits
            return v
        }
        func expect(_ c: Character) -> Bool {
            guard i < chars.count, chars[i] == c.asciiValue! else { return false }
            i += 1
            return true
        }
        guard let year = number(4), expect("-"), let month = number(2), expect("-"), let day = number(2),
            (1...12).contains(month), (1...daysIn(month: month, year: year)).contains(day)
        else { return nil }
        var seconds = Double(daysFromCivil(year, month, day)) * 86_400
        if i == chars.count { return seconds }
        guard expect("T") || expect(" "), let h = number(2), expect(":"), let m = number(2), h < 24, m < 60 else { return nil }
        seconds += Double(h * 3600 + m * 60)
        if expect(":") {
            guard let s = number(2), s < 61 else { return nil }
            seconds += Double(s)
            if expect(".") {
                var scale = 0.1
                var any = false
                while i < chars.count, chars[i] >= 48 && chars[i] <= 57 {
                    seconds += Double(chars[i] - 48) * scale
                    scale /= 10
                    i += 1
                    any = true
                }
                if !any { return nil }
            }
        }
        if expect("Z") { return i == chars.count ? seconds : nil }
        let sign: Double
        if expect("+") { sign = 1 } else if expect("-") { sign = -1 } else { return nil }
        guard let oh = number(2) else { return nil }
        _ = expect(":")
        guard let om = number(2), oh < 24, om < 60, i == chars.count else { return nil }
        return seconds - sign * Double(oh * 3600 + om * 60)
    }

    /// `YYYY-MM-DDTHH:MM:SSZ` (whole seconds, UTC); `@SECONDS` for an instant outside
    /// ``validRange`` (which only a store written by something else can hold), never a trap.
    public static func format(_ seconds: Double) -> String {
        guard seconds.isFinite, validRange.contains(seconds) else { return "@\(seconds)" }
        let total = Int(seconds.rounded(.down))
        var days = total / 86_400
        var rest = total % 86_400
        if rest < 0 { rest += 86_400; days -= 1 }
        let (y, m, d) = civilFromDays(days)
        func two(_ v: Int) -> String { v < 10 ? "0\(v)" : "\(v)" }
        return "\(y)-\(two(m))-\(two(d))T\(two(rest / 3600)):\(two(rest % 3600 / 60)):\(two(rest % 60))Z"
    }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Days since 1970-01-01 (Howard Hinnant's algorithm).
    static func daysFromCivil(_ year: Int, _ month: Int, _ day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    static func civilFromDays(_ days: Int) -> (Int, Int, Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp + (mp < 10 ? 3 : -9)
        return (yoe + era * 400 + (m <= 2 ? 1 : 0), m, d)
    }
}
