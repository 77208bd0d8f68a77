#if canImport(Glibc)
    import Glibc
#endif
import RocketCore
import RocketFlow
import RocketJSON
import RocketTerminal
import RocketTerminalCore
import RocketPlatform

/// `rocket graph FLOW.json [--format mermaid|dot|svg]`: a picture of the flow.
enum GraphCommand {
    static let spec = CommandSpec(
        name: "graph", abstract: "Draw a flow: blocks, branches with their conditions, timers, actions and the scenario gate.",
        positionals: [("FLOW.json", "The flow file (- for standard input).")], positionalCount: 1...1,
        options: [
            .value(
                "--format", "F",
                "mermaid (default), dot, svg (needs Graphviz's dot: apt-get install graphviz), or text: an outline to read in a terminal."
            )
            .completing(.words(GraphOptions.Format.allCases.map(\.rawValue)))
        ],
        discussion: """
            Prints the picture on stdout. Mermaid renders on GitHub and in many editors; DOT and SVG come
            from Graphviz.
            """,
        exitStatus: "0 drawn; 64 usage error; 65 invalid flow; 66 missing or unreadable file; 69 --format svg without Graphviz.",
        examples: [
            "rocket graph examples/welcome.json > welcome.mmd", "rocket graph examples/welcome.json --format svg > welcome.svg",
            "rocket graph examples/nps.json --format text",
        ])

    static func run(_ args: [String]) throws(UsageError) -> ExitStatus {
        let parsed = try parse(args, as: spec)
        if parsed.helpRequested { printOut(spec.help); return ExitStatus.ok }
        let options = try GraphOptions(parsed, command: spec.name)
        let path = options.file
        guard let result = loadFlowFileReporting(path) else { return ExitStatus.noInput }
        for d in result.errors { printError(d.formatted(file: displayName(path))) }
        guard let doc = result.document, result.errors.isEmpty else { return ExitStatus.dataError }
        switch options.format {
        case .mermaid: printOut(FlowGraph.mermaid(doc))
        case .dot: printOut(FlowGraph.dot(doc))
        case .text: FileIO.print(FlowGraph.outline(doc))
        case .svg:
            guard let svg = runDot(FlowGraph.dot(doc)) else {
                printError("rocket: error: --format svg needs Graphviz's 'dot' (Debian: apt-get install graphviz); --format mermaid or dot work everywhere")
                return .unavailable
            }
            printOut(svg)
        }
        return ExitStatus.ok
    }

    /// `dot -Tsvg` on `source`, or nil when Graphviz is not installed or fails.
    static func runDot(_ source: String) -> String? {
        let candidates = ["/usr/bin/dot", "/usr/local/bin/dot"]
        guard let dot = candidates.first(where: { access($0, X_OK) == 0 }) else { return nil }
        var input: [Int32] = [0, 0], output: [Int32] = [0, 0]
        guard pipe(&input) == 0, pipe(&output) == 0 else { return nil }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, input[0], 0)
        posix_spawn_file_actions_adddup2(&actions, output[1], 1)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        for fd in [input[0], input[1], output[0], output[1]] { posix_spawn_file_actions_addclose(&actions, fd) }
        var pid = pid_t()
        let argv: [UnsafeMutablePointer<CChar>?] = [strdup(dot), strdup("-Tsvg"), nil]
        defer { for p in argv { free(p) } }
        let rc = posix_spawn(&pid, dot, &actions, nil, argv, environ)
        close(input[0]); close(output[1])
        guard rc == 0 else { close(input[1]); close(output[0]); return nil }
        // The DOT text is small next to a pipe's buffer; write it all, then read the picture.
        let bytes = Array(source.utf8)
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { write(input[1], $0.baseAddress! + offset, bytes.count - offset) }
            if n <= 0 { if n < 0 && errno == EINTR { continue }; break }
            offset += n
        }
        close(input[1])
        var out: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let n = read(output[0], &buffer, buffer.count)
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { break }
            out += buffer[..<n]
        }
        close(output[0])
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        guard status == 0 else { return nil }
        return String(decoding: out, as: UTF8.self)
    }
}

/// `rocket new FLOW.json`: a starter flow that uses every block type and lints clean.
enum NewCommand {
    static let spec = CommandSpec(
        name: "new", abstract: "Write a starter flow that uses every block type (and lints clean), and its test cases.",
        positionals: [("FLOW.json", "The file to create (never overwritten; a name without an extension gets .json), or - for standard output.")],
        positionalCount: 1...1,
        options: [],
        discussion: "Beside FLOW.json it writes FLOW.test.json, cases of the starter that rocket test plays (unless that file exists).",
        exitStatus: "0 written; 64 usage error; 73 the file exists; 74 it cannot be written.",
        examples: [
            "rocket new onboarding.json && rocket play onboarding.json",
            "rocket new flows/tour.json && rocket lint flows/tour.json && rocket test flows/tour.json",
            "rocket new - | less",
        ])

    /// The starter flow, laid out as `rocket fmt` lays out a flow.
    static let starter = laidOut(
        #"""
        {
          "$schema": "\#(FlowFormat.schemaID)",
          "version": 1,
          "title": "A starter flow",
          "author": {"name": "Rocket"},
          "closeButton": {"title": "Close"},
          "languages": ["en", "it"],
          "vars": {"user": "there", "visits": 0},
          "start": "hello",
          "blocks": [
            {"id": "hello", "type": "text", "text": {"en": "Hi {{user}}! I'm a starter flow.", "it": "Ciao {{user}}! Sono un flusso di partenza."},
             "next": "wait", "font": "textBold"},
            {"id": "wait", "type": "text", "text": "This one goes on by itself.", "showNextAfter": "1.5s", "next": "ask"},
            {"id": "ask", "type": "doubleButton",
             "left": {"title": "Show me", "next": "name"},
             "right": {"title": "Later", "next": "bye", "font": "lightButton"}},
            {"id": "name", "type": "textInput", "text": "What's your name?", "buttonTitle": "Send", "placeholder": "Ada",
             "validate": {"required": true, "maxLength": 40, "pattern": "^[^0-9]*$", "message": "No digits, please"},
             "branches": [{"when": {"matches": "(?i)^ada"}, "next": "ada"}], "next": "count"},
            {"id": "ada", "type": "text", "text": "Countess {{name}}, welcome!", "next": "count"},
            {"id": "count", "type": "set", "set": {"visits": "visits + 1"}, "next": "check"},
            {"id": "check", "type": "condition", "branches": [{"if": "length(name) > 12", "next": "long"}], "else": "picture"},
            {"id": "long", "type": "text", "text": "What a long name, {{name}}!", "next": "onward"},
            {"id": "onward", "type": "jump", "to": "picture"},
            {"id": "picture", "type": "image", "image": "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAgAAAAICAYAAADED76LAAAAI0lEQVR42mMwqfjGgIT/QzFcDF0CHROn4D8+TJQCyt2A15sAQs6UVfaMMpMAAAAASUVORK5CYII=",
             "text": "Pictures are PNG or JPEG files next to the flow, or data URIs.", "imageStyle": "round", "next": "plan"},
            {"id": "plan", "type": "choice", "text": "Which plan suits you?",
             "options": [{"title": "Free", "next": "rate"}, {"title": "Pro", "next": "rate"}, {"title": "Team", "next": "rate"}]},
            {"id": "rate", "type": "rating", "text": "How clear was that?", "scale": 5, "labels": {"low": "Muddy", "high": "Crystal"}, "next": "team"},
            {"id": "team", "type": "textInput", "text": "How many people are on your team?", "buttonTitle": "Send", "inputType": "integer",
             "min": 1, "max": 10000, "next": "tools"},
            {"id": "tools", "type": "choice", "text": "Which do you use? (Shift-Tab or < goes back.)", "multiple": true, "max": 2,
             "options": [{"title": "Terminal", "selected": true}, {"title": "Browser"}, {"title": "Scripts"}], "next": "go"},
            {"id": "go", "type": "button", "title": "Done, {{name}}", "action": "finished", "link": "https://example.org/", "next": "bye"},
            {"id": "bye", "type": "text", "text": "Bye for now."}
          ]
        }
        """#)

    /// The starter flow's cases (`NAME.test.json`, for `rocket test`), laid out the same way.
    static let starterTests = laidOut(
        #"""
        {"$schema": "\#(FlowTestFormat.schemaID)",
         "cases": [
          {"name": "Later says goodbye", "answers": {"ask": "Later"}, "expect": {"path": ["hello", "wait", "ask", "bye"]}},
          {"name": "the whole tour", "vars": {"user": "Grace"},
           "answers": {"ask": "Show me", "name": "Grace", "plan": "Pro", "rate": 5, "team": 12, "tools": ["Terminal", "Scripts"], "go": "Done, Grace"},
           "expect": {"avoids": ["ada", "long"], "vars": {"visits": 1}, "actions": ["finished"], "says": ["Hi Grace!"]}},
          {"name": "Ada is greeted as a countess", "answers": {"ask": "Show me", "name": "Ada"}, "expect": {"reaches": ["ada"], "waitingAt": "plan"}},
          {"name": "a long name is said to be long", "answers": {"ask": "Show me", "name": "Bartholomew Jones"},
           "expect": {"says": ["What a long name, Bartholomew Jones!"], "waitingAt": "plan"}},
          {"name": "a name with digits is refused", "answers": {"ask": "Show me", "name": "R2D2"}, "expect": {"refused": "name", "refusal": "No digits"}},
          {"name": "in Italian", "lang": "it", "answers": {"ask": "Later"}, "expect": {"says": ["Ciao there!"]}}
        ]}
        """#)

    /// `text` (JSON written here) laid out by ``JSONLayout`` (as it is, should it not parse: a
    /// test holds both to parse and to lint clean).
    static func laidOut(_ text: String) -> String {
        guard let tape = try? JSONTape.parse(Array(text.utf8)) else { return text + "\n" }
        return String(decoding: JSONLayout.format(tape), as: UTF8.self)
    }

    static func run(_ args: [String]) throws(UsageError) -> ExitStatus {
        let parsed = try parse(args, as: spec)
        if parsed.helpRequested { printOut(spec.help); return ExitStatus.ok }
        var path = parsed.positionals[0]
        // A folder: the flow goes in it, and needs a name (`rocket new flows` beside a flows
        // folder would write flows.json next to it, which is not what was meant).
        if path != "-", FileIO.isFolder(path) {
            let folder = path.hasSuffix("/") ? String(path.dropLast()) : path
            printError(
                "rocket: error: '\(Sanitizer.clean(path, keepNewlines: false))' is a folder; name the new flow in it, such as '\(Sanitizer.clean(folder, keepNewlines: false))/onboarding'"
            )
            return .cannotCreate
        }
        // `rocket new onboarding` means the flow onboarding: its file is onboarding.json, the
        // name the server and `rocket test` know it by.
        if path != "-", !path.hasSuffix("/"), !PathName.lastComponent(path).containsText(".") { path += ".json" }
        if path == "-" {
            // A write error to standard output is reported (exit 74) where every command ends.
            FileIO.print(starter)
            return ExitStatus.ok
        }
        switch FileIO.writeAtomically(starter, to: path, replacing: false, access: .umask) {
        case .failure(let f) where f.code == EEXIST:
            printError("rocket: error: '\(Sanitizer.clean(path, keepNewlines: false))' exists; choose another name (it is never overwritten)")
            return .cannotCreate
        case .failure(let f):
            printError("rocket: error: cannot write '\(Sanitizer.clean(path, keepNewlines: false))': \(f.reason)")
            return ExitStatus.ioError
        case .success:
            break
        }
        // Its cases beside it, when the name has room for them (an existing file is kept).
        var wrote = Sanitizer.clean(path, keepNewlines: false)
        if path.hasSuffix(".json") {
            let tests = String(path.dropLast(5)) + FlowTestFormat.suffix
            if case .success = FileIO.writeAtomically(starterTests, to: tests, replacing: false, access: .umask) {
                wrote += " and its cases, " + Sanitizer.clean(tests, keepNewlines: false)
            }
        }
        printError("wrote \(wrote); try: rocket play \(Sanitizer.clean(path, keepNewlines: false))")
        return ExitStatus.ok
    }
}
