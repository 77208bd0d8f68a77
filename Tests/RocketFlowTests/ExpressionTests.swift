import RocketConversation
import RocketCore
import RocketJSON
import Testing

@testable import RocketFlow

/// The expression language: values, operators, functions, errors as values, limits.
@Suite("Expressions")
struct ExpressionTests {
    static let vars: [String: RocketValue] = [
        "visits": .number(4), "plan": .text("pro"), "beta": .bool(false), "age": .number(17), "name": .text("  Ada Lovelace "),
        "toppings": .list(["Tea", "Cake"]), "zero": .number(0), "my-id": .text("dash"),
    ]

    func eval(_ source: String) -> Result<RocketValue, RocketExpressionError> {
        RocketExpression(source).evaluate { Self.vars[$0] }
    }

    func value(_ source: String) -> RocketValue? {
        if case .success(let v) = eval(source) { return v }
        return nil
    }

    func errorCode(_ source: String) -> String? {
        if case .failure(let e) = eval(source) { return e.code }
        return nil
    }

    @Test(
        "operators and functions give what they say",
        arguments: [
            ("visits > 3 and plan == 'pro'", RocketValue.bool(true)),
            ("visits + 1", .number(5)),
            ("7 % 3 + 10 / 4", .number(3.5)),
            ("-visits * 2", .number(-8)),
            ("2 + 3 * 4", .number(14)),
            ("(2 + 3) * 4", .number(20)),
            ("'Hi ' + upper(plan)", .text("Hi PRO")),
            ("not beta", .bool(true)),
            ("not visits > 3", .bool(false)),
            ("age >= 18 or plan != 'free'", .bool(true)),
            ("'Tea' in toppings", .bool(true)),
            ("'Milk' not in toppings", .bool(true)),
            ("'Love' in name", .bool(true)),
            ("length(toppings)", .number(2)),
            ("length(trim(name))", .number(12)),
            ("lower(trim(name)) == 'ada lovelace'", .bool(true)),
            ("contains(name, 'Ada')", .bool(true)),
            ("contains(toppings, 'Cake')", .bool(true)),
            ("number('2.5') * 2", .number(5)),
            ("text(visits) + '!'", .text("4!")),
            ("missing == null", .bool(true)),
            ("`my-id` == 'dash'", .bool(true)),
            ("'b' > 'a' and \"x\" == 'x'", .bool(true)),
            ("1e3 == 1000", .bool(true)),
            ("3 == '3'", .bool(false)),
            ("'it\\'s' == \"it's\"", .bool(true)),
        ])
    func values(source: String, expected: RocketValue) {
        #expect(value(source) == expected, "\(source)")
    }

    @Test("errors are values: and/or pass over the side they do not need, as a short circuit would")
    func shortCircuit() {
        #expect(value("zero != 0 and 10 / zero > 1") == .bool(false))
        #expect(value("zero == 0 or 10 / zero > 1") == .bool(true))
        #expect(errorCode("zero == 0 and 10 / zero > 1") == "division-by-zero")
        #expect(errorCode("10 % zero") == "division-by-zero")
        #expect(errorCode("missing > 3") == "type")
        #expect(errorCode("plan + 1") == "type")
        #expect(errorCode("number('abc')") == "not-a-number")
        #expect(errorCode("1e308 * 10") == "out-of-range")
        // A condition that is not true or false counts as false, with the reason.
        let (holds, error) = RocketExpression("visits").test { Self.vars[$0] }
        #expect(!holds && error?.code == "type")
        // Messages name kinds of values, never the values (they reach event records).
        if case .failure(let e) = eval("plan - 1") {
            #expect(!e.message.contains("pro"))
        }
    }

    @Test(
        "syntax errors say what is wrong and where",
        arguments: [
            ("", "the expression is empty", 0),
            ("visits >", "the expression ends where a value is missing", 8),
            ("visits = 3", "\"=\" alone is not an operator", 7),
            ("a && b", "\"&\" is not an operator", 2),
            ("!beta", "\"!\" is not an operator", 0),
            ("(visits > 3", "this \"(\" is never closed", 0),
            ("visits > 3)", "\")\" closes nothing", 10),
            ("1 < visits < 9", "comparisons do not chain", 11),
            ("plan plan", "an operator is missing before \"plan\"", 5),
            ("lenght(plan)", "there is no function \"lenght\" (did you mean length?)", 0),
            ("contains(plan)", "contains takes 2 values, not 1", 0),
            ("'open", "this text is not closed", 0),
            ("3abc", "\"3a\" is not a number", 0),
            ("a, b", "\",\" separates the values of a function call only", 1),
            ("visits not 3", "\"not\" after a value must be \"not in\"", 7),
        ])
    func syntax(source: String, message: String, offset: Int) {
        let e = RocketExpression(source).syntaxError
        #expect(e?.message.contains(message) == true, "\(source): \(e?.message ?? "no error")")
        #expect(e?.offset == offset, "\(source)")
    }

    @Test(
        "numbers rounded, bounded and chosen; texts' ends; if(…) takes one side",
        arguments: [
            ("round(2.5)", RocketValue.number(3)),
            ("round(-2.5)", .number(-3)),
            ("round(10 / 3, 2)", .number(3.33)),
            ("round(1.005, 2)", .number(1.01)),
            ("round(-1.005, 2)", .number(-1.01)),
            ("round(2.675, 2)", .number(2.68)),
            ("round(0.285, 2)", .number(0.29)),
            ("round(1.004999, 2)", .number(1)),
            ("round(2251799813685249)", .number(2_251_799_813_685_249)),
            ("round(1125899906842624.25)", .number(1_125_899_906_842_624)),
            ("round(0.1 + 0.2, 1)", .number(0.3)),
            ("round(1234.5, -2)", .number(1200)),
            ("round(1250, -2)", .number(1300)),
            ("round(visits / 3, 0)", .number(1)),
            ("floor(-2.5)", .number(-3)),
            ("ceil(2.1)", .number(3)),
            ("abs(-visits)", .number(4)),
            ("min(visits, 3)", .number(3)),
            ("max(visits, 3)", .number(4)),
            ("max('2026-01-31', '2026-02-01')", .text("2026-02-01")),
            ("min(plan, 'basic')", .text("basic")),
            ("startsWith(plan, 'pr')", .bool(true)),
            ("endsWith(trim(name), 'lace')", .bool(true)),
            ("endsWith(plan, 'pros')", .bool(false)),
            ("startsWith(plan, '')", .bool(true)),
            ("matches(plan, '^p')", .bool(true)),
            ("matches(plan, '^P')", .bool(false)),
            ("matches(plan, '(?i)^P')", .bool(true)),
            ("matches(trim(name), '^Ada \\\\w+$')", .bool(true)),
            ("matches('ab', 'x') or matches('ab', 'x')", .bool(false)),
            ("replace(plan, 'p', 'P')", .text("Pro")),
            ("replace('a-b-c', '-', '')", .text("abc")),
            ("replace('aaa', 'aa', 'b')", .text("ba")),
            ("replace(plan, '', 'x')", .text("pro")),
            ("replace('x', 'x', '')", .text("")),
            ("replace('café au lait', 'é', 'e')", .text("cafe au lait")),
            ("if(visits > 3, 'back', 'new')", .text("back")),
            ("if(beta, 1, 2) + 1", .number(3)),
            ("if(zero == 0, 0, 10 / zero)", .number(0)),
            ("if(zero != 0, 10 / zero, -1)", .number(-1)),
            ("if(true, null, 'x') == null", .bool(true)),
        ])
    func moreFunctions(source: String, expected: RocketValue) {
        #expect(value(source) == expected, "\(source): \(eval(source))")
    }

    @Test("the new functions' errors: wrong types, digits out of range, too many or too few values")
    func moreFunctionErrors() {
        #expect(errorCode("round(plan)") == "type")
        #expect(errorCode("round(2.5, 1.5)") == "out-of-range")
        #expect(errorCode("round(2.5, 16)") == "out-of-range")
        #expect(errorCode("round(1e308, -15)") == nil, "a large number rounded to tens of digits is still a number")
        #expect(errorCode("min(visits, plan)") == "type")
        #expect(errorCode("if(visits, 1, 2)") == "type")
        #expect(errorCode("if(zero == 0, 10 / zero, 1)") == "division-by-zero", "the side taken keeps its error")
        #expect(errorCode("if(10 / zero > 1, 1, 2)") == "division-by-zero")
        #expect(errorCode("startsWith(toppings, 'Tea')") == "type")
        #expect(errorCode("replace(plan, 1, 'x')") == "type")
        #expect(errorCode("matches(visits, 'x')") == "type")
        // The pattern is a text in quotes, compiled once with the expression (lint compiles it).
        #expect(RocketExpression("matches(plan, plan)").syntaxError?.message.contains("takes its pattern as a text in quotes") == true)
        #expect(RocketExpression("matches(plan, 'a' + 'b')").syntaxError?.code == "syntax")
        let bad = RocketExpression("matches(plan, '(unclosed')").syntaxError
        #expect(bad?.code == "bad-pattern" && bad?.offset == 14 && bad?.message.contains("does not compile") == true, "\(String(describing: bad))")
        // A pattern that backtracks without end stops at its step limit: an error, the condition false.
        let catastrophic = RocketExpression("matches(t, '^(a+)+$')")
        let slow = catastrophic.evaluate { $0 == "t" ? .text(String(repeating: "a", count: 40) + "!") : nil }
        if case .failure(let e) = slow { #expect(e.code == "pattern-limit") } else { Issue.record("\(slow)") }
        #expect(catastrophic.test { $0 == "t" ? .text(String(repeating: "a", count: 40) + "!") : nil }.0 == false)
        #expect(RocketExpression("matches(t, '^(a+)+$')").evaluate { $0 == "t" ? .text("aaaa") : nil } == .success(.bool(true)))
        // A text that would grow past the limit is refused before it is made; a hostile part in a
        // long text is sought in linear time.
        let long = String(repeating: "a", count: 60_000)
        let grown = RocketExpression("replace(t, 'a', w)").evaluate { ["t": .text(long), "w": .text(String(repeating: "b", count: 10))][$0] }
        if case .failure(let e) = grown { #expect(e.code == "out-of-range") } else { Issue.record("\(grown)") }
        let hostile = RocketExpression("replace(t, p, 'x')").evaluate { ["t": .text(long), "p": .text(String(repeating: "a", count: 500) + "b")][$0] }
        #expect(hostile == .success(.text(long)))
        let three = RocketExpression("round(1, 2, 3)").syntaxError
        #expect(three?.message.contains("round takes 1 or 2 values, not more") == true, "\(String(describing: three))")
        #expect(three?.offset == 10, "said at the comma before the third value")
        #expect(RocketExpression("if(true, 1)").syntaxError?.message.contains("if takes 3 values, not 2") == true)
        #expect(RocketExpression("round()").syntaxError?.message.contains("round takes 1 or 2 values") == true)
        #expect(RocketExpression("abs(1, 2)").syntaxError?.message.contains("abs takes 1 value, not more") == true)
        // A name that is also a function's is still a name when no "(" follows it.
        #expect(RocketExpression("if + 1").evaluate { $0 == "if" ? .number(1) : nil } == .success(.number(2)))
    }

    @Test("limits: 1 KiB, nesting 32; long texts and many operators stay bounded")
    func limits() {
        #expect(RocketExpression(String(repeating: "1+", count: 600) + "1").syntaxError?.code == "too-long")
        let deep = String(repeating: "(", count: 40) + "1" + String(repeating: ")", count: 40)
        #expect(RocketExpression(deep).syntaxError == nil, "parentheses alone do not nest values")
        let nots = String(repeating: "not ", count: 40) + "true"
        #expect(RocketExpression(nots).syntaxError?.code == "too-deep")
        let calls = String(repeating: "lower(", count: 33) + "'a'" + String(repeating: ")", count: 33)
        #expect(RocketExpression(calls).syntaxError?.code == "too-deep")
        // A part sought in a long text: time in proportion to the lengths, whatever they hold.
        let long = String(repeating: "a", count: 200_000)
        let needle = String(repeating: "a", count: 500) + "b"
        #expect(RocketExpression("contains(t, p)").evaluate { ["t": .text(long), "p": .text(needle)][$0] } == .success(.bool(false)))
    }

    @Test("random token strings give an error or a value, never a trap, in bounded time")
    func fuzz() {
        let tokens = [
            "a", "b", "1", "2.5", "'x'", "\"y\"", "true", "null", "(", ")", ",", "+", "-", "*", "/", "%", "==", "!=", "<", ">=", "and", "or",
            "not", "in", "lower(", "length(", "contains(", "number(", "text(", "`q`", "=", "!", "&", "'", "`", "1e", "..", "é", "round(", "if(", "matches(",
            "min(", "startsWith(", "abs(",
        ]
        var rng = SplitMix(seed: 23)
        for _ in 0..<20_000 {
            let n = Int(rng.next() % 24)
            let source = (0..<n).map { _ in tokens[Int(rng.next() % UInt64(tokens.count))] }.joined(separator: rng.next() % 3 == 0 ? "" : " ")
            let e = RocketExpression(source)
            _ = e.evaluate { ["a": .number(1), "b": .text("b")][$0] }
            _ = e.check { _ in .known(nil) }
        }
    }

    @Test("the checker sees unknown names and mismatched types")
    func check() {
        func problems(_ source: String) -> [String] {
            RocketExpression(source).check { name in
                switch name {
                case "visits": return .known(.number)
                case "plan": return .known(.text)
                case "toppings": return .known(.list)
                default: return .unknown(suggestion: name == "vists" ? "visits" : nil)
                }
            }.problems.map(\.message)
        }
        #expect(problems("visits > 3 and plan == 'pro'").isEmpty)
        #expect(problems("vists > 3") == ["\"vists\" is no variable or answer of this flow (did you mean \"visits\"?)"])
        #expect(problems("plan == 3").first?.contains("never equal") == true)
        #expect(problems("plan + 1").first?.contains("adds two numbers or joins two texts") == true)
        #expect(problems("visits and true").first?.contains("needs true or false") == true)
        #expect(problems("'Tea' in plan").isEmpty)
        #expect(problems("3 in toppings").first?.contains("looks for a text") == true)
        #expect(problems("length(visits)").first?.contains("length(text or list)") == true)
        #expect(problems("round(plan, 2)") == ["round(number) or round(number, whole number of digits) is given a text and a number"])
        #expect(problems("min(visits, plan)").first?.contains("two numbers or two texts") == true)
        #expect(problems("if(visits, 1, 2)") == ["if(…) needs true or false first, not a number"])
        #expect(problems("if(visits > 1, 1, plan)") == ["if(…) gives a number on one side and a text on the other: give both one type"])
        #expect(problems("if(visits > 1, plan, null)").isEmpty)
        #expect(problems("startsWith(plan, 'p') and endsWith(plan, 'o')").isEmpty)
        #expect(problems("matches(visits, 'x')") == ["matches(text, pattern in quotes) is given a number and a text"])
        #expect(problems("replace(plan, 'p', visits)") == ["replace(text, text, text) is given a text, a text and a number"])
        func type(_ source: String) -> RocketValueType? {
            RocketExpression(source).check { $0 == "plan" ? .known(.text) : .known(.number) }.type
        }
        #expect(type("if(visits > 1, plan, null)") == .text)
        #expect(type("max(visits, 2)") == .number)
        #expect(type("round(visits / 3, 1)") == .number)
        #expect(type("endsWith(plan, 'x')") == .bool)
        #expect(RocketExpression("visits + 1").check { _ in .known(.number) }.type == .number)
    }
}

/// Variables, set and condition blocks in the engine, the loader and lint.
@Suite("Set and condition blocks")
struct SetConditionTests {
    func play(_ json: String, vars: [String: RocketValue] = [:]) throws -> (Conversation, [RocketEvent]) {
        let doc = try #require(FlowLoader.load(json).document)
        let start = try doc.startValues(vars).get()
        var c = try #require(
            doc.makeConversation(options: ConversationOptions(timing: .instant, initialAnswers: start.answers, initialVariables: start.variables)))
        var events = c.start(at: 0).events
        events += c.advance(to: 0).events
        return (c, events)
    }

    static let branching = #"""
        {"version": 1,
         "vars": {"plan": "free", "visits": 0},
         "blocks": [
          {"id": "s", "type": "set", "set": {"visits": "visits + 1"}, "next": "c"},
          {"id": "c", "type": "condition",
           "branches": [{"if": "visits > 3 and plan == 'pro'", "next": "vip"}, {"if": "visits > 3", "next": "regular"}],
           "else": "new"},
          {"id": "vip", "type": "text", "text": "Welcome back, VIP ({{visits}})"},
          {"id": "regular", "type": "text", "text": "Hello again ({{visits}} visits)"},
          {"id": "new", "type": "text", "text": "Nice to meet you"}
         ]}
        """#

    @Test(
        "the first true branch wins, else goes to else; values are typed from --var text",
        arguments: [
            ([String: RocketValue](), "Nice to meet you", nil as Int?),
            (["visits": .text("3")], "Hello again (4 visits)", 1),
            (["visits": .number(9), "plan": .text("pro")], "Welcome back, VIP (10)", 0),
        ])
    func branches(vars: [String: RocketValue], shown: String, branch: Int?) throws {
        let (c, events) = try play(Self.branching, vars: vars)
        #expect(c.transcript == [.block(index: 0, node: RocketNodeID(c.nodeID(at: 0).rawValue), text: shown)])
        #expect(events.contains(.variableSet(name: "visits", blockID: "s")))
        #expect(events.contains(.conditionTaken(blockID: "c", branch: branch)))
        #expect(c.shownCount == 1, "set and condition blocks are never shown")
    }

    @Test("a value of the wrong type for a variable is refused with a sentence naming it")
    func wrongType() throws {
        let doc = try #require(FlowLoader.load(Self.branching).document)
        guard case .failure(let p) = doc.startValues(["visits": .text("many")]) else {
            Issue.record("accepted")
            return
        }
        #expect(p.message == "\"visits\" holds a number, not \"many\"")
        guard case .failure(let q) = doc.startValues(["plan": .bool(true)]) else {
            Issue.record("accepted")
            return
        }
        #expect(q.message == "\"plan\" holds a text, not true or false")
    }

    @Test("a run-time error is an expressionError event: the condition is false, the variable keeps its value")
    func runtimeErrors() throws {
        let json = #"""
            {"version": 1, "vars": {"n": 0, "ratio": 1},
             "blocks": [
              {"id": "s", "type": "set", "set": {"ratio": "10 / n"}, "next": "c"},
              {"id": "c", "type": "condition", "branches": [{"if": "10 / n > 1", "next": "big"}], "else": "small"},
              {"id": "big", "type": "text", "text": "big"},
              {"id": "small", "type": "text", "text": "ratio {{ratio}}"}
             ]}
            """#
        let (c, events) = try play(json)
        #expect(c.blocks.first?.rawText == "ratio {{ratio}}")
        #expect(c.transcript.first.map { if case .block(_, _, let t) = $0 { t } else { "" } } == "ratio 1")
        let errors = events.compactMap { e -> String? in
            if case .expressionError(let id, let path, let error) = e { return "\(id ?? "") \(path) \(error.code)" }
            return nil
        }
        #expect(errors == ["s set.ratio division-by-zero", "c branches[0].if division-by-zero"])
        #expect(events.contains(.conditionTaken(blockID: "c", branch: nil)))
        #expect(
            RocketEvent.expressionError(blockID: "s", path: "set.ratio", error: RocketExpressionError(code: "x", message: "m", offset: 0)).recordText
                == #"{"event":"expressionError","id":"s","path":"set.ratio","code":"x","message":"m"}"#)
    }

    @Test("a loop of silent blocks stops after the limit with an expressionError, and the conversation ends")
    func loopStops() throws {
        let json = #"""
            {"version": 1, "vars": {"i": 0},
             "blocks": [
              {"id": "s", "type": "set", "set": {"i": "i + 1"}, "next": "c"},
              {"id": "c", "type": "condition", "branches": [{"if": "i < 1000000", "next": "s"}], "else": "done"},
              {"id": "done", "type": "text", "text": "done"}
             ]}
            """#
        let (c, events) = try play(json)
        #expect(c.shownCount == 0)
        #expect(c.status.reason == .completed)
        #expect(events.contains { if case .expressionError(_, _, let e) = $0 { e.code == "loop" } else { false } })
        #expect(c.variables["i"] == .number(Double(RocketLimits.silentSteps / 2)))
    }

    @Test(
        "matches(…) takes its steps from a budget: an ordinary match is charged the probe, a hostile one the probe and the limit, and too few left is pattern-budget"
    )
    func patternBudget() throws {
        let e = RocketExpression("matches(t, '^(a+)+$')")
        let hostile: (String) -> RocketValue? = { $0 == "t" ? .text(String(repeating: "a", count: 40) + "!") : nil }
        let plain: (String) -> RocketValue? = { $0 == "t" ? .text("aaaa") : nil }
        let probe = RocketLimits.expressionPatternProbeSteps, limit = RocketLimits.expressionPatternSteps
        var left = 100_000
        #expect(e.evaluate(plain, patternSteps: &left) == .success(.bool(true)))
        #expect(left == 100_000 - probe)
        left = 100_000
        if case .failure(let x) = e.evaluate(hostile, patternSteps: &left) { #expect(x.code == "pattern-limit") } else { Issue.record("no error") }
        #expect(left == 100_000 - probe - limit)
        // Enough for the probe but not for the limit: the match stops where the budget does.
        left = probe + limit / 2
        if case .failure(let x) = e.evaluate(hostile, patternSteps: &left) { #expect(x.code == "pattern-budget") } else { Issue.record("no error") }
        #expect(left == 0)
        // Nothing left: not run at all, whatever the text.
        if case .failure(let x) = e.evaluate(plain, patternSteps: &left) { #expect(x.code == "pattern-budget") } else { Issue.record("no error") }
        // Fewer than the probe's steps left: an ordinary match still finishes within them.
        left = 50
        #expect(e.evaluate(plain, patternSteps: &left) == .success(.bool(true)))
        #expect(left == 0)
        // `and` evaluates both sides, so a match is charged even where the other side decides.
        left = 10
        #expect(RocketExpression("1 > 2 and matches(t, 'a')").evaluate(plain, patternSteps: &left) == .success(.bool(false)))
        #expect(left == 0)
    }

    @Test("a timed loop matching a hostile answer ends: its matches stop at the conversation's budget, its blocks at the most one shows")
    func hostileTimedLoop() throws {
        let json = #"""
            {"version": 1,
             "blocks": [
              {"id": "name", "type": "textInput", "text": "Name?", "buttonTitle": "OK", "next": "t"},
              {"id": "t", "type": "text", "text": "checking", "showNextAfter": "1ms", "next": "c"},
              {"id": "c", "type": "condition", "branches": [{"if": "matches(name, '^(a+)+$')", "next": "done"}], "else": "t"},
              {"id": "done", "type": "text", "text": "done"}
             ]}
            """#
        var (c, events) = try play(json)
        events += try c.send(.submit(String(repeating: "a", count: 40) + "!"), at: 0).events
        var now = 0.0
        while c.status == .active, now < 10 {
            now += 0.25
            events += c.advance(to: now).events
        }
        #expect(c.status.reason == .completed)
        #expect(c.shownCount == RocketLimits.shownBlocks)
        let codes = events.compactMap { e -> String? in if case .expressionError(_, _, let x) = e { x.code } else { nil } }
        let charge = RocketLimits.expressionPatternProbeSteps + RocketLimits.expressionPatternSteps
        #expect(codes.filter { $0 == "pattern-limit" }.count == RocketLimits.conversationPatternSteps / charge)
        #expect(codes.contains("pattern-budget"))
        #expect(codes.last == "conversation-too-long")
        #expect(c.state.patternSteps <= RocketLimits.conversationPatternSteps)
        // What was charged is kept in the snapshot, so a restored conversation goes on from it.
        let text = try ConversationSnapshot(c, at: now).jsonText()
        #expect(text.contains("\"patternSteps\":\(c.state.patternSteps)"))
        let restored = try ConversationSnapshot(jsonText: Array(text.utf8), graph: c.graph)
        #expect(restored.state.patternSteps == c.state.patternSteps)
    }

    @Test("a conversation's transcript holds at most transcriptBytes of text: the block that would pass it ends the conversation")
    func transcriptBound() throws {
        let json = #"""
            {"version": 1,
             "blocks": [
              {"id": "a", "type": "textInput", "text": "Say something", "buttonTitle": "OK", "next": "t"},
              {"id": "t", "type": "text", "text": "{{a}}{{a}}{{a}}{{a}}", "next": "t"}
             ]}
            """#
        var (c, _) = try play(json)
        let answer = String(repeating: "é", count: 30_000)  // 60,000 bytes; each bubble 240,000
        var events = try c.send(.submit(answer), at: 0).events
        var taps = 0
        while c.status == .active, taps < 20 {
            taps += 1
            events += try c.send(.tap, at: Double(taps)).events
        }
        let perBubble = 4 * answer.utf8.count
        let fit = (RocketLimits.transcriptBytes - "Say something".utf8.count - answer.utf8.count) / perBubble
        #expect(c.shownCount == 1 + fit)
        #expect(c.status.reason == .completed)
        #expect(events.contains { if case .expressionError("t", _, let x) = $0 { x.code == "conversation-too-long" } else { false } })
    }

    @Test("{{name}} renders typed values once: a value holding a placeholder is not filled again")
    func rendering() throws {
        let json = #"""
            {"version": 1, "vars": {"a": "{{b}}", "b": "x", "n": 2.5, "on": true},
             "blocks": [{"id": "t", "type": "text", "text": "{{a}} {{n}} {{on}}"}]}
            """#
        let (c, _) = try play(json)
        #expect(c.transcript.first.map { if case .block(_, _, let t) = $0 { t } else { "" } } == "{{b}} 2.5 true")
    }

    @Test("variables survive a snapshot and a resume")
    func snapshot() throws {
        let json = #"""
            {"version": 1, "vars": {"visits": 0, "who": "x"},
             "blocks": [
              {"id": "s", "type": "set", "set": {"visits": "visits + 41", "who": "'Ada'"}, "next": "t"},
              {"id": "t", "type": "text", "text": "{{who}} {{visits}}", "next": "u"},
              {"id": "u", "type": "text", "text": "{{visits}} again"}
             ]}
            """#
        let (c, _) = try play(json)
        let snap = ConversationSnapshot(c, at: 0)
        let text = try snap.jsonText()
        #expect(text.contains(#""variables":{"visits":41,"who":"Ada"}"#))
        let read = try ConversationSnapshot(jsonText: Array(text.utf8), graph: c.graph)
        var back = try read.restore(graph: c.graph, author: c.author, closeButton: c.closeButton, options: c.options, at: 0)
        #expect(back.variables == c.variables)
        _ = try back.send(.tap, at: 1)
        _ = back.advance(to: 2)
        #expect(back.transcript.last.map { if case .block(_, _, let t) = $0 { t } else { "" } } == "41 again")
    }

    func lint(_ json: String) -> [String] {
        FlowLoader.load(json).diagnostics.map { "\($0.line ?? 0):\($0.column ?? 0) \($0.severity.rawValue) \($0.code)" }
    }

    @Test("lint places expression errors inside the string, escapes counted")
    func positions() {
        let json = """
            {"version": 1, "vars": {"visits": 0, "plan": "free"},
             "blocks": [
              {"id": "s", "type": "set", "set": {"visits": "visits + vists", "plan": "3"}, "next": "c"},
              {"id": "c", "type": "condition", "branches": [{"if": "plan == \\"pro\\" and visits >", "next": "t"}, {"if": "visits", "next": "t"}]},
              {"id": "t", "type": "text", "text": "hi"}
             ]}
            """
        #expect(
            lint(json) == [
                "3:58 error unknown-variable", "3:75 error expression-type", "4:85 error expression-syntax", "4:110 error expression-type",
            ])
        let d = FlowLoader.load(json).diagnostics
        #expect(d[0].message.contains("did you mean \"visits\"?"))
        #expect(d[1].message == "\"plan\" holds a text, but \"3\" gives a number")
    }

    @Test("lint compiles matches(…)'s patterns: one that does not compile is an error at its place, a slow one a warning")
    func patterns() {
        let json = """
            {"version": 1, "vars": {"mail": ""},
             "blocks": [
              {"id": "c", "type": "condition", "branches": [{"if": "matches(mail, '(unclosed')", "next": "t"}, {"if": "matches(mail, '^(a+)+$')", "next": "t"}]},
              {"id": "t", "type": "text", "text": "hi"}
             ]}
            """
        #expect(lint(json) == ["3:71 error expression-syntax", "3:107 warning slow-pattern"], "\(lint(json))")
        let d = FlowLoader.load(json).diagnostics
        #expect(d[0].message.contains("the pattern does not compile"))
        #expect(d[1].message.contains("matches(…) is an error and its condition false"))
    }

    @Test("lint: undeclared variables, bad names and defaults, too many rules, loops")
    func rules() {
        #expect(
            lint(
                #"""
                {"version": 1, "vars": {"ok": 1, "2x": 1, "and": true, "obj": {}},
                 "blocks": [{"id": "s", "type": "set", "set": {"nope": "1"}}]}
                """#
            ).map { String($0.split(separator: " ").last!) } == ["bad-name", "bad-name", "wrong-type", "unknown-variable"])
        #expect(
            lint(#"{"version": 1, "vars": {"ok": 1}, "blocks": [{"id": "s", "type": "set", "set": {"nope": "1"}}]}"#) == [
                "1:89 error unknown-variable"
            ])
        let many = (0..<300).map { _ in #"{"if": "true", "next": "t"}"# }.joined(separator: ",")
        #expect(
            lint(#"{"version": 1, "blocks": [{"id": "c", "type": "condition", "branches": ["# + many + #"]}, {"id": "t", "type": "text", "text": "x"}]}"#)
                .map { String($0.split(separator: " ").last!) } == ["too-many-options"])
        // A loop nothing leaves is an error; one with a way out, a warning.
        let endless = #"""
            {"version": 1, "vars": {"i": 0}, "blocks": [
              {"id": "s", "type": "set", "set": {"i": "i + 1"}, "next": "c"},
              {"id": "c", "type": "condition", "branches": [{"if": "i > 3", "next": "s"}], "else": "s"}
            ]}
            """#
        let r = FlowLoader.load(endless)
        #expect(r.errors.map(\.code) == ["endless-loop"])
        #expect(r.errors.first?.message.contains("\"s\" → \"c\" → \"s\"") == true)
        let escapable = endless.replacing(#""else": "s""#, with: #""else": "t"}, {"id": "t", "type": "text", "text": "x""#)
        let w = FlowLoader.load(escapable)
        #expect(w.isPlayable)
        #expect(w.diagnostics.map(\.code) == ["silent-loop"])
        #expect(w.diagnostics.first?.message.hasSuffix("after \(RocketLimits.silentSteps) set and condition blocks in a row the conversation ends") == true)
        // A loop through a timed block ends at the most blocks a conversation shows instead.
        let timed = #"""
            {"version": 1, "vars": {"i": 0}, "blocks": [
              {"id": "s", "type": "set", "set": {"i": "i + 1"}, "next": "c"},
              {"id": "c", "type": "condition", "branches": [{"if": "i > 3", "next": "t"}], "else": "w"},
              {"id": "w", "type": "text", "text": "…", "showNextAfter": 1, "next": "s"},
              {"id": "t", "type": "text", "text": "x"}
            ]}
            """#
        let tw = FlowLoader.load(timed)
        #expect(tw.diagnostics.map(\.code) == ["silent-loop"], "\(tw.diagnostics)")
        #expect(tw.diagnostics.first?.message.hasSuffix("once it has shown \(RocketLimits.shownBlocks) blocks the conversation ends") == true)
    }

    @Test("graph draws set blocks as parallelograms and conditions as diamonds with their branches")
    func graph() throws {
        let doc = try #require(FlowLoader.load(Self.branching).document)
        let mermaid = FlowGraph.mermaid(doc)
        #expect(mermaid.contains(#"n1[/"s: set: visits = visits + 1"/]"#))
        #expect(mermaid.contains(#"n2{"c: condition"}"#))
        #expect(mermaid.contains(#"n2 -->|"if visits #gt; 3 and plan == 'pro'"| n3"#))
        #expect(mermaid.contains(#"n2 -->|"else"| n5"#))
        let dot = FlowGraph.dot(doc)
        #expect(dot.contains(#""c" [label="c: condition", shape=diamond, style=solid];"#))
        #expect(dot.contains(#"shape=parallelogram"#))
        // The outline: a line a block, its ways on under it, the end named where a way leads.
        #expect(
            FlowGraph.outline(doc) == """
                (start) → s
                s: set: visits = visits + 1
                  → c
                c: condition
                  if visits > 3 and plan == 'pro' → vip
                  if visits > 3 → regular
                  else → new
                vip: text: Welcome back, VIP ({{visits}})
                  tap → (end)
                regular: text: Hello again ({{visits}} visits)
                  tap → (end)
                new: text: Nice to meet you
                  tap → (end)

                """)
        // A block's text cannot start a line of its own, nor move the cursor.
        let hostile = try #require(FlowLoader.load(#"{"version": 1, "blocks": [{"id": "a", "type": "text", "text": "x\u001b[2J\ny"}]}"#).document)
        #expect(!FlowGraph.outline(hostile).contains("\u{1B}") && FlowGraph.outline(hostile).split(separator: "\n").count == 3)
    }

    @Test("a flow with variables is written back as it was read")
    func roundTrip() throws {
        let doc = try #require(FlowLoader.load(Self.branching).document)
        let text = doc.jsonValue.serialized(pretty: true)
        let again = try #require(FlowLoader.load(text).document)
        #expect(again == doc)
        #expect(text.contains(#""vars""#))
    }
}
