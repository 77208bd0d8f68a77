import Foundation
import Testing

@Suite("rocket test: flows' test files played, failures placed, coverage said")
struct TestCommandTests {
    static let examples = DocumentedExitStatusTests.root.appendingPathComponent("examples").path

    @Test("The examples' test files hold: every case passes, and each flow says how many of its blocks were shown")
    func examples() throws {
        let r = try runRocket(["test", Self.examples])
        #expect(r.status == 0, "\(r.stdout)\(r.stderr)")
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.examples).filter { $0.hasSuffix(".test.json") }
        #expect(files.count >= 3)
        for f in files {
            #expect(r.stdout.contains("PASS \(Self.examples)/\(f) "), "\(f)")
            let flow = String(f.dropLast(".test.json".count)) + ".json"
            #expect(r.stdout.contains("\(Self.examples)/\(flow): "), "\(flow)")
        }
        #expect(!r.stdout.contains("FAIL"))
        #expect(r.stdout.hasSuffix(" failed\n") && r.stdout.contains(", 0 failed"))
        // A flow names its own test file; lint of the folder leaves test files alone.
        #expect(try runRocket(["test", Self.examples + "/welcome.json"]).status == 0)
        #expect(try runRocket(["lint", Self.examples]).status == 0)
    }

    @Test("A failing case exits 1 and names the place of what did not hold; --json says the same for tools")
    func failing() throws {
        let dir = scratchDirectory()
        write(
            #"{"version": 1, "blocks": [{"id": "ask", "type": "doubleButton", "left": {"title": "Yes", "next": "yes"}, "right": {"title": "No", "next": "no"}}, {"id": "yes", "type": "text", "text": "Great"}, {"id": "no", "type": "text", "text": "Pity"}]}"#,
            to: dir + "/ask.json")
        write(
            """
            {"cases": [
              {"name": "yes", "answers": {"ask": "Yes"}, "expect": {"says": ["Great"]}},
              {"name": "no is great too", "answers": {"ask": "No"},
               "expect": {"says": ["Great"]}}
            ]}
            """, to: dir + "/ask.test.json")
        let r = try runRocket(["test", dir])
        #expect(r.status == 1)
        #expect(r.stdout.contains("PASS \(dir)/ask.test.json \"yes\"\n"))
        #expect(
            r.stdout.contains("FAIL \(dir)/ask.test.json \"no is great too\"\n  \(dir)/ask.test.json:4:24: no block shown says \"Great\" (it went ask → no)\n"))
        #expect(r.stdout.contains("\(dir)/ask.json: 3 of 3 blocks shown by 2 cases\n"))
        #expect(r.stdout.hasSuffix("2 cases in 1 file: 1 passed, 1 failed\n"))
        let j = try runRocket(["test", dir, "--json"])
        #expect(j.status == 1)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(j.stdout.utf8)) as? [String: Any])
        #expect(object["passed"] as? Int == 1 && object["failed"] as? Int == 1)
        let file = try #require((object["files"] as? [[String: Any]])?.first)
        let cases = try #require(file["cases"] as? [[String: Any]])
        let failure = try #require((cases[1]["failures"] as? [[String: Any]])?.first)
        #expect(failure["line"] as? Int == 4 && failure["column"] as? Int == 24)
        // Coverage names the blocks no case showed.
        write(#"{"cases": [{"name": "yes", "answers": {"ask": "Yes"}}]}"#, to: dir + "/ask.test.json")
        #expect(try runRocket(["test", dir]).stdout.contains("ask.json: 2 of 3 blocks shown by 1 case; never: \"no\"\n"))
    }

    @Test("rocket lint checks a test file as rocket test does before playing it: its shape and what it names, at their places")
    func lintChecksTests() throws {
        let dir = scratchDirectory()
        write(#"{"version": 1, "blocks": [{"id": "a", "type": "text", "text": "Hi"}]}"#, to: dir + "/a.json")
        write(#"{"cases": [{"name": "x", "expect": {"reaches": ["b"]}}]}"#, to: dir + "/a.test.json")
        let folder = try runRocket(["lint", dir])
        #expect(folder.status == 65 && folder.stdout == "\(dir)/a.test.json:1:49: error: the flow has no block \"b\" (cases[0].expect)\n", "\(folder.stdout)")
        let json = try runRocket(["lint", dir + "/a.test.json", "--json"])
        #expect(json.status == 65 && json.stdout.contains(#""code": "unknown-block""#) && json.stdout.contains(#""column": 49"#), "\(json.stdout)")
        // A flow with errors is said by its own lint; its test file says once that it cannot be checked.
        write(#"{"version": 1, "blocks": []}"#, to: dir + "/a.json")
        let broken = try runRocket(["lint", dir + "/a.test.json"])
        #expect(broken.status == 65 && broken.stdout == "\(dir)/a.test.json: error: its flow has errors (rocket lint \(dir)/a.json)\n", "\(broken.stdout)")
        write(#"{"version": 1, "blocks": [{"id": "a", "type": "text", "text": "Hi"}]}"#, to: dir + "/a.json")
        write(#"{"cases": [{"name": "x", "expect": {"reaches": ["a"]}}]}"#, to: dir + "/a.test.json")
        #expect(try runRocket(["lint", dir]).status == 0)
    }

    @Test("--junit writes the results as JUnit XML that parses, names escaped, each failure placed")
    func junit() throws {
        let dir = scratchDirectory()
        write(
            #"{"version": 1, "blocks": [{"id": "ask", "type": "doubleButton", "left": {"title": "Yes", "next": "yes"}, "right": {"title": "No", "next": "no"}}, {"id": "yes", "type": "text", "text": "Great"}, {"id": "no", "type": "text", "text": "Pity"}]}"#,
            to: dir + "/ask.json")
        let cases =
            #"{"cases": [{"name": "yes <&\"'> \u0001\uFFFF", "answers": {"ask": "Yes"}}, {"name": "no", "answers": {"ask": "No"}, "expect": {"says": ["Great"]}}]}"#
        write(cases, to: dir + "/ask.test.json")
        // The failure's column: where "Great" is written (the file is one line of ASCII).
        let column = cases.distance(from: cases.startIndex, to: cases.range(of: #"["Great"]"#)!.lowerBound) + 2
        let r = try runRocket(["test", dir, "--junit", dir + "/report.xml"])
        #expect(r.status == 1)
        let check = #"""
            import sys, xml.etree.ElementTree as E
            root = E.parse(sys.argv[1]).getroot()
            suite = root.find("testsuite")
            cases = suite.findall("testcase")
            print(root.get("tests"), root.get("failures"), suite.get("tests"), suite.get("failures"), len(cases))
            print(cases[0].get("name"))
            print(cases[0].find("failure") is None, cases[1].find("failure").text)
            """#
        let parsed = try runProgram("/usr/bin/env", ["python3", "-c", check, dir + "/report.xml"])
        #expect(parsed.status == 0, "\(parsed.stderr)")
        #expect(
            parsed.stdout
                == "2 1 2 1 2\nyes <&\"'> \u{FFFD}\u{FFFD}\nTrue \(dir)/ask.test.json:1:\(column): no block shown says \"Great\" (it went ask → no)\n",
            "\(parsed.stdout)")
        // A report that cannot be written is an error (74), said.
        let bad = try runRocket(["test", dir, "--junit", dir + "/no/such/folder/report.xml"])
        #expect(bad.status == 74 && bad.stderr.contains("cannot write"), "\(bad.stderr)")
    }

    @Test("rocket play --case-out records a session as a case that rocket test then holds: answers, start values, language, path, actions, end values")
    func recorded() throws {
        let dir = scratchDirectory()
        for f in ["welcome.json", "rocket-logo.png", "variables.json", "languages.json"] {
            try FileManager.default.copyItem(atPath: Self.examples + "/" + f, toPath: dir + "/" + f)
        }
        let sessions: [(flow: String, args: [String], stdin: String)] = [
            ("welcome", [], "\nSure\nAda Lovelace\n\n\nEnable notifications\n\n"),
            ("variables", ["--var", "visits=3", "--var", "plan=pro"], "\n2\n\n"),
            ("languages", ["--lang", "it"], "\nGrazia\n30\n\n"),
        ]
        for s in sessions {
            let r = try runRocket(
                ["play", dir + "/\(s.flow).json", "--instant", "--plain", "--case-out", dir + "/\(s.flow).case"] + s.args, stdin: s.stdin)
            #expect(r.status == 0, "\(s.flow): \(r.stderr)")
            let recorded = try String(contentsOfFile: dir + "/\(s.flow).case", encoding: .utf8)
            write(#"{"cases": [\#(recorded)]}"#, to: dir + "/\(s.flow).test.json")
        }
        let welcome = try String(contentsOfFile: dir + "/welcome.case", encoding: .utf8)
        #expect(
            welcome.contains(#""path": ["welcome", "ask", "name", "ada", "logo", "go", "done"]"#) && welcome.contains(#""actions": ["enable-notifications"]"#))
        let variables = try String(contentsOfFile: dir + "/variables.case", encoding: .utf8)
        #expect(variables.contains(#""vars": {"plan": "pro", "visits": 3}"#) && variables.contains(#""visits": 4"#), "\(variables)")
        #expect(try String(contentsOfFile: dir + "/languages.case", encoding: .utf8).contains(#""lang": "it""#))
        let replayed = try runRocket(["test", dir])
        #expect(replayed.status == 0 && replayed.stdout.hasSuffix("3 cases in 3 files: 3 passed, 0 failed\n"), "\(replayed.stdout)\(replayed.stderr)")
        // A session that did not reach its end is no case: nothing written, and it says so.
        let cut = try runRocket(["play", dir + "/welcome.json", "--instant", "--plain", "--case-out", dir + "/cut.case"], stdin: "\nSure\n")
        #expect(cut.status == 1 && cut.stderr.contains("--case-out: the conversation did not reach its end"))
        #expect(!FileManager.default.fileExists(atPath: dir + "/cut.case"))
        #expect(try runRocket(["play", dir + "/welcome.json", "--case-out", "-", "--answers-out", "-"]).status == 64)
    }

    @Test("--case plays only the cases whose name holds it, says so, and leaves coverage out; one that names none exits 66")
    func filtered() throws {
        let r = try runRocket(["test", Self.examples, "--case", "REFUSED", "--case", "vip"])
        #expect(r.status == 0, "\(r.stderr)")
        let played = r.stdout.split(separator: "\n").filter { $0.hasPrefix("PASS ") }
        #expect(played.count >= 4 && played.allSatisfy { $0.lowercased().contains("refused") || $0.lowercased().contains("vip") }, "\(r.stdout)")
        #expect(!r.stdout.contains("blocks shown"))
        #expect(r.stdout.contains("(only those named with \"refused\" or \"vip\")"))
        let none = try runRocket(["test", Self.examples, "--case", "no such case"])
        #expect(none.status == 66 && none.stderr.contains("no case's name holds \"no such case\"") && none.stdout.isEmpty)
        #expect(try runRocket(["test", Self.examples, "--case", ""]).status == 64)
    }

    @Test("Unusable input is said at its place with the documented status, never a hang: 65, 66, 64")
    func unusable() throws {
        let dir = scratchDirectory()
        write(#"{"version": 1, "blocks": [{"id": "a", "type": "text", "text": "Hi"}]}"#, to: dir + "/a.json")
        // A test file that names a block the flow does not have: 65, before anything is played.
        write(#"{"cases": [{"name": "x", "expect": {"reaches": ["b"]}}]}"#, to: dir + "/a.test.json")
        var r = try runRocket(["test", dir + "/a.json"])
        #expect(r.status == 65 && r.stderr.contains("\(dir)/a.test.json:1:49: error: the flow has no block \"b\""), "\(r.stderr)")
        #expect(r.stdout.isEmpty)
        // Not JSON: 65 at its place.
        write("{\"cases\": [", to: dir + "/a.test.json")
        r = try runRocket(["test", dir + "/a.test.json"])
        #expect(r.status == 65 && r.stderr.contains("a.test.json:1:"))
        // A flow without a test file, a folder without test files: 66.
        try FileManager.default.removeItem(atPath: dir + "/a.test.json")
        #expect(try runRocket(["test", dir + "/a.json"]).status == 66)
        r = try runRocket(["test", dir])
        #expect(r.status == 66 && r.stderr.contains("holds no test files"))
        // A FIFO where the test file is, and a flow that is a FIFO: refused at once.
        #expect(mkfifo(dir + "/a.test.json", 0o600) == 0)
        r = try runRocket(["test", dir + "/a.test.json"])
        #expect(r.status == 66 && r.stderr.contains("not a regular file"))
        try FileManager.default.removeItem(atPath: dir + "/a.test.json")
        #expect(mkfifo(dir + "/b.json", 0o600) == 0)
        write(#"{"cases": [{"name": "x"}]}"#, to: dir + "/b.test.json")
        r = try runRocket(["test", dir + "/b.test.json"])
        #expect(r.status == 66 && r.stderr.contains("b.json"))
        // An invalid flow: its own diagnostics, 65.
        write(#"{"version": 1, "blocks": []}"#, to: dir + "/c.json")
        write(#"{"cases": [{"name": "x"}]}"#, to: dir + "/c.test.json")
        r = try runRocket(["test", dir + "/c.test.json"])
        #expect(r.status == 65 && r.stderr.contains("c.json:"))
        #expect(try runRocket(["test", "-"]).status == 64)
        #expect(try runRocket(["test", dir + "/notes.txt"]).status == 66)
    }
}
