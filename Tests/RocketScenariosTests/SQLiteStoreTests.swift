import Foundation
import Synchronization
import Testing
@testable import RocketScenarios
@testable import RocketScenarioEngine
@testable import RocketScenariosSQLite
import RocketJSON
import RocketTestSupport
#if canImport(Glibc)
    import Glibc
#endif

func temporaryPath(_ suffix: String = ".sqlite") -> String {
    newScratchPath("store", suffix: suffix)
}

/// The stress helper, built by `swift test` beside the tests.
let stressPath: String = {
    let candidates = [
        Bundle.main.bundleURL.appendingPathComponent("ScenarioStress").path,
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent(".build/debug/ScenarioStress").path,
    ]
    return candidates.first { FileManager.default.isExecutableFile(atPath: $0) } ?? candidates[1]
}()

@Suite("SQLite store: errors, migrations, processes, crashes")
struct SQLiteStoreTests {
    @Test("What a store exports, an empty store imports, past 1,000 executions too (the budget log keeps the newest 1,000)")
    func exportPast1000() throws {
        let store = try SQLiteScenarioStore(path: temporaryPath(".sqlite"))
        for k in 0..<1_150 {
            #expect(try store.tryExecute("s\(k % 3)", at: Double(1_000 + k), rules: ScenarioRules()) { _, _ in true })
        }
        let exported = try store.snapshot()
        #expect(exported.executions.count == ScenarioSnapshot.executionLimit)
        #expect(exported.executions.first?.at == 1_150 && exported.executions.last?.at == 2_149)
        #expect(exported.scenarios["s0"]?.executionsCount == 384)
        let other = try SQLiteScenarioStore(path: temporaryPath(".sqlite"))
        try other.restore(exported)
        #expect(try other.snapshot() == exported)
    }

    @Test("Reading a store while another process writes it sees committed data, never fails or goes backwards")
    func readWhileWriting() throws {
        let path = temporaryPath(".sqlite")
        _ = try SQLiteScenarioStore(path: path)
        let writer = Process()
        writer.executableURL = URL(fileURLWithPath: stressPath)
        writer.arguments = [path, "busy", "3000"]
        writer.standardOutput = FileHandle.nullDevice
        try writer.run()
        var last = -1
        var reads = 0
        while writer.isRunning || reads < 5 {
            let reader = try SQLiteScenarioStore(readingOnly: path)
            let events = try reader.snapshot().scenarios["busy"]?.eventsCount ?? 0
            #expect(events >= last, "a read went backwards: \(events) after \(last)")
            last = events
            reads += 1
            if reads > 10_000 { break }
        }
        writer.waitUntilExit()
        #expect(writer.terminationStatus == 0)
        #expect(try SQLiteScenarioStore(readingOnly: path).snapshot().scenarios["busy"]?.eventsCount == 3000)
    }

    @Test("Two openers of one new file at the same moment both get the store (SQLite refuses one's switch to WAL at once, without waiting)")
    func simultaneousCreation() throws {
        let failures = Mutex<[String]>([])
        for _ in 0..<150 {
            let path = temporaryPath()
            DispatchQueue.concurrentPerform(iterations: 2) { _ in
                do throws(ScenarioStoreError) {
                    let store = try SQLiteScenarioStore(path: path)
                    try store.triggerEvent("launch", at: 1)
                } catch {
                    failures.withLock { $0.append(error.message) }
                }
            }
            #expect(try SQLiteScenarioStore(path: path).stats("launch").eventsCount == 2)
        }
        #expect(failures.withLock { $0 }.isEmpty, "\(failures.withLock { $0 }.prefix(3))")
    }

    @Test("A foreign file, a foreign SQLite database and a newer schema are clear errors; the file is untouched")
    func refusals() throws {
        let text = temporaryPath(".txt")
        try Data("hello, not a database".utf8).write(to: URL(fileURLWithPath: text))
        #expect { try SQLiteScenarioStore(path: text) } throws: { ($0 as? ScenarioStoreError)?.kind == .foreign }
        #expect(try String(contentsOfFile: text, encoding: .utf8) == "hello, not a database")

        let other = temporaryPath()
        // Another program's SQLite database: a table, no rocket application id.
        try SQLiteScenarioStore.create(path: other, schemaVersion: 0)
        try rawSQL(other, "CREATE TABLE notes (x TEXT); PRAGMA application_id = 42;")
        #expect { try SQLiteScenarioStore(path: other) } throws: { ($0 as? ScenarioStoreError)?.kind == .foreign }

        let newer = temporaryPath()
        try SQLiteScenarioStore.create(path: newer, schemaVersion: 2)
        try rawSQL(newer, "PRAGMA user_version = 99;")
        #expect { try SQLiteScenarioStore(path: newer) } throws: {
            let e = $0 as? ScenarioStoreError
            return e?.kind == .newerSchema && e?.message.contains("schema 99") == true
        }
    }

    @Test("A new file gets the page size asked for (1 KiB by default); a file made before keeps its own")
    func pageSizes() throws {
        let small = temporaryPath(), large = temporaryPath()
        _ = try SQLiteScenarioStore(path: small)
        _ = try SQLiteScenarioStore(path: large, pageSize: 4096)
        #expect(try rawInt(small, "PRAGMA page_size") == SQLiteScenarioStore.statisticsPageSize)
        #expect(try rawInt(large, "PRAGMA page_size") == 4096)
        let reopened = try SQLiteScenarioStore(path: small, pageSize: 8192)
        try reopened.triggerEvent("x", at: 1)
        #expect(try rawInt(small, "PRAGMA page_size") == 1024)
        #expect(try reopened.stats("x").eventsCount == 1)
    }

    @Test("A corrupt database is an error, never a crash")
    func corrupt() throws {
        let path = temporaryPath()
        do {
            let store = try SQLiteScenarioStore(path: path)
            for k in 0..<200 { try store.triggerEvent("x\(k % 7)", at: Double(k)) }
        }  // closing checkpoints the WAL into the file
        // Scribble over the second page of the file.
        let fd = open(path, O_WRONLY)
        var junk = [UInt8](repeating: 0xA5, count: 4096)
        _ = pwrite(fd, &junk, junk.count, 4096)
        close(fd)
        do {
            let again = try SQLiteScenarioStore(path: path)
            _ = try again.snapshot()
            Issue.record("a scribbled database read without error")
        } catch {
            #expect([.corrupt, .foreign, .io].contains(error.kind), "\(error)")
        }
    }

    @Test("A read-only location is a clear error")
    func readOnly() throws {
        let dir = temporaryPath("-dir")
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        chmod(dir, 0o555)
        defer { chmod(dir, 0o755) }
        if getuid() == 0 {
            // root ignores permissions; use a path under /proc instead, which nobody may create files in.
            #expect { try SQLiteScenarioStore(path: "/proc/rocket-\(UUID().uuidString).sqlite") } throws: { ($0 as? ScenarioStoreError)?.kind == .readOnly }
        } else {
            #expect { try SQLiteScenarioStore(path: dir + "/s.sqlite") } throws: { ($0 as? ScenarioStoreError)?.kind == .readOnly }
        }
    }

    @Test("A full disk is a clear error and loses nothing already stored")
    func full() throws {
        let path = temporaryPath()
        let store = try SQLiteScenarioStore(path: path)
        try store.triggerEvent("keep", at: 1)
        try store.execForTesting("PRAGMA max_page_count = \(try store.pageCountForTesting())")
        var failure: ScenarioStoreError?
        for k in 0..<5000 {
            do { try store.triggerEvent("fill-\(k)", at: Double(k)) } catch { failure = error; break }
        }
        #expect(failure?.kind == .full)
        #expect(try store.stats("keep").eventsCount == 1)
    }

    @Test("Migration from schema 2 keeps statistics, event times and executions, and new events follow the old ones")
    func migrationFromTwo() throws {
        let path = temporaryPath()
        try SQLiteScenarioStore.create(path: path, schemaVersion: 2)
        try rawSQL(
            path,
            """
            INSERT INTO scenarios VALUES ('a', 2, 1, 10, 20, 30);
            INSERT INTO scenarios VALUES ('b', 1, 0, 15, 15, NULL);
            INSERT INTO events (scenario, at) VALUES ('a', 10), ('b', 15), ('a', 20);
            INSERT INTO executions (scenario, at) VALUES ('a', 30);
            """)
        let store = try SQLiteScenarioStore(path: path)
        #expect(try rawInt(path, "PRAGMA user_version") == SQLiteScenarioStore.schemaVersion)
        #expect(try store.stats("a").recentEvents == [10, 20])
        try store.triggerEvent("a", at: 40)
        try store.triggerEvent("b", at: 41)
        #expect(try store.stats("a").recentEvents == [10, 20, 40])
        #expect(try store.stats("b").recentEvents == [15, 41])
        #expect(try store.snapshot().executions == [ScenarioSnapshot.Execution(scenario: "a", at: 30)])
    }

    @Test("Migration from schema 1 keeps the statistics and adds windows and executions")
    func migration() throws {
        let path = temporaryPath()
        try SQLiteScenarioStore.create(path: path, schemaVersion: 1)
        try rawSQL(path, "INSERT INTO scenarios VALUES ('old', 7, 2, 10, 20, 30);")
        let store = try SQLiteScenarioStore(path: path)
        let stats = try store.stats("old")
        #expect(stats.eventsCount == 7 && stats.executionsCount == 2 && stats.firstEventDate == 10 && stats.lastExecutionDate == 30)
        try store.triggerEvent("old", at: 40)
        #expect(try store.stats("old").recentEvents == [40])
        #expect(try rawInt(path, "PRAGMA user_version") == SQLiteScenarioStore.schemaVersion)
    }

    @Test("Only the most recent 1000 event times are kept")
    func pruning() throws {
        let store = try SQLiteScenarioStore(path: temporaryPath())
        for k in 0..<1250 { try store.triggerEvent("p", at: Double(k)) }
        let stats = try store.stats("p")
        #expect(stats.eventsCount == 1250)
        #expect(stats.recentEvents.count >= 1000 && stats.recentEvents.count < 1100)
        #expect(stats.recentEvents.last == 1249)
    }

    @Test("4 processes × 2,500 triggers → exactly 10,000")
    func processes() throws {
        let path = temporaryPath()
        _ = try SQLiteScenarioStore(path: path)
        #expect(try triggeredByProcesses(store: path, processes: 4, each: 2_500))
        #expect(try SQLiteScenarioStore(path: path).stats("shared").eventsCount == 10_000)
    }

    @Test("Killed with SIGKILL after a random acknowledged trigger, 200 times: the store opens cleanly and holds every acknowledged event")
    func crashes() throws {
        let path = temporaryPath()
        try killedAfterAcknowledgements(store: path, rounds: 200, upTo: 40) { try SQLiteScenarioStore(path: path).stats("crash").eventsCount }
    }
}

/// Runs `processes` ScenarioStress processes at once on `store`, each triggering "shared" `each`
/// times; true when every one exited 0.
func triggeredByProcesses(store: String, processes: Int, each: Int) throws -> Bool {
    let children = (0..<processes).map { _ -> Process in
        let p = Process()
        p.executableURL = URL(fileURLWithPath: stressPath)
        p.arguments = [store, "shared", String(each)]
        p.standardOutput = FileHandle.nullDevice
        return p
    }
    for c in children { try c.run() }
    for c in children { c.waitUntilExit() }
    return children.allSatisfy { $0.terminationStatus == 0 }
}

/// Runs ScenarioStress on `store` `rounds` times, killing it with SIGKILL right after it says it
/// triggered a random number (1…`upTo`) of events: what the test sees depends on the child's
/// progress, never on how long the machine took to get there. After each round `count()` (the
/// store as a restarted process reads it) must hold every acknowledged trigger, and at most one
/// more (committed before its line was written).
func killedAfterAcknowledgements(store: String, rounds: Int, upTo: Int, count: () throws -> Int) throws {
    var acknowledgedTotal = 0
    for round in 0..<rounds {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: stressPath)
        p.arguments = [store, "crash", "100000"]
        let out = Pipe()
        p.standardOutput = out
        try p.run()
        let target = Int.random(in: 1...upTo)
        var seen = ""
        while !(seen.split(separator: "\n").last.flatMap { Int($0) }.map { $0 >= target } ?? false) {
            let chunk = out.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            seen += String(decoding: chunk, as: UTF8.self)
        }
        kill(p.processIdentifier, SIGKILL)
        p.waitUntilExit()
        let text = seen + String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let acknowledged = text.split(separator: "\n").last.flatMap { Int($0) } ?? 0
        #expect(acknowledged >= target, "round \(round): every kill lands after at least one acknowledged trigger")
        acknowledgedTotal += acknowledged
        let stored = try count()
        #expect(stored >= acknowledgedTotal && stored <= acknowledgedTotal + round + 1, "round \(round)")
        acknowledgedTotal = stored
    }
}

func rawSQL(_ path: String, _ sql: String) throws {
    try SQLiteScenarioStore.rawExec(path: path, sql)
}

func rawInt(_ path: String, _ sql: String) throws -> Int {
    try SQLiteScenarioStore.rawInt(path: path, sql)
}

@Suite("Scenario exports")
struct ExportFieldTests {
    @Test("The fields an import accepts are exactly those an export writes")
    func fieldsMatch() throws {
        let full = ScenarioSnapshot(
            scenarios: [
                "a": ScenarioStats(
                    eventsCount: 2, executionsCount: 1, firstEventDate: 10, lastEventDate: 20, lastExecutionDate: 30, recentEvents: [10, 20])
            ],
            executions: [.init(scenario: "a", at: 30)])
        let text = try #require(try? JSONCoding.encode(full).serialized(pretty: false))
        guard case .object(let top)? = try? JSONReader.parse(Array(text.utf8)).value else { Issue.record("not an object"); return }
        #expect(Set(top.map(\.key)) == Set(ScenarioSnapshot.exportFields.top))
        for m in top {
            if m.key == "scenarios", case .object(let scenarios) = m.value.value, case .object(let stats) = scenarios.first?.value.value {
                #expect(Set(stats.map(\.key)) == Set(ScenarioSnapshot.exportFields.scenario))
            }
            if m.key == "executions", case .array(let items) = m.value.value, case .object(let e) = items.first?.value {
                #expect(Set(e.map(\.key)) == Set(ScenarioSnapshot.exportFields.execution))
            }
        }
        #expect(try ScenarioSnapshot(json: Array(text.utf8)) == full)
    }
}
