import Foundation
import RocketConversation
import RocketCore
import RocketFlow
import RocketScenariosPostgres
import RocketTestSupport
import Synchronization
import Testing

@testable import RocketServer

/// Several `rocket serve` on one PostgreSQL store: any of them serves any conversation, and a
/// change is applied once, or refused with 409 `stale-step`; never lost, never applied twice.
@Suite("Servers sharing a PostgreSQL store")
struct SharedStoreTests {
    typealias Server = (server: HTTPServer, port: Int, service: ConversationService)

    /// A server over the loop flow (every tap is accepted) on the PostgreSQL store at `url`.
    func server(_ url: String, flows: String) throws -> Server {
        let service = try DurabilityTests().service(url, flows: flows)
        let server = HTTPServer(service: service)
        return (server, try server.start(host: "127.0.0.1", port: 0), service)
    }

    /// Two servers on a new database, and a conversation of the loop flow started through the
    /// first (the caller stops the servers).
    func twoServers() throws -> (url: String, flows: String, a: Server, b: Server, id: String) {
        let url = try TestPostgres.freshDatabase(), flows = try flowsFolder()
        let a = try server(url, flows: flows), b = try server(url, flows: flows)
        let started = RawClient.exchange(port: a.port, post("/v1/conversations", #"{"flow": "loop", "visitor": "ada"}"#))
        #expect(status(started) == 201)
        let id = bodyJSON(started)?["conversation"]?["id"]?.string ?? ""
        return (url, flows, a, b, id)
    }

    func flowsFolder() throws -> String {
        let dir = scratchDirectory()
        try DurabilityTests.loop.write(toFile: dir + "/loop.json", atomically: true, encoding: .utf8)
        return dir
    }

    func status(_ answer: String) -> Int { Int(answer.split(separator: " ").dropFirst().first ?? "") ?? 0 }

    func tap(_ port: Int, _ id: String) -> String {
        RawClient.exchange(port: port, post("/v1/conversations/\(id)/intents", #"{"intent": "tap"}"#, visitor: "ada"))
    }

    func step(_ answer: String) -> Int { Int(bodyJSON(answer)?["conversation"]?["step"]?.number ?? -1) }

    @Test("Started on A, continued on B, then on A again: each change applied once, in order")
    func startOnAContinueOnB() throws {
        let (_, _, a, b, id) = try twoServers()
        defer {
            a.server.stop()
            b.server.stop()
        }
        let onB = tap(b.port, id)
        #expect(status(onB) == 200 && step(onB) == 1)
        // A held the conversation as it started it. B's save was told to A, which dropped its
        // copy; had A's tap come first, it would be refused (409) and the next one read the store.
        // Either way the change is applied once.
        var again = tap(a.port, id)
        if status(again) == 409 {
            #expect(again.contains("stale-step"))
            again = tap(a.port, id)
        }
        #expect(status(again) == 200 && step(again) == 2, "\(again.prefix(300))")
        // The store holds what the 200s said, and each change's records once.
        let stored = try #require(try a.service.archive?.load(id))
        #expect((stored.steps.last?.version ?? stored.row.version) == stored.row.storedVersion)
        let records = try #require(try b.service.archive?.events(id))
        #expect(Set(records).count == records.count)
    }

    @Test("Taps on one conversation through two servers at once: every 200 is applied once, the rest are 409, and the store's step counts the 200s")
    func concurrentIntents() throws {
        let (url, flows, a, b, id) = try twoServers()
        defer {
            a.server.stop()
            b.server.stop()
        }
        let ok = Atomic<Int>(0), conflicts = Atomic<Int>(0), other = Mutex<[String]>([])
        let ports = [a.port, b.port]
        DispatchQueue.concurrentPerform(iterations: 8) { worker in
            for _ in 0..<15 {
                let answer = tap(ports[worker % 2], id)
                switch status(answer) {
                case 200: ok.add(1, ordering: .relaxed)
                case 409: conflicts.add(1, ordering: .relaxed)
                default: other.withLock { $0.append(String(answer.prefix(200))) }
                }
            }
        }
        #expect(other.withLock { $0 }.isEmpty, "\(other.withLock { $0 })")
        #expect(ok.load(ordering: .relaxed) > 0)
        // A fresh server reads the store: its step is exactly the number of taps acknowledged.
        let c = try server(url, flows: flows)
        defer { c.server.stop() }
        let read = RawClient.exchange(port: c.port, "GET /v1/conversations/\(id) HTTP/1.1\r\nHost: x\r\nRocket-Visitor: ada\r\nConnection: close\r\n\r\n")
        #expect(step(read) == ok.load(ordering: .relaxed), "\(ok.load(ordering: .relaxed)) acknowledged, \(conflicts.load(ordering: .relaxed)) refused")
    }

    @Test("A page's event stream on A gets the changes made through B (LISTEN/NOTIFY: ids only, the state read from the store)")
    func streamFollowsOtherServer() throws {
        let (_, _, a, b, id) = try twoServers()
        defer {
            a.server.stop()
            b.server.stop()
        }
        let stream = try #require(RawClient(port: a.port))
        stream.send("GET /v1/conversations/\(id)/events HTTP/1.1\r\nHost: 127.0.0.1\r\nRocket-Visitor: ada\r\nAccept: text/event-stream\r\n\r\n")
        #expect(stream.read { $0.contains("event: state") }.hasPrefix("HTTP/1.1 200"))
        for k in 1...3 {
            let onB = tap(b.port, id)
            #expect(status(onB) == 200 && step(onB) == k)
            // The version the 200 reported arrives on A's stream as the frame's id.
            let version = Int(bodyJSON(onB)?["conversation"]?["version"]?.number ?? -1)
            #expect(stream.read { $0.contains("id: \(version)\n") }.contains("id: \(version)\n"), "tap \(k)")
        }
        // A's copy caught up with B's steps when they were told (no snapshot read again): it is
        // still in memory, at B's version, and a tap on A goes on from there.
        let held = a.service.state.withLock { $0.slots[id] }
        #expect(held?.withEntry { $0.step } == 3)
        // Past 16 steps B writes a whole snapshot, which steps cannot follow: A reads it back
        // when told, off the requests' path, and still holds the conversation as B left it.
        var last = 0
        for _ in 0..<20 {
            let onB = tap(b.port, id)
            #expect(status(onB) == 200)
            last = Int(bodyJSON(onB)?["conversation"]?["version"]?.number ?? -1)
        }
        #expect(stream.read { $0.contains("id: \(last)\n") }.contains("id: \(last)\n"))
        #expect(a.service.state.withLock { $0.slots[id] }?.withEntry { $0.step } == 23)
        let onA = tap(a.port, id)
        #expect(status(onA) == 200 && step(onA) == 24)
    }

    static let timed =
        #"{"version": 1, "start": "a", "blocks": [{"id": "a", "type": "text", "text": "A", "showNextAfter": 5, "next": "b"}, {"id": "b", "type": "text", "text": "B"}]}"#

    /// A service (no HTTP) over the timed flow on the store at `url`, on `clock`.
    func service(_ url: String, flows: String, clock: ManualClock) throws -> ConversationService {
        var c = ServerConfiguration()
        c.timing = .reducedMotion
        let store = try PostgresScenarioStore(url: url)
        return ConversationService(
            flows: FlowLibrary(directory: flows, builtIn: [:]), archive: PostgresConversationArchive(beside: store), scenarios: store, clock: clock,
            configuration: c, access: .random(insecureDev: true))
    }

    @Test("A timer of a conversation whose server stopped runs on another, once: claimed when overdue, and the stopped server's late run is refused")
    func timerTakeover() throws {
        let url = try TestPostgres.freshDatabase(), flows = scratchDirectory()
        try Self.timed.write(toFile: flows + "/timed.json", atomically: true, encoding: .utf8)
        let t0 = 1_800_000_000.0
        let clockA = ManualClock(now: t0), clockB = ManualClock(now: t0)
        let a = try service(url, flows: flows, clock: clockA), b = try service(url, flows: flows, clock: clockB)
        let started = a.handle(
            HTTPRequest(
                method: "POST", path: "/v1/conversations", headers: ["Rocket-Visitor": "ada", "Content-Type": "application/json"],
                body: Array(#"{"flow": "timed"}"#.utf8)))
        #expect(started.status == 201)
        let id = try #require(started.json?["conversation"]?["id"]?.string)
        a.advanceDue()
        #expect(a.flush().refused.isEmpty)
        let before = try #require(try a.archive?.load(id))
        let deadline = try #require(before.row.deadline)
        #expect(deadline == t0 + 5)
        // Not yet overdue (by more than the grace): B leaves it to A.
        clockB.set(t0 + 5.2)
        #expect(!b.takeOverDue())
        // A stopped. B claims it once overdue, runs its timer and saves.
        clockB.set(t0 + 6)
        #expect(b.takeOverDue())
        #expect(!b.takeOverDue(), "claimed conversations are not claimed again meanwhile")
        b.advanceDue()
        #expect(b.flush().refused.isEmpty)
        let after = try #require(try b.archive?.load(id))
        #expect(after.row.storedVersion > before.row.storedVersion)
        // A comes back late with its old copy: its run of the same timer is refused.
        clockA.set(t0 + 6)
        a.advanceDue()
        #expect(a.flush().refused == [id])
        #expect(try #require(try a.archive?.load(id)).row.storedVersion == after.row.storedVersion)
        let read = b.handle(HTTPRequest(method: "GET", path: "/v1/conversations/\(id)", headers: ["Rocket-Visitor": "ada"]))
        #expect(read.body.count > 0 && String(decoding: read.body, as: UTF8.self).contains(#""text":"B""#))
    }

    @Test("/readyz asks a shared store at most once a second: requests in between get that answer with no work for the database")
    func readinessKept() throws {
        let h = try Harness(path: try TestPostgres.freshDatabase())
        func ask() -> HTTPResponse { h.service.handleDeferring(HTTPRequest(method: "GET", path: "/readyz")) }
        let first = ask()
        #expect(first.deferred != nil, "the first asks the database")
        #expect(first.resolved().status == 200)
        let between = (0..<100).map { _ in ask() }
        #expect(between.allSatisfy { $0.deferred == nil && $0.status == 200 })
        h.clock.advance(by: 1.5)
        let later = ask()
        #expect(later.deferred != nil, "a second later it asks again")
        #expect(later.resolved().status == 200)
    }

    func ready(_ port: Int) -> Int {
        status(RawClient.exchange(port: port, "GET /readyz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"))
    }

    @Test(
        "The database goes away mid-run: /readyz and the writes answer 503 with Retry-After (never 200, never a crash); it comes back and nothing acknowledged is lost"
    )
    func databaseRestart() throws {
        let url = try TestPostgres.ownCluster(), flows = try flowsFolder()
        var acknowledged = 0
        let id: String
        do {
            let a = try server(url, flows: flows)
            defer { a.server.stop() }
            let started = RawClient.exchange(port: a.port, post("/v1/conversations", #"{"flow": "loop", "visitor": "ada"}"#))
            id = try #require(bodyJSON(started)?["conversation"]?["id"]?.string)
            for _ in 0..<5 where status(tap(a.port, id)) == 200 { acknowledged += 1 }
            #expect(acknowledged == 5)
            #expect(ready(a.port) == 200)
            TestPostgres.halt(url)
            let refused = tap(a.port, id)
            #expect(status(refused) == 503 && refused.contains("Retry-After"), "\(refused.prefix(300))")
            #expect(ready(a.port) == 503)
            TestPostgres.resume(url)
            // The kept change is written at the writer's next try (every second): ready again.
            var back = false
            for _ in 0..<200 where !back {
                back = ready(a.port) == 200
                if !back { usleep(25_000) }
            }
            #expect(back)
            for _ in 0..<3 {
                let answer = tap(a.port, id)
                #expect(status(answer) == 200, "\(answer.prefix(300))")
                if status(answer) == 200 { acknowledged = step(answer) }
            }
            // A's stream hears of other servers' changes again: its LISTEN connection came back
            // (and re-read what it may have missed).
            let stream = try #require(RawClient(port: a.port))
            stream.send("GET /v1/conversations/\(id)/events HTTP/1.1\r\nHost: 127.0.0.1\r\nRocket-Visitor: ada\r\nAccept: text/event-stream\r\n\r\n")
            #expect(stream.read { $0.contains("event: state") }.hasPrefix("HTTP/1.1 200"))
            let other = try server(url, flows: flows)
            defer { other.server.stop() }
            var heard = false
            // The listener reconnects within a second of the database's return; until it has, a
            // change made elsewhere is not heard, so a few are made, each looked for on the stream.
            for _ in 0..<20 where !heard {
                let answer = tap(other.port, id)
                guard status(answer) == 200 else { continue }
                acknowledged = step(answer)
                let version = Int(bodyJSON(answer)?["conversation"]?["version"]?.number ?? -1)
                heard = stream.read(timeout: 0.5) { $0.contains("id: \(version)\n") }.contains("id: \(version)\n")
            }
            #expect(heard)
        }
        // Another server reads what the store holds: every acknowledged change.
        let b = try server(url, flows: flows)
        defer { b.server.stop() }
        let read = RawClient.exchange(port: b.port, "GET /v1/conversations/\(id) HTTP/1.1\r\nHost: x\r\nRocket-Visitor: ada\r\nConnection: close\r\n\r\n")
        #expect(step(read) >= acknowledged && acknowledged >= 8, "stored \(step(read)), acknowledged \(acknowledged)")
    }

    @Test("An alert made on A is read, changed and answered through B; A's stream follows; a second answer is refused")
    func alertsAcrossServers() throws {
        let url = try TestPostgres.freshDatabase(), flows = try flowsFolder()
        let a = try server(url, flows: flows), b = try server(url, flows: flows)
        defer {
            a.server.stop()
            b.server.stop()
        }
        let made = RawClient.exchange(
            port: a.port, post("/v1/alerts", #"{"title": "Save?", "actions": [{"title": "Save"}, {"title": "Cancel", "style": "cancel"}]}"#, visitor: "ada"))
        #expect(status(made) == 201, "\(made.prefix(300))")
        let id = try #require(bodyJSON(made)?["alert"]?["id"]?.string)
        let stream = try #require(RawClient(port: a.port))
        stream.send("GET /v1/alerts/\(id)/events HTTP/1.1\r\nHost: 127.0.0.1\r\nRocket-Visitor: ada\r\nAccept: text/event-stream\r\n\r\n")
        #expect(stream.read { $0.contains("event: state") }.hasPrefix("HTTP/1.1 200"))
        let read = RawClient.exchange(port: b.port, "GET /v1/alerts/\(id) HTTP/1.1\r\nHost: x\r\nRocket-Visitor: ada\r\nConnection: close\r\n\r\n")
        #expect(status(read) == 200 && read.contains("Save?"))
        // Someone else's alert stays unknown on every server.
        let other = RawClient.exchange(port: b.port, "GET /v1/alerts/\(id) HTTP/1.1\r\nHost: x\r\nRocket-Visitor: eve\r\nConnection: close\r\n\r\n")
        #expect(status(other) == 404)
        let changed = RawClient.exchange(port: b.port, post("/v1/alerts/\(id)/mutations", #"{"setTitle": "Save changes?"}"#, visitor: "ada"))
        #expect(status(changed) == 200)
        #expect(stream.read { $0.contains("Save changes?") }.contains("Save changes?"))
        let chosen = RawClient.exchange(port: b.port, post("/v1/alerts/\(id)/select", #"{"index": 0}"#, visitor: "ada"))
        #expect(status(chosen) == 200)
        let again = RawClient.exchange(port: a.port, post("/v1/alerts/\(id)/select", #"{"index": 1}"#, visitor: "ada"))
        #expect(status(again) == 409 && again.contains("alert-closed"), "\(again.prefix(300))")
    }

    @Test("3 servers × 200 concurrent starts of a flow allowed 5 executions → exactly 5 conversations")
    func capRaceAcrossServers() throws {
        let url = try TestPostgres.freshDatabase(), flows = try flowsFolder()
        try #"{"version": 1, "scenario": "promo", "when": {"maxExecutionsPermitted": 5}, "blocks": [{"id": "hi", "type": "text", "text": "Hello"}]}"#
            .write(toFile: flows + "/promo.json", atomically: true, encoding: .utf8)
        let servers = try (0..<3).map { _ in try server(url, flows: flows) }
        defer { for s in servers { s.server.stop() } }
        let started = Atomic<Int>(0), notNow = Atomic<Int>(0), other = Mutex<[String]>([])
        let ports = servers.map(\.port)
        // Threads of their own, released together (dispatch would run two at a time on two cores).
        let gate = DispatchSemaphore(value: 0), done = DispatchSemaphore(value: 0)
        for worker in 0..<30 {
            Thread {
                gate.wait()
                for _ in 0..<20 {
                    let answer = RawClient.exchange(port: ports[worker % 3], post("/v1/conversations", #"{"flow": "promo", "visitor": "ada"}"#))
                    switch status(answer) {
                    case 201: started.add(1, ordering: .relaxed)
                    case 200 where answer.contains("notNow"): notNow.add(1, ordering: .relaxed)
                    default: other.withLock { $0.append(String(answer.prefix(200))) }
                    }
                }
                done.signal()
            }.start()
        }
        for _ in 0..<30 { gate.signal() }
        for _ in 0..<30 { done.wait() }
        #expect(other.withLock { $0 }.isEmpty, "\(other.withLock { $0 }.prefix(3))")
        #expect(started.load(ordering: .relaxed) == 5)
        #expect(notNow.load(ordering: .relaxed) == 595)
    }

    @Test(
        "A visitor forgotten through A is gone from B too: B's copy in memory is dropped (told through NOTIFY), its event streams there (a conversation's, an alert's) end, its reads are 404"
    )
    func forgetAcrossServers() throws {
        let (_, _, a, b, id) = try twoServers()
        defer {
            a.server.stop()
            b.server.stop()
        }
        // B holds the conversation in memory (it served a tap), and a page follows it there.
        #expect(status(tap(b.port, id)) == 200)
        #expect(b.service.count == 1)
        let stream = try #require(RawClient(port: b.port))
        stream.send("GET /v1/conversations/\(id)/events HTTP/1.1\r\nHost: 127.0.0.1\r\nRocket-Visitor: ada\r\nAccept: text/event-stream\r\n\r\n")
        #expect(stream.read { $0.contains("event: state") }.hasPrefix("HTTP/1.1 200"))
        // An alert of hers, made on A, that a page follows on B.
        let made = RawClient.exchange(port: a.port, post("/v1/alerts", #"{"title": "Save?", "actions": [{"title": "Save"}]}"#, visitor: "ada"))
        let alert = try #require(bodyJSON(made)?["alert"]?["id"]?.string, "\(made.prefix(300))")
        let alertStream = try #require(RawClient(port: b.port))
        alertStream.send("GET /v1/alerts/\(alert)/events HTTP/1.1\r\nHost: 127.0.0.1\r\nRocket-Visitor: ada\r\nAccept: text/event-stream\r\n\r\n")
        #expect(alertStream.read { $0.contains("event: state") }.hasPrefix("HTTP/1.1 200"))
        let forgotten = RawClient.exchange(port: a.port, "DELETE /v1/visitors/ada HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        #expect(status(forgotten) == 200, "\(forgotten)")
        // B hears of it and lets its copy go (the notification is asynchronous: waited for).
        var gone = false
        for _ in 0..<500 where !gone {
            gone = b.service.count == 0
            if !gone { usleep(10_000) }
        }
        #expect(gone, "B still holds the forgotten conversation")
        // B's stream ends too: the page learns at once that the conversation cannot go on.
        stream.read(timeout: 10)
        #expect(stream.closed, "B's stream of the forgotten conversation is still open")
        alertStream.read(timeout: 10)
        #expect(alertStream.closed, "B's stream of the forgotten visitor's alert is still open")
        let read = RawClient.exchange(port: b.port, "GET /v1/conversations/\(id) HTTP/1.1\r\nHost: x\r\nRocket-Visitor: ada\r\nConnection: close\r\n\r\n")
        #expect(status(read) == 404, "\(read.prefix(300))")
    }
}
