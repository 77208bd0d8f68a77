import Foundation
import RocketCore
import Testing

@testable import RocketScenarios
@testable import RocketScenarioEngine
@testable import RocketScenariosSQLite
@testable import RocketServer

/// A conversation store written by the release before snapshot format 2 (Fixtures/store-v1)
/// serves its conversations after the upgrade and saves them again in format 2.
@Suite("A store of the previous release")
struct StoreCompatibilityTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/store-v1").path

    @Test("Its conversations resume: the input error, the answers, the pending intro timer; saved again as version 2")
    func resumes() throws {
        let dir = scratchDirectory()
        try FileManager.default.copyItem(atPath: Self.fixtures + "/store.sqlite", toPath: dir + "/store.sqlite")
        let h = try Harness(
            path: dir + "/store.sqlite", clock: ManualClock(now: 1_796_160_900), flowsDirectory: Self.fixtures + "/flows")
        let welcome = "f109b881b32b9342ff8cf2aaf4b50d79", choice = "5c4d8114b679360ca4b5303b21f304a5"
        // Its tables were made outside the store's schema (version 3); one migration list takes it to the newest.
        #expect(try SQLiteScenarioStore.rawInt(path: dir + "/store.sqlite", "PRAGMA user_version") == SQLiteScenarioStore.schemaVersion)
        #expect(SQLiteScenarioStore.schemaVersion == 14)
        let view = try #require(h.view(welcome, visitor: "v1-visitor"))
        #expect(view["status"]?.string == "active")
        #expect(view["inputError"]?.string == "No digits, please")
        #expect(view["transcript"]?.array.count == 3)  // Hi!, the double button, the question
        let r = h.send(welcome, #""intent": "submit", "text": "Ada""#, visitor: "v1-visitor")
        #expect(r.status == 200, "\(r.text)")
        #expect(r.text.contains("Hello Countess Ada"))
        // The presenting one: its intro timer was pending; it shows its first block once due.
        #expect(h.view(choice, visitor: "v1-visitor")?["status"]?.string == "presenting")
        h.clock.advance(by: 5)
        h.service.advanceDue()
        h.service.flush()
        #expect(h.view(choice, visitor: "v1-visitor")?["status"]?.string == "active")
        // Saved again in our own format.
        let row = try #require(try h.archive().load(welcome)?.row)
        #expect(row.snapshot.contains(#""version":2"#) && row.snapshot.contains(#""status":"active""#))
        #expect(!row.snapshot.contains(#""_0""#))
    }
}
