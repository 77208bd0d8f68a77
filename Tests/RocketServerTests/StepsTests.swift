import Foundation
import RocketConversation
import RocketCore
import RocketJSON
import RocketPostgres
import RocketPlatform
import RocketSQLite
import RocketTestSupport
import Testing

@testable import RocketServer

/// A flow with every step a change can be saved as: a tap, a timer, a hold, a choice, a multiple
/// choice and a rating.
private let stepsFlow = """
    {"version": 1, "start": "a", "blocks": [
     {"id": "a", "type": "text", "text": "Tap me", "next": "b"},
     {"id": "b", "type": "text", "text": "Wait", "showNextAfter": 10, "next": "c"},
     {"id": "c", "type": "choice", "text": "Colour?", "options": [{"title": "Red", "next": "d"}, {"title": "Blue", "next": "d"}]},
     {"id": "d", "type": "choice", "text": "Pick two", "multiple": true, "max": 2, "buttonTitle": "Send",
      "options": [{"title": "A"}, {"title": "B"}, {"title": "C"}], "next": "e"},
     {"id": "e", "type": "rating", "text": "Score?", "scale": 5, "next": "f"},
     {"id": "f", "type": "text", "text": "Bye"}]}
    """

private let loopFlow = """
    {"version": 1, "start": "tick", "blocks": [{"id": "tick", "type": "text", "text": "Tick", "next": "tick"}]}
    """

/// Timers as a flow states them (a harness is instant by default, where every timer is due at once).
private func timed(_ c: inout ServerConfiguration) { c.timing = .reducedMotion }

@Suite("Changes saved as steps")
struct StepsTests {
    /// A scratch folder holding the two flows above.
    private func flows() throws -> String {
        let dir = scratchDirectory()
        try stepsFlow.write(toFile: dir + "/steps.json", atomically: true, encoding: .utf8)
        try loopFlow.write(toFile: dir + "/loop.json", atomically: true, encoding: .utf8)
        return dir
    }

    /// The conversation's whole answer as a restarted server gives it.
    private func restarted(_ h: Harness, _ dir: String, _ id: String) throws -> String {
        let again = try Harness(path: h.path, clock: h.clock, configure: timed, flowsDirectory: dir)
        return again.request("GET", "/v1/conversations/\(id)", visitor: "ada").text
    }

    @Test("every kind of step reads back as it was written; a typed answer is never a step")
    func roundTrip() throws {
        let steps: [ConversationStep] = [
            .send(.tap, at: 1_800_000_000.125), .send(.pressButton, at: 2), .send(.pressLeft, at: 3), .send(.pressRight, at: 4),
            .send(.close, at: 5), .send(.back, at: 6), .send(.choose(3), at: 7), .send(.chooseMany([0, 2, 5]), at: 8), .send(.chooseMany([]), at: 8.5),
            .send(.rate(9), at: 9), .advance(to: 10.000_001), .hold(true, at: 11), .hold(false, at: 12),
        ]
        #expect(try ConversationStep.parse(ConversationStep.text(steps)) == steps)
        #expect(ConversationStep.sending(.submit("secret"), at: 1) == nil)
        #expect(ConversationStep.sending(.tap, at: 1) == .send(.tap, at: 1))
    }

    @Test(
        "a damaged step is refused with the line it is on",
        arguments: [
            (#"{"op":"advance","at":1}"# + "\n" + #"{"op":"jump","at":2}"#, "stored step 2: unknown step \"jump\""),
            (#"{"op":"send","intent":"submit","at":1}"#, "stored step 1: \"intent\" cannot be \"submit\" in a stored step"),
            (#"{"op":"send","intent":"choose","at":1}"#, "stored step 1:"),
            (#"{"op":"hold","held":true}"#, "stored step 1:"),
            (#"{"op":"send","intent":"chooseMany","options":[1.5],"at":1}"#, "stored step 1: \"options\" must hold whole numbers"),
            ("{", "stored step 1:"),
        ])
    func damaged(text: String, message: String) {
        #expect(throws: ConversationStep.Failure.self) { try ConversationStep.parse(text) }
        do {
            _ = try ConversationStep.parse(text)
        } catch {
            #expect(error.message.hasPrefix(message), "\(error.message)")
        }
    }

    @Test(
        "taps, a hold, a timer, choices and a rating are saved as steps; a restart replays them to the same conversation", arguments: ServerStoreKind.allCases)
    func replayEqualsLive(kind: ServerStoreKind) throws {
        let dir = try flows()
        let h = try Harness(kind, configure: timed, flowsDirectory: dir)
        let id = try h.start("steps")
        let version0 = try #require(try h.archive().load(id)?.row.version)
        #expect(h.send(id, #""intent": "tap""#).status == 200)
        // The tap is a step after the snapshot, not a new snapshot.
        let afterTap = try #require(try h.archive().load(id))
        #expect(afterTap.row.version == version0)
        #expect(afterTap.steps.count == 1 && afterTap.steps[0].text.contains(#""intent":"tap""#))
        #expect(try restarted(h, dir, id) == h.request("GET", "/v1/conversations/\(id)", visitor: "ada").text)
        // Held for 30 s of its 10 s timer, released, then the timer runs out.
        h.clock.advance(by: 3)
        #expect(h.request("POST", "/v1/conversations/\(id)/hold", body: #"{"held": true}"#, visitor: "ada").status == 200)
        h.clock.advance(by: 30)
        h.service.advanceDue()
        #expect(h.request("POST", "/v1/conversations/\(id)/hold", body: #"{"held": false}"#, visitor: "ada").status == 200)
        #expect(try restarted(h, dir, id) == h.request("GET", "/v1/conversations/\(id)", visitor: "ada").text)
        h.clock.advance(by: 7.5)
        h.service.advanceDue()
        h.service.flush()
        #expect(h.view(id)?["transcript"]?.array.last?["text"]?.string == "Colour?")
        #expect(h.send(id, #""intent": "choose", "option": 1"#).status == 200)
        #expect(h.send(id, #""intent": "chooseMany", "options": [0, 2]"#).status == 200)
        // A rating out of the scale is refused and changes nothing; then an accepted one.
        #expect(h.send(id, #""intent": "rate", "value": 9"#).status == 422)
        #expect(h.send(id, #""intent": "rate", "value": 4"#).status == 200)
        let live = h.request("GET", "/v1/conversations/\(id)", visitor: "ada").text
        #expect(live.contains("Bye"))
        let stored = try #require(try h.archive().load(id))
        #expect(stored.row.version == version0)
        #expect(stored.steps.count >= 7)
        #expect(stored.steps.contains { $0.text.contains(#""op":"advance""#) })
        #expect(try restarted(h, dir, id) == live)
    }

    @Test("a timer left running counts from the last save after a restart, as a snapshot's does")
    func timerAfterRestart() throws {
        let dir = try flows()
        let h = try Harness(configure: timed, flowsDirectory: dir)
        let id = try h.start("steps")
        #expect(h.send(id, #""intent": "tap""#).status == 200)  // "Wait" shows, its 10 s timer starts
        h.clock.advance(by: 4)
        h.clock.advance(by: 100)  // the server is down meanwhile
        let again = try Harness(path: h.path, clock: h.clock, configure: timed, flowsDirectory: dir)
        #expect(again.view(id)?["transcript"]?.array.last?["text"]?.string == "Wait")
        again.clock.advance(by: 9.5)
        again.service.advanceDue()
        #expect(again.view(id)?["transcript"]?.array.last?["text"]?.string == "Wait")
        again.clock.advance(by: 1)
        again.service.advanceDue()
        #expect(again.view(id)?["transcript"]?.array.last?["text"]?.string == "Colour?")
    }

    @Test("typed answers are saved as snapshots: a secret never reaches the store, valid or refused", arguments: ServerStoreKind.allCases)
    func typedAnswers(kind: ServerStoreKind) throws {
        let h = try Harness(kind)
        let id = try h.start()
        #expect(h.send(id, #""intent": "tap""#).status == 200)
        #expect(h.send(id, #""intent": "submit", "text": "Q7Q7-much-too-long""#).status == 422)
        #expect(h.send(id, #""intent": "submit", "text": "Ada""#).status == 200)
        let afterName = try #require(try h.archive().load(id))
        #expect(afterName.steps.isEmpty)
        #expect(h.send(id, #""intent": "submit", "text": "X9X9-pin""#).status == 200)
        h.service.flush()
        if kind == .postgres {
            let db = PostgresDatabase(url: PostgresURL(h.path)!)
            let found = try db.withConnection { (c) throws(PostgresError) in
                try c.query(
                    """
                    SELECT (SELECT count(*) FROM rocket_conversations WHERE snapshot LIKE '%X9X9%')
                      + (SELECT count(*) FROM rocket_steps WHERE steps LIKE '%X9X9%') + (SELECT count(*) FROM rocket_events WHERE record LIKE '%X9X9%')
                    """
                ).firstInt
            }
            #expect(found == 0)
        } else {
            for file in [h.path, h.path + "-wal"] {
                let bytes = (try? Data(contentsOf: URL(fileURLWithPath: file))) ?? Data()
                #expect(bytes.range(of: Data("X9X9-pin".utf8)) == nil, "\(file)")
            }
        }
        let again = try Harness(path: h.path, clock: h.clock)
        #expect(again.view(id)?["step"]?.number == 3)
        #expect(again.send(id, #""intent": "choose", "option": 0"#).status == 200)
        #expect(again.view(id)?["transcript"]?.array.last?["text"]?.string == "Bye Ada")
    }

    @Test("after 16 steps the next change is a whole snapshot: a load replays at most that many", arguments: ServerStoreKind.allCases)
    func snapshotEvery(kind: ServerStoreKind) throws {
        let dir = try flows()
        let h = try Harness(
            kind,
            configure: {
                timed(&$0)
                $0.requestBurst = 1_000
            }, flowsDirectory: dir)
        let id = try h.start("loop")
        var snapshots = Set<Int>()
        for k in 0..<40 {
            #expect(h.send(id, #""intent": "tap", "step": \#(k)"#).status == 200)
            let stored = try #require(try h.archive().load(id))
            #expect(stored.steps.count <= ConversationStep.perSnapshot)
            #expect(stored.steps.last?.version ?? stored.row.version == stored.row.version + stored.steps.count)
            snapshots.insert(stored.row.version)
        }
        #expect(snapshots.count >= 2)
        #expect(try restarted(h, dir, id) == h.request("GET", "/v1/conversations/\(id)", visitor: "ada").text)
    }

    @Test("conversation ids sort by when they were made (the store's tables grow at their end) and keep 80 random bits")
    func orderedIDs() {
        let a = ConversationService.newID(at: 1_800_000_000.001)
        let b = ConversationService.newID(at: 1_800_000_000.002)
        let c = ConversationService.newID(at: 1_800_000_000.001)
        #expect(a < b)
        #expect(a.prefix(12) == c.prefix(12) && a != c)
        #expect(a.prefix(12) == String(1_800_000_000_001, radix: 16).leftPadded(to: 12))
        #expect([a, b, c].allSatisfy(ConversationService.isConversationID))
        // Times out of range still make well-formed ids.
        #expect(ConversationService.isConversationID(ConversationService.newID(at: -5)))
        #expect(ConversationService.isConversationID(ConversationService.newID(at: .infinity)))
        #expect(ConversationService.isConversationID(ConversationService.newID(at: .nan)))
        // The random part: 1,000 ids made in one millisecond are all different, and every one of
        // the 20 random hex digits takes many values.
        let many = (0..<1_000).map { _ in ConversationService.newID(at: 1_800_000_000.001) }
        #expect(Set(many).count == many.count)
        for k in 12..<32 {
            let digits = Set(many.map { Array($0.utf8)[k] })
            #expect(digits.count >= 12, "digit \(k) took only \(digits.count) values")
        }
        #expect(Set((0..<1_000).map { _ in ConversationService.newID() }).count == 1_000)
        // Secrets come from the same source: the length asked for, never the same twice.
        let secrets = (0..<100).map { _ in AccessControl.randomBytes(32) }
        #expect(secrets.allSatisfy { $0.count == 32 } && Set(secrets).count == 100)
        #expect(AccessControl.randomBytes(0).isEmpty && AccessControl.randomBytes(-1).isEmpty)
        #expect(Set(secrets.flatMap { $0 }).count > 200, "3,200 bytes take most of the 256 values")
    }

    @Test("a save's event records: one row numbered by the first change that made records, the others' records after it in order")
    func eventRows() {
        typealias U = ConversationService.UnsavedChange
        #expect(ConversationService.eventRows([]).isEmpty)
        #expect(ConversationService.eventRows([U(seq: 1, records: nil)]).isEmpty)
        let rows = ConversationService.eventRows([
            U(seq: 1, records: nil), U(seq: 2, records: (seq: 4, at: 10, text: "a\nb")), U(seq: 3, records: nil),
            U(seq: 4, records: (seq: 6, at: 11, text: "c")),
        ])
        #expect(rows.count == 1 && rows[0].seq == 4 && rows[0].at == 10 && rows[0].record == "a\nb\nc")
        let one = ConversationService.eventRows([U(seq: 9, records: (seq: 1, at: 2, text: "x"))])
        #expect(one.count == 1 && one[0].record == "x" && one[0].seq == 1)
    }

    @Test("SQLite keeps no count of its memory (no process-wide lock at each allocation), while a store is written")
    func noMemoryCount() throws {
        let h = try Harness()
        let archive = try h.archive()
        let row = ConversationArchive.Row(
            id: ConversationService.newID(at: h.clock.now), visitor: "v", flow: "basic", step: 0, version: 1, eventSeq: 0, touched: h.clock.now,
            snapshot: String(repeating: "x", count: 5_000))
        try archive.save([(save: .snapshot(row, replacingSteps: false), flow: "basic", events: [])])
        #expect(try archive.load(row.id)?.row.snapshot.count == 5_000)
        #expect(SQLiteDatabase.memoryCounted == 0)
    }

    @Test("random bytes from the pool: every size, across many refills and from four threads at once, never the same bytes twice")
    func randomPool() async {
        // 16-byte draws cross the 4 KiB pool's end many times; odd sizes leave odd remainders.
        var seen = Set<[UInt8]>()
        for k in 0..<3_000 {
            let n = [16, 7, 33, 256, 257, 5_000][k % 6]
            let bytes = AccessControl.randomBytes(n)
            #expect(bytes.count == n)
            seen.insert(bytes)
        }
        #expect(seen.count == 3_000)
        let ids = await withTaskGroup(of: [String].self) { group in
            for _ in 0..<4 { group.addTask { (0..<2_000).map { _ in ConversationService.newID() } } }
            var all: [String] = []
            for await part in group { all += part }
            return all
        }
        #expect(Set(ids).count == 8_000)
        // No byte value is favoured: 8,000 ids' 256,000 hex digits spread over all 16 about evenly.
        var counts = [Int](repeating: 0, count: 16)
        for id in ids { for c in id.utf8 { counts[Int(c <= 0x39 ? c - 0x30 : c - 0x61 + 10)] += 1 } }
        #expect(counts.allSatisfy { abs($0 - 16_000) < 1_000 }, "\(counts)")
    }

    /// New conversations `range` as saves of about 2 KB each (a page of the log apiece), made at
    /// `time` plus their number in seconds, each snapshot ending in its number.
    static func bigRows(_ range: Range<Int>, at time: Double) -> [ConversationArchive.Batched] {
        range.map { k in
            let row = ConversationArchive.Row(
                id: ConversationService.newID(at: time + Double(k)), visitor: "v", flow: "basic", step: 0, version: 1, eventSeq: 0, touched: time,
                snapshot: String(repeating: "x", count: 2_000) + "\(k)")
            return (save: .snapshot(row, replacingSteps: false), flow: "basic", events: [])
        }
    }

    @Test("the store's log stays small: a checkpoint past the limit starts it again from its beginning, commits going on")
    func logStaysSmall() throws {
        let h = try Harness()
        let archive = try h.archive()
        func rows(_ range: Range<Int>) -> [ConversationArchive.Batched] { Self.bigRows(range, at: h.clock.now) }
        for k in 0..<20 { try archive.save(rows(k * 50..<(k + 1) * 50)) }
        let big = try archive.checkpoint(restartFrames: 100)
        #expect(big.frames > 1_000 && big.restarted)
        try archive.save(rows(5_000..<5_001))
        let after = try archive.checkpoint(restartFrames: 100)
        #expect(after.frames < 50, "\(after.frames) frames in the log after a restart and one commit")
        #expect(!after.restarted)
        // A reader in an old snapshot (a long report): the restart gives up instead of holding
        // commits back until the reader is done, and commits go on; once it is gone, it restarts.
        let reader = try SQLiteDatabase(path: h.path, mode: .readOnly)
        try reader.withConnection { (c) throws(SQLiteError) in
            try c.exec("BEGIN")
            _ = try c.integer("SELECT count(*) FROM server_conversations")
        }
        for k in 0..<10 { try archive.save(rows(6_000 + k * 50..<6_000 + (k + 1) * 50)) }
        let held = try archive.checkpoint(restartFrames: 100)
        #expect(held.frames > 100 && !held.restarted)
        try archive.save(rows(7_000..<7_001))
        try reader.withConnection { (c) throws(SQLiteError) in try c.exec("COMMIT") }
        #expect(try archive.checkpoint(restartFrames: 100).restarted)
    }

    /// True when the kernel keeps a synced file's pages however it is asked (tmpfs, where they
    /// are the only copy): tried on a file of its own.
    static let scratchInMemory: Bool = {
        let path = newScratchPath("pages", suffix: ".bin")
        guard case .success = FileIO.write(String(repeating: "x", count: 65_536), to: path) else { return true }
        defer { _ = FileIO.remove(path) }
        let fd = open(path, O_RDONLY)
        if fd >= 0 {
            fsync(fd)
            close(fd)
        }
        FileIO.dropCachedPages(path)
        return (FileIO.cachedPages(path)?.cached ?? 1) > 0
    }()

    @Test(
        "a checkpoint leaves the pages the store file grew by on disk, but for its newest; pages read back stay cached; the store reads the same",
        .enabled(if: !scratchInMemory, "the scratch folder is on tmpfs, whose pages are never let go"))
    func checkpointLetsPagesGo() throws {
        let h = try Harness()
        let archive = try h.archive()
        func rows(_ range: Range<Int>) -> [ConversationArchive.Batched] { Self.bigRows(range, at: h.clock.now) }
        let tailPages = ConversationArchive.cachedTail / 4_096
        let first = rows(0..<3_000)
        try archive.save(first)
        #expect(try archive.checkpoint(restartFrames: 1_000_000).frames > 3_000)
        let held = try #require(FileIO.cachedPages(h.path))
        #expect(held.pages > 3 * tailPages && held.cached <= tailPages + 8, "\(held.cached) of \(held.pages) pages held in memory")
        // The first rows are read back (their pages cached again), then the file grows: only what
        // it grew by is let go of.
        guard case .snapshot(let oldest, _) = first[0].save, case .snapshot(let newest, _) = first[2_999].save else { return }
        #expect(try archive.load(oldest.id)?.row.snapshot == oldest.snapshot)
        let grown = try #require(FileIO.cachedPages(h.path)).pages * 4_096
        let readBack = try #require(FileIO.cachedPages(h.path, to: grown - ConversationArchive.cachedTail)).cached
        #expect(readBack > 0)
        try archive.save(rows(3_000..<6_000))
        #expect(try archive.checkpoint(restartFrames: 1_000_000).frames > 3_000)
        #expect(try #require(FileIO.cachedPages(h.path, to: grown - ConversationArchive.cachedTail)).cached >= readBack)
        let after = try #require(FileIO.cachedPages(h.path, from: grown))
        #expect(after.pages > 3 * tailPages && after.cached <= tailPages + 8, "\(after.cached) of \(after.pages) new pages held in memory")
        #expect(try archive.load(newest.id)?.row.snapshot == newest.snapshot)
    }

    @Test("a conversation whose steps were saved lately is in use: the store keeps it until its steps are old too", arguments: ServerStoreKind.allCases)
    func expiryCountsSteps(kind: ServerStoreKind) throws {
        let dir = try flows()
        let h = try Harness(kind, configure: timed, flowsDirectory: dir)
        let id = try h.start("loop")
        let started = h.clock.now
        h.clock.advance(by: 60)
        #expect(h.send(id, #""intent": "tap""#).status == 200)
        let archive = try h.archive()
        #expect(try archive.expiring(before: started + 30, limit: 10).isEmpty)
        // Named anyway (read before its steps were saved): it stays.
        #expect(try archive.expire([id], before: started + 30, results: []).isEmpty)
        #expect(try archive.load(id) != nil)
        #expect(try archive.expiring(before: started + 70, limit: 10).map(\.row.id) == [id])
        #expect(try archive.expire([id], before: started + 70, results: []) == [id])
        #expect(try archive.load(id) == nil)
    }
}

extension String {
    fileprivate func leftPadded(to n: Int) -> String { String(repeating: "0", count: max(0, n - count)) + self }
}
