import Foundation
import RocketTestSupport
import Testing

@Suite("rocket play --answers: a flow answered ahead, unattended or in part")
struct AnswersCLITests {
    static let flow = #"""
        {"version": 1, "author": {"name": "Bot"}, "blocks": [
         {"id": "hi", "type": "text", "text": "Hello", "next": "ask"},
         {"id": "ask", "type": "doubleButton", "left": {"title": "Sure", "next": "name"}, "right": {"title": "Later"}},
         {"id": "name", "type": "textInput", "text": "Name?", "buttonTitle": "OK",
          "validate": {"pattern": "^[A-Za-z]+$", "message": "Letters only"}, "next": "thanks"},
         {"id": "thanks", "type": "text", "text": "Thanks, {{name}}!"}
        ]}
        """#

    func setUp(answers: String) -> String {
        let dir = scratchDirectory()
        write(Self.flow, to: dir + "/flow.json")
        write(answers, to: dir + "/a.json")
        return dir
    }

    @Test("With every answer given and nobody at a terminal, the flow runs to its end: taps go on by themselves, nothing is read")
    func unattended() throws {
        let dir = setUp(answers: #"{"ask": "Sure", "name": "Ada"}"#)
        let r = try runRocket(["play", dir + "/flow.json", "--answers", dir + "/a.json", "--answers-out", "-"], stdin: "")
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout == #"{"ask": "Sure", "name": "Ada"}"# + "\n")
        #expect(r.stderr == "Bot: Hello\nBot: [1] Sure  [2] Later\nyou: Sure\nBot: Name?\nyou: Ada\nBot: Thanks, Ada!\n")
    }

    @Test("What --answers-out wrote, --answers takes back: the same answers again, with the flow's variables in the file left alone")
    func roundTrip() throws {
        let dir = scratchDirectory()
        let survey = #"""
            {"version": 1, "vars": {"promoter": false}, "blocks": [
             {"id": "age", "type": "textInput", "text": "Years?", "buttonTitle": "OK", "inputType": "number", "next": "score"},
             {"id": "score", "type": "rating", "text": "Score?", "scale": 10, "next": "judge"},
             {"id": "judge", "type": "set", "set": {"promoter": "score >= 9"}, "next": "liked"},
             {"id": "liked", "type": "choice", "text": "Liked?", "multiple": true, "buttonTitle": "OK",
              "options": [{"title": "Speed"}, {"title": "Design"}, {"title": "Price"}], "next": "plan"},
             {"id": "plan", "type": "choice", "text": "Plan?", "options": [{"title": "Free", "next": "end"}, {"title": "Pro", "next": "end"}]},
             {"id": "end", "type": "text", "text": "Thanks"}
            ]}
            """#
        write(survey, to: dir + "/survey.json")
        let typed = try runRocket(["play", dir + "/survey.json", "--instant", "--answers-out", dir + "/first.json"], stdin: "2,5\n9\n1,3\n2\n\n")
        #expect(typed.status == 0, "\(typed.stderr)")
        let replayed = try runRocket(
            ["play", dir + "/survey.json", "--answers", dir + "/first.json", "--answers-out", dir + "/second.json"], stdin: "")
        #expect(replayed.status == 0, "\(replayed.stderr)")
        let first = try String(contentsOfFile: dir + "/first.json", encoding: .utf8)
        #expect(first.contains(#""liked": ["Speed", "Price"]"#) && first.contains(#""age": 2.5"#) && first.contains(#""promoter": true"#), "\(first)")
        #expect(try String(contentsOfFile: dir + "/second.json", encoding: .utf8) == first)
    }

    @Test("A refused answer is said with its place and the block is asked: the next line of input answers it")
    func refusedThenAsked() throws {
        let dir = setUp(answers: #"{"ask": "Sure", "name": "R2D2"}"#)
        let r = try runRocket(["play", dir + "/flow.json", "--answers", dir + "/a.json"], stdin: "Ada\n")
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains(dir + "/a.json:1:17: the answer for 'name' is refused: Letters only\n"), "\(r.stderr)")
        #expect(r.stderr.hasSuffix("Thanks, Ada!\n"), "\(r.stderr)")
    }

    @Test("A block the file does not answer, with the input at its end, closes the flow naming the block (exit 1)")
    func unanswered() throws {
        let dir = setUp(answers: #"{"ask": "Sure"}"#)
        let r = try runRocket(["play", dir + "/flow.json", "--answers", dir + "/a.json"], stdin: "")
        #expect(r.status == 1)
        #expect(
            r.stderr.hasSuffix("rocket: block 'name' has no answer in \(dir)/a.json, and the input ended, so the conversation was closed (exit 1)\n"),
            "\(r.stderr)")
        // Without --answers the same end names the block too.
        let plain = try runRocket(["play", dir + "/flow.json"], stdin: "\n1\n")
        #expect(plain.stderr.hasSuffix("rocket: the input ended at block 'name' before the conversation did, so it was closed (exit 1)\n"))
    }

    @Test("The end of input at a block without an answer names the blocks after it that may ask too, nearest first, so one run says all a script must give")
    func unansweredAfter() throws {
        let dir = scratchDirectory()
        write(
            #"""
            {"version": 1, "blocks": [
             {"id": "a", "type": "textInput", "text": "A?", "buttonTitle": "OK", "next": "route"},
             {"id": "route", "type": "condition", "branches": [{"if": "a == 'x'", "next": "b"}], "else": "c"},
             {"id": "b", "type": "rating", "text": "B?", "next": "d"},
             {"id": "c", "type": "choice", "text": "C?", "options": [{"title": "One", "next": "d"}, {"title": "Two", "next": "a"}]},
             {"id": "d", "type": "textInput", "text": "D?", "buttonTitle": "OK", "next": "e"},
             {"id": "e", "type": "button", "title": "Go", "next": "bye"},
             {"id": "bye", "type": "text", "text": "Bye."}
            ]}
            """#, to: dir + "/branches.json")
        let r = try runRocket(["play", dir + "/branches.json", "--answer", "b=3"], stdin: "")
        #expect(r.status == 1)
        #expect(
            r.stderr.hasSuffix(
                "rocket: block 'a' has no answer in the --answer flags, and the input ended, so the conversation was closed (exit 1);"
                    + " after it, 'c', 'd' and 'e' may ask too\n"), "\(r.stderr)")
        let one = try runRocket(["play", dir + "/branches.json", "--answer", "a=x", "--answer", "b=3", "--answer", "c=One"], stdin: "")
        #expect(
            one.stderr.hasSuffix(
                "block 'd' has no answer in the --answer flags, and the input ended, so the conversation was closed (exit 1); after it, 'e' may ask too\n"),
            "\(one.stderr)")
        // A long chain: the first eight, and how many more.
        let blocks = (0..<12).map { k in
            #"{"id": "q\#(k)", "type": "textInput", "text": "Q\#(k)?", "buttonTitle": "OK""# + (k < 11 ? #", "next": "q\#(k + 1)"}"# : "}")
        }
        write(#"{"version": 1, "blocks": ["# + blocks.joined(separator: ",\n") + "]}", to: dir + "/chain.json")
        let chain = try runRocket(["play", dir + "/chain.json", "--answer", "q5=five"], stdin: "")
        #expect(
            chain.stderr.hasSuffix("after it, 'q1', 'q2', 'q3', 'q4', 'q6', 'q7', 'q8', 'q9' and 2 more may ask too\n"), "\(chain.stderr)")
    }

    @Test("An answer is given once: a flow that loops back to its block asks the input the second time (no endless loop)")
    func givenOnce() throws {
        let dir = scratchDirectory()
        write(
            #"""
            {"version": 1, "blocks": [
             {"id": "pw", "type": "textInput", "text": "Word?", "buttonTitle": "OK", "next": "check"},
             {"id": "check", "type": "condition", "branches": [{"if": "pw == 'open'", "next": "in"}], "else": "pw"},
             {"id": "in", "type": "text", "text": "In."}
            ]}
            """#, to: dir + "/loop.json")
        write(#"{"pw": "shut"}"#, to: dir + "/a.json")
        let ended = try runRocket(["play", dir + "/loop.json", "--answers", dir + "/a.json"], stdin: "")
        #expect(ended.status == 1)
        #expect(ended.stderr.contains("block 'pw' was still waiting after its answer in"), "\(ended.stderr)")
        let typed = try runRocket(["play", dir + "/loop.json", "--answers", dir + "/a.json"], stdin: "open\n")
        #expect(typed.status == 0, "\(typed.stderr)")
    }

    @Test("--answer ID=VALUE: answers as flags, over the file's; a wrong one is a usage error (exit 64)")
    func flags() throws {
        let dir = setUp(answers: #"{"ask": "Sure", "name": "Bob"}"#)
        let r = try runRocket(
            ["play", dir + "/flow.json", "--answers", dir + "/a.json", "--answer", "name=Ada", "--answers-out", "-"], stdin: "")
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout == #"{"ask": "Sure", "name": "Ada"}"# + "\n")
        let only = try runRocket(["play", dir + "/flow.json", "--answer", "ask=Sure"], stdin: "")
        #expect(only.status == 1)
        #expect(only.stderr.contains("block 'name' has no answer in the --answer flags"), "\(only.stderr)")
        let bad = try runRocket(["play", dir + "/flow.json", "--answer", "ask=Maybe", "--answer", "nmae=Ada"], stdin: "")
        #expect(bad.status == 64)
        #expect(
            bad.stderr == """
                rocket: error: --answer: the answer for 'ask' does not fit: 'Maybe' is not one of its options: 'Sure', 'Later'
                rocket: error: --answer: the flow has no block 'nmae'; did you mean 'name'?

                """)
    }

    @Test("A file that does not fit the flow is refused before anything is shown: every problem at its place (exit 65)")
    func badFile() throws {
        let dir = setUp(answers: "{\"ask\": \"Maybe\",\n \"nmae\": \"Ada\", \"hi\": 1}")
        let r = try runRocket(["play", dir + "/flow.json", "--answers", dir + "/a.json"], stdin: "")
        #expect(r.status == 65)
        #expect(
            r.stderr == """
                \(dir)/a.json:1:9: error: the answer for 'ask' does not fit: 'Maybe' is not one of its options: 'Sure', 'Later'
                \(dir)/a.json:2:2: error: the flow has no block 'nmae'; did you mean 'name'?
                \(dir)/a.json:2:17: error: block 'hi' is a text block, which takes no answer

                """)
        #expect(try runRocket(["play", dir + "/flow.json", "--answers", dir + "/none.json"]).status == 66)
        #expect(try runRocket(["play", dir + "/flow.json", "--answers", "/dev/zero"]).status == 66)
        let both = try runRocket(["play", "-", "--answers", "-"], stdin: Self.flow)
        #expect(both.status == 64)
        #expect(both.stderr.contains("the flow and --answers cannot both be read from standard input"))
    }

    @Test("In a terminal, answers come from a pipe and keys from the terminal: the given ones are taken, the rest are asked")
    func terminal() throws {
        let dir = setUp(answers: "")
        let run = try PTYRun([], shell: "printf '{\"ask\": \"Sure\"}' | '\(rocketPath)' play '\(dir)/flow.json' --answers -")
        #expect(run.waitFor("Hello"))
        run.send("\r")  // a person is there: the text waits for their tap
        #expect(run.waitFor("Name?"))
        #expect(run.screen.allLines.contains { $0.contains("Sure") })
        run.send("Ada\r")
        #expect(run.waitFor("Thanks, Ada!"))
        run.send("\r")
        #expect(run.waitForExit() == 0)
        #expect(run.terminalRestored)
    }

    @Test("Line mode at a terminal: a given answer is printed as if typed, after its block and without a prompt; taps wait for the person")
    func plainAtTerminal() throws {
        let dir = setUp(answers: #"{"ask": "Sure", "name": "Ada"}"#)
        let run = try PTYRun(["play", dir + "/flow.json", "--plain", "--answers", dir + "/a.json"])
        #expect(run.waitFor("(press Enter to continue)"))
        run.send("\r")
        #expect(run.waitFor("Thanks, Ada!"), "\(run.screen.allLines.filter { !$0.allSatisfy(\.isWhitespace) })")
        let lines = run.screen.allLines.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        let from = try #require(lines.firstIndex(of: "Bot: [1] Sure  [2] Later"))
        #expect(Array(lines[from...].prefix(4)) == ["Bot: [1] Sure  [2] Later", "you: Sure", "Bot: Name?", "you: Ada"], "\(lines)")
        #expect(!lines.contains { $0.hasPrefix("Choose 1-2") || $0.hasPrefix("Type your answer") }, "\(lines)")
        run.send("\r")
        #expect(run.waitForExit() == 0)
    }
}
