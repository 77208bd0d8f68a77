import Foundation
import RocketCore
import RocketPostgres
import RocketReport
import RocketSQLite
import RocketTestSupport
import Testing

@testable import RocketScenariosPostgres
@testable import RocketScenariosSQLite
@testable import RocketServer

/// A report of a window read from a store reads only the conversations that may have begun in
/// it, and counts exactly what a report of every record counts in that window.
@Suite("A report's window read from a store")
struct ReportWindowStoreTests {
    static let day = 86_400.0

    /// The report of `store`'s records in `window` (of `flow` only, when given).
    static func report(_ store: any ConversationStore, _ window: ReportWindow?, flow: String? = nil) throws -> Report {
        var builder = ReportBuilder(by: .variant)
        builder.window = window
        try store.readRecords(flow: flow, into: &builder)
        return builder.report(ReportOptions(minCount: 1, flow: flow))
    }

    /// The conversations a report counts as started.
    static func starts(_ report: Report) -> Int {
        report.flows.flatMap(\.variants).compactMap(\.starts).reduce(0, +)
    }

    @Test(
        "with a window, only the conversations with a record in it are read; they count as a report of every record counts them (a conversation begun before and continued inside is not counted; one begun a hair before the bound, written as on it, is)",
        arguments: ServerStoreKind.allCases)
    func windowReadsOnlyItsConversations(kind: ServerStoreKind) throws {
        let h = try Harness(kind)
        let t0 = h.clock.now
        // Day 0: three; the first goes on during day 1.
        let straddler = try h.start(visitor: "s")
        for k in 0..<2 { _ = try h.start(visitor: "a\(k)") }
        // Day 1: one begun 0.4 µs before midnight (its record's text, to the microsecond,
        // says midnight), then two.
        h.clock.advance(by: Self.day - 4e-7)
        _ = try h.start(visitor: "edge")
        h.clock.advance(by: 4e-7 + 60)
        #expect(h.send(straddler, #""intent": "tap", "step": 0"#, visitor: "s").status == 200)
        for k in 0..<2 { _ = try h.start(visitor: "b\(k)") }
        // Day 2: four.
        h.clock.advance(by: Self.day)
        for k in 0..<4 { _ = try h.start(visitor: "c\(k)") }

        let store = try h.archive()
        let all = try Self.report(store, nil)
        #expect(Self.starts(all) == 10)
        let dayOne = ReportWindow(since: t0 + Self.day, until: t0 + 2 * Self.day)
        let windowed = try Self.report(store, dayOne)
        #expect(Self.starts(windowed) == 3, "the edge one and day 1's two; not the straddler")
        #expect(windowed.window == dayOne)
        // Only the conversations with a record in [since - 1 s, until + 1 s) were read: day 1's
        // three and the straddler, not days 0's others nor day 2's.
        let perConversation = all.records / 10
        #expect(windowed.records < all.records / 2 && windowed.records >= 3 * perConversation, "\(windowed.records) of \(all.records)")
        #expect(Self.starts(try Self.report(store, ReportWindow(since: t0 + Self.day))) == 7)
        #expect(Self.starts(try Self.report(store, ReportWindow(until: t0 + Self.day))) == 3, "the edge one reads as begun at midnight")
        #expect(Self.starts(try Self.report(store, ReportWindow(since: t0 + 3 * Self.day))) == 0)
        #expect(Self.starts(try Self.report(store, dayOne, flow: "basic")) == 3)
        #expect(try Self.report(store, dayOne, flow: "gated").flows.isEmpty)
    }

    @Test("SQLite: a report's windowed reads search the index of times and the key, never scan the table")
    func sqlitePlans() throws {
        let db = try VisitorIndexTests.sqliteStore()
        #expect(ConversationArchive.ReportStatements.windowed.count == 2)
        for (sql, _) in ConversationArchive.ReportStatements.windowed {
            let plan = try VisitorIndexTests.sqlitePlan("\(sql)", in: db)
            let scans = plan.filter { $0.hasPrefix("SCAN ") }
            #expect(scans.isEmpty && plan.contains { $0.contains("server_events_by_time") }, "\(sql)\n\(plan.joined(separator: "\n"))")
        }
    }

    @Test("PostgreSQL: a report's windowed reads find a window's few conversations among 40,000 rows through indexes, never a scan of the table")
    func postgresPlans() throws {
        let db = try VisitorIndexTests.postgresStore()
        // 10,000 conversations of four rows, one in 500 begun in the window (after 1.8e9).
        try db.withConnection { (c) throws(PostgresError) in
            try c.execute(
                """
                INSERT INTO rocket_events (id, seq, at, record, flow)
                  SELECT 'c' || (k / 4), k % 4, CASE WHEN (k / 4) % 500 = 0 THEN 1.85e9 ELSE 1.7e9 END + k % 4, repeat('x', 300),
                    CASE WHEN k % 3 = 0 THEN 'welcome' ELSE 'tour' END FROM generate_series(0, 39999) k;
                ANALYZE;
                """)
        }
        #expect(PostgresConversationArchive.ReportStatements.windowed.count == 2)
        for (sql, values) in PostgresConversationArchive.ReportStatements.windowed {
            let plan = try VisitorIndexTests.explained(sql, values, in: db)
            #expect(
                !plan.contains { $0.contains("Seq Scan") } && plan.contains { $0.contains("rocket_events_by_time") },
                "\(sql)\n\(plan.joined(separator: "\n"))")
        }
    }

    @Test("SQLite: a page of results in a window reads the numbers of that window through the index of times, never the whole table")
    func sqliteResultPlans() throws {
        let db = try VisitorIndexTests.sqliteStore()
        #expect(ConversationArchive.ResultStatements.all.count == 6)
        for sql in ConversationArchive.ResultStatements.all {
            let plan = try VisitorIndexTests.sqlitePlan(sql, in: db)
            let scans = plan.filter { $0.hasPrefix("SCAN ") }
            #expect(scans.isEmpty, "\(sql)\n\(plan.joined(separator: "\n"))")
            if sql.contains("min(seq)") {
                #expect(plan.contains { $0.contains("server_results_by_time") }, "\(sql)\n\(plan.joined(separator: "\n"))")
            }
        }
    }

    @Test("PostgreSQL: a page of results in a window reads the window's rows among 40,000, never a scan of the table")
    func postgresResultPlans() throws {
        let db = try VisitorIndexTests.postgresStore()
        try db.withConnection { (c) throws(PostgresError) in
            try c.execute(
                """
                INSERT INTO rocket_results (id, flow, visitor, at, reason, answers)
                  SELECT 'r' || k, CASE WHEN k % 3 = 0 THEN 'welcome' ELSE 'tour' END, 'w' || k, 1.7e9 + k * 60, 'completed', repeat('x', 300)
                  FROM generate_series(1, 40000) k;
                """)
            // Its own statement (not in a transaction): the index's pages marked all-visible.
            try c.execute("VACUUM ANALYZE rocket_results")
        }
        // A window of 100 minutes in the middle of 40,000.
        let (since, until) = (1.7e9 + 20_000 * 60, 1.7e9 + 20_100 * 60)
        for flow in [nil, "welcome"] as [String?] {
            let values: [PostgresValue] = [
                .integer(0), .integer(100), flow.map { .text($0) } ?? .null, .integer(1 << 22), .null, .real(since), .real(until),
            ]
            let plan = try VisitorIndexTests.explained(PostgresConversationArchive.ResultStatements.page, values, in: db, buffers: true)
            // The window's rows and the index's entries from the window on; a search along the
            // key for the window's first number, row after row, reads 800 pages or more.
            let pages = VisitorIndexTests.pagesRead(plan)
            #expect(
                !plan.contains { $0.contains("Seq Scan") } && plan.contains { $0.contains("Index Only Scan using rocket_results_by_time") }
                    && pages < 300,
                "\(pages) pages\n\(plan.joined(separator: "\n"))")
            let rows = try db.withConnection { (c) throws(PostgresError) -> Int in
                try c.query(PostgresConversationArchive.ResultStatements.page, values).count
            }
            #expect(rows == (flow == nil ? 100 : 33), "\(flow ?? "all")")
        }
    }
}
