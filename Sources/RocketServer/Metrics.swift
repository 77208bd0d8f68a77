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
    /// Answers sent, by status (100–599); one short lock, an increment under it.
    private let statuses = Mutex<[UInt64]>(Array(repeating: 0, count: 500))
    /// Event streams open now.
    let streams = Atomic<Int>(0)
    /// Results this server's webhook sender delivered.
    let webhookDelivered = Atomic<Int>(0)
    /// Deliveries (or store reads) of the webhook sender that failed in a row now (0: none).
    let webhookFailing = Atomic<Int>(0)
    /// Results this server wrote, by reason; one short lock, counted after each commit.
    private let results = Mutex<[String: Int]>([:])

    /// Counts results the store has just written.
    func resultsWritten(_ written: [ConversationArchive.ResultRow]) {
        guard !written.isEmpty else { return }
        results.withLock { counts in for r in written { counts[r.reason, default: 0] += 1 } }
    }

    /// The results written so far, by reason, in the order of the reasons' names.
    package func resultsByReason() -> [(reason: String, count: Int)] {
        results.withLock { $0 }.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    }

    /// Counts an answer of `status`.
    package func answered(_ status: Int) {
        guard (100...599).contains(status) else { return }
        statuses.withLock { $0[status - 100] &+= 1 }
    }

    /// The statuses answered at least once, with their counts, in order.
    package func answers() -> [(status: Int, count: UInt64)] {
        let counts = statuses.withLock { $0 }
        return counts.indices.compactMap { i in counts[i] > 0 ? (i + 100, counts[i]) : nil }
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
        if keepsResults {
            m.add(
                "rocket_results_written_total", .counter, "Results this server wrote, by reason (expired: answered, then left).",
                counters.resultsByReason().map { (["reason": $0.reason], Double($0.count)) })
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

    /// Whole numbers without a decimal point, as exporters write counts.
    static func number(_ v: Double) -> String {
        v == v.rounded() && abs(v) < 9e15 ? String(Int64(v)) : String(v)
    }
}
