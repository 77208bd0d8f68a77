import Foundation
import Testing
import RocketAlert
import RocketCore

/// Every code example of the RocketAlert seed documents (000 English, 001 Chinese), with UIKit
/// types replaced by neutral values (`UIImage` → `RocketImage`, `UIFont`/`UIColor` →
/// `RocketFontDescription`/`RocketColor`) and `#selector` observers by block observers.
@Suite("Seed README examples")
struct SeedExamplesTests {
    let yourImage = RocketImage.file("avatar.png")

    @Test("Usage: create, show, dismiss (also with the Chinese edition's explicit .init)")
    func usage() {
        let author = RocketAuthor(image: yourImage, style: RocketImageStyle.round)
        let textBlock = TextRocketBlock(text: "This is your first Block")
        let rocket = Rocket(author: author, block: textBlock, clock: ManualClock(), options: ConversationOptions(timing: .reducedMotion))
        rocket.show()
        #expect(rocket.conversation.blocks.count == 1)
        rocket.dismiss()
        #expect(rocket.conversation.status == .dismissed(.dismissedByApp))
        // 001 writes `.init` explicitly; the same API.
        let rocket2 = Rocket.init(
            author: RocketAuthor.init(image: yourImage, style: RocketImageStyle.round),
            block: TextRocketBlock.init(text: "This is your first Block"))
        #expect(rocket2.author.style == .round)
        #expect(rocket2.conversation.options.timing == .original)
    }

    @Test("The three TextRocketBlock initializers")
    func textInitializers() {
        let next = TextRocketBlock(text: "n")
        let a = TextRocketBlock(text: "a", next: next)
        #expect(a.next === next && a.showNextAfter == nil && a.font == .text && a.id == nil)
        let b = TextRocketBlock(text: "b", showNextAfter: 2)
        #expect(b.next == nil && b.showNextAfter == 2)
        let c = TextRocketBlock(text: "c", next: nil, showNextAfter: nil, id: "c", font: .emoji)
        #expect(c.id == "c" && c.font == .emoji)
    }

    @Test("Second block after a tap on the first")
    func secondAfterTap() throws {
        let secondBlock = TextRocketBlock(text: "This is your second block")
        let firstBlock = TextRocketBlock(text: "This is your first block", next: secondBlock)
        let h = Harness(root: firstBlock, timing: .original)
        h.rocket.show()
        h.run(for: 2)
        try h.rocket.send(.tap)
        h.run(for: 0.3)
        #expect(h.added == ["This is your first block", "This is your second block"])
    }

    @Test("Flat style")
    func flatStyle() throws {
        let firstBlock = TextRocketBlock(text: "First")
        let secondBlock = TextRocketBlock(text: "Second")
        let thirdBlock = TextRocketBlock(text: "Third")
        firstBlock.next = secondBlock
        secondBlock.next = thirdBlock
        secondBlock.font = RocketFont.textBold
        let h = Harness(root: firstBlock, timing: .reducedMotion)
        h.rocket.show()
        try h.rocket.send(.tap)
        try h.rocket.send(.tap)
        #expect(h.added == ["First", "Second", "Third"])
        #expect((h.rocket.seedBlock(at: 1) as? TextRocketBlock)?.font == .textBold)
    }

    @Test("showNextAfter: the second block comes by itself after 2 s")
    func showNextAfterExample() {
        let firstBlock = TextRocketBlock(text: "First")
        let secondBlock = TextRocketBlock(text: "Second")
        firstBlock.next = secondBlock
        firstBlock.showNextAfter = 2.0
        secondBlock.font = RocketFont.textBold
        let h = Harness(root: firstBlock, timing: .original)
        h.rocket.show()
        h.run(for: 2)  // intro
        h.run(for: 2)  // showNextAfter
        #expect(h.added == ["First"])
        h.run(for: 0.3)  // bounce
        #expect(h.added == ["First", "Second"])
        #expect(abs((h.time(ofAdded: "Second") ?? 0) - 4.3) < 1e-9)
    }

    @Test("RocketFont: custom and the six presets with the original sizes and colours")
    func fonts() {
        let secondBlock = TextRocketBlock(text: "2")
        let firstBlock = TextRocketBlock(text: "First", next: secondBlock)
        firstBlock.font = RocketFont(font: RocketFontDescription(size: 12, weight: .light), color: RocketColor(hex: "#123456")!)
        #expect(firstBlock.font?.font.size == 12)
        firstBlock.font = RocketFont.text
        #expect(firstBlock.font == .text)
        let expected: [(RocketFont, Double, RocketFontWeight, String)] = [
            (.emoji, 25, .black, "#293B4D"), (.text, 18, .regular, "#293B4D"), (.textBold, 18, .bold, "#293B4D"),
            (.button, 20, .black, "#319CF7"), (.lightButton, 18, .regular, "#319CF7"), (.cancel, 20, .semibold, "#EC5E61"),
        ]
        for (font, size, weight, hex) in expected {
            #expect(font.font.size == size && font.font.weight == weight && font.color.hexString == hex)
        }
        #expect(RocketFont().font == RocketFontDescription(size: 16, weight: .regular) && RocketFont().color == .black)
    }

    @Test("ImageRocketBlock: initializers, paddings, styles")
    func image() {
        let imageBlock = ImageRocketBlock(image: yourImage, text: "Logo")
        #expect(imageBlock.imageStyle == .square && imageBlock.paddingLeft == 0 && imageBlock.paddingRight == 0)
        imageBlock.paddingLeft = 10
        imageBlock.paddingRight = 10
        imageBlock.imageStyle = .circular
        #expect(imageBlock.imageStyle.cornerRadius(forHeight: 140) == 70)
        imageBlock.imageStyle = .round
        #expect(imageBlock.imageStyle.cornerRadius(forHeight: 140) == 6)
        imageBlock.imageStyle = .square
        #expect(imageBlock.imageStyle.cornerRadius(forHeight: 140) == 0)
        let full = ImageRocketBlock(image: yourImage, text: nil, next: imageBlock, showNextAfter: 1, id: "img")
        #expect(full.text == "" && full.next === imageBlock && full.id == "img" && full.kind == .image)
    }

    @Test("ButtonRocketBlock initializers and the TapRocketHandler example")
    func button() throws {
        let a = ButtonRocketBlock(title: "a", tapHandler: TapRocketHandler(next: nil))
        let b = ButtonRocketBlock(title: "b", tapHandler: TapRocketHandler(next: nil), font: .cancel)
        let c = ButtonRocketBlock(title: "c")
        #expect(a.font == .button && b.font == .cancel && c.font == .button && c.tapHandler == nil)

        var printed: [String] = []
        let button = ButtonRocketBlock(title: "PRESS HERE")
        let afterTheTapOnButton = TextRocketBlock(text: "You press the button!!")
        button.tapHandler = TapRocketHandler(
            next: afterTheTapOnButton,
            action: {
                printed.append("the user click the button")
            })
        let h = Harness(root: button, timing: .original)
        h.rocket.show(); h.run(for: 2)
        try h.rocket.send(.pressButton)
        #expect(printed == ["the user click the button"])
        h.run(for: 0.3)
        #expect(h.added == ["PRESS HERE", "You press the button!!"])
    }

    @Test("DoubleButtonRocketBlock example")
    func doubleButton() throws {
        let leftButton = ButtonRocketBlock(title: "Left Button")
        leftButton.font = .button
        let rightButton = ButtonRocketBlock(title: "Right Button")
        rightButton.font = .lightButton
        rightButton.tapHandler = TapRocketHandler(next: TextRocketBlock(text: "right!"))
        let doubleButton = DoubleButtonRocketBlock(left: leftButton, right: rightButton)
        let h = Harness(root: doubleButton, timing: .reducedMotion)
        h.rocket.show()
        try h.rocket.send(.pressRight)
        #expect(h.added == ["Left Button | Right Button", "right!"])
    }

    @Test(
        "TextInputRocketBlock examples: a handler, and different blocks by input",
        arguments: [
            ("", "Why haven't added a text? :("), ("SecretKey", "Awesome!! you know the secret key"), ("it crashes", "Thanks you so much!"),
        ])
    func textInput(typed: String, reply: String) throws {
        let input = TextInputRocketBlock(text: "Describe your problem:", buttonTitle: "Send")
        input.handler = InputRocketHandler<String>(action: { (input) -> (any RocketBlock)? in
            if input.isEmpty {
                return TextRocketBlock(text: "Why haven't added a text? :(")
            }
            if input == "SecretKey" {
                return TextRocketBlock(text: "Awesome!! you know the secret key")
            }
            let block = TextRocketBlock(text: "Thanks you so much!")
            return block
        })
        let h = Harness(root: input, timing: .reducedMotion)
        h.rocket.show()
        try h.rocket.send(.submit(typed))
        #expect(h.added == ["Describe your problem:", reply])
        // The simple example: always thanks.
        let simple = TextInputRocketBlock(text: "Describe your problem:", buttonTitle: "Send")
        simple.handler = InputRocketHandler<String>(action: { _ in TextRocketBlock(text: "Thanks you so much!") })
        #expect((simple.resolveNext(for: typed) as? TextRocketBlock)?.text == "Thanks you so much!")
        // The other initializers.
        let withHandler = TextInputRocketBlock(text: "q", buttonTitle: "b", inputHandler: nil)
        #expect(withHandler.font == .text && withHandler.buttonStyle == .lightButton)
    }

    @Test("NotificationCenter: observe rocketBlockAddedEvent and rocketDismissEvent with block observers")
    func notifications() throws {
        let center = NotificationCenter()
        let seen = Locked<[String]>([])
        let t1 = center.addObserver(forName: Notification.Name.rocketBlockAddedEvent, object: nil, queue: nil) { sender in
            guard let index = sender.userInfo?["index"] as? Int, sender.userInfo?["block"] is any RocketBlock else { return }
            seen.mutate { $0.append("added \(index)") }
        }
        let t2 = center.addObserver(forName: Notification.Name.rocketDismissEvent, object: nil, queue: nil) { sender in
            guard let count = sender.userInfo?["count"] as? Int, let blocks = sender.userInfo?["blocks"] as? [any RocketBlock] else { return }
            seen.mutate { $0.append("dismissed \(count) \(blocks.count)") }
        }
        defer { center.removeObserver(t1); center.removeObserver(t2) }
        let rocket = Rocket(
            author: RocketAuthor(image: yourImage), block: TextRocketBlock(text: "a", next: TextRocketBlock(text: "b")),
            clock: ManualClock(), options: ConversationOptions(timing: .reducedMotion))
        rocket.notificationCenter = center
        rocket.show()
        try rocket.send(.tap)
        try rocket.send(.tap)
        #expect(seen.value == ["added 0", "added 1", "dismissed 2 2"])
    }
}
