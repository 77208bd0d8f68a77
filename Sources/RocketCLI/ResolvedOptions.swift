import RocketCore
import RocketFlow
import RocketText
import RocketPlatform
import RocketBanners
import RocketReactor
import RocketScenarios
import RocketTerminal
import RocketTerminalCore

// Each command's options, resolved and validated once from the parsed arguments. Commands read
// these typed values; only the initialisers below look options up by their spelling, and they
// use the spellings declared in `OptionGroups` and the command specs.

/// The scenario-gate options shared by `play`, `demo`, `banner` and `scenario try`.
struct GateOptions {
    /// `--store PATH`, or nil for the default store.
    var store: String?
    /// `--now T`, or the wall clock at resolution.
    var now: Double
    /// True when `now` is the wall clock's (no `--now`).
    var wallClock: Bool
    /// `--explain`.
    var explain: Bool

    init(_ parsed: ParsedArguments, command: String) throws(UsageError) {
        store = parsed.value("--store")
        now = try Self.time(parsed, command: command)
        wallClock = parsed.value("--now") == nil
        explain = parsed.has("--explain")
    }

    /// `--now`, or the wall clock.
    static func time(_ parsed: ParsedArguments, command: String) throws(UsageError) -> Double {
        guard let text = parsed.value("--now") else { return WallTime.now }
        guard let t = WallTime.parse(text) else {
            throw UsageError(
                message: "'--now \(text)' is not a time from year 1 to 9999; use ISO-8601 (2026-01-01T00:00:00Z) or @EPOCHSECONDS", command: command)
        }
        return t
    }

    /// The scenario rules the rule flags give, through the shared codec.
    static func rules(_ parsed: ParsedArguments, command: String) throws(UsageError) -> ScenarioRules {
        var values: [ScenarioRulesCodec.Field: ScenarioRulesCodec.Input] = [:]
        for field in ScenarioRulesCodec.Field.allCases {
            if let flag = field.flag, let text = parsed.value(flag) { values[field] = .text(text) }
        }
        let (rules, problems) = ScenarioRulesCodec.rules(values)
        if let p = problems.first, let flag = p.field.flag {
            if case .missingPartner(let other) = p.reason {
                throw UsageError(message: "\(flag) and \(other.flag ?? other.rawValue) go together", command: command)
            }
            throw UsageError(message: "'\(flag) \(parsed.value(flag) ?? "")' \(p.message)", command: command)
        }
        return rules
    }

    /// True when any rule flag was given.
    static func rulesGiven(_ parsed: ParsedArguments) -> Bool {
        ScenarioRulesCodec.Field.allCases.contains { field in field.flag.map { parsed.value($0) != nil } ?? false }
    }

    /// Asks the store whether scenario `name` with `rules` may be shown now.
    func decide(_ name: String, rules: ScenarioRules) -> ExitStatus {
        ScenarioCommand.gate(name, rules: rules, store: store, now: now, wallClock: wallClock, explain: explain)
    }
}

/// The options of `play` and `demo`, resolved and validated once, before anything is read or
/// drawn: every later step reads typed fields, not option names.
struct PlayOptions {
    var plain: Bool
    var instant: Bool
    var mouse: Bool
    /// `--theme` (nil: auto).
    var theme: TerminalTheme?
    var verbose: Bool
    var events: String?
    var answersOut: String?
    /// `--case-out FILE` (play): the session as a case of `rocket test`.
    var caseOut: String?
    /// `--answers FILE`: answers given ahead, by block id.
    var answers: String?
    /// `--answer ID=VALUE`, in order.
    var answerFlags: [String]
    /// True when answers are given ahead (a file or flags): nobody may be there to tap.
    var answersGiven: Bool { answers != nil || !answerFlags.isEmpty }
    var printActions: Bool
    var hooks: ActionHooks
    var vars: [String: String]
    /// `--lang` (nil: the environment's language).
    var lang: String?
    /// `--visitor` (nil: the stable default).
    var visitor: String?
    /// `--min-gap` in seconds (0: none).
    var minGap: Double

    /// The language to read a flow in: `--lang`, else the environment's (`it_IT.UTF-8` → `it-IT`).
    var language: String? {
        if let lang { return lang }
        let tag = UIStrings.locale(Environment.current).split(separator: ".").first.map { String($0).replacingAll("_", with: "-") } ?? ""
        return FlowDocument.isLanguageTag(tag) ? tag : nil
    }
    var state: String?
    var restart: Bool
    var gate: GateOptions
    var ignoreRules: Bool
    /// True when the flow is read from standard input (`-`): the keys then come from the terminal.
    var flowFromStdin: Bool
    /// True when standard input is read for the flow or the answers: the keys then come from the
    /// terminal.
    var stdinTaken: Bool { flowFromStdin || answers == "-" }

    init(_ parsed: ParsedArguments, command: String) throws(UsageError) {
        plain = parsed.has("--plain")
        instant = parsed.has("--instant")
        mouse = parsed.has("--mouse")
        theme = try themeOption(parsed, command: command)
        verbose = parsed.has("--verbose")
        events = parsed.value("--events")
        answersOut = parsed.value("--answers-out")
        caseOut = parsed.value("--case-out")
        answers = parsed.value("--answers")
        answerFlags = parsed.all("--answer")
        printActions = parsed.has("--print-actions")
        hooks = try ActionHooks.parse(parsed.all("--on-action"), command: command)
        vars = try PlayCommand.variables(parsed)
        lang = parsed.value("--lang")
        visitor = parsed.value("--visitor")
        if let d = parsed.value("--min-gap") {
            guard let seconds = RocketDuration.parse(d), seconds > 0, seconds <= 86_400 else {
                throw UsageError(message: "--min-gap must be a duration from 1ms to 1d (30s, 5m)", command: command)
            }
            minGap = seconds
        } else {
            minGap = 0
        }
        if let visitor, visitor.isEmpty || visitor.utf8.count > 128 {
            throw UsageError(message: "--visitor takes an id of 1 to 128 bytes", command: command)
        }
        if let lang, !FlowDocument.isLanguageTag(lang) {
            throw UsageError(message: "--lang \(lang) is not a language tag like en, it or pt-BR", command: command)
        }
        state = parsed.value("--state")
        restart = parsed.has("--restart")
        if restart && state == nil { throw UsageError(message: "--restart applies only with --state FILE", command: command) }
        gate = try GateOptions(parsed, command: command)
        ignoreRules = parsed.has("--ignore-rules")
        flowFromStdin = parsed.positionals.first == "-"
        if flowFromStdin && answers == "-" {
            throw UsageError(message: "the flow and --answers cannot both be read from standard input", command: command)
        }
        if state == "-" { throw UsageError(message: "--state needs a file, not -", command: command) }
        let toStdout = [("--events", events), ("--answers-out", answersOut), ("--case-out", caseOut)].filter { $0.1 == "-" }.map(\.0)
        if toStdout.count > 1 {
            throw UsageError(
                message: toStdout.map { $0 + " -" }.joined(separator: " and ") + " cannot \(toStdout.count == 2 ? "both" : "all") use standard output",
                command: command)
        }
    }
}

/// `rocket banner`'s options.
struct BannerOptions {
    /// The banner the flags describe.
    var banner: Banner
    /// `--plain`.
    var plain: Bool
    /// `--theme` (nil: auto).
    var theme: TerminalTheme?
    /// `--json`.
    var json: Bool
    /// `--scenario NAME` with its rules, when given.
    var scenario: (name: String, rules: ScenarioRules)?
    /// The gate options.
    var gate: GateOptions

    init(_ parsed: ParsedArguments, command: String) throws(UsageError) {
        banner = try BannerCommand.banner(from: parsed)
        plain = parsed.has("--plain")
        theme = try themeOption(parsed, command: command)
        json = parsed.has("--json")
        gate = try GateOptions(parsed, command: command)
        if let name = parsed.value("--scenario") {
            guard ScenarioRulesCodec.isName(name) else {
                throw UsageError(message: "--scenario must be \(ScenarioRulesCodec.nameRule)", command: command)
            }
            scenario = (name, try GateOptions.rules(parsed, command: command))
        } else if let flag = ScenarioRulesCodec.Field.allCases.compactMap(\.flag).first(where: { parsed.value($0) != nil }) {
            throw UsageError(message: "\(flag) applies only with --scenario NAME", command: command)
        } else if let flag = ["--explain", "--store", "--now"].first(where: { parsed.has($0) || parsed.value($0) != nil }) {
            throw UsageError(message: "\(flag) applies only with --scenario NAME", command: command)
        }
    }
}

/// `rocket alert`'s options.
struct AlertOptions {
    /// `--title`.
    var title: String?
    /// `--message`.
    var message: String?
    /// The `--action` specs, parsed and checked (at least one, at most one cancel, one enabled).
    var actions: [CLIAlertAction]
    /// `--sheet`.
    var sheet: Bool
    /// `--plain`.
    var plain: Bool
    /// `--theme` (nil: auto).
    var theme: TerminalTheme?
    /// `--json`.
    var json: Bool

    init(_ parsed: ParsedArguments, command: String) throws(UsageError) {
        title = parsed.value("--title")
        theme = try themeOption(parsed, command: command)
        message = parsed.value("--message")
        sheet = parsed.has("--sheet")
        plain = parsed.has("--plain")
        json = parsed.has("--json")
        actions = []
        for a in parsed.all("--action") { actions.append(try AlertCommand.action(a)) }
        if actions.isEmpty { throw UsageError(message: "give at least one --action", command: command) }
        if actions.filter({ $0.style == .cancel }).count > 1 { throw UsageError(message: "at most one cancel action", command: command) }
        if !actions.contains(where: \.isEnabled) { throw UsageError(message: "no enabled action to choose", command: command) }
    }
}

/// `rocket scenario SUBCOMMAND`'s options.
struct ScenarioOptions {
    /// The scenario names given (zero or one).
    var names: [String]
    /// `--store`, `--now`, `--explain`.
    var gate: GateOptions
    /// The rules of `scenario try` and `simulate`; empty rules for the other subcommands.
    var rules: ScenarioRules
    /// `--json` (status).
    var json: Bool
    /// `--all` (reset).
    var all: Bool

    init(_ parsed: ParsedArguments, subcommand: String, command: String) throws(UsageError) {
        names = parsed.positionals
        gate = try GateOptions(parsed, command: command)
        let named = subcommand != "simulate" || parsed.value("--flow") == nil  // with --flow the first positional is the timeline
        if ["trigger", "try", "status", "reset", "simulate"].contains(subcommand), named, let name = names.first, !ScenarioRulesCodec.isName(name) {
            throw UsageError(message: "NAME must be \(ScenarioRulesCodec.nameRule)", command: command)
        }
        rules = subcommand == "try" || subcommand == "simulate" ? try GateOptions.rules(parsed, command: command) : ScenarioRules()
        json = parsed.has("--json")
        all = parsed.has("--all")
        if subcommand == "reset" && all == !names.isEmpty { throw UsageError(message: "give a NAME or --all", command: command) }
    }
}

/// `rocket lint`'s options.
struct LintOptions {
    /// The flow files.
    var files: [String]
    /// `--format` (or `--json`).
    var format: DiagnosticFormat

    init(_ parsed: ParsedArguments, command: String) throws(UsageError) {
        files = parsed.positionals
        format = try DiagnosticFormat(parsed, command: command)
        if files.count(where: { $0 == "-" }) > 1 { throw UsageError(message: "- (standard input) may be given once", command: command) }
    }

    /// The files a path stands for: a folder's `NAME.json` regular files (what `rocket serve
    /// --flows` would offer from it, links left out, and its test files, `NAME.test.json`,
    /// which are checked as test files), else the path itself; nil for a folder that cannot be
    /// listed.
    static func files(for path: String) -> Result<[String], FileIO.Failure>? {
        guard path != "-", FileIO.isFolder(path) else { return nil }
        let folder = path.hasSuffix("/") && path.count > 1 ? String(path.dropLast()) : path
        return FileIO.regularFiles(in: folder, endingIn: ".json").map { names in names.map { folder + "/" + $0 } }
    }
}

/// `rocket graph`'s options.
struct GraphOptions {
    /// The picture's formats.
    enum Format: String, CaseIterable {
        /// Mermaid flowchart text.
        case mermaid
        /// Graphviz DOT text.
        case dot
        /// SVG drawn by Graphviz.
        case svg
        /// An outline to read in a terminal: a line a block, its ways on under it.
        case text
    }
    /// The flow file.
    var file: String
    /// `--format`.
    var format: Format

    init(_ parsed: ParsedArguments, command: String) throws(UsageError) {
        file = parsed.positionals[0]
        let text = parsed.value("--format") ?? Format.mermaid.rawValue
        guard let format = Format(rawValue: text) else {
            throw UsageError(message: "'--format \(text)' must be " + Format.allCases.map(\.rawValue).listedForMessage(conjunction: "or"), command: command)
        }
        self.format = format
    }
}

/// How `rocket lint` and `rocket test` write what they find: `--format text|json|github`, with
/// `--json` the short form of `--format json`.
enum DiagnosticFormat: String, CaseIterable {
    /// `FILE:LINE:COL: error|warning: MESSAGE`, a line each.
    case text
    /// One JSON document for tools.
    case json
    /// GitHub Actions workflow commands (`::error file=…,line=…::…`): each becomes an annotation
    /// on its line in the pull request.
    case github

    /// The option, as `rocket lint` and `rocket test` list it.
    static let option = OptionSpec.value(
        "--format", allCases.map(\.rawValue).joined(separator: "|"),
        "text (default), json (as --json) or github: GitHub Actions annotations, each shown on its line of the pull request.")

    init(_ parsed: ParsedArguments, command: String) throws(UsageError) {
        self = try chosenFormat(parsed, command: command, json: .json, fallback: .text)
    }
}

/// The format a command's output is asked in: `--format NAME` (one of `F`'s cases), `--json`
/// for `json`, else `fallback`; `--json` beside another format is refused.
func chosenFormat<F: RawRepresentable & CaseIterable & Equatable>(
    _ parsed: ParsedArguments, command: String, json: F, fallback: F
) throws(UsageError) -> F where F.RawValue == String {
    let jsonAsked = parsed.has("--json")
    guard let text = parsed.value("--format") else { return jsonAsked ? json : fallback }
    guard let format = F(rawValue: text) else {
        throw UsageError(message: "'--format \(text)' must be " + F.allCases.map(\.rawValue).listedForMessage(conjunction: "or"), command: command)
    }
    if jsonAsked && format != json { throw UsageError(message: "--json is --format json: give one format", command: command) }
    return format
}
