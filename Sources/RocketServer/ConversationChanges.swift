import RocketConversation
import RocketCore
import RocketFlow
import RocketJSON
import RocketScenarioEngine
import RocketScenariosSQLite
import Synchronization
import RocketPlatform
import RocketText

// Time and changes: timers, expiry, numbering changes, publishing them, and writing them to the
// archive (the writer thread's flush).
extension ConversationService {
    // MARK: Time

    /// Advances every conversation whose timer is due, expires idle ones, and returns the
    /// earliest pending deadline (nil: none).
    @discardableResult
    package func advanceDue() -> Double? {
        let now = clock.now
        var changes: [Pending] = []
        let due: [(String, Slot)] = state.withLock { s in
            s.deadlines.compactMap { id, at in
                guard at <= now else { return nil }
                guard let slot = s.slots[id] else {
                    s.deadlines[id] = nil
                    return nil
                }
                return (id, slot)
            }
        }
        // Each conversation's step under its own lock; the index only to record it.
        for (id, slot) in due {
            slot.withEntry { e in
                guard let effects = e.advanceDue(at: now) else { return }
                let pending = commit(id: id, entry: &e, effects: effects, at: now, step: .advance(to: now))
                let mark = State.Mark(e)
                if state.withLock({ s in s.record(id, slot, mark, changed: pending) }) != nil { changes.append(pending) }
            }
        }
        let next = state.withLock { $0.deadlines.values.min() }
        for pending in changes {
            publish(pending.change(self))
        }
        sweepIfDue(now)
        return next
    }

    /// Drops conversations idle for longer than the limit from memory (at most once every 60 s;
    /// every second while full). The stores are cleaned by ``expireStored()``.
    ///
    /// It reads the last-used times once and removes only what expired (as ``State/remove(_:)``
    /// does, so an unsaved change of an expired conversation is refused, never acknowledged),
    /// a sixty-fourth of the index (one shard) per trip through the index's lock: a single pass
    /// held the lock for the whole index, 44 ms at 100,000 conversations in a debug build.
    func sweepIfDue(_ now: Double) {
        // Whether a sweep is due is asked under the index's lock at most once a second (the
        // shortest spacing of sweeps): the other requests of that second pass without it.
        guard now - Double(bitPattern: sweepLooked.load(ordering: .relaxed)) >= 1 else { return }
        sweepLooked.store(now.bitPattern, ordering: .relaxed)
        let cutoff = now - configuration.idleTimeout
        let due = state.withLock { s -> Bool in
            let full = s.slots.count >= configuration.maxConversations || s.alerts.count >= configuration.maxConversations
            guard now - s.lastSweep >= (full ? 1 : 60) else { return false }
            s.lastSweep = now
            return true
        }
        guard due else { return }
        for shard in 0..<ShardedIndex<Slot>.shardCount {
            state.withLock { s in
                var expired: [String] = []
                s.slots.forEach(inShard: shard) { id, slot in if slot.used < cutoff { expired.append(id) } }
                for id in expired { s.remove(id) }
            }
        }
        /// Removes the entries of `table` that `gone` names (no table rebuilt when none do).
        func drop<V>(from table: inout [String: V], where gone: (V) -> Bool) {
            let keys = table.compactMap { gone($0.value) ? $0.key : nil }
            for key in keys { table[key] = nil }
        }
        state.withLock { s in
            drop(from: &s.alerts) { $0.touched < cutoff }
            drop(from: &s.buckets) { now - $0.at >= 60 }
            drop(from: &s.visitorBuckets) { now - $0.at >= 60 }
            // Alerts are replaced in several places: their counts per address are made again.
            s.liveAlerts = [:]
            for a in s.alerts.values { s.liveAlerts[a.address, default: 0] += 1 }
        }
    }

    /// Deletes what expired from the stores: conversations idle past the limit (in batches of
    /// ``expiryBatch``; one that was answered but never ended leaves its answers as a result, reason
    /// `expired`), event records and results past their retention, and visitors' scenario
    /// statistics past theirs; how many conversations went. At most 100 batches of each.
    @discardableResult
    package func expireStored() -> Int { expireStored(enough: { false }).gone }

    /// Expired conversations read, restored and removed in one transaction: about 8 ms of the
    /// writer's time with results kept (40 µs each in a release build, measured with the survey
    /// flow), the length of a slice of ``expireStored(enough:)``.
    package static let expiryBatch = 200

    /// The visitors' statistics one sweep looks at (``expireStored(enough:)``): 3–4 ms of the
    /// database's time (measured in a store of 300,000).
    package static let visitorSweepSlice = 5_000

    /// ``expireStored()`` in slices: it stops between two batches once `enough()` says so, and
    /// `more` says that some may be left. The HTTP server's writer calls it every minute, and
    /// again soon while there is more, off the threads that answer requests: a slice is short,
    /// so the commits it holds back between them wait little.
    package func expireStored(enough: () -> Bool) -> (gone: Int, more: Bool) {
        let now = clock.now
        var gone = 0
        var more = false
        /// Runs `batch` while it says it did a whole batch (there may be more), at most 100
        /// times, or until `enough()`.
        func drain<E: Error>(_ batch: () throws(E) -> Bool) throws(E) {
            for _ in 0..<100 {
                guard !more else { return }
                guard try batch() else { return }
                if enough() { more = true }
            }
            more = true
        }
        if let archive {
            do {
                let cutoff = now - configuration.idleTimeout
                var unreadable = 0
                try drain { () throws(ConversationArchive.Failure) -> Bool in
                    let stored = try archive.expiring(before: cutoff, limit: Self.expiryBatch)
                    let results = keepsResults ? expiredResults(stored, at: now, unreadable: &unreadable) : []
                    let removed = try archive.expire(stored.map(\.row.id), before: cutoff, results: results)
                    gone += removed.count
                    counters.resultsWritten(results.filter { removed.contains($0.id) })
                    return stored.count == Self.expiryBatch && !removed.isEmpty
                }
                if unreadable > 0 {
                    log("rocket serve: \(unreadable) expired conversation(s) could not be read for their answers (their flow changed or is gone)")
                }
                // Event records outlive their conversation, for reports, for the record retention.
                try drain { () throws(ConversationArchive.Failure) -> Bool in
                    try archive.forgetRecords(before: now - configuration.recordRetention) == 5000
                }
                // Results (answers of ended conversations) for theirs.
                try drain { () throws(ConversationArchive.Failure) -> Bool in
                    try archive.forgetResults(before: now - configuration.resultRetention) == 5000
                }
                // Versions of flows no conversation can be resumed on any more.
                _ = try archive.forgetFlowVersions(before: now - configuration.idleTimeout - Self.versionUseInterval - 60)
            } catch {
                log("rocket serve: conversation store: \(error.message)")
            }
        }
        // Visitors' scenario statistics go once nothing has happened in them for the retention.
        if let visitors = scenarios as? any VisitorStore {
            do throws(ScenarioStoreError) {
                // One slice of the statistics a sweep, in name order, going on from where the
                // last one stopped: a store of a million visitors is looked through in about
                // three hours, a moment's work each minute (the retention is counted in days).
                let cursor = visitorSweepCursor.withLock { $0 }
                let swept = try visitors.forgetVisitors(
                    inactiveSince: now - configuration.visitorRetention, after: cursor, examining: Self.visitorSweepSlice)
                visitorSweepCursor.withLock { $0 = swept.next ?? "" }
                try drain { () throws(ScenarioStoreError) -> Bool in
                    try visitors.forgetAssignments(before: now - configuration.visitorRetention) == 5000
                }
            } catch {
                log("rocket serve: scenario store: \(error.message)")
            }
        }
        return (gone, more)
    }

    /// The results of conversations `stored` that expire now: each that was answered (an answer
    /// a result would carry) and never ended (one that ended has its result already), restored
    /// as a request would restore it, with what it was answered so far. Those that cannot be
    /// restored are counted in `unreadable`.
    func expiredResults(
        _ stored: [(row: ConversationArchive.Row, steps: [ConversationArchive.Steps])], at now: Double, unreadable: inout Int
    ) -> [ConversationArchive.ResultRow] {
        var results: [ConversationArchive.ResultRow] = []
        for (row, steps) in stored {
            guard case .success(let e) = restore(row.id, row: row, steps: steps, address: "", at: now, tell: { _ in }) else {
                unreadable += 1
                continue
            }
            guard e.conversation.status.reason == nil, !e.flow.document.answerValues(of: e.conversation).isEmpty else { continue }
            let ended = Ended(answers: e.conversation.answers, reason: "expired", visitor: e.visitor, flow: e.flow, variant: e.context.variant ?? "")
            results.append(ended.result(id: row.id, at: now))
        }
        return results
    }

    /// A passive checkpoint of the store (the HTTP server's checkpointer calls it a few times a
    /// second; nothing else checkpoints the server's store). Failures are logged once a minute.
    package func checkpoint() {
        guard let archive else { return }
        do {
            _ = try archive.checkpoint(restartFrames: 4_096)
        } catch {
            let now = clock.now
            if checkpointComplaint.withLock({ last in
                guard now - last >= 60 else { return false }
                last = now
                return true
            }) {
                log("rocket serve: checkpoint of the store: \(error.message)")
            }
        }
    }

    // MARK: Changes

    /// Bumps the version, numbers the new event records, and prepares the view and the save.
    /// `step` is the change as the archive can replay it (nil: it is saved as a snapshot).
    func commit(id: String, entry e: inout Entry, effects: [ConversationEffect], at now: Double, bump: Bool = true, step: ConversationStep?) -> Pending {
        // What the view before this change settled: a page that follows the conversation holds it.
        let before = ConversationView.Held(version: e.version, settled: e.cache.count)
        let (events, first) = Self.count(effects, on: &e, bump: bump, step: step)
        e.cache.extend(e.conversation, flow: e.flow, version: e.version)
        // The records are written here, by the thread that made the change, under this
        // conversation's lock only: the writer thread, which every answer waits for, only joins them.
        let records: Records? =
            !persists || events.isEmpty
            ? nil : Self.records(events.enumerated().map { (seq: first + $0.offset, at: now, event: $0.element) }, variant: e.context.variant)
        return Pending(id: id, entry: e, recorded: events, records: records, before: before)
    }

    /// Counts a change on `e`: its version (when `bump`), the steps to save, and the numbers of
    /// its recorded events; those events and the first one's number. A replay of stored steps
    /// counts with this alone (no view, no records: nothing is answered or saved then).
    static func count(_ effects: [ConversationEffect], on e: inout Entry, bump: Bool, step: ConversationStep?) -> (events: [RocketEvent], first: Int) {
        if bump {
            e.version += 1
            if let step, e.unsavedSteps != nil { e.unsavedSteps?.append(step) } else { e.unsavedSteps = nil }
        }
        var events: [RocketEvent] = []
        for case .event(let event) in effects where event.isRecorded { events.append(event) }
        let first = e.eventSeq + 1
        e.eventSeq += events.count
        return (events, first)
    }

    /// A change's event records as the archive keeps them: numbered by the first, as JSON Lines.
    typealias Records = (seq: Int, at: Double, text: String)

    /// A change counted under the lock (version, event numbers); its view is built outside it.
    struct Pending {
        /// A recorded event numbered for the archive.
        typealias Event = (seq: Int, at: Double, event: RocketEvent)

        var id: String
        var entry: Entry
        /// The change's recorded events, in order (for the frames of a stream that follows the
        /// conversation).
        var recorded: [RocketEvent]
        /// The same as the archive stores them (nil: none, or nothing is stored).
        var records: Records?
        /// What the conversation's view before the change held (its version and settled items).
        var before: ConversationView.Held? = nil

        /// The view and the new event records, built without the lock. The view is the answer to
        /// the client that made the change, without what it holds (`held`, its `Rocket-Settled`;
        /// nil: whole). Streams are sent the view without what the view before the change settled
        /// (they sent that one): the same bytes when the client held that view (a page's press),
        /// else made only when a stream follows the conversation.
        func change(_ service: ConversationService, answering held: ConversationView.Held? = nil) -> Change {
            let (e, id) = (entry, id)
            func usable(_ h: ConversationView.Held?) -> ConversationView.Held? {
                h.flatMap { e.cache.omitted(for: $0, version: e.version) > 0 ? $0 : nil }
            }
            let (answered, streamed) = (usable(held), usable(before))
            var change = Change(
                id: id, version: e.version, view: service.view(id, e, held: answered), events: recorded,
                deadline: e.conversation.nextDeadline, variant: e.context.variant, flow: e.context.flow.name)
            if streamed != answered { change.streamView = { service.view(id, e, held: streamed) } }
            return change
        }
    }

    /// Tells the listener (outside the state lock), and counts the change's expression errors
    /// for `/metrics` and the log.
    func publish(_ change: Change) {
        if let flow = change.flow {
            var errors: [(FlowErrors.Place, String)] = []
            for case .expressionError(let block, let path, let error) in change.events {
                errors.append((FlowErrors.Place(flow: flow, block: block, path: path, code: error.code), error.message))
            }
            if !errors.isEmpty { counters.flowErrors(errors) }
        }
        let box = listener.withLock { $0 }
        box?.body(change)
    }

    /// The archive row of conversation `id`: its snapshot with timers as time left at `now` (or
    /// its start, made when it started, when nothing changed since).
    func row(_ id: String, _ e: Entry, at now: Double) -> ConversationArchive.Row {
        let made = e.prepared.flatMap { $0.version == e.version ? $0 : nil }
        return ConversationArchive.Row(
            id: id, visitor: e.visitor, flow: e.flow.name, step: e.step, version: e.version, eventSeq: e.eventSeq, touched: e.touched,
            snapshot: made?.text ?? snapshot(e, at: now), savedAt: made?.at ?? now, storedVersion: e.storedVersion,
            deadline: e.conversation.nextDeadline)
    }

    /// The stored form of `e`'s conversation, its timers as time left at `now`.
    func snapshot(_ e: Entry, at now: Double) -> String {
        StoredConversation(
            snapshot: ConversationSnapshot(e.conversation, at: now, flow: e.flow.identity, names: e.flow.blockNames), options: e.options,
            language: e.shared.value.language
        ).jsonText()
    }

    /// Event records as the archive keeps them: JSON Lines, each record with its time (`at`)
    /// first, numbered by the first (nil: no events).
    static func records(_ events: [Pending.Event], variant: String? = nil) -> Records? {
        guard let first = events.first else { return nil }
        var w = JSONBytes(capacity: events.count * 96)
        for (k, e) in events.enumerated() {
            if k > 0 { w.out.append(0x0A) }
            e.event.writeRecord(into: &w, at: e.at, variant: variant)
        }
        return (first.seq, first.at, String(decoding: w.out, as: UTF8.self))
    }

    /// One conversation's records of every change since its last save, as the one row of
    /// `server_events` a save writes (numbered by its first record).
    static func eventRows(_ changes: [UnsavedChange]) -> [(seq: Int, at: Double, record: String)] {
        guard let k = changes.firstIndex(where: { $0.records != nil }), let first = changes[k].records else { return [] }
        let rest = changes[(k + 1)...].compactMap(\.records?.text)
        return [(first.seq, first.at, rest.isEmpty ? first.text : ([first.text] + rest).joined(separator: "\n"))]
    }

    /// The earliest timer of any conversation (nil: none).
    package var nextDeadline: Double? { state.withLock { $0.deadlines.values.min() } }

    /// True when changes wait to be written.
    package var hasUnsavedChanges: Bool { state.withLock { !$0.unsaved.isEmpty } }

    /// Writes every change since the last call in one transaction: the latest snapshot of each
    /// changed conversation and all its new event records. The HTTP server's writer calls it
    /// whenever changes wait, so the changes that arrive while one commit runs share the next
    /// (a busy conversation costs one write per commit). Snapshots are encoded after the lock
    /// is released, from copies. A failed commit keeps its batch for the next call.
    @discardableResult
    package func flush() -> FlushResult {
        guard persists else { return FlushResult(saved: true, through: 0) }
        // One flush at a time: a second one could otherwise find nothing to write and call
        // saved what the first is still writing. Only flushes wait here.
        return flushing.withLock { _ in flushOnce() }
    }

    /// What a flush takes of one conversation under its lock: the fields its save names, and
    /// only when a snapshot must still be made, a copy of the whole entry (made outside the lock).
    /// (Copying and then releasing every entry was about a twentieth of the writer's samples.)
    struct Taken {
        /// What is stored.
        enum What {
            /// The steps since the last save.
            case steps([ConversationStep])
            /// The whole row, its start made when the conversation started.
            case prepared(ConversationArchive.Row)
            /// A snapshot to make from this copy.
            case whole(Entry)
        }
        let id: String
        let slot: Slot
        let what: What
        /// Its version now, and the one the store held (restored if the save fails).
        let version: Int
        let storedVersion: Int
        /// The flow's name, on its event records.
        let flow: String
        /// The flow itself (its version is kept in the store with the save).
        let loaded: LoadedFlow
        /// Its next timer.
        let deadline: Double?
        /// Whether the snapshot replaces stored steps.
        let replacing: Bool
        /// When it ended since its last save (and results are kept): what its result is made of.
        var ended: Ended? = nil
    }

    /// True when the results of ended conversations are kept (`--keep-results` is not 0).
    var keepsResults: Bool { configuration.resultRetention > 0 }

    /// A conversation's answers and end, taken under its lock when it ended; its result
    /// (``ConversationArchive/ResultRow``) is made from them after the lock is released.
    struct Ended {
        let answers: [String: RocketAnswer]
        let reason: String
        let visitor: String
        let flow: LoadedFlow
        let variant: String

        /// The result, at `time`.
        func result(id: String, at time: Double) -> ConversationArchive.ResultRow {
            var w = JSONBytes(capacity: 256)
            w.open()
            for (k, answer) in flow.document.answerValues(of: answers).enumerated() {
                w.key(escaping: answer.id, first: k == 0)
                w.value(answer.value)
            }
            w.close()
            return ConversationArchive.ResultRow(
                id: id, flow: flow.name, visitor: visitor, at: time, reason: reason, answers: String(decoding: w.out, as: UTF8.self),
                variant: variant)
        }
    }

    func flushOnce() -> FlushResult {
        let now = clock.now
        let (taken, through) = state.withLock { s -> ([(id: String, slot: Slot)], UInt64) in
            // One pass: what is still in memory is taken; changes of what left it are dropped
            // (removing a conversation drops them too, so there are none unless a path forgot).
            var taken: [(id: String, slot: Slot)] = []
            var gone: [String] = []
            taken.reserveCapacity(s.unsaved.count)
            for id in s.unsaved.keys {
                if let slot = s.slots[id] { taken.append((id, slot)) } else { gone.append(id) }
            }
            for id in gone { s.unsaved[id] = nil }
            return (taken, s.changeSeq)
        }
        // Each conversation taken under its own lock, with the event records it has numbered
        // so far (a change is numbered with that lock held): the row and its records agree, and
        // every change numbered up to `through` is in the batch.
        // A conversation's changes since its last save are taken with it: its steps, or none
        // when a whole snapshot is due.
        // The next save of each is based on this one.
        let batch = taken.map { item in
            item.slot.takeForSave { f, made in
                // Kept as it started: its start is saved without making it whole.
                let context = item.slot.context
                let row = ConversationArchive.Row(
                    id: item.id, visitor: context.visitor, flow: context.flow.name, step: f.step, version: f.version, eventSeq: f.eventSeq,
                    touched: f.touched, snapshot: made.text, savedAt: made.at, storedVersion: f.storedVersion, deadline: f.deadline)
                let kept = Taken(
                    id: item.id, slot: item.slot, what: .prepared(row), version: f.version, storedVersion: f.storedVersion, flow: context.flow.name,
                    loaded: context.flow, deadline: f.deadline, replacing: false)
                let changes = state.withLock { s in s.unsaved.removeValue(forKey: item.id) ?? [] }
                return (kept, changes: changes)
            } whole: { e in
                let (steps, replacing) = e.takeSteps()
                let what: Taken.What
                if let steps {
                    what = .steps(steps)
                } else if let made = e.prepared, made.version == e.version {
                    what = .prepared(row(item.id, e, at: now))
                } else {
                    what = .whole(e)
                }
                var kept = Taken(
                    id: item.id, slot: item.slot, what: what, version: e.version, storedVersion: e.storedVersion, flow: e.flow.name,
                    loaded: e.flow, deadline: e.conversation.nextDeadline, replacing: replacing)
                // It ended: its answers go with this save (copied here, written out after).
                if keepsResults, !e.resultTaken, let reason = e.conversation.status.reason {
                    e.resultTaken = true
                    kept.ended = Ended(
                        answers: e.conversation.answers, reason: reason.recordName, visitor: e.visitor, flow: e.flow, variant: e.context.variant ?? "")
                }
                e.prepared = nil
                e.storedVersion = e.version
                let changes = state.withLock { s in s.unsaved.removeValue(forKey: item.id) ?? [] }
                return (kept, changes: changes)
            }
        }
        guard let archive, !batch.isEmpty else {
            markSaved(through: through)
            return FlushResult(saved: true, through: through)
        }
        let rows = batch.map { (item, changes) -> ConversationArchive.Batched in
            let save: ConversationArchive.Save =
                switch item.what {
                case .steps(let steps):
                    .steps(
                        ConversationArchive.Steps(
                            id: item.id, version: item.version, at: now, text: ConversationStep.text(steps), storedVersion: item.storedVersion,
                            deadline: item.deadline))
                case .prepared(let row): .snapshot(row, replacingSteps: item.replacing)
                case .whole(let entry): .snapshot(row(item.id, entry, at: now), replacingSteps: item.replacing)
                }
            return (save, item.flow, Self.eventRows(changes))
        }
        let results = batch.compactMap { item, _ in item.ended?.result(id: item.id, at: now) }
        let versions = versionsToKeep(batch.map(\.0.loaded), at: now)
        let refused: Set<String>
        do {
            // The flows' versions first: a conversation the store holds can always be resumed on
            // its own version, whatever its flow's file says by then.
            if !versions.isEmpty { try archive.keepFlowVersions(versions, at: now) }
            refused = try archive.save(rows, results: results)
            keptVersions.withLock { kept in for v in versions { kept[v.identity]?.at = now } }
        } catch {
            // Nothing is dropped: the batch goes back in front of what came meanwhile, and the
            // writer tries again (each of its conversations as a whole snapshot: the steps taken
            // are not kept, and it is based on what the store still holds); until then the
            // writing routes answer 503.
            for (item, _) in batch {
                item.slot.withEntry { e in
                    e.unsavedSteps = nil
                    e.storedVersion = item.storedVersion
                    if item.ended != nil { e.resultTaken = false }
                }
            }
            state.withLock { s in
                for (item, changes) in batch where s.slots[item.id] != nil {
                    s.unsaved[item.id] = changes + (s.unsaved[item.id] ?? [])
                }
            }
            if !storeFailing.exchange(true, ordering: .sequentiallyConsistent) {
                log("rocket serve: the conversation store cannot be written (\(error.message)); changes are kept and tried again")
            }
            return FlushResult(saved: false, through: through)
        }
        counters.resultsWritten(refused.isEmpty ? results : results.filter { !refused.contains($0.id) })
        let result = FlushResult(saved: true, through: through, refused: Array(refused))
        if !refused.isEmpty {
            // Another server changed these conversations since this one read them: their
            // changes here are refused (their answers say so) and the copies in memory are
            // dropped; the next request reads them from the store again.
            state.withLock { s in
                for (item, changes) in batch where refused.contains(item.id) {
                    s.refused.insert(changes.map(\.seq))
                    if s.slots[item.id] === item.slot { s.remove(item.id) }
                }
            }
        }
        markSaved(through: through)
        return result
    }

    /// How often a version's use is written again while conversations of it are saved: a
    /// version is forgotten once unused for the idle timeout and this (no conversation of it can
    /// be resumed by then).
    static let versionUseInterval: Double = 3_600

    /// The versions of `flows` (those of a batch) whose use should be written now: each new one,
    /// and each whose use was last written ``versionUseInterval`` ago. A version is made into
    /// text once (a flow that cannot be kept as text is left out: its conversations are
    /// resumed only while its file is unchanged).
    func versionsToKeep(_ flows: [LoadedFlow], at now: Double) -> [ConversationArchive.FlowVersion] {
        // A batch's conversations share a few flows (by reference): each is looked at once.
        var seen = Set<ObjectIdentifier>()
        var identities = Set<String>()
        var out: [ConversationArchive.FlowVersion] = []
        for flow in flows where seen.insert(ObjectIdentifier(flow)).inserted && identities.insert(flow.identity).inserted {
            var entry = keptVersions.withLock { $0[flow.identity] }
            if entry == nil {
                let made = (text: FlowLibrary.versionText(of: flow), at: -Double.infinity)
                keptVersions.withLock { $0[flow.identity] = made }
                entry = made
            }
            guard let (text, at) = entry, let text, !(now >= at && now - at < Self.versionUseInterval) else { continue }
            out.append(ConversationArchive.FlowVersion(identity: flow.identity, name: flow.name, language: flow.language ?? "", text: text))
        }
        // Versions no save has named for two intervals are let go (a flow edited every day for a
        // year would otherwise hold every text): one named again is made into text again.
        keptVersions.withLock { kept in
            guard kept.count > Self.versionsHeld else { return }
            kept = kept.filter { identities.contains($0.key) || (now >= $0.value.at && now - $0.value.at < 2 * Self.versionUseInterval) }
        }
        return out
    }

    /// How many versions' texts the writer holds before it lets go of those unused for a while.
    static let versionsHeld = 64

    /// Other servers saved these conversations (with these versions): a copy here that is older
    /// is dropped (its unsaved changes refused); the next request reads the store again. Returns
    /// the ids whose copy here is gone or was never here, for the caller to refresh what follows
    /// them (``refresh(_:)``).
    package func storeChanged(_ changes: [(id: String, version: Int)]) -> [String] {
        var out: [String] = []
        var catchUp: [(id: String, version: Int, slot: Slot)] = []
        for (id, version) in changes {
            // An alert kept here that another server changed is read again when next used.
            if let alert = state.withLock({ $0.alerts[id] }) {
                if alert.version < version { state.withLock { s in dropAlert(id, in: &s) } }
                out.append(id)
                continue
            }
            if let slot = state.withLock({ $0.slots[id] }) {
                let mine = slot.version
                if mine >= version { continue }
                // A copy with nothing unsaved catches up with the steps saved after it (read in
                // one query for all of them, below); one with unsaved changes is dropped.
                if state.withLock({ $0.unsaved[id] == nil }) {
                    catchUp.append((id, mine, slot))
                    out.append(id)
                    continue
                }
                state.withLock { s in if s.slots[id] === slot { s.remove(id) } }
            }
            out.append(id)
        }
        if !catchUp.isEmpty { replayStored(catchUp) }
        return out
    }

    /// Brings copies up to date with the steps other servers saved after them, as a load does,
    /// without reading their snapshots again: the next request here finds them fresh (with round
    /// robin it would otherwise read the conversation back first). A copy that cannot catch up
    /// (a snapshot was written since, a step does not lead where it should) is read back whole,
    /// here; one that changed here meanwhile is left to its save's check.
    func replayStored(_ copies: [(id: String, version: Int, slot: Slot)]) {
        let stored: [String: (snapshotVersion: Int, steps: [ConversationArchive.Steps])]
        do {
            stored = try archive?.stepsAfter(copies.map { ($0.id, $0.version) }) ?? [:]
        } catch {
            stored = [:]
        }
        for (id, version, slot) in copies {
            let caughtUp: Bool = slot.withEntry { e in
                guard e.version == version, let found = stored[id], found.snapshotVersion <= version, !found.steps.isEmpty else { return false }
                var copy = e
                do throws(ConversationStep.Failure) {
                    for saved in found.steps {
                        for step in try ConversationStep.parse(saved.text) { Self.replay(step, on: &copy) }
                        guard copy.version == saved.version else { return false }
                    }
                } catch {
                    return false
                }
                // The copy is what the store holds: its next change may be saved as a step after
                // these (a snapshot here would stop the other servers' copies catching up).
                copy.storedVersion = copy.version
                copy.stepsStored = true
                copy.unsavedSteps = []
                copy.stepsSinceSnapshot = copy.version - found.snapshotVersion
                copy.cache = ConversationView.TranscriptCache()
                copy.cache.extend(copy.conversation, flow: copy.flow, version: copy.version)
                // Only if nothing was changed here meanwhile (a change takes this lock first).
                let fresh = copy
                let kept = state.withLock { s -> Bool in
                    guard s.slots[id] === slot, s.unsaved[id] == nil else { return false }
                    slot.use(at: fresh.touched)
                    s.setDeadline(id, slot, fresh.conversation.nextDeadline)
                    return true
                }
                if kept { e = fresh }
                return kept
            }
            if !caughtUp {
                // Read back here, off the requests' path (a snapshot written since cannot be
                // followed step by step); unless it changed here meanwhile, which its save checks.
                let dropped = state.withLock { s -> Bool in
                    guard s.slots[id] === slot, s.unsaved[id] == nil else { return false }
                    s.remove(id)
                    return true
                }
                if dropped { _ = locate(id, visitor: nil, address: slot.context.address) }
            }
        }
    }

    /// In a store servers share: loads the conversations whose timer is overdue by more than
    /// `grace` seconds and that no server runs (the one that held it stopped), so that the next
    /// ``advanceDue()`` runs their timers here. A timer runs once however many servers take
    /// over: a save based on an older version is refused. True when any was loaded.
    @discardableResult
    package func takeOverDue(grace: Double = 0.5) -> Bool {
        guard let archive, archive.isShared else { return false }
        let now = clock.now
        let ids: [String]
        do {
            ids = try archive.claimDue(before: now - grace, now: now, seconds: 2, limit: 100)
        } catch {
            log("rocket serve: conversation store: \(error.message)")
            return false
        }
        var loaded = false
        for id in ids where state.withLock({ $0.slots[id] == nil }) {
            if case .success = locate(id, visitor: nil, address: "") { loaded = true }
        }
        return loaded
    }

    /// The way to a shared store came back after a break: other servers' changes meanwhile were
    /// not told, so every copy here without unsaved changes is dropped (the store is read again
    /// when it is next used; copies with unsaved changes are checked by their save).
    package func storeReconnected() {
        state.withLock { s in
            for id in Array(s.slots.keys) where s.unsaved[id] == nil { s.remove(id) }
        }
    }

    /// What a stream that follows a conversation (or an alert) learns when the store changed it.
    package enum Refreshed {
        /// Its state as the store now holds it.
        case changed(Change)
        /// It cannot go on: no longer in the store (erased, expired, or removed by another
        /// server), or its flow is gone or changed without its version. Its streams end.
        case gone
        /// The store cannot be read now: its streams wait for the next change.
        case unreadable
    }

    /// Conversation (or alert) `id` read from the store again, for the streams that follow it.
    package func refresh(_ id: String) -> Refreshed {
        if state.withLock({ $0.slots[id] }) == nil {
            switch locate(id, visitor: nil, address: "") {
            case .success: break
            case .failure(let e) where e.response.status == 503: return .unreadable
            case .failure:
                // Not a conversation: an alert of the shared store?
                switch storedAlert(id) {
                case .success(let alert?):
                    return .changed(Change(id: id, version: alert.version, view: alert.view(id: id).serializedBytes(), events: []))
                case .success(nil): return .gone
                case .failure: return .unreadable
                }
            }
        }
        guard let slot = state.withLock({ $0.slots[id] }) else { return .gone }
        let e = slot.withEntry { $0 }
        return .changed(
            Change(id: id, version: e.version, view: view(id, e), events: [], deadline: e.conversation.nextDeadline, variant: e.context.variant))
    }

    /// True when change `seq` was refused by the store: another server changed its conversation
    /// first. Every answer that waited for it is made again (or is a 409 `stale-step`): several
    /// answers may wait for one change (a replay waits for the change it repeats), so asking does
    /// not forget it; the set keeps the newest 50,000 to 100,000.
    package func wasRefused(_ seq: UInt64) -> Bool {
        refused.contains(seq)
    }

    /// The answer of a change another server made impossible.
    package static var changedElsewhere: HTTPResponse {
        .error(409, "stale-step", "the conversation was changed by another request at the same time; read it again")
    }

    /// Records that every change up to `through` is in the store.
    func markSaved(through: UInt64) {
        savedThrough.store(max(savedThrough.load(ordering: .acquiring), through), ordering: .releasing)
        if storeFailing.exchange(false, ordering: .sequentiallyConsistent) { log("rocket serve: the conversation store is written again") }
    }

    /// What a flush did: whether its batch is in the store, and the number of the last change it
    /// held (every change up to it is saved when `saved`).
    package struct FlushResult: Sendable, Equatable {
        /// True when the batch was committed.
        package var saved: Bool
        /// The last change number the batch covered.
        package var through: UInt64
        /// Conversations whose changes the store refused (another server changed them first):
        /// dropped from memory; the streams that follow them need a refresh.
        package var refused: [String] = []
    }

    /// The number of the last change known to be in the store.
    package var saved: UInt64 { savedThrough.load(ordering: .acquiring) }

    /// True while the store cannot be written (the last flush failed): `/readyz` says so and the
    /// writing routes answer 503.
    package var isFailing: Bool { storeFailing.load(ordering: .acquiring) }

    /// The 503 a writing route answers while the store cannot be written.
    func storeRefusal() -> HTTPResponse? {
        guard isFailing else { return nil }
        return Self.storeUnavailable
    }

    /// The answer of a change that could not be saved, or of a writing route while the store fails.
    package static var storeUnavailable: HTTPResponse {
        var r = HTTPResponse.error(503, "store-unavailable", "the change could not be saved; try again shortly")
        r.headers.append(("Retry-After", "2"))
        return r
    }
}
