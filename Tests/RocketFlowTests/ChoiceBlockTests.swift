import RocketConversation
import RocketCore
import RocketJSON
import Testing
@testable import RocketFlow

@Suite("The choice block: a list of options in a flow")
struct ChoiceBlockTests {
    static let flow = #"""
        {"version": 1, "blocks": [
         {"id": "plan", "type": "choice", "text": "Which plan?", "options": [
           {"title": "Free", "next": "free"}, {"title": "Pro", "next": "pro", "action": "upgrade"}, {"title": "Team", "next": "pro"}]},
         {"id": "free", "type": "text", "text": "Free it is."},
         {"id": "pro", "type": "text", "text": "Great, {{plan}}!"}
        ]}
        """#

    @Test("It loads, lints clean, writes back unchanged, and the chosen option leads on and is the answer")
    func play() throws {
        let result = FlowLoader.load(Self.flow)
        #expect(result.diagnostics.isEmpty, "\(result.diagnostics)")
        let doc = try #require(result.document)
        #expect(FlowLoader.load(doc.jsonValue.serialized()).document == doc)
        var c = try #require(doc.makeConversation(options: ConversationOptions(timing: .instant)))
        c.start(at: 0)
        #expect(c.interactiveBlock?.kind == .choice)
        #expect(throws: RocketIntentError.noSuchOption(3)) { try c.send(.choose(3), at: 0) }
        #expect(throws: RocketIntentError.self) { try c.send(.pressLeft, at: 0) }
        let effects = try c.send(.choose(1), at: 0)
        #expect(effects.contains(.event(.action(name: "upgrade", blockID: "plan"))))
        c.advance(to: 1)
        #expect(c.answers["plan"]?.value == "Pro")
        #expect(c.chosenOptions[0] == 1)
        #expect(c.transcript.contains { if case .block(_, _, let text) = $0 { return text == "Great, Pro!" } else { return false } })
    }

    @Test(
        "Lint: fewer than two options, a missing title, a wrong type, and an option leading nowhere",
        arguments: [
            (#"[{"title": "A"}]"#, "at least two options"), (#"[{"title": "A"}, {"next": "x"}]"#, "title"),
            (#""A, B""#, "must be an array"), (#"[{"title": "A"}, {"title": "B", "next": "nowhere"}]"#, "nowhere"),
            ("[" + Array(repeating: #"{"title": "A"}"#, count: 100_000).joined(separator: ",") + "]", "at most 100 options, not 100000"),
        ])
    func lint(options: String, fragment: String) {
        let text = #"{"version": 1, "blocks": [{"id": "c", "type": "choice", "text": "Q", "options": "# + options + "}]}"
        let result = FlowLoader.load(text)
        let errors = result.diagnostics.filter { $0.severity == .error }.map(\.message)
        #expect(errors.contains { $0.contains(fragment) }, "\(errors)")
    }

    @Test("A snapshot keeps the choice; one made before choice blocks existed still loads")
    func snapshot() throws {
        let doc = try #require(FlowLoader.load(Self.flow).document)
        var c = try #require(doc.makeConversation(options: ConversationOptions(timing: .instant)))
        c.start(at: 0)
        _ = try c.send(.choose(2), at: 0)
        let text = try ConversationSnapshot(c, at: 0, flow: "f").jsonText()
        #expect(text.contains(#""blocks":[{"id":"plan","fired":true,"tapEnabled":true,"chosen":2}"#))
        let back = try ConversationSnapshot(jsonText: Array(text.utf8), graph: c.graph, identity: "f")
        #expect(back.state.chosenOptions == [0: 2])
        var old = back.state
        old.chosenOptions = nil
        #expect(
            old.chosenOptions == nil && Conversation(graph: c.graph, author: c.author, closeButton: nil, options: c.options, state: old).chosenOptions.isEmpty)
    }
}
