#if canImport(Glibc)
    import Glibc
#endif
import RocketJSON
import RocketFlow
import RocketConversation
import RocketCore
import RocketPlatform
import RocketText
import RocketTerminalCore

/// `rocket test`: plays the cases of flows' test files (`NAME.test.json`) with nobody there and
/// says which held, where each failure is written, and which blocks no case showed.
enum TestCommand {
    static let spec = CommandSpec(
        name: "test", abstract: "Play the cases of flows' test files (NAME.test.json) and say which hold, and which blocks no case reaches.",
        positionals: [
            (
                "TESTS.test.json|FLOW.json|DIR",
                "Test files, flows (their NAME.test.json beside them) or folders (their NAME.test.json files); default: the current folder."
            )
        ],
        positionalCount: 0...Int.max,
        options: [
            .value("--case", "TEXT", "Play only the cases whose name holds TEXT (any case); repeatable.", repeatable: true),
            .flag("--json", "Print the results as one JSON object for tools."),
            DiagnosticFormat.option,
            .value("--junit", "FILE", "Also write the results as JUnit XML to FILE, for CI systems' test reports."),
        ],
        discussion: """
            A test file names its flow ("flow", default: its own name without .test) and holds cases:
            each plays the flow from its start with the case's answers, variables, language and
            variant, with nobody there (a clock of its own jumps to each timer, a text goes on), and checks
            how it ended, the blocks shown, the variables, the actions and the texts
            (docs/FLOW_TESTS.md). A failure is written FILE:LINE:COL at what it names.
            Scenario rules, the schedule, quiet hours and --min-gap are not asked: a case plays the flow.
            """,
        exitStatus:
            "0 every case holds; 1 a case failed; 65 a test file or its flow is invalid; 66 a file is missing or unreadable, or --case names no case; 64 usage error.",
        examples: [
            "rocket test examples", "rocket test examples/welcome.json --case refused", "rocket test flows --json | jq '.failed'",
            "rocket test flows --format github --junit results.xml    # in a GitHub Actions step",
        ],
        positionalCompletion: .file)

    /// One test file's run.
    struct FileRun {
        var file: String
        var flow: String
        var cases: [(name: String, failures: [(line: Int, column: Int, message: String)])] = []
        var blocks: [String] = []
        var shown = Set<String>()
    }

    static func run(_ args: [String]) throws(UsageError) -> ExitStatus {
        let parsed = try parse(args, as: spec)
        if parsed.helpRequested { printOut(spec.help); return ExitStatus.ok }
        let format = try DiagnosticFormat(parsed, command: spec.name)
        let json = format == .json
        let wanted = parsed.all("--case").map { $0.lowercased() }
        if wanted.contains(where: \.isEmpty) { throw UsageError(message: "--case needs a part of a case's name", command: spec.name) }
        let paths = parsed.positionals.isEmpty ? ["."] : parsed.positionals
        if paths.contains("-") { throw UsageError(message: "test files are read from files: - (standard input) is not taken", command: spec.name) }
        var status = ExitStatus.ok
        var problems: [JSONValue] = []
        func problem(_ p: Problem) {
            if status == ExitStatus.ok || status == ExitStatus.notCompleted { status = p.status }
            switch format {
            case .json: problems.append(LintCommand.json(p.diagnostic, file: p.file))
            case .github: printOut(p.diagnostic.githubAnnotation(file: p.file, title: "rocket test (\(p.diagnostic.code))"))
            case .text: printError(p.diagnostic.formatted(file: p.file))
            }
        }
        var suites: [String] = []
        for path in paths {
            if FileIO.isFolder(path) {
                let folder = path.hasSuffix("/") && path.count > 1 ? String(path.dropLast()) : path
                switch FileIO.regularFiles(in: folder, endingIn: FlowTestFormat.suffix) {
                case .failure(let e): problem(Problem(ExitStatus.noInput, path, "cannot read the folder: \(e.reason)"))
                case .success(let names) where names.isEmpty:
                    problem(Problem(ExitStatus.noInput, path, "holds no test files (NAME\(FlowTestFormat.suffix))"))
                case .success(let names): suites += names.map { folder == "." ? $0 : folder + "/" + $0 }
                }
            } else if path.hasSuffix(FlowTestFormat.suffix) {
                suites.append(path)
            } else if !FileIO.exists(path) {
                problem(Problem(ExitStatus.noInput, path, "cannot read the file: no such file" + missingFlowHint(path)))
            } else if path.hasSuffix(".json") {
                suites.append(String(path.dropLast(5)) + FlowTestFormat.suffix)
            } else {
                problem(Problem(ExitStatus.noInput, path, "not a test file (NAME\(FlowTestFormat.suffix)), a flow (NAME.json) or a folder"))
            }
        }
        var runs: [FileRun] = []
        for file in suites {
            switch runSuite(file, only: wanted, problem: problem) {
            case .some(let run): runs.append(run)
            case nil: break
            }
        }
        let total = runs.reduce(0) { $0 + $1.cases.count }
        // A filter that names no case is a mistake, not a pass (a typo in CI must not go green).
        if !wanted.isEmpty, total == 0, !runs.isEmpty {
            problem(Problem(ExitStatus.noInput, "rocket test", "no case's name holds " + wanted.map { FlowDiagnostic.quoted($0) }.joined(separator: " or ")))
        }
        let failed = runs.reduce(0) { $0 + $1.cases.count { !$0.failures.isEmpty } }
        if failed > 0, status == ExitStatus.ok { status = ExitStatus.notCompleted }
        if let junit = parsed.value("--junit") {
            if case .failure(let f) = FileIO.writeAtomically(junitXML(runs), to: junit, access: .umask) {
                printError("rocket: error: cannot write '\(clean(junit))': \(f.reason)")
                return ExitStatus.ioError
            }
        }
        if json {
            printOut(report(runs, problems: problems, total: total, failed: failed, coverage: wanted.isEmpty).serialized())
            return status
        }
        // PASS in green and FAIL in red on a terminal that shows colour (NO_COLOR, TERM=dumb: none).
        let colour = isatty(1) == 1 && ColorDepth.detect(Environment.current) != .none
        func verdict(_ passed: Bool) -> String {
            let word = passed ? "PASS" : "FAIL"
            return colour ? (passed ? "\u{1B}[32m" : "\u{1B}[1;31m") + word + "\u{1B}[0m" : word
        }
        for run in runs {
            for c in run.cases {
                // The verdict's colour is ours; every other character is cleaned as printOut cleans.
                FileIO.print(verdict(c.failures.isEmpty) + " " + clean(run.file) + " " + clean(FlowDiagnostic.quoted(c.name)))
                for f in c.failures {
                    if format == .github {
                        // Each failure also as an annotation on the line of the test file it names.
                        let d = FlowDiagnostic(severity: .error, code: "failed", message: f.message, path: "", line: f.line, column: f.column)
                        printOut(d.githubAnnotation(file: run.file, title: "rocket test: " + FlowDiagnostic.quoted(c.name)))
                    } else {
                        printOut("  \(clean(run.file)):\(f.line):\(f.column): \(clean(f.message))")
                    }
                }
            }
        }
        // Coverage is said of a flow's whole set of cases, not of those a --case picked.
        for run in runs where wanted.isEmpty {
            let never = run.blocks.filter { !run.shown.contains($0) }
            var line = "\(clean(run.flow)): \(run.blocks.count - never.count) of \(run.blocks.count) blocks shown by \(count(run.cases.count, "case"))"
            if !never.isEmpty {
                line += "; never: " + never.prefix(20).map { clean(FlowDiagnostic.quoted($0)) }.joined(separator: ", ") + (never.count > 20 ? ", …" : "")
            }
            printOut(line)
        }
        if total > 0 || status == ExitStatus.ok {
            let only = wanted.isEmpty ? "" : " (only those named with " + wanted.map { clean(FlowDiagnostic.quoted($0)) }.joined(separator: " or ") + ")"
            let files = runs.count { !$0.cases.isEmpty || wanted.isEmpty }
            printOut("\(count(total, "case")) in \(count(files, "file"))\(only): \(total - failed) passed, \(failed) failed")
        }
        return status
    }

    /// A problem with a test file or its flow: where, what, and the exit status it makes.
    struct Problem {
        var status: ExitStatus
        /// The file it is in (or the command's name).
        var file: String
        var diagnostic: FlowDiagnostic

        init(_ status: ExitStatus, _ file: String, _ diagnostic: FlowDiagnostic) {
            self.status = status
            self.file = file
            self.diagnostic = diagnostic
        }

        /// A problem with no place in the file.
        init(_ status: ExitStatus, _ file: String, _ message: String) {
            self.init(status, file, FlowDiagnostic(severity: .error, code: "unreadable", message: message, path: ""))
        }
    }

    /// A test file read and checked against its flow, the flow loaded once per language a case
    /// plays it in: what `rocket test` plays and `rocket lint` checks.
    struct CheckedSuite {
        let file: String
        let suite: FlowTestSuite
        let flowPath: String
        private var docs: [String: FlowDocument] = [:]

        /// Reads `file` and its flow and checks one against the other; nil when either cannot be
        /// used (each problem said through `problem`).
        init?(_ file: String, problem: (Problem) -> Void) {
            let bytes: [UInt8]
            switch FileIO.read(file, limit: RocketLimits.fileBytes) {
            case .failure(let f):
                problem(Problem(ExitStatus.noInput, file, "cannot read the test file: \(f.reason)"))
                return nil
            case .success(let b): bytes = b
            }
            switch FlowTestSuite.read(bytes) {
            case .failure(let failure):
                for d in failure.diagnostics { problem(Problem(ExitStatus.dataError, file, d)) }
                return nil
            case .success(let s): suite = s
            }
            self.file = file
            let folder = PathName.directory(file)
            if let named = suite.flow {
                flowPath = named.hasPrefix("/") || folder.isEmpty ? named : folder + "/" + named
            } else {
                flowPath = String(file.dropLast(FlowTestFormat.suffix.count)) + ".json"
            }
            guard let doc = doc(nil, problem: problem) else { return nil }
            let problems = suite.problems(against: doc)
            guard problems.isEmpty else {
                for d in problems { problem(Problem(ExitStatus.dataError, file, d)) }
                return nil
            }
        }

        /// The flow in `language` (nil: its first), loaded once.
        mutating func doc(_ language: String?, problem: (Problem) -> Void) -> FlowDocument? {
            if let doc = docs[language ?? ""] { return doc }
            switch loadFlowFile(flowPath, language: language) {
            case .failure(let e):
                var d = FlowDiagnostic(severity: .error, code: "unreadable", message: "cannot read the flow '\(e.path)': \(e.reason)", path: "")
                if suite.flow != nil { (d.line, d.column) = suite.place(suite.flowOffset) }
                problem(Problem(ExitStatus.noInput, file, d))
                return nil
            case .success(let result):
                guard result.isPlayable, let doc = result.document else {
                    for d in result.errors { problem(Problem(ExitStatus.dataError, flowPath, d)) }
                    return nil
                }
                docs[language ?? ""] = doc
                return doc
            }
        }
    }

    /// Reads one test file and its flow, checks them, and plays every case (those `wanted` names,
    /// when it names any); nil when the file or the flow cannot be used (said through `problem`).
    static func runSuite(_ file: String, only wanted: [String] = [], problem: (Problem) -> Void) -> FileRun? {
        guard var checked = CheckedSuite(file, problem: problem), let doc = checked.doc(nil, problem: problem) else { return nil }
        var run = FileRun(file: file, flow: checked.flowPath)
        run.blocks = doc.graph.nodes.filter(\.kind.isShown).compactMap(\.id)
        for c in checked.suite.cases where wanted.isEmpty || wanted.contains(where: { c.name.lowercased().containsText($0) }) {
            guard let played = checked.doc(c.language?.value, problem: problem) else { return nil }
            let strings = c.language.map { UIStrings.forEnvironment(["LANG": $0.value]) } ?? .english
            let result = c.run(on: played) { strings.message(for: $0) }
            run.shown.formUnion(result.shown)
            let failures = result.failures.map { f in
                let (line, column) = checked.suite.place(f.offset)
                return (line: line, column: column, message: f.message)
            }
            run.cases.append((c.name, failures))
        }
        return run
    }

    /// The results as `--json` prints them.
    static func report(_ runs: [FileRun], problems: [JSONValue], total: Int, failed: Int, coverage: Bool) -> JSONValue {
        func number(_ n: Int) -> JSONValue { .number(Double(n)) }
        let files: [JSONValue] = runs.map { run in
            let cases: [JSONValue] = run.cases.map { c in
                .object([
                    ("name", .string(c.name)), ("passed", .bool(c.failures.isEmpty)),
                    (
                        "failures",
                        .array(
                            c.failures.map {
                                .object([("line", number($0.line)), ("column", number($0.column)), ("message", .string($0.message))])
                            })
                    ),
                ])
            }
            var members: [(String, JSONValue)] = [("file", .string(run.file)), ("flow", .string(run.flow)), ("cases", .array(cases))]
            // Coverage belongs to a flow's whole set of cases (not given with --case).
            if coverage {
                members += [("blocks", number(run.blocks.count)), ("neverShown", .array(run.blocks.filter { !run.shown.contains($0) }.map { .string($0) }))]
            }
            return .object(members)
        }
        return .object([("files", .array(files)), ("problems", .array(problems)), ("passed", number(total - failed)), ("failed", number(failed))])
    }

    /// The results as JUnit XML (the form CI systems read test reports in): a test suite per
    /// test file, named by it, a test case per case, each failure placed `FILE:LINE:COL`.
    static func junitXML(_ runs: [FileRun]) -> String {
        // Text for XML 1.0: the package's one markup escaping, over text with no control
        // character and neither of the two noncharacters XML refuses (each becomes U+FFFD).
        func text(_ s: String) -> String {
            var kept = String.UnicodeScalarView()
            for u in Sanitizer.clean(s, keepNewlines: true).unicodeScalars { kept.append(u.value == 0xFFFE || u.value == 0xFFFF ? "\u{FFFD}" : u) }
            return HTMLText.escape(String(kept))
        }
        let total = runs.reduce(0) { $0 + $1.cases.count }
        let failed = runs.reduce(0) { $0 + $1.cases.count { !$0.failures.isEmpty } }
        var out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"rocket test\" tests=\"\(total)\" failures=\"\(failed)\">\n"
        for run in runs {
            let failures = run.cases.count { !$0.failures.isEmpty }
            out += "  <testsuite name=\"\(text(run.file))\" tests=\"\(run.cases.count)\" failures=\"\(failures)\">\n"
            for c in run.cases {
                out += "    <testcase classname=\"\(text(run.flow))\" name=\"\(text(c.name))\""
                guard let first = c.failures.first else {
                    out += "/>\n"
                    continue
                }
                out += ">\n      <failure message=\"\(text(first.message))\">"
                out += c.failures.map { text("\(run.file):\($0.line):\($0.column): \($0.message)") }.joined(separator: "\n")
                out += "</failure>\n    </testcase>\n"
            }
            out += "  </testsuite>\n"
        }
        return out + "</testsuites>\n"
    }

    static func clean(_ text: String) -> String { Sanitizer.clean(text, keepNewlines: false) }

    static func count(_ n: Int, _ noun: String) -> String { "\(n) \(noun)\(n == 1 ? "" : "s")" }
}
