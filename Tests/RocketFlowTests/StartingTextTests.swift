import RocketConversation
import RocketCore
import Testing

@testable import RocketFlow

/// What a text field starts with: the flow's `value`, or the answer a person went back to change.
@Suite("A text input's starting text")
struct StartingTextTests {
    static let flow = #"""
        {"version": 1, "vars": {"plan": "Pro", "age": 0}, "blocks": [
         {"id": "mail", "type": "textInput", "text": "E-mail?", "buttonTitle": "OK", "next": "again"},
         {"id": "again", "type": "textInput", "text": "Confirm it", "buttonTitle": "OK", "value": "{{mail}}", "next": "plan"},
         {"id": "plan", "type": "textInput", "text": "Plan?", "buttonTitle": "OK", "value": "{{plan}} for {{nick}}, {{odd}}", "next": "pin"},
         {"id": "pin", "type": "textInput", "text": "PIN?", "buttonTitle": "OK", "secret": true, "next": "count"},
         {"id": "count", "type": "textInput", "text": "How many?", "buttonTitle": "OK", "inputType": "integer", "value": "3", "next": "nick"},
         {"id": "nick", "type": "textInput", "text": "Nickname?", "buttonTitle": "OK"}
        ]}
        """#

    func start(_ json: String = flow) throws -> Conversation {
        var c = try #require(FlowLoader.load(json).document?.makeConversation(options: ConversationOptions(timing: .instant, echoReplies: true)))
        c.start(at: 0)
        return c
    }

    @Test(
        "value fills {{name}} when the block is asked: an answer, a variable; a name the flow has with no value yet fills nothing, one it does not have stays")
    func value() throws {
        var c = try start()
        #expect(c.interactiveIndex == 0 && c.startingText(at: 0) == nil, "no value: an empty field")
        _ = try c.send(.submit("ada@example.org"), at: 1)
        #expect(c.startingText(at: 1) == "ada@example.org")
        #expect(c.startingText(at: 0) == nil, "only the block that waits has one")
        _ = try c.send(.submit("ada@example.org"), at: 2)
        // nick is a block with no answer yet: nothing; odd is no name of the flow: as written.
        #expect(c.startingText(at: 2) == "Pro for , {{odd}}")
        _ = try c.send(.submit("Pro"), at: 3)
        #expect(c.startingText(at: 3) == nil, "a secret input has none")
        _ = try c.send(.submit("1234"), at: 4)
        #expect(c.startingText(at: 4) == "3", "a typed input starts with its value as text")
    }

    @Test("going back to a text input starts its field with the answer it had; a secret one starts empty")
    func back() throws {
        var c = try start()
        _ = try c.send(.submit("ada@exmaple.org"), at: 1)
        _ = try c.send(.back, at: 2)
        #expect(c.interactiveIndex == 0 && c.startingText(at: 0) == "ada@exmaple.org")
        _ = try c.send(.submit("ada@example.org"), at: 3)
        #expect(c.startingText(at: 1) == "ada@example.org", "the value is filled with the changed answer")
        _ = try c.send(.submit("ada@example.org"), at: 4)
        _ = try c.send(.submit("Team"), at: 5)
        _ = try c.send(.back, at: 6)
        #expect(c.startingText(at: 2) == "Team", "the answer gone back to wins over the value")
        _ = try c.send(.submit("Team"), at: 7)
        _ = try c.send(.submit("1234"), at: 8)
        _ = try c.send(.back, at: 9)
        #expect(c.interactiveIndex == 3 && c.startingText(at: 3) == nil, "a secret answer is never put back on screen")
        _ = try c.send(.submit("1234"), at: 10)
        _ = try c.send(.submit("12"), at: 11)
        _ = try c.send(.back, at: 12)
        #expect(c.startingText(at: 4) == "12", "a typed answer as its text")
        // A block without an id (a graph made in code) keeps no answer: the reply the transcript
        // shows is put back.
        var graph = RocketGraph()
        graph.root = graph.add(RocketNode(content: .textInput(RocketInputNode(text: "A?", buttonTitle: "OK", next: RocketNodeID(1)))))
        _ = graph.add(RocketNode(content: .textInput(RocketInputNode(text: "B?", buttonTitle: "OK"))))
        var d = Conversation(graph: graph, options: ConversationOptions(timing: .instant, echoReplies: true))
        d.start(at: 0)
        _ = try d.send(.submit("first"), at: 1)
        _ = try d.send(.back, at: 2)
        #expect(d.startingText(at: 0) == "first")
    }

    @Test("the answer gone back to survives a snapshot")
    func snapshot() throws {
        var c = try start()
        _ = try c.send(.submit("ada@example.org"), at: 1)
        _ = try c.send(.back, at: 2)
        let text = try ConversationSnapshot(c, at: 2).jsonText()
        let back = try ConversationSnapshot(jsonText: Array(text.utf8), graph: c.graph).restore(
            graph: c.graph, author: c.author, closeButton: c.closeButton, options: c.options, at: 2)
        #expect(back.startingText(at: 0) == "ada@example.org")
    }

    @Test("lint: a secret input with a value is an error; a value its own rules refuse is a warning")
    func lint() throws {
        func codes(_ block: String) -> [String] {
            FlowLoader.load(#"{"version": 1, "blocks": [{"id": "q", "# + block + "]}").diagnostics.map(\.code)
        }
        #expect(codes(#""type": "textInput", "text": "PIN?", "buttonTitle": "OK", "secret": true, "value": "0000"}"#) == ["secret-value"])
        let refused = FlowLoader.load(
            #"{"version": 1, "blocks": [{"id": "q", "type": "textInput", "text": "N?", "buttonTitle": "OK", "inputType": "integer", "max": 5, "value": "9"}]}"#
        ).diagnostics
        #expect(refused.map(\.code) == ["value-refused"])
        #expect(refused.first?.message.contains("it is above the greatest accepted, 5") == true, "\(refused)")
        #expect(codes(#""type": "textInput", "text": "N?", "buttonTitle": "OK", "inputType": "integer", "value": "{{n}}"}"#) == ["unknown-placeholder"])
        #expect(codes(#""type": "textInput", "text": "N?", "buttonTitle": "OK", "inputType": "email", "value": "a@b.org"}"#) == [])
    }
}

/// What a choice or a rating starts with: a multiple choice's `selected` options, or the answer a
/// person went back to change.
@Suite("A choice's starting options")
struct StartingChoicesTests {
    static let flow = #"""
        {"version": 1, "blocks": [
         {"id": "food", "type": "choice", "text": "What would you like?", "multiple": true, "max": 2,
          "options": [{"title": "Tea", "selected": true}, {"title": "Cake"}, {"title": "Milk", "selected": true}], "next": "size"},
         {"id": "size", "type": "choice", "text": "Size?", "options": [{"title": "S", "next": "stars"}, {"title": "L", "next": "stars"}]},
         {"id": "stars", "type": "rating", "text": "How was it?", "from": 0, "scale": 10, "next": "bye"},
         {"id": "bye", "type": "text", "text": "Bye"}
        ]}
        """#

    @Test("a multiple choice starts with its selected options ticked; going back to a choice or rating starts from its answer")
    func starting() throws {
        var c = try #require(FlowLoader.load(Self.flow).document?.makeConversation(options: ConversationOptions(timing: .instant)))
        c.start(at: 0)
        #expect(c.startingChoices(at: 0) == [0, 2])
        _ = try c.send(.chooseMany([1]), at: 1)
        #expect(c.startingChoices(at: 1) == nil, "a single choice starts from nothing")
        _ = try c.send(.choose(1), at: 2)
        _ = try c.send(.rate(0), at: 3)
        _ = try c.send(.back, at: 4)
        #expect(c.interactiveIndex == 2 && c.startingChoices(at: 2) == [0], "the rating's value less its bottom")
        _ = try c.send(.back, at: 5)
        #expect(c.startingChoices(at: 1) == [1])
        _ = try c.send(.back, at: 6)
        #expect(c.startingChoices(at: 0) == [1], "the answer gone back to wins over selected")
        let text = try ConversationSnapshot(c, at: 6).jsonText()
        #expect(text.contains(#""draft":{"block":0,"chosen":[1]}"#), "\(text)")
        let back = try ConversationSnapshot(jsonText: Array(text.utf8), graph: c.graph).restore(
            graph: c.graph, author: c.author, closeButton: c.closeButton, options: c.options, at: 6)
        #expect(back.startingChoices(at: 0) == [1])
    }

    @Test("lint: selected only on a multiple choice's options, and no more than its max")
    func lint() {
        func codes(_ block: String) -> [String] {
            FlowLoader.load(#"{"version": 1, "blocks": [{"id": "q", "# + block + "}]}").diagnostics.map(\.code)
        }
        #expect(codes(#""type": "choice", "text": "?", "options": [{"title": "A", "selected": true}, {"title": "B"}]"#) == ["needs-multiple"])
        #expect(codes(#""type": "button", "title": "A", "selected": true"#) == ["needs-multiple"])
        #expect(
            codes(
                #""type": "choice", "text": "?", "multiple": true, "max": 1, "options": [{"title": "A", "selected": true}, {"title": "B", "selected": true}]"#)
                == ["impossible-range"])
        #expect(
            codes(#""type": "choice", "text": "?", "multiple": true, "options": [{"title": "A", "selected": false}, {"title": "B", "selected": true}]"#) == [])
    }
}
