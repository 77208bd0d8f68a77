/// The civil (proleptic Gregorian) calendar as a count of days: the one conversion between a day
/// and its year, month and day of the month, for every date the package reads, steps or writes
/// (instants, typed dates, reports by day), after Howard Hinnant's algorithms.
///
/// ```swift
/// CivilDate.days(year: 2026, month: 12, day: 6)   // 20_428
/// CivilDate.text(days: 20_428)                     // "2026-12-06"
/// ```
package enum CivilDate {
    /// The instants (seconds since 1970, UTC) of the years 1 to 9999: 0001-01-01T00:00:00Z to
    /// 9999-12-31T23:59:59Z, the times accepted anywhere.
    package static let instants: ClosedRange<Double> = -62_135_596_800...253_402_300_799

    /// Days since 1970-01-01 of a year, a month (1–12) and a day of it (negative before 1970).
    package static func days(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    /// The year, month and day of the month of `days` since 1970-01-01.
    package static func date(days: Int) -> (year: Int, month: Int, day: Int) {
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

    /// The days of a month (1–12) of a year.
    package static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// The day of the week of `days` since 1970-01-01: Monday 1 to Sunday 7, as ISO 8601
    /// counts (1970-01-01 was a Thursday, 4).
    package static func weekday(days: Int) -> Int { ((days % 7) + 7 + 3) % 7 + 1 }

    /// `YYYY-MM-DD` of `days` since 1970-01-01 (the year padded to four digits).
    package static func text(days: Int) -> String {
        let (y, m, d) = date(days: days)
        return pad(y, 4) + "-" + pad(m, 2) + "-" + pad(d, 2)
    }

    /// `HH:MM` of the time of day `minutes` after midnight (0 to 1439): how every time of day
    /// is written (typed answers, `time()`, a time input's steps).
    package static func clock(minutes: Int) -> String {
        pad(minutes / 60, 2) + ":" + pad(minutes % 60, 2)
    }

    private static func pad(_ v: Int, _ width: Int) -> String {
        let t = String(v)
        return String(repeating: "0", count: max(0, width - t.count)) + t
    }

    /// The instant an ISO-8601 text names (`2026-01-01`, `2026-01-01T09:30Z`, seconds and a
    /// fraction of them allowed, `Z` or an offset such as `+01:00`), or `@SECONDS`, with the
    /// offset from UTC written with it in seconds (0 for `Z`, a bare date and `@SECONDS`); nil for
    /// anything else. Any year of four digits: callers bound the range they take.
    package static func instant(fromText text: String) -> (instant: Double, offset: Int)? {
        guard text.utf8.count <= 64 else { return nil }
        if text.hasPrefix("@") {
            guard let v = Double(text.dropFirst()), v.isFinite, !text.dropFirst().contains(where: { $0.isLetter }) else { return nil }
            return (v, 0)
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
        var seconds = Double(days(year: year, month: month, day: day)) * 86_400
        if i == chars.count { return (seconds, 0) }
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
        if expect("Z") { return i == chars.count ? (seconds, 0) : nil }
        let sign: Double
        if expect("+") { sign = 1 } else if expect("-") { sign = -1 } else { return nil }
        guard let oh = number(2) else { return nil }
        _ = expect(":")
        guard let om = number(2), oh < 24, om < 60, i == chars.count else { return nil }
        let offset = (sign < 0 ? -1 : 1) * (oh * 3600 + om * 60)
        return (seconds - Double(offset), offset)
    }
}
