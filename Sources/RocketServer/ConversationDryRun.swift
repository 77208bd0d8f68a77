import RocketConversation
import RocketCore
import RocketPlatform
import RocketFlow
import RocketJSON
import RocketScenarioEngine

// A start's dry run (`"dryRun": true`): would the flow start for this visitor now, and if not,
// why and from when. The same gates as a start, in the same order, asked without keeping
// anything: no conversation, no record, no stored assignment, no execution, no showing.
extension LoadedFlow {
    /// True when a start of this flow asks the store (a scenario, an experiment, the gap between
    /// flows), which is done on the database thread.
    func asksStore(_ service: ConversationService) -> Bool {
        (document.scenario != nil || document.experiment != nil || service.configuration.minGap > 0)
            && (service.scenarios != nil || service.persists)
    }
}

extension ConversationService {
    /// A start's gates asked for `visitor` at the clock's now, nothing kept: `wouldStart` (with
    /// the experiment's variant), or `notNow` with the reasons and the earliest time, as a start
    /// would answer; both say `"dryRun": true`, and bring the visitor and token issued to a
    /// caller without credentials (a page's first call), as a start does.
    func dryRun(
        flow: LoadedFlow, flowName: String, visitor: String, vars: (variables: [String: RocketValue], answers: [String: String]), utcOffset: Int?,
        issued: (visitor: String, token: String)?
    ) -> HTTPResponse {
        let now = clock.now
        func answer(_ members: [(String, JSONValue)]) -> HTTPResponse {
            var o = members
            o.append(("dryRun", .bool(true)))
            if let issued { o += [("visitor", .string(issued.visitor)), ("token", .string(issued.token))] }
            return .json(200, .object(o))
        }
        func notNow(_ why: [String], earliest: Double? = nil, variant: String? = nil) -> HTTPResponse {
            answer(Self.notNowFields(flowName, why, earliest: earliest, variant: variant))
        }
        func unavailable(_ error: ScenarioStoreError) -> HTTPResponse {
            log("rocket serve: scenario store: \(error.message)")
            return .error(503, "store-unavailable", "the scenario store cannot be used now")
        }
        if let why = flow.document.refusal(variables: vars.variables, answers: vars.answers) { return notNow([why]) }
        if let q = flow.document.quietHours, let quiet = q.refusal(at: now, utcOffset: utcOffset ?? Environment.utcOffset(at: now)) {
            return notNow([quiet.reason], earliest: quiet.earliest)
        }
        let gap = ShowingGap(seconds: configuration.minGap)
        if gap.seconds > 0, let store = scenarios {
            do throws(ScenarioStoreError) {
                if let why = try gap.refusal(in: store, visitor: visitor, at: now) { return notNow([why.reason], earliest: why.earliest) }
            } catch {
                return unavailable(error)
            }
        }
        // The variant the visitor has (the stored one wins), else the one a start would give.
        var variant: String?
        if let e = flow.document.experiment {
            var assignment = e.assign(visitor: visitor)
            if let visitors = scenarios as? any VisitorStore {
                do throws(ScenarioStoreError) {
                    let stored = try visitors.kept(ofVisitor: visitor).assignments.first { $0.experiment == e.name }
                    if let stored, let known = e.assignment(named: stored.variant) { assignment = known }
                } catch {
                    return unavailable(error)
                }
            }
            if case .holdout = assignment { return notNow(["in the holdout of the experiment \(e.name)"], variant: "holdout") }
            variant = e.name(of: assignment)
        }
        if let scenario = flow.document.scenario, let store = scenarios {
            var rules = flow.document.when ?? ScenarioRules()
            if let other = rules.eventsOf { rules.eventsOf = other + "@" + visitor }
            let budget = rules.budget
            rules.budget = nil
            do throws(ScenarioStoreError) {
                if let budget {
                    let check = try VisitorBudget(visitor: visitor).check(budget, in: store, at: now)
                    if !check.allowed { return notNow(check.explanation, earliest: check.earliestTime) }
                }
                let decision = try NamedScenario(scenario + "@" + visitor, rules: rules).explain(in: store, at: now)
                if !decision.allowed { return notNow(decision.explanation, earliest: decision.earliestTime) }
            } catch {
                return unavailable(error)
            }
        }
        var o: [(String, JSONValue)] = [("status", .string("wouldStart")), ("flow", .string(flowName))]
        if let variant { o.append(("variant", .string(variant))) }
        return answer(o)
    }
}
