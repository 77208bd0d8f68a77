#if canImport(Glibc)
    import Glibc
#endif

/// Runs blocking work (a `poll` on the terminal, an SQLite wait) on a thread of its own, so it
/// never holds a thread of Swift's cooperative pool.
package enum OffThread {
    private final class Job: Sendable {
        let name: String?
        let body: @Sendable () -> Void
        init(_ name: String?, _ body: @escaping @Sendable () -> Void) {
            self.name = name
            self.body = body
        }
    }

    /// Runs `body` on a new detached thread, named `name` (at most 15 bytes show, in `top -H`
    /// and `/proc`); false when no thread could be made (nothing ran).
    package static func detach(named name: String? = nil, _ body: @escaping @Sendable () -> Void) -> Bool {
        let retained = Unmanaged.passRetained(Job(name, body))
        var thread = pthread_t()
        let rc = pthread_create(
            &thread, nil,
            { raw in
                guard let raw else { return nil }
                let job = Unmanaged<Job>.fromOpaque(raw).takeRetainedValue()
                if let name = job.name { OffThread.name(name) }
                job.body()
                return nil
            }, retained.toOpaque())
        guard rc == 0 else {
            retained.release()
            return false
        }
        pthread_detach(thread)
        return true
    }

    /// Names the calling thread (Glibc's `pthread_setname_np` is not visible to Swift; Linux
    /// takes the name through the thread's `comm` file). Nothing happens where it cannot.
    private static func name(_ name: String) {
        let fd = open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
        guard fd >= 0 else { return }
        let bytes = Array(name.utf8.prefix(15))
        _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
    }

    /// The value of `body`, computed on a new detached thread.
    package static func run<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { (continuation: CheckedContinuation<T, Never>) in
            if !detach({ continuation.resume(returning: body()) }) { continuation.resume(returning: body()) }
        }
    }
}
