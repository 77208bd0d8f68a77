import CTestSupport
import RocketTestSupport
import RocketConversation
import RocketFlow
@testable import RocketCLI
@testable import RocketServer
import Foundation
import Synchronization
import Testing

let tinyFlow = #"""
    {"version": 1, "author": {"name": "Bot"}, "start": "hi", "variables": ["user"],
     "blocks": [
      {"id": "hi", "type": "text", "text": "Hello {{user}}", "next": "ask", "showNextAfter": 5},
      {"id": "ask", "type": "doubleButton", "left": {"title": "Sure", "next": "name"}, "right": {"title": "Later", "next": "bye"}},
      {"id": "name", "type": "textInput", "text": "Name?", "buttonTitle": "Send", "validate": {"pattern": "^[A-Za-z ]+$", "message": "Letters only"}, "next": "pin"},
      {"id": "pin", "type": "textInput", "text": "PIN?", "buttonTitle": "OK", "secret": true, "next": "go"},
      {"id": "go", "type": "button", "title": "Enable", "action": "enable-notifications", "next": "done"},
      {"id": "done", "type": "text", "text": "Thanks, {{name}}!"},
      {"id": "bye", "type": "text", "text": "Bye"}
     ]}
    """#

@Suite("rocket: the command-line contract")
struct CLITests {
    @Test("--help, --version, help COMMAND, --help on every command")
    func help() throws {
        let top = try runRocket(["--help"])
        #expect(top.status == 0 && top.stdout.contains("USAGE: rocket <command>") && top.stdout.contains("lint"))
        let bare = try runRocket([])
        #expect(bare.status == 64 && bare.stderr.contains("COMMANDS:") && bare.stdout.isEmpty)
        let version = try runRocket(["--version"])
        #expect(version.status == 0 && version.stdout.hasPrefix("rocket "))
        for command in ["demo", "play", "lint"] {
            let a = try runRocket(["help", command])
            let b = try runRocket([command, "--help"])
            #expect(a.status == 0 && a.stdout == b.stdout && a.stdout.contains("USAGE: rocket \(command)"))
        }
    }

    @Test(
        "Usage errors: one line plus a hint, exit 64",
        arguments: [
            (["play"], "missing FLOW.json"), (["play", "a.json", "--bogus"], "unknown option '--bogus'"),
            (["play", "a.json", "--evnts", "x"], "did you mean '--events'?"), (["plya"], "did you mean 'play'?"),
            (["play", "a.json", "--var", "novalue"], "must be NAME=VALUE"), (["lint"], "missing FLOW.json"),
            (["play", "a.json", "--events"], "missing value"),
        ])
    func usageErrors(args: [String], fragment: String) throws {
        let r = try runRocket(args)
        #expect(r.status == 64)
        let lines = r.stderr.split(separator: "\n")
        #expect(lines.count == 2 && lines[0].hasPrefix("rocket: error: ") && lines[0].contains(fragment) && lines[1].hasPrefix("See 'rocket"))
    }

    @Test("Plain mode through pipes: transcript, buttons by number and title, validation on stderr, answers and events")
    func plainPipes() throws {
        let dir = scratchDirectory()
        write(tinyFlow, to: dir + "/flow.json")
        let r = try runRocket(
            [
                "play", dir + "/flow.json", "--instant", "--var", "user=Kim", "--events", dir + "/events.jsonl",
                "--answers-out", dir + "/answers.json",
            ], stdin: "3\nsure\nR2D2\nAda\n4321\n1\nok\n")
        #expect(r.status == 0)
        #expect(r.stdout.isEmpty)  // line mode: the transcript and the prompts go to stderr
        #expect(
            r.stderr == """
                Bot: Hello Kim
                Bot: [1] Sure  [2] Later
                Not a choice: "3" — Choose 1-2 or type a title:
                you: Sure
                Bot: Name?
                Letters only
                you: Ada
                Bot: PIN?
                you: ••••
                Bot: [1] Enable
                you: Enable
                Bot: Thanks, Ada!

                """)
        #expect(!r.stdout.contains("\u{1B}") && !r.stderr.contains("\u{1B}"))
        let timed = try String(contentsOfFile: dir + "/events.jsonl", encoding: .utf8)
        // Every record begins with its time; the first says which flow started.
        #expect(timed.split(separator: "\n").allSatisfy { $0.hasPrefix(#"{"at":17"#) || $0.hasPrefix(#"{"at":18"#) }, "\(timed)")
        let events = withoutTimes(timed)
        #expect(
            events.prefixMatch(of: /\{"event":"started","flow":"flow","version":"[0-9a-f]{12}"\}\n\{"event":"blockAdded","index":0,"id":"hi","type":"text"\}/)
                != nil, "\(events)")
        #expect(events.contains(#"{"event":"buttonPressed","index":1,"id":"ask","title":"Sure","side":"left","options":[0]}"#))
        #expect(events.contains(#"{"event":"inputSubmitted","index":2,"id":"name"}"#))
        #expect(events.contains(#"{"event":"action","name":"enable-notifications","id":"go"}"#))
        #expect(events.contains(#"{"event":"dismissed","reason":"completed","count":6,"ids":["hi","ask","name","pin","go","done"]}"#))
        #expect(!events.contains("4321"))
        let answers = try String(contentsOfFile: dir + "/answers.json", encoding: .utf8)
        #expect(answers == #"{"ask": "Sure", "go": "Enable", "name": "Ada"}"# + "\n")
    }

    @Test("A run that does not exit in time is said thread by thread before it is killed (the harness's own diagnosis)")
    func hungRunDiagnosed() throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/bin/sleep")
        p.arguments = ["5"]
        try p.run()
        defer { kill(p.processIdentifier, SIGKILL) }
        usleep(100_000)
        let said = hungThreads(p.processIdentifier)
        #expect(said.contains("sleep: wchan ") && said.contains("syscall "), "\(said)")
        #expect(exitStatus(of: p, timeout: 0.2) == -1)
    }

    @Test("The harness's shell (what starts the test database) hands its child no descriptor of the tests' but its output")
    func shellInheritsNothing() throws {
        let held = Pipe()  // not close-on-exec, as a test's pipe to a rocket's standard input
        defer {
            try? held.fileHandleForReading.close()
            try? held.fileHandleForWriting.close()
        }
        let listed = try #require(cleanShell("ls /proc/$$/fd"))
        #expect(listed.split(separator: "\n").sorted() == ["0", "1", "2"], "\(listed)")
    }

    @Test("A command rocket starts (an --on-action hook) gets none of rocket's own descriptors: its terminal's signal pipe stays behind")
    func hooksInheritNothing() throws {
        let dir = scratchDirectory()
        write(#"{"version": 1, "blocks": [{"id": "go", "type": "button", "title": "Go", "action": "list"}]}"#, to: dir + "/flow.json")
        // rocket gets 0, 1 and 2 only; its hook's standard input is /dev/null, its output rocket's.
        let said = try #require(
            cleanShell("printf '\\n' | '\(rocketPath)' play --plain --instant '\(dir)/flow.json' --on-action 'list=ls /proc/$$/fd' 2>&1 >/dev/null"))
        // (The transcript goes to standard error too: the hook's lines are the numbers.)
        #expect(said.split(separator: "\n").filter { $0.allSatisfy(\.isNumber) }.sorted() == ["0", "1", "2"], "\(said)")
    }

    @Test("--verbose says where the flow's expressions fail as it plays, each place once; without it, only the events say so")
    func verboseExpressionErrors() throws {
        let dir = scratchDirectory()
        let flow = #"""
            {"version": 1, "vars": {"i": 0, "n": 0, "r": 0}, "blocks": [
             {"id": "s", "type": "set", "set": {"i": "i + 1", "r": "10 / n"}, "next": "c"},
             {"id": "c", "type": "condition", "branches": [{"if": "i < 5", "next": "s"}], "else": "t"},
             {"id": "t", "type": "text", "text": "done {{i}}"}]}
            """#
        write(flow, to: dir + "/flow.json")
        let loud = try runRocket(["play", dir + "/flow.json", "--plain", "--instant", "--verbose"], stdin: "\n")
        let notes = loud.stderr.split(separator: "\n").filter { $0.hasPrefix("rocket: note:") }
        #expect(notes == [#"rocket: note: block "s" set.r: division by zero (division-by-zero)"#], "\(loud.stderr)")
        #expect(loud.stderr.contains("done 5"))
        let quiet = try runRocket(["play", dir + "/flow.json", "--plain", "--instant", "--events", dir + "/e.jsonl"], stdin: "\n")
        #expect(!quiet.stderr.contains("rocket: note:"), "\(quiet.stderr)")
        let events = try String(contentsOfFile: dir + "/e.jsonl", encoding: .utf8)
        #expect(events.components(separatedBy: #""code":"division-by-zero""#).count - 1 == 5)
    }

    @Test("End of input closes the conversation: exit 1, reason closed")
    func endOfInput() throws {
        let dir = scratchDirectory()
        write(tinyFlow, to: dir + "/flow.json")
        let r = try runRocket(["play", dir + "/flow.json", "--instant", "--events", dir + "/e.jsonl"], stdin: "2\n")
        #expect(r.status == 1)  // "2" chose Later, which leads to "bye", a text block; then end of input
        #expect(r.stderr.contains("the input ended at block 'bye' before the conversation did"), "\(r.stderr)")
        let r2 = try runRocket(["play", dir + "/flow.json", "--instant", "--events", dir + "/e.jsonl"], stdin: "")
        #expect(r2.status == 1)
        #expect(r2.stderr.contains("rocket: the input ended at block 'ask' before the conversation did, so it was closed (exit 1)"), "\(r2.stderr)")
        #expect(!r2.stdout.contains("input ended"))
        #expect(try String(contentsOfFile: dir + "/e.jsonl", encoding: .utf8).contains(#""reason":"closed""#))
        // Answered to its end, nothing is said about the input.
        let r3 = try runRocket(["play", dir + "/flow.json", "--instant"], stdin: "2\n\n")
        #expect(r3.status == 0)
        #expect(!r3.stderr.contains("input ended"))
    }

    @Test("An over-long answer line is refused with a message and skipped; the next line answers")
    func overlongLine() throws {
        let dir = scratchDirectory()
        write(tinyFlow, to: dir + "/flow.json")
        let r = try runRocket(
            ["play", dir + "/flow.json", "--instant", "--events", dir + "/e.jsonl"], stdin: String(repeating: "x", count: 200_000) + "\n2\n")
        #expect(r.stderr.contains("longer than 64 KiB"))
        #expect(!r.stdout.contains("xxxx") && !r.stderr.contains("xxxx"))
        #expect(try String(contentsOfFile: dir + "/e.jsonl", encoding: .utf8).contains("Later"))
    }

    @Test("- is standard input for lint, graph and scenario import, and standard output for --events")
    func dashMeansStandardStreams() throws {
        let dir = scratchDirectory()
        write(tinyFlow, to: dir + "/flow.json")
        let lint = try runRocket(["lint", "-"], stdin: tinyFlow.replacing(#""next": "pin""#, with: #""nxt": "pin""#))
        #expect(lint.status == 65 && lint.stdout.contains("<stdin>:") && lint.stdout.contains("nxt"))
        #expect(try runRocket(["lint", "-", "-"]).status == 64)
        let graph = try runRocket(["graph", "-"], stdin: tinyFlow)
        #expect(graph.status == 0 && graph.stdout.contains("Later"))
        let store = dir + "/s.sqlite"
        #expect(try runRocket(["scenario", "trigger", "launch", "--store", store]).status == 0)
        let export = try runRocket(["scenario", "export", "--store", store])
        let imported = try runRocket(["scenario", "import", "-", "--store", dir + "/t.sqlite"], stdin: export.stdout)
        #expect(imported.status == 0)
        let known = try runRocket(["scenario", "status", "launch", "--store", dir + "/t.sqlite"])
        #expect(known.stdout.contains("events 1") && known.stderr.isEmpty)
        // A name the store has never seen is all zeros, and said (a typo reads the same).
        let typo = try runRocket(["scenario", "status", "lunch", "--store", dir + "/t.sqlite"])
        #expect(typo.status == 0 && typo.stdout.contains("lunch: events 0"))
        #expect(
            typo.stderr == "rocket scenario: no events or shows of \"lunch\" in this store yet; did you mean \"launch\"? (it knows \"launch\")\n",
            "\(typo.stderr)")
        #expect(try runRocket(["scenario", "import", "-", "--store", dir + "/t.sqlite"], stdin: "[1]").status == 65)
        let events = try runRocket(["play", dir + "/flow.json", "--instant", "--events", "-"], stdin: "2\n\n")
        #expect(events.stdout.contains(#""event":"dismissed""#))
        #expect(try runRocket(["play", dir + "/flow.json", "--events", "-", "--answers-out", "-"]).status == 64)
        #expect(try runRocket(["play", dir + "/flow.json", "--state", "-"]).status == 64)
    }

    @Test("rocket scenario on a postgresql:// store: trigger, try, status, export into a file store and back; a bad URL exits 74 without its password")
    func postgresStore() throws {
        let url = try TestPostgres.freshDatabase()
        let dir = scratchDirectory()
        // Reading a database with no rocket store yet shows an empty store and writes nothing.
        #expect(try runRocket(["scenario", "status", "launch", "--store", url]).status == 0)
        for _ in 0..<3 {
            // Quiet on stderr: no notice of the server's ("relation … already exists, skipping").
            let r = try runRocket(["scenario", "trigger", "launch", "--store", url])
            #expect(r.status == 0 && r.stderr.isEmpty, "\(r.stderr)")
        }
        let tried = try runRocket(["scenario", "try", "launch", "--min-events", "3", "--max-executions", "1", "--store", url])
        #expect(tried.status == 0)
        #expect(try runRocket(["scenario", "try", "launch", "--min-events", "3", "--max-executions", "1"], environment: ["ROCKET_STORE": url]).status == 1)
        #expect(try runRocket(["scenario", "status", "launch", "--store", url]).stdout.contains("events 3"))
        let export = try runRocket(["scenario", "export", "--store", url])
        #expect(try runRocket(["scenario", "import", "-", "--store", dir + "/s.sqlite"], stdin: export.stdout).status == 0)
        let again = try TestPostgres.freshDatabase()
        #expect(try runRocket(["scenario", "import", "-", "--store", again], stdin: export.stdout).status == 0)
        #expect(try runRocket(["scenario", "export", "--store", again]).stdout == export.stdout)
        let bad = try runRocket(["scenario", "trigger", "x", "--store", "postgresql://u:hunter2secret@/db?host=/nonexistent"])
        #expect(bad.status == 74 && bad.stderr.contains("cannot connect") && !bad.stderr.contains("hunter2secret"))
        let serve = try runRocket(["serve", "--store", "postgresql://u:hunter2secret@/db?host=/nonexistent", "--insecure-dev"])
        #expect(serve.status == 69 && serve.stderr.contains("cannot connect") && !serve.stderr.contains("hunter2secret"), "\(serve.stderr)")
    }

    @Test("Invalid flow exits 65 with diagnostics; a missing file exits 66")
    func badFiles() throws {
        let dir = scratchDirectory()
        write(#"{"version": 1, "blocks": [{"id": "a", "type": "text", "text": "x", "next": "zz"}]}"#, to: dir + "/bad.json")
        let r = try runRocket(["play", dir + "/bad.json"])
        #expect(r.status == 65)
        #expect(r.stderr.contains("bad.json:1:76: error: no block has the id \"zz\""))
        #expect(try runRocket(["play", dir + "/missing.json"]).status == 66)
        let folder = try runRocket(["play", dir])
        #expect(folder.status == 66 && folder.stderr.contains("is a directory; name its flow: '\(dir)/bad.json'"), "\(folder.stderr)")
        // A missing flow file names the one the name most likely meant: NAME.json for a bare name,
        // else a flow file beside it a typo away (never a test file), else nothing.
        write(tinyFlow, to: dir + "/welcome.json")
        write(#"{"cases": []}"#, to: dir + "/welcome.test.json")
        let bare = try runRocket(["play", dir + "/welcome"])
        #expect(bare.status == 66 && bare.stderr.contains("no such file; did you mean '\(dir)/welcome.json'?"), "\(bare.stderr)")
        let typo = try runRocket(["lint", dir + "/welcom.json"])
        #expect(typo.status == 66 && typo.stdout.contains("no such file; did you mean '\(dir)/welcome.json'?"), "\(typo.stdout)")
        let tested = try runRocket(["test", dir + "/wellcome.json"])
        #expect(
            tested.status == 66 && tested.stderr.contains("\(dir)/wellcome.json: error: cannot read the file: no such file; did you mean"), "\(tested.stderr)")
        let many = try runRocket(["graph", dir])
        #expect(many.status == 66 && many.stderr.contains("is a directory; name one of its 2 flows, such as '\(dir)/bad.json'"), "\(many.stderr)")
        // Another kind of file given as a flow says what it is and what reads it, in one error.
        write(#"{"cases": []}"#, to: dir + "/welcome.test.json")
        write("{\"at\":1,\"event\":\"started\",\"flow\":\"w\"}\n{\"at\":2,\"event\":\"dismissed\",\"flow\":\"w\"}\n", to: dir + "/events.jsonl")
        #expect(try runRocket(["scenario", "trigger", "x", "--store", dir + "/store.sqlite"]).status == 0)
        for (file, says) in [
            ("welcome.test.json", "a test file of a flow's cases, not a flow: rocket test \(dir)/welcome.test.json plays them against \(dir)/welcome.json"),
            ("events.jsonl", "event records (JSON Lines), not a flow: rocket report \(dir)/events.jsonl reads them"),
            ("store.sqlite", "an SQLite store (rocket serve's or rocket scenario's), not a flow file"),
        ] {
            let other = try runRocket(["play", dir + "/" + file])
            #expect(other.status == 65 && other.stderr == "\(dir)/\(file):1:1: error: \(says)\n", "\(other.stderr)")
        }
        let far = try runRocket(["graph", dir + "/onboarding.json"])
        #expect(far.status == 66 && far.stderr.hasSuffix("no such file\n"), "nothing near: \(far.stderr)")
    }

    @Test("lint: FILE:LINE:COL lines, --json, exit 0 / 65 / 66")
    func lint() throws {
        let dir = scratchDirectory()
        write(tinyFlow, to: dir + "/good.json")
        write(#"{"version": 1, "blocks": [{"id": "a", "type": "text", "text": "{{nope}}"}, {"id": "b", "type": "txt"}]}"#, to: dir + "/bad.json")
        write(#"{"version": 1, "blocks": [{"id": "a", "type": "text", "text": "x"}, {"id": "b", "type": "text", "text": "y"}]}"#, to: dir + "/warn.json")
        let good = try runRocket(["lint", dir + "/good.json"])
        #expect(good.status == 0 && good.stdout.isEmpty)
        let warn = try runRocket(["lint", dir + "/warn.json"])
        #expect(
            warn.status == 0
                && warn.stdout
                    == "\(dir)/warn.json:1:27: warning: the block \"a\" can end the conversation, so \"b\" after it can never be shown; is a \"next\": \"b\" missing? (blocks[0])\n"
        )
        let bad = try runRocket(["lint", dir + "/good.json", dir + "/bad.json"])
        #expect(bad.status == 65)
        #expect(bad.stdout.hasPrefix("\(dir)/bad.json:1:96: error: unknown block type \"txt\""))
        let json = try runRocket(["lint", "--json", dir + "/bad.json"])
        let parsed = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]]
        #expect(parsed?.first?["code"] as? String == "unknown-block-type")
        #expect(parsed?.first?["line"] as? Int == 1)
        #expect(try runRocket(["lint", dir + "/good.json", dir + "/nope.json"]).status == 66)

        // A folder: its NAME.json regular files, as rocket serve --flows offers them.
        let outside = scratchDirectory()
        write(#"{"version": 1, "blocks": [{"id": "a", "type": "nope"}]}"#, to: outside + "/hidden.json")
        #expect(symlink(outside + "/hidden.json", dir + "/linked.json") == 0)
        write("not json", to: dir + "/notes.txt")
        #expect(mkdir(dir + "/sub.json", 0o700) == 0)
        let folder = try runRocket(["lint", dir + "/"])
        #expect(folder.status == 65)
        let files = Set(folder.stdout.split(separator: "\n").map { $0.split(separator: ":").first.map(String.init) ?? "" })
        #expect(files == ["\(dir)/bad.json", "\(dir)/warn.json"], "\(folder.stdout)")
        let empty = scratchDirectory()
        let none = try runRocket(["lint", empty])
        #expect(none.status == 66 && none.stdout == "\(empty): error: holds no flow files (NAME.json) or test files (NAME.test.json)\n")
    }

    @Test("A huge file is refused from its size without being read")
    func hugeFile() throws {
        let dir = scratchDirectory()
        let path = dir + "/huge.json"
        _ = FileManager.default.createFile(atPath: path, contents: nil)
        let h = try #require(FileHandle(forWritingAtPath: path))
        try h.truncate(atOffset: 120 << 20)  // a sparse 120 MB file
        try h.close()
        let r = try runRocket(["lint", path])
        #expect(r.status == 65 && r.stdout.contains("limit is 100663296 bytes"))
    }

    @Test("The demo runs through pipes to its end")
    func demoPlain() throws {
        let r = try runRocket(["demo", "--instant"], stdin: "\n\n1\nAda\n\n1234\n1\n2\nGreat\n\n1\n")
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.hasPrefix("🚀 [Welcome to the RocketAlert tour]"))
        #expect(r.stderr.contains("Countess Ada! Welcome back."))
        #expect(r.stderr.contains("All set, Ada."))
        // The closing alert lists its lazily loaded choices once they arrived.
        #expect(
            r.stderr.hasSuffix(
                "How was the tour?\nThis alert is AlertReactor's: its choices load lazily and it updates live.\n[1] Loved it\n[2] It was fine\n[3] Not now (cancel)\n"
            ))
    }
}

@Suite("Signals in plain mode")
struct PlainSignalTests {
    @Test("SIGINT exits 130 and SIGTERM 143, with the dismissal logged as interrupted", arguments: [(SIGINT, Int32(130)), (SIGTERM, Int32(143))])
    func signals(signal: Int32, status: Int32) throws {
        let dir = scratchDirectory()
        write(tinyFlow, to: dir + "/flow.json")
        let p = Process()
        p.executableURL = URL(fileURLWithPath: rocketPath)
        p.arguments = ["play", dir + "/flow.json", "--plain", "--events", dir + "/e.jsonl"]
        let input = Pipe(), output = Pipe()
        p.standardInput = input
        p.standardError = output
        try p.run()
        // Wait until it is waiting for a line (its first block is on stderr: line mode's transcript).
        let first = output.fileHandleForReading.availableData
        #expect(String(decoding: first, as: UTF8.self).contains("Hello"))
        kill(p.processIdentifier, signal)
        p.waitUntilExit()
        try input.fileHandleForWriting.close()
        #expect(p.terminationStatus == status)
        #expect(try String(contentsOfFile: dir + "/e.jsonl", encoding: .utf8).contains(#""reason":"interrupted""#))
    }
}

@Suite("Line mode: echo rules and translations")
struct LineModeTests {
    @Test("Through a pipe a button choice is echoed by its title; an empty line presses a single button")
    func pipes() throws {
        let dir = scratchDirectory()
        write(
            #"{"version": 1, "blocks": [{"id": "go", "type": "button", "title": "Continue", "next": "bye"}, {"id": "bye", "type": "text", "text": "Bye"}]}"#,
            to: dir + "/f.json")
        let r = try runRocket(["play", dir + "/f.json", "--instant"], stdin: "\n\n")
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr == "Rocket: [1] Continue\nyou: Continue\nRocket: Bye\n" && r.stdout.isEmpty)
    }

    @Test("On a terminal in line mode the typed answer appears once")
    func terminalEchoOnce() throws {
        let dir = scratchDirectory()
        write(tinyFlow, to: dir + "/flow.json")
        let run = try PTYRun(["play", dir + "/flow.json", "--plain", "--instant"])
        #expect(run.waitFor("[1] Sure"))
        run.send("1\r")
        #expect(run.waitFor("Name?"))
        run.send("Ada\r")
        #expect(run.waitFor("PIN?"))
        let lines = run.screen.allLines
        #expect(lines.filter { $0.contains("Ada") }.count == 1, "\(lines)")
        #expect(lines.contains { $0.contains("you: Sure") })
        run.send([0x03])
        _ = run.waitForExit()
    }

    @Test("Alert tags in line mode follow the language")
    func italianTags() throws {
        let r = try runRocket(
            ["alert", "--title", "Eliminare?", "--action", "Elimina:destructive", "--action", "No:cancel", "--action", "Archivia:disabled", "--plain"],
            stdin: "2\n", environment: ["LANG": "it_IT.UTF-8"])
        #expect(r.stderr.contains("[1] Elimina (distruttiva)"))
        #expect(r.stderr.contains("[2] No (annulla)"))
        #expect(r.stderr.contains("[3] Archivia (non disponibile)"))
        #expect(!r.stderr.contains("(cancel)") && r.stdout == "No\n")
    }
}

@Suite("Placeholders in every string a user sees")
struct PlaceholderTests {
    static let flow = #"""
        {"version": 1, "variables": ["user"], "closeButton": {"title": "Bye {{user}}"},
         "banner": {"title": "Hi {{user}}", "subtitle": "for {{user}}", "buttons": ["Go {{user}}"]},
         "blocks": [
          {"id": "name", "type": "textInput", "text": "Name, {{user}}?", "buttonTitle": "Send {{user}}", "placeholder": "as {{user}}",
           "validate": {"pattern": "^[A-Z]", "message": "Capital first, {{user}}"}, "next": "ok"},
          {"id": "ok", "type": "button", "title": "Yes {{name}}", "next": "end"},
          {"id": "end", "type": "text", "text": "Done"}
         ]}
        """#

    @Test("Banner, button titles and validation messages are filled in line mode")
    func filled() throws {
        let dir = scratchDirectory()
        write(Self.flow, to: dir + "/f.json")
        let r = try runRocket(["play", dir + "/f.json", "--instant", "--var", "user=Sam"], stdin: "ada\nAda\n1\n\n")
        #expect(r.stderr.contains("[Hi Sam] for Sam"), "\(r.stderr)")
        #expect(r.stderr.contains("Rocket: Name, Sam?"))
        #expect(r.stderr.contains("Rocket: [1] Yes Ada"))
        #expect(r.stderr.contains("you: Yes Ada"))
        #expect(r.stderr.contains("Capital first, Sam"))
        #expect(!r.stdout.contains("{{") && !r.stderr.contains("{{"))
        #expect(!r.stderr.contains("warning"), "user is read by the banner: \(r.stderr)")
        // A name the flow reads nowhere changes nothing: said, with the nearest name it reads.
        let typo = try runRocket(["play", dir + "/f.json", "--instant", "--var", "usr=Sam"], stdin: "ada\nAda\n1\n\n")
        #expect(
            typo.stderr.hasPrefix(
                "rocket play: warning: --var \"usr\": the flow reads no such name, so it changes nothing; did you mean \"user\"? (it reads \"name\" and \"user\")\n"
            ), "\(typo.stderr)")
    }

    @Test("Lint checks placeholders in every string, and those shown at the start against variables only")
    func lint() throws {
        let dir = scratchDirectory()
        write(
            Self.flow.replacingOccurrences(of: "\"title\": \"Hi {{user}}\"", with: "\"title\": \"Hi {{name}}\"")
                .replacingOccurrences(of: "Capital first, {{user}}", with: "Capital first, {{who}}"), to: dir + "/f.json")
        let r = try runRocket(["lint", dir + "/f.json"])
        #expect(r.stdout.contains("{{name}} is shown when the flow starts"), "\(r.stdout)")
        #expect(r.stdout.contains("{{who}} is filled by no input"), "\(r.stdout)")
    }
}

@Suite("play and lint warnings")
struct PlayWarningTests {
    @Test("play keeps lint warnings from the person playing unless --verbose; errors always show")
    func quiet() throws {
        let dir = scratchDirectory()
        write(#"{"version": 1, "blocks": [{"id": "a", "type": "text", "text": "Hi {{nobody}}"}]}"#, to: dir + "/w.json")
        let quiet = try runRocket(["play", dir + "/w.json", "--instant"], stdin: "\n")
        #expect(quiet.status == 0 && quiet.stderr == "Rocket: Hi {{nobody}}\n", "\(quiet.stderr)")
        let verbose = try runRocket(["play", dir + "/w.json", "--instant", "--verbose"], stdin: "\n")
        #expect(verbose.stderr.contains("warning: {{nobody}}"))
        write(#"{"version": 1, "blocks": [{"id": "a", "type": "text", "text": "Hi", "next": "zz"}]}"#, to: dir + "/e.json")
        let error = try runRocket(["play", dir + "/e.json", "--instant"], stdin: "\n")
        #expect(error.status == 65 && error.stderr.contains("error: no block has the id"))
    }
}

@Suite("Lint catches what play trips on: the files a flow names")
struct AssetTests {
    @Test("play reads pictures' headers only: one damaged past its header plays and lint finds it; a header stating too many pixels stops both")
    func playReadsHeaders() throws {
        let dir = scratchDirectory()
        let here = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let logo = try Data(contentsOf: here.appendingPathComponent("examples/rocket-logo.png"))
        try logo.prefix(100).write(to: URL(fileURLWithPath: dir + "/cut.png"))  // the header whole, the pixels cut short
        write(#"{"version": 1, "blocks": [{"id": "p", "type": "image", "image": "cut.png", "text": "A cut picture"}]}"#, to: dir + "/cut.json")
        let lint = try runRocket(["lint", dir + "/cut.json"])
        #expect(lint.status == 65 && lint.stdout.contains("the image \"cut.png\" is a PNG that cannot be decoded"), "\(lint.stdout)")
        let play = try runRocket(["play", dir + "/cut.json", "--instant", "--plain"], stdin: "\n")
        #expect(play.status == 0 && (play.stdout + play.stderr).contains("A cut picture"), "\(play.status) \(play.stdout) \(play.stderr)")
        // A header stating more pixels than a picture may have: refused before any pixel is read.
        var huge = [UInt8](logo.prefix(33))
        huge.replaceSubrange(16..<24, with: [0, 0, 0x13, 0x88, 0, 0, 0x13, 0x88])  // 5000 × 5000
        try Data(huge).write(to: URL(fileURLWithPath: dir + "/huge.png"))
        write(#"{"version": 1, "blocks": [{"id": "p", "type": "image", "image": "huge.png"}]}"#, to: dir + "/huge.json")
        let refused = try runRocket(["play", dir + "/huge.json", "--instant", "--plain"], stdin: "\n")
        #expect(refused.status == 65, "\(refused.stdout) \(refused.stderr)")
        #expect(
            (refused.stdout + refused.stderr).contains("the image \"huge.png\" is a PNG of 5000 × 5000 pixels; the most a picture may have is 16777216 pixels"),
            "\(refused.stdout) \(refused.stderr)")
        #expect(try runRocket(["lint", dir + "/huge.json"]).status == 65)
    }

    @Test("a data: URI's picture is checked as a file's is: a GIF or no picture is an error in lint and play, a PNG that does not decode in lint")
    func dataURIs() throws {
        let dir = scratchDirectory()
        let gif = "data:image/gif;base64,R0lGODlhAQABAAAAACw="
        let text = "data:text/plain;base64,aGVsbG8="
        // A PNG whose compressed pixels fail their checksum (as the starter's once did): its header is sound.
        let damaged = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAYAAABytg0kAAAAFklEQVR4nGNgYPj/nwFIMDAwMDAAABz6Af+yOhETAAAAAElFTkSuQmCC"
        let blocks = [gif, text, damaged].enumerated().map {
            #"{"id": "b\#($0.offset)", "type": "image", "image": "\#($0.element)", "next": "b\#($0.offset + 1)"}"#
        }
        write(#"{"version": 1, "blocks": [\#(blocks.joined(separator: ",\n")), {"id": "b3", "type": "text", "text": "end"}]}"#, to: dir + "/d.json")
        let lint = try runRocket(["lint", dir + "/d.json"])
        #expect(lint.status == 65)
        #expect(lint.stdout.contains("d.json:1:66: error: the image (a data: URI) is a GIF picture; a flow's pictures are PNG or JPEG files"), "\(lint.stdout)")
        #expect(lint.stdout.contains("d.json:2:40: error: the image (a data: URI) is not a PNG or JPEG picture (blocks[1].image)"), "\(lint.stdout)")
        #expect(lint.stdout.contains("d.json:3:40: error: the image (a data: URI) is a PNG that cannot be decoded: "), "\(lint.stdout)")
        #expect(try runRocket(["play", dir + "/d.json", "--instant", "--plain"], stdin: "\n").status == 65)
        // The starter's picture decodes (it lints clean, pictures decoded).
        let starter = try runRocket(["new", "-"])
        #expect(starter.stdout.contains("data:image/png;base64,"))
        write(starter.stdout, to: dir + "/starter.json")
        #expect(try runRocket(["lint", dir + "/starter.json"]).stdout.isEmpty)
        // A web address is drawn by nothing: said as such, not as a missing file.
        write(#"{"version": 1, "blocks": [{"id": "w", "type": "image", "image": "HTTPS://cdn.example/a.png", "text": "x"}]}"#, to: dir + "/w.json")
        let web = try runRocket(["lint", dir + "/w.json"])
        #expect(
            web.status == 65
                && web.stdout.contains(
                    "error: the image \"HTTPS://cdn.example/a.png\" is a web address (https); a flow's pictures are files beside it or data: URIs"),
            "\(web.stdout)")
        #expect(AssetCheck.webScheme("a://b") == "a" && AssetCheck.webScheme("://x") == nil && AssetCheck.webScheme("pics/a b://c.png") == nil)
    }

    @Test("Missing and non-image files are errors in lint and play, at their place; the examples' images exist")
    func images() throws {
        let dir = scratchDirectory()
        write("not a picture", to: dir + "/fake.png")
        write(
            #"""
            {"version": 1, "author": {"image": "missing.png"},
             "blocks": [{"id": "a", "type": "image", "image": "fake.png", "text": "x"}]}
            """#, to: dir + "/f.json")
        let lint = try runRocket(["lint", dir + "/f.json"])
        #expect(lint.status == 65)
        #expect(lint.stdout.contains("f.json:1:36: error: the image \"missing.png\" cannot be read"), "\(lint.stdout)")
        #expect(lint.stdout.contains("f.json:2:51: error: the image \"fake.png\" is not a PNG or JPEG picture"), "\(lint.stdout)")
        #expect(try runRocket(["play", dir + "/f.json", "--instant"], stdin: "\n").status == 65)
        // A picture of an option, a side or a button, the same.
        write(
            #"""
            {"version": 1, "blocks": [{"id": "c", "type": "choice", "text": "Which?",
              "options": [{"title": "A", "image": "gone.png"}, {"title": "B", "image": "fake.png"}]}]}
            """#, to: dir + "/g.json")
        let options = try runRocket(["lint", dir + "/g.json"])
        #expect(options.status == 65)
        #expect(
            options.stdout.contains("g.json:2:39: error: the image \"gone.png\" cannot be read") && options.stdout.contains("(blocks[0].options[0].image)"),
            "\(options.stdout)")
        #expect(
            options.stdout.contains(
                "g.json:2:76: error: the image \"fake.png\" is not a PNG or JPEG picture (blocks[0].options[1].image)"),
            "\(options.stdout)")
        // A GIF or a WebP is a picture, but not one a flow may name: the error says which it is.
        write("GIF89a\u{3}\0\u{2}\0\0\0\0;", to: dir + "/moving.gif")
        write("RIFF\0\0\0\0WEBPVP8X", to: dir + "/photo.webp")
        write(
            #"""
            {"version": 1, "blocks": [{"id": "a", "type": "image", "image": "moving.gif", "next": "b"},
              {"id": "b", "type": "image", "image": "photo.webp"}]}
            """#, to: dir + "/h.json")
        let formats = try runRocket(["lint", dir + "/h.json"])
        #expect(formats.status == 65)
        for (place, name, format) in [("1:65", "moving.gif", "GIF"), ("2:41", "photo.webp", "WebP")] {
            #expect(
                formats.stdout.contains(
                    "h.json:\(place): error: the image \"\(name)\" is a \(format) picture; a flow's pictures are PNG or JPEG files (the terminal draws no other)"
                ),
                "\(formats.stdout)")
        }
        let here = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        #expect(try runRocket(["lint", here.appendingPathComponent("examples/welcome.json").path]).status == 0)
    }

    @Test("A picture wider or taller than any page shows (2048 pixels) is a warning, large-image, in lint; 2048 itself is not")
    func largePictures() throws {
        let dir = scratchDirectory()
        for (name, width) in [("wide", 2049), ("fits", 2048)] {
            let rgb = [UInt8](repeating: 90, count: width * 8 * 3)
            var out: UnsafeMutablePointer<UInt8>?
            let size = rocket_test_jpeg(rgb, Int32(width), 8, &out)
            defer { free(out) }
            _ = FileManager.default.createFile(atPath: dir + "/\(name).jpg", contents: Data(bytes: out!, count: Int(size)))
        }
        write(
            #"""
            {"version": 1, "blocks": [{"id": "c", "type": "choice", "text": "Which?",
              "options": [{"title": "A", "image": "wide.jpg"}, {"title": "B", "image": "fits.jpg"}]}]}
            """#, to: dir + "/p.json")
        let lint = try runRocket(["lint", dir + "/p.json"])
        #expect(lint.status == 0, "a warning, not an error: \(lint.stdout)")
        #expect(
            lint.stdout.contains(
                "p.json:2:39: warning: the image \"wide.jpg\" is 2049 × 8 pixels; pages show a picture at most 2048 across, so visitors would download more than they see: make it smaller (blocks[0].options[0].image)"
            ), "\(lint.stdout)")
        #expect(!lint.stdout.contains("fits.jpg"), "\(lint.stdout)")
        // Play says it only when asked (--verbose), and plays.
        let play = try runRocket(["play", dir + "/p.json", "--instant"], stdin: "2\n")
        #expect(play.status == 0 && !play.stderr.contains("wide.jpg"), "\(play.stderr)")
        // rocket serve --check says it of a flow in its folder, and of a picture that is missing,
        // without failing the check: the flows can be served.
        write(#"{"version": 1, "blocks": [{"id": "i", "type": "image", "image": "gone.png", "text": "x"}]}"#, to: dir + "/gone.json")
        let check = try runRocket(["serve", "--check", "--flows", dir, "--insecure-dev", "--store", dir + "/s.sqlite"])
        #expect(check.status == 0, "\(check.stderr)")
        #expect(check.stderr.contains("p.json: the image \"wide.jpg\" is 2049 × 8 pixels"), "\(check.stderr)")
        #expect(check.stderr.contains("gone.json: the image \"gone.png\" cannot be read: no such file (blocks[0].image)"), "\(check.stderr)")
        #expect(!check.stderr.contains("fits.jpg"), "\(check.stderr)")
    }

    @Test("serve says which .json files of its folder it passes over and why (a link, a name that is no flow name), and a folder with no flows")
    func passedOver() throws {
        let dir = scratchDirectory()
        let flow = #"{"version": 1, "blocks": [{"id": "hi", "type": "text", "text": "Hello"}]}"#
        write(flow, to: dir + "/ok.json")
        write(flow, to: dir + "/onboarding.v2.json")
        write(flow, to: dir + "/Ünï.json")
        write(#"{"cases": [{"name": "ends"}]}"#, to: dir + "/ok.test.json")
        try FileManager.default.createSymbolicLink(atPath: dir + "/linked.json", withDestinationPath: dir + "/ok.json")
        let check = try runRocket(["serve", "--check", "--flows", dir, "--insecure-dev", "--store", dir + "/s.sqlite"])
        #expect(check.status == 0, "warnings, not errors: \(check.stderr)")
        #expect(
            check.stderr.contains(
                "\(dir)/onboarding.v2.json is not offered: a flow's name is letters, digits, - and _ (not first), at most 64 bytes; rename it, such as 'onboarding-v2.json'"
            ), "\(check.stderr)")
        #expect(check.stderr.contains("\(dir)/Ünï.json is not offered: a flow's name is letters, digits, - and _ (not first), at most 64 bytes\n"))
        #expect(check.stderr.contains("\(dir)/linked.json is not offered: it is a link or not a regular file"))
        #expect(!check.stderr.contains("ok.test.json") && !check.stderr.contains("ok.json is not offered"))
        #expect(check.stderr.contains("the configuration is good: 1 flow(s)"))
        // A folder with no flow: said at the start too (the server still starts: flows may come).
        let empty = dir + "/empty"
        try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: true)
        let none = try runRocket(["serve", "--check", "--flows", empty, "--insecure-dev", "--store", dir + "/s.sqlite"])
        #expect(none.status == 0 && none.stderr.contains("\(empty) holds no flows (NAME.json): every page is 404 until one is added"), "\(none.stderr)")
        #expect(FlowLibrary.servableName("_draft copy") == "draft-copy" && FlowLibrary.servableName("...") == nil)
        // rocket lint of the folder warns the same (not of a file named on its own).
        let lint = try runRocket(["lint", dir])
        #expect(
            lint.stdout.contains(
                "\(dir)/onboarding.v2.json: warning: rocket serve would not offer this file: a flow's name is letters, digits, - and _ (not first), at most 64 bytes; rename it, such as 'onboarding-v2.json'"
            ), "\(lint.stdout)")
        #expect(!lint.stdout.contains("ok.json: warning") && lint.status == 0, "\(lint.stdout)")
        #expect(try runRocket(["lint", dir + "/onboarding.v2.json"]).stdout.isEmpty)
    }

    @Test("banner --icon must name a picture that exists; rule flags need --scenario")
    func bannerIcon() throws {
        let dir = scratchDirectory()
        #expect(try runRocket(["banner", "T", "--plain", "--icon", dir + "/nosuch.png"], stdin: "\n").status == 66)
        write("nope", to: dir + "/bad.png")
        #expect(try runRocket(["banner", "T", "--plain", "--icon", dir + "/bad.png"], stdin: "\n").status == 65)
        let rules = try runRocket(["banner", "T", "--plain", "--min-events", "3"], stdin: "\n")
        #expect(rules.status == 64 && rules.stderr.contains("--min-events applies only with --scenario"))
    }
}

@Suite("Action hooks")
struct ActionHookTests {
    @Test("--on-action runs a command with the non-secret answers; its status reaches the events; --print-actions names actions on stdout")
    func hooks() throws {
        let dir = scratchDirectory()
        write(tinyFlow, to: dir + "/flow.json")
        let command = "printf '%s|%s' \"$ROCKET_ANSWER_NAME\" \"${ROCKET_ANSWER_PIN-unset}\" > '\(dir)/hook.txt'; exit 3"
        let r = try runRocket(
            [
                "play", dir + "/flow.json", "--instant", "--events", dir + "/e.jsonl", "--print-actions",
                "--on-action", "enable-notifications=\(command)",
            ], stdin: "\n1\nAda\n4321\n1\n\n")
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try String(contentsOfFile: dir + "/hook.txt", encoding: .utf8) == "Ada|unset")
        #expect(r.stdout == "enable-notifications\n")
        let events = withoutTimes(try String(contentsOfFile: dir + "/e.jsonl", encoding: .utf8))
        #expect(events.contains(#"{"event":"actionHook","name":"enable-notifications","status":3}"#))
        #expect(try runRocket(["play", dir + "/flow.json", "--on-action", "novalue"]).status == 64)
        #expect(try runRocket(["play", dir + "/flow.json", "--on-action", "a=x", "--on-action", "a=y"]).status == 64)
    }
}

@Suite("rocket new and rocket graph")
struct NewAndGraphTests {
    @Test("new writes a starter with every block type that lints clean and plays, and its cases, which hold; it never overwrites")
    func starter() throws {
        let dir = scratchDirectory()
        #expect(try runRocket(["new", dir + "/s.json"]).status == 0)
        #expect(try runRocket(["lint", dir + "/s.json"]).stdout.isEmpty)
        let text = try String(contentsOfFile: dir + "/s.json", encoding: .utf8)
        // Every kind the engine has, and the demo's flow too.
        for kind in RocketBlockKind.allCases {
            #expect(text.contains("\"type\": \"\(kind.rawValue)\""), "the starter lacks \(kind)")
            #expect(DemoFlow.json.contains("\"type\": \"\(kind.rawValue)\""), "the demo lacks \(kind)")
        }
        let played = try runRocket(["play", dir + "/s.json", "--instant", "--var", "user=Sam"], stdin: "\n1\nAda\n\n\n2\n4\n12\n1 3\n\n\n")
        #expect(played.status == 0, "\(played.stderr)")
        #expect(played.stderr.contains("Countess Ada"))
        #expect(try runRocket(["new", dir + "/s.json"]).status == 73)
        // Its cases are written beside it, and hold; a test file already there is kept.
        let tested = try runRocket(["test", dir + "/s.json"])
        #expect(tested.status == 0 && tested.stdout.contains("s.json: 13 of 13 blocks shown by 6 cases"), "\(tested.stdout)\(tested.stderr)")
        write(#"{"cases": [{"name": "mine"}]}"#, to: dir + "/t.test.json")
        #expect(try runRocket(["new", dir + "/t.json"]).status == 0)
        #expect(try String(contentsOfFile: dir + "/t.test.json", encoding: .utf8) == #"{"cases": [{"name": "mine"}]}"#)
        // - is standard output (nothing named "-" is created); a dangling link is a taken name
        let out = try runRocket(["new", "-"])
        #expect(out.status == 0 && out.stdout == text && !FileManager.default.fileExists(atPath: "-"))
        try FileManager.default.createSymbolicLink(atPath: dir + "/link.json", withDestinationPath: dir + "/nowhere.json")
        #expect(try runRocket(["new", dir + "/link.json"]).status == 73)
        #expect(!FileManager.default.fileExists(atPath: dir + "/nowhere.json"))
        // A name without an extension is the flow of that name: NAME.json and its cases.
        let named = try runRocket(["new", dir + "/onboarding"])
        #expect(named.status == 0 && named.stderr.contains("onboarding.json and its cases") && named.stderr.contains("rocket play \(dir)/onboarding.json"))
        #expect(FileManager.default.fileExists(atPath: dir + "/onboarding.json") && FileManager.default.fileExists(atPath: dir + "/onboarding.test.json"))
        // A folder is no name: the flow goes in it, named (nothing is written beside it).
        try FileManager.default.createDirectory(atPath: dir + "/flows", withIntermediateDirectories: true)
        let folder = try runRocket(["new", dir + "/flows"])
        #expect(folder.status == 73 && folder.stderr.contains("is a folder; name the new flow in it, such as '\(dir)/flows/onboarding'"), "\(folder.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir + "/flows.json"))
        #expect(!FileManager.default.fileExists(atPath: dir + "/onboarding"))
        #expect(
            try runRocket(["new", dir + "/notes.txt"]).status == 0 && FileManager.default.fileExists(atPath: dir + "/notes.txt"), "another extension is kept")
    }

    @Test("graph draws blocks, branch conditions, timers, actions and the gate; DOT and SVG too")
    func graph() throws {
        let dir = scratchDirectory()
        write(
            #"""
            {"version": 1, "scenario": "tour", "when": {"minEventsRequired": 3},
             "blocks": [
              {"id": "a", "type": "text", "text": "Hi", "next": "q", "showNextAfter": 2},
              {"id": "q", "type": "textInput", "text": "Name?", "buttonTitle": "Send", "branches": [{"when": {"equals": "x"}, "next": "b"}], "next": "b"},
              {"id": "b", "type": "button", "title": "OK", "action": "done"}
             ]}
            """#, to: dir + "/g.json")
        let m = try runRocket(["graph", dir + "/g.json"])
        #expect(m.status == 0)
        #expect(m.stdout.hasPrefix("flowchart TD\n"))
        #expect(m.stdout.contains("gate: tour (≥3 events)"))
        #expect(m.stdout.contains("-->|\"after 2s\"|"))
        #expect(m.stdout.contains("-->|\"= #quot;x#quot;\"|"))
        #expect(m.stdout.contains("⚡done"))
        // A field's starting text and the options that start ticked are drawn.
        write(
            #"""
            {"version": 1, "blocks": [
             {"id": "c", "type": "choice", "text": "Which?", "multiple": true, "options": [{"title": "Tea", "selected": true}, {"title": "Cake"}], "next": "i"},
             {"id": "i", "type": "textInput", "text": "Sure?", "buttonTitle": "OK", "value": "{{c}}"}]}
            """#, to: dir + "/s.json")
        let started = try runRocket(["graph", dir + "/s.json"])
        #expect(started.stdout.contains("☑ Tea, Cake") && started.stdout.contains("Sure? = {{c}}"), "\(started.stdout)")
        let d = try runRocket(["graph", dir + "/g.json", "--format", "dot"])
        #expect(d.stdout.hasPrefix("digraph flow {") && d.stdout.contains("\"q\" -> \"b\" [label=\"otherwise\"];"))
        let svg = try runRocket(["graph", dir + "/g.json", "--format", "svg"])
        if FileManager.default.isExecutableFile(atPath: "/usr/bin/dot") {
            #expect(svg.status == 0 && svg.stdout.contains("<svg"))
        } else {
            #expect(svg.status == 69 && svg.stderr.contains("graphviz"))
        }
        #expect(try runRocket(["graph", dir + "/g.json", "--format", "png"]).status == 64)
    }
}

@Suite("Examples that teach")
struct ExampleTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    @Test(
        "Every example lints clean and plays to its end in line mode",
        arguments: [
            ("welcome.json", "1\nAda\n\n\n1\n\n", ["Countess"]),
            ("branches.json", "Mars\n\n", ["Say hi to the rovers!"]),
            ("validation.json", "nope\nada@example.org\n12\n1234\n\n", ["That does not look like an e-mail address.", "Four digits, please."]),
            ("images.json", "\n\n\n\n", ["Round corners"]),
            ("banner.json", "\n\n", ["Welcome back, Sam"]),
            ("actions.json", "Grace\n1\n\n", ["you: Notify Grace"]),
            ("scenario-gate.json", "1\n\n", ["Thank you!"]),
            ("survey.json", "3\nada@example.org\n2024-05-01\n9\n4 1\n\n", ["you: 9 / 10", "you: Speed, Support", "you like our support"]),
            ("nps.json", "0\nToo slow\n\n", ["you: 0 / 10", "your 0 and your words"]),
        ])
    func example(_ file: String, _ input: String, _ expected: [String]) throws {
        let path = Self.root.appendingPathComponent("examples/" + file).path
        let lint = try runRocket(["lint", path])
        #expect(lint.status == 0 && lint.stdout.isEmpty, "\(lint.stdout)")
        let dir = scratchDirectory()
        let env = ["ROCKET_STORE": dir + "/s.sqlite"]
        if file == "scenario-gate.json" {
            for day in 1...5 { _ = try runRocket(["scenario", "trigger", "app-launch", "--now", "2026-01-0\(day)T09:00:00Z"], environment: env) }
        }
        let r = try runRocket(["play", path, "--instant", "--var", "user=Sam", "--now", "2026-01-20T00:00:00Z"], stdin: input, environment: env)
        #expect(r.status == 0, "\(file): \(r.stderr)")
        for text in expected { #expect((r.stdout + r.stderr).contains(text), "\(file): \(r.stdout)") }
    }
}

@Suite("The README's picture")
struct ReadmePictureTests {
    @Test("The README's Mermaid picture is what rocket graph draws for examples/welcome.json today")
    func picture() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        let block = readme.components(separatedBy: "```mermaid\n").dropFirst().first?.components(separatedBy: "```").first
        let drawn = try runRocket(["graph", root.appendingPathComponent("examples/welcome.json").path])
        #expect(block == drawn.stdout)
    }

    @Test("The README's piped demo answers every step of the tour as it is today and ends cleanly")
    func pipedDemo() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        let line = try #require(readme.components(separatedBy: "\n").first { $0.hasPrefix("printf '") && $0.hasSuffix("| swift run rocket demo --instant") })
        let quoted = try #require(line.components(separatedBy: "'").dropFirst().first)
        let input = quoted.replacingOccurrences(of: "\\n", with: "\n")
        let r = try runRocket(["demo", "--instant"], stdin: input)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(!r.stderr.contains("Not a choice") && !r.stderr.contains("the input ended"), "\(r.stderr)")
        #expect(r.stderr.contains("you: Banners") && r.stderr.contains("you: 4 / 5") && r.stderr.contains("All set, Ada."), "\(r.stderr)")
    }
}

@Suite("Every write is checked")
struct WriteErrorTests {
    @Test("A full disk or a missing folder is exit 74 with a message, never silent loss; - is standard output")
    func writes() throws {
        guard FileManager.default.fileExists(atPath: "/dev/full") else { return }
        let dir = scratchDirectory()
        write(tinyFlow, to: dir + "/flow.json")
        let events = try runRocket(["play", dir + "/flow.json", "--instant", "--events", "/dev/full"], stdin: "\n1\nAda\n1234\n1\n\n")
        #expect(events.status == 74 && events.stderr.contains("/dev/full"))
        let answers = try runRocket(["play", dir + "/flow.json", "--instant", "--answers-out", dir + "/no/such/a.json"], stdin: "")
        #expect(answers.status == 74 && answers.stdout.isEmpty, "nothing is drawn before the check")
        let dash = try runRocket(["play", dir + "/flow.json", "--instant", "--answers-out", "-"], stdin: "\n1\nAda\n1234\n1\n\n")
        #expect(dash.stdout.hasSuffix(#"{"ask": "Sure", "go": "Enable", "name": "Ada"}"# + "\n"))
        write("{", to: dir + "/broken.json")  // lint finds errors (65) but cannot print them: 74
        for args in [["scenario", "export"], ["lint", "--json", dir + "/flow.json"], ["--help"], ["lint", dir + "/broken.json"], ["new", "-"]] {
            let p = Process()
            p.executableURL = URL(fileURLWithPath: "/bin/sh")
            p.arguments = ["-c", "'\(rocketPath)' \(args.map { "'\($0)'" }.joined(separator: " ")) > /dev/full"]
            p.environment = ["ROCKET_STORE": dir + "/s.sqlite", "PATH": "/usr/bin:/bin"]
            try p.run()
            p.waitUntilExit()
            #expect(p.terminationStatus == 74, "\(args)")
        }
    }
}

@Suite("What is not a regular file is written into, never replaced")
struct SpecialTargetTests {
    @Test("--html into a FIFO, /dev/stdout, /dev/fd/N and /dev/full: the node stays, the reader gets the page")
    func specialTargets() throws {
        let dir = scratchDirectory()
        let fifo = dir + "/page.fifo"
        #expect(mkfifo(fifo, 0o600) == 0)
        let received = Mutex<[UInt8]>([])
        let done = DispatchSemaphore(value: 0)
        let reader = Thread {
            defer { done.signal() }
            let fd = open(fifo, O_RDONLY)
            var buffer = [UInt8](repeating: 0, count: 65536)
            while fd >= 0 {
                let n = read(fd, &buffer, buffer.count)
                if n <= 0 { break }
                received.withLock { $0 += buffer[..<n] }
            }
            close(fd)
        }
        reader.start()
        let intoFIFO = try runRocket(["report", "--html", fifo, "-"], stdin: "")
        #expect(intoFIFO.status == 0, "\(intoFIFO.stderr)")
        var st = stat()
        #expect(lstat(fifo, &st) == 0 && (st.st_mode & S_IFMT) == S_IFIFO, "the FIFO was replaced by a file")
        #expect(done.wait(timeout: .now() + 30) == .success, "the reader saw the end of the page")
        #expect(String(decoding: received.withLock { $0 }, as: UTF8.self).hasPrefix("<!doctype html>"))

        // /dev/stdout is this process's descriptor, written where it stands: the shell's head stays.
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/bin/sh")
        p.arguments = [
            "-c",
            "{ echo head; '\(rocketPath)' report --html /dev/stdout - </dev/null; '\(rocketPath)' report --html /dev/fd/3 - </dev/null 3>&1; } > '\(dir)/out.html'",
        ]
        try p.run()
        p.waitUntilExit()
        #expect(p.terminationStatus == 0)
        let out = (try? String(contentsOfFile: dir + "/out.html", encoding: .utf8)) ?? ""
        #expect(out.hasPrefix("head\n<!doctype html>") && out.components(separatedBy: "<!doctype html>").count == 3, "\(out.prefix(80))")

        let closed = try runRocket(["report", "--html", "/dev/fd/9", "-"], stdin: "")
        #expect(closed.status == 74 && closed.stderr.contains("/dev/fd/9"))
        if stat("/dev/full", &st) == 0 && (st.st_mode & S_IFMT) == S_IFCHR {
            let full = try runRocket(["report", "--html", "/dev/full", "-"], stdin: "")
            #expect(full.status == 74 && full.stderr.contains("no space left"))
            #expect(stat("/dev/full", &st) == 0 && (st.st_mode & S_IFMT) == S_IFCHR, "/dev/full was replaced by a file")
        }
        let folder = try runRocket(["report", "--html", dir, "-"], stdin: "")
        #expect(folder.status == 74 && folder.stderr.contains("is a directory"))
    }
}

@Suite("Who may read what rocket writes")
struct WrittenFileModeTests {
    /// Runs rocket under `umask 027`, so what follows the umask is told apart from mode 600.
    func rocket(_ args: [String]) throws -> Int32 {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/bin/sh")
        p.arguments = ["-c", "umask 027; exec \"$0\" \"$@\" </dev/null >/dev/null 2>&1", rocketPath] + args
        try p.run()
        p.waitUntilExit()
        return p.terminationStatus
    }

    func mode(_ path: String) -> mode_t {
        var st = stat()
        return stat(path, &st) == 0 ? st.st_mode & 0o7777 : 0
    }

    @Test("A page, a starter flow and a CI report follow the umask; a saved conversation is its owner's; a file written again keeps its mode")
    func modes() throws {
        let dir = scratchDirectory()
        #expect(try rocket(["new", dir + "/f.json"]) == 0)
        #expect(mode(dir + "/f.json") == 0o640 && mode(dir + "/f.test.json") == 0o640, "\(String(mode(dir + "/f.json"), radix: 8))")
        #expect(try rocket(["report", "--html", dir + "/page.html", "-"]) == 0)
        #expect(mode(dir + "/page.html") == 0o640, "\(String(mode(dir + "/page.html"), radix: 8))")
        #expect(try rocket(["test", dir + "/f.json", "--junit", dir + "/junit.xml"]) == 0)
        #expect(mode(dir + "/junit.xml") == 0o640, "\(String(mode(dir + "/junit.xml"), radix: 8))")
        // What a person answered stays theirs, whatever the umask.
        let flow = DocumentedExitStatusTests.root.appendingPathComponent("examples/choice.json").path
        // The input ends at the first choice (exit 1): the conversation is saved as it stands.
        #expect(try rocket(["play", flow, "--plain", "--state", dir + "/state.json"]) == 1)
        #expect(mode(dir + "/state.json") == 0o600, "\(String(mode(dir + "/state.json"), radix: 8))")

        // Written again, a file keeps the mode it was given (a web server's group may read the page).
        #expect(chmod(dir + "/page.html", 0o644) == 0 && chmod(dir + "/state.json", 0o640) == 0)
        #expect(try rocket(["report", "--html", dir + "/page.html", "-"]) == 0)
        #expect(try rocket(["play", flow, "--plain", "--state", dir + "/state.json", "--restart"]) == 1)
        #expect(mode(dir + "/page.html") == 0o644, "\(String(mode(dir + "/page.html"), radix: 8))")
        #expect(mode(dir + "/state.json") == 0o640, "\(String(mode(dir + "/state.json"), radix: 8))")
        // Through a symbolic link, the file it names keeps its mode and the link stays.
        #expect(symlink(dir + "/page.html", dir + "/link.html") == 0 && chmod(dir + "/page.html", 0o604) == 0)
        #expect(try rocket(["report", "--html", dir + "/link.html", "-"]) == 0)
        var st = stat()
        #expect(lstat(dir + "/link.html", &st) == 0 && (st.st_mode & S_IFMT) == S_IFLNK)
        #expect(mode(dir + "/page.html") == 0o604)
    }
}

@Suite("One conversation, one play")
struct StateLockTests {
    @Test("A second play of a --state file in use stops at once (exit 69) and leaves the first one's answers; the lock goes with the first")
    func secondPlayRefused() throws {
        let dir = scratchDirectory()
        let flow = dir + "/f.json"
        let blocks = [
            #"{"id": "a", "type": "text", "text": "Hi", "next": "b"}"#,
            #"{"id": "b", "type": "textInput", "text": "Name?", "buttonTitle": "Send", "next": "c"}"#,
            #"{"id": "c", "type": "text", "text": "Bye {{b}}"}"#,
        ]
        try (#"{"version": 1, "blocks": ["# + blocks.joined(separator: ", ") + "]}").write(toFile: flow, atomically: true, encoding: .utf8)
        let state = dir + "/s.json"
        // The first play waits for its input on a pipe that stays open.
        let first = Process()
        first.executableURL = URL(fileURLWithPath: rocketPath)
        first.arguments = ["play", flow, "--plain", "--instant", "--state", state]
        let input = Pipe()
        first.standardInput = input
        first.standardOutput = FileHandle.nullDevice
        first.standardError = FileHandle.nullDevice
        try first.run()
        // Its lock is taken before it reads the state; the state is written before anything is drawn.
        for _ in 0..<500 where !FileManager.default.fileExists(atPath: state) { usleep(10_000) }
        #expect(FileManager.default.fileExists(atPath: state + ".lock"))
        let second = try runRocket(["play", flow, "--plain", "--instant", "--state", state], stdin: "Eve\n")
        #expect(second.status == 69, "\(second.stderr)")
        #expect(second.stderr.contains("is in use by another rocket play"), "\(second.stderr)")
        let demo = try runRocket(["demo", "--plain", "--instant", "--state", state], stdin: "")
        #expect(demo.status == 69, "\(demo.stderr)")
        input.fileHandleForWriting.write(Data("\nAda\n\n".utf8))
        try input.fileHandleForWriting.close()
        first.waitUntilExit()
        #expect(first.terminationStatus == 0)
        // Ended: the state and its lock are gone; the next play starts afresh.
        #expect(!FileManager.default.fileExists(atPath: state) && !FileManager.default.fileExists(atPath: state + ".lock"))
        let third = try runRocket(["play", flow, "--plain", "--instant", "--state", state, "--answers-out", "-"], stdin: "\nEve\n\n")
        #expect(third.status == 0 && third.stdout.contains("Eve"), "\(third.stderr)")
        // A lock that cannot be made is said before anything is drawn.
        let nowhere = try runRocket(["play", flow, "--plain", "--state", dir + "/no/such/s.json"], stdin: "")
        #expect(nowhere.status == 74 && nowhere.stderr.contains("s.json.lock"), "\(nowhere.stderr)")
    }
}

@Suite("One sanitizer wherever text leaves the program")
struct SanitizerSurfaceTests {
    static let evil = "x\u{1B}[2J\u{7}\u{202E}\u{200B}y"

    func clean(_ s: String) -> Bool {
        !s.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 || $0.value == 0x202E || $0.value == 0x200B || $0.value == 0 }
    }

    @Test("A usage error quotes a 100 KiB argument in a line: its start and end, the flag and the rule")
    func longArguments() throws {
        let long = String(repeating: "x", count: 100_000) + "END"
        let words = Array(repeating: "a", count: 30_000).joined(separator: " ")
        for (args, says) in [
            (["play", "--var", long, "f.json"], "must be NAME=VALUE"), (["banner", "T", "--color", long], "must be a colour name"),
            (["help", long], "unknown command"), (["input", "--timeout", words], "must be seconds or a duration"),
        ] {
            let r = try runRocket(args)
            #expect(r.status == 64)
            #expect(r.stderr.utf8.count < 1_000, "\(args[0]): \(r.stderr.utf8.count) bytes")
            #expect(r.stderr.contains(says) || r.stderr.contains("…"), "\(r.stderr)")
            if args[0] != "input" { #expect(r.stderr.contains("xxxx…") && r.stderr.contains("END"), "\(r.stderr)") }
        }
    }

    @Test("Validation messages, button results, alert titles, lint messages, file names, scenario names, usage errors, JSON")
    func surfaces() throws {
        let dir = scratchDirectory()
        let e = Self.evil
        // plain-mode validation message
        write(
            #"{"version": 1, "blocks": [{"id": "q", "type": "textInput", "text": "?", "buttonTitle": "OK", "validate": {"required": true, "message": "\#(e)"}}]}"#
                .replacingOccurrences(of: "\u{1B}", with: "\\u001b").replacingOccurrences(of: "\u{7}", with: "\\u0007"), to: dir + "/v.json")
        let v = try runRocket(["play", dir + "/v.json", "--instant"], stdin: "\n\n")
        #expect(v.stderr.contains("x") && clean(v.stderr), "\(v.stderr)")
        // button:TITLE and the chosen alert title
        let b = try runRocket(["banner", "T", "--plain", "--button", e], stdin: "1\n")
        #expect(b.stdout.contains("button:") && clean(b.stdout))
        let a = try runRocket(["alert", "--action", e, "--plain"], stdin: "1\n")
        #expect(clean(a.stdout))
        // lint quoting a block type and a field name with NUL, and a file name
        write(
            #"{"version": 1, "blocks": [{"id": "a", "type": "t\u0000\u001b[2J", "text": "x"}, {"id": "b", "type": "text", "te\u0000xt": "x"}]}"#,
            to: dir + "/l\u{1B}[2J.json")
        let l = try runRocket(["lint", dir + "/l\u{1B}[2J.json"])
        #expect(l.status == 65 && clean(l.stdout), "\(l.stdout)")
        // …and a file that cannot be read, named in lint's line and in play's and graph's messages
        for command in ["lint", "play", "graph"] {
            let missing = try runRocket([command, dir + "/gone\u{1B}[2J\u{202E}.json"])
            #expect(missing.status == 66 && clean(missing.stdout) && clean(missing.stderr), "\(command): \(missing.stdout) \(missing.stderr)")
            #expect((missing.stdout + missing.stderr).contains("gone"))
        }
        // …and output files and stores in places that cannot be written
        let bad = dir + "/no\u{1B}[2J\u{202E}dir/out"
        for args in [["--events", bad], ["--answers-out", bad], ["--state", bad]] {
            let w = try runRocket(["play", dir + "/v.json", "--plain", "--instant"] + args, stdin: "\n")
            #expect(w.status != 0 && w.stderr.contains("dir") && clean(w.stderr) && clean(w.stdout), "\(args): \(w.stderr)")
        }
        let st = try runRocket(["scenario", "trigger", "x", "--store", bad + ".sqlite"])
        #expect(st.status != 0 && clean(st.stderr), "\(st.stderr)")
        // scenario names in status (control characters are refused as names; bidi and
        // zero-width ones are kept and shown cleaned), usage errors quoting argv
        let refused = try runRocket(["scenario", "trigger", e], environment: ["ROCKET_STORE": dir + "/s.sqlite"])
        #expect(refused.status == 64 && clean(refused.stderr))
        _ = try runRocket(["scenario", "trigger", "x\u{202E}\u{200B}y"], environment: ["ROCKET_STORE": dir + "/s.sqlite"])
        let s = try runRocket(["scenario", "status"], environment: ["ROCKET_STORE": dir + "/s.sqlite"])
        #expect(s.stdout.contains("events 1") && clean(s.stdout))
        let u = try runRocket(["play", "--\(e)"])
        #expect(u.status == 64 && clean(u.stderr))
        // JSON output escapes bidi and zero-width characters
        let j = try runRocket(["scenario", "export"], environment: ["ROCKET_STORE": dir + "/s.sqlite"])
        #expect(j.stdout.contains("\\u202E") && j.stdout.contains("\\u200B") && clean(j.stdout))
    }
}

@Suite("rocket play with variables")
struct PlayVariablesTests {
    static let flow = """
        {"version": 1, "vars": {"visits": 0, "plan": "free"}, "blocks": [
         {"id": "s", "type": "set", "set": {"visits": "visits + 1"}, "next": "c"},
         {"id": "c", "type": "condition", "branches": [{"if": "visits > 3", "next": "back"}], "else": "hi"},
         {"id": "back", "type": "text", "text": "Welcome back ({{visits}}, {{plan}})", "next": "ask"},
         {"id": "hi", "type": "text", "text": "Hi ({{visits}})", "next": "ask"},
         {"id": "ask", "type": "textInput", "text": "Name?", "buttonTitle": "OK"}]}
        """

    @Test("--var is typed by the flow; a wrong type is a usage error; --answers-out holds the variables typed")
    func typed() throws {
        let dir = scratchDirectory()
        write(Self.flow, to: dir + "/flow.json")
        let r = try runRocket(["play", dir + "/flow.json", "--instant", "--var", "visits=7", "--var", "plan=pro", "--answers-out", "-"], stdin: "\nAda\n")
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("Welcome back (8, pro)"))
        #expect(r.stdout == #"{"ask": "Ada", "plan": "pro", "visits": 8}"# + "\n")
        let plain = try runRocket(["play", dir + "/flow.json", "--instant"], stdin: "\nAda\n")
        #expect(plain.stderr.contains("Hi (1)"))
        let bad = try runRocket(["play", dir + "/flow.json", "--instant", "--var", "visits=lots"], stdin: "")
        #expect(bad.status == 64)
        #expect(bad.stderr.contains(#""visits" holds a number, not "lots""#))
        let events = try runRocket(["play", dir + "/flow.json", "--instant", "--events", "-"], stdin: "\nAda\n")
        #expect(withoutTimes(events.stdout).contains(#"{"event":"variableSet","id":"s","name":"visits"}"#))
        #expect(withoutTimes(events.stdout).contains(#"{"event":"conditionTaken","id":"c","branch":"else"}"#))
        #expect(!events.stdout.contains("Ada"), "answers stay out of events")
    }
}

@Suite("rocket play with typed inputs")
struct PlayTypedInputTests {
    @Test("line mode refuses a wrong type with the reason and asks again; --answers-out holds numbers as numbers")
    func typed() throws {
        let dir = scratchDirectory()
        write(
            """
            {"version": 1, "blocks": [
             {"id": "age", "type": "textInput", "text": "Age?", "buttonTitle": "OK", "inputType": "number", "max": 130, "next": "mail"},
             {"id": "mail", "type": "textInput", "text": "E-mail?", "buttonTitle": "OK", "inputType": "email"}]}
            """, to: dir + "/flow.json")
        let r = try runRocket(
            ["play", dir + "/flow.json", "--instant", "--answers-out", "-"], stdin: "old\n200\n41.5\nnope\nada@example.org\n",
            environment: ["LANG": "en_US.UTF-8"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("Please type a number."))
        #expect(r.stderr.contains("The most accepted is 130."))
        #expect(r.stderr.contains("Please type an e-mail address"))
        #expect(r.stdout == #"{"age": 41.5, "mail": "ada@example.org"}"# + "\n")
    }
}

@Suite("rocket play: going back")
struct PlayBackTests {
    @Test("a line '<' goes back to the previous answer and asks it again; '\\<' types a '<'; nothing to go back to is said")
    func lines() throws {
        let dir = scratchDirectory()
        write(
            """
            {"version": 1, "blocks": [
             {"id": "name", "type": "textInput", "text": "Name?", "buttonTitle": "OK", "next": "plan"},
             {"id": "plan", "type": "choice", "text": "Plan, {{name}}?", "options": [{"title": "Free", "next": "say"}, {"title": "Pro", "next": "say"}]},
             {"id": "say", "type": "textInput", "text": "Say something", "buttonTitle": "OK"}]}
            """, to: dir + "/flow.json")
        let r = try runRocket(
            ["play", dir + "/flow.json", "--instant", "--answers-out", "-", "--events", dir + "/e.jsonl"],
            stdin: "<\nAda\n<\nGrace\n2\n<\n1\n\\<\n", environment: ["LANG": "en_US.UTF-8"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("There is no earlier answer to change."))
        #expect(r.stderr.contains("Plan, Grace?"))
        #expect(r.stdout.contains(#""name": "Grace""#) && r.stdout.contains(#""plan": "Free""#) && r.stdout.contains(#""say": "<""#), "\(r.stdout)")
        let events = try String(contentsOfFile: dir + "/e.jsonl", encoding: .utf8)
        #expect(events.components(separatedBy: #""event":"wentBack""#).count == 3, "two goings back")
    }
}

@Suite("rocket play: a text input's starting text")
struct PlayStartingTextTests {
    @Test("line mode: an empty line sends the field's starting text, the flow's value or the answer gone back to")
    func lines() throws {
        let dir = scratchDirectory()
        write(
            """
            {"version": 1, "blocks": [
             {"id": "mail", "type": "textInput", "text": "E-mail?", "buttonTitle": "OK", "next": "check"},
             {"id": "check", "type": "textInput", "text": "Right?", "buttonTitle": "OK", "value": "{{mail}}", "next": "name"},
             {"id": "name", "type": "textInput", "text": "Name?", "buttonTitle": "OK", "next": "say"},
             {"id": "say", "type": "textInput", "text": "Anything else?", "buttonTitle": "OK"}]}
            """, to: dir + "/flow.json")
        // mail; check takes it; name "Ada"; at say: back to name, whose empty line sends Ada
        // again; say answered.
        let r = try runRocket(
            ["play", dir + "/flow.json", "--instant", "--answers-out", "-"],
            stdin: "ada@example.org\n\nAda\n<\n\nno\n", environment: ["LANG": "en_US.UTF-8"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains(#""check": "ada@example.org""#) && r.stdout.contains(#""name": "Ada""#), "\(r.stdout)")
        #expect(r.stdout.contains(#""say": "no""#), "\(r.stdout)")
    }
}

@Suite("rocket play and input: the local clock")
struct PlayClockTests {
    @Test("play: today(), time() and a date's bounds read this machine's local time (TZ), at --now when given")
    func play() throws {
        let dir = scratchDirectory()
        write(
            #"""
            {"version": 1, "vars": {"d": ""}, "blocks": [
             {"id": "s", "type": "set", "set": {"d": "today() + ' ' + time() + ' ' + text(weekday())"}, "next": "when"},
             {"id": "when", "type": "textInput", "text": "{{d}}: which day?", "buttonTitle": "OK", "inputType": "date", "min": "today+1d"}]}
            """#, to: dir + "/flow.json")
        let r = try runRocket(
            ["play", dir + "/flow.json", "--instant", "--now", "2027-01-15T08:00Z", "--answers-out", "-"],
            stdin: "2027-01-15\n2027-01-16\n", environment: ["LANG": "en_US.UTF-8", "TZ": "Asia/Tokyo"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("2027-01-15 17:00 5: which day?"), "\(r.stderr)")
        #expect(r.stderr.contains("Please choose 2027-01-16 or later."), "\(r.stderr)")
        #expect(r.stdout.contains(#""when": "2027-01-16""#), "\(r.stdout)")
        // --case-out gives the case the session's moment, so it plays the same on any day.
        let recorded = try runRocket(
            ["play", dir + "/flow.json", "--instant", "--now", "2027-01-15T08:00Z", "--case-out", "-"],
            stdin: "2027-01-16\n", environment: ["LANG": "en_US.UTF-8", "TZ": "Asia/Tokyo"])
        #expect(recorded.stdout.contains(#""now": "2027-01-15T17:00:00+09:00""#), "\(recorded.stdout)")
        write(#"{"cases": ["# + recorded.stdout + "]}", to: dir + "/flow.test.json")
        let test = try runRocket(["test", dir + "/flow.json"], environment: ["TZ": "America/Denver"])
        #expect(test.status == 0, "\(test.stdout)\(test.stderr)")
    }

    @Test("input: --min and --max of a date may count from today")
    func input() throws {
        let early = try runRocket(["input", "--type", "date", "--min", "today"], stdin: "2000-01-01\n")
        #expect(early.status != 0 && early.stderr.contains("or later."), "\(early.stderr)")
        let late = try runRocket(["input", "--type", "date", "--min", "today-1y", "--max", "today+100y"], stdin: "9999-12-31\n")
        #expect(late.status != 0 && late.stderr.contains("or earlier."), "\(late.stderr)")
        let fine = try runRocket(["input", "--type", "date", "--min", "today-100y"], stdin: "9999-12-31\n")
        #expect(fine.status == 0 && fine.stdout == "9999-12-31\n", "\(fine.stderr)")
        for text in ["today+1x", "today+999999y", "2026-02-30"] {
            let bad = try runRocket(["input", "--type", "date", "--min", text], stdin: "")
            #expect(bad.status == 64 && bad.stderr.contains("counted from today"), "\(text): \(bad.stderr)")
        }
        let empty = try runRocket(["input", "--type", "date", "--min", "today+1d", "--max", "today"], stdin: "")
        #expect(empty.status == 64, "\(empty.stderr)")
    }
}

@Suite("rocket play: a choice's starting options")
struct PlayStartingChoicesTests {
    @Test("line mode: an empty line sends what a choice or rating starts with: selected options, or the answer gone back to")
    func lines() throws {
        let dir = scratchDirectory()
        write(
            #"""
            {"version": 1, "blocks": [
             {"id": "food", "type": "choice", "text": "What would you like?", "multiple": true,
              "options": [{"title": "Tea", "selected": true}, {"title": "Cake"}, {"title": "Milk", "selected": true}], "next": "stars"},
             {"id": "stars", "type": "rating", "text": "How was it?", "next": "say"},
             {"id": "say", "type": "textInput", "text": "Anything else?", "buttonTitle": "OK"}]}
            """#, to: dir + "/flow.json")
        // food keeps its selected options; stars 4; at say: back to stars, whose empty line sends 4 again.
        let r = try runRocket(
            ["play", dir + "/flow.json", "--instant", "--answers-out", "-"], stdin: "\n4\n<\n\nno\n", environment: ["LANG": "en_US.UTF-8"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains(#""food": ["Tea", "Milk"]"#) && r.stdout.contains(#""stars": 4"#) && r.stdout.contains(#""say": "no""#), "\(r.stdout)")
    }
}

@Suite("rocket play and lint: jumps into other flows")
struct PlayJumpTests {
    @Test("play goes into a flow of the same folder and back; lint names a missing flow at its jump; a change to the other flow is seen")
    func acrossFiles() throws {
        let dir = scratchDirectory()
        write(
            """
            {"version": 1, "blocks": [
             {"id": "hi", "type": "text", "text": "Hi", "next": "go"},
             {"id": "go", "type": "jump", "flow": "billing", "return": true, "next": "bye"},
             {"id": "bye", "type": "text", "text": "Bye {{card}}"}]}
            """, to: dir + "/main.json")
        write(
            """
            {"version": 1, "blocks": [{"id": "card", "type": "textInput", "text": "Card?", "buttonTitle": "OK"}]}
            """, to: dir + "/billing.json")
        let r = try runRocket(["play", dir + "/main.json", "--instant", "--events", "-"], stdin: "\n4242\n\n")
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("Card?") && r.stderr.contains("Bye 4242"))
        #expect(withoutTimes(r.stdout).contains(#"{"event":"jumped","id":"go","to":"card","flow":"billing"}"#))
        #expect(try runRocket(["lint", dir + "/main.json"]).status == 0)
        try FileManager.default.removeItem(atPath: dir + "/billing.json")
        let lint = try runRocket(["lint", dir + "/main.json"])
        #expect(lint.status == 65)
        #expect(lint.stdout.contains("main.json:3:39: error: there is no flow \"billing\" (billing.json) in this flow's folder"), "\(lint.stdout)")
    }
}

@Suite("rocket play --lang")
struct PlayLanguageTests {
    @Test("--lang picks the flow's language and the interface's; LANG does when --lang is absent; a bad tag is a usage error")
    func lang() throws {
        let dir = scratchDirectory()
        write(
            """
            {"version": 1, "languages": ["en", "it"], "blocks": [
             {"id": "age", "type": "textInput", "text": {"en": "Age?", "it": "Età?"}, "buttonTitle": "OK", "inputType": "integer"}]}
            """, to: dir + "/flow.json")
        let it = try runRocket(["play", dir + "/flow.json", "--instant", "--lang", "it"], stdin: "molti\n30\n")
        #expect(it.status == 0, "\(it.stderr)")
        #expect(it.stderr.contains("Età?") && it.stderr.contains("Scrivi un numero intero."), "\(it.stderr)")
        let env = try runRocket(["play", dir + "/flow.json", "--instant"], stdin: "30\n", environment: ["LANG": "it_IT.UTF-8"])
        #expect(env.stderr.contains("Età?"))
        let en = try runRocket(["play", dir + "/flow.json", "--instant"], stdin: "30\n", environment: ["LANG": "C.UTF-8"])
        #expect(en.stderr.contains("Age?"))
        #expect(try runRocket(["play", dir + "/flow.json", "--lang", "italian!"]).status == 64)
        // A --lang the flow is not written in plays in its first, and says so; a regional tag of
        // one it has (it-CH) fits without a word, as LANG's fallback always does.
        let de = try runRocket(["play", dir + "/flow.json", "--instant", "--lang", "de"], stdin: "30\n")
        #expect(de.status == 0 && de.stderr.hasPrefix("rocket play: warning: --lang de: the flow is written in \"en\" and \"it\"; it plays in \"en\"\n"))
        #expect(de.stderr.contains("Age?"))
        #expect(!(try runRocket(["play", dir + "/flow.json", "--instant", "--lang", "it-CH"], stdin: "30\n").stderr.contains("warning")))
    }
}

@Suite("rocket play: ratings and multiple choices in line mode")
struct PlayRatingLineTests {
    @Test("a rating by number or word, a multiple choice by numbers; refusals said; --answers-out holds a number and a list")
    func lines() throws {
        let dir = scratchDirectory()
        write(
            """
            {"version": 1, "blocks": [
             {"id": "stars", "type": "rating", "text": "How was it?", "scale": 5, "labels": {"low": "Poor", "high": "Great"}, "next": "food"},
             {"id": "food", "type": "choice", "text": "What did you have?", "multiple": true, "max": 2,
              "options": [{"title": "Tea"}, {"title": "Cake"}, {"title": "Milk"}], "next": "bye"},
             {"id": "bye", "type": "text", "text": "{{stars}}: {{food}}"}]}
            """, to: dir + "/flow.json")
        let r = try runRocket(
            ["play", dir + "/flow.json", "--instant", "--answers-out", dir + "/a.json"], stdin: "9\ngreat\n1 2 3\ntea, milk\n\n",
            environment: ["LANG": "en_US.UTF-8"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("1 Poor … 5 Great"))
        #expect(r.stderr.contains("Choose at most 2."))
        #expect(r.stderr.contains("5: Tea, Milk"))
        let answers = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: dir + "/a.json"))) as? [String: Any]
        #expect(answers?["stars"] as? Int == 5)
        #expect(answers?["food"] as? [String] == ["Tea", "Milk"])
    }
}

@Suite("rocket play: experiments")
struct PlayExperimentTests {
    @Test("a visitor's variant picks the start, the same in every process; an exposure record, and the variant on every record; the holdout sees nothing")
    func variants() throws {
        let dir = scratchDirectory()
        write(
            """
            {"version": 1, "experiment": {"name": "copy", "holdout": 0.2,
              "variants": [{"name": "long", "start": "long"}, {"name": "short", "start": "short"}]},
             "blocks": [{"id": "long", "type": "text", "text": "The long welcome"}, {"id": "short", "type": "text", "text": "Hi"}]}
            """, to: dir + "/flow.json")
        let experiment = RocketExperiment(
            name: "copy", variants: [RocketExperimentVariant(name: "long"), RocketExperimentVariant(name: "short")], holdout: 0.2)
        var seen: Set<String> = []
        for k in 0..<12 {
            let visitor = "visitor-\(k)"
            let expected = experiment.name(of: experiment.assign(visitor: visitor))
            seen.insert(expected)
            let r = try runRocket(
                ["play", dir + "/flow.json", "--instant", "--visitor", visitor, "--events", "-"], stdin: "\n", environment: ["ROCKET_STORE": dir + "/s.sqlite"])
            if expected == "holdout" {
                #expect(r.status == 3)
                #expect(withoutTimes(r.stdout) == #"{"event":"exposure","flow":"flow","experiment":"copy","variant":"holdout","shown":false}"# + "\n")
                #expect(r.stderr.isEmpty, "nothing shown")
            } else {
                #expect(r.status == 0, "\(r.stderr)")
                let lines = withoutTimes(r.stdout).split(separator: "\n")
                #expect(lines.first == #"{"event":"exposure","flow":"flow","experiment":"copy","variant":"\#(expected)","shown":true}"#)
                // The start names the flow's version (12 hex digits of its identity) and the variant.
                #expect(
                    lines.dropFirst().first?.wholeMatch(of: /\{"event":"started","flow":"flow","version":"[0-9a-f]{12}","variant":"(long|short)"\}/)?.1
                        == Substring(expected), "\(r.stdout)")
                #expect(lines.dropFirst().allSatisfy { $0.hasSuffix(#","variant":"\#(expected)"}"#) }, "\(r.stdout)")
                #expect(r.stderr.contains(expected == "long" ? "The long welcome" : "Hi"))
                let twice = try runRocket(
                    ["play", dir + "/flow.json", "--instant", "--visitor", visitor, "--events", "-"], stdin: "\n",
                    environment: ["ROCKET_STORE": dir + "/s.sqlite"])
                #expect(withoutTimes(twice.stdout) == withoutTimes(r.stdout), "the same variant in another process")
            }
        }
        #expect(seen.count == 3, "12 visitors meet every group: \(seen)")
        // Without --visitor: a stable id kept in the state folder.
        let env = ["XDG_STATE_HOME": dir + "/state", "ROCKET_STORE": ""]
        let first = try runRocket(["play", dir + "/flow.json", "--instant", "--events", "-"], stdin: "\n", environment: env)
        let id = try String(contentsOfFile: dir + "/state/rocket/visitor", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(id.count == 32)
        let second = try runRocket(["play", dir + "/flow.json", "--instant", "--events", "-"], stdin: "\n", environment: env)
        #expect(withoutTimes(first.stdout) == withoutTimes(second.stdout))
        #expect(try runRocket(["play", dir + "/flow.json", "--visitor", ""]).status == 64)
    }
}

@Suite("rocket play: targeting")
struct PlayTargetingTests {
    @Test("when.if over --var values: not now (3) with --explain naming the condition; shown when it holds")
    func targeting() throws {
        let dir = scratchDirectory()
        write(
            #"{"version": 1, "vars": {"plan": "free"}, "when": {"if": "plan == 'pro'"}, "blocks": [{"id": "hi", "type": "text", "text": "Hi, pro"}]}"#,
            to: dir + "/flow.json")
        let no = try runRocket(["play", dir + "/flow.json", "--instant", "--explain"], stdin: "\n")
        #expect(no.status == 3)
        #expect(no.stderr.contains(#"when.if "plan == 'pro'" is false"#), "\(no.stderr)")
        let yes = try runRocket(["play", dir + "/flow.json", "--instant", "--var", "plan=pro"], stdin: "\n")
        #expect(yes.status == 0 && yes.stderr.contains("Hi, pro"))
    }
}

@Suite("rocket play: assignments kept")
struct PlayAssignmentTests {
    @Test("the first exposure's variant is kept in the store: new weights keep a visitor where they were; new visitors follow them")
    func sticky() throws {
        let dir = scratchDirectory()
        func flow(_ long: Double) {
            write(
                """
                {"version": 1, "experiment": {"name": "copy",
                  "variants": [{"name": "long", "weight": \(long), "start": "long"}, {"name": "short", "weight": 1, "start": "short"}]},
                 "blocks": [{"id": "long", "type": "text", "text": "The long welcome"}, {"id": "short", "type": "text", "text": "Hi"}]}
                """, to: dir + "/flow.json")
        }
        func variant(_ visitor: String) throws -> String? {
            let r = try runRocket(["play", dir + "/flow.json", "--instant", "--visitor", visitor, "--store", dir + "/s.sqlite", "--events", "-"], stdin: "\n")
            return r.stdout.firstRange(of: #""variant":""#).map { String(r.stdout[$0.upperBound...].prefix { $0 != "\"" }) }
        }
        flow(1)
        var first: [String: String] = [:]
        for k in 0..<8 { first["p\(k)"] = try variant("p\(k)") }
        #expect(Set(first.values) == ["long", "short"], "\(first)")
        flow(0.000001)
        for k in 0..<8 { #expect(try variant("p\(k)") == first["p\(k)"]) }
        #expect(try variant("someone-new") == "short")
    }
}

@Suite("rocket play: buttons that open pages")
struct PlayLinkTests {
    @Test("A pressed link's address is printed on a line of its own for the terminal, never into the results on stdout")
    func printed() throws {
        let flow = DocumentedExitStatusTests.root.appendingPathComponent("examples/links.json").path
        let r = try runRocket(["play", flow, "--plain", "--instant", "--answers-out", "-"], stdin: "\n1\n1\n\n")
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("[1] Read the flow format ↗  [2] Not now\n"), "line mode marks the link as the frame does: \(r.stderr)")
        #expect(r.stderr.contains("Read the flow format → https://rocket.example/docs/flow-format\n"), "\(r.stderr)")
        #expect(r.stderr.contains("The server's guide → https://rocket.example/docs/server\n"))
        #expect(!r.stdout.contains("rocket.example"))
        // Not pressed, not printed.
        let no = try runRocket(["play", flow, "--plain", "--instant"], stdin: "\n2\n3\n\n")
        #expect(no.status == 0 && !no.stderr.contains("→ https://"), "\(no.stderr)")
    }
}

@Suite("A flow's schedule on the command line")
struct ScheduleCLITests {
    @Test("play is not now outside the schedule (--explain says why and until when); lint and serve --check warn of one that ended")
    func schedule() throws {
        let dir = scratchDirectory()
        write(
            #"{"version": 1, "schedule": {"from": "2026-12-10T09:00+01:00", "until": "2027-01-06T00:00Z"}, "blocks": [{"id": "a", "type": "text", "text": "Hi"}]}"#,
            to: dir + "/sale.json")
        let early = try runRocket(["play", dir + "/sale.json", "--instant", "--now", "2026-12-01T00:00Z"], stdin: "\n")
        #expect(early.status == 3 && early.stdout.isEmpty, "\(early.stderr)")
        let explained = try runRocket(["play", dir + "/sale.json", "--instant", "--now", "2026-12-01T00:00Z", "--explain"], stdin: "\n")
        #expect(explained.stderr.contains("scheduled from 2026-12-10T09:00+01:00; not before 2026-12-10T08:00:00Z"), "\(explained.stderr)")
        let during = try runRocket(["play", dir + "/sale.json", "--instant", "--now", "2026-12-24T00:00Z"], stdin: "\n")
        #expect(during.status == 0 && during.stderr.contains("Hi"), "\(during.stderr)")
        let late = try runRocket(["play", dir + "/sale.json", "--instant", "--now", "2027-01-06T00:00Z", "--explain"], stdin: "\n")
        #expect(late.status == 3 && late.stderr.contains("its schedule ended at 2027-01-06T00:00Z; never again"), "\(late.stderr)")
        // --ignore-rules plays it anyway (an author trying a flow before its day).
        #expect(try runRocket(["play", dir + "/sale.json", "--instant", "--now", "2026-12-01T00:00Z", "--ignore-rules"], stdin: "\n").status == 0)
        // Lint: clean while it may still show; a warning (not an error) once it has ended.
        let lint = try runRocket(["lint", dir + "/sale.json"])
        #expect(lint.status == 0 && lint.stdout.isEmpty, "\(lint.stdout)")
        write(
            #"{"version": 1, "schedule": {"until": "2001-01-01T00:00Z"}, "blocks": [{"id": "a", "type": "text", "text": "Hi"}]}"#,
            to: dir + "/old.json")
        let ended = try runRocket(["lint", dir + "/old.json"])
        #expect(ended.status == 0, "\(ended.stdout)")
        #expect(
            ended.stdout == dir + "/old.json:1:38: warning: the schedule ended at 2001-01-01T00:00Z: the flow is never shown again (schedule.until)\n",
            "\(ended.stdout)")
        let check = try runRocket(["serve", "--check", "--flows", dir, "--insecure-dev", "--store", dir + "/s.sqlite"])
        #expect(check.status == 0 && check.stderr.contains("old.json: its schedule ended at 2001-01-01T00:00Z"), "\(check.stderr)")
        #expect(!check.stderr.contains("sale.json"), "\(check.stderr)")
    }
}

@Suite("A button that snoozes its flow, on the command line")
struct SnoozeCLITests {
    @Test("play keeps a snooze in the store: the flow is not now until it ends (--explain says until when), forever never; --ignore-rules plays it")
    func snooze() throws {
        let dir = scratchDirectory()
        write(
            #"""
            {"version": 1, "blocks": [{"id": "ask", "type": "doubleButton",
              "left": {"title": "Later", "snooze": "7d"}, "right": {"title": "Never", "snooze": "forever"}}]}
            """#, to: dir + "/rate.json")
        let store = ["--store", dir + "/s.sqlite"]
        func play(at time: String, _ input: String = "1\n", _ more: [String] = []) throws -> RunResult {
            try runRocket(["play", dir + "/rate.json", "--instant", "--now", time, "--explain"] + store + more, stdin: input)
        }
        #expect(try play(at: "2026-12-04T10:00:00Z").status == 0)
        let soon = try play(at: "2026-12-05T10:00:00Z")
        #expect(soon.status == 3 && soon.stderr.contains("snoozed until 2026-12-11T10:00:00Z"), "\(soon.stderr)")
        #expect(try play(at: "2026-12-05T10:00:00Z", "1\n", ["--ignore-rules"]).status == 0)
        let later = try play(at: "2026-12-11T10:00:00Z", "2\n")
        #expect(later.status == 0, "\(later.stderr)")
        let never = try play(at: "2036-01-01T00:00:00Z")
        #expect(never.status == 3 && never.stderr.contains("asked not to be shown it again; never again"), "\(never.stderr)")
        // The store lists it as a scenario, and a reset of that scenario forgets it.
        let status = try runRocket(["scenario", "status", "rocket.snoozed.rate"] + store)
        #expect(status.stdout.hasPrefix("rocket.snoozed.rate: a snooze of the flow rate, for good"), "\(status.stdout)")
        #expect(try runRocket(["scenario", "reset", "rocket.snoozed.rate"] + store).status == 0)
        #expect(try play(at: "2036-01-01T00:00:00Z", "1\n").status == 0)
        // A recorded case says the snooze its presses left.
        let recorded = try play(at: "2036-01-01T00:00:00Z", "2\n", ["--ignore-rules", "--case-out", "-"])
        #expect(recorded.stdout.contains(#""snooze": "forever""#), "\(recorded.stdout)")
        // Another flow of the same store is not snoozed by it.
        write(#"{"version": 1, "blocks": [{"id": "b", "type": "button", "title": "Later", "snooze": "1d"}]}"#, to: dir + "/tip.json")
        #expect(try runRocket(["play", dir + "/tip.json", "--instant", "--now", "2036-01-01T00:00:00Z"] + store, stdin: "\n").status == 0)
    }
}

@Suite("rocket play: a flow's version in its events")
struct PlayVersionTests {
    @Test("The version a play logs is the flow's identity, the same from any folder and the same as the server's, pictures or not")
    func versionIsTheFlowsOwn() throws {
        let flow = #"""
            {"version": 1, "blocks": [
             {"id": "look", "type": "image", "image": "p.png", "next": "pick"},
             {"id": "pick", "type": "choice", "text": "Which?", "options": [{"title": "This", "image": "p.png"}, {"title": "None"}]}
            ]}
            """#
        let doc = try #require(FlowLoader.load(Array(flow.utf8)).document)
        let expected = String(doc.makeGraph().contentHash.prefix(12))
        var versions: [String] = []
        for folder in ["a", "b/c"] {
            let dir = scratchDirectory() + "/" + folder
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
            write(flow, to: dir + "/flow.json")
            try FileManager.default.copyItem(atPath: TestCommandTests.examples + "/rocket-logo.png", toPath: dir + "/p.png")
            let r = try runRocket(["play", dir + "/flow.json", "--instant", "--events", dir + "/events.jsonl"], stdin: "\n2\n")
            #expect(r.status == 0, "\(r.stderr)")
            let events = try String(contentsOfFile: dir + "/events.jsonl", encoding: .utf8)
            let version = try #require(events.firstMatch(of: /"event":"started","flow":"flow","version":"([0-9a-f]{12})"/)?.1, "\(events)")
            versions.append(String(version))
        }
        #expect(versions == [expected, expected], "\(versions) against \(expected)")
    }
}
