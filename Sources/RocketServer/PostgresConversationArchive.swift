import RocketCore
package import RocketPostgres
package import RocketReport
import RocketScenarioEngine

#if canImport(Glibc)
    import Glibc
#endif
package import RocketScenariosPostgres

/// The conversations of a PostgreSQL store, which several servers share: the tables of the
/// store's schema (`rocket_conversations`, `rocket_steps`, `rocket_events`, `rocket_settings`).
/// Every save names the version it was based on and moves the stored one on in the same
/// statement, so when two servers change one conversation at once, one save is refused
/// (``save(_:)`` returns its id) and nothing of it is written: a change is never lost or
/// applied twice.
package final class PostgresConversationArchive: ConversationStore, SharedAlerts {
    private let database: PostgresDatabase
    package var place: String { database.url.description }

    /// The archive in the database of `store` (whose schema the store has migrated).
    package init(beside store: PostgresScenarioStore) {
        database = store.database
    }

    private func failure(_ e: PostgresError) -> ConversationArchive.Failure {
        ConversationArchive.Failure(message: "\(place): \(e.message)")
    }

    private func transaction<T>(
        _ isolation: PostgresDatabase.Isolation = .readCommitted, _ body: (PostgresConnection) throws(PostgresError) -> T
    )
        throws(ConversationArchive.Failure) -> T
    {
        do throws(PostgresError) { return try database.transaction(isolation, body) } catch { throw failure(error) }
    }

    @discardableResult
    package func save(_ batch: [ConversationArchive.Batched], results: [ConversationArchive.ResultRow]) throws(ConversationArchive.Failure) -> Set<String> {
        // A few statements per commit, whatever its size (a statement per row cost a round trip
        // each): the rows locked in one order, whole snapshots one by one (one in 16 saves), the
        // steps of every other conversation in one statement, all event records in one.
        let sorted = batch.sorted { $0.save.id < $1.save.id }
        var steps: [ConversationArchive.Steps] = []
        var snapshots: [ConversationArchive.Save] = []
        for item in sorted {
            if case .steps(let s) = item.save { steps.append(s) } else { snapshots.append(item.save) }
        }
        return try transaction { (c) throws(PostgresError) -> Set<String> in
            // Rows in one order (by id) in every server's commits: two commits never wait for
            // each other's rows crosswise (a deadlock PostgreSQL only breaks after a second).
            let existing = sorted.filter { $0.save.storedVersion != 0 }.map(\.save.id)
            if !existing.isEmpty {
                try c.query("SELECT id FROM rocket_conversations WHERE id = ANY($1::text[]) ORDER BY id FOR UPDATE", [.texts(existing)])
            }
            var saved: Set<String> = []
            for save in snapshots where try write(c, save) { saved.insert(save.id) }
            if !steps.isEmpty {
                let moved = try c.query(
                    """
                    WITH i AS (SELECT * FROM unnest($1::text[], $2::bigint[], $3::float8[], $4::text[], $5::bigint[], $6::float8[])
                      AS t(id, version, at, steps, base, deadline)),
                    m AS (UPDATE rocket_conversations c SET version = i.version, touched = i.at, deadline = i.deadline
                      FROM i WHERE c.id = i.id AND c.version = i.base RETURNING c.id),
                    s AS (INSERT INTO rocket_steps (id, version, at, steps) SELECT i.id, i.version, i.at, i.steps FROM i JOIN m ON m.id = i.id)
                    SELECT id FROM m
                    """,
                    [
                        .texts(steps.map(\.id)), .integers(steps.map(\.version)), .reals(steps.map(\.at)), .texts(steps.map(\.text)),
                        .integers(steps.map(\.storedVersion)), .reals(steps.map(\.deadline)),
                    ])
                for r in 0..<moved.count { saved.insert(moved.text(r, 0)) }
            }
            var ids: [String] = [], seqs: [Int] = [], ats: [Double?] = [], records: [String] = [], flows: [String] = [], told: [String] = []
            for (save, flow, events) in sorted where saved.contains(save.id) {
                told.append(save.id + " " + String(save.version))
                for e in events {
                    ids.append(save.id)
                    seqs.append(e.seq)
                    ats.append(e.at)
                    records.append(e.record)
                    flows.append(flow)
                }
            }
            if !ids.isEmpty {
                try c.query(
                    """
                    INSERT INTO rocket_events (id, seq, at, record, flow)
                    SELECT * FROM unnest($1::text[], $2::bigint[], $3::float8[], $4::text[], $5::text[]) ON CONFLICT DO NOTHING
                    """, [.texts(ids), .integers(seqs), .reals(ats), .texts(records), .texts(flows)])
            }
            // Results of the conversations saved, numbered under a lock held to the commit: the
            // commits that write results are made visible in the order of their numbers, so a
            // reader past number N never meets a smaller one later. A result written again (a
            // batch retried) is the same one: kept once.
            try Self.insert(results.filter { saved.contains($0.id) }, c)
            // Every server listening is told of the saved versions when the commit is done (ids
            // and versions only, far under NOTIFY's 8,000 bytes: the state is read from the database).
            if !told.isEmpty { try c.query("SELECT pg_notify('\(Self.channel)', x) FROM unnest($1::text[]) x", [.texts(told)]) }
            return Set(sorted.map(\.save.id)).subtracting(saved)
        }
    }

    /// Writes results `kept` in the transaction of `c`, numbered under ``resultsLock``.
    private static func insert(_ kept: [ConversationArchive.ResultRow], _ c: PostgresConnection) throws(PostgresError) {
        guard !kept.isEmpty else { return }
        try c.query("SELECT pg_advisory_xact_lock($1)", [.integer(resultsLock)])
        try c.query(
            """
            INSERT INTO rocket_results (id, flow, visitor, at, reason, answers, variant)
            SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::float8[], $5::text[], $6::text[], $7::text[]) ON CONFLICT (id) DO NOTHING
            """,
            [
                .texts(kept.map(\.id)), .texts(kept.map(\.flow)), .texts(kept.map(\.visitor)), .reals(kept.map(\.at)),
                .texts(kept.map(\.reason)), .texts(kept.map(\.answers)), .texts(kept.map(\.variant)),
            ])
    }

    /// The channel saves are told on.
    static let channel = "rocket_changes"
    /// The advisory lock the commits that write results take ("ROCKRSLT").
    static let resultsLock = 0x524F_434B_5253_4C54

    package func conversations(ofVisitor visitor: String, limit: Int) throws(ConversationArchive.Failure) -> [String] {
        let rows = try transaction(.readOnly) { (c) throws(PostgresError) -> PostgresRows in
            try c.query(VisitorStatements.conversations, [.text(visitor), .integer(limit)])
        }
        return (0..<rows.count).map { rows.text($0, 0) }
    }

    package func results(
        flow: String?, visitor: String?, ended: ReportWindow?, after: Int, limit: Int, maxBytes: Int
    ) throws(ConversationArchive.Failure) -> [ConversationArchive.StoredResult] {
        let rows = try transaction { (c) throws(PostgresError) -> PostgresRows in
            try c.query(
                ResultStatements.page,
                [
                    .integer(after), .integer(limit), flow.map { .text($0) } ?? .null, .integer(maxBytes), visitor.map { .text($0) } ?? .null,
                    ended?.since.map { .real($0) } ?? .null, ended?.until.map { .real($0) } ?? .null,
                ])
        }
        return (0..<rows.count).map { r in
            ConversationArchive.StoredResult(
                seq: rows.int(r, 0),
                result: ConversationArchive.ResultRow(
                    id: rows.text(r, 1), flow: rows.text(r, 2), visitor: rows.text(r, 3), at: rows.double(r, 4) ?? 0, reason: rows.text(r, 5),
                    answers: rows.text(r, 6), variant: rows.text(r, 7)))
        }
    }

    /// Results of the PostgreSQL store at `url`, opened for reading only.
    package static func results(
        store url: String, flow: String?, ended: ReportWindow?, after: Int, limit: Int, maxBytes: Int
    ) -> Swift.Result<[ConversationArchive.StoredResult], ReportReadFailure> {
        let opened: PostgresScenarioStore?
        do throws(ScenarioStoreError) { opened = try PostgresScenarioStore(readingOnly: url) } catch {
            return .failure(ReportReadFailure(message: error.message, missing: false))
        }
        guard let opened else {
            return .failure(ReportReadFailure(message: "\(PostgresURL(url).map { "\($0)" } ?? "the database") holds no rocket store yet", missing: true))
        }
        do throws(ConversationArchive.Failure) {
            return .success(
                try PostgresConversationArchive(beside: opened).results(
                    flow: flow, visitor: nil, ended: ended, after: after, limit: limit, maxBytes: maxBytes))
        } catch {
            return .failure(ReportReadFailure(message: error.message, missing: false))
        }
    }

    package func webhookTurn(_ key: String, holder: String, now: Double, until: Double) throws(ConversationArchive.Failure) -> Int? {
        try transaction { (c) throws(PostgresError) -> Int? in
            // The row made once (by whichever server comes first), then locked while it is decided.
            let name = WebhookLease.settingName(key)
            try c.query(
                "INSERT INTO rocket_settings (name, value) SELECT $1, coalesce(max(seq), 0) || ' - 0' FROM rocket_results ON CONFLICT DO NOTHING",
                [.text(name)])
            let r = try c.query("SELECT value FROM rocket_settings WHERE name = $1 FOR UPDATE", [.text(name)])
            guard r.count > 0, var lease = WebhookLease(text: r.text(0, 0)), lease.holder == holder || lease.until <= now else { return nil }
            lease.holder = holder
            lease.until = until
            try c.query("UPDATE rocket_settings SET value = $2 WHERE name = $1", [.text(name), .text(lease.text)])
            return lease.cursor
        }
    }

    package func webhookDelivered(_ key: String, holder: String, seq: Int) throws(ConversationArchive.Failure) -> Bool {
        try transaction { (c) throws(PostgresError) -> Bool in
            let name = WebhookLease.settingName(key)
            let r = try c.query("SELECT value FROM rocket_settings WHERE name = $1 FOR UPDATE", [.text(name)])
            guard r.count > 0, var lease = WebhookLease(text: r.text(0, 0)), lease.holder == holder else { return false }
            lease.cursor = max(lease.cursor, seq)
            try c.query("UPDATE rocket_settings SET value = $2 WHERE name = $1", [.text(name), .text(lease.text)])
            return true
        }
    }

    package func forgetResults(before time: Double) throws(ConversationArchive.Failure) -> Int {
        try transaction { (c) throws(PostgresError) -> Int in
            try c.query(SweepStatements.results, [.real(time)]).affected
        }
    }

    package func keepFlowVersions(_ versions: [ConversationArchive.FlowVersion], at time: Double) throws(ConversationArchive.Failure) {
        try transaction { (c) throws(PostgresError) in
            for v in versions {
                try c.query(
                    """
                    INSERT INTO rocket_flow_versions (identity, name, language, text, used) VALUES ($1, $2, $3, $4, $5)
                      ON CONFLICT (identity) DO UPDATE SET used = greatest(rocket_flow_versions.used, excluded.used)
                    """, [.text(v.identity), .text(v.name), .text(v.language), .text(v.text), .real(time)])
            }
        }
    }

    package func flowVersion(_ identity: String) throws(ConversationArchive.Failure) -> ConversationArchive.FlowVersion? {
        try transaction { (c) throws(PostgresError) -> ConversationArchive.FlowVersion? in
            let r = try c.query("SELECT name, language, text FROM rocket_flow_versions WHERE identity = $1", [.text(identity)])
            guard r.count > 0 else { return nil }
            return ConversationArchive.FlowVersion(identity: identity, name: r.text(0, 0), language: r.text(0, 1), text: r.text(0, 2))
        }
    }

    package func forget(visitor: String) throws(ConversationArchive.Failure) -> (conversations: Int, results: Int) {
        try transaction { (c) throws(PostgresError) -> (conversations: Int, results: Int) in
            let v: [PostgresValue] = [.text(visitor)]
            try c.query(VisitorStatements.forgetConversationRecords, v)
            try c.query(VisitorStatements.forgetResultRecords, v)
            try c.query(VisitorStatements.forgetSteps, v)
            let gone = try c.query(VisitorStatements.forgetConversations, v)
            let results = try c.query(VisitorStatements.forgetResults, v).affected
            let alerts = try c.query(VisitorStatements.forgetAlerts, v)
            // Every server drops its copies of the conversations and the alerts, and ends their
            // streams: told of a version past any (a copy behind what it is told reads the store
            // again, and finds nothing).
            let told = ((0..<gone.count).map { gone.text($0, 0) } + (0..<alerts.count).map { alerts.text($0, 0) }).map { $0 + " " + String(Int.max) }
            if !told.isEmpty { try c.query("SELECT pg_notify('\(Self.channel)', x) FROM unnest($1::text[]) x", [.texts(told)]) }
            return (gone.count, results)
        }
    }

    package func forgetFlowVersions(before time: Double) throws(ConversationArchive.Failure) -> Int {
        try transaction { (c) throws(PostgresError) -> Int in
            try c.query("DELETE FROM rocket_flow_versions WHERE used < $1", [.real(time)]).affected
        }
    }

    package var isShared: Bool { true }

    package func listen(
        stopping: @escaping @Sendable () -> Bool, changed: @escaping @Sendable ([(id: String, version: Int)]) -> Void,
        reconnected: @escaping @Sendable () -> Void
    ) {
        var first = true
        while !stopping() {
            // A connection of its own (not the pool's): it waits on its socket for notifications.
            guard let c = try? PostgresConnection(database.url), (try? c.execute("LISTEN \(Self.channel)")) != nil else {
                for _ in 0..<10 where !stopping() { usleep(100_000) }
                continue
            }
            if !first { reconnected() }
            first = false
            while !stopping() {
                var fd = pollfd(fd: c.socket, events: Int16(POLLIN), revents: 0)
                _ = poll(&fd, 1, 250)
                guard let got = try? c.notifications() else { break }
                guard !got.isEmpty else { continue }
                changed(
                    got.compactMap { n in
                        let parts = n.payload.split(separator: " ")
                        guard parts.count == 2, let version = Int(parts[1]) else { return nil }
                        return (String(parts[0]), version)
                    })
            }
        }
    }

    /// Writes one save; false when the store holds another version than the one it was based on.
    private func write(_ c: PostgresConnection, _ save: ConversationArchive.Save) throws(PostgresError) -> Bool {
        switch save {
        case .snapshot(let row, _):
            let values: [PostgresValue] = [
                .text(row.id), .text(row.visitor), .text(row.flow), .integer(row.step), .integer(row.version), .integer(row.eventSeq),
                .real(row.touched), .text(row.snapshot), .optional(row.savedAt), .optional(row.deadline), .integer(row.storedVersion),
            ]
            let written: Int
            if row.storedVersion == 0 {
                written =
                    try c.query(
                        """
                        INSERT INTO rocket_conversations (id, visitor, flow, step, version, snapshot_version, event_seq, touched, snapshot, saved_at, deadline)
                        VALUES ($1, $2, $3, $4, $5, $5, $6, $7, $8, $9, $10) ON CONFLICT (id) DO NOTHING
                        """, Array(values.dropLast())
                    ).affected
            } else {
                written =
                    try c.query(
                        """
                        UPDATE rocket_conversations SET step = $4, version = $5, snapshot_version = $5, event_seq = $6, touched = $7,
                          snapshot = $8, saved_at = $9, deadline = $10
                        WHERE id = $1 AND visitor = $2 AND flow = $3 AND version = $11
                        """, values
                    ).affected
            }
            guard written == 1 else { return false }
            try c.query("DELETE FROM rocket_steps WHERE id = $1 AND version <= $2", [.text(row.id), .integer(row.version)])
            return true
        case .steps(let steps):
            let moved =
                try c.query(
                    "UPDATE rocket_conversations SET version = $2, touched = $3, deadline = $4 WHERE id = $1 AND version = $5",
                    [.text(steps.id), .integer(steps.version), .real(steps.at), .optional(steps.deadline), .integer(steps.storedVersion)]
                ).affected
            guard moved == 1 else { return false }
            try c.query(
                "INSERT INTO rocket_steps (id, version, at, steps) VALUES ($1, $2, $3, $4)",
                [.text(steps.id), .integer(steps.version), .real(steps.at), .text(steps.text)])
            return true
        }
    }

    package func load(_ id: String) throws(ConversationArchive.Failure) -> (row: ConversationArchive.Row, steps: [ConversationArchive.Steps])? {
        try transaction(.readOnly) { (c) throws(PostgresError) -> (row: ConversationArchive.Row, steps: [ConversationArchive.Steps])? in
            let r = try c.query(
                """
                SELECT id, visitor, flow, step, snapshot_version, event_seq, touched, snapshot, saved_at, version, deadline
                FROM rocket_conversations WHERE id = $1
                """, [.text(id)])
            guard r.count == 1 else { return nil }
            let row = ConversationArchive.Row(
                id: r.text(0, 0), visitor: r.text(0, 1), flow: r.text(0, 2), step: r.int(0, 3), version: r.int(0, 4), eventSeq: r.int(0, 5),
                touched: r.double(0, 6) ?? 0, snapshot: r.text(0, 7), savedAt: r.double(0, 8), storedVersion: r.int(0, 9), deadline: r.double(0, 10))
            let t = try c.query(
                "SELECT version, at, steps FROM rocket_steps WHERE id = $1 AND version > $2 ORDER BY version", [.text(id), .integer(row.version)])
            let steps = (0..<t.count).map { ConversationArchive.Steps(id: id, version: t.int($0, 0), at: t.double($0, 1) ?? 0, text: t.text($0, 2)) }
            return (row, steps)
        }
    }

    package func events(_ id: String) throws(ConversationArchive.Failure) -> [String] {
        let rows = try transaction(.readOnly) { (c) throws(PostgresError) in
            try c.query("SELECT record FROM rocket_events WHERE id = $1 ORDER BY seq", [.text(id)])
        }
        return (0..<rows.count).flatMap { rows.text($0, 0).split(separator: "\n").map(String.init) }
    }

    package func setting(_ name: String, orMake make: () -> String) throws(ConversationArchive.Failure) -> String {
        let fresh = make()
        return try transaction { (c) throws(PostgresError) -> String in
            try c.query("INSERT INTO rocket_settings (name, value) VALUES ($1, $2) ON CONFLICT DO NOTHING", [.text(name), .text(fresh)])
            let r = try c.query("SELECT value FROM rocket_settings WHERE name = $1", [.text(name)])
            return r.count > 0 ? r.text(0, 0) : fresh
        }
    }

    package func claimDue(before time: Double, now: Double, seconds: Double, limit: Int) throws(ConversationArchive.Failure) -> [String] {
        try transaction { (c) throws(PostgresError) -> [String] in
            // Rows another server is claiming (or saving) right now are skipped, not waited for.
            let r = try c.query(SweepStatements.claimDue, [.real(time), .real(now + seconds), .real(now), .integer(limit)])
            return (0..<r.count).map { r.text($0, 0) }
        }
    }

    package func loadAlert(_ id: String) throws(ConversationArchive.Failure) -> String? {
        let r = try transaction(.readOnly) { (c) throws(PostgresError) in try c.query("SELECT alert FROM rocket_alerts WHERE id = $1", [.text(id)]) }
        return r.count == 1 ? r.text(0, 0) : nil
    }

    package func alerts(ofVisitor visitor: String, limit: Int) throws(ConversationArchive.Failure) -> [(id: String, text: String)] {
        let r = try transaction(.readOnly) { (c) throws(PostgresError) in
            try c.query(VisitorStatements.alerts, [.text(visitor), .integer(limit)])
        }
        return (0..<r.count).map { (r.text($0, 0), r.text($0, 1)) }
    }

    package func saveAlert(
        _ id: String, visitor: String, version: Int, storedVersion: Int, text: String, touched: Double
    ) throws(ConversationArchive.Failure) -> Bool {
        try transaction { (c) throws(PostgresError) -> Bool in
            let written =
                storedVersion == 0
                ? try c.query(
                    "INSERT INTO rocket_alerts (id, visitor, version, touched, alert) VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING",
                    [.text(id), .text(visitor), .integer(version), .real(touched), .text(text)]
                ).affected
                : try c.query(
                    "UPDATE rocket_alerts SET version = $3, touched = $4, alert = $5 WHERE id = $1 AND visitor = $2 AND version = $6",
                    [.text(id), .text(visitor), .integer(version), .real(touched), .text(text), .integer(storedVersion)]
                ).affected
            guard written == 1 else { return false }
            try c.query("SELECT pg_notify($1, $2)", [.text(Self.channel), .text(id + " " + String(version))])
            return true
        }
    }

    package func stepsAfter(
        _ copies: [(id: String, version: Int)]
    ) throws(ConversationArchive.Failure)
        -> [String: (snapshotVersion: Int, steps: [ConversationArchive.Steps])]
    {
        let r = try transaction(.readOnly) { (c) throws(PostgresError) in
            try c.query(
                """
                SELECT i.id, c.snapshot_version, s.version, s.at, s.steps FROM unnest($1::text[], $2::bigint[]) AS i(id, mine)
                JOIN rocket_conversations c ON c.id = i.id LEFT JOIN rocket_steps s ON s.id = i.id AND s.version > i.mine
                ORDER BY i.id, s.version
                """, [.texts(copies.map(\.id)), .integers(copies.map(\.version))])
        }
        var out: [String: (snapshotVersion: Int, steps: [ConversationArchive.Steps])] = [:]
        for row in 0..<r.count {
            let id = r.text(row, 0)
            var entry = out[id] ?? (r.int(row, 1), [])
            if r[row, 2] != nil {
                entry.steps.append(ConversationArchive.Steps(id: id, version: r.int(row, 2), at: r.double(row, 3) ?? 0, text: r.text(row, 4)))
            }
            out[id] = entry
        }
        return out
    }

    package func ping() throws(ConversationArchive.Failure) {
        do throws(PostgresError) { try database.check() } catch { throw failure(error) }
    }

    /// PostgreSQL checkpoints by itself: nothing to do.
    package func checkpoint(restartFrames: Int) throws(ConversationArchive.Failure) -> (frames: Int, restarted: Bool) { (0, false) }

    package func remove(_ id: String) throws(ConversationArchive.Failure) {
        try transaction { (c) throws(PostgresError) in
            try c.query("DELETE FROM rocket_conversations WHERE id = $1", [.text(id)])
            try c.query("DELETE FROM rocket_steps WHERE id = $1", [.text(id)])
            try c.query("DELETE FROM rocket_events WHERE id = $1", [.text(id)])
        }
    }

    package func expiring(
        before time: Double, limit: Int
    ) throws(ConversationArchive.Failure)
        -> [(row: ConversationArchive.Row, steps: [ConversationArchive.Steps])]
    {
        // Two statements for the whole batch (a load each was a round trip each, on the writer's
        // thread): the rows, then the steps after their snapshots, in one read-only transaction.
        try transaction(.readOnly) { (c) throws(PostgresError) -> [(row: ConversationArchive.Row, steps: [ConversationArchive.Steps])] in
            let r = try c.query(
                """
                SELECT id, visitor, flow, step, snapshot_version, event_seq, touched, snapshot, saved_at, version, deadline
                FROM rocket_conversations WHERE touched < $1 LIMIT $2
                """, [.real(time), .integer(limit)])
            let rows = (0..<r.count).map { i in
                ConversationArchive.Row(
                    id: r.text(i, 0), visitor: r.text(i, 1), flow: r.text(i, 2), step: r.int(i, 3), version: r.int(i, 4), eventSeq: r.int(i, 5),
                    touched: r.double(i, 6) ?? 0, snapshot: r.text(i, 7), savedAt: r.double(i, 8), storedVersion: r.int(i, 9),
                    deadline: r.double(i, 10))
            }
            guard !rows.isEmpty else { return [] }
            let t = try c.query(
                """
                SELECT s.id, s.version, s.at, s.steps FROM rocket_steps s
                JOIN unnest($1::text[], $2::bigint[]) AS k(id, base) ON s.id = k.id AND s.version > k.base ORDER BY s.id, s.version
                """, [.texts(rows.map(\.id)), .integers(rows.map(\.version))])
            var steps: [String: [ConversationArchive.Steps]] = [:]
            for i in 0..<t.count {
                steps[t.text(i, 0), default: []].append(
                    ConversationArchive.Steps(id: t.text(i, 0), version: t.int(i, 1), at: t.double(i, 2) ?? 0, text: t.text(i, 3)))
            }
            return rows.map { ($0, steps[$0.id] ?? []) }
        }
    }

    package func expire(
        _ ids: [String], before time: Double, results: [ConversationArchive.ResultRow]
    ) throws(ConversationArchive.Failure)
        -> Set<String>
    {
        try transaction { (c) throws(PostgresError) -> Set<String> in
            // Rows another server is saving right now are skipped, not waited for; one it used
            // since they were read stays.
            let gone = try c.query(SweepStatements.expire, [.texts(ids), .real(time)])
            let removed = Set((0..<gone.count).map { gone.text($0, 0) })
            if !removed.isEmpty {
                try c.query("DELETE FROM rocket_steps WHERE id = ANY($1::text[])", [.texts(Array(removed))])
            }
            try Self.insert(results.filter { removed.contains($0.id) }, c)
            // Alerts last as long as conversations.
            try c.query(SweepStatements.alerts, [.real(time)])
            return removed
        }
    }

    package func forgetRecords(before time: Double) throws(ConversationArchive.Failure) -> Int {
        try transaction { (c) throws(PostgresError) -> Int in
            try c.query(SweepStatements.records, [.real(time)]).affected
        }
    }

    package func saveRecord(_ record: String, flow: String, id: String, at: Double) throws(ConversationArchive.Failure) {
        try transaction { (c) throws(PostgresError) in
            _ = try c.query(
                "INSERT INTO rocket_events (id, seq, at, record, flow) VALUES ($1, 1, $2, $3, $4)", [.text(id), .real(at), .text(record), .text(flow)])
        }
    }

    /// Reads the records of the PostgreSQL store at `url` (opened for reading only: nothing is
    /// written or migrated) into `builder`.
    package static func readRecords(store url: String, flow: String?, into builder: inout ReportBuilder) -> Result<Void, ReportReadFailure> {
        do throws(ReportReadFailure) {
            let opened: PostgresScenarioStore?
            do throws(ScenarioStoreError) { opened = try PostgresScenarioStore(readingOnly: url) } catch {
                throw ReportReadFailure(message: error.message, missing: false)
            }
            guard let opened else {
                throw ReportReadFailure(message: "\(PostgresURL(url).map { "\($0)" } ?? "the database") holds no rocket store yet", missing: true)
            }
            try PostgresConversationArchive(beside: opened).readRecords(flow: flow, into: &builder)
            return .success(())
        } catch {
            return .failure(error)
        }
    }

    package func readRecords(flow: String?, into builder: inout ReportBuilder) throws(ReportReadFailure) {
        var bad: ReportInputError?
        do throws(PostgresError) {
            // A cursor in one read-only transaction: a consistent view, a thousand rows at a time
            // (the records of a busy site do not fit in memory at once).
            try database.withConnection { (c) throws(PostgresError) in
                try c.transaction(.readOnly) { (c) throws(PostgresError) in
                    let (sql, values) = ReportStatements.reading(flow: flow, window: builder.window)
                    try c.query("DECLARE records NO SCROLL CURSOR FOR " + sql, values)
                    var current: String?
                    var row = 0
                    fetching: while true {
                        let batch = try c.query("FETCH 1000 FROM records")
                        if batch.count == 0 { break }
                        for r in 0..<batch.count {
                            row += 1
                            let id = batch.text(r, 0)
                            if id != current, let previous = current { builder.finishConversation(previous) }
                            current = id
                            let flowName = batch.text(r, 1)
                            for line in Array(batch.text(r, 2).utf8).split(separator: 0x0A) {
                                do throws(ReportInputError) {
                                    try builder.add(Array(line), conversation: id, flow: flowName, line: row)
                                } catch {
                                    bad = error
                                    break fetching
                                }
                            }
                        }
                    }
                    if bad == nil, let current { builder.finishConversation(current) }
                }
            }
        } catch {
            throw ReportReadFailure(message: "\(place): \(error.message)", missing: false)
        }
        if let bad { throw ReportReadFailure(message: "\(place): \(bad.message)", missing: false) }
    }
}

extension PostgresConversationArchive {
    /// The statement that reads a page of results (as SQLite's
    /// ``ConversationArchive/ResultStatements``): $1 after, $2 limit, $3 flow, $4 the page's
    /// bytes, $5 visitor, $6 since, $7 until (nil: none). A page ends early once its answers pass
    /// the page's bytes (it holds one result at least): the rows past that never leave the
    /// database. With a window of ends, the numbers read are first narrowed to those of the
    /// results that ended in it, from the index of times and numbers alone (schema 10; `seq + 0`
    /// so that the least or greatest is not looked for along the key, row after row).
    package enum ResultStatements {
        static let page = """
            SELECT seq, id, flow, visitor, at, reason, answers, variant FROM (
              SELECT *, sum(octet_length(answers)) OVER (ORDER BY seq) AS upto FROM (
                SELECT seq, id, flow, visitor, at, reason, answers, variant FROM rocket_results
                WHERE seq > GREATEST($1, CASE WHEN $6::float8 IS NULL THEN 0 ELSE (SELECT coalesce(min(seq + 0), 9223372036854775807) - 1 FROM rocket_results WHERE at >= $6) END)
                  AND seq <= CASE WHEN $7::float8 IS NULL THEN 9223372036854775807 ELSE (SELECT coalesce(max(seq + 0), 0) FROM rocket_results WHERE at < $7) END
                  AND ($6::float8 IS NULL OR at >= $6) AND ($7::float8 IS NULL OR at < $7)
                  AND ($3::text IS NULL OR flow = $3) AND ($5::text IS NULL OR visitor = $5) ORDER BY seq LIMIT $2) page) sized
            WHERE upto - octet_length(answers) < $4 ORDER BY seq
            """
    }
}

extension PostgresConversationArchive {
    /// The statements a report reads the event records with (as SQLite's
    /// ``ConversationArchive/ReportStatements``: with a window, only the conversations with a
    /// row in it, found through the index of times).
    package enum ReportStatements {
        /// Every conversation's records.
        static let all = "SELECT id, flow, record FROM rocket_events ORDER BY id, seq"
        /// The records of flow $1.
        static let ofFlow = "SELECT id, flow, record FROM rocket_events WHERE flow = $1 ORDER BY id, seq"
        /// The records of the conversations with a row from $1 to before $2.
        static let inWindow =
            "SELECT id, flow, record FROM rocket_events WHERE id IN (SELECT id FROM rocket_events WHERE at >= $1 AND at < $2) ORDER BY id, seq"
        /// The records of flow $3's conversations with a row from $1 to before $2.
        static let ofFlowInWindow = """
            SELECT id, flow, record FROM rocket_events WHERE flow = $3 AND id IN (SELECT id FROM rocket_events WHERE at >= $1 AND at < $2 AND flow = $3) ORDER BY id, seq
            """

        /// The statement for a report of `flow` (nil: every flow) in `window` (nil: all time), and its values.
        static func reading(flow: String?, window: ReportWindow?) -> (String, [PostgresValue]) {
            guard let window else { return flow.map { (ofFlow, [.text($0)]) } ?? (all, []) }
            let (from, to) = window.rowTimes
            return flow.map { (ofFlowInWindow, [.real(from), .real(to), .text($0)]) } ?? (inWindow, [.real(from), .real(to)])
        }

        /// Every windowed statement with values, for the test of their plans.
        package static let windowed: [(String, [PostgresValue])] = [
            reading(flow: nil, window: ReportWindow(since: 1.8e9)), reading(flow: "welcome", window: ReportWindow(since: 1.8e9, until: 1.9e9)),
        ]
    }
}

extension PostgresConversationArchive {
    /// The sweeps of rows whose time has come, a slice at a time, and the claim of overdue
    /// timers. Each picks its slice through an index and locks it (rows another server holds are
    /// skipped, not waited for), then changes those rows by their place (`ctid`): written as
    /// `IN (SELECT … LIMIT n)`, a slice of a large backlog was planned as a join that read the
    /// whole table (a test reads their plans with a backlog due).
    package enum SweepStatements {
        /// Results kept past `--keep-results` ($1), 5,000 a time.
        static let results = """
            DELETE FROM rocket_results WHERE ctid = ANY(ARRAY(SELECT ctid FROM rocket_results WHERE at < $1 LIMIT 5000 FOR UPDATE SKIP LOCKED))
            """
        /// Event records kept past `--keep-records` ($1), 5,000 a time.
        static let records = """
            DELETE FROM rocket_events WHERE ctid = ANY(ARRAY(SELECT ctid FROM rocket_events WHERE at < $1 LIMIT 5000 FOR UPDATE SKIP LOCKED))
            """
        /// Alerts untouched since $1, 500 a time.
        static let alerts = """
            DELETE FROM rocket_alerts WHERE ctid = ANY(ARRAY(SELECT ctid FROM rocket_alerts WHERE touched < $1 LIMIT 500 FOR UPDATE SKIP LOCKED))
            """
        /// Conversations named in $1 untouched since $2 removed, with their ids.
        static let expire = """
            DELETE FROM rocket_conversations WHERE ctid = ANY(ARRAY(
              SELECT ctid FROM rocket_conversations WHERE id = ANY($1::text[]) AND touched < $2 FOR UPDATE SKIP LOCKED)) RETURNING id
            """
        /// Timers due before $1 that no server claims past $3, the $4 earliest, claimed until $2.
        static let claimDue = """
            UPDATE rocket_conversations SET claimed_until = $2 WHERE ctid = ANY(ARRAY(SELECT ctid FROM rocket_conversations
              WHERE deadline < $1 AND (claimed_until IS NULL OR claimed_until < $3) ORDER BY deadline LIMIT $4 FOR UPDATE SKIP LOCKED))
            RETURNING id
            """

        /// Every statement above with the values a test explains it with (their plans).
        static let all: [(String, [PostgresValue])] = [
            (results, [.real(1.5e9)]), (records, [.real(1.5e9)]), (alerts, [.real(1.5e9)]),
            (expire, [.texts((1...500).map { "c\($0)" }), .real(1.5e9)]), (claimDue, [.real(1.5e9), .real(2e9), .real(1.5e9), .integer(1000)]),
        ]
    }

    /// The statements that read or remove one visitor's conversations, results and alerts, each
    /// served by an index (a test reads their plans), as the SQLite archive's.
    package enum VisitorStatements {
        /// The visitor's conversations ($1), by id, at most $2.
        static let conversations = "SELECT id FROM rocket_conversations WHERE visitor = $1 ORDER BY id LIMIT $2"
        /// The event records of the visitor's conversations.
        static let forgetConversationRecords = "DELETE FROM rocket_events WHERE id IN (SELECT id FROM rocket_conversations WHERE visitor = $1)"
        /// The event records of the visitor's results' conversations.
        static let forgetResultRecords = "DELETE FROM rocket_events WHERE id IN (SELECT id FROM rocket_results WHERE visitor = $1)"
        /// The steps saved after the visitor's snapshots.
        static let forgetSteps = "DELETE FROM rocket_steps WHERE id IN (SELECT id FROM rocket_conversations WHERE visitor = $1)"
        /// The visitor's conversations, with their ids.
        static let forgetConversations = "DELETE FROM rocket_conversations WHERE visitor = $1 RETURNING id"
        /// The visitor's results.
        static let forgetResults = "DELETE FROM rocket_results WHERE visitor = $1"
        /// The visitor's alerts ($1), by id, at most $2.
        static let alerts = "SELECT id, alert FROM rocket_alerts WHERE visitor = $1 ORDER BY id LIMIT $2"
        /// The visitor's alerts removed, with their ids.
        static let forgetAlerts = "DELETE FROM rocket_alerts WHERE visitor = $1 RETURNING id"

        /// Every statement above with the values a test explains it with (their plans).
        static let all: [(String, [PostgresValue])] = [
            (conversations, [.text("v"), .integer(500)]), (forgetConversationRecords, [.text("v")]), (forgetResultRecords, [.text("v")]),
            (forgetSteps, [.text("v")]), (forgetConversations, [.text("v")]), (forgetResults, [.text("v")]), (alerts, [.text("v"), .integer(500)]),
            (forgetAlerts, [.text("v")]),
        ]
    }
}
