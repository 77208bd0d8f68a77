import Foundation
import RocketCore
import RocketTestSupport
import Synchronization
import Testing

@testable import RocketServer

#if canImport(Glibc)
    import Glibc
#endif

/// Event streams once admitted: their sockets leave libmicrohttpd for the server's own loop.
@Suite("Event streams served outside libmicrohttpd")
struct StreamTests {
    @Test("a quiet stream's keep-alives come before an idle connection is closed, and the stream's limits are the table's")
    func keepAliveBeforeIdleClose() {
        #expect(ServerConfiguration().keepAlive < Double(RocketLimits.connectionIdleSeconds))
        #expect(EventStream.maxBacklog == RocketLimits.streamBacklogBytes)
        #expect(EventStream.maxIgnored == RocketLimits.streamIgnoredBytes)
    }

    /// Two ends of a loopback TCP connection with small buffers (the kernel holds a few
    /// kilobytes in flight, not the megabyte or more of a Unix socket pair), the first
    /// non-blocking.
    func tcpPair() throws -> (server: Int32, client: Int32) {
        // Close-on-exec: a process another test starts meanwhile must not hold a copy of either
        // end (the reader would then never see the end of the stream).
        let cloexec = Int32(SOCK_CLOEXEC.rawValue)
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | cloexec, 0)
        defer { close(listener) }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        var size = socklen_t(MemoryLayout<sockaddr_in>.size)
        try withUnsafeMutablePointer(to: &addr) { p in
            try p.withMemoryRebound(to: sockaddr.self, capacity: 1) { a in
                try #require(bind(listener, a, size) == 0 && listen(listener, 1) == 0 && getsockname(listener, a, &size) == 0)
            }
        }
        let client = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | cloexec, 0)
        var small: Int32 = 4_096
        _ = setsockopt(client, SOL_SOCKET, SO_RCVBUF, &small, socklen_t(MemoryLayout<Int32>.size))
        let connected = withUnsafePointer(to: &addr) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(client, $0, size) }
        }
        try #require(connected == 0)
        let server = accept(listener, nil, nil)
        try #require(server >= 0)
        _ = fcntl(server, F_SETFD, FD_CLOEXEC)
        _ = setsockopt(server, SOL_SOCKET, SO_SNDBUF, &small, socklen_t(MemoryLayout<Int32>.size))
        _ = fcntl(server, F_SETFL, fcntl(server, F_GETFL) | O_NONBLOCK)
        return (server, client)
    }

    /// A stream of a new poller over the server's end of ``pair()``, not yet opened; the
    /// client's end. The poller owns the epoll instance: callers keep it alive.
    func adopted() throws -> (poller: StreamPoller, stream: EventStream, client: Int32) {
        let (server, client) = try pair()
        let poller = StreamPoller()
        let stream = try #require(poller.adopt(socket: server, conversation: "c", address: "a"))
        return (poller, stream, client)
    }

    /// Two connected sockets, the first (the server's end) with a small send buffer.
    func pair() throws -> (server: Int32, client: Int32) {
        var fds: [Int32] = [-1, -1]
        try #require(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds) == 0)
        var size: Int32 = 4_096
        _ = setsockopt(fds[0], SOL_SOCKET, SO_SNDBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        _ = fcntl(fds[0], F_SETFL, fcntl(fds[0], F_GETFL) | O_NONBLOCK)
        return (fds[0], fds[1])
    }

    /// Reads the client end until it closes (or 10 s pass): every byte.
    func drain(_ fd: Int32) -> [UInt8] {
        var out: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        var quiet = 0
        while quiet < 100 {
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&p, 1, 100) > 0 else {
                quiet += 1
                continue
            }
            let n = recv(fd, &buffer, buffer.count, 0)
            if n <= 0 { break }
            out += buffer[..<n]
        }
        return out
    }

    @Test("bytes appended before the stream opens wait behind its head; what the socket cannot take now goes when it has room, in order")
    func order() throws {
        let (poller, stream, client) = try adopted()
        defer { close(client) }
        #expect(!stream.append(Array("early\n".utf8)))
        #expect(!stream.open(head: Array("HEAD\n".utf8)))
        // Far more than the socket's buffer: most of it waits for the loop's "writable".
        var expected = Array("HEAD\nearly\n".utf8)
        for k in 0..<200 {
            let frame = Array("frame \(k) ".utf8) + [UInt8](repeating: 0x61, count: 1_000) + [0x0A]
            expected += frame
            #expect(!stream.append(frame))
        }
        #expect(!stream.finish(), "bytes are still waiting: the stream ends once they are sent")
        let stop = loop(poller)
        let got = drain(client)
        stop()
        #expect(got.count == expected.count)
        #expect(got == expected)
        #expect(!stream.hangUp(), "it ended already, once")
    }

    @Test("4 MB of frames to a client that keeps reading arrive whole and in order (sent bytes are let go as more come)")
    func longStream() throws {
        let (server, client) = try tcpPair()
        defer { close(client) }
        let poller = StreamPoller()
        let stream = try #require(poller.adopt(socket: server, conversation: "c", address: "a"))
        #expect(!stream.open(head: Array("HEAD\n".utf8)))
        let stop = loop(poller)
        let got = Mutex<[UInt8]>([])
        let done = DispatchSemaphore(value: 0), go = DispatchSemaphore(value: 0)
        Thread {
            // The reader starts late and stays behind: bytes wait in the stream's buffer while
            // what was sent before them piles up, and is let go.
            go.wait()
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while true {
                let n = recv(client, &buffer, buffer.count, 0)
                if n <= 0 { break }
                got.withLock { $0 += buffer[..<n] }
            }
            done.signal()
        }.start()
        var expected = Array("HEAD\n".utf8)
        var cut = false
        for k in 0..<4_000 where !cut {
            let frame = Array("frame \(k) ".utf8) + [UInt8](repeating: UInt8(0x61 + k % 26), count: 1_000) + [0x0A]
            expected += frame
            cut = stream.append(frame)
            if k == 400 { go.signal() }
            // Paced by the reader (never by the clock): what waits stays below the cap. A
            // reader that stops getting bytes (a broken stream) ends the pacing after 10 s.
            for _ in 0..<20_000 where k >= 400 && expected.count - got.withLock({ $0.count }) > 512 << 10 { usleep(500) }
        }
        #expect(!cut)
        _ = stream.finish()  // ends it now, or once the rest is sent
        if done.wait(timeout: .now() + 20) == .timedOut {
            _ = stream.hangUp()  // a broken stream: the reader sees its end
            #expect(done.wait(timeout: .now() + 20) == .success, "the reader never saw the end of the stream")
            shutdown(client, Int32(SHUT_RDWR))  // so the reader ends whatever happened
            done.wait()
        }
        stop()
        let received = got.withLock { $0 }
        #expect(received.count == expected.count)
        #expect(received == expected)
    }

    @Test("a client that reads nothing is cut off once a mebibyte waits for it, and the call that cut it off says so once")
    func backlog() throws {
        let (poller, stream, client) = try adopted()
        defer {
            close(client)
            withExtendedLifetime(poller) {}
        }
        #expect(!stream.open(head: []))
        let chunk = [UInt8](repeating: 0x62, count: 64 * 1_024)
        var ends = 0
        var appended = 0
        for _ in 0..<200 {
            if stream.append(chunk) { ends += 1 } else if ends == 0 { appended += chunk.count }
        }
        #expect(ends == 1)
        // What the socket took reaches the client, then the end; what was left waiting when the
        // client was cut off was at most the cap (and within one chunk of it).
        let received = drain(client).count
        let waiting = appended - received
        #expect(waiting <= EventStream.maxBacklog)
        #expect(waiting > EventStream.maxBacklog - chunk.count)
    }

    @Test("a client that keeps sending on its stream is cut off past 64 KiB; a little is read and dropped")
    func chatter() throws {
        let (poller, stream, client) = try adopted()
        defer {
            close(client)
            withExtendedLifetime(poller) {}
        }
        #expect(!stream.open(head: Array("HEAD\n".utf8)))
        var bytes = [UInt8](repeating: 0x7A, count: 1_000)
        #expect(send(client, &bytes, bytes.count, Int32(MSG_NOSIGNAL)) == 1_000)
        #expect(!stream.readable(), "a kilobyte is dropped")
        #expect(!stream.append(Array("still here\n".utf8)))
        var ended = false
        for _ in 0..<100 where !ended {
            bytes = [UInt8](repeating: 0x7A, count: 8_192)
            _ = send(client, &bytes, bytes.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT))
            ended = stream.readable()
        }
        #expect(ended)
        #expect(String(decoding: drain(client), as: UTF8.self) == "HEAD\nstill here\n")
    }

    @Test("a client that hangs up is noticed by the loop at once, and the stream ends once")
    func hangUp() throws {
        let (poller, stream, client) = try adopted()
        #expect(!stream.open(head: Array("HEAD\n".utf8)))
        let box = EndedBox(poller: poller)
        let stop = box.start()
        close(client)
        for _ in 0..<500 where box.count == 0 { usleep(10_000) }
        stop()
        #expect(box.count == 1)
        #expect(!stream.append(Array("late".utf8)), "an ended stream takes nothing and ends no more")
        #expect(poller.all.count == 1, "the loop reports; forgetting is its caller's (HTTPServer.forget)")
        poller.remove(stream)
        #expect(poller.all.isEmpty)
    }

    /// The poller's loop on a thread, counting the streams it saw end.
    final class EndedBox: @unchecked Sendable {
        let poller: StreamPoller
        private let counter = Mutex<Int>(0)
        private let stopFlag = Mutex<Bool>(false)
        init(poller: StreamPoller) { self.poller = poller }
        var count: Int { counter.withLock { $0 } }
        func start() -> () -> Void {
            var thread = pthread_t()
            _ = pthread_create(
                &thread, nil,
                { raw in
                    let box = Unmanaged<EndedBox>.fromOpaque(raw!).takeRetainedValue()
                    box.poller.run(stopping: { box.stopFlag.withLock { $0 } }, ended: { _ in box.counter.withLock { $0 += 1 } })
                    return nil
                }, Unmanaged.passRetained(self).toOpaque())
            return { [self] in
                stopFlag.withLock { $0 = true }
                pthread_join(thread, nil)
            }
        }
    }

    /// Runs `poller`'s loop until the returned closure is called.
    func loop(_ poller: StreamPoller) -> () -> Void {
        EndedBox(poller: poller).start()
    }

    @Test(
        "over HTTP: an admitted stream holds no libmicrohttpd connection, its head closes the connection at its end, and a change still reaches it"
    )
    func overHTTP() throws {
        let h = try Harness { $0.keepAlive = 3_600 }
        let (server, port) = try h.serve()
        defer { server.stop() }
        let id = try h.start()
        let stream = try #require(RawClient(port: port))
        stream.send("GET /v1/conversations/\(id)/events HTTP/1.1\r\nHost: 127.0.0.1\r\nRocket-Visitor: ada\r\n\r\n")
        let head = stream.read { $0.contains("event: state") }
        #expect(head.hasPrefix("HTTP/1.1 200 OK\r\n"))
        #expect(head.contains("\r\nConnection: close\r\n"))
        #expect(head.contains("\r\nX-Content-Type-Options: nosniff\r\n"))
        #expect(head.contains("\r\nContent-Type: text/event-stream"))
        #expect(!head.contains("Transfer-Encoding"))
        for _ in 0..<500 where server.openConnections > 0 { usleep(10_000) }
        #expect(server.openConnections == 0, "the library let go of the stream's connection")
        #expect(server.openStreams == 1)
        // A change still reaches it.
        let tapped = RawClient.exchange(port: port, post("/v1/conversations/\(id)/intents", #"{"intent": "tap", "step": 0}"#, visitor: "ada"))
        #expect(tapped.hasPrefix("HTTP/1.1 200"))
        #expect(stream.read { $0.contains("\"step\":1") }.contains("\"step\":1"))
        withExtendedLifetime(stream) {}
    }

    @Test("over HTTP: a closed stream gives its place back without waiting for a keep-alive")
    func hangUpOverHTTP() throws {
        let h = try Harness { $0.keepAlive = 3_600 }
        let (server, port) = try h.serve()
        defer { server.stop() }
        let id = try h.start()
        var stream = RawClient(port: port)
        stream?.send("GET /v1/conversations/\(id)/events HTTP/1.1\r\nHost: 127.0.0.1\r\nRocket-Visitor: ada\r\n\r\n")
        #expect(stream?.read { $0.contains("event: state") }.hasPrefix("HTTP/1.1 200") == true)
        #expect(server.openStreams == 1)
        stream = nil  // closes the socket
        for _ in 0..<500 where server.openStreams > 0 { usleep(10_000) }
        #expect(server.openStreams == 0)
    }

    @Test("over HTTP: past the most streams a server holds, a stream is 503 too-many-streams with a Retry-After pages wait out")
    func full() throws {
        let h = try Harness {
            $0.keepAlive = 3_600
            $0.maxStreams = 1
        }
        let (server, port) = try h.serve()
        defer { server.stop() }
        let id = try h.start()
        let request = "GET /v1/conversations/\(id)/events HTTP/1.1\r\nHost: 127.0.0.1\r\nRocket-Visitor: ada\r\n\r\n"
        let first = try #require(RawClient(port: port))
        first.send(request)
        #expect(first.read { $0.contains("event: state") }.hasPrefix("HTTP/1.1 200"))
        let second = try #require(RawClient(port: port))
        second.send(request)
        let refused = second.read(timeout: 10)
        #expect(refused.hasPrefix("HTTP/1.1 503") && refused.contains("too-many-streams"), "\(refused)")
        #expect(refused.contains("\r\nRetry-After: 10\r\n"), "\(refused)")
        withExtendedLifetime(first) {}
    }

    @Test("an HTTP date in the fixed form, whatever the locale")
    func date() {
        #expect(HTTPServer.httpDate(0) == "Thu, 01 Jan 1970 00:00:00 GMT")
        #expect(HTTPServer.httpDate(1_796_400_000) == "Fri, 04 Dec 2026 16:00:00 GMT")
        let head = String(decoding: HTTPServer.streamHead(HTTPResponse.eventStream("x", first: []), now: 0), as: UTF8.self)
        #expect(
            head
                == "HTTP/1.1 200 OK\r\nDate: Thu, 01 Jan 1970 00:00:00 GMT\r\nContent-Type: text/event-stream; charset=utf-8\r\nCache-Control: no-store\r\nX-Accel-Buffering: no\r\nX-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\n"
        )
    }
}
