import RocketConversation
import RocketCore
import RocketJSON
import Testing

@testable import RocketFlow

/// The person's clock in flows: `today()`, `time()`, `weekday()`, `days(…)`, and a date input's
/// bounds counted from today.
@Suite("The clock in flows")
struct ClockTests {
    /// Friday 2027-01-15, 08:05 local.
    static let friday = RocketExpression.LocalTime(localSeconds: 1_800_000_000 + 300)

    func eval(_ source: String, local: RocketExpression.LocalTime? = friday) -> Result<RocketValue, RocketExpressionError> {
        RocketExpression(source).evaluate({ _ in nil }, local: local)
    }

    @Test("today(), time() and weekday() read the local time given; days() counts from one day to another")
    func functions() throws {
        #expect(try eval("today()").get() == .text("2027-01-15"))
        #expect(try eval("time()").get() == .text("08:05"))
        #expect(try eval("weekday()").get() == .number(5), "Friday; Monday is 1")
        #expect(try eval("weekday()", local: RocketExpression.LocalTime(localSeconds: 0)).get() == .number(4), "1970-01-01 was a Thursday")
        #expect(try eval("weekday() >= 6 or time() < '09:00'").get() == .bool(true))
        #expect(try eval("days(today(), '2027-12-25')").get() == .number(344))
        #expect(try eval("days('2024-03-01', '2024-02-28')").get() == .number(-2), "a leap year's February")
        #expect(try eval("weekdayOf('2026-12-06')").get() == .number(7) && eval("weekdayOf('0001-01-01')").get() == .number(1))
        #expect(try eval("weekdayOf(today()) == weekday()").get() == .bool(true))
        #expect(try eval("addDays(today(), 17)").get() == .text("2027-02-01"))
        #expect(try eval("addDays('2024-03-01', -1)").get() == .text("2024-02-29"))
        #expect(try eval("days(today(), addDays(today(), -400))").get() == .number(-400))
        for (bad, code) in [
            ("addDays('soon', 1)", "not-a-date"), ("addDays(today(), 1.5)", "out-of-range"), ("addDays('9999-12-31', 1)", "out-of-range"),
            ("addDays(today(), 1e300)", "out-of-range"),
        ] {
            guard case .failure(let e) = eval(bad) else {
                Issue.record("\(bad) gave a value")
                continue
            }
            #expect(e.code == code, "\(bad): \(e)")
        }
        #expect(RocketExpression("addDays(today(), 'x')").check { _ in .known(nil) }.problems.contains { $0.code == "type" })
        #expect(RocketExpression.LocalTime(localSeconds: -1)?.minute == 1439, "a second before 1970 is the last minute of 1969-12-31")
        #expect(try eval("today()", local: RocketExpression.LocalTime(localSeconds: -1)).get() == .text("1969-12-31"))
        #expect(RocketExpression.LocalTime(localSeconds: .infinity) == nil && RocketExpression.LocalTime(localSeconds: 1e15) == nil)
    }

    @Test("without a clock they are an error (no-clock), as is a date that is none; a value in their brackets is a syntax error")
    func errors() {
        guard case .failure(let e) = eval("today()", local: nil) else {
            Issue.record("no clock gave a value")
            return
        }
        #expect(e.code == "no-clock" && e.message.contains("today()"))
        guard case .failure(let d) = eval("days('soon', today())") else {
            Issue.record("a text that is no date was counted")
            return
        }
        #expect(d.code == "not-a-date")
        for bad in ["today(1)", "weekday(())", "days(today())", "time(", "today() today()"] {
            #expect(RocketExpression(bad).syntaxError != nil, "\(bad)")
        }
        let problems = RocketExpression("today() + 1").check { _ in .known(nil) }.problems
        #expect(problems.contains { $0.code == "type" }, "\(problems)")
        #expect(RocketExpression("weekday() == 7").readsClock && RocketExpression("days(a, b) > 2").readsClock == false)
    }

    static let flow = #"""
        {"version": 1, "vars": {"greeting": "", "left": 0}, "blocks": [
         {"id": "hour", "type": "condition", "branches": [{"if": "time() < '12:00'", "next": "morning"}], "else": "later"},
         {"id": "morning", "type": "set", "set": {"greeting": "'Good morning'"}, "next": "count"},
         {"id": "later", "type": "set", "set": {"greeting": "'Hello'"}, "next": "count"},
         {"id": "count", "type": "set", "set": {"left": "days(today(), '2027-12-25')"}, "next": "when"},
         {"id": "when", "type": "textInput", "text": "{{greeting}}: which day?", "buttonTitle": "OK", "inputType": "date", "min": "today+1d", "max": "today+2w"}
        ]}
        """#

    @Test("a conversation reads the local time its options give, at each step; a date's bounds count from that today")
    func conversation() throws {
        let doc = try #require(FlowLoader.load(Self.flow).document)
        #expect(doc.graph.readsClock)
        // Host time 100 is 2027-01-15T08:05 local.
        var c = try #require(doc.makeConversation(options: ConversationOptions(timing: .instant, localShift: 1_800_000_300 - 100)))
        c.start(at: 100)
        #expect(c.variables["greeting"] == .text("Good morning") && c.variables["left"] == .number(344))
        // The empty field's hint counts from the same today; without a time it leaves such bounds out.
        #expect(c.fieldHint(at: try #require(c.interactiveIndex), now: 100) == .range(low: "2027-01-16", high: "2027-01-29"))
        #expect(c.fieldHint(at: try #require(c.interactiveIndex), now: 100 + 86_400) == .range(low: "2027-01-17", high: "2027-01-30"))
        #expect(c.fieldHint(at: try #require(c.interactiveIndex), now: nil) == .form(.date))
        #expect(throws: RocketIntentError.self) { try c.send(.submit("2027-01-15"), at: 101) }
        #expect(c.inputError?.rule == .tooSmall("2027-01-16"))
        #expect(throws: RocketIntentError.self) { try c.send(.submit("2027-01-30"), at: 102) }
        #expect(c.inputError?.rule == .tooLarge("2027-01-29"))
        // A day later on the host's clock, today has moved: the 16th is now too early.
        #expect(throws: RocketIntentError.self) { try c.send(.submit("2027-01-16"), at: 100 + 86_400) }
        _ = try c.send(.submit("2027-01-17"), at: 100 + 86_400)
        #expect(c.answers["when"]?.value == "2027-01-17")
        // The afternoon, and no clock at all.
        var later = try #require(doc.makeConversation(options: ConversationOptions(timing: .instant, localShift: 1_800_000_300 + 6 * 3600)))
        later.start(at: 0)
        #expect(later.variables["greeting"] == .text("Hello"))
        var none = try #require(doc.makeConversation(options: ConversationOptions(timing: .instant)))
        let effects = none.start(at: 0)
        #expect(effects.events.contains { if case .expressionError(_, _, let e) = $0 { return e.code == "no-clock" } else { return false } })
        _ = try none.send(.submit("1999-01-01"), at: 1)
        #expect(none.answers["when"]?.value == "1999-01-01", "no today: bounds counted from it bound nothing")
    }

    @Test("the options' local shift survives a snapshot of them")
    func stored() throws {
        let options = ConversationOptions(timing: .instant, localShift: -3600.5)
        var w = JSONBytes()
        options.write(into: &w)
        let tape = try JSONTape.parse(w.out)
        let back = try ConversationOptions(JSONFields(tape, 0, path: "options", allowed: ConversationOptions.storedKeys))
        #expect(back.localShift == -3600.5)
    }

    @Test("bounds counted from today: read, linted, compared")
    func bounds() {
        #expect(RocketInputType.relativeDay("today+2w")! == (14, 0))
        #expect(RocketInputType.relativeDay("today-18y")! == (0, -216))
        for bad in ["today+", "today+1x", "Today", "today+1234567d", "today +1d", "tomorrow"] { #expect(RocketInputType.relativeDay(bad) == nil, "\(bad)") }
        #expect(RocketInputType.resolveDay("today-18y", today: "2024-02-29") == "2006-02-28")
        #expect(RocketInputType.resolveDay("today+1d", today: nil) == nil)
        func codes(_ bounds: String) -> [String] {
            FlowLoader.load(
                #"{"version": 1, "blocks": [{"id": "d", "type": "textInput", "text": "Day?", "buttonTitle": "OK", "inputType": "date", "# + bounds + "}]}"
            )
            .diagnostics.map(\.code)
        }
        #expect(codes(#""min": "today", "max": "today+1y""#) == [])
        // A bound counted from today reads the clock, as today() does: the graph says so itself.
        let bounded = FlowLoader.load(
            #"{"version": 1, "blocks": [{"id": "d", "type": "textInput", "text": "Day?", "buttonTitle": "OK", "inputType": "date", "max": "today"}]}"#)
        #expect(bounded.document?.graph.readsClock == true && bounded.document?.readsClock == true)
        let fixed = FlowLoader.load(
            #"{"version": 1, "blocks": [{"id": "d", "type": "textInput", "text": "Day?", "buttonTitle": "OK", "inputType": "date", "max": "2030-01-01"}]}"#)
        #expect(fixed.document?.graph.readsClock == false)
        #expect(codes(#""min": "today+1x""#) == ["bad-value"])
        #expect(codes(#""min": "today-99999y""#) == ["bad-bound"], "before the year 1 from any today of this century")
        #expect(codes(#""min": "today+7d", "max": "today""#) == ["impossible-range"])
        #expect(codes(#""min": "today", "max": "2020-01-01""#) == [], "one of each: some today may fit")
        let number = FlowLoader.load(
            #"{"version": 1, "blocks": [{"id": "n", "type": "textInput", "text": "N?", "buttonTitle": "OK", "inputType": "integer", "min": "today"}]}"#)
        #expect(number.diagnostics.map(\.code) == ["bad-bound"])
    }
}

@Suite("rocket test: a case's now")
struct ClockCaseTests {
    @Test("a case's now is the local time the flow reads; without it a flow that reads the clock fails, saying to give one")
    func now() throws {
        let doc = try #require(FlowLoader.load(ClockTests.flow).document)
        let text = #"""
            {"cases": [
              {"name": "a morning", "now": "2027-01-15T08:05+01:00", "answers": {"when": "2027-01-16"}, "expect": {"says": ["Good morning: which day?"], "vars": {"left": 344}}},
              {"name": "too soon", "now": "2027-01-15T20:00-05:00", "answers": {"when": "2027-01-15"}, "expect": {"refused": "when", "says": ["Hello"]}},
              {"name": "no clock", "answers": {"when": "2027-01-16"}}
            ]}
            """#
        guard case .success(let suite) = FlowTestSuite.read(Array(text.utf8)) else {
            Issue.record("the file is refused")
            return
        }
        let results = suite.cases.map { $0.run(on: doc) { "refused: \($0.rule)" } }
        #expect(results[0].passed, "\(results[0].failures)")
        #expect(results[1].passed, "the offset written is the case's: 20:00 there, \(results[1].failures)")
        #expect(!results[2].passed)
        #expect(results[2].failures.first?.message.contains("give the case a \"now\"") == true, "\(results[2].failures)")
        guard case .failure(let bad) = FlowTestSuite.read(Array(#"{"cases": [{"name": "x", "now": "2027-01-15T08:05"}]}"#.utf8)) else {
            Issue.record("a now without its offset is taken")
            return
        }
        #expect(bad.diagnostics.first?.message.contains("offset from UTC") == true)
        // The moment --case-out writes reads back as the same local time.
        for (instant, offset) in [(1_800_000_000.0, 3600), (1_800_000_000, -34_200), (0, 0)] {
            let text = RocketSchedule.moment(instant, utcOffset: offset)
            #expect(RocketSchedule.localSeconds(text) == instant + Double(offset), "\(text)")
        }
        #expect(RocketSchedule.moment(1_800_000_000, utcOffset: -34_200) == "2027-01-14T22:30:00-09:30")
        // Every way a moment may write its offset names the same local time.
        for text in ["2027-01-15T09:00+01:00", "2027-01-15T09:00+0100", "2027-01-15t09:00:00.000+01:00", "2027-01-15T08:00Z", "2027-01-15T08:00z"] {
            let expected = text.contains("08:00") ? 1_800_000_000.0 : 1_800_000_000.0 + 3600
            #expect(RocketSchedule.localSeconds(text) == expected, "\(text)")
        }
    }
}
