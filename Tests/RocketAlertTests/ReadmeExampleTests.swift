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

    @Test("The README still shows the code of this file")
    func sameCode() throws {
        let here = URL(fileURLWithPath: #filePath)
        let readme = try String(contentsOf: here.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("README.md"), encoding: .utf8)
        let mine = try String(contentsOf: here, encoding: .utf8)
        guard let start = readme.range(of: "```swift\n"), let end = readme.range(of: "```", range: start.upperBound..<readme.endIndex) else {
            Issue.record("no swift block in the README"); return
        }
        let example = readme[start.upperBound..<end.lowerBound].split(separator: "\n", omittingEmptySubsequences: true)
            .filter { !$0.hasPrefix("import ") }
        let body = mine.split(separator: "\n", omittingEmptySubsequences: true).map { $0.drop { $0 == " " } }
        for line in example {
            #expect(body.contains(line.drop { $0 == " " }), "README line not in this test: \(line)")
        }
    }
}
