import Foundation
import RocketCore
import Synchronization
import Testing

@testable import RocketScenariosSQLite
@testable import RocketServer

/// The server's log under a failure every request meets: one line, not one a request.
@Suite("the server's log holds back repeats")
struct LogThrottleTests {
    @Test("a line said again within a minute is held back; after it, the line says how many were")
    func throttle() {
        let t = LogThrottle()
        #expect(t.pass("store gone", at: 0) == "store gone")
        #expect(t.pass("store gone", at: 10) == nil)
        #expect(t.pass("store gone", at: 59.9) == nil)
        #expect(t.pass("another", at: 20) == "another")
        #expect(t.pass("store gone", at: 60) == "store gone (and 2 more like it held back)")
        #expect(t.pass("store gone", at: 130) == "store gone")
        // A clock that moved back does not silence a line.
        #expect(t.pass("store gone", at: 100) == "store gone")
        // Full of lines still in their minute, a new line is let through, not lost.
        let full = LogThrottle()
        for k in 0..<LogThrottle.capacity { _ = full.pass("line \(k)", at: 0) }
        #expect(full.pass("one more", at: 1) == "one more")
        #expect(full.pass("one more", at: 2) == "one more")
        // Once their minute is over, the old lines leave and make room.
        #expect(full.pass("later", at: 61) == "later")
        #expect(full.pass("later", at: 62) == nil)
    }

    @Test("a scenario store that fails: 30 gated starts answer 503 and log one line, not 30")
    func failingStore() throws {
        let lines = Mutex<[String]>([])
        let h = try Harness(log: { line in lines.withLock { $0.append(line) } })
        let store = try #require(h.service.scenarios as? SQLiteScenarioStore)
        try store.execForTesting("DROP TABLE scenarios")
        for k in 0..<30 {
            let r = h.request("POST", "/v1/conversations", body: #"{"flow": "gated", "visitor": "v\#(k)"}"#)
            #expect(r.status == 503 && r.json?["error"]?["code"]?.string == "store-unavailable")
        }
        var logged = lines.withLock { $0 }.filter { $0.contains("scenario store") }
        #expect(logged.count == 1, "\(logged)")
        h.clock.advance(by: 61)
        _ = h.request("POST", "/v1/conversations", body: #"{"flow": "gated", "visitor": "late"}"#)
        logged = lines.withLock { $0 }.filter { $0.contains("scenario store") }
        #expect(logged.count == 2 && logged[1].hasSuffix("(and 29 more like it held back)"), "\(logged)")
    }
}
