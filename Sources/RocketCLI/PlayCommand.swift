import RocketBanners
#if canImport(Glibc)
    import RocketJSON
    import Glibc
#endif
import RocketConversation
import RocketCore
import RocketFlow
import RocketScenarios
import RocketReactor
import RocketTerminalApps
import RocketTerminal
import RocketTerminalCore
import RocketPlatform
import RocketText

/// Exit statuses (sysexits where they apply).
/// Every exit status of `rocket`, in one place (sysexits where one fits).
public enum ExitStatus: Hashable, Sendable {
    /// 0: done (the flow ended, an action was chosen, …).
    case ok
    /// 1: not completed (closed by the user, the cancel action, not executed, a test case failed).
    case notCompleted
    /// 3: not now (a scenario said no; nothing was shown).
    case notNow
    /// 64: a usage error.
    case usage
    /// 65: invalid data (a flow, a snapshot, an export, an image).
    case dataError
    /// 66: a missing or unreadable input file.
    case noInput
    /// 69: something it needs is unavailable (Graphviz for SVG; the address `serve` listens on).
    case unavailable
    /// 73: a file it would create already exists.
    case cannotCreate
    /// 74: a file, the store or stdout could not be written.
    case ioError
    /// 77: a server refused the credentials given (a site key).
    case noPermission
    /// 124: a prompt's `--timeout` ran out with no default answer (as `timeout(1)` exits).
    case timedOut
    /// 127: the command `rocket spin` was given cannot be run.
    case commandNotRun
    /// The exit status of the command `rocket spin` ran (0–255).
    case child(Int32)
    /// 128 + the signal that ended it (130 for Ctrl-C, 143 for SIGTERM).
    case signal(Int32)

    /// The number the process exits with.
    public var code: Int32 {
        switch self {
        case .ok: return 0
        case .notCompleted: return 1
        case .notNow: return 3
        case .usage: return 64
        case .dataError: return 65
        case .noInput: return 66
        case .unavailable: return 69
        case .cannotCreate: return 73
        case .ioError: return 74
        case .noPermission: return 77
        case .timedOut: return 124
        case .commandNotRun: return 127
        case .child(let code): return code
        case .signal(let s): return 128 + s
        }
    }

    /// The status for an exit code a session computed (0, 1, or 128 + a signal).
    init(code: Int32) {
        switch code {
        case 0: self = .ok
        case 1: self = .notCompleted
        case 3: self = .notNow
        case 64: self = .usage
        case 65: self = .dataError
        case 66: self = .noInput
        case 69: self = .unavailable
        case 73: self = .cannotCreate
        case 74: self = .ioError
        case 77: self = .noPermission
        case 124: self = .timedOut
        default: self = code > 128 ? .signal(code - 128) : .notCompleted
        }
    }
}

/// An exit status carried as an error (a step that cannot go on decides how the command ends).
struct ExitStatusCode: Error {
    let code: ExitStatus
    init(_ code: ExitStatus) { self.code = code }
}

/// A message on stderr. Messages quote paths, argv and store names: every one goes through the
/// sanitizer here, whatever its call site already did (cleaning clean text changes nothing).
func printError(_ s: String) { FileIO.print(Sanitizer.clean(s), toError: true) }

/// A result line on stdout, through the same sanitizer.
func printOut(_ s: String) { FileIO.print(Sanitizer.clean(s)) }

struct FlowFileError: Error {
    let path: String
    let reason: String
}

/// Loads a flow file, or says on stderr why it cannot be read (nil: exit 66).
func loadFlowFileReporting(_ path: String, language: String? = nil) -> FlowLoadResult? {
    switch loadFlowFile(path, language: language) {
    case .failure(let e):
        printError("rocket: error: cannot read '\(Sanitizer.clean(e.path, keepNewlines: false))': \(e.reason)")
        return nil
    case .success(let r):
        return r
    }
}

/// How a flow file is named in messages: `<stdin>` for `-`.
func displayName(_ path: String) -> String { path == "-" ? "<stdin>" : path }

/// Loads a flow file (`-`: standard input, with images relative to the working directory); an
/// over-size file is refused from its size, without being read, and standard input once it
/// passes the limit. Given `now` (lint's wall clock), a schedule ended by then is a warning.
/// Its pictures are checked by their headers, or decoded with `decodingPictures` (lint: a
/// damaged picture is found before anyone plays the flow).
func loadFlowFile(_ path: String, language: String? = nil, now: Double? = nil, decodingPictures: Bool = false) -> Result<FlowLoadResult, FlowFileError> {
    let limit = JSONReaderLimits().maxBytes
    if path != "-" {
        switch FileIO.size(path) {
        case .failure(let f) where f.code == ENOENT: return .failure(FlowFileError(path: path, reason: f.reason + missingFlowHint(path)))
        case .failure(let f) where f.code == EISDIR: return .failure(FlowFileError(path: path, reason: f.reason + folderFlowHint(path)))
        case .failure(let f): return .failure(FlowFileError(path: path, reason: f.reason))
        case .success(let size) where size > limit: return .success(FlowLoader.tooLarge(size: size))
        case .success: break
        }
    }
    switch FileIO.read(path, limit: limit) {
    case .failure(let f): return .failure(FlowFileError(path: path, reason: f.reason))
    case .success(let bytes):
        var result = FlowLoader.load(bytes, language: language)
        if result.document == nil, let other = otherKindOfFile(bytes, path: path) {
            // Not a flow with mistakes but another kind of file: one error that says which.
            result = FlowLoadResult(
                document: nil, diagnostics: [FlowDiagnostic(severity: .error, code: "not-a-flow", message: other, path: "", line: 1, column: 1)])
        }
        // Jumps into other flows of the file's folder: linked into this flow's graph.
        if let doc = result.document, result.isPlayable {
            let folder = path == "-" ? "." : (PathName.directory(path).isEmpty ? "." : PathName.directory(path))
            let own = path == "-" ? "" : String(PathName.lastComponent(path).dropLast(path.hasSuffix(".json") ? 5 : 0))
            let linked = doc.linked(name: own) { name in
                guard case .success(let other) = FileIO.read(folder + "/" + name + ".json", limit: limit) else { return nil }
                return FlowLoader.load(other, language: language)
            }
            if linked.diagnostics.isEmpty {
                result = FlowLoadResult(document: linked.document, diagnostics: result.diagnostics)
            } else {
                result = FlowLoadResult(document: nil, diagnostics: result.diagnostics + FlowLoader.placed(linked.diagnostics, in: bytes))
            }
        }
        // A schedule that has ended: the flow is never shown again.
        if let now, let doc = result.document, let schedule = doc.schedule, schedule.hasEnded(at: now), let until = schedule.until {
            let ended = FlowDiagnostic(
                severity: .warning, code: "schedule-ended", message: "the schedule ended at \(until): the flow is never shown again",
                path: "schedule.until")
            result = FlowLoadResult(document: doc, diagnostics: result.diagnostics + FlowLoader.placed([ended], in: bytes))
        }
        // The files the flow names, relative to the flow file: what play would trip on.
        if let doc = result.document {
            let assets = FlowLoader.placed(AssetCheck.check(doc, base: path == "-" ? "" : PathName.directory(path), decoding: decodingPictures), in: bytes)
            if !assets.isEmpty {
                // A picture that cannot be shown stops it; one only larger than pages show does not.
                result = FlowLoadResult(
                    document: assets.contains { $0.severity == .error } ? nil : doc,
                    diagnostics: (result.diagnostics + assets)
                        .sorted { ($0.line ?? 0, $0.column ?? 0) < ($1.line ?? 0, $1.column ?? 0) })
            }
        }
        return .success(result)
    }
}

/// What to say after a name (`word`) that matches none of `names`: the nearest of them, when one
/// is a typo away, then all of them after `label` (`; did you mean "plan"? (it reads "plan" and
/// "seats")`); "" when there are none.
func nearestAndAll(_ word: String, among names: [String], listedAs label: String) -> String {
    var out = Suggestions.closest(to: word, in: names).map { "; did you mean \(FlowDiagnostic.quoted($0))?" } ?? ""
    if !names.isEmpty { out += " (\(label) " + names.map { FlowDiagnostic.quoted($0) }.listedForMessage() + ")" }
    return out
}

/// What to say after "no such file" for a flow file `path`: the file the name means when it lacks
/// `.json` (`rocket play onboarding` for onboarding.json), else the flow file beside it whose name
/// is a typo away ("did you mean 'welcome.json'?"); "" when there is none.
func missingFlowHint(_ path: String) -> String {
    let shown = { (p: String) in Sanitizer.clean(p, keepNewlines: false) }
    if !path.hasSuffix(".json"), case .success = FileIO.size(path + ".json") {
        return "; did you mean '\(shown(path + ".json"))'?"
    }
    let folder = PathName.directory(path)
    guard let near = Suggestions.closest(to: PathName.lastComponent(path), in: flowFiles(in: folder.isEmpty ? "." : folder) ?? []) else { return "" }
    return "; did you mean '\(shown(folder.isEmpty ? near : (folder.hasSuffix("/") ? folder : folder + "/") + near))'?"
}

/// What a file given as a flow is when it is plainly another kind of file this tool reads or
/// writes (a store, a test file, event records), and what reads it; nil when it may be a flow.
func otherKindOfFile(_ bytes: [UInt8], path: String) -> String? {
    let shown = { (p: String) in shellWord(p) }
    if isSQLiteFile(bytes) {
        return "an SQLite store (rocket serve's or rocket scenario's), not a flow file"
    }
    if path.hasSuffix(FlowTestFormat.suffix) {
        let flow = String(path.dropLast(FlowTestFormat.suffix.count)) + ".json"
        return "a test file of a flow's cases, not a flow: rocket test \(shown(path)) plays them against \(shown(flow))"
    }
    // Event records: one JSON object a line, each naming its event.
    let lines = bytes.prefix(64 << 10).split(separator: UInt8(ascii: "\n")).prefix(2)
    if lines.count == 2, lines.allSatisfy({ $0.starts(with: Array("{\"".utf8)) }),
        String(decoding: lines.first ?? [], as: UTF8.self).containsText("\"event\":")
    {
        return "event records (JSON Lines), not a flow: rocket report \(shown(path)) reads them"
    }
    return nil
}

/// The names of the flow files in `folder` (NAME.json, not its test files), sorted; nil when it
/// cannot be read.
func flowFiles(in folder: String) -> [String]? {
    guard case .success(let files) = FileIO.regularFiles(in: folder, endingIn: ".json") else { return nil }
    return files.filter { !$0.hasSuffix(FlowTestFormat.suffix) }.sorted()
}

/// True when `bytes` begin as every SQLite database file does (its 16-byte header string): a
/// store, given where records or a flow go.
func isSQLiteFile(_ bytes: some Collection<UInt8>) -> Bool { bytes.starts(with: Array("SQLite format 3\0".utf8)) }

/// What to say after "is a directory" for a folder given as a flow file: one of the flows in it
/// to name instead, and how many there are.
func folderFlowHint(_ path: String) -> String {
    guard let flows = flowFiles(in: path) else { return "" }
    guard let first = flows.first else { return "; it holds no flow files (NAME.json)" }
    let example = Sanitizer.clean((path.hasSuffix("/") ? path : path + "/") + first, keepNewlines: false)
    return flows.count == 1 ? "; name its flow: '\(example)'" : "; name one of its \(flows.count) flows, such as '\(example)'"
}

/// The name a flow file is reported under: its file name without `.json` (as `rocket serve`
/// names the flows of its folder); `-` for standard input.
func flowName(ofPath path: String) -> String {
    guard path != "-" else { return "-" }
    let file = PathName.lastComponent(path)
    return file.hasSuffix(".json") && file.count > 5 ? String(file.dropLast(5)) : file
}

/// Writes events as JSON Lines, flushed one by one, never with a secret. Each record begins
/// with `"at"`, the wall-clock time in seconds since 1970.
final class EventLog {
    private let file: FileIO.Writer
    private let clock: any RocketClock
    /// The experiment's variant of the conversation: every record names it.
    var variant: String?

    init(path: String, clock: any RocketClock = WallClock()) throws(FileIO.Failure) {
        file = try FileIO.Writer(path: path)
        self.clock = clock
    }

    func write(_ event: RocketEvent) {
        // The record written straight to bytes by its one definition (no JSONValue between).
        var w = JSONBytes(capacity: 128)
        guard event.writeRecord(into: &w, at: clock.now, variant: variant) else { return }
        w.out.append(0x0A)
        file.write(String(decoding: w.out, as: UTF8.self))
    }

    /// Writes a record of the host's own (`actionHook`, `banner`): `fields` after `"at"`.
    func write(_ fields: [(String, JSONValue)]) {
        file.write(JSONValue.object([("at", .number((clock.now * 1e6).rounded() / 1e6))] + fields).serialized(pretty: false) + "\n")
    }

    /// The first failed write, if any.
    var failure: FileIO.Failure? { file.failure }
}

enum PlayCommand {
    static let spec = CommandSpec(
        name: "play", abstract: "Play a flow file in the terminal, or through pipes.",
        positionals: [("FLOW.json", "The flow file (- for standard input; keys then come from the terminal).")], positionalCount: 1...1,
        options: OptionGroups.frontEnd + OptionGroups.output
            + [
                OptionSpec.value(
                    "--case-out", "FILE",
                    "Write this session as a case of rocket test (its answers, start values, path, actions and end values) to FILE (- for standard output)."
                ).inGroup("OUTPUT")
            ] + OptionGroups.conversation + OptionGroups.scenarioGate,
        discussion: """
            A flow with a "scenario" (and "when" rules) is shown only when that scenario may execute
            now; the showing counts as its execution.
            With --state FILE the conversation is saved atomically after every step. When FILE exists
            and belongs to this flow, play resumes there (the scenario is not asked again) and shows
            the transcript so far; reaching the end removes FILE; closing or interrupting keeps it.
            FILE.flow keeps the version of the flow it started with: after an edit of the flow's
            file it goes on as it began (said on stderr; --restart starts the new version).
            Secret answers are never saved.
            --answers FILE (what --answers-out wrote) and --answer ID=VALUE answer blocks ahead,
            each once, as if typed; with nobody at the terminal a text goes on by itself, so a
            flow answered in full runs to its end. A block left unanswered is asked.
            """,
        exitStatus: exitStatusOfPlay,
        examples: [
            "rocket play examples/welcome.json",
            "printf '1\\nAda\\n\\n\\n1\\n\\n' | rocket play examples/welcome.json --instant --answers-out -",
            "rocket play onboarding.json --state ~/.local/state/onboarding.json --on-action notify='notify-send hi'",
            "rocket play examples/survey.json --answers answers.json --answers-out - < /dev/null",
        ])

    static let exitStatusOfPlay = """
        0 the flow reached its end; 1 the user closed it (close button, Esc, end of input in
        plain mode); 3 not now (the flow's scenario did not allow it; nothing shown);
        130 Ctrl-C or SIGINT; 143 SIGTERM; 65 invalid flow, snapshot or answers; 66 missing or unreadable
        file; 64 usage error; 69 the --state file is in use by another play; 74 a file or the
        scenario store cannot be written.
        """

    static let demoSpec = CommandSpec(
        name: "demo", abstract: "A tour of every block type: timers, branching, validation, images and more.",
        positionals: [], positionalCount: 0...0,
        options: spec.options,
        discussion: "In a terminal: Enter or Space continues, ←/→ and Enter choose, Esc closes, Ctrl-C quits.",
        exitStatus: exitStatusOfPlay,
        examples: ["rocket demo", "printf '\\n\\n1\\nAda\\n\\n1234\\n1\\n2\\n\\n1\\n' | rocket demo --instant"])

    @MainActor
    static func run(_ args: [String]) async throws(UsageError) -> ExitStatus {
        let parsed = try parse(args, as: spec)
        if parsed.helpRequested { printOut(spec.help); return ExitStatus.ok }
        let options = try PlayOptions(parsed, command: spec.name)  // every option checked before anything else
        let path = parsed.positionals[0]
        guard let result = loadFlowFileReporting(path, language: options.language) else { return ExitStatus.noInput }
        // The person playing the flow is not its author: warnings only when asked for.
        for d in result.diagnostics where d.severity == .error || options.verbose { printError(d.formatted(file: displayName(path))) }
        guard result.isPlayable, var doc = result.document else { return ExitStatus.dataError }
        // A --lang the flow is not written in plays in its first language: said, since the
        // flag asked for another (the environment's language falls back without a word).
        if let asked = options.lang, !doc.languages.isEmpty, !doc.languages.contains(where: { FlowDocument.fits(asked, $0) }) {
            printError(
                "rocket play: warning: --lang \(Sanitizer.clean(asked, keepNewlines: false)): the flow is written in "
                    + doc.languages.map { FlowDiagnostic.quoted($0) }.listedForMessage() + "; it plays in \(FlowDiagnostic.quoted(doc.languages[0]))")
        }
        let flowName = flowName(ofPath: path)
        if let statePath = options.state, let status = lockState(statePath) { return status }
        let saved: ConversationSnapshot?
        switch savedState(doc, flowName: flowName, options: options) {
        case .failure(let status): return status.code
        case .success(let s):
            saved = s?.snapshot
            // Saved with an earlier version of the file: it goes on with that version.
            if let older = s?.doc {
                doc = older
                printError("rocket: note: the flow changed since this conversation started; it goes on as it began (--restart starts the new one)")
            }
        }
        let given: [String: GivenAnswer]
        switch givenAnswers(doc, options: options) {
        case .failure(let status): return status.code
        case .success(let g): given = g
        }
        let base = path == "-" ? "" : PathName.directory(path)
        // The version its start record names: the file's, read in its first language (as
        // rocket serve names it), so a flow's languages are one version.
        var version = String(flowIdentity(doc).prefix(12))
        if options.language != nil, path != "-", case .success(let first) = loadFlowFile(path, language: nil), let firstDoc = first.document {
            version = String(flowIdentity(firstDoc).prefix(12))
        }
        // Targeting (`when.if`) over the start values: a flow not for this user is not shown.
        // (A --var of the wrong type is the usage error play reports below.)
        if saved == nil, !options.ignoreRules, doc.showIf != nil, case .success(let start) = doc.startValues(options.vars.mapValues { .text($0) }) {
            let local = RocketExpression.LocalTime(localSeconds: options.gate.now + Double(Environment.utcOffset(at: options.gate.now)))
            if let why = doc.refusal(variables: start.variables, answers: start.answers, local: local) {
                if options.gate.explain || options.verbose { printError(why + "\n→ not now") }
                return ExitStatus.notNow
            }
        }
        // The schedule, then quiet hours in this machine's local time.
        if saved == nil, !options.ignoreRules, let timed = doc.timeRefusal(at: options.gate.now, utcOffset: Environment.utcOffset(at: options.gate.now)) {
            if options.gate.explain || options.verbose {
                let when = timed.earliest.map { "; not before " + WallTime.format($0.rounded(.up)) } ?? "; never again"
                printError(timed.reason + when + "\n→ not now")
            }
            return ExitStatus.notNow
        }
        // The gap since the last flow shown through the store (any flow; `--min-gap`).
        // The store, opened once when the gap or an experiment's assignment needs it.
        var opened: Result<any ScenarioStore, ScenarioStoreError>?
        func store() -> Result<any ScenarioStore, ScenarioStoreError> {
            if let opened { return opened }
            let result = ScenarioCommand.openStore(options.gate.store)
            opened = result
            return result
        }
        // A snooze this person pressed (a button's "snooze"), kept in the store.
        var snoozeStore: (any ScenarioStore)?
        if doc.snoozes {
            switch store() {
            case .failure(let error):
                if options.verbose { printError("rocket: note: snoozes are not kept: \(error.message)") }
            case .success(let store):
                snoozeStore = store
                if saved == nil, !options.ignoreRules {
                    do throws(ScenarioStoreError) {
                        if let why = try FlowSnooze.refusal(in: store, flow: flowName, visitor: nil, at: options.gate.now) {
                            if options.gate.explain || options.verbose {
                                printError(why.reason + (why.earliest == nil ? "; never again" : "") + "\n→ not now")
                            }
                            return ExitStatus.notNow
                        }
                    } catch {
                        printError("rocket: error: \(error.message)")
                        return ExitStatus.ioError
                    }
                }
            }
        }
        let gap = ShowingGap(seconds: options.minGap)
        var gapStore: (any ScenarioStore)?
        if saved == nil, !options.ignoreRules, gap.seconds > 0 {
            switch store() {
            case .failure(let error):
                printError("rocket: error: \(error.message)")
                return ExitStatus.ioError
            case .success(let store):
                gapStore = store
                do throws(ScenarioStoreError) {
                    // A flow that ignores the gap is shown whatever it says (its showing still counts).
                    if !doc.ignoresGap, let why = try gap.refusal(in: store, visitor: nil, at: options.gate.now) {
                        if options.gate.explain || options.verbose {
                            printError(why.reason + "; not before " + WallTime.format(why.earliest.rounded(.up)) + "\n→ not now")
                        }
                        return ExitStatus.notNow
                    }
                } catch {
                    printError("rocket: error: \(error.message)")
                    return ExitStatus.ioError
                }
            }
        }
        // An experiment: the visitor's variant decides the start; the holdout is shown nothing.
        var played = doc
        var exposure: (experiment: String, variant: String)?
        if let e = doc.experiment, saved == nil {
            let visitor = options.visitor ?? defaultVisitor()
            var assignment = e.assign(visitor: visitor)
            // The assignment kept in the store at the first exposure wins (changed weights keep
            // a visitor where they were); without a usable store, the hash alone decides.
            switch store() {
            case .success(let sqlite as SQLiteScenarioStore):
                do throws(ScenarioStoreError) {
                    let stored = try sqlite.assignment(
                        experiment: e.name, visitor: visitor, at: options.gate.now, known: e.assignmentNames, fresh: e.name(of: assignment))
                    assignment = e.assignment(named: stored) ?? assignment
                } catch {
                    if options.verbose { printError("rocket: note: the assignment is not kept: \(error.message)") }
                }
            case .success: break
            case .failure(let error):
                if options.verbose { printError("rocket: note: the assignment is not kept: \(error.message)") }
            }
            let name = e.name(of: assignment)
            switch assignment {
            case .holdout:
                if let eventsPath = options.events {
                    do throws(FileIO.Failure) {
                        let log = try EventLog(path: eventsPath)
                        log.write(RocketEvent.exposure(experiment: e.name, variant: name, shown: false, flow: flowName))
                        if let failure = log.failure { throw failure }
                    } catch {
                        printError("rocket: error: cannot write '\(Sanitizer.clean(eventsPath, keepNewlines: false))': \(error.reason)")
                        return ExitStatus.ioError
                    }
                }
                if options.verbose { printError("rocket: not shown: this visitor is in the holdout of the experiment \(e.name)") }
                return ExitStatus.notNow
            case .variant(let k):
                if let start = e.variants[k].start { played.graph.root = start }
                exposure = (e.name, name)
            }
        }
        // The scenario gate last: only a showing counts as its execution.
        if saved == nil, let name = doc.scenario, !options.ignoreRules {
            let status = options.gate.decide(name, rules: doc.when ?? ScenarioRules())
            if status != ExitStatus.ok { return status }
        }
        // Every gate passed: the showing is noted before anything is shown.
        if let gapStore {
            do throws(ScenarioStoreError) {
                try gap.recordShowing(in: gapStore, visitor: nil, at: options.gate.now)
            } catch {
                printError("rocket: error: \(error.message)")
                return ExitStatus.ioError
            }
        }
        return await play(
            played, imageBase: base.isEmpty ? nil : base, options: options, flowName: flowName, version: version, resume: saved, exposure: exposure,
            given: given, snoozes: options.ignoreRules ? nil : snoozeStore)
    }

    /// A session that reached its end as a case of `rocket test` (docs/FLOW_TESTS.md): the
    /// answers it was given (secret ones left out), the start values given, its language and
    /// variant, and what followed (the blocks shown, the actions, the variables at the end), so
    /// that the case holds for the flow as it is now.
    static func recordedCase(
        _ doc: FlowDocument, conversation c: Conversation, start: [String: RocketValue], lang: String?, variant: String?, actions: [String],
        snooze: String? = nil, clock: String? = nil, at now: Double
    ) -> JSONValue {
        var members: [(String, JSONValue)] = [("name", .string("recorded " + WallTime.format(now.rounded(.down))))]
        // A flow that reads the clock is played at the session's moment.
        if let clock { members.append(("now", .string(clock))) }
        let answers = doc.answerValues(of: c)
        if !answers.isEmpty { members.append(("answers", .object(answers.map { ($0.id, $0.value) }))) }
        if !start.isEmpty { members.append(("vars", .object(start.sorted { $0.key < $1.key }.map { ($0.key, $0.value.json) }))) }
        if let lang, !doc.languages.isEmpty { members.append(("lang", .string(lang))) }
        if let variant { members.append(("variant", .string(variant))) }
        var expect: [(String, JSONValue)] = [("path", .array(c.state.shown.map { .string(c.graph[$0].id ?? "") }))]
        expect.append(("actions", .array(actions.map(JSONValue.string))))
        if doc.snoozes { expect.append(("snooze", .string(snooze ?? "none"))) }
        let variables = doc.graph.variables.map { ($0.name, (c.variables[$0.name] ?? .null).json) }
        if !variables.isEmpty { expect.append(("vars", .object(variables))) }
        members.append(("expect", .object(expect)))
        return .object(members)
    }

    /// The answers given ahead for `doc`'s blocks, each with where it was given: `--answers
    /// FILE`'s, then `--answer ID=VALUE`'s over them. The exit status when they cannot be used
    /// (every problem said on stderr first): 65 for the file's, 64 for the flags'.
    static func givenAnswers(_ doc: FlowDocument, options: PlayOptions) -> Result<[String: GivenAnswer], ExitStatusCode> {
        var given: [String: GivenAnswer] = [:]
        if let path = options.answers {
            let name = displayName(path)
            switch FileIO.read(path, limit: JSONReaderLimits().maxBytes) {
            case .failure(let f):
                printError("rocket: error: cannot read '\(Sanitizer.clean(name, keepNewlines: false))': \(f.reason)")
                return .failure(ExitStatusCode(ExitStatus.noInput))
            case .success(let bytes):
                switch FlowAnswers.read(bytes, for: doc) {
                case .failure(let failure):
                    for d in failure.diagnostics { printError(d.formatted(file: name)) }
                    return .failure(ExitStatusCode(ExitStatus.dataError))
                case .success(let answers):
                    given = answers.byBlock.mapValues { GivenAnswer(value: $0.value, place: "\(name):\($0.line):\($0.column)") }
                }
            }
        }
        switch FlowAnswers.fromFlags(options.answerFlags, flag: "--answer", for: doc) {
        case .failure(let failure):
            for d in failure.diagnostics { printError("rocket: error: --answer: " + d.message) }
            return .failure(ExitStatusCode(ExitStatus.usage))
        case .success(let values):
            for (key, value) in values { given[key] = GivenAnswer(value: value, place: "--answer \(key)") }
        }
        return .success(given)
    }

    /// What a conversation on `clock` adds to its time for this machine's local time (`TZ`) at
    /// the wall-clock moment `wall` (`ConversationOptions.localShift`): its today(), time() and
    /// bounds counted from today read it.
    static func localShift(wall: Double, clock: some RocketClock) -> Double {
        wall - clock.now + Double(Environment.utcOffset(at: wall))
    }

    /// The lock file of a `--state` file (`FILE.lock`, beside the file its links lead to): held for
    /// as long as a conversation is played from it, so that two plays of one state never both
    /// resume it and overwrite each other's answers.
    static func lockPath(_ statePath: String) -> String { FileIO.linkTarget(statePath) + ".lock" }

    /// Takes `--state FILE`'s lock; the status to exit with when another play holds it (69) or it
    /// cannot be made (74), else nil.
    static func lockState(_ statePath: String) -> ExitStatus? {
        let lock = lockPath(statePath)
        switch FileIO.holdLockFile(lock) {
        case .success(true): return nil
        case .success(false):
            printError(
                "rocket: error: '\(statePath)' is in use by another rocket play; two plays of one conversation would overwrite each other's answers (wait for it to end, or give another --state)"
            )
            return ExitStatus.unavailable
        case .failure(let f):
            printError("rocket: error: cannot write '\(Sanitizer.clean(lock, keepNewlines: false))': \(f.reason)")
            return ExitStatus.ioError
        }
    }

    /// The flow's identity in snapshots: the hash of its graph as written (image paths not yet
    /// resolved against the folder it was run from).
    static func flowIdentity(_ doc: FlowDocument) -> String { doc.makeGraph().contentHash }

    /// The snapshot in `--state FILE` when it exists and belongs to `doc` (nil when there is none,
    /// or with `--restart`), with the version of the flow named `flowName` it was saved with when
    /// that is not `doc` (kept beside it, ``versionPath(_:)``); an exit status when it cannot be used.
    static func savedState(
        _ doc: FlowDocument, flowName: String, options: PlayOptions
    ) -> Result<(snapshot: ConversationSnapshot, doc: FlowDocument?)?, ExitStatusCode> {
        guard let statePath = options.state, !options.restart, FileIO.exists(statePath) else { return .success(nil) }
        let bytes: [UInt8]
        switch FileIO.read(statePath) {
        case .failure(let f):
            printError("rocket: error: cannot read '\(statePath)': \(f.reason)")
            return .failure(ExitStatusCode(ExitStatus.noInput))
        case .success(let b): bytes = b
        }
        var flow = doc
        var older: FlowDocument?
        for attempt in 0..<2 {
            let identity = flowIdentity(flow)
            let snapshot: ConversationSnapshot
            do {
                snapshot = try ConversationSnapshot(jsonText: bytes, graph: flow.graph, identity: identity)
            } catch .otherFlow(_, let found) {
                // An earlier version of this flow, kept beside the state: read it once.
                guard attempt == 0, let kept = keptVersion(statePath, flowName: flowName, identity: found, options: options) else {
                    return .failure(otherFlow(statePath))
                }
                flow = kept
                older = kept
                continue
            } catch {
                printError("rocket: error: '\(statePath)': \(error); use --restart to start over")
                return .failure(ExitStatusCode(ExitStatus.dataError))
            }
            // A version-1 snapshot names its flow too (checked here, as its blocks are indices).
            guard snapshot.flow == identity else { return .failure(otherFlow(statePath)) }
            return .success((snapshot, older))
        }
        return .failure(otherFlow(statePath))
    }

    /// Where the version of the flow a `--state FILE` conversation started with is kept: beside
    /// it, `FILE.flow` (a line with the flow's name as a JSON string, then the flow in the flow
    /// format), written with its first save and removed with the state at the end.
    static func versionPath(_ statePath: String) -> String { statePath + ".flow" }

    /// The kept version beside `statePath` when it is of the flow named `flowName` and makes the
    /// flow `identity` (in the language asked for); nil otherwise.
    static func keptVersion(_ statePath: String, flowName: String, identity: String, options: PlayOptions) -> FlowDocument? {
        guard case .success(let bytes) = FileIO.read(versionPath(statePath), limit: RocketLimits.fileBytes),
            let newline = bytes.firstIndex(of: 0x0A), let name = try? JSONReader.parse(Array(bytes[..<newline])),
            case .string(let named) = name.value, named == flowName
        else { return nil }
        let loaded = FlowLoader.load(Array(bytes[(newline + 1)...]), language: options.language)
        guard loaded.isPlayable, let doc = loaded.document, flowIdentity(doc) == identity else { return nil }
        return doc
    }

    /// The message for a state file of another flow.
    static func otherFlow(_ statePath: String) -> ExitStatusCode {
        printError(
            "rocket: error: '\(statePath)' holds a conversation of a different flow (or an earlier version of this one); use --restart to start over")
        return ExitStatusCode(ExitStatus.dataError)
    }

    /// This user's stable visitor id for experiments: kept in `$XDG_STATE_HOME/rocket/visitor`
    /// (made on first use, 32 random hex digits); when it cannot be kept, one for this run.
    static func defaultVisitor() -> String {
        let env = Environment.current
        let state = env["XDG_STATE_HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? ((env["HOME"] ?? "/tmp") + "/.local/state")
        let path = state + "/rocket/visitor"
        if case .success(let bytes) = FileIO.read(path, limit: 256) {
            let id = String(decoding: bytes, as: UTF8.self).trimmingSpaces()
            if !id.isEmpty, id.utf8.count <= 128 { return id }
        }
        var g = SystemRandomNumberGenerator()
        let id = (0..<16).map { _ in String(UInt8.random(in: 0...255, using: &g), radix: 16) }.map { $0.count == 1 ? "0" + $0 : $0 }.joined()
        _ = ScenarioCommand.makeDirectories(state + "/rocket")
        _ = FileIO.writeAtomically(id + "\n", to: path, replacing: false, access: .owner)
        // Another process may have made it meanwhile: its id wins.
        if case .success(let bytes) = FileIO.read(path, limit: 256) {
            let kept = String(decoding: bytes, as: UTF8.self).trimmingSpaces()
            if !kept.isEmpty, kept.utf8.count <= 128 { return kept }
        }
        return id
    }

    static func variables(_ parsed: ParsedArguments) throws(UsageError) -> [String: String] {
        var vars: [String: String] = [:]
        for v in parsed.all("--var") {
            guard let eq = v.firstIndex(of: "="), eq != v.startIndex else {
                throw UsageError(message: "'--var \(v)' must be NAME=VALUE", command: spec.name)
            }
            vars[String(v[..<eq])] = String(v[v.index(after: eq)...])
        }
        return vars
    }

    @MainActor
    static func runDemo(_ args: [String]) async throws(UsageError) -> ExitStatus {
        let parsed = try parse(args, as: demoSpec)
        if parsed.helpRequested { printOut(demoSpec.help); return ExitStatus.ok }
        let options = try PlayOptions(parsed, command: demoSpec.name)
        if let statePath = options.state, let status = lockState(statePath) { return status }
        let result = FlowLoader.load(DemoFlow.json)
        guard let doc = result.document, result.isPlayable else {
            for d in result.diagnostics { printError(d.formatted(file: "<demo>")) }
            return ExitStatus.dataError
        }
        let given: [String: GivenAnswer]
        switch givenAnswers(doc, options: options) {
        case .failure(let status): return status.code
        case .success(let g): given = g
        }
        var typedAhead: (bytes: [UInt8], ended: Bool) = ([], false)
        let status = await play(doc, imageBase: nil, options: options, given: given) { typedAhead = $0 }
        guard status == ExitStatus.ok else { return status }
        // The tour ends with an AlertReactor alert whose choices load lazily.
        let controller = AlertController(reactor: DemoAlertReactor(delay: options.instant ? 0 : 1.2))
        let (outcome, _) = await AlertCommand.present(controller, plain: options.plain, theme: options.theme, typedAhead: typedAhead)
        // The tour's own question: any answer, "Not now" included, ends the tour well.
        if case .interrupted = outcome { return outcome.exitStatusForCLI }
        return ExitStatus.ok
    }

    @MainActor
    static func play(
        _ doc: FlowDocument, imageBase: String?, options: PlayOptions,
        flowName: String = "demo", version: String? = nil, resume: ConversationSnapshot? = nil, exposure: (experiment: String, variant: String)? = nil,
        given: [String: GivenAnswer] = [:], snoozes: (any ScenarioStore)? = nil, leftover: ((bytes: [UInt8], ended: Bool)) -> Void = { _ in }
    ) async -> ExitStatus {
        let env = Environment.current
        // A flow that asks for a secret: no core file, nobody attaches (docs/SEMANTICS.md).
        if doc.graph.nodes.contains(where: { if case .textInput(let input) = $0.content { input.isSecret } else { false } }) {
            SecretGuard.protectProcess()
        }
        // A flow read from stdin leaves the keys to the terminal itself, as fzf and gum do.
        let terminal = Terminal.forUserInterface(inputTaken: options.stdinTaken)
        let plain = options.plain || terminal.prefersLineMode(env)
        // The conversation's own animations (bounces, intro) are not drawn in the terminal, so its
        // timing is always reduced motion; --instant also fires every showNextAfter at once.
        let timing: RocketTiming = options.instant ? .instant : .reducedMotion
        let start: (variables: [String: RocketValue], answers: [String: String])
        switch doc.startValues(options.vars.mapValues { .text($0) }) {
        case .success(let s): start = s
        case .failure(let problem):
            printError("rocket play: error: --var \(Sanitizer.clean(problem.message, keepNewlines: false))")
            return ExitStatus.usage
        }
        // A name the flow reads nowhere changes nothing: most likely a typo.
        let read = doc.namesRead
        for name in options.vars.keys.sorted() where !read.contains(name) {
            printError(
                "rocket play: warning: --var \(FlowDiagnostic.quoted(name)): the flow reads no such name, so it changes nothing"
                    + nearestAndAll(name, among: read.sorted(), listedAs: "it reads"))
        }
        let clock = SystemClock()
        // The flow's today() and time() read this machine's local time (TZ), from --now when given.
        let wall = options.gate.now
        let conversationOptions = ConversationOptions(
            timing: timing, echoReplies: true, initialAnswers: start.answers, initialVariables: start.variables,
            localShift: PlayCommand.localShift(wall: wall, clock: clock))
        guard var conversation = doc.makeConversation(options: conversationOptions, imageBase: imageBase) else { return ExitStatus.dataError }
        if let resume {
            do {
                conversation = try resume.restore(
                    graph: conversation.graph, author: conversation.author,
                    closeButton: conversation.closeButton, options: conversationOptions, at: clock.now, flow: resume.flow)
            } catch {
                printError("rocket: error: '\(options.state ?? "")': \(error); use --restart to start over")
                return ExitStatus.dataError
            }
        }
        let rocket = ConversationHost(conversation: conversation, clock: clock)
        if let statePath = options.state {
            let identity = flowIdentity(doc)
            let names = BlockNames(conversation.graph)  // once: each step's snapshot names its blocks with it
            // A name the program chose for itself: only ever a regular file (never a FIFO to wait on).
            guard FileIO.isRegularOrAbsent(versionPath(statePath)) else {
                printError(
                    "rocket: error: cannot write '\(Sanitizer.clean(versionPath(statePath), keepNewlines: false))': something that is not a regular file is there"
                )
                return ExitStatus.ioError
            }
            // Fail before anything is drawn when the snapshot cannot be written.
            let first = (try? ConversationSnapshot(conversation, at: clock.now, flow: identity, names: names).jsonText()) ?? ""
            if case .failure(let f) = FileIO.writeAtomically(first, to: statePath, access: .owner) {
                printError("rocket: error: cannot write '\(statePath)': \(f.reason)")
                return ExitStatus.ioError
            }
            // The version it is played with, kept beside it: an edit of the file later does not
            // stop it going on as it began.
            let kept = JSONValue.string(flowName).serialized(pretty: false) + "\n" + doc.jsonValue.serialized(pretty: false)
            if case .failure(let f) = FileIO.writeAtomically(kept, to: versionPath(statePath), access: .owner) {
                printError("rocket: error: cannot write '\(Sanitizer.clean(versionPath(statePath), keepNewlines: false))': \(f.reason)")
                return ExitStatus.ioError
            }
            var saveFailure: FileIO.Failure?
            rocket.onChange = { [unowned rocket] in
                let c = rocket.conversation
                switch c.status {
                case .notShown, .presenting, .active:
                    guard saveFailure == nil, let text = try? ConversationSnapshot(c, at: clock.now, flow: identity, names: names).jsonText() else { return }
                    if case .failure(let f) = FileIO.writeAtomically(text, to: statePath, access: .owner) {
                        saveFailure = f
                        printError("rocket: error: cannot write '\(statePath)': \(f.reason)")
                    }
                case .closing(.completed), .dismissed(.completed):
                    _ = FileIO.remove(statePath)
                    _ = FileIO.remove(versionPath(statePath))
                    // Still held: a play that opens it meanwhile finds it in use; a later one makes it again.
                    _ = FileIO.remove(lockPath(statePath))
                case .closing, .dismissed:
                    break  // closed or interrupted: the last saved step stays, to resume from
                }
            }
        }
        // Output files are checked before anything is drawn: a folder that does not exist must
        // not cost the user the whole flow.
        for case let path? in [options.caseOut] where path != "-" {
            let dir = PathName.directory(path)
            if !dir.isEmpty, !FileIO.exists(dir) {
                printError(
                    "rocket: error: cannot write '\(Sanitizer.clean(path, keepNewlines: false))': the folder \(Sanitizer.clean(dir, keepNewlines: false)) does not exist"
                )
                return ExitStatus.ioError
            }
        }
        if let answersPath = options.answersOut, answersPath != "-" {
            let dir = PathName.directory(answersPath)
            if !dir.isEmpty, !FileIO.exists(dir) {
                printError(
                    "rocket: error: cannot write '\(Sanitizer.clean(answersPath, keepNewlines: false))': the folder \(Sanitizer.clean(dir, keepNewlines: false)) does not exist"
                )
                return ExitStatus.ioError
            }
        }
        var log: EventLog?
        if let eventsPath = options.events {
            do {
                log = try EventLog(path: eventsPath)
            } catch {
                printError("rocket: error: cannot write '\(eventsPath)': \(error.reason)")
                return ExitStatus.ioError
            }
        }
        if let exposure {
            log?.write(RocketEvent.exposure(experiment: exposure.experiment, variant: exposure.variant, shown: true, flow: flowName))
            log?.variant = exposure.variant
        }
        // A fresh start is a conversation's first record (a resumed one goes on where it was).
        // Its version is the flow's identity, as the server's is: not the graph with its pictures
        // taken relative to the folder it was played from.
        if resume == nil { log?.write(RocketEvent.started(flow: flowName, version: version ?? String(flowIdentity(doc).prefix(12)))) }
        let hooks = options.hooks
        let printActions = options.printActions
        let strings = options.lang.map { UIStrings.forEnvironment(["LANG": $0]) } ?? UIStrings.forEnvironment(env)
        let runner = ProgramRunner(terminal: plain ? terminal.forLineMode() : terminal, clock: clock, strings: strings)
        runner.adopt(env)
        let depth = runner.depth
        // What is printed while the UI draws goes above its live area when it would land on the
        // same terminal (stdout there, or a command's output), never into the frame.
        let actionsAboveUI = !plain && terminal.sharesDevice(withDescriptor: 1)
        var actionsFired: [String] = []  // for --case-out
        var snoozePressed: String?  // for --case-out
        var snoozeFailure: String?  // a snooze the store did not keep: said, and exit 74
        let verbose = options.verbose
        var errorsSaid: Set<String> = []  // each place and code once a run
        rocket.onEvent = { [unowned rocket, unowned runner] event in
            log?.write(event)
            if case .action(let name, _) = event { actionsFired.append(name) }
            // With --verbose, the flow's author sees where an expression failed as it happens,
            // each place once (the conversation goes on as documented; the events record each).
            if verbose, case .expressionError(let block, let path, let error) = event {
                let place = (block.map { "block \(FlowDiagnostic.quoted($0))" } ?? "a block") + (path.isEmpty ? "" : " " + path)
                if errorsSaid.count < 100, errorsSaid.insert(place + "\u{0}" + error.code).inserted {
                    runner.printAbove(Sanitizer.clean("rocket: note: \(place): \(error.message) (\(error.code))", keepNewlines: false))
                }
            }
            // A pressed button that opens a page: the page's address, where a terminal lets it be
            // opened (it is a line of its own, unwrapped).
            if case .buttonPressed(let index, _, let side, let title, let options, _) = event,
                let link = rocket.conversation.node(at: index).link(side: side, option: options.first)
            {
                let line = Sanitizer.clean(title, keepNewlines: false) + " → " + link
                runner.printAbove(line)
            }
            // A pressed button that snoozes the flow: kept in the store (a failure is said), but
            // not under --ignore-rules, which records nothing.
            if case .buttonPressed(let index, _, let side, _, let chosen, _) = event,
                let text = rocket.conversation.node(at: index).pressed(side: side, option: chosen.first)?.snooze,
                let seconds = RocketButtonNode.snoozeSeconds(text)
            {
                snoozePressed = text
                if let snoozes {
                    do throws(ScenarioStoreError) {
                        // The press's time on the gates' clock (--now's moment when it is given).
                        let now = options.gate.wallClock ? WallTime.now : options.gate.now
                        try FlowSnooze.record(in: snoozes, flow: flowName, visitor: nil, seconds: seconds, at: now)
                    } catch {
                        snoozeFailure = error.message
                    }
                } else if !options.ignoreRules {
                    runner.printAbove("rocket: note: the snooze is not kept (no store)")
                }
            }
            guard case .action(let name, _) = event else { return }
            if printActions {
                let line = Sanitizer.clean(name, keepNewlines: false)
                if actionsAboveUI { runner.printAbove(line) } else { printOut(line) }
            }
            if let ran = hooks.run(name, answers: rocket.conversation.answers, output: plain ? .standardError : .captured) {
                if !ran.output.isEmpty { runner.printAbove(ran.output) }
                log?.write([("event", .string("actionHook")), ("name", .string(name)), ("status", .number(Double(ran.status)))])
            }
        }
        let app = ConversationApp(
            host: rocket, strings: strings, depth: depth,
            banner: doc.banner.map { banner in banner.filled { rocket.conversation.interpolate($0) } },
            reducedMotion: EnvironmentFlag.value("ROCKET_REDUCED_MOTION", in: env) == true, pictures: TerminalImage.loader)
        app.onBannerDismissed = { result in
            log?.write([("event", .string("banner")), ("result", .string(result.line))])
        }
        // A person types at the terminal the keys come from; without one, answers given ahead
        // carry the flow, and a block that waits only for a tap goes on by itself.
        let person = isatty(terminal.inputFD) == 1
        app.lineHints = plain && person
        app.givenAnswers = given
        app.tapsGoOn = options.answersGiven && !person
        runner.mouse = options.mouse
        runner.theme = options.theme
        let outcome = await runner.run(app, lineMode: plain)
        leftover(runner.unreadInput)
        // A closed conversation whose input simply ran out says so (else exit 1 reads as a choice).
        if app.inputEnded {
            let block = app.inputEndedAt.map { " at block " + Sanitizer.clean($0.quotedForMessage, keepNewlines: false) } ?? ""
            if options.answersGiven, let id = app.inputEndedAt {
                let quoted = Sanitizer.clean(id.quotedForMessage, keepNewlines: false)
                let file = options.answers.map { Sanitizer.clean(displayName($0), keepNewlines: false) } ?? "the --answer flags"
                let why = given[id] == nil ? "block \(quoted) has no answer in \(file)" : "block \(quoted) was still waiting after its answer in \(file)"
                // What else a script would have to give, so that one run names all of it.
                let after = rocket.conversation.graph.answerable(after: id).filter { given[$0] == nil }
                let also =
                    after.isEmpty
                    ? "" : "; after it, " + after.map { Sanitizer.clean($0.quotedForMessage, keepNewlines: false) }.listedForMessage() + " may ask too"
                printError("rocket: \(why), and the input ended, so the conversation was closed (exit 1)\(also)")
            } else {
                // Nothing was read at all: perhaps the terminal was meant (a git hook's input is git's).
                let hint =
                    runner.endedWithoutAnswer && Terminal.controllingTerminalExists()
                    ? "; to play it on the terminal instead (as from a git hook), add < /dev/tty" : ""
                printError("rocket: the input ended\(block) before the conversation did, so it was closed (exit 1)\(hint)")
            }
        }
        if let path = options.events, let failure = log?.failure {
            printError("rocket: error: cannot write '\(Sanitizer.clean(path, keepNewlines: false))': \(failure.reason)")
            return ExitStatus.ioError
        }
        if let snoozeFailure {
            printError("rocket: error: the snooze is not kept: \(Sanitizer.clean(snoozeFailure, keepNewlines: false))")
            return ExitStatus.ioError
        }
        if let casePath = options.caseOut {
            let c = rocket.conversation
            if c.status.reason == .completed {
                let recorded = Self.recordedCase(
                    doc, conversation: c, start: start.variables, lang: options.lang, variant: exposure?.variant, actions: actionsFired,
                    snooze: snoozePressed,
                    clock: doc.readsClock ? RocketSchedule.moment(options.gate.now, utcOffset: Environment.utcOffset(at: options.gate.now)) : nil,
                    at: WallTime.now)
                let text = recorded.serialized() + "\n"
                if casePath == "-" {
                    printOut(text)
                } else if case .failure(let f) = FileIO.write(text, to: casePath) {
                    printError("rocket: error: cannot write '\(Sanitizer.clean(casePath, keepNewlines: false))': \(f.reason)")
                    return ExitStatus.ioError
                }
            } else {
                printError("rocket: --case-out: the conversation did not reach its end, so no case was written")
            }
        }
        if let answersPath = options.answersOut {
            // The answers by block id (secret ones left out), and the flow's variables by name.
            var values: [String: JSONValue] = [:]
            for (id, value) in doc.answerValues(of: rocket.conversation) { values[id] = value }
            let variables = rocket.conversation.variables
            for v in doc.graph.variables { values[v.name] = (variables[v.name] ?? .null).json }
            let text = JSONValue.object(values.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }).serialized() + "\n"
            if answersPath == "-" {
                printOut(text)  // `-` is standard output
            } else if case .failure(let f) = FileIO.write(text, to: answersPath) {
                printError("rocket: error: cannot write '\(answersPath)': \(f.reason)")
                return ExitStatus.ioError
            }
        }
        return outcome.exitStatusForCLI
    }
}

extension ProgramOutcome {
    /// The outcome as the command's exit status.
    var exitStatusForCLI: ExitStatus { ExitStatus(code: exitCode) }
}
