public import RocketConversation
import RocketCore

/// The limits and settings of `rocket serve`: every one bounds memory or work whatever clients
/// send.
public struct ServerConfiguration: Sendable {
    /// The largest request body accepted (bytes); more is a 413.
    public var maxBodyBytes = RocketLimits.requestBodyBytes
    /// Conversations held at once; a new one beyond it is a 503 until others expire.
    public var maxConversations = RocketLimits.conversations
    /// The fewest seconds between two flows shown to one visitor (`--min-gap`; 0: no gap).
    public var minGap: Double = 0
    /// Seconds a conversation may go unused before it expires (memory and store).
    public var idleTimeout: Double = RocketLimits.idleSeconds
    /// Intents and starts a visitor may send per second, on average…
    public var requestsPerSecond: Double = RocketLimits.requestsPerSecond
    /// …and in a burst.
    public var requestBurst: Double = RocketLimits.requestBurst
    /// Requests one client address may send per second, on average, whatever visitors it
    /// names (rotating ids or tokens does not get around it)…
    public var addressRequestsPerSecond: Double = RocketLimits.addressRequestsPerSecond
    /// …and in a burst.
    public var addressRequestBurst: Double = RocketLimits.addressRequestBurst
    /// Live conversations, and separately alerts, that one client address may hold.
    public var perAddress = RocketLimits.perAddress
    /// Open event streams one client address may hold.
    public var streamsPerAddress = RocketLimits.streamsPerAddress
    /// Connections one client address may hold (libmicrohttpd refuses more); 0 behind a trusted
    /// proxy, whose connections carry every client.
    public var connectionsPerAddress = RocketLimits.connectionsPerAddress
    /// Seconds a visitor's scenario statistics are kept after the last thing that happened in
    /// them (a "show once" is forgotten after this long without a visit).
    public var visitorRetention: Double = RocketLimits.visitorRetentionSeconds
    /// Seconds event records are kept for reports (`--keep-records`).
    public var recordRetention: Double = RocketLimits.recordRetentionSeconds
    /// Seconds the results of ended conversations (their answers) are kept for the site's back
    /// end (`--keep-results`); 0 keeps none.
    public var resultRetention: Double = RocketLimits.resultRetentionSeconds
    /// Where results are delivered as they are written (`--webhook`); nil: nowhere.
    public var webhook: WebhookConfiguration? = nil
    /// Seconds a request may take to arrive whole from its request line (headers and body).
    public var requestSeconds = RocketLimits.requestSeconds
    /// Seconds a connection may stay idle; a request must also have come whole within this and
    /// ``requestSeconds`` of its connection being free for it, however steadily it trickles in.
    public var idleConnectionSeconds = RocketLimits.connectionIdleSeconds
    /// Proxies (IP addresses) whose `X-Forwarded-For` names the client (`--trust-proxy`); from
    /// any other peer the header is ignored.
    public var trustedProxies: Set<String> = []
    /// Networks of proxies trusted as ``trustedProxies`` are (`--trust-proxy 10.0.0.0/8`: a pool
    /// of load balancers whose addresses change).
    public var trustedNetworks: [AddressNetwork] = []

    /// True when `peer` is a trusted proxy: one of ``trustedProxies``, or in one of
    /// ``trustedNetworks``.
    public func trusts(_ peer: String) -> Bool {
        trustedProxies.contains(peer) || trustedNetworks.contains { $0.contains(peer) }
    }

    /// True when any proxy is trusted.
    public var trustsProxies: Bool { !trustedProxies.isEmpty || !trustedNetworks.isEmpty }
    /// Origins (`https://shop.example`) whose pages may use the API besides the server's own.
    public var allowedOrigins: Set<String> = []
    /// The origins the server's own pages are reached at through a proxy (`--public-url`),
    /// besides the address it listens on. The `Host` header is never trusted for this: a page
    /// of another site whose name resolves to this server (DNS rebinding) sends its own.
    public var publicOrigins: Set<String> = []
    /// The animation timing of new conversations (clients may ask for reduced motion).
    public var timing: RocketTiming = .original
    /// Open event streams at once (each is a connection; `--max-streams`).
    public var maxStreams = RocketLimits.eventStreams
    /// The open files a server with ``maxStreams`` wants: a descriptor for each stream, as many
    /// again for the library's connections beside them, and 2,000 more (the store, the log,
    /// pictures being sent). `rocket serve` raises its limit as far as this.
    public var descriptorsWanted: Int { 2 * maxStreams + 2_000 }
    /// The open files below which ``maxStreams`` cannot be reached: a descriptor for each
    /// stream, as many connections beside them up to 1,000, and 64 for the rest (the HTTP
    /// server gives the library what is left beside the streams). `rocket serve` says when the
    /// system's limit is lower.
    public var descriptorsNeeded: Int { maxStreams + min(maxStreams, 1_000) + 64 }

    /// The most streams `descriptors` open files allow by ``descriptorsNeeded``'s rule.
    public static func streamsFitting(descriptors: Int) -> Int {
        let free = descriptors - 64
        return free <= 2_000 ? max(1, free / 2) : free - 1_000
    }
    /// Seconds between keep-alive comments on event streams (closed clients are noticed then).
    public var keepAlive: Double = 15
    /// A line per answer on standard error, in this format (`--access-log`); nil: none.
    public var accessLog: LogFormat? = nil

    /// The defaults.
    public init() {}
}
