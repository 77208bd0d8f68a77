import Foundation
import RocketConversation
import RocketCore
import RocketFlow
import RocketPostgres
import RocketScenariosPostgres
import RocketScenariosSQLite
import RocketTestSupport
import Synchronization
import Testing

@testable import RocketServer

#if canImport(Glibc)
    import Glibc
#endif

/// Acknowledged means durable: an answer 200/201 is sent once the store holds its change, and a
/// store that cannot be written is said, never hidden.
@Suite("Nothing acknowledged is lost")
struct DurabilityTests {
    static let loop = #"{"version": 1, "start": "tick", "blocks": [{"id": "tick", "type": "text", "text": "Tick", "next": "tick"}]}"#

    /// A service over the loop flow (every tap is accepted) in a store at `path`.
    func service(_ path: String, flows: String) throws -> ConversationService {
        var c = ServerConfiguration()
        c.timing = .reducedMotion
        c.addressRequestsPerSecond = 1e9
        c.addressRequestBurst = 1e9
        c.requestsPerSecond = 1e9
        c.requestBurst = 1e9
        c.perAddress = 1 << 30
        let flowLibrary = FlowLibrary(directory: flows, builtIn: [:])
        if PostgresURL.names(path) {
            let postgres = try PostgresScenarioStore(url: path)
            return ConversationService(
                flows: flowLibrary, archive: PostgresConversationArchive(beside: postgres), scenarios: postgres, clock: WallClock(), configuration: c,
                access: .random(insecureDev: true))
        }
        let sqlite = try SQLiteScenarioStore(path: path, pageSize: ConversationArchive.pageSize)
        return ConversationService(
            flows: flowLibrary, archive: try ConversationArchive(beside: sqlite), scenarios: sqlite, clock: WallClock(), configuration: c,
            access: .random(insecureDev: true))
    }

    func flowsFolder() throws -> String {
        let dir = scratchDirectory()
        try Self.loop.write(toFile: dir + "/loop.json", atomically: true, encoding: .utf8)
        return dir
    }

    func status(_ answer: String) -> Int { Int(answer.split(separator: " ").dropFirst().first ?? "") ?? 0 }

    func tap(_ port: Int, _ id: String, visitor: String) -> String {
        RawClient.exchange(port: port, post("/v1/conversations/\(id)/intents", #"{"intent": "tap"}"#, visitor: visitor))
    }

    @Test("a full store: writes answer 503 (never 200), /readyz fails, the batch is kept and written once there is room; nothing acknowledged is lost")
    func fullStore() throws {
        let flows = try flowsFolder()
        let path = scratchDirectory() + "/store.sqlite"
        var acknowledged: [String: Int] = [:]  // conversation → the step its last 200 reported
        var ids: [String] = []
        do {
            let svc = try service(path, flows: flows)
            let server = HTTPServer(service: svc)
            let port = try server.start(host: "127.0.0.1", port: 0)
            defer { server.stop() }
            for k in 0..<4 {
                let started = RawClient.exchange(port: port, post("/v1/conversations", #"{"flow": "loop", "visitor": "v\#(k)"}"#))
                #expect(status(started) == 201)
                ids.append(try #require(bodyJSON(started)?["conversation"]?["id"]?.string))
            }
            #expect(status(RawClient.exchange(port: port, "GET /readyz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")) == 200)
            // The disk fills: the store may not grow past its size now.
            try #require(svc.archive as? ConversationArchive).limitPages(1)
            var refused = 0
            for round in 0..<60 {
                for (k, id) in ids.enumerated() {
                    let answer = tap(port, id, visitor: "v\(k)")
                    switch status(answer) {
                    case 200: acknowledged[id] = Int(bodyJSON(answer)?["conversation"]?["step"]?.number ?? -1)
                    case 503: refused += 1
                    default: Issue.record("round \(round): \(answer.prefix(200))")
                    }
                }
                if refused > 8 { break }
            }
            #expect(refused > 0, "the writes were refused")
            let ready = RawClient.exchange(port: port, "GET /readyz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            #expect(status(ready) == 503)
            // Room again: the kept batch is written at the next try (every second), and the
            // server is ready again.
            try #require(svc.archive as? ConversationArchive).limitPages(nil)
            var readyAgain = false
            for _ in 0..<300 where !readyAgain {
                readyAgain = status(RawClient.exchange(port: port, "GET /readyz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")) == 200
                if !readyAgain { usleep(10_000) }
            }
            #expect(readyAgain)
            #expect(status(tap(port, ids[0], visitor: "v0")) == 200)
            acknowledged[ids[0]] = (acknowledged[ids[0]] ?? 0) + 1
        }
        // A restart reads the store: every acknowledged step is there.
        let again = try service(path, flows: flows)
        for (k, id) in ids.enumerated() {
            let r = again.handle(HTTPRequest(method: "GET", path: "/v1/conversations/\(id)", headers: ["Rocket-Visitor": "v\(k)"]))
            let step = Int(r.json?["conversation"]?["step"]?.number ?? -1)
            #expect(step >= acknowledged[id] ?? 0, "conversation \(k): step \(step), acknowledged \(acknowledged[id] ?? 0)")
        }
    }

    @Test("an answer is sent only after its change is committed: the store holds every step a 200 reported", arguments: ServerStoreKind.allCases)
    func answerAfterCommit(kind: ServerStoreKind) throws {
        let flows = try flowsFolder()
        let path = kind == .postgres ? try TestPostgres.freshDatabase() : scratchDirectory() + "/store.sqlite"
        let svc = try service(path, flows: flows)
        let server = HTTPServer(service: svc)
        let port = try server.start(host: "127.0.0.1", port: 0)
        defer { server.stop() }
        let started = RawClient.exchange(port: port, post("/v1/conversations", #"{"flow": "loop", "visitor": "ada"}"#))
        let id = try #require(bodyJSON(started)?["conversation"]?["id"]?.string)
        let reader: any ConversationStore =
            kind == .postgres
            ? PostgresConversationArchive(beside: try PostgresScenarioStore(url: path)) : try ConversationArchive(beside: SQLiteScenarioStore(path: path))
        for _ in 0..<20 {
            let answer = tap(port, id, visitor: "ada")
            #expect(status(answer) == 200)
            let version = Int(bodyJSON(answer)?["conversation"]?["version"]?.number ?? -1)
            // Read through another connection, as a restarted process would: the snapshot and
            // the steps saved after it.
            let stored = try #require(try reader.load(id))
            let saved = stored.steps.last?.version ?? stored.row.version
            #expect(saved >= version, "the store has version \(saved) when the answer said \(version)")
        }
    }
}
