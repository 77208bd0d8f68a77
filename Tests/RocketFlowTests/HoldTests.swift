import RocketConversation
import RocketCore
import RocketJSON
import Testing

@testable import RocketFlow

/// Auto-advance the visitor can pause (WCAG 2.2.1): held, its timers wait and keep the time they
/// had left; the block they would advance takes a tap; a snapshot keeps the hold.
@Suite("Holding auto-advance")
struct HoldTests {
    static let flow = #"""
        {"version": 1, "blocks": [
         {"id": "a", "type": "text", "text": "Goes on by itself", "showNextAfter": 10, "next": "b"},
         {"id": "b", "type": "text", "text": "Second"}
        ]}
        """#

    func started() throws -> Conversation {
        let doc = try #require(FlowLoader.load(Self.flow).document)
        var c = try #require(doc.makeConversation(options: ConversationOptions(timing: .reducedMotion)))
        c.start(at: 0)
        _ = c.advance(to: 0)
        #expect(c.blocks.count == 1)
        #expect(c.autoAdvancePending)
        return c
    }

    @Test("held, the timer waits and then keeps what it had left; holding twice is holding once")
    func waits() throws {
        var c = try started()
        #expect(c.nextDeadline == 10)
        c.hold(at: 4)
        c.hold(at: 6)
        #expect(c.isHoldingAutoAdvance)
        #expect(c.nextDeadline == nil, "nothing is due while held")
        _ = c.advance(to: 100)
        #expect(c.blocks.count == 1, "a held block does not go on")
        _ = c.release(at: 100)
        #expect(!c.isHoldingAutoAdvance)
        #expect(c.nextDeadline == 106, "6 s were left when it was held at 4")
        _ = c.advance(to: 105.9)
        #expect(c.blocks.count == 1)
        _ = c.advance(to: 106)
        #expect(c.blocks.count == 2)
        #expect(c.release(at: 200).isEmpty, "releasing what is not held does nothing")
    }

    @Test("held, the block takes a tap and goes on as a tapped block would")
    func tapWhileHeld() throws {
        var c = try started()
        #expect(throws: RocketIntentError.tapDisabled) { try c.send(.tap, at: 1) }
        c.hold(at: 1)
        #expect(c.interactiveIndex == 0)
        let effects = try c.send(.tap, at: 2)
        #expect(effects.contains(.event(.tapped(index: 0, id: "a", automatic: false))))
        _ = c.advance(to: 3)
        #expect(c.blocks.count == 2)
        _ = c.release(at: 4)
        _ = c.advance(to: 50)
        #expect(c.blocks.count == 2, "the removed timer never fires")
    }

    @Test("a snapshot of a held conversation keeps the hold and the time left")
    func snapshot() throws {
        var c = try started()
        c.hold(at: 3)
        let doc = try #require(FlowLoader.load(Self.flow).document)
        let text = ConversationSnapshot(c, at: 50).jsonBytes()
        #expect(String(decoding: text, as: UTF8.self).contains("\"held\":true"))
        let read = try ConversationSnapshot(jsonText: text, graph: c.graph)
        var back = try read.restore(graph: c.graph, author: c.author, closeButton: doc.closeButton, options: c.options, at: 1000)
        #expect(back.isHoldingAutoAdvance)
        #expect(back.nextDeadline == nil)
        _ = back.release(at: 1000)
        #expect(back.nextDeadline == 1007, "7 s were left when it was held at 3")
    }
}
