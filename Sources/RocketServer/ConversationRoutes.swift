import RocketConversation
import RocketCore
import RocketFlow
import RocketJSON
import RocketScenarioEngine
import RocketScenariosSQLite
import Synchronization
import RocketPlatform
import RocketText

// The API's routes about conversations: start (with the scenario gate), scenario events,
// reading, event streams, pictures, intents, holding auto-advance.
extension ConversationService {
    // MARK: Start

    func start(_ request: HTTPRequest) -> HTTPResponse {
        if let refusal = storeRefusal() { return refusal }
        let fields: RequestBody
        switch body(request, allowed: ["flow", "visitor", "vars", "reducedMotion", "lang", "utcOffset", "dryRun"]) {
        case .failure(let e): return e.response
        case .success(let f): fields = f
        }
        // A first visit brings no credentials and names no visitor: it starts as a new anonymous
        // visitor, whose token comes with the answer (one round trip, not two).
        var issued: (visitor: String, token: String)? = nil
        let credentialless = [HTTPRequest.Name.authorization, HTTPRequest.Name.visitor, HTTPRequest.Name.visitorHash].allSatisfy { request.header($0) == nil }
        let caller: Caller
        if credentialless, !fields.has("visitor") {
            let fresh = access.issueVisitor()
            issued = fresh
            caller = .visitor(fresh.visitor)
        } else {
            switch visitorOrSite(request) {
            case .failure(let e): return e.response
            case .success(let c): caller = c
            }
        }
        let flowName: String
        switch fields.required("flow", maxBytes: 64) {
        case .failure(let e): return e.response
        case .success(let f): flowName = f
        }
        let visitor: String
        switch actingVisitor(caller, named: fields.string("visitor", maxBytes: 128)) {
        case .failure(let e): return e.response
        case .success(let v): visitor = v
        }
        let given: [String: RocketValue]
        switch fields.valueMap(
            "vars", maxCount: RocketLimits.startVariables, maxName: RocketLimits.startVariableNameBytes,
            maxValue: RocketLimits.startVariableValueBytes)
        {
        case .failure(let e): return e.response
        case .success(let v): given = v
        }
        let reduced: Bool
        switch fields.bool("reducedMotion") {
        case .failure(let e): return e.response
        case .success(let b): reduced = b ?? false
        }
        let dryRun: Bool
        switch fields.bool("dryRun") {
        case .failure(let e): return e.response
        case .success(let b): dryRun = b ?? false
        }
        // The visitor's local time (minutes east of UTC) for quiet hours; else the server's.
        let utcOffset: Int?
        switch fields.integer("utcOffset", range: -840...840) {
        case .failure(let e): return e.response
        case .success(let m): utcOffset = m.map { $0 * 60 }
        }
        let strings: SharedStrings
        let requestedLanguage: String?
        switch fields.string("lang", maxBytes: 35) {
        case .failure(let e): return e.response
        case .success(let l):
            requestedLanguage = l
            strings = SharedStrings.forLocale(l)
        }
        let flow: LoadedFlow
        switch flows.flow(flowName, language: requestedLanguage) {
        case .success(let f): flow = f
        case .failure(.unknown): return .error(404, "unknown-flow", flows.unknownMessage(flowName))
        // The library has logged why, once for this version of the file.
        case .failure(.invalid):
            return .error(500, "flow-invalid", "the flow \(flowName) has errors; the server log names them")
        case .failure(.unreadable):
            return .error(500, "flow-unreadable", "the flow \(flowName) cannot be read; the server log says why")
        }
        let vars: (variables: [String: RocketValue], answers: [String: String])
        switch flow.document.startValues(given) {
        case .success(let v): vars = v
        case .failure(let problem): return .error(400, "bad-field", "\"vars\": \(problem.message)")
        }
        let now = clock.now
        sweepIfDue(now)
        let address = clientAddress(request)
        // The visitor's token, the address's conversations and the total, in one trip through the lock.
        let (admitted, held, total) = state.withLock { s in (admit(visitor, in: &s, at: now), s.live[address] ?? 0, s.slots.count) }
        guard admitted else { return tooMany() }
        // A dry run asks the gates, keeps nothing and holds no room (ConversationDryRun.swift).
        if dryRun {
            let newVisitor = issued
            let check: @Sendable () -> HTTPResponse = {
                self.dryRun(flow: flow, flowName: flowName, visitor: visitor, vars: vars, utcOffset: utcOffset, issued: newVisitor)
            }
            return flow.asksStore(self) ? .deferred(check) : check()
        }
        guard held < configuration.perAddress else { return quotaFull("conversations") }
        guard total < configuration.maxConversations else {
            var r = HTTPResponse.error(503, "too-many-conversations", "the server holds its maximum of conversations; try again later")
            r.headers.append(("Retry-After", "60"))
            return r
        }
        let (language, newVisitor) = (strings, issued)
        // Values of names the flow reads nowhere change nothing: the answer names them, so the
        // page's developer hears of a mistyped data-vars (the widget says it in the console).
        let unused = given.isEmpty ? [] : given.keys.filter { !flow.namesRead.contains($0) }.sorted()
        let begin: @Sendable () -> HTTPResponse = {
            self.begin(
                flow: flow, flowName: flowName, visitor: visitor, address: address, vars: vars, reduced: reduced, strings: language,
                issued: newVisitor, utcOffset: utcOffset, unusedVars: unused)
        }
        return flow.asksStore(self) ? .deferred(begin) : begin()
    }

    /// The answer to a start that shows nothing now: why (each reason a line), when it may be
    /// shown at the earliest, and the experiment's group when that is why.
    func notNow(_ flow: String, _ explanation: [String], earliest: Double? = nil, variant: String? = nil) -> HTTPResponse {
        counters.counted(start: flow, started: false)
        return .json(200, .object(Self.notNowFields(flow, explanation, earliest: earliest, variant: variant)))
    }

    /// The members of ``notNow(_:_:earliest:variant:)``'s answer (a dry run's too, which counts
    /// no start).
    static func notNowFields(_ flow: String, _ explanation: [String], earliest: Double? = nil, variant: String? = nil) -> [(String, JSONValue)] {
        var o: [(String, JSONValue)] = [("status", .string("notNow")), ("flow", .string(flow)), ("explanation", .array(explanation.map { .string($0) }))]
        if let earliest { o.append(("earliest", .string(WallTime.format(earliest.rounded(.up))))) }
        if let variant { o.append(("variant", .string(variant))) }
        return o
    }

    /// The rest of a start, once the request is read: the scenario gate (it reads and writes the
    /// scenario store), then the conversation.
    func begin(
        flow: LoadedFlow, flowName: String, visitor: String, address: String, vars: (variables: [String: RocketValue], answers: [String: String]),
        reduced: Bool, strings: SharedStrings,
        issued: (visitor: String, token: String)?, utcOffset: Int? = nil, unusedVars: [String] = []
    ) -> HTTPResponse {
        let now = clock.now
        let variantStart: RocketNodeID?
        let exposure: RocketEvent?
        let exposed: String?
        // The visitor's offset from UTC: the page's, else the server's (asked once a start).
        let offset = utcOffset ?? Environment.utcOffset(at: now)
        switch gates(flow: flow, flowName: flowName, visitor: visitor, vars: vars, utcOffset: offset, at: now, keep: true) {
        case .notNow(let why, let earliest, let variant): return notNow(flowName, why, earliest: earliest, variant: variant)
        case .failed(let response): return response
        case .passed(let from, let variant, let event):
            (variantStart, exposed, exposure) = (from, variant, event)
        }
        let timing = reduced ? RocketTiming.reducedMotion : configuration.timing
        // The flow's today() and time() read the visitor's local time: the page's offset from UTC
        // (the server's own without one) on the server's wall clock. A flow that never reads the
        // clock is given none, so starts from every time zone stay of one kind.
        let options = ConversationOptions(
            timing: timing, echoReplies: true, initialAnswers: vars.answers, initialVariables: vars.variables,
            localShift: flow.readsClock ? Double(offset) : nil)
        let context = Context(visitor: visitor, address: address, flow: flow, options: options, strings: strings)
        // Starts of a kind (the same options, without values of their own) are alike but for
        // their time and id: the first is made in full, the rest from what it made.
        let key =
            keepsStarts && vars.answers.isEmpty && vars.variables.isEmpty && !flow.readsClock
            ? StartKey(
                flowName: flowName, options: options, from: variantStart, exposure: exposed, variant: context.variant,
                language: strings.value.language)
            : nil
        if let key, let shape = flow.startShapes.shape(key, strings: strings) {
            let id = Self.newID(at: now)
            let slot = Slot(Fresh(shape, at: now, from: variantStart, prepared: persists ? shape.prepared(at: now) : nil), context: context)
            let deadline = shape.deadline(at: now)
            let records = persists ? shape.records(at: now) : nil
            let change = {
                Change(
                    id: id, version: shape.version, view: shape.view(id), events: shape.recorded, deadline: deadline, variant: context.variant,
                    flow: flowName)
            }
            return admit(id, slot, touched: now, deadline: deadline, records: records, change: change, issued: issued, unusedVars: unusedVars)
        }
        // With no intro (reduced motion), the first block is due at once: it goes in this answer.
        guard let started = flow.started(options: options, from: variantStart, at: now) else {
            return .error(500, "flow-invalid", "the flow \(flowName) has no first block")
        }
        var effects = started.effects
        // The conversation's first records: its exposure (in an experiment), then its start.
        effects.insert(.event(.started(flow: flowName, version: flow.version)), at: 0)
        if let exposure { effects.insert(.event(exposure), at: 0) }
        let id = Self.newID(at: now)
        var entry = Entry(context: context, conversation: started.conversation, touched: now, step: 0, version: 0, eventSeq: 0)
        // New: no client holds a view of it written elsewhere.
        entry.cache = ConversationView.TranscriptCache(validFrom: 0)
        let pending = commit(id: id, entry: &entry, effects: effects, at: now, step: nil)
        // Its first save is its start (what it was started from, at what time), made here, by
        // the thread that answers, outside any lock (no one else knows it yet), so the writer,
        // which every answer waits for, only stores it; a load starts it again.
        var form: StoredConversation.StartForm?
        if persists {
            let root = variantStart.map { flow.blockNames.name(of: $0) }
            form = StoredConversation.startForm(flow: flow.identity, from: root, options: options, language: strings.value.language)
            entry.prepared = form.map { (entry.version, now, StoredConversation.startText($0, at: now)) }
        }
        // Kept as it started until it is first used (most never are): a fifth of the memory.
        let fresh = keepsStarts ? Fresh(entry, at: now, from: variantStart) : nil
        if let key { flow.startShapes.keep(StartShape(entry, recorded: pending.recorded, at: now, form: form), for: key) }
        let slot = fresh.map { Slot($0, context: entry.context) } ?? Slot(entry)
        return admit(
            id, slot, touched: entry.touched, deadline: entry.conversation.nextDeadline, records: pending.records,
            change: { pending.change(self) }, issued: issued, unusedVars: unusedVars)
    }

    /// Adds new conversation `slot` as `id` (its first change made `records`) unless its
    /// client address holds its quota already, tells of the change and answers 201 with it
    /// (`change` makes it, outside the index's lock) once it is saved; the answer names the
    /// start's `unusedVars` when there are any.
    private func admit(
        _ id: String, _ slot: Slot, touched: Double, deadline: Double?, records: Records?, change makeChange: () -> Change,
        issued: (visitor: String, token: String)?, unusedVars: [String] = []
    ) -> HTTPResponse {
        let address = slot.context.address
        let stored = state.withLock { s -> UInt64? in
            // The quota holds however many starts of one address race past the check above.
            guard s.live[address, default: 0] < configuration.perAddress else { return nil }
            return s.insert(id, slot, touched: touched, deadline: deadline, records: records)
        }
        guard let seq = stored else { return quotaFull("conversations") }
        counters.counted(start: slot.context.flow.name, started: true)
        let change = makeChange()
        publish(change)
        var head: [(String, JSONValue)] = [("status", .string("started"))]
        if let issued { head += [("visitor", .string(issued.visitor)), ("token", .string(issued.token))] }
        if !unusedVars.isEmpty { head.append(("unusedVars", .array(unusedVars.map { .string($0) }))) }
        var answer = HTTPResponse.wrapping(201, head, "conversation", change.view)
        answer.durableAfter = seq
        return answer
    }

    // MARK: Erasure

    /// `DELETE /v1/visitors/{id}`: a site's back end erases what the server keeps of one visitor
    /// (a visitor's request to be forgotten). Site keys only.
    func forgetVisitor(_ request: HTTPRequest, visitor: String) -> HTTPResponse {
        if let refusal = requireSite(request) { return refusal.response }
        guard Self.isVisitor(visitor) else { return .error(400, "bad-visitor", "a visitor id is 1–128 letters, digits, '-', '_', '.' or ':'") }
        return .deferred { self.forget(visitor: visitor) }
    }

    /// Erases `visitor`: its conversations and alerts leave memory (their unsaved changes are
    /// refused), and the store removes its conversations, steps, event records and results, then
    /// its per-visitor scenario statistics and assignments. The conversations go under the
    /// writer's lock, so no save taken before can write one back. Answered once committed;
    /// a store that cannot be written is 503 (nothing is said to be gone that is not).
    package func forget(visitor: String) -> HTTPResponse {
        let stored: (conversations: Int, results: Int)
        var dropped: (conversations: Int, ids: [String]) = (0, [])
        do {
            stored = try flushing.withLock { _ throws(ConversationArchive.Failure) -> (conversations: Int, results: Int) in
                dropped = dropFromMemory(visitor: visitor)
                let gone = try archive?.forget(visitor: visitor) ?? (0, 0)
                // One a request read back from the store meanwhile goes too (no flush can save
                // it before: the writer waits for this lock).
                let again = dropFromMemory(visitor: visitor)
                dropped = (dropped.conversations + again.conversations, dropped.ids + again.ids)
                return gone
            }
        } catch {
            log("rocket serve: conversation store: \(error.message)")
            return Self.storeUnavailable
        }
        // Their event streams end (told once the writer's lock is let go).
        if !dropped.ids.isEmpty, let tell = forgottenListener.withLock({ $0 }) { tell(dropped.ids) }
        let inMemory = dropped.conversations
        var statistics = 0
        if let visitors = scenarios as? any VisitorStore {
            do throws(ScenarioStoreError) {
                statistics = try visitors.forget(visitor: visitor)
            } catch {
                log("rocket serve: scenario store: \(error.message)")
                return Self.storeUnavailable
            }
        }
        return .json(
            200,
            .object([
                ("visitor", .string(visitor)),
                (
                    "forgotten",
                    .object([
                        ("conversations", .number(Double(max(stored.conversations, inMemory)))), ("results", .number(Double(stored.results))),
                        ("scenarios", .number(Double(statistics))),
                    ])
                ),
            ]))
    }

    /// `GET /v1/visitors/{id}`: what the server keeps of one visitor, for a site's back end to
    /// hand over (a visitor's request to see its data). Site keys only.
    func visitorRecord(_ request: HTTPRequest, visitor: String) -> HTTPResponse {
        if let refusal = requireSite(request) { return refusal.response }
        guard Self.isVisitor(visitor) else { return .error(400, "bad-visitor", "a visitor id is 1–128 letters, digits, '-', '_', '.' or ':'") }
        return .deferred(slow: true) { self.record(of: visitor) }
    }

    /// What the server keeps of `visitor`: its conversations as they are now (in memory, else
    /// read from the store, none loaded into memory for it), its results, its alerts, its
    /// per-visitor scenario statistics and its experiments' assignments; at most
    /// `RocketLimits.visitorRecordItems` conversations, as many results and as many alerts
    /// (`truncated` says so).
    package func record(of visitor: String) -> HTTPResponse {
        let limit = RocketLimits.visitorRecordItems
        let now = clock.now
        // In memory: the slots found a shard at a time, their views made outside the index's lock.
        var mine: [(id: String, slot: Slot)] = []
        for shard in 0..<ShardedIndex<Slot>.shardCount {
            state.withLock { s in s.slots.forEach(inShard: shard) { id, slot in if slot.context.visitor == visitor { mine.append((id, slot)) } } }
        }
        // Each entry copied under its lock (a copy on write), its view made after.
        var views: [(id: String, view: [UInt8])] = mine.map { item in (item.id, view(item.id, item.slot.withEntry { $0 })) }
        var truncated = views.count > limit
        var results: [ConversationArchive.StoredResult] = []
        if let archive {
            do throws(ConversationArchive.Failure) {
                let known = Set(views.map(\.id))
                let stored = try archive.conversations(ofVisitor: visitor, limit: limit + 1)
                truncated = truncated || stored.count > limit
                for id in stored where !known.contains(id) && views.count < limit {
                    guard let (row, steps) = try archive.load(id) else { continue }
                    if case .success(let e) = restore(id, row: row, steps: steps, address: "", at: now, tell: { self.log("rocket serve: \($0)") }) {
                        views.append((id, view(id, e)))
                    }
                }
                results = try archive.results(flow: nil, visitor: visitor, ended: nil, after: 0, limit: limit + 1, maxBytes: Int.max)
                truncated = truncated || results.count > limit
            } catch {
                log("rocket serve: conversation store: \(error.message)")
                return Self.storeUnavailable
            }
        }
        // Its alerts: the shared store's (the truth every server saves to before answering), or
        // those this server keeps in memory; views made outside the lock.
        var alerts: [(id: String, entry: AlertEntry)] = []
        if let shared = sharedAlerts {
            do throws(ConversationArchive.Failure) {
                alerts = try shared.alerts(ofVisitor: visitor, limit: limit + 1).compactMap { item in
                    StoredAlert(text: item.text)?.entry.map { (item.id, $0) }
                }
            } catch {
                log("rocket serve: conversation store: \(error.message)")
                return Self.storeUnavailable
            }
        } else {
            alerts = state.withLock { s in s.alerts.compactMap { $0.value.visitor == visitor ? ($0.key, $0.value) : nil } }
            alerts.sort { $0.id < $1.id }
        }
        truncated = truncated || alerts.count > limit
        var kept = VisitorRecord()
        if let visitors = scenarios as? any VisitorStore {
            do throws(ScenarioStoreError) {
                kept = try visitors.kept(ofVisitor: visitor)
            } catch {
                log("rocket serve: scenario store: \(error.message)")
                return Self.storeUnavailable
            }
        }
        var w = JSONBytes(capacity: 4096 + views.reduce(0) { $0 + $1.view.count })
        w.open()
        w.key("visitor", first: true)
        w.string(visitor)
        w.key("conversations")
        w.openArray()
        for (k, v) in views.sorted(by: { $0.id < $1.id }).prefix(limit).enumerated() {
            if k > 0 { w.comma() }
            w.raw(v.view)
        }
        w.closeArray()
        w.key("results")
        w.openArray()
        for (k, r) in results.prefix(limit).enumerated() {
            if k > 0 { w.comma() }
            r.write(into: &w)
        }
        w.closeArray()
        w.key("alerts")
        w.openArray()
        for (k, a) in alerts.prefix(limit).enumerated() {
            if k > 0 { w.comma() }
            w.raw(a.entry.view(id: a.id).serializedBytes())
        }
        w.closeArray()
        w.key("scenarios")
        w.openArray()
        for (k, item) in kept.statistics.enumerated() {
            if k > 0 { w.comma() }
            w.open()
            w.key("scenario", first: true)
            w.string(item.scenario)
            w.key("events")
            w.number(item.stats.eventsCount)
            w.key("executions")
            w.number(item.stats.executionsCount)
            for (key, time) in [
                ("firstEvent", item.stats.firstEventDate), ("lastEvent", item.stats.lastEventDate), ("lastExecution", item.stats.lastExecutionDate),
            ] {
                w.key(escaping: key)
                if let time { w.string(WallTime.format(time)) } else { w.null() }
            }
            w.close()
        }
        w.closeArray()
        w.key("assignments")
        w.openArray()
        for (k, a) in kept.assignments.enumerated() {
            if k > 0 { w.comma() }
            w.open()
            w.key("experiment", first: true)
            w.string(a.experiment)
            w.key("variant")
            w.string(a.variant)
            w.key("at")
            w.string(WallTime.format(a.at))
            w.close()
        }
        w.closeArray()
        w.key("truncated")
        w.bool(truncated)
        w.close()
        w.out.append(0x0A)
        return HTTPResponse(status: 200, headers: HTTPResponse.jsonHeaders, body: w.out)
    }

    /// Drops every conversation and alert of `visitor` from memory, a shard of the index at a
    /// time (the lock is let go in between); how many conversations went, and the ids of every
    /// conversation and alert that went.
    func dropFromMemory(visitor: String) -> (conversations: Int, ids: [String]) {
        var dropped: [String] = []
        for shard in 0..<ShardedIndex<Slot>.shardCount {
            dropped += state.withLock { s -> [String] in
                var mine: [String] = []
                s.slots.forEach(inShard: shard) { id, slot in if slot.context.visitor == visitor { mine.append(id) } }
                for id in mine { s.remove(id) }
                return mine
            }
        }
        let alerts = state.withLock { s -> [String] in
            let mine = s.alerts.filter { $0.value.visitor == visitor }.map(\.key)
            for id in mine { dropAlert(id, in: &s) }
            return mine
        }
        return (dropped.count, dropped + alerts)
    }

    // MARK: Scenario events

    func trigger(_ request: HTTPRequest) -> HTTPResponse {
        if let refusal = requireSite(request) { return refusal.response }
        let fields: RequestBody
        switch body(request, allowed: ["scenario", "visitor"]) {
        case .failure(let e): return e.response
        case .success(let f): fields = f
        }
        guard case .success(let name) = fields.required("scenario", maxBytes: 512), ScenarioRulesCodec.isName(name) else {
            return .error(400, "bad-field", "\"scenario\" must be a scenario name (a string of 1–512 bytes)")
        }
        guard case .success(let visitor) = fields.required("visitor", maxBytes: 128), Self.isVisitor(visitor) else {
            return .error(400, "bad-visitor", "a visitor id is 1–128 letters, digits, '-', '_', '.' or ':'")
        }
        // Only scenarios a flow names are counted: any other name would be a row nobody reads.
        guard flows.declaredScenarios().contains(name) else {
            return .error(404, "unknown-scenario", "no flow on offer names the scenario \(name.utf8.count <= 64 ? name : String(name.prefix(64)) + "…")")
        }
        let now = clock.now
        guard state.withLock({ s in admit(visitor, in: &s, at: now) }) else { return tooMany() }
        guard let store = scenarios else { return HTTPResponse(status: 204) }
        // The store's write on the database thread; the answer once it is committed.
        return .deferred {
            do throws(ScenarioStoreError) {
                try NamedScenario(name + "@" + visitor).triggerEvent(in: store, at: now)
            } catch {
                self.log("rocket serve: scenario store: \(error.message)")
                return .error(503, "store-unavailable", "the scenario store cannot be used now")
            }
            return HTTPResponse(status: 204)
        }
    }

    // MARK: Reading

    /// True for what ``newID()`` makes: 32 lower-case hex digits.
    static func isConversationID(_ id: String) -> Bool {
        var text = id
        return text.withUTF8 { bytes in bytes.count == 32 && bytes.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x66) } }
    }

    /// The 404 for a conversation that is unknown, or not this visitor's.
    func unknownConversation(_ id: String) -> ResponseError {
        ResponseError(.error(404, "unknown-conversation", "there is no conversation \(id.count <= 64 ? id : String(id.prefix(64)) + "…") for this visitor"))
    }

    /// Loads conversation `id` of `visitor` from the archive when it is not in memory (the
    /// caller has looked there); unknown when there is none or it belongs to someone else: the
    /// same answer, so ids cannot be probed.
    func locate(_ id: String, visitor: String?, address: String) -> Result<Void, ResponseError> {
        let unknown = unknownConversation(id)
        guard Self.isConversationID(id), let archive else { return .failure(unknown) }
        let loaded: (row: ConversationArchive.Row, steps: [ConversationArchive.Steps])?
        do {
            loaded = try archive.load(id)
        } catch {
            log("rocket serve: conversation store: \(error.message)")
            return .failure(ResponseError(.error(503, "store-unavailable", "the conversation store cannot be read now")))
        }
        guard let (row, steps) = loaded, visitor == nil || row.visitor == visitor else { return .failure(unknown) }
        let now = clock.now
        guard max(row.touched, steps.last?.at ?? 0) >= now - configuration.idleTimeout else { return .failure(unknown) }
        let entry: Entry
        switch restore(id, row: row, steps: steps, address: address, at: now, tell: { log("rocket serve: \($0)") }) {
        case .success(let e): entry = e
        case .failure(let e): return .failure(e)
        }
        let slot = Slot(entry)
        state.withLock { s in
            if s.slots[id] == nil { s.insert(id, slot, entry: entry) }
        }
        return .success(())
    }

    /// Stored conversation `id` (`row` and the `steps` after it) as it was: its flow found (in
    /// the language it was saved in), its snapshot restored and its steps replayed, used at
    /// `now`. A row that cannot be read is told to `tell`; its flow no longer served is a 410,
    /// another version of its flow a 409 (the visitor starts a new one).
    func restore(
        _ id: String, row: ConversationArchive.Row, steps: [ConversationArchive.Steps], address: String, at now: Double, tell: (String) -> Void
    ) -> Result<Entry, ResponseError> {
        guard let archive else { return .failure(unknownConversation(id)) }
        var flow: LoadedFlow
        switch flows.flow(row.flow) {
        case .success(let f): flow = f
        case .failure: return .failure(ResponseError(.error(410, "flow-gone", "the flow of this conversation is no longer served")))
        }
        // A flow in several languages: the conversation's is the one whose graph it was saved for.
        if flow.document.languages.count > 1, (try? StoredConversation(jsonText: Array(row.snapshot.utf8), flow: flow)) == nil {
            for lang in flow.document.languages.dropFirst() {
                if case .success(let f) = flows.flow(row.flow, language: lang), (try? StoredConversation(jsonText: Array(row.snapshot.utf8), flow: f)) != nil {
                    flow = f
                    break
                }
            }
        }
        let restored: Conversation
        let options: ConversationOptions
        var strings = SharedStrings.forLocale(nil)
        let stored: StoredConversation
        do {
            stored = try StoredConversation(jsonText: Array(row.snapshot.utf8), flow: flow)
        } catch .otherFlow(_, let found) {
            // Its flow's file changed since it was saved: it goes on with the version it was
            // saved with, which the store keeps (unless it was saved before versions were kept).
            guard let version = flowVersion(found, name: row.flow, tell: tell),
                let again = try? StoredConversation(jsonText: Array(row.snapshot.utf8), flow: version)
            else {
                return .failure(Self.flowChanged)
            }
            flow = version
            stored = again
        } catch {
            if case .invalid(let why) = error { tell("conversation \(id) cannot be restored: \(why)") }
            return .failure(Self.flowChanged)
        }
        do {
            options = stored.options
            if let lang = stored.language { strings = SharedStrings.forLocale(lang) }
            // With steps to replay, the snapshot's timers count from when it was taken, as they did
            // when the steps were made; without, from now (time stood still while it was stored).
            // In a store servers share, time never stands still: another server ran the
            // conversation until now, and its timers are due when they were due there.
            let shared = archive.isShared
            let from = steps.isEmpty && !shared ? now : row.savedAt ?? row.touched
            restored = try stored.snapshot.restore(
                graph: flow.graph, author: flow.author, closeButton: flow.closeButton, options: options, at: from, flow: flow.identity,
                timersAsSaved: !steps.isEmpty || shared)
        } catch {
            // Another flow's hash is the expected case; a row that cannot be read at all is told
            // to the operator (the visitor gets the same answer: start a new one).
            if case .invalid(let why) = error {
                tell("conversation \(id) cannot be restored: \(why)")
            }
            return .failure(Self.flowChanged)
        }
        var entry = Entry(
            visitor: row.visitor, address: address, flow: flow, options: options, conversation: restored, touched: now, step: row.step, version: row.version,
            eventSeq: row.eventSeq, strings: strings)
        // Steps of it are stored (or may be): the first snapshot of this run deletes them.
        entry.stepsStored = true
        entry.storedVersion = row.storedVersion
        if let last = steps.last {
            do throws(ConversationStep.Failure) {
                for saved in steps {
                    for step in try ConversationStep.parse(saved.text) { Self.replay(step, on: &entry) }
                    guard entry.version == saved.version else {
                        throw ConversationStep.Failure(message: "its steps lead to version \(entry.version), not \(saved.version)")
                    }
                }
                // Time stood still from the last save until now, as for a snapshot (not in a
                // shared store: see above).
                if !archive.isShared {
                    let snapshot = ConversationSnapshot(entry.conversation, at: last.at, flow: flow.identity, names: flow.blockNames)
                    do throws(ConversationSnapshot.Failure) {
                        entry.conversation = try snapshot.restore(
                            graph: flow.graph, author: flow.author, closeButton: flow.closeButton, options: options, at: now, flow: flow.identity)
                    } catch {
                        throw ConversationStep.Failure(message: "\(error)")
                    }
                }
            } catch {
                tell("conversation \(id) cannot be restored: \(error.message)")
                return .failure(Self.flowChanged)
            }
            entry.touched = now
        }
        // Its settled items, from the version it was stored at; a client's view of that version
        // was written by another (see ConversationView.TranscriptCache.validFrom).
        entry.cache = ConversationView.TranscriptCache(validFrom: entry.version + 1)
        entry.cache.extend(entry.conversation, flow: flow, version: entry.version)
        return .success(entry)
    }

    /// The answer for a conversation that cannot go on with its flow: the version it was saved
    /// with is not kept (or its row cannot be read).
    static var flowChanged: ResponseError {
        ResponseError(.error(409, "flow-changed", "the flow changed since this conversation started, and its version is not kept; start a new one"))
    }

    /// The version of flow `name` whose identity is `identity`: decoded already, or read from
    /// the store (this runs where the store is read: off the threads that answer requests); nil
    /// when the store keeps none (or cannot be read now, which `tell` hears).
    func flowVersion(_ identity: String, name: String, tell: (String) -> Void) -> LoadedFlow? {
        if let kept = flows.keptVersion(identity) { return kept }
        guard let archive else { return nil }
        do throws(ConversationArchive.Failure) {
            guard let v = try archive.flowVersion(identity) else { return nil }
            let flow = flows.version(identity, name: name, text: v.text, language: v.language.isEmpty ? nil : v.language)
            if flow == nil { tell("the kept version \(identity.prefix(12)) of flow \(name) does not make that flow; its conversations cannot go on") }
            return flow
        } catch {
            tell("conversation store: \(error.message)")
            return nil
        }
    }

    /// Applies a stored step to a loaded conversation as its route did when it was made: the same
    /// engine step at the same time, counted the same way (the next save is a whole snapshot).
    static func replay(_ step: ConversationStep, on e: inout Entry) {
        switch step {
        case .send(let intent, let at):
            switch e.send(intent, at: at) {
            case .success(let effects): _ = count(effects, on: &e, bump: true, step: nil)
            case .failure(let error): _ = count([], on: &e, bump: error.isInputError, step: nil)
            }
        case .advance(let at):
            if let effects = e.advanceDue(at: at) { _ = count(effects, on: &e, bump: true, step: nil) }
        case .hold(let held, let at):
            if let effects = e.hold(held, at: at) { _ = count(effects, on: &e, bump: true, step: nil) }
        }
    }

    func view(_ id: String, _ e: Entry, held: ConversationView.Held? = nil) -> [UInt8] {
        ConversationView.bytes(
            id: id, flow: e.flow, conversation: e.conversation, step: e.step, version: e.version, strings: e.shared, cache: e.cache, held: held)
    }

    /// What the client holds of the conversation, as its `Rocket-Settled` header says (nil: no
    /// header), or the 400 of a header that is not `VERSION/SETTLED`.
    func held(_ request: HTTPRequest) -> Result<ConversationView.Held?, ResponseError> {
        guard let value = request.header(HTTPRequest.Name.settled) else { return .success(nil) }
        guard let held = ConversationView.Held(header: value.trimmingSpaces()) else {
            return .failure(
                ResponseError(
                    .error(400, "bad-header", "Rocket-Settled must be VERSION/SETTLED, two whole numbers of a view the client holds (its version and settled)"))
            )
        }
        return .success(held)
    }

    /// Where a request about a conversation stands: refused, ready (the conversation is in
    /// memory and the caller's: its slot, found in the same trip through the lock), or to be
    /// loaded from the archive first (on the database thread).
    enum Entered {
        case refused(ResponseError)
        case ready(Slot)
        case load(visitor: String?)
    }

    /// The caller of a request about conversation `id`, charged a token and checked against the
    /// conversation's owner; `loaded`: the archive was read already (no second charge, no
    /// second read).
    func enter(_ request: HTTPRequest, id: String, loaded: Bool = false) -> Entered {
        switch enterChecked(request, id: id, loaded: loaded) {
        case .failure(let e): return .refused(e)
        case .success(let needsLoad): return needsLoad
        }
    }

    /// Runs `route` again once conversation `id` is loaded from the archive, on the database
    /// thread (the answer is made there too).
    func afterLoading(
        _ request: HTTPRequest, id: String, visitor: String?, _ route: @escaping @Sendable () -> HTTPResponse
    ) -> HTTPResponse {
        let address = clientAddress(request)
        return .deferred {
            if case .failure(let e) = self.locate(id, visitor: visitor, address: address) { return e.response }
            return route().resolved()
        }
    }

    /// The answer when conversation `id` left memory between the caller's check and its use: in a
    /// store servers share (where another server's change drops the copy here) it is read again
    /// and `route` runs once more, and when it went again meanwhile the request is a 409
    /// `stale-step` (others are changing it right now); with a store of its own it expired, and
    /// is unknown.
    func vanished(_ request: HTTPRequest, id: String, loaded: Bool, _ route: @escaping @Sendable () -> HTTPResponse) -> HTTPResponse {
        guard archive?.isShared == true else { return unknownConversation(id).response }
        guard !loaded else { return Self.changedElsewhere }
        var visitor: String? = nil
        switch visitorOrSite(request) {
        case .failure(let e): return e.response
        case .success(.visitor(let v)): visitor = v
        case .success: break
        }
        return afterLoading(request, id: id, visitor: visitor, route)
    }

    func enterChecked(_ request: HTTPRequest, id: String, loaded: Bool) -> Result<Entered, ResponseError> {
        let caller: Caller
        switch visitorOrSite(request) {
        case .failure(let e): return .failure(e)
        case .success(let c): caller = c
        }
        // The visitor's own conversations only; a site may reach any.
        var visitor: String? = nil
        if case .visitor(let v) = caller { visitor = v }
        // Every request of a visitor costs a token before anything is looked up (the store too);
        // the token and the owner of a conversation in memory are one trip through the lock.
        let now = clock.now
        let known = Self.isConversationID(id)
        let found: (admitted: Bool, slot: Slot?) = state.withLock { s in
            if !loaded, let visitor, !admit(visitor, in: &s, at: now) { return (false, nil) }
            return (true, known ? s.slots[id] : nil)
        }
        guard found.admitted else { return .failure(ResponseError(tooMany())) }
        if let slot = found.slot {
            return visitor == nil || slot.context.visitor == visitor ? .success(.ready(slot)) : .failure(unknownConversation(id))
        }
        // Not in memory: unknown, or in the archive (read on the database thread). Just read
        // and gone again: in a store servers share, another server's change dropped it.
        if loaded, known, archive?.isShared == true { return .failure(ResponseError(Self.changedElsewhere)) }
        guard !loaded, known, persists else { return .failure(unknownConversation(id)) }
        return .success(.load(visitor: visitor))
    }

    /// A copy of conversation `id` (in `slot`), marked as used now (its view is built from the
    /// copy, after the lock is released); nil when it left memory meanwhile.
    func touch(_ id: String, _ slot: Slot) -> Entry? {
        let now = clock.now
        return slot.withEntry { e in
            e.touched = now
            return state.withLock { s in s.record(id, slot, e, changed: nil) } == nil ? nil : e
        }
    }

    func read(_ request: HTTPRequest, id: String, loaded: Bool = false) -> HTTPResponse {
        entered(request, id: id, loaded: loaded, again: { self.read(request, id: id, loaded: true) }) { e, holds in
            .wrapping(200, [], "conversation", self.view(id, e, held: holds))
        }
    }

    func stream(_ request: HTTPRequest, id: String, loaded: Bool = false) -> HTTPResponse {
        // A page that opens (or opens again) the stream of a view it holds names it: the first
        // frame then leaves out what it holds, as an answer does.
        entered(request, id: id, loaded: loaded, again: { self.stream(request, id: id, loaded: true) }) { e, holds in
            .eventStream(id, first: Change(id: id, version: e.version, view: self.view(id, e, held: holds), events: []).frames, version: e.version)
        }
    }

    /// What a route that shows conversation `id` answers: `body`'s answer for its entry (touched)
    /// and the view the client says it holds (`Rocket-Settled`), or why the caller may not see it.
    /// `again` is the route called once more after the conversation is loaded from the store.
    private func entered(
        _ request: HTTPRequest, id: String, loaded: Bool, again: @escaping @Sendable () -> HTTPResponse,
        _ body: (Entry, ConversationView.Held?) -> HTTPResponse
    ) -> HTTPResponse {
        let holds: ConversationView.Held?
        switch held(request) {
        case .failure(let e): return e.response
        case .success(let h): holds = h
        }
        let found: Slot
        switch enter(request, id: id, loaded: loaded) {
        case .refused(let e): return e.response
        case .load(let visitor): return afterLoading(request, id: id, visitor: visitor, again)
        case .ready(let slot): found = slot
        }
        guard let e = touch(id, found) else { return vanished(request, id: id, loaded: loaded, again) }
        return body(e, holds)
    }

    /// The current frames of conversation `id` (a stream that just opened sends them again, so a
    /// change between the first answer and the stream's registration is never missed); nil when
    /// there is no such conversation, or when its version is still `after` (the first frame
    /// showed it already).
    package func currentFrames(_ id: String, after shown: Int? = nil) -> [UInt8]? {
        let (slot, alert) = state.withLock { s in (s.slots[id], s.alerts[id]) }
        if let e = slot?.withEntry({ $0 }) {
            if e.version == shown { return nil }
            return Change(id: id, version: e.version, view: view(id, e), events: []).frames
        }
        return alert.map { Change(id: id, version: $0.version, view: $0.view(id: id).serializedBytes(), events: []).frames }
    }

    // MARK: Files

    /// `GET /v1/flows/NAME/files/PATH`: a picture beside the flow file (PNG, JPEG, GIF or WebP,
    /// at most 8 MiB), never anything outside the flow folder; 304 for a client whose
    /// `If-None-Match` names the file as it is.
    func file(_ request: HTTPRequest, flow name: String, path: String) -> HTTPResponse {
        let missing = HTTPResponse.error(404, "not-found", "no such file")
        guard case .success = flows.flow(name), let dir = flows.directory, let rel = FilePath.relative(path) else { return missing }
        guard case .success(let opened) = FileIO.openRegular(inside: dir, rel) else { return missing }
        let file = FileBody(descriptor: opened.descriptor, size: opened.size)
        guard file.size <= RocketLimits.servedPictureBytes else { return missing }
        guard let format = PictureFormat(signature: file.prefix(12)) else { return missing }
        let tag = "\"\(opened.version)\""
        var r = HTTPResponse(status: 200, headers: [("Content-Type", format.mediaType), ("Cache-Control", "max-age=300"), ("ETag", tag)])
        r.file = file
        return request.holds(tag) ? r.notModified() : r
    }

    // MARK: Intents

    func intent(_ request: HTTPRequest, id: String, loaded: Bool = false, snoozeKept: Bool = false) -> HTTPResponse {
        let holds: ConversationView.Held?
        switch held(request) {
        case .failure(let e): return e.response
        case .success(let h): holds = h
        }
        let fields: RequestBody
        switch body(request, allowed: ["intent", "text", "option", "options", "value", "step"]) {
        case .failure(let e): return e.response
        case .success(let f): fields = f
        }
        guard case .success(let word) = fields.required("intent", maxBytes: 32), let name = RocketIntent.Name(rawValue: word) else {
            let names = RocketIntent.Name.allCases.map(\.rawValue).joined(separator: ", ")
            return .error(400, "bad-field", "\"intent\" must be one of \(names)")
        }
        let intent: RocketIntent
        switch name {
        case .tap, .pressButton, .pressLeft, .pressRight, .close, .back: intent = name.plainIntent ?? .tap  // never nil for these
        case .submit:
            guard case .success(let text) = fields.required("text", maxBytes: RocketLimits.submittedTextBytes) else {
                return .error(400, "bad-field", "\"submit\" needs \"text\", a string of at most \(RocketLimits.submittedTextBytes) bytes")
            }
            intent = .submit(text)
        case .choose:
            guard case .success(let option?) = fields.integer("option", range: 0...999) else {
                return .error(400, "bad-field", "\"choose\" needs \"option\", a whole number from 0 to 999")
            }
            intent = .choose(option)
        case .chooseMany:
            guard case .success(let options?) = fields.integers("options", maxCount: RocketLimits.choiceOptions, range: 0...999) else {
                return .error(
                    400, "bad-field", "\"chooseMany\" needs \"options\", an array of at most \(RocketLimits.choiceOptions) whole numbers from 0 to 999")
            }
            intent = .chooseMany(options)
        case .rate:
            guard case .success(let value?) = fields.integer("value", range: 0...10) else {
                return .error(400, "bad-field", "\"rate\" needs \"value\", a whole number from 0 to 10")
            }
            intent = .rate(value)
        }
        if name != .submit, fields.has("text") { return .error(400, "bad-field", "\"text\" goes with \"submit\" only") }
        if name != .choose, fields.has("option") { return .error(400, "bad-field", "\"option\" goes with \"choose\" only") }
        if name != .chooseMany, fields.has("options") { return .error(400, "bad-field", "\"options\" goes with \"chooseMany\" only") }
        if name != .rate, fields.has("value") { return .error(400, "bad-field", "\"value\" goes with \"rate\" only") }
        let step: Int?
        switch fields.integer("step", range: 0...Int(Int32.max)) {
        case .failure(let e): return e.response
        case .success(let s): step = s
        }
        let slot: Slot
        switch enter(request, id: id, loaded: loaded) {
        case .refused(let e): return e.response
        case .load(let visitor): return afterLoading(request, id: id, visitor: visitor) { self.intent(request, id: id, loaded: true) }
        case .ready(let found): slot = found
        }
        let now = clock.now
        if let refusal = storeRefusal() { return refusal }
        // A press of a button that snoozes the flow: the snooze is kept in the scenario store
        // first, on the database thread, then the intent is applied (its answer means both are
        // kept). Without a scenario store there is nowhere to keep it. "forever" lasts as long as
        // the server keeps a visitor's statistics (--visitor-retention), so that the rows of
        // visitors who never come back are still swept.
        if !snoozeKept, slot.context.flow.snoozes, let scenarios,
            let asked = slot.withEntry({ e in e.conversation.button(pressedBy: intent)?.snooze.flatMap(RocketButtonNode.snoozeSeconds) })
        {
            let (flowName, visitor) = (slot.context.flow.name, slot.context.visitor)
            let seconds = asked.isFinite ? asked : configuration.visitorRetention
            return .deferred {
                do throws(ScenarioStoreError) {
                    try FlowSnooze.record(in: scenarios, flow: flowName, visitor: visitor, seconds: seconds, at: self.clock.now)
                } catch {
                    self.log("rocket serve: scenario store: \(error.message)")
                    var r = HTTPResponse.error(503, "store-unavailable", "the scenario store cannot be written now")
                    r.headers.append(("Retry-After", "5"))
                    return r
                }
                return self.intent(request, id: id, loaded: loaded, snoozeKept: true).resolved()
            }
        }
        enum Outcome {
            case stale(Entry, asked: Int, UInt64)
            case refused(RocketIntentError, Pending, SharedStrings, UInt64)
            case replayed(Entry, UInt64)
            case changed(Pending, UInt64)
            /// It left memory meanwhile (nothing was changed).
            case gone
        }
        // Every answer waits for the conversation's newest change to be saved (the seq), so a
        // retry of an intent whose first answer was lost is not acknowledged before it is safe.
        // The engine's step (a validation pattern among it) under this conversation's lock only.
        // (An answer that the conversation expired meanwhile is made only then: building it
        // for every intent cost 4 % of an intent's instructions.)
        var gone: Outcome { .gone }
        let outcome: Outcome = slot.withEntry { e in
            e.touched = now
            // A replay of the last accepted intent (same step, same intent) is answered with the
            // state and changes nothing; any other stale step is a conflict.
            if let step, let last = e.lastIntent, step == last.step, intent == last.intent {
                let copy = e
                return state.withLock { s in s.record(id, slot, copy, changed: nil) == nil ? gone : .replayed(copy, slot.awaited) }
            }
            if let step, step != e.step {
                let copy = e
                return state.withLock { s in s.record(id, slot, copy, changed: nil) == nil ? gone : .stale(copy, asked: step, slot.awaited) }
            }
            let all: [ConversationEffect]
            switch e.send(intent, at: now) {
            case .success(let effects): all = effects
            case .failure(let error):
                let pending = commit(id: id, entry: &e, effects: [], at: now, bump: error.isInputError, step: .sending(intent, at: now))
                // A refused input is a change (the input error shows); other refusals are not.
                let (mark, shared) = (State.Mark(e), e.shared)
                return state.withLock { s in
                    s.record(id, slot, mark, changed: error.isInputError ? pending : nil) == nil
                        ? gone : .refused(error, pending, shared, slot.awaited)
                }
            }
            // What fell due at once (a bounce of 0 s under reduced motion) is in this answer.
            let pending = commit(id: id, entry: &e, effects: all, at: now, step: .sending(intent, at: now))
            let mark = State.Mark(e)
            return state.withLock { s in s.record(id, slot, mark, changed: pending).map { .changed(pending, $0) } ?? gone }
        }
        var answer: HTTPResponse
        switch outcome {
        case .gone: return vanished(request, id: id, loaded: loaded) { self.intent(request, id: id, loaded: true) }
        case .stale(let e, let asked, let seq):
            answer = .errorWrapping(409, "stale-step", "the conversation is at step \(e.step), not \(asked)", "conversation", view(id, e, held: holds))
            answer.durableAfter = seq
        case .refused(let error, let pending, let strings, let seq):
            let change = pending.change(self, answering: holds)
            if error.isInputError { publish(change) }
            answer = HTTPResponse.errorWrapping(
                422, error.code, message(error, strings.value), "conversation", change.view)
            answer.durableAfter = seq
        case .replayed(let e, let seq):
            answer = HTTPResponse.wrapping(200, [], "conversation", view(id, e, held: holds))
            answer.durableAfter = seq
        case .changed(let pending, let seq):
            let change = pending.change(self, answering: holds)
            publish(change)
            answer = HTTPResponse.wrapping(200, [], "conversation", change.view)
            answer.durableAfter = seq
        }
        if answer.durableAfter == 0 { answer.durableAfter = nil }
        return answer
    }

    /// `POST /v1/conversations/{id}/hold` with `{"held": true}` or `false`: auto-advance waits
    /// (the visitor reads, types, points at the conversation, or turned it off), or runs again
    /// with the time it had left. A change like an intent's: numbered, published, made durable.
    func hold(_ request: HTTPRequest, id: String, loaded: Bool = false) -> HTTPResponse {
        let holds: ConversationView.Held?
        switch held(request) {
        case .failure(let e): return e.response
        case .success(let h): holds = h
        }
        let fields: RequestBody
        switch body(request, allowed: ["held"]) {
        case .failure(let e): return e.response
        case .success(let f): fields = f
        }
        guard case .success(let held?) = fields.bool("held") else {
            return .error(400, "bad-field", "\"held\" must be true or false")
        }
        let slot: Slot
        switch enter(request, id: id, loaded: loaded) {
        case .refused(let e): return e.response
        case .load(let visitor): return afterLoading(request, id: id, visitor: visitor) { self.hold(request, id: id, loaded: true) }
        case .ready(let found): slot = found
        }
        if let refusal = storeRefusal() { return refusal }
        let now = clock.now
        // Nil: it expired meanwhile; no pending change: it was already as asked.
        let result: (entry: Entry, change: Pending?, seq: UInt64)? = slot.withEntry { e in
            e.touched = now
            var pending: Pending? = nil
            if let effects = e.hold(held, at: now) {
                pending = commit(id: id, entry: &e, effects: effects, at: now, step: .hold(held, at: now))
            }
            let copy = e
            return state.withLock { s in s.record(id, slot, copy, changed: pending).map { _ in (copy, pending, slot.awaited) } }
        }
        guard let result else { return vanished(request, id: id, loaded: loaded) { self.hold(request, id: id, loaded: true) } }
        var answer: HTTPResponse
        if let pending = result.change {
            let change = pending.change(self, answering: holds)
            publish(change)
            answer = .wrapping(200, [], "conversation", change.view)
        } else {
            answer = .wrapping(200, [], "conversation", view(id, result.entry, held: holds))
        }
        answer.durableAfter = result.seq == 0 ? nil : result.seq
        return answer
    }

    func message(_ error: RocketIntentError, _ strings: UIStrings) -> String {
        switch error {
        case .notActive: return "the conversation is not showing"
        case .noInteractiveBlock: return "no block takes input now"
        case .tapDisabled: return "the newest block goes on by itself"
        case .wrongKind(let expected, _): return "the newest block is a \(expected.rawValue) block"
        case .invalidInput(let failure): return strings.message(for: failure)
        case .noCloseButton: return "this conversation has no close button"
        case .noSuchOption(let n): return "the choice has no option \(n)"
        case .cannotGoBack: return "there is no earlier answer to go back to, or the flow does not allow it"
        }
    }
}
