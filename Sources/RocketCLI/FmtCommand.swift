import RocketCore
import RocketJSON
import RocketPlatform

/// `rocket fmt FLOW.json|DIR... [--check] [--width N]`: flow and test files laid out one way
/// (``JSONLayout``), so that a change to a flow is a change of its lines in a review.
enum FmtCommand {
    static let spec = CommandSpec(
        name: "fmt", abstract: "Lay out flow and test files one way (only the white space changes), or check that they are.",
        positionals: [
            ("FLOW.json|DIR", "Flow files or test files (- for standard input, written to standard output), or folders: their .json files.")
        ],
        positionalCount: 1...Int.max,
        options: [
            .flag("--check", "Change nothing: print the files that are not laid out so, and exit 1 if there is one (for CI)."),
            .value(
                "--width", "N",
                "Keep lines within N characters where a value allows (\(JSONLayout.widths.lowerBound) to \(JSONLayout.widths.upperBound); default \(JSONLayout.defaultWidth))."
            ),
        ],
        discussion: """
            Only the white space between values changes: keys, strings and numbers stay as written
            and in their order, so a file means what it meant. The document's members go one to a
            line; any other value stays on one line when it fits; an array that does not fit has
            an item to a line, and an object that does not fit as many members to a line as fit.
            Laying out a file laid out already changes nothing. A file is replaced whole (its mode
            kept) and only when it changes; the files changed are printed on stdout.
            """,
        exitStatus:
            "0 laid out (with --check: every file is); 1 with --check, a file is not; 64 usage error; 65 a file is not JSON (FILE:LINE:COL says where); 66 a file is missing or unreadable; 74 a file cannot be written.",
        examples: [
            "rocket fmt flows", "rocket fmt --check flows    # in CI: exit 1 and the names of the files to lay out",
            "rocket fmt flows && git diff --exit-code flows    # in CI, showing what would change",
            "rocket new - | rocket fmt --width 80 -",
        ],
        positionalCompletion: .file)

    static func run(_ args: [String]) throws(UsageError) -> ExitStatus {
        let parsed = try parse(args, as: spec)
        if parsed.helpRequested { printOut(spec.help); return ExitStatus.ok }
        let check = parsed.has("--check")
        let width = try PromptCommands.count(parsed, "--width", command: spec.name, range: JSONLayout.widths) ?? JSONLayout.defaultWidth
        if parsed.positionals.count(where: { $0 == "-" }) > 1 { throw UsageError(message: "- (standard input) may be given once", command: spec.name) }
        var status = ExitStatus.ok
        // The worst outcome decides the exit status: an unreadable file over a bad one over a
        // file --check would change.
        func worse(_ s: ExitStatus) {
            let rank: [ExitStatus: Int] = [.ok: 0, .notCompleted: 1, .dataError: 2, .noInput: 3, .ioError: 4]
            if rank[s, default: 0] > rank[status, default: 0] { status = s }
        }
        var files: [String] = []
        for path in parsed.positionals {
            switch LintOptions.files(for: path) {
            case nil: files.append(path)
            case .success(let inside) where inside.isEmpty:
                printError("rocket fmt: \(displayName(path)): holds no .json files")
                worse(.noInput)
            case .success(let inside): files += inside
            case .failure(let e):
                printError("rocket fmt: \(displayName(path)): cannot read the folder: \(e.reason)")
                worse(.noInput)
            }
        }
        for path in files {
            let bytes: [UInt8]
            switch FileIO.read(path) {
            case .failure(let e):
                printError("rocket fmt: \(displayName(path)): cannot read the file: \(e.reason)")
                worse(.noInput)
                continue
            case .success(let b): bytes = b
            }
            let laid: [UInt8]
            do throws(JSONSyntaxError) {
                laid = JSONLayout.format(try JSONTape.parse(bytes), width: width)
            } catch {
                let (line, column) = SourceLines(bytes).position(of: error.offset)
                printError("\(displayName(path)):\(line):\(column): error: \(error.message)")
                worse(.dataError)
                continue
            }
            if path == "-" && !check {
                FileIO.print(String(decoding: laid, as: UTF8.self))
                continue
            }
            guard laid != bytes else { continue }
            if check {
                printOut(displayName(path))
                worse(.notCompleted)
                continue
            }
            if case .failure(let e) = FileIO.writeAtomically(String(decoding: laid, as: UTF8.self), to: path, access: .umask) {
                printError("rocket fmt: \(displayName(path)): cannot write the file: \(e.reason)")
                worse(.ioError)
                continue
            }
            printOut(displayName(path))
        }
        return status
    }
}
