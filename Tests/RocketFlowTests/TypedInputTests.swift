import RocketConversation
import RocketCore
import RocketText
import Testing

@testable import RocketFlow

/// Typed text inputs: what each type takes, bounds, refusals in the user's language, typed
/// answers in expressions and snapshots, and lint.
@Suite("Typed answers")
struct TypedInputTests {
    @Test(
        "each input type takes its values and refuses the rest",
        arguments: [
            (RocketInputType.number, "42", RocketValue?.some(.number(42))), (.number, " -2.5 ", .number(-2.5)), (.number, "2,5", .number(2.5)),
            (.number, "1e3", .number(1000)), (.number, "abc", nil), (.number, "1,000.5", nil), (.number, "inf", nil), (.number, "0x10", nil),
            (.integer, "7", .number(7)), (.integer, "7.5", nil), (.integer, "1e20", nil),
            (.email, "ada@example.org", .text("ada@example.org")), (.email, "ada@", nil), (.email, "a b@example.org", nil),
            (.email, "@example.org", nil), (.email, "ada@example", nil),
            (.url, "https://example.org/x?y", .text("https://example.org/x?y")), (.url, "ftp://example.org", nil), (.url, "https://", nil),
            (.date, "2024-02-29", .text("2024-02-29")), (.date, "2026-02-29", nil), (.date, "2026-13-01", nil), (.date, "26-01-01", nil),
            (.phone, "+39 (02) 123-4567", .text("+39 (02) 123-4567")), (.phone, "1234", nil), (.phone, "call me", nil),
            (.time, "14:30", .text("14:30")), (.time, " 9:05 ", .text("09:05")), (.time, "00:00", .text("00:00")), (.time, "23:59", .text("23:59")),
            (.time, "24:00", nil), (.time, "12:60", nil), (.time, "1430", nil), (.time, "2:3", nil), (.time, "12:30:00", nil), (.time, "2 pm", .text("14:00")),
            (.time, "2:30pm", .text("14:30")), (.time, "12 am", .text("00:00")),
            (.time, "12:15 PM", .text("12:15")), (.time, "11:59 p.m.", .text("23:59")), (.time, " 9 AM ", .text("09:00")), (.time, "13 pm", nil),
            (.time, "0 am", nil), (.time, "2:60 pm", nil), (.time, "2:5 pm", nil), (.time, "pm", nil), (.time, "2 xm", nil), (.time, "14:30 pm", nil),
            (.time, "1:2:3 pm", nil), (.time, "２ pm", nil),
            (.time, "１２:３０", nil), (.time, "-1:30", nil),
            (.text, " anything ", .text(" anything ")),
        ])
    func parse(type: RocketInputType, text: String, expected: RocketValue?) {
        #expect(type.parse(text) == expected, "\(type) \(text)")
    }

    func input(_ type: RocketInputType, min: RocketValue? = nil, max: RocketValue? = nil, required: Bool = false) -> RocketInputNode {
        var i = RocketInputNode(text: "?", buttonTitle: "OK", validation: required ? RocketInputValidation(required: true) : nil)
        i.inputType = type
        i.minimum = min
        i.maximum = max
        return i
    }

    @Test("min and max bound numbers and days; an optional empty answer is null; refusals say why in each language")
    func bounds() {
        let age = input(.integer, min: .number(18), max: .number(120))
        #expect(age.accept("30") == .success(.number(30)))
        #expect(age.accept("12") == .failure(RocketValidationFailure(rule: .tooSmall("18"), message: nil)))
        #expect(age.accept("130") == .failure(RocketValidationFailure(rule: .tooLarge("120"), message: nil)))
        #expect(age.accept("") == .success(.null))
        #expect(input(.integer, required: true).accept(" ") == .failure(RocketValidationFailure(rule: .required, message: nil)))
        let day = input(.date, min: .text("2026-01-31"))
        #expect(day.accept("2026-02-01") == .success(.text("2026-02-01")))
        #expect(day.accept("2026-01-30") == .failure(RocketValidationFailure(rule: .tooSmall("2026-01-31"), message: nil)))
        let failure = RocketValidationFailure(rule: .wrongType(.number), message: nil)
        #expect(UIStrings.english.message(for: failure) == "Please type a number.")
        #expect(UIStrings.italian.message(for: failure) == "Scrivi un numero.")
        #expect(UIStrings.chinese.message(for: failure) == "请输入一个数字。")
        #expect(UIStrings.italian.message(for: RocketValidationFailure(rule: .tooSmall("18"), message: nil)) == "Il minimo accettato è 18.")
        // A day or a time is said as earlier or later, in every language.
        #expect(UIStrings.english.message(for: RocketValidationFailure(rule: .tooSmall("2026-12-08"), message: nil)) == "Please choose 2026-12-08 or later.")
        #expect(UIStrings.english.message(for: RocketValidationFailure(rule: .tooLarge("17:30"), message: nil)) == "Please choose 17:30 or earlier.")
        #expect(UIStrings.german.message(for: RocketValidationFailure(rule: .tooLarge("2026-12-31"), message: nil)) == "Bitte wähle 2026-12-31 oder früher.")
        #expect(UIStrings.english.message(for: RocketValidationFailure(rule: .tooLarge("120"), message: nil)) == "The most accepted is 120.")
        for type in RocketInputType.allCases where type != .text {
            let m = UIStrings.english.message(for: RocketValidationFailure(rule: .wrongType(type), message: nil))
            #expect(m != UIStrings.english.noMatch, "\(type) has its own message")
        }
    }

    @Test("an empty field's hint: the flow's placeholder, else a typed answer's bounds, else a date's or time's form; in words per language")
    func hints() throws {
        #expect(input(.integer, min: .number(18), max: .number(120)).typeHint(today: nil) == .range(low: "18", high: "120"))
        // Every whole number an integer input takes is said in digits (5e15 is not "5e+15").
        #expect(RocketValue.format(5e15) == "5000000000000000" && RocketValue.format(-9e15) == "-9000000000000000")
        #expect(RocketValue.format(1e20) == "1e+20" && RocketValue.format(2.5) == "2.5")
        #expect(input(.number, min: .number(-2.5)).typeHint(today: nil) == .range(low: "-2.5", high: nil))
        #expect(input(.time, max: .text("17:30")).typeHint(today: nil) == .range(low: nil, high: "17:30"))
        #expect(input(.date).typeHint(today: "2026-12-06") == .form(.date))
        #expect(input(.time).typeHint(today: nil) == .form(.time))
        // A bound counted from today is a day only with a today; without one it is left out.
        let soon = input(.date, min: .text("today+1d"), max: .text("2027-01-31"))
        #expect(soon.typeHint(today: "2026-12-06") == .range(low: "2026-12-07", high: "2027-01-31"))
        #expect(soon.typeHint(today: nil) == .range(low: nil, high: "2027-01-31"))
        #expect(input(.date, min: .text("today")).typeHint(today: nil) == .form(.date))
        // Nothing to say for text, a type without a form, or a secret.
        for type in [RocketInputType.text, .email, .url, .phone, .number, .integer] { #expect(input(type).typeHint(today: nil) == nil, "\(type)") }
        var secret = input(.integer, min: .number(1))
        secret.isSecret = true
        #expect(secret.typeHint(today: nil) == nil)
        // In words: ranges the same in every language, forms in each language's letters.
        #expect(UIStrings.english.words(for: .range(low: "1", high: "10")) == "1 – 10")
        #expect(UIStrings.english.words(for: .range(low: "18", high: nil)) == "≥ 18")
        #expect(UIStrings.german.words(for: .range(low: nil, high: "2026-12-31")) == "≤ 2026-12-31")
        #expect(UIStrings.english.words(for: .form(.date)) == "YYYY-MM-DD")
        #expect(UIStrings.french.words(for: .form(.date)) == "AAAA-MM-JJ")
        #expect(UIStrings.english.words(for: .form(.time)) == "HH:MM")
        #expect(UIStrings.italian.words(for: .text("il tuo nome")) == "il tuo nome")
        // A date's form is the one each language's refusal of a date names.
        for strings in UIStrings.all { #expect(strings.notDate.contains(strings.dateForm), "\(strings.language)") }

        // In a conversation: only for a text input, its placeholder filled and winning over the type's hint.
        let doc = try #require(
            FlowLoader.load(
                #"""
                {"version": 1, "vars": {"who": "Ada"}, "blocks": [
                 {"id": "a", "type": "textInput", "text": "Age?", "buttonTitle": "OK", "inputType": "integer", "min": 0, "max": 130, "next": "n"},
                 {"id": "n", "type": "textInput", "text": "Name?", "buttonTitle": "OK", "placeholder": "{{who}}", "inputType": "integer", "next": "t"},
                 {"id": "t", "type": "textInput", "text": "Note?", "buttonTitle": "OK", "next": "e"},
                 {"id": "e", "type": "text", "text": "Bye"}]}
                """#
            ).document)
        var c = try #require(doc.makeConversation(options: ConversationOptions(timing: .instant)))
        c.start(at: 0)
        #expect(c.fieldHint(at: 0, now: 0) == .range(low: "0", high: "130"))
        _ = try c.send(.submit("30"), at: 1)
        #expect(c.fieldHint(at: try #require(c.interactiveIndex), now: 1) == .text("Ada"))
        #expect(!RocketFieldHint.text("Ada").isTypeHint && RocketFieldHint.form(.date).isTypeHint && RocketFieldHint.range(low: "1", high: nil).isTypeHint)
        _ = try c.send(.submit("5"), at: 2)
        #expect(c.fieldHint(at: try #require(c.interactiveIndex), now: 2) == nil)
        _ = try c.send(.submit("x"), at: 3)
        #expect(c.fieldHint(at: try #require(c.interactiveIndex), now: 3) == nil, "a text block has no field")
        #expect(c.fieldHint(at: 99, now: 3) == nil)
    }

    @Test("rocket graph names a typed input's type and bounds as the flow writes them")
    func graphLabels() throws {
        let doc = try #require(
            FlowLoader.load(
                #"""
                {"version": 1, "blocks": [
                 {"id": "a", "type": "textInput", "text": "Age?", "buttonTitle": "OK", "inputType": "integer", "min": 18, "max": 120, "next": "d"},
                 {"id": "d", "type": "textInput", "text": "Day?", "buttonTitle": "OK", "inputType": "date", "min": "today+1d", "next": "t"},
                 {"id": "t", "type": "textInput", "text": "By?", "buttonTitle": "OK", "inputType": "time", "max": "17:30", "next": "m"},
                 {"id": "m", "type": "textInput", "text": "Mail?", "buttonTitle": "OK", "inputType": "email", "next": "n"},
                 {"id": "n", "type": "textInput", "text": "Name?", "buttonTitle": "OK"}]}
                """#
            ).document)
        let mermaid = FlowGraph.mermaid(doc)
        for label in [
            "a: input integer 18–120: Age?", "d: input date ≥today+1d: Day?", "t: input time ≤17:30: By?", "m: input email: Mail?", "n: input: Name?",
        ] {
            #expect(mermaid.contains(label), "\(label) in \(mermaid)")
        }
    }

    static let flow = #"""
        {"version": 1, "vars": {"adult": false}, "blocks": [
         {"id": "age", "type": "textInput", "text": "Your age?", "buttonTitle": "OK", "inputType": "integer", "min": 0, "max": 130, "next": "s"},
         {"id": "s", "type": "set", "set": {"adult": "age >= 18"}, "next": "c"},
         {"id": "c", "type": "condition", "branches": [{"if": "adult", "next": "yes"}], "else": "no"},
         {"id": "yes", "type": "text", "text": "At {{age}}, welcome."},
         {"id": "no", "type": "text", "text": "Not yet at {{age}}."}
        ]}
        """#

    @Test("a typed answer is a number in expressions, {{age}} and snapshots; a refusal keeps the block")
    func typedAnswers() throws {
        let doc = try #require(FlowLoader.load(Self.flow).document)
        #expect(FlowLoader.load(Self.flow).diagnostics.isEmpty)
        var c = try #require(doc.makeConversation(options: ConversationOptions(timing: .instant)))
        c.start(at: 0)
        #expect(throws: RocketIntentError.invalidInput(RocketValidationFailure(rule: .wrongType(.integer), message: nil))) {
            try c.send(.submit("twenty"), at: 1)
        }
        #expect(throws: RocketIntentError.invalidInput(RocketValidationFailure(rule: .tooLarge("130"), message: nil))) {
            try c.send(.submit("200"), at: 1)
        }
        _ = try c.send(.submit(" 42 "), at: 2)
        #expect(c.answers["age"]?.typed == .number(42))
        #expect(c.variables["adult"] == .bool(true))
        #expect(c.transcript.last.map { if case .block(_, _, let t) = $0 { t } else { "" } } == "At 42, welcome.")
        let text = try ConversationSnapshot(c, at: 2).jsonText()
        #expect(text.contains(#""age":{"value":42}"#))
        let back = try ConversationSnapshot(jsonText: Array(text.utf8), graph: c.graph)
        #expect(back.state.answers["age"]?.typed == .number(42))
        // An input error is kept in a snapshot with its type.
        var d = try #require(doc.makeConversation(options: ConversationOptions(timing: .instant)))
        d.start(at: 0)
        _ = try? d.send(.submit("x"), at: 1)
        let refused = try ConversationSnapshot(d, at: 1).jsonText()
        #expect(refused.contains(#""inputError":{"rule":"wrongType","type":"integer"}"#))
        let again = try ConversationSnapshot(jsonText: Array(refused.utf8), graph: d.graph)
        #expect(again.state.inputError?.rule == .wrongType(.integer))
    }

    @Test("lint: bounds must fit the type and be in order; an answer's type reaches expressions")
    func lint() {
        func codes(_ json: String) -> [String] { FlowLoader.load(json).diagnostics.map(\.code) }
        let head = #"{"version": 1, "blocks": [{"id": "a", "type": "textInput", "text": "?", "buttonTitle": "OK", "#
        #expect(codes(head + #""inputType": "email", "min": 3}]}"#) == ["bad-bound"])
        #expect(codes(head + #""inputType": "number", "min": "2026-01-01"}]}"#) == ["bad-bound"])
        #expect(codes(head + #""inputType": "date", "min": "2026-02-01", "max": "2026-01-01"}]}"#) == ["impossible-range"])
        #expect(codes(head + #""inputType": "date", "min": "2026-02-30"}]}"#) == ["bad-value"])
        // Times: HH:MM bounds, in order; a day does not bound a time, nor a time a day.
        #expect(codes(head + #""inputType": "time", "min": "09:00", "max": "17:30"}]}"#) == [])
        #expect(codes(head + #""inputType": "time", "min": "18:00", "max": "09:00"}]}"#) == ["impossible-range"])
        #expect(codes(head + #""inputType": "time", "min": "9:00"}]}"#) == ["bad-value"], "a flow's bound is written HH:MM")
        #expect(codes(head + #""inputType": "time", "min": "2026-01-01"}]}"#) == ["bad-bound"])
        #expect(codes(head + #""inputType": "date", "max": "12:00"}]}"#) == ["bad-bound"])
        #expect(codes(head + #""inputType": "time", "max": 12}]}"#) == ["bad-bound"])
        var timed = RocketInputNode(text: "?", buttonTitle: "OK")
        timed.inputType = .time
        timed.minimum = .text("09:00")
        timed.maximum = .text("17:30")
        #expect((try? timed.accept("9:15").get()) == .text("09:15"))
        #expect((try? timed.accept("17:31").get()) == nil)
        #expect((try? timed.accept("08:59").get()) == nil)
        #expect(UIStrings.german.message(for: RocketValidationFailure(rule: .wrongType(.time), message: nil)) == "Bitte gib eine Uhrzeit wie 14:30 ein.")
        // An integer input whose range holds no whole number could accept nothing; a number's can.
        #expect(codes(head + #""inputType": "integer", "min": 1.5, "max": 1.7}]}"#) == ["impossible-range"])
        #expect(codes(head + #""inputType": "integer", "min": 1.5, "max": 2}]}"#) == [])
        #expect(codes(head + #""inputType": "number", "min": 1.5, "max": 1.7}]}"#) == [])
        let message = FlowLoader.load(head + #""inputType": "integer", "min": 1.5, "max": 1.7}]}"#).diagnostics.first?.message
        #expect(message == #"no whole number lies from "min" 1.5 to "max" 1.7"#)
        // Several lines are for text: not a secret, not a typed answer.
        #expect(codes(head + #""multiline": true}]}"#) == [])
        #expect(codes(head + #""multiline": true, "secret": true}]}"#) == ["bad-multiline"])
        #expect(codes(head + #""multiline": true, "inputType": "date"}]}"#) == ["bad-multiline"])
        #expect(codes(head + #""inputType": "decimal"}]}"#) == ["bad-value"])
        let typed = head + #""inputType": "number", "next": "c"}, {"id": "c", "type": "condition", "branches": [{"if": "a == 'x'", "next": null}]}]}"#
        #expect(codes(typed) == ["expression-type"], "a number answer compared with a text")
    }

    @Test(
        "A day's step: months keep the day where the month has it, days cross months, years and leap days",
        arguments: [
            ("2024-01-31", 0, 1, "2024-02-29"), ("2023-01-31", 0, 1, "2023-02-28"), ("2026-12-31", 1, 0, "2027-01-01"),
            ("2024-03-01", -1, 0, "2024-02-29"), ("2026-01-15", 0, -1, "2025-12-15"), ("2000-02-28", 1, 0, "2000-02-29"),
            ("1900-02-28", 1, 0, "1900-03-01"), ("0001-01-01", 365, 0, "0002-01-01"), ("2026-05-31", 0, 13, "2027-06-30"),
        ])
    func daySteps(start: String, days: Int, months: Int, expected: String) {
        #expect(RocketInputType.day(start, days: days, months: months) == expected)
    }

    @Test("No day comes of a text that is no day, or of a step past years 1 to 9999")
    func dayStepLimits() {
        #expect(RocketInputType.day("2026-02-30", days: 1, months: 0) == nil)
        #expect(RocketInputType.day("9999-12-31", days: 1, months: 0) == nil)
        #expect(RocketInputType.day("0001-01-01", days: -1, months: 0) == nil)
        #expect(RocketInputType.day("0001-01-01", days: 0, months: -1) == nil)
        #expect(RocketInputType.day("2026-01-01", days: Int.max, months: 0) == nil)
        // Every step of a day, a whole leap cycle long, lands on a day and comes back.
        var day = "1999-12-20"
        for _ in 0..<(4 * 366) {
            guard let next = RocketInputType.day(day, days: 1, months: 0) else { Issue.record("no day after \(day)"); return }
            #expect(RocketInputType.isDate(next) && next > day)
            #expect(RocketInputType.day(next, days: -1, months: 0) == day)
            day = next
        }
    }
}
