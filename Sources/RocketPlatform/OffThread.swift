#if canImport(Glibc)
    import Glibc
#endif

/// Runs blocking work (a `poll` on the terminal, an SQLite wait) on a thread of its own, so it
/// never holds a thread of Swift's cooperative pool.
package enum OffThread {
    private final class Job: Sendable {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }

    /// Runs `body` on a new detached thread; false when no thread could be made (nothing ran).
    package static func detach(_ body: @escaping @Sendable () -> Void) -> Bool {
        let retained = Unmanaged.passRetained(Job(body))
        var thread = pthread_t()
        let rc = pthread_create(
            &thread, nil,
            { raw in
                guard let raw else { return nil }
                Unmanaged<Job>.fromOpaque(raw).takeRetainedValue().body()
                return nil
            }, retained.toOpaque())
        guard rc == 0 else {
            retained.release()
            return false
        }
        pthread_detach(thread)
        return true
    }

    /// The value of `body`, computed on a new detached thread.
    package static func run<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { (continuation: CheckedContinuation<T, Never>) in
            if !detach({ continuation.resume(returning: body()) }) { continuation.resume(returning: body()) }
        }
    }
}
