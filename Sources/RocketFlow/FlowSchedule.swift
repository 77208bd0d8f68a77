import RocketScenarioEngine
import RocketCore

/// When a flow may be shown at all: from one moment (included) until another (not included),
/// as a campaign runs between two dates. Each moment is written with its offset from UTC
/// (`2026-12-10T09:00:00+01:00`, `2027-01-06T00:00Z`), so it names one instant for every visitor
/// and host, whatever their time zone and its summer time. Either end may be left open.
///
/// ```swift
/// let s = RocketSchedule(from: "2026-12-10T09:00+01:00", until: "2027-01-06T00:00Z")
/// s.refusal(at: RocketSchedule.instant("2026-12-01T00:00Z")!)   // ("scheduled from …", earliest: its start)
/// ```
public struct RocketSchedule: Hashable, Sendable {
    /// The first moment it may be shown, as written; nil: from always.
    public var from: String?
    /// The moment from which it is no longer shown, as written; nil: for ever.
    public var until: String?

    /// Creates a schedule.
    public init(from: String? = nil, until: String? = nil) {
        self.from = from
        self.until = until
    }

    /// Seconds since 1970 for a moment as a schedule writes it: a day, a time of day (seconds
    /// and a fraction optional) and an offset, `YYYY-MM-DDTHH:MM[:SS[.fff]](Z|±HH:MM)`; nil for
    /// anything else (a day alone, a time without its offset, `@SECONDS`).
    public static func instant(_ text: String) -> Double? { moment(text)?.instant }

    /// A moment as a schedule writes it, read: its instant and the offset written with it.
    private static func moment(_ text: String) -> (instant: Double, offset: Int)? {
        let u = Array(text.utf8.prefix(64))
        // "YYYY-MM-DDT" first: WallTime would take a day alone, or the epoch form.
        guard u.count > 16, u[10] == UInt8(ascii: "T") || u[10] == UInt8(ascii: "t") else { return nil }
        var normal = text
        if u[10] == UInt8(ascii: "t") { normal = String(decoding: u[..<10] + [UInt8(ascii: "T")] + u[11...], as: UTF8.self) }
        if normal.hasSuffix("z") { normal = String(normal.dropLast()) + "Z" }
        return WallTime.parseWithOffset(normal)
    }

    /// The local time a moment as a schedule writes it names: its instant plus the offset from
    /// UTC written with it (`2026-12-06T09:30+01:00` is 09:30 there), as seconds since
    /// 1970-01-01T00:00 local; nil when ``instant(_:)`` is.
    public static func localSeconds(_ text: String) -> Double? {
        moment(text).map { $0.instant + Double($0.offset) }
    }

    /// A moment as a schedule writes it: `instant` (seconds since 1970) in the local time
    /// `utcOffset` seconds ahead of UTC, with that offset (`2026-12-06T09:30:00+01:00`; `Z` for
    /// UTC), whole seconds; what ``localSeconds(_:)`` reads back.
    public static func moment(_ instant: Double, utcOffset: Int) -> String {
        let local = WallTime.format((instant + Double(utcOffset)).rounded(.down))
        guard local.hasSuffix("Z") else { return local }
        guard utcOffset != 0 else { return local }
        return String(local.dropLast()) + (utcOffset < 0 ? "-" : "+") + CivilDate.clock(minutes: abs(utcOffset) / 60)
    }

    /// The start as seconds since 1970 (nil when open or unreadable).
    public var start: Double? { from.flatMap(Self.instant) }
    /// The end as seconds since 1970 (nil when open or unreadable).
    public var end: Double? { until.flatMap(Self.instant) }

    /// True when the schedule has ended at `now`: nothing it gates is shown again.
    public func hasEnded(at now: Double) -> Bool { end.map { now >= $0 } ?? false }

    /// Why a flow is not shown at wall time `now` (seconds since 1970), and from when it may be
    /// (nil once the schedule has ended: never again); nil inside the schedule.
    public func refusal(at now: Double) -> (reason: String, earliest: Double?)? {
        guard now.isFinite else { return nil }
        if let start, now < start, let from { return ("scheduled from \(from)", start) }
        if let end, now >= end, let until { return ("its schedule ended at \(until)", nil) }
        return nil
    }
}
