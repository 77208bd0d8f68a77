import Foundation
import RocketSQLite
import Synchronization
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// How a connection waits for another connection's lock: in short steps (SQLite's own busy
/// timeout sleeps 1, 2, 5, 10, 15 … ms, so a lock held for 1.1 ms cost 3 ms and one held for
/// 8.1 ms cost 18), for as long as its timeout and no longer.
@Suite("SQLite lock waits in short steps, bounded by the timeout")
struct LockWaitTests {
    @Test("the schedule: 100 µs a try for the first 2 ms, then a millisecond a try, rising without gaps")
    func schedule() {
        #expect(SQLiteDatabase.waited(afterTries: 0) == 0)
        #expect(SQLiteDatabase.waited(afterTries: 1) == 100)
        #expect(SQLiteDatabase.waited(afterTries: 20) == 2_000)
        #expect(SQLiteDatabase.waited(afterTries: 21) == 3_000)
        #expect(SQLiteDatabase.waited(afterTries: 15_018) == 15_000_000)
        for t in Int32(0)..<200 {
            let step = SQLiteDatabase.waited(afterTries: t + 1) - SQLiteDatabase.waited(afterTries: t)
            #expect(step == (t < 20 ? 100 : 1_000))
        }
    }

    /// A new store with one table, and the connection that holds its write lock (taken, with a
    /// row written and not committed).
    func heldStore() throws -> (path: String, holder: SQLiteDatabase) {
        let path = scratchDirectory() + "/locks.sqlite"
        let holder = try SQLiteDatabase(path: path, mode: .readWrite)
        try holder.withConnection { (c) throws(SQLiteError) in
            try c.exec("PRAGMA journal_mode=WAL; CREATE TABLE t (v INTEGER); BEGIN IMMEDIATE; INSERT INTO t VALUES (1)")
        }
        return (path, holder)
    }

    @Test("a writer waits for another connection's write lock and gets it once it is let go")
    func waitsThenWrites() throws {
        let (path, holder) = try heldStore()
        let waiter = try SQLiteDatabase(path: path, mode: .readWrite, busyTimeout: 10_000)
        let released = Atomic<Bool>(false)
        let outcome = Mutex<String>("")
        let done = DispatchSemaphore(value: 0)
        Thread {
            do throws(SQLiteError) {
                try waiter.withConnection { (c) throws(SQLiteError) in try c.exec("BEGIN IMMEDIATE; INSERT INTO t VALUES (2); COMMIT") }
                outcome.withLock { $0 = released.load(ordering: .acquiring) ? "wrote after the release" : "wrote while the lock was held" }
            } catch {
                outcome.withLock { $0 = "failed: \(error.message)" }
            }
            done.signal()
        }.start()
        // Time for the waiter to meet the held lock and be refused a few times (on a loaded
        // machine it may meet it later or not at all: the test then proves less, never fails).
        usleep(20_000)
        released.store(true, ordering: .releasing)
        try holder.withConnection { (c) throws(SQLiteError) in try c.exec("COMMIT") }
        done.wait()
        #expect(outcome.withLock { $0 } == "wrote after the release")
        let count = try holder.withConnection { (c) throws(SQLiteError) in try c.integer("SELECT count(*) FROM t") }
        #expect(count == 2)
    }

    @Test("a lock held past the timeout is SQLITE_BUSY, not a hang")
    func timesOut() throws {
        let (path, holder) = try heldStore()
        defer { try? holder.withConnection { (c) throws(SQLiteError) in try c.exec("COMMIT") } }
        for timeout: Int32 in [0, 5, 30] {
            let impatient = try SQLiteDatabase(path: path, mode: .readWrite, busyTimeout: timeout)
            var failure: SQLiteError?
            do throws(SQLiteError) {
                try impatient.withConnection { (c) throws(SQLiteError) in try c.exec("BEGIN IMMEDIATE") }
            } catch {
                failure = error
            }
            #expect(failure?.isBusy == true, "timeout \(timeout) ms")
        }
    }
}
