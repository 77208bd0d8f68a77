import Foundation
import Testing
import RocketPostgres
import RocketScenarioEngine
@testable import RocketScenariosPostgres
import RocketScenarios
import RocketTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// Runs `body(k)` for k in 0..<n on many threads at once (dispatch's workers, not the tasks' pool).
/// The engine's decision as the scenario types make it.
private func decider(_ rules: ScenarioRules, _ now: Double) -> (ScenarioStats, [Double]) -> Bool {
    { ScenarioEvaluator.evaluate(rules: rules, stats: $0, recentExecutions: $1, now: now).allowed }
}

/// Runs `body(k)` for k in 0..<n on `threads` threads of their own, released together, so the
/// calls really overlap (dispatch's concurrentPerform would run two at a time on two cores).
private func race(_ n: Int, threads: Int = 24, _ body: @escaping @Sendable (Int) -> Void) {
    let start = DispatchSemaphore(value: 0), done = DispatchSemaphore(value: 0)
    let next = Counter()
    for _ in 0..<threads {
        Thread {
            start.wait()
            while true {
                let k = next.take()
                if k >= n { break }
                body(k)
            }
            done.signal()
        }.start()
    }
    for _ in 0..<threads { start.signal() }
    for _ in 0..<threads { done.wait() }
}

@Suite("PostgreSQL store: caps exact across servers, migrations, errors, processes, crashes")
struct PostgresStoreTests {
    @Test("3 servers × 200 concurrent starts of a scenario allowed 5 executions → exactly 5")
    func capRace() throws {
        let url = try TestPostgres.freshDatabase()
        let stores = try (0..<3).map { _ in try PostgresScenarioStore(url: url) }
        let rules = ScenarioRules(maxExecutionsPermitted: 5)
        let passed = Counter(), failed = Counter()
        race(600) { k in
            let store = stores[k % 3]
            do {
                if try store.tryExecute("capped", at: 1_800_000_000 + Double(k), rules: rules, decide: decider(rules, 1_800_000_000 + Double(k))) {
                    passed.increment()
                }
            } catch {
                failed.increment()
            }
        }
        #expect(failed.value == 0)
        #expect(passed.value == 5)
        #expect(try stores[0].stats("capped").executionsCount == 5)
    }

    @Test("A shared budget of 4 a day holds across 3 servers and 3 scenarios racing")
    func budgetRace() throws {
        let url = try TestPostgres.freshDatabase()
        let stores = try (0..<3).map { _ in try PostgresScenarioStore(url: url) }
        let rules = ScenarioRules(budget: InterruptionBudget(executions: 4, seconds: 86_400))
        let passed = Counter()
        race(150) { k in
            let decided = try? stores[k % 3].tryExecute("s\(k % 3)", at: 1_800_000_000, rules: rules, decide: decider(rules, 1_800_000_000))
            if decided == true { passed.increment() }
        }
        #expect(passed.value == 4)
        #expect(try stores[1].snapshot().executions.count == 4)
    }

    @Test("A minimum gap between executions holds across servers: 3 × 50 tries at one moment → 1")
    func gapRace() throws {
        let url = try TestPostgres.freshDatabase()
        let stores = try (0..<3).map { _ in try PostgresScenarioStore(url: url) }
        let rules = ScenarioRules(minSecondsBetweenExecutions: 60)
        let passed = Counter()
        race(150) { k in
            let decided = try? stores[k % 3].tryExecute("gap", at: 1_800_000_000, rules: rules, decide: decider(rules, 1_800_000_000))
            if decided == true { passed.increment() }
        }
        #expect(passed.value == 1)
    }

    @Test("Eight servers starting at once on an empty database migrate it once")
    func migrateOnce() throws {
        let url = try TestPostgres.freshDatabase()
        let failures = Counter()
        race(8) { _ in
            do { _ = try PostgresScenarioStore(url: url) } catch { failures.increment() }
        }
        #expect(failures.value == 0)
        let db = PostgresDatabase(url: PostgresURL(url)!)
        let rows = try db.withConnection { (c) throws(PostgresError) in try c.query("SELECT version FROM rocket_schema") }
        #expect(rows.count == 1 && rows.int(0, 0) == postgresStoreSchema.version)
    }

    @Test("A database made by a newer rocket is refused, untouched")
    func newerSchema() throws {
        let url = try TestPostgres.freshDatabase()
        _ = try PostgresScenarioStore(url: url)
        let db = PostgresDatabase(url: PostgresURL(url)!)
        try db.withConnection { (c) throws(PostgresError) in try c.execute("UPDATE rocket_schema SET version = 999") }
        #expect {
            try PostgresScenarioStore(url: url)
        } throws: {
            ($0 as? ScenarioStoreError)?.kind == .newerSchema && "\($0)".contains("999")
        }
        #expect(try db.withConnection { (c) throws(PostgresError) in try c.query("SELECT version FROM rocket_schema").firstInt } == 999)
    }

    @Test("An unreachable database is a clear error that never shows the URL's password")
    func unreachable() throws {
        let secret = "s3cr%3At-\(UInt32.random(in: 0...UInt32.max))"
        let url = "postgresql://rocket:\(secret)@/rocket?host=/nonexistent-\(UInt32.random(in: 0...UInt32.max))"
        do {
            _ = try PostgresScenarioStore(url: url)
            Issue.record("a store on a missing server opened")
        } catch {
            #expect(error.kind == .io)
            #expect(!error.message.contains(secret) && !error.message.contains("s3cr:t"))
            #expect(error.message.contains("rocket:***@"), "\(error.message)")
            #expect(error.message.contains("cannot connect"))
        }
        // A password in the query string is hidden too.
        let other = "postgresql:///rocket?host=/nonexistent&password=\(secret)&user=x"
        #expect(!"\(PostgresURL(other)!)".contains(secret))
        #expect("\(PostgresURL(other)!)".contains("password=***"))
        // A one-letter password is hidden in the URL without blotting out that letter elsewhere.
        let short = PostgresURL("postgresql://u:p@/db?host=/nonexistent")!
        #expect("\(short)" == "postgresql://u:***@/db?host=/nonexistent")
        let message = short.scrub("in URI: \"postgresql://u:p@/db?host=/nonexistent\" (postgres)")
        #expect(message == "in URI: \"postgresql://u:***@/db?host=/nonexistent\" (postgres)")
    }

    @Test("4 processes × 500 triggers on one database → exactly 2,000")
    func processes() throws {
        let url = try TestPostgres.freshDatabase()
        _ = try PostgresScenarioStore(url: url)
        #expect(try triggeredByProcesses(store: url, processes: 4, each: 500))
        #expect(try PostgresScenarioStore(url: url).stats("shared").eventsCount == 2_000)
    }

    @Test("Killed with SIGKILL after a random acknowledged trigger, 30 times: every acknowledged event is stored")
    func crashes() throws {
        let url = try TestPostgres.freshDatabase()
        let store = try PostgresScenarioStore(url: url)
        try killedAfterAcknowledgements(store: url, rounds: 30, upTo: 20) { try store.stats("crash").eventsCount }
    }

    @Test("Recent event times keep the newest 1,000, as on SQLite")
    func recentLimit() throws {
        let store = try PostgresScenarioStore(url: try TestPostgres.freshDatabase())
        for k in 0..<1_250 { try store.triggerEvent("many", at: Double(k)) }
        let stats = try store.stats("many")
        #expect(stats.eventsCount == 1_250)
        #expect(stats.recentEvents.count == ScenarioStats.recentLimit)
        #expect(stats.recentEvents.first == 250 && stats.recentEvents.last == 1_249)
    }
}
