import RocketJSON
import Foundation
import Testing
import RocketAlert
import RocketConversation
import RocketCore
import RocketFlow

/// App code that calls back into its rocket, as the seed READMEs' own patterns invite.
@Suite("Handlers re-entering their rocket")
struct ReentrancyTests {
    func shown(_ rocket: Rocket, clock: ManualClock) {
        rocket.show()
        clock.advance(by: 2)
        rocket.tick()
    }

    @Test("A tap action that calls dismiss() dismisses, after the press is recorded")
    func tapActionDismisses() throws {
        let clock = ManualClock()
        let button = ButtonRocketBlock(title: "No thanks")
        let rocket = Rocket(author: RocketAuthor(image: .file("a.png")), block: button, clock: clock)
        var seenStatus: ConversationStatus?
        button.tapHandler = TapRocketHandler(
            next: TextRocketBlock(text: "never"),
            action: {
                seenStatus = rocket.conversation.status  // reading state inside a handler
                rocket.dismiss()
            })
        shown(rocket, clock: clock)
        try rocket.send(.pressButton)
        #expect(seenStatus == .active)
        guard case .closing(.dismissedByApp) = rocket.conversation.status else {
            Issue.record("expected closing by the app, got \(rocket.conversation.status)"); return
        }
        clock.advance(by: 5)
        rocket.tick()
        #expect(rocket.conversation.blocks.count == 1)  // the next block never came
        #expect(rocket.conversation.status == .dismissed(.dismissedByApp))
    }

    @Test("An intent sent from a double-button action is queued and applied after the press")
    func sendFromHandler() throws {
        let clock = ManualClock()
        let after = TextRocketBlock(text: "After")
        let left = ButtonRocketBlock(title: "L")
        let double = DoubleButtonRocketBlock(left: left, right: ButtonRocketBlock(title: "R"))
        let rocket = Rocket(
            author: RocketAuthor(image: .file("a.png")), block: double, clock: clock,
            options: ConversationOptions(timing: .instant))
        var events: [RocketEvent] = []
        rocket.onEvent = { events.append($0) }
        left.tapHandler = TapRocketHandler(
            next: after,
            action: {
                try? rocket.send(.tap)  // queued; "After" is not shown yet when this runs
            })
        rocket.show()
        try rocket.send(.pressLeft)
        // The queued tap ran after the press: it tapped "After", which ends the conversation.
        #expect(rocket.conversation.blocks.map(\.rawText) == ["L | R", "After"])
        #expect(events.contains(.tapped(index: 1, id: nil, automatic: false)))
        #expect(rocket.conversation.status == .dismissed(.completed))
    }

    @Test("A queued intent that no longer applies is reported, not thrown")
    func queuedRefusal() throws {
        let clock = ManualClock()
        let button = ButtonRocketBlock(title: "Go")
        let rocket = Rocket(author: RocketAuthor(image: .file("a.png")), block: button, clock: clock)
        var refused: [RocketIntentError] = []
        rocket.onEvent = { if case .intentRefused(_, let error) = $0 { refused.append(error) } }
        button.tapHandler = TapRocketHandler(next: nil, action: { try? rocket.send(.pressButton) })
        shown(rocket, clock: clock)
        try rocket.send(.pressButton)
        #expect(refused == [.noInteractiveBlock])
    }

    @Test("An input handler may read the conversation, dismiss, and create blocks")
    func inputHandler() throws {
        let clock = ManualClock()
        let input = TextInputRocketBlock(text: "Name?", buttonTitle: "Send")
        input.id = "name"
        let rocket = Rocket(
            author: RocketAuthor(image: .file("a.png")), block: input, clock: clock,
            options: ConversationOptions(timing: .instant))
        var answerSeen: String?
        input.handler = InputRocketHandler<String>(action: { text in
            answerSeen = rocket.conversation.answers["name"]?.value
            if text == "quit" { rocket.dismiss(); return nil }
            return TextRocketBlock(text: "Hi \(text)", next: TextRocketBlock(text: "Bye"))
        })
        rocket.show()
        try rocket.send(.submit("Ada"))
        #expect(answerSeen == "Ada")
        #expect(rocket.conversation.blocks.map(\.rawText) == ["Name?", "Hi Ada"])
        try rocket.send(.tap)
        #expect(rocket.conversation.blocks.last?.rawText == "Bye")

        let second = TextInputRocketBlock(text: "Again?", buttonTitle: "Send")
        let other = Rocket(
            author: RocketAuthor(image: .file("a.png")), block: second, clock: clock,
            options: ConversationOptions(timing: .instant))
        second.handler = InputRocketHandler<String>(action: { _ in
            other.dismiss(); return TextRocketBlock(text: "too late")
        })
        other.show()
        try other.send(.submit("quit"))
        // The handler's block was shown first (its decision completes the submit), then the
        // queued dismiss ran.
        #expect(other.conversation.status == .dismissed(.dismissedByApp))
    }

    @Test("The close intent is refused without a close button, and posts nothing")
    func closeWithoutButton() throws {
        let clock = ManualClock()
        let center = NotificationCenter()
        let rocket = Rocket(author: RocketAuthor(image: .file("a.png")), block: TextRocketBlock(text: "A"), clock: clock)
        rocket.notificationCenter = center
        let posts = Locked(0)
        let token = center.addObserver(forName: .rocketDismissEvent, object: nil, queue: nil) { _ in posts.mutate { $0 += 1 } }
        defer { center.removeObserver(token) }
        shown(rocket, clock: clock)
        #expect(throws: RocketIntentError.noCloseButton) { try rocket.send(.close) }
        #expect(rocket.conversation.status == .active)
        rocket.closeButton = RocketCloseButton(title: "Close")
        try rocket.send(.close)
        clock.advance(by: 1)
        rocket.tick()
        #expect(posts.value == 1)
    }
}

@Suite("Long chains")
struct LongChainTests {
    @Test("A 1,000,000-block chain of seed classes is built, compiled, played and released without recursion")
    func seedChain() throws {
        let n = 1_000_000
        var first: TextRocketBlock? = TextRocketBlock(text: "0")
        var tail = first!
        for i in 1..<n {
            let b = TextRocketBlock(text: String(i))
            tail.next = b
            tail = b
        }
        var rocket: Rocket? = Rocket(
            author: RocketAuthor(image: .file("a.png")), block: first!, clock: ManualClock(),
            options: ConversationOptions(timing: .instant))
        first = nil
        rocket!.show()
        for _ in 0..<10 { try rocket!.send(.tap) }
        #expect(rocket!.conversation.shownCount == 11)
        #expect(rocket!.conversation.graph.nodes.count == n)
        rocket = nil  // releases the whole class chain
    }

    @Test("A 1,000,000-block flow is written, loaded, played to the end and released")
    func flowChain() throws {
        let n = 1_000_000
        var graph = RocketGraph()
        graph.reserveCapacity(n)
        for i in 0..<n {
            graph.add(RocketNode(id: "b\(i)", text: "Step \(i)", next: i + 1 < n ? RocketNodeID(i + 1) : nil))
        }
        graph.root = RocketNodeID(0)
        let doc = try FlowDocument(exporting: graph)
        let bytes = Array(doc.jsonValue.serialized(pretty: false).utf8)
        let loaded = FlowLoader.load(bytes)
        #expect(loaded.isPlayable)
        // Past the most blocks a conversation shows by default: an app's own long run turns it off.
        var conversation = try #require(loaded.document?.makeConversation(options: ConversationOptions(timing: .instant, boundsLength: false)))
        conversation.start(at: 0)
        var steps = 0
        while conversation.interactiveIndex != nil {
            try conversation.send(.tap, at: 0)
            steps += 1
        }
        #expect(steps == n)
        #expect(conversation.status == .dismissed(.completed))
    }
}
