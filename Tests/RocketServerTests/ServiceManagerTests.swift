import Foundation
import RocketPlatform
import RocketTestSupport
import Synchronization
import Testing

@testable import RocketServer

#if canImport(Glibc)
    import Glibc
#endif

/// What a service manager (systemd) sets and hears: its variables read, its messages sent, a
/// socket it passed listened on, and what `rocket serve` tells it as it runs.
@Suite("A service manager: notifications, the watchdog, a passed socket")
struct ServiceManagerTests {
    @Test("the variables a manager sets are read as meant for this process, or not at all")
    func variables() throws {
        let me: Int32 = 4242
        let m = ServiceManager(environment: ["NOTIFY_SOCKET": "/run/systemd/notify", "WATCHDOG_USEC": "3000000"], pid: me)
        #expect(m.notifySocket == "/run/systemd/notify" && m.present)
        #expect(m.watchdogInterval == 3)
        #expect(ServiceManager(environment: ["NOTIFY_SOCKET": "@abstract"], pid: me).notifySocket == "@abstract")
        // A relative path, an empty value, a path too long for a socket address: no manager.
        for socket in ["notify", "", "/" + String(repeating: "x", count: 120)] {
            #expect(ServiceManager(environment: ["NOTIFY_SOCKET": socket], pid: me).present == false, "\(socket.prefix(10))")
        }
        // The watchdog is this process's only when WATCHDOG_PID is absent or names it.
        #expect(ServiceManager(environment: ["WATCHDOG_USEC": "500000", "WATCHDOG_PID": "4242"], pid: me).watchdogInterval == 0.5)
        #expect(ServiceManager(environment: ["WATCHDOG_USEC": "500000", "WATCHDOG_PID": "1"], pid: me).watchdogInterval == nil)
        for usec in ["0", "-5", "x", "99999999999999999999"] {
            #expect(ServiceManager(environment: ["WATCHDOG_USEC": usec], pid: me).watchdogInterval == nil, "\(usec)")
        }
        // Sockets: from descriptor 3 on, only when LISTEN_PID names this process.
        #expect(try ServiceManager.passedSockets(environment: ["LISTEN_FDS": "2", "LISTEN_PID": "4242"], pid: me).get() == [3, 4])
        #expect(try ServiceManager.passedSockets(environment: ["LISTEN_FDS": "2", "LISTEN_PID": "17"], pid: me).get() == [])
        #expect(try ServiceManager.passedSockets(environment: ["LISTEN_FDS": "1"], pid: me).get() == [])
        #expect(try ServiceManager.passedSockets(environment: [:], pid: me).get() == [])
        for bad in ["x", "-1", "100000"] {
            guard case .failure(let e) = ServiceManager.passedSockets(environment: ["LISTEN_FDS": bad, "LISTEN_PID": "4242"], pid: me) else {
                Issue.record("LISTEN_FDS=\(bad) was taken")
                continue
            }
            #expect(e.message.contains("LISTEN_FDS"))
        }
    }

    @Test("a message reaches the manager's socket whole, one datagram, a value's line ends made spaces; no manager, no message")
    func notify() throws {
        let path = scratchDirectory() + "/notify"
        let receiver = try #require(NotifyReceiver(path: path))
        let m = ServiceManager(environment: ["NOTIFY_SOCKET": path], pid: getpid())
        #expect(m.notify([("READY", "1"), ("STATUS", "two\nlines\r")]))
        #expect(receiver.next() == "READY=1\nSTATUS=two lines ")
        #expect(!ServiceManager(environment: [:], pid: getpid()).notify([("READY", "1")]))
        // A socket gone: said false, nothing thrown.
        #expect(!ServiceManager(environment: ["NOTIFY_SOCKET": path + "-gone"], pid: getpid()).notify([("READY", "1")]))
        // A receiver that never reads: its queue fills, and a message then is dropped at once
        // (false), never waited on; the server's ticker sends them.
        var refused = 0
        for _ in 0..<10_000 where refused == 0 {
            if !m.notify([("WATCHDOG", "1")]) { refused += 1 }
        }
        #expect(refused == 1)
    }

    @Test("a listening socket passed in is served: its address and port are the server's; a descriptor of another kind is refused, named")
    func passedSocket() throws {
        let h = try Harness()
        for host in ["127.0.0.1", "::1"] {
            let fd = listeningSocket(host)
            try #require(fd >= 0)
            let server = HTTPServer(service: h.service)
            let (address, port) = try server.start(passedSocket: fd)
            #expect(address == host)
            #expect(port == boundPort(fd) && port > 0)
            if host == "127.0.0.1" {
                #expect(RawClient.get(port: port, "/healthz").hasPrefix("HTTP/1.1 200"))
            }
            // The server took the socket as its own: non-blocking, closed on exec.
            #expect(fcntl(fd, F_GETFL) & O_NONBLOCK != 0)
            #expect(fcntl(fd, F_GETFD) & FD_CLOEXEC != 0)
            server.stop()
        }
        // A TCP socket that does not listen, a datagram socket, a pipe, a closed number.
        let idle = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        let datagram = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        var ends: [Int32] = [0, 0]
        try #require(pipe(&ends) == 0)
        defer { for fd in [idle, datagram, ends[0], ends[1]] { close(fd) } }
        for (fd, said) in [(idle, "listens"), (datagram, "listens"), (ends[0], "no socket"), (Int32(9_999), "not open")] {
            let server = HTTPServer(service: h.service)
            #expect(throws: HTTPServer.Failure.self, "descriptor \(fd)") { _ = try server.start(passedSocket: fd) }
            do throws(HTTPServer.Failure) {
                _ = try server.start(passedSocket: fd)
            } catch {
                #expect(error.message.contains(said), "\(error.message)")
            }
        }
    }

    @Test("rocket serve's link: ready with its address, the watchdog's pings at half its interval, the store's failure and recovery said")
    func link() throws {
        let path = scratchDirectory() + "/notify"
        let receiver = try #require(NotifyReceiver(path: path))
        let flows = scratchDirectory()
        try DurabilityTests.loop.write(toFile: flows + "/loop.json", atomically: true, encoding: .utf8)
        let h = try Harness(flowsDirectory: flows)
        // No manager: nothing to beat for.
        #expect(ServiceManagerLink(ServiceManager(environment: [:], pid: getpid()), service: h.service).heartbeat == nil)
        #expect(ServiceManagerLink(ServiceManager(environment: ["NOTIFY_SOCKET": path], pid: getpid()), service: h.service).heartbeat?.every == 1)
        let manager = ServiceManager(environment: ["NOTIFY_SOCKET": path, "WATCHDOG_USEC": "400000"], pid: getpid())
        let link = ServiceManagerLink(manager, service: h.service)
        let heartbeat = try #require(link.heartbeat)
        #expect(heartbeat.every == 0.2)
        let server = HTTPServer(service: h.service, heartbeat: heartbeat)
        let port = try server.start(host: "127.0.0.1", port: 0)
        defer { server.stop() }
        link.ready(url: "http://127.0.0.1:\(port)/")
        #expect(receiver.first { $0.hasPrefix("READY=1") } == "READY=1\nSTATUS=Serving at http://127.0.0.1:\(port)/")
        // The ticker pings while it runs.
        #expect(receiver.first { $0 == "WATCHDOG=1" } != nil)
        #expect(receiver.first { $0 == "WATCHDOG=1" } != nil)
        // The disk fills: a write is refused, and the next beat says so; room again, and it says
        // the server serves.
        let id = try h.start("loop")
        try #require(h.service.archive as? ConversationArchive).limitPages(1)
        var failing: String?
        for _ in 0..<100 where failing == nil {
            _ = RawClient.exchange(port: port, post("/v1/conversations/\(id)/intents", #"{"intent": "tap"}"#, visitor: "ada"))
            failing = receiver.first(timeout: 0.5) { $0.contains("STATUS=") }
        }
        #expect(failing == "WATCHDOG=1\nSTATUS=\(ServiceManagerLink.failingStatus)")
        try #require(h.service.archive as? ConversationArchive).limitPages(nil)
        #expect(receiver.first(timeout: 30) { $0.contains("STATUS=") } == "WATCHDOG=1\nSTATUS=Serving at http://127.0.0.1:\(port)/")
        link.reloading()
        let reloading = try #require(receiver.first { $0.hasPrefix("RELOADING=1") })
        let usec = try #require(UInt64(reloading.split(separator: "\n").last?.split(separator: "=").last ?? ""))
        #expect(reloading.hasPrefix("RELOADING=1\nMONOTONIC_USEC=") && usec <= ServiceManager.monotonicMicroseconds)
        link.reloaded("2 site key(s) loaded")
        #expect(receiver.first { $0.hasPrefix("READY=1") } == "READY=1\nSTATUS=Serving at http://127.0.0.1:\(port)/; 2 site key(s) loaded")
        link.stopping()
        #expect(receiver.first { $0.hasPrefix("STOPPING=1") }?.contains("STATUS=Stopping") == true)
    }
}
