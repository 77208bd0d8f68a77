public import RocketScenarioEngine
package import RocketPostgres

/// Statistics in a PostgreSQL database (through libpq), for servers that share one truth:
/// every operation is one transaction, and a decision with its execution holds the scenario's row
/// locked (and, for a budget, the budget's lock), so however many processes or machines race,
/// `maxExecutionsPermitted`, `minSecondsBetweenExecutions` and budgets stay exact.
/// Its tables begin with `rocket_`, so the database may hold other programs' tables too.
///
/// ```swift
/// let store = try PostgresScenarioStore(url: "postgresql://rocket@db/rocket")
/// try store.triggerEvent("app-launch", at: now)
/// ```
public final class PostgresScenarioStore: ScenarioStore, VisitorStore {
    /// The pool of connections.
    package let database: PostgresDatabase

    /// Connects to `url` (a `postgresql://` URL as libpq reads it) and brings the schema up to
    /// date. An unreachable database, a refused login or a schema made by a newer rocket is a
    /// `ScenarioStoreError` whose message never holds the URL's password.
    public convenience init(url: String) throws(ScenarioStoreError) {
        guard let parsed = PostgresURL(url) else {
            throw ScenarioStoreError(.invalidData, "not a PostgreSQL URL (postgresql://…): \(url.prefix(12))…")
        }
        try self.init(database: PostgresDatabase(url: parsed))
    }

    /// Opens the store at `url` for reading only: nothing is written, so a login without write
    /// rights can read it (`rocket scenario status` and `export`). Nil when the database holds
    /// no rocket store yet; a store of another schema version is an error.
    public init?(readingOnly url: String) throws(ScenarioStoreError) {
        guard let parsed = PostgresURL(url) else {
            throw ScenarioStoreError(.invalidData, "not a PostgreSQL URL (postgresql://…): \(url.prefix(12))…")
        }
        database = PostgresDatabase(url: parsed)
        guard let version = try Self.storedSchemaVersion(database) else { return nil }
        if version > postgresStoreSchema.version {
            throw ScenarioStoreError(
                .newerSchema, "\(parsed) was made by a newer rocket (schema \(version); this one knows up to \(postgresStoreSchema.version))")
        }
        if version < postgresStoreSchema.version {
            throw ScenarioStoreError(.readOnly, "\(parsed) was made by an older rocket; open it once with a command that writes, to update it")
        }
    }

    /// The schema version of the store at `url`, read without writing (nil: the database holds
    /// no rocket store yet): what `rocket serve --check` tells of a migration to come.
    package static func storedSchemaVersion(url: String) throws(ScenarioStoreError) -> Int? {
        guard let parsed = PostgresURL(url) else {
            throw ScenarioStoreError(.invalidData, "not a PostgreSQL URL (postgresql://…): \(url.prefix(12))…")
        }
        return try storedSchemaVersion(PostgresDatabase(url: parsed, capacity: 1))
    }

    private static func storedSchemaVersion(_ database: PostgresDatabase) throws(ScenarioStoreError) -> Int? {
        do throws(PostgresError) {
            return try database.transaction(.readOnly) { (c) throws(PostgresError) -> Int? in
                guard try c.query("SELECT to_regclass('rocket_schema') IS NOT NULL").text(0, 0) == "t" else { return nil }
                return try c.query("SELECT max(version) FROM rocket_schema").firstInt
            }
        } catch {
            throw Self.error(error)
        }
    }

    /// The schema this code writes.
    package static var schemaVersion: Int { postgresStoreSchema.version }

    /// A store over `database`, its schema brought up to date.
    package init(database: PostgresDatabase) throws(ScenarioStoreError) {
        self.database = database
        do throws(PostgresError) { try postgresStoreSchema.migrate(database) } catch { throw Self.error(error) }
    }

    /// The store error for what PostgreSQL (or the way to it) refused.
    package static func error(_ e: PostgresError) -> ScenarioStoreError {
        if e.sqlState == "RKNEW" { return ScenarioStoreError(.newerSchema, e.message) }
        if e.isUnavailable { return ScenarioStoreError(.io, e.message.hasPrefix("cannot connect") ? e.message : "the database is unreachable: \(e.message)") }
        if e.isFull { return ScenarioStoreError(.full, "the database's disk is full: \(e.message)") }
        if e.isReadOnly { return ScenarioStoreError(.readOnly, "the database cannot be written: \(e.message)") }
        if e.isBusy || e.isRetryable { return ScenarioStoreError(.busy, "the database stayed busy: \(e.message)") }
        return ScenarioStoreError(.io, "the database refused: \(e.message)" + (e.sqlState.map { " (SQLSTATE \($0))" } ?? ""))
    }

    private func transaction<T>(
        _ isolation: PostgresDatabase.Isolation = .readCommitted, _ body: (PostgresConnection) throws(PostgresError) -> T
    )
        throws(ScenarioStoreError) -> T
    {
        do throws(PostgresError) { return try database.transaction(isolation, body) } catch { throw Self.error(error) }
    }

    /// The advisory lock of the shared budget ("ROCK" "BUDG"): taken shared by every execution,
    /// exclusively by a decision that counts the budget, so the count it reads stays true until
    /// it commits.
    static let budgetLock = 0x524F_434B_4255_4447

    private func read(_ c: PostgresConnection, _ name: String, events: Bool, lock: Bool = false) throws(PostgresError) -> ScenarioStats {
        var stats = ScenarioStats()
        let rows = try c.query(
            lock
                ? "SELECT events_count, executions_count, first_event, last_event, last_execution FROM rocket_scenarios WHERE name = $1 FOR UPDATE"
                : "SELECT events_count, executions_count, first_event, last_event, last_execution FROM rocket_scenarios WHERE name = $1",
            [.text(name)])
        if rows.count > 0 {
            stats = ScenarioStats(
                eventsCount: rows.int(0, 0), executionsCount: rows.int(0, 1), firstEventDate: rows.double(0, 2), lastEventDate: rows.double(0, 3),
                lastExecutionDate: rows.double(0, 4))
        }
        if events {
            let times = try c.query(
                "SELECT at FROM (SELECT seq, at FROM rocket_scenario_events WHERE scenario = $1 ORDER BY seq DESC LIMIT $2) e ORDER BY seq",
                [.text(name), .integer(ScenarioStats.recentLimit)])
            stats.recentEvents = (0..<times.count).map { times.double($0, 0) ?? 0 }
        }
        return stats
    }

    public func triggerEvent(_ name: String, at now: Double) throws(ScenarioStoreError) {
        try transaction { (c) throws(PostgresError) in try Self.countEvent(c, name, at: now) }
    }

    /// Counts an event of `name` on `c`, inside the caller's transaction.
    private static func countEvent(_ c: PostgresConnection, _ name: String, at now: Double) throws(PostgresError) {
        // The upsert locks the scenario's row: events of one scenario are counted one at a time.
        let count =
            try c.query(
                """
                INSERT INTO rocket_scenarios AS s (name, events_count, first_event, last_event) VALUES ($1, 1, $2, $2)
                ON CONFLICT (name) DO UPDATE SET events_count = LEAST(s.events_count, 9223372036854775806) + 1,
                  first_event = COALESCE(s.first_event, excluded.first_event), last_event = excluded.last_event
                RETURNING events_count
                """, [.text(name), .real(now)]
            ).firstInt ?? 0
        try c.query("INSERT INTO rocket_scenario_events (scenario, at) VALUES ($1, $2)", [.text(name), .real(now)])
        // Keep the most recent event times only (checked every 100 events to stay cheap).
        if count % 100 == 0 {
            try c.query(
                """
                DELETE FROM rocket_scenario_events WHERE scenario = $1 AND seq <= (SELECT seq FROM rocket_scenario_events
                  WHERE scenario = $1 ORDER BY seq DESC OFFSET $2 LIMIT 1)
                """, [.text(name), .integer(ScenarioStats.recentLimit)])
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
        try transaction { (c) throws(PostgresError) -> Bool in
            // The budget first (every decision takes it in the same order: no deadlock), then the
            // scenario's row, made if missing so that it can be locked.
            try c.query(
                rules.budget != nil ? "SELECT pg_advisory_xact_lock($1)" : "SELECT pg_advisory_xact_lock_shared($1)", [.integer(Self.budgetLock)])
            try c.query("INSERT INTO rocket_scenarios (name) VALUES ($1) ON CONFLICT (name) DO NOTHING", [.text(name)])
            let stats = try read(c, name, events: rules.minEventsInWindow != nil, lock: true)
            var executions: [Double] = []
            if let budget = rules.budget {
                let rows = try c.query("SELECT at FROM rocket_scenario_executions WHERE at > $1 ORDER BY at", [.real(now - budget.seconds)])
                executions = (0..<rows.count).map { rows.double($0, 0) ?? 0 }
            }
            guard decide(stats, executions) else { return false }
            try c.query(
                """
                UPDATE rocket_scenarios SET executions_count = LEAST(executions_count, 9223372036854775806) + 1, last_execution = $2
                WHERE name = $1
                """, [.text(name), .real(now)])
            let seq = try c.query("INSERT INTO rocket_scenario_executions (scenario, at) VALUES ($1, $2) RETURNING seq", [.text(name), .real(now)])
            if (seq.firstInt ?? 0) % 100 == 0 {
                try c.query(
                    "DELETE FROM rocket_scenario_executions WHERE seq <= (SELECT seq FROM rocket_scenario_executions ORDER BY seq DESC OFFSET $1 LIMIT 1)",
                    [.integer(ScenarioSnapshot.executionLimit)])
            }
            // Locked after the scenario's row (every try takes them in this order: no deadlock).
            if let other { try Self.countEvent(c, other, at: now) }
            return true
        }
    }

    public func stats(_ name: String) throws(ScenarioStoreError) -> ScenarioStats {
        try transaction(.readOnly) { (c) throws(PostgresError) in try read(c, name, events: true) }
    }

    public func reset(_ name: String) throws(ScenarioStoreError) {
        try transaction { (c) throws(PostgresError) in
            try c.query("DELETE FROM rocket_scenarios WHERE name = $1", [.text(name)])
            try c.query("DELETE FROM rocket_scenario_events WHERE scenario = $1", [.text(name)])
            try c.query("DELETE FROM rocket_scenario_executions WHERE scenario = $1", [.text(name)])
        }
    }

    public func resetAll() throws(ScenarioStoreError) {
        try transaction { (c) throws(PostgresError) in
            try c.execute("DELETE FROM rocket_scenarios; DELETE FROM rocket_scenario_events; DELETE FROM rocket_scenario_executions")
        }
    }

    package func forgetVisitors(
        inactiveSince time: Double, after cursor: String, examining count: Int
    ) throws(ScenarioStoreError) -> (
        forgotten: Int, next: String?
    ) {
        try transaction { (c) throws(PostgresError) -> (forgotten: Int, next: String?) in
            let slice = try c.query(VisitorStatements.quietAfter, [.real(time), .text(cursor), .integer(count)])
            let names = (0..<slice.count).filter { slice.text($0, 1) == "t" }.map { slice.text($0, 0) }
            var gone = 0
            if !names.isEmpty { gone = try c.query(VisitorStatements.forgetNamed, [.texts(names), .real(time)]).firstInt ?? 0 }
            return (gone, slice.count < count ? nil : slice.text(slice.count - 1, 0))
        }
    }

    package func forget(visitor: String) throws(ScenarioStoreError) -> Int {
        try transaction { (c) throws(PostgresError) -> Int in
            let gone = try c.query(VisitorStatements.forgetStatistics, [.text(visitor)])
            if gone.count > 0 {
                let names = (0..<gone.count).map { gone.text($0, 0) }
                try c.query("DELETE FROM rocket_scenario_events WHERE scenario = ANY($1::text[])", [.texts(names)])
            }
            try c.query(VisitorStatements.anonymizeExecutions, [.text(visitor)])
            let assignments = try c.query(VisitorStatements.forgetAssignments, [.text(visitor)]).affected
            return gone.count + assignments
        }
    }

    package func kept(ofVisitor visitor: String) throws(ScenarioStoreError) -> VisitorRecord {
        let suffix = "@" + visitor
        return try transaction { (c) throws(PostgresError) -> VisitorRecord in
            var out = VisitorRecord()
            let s = try c.query(VisitorStatements.statistics, [.text(visitor)])
            for r in 0..<s.count {
                out.statistics.append(
                    (
                        String(s.text(r, 0).dropLast(suffix.count)),
                        ScenarioStats(
                            eventsCount: s.int(r, 1), executionsCount: s.int(r, 2), firstEventDate: s.double(r, 3), lastEventDate: s.double(r, 4),
                            lastExecutionDate: s.double(r, 5))
                    ))
            }
            let a = try c.query(VisitorStatements.assignments, [.text(visitor)])
            for r in 0..<a.count { out.assignments.append((a.text(r, 0), a.text(r, 1), a.double(r, 2) ?? 0)) }
            return out
        }
    }

    package func assignment(experiment: String, visitor: String, at: Double, known: Set<String>, fresh: String) throws(ScenarioStoreError) -> String {
        try transaction { (c) throws(PostgresError) -> String in
            // The row is locked (made first when missing) so that two servers racing agree.
            try c.query(
                "INSERT INTO rocket_assignments (experiment, visitor, variant, at) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING",
                [.text(experiment), .text(visitor), .text(fresh), .real(at)])
            let stored = try c.query(
                "SELECT variant FROM rocket_assignments WHERE experiment = $1 AND visitor = $2 FOR UPDATE", [.text(experiment), .text(visitor)])
            if stored.count > 0, known.contains(stored.text(0, 0)) { return stored.text(0, 0) }
            try c.query(
                "UPDATE rocket_assignments SET variant = $3, at = $4 WHERE experiment = $1 AND visitor = $2",
                [.text(experiment), .text(visitor), .text(fresh), .real(at)])
            return fresh
        }
    }

    package func forgetAssignments(before time: Double) throws(ScenarioStoreError) -> Int {
        try transaction { (c) throws(PostgresError) -> Int in
            try c.query(VisitorStatements.oldAssignments, [.real(time)]).affected
        }
    }

    /// The names of every scenario with statistics.
    public func names() throws(ScenarioStoreError) -> [String] {
        try transaction(.readOnly) { (c) throws(PostgresError) in
            let rows = try c.query("SELECT name FROM rocket_scenarios ORDER BY name")
            return (0..<rows.count).map { rows.text($0, 0) }
        }
    }

    public func snapshot() throws(ScenarioStoreError) -> ScenarioSnapshot {
        try transaction(.readOnly) { (c) throws(PostgresError) in
            let names = try c.query("SELECT name FROM rocket_scenarios ORDER BY name")
            var all: [String: ScenarioStats] = [:]
            for r in 0..<names.count {
                let name = names.text(r, 0)
                all[name] = try read(c, name, events: true)
            }
            let rows = try c.query(
                "SELECT scenario, at FROM (SELECT seq, scenario, at FROM rocket_scenario_executions ORDER BY seq DESC LIMIT $1) e ORDER BY seq",
                [.integer(ScenarioSnapshot.executionLimit)])
            let executions = (0..<rows.count).map { ScenarioSnapshot.Execution(scenario: rows.text($0, 0), at: rows.double($0, 1) ?? 0) }
            return ScenarioSnapshot(scenarios: all, executions: executions)
        }
    }

    public func restore(_ snapshot: ScenarioSnapshot) throws(ScenarioStoreError) {
        try transaction { (c) throws(PostgresError) in
            try c.query("SELECT pg_advisory_xact_lock($1)", [.integer(Self.budgetLock)])
            try c.execute("DELETE FROM rocket_scenarios; DELETE FROM rocket_scenario_events; DELETE FROM rocket_scenario_executions")
            for (name, entry) in snapshot.scenarios.sorted(by: { $0.key < $1.key }) {
                try c.query(
                    "INSERT INTO rocket_scenarios VALUES ($1, $2, $3, $4, $5, $6)",
                    [
                        .text(name), .integer(entry.eventsCount), .integer(entry.executionsCount), .optional(entry.firstEventDate),
                        .optional(entry.lastEventDate), .optional(entry.lastExecutionDate),
                    ])
                for at in entry.recentEvents {
                    try c.query("INSERT INTO rocket_scenario_events (scenario, at) VALUES ($1, $2)", [.text(name), .real(at)])
                }
            }
            for e in snapshot.executions {
                try c.query("INSERT INTO rocket_scenario_executions (scenario, at) VALUES ($1, $2)", [.text(e.scenario), .real(e.at)])
            }
        }
    }
}

/// The tables of a rocket store on PostgreSQL and how each version came about: step `k` takes
/// version `k` to `k + 1` (docs/SEMANTICS.md names what each holds). The SQLite store's tables,
/// in PostgreSQL's types, with the `rocket_` prefix.
package let postgresStoreSchema = PostgresSchema(migrations: [
    // 0 → 1: WaitForIt's statistics, event times (windows) and executions across scenarios (budgets).
    """
    CREATE TABLE rocket_scenarios (name text PRIMARY KEY, events_count bigint NOT NULL DEFAULT 0,
      executions_count bigint NOT NULL DEFAULT 0, first_event double precision, last_event double precision,
      last_execution double precision);
    CREATE TABLE rocket_scenario_events (seq bigserial, scenario text NOT NULL, at double precision NOT NULL,
      PRIMARY KEY (scenario, seq));
    CREATE TABLE rocket_scenario_executions (seq bigserial PRIMARY KEY, scenario text NOT NULL, at double precision NOT NULL);
    CREATE INDEX rocket_scenario_executions_by_time ON rocket_scenario_executions (at);
    """,
    // 1 → 2: the server's conversations (a snapshot, the version it was taken at, and the latest
    // version, which every save checks and moves on: servers sharing the database never
    // overwrite each other's changes; the next timer, and until when a server has claimed it
    // after the one that held the conversation stopped), the steps after a snapshot, event records (they outlive
    // their conversation, for reports), the server's settings, experiments' assignments, and
    // AlertReactor alerts (kept in memory by a server with its own store; here any server serves them).
    """
    CREATE TABLE rocket_conversations (id text PRIMARY KEY, visitor text NOT NULL, flow text NOT NULL, step bigint NOT NULL,
      version bigint NOT NULL, snapshot_version bigint NOT NULL, event_seq bigint NOT NULL, touched double precision NOT NULL,
      snapshot text NOT NULL, saved_at double precision, deadline double precision, claimed_until double precision);
    CREATE INDEX rocket_conversations_by_touch ON rocket_conversations (touched);
    CREATE INDEX rocket_conversations_by_deadline ON rocket_conversations (deadline) WHERE deadline IS NOT NULL;
    CREATE TABLE rocket_steps (id text NOT NULL, version bigint NOT NULL, at double precision NOT NULL, steps text NOT NULL,
      PRIMARY KEY (id, version));
    CREATE TABLE rocket_events (id text NOT NULL, seq bigint NOT NULL, at double precision NOT NULL, record text NOT NULL,
      flow text NOT NULL DEFAULT '', PRIMARY KEY (id, seq));
    CREATE INDEX rocket_events_by_time ON rocket_events (at);
    CREATE INDEX rocket_events_by_flow ON rocket_events (flow, id, seq);
    CREATE TABLE rocket_settings (name text PRIMARY KEY, value text NOT NULL);
    CREATE TABLE rocket_assignments (experiment text NOT NULL, visitor text NOT NULL, variant text NOT NULL, at double precision NOT NULL,
      PRIMARY KEY (experiment, visitor));
    CREATE INDEX rocket_assignments_by_time ON rocket_assignments (at);
    CREATE TABLE rocket_alerts (id text PRIMARY KEY, visitor text NOT NULL, version bigint NOT NULL, touched double precision NOT NULL,
      alert text NOT NULL);
    CREATE INDEX rocket_alerts_by_touch ON rocket_alerts (touched);
    """,
    // 2 → 3: no table changes. A conversation unchanged since it started is stored as its start
    // (docs/SNAPSHOT_FORMAT.md), which a release before cannot read: the version tells such a
    // release that the database is newer than it.
    """
    COMMENT ON COLUMN rocket_conversations.snapshot IS 'a snapshot, or the start of a conversation unchanged since (docs/SNAPSHOT_FORMAT.md)';
    """,
    // 3 → 4: results: what each conversation that ended was answered, for the site's back end,
    // numbered in the order their commits made them visible (the commits that write results take
    // a lock for it, so a reader that has seen number N never meets a smaller one later).
    """
    CREATE TABLE rocket_results (seq bigserial PRIMARY KEY, id text NOT NULL UNIQUE, flow text NOT NULL, visitor text NOT NULL,
      at double precision NOT NULL, reason text NOT NULL, answers text NOT NULL);
    CREATE INDEX rocket_results_by_flow ON rocket_results (flow, seq);
    CREATE INDEX rocket_results_by_time ON rocket_results (at);
    """,
    // 4 → 5: a result names its experiment's variant ("" without one).
    """
    ALTER TABLE rocket_results ADD COLUMN variant text NOT NULL DEFAULT '';
    """,
    // 5 → 6: the versions of flows that conversations were saved with, so that one started
    // before its flow's file changed goes on with its own version, on any server.
    """
    CREATE TABLE rocket_flow_versions (identity text PRIMARY KEY, name text NOT NULL, language text NOT NULL, text text NOT NULL,
      used double precision NOT NULL);
    CREATE INDEX rocket_flow_versions_by_use ON rocket_flow_versions (used);
    """,
    // 6 → 7: a visitor's results found without reading everyone's (its access request,
    // `GET /v1/results?visitor=`, its erasure).
    """
    CREATE INDEX rocket_results_by_visitor ON rocket_results (visitor, seq);
    """,
    // 7 → 8: the rest of a visitor's rows found without reading everyone's (its access request,
    // its erasure): its conversations, alerts and assignments, and its per-visitor statistics
    // and executions, whose names are "NAME@VISITOR" (indexed on what follows the "@"; see
    // `visitorOfName`).
    """
    CREATE INDEX rocket_conversations_by_visitor ON rocket_conversations (visitor);
    CREATE INDEX rocket_alerts_by_visitor ON rocket_alerts (visitor);
    CREATE INDEX rocket_assignments_by_visitor ON rocket_assignments (visitor);
    CREATE INDEX rocket_scenarios_by_visitor ON rocket_scenarios (substr(name, strpos(name, '@') + 1)) WHERE strpos(name, '@') > 0;
    CREATE INDEX rocket_scenario_executions_by_visitor ON rocket_scenario_executions (substr(scenario, strpos(scenario, '@') + 1))
      WHERE strpos(scenario, '@') > 0;
    CREATE INDEX rocket_scenarios_by_activity ON rocket_scenarios
      (greatest(coalesce(last_event, '-Infinity'), coalesce(last_execution, '-Infinity'), coalesce(first_event, '-Infinity')))
      WHERE strpos(name, '@') > 0;
    """,
    // 8 → 9: two of those indexes go again (as SQLite's 13 → 14): every event and every gated
    // start wrote them; the executions' log is small, and the sweep of quiet visitors reads a
    // slice of the statistics a minute through their key.
    """
    DROP INDEX rocket_scenario_executions_by_visitor;
    DROP INDEX rocket_scenarios_by_activity;
    """,
    // 9 → 10: the results' index of times holds their numbers too, so that a page of the results
    // that ended in a window finds the window's first and last number in the index alone (as
    // SQLite's index, whose entries hold the row's number, always did).
    """
    DROP INDEX rocket_results_by_time;
    CREATE INDEX rocket_results_by_time ON rocket_results (at, seq);
    """,
])

/// The statements that read or remove one visitor's rows, or those of visitors gone quiet, each
/// served by an index (a test reads their plans), as the SQLite store's `VisitorStatements`.
package enum VisitorStatements {
    /// The terms that pick the per-visitor rows of `visitor` ($1) by their scenario name in
    /// `column`: the name holds an "@" and what follows its first one is the visitor (scenario
    /// names and visitor ids hold none). Written as the indexes of schema 8 are, so PostgreSQL
    /// uses them.
    static func ofVisitor(_ column: String) -> String {
        "strpos(\(column), '@') > 0 AND substr(\(column), strpos(\(column), '@') + 1) = $1"
    }

    /// The visitor's statistics removed, with their names.
    static let forgetStatistics = "DELETE FROM rocket_scenarios WHERE \(ofVisitor("name")) RETURNING name"
    /// The visitor's statistics, by name.
    static let statistics = """
        SELECT name, events_count, executions_count, first_event, last_event, last_execution FROM rocket_scenarios
          WHERE \(ofVisitor("name")) ORDER BY name
        """
    /// The visitor's executions keep their place in the store-wide budget under their
    /// scenario's name alone.
    /// (The log holds at most `executionLog` rows and a few between trims: read whole.)
    static let anonymizeExecutions =
        "UPDATE rocket_scenario_executions SET scenario = left(scenario, strpos(scenario, '@') - 1) WHERE \(ofVisitor("scenario"))"
    /// The visitor's assignments.
    static let assignments = "SELECT experiment, variant, at FROM rocket_assignments WHERE visitor = $1 ORDER BY experiment"
    /// Its assignments removed.
    static let forgetAssignments = "DELETE FROM rocket_assignments WHERE visitor = $1"
    /// The statistics after $2 in name order, at most $3, each with whether it is a
    /// per-visitor one with nothing since $1 ("t"): the sweep of quiet visitors looks at a slice
    /// of the table at a time through its key (an index of their last activity would be written
    /// by every event and every gated start).
    static let quietAfter = """
        SELECT name, strpos(name, '@') > 0
          AND greatest(coalesce(last_event, '-Infinity'), coalesce(last_execution, '-Infinity'), coalesce(first_event, '-Infinity')) < $1
          FROM rocket_scenarios WHERE name > $2 ORDER BY name LIMIT $3
        """
    /// Statistics named in $1 removed, with their event times, unless one was used since $2
    /// (another server's event meanwhile); how many went.
    static let forgetNamed = """
        WITH gone AS (DELETE FROM rocket_scenarios WHERE name = ANY($1::text[])
          AND greatest(coalesce(last_event, '-Infinity'), coalesce(last_execution, '-Infinity'), coalesce(first_event, '-Infinity')) < $2
          RETURNING name),
        events AS (DELETE FROM rocket_scenario_events WHERE scenario = ANY($1::text[]) AND scenario IN (SELECT name FROM gone))
        SELECT count(*) FROM gone
        """
    /// Assignments made before $1 removed, at most 5,000, by their place (`ctid`; see the
    /// archive's `SweepStatements`: `IN (SELECT … LIMIT n)` was planned as a join over the table).
    static let oldAssignments = """
        DELETE FROM rocket_assignments WHERE ctid = ANY(ARRAY(
          SELECT ctid FROM rocket_assignments WHERE at < $1 LIMIT 5000 FOR UPDATE SKIP LOCKED))
        """

    /// Every statement above with the values a test explains it with (their plans).
    package static let all: [(String, [PostgresValue])] = [
        (forgetStatistics, [.text("v")]), (statistics, [.text("v")]), (assignments, [.text("v")]), (forgetAssignments, [.text("v")]),
        (quietAfter, [.real(1.5e9), .text("tour@q"), .integer(20)]), (forgetNamed, [.texts(["tour@q1", "tour@q2"]), .real(1.5e9)]),
        (oldAssignments, [.real(1.5e9)]),
    ]
}
