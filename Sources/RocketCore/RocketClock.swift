#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import Synchronization

/// A source of the current time, in seconds, injected into every engine that schedules.
///
/// Engines never read the wall clock: they take the time as a parameter. Hosts that drive
/// them read a ``RocketClock``; tests use ``ManualClock`` and advance it by hand.
///
/// ```swift
/// let clock = ManualClock()
/// clock.advance(by: 1.5)
/// clock.now   // 1.5
/// ```
public protocol RocketClock: Sendable {
    /// The current instant, in seconds from an arbitrary origin that never moves backwards.
    var now: Double { get }
}

/// The real monotonic clock of the machine (seconds since boot).
///
/// ```swift
/// let start = SystemClock().now
/// ```
public struct SystemClock: RocketClock {
    /// Creates the system clock.
    public init() {}
    /// Seconds since the machine started, from the monotonic clock.
    public var now: Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }
}

/// The wall clock as a ``RocketClock``: seconds since 1970 (what scenario rules and expiry use).
///
/// ```swift
/// let now = WallClock().now   // 1_800_000_000.25
/// ```
public struct WallClock: RocketClock {
    /// Creates the wall clock.
    public init() {}
    /// Seconds since 1970-01-01 UTC, from the real-time clock.
    public var now: Double {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }
}

/// A clock that moves only when told to: the test clock of every engine.
///
/// It is thread-safe, so a test can share one between an engine and its assertions.
///
/// ```swift
/// let clock = ManualClock(now: 100)
/// clock.advance(by: 0.3)
/// clock.now   // 100.3
/// ```
public final class ManualClock: RocketClock {
    private let state: Mutex<Double>

    /// Creates a clock at the given instant (0 by default).
    public init(now: Double = 0) { state = Mutex(now) }

    /// The current instant.
    public var now: Double { state.withLock { $0 } }

    /// Moves the clock forward by `seconds` (negative values are ignored).
    public func advance(by seconds: Double) {
        state.withLock { $0 += max(0, seconds) }
    }

    /// Sets the clock to an instant, which may be earlier (to test clocks that move backwards).
    public func set(_ instant: Double) {
        state.withLock { $0 = instant }
    }
}
