#if canImport(Glibc)
    import Glibc
#endif

/// What a service manager such as systemd asks of a service, read from the variables it sets,
/// and the messages a service sends it (`sd_notify`'s protocol: lines `NAME=VALUE` in one datagram
/// to the Unix socket `NOTIFY_SOCKET` names). With no manager (no variables) every message is
/// nothing, so a service started by hand behaves as before.
package struct ServiceManager: Sendable {
    /// The socket messages go to: a path, or a name in the abstract namespace (written `@name`).
    package let notifySocket: String?
    /// How often the manager expects a `WATCHDOG=1`, in seconds (`WATCHDOG_USEC`, when
    /// `WATCHDOG_PID` is absent or names this process); nil when it expects none.
    package let watchdogInterval: Double?

    /// What the variables in `environment` ask of process `pid`.
    package init(environment: [String: String], pid: Int32) {
        let socket = environment["NOTIFY_SOCKET"] ?? ""
        // A path or an abstract name, as `sockaddr_un` holds it (108 bytes with the NUL).
        notifySocket = (socket.hasPrefix("/") || socket.hasPrefix("@")) && socket.utf8.count < 108 ? socket : nil
        let forUs = environment["WATCHDOG_PID"].map { Int32($0) == pid } ?? true
        if forUs, let text = environment["WATCHDOG_USEC"], let usec = UInt64(text), usec > 0, usec <= 1 << 52 {
            watchdogInterval = Double(usec) / 1_000_000
        } else {
            watchdogInterval = nil
        }
    }

    /// This process's manager, from its environment.
    package static var current: ServiceManager { ServiceManager(environment: Environment.current, pid: getpid()) }

    /// Whether a manager listens for messages.
    package var present: Bool { notifySocket != nil }

    /// Sends `fields` (`READY=1`, `STATUS=…`) as one message; false when there is no manager or
    /// it could not be told (the manager's socket gone, or its queue full: a service goes on
    /// without it, and never waits for it). A value's line ends become spaces, so no value adds a
    /// field.
    @discardableResult
    package func notify(_ fields: [(String, String)]) -> Bool {
        guard let path = notifySocket else { return false }
        let text = fields.map { name, value in
            let flat = String(String.UnicodeScalarView(value.unicodeScalars.map { $0 == "\n" || $0 == "\r" ? " " : $0 }))
            return "\(name)=\(flat)"
        }.joined(separator: "\n")
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        withUnsafeMutableBytes(of: &address.sun_path) { room in
            for (i, b) in bytes.enumerated() { room[i] = b }
            // An abstract name begins with a NUL where its "@" is written.
            if bytes.first == UInt8(ascii: "@") { room[0] = 0 }
        }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + bytes.count + (bytes.first == UInt8(ascii: "@") ? 0 : 1))
        let payload = Array(text.utf8)
        let sent = withUnsafePointer(to: &address) { a in
            a.withMemoryRebound(to: sockaddr.self, capacity: 1) { sa in
                payload.withUnsafeBytes { sendto(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT), sa, length) }
            }
        }
        return sent == payload.count
    }

    /// The manager's clock (`CLOCK_MONOTONIC`) in microseconds, as `RELOADING=1` wants it beside.
    package static var monotonicMicroseconds: UInt64 {
        var t = timespec()
        clock_gettime(CLOCK_MONOTONIC, &t)
        return UInt64(t.tv_sec) * 1_000_000 + UInt64(t.tv_nsec) / 1_000
    }

    /// Why the sockets a manager passed cannot be taken.
    package struct PassedSocketsFailure: Error, Sendable {
        /// A sentence naming the variable.
        package let message: String
    }

    /// The sockets a manager passed to process `pid` (socket activation: `LISTEN_FDS` of them from
    /// descriptor 3 on, when `LISTEN_PID` names this process); empty when none were. Their numbers
    /// only: whether each is a socket of the kind wanted is for its user to check.
    package static func passedSockets(environment: [String: String], pid: Int32) -> Result<[Int32], PassedSocketsFailure> {
        guard let count = environment["LISTEN_FDS"] else { return .success([]) }
        // Meant for another process (the variables were inherited): not ours to take.
        guard let target = environment["LISTEN_PID"], Int32(target) == pid else { return .success([]) }
        guard let n = Int32(count), n >= 0, n <= 1_000 else {
            return .failure(PassedSocketsFailure(message: "LISTEN_FDS='\(count.prefix(20))' is no number of sockets"))
        }
        return .success((0..<n).map { 3 + $0 })
    }

    /// Takes the socket variables out of this process's environment, so a program it starts does
    /// not take the sockets for its own (as `sd_listen_fds(1)` does).
    package static func forgetPassedSockets() {
        for name in ["LISTEN_PID", "LISTEN_FDS", "LISTEN_FDNAMES"] { unsetenv(name) }
    }
}
