import Foundation
import RocketPostgres
import Synchronization

/// The PostgreSQL cluster the tests use: the one `scripts/test.sh` started (its URL in
/// `ROCKET_TEST_POSTGRES`), or, for a bare `swift test`, one this process starts with the same
/// script and stops when it exits. No test is skipped for want of it: when neither works, the
/// tests that need it fail, saying why.
public enum TestPostgres {
    /// The cluster's maintenance database URL, or why there is none.
    public static let cluster: Result<String, ClusterError> = {
        if let url = ProcessInfo.processInfo.environment["ROCKET_TEST_POSTGRES"], !url.isEmpty { return .success(url) }
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("scripts/postgres-cluster.sh").path
        // popen, not Foundation's Process: its wait needs a free dispatch thread, and the tests
        // that got here first hold them all, waiting for this cluster.
        guard let url = shell("/bin/sh '\(script)' start"), !url.isEmpty else {
            return .failure(ClusterError(message: "the test cluster did not start (scripts/postgres-cluster.sh said why above)"))
        }
        startedHere.withLock { $0 = (script, url) }
        atexit {
            guard let (script, url) = TestPostgres.startedHere.withLock({ $0 }) else { return }
            _ = TestPostgres.shell("/bin/sh '\(script)' stop '\(url)'")
        }
        return .success(url)
    }()

    /// Runs a shell command; its standard output without the last newline, nil when it failed.
    static func shell(_ command: String) -> String? {
        guard let pipe = popen(command, "r") else { return nil }
        var out: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = fread(&buffer, 1, buffer.count, pipe)
            if n <= 0 { break }
            out += buffer[0..<n]
        }
        guard pclose(pipe) == 0 else { return nil }
        while out.last == 0x0A { out.removeLast() }
        return String(decoding: out, as: UTF8.self)
    }

    /// The script every cluster comes from.
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("scripts/postgres-cluster.sh").path

    /// Clusters of their own that tests started (stopped at exit).
    static let own = Mutex<[String]>([])

    /// A cluster of its own, for a test that stops and starts its server: its URL (the
    /// `postgres` database). Stopped when the process exits.
    public static func ownCluster() throws -> String {
        guard let url = shell("/bin/sh '\(script)' start"), !url.isEmpty else { throw ClusterError(message: "a test cluster did not start") }
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

    /// The script and URL of a cluster this process started (stopped at exit).
    static let startedHere = Mutex<(String, String)?>(nil)

    /// Why the cluster is missing.
    public struct ClusterError: Error, CustomStringConvertible {
        /// What went wrong.
        public var message: String
        public var description: String { message }
    }

    private static let counter = Atomic<Int>(0)

    /// A new, empty database of the cluster, for one test: its URL.
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
