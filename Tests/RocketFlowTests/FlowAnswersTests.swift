import RocketConversation
import RocketCore
import Testing
@testable import RocketFlow

@Suite("Answers given ahead (rocket play --answers): read, placed, and turned into intents")
struct FlowAnswersTests {
    static let flow = #"""
        {"version": 1, "vars": {"count": 0}, "blocks": [
         {"id": "hi", "type": "text", "text": "Hello", "next": "ask"},
         {"id": "ask", "type": "doubleButton", "left": {"title": "Sure", "next": "who"}, "right": {"title": "Later"}},
         {"id": "who", "type": "textInput", "text": "Name?", "buttonTitle": "OK", "next": "plan"},
         {"id": "plan", "type": "choice", "text": "Plan?", "options": [{"title": "Free", "next": "likes"}, {"title": "Pro for {{who}}", "next": "likes"}]},
         {"id": "likes", "type": "choice", "text": "Likes?", "multiple": true, "options": [{"title": "Speed"}, {"title": "Price"}, {"title": "Design"}], "next": "score"},
         {"id": "score", "type": "rating", "text": "Score?", "scale": 5, "next": "go"},
         {"id": "go", "type": "button", "title": "Go"}
        ]}
        """#

    func document() throws -> FlowDocument { try #require(FlowLoader.load(Self.flow).document) }

    @Test("A file as --answers-out writes it reads back: variables are left out, each answer keeps its place")
    func reads() throws {
        let text = """
            {"ask": "Sure", "who": "Ada",
             "plan": "Pro for Ada", "likes": ["Price", "speed"], "score": 4, "go": "Go", "count": 3}
            """
        let answers = try FlowAnswers.read(Array(text.utf8), for: try document()).get()
        #expect(Set(answers.byBlock.keys) == ["ask", "who", "plan", "likes", "score", "go"])
        #expect(answers.byBlock["likes"]?.value == .list(["Price", "speed"]))
        #expect(answers.byBlock["plan"].map { [$0.line, $0.column] } == [2, 2])
        #expect(answers.byBlock["who"].map { [$0.line, $0.column] } == [1, 17])
    }

    @Test(
        "Every problem is named at its place: syntax, the root, a duplicate, an unknown id (with a suggestion), a block that takes no answer, a wrong shape, a wrong title, a rating out of range",
        arguments: [
            (#"{"ask": "Sure",}"#, "1:15", "a trailing comma"),
            (#"["Sure"]"#, "1:1", "must be a JSON object"),
            (#"{"ask": "Sure", "ask": "Later"}"#, "1:17", "'ask' is answered twice"),
            ("{\n  \"likse\": [\"Speed\"]}", "2:3", "no block 'likse'; did you mean 'likes'?"),
            (#"{"hi": "ok"}"#, "1:2", "'hi' is a text block, which takes no answer"),
            (#"{"go": true}"#, "1:8", "a button's answer is its title"),
            (#"{"likes": [1]}"#, "1:11", "the answer for 'likes' is array"),
            (#"{"ask": "Maybe"}"#, "1:9", "'Maybe' is not one of its options: 'Sure', 'Later'"),
            (#"{"likes": ["Speed", "Colour"]}"#, "1:11", "'Colour' is not one of its options"),
            (#"{"score": 6}"#, "1:11", "'6' is not a whole number from 1 to 5"),
            (#"{"score": 2.5}"#, "1:11", "from 1 to 5"),
            (#"{"who": {"first": "Ada"}}"#, "1:9", "the answer for 'who' is object"),
        ])
    func problems(text: String, place: String, message: String) throws {
        guard case .failure(let failure) = FlowAnswers.read(Array(text.utf8), for: try document()) else {
            Issue.record("\(text) was read")
            return
        }
        let lines = failure.diagnostics.map { $0.formatted(file: "a.json") }
        #expect(lines.count == 1, "\(lines)")
        #expect(lines.first?.hasPrefix("a.json:\(place): error: ") == true, "\(lines)")
        #expect(lines.first?.contains(message) == true, "\(lines)")
    }

    @Test("Messages quote what they were given by its first 40 characters: a 64 KiB id or answer makes a short line")
    func longValues() throws {
        let long = String(repeating: "x", count: 65_000)
        let text = "{\"\(long)\": 1, \"ask\": \"\(long)\"}"
        guard case .failure(let failure) = FlowAnswers.read(Array(text.utf8), for: try document()) else {
            Issue.record("read")
            return
        }
        let quoted = "'" + String(repeating: "x", count: 40) + "…'"
        #expect(
            failure.diagnostics.map(\.message) == [
                "the flow has no block \(quoted)", "the answer for 'ask' does not fit: \(quoted) is not one of its options: 'Sure', 'Later'",
            ])
    }

    @Test("A title with {{…}} is matched when the block is reached, against what it shows then")
    func interpolatedTitles() throws {
        let doc = try document()
        let answers = try FlowAnswers.read(Array(#"{"plan": "Pro for Bob"}"#.utf8), for: doc).get()
        #expect(answers.byBlock["plan"] != nil)  // not checkable before the conversation runs
        var c = try #require(doc.makeConversation(options: ConversationOptions(timing: .instant)))
        c.start(at: 0)
        _ = try c.send(.tap, at: 0)
        _ = try c.send(.pressLeft, at: 0)
        _ = try c.send(.submit("Ada"), at: 0)
        let index = try #require(c.interactiveIndex)
        #expect(c.intent(answering: .text("Pro for Ada"), at: index) == .success(.choose(1)))
        #expect(c.intent(answering: .text("Pro for {{who}}"), at: index) == .success(.choose(1)))  // as written
        #expect(c.intent(answering: .text("  free "), at: index) == .success(.choose(0)))  // case and spaces
        guard case .failure(let refusal) = c.intent(answering: .text("Pro for Bob"), at: index) else {
            Issue.record("a title of another visitor matched")
            return
        }
        #expect(refusal.message == "'Pro for Bob' is not one of its options: 'Free', 'Pro for Ada'")
    }

    @Test("Each kind of block takes its answers' shape to the intent a person's choice would send")
    func intents() throws {
        let doc = try document()
        func node(_ id: String) throws -> RocketNode { try #require(doc.graph.nodes.first { $0.id == id }) }
        func intent(_ id: String, _ value: RocketValue) throws -> RocketIntent? {
            try? node(id).intent(answering: value) { $0 }.get()
        }
        #expect(try intent("ask", .text("later")) == .pressRight)
        #expect(try intent("go", .text("Go")) == .pressButton)
        #expect(try intent("likes", .list(["Design", "Speed", "Design"])) == .chooseMany([0, 2]))
        #expect(try intent("likes", .text("Price")) == .chooseMany([1]))
        #expect(try intent("score", .text(" 3 ")) == .rate(3))
        #expect(try intent("score", .number(0)) == nil)
        #expect(try intent("who", .number(2.5)) == .submit("2.5"))
        #expect(try intent("who", .null) == .submit(""))
        #expect(try intent("who", .list(["a"])) == nil)
        #expect(try intent("hi", .text("x")) == nil)
    }

    @Test("Flags: ID=VALUE as text, an id named again makes a list, checked by the same rules as a file")
    func flags() throws {
        let doc = try document()
        let values = try FlowAnswers.fromFlags(["ask=Sure", "likes=Speed", "likes=price", "score=4", "count=9", "who=a=b"], flag: "--answer", for: doc).get()
        #expect(values == ["ask": .text("Sure"), "likes": .list(["Speed", "price"]), "score": .text("4"), "who": .text("a=b")])
        guard case .failure(let failure) = FlowAnswers.fromFlags(["=x", "hi=ok", "go=Stop", "likse=Speed"], flag: "--answer", for: doc) else {
            Issue.record("bad flags were taken")
            return
        }
        #expect(
            failure.diagnostics.map(\.message) == [
                "'=x' must be ID=VALUE", "block 'hi' is a text block, which takes no answer",
                "the answer for 'go' does not fit: 'Stop' is not its title: 'Go'", "the flow has no block 'likse'; did you mean 'likes'?",
            ])
    }
}
