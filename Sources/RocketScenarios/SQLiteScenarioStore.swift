import CSQLite
import Synchronization
#if canImport(Glibc)
    import Glibc
#endif

/// Statistics in an SQLite database (the system's libsqlite3): WAL journal, one transaction per
/// operation, exact when several processes use the same file at once, a schema version with
/// migrations. The default store of the `rocket` command.
///
/// Durability: with `.normal` (the default) a committed operation survives the process being
/// killed at any moment; `.full` also survives power loss, at the cost of an fsync per operation.
/// A foreign or corrupt file, a read-only location or a full disk is a ``ScenarioStoreError``;
/// nothing is changed when one is thrown.
///
/// ```swift
/// let store = try SQLiteScenarioStore(path: "/tmp/scenarios.sqlite")
/// try store.triggerEvent("app-launch", at: now)
/// ```
public final class SQLiteScenarioStore: ScenarioStore {
    /// How hard a commit waits for the disk.
    public enum Synchronous: String, Sendable {
        /// Safe against the process being killed (the OS has the data); no fsync per commit.
        case normal = "NORMAL"
        /// Safe against power loss too: an fsync per commit.
        case full = "FULL"
    }

    /// The schema this code writes.
    public static let schemaVersion = 3
    /// `PRAGMA application_id` of rocket stores ("ROCK"), so a foreign database is recognised.
    public static let applicationID: Int32 = 0x524F_434B

    /// The file.
    public let path: String
    /// The connection and its prepared statements. `@unchecked`: it is only ever reached through
    /// the store's `Mutex`, so one operation at a time uses it.
    final class Connection: @unchecked Sendable {
        let handle: OpaquePointer
        /// Prepared statements by the address of their SQL literal: a lookup hashes a pointer,
        /// not the text of the statement.
        var cache: [UnsafeRawPointer: OpaquePointer] = [:]
        init(handle: OpaquePointer) { self.handle = handle }
        deinit {
            for stmt in cache.values { sqlite3_finalize(stmt) }
            sqlite3_close(handle)
        }
    }
    private let connection: Mutex<Connection>
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    /// Opens (creating when missing) a store.
    public init(path: String, synchronous: Synchronous = .normal) throws(ScenarioStoreError) {
        self.path = path
        var handle: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        let rc = sqlite3_open_v2(path, &handle, flags, nil)
        guard rc == SQLITE_OK, let handle else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close(handle)
            throw Self.error(rc, "cannot open \(path): \(message)", path: path)
        }
        sqlite3_busy_timeout(handle, 15_000)
        do throws(ScenarioStoreError) {
            // Small pages for a new file: a commit writes (and checksums) whole pages to the WAL,
            // and an operation changes a few rows. Ignored for an existing file.
            try Self.exec(handle, "PRAGMA page_size=1024", path: path)
            try Self.exec(handle, "PRAGMA journal_mode=WAL", path: path)
            try Self.exec(handle, "PRAGMA synchronous=\(synchronous.rawValue)", path: path)
            try Self.migrate(handle, path: path)
        } catch {
            sqlite3_close(handle)
            throw error
        }
        connection = Mutex(Connection(handle: handle))
    }

    /// Opens an existing store for reading only: nothing is written, so a store on a read-only
    /// file, folder or file system can still be read (`rocket scenario status` and `export`).
    /// A file written by an older rocket must be opened once with write access (to migrate).
    public init(readingOnly path: String) throws(ScenarioStoreError) {
        self.path = path
        func open(_ name: String, _ extra: Int32) -> (Int32, OpaquePointer?) {
            var handle: OpaquePointer?
            let rc = sqlite3_open_v2(name, &handle, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX | extra, nil)
            return (rc, handle)
        }
        func check(_ handle: OpaquePointer) throws(ScenarioStoreError) {
            let app = try Self.pragmaInt(handle, "application_id", path: path)
            let version = try Self.pragmaInt(handle, "user_version", path: path)
            if app != Int(Self.applicationID) {
                throw ScenarioStoreError(.foreign, "\(path) is not a rocket scenario store")
            }
            if version > Self.schemaVersion {
                throw ScenarioStoreError(.newerSchema, "\(path) was written by a newer rocket (schema \(version); this one reads up to \(Self.schemaVersion))")
            }
            if version < Self.schemaVersion {
                throw ScenarioStoreError(.readOnly, "\(path) was written by an older rocket; open it once with write access to update it")
            }
            // Reading a WAL database needs its shared-memory file; where that cannot be made, fail
            // here so the caller can fall back to reading the file as immutable.
            _ = try Self.pragmaInt(handle, "page_count", path: path)
        }
        var (rc, handle) = open(path, 0)
        var opened: OpaquePointer?
        if rc == SQLITE_OK, let h = handle {
            // Writers may hold the lock for a moment (a checkpoint): wait for them, as a writer does.
            sqlite3_busy_timeout(h, 5000)
            do throws(ScenarioStoreError) {
                try check(h)
                opened = h
            } catch {
                sqlite3_close(h)
                if error.kind != .readOnly && error.kind != .io { throw error }
            }
        } else {
            sqlite3_close(handle)
        }
        if opened == nil {
            // Read as immutable only when no write-ahead log holds changes: SQLite would ignore it
            // and show old or torn data (with writers running, "database disk image is malformed").
            var wal = stat()
            if stat(path + "-wal", &wal) == 0, wal.st_size > 0 {
                throw ScenarioStoreError(
                    .readOnly,
                    "cannot read \(path) as it is now: its write-ahead log holds changes, and this user cannot open its shared memory (read it with write access to its folder)"
                )
            }
            // A read-only folder or file system: read the file as it is, without the WAL's shared memory.
            var escaped = "file:"
            for ch in path.unicodeScalars {
                switch ch {
                case "?", "#", "%": escaped += "%" + String(ch.value, radix: 16, uppercase: true)
                default: escaped.unicodeScalars.append(ch)
                }
            }
            (rc, handle) = open(escaped + "?immutable=1", SQLITE_OPEN_URI)
            guard rc == SQLITE_OK, let h = handle else {
                let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
                sqlite3_close(handle)
                throw Self.error(rc, "cannot open \(path): \(message)", path: path)
            }
            do throws(ScenarioStoreError) { try check(h) } catch {
                sqlite3_close(h)
                throw error
            }
            opened = h
        }
        guard let opened else { throw ScenarioStoreError(.io, "cannot open \(path)") }
        sqlite3_busy_timeout(opened, 15_000)
        connection = Mutex(Connection(handle: opened))
    }

    // MARK: Errors

    static func error(_ rc: Int32, _ message: String, path: String) -> ScenarioStoreError {
        switch rc & 0xFF {
        case SQLITE_READONLY, SQLITE_PERM, SQLITE_CANTOPEN, SQLITE_AUTH:
            return ScenarioStoreError(.readOnly, "the store \(path) cannot be written: \(message)")
        case SQLITE_FULL: return ScenarioStoreError(.full, "the disk of \(path) is full: \(message)")
        case SQLITE_NOTADB: return ScenarioStoreError(.foreign, "\(path) is not a rocket scenario store (not an SQLite database)")
        case SQLITE_CORRUPT: return ScenarioStoreError(.corrupt, "\(path) is corrupt: \(message)")
        case SQLITE_BUSY, SQLITE_LOCKED: return ScenarioStoreError(.busy, "the store \(path) stayed locked by another process: \(message)")
        default: return ScenarioStoreError(.io, "the store \(path): \(message)")
        }
    }

    private static func exec(_ db: OpaquePointer, _ sql: String, path: String) throws(ScenarioStoreError) {
        var message: UnsafeMutablePointer<CChar>?
        let rc = sqlite3_exec(db, sql, nil, nil, &message)
        if rc != SQLITE_OK {
            let text = message.map { String(cString: $0) } ?? String(cString: sqlite3_errmsg(db))
            sqlite3_free(message)
            throw error(rc, text, path: path)
        }
    }

    // MARK: Statements

    /// A prepared statement run step by step; cached ones are reset instead of finalized.
    private struct Statement {
        let db: OpaquePointer
        let stmt: OpaquePointer
        let path: String
        let cached: Bool

        init(_ db: OpaquePointer, _ sql: String, path: String) throws(ScenarioStoreError) {
            var s: OpaquePointer?
            let rc = sqlite3_prepare_v2(db, sql, -1, &s, nil)
            guard rc == SQLITE_OK, let s else { throw SQLiteScenarioStore.error(rc, String(cString: sqlite3_errmsg(db)), path: path) }
            self.init(db: db, stmt: s, path: path, cached: false)
        }

        init(db: OpaquePointer, stmt: OpaquePointer, path: String, cached: Bool) {
            self.db = db
            self.stmt = stmt
            self.path = path
            self.cached = cached
        }

        func bind(_ values: [SQLValue]) {
            for (i, v) in values.enumerated() {
                let k = Int32(i + 1)
                switch v {
                case .text(let s): SQLiteScenarioStore.bindText(stmt, k, s)
                case .real(let d): sqlite3_bind_double(stmt, k, d)
                case .integer(let n): sqlite3_bind_int64(stmt, k, Int64(n))
                case .null: sqlite3_bind_null(stmt, k)
                }
            }
        }

        /// Steps; true when a row is ready.
        func step() throws(ScenarioStoreError) -> Bool {
            let rc = sqlite3_step(stmt)
            if rc == SQLITE_ROW { return true }
            if rc == SQLITE_DONE { return false }
            throw SQLiteScenarioStore.error(rc, String(cString: sqlite3_errmsg(db)), path: path)
        }

        func double(_ i: Int32) -> Double? { sqlite3_column_type(stmt, i) == SQLITE_NULL ? nil : sqlite3_column_double(stmt, i) }
        func int(_ i: Int32) -> Int { Int(sqlite3_column_int64(stmt, i)) }
        func text(_ i: Int32) -> String { sqlite3_column_text(stmt, i).map { String(cString: $0) } ?? "" }
        func finalize() {
            if cached {
                sqlite3_reset(stmt)  // every run binds all its parameters again
            } else {
                sqlite3_finalize(stmt)
            }
        }
    }

    /// A cached prepared statement for `sql`, a literal (callers hold `lock`).
    private func prepared(_ db: Connection, _ sql: StaticString) throws(ScenarioStoreError) -> Statement {
        guard sql.hasPointerRepresentation else { return try Statement(db.handle, sql.description, path: path) }
        let key = UnsafeRawPointer(sql.utf8Start)
        if let stmt = db.cache[key] { return Statement(db: db.handle, stmt: stmt, path: path, cached: true) }
        var s: OpaquePointer?
        let rc = sqlite3_prepare_v3(
            db.handle, key.assumingMemoryBound(to: CChar.self), Int32(sql.utf8CodeUnitCount), UInt32(SQLITE_PREPARE_PERSISTENT), &s, nil)
        guard rc == SQLITE_OK, let s else { throw Self.error(rc, String(cString: sqlite3_errmsg(db.handle)), path: path) }
        db.cache[key] = s
        return Statement(db: db.handle, stmt: s, path: path, cached: true)
    }

    /// Binds `value` as text (copied by SQLite) from its UTF-8 storage, without making a C
    /// string first; the empty string stays text, not NULL.
    package static func bindText(_ stmt: OpaquePointer, _ index: Int32, _ value: String) {
        var value = value
        value.withUTF8 { b in
            guard let base = b.baseAddress, b.count > 0 else {
                sqlite3_bind_text(stmt, index, "", 0, transient)
                return
            }
            sqlite3_bind_text(stmt, index, UnsafeRawPointer(base).assumingMemoryBound(to: CChar.self), Int32(clamping: b.count), transient)
        }
    }

    /// A value bound to a statement parameter.
    enum SQLValue: ExpressibleByStringLiteral {
        case text(String), real(Double), integer(Int), null
        init(stringLiteral value: String) { self = .text(value) }
        static func optional(_ d: Double?) -> SQLValue { d.map { .real($0) } ?? .null }
    }

    private func run(_ db: Connection, _ sql: StaticString, _ values: [SQLValue] = []) throws(ScenarioStoreError) {
        let s = try prepared(db, sql)
        defer { s.finalize() }
        s.bind(values)
        while try s.step() {}
    }

    /// Runs `body` in one `BEGIN IMMEDIATE` transaction: committed when it returns, rolled back
    /// when it throws.
    private func transaction<T>(reading: Bool = false, _ body: (Connection) throws(ScenarioStoreError) -> T) throws(ScenarioStoreError) -> T {
        let result: Result<T, ScenarioStoreError> = connection.withLock { db in
            do throws(ScenarioStoreError) {
                try run(db, reading ? "BEGIN" : "BEGIN IMMEDIATE")
                let value = try body(db)
                try run(db, "COMMIT")
                return .success(value)
            } catch {
                _ = sqlite3_exec(db.handle, "ROLLBACK", nil, nil, nil)
                return .failure(error)
            }
        }
        return try result.get()
    }

    // MARK: Schema

    /// Each step brings the schema from version `index` to `index + 1`.
    static let migrations: [String] = [
        // 0 → 1: WaitForIt's statistics.
        """
        CREATE TABLE scenarios (name TEXT PRIMARY KEY NOT NULL, events_count INTEGER NOT NULL DEFAULT 0,
          executions_count INTEGER NOT NULL DEFAULT 0, first_event REAL, last_event REAL, last_execution REAL);
        """,
        // 1 → 2: event times (windows) and executions across scenarios (budgets).
        """
        CREATE TABLE events (scenario TEXT NOT NULL, at REAL NOT NULL);
        CREATE INDEX events_by_scenario ON events (scenario, at);
        CREATE TABLE executions (scenario TEXT NOT NULL, at REAL NOT NULL);
        CREATE INDEX executions_by_time ON executions (at);
        """,
        // 2 → 3: one b-tree per table (an operation writes fewer pages): statistics and events
        // keyed by name, executions in insertion order without an index (at most 1000 rows).
        """
        CREATE TABLE scenarios3 (name TEXT PRIMARY KEY NOT NULL, events_count INTEGER NOT NULL DEFAULT 0,
          executions_count INTEGER NOT NULL DEFAULT 0, first_event REAL, last_event REAL, last_execution REAL) WITHOUT ROWID;
        INSERT INTO scenarios3 SELECT name, events_count, executions_count, first_event, last_event, last_execution FROM scenarios;
        DROP TABLE scenarios;
        ALTER TABLE scenarios3 RENAME TO scenarios;
        CREATE TABLE events3 (scenario TEXT NOT NULL, seq INTEGER NOT NULL, at REAL NOT NULL, PRIMARY KEY (scenario, seq)) WITHOUT ROWID;
        INSERT INTO events3 (scenario, seq, at) SELECT scenario, rowid, at FROM events;
        DROP TABLE events;
        ALTER TABLE events3 RENAME TO events;
        CREATE TABLE executions3 (seq INTEGER PRIMARY KEY, scenario TEXT NOT NULL, at REAL NOT NULL);
        INSERT INTO executions3 (scenario, at) SELECT scenario, at FROM executions ORDER BY rowid;
        DROP TABLE executions;
        ALTER TABLE executions3 RENAME TO executions;
        """,
    ]

    private static func pragmaInt(_ db: OpaquePointer, _ name: String, path: String) throws(ScenarioStoreError) -> Int {
        let s = try Statement(db, "PRAGMA \(name)", path: path)
        defer { s.finalize() }
        return try s.step() ? s.int(0) : 0
    }

    /// Brings the schema to ``schemaVersion``, refusing foreign files and newer schemas.
    private static func migrate(_ handle: OpaquePointer, path: String, to target: Int = SQLiteScenarioStore.schemaVersion) throws(ScenarioStoreError) {
        try Self.exec(handle, "BEGIN IMMEDIATE", path: path)
        do throws(ScenarioStoreError) {
            let app = try pragmaInt(handle, "application_id", path: path)
            let version = try pragmaInt(handle, "user_version", path: path)
            let tables = try pragmaInt(handle, "schema_version", path: path)  // changes with any table: 0 for an empty file
            if app != Int(Self.applicationID) && !(app == 0 && tables == 0) {
                throw ScenarioStoreError(.foreign, "\(path) is an SQLite database of another program, not a rocket scenario store")
            }
            if version > target {
                throw ScenarioStoreError(.newerSchema, "\(path) was written by a newer rocket (schema \(version); this one reads up to \(target))")
            }
            if version < target {
                for step in version..<target { try Self.exec(handle, Self.migrations[step], path: path) }
                try Self.exec(handle, "PRAGMA application_id=\(Self.applicationID); PRAGMA user_version=\(target)", path: path)
            }
            try Self.exec(handle, "COMMIT", path: path)
        } catch {
            _ = sqlite3_exec(handle, "ROLLBACK", nil, nil, nil)
            throw error
        }
    }

    /// Opens a store at an older schema version (for migration tests).
    static func create(path: String, schemaVersion: Int) throws(ScenarioStoreError) {
        var handle: OpaquePointer?
        guard sqlite3_open(path, &handle) == SQLITE_OK, let handle else { throw ScenarioStoreError(.io, "cannot open \(path)") }
        defer { sqlite3_close(handle) }
        for step in 0..<schemaVersion { try exec(handle, migrations[step], path: path) }
        try exec(handle, "PRAGMA application_id=\(applicationID); PRAGMA user_version=\(schemaVersion)", path: path)
    }

    // MARK: Test hooks (internal)

    /// Runs SQL on this connection (tests: limits, failures).
    func execForTesting(_ sql: String) throws(ScenarioStoreError) {
        try connection.withLock { db throws(ScenarioStoreError) in try Self.exec(db.handle, sql, path: path) }
    }

    /// The database's current size in pages.
    func pageCountForTesting() throws(ScenarioStoreError) -> Int {
        try connection.withLock { db throws(ScenarioStoreError) in try Self.pragmaInt(db.handle, "page_count", path: path) }
    }

    /// Runs SQL on a file without the store's checks (tests: foreign and older files).
    static func rawExec(path: String, _ sql: String) throws(ScenarioStoreError) {
        var h: OpaquePointer?
        guard sqlite3_open(path, &h) == SQLITE_OK, let h else { throw ScenarioStoreError(.io, "cannot open \(path)") }
        defer { sqlite3_close(h) }
        try exec(h, sql, path: path)
    }

    /// The first integer a query returns (tests).
    static func rawInt(path: String, _ sql: String) throws(ScenarioStoreError) -> Int {
        var h: OpaquePointer?
        guard sqlite3_open(path, &h) == SQLITE_OK, let h else { throw ScenarioStoreError(.io, "cannot open \(path)") }
        defer { sqlite3_close(h) }
        let s = try Statement(h, sql, path: path)
        defer { s.finalize() }
        return try s.step() ? s.int(0) : 0
    }

    // MARK: Operations

    private func read(_ db: Connection, _ name: String, events: Bool) throws(ScenarioStoreError) -> ScenarioStats {
        var stats = ScenarioStats()
        let s = try prepared(db, "SELECT events_count, executions_count, first_event, last_event, last_execution FROM scenarios WHERE name = ?")
        s.bind([.text(name)])
        if try s.step() {
            stats = ScenarioStats(
                eventsCount: s.int(0), executionsCount: s.int(1), firstEventDate: s.double(2),
                lastEventDate: s.double(3), lastExecutionDate: s.double(4))
        }
        s.finalize()
        if events {
            let e = try prepared(db, "SELECT at FROM events WHERE scenario = ? ORDER BY seq DESC LIMIT ?")
            defer { e.finalize() }
            e.bind([.text(name), .integer(ScenarioStats.recentLimit)])
            while try e.step() { stats.recentEvents.append(e.double(0) ?? 0) }
            stats.recentEvents.reverse()
        }
        return stats
    }

    public func triggerEvent(_ name: String, at now: Double) throws(ScenarioStoreError) {
        try transaction { (db) throws(ScenarioStoreError) in
            try run(
                db,
                """
                INSERT INTO scenarios (name, events_count, first_event, last_event) VALUES (?1, 1, ?2, ?2)
                ON CONFLICT(name) DO UPDATE SET events_count = events_count + 1,
                  first_event = COALESCE(first_event, excluded.first_event), last_event = excluded.last_event
                """, [.text(name), .real(now)])
            let insert = try prepared(
                db,
                """
                INSERT INTO events (scenario, seq, at)
                VALUES (?1, (SELECT COALESCE(MAX(seq), 0) + 1 FROM events WHERE scenario = ?1), ?2) RETURNING seq
                """)
            insert.bind([.text(name), .real(now)])
            let seq = try insert.step() ? insert.int(0) : 0
            while try insert.step() {}
            insert.finalize()
            // Keep the most recent events only (checked every 100 inserts to stay cheap).
            if seq % 100 == 0 {
                try run(db, "DELETE FROM events WHERE scenario = ? AND seq <= ?", [.text(name), .integer(seq - ScenarioStats.recentLimit)])
            }
        }
    }

    public func tryExecute(
        _ name: String, at now: Double, rules: ScenarioRules,
        decide: (ScenarioStats, [Double]) -> Bool
    ) throws(ScenarioStoreError) -> Bool {
        try transaction { (db) throws(ScenarioStoreError) -> Bool in
            let stats = try read(db, name, events: rules.minEventsInWindow != nil)
            var executions: [Double] = []
            if let budget = rules.budget {
                let s = try prepared(db, "SELECT at FROM executions WHERE at > ? ORDER BY at")
                defer { s.finalize() }
                s.bind([.real(now - budget.seconds)])
                while try s.step() { executions.append(s.double(0) ?? 0) }
            }
            guard decide(stats, executions) else { return false }
            try run(
                db,
                """
                INSERT INTO scenarios (name, executions_count, last_execution) VALUES (?1, 1, ?2)
                ON CONFLICT(name) DO UPDATE SET executions_count = executions_count + 1, last_execution = excluded.last_execution
                """, [.text(name), .real(now)])
            try run(db, "INSERT INTO executions (scenario, at) VALUES (?, ?)", [.text(name), .real(now)])
            if sqlite3_last_insert_rowid(db.handle) % 100 == 0 {
                try run(
                    db, "DELETE FROM executions WHERE rowid <= (SELECT rowid FROM executions ORDER BY rowid DESC LIMIT 1 OFFSET ?)",
                    [.integer(ScenarioSnapshot.executionLimit)])
            }
            return true
        }
    }

    public func stats(_ name: String) throws(ScenarioStoreError) -> ScenarioStats {
        try transaction(reading: true) { (db) throws(ScenarioStoreError) in try read(db, name, events: true) }
    }

    public func reset(_ name: String) throws(ScenarioStoreError) {
        try transaction { (db) throws(ScenarioStoreError) in
            try run(db, "DELETE FROM scenarios WHERE name = ?", [.text(name)])
            try run(db, "DELETE FROM events WHERE scenario = ?", [.text(name)])
            try run(db, "DELETE FROM executions WHERE scenario = ?", [.text(name)])
        }
    }

    public func resetAll() throws(ScenarioStoreError) {
        try transaction { (db) throws(ScenarioStoreError) in
            try run(db, "DELETE FROM scenarios")
            try run(db, "DELETE FROM events")
            try run(db, "DELETE FROM executions")
        }
    }

    /// The names of every scenario with statistics.
    public func names() throws(ScenarioStoreError) -> [String] {
        try transaction(reading: true) { (db) throws(ScenarioStoreError) in
            let s = try Statement(db.handle, "SELECT name FROM scenarios ORDER BY name", path: path)
            defer { s.finalize() }
            var out: [String] = []
            while try s.step() { out.append(s.text(0)) }
            return out
        }
    }

    public func snapshot() throws(ScenarioStoreError) -> ScenarioSnapshot {
        try transaction(reading: true) { (db) throws(ScenarioStoreError) in
            let s = try Statement(db.handle, "SELECT name FROM scenarios ORDER BY name", path: path)
            var names: [String] = []
            while try s.step() { names.append(s.text(0)) }
            s.finalize()
            var all: [String: ScenarioStats] = [:]
            for n in names { all[n] = try read(db, n, events: true) }
            // The budget log keeps the newest `executionLimit` executions (rows past it wait for the
            // next trim): what is exported is what a store holds, so an import takes it back.
            let e = try Statement(
                db.handle, "SELECT scenario, at FROM (SELECT rowid AS r, scenario, at FROM executions ORDER BY rowid DESC LIMIT ?) ORDER BY r",
                path: path)
            defer { e.finalize() }
            e.bind([.integer(ScenarioSnapshot.executionLimit)])
            var executions: [ScenarioSnapshot.Execution] = []
            while try e.step() { executions.append(.init(scenario: e.text(0), at: e.double(1) ?? 0)) }
            return ScenarioSnapshot(scenarios: all, executions: executions)
        }
    }

    public func restore(_ snapshot: ScenarioSnapshot) throws(ScenarioStoreError) {
        try transaction { (db) throws(ScenarioStoreError) in
            try run(db, "DELETE FROM scenarios")
            try run(db, "DELETE FROM events")
            try run(db, "DELETE FROM executions")
            for (name, entry) in snapshot.scenarios {
                try run(
                    db, "INSERT INTO scenarios VALUES (?, ?, ?, ?, ?, ?)",
                    [
                        .text(name), .integer(entry.eventsCount), .integer(entry.executionsCount), .optional(entry.firstEventDate),
                        .optional(entry.lastEventDate), .optional(entry.lastExecutionDate),
                    ])
                for (k, at) in entry.recentEvents.enumerated() {
                    try run(db, "INSERT INTO events (scenario, seq, at) VALUES (?, ?, ?)", [.text(name), .integer(k + 1), .real(at)])
                }
            }
            for e in snapshot.executions { try run(db, "INSERT INTO executions (scenario, at) VALUES (?, ?)", [.text(e.scenario), .real(e.at)]) }
        }
    }
}
