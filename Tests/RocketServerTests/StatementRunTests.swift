import RocketSQLite
import Testing

/// `SQLiteConnection.run` on a cached statement: what it stores is what it was given (texts made
/// at run time and released after it, empty, long, not ASCII; numbers; NULL), run after run, and
/// a run that fails leaves the statement ready for the next.
@Suite("A cached statement's runs store what they are given")
struct StatementRunTests {
    static let insert: StaticString = "INSERT INTO t (k, a, b, c, d) VALUES (?1, ?2, ?3, ?4, ?5)"

    func rows(_ db: SQLiteDatabase) throws -> [String] {
        try db.withConnection { (c) throws(SQLiteError) -> [String] in
            let s = try c.statement(text: "SELECT k, a, typeof(a), b, typeof(b), c, d FROM t ORDER BY k")
            defer { s.finish() }
            var out: [String] = []
            while try s.step() {
                out.append([s.text(0), s.text(1), s.text(2), s.text(3), s.text(4), "\(s.int(5))", "\(s.double(6) ?? -1)"].joined(separator: "|"))
            }
            return out
        }
    }

    @Test("texts (empty, long, not ASCII), numbers and NULL are stored as given, run after run")
    func storesWhatItWasGiven() throws {
        let db = try SQLiteDatabase(path: scratchDirectory() + "/runs.sqlite", mode: .readWrite)
        try db.withConnection { (c) throws(SQLiteError) in try c.exec("CREATE TABLE t (k TEXT PRIMARY KEY, a, b, c INTEGER, d REAL)") }
        let long = String(repeating: "ünïcödé ✓ ", count: 500)
        // Made at run time (not literals), each released before the next run.
        for n in 0..<3 {
            let key = "key-\(n)-" + String(repeating: "x", count: 40 + n)
            let text = n == 1 ? "" : (n == 2 ? long : "short \(n)")
            try db.withConnection { (c) throws(SQLiteError) in
                try c.run(Self.insert, [.text(key), .text(text), n == 0 ? .null : .text("b\(n)"), .integer(n), .real(Double(n) + 0.5)])
            }
        }
        // The same cached statement with fewer texts: nothing of the run before remains bound.
        try db.withConnection { (c) throws(SQLiteError) in
            try c.run(Self.insert, [.text("key-3"), .integer(7), .null, .integer(3), .null])
        }
        let got = try rows(db)
        #expect(got.count == 4)
        #expect(got[0] == "key-0-" + String(repeating: "x", count: 40) + "|short 0|text||null|0|0.5")
        #expect(got[1] == "key-1-" + String(repeating: "x", count: 41) + "||text|b1|text|1|1.5")
        #expect(got[2] == "key-2-" + String(repeating: "x", count: 42) + "|" + long + "|text|b2|text|2|2.5")
        #expect(got[3] == "key-3|7|integer||null|3|-1.0")
    }

    @Test("a run that fails throws and leaves its statement ready for the next run")
    func failureThenReuse() throws {
        let db = try SQLiteDatabase(path: scratchDirectory() + "/runs-fail.sqlite", mode: .readWrite)
        try db.withConnection { (c) throws(SQLiteError) in try c.exec("CREATE TABLE t (k TEXT PRIMARY KEY, a, b, c INTEGER, d REAL)") }
        let key = "dup-" + String(repeating: "k", count: 30)
        try db.withConnection { (c) throws(SQLiteError) in try c.run(Self.insert, [.text(key), .text("one"), .null, .integer(1), .null]) }
        var failed = false
        do {
            try db.withConnection { (c) throws(SQLiteError) in try c.run(Self.insert, [.text(key), .text("two"), .null, .integer(2), .null]) }
        } catch {
            failed = true
        }
        #expect(failed)
        try db.withConnection { (c) throws(SQLiteError) in try c.run(Self.insert, [.text(key + "-2"), .text("three"), .null, .integer(3), .null]) }
        let got = try rows(db)
        #expect(got.map { $0.split(separator: "|", omittingEmptySubsequences: false)[1] } == ["one", "three"])
    }
}
