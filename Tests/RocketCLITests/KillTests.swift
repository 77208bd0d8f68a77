import Foundation
import RocketCore
import RocketTestSupport
import Synchronization
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `rocket serve` killed with SIGKILL while it answers: every intent it acknowledged is in the
/// store when it starts again.
@Suite("rocket serve: kill -9 under load loses nothing acknowledged")
struct KillTests {
    static let loop = #"{"version": 1, "start": "tick", "blocks": [{"id": "tick", "type": "text", "text": "Tick", "next": "tick"}]}"#

    /// The step an answer reports (nil when it is not a 200 or 201 with a conversation).
    static func step(_ answer: String) -> Int? {
        guard answer.hasPrefix("HTTP/1.1 200") || answer.hasPrefix("HTTP/1.1 201"),
            let r = answer.range(of: "\"step\":")
        else { return nil }
        return Int(answer[r.upperBound...].prefix { $0.isNumber })
    }

    static func id(_ answer: String) -> String? {
        guard let r = answer.range(of: "\"id\":\"") else { return nil }
        return String(answer[r.upperBound...].prefix { $0 != "\"" })
    }

    @Test("five rounds: intents from four threads, SIGKILL at a random moment, a restart; every acknowledged step is there")
    func killUnderLoad() throws {
        let flows = scratchDirectory()
        try Self.loop.write(toFile: flows + "/loop.json", atomically: true, encoding: .utf8)
        let store = scratchDirectory() + "/store.sqlite"
        let args = ["--insecure-dev", "--rate", "1000000", "--rate-per-address", "1000000"]
        var server = try ServeAccessTests.Running(args, store: store, flows: flows)
        // A conversation shows at most RocketLimits.shownBlocks blocks: a thread stops tapping one
        // short of that (it reads it instead, which still finds the server gone), and each round
        // taps conversations of its own, so no machine is fast enough to end one.
        let lastTap = RocketLimits.shownBlocks - 10
        var checked: [(id: String, visitor: String, step: Int)] = []
        var g = SystemRandomNumberGenerator()
        for round in 0..<5 {
            var ids: [String] = []
            for k in 0..<8 {
                let visitor = "r\(round)v\(k)"
                let answer = server.exchange("POST", "/v1/conversations", body: #"{"flow": "loop", "visitor": "\#(visitor)", "reducedMotion": true}"#)
                ids.append(try #require(Self.id(answer), "\(answer.prefix(200))"))
            }
            let acknowledged = Mutex<[Int]>(Array(repeating: 0, count: 8))
            let conversations = ids
            let port = server.port
            let threads = 4
            let done = Atomic<Int>(0)
            for t in 0..<threads {
                let worker = Thread {
                    // Each thread taps two conversations until the server is gone.
                    var failures = 0
                    while failures < 3 {
                        for k in [t, t + threads] {
                            let visitor = "r\(round)v\(k)"
                            let tapping = acknowledged.withLock { $0[k] } < lastTap
                            let request =
                                tapping
                                ? post("/v1/conversations/\(conversations[k])/intents", #"{"intent": "tap"}"#, visitor: visitor)
                                : "GET /v1/conversations/\(conversations[k]) HTTP/1.1\r\nHost: 127.0.0.1\r\nRocket-Visitor: \(visitor)\r\nConnection: close\r\n\r\n"
                            let answer = RawClient.exchange(port: port, request)
                            if let step = Self.step(answer) {
                                if tapping { acknowledged.withLock { $0[k] = max($0[k], step) } }
                                failures = 0
                            } else {
                                failures += 1
                            }
                        }
                    }
                    done.add(1, ordering: .relaxed)
                }
                worker.start()
            }
            usleep(UInt32.random(in: 100_000...400_000, using: &g))
            kill(server.process.processIdentifier, SIGKILL)
            server.process.waitUntilExit()
            for _ in 0..<1_000 where done.load(ordering: .relaxed) < threads { usleep(10_000) }
            #expect(done.load(ordering: .relaxed) == threads)
            server = try ServeAccessTests.Running(args, store: store, flows: flows)
            let expected = acknowledged.withLock { $0 }
            #expect(expected.reduce(0, +) > 0, "round \(round): the load acknowledged intents")
            for k in 0..<8 { checked.append((ids[k], "r\(round)v\(k)", expected[k])) }
            // Every round's conversations so far, after every restart.
            for c in checked {
                let answer = server.exchange("GET", "/v1/conversations/\(c.id)", headers: ["Rocket-Visitor": c.visitor])
                let step = Self.step(answer) ?? -1
                #expect(step >= c.step, "round \(round), conversation of \(c.visitor): step \(step) after the restart, \(c.step) acknowledged")
            }
        }
        let status = server.stop()
        #expect(status == 0, "the server's log: \(server.stderr.suffix(3000))")
    }
}
