// swift-format-ignore-file
// (The code below is the README's, line for line, so the formatter leaves it alone.)
// The README's first example, exactly as the README shows it (imports included): this file
// only compiles while the README's code does, and the test below checks that the README still
// shows this code.
import Foundation
import RocketAlert
import Testing

@Suite("README examples")
struct ReadmeExampleTests {
    @Test("The seed example compiles and runs as written")
    @MainActor
    func seedExample() throws {
        let author = RocketAuthor(image: .file("avatar.png"), style: .round)

        let input = TextInputRocketBlock(text: "Describe your problem:", buttonTitle: "Send")
        input.handler = InputRocketHandler<String>(action: { input in
            if input.isEmpty { return TextRocketBlock(text: "Why haven't added a text? :(") }
            if input == "SecretKey" { return TextRocketBlock(text: "Awesome!! you know the secret key") }
            return TextRocketBlock(text: "Thanks you so much!")
        })

        let leftButton = ButtonRocketBlock(title: "Sure")
        leftButton.tapHandler = TapRocketHandler(next: input, action: { print("the user clicked the button") })
        let rightButton = ButtonRocketBlock(title: "Later")
        rightButton.font = .lightButton

        let firstBlock = TextRocketBlock(text: "First")
        firstBlock.next = DoubleButtonRocketBlock(left: leftButton, right: rightButton)
        firstBlock.showNextAfter = 2.0

        let rocket = Rocket(author: author, block: firstBlock)
        rocket.closeButton = RocketCloseButton(title: "Close")

        let observer = NotificationCenter.default.addObserver(forName: .rocketBlockAddedEvent, object: rocket, queue: nil) { note in
            print(note.userInfo?["index"] as? Int ?? -1)
        }
        rocket.show()
        #expect(rocket.conversation.status == .presenting)
        rocket.dismiss()
        NotificationCenter.default.removeObserver(observer)
    }

    @Test("The engine example compiles and runs as written")
    func engineExample() throws {
        var graph = RocketGraph()
        let bye = graph.add(RocketNode(id: "bye", text: "Bye!"))
        graph.root = graph.add(RocketNode(id: "hi", text: "Hi!", next: bye))
        var conversation = Conversation(graph: graph, options: ConversationOptions(timing: .instant))
        conversation.start(at: 0)
        let effects = try conversation.send(.tap, at: 1)         // [.event(.tapped…), .event(.blockAdded…)]
        let saved = try ConversationSnapshot(conversation, at: 1).jsonText()   // resume it after a restart
        #expect(effects.events.count == 2)
        #expect(saved.contains("rocket-conversation"))
    }

    @Test("The README still shows the code of this file")
    func sameCode() throws {
        let here = URL(fileURLWithPath: #filePath)
        let readme = try String(contentsOf: here.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("README.md"), encoding: .utf8)
        let mine = try String(contentsOf: here, encoding: .utf8)
        let blocks = readme.components(separatedBy: "```swift\n").dropFirst().map { $0.components(separatedBy: "```")[0] }
        let checked = blocks.filter { $0.hasPrefix("import Foundation\nimport RocketAlert") || $0.hasPrefix("import RocketConversation") }
        #expect(checked.count == 2)
        let body = mine.split(separator: "\n", omittingEmptySubsequences: true).map { $0.drop { $0 == " " } }
        for block in checked {
            for line in block.split(separator: "\n", omittingEmptySubsequences: true) where !line.hasPrefix("import ") {
                #expect(body.contains(line.drop { $0 == " " }), "README line not in this test: \(line)")
            }
        }
    }
}
