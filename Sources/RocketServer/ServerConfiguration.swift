public import RocketConversation
import RocketCore

/// The limits and settings of `rocket serve`: every one bounds memory or work whatever clients
/// send.
public struct ServerConfiguration: Sendable {
    /// The largest request body accepted (bytes); more is a 413.
    public var maxBodyBytes = RocketLimits.requestBodyBytes
    /// Conversations held at once; a new one beyond it is a 503 until others expire.
    public var maxConversations = RocketLimits.conversations
    /// Seconds a conversation may go unused before it expires (memory and store).
    public var idleTimeout: Double = RocketLimits.idleSeconds
    /// Intents and starts a visitor may send per second, on average…
    public var requestsPerSecond: Double = RocketLimits.requestsPerSecond
    /// …and in a burst.
    public var requestBurst: Double = RocketLimits.requestBurst
    /// Origins (`https://shop.example`) whose pages may use the API besides the server's own.
    public var allowedOrigins: Set<String> = []
    /// The origins the server's own pages are reached at through a proxy (`--public-url`),
    /// besides the address it listens on. The `Host` header is never trusted for this: a page
    /// of another site whose name resolves to this server (DNS rebinding) sends its own.
    public var publicOrigins: Set<String> = []
    /// The animation timing of new conversations (clients may ask for reduced motion).
    public var timing: RocketTiming = .original
    /// Open event streams at once (each is a connection).
    public var maxStreams = RocketLimits.eventStreams
    /// Seconds between keep-alive comments on event streams (closed clients are noticed then).
    public var keepAlive: Double = 15

    /// The defaults.
    public init() {}
}
