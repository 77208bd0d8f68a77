import RocketCore

/// A daily window of local time in which a flow is not shown: `from` up to (not including)
/// `to`, both `HH:MM` on a 24-hour clock; a window that ends before it begins runs past midnight
/// (`22:00`–`08:00`). The local time is the visitor's when their page gives its offset from UTC,
/// else the host's.
///
/// ```swift
/// let q = RocketQuietHours(from: "22:00", to: "08:00")
/// q.contains(minuteOfDay: 23 * 60)   // true
/// ```
public struct RocketQuietHours: Hashable, Sendable {
    /// Where the window begins (`HH:MM`).
    public var from: String
    /// Where it ends (`HH:MM`), not included.
    public var to: String

    /// Creates a window.
    public init(from: String, to: String) {
        self.from = from
        self.to = to
    }

    /// The minute of the day `HH:MM` names (00:00 to 23:59), or nil when it names none.
    public static func minutes(_ text: String) -> Int? {
        let u = Array(text.utf8)
        guard u.count == 5, u[2] == 0x3A, [u[0], u[1], u[3], u[4]].allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        let h = Int(u[0] - 0x30) * 10 + Int(u[1] - 0x30), m = Int(u[3] - 0x30) * 10 + Int(u[4] - 0x30)
        guard h < 24, m < 60 else { return nil }
        return h * 60 + m
    }

    /// True when minute `m` of the local day (0 to 1439) is inside the window (an empty window,
    /// `from` equal to `to`, holds nothing).
    public func contains(minuteOfDay m: Int) -> Bool {
        guard let f = Self.minutes(from), let t = Self.minutes(to), f != t else { return false }
        return f < t ? (f <= m && m < t) : (m >= f || m < t)
    }

    /// Why a flow is not shown at wall time `now` (seconds since 1970) where local time is
    /// `utcOffset` seconds ahead of UTC, and the instant the window ends; nil outside it.
    public func refusal(at now: Double, utcOffset: Int) -> (reason: String, earliest: Double)? {
        guard now.isFinite, abs(now) < 1e14, let t = Self.minutes(to) else { return nil }
        let local = now + Double(utcOffset)
        let secondOfDay = local - (local / 86_400).rounded(.down) * 86_400
        let minute = Int(secondOfDay / 60)
        guard contains(minuteOfDay: minute) else { return nil }
        var wait = Double(t * 60) - secondOfDay
        if wait <= 0 { wait += 86_400 }
        let clock = String(minute / 60 + 100).dropFirst() + ":" + String(minute % 60 + 100).dropFirst()
        return ("quiet hours \(from)–\(to) (it is \(clock) there)", now + wait)
    }
}
