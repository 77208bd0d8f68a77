public import RocketScenarioEngine
import RocketCore
package import RocketSQLite

/// Statistics in an SQLite database (the system's libsqlite3, through RocketSQLite): WAL journal,
/// one transaction per operation, exact when several processes use the same file at once, a
/// schema version with migrations. The default store of the `rocket` command; `rocket serve`
/// keeps its conversations in the same file (its schema holds every table).
///
/// Durability: with `.normal` (the default) a committed operation survives the process being
/// killed at any moment; `.full` also survives power loss, at the cost of an fsync per operation.
/// A foreign or corrupt file, a read-only location or a full disk is a `ScenarioStoreError`;
/// nothing is changed when one is thrown.
///
/// ```swift
/// let store = try SQLiteScenarioStore(path: "/tmp/scenarios.sqlite")
/// try store.triggerEvent("app-launch", at: now)
/// ```
public final class SQLiteScenarioStore: ScenarioStore, VisitorStore {
    /// How hard a commit waits for the disk.
    public enum Synchronous: String, Sendable {
        /// Safe against the process being killed (the OS has the data); no fsync per commit.
        case normal = "NORMAL"
        /// Safe against power loss too: an fsync per commit.
        case full = "FULL"
    }

    /// The schema this code writes.
    public static var schemaVersion: Int { storeSchema.version }
    /// The oldest schema read without migrating it (its scenario tables are this one's).
    static let oldestReadable = 3
    /// `PRAGMA application_id` of rocket stores ("ROCK"), so a foreign database is recognised.
    public static let applicationID: Int32 = 0x524F_434B

    /// The file.
    public let path: String
    /// The connection (RocketSQLite: statements cached, one operation at a time).
    package let database: SQLiteDatabase

    /// Writes a consistent copy of the whole store (scenario statistics, and a server's
    /// conversations, results and settings, as one moment saw them while writers go on) into
    /// the empty file `path`, and checks that it reads back whole. ``interrupt()`` from another
    /// thread stops it (an error then).
    package func copy(into path: String) throws(ScenarioStoreError) {
        do throws(SQLiteError) {
            try database.copy(into: path)
        } catch {
            // Either file may be the cause: the message names both.
            if error.isFull { throw ScenarioStoreError(.full, "the disk of \(path) is full: \(error.message)") }
            throw ScenarioStoreError(error.isCorrupt ? .corrupt : .io, "cannot copy \(self.path) to \(path): \(error.message)")
        }
    }

    /// Stops a ``copy(into:)`` under way, from any thread.
    package func interrupt() { database.interrupt() }

    /// The page size of a new file made for scenario statistics: an operation changes a few short
    /// rows, and a commit writes (and checksums) whole pages to the log, so small pages write least.
    public static let statisticsPageSize = 1024

    /// Opens (creating when missing) a store, migrating it to the newest schema. A new file gets
    /// pages of `pageSize` bytes (a power of two from 512 to 65,536; SQLite ignores any other
    /// value); an existing file keeps the size it was made with.
    public init(path: String, synchronous: Synchronous = .normal, pageSize: Int = statisticsPageSize) throws(ScenarioStoreError) {
        self.path = path
        do throws(SQLiteError) {
            database = try SQLiteDatabase(path: path, mode: .readWrite)
        } catch {
            throw Self.error(error, "cannot open \(path)", path: path)
        }
        do throws(SQLiteError) {
            // Ignored by SQLite for an existing file (and for a size that is not a page size).
            try database.withConnection { (c) throws(SQLiteError) in try c.exec("PRAGMA page_size=\(pageSize)") }
            // Refused at once, not waited for, while another process sets up the same new file.
            try database.execWaitingForLocks("PRAGMA journal_mode=WAL")
            try database.withConnection { (c) throws(SQLiteError) in try c.exec("PRAGMA synchronous=\(synchronous.rawValue)") }
        } catch {
            throw Self.error(error, path: path)
        }
        try Self.migrate(database, path: path)
    }

    /// Opens an existing store for reading only: nothing is written, so a store on a read-only
    /// file, folder or file system can still be read (`rocket scenario status` and `export`).
    /// A file written by a rocket older than schema 3 must be opened once with write access (to
    /// migrate).
    public init(readingOnly path: String) throws(ScenarioStoreError) {
        self.path = path
        func check(_ db: SQLiteDatabase) throws(ScenarioStoreError) {
            do throws(SQLiteSchema.Mismatch) {
                try db.withConnection { (c) throws(SQLiteSchema.Mismatch) in try storeSchema.check(c, oldest: Self.oldestReadable) }
            } catch {
                throw Self.error(error, path: path)
            }
        }
        var opened: SQLiteDatabase?
        // Writers may hold the lock for a moment (a checkpoint): wait for them, as a writer does.
        if let db = try? SQLiteDatabase(path: path, mode: .readOnly, busyTimeout: 5000) {
            do throws(ScenarioStoreError) {
                try check(db)
                opened = db
            } catch {
                if error.kind != .readOnly && error.kind != .io { throw error }
            }
        }
        if opened == nil {
            // Read as immutable only when no write-ahead log holds changes: SQLite would ignore it
            // and show old or torn data (with writers running, "database disk image is malformed").
            if SQLiteDatabase.writeAheadLogHoldsChanges(path) {
                throw ScenarioStoreError(
                    .readOnly,
                    "cannot read \(path) as it is now: its write-ahead log holds changes, and this user cannot open its shared memory (read it with write access to its folder)"
                )
            }
            // A read-only folder or file system: read the file as it is, without the WAL's shared memory.
            let db: SQLiteDatabase
            do throws(SQLiteError) {
                db = try SQLiteDatabase(path: path, mode: .immutable)
            } catch {
                throw Self.error(error, "cannot open \(path)", path: path, reading: true)
            }
            try check(db)
            opened = db
        }
        guard let opened else { throw ScenarioStoreError(.io, "cannot open \(path)") }
        database = opened
    }

    /// The schema version the file holds (`PRAGMA user_version`; older than ``schemaVersion``
    /// in a store opened for reading that a start would migrate).
    package var storedSchemaVersion: Int {
        get throws(ScenarioStoreError) {
            do throws(SQLiteError) {
                return try database.withConnection { (c) throws(SQLiteError) in try c.integer("PRAGMA user_version") }
            } catch {
                throw Self.error(error, path: path, reading: true)
            }
        }
    }

    // MARK: Errors

    /// A store error for what SQLite refused (`context` says what was being done).
    /// `reading`: it was opened for reading only, so what failed is reading it.
    static func error(_ e: SQLiteError, _ context: String = "", path: String, reading: Bool = false) -> ScenarioStoreError {
        let message = context.isEmpty ? e.message : context + ": " + e.message
        if e.isReadOnly { return ScenarioStoreError(.readOnly, "the store \(path) cannot be \(reading ? "read" : "written"): \(message)") }
        if e.isFull { return ScenarioStoreError(.full, "the disk of \(path) is full: \(message)") }
        if e.isNotADatabase { return ScenarioStoreError(.foreign, "\(path) is not a rocket scenario store (not an SQLite database)") }
        if e.isCorrupt { return ScenarioStoreError(.corrupt, "\(path) is corrupt: \(message)") }
        if e.isBusy { return ScenarioStoreError(.busy, "the store \(path) stayed locked by another process: \(message)") }
        return ScenarioStoreError(.io, "the store \(path): \(message)")
    }

    /// A store error for a file whose schema is not this one's.
    static func error(_ m: SQLiteSchema.Mismatch, path: String) -> ScenarioStoreError {
        switch m {
        case .foreign: return ScenarioStoreError(.foreign, "\(path) is an SQLite database of another program, not a rocket scenario store")
        case .newer(let v):
            return ScenarioStoreError(.newerSchema, "\(path) was written by a newer rocket (schema \(v); this one reads up to \(schemaVersion))")
        case .older:
            return ScenarioStoreError(.readOnly, "\(path) was written by an older rocket; open it once with write access to update it")
        case .sqlite(let e): return error(e, path: path)
        }
    }

    /// Runs `body` in one transaction; SQLite's errors become store errors.
    private func transaction<T>(reading: Bool = false, _ body: (SQLiteConnection) throws(SQLiteError) -> T) throws(ScenarioStoreError) -> T {
        do throws(SQLiteError) {
            return try database.transaction(reading: reading, body)
        } catch {
            throw Self.error(error, path: path)
        }
    }

    // MARK: Schema

    /// The store's one schema: every table of the file, the scenario statistics and the server's
    /// conversations alike, with one list of migrations.
    package static var schema: SQLiteSchema { storeSchema }

    /// Brings the schema to ``schemaVersion``, refusing foreign files and newer schemas.
    private static func migrate(_ db: SQLiteDatabase, path: String, to target: Int? = nil) throws(ScenarioStoreError) {
        do throws(SQLiteSchema.Mismatch) {
            try db.withConnection { (c) throws(SQLiteSchema.Mismatch) in try storeSchema.migrate(c, to: target) }
        } catch {
            throw Self.error(error, path: path)
        }
    }

    /// Makes a store at an older schema version (for migration tests).
    static func create(path: String, schemaVersion: Int) throws(ScenarioStoreError) {
        let db: SQLiteDatabase
        do throws(SQLiteError) { db = try SQLiteDatabase(path: path, mode: .readWrite) } catch { throw Self.error(error, path: path) }
        try migrate(db, path: path, to: schemaVersion)
    }

    // MARK: Test hooks (internal)

    /// Runs SQL on this connection (tests: limits, failures).
    func execForTesting(_ sql: String) throws(ScenarioStoreError) {
        do throws(SQLiteError) { try database.withConnection { (c) throws(SQLiteError) in try c.exec(sql) } } catch {
            throw Self.error(error, path: path)
        }
    }

    /// The database's current size in pages.
    func pageCountForTesting() throws(ScenarioStoreError) -> Int {
        do throws(SQLiteError) { return try database.withConnection { (c) throws(SQLiteError) in try c.integer("PRAGMA page_count") } } catch {
            throw Self.error(error, path: path)
        }
    }

    /// Runs SQL on a file without the store's checks (tests: foreign and older files).
    static func rawExec(path: String, _ sql: String) throws(ScenarioStoreError) {
        do throws(SQLiteError) {
            try SQLiteDatabase(path: path, mode: .readWrite).withConnection { (c) throws(SQLiteError) in try c.exec(sql) }
        } catch {
            throw Self.error(error, path: path)
        }
    }

    /// The first integer a query returns (tests).
    package static func rawInt(path: String, _ sql: String) throws(ScenarioStoreError) -> Int {
        do throws(SQLiteError) {
            return try SQLiteDatabase(path: path, mode: .readWrite).withConnection { (c) throws(SQLiteError) in try c.integer(sql) }
        } catch {
            throw Self.error(error, path: path)
        }
    }

    // MARK: Operations

    private func read(_ db: SQLiteConnection, _ name: String, events: Bool) throws(SQLiteError) -> ScenarioStats {
        var stats = ScenarioStats()
        let s = try db.statement("SELECT events_count, executions_count, first_event, last_event, last_execution FROM scenarios WHERE name = ?")
        s.bind([.text(name)])
        if try s.step() {
            stats = ScenarioStats(
                eventsCount: s.int(0), executionsCount: s.int(1), firstEventDate: s.double(2),
                lastEventDate: s.double(3), lastExecutionDate: s.double(4))
        }
        s.finish()
        if events {
            let e = try db.statement("SELECT at FROM events WHERE scenario = ? ORDER BY seq DESC LIMIT ?")
            defer { e.finish() }
            e.bind([.text(name), .integer(ScenarioStats.recentLimit)])
            while try e.step() { stats.recentEvents.append(e.double(0) ?? 0) }
            stats.recentEvents.reverse()
        }
        return stats
    }

    public func triggerEvent(_ name: String, at now: Double) throws(ScenarioStoreError) {
        try transaction { (db) throws(SQLiteError) in try Self.countEvent(db, name, at: now) }
    }

    /// Counts an event of `name` on `db`, inside the caller's transaction.
    private static func countEvent(_ db: SQLiteConnection, _ name: String, at now: Double) throws(SQLiteError) {
        try db.run(
            """
            INSERT INTO scenarios (name, events_count, first_event, last_event) VALUES (?1, 1, ?2, ?2)
            ON CONFLICT(name) DO UPDATE SET events_count = events_count + 1,
              first_event = COALESCE(first_event, excluded.first_event), last_event = excluded.last_event
            """, [.text(name), .real(now)])
        let insert = try db.statement(
            """
            INSERT INTO events (scenario, seq, at)
            VALUES (?1, (SELECT COALESCE(MAX(seq), 0) + 1 FROM events WHERE scenario = ?1), ?2) RETURNING seq
            """)
        insert.bind([.text(name), .real(now)])
        let seq = try insert.step() ? insert.int(0) : 0
        while try insert.step() {}
        insert.finish()
        // Keep the most recent events only (checked every 100 inserts to stay cheap).
        if seq % 100 == 0 {
            try db.run("DELETE FROM events WHERE scenario = ? AND seq <= ?", [.text(name), .integer(seq - ScenarioStats.recentLimit)])
        }
    }

    public func tryExecute(
        _ name: String, at now: Double, rules: ScenarioRules,
        decide: (ScenarioStats, [Double]) -> Bool
    ) throws(ScenarioStoreError) -> Bool {
        try execute(name, at: now, rules: rules, countingEventOf: nil, decide: decide)
    }

    package func tryExecute(
        _ name: String, at now: Double, rules: ScenarioRules, countingEventOf other: String,
        decide: (ScenarioStats, [Double]) -> Bool
    ) throws(ScenarioStoreError) -> Bool {
        try execute(name, at: now, rules: rules, countingEventOf: other, decide: decide)
    }

    private func execute(
        _ name: String, at now: Double, rules: ScenarioRules, countingEventOf other: String?,
        decide: (ScenarioStats, [Double]) -> Bool
    ) throws(ScenarioStoreError) -> Bool {
        try transaction { (db) throws(SQLiteError) -> Bool in
            let stats = try read(db, name, events: rules.minEventsInWindow != nil)
            var executions: [Double] = []
            if let budget = rules.budget {
                let s = try db.statement("SELECT at FROM executions WHERE at > ? ORDER BY at")
                defer { s.finish() }
                s.bind([.real(now - budget.seconds)])
                while try s.step() { executions.append(s.double(0) ?? 0) }
            }
            guard decide(stats, executions) else { return false }
            try db.run(
                """
                INSERT INTO scenarios (name, executions_count, last_execution) VALUES (?1, 1, ?2)
                ON CONFLICT(name) DO UPDATE SET executions_count = executions_count + 1, last_execution = excluded.last_execution
                """, [.text(name), .real(now)])
            try db.run("INSERT INTO executions (scenario, at) VALUES (?, ?)", [.text(name), .real(now)])
            if db.lastInsertRowID % 100 == 0 {
                try db.run(
                    "DELETE FROM executions WHERE rowid <= (SELECT rowid FROM executions ORDER BY rowid DESC LIMIT 1 OFFSET ?)",
                    [.integer(ScenarioSnapshot.executionLimit)])
            }
            if let other { try Self.countEvent(db, other, at: now) }
            return true
        }
    }

    public func stats(_ name: String) throws(ScenarioStoreError) -> ScenarioStats {
        try transaction(reading: true) { (db) throws(SQLiteError) in try read(db, name, events: true) }
    }

    public func reset(_ name: String) throws(ScenarioStoreError) {
        try transaction { (db) throws(SQLiteError) in
            try db.run("DELETE FROM scenarios WHERE name = ?", [.text(name)])
            try db.run("DELETE FROM events WHERE scenario = ?", [.text(name)])
            try db.run("DELETE FROM executions WHERE scenario = ?", [.text(name)])
        }
    }

    public func resetAll() throws(ScenarioStoreError) {
        try transaction { (db) throws(SQLiteError) in
            try db.run("DELETE FROM scenarios")
            try db.run("DELETE FROM events")
            try db.run("DELETE FROM executions")
        }
    }

    package func forgetVisitors(
        inactiveSince time: Double, after cursor: String, examining count: Int
    ) throws(ScenarioStoreError) -> (
        forgotten: Int, next: String?
    ) {
        try transaction { (db) throws(SQLiteError) -> (forgotten: Int, next: String?) in
            let s = try db.statement(VisitorStatements.quietAfter)
            defer { s.finish() }
            s.bind([.real(time), .text(cursor), .integer(count)])
            var names: [String] = []
            var last: String?
            var examined = 0
            while try s.step() {
                examined += 1
                last = s.text(0)
                if s.int(1) != 0 { names.append(s.text(0)) }
            }
            for name in names {
                try db.run("DELETE FROM scenarios WHERE name = ?", [.text(name)])
                try db.run("DELETE FROM events WHERE scenario = ?", [.text(name)])
            }
            return (names.count, examined < count ? nil : last)
        }
    }

    /// The variant experiment `experiment` gave `visitor` at their first exposure; when none is
    /// stored (or the stored one is not in `known`: a variant since removed), `fresh` is stored
    /// and returned. One transaction: when two processes race, the first answer wins for both.
    /// Changed weights thus keep earlier visitors where they were.
    package func assignment(experiment: String, visitor: String, at: Double, known: Set<String>, fresh: String) throws(ScenarioStoreError) -> String {
        do throws(SQLiteError) {
            return try database.transaction { (c) throws(SQLiteError) -> String in
                let s = try c.statement("SELECT variant FROM assignments WHERE experiment = ?1 AND visitor = ?2")
                s.bind([.text(experiment), .text(visitor)])
                let stored = try s.step() ? s.text(0) : nil
                s.finish()
                if let stored, known.contains(stored) { return stored }
                try c.run(
                    "INSERT OR REPLACE INTO assignments (experiment, visitor, variant, at) VALUES (?1, ?2, ?3, ?4)",
                    [.text(experiment), .text(visitor), .text(fresh), .real(at)])
                return fresh
            }
        } catch {
            throw Self.error(error, path: path)
        }
    }

    package func forget(visitor: String) throws(ScenarioStoreError) -> Int {
        try transaction { (db) throws(SQLiteError) -> Int in
            let s = try db.statement(VisitorStatements.names)
            defer { s.finish() }
            s.bind([.text(visitor)])
            var names: [String] = []
            while try s.step() { names.append(s.text(0)) }
            for name in names {
                try db.run("DELETE FROM scenarios WHERE name = ?", [.text(name)])
                try db.run("DELETE FROM events WHERE scenario = ?", [.text(name)])
            }
            try db.run(VisitorStatements.anonymizeExecutions, [.text(visitor)])
            try db.run(VisitorStatements.forgetAssignments, [.text(visitor)])
            return names.count + db.changes
        }
    }

    package func kept(ofVisitor visitor: String) throws(ScenarioStoreError) -> VisitorRecord {
        let suffix = "@" + visitor
        return try transaction(reading: true) { (db) throws(SQLiteError) -> VisitorRecord in
            var out = VisitorRecord()
            let s = try db.statement(VisitorStatements.statistics)
            s.bind([.text(visitor)])
            while try s.step() {
                let name = s.text(0)
                out.statistics.append(
                    (
                        String(name.dropLast(suffix.count)),
                        ScenarioStats(
                            eventsCount: s.int(1), executionsCount: s.int(2), firstEventDate: s.double(3), lastEventDate: s.double(4),
                            lastExecutionDate: s.double(5))
                    ))
            }
            s.finish()
            let a = try db.statement(VisitorStatements.assignments)
            defer { a.finish() }
            a.bind([.text(visitor)])
            while try a.step() { out.assignments.append((a.text(0), a.text(1), a.double(2) ?? 0)) }
            return out
        }
    }

    package func forgetAssignments(before time: Double) throws(ScenarioStoreError) -> Int {
        try transaction { (c) throws(SQLiteError) -> Int in
            try c.run(VisitorStatements.oldAssignments, [.real(time)])
            return c.changes
        }
    }

    /// The names of every scenario with statistics.
    public func names() throws(ScenarioStoreError) -> [String] {
        try transaction(reading: true) { (db) throws(SQLiteError) in
            let s = try db.statement("SELECT name FROM scenarios ORDER BY name")
            defer { s.finish() }
            var out: [String] = []
            while try s.step() { out.append(s.text(0)) }
            return out
        }
    }

    public func snapshot() throws(ScenarioStoreError) -> ScenarioSnapshot {
        try transaction(reading: true) { (db) throws(SQLiteError) in
            let s = try db.statement("SELECT name FROM scenarios ORDER BY name")
            var names: [String] = []
            while try s.step() { names.append(s.text(0)) }
            s.finish()
            var all: [String: ScenarioStats] = [:]
            for n in names { all[n] = try read(db, n, events: true) }
            // The budget log keeps the newest `executionLimit` executions (rows past it wait for the
            // next trim): what is exported is what a store holds, so an import takes it back.
            let e = try db.statement(
                "SELECT scenario, at FROM (SELECT rowid AS r, scenario, at FROM executions ORDER BY rowid DESC LIMIT ?) ORDER BY r")
            defer { e.finish() }
            e.bind([.integer(ScenarioSnapshot.executionLimit)])
            var executions: [ScenarioSnapshot.Execution] = []
            while try e.step() { executions.append(.init(scenario: e.text(0), at: e.double(1) ?? 0)) }
            return ScenarioSnapshot(scenarios: all, executions: executions)
        }
    }

    public func restore(_ snapshot: ScenarioSnapshot) throws(ScenarioStoreError) {
        try transaction { (db) throws(SQLiteError) in
            try db.run("DELETE FROM scenarios")
            try db.run("DELETE FROM events")
            try db.run("DELETE FROM executions")
            for (name, entry) in snapshot.scenarios {
                try db.run(
                    "INSERT INTO scenarios VALUES (?, ?, ?, ?, ?, ?)",
                    [
                        .text(name), .integer(entry.eventsCount), .integer(entry.executionsCount), .optional(entry.firstEventDate),
                        .optional(entry.lastEventDate), .optional(entry.lastExecutionDate),
                    ])
                for (k, at) in entry.recentEvents.enumerated() {
                    try db.run("INSERT INTO events (scenario, seq, at) VALUES (?, ?, ?)", [.text(name), .integer(k + 1), .real(at)])
                }
            }
            for e in snapshot.executions { try db.run("INSERT INTO executions (scenario, at) VALUES (?, ?)", [.text(e.scenario), .real(e.at)]) }
        }
    }
}

/// The tables of a rocket store and how each version came about: step `k` takes version `k` to
/// `k + 1` (docs/SEMANTICS.md names what each holds).
let storeSchema = SQLiteSchema(
    applicationID: SQLiteScenarioStore.applicationID,
    migrations: [
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
        // 3 → 4: the server's conversations and their event records (the release before made
        // these tables itself, outside the schema: IF NOT EXISTS keeps its rows).
        """
        CREATE TABLE IF NOT EXISTS server_conversations (id TEXT PRIMARY KEY NOT NULL, visitor TEXT NOT NULL, flow TEXT NOT NULL,
          step INTEGER NOT NULL, version INTEGER NOT NULL, event_seq INTEGER NOT NULL, touched REAL NOT NULL, snapshot TEXT NOT NULL) WITHOUT ROWID;
        CREATE INDEX IF NOT EXISTS server_conversations_by_touch ON server_conversations (touched);
        CREATE TABLE IF NOT EXISTS server_events (id TEXT NOT NULL, seq INTEGER NOT NULL, at REAL NOT NULL, record TEXT NOT NULL,
          PRIMARY KEY (id, seq)) WITHOUT ROWID;
        """,
        // 4 → 5: the server's own settings (the secret its visitor tokens are signed with, made
        // once by the first server that starts on the store).
        """
        CREATE TABLE server_settings (name TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL) WITHOUT ROWID;
        """,
        // 5 → 6: reports. Event records name their flow and outlive their conversation (kept for
        // the record retention, found by time); experiments' assignments, stored at a visitor's
        // first exposure so that changed weights keep earlier visitors where they were.
        """
        ALTER TABLE server_events ADD COLUMN flow TEXT NOT NULL DEFAULT '';
        UPDATE server_events SET flow = (SELECT c.flow FROM server_conversations c WHERE c.id = server_events.id)
          WHERE EXISTS (SELECT 1 FROM server_conversations c WHERE c.id = server_events.id);
        CREATE INDEX server_events_by_time ON server_events (at);
        CREATE TABLE assignments (experiment TEXT NOT NULL, visitor TEXT NOT NULL, variant TEXT NOT NULL, at REAL NOT NULL,
          PRIMARY KEY (experiment, visitor)) WITHOUT ROWID;
        """,
        // 6 → 7: a change is saved as the steps that made it (a small row), replayed on the
        // snapshot, which is written again every few changes and records when it was taken.
        // Snapshots (kilobytes) move to a table with row ids and a small index of ids: in a
        // WITHOUT ROWID table every row lives in the key's b-tree, where rows that large split
        // and spill its pages (SQLite advises rows under a twentieth of a page there).
        """
        CREATE TABLE server_conversations7 (id TEXT NOT NULL UNIQUE, visitor TEXT NOT NULL, flow TEXT NOT NULL, step INTEGER NOT NULL,
          version INTEGER NOT NULL, event_seq INTEGER NOT NULL, touched REAL NOT NULL, snapshot TEXT NOT NULL, saved_at REAL);
        INSERT INTO server_conversations7 (id, visitor, flow, step, version, event_seq, touched, snapshot)
          SELECT id, visitor, flow, step, version, event_seq, touched, snapshot FROM server_conversations ORDER BY id;
        DROP TABLE server_conversations;
        ALTER TABLE server_conversations7 RENAME TO server_conversations;
        CREATE INDEX server_conversations_by_touch ON server_conversations (touched);
        CREATE TABLE server_steps (id TEXT NOT NULL, version INTEGER NOT NULL, at REAL NOT NULL, steps TEXT NOT NULL,
          PRIMARY KEY (id, version)) WITHOUT ROWID;
        """,
        // 7 → 8: no table changes. A conversation unchanged since it started is stored as its
        // start (docs/SNAPSHOT_FORMAT.md), which a release before cannot read: the version tells
        // such a release that the store is newer than it instead of letting it answer 409.
        """
        -- the snapshot column may hold {"start": …}
        """,
        // 8 → 9: results: what each conversation that ended was answered, for the site's back end,
        // numbered in the order they were written (AUTOINCREMENT: a number is never given twice,
        // even once every row has been removed, so a reader's place stays good).
        """
        CREATE TABLE server_results (seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE, flow TEXT NOT NULL,
          visitor TEXT NOT NULL, at REAL NOT NULL, reason TEXT NOT NULL, answers TEXT NOT NULL);
        CREATE INDEX server_results_by_flow ON server_results (flow, seq);
        CREATE INDEX server_results_by_time ON server_results (at);
        """,
        // 9 → 10: a result names its experiment's variant ("" without one).
        """
        ALTER TABLE server_results ADD COLUMN variant TEXT NOT NULL DEFAULT '';
        """,
        // 10 → 11: the versions of flows that conversations were saved with, so that one
        // started before its flow's file changed goes on with its own version (rows of a few
        // kilobytes: a table with row ids, the identity unique).
        """
        CREATE TABLE server_flow_versions (identity TEXT NOT NULL UNIQUE, name TEXT NOT NULL, language TEXT NOT NULL, text TEXT NOT NULL,
          used REAL NOT NULL);
        CREATE INDEX server_flow_versions_by_use ON server_flow_versions (used);
        """,
        // 11 → 12: a visitor's results found without reading everyone's (its access request,
        // `GET /v1/results?visitor=`, its erasure).
        """
        CREATE INDEX server_results_by_visitor ON server_results (visitor, seq);
        """,
        // 12 → 13: the rest of a visitor's rows found without reading everyone's (its access
        // request and its erasure hold the writer meanwhile): its conversations, its
        // assignments, and its per-visitor statistics and executions, whose names are
        // "NAME@VISITOR" (indexed on what follows the "@"; see `visitorOfName`).
        """
        CREATE INDEX server_conversations_by_visitor ON server_conversations (visitor);
        CREATE INDEX assignments_by_visitor ON assignments (visitor);
        CREATE INDEX scenarios_by_visitor ON scenarios (substr(name, instr(name, '@') + 1)) WHERE instr(name, '@') > 0;
        CREATE INDEX executions_by_visitor ON executions (substr(scenario, instr(scenario, '@') + 1)) WHERE instr(scenario, '@') > 0;
        CREATE INDEX scenarios_by_activity
          ON scenarios (max(coalesce(last_event, -1e300), coalesce(last_execution, -1e300), coalesce(first_event, -1e300)))
          WHERE instr(name, '@') > 0;
        CREATE INDEX assignments_by_time ON assignments (at);
        """,
        // 13 → 14: two of those indexes go again. Every event and every gated start wrote them
        // (a start of a gated flow took a sixth longer); the executions' log holds about 1,000
        // rows, read whole in a moment, and the sweep of quiet visitors reads a slice of the
        // statistics a minute through their key instead.
        """
        DROP INDEX executions_by_visitor;
        DROP INDEX scenarios_by_activity;
        """,
    ])

/// The statements that read or remove one visitor's rows, or those of visitors gone quiet. Each
/// is served by an index (a test reads their plans): an access request and an erasure run while
/// the writer waits, and the sweep every minute, so none may read every visitor's rows.
package enum VisitorStatements {
    // A visitor's per-visitor rows are picked by their scenario name: it holds an "@" and what
    // follows its first one is the visitor (?1). Scenario names hold no "@" (the flow loader
    // refuses them) and neither do visitor ids, so this is the "NAME@VISITOR" a server writes.
    // The terms are written exactly as the indexes of schema 13 are, which is how SQLite finds
    // them (compared as text: a visitor id may hold "_", which LIKE would take for any character).

    /// The names of the visitor's statistics.
    static let names: StaticString = "SELECT name FROM scenarios WHERE instr(name, '@') > 0 AND substr(name, instr(name, '@') + 1) = ?1"
    /// The visitor's statistics, by name.
    static let statistics: StaticString = """
        SELECT name, events_count, executions_count, first_event, last_event, last_execution FROM scenarios
          WHERE instr(name, '@') > 0 AND substr(name, instr(name, '@') + 1) = ?1 ORDER BY name
        """
    /// The visitor's executions keep their place in the store-wide budget under their
    /// scenario's name alone. The log holds at most `executionLog` rows (and 100 more between
    /// trims), read whole: an index of them would cost every gated start more than it saves.
    static let anonymizeExecutions: StaticString = """
        UPDATE executions SET scenario = substr(scenario, 1, instr(scenario, '@') - 1)
          WHERE instr(scenario, '@') > 0 AND substr(scenario, instr(scenario, '@') + 1) = ?1
        """
    /// The visitor's assignments.
    static let assignments: StaticString = "SELECT experiment, variant, at FROM assignments WHERE visitor = ?1 ORDER BY experiment"
    /// Its assignments removed.
    static let forgetAssignments: StaticString = "DELETE FROM assignments WHERE visitor = ?1"
    /// The statistics after ?2 in name order, at most ?3, each with whether it is a
    /// per-visitor one with nothing since ?1: the sweep of quiet visitors looks at a slice of
    /// the table at a time through its key (an index of their last activity would be written by
    /// every event and every gated start).
    static let quietAfter: StaticString = """
        SELECT name, instr(name, '@') > 0
          AND max(coalesce(last_event, -1e300), coalesce(last_execution, -1e300), coalesce(first_event, -1e300)) < ?1
          FROM scenarios WHERE name > ?2 ORDER BY name LIMIT ?3
        """
    /// Assignments made before ?1, at most 5,000.
    static let oldAssignments: StaticString =
        "DELETE FROM assignments WHERE (experiment, visitor) IN (SELECT experiment, visitor FROM assignments WHERE at < ?1 LIMIT 5000)"

    /// Every statement above but the executions' (a log of a bounded size), for the test of
    /// their plans.
    package static let all: [StaticString] = [names, statistics, assignments, forgetAssignments, quietAfter, oldAssignments]
}
