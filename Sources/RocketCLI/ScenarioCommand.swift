import RocketJSON
import RocketCore
import RocketFlow
import RocketScenarios
import RocketScenariosPostgres
import RocketPostgres
import RocketTerminal
import RocketTerminalCore
#if canImport(Glibc)
    import Glibc
#endif
import RocketPlatform

enum ScenarioCommand {
    static let storeOption = OptionSpec.value(
        "--store", "PATH|URL", "The store: a file, or a postgresql:// URL (default $ROCKET_STORE, else $XDG_STATE_HOME/rocket/scenarios.sqlite).")
    static let nowOption = OptionSpec.value("--now", "T", "The time: ISO-8601 (2026-01-01T00:00:00Z) or @EPOCHSECONDS.")

    static let ruleOptions: [OptionSpec] = [
        .value("--min-events", "N", "At least N events (inclusive)."),
        .value("--max-events", "N", "At most N events (inclusive)."),
        .value("--max-executions", "N", "Fewer than N executions so far (0 never executes)."),
        .value("--min-since-first-event", "D", "More than D since the first event."),
        .value("--min-since-last-event", "D", "More than D since the last event."),
        .value("--min-between-executions", "D", "More than D since the last execution."),
        .value("--min-events-in-window", "N", "At least N events within --window."),
        .value("--window", "D", "The window for --min-events-in-window."),
        .value("--budget", "N", "At most N executions across all scenarios within --budget-window."),
        .value("--budget-window", "D", "The window for --budget."),
        .value("--events-of", "NAME", "Count the events of scenario NAME (say, app-launch) instead of this one's own."),
    ]

    static let subcommands: [(name: String, spec: CommandSpec)] = [
        (
            "trigger",
            CommandSpec(
                name: "scenario trigger", abstract: "Count an event of a scenario (checks nothing).",
                positionals: [("NAME", "The scenario.")], positionalCount: 1...1, options: [nowOption, storeOption],
                discussion: "", exitStatus: "0 counted; 64 usage error; 74 store error.",
                examples: ["rocket scenario trigger app-launch", "rocket scenario trigger app-launch --now 2026-01-01T09:00:00Z --store /tmp/s.sqlite"],
                strayValue: .last("--store"))
        ),
        (
            "try",
            CommandSpec(
                name: "scenario try", abstract: "May the scenario execute now? If so, this try counts as its execution.",
                positionals: [("NAME", "The scenario.")], positionalCount: 1...1,
                options: ruleOptions.map { $0.inGroup("RULES") } + [
                    nowOption, storeOption, .flag("--explain", "Say which condition passed or failed, on stderr."),
                ],
                discussion: "D is seconds, or a number with ms, s, m, h, d or w (90, 500ms, 1.5h, 14d); at most 100 years.",
                exitStatus: "0 executed; 1 not executed; 64 usage error; 74 store error.",
                examples: [
                    "rocket scenario try ask-review --events-of app-launch --min-events 5 --min-since-first-event 14d --max-executions 3 && echo 'Enjoying it?'",
                    "rocket scenario try tip --min-between-executions 1d --budget 1 --budget-window 24h --explain",
                ], strayValue: .last("--store"))
        ),
        (
            "simulate",
            CommandSpec(
                name: "scenario simulate", abstract: "Play a timeline of events and tries against the rules, in memory: when does it execute?",
                positionals: [
                    ("NAME", "The scenario (not with --flow)."),
                    ("TIMELINE", "Lines 'TIME trigger [SCENARIO]' and 'TIME try' (- or none: standard input)."),
                ], positionalCount: 0...2,
                options: ruleOptions.map { $0.inGroup("RULES") } + [
                    .value(
                        "--flow", "FILE",
                        "Take the scenario and its rules from a flow file's \"scenario\" and \"when\" (instead of NAME and RULES), and ask its \"schedule\" and \"quietHours\" first."
                    ),
                    .flag("--explain", "Print every condition's check under each try."),
                ],
                discussion: """
                    TIME is ISO-8601 (2026-01-01T09:00:00Z), @EPOCHSECONDS, or +D after the line before
                    (+1d, +90m). A trigger counts an event of SCENARIO (default NAME); a try decides, and
                    counts an execution when it executes. Blank lines and lines starting with # are
                    skipped. Each try prints its time and verdict on stdout, with the failed conditions
                    and the earliest time the clock alone would allow; the last line counts the
                    executions. No store is read or written. With --flow, a flow's schedule and quiet
                    hours (in this machine's local time: set TZ for another) refuse a try before its
                    scenario is asked, as a start is refused.
                    """,
                exitStatus: "0 played; 64 usage error; 65 a line that cannot be read (FILE:LINE:COL); 66 missing or unreadable file.",
                examples: [
                    "printf '2026-01-01T09:00:00Z trigger app-launch\\n+1d try\\n+1d try\\n' | rocket scenario simulate review --events-of app-launch --min-since-first-event 36h --max-executions 1",
                    "rocket scenario simulate tip --min-between-executions 1d --explain timeline.txt",
                    "rocket scenario simulate --flow onboarding.json timeline.txt",
                ])
        ),
        (
            "status",
            CommandSpec(
                name: "scenario status", abstract: "Show the statistics of one scenario or all.",
                positionals: [("NAME", "The scenario (default: all).")], positionalCount: 0...1,
                options: [.flag("--json", "Print JSON (the export format)."), storeOption, nowOption],
                discussion: "Reads the store without writing to it: a read-only store can be read; a missing one is empty.",
                exitStatus: "0 shown; 64 usage error; 74 store error.",
                examples: ["rocket scenario status", "rocket scenario status ask-review --json"], strayValue: .last("--store"))
        ),
        (
            "reset",
            CommandSpec(
                name: "scenario reset", abstract: "Clear the statistics of a scenario, or of all with --all.",
                positionals: [("NAME", "The scenario.")], positionalCount: 0...1,
                options: [.flag("--all", "Clear every scenario."), storeOption],
                discussion: "Clears the statistics and the scenario's entries in the shared budget.",
                exitStatus: "0 cleared; 64 usage error; 74 store error.",
                examples: ["rocket scenario reset ask-review", "rocket scenario reset --all --store /tmp/s.sqlite"], strayValue: .last("--store"))
        ),
        (
            "export",
            CommandSpec(
                name: "scenario export", abstract: "Print all state as JSON.", positionals: [], positionalCount: 0...0,
                options: [storeOption], discussion: "Reads the store without writing to it.",
                exitStatus: "0 exported; 64 usage error; 74 store error or stdout cannot be written.",
                examples: ["rocket scenario export > scenarios.json", "rocket scenario export --store old.sqlite | rocket scenario import -"],
                strayValue: .last("--store"))
        ),
        (
            "import",
            CommandSpec(
                name: "scenario import", abstract: "Replace all state with a JSON export.",
                positionals: [("FILE", "A file written by 'rocket scenario export' (- for standard input).")], positionalCount: 1...1,
                options: [storeOption],
                discussion: "Every count, time and name is checked before anything is replaced (names by the rule trigger and try apply).",
                exitStatus: "0 imported; 64 usage error; 65 not a valid export; 66 missing or unreadable file; 74 store error.",
                examples: ["rocket scenario import scenarios.json", "rocket scenario import backup.json --store /tmp/s.sqlite"],
                strayValue: .last("--store"))
        ),
    ]

    static var help: String {
        var out =
            "OVERVIEW: Decide when something may be shown (WaitForIt's scenarios), from shell scripts.\n\nUSAGE: rocket scenario <subcommand> [options]\n\nSUBCOMMANDS:\n"
        for (name, spec) in subcommands { out += "  " + pad(name, 10) + spec.abstract + "\n" }
        out += "\n  See 'rocket scenario <subcommand> --help' for the options of each."
        return out
    }

    static func run(_ args: [String]) throws(UsageError) -> ExitStatus {
        guard let first = args.first else {
            printError(help)
            return ExitStatus.usage
        }
        if first == "--help" || first == "-h" { printOut(help); return ExitStatus.ok }
        guard let (_, spec) = subcommands.first(where: { $0.name == first }) else {
            let close = Suggestions.closest(to: first, in: subcommands.map(\.name))
            throw UsageError(message: "unknown subcommand '\(first)'" + (close.map { "; did you mean '\($0)'?" } ?? ""), command: "scenario")
        }
        let parsed = try parse(Array(args.dropFirst()), as: spec)
        if parsed.helpRequested { printOut(spec.help); return ExitStatus.ok }
        let options = try ScenarioOptions(parsed, subcommand: first, command: spec.name)
        if first == "simulate" { return try ScenarioSimulation.run(parsed, options: options, command: spec.name) }
        let now = options.gate.now
        let store: any ScenarioStore
        switch openStore(options.gate.store, forReading: first == "status" || first == "export") {
        case .failure(let e): printError("rocket: error: \(e.message)"); return ExitStatus.ioError
        case .success(let s): store = s
        }
        do throws(ScenarioStoreError) {
            switch first {
            case "trigger":
                try store.triggerEvent(options.names[0], at: now)
                return ExitStatus.ok
            case "try":
                return try decide(
                    options.names[0], rules: options.rules, in: store, at: now, wallClock: options.gate.wallClock, explaining: options.gate.explain)
                    ? ExitStatus.ok : ExitStatus.notCompleted
            case "status":
                let snapshot = try store.snapshot()
                let names = options.names.isEmpty ? snapshot.scenarios.keys.sorted() : options.names
                // A name the store has never seen reads as all zeros, as it should; said on
                // stderr too, since a typo reads the same (the nearest name it knows).
                let known = snapshot.scenarios.keys.sorted()
                for n in options.names where snapshot.scenarios[n] == nil && !known.isEmpty {
                    printError(
                        "rocket scenario: no events or shows of \(FlowDiagnostic.quoted(n)) in this store yet"
                            + nearestAndAll(n, among: known, listedAs: "it knows"))
                }
                if options.json {
                    var selected = snapshot
                    selected.scenarios = selected.scenarios.filter { names.contains($0.key) }
                    for n in names where selected.scenarios[n] == nil { selected.scenarios[n] = ScenarioStats() }
                    if !options.names.isEmpty { selected.executions = selected.executions.filter { names.contains($0.scenario) } }
                    printOut(json(selected))
                } else {
                    for n in names {
                        let inBudget = snapshot.executions.filter { $0.scenario == n }.count
                        printOut(describe(n, snapshot.scenarios[n] ?? ScenarioStats()) + "; \(inBudget) in the budget log")
                    }
                    printOut(budgetLine(snapshot.executions, now: now))
                }
                return ExitStatus.ok
            case "reset":
                if options.all { try store.resetAll() } else { try store.reset(options.names[0]) }
                return ExitStatus.ok
            case "export":
                printOut(json(try store.snapshot()))
                return ExitStatus.ok
            default:  // import
                switch FileIO.read(options.names[0], limit: JSONReaderLimits().maxBytes) {
                case .failure(let f):
                    printError("rocket: error: cannot read '\(Sanitizer.clean(options.names[0], keepNewlines: false))': \(f.reason)")
                    return ExitStatus.noInput
                case .success(let bytes):
                    let snapshot: ScenarioSnapshot
                    do throws(ScenarioStoreError) {
                        snapshot = try ScenarioSnapshot(json: bytes)
                    } catch {
                        // FILE:LINE:COL: as lint and the compilers write it, where the place is known.
                        var place = options.names[0] == "-" ? "<stdin>" : Sanitizer.clean(options.names[0], keepNewlines: false)
                        if let offset = error.offset {
                            let p = SourceLines(bytes).position(of: offset)
                            place += ":\(p.line):\(p.column)"
                        }
                        printError("rocket: error: \(place): \(error.message)")
                        return ExitStatus.dataError
                    }
                    try store.restore(snapshot)
                    return ExitStatus.ok
                }
            }
        } catch {
            printError("rocket: error: \(error.message)")
            return error.kind == .invalidData ? ExitStatus.dataError : ExitStatus.ioError
        }
    }

    /// Decides whether something gated by scenario `name` may be shown now (counting it when
    /// so), from resolved options: `.ok`, `.notNow`, or `.ioError` for a store error.
    static func gate(_ name: String, rules: ScenarioRules, store: String?, now: Double, wallClock: Bool, explain: Bool) -> ExitStatus {
        switch openStore(store) {
        case .failure(let e):
            printError("rocket: error: \(e.message)")
            return .ioError
        case .success(let opened):
            do throws(ScenarioStoreError) {
                return try decide(name, rules: rules, in: opened, at: now, wallClock: wallClock, explaining: explain) ? .ok : .notNow
            } catch {
                printError("rocket: error: \(error.message)")
                return .ioError
            }
        }
    }

    /// Tries the scenario (counting the execution when allowed) and explains the decision on
    /// stderr when asked, or always when the clock moved backwards.
    ///
    /// `now` read from the wall clock (`wallClock`) comes before the wait for the store, which
    /// another process may hold: a time it recorded meanwhile (no later than the clock once the
    /// decision is made) is that process's work, not a clock that moved back, and is not
    /// reported as one. The decision itself stays the one made at `now`.
    static func decide(
        _ name: String, rules: ScenarioRules, in store: any ScenarioStore, at now: Double,
        wallClock: Bool = false, explaining: Bool
    ) throws(ScenarioStoreError) -> Bool {
        let decision = reported(try NamedScenario(name, rules: rules).decide(in: store, at: now), wallClock: wallClock, clockAfter: WallTime.now)
        if explaining || decision.clockMovedBackwards { explain(decision, verdict: true) }
        return decision.allowed
    }

    /// `decision` as it is reported: with `now` read from the wall clock, a recorded time no later
    /// than `clockAfter` (the clock once the decision was made) is no clock that moved back.
    static func reported(_ decision: ScenarioDecision, wallClock: Bool, clockAfter: Double) -> ScenarioDecision {
        var d = decision
        if wallClock, d.clockMovedBackwards, let latest = d.latestRecorded, latest <= clockAfter { d.clockMovedBackwards = false }
        return d
    }

    /// Prints a decision's lines on stderr.
    static func explain(_ decision: ScenarioDecision, verdict: Bool) {
        for line in decision.explanation { printError(line) }
        if verdict {
            var last = decision.allowed ? "→ executes now" : "→ not now"
            if !decision.allowed, let t = decision.earliestTime { last += "; earliest \(WallTime.format(t.rounded(.up)))" }
            printError(last)
        }
    }

    /// The shared budget log: how many executions it holds, how many in the last day and week,
    /// and the latest (what a `--budget` rule counts).
    static func budgetLine(_ executions: [ScenarioSnapshot.Execution], now: Double) -> String {
        guard let latest = executions.max(by: { $0.at < $1.at }) else { return "budget log: empty (no executions yet)" }
        let day = executions.filter { now - $0.at < 86_400 && $0.at <= now }.count
        let week = executions.filter { now - $0.at < 7 * 86_400 && $0.at <= now }.count
        return "budget log: \(executions.count) executions across all scenarios; \(day) in the last 24h, \(week) in the last 7d; "
            + "latest \(Sanitizer.clean(latest.scenario, keepNewlines: false)) at \(WallTime.format(latest.at))"
    }

    static func describe(_ name: String, _ s: ScenarioStats) -> String {
        func date(_ d: Double?) -> String { d.map { WallTime.format($0) } ?? "never" }
        // A flow's snooze (FlowSnooze): its last event is when it ends.
        if name.hasPrefix("rocket.snoozed."), let until = s.lastEventDate {
            let when = until >= WallTime.validRange.upperBound ? "for good" : "until \(date(until))"
            return
                "\(Sanitizer.clean(name, keepNewlines: false)): a snooze of the flow \(Sanitizer.clean(String(name.dropFirst(15)), keepNewlines: false)), \(when)"
        }
        return
            "\(Sanitizer.clean(name, keepNewlines: false)): events \(s.eventsCount) (first \(date(s.firstEventDate)), last \(date(s.lastEventDate))); executions \(s.executionsCount) (last \(date(s.lastExecutionDate)))"
    }

    static func json(_ snapshot: ScenarioSnapshot) -> String {
        snapshot.jsonText
    }

    /// The store at `--store`, `$ROCKET_STORE`, `$XDG_STATE_HOME/rocket/scenarios.sqlite` or
    /// `~/.local/state/rocket/scenarios.sqlite`: a `postgresql://` URL is a PostgreSQL store, anything else a file.
    /// Only the default folder is created when missing:
    /// an explicit path in a missing folder is an error (a typo must not scatter stores).
    /// `forReading` opens without writing anything (status, export): a missing file in an existing
    /// folder (or the default one) reads as an empty store, and a read-only file or folder can be read.
    /// A file made now gets pages of `pageSize` bytes.
    static func openStore(
        _ flag: String?, forReading: Bool = false, pageSize: Int = SQLiteScenarioStore.statisticsPageSize
    ) -> Result<any ScenarioStore, ScenarioStoreError> {
        let env = Environment.current
        let path: String
        let explicit: Bool
        if let flag {
            path = flag
            explicit = true
        } else if let p = env["ROCKET_STORE"], !p.isEmpty {
            path = p
            explicit = true
        } else {
            path = ScenarioStores.defaultPath(environment: env)
            explicit = false
        }
        if PostgresURL.names(path) {
            do throws(ScenarioStoreError) {
                if forReading { return .success(try PostgresScenarioStore(readingOnly: path) ?? InMemoryScenarioStore()) }
                return .success(try PostgresScenarioStore(url: path))
            } catch {
                return .failure(error)
            }
        }
        let dir = PathName.directory(path)
        // An explicit path in a missing folder is a typo for reading and writing alike: reading
        // it as an empty store would look like "no data yet".
        if explicit, !dir.isEmpty, !FileIO.exists(dir) {
            return .failure(ScenarioStoreError(.io, "the folder \(dir) does not exist (store \(path))"))
        }
        if forReading {
            guard FileIO.exists(path) else { return .success(InMemoryScenarioStore()) }
            do throws(ScenarioStoreError) { return .success(try SQLiteScenarioStore(readingOnly: path)) } catch { return .failure(error) }
        }
        if !dir.isEmpty, !FileIO.exists(dir) {
            if !makeDirectories(dir) {
                return .failure(ScenarioStoreError(.readOnly, "cannot create the folder \(dir): \(String(cString: strerror(errno)))"))
            }
        }
        do throws(ScenarioStoreError) { return .success(try SQLiteScenarioStore(path: path, pageSize: pageSize)) } catch { return .failure(error) }
    }

    static func makeDirectories(_ path: String) -> Bool {
        var st = stat()
        if stat(path, &st) == 0 { return (st.st_mode & S_IFMT) == S_IFDIR }
        let parent = PathName.directory(path)
        if !parent.isEmpty && parent != path && !makeDirectories(parent) { return false }
        return mkdir(path, 0o755) == 0 || errno == EEXIST
    }
}
