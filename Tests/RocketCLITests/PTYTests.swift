import RocketTestSupport
import Foundation
import Testing
#if canImport(Glibc)
    import Glibc
#endif

@Suite("rocket in a real pseudo-terminal", .serialized)
struct PTYTests {
    @Test("Ctrl-C exits 130 and the terminal settings are restored")
    func ctrlC() throws {
        let run = try PTYRun(["demo"])
        #expect(run.waitFor("Enter continue"))
        run.send([0x03])
        #expect(run.waitForExit() == 130)
        #expect(run.terminalRestored)
        #expect(String(decoding: run.raw, as: UTF8.self).hasSuffix("\u{1B}[?1006l"))
    }

    @Test("Esc is the close button: exit 1")
    func escape() throws {
        let run = try PTYRun(["demo"])
        #expect(run.waitFor("Enter continue"))
        run.send([0x1B])
        #expect(run.waitForExit() == 1)
        #expect(run.terminalRestored)
    }

    @Test("SIGTERM exits 143 with the terminal restored")
    func sigterm() throws {
        let run = try PTYRun(["demo"])
        #expect(run.waitFor("Enter continue"))
        kill(run.rocketPID, SIGTERM)
        #expect(run.waitForExit() == 143)
        #expect(run.terminalRestored)
    }

    @Test("A whole flow with keys: arrows, Enter, typing with the cursor at the insertion point")
    func keysToTheEnd() throws {
        let dir = scratchDirectory()
        write(tinyFlow, to: dir + "/flow.json")
        let run = try PTYRun(["play", dir + "/flow.json", "--instant", "--events", dir + "/e.jsonl"])
        #expect(run.waitFor("Sure"))
        run.send("\u{1B}[C")  // focus Later
        run.send("\u{1B}[D")  // back to Sure
        run.send("\r")
        #expect(run.waitFor("Name?"))
        run.send("Adx")
        run.send([0x7F])
        run.send("a")
        #expect(run.waitFor("› Ada"))
        let row = run.screen.lines.firstIndex { $0.contains("› Ada") }
        #expect(run.screen.row == row && run.screen.column == 9)
        run.send("\r")
        #expect(run.waitFor("PIN?"))
        run.send("1234\r")
        #expect(run.waitFor("Enable"))
        run.send(" ")
        #expect(run.waitFor("Thanks, Ada!"))
        run.send("\r")
        #expect(run.waitForExit() == 0)
        #expect(run.terminalRestored)
        #expect(!String(decoding: run.raw, as: UTF8.self).contains("1234"))
        #expect(try String(contentsOfFile: dir + "/e.jsonl", encoding: .utf8).contains(#""reason":"completed""#))
    }

    @Test("--print-actions and an action's command output go above the live area, never into it")
    func actionsAboveTheScreen() throws {
        let dir = scratchDirectory()
        write(
            #"{"version": 1, "blocks": [{"id": "go", "type": "button", "title": "Go", "action": "notify", "next": "more"},"#
                + #"{"id": "more", "type": "doubleButton", "left": {"title": "Again", "action": "again", "next": "done"}, "right": {"title": "Skip"}},"#
                + #"{"id": "done", "type": "text", "text": "Done."}]}"#, to: dir + "/flow.json")
        let run = try PTYRun([
            "play", dir + "/flow.json", "--instant", "--print-actions", "--on-action", "again=printf 'from the hook\\033[31m\\n'",
        ])
        #expect(run.waitFor("[ Go ]"))
        run.send("\r")
        #expect(run.waitFor("[ Again ]"))
        // While it runs: the hint line whole, with nothing written after it.
        #expect(run.waitUntil { run.screen.allLines.contains { $0.hasSuffix("Ctrl-C quit") } })
        run.send("\r")
        #expect(run.waitFor("Done."))
        run.send("\r")
        #expect(run.waitForExit() == 0)
        let lines = run.screen.allLines
        let notify = try #require(lines.firstIndex { $0 == "notify" })
        let again = try #require(lines.firstIndex { $0 == "again" })
        let hook = try #require(lines.firstIndex { $0.hasPrefix("from the hook\u{FFFD}") })
        let firstBubble = try #require(lines.firstIndex { $0.contains("[ Go ]") })
        // In the order they fired, each on a line of its own, all above the conversation.
        #expect(notify < again && again < hook && hook < firstBubble)
        // The conversation is whole: the hint line and every row as drawn, with nothing appended.
        #expect(!lines.contains { $0.contains("quitnotify") || $0.contains("quitagain") || $0.contains("]notify") })
        #expect(lines.filter { $0.contains("[ Go ]") }.count == 1)
        // The hook's escape byte never reached the terminal.
        #expect(!String(decoding: run.raw, as: UTF8.self).contains("\u{1B}[31m"))
    }

    @Test(
        "A prompt leaves one dimmed line, the question and the answer, never its list, dialog or hint; --clear leaves nothing",
        arguments: [
            (["confirm", "Deploy now?"], "y", "Deploy now?  Yes"), (["confirm", "Deploy now?"], "n", "Deploy now?  No"),
            (["choose", "--title", "Colour", "red", "green", "blue"], "\u{1B}[B\r", "Colour  green"),
            (["alert", "--title", "Delete?", "--action", "Delete:destructive", "--action", "Cancel:cancel"], "\u{1B}", "Delete?  Cancel"),
            (["input", "--title", "Your name?"], "Ada\r", "Your name?  Ada"),
            (["input", "--title", "PIN?", "--secret"], "1234\r", "PIN?  ••••••"),
        ])
    func promptResidue(_ args: [String], keys: String, summary: String) throws {
        for clear in [false, true] {
            let dir = scratchDirectory()
            let quoted = (args + (clear ? ["--clear"] : [])).map { "'\($0)'" }.joined(separator: " ")
            let run = try PTYRun([], shell: "printf 'before\\n'; '\(rocketPath)' \(quoted) > '\(dir)/out.txt'; printf 'after\\n'")
            #expect(run.waitFor("Esc"))
            run.send(keys)
            #expect(run.waitFor("after"))
            _ = run.waitForExit()
            let lines = run.screen.allLines.filter { !$0.isEmpty }
            let expected = clear ? ["before", "after"] : ["before", summary, "after"]
            #expect(lines == expected, "\(args) clear: \(clear)")
            // The summary is dimmed: SGR 2 precedes it.
            if !clear { #expect(String(decoding: run.raw, as: UTF8.self).contains("\u{1B}[0;2m")) }
            #expect(!String(decoding: run.raw, as: UTF8.self).contains("1234"))
        }
    }

    @Test(
        "At any width, no row runs past the right margin: every app's frame fits (views laid out at their smallest width are cut)",
        arguments: [1, 4, 11, 15])
    func narrowTerminals(columns: Int) throws {
        let commands: [([String], [UInt8])] = [
            (["alert", "--title", "Delete item?", "--action", "Delete:destructive", "--action", "Cancel:cancel"], [0x1B]),
            (["confirm", "Deploy now?"], Array("y".utf8)),
            (["choose", "--title", "Colour", "red", "green", "blue"], [0x0D]),
            (["input", "--title", "Your name?"], Array("Ada\r".utf8)),
            (["banner", "A banner title", "--subtitle", "sub", "--button", "OK"], [0x0D]),
            (["demo", "--instant"], [0x03]),
        ]
        for (args, keys) in commands {
            // Results go to /dev/null: a result line wraps like any text; only the UI is measured.
            let line = args.map { "'\($0)'" }.joined(separator: " ")
            let run = try PTYRun([], columns: columns, rows: 3, environment: ["ROCKET_REDUCED_MOTION": "1"], shell: "'\(rocketPath)' \(line) > /dev/null")
            // Once the first frame is drawn: it is written right after the position query.
            #expect(run.waitUntil { String(decoding: run.raw, as: UTF8.self).contains("\u{1B}[6n") })
            run.pump(0.2)
            run.send(keys)
            _ = run.waitForExit(timeout: 5)
            if run.process.isRunning { run.send([0x03]); _ = run.waitForExit(timeout: 5) }
            #expect(run.screen.wraps == 0, "\(args[0]) at \(columns) columns wrapped \(run.screen.wraps) times")
            #expect(run.terminalRestored)
        }
    }

    @Test("confirm answers to the y and n keys in the terminal")
    func confirmKeys() throws {
        for (key, status) in [("y", Int32(0)), ("N", 1)] {
            let run = try PTYRun(["confirm", "--default", "no", "Sure?"])
            #expect(run.waitFor("[ No ]"))
            run.send(key)
            #expect(run.waitForExit() == status)
            #expect(run.terminalRestored)
        }
    }

    @Test("On the kernel's console (TERM=linux) the UI writes ASCII only, as wide as its Unicode; ROCKET_ASCII=0 keeps Unicode; a pipe's lines too")
    func asciiConsole() throws {
        let run = try PTYRun(["confirm", "Café ★ ok?"], environment: ["TERM": "linux"])
        #expect(run.waitFor("[ No ]"))
        #expect(run.screen.lines.contains { $0.contains("| Cafe * ok? |") }, "\(run.screen.lines)")
        #expect(run.raw.allSatisfy { $0 < 0x80 }, "a byte above 0x7F was written")
        run.send("y")
        #expect(run.waitForExit() == 0)
        #expect(run.terminalRestored)
        let unicode = try PTYRun(["confirm", "Café ★ ok?"], environment: ["TERM": "linux", "ROCKET_ASCII": "0"])
        #expect(unicode.waitFor("│ Café ★ ok? │"))
        unicode.send("n")
        #expect(unicode.waitForExit() == 1)
        // Line mode: what goes to the terminal is ASCII; the answer on stdout is the user's, as typed.
        let piped = try runRocket(["input", "--title", "Perché? ★"], stdin: "Perché\n", environment: ["ROCKET_ASCII": "1"])
        #expect(piped.status == 0)
        #expect(piped.stdout == "Perché\n")
        #expect(piped.stderr.contains("Perche? *") && piped.stderr.utf8.allSatisfy { $0 < 0x80 }, "\(piped.stderr)")
    }

    @Test("With --mouse a click presses the button under it; without it the mouse is left to the terminal")
    func mouseClick() throws {
        let dir = scratchDirectory()
        write(tinyFlow, to: dir + "/flow.json")
        let plainRun = try PTYRun(["play", dir + "/flow.json", "--instant"])
        #expect(plainRun.waitFor("Sure"))
        #expect(!String(decoding: plainRun.raw, as: UTF8.self).contains("\u{1B}[?1000h"))
        plainRun.send([0x03])
        _ = plainRun.waitForExit()
        let run = try PTYRun(["play", dir + "/flow.json", "--instant", "--mouse"])
        #expect(run.waitFor("[ Later ]"))
        let row = try #require(run.screen.lines.firstIndex { $0.contains("[ Later ]") })
        let column = try #require(run.screen.lines[row].range(of: "Later")).lowerBound.utf16Offset(in: run.screen.lines[row])
        run.send("\u{1B}[<0;\(column + 1);\(row + 1)M\u{1B}[<0;\(column + 1);\(row + 1)m")
        #expect(run.waitFor("Bye"))
        run.send([0x03])
        #expect(run.waitForExit() == 130)
    }

    @Test("A rating with arrows and a digit, then a multiple choice with Space and Enter, in a real terminal")
    func ratingAndMultiSelect() throws {
        let dir = scratchDirectory()
        write(
            #"""
            {"version": 1, "blocks": [
             {"id": "stars", "type": "rating", "text": "How was it?", "scale": 5, "labels": {"low": "Poor", "high": "Great"}, "next": "food"},
             {"id": "food", "type": "choice", "text": "What did you have?", "multiple": true, "max": 2,
              "options": [{"title": "Tea"}, {"title": "Cake"}, {"title": "Milk"}], "next": "bye"},
             {"id": "bye", "type": "text", "text": "{{stars}} stars, {{food}}."}]}
            """#, to: dir + "/flow.json")
        let run = try PTYRun(["play", dir + "/flow.json", "--instant", "--answers-out", dir + "/a.json"])
        #expect(run.waitFor("1 Poor … 5 Great"))
        run.send("2")
        run.send("\u{1B}[C")  // → 3
        #expect(run.waitFor("★ ★ ★ ☆ ☆ 3/5"))
        run.send("\r")
        #expect(run.waitFor("☐ Tea"))
        run.send(" ")  // tick Tea
        run.send("\u{1B}[B\u{1B}[B")  // down to Milk
        run.send(" ")
        #expect(run.waitFor("☑ Milk"))
        run.send("\r")
        #expect(run.waitFor("3 stars, Tea, Milk."))
        run.send("\r")
        #expect(run.waitForExit() == 0)
        #expect(run.terminalRestored)
        let answers = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: dir + "/a.json"))) as? [String: Any]
        #expect(answers?["food"] as? [String] == ["Tea", "Milk"])
        #expect(answers?["stars"] as? Int == 3)
    }

    @Test("Shift-Tab goes back to change the previous answer, in a real terminal")
    func shiftTabBack() throws {
        let dir = scratchDirectory()
        write(
            #"""
            {"version": 1, "blocks": [
             {"id": "name", "type": "textInput", "text": "Name?", "buttonTitle": "OK", "next": "plan"},
             {"id": "plan", "type": "choice", "text": "Plan for {{name}}?", "options": [{"title": "Free", "next": "bye"}, {"title": "Pro", "next": "bye"}]},
             {"id": "bye", "type": "text", "text": "Bye {{name}}, {{plan}}."}]}
            """#, to: dir + "/flow.json")
        let run = try PTYRun(["play", dir + "/flow.json", "--instant"])
        #expect(run.waitFor("Name?"))
        run.send("Ada\r")
        #expect(run.waitFor("Plan for Ada?"))
        #expect(run.waitFor("Shift-Tab back"))
        run.send("\u{1B}[Z")  // Shift-Tab
        #expect(run.waitUntil { !run.screen.allLines.contains { $0.contains("Plan for Ada?") } })
        // The field holds the answer being changed: mended, not typed again.
        #expect(run.waitFor("› Ada"))
        run.send("\u{7F}\u{7F}\u{7F}Grace\r")
        #expect(run.waitFor("Plan for Grace?"))
        run.send("\r")
        #expect(run.waitFor("Bye Grace, Free."))
        run.send("\r")
        #expect(run.waitForExit() == 0)
        #expect(run.terminalRestored)
    }

    @Test("A crash (fatal signal) still restores the terminal")
    func crash() throws {
        let run = try PTYRun(["demo"])
        #expect(run.waitFor("Enter continue"))
        kill(run.rocketPID, SIGSEGV)
        let status = run.waitForExit()
        #expect(status != nil && status != 0)
        #expect(run.terminalRestored)
    }

    @Test("A resize reflows the transcript")
    func resize() throws {
        let dir = scratchDirectory()
        let long = String(repeating: "word ", count: 20)
        write(#"{"version": 1, "blocks": [{"id": "a", "type": "text", "text": "\#(long)"}]}"#, to: dir + "/f.json")
        let run = try PTYRun(["play", dir + "/f.json"], columns: 100, rows: 20)
        #expect(run.waitFor("word word"))
        let wide = run.screen.lines.map { $0.count }.max() ?? 0
        let before = run.raw.count
        run.resize(columns: 40, rows: 20)
        let redrawn = run.waitFor("Enter continue")
        #expect(redrawn, "after resize: \(String(decoding: run.raw[before...], as: UTF8.self).debugDescription)")
        let narrow = run.screen.lines.map { $0.count }.max() ?? 0
        #expect(wide > 60 && narrow <= 40)
        #expect(run.screen.lines.filter { $0.contains("word") }.count >= 3)
        run.send([0x03])
        #expect(run.waitForExit() == 130)
    }
}

@Suite("Shell scripts: the UI on the terminal, only the result on stdout", .serialized)
struct CaptureTests {
    @Test("choice=$(rocket alert …): the alert draws on the terminal; stdout gets only the chosen title")
    func alertCapture() throws {
        let dir = scratchDirectory()
        let run = try PTYRun([], shell: "'\(rocketPath)' alert --title Pick --action One --action Two --sheet > '\(dir)/out.txt'")
        #expect(run.waitFor("Pick"))
        #expect(run.waitFor("Two"))
        run.send("\u{1B}[B\r")
        #expect(run.waitForExit() == 0)
        #expect(try String(contentsOfFile: dir + "/out.txt", encoding: .utf8) == "Two\n")
        #expect(run.terminalRestored)
    }

    @Test("rocket play f.json > out: the conversation draws on the terminal; stdout gets only --answers-out -")
    func playCapture() throws {
        let dir = scratchDirectory()
        write(tinyFlow, to: dir + "/flow.json")
        let run = try PTYRun([], shell: "'\(rocketPath)' play '\(dir)/flow.json' --instant --answers-out - > '\(dir)/out.txt'")
        #expect(run.waitFor("Sure"))
        run.send("\r")
        #expect(run.waitFor("Name?"))
        run.send("Ada\r")
        #expect(run.waitFor("PIN?"))
        run.send("1234\r")
        #expect(run.waitFor("Enable"))
        run.send("\r")
        #expect(run.waitFor("Thanks, Ada!"))
        run.send("\r")
        #expect(run.waitForExit() == 0)
        let out = try String(contentsOfFile: dir + "/out.txt", encoding: .utf8)
        #expect(out == #"{"ask": "Sure", "go": "Enable", "name": "Ada"}"# + "\n", "\(out)")
    }

    @Test("cat f.json | rocket play - > out: the flow comes from the pipe, the keys from the terminal")
    func flowFromStdin() throws {
        let dir = scratchDirectory()
        write(tinyFlow, to: dir + "/flow.json")
        let run = try PTYRun([], shell: "cat '\(dir)/flow.json' | '\(rocketPath)' play - --instant --answers-out - > '\(dir)/out.txt'")
        #expect(run.waitFor("Sure"))
        run.send("\u{1B}[C\r")  // Later
        #expect(run.waitFor("Bye"))
        run.send("\r")
        #expect(run.waitForExit() == 0)
        #expect(run.terminalRestored)
        let out = try String(contentsOfFile: dir + "/out.txt", encoding: .utf8)
        #expect(out == #"{"ask": "Later"}"# + "\n", "\(out)")
    }
}

@Suite("Line mode on a terminal and every exit path", .serialized)
struct LineModeTerminalTests {
    @Test("A secret typed in line mode on a terminal is not echoed; the terminal settings come back")
    func secretEcho() throws {
        let dir = scratchDirectory()
        write(tinyFlow, to: dir + "/flow.json")
        let run = try PTYRun(["play", dir + "/flow.json", "--plain", "--instant"])
        #expect(run.waitFor("[1] Sure"))
        run.send("1\r")
        #expect(run.waitFor("Name?"))
        run.send("Ada\r")
        #expect(run.waitFor("PIN?"))
        run.send("4711\r")
        #expect(run.waitFor("Enable"))
        #expect(!run.screen.allLines.joined().contains("4711"))
        run.send("1\r")
        #expect(run.waitFor("Thanks, Ada!"))
        run.send("\r")
        #expect(run.waitForExit() == 0)
        #expect(run.terminalRestored)
    }

    @Test("Line mode on a terminal says what an empty line keeps: the flow's value, or the answer gone back to")
    func keepsStartingText() throws {
        let dir = scratchDirectory()
        write(
            #"""
            {"version": 1, "blocks": [
             {"id": "mail", "type": "textInput", "text": "E-mail?", "buttonTitle": "OK", "next": "check"},
             {"id": "check", "type": "textInput", "text": "Right?", "buttonTitle": "OK", "value": "{{mail}}", "next": "bye"},
             {"id": "bye", "type": "text", "text": "Bye {{check}}"}]}
            """#, to: dir + "/flow.json")
        let run = try PTYRun(["play", dir + "/flow.json", "--plain", "--instant"], environment: ["LANG": "en_US.UTF-8"])
        #expect(run.waitFor("E-mail?"))
        run.send("ada@example.org\r")
        #expect(run.waitFor("Type your answer (Enter alone keeps ada@example.org):"))
        run.send("\r")
        #expect(run.waitFor("Bye ada@example.org"))
        run.send("\r")
        #expect(run.waitForExit() == 0)
        #expect(run.terminalRestored)
    }

    @Test("Line mode on a terminal says what a typed field takes: the answer's bounds from today, a date's form; not the flow's placeholder")
    func promptsHint() throws {
        let dir = scratchDirectory()
        write(
            #"""
            {"version": 1, "blocks": [
             {"id": "day", "type": "textInput", "text": "Which day?", "buttonTitle": "OK", "inputType": "date", "min": "today+1d", "max": "2027-12-31", "next": "any"},
             {"id": "any", "type": "textInput", "text": "Any day?", "buttonTitle": "OK", "inputType": "date", "next": "who"},
             {"id": "who", "type": "textInput", "text": "Who?", "buttonTitle": "OK", "placeholder": "a name", "next": "bye"},
             {"id": "bye", "type": "text", "text": "Bye {{who}}"}]}
            """#, to: dir + "/flow.json")
        let run = try PTYRun(
            ["play", dir + "/flow.json", "--plain", "--instant", "--now", "2026-12-06T10:00:00Z"], environment: ["LANG": "de_DE.UTF-8", "TZ": "UTC"])
        #expect(run.waitFor("Gib deine Antwort ein (2026-12-07 – 2027-12-31):"))
        run.send("2026-12-24\r")
        #expect(run.waitFor("Gib deine Antwort ein (JJJJ-MM-TT):"))
        run.send("\r")
        // The flow's placeholder is not said: after the prompt it would read as what Enter keeps.
        #expect(run.waitFor("Who?"))
        #expect(run.waitFor("Gib deine Antwort ein:"))
        run.send("Ada\r")
        #expect(run.waitFor("Bye Ada"))
        run.send("\r")
        #expect(run.waitForExit() == 0)
        #expect(run.terminalRestored)
    }

    @Test("Line mode on a terminal says which options an empty line keeps, and sends them")
    func keepsStartingChoices() throws {
        let dir = scratchDirectory()
        write(
            #"""
            {"version": 1, "blocks": [
             {"id": "food", "type": "choice", "text": "What would you like?", "multiple": true,
              "options": [{"title": "Tea", "selected": true}, {"title": "Cake"}, {"title": "Milk", "selected": true}], "next": "bye"},
             {"id": "bye", "type": "text", "text": "So: {{food}}"}]}
            """#, to: dir + "/flow.json")
        let run = try PTYRun(["play", dir + "/flow.json", "--plain", "--instant"], environment: ["LANG": "en_US.UTF-8"])
        #expect(run.waitFor("Enter alone keeps: Tea, Milk"))
        run.send("\r")
        #expect(run.waitFor("So: Tea, Milk"))
        run.send("\r")
        #expect(run.waitForExit() == 0)
        #expect(run.terminalRestored)
    }

    /// The soft and hard limits of core files of process `pid`, as /proc shows them.
    static func coreLimit(_ pid: pid_t) -> String? {
        let limits = (try? String(contentsOfFile: "/proc/\(pid)/limits", encoding: .utf8)) ?? ""
        guard let line = limits.split(separator: "\n").first(where: { $0.hasPrefix("Max core file size") }) else { return nil }
        return line.dropFirst("Max core file size".count).split(separator: " ").prefix(2).joined(separator: " ")
    }

    /// This process's own core limits, which rocket inherits (here, as often, a soft 0 and a hard
    /// unlimited: a protected process has both at 0, so the two can be told apart).
    static let ownCoreLimit = coreLimit(getpid()) ?? "0 0"

    @Test(
        "A process that asks for a secret writes no core file (rocket input --secret, a flow with a secret input); others keep the limit",
        .enabled(if: ownCoreLimit != "0 0", "this process's core limits are both 0 already"))
    func noCoreWithSecrets() throws {
        let own = Self.ownCoreLimit
        let dir = scratchDirectory()
        write(tinyFlow, to: dir + "/flow.json")
        for (args, prompt, secret) in [
            (["input", "--title", "PIN?", "--secret"], "PIN?", true), (["play", dir + "/flow.json", "--plain"], "[1] Sure", true),
            (["input", "--title", "Name?"], "Name?", false),
        ] {
            let run = try PTYRun(args)
            #expect(run.waitFor(prompt), "\(args)")
            let limit = try #require(Self.coreLimit(run.rocketPID), "\(args)")
            #expect(limit == (secret ? "0 0" : own), "\(args): \(limit)")
            run.send("\u{3}")
            #expect(run.waitForExit() == 130)
            #expect(run.terminalRestored)
        }
    }

    @Test("SIGQUIT, SIGUSR1, SIGUSR2 and SIGALRM restore the terminal and exit 128 + signal", arguments: [SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM])
    func signals(signal: Int32) throws {
        let run = try PTYRun(["demo"])
        #expect(run.waitFor("Enter continue"))
        kill(run.rocketPID, signal)
        #expect(run.waitForExit(timeout: 10) == 128 + signal)
        #expect(run.terminalRestored)
    }

    @Test("Ctrl-\\ typed in raw mode quits as SIGQUIT does: exit 131, the terminal restored")
    func quitKey() throws {
        let run = try PTYRun(["demo"])
        #expect(run.waitFor("Enter continue"))
        run.send([0x1C])
        #expect(run.waitForExit(timeout: 10) == 131)
        #expect(run.terminalRestored)
    }

    @Test("Ctrl-Z (SIGTSTP, or the key in raw mode) gives the terminal back, then takes it again and redraws")
    func suspendAndContinue() throws {
        let run = try PTYRun(["demo"])
        #expect(run.waitFor("Enter continue"))
        for suspend in [{ kill(run.rocketPID, SIGTSTP) }, { run.send([0x1A]) }] as [() -> Void] {
            let before = run.raw.count
            suspend()
            // Under setsid no job-control shell owns the process group, so the stop itself is
            // skipped by the kernel; the restore, the return to raw mode and the redraw are not.
            #expect(
                run.waitUntil {
                    let after = String(decoding: run.raw[before...], as: UTF8.self)
                    guard let restored = after.range(of: "\u{1B}[?2004l"), let again = after.range(of: "\u{1B}[?2004h") else { return false }
                    // The region is erased first (the shell's lines take its place), then the
                    // terminal restored, then taken again and the frame drawn anew.
                    guard let erased = after.range(of: "\u{1B}[2K") else { return false }
                    return erased.lowerBound < restored.lowerBound && restored.lowerBound < again.lowerBound
                        && after[again.upperBound...].contains("Enter continue")
                })
        }
        run.send([0x1B])
        #expect(run.waitForExit() == 1)
        #expect(run.terminalRestored)
    }

    @Test("A closed stdin is end of input, not a hang")
    func closedStdin() throws {
        let dir = scratchDirectory()
        write(tinyFlow, to: dir + "/flow.json")
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/bin/sh")
        p.arguments = ["-c", "exec '\(rocketPath)' play '\(dir)/flow.json' --plain <&-"]
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try p.run()
        let deadline = Date().addingTimeInterval(10)
        while p.isRunning && Date() < deadline { usleep(20_000) }
        if p.isRunning { p.terminate() }
        #expect(!p.isRunning)
        #expect(p.terminationStatus == 1)
    }
}

@Suite("Terminal sizes", .serialized)
struct TerminalSizeTests {
    @Test(
        "alert, alert --sheet, banner and play survive 1×1, 2×2 and 3×1 and come back",
        arguments: [
            ["alert", "--title", "Pick", "--action", "One", "--action", "Two"],
            ["alert", "--sheet", "--title", "Pick", "--action", "One", "--action", "Two"],
            ["banner", "Saved", "--button", "Undo"],
            ["demo"],
        ])
    func tiny(args: [String]) throws {
        let run = try PTYRun(args)
        run.pump(0.6)
        for (c, r) in [(1, 1), (2, 2), (3, 1), (0, 0), (300, 100), (80, 24)] {
            run.resize(columns: c, rows: r)
            kill(run.rocketPID, SIGWINCH)
            run.pump(0.3)
            #expect(run.process.isRunning, "\(args) died at \(c)×\(r)")
        }
        run.send([0x03])
        let status = run.waitForExit()
        #expect(status == 130 || status == 1, "\(args): \(String(describing: status))")
        #expect(run.terminalRestored)
    }
}

@Suite("Keys typed early", .serialized)
struct TypeAheadTests {
    @Test("Keys typed before the first frame are kept")
    func typeAhead() throws {
        let dir = scratchDirectory()
        write(tinyFlow, to: dir + "/flow.json")
        let run = try PTYRun(["play", dir + "/flow.json", "--instant"])
        run.send("\r")  // before anything is drawn: presses Sure once the flow is up
        #expect(run.waitFor("Name?"))
        run.send([0x03])
        _ = run.waitForExit()
        #expect(run.terminalRestored)
    }
}
