import RocketCore
import RocketFlow
import RocketJSON
import RocketPlatform
import RocketScenarios

/// `rocket scenario simulate`: a timeline of events and tries played against a scenario's rules
/// on an in-memory store, each try's verdict printed: "when would this have shown?" answered
/// before anything ships (a dry run no store or clock takes part in).
enum ScenarioSimulation {
    /// One line of a timeline.
    struct Step: Equatable {
        enum Action: Equatable {
            /// An event of this scenario.
            case trigger(String)
            /// A try of the simulated scenario.
            case attempt
        }
        var at: Double
        var action: Action
    }

    /// Why a line cannot be read, and the column (in characters) where.
    struct LineProblem: Error, Equatable {
        var column: Int
        var message: String
    }

    /// Reads one line; `previous` is the time of the line before (for `+D`). Nil for a blank line
    /// or a comment.
    static func parse(_ line: String, previous: Double?) -> Result<Step?, LineProblem> {
        // Words and the column each starts at.
        var words: [(text: String, column: Int)] = []
        var current = "", start = 0
        for (k, ch) in line.enumerated() {
            if ch == " " || ch == "\t" {
                if !current.isEmpty { words.append((current, start + 1)) }
                current = ""
            } else {
                if current.isEmpty { start = k }
                current.append(ch)
            }
        }
        if !current.isEmpty { words.append((current, start + 1)) }
        guard let first = words.first, !first.text.hasPrefix("#") else { return .success(nil) }
        let at: Double
        if first.text.hasPrefix("+") {
            guard let previous else { return .failure(LineProblem(column: first.column, message: "a time after + needs an earlier line with a time")) }
            guard let d = RocketDuration.parse(String(first.text.dropFirst())), WallTime.validRange.contains(previous + d) else {
                return .failure(LineProblem(column: first.column, message: "'\(first.text)' is not +D, a duration after the line before (+90m, +1d)"))
            }
            at = previous + d
        } else {
            guard let t = WallTime.parse(first.text) else {
                return .failure(
                    LineProblem(column: first.column, message: "'\(first.text)' is not a time: ISO-8601 (2026-01-01T09:00:00Z), @EPOCHSECONDS or +D"))
            }
            at = t
        }
        if let previous, at < previous {
            return .failure(LineProblem(column: first.column, message: "the time goes back: \(WallTime.format(at)) is before \(WallTime.format(previous))"))
        }
        guard words.count >= 2 else {
            return .failure(LineProblem(column: first.column + first.text.count, message: "a time needs 'trigger' or 'try' after it"))
        }
        let verb = words[1]
        switch verb.text {
        case "try":
            guard words.count == 2 else { return .failure(LineProblem(column: words[2].column, message: "'try' takes nothing after it")) }
            return .success(Step(at: at, action: .attempt))
        case "trigger":
            guard words.count <= 3 else { return .failure(LineProblem(column: words[3].column, message: "'trigger' takes one SCENARIO at most")) }
            if words.count == 3 {
                guard ScenarioRulesCodec.isName(words[2].text) else {
                    return .failure(LineProblem(column: words[2].column, message: "SCENARIO must be \(ScenarioRulesCodec.nameRule)"))
                }
                return .success(Step(at: at, action: .trigger(words[2].text)))
            }
            return .success(Step(at: at, action: .trigger("")))
        default:
            let hint = Suggestions.closest(to: verb.text, in: ["try", "trigger"]).map { "; did you mean '\($0)'?" } ?? ""
            return .failure(LineProblem(column: verb.column, message: "'\(verb.text)' is neither 'trigger' nor 'try'\(hint)"))
        }
    }

    /// The verdict line of a try.
    static func verdict(_ decision: ScenarioDecision, at: Double) -> String {
        let time = WallTime.format(at)
        if decision.allowed { return "\(time)  executes" }
        var line = "\(time)  not now: " + decision.failures.map(\.detail).joined(separator: "; ")
        if let t = decision.earliestTime { line += "; earliest \(WallTime.format(t.rounded(.up)))" }
        return line
    }

    /// The verdict line of a try the flow's schedule or quiet hours refused.
    static func verdict(timeRefusal refused: (reason: String, earliest: Double?), at: Double) -> String {
        "\(WallTime.format(at))  not now: \(refused.reason)" + (refused.earliest.map { "; earliest \(WallTime.format($0.rounded(.up)))" } ?? "; never again")
    }

    /// The command: NAME and the rule flags, or `--flow FILE`'s scenario and `when` rules (and
    /// its schedule and quiet hours), then the timeline.
    static func run(_ parsed: ParsedArguments, options: ScenarioOptions, command: String) throws(UsageError) -> ExitStatus {
        var positionals = options.names
        let name: String?, rules: ScenarioRules
        var timed: FlowDocument?
        if let path = parsed.value("--flow") {
            if GateOptions.rulesGiven(parsed) { throw UsageError(message: "--flow takes its rules from the flow: give no rule flags", command: command) }
            guard positionals.count <= 1 else { throw UsageError(message: "with --flow, give only the TIMELINE", command: command) }
            guard let result = loadFlowFileReporting(path) else { return .noInput }
            for d in result.errors { printError(d.formatted(file: displayName(path))) }
            guard result.isPlayable, let doc = result.document else { return .dataError }
            if doc.schedule != nil || doc.quietHours != nil { timed = doc }
            guard doc.scenario != nil || timed != nil else {
                printError(
                    "rocket: error: '\(Sanitizer.clean(path, keepNewlines: false))' names no \"scenario\", \"schedule\" or \"quietHours\": it is shown whenever it is played"
                )
                return .dataError
            }
            name = doc.scenario
            rules = doc.when ?? ScenarioRules()
        } else {
            guard let first = positionals.first else { throw UsageError(message: "give the scenario's NAME, or --flow FILE", command: command) }
            name = first
            rules = options.rules
            positionals.removeFirst()
        }
        return play(name: name, rules: rules, timed: timed, timeline: positionals.first ?? "-", explain: options.gate.explain)
    }

    /// Plays the timeline file (`-`: standard input) and prints each try's verdict. `timed` is a
    /// flow whose schedule and quiet hours (in the host's local time, as `rocket play` reads
    /// them) are asked first, as a start asks them; without `name` nothing else is asked.
    static func play(name: String?, rules: ScenarioRules, timed: FlowDocument? = nil, timeline: String, explain: Bool) -> ExitStatus {
        let store = InMemoryScenarioStore()
        let scenario = name.map { NamedScenario($0, rules: rules) }
        let file = timeline == "-" ? "<stdin>" : Sanitizer.clean(timeline, keepNewlines: false)
        var previous: Double?
        var tries = 0, executions = 0
        var triggered: Set<String> = []
        var failure: ExitStatus?
        let read = FileIO.forEachLine(timeline, maxLineBytes: RocketLimits.lineBytes) { bytes, number in
            let line = String(decoding: bytes, as: UTF8.self)
            switch parse(line.hasSuffix("\r") ? String(line.dropLast()) : line, previous: previous) {
            case .failure(let problem):
                printError("\(file):\(number):\(problem.column): error: \(Sanitizer.clean(problem.message, keepNewlines: false))")
                failure = .dataError
                return false
            case .success(nil):
                return true
            case .success(let step?):
                previous = step.at
                do throws(ScenarioStoreError) {
                    switch step.action {
                    case .trigger(let other):
                        guard let scenario = other.isEmpty ? name : other else {
                            printError("\(file):\(number):1: error: the flow names no \"scenario\": say which one this event is of")
                            failure = .dataError
                            return false
                        }
                        if triggered.insert(scenario).inserted, triggered.count > RocketLimits.simulatedScenarios {
                            printError(
                                "\(file):\(number):1: error: a timeline triggers at most \(RocketLimits.simulatedScenarios) different scenarios")
                            failure = .dataError
                            return false
                        }
                        try store.triggerEvent(scenario, at: step.at)
                    case .attempt:
                        tries += 1
                        // The flow's clock first: a refusal there counts nothing.
                        if let timed, let refused = timed.timeRefusal(at: step.at, utcOffset: Environment.utcOffset(at: step.at)) {
                            printOut(verdict(timeRefusal: refused, at: step.at))
                        } else if let scenario {
                            let decision = try scenario.decide(in: store, at: step.at)
                            if decision.allowed { executions += 1 }
                            printOut(verdict(decision, at: step.at))
                            if explain { for check in decision.explanation { printOut("    " + check) } }
                        } else {
                            executions += 1
                            printOut("\(WallTime.format(step.at))  executes")
                        }
                    }
                } catch {
                    printError("rocket: error: \(file):\(number): \(error.message)")
                    failure = .dataError
                    return false
                }
                return true
            }
        }
        if case .failure(let f) = read {
            printError("rocket: error: cannot read '\(file)': \(f.reason)")
            return .noInput
        }
        if let failure { return failure }
        printOut("executed \(executions) of \(tries) tr\(tries == 1 ? "y" : "ies")")
        return .ok
    }
}
