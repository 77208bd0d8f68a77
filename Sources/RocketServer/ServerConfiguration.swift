public import RocketConversation
public import RocketCore
import RocketScenarios

/// The limits and settings of `rocket serve`: every one bounds memory or work whatever clients
/// send.
public struct ServerConfiguration: Sendable {
    /// The largest request body accepted (bytes); more is a 413.
    public var maxBodyBytes = 16 << 10
    /// Conversations held at once; a new one beyond it is a 503 until others expire.
    public var maxConversations = 10_000
    /// Seconds a conversation may go unused before it expires (memory and store).
    public var idleTimeout: Double = 24 * 3600
    /// Intents and starts a visitor may send per second, on average…
    public var requestsPerSecond: Double = 10
    /// …and in a burst.
    public var requestBurst: Double = 40
    /// Origins (`https://shop.example`) whose pages may use the API besides the server's own.
    public var allowedOrigins: Set<String> = []
    /// The animation timing of new conversations (clients may ask for reduced motion).
    public var timing: RocketTiming = .original
    /// Open event streams at once (each is a connection).
    public var maxStreams = 4_000
    /// Seconds between keep-alive comments on event streams (closed clients are noticed then).
    public var keepAlive: Double = 15

    /// The defaults.
    public init() {}
}

/// The wall clock as a `RocketClock`: seconds since 1970 (what scenario rules and expiry use).
public struct WallClock: RocketClock {
    /// Creates the wall clock.
    public init() {}
    /// Seconds since 1970-01-01 UTC.
    public var now: Double { WallTime.now }
}
