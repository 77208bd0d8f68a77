import RocketCore

/// "At least `count` events within the last `seconds`" (beyond WaitForIt).
///
/// ```swift
/// let weekly = EventWindow(count: 3, seconds: 7 * 86_400)
/// ```
public struct EventWindow: Hashable, Sendable {
    /// Events needed.
    public var count: Int
    /// The window, in seconds back from now (inclusive).
    public var seconds: Double

    /// Creates a window rule.
    public init(count: Int, seconds: Double) {
        self.count = count
        self.seconds = seconds
    }
}

/// A limit shared by every scenario of a store: at most `executions` within `seconds` (beyond
/// WaitForIt): "at most 1 prompt per 24 h across everything".
///
/// ```swift
/// let daily = InterruptionBudget(executions: 1, seconds: 86_400)
/// ```
public struct InterruptionBudget: Hashable, Sendable {
    /// Executions allowed in the window, across all scenarios.
    public var executions: Int
    /// The window, in seconds back from now.
    public var seconds: Double

    /// Creates a budget.
    public init(executions: Int, seconds: Double) {
        self.executions = executions
        self.seconds = seconds
    }
}

/// The declarative rules of a scenario: WaitForIt's six conditions, plus event windows and a
/// shared interruption budget. A nil rule is "no condition". The custom condition, a closure,
/// lives on the scenario, not here, so rules stay plain data (JSON, the CLI).
///
/// ```swift
/// var rules = ScenarioRules()
/// rules.minEventsRequired = 5
/// rules.minSecondsSinceFirstEvent = 14 * 86_400
/// rules.maxExecutionsPermitted = 3
/// ```
public struct ScenarioRules: Hashable, Sendable {
    /// Passes when events ≥ min (inclusive).
    public var minEventsRequired: Int?
    /// Passes when events ≤ max (inclusive).
    public var maxEventsPermitted: Int?
    /// Passes when executions < max (strict; 0 never passes).
    public var maxExecutionsPermitted: Int?
    /// Passes with no first event yet, or when now − first > min (strict).
    public var minSecondsSinceFirstEvent: Double?
    /// Passes with no last event yet, or when now − last > min (strict).
    public var minSecondsSinceLastEvent: Double?
    /// Passes with no execution yet, or when now − last execution > min (strict).
    public var minSecondsBetweenExecutions: Double?
    /// Passes when enough events fall in the window.
    public var minEventsInWindow: EventWindow?
    /// Passes when the store-wide budget has room.
    public var budget: InterruptionBudget?
    /// Higher goes first when several scenarios are eligible at once (default 0).
    public var priority: Int
    /// Count the events of this other scenario instead of the scenario's own (beyond WaitForIt):
    /// "ask for a review after 5 app launches" triggers `app-launch` and tries `ask-review`
    /// with `eventsOf = "app-launch"`. Executions, caps and budgets stay the scenario's own.
    public var eventsOf: String?

    /// Creates rules; every condition defaults to none.
    public init(
        minEventsRequired: Int? = nil, maxEventsPermitted: Int? = nil, maxExecutionsPermitted: Int? = nil,
        minSecondsSinceFirstEvent: Double? = nil, minSecondsSinceLastEvent: Double? = nil,
        minSecondsBetweenExecutions: Double? = nil, minEventsInWindow: EventWindow? = nil,
        budget: InterruptionBudget? = nil, priority: Int = 0, eventsOf: String? = nil
    ) {
        self.minEventsRequired = minEventsRequired
        self.maxEventsPermitted = maxEventsPermitted
        self.maxExecutionsPermitted = maxExecutionsPermitted
        self.minSecondsSinceFirstEvent = minSecondsSinceFirstEvent
        self.minSecondsSinceLastEvent = minSecondsSinceLastEvent
        self.minSecondsBetweenExecutions = minSecondsBetweenExecutions
        self.minEventsInWindow = minEventsInWindow
        self.budget = budget
        self.priority = priority
        self.eventsOf = eventsOf
    }
}

/// What a store remembers of one scenario (times are seconds since 1970).
///
/// ```swift
/// let fresh = ScenarioStats()
/// fresh.eventsCount   // 0
/// ```
public struct ScenarioStats: Hashable, Sendable, Codable {
    /// Events triggered (unbounded).
    public var eventsCount: Int
    /// Successful executions.
    public var executionsCount: Int
    /// When the first event happened.
    public var firstEventDate: Double?
    /// When the latest event happened.
    public var lastEventDate: Double?
    /// When the latest execution happened.
    public var lastExecutionDate: Double?
    /// Times of the most recent events (at most ``ScenarioStats/recentLimit``), oldest first.
    public var recentEvents: [Double]

    /// How many event times are kept for window rules (TipKit keeps 1000 donations too).
    public static let recentLimit = RocketLimits.recentEvents

    /// Creates statistics.
    public init(
        eventsCount: Int = 0, executionsCount: Int = 0, firstEventDate: Double? = nil, lastEventDate: Double? = nil,
        lastExecutionDate: Double? = nil, recentEvents: [Double] = []
    ) {
        self.eventsCount = eventsCount
        self.executionsCount = executionsCount
        self.firstEventDate = firstEventDate
        self.lastEventDate = lastEventDate
        self.lastExecutionDate = lastExecutionDate
        self.recentEvents = recentEvents
    }

    /// Reads statistics; `recentEvents` may be missing (exports of older versions).
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        eventsCount = try c.decode(Int.self, forKey: .eventsCount)
        executionsCount = try c.decode(Int.self, forKey: .executionsCount)
        firstEventDate = try c.decodeIfPresent(Double.self, forKey: .firstEventDate)
        lastEventDate = try c.decodeIfPresent(Double.self, forKey: .lastEventDate)
        lastExecutionDate = try c.decodeIfPresent(Double.self, forKey: .lastExecutionDate)
        recentEvents = try c.decodeIfPresent([Double].self, forKey: .recentEvents) ?? []
    }

    /// The first value out of range, described for a person, or nil when every count is from 0 to
    /// 10¹⁵ and every time is within ``WallTime/validRange``.
    public var outOfRange: String? {
        for (name, n) in [("eventsCount", eventsCount), ("executionsCount", executionsCount)] where !(0...1_000_000_000_000_000).contains(n) {
            return "\"\(name)\" is \(n); counts go from 0 to 10^15"
        }
        for (name, t) in [("firstEventDate", firstEventDate), ("lastEventDate", lastEventDate), ("lastExecutionDate", lastExecutionDate)] {
            if let t, !WallTime.validRange.contains(t) { return "\"\(name)\" is \(t); times go from year 1 to 9999" }
        }
        if let t = recentEvents.first(where: { !WallTime.validRange.contains($0) }) { return "\"recentEvents\" holds \(t); times go from year 1 to 9999" }
        if recentEvents.count > ScenarioStats.recentLimit { return "\"recentEvents\" holds more than \(ScenarioStats.recentLimit) times" }
        return nil
    }

    /// The original's `triggerEvent`: count + 1; the first date set once; the last date = now.
    /// Counts stop at `Int.max` (a store written by something else may hold anything).
    public mutating func recordEvent(at now: Double) {
        eventsCount = eventsCount == Int.max ? Int.max : eventsCount + 1
        if firstEventDate == nil { firstEventDate = now }
        lastEventDate = now
        recentEvents.append(now)
        if recentEvents.count > ScenarioStats.recentLimit { recentEvents.removeFirst(recentEvents.count - ScenarioStats.recentLimit) }
    }

    /// A successful try: executions + 1, the last execution = now.
    public mutating func recordExecution(at now: Double) {
        executionsCount = executionsCount == Int.max ? Int.max : executionsCount + 1
        lastExecutionDate = now
    }
}
