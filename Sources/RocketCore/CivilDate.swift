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
}
