public import RocketCore
/// One condition of a decision, with whether it passed and why.
public struct ScenarioCheck: Hashable, Sendable {
    /// Which condition.
    public enum Condition: String, Hashable, Sendable, CaseIterable {
        case minEventsRequired, maxEventsPermitted, maxExecutionsPermitted, minSecondsSinceFirstEvent,
            minSecondsSinceLastEvent, minSecondsBetweenExecutions, minEventsInWindow, budget, customConditions
    }
    /// The condition.
    public var condition: Condition
    /// Whether it passed.
    public var passed: Bool
    /// The numbers the sentence is made of (the sentence is written only when it is read: a
    /// store decides far more often than anyone reads why).
    enum Facts: Hashable, Sendable {
        case events(Int, Int)
        case notYet(Double)
        case since(elapsed: Double, min: Double)
        case executions(Int, Int)
        case window(seconds: Double, found: Int, needed: Int)
        case budget(used: Int, allowed: Int, seconds: Double)
        case custom(Bool)
    }
    var facts: Facts
    /// The earliest time it could pass by the clock alone, when that can be known (time rules).
    public var earliestPass: Double?

    init(condition: Condition, passed: Bool, facts: Facts, earliestPass: Double? = nil) {
        self.condition = condition
        self.passed = passed
        self.facts = facts
        self.earliestPass = earliestPass
    }

    /// A sentence with the numbers: "events 2 ≥ 5 required".
    public var detail: String {
        let what: String
        switch condition {
        case .minSecondsSinceFirstEvent: what = "first event"
        case .minSecondsSinceLastEvent: what = "last event"
        default: what = "last execution"
        }
        switch facts {
        case .events(let c, let bound):
            return condition == .minEventsRequired ? "events \(c) ≥ \(bound) required" : "events \(c) ≤ \(bound) permitted"
        case .notYet(let min): return "no \(what) yet (needs > \(ScenarioDuration.format(min)) since)"
        case .since(let elapsed, let min): return "\(ScenarioDuration.format(elapsed)) since the \(what) > \(ScenarioDuration.format(min))"
        case .executions(let count, let max): return "executions \(count) < \(max) permitted"
        case .window(let seconds, let found, let needed):
            return "events in the last \(ScenarioDuration.format(seconds)): \(found) ≥ \(needed)"
        case .budget(let used, let allowed, let seconds):
            return "shown \(used) of \(allowed) allowed in \(ScenarioDuration.format(seconds)) across all scenarios"
        case .custom(let ok): return "custom condition returned \(ok)"
        }
    }
}

/// The answer to "may this scenario execute now?", with every condition's check.
///
/// ```swift
/// let d = ScenarioEvaluator.evaluate(rules: rules, stats: stats, recentExecutions: [], now: now)
/// if !d.allowed { print(d.explanation) }
/// ```
public struct ScenarioDecision: Hashable, Sendable {
    /// True when every condition passed.
    public var allowed: Bool
    /// Each condition that is set, in the original's order, then the extensions.
    public var checks: [ScenarioCheck]
    /// True when `now` is earlier than a recorded time: the clock moved backwards.
    public var clockMovedBackwards: Bool
    /// The latest time the scenario's statistics record (its first or last event, its last
    /// execution), nil when none: a host that read `now` before waiting for a shared store can
    /// tell a record another process made meanwhile from a clock that moved back.
    public var latestRecorded: Double?

    /// The failed checks.
    public var failures: [ScenarioCheck] { checks.filter { !$0.passed } }

    /// The earliest time the clock alone could make every failing time rule pass, when every
    /// failure is a time rule; nil otherwise.
    public var earliestTime: Double? {
        let f = failures
        guard !f.isEmpty, f.allSatisfy({ $0.earliestPass != nil }) else { return nil }
        return f.compactMap(\.earliestPass).max()
    }

    /// Lines for people: one per condition, marked ✓ or ✗.
    public var explanation: [String] {
        var lines = checks.map { ($0.passed ? "✓ " : "✗ ") + $0.detail }
        if checks.isEmpty { lines.append("✓ no conditions: always executes") }
        if clockMovedBackwards { lines.append("! the clock is earlier than a recorded time (it moved backwards?)") }
        return lines
    }
}

/// WaitForIt's decision, as a pure function of rules, statistics and time.
///
/// Semantics (the original code's): event bounds inclusive; the execution cap strict (0 never
/// executes); the three time conditions strict (`>`) and passing when nothing is recorded; the
/// custom condition evaluated on every try, even when another check has failed.
public enum ScenarioEvaluator {
    /// Evaluates every set condition. `recentExecutions` are store-wide execution times (for the
    /// budget); `custom` is the scenario's custom condition, called exactly once.
    public static func evaluate(
        rules: ScenarioRules, stats: ScenarioStats, recentExecutions: [Double], now: Double,
        custom: (() -> Bool)? = nil
    ) -> ScenarioDecision {
        var checks: [ScenarioCheck] = []
        let c = stats.eventsCount
        if let min = rules.minEventsRequired {
            checks.append(ScenarioCheck(condition: .minEventsRequired, passed: c >= min, facts: .events(c, min)))
        }
        if let max = rules.maxEventsPermitted {
            checks.append(ScenarioCheck(condition: .maxEventsPermitted, passed: c <= max, facts: .events(c, max)))
        }
        func since(_ condition: ScenarioCheck.Condition, _ min: Double?, _ date: Double?) {
            guard let min else { return }
            guard let date else {
                checks.append(ScenarioCheck(condition: condition, passed: true, facts: .notYet(min)))
                return
            }
            let elapsed = now - date
            let ok = elapsed > min
            checks.append(
                ScenarioCheck(
                    condition: condition, passed: ok,
                    facts: .since(elapsed: elapsed, min: min),
                    earliestPass: ok ? nil : (date + min).nextUp))
        }
        since(.minSecondsSinceFirstEvent, rules.minSecondsSinceFirstEvent, stats.firstEventDate)
        since(.minSecondsSinceLastEvent, rules.minSecondsSinceLastEvent, stats.lastEventDate)
        if let max = rules.maxExecutionsPermitted {
            checks.append(
                ScenarioCheck(
                    condition: .maxExecutionsPermitted, passed: stats.executionsCount < max,
                    facts: .executions(stats.executionsCount, max)))
        }
        since(.minSecondsBetweenExecutions, rules.minSecondsBetweenExecutions, stats.lastExecutionDate)
        if let window = rules.minEventsInWindow {
            let start = now - window.seconds
            let inWindow = stats.recentEvents.filter { $0 >= start && $0 <= now }
            let ok = inWindow.count >= window.count
            checks.append(
                ScenarioCheck(
                    condition: .minEventsInWindow, passed: ok,
                    facts: .window(seconds: window.seconds, found: inWindow.count, needed: window.count)))
        }
        if let budget = rules.budget {
            let start = now - budget.seconds
            let used = recentExecutions.filter { $0 > start && $0 <= now }.sorted()
            let ok = used.count < budget.executions
            var earliest: Double?
            if !ok && budget.executions > 0 && used.count >= budget.executions {
                earliest = (used[used.count - budget.executions] + budget.seconds).nextUp
            }
            checks.append(
                ScenarioCheck(
                    condition: .budget, passed: ok,
                    facts: .budget(used: used.count, allowed: budget.executions, seconds: budget.seconds),
                    earliestPass: earliest))
        }
        if let custom {
            let ok = custom()
            checks.append(ScenarioCheck(condition: .customConditions, passed: ok, facts: .custom(ok)))
        }
        let latest = [stats.firstEventDate, stats.lastEventDate, stats.lastExecutionDate].compactMap { $0 }.max()
        return ScenarioDecision(
            allowed: checks.allSatisfy(\.passed), checks: checks,
            clockMovedBackwards: latest.map { $0 > now } ?? false, latestRecorded: latest)
    }
}

/// The duration syntax of flags, flow files and messages (`RocketDuration`), under its
/// earlier name.
public typealias ScenarioDuration = RocketDuration
