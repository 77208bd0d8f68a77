import Synchronization

/// Holds back repeats of a line in the server's log: each distinct line at most once a
/// ``window``. While the store fails, every request that needs it says the same thing, and one
/// line a request would flood the log (on a disk that may be the one that is full). The first
/// time a held-back line passes again, it says how many like it were held back.
final class LogThrottle: Sendable {
    /// Seconds between two of the same line.
    static let window = 60.0
    /// Lines remembered at once; past it, lines whose window is over are forgotten, and a new
    /// line finding no room is let through (distinct lines come from distinct causes, which a
    /// client cannot make up at will).
    static let capacity = 256

    private struct Seen {
        var since: Double
        var held: Int
    }
    private let seen = Mutex<[String: Seen]>([:])

    /// The line to write for `line` said at `now`, or nil to hold it back.
    func pass(_ line: String, at now: Double) -> String? {
        seen.withLock { seen -> String? in
            if var s = seen[line] {
                guard now - s.since >= Self.window || now < s.since else {
                    s.held += 1
                    seen[line] = s
                    return nil
                }
                seen[line] = Seen(since: now, held: 0)
                return s.held == 0 ? line : line + " (and \(s.held) more like it held back)"
            }
            if seen.count >= Self.capacity { seen = seen.filter { now - $0.value.since < Self.window } }
            if seen.count < Self.capacity { seen[line] = Seen(since: now, held: 0) }
            return line
        }
    }
}
