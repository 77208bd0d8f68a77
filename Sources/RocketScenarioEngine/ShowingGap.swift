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

/// A budget (``InterruptionBudget``) counted per visitor on a server: the executions of every
/// scenario of one visitor, kept as the events of `rocket.executed@VISITOR`. The store's own
/// budget log counts executions across everyone, which on a server lets one client, starting
/// gated flows as new anonymous visitors, use up a budget meant to spare each person, so that
/// every gated flow stops for all. The budget of a flow is checked against the visitor's
/// executions before the scenario decides; each execution is recorded after it.
///
/// ```swift
/// let budget = VisitorBudget(visitor: "v1")
/// let check = try budget.check(InterruptionBudget(executions: 3, seconds: 86_400), in: store, at: now)
/// if check.allowed { /* decide the scenario, then */ try budget.recordExecution(in: store, at: now) }
/// ```
public struct VisitorBudget: Hashable, Sendable {
    /// The visitor.
    public var visitor: String

    /// The budget of `visitor`.
    public init(visitor: String) { self.visitor = visitor }

    /// The scenario whose events are the visitor's executions.
    public var scenarioName: String { "rocket.executed@" + visitor }

    /// The budget's check at `now`: the decision of ``ScenarioEvaluator`` over the visitor's
    /// executions in the window (the newest ``ScenarioStats/recentLimit`` of them), with its
    /// explanation and the earliest time it passes.
    public func check(_ budget: InterruptionBudget, in store: any ScenarioStore, at now: Double) throws(ScenarioStoreError) -> ScenarioDecision {
        let executed = try store.stats(scenarioName).recentEvents.filter { $0 > now - budget.seconds && $0 <= now }
        return ScenarioEvaluator.evaluate(rules: ScenarioRules(budget: budget), stats: ScenarioStats(), recentExecutions: executed, now: now)
    }

    /// Records an execution of any of the visitor's scenarios at `now`.
    public func recordExecution(in store: any ScenarioStore, at now: Double) throws(ScenarioStoreError) {
        try store.triggerEvent(scenarioName, at: now)
    }
}

/// A person's "not now" to one flow: a press of a button with a `snooze` keeps the flow from
/// being shown to them again until a moment ("Remind me later": a week; "No thanks": forever).
/// It is kept in the scenario store as an event of `rocket.snoozed.FLOW` (per visitor on a
/// server: `rocket.snoozed.FLOW@VISITOR`, erased with the visitor) timed at that moment, so the
/// scenario's last event says until when, and a later press wins, a shorter one included (the
/// person changed their mind). Forever is the last instant a time may name (9999-12-31).
///
/// ```swift
/// try FlowSnooze.record(in: store, flow: "rate-us", visitor: "v1", seconds: 7 * 86_400, at: now)
/// try FlowSnooze.refusal(in: store, flow: "rate-us", visitor: "v1", at: now + 60)   // ("snoozed until …", earliest: now + 7d)
/// ```
public enum FlowSnooze {
    /// The scenario whose last event is the end of the snooze of `flow` for `visitor` (nil: the
    /// store's one person).
    public static func scenarioName(flow: String, visitor: String?) -> String {
        "rocket.snoozed." + flow + (visitor.map { "@" + $0 } ?? "")
    }

    /// The moment a snooze of `seconds` (`infinity`: forever) pressed at `now` ends.
    public static func until(seconds: Double, at now: Double) -> Double {
        guard seconds.isFinite, now.isFinite else { return WallTime.validRange.upperBound }
        return min(now + max(0, seconds), WallTime.validRange.upperBound)
    }

    /// Why `flow` is not shown to `visitor` at `now`, and from when it may be (nil: never);
    /// nil when it is not snoozed.
    public static func refusal(
        in store: any ScenarioStore, flow: String, visitor: String?, at now: Double
    ) throws(ScenarioStoreError) -> (
        reason: String, earliest: Double?
    )? {
        guard let until = try store.stats(scenarioName(flow: flow, visitor: visitor)).lastEventDate, until > now else { return nil }
        if until >= WallTime.validRange.upperBound { return ("asked not to be shown it again", nil) }
        return ("snoozed until \(WallTime.format(until.rounded(.up)))", until)
    }

    /// Records a press at `now` of a snooze of `seconds`.
    public static func record(in store: any ScenarioStore, flow: String, visitor: String?, seconds: Double, at now: Double) throws(ScenarioStoreError) {
        try store.triggerEvent(scenarioName(flow: flow, visitor: visitor), at: until(seconds: seconds, at: now))
    }
}
