#if canImport(Glibc)
    import Glibc
#endif
package import RocketPlatform
import Synchronization

/// What `rocket serve` tells a service manager such as systemd (`Type=notify`): ready once it
/// listens, reloading and ready again around a re-read of its keys (SIGHUP), stopping, a status
/// line (`systemctl status` shows it) that says when the store cannot be written, and, when the
/// manager watches (`WatchdogSec=`), that it lives, from the server's ticker. Without a manager
/// each call does nothing.
package final class ServiceManagerLink: Sendable {
    private let manager: ServiceManager
    private let service: ConversationService
    /// The line said while all is well ("Serving at URL").
    private let serving = Mutex("Starting")
    /// Whether the status sent last said the store was failing.
    private let saidFailing = Atomic<Bool>(false)

    /// The link for `service` to `manager` (``ServiceManager/current`` for this process's).
    package init(_ manager: ServiceManager, service: ConversationService) {
        self.manager = manager
        self.service = service
    }

    /// The status line while the store cannot be written.
    static let failingStatus = "The store cannot be written: writing routes answer 503 until it can"

    /// What the server's ticker calls: a watchdog's ping every half of its interval (at least
    /// once a second), and a new status line when the store starts or stops failing. Nil
    /// without a manager.
    package var heartbeat: HTTPServer.Heartbeat? {
        guard manager.present else { return nil }
        return HTTPServer.Heartbeat(every: min(1, (manager.watchdogInterval ?? 2) / 2)) { [self] in beat() }
    }

    private func beat() {
        var fields: [(String, String)] = []
        if manager.watchdogInterval != nil { fields.append(("WATCHDOG", "1")) }
        let failing = service.isFailing
        if saidFailing.exchange(failing, ordering: .acquiringAndReleasing) != failing {
            fields.append(("STATUS", failing ? Self.failingStatus : serving.withLock { $0 }))
        }
        if !fields.isEmpty { manager.notify(fields) }
    }

    /// The server listens at `url`: it is ready.
    package func ready(url: String) {
        let line = "Serving at \(url)"
        serving.withLock { $0 = line }
        manager.notify([("READY", "1"), ("STATUS", service.isFailing ? Self.failingStatus : line)])
    }

    /// The keys are being read again.
    package func reloading() {
        manager.notify([("RELOADING", "1"), ("MONOTONIC_USEC", "\(ServiceManager.monotonicMicroseconds)")])
    }

    /// The keys were read again (or kept, as `note` says).
    package func reloaded(_ note: String) {
        manager.notify([("READY", "1"), ("STATUS", "\(serving.withLock { $0 }); \(note)")])
    }

    /// The server stops: the requests under way finish, then the changes left are written.
    package func stopping() {
        manager.notify([("STOPPING", "1"), ("STATUS", "Stopping: finishing the requests under way and writing the changes left")])
    }
}
