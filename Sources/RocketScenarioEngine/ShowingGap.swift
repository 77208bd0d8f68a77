import RocketCore

/// The least time between any two flows shown to one person (`--min-gap`, Braze's idea), kept in
/// the scenario store as the events of one scenario per person (`rocket.shown`, or
/// `rocket.shown@VISITOR` on a server): events, not executions, so the showings never count
/// toward a budget. The same rule for `rocket play` and `rocket serve`, on whatever store they use.
///
/// ```swift
/// let gap = ShowingGap(seconds: 30)
/// if let why = try gap.refusal(in: store, visitor: "v1", at: now) { print(why.reason) }
/// try gap.recordShowing(in: store, visitor: "v1", at: now)
/// ```
public struct ShowingGap: Hashable, Sendable {
    /// The least seconds between two showings.
    public var seconds: Double

    /// A gap of `seconds`.
    public init(seconds: Double) { self.seconds = seconds }

    /// The scenario whose events are the showings of `visitor` (nil: the store's one person).
    public static func scenarioName(visitor: String?) -> String { visitor.map { "rocket.shown@" + $0 } ?? "rocket.shown" }

    /// Why nothing may be shown at `now`, and when something may; nil when the gap has passed.
    public func refusal(in store: any ScenarioStore, visitor: String?, at now: Double) throws(ScenarioStoreError) -> (reason: String, earliest: Double)? {
        guard seconds > 0, let last = try store.stats(Self.scenarioName(visitor: visitor)).lastEventDate, now - last < seconds else { return nil }
        let reason = "another flow was shown \(RocketDuration.format(max(0, now - last))) ago; the gap is \(RocketDuration.format(seconds))"
        return (reason, last + seconds)
    }

    /// Records that something was shown at `now`.
    public func recordShowing(in store: any ScenarioStore, visitor: String?, at now: Double) throws(ScenarioStoreError) {
        guard seconds > 0 else { return }
        try store.triggerEvent(Self.scenarioName(visitor: visitor), at: now)
    }
}
