import Foundation
import RocketPostgres
import RocketSQLite
import RocketScenarioEngine
import RocketTestSupport
import Testing

@testable import RocketScenariosPostgres
@testable import RocketScenariosSQLite
@testable import RocketServer

/// A visitor's access request and erasure, and the sweeps of quiet visitors, read through
/// indexes: they run while requests or the writer wait, so none may read every visitor's rows.
@Suite("A visitor's rows are found through indexes")
struct VisitorIndexTests {
    @Test("SQLite: every statement that picks a visitor's rows, or quiet visitors', searches an index; none scans a table")
    func sqlitePlans() throws {
        let db = try Self.sqliteStore()
        let statements = (RocketScenariosSQLite.VisitorStatements.all + ConversationArchive.VisitorStatements.all).map { "\($0)" }
        #expect(statements.count == 12)
        for sql in statements {
            let plan = try Self.sqlitePlan(sql, in: db)
            // "SCAN t" reads every row of t (or of one of its indexes, "USING COVERING INDEX");
            // "SEARCH t USING INDEX …" reads the rows asked for.
            let scans = plan.filter { $0.hasPrefix("SCAN ") && $0 != "SCAN CONSTANT ROW" }
            #expect(scans.isEmpty && plan.contains { $0.hasPrefix("SEARCH ") }, "\(sql)\n\(plan.joined(separator: "\n"))")
        }
    }

    /// A new SQLite store's database, its schema made, for reading plans.
    static func sqliteStore() throws -> SQLiteDatabase {
        let path = scratchDirectory() + "/plans.sqlite"
        _ = try SQLiteScenarioStore(path: path)
        return try SQLiteDatabase(path: path, mode: .readWrite)
    }

    /// The plan SQLite makes for `sql` (EXPLAIN QUERY PLAN), a line a step.
    static func sqlitePlan(_ sql: String, in db: SQLiteDatabase) throws -> [String] {
        try db.withConnection { (c) throws(SQLiteError) -> [String] in
            let s = try c.statement(text: "EXPLAIN QUERY PLAN " + sql)
            defer { s.finish() }
            var lines: [String] = []
            while try s.step() { lines.append(s.text(3)) }
            return lines
        }
    }

    /// The pages a PostgreSQL plan (EXPLAIN with BUFFERS) says its statement read, hit or not:
    /// its first "Buffers:" line, before planning's, is its top node's, which counts its children's.
    static func pagesRead(_ plan: [String]) -> Int {
        let own = plan.prefix { !$0.hasPrefix("Planning") }.first { $0.trimmingCharacters(in: .whitespaces).hasPrefix("Buffers:") }
        return (own ?? "").split(separator: " ").compactMap { part -> Int? in
            guard let eq = part.firstIndex(of: "="), ["hit", "read"].contains(part[..<eq]) else { return nil }
            return Int(part[part.index(after: eq)...])
        }.reduce(0, +)
    }

    /// A new, empty store of `kind`.
    static func emptyStore(_ kind: ServerStoreKind) throws -> any VisitorStore & Named {
        kind == .postgres
            ? try PostgresScenarioStore(url: try TestPostgres.freshDatabase()) : try SQLiteScenarioStore(path: scratchDirectory() + "/store.sqlite")
    }

    @Test(
        "the sweep of quiet visitors looks at a slice at a time and goes on from its cursor: every quiet visitor's row goes in one pass, active ones and store-wide ones stay",
        arguments: ServerStoreKind.allCases)
    func sweepInSlices(kind: ServerStoreKind) throws {
        let store = try Self.emptyStore(kind)
        let old = 1_700_000_000.0, now = 1_800_000_000.0
        for k in 0..<12 { try store.triggerEvent("tour@quiet-\(k)", at: old) }
        for k in 0..<5 { try store.triggerEvent("tour@active-\(k)", at: now) }
        for k in 0..<3 { try store.triggerEvent("store-wide-\(k)", at: old) }
        var cursor = "", forgotten = 0, slices = 0
        repeat {
            let swept = try store.forgetVisitors(inactiveSince: now - 3_600, after: cursor, examining: 5)
            forgotten += swept.forgotten
            slices += 1
            guard let next = swept.next else { break }
            #expect(next > cursor, "the cursor moves on")
            cursor = next
        } while slices < 20
        // 20 rows, 5 a slice: four full slices, then an empty one that finds the end.
        #expect(forgotten == 12 && slices == 5, "\(forgotten) in \(slices) slices")
        let names = Set(try store.names())
        #expect(names == Set((0..<5).map { "tour@active-\($0)" } + (0..<3).map { "store-wide-\($0)" }), "\(names.sorted())")
    }

    @Test(
        "an execution and the visitor's log of it are counted together, in the store's transaction: both when allowed, neither when not",
        arguments: ServerStoreKind.allCases)
    func executionWithLog(kind: ServerStoreKind) throws {
        let store = try Self.emptyStore(kind)
        let once = NamedScenario("tour@ada", rules: ScenarioRules(maxExecutionsPermitted: 1))
        let log = VisitorBudget(visitor: "ada").scenarioName
        let first = try once.decide(in: store, at: 1_800_000_000, countingEventOf: log)
        #expect(first.allowed)
        #expect(try store.stats("tour@ada").executionsCount == 1 && store.stats(log).eventsCount == 1)
        let second = try once.decide(in: store, at: 1_800_000_010, countingEventOf: log)
        #expect(!second.allowed)
        #expect(try store.stats("tour@ada").executionsCount == 1 && store.stats(log).eventsCount == 1, "a refused try counts nothing")
        // A store without the combined call (in memory) counts the two one after the other.
        let memory = InMemoryScenarioStore()
        #expect(try once.decide(in: memory, at: 1_800_000_000, countingEventOf: log).allowed)
        #expect(try memory.stats("tour@ada").executionsCount == 1 && memory.stats(log).eventsCount == 1)
    }

    /// A fresh PostgreSQL store's database, its tables made.
    static func postgresStore() throws -> PostgresDatabase {
        let url = try TestPostgres.freshDatabase()
        _ = try PostgresScenarioStore(url: url)
        return PostgresDatabase(url: try #require(PostgresURL(url)), capacity: 1)
    }

    /// The plan PostgreSQL ran `sql` with (EXPLAIN ANALYZE in a transaction rolled back), a line each.
    static func explained(_ sql: String, _ values: [PostgresValue], in db: PostgresDatabase, buffers: Bool = false) throws -> [String] {
        try db.withConnection { (c) throws(PostgresError) -> [String] in
            try c.execute("BEGIN")
            defer { try? c.execute("ROLLBACK") }
            let r = try c.query("EXPLAIN (ANALYZE, \(buffers ? "BUFFERS, " : "")COSTS OFF, TIMING OFF) " + sql, values)
            return (0..<r.count).map { r.text($0, 0) }
        }
    }

    @Test("PostgreSQL: every statement that picks a visitor's rows, or quiet visitors', reads a few pages among thousands of others' rows")
    func postgresPlans() throws {
        let db = try Self.postgresStore()
        // 5,000 other visitors with a row in every table (no index scan of the wrong index, and
        // no table scan, can read them in a few pages), all of them active now.
        try db.withConnection { (c) throws(PostgresError) in
            try c.execute(
                """
                INSERT INTO rocket_scenarios (name, events_count, first_event, last_event)
                  SELECT 'tour@w' || k, 1, 1.8e9, 1.8e9 FROM generate_series(1, 5000) k;
                INSERT INTO rocket_scenarios (name, events_count, first_event, last_event) SELECT 'global' || k, 1, 1.8e9, 1.8e9 FROM generate_series(1, 5000) k;
                INSERT INTO rocket_scenario_executions (scenario, at) SELECT 'tour@w' || k, 1.8e9 FROM generate_series(1, 5000) k;
                INSERT INTO rocket_scenario_events (scenario, at) SELECT 'tour@w' || k, 1.8e9 FROM generate_series(1, 5000) k;
                INSERT INTO rocket_assignments SELECT 'e' || (k % 5), 'w' || k, 'a', 1.8e9 FROM generate_series(1, 5000) k;
                INSERT INTO rocket_conversations (id, visitor, flow, step, version, snapshot_version, event_seq, touched, snapshot)
                  SELECT 'c' || k, 'w' || k, 'welcome', 1, 1, 1, 1, 1.8e9, repeat('x', 300) FROM generate_series(1, 5000) k;
                INSERT INTO rocket_steps SELECT 'c' || k, 2, 1.8e9, '{}' FROM generate_series(1, 5000) k;
                INSERT INTO rocket_events (id, seq, at, record, flow) SELECT 'c' || k, 1, 1.8e9, '{}', 'welcome' FROM generate_series(1, 5000) k;
                INSERT INTO rocket_results (id, flow, visitor, at, reason, answers) SELECT 'r' || k, 'welcome', 'w' || k, 1.8e9, 'ended', '{}'
                  FROM generate_series(1, 5000) k;
                INSERT INTO rocket_alerts SELECT 'a' || k, 'w' || k, 1, 1.8e9, '{}' FROM generate_series(1, 5000) k;
                -- The visitor asked for ("v"), with a row in each table, and two quiet ones.
                INSERT INTO rocket_scenarios (name, events_count, first_event, last_event) VALUES ('tour@v', 1, 1.8e9, 1.8e9);
                INSERT INTO rocket_scenario_executions (scenario, at) VALUES ('tour@v', 1.8e9);
                INSERT INTO rocket_assignments VALUES ('e0', 'v', 'a', 1.8e9);
                INSERT INTO rocket_conversations (id, visitor, flow, step, version, snapshot_version, event_seq, touched, snapshot)
                  VALUES ('cv', 'v', 'welcome', 1, 1, 1, 1, 1.8e9, '{}');
                INSERT INTO rocket_steps VALUES ('cv', 2, 1.8e9, '{}');
                INSERT INTO rocket_events (id, seq, at, record, flow) VALUES ('cv', 1, 1.8e9, '{}', 'welcome'), ('rv', 1, 1.8e9, '{}', 'welcome');
                INSERT INTO rocket_results (id, flow, visitor, at, reason, answers) VALUES ('rv', 'welcome', 'v', 1.8e9, 'ended', '{}');
                INSERT INTO rocket_alerts VALUES ('av', 'v', 1, 1.8e9, '{}');
                INSERT INTO rocket_scenarios (name, events_count, first_event, last_event) SELECT 'tour@q' || k, 1, 1e9, 1e9 FROM generate_series(1, 2) k;
                INSERT INTO rocket_scenario_events (scenario, at) SELECT 'tour@q' || k, 1e9 FROM generate_series(1, 2) k;
                INSERT INTO rocket_assignments SELECT 'e0', 'q' || k, 'a', 1e9 FROM generate_series(1, 2) k;
                ANALYZE;
                """)
        }
        let statements = RocketScenariosPostgres.VisitorStatements.all + PostgresConversationArchive.VisitorStatements.all
        #expect(statements.count == 15)
        for (sql, values) in statements {
            let plan = try Self.explained(sql, values, in: db, buffers: true)
            // Looking up and removing two rows reads a few pages; any scan, of the table or of
            // an index it cannot search, reads 50 or more.
            let pages = Self.pagesRead(plan)
            #expect(pages <= 24 && !plan.contains { $0.contains("Seq Scan") }, "\(pages) pages: \(sql)\n\(plan.joined(separator: "\n"))")
        }
    }

    @Test(
        "PostgreSQL: every sweep of rows whose time came, and the claim of due timers, reads its slice through an index with a large backlog due, never the table"
    )
    func postgresSweeps() throws {
        let db = try Self.postgresStore()
        // 40,000 rows in each table, one in 20 of them due (a backlog of 2,000): a slice written
        // as IN (SELECT … LIMIT n) was planned as a hash join over the whole table.
        try db.withConnection { (c) throws(PostgresError) in
            try c.execute(
                """
                INSERT INTO rocket_conversations (id, visitor, flow, step, version, snapshot_version, event_seq, touched, snapshot, deadline)
                  SELECT 'c' || k, 'w' || k, 'welcome', 1, 1, 1, 1, CASE WHEN k % 20 = 0 THEN 1e9 ELSE 1.8e9 END, repeat('x', 300),
                    CASE WHEN k % 20 = 0 THEN 1e9 ELSE 1.8e9 END FROM generate_series(1, 40000) k;
                INSERT INTO rocket_events (id, seq, at, record, flow)
                  SELECT 'c' || (k / 4), k % 4, CASE WHEN k % 20 = 0 THEN 1e9 ELSE 1.8e9 END, '{}', 'welcome' FROM generate_series(1, 40000) k;
                INSERT INTO rocket_results (id, flow, visitor, at, reason, answers)
                  SELECT 'r' || k, 'welcome', 'w' || k, CASE WHEN k % 20 = 0 THEN 1e9 ELSE 1.8e9 END, 'ended', '{}' FROM generate_series(1, 40000) k;
                INSERT INTO rocket_alerts SELECT 'a' || k, 'w' || k, 1, CASE WHEN k % 20 = 0 THEN 1e9 ELSE 1.8e9 END, '{}' FROM generate_series(1, 40000) k;
                INSERT INTO rocket_assignments SELECT 'e' || (k % 5), 'w' || k, 'a', CASE WHEN k % 20 = 0 THEN 1e9 ELSE 1.8e9 END
                  FROM generate_series(1, 40000) k;
                ANALYZE;
                """)
        }
        let statements =
            PostgresConversationArchive.SweepStatements.all + [
                (RocketScenariosPostgres.VisitorStatements.oldAssignments, [PostgresValue.real(1.5e9)])
            ]
        #expect(statements.count == 6)
        for (sql, values) in statements {
            let plan = try Self.explained(sql, values, in: db)
            let changed = plan.contains { $0.contains("Tid Scan") }
            #expect(changed && !plan.contains { $0.contains("Seq Scan") }, "\(sql)\n\(plan.joined(separator: "\n"))")
        }
    }
}
