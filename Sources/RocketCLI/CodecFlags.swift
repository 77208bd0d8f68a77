import RocketBanners
import RocketScenarios

// The flag spellings of the codecs' fields: the command line's own, so they live here; the
// codecs know only the values and the flow files' keys.

extension BannerCodec.Field {
    /// The flag of `rocket banner` (the title is its positional argument; `buttons: "close"`
    /// is `--close-button`; the three switches are the negated flags).
    var flag: String {
        switch self {
        case .title: return "TITLE"
        case .subtitle: return "--subtitle"
        case .icon: return "--icon"
        case .color: return "--color"
        case .titleColor: return "--title-color"
        case .subtitleColor: return "--subtitle-color"
        case .buttons: return "--button"
        case .duration: return "--duration"
        case .animation: return "--animation"
        case .backgroundTaps: return "--no-background-tap"
        case .swipe: return "--no-swipe"
        case .fullWidth: return "--full-width"
        }
    }
}

extension ScenarioRulesCodec.Field {
    /// The command-line flag (`scenario try`, `banner --scenario`); nil for priority, which
    /// only flow files set.
    var flag: String? {
        switch self {
        case .minEventsRequired: return "--min-events"
        case .maxEventsPermitted: return "--max-events"
        case .maxExecutionsPermitted: return "--max-executions"
        case .minSecondsSinceFirstEvent: return "--min-since-first-event"
        case .minSecondsSinceLastEvent: return "--min-since-last-event"
        case .minSecondsBetweenExecutions: return "--min-between-executions"
        case .windowCount: return "--min-events-in-window"
        case .windowSeconds: return "--window"
        case .budgetExecutions: return "--budget"
        case .budgetSeconds: return "--budget-window"
        case .eventsOf: return "--events-of"
        case .priority: return nil
        }
    }
}
