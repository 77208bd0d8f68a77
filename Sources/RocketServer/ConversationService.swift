package import RocketConversation
package import RocketCore
import RocketFlow
import RocketJSON
package import RocketScenarioEngine
import RocketScenariosSQLite
import Synchronization
import RocketPlatform
import RocketText

/// The logic of `rocket serve`, without sockets: requests in, responses out, time from an
/// injected clock. It hosts conversations (value state, one per id), gates them by their flow's
/// scenario per visitor, keeps them in a ``ConversationArchive`` so a restart resumes them, and
/// reports every change so event streams can carry it.
///
/// Nothing a client sends runs inside the lock beyond the engine's own pure steps; the store is
/// written and change listeners are called after the lock is released.
package final class ConversationService: Sendable {
    /// What never changes in a conversation, shared by every copy of its entry (a copy of an
    /// entry retains this once instead of every string of the flow and the messages).
    final class Context: Sendable {
        let visitor: String
        /// The client address it counts against (``ServerConfiguration/perAddress``).
        let address: String
        let flow: LoadedFlow
        let options: ConversationOptions
        /// Its messages: one of the languages' shared copies (a copy of its own would be 856
        /// bytes of every conversation, a third of its memory).
        let shared: SharedStrings
        var strings: UIStrings { shared.value }
        /// The experiment's variant the visitor is in (derived again from the visitor after a
        /// restart: the assignment is a pure function), nil without an experiment.
        let variant: String?

        init(visitor: String, address: String, flow: LoadedFlow, options: ConversationOptions, strings: SharedStrings) {
            self.visitor = visitor
            self.address = address
            self.flow = flow
            self.options = options
            shared = strings
            variant = flow.document.experiment.map { $0.name(of: $0.assign(visitor: visitor)) }
        }
    }
    struct Entry {
        let context: Context
        var conversation: Conversation
        var touched: Double
        var step = 0
        var version = 0
        var eventSeq = 0
        var lastIntent: (step: Int, intent: RocketIntent)?
        /// Its final transcript items, serialized (extended at every change).
        var cache = ConversationView.TranscriptCache()
        /// The changes since the last save as steps (nil: the next save is a whole snapshot).
        var unsavedSteps: [ConversationStep]? = nil
        /// Steps saved since the last snapshot was.
        var stepsSinceSnapshot = 0
        /// True when steps of it may be in the store (the next snapshot deletes them).
        var stepsStored = false
        /// The version the store holds of it (0: none yet): its next save is based on it.
        var storedVersion = 0
        /// Its stored form at `version` (its start: docs/SNAPSHOT_FORMAT.md), made by the thread
        /// that started it (nil once saved).
        var prepared: (version: Int, at: Double, text: String)? = nil
        /// True once its result (what it was answered, taken when it ended) went into a save.
        var resultTaken = false

        init(
            visitor: String, address: String, flow: LoadedFlow, options: ConversationOptions, conversation: Conversation, touched: Double,
            step: Int = 0, version: Int = 0, eventSeq: Int = 0, strings: SharedStrings
        ) {
            self.init(
                context: Context(visitor: visitor, address: address, flow: flow, options: options, strings: strings), conversation: conversation,
                touched: touched, step: step, version: version, eventSeq: eventSeq)
        }

        init(context: Context, conversation: Conversation, touched: Double, step: Int, version: Int, eventSeq: Int) {
            self.context = context
            self.conversation = conversation
            self.touched = touched
            self.step = step
            self.version = version
            self.eventSeq = eventSeq
        }

        var visitor: String { context.visitor }
        var flow: LoadedFlow { context.flow }
        var options: ConversationOptions { context.options }
        var strings: UIStrings { context.strings }
        /// Its messages by reference (no copy of them).
        var shared: SharedStrings { context.shared }
    }
    /// A language's messages, kept once and referred to by every conversation in it.
    final class SharedStrings: Sendable {
        let value: UIStrings
        init(_ value: UIStrings) { self.value = value }
        /// The languages there are (UIStrings.all), each kept once.
        static let known = UIStrings.all.map(SharedStrings.init)
        /// The shared copy of `s` (a new one only for messages none of the languages has).
        static func of(_ s: UIStrings) -> SharedStrings {
            known.first { $0.value.language == s.language && $0.value == s } ?? SharedStrings(s)
        }
        /// The messages for `locale` (a request's `lang`, a stored conversation's language; nil:
        /// English), found by its language without a copy of them.
        static func forLocale(_ locale: String?) -> SharedStrings {
            let code = UIStrings.language(forLocale: locale ?? "en")
            return known.first { $0.value.language == code } ?? known[0]
        }
    }
    /// One conversation: what never changes about it, and its state behind a lock of its own.
    /// The engine's steps (pattern matches among them) and the view cache's serialization run
    /// under this lock only, so a slow conversation holds up nobody else. Lock order: a slot's
    /// lock, then the service's `state` (never the other way round).
    final class Slot: Sendable {
        let context: Context
        /// Its state: as it started (until it is first used) or whole.
        private let held: Mutex<Held>
        /// When it was last used (the bits of the seconds): written with the index's lock held,
        /// read by the idle sweep. Kept here rather than in an index of its own, so recording a
        /// use looks nothing up.
        private let lastUsed: Atomic<UInt64>
        /// Its deadline as the index's `deadlines` holds it (the bits; `noDeadline`: none),
        /// written and read with the index's lock held: a change that leaves it as it was
        /// touches no table.
        private let indexedDue = Atomic<UInt64>(Slot.noDeadline)
        private static let noDeadline = UInt64.max

        /// The number of its newest change (0: none): an answer about it is sent once the store
        /// holds that change (and so every change before it). Written with the index's lock held.
        private let newest = Atomic<UInt64>(0)

        /// A conversation kept whole.
        init(_ entry: Entry) {
            context = entry.context
            held = Mutex(.whole(Whole(entry)))
            lastUsed = Atomic(entry.touched.bitPattern)
        }

        /// A conversation kept as it started (`fresh`), made whole when it is first used.
        init(_ fresh: Fresh, context: Context) {
            self.context = context
            held = Mutex(.fresh(fresh))
            lastUsed = Atomic(fresh.touched.bitPattern)
        }

        /// Runs `body` on its state under its lock, making it whole first if it is kept as it
        /// started.
        func withEntry<R>(_ body: (inout Entry) -> sending R) -> sending R {
            held.withLock { h -> sending R in
                return body(&made(whole: &h).entry)
            }
        }

        /// Its whole state, made from `h` first when `h` holds it as it started (the engine is
        /// pure: it is the conversation it was). Called with the lock held.
        private func made(whole h: inout Held) -> Whole {
            switch h {
            case .whole(let w): return w
            case .fresh(let fresh):
                let whole = Whole(fresh.entry(context))
                h = .whole(whole)
                return whole
            }
        }

        /// True while it is kept as it started.
        var isFresh: Bool {
            held.withLock { h in
                if case .fresh = h { true } else { false }
            }
        }

        /// Its version, without making it whole.
        var version: Int {
            held.withLock { h in
                switch h {
                case .whole(let w): w.entry.version
                case .fresh(let f): f.version
                }
            }
        }

        /// Under its lock: its start's save when it is kept as it started and that is its next
        /// save (marked as taken, as ``Entry/takeSteps()`` and a save would), else `body` on the
        /// whole state.
        func takeForSave<R>(
            fresh: (Fresh, _ start: (version: Int, at: Double, text: String)) -> sending R, whole body: (inout Entry) -> sending R
        ) -> sending R {
            held.withLock { h -> sending R in
                if case .fresh(var f) = h, let made = f.prepared, made.version == f.version {
                    let taken = fresh(f, made)
                    f.prepared = nil
                    f.storedVersion = f.version
                    f.savesSteps = true
                    h = .fresh(f)
                    return taken
                }
                return body(&made(whole: &h).entry)
            }
        }

        /// When it was last used.
        var used: Double { Double(bitPattern: lastUsed.load(ordering: .relaxed)) }
        /// Records a use at `time`.
        func use(at time: Double) { lastUsed.store(time.bitPattern, ordering: .relaxed) }

        /// The deadline the index holds for it.
        var indexedDeadline: Double? {
            let bits = indexedDue.load(ordering: .relaxed)
            return bits == Self.noDeadline ? nil : Double(bitPattern: bits)
        }
        /// Notes the deadline the index now holds for it.
        func indexed(deadline: Double?) { indexedDue.store(deadline.map(\.bitPattern) ?? Self.noDeadline, ordering: .relaxed) }
        /// The change an answer about it waits for (0: none since it was loaded).
        var awaited: UInt64 { newest.load(ordering: .relaxed) }
        /// Notes its newest change.
        func changed(_ seq: UInt64) { newest.store(seq, ordering: .relaxed) }
    }
    /// A slot's state: as it started, or whole.
    enum Held {
        case fresh(Fresh)
        case whole(Whole)
    }
    /// A conversation's whole state, in a box of its own: a slot kept as it started holds only
    /// its ``Fresh`` form.
    final class Whole {
        var entry: Entry
        init(_ entry: Entry) { self.entry = entry }
    }
    /// A conversation unchanged since it started, as memory keeps it: what it was started from
    /// and its counters, about 200 bytes where its whole state takes about 1.3 KB more (most
    /// started conversations are never used again). Its state is made again by the function
    /// the start ran (``LoadedFlow/started(options:from:at:)``) when it is first used, as a
    /// load from the store does.
    struct Fresh {
        /// When it started and from which block (an experiment's variant), nil: the flow's first.
        let at: Double
        let from: RocketNodeID?
        /// Its next deadline (its first timer), for the store's row.
        let deadline: Double?
        let touched: Double
        let step: Int
        let version: Int
        let eventSeq: Int
        var storedVersion: Int
        /// Its stored form, until it is saved (as ``Entry/prepared``).
        var prepared: (version: Int, at: Double, text: String)?
        /// True once it was taken for a save: its next changes are saved as steps after it (its
        /// ``Entry/unsavedSteps`` is empty rather than nil).
        var savesSteps: Bool

        /// The fresh form of `e`, a conversation started at `at` from `from` and not changed
        /// since; nil when it has anything a start would not make again.
        init?(_ e: Entry, at: Double, from: RocketNodeID?) {
            guard e.lastIntent == nil, e.stepsSinceSnapshot == 0, !e.stepsStored, e.unsavedSteps?.isEmpty ?? true else { return nil }
            self.at = at
            self.from = from
            deadline = e.conversation.nextDeadline
            touched = e.touched
            step = e.step
            version = e.version
            eventSeq = e.eventSeq
            storedVersion = e.storedVersion
            prepared = e.prepared
            savesSteps = e.unsavedSteps != nil
        }

        /// A conversation started at `at` from `from` as every start of `shape`'s kind does,
        /// stored as `prepared` until it is saved.
        init(_ shape: StartShape, at: Double, from: RocketNodeID?, prepared: (version: Int, at: Double, text: String)?) {
            self.at = at
            self.from = from
            deadline = shape.deadline(at: at)
            touched = at
            step = shape.step
            version = shape.version
            eventSeq = shape.eventSeq
            storedVersion = shape.storedVersion
            self.prepared = prepared
            savesSteps = shape.savesSteps
        }

        /// Its whole state again: started as it was, with its counters.
        func entry(_ context: Context) -> Entry {
            let flow = context.flow
            // The flow started it once, so it starts again (the fallback, an unstarted one, is for
            // the type's sake only).
            let conversation =
                flow.started(options: context.options, from: from, at: at)?.conversation
                ?? Conversation(graph: flow.graph, author: flow.author, closeButton: flow.closeButton, options: context.options)
            var e = Entry(context: context, conversation: conversation, touched: touched, step: step, version: version, eventSeq: eventSeq)
            e.storedVersion = storedVersion
            e.prepared = prepared
            e.unsavedSteps = savesSteps ? [] : nil
            // Every start of its kind answered the same view: a client holds its settled items.
            e.cache = ConversationView.TranscriptCache(validFrom: version)
            e.cache.extend(e.conversation, flow: flow, version: version)
            return e
        }
    }
    struct Bucket {
        var tokens: Double
        var at: Double
    }
    /// The index of everything, behind the service's one short lock: which conversations exist,
    /// when each was last used and is next due, what waits to be saved, rates and quotas.
    /// Nothing slow happens under it.
    struct State {
        /// Every conversation in memory (each slot knows when it was last used: idle ones expire).
        var slots = ShardedIndex<Slot>()
        /// The next timer of each conversation that has one: what the ticker looks at, so a tick
        /// costs the conversations with timers, not all of them.
        var deadlines: [String: Double] = [:]
        var alerts: [String: AlertEntry] = [:]
        /// Request rates: of each client address, and of each visitor.
        var buckets: [String: Bucket] = [:]
        var visitorBuckets: [String: Bucket] = [:]
        /// Live conversations and alerts per client address.
        var live: [String: Int] = [:]
        var liveAlerts: [String: Int] = [:]
        var lastSweep: Double = -.infinity
        /// True when changes are saved: the service's ``ConversationService/persists``, for the
        /// index's own methods.
        var persistent = false
        /// Conversations changed since the last save, each change with its number and its new
        /// event records: the next flush writes each one's latest state and these records (a
        /// save the store refuses refuses all its changes).
        var unsaved: [String: [UnsavedChange]] = [:]
        /// The number of the last change (of any conversation) to be saved.
        var changeSeq: UInt64 = 0

        /// Changes the store refused (another server changed their conversation first), until
        /// their answers are made: shared with the service, which asks it without this lock.
        let refused: RefusedChanges

        init(refused: RefusedChanges) { self.refused = refused }

        /// Drops conversation `id` from memory (the store keeps it); its unsaved changes are
        /// refused (their answers say so).
        mutating func remove(_ id: String) {
            guard let slot = slots.removeValue(forKey: id) else { return }
            if let changes = unsaved.removeValue(forKey: id), !changes.isEmpty { refused.insert(changes.map(\.seq)) }
            let held = (live[slot.context.address] ?? 1) - 1
            live[slot.context.address] = held > 0 ? held : nil
            deadlines[id] = nil
        }

        /// Adds conversation `slot` as `id`; it counts against its address.
        mutating func insert(_ id: String, _ slot: Slot, entry e: Entry) {
            insert(id, slot, touched: e.touched, deadline: e.conversation.nextDeadline)
        }

        /// Adds conversation `slot` as `id`, last used at `touched` and next due at `deadline`.
        mutating func insert(_ id: String, _ slot: Slot, touched: Double, deadline: Double?) {
            slots[id] = slot
            live[slot.context.address, default: 0] += 1
            slot.use(at: touched)
            setDeadline(id, slot, deadline)
        }

        /// Adds a new conversation `slot` as `id` with its first change, which made `records`:
        /// the change's number (0 when nothing is saved).
        mutating func insert(_ id: String, _ slot: Slot, touched: Double, deadline: Double?, records: Records?) -> UInt64 {
            insert(id, slot, touched: touched, deadline: deadline)
            return markUnsaved(id, slot, records)
        }

        /// Records that conversation `id` (still `slot`: false when it expired meanwhile) was
        /// used and is next due as `e` says; with change `p`, marks it for the next save and
        /// returns the change's number (0 when nothing is saved). Called with the slot's lock
        /// held, so a conversation's changes are numbered in the order they were made.
        mutating func record(_ id: String, _ slot: Slot, _ e: Entry, changed p: Pending?) -> UInt64? {
            record(id, slot, Mark(e), changed: p)
        }

        /// What the index keeps of an entry: when it was last used and is next due (taken
        /// before the lock, without a copy of the entry).
        struct Mark {
            var touched: Double
            var deadline: Double?
            init(_ e: Entry) {
                touched = e.touched
                deadline = e.conversation.nextDeadline
            }
        }

        /// Puts conversation `id`'s next deadline in `deadlines`, unless it is there already.
        mutating func setDeadline(_ id: String, _ slot: Slot, _ deadline: Double?) {
            guard slot.indexedDeadline != deadline else { return }
            deadlines[id] = deadline
            slot.indexed(deadline: deadline)
        }

        /// ``record(_:_:_:changed:)`` with what the index keeps of the entry.
        mutating func record(_ id: String, _ slot: Slot, _ mark: Mark, changed p: Pending?) -> UInt64? {
            guard slots[id] === slot else { return nil }
            slot.use(at: mark.touched)
            setDeadline(id, slot, mark.deadline)
            guard let p else { return 0 }
            return markUnsaved(id, slot, p.records)
        }

        /// Numbers a change of conversation `id` (which made `records`) and keeps it for the next
        /// save (nothing when changes are not saved: 0).
        private mutating func markUnsaved(_ id: String, _ slot: Slot, _ records: Records?) -> UInt64 {
            guard persistent else { return 0 }
            changeSeq += 1
            unsaved[id, default: []].append(UnsavedChange(seq: changeSeq, records: records))
            slot.changed(changeSeq)
            return changeSeq
        }
    }
    /// A change not saved yet: its number, and its event records if it made any.
    struct UnsavedChange {
        var seq: UInt64
        var records: Records?
    }
    /// The numbers of changes the store refused. Asked about every answer that waited for the
    /// store, it takes no lock until a change was refused (rare: another server changed the
    /// conversation first, or it expired with unsaved changes).
    final class RefusedChanges: Sendable {
        private let seqs = Mutex<Set<UInt64>>([])
        private let any = Atomic<Bool>(false)

        /// Marks `new` as refused (keeping the newest 50,000 past 100,000).
        func insert(_ new: some Sequence<UInt64>) {
            seqs.withLock { set in
                set.formUnion(new)
                if set.count > 100_000 { set = Set(set.sorted().suffix(50_000)) }
            }
            any.store(true, ordering: .releasing)
        }

        /// True when change `seq` was refused.
        func contains(_ seq: UInt64) -> Bool {
            guard any.load(ordering: .acquiring) else { return false }
            return seqs.withLock { $0.contains(seq) }
        }
    }

    /// A change to publish: the conversation, its version, the view, and new event records.
    package struct Change: Sendable {
        package var id: String
        package var version: Int
        /// The view, JSON bytes: the answer to whoever made the change (without the items it holds,
        /// when it said), and what streams are sent unless ``streamView`` makes theirs.
        package var view: [UInt8]
        /// The change's recorded events (``RocketEvent/isRecorded``), in order.
        package var events: [RocketEvent]
        /// The conversation's next timer after the change (nil: none).
        package var deadline: Double? = nil
        /// The experiment's variant of the conversation, on each of its records.
        package var variant: String? = nil
        /// The conversation's flow, when the change may hold its events (nil: an alert's, or a
        /// view alone).
        package var flow: String? = nil
        /// Makes the view the streams are sent, when it is not ``view`` (the answer to whoever made
        /// the change): one without the transcript items the view before the change settled (every
        /// stream of the conversation was sent that one, or a newer one, already), or the whole one.
        package var streamView: (@Sendable () -> [UInt8])? = nil
        /// The stream frames for this change (`event: events`, then `event: state`).
        package var frames: [UInt8] {
            var out: [UInt8] = []
            if !events.isEmpty {
                var w = JSONBytes(capacity: events.count * 96)
                w.openArray()
                for (k, e) in events.enumerated() {
                    if k > 0 { w.comma() }
                    e.writeRecord(into: &w, variant: variant)
                }
                w.closeArray()
                out += Array("event: events\ndata: ".utf8) + w.out + [0x0A, 0x0A]
            }
            out += Array("id: \(version)\nevent: state\ndata: ".utf8) + (streamView?() ?? view) + [0x0A, 0x0A]
            return out
        }
    }

    let state: Mutex<State>
    /// The changes the store refused (the same as the state's, asked without its lock).
    let refused: RefusedChanges
    let savedThrough = Atomic<UInt64>(0)
    /// When ``sweepIfDue(_:)`` last looked under the index's lock (the bits of a time).
    let sweepLooked = Atomic<UInt64>((-Double.infinity).bitPattern)
    let flushing = Mutex(())
    let storeFailing = Atomic<Bool>(false)
    /// The versions of flows this server has kept in the store (``ConversationStore/keepFlowVersions(_:at:)``),
    /// by identity: their text (nil when the flow cannot be kept as text) and when their use was
    /// last written. Used by the writer alone (under ``flushing``).
    let keptVersions = Mutex<[String: (text: String?, at: Double)]>([:])
    /// When a failed checkpoint was last logged.
    let checkpointComplaint = Mutex<Double>(-.infinity)
    /// True while a report is being made (one at a time).
    let reporting = Atomic<Bool>(false)
    /// True while a page of results is read (one at a time, on the thread for long work).
    let readingResults = Atomic<Bool>(false)
    /// What `GET /metrics` reports that the HTTP layer counts.
    package let counters = ServerCounters()
    /// When the service was made (its clock's time).
    let startedAt: Double
    /// Who is told of changes (a class box: a closure kept in a generic `Mutex` is re-wrapped in
    /// a reabstraction thunk at every read, which cost half the server's time).
    final class Listener: Sendable {
        let body: @Sendable (Change) -> Void
        init(_ body: @escaping @Sendable (Change) -> Void) { self.body = body }
    }
    let listener = Mutex<Listener?>(nil)
    /// Who is told of conversations a visitor's erasure removed (the HTTP layer ends their
    /// streams); called with no lock held.
    let forgottenListener = Mutex<(@Sendable ([String]) -> Void)?>(nil)
    /// The flows on offer.
    package let flows: FlowLibrary
    /// Where conversations are kept (nil: in memory only).
    package let archive: (any ConversationStore)?
    /// True when changes are saved (there is an archive): each change then needs a flush. A
    /// flag set once, which the paths every change takes ask instead of the optional store.
    package let persists: Bool
    /// True when a new conversation is kept as it started until it is first used (``Fresh``);
    /// false only in tests, to compare with conversations kept whole from the start.
    let keepsStarts: Bool
    let scenarios: (any ScenarioStore)?
    let clock: any RocketClock
    /// The limits.
    package let configuration: ServerConfiguration
    let log: @Sendable (String) -> Void
    let assets: WebAssets
    /// Who may call what (keys, visitor tokens, identified visitors).
    package let access: AccessControl

    /// A service over `flows`, keeping conversations in `archive` and deciding scenarios in
    /// `scenarios` (nil: no persistence / every flow shown), on `clock`, letting callers in as
    /// `access` says. `log` receives one line per problem the operator should see, the same line
    /// at most once a minute (``LogThrottle``).
    package init(
        flows: FlowLibrary, archive: (any ConversationStore)?, scenarios: (any ScenarioStore)?, clock: any RocketClock,
        configuration: ServerConfiguration = ServerConfiguration(), access: AccessControl = .random(),
        log: @escaping @Sendable (String) -> Void = { _ in }, keepsStarts: Bool = true
    ) {
        self.keepsStarts = keepsStarts
        self.access = access
        self.flows = flows
        self.archive = archive
        persists = archive != nil
        self.scenarios = scenarios
        self.clock = clock
        startedAt = clock.now
        self.configuration = configuration
        // A line said again within a minute is held back (a failing store is named by every
        // request that needs it).
        let throttle = LogThrottle()
        self.log = { line in
            if let passed = throttle.pass(line, at: clock.now) { log(passed) }
        }
        self.assets = WebAssets()
        let refused = RefusedChanges()
        self.refused = refused
        var initial = State(refused: refused)
        initial.persistent = persists
        state = Mutex(initial)
    }

    /// Sets the function told of every change (called outside any lock, in change order per
    /// conversation).
    package func onChange(_ body: @escaping @Sendable (Change) -> Void) {
        let box = Listener(body)
        listener.withLock { $0 = box }
    }

    /// Calls `body` with the ids of conversations a visitor's erasure removed.
    package func onForgotten(_ body: @escaping @Sendable ([String]) -> Void) {
        forgottenListener.withLock { $0 = body }
    }

    /// Conversations in memory.
    package var count: Int { state.withLock { $0.slots.count } }

    // MARK: Routing

    /// Answers one request, doing any work that waits for a database here, on the caller's thread.
    package func handle(_ request: HTTPRequest) -> HTTPResponse { handleDeferring(request).resolved() }

    /// Answers one request; an answer that needs a database is ``HTTPResponse/deferred`` work,
    /// for the HTTP layer's database thread.
    package func handleDeferring(_ request: HTTPRequest) -> HTTPResponse {
        // The segments after the leading "/", split on the byte (a path is ASCII in practice,
        // and splitting by Character costs grapheme work).
        guard request.path.utf8.first == 0x2F else { return .error(404, "not-found", "no such route") }
        let route = Self.segments(request.path)
        if route.first == "v1" { return api(request, Array(route.dropFirst())) }
        // The page is found first, so that a path that is no page is 404 whatever the method
        // and a page asked for with another method than GET or HEAD is 405.
        let page: () -> HTTPResponse
        switch route.count {
        case 1 where route[0] == "": page = { self.assets.index(flows: self.flows.catalog(), origin: self.embedOrigin) }
        case 1 where route[0] == "widget.js": page = { self.assets.widget(for: request) }
        case 3 where route[0] == "widget" && route[1] == "words": page = { self.assets.words(route[2], for: request) }
        case 1 where route[0] == "favicon.ico": page = { HTTPResponse(status: 204, headers: [("Cache-Control", "max-age=86400")]) }
        // For a load balancer: the process answers; the store can be written.
        case 1 where route[0] == "healthz": page = { .json(200, .object([("status", .string("ok"))])) }
        // A store servers share is asked (on the database thread): it may be gone while this
        // server has nothing to write. It is asked at most once a second, a request in between
        // getting that answer: anyone may call this route, and each ask holds the database
        // thread and a connection.
        case 1 where route[0] == "readyz":
            page = {
                let shared = self.archive?.isShared == true
                let now = self.clock.now
                @Sendable func answer(_ reached: Bool) -> HTTPResponse {
                    guard reached, !self.isFailing else {
                        var r = HTTPResponse.json(503, .object([("status", .string("store-unavailable"))]))
                        r.headers.append(("Retry-After", "2"))
                        return r
                    }
                    return .json(200, .object([("status", .string("ready"))]))
                }
                guard shared, !self.isFailing else { return answer(true) }
                if let known = self.reached.withLock({ $0 }), now >= known.at, now - known.at < 1 { return answer(known.reached) }
                return .deferred {
                    var reached = true
                    do { try self.archive?.ping() } catch { reached = false }
                    self.reached.withLock { $0 = (now, reached) }
                    return answer(reached)
                }
            }
        // Monitoring: a site key only.
        case 1 where route[0] == "metrics":
            guard Self.readMethods.contains(request.method) else { return methodNotAllowed(Self.readMethods) }
            return metrics(request)
        // The report's page: a site key only (see report(_:page:)).
        case 1 where route[0] == "report":
            guard Self.readMethods.contains(request.method) else { return methodNotAllowed(Self.readMethods) }
            return report(request, page: true)
        // A play page costs its address a request token: one of a flow whose page is not kept
        // (past maxPlayPages) is made and gzipped again.
        case 2 where route[0] == "play":
            page = {
                if let refusal = self.addressRefusal(request) { return refusal }
                switch self.flows.flow(route[1]) {
                case .success: break
                case .failure(.unknown): return .error(404, "unknown-flow", self.flows.unknownMessage(route[1]))
                // As a start says it: the library has logged why, once for this version of the file.
                case .failure(.invalid): return .error(500, "flow-invalid", "the flow \(route[1]) has errors; the server log names them")
                case .failure(.unreadable): return .error(500, "flow-unreadable", "the flow \(route[1]) cannot be read; the server log says why")
                }
                return self.assets.playPage(flow: route[1], tour: self.flows.tours.contains(route[1]), for: request)
            }
        default: return .error(404, "not-found", "no such route")
        }
        guard Self.readMethods.contains(request.method) else { return methodNotAllowed(Self.readMethods) }
        return page()
    }

    /// The segments of `path` after its leading "/" (empty segments kept: "/a//b" has three).
    static func segments(_ path: String) -> [String] {
        var out: [String] = []
        out.reserveCapacity(6)
        var path = path
        path.withUTF8 { b in
            var start = 1
            for i in 1...b.count where i == b.count || b[i] == 0x2F {
                out.append(String(decoding: UnsafeBufferPointer(rebasing: b[start..<i]), as: UTF8.self))
                start = i + 1
            }
        }
        return out
    }

    func methodNotAllowed(_ allowed: [String]) -> HTTPResponse {
        let allow = allowed.joined(separator: ", ")
        var r = HTTPResponse.error(405, "method-not-allowed", "this route takes \(allow)")
        r.headers.append(("Allow", allow))
        return r
    }

    /// The client's address, as the per-address limits count it: the peer, or, when the peer is
    /// a trusted proxy, the last address its `X-Forwarded-For` names (the one the proxy itself
    /// saw; earlier ones are the client's word); an IPv6 address as its /64 (see
    /// ``Addresses/limitKey(_:)``).
    func clientAddress(_ request: HTTPRequest) -> String { Addresses.limitKey(namedClient(request)) }

    /// The client's address as given: the peer, or, when the peer is a trusted proxy, the last
    /// address its `X-Forwarded-For` names (one that is no address is not believed).
    func namedClient(_ request: HTTPRequest) -> String {
        guard configuration.trusts(request.peer), let forwarded = request.header(HTTPRequest.Name.forwardedFor) else { return request.peer }
        guard let last = forwarded.split(separator: ",").last else { return request.peer }
        let address = last.trimmingSpaces()
        let plausible =
            (2...45).contains(address.utf8.count)
            && address.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x3A) || ($0 >= 0x41 && $0 <= 0x46) || ($0 >= 0x61 && $0 <= 0x66) || $0 == 0x2E }
        return plausible ? address : request.peer
    }

    /// The 429 of a request whose client address has no request token left (nil: one was
    /// taken). Every API request and every play page costs one, whatever visitor it names.
    func addressRefusal(_ request: HTTPRequest) -> HTTPResponse? {
        let now = clock.now
        let address = clientAddress(request)
        guard !state.withLock({ s in admit(address: address, in: &s, at: now) }) else { return nil }
        var r = HTTPResponse.error(429, "rate-limited", "too many requests from this address; slow down")
        r.headers.append(("Retry-After", "1"))
        return r
    }

    func api(_ request: HTTPRequest, _ route: [String]) -> HTTPResponse {
        // Every API request costs its client address a token first, whatever visitor it names:
        // rotating visitor ids or tokens does not get around this.
        if request.method != "OPTIONS", let refusal = addressRefusal(request) { return refusal }
        // Cross-origin use is for the listed origins only; requests without Origin (servers,
        // scripts) and from the server's own pages pass.
        let cors: String?
        switch originCheck(request) {
        case .refused(let origin): return .error(403, "origin-not-allowed", "pages from \(origin) may not use this server (see --allow-origin)")
        case .sameOrigin: cors = nil
        case .listed(let origin): cors = origin
        }
        let response = dispatch(request, route)
        guard let cors else { return response }
        // Retry-After is not a header a page's script may read across origins unless exposed:
        // the widget waits as long as it says before it tries again.
        return response.adding(headers: [("Access-Control-Allow-Origin", cors), ("Access-Control-Expose-Headers", "Retry-After"), ("Vary", "Origin")])
    }

    func dispatch(_ request: HTTPRequest, _ route: [String]) -> HTTPResponse {
        if request.method == "OPTIONS" {
            // A preflight is answered for the API's routes only: any other path is 404 as it is
            // for every other method.
            guard Self.routes.contains(where: { Self.matches(route, $0.1) }) else { return .error(404, "not-found", "no such route") }
            return HTTPResponse(
                status: 204,
                headers: [
                    ("Access-Control-Allow-Methods", "GET, POST"),
                    ("Access-Control-Allow-Headers", "Content-Type, Rocket-Visitor, Rocket-Visitor-Hash, Rocket-Settled, Authorization, Last-Event-ID"),
                    ("Access-Control-Max-Age", "600"),
                ])
        }
        // The path's shape ("*" is an id or a name, "**" the rest) picks the routes; the method
        // then picks among them (405 with every method the path takes when none is).
        var allowed: [String] = []
        for (method, shape, answer) in Self.routes where Self.matches(route, shape) {
            let methods = Self.methods(method, shape)
            if methods.contains(request.method) { return answer(self)(request, route) }
            allowed += methods
        }
        return allowed.isEmpty ? .error(404, "not-found", "no such route") : methodNotAllowed(allowed)
    }

    typealias Route = (String, [String], @Sendable (ConversationService) -> @Sendable (HTTPRequest, [String]) -> HTTPResponse)

    /// The API's routes (under `/v1`).
    static let routes: [Route] = [
        ("POST", ["visitors"], { s in { r, _ in s.newVisitor(r) } }),
        ("GET", ["visitors", "*"], { s in { r, p in s.visitorRecord(r, visitor: p[1]) } }),
        ("DELETE", ["visitors", "*"], { s in { r, p in s.forgetVisitor(r, visitor: p[1]) } }),
        ("POST", ["conversations"], { s in { r, _ in s.start(r) } }),
        ("GET", ["conversations", "*"], { s in { r, p in s.read(r, id: p[1]) } }),
        ("POST", ["conversations", "*", "intents"], { s in { r, p in s.intent(r, id: p[1]) } }),
        ("GET", ["conversations", "*", "events"], { s in { r, p in s.stream(r, id: p[1]) } }),
        ("POST", ["conversations", "*", "hold"], { s in { r, p in s.hold(r, id: p[1]) } }),
        ("POST", ["events"], { s in { r, _ in s.trigger(r) } }),
        ("POST", ["alerts"], { s in { r, _ in s.createAlert(r) } }),
        ("GET", ["alerts", "*"], { s in { r, p in s.readAlert(r, id: p[1]) } }),
        ("POST", ["alerts", "*", "mutations"], { s in { r, p in s.mutateAlert(r, id: p[1]) } }),
        ("POST", ["alerts", "*", "select"], { s in { r, p in s.selectAlert(r, id: p[1]) } }),
        ("GET", ["alerts", "*", "events"], { s in { r, p in s.alertStream(r, id: p[1]) } }),
        ("GET", ["report"], { s in { r, _ in s.report(r, page: false) } }),
        ("GET", ["results"], { s in { r, _ in s.results(r) } }),
        ("GET", ["flows"], { s in { _, _ in s.flowList() } }),
        ("GET", ["flows", "*", "files", "**"], { s in { r, p in s.file(r, flow: p[1], path: p[3...].joined(separator: "/")) } }),
    ]

    /// The methods a route takes: its own, and HEAD beside GET (libmicrohttpd sends the
    /// headers of the GET answer without its body), except on an event stream, whose answer
    /// takes the connection over and so has no headers-only form.
    static func methods(_ method: String, _ shape: [String]) -> [String] {
        method == "GET" && shape.last != "events" ? readMethods : [method]
    }

    /// What a page or a route that is read takes.
    static let readMethods = ["GET", "HEAD"]

    static func matches(_ path: [String], _ shape: [String]) -> Bool {
        if shape.last == "**" {
            guard path.count >= shape.count else { return false }
        } else {
            guard path.count == shape.count else { return false }
        }
        for (part, want) in zip(path, shape) where want != "*" && want != "**" && part != want { return false }
        return true
    }

    enum OriginCheck: Equatable {
        case sameOrigin, listed(String), refused(String)
    }

    func originCheck(_ request: HTTPRequest) -> OriginCheck {
        guard let origin = request.header(HTTPRequest.Name.origin) else { return .sameOrigin }
        if configuration.publicOrigins.contains(origin) || listenOrigins.withLock({ $0.contains(origin) }) { return .sameOrigin }
        if configuration.allowedOrigins.contains(origin) { return .listed(origin) }
        noteRefused(origin)
        return .refused(origin)
    }

    /// `GET /v1/flows`: the names on offer, and the titles of those that have one (`titles`, by
    /// name), made again only when they change and shared by every answer (anyone may ask, and a
    /// folder may hold thousands of flows).
    func flowList() -> HTTPResponse {
        let listing = flows.catalog()
        let bytes = listAnswer.bytes(for: listing) {
            let titles = listing.compactMap { f in f.title.map { (f.name, JSONValue.string($0)) } }
            return HTTPResponse.json(200, .object([("flows", .array(listing.map { .string($0.name) })), ("titles", .object(titles))])).body
        }
        return .sharing(HTTPResponse.jsonHeaders, bytes)
    }

    /// The flow list last answered.
    let listAnswer = KeptBytes<[FlowListing]>()

    /// Where the next sweep of quiet visitors' statistics goes on from (a scenario name; "" for
    /// the first).
    let visitorSweepCursor = Mutex<String>("")

    /// When a shared store was last asked whether it can be reached (`/readyz`), and its answer.
    let reached = Mutex<(at: Double, reached: Bool)?>(nil)

    /// The origins of the address the server listens on (set when it starts listening).
    let listenOrigins = Mutex<Set<String>>([])
    /// The origin of the address the server listens on, when that is one address (not every
    /// interface's `0.0.0.0` or `::`).
    let listenOrigin = Mutex<String?>(nil)

    /// Where pages load the widget from, as the home page shows it: `--public-url`, else the
    /// address the server listens on when that is one address; nil when neither is known (the
    /// `Host` header is a client's word, so it is never shown back).
    var embedOrigin: String? {
        configuration.publicOrigins.sorted().first ?? listenOrigin.withLock { $0 }
    }
    /// Refused origins already logged (at most 100: the log says each once, and no client can
    /// grow the set without bound).
    let refusedOrigins = Mutex<Set<String>>([])

    /// Records that the server listens on `host` (an IP address) and `port`: pages served from
    /// that address are its own. A loopback address counts as `localhost` too.
    package func listening(host: String, port: Int) {
        var hosts = [host.contains(":") ? "[\(host)]" : host]
        if host == "127.0.0.1" || host == "::1" { hosts += ["localhost", "127.0.0.1", "[::1]"] }
        let origins = Set(hosts.map { "http://\($0):\(port)" })
        listenOrigins.withLock { $0.formUnion(origins) }
        // Every interface ("0.0.0.0", "::", "0:0::0") names no address a page could use.
        let unspecified = host.allSatisfy { $0 == "0" || $0 == "." || $0 == ":" }
        if !unspecified { listenOrigin.withLock { $0 = "http://\(hosts[0]):\(port)" } }
    }

    /// Logs a refused origin once, with the option that would let it in. Only an origin as a
    /// browser writes it (``Addresses/origin(_:)`` gives it back unchanged) is logged: anything
    /// else came from no page, would be no value for `--allow-origin`, and would use up the
    /// hundred origins the log names.
    func noteRefused(_ origin: String) {
        guard Addresses.origin(origin) == origin else { return }
        let first = refusedOrigins.withLock { seen -> Bool in
            guard seen.count < 100, !seen.contains(origin) else { return false }
            seen.insert(origin)
            return true
        }
        guard first else { return }
        let shown = origin.utf8.count <= 200 ? origin : String(origin.prefix(200)) + "…"
        log(
            "rocket serve: refused a page from \(shown); if it may use this server, start it with --allow-origin \(shown) (or --public-url, if it is this server's own address)"
        )
    }

}

extension RocketIntentError {
    /// True for a refusal that changes the conversation (its input error).
    var isInputError: Bool {
        if case .invalidInput = self { return true }
        return false
    }

    /// The API's error code.
    var code: String {
        switch self {
        case .notActive: return "not-active"
        case .noInteractiveBlock: return "not-now"
        case .tapDisabled: return "tap-disabled"
        case .wrongKind: return "wrong-kind"
        case .invalidInput: return "invalid-input"
        case .noCloseButton: return "no-close-button"
        case .noSuchOption: return "no-such-option"
        case .cannotGoBack: return "cannot-go-back"
        }
    }
}

/// What the archive keeps of a conversation: its snapshot and the options it was started with,
/// in our own stored form (docs/SNAPSHOT_FORMAT.md, "The server's stored conversations").
struct StoredConversation {
    var snapshot: ConversationSnapshot
    var options: ConversationOptions
    /// The language of the built-in messages (a `UIStrings.language`).
    var language: String?

    init(snapshot: ConversationSnapshot, options: ConversationOptions, language: String) {
        self.snapshot = snapshot
        self.options = options
        self.language = language
    }

    /// Reads a stored conversation of the flow `flow`: a snapshot in version 2 (or version 1 as
    /// the release before wrote it), or the start of one that has not changed since it started.
    init(jsonText bytes: [UInt8], flow: LoadedFlow) throws(ConversationSnapshot.Failure) {
        try self.init(
            jsonText: bytes, graph: flow.graph, identity: flow.identity, names: flow.blockNames, author: flow.author, closeButton: flow.closeButton)
    }

    /// ``init(jsonText:flow:)`` for a graph of its own (tests).
    init(
        jsonText bytes: [UInt8], graph: RocketGraph, identity: String, names: BlockNames? = nil,
        author: RocketAuthor = RocketAuthor(image: nil, name: "Rocket"), closeButton: RocketCloseButton? = nil
    ) throws(ConversationSnapshot.Failure) {
        do {
            let tape = try JSONTape.parse(bytes, limits: ConversationSnapshot.readLimits)
            let top = try JSONFields(tape, 0, path: "", allowed: ["snapshot", "start", "options", "language"])
            options = try ConversationOptions(try top.object("options", allowed: ConversationOptions.storedKeys))
            language = try top.optionalString("language")
            if top.member("start") != nil {
                guard top.member("snapshot") == nil else { throw JSONShapeError("a stored conversation is a \"snapshot\" or a \"start\", not both") }
                // A start: the conversation is started again, as it was, and is its snapshot then.
                let start = try top.object("start", allowed: ["flow", "at", "from"])
                let flow = try start.string("flow")
                guard flow == identity else { throw ConversationSnapshot.Failure.otherFlow(expected: identity, found: flow) }
                let at = try start.double("at")
                // Wall-clock seconds up to the year 5138: a time's fraction keeps its microseconds.
                guard at.isFinite, at >= 0, at <= 1e11 else {
                    throw ConversationSnapshot.Failure.invalid("\"start.at\" must be a time from 0 to 10¹¹ seconds, not \(at)")
                }
                let names = names ?? BlockNames(graph)
                var root: RocketNodeID?
                if let name = try start.optionalString("from") {
                    guard let node = names.node(named: name), graph.contains(node) else {
                        throw ConversationSnapshot.Failure.invalid("\"start.from\" names no block of the flow: \(name)")
                    }
                    root = node
                }
                guard
                    let started = LoadedFlow.started(graph: graph, author: author, closeButton: closeButton, options: options, from: root, at: at)
                else { throw ConversationSnapshot.Failure.invalid("the flow has no first block") }
                snapshot = ConversationSnapshot(started.conversation, at: at, flow: identity, names: names)
            } else {
                snapshot = try ConversationSnapshot(
                    tape: tape, entry: try top.required("snapshot"), path: "snapshot", graph: graph, identity: identity, names: names)
            }
        } catch let error as JSONSyntaxError {
            throw .invalid(error.message)
        } catch let error as JSONShapeError {
            throw .invalid(error.message)
        } catch let failure as ConversationSnapshot.Failure {
            throw failure
        } catch {
            throw .invalid("\(error)")
        }
    }

    /// A start's stored form around its time, the one thing in it that differs between starts
    /// of a flow with the same options: the bytes before the time and after it.
    typealias StartForm = (head: [UInt8], tail: [UInt8])

    /// The stored form of a conversation that has not changed since it started (docs/
    /// SNAPSHOT_FORMAT.md, "The server's stored conversations"): the flow's identity, when it
    /// started and from which block, its options and language; a load starts it again. Less than
    /// half of its snapshot's bytes, and cheaper to make. This is that form for starts of flow
    /// `identity` from `root` with `options` in `language`, but for their time
    /// (``startText(_:at:)`` writes it in).
    static func startForm(flow identity: String, from root: String?, options: ConversationOptions, language: String) -> StartForm {
        var w = JSONBytes(capacity: 320)
        w.open()
        w.key("start", first: true)
        w.open()
        w.key("flow", first: true)
        w.string(identity)
        w.key("at")
        let head = w.out
        w.out = []
        if let root {
            w.key("from")
            w.string(root)
        }
        w.close()
        w.key("options")
        options.write(into: &w)
        w.key("language")
        w.string(language)
        w.close()
        return (head, w.out)
    }

    /// The stored form of a start made at `at`.
    static func startText(_ form: StartForm, at: Double) -> String {
        var w = JSONBytes(capacity: form.head.count + form.tail.count + 24)
        w.raw(form.head)
        w.number(at)
        w.raw(form.tail)
        return String(decoding: w.out, as: UTF8.self)
    }

    /// The JSON text.
    func jsonText() -> String {
        var w = JSONBytes(capacity: 1024)
        w.open()
        w.key("snapshot", first: true)
        w.raw(snapshot.jsonBytes())
        w.key("options")
        options.write(into: &w)
        if let language {
            w.key("language")
            w.string(language)
        }
        w.close()
        return String(decoding: w.out, as: UTF8.self)
    }
}
