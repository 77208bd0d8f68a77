import CSQLite
package import RocketScenarios
import Synchronization

/// Where the server keeps conversations so a restart resumes them: snapshots (never with secret
/// answers) and the event records of each conversation, in an SQLite file (WAL). Writes carry the
/// conversation's version, so a late write never replaces a newer snapshot.
package final class ConversationArchive: Sendable {
    /// A stored conversation.
    package struct Row: Sendable, Equatable {
        /// The conversation id.
        package var id: String
        /// The visitor it belongs to.
        package var visitor: String
        /// The flow's name.
        package var flow: String
        /// Intents accepted so far.
        package var step: Int
        /// Changes so far.
        package var version: Int
        /// Event records so far (the last `seq`; a row of `server_events` is numbered by its first record).
        package var eventSeq: Int
        /// When it was last used (wall time, seconds).
        package var touched: Double
        /// The snapshot, JSON.
        package var snapshot: String
    }

    /// Why the archive failed.
    package struct Failure: Error, Sendable {
        /// A sentence naming the file and the cause.
        package var message: String
    }

    private final class Connection: @unchecked Sendable {
        // Reached only through the archive's Mutex.
        let db: OpaquePointer
        var statements: [Int: OpaquePointer] = [:]
        init(_ db: OpaquePointer) { self.db = db }
        deinit {
            for s in statements.values { sqlite3_finalize(s) }
            sqlite3_close(db)
        }
    }
    private let connection: Mutex<Connection>
    /// The file.
    package let path: String

    private static let sql: [String] = [
        "BEGIN IMMEDIATE", "COMMIT", "ROLLBACK",
        """
        INSERT INTO server_conversations (id, visitor, flow, step, version, event_seq, touched, snapshot) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)
        ON CONFLICT(id) DO UPDATE SET step = excluded.step, version = excluded.version, event_seq = excluded.event_seq,
          touched = excluded.touched, snapshot = excluded.snapshot WHERE excluded.version > server_conversations.version
        """,
        "INSERT OR IGNORE INTO server_events (id, seq, at, record) VALUES (?1, ?2, ?3, ?4)",
        "SELECT id, visitor, flow, step, version, event_seq, touched, snapshot FROM server_conversations WHERE id = ?1",
        "DELETE FROM server_conversations WHERE id = ?1",
        "DELETE FROM server_events WHERE id = ?1",
        "SELECT record FROM server_events WHERE id = ?1 ORDER BY seq",
        "SELECT id FROM server_conversations WHERE touched < ?1 LIMIT 500",
    ]
    private enum Query: Int { case begin, commit, rollback, upsert, event, select, delete, deleteEvents, events, expired }

    /// Opens (creating when missing) the archive tables in the file of `store`: conversations
    /// live beside the scenario statistics, in one file the scenario store has already checked
    /// and migrated.
    package init(beside store: SQLiteScenarioStore) throws(Failure) {
        let path = store.path
        self.path = path
        var handle: OpaquePointer?
        let rc = sqlite3_open_v2(path, &handle, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nil)
        guard rc == SQLITE_OK, let handle else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close(handle)
            throw Failure(message: "cannot open \(path): \(message)")
        }
        sqlite3_busy_timeout(handle, 15_000)
        let setup = """
            PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA wal_autocheckpoint=8192; PRAGMA cache_size=-16384;
            CREATE TABLE IF NOT EXISTS server_conversations (id TEXT PRIMARY KEY NOT NULL, visitor TEXT NOT NULL, flow TEXT NOT NULL,
              step INTEGER NOT NULL, version INTEGER NOT NULL, event_seq INTEGER NOT NULL, touched REAL NOT NULL, snapshot TEXT NOT NULL) WITHOUT ROWID;
            CREATE INDEX IF NOT EXISTS server_conversations_by_touch ON server_conversations (touched);
            CREATE TABLE IF NOT EXISTS server_events (id TEXT NOT NULL, seq INTEGER NOT NULL, at REAL NOT NULL, record TEXT NOT NULL,
              PRIMARY KEY (id, seq)) WITHOUT ROWID;
            """
        var message: UnsafeMutablePointer<CChar>?
        if sqlite3_exec(handle, setup, nil, nil, &message) != SQLITE_OK {
            let text = message.map { String(cString: $0) } ?? String(cString: sqlite3_errmsg(handle))
            sqlite3_free(message)
            sqlite3_close(handle)
            throw Failure(message: "cannot use \(path) as the conversation store: \(text)")
        }
        connection = Mutex(Connection(handle))
    }

    private func statement(_ c: Connection, _ q: Query) throws(Failure) -> OpaquePointer {
        if let s = c.statements[q.rawValue] {
            sqlite3_reset(s)
            sqlite3_clear_bindings(s)
            return s
        }
        var s: OpaquePointer?
        guard sqlite3_prepare_v2(c.db, Self.sql[q.rawValue], -1, &s, nil) == SQLITE_OK, let s else { throw failure(c) }
        c.statements[q.rawValue] = s
        return s
    }

    private func failure(_ c: Connection) -> Failure {
        Failure(message: "\(path): \(String(cString: sqlite3_errmsg(c.db)))")
    }

    private func run(_ c: Connection, _ q: Query, _ bind: (OpaquePointer) -> Void = { _ in }) throws(Failure) {
        let s = try statement(c, q)
        bind(s)
        var rc = sqlite3_step(s)
        while rc == SQLITE_ROW { rc = sqlite3_step(s) }
        guard rc == SQLITE_DONE else { throw failure(c) }
    }

    private func text(_ s: OpaquePointer, _ i: Int32, _ value: String) { SQLiteScenarioStore.bindText(s, i, value) }

    /// Runs `body` in one `BEGIN IMMEDIATE` transaction: committed when it returns, rolled back
    /// when it throws.
    private func transaction(_ body: (Connection) throws(Failure) -> Void) throws(Failure) {
        try connection.withLock { (c) throws(Failure) in
            try run(c, .begin)
            do throws(Failure) {
                try body(c)
                try run(c, .commit)
            } catch {
                try? run(c, .rollback)
                throw error
            }
        }
    }

    /// The first column of every row of `q`, as text.
    private func column(_ c: Connection, _ q: Query, _ bind: (OpaquePointer) -> Void) throws(Failure) -> [String] {
        let s = try statement(c, q)
        bind(s)
        var out: [String] = []
        var rc = sqlite3_step(s)
        while rc == SQLITE_ROW {
            out.append(sqlite3_column_text(s, 0).map { String(cString: $0) } ?? "")
            rc = sqlite3_step(s)
        }
        guard rc == SQLITE_DONE else { throw failure(c) }
        return out
    }

    /// Saves a conversation and its new event records (`seq` numbers them within it) at once.
    package func save(_ row: Row, events: [(seq: Int, at: Double, record: String)]) throws(Failure) {
        try save([(row, events)])
    }

    /// Saves conversations and their new event records in one transaction.
    package func save(_ batch: [(row: Row, events: [(seq: Int, at: Double, record: String)])]) throws(Failure) {
        try transaction { (c) throws(Failure) in
            for (row, events) in batch { try write(c, row, events) }
        }
    }

    private func write(_ c: Connection, _ row: Row, _ events: [(seq: Int, at: Double, record: String)]) throws(Failure) {
        try run(c, .upsert) { s in
            text(s, 1, row.id)
            text(s, 2, row.visitor)
            text(s, 3, row.flow)
            sqlite3_bind_int64(s, 4, Int64(row.step))
            sqlite3_bind_int64(s, 5, Int64(row.version))
            sqlite3_bind_int64(s, 6, Int64(row.eventSeq))
            sqlite3_bind_double(s, 7, row.touched)
            text(s, 8, row.snapshot)
        }
        for e in events {
            try run(c, .event) { s in
                text(s, 1, row.id)
                sqlite3_bind_int64(s, 2, Int64(e.seq))
                sqlite3_bind_double(s, 3, e.at)
                text(s, 4, e.record)
            }
        }
    }

    /// The stored conversation `id`, if any.
    package func load(_ id: String) throws(Failure) -> Row? {
        try connection.withLock { (c) throws(Failure) -> Row? in
            let s = try statement(c, .select)
            text(s, 1, id)
            let rc = sqlite3_step(s)
            guard rc == SQLITE_ROW else {
                if rc == SQLITE_DONE { return nil }
                throw failure(c)
            }
            func str(_ i: Int32) -> String { sqlite3_column_text(s, i).map { String(cString: $0) } ?? "" }
            return Row(
                id: str(0), visitor: str(1), flow: str(2), step: Int(sqlite3_column_int64(s, 3)),
                version: Int(sqlite3_column_int64(s, 4)), eventSeq: Int(sqlite3_column_int64(s, 5)), touched: sqlite3_column_double(s, 6),
                snapshot: str(7))
        }
    }

    /// The event records of conversation `id`, in order, one JSON object each (rows hold the
    /// records of one flush as JSON Lines).
    package func events(_ id: String) throws(Failure) -> [String] {
        let rows = try connection.withLock { (c) throws(Failure) -> [String] in try column(c, .events) { text($0, 1, id) } }
        return rows.flatMap { $0.split(separator: "\n").map(String.init) }
    }

    /// Removes conversation `id` and its events.
    package func remove(_ id: String) throws(Failure) {
        try transaction { (c) throws(Failure) in
            try run(c, .delete) { text($0, 1, id) }
            try run(c, .deleteEvents) { text($0, 1, id) }
        }
    }

    /// Removes conversations last used before `time` (at most 500 per call); how many went.
    package func expire(before time: Double) throws(Failure) -> Int {
        let ids = try connection.withLock { (c) throws(Failure) -> [String] in try column(c, .expired) { sqlite3_bind_double($0, 1, time) } }
        for id in ids { try remove(id) }
        return ids.count
    }
}
