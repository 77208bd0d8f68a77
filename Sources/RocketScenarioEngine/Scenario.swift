/// A scenario named by a string, with its rules and an optional custom condition: what flow
/// files and the CLI use, and what a ``Scenario`` type turns into.
///
/// ```swift
/// let askReview = NamedScenario("ask-review", rules: ScenarioRules(minEventsRequired: 5, maxExecutionsPermitted: 3))
/// try askReview.triggerEvent(in: store, at: now)
/// let shown = try askReview.tryToExecute(in: store, at: now)
/// ```
public struct NamedScenario: Sendable {
    /// The stable name statistics are stored under.
    public var name: String
    /// The rules.
    public var rules: ScenarioRules
    /// Called on every try, even when another check fails (the original's `customConditions`).
    public var customCondition: (@Sendable () -> Bool)?

    /// Creates a scenario.
    public init(_ name: String, rules: ScenarioRules = ScenarioRules(), customCondition: (@Sendable () -> Bool)? = nil) {
        self.name = name
        self.rules = rules
        self.customCondition = customCondition
    }

    /// Counts an event; checks nothing.
    public func triggerEvent(in store: any ScenarioStore, at now: Double) throws(ScenarioStoreError) {
        try store.triggerEvent(name, at: now)
    }

    /// Tries to execute: when every condition passes, this try *is* the execution (count + 1,
    /// time recorded) before it returns true.
    public func tryToExecute(in store: any ScenarioStore, at now: Double) throws(ScenarioStoreError) -> Bool {
        try decide(in: store, at: now).allowed
    }

    /// Tries to execute and returns the whole decision (every check, the earliest time it could pass).
    ///
    /// The custom condition is app code, so it runs first, outside any store lock (it may read
    /// this or any other scenario's statistics); then the store decides and records atomically
    /// with the condition's answer.
    @discardableResult
    public func decide(in store: any ScenarioStore, at now: Double) throws(ScenarioStoreError) -> ScenarioDecision {
        try decide(in: store, at: now, countingEventOf: nil)
    }

    /// ``decide(in:at:)``; when it executes, an event of scenario `other` is counted too (a
    /// server's log of what it showed a visitor), in the same transaction where the store can
    /// (a ``VisitorStore``: one commit, and never one without the other), else just after.
    package func decide(in store: any ScenarioStore, at now: Double, countingEventOf other: String?) throws(ScenarioStoreError) -> ScenarioDecision {
        let custom = customAnswer()
        let events = try eventsSource(in: store)
        var decision: ScenarioDecision?
        let evaluate = { (stats: ScenarioStats, executions: [Double]) -> Bool in
            let d = ScenarioEvaluator.evaluate(rules: rules, stats: merged(stats, events), recentExecutions: executions, now: now, custom: custom)
            decision = d
            return d.allowed
        }
        if let other, let visitors = store as? any VisitorStore {
            _ = try visitors.tryExecute(name, at: now, rules: rules, countingEventOf: other, decide: evaluate)
        } else if try store.tryExecute(name, at: now, rules: rules, decide: evaluate), let other {
            try store.triggerEvent(other, at: now)
        }
        return decision ?? ScenarioEvaluator.evaluate(rules: rules, stats: ScenarioStats(), recentExecutions: [], now: now, custom: custom)
    }

    /// The decision without recording anything (a dry run; the custom condition is still called,
    /// outside any store lock).
    public func explain(in store: any ScenarioStore, at now: Double) throws(ScenarioStoreError) -> ScenarioDecision {
        let custom = customAnswer()
        let events = try eventsSource(in: store)
        // Without a budget nothing else is read: the statistics as a reader sees them, in a
        // transaction that writes nothing (a try would make the scenario's row to lock it).
        if rules.budget == nil {
            return ScenarioEvaluator.evaluate(rules: rules, stats: merged(try store.stats(name), events), recentExecutions: [], now: now, custom: custom)
        }
        var decision: ScenarioDecision?
        _ = try store.tryExecute(name, at: now, rules: rules) { stats, executions in
            decision = ScenarioEvaluator.evaluate(rules: rules, stats: merged(stats, events), recentExecutions: executions, now: now, custom: custom)
            return false
        }
        return decision ?? ScenarioEvaluator.evaluate(rules: rules, stats: ScenarioStats(), recentExecutions: [], now: now, custom: custom)
    }

    /// The statistics of the scenario whose events count (``ScenarioRules/eventsOf``), read
    /// before the decision: event counts only grow, so a trigger racing with this try is at most
    /// counted on the next one.
    private func eventsSource(in store: any ScenarioStore) throws(ScenarioStoreError) -> ScenarioStats? {
        guard let other = rules.eventsOf, other != name else { return nil }
        return try store.stats(other)
    }

    /// This scenario's executions with the events of `events` (when another scenario's count).
    private func merged(_ own: ScenarioStats, _ events: ScenarioStats?) -> ScenarioStats {
        guard let events else { return own }
        return ScenarioStats(
            eventsCount: events.eventsCount, executionsCount: own.executionsCount, firstEventDate: events.firstEventDate,
            lastEventDate: events.lastEventDate, lastExecutionDate: own.lastExecutionDate, recentEvents: events.recentEvents)
    }

    /// Calls the custom condition once and wraps its answer for the evaluator.
    private func customAnswer() -> (() -> Bool)? {
        guard let customCondition else { return nil }
        let answer = customCondition()
        return { answer }
    }

    /// Clears this scenario's statistics; its rules are kept.
    public func reset(in store: any ScenarioStore) throws(ScenarioStoreError) {
        try store.reset(name)
    }
}

/// WaitForIt's scenario as a type: declare the rules, then trigger and try.
///
/// The original kept configuration in mutable statics, which Swift 6 forbids; here ``rules`` is a
/// computed static property (it may still vary from call to call, as `config()` could). The
/// calls with a default store and the time now (`triggerEvent()`, `tryToExecute`) are in
/// RocketScenarios; here a type is a ``NamedScenario`` (``named``) over any store and time.
///
/// ```swift
/// struct ShowTutorial: Scenario {
///     static var rules: ScenarioRules { ScenarioRules(maxExecutionsPermitted: 1) }
/// }
/// try ShowTutorial.triggerEvent()
/// try ShowTutorial.tryToExecute { didExecute in if didExecute { showTutorial() } }
/// ```
public protocol Scenario {
    /// The stable name statistics are stored under. Default: the type's full name
    /// (`Module.Outer.Inner`, so nested types never collide); override it to rename a type
    /// without losing data.
    static var name: String { get }
    /// The rules (the original's `config()`), read on every call.
    static var rules: ScenarioRules { get }
    /// The custom condition, called on every try (default: none).
    static var customCondition: (@Sendable () -> Bool)? { get }
}

extension Scenario {
    /// The type's full name without run-time addresses: `Module.Outer.Inner`; a `private`,
    /// `fileprivate` or function-local type is named as if it were declared at its enclosing
    /// level, so the name is the same in every launch and every process.
    public static var name: String { ScenarioName.stable(String(reflecting: Self.self)) }
    public static var customCondition: (@Sendable () -> Bool)? { nil }

    /// This type as a named scenario.
    public static var named: NamedScenario { NamedScenario(name, rules: rules, customCondition: customCondition) }
}

/// Picks among several scenarios: the eligible one with the highest priority executes (ties go
/// to the earlier in the list); the others are left untouched.
///
/// ```swift
/// let winner = try ScenarioArbiter.executeFirst(of: [review, tip, survey], in: store, at: now)
/// ```
public enum ScenarioArbiter {
    /// The name of the scenario that executed, or nil when none was eligible.
    public static func executeFirst(of candidates: [NamedScenario], in store: any ScenarioStore, at now: Double) throws(ScenarioStoreError) -> String? {
        let ordered = candidates.enumerated().sorted { ($0.element.rules.priority, -$0.offset) > ($1.element.rules.priority, -$1.offset) }
        for (_, scenario) in ordered where try scenario.explain(in: store, at: now).allowed {
            // Decide again, atomically: another process may have used the budget meanwhile.
            if try scenario.tryToExecute(in: store, at: now) { return scenario.name }
        }
        return nil
    }
}

/// Stable names for scenario types.
public enum ScenarioName {
    /// `name` without the run-time parts Swift puts in the names of private and local types
    /// (`(unknown context at $55d0f8229988).`), which change from launch to launch.
    ///
    /// ```swift
    /// ScenarioName.stable("App.(unknown context at $55d0f8229988).Tutorial")   // "App.Tutorial"
    /// ```
    public static func stable(_ name: String) -> String {
        let marker = Array("(unknown context at ".utf8)
        let bytes = Array(name.utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var i = 0
        while i < bytes.count {
            if bytes[i] == UInt8(ascii: "("), i + marker.count <= bytes.count, Array(bytes[i..<i + marker.count]) == marker,
                let close = bytes[(i + marker.count)...].firstIndex(of: UInt8(ascii: ")"))
            {
                i = close + 1
                if i < bytes.count, bytes[i] == UInt8(ascii: ".") { i += 1 }
                continue
            }
            out.append(bytes[i])
            i += 1
        }
        return String(decoding: out, as: UTF8.self)
    }
}
