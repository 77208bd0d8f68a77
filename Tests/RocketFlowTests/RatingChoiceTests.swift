import RocketConversation
import RocketCore
import RocketJSON
import Testing

@testable import RocketFlow

/// Rating blocks and multiple choices: the engine, line mode, keys, snapshots, lint.
@Suite("Ratings and multiple choices")
struct RatingChoiceTests {
    static let flow = #"""
        {"version": 1, "blocks": [
         {"id": "stars", "type": "rating", "text": "How was it?", "scale": 5, "labels": {"low": "Poor", "high": "Great"}, "next": "food"},
         {"id": "food", "type": "choice", "text": "What did you have?", "multiple": true, "min": 1, "max": 2,
          "options": [{"title": "Tea"}, {"title": "Cake", "action": "cake"}, {"title": "Milk"}], "next": "check"},
         {"id": "check", "type": "condition", "branches": [{"if": "'Cake' in food and stars >= 4", "next": "happy"}], "else": "other"},
         {"id": "happy", "type": "text", "text": "{{stars}} stars and {{food}}!"},
         {"id": "other", "type": "text", "text": "Thanks: {{food}}."}
        ]}
        """#

    func started() throws -> Conversation {
        let r = FlowLoader.load(Self.flow)
        #expect(r.diagnostics.isEmpty, "\(r.diagnostics)")
        var c = try #require(r.document?.makeConversation(options: ConversationOptions(timing: .instant)))
        c.start(at: 0)
        return c
    }

    @Test("a rating takes 1 to its scale and is a number; a multiple choice takes min to max options and is a list")
    func engine() throws {
        var c = try started()
        #expect(c.acceptedIntents == [.rate])
        #expect(throws: RocketIntentError.noSuchOption(6)) { try c.send(.rate(6), at: 1) }
        #expect(throws: RocketIntentError.wrongKind(expected: .rating, intent: .tap)) { try c.send(.tap, at: 1) }
        _ = try c.send(.rate(4), at: 1)
        #expect(c.answers["stars"]?.typed == .number(4))
        #expect(c.chosenOptions[0] == 3)
        #expect(c.acceptedIntents == [.chooseMany, .back])
        #expect(throws: RocketIntentError.invalidInput(RocketValidationFailure(rule: .tooManyChosen(2), message: nil))) {
            try c.send(.chooseMany([0, 1, 2]), at: 2)
        }
        #expect(c.inputError?.rule == .tooManyChosen(2))
        #expect(throws: RocketIntentError.invalidInput(RocketValidationFailure(rule: .tooFewChosen(1), message: nil))) {
            try c.send(.chooseMany([]), at: 2)
        }
        #expect(throws: RocketIntentError.noSuchOption(7)) { try c.send(.chooseMany([7]), at: 2) }
        let effects = try c.send(.chooseMany([1, 0, 1]), at: 3)
        #expect(effects.events.contains(.action(name: "cake", blockID: "food")), "a chosen option's action is reported")
        #expect(c.answers["food"]?.typed == .list(["Tea", "Cake"]))
        #expect(c.answers["food"]?.value == "Tea, Cake")
        #expect(c.chosenSets[1] == [0, 1])
        #expect(c.transcript.last.map { if case .block(_, _, let t) = $0 { t } else { "" } } == "4 stars and Tea, Cake!")
        // Snapshots keep both, and read them back.
        let text = try ConversationSnapshot(c, at: 3).jsonText()
        #expect(text.contains(#""stars":{"value":4}"#) && text.contains(#""food":{"value":["Tea","Cake"]}"#))
        #expect(text.contains(#""chosen":[0,1]"#) && text.contains(#""chosen":3"#))
        let back = try ConversationSnapshot(jsonText: Array(text.utf8), graph: c.graph)
        #expect(back.state.chosenSets?[1] == [0, 1])
        #expect(back.state.answers["food"]?.typed == .list(["Tea", "Cake"]))
    }

    @Test("a scale from 0 takes 0 to its top: its option is the value itself, its record's title the number; from is 0 or 1, written only when 0")
    func fromZero() throws {
        let text =
            #"{"version": 1, "blocks": [{"id": "nps", "type": "rating", "text": "Recommend us?", "from": 0, "scale": 10, "next": "bye"}, {"id": "bye", "type": "text", "text": "{{nps}}"}]}"#
        let r = FlowLoader.load(text)
        #expect(r.diagnostics.isEmpty, "\(r.diagnostics)")
        let doc = try #require(r.document)
        guard case .rating(let node) = doc.graph.nodes[0].content else { Issue.record("not a rating"); return }
        #expect(node.lowest == 0 && node.values == 0...10)
        #expect(
            doc.jsonValue.serialized(pretty: false).contains(#""from":0,"scale":10"#)
                || doc.jsonValue.serialized(pretty: false).contains(#""scale":10,"from":0"#))
        var c = try #require(doc.makeConversation(options: ConversationOptions(timing: .instant)))
        c.start(at: 0)
        #expect(throws: RocketIntentError.noSuchOption(11)) { try c.send(.rate(11), at: 1) }
        #expect(throws: RocketIntentError.noSuchOption(-1)) { try c.send(.rate(-1), at: 1) }
        let effects = try c.send(.rate(0), at: 1)
        #expect(effects.events.contains(.buttonPressed(index: 0, id: "nps", side: nil, title: "0", options: [0], titles: ["0"])), "\(effects.events)")
        #expect(c.answers["nps"]?.typed == .number(0) && c.chosenOptions[0] == 0)
        // A snapshot keeps it; the graph's hash stays for scales from 1 (the field is written only when 0).
        let saved = try ConversationSnapshot(c, at: 1).jsonText()
        let back = try ConversationSnapshot(jsonText: Array(saved.utf8), graph: c.graph)
        #expect(back.state.chosenOptions?[0] == 0)
        var one = node
        one.lowest = 1
        let encoded = try JSONCoding.encode(one).serialized(pretty: false)
        let encodedZero = try JSONCoding.encode(node).serialized(pretty: false)
        #expect(!encoded.contains("lowest") && encodedZero.contains(#""lowest":0"#))
        // Given answers (rocket play --answers, a test case) take 0 here, not on a scale from 1.
        #expect(doc.graph.nodes[0].intent(answering: .number(0)) { $0 } == .success(.rate(0)))
        let stars = try #require(FlowLoader.load(#"{"version": 1, "blocks": [{"id": "s", "type": "rating", "text": "?"}]}"#).document)
        guard case .failure(let refusal) = stars.graph.nodes[0].intent(answering: .text("0"), shown: { $0 }) else { Issue.record("0 taken"); return }
        #expect(refusal.message == "'0' is not a whole number from 1 to 5")
        // Lint: from is 0 or 1.
        for bad in [#""from": 2"#, #""from": -1"#, #""from": "0""#, #""from": 0.5"#] {
            let b = FlowLoader.load(#"{"version": 1, "blocks": [{"id": "s", "type": "rating", "text": "?", \#(bad)}]}"#)
            #expect(b.errors.first?.path == "blocks[0].from", "\(bad): \(b.diagnostics)")
        }
        #expect(FlowGraph.mermaid(doc).contains("rating 0–10"))
    }

    @Test("lint: a multiple choice's bounds fit its options; min, max and next belong to multiple choices; scale 2 to 10")
    func lint() {
        func codes(_ json: String) -> [String] { FlowLoader.load(json).diagnostics.map(\.code) }
        let options = #""options": [{"title": "A"}, {"title": "B"}]"#
        #expect(
            codes(#"{"version": 1, "blocks": [{"id": "c", "type": "choice", "text": "?", "multiple": true, "max": 3, "# + options + "}]}") == [
                "impossible-range"
            ])
        #expect(codes(#"{"version": 1, "blocks": [{"id": "c", "type": "choice", "text": "?", "min": 1, "# + options + "}]}") == ["needs-multiple"])
        #expect(
            codes(
                #"{"version": 1, "blocks": [{"id": "c", "type": "choice", "text": "?", "multiple": true, "options": [{"title": "A", "next": "c"}, {"title": "B"}]}]}"#
            )
                == ["ignored-next"])
        #expect(codes(#"{"version": 1, "blocks": [{"id": "r", "type": "rating", "text": "?", "scale": 11}]}"#) == ["out-of-range"])
        #expect(codes(#"{"version": 1, "blocks": [{"id": "r", "type": "rating", "text": "?"}]}"#).isEmpty, "scale defaults to 5")
    }
}
