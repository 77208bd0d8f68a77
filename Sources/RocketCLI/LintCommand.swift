import RocketJSON
import RocketFlow
import RocketCore
import RocketPlatform
import RocketScenarioEngine
import RocketScenarios

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
        options: [.flag("--json", "Print the diagnostics as a JSON array for tools.")],
        discussion: """
            Also checks that every image a flow names exists next to it and is a PNG or JPEG picture,
            and that a test file (rocket test) has its shape and names only what its flow has; its
            cases are played by rocket test.
            """,
        exitStatus: "0 no errors (warnings allowed); 65 at least one error; 66 a file is missing or unreadable.",
        examples: ["rocket lint examples", "rocket lint flow.json --json | jq '.[] | select(.severity == \"error\")'"],
        positionalCompletion: .file)

    static func run(_ args: [String]) throws(UsageError) -> ExitStatus {
        let parsed = try parse(args, as: spec)
        if parsed.helpRequested { printOut(spec.help); return ExitStatus.ok }
        let options = try LintOptions(parsed, command: spec.name)
        var status = ExitStatus.ok
        var json: [JSONValue] = []
        var files: [String] = []
        for path in options.files {
            switch LintOptions.files(for: path) {
            case nil: files.append(path)
            case .success(let inside) where inside.isEmpty:
                status = ExitStatus.noInput
                report(path, "holds no flow files (NAME.json) or test files (NAME.test.json)", json: options.json, into: &json)
            case .success(let inside): files += inside
            case .failure(let e):
                status = ExitStatus.noInput
                report(path, "cannot read the folder: \(e.reason)", json: options.json, into: &json)
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
                    if options.json { json.append(Self.json(p.diagnostic, file: p.file)) } else { printOut(p.diagnostic.formatted(file: p.file)) }
                }
                continue
            }
            switch loadFlowFile(path, now: WallTime.now, decodingPictures: true) {
            case .failure(let e):
                status = ExitStatus.noInput
                report(path, "cannot read the file: \(e.reason)", json: options.json, into: &json)
            case .success(let result):
                if !result.errors.isEmpty && status == ExitStatus.ok { status = ExitStatus.dataError }
                for d in result.diagnostics {
                    if options.json {
                        json.append(Self.json(d, file: displayName(path)))
                    } else {
                        printOut(d.formatted(file: displayName(path)))
                    }
                }
            }
        }
        if options.json { printOut(JSONValue.array(json).serialized()) }
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

    /// A path that could not be linted, as an `unreadable` error.
    static func report(_ path: String, _ message: String, json: Bool, into diagnostics: inout [JSONValue]) {
        if json {
            diagnostics.append(
                .object([
                    ("file", .string(displayName(path))), ("severity", .string("error")), ("code", .string("unreadable")),
                    ("message", .string(message)),
                ]))
        } else {
            printOut("\(Sanitizer.clean(displayName(path), keepNewlines: false)): error: \(Sanitizer.clean(message, keepNewlines: false))")
        }
    }
}
