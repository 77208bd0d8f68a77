import Foundation
import Testing
import RocketTestSupport
@testable import RocketCLI

@Suite("Prompts for shell scripts: input, confirm, choose, spin")
struct PromptCLITests {
    @Test("input: the answer alone on stdout; validation refuses and asks again; --value is the default; Esc or end of input exits 1")
    func input() throws {
        let r = try runRocket(["input", "--title", "Name?", "--min-length", "2"], stdin: "A\nAda\n")
        #expect(r.status == 0 && r.stdout == "Ada\n")
        #expect(r.stderr == "Name?\nPlease type at least 2 characters.\n")
        let d = try runRocket(["input", "--value", "Bob"], stdin: "\n")
        #expect(d.status == 0 && d.stdout == "Bob\n" && d.stderr.isEmpty)  // no question: no prompt line
        let p = try runRocket(["input", "--pattern", "^[0-9]{4}$", "--message", "Four digits"], stdin: "12\n1234\n")
        #expect(p.stdout == "1234\n" && p.stderr.contains("Four digits"))
        let eof = try runRocket(["input", "--required"], stdin: "")
        #expect(eof.status == 1 && eof.stdout.isEmpty)
    }

    @Test("input --type, --min, --max: the engine's typed inputs; a number is printed as a number")
    func typedInput() throws {
        let n = try runRocket(["input", "--type", "number", "--title", "Price"], stdin: "cheap\n 2,5 \n")
        #expect(n.status == 0 && n.stdout == "2.5\n" && n.stderr.contains("Please type a number."))
        let i = try runRocket(["input", "--type", "integer", "--min", "1", "--max", "99"], stdin: "0\n100\n1.5\n42\n")
        #expect(i.stdout == "42\n")
        #expect(i.stderr.contains("The least accepted is 1.") && i.stderr.contains("The most accepted is 99.") && i.stderr.contains("whole number"))
        let d = try runRocket(["input", "--type", "date", "--min", "2026-12-01"], stdin: "2026-02-30\n2026-11-30\n2026-12-24\n")
        #expect(d.stdout == "2026-12-24\n" && d.stderr.contains("YYYY-MM-DD") && d.stderr.contains("Please choose 2026-12-01 or later."))
        let t = try runRocket(["input", "--type", "time", "--min", "9:00", "--max", "17:30"], stdin: "noon\n8:59\n17:31\n9:15\n")
        #expect(t.stdout == "09:15\n" && t.stderr.contains("Please type a time like 14:30.") && t.stderr.contains("Please choose 09:00 or later."))
        #expect(t.stderr.contains("Please choose 17:30 or earlier."))
        // A 12-hour clock is read too, in answers and bounds, and kept as HH:MM.
        let t12 = try runRocket(["input", "--type", "time", "--min", "9am"], stdin: "8:30 am\n5:30 p.m.\n")
        #expect(t12.stdout == "17:30\n" && t12.stderr.contains("Please choose 09:00 or later."), "\(t12.stderr)")
        let e = try runRocket(["input", "--type", "email"], stdin: "ada\n  ada@example.org \n")
        #expect(e.stdout == "ada@example.org\n", "surrounding spaces are not part of a typed answer")
        let empty = try runRocket(["input", "--type", "phone"], stdin: "\n")
        #expect(empty.status == 0 && empty.stdout == "\n", "an empty answer no rule requires")
    }

    @Test("input --twice: asked again until both answers match; the rules apply to the first; secrets stay out of the output")
    func inputTwice() throws {
        let r = try runRocket(["input", "--secret", "--twice", "--title", "Password", "--min-length", "3"], stdin: "ab\nabc\nabd\nxyz\nxyz\n")
        #expect(r.status == 0 && r.stdout == "xyz\n")
        #expect(r.stderr.components(separatedBy: "Type it again").count == 3 && r.stderr.contains("The two answers differ; please try again."))
        #expect(r.stderr.contains("Please type at least 3 characters.") && !r.stderr.contains("xyz") && !r.stderr.contains("abd"))
        let ended = try runRocket(["input", "--twice"], stdin: "a\n")
        #expect(ended.status == 1 && ended.stdout.isEmpty, "the end of input before the second answer")
        let zh = try runRocket(["input", "--twice", "--type", "integer"], stdin: "1\n2\n3\n3\n", environment: ["LANG": "zh_CN.UTF-8"])
        #expect(zh.stdout == "3\n" && zh.stderr.contains("请再输入一次") && zh.stderr.contains("两次输入不一致"))
    }

    @Test("input --multiline: the lines up to one holding only a dot or the end of input, printed with their breaks")
    func multiline() throws {
        let r = try runRocket(["input", "--multiline", "--title", "Notes"], stdin: "first\n\nthird\n.\nnot read\n")
        #expect(r.status == 0 && r.stdout == "first\n\nthird\n", "\(r)")
        let end = try runRocket(["input", "--multiline"], stdin: "a\nb")
        #expect(end.status == 0 && end.stdout == "a\nb\n")
        let dot = try runRocket(["input", "--multiline"], stdin: "\\.\n.\n")  // a typed dot
        #expect(dot.stdout == ".\n")
        let refused = try runRocket(["input", "--multiline", "--required"], stdin: ".\nnow\n.\n")
        #expect(refused.status == 0 && refused.stdout == "now\n" && refused.stderr.contains("Please type an answer."), "\(refused)")
        for flags in [["--secret"], ["--type", "email"]] {
            let bad = try runRocket(["input", "--multiline"] + flags)
            #expect(bad.status == 64 && bad.stderr.contains("--multiline: a "), "\(bad.stderr)")
        }
    }

    @Test("ROCKET_PLAIN=1 asks for line mode at a real terminal (a screen reader's user): no escape sequences, lines said once, keys as lines")
    func plainFromEnvironment() throws {
        let run = try PTYRun(["confirm", "Deploy?"], environment: ["ROCKET_PLAIN": "1"])
        #expect(run.waitFor("Deploy?"))
        run.send("y\r")
        #expect(run.waitForExit() == 0)
        let raw = String(decoding: run.raw, as: UTF8.self)
        #expect(!raw.contains("\u{1B}"), "\(raw.debugDescription)")
        let drawn = try PTYRun(["confirm", "Deploy?"])  // without it: the drawn prompt
        #expect(drawn.waitFor("Deploy?"))
        drawn.send("y")
        #expect(drawn.waitForExit() == 0)
        #expect(String(decoding: drawn.raw, as: UTF8.self).contains("\u{1B}["))
    }

    @Test("input --multiline on a terminal: Enter starts a line, Ctrl-D sends, the summary joins the lines")
    func multilineOnTerminal() throws {
        let dir = scratchDirectory()
        let run = try PTYRun([], shell: "'\(rocketPath)' input --multiline --title Notes > '\(dir)/out.txt'")
        #expect(run.waitFor("Ctrl-D send"))
        run.send("ab\rcd")
        #expect(run.waitFor("┊ cd"))
        run.send([0x04])
        #expect(run.waitForExit() == 0)
        #expect(try String(contentsOfFile: dir + "/out.txt", encoding: .utf8) == "ab\ncd\n")
        #expect(run.screen.allLines.contains { $0.contains("Notes") && $0.contains("ab ⏎ cd") })
        #expect(run.terminalRestored)
    }

    @Test("A flow's multi-line input in line mode: the reply is echoed line by line and the answer keeps its breaks")
    func multilineInFlow() throws {
        let dir = scratchDirectory()
        write(
            #"""
            {"version": 1, "author": {"name": "Bot"}, "blocks": [
             {"id": "notes", "type": "textInput", "text": "Notes?", "buttonTitle": "OK", "multiline": true, "next": "bye"},
             {"id": "bye", "type": "text", "text": "Got:\n{{notes}}"}]}
            """#, to: dir + "/f.json")
        let r = try runRocket(["play", dir + "/f.json", "--answers-out", "-"], stdin: "one\ntwo\n.\n\n")
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout == #"{"notes": "one\ntwo"}"# + "\n")
        #expect(r.stderr == "Bot: Notes?\nyou: one\n  two\nBot: Got:\n  one\n  two\n", "\(r.stderr)")
    }

    @Test(
        "input refuses bad flags before anything is drawn",
        arguments: [
            ["--pattern", "("], ["--min-length", "-1"], ["--max-length", "99999999999999999999"], ["--min-length", "5", "--max-length", "2"],
            ["--type", "numbr"], ["--min", "3"], ["--type", "text", "--max", "3"], ["--type", "integer", "--min", "5", "--max", "1"],
            ["--type", "date", "--max", "5"], ["--type", "number", "--min", "lots"], ["--type", "date", "--min", "2026-12-02", "--max", "2026-12-01"],
            ["--type", "integer", "--min", "1.5", "--max", "1.7"], ["--type", "integer", "--min", "1e300"], ["--type", "number", "--max", "1e16"],
            ["--type", "time", "--min", "25:00"], ["--type", "time", "--min", "18:00", "--max", "09:00"], ["--type", "time", "--max", "2026-12-01"],
        ])
    func inputUsage(flags: [String]) throws {
        let r = try runRocket(["input"] + flags)
        #expect(r.status == 64 && r.stdout.isEmpty && r.stderr.hasPrefix("rocket: error: "))
    }

    @Test(
        "confirm: yes exits 0 and no exits 1, printing nothing; --default no puts No first",
        arguments: [("1\n", Int32(0)), ("yes\n", 0), ("no\n", 1), ("2\n", 1), ("", 1), ("y\n", 0), (" Y \n", 0), ("n\n", 1), ("NO\n", 1)])
    func confirm(input: String, status: Int32) throws {
        let r = try runRocket(["confirm", "Deploy?"], stdin: input)
        #expect(r.status == status && r.stdout.isEmpty)
        #expect(r.stderr.hasPrefix("Deploy?\n[1] Yes  [2] No\n"))
    }

    @Test("confirm takes yes and no in the user's language, whichever button is first")
    func confirmWords() throws {
        let italian = try runRocket(["confirm", "Sicuro?"], stdin: "sì\n", environment: ["LANG": "it_IT.UTF-8"])
        #expect(italian.status == 0 && italian.stderr.contains("[1] Sì  [2] No"), "the buttons speak the language too")
        #expect(try runRocket(["confirm", "确定?"], stdin: "否\n", environment: ["LANG": "zh_CN.UTF-8"]).status == 1)
        #expect(try runRocket(["confirm", "确定?"], stdin: "是\n", environment: ["LANG": "zh_CN.UTF-8"]).status == 0)
        // With No first, y is still yes and n still no.
        #expect(try runRocket(["confirm", "--default", "no", "Go?"], stdin: "y\n").status == 0)
        #expect(try runRocket(["confirm", "--default", "no", "Go?"], stdin: "n\n").status == 1)
        // Anything else is still refused, and asked again.
        let r = try runRocket(["confirm", "Go?"], stdin: "maybe\ny\n")
        #expect(r.status == 0 && r.stderr.contains("Not a choice: \"maybe\""))
    }

    @Test("confirm --default no and custom titles")
    func confirmDefault() throws {
        let r = try runRocket(["confirm", "--default", "no", "--affirmative", "Ship it", "--negative", "Wait"], stdin: "1\n")
        #expect(r.status == 1 && r.stderr.hasPrefix("[1] Wait  [2] Ship it\n"))
        #expect(try runRocket(["confirm", "--default", "maybe"]).status == 64)
    }

    @Test("choose: one choice by number or title; --limit takes several in list order and refuses too many")
    func choose() throws {
        let one = try runRocket(["choose", "red", "green", "blue"], stdin: "GREEN\n")
        #expect(one.status == 0 && one.stdout == "green\n")
        #expect(one.stderr.hasPrefix("[1] red\n[2] green\n[3] blue\n"))
        let many = try runRocket(["choose", "--limit", "2", "red", "green", "blue"], stdin: "1 2 3\n3,1\n")
        #expect(many.status == 0 && many.stdout == "red\nblue\n")
        #expect(many.stderr.contains("Choose at most 2."))
        let esc = try runRocket(["choose", "a", "b"], stdin: "")
        #expect(esc.status == 1 && esc.stdout.isEmpty)
        #expect(try runRocket(["choose"]).status == 64)
        let tooMany = try runRocket(["choose"] + (0...10_000).map { "o\($0)" })
        #expect(tooMany.status == 64 && tooMany.stderr.contains("at most 10000 OPTIONs (10001 given)"), "\(tooMany.stderr)")
        #expect(try runRocket(["choose", "--limit", "0", "a"]).status == 64)
        let selected = try runRocket(["choose", "--selected", "blue", "red", "green", "blue"], stdin: "\n")
        #expect(selected.status == 0 && selected.stdout == "blue\n" && selected.stderr.contains("[3] blue ✓"))
        #expect(try runRocket(["choose", "--selected", "pink", "red"]).stderr.contains("'--selected pink' is not one of the options"))
        #expect(try runRocket(["choose", "--selected", "a", "--selected", "b", "a", "b"]).status == 64, "more than --limit")
        // --select-if-one: a single option is the answer, nothing asked or drawn; two are asked.
        let only = try runRocket(["choose", "--select-if-one"], stdin: "main\n")
        #expect(only.status == 0 && only.stdout == "main\n" && only.stderr.isEmpty, "\(only.stderr)")
        let two = try runRocket(["choose", "--select-if-one", "a", "b"], stdin: "2\n")
        #expect(two.status == 0 && two.stdout == "b\n" && two.stderr.contains("[2] b"))
        #expect(try runRocket(["choose", "--select-if-one", "--selected", "x", "only"]).status == 64)
        let hostile = try runRocket(["choose", "a\u{1B}[2Jb", "c"], stdin: "1\n")
        #expect(hostile.status == 0 && !hostile.stdout.contains("\u{1B}") && !hostile.stderr.contains("\u{1B}"))
    }

    @Test("choose --label-delimiter: the list shows labels, the value is printed; --selected and a typed line take either")
    func chooseLabels() throws {
        let args = ["choose", "--label-delimiter", ":", "Production:prod", "Staging:stage", "plain", " :bare", "Time: 10:00:t10"]
        let byNumber = try runRocket(args, stdin: "2\n")
        #expect(byNumber.status == 0 && byNumber.stdout == "stage\n")
        // The list shows the labels; an option without the delimiter, or with a blank label, shows its value.
        #expect(byNumber.stderr.hasPrefix("[1] Production\n[2] Staging\n[3] plain\n[4] bare\n[5] Time\n"), "\(byNumber.stderr)")
        #expect(try runRocket(args, stdin: "Production\n").stdout == "prod\n", "a label")
        #expect(try runRocket(args, stdin: "stage\n").stdout == "stage\n", "a value")
        #expect(try runRocket(args, stdin: "5\n").stdout == " 10:00:t10\n", "split at the first delimiter")
        let preselected = try runRocket(args + ["--selected", "prod"], stdin: "\n")
        #expect(preselected.stdout == "prod\n" && preselected.stderr.contains("[1] Production ✓"), "--selected by value")
        #expect(try runRocket(args + ["--selected", "Staging"], stdin: "\n").stdout == "stage\n", "--selected by label")
        let many = try runRocket(["choose", "--limit", "2", "--label-delimiter", "=>", "One=>1", "Two=>2", "Three=>3"], stdin: "3, Two\n")
        #expect(many.status == 0 && many.stdout == "2\n3\n", "\(many.stderr)")
        let piped = try runRocket(["choose", "--label-delimiter", "\t", "--select-if-one"], stdin: "Main branch\tmain\n")
        #expect(piped.status == 0 && piped.stdout == "main\n" && piped.stderr.isEmpty)
        #expect(try runRocket(["choose", "--label-delimiter", "", "a"]).status == 64)
        #expect(try runRocket(["choose", "--label-delimiter", String(repeating: "x", count: 65), "a"]).status == 64)
        // Without the flag, nothing is split.
        #expect(try runRocket(["choose", "A:a", "B:b"], stdin: "1\n").stdout == "A:a\n")
    }

    @Test("choose --ordered: the choices in the order they were given, with labels too; it needs a limit above one")
    func chooseOrdered() throws {
        let r = try runRocket(["choose", "--no-limit", "--ordered", "red", "green", "blue"], stdin: "3 1\n")
        #expect(r.status == 0 && r.stdout == "blue\nred\n", "\(r.stderr)")
        let labels = try runRocket(["choose", "--limit", "2", "--ordered", "--label-delimiter", ":", "Red:r", "Green:g"], stdin: "Green, r\n")
        #expect(labels.stdout == "g\nr\n", "\(labels.stderr)")
        let kept = try runRocket(["choose", "--limit", "3", "--ordered", "--selected", "c", "--selected", "a", "a", "b", "c"], stdin: "\n")
        #expect(kept.stdout == "c\na\n", "the --selected order: \(kept.stderr)")
        #expect(try runRocket(["choose", "--limit", "2", "red", "green", "blue"], stdin: "3 1\n").stdout == "red\nblue\n", "list order without it")
        let alone = try runRocket(["choose", "--ordered", "a", "b"])
        #expect(alone.status == 64 && alone.stderr.contains("--ordered goes with --limit N (above 1) or --no-limit"), "\(alone.stderr)")
    }

    @Test("choose's label split finds the first delimiter in linear time, overlapping prefixes included")
    func chooseLabelSplit() throws {
        let (labels, values) = try PromptCommands.labelled(
            ["aaab", "abaabab", "xx", "ababababc::", String(repeating: "a", count: 65_536)], delimiter: "aab", command: "choose")
        #expect(labels == ["a", "ab", "xx", "ababababc::", String(repeating: "a", count: 65_536)])
        #expect(values == ["", "ab", "xx", "ababababc::", String(repeating: "a", count: 65_536)])
        let (l2, v2) = try PromptCommands.labelled(["caf\u{E9}→café", "🇫🇷→fr"], delimiter: "→", command: "choose")
        #expect(l2 == ["café", "🇫🇷"] && v2 == ["café", "fr"])
    }

    @Test("A prompt whose standard input ends before any answer says so; with a terminal to ask on, how (< /dev/tty, as from a git hook)")
    func endedWithoutAnswer() throws {
        let said = "rocket: standard input ended before any answer, so none was given (exit 1)"
        for args in [["confirm", "Push?"], ["input", "--title", "Name"], ["choose", "a", "b"], ["alert", "--title", "Sure?", "--action", "OK"]] {
            let r = try runRocket(args, stdin: "")
            #expect(r.status == 1 && r.stdout.isEmpty && r.stderr.contains(said), "\(args): \(r.stderr)")
        }
        // An answer that was read, even one refused, is no silence: nothing more is said.
        let refused = try runRocket(["confirm", "Push?"], stdin: "maybe\n")
        #expect(refused.status == 1 && !refused.stderr.contains(said), "\(refused.stderr)")
        #expect(try !runRocket(["confirm", "Push?"], stdin: "y\n").stderr.contains(said))
        #expect(PromptCommands.endedWithoutAnswer(terminalExists: false) == said)
        // On a terminal, with standard input taken: the way to ask there.
        let dir = scratchDirectory()
        let run = try PTYRun([], shell: "'\(rocketPath)' confirm 'Push?' < /dev/null 2> '\(dir)/err.txt'; echo \"rc=$?\"")
        #expect(run.waitFor("rc=1"))
        let err = (try? String(contentsOfFile: dir + "/err.txt", encoding: .utf8)) ?? ""
        #expect(err.contains(said + "; to ask on the terminal instead (as from a git hook), add < /dev/tty"), "\(err)")
        // A flow played the same way says it too; without a terminal it says only that the input ended.
        let flow = dir + "/ask.json"
        write(#"{"version": 1, "blocks": [{"id": "q", "type": "doubleButton", "left": {"title": "Yes"}, "right": {"title": "No"}}]}"#, to: flow)
        let play = try PTYRun([], shell: "'\(rocketPath)' play '\(flow)' < /dev/null 2> '\(dir)/play.txt'; echo \"rc=$?\"")
        #expect(play.waitFor("rc=1"))
        let played = (try? String(contentsOfFile: dir + "/play.txt", encoding: .utf8)) ?? ""
        #expect(played.contains("before the conversation did, so it was closed (exit 1); to play it on the terminal instead"), "\(played)")
    }

    @Test("spin: exits with the command's status and keeps its output on the right streams")
    func spin() throws {
        let r = try runRocket(["spin", "--title", "Working", "--", "sh", "-c", "echo out; echo err >&2; exit 3"])
        #expect(r.status == 3 && r.stdout == "out\n" && r.stderr == "err\n")
        let missing = try runRocket(["spin", "--", "/nonexistent/command"])
        #expect(missing.status == 127 && missing.stderr.contains("cannot run"))
        #expect(try runRocket(["spin", "--show-after", "soon", "--", "true"]).status == 64)
    }

    @Test("$(rocket choose …): the list draws on the terminal, stdout gets only the choice")
    func chooseCapture() throws {
        let dir = scratchDirectory()
        let run = try PTYRun([], shell: "'\(rocketPath)' choose --title Color red green blue > '\(dir)/out.txt'")
        #expect(run.waitFor("blue"))
        run.send("gr")
        #expect(run.waitUntil { !run.screen.allLines.contains { $0.contains("blue") } })
        run.send("\r")
        #expect(run.waitForExit() == 0)
        #expect(try String(contentsOfFile: dir + "/out.txt", encoding: .utf8) == "green\n")
        #expect(run.terminalRestored)
    }

    @Test("list | rocket choose: the options are the lines of standard input, keys come from the terminal")
    func chooseFromInput() throws {
        let dir = scratchDirectory()
        let run = try PTYRun([], shell: "printf 'red\\n\\n  \\ngreen\\r\\nblue' | '\(rocketPath)' choose --limit 2 > '\(dir)/out.txt'")
        #expect(run.waitFor("blue"))
        #expect(run.screen.allLines.filter { $0.contains("red") || $0.contains("green") || $0.contains("blue") }.count == 3, "blank lines are no options")
        run.send("\u{1B}[B\t\u{1B}[B\t\r")
        #expect(run.waitForExit() == 0)
        #expect(try String(contentsOfFile: dir + "/out.txt", encoding: .utf8) == "green\nblue\n", "the carriage return is not part of the option")
        #expect(run.terminalRestored)

        let empty = try runRocket(["choose"], stdin: "\n \n")
        #expect(empty.status == 64 && empty.stderr.contains("standard input holds no options"))
        let tooMany = try runRocket(["choose"], stdin: (0...10_000).map { "o\($0)\n" }.joined())
        #expect(tooMany.status == 64 && tooMany.stderr.contains("at most 10000 OPTIONs"), "\(tooMany.stderr)")
        let long = try runRocket(["choose"], stdin: String(repeating: "x", count: 70_000) + "\n")
        #expect(long.status == 66 && long.stderr.contains("line 1 is longer than 65536 bytes"), "\(long.stderr)")
        // 300 options of 60,000 bytes: past the 16 MiB of options read in all (10,000 of them
        // would have held 1.2 GB).
        let large = try runRocket(["choose"], stdin: String(repeating: String(repeating: "y", count: 60_000) + "\n", count: 300))
        #expect(large.status == 64 && large.stderr.contains("at most 16 MiB of options on standard input"), "\(large.stderr)")
    }

    @Test("--timeout on a terminal: the countdown, exit 124 with the line 'timed out'; a --default answers")
    func timeoutOnTerminal() throws {
        let run = try PTYRun(["choose", "--title", "Colour", "--timeout", "1s", "red", "green"])
        #expect(run.waitFor("times out in 1s"))
        #expect(run.waitForExit() == 124)
        #expect(run.screen.allLines.contains { $0.contains("Colour") && $0.contains("timed out") })
        #expect(run.terminalRestored)
        let confirm = try PTYRun(["confirm", "--timeout", "1s", "--default", "no", "Deploy?"])
        #expect(confirm.waitFor("times out in"))
        #expect(confirm.waitForExit() == 1)
        #expect(confirm.screen.allLines.contains { $0.contains("No · timed out") })
    }

    @Test("--timeout in line mode: exit 124 and nothing on stdout, unless a valid --value or an explicit --default answers")
    func timeoutInLineMode() throws {
        /// rocket with a standard input that stays open (a script's pipe nobody writes to).
        func silent(_ args: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
            let dir = scratchDirectory()
            let p = Process()
            p.executableURL = URL(fileURLWithPath: rocketPath)
            p.arguments = args
            let input = Pipe()
            p.standardInput = input
            _ = FileManager.default.createFile(atPath: dir + "/out", contents: nil)
            _ = FileManager.default.createFile(atPath: dir + "/err", contents: nil)
            p.standardOutput = FileHandle(forWritingAtPath: dir + "/out")
            p.standardError = FileHandle(forWritingAtPath: dir + "/err")
            try p.run()
            p.waitUntilExit()
            try input.fileHandleForWriting.close()
            let read = { (name: String) in (try? String(contentsOfFile: dir + "/" + name, encoding: .utf8)) ?? "" }
            return (p.terminationStatus, read("out"), read("err"))
        }
        let choose = try silent(["choose", "--timeout", "200ms", "a", "b"])
        #expect(choose.status == 124 && choose.stdout.isEmpty && choose.stderr.contains("timed out after 0.2s"), "\(choose)")
        #expect(choose.stderr.contains("(times out in 0.2s)"))
        #expect(try silent(["confirm", "--timeout", "200ms", "Go?"]).status == 124, "never a silent yes")
        let preselected = try silent(["choose", "--limit", "3", "--selected", "c", "--selected", "a", "--timeout", "200ms", "a", "b", "c"])
        #expect(preselected.status == 0 && preselected.stdout == "a\nc\n", "--selected answers a timeout, in list order")
        let alert = try silent(["alert", "--title", "Delete?", "--action", "Delete", "--action", "Keep:cancel", "--timeout", "200ms"])
        #expect(alert.status == 124 && alert.stdout.isEmpty, "no action is chosen for the user")
        #expect(try silent(["confirm", "--timeout", "200ms", "--default", "yes", "Go?"]).status == 0)
        #expect(try silent(["confirm", "--timeout", "200ms", "--default", "no", "Go?"]).status == 1)
        let value = try silent(["input", "--timeout", "200ms", "--value", "Ada", "--required"])
        #expect(value.status == 0 && value.stdout == "Ada\n")
        let invalid = try silent(["input", "--timeout", "200ms", "--value", "Ada", "--pattern", "^[0-9]+$"])
        #expect(invalid.status == 124 && invalid.stdout.isEmpty, "a --value the rules refuse does not answer")
        let early = try silent(["input", "--timeout", "200ms", "--type", "date", "--min", "today", "--value", "2000-01-01"])
        #expect(early.status == 124 && early.stdout.isEmpty, "a --value before a bound counted from today does not answer")
        let later = try silent(["input", "--timeout", "200ms", "--type", "date", "--min", "today-100y", "--value", "2000-01-01"])
        #expect(later.status == 0 && later.stdout == "2000-01-01\n", "\(later.stderr)")
        for bad in ["0", "-1s", "soon", "1e999"] {
            #expect(try runRocket(["input", "--timeout", bad]).status == 64, "\(bad)")
        }
    }

    @Test("$(rocket input …) and $(rocket confirm …) on a terminal; Esc exits 1")
    func inputAndConfirmCapture() throws {
        let dir = scratchDirectory()
        let run = try PTYRun([], shell: "'\(rocketPath)' input --title 'Your name?' --secret > '\(dir)/out.txt'")
        #expect(run.waitFor("Your name?"))
        run.send("s3cret\r")
        #expect(run.waitForExit() == 0)
        #expect(try String(contentsOfFile: dir + "/out.txt", encoding: .utf8) == "s3cret\n")
        #expect(!run.screen.allLines.contains { $0.contains("s3cret") })
        let confirm = try PTYRun(["confirm", "Sure?"])
        #expect(confirm.waitFor("No"))
        confirm.send([0x1B])
        #expect(confirm.waitForExit() == 1)
        #expect(confirm.terminalRestored)
    }

    @Test("spin on a terminal: the spinner shows, Ctrl-C stops the command and exits 130 with the terminal restored")
    func spinInterrupt() throws {
        let run = try PTYRun(["spin", "--title", "Waiting", "--", "sleep", "30"])
        #expect(run.waitFor("Waiting"))
        run.send([0x03])
        #expect(run.waitForExit() == 130)
        #expect(run.terminalRestored)
    }

    @Test("spin: a command that reads the terminal owns it: it gets every key (Esc and Ctrl-D too), and spin ends when it ends")
    func spinCommandReadsTerminal() throws {
        let dir = scratchDirectory()
        // The command reads a line from the terminal, and a raw byte after it.
        let run = try PTYRun(
            [], shell: "'\(rocketPath)' spin --title Working -- sh -c 'read x; echo \"got $x\"; head -c 1 | od -An -tx1' > '\(dir)/out.txt'")
        #expect(run.waitFor("Working"))
        run.send("hello\r")
        run.send("\u{1B}\r")
        #expect(run.waitForExit(timeout: 5) == 0)
        let out = try String(contentsOfFile: dir + "/out.txt", encoding: .utf8)
        #expect(out.hasPrefix("got hello\n"), "\(out)")
        #expect(out.contains("1b"), "the command got the Esc: \(out)")
        #expect(run.terminalRestored)
        // The terminal was never put in raw mode nor asked anything: no mode or query bytes.
        let raw = String(decoding: run.raw, as: UTF8.self)
        #expect(!raw.contains("\u{1B}[6n") && !raw.contains("\u{1B}]11;?") && !raw.contains("\u{1B}[?2004h"))
    }

    @Test("$(rocket banner …) and $(rocket spin …): drawn on the terminal, stdout holds only the result")
    func bannerAndSpinCapture() throws {
        let dir = scratchDirectory()
        let banner = try PTYRun(
            [], environment: ["ROCKET_REDUCED_MOTION": "1"], shell: "'\(rocketPath)' banner 'New message' --button Reply --button Ignore > '\(dir)/banner.txt'")
        #expect(banner.waitFor("Ignore"))
        banner.send("\r")
        #expect(banner.waitForExit() == 0)
        #expect(try String(contentsOfFile: dir + "/banner.txt", encoding: .utf8) == "button:Reply\n")
        let spin = try PTYRun([], shell: "'\(rocketPath)' spin --title Working -- sh -c 'sleep 0.5; echo result' > '\(dir)/spin.txt'")
        #expect(spin.waitFor("Working"))
        #expect(spin.waitForExit() == 0)
        #expect(try String(contentsOfFile: dir + "/spin.txt", encoding: .utf8) == "result\n")
        #expect(spin.terminalRestored)
    }
}
