import Foundation
import RocketSQLite
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The "rocket-log" VFS every connection opens with (CSQLiteLog): a commit's frames reach the
/// write-ahead log in one write instead of two a page, and nothing else changes.
@Suite("The log's frames are written a commit at a time")
struct LogWriteTests {
    /// Write calls this thread has made so far (`syscw` of /proc/thread-self/io).
    static func writeCalls() -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/thread-self/io", encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix("syscw:") {
            return Int(line.dropFirst(6).trimmingCharacters(in: .whitespaces))
        }
        return nil
    }

    /// A store in WAL mode with 2 KiB pages and a table of text rows.
    static func store() throws -> (path: String, db: SQLiteDatabase) {
        let path = scratchDirectory() + "/log.sqlite"
        let db = try SQLiteDatabase(path: path, mode: .readWrite)
        try db.withConnection { (c) throws(SQLiteError) in
            try c.exec("PRAGMA page_size=2048; PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA wal_autocheckpoint=0")
            try c.exec("CREATE TABLE t (k INTEGER PRIMARY KEY, v TEXT NOT NULL)")
        }
        return (path, db)
    }

    static func insert(_ db: SQLiteDatabase, _ keys: Range<Int>) throws {
        try db.transaction { (c) throws(SQLiteError) in
            for k in keys { try c.run("INSERT INTO t (k, v) VALUES (?1, ?2)", [.integer(k), .text(String(repeating: "\(k % 10)", count: 1_500))]) }
        }
    }

    @Test("a commit of 30 pages is one or two write calls, not two a page; another connection reads every row")
    func oneWritePerCommit() throws {
        let (path, db) = try Self.store()
        try Self.insert(db, 0..<1)  // the log's header is written with the first commit
        let before = try #require(Self.writeCalls())
        try Self.insert(db, 1..<31)
        let after = try #require(Self.writeCalls())
        #expect(after - before <= 2, "\(after - before) write calls for a commit of about 30 pages")
        let reader = try SQLiteDatabase(path: path, mode: .readOnly)
        let count = try reader.withConnection { (c) throws(SQLiteError) in try c.integer("SELECT count(*) FROM t WHERE length(v) = 1500") }
        #expect(count == 31)
    }

    @Test("commits past 64 KiB, a rollback and a checkpoint in between: the store holds exactly what was committed")
    func largeAndRolledBack() throws {
        let (path, db) = try Self.store()
        try Self.insert(db, 0..<200)  // about 300 KiB: written 64 KiB at a time
        do throws(SQLiteError) {
            try db.transaction { (c) throws(SQLiteError) in
                for k in 200..<400 { try c.run("INSERT INTO t (k, v) VALUES (?1, ?2)", [.integer(k), .text(String(repeating: "r", count: 1_500))]) }
                try c.run("INSERT INTO t (k, v) VALUES (0, 'duplicate')")  // fails: the whole transaction rolls back
            }
            Issue.record("a duplicate key was accepted")
        } catch {}
        try db.withConnection { (c) throws(SQLiteError) in _ = try c.integer("PRAGMA wal_checkpoint(PASSIVE)") }
        try Self.insert(db, 400..<450)
        let reader = try SQLiteDatabase(path: path, mode: .readOnly)
        let (count, sum) = try reader.withConnection { (c) throws(SQLiteError) in
            (try c.integer("SELECT count(*) FROM t"), try c.integer("SELECT sum(k) FROM t WHERE v NOT LIKE 'r%'"))
        }
        #expect(count == 250)
        #expect(sum == (0..<200).reduce(0, +) + (400..<450).reduce(0, +))
        let check = try reader.withConnection { (c) throws(SQLiteError) -> String in
            let s = try c.statement(text: "PRAGMA integrity_check")
            defer { s.finish() }
            return try s.step() ? s.text(0) : ""
        }
        #expect(check == "ok")
    }

    @Test("a commit whose log write fails is refused, rolls back and leaves the store as it was; the next commit goes through")
    func failedWrite() throws {
        let (path, db) = try Self.store()
        try Self.insert(db, 0..<10)
        #expect(try db.withConnection { (c) throws(SQLiteError) in c.failLogWrites(1) })
        var refused: (any Error)? = nil
        do {
            try Self.insert(db, 10..<40)
        } catch {
            refused = error
        }
        #expect(refused != nil, "a commit whose log could not be written was acknowledged")
        let reader = try SQLiteDatabase(path: path, mode: .readOnly)
        #expect(try reader.withConnection { (c) throws(SQLiteError) in try c.integer("SELECT count(*) FROM t") } == 10)
        try Self.insert(db, 10..<40)
        #expect(try reader.withConnection { (c) throws(SQLiteError) in try c.integer("SELECT count(*) FROM t") } == 40)
        let again = try SQLiteDatabase(path: path, mode: .readOnly)
        #expect(try again.withConnection { (c) throws(SQLiteError) in try c.integer("SELECT count(*) FROM t") } == 40)
    }
}
