#if canImport(Glibc)
    import Glibc
#endif

/// The receiving end of a service manager's notification socket (what systemd binds and names in
/// `NOTIFY_SOCKET`): a datagram socket at `path` whose messages a test reads one by one.
public final class NotifyReceiver {
    let fd: Int32
    /// The socket's path, for `NOTIFY_SOCKET`.
    public let path: String

    /// A socket bound at `path` (which must not exist), or nil when none could be made.
    public init?(path: String) {
        self.path = path
        fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0, path.utf8.count < 108 else { return nil }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { room in
            for (i, b) in path.utf8.enumerated() { room[i] = b }
        }
        let rc = withUnsafePointer(to: &address) { a in
            a.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard rc == 0 else {
            close(fd)
            return nil
        }
    }

    deinit {
        close(fd)
        unlink(path)
    }

    /// The next message, or nil when none came within `timeout` seconds.
    public func next(timeout: Double = 10) -> String? {
        var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&p, 1, Int32(timeout * 1_000)) > 0 else { return nil }
        var buffer = [UInt8](repeating: 0, count: 4096)
        let n = recv(fd, &buffer, buffer.count, 0)
        return n < 0 ? nil : String(decoding: buffer[..<n], as: UTF8.self)
    }

    /// Messages until one satisfies `wanted` (which is returned), skipping the others; nil when
    /// none did within `timeout` seconds in all.
    public func first(timeout: Double = 10, where wanted: (String) -> Bool) -> String? {
        let end = RawClient.now() + timeout
        while RawClient.now() < end {
            guard let m = next(timeout: max(0.01, end - RawClient.now())) else { return nil }
            if wanted(m) { return m }
        }
        return nil
    }
}

/// A TCP socket listening on `host` (an IPv4 or IPv6 literal) at a free port, as a service
/// manager makes one for socket activation; -1 when none could be made. Not closed on exec.
public func listeningSocket(_ host: String) -> Int32 {
    let v6 = host.contains(":")
    let fd = socket(v6 ? AF_INET6 : AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { return -1 }
    var rc: Int32
    if v6 {
        var a = sockaddr_in6()
        a.sin6_family = sa_family_t(AF_INET6)
        _ = inet_pton(AF_INET6, host, &a.sin6_addr)
        rc = withUnsafePointer(to: &a) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) } }
    } else {
        var a = sockaddr_in()
        a.sin_family = sa_family_t(AF_INET)
        a.sin_addr.s_addr = inet_addr(host)
        rc = withUnsafePointer(to: &a) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
    }
    guard rc == 0, listen(fd, 64) == 0 else {
        close(fd)
        return -1
    }
    return fd
}

/// The port socket `fd` is bound to (0 when it cannot be read).
public func boundPort(_ fd: Int32) -> Int {
    var a = sockaddr_storage()
    var size = socklen_t(MemoryLayout<sockaddr_storage>.size)
    let rc = withUnsafeMutablePointer(to: &a) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &size) } }
    guard rc == 0 else { return 0 }
    let family = Int(a.ss_family)
    return withUnsafePointer(to: &a) { p in
        family == Int(AF_INET6)
            ? p.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin6_port)) }
            : p.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin_port)) }
    }
}
