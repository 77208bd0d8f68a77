import Foundation
import Testing
@testable import RocketAlert
import RocketCore
import RocketConversation
import RocketFlow

@Suite("Events: notifications, typed stream, scoping")
struct EventTests {
    func makeRocket(_ root: any RocketBlock, recorder: NotificationRecorder, clock: ManualClock = ManualClock()) -> Rocket {
        let r = Rocket(
            author: RocketAuthor(image: .file("a.png")), block: root, clock: clock,
            options: ConversationOptions(timing: .reducedMotion))
        r.notificationCenter = recorder.center
        return r
    }

    @Test("rocketBlockAddedEvent carries index and block; rocketDismissEvent count and blocks; object is the rocket")
    func legacyPayloads() throws {
        let rec = NotificationRecorder()
        let b = TextRocketBlock(text: "B")
        let a = TextRocketBlock(text: "A", next: b)
        let rocket = makeRocket(a, recorder: rec)
        rocket.show()
        try rocket.send(.tap)
        try rocket.send(.tap)
        #expect(rec.posts.map(\.name) == [.rocketBlockAddedEvent, .rocketBlockAddedEvent, .rocketDismissEvent])
        #expect(rec.posts[0].userInfo["index"] as? Int == 0)
        #expect((rec.posts[0].userInfo["block"] as? any RocketBlock) === a)
        #expect(rec.posts[1].userInfo["index"] as? Int == 1)
        #expect((rec.posts[1].userInfo["block"] as? any RocketBlock) === b)
        #expect(rec.posts[2].userInfo["count"] as? Int == 2)
        let blocks = rec.posts[2].userInfo["blocks"] as? [any RocketBlock]
        #expect(blocks?.count == 2 && blocks?[0] === a && blocks?[1] === b)
        #expect(rec.posts.allSatisfy { $0.object === rocket })
    }

    @Test("dismiss() posts no rocketDismissEvent (R5) but the typed stream says dismissedByApp")
    func programmaticDismiss() {
        let rec = NotificationRecorder()
        let rocket = makeRocket(TextRocketBlock(text: "A"), recorder: rec)
        var typed: [RocketEvent] = []
        rocket.onEvent = { typed.append($0) }
        rocket.show()
        rocket.dismiss()
        #expect(rec.posts.map(\.name) == [.rocketBlockAddedEvent])
        #expect(typed.contains(.dismissed(reason: .dismissedByApp, count: 1, blocks: [RocketBlockInfo(id: nil, kind: .text, text: "A")])))
    }

    @Test("The close button posts rocketDismissEvent")
    func closePostsLegacy() throws {
        let rec = NotificationRecorder()
        let rocket = makeRocket(TextRocketBlock(text: "A"), recorder: rec)
        rocket.closeButton = RocketCloseButton(title: "Close")
        rocket.show()
        try rocket.send(.close)
        #expect(rec.posts.last?.name == .rocketDismissEvent)
        #expect(rec.posts.last?.userInfo["count"] as? Int == 1)
    }

    @Test("Two live rockets never drive or see each other (R4)")
    func noCrossTalk() throws {
        let rec = NotificationRecorder()
        let one = makeRocket(TextRocketBlock(text: "one-a", next: TextRocketBlock(text: "one-b")), recorder: rec)
        let two = makeRocket(TextRocketBlock(text: "two-a", next: TextRocketBlock(text: "two-b")), recorder: rec)
        let seenByTwo = Locked<[Int]>([])
        let token = rec.center.addObserver(forName: .rocketBlockAddedEvent, object: two, queue: nil) { note in
            let i = note.userInfo?["index"] as? Int ?? -1
            seenByTwo.mutate { $0.append(i) }
        }
        defer { rec.center.removeObserver(token) }
        one.show(); two.show()
        try one.send(.tap)
        try one.send(.tap)  // one completes and dismisses
        #expect(one.conversation.status == .dismissed(.completed))
        #expect(two.conversation.status == .active)
        #expect(two.conversation.blocks.count == 1)
        #expect(seenByTwo.value == [0])
    }

    @Test("The typed async stream delivers the same facts plus the reason, then ends")
    func asyncStream() async throws {
        let rec = NotificationRecorder()
        let rocket = makeRocket(
            TextRocketBlock(text: "A", next: ButtonRocketBlock(title: "Go", tapHandler: TapRocketHandler(next: nil, actionName: "go"))), recorder: rec)
        var handled = 0
        rocket.actionHandlers["go"] = { handled += 1 }
        let stream = rocket.events
        rocket.show()
        try rocket.send(.tap)
        try rocket.send(.pressButton)
        var events: [RocketEvent] = []
        for await e in stream { events.append(e) }
        #expect(handled == 1)
        #expect(
            events == [
                .blockAdded(index: 0, block: RocketBlockInfo(id: nil, kind: .text, text: "A")),
                .tapped(index: 0, id: nil, automatic: false),
                .blockAdded(index: 1, block: RocketBlockInfo(id: nil, kind: .button, text: "Go")),
                .buttonPressed(index: 1, id: nil, side: nil, title: "Go", options: [0], titles: ["Go"]),
                .action(name: "go", blockID: nil),
                .dismissed(
                    reason: .completed, count: 2,
                    blocks: [
                        RocketBlockInfo(id: nil, kind: .text, text: "A"),
                        RocketBlockInfo(id: nil, kind: .button, text: "Go"),
                    ]),
                .didFinishClosing(reason: .completed),
            ])
    }

    @Test("Secret input never appears in events")
    func secretInput() throws {
        let rec = NotificationRecorder()
        let input = TextInputRocketBlock(text: "Password?", buttonTitle: "OK", inputHandler: nil, id: "pw")
        input.isSecret = true
        let rocket = Rocket(
            author: RocketAuthor(image: .file("a")), block: input, clock: ManualClock(),
            options: ConversationOptions(timing: .reducedMotion, echoReplies: true))
        rocket.notificationCenter = rec.center
        var typed: [RocketEvent] = []
        rocket.onEvent = { typed.append($0) }
        rocket.show()
        try rocket.send(.submit("hunter2"))
        #expect(!String(describing: typed).contains("hunter2"))
        #expect(typed.contains(.inputSubmitted(index: 0, id: "pw", text: nil)))
        #expect(rocket.conversation.answers["pw"]?.isSecret == true)
    }
}

@Suite("The seed API plays flows that use the flow language")
struct SeedFlowLanguageTests {
    @Test("a Rocket made from a flow with variables, conditions, a rating and a multiple choice: intents, notifications, typed answers")
    func playsThrough() throws {
        let json = #"""
            {"version": 1, "vars": {"visits": 0}, "blocks": [
             {"id": "count", "type": "set", "set": {"visits": "visits + 1"}, "next": "stars"},
             {"id": "stars", "type": "rating", "text": "How was it?", "next": "food"},
             {"id": "food", "type": "choice", "text": "What?", "multiple": true, "options": [{"title": "Tea"}, {"title": "Cake"}], "next": "route"},
             {"id": "route", "type": "condition", "branches": [{"if": "stars >= 4 and 'Cake' in food", "next": "happy"}], "else": "bye"},
             {"id": "happy", "type": "text", "text": "Visit {{visits}}: {{stars}} stars and {{food}}"},
             {"id": "bye", "type": "text", "text": "Bye"}]}
            """#
        let doc = try #require(FlowLoader.load(json).document)
        let rec = NotificationRecorder()
        let rocket = try #require(doc.makeRocket(clock: ManualClock(), options: ConversationOptions(timing: .instant)))
        rocket.notificationCenter = rec.center
        rocket.show()
        try rocket.send(.rate(5))
        try rocket.send(.chooseMany([0, 1]))
        #expect(rocket.conversation.answers["stars"]?.typed == .number(5))
        let added = rec.posts.filter { $0.name == .rocketBlockAddedEvent }
        #expect(added.count == 3, "set and condition blocks are never shown, so never posted")
        let last = try #require(added.last?.userInfo["block"] as? RocketNode)
        #expect(last.id == "happy")
        #expect(rocket.conversation.transcript.last.map { if case .block(_, _, let t) = $0 { t } else { "" } } == "Visit 1: 5 stars and Tea, Cake")
    }
}

@Suite("What an answer chose, in its event and record")
struct ChosenOptionTests {
    @Test("a button, a double button, a choice, a multiple choice and a rating name the options chosen by place, with their titles as shown")
    func options() throws {
        let json = #"""
            {"version": 1, "vars": {"who": "Ada"}, "blocks": [
             {"id": "go", "type": "button", "title": "Go, {{who}}", "next": "side"},
             {"id": "side", "type": "doubleButton", "left": {"title": "No", "next": "one"}, "right": {"title": "Yes", "next": "one"}},
             {"id": "one", "type": "choice", "text": "?", "options": [{"title": "Tea", "next": "many"}, {"title": "Cake", "next": "many"}]},
             {"id": "many", "type": "choice", "text": "?", "multiple": true, "options": [{"title": "A"}, {"title": "B"}, {"title": "C"}], "next": "stars"},
             {"id": "stars", "type": "rating", "text": "?", "scale": 10}]}
            """#
        let doc = try #require(FlowLoader.load(json).document)
        let rocket = try #require(doc.makeRocket(clock: ManualClock(), options: ConversationOptions(timing: .instant)))
        var events: [RocketEvent] = []
        rocket.onEvent = { events.append($0) }
        rocket.show()
        for intent: RocketIntent in [.pressButton, .pressRight, .choose(1), .chooseMany([2, 0]), .rate(7)] { try rocket.send(intent) }
        let records = events.compactMap { e -> String? in
            guard case .buttonPressed = e else { return nil }
            return e.recordText
        }
        #expect(
            records == [
                #"{"event":"buttonPressed","index":0,"id":"go","title":"Go, Ada","options":[0]}"#,
                #"{"event":"buttonPressed","index":1,"id":"side","title":"Yes","side":"right","options":[1]}"#,
                #"{"event":"buttonPressed","index":2,"id":"one","title":"Cake","options":[1]}"#,
                #"{"event":"buttonPressed","index":3,"id":"many","title":"A, C","options":[0,2],"titles":["A","C"]}"#,
                #"{"event":"buttonPressed","index":4,"id":"stars","title":"7","options":[6]}"#,
            ])
    }
}
