import Foundation
import RocketConversation
import RocketCore
import RocketJSON
import Synchronization
import Testing

@testable import RocketScenariosSQLite

@testable import RocketServer

/// A conversation unchanged since it started is kept in memory as its start and made whole when
/// it is first used: what it then is must be what it would have been.
@Suite("Conversations kept as they started")
struct FreshSlotTests {
    /// Timers (an intro, a bubble that advances by itself), an input and a choice.
    static let timed = """
        {"version": 1, "start": "a", "blocks": [
         {"id": "a", "type": "text", "text": "First", "next": "b", "showNextAfter": 2},
         {"id": "b", "type": "text", "text": "Second", "next": "c", "showNextAfter": 3},
         {"id": "c", "type": "choice", "text": "Which?", "options": [{"title": "One", "next": "d"}, {"title": "Two", "next": "d"}]},
         {"id": "d", "type": "text", "text": "Done"}]}
        """

    static func flows() throws -> String {
        let dir = scratchDirectory()
        try timed.write(toFile: dir + "/timed.json", atomically: true, encoding: .utf8)
        return dir
    }

    static func slot(_ h: Harness, _ id: String) -> ConversationService.Slot? { h.service.state.withLock { $0.slots[id] } }

    /// The conversation in an answer, its id written as ID (two conversations compare equal
    /// when they are in the same state).
    static func shape(_ answer: HTTPResponse, _ id: String) -> String {
        let text = answer.text
        guard let at = text.range(of: #""conversation":"#) else { return "no conversation: \(text)" }
        return String(text[at.lowerBound...]).replacingOccurrences(of: id, with: "ID")
    }

    static func shape(_ h: Harness, _ id: String) -> String { shape(h.request("GET", "/v1/conversations/\(id)", visitor: "ada"), id) }

    @Test("a start is kept as it started, saved so, and made whole by its first use, with the view it was answered with")
    func keptUntilUsed() throws {
        let h = try Harness(configure: { $0.timing = .original }, flowsDirectory: try Self.flows())
        let r = h.request("POST", "/v1/conversations", body: #"{"flow": "timed", "visitor": "ada"}"#)
        #expect(r.status == 201)
        let id = try #require(r.json?["conversation"]?["id"]?.string)
        #expect(Self.slot(h, id)?.isFresh == true)
        // Its save (the harness flushes after every request) does not make it whole.
        let row = try #require(try h.archive().load(id)?.row)
        #expect(row.snapshot.hasPrefix(#"{"start":"#) && row.version == 1)
        #expect(Self.slot(h, id)?.isFresh == true)
        let read = Self.shape(h, id)
        #expect(Self.slot(h, id)?.isFresh == false)
        #expect(read == Self.shape(r, id))
    }

    @Test("kept as it started or whole from the start, a conversation goes on the same: timers, a choice, its saves and a restart")
    func sameEitherWay() throws {
        let dir = try Self.flows()
        let clock = ManualClock(now: 1_800_000_000)
        let paths = [scratchDirectory() + "/a.sqlite", scratchDirectory() + "/b.sqlite"]
        // One server keeps the conversation whole from its start, the other as it started.
        let early = try Harness(path: paths[0], clock: clock, configure: { $0.timing = .original }, flowsDirectory: dir, keepsStarts: false)
        let late = try Harness(path: paths[1], clock: clock, configure: { $0.timing = .original }, flowsDirectory: dir)
        let body = #"{"flow": "timed", "visitor": "ada"}"#
        let a = try #require(early.request("POST", "/v1/conversations", body: body).json?["conversation"]?["id"]?.string)
        let b = try #require(late.request("POST", "/v1/conversations", body: body).json?["conversation"]?["id"]?.string)
        #expect(Self.slot(early, a)?.isFresh == false && Self.slot(late, b)?.isFresh == true)
        // Its timers fall due while it is kept as it started: the ticker makes it whole. Each
        // second both are read (which makes the second whole from its second second on).
        for step in 0..<8 {
            clock.advance(by: 1)
            early.service.advanceDue()
            late.service.advanceDue()
            early.service.flush()
            late.service.flush()
            #expect(Self.shape(early, a) == Self.shape(late, b), "second \(step + 1)")
        }
        #expect(early.view(a)?["transcript"]?.array.last?["text"]?.string == "Which?")
        for (h, id) in [(early, a), (late, b)] {
            #expect(h.send(id, #""intent": "choose", "option": 1"#).status == 200)
        }
        #expect(Self.shape(early, a) == Self.shape(late, b))
        // Both stores hold the same conversation, which goes on to its end after a restart.
        clock.advance(by: 1)
        let again = [
            try Harness(path: paths[0], clock: clock, configure: { $0.timing = .original }, flowsDirectory: dir),
            try Harness(path: paths[1], clock: clock, configure: { $0.timing = .original }, flowsDirectory: dir),
        ]
        #expect(Self.shape(again[0], a) == Self.shape(again[1], b))
        clock.advance(by: 10)
        for h in again { h.service.advanceDue() }
        #expect(Self.shape(again[0], a) == Self.shape(again[1], b))
        #expect(again[1].view(b)?["transcript"]?.array.last?["text"]?.string == "Done")
    }

    @Test("a fresh conversation whose save failed is saved whole when the store is back, and reads back as it was")
    func failedSaveOfFresh() throws {
        let clock = ManualClock(now: 1_800_000_000)
        let path = scratchDirectory() + "/store.sqlite"
        let h = try Harness(path: path, clock: clock, configure: { $0.timing = .original }, flowsDirectory: try Self.flows())
        // The writer's batch fails once (the store's table is renamed away under it).
        let r = h.service.handle(
            HTTPRequest(
                method: "POST", path: "/v1/conversations", headers: ["Content-Type": "application/json", "Rocket-Visitor": "ada"],
                body: Array(#"{"flow": "timed"}"#.utf8)))
        let id = try #require(r.json?["conversation"]?["id"]?.string)
        try SQLiteScenarioStore.rawExec(path: path, "ALTER TABLE server_conversations RENAME TO away")
        #expect(h.service.flush().saved == false)
        try SQLiteScenarioStore.rawExec(path: path, "ALTER TABLE away RENAME TO server_conversations")
        #expect(h.service.flush().saved == true)
        let row = try #require(try h.archive().load(id)?.row)
        #expect(row.snapshot.hasPrefix(#"{"snapshot":"#), "\(row.snapshot.prefix(40))")
        // Read back after a restart, it is the conversation that stayed in memory.
        let again = try Harness(path: path, clock: clock, configure: { $0.timing = .original }, flowsDirectory: try Self.flows())
        #expect(Self.shape(again, id) == Self.shape(h, id))
        clock.advance(by: 5)
        for s in [again, h] { s.service.advanceDue() }
        #expect(again.view(id)?["transcript"]?[0]?["text"]?.string == "First")
        #expect(Self.shape(again, id) == Self.shape(h, id))
    }
}
