#if canImport(Glibc)
    import Glibc
#endif

/// A raw HTTP/1.1 client over a loopback socket: what a browser or curl sends, byte for byte.
public final class RawClient {
    let fd: Int32
    /// Everything received so far.
    public var received: [UInt8] = []
    /// True once a read found the connection closed (or failed).
    public private(set) var closed = false

    /// A connection to 127.0.0.1:`port`, or nil when none could be made.
    public init?(port: Int) {
        // Close-on-exec: no child process of another test holds a copy of it.
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return nil }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = in_port_t(UInt16(port).bigEndian)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        let rc = withUnsafePointer(to: &addr) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard rc == 0 else {
            close(fd)
            return nil
        }
    }

    deinit { close(fd) }

    /// Sends `text` as it is.
    public func send(_ text: String) { send(Array(text.utf8)) }

    /// Sends `bytes` as they are.
    public func send(_ bytes: [UInt8]) {
        var off = 0
        while off < bytes.count {
            let n = bytes[off...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { return }
            off += n
        }
    }

    /// Reads until `done` holds for what was received, the peer closes, or `timeout` passes.
    @discardableResult
    public func read(timeout: Double = 10, until done: (String) -> Bool = { _ in false }) -> String {
        let end = Self.now() + timeout
        var buffer = [UInt8](repeating: 0, count: 65536)
        while Self.now() < end {
            if done(text) { break }
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&p, 1, 100) > 0 else { continue }
            let n = recv(fd, &buffer, buffer.count, 0)
            if n <= 0 {
                closed = true
                break
            }
            received += buffer[..<n]
        }
        return text
    }

    /// What was received, as text.
    public var text: String { String(decoding: received, as: UTF8.self) }

    static func now() -> Double {
        var t = timespec()
        clock_gettime(CLOCK_MONOTONIC, &t)
        return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
    }

    /// One request with `Connection: close`; the whole response.
    public static func exchange(port: Int, _ request: String) -> String {
        guard let c = RawClient(port: port) else { return "" }
        c.send(request)
        return c.read()
    }

    /// The whole response to `GET target` with `headers` (each line ending in CRLF) added, on a
    /// connection of its own.
    public static func get(port: Int, _ target: String, headers: String = "") -> String {
        exchange(port: port, "GET \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\n\(headers)Connection: close\r\n\r\n")
    }
}

/// A POST of JSON `body` to `path` with `Connection: close`, as `visitor` when given: the text
/// to hand ``RawClient/exchange(port:_:)``.
public func post(_ path: String, _ body: String, visitor: String? = nil) -> String {
    var r = "POST \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n"
    if let visitor { r += "Rocket-Visitor: \(visitor)\r\n" }
    return r + "\r\n" + body
}
