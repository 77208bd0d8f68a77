import Foundation
import RocketPostgres
import Synchronization

/// The PostgreSQL clusters the tests use: the one `scripts/test.sh` started (its URL in
/// `ROCKET_TEST_POSTGRES`), or, for a bare `swift test`, one this process starts with the same
/// script; and clusters of their own for tests that stop their server. A cluster this process
/// started is stopped when it exits, and by the script's watchdog should it end any other way.
/// No test is skipped for want of one: when none starts, the tests that need it fail, saying why.
public enum TestPostgres {
    /// The script every cluster comes from.
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("scripts/postgres-cluster.sh").path

    /// The shared cluster's maintenance database URL, or why there is none.
    public static let cluster: Result<String, ClusterError> = {
        if let url = ProcessInfo.processInfo.environment["ROCKET_TEST_POSTGRES"], !url.isEmpty { return .success(url) }
        return Result { try ownCluster() }.mapError { $0 as? ClusterError ?? ClusterError(message: "\($0)") }
    }()

    /// Clusters this process started (stopped at exit).
    static let own = Mutex<[String]>([])

    /// A cluster of its own, for a test that stops and starts its server: its URL (the
    /// `postgres` database).
    public static func ownCluster() throws -> String {
        // Its own spawn, not Foundation's Process: that wait needs a free dispatch thread, and the
        // tests that got here first may hold them all, waiting for this cluster.
        guard let url = shell("/bin/sh '\(script)' start \(getpid())"), !url.isEmpty else {
            throw ClusterError(message: "a test cluster did not start (scripts/postgres-cluster.sh said why above)")
        }
        let first = own.withLock { list in
            list.append(url)
            return list.count == 1
        }
        if first {
            atexit {
                for url in TestPostgres.own.withLock({ $0 }) { _ = TestPostgres.shell("/bin/sh '\(TestPostgres.script)' stop '\(url)'") }
            }
        }
        return url
    }

    /// Stops the server of a cluster of its own (``ownCluster()``), keeping its data.
    public static func halt(_ url: String) { _ = shell("/bin/sh '\(script)' halt '\(url)'") }
    /// Starts it again.
    public static func resume(_ url: String) { _ = shell("/bin/sh '\(script)' resume '\(url)'") }

    /// Runs a shell command (``cleanShell(_:)``).
    static func shell(_ command: String) -> String? { cleanShell(command) }

    /// Why a cluster is missing.
    public struct ClusterError: Error, CustomStringConvertible {
        /// What went wrong.
        public var message: String
        public var description: String { message }
    }

    private static let counter = Atomic<Int>(0)

    /// A new, empty database of the shared cluster, for one test: its URL.
    public static func freshDatabase() throws -> String {
        let base = try cluster.get()
        let name = "rocket_t\(getpid())_\(counter.add(1, ordering: .relaxed).newValue)_\(UInt32.random(in: 0...UInt32.max))"
        let admin = PostgresDatabase(url: PostgresURL(base)!, capacity: 1)
        try admin.withConnection { (c) throws(PostgresError) in try c.execute("CREATE DATABASE \(name)") }
        return url(base, database: name)
    }

    /// `base` naming database `name` instead.
    public static func url(_ base: String, database name: String) -> String {
        // postgresql:///postgres?host=… → postgresql:///NAME?host=…
        guard let q = base.firstIndex(of: "?"), let slash = base[..<q].lastIndex(of: "/") else { return base }
        return String(base[...slash]) + name + String(base[q...])
    }
}
