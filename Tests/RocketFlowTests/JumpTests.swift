import RocketConversation
import RocketCore
import Testing

@testable import RocketFlow

/// Jumps within a flow and into other flows, with returns.
@Suite("Jumps")
struct JumpTests {
    static let main = #"""
        {"version": 1, "vars": {"plan": "free"}, "blocks": [
         {"id": "hi", "type": "text", "text": "Hi", "next": "go"},
         {"id": "go", "type": "jump", "flow": "billing", "return": true, "next": "after"},
         {"id": "after", "type": "text", "text": "Back with {{plan}} and {{card}}", "next": "loop"},
         {"id": "loop", "type": "jump", "to": "hi2"},
         {"id": "hi2", "type": "text", "text": "The end"}
        ]}
        """#
    static let billing = #"""
        {"version": 1, "vars": {"plan": "free", "seats": 1}, "blocks": [
         {"id": "card", "type": "textInput", "text": "Card for {{plan}}?", "buttonTitle": "OK", "next": "upgrade"},
         {"id": "upgrade", "type": "set", "set": {"plan": "'pro'", "seats": "seats + 1"}}
        ]}
        """#

    func link(_ main: String = main, flows: [String: String] = ["billing": billing]) -> (FlowDocument?, [FlowDiagnostic]) {
        guard let doc = FlowLoader.load(main).document else { return (nil, FlowLoader.load(main).diagnostics) }
        let linked = doc.linked(name: "main") { name in flows[name].map { FlowLoader.load($0) } }
        return (linked.diagnostics.isEmpty ? linked.document : nil, FlowLoader.placed(linked.diagnostics, in: Array(main.utf8)))
    }

    @Test("a returning jump plays the other flow with the same variables, then goes on at next; a plain jump goes to its block")
    func returns() throws {
        let (doc, problems) = link()
        #expect(problems.isEmpty)
        let linked = try #require(doc)
        #expect(linked.graph.nodes.count == 7)
        #expect(linked.graph.variables.map(\.name) == ["plan", "seats"])
        var c = try #require(linked.makeConversation(options: ConversationOptions(timing: .instant)))
        var events = c.start(at: 0).events
        events += try c.send(.tap, at: 1).events
        #expect(events.contains(.jumped(blockID: "go", to: "card", flow: "billing")))
        #expect(c.interactiveBlock?.id == "card")
        #expect(c.transcript.last.map { if case .block(_, _, let t) = $0 { t } else { "" } } == "Card for free?")
        _ = try c.send(.submit("4242"), at: 2)
        #expect(c.variables["plan"] == .text("pro") && c.variables["seats"] == .number(2))
        #expect(c.interactiveBlock?.id == "after", "the other flow ended: back at the jump's next")
        #expect(c.transcript.last.map { if case .block(_, _, let t) = $0 { t } else { "" } } == "Back with pro and 4242")
        _ = try c.send(.tap, at: 3)
        #expect(c.interactiveBlock?.id == "hi2")
        // Going back into the other flow restores where the jump returns to.
        _ = try c.send(.back, at: 4)
        #expect(c.interactiveBlock?.id == "card")
        #expect(c.state.returns.count == 1)
        _ = try c.send(.submit("1111"), at: 5)
        #expect(c.interactiveBlock?.id == "after")
        // Snapshots keep the returns.
        var inside = try #require(linked.makeConversation(options: ConversationOptions(timing: .instant)))
        inside.start(at: 0)
        _ = try inside.send(.tap, at: 1)
        let text = try ConversationSnapshot(inside, at: 1).jsonText()
        #expect(text.contains(#""returns":["after"]"#))
        var back = try ConversationSnapshot(jsonText: Array(text.utf8), graph: inside.graph).restore(
            graph: inside.graph, author: inside.author, closeButton: inside.closeButton, options: inside.options, at: 1)
        _ = try back.send(.submit("1"), at: 2)
        #expect(back.interactiveBlock?.id == "after")
    }

    @Test("linking: an unknown flow, a flow with errors, ids used twice, a variable of another type, a bad name")
    func linkingProblems() {
        #expect(link(flows: [:]).1.map { "\($0.line ?? 0):\($0.column ?? 0) \($0.code)" } == ["3:39 unknown-flow"])
        #expect(link(flows: ["billing": #"{"version": 1, "blocks": []}"#]).1.map(\.code) == ["invalid-flow"])
        let clash = Self.billing.replacing(#""id": "card""#, with: #""id": "after""#).replacing(#""next": "upgrade"}"#, with: #""next": "upgrade"}"#)
        #expect(link(flows: ["billing": clash]).1.map(\.code).contains("duplicate-id"))
        let typed = Self.billing.replacing(#""plan": "free", "seats""#, with: #""plan": 3, "seats""#)
            .replacing(#""set": {"plan": "'pro'", "seats": "seats + 1"}"#, with: #""set": {"seats": "seats + 1"}"#)
            .replacing("Card for {{plan}}?", with: "Card?")
        #expect(link(flows: ["billing": typed]).1.map(\.code) == ["variable-type"])
        let r = FlowLoader.load(Self.main.replacing(#""flow": "billing""#, with: #""flow": "../etc""#))
        #expect(r.errors.map(\.code) == ["bad-name"])
        let both = FlowLoader.load(Self.main.replacing(#""flow": "billing""#, with: #""flow": "billing", "to": "hi""#))
        #expect(both.errors.map(\.code) == ["jump-target"])
    }

    @Test("a flow that jumps into itself with return stops at the depth limit; a jump loop with no input is an error")
    func limits() throws {
        let selfish = #"""
            {"version": 1, "blocks": [
             {"id": "t", "type": "text", "text": "again", "next": "j"},
             {"id": "j", "type": "jump", "flow": "main", "return": true}
            ]}
            """#
        let (doc, problems) = link(selfish, flows: [:])
        #expect(problems.isEmpty)
        var c = try #require(doc?.makeConversation(options: ConversationOptions(timing: .instant)))
        c.start(at: 0)
        var events: [RocketEvent] = []
        for k in 0..<100 where c.interactiveBlock != nil { events += try c.send(.tap, at: Double(k)).events }
        #expect(events.contains { if case .expressionError(_, _, let e) = $0 { e.code == "jump-depth" } else { false } })
        #expect(c.status.reason == .completed)
        let loop = FlowLoader.load(
            #"{"version": 1, "blocks": [{"id": "a", "type": "jump", "to": "b"}, {"id": "b", "type": "jump", "to": "a"}]}"#)
        #expect(loop.errors.map(\.code) == ["endless-loop"])
    }
}

/// Every new rule of lint at its exact place.
@Suite("The flow language's lint rules, at their places")
struct LanguageLintPlaceTests {
    @Test("each kind of problem at its line and column")
    func places() {
        let json = """
            {"version": 1, "vars": {"n": 0, "a": 1},
             "blocks": [
              {"id": "a", "type": "text", "text": "x", "next": "i"},
              {"id": "i", "type": "textInput", "text": "?", "buttonTitle": "OK", "inputType": "email", "min": 3, "next": "d"},
              {"id": "d", "type": "textInput", "text": "?", "buttonTitle": "OK", "inputType": "date", "min": "2026-02-01", "max": "2026-01-01", "next": "c"},
              {"id": "c", "type": "choice", "text": "?", "min": 1, "options": [{"title": "A", "next": "m"}, {"title": "B", "next": "m"}]},
              {"id": "m", "type": "choice", "text": "?", "multiple": true, "options": [{"title": "A", "next": "j"}, {"title": "B"}], "next": "j"},
              {"id": "j", "type": "jump", "to": "s", "next": "s"},
              {"id": "s", "type": "set", "set": {"nope": "1"}, "next": "k"},
              {"id": "k", "type": "jump"}
             ]}
            """
        let found = FlowLoader.load(json).diagnostics.map { "\($0.line ?? 0):\($0.column ?? 0) \($0.code)" }
        #expect(
            found == [
                "1:38 duplicate-id", "4:99 bad-bound", "5:98 impossible-range", "6:53 needs-multiple", "7:99 ignored-next",
                "8:50 ignored-next", "9:46 unknown-variable", "10:3 jump-target",
            ], "\(found)")
    }

    @Test("a loop with no input through a jump into another flow and back is found once the flows are linked")
    func acrossFlows() {
        let a = #"{"version": 1, "blocks": [{"id": "a", "type": "jump", "flow": "b"}]}"#
        let b = #"{"version": 1, "blocks": [{"id": "b", "type": "jump", "flow": "a"}]}"#
        guard let doc = FlowLoader.load(a).document else {
            Issue.record("a does not load")
            return
        }
        let linked = doc.linked(name: "a") { $0 == "b" ? FlowLoader.load(b) : nil }
        #expect(linked.diagnostics.map(\.code) == ["endless-loop"])
        #expect(linked.diagnostics.first?.message.contains("across the flows this one jumps into") == true)
    }
}
