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
        let strings: UIStrings

        init(visitor: String, address: String, flow: LoadedFlow, options: ConversationOptions, strings: UIStrings) {
            self.visitor = visitor
            self.address = address
            self.flow = flow
            self.options = options
            self.strings = strings
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

        init(
            visitor: String, address: String, flow: LoadedFlow, options: ConversationOptions, conversation: Conversation, touched: Double,
            step: Int = 0, version: Int = 0, eventSeq: Int = 0, strings: UIStrings
        ) {
            context = Context(visitor: visitor, address: address, flow: flow, options: options, strings: strings)
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
    }
    /// One conversation: what never changes about it, and its state behind a lock of its own.
    /// The engine's steps (pattern matches among them) and the view cache's serialization run
    /// under this lock only, so a slow conversation holds up nobody else. Lock order: a slot's
    /// lock, then the service's `state` (never the other way round).
    final class Slot: Sendable {
        let context: Context
        let entry: Mutex<Entry>

        init(_ entry: Entry) {
            context = entry.context
            self.entry = Mutex(entry)
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
        var slots: [String: Slot] = [:]
        /// When each conversation was last used (idle ones expire).
        var used: [String: Double] = [:]
        /// The next timer of each conversation that has one: what the ticker looks at, so a tick
        /// costs the conversations with timers, not all of them.
        var deadlines: [String: Double] = [:]
        var alerts: [String: AlertEntry] = [:]
        var buckets: [String: Bucket] = [:]
        /// Live conversations and alerts per client address.
        var live: [String: Int] = [:]
        var liveAlerts: [String: Int] = [:]
        var lastSweep: Double = -.infinity
        /// True when changes are saved (the service has an archive).
        var persistent = false
        /// Conversations changed since the last save, with their new event records: the next
        /// flush writes each one's latest snapshot and these records.
        var unsaved: [String: [Pending.Event]] = [:]
        /// The number of the last change (of any conversation) to be saved…
        var changeSeq: UInt64 = 0
        /// …and of each conversation's newest unsaved change: an answer about it is sent once
        /// the store holds that change.
        var unsavedSeq: [String: UInt64] = [:]

        /// The visitor of conversation `id` in memory.
        func owner(of id: String) -> String? { slots[id]?.context.visitor }

        /// Adds conversation `slot` as `id`; it counts against its address.
        mutating func insert(_ id: String, _ slot: Slot, entry e: Entry) {
            slots[id] = slot
            live[slot.context.address, default: 0] += 1
            used[id] = e.touched
            deadlines[id] = e.conversation.nextDeadline
        }

        /// Records that conversation `id` (still `slot`: false when it expired meanwhile) was
        /// used and is next due as `e` says; with change `p`, marks it for the next save and
        /// returns the change's number (0 when nothing is saved). Called with the slot's lock
        /// held, so a conversation's changes are numbered in the order they were made.
        mutating func record(_ id: String, _ slot: Slot, _ e: Entry, changed p: Pending?) -> UInt64? {
            guard slots[id] === slot else { return nil }
            used[id] = e.touched
            deadlines[id] = e.conversation.nextDeadline
            guard let p, persistent else { return 0 }
            unsaved[id, default: []] += p.events
            changeSeq += 1
            unsavedSeq[id] = changeSeq
            return changeSeq
        }

        /// The change of conversation `id` an answer about it waits for (0: none unsaved).
        func awaited(_ id: String) -> UInt64 { unsavedSeq[id] ?? 0 }
    }
    /// A change to publish: the conversation, its version, the view, and new event records.
    package struct Change: Sendable {
        package var id: String
        package var version: Int
        /// The view, JSON bytes.
        package var view: [UInt8]
        /// The change's recorded events (``RocketEvent/isRecorded``), in order.
        package var events: [RocketEvent]
        /// The conversation's next timer after the change (nil: none).
        package var deadline: Double? = nil
        /// The stream frames for this change (`event: events`, then `event: state`).
        package var frames: [UInt8] {
            var out: [UInt8] = []
            if !events.isEmpty {
                var w = JSONBytes(capacity: events.count * 96)
                w.openArray()
                for (k, e) in events.enumerated() {
                    if k > 0 { w.comma() }
                    e.writeRecord(into: &w)
                }
                w.closeArray()
                out += Array("event: events\ndata: ".utf8) + w.out + [0x0A, 0x0A]
            }
            out += Array("id: \(version)\nevent: state\ndata: ".utf8) + view + [0x0A, 0x0A]
            return out
        }
    }

    let state = Mutex(State())
    private let savedThrough = Atomic<UInt64>(0)
    private let flushing = Mutex(())
    private let storeFailing = Atomic<Bool>(false)
    /// Who is told of changes (a class box: a closure kept in a generic `Mutex` is re-wrapped in
    /// a reabstraction thunk at every read, which cost half the server's time).
    final class Listener: Sendable {
        let body: @Sendable (Change) -> Void
        init(_ body: @escaping @Sendable (Change) -> Void) { self.body = body }
    }
    let listener = Mutex<Listener?>(nil)
    /// The flows on offer.
    package let flows: FlowLibrary
    /// Where conversations are kept (nil: in memory only).
    package let archive: ConversationArchive?
    private let scenarios: (any ScenarioStore)?
    let clock: any RocketClock
    /// The limits.
    package let configuration: ServerConfiguration
    let log: @Sendable (String) -> Void
    private let assets: WebAssets
    /// Who may call what (keys, visitor tokens, identified visitors).
    package let access: AccessControl

    /// A service over `flows`, keeping conversations in `archive` and deciding scenarios in
    /// `scenarios` (nil: no persistence / every flow shown), on `clock`, letting callers in as
    /// `access` says. `log` receives one line per problem the operator should see.
    package init(
        flows: FlowLibrary, archive: ConversationArchive?, scenarios: (any ScenarioStore)?, clock: any RocketClock,
        configuration: ServerConfiguration = ServerConfiguration(), access: AccessControl = .random(),
        log: @escaping @Sendable (String) -> Void = { _ in }
    ) {
        self.access = access
        self.flows = flows
        self.archive = archive
        self.scenarios = scenarios
        self.clock = clock
        self.configuration = configuration
        self.log = log
        self.assets = WebAssets()
        state.withLock { $0.persistent = archive != nil }
    }

    /// Sets the function told of every change (called outside any lock, in change order per
    /// conversation).
    package func onChange(_ body: @escaping @Sendable (Change) -> Void) {
        let box = Listener(body)
        listener.withLock { $0 = box }
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
        case 1 where route[0] == "": page = { self.assets.index(flows: self.flows.names()) }
        case 1 where route[0] == "widget.js": page = { self.assets.widget(for: request) }
        case 1 where route[0] == "favicon.ico": page = { HTTPResponse(status: 204, headers: [("Cache-Control", "max-age=86400")]) }
        // For a load balancer: the process answers; the store can be written.
        case 1 where route[0] == "healthz": page = { .json(200, .object([("status", .string("ok"))])) }
        case 1 where route[0] == "readyz":
            page = {
                self.isFailing
                    ? .json(503, .object([("status", .string("store-unavailable"))])) : .json(200, .object([("status", .string("ready"))]))
            }
        case 2 where route[0] == "play":
            page = {
                guard case .success = self.flows.flow(route[1]) else { return .error(404, "unknown-flow", "there is no flow called \(route[1])") }
                return self.assets.playPage(flow: route[1], tour: self.flows.tours.contains(route[1]))
            }
        default: return .error(404, "not-found", "no such route")
        }
        guard request.method == "GET" || request.method == "HEAD" else { return methodNotAllowed("GET") }
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

    func methodNotAllowed(_ allow: String) -> HTTPResponse {
        var r = HTTPResponse.error(405, "method-not-allowed", "this route takes \(allow)")
        r.headers.append(("Allow", allow))
        return r
    }

    /// The client's address: the peer, or, when the peer is a trusted proxy, the last address
    /// its `X-Forwarded-For` names (the one the proxy itself saw; earlier ones are the client's
    /// word).
    func clientAddress(_ request: HTTPRequest) -> String {
        guard configuration.trustedProxies.contains(request.peer), let forwarded = request.header("x-forwarded-for") else { return request.peer }
        guard let last = forwarded.split(separator: ",").last else { return request.peer }
        let address = last.filter { $0 != " " && $0 != "\t" }
        let plausible =
            (2...45).contains(address.utf8.count)
            && address.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x3A) || ($0 >= 0x41 && $0 <= 0x46) || ($0 >= 0x61 && $0 <= 0x66) || $0 == 0x2E }
        return plausible ? String(address) : request.peer
    }

    private func api(_ request: HTTPRequest, _ route: [String]) -> HTTPResponse {
        // Every API request costs its client address a token first, whatever visitor it names:
        // rotating visitor ids or tokens does not get around this.
        if request.method != "OPTIONS" {
            let now = clock.now
            let key = "a:" + clientAddress(request)
            let c = configuration
            let admitted = state.withLock { s in admit(key, in: &s, at: now, rate: c.addressRequestsPerSecond, burst: c.addressRequestBurst) }
            if !admitted {
                var r = HTTPResponse.error(429, "rate-limited", "too many requests from this address; slow down")
                r.headers.append(("Retry-After", "1"))
                return r
            }
        }
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
        return response.adding(headers: [("Access-Control-Allow-Origin", cors), ("Vary", "Origin")])
    }

    private func dispatch(_ request: HTTPRequest, _ route: [String]) -> HTTPResponse {
        if request.method == "OPTIONS" {
            // A preflight is answered for the API's routes only: any other path is 404 as it is
            // for every other method.
            guard Self.routes.contains(where: { Self.matches(route, $0.1) }) else { return .error(404, "not-found", "no such route") }
            return HTTPResponse(
                status: 204,
                headers: [
                    ("Access-Control-Allow-Methods", "GET, POST"),
                    ("Access-Control-Allow-Headers", "Content-Type, Rocket-Visitor, Rocket-Visitor-Hash, Authorization, Last-Event-ID"),
                    ("Access-Control-Max-Age", "600"),
                ])
        }
        // The path's shape ("*" is an id or a name, "**" the rest) picks the route; the method
        // must then be the route's own.
        for (method, shape, answer) in Self.routes where Self.matches(route, shape) {
            guard request.method == method else { return methodNotAllowed(method) }
            return answer(self)(request, route)
        }
        return .error(404, "not-found", "no such route")
    }

    private typealias Route = (String, [String], @Sendable (ConversationService) -> @Sendable (HTTPRequest, [String]) -> HTTPResponse)

    /// The API's routes (under `/v1`).
    private static let routes: [Route] = [
        ("POST", ["visitors"], { s in { r, _ in s.newVisitor(r) } }),
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
        ("GET", ["flows"], { s in { _, _ in .json(200, .object([("flows", .array(s.flows.names().map { .string($0) }))])) } }),
        ("GET", ["flows", "*", "files", "**"], { s in { _, p in s.file(flow: p[1], path: p[3...].joined(separator: "/")) } }),
    ]

    private static func matches(_ path: [String], _ shape: [String]) -> Bool {
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
        guard let origin = request.header("origin") else { return .sameOrigin }
        if configuration.publicOrigins.contains(origin) || listenOrigins.withLock({ $0.contains(origin) }) { return .sameOrigin }
        if configuration.allowedOrigins.contains(origin) { return .listed(origin) }
        noteRefused(origin)
        return .refused(origin)
    }

    /// The origins of the address the server listens on (set when it starts listening).
    let listenOrigins = Mutex<Set<String>>([])
    /// Refused origins already logged (at most 100: the log says each once, and no client can
    /// grow the set without bound).
    private let refusedOrigins = Mutex<Set<String>>([])

    /// Records that the server listens on `host` (an IP address) and `port`: pages served from
    /// that address are its own. A loopback address counts as `localhost` too.
    package func listening(host: String, port: Int) {
        var hosts = [host.contains(":") ? "[\(host)]" : host]
        if host == "127.0.0.1" || host == "::1" { hosts += ["localhost", "127.0.0.1", "[::1]"] }
        let origins = Set(hosts.map { "http://\($0):\(port)" })
        listenOrigins.withLock { $0.formUnion(origins) }
    }

    /// Logs a refused origin once, with the option that would let it in.
    private func noteRefused(_ origin: String) {
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

    // MARK: Requests

    /// The JSON object of a request body with fields among `allowed`, or the error response.
    func body(_ request: HTTPRequest, allowed: [String]) -> Result<RequestBody, ResponseError> {
        RequestBody.read(request, allowed: allowed, maxBytes: configuration.maxBodyBytes)
    }

    /// True for visitor ids: 1–128 ASCII letters, digits and `-_.:`.
    package static func isVisitor(_ s: String) -> Bool {
        guard (1...128).contains(s.utf8.count) else { return false }
        return s.utf8.allSatisfy { b in
            (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || b == 0x2D || b == 0x5F || b == 0x2E || b == 0x3A
        }
    }

    /// The caller of a route that concerns one visitor's things: a site (any visitor's) or a
    /// visitor (its own); a call without credentials is 401.
    func visitorOrSite(_ request: HTTPRequest) -> Result<Caller, ResponseError> {
        switch access.caller(of: request) {
        case .failure(let e): return .failure(e)
        case .success(.nobody):
            return .failure(
                ResponseError(.error(401, "visitor-missing", "send a visitor token in Rocket-Visitor (POST /v1/visitors gives one) or a site key")))
        case .success(let c): return .success(c)
        }
    }

    /// The visitor a call that makes something acts for: a visitor for itself (a `visitor`
    /// field, when given, must name it), a site for the visitor the field names.
    func actingVisitor(_ caller: Caller, named field: Result<String?, ResponseError>) -> Result<String, ResponseError> {
        let named: String?
        switch field {
        case .failure(let e): return .failure(e)
        case .success(let n): named = n
        }
        if let named, !Self.isVisitor(named) {
            return .failure(ResponseError(.error(400, "bad-visitor", "a visitor id is 1–128 letters, digits, '-', '_', '.' or ':'")))
        }
        switch caller {
        case .visitor(let v):
            if let named, named != v { return .failure(ResponseError(.error(403, "not-this-visitor", "a visitor may act only as itself"))) }
            return .success(v)
        case .site, .nobody:
            guard let named else { return .failure(ResponseError(.error(400, "visitor-missing", "a site names the visitor in \"visitor\""))) }
            return .success(named)
        }
    }

    /// Nil when `request` comes from a site (or the server is in `--insecure-dev`); else the
    /// refusal: 401 without credentials, 403 for a visitor.
    func requireSite(_ request: HTTPRequest) -> ResponseError? {
        let caller: Caller
        switch access.caller(of: request) {
        case .failure(let e): return e
        case .success(let c): caller = c
        }
        if caller == .site || access.insecureDev { return nil }
        var r = HTTPResponse.error(
            caller == .nobody ? 401 : 403, "key-required", "this route is for a site's back end: send Authorization: Bearer KEY (see --api-key-file)")
        if caller == .nobody { r.headers.append(("WWW-Authenticate", "Bearer")) }
        return ResponseError(r)
    }

    /// `POST /v1/visitors`: a new anonymous visitor and its token (nothing is stored).
    private func newVisitor(_ request: HTTPRequest) -> HTTPResponse {
        if !request.body.isEmpty, case .failure(let e) = body(request, allowed: []) { return e.response }
        let (visitor, token) = access.issueVisitor()
        return .json(201, .object([("visitor", .string(visitor)), ("token", .string(token))]))
    }

    /// Takes a token from the visitor's bucket; false when it is empty.
    func admit(_ visitor: String, in s: inout State, at now: Double) -> Bool {
        admit("v:" + visitor, in: &s, at: now, rate: configuration.requestsPerSecond, burst: configuration.requestBurst)
    }

    /// Takes a token from bucket `key`, which refills at `rate` per second up to `burst`.
    func admit(_ key: String, in s: inout State, at now: Double, rate: Double, burst: Double) -> Bool {
        var b = s.buckets[key] ?? Bucket(tokens: burst, at: now)
        let elapsed = max(0, now - b.at)
        b.tokens = min(burst, b.tokens + elapsed * rate)
        b.at = now
        guard b.tokens >= 1 else {
            s.buckets[key] = b
            return false
        }
        b.tokens -= 1
        s.buckets[key] = b
        return true
    }

    /// The 429 of an address that holds its share of something.
    func quotaFull(_ what: String) -> HTTPResponse {
        var r = HTTPResponse.error(429, "too-many-for-address", "this address holds its maximum of \(what); finish or wait for some to expire")
        r.headers.append(("Retry-After", "60"))
        return r
    }

    /// Takes one of the visitor's tokens; the 429 when none is left.
    func admit(_ visitor: String) -> HTTPResponse? {
        let now = clock.now
        return state.withLock { s in admit(visitor, in: &s, at: now) } ? nil : tooMany()
    }

    func tooMany() -> HTTPResponse {
        var r = HTTPResponse.error(429, "rate-limited", "too many requests from this visitor; slow down")
        r.headers.append(("Retry-After", "1"))
        return r
    }

    static func newID() -> String {
        var g = SystemRandomNumberGenerator()
        let hex = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        for _ in 0..<2 {
            let v = g.next() as UInt64
            for shift in stride(from: 60, through: 0, by: -4) { out.append(hex[Int((v >> UInt64(shift)) & 15)]) }
        }
        return String(decoding: out, as: UTF8.self)
    }

    // MARK: Start

    private func start(_ request: HTTPRequest) -> HTTPResponse {
        if let refusal = storeRefusal() { return refusal }
        let fields: RequestBody
        switch body(request, allowed: ["flow", "visitor", "vars", "reducedMotion", "lang"]) {
        case .failure(let e): return e.response
        case .success(let f): fields = f
        }
        // A first visit brings no credentials and names no visitor: it starts as a new anonymous
        // visitor, whose token comes with the answer (one round trip, not two).
        var issued: (visitor: String, token: String)? = nil
        let credentialless = ["authorization", "rocket-visitor", "rocket-visitor-hash"].allSatisfy { request.header($0) == nil }
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
        let vars: [String: String]
        switch fields.stringMap("vars", maxCount: 64, maxName: 64, maxValue: 1024) {
        case .failure(let e): return e.response
        case .success(let v): vars = v
        }
        let reduced: Bool
        switch fields.bool("reducedMotion") {
        case .failure(let e): return e.response
        case .success(let b): reduced = b ?? false
        }
        var strings = UIStrings.english
        switch fields.string("lang", maxBytes: 35) {
        case .failure(let e): return e.response
        case .success(let l): if let l { strings = UIStrings.forEnvironment(["LANG": l]) }
        }
        let flow: LoadedFlow
        switch flows.flow(flowName) {
        case .success(let f): flow = f
        case .failure(.unknown): return .error(404, "unknown-flow", "there is no flow called \(flowName)")
        case .failure(.invalid(let lines)):
            for line in lines { log("rocket serve: flow \(flowName): \(line)") }
            return .error(500, "flow-invalid", "the flow \(flowName) has errors; the server log names them")
        case .failure(.unreadable(let why)):
            log("rocket serve: \(why)")
            return .error(500, "flow-unreadable", "the flow \(flowName) cannot be read; the server log says why")
        }
        let now = clock.now
        let admitted = state.withLock { s in admit(visitor, in: &s, at: now) }
        guard admitted else { return tooMany() }
        sweepIfDue(now)
        let address = clientAddress(request)
        let held = state.withLock { $0.live[address] ?? 0 }
        guard held < configuration.perAddress else { return quotaFull("conversations") }
        guard count < configuration.maxConversations else {
            var r = HTTPResponse.error(503, "too-many-conversations", "the server holds its maximum of conversations; try again later")
            r.headers.append(("Retry-After", "60"))
            return r
        }
        let (language, newVisitor) = (strings, issued)
        let begin: @Sendable () -> HTTPResponse = {
            self.begin(
                flow: flow, flowName: flowName, visitor: visitor, address: address, vars: vars, reduced: reduced, strings: language,
                issued: newVisitor)
        }
        // A gated flow asks the scenario store first: on the database thread.
        return flow.document.scenario != nil && scenarios != nil ? .deferred(begin) : begin()
    }

    /// The rest of a start, once the request is read: the scenario gate (it reads and writes the
    /// scenario store), then the conversation.
    private func begin(
        flow: LoadedFlow, flowName: String, visitor: String, address: String, vars: [String: String], reduced: Bool, strings: UIStrings,
        issued: (visitor: String, token: String)?
    ) -> HTTPResponse {
        let now = clock.now
        // The scenario gate, per visitor: the flow's scenario counted under "NAME@VISITOR".
        if let scenario = flow.document.scenario, let store = scenarios {
            var rules = flow.document.when ?? ScenarioRules()
            if let other = rules.eventsOf { rules.eventsOf = other + "@" + visitor }
            do throws(ScenarioStoreError) {
                let decision = try NamedScenario(scenario + "@" + visitor, rules: rules).decide(in: store, at: now)
                if !decision.allowed {
                    var o: [(String, JSONValue)] = [
                        ("status", .string("notNow")), ("flow", .string(flowName)), ("explanation", .array(decision.explanation.map { .string($0) })),
                    ]
                    if let t = decision.earliestTime { o.append(("earliest", .string(WallTime.format(t.rounded(.up))))) }
                    return .json(200, .object(o))
                }
            } catch {
                log("rocket serve: scenario store: \(error.message)")
                return .error(503, "store-unavailable", "the scenario store cannot be used now")
            }
        }
        let timing = reduced ? RocketTiming.reducedMotion : configuration.timing
        let options = ConversationOptions(timing: timing, echoReplies: true, initialAnswers: vars)
        guard var conversation = flow.conversation(options: options) else {
            return .error(500, "flow-invalid", "the flow \(flowName) has no first block")
        }
        var effects = conversation.start(at: now)
        // With no intro (reduced motion), the first block is due at once: it goes in this answer.
        if let due = conversation.nextDeadline, due <= now { effects += conversation.advance(to: now) }
        let id = Self.newID()
        var entry = Entry(
            visitor: visitor, address: address, flow: flow, options: options, conversation: conversation, touched: now, strings: strings)
        let pending = commit(id: id, entry: &entry, effects: effects, at: now)
        let slot = Slot(entry)
        let stored = state.withLock { s -> UInt64? in
            // The quota holds however many starts of one address race past the check above.
            guard s.live[address, default: 0] < configuration.perAddress else { return nil }
            s.insert(id, slot, entry: entry)
            return s.record(id, slot, entry, changed: pending)
        }
        guard let seq = stored else { return quotaFull("conversations") }
        let change = pending.change(self)
        publish(change)
        var head: [(String, JSONValue)] = [("status", .string("started"))]
        if let issued { head += [("visitor", .string(issued.visitor)), ("token", .string(issued.token))] }
        var answer = HTTPResponse.wrapping(201, head, "conversation", change.view)
        answer.durableAfter = seq
        return answer
    }

    // MARK: Scenario events

    private func trigger(_ request: HTTPRequest) -> HTTPResponse {
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
        id.utf8.count == 32 && id.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x66) }
    }

    /// The 404 for a conversation that is unknown, or not this visitor's.
    private func unknownConversation(_ id: String) -> ResponseError {
        ResponseError(.error(404, "unknown-conversation", "there is no conversation \(id.count <= 64 ? id : String(id.prefix(64)) + "…") for this visitor"))
    }

    /// Loads conversation `id` of `visitor` from the archive when it is not in memory (the
    /// caller has looked there); unknown when there is none or it belongs to someone else: the
    /// same answer, so ids cannot be probed.
    private func locate(_ id: String, visitor: String?, address: String) -> Result<Void, ResponseError> {
        let unknown = unknownConversation(id)
        guard Self.isConversationID(id), let archive else { return .failure(unknown) }
        let row: ConversationArchive.Row?
        do {
            row = try archive.load(id)
        } catch {
            log("rocket serve: conversation store: \(error.message)")
            return .failure(ResponseError(.error(503, "store-unavailable", "the conversation store cannot be read now")))
        }
        guard let row, visitor == nil || row.visitor == visitor else { return .failure(unknown) }
        let now = clock.now
        guard row.touched >= now - configuration.idleTimeout else { return .failure(unknown) }
        let flow: LoadedFlow
        switch flows.flow(row.flow) {
        case .success(let f): flow = f
        case .failure: return .failure(ResponseError(.error(410, "flow-gone", "the flow of this conversation is no longer served")))
        }
        let restored: Conversation
        let options: ConversationOptions
        var strings = UIStrings.english
        do {
            let stored = try StoredConversation(jsonText: Array(row.snapshot.utf8), flow: flow)
            options = stored.options
            if let lang = stored.language { strings = UIStrings.forEnvironment(["LANG": lang]) }
            restored = try stored.snapshot.restore(
                graph: flow.graph, author: flow.author, closeButton: flow.closeButton, options: options, at: now, flow: flow.identity)
        } catch {
            return .failure(ResponseError(.error(409, "flow-changed", "the flow changed since this conversation started; start a new one")))
        }
        let entry = Entry(
            visitor: row.visitor, address: address, flow: flow, options: options, conversation: restored, touched: now, step: row.step, version: row.version,
            eventSeq: row.eventSeq, strings: strings)
        let slot = Slot(entry)
        state.withLock { s in
            if s.slots[id] == nil { s.insert(id, slot, entry: entry) }
        }
        return .success(())
    }

    func view(_ id: String, _ e: Entry) -> [UInt8] {
        ConversationView.bytes(
            id: id, flow: e.flow, conversation: e.conversation, step: e.step, version: e.version, strings: e.strings, cache: e.cache)
    }

    /// The visitor of a request about conversation `id`, charged a token and checked against
    /// the conversation's owner (loading it from the archive when needed).
    /// Where a request about a conversation stands: refused, ready (the conversation is in
    /// memory and the caller's), or to be loaded from the archive first (on the database thread).
    enum Entered {
        case refused(ResponseError)
        case ready
        case load(visitor: String?)
    }

    /// The caller of a request about conversation `id`, charged a token and checked against the
    /// conversation's owner; `loaded`: the archive was read already (no second charge, no
    /// second read).
    private func enter(_ request: HTTPRequest, id: String, loaded: Bool = false) -> Entered {
        switch enterChecked(request, id: id, loaded: loaded) {
        case .failure(let e): return .refused(e)
        case .success(let needsLoad): return needsLoad
        }
    }

    /// Runs `route` again once conversation `id` is loaded from the archive, on the database
    /// thread (the answer is made there too).
    private func afterLoading(
        _ request: HTTPRequest, id: String, visitor: String?, _ route: @escaping @Sendable () -> HTTPResponse
    ) -> HTTPResponse {
        let address = clientAddress(request)
        return .deferred {
            if case .failure(let e) = self.locate(id, visitor: visitor, address: address) { return e.response }
            return route().resolved()
        }
    }

    private func enterChecked(_ request: HTTPRequest, id: String, loaded: Bool) -> Result<Entered, ResponseError> {
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
        let found: (admitted: Bool, owner: String?) = state.withLock { s in
            if !loaded, let visitor, !admit(visitor, in: &s, at: now) { return (false, nil) }
            return (true, known ? s.owner(of: id) : nil)
        }
        guard found.admitted else { return .failure(ResponseError(tooMany())) }
        if let owner = found.owner {
            return visitor == nil || owner == visitor ? .success(.ready) : .failure(unknownConversation(id))
        }
        // Not in memory: unknown, or in the archive (read on the database thread).
        guard !loaded, known, archive != nil else { return .failure(unknownConversation(id)) }
        return .success(.load(visitor: visitor))
    }

    /// A copy of conversation `id`, marked as used now (its view is built from the copy, after
    /// the lock is released).
    private func touch(_ id: String) -> Entry? {
        let now = clock.now
        guard let slot = state.withLock({ $0.slots[id] }) else { return nil }
        return slot.entry.withLock { e in
            e.touched = now
            _ = state.withLock { s in s.record(id, slot, e, changed: nil) }
            return e
        }
    }

    private func read(_ request: HTTPRequest, id: String, loaded: Bool = false) -> HTTPResponse {
        switch enter(request, id: id, loaded: loaded) {
        case .refused(let e): return e.response
        case .load(let visitor): return afterLoading(request, id: id, visitor: visitor) { self.read(request, id: id, loaded: true) }
        case .ready: break
        }
        guard let e = touch(id) else { return .error(404, "unknown-conversation", "there is no conversation \(id) for this visitor") }
        return .wrapping(200, [], "conversation", view(id, e))
    }

    private func stream(_ request: HTTPRequest, id: String, loaded: Bool = false) -> HTTPResponse {
        switch enter(request, id: id, loaded: loaded) {
        case .refused(let e): return e.response
        case .load(let visitor): return afterLoading(request, id: id, visitor: visitor) { self.stream(request, id: id, loaded: true) }
        case .ready: break
        }
        guard let e = touch(id) else { return .error(404, "unknown-conversation", "there is no conversation \(id) for this visitor") }
        return .eventStream(id, first: Change(id: id, version: e.version, view: view(id, e), events: []).frames)
    }

    /// The current frames of conversation `id` (a stream that just opened sends them again, so a
    /// change between the first answer and the stream's registration is never missed).
    package func currentFrames(_ id: String) -> [UInt8]? {
        let (slot, alert) = state.withLock { s in (s.slots[id], s.alerts[id]) }
        if let e = slot?.entry.withLock({ $0 }) { return Change(id: id, version: e.version, view: view(id, e), events: []).frames }
        return alert.map { Change(id: id, version: $0.version, view: $0.view(id: id).serializedBytes(), events: []).frames }
    }

    // MARK: Files

    /// `GET /v1/flows/NAME/files/PATH`: a picture beside the flow file (PNG, JPEG, GIF or WebP,
    /// at most 8 MiB), never anything outside the flow folder.
    private func file(flow name: String, path: String) -> HTTPResponse {
        let missing = HTTPResponse.error(404, "not-found", "no such file")
        guard case .success = flows.flow(name), let dir = flows.directory, let rel = FilePath.relative(path) else { return missing }
        guard case .success(let bytes) = FileIO.read(inside: dir, rel, limit: RocketLimits.servedPictureBytes) else { return missing }
        let type: String
        if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]) {
            type = "image/png"
        } else if bytes.starts(with: [0xFF, 0xD8, 0xFF]) {
            type = "image/jpeg"
        } else if bytes.starts(with: Array("GIF8".utf8)) {
            type = "image/gif"
        } else if bytes.count >= 12, bytes.starts(with: Array("RIFF".utf8)), Array(bytes[8..<12]) == Array("WEBP".utf8) {
            type = "image/webp"
        } else {
            return missing
        }
        return HTTPResponse(
            status: 200, headers: [("Content-Type", type), ("Cache-Control", "max-age=300")], body: bytes)
    }

    // MARK: Intents

    private func intent(_ request: HTTPRequest, id: String, loaded: Bool = false) -> HTTPResponse {
        let fields: RequestBody
        switch body(request, allowed: ["intent", "text", "option", "step"]) {
        case .failure(let e): return e.response
        case .success(let f): fields = f
        }
        guard case .success(let word) = fields.required("intent", maxBytes: 32), let name = RocketIntent.Name(rawValue: word) else {
            let names = RocketIntent.Name.allCases.map(\.rawValue).joined(separator: ", ")
            return .error(400, "bad-field", "\"intent\" must be one of \(names)")
        }
        let intent: RocketIntent
        switch name {
        case .tap: intent = .tap
        case .pressButton: intent = .pressButton
        case .pressLeft: intent = .pressLeft
        case .pressRight: intent = .pressRight
        case .close: intent = .close
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
        }
        if name != .submit, fields.has("text") { return .error(400, "bad-field", "\"text\" goes with \"submit\" only") }
        if name != .choose, fields.has("option") { return .error(400, "bad-field", "\"option\" goes with \"choose\" only") }
        let step: Int?
        switch fields.integer("step", range: 0...Int(Int32.max)) {
        case .failure(let e): return e.response
        case .success(let s): step = s
        }
        switch enter(request, id: id, loaded: loaded) {
        case .refused(let e): return e.response
        case .load(let visitor): return afterLoading(request, id: id, visitor: visitor) { self.intent(request, id: id, loaded: true) }
        case .ready: break
        }
        let now = clock.now
        if let refusal = storeRefusal() { return refusal }
        enum Outcome {
            case response(HTTPResponse)
            case stale(Entry, asked: Int, UInt64)
            case refused(RocketIntentError, Pending, UIStrings, UInt64)
            case replayed(Entry, UInt64)
            case changed(Pending, UInt64)
        }
        // Every answer waits for the conversation's newest change to be saved (the seq), so a
        // retry of an intent whose first answer was lost is not acknowledged before it is safe.
        guard let slot = state.withLock({ $0.slots[id] }) else {
            return .error(404, "unknown-conversation", "there is no conversation \(id) for this visitor")
        }
        let gone = Outcome.response(.error(404, "unknown-conversation", "there is no conversation \(id) for this visitor"))
        // The engine's step (a validation pattern among it) under this conversation's lock only.
        let outcome: Outcome = slot.entry.withLock { e in
            e.touched = now
            // A replay of the last accepted intent (same step, same intent) is answered with the
            // state and changes nothing; any other stale step is a conflict.
            if let step, let last = e.lastIntent, step == last.step, intent == last.intent {
                let copy = e
                return state.withLock { s in s.record(id, slot, copy, changed: nil) == nil ? gone : .replayed(copy, s.awaited(id)) }
            }
            if let step, step != e.step {
                let copy = e
                return state.withLock { s in s.record(id, slot, copy, changed: nil) == nil ? gone : .stale(copy, asked: step, s.awaited(id)) }
            }
            let effects: [ConversationEffect]
            do throws(RocketIntentError) {
                effects = try e.conversation.send(intent, at: now)
            } catch {
                let pending = commit(id: id, entry: &e, effects: [], at: now, bump: error.isInputError)
                // A refused input is a change (the input error shows); other refusals are not.
                let copy = e
                return state.withLock { s in
                    s.record(id, slot, copy, changed: error.isInputError ? pending : nil) == nil
                        ? gone : .refused(error, pending, copy.strings, s.awaited(id))
                }
            }
            e.lastIntent = (e.step, intent)
            e.step += 1
            // What is due at once (a bounce of 0 s under reduced motion) goes in this answer.
            var all = effects
            if let due = e.conversation.nextDeadline, due <= now { all += e.conversation.advance(to: now) }
            let pending = commit(id: id, entry: &e, effects: all, at: now)
            let copy = e
            return state.withLock { s in s.record(id, slot, copy, changed: pending).map { .changed(pending, $0) } ?? gone }
        }
        var answer: HTTPResponse
        switch outcome {
        case .response(let r): return r
        case .stale(let e, let asked, let seq):
            answer = .errorWrapping(409, "stale-step", "the conversation is at step \(e.step), not \(asked)", "conversation", view(id, e))
            answer.durableAfter = seq
        case .refused(let error, let pending, let strings, let seq):
            let change = pending.change(self)
            if error.isInputError { publish(change) }
            answer = HTTPResponse.errorWrapping(422, error.code, message(error, strings), "conversation", change.view)
            answer.durableAfter = seq
        case .replayed(let e, let seq):
            answer = HTTPResponse.wrapping(200, [], "conversation", view(id, e))
            answer.durableAfter = seq
        case .changed(let pending, let seq):
            let change = pending.change(self)
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
    private func hold(_ request: HTTPRequest, id: String, loaded: Bool = false) -> HTTPResponse {
        let fields: RequestBody
        switch body(request, allowed: ["held"]) {
        case .failure(let e): return e.response
        case .success(let f): fields = f
        }
        guard case .success(let held?) = fields.bool("held") else {
            return .error(400, "bad-field", "\"held\" must be true or false")
        }
        switch enter(request, id: id, loaded: loaded) {
        case .refused(let e): return e.response
        case .load(let visitor): return afterLoading(request, id: id, visitor: visitor) { self.hold(request, id: id, loaded: true) }
        case .ready: break
        }
        if let refusal = storeRefusal() { return refusal }
        guard let slot = state.withLock({ $0.slots[id] }) else {
            return .error(404, "unknown-conversation", "there is no conversation \(id) for this visitor")
        }
        let now = clock.now
        let result: (Pending, UInt64)? = slot.entry.withLock { e in
            e.touched = now
            guard held != e.conversation.isHoldingAutoAdvance else {
                let copy = e
                return state.withLock { s in
                    s.record(id, slot, copy, changed: nil).map { _ in
                        (Pending(id: id, entry: copy, recorded: [], firstSeq: copy.eventSeq + 1, at: now), s.awaited(id))
                    }
                }
            }
            var effects: [ConversationEffect] = []
            if held { e.conversation.hold(at: now) } else { effects = e.conversation.release(at: now) }
            let pending = commit(id: id, entry: &e, effects: effects, at: now)
            let copy = e
            return state.withLock { s in s.record(id, slot, copy, changed: pending).map { (pending, $0) } }
        }
        guard let (pending, seq) = result else {
            return .error(404, "unknown-conversation", "there is no conversation \(id) for this visitor")
        }
        let change = pending.change(self)
        publish(change)
        var answer = HTTPResponse.wrapping(200, [], "conversation", change.view)
        answer.durableAfter = seq == 0 ? nil : seq
        return answer
    }

    private func message(_ error: RocketIntentError, _ strings: UIStrings) -> String {
        switch error {
        case .notActive: return "the conversation is not showing"
        case .noInteractiveBlock: return "no block takes input now"
        case .tapDisabled: return "the newest block goes on by itself"
        case .wrongKind(let expected, _): return "the newest block is a \(expected.rawValue) block"
        case .invalidInput(let failure): return strings.message(for: failure)
        case .noCloseButton: return "this conversation has no close button"
        case .noSuchOption(let n): return "the choice has no option \(n)"
        }
    }

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
            slot.entry.withLock { e in
                guard let at = e.conversation.nextDeadline, at <= now else { return }
                let effects = e.conversation.advance(to: now)
                let pending = commit(id: id, entry: &e, effects: effects, at: now)
                let copy = e
                if state.withLock({ s in s.record(id, slot, copy, changed: pending) }) != nil { changes.append(pending) }
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
    func sweepIfDue(_ now: Double) {
        let limit = configuration.idleTimeout
        state.withLock { s in
            let full = s.slots.count >= configuration.maxConversations || s.alerts.count >= configuration.maxConversations
            guard now - s.lastSweep >= (full ? 1 : 60) else { return }
            s.lastSweep = now
            s.used = s.used.filter { $0.value >= now - limit }
            s.slots = s.slots.filter { s.used[$0.key] != nil }
            s.deadlines = s.deadlines.filter { s.slots[$0.key] != nil }
            s.unsaved = s.unsaved.filter { s.slots[$0.key] != nil }
            s.alerts = s.alerts.filter { $0.value.touched >= now - limit }
            s.buckets = s.buckets.filter { now - $0.value.at < 60 }
            s.live = [:]
            for slot in s.slots.values { s.live[slot.context.address, default: 0] += 1 }
            s.liveAlerts = [:]
            for a in s.alerts.values { s.liveAlerts[a.address, default: 0] += 1 }
        }
    }

    /// Deletes what expired from the stores: conversations idle past the limit (all of them, in
    /// batches of 500, at most 100 batches a call) and visitors' scenario statistics past their
    /// retention; how many conversations went. The HTTP server's writer calls it every minute,
    /// off the threads that answer requests.
    @discardableResult
    package func expireStored() -> Int {
        let now = clock.now
        var gone = 0
        if let archive {
            do {
                for _ in 0..<100 {
                    let n = try archive.expire(before: now - configuration.idleTimeout)
                    gone += n
                    if n < 500 { break }
                }
            } catch {
                log("rocket serve: conversation store: \(error.message)")
            }
        }
        // Visitors' scenario statistics go once nothing has happened in them for the retention.
        if let sqlite = scenarios as? SQLiteScenarioStore {
            do throws(ScenarioStoreError) {
                for _ in 0..<100 where try sqlite.forgetVisitors(inactiveSince: now - configuration.visitorRetention) == 500 {}
            } catch {
                log("rocket serve: scenario store: \(error.message)")
            }
        }
        return gone
    }

    // MARK: Changes

    /// Bumps the version, numbers the new event records, and prepares the view and the save.
    private func commit(id: String, entry e: inout Entry, effects: [ConversationEffect], at now: Double, bump: Bool = true) -> Pending {
        if bump { e.version += 1 }
        var events: [RocketEvent] = []
        for case .event(let event) in effects where event.isRecorded { events.append(event) }
        let first = e.eventSeq + 1
        e.eventSeq += events.count
        e.cache.extend(e.conversation, flow: e.flow)
        return Pending(id: id, entry: e, recorded: events, firstSeq: first, at: now)
    }

    /// A change counted under the lock (version, event numbers); its view is built outside it.
    struct Pending {
        /// A recorded event numbered for the archive.
        typealias Event = (seq: Int, at: Double, event: RocketEvent)

        var id: String
        var entry: Entry
        /// The change's recorded events, in order (their JSON is written only where it is needed:
        /// the frames of a stream that follows the conversation, and the archive).
        var recorded: [RocketEvent]
        var firstSeq: Int
        var at: Double

        /// The view and the new event records: built for the answer, without the lock.
        func change(_ service: ConversationService) -> Change {
            Change(
                id: id, version: entry.version, view: service.view(id, entry), events: recorded, deadline: entry.conversation.nextDeadline)
        }

        /// The new event records, numbered.
        var events: [Event] {
            recorded.enumerated().map { (seq: firstSeq + $0.offset, at: at, event: $0.element) }
        }
    }

    /// Tells the listener (outside the state lock).
    private func publish(_ change: Change) {
        let box = listener.withLock { $0 }
        box?.body(change)
    }

    /// The archive row of conversation `id`: its snapshot with timers as time left at `now`.
    private func row(_ id: String, _ e: Entry, at now: Double) -> ConversationArchive.Row {
        let snapshot = StoredConversation(
            snapshot: ConversationSnapshot(e.conversation, at: now, flow: e.flow.identity, names: e.flow.blockNames), options: e.options,
            language: e.strings.language)
        return ConversationArchive.Row(
            id: id, visitor: e.visitor, flow: e.flow.name, step: e.step, version: e.version, eventSeq: e.eventSeq, touched: e.touched,
            snapshot: snapshot.jsonText())
    }

    /// Event records as the archive keeps them: one row per conversation and save, numbered by
    /// its first record, holding JSON Lines, each record with its time (`at`) first.
    static func eventRows(_ events: [Pending.Event]) -> [(seq: Int, at: Double, record: String)] {
        guard let first = events.first else { return [] }
        var w = JSONBytes(capacity: events.count * 96)
        for (k, e) in events.enumerated() {
            if k > 0 { w.out.append(0x0A) }
            e.event.writeRecord(into: &w, at: e.at)
        }
        return [(first.seq, first.at, String(decoding: w.out, as: UTF8.self))]
    }

    /// True when changes are saved (there is an archive): each change then needs a flush.
    package var persists: Bool { archive != nil }

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
        guard archive != nil else { return FlushResult(saved: true, through: 0) }
        // One flush at a time: a second one could otherwise find nothing to write and call
        // saved what the first is still writing. Only flushes wait here.
        return flushing.withLock { _ in flushOnce() }
    }

    private func flushOnce() -> FlushResult {
        let now = clock.now
        let (taken, through) = state.withLock { s -> ([(id: String, slot: Slot)], UInt64) in
            s.unsaved = s.unsaved.filter { s.slots[$0.key] != nil }
            return (s.unsaved.keys.compactMap { id in s.slots[id].map { (id: id, slot: $0) } }, s.changeSeq)
        }
        // Each conversation copied under its own lock, with the event records it has numbered
        // so far (a change is numbered with that lock held): the row and its records agree, and
        // every change numbered up to `through` is in the batch.
        let batch = taken.map { item in
            item.slot.entry.withLock { e in
                (id: item.id, entry: e, events: state.withLock { $0.unsaved.removeValue(forKey: item.id) ?? [] })
            }
        }
        guard let archive, !batch.isEmpty else {
            markSaved(through: through)
            return FlushResult(saved: true, through: through)
        }
        let rows = batch.map { (row: row($0.id, $0.entry, at: now), events: Self.eventRows($0.events)) }
        do {
            try archive.save(rows)
        } catch {
            // Nothing is dropped: the batch goes back in front of what came meanwhile, and the
            // writer tries again; until then the writing routes answer 503.
            state.withLock { s in
                for item in batch where s.slots[item.id] != nil { s.unsaved[item.id] = item.events + (s.unsaved[item.id] ?? []) }
            }
            if !storeFailing.exchange(true, ordering: .sequentiallyConsistent) {
                log("rocket serve: the conversation store cannot be written (\(error.message)); changes are kept and tried again")
            }
            return FlushResult(saved: false, through: through)
        }
        markSaved(through: through)
        return FlushResult(saved: true, through: through)
    }

    /// Records that every change up to `through` is in the store.
    private func markSaved(through: UInt64) {
        state.withLock { s in s.unsavedSeq = s.unsavedSeq.filter { $0.value > through } }
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
        }
    }
}

/// What the archive keeps of a conversation: its snapshot and the options it was started with,
/// in our own stored form (docs/SNAPSHOT_FORMAT.md, "The server's stored conversations").
struct StoredConversation {
    var snapshot: ConversationSnapshot
    var options: ConversationOptions
    /// The language of the built-in messages ("en", "zh", "it").
    var language: String?

    init(snapshot: ConversationSnapshot, options: ConversationOptions, language: String) {
        self.snapshot = snapshot
        self.options = options
        self.language = language
    }

    /// Reads a stored conversation of the flow whose graph is `graph` (its snapshot in version 2,
    /// or version 1 as the release before wrote it).
    init(jsonText bytes: [UInt8], flow: LoadedFlow) throws(ConversationSnapshot.Failure) {
        try self.init(jsonText: bytes, graph: flow.graph, identity: flow.identity, names: flow.blockNames)
    }

    /// ``init(jsonText:flow:)`` for a graph of its own (tests).
    init(jsonText bytes: [UInt8], graph: RocketGraph, identity: String, names: BlockNames? = nil) throws(ConversationSnapshot.Failure) {
        do {
            let tape = try JSONTape.parse(bytes, limits: ConversationSnapshot.readLimits)
            let top = try JSONFields(tape, 0, path: "", allowed: ["snapshot", "options", "language"])
            snapshot = try ConversationSnapshot(
                tape: tape, entry: try top.required("snapshot"), path: "snapshot", graph: graph, identity: identity, names: names)
            options = try ConversationOptions(try top.object("options", allowed: ["timing", "echoReplies", "initialAnswers"]))
            language = try top.optionalString("language")
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
