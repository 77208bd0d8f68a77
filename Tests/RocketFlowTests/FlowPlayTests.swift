import RocketJSON
import Testing
@testable import RocketFlow
import RocketAlert
import RocketCore

/// The flow from the issue, extended with the blocks it points to.
let sampleFlow = #"""
    {"version": 1,
     "author": {"name": "Rocket", "image": "avatar.png", "style": "circular"},
     "closeButton": {"title": "Close"},
     "start": "welcome",
     "blocks": [
      {"id": "welcome", "type": "text", "text": "Hi!", "next": "ask", "showNextAfter": 1.5, "font": "textBold"},
      {"id": "ask", "type": "doubleButton",
       "left": {"title": "Sure", "next": "name"}, "right": {"title": "Later", "next": "bye", "font": "lightButton"}},
      {"id": "name", "type": "textInput", "text": "What's your name?", "buttonTitle": "Send", "secret": false,
       "validate": {"required": true, "maxLength": 40, "pattern": "^[^0-9]*$", "message": "No digits, please"},
       "branches": [{"when": {"equals": "SecretKey"}, "next": "secret"}, {"when": {"matches": "(?i)^ada"}, "next": "ada"}],
       "next": "thanks"},
      {"id": "thanks", "type": "text", "text": "Thanks, {{name}}!", "next": "logo"},
      {"id": "secret", "type": "text", "text": "Awesome!! you know the secret key"},
      {"id": "ada", "type": "text", "text": "Hello Countess {{name}}", "next": "logo"},
      {"id": "bye", "type": "text", "text": "Bye!"},
      {"id": "logo", "type": "image", "image": "logo.png", "text": "Our logo", "imageStyle": "round", "next": "go"},
      {"id": "go", "type": "button", "title": "Enable notifications", "action": "enable-notifications", "next": "done"},
      {"id": "done", "type": "text", "text": "All set, {{name}}."}
     ]}
    """#

func loadSample() throws -> FlowDocument {
    let result = FlowLoader.load(sampleFlow)
    #expect(result.diagnostics.isEmpty, "\(result.diagnostics)")
    return try #require(result.document)
}

@Suite("Playing flow files")
struct FlowPlayTests {
    @Test("The issue's flow loads cleanly and plays through branches, validation, interpolation and a named action")
    func playSample() throws {
        let doc = try loadSample()
        let clock = ManualClock()
        let rocket = try #require(
            doc.makeRocket(
                clock: clock, options: ConversationOptions(timing: .reducedMotion, echoReplies: true),
                imageBase: "/flows"))
        var actions: [String] = []
        rocket.actionHandlers["enable-notifications"] = { actions.append("enable") }
        var events: [RocketEvent] = []
        rocket.onEvent = { events.append($0) }
        #expect(rocket.closeButton?.title == "Close")
        #expect(rocket.author.image == .file("/flows/avatar.png"))
        rocket.show()
        #expect(throws: RocketIntentError.tapDisabled) { try rocket.send(.tap) }
        clock.advance(by: 1.5); rocket.tick()
        #expect(rocket.conversation.blocks.map(\.id) == ["welcome", "ask"])
        try rocket.send(.pressLeft)
        #expect(rocket.conversation.answers["ask"]?.value == "Sure")
        // Validation failures keep the same input block active.
        #expect(throws: RocketIntentError.invalidInput(RocketValidationFailure(rule: .pattern("^[^0-9]*$"), message: "No digits, please"))) {
            try rocket.send(.submit("R2D2"))
        }
        #expect(throws: RocketIntentError.invalidInput(RocketValidationFailure(rule: .required, message: "No digits, please"))) {
            try rocket.send(.submit("  "))
        }
        #expect(rocket.conversation.interactiveBlock?.id == "name")
        try rocket.send(.submit("Ada Lovelace"))
        #expect(rocket.conversation.blocks.last?.id == "ada")
        guard case .block(_, _, let shown) = rocket.conversation.transcript.last else { Issue.record("no block"); return }
        #expect(shown == "Hello Countess Ada Lovelace")
        try rocket.send(.tap)
        guard case .image(let logo)? = rocket.conversation.blocks.last?.content else { Issue.record("not an image"); return }
        #expect(logo.image == .file("/flows/logo.png"))
        #expect(logo.imageStyle == .round)
        try rocket.send(.tap)
        try rocket.send(.pressButton)
        #expect(actions == ["enable"])
        #expect(events.contains(.action(name: "enable-notifications", blockID: "go")))
        try rocket.send(.tap)
        #expect(rocket.conversation.status == .dismissed(.completed))
        #expect(rocket.conversation.blocks.map(\.id) == ["welcome", "ask", "name", "ada", "logo", "go", "done"])
        #expect(rocket.conversation.answers["go"]?.value == "Enable notifications")
    }

    @Test(
        "Branches are tried in order; no branch falls back to next",
        arguments: [
            ("SecretKey", "secret"), ("ada", "ada"), ("ADAM", "ada"), ("Grace", "thanks"),
        ])
    func branching(input: String, expected: String) throws {
        let doc = try loadSample()
        let rocket = try #require(doc.makeRocket(clock: ManualClock(), options: ConversationOptions(timing: .instant)))
        rocket.show()
        try rocket.send(.pressLeft)
        try rocket.send(.submit(input))
        #expect(rocket.conversation.blocks.last?.id == expected)
    }

    @Test("--var style initial answers fill placeholders")
    func initialAnswers() throws {
        let doc = try #require(
            FlowLoader.load(
                #"""
                {"version": 1, "variables": ["user"], "blocks": [{"id": "a", "type": "text", "text": "Hi {{user}}, {{unknown}}"}]}
                """#
            ).document)
        let rocket = try #require(doc.makeRocket(clock: ManualClock(), options: ConversationOptions(timing: .instant, initialAnswers: ["user": "Bob"])))
        rocket.show()
        guard case .block(_, _, let text) = rocket.conversation.transcript.first else { Issue.record("no block"); return }
        #expect(text == "Hi Bob, {{unknown}}")
    }
}

@Suite("Round trips")
struct RoundTripTests {
    @Test("Flow → JSON text → flow is the identity")
    func textRoundTrip() throws {
        let doc = try loadSample()
        let text = doc.jsonValue.serialized()
        let again = FlowLoader.load(text)
        #expect(again.diagnostics.isEmpty)
        #expect(again.document == doc)
        // Compact form too.
        #expect(FlowLoader.load(doc.jsonValue.serialized(pretty: false)).document == doc)
    }

    @Test("Flow → graph → exported flow keeps every block (in the order a reader meets them)")
    func graphRoundTrip() throws {
        let doc = try loadSample()
        let back = try FlowDocument(exporting: doc.graph, author: doc.makeAuthor(), closeButton: RocketCloseButton(title: "Close"))
        // Same blocks, once each; successors name the same ids.
        #expect(Set(back.blockIDs) == Set(doc.blockIDs))
        let byID = Dictionary(uniqueKeysWithValues: back.graph.nodes.map { ($0.id!, $0) })
        for node in doc.graph.nodes {
            let other = try #require(byID[node.id!])
            #expect(other.kind == node.kind)
            #expect(other.successors.map { back.blockIDs[$0.rawValue] } == node.successors.map { doc.blockIDs[$0.rawValue] }, "block \(node.id!)")
        }
        #expect(back.startID == "welcome")
        #expect(back.closeButton?.title == "Close")
        #expect(back.author?.name == "Rocket")
        #expect(FlowLoader.load(back.jsonValue.serialized()).document == back)
    }

    @Test("A conversation built with the seed classes converts, with generated ids, and plays the same")
    func swiftToFlow() throws {
        let third = TextRocketBlock(text: "Third")
        let second = TextRocketBlock(text: "Second")
        let first = TextRocketBlock(text: "First")
        first.next = second
        second.next = third
        second.font = .textBold
        first.showNextAfter = 2
        let input = TextInputRocketBlock(text: "Name?", buttonTitle: "Send", inputHandler: nil, id: "name")
        third.next = input
        input.next = ButtonRocketBlock(title: "Go", tapHandler: TapRocketHandler(next: first, actionName: "go"))  // a loop back
        let doc = try FlowDocument(root: first)
        #expect(doc.blockIDs == ["block-1", "block-2", "block-3", "name", "block-4"])
        #expect(FlowValidator.validate(doc).filter { $0.severity == .error }.isEmpty)
        let reloaded = try #require(FlowLoader.load(doc.jsonValue.serialized()).document)
        #expect(reloaded == doc)
        if case .text(let t) = doc.graph.nodes[1].content { #expect(t.font == .textBold) } else { Issue.record("not a text block") }
        #expect(doc.jsonValue.serialized(pretty: false).contains(#""font":"textBold""#))
    }

    @Test("Closures cannot become data: a clear error names the block")
    func closuresRefused() {
        let b = ButtonRocketBlock(title: "x", tapHandler: TapRocketHandler(next: nil, action: {}), font: .button, id: "b")
        #expect(throws: FlowConversionError.unnamedAction(blockID: "b")) { try FlowDocument(root: b) }
        let i = TextInputRocketBlock(text: "q", buttonTitle: "ok", inputHandler: InputRocketHandler(action: { _ in nil }), id: "q")
        #expect(throws: FlowConversionError.inputHandlerClosure(blockID: "q")) { try FlowDocument(root: i) }
        // Images given as bytes travel as data URIs.
        let img = ImageRocketBlock(image: .bytes([0x89, 0x50, 0x4E, 0x47, 1, 2]), text: nil, next: nil, id: "img")
        let doc = try? FlowDocument(root: img)
        guard case .image(let fields)? = doc?.graph.nodes.first?.content else { Issue.record("no image"); return }
        #expect(fields.image == .bytes([0x89, 0x50, 0x4E, 0x47, 1, 2]))
        #expect(doc?.jsonValue.serialized(pretty: false).contains(#""image":"data:image/png;base64,iVBORwEC""#) == true)
        let reloaded = doc.flatMap { FlowLoader.load($0.jsonValue.serialized()).document }
        #expect(reloaded == doc)
    }

    @Test("Custom fonts survive a round trip")
    func customFont() throws {
        let t = TextRocketBlock(text: "x", id: "x", font: RocketFont(size: 22, weight: .heavy, color: RocketColor(hex: "#FF8800")!, family: "Menlo"))
        let doc = try FlowDocument(root: t)
        let again = try #require(FlowLoader.load(doc.jsonValue.serialized()).document)
        #expect(again == doc)
        guard case .text(let node)? = again.graph.nodes.first?.content else { Issue.record("no text"); return }
        #expect(node.font == t.font)
    }
}
