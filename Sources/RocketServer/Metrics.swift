#if canImport(Glibc)
    import Glibc
#endif
import RocketCore
import RocketPlatform
import Synchronization

/// What the server has done since it started, counted where it happens, for `GET /metrics`:
/// the answers by status (counted where the HTTP layer queues them) and the open event streams
/// (the HTTP layer's own count, which its stream limit reads too).
package final class ServerCounters: Sendable {
    /// What each answer adds: its status, and the time it took on its route.
    private struct Answers {
        /// By status (100–599).
        var statuses = [UInt64](repeating: 0, count: 500)
        /// By route (``TimedRoutes/labels``' order), then by bucket (``TimedRoutes/bounds``'
        /// order, then +Inf): answers that took at most the bucket's bound and more than the
        /// one before (made cumulative when read).
        var buckets = [UInt64](repeating: 0, count: TimedRoutes.labels.count * (TimedRoutes.bounds.count + 1))
        /// By route: the seconds taken in all.
        var seconds = [Double](repeating: 0, count: TimedRoutes.labels.count)
    }
    /// One short lock, a few increments under it, per answer.
    private let tallies = Mutex(Answers())
    /// Event streams open now.
    let streams = Atomic<Int>(0)
    /// Results this server's webhook sender delivered.
    let webhookDelivered = Atomic<Int>(0)
    /// Deliveries (or store reads) of the webhook sender that failed in a row now (0: none).
    let webhookFailing = Atomic<Int>(0)
    /// Results this server wrote, by flow and reason; one short lock, counted after each commit.
    private let results = Mutex<[Pair: Int]>([:])
    /// Results this server wrote in all (what the webhook sender watches to go at once).
    let resultsTotal = Atomic<Int>(0)
    /// Saves other servers sharing the store were heard of (the same, for their results).
    let changesHeard = Atomic<Int>(0)
    /// Starts this server answered, by flow and outcome (`started`, `not-now`).
    private let starts = Mutex<[Pair: Int]>([:])
    /// The flows' expression errors, by place, for `/metrics` and the log.
    private let flowErrors = Mutex(FlowErrors())

    /// A flow's name and what happened (a result's reason, a start's outcome): a metric's labels.
    struct Pair: Hashable {
        let flow: String
        let what: String
    }

    /// Counts results the store has just written.
    func resultsWritten(_ written: [ConversationArchive.ResultRow]) {
        guard !written.isEmpty else { return }
        results.withLock { counts in for r in written { counts[Pair(flow: r.flow, what: r.reason), default: 0] += 1 } }
        resultsTotal.add(written.count, ordering: .releasing)
    }

    /// Counts a start of flow `flow`: a conversation began (`started` true), or the flow's rules
    /// said not now.
    func counted(start flow: String, started: Bool) {
        starts.withLock { $0[Pair(flow: flow, what: started ? "started" : "not-now"), default: 0] += 1 }
    }

    /// Counts a change's expression errors, each with its message (one short lock for all).
    func flowErrors(_ errors: [(FlowErrors.Place, String)]) {
        flowErrors.withLock { log in for (place, message) in errors { log.add(place, message: message) } }
    }

    /// The expression errors so far, by flow and code, in order.
    package func flowErrorsByCode() -> [(flow: String, code: String, count: Int)] {
        flowErrors.withLock { $0.totals }.sorted { ($0.key.flow, $0.key.what) < ($1.key.flow, $1.key.what) }.map { ($0.key.flow, $0.key.what, $0.value) }
    }

    /// The line for the server's log about the expression errors not said yet, when one is due
    /// at `now` (the ticker asks once a second).
    package func flowErrorLine(at now: Double) -> String? {
        // Taken under the lock; sorted and written after it.
        flowErrors.withLock { $0.take(at: now) }.map(FlowErrors.line(for:))
    }

    /// The results written so far, by flow and reason, in order.
    package func resultsByReason() -> [(flow: String, reason: String, count: Int)] {
        Self.sorted(results.withLock { $0 }).map { ($0.flow, $0.what, $1) }
    }

    /// The starts answered so far, by flow and outcome, in order.
    package func startsByOutcome() -> [(flow: String, outcome: String, count: Int)] {
        Self.sorted(starts.withLock { $0 }).map { ($0.flow, $0.what, $1) }
    }

    private static func sorted(_ counts: [Pair: Int]) -> [(Pair, Int)] {
        counts.sorted { ($0.key.flow, $0.key.what) < ($1.key.flow, $1.key.what) }.map { ($0.key, $0.value) }
    }

    /// Counts `count` answers of `status` made without a route (libmicrohttpd's own).
    package func answered(_ status: Int, count: UInt64) {
        guard (100...599).contains(status) else { return }
        tallies.withLock { $0.statuses[status - 100] &+= count }
    }

    /// Counts an answer of `status`, and, for a request of a known route (an index into
    /// ``TimedRoutes/labels``), the `seconds` it took from its head to its answer.
    package func answered(_ status: Int, route: Int? = nil, seconds: Double = 0) {
        guard (100...599).contains(status) else { return }
        let bucket = route.map { r in r * (TimedRoutes.bounds.count + 1) + TimedRoutes.bucket(of: seconds) }
        let taken = max(0, seconds)
        tallies.withLock { t in
            t.statuses[status - 100] &+= 1
            if let route, let bucket {
                t.buckets[bucket] &+= 1
                t.seconds[route] += taken
            }
        }
    }

    /// The statuses answered at least once, with their counts, in order.
    package func answers() -> [(status: Int, count: UInt64)] {
        let counts = tallies.withLock { $0.statuses }
        return counts.indices.compactMap { i in counts[i] > 0 ? (i + 100, counts[i]) : nil }
    }

    /// The routes answered at least once: each with its answers counted cumulatively by
    /// bucket (``TimedRoutes/bounds``, then +Inf: the last is every answer) and the seconds
    /// they took in all.
    package func durations() -> [(route: String, cumulative: [UInt64], seconds: Double)] {
        let (buckets, seconds) = tallies.withLock { ($0.buckets, $0.seconds) }
        let width = TimedRoutes.bounds.count + 1
        return TimedRoutes.labels.indices.compactMap { r in
            var running: UInt64 = 0
            let cumulative = buckets[(r * width)..<((r + 1) * width)].map { n in
                running &+= n
                return running
            }
            return running > 0 ? (TimedRoutes.labels[r], cumulative, seconds[r]) : nil
        }
    }
}

/// The routes whose answers `/metrics` times (`rocket_http_request_duration_seconds`), each
/// named by its template: the API's from ``ConversationService/routes`` (a test holds them to
/// docs/openapi.json's paths), then the pages. A path no template fits is no label: a client
/// cannot add one by asking for made-up paths.
package enum TimedRoutes {
    /// The pages' templates (outside `/v1`).
    static let pages = ["/", "/widget.js", "/widget/words/{lang}", "/favicon.ico", "/healthz", "/readyz", "/metrics", "/report", "/play/{name}"]

    /// Every template, once each (a path several methods take is one label), the API's first (in
    /// the order of ``ConversationService/routes``).
    package static let labels: [String] = {
        var seen = Set<String>()
        return (ConversationService.routes.map { "/v1/" + template($0.1) } + pages).filter { seen.insert($0).inserted }
    }()

    /// A route's shape written as a template: an id is `{id}`, a flow's name `{name}`, the
    /// rest of a path `{path}`.
    static func template(_ shape: [String]) -> String {
        shape.indices.map { i in
            switch shape[i] {
            case "**": return "{path}"
            case "*": return i > 0 && shape[i - 1] == "flows" ? "{name}" : "{id}"
            default: return shape[i]
            }
        }.joined(separator: "/")
    }

    /// A segment of a template.
    private enum Part {
        /// Exactly these bytes.
        case literal([UInt8])
        /// Any one segment.
        case any
        /// One segment or more, to the end.
        case rest
    }

    /// The templates' segments.
    private static let shapes: [[Part]] = labels.map { label in
        label.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map { part in
            part == "{path}" ? .rest : part.hasPrefix("{") ? .any : .literal(Array(part.utf8))
        }
    }

    /// The upper bounds of the buckets, in seconds (Prometheus's defaults, with two below 5 ms:
    /// most answers take less than a millisecond).
    package static let bounds: [Double] = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]

    /// The bucket `seconds` falls in (`bounds.count`: +Inf).
    static func bucket(of seconds: Double) -> Int {
        bounds.firstIndex { seconds <= $0 } ?? bounds.count
    }

    /// The index in ``labels`` of the template `path` fits (its query already cut off); nil
    /// when none does. No allocation: the path's bytes are compared where they are.
    package static func index(of path: String) -> Int? {
        var path = path
        return path.withUTF8 { b -> Int? in
            guard b.first == 0x2F else { return nil }
            return withUnsafeTemporaryAllocation(of: Range<Int>.self, capacity: 8) { parts -> Int? in
                // The first 8 segments' bounds (no template names more), and how many there are.
                var count = 0
                var start = 1
                for i in 1...b.count where i == b.count || b[i] == 0x2F {
                    if count < 8 { parts[count] = start..<i }
                    count += 1
                    start = i + 1
                }
                outer: for (r, shape) in shapes.enumerated() {
                    let rest: Bool
                    if case .rest? = shape.last { rest = true } else { rest = false }
                    guard rest ? count >= shape.count : count == shape.count else { continue }
                    for (k, part) in shape.enumerated() {
                        guard case .literal(let want) = part else { continue }
                        if !UnsafeBufferPointer(rebasing: b[parts[k]]).elementsEqual(want) { continue outer }
                    }
                    return r
                }
                return nil
            }
        }
    }
}

extension ConversationService {
    /// `GET /metrics`, for a site's monitoring (a site key): the Prometheus text format, each
    /// value read under its own short lock or from an atomic, the text made after.
    func metrics(_ request: HTTPRequest) -> HTTPResponse {
        if let refusal = addressRefusal(request) { return refusal }
        if let refusal = requireSite(request) { return refusal.response }
        let (conversations, alerts) = state.withLock { ($0.slots.count, $0.alerts.count) }
        var m = MetricsText()
        m.add("rocket_start_time_seconds", .gauge, "When the server started, in seconds since 1970.", startedAt)
        m.add("rocket_conversations", .gauge, "Conversations held in memory.", Double(conversations))
        m.add("rocket_alerts", .gauge, "Alerts held in memory.", Double(alerts))
        m.add("rocket_event_streams", .gauge, "Event streams open.", Double(counters.streams.load(ordering: .relaxed)))
        m.add("rocket_store_failing", .gauge, "1 while the store cannot be written (writes answer 503), else 0.", isFailing ? 1 : 0)
        m.add("rocket_changes_saved_total", .counter, "Changes the store has made durable.", Double(saved))
        m.add(
            "rocket_starts_total", .counter, "Starts this server answered, by flow and outcome (started, or not-now: the flow's rules said no).",
            counters.startsByOutcome().map { (["flow": $0.flow, "outcome": $0.outcome], Double($0.count)) })
        m.add(
            "rocket_flow_errors_total", .counter,
            "Expression errors of conversations, by flow and code (a condition false, a variable unchanged or the conversation ended as documented; the log says where).",
            counters.flowErrorsByCode().map { (["flow": $0.flow, "code": $0.code], Double($0.count)) })
        if keepsResults {
            m.add(
                "rocket_results_written_total", .counter, "Results this server wrote, by flow and reason (expired: answered, then left).",
                counters.resultsByReason().map { (["flow": $0.flow, "reason": $0.reason], Double($0.count)) })
        }
        if configuration.webhook != nil {
            m.add(
                "rocket_webhook_delivered_total", .counter, "Results this server delivered to --webhook.",
                Double(counters.webhookDelivered.load(ordering: .relaxed)))
            m.add(
                "rocket_webhook_failing", .gauge, "Webhook deliveries that failed in a row now (0 while they go through).",
                Double(counters.webhookFailing.load(ordering: .relaxed)))
        }
        m.add(
            "rocket_http_responses_total", .counter, "Answers sent, by status.",
            counters.answers().map { (["code": String($0.status)], Double($0.count)) })
        m.histogram(
            "rocket_http_request_duration_seconds",
            "Time from a request's head to its answer (a change's answer waits for its commit), by route; event streams are not timed.",
            bounds: TimedRoutes.bounds, counters.durations().map { (["route": $0.route], $0.cumulative, $0.seconds) })
        if case .success(let statm) = FileIO.read("/proc/self/statm", limit: 4096),
            let field = String(decoding: statm, as: UTF8.self).split(separator: " ").dropFirst().first, let pages = Double(field)
        {
            m.add("process_resident_memory_bytes", .gauge, "Resident memory.", pages * Double(sysconf(Int32(_SC_PAGESIZE))))
        }
        var r = HTTPResponse(status: 200, headers: [("Content-Type", "text/plain; version=0.0.4; charset=utf-8"), ("Cache-Control", "no-store")])
        r.body = Array(m.text.utf8)
        return r
    }
}

/// The Prometheus text exposition format (version 0.0.4): a `# HELP` and a `# TYPE` line, then
/// one line per sample.
struct MetricsText {
    enum Kind: String {
        case gauge, counter
    }
    private(set) var text = ""

    mutating func add(_ name: String, _ kind: Kind, _ help: String, _ value: Double) {
        add(name, kind, help, [([:], value)])
    }

    mutating func add(_ name: String, _ kind: Kind, _ help: String, _ samples: [([String: String], Double)]) {
        text += "# HELP \(name) \(help)\n# TYPE \(name) \(kind.rawValue)\n"
        for (labels, value) in samples {
            let shown = labels.sorted { $0.key < $1.key }.map { "\($0.key)=\"\($0.value)\"" }.joined(separator: ",")
            text += name + (shown.isEmpty ? "" : "{\(shown)}") + " " + Self.number(value) + "\n"
        }
    }

    /// A histogram: for each set of labels, its answers counted cumulatively by bucket
    /// (`bounds`, then +Inf), their sum and their count. Nothing is written without a sample.
    mutating func histogram(_ name: String, _ help: String, bounds: [Double], _ samples: [([String: String], [UInt64], Double)]) {
        guard !samples.isEmpty else { return }
        text += "# HELP \(name) \(help)\n# TYPE \(name) histogram\n"
        for (labels, cumulative, sum) in samples {
            let shown = labels.sorted { $0.key < $1.key }.map { "\($0.key)=\"\($0.value)\"" }
            for (i, n) in cumulative.enumerated() {
                let le = i < bounds.count ? String(bounds[i]) : "+Inf"
                text += "\(name)_bucket{\((shown + ["le=\"\(le)\""]).joined(separator: ","))} \(n)\n"
            }
            let plain = shown.joined(separator: ",")
            text += "\(name)_sum{\(plain)} \(Self.number(sum))\n"
            text += "\(name)_count{\(plain)} \(cumulative.last ?? 0)\n"
        }
    }

    /// Whole numbers without a decimal point, as exporters write counts.
    static func number(_ v: Double) -> String {
        v == v.rounded() && abs(v) < 9e15 ? String(Int64(v)) : String(v)
    }
}

/// The flows' expression errors (a condition or an assignment that failed, a loop of silent
/// blocks stopped, a conversation that reached the most it shows, `matches(…)` past its steps):
/// the flow goes on as docs/SEMANTICS.md says, and only its author can mend it, so the operator
/// is told. Counted by flow and code for `/metrics`; gathered by place for the log, the first
/// said at once and later ones at most once a ``FlowErrors/window``, with how many came
/// meanwhile. An error's message names kinds of values, never a visitor's text.
package struct FlowErrors: Sendable {
    /// Seconds between two lines.
    package static let window = 60.0
    /// Places named in one line; the others are counted.
    package static let placesSaid = 10
    /// Places kept between two lines; errors at others are counted in `/metrics` only.
    package static let placesKept = 10_000

    /// Where an error happened, and which.
    package struct Place: Hashable, Sendable {
        /// The flow's name.
        package var flow: String
        /// The block's id (nil: a block without one).
        package var block: String?
        /// The field in the block (empty: the block itself).
        package var path: String
        /// The error's code (`division-by-zero`, `loop`, `conversation-too-long`, …).
        package var code: String

        /// Makes a place.
        package init(flow: String, block: String?, path: String, code: String) {
            self.flow = flow
            self.block = block
            self.path = path
            self.code = code
        }
    }

    /// All counted, by flow and code (the metric's labels: both come from the flows, never from
    /// a request).
    private(set) var totals: [ServerCounters.Pair: Int] = [:]
    /// Not said yet, by place: how many, and the first one's message.
    private var pending: [Place: (count: Int, message: String)] = [:]
    /// When the last line was said.
    private var saidAt = -Double.infinity

    /// Nothing counted yet.
    package init() {}

    /// Counts an error at `place`.
    package mutating func add(_ place: Place, message: String) {
        totals[ServerCounters.Pair(flow: place.flow, what: place.code), default: 0] += 1
        if let kept = pending[place] {
            pending[place] = (kept.count + 1, kept.message)
        } else if pending.count < Self.placesKept {
            pending[place] = (1, message)
        }
    }

    /// What is due to be said at `now` (taken out: nil when nothing is due), cheap enough for
    /// the lock the counting takes; ``line(for:)`` makes the line.
    package mutating func take(at now: Double) -> [Place: (count: Int, message: String)]? {
        guard !pending.isEmpty, now - saidAt >= Self.window || now < saidAt else { return nil }
        defer {
            pending = [:]
            saidAt = now
        }
        return pending
    }

    /// The line to write at `now`, when one is due (``take(at:)`` and ``line(for:)``).
    package mutating func line(at now: Double) -> String? {
        take(at: now).map(Self.line(for:))
    }

    /// The line for the places `pending` took: those with most errors first.
    package static func line(for pending: [Place: (count: Int, message: String)]) -> String {
        let places = pending.sorted { a, b in
            a.value.count != b.value.count
                ? a.value.count > b.value.count
                : (a.key.flow, a.key.block ?? "", a.key.path, a.key.code) < (b.key.flow, b.key.block ?? "", b.key.path, b.key.code)
        }
        let total = places.reduce(0) { $0 + $1.value.count }
        var parts = places.prefix(Self.placesSaid).map { place, kept in
            let block = place.block.map { " block \(Self.quoted($0))" } ?? ""
            let path = place.path.isEmpty ? "" : " " + Self.quoted(place.path)
            return "flow \(Self.quoted(place.flow))\(block)\(path): \(place.code) ×\(kept.count) (\(Self.clean(kept.message)))"
        }
        if places.count > Self.placesSaid {
            let rest = places.dropFirst(Self.placesSaid).reduce(0) { $0 + $1.value.count }
            parts.append("\(rest) more at \(places.count - Self.placesSaid) other place\(places.count - Self.placesSaid == 1 ? "" : "s")")
        }
        return "rocket serve: \(total) expression error\(total == 1 ? "" : "s") in flows (each conversation went on as documented: "
            + "a condition false, a variable unchanged, or the conversation ended): " + parts.joined(separator: "; ")
    }

    /// A name in double quotes, a quote in it escaped (``clean(_:)`` besides).
    static func quoted(_ s: String) -> String {
        var out = "\""
        for c in clean(s) {
            if c == "\"" || c == "\\" { out.append("\\") }
            out.append(c)
        }
        return out + "\""
    }

    /// `s` on one line: control characters as `?`, at most 200 characters.
    static func clean(_ s: String) -> String {
        var out = ""
        for (k, u) in s.unicodeScalars.enumerated() {
            guard k < 200 else { return out + "…" }
            out.unicodeScalars.append(u.value < 0x20 || (0x7F...0x9F).contains(u.value) ? "?" : u)
        }
        return out
    }
}

/// The answers libmicrohttpd made itself (requests the server never saw: a request line or
/// headers too long for a connection's memory, a malformed request, an HTTP version it does not
/// speak), gathered for the server's log: the first said at once, later ones at most once a
/// ``LibraryAnswers/window``, with how many of each status came meanwhile.
package struct LibraryAnswers: Sendable {
    /// Seconds between two lines.
    package static let window = 60.0
    /// Counts not yet said, by status.
    private var pending: [Int: UInt64] = [:]
    /// When the last line was said.
    private var saidAt = -Double.infinity

    /// Nothing counted yet.
    package init() {}

    /// Adds `counts` (by status) taken at `now`; the line to write, when one is due.
    package mutating func add(_ counts: [Int: UInt64], at now: Double) -> String? {
        for (status, n) in counts where n > 0 { pending[status, default: 0] += n }
        guard !pending.isEmpty, now - saidAt >= Self.window || now < saidAt else { return nil }
        let total = pending.values.reduce(0, +)
        let parts = pending.keys.sorted().map { status in
            "\(status) ×\(pending[status] ?? 0)" + (Self.reasons[status].map { " (\($0))" } ?? "")
        }
        pending = [:]
        saidAt = now
        return "rocket serve: libmicrohttpd refused \(total) request\(total == 1 ? "" : "s") itself, before this server saw \(total == 1 ? "it" : "them") "
            + "(so not in the access log): " + parts.joined(separator: ", ")
    }

    /// Why the library answers each status it answers itself.
    static let reasons: [Int: String] = [
        400: "a request it cannot read",
        413: "a body larger than it takes",
        414: "a request line over the connection's \(RocketLimits.connectionMemoryBytes >> 10) KiB",
        431: "a request line and headers over the connection's \(RocketLimits.connectionMemoryBytes >> 10) KiB",
        505: "an HTTP version other than 1.0 and 1.1",
    ]
}
