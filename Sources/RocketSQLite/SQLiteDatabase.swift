import CSQLite
import CSQLiteLog
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Why SQLite refused: its primary result code and its message, with the file.
package struct SQLiteError: Error, Sendable {
    /// The primary result code (`SQLITE_BUSY`, `SQLITE_FULL`, …).
    package var code: Int32
    /// SQLite's message.
    package var message: String

    package init(code: Int32, message: String) {
        self.code = code & 0xFF
        self.message = message
    }

    /// Another connection held the lock for longer than the busy timeout.
    package var isBusy: Bool { code == SQLITE_BUSY || code == SQLITE_LOCKED }
    /// The disk (or a quota) is full.
    package var isFull: Bool { code == SQLITE_FULL }
    /// The file, its folder or its file system cannot be written, or opened.
    package var isReadOnly: Bool { code == SQLITE_READONLY || code == SQLITE_PERM || code == SQLITE_CANTOPEN || code == SQLITE_AUTH }
    /// The file is not an SQLite database.
    package var isNotADatabase: Bool { code == SQLITE_NOTADB }
    /// The file is damaged.
    package var isCorrupt: Bool { code == SQLITE_CORRUPT }
}

/// A value bound to a statement parameter.
package enum SQLiteValue: ExpressibleByStringLiteral, Sendable {
    case text(String), real(Double), integer(Int), null

    package init(stringLiteral value: String) { self = .text(value) }

    /// A number or NULL.
    package static func optional(_ d: Double?) -> SQLiteValue { d.map { .real($0) } ?? .null }
}

/// The one SQLite layer of the package: a connection behind a mutex, its prepared statements
/// cached, transactions, and the schema's migrations. The scenario store and the server's
/// conversation archive both use it (on one file, with one migration list).
///
/// ```swift
/// let db = try SQLiteDatabase(path: "/tmp/x.sqlite", mode: .readWrite)
/// try db.transaction { c throws(SQLiteError) in try c.run("INSERT INTO t VALUES (?)", [.integer(1)]) }
/// ```
package final class SQLiteDatabase: Sendable {
    /// How a file is opened.
    package enum Mode: Sendable {
        /// Read and write; the file is made when missing.
        case readWrite
        /// Read only (needs the WAL's shared memory to be reachable).
        case readOnly
        /// Read only, as a file no one changes (`immutable=1`): for read-only file systems, and
        /// only when no write-ahead log holds changes (SQLite would ignore it).
        case immutable
    }

    /// The file.
    package let path: String
    /// How long a statement waits for another connection's lock, in milliseconds.
    package let busyTimeout: Int32
    private let connection: Mutex<SQLiteConnection>
    /// The connection's handle, for ``interrupt()`` alone (SQLite lets any thread interrupt a
    /// connection while another uses it).
    private nonisolated(unsafe) let interruptible: OpaquePointer

    /// Opens `path`. `busyTimeout` is how long a statement waits for another connection's lock
    /// (milliseconds).
    package init(path: String, mode: Mode, busyTimeout: Int32 = 15_000) throws(SQLiteError) {
        self.path = path
        self.busyTimeout = busyTimeout
        var handle: OpaquePointer?
        var name = path
        var flags = SQLITE_OPEN_NOMUTEX
        switch mode {
        case .readWrite: flags |= SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE
        case .readOnly: flags |= SQLITE_OPEN_READONLY
        case .immutable:
            flags |= SQLITE_OPEN_READONLY | SQLITE_OPEN_URI
            var escaped = "file:"
            for ch in path.unicodeScalars {
                switch ch {
                case "?", "#", "%": escaped += "%" + String(ch.value, radix: 16, uppercase: true)
                default: escaped.unicodeScalars.append(ch)
                }
            }
            name = escaped + "?immutable=1"
        }
        _ = Self.configured
        // A folder, device, FIFO or socket is no database: said as such, not as SQLite's "disk
        // I/O error" after it has tried to read one.
        var info = stat()
        if stat(path, &info) == 0, (info.st_mode & S_IFMT) != S_IFREG {
            throw SQLiteError(code: SQLITE_CANTOPEN, message: "not a regular file (a folder, device, FIFO or socket)")
        }
        // A new database is its owner's alone: it may hold visitors' data and the server's token
        // secret. SQLite would make it (and, by its mode, its -wal and -shm) readable by everyone
        // the umask lets; an existing file keeps its mode.
        if mode == .readWrite, stat(path, &info) != 0, errno == ENOENT {
            let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
            if fd >= 0 { close(fd) }
        }
        let rc = sqlite3_open_v2(name, &handle, flags, Self.logVFS)
        guard rc == SQLITE_OK, let handle else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close(handle)
            throw SQLiteError(code: rc, message: message)
        }
        Self.waitForLocks(handle, busyTimeout)
        connection = Mutex(SQLiteConnection(handle: handle))
        interruptible = handle
    }

    /// Stops the statement the connection runs now, from any thread: it fails with
    /// `SQLITE_INTERRUPT` (a long copy someone cancelled). Nothing happens when none runs.
    package func interrupt() { sqlite3_interrupt(interruptible) }

    /// Writes a consistent copy of the whole database, as one read transaction sees it (writers
    /// go on meanwhile), into `path`: an empty file or none (`VACUUM INTO`: compacted, without
    /// the write-ahead log), then checks the copy (`PRAGMA quick_check`). The file keeps its mode.
    /// The check runs on this connection too (the copy attached), so ``interrupt()`` stops it.
    package func copy(into path: String) throws(SQLiteError) {
        let verdict = try withConnection { (c) throws(SQLiteError) -> String in
            try c.run("VACUUM INTO ?1", [.text(path)])
            try c.run("ATTACH ?1 AS copy_check", [.text(path)])
            var verdict = ""
            do throws(SQLiteError) {
                let s = try c.statement("PRAGMA copy_check.quick_check")
                defer { s.finish() }
                if try s.step() { verdict = s.text(0) }
            } catch {
                try? c.run("DETACH copy_check")
                throw error
            }
            try c.run("DETACH copy_check")
            return verdict
        }
        guard verdict == "ok" else { throw SQLiteError(code: SQLITE_CORRUPT, message: "the copy does not read back whole: \(verdict)") }
    }

    /// The VFS every connection opens with: "rocket-log" (CSQLiteLog.h: a commit's log frames
    /// handed to the kernel in one write; starts +6 % in alternating runs, intents the same),
    /// unless it could not be registered (then SQLite's default).
    private static let logVFS: String? = rocket_sqlite_log_vfs_register() == SQLITE_OK ? "rocket-log" : nil

    /// The library's process-wide settings, made once before the first connection opens: no
    /// count of the memory it holds (a process-wide mutex at every allocation, which the writer,
    /// the checkpointer and the database thread otherwise take in turn; nothing reads the count).
    private static let configured: Bool = rocket_sqlite_skip_memory_count() == SQLITE_OK

    /// Bytes SQLite counts as held (0 while it does not count them: see ``configured``).
    package static var memoryCounted: Int64 {
        _ = configured
        return sqlite3_memory_used()
    }

    /// How long a statement has waited for another connection's lock after `tries` refusals,
    /// in microseconds: 100 µs a try for the first 2 ms, then a millisecond a try.
    ///
    /// SQLite's own busy timeout sleeps 1, 2, 5, 10, 15, 20, 25 … ms between tries: a lock held
    /// for 1.1 ms cost 3 ms, one held for 8.1 ms cost 18. The server's writer, waiting behind a
    /// checkpoint under load, woke up to 10 ms after it had let go, and every answer waiting for
    /// its commit with it.
    package static func waited(afterTries tries: Int32) -> Int {
        tries <= 20 ? Int(tries) * 100 : 2_000 + Int(tries - 20) * 1_000
    }

    /// Installs the waiting of ``waited(afterTries:)`` on `handle`, up to `timeout` milliseconds.
    private static func waitForLocks(_ handle: OpaquePointer, _ timeout: Int32) {
        // A C callback captures nothing: the limit in microseconds travels as the context
        // pointer's bits (plus one, so that a zero timeout is not a null pointer).
        let limit = UnsafeMutableRawPointer(bitPattern: Int(max(0, timeout)) * 1_000 + 1)
        sqlite3_busy_handler(
            handle,
            { context, tries in
                let limit = Int(bitPattern: context) - 1
                let waited = SQLiteDatabase.waited(afterTries: tries)
                guard waited < limit else { return 0 }
                usleep(UInt32(SQLiteDatabase.waited(afterTries: tries + 1) - waited))
                return 1
            }, limit)
    }

    /// Runs `body` with the connection, holding its lock: keep it to statements (no waiting on
    /// anything else, no caller's code).
    package func withConnection<T, E: Error>(_ body: (SQLiteConnection) throws(E) -> T) throws(E) -> T {
        let result: Result<T, E> = connection.withLock { c in
            do throws(E) { return .success(try body(c)) } catch { return .failure(error) }
        }
        return try result.get()
    }

    /// Runs `sql`, trying again while it is refused as busy, for as long as a statement waits
    /// for a lock (``busyTimeout``, with the pauses of ``waited(afterTries:)``). For what SQLite
    /// refuses at once instead of waiting: `PRAGMA journal_mode=WAL` on a new file that another
    /// process is setting up at the same moment (two processes opening a new store together;
    /// in a test of 200 such pairs, 16 ended with "database is locked").
    package func execWaitingForLocks(_ sql: String) throws(SQLiteError) {
        var tries: Int32 = 0
        while true {
            do throws(SQLiteError) {
                try withConnection { (c) throws(SQLiteError) in try c.exec(sql) }
                return
            } catch {
                guard error.isBusy, Self.waited(afterTries: tries) < Int(busyTimeout) * 1_000 else { throw error }
                usleep(UInt32(Self.waited(afterTries: tries + 1) - Self.waited(afterTries: tries)))
                tries += 1
            }
        }
    }

    /// True when the write-ahead log beside `path` holds changes (a reader that ignores it would
    /// see old or torn data).
    package static func writeAheadLogHoldsChanges(_ path: String) -> Bool {
        var wal = stat()
        return stat(path + "-wal", &wal) == 0 && wal.st_size > 0
    }

    /// Runs `body` in one transaction (`BEGIN IMMEDIATE` when it writes, `BEGIN` when it only
    /// reads): committed when it returns, rolled back when it throws.
    package func transaction<T>(reading: Bool = false, _ body: (SQLiteConnection) throws(SQLiteError) -> T) throws(SQLiteError) -> T {
        try withConnection { (c) throws(SQLiteError) -> T in try c.transaction(reading: reading, body) }
    }
}

/// One open connection: reached only through its database's lock (or while it is being set up).
package final class SQLiteConnection: @unchecked Sendable {
    /// The SQLite handle.
    package let handle: OpaquePointer
    /// Prepared statements by the address of their SQL literal: a lookup hashes a pointer.
    private var cache: [UnsafeRawPointer: OpaquePointer] = [:]

    init(handle: OpaquePointer) { self.handle = handle }

    deinit {
        for stmt in cache.values { sqlite3_finalize(stmt) }
        sqlite3_close(handle)
    }

    /// The connection's last error.
    /// For tests of a broken disk: the next `count` writes of this connection's write-ahead log
    /// fail (nothing written). False when it has no log opened through the VFS yet.
    package func failLogWrites(_ count: Int) -> Bool { rocket_sqlite_log_fail_writes(handle, Int32(count)) == SQLITE_OK }

    package func lastError(_ rc: Int32) -> SQLiteError { SQLiteError(code: rc, message: String(cString: sqlite3_errmsg(handle))) }

    /// Runs SQL text (several statements allowed), with no parameters.
    package func exec(_ sql: String) throws(SQLiteError) {
        var message: UnsafeMutablePointer<CChar>?
        let rc = sqlite3_exec(handle, sql, nil, nil, &message)
        if rc != SQLITE_OK {
            let text = message.map { String(cString: $0) } ?? String(cString: sqlite3_errmsg(handle))
            sqlite3_free(message)
            throw SQLiteError(code: rc, message: text)
        }
    }

    /// A prepared statement for a literal, kept for the connection's life.
    package func statement(_ sql: StaticString) throws(SQLiteError) -> SQLiteStatement {
        guard sql.hasPointerRepresentation else { return try statement(text: sql.description) }
        let key = UnsafeRawPointer(sql.utf8Start)
        if let stmt = cache[key] { return SQLiteStatement(connection: self, stmt: stmt, cached: true) }
        var s: OpaquePointer?
        let rc = sqlite3_prepare_v3(
            handle, key.assumingMemoryBound(to: CChar.self), Int32(sql.utf8CodeUnitCount), UInt32(SQLITE_PREPARE_PERSISTENT), &s, nil)
        guard rc == SQLITE_OK, let s else { throw lastError(rc) }
        cache[key] = s
        return SQLiteStatement(connection: self, stmt: s, cached: true)
    }

    /// A statement prepared from text made at run time (finalized by ``SQLiteStatement/finish()``).
    package func statement(text sql: String) throws(SQLiteError) -> SQLiteStatement {
        var s: OpaquePointer?
        let rc = sqlite3_prepare_v2(handle, sql, -1, &s, nil)
        guard rc == SQLITE_OK, let s else { throw lastError(rc) }
        return SQLiteStatement(connection: self, stmt: s, cached: false)
    }

    /// Runs one statement to its end.
    package func run(_ sql: StaticString, _ values: [SQLiteValue] = []) throws(SQLiteError) {
        let s = try statement(sql)
        defer { s.finish() }
        s.bind(values)
        while try s.step() {}
    }

    /// The first integer of a query (a pragma, a count); 0 for no row.
    package func integer(_ sql: String) throws(SQLiteError) -> Int {
        let s = try statement(text: sql)
        defer { s.finish() }
        return try s.step() ? s.int(0) : 0
    }

    /// The rowid of the last insert.
    package var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }
    /// Rows the last INSERT, UPDATE or DELETE changed.
    package var changes: Int { Int(sqlite3_changes(handle)) }

    /// ``SQLiteDatabase/transaction(reading:_:)`` on this connection.
    package func transaction<T>(reading: Bool = false, _ body: (SQLiteConnection) throws(SQLiteError) -> T) throws(SQLiteError) -> T {
        try run(reading ? "BEGIN" : "BEGIN IMMEDIATE")
        do throws(SQLiteError) {
            let value = try body(self)
            try run("COMMIT")
            return value
        } catch {
            _ = sqlite3_exec(handle, "ROLLBACK", nil, nil, nil)
            throw error
        }
    }
}

/// A prepared statement run step by step; cached ones are reset by ``finish()``, others finalized.
package struct SQLiteStatement {
    let connection: SQLiteConnection
    let stmt: OpaquePointer
    let cached: Bool

    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    /// Binds parameters 1, 2, … in order.
    package func bind(_ values: [SQLiteValue]) {
        for (i, v) in values.enumerated() {
            let k = Int32(i + 1)
            switch v {
            case .text(let s): Self.bindText(stmt, k, s)
            case .real(let d): sqlite3_bind_double(stmt, k, d)
            case .integer(let n): sqlite3_bind_int64(stmt, k, Int64(n))
            case .null: sqlite3_bind_null(stmt, k)
            }
        }
    }

    /// Binds `value` as text (copied by SQLite) from its UTF-8 storage, without making a C
    /// string first; the empty string stays text, not NULL.
    static func bindText(_ stmt: OpaquePointer, _ index: Int32, _ value: String) {
        var value = value
        value.withUTF8 { b in
            guard let base = b.baseAddress, b.count > 0 else {
                sqlite3_bind_text(stmt, index, "", 0, transient)
                return
            }
            sqlite3_bind_text(stmt, index, UnsafeRawPointer(base).assumingMemoryBound(to: CChar.self), Int32(clamping: b.count), transient)
        }
    }

    /// Steps; true when a row is ready.
    package func step() throws(SQLiteError) -> Bool {
        let rc = sqlite3_step(stmt)
        if rc == SQLITE_ROW { return true }
        if rc == SQLITE_DONE { return false }
        throw connection.lastError(rc)
    }

    /// Column `i` as a number, or nil for NULL.
    package func double(_ i: Int32) -> Double? { sqlite3_column_type(stmt, i) == SQLITE_NULL ? nil : sqlite3_column_double(stmt, i) }
    /// Column `i` as a whole number.
    package func int(_ i: Int32) -> Int { Int(sqlite3_column_int64(stmt, i)) }
    /// Column `i` as text ("" for NULL).
    package func text(_ i: Int32) -> String { sqlite3_column_text(stmt, i).map { String(cString: $0) } ?? "" }

    /// Done with this run: a cached statement is reset (every run binds all its parameters
    /// again), another is finalized.
    package func finish() {
        if cached { sqlite3_reset(stmt) } else { sqlite3_finalize(stmt) }
    }
}

/// A schema kept by `PRAGMA application_id` and `PRAGMA user_version`, brought up to date by
/// one list of migrations (step `k` takes version `k` to `k + 1`).
package struct SQLiteSchema: Sendable {
    /// What a file's schema says about it.
    package enum Mismatch: Error, Sendable {
        /// Another program's database.
        case foreign
        /// Written by a newer version of this program.
        case newer(version: Int)
        /// Older, and the file is opened read only (it cannot be migrated).
        case older(version: Int)
        /// SQLite refused.
        case sqlite(SQLiteError)
    }

    /// The application id files of this schema carry.
    package let applicationID: Int32
    /// The migrations, in order.
    package let migrations: [String]

    package init(applicationID: Int32, migrations: [String]) {
        self.applicationID = applicationID
        self.migrations = migrations
    }

    /// The version the newest migration gives.
    package var version: Int { migrations.count }

    /// Brings the file up to ``version`` in one transaction, refusing foreign files and newer
    /// schemas (an empty file is new).
    package func migrate(_ c: SQLiteConnection, to target: Int? = nil) throws(Mismatch) {
        let target = target ?? version
        func sql<T>(_ body: () throws(SQLiteError) -> T) throws(Mismatch) -> T {
            do throws(SQLiteError) { return try body() } catch { throw .sqlite(error) }
        }
        try sql { () throws(SQLiteError) in try c.run("BEGIN IMMEDIATE") }
        do throws(Mismatch) {
            let app = try sql { () throws(SQLiteError) in try c.integer("PRAGMA application_id") }
            let current = try sql { () throws(SQLiteError) in try c.integer("PRAGMA user_version") }
            // Changes with any table: 0 for an empty file.
            let tables = try sql { () throws(SQLiteError) in try c.integer("PRAGMA schema_version") }
            if app != Int(applicationID) && !(app == 0 && tables == 0) { throw .foreign }
            if current > target { throw .newer(version: current) }
            if current < target {
                for step in current..<target { try sql { () throws(SQLiteError) in try c.exec(migrations[step]) } }
                try sql { () throws(SQLiteError) in try c.exec("PRAGMA application_id=\(applicationID); PRAGMA user_version=\(target)") }
            }
            try sql { () throws(SQLiteError) in try c.run("COMMIT") }
        } catch {
            _ = try? c.exec("ROLLBACK")
            throw error
        }
    }

    /// Checks a file opened read only: this schema, at a version from `oldest` (whose tables
    /// the reader needs) to this one.
    package func check(_ c: SQLiteConnection, oldest: Int? = nil) throws(Mismatch) {
        let app: Int, current: Int
        do {
            app = try c.integer("PRAGMA application_id")
            current = try c.integer("PRAGMA user_version")
            // Reading a WAL database needs its shared-memory file: fail here where it cannot be made.
            _ = try c.integer("PRAGMA page_count")
        } catch {
            throw .sqlite(error)
        }
        if app != Int(applicationID) { throw .foreign }
        if current > version { throw .newer(version: current) }
        if current < (oldest ?? version) { throw .older(version: current) }
    }
}
