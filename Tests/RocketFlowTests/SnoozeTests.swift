import RocketConversation
import RocketFlow
import RocketJSON
import RocketScenarioEngine
import Testing

@Suite("Buttons that snooze their flow")
struct SnoozeTests {
    static let flow = #"""
        {"version": 1, "blocks": [
         {"id": "ask", "type": "choice", "text": "Enjoying it?",
          "options": [{"title": "Rate us", "link": "https://example.org/rate"}, {"title": "Remind me later", "snooze": "7d"},
                      {"title": "No thanks", "snooze": "forever"}, {"title": "In an hour", "snooze": 3600}]}
        ]}
        """#

    @Test("snooze is a duration (1 s to 100 years) or forever, read and written back; anywhere else it is refused at its place")
    func format() throws {
        let r = FlowLoader.load(Self.flow)
        #expect(r.diagnostics.isEmpty, "\(r.diagnostics)")
        let doc = try #require(r.document)
        guard case .choice(let c) = doc.graph.nodes[0].content else { Issue.record("not a choice"); return }
        #expect(c.options.map(\.snooze) == [nil, "7d", "forever", "3600"])
        #expect(c.options.compactMap { $0.snooze.flatMap(RocketButtonNode.snoozeSeconds) } == [604_800, .infinity, 3600])
        #expect(doc.snoozes && doc.graph.nodes[0].snoozes)
        let written = doc.jsonValue.serialized(pretty: false)
        #expect(written.contains(#""snooze":"7d""#) && written.contains(#""snooze":"forever""#) && written.contains(#""snooze":3600"#), "\(written)")
        #expect(FlowLoader.load(Array(written.utf8)).document == doc)
        #expect(FlowGraph.mermaid(doc).contains("Remind me later ⏸7d"))
        for bad in [#""soon""#, "0", #""0.5s""#, #""6000w""#, "-1", #""""#, "true", #""Forever""#] {
            let b = FlowLoader.load(#"{"version": 1, "blocks": [{"id": "b", "type": "button", "title": "Later", "snooze": \#(bad)}]}"#)
            #expect(b.errors.first?.path == "blocks[0].snooze", "\(bad): \(b.diagnostics)")
        }
        let many = FlowLoader.load(
            #"{"version": 1, "blocks": [{"id": "m", "type": "choice", "text": "?", "multiple": true, "options": [{"title": "A", "snooze": "1d"}, {"title": "B"}]}]}"#
        )
        #expect(many.errors.map(\.code) == ["snooze-in-multiple"] && many.errors.first?.path == "blocks[0].options[0].snooze", "\(many.diagnostics)")
        // A flow without a snooze is written, and hashed, as before.
        let plain = try #require(FlowLoader.load(#"{"version": 1, "blocks": [{"id": "b", "type": "button", "title": "OK"}]}"#).document)
        #expect(!plain.snoozes && !plain.jsonValue.serialized(pretty: false).contains("snooze"))
    }

    @Test("the button an intent would press: of the block that waits, of the intent's kind")
    func pressedBy() throws {
        var c = try #require(FlowLoader.load(Self.flow).document?.makeConversation(options: ConversationOptions(timing: .instant)))
        c.start(at: 0)
        #expect(c.button(pressedBy: .choose(1))?.snooze == "7d")
        #expect(c.button(pressedBy: .choose(0))?.snooze == nil && c.button(pressedBy: .choose(0))?.title == "Rate us")
        #expect(c.button(pressedBy: .choose(9)) == nil && c.button(pressedBy: .pressLeft) == nil && c.button(pressedBy: .tap) == nil)
        _ = try c.send(.choose(1), at: 1)
        #expect(c.button(pressedBy: .choose(1)) == nil, "nothing waits")
    }

    @Test("kept as the moment it ends: refused until then with it as the earliest; forever has none; a later press wins")
    func kept() throws {
        let store = InMemoryScenarioStore()
        let t = 1_796_342_400.0
        #expect(try FlowSnooze.refusal(in: store, flow: "rate", visitor: "v", at: t) == nil)
        try FlowSnooze.record(in: store, flow: "rate", visitor: "v", seconds: 7 * 86_400, at: t)
        let week = try #require(try FlowSnooze.refusal(in: store, flow: "rate", visitor: "v", at: t + 86_400))
        #expect(week.reason == "snoozed until 2026-12-11T00:00:00Z" && week.earliest == t + 7 * 86_400)
        #expect(try FlowSnooze.refusal(in: store, flow: "rate", visitor: "v", at: t + 7 * 86_400) == nil)
        #expect(try FlowSnooze.refusal(in: store, flow: "rate", visitor: "w", at: t + 86_400) == nil, "another visitor")
        #expect(try FlowSnooze.refusal(in: store, flow: "other", visitor: "v", at: t + 86_400) == nil, "another flow")
        try FlowSnooze.record(in: store, flow: "rate", visitor: "v", seconds: .infinity, at: t + 8 * 86_400)
        let never = try #require(try FlowSnooze.refusal(in: store, flow: "rate", visitor: "v", at: 1e11))
        #expect(never.reason == "asked not to be shown it again" && never.earliest == nil)
        // Changed their mind: a shorter snooze pressed later wins.
        let other = InMemoryScenarioStore()
        try FlowSnooze.record(in: other, flow: "rate", visitor: nil, seconds: .infinity, at: t)
        try FlowSnooze.record(in: other, flow: "rate", visitor: nil, seconds: 3600, at: t + 60)
        #expect(try FlowSnooze.refusal(in: other, flow: "rate", visitor: nil, at: t + 3661) == nil)
        #expect(FlowSnooze.scenarioName(flow: "rate", visitor: "v") == "rocket.snoozed.rate@v" && FlowSnooze.until(seconds: .nan, at: t) > 2e11)
    }
}
