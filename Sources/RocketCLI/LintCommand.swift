import RocketJSON
import RocketFlow
import RocketCore
import RocketPlatform
import RocketScenarioEngine
import RocketScenarios
import RocketServer

enum LintCommand {
    static let spec = CommandSpec(
        name: "lint", abstract: "Check flow files: one diagnostic per line as FILE:LINE:COL: error|warning: MESSAGE.",
        positionals: [
            (
                "FLOW.json|DIR",
                "One or more flow files (- for standard input) or test files (NAME.test.json), or folders: their flows and test files."
            )
        ],
        positionalCount: 1...Int.max,
        options: [.flag("--json", "Print the diagnostics as a JSON array for tools."), DiagnosticFormat.option],
        discussion: """
            Also checks that every image a flow names exists next to it and is a PNG or JPEG picture,
            and that a test file (rocket test) has its shape and names only what its flow has; its
            cases are played by rocket test.
            """,
        exitStatus: "0 no errors (warnings allowed); 65 at least one error; 66 a file is missing or unreadable.",
        examples: [
            "rocket lint examples", "rocket lint flow.json --json | jq '.[] | select(.severity == \"error\")'",
            "rocket lint flows --format github    # in a GitHub Actions step",
        ],
        positionalCompletion: .file)

    static func run(_ args: [String]) throws(UsageError) -> ExitStatus {
        let parsed = try parse(args, as: spec)
        if parsed.helpRequested { printOut(spec.help); return ExitStatus.ok }
        let options = try LintOptions(parsed, command: spec.name)
        var status = ExitStatus.ok
        var json: [JSONValue] = []
        func emit(_ d: FlowDiagnostic, file: String) {
            switch options.format {
            case .text: printOut(d.formatted(file: file))
            case .json: json.append(Self.json(d, file: file))
            case .github: printOut(d.githubAnnotation(file: file))
            }
        }
        func report(_ path: String, _ message: String) {
            emit(FlowDiagnostic(severity: .error, code: "unreadable", message: message, path: ""), file: displayName(path))
        }
        var files: [String] = []
        var inFolders = Set<String>()
        for path in options.files {
            switch LintOptions.files(for: path) {
            case nil: files.append(path)
            case .success(let inside) where inside.isEmpty:
                status = ExitStatus.noInput
                report(path, "holds no flow files (NAME.json) or test files (NAME.test.json)")
            case .success(let inside):
                files += inside
                inFolders.formUnion(inside)
            case .failure(let e):
                status = ExitStatus.noInput
                report(path, "cannot read the folder: \(e.reason)")
            }
        }
        for path in files {
            // A test file: its shape and what it names, checked against its flow without playing.
            if path.hasSuffix(FlowTestFormat.suffix) {
                var flowSaid = false
                _ = TestCommand.CheckedSuite(path) { problem in
                    var p = problem
                    // The flow's own errors are its lint's: the test file says once that it has them.
                    if p.file != path {
                        if flowSaid { return }
                        flowSaid = true
                        p = TestCommand.Problem(
                            p.status, path,
                            FlowDiagnostic(severity: .error, code: "invalid-flow", message: "its flow has errors (rocket lint \(p.file))", path: ""))
                    }
                    if p.status == ExitStatus.noInput {
                        status = ExitStatus.noInput
                    } else if status == ExitStatus.ok {
                        status = ExitStatus.dataError
                    }
                    emit(p.diagnostic, file: p.file)
                }
                continue
            }
            switch loadFlowFile(path, now: WallTime.now, decodingPictures: true) {
            case .failure(let e):
                status = ExitStatus.noInput
                report(path, "cannot read the file: \(e.reason)")
            case .success(let result):
                if !result.errors.isEmpty && status == ExitStatus.ok { status = ExitStatus.dataError }
                // A folder's file that rocket serve --flows would pass over for its name.
                let stem = String(PathName.lastComponent(path).dropLast(5))
                if inFolders.contains(path), !FlowDocument.isFlowName(stem) {
                    emit(
                        FlowDiagnostic(
                            severity: .warning, code: "not-a-flow-name", message: "rocket serve would not offer this file: " + FlowLibrary.nameRule(stem),
                            path: ""), file: displayName(path))
                }
                for d in result.diagnostics { emit(d, file: displayName(path)) }
            }
        }
        if options.format == .json { printOut(JSONValue.array(json).serialized()) }
        return status
    }

    /// A diagnostic as `--json` writes it (and `rocket test --json` its problems).
    static func json(_ d: FlowDiagnostic, file: String) -> JSONValue {
        var o: [(String, JSONValue)] = [("file", .string(file))]
        if let l = d.line { o.append(("line", .number(Double(l)))) }
        if let c = d.column { o.append(("column", .number(Double(c)))) }
        o += [("severity", .string(d.severity.rawValue)), ("code", .string(d.code)), ("message", .string(d.message)), ("path", .string(d.path))]
        return .object(o)
    }
}

extension FlowDiagnostic {
    /// The diagnostic as a GitHub Actions workflow command: `::error file=F,line=L,col=C,title=TITLE::MESSAGE
    /// (PATH)`, which the runner shows as an annotation on that line; the title is `rocket lint
    /// (CODE)` unless given. Values
    /// are escaped as the runner reads them (`%`, CR and LF in the message; `:` and `,` too in a
    /// property), and cleaned of controls as every line rocket prints is.
    func githubAnnotation(file: String, title: String? = nil) -> String {
        func data(_ s: String) -> String {
            Sanitizer.clean(s, keepNewlines: false).replacingAll("%", with: "%25").replacingAll("\r", with: "%0D").replacingAll("\n", with: "%0A")
        }
        func property(_ s: String) -> String { data(s).replacingAll(":", with: "%3A").replacingAll(",", with: "%2C") }
        var properties = ["file=" + property(file)]
        if let line { properties += ["line=\(line)", "col=\(column ?? 1)"] }
        properties.append("title=" + property(title ?? "rocket lint (\(code))"))
        let shownPath = Sanitizer.excerpt(path, limit: 2 * RocketLimits.quotedCharacters)
        let message = path.isEmpty ? message : message + " (" + shownPath + ")"
        return "::\(severity == .error ? "error" : "warning") " + properties.joined(separator: ",") + "::" + data(message)
    }
}
