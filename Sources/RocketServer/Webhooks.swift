import CHTTPClient
package import RocketCore
import RocketJSON
import Synchronization

/// `--webhook`: where results go, the secret they are signed with, whose certificates to trust.
public struct WebhookConfiguration: Sendable {
    /// Where.
    public var target: HTTPTarget
    /// The HMAC-SHA256 key of the `Rocket-Signature` header.
    public var secret: [UInt8]
    /// A PEM file of the certificates to trust for `https://` (nil: the system's).
    public var caFile: String?
    /// Seconds a delivery may take, from connecting to the answer's status line.
    public var timeout: Double = 10

    /// A configuration delivering to `target`, signed with `secret`.
    public init(target: HTTPTarget, secret: [UInt8], caFile: String? = nil) {
        self.target = target
        self.secret = secret
        self.caFile = caFile
    }

    /// The headers of one delivery: what it is, its number, and its signature over the time and
    /// the body, `t=TIME,v1=HEX(HMAC-SHA256(secret, "TIME.BODY"))`.
    package func headers(for body: [UInt8], seq: Int, at time: Double) -> [(String, String)] {
        let t = String(Int(time.rounded(.down)))
        let signature = HMAC.hex(key: secret, message: Array((t + ".").utf8) + body)
        return [
            ("Content-Type", "application/json"), ("User-Agent", "rocket-webhook"), ("Rocket-Delivery", String(seq)),
            ("Rocket-Signature", "t=\(t),v1=\(signature)"),
        ]
    }

    /// The body of a test delivery (`rocket webhook-test`): a result as deliveries carry them,
    /// numbered 0 (a real one is numbered from 1), made up, at `time`.
    package static func testBody(at time: Double) -> [UInt8] {
        let sample = ConversationArchive.StoredResult(
            seq: 0,
            result: ConversationArchive.ResultRow(
                id: String(repeating: "0", count: 32), flow: "example", visitor: "rocket-webhook-test", at: time, reason: "completed",
                answers: #"{"example":"a test delivery from rocket webhook-test"}"#))
        var w = JSONBytes(capacity: 256)
        sample.write(into: &w)
        return w.out
    }
}

/// A webhook's place in the store: the last result it delivered, and which server holds the
/// right to deliver (until when). Kept as one setting: `CURSOR HOLDER UNTIL`.
package struct WebhookLease: Equatable {
    var cursor: Int
    var holder: String
    var until: Double

    /// The setting of the webhook `key`.
    static func settingName(_ key: String) -> String { "webhook " + key }

    var text: String { "\(cursor) \(holder.isEmpty ? "-" : holder) \(until)" }

    init(cursor: Int, holder: String, until: Double) {
        self.cursor = cursor
        self.holder = holder
        self.until = until
    }

    init?(text: String) {
        let parts = text.split(separator: " ")
        guard parts.count == 3, let c = Int(parts[0]), let u = Double(parts[2]) else { return nil }
        cursor = c
        holder = parts[1] == "-" ? "" : String(parts[1])
        until = u
    }
}

/// Delivers results to `--webhook`: in the order the store numbered them, one at a time, each
/// until its endpoint answers 2xx (at least once: an endpoint tells repeats by `Rocket-Delivery`).
/// Among servers sharing a store, the one holding the webhook's lease delivers; another takes
/// over once a lease runs out. Its thread calls ``turn()`` in a loop and waits what it returns.
package final class WebhookSender: Sendable {
    let configuration: WebhookConfiguration
    let archive: any ConversationStore
    let clock: any RocketClock
    /// The server's log, which says a line again at most once a minute (``LogThrottle``): a
    /// delivery that keeps failing is named once a minute.
    let log: @Sendable (String) -> Void
    /// Where `GET /metrics` reads what it did (nil: nowhere).
    let counters: ServerCounters?
    /// This server, as a lease holder.
    let holder: String
    /// The webhook's key in the store: its URL's SHA-256, so a new URL starts afresh.
    let key: String
    /// Failed deliveries (or store reads) in a row.
    let failures = Mutex(0)
    /// The connection kept open between deliveries (``turn()`` runs on one thread at a time).
    let connection = HTTPConnection()

    /// How long a lease runs; a turn renews it.
    static let leaseSeconds = 15.0
    /// Results delivered in one turn at most (then the lease is renewed).
    static let perTurn = 50

    package init(
        configuration: WebhookConfiguration, archive: any ConversationStore, clock: any RocketClock, counters: ServerCounters? = nil,
        log: @escaping @Sendable (String) -> Void
    ) {
        self.counters = counters
        self.configuration = configuration
        self.archive = archive
        self.clock = clock
        self.log = log
        holder = SHA256.hex(AccessControl.randomBytes(8))
        key = String(SHA256.hex(SHA256.digest(Array(configuration.target.url.utf8))).prefix(16))
    }

    /// The headers of one delivery (``WebhookConfiguration/headers(for:seq:at:)``).
    package func headers(for body: [UInt8], seq: Int, at time: Double) -> [(String, String)] {
        configuration.headers(for: body, seq: seq, at: time)
    }

    /// Takes the webhook's place in the store (its lease, and for a webhook new to the store the
    /// number of the newest result): called before the server takes requests, so every result
    /// written after it is delivered. A store that cannot be reached now is tried again by the
    /// first ``turn()``.
    package func register() {
        let now = clock.now
        _ = try? archive.webhookTurn(key, holder: holder, now: now, until: now + Self.leaseSeconds)
    }

    /// One turn: while this server holds the lease, the results after the last one delivered,
    /// in order, each until it is taken. Returns the seconds to wait before the next turn: 0 to
    /// go on, 1 when nothing waits, 2 while another server holds the lease, a growing pause
    /// (1 s, doubled up to 5 minutes) after a delivery failed.
    package func turn() -> Double {
        let now = clock.now
        let cursor: Int
        do throws(ConversationArchive.Failure) {
            guard let c = try archive.webhookTurn(key, holder: holder, now: now, until: now + Self.leaseSeconds) else { return 2 }
            cursor = c
        } catch {
            complain("the store: \(error.message)")
            return pause()
        }
        let rows: [ConversationArchive.StoredResult]
        do throws(ConversationArchive.Failure) {
            rows = try archive.results(flow: nil, after: cursor, limit: Self.perTurn, maxBytes: RocketLimits.resultPageBytes)
        } catch {
            complain("the store: \(error.message)")
            return pause()
        }
        guard !rows.isEmpty else { return 1 }
        for row in rows {
            var w = JSONBytes(capacity: 512)
            row.write(into: &w)
            let body = w.out
            let answer = HTTPClient.post(
                configuration.target, headers: headers(for: body, seq: row.seq, at: clock.now), body: body, caFile: configuration.caFile,
                timeout: configuration.timeout, connection: connection)
            switch answer {
            case .success(let status) where (200...299).contains(status):
                failures.withLock { $0 = 0 }
                counters?.webhookFailing.store(0, ordering: .relaxed)
                counters?.webhookDelivered.add(1, ordering: .relaxed)
            case .success(let status):
                complain("\(configuration.target.url) answered \(status) to result \(row.seq); it is sent again")
                return pause()
            case .failure(let why):
                complain("result \(row.seq) was not delivered to \(configuration.target.url): \(why.message); it is sent again")
                return pause()
            }
            do throws(ConversationArchive.Failure) {
                guard try archive.webhookDelivered(key, holder: holder, seq: row.seq) else { return 2 }
            } catch {
                complain("the store: \(error.message)")
                return pause()
            }
        }
        return 0
    }

    /// Whether a wait of `pause` seconds after a turn, `waited` seconds in, ends now: a turn that
    /// found nothing to send (`pause` 1) goes again as soon as this server wrote a result
    /// (`resultsChanged`), or, at most five times a second, when another server sharing the
    /// store saved something (`othersChanged`: one of its results, perhaps). A pause after a
    /// failure, or while another server holds the lease, is waited out whole.
    package static func endsWait(pause: Double, waited: Double, resultsChanged: Bool, othersChanged: Bool) -> Bool {
        if waited >= pause { return true }
        guard pause == 1 else { return false }
        return resultsChanged || (othersChanged && waited >= 0.2)
    }

    /// The pause after a failure: 1 s, doubled each time in a row, at most 5 minutes.
    private func pause() -> Double {
        let n = failures.withLock { f -> Int in
            f += 1
            return f
        }
        counters?.webhookFailing.store(n, ordering: .relaxed)
        return min(300, Double(1 << min(n - 1, 9)))
    }

    /// Logs a failure (the log holds back the same line for a minute).
    private func complain(_ what: String) { log("rocket serve: webhook: \(what)") }
}
