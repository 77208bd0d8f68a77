import Foundation
import RocketConversation
import RocketCore
import RocketJSON
import RocketPlatform
import RocketScenarios
import RocketText
import Synchronization
import RocketTestSupport
import Testing

@testable import RocketServer

#if canImport(Glibc)
    import Glibc
#endif

func bodyJSON(_ response: String) -> JSONNode? {
    guard let range = response.range(of: "\r\n\r\n") else { return nil }
    return try? JSONReader.parse(Array(response[range.upperBound...].utf8))
}

@Suite("rocket serve over real sockets", .serialized)
struct ServerTests {
    @Test("GET /v1/report over HTTP: made on the thread for long work, through a connection of its own; intents go on meanwhile")
    func report() throws {
        let h = try Harness()
        let (server, port) = try h.serve()
        defer { server.stop() }
        let started = RawClient.exchange(port: port, post("/v1/conversations", #"{"flow": "basic", "visitor": "ada"}"#))
        let id = try #require(bodyJSON(started)?["conversation"]?["id"]?.string)
        // A report and an intent at once: both are answered.
        let report = try #require(RawClient(port: port))
        report.send("GET /v1/report?minCount=1 HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        let tapped = RawClient.exchange(port: port, post("/v1/conversations/\(id)/intents", #"{"intent": "tap", "step": 0}"#, visitor: "ada"))
        #expect(tapped.hasPrefix("HTTP/1.1 200"))
        let answer = report.read()
        #expect(answer.hasPrefix("HTTP/1.1 200"), "\(answer.prefix(200))")
        #expect(bodyJSON(answer)?["flows"]?[0]?["flow"]?.string == "basic")
    }

    @Test("HTTP on loopback: a start, an event stream that receives what an intent changed, then a clean stop")
    func endToEnd() throws {
        let h = try Harness()
        let (server, port) = try h.serve()
        defer { server.stop() }
        let started = RawClient.exchange(port: port, post("/v1/conversations", #"{"flow": "basic", "visitor": "ada"}"#))
        #expect(started.hasPrefix("HTTP/1.1 201"))
        let id = try #require(bodyJSON(started)?["conversation"]?["id"]?.string)
        let stream = try #require(RawClient(port: port))
        stream.send("GET /v1/conversations/\(id)/events HTTP/1.1\r\nHost: 127.0.0.1\r\nRocket-Visitor: ada\r\nAccept: text/event-stream\r\n\r\n")
        let first = stream.read { $0.contains("event: state") }
        #expect(first.hasPrefix("HTTP/1.1 200"))
        #expect(first.contains("text/event-stream"))
        // The ticker shows the first block (instant timing), and the stream carries it.
        #expect(stream.read { $0.contains("\"text\":\"Hi\"") }.contains("\"text\":\"Hi\""))
        let tapped = RawClient.exchange(port: port, post("/v1/conversations/\(id)/intents", #"{"intent": "tap", "step": 0}"#, visitor: "ada"))
        #expect(tapped.hasPrefix("HTTP/1.1 200"))
        #expect(stream.read { $0.contains("\"text\":\"Name?\"") }.contains("\"text\":\"Name?\""))
        #expect(stream.text.contains("event: events"))
        #expect(server.openStreams == 1)
        server.stop()
        // The stream ends when the server stops.
        stream.read(timeout: 5)
        #expect(RawClient(port: port) == nil)
    }

    @Test("a change wakes the ticker only when it needs it sooner than planned")
    func tickerWakes() {
        let at = 1_000.0
        let planned = (at + 1).bitPattern  // asleep until 1 s from now
        #expect(HTTPServer.needsWake(planned: 0, deadline: nil))  // deciding: always
        #expect(HTTPServer.needsWake(planned: planned, deadline: at + 0.3))  // a timer before then
        #expect(!HTTPServer.needsWake(planned: planned, deadline: at + 5))
        #expect(!HTTPServer.needsWake(planned: planned, deadline: nil))
    }

    @Test("the writer spaces its commits only while batches hold several changes")
    func commitSpacing() {
        let spacing = HTTPServer.commitSpacing
        // One client's changes one after another: each is committed at once.
        #expect(HTTPServer.commitWait(lastBatch: 1, since: 0) == 0)
        #expect(HTTPServer.commitWait(lastBatch: 0, since: 0) == 0)
        // Busy: the next commit starts `spacing` after the last one started, never later.
        #expect(HTTPServer.commitWait(lastBatch: 30, since: 0) == spacing)
        #expect(abs(HTTPServer.commitWait(lastBatch: 2, since: spacing / 4) - spacing * 3 / 4) < 1e-12)
        #expect(HTTPServer.commitWait(lastBatch: 30, since: spacing) == 0)
        #expect(HTTPServer.commitWait(lastBatch: 30, since: 60) == 0)
        // A clock that went back waits no longer than the spacing.
        #expect(HTTPServer.commitWait(lastBatch: 30, since: -5) == spacing)
        #expect(spacing > 0 && spacing <= 0.001)
    }

    @Test("refused changes: none until one is refused, then exactly those; the newest kept past 100,000")
    func refusedChanges() {
        let refused = ConversationService.RefusedChanges()
        #expect(!refused.contains(1) && !refused.contains(0))
        refused.insert([3, 5])
        #expect(refused.contains(3) && refused.contains(5))
        #expect(!refused.contains(4) && !refused.contains(1))
        refused.insert(UInt64(10)..<UInt64(100_010))
        #expect(!refused.contains(3), "the oldest go once there are more than 100,000")
        #expect(refused.contains(100_009) && refused.contains(50_010))
        #expect(!refused.contains(50_009))
    }

    @Test("conversations in one language share its messages; other messages get their own copy")
    func sharedStrings() {
        for strings in UIStrings.all {
            let a = ConversationService.SharedStrings.of(strings)
            #expect(a === ConversationService.SharedStrings.of(strings))
            #expect(a.value == strings)
        }
        #expect(ConversationService.SharedStrings.of(.english) !== ConversationService.SharedStrings.of(.italian))
        var custom = UIStrings.english
        custom.typing = "thinking…"
        let own = ConversationService.SharedStrings.of(custom)
        #expect(own.value == custom)
        #expect(own !== ConversationService.SharedStrings.of(.english))
        // A request's `lang` finds its language's copy by name, as the environment's locale does.
        typealias S = ConversationService.SharedStrings
        #expect(S.forLocale("zh-CN") === S.of(.chinese) && S.forLocale("it_IT.UTF-8") === S.of(.italian))
        #expect(S.forLocale(nil) === S.of(.english) && S.forLocale("xx") === S.of(.english) && S.forLocale("") === S.of(.english))
        for tag in ["zh", "IT", "en-GB", "fr", "z"] {
            #expect(S.forLocale(tag).value == UIStrings.forEnvironment(["LANG": tag]), "\(tag)")
        }
    }

    @Test("on the wall clock, a block that goes on by itself reaches the event stream, and the change is saved")
    func timerOnWallClock() throws {
        let dir = scratchDirectory()
        let flow = """
            {"version": 1, "start": "a", "blocks": [{"id": "a", "type": "text", "text": "First", "next": "b", "showNextAfter": 0.2},
             {"id": "b", "type": "text", "text": "Second"}]}
            """
        try flow.write(toFile: dir + "/auto.json", atomically: true, encoding: .utf8)
        let store = dir + "/store.sqlite"
        var c = ServerConfiguration()
        c.timing = .reducedMotion
        let sqlite = try SQLiteScenarioStore(path: store)
        let service = ConversationService(
            flows: FlowLibrary(directory: dir, builtIn: [:]), archive: try ConversationArchive(beside: sqlite), scenarios: sqlite, clock: WallClock(),
            configuration: c, access: .random(insecureDev: true))
        let server = HTTPServer(service: service)
        let port = try server.start(host: "127.0.0.1", port: 0)
        defer { server.stop() }
        let started = RawClient.exchange(port: port, post("/v1/conversations", #"{"flow": "auto", "visitor": "ada"}"#))
        let id = try #require(bodyJSON(started)?["conversation"]?["id"]?.string)
        let stream = try #require(RawClient(port: port))
        stream.send("GET /v1/conversations/\(id)/events HTTP/1.1\r\nHost: 127.0.0.1\r\nRocket-Visitor: ada\r\nAccept: text/event-stream\r\n\r\n")
        #expect(stream.read { $0.contains("\"text\":\"Second\"") }.contains("\"text\":\"Second\""))
        server.stop()
        // The timer's change is in the store: the snapshot, or a step replayed on it.
        let saved = try #require(try ConversationArchive(beside: SQLiteScenarioStore(path: store)).load(id))
        #expect(saved.row.snapshot.contains("Second") || saved.steps.contains { $0.text.contains(#""op":"advance""#) })
        let again = try Harness(path: store, clock: ManualClock(now: Date().timeIntervalSince1970), flowsDirectory: dir)
        #expect(again.view(id)?["transcript"]?.array.last?["text"]?.string == "Second")
    }

    @Test("hostile HTTP: a body over the limit, a broken request line, a huge header; the server keeps serving")
    func hostile() throws {
        let h = try Harness { $0.maxBodyBytes = 1024 }
        let (server, port) = try h.serve()
        defer { server.stop() }
        let big = String(repeating: "x", count: 5000)
        let tooLarge = RawClient.exchange(port: port, post("/v1/conversations", big))
        #expect(tooLarge.hasPrefix("HTTP/1.1 413"))
        // A declared length over the limit is answered at once, without sending the body.
        let declared = RawClient.exchange(
            port: port,
            "POST /v1/conversations HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 10000000000\r\nConnection: close\r\n\r\n")
        #expect(declared.hasPrefix("HTTP/1.1 413"))
        var chunked = "POST /v1/conversations HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
        for _ in 0..<4 { chunked += "400\r\n" + String(repeating: "y", count: 1024) + "\r\n" }
        chunked += "0\r\n\r\n"
        #expect(RawClient.exchange(port: port, chunked).hasPrefix("HTTP/1.1 413"))
        let nonsense = RawClient.exchange(port: port, "NONSENSE\r\n\r\n")
        #expect(nonsense.isEmpty || nonsense.hasPrefix("HTTP/1.1 400"))
        let header = "GET /v1/flows HTTP/1.1\r\nHost: x\r\nX-Big: " + String(repeating: "z", count: 200_000) + "\r\nConnection: close\r\n\r\n"
        let huge = RawClient.exchange(port: port, header)
        #expect(huge.isEmpty || huge.hasPrefix("HTTP/1.1 4"))
        let fine = RawClient.exchange(port: port, "GET /v1/flows HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        #expect(fine.hasPrefix("HTTP/1.1 200"))
        #expect(fine.contains("\"basic\""))
    }

    @Test(
        "request smuggling shapes are refused before the body is read: Transfer-Encoding with Content-Length, two lengths, a folded header, no Host, a name that is no token"
    )
    func smugglingShapes() throws {
        let h = try Harness()
        let (server, port) = try h.serve()
        defer { server.stop() }
        let body = #"{"flow": "basic", "visitor": "ada"}"#
        let n = body.utf8.count
        let hex = String(n, radix: 16)
        let shapes: [(String, String)] = [
            (
                "Transfer-Encoding and Content-Length",
                "POST /v1/conversations HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nContent-Length: \(n)\r\nConnection: close\r\n\r\n\(hex)\r\n\(body)\r\n0\r\n\r\n"
            ),
            (
                "two Content-Lengths",
                "POST /v1/conversations HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: \(n)\r\nContent-Length: 4\r\nConnection: close\r\n\r\n\(body)"
            ),
            (
                "the same Content-Length twice",
                "POST /v1/conversations HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: \(n)\r\nContent-Length: \(n)\r\nConnection: close\r\n\r\n\(body)"
            ),
            ("a folded header (obs-fold)", "GET /v1/flows HTTP/1.1\r\nHost: x\r\nX-Note: a\r\n b\r\nConnection: close\r\n\r\n"),
            ("a folded header with a tab", "GET /v1/flows HTTP/1.1\r\nHost: x\r\nX-Note: a\r\n\tTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n"),
            ("no Host", "GET /v1/flows HTTP/1.1\r\nConnection: close\r\n\r\n"),
            ("two Hosts", "GET /v1/flows HTTP/1.1\r\nHost: x\r\nHost: y\r\nConnection: close\r\n\r\n"),
            ("two Hosts in HTTP/1.0", "GET /v1/flows HTTP/1.0\r\nHost: x\r\nHost: y\r\n\r\n"),
            // The library keeps the space in the name: it would read the length, a proxy in
            // front may have read the coding.
            (
                "a space before a colon",
                "POST /v1/conversations HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding : chunked\r\nContent-Length: \(n)\r\nConnection: close\r\n\r\n\(body)"
            ),
            ("a tab before a colon", "GET /v1/flows HTTP/1.1\r\nHost: x\r\nX-Note\t: a\r\nConnection: close\r\n\r\n"),
            ("a space in a name", "GET /v1/flows HTTP/1.1\r\nHost: x\r\nX Note: a\r\nConnection: close\r\n\r\n"),
            ("a byte past ASCII in a name", "GET /v1/flows HTTP/1.1\r\nHost: x\r\nX-Not\u{E9}: a\r\nConnection: close\r\n\r\n"),
        ]
        for (name, raw) in shapes {
            let answer = RawClient.exchange(port: port, raw)
            #expect(answer.hasPrefix("HTTP/1.1 400"), "\(name): \(answer.prefix(200))")
            #expect(answer.contains("X-Content-Type-Options: nosniff"), "\(name)")
        }
        #expect(h.service.count == 0, "no conversation was started by a refused request")
        let fine = RawClient.exchange(port: port, "GET /v1/flows HTTP/1.1\r\nHost: x\r\nX-Note: a b\r\nConnection: close\r\n\r\n")
        #expect(fine.hasPrefix("HTTP/1.1 200"))
        // Every byte a name may hold (RFC 9110's token) passes.
        let token = RawClient.exchange(port: port, "GET /v1/flows HTTP/1.1\r\nHost: x\r\nX-!#$%&'*+.^_`|~09az: 1\r\nConnection: close\r\n\r\n")
        #expect(token.hasPrefix("HTTP/1.1 200"), "\(token.prefix(120))")
        // HTTP/1.0 may leave out Host (a load balancer's health check often does).
        #expect(RawClient.exchange(port: port, "GET /healthz HTTP/1.0\r\n\r\n").hasPrefix("HTTP/1.1 200"))
    }

    @Test("a Transfer-Encoding other than chunked is refused at once (501 for codings before chunked, 400 otherwise); chunked in any case is read")
    func transferCodings() throws {
        let h = try Harness()
        let (server, port) = try h.serve()
        defer { server.stop() }
        let body = #"{"flow": "basic", "visitor": "ada"}"#
        let chunk = String(body.utf8.count, radix: 16) + "\r\n" + body + "\r\n0\r\n\r\n"
        func start(_ coding: String) -> String {
            RawClient.exchange(
                port: port,
                "POST /v1/conversations HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: \(coding)\r\nConnection: close\r\n\r\n\(chunk)"
            )
        }
        for coding in ["gzip", "chunked, gzip", "chunked,", "chunkedx", "identity", "chunked\t"] {
            let answer = start(coding)
            #expect(answer.hasPrefix("HTTP/1.1 400") && answer.contains("bad-framing"), "\(coding): \(answer.prefix(120))")
        }
        for coding in ["gzip, chunked", "deflate,chunked"] {
            let answer = start(coding)
            #expect(answer.hasPrefix("HTTP/1.1 501") && answer.contains("unsupported-coding"), "\(coding): \(answer.prefix(120))")
        }
        #expect(h.service.count == 0)
        #expect(start("Chunked").hasPrefix("HTTP/1.1 201"))
    }

    @Test("a body past the limit sent in chunks (no declared length) is 413 on every route, one that takes no body too")
    func undeclaredBodyTooLarge() throws {
        let h = try Harness()
        let (server, port) = try h.serve()
        defer { server.stop() }
        let piece = String(repeating: "a", count: 4096)
        let chunks = String(repeating: "1000\r\n" + piece + "\r\n", count: RocketLimits.requestBodyBytes / 4096 + 1) + "0\r\n\r\n"
        for path in ["/v1/visitors", "/v1/conversations"] {
            let answer = RawClient.exchange(
                port: port,
                "POST \(path) HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n\(chunks)")
            #expect(answer.hasPrefix("HTTP/1.1 413") && answer.contains("body-too-large"), "\(path): \(answer.prefix(120))")
        }
    }

    @Test("a header that says who calls, from which page, what the body is or what the client holds, given twice, is refused; other repeated headers are not")
    func repeatedSingleHeaders() throws {
        let h = try Harness()
        let (server, port) = try h.serve()
        defer { server.stop() }
        let body = #"{"flow": "basic", "visitor": "ada"}"#
        func start(_ extra: String) -> String {
            RawClient.exchange(
                port: port,
                "POST /v1/conversations HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n\(extra)Content-Length: \(body.utf8.count)\r\n"
                    + "Connection: close\r\n\r\n\(body)")
        }
        for twice in [
            "Origin: https://a.example\r\nOrigin: https://b.example\r\n", "Rocket-Visitor: ada\r\nrocket-visitor: bob\r\n",
            "Rocket-Visitor-Hash: 00\r\nRocket-Visitor-Hash: 11\r\n", "Authorization: Bearer a\r\nAuthorization: Bearer b\r\n",
            "Content-Type: application/json\r\n", "Rocket-Settled: 1/1\r\nRocket-Settled: 2/2\r\n",
        ] {
            let answer = start(twice)
            #expect(answer.hasPrefix("HTTP/1.1 400") && answer.contains("bad-header") && answer.contains("more than once"), "\(twice): \(answer.prefix(200))")
        }
        #expect(h.service.count == 0)
        #expect(start("X-Note: a\r\nX-Note: b\r\nX-Forwarded-For: 10.0.0.1\r\nX-Forwarded-For: 10.0.0.2\r\n").hasPrefix("HTTP/1.1 201"))
    }

    @Test("more header lines or query parameters than the limit are refused whole, never read in part")
    func headerAndParameterCounts() throws {
        let h = try Harness()
        let (server, port) = try h.serve()
        defer { server.stop() }
        // Host and Connection are two of the lines: `filler` more make the total.
        func headers(_ filler: Int) -> String { (0..<filler).map { "X-\($0): 1\r\n" }.joined() }
        let limit = RocketLimits.requestHeaders
        let atLimit = RawClient.exchange(port: port, "GET /v1/flows HTTP/1.1\r\nHost: x\r\n" + headers(limit - 2) + "Connection: close\r\n\r\n")
        #expect(atLimit.hasPrefix("HTTP/1.1 200"), "\(atLimit.prefix(80))")
        // A header after a hundred other lines (an Origin, a visitor's token) was once dropped
        // unread, the request going on without it: now the whole request is refused.
        let body = #"{"flow": "basic", "visitor": "ada"}"#
        let over = RawClient.exchange(
            port: port,
            "POST /v1/conversations HTTP/1.1\r\nHost: x\r\n" + headers(limit) + "Origin: https://elsewhere.example\r\nContent-Type: application/json\r\n"
                + "Content-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)")
        #expect(over.hasPrefix("HTTP/1.1 431"), "\(over.prefix(80))")
        #expect(over.contains("too-many-headers") && over.contains("X-Content-Type-Options: nosniff"))
        #expect(h.service.count == 0)
        let params = (0...RocketLimits.queryParameters).map { "p\($0)=1" }.joined(separator: "&")
        let query = RawClient.exchange(port: port, "GET /v1/flows?\(params) HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        #expect(query.hasPrefix("HTTP/1.1 400") && query.contains("bad-query"), "\(query.prefix(80))")
        let fewer = (1...RocketLimits.queryParameters).map { "p\($0)=1" }.joined(separator: "&")
        #expect(RawClient.exchange(port: port, "GET /v1/flows?\(fewer) HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").hasPrefix("HTTP/1.1 200"))
    }

    @Test("shared answers (the widget, a play page) arrive whole over a socket, plain and gzipped, many times over one connection")
    func sharedAnswers() throws {
        let h = try Harness()
        let (server, port) = try h.serve()
        defer { server.stop() }
        let assets = WebAssets()
        for (path, headers, expected) in [
            ("/widget.js", "", assets.widget.plain.payload), ("/widget.js", "Accept-Encoding: gzip\r\n", assets.widget.gzipped?.payload ?? []),
            ("/play/basic", "", assets.playPage(flow: "basic").payload),
        ] {
            // Three requests on one connection: the library lets go of each answer's hold in turn.
            let request = "GET \(path) HTTP/1.1\r\nHost: x\r\n\(headers)\r\n"
            let client = try #require(RawClient(port: port))
            client.send(request + request + request.replacingOccurrences(of: "Host: x", with: "Host: x\r\nConnection: close"))
            _ = client.read()
            let raw = client.received
            let text = String(decoding: raw, as: UTF8.self)
            #expect(text.components(separatedBy: "HTTP/1.1 200 OK").count == 4, "\(path): \(text.prefix(200))")
            #expect(text.components(separatedBy: "Content-Length: \(expected.count)\r\n").count == 4, "\(path)")
            // Each answer's body is the bytes held, exactly (the gzipped ones too).
            #expect(!expected.isEmpty && Array(raw.suffix(expected.count)) == expected, "\(path)")
        }
    }

    @Test(
        "the widget's script holds its English words; every other language's are apart at /widget/words/{lang}, for any site, and the play page holds them all"
    )
    func wordsApart() throws {
        let h = try Harness()
        let (server, port) = try h.serve()
        defer { server.stop() }
        let assets = WebAssets()
        let script = String(decoding: assets.widget.plain.payload, as: UTF8.self)
        let play = String(decoding: assets.playPage(flow: "basic").payload, as: UTF8.self)
        for strings in UIStrings.all {
            let done = try #require(strings.widgetWords["done"])
            let answer = RawClient.get(port: port, "/widget/words/\(strings.language)", headers: "Origin: https://shop.example\r\n")
            let body = try #require(answer.components(separatedBy: "\r\n\r\n").last)
            let table = try JSONReader.parse(Array(body.utf8)).plainValue
            #expect(answer.hasPrefix("HTTP/1.1 200") && answer.contains("Access-Control-Allow-Origin: *\r\n"), "\(answer.prefix(300))")
            #expect(answer.contains("Content-Type: application/json; charset=utf-8\r\n") && answer.contains("X-Content-Type-Options: nosniff"))
            guard case .object(let members) = table else {
                Issue.record("\(strings.language): no object")
                continue
            }
            #expect(members.count == strings.widgetWords.count && members.first { $0.0 == "done" }?.1 == .string(done), "\(strings.language)")
            // In the served script: English only; in the play page: every language.
            let quoted = JSONValue.quote(done)
            #expect(script.contains(quoted) == (strings.language == "en") || done == UIStrings.english.widgetWords["done"], "\(strings.language)")
            #expect(play.contains(quoted), "\(strings.language)")
            #expect(script.contains("\"\(strings.language)\""), "the script lists \(strings.language)")
        }
        // Asked for by the version the script names, the words are kept for a year; otherwise
        // (no version, an old one) for 60 s, as the script.
        let italian = try #require(assets.words["it"])
        let version = WebAssets.wordsVersion(italian.current)
        #expect(version.count == 10 && script.contains("\"it\":\"\(version)\""), "the script names the version")
        for (query, kept) in [
            ("?v=\(version)", "max-age=31536000, immutable"), ("", "max-age=60"), ("?v=0123", "max-age=60"), ("?v=\(italian.current.version)", "max-age=60"),
        ] {
            let answer = RawClient.get(port: port, "/widget/words/it" + query)
            #expect(answer.hasPrefix("HTTP/1.1 200") && answer.contains("Cache-Control: \(kept)\r\n"), "\(query): \(answer.prefix(300))")
        }
        for target in ["/widget/words/xx", "/widget/words/EN", "/widget/words/", "/widget/words/en/x", "/widget/words/..%2Fwidget.js"] {
            let answer = RawClient.get(port: port, target)
            #expect(answer.hasPrefix("HTTP/1.1 404"), "\(target): \(answer.prefix(80))")
        }
        let post = RawClient.exchange(port: port, "POST /widget/words/en HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
        #expect(post.hasPrefix("HTTP/1.1 405"), "\(post.prefix(80))")
        // Apart, each page that is not in English pays for its own language only.
        let everyLanguage = try #require(WebAssets.gzip(Array(play.utf8)))
        #expect(try #require(assets.widget.gzipped).payload.count + 3_000 < everyLanguage.count)
    }

    @Test("HEAD is answered on every page and every route that is read: the GET answer's headers, no body; event streams take GET only")
    func headRequests() throws {
        let dir = scratchDirectory() + "/flows"
        mkdir(dir, 0o755)
        _ = FileIO.write(#"{"version": 1, "blocks": [{"id": "a", "type": "text", "text": "Hi"}]}"#, to: dir + "/basic.json")
        let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + [UInt8](repeating: 7, count: 3000)
        let fd = open(dir + "/logo.png", O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        _ = FileIO.writeAll(fd, png)
        close(fd)
        let h = try Harness(flowsDirectory: dir)
        let (server, port) = try h.serve()
        defer { server.stop() }
        func exchange(_ method: String, _ target: String) -> String {
            RawClient.exchange(port: port, "\(method) \(target) HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        }
        func length(_ answer: String) -> String? {
            answer.split(separator: "\r\n").first { $0.hasPrefix("Content-Length: ") }.map { String($0.dropFirst(16)) }
        }
        for target in ["/", "/widget.js", "/widget/words/fr", "/play/basic", "/healthz", "/v1/flows", "/v1/flows/basic/files/logo.png"] {
            let get = exchange("GET", target)
            let head = exchange("HEAD", target)
            #expect(get.hasPrefix("HTTP/1.1 200") && head.hasPrefix("HTTP/1.1 200"), "\(target): \(head.prefix(80))")
            // The same length is announced, and nothing follows the headers.
            #expect(length(head) != nil && length(head) == length(get), "\(target)")
            #expect(head.hasSuffix("\r\n\r\n"), "\(target): \(head.suffix(40))")
        }
        // A route read by GET says it takes HEAD too; a stream and a route that writes do not.
        let post = exchange("POST", "/v1/flows")
        #expect(post.hasPrefix("HTTP/1.1 405") && post.contains("Allow: GET, HEAD\r\n"), "\(post.prefix(120))")
        #expect(exchange("PUT", "/widget.js").contains("Allow: GET, HEAD\r\n"))
        let stream = exchange("HEAD", "/v1/conversations/0123456789abcdef0123456789abcdef/events")
        #expect(stream.hasPrefix("HTTP/1.1 405") && stream.contains("Allow: GET\r\n"), "\(stream.prefix(120))")
        #expect(exchange("HEAD", "/v1/conversations").contains("Allow: POST\r\n"))
    }

    @Test("the widget and flow pictures carry an ETag; a client holding that version gets 304 without the bytes; gzip;q=0 refuses gzip")
    func conditionalRequests() throws {
        let dir = scratchDirectory() + "/flows"
        mkdir(dir, 0o755)
        _ = FileIO.write(#"{"version": 1, "blocks": [{"id": "a", "type": "text", "text": "Hi"}]}"#, to: dir + "/basic.json")
        func writePicture(_ fill: UInt8) {
            let fd = open(dir + "/logo.png", O_WRONLY | O_CREAT | O_TRUNC, 0o644)
            _ = FileIO.writeAll(fd, [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + [UInt8](repeating: fill, count: 2000))
            close(fd)
        }
        writePicture(1)
        let h = try Harness(flowsDirectory: dir)
        let (server, port) = try h.serve()
        defer { server.stop() }
        func get(_ target: String, _ headers: String = "") -> String { RawClient.get(port: port, target, headers: headers) }
        func header(_ answer: String, _ name: String) -> String? {
            answer.components(separatedBy: "\r\n\r\n").first?.split(separator: "\r\n").first { $0.lowercased().hasPrefix(name.lowercased() + ": ") }
                .map { String($0.dropFirst(name.count + 2)) }
        }
        for (target, accept) in [
            ("/widget.js", ""), ("/widget.js", "Accept-Encoding: gzip\r\n"), ("/v1/flows/basic/files/logo.png", ""), ("/widget/words/ko", ""),
            ("/widget/words/ko", "Accept-Encoding: gzip\r\n"),
        ] {
            let first = get(target, accept)
            let tag = try #require(header(first, "ETag"), "\(target)")
            #expect(first.hasPrefix("HTTP/1.1 200") && tag.hasPrefix("\"") && tag.hasSuffix("\""))
            for asked in [tag, "W/\(tag)", "\"other\", \(tag)", "*"] {
                let again = get(target, accept + "If-None-Match: \(asked)\r\n")
                #expect(again.hasPrefix("HTTP/1.1 304"), "\(target) \(asked): \(again.prefix(80))")
                #expect(header(again, "ETag") == tag && header(again, "Cache-Control") != nil)
                // Nothing follows the head: no body, no Content-Type, one Content-Length at most
                // (libmicrohttpd 0.9.75 writes its own 0; a second one would be a framing error
                // for a proxy in front).
                #expect(again.hasSuffix("\r\n\r\n") && header(again, "Content-Type") == nil, "\(again)")
                #expect(again.lowercased().components(separatedBy: "content-length:").count <= 2, "\(again)")
            }
            #expect(get(target, accept + "If-None-Match: \"other\"\r\n").hasPrefix("HTTP/1.1 200"))
        }
        // Each representation has its own tag: the plain widget's does not stand for the gzipped.
        let plainTag = try #require(header(get("/widget.js"), "ETag"))
        #expect(get("/widget.js", "Accept-Encoding: gzip\r\nIf-None-Match: \(plainTag)\r\n").hasPrefix("HTTP/1.1 200"))
        // A quality of zero refuses a coding; * stands for gzip when gzip is not named.
        #expect(header(get("/widget.js", "Accept-Encoding: gzip;q=0, br\r\n"), "Content-Encoding") == nil)
        #expect(header(get("/widget.js", "Accept-Encoding: gzip; q=0.000\r\n"), "Content-Encoding") == nil)
        #expect(header(get("/widget.js", "Accept-Encoding: *\r\n"), "Content-Encoding") == "gzip")
        #expect(header(get("/widget.js", "Accept-Encoding: *, gzip;q=0\r\n"), "Content-Encoding") == nil)
        #expect(header(get("/widget.js", "Accept-Encoding: GZIP;q=0.5\r\n"), "Content-Encoding") == "gzip")
        // A picture written again is a new version: the old tag gets the new bytes.
        let oldTag = try #require(header(get("/v1/flows/basic/files/logo.png"), "ETag"))
        writePicture(2)
        let changed = get("/v1/flows/basic/files/logo.png", "If-None-Match: \(oldTag)\r\n")
        #expect(changed.hasPrefix("HTTP/1.1 200") && header(changed, "ETag") != oldTag, "\(changed.prefix(120))")
    }

    @Test("a target in absolute form (http://name/path) is taken as its path, as RFC 9112 asks; the name in it decides nothing")
    func absoluteForm() throws {
        let h = try Harness()
        let (server, port) = try h.serve()
        defer { server.stop() }
        func get(_ target: String) -> String { RawClient.get(port: port, target) }
        let flows = get("http://elsewhere.example/v1/flows")
        #expect(flows.hasPrefix("HTTP/1.1 200") && flows.contains(#"{"flows":["basic","gated"],"titles":{}}"#), "\(flows.prefix(200))")
        #expect(get("HTTPS://X:8443/healthz").hasPrefix("HTTP/1.1 200"))
        #expect(get("http://x").contains("<!doctype html>"))
        #expect(get("http://x?flow=basic").contains("<!doctype html>"))
        // Only http and https name a path; anything else matches no route.
        for target in ["ftp://x/v1/flows", "v1/flows", "http:/v1/flows", "//x/v1/flows"] {
            #expect(get(target).hasPrefix("HTTP/1.1 404"), "\(target)")
        }
        #expect(HTTPRequest.path(ofTarget: "/v1/flows") == "/v1/flows")
        #expect(HTTPRequest.path(ofTarget: "hTtP://a.example/v1/flows/x/files/a/b.png") == "/v1/flows/x/files/a/b.png")
        #expect(HTTPRequest.path(ofTarget: "https://a.example") == "/")
        #expect(HTTPRequest.path(ofTarget: "*") == "*")
    }

    @Test("an encoded NUL in the path or the query is 400: the library's decoding would end the path or value there")
    func encodedNul() throws {
        let h = try Harness()
        let (server, port) = try h.serve()
        defer { server.stop() }
        func get(_ target: String) -> String { RawClient.get(port: port, target) }
        // "/v1/flows%00x" was read as "/v1/flows" and answered 200.
        for target in ["/v1/flows%00x", "/v1/flows?flow=basic%00x", "/play/basic%00.json", "/v1/flows%00"] {
            let r = get(target)
            #expect(r.hasPrefix("HTTP/1.1 400") && r.contains("bad-target") && r.contains("nosniff"), "\(target): \(r.prefix(80))")
        }
        // An escaped percent sign is no NUL. On one connection, a request after a clean one is
        // judged on its own; the refusal closes the connection, so nothing after it is read.
        #expect(get("/v1/flows?x=%2500").hasPrefix("HTTP/1.1 200"))
        let three = RawClient.exchange(
            port: port,
            "GET /v1/flows HTTP/1.1\r\nHost: x\r\n\r\nGET /v1/flows?x=%00 HTTP/1.1\r\nHost: x\r\n\r\nGET /v1/flows HTTP/1.1\r\nHost: x\r\n\r\n")
        let answers = three.components(separatedBy: "HTTP/1.1 ").dropFirst().map { String($0.prefix(3)) }
        #expect(answers == ["200", "400"], "\(three)")
    }

    @Test("the report takes only its own query parameters, each once: a typo or a repeat is 400, not a report of something else")
    func reportParameters() throws {
        let key = "report-key-0123456789abcdef"
        let h = try Harness(access: AccessControl(secret: AccessControl.randomBytes(32), keys: [key]))
        let (server, port) = try h.serve()
        defer { server.stop() }
        func get(_ query: String, key: String = key) -> String {
            RawClient.exchange(port: port, "GET /v1/report?\(query) HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(key)\r\nConnection: close\r\n\r\n")
        }
        #expect(get("flow=basic&minCount=3&against=a").hasPrefix("HTTP/1.1 200"))
        let typo = get("flow=basic&minCont=3")
        #expect(typo.hasPrefix("HTTP/1.1 400") && typo.contains(#"unknown query parameter \"minCont\"; this route takes flow, minCount, against"#), "\(typo)")
        let twice = get("flow=basic&minCount=3&flow=gated")
        #expect(twice.hasPrefix("HTTP/1.1 400") && twice.contains(#"\"flow\" is given more than once"#), "\(twice)")
        // Who calls is decided first: without the key the query is not looked at.
        #expect(get("minCont=3", key: "nope-0123456789abcdef").hasPrefix("HTTP/1.1 401"))
        // Routes that read no query ignore one (a cache-busting parameter is harmless there).
        #expect(RawClient.exchange(port: port, "GET /v1/flows?_=1&_=2 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").hasPrefix("HTTP/1.1 200"))
    }

    @Test(
        "every answer rocket makes says nosniff, whichever layer made it; the library's own refusals repeat nothing; OPTIONS is 404 off the routes"
    )
    func nosniffEverywhere() throws {
        let h = try Harness { $0.maxBodyBytes = 1024 }
        let (server, port) = try h.serve()
        defer { server.stop() }
        let requests = [
            "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
            "GET /widget.js HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
            "GET /favicon.ico HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
            "GET /v1/flows HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
            "GET /nothing HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
            post("/v1/conversations", String(repeating: "x", count: 5000)),
        ]
        for raw in requests {
            let answer = RawClient.exchange(port: port, raw)
            #expect(answer.contains("X-Content-Type-Options: nosniff"), "\(raw.prefix(40)): \(answer.prefix(200))")
        }
        // The refusals libmicrohttpd sends itself, before rocket sees the request (docs/SERVER.md
        // lists them), carry no nosniff: each is a fixed sentence that repeats nothing of the
        // request, and the connection closes after it.
        let marker = "<script>rocket()</script>"
        let early = [
            ("431", "GET /v1/flows?m=\(marker) HTTP/1.1\r\nHost: x\r\nX-A: \(marker)\(String(repeating: "a", count: 20_000))\r\n\r\n"),
            ("400", "POST /v1/visitors HTTP/1.1\r\nHost: x\r\nX-A: \(marker)\r\nContent-Length: -\(marker)\r\n\r\n"),
            ("413", "POST /v1/visitors HTTP/1.1\r\nHost: x\r\nX-A: \(marker)\r\nContent-Length: 99999999999999999999999\r\n\r\n"),
            ("505", "GET /\(marker) HTTP/9.9\r\nHost: x\r\n\r\n"),
        ]
        for (status, raw) in early {
            let answer = RawClient.exchange(port: port, raw)
            #expect(answer.hasPrefix("HTTP/1.1 \(status)"), "\(status): \(answer.prefix(80))")
            #expect(!answer.contains("rocket()"), "\(status): \(answer)")
        }
        #expect(h.request("OPTIONS", "/v1/nothing").status == 404)
        #expect(h.request("OPTIONS", "/v1/conversations/abc/nothing").status == 404)
        #expect(h.request("OPTIONS", "/v1/conversations").status == 204)
        #expect(h.request("OPTIONS", "/v1/conversations/0123/intents").status == 204)
    }

    @Test("a link or a FIFO in the flows folder is never followed, offered or waited on")
    func flowsFolderLinks() throws {
        let root = scratchDirectory()
        let dir = root + "/flows"
        let outside = root + "/outside"
        for d in [dir, outside, dir + "/pics"] { mkdir(d, 0o755) }
        let flow = #"{"version": 1, "blocks": [{"id": "a", "type": "text", "text": "Hi"}]}"#
        for path in [dir + "/real.json", outside + "/secret.json"] { _ = FileIO.write(flow, to: path) }
        let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 0]
        for path in [dir + "/pics/ok.png", outside + "/secret.png"] {
            let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
            _ = png.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            close(fd)
        }
        symlink(outside + "/secret.json", dir + "/linked.json")
        symlink(outside + "/secret.png", dir + "/pics/linked.png")
        symlink(outside, dir + "/away")
        mkfifo(dir + "/pipe.json", 0o644)
        mkfifo(dir + "/pics/pipe.png", 0o644)
        let h = try Harness(flowsDirectory: dir)
        let names = h.request("GET", "/v1/flows").text
        #expect(names.contains("\"real\""))
        for hidden in ["linked", "pipe"] { #expect(!names.contains("\"\(hidden)\""), "\(hidden) is offered") }
        #expect(h.request("POST", "/v1/conversations", body: #"{"flow": "linked", "visitor": "ada"}"#).status == 404)
        #expect(h.request("POST", "/v1/conversations", body: #"{"flow": "pipe", "visitor": "ada"}"#).status == 404)
        let ok = h.request("GET", "/v1/flows/real/files/pics/ok.png")
        #expect(ok.status == 200, "\(ok.text)")
        for path in ["pics/linked.png", "away/secret.png", "pics/pipe.png", "pics"] {
            #expect(h.request("GET", "/v1/flows/real/files/\(path)").status == 404, "\(path)")
        }
    }

    @Test("8 KiB of headers and a body at the 16 KiB limit are served (a connection's memory holds them)")
    func largeButAllowed() throws {
        let h = try Harness()
        let (server, port) = try h.serve()
        defer { server.stop() }
        let cookies = (0..<8).map { "X-Cookie-\($0): " + String(repeating: "c", count: 1000) + "\r\n" }.joined()
        let headers = RawClient.exchange(port: port, "GET /v1/flows HTTP/1.1\r\nHost: x\r\n" + cookies + "Connection: close\r\n\r\n")
        #expect(headers.hasPrefix("HTTP/1.1 200"))
        // 15 vars of 1,024 bytes: a body just under 16 KiB, read whole and answered.
        let vars = (0..<15).map { #""v\#($0)": ""# + String(repeating: "n", count: 1024) + "\"" }.joined(separator: ", ")
        let body = #"{"flow": "basic", "visitor": "ada", "vars": {"# + vars + "}}"
        #expect(body.utf8.count > 15 << 10 && body.utf8.count <= 16 << 10)
        let answer = RawClient.exchange(port: port, post("/v1/conversations", body))
        #expect(answer.hasPrefix("HTTP/1.1 201"), "\(answer.prefix(300))")
        #expect(!answer.hasPrefix("HTTP/1.1 413"))
        // Headers past the connection's memory: 431, and the server goes on.
        let lines = (RocketLimits.connectionMemoryBytes / 1000 + 1)
        let tooMany = (0..<lines).map { "X-Cookie-\($0): " + String(repeating: "c", count: 1000) + "\r\n" }.joined()
        #expect(RawClient.exchange(port: port, "GET /v1/flows HTTP/1.1\r\nHost: x\r\n" + tooMany + "Connection: close\r\n\r\n").hasPrefix("HTTP/1.1 431"))
        #expect(RawClient.exchange(port: port, "GET /v1/flows HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").hasPrefix("HTTP/1.1 200"))
    }

    @Test("a restart resumes every conversation where it was, with its answers")
    func resumeAfterRestart() throws {
        let path = scratchDirectory() + "/store.sqlite"
        let clock = ManualClock(now: 1_800_000_000)
        let id: String
        do {
            let h = try Harness(path: path, clock: clock)
            id = try h.start()
            _ = h.send(id, #""intent": "tap", "step": 0"#)
            _ = h.send(id, #""intent": "submit", "text": "Ada", "step": 1"#)
        }
        let again = try Harness(path: path, clock: clock)
        // Read from the archive by another visitor first: unknown to them, and not loaded for them.
        #expect(again.request("GET", "/v1/conversations/\(id)", visitor: "bob").status == 404)
        let v = try #require(again.view(id))
        #expect(v["step"]?.number == 2)
        #expect(v["transcript"]?.array.last?["text"]?.string == "PIN?")
        #expect(again.send(id, #""intent": "submit", "text": "9999", "step": 2"#).status == 200)
        #expect(again.send(id, #""intent": "choose", "option": 0, "step": 3"#).status == 200)
        #expect(again.view(id)?["transcript"]?.array.last?["text"]?.string == "Bye Ada")
        // Another visitor still cannot reach it, and the event log continued without gaps.
        #expect(again.request("GET", "/v1/conversations/\(id)", visitor: "bob").status == 404)
        let events = try again.archive().events(id)
        #expect(events.filter { $0.contains("inputSubmitted") }.count == 2)
    }

    @Test("1,000 conversations at once, from 8 threads: every answer stays in its own conversation")
    func noCrossTalk() throws {
        let h = try Harness(persistent: false) { $0.maxConversations = 2_000 }
        let ids = Mutex<[String: String]>([:])
        DispatchQueue.concurrentPerform(iterations: 8) { worker in
            for k in stride(from: worker, to: 1_000, by: 8) {
                let visitor = "visitor-\(k)"
                let r = h.request("POST", "/v1/conversations", body: #"{"flow": "basic", "visitor": "\#(visitor)"}"#)
                guard let id = r.json?["conversation"]?["id"]?.string else { continue }
                ids.withLock { $0[visitor] = id }
                h.service.advanceDue()
                _ = h.send(id, #""intent": "tap", "step": 0"#, visitor: visitor)
                _ = h.send(id, #""intent": "submit", "text": "n\#(k)", "step": 1"#, visitor: visitor)
            }
        }
        let all = ids.withLock { $0 }
        #expect(all.count == 1_000)
        #expect(Set(all.values).count == 1_000)
        for (visitor, id) in all {
            let k = visitor.dropFirst("visitor-".count)
            let replies = h.view(id, visitor: visitor)?["transcript"]?.array.filter { $0["type"]?.string == "reply" }.compactMap { $0["text"]?.string }
            #expect(replies == ["n\(k)"], "\(visitor)")
        }
    }

    static let node = ["/usr/bin/node", "/usr/local/bin/node"].first { FileManager.default.isExecutableFile(atPath: $0) }

    @Test("the widget is valid JavaScript (checked with node; skipped, visibly, without it)", .enabled(if: ServerTests.node != nil))
    func widgetParses() throws {
        let node = try #require(Self.node)
        let file = scratchDirectory() + "/widget.js"
        try WebAssets().widget.plain.payload.withUnsafeBytes { try Data($0).write(to: URL(fileURLWithPath: file)) }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: node)
        p.arguments = ["--check", file]
        try p.run()
        p.waitUntilExit()
        #expect(p.terminationStatus == 0)
        // Inside the size budget: 30 KB gzipped for everything (issue 22), as it is sent.
        #expect((WebAssets().widget.gzipped?.payload.count ?? .max) < 30_000)
    }
}
