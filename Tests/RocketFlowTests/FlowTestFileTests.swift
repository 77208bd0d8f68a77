import Foundation
import RocketConversation
import RocketCore
import RocketFlow
import RocketJSON
import RocketTestSupport
import Testing

/// A flow with a timer, a branch on an input, a choice, variables, an action and a condition.
private let shop = #"""
    {"version": 1, "vars": {"visits": 0, "plan": "free"},
     "blocks": [
      {"id": "count", "type": "set", "set": {"visits": "visits + 1"}, "next": "hi"},
      {"id": "hi", "type": "text", "text": "Hi, visit {{visits}}!", "showNextAfter": "2s", "next": "ask"},
      {"id": "ask", "type": "doubleButton", "left": {"title": "Buy", "next": "email"}, "right": {"title": "Later", "next": "bye"}},
      {"id": "email", "type": "textInput", "text": "Your email?", "buttonTitle": "Send", "inputType": "email",
       "branches": [{"when": {"matches": "@example\\.com$"}, "next": "staff"}], "next": "size"},
      {"id": "staff", "type": "text", "text": "Staff get it free."},
      {"id": "size", "type": "choice", "text": "Size?", "options": [{"title": "S", "next": "route"}, {"title": "L", "next": "route"}]},
      {"id": "route", "type": "condition", "branches": [{"if": "size == 'L'", "next": "big"}], "else": "done"},
      {"id": "big", "type": "button", "title": "Pay {{email}}", "action": "pay", "next": "done"},
      {"id": "done", "type": "set", "set": {"plan": "'paid'"}, "next": "thanks"},
      {"id": "thanks", "type": "text", "text": "Thanks on the {{plan}} plan."},
      {"id": "bye", "type": "text", "text": "Bye!"}
     ]}
    """#

private func doc(_ text: String = shop) throws -> FlowDocument {
    let r = FlowLoader.load(text)
    #expect(r.isPlayable, "\(r.diagnostics)")
    return try #require(r.document)
}

private func suite(_ text: String) throws -> FlowTestSuite {
    switch FlowTestSuite.read(Array(text.utf8)) {
    case .success(let s): return s
    case .failure(let f):
        Issue.record("the test file is refused: \(f.diagnostics.map { $0.formatted(file: "t") })")
        throw f
    }
}

/// Every case's failures, as `LINE:COL: message`.
private func failures(_ text: String, on flow: FlowDocument) throws -> [[String]] {
    let s = try suite(text)
    let problems = s.problems(against: flow)
    #expect(problems.isEmpty, "\(problems.map { $0.formatted(file: "t") })")
    return s.cases.map { c in
        c.run(on: flow) { "refused: \($0.rule)" }.failures.map {
            let (l, col) = s.place($0.offset)
            return "\(l):\(col): \($0.message)"
        }
    }
}

/// `LINE:COL` of the first `needle` in `text` after the first `anchor` (1-based; columns in
/// characters), to say where a failure must be placed without counting by hand.
private func pos(_ text: String, _ needle: String, after anchor: String = "") -> String {
    let from = anchor.isEmpty ? text.startIndex : text.range(of: anchor)!.upperBound
    let at = text.range(of: needle, range: from..<text.endIndex)!.lowerBound
    let before = text[..<at]
    let line = before.count { $0 == "\n" } + 1
    let column = before.count - (before.lastIndex(of: "\n").map { before.distance(from: before.startIndex, to: $0) + 1 } ?? 0) + 1
    return "\(line):\(column)"
}

@Suite("Flow test files (rocket test): read, checked against the flow, played headless")
struct FlowTestFileTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    @Test("A case is played with nobody there: timers at once, taps go on, answers once each; what it did is compared")
    func plays() throws {
        let flow = try doc()
        let text = #"""
            {"cases": [
              {"name": "buys a large one", "answers": {"ask": "Buy", "email": "ada@shop.test", "size": "L", "big": "Pay ada@shop.test"},
               "expect": {"path": ["hi", "ask", "email", "size", "big", "thanks"], "actions": ["pay"],
                          "vars": {"visits": 1, "plan": "paid"}, "says": ["Hi, visit 1!", "Thanks on the paid plan."]}},
              {"name": "staff", "answers": {"ask": "Buy", "email": "bob@example.com"}, "expect": {"reaches": ["staff"], "avoids": ["size"], "vars": {"plan": "free"}}},
              {"name": "later", "vars": {"visits": "4"}, "answers": {"ask": "later"}, "expect": {"path": ["hi", "ask", "bye"], "says": ["visit 5"], "actions": []}},
              {"name": "waits", "answers": {"ask": "Buy"}, "expect": {"waitingAt": "email"}},
              {"name": "refused", "answers": {"ask": "Buy", "email": "not an address"}, "expect": {"refused": "email", "end": "waiting"}}
            ]}
            """#
        #expect(try failures(text, on: flow) == [[], [], [], [], []])
        // What the run saw, for the first case.
        let s = try suite(text)
        let r = s.cases[0].run(on: flow) { _ in "" }
        #expect(r.end == .completed)
        #expect(r.shown == ["hi", "ask", "email", "size", "big", "thanks"])
        #expect(r.actions == ["pay"])
        #expect(r.variables["plan"] == .text("paid"))
        let refused = s.cases[4].run(on: flow) { "why: \($0.rule)" }
        #expect(refused.end == .waiting(at: "email") && refused.refused?.id == "email" && refused.refused?.message.hasPrefix("why: ") == true)
    }

    @Test("Each expectation that does not hold fails at its own line and column, saying what happened instead")
    func failuresArePlaced() throws {
        let flow = try doc()
        let text = #"""
            {"cases": [
              {"name": "wrong", "answers": {"ask": "Buy", "email": "ada@shop.test", "size": "S"},
               "expect": {"path": ["hi", "ask", "email", "big"],
                          "reaches": ["staff"],
                          "avoids": ["size"],
                          "vars": {"visits": 2, "plan": "paid"},
                          "actions": ["pay"],
                          "says": ["Bye"]}},
              {"name": "ends", "answers": {"ask": "Later"}, "expect": {"end": "waiting"}},
              {"name": "no answer", "answers": {"ask": "Buy"}},
              {"name": "refusal not met", "answers": {"ask": "Buy", "email": "a@b.co", "size": "S"}, "expect": {"refused": "email"}},
              {"name": "a refusal not expected", "answers": {"ask": "Buy", "email": "nope"}},
              {"name": "dead answer", "answers": {"ask": "Later", "size": "S"}},
              {"name": "not shown", "expect": {"end": "not-shown"}}
            ]}
            """#
        let got = try failures(text, on: flow)
        let went = "(it went hi → ask → email → size → thanks)"
        #expect(
            got[0] == [
                pos(text, #""big""#) + #": the path differs: block 4 is "size", not "big" "# + went,
                pos(text, #""staff""#) + #": expected it to show "staff" "# + went,
                pos(text, #""size""#, after: "avoids") + #": expected it never to show "size"; it is block 4 "# + went,
                pos(text, #""visits""#) + #": "visits" is 1, expected 2"#,
                pos(text, #"["pay"]"#) + #": expected the actions ["pay"]; they were []"#,
                pos(text, #""Bye""#) + #": no block shown says "Bye" "# + went,
            ], "\(got[0])")
        #expect(got[1] == [pos(text, #""waiting""#) + ": expected it to wait for an answer; it reached its end (it went hi → ask → bye)"])
        #expect(
            got[2] == [
                pos(text, #""no answer""#)
                    + #": expected it to reach its end; it waits at "email", which has no answer (it went hi → ask → email); give it one in "answers", or expect "waitingAt": "email""#
                    + #"; after it, "size" and "big" may ask too"#
            ])
        #expect(got[3] == [pos(text, #""email""#, after: #""refused": "#) + #": expected the answer for "email" to be refused; it was taken "# + went])
        #expect(got[4] == [pos(text, #""nope""#) + #": the answer for "email" is refused: refused: wrongType(RocketConversation.RocketInputType.email)"#])
        #expect(got[5] == [pos(text, #""size""#, after: "dead answer") + #": block "size" was answered but never asked"#])
        #expect(
            got[6] == [
                pos(text, #""not-shown""#)
                    + #": expected it not to be shown; it waits at "ask", which has no answer (it went hi → ask); give it one in "answers", or expect "waitingAt": "ask""#
                    + #"; after it, "email", "size" and "big" may ask too"#
            ])
    }

    @Test("A refusal's words are compared when the case names them")
    func refusalWords() throws {
        let flow = try doc()
        let text = #"""
            {"cases": [
              {"name": "wrong refusal", "answers": {"ask": "Buy", "email": "nope"}, "expect": {"refused": "email", "refusal": "because"}},
              {"name": "right refusal", "answers": {"ask": "Buy", "email": "nope"}, "expect": {"refused": "email", "refusal": "wrongType"}}
            ]}
            """#
        let got = try failures(text, on: flow)
        #expect(
            got == [
                [
                    pos(text, #""because""#)
                        + #": the refusal of the answer for "email" says "refused: wrongType(RocketConversation.RocketInputType.email)", not "because""#
                ],
                [],
            ])
    }

    @Test("snooze: the last snoozing press's, compared by time; none when no press snoozes; a word that is none of them is refused at its place")
    func snooze() throws {
        let flow = try doc(
            #"{"version": 1, "blocks": [{"id": "ask", "type": "doubleButton", "left": {"title": "Later", "snooze": "7d"}, "right": {"title": "Never", "snooze": "forever"}}]}"#
        )
        let text = #"""
            {"cases": [
              {"name": "a week", "answers": {"ask": "Later"}, "expect": {"snooze": "168h"}},
              {"name": "wrong", "answers": {"ask": "Later"}, "expect": {"snooze": "forever"}},
              {"name": "for good", "answers": {"ask": "Never"}, "expect": {"snooze": "forever"}},
              {"name": "none expected", "answers": {"ask": "Never"}, "expect": {"snooze": "none"}}
            ]}
            """#
        let got = try failures(text, on: flow)
        #expect(got[0].isEmpty && got[2].isEmpty, "\(got)")
        #expect(got[1] == [pos(text, #""forever""#) + #": expected the snooze "forever"; the presses left "7d" (it went ask)"#], "\(got)")
        #expect(got[3] == [pos(text, #""none""#) + #": expected the snooze "none"; the presses left "forever" (it went ask)"#], "\(got)")
        guard case .failure(let bad) = FlowTestSuite.read(Array(#"{"cases": [{"name": "x", "expect": {"snooze": "soon"}}]}"#.utf8)) else {
            Issue.record("\"soon\" was taken")
            return
        }
        #expect(bad.diagnostics.first?.message.contains("must be a duration (\"7d\"), \"forever\" or \"none\"") == true, "\(bad.diagnostics)")
    }

    @Test("Targeting: a case whose vars make when.if false is not shown, and may expect so")
    func notShown() throws {
        let flow = try doc(
            #"{"version": 1, "vars": {"plan": "free"}, "when": {"if": "plan == 'pro'"}, "blocks": [{"id": "a", "type": "text", "text": "Pro!"}]}"#)
        let got = try failures(
            #"""
            {"cases": [{"name": "free", "expect": {"end": "not-shown"}}, {"name": "pro", "vars": {"plan": "pro"}, "expect": {"path": ["a"]}},
                       {"name": "free but expected", "expect": {"reaches": ["a"]}}]}
            """#, on: flow)
        #expect(got[0] == [] && got[1] == [])
        #expect(got[2].count == 2 && got[2][0].contains(#"it is not shown: when.if "plan == 'pro'" is false"#))
    }

    @Test("An experiment's variant starts where it starts; without one the flow's own start")
    func variant() throws {
        let flow = try doc(
            #"""
            {"version": 1, "experiment": {"name": "copy", "variants": [{"name": "long", "start": "l"}, {"name": "short", "start": "s"}]},
             "start": "l", "blocks": [{"id": "l", "type": "text", "text": "Welcome to the long tour", "next": "s"}, {"id": "s", "type": "text", "text": "Hi"}]}
            """#)
        let got = try failures(
            #"""
            {"cases": [{"name": "own", "expect": {"path": ["l", "s"]}}, {"name": "short", "variant": "short", "expect": {"path": ["s"]}}]}
            """#, on: flow)
        #expect(got == [[], []])
    }

    @Test("A loop with no way out fails at the most blocks a conversation shows, in bounded time; an expression error fails the case")
    func loopsAndErrors() throws {
        let loop = try doc(#"{"version": 1, "blocks": [{"id": "a", "type": "text", "text": "again", "next": "a"}]}"#)
        let got = try failures(#"{"cases": [{"name": "forever"}]}"#, on: loop)
        #expect(
            got == [
                [#"1:21: block "a": the conversation has shown \#(RocketLimits.shownBlocks) blocks, the most one shows (a loop with no way out?)"#]
            ])
        // A loop of timers, which lint refuses, ends there too.
        let timed = try #require(
            FlowLoader.load(#"{"version": 1, "blocks": [{"id": "a", "type": "text", "text": "again", "showNextAfter": 1, "next": "a"}]}"#).document)
        let run = try suite(#"{"cases": [{"name": "forever"}]}"#).cases[0].run(on: timed) { _ in "" }
        #expect(run.shown.count == RocketLimits.shownBlocks)
        let failing = try doc(
            #"{"version": 1, "vars": {"n": 0}, "blocks": [{"id": "a", "type": "set", "set": {"n": "n / 0"}, "next": "b"}, {"id": "b", "type": "text", "text": "{{n}}"}]}"#
        )
        let e = try failures(#"{"cases": [{"name": "divides"}]}"#, on: failing)
        #expect(e.count == 1 && e[0].count == 1 && e[0][0].hasPrefix(#"1:21: block "a": set.n: "#), "\(e)")
    }

    @Test("The shape is read strictly: every problem at its line and column, in file order")
    func shape() throws {
        func problems(_ text: String) -> [String] {
            switch FlowTestSuite.read(Array(text.utf8)) {
            case .success: return []
            case .failure(let f): return f.diagnostics.map { "\($0.line ?? 0):\($0.column ?? 0): \($0.message)" }
            }
        }
        #expect(problems("") == ["1:1: the file is empty; expected a JSON object"])
        #expect(problems("[]") == ["1:1: a test file must be an object, not array"])
        #expect(problems(#"{"cases": []}"#) == [#"1:11: "cases" must hold at least one case"#])
        let text = #"""
            {"cases": [{"name": "a", "expect": {"ends": "completed", "end": "maybe", "path": [1], "refused": "x", "waitingAt": "y"}},
              {"name": "a", "answers": {"q": {}}, "vars": [], "lang": "english"}], "flows": 1}
            """#
        #expect(
            problems(text) == [
                pos(text, #""ends""#) + #": unknown field "ends" in "expect"; did you mean "end"?"#,
                pos(text, #""maybe""#) + #": cases[0].expect.end must be one of completed, waiting, not-shown, not "maybe""#,
                pos(text, "1]") + #": "path[0]" must be a string, not number"#,
                pos(text, #""x""#)
                    + ": cases[0].expect.refused and cases[0].expect.waitingAt name different blocks: the case waits where the answer is refused",
                pos(text, #""a""#, after: "}},") + #": the case "a" is named twice (cases[0] has the name)"#,
                pos(text, "{}") + #": the answer for "q" is object"#,
                pos(text, "[]") + ": cases[1].vars must be an object of variables and values, not array",
                pos(text, #""english""#) + #": "english" is not a language tag (en, it, pt-BR)"#,
                pos(text, #""flows""#) + #": unknown field "flows" in a test file; did you mean "flow"?"#,
            ], "\(problems(text))")
        // Past the limit of cases: one error at the first case too many.
        let many = "{\"cases\": [" + (0...RocketLimits.flowTestCases).map { "{\"name\": \"c\($0)\"}" }.joined(separator: ",") + "]}"
        #expect(problems(many).count == 1 && problems(many)[0].contains("at most \(RocketLimits.flowTestCases) cases"))
    }

    @Test("Checked against the flow before anything is played: ids, variables, answers, languages and variants")
    func checkedAgainstTheFlow() throws {
        let flow = try doc()
        let text = #"""
            {"cases": [{"name": "a", "answers": {"nope": "x", "ask": "Maybe", "hi": "x", "visits": 3, "size": ["S"]},
                        "vars": {"visits": "many", "ghost": 1}, "lang": "fr", "variant": "b",
                        "expect": {"path": ["count", "zzz"], "waitingAt": "route", "vars": {"q": 1}}}]}
            """#
        let s = try suite(text)
        let got = s.problems(against: flow).map { "\($0.line ?? 0):\($0.column ?? 0): \($0.message)" }
        #expect(
            got == [
                pos(text, #""nope""#) + ": the flow has no block 'nope'",
                pos(text, #""Maybe""#) + ": the answer for 'ask' does not fit: 'Maybe' is not one of its options: 'Buy', 'Later'",
                pos(text, #""hi""#) + ": block 'hi' is a text block, which takes no answer",
                pos(text, #""visits""#) + #": "visits" is a variable: give it in "vars""#,
                pos(text, #"["S"]"#) + ": the answer for 'size' does not fit: a choice's answer is an option's title, a string",
                pos(text, #""visits""#, after: "\"vars\"") + #": "visits" holds a number, not "many""#,
                pos(text, #""ghost""#) + #": the flow has no variable "ghost""#,
                pos(text, #""fr""#) + #": the flow is written in one language; it has no "languages""#,
                pos(text, #""b""#, after: "variant") + ": the flow has no experiment",
                pos(text, #""count""#) + #": block "count" is never shown (a set, condition or jump block)"#,
                pos(text, #""zzz""#) + #": the flow has no block "zzz""#,
                pos(text, #""route""#) + #": block "route" is never shown (a set, condition or jump block)"#,
                pos(text, #""q""#) + #": the flow has no variable "q""#,
            ], "\(got)")
    }

    @Test("The committed schema is what the tables make, and it refuses what the reader refuses by shape (jsonschema, draft 2020-12)")
    func schema() throws {
        let url = Self.root.appendingPathComponent("schema/flow-tests-v1.schema.json")
        let made = FlowTestFormat.jsonSchema.serialized() + "\n"
        if ProcessInfo.processInfo.environment["ROCKET_UPDATE_GOLDEN"] == "1" { try made.write(to: url, atomically: true, encoding: .utf8) }
        #expect(try String(contentsOf: url, encoding: .utf8) == made, "run ROCKET_UPDATE_GOLDEN=1 swift test --filter FlowTestFileTests")
        let dir = Self.root.appendingPathComponent("examples")
        var good: [String] = []
        for f in try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted() where f.hasSuffix(FlowTestFormat.suffix) {
            good.append(try String(contentsOf: dir.appendingPathComponent(f), encoding: .utf8))
        }
        #expect(good.count >= 3)
        let full = #"""
            {"$schema": "x", "flow": "f.json", "cases": [{"name": "a", "answers": {"b": "t", "c": 3, "d": ["x"], "e": null, "f": true}, "vars": {"v": 1},
              "lang": "pt-BR", "variant": "v1", "expect": {"end": "waiting", "waitingAt": "b", "refused": "b", "refusal": "no", "path": ["b"],
              "reaches": ["b"], "avoids": ["c"], "vars": {"v": "x"}, "actions": ["go"], "says": ["hi"]}}]}
            """#
        good.append(full)
        // One change each that the shape refuses.
        let bad: [(String, String)] = [
            (#"{"cases": [{"name": "a"}], "extra": 1}"#, "an unknown top-level key"),
            (#"{"cases": []}"#, "no cases"),
            (#"{"cases": {}}"#, "cases not an array"),
            (#"{"flow": "", "cases": [{"name": "a"}]}"#, "an empty flow"),
            (#"{"flow": 3, "cases": [{"name": "a"}]}"#, "a flow not a string"),
            (#"{"cases": [{}]}"#, "a case without a name"),
            (#"{"cases": [{"name": ""}]}"#, "an empty name"),
            (#"{"cases": [{"name": "a", "x": 1}]}"#, "an unknown key in a case"),
            (#"{"cases": [{"name": "a", "answers": {"b": {}}}]}"#, "an answer that is an object"),
            (#"{"cases": [{"name": "a", "answers": {"b": [1]}}]}"#, "a list answer of numbers"),
            (#"{"cases": [{"name": "a", "answers": []}]}"#, "answers not an object"),
            (#"{"cases": [{"name": "a", "vars": {"v": {}}}]}"#, "a value that is an object"),
            (#"{"cases": [{"name": "a", "lang": "english"}]}"#, "a bad language tag"),
            (#"{"cases": [{"name": "a", "variant": ""}]}"#, "an empty variant"),
            (#"{"cases": [{"name": "a", "expect": {"end": "done"}}]}"#, "an unknown end"),
            (#"{"cases": [{"name": "a", "expect": {"path": [1]}}]}"#, "a path of numbers"),
            (#"{"cases": [{"name": "a", "expect": {"says": [""]}}]}"#, "an empty text to find"),
            (#"{"cases": [{"name": "a", "expect": {"waitingAt": ""}}]}"#, "an empty block id"),
            (#"{"cases": [{"name": "a", "expect": {"why": 1}}]}"#, "an unknown key in expect"),
            (#"{"cases": [{"name": "a", "expect": []}]}"#, "expect not an object"),
        ]
        for text in good {
            if case .failure(let f) = FlowTestSuite.read(Array(text.utf8)) { Issue.record("the reader refuses a good file: \(f.diagnostics)") }
        }
        for (text, what) in bad {
            if case .success = FlowTestSuite.read(Array(text.utf8)) { Issue.record("the reader accepts \(what)") }
        }
        let verdicts = try JSONSchemaCheck.run(schema: made, documents: good + bad.map(\.0))
        for (k, text) in good.enumerated() { #expect(verdicts[k], "the schema refuses a good file: \(text.prefix(200))") }
        for (k, (_, what)) in bad.enumerated() { #expect(!verdicts[good.count + k], "the schema accepts \(what)") }
    }

    @Test("docs/FLOW_TESTS.md's reference is what the format's table makes")
    func reference() throws {
        try expectGeneratedSection(
            Self.root.appendingPathComponent("docs/FLOW_TESTS.md"), named: "TEST REFERENCE", equals: FlowTestFormat.referenceMarkdown,
            update: "FlowTestFileTests")
    }
}
