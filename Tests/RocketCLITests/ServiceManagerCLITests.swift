import CTestSupport
import Foundation
import RocketTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `rocket serve` under a service manager, as systemd starts it: a socket passed as descriptor 3
/// (`LISTEN_FDS`, `LISTEN_PID`) and messages to `NOTIFY_SOCKET`.
@Suite("rocket serve under systemd: socket activation and notifications")
struct ServiceManagerCLITests {
    /// `rocket ARGS` started as systemd starts a service: `socket` (when not -1) as descriptor 3
    /// with `LISTEN_FDS=1` and `LISTEN_PID` its own pid (set by a shell that then execs it), with
    /// `environment` added; its pid and the read end of its stdout. Stderr goes to `errors`.
    func spawn(_ args: [String], socket: Int32, environment: [String: String], errors: String) throws -> (pid: pid_t, stdout: Int32) {
        var ends: [Int32] = [0, 0]
        try #require(rocket_test_pipe(&ends) == 0)
        let errorFile = open(errors, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        try #require(errorFile >= 0)
        // Out of the way of descriptor 3, which dup2 then gives the socket (cleared of close-on-exec).
        let high = socket >= 0 ? fcntl(socket, F_DUPFD_CLOEXEC, 50) : -1
        defer {
            close(ends[1])
            close(errorFile)
            if high >= 0 { close(high) }
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, ends[1], 1)
        posix_spawn_file_actions_adddup2(&actions, errorFile, 2)
        if high >= 0 { posix_spawn_file_actions_adddup2(&actions, high, 3) }
        var env = ProcessInfo.processInfo.environment
        for name in ["NOTIFY_SOCKET", "WATCHDOG_USEC", "WATCHDOG_PID", "LISTEN_FDS", "LISTEN_PID", "LISTEN_FDNAMES"] { env.removeValue(forKey: name) }
        if socket >= 0 { env["LISTEN_FDS"] = "1" }
        for (k, v) in environment { env[k] = v }
        let script = socket >= 0 ? #"LISTEN_PID=$$ exec "$@""# : #"exec "$@""#
        let argv = ["/bin/sh", "-c", script, "sh", rocketPath] + args
        let envp = env.map { "\($0.key)=\($0.value)" }
        var pid: pid_t = 0
        let rc = argv.withCStringArray { a in envp.withCStringArray { e in posix_spawn(&pid, "/bin/sh", &actions, nil, a, e) } }
        try #require(rc == 0)
        return (pid, ends[0])
    }

    /// The first line `fd` gives (the URL rocket serve prints), then `fd` is closed.
    func firstLine(_ fd: Int32) -> String {
        defer { close(fd) }
        var line: [UInt8] = []
        var byte: UInt8 = 0
        while read(fd, &byte, 1) == 1, byte != 0x0A { line.append(byte) }
        return String(decoding: line, as: UTF8.self)
    }

    func exitStatus(_ pid: pid_t) -> Int32 {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        return (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
    }

    @Test("a socket systemd passed is served (its port, not --port's default); ready, reloading and stopping are told, and the watchdog pinged")
    func activated() throws {
        let dir = scratchDirectory()
        let receiver = try #require(NotifyReceiver(path: dir + "/notify"))
        let socket = listeningSocket("127.0.0.1")
        try #require(socket >= 0)
        defer { close(socket) }
        let port = boundPort(socket)
        let (pid, out) = try spawn(
            ["serve", "--insecure-dev", "--store", dir + "/s.sqlite"], socket: socket,
            environment: ["NOTIFY_SOCKET": receiver.path, "WATCHDOG_USEC": "1000000"], errors: dir + "/err")
        #expect(firstLine(out) == "http://127.0.0.1:\(port)/")
        #expect(receiver.first { $0.hasPrefix("READY=1") } == "READY=1\nSTATUS=Serving at http://127.0.0.1:\(port)/")
        #expect(RawClient.get(port: port, "/healthz").hasPrefix("HTTP/1.1 200"))
        #expect(receiver.first { $0 == "WATCHDOG=1" } != nil)
        kill(pid, SIGHUP)
        #expect(receiver.first { $0.hasPrefix("RELOADING=1\nMONOTONIC_USEC=") } != nil)
        #expect(receiver.first { $0.hasPrefix("READY=1") }?.hasSuffix("; 0 site key(s) loaded") == true)
        kill(pid, SIGTERM)
        #expect(receiver.first { $0.hasPrefix("STOPPING=1") } != nil)
        #expect(exitStatus(pid) == 0)
        let said = (try? String(contentsOfFile: dir + "/err", encoding: .utf8)) ?? ""
        #expect(said.contains("listening on http://127.0.0.1:\(port)/"), "\(said)")
    }

    @Test(
        "what cannot be served is refused, named: two sockets, --port beside a socket, a socket that does not listen; LISTEN_PID of another process is not ours"
    )
    func refused() throws {
        let dir = scratchDirectory()
        let socket = listeningSocket("127.0.0.1")
        try #require(socket >= 0)
        defer { close(socket) }
        let store = ["--insecure-dev", "--store", dir + "/s.sqlite"]
        func run(_ args: [String], socket: Int32, _ environment: [String: String] = [:]) throws -> (status: Int32, stdout: String, stderr: String) {
            let (pid, out) = try spawn(["serve"] + args, socket: socket, environment: environment, errors: dir + "/err")
            let line = firstLine(out)
            // A server that started is stopped at once.
            if !line.isEmpty { kill(pid, SIGTERM) }
            return (exitStatus(pid), line, (try? String(contentsOfFile: dir + "/err", encoding: .utf8)) ?? "")
        }
        let two = try run(store, socket: socket, ["LISTEN_FDS": "2"])
        #expect(two.status == 64 && two.stderr.contains("passed 2 sockets (LISTEN_FDS)"), "\(two.stderr)")
        let port = try run(store + ["--port", "9"], socket: socket)
        #expect(port.status == 64 && port.stderr.contains("--host and --port cannot go with a socket"), "\(port.stderr)")
        let idle = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(idle) }
        let notListening = try run(store, socket: idle)
        #expect(
            notListening.status == 69 && notListening.stderr.contains("the socket the service manager passed: socket 3 is no stream socket that listens"),
            "\(notListening.stderr)")
        // Variables inherited from a parent that was activated: not ours, so --port is used.
        let inherited = try run(store + ["--port", "0"], socket: -1, ["LISTEN_FDS": "1", "LISTEN_PID": "1"])
        #expect(inherited.status == 0 && inherited.stdout.hasPrefix("http://127.0.0.1:"), "\(inherited.stderr)")
    }
}

extension Array where Element == String {
    /// Runs `body` with the strings as a NULL-ended array of C strings.
    func withCStringArray<R>(_ body: ([UnsafeMutablePointer<CChar>?]) -> R) -> R {
        var pointers: [UnsafeMutablePointer<CChar>?] = map { strdup($0) }
        pointers.append(nil)
        defer { for p in pointers { free(p) } }
        return body(pointers)
    }
}
