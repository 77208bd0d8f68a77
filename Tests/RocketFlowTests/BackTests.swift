import RocketConversation
import RocketCore
import Testing

@testable import RocketFlow

/// Going back to change an earlier answer.
@Suite("Going back")
struct BackTests {
    static let flow = #"""
        {"version": 1, "vars": {"visits": 0}, "blocks": [
         {"id": "hi", "type": "text", "text": "Hi", "next": "name"},
         {"id": "name", "type": "textInput", "text": "Name?", "buttonTitle": "OK", "next": "count"},
         {"id": "count", "type": "set", "set": {"visits": "visits + 1"}, "next": "plan"},
         {"id": "plan", "type": "choice", "text": "Plan, {{name}}?",
          "options": [{"title": "Free", "next": "route"}, {"title": "Pro", "action": "upsell", "next": "route"}]},
         {"id": "route", "type": "condition", "branches": [{"if": "plan == 'Pro'", "next": "pro"}], "else": "free"},
         {"id": "pro", "type": "text", "text": "Pro for {{name}} ({{visits}})", "next": "mail"},
         {"id": "free", "type": "text", "text": "Free for {{name}} ({{visits}})", "next": "mail"},
         {"id": "mail", "type": "textInput", "text": "E-mail?", "buttonTitle": "OK"}
        ]}
        """#

    func walk(_ json: String = flow, allowed: Bool = true) throws -> Conversation {
        var c = try #require(FlowLoader.load(json).document?.makeConversation(options: ConversationOptions(timing: .instant, echoReplies: true)))
        c.start(at: 0)
        #expect(c.acceptedIntents == [.tap], "nothing answered yet: no back")
        _ = try c.send(.tap, at: 1)
        _ = try c.send(.submit("Ada"), at: 2)
        #expect(c.acceptedIntents == (allowed ? [.choose, .back] : [.choose]))
        let effects = try c.send(.choose(1), at: 3)
        #expect(effects.events.contains(.action(name: "upsell", blockID: "plan")))
        _ = try c.send(.tap, at: 4)
        #expect(c.backTarget == (allowed ? 2 : nil), "the choice, not the text tapped after it")
        return c
    }

    func texts(_ c: Conversation) -> [String] {
        c.transcript.map {
            switch $0 {
            case .block(_, _, let t): return t
            case .reply(_, let t, _): return "you: " + t
            }
        }
    }

    @Test("back reopens the last answered block: later items, answers and timers go; variables are as they were; it re-decides")
    func reopens() throws {
        var c = try walk()
        #expect(texts(c) == ["Hi", "Name?", "you: Ada", "Plan, Ada?", "Pro for Ada (1)", "E-mail?"])
        let effects = try c.send(.back, at: 5)
        #expect(effects.events == [.wentBack(index: 2, id: "plan")])
        #expect(texts(c) == ["Hi", "Name?", "you: Ada", "Plan, Ada?"])
        #expect(c.answers["plan"] == nil && c.answers["name"]?.value == "Ada")
        #expect(c.chosenOptions[2] == nil)
        #expect(c.interactiveIndex == 2)
        #expect(c.variables["visits"] == .number(1), "the set before the choice is not undone, nor run twice")
        _ = try c.send(.choose(0), at: 6)
        #expect(texts(c).last == "Free for Ada (1)", "the condition runs again")
        // Back twice: to the choice, then to the name; the set after the name runs again once.
        _ = try c.send(.back, at: 7)
        _ = try c.send(.back, at: 8)
        #expect(texts(c) == ["Hi", "Name?"])
        #expect(c.variables["visits"] == .number(0))
        _ = try c.send(.submit("Grace"), at: 9)
        #expect(c.variables["visits"] == .number(1))
        #expect(texts(c).last == "Plan, Grace?")
        #expect(throws: RocketIntentError.cannotGoBack) {
            var first = try #require(FlowLoader.load(Self.flow).document?.makeConversation(options: ConversationOptions(timing: .instant)))
            first.start(at: 0)
            try first.send(.back, at: 1)
        }
    }

    @Test("a snapshot taken after answers resumes with the variables each answer found, so back works after a restart")
    func snapshot() throws {
        let c = try walk()
        let text = try ConversationSnapshot(c, at: 5).jsonText()
        #expect(text.contains(#""checkpoints":{"1":{"visits":0},"2":{"visits":1}}"#), "only where the variables changed")
        var back = try ConversationSnapshot(jsonText: Array(text.utf8), graph: c.graph).restore(
            graph: c.graph, author: c.author, closeButton: c.closeButton, options: c.options, at: 5)
        _ = try back.send(.back, at: 6)
        _ = try back.send(.back, at: 7)
        #expect(back.variables["visits"] == .number(0))
    }

    @Test("allowBack false refuses back and offers none")
    func notAllowed() throws {
        var c = try walk(Self.flow.replacing(#""vars": {"visits": 0},"#, with: #""vars": {"visits": 0}, "allowBack": false,"#), allowed: false)
        #expect(c.backTarget == nil)
        #expect(!c.acceptedIntents.contains(.back))
        #expect(throws: RocketIntentError.cannotGoBack) { try c.send(.back, at: 5) }
        #expect(RocketEvent.wentBack(index: 2, id: "plan").recordText == #"{"event":"wentBack","index":2,"id":"plan"}"#)
    }
}
