import RocketJSON
import RocketFlow
import RocketCore
import RocketPlatform

enum LintCommand {
    static let spec = CommandSpec(
        name: "lint", abstract: "Check flow files: one diagnostic per line as FILE:LINE:COL: error|warning: MESSAGE.",
        positionals: [("FLOW.json|DIR", "One or more flow files (- for standard input), or folders: their NAME.json files.")],
        positionalCount: 1...Int.max,
        options: [.flag("--json", "Print the diagnostics as a JSON array for tools.")],
        discussion: "Also checks that every image a flow names exists next to it and is a PNG or JPEG picture.",
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
                report(path, "holds no flow files (NAME.json)", json: options.json, into: &json)
            case .success(let inside): files += inside
            case .failure(let e):
                status = ExitStatus.noInput
                report(path, "cannot read the folder: \(e.reason)", json: options.json, into: &json)
            }
        }
        for path in files {
            switch loadFlowFile(path) {
            case .failure(let e):
                status = ExitStatus.noInput
                report(path, "cannot read the file: \(e.reason)", json: options.json, into: &json)
            case .success(let result):
                if !result.errors.isEmpty && status == ExitStatus.ok { status = ExitStatus.dataError }
                for d in result.diagnostics {
                    if options.json {
                        var o: [(String, JSONValue)] = [("file", .string(displayName(path)))]
                        if let l = d.line { o.append(("line", .number(Double(l)))) }
                        if let c = d.column { o.append(("column", .number(Double(c)))) }
                        o += [
                            ("severity", .string(d.severity.rawValue)), ("code", .string(d.code)), ("message", .string(d.message)),
                            ("path", .string(d.path)),
                        ]
                        json.append(.object(o))
                    } else {
                        printOut(d.formatted(file: displayName(path)))
                    }
                }
            }
        }
        if options.json { printOut(JSONValue.array(json).serialized()) }
        return status
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
