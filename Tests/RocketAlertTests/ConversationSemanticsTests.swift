import Foundation
import Testing
@testable import RocketAlert
import RocketCore

@Suite("RocketAlert semantics (seed-semantics.md §1)")
struct ConversationSemanticsTests {
    @Test("The README ordering example: A tap → B press → C auto-dismisses, with the original timings")
    func orderingExample() throws {
        var actionRanAt: Double?
        let c = TextRocketBlock(text: "C", next: nil, showNextAfter: 2)
        let h0 = ManualClock()
        let b = ButtonRocketBlock(title: "B", tapHandler: TapRocketHandler(next: c, action: { actionRanAt = h0.now }))
        let a = TextRocketBlock(text: "A", next: b)
        let h = Harness(root: a)
        h.rocket.show()
        #expect(h.added.isEmpty)  // the intro runs first
        h.run(for: 2)
        #expect(h.added == ["A"])
        #expect(h.time(ofAdded: "A") == 2)
        try h.rocket.send(.tap)
        #expect(h.added == ["A"])  // bounce first
        h.run(for: 0.3)
        #expect(h.added == ["A", "B"])
        h0.set(h.clock.now)
        try h.rocket.send(.pressButton)
        #expect(actionRanAt == h.clock.now)  // the action runs at once…
        #expect(h.added == ["A", "B"])  // …the next block after the bounce
        h.run(for: 0.3)
        #expect(h.added == ["A", "B", "C"])
        h.run(for: 2.0)
        #expect(h.dismissals.isEmpty)  // C's timer has fired; the bounce runs
        h.run(for: 0.3)
        #expect(h.dismissals == [.completed])
        guard case .closing(.completed) = h.rocket.conversation.status else {
            Issue.record("expected closing, got \(h.rocket.conversation.status)"); return
        }
        h.run(for: 2)
        #expect(h.rocket.conversation.status == .dismissed(.completed))
    }

    @Test("Only the newest block accepts input, and each block fires at most once")
    func newestOnlyAndOnce() throws {
        let second = TextRocketBlock(text: "2")
        let first = TextRocketBlock(text: "1", next: second)
        let h = Harness(root: first, timing: .reducedMotion)
        h.rocket.show()
        try h.rocket.send(.tap)
        #expect(h.added == ["1", "2"])
        #expect(h.rocket.conversation.interactiveIndex == 1)
        #expect(h.rocket.conversation.hasFired(0))
        // A second tap goes to the newest block (2), never back to 1.
        try h.rocket.send(.tap)
        #expect(h.dismissals == [.completed])
        #expect(throws: RocketIntentError.notActive) { try h.rocket.send(.tap) }
    }

    @Test("During a bounce no block is interactive")
    func bounceBlocksInput() throws {
        let first = TextRocketBlock(text: "1", next: TextRocketBlock(text: "2"))
        let h = Harness(root: first, timing: .original)
        h.rocket.show(); h.run(for: 2)
        try h.rocket.send(.tap)
        #expect(throws: RocketIntentError.noInteractiveBlock) { try h.rocket.send(.tap) }
        #expect(h.rocket.conversation.interactiveIndex == nil)
    }

    @Test("showNextAfter > 0 disables tapping and advances after the delay")
    func autoAdvance() throws {
        let second = TextRocketBlock(text: "second")
        let first = TextRocketBlock(text: "first")
        first.next = second
        first.showNextAfter = 2.0
        let h = Harness(root: first, timing: .reducedMotion)
        h.rocket.show()
        #expect(throws: RocketIntentError.tapDisabled) { try h.rocket.send(.tap) }
        #expect(h.rocket.conversation.isWaitingForAutoAdvance)
        #expect(h.rocket.nextDeadline == 2.0)
        h.run(for: 1.95)
        #expect(h.added == ["first"])
        h.run(for: 0.05)
        #expect(h.added == ["first", "second"])
    }

    @Test("showNextAfter nil, 0 or negative leaves tapping on", arguments: [nil, 0.0, -1.0] as [Double?])
    func noAutoAdvance(delay: Double?) throws {
        let h = Harness(root: TextRocketBlock(text: "x", next: nil, showNextAfter: delay), timing: .reducedMotion)
        h.rocket.show()
        #expect(h.rocket.nextDeadline == nil)
        h.run(for: 10)
        #expect(h.dismissals.isEmpty)
        try h.rocket.send(.tap)
        #expect(h.dismissals == [.completed])
    }

    @Test("Auto-advancing to a nil next dismisses")
    func autoAdvanceToNilDismisses() {
        let h = Harness(root: TextRocketBlock(text: "bye", showNextAfter: 1), timing: .reducedMotion)
        h.rocket.show()
        h.run(for: 1)
        #expect(h.dismissals == [.completed])
    }

    @Test("A nil next dismisses on every path")
    func nilNextEverywhere() throws {
        // button with no handler
        var h = Harness(root: ButtonRocketBlock(title: "OK"), timing: .reducedMotion)
        h.rocket.show(); try h.rocket.send(.pressButton)
        #expect(h.dismissals == [.completed])
        // button whose handler has a nil next
        h = Harness(root: ButtonRocketBlock(title: "OK", tapHandler: TapRocketHandler(next: nil)), timing: .reducedMotion)
        h.rocket.show(); try h.rocket.send(.pressButton)
        #expect(h.dismissals == [.completed])
        // double button side with no handler
        h = Harness(
            root: DoubleButtonRocketBlock(left: ButtonRocketBlock(title: "L"), right: ButtonRocketBlock(title: "R")),
            timing: .reducedMotion)
        h.rocket.show(); try h.rocket.send(.pressRight)
        #expect(h.dismissals == [.completed])
        // input with no handler
        h = Harness(root: TextInputRocketBlock(text: "?", buttonTitle: "Send"), timing: .reducedMotion)
        h.rocket.show(); try h.rocket.send(.submit("hi"))
        #expect(h.dismissals == [.completed])
        // input whose handler returns nil
        let input = TextInputRocketBlock(text: "?", buttonTitle: "Send")
        input.handler = InputRocketHandler(action: { _ in nil })
        h = Harness(root: input, timing: .reducedMotion)
        h.rocket.show(); try h.rocket.send(.submit("hi"))
        #expect(h.dismissals == [.completed])
        // input whose handler has no action
        let input2 = TextInputRocketBlock(text: "?", buttonTitle: "Send", inputHandler: InputRocketHandler(action: nil))
        h = Harness(root: input2, timing: .reducedMotion)
        h.rocket.show(); try h.rocket.send(.submit("hi"))
        #expect(h.dismissals == [.completed])
    }

    @Test("A double button's first press disables both sides and uses that side's handler")
    func doubleButton() throws {
        var ran: [String] = []
        let left = ButtonRocketBlock(title: "Left", tapHandler: TapRocketHandler(next: TextRocketBlock(text: "went left"), action: { ran.append("L") }))
        let right = ButtonRocketBlock(title: "Right", tapHandler: TapRocketHandler(next: TextRocketBlock(text: "went right"), action: { ran.append("R") }))
        let h = Harness(root: DoubleButtonRocketBlock(left: left, right: right, id: "pair"), timing: .original)
        h.rocket.show(); h.run(for: 2)
        try h.rocket.send(.pressRight)
        #expect(ran == ["R"])
        #expect(throws: RocketIntentError.noInteractiveBlock) { try h.rocket.send(.pressLeft) }
        #expect(ran == ["R"])
        h.run(for: 0.55)
        #expect(h.added == ["Left | Right"])  // the double bounce is 0.6 s
        h.run(for: 0.05)
        #expect(h.added == ["Left | Right", "went right"])
        #expect(h.rocket.conversation.answers["pair"]?.value == "Right")
        #expect(h.rocket.conversation.pressedSide[0] == .right)
    }

    @Test("The input handler receives the text and picks the next block at once, with no bounce")
    func inputHandler() throws {
        var received: String?
        let input = TextInputRocketBlock(text: "Name?", buttonTitle: "Send")
        input.handler = InputRocketHandler(action: { text in
            received = text; return TextRocketBlock(text: "Hi \(text)")
        })
        let h = Harness(root: input, timing: .original)
        h.rocket.show(); h.run(for: 2)
        try h.rocket.send(.submit("Ada"))
        #expect(received == "Ada")
        #expect(h.added == ["Name?", "Hi Ada"])  // no clock movement needed
        #expect(throws: RocketIntentError.self) { try h.rocket.send(.submit("again")) }
    }

    @Test("Replies are not echoed by default (the original), and are when the option is on")
    func echoOption() throws {
        for echo in [false, true] {
            let input = TextInputRocketBlock(text: "Name?", buttonTitle: "Send")
            input.next = TextRocketBlock(text: "ok")
            let h = Harness(root: input, timing: .reducedMotion, echo: echo)
            h.rocket.show()
            try h.rocket.send(.submit("Ada"))
            let replies = h.rocket.conversation.transcript.compactMap { item -> String? in
                if case .reply(_, let text, _) = item { return text }; return nil
            }
            #expect(replies == (echo ? ["Ada"] : []))
        }
    }

    @Test("Wrong intents for the block kind are refused without changing anything")
    func wrongKind() throws {
        let h = Harness(root: ButtonRocketBlock(title: "OK"), timing: .reducedMotion)
        h.rocket.show()
        #expect(throws: RocketIntentError.wrongKind(expected: .button, intent: .tap)) { try h.rocket.send(.tap) }
        #expect(throws: RocketIntentError.wrongKind(expected: .button, intent: .submit("x"))) { try h.rocket.send(.submit("x")) }
        #expect(h.rocket.conversation.interactiveIndex == 0)
    }

    @Test("show() twice is a no-op (R2); intents before show are refused")
    func showTwice() throws {
        let h = Harness(root: TextRocketBlock(text: "x"), timing: .reducedMotion)
        #expect(throws: RocketIntentError.notActive) { try h.rocket.send(.tap) }
        h.rocket.show()
        h.rocket.show()
        #expect(h.added == ["x"])
    }

    @Test("Timers belong to the showing: dismissal cancels a pending auto-advance (R3)")
    func timersCancelledOnDismiss() {
        let h = Harness(root: TextRocketBlock(text: "a", next: TextRocketBlock(text: "b"), showNextAfter: 1), timing: .reducedMotion)
        h.rocket.show()
        h.rocket.dismiss()
        h.run(for: 5)
        #expect(h.added == ["a"])
        #expect(h.dismissals == [.dismissedByApp])
        #expect(h.rocket.conversation.nextDeadline == nil)
    }

    @Test("The close button bounces, then dismisses as closed by the user")
    func closeButton() throws {
        let h = Harness(root: TextRocketBlock(text: "a", next: TextRocketBlock(text: "b")), timing: .original)
        h.rocket.closeButton = RocketCloseButton(title: "Close")
        h.rocket.show(); h.run(for: 2)
        try h.rocket.send(.close)
        #expect(h.dismissals.isEmpty)
        #expect(throws: RocketIntentError.noInteractiveBlock) { try h.rocket.send(.tap) }
        h.run(for: 0.3)
        #expect(h.dismissals == [.closedByUser])
        #expect(throws: RocketIntentError.notActive) { try h.rocket.send(.close) }
    }

    @Test("Interrupt reports its reason and stops everything")
    func interrupt() {
        let h = Harness(root: TextRocketBlock(text: "a", showNextAfter: 1), timing: .reducedMotion)
        h.rocket.show()
        h.rocket.interrupt()
        #expect(h.dismissals == [.interrupted])
        #expect(h.rocket.conversation.status == .dismissed(.interrupted))
    }

    @Test("TextInputRocketBlock keeps its id (R1) and blocks report their kind (R15)")
    func idAndKind() {
        let input = TextInputRocketBlock(text: "q", buttonTitle: "b", inputHandler: nil, id: "q1")
        #expect(input.id == "q1")
        #expect(input.cellIdentifier == "TextInputRocketBlock")
        final class MyText: TextRocketBlock {}
        #expect(MyText(text: "x").cellIdentifier == "TextRocketBlock")
        #expect(ImageRocketBlock(image: .file("a.png"), text: nil).text == "")
        #expect(ImageRocketBlock(image: .file("a.png"), text: nil).imageStyle == .square)
        #expect(ImageRocketBlock(image: .file("a.png"), text: nil).paddingLeft == 0)
    }
}
