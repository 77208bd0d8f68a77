import RocketConversation
import RocketCore
import RocketPlatform
import RocketFlow
import RocketJSON
import RocketScenarioEngine

// A start's gates, in their order: the flow's targeting, its schedule and quiet hours, the
// visitor's snooze of it, the gap between flows,
// its experiment, its scenario and the visitor's budget. A start asks them and keeps what they
// decide (the assignment, a holdout's record, the execution, the showing); a dry run
// (`"dryRun": true`) asks the same gates and keeps nothing.
extension LoadedFlow {
    /// True when a start of this flow asks the store (a scenario, an experiment, the gap between
    /// flows, a visitor's snooze), which is done on the database thread.
    func asksStore(_ service: ConversationService) -> Bool {
        (document.scenario != nil || document.experiment != nil || service.configuration.minGap > 0 || snoozes)
            && (service.scenarios != nil || service.persists)
    }
}

extension ConversationService {
    /// What a start's gates decided.
    enum GateOutcome {
        /// Not now: why (a line each), from when at the earliest, and the experiment's group when
        /// that is why.
        case notNow([String], earliest: Double?, variant: String?)
        /// Every gate passed: where the experiment's variant starts, its name, and the exposure
        /// to record first.
        case passed(from: RocketNodeID?, variant: String?, exposure: RocketEvent?)
        /// A store could not be asked (or written): the answer to give.
        case failed(HTTPResponse)
    }

    /// Asks a start's gates for `visitor` at `now`. With `keep` what they decide is kept (the
    /// experiment's assignment at the first exposure, a holdout's record, the scenario's
    /// execution with the visitor's log of it, the showing for `--min-gap`); without it nothing
    /// is written, and the answer is the one a start would get.
    func gates(
        flow: LoadedFlow, flowName: String, visitor: String, vars: (variables: [String: RocketValue], answers: [String: String]), utcOffset: Int?,
        at now: Double, keep: Bool
    ) -> GateOutcome {
        func unavailable(_ error: ScenarioStoreError) -> GateOutcome {
            log("rocket serve: scenario store: \(error.message)")
            return .failed(.error(503, "store-unavailable", "the scenario store cannot be used now"))
        }
        // Targeting first: a flow not for these start values is not now, and asks nothing else.
        let offset = utcOffset ?? Environment.utcOffset(at: now)
        let local = RocketExpression.LocalTime(localSeconds: now + Double(offset))
        if let why = flow.document.refusal(variables: vars.variables, answers: vars.answers, local: local) {
            return .notNow([why], earliest: nil, variant: nil)
        }
        // The schedule, then quiet hours in the visitor's local time when the page gave it.
        if let timed = flow.document.timeRefusal(at: now, utcOffset: offset) {
            return .notNow([timed.reason], earliest: timed.earliest, variant: nil)
        }
        // A snooze the visitor pressed (a button's "snooze"), kept in the scenario store.
        if flow.snoozes, let store = scenarios {
            do throws(ScenarioStoreError) {
                if let why = try FlowSnooze.refusal(in: store, flow: flowName, visitor: visitor, at: now) {
                    return .notNow([why.reason], earliest: why.earliest, variant: nil)
                }
            } catch {
                return unavailable(error)
            }
        }
        // The gap between two flows shown to one visitor, across flows, kept in the scenario store.
        let gap = ShowingGap(seconds: configuration.minGap)
        if gap.seconds > 0, let store = scenarios {
            do throws(ScenarioStoreError) {
                // A flow that ignores the gap is shown whatever it says (its showing still counts).
                if !flow.document.ignoresGap, let why = try gap.refusal(in: store, visitor: visitor, at: now) {
                    return .notNow([why.reason], earliest: why.earliest, variant: nil)
                }
            } catch {
                return unavailable(error)
            }
        }
        // An experiment: the holdout is shown nothing (and counts no scenario execution); a
        // variant starts where it says, its exposure the conversation's first record.
        var variantStart: RocketNodeID?
        var exposure: RocketEvent?
        var exposed: String?
        if let e = flow.document.experiment {
            var assignment = e.assign(visitor: visitor)
            // The assignment stored at the first exposure wins (weights changed since keep it).
            if let visitors = scenarios as? any VisitorStore {
                do throws(ScenarioStoreError) {
                    if keep {
                        let stored = try visitors.assignment(
                            experiment: e.name, visitor: visitor, at: now, known: e.assignmentNames, fresh: e.name(of: assignment))
                        assignment = e.assignment(named: stored) ?? assignment
                    } else if let stored = try visitors.kept(ofVisitor: visitor).assignments.first(where: { $0.experiment == e.name }),
                        let known = e.assignment(named: stored.variant)
                    {
                        assignment = known
                    }
                } catch {
                    return unavailable(error)
                }
            }
            switch assignment {
            case .holdout:
                // The holdout's exposure is kept for reports (no conversation holds it).
                if keep, let archive {
                    var w = JSONBytes(capacity: 160)
                    RocketEvent.exposure(experiment: e.name, variant: "holdout", shown: false, flow: flowName).writeRecord(into: &w, at: now)
                    do {
                        try archive.saveRecord(String(decoding: w.out, as: UTF8.self), flow: flowName, id: Self.newID(at: now), at: now)
                    } catch {
                        log("rocket serve: conversation store: \(error.message)")
                        return .failed(.error(503, "store-unavailable", "the conversation store cannot be written now"))
                    }
                }
                return .notNow(["in the holdout of the experiment \(e.name)"], earliest: nil, variant: "holdout")
            case .variant(let k):
                variantStart = e.variants[k].start
                let name = e.name(of: assignment)
                exposed = name
                exposure = .exposure(experiment: e.name, variant: name, shown: true, flow: flowName)
            }
        }
        // The scenario gate, per visitor: the flow's scenario counted under "NAME@VISITOR", and
        // a budget over the visitor's own executions (VisitorBudget), not the store's log of
        // everyone's, which one client could use up for all.
        if let scenario = flow.document.scenario, let store = scenarios {
            var rules = flow.document.when ?? ScenarioRules()
            if let other = rules.eventsOf { rules.eventsOf = other + "@" + visitor }
            let budget = rules.budget
            rules.budget = nil
            let visitorBudget = VisitorBudget(visitor: visitor)
            do throws(ScenarioStoreError) {
                if let budget {
                    let check = try visitorBudget.check(budget, in: store, at: now)
                    if !check.allowed { return .notNow(check.explanation, earliest: check.earliestTime, variant: nil) }
                }
                // Kept: the execution and the visitor's log of it in one commit.
                let named = NamedScenario(scenario + "@" + visitor, rules: rules)
                let decision =
                    keep ? try named.decide(in: store, at: now, countingEventOf: visitorBudget.scenarioName) : try named.explain(in: store, at: now)
                if !decision.allowed { return .notNow(decision.explanation, earliest: decision.earliestTime, variant: nil) }
            } catch {
                return unavailable(error)
            }
        }
        // Every gate passed: the showing is noted before anything is shown (a failure shows nothing).
        if keep, gap.seconds > 0, let store = scenarios {
            do throws(ScenarioStoreError) {
                try gap.recordShowing(in: store, visitor: visitor, at: now)
            } catch {
                return unavailable(error)
            }
        }
        return .passed(from: variantStart, variant: exposed, exposure: exposure)
    }

    /// A start's dry run: the gates asked for `visitor` at the clock's now with nothing kept,
    /// answered `wouldStart` (with the experiment's variant) or `notNow` with the reasons and the
    /// earliest time, as a start would answer; both say `"dryRun": true`, and bring the visitor
    /// and token issued to a caller without credentials (a page's first call), as a start does.
    func dryRun(
        flow: LoadedFlow, flowName: String, visitor: String, vars: (variables: [String: RocketValue], answers: [String: String]), utcOffset: Int?,
        issued: (visitor: String, token: String)?
    ) -> HTTPResponse {
        var o: [(String, JSONValue)]
        switch gates(flow: flow, flowName: flowName, visitor: visitor, vars: vars, utcOffset: utcOffset, at: clock.now, keep: false) {
        case .failed(let response): return response
        case .notNow(let why, let earliest, let variant): o = Self.notNowFields(flowName, why, earliest: earliest, variant: variant)
        case .passed(_, let variant, _):
            o = [("status", .string("wouldStart")), ("flow", .string(flowName))]
            if let variant { o.append(("variant", .string(variant))) }
        }
        o.append(("dryRun", .bool(true)))
        if let issued { o += [("visitor", .string(issued.visitor)), ("token", .string(issued.token))] }
        return .json(200, .object(o))
    }
}
