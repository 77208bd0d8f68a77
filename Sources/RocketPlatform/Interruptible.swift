#if canImport(Glibc)
    import Glibc
#endif
import Synchronization

/// Long work a person may stop with Ctrl-C without leaving anything half-done: while it runs,
/// SIGINT, SIGTERM and SIGHUP are held and taken by a thread of their own, which calls `stop`
/// (for instance an SQLite interrupt) instead of ending the process; a signal that comes once
/// the work is done, before they are let go, is taken too. The caller then cleans up and exits
/// 128 + the signal.
package enum Interruptible {
    /// The signals taken.
    static let signals = [SIGINT, SIGTERM, SIGHUP]

    /// Runs `prepare` (once the signals are held: what it makes is never left by one), then
    /// `body`, calling `stop` from another thread on the first signal (`body`'s argument then
    /// answers true, for work done in steps); what they returned, and the signal caught (0:
    /// none). `prepare` returning nil ends it at once (no `body`).
    package static func run<P, T>(
        prepare: () -> P?, stop: @escaping @Sendable () -> Void, _ body: (P, _ stopping: () -> Bool) -> T
    ) -> (prepared: P?, result: T?, signal: Int32) {
        var set = sigset_t()
        sigemptyset(&set)
        for s in signals { sigaddset(&set, s) }
        pthread_sigmask(SIG_BLOCK, &set, nil)
        defer { pthread_sigmask(SIG_UNBLOCK, &set, nil) }
        guard let prepared = prepare() else { return (nil, nil, 0) }
        let caught = Atomic<Int32>(0)
        let finished = Atomic<Bool>(false)
        let watcherDone = Atomic<Bool>(false)
        let watched = set
        let watching = OffThread.detach(named: "rocket-signals") {
            var wanted = watched
            var wait = timespec(tv_sec: 0, tv_nsec: 50_000_000)
            while !finished.load(ordering: .acquiring) {
                let s = sigtimedwait(&wanted, nil, &wait)
                if s > 0 {
                    caught.store(s, ordering: .releasing)
                    stop()
                    break
                }
            }
            watcherDone.store(true, ordering: .releasing)
        }
        let result = body(prepared) { caught.load(ordering: .acquiring) != 0 }
        finished.store(true, ordering: .releasing)
        while watching && !watcherDone.load(ordering: .acquiring) { usleep(1_000) }
        // One that came after the watcher ended (or with no watcher) is pending: taken now, so
        // letting the signals go does not end the process after the work is done.
        var zero = timespec(tv_sec: 0, tv_nsec: 0)
        var pending = set
        while true {
            let s = sigtimedwait(&pending, nil, &zero)
            guard s > 0 else { break }
            if caught.load(ordering: .acquiring) == 0 { caught.store(s, ordering: .releasing) }
        }
        return (prepared, result, caught.load(ordering: .acquiring))
    }
}
