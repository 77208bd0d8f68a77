import Foundation
import RocketConversation
import RocketCore
import RocketScenarioEngine
import RocketScenariosPostgres
import RocketScenariosSQLite
import RocketTestSupport
import Synchronization
import CMicroHTTPD
import Testing

@testable import RocketServer

#if canImport(Glibc)
    import Glibc
#endif

/// One client cannot take the server from the others: limits per client address, whatever
/// visitors it names. Addresses are told apart as a proxy in front would tell them
/// (`--trust-proxy` and `X-Forwarded-For`), so one test process can be many clients.
@Suite("No one client can take it down: limits per client address")
struct FloodTests {
    static let proxy = "127.0.0.1"

    func harness(_ configure: (inout ServerConfiguration) -> Void = { _ in }) throws -> Harness {
        try Harness {
            $0.trustedProxies = [Self.proxy]
            configure(&$0)
        }
    }

    /// A request from client `address` through the trusted proxy.
    func from(_ h: Harness, _ address: String, _ method: String, _ path: String, body: String? = nil, visitor: String) -> HTTPResponse {
        var headers = ["X-Forwarded-For": address, "Rocket-Visitor": visitor]
        if body != nil { headers["Content-Type"] = "application/json" }
        var request = HTTPRequest(method: method, path: path, headers: headers, body: Array((body ?? "").utf8))
        request.peer = Self.proxy
        return h.service.handle(request)
    }

    @Test("rotating visitor ids does not get around the rate: the address is limited, and another address is still served")
    func rotatedIDs() throws {
        let h = try harness {
            $0.addressRequestBurst = 20
            $0.addressRequestsPerSecond = 1
        }
        var statuses: [Int] = []
        for k in 0..<40 {
            statuses.append(from(h, "203.0.113.7", "POST", "/v1/conversations", body: #"{"flow": "basic"}"#, visitor: "v\(k)").status)
        }
        #expect(statuses.filter { $0 == 201 }.count == 20)
        #expect(statuses.suffix(20).allSatisfy { $0 == 429 })
        #expect(from(h, "198.51.100.2", "POST", "/v1/conversations", body: #"{"flow": "basic"}"#, visitor: "ada").status == 201)
        // The bucket refills with time.
        h.clock.advance(by: 2)
        #expect(from(h, "203.0.113.7", "POST", "/v1/conversations", body: #"{"flow": "basic"}"#, visitor: "v99").status == 201)
    }

    @Test("a trusted network of proxies (--trust-proxy 10.0.0.0/8): any of its addresses names the client; a peer outside it does not")
    func trustedNetwork() throws {
        let h = try Harness {
            $0.trustedNetworks = [try! #require(AddressNetwork("10.0.0.0/8"))]
            $0.addressRequestBurst = 3
            $0.addressRequestsPerSecond = 0.01
        }
        func start(peer: String, client: String, _ k: Int) -> Int {
            var request = HTTPRequest(
                method: "POST", path: "/v1/conversations",
                headers: ["X-Forwarded-For": client, "Rocket-Visitor": "v\(k)", "Content-Type": "application/json"], body: Array(#"{"flow": "basic"}"#.utf8))
            request.peer = peer
            return h.service.handle(request).status
        }
        // Two proxies of the pool: the client they name is limited, whichever proxy it came through.
        #expect((0..<3).map { start(peer: $0 % 2 == 0 ? "10.1.2.3" : "10.200.0.9", client: "203.0.113.7", $0) } == [201, 201, 201])
        #expect(start(peer: "10.9.9.9", client: "203.0.113.7", 3) == 429)
        #expect(start(peer: "10.9.9.9", client: "198.51.100.2", 4) == 201)
        // Outside the pool, X-Forwarded-For is the client's word: the peer itself is counted.
        #expect((5..<8).map { start(peer: "192.0.2.1", client: "198.51.100.\($0)", $0) } == [201, 201, 201])
        #expect(start(peer: "192.0.2.1", client: "198.51.100.99", 8) == 429)
    }

    @Test("networks: IPv4 and IPv6 prefixes, an IPv4 address written in IPv6, bits past the prefix; what is no network")
    func networks() throws {
        let ten = try #require(AddressNetwork("10.0.0.0/8"))
        #expect(ten.contains("10.255.1.2") && !ten.contains("11.0.0.1") && ten.contains("::ffff:10.0.0.1") && !ten.contains("fd00::1"))
        let odd = try #require(AddressNetwork("192.168.1.77/26"))
        #expect(odd.contains("192.168.1.64") && odd.contains("192.168.1.127") && !odd.contains("192.168.1.128") && !odd.contains("192.168.1.63"))
        let v6 = try #require(AddressNetwork("fd00:1::/32"))
        #expect(v6.contains("fd00:1:ffff::5") && !v6.contains("fd00:2::5") && !v6.contains("10.0.0.1"))
        #expect(try #require(AddressNetwork("10.1.2.3")).contains("10.1.2.3") && !(try #require(AddressNetwork("10.1.2.3")).contains("10.1.2.4")))
        #expect(try #require(AddressNetwork("0.0.0.0/0")).isEverything)
        for bad in ["10.0.0.0/33", "fd00::/129", "x/8", "10.0.0.0/", "10.0.0.0/-1", "10.0.0.0/8/8", "", "10.0.0.0/0008"] {
            #expect(AddressNetwork(bad) == nil, "\(bad)")
        }
    }

    @Test("the conversation cap: one address fills only its share (429), a second client still starts; alerts the same")
    func capFlood() throws {
        let h = try harness { $0.perAddress = 5 }
        for k in 0..<5 {
            #expect(from(h, "203.0.113.7", "POST", "/v1/conversations", body: #"{"flow": "basic"}"#, visitor: "m\(k)").status == 201)
        }
        let refused = from(h, "203.0.113.7", "POST", "/v1/conversations", body: #"{"flow": "basic"}"#, visitor: "m9")
        #expect(refused.status == 429)
        #expect(refused.json?["error"]?["code"]?.string == "too-many-for-address")
        #expect(refused.header("Retry-After") != nil)
        #expect(from(h, "198.51.100.2", "POST", "/v1/conversations", body: #"{"flow": "basic"}"#, visitor: "ada").status == 201)
        let alert = #"{"actions": [{"title": "OK"}]}"#
        for k in 0..<5 { #expect(from(h, "203.0.113.7", "POST", "/v1/alerts", body: alert, visitor: "m\(k)").status == 201) }
        #expect(from(h, "203.0.113.7", "POST", "/v1/alerts", body: alert, visitor: "m0").status == 429)
        #expect(from(h, "198.51.100.2", "POST", "/v1/alerts", body: alert, visitor: "ada").status == 201)
        // Expired conversations give the address its share back.
        h.clock.advance(by: h.service.configuration.idleTimeout + 61)
        h.service.sweepIfDue(h.clock.now)
        #expect(from(h, "203.0.113.7", "POST", "/v1/conversations", body: #"{"flow": "basic"}"#, visitor: "m9").status == 201)
    }

    @Test(
        "the sweep takes only what expired: a conversation read since stays, each address gets back what it lost, an address with nothing left leaves the table"
    )
    func sweepTakesExpired() throws {
        let h = try harness { $0.perAddress = 5 }
        func start(_ address: String, _ visitor: String) -> String? {
            from(h, address, "POST", "/v1/conversations", body: #"{"flow": "basic"}"#, visitor: visitor).json?["conversation"]?["id"]?.string
        }
        let a = (0..<3).compactMap { start("203.0.113.7", "a\($0)") }
        let b = (0..<2).compactMap { start("198.51.100.2", "b\($0)") }
        #expect(a.count == 3 && b.count == 2)
        let idle = h.service.configuration.idleTimeout
        h.clock.advance(by: idle / 2)
        #expect(from(h, "203.0.113.7", "GET", "/v1/conversations/\(a[0])", visitor: "a0").status == 200)
        h.clock.advance(by: idle / 2 + 61)
        h.service.sweepIfDue(h.clock.now)
        #expect(h.service.count == 1)
        let live = h.service.state.withLock { $0.live }
        #expect(live == ["203.0.113.7": 1], "\(live)")
        #expect(from(h, "203.0.113.7", "GET", "/v1/conversations/\(a[0])", visitor: "a0").status == 200)
        for k in 0..<4 { #expect(start("203.0.113.7", "n\(k)") != nil) }
        #expect(start("203.0.113.7", "n9") == nil, "the address's share is five again, one of them still in use")
    }

    @Test("a play page costs its address a request token (one not kept is made and gzipped again); other pages do not")
    func playPagesRated() throws {
        let h = try harness {
            $0.addressRequestBurst = 3
            $0.addressRequestsPerSecond = 0.001
        }
        let statuses = (0..<4).map { _ in from(h, "203.0.113.7", "GET", "/play/basic", visitor: "v").status }
        #expect(statuses == [200, 200, 200, 429], "\(statuses)")
        // The API shares the address's tokens; another address has its own.
        #expect(from(h, "203.0.113.7", "GET", "/v1/flows", visitor: "v").status == 429)
        #expect(from(h, "198.51.100.2", "GET", "/play/basic", visitor: "v").status == 200)
        // The widget, the index and the health routes stay free (a site's visitors load the widget
        // on every page; a load balancer asks often).
        for path in ["/widget.js", "/", "/healthz", "/readyz"] {
            #expect(from(h, "203.0.113.7", "GET", path, visitor: "v").status == 200, "\(path)")
        }
    }

    @Test("rate buckets of addresses and of visitors are kept apart and leave after a quiet minute")
    func quietBucketsLeave() throws {
        let h = try harness { $0.addressRequestBurst = 3 }
        // An address out of tokens is refused whatever visitor it names; another address is not.
        let statuses = (0..<4).map { from(h, "203.0.113.7", "GET", "/v1/conversations/\(String(repeating: "0", count: 32))", visitor: "v\($0)").status }
        #expect(statuses.prefix(3).allSatisfy { $0 != 429 } && statuses[3] == 429, "\(statuses)")
        #expect(from(h, "198.51.100.2", "GET", "/v1/conversations/\(String(repeating: "0", count: 32))", visitor: "v0").status != 429)
        var (addresses, visitors) = h.service.state.withLock { ($0.buckets.count, $0.visitorBuckets.count) }
        #expect(addresses == 2 && visitors == 3, "\(addresses) \(visitors)")
        h.clock.advance(by: 61)
        h.service.sweepIfDue(h.clock.now)
        (addresses, visitors) = h.service.state.withLock { ($0.buckets.count, $0.visitorBuckets.count) }
        #expect(addresses == 0 && visitors == 0)
        #expect(from(h, "203.0.113.7", "GET", "/v1/conversations/\(String(repeating: "0", count: 32))", visitor: "v9").status != 429, "a full bucket again")
    }

    @Test("visitors' scenario rows expire after the retention with nothing in them; store-wide rows stay", arguments: ServerStoreKind.allCases)
    func visitorRowsExpire(kind: ServerStoreKind) throws {
        let h = try Harness(kind) { $0.visitorRetention = 3_600 }
        _ = try h.start("gated", visitor: "ada")
        let store: any VisitorStore & Named = kind == .postgres ? try PostgresScenarioStore(url: h.path) : try SQLiteScenarioStore(path: h.path)
        try store.triggerEvent("store-wide", at: h.clock.now)
        #expect(try store.names().contains("tour@ada"))
        h.clock.advance(by: 1_800)
        h.service.expireStored()
        #expect(try store.names().contains("tour@ada"), "kept within the retention")
        h.clock.advance(by: 1_900)
        h.service.expireStored()
        #expect(try !store.names().contains("tour@ada"))
        #expect(try store.names().contains("store-wide"))
    }

    @Test("a conversation's step holds its own lock only: while one is held (a slow pattern), others are answered, started and read")
    func ownLock() throws {
        let h = try Harness(persistent: false)
        let slow = try h.start(visitor: "slow")
        let other = try h.start(visitor: "ada")
        let slot = try #require(h.service.state.withLock { $0.slots[slow] })
        func call(_ method: String, _ path: String, _ body: String? = nil, visitor: String) -> Int {
            var headers = ["Rocket-Visitor": visitor]
            if body != nil { headers["Content-Type"] = "application/json" }
            return h.service.handle(HTTPRequest(method: method, path: path, headers: headers, body: Array((body ?? "").utf8))).status
        }
        slot.withEntry { _ in
            // This thread holds the slow conversation's lock, as its validation pattern would.
            #expect(call("POST", "/v1/conversations/\(other)/intents", #"{"intent": "tap", "step": 0}"#, visitor: "ada") == 200)
            #expect(call("GET", "/v1/conversations/\(other)", visitor: "ada") == 200)
            #expect(call("POST", "/v1/conversations", #"{"flow": "basic"}"#, visitor: "bob") == 201)
            #expect(h.service.count == 3)
        }
        #expect(call("POST", "/v1/conversations/\(slow)/intents", #"{"intent": "tap", "step": 0}"#, visitor: "slow") == 200)
    }

    @Test("work that waits for SQLite is deferred to the database thread: a gated start, an event, a conversation read from the archive")
    func deferredWork() throws {
        let path = scratchDirectory() + "/store.sqlite"
        let id: String
        do {
            let h = try Harness(path: path)
            id = try h.start(visitor: "ada")
            func deferring(_ method: String, _ path: String, _ body: String? = nil) -> Bool {
                var headers = ["Rocket-Visitor": "ada"]
                if body != nil { headers["Content-Type"] = "application/json" }
                return h.service.handleDeferring(HTTPRequest(method: method, path: path, headers: headers, body: Array((body ?? "").utf8))).deferred != nil
            }
            #expect(deferring("POST", "/v1/conversations", #"{"flow": "gated"}"#), "the scenario gate reads and writes the store")
            #expect(!deferring("POST", "/v1/conversations", #"{"flow": "basic"}"#), "an ungated start needs no database but the writer")
            #expect(deferring("POST", "/v1/events", #"{"scenario": "tour", "visitor": "ada"}"#))
            #expect(!deferring("GET", "/v1/conversations/\(id)"), "in memory")
        }
        let again = try Harness(path: path)
        let cold = again.service.handleDeferring(HTTPRequest(method: "GET", path: "/v1/conversations/\(id)", headers: ["Rocket-Visitor": "ada"]))
        let work = try #require(cold.deferred, "not in memory after a restart: read from the archive on the database thread")
        #expect(work().resolved().status == 200)
        #expect(again.service.handleDeferring(HTTPRequest(method: "GET", path: "/v1/conversations/\(id)", headers: ["Rocket-Visitor": "ada"])).deferred == nil)
    }

    @Test("POST /v1/conversations/{id}/hold: auto-advance waits and the block takes a tap; only its visitor may hold it")
    func holdRoute() throws {
        let dir = scratchDirectory()
        let flow =
            #"{"version": 1, "blocks": [{"id": "a", "type": "text", "text": "A", "showNextAfter": 10, "next": "b"}, {"id": "b", "type": "text", "text": "B"}]}"#
        try flow.write(toFile: dir + "/auto.json", atomically: true, encoding: .utf8)
        let h = try Harness(configure: { $0.timing = .reducedMotion }, flowsDirectory: dir)
        let id = try h.start("auto", visitor: "ada")
        // The index's deadline is always the conversation's own (a change that keeps it touches
        // no table, one that moves or drops it does).
        func indexAgrees(_ label: String) {
            let (indexed, slot) = h.service.state.withLock { ($0.deadlines[id], $0.slots[id]) }
            let own = slot?.withEntry { $0.conversation.nextDeadline }
            #expect(indexed == own && slot?.indexedDeadline == own, "\(label)")
        }
        indexAgrees("started")
        #expect(h.service.state.withLock { $0.deadlines[id] } != nil)
        var view = try #require(h.view(id))
        #expect(view["autoAdvance"]?.bool == true && view["held"]?.bool == false)
        #expect(view["accepts"]?.array.isEmpty == true, "the block goes on by itself")
        #expect(h.request("POST", "/v1/conversations/\(id)/hold", body: #"{"held": true}"#, visitor: "bob").status == 404)
        #expect(h.request("POST", "/v1/conversations/\(id)/hold", body: #"{"held": 1}"#, visitor: "ada").status == 400)
        let held = h.request("POST", "/v1/conversations/\(id)/hold", body: #"{"held": true}"#, visitor: "ada")
        #expect(held.status == 200)
        view = try #require(h.view(id))
        #expect(view["held"]?.bool == true)
        indexAgrees("held")
        #expect(h.service.state.withLock { $0.deadlines[id] } == nil, "held: no timer")
        // Asking again changes nothing: the same version comes back.
        let again = h.request("POST", "/v1/conversations/\(id)/hold", body: #"{"held": true}"#, visitor: "ada")
        #expect(again.status == 200)
        #expect(again.json?["conversation"]?["version"]?.number == view["version"]?.number)
        #expect(view["typing"]?.bool == false, "nothing is on its way while held")
        #expect(view["accepts"]?.array.compactMap(\.string) == ["tap"])
        h.clock.advance(by: 60)
        h.service.advanceDue()
        #expect(h.view(id)?["transcript"]?.array.count == 1, "held: it did not go on")
        #expect(h.request("POST", "/v1/conversations/\(id)/hold", body: #"{"held": false}"#, visitor: "ada").status == 200)
        indexAgrees("released")
        h.clock.advance(by: 10)
        h.service.advanceDue()
        #expect(h.view(id)?["transcript"]?.array.count == 2, "released, it went on with the time it had left")
        indexAgrees("went on")
    }

    @Test("X-Forwarded-For counts only from a trusted proxy, and only its last address (the one the proxy saw)")
    func forwarded() throws {
        let h = try harness()
        func address(peer: String, _ forwarded: String?) -> String {
            var headers: [String: String] = [:]
            if let forwarded { headers["X-Forwarded-For"] = forwarded }
            var r = HTTPRequest(method: "GET", path: "/v1/flows", headers: headers)
            r.peer = peer
            return h.service.clientAddress(r)
        }
        #expect(address(peer: "127.0.0.1", "203.0.113.7") == "203.0.113.7")
        #expect(address(peer: "127.0.0.1", "6.6.6.6, 203.0.113.7") == "203.0.113.7", "earlier entries are the client's word")
        #expect(address(peer: "127.0.0.1", "2001:db8::1") == "2001:db8::/64")
        #expect(address(peer: "10.0.0.9", "203.0.113.7") == "10.0.0.9", "an untrusted peer's header is ignored")
        #expect(address(peer: "127.0.0.1", "<script>") == "127.0.0.1")
        #expect(address(peer: "127.0.0.1", nil) == "127.0.0.1")
    }

    @Test("an IPv6 client counts as its /64: new addresses in it share one quota and one rate; another /64 is another client")
    func ipv6Networks() throws {
        #expect(Addresses.limitKey("2001:db8:1:2:aaaa:bbbb:cccc:dddd") == "2001:db8:1:2::/64")
        #expect(Addresses.limitKey("2001:DB8:1:2::9") == "2001:db8:1:2::/64")
        #expect(Addresses.limitKey("::ffff:203.0.113.7") == "203.0.113.7")
        #expect(Addresses.limitKey("203.0.113.7") == "203.0.113.7")
        #expect(Addresses.limitKey("::1") == "::/64")
        #expect(Addresses.limitKey("not:an:address:") == "not:an:address:")
        let h = try harness { $0.perAddress = 3 }
        // Each start from a new address of the same /64: the network's share is three.
        for k in 0..<3 {
            #expect(from(h, "2001:db8:1:2::\(k + 1)", "POST", "/v1/conversations", body: #"{"flow": "basic"}"#, visitor: "m\(k)").status == 201)
        }
        let refused = from(h, "2001:db8:1:2:ffff::77", "POST", "/v1/conversations", body: #"{"flow": "basic"}"#, visitor: "m9")
        #expect(refused.status == 429 && refused.json?["error"]?["code"]?.string == "too-many-for-address")
        #expect(from(h, "2001:db8:1:3::1", "POST", "/v1/conversations", body: #"{"flow": "basic"}"#, visitor: "ada").status == 201)
        // The rate too: a burst spread over new addresses of one /64 runs out like one address's.
        let rated = try harness { $0.addressRequestBurst = 3 }
        let statuses = (0..<4).map {
            from(rated, "2001:db8:9:9::\($0 + 1)", "GET", "/v1/conversations/\(String(repeating: "0", count: 32))", visitor: "v\($0)").status
        }
        #expect(statuses.prefix(3).allSatisfy { $0 != 429 } && statuses[3] == 429, "\(statuses)")
    }

    @Test("connections per IPv6 /64: the accept policy refuses a network's connection past the limit, whatever address in it; IPv4 is left to the library")
    func connectionsPerNetwork() throws {
        let table = try #require(rocket_mhd_deadlines_new(1_000, 1_000, 3))
        defer { rocket_mhd_deadlines_free(table) }
        func address(_ text: String) -> sockaddr_storage {
            var storage = sockaddr_storage()
            withUnsafeMutableBytes(of: &storage) { raw in
                if text.contains(":") {
                    var a = sockaddr_in6()
                    a.sin6_family = sa_family_t(AF_INET6)
                    _ = inet_pton(AF_INET6, text, &a.sin6_addr)
                    withUnsafeBytes(of: a) { raw.copyMemory(from: $0) }
                } else {
                    var a = sockaddr_in()
                    a.sin_family = sa_family_t(AF_INET)
                    _ = inet_pton(AF_INET, text, &a.sin_addr)
                    withUnsafeBytes(of: a) { raw.copyMemory(from: $0) }
                }
            }
            return storage
        }
        func call<T>(_ text: String, _ body: (UnsafePointer<sockaddr>) -> T) -> T {
            var a = address(text)
            return withUnsafePointer(to: &a) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1, body) }
        }
        // Three connections, each from another address of one /64: the fourth is refused, from
        // any address of that network; another network is not.
        for k in 1...3 {
            #expect(call("2001:db8:1:2::\(k)") { rocket_mhd_network_admits(table, $0) } == 1)
            #expect(call("2001:db8:1:2::\(k)") { rocket_mhd_network_count(table, $0, 1, nil) } == 1)
        }
        #expect(call("2001:db8:1:2:ffff::9") { rocket_mhd_network_admits(table, $0) } == 0)
        #expect(call("2001:db8:1:2::1") { rocket_mhd_network_connections(table, $0) } == 3)
        #expect(call("2001:db8:1:3::1") { rocket_mhd_network_admits(table, $0) } == 1)
        // One ends: there is room again; all end: the network leaves the table.
        _ = call("2001:db8:1:2::2") { rocket_mhd_network_count(table, $0, -1, nil) }
        #expect(call("2001:db8:1:2::7") { rocket_mhd_network_admits(table, $0) } == 1)
        for k in [1, 3] { _ = call("2001:db8:1:2::\(k)") { rocket_mhd_network_count(table, $0, -1, nil) } }
        #expect(call("2001:db8:1:2::1") { rocket_mhd_network_connections(table, $0) } == 0)
        // IPv4, and IPv4 written in IPv6, are the library's to count per address.
        #expect(call("203.0.113.7") { rocket_mhd_network_count(table, $0, 1, nil) } == 0)
        #expect(call("::ffff:203.0.113.7") { rocket_mhd_network_count(table, $0, 1, nil) } == 0)
        #expect(call("::ffff:203.0.113.7") { rocket_mhd_network_admits(table, $0) } == 1)
        // Without a limit (behind a trusted proxy) nothing is counted or refused.
        let open = try #require(rocket_mhd_deadlines_new(1_000, 1_000, 0))
        defer { rocket_mhd_deadlines_free(open) }
        #expect(call("2001:db8::1") { rocket_mhd_network_count(open, $0, 1, nil) } == 0)
        #expect(call("2001:db8::1") { rocket_mhd_network_admits(open, $0) } == 1)
    }

    @Test("event streams per address: one client's flood is refused past its share while another client opens one")
    func streamFlood() throws {
        let h = try harness {
            $0.streamsPerAddress = 3
            $0.keepAlive = 1  // a closed stream is noticed at the next keep-alive it cannot write
        }
        let (server, port) = try h.serve()
        defer { server.stop() }
        let id = try h.start()
        func open(_ address: String) -> (RawClient?, String) {
            guard let c = RawClient(port: port) else { return (nil, "") }
            c.send("GET /v1/conversations/\(id)/events HTTP/1.1\r\nHost: x\r\nRocket-Visitor: ada\r\nX-Forwarded-For: \(address)\r\n\r\n")
            return (c, c.read(timeout: 5) { $0.contains("\r\n\r\n") })
        }
        var held: [RawClient] = []
        for _ in 0..<3 {
            let (c, head) = open("203.0.113.7")
            #expect(head.hasPrefix("HTTP/1.1 200"), "\(head.prefix(120))")
            if let c { held.append(c) }
        }
        #expect(open("203.0.113.7").1.hasPrefix("HTTP/1.1 429"))
        let (other, head) = open("198.51.100.2")
        #expect(head.hasPrefix("HTTP/1.1 200"))
        _ = other
        // A closed stream gives its address the place back, once the server notices it (at the
        // next keep-alive it cannot write).
        held.removeAll()
        for _ in 0..<500 where server.openStreams > 1 { usleep(10_000) }
        #expect(server.openStreams == 1)
        #expect(open("203.0.113.7").1.hasPrefix("HTTP/1.1 200"))
    }

    @Test("connections per address: past the limit a new connection is refused while the held ones stay")
    func connectionFlood() throws {
        let h = try Harness { $0.connectionsPerAddress = 4 }
        let (server, port) = try h.serve()
        defer { server.stop() }
        // Half-open connections: a request line and nothing more.
        var held: [RawClient] = []
        for _ in 0..<4 {
            guard let c = RawClient(port: port) else { continue }
            c.send("GET /v1/flows HTTP/1.1\r\n")
            held.append(c)
        }
        // The server's threads accept them in their own time: the fifth comes once it holds all
        // four (a busy machine must not let the fifth in first).
        for _ in 0..<500 where server.openConnections < held.count { usleep(10_000) }
        #expect(held.count == 4 && server.openConnections == 4)
        let extra = RawClient.exchange(port: port, "GET /v1/flows HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        #expect(extra.isEmpty, "a fifth connection of the address is refused")
        held.removeAll()
        var served = false
        for _ in 0..<100 where !served {
            served = RawClient.exchange(port: port, "GET /v1/flows HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").hasPrefix("HTTP/1.1 200")
            if !served { usleep(20_000) }
        }
        #expect(served, "once they close, the address is served again")
    }

    @Test("a request line or headers trickled in are cut off by the request's deadline, never idle long enough to time out")
    func slowHeaders() throws {
        let h = try Harness {
            $0.requestSeconds = 0.3
            $0.idleConnectionSeconds = 1
        }
        let (server, port) = try h.serve()
        defer { server.stop() }
        // After its request line a request has 0.3 s for the rest; before it, 1.3 s from when the
        // connection was free for it. A byte every 100 ms keeps the connection from going idle.
        let filler = String(repeating: "a", count: 100)
        for (opening, trickle) in [("GET /v1/flows HTTP/1.1\r\n", "X-Slow: " + filler), ("", "GET /v1/flows?x=" + filler)] {
            let c = try #require(RawClient(port: port))
            c.send(opening)
            var sent = 0
            for byte in trickle.utf8 where !c.closed {
                c.send([byte])
                sent += 1
                c.read(timeout: 0.1)
            }
            #expect(c.closed && sent < trickle.utf8.count, "\(opening.isEmpty ? "a request line" : "headers"): \(sent) bytes sent, still open")
            #expect(c.text.isEmpty, "no answer to a request that never came whole")
        }
        // A kept-alive connection's requests, however far apart within the idle time, are not.
        let c = try #require(RawClient(port: port))
        c.send("GET /v1/flows HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(c.read(timeout: 5) { $0.contains("\r\n\r\n") }.hasPrefix("HTTP/1.1 200"))
        c.read(timeout: 0.7)
        #expect(!c.closed)
        c.send("GET /v1/flows HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        #expect(c.read(timeout: 5).components(separatedBy: "HTTP/1.1 200").count == 3, "both requests answered")
    }

    @Test("a body trickled in is cut off by one deadline for the whole request, not per byte")
    func slowBody() throws {
        let h = try Harness { $0.requestSeconds = 0.3 }
        let (server, port) = try h.serve()
        defer { server.stop() }
        let c = try #require(RawClient(port: port))
        let body = #"{"flow": "basic", "visitor": "ada"}"#
        c.send("POST /v1/conversations HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n")
        // 36 bytes, 20 ms apart: each byte keeps the connection busy, the whole takes 0.7 s.
        for byte in body.utf8 {
            c.send([byte])
            usleep(20_000)
        }
        #expect(!c.read(timeout: 2).hasPrefix("HTTP/1.1 201"), "the request is not answered as if it had come in time")
        #expect(h.service.count == 0)
    }
}

/// A store that lists its scenarios' names (both the server's stores do).
protocol Named {
    func names() throws(ScenarioStoreError) -> [String]
}
extension SQLiteScenarioStore: Named {}
extension PostgresScenarioStore: Named {}
