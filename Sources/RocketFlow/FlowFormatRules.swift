import RocketJSON
import RocketCore
import RocketScenarioEngine
import RocketBanners

// The `when` and `banner` objects are read through the codecs that the command line's flags also
// use; their entries here state each codec field's schema type and sentence, by an exhaustive
// switch, so a field added to a codec does not compile until the table says what it is.

extension FlowFormat {
    /// A `when` rule's schema type and sentence.
    static func whenEntry(_ field: ScenarioRulesCodec.Field) -> (type: FlowValueType, doc: String) {
        let count = FlowValueType.integer(min: 0, max: ScenarioRulesCodec.maxCount)
        switch field {
        case .minEventsRequired: return (count, "Show only once the scenario has at least this many events.")
        case .maxEventsPermitted: return (count, "Show only while it has at most this many events.")
        case .maxExecutionsPermitted: return (count, "Show at most this many times.")
        case .minSecondsSinceFirstEvent: return (.duration, "Show only this long after the first event.")
        case .minSecondsSinceLastEvent: return (.duration, "Show only this long after the latest event.")
        case .minSecondsBetweenExecutions: return (.duration, "Leave at least this long between two showings.")
        case .windowCount: return (count, "How many events.")
        case .windowSeconds: return (.duration, "Within how long, up to now.")
        case .budgetExecutions: return (count, "How many showings.")
        case .budgetSeconds: return (.duration, "Within how long, up to now.")
        case .priority:
            return (
                .integer(min: -ScenarioRulesCodec.maxCount, max: ScenarioRulesCodec.maxCount),
                "When several scenarios may show at once, the highest goes first."
            )
        case .eventsOf: return (.string(minLength: 1), "Count this scenario's events (such as \"app-launch\") instead of this one's own.")
        }
    }

    /// The object a dotted codec key lives in, and the key inside it.
    private static func whenPlace(_ field: ScenarioRulesCodec.Field) -> (object: String?, key: String) {
        let parts = field.flowKey.split(separator: ".").map(String.init)
        return parts.count == 2 ? (parts[0], parts[1]) : (nil, parts[0])
    }

    private static func whenFields(in object: String?) -> [FlowFieldInfo] {
        ScenarioRulesCodec.Field.allCases.compactMap { field in
            let place = whenPlace(field)
            guard place.object == object else { return nil }
            let (type, doc) = whenEntry(field)
            return FlowFieldInfo(
                name: place.key, type: type, isRequired: object != nil, defaultValue: field == .priority ? .number(0) : nil,
                shownBy: [], doc: doc)
        }
    }

    /// `minEventsInWindow`.
    static let windowInfo = FlowObjectInfo(
        name: "minEventsInWindow", doc: "At least `count` events within the last `window`.", fields: whenFields(in: "minEventsInWindow"),
        exactlyOne: false)

    /// `budget`.
    static let budgetInfo = FlowObjectInfo(
        name: "budget",
        doc: "At most `executions` showings of any scenario within the last `window`: of the store in `rocket play`, of the visitor on a server.",
        fields: whenFields(in: "budget"), exactlyOne: false)

    /// The names of the `when` object's members, nested objects included.
    static let whenKeys: [String] = {
        var keys: [String] = []
        for field in ScenarioRulesCodec.Field.allCases {
            let key = whenPlace(field).object ?? whenPlace(field).key
            if !keys.contains(key) { keys.append(key) }
        }
        return keys + ["if"]
    }()

    /// `when`.
    static let whenInfo: FlowObjectInfo = {
        var fields = whenFields(in: nil)
        for nested in [windowInfo, budgetInfo] {
            let at = fields.firstIndex { $0.name == "priority" } ?? fields.count
            fields.insert(
                FlowFieldInfo(name: nested.name, type: .object(nested.name), isRequired: false, defaultValue: nil, shownBy: [], doc: nested.doc),
                at: at)
        }
        fields.append(
            FlowFieldInfo(
                name: "if", type: .expression, isRequired: false, defaultValue: nil, shownBy: [],
                doc: "A condition over the flow's variables as they are at the start (targeting); without a scenario it is the only rule."))
        return FlowObjectInfo(
            name: "when",
            doc: "The rules of showing: WaitForIt's conditions (with `scenario`), plus windows, a shared budget, a priority and `if`.",
            fields: fields, exactlyOne: false)
    }()

    /// The rules as written in a flow file.
    static func whenValue(_ when: ScenarioRules) -> JSONValue {
        var w: [(String, JSONValue)] = []
        func int(_ k: String, _ v: Int?) { if let v { w.append((k, .number(Double(v)))) } }
        func seconds(_ k: String, _ v: Double?) { if let v { w.append((k, .number(v))) } }
        for key in whenKeys {
            switch key {
            case "minEventsRequired": int(key, when.minEventsRequired)
            case "maxEventsPermitted": int(key, when.maxEventsPermitted)
            case "maxExecutionsPermitted": int(key, when.maxExecutionsPermitted)
            case "minSecondsSinceFirstEvent": seconds(key, when.minSecondsSinceFirstEvent)
            case "minSecondsSinceLastEvent": seconds(key, when.minSecondsSinceLastEvent)
            case "minSecondsBetweenExecutions": seconds(key, when.minSecondsBetweenExecutions)
            case "minEventsInWindow":
                if let e = when.minEventsInWindow {
                    w.append((key, .object([("count", .number(Double(e.count))), ("window", .number(e.seconds))])))
                }
            case "budget":
                if let b = when.budget {
                    w.append((key, .object([("executions", .number(Double(b.executions))), ("window", .number(b.seconds))])))
                }
            case "priority": if when.priority != 0 { int(key, when.priority) }
            case "eventsOf": if let other = when.eventsOf { w.append((key, .string(other))) }
            default: break
            }
        }
        return .object(w)
    }

    /// A banner field's schema type, default and sentence.
    static func bannerEntry(_ field: BannerCodec.Field) -> (type: FlowValueType, defaultValue: JSONValue?, doc: String) {
        switch field {
        case .title: return (.text, nil, "The title.")
        case .subtitle: return (.text, nil, "A second line.")
        case .icon: return (.string(minLength: 1), nil, "An emoji, or a picture: an image file relative to the flow file, or a data: URI.")
        case .color: return (.namedColor, nil, "The background colour (default: the theme's).")
        case .titleColor: return (.namedColor, .string("white"), "The title's colour.")
        case .subtitleColor: return (.namedColor, .string("white"), "The subtitle's colour.")
        case .buttons: return (.bannerButtons, nil, "Up to two button titles, or \"close\" for a close button.")
        case .duration: return (.duration, .number(0), "How long it stays; 0 stays until dismissed.")
        case .animation: return (.words(BannerAnimation.allCases.map(\.rawValue)), .string("linear"), "How it enters and leaves.")
        case .backgroundTaps: return (.bool, .bool(true), "A tap on the banner dismisses it.")
        case .swipe: return (.bool, .bool(true), "A swipe dismisses it.")
        case .fullWidth: return (.bool, .bool(false), "Span the whole width.")
        }
    }

    /// `banner`.
    static let bannerInfo = FlowObjectInfo(
        name: "banner", doc: "A banner shown over the conversation when it starts.",
        fields: BannerCodec.Field.allCases.map { field in
            let (type, value, doc) = bannerEntry(field)
            return FlowFieldInfo(name: field.flowKey, type: type, isRequired: field == .title, defaultValue: value, shownBy: .all, doc: doc)
        }, exactlyOne: false)
}
