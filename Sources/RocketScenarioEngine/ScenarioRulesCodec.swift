import RocketCore

/// The one reading of scenario rules, shared by flow files (`"when": {…}`) and command-line flags
/// (`--min-events 5 …`): one table of fields with their flow keys and flags, one range check per
/// kind of value, one pairing rule. Front ends only say where a value came from.
///
/// ```swift
/// let (rules, problems) = ScenarioRulesCodec.rules([.minEventsRequired: .text("5"), .minSecondsSinceFirstEvent: .text("14d")])
/// problems.isEmpty   // true
/// rules.minEventsRequired   // 5
/// ```
public enum ScenarioRulesCodec {
    /// A value as given: text (a flag, or a JSON string) or a number (JSON).
    public enum Input: Hashable, Sendable {
        /// Text.
        case text(String)
        /// A number.
        case number(Double)
    }

    /// What kind of value a field takes.
    public enum Kind: Hashable, Sendable {
        /// A whole number from 0 to ``maxCount``.
        case count
        /// A duration (`RocketDuration`).
        case duration
        /// A whole number from −``maxCount`` to ``maxCount``.
        case priority
        /// A scenario name (not empty, at most 1024 bytes).
        case name
    }

    /// Every field of the rules, with its flow key and flag.
    public enum Field: String, CaseIterable, Hashable, Sendable {
        case minEventsRequired, maxEventsPermitted, maxExecutionsPermitted
        case minSecondsSinceFirstEvent, minSecondsSinceLastEvent, minSecondsBetweenExecutions
        case windowCount, windowSeconds, budgetExecutions, budgetSeconds, priority, eventsOf

        /// The key in a flow file's `"when"` object (dotted inside the nested objects).
        public var flowKey: String {
            switch self {
            case .windowCount: return "minEventsInWindow.count"
            case .windowSeconds: return "minEventsInWindow.window"
            case .budgetExecutions: return "budget.executions"
            case .budgetSeconds: return "budget.window"
            default: return rawValue
            }
        }

        /// The kind of value.
        public var kind: Kind {
            switch self {
            case .minSecondsSinceFirstEvent, .minSecondsSinceLastEvent, .minSecondsBetweenExecutions, .windowSeconds, .budgetSeconds:
                return .duration
            case .priority: return .priority
            case .eventsOf: return .name
            default: return .count
            }
        }

        /// The field that must be given with this one, if any.
        public var partner: Field? {
            switch self {
            case .windowCount: return .windowSeconds
            case .windowSeconds: return .windowCount
            case .budgetExecutions: return .budgetSeconds
            case .budgetSeconds: return .budgetExecutions
            default: return nil
            }
        }
    }

    /// Why a value was refused.
    public struct Problem: Error, Hashable, Sendable {
        /// What is wrong.
        public enum Reason: Hashable, Sendable {
            /// Text that is not a duration.
            case notADuration
            /// Text that is not a whole number.
            case notAWholeNumber
            /// A number outside the field's range.
            case outOfRange
            /// Given without its partner field.
            case missingPartner(Field)
            /// An empty or overlong name.
            case badName
        }
        /// The field.
        public var field: Field
        /// Why.
        public var reason: Reason

        /// A sentence about the value (front ends add where it came from).
        public var message: String {
            switch reason {
            case .notADuration: return "must be " + RocketDuration.syntax
            case .notAWholeNumber, .outOfRange:
                switch field.kind {
                case .count: return "must be a whole number from 0 to \(ScenarioRulesCodec.maxCount)"
                case .priority: return "must be a whole number from -\(ScenarioRulesCodec.maxCount) to \(ScenarioRulesCodec.maxCount)"
                case .duration: return "must be " + RocketDuration.syntax
                case .name: return "must be a scenario name"
                }
            case .badName: return "must be " + ScenarioRulesCodec.nameRule
            case .missingPartner(let other): return "goes together with \(other.rawValue)"
            }
        }
    }

    /// The largest count (and priority) accepted: 10⁹.
    public static let maxCount = RocketLimits.count

    /// A whole number of the field's kind.
    public static func integer(_ input: Input, for field: Field) -> Result<Int, Problem> {
        let low = field.kind == .priority ? -maxCount : 0
        switch input {
        case .text(let text):
            guard text.utf8.count <= 20, let n = Int(text) else { return .failure(Problem(field: field, reason: .notAWholeNumber)) }
            guard (low...maxCount).contains(n) else { return .failure(Problem(field: field, reason: .outOfRange)) }
            return .success(n)
        case .number(let v):
            guard v.isFinite, v == v.rounded(), v >= Double(low), v <= Double(maxCount) else {
                return .failure(Problem(field: field, reason: .outOfRange))
            }
            return .success(Int(v))
        }
    }

    /// A duration in seconds.
    public static func duration(_ input: Input, for field: Field) -> Result<Double, Problem> {
        switch input {
        case .text(let text):
            guard let d = RocketDuration.parse(text) else { return .failure(Problem(field: field, reason: .notADuration)) }
            return .success(d)
        case .number(let v):
            guard let d = RocketDuration.seconds(v) else { return .failure(Problem(field: field, reason: .outOfRange)) }
            return .success(d)
        }
    }

    /// The rules the given values describe, and every problem found (all of them, in field
    /// order). Fields with a problem are left unset.
    public static func rules(_ values: [Field: Input]) -> (rules: ScenarioRules, problems: [Problem]) {
        var problems: [Problem] = []
        var counts: [Field: Int] = [:]
        var seconds: [Field: Double] = [:]
        var names: [Field: String] = [:]
        for field in Field.allCases {
            guard let input = values[field] else { continue }
            switch field.kind {
            case .name:
                if case .text(let t) = input, ScenarioRulesCodec.isName(t) {
                    names[field] = t
                } else {
                    problems.append(Problem(field: field, reason: .badName))
                }
            case .count, .priority:
                switch integer(input, for: field) {
                case .success(let n): counts[field] = n
                case .failure(let p): problems.append(p)
                }
            case .duration:
                switch duration(input, for: field) {
                case .success(let d): seconds[field] = d
                case .failure(let p): problems.append(p)
                }
            }
        }
        for field in Field.allCases {
            if values[field] != nil, let partner = field.partner, values[partner] == nil {
                problems.append(Problem(field: field, reason: .missingPartner(partner)))
            }
        }
        var rules = ScenarioRules(
            minEventsRequired: counts[.minEventsRequired], maxEventsPermitted: counts[.maxEventsPermitted],
            maxExecutionsPermitted: counts[.maxExecutionsPermitted],
            minSecondsSinceFirstEvent: seconds[.minSecondsSinceFirstEvent],
            minSecondsSinceLastEvent: seconds[.minSecondsSinceLastEvent],
            minSecondsBetweenExecutions: seconds[.minSecondsBetweenExecutions])
        if let n = counts[.windowCount], let w = seconds[.windowSeconds] { rules.minEventsInWindow = EventWindow(count: n, seconds: w) }
        if let n = counts[.budgetExecutions], let w = seconds[.budgetSeconds] { rules.budget = InterruptionBudget(executions: n, seconds: w) }
        if let p = counts[.priority] { rules.priority = p }
        rules.eventsOf = names[.eventsOf]
        return (rules, problems)
    }

    /// True for a usable scenario name (``nameRule``): not empty (nor only white space), at most
    /// 1024 bytes, no control characters (a line end would break every line-per-name listing).
    public static func isName(_ text: String) -> Bool {
        !text.allSatisfy(\.isWhitespace) && text.utf8.count <= RocketLimits.scenarioNameBytes
            && !text.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }
    }

    /// What ``isName(_:)`` asks, for messages.
    public static let nameRule = "a scenario name: not empty, at most \(RocketLimits.scenarioNameBytes) bytes, no control characters"

}
