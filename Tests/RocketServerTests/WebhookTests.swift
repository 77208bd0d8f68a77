import Foundation
import RocketCore
import RocketJSON
import RocketTestSupport
import Synchronization
import Testing

@testable import RocketServer

@Suite("Webhooks: results pushed to the site as they are written", .serialized)
struct WebhookTests {
    static let secret = Array("webhook-secret-0123456789abcdef-0123".utf8)

    @Test(
        "the sender's wait after a turn that found nothing ends when this server writes a result, or soon when another server saves; a failure's pause and another's lease are waited out"
    )
    func waitEnds() {
        // Nothing was waiting (a pause of 1 s): a result written here ends it at once.
        #expect(WebhookSender.endsWait(pause: 1, waited: 0.02, resultsChanged: true, othersChanged: false))
        #expect(!WebhookSender.endsWait(pause: 1, waited: 0.02, resultsChanged: false, othersChanged: false))
        // Another server's save: not before 0.2 s (at most five turns a second for them).
        #expect(!WebhookSender.endsWait(pause: 1, waited: 0.1, resultsChanged: false, othersChanged: true))
        #expect(WebhookSender.endsWait(pause: 1, waited: 0.2, resultsChanged: false, othersChanged: true))
        // A failure's growing pause, or another server's lease (2 s), whatever is written.
        for pause in [2.0, 4, 300] {
            #expect(!WebhookSender.endsWait(pause: pause, waited: 0.5, resultsChanged: true, othersChanged: true))
            #expect(WebhookSender.endsWait(pause: pause, waited: pause, resultsChanged: false, othersChanged: false))
        }
        #expect(WebhookSender.endsWait(pause: 0, waited: 0, resultsChanged: false, othersChanged: false))
    }

    @Test("--webhook URLs: http and https, a host, a port, no user name or fragment")
    func urls() {
        func parsed(_ s: String) -> HTTPTarget? { if case .success(let t) = HTTPTarget.parse(s) { t } else { nil } }
        #expect(
            parsed("https://hooks.example/rocket?k=1")
                == HTTPTarget(url: "https://hooks.example/rocket?k=1", tls: true, host: "hooks.example", port: 443, path: "/rocket?k=1"))
        #expect(parsed("http://127.0.0.1:8081") == HTTPTarget(url: "http://127.0.0.1:8081", tls: false, host: "127.0.0.1", port: 8081, path: "/"))
        #expect(parsed("https://[::1]:9443/x")?.host == "::1")
        for bad in ["ftp://x/", "https://", "https://user:pw@x/", "https://x/#f", "https://x:0/", "https://x:70000/", "https://x /", "x", "https://[::1/"] {
            #expect(parsed(bad) == nil, "\(bad)")
        }
    }

    /// Ends a conversation of the basic flow for `visitor` (closed after its name).
    static func end(_ h: Harness, visitor: String, name: String) throws -> String {
        let id = try h.start(visitor: visitor)
        #expect(h.send(id, #""intent": "tap""#, visitor: visitor).status == 200)
        #expect(h.send(id, #""intent": "submit", "text": "\#(name)""#, visitor: visitor).status == 200)
        #expect(h.send(id, #""intent": "close""#, visitor: visitor).status == 200)
        h.service.flush()
        return id
    }

    @Test(
        "results go out in order, each until it is taken (a failure is sent again after a pause), signed, and the place is kept in the store",
        arguments: ServerStoreKind.allCases)
    func delivers(kind: ServerStoreKind) throws {
        let receiver = try HTTPReceiver(statuses: [500, 204])
        defer { receiver.stop() }
        let target = try HTTPTarget.parse("http://127.0.0.1:\(receiver.port)/hook").get()
        let h = try Harness(kind) { $0.webhook = WebhookConfiguration(target: target, secret: Self.secret) }
        let logged = Mutex<[String]>([])
        let sender = WebhookSender(
            configuration: WebhookConfiguration(target: target, secret: Self.secret), archive: h.service.archive!, clock: h.clock,
            counters: h.service.counters, log: { line in logged.withLock { $0.append(line) } })
        // A webhook new to the store starts with what ends from now on.
        _ = try Self.end(h, visitor: "early", name: "Old")
        #expect(sender.turn() == 1, "nothing to send yet")
        let ids = try ["ada", "bo", "cy"].map { try Self.end(h, visitor: $0, name: $0.capitalized) }
        #expect(sender.turn() == 1, "the first delivery failed (500): a pause of 1 s")
        #expect(h.request("GET", "/metrics").text.contains("rocket_webhook_failing 1\n"))
        #expect(logged.withLock { $0 }.contains { $0.contains("answered 500") && $0.contains("sent again") }, "the failure is logged")
        #expect(sender.turn() == 0, "then the three went out")
        let metrics = h.request("GET", "/metrics").text
        #expect(metrics.contains("rocket_webhook_failing 0\n") && metrics.contains("rocket_webhook_delivered_total 3\n"), "\(metrics)")
        #expect(sender.turn() == 1)
        let got = receiver.requests
        let delivered = got.compactMap { r -> String? in
            guard let o = try? JSONReader.parse(r.body) else { return nil }
            return o.object?.first { $0.key == "conversation" }?.value.string
        }
        #expect(delivered == [ids[0]] + ids, "the failed one again first, then in order")
        for r in got {
            #expect(r.path == "/hook" && r.headers["Content-Type"] == "application/json")
            // The signature: t=TIME,v1=HEX(HMAC-SHA256(secret, "TIME.BODY")).
            let parts = (r.headers["Rocket-Signature"] ?? "").split(separator: ",")
            let t = parts.first.map { String($0.dropFirst(2)) } ?? ""
            #expect(parts.count == 2 && parts[1] == "v1=" + HMAC.hex(key: Self.secret, message: Array((t + ".").utf8) + r.body), "\(r.headers)")
            #expect(Int(r.headers["Rocket-Delivery"] ?? "") != nil)
        }
        // The check docs/SERVER.md gives an endpoint (Python's hmac) takes them, and refuses a changed body.
        let dir = newScratchDirectory("verify")
        let last = try #require(got.last)
        try Data(last.body).write(to: URL(fileURLWithPath: dir + "/body"))
        let check = Process()
        check.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        check.arguments = [
            "python3", "-c",
            """
            import hashlib, hmac, sys, time
            def verified(secret, header, body):
                fields = dict(part.split("=", 1) for part in header.split(","))
                expected = hmac.new(secret, fields["t"].encode() + b"." + body, hashlib.sha256).hexdigest()
                return hmac.compare_digest(expected, fields.get("v1", "")) and abs(time.time() - int(fields["t"])) < 10**10
            body = open(sys.argv[3], "rb").read()
            sys.exit(0 if verified(sys.argv[1].encode(), sys.argv[2], body) and not verified(sys.argv[1].encode(), sys.argv[2], body + b" ") else 1)
            """, String(decoding: Self.secret, as: UTF8.self), last.headers["Rocket-Signature"] ?? "", dir + "/body",
        ]
        try check.run()
        check.waitUntilExit()
        #expect(check.terminationStatus == 0, "the documented check refused a delivery")
        let lastBody = String(decoding: got.last?.body ?? [], as: UTF8.self)
        #expect(lastBody.contains(#""answers":{"name":"Cy"}"#), "\(lastBody)")
        // Another server's sender waits while the lease runs, then goes on from the place kept.
        let other = WebhookSender(
            configuration: WebhookConfiguration(target: target, secret: Self.secret), archive: h.service.archive!, clock: h.clock, log: { _ in })
        #expect(other.turn() == 2)
        h.clock.advance(by: WebhookSender.leaseSeconds + 1)
        #expect(other.turn() == 1, "nothing new: the place was kept")
        let late = try Self.end(h, visitor: "di", name: "Di")
        #expect(other.turn() == 0)
        let newest = String(decoding: receiver.requests.last?.body ?? [], as: UTF8.self)
        #expect(receiver.requests.count == got.count + 1 && newest.contains(late))
        #expect(sender.turn() == 2, "the first sender has lost the lease")
    }

    @Test(
        "deliveries share one kept connection while the answers allow it (a length, chunks); a close, a body to the end or a dropped connection starts a new one"
    )
    func keepAlive() throws {
        let receiver = try HTTPReceiver(
            answers: ["204", "200:length", "200:chunked", "204", "200:close", "204", "200:eof", "204", "204:drop", "204", "204", "201:short", "204"],
            keepAlive: true)
        defer { receiver.stop() }
        let target = try HTTPTarget.parse("http://127.0.0.1:\(receiver.port)/keep").get()
        let connection = HTTPConnection()
        var statuses: [Int] = []
        for k in 0..<13 {
            let r = HTTPClient.post(target, headers: [], body: Array("{\"seq\":\(k)}".utf8), caFile: nil, timeout: 10, connection: connection)
            statuses.append((try? r.get()) ?? -1)
        }
        // A body cut short keeps its status (the connection is not kept).
        #expect(statuses == [204, 200, 200, 204, 200, 204, 200, 204, 204, 204, 204, 201, 204])
        let got = receiver.requests
        #expect(got.map { String(decoding: $0.body, as: UTF8.self) } == (0..<13).map { "{\"seq\":\($0)}" }, "each once, in order")
        let ports = got.map(\.clientPort)
        // 0–4 on one connection (204, a length, chunks, 204, then the close); 5–6 on the next (the
        // body to the end closes it); 7–8 on the next (dropped after 8 without a word: 9 is sent
        // on it, finds it closed, and goes again on a new one with 10).
        #expect(ports.count == 13)
        if ports.count == 13 {
            #expect(Set(ports[0...4]).count == 1, "\(ports)")
            #expect(Set(ports[5...6]).count == 1 && ports[5] != ports[4], "\(ports)")
            #expect(Set(ports[7...8]).count == 1 && ports[7] != ports[6], "\(ports)")
            #expect(Set(ports[9...11]).count == 1 && ports[9] != ports[8], "\(ports)")
            #expect(ports[12] != ports[11], "\(ports)")
        }
        #expect(!got.contains { $0.headers["Connection"] == "close" }, "a kept connection is asked for")
        // A connection unused for its idle limit (here none at all) is not used again.
        let forgetful = HTTPConnection(idleLimit: 0)
        let before = receiver.requests.count
        for _ in 0..<3 { _ = HTTPClient.post(target, headers: [], body: Array("{}".utf8), caFile: nil, timeout: 10, connection: forgetful) }
        let fresh = receiver.requests.dropFirst(before).map(\.clientPort)
        #expect(fresh.count == 3 && Set(fresh).count == 3, "\(fresh)")
        // Without a connection kept, each request says Connection: close.
        _ = HTTPClient.post(target, headers: [], body: Array("{}".utf8), caFile: nil, timeout: 10)
        #expect(receiver.requests.last?.headers["Connection"] == "close")
    }

    @Test("hostile answers: garbage, a status of four digits, a huge head, bad framing, endless interim answers, a drip; each said or bounded by the deadline")
    func hostileAnswers() throws {
        // Each connection gets the next raw answer (then the connection is closed, or, for
        // "drip" and "interim", held while bytes trickle).
        /// What an answer should come to: a status kept, or a failure whose message has these words.
        enum Outcome {
            case status(Int)
            case failure(String)
        }
        let hugeHead = "HTTP/1.1 200 OK\r\nX: " + String(repeating: "a", count: 20_000) + "\r\n\r\n"
        let answers: [(raw: String, expect: Outcome)] = [
            (String(repeating: "\u{1}\u{2}garbage", count: 200), .failure("not HTTP")),
            ("HTTP/1.1 2000 OK\r\nContent-Length: 0\r\n\r\n", .failure("not HTTP")),
            (hugeHead, .failure("longer than")),
            // NUL bytes: a line that strlen would count as short (past the head's bound), or as empty.
            ("HTTP/1.1 200 OK\r\nX: a\u{0}b\r\nContent-Length: 0\r\n\r\n", .failure("NUL")),
            ("HTTP/1.1 200 OK\r\n\u{0}\r\nContent-Length: 0\r\n\r\n", .failure("NUL")),
            ("HTTP/1.1 200\u{0} OK\r\nContent-Length: 0\r\n\r\n", .failure("NUL")),
            ("HTTP/1.1 200 OK\r\nContent-Length: abc\r\n\r\n", .status(200)),
            ("HTTP/1.1 201 OK\r\nContent-Length: 999999999999999999\r\n\r\nxx", .status(201)),
            ("HTTP/1.1 202 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", .status(202)),
            ("HTTP/1.1 203 OK\r\nTransfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n0\r\n\r\n", .status(203)),
            ("interim", .failure("timed out")),
            ("drip", .failure("timed out")),
        ]
        let responder = try RawResponder(answers.map(\.raw))
        defer { responder.stop() }
        let port = responder.port
        let target = try HTTPTarget.parse("http://127.0.0.1:\(port)/h").get()
        let connection = HTTPConnection()
        for (k, answer) in answers.enumerated() {
            let got = HTTPClient.post(target, headers: [], body: Array("{}".utf8), caFile: nil, timeout: 1, connection: connection)
            switch (got, answer.expect) {
            case (.success(let status), .status(let wanted)): #expect(status == wanted, "answer \(k)")
            case (.failure(let why), .failure(let words)): #expect(why.message.contains(words), "answer \(k): \(why.message)")
            default: Issue.record("answer \(k): \(got), not \(answer.expect)")
            }
        }
    }

    @Test("GET keeps the answer's body whole (a length, chunks, to the end of the stream) or fails: too long, cut short, unclear framing")
    func getBodies() throws {
        let chunked = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5;x=y\r\nhello\r\n6\r\n world\r\n0\r\nT: 1\r\n\r\n"
        let answers: [(raw: String, expect: Result<String, HTTPClientError>)] = [
            ("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello", .success("hello")),
            (chunked, .success("hello world")),
            ("HTTP/1.0 200 OK\r\n\r\nto the end", .success("to the end")),
            ("HTTP/1.1 200 OK\r\nContent-Length: 5000\r\n\r\n" + String(repeating: "x", count: 5000), .failure(HTTPClientError(message: "longer than"))),
            ("HTTP/1.1 200 OK\r\nContent-Length: 50\r\n\r\nshort", .failure(HTTPClientError(message: "closed inside"))),
            ("HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello!", .failure(HTTPClientError(message: "unclear"))),
            // Chunks cut short, before a size line or inside one, or with a size that is none.
            ("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n", .failure(HTTPClientError(message: "cannot be read"))),
            ("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n6", .failure(HTTPClientError(message: "cannot be read"))),
            ("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\nzz\r\n0\r\n\r\n", .failure(HTTPClientError(message: "cannot be read"))),
            (
                "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n" + String(repeating: "0", count: 20) + "1\r\nx\r\n0\r\n\r\n",
                .failure(HTTPClientError(message: "cannot be read"))
            ),
            ("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n", .failure(HTTPClientError(message: "cannot be read"))),
            // A chunk's size with a NUL byte after it (read as a string, the rest would be hidden).
            ("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\u{0}zz\r\nhello\r\n0\r\n\r\n", .failure(HTTPClientError(message: "NUL"))),
        ]
        let responder = try RawResponder(answers.map(\.raw))
        defer { responder.stop() }
        let target = try HTTPTarget.parse("http://127.0.0.1:\(responder.port)").get()
        for (k, answer) in answers.enumerated() {
            let got = HTTPClient.get(target, path: "/x", headers: [], caFile: nil, timeout: 5, maxBody: 4096)
            switch (got, answer.expect) {
            case (.success(let (status, body)), .success(let wanted)):
                #expect(status == 200 && String(decoding: body, as: UTF8.self) == wanted, "answer \(k)")
            case (.failure(let why), .failure(let words)): #expect(why.message.contains(words.message), "answer \(k): \(why.message)")
            default: Issue.record("answer \(k): \(got)")
            }
        }
    }

    @Test("https: the certificate is checked against the CA file and the address; an untrusted one is refused")
    func tls() throws {
        let dir = newScratchDirectory("tls")
        let make = Process()
        make.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        make.arguments = [
            "openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
            "-keyout", dir + "/key.pem", "-out", dir + "/cert.pem",
        ]
        make.standardOutput = FileHandle.nullDevice
        make.standardError = FileHandle.nullDevice
        try make.run()
        make.waitUntilExit()
        try #require(make.terminationStatus == 0)
        let receiver = try HTTPReceiver(statuses: [204], certificate: dir + "/cert.pem", key: dir + "/key.pem")
        defer { receiver.stop() }
        let target = try HTTPTarget.parse("https://127.0.0.1:\(receiver.port)/tls").get()
        let body = Array(#"{"seq":1}"#.utf8)
        let trusted = HTTPClient.post(target, headers: [("Content-Type", "application/json")], body: body, caFile: dir + "/cert.pem", timeout: 10)
        #expect(try trusted.get() == 204)
        #expect(receiver.requests.first?.body == body)
        // The system's certificates do not vouch for it.
        guard case .failure(let why) = HTTPClient.post(target, headers: [], body: body, caFile: nil, timeout: 10) else {
            Issue.record("an untrusted certificate was taken")
            return
        }
        #expect(why.message.contains("not trusted"), "\(why.message)")
        #expect(receiver.requests.count == 1, "nothing was sent to it")
        // Nothing listening: said, within the deadline.
        let closed = try HTTPTarget.parse("http://127.0.0.1:1/").get()
        guard case .failure(let refused) = HTTPClient.post(closed, headers: [], body: body, caFile: nil, timeout: 2) else {
            Issue.record("a closed port answered")
            return
        }
        #expect(refused.message.contains("cannot connect"), "\(refused.message)")
        // Over TLS a connection is kept too (one handshake for several deliveries), and one the
        // server dropped is replaced.
        let keeping = try HTTPReceiver(
            answers: ["204", "200:length", "204:drop", "204"], certificate: dir + "/cert.pem", key: dir + "/key.pem", keepAlive: true)
        defer { keeping.stop() }
        let kept = try HTTPTarget.parse("https://127.0.0.1:\(keeping.port)/tls").get()
        let connection = HTTPConnection()
        let answers = (0..<5).map { _ in
            (try? HTTPClient.post(kept, headers: [], body: body, caFile: dir + "/cert.pem", timeout: 10, connection: connection).get()) ?? -1
        }
        #expect(answers == [204, 200, 204, 204, 204])
        let ports = keeping.requests.map(\.clientPort)
        #expect(ports.count == 5 && Set(ports.prefix(3)).count == 1 && Set(ports.suffix(2)).count == 1 && ports[3] != ports[2], "\(ports)")
    }
}

/// A server on loopback that answers each connection with the next raw answer of a list, then
/// closes it (`interim`: endless 100 Continue answers; `drip`: a status line a byte at a time),
/// for answers no real server would give. It runs Python in a child process.
final class RawResponder {
    let process = Process()
    let port: Int

    init(_ answers: [String]) throws {
        let dir = newScratchDirectory("raw")
        let script = """
            import base64, os, socket, sys, threading, time
            answers = [base64.b64decode(a) for a in sys.argv[1].split(",")]
            s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(16)
            open(sys.argv[2] + ".tmp", "w").write(str(s.getsockname()[1]))
            os.rename(sys.argv[2] + ".tmp", sys.argv[2])
            def serve(c, answer):
                data = b""
                while b"\\r\\n\\r\\n" not in data:
                    d = c.recv(65536)
                    if not d: return
                    data += d
                try:
                    if answer == b"interim":
                        for _ in range(4000): c.sendall(b"HTTP/1.1 100 Continue\\r\\n\\r\\n"); time.sleep(0.001)
                    elif answer == b"drip":
                        for b in b"HTTP/1.1 200 OK\\r\\n": c.sendall(bytes([b])); time.sleep(0.5)
                    else:
                        c.sendall(answer)
                except Exception:
                    pass
                c.close()
            for answer in answers:
                c, _ = s.accept()
                threading.Thread(target=serve, args=(c, answer), daemon=True).start()
            time.sleep(30)
            """
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", script, answers.map { Data($0.utf8).base64EncodedString() }.joined(separator: ","), dir + "/port"]
        process.standardError = FileHandle.nullDevice
        try process.run()
        var found: Int?
        for _ in 0..<500 where found == nil {
            found = (try? String(contentsOfFile: dir + "/port", encoding: .utf8)).flatMap { Int($0) }
            if found == nil { usleep(10_000) }
        }
        guard let found else {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            throw CocoaError(.fileReadUnknown)
        }
        port = found
    }

    func stop() {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }
}
