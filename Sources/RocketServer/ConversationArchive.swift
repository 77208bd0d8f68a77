import RocketPlatform
import RocketPostgres
package import RocketReport
import RocketScenarioEngine
package import RocketSQLite
import RocketCore
package import RocketJSON
import Synchronization
package import RocketScenariosSQLite

/// Why a store's event records could not be read for a report.
package struct ReportReadFailure: Error, Sendable {
    /// A sentence naming the file and the cause.
    package var message: String
    /// True when the file does not exist.
    package var missing: Bool
}

/// Where the server keeps conversations so a restart (or another server sharing the store)
/// resumes them: snapshots (never with secret answers), the steps after them, and the event
/// records of each conversation. ``ConversationArchive`` keeps them in the SQLite store file,
/// ``PostgresConversationArchive`` in a PostgreSQL database that several servers share.
package protocol ConversationStore: Sendable {
    /// Where the store is, as the operator named it (a password hidden): for messages.
    var place: String { get }
    /// Saves conversations (each its snapshot or its steps; `flow` names its flow on its records)
    /// and their new event records in one transaction. Returns the conversations whose save was
    /// refused because the store holds another version than the one the save was based on (a
    /// change made by another server meanwhile): nothing of theirs is written. A store used by
    /// one server only refuses none.
    /// With `results`: the results of conversations of the batch that ended (written only with
    /// their conversation's save: one refused leaves its result unwritten too).
    @discardableResult
    func save(_ batch: [ConversationArchive.Batched], results: [ConversationArchive.ResultRow]) throws(ConversationArchive.Failure) -> Set<String>
    /// Results kept (of `flow` only, when given; ended in `ended` only, when given) after
    /// `after`, in the order they were written: at most `limit`, and no more once their answers
    /// pass `maxBytes` (one at least).
    func results(
        flow: String?, visitor: String?, ended: ReportWindow?, after: Int, limit: Int, maxBytes: Int
    ) throws(ConversationArchive.Failure)
        -> [ConversationArchive.StoredResult]
    /// The ids of the conversations the store keeps of `visitor`, at most `limit`, in the order
    /// they were made.
    func conversations(ofVisitor visitor: String, limit: Int) throws(ConversationArchive.Failure) -> [String]
    /// Removes results written before `time` (at most 5,000 per call); how many went.
    func forgetResults(before time: Double) throws(ConversationArchive.Failure) -> Int
    /// Keeps each of `versions` (a flow's version its conversations were saved with), used at
    /// `time`: stored when new, its time of use set otherwise.
    func keepFlowVersions(_ versions: [ConversationArchive.FlowVersion], at time: Double) throws(ConversationArchive.Failure)
    /// The kept version of a flow whose identity is `identity`, if any.
    func flowVersion(_ identity: String) throws(ConversationArchive.Failure) -> ConversationArchive.FlowVersion?
    /// Removes the versions last used before `time`; how many went.
    func forgetFlowVersions(before time: Double) throws(ConversationArchive.Failure) -> Int
    /// Removes everything kept of `visitor` (a visitor's erasure), in one transaction: its
    /// conversations with their steps and event records, its results with the records of their
    /// conversations, and (in a store servers share) its alerts. How many conversations and
    /// results went. Records of conversations no longer kept name no visitor, and stay.
    func forget(visitor: String) throws(ConversationArchive.Failure) -> (conversations: Int, results: Int)
    /// The webhook `key`'s turn for `holder`: takes or renews its lease until `until`, unless
    /// another holder's lease runs past `now` (nil then), and returns the number of the last
    /// result it delivered (a webhook new to the store starts after the newest result: it
    /// delivers what ends from then on). Two holders never hold one lease at once.
    func webhookTurn(_ key: String, holder: String, now: Double, until: Double) throws(ConversationArchive.Failure) -> Int?
    /// Notes that webhook `key` delivered the result numbered `seq`, when `holder` still holds its
    /// lease; false when another took it meanwhile (nothing noted).
    func webhookDelivered(_ key: String, holder: String, seq: Int) throws(ConversationArchive.Failure) -> Bool
    /// The stored conversation `id`, if any: its snapshot and the steps saved after it, in order.
    func load(_ id: String) throws(ConversationArchive.Failure) -> (row: ConversationArchive.Row, steps: [ConversationArchive.Steps])?
    /// The event records of conversation `id`, in order, one JSON object each.
    func events(_ id: String) throws(ConversationArchive.Failure) -> [String]
    /// The setting `name`: the stored value, or `make()`'s, stored now (the first server wins).
    func setting(_ name: String, orMake make: () -> String) throws(ConversationArchive.Failure) -> String
    /// Housekeeping a few times a second (SQLite: a checkpoint of its log).
    func checkpoint(restartFrames: Int) throws(ConversationArchive.Failure) -> (frames: Int, restarted: Bool)
    /// Removes conversation `id` and its events.
    func remove(_ id: String) throws(ConversationArchive.Failure)
    /// Up to `limit` conversations last used before `time`, each with the steps saved after its
    /// snapshot: what they were answered is read before they go (``expire(_:before:results:)``).
    func expiring(
        before time: Double, limit: Int
    ) throws(ConversationArchive.Failure)
        -> [(row: ConversationArchive.Row, steps: [ConversationArchive.Steps])]
    /// Removes those of conversations `ids` still last used before `time` (a server may have
    /// used one since it was read), each with the result `results` holds for it, if any, in one
    /// transaction (a result only with its conversation's removal); the ids that went. Alerts go
    /// as conversations do.
    func expire(_ ids: [String], before time: Double, results: [ConversationArchive.ResultRow]) throws(ConversationArchive.Failure) -> Set<String>
    /// Removes event records written before `time` (at most 5,000 per call); how many went.
    func forgetRecords(before time: Double) throws(ConversationArchive.Failure) -> Int
    /// Stores a record that belongs to no conversation (a holdout's exposure) under a fresh id.
    func saveRecord(_ record: String, flow: String, id: String, at: Double) throws(ConversationArchive.Failure)
    /// Reads every stored event record (of `flow` only, when given) into `builder`, one
    /// conversation after another, in order, holding no lock a writer needs.
    func readRecords(flow: String?, into builder: inout ReportBuilder) throws(ReportReadFailure)
    /// Claims up to `limit` conversations whose next timer was due before `time` and that no
    /// server has claimed since `now`, for `seconds`: their server has stopped (it would have run
    /// the timer and saved the next one), and another runs it. Two servers never claim one
    /// conversation at once. A store no other server writes has none.
    func claimDue(before time: Double, now: Double, seconds: Double, limit: Int) throws(ConversationArchive.Failure) -> [String]
    /// Checks that the store can be used now (readiness): throws when it cannot be reached.
    func ping() throws(ConversationArchive.Failure)
    /// For each copy (a conversation at a version): the version of its stored snapshot and the
    /// steps saved after that version, in order (a store no other server writes: none).
    func stepsAfter(
        _ copies: [(id: String, version: Int)]
    ) throws(ConversationArchive.Failure)
        -> [String: (snapshotVersion: Int, steps: [ConversationArchive.Steps])]
    /// True when other servers may change the store's conversations (``listen(stopping:changed:reconnected:)``
    /// then says when they do).
    var isShared: Bool { get }
    /// Tells `changed` of every conversation other servers (and this one) save, with its new
    /// version, until `stopping` says so; `reconnected` is called when the way to the store came
    /// back after a break (what changed meanwhile was not told). Blocks: run it on a thread of its
    /// own. A store no other server writes returns at once.
    func listen(
        stopping: @escaping @Sendable () -> Bool, changed: @escaping @Sendable ([(id: String, version: Int)]) -> Void,
        reconnected: @escaping @Sendable () -> Void)
}

extension ConversationStore {
    /// Saves a batch that ends no conversation.
    @discardableResult
    package func save(_ batch: [ConversationArchive.Batched]) throws(ConversationArchive.Failure) -> Set<String> {
        try save(batch, results: [])
    }

    /// Results kept (of `flow` only, when given), as ``results(flow:visitor:ended:after:limit:maxBytes:)``
    /// for every visitor, whenever they ended.
    package func results(
        flow: String?, after: Int, limit: Int, maxBytes: Int
    ) throws(ConversationArchive.Failure)
        -> [ConversationArchive.StoredResult]
    {
        try results(flow: flow, visitor: nil, ended: nil, after: after, limit: limit, maxBytes: maxBytes)
    }
}

extension ConversationArchive {
    /// One server writes the file.
    package var isShared: Bool { false }

    /// The file is opened when the server starts: its writes say when it fails.
    package func ping() throws(Failure) {}

    /// One server writes the file: its copies are never behind.
    package func stepsAfter(_ copies: [(id: String, version: Int)]) throws(Failure) -> [String: (snapshotVersion: Int, steps: [Steps])] { [:] }

    /// One server writes the file: it runs every timer itself.
    package func claimDue(before time: Double, now: Double, seconds: Double, limit: Int) throws(ConversationArchive.Failure) -> [String] { [] }

    /// Nothing to listen to: one server writes the file.
    package func listen(
        stopping: @escaping @Sendable () -> Bool, changed: @escaping @Sendable ([(id: String, version: Int)]) -> Void,
        reconnected: @escaping @Sendable () -> Void
    ) {}
}

/// Alerts in a store several servers share (a server with a store of its own keeps them in
/// memory): any server reads and changes any alert.
package protocol SharedAlerts: Sendable {
    /// The stored form of alert `id` (nil: none).
    func loadAlert(_ id: String) throws(ConversationArchive.Failure) -> String?
    /// Saves alert `id` at `version`, based on `storedVersion` (0: a new alert), and tells the
    /// servers listening; false when another server moved it on meanwhile (nothing written).
    func saveAlert(
        _ id: String, visitor: String, version: Int, storedVersion: Int, text: String, touched: Double
    ) throws(ConversationArchive.Failure)
        -> Bool
    /// The ids and stored forms of `visitor`'s alerts, by id, at most `limit` (a visitor's access
    /// request).
    func alerts(ofVisitor visitor: String, limit: Int) throws(ConversationArchive.Failure) -> [(id: String, text: String)]
}

/// The conversations of the SQLite store file (WAL), beside the scenario statistics. Writes
/// carry the conversation's version, so a late write never replaces a newer snapshot.
package final class ConversationArchive: ConversationStore {
    /// One conversation's part of a batch: its save, its flow's name, its new event records.
    package typealias Batched = (save: Save, flow: String, events: [(seq: Int, at: Double, record: String)])

    /// A version of a flow, kept while conversations of it may be resumed: a conversation
    /// started before its flow's file changed goes on with the version it started with.
    package struct FlowVersion: Sendable, Equatable {
        /// The flow's identity (``LoadedFlow/identity``), which snapshots name.
        package var identity: String
        /// The flow's name.
        package var name: String
        /// The language it was read in ("" for its first).
        package var language: String
        /// The flow, as ``FlowLibrary/versionText(of:)`` writes it.
        package var text: String

        /// A version of flow `name`.
        package init(identity: String, name: String, language: String, text: String) {
            self.identity = identity
            self.name = name
            self.language = language
            self.text = text
        }
    }

    /// What a conversation that ended was answered, kept for the site's back end
    /// (`GET /v1/results`, docs/SERVER.md): written in the commit that saves its end.
    package struct ResultRow: Sendable, Equatable {
        /// The conversation id.
        package var id: String
        /// Its flow's name.
        package var flow: String
        /// Its visitor.
        package var visitor: String
        /// When it ended (wall time, seconds).
        package var at: Double
        /// Why: `completed`, `closed` or `interrupted`; `expired` for one answered and left.
        package var reason: String
        /// Its answers, a JSON object (``FlowDocument/answerValues(of:)``).
        package var answers: String
        /// Its experiment's variant ("" without an experiment).
        package var variant: String = ""

        /// A result of conversation `id`.
        package init(id: String, flow: String, visitor: String, at: Double, reason: String, answers: String, variant: String = "") {
            self.id = id
            self.flow = flow
            self.visitor = visitor
            self.at = at
            self.reason = reason
            self.answers = answers
            self.variant = variant
        }
    }

    /// A result as the store holds it: numbered in the order results were written.
    package struct StoredResult: Sendable, Equatable {
        /// Its number: greater than every result written before it.
        package var seq: Int
        /// The result.
        package var result: ResultRow

        /// `result`, numbered `seq`.
        package init(seq: Int, result: ResultRow) {
            self.seq = seq
            self.result = result
        }

        /// Writes it as `GET /v1/results`, `rocket results` and a webhook show it: `{"seq",
        /// "conversation", "flow", "visitor", "at", "reason", "variant", "answers"}` (answers that are not a JSON object,
        /// which this server never writes, as `{}`).
        package func write(into w: inout JSONBytes) {
            w.open()
            w.key("seq", first: true)
            w.number(seq)
            w.key("conversation")
            w.string(result.id)
            w.key("flow")
            w.string(result.flow)
            w.key("visitor")
            w.string(result.visitor)
            w.key("at")
            w.number(result.at, fractionDigits: 6)
            w.key("reason")
            w.string(result.reason)
            w.key("variant")
            w.string(result.variant)
            w.key("answers")
            let answers = Array(result.answers.utf8)
            if answers.first == 0x7B, (try? JSONTape.parse(answers))?.kind(0) == .object {
                w.raw(answers)
            } else {
                w.raw(Array("{}".utf8))
            }
            w.close()
        }
    }

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
        /// When the snapshot was taken (its timers count from then; nil: a row of an older
        /// release, whose timers count from its load).
        package var savedAt: Double? = nil
        /// The version the store held before this save (0: a new conversation): a store shared
        /// by several servers refuses the save when it holds another.
        package var storedVersion = 0
        /// The conversation's next timer (nil: none): a store shared by several servers lets any
        /// of them run a timer whose server is gone.
        package var deadline: Double? = nil
    }

    /// Changes saved after a conversation's snapshot, as steps to replay on it (one row per
    /// conversation and commit).
    package struct Steps: Sendable, Equatable {
        /// The conversation id.
        package var id: String
        /// Its version after the last of these steps.
        package var version: Int
        /// When they were saved.
        package var at: Double
        /// The steps, one JSON object per line.
        package var text: String
        /// The version the store held before these steps (see ``Row/storedVersion``).
        package var storedVersion = 0
        /// The conversation's next timer after them (nil: none).
        package var deadline: Double? = nil
    }

    /// What one commit writes for a conversation: its whole snapshot, or the steps since the
    /// last save.
    package enum Save: Sendable, Equatable {
        /// A whole snapshot; `replacingSteps`: steps of the conversation may be stored, and the
        /// ones it covers are deleted (a new conversation has none to look for).
        case snapshot(Row, replacingSteps: Bool = true)
        /// Steps after the stored snapshot.
        case steps(Steps)

        /// The conversation's id.
        package var id: String {
            switch self {
            case .snapshot(let r, _): return r.id
            case .steps(let s): return s.id
            }
        }

        /// The version the store held before this save (0: a new conversation).
        package var storedVersion: Int {
            switch self {
            case .snapshot(let r, _): return r.storedVersion
            case .steps(let s): return s.storedVersion
            }
        }

        /// The conversation's version once saved.
        package var version: Int {
            switch self {
            case .snapshot(let r, _): return r.version
            case .steps(let s): return s.version
            }
        }
    }

    /// Why the archive failed.
    package struct Failure: Error, Sendable {
        /// A sentence naming the file and the cause.
        package var message: String
    }

    /// The page size of a store file `rocket serve` makes (a file made before keeps its own).
    /// Measured when a start stored its snapshot (a row of about 600 bytes, now about 450 with its
    /// start instead) and four index entries, which 1 KiB pages (the statistics' size) held one
    /// each: at 2 KiB a start's commit writes 1.2
    /// pages to the log instead of 2.2 (about the same bytes), the checkpointer copies 1.0 KB per
    /// start instead of 1.4, and the writer's and checkpointer's time per start fell from 18 to
    /// 14 µs (starts +8–12 % in alternating runs), intents the same; 4 KiB pages cost intents 4 %,
    /// their changes landing on pages all over the tables.
    package static let pageSize = 2048

    private let database: SQLiteDatabase
    /// A connection for checkpoints only, so they run beside the writer's commits.
    private let checkpointer: SQLiteDatabase
    /// A read-only connection for results, so a page read never holds the writer's connection
    /// (the write-ahead log lets it read while the writer commits).
    private let reader: SQLiteDatabase
    /// The file.
    package let path: String
    package var place: String { path }

    /// Opens the archive tables in the file of `store`: conversations live beside the scenario
    /// statistics, in one file whose schema (every table, one migration list) the scenario store
    /// has already checked and migrated.
    package init(beside store: SQLiteScenarioStore) throws(Failure) {
        path = store.path
        do throws(SQLiteError) {
            // A connection of its own: the ticker's saves and the requests' scenario calls wait
            // for each other only in SQLite's lock, as two processes would.
            database = try SQLiteDatabase(path: path, mode: .readWrite)
            // It waits at most 10 ms for a lock: a restart checkpoint holds commits back while it
            // waits for readers (a long report), and gives up, as a passive one, after that.
            checkpointer = try SQLiteDatabase(path: path, mode: .readWrite, busyTimeout: 10)
            reader = try SQLiteDatabase(path: path, mode: .readOnly, busyTimeout: 5000)
            // No commit checkpoints (one copying megabytes of the log held up a whole batch of
            // answers for up to 95 ms): ``checkpoint(restartFrames:)`` does, on a thread of its own, for the
            // store's other connection too.
            // A 2 MiB page cache: every commit walks the cache's hash table (pager_end_transaction,
            // pcache1TruncateUnsafe, seen with perf), which grows with the cache; 16 MiB cost the
            // writer a tenth of its time (4 % fewer intents a second) to save reads of pages the
            // kernel holds anyway.
            try database.withConnection { (c) throws(SQLiteError) in
                try c.exec("PRAGMA synchronous=NORMAL; PRAGMA wal_autocheckpoint=0; PRAGMA cache_size=-2048")
                _ = try c.integer("SELECT count(*) FROM server_conversations WHERE 0")
            }
            try store.database.withConnection { (c) throws(SQLiteError) in try c.exec("PRAGMA wal_autocheckpoint=0") }
        } catch {
            throw Failure(message: "cannot use \(path) as the conversation store: \(error.message)")
        }
    }

    private func failure(_ error: SQLiteError) -> Failure {
        Failure(message: "\(path): \(error.message)")
    }

    /// Runs `body` in one `BEGIN IMMEDIATE` transaction: committed when it returns, rolled back
    /// when it throws.
    private func transaction(_ body: (SQLiteConnection) throws(SQLiteError) -> Void) throws(Failure) {
        do throws(SQLiteError) { try database.transaction(body) } catch { throw failure(error) }
    }

    /// The first column of every row of a query, as text.
    private func column(_ sql: StaticString, _ values: [SQLiteValue]) throws(Failure) -> [String] {
        do throws(SQLiteError) {
            return try database.withConnection { (c) throws(SQLiteError) -> [String] in
                let s = try c.statement(sql)
                defer { s.finish() }
                s.bind(values)
                var out: [String] = []
                while try s.step() { out.append(s.text(0)) }
                return out
            }
        } catch {
            throw failure(error)
        }
    }

    /// Saves a conversation and its new event records (`seq` numbers them within it) at once.
    package func save(_ row: Row, events: [(seq: Int, at: Double, record: String)]) throws(Failure) {
        try save([(.snapshot(row), flow: row.flow, events)])
    }

    /// Saves conversations (each its snapshot or its steps; `flow` names its flow on its
    /// records) and their new event records in one transaction. One server writes the file:
    /// no save is refused.
    @discardableResult
    package func save(_ batch: [Batched], results: [ResultRow]) throws(Failure) -> Set<String> {
        try transaction { (c) throws(SQLiteError) in
            for (save, flow, events) in batch { try write(c, save, flow: flow, events) }
            for r in results { try insert(r, c) }
        }
        return []
    }

    /// Writes result `r` (one written again, by a batch retried after a failure, is the same
    /// one: kept once).
    private func insert(_ r: ResultRow, _ c: SQLiteConnection) throws(SQLiteError) {
        try c.run(
            "INSERT OR IGNORE INTO server_results (id, flow, visitor, at, reason, answers, variant) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            [.text(r.id), .text(r.flow), .text(r.visitor), .real(r.at), .text(r.reason), .text(r.answers), .text(r.variant)])
    }

    /// Results after `after`, by number (of `flow` only, when given): at most `limit`.
    package func results(flow: String?, visitor: String?, ended: ReportWindow?, after: Int, limit: Int, maxBytes: Int) throws(Failure) -> [StoredResult] {
        do throws(SQLiteError) {
            return try Self.results(reader, flow: flow, visitor: visitor, ended: ended, after: after, limit: limit, maxBytes: maxBytes)
        } catch {
            throw failure(error)
        }
    }

    package func conversations(ofVisitor visitor: String, limit: Int) throws(Failure) -> [String] {
        try column(VisitorStatements.conversations, [.text(visitor), .integer(limit)])
    }

    private static func results(
        _ database: SQLiteDatabase, flow: String?, visitor: String? = nil, ended: ReportWindow? = nil, after: Int, limit: Int, maxBytes: Int
    ) throws(SQLiteError) -> [StoredResult] {
        try database.withConnection { (c) throws(SQLiteError) -> [StoredResult] in
            let s = try c.statement(text: ResultStatements.page(visitor: visitor != nil, flow: flow != nil, window: ended != nil))
            defer { s.finish() }
            s.bind(
                [
                    .integer(after), .integer(limit), flow.map { .text($0) } ?? .null, visitor.map { .text($0) } ?? .null,
                    ended?.since.map { .real($0) } ?? .null, ended?.until.map { .real($0) } ?? .null,
                ])
            var out: [StoredResult] = []
            var bytes = 0
            // A page ends early once its answers pass the page's bytes (it holds one result at least).
            while bytes < maxBytes, try s.step() {
                let answers = s.text(6)
                bytes += answers.utf8.count
                out.append(
                    StoredResult(
                        seq: s.int(0),
                        result: ResultRow(
                            id: s.text(1), flow: s.text(2), visitor: s.text(3), at: s.double(4) ?? 0, reason: s.text(5), answers: answers,
                            variant: s.text(7))))
            }
            return out
        }
    }

    /// Results of the store `store` (an SQLite file, or a PostgreSQL URL), opened for reading
    /// only (nothing is written or migrated): as ``results(flow:after:limit:)``.
    package static func results(
        store: String, flow: String?, ended: ReportWindow? = nil, after: Int, limit: Int, maxBytes: Int
    ) -> Swift.Result<[StoredResult], ReportReadFailure> {
        if PostgresURL.names(store) {
            return PostgresConversationArchive.results(store: store, flow: flow, ended: ended, after: after, limit: limit, maxBytes: maxBytes)
        }
        guard FileIO.exists(store) else { return .failure(ReportReadFailure(message: "cannot read '\(store)': no such file", missing: true)) }
        let opened: SQLiteScenarioStore
        do throws(ScenarioStoreError) {
            opened = try SQLiteScenarioStore(readingOnly: store)
        } catch {
            return .failure(ReportReadFailure(message: error.message, missing: false))
        }
        do throws(SQLiteError) {
            return .success(try results(opened.database, flow: flow, ended: ended, after: after, limit: limit, maxBytes: maxBytes))
        } catch {
            let old = error.message.containsText("no such table")
            return .failure(
                ReportReadFailure(message: old ? "\(store) holds no results: a release before them wrote it" : "\(store): \(error.message)", missing: false))
        }
    }

    package func webhookTurn(_ key: String, holder: String, now: Double, until: Double) throws(Failure) -> Int? {
        var out: Int?
        try transaction { (c) throws(SQLiteError) in
            let s = try c.statement("SELECT value FROM server_settings WHERE name = ?1")
            s.bind([.text(WebhookLease.settingName(key))])
            let stored = try s.step() ? WebhookLease(text: s.text(0)) : nil
            s.finish()
            var lease: WebhookLease
            if let stored {
                lease = stored
            } else {
                lease = WebhookLease(cursor: try c.integer("SELECT coalesce(max(seq), 0) FROM server_results"), holder: "", until: 0)
            }
            guard lease.holder == holder || lease.until <= now else { return }
            lease.holder = holder
            lease.until = until
            try c.run(
                "INSERT INTO server_settings (name, value) VALUES (?1, ?2) ON CONFLICT(name) DO UPDATE SET value = excluded.value",
                [.text(WebhookLease.settingName(key)), .text(lease.text)])
            out = lease.cursor
        }
        return out
    }

    package func webhookDelivered(_ key: String, holder: String, seq: Int) throws(Failure) -> Bool {
        var noted = false
        try transaction { (c) throws(SQLiteError) in
            let s = try c.statement("SELECT value FROM server_settings WHERE name = ?1")
            s.bind([.text(WebhookLease.settingName(key))])
            let stored = try s.step() ? WebhookLease(text: s.text(0)) : nil
            s.finish()
            guard var lease = stored, lease.holder == holder else { return }
            lease.cursor = max(lease.cursor, seq)
            try c.run("UPDATE server_settings SET value = ?2 WHERE name = ?1", [.text(WebhookLease.settingName(key)), .text(lease.text)])
            noted = true
        }
        return noted
    }

    /// Removes results written before `time` (at most 5,000 rows per call); how many went.
    package func forgetResults(before time: Double) throws(Failure) -> Int {
        try removing("DELETE FROM server_results WHERE seq IN (SELECT seq FROM server_results WHERE at < ?1 LIMIT 5000)", [.real(time)])
    }

    /// Runs one statement that removes rows, in a transaction of its own; how many went.
    private func removing(_ sql: StaticString, _ values: [SQLiteValue]) throws(Failure) -> Int {
        var gone = 0
        try transaction { (c) throws(SQLiteError) in
            try c.run(sql, values)
            gone = c.changes
        }
        return gone
    }

    package func keepFlowVersions(_ versions: [FlowVersion], at time: Double) throws(Failure) {
        try transaction { (c) throws(SQLiteError) in
            for v in versions {
                try c.run(
                    """
                    INSERT INTO server_flow_versions (identity, name, language, text, used) VALUES (?1, ?2, ?3, ?4, ?5)
                      ON CONFLICT (identity) DO UPDATE SET used = max(used, excluded.used)
                    """,
                    [.text(v.identity), .text(v.name), .text(v.language), .text(v.text), .real(time)])
            }
        }
    }

    package func flowVersion(_ identity: String) throws(Failure) -> FlowVersion? {
        do throws(SQLiteError) {
            return try database.transaction { (c) throws(SQLiteError) -> FlowVersion? in
                let s = try c.statement("SELECT name, language, text FROM server_flow_versions WHERE identity = ?1")
                defer { s.finish() }
                s.bind([.text(identity)])
                guard try s.step() else { return nil }
                return FlowVersion(identity: identity, name: s.text(0), language: s.text(1), text: s.text(2))
            }
        } catch {
            throw failure(error)
        }
    }

    package func forget(visitor: String) throws(Failure) -> (conversations: Int, results: Int) {
        var gone = (conversations: 0, results: 0)
        try transaction { (c) throws(SQLiteError) in
            try c.run(VisitorStatements.forgetConversationRecords, [.text(visitor)])
            try c.run(VisitorStatements.forgetResultRecords, [.text(visitor)])
            try c.run(VisitorStatements.forgetSteps, [.text(visitor)])
            try c.run(VisitorStatements.forgetConversations, [.text(visitor)])
            gone.conversations = c.changes
            try c.run(VisitorStatements.forgetResults, [.text(visitor)])
            gone.results = c.changes
        }
        return gone
    }

    package func forgetFlowVersions(before time: Double) throws(Failure) -> Int {
        try removing("DELETE FROM server_flow_versions WHERE used < ?1", [.real(time)])
    }

    private func write(_ c: SQLiteConnection, _ save: Save, flow: String, _ events: [(seq: Int, at: Double, record: String)]) throws(SQLiteError) {
        switch save {
        case .snapshot(let row, let replacingSteps):
            try c.run(
                """
                INSERT INTO server_conversations (id, visitor, flow, step, version, event_seq, touched, snapshot, saved_at)
                VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)
                ON CONFLICT(id) DO UPDATE SET step = excluded.step, version = excluded.version, event_seq = excluded.event_seq,
                  touched = excluded.touched, snapshot = excluded.snapshot, saved_at = excluded.saved_at
                  WHERE excluded.version > server_conversations.version
                """,
                [
                    .text(row.id), .text(row.visitor), .text(row.flow), .integer(row.step), .integer(row.version), .integer(row.eventSeq),
                    .real(row.touched), .text(row.snapshot), SQLiteValue.optional(row.savedAt),
                ])
            if replacingSteps { try c.run("DELETE FROM server_steps WHERE id = ?1 AND version <= ?2", [.text(row.id), .integer(row.version)]) }
        case .steps(let steps):
            try c.run(
                "INSERT OR IGNORE INTO server_steps (id, version, at, steps) VALUES (?1, ?2, ?3, ?4)",
                [.text(steps.id), .integer(steps.version), .real(steps.at), .text(steps.text)])
        }
        for e in events {
            try c.run(
                "INSERT OR IGNORE INTO server_events (id, seq, at, record, flow) VALUES (?1, ?2, ?3, ?4, ?5)",
                [.text(save.id), .integer(e.seq), .real(e.at), .text(e.record), .text(flow)])
        }
    }

    /// The stored conversation `id`, if any: its snapshot and the steps saved after it, in
    /// order (read in one transaction, so they agree).
    package func load(_ id: String) throws(Failure) -> (row: Row, steps: [Steps])? {
        do throws(SQLiteError) {
            return try database.transaction(reading: true) { (c) throws(SQLiteError) -> (row: Row, steps: [Steps])? in
                let s = try c.statement(
                    "SELECT id, visitor, flow, step, version, event_seq, touched, snapshot, saved_at FROM server_conversations WHERE id = ?1")
                defer { s.finish() }
                s.bind([.text(id)])
                guard try s.step() else { return nil }
                let row = Row(
                    id: s.text(0), visitor: s.text(1), flow: s.text(2), step: s.int(3), version: s.int(4), eventSeq: s.int(5),
                    touched: s.double(6) ?? 0, snapshot: s.text(7), savedAt: s.double(8))
                let t = try c.statement("SELECT version, at, steps FROM server_steps WHERE id = ?1 AND version > ?2 ORDER BY version")
                defer { t.finish() }
                t.bind([.text(id), .integer(row.version)])
                var steps: [Steps] = []
                while try t.step() { steps.append(Steps(id: id, version: t.int(0), at: t.double(1) ?? 0, text: t.text(2))) }
                return (row, steps)
            }
        } catch {
            throw failure(error)
        }
    }

    /// The event records of conversation `id`, in order, one JSON object each (rows hold the
    /// records of one flush as JSON Lines).
    package func events(_ id: String) throws(Failure) -> [String] {
        let rows = try column("SELECT record FROM server_events WHERE id = ?1 ORDER BY seq", [.text(id)])
        return rows.flatMap { $0.split(separator: "\n").map(String.init) }
    }

    /// The setting `name` of the server: the stored value, or `make()`'s, stored now. Two
    /// servers that start at once on one store agree: the first insert wins and both read it.
    package func setting(_ name: String, orMake make: () -> String) throws(Failure) -> String {
        let fresh = make()
        do throws(SQLiteError) {
            return try database.transaction { (c) throws(SQLiteError) -> String in
                try c.run("INSERT OR IGNORE INTO server_settings (name, value) VALUES (?1, ?2)", [.text(name), .text(fresh)])
                let s = try c.statement("SELECT value FROM server_settings WHERE name = ?1")
                defer { s.finish() }
                s.bind([.text(name)])
                return try s.step() ? s.text(0) : fresh
            }
        } catch {
            throw failure(error)
        }
    }

    /// Copies what the log holds into the file as far as no reader needs it, commits going on
    /// meanwhile (a passive checkpoint); past `restartFrames` frames the log is then finished
    /// and started again from its beginning (a restart checkpoint), so it stays small however
    /// busy the writer is. A restart holds commits back while it syncs the log, copies what is
    /// left and syncs the file, so passive checkpoints first catch up with what the writer added
    /// meanwhile (until fewer than ``restartLeftover`` frames came during one, at most four
    /// more): with the 1,500–2,800 frames one passive pass left at 20,000 starts a second, each
    /// restart held the writer back 9–16 ms; after catching up, mostly 1–3 ms. The log's frames
    /// before, and whether it was started again.
    ///
    /// Once the pages are copied (and the file synced, as SQLite does after a checkpoint), the
    /// kernel is told to let go of the cached pages of the part of the file that grew since the
    /// last time, but for its last ``cachedTail`` bytes: a store that grows fills memory
    /// otherwise with new pages no one reads again, every one a page the kernel must find and
    /// prepare first. Pages read back later, and the rest of the file, stay as the kernel keeps
    /// them. In alternating runs the starts' p99 was lower in 14 pairs of 18 and their rate within
    /// the noise (docs/BENCHMARKS.md, tenth session); intents were no slower.
    package func checkpoint(restartFrames: Int) throws(Failure) -> (frames: Int, restarted: Bool) {
        let done = try checkpointPasses(restartFrames: restartFrames)
        if done.frames > 0, case .success(let size) = FileIO.size(path) {
            let upTo = max(0, size - Self.cachedTail) & ~4_095
            let from = min(grownFrom.exchange(upTo, ordering: .relaxed), upTo)
            FileIO.dropCachedPages(path, from: from, to: upTo)
        }
        return done
    }

    /// The end of the file the kernel keeps cached after a checkpoint (bytes): its newest pages,
    /// the ones the next commits change again.
    package static let cachedTail = 1 << 20

    /// Where the part of the file not yet let go of begins (the checkpointer's only).
    private let grownFrom = Atomic(0)

    private func checkpointPasses(restartFrames: Int) throws(Failure) -> (frames: Int, restarted: Bool) {
        do throws(SQLiteError) {
            return try checkpointer.withConnection { (c) throws(SQLiteError) -> (frames: Int, restarted: Bool) in
                func run(_ sql: StaticString) throws(SQLiteError) -> (busy: Bool, frames: Int) {
                    let s = try c.statement(sql)
                    defer { s.finish() }
                    guard try s.step() else { return (false, 0) }
                    return (s.int(0) != 0, s.int(1))
                }
                let frames = try run("PRAGMA wal_checkpoint(PASSIVE)").frames
                guard frames > restartFrames else { return (frames, false) }
                var last = frames
                for _ in 0..<4 {
                    let now = try run("PRAGMA wal_checkpoint(PASSIVE)").frames
                    let grew = now - last
                    last = now
                    if grew < Self.restartLeftover { break }
                }
                return (frames, !(try run("PRAGMA wal_checkpoint(RESTART)")).busy)
            }
        } catch {
            throw failure(error)
        }
    }

    /// Frames that may come during a passive checkpoint for the restart after it to copy them
    /// itself (see ``checkpoint(restartFrames:)``).
    static let restartLeftover = 128

    /// Lets the file grow to at most `pages` pages on this connection (nil: SQLite's default):
    /// past it every write fails with SQLITE_FULL, as on a full disk. For tests of what the
    /// server does when it cannot write.
    package func limitPages(_ pages: Int?) throws(Failure) {
        do throws(SQLiteError) {
            try database.withConnection { (c) throws(SQLiteError) in
                _ = try c.integer("PRAGMA max_page_count = \(pages ?? 1_073_741_823)")
            }
        } catch {
            throw failure(error)
        }
    }

    /// Removes conversation `id` and its events.
    package func remove(_ id: String) throws(Failure) {
        try transaction { (c) throws(SQLiteError) in
            try c.run("DELETE FROM server_conversations WHERE id = ?1", [.text(id)])
            try c.run("DELETE FROM server_steps WHERE id = ?1", [.text(id)])
            try c.run("DELETE FROM server_events WHERE id = ?1", [.text(id)])
        }
    }

    /// Up to `limit` conversations last used before `time` (their event records stay for
    /// reports, see ``forgetRecords(before:)``), with their steps. A conversation whose steps
    /// were saved since is in use (its row is rewritten only with a snapshot).
    package func expiring(before time: Double, limit: Int) throws(Failure) -> [(row: Row, steps: [Steps])] {
        let ids = try column(
            """
            SELECT id FROM server_conversations c WHERE touched < ?1
              AND NOT EXISTS (SELECT 1 FROM server_steps s WHERE s.id = c.id AND s.at >= ?1) LIMIT ?2
            """, [.real(time), .integer(limit)])
        var out: [(row: Row, steps: [Steps])] = []
        for id in ids {
            if let stored = try load(id) { out.append(stored) }
        }
        return out
    }

    /// Removes those of conversations `ids` still last used before `time`, with their results.
    package func expire(_ ids: [String], before time: Double, results: [ResultRow]) throws(Failure) -> Set<String> {
        var gone: Set<String> = []
        try transaction { (c) throws(SQLiteError) in
            var removed: Set<String> = []
            for id in ids {
                try c.run(
                    """
                    DELETE FROM server_conversations WHERE id = ?1 AND touched < ?2
                      AND NOT EXISTS (SELECT 1 FROM server_steps s WHERE s.id = ?1 AND s.at >= ?2)
                    """, [.text(id), .real(time)])
                guard c.changes > 0 else { continue }
                removed.insert(id)
                try c.run("DELETE FROM server_steps WHERE id = ?1", [.text(id)])
            }
            for r in results where removed.contains(r.id) { try insert(r, c) }
            gone = removed
        }
        return gone
    }

    /// Removes event records written before `time` (at most 5,000 rows per call); how many went.
    package func forgetRecords(before time: Double) throws(Failure) -> Int {
        try removing("DELETE FROM server_events WHERE (id, seq) IN (SELECT id, seq FROM server_events WHERE at < ?1 LIMIT 5000)", [.real(time)])
    }

    /// Stores a record that belongs to no conversation (a holdout's exposure) under a fresh id.
    package func saveRecord(_ record: String, flow: String, id: String, at: Double) throws(Failure) {
        try transaction { (c) throws(SQLiteError) in
            try c.run(
                "INSERT INTO server_events (id, seq, at, record, flow) VALUES (?1, 1, ?2, ?3, ?4)", [.text(id), .real(at), .text(record), .text(flow)])
        }
    }

    /// Reads every stored event record (of `flow` only, when given) into `builder`, one
    /// conversation after another, in order; with a window on `builder`, only the conversations
    /// that may have begun in it (``ReportStatements``).
    /// Read through a read-only connection of its own (WAL lets it read while the writer
    /// writes), so a long report holds no lock the writer needs.
    package func readRecords(flow: String?, into builder: inout ReportBuilder) throws(ReportReadFailure) {
        if case .failure(let e) = Self.readRecords(store: path, flow: flow, into: &builder) { throw e }
    }

    private static func readRecords(_ database: SQLiteDatabase, path: String, flow: String?, into builder: inout ReportBuilder) throws(ReportReadFailure) {
        var bad: ReportInputError?
        do throws(SQLiteError) {
            try database.withConnection { (c) throws(SQLiteError) in
                let (sql, values) = ReportStatements.reading(flow: flow, window: builder.window)
                let s = try c.statement(sql)
                defer { s.finish() }
                s.bind(values)
                var current: String?
                var row = 0
                rows: while try s.step() {
                    row += 1
                    let id = s.text(0)
                    if id != current, let previous = current { builder.finishConversation(previous) }
                    current = id
                    let flowName = s.text(1)
                    for line in Array(s.text(2).utf8).split(separator: 0x0A) {
                        do throws(ReportInputError) {
                            try builder.add(Array(line), conversation: id, flow: flowName, line: row)
                        } catch {
                            bad = error
                            break rows
                        }
                    }
                }
                if let current { builder.finishConversation(current) }
            }
        } catch {
            let old = error.message.containsText("no such column") || error.message.containsText("no such table")
            throw ReportReadFailure(
                message: old ? "\(path) was written by an older rocket serve: run this release's rocket serve on it once" : "\(path): \(error.message)",
                missing: false)
        }
        if let bad { throw ReportReadFailure(message: "\(path): \(bad.message)", missing: false) }
    }

    /// Reads the records kept in the store file `store`, or the PostgreSQL store at a
    /// `postgresql://` URL (as ``readRecords(flow:into:)``), opened for reading only.
    package static func readRecords(store: String, flow: String?, into builder: inout ReportBuilder) -> Result<Void, ReportReadFailure> {
        if PostgresURL.names(store) { return PostgresConversationArchive.readRecords(store: store, flow: flow, into: &builder) }
        guard FileIO.exists(store) else { return .failure(ReportReadFailure(message: "cannot read '\(store)': no such file", missing: true)) }
        do throws(ReportReadFailure) {
            let opened: SQLiteScenarioStore
            do throws(ScenarioStoreError) {
                opened = try SQLiteScenarioStore(readingOnly: store)
            } catch {
                throw ReportReadFailure(message: error.message, missing: false)
            }
            try readRecords(opened.database, path: store, flow: flow, into: &builder)
            return .success(())
        } catch {
            return .failure(error)
        }
    }
}

extension ConversationArchive {
    /// The statements a report reads a store's event records with, one conversation after
    /// another in order. With a window, only the conversations with a row whose time falls in
    /// it, widened by ``ReportWindow/rowMargin``, are read (through the index of times; a test
    /// reads the plans): a row's time is its first record's, so a conversation that began in the
    /// window has one, and the report decides exactly on the records it reads. "The last day" of
    /// a store keeping 90 days reads a day's rows.
    package enum ReportStatements {
        /// Every conversation's records.
        static let all: StaticString = "SELECT id, flow, record FROM server_events ORDER BY id, seq"
        /// The records of flow ?1.
        static let ofFlow: StaticString = "SELECT id, flow, record FROM server_events WHERE flow = ?1 ORDER BY id, seq"
        /// The records of the conversations with a row from ?1 to before ?2.
        static let inWindow: StaticString = """
            SELECT id, flow, record FROM server_events WHERE id IN (SELECT id FROM server_events WHERE at >= ?1 AND at < ?2) ORDER BY id, seq
            """
        /// The records of flow ?3's conversations with a row from ?1 to before ?2.
        static let ofFlowInWindow: StaticString = """
            SELECT id, flow, record FROM server_events WHERE flow = ?3 AND id IN (SELECT id FROM server_events WHERE at >= ?1 AND at < ?2 AND flow = ?3) ORDER BY id, seq
            """

        /// The statement for a report of `flow` (nil: every flow) in `window` (nil: all time), and its values.
        static func reading(flow: String?, window: ReportWindow?) -> (StaticString, [SQLiteValue]) {
            guard let window else { return flow.map { (ofFlow, [.text($0)]) } ?? (all, []) }
            let (from, to) = window.rowTimes
            return flow.map { (ofFlowInWindow, [.real(from), .real(to), .text($0)]) } ?? (inWindow, [.real(from), .real(to)])
        }

        /// Every statement above with values that make it read a window, for the test of their plans.
        package static let windowed: [(StaticString, [SQLiteValue])] = [
            reading(flow: nil, window: ReportWindow(since: 1.8e9)), reading(flow: "welcome", window: ReportWindow(since: 1.8e9, until: 1.9e9)),
        ]
    }
}

extension ConversationArchive {
    /// The statement that reads a page of results: through the index of the visitor's results,
    /// else of the flow's, else by number (each in order). With a window of ends, the numbers
    /// read are first narrowed to those of the results that ended in it, found through the index
    /// of times (the first number from `since`, the last before `until`; a result's number is
    /// given at its commit, a little after its end, so the numbers of a window are nearly a run):
    /// a window of a week in a store of 90 days reads that week's rows, not those before or after.
    /// (`min(seq + 0)`, not `min(seq)`: the least number of a bare column is looked for in the
    /// table's order, row after row from the first, until one passes the time.)
    /// ?1 after, ?2 limit, ?3 flow, ?4 visitor, ?5 since, ?6 until (nil: no bound).
    package enum ResultStatements {
        static let columns = "SELECT seq, id, flow, visitor, at, reason, answers, variant FROM server_results"

        /// The page's statement for a visitor's (`visitor`), a flow's (`flow`) or every result,
        /// within a window of ends (`window`) or whenever they ended.
        static func page(visitor: Bool, flow: Bool, window: Bool) -> String {
            let chosen =
                visitor
                ? "visitor = ?4 AND (?3 IS NULL OR flow = ?3)" : flow ? "flow = ?3 AND ?4 IS NULL" : "?3 IS NULL AND ?4 IS NULL"
            let numbers =
                window
                ? """
                seq > max(?1, CASE WHEN ?5 IS NULL THEN 0 ELSE (SELECT coalesce(min(seq + 0), 9223372036854775807) - 1 FROM server_results WHERE at >= ?5) END) \
                AND seq <= CASE WHEN ?6 IS NULL THEN 9223372036854775807 ELSE (SELECT coalesce(max(seq + 0), 0) FROM server_results WHERE at < ?6) END \
                AND (?5 IS NULL OR at >= ?5) AND (?6 IS NULL OR at < ?6)
                """
                : "seq > ?1 AND ?5 IS NULL AND ?6 IS NULL"
            return "\(columns) WHERE \(chosen) AND \(numbers) ORDER BY seq LIMIT ?2"
        }

        /// Every page's statement, for the test of their plans.
        package static let all: [String] = [true, false].flatMap { window in
            [
                page(visitor: true, flow: false, window: window), page(visitor: false, flow: true, window: window),
                page(visitor: false, flow: false, window: window),
            ]
        }
    }
}

extension ReportWindow {
    /// How far past its bounds a store's rows are read for a window, in seconds: a row keeps
    /// its first record's time as a double, the record's text rounds it to the microsecond (so a
    /// conversation begun a hair before a bound may read as begun on it).
    package static let rowMargin = 1.0

    /// The times of the stored rows a report in this window reads the conversations of (from,
    /// to before): its bounds widened by ``rowMargin``, or the whole line where it has none.
    package var rowTimes: (from: Double, to: Double) {
        ((since ?? -.greatestFiniteMagnitude) - Self.rowMargin, (until ?? .greatestFiniteMagnitude) + Self.rowMargin)
    }
}

extension ConversationArchive {
    /// The statements that read or remove one visitor's conversations and results. Each is
    /// served by an index (a test reads their plans): an access request reads them while
    /// requests wait for the store, and an erasure runs while the writer waits for it.
    package enum VisitorStatements {
        /// The visitor's conversations (?1), by id, at most ?2.
        static let conversations: StaticString = "SELECT id FROM server_conversations WHERE visitor = ?1 ORDER BY id LIMIT ?2"
        /// The event records of the visitor's conversations.
        static let forgetConversationRecords: StaticString =
            "DELETE FROM server_events WHERE id IN (SELECT id FROM server_conversations WHERE visitor = ?1)"
        /// The event records of the visitor's results' conversations (gone from memory and from
        /// the conversations' table, kept for reports).
        static let forgetResultRecords: StaticString = "DELETE FROM server_events WHERE id IN (SELECT id FROM server_results WHERE visitor = ?1)"
        /// The steps saved after the visitor's snapshots.
        static let forgetSteps: StaticString = "DELETE FROM server_steps WHERE id IN (SELECT id FROM server_conversations WHERE visitor = ?1)"
        /// The visitor's conversations.
        static let forgetConversations: StaticString = "DELETE FROM server_conversations WHERE visitor = ?1"
        /// The visitor's results.
        static let forgetResults: StaticString = "DELETE FROM server_results WHERE visitor = ?1"

        /// Every statement above, for the test of their plans.
        package static let all: [StaticString] = [
            conversations, forgetConversationRecords, forgetResultRecords, forgetSteps, forgetConversations, forgetResults,
        ]
    }
}
