import Foundation
import RocketConversation
import RocketCore
import RocketFlow
import RocketJSON
import RocketReport
import RocketScenarios
import RocketScenariosPostgres
import RocketPostgres
import RocketSQLite
import Synchronization
import RocketTestSupport
import RocketPlatform
import Testing

@testable import RocketScenariosSQLite
@testable import RocketServer

@Suite("HTTP API: every route's happy path and errors")
struct APITests {
    @Test("the stored form of a conversation is written field by field and reads back equal")
    func storedForm() throws {
        var g = RocketGraph()
        let name = g.add(RocketNode(id: "name", content: .textInput(RocketInputNode(text: "Name?", buttonTitle: "Send", next: nil))))
        g.root = g.add(RocketNode(id: "hi", text: "Hi \"you\"", next: name))
        var options = ConversationOptions(timing: .reducedMotion, echoReplies: true, initialAnswers: ["plan": "pro"])
        options.timing.autoAdvanceScale = 0.5
        var c = Conversation(graph: g, options: options)
        c.start(at: 10)
        _ = try c.send(.tap, at: 11)
        _ = try? c.send(.submit(""), at: 12)
        for language in ["en", nil] {
            var stored = StoredConversation(snapshot: ConversationSnapshot(c, at: 12), options: options, language: "it")
            stored.language = language
            let text = stored.jsonText()
            #expect(
                text.contains(
                    #""options":{"timing":{"intro":0,"bounce":0,"doubleBounce":0,"closing":0,"autoAdvanceScale":0.5},"echoReplies":true,"initialAnswers":{"plan":"pro"}}"#
                ))
            let read = try StoredConversation(jsonText: Array(text.utf8), graph: g, identity: g.contentHash)
            #expect(read.snapshot == stored.snapshot && read.options == options && read.language == language)
        }
    }

    @Test("response header values lose control characters; clean ones pass unchanged")
    func headerValues() {
        #expect(HTTPServer.headerValue("text/plain; charset=utf-8") == "text/plain; charset=utf-8")
        #expect(HTTPServer.headerValue("a\r\nSet-Cookie: x\u{7F}\u{0}b") == "aSet-Cookie: xb")
        #expect(HTTPServer.headerValue("café") == "café")
    }

    @Test("a conversation starts, shows its first block, and is read back")
    func startAndRead() throws {
        let h = try Harness { $0.timing = .original }
        let r = h.request("POST", "/v1/conversations", body: #"{"flow": "basic", "visitor": "ada", "vars": {"plan": "pro", "name": "Ada"}}"#)
        #expect(r.status == 201)
        #expect(r.json?["status"]?.string == "started")
        // "plan" is read nowhere in the flow ("name" is, by its last text's {{name}}): named.
        #expect(r.json?["unusedVars"]?.array.compactMap(\.string) == ["plan"])
        let plain = h.request("POST", "/v1/conversations", body: #"{"flow": "basic", "visitor": "bo", "vars": {"name": "Bo"}}"#)
        #expect(plain.status == 201 && plain.json?["unusedVars"] == nil)
        let id = try #require(r.json?["conversation"]?["id"]?.string)
        #expect(id.count == 32)
        #expect(r.json?["conversation"]?["status"]?.string == "presenting")
        #expect(r.json?["conversation"]?["typing"]?.bool == true)
        h.service.advanceDue()
        #expect(h.view(id)?["status"]?.string == "presenting")
        h.clock.advance(by: RocketTiming.original.intro)
        h.service.advanceDue()
        let v = try #require(h.view(id))
        #expect(v["status"]?.string == "active")
        #expect(v["transcript"]?[0]?["text"]?.string == "Hi")
        #expect(v["accepts"]?.array.compactMap(\.string) == ["tap", "close"])
        #expect(v["author"]?["name"]?.string == "Bot")
        #expect(v["closeButton"]?["title"]?.string == "Close")
    }

    @Test("intents walk the flow: tap, validated input, secret input, choice; answers never leak secrets")
    func walkTheFlow() throws {
        let h = try Harness()
        let id = try h.start()
        var r = h.send(id, #""intent": "tap", "step": 0"#)
        #expect(r.status == 200)
        #expect(r.json?["conversation"]?["accepts"]?.array.first?.string == "submit")
        // Too long: refused with the rule's message, shown as the input error.
        r = h.send(id, #""intent": "submit", "text": "Augusta Ada King", "step": 1"#)
        #expect(r.status == 422)
        #expect(r.json?["error"]?["code"]?.string == "invalid-input")
        #expect(r.json?["error"]?["conversation"]?["inputError"]?.string == "Please type at most 10 characters.")
        r = h.send(id, #""intent": "submit", "text": "Ada", "step": 1"#)
        #expect(r.status == 200)
        r = h.send(id, #""intent": "submit", "text": "1234", "step": 2"#)
        #expect(r.status == 200)
        let transcript = r.json?["conversation"]?["transcript"]?.array ?? []
        let replies = transcript.filter { $0["type"]?.string == "reply" }.compactMap { $0["text"]?.string }
        #expect(replies.first == "Ada")
        #expect(!replies.contains("1234"))
        r = h.send(id, #""intent": "choose", "option": 1, "step": 3"#)
        #expect(r.status == 200)
        let v = try #require(h.view(id))
        #expect(v["transcript"]?.array.last?["text"]?.string == "Bye Ada")
        #expect(v["answers"] == nil, "the answers come with the end")
        // The end: the view carries the answers, secret ones left out; a site reads them too.
        r = h.send(id, #""intent": "tap", "step": 4"#)
        let ended = try #require(h.view(id))
        #expect(ended["status"]?.string == "dismissed" && ended["reason"]?.string == "completed", "\(r.text)")
        let answers = try #require(ended["answers"]?.object)
        #expect(answers.map(\.key) == ["name", "pick"])
        #expect(ended["answers"]?["name"]?.string == "Ada" && ended["answers"]?["pick"]?.string == "Blue")
        #expect(!h.request("GET", "/v1/conversations/\(id)", visitor: "ada").text.contains("1234"))
        // Nothing secret in the archive: not in the snapshot, not in the events.
        let archive = try h.archive()
        let row = try #require(try archive.load(id)?.row)
        #expect(!row.snapshot.contains("1234"))
        #expect(row.snapshot.contains("Ada"))
        let events = try archive.events(id)
        #expect(events.contains { $0.contains("inputSubmitted") })
        #expect(!events.joined().contains("1234"))
        #expect(!events.joined().contains("\"Ada\""))
    }

    @Test("a refused intent: wrong kind, no such option, no close button")
    func refusals() throws {
        let h = try Harness()
        let id = try h.start()
        var r = h.send(id, #""intent": "pressButton""#)
        #expect(r.status == 422)
        #expect(r.json?["error"]?["code"]?.string == "wrong-kind")
        #expect(r.json?["error"]?["conversation"]?["step"]?.number == 0)
        r = h.send(id, #""intent": "choose", "option": 7"#)
        #expect(r.status == 422)
        let g = try h.start("gated", visitor: "bob")
        r = h.send(g, #""intent": "close""#, visitor: "bob")
        #expect(r.status == 422)
        #expect(r.json?["error"]?["code"]?.string == "no-close-button")
    }

    @Test("a replayed intent is answered with the state and applied once; another stale step is a conflict")
    func replay() throws {
        let h = try Harness()
        let id = try h.start()
        let first = h.send(id, #""intent": "tap", "step": 0"#)
        #expect(first.status == 200)
        let again = h.send(id, #""intent": "tap", "step": 0"#)
        #expect(again.status == 200)
        #expect(again.json?["conversation"]?["version"]?.number == first.json?["conversation"]?["version"]?.number)
        #expect(h.view(id)?["step"]?.number == 1)
        let stale = h.send(id, #""intent": "submit", "text": "Ada", "step": 0"#)
        #expect(stale.status == 409)
        #expect(stale.json?["error"]?["code"]?.string == "stale-step")
        #expect(h.view(id)?["step"]?.number == 1)
    }

    @Test("malformed, truncated, oversized and mistyped bodies are 4xx with a JSON error")
    func badBodies() throws {
        let h = try Harness()
        let cases: [(String?, String?, Int, String)] = [
            (#"{"flow": "basic", "visitor": "ada""#, "application/json", 400, "bad-json"),
            ("not json", "application/json", 400, "bad-json"),
            ("[1, 2]", "application/json", 400, "bad-body"),
            (#"{"flow": "basic", "visitor": "ada", "extra": 1}"#, "application/json", 400, "unknown-field"),
            (#"{"flow": 7, "visitor": "ada"}"#, "application/json", 400, "bad-field"),
            (#"{"visitor": "ada"}"#, "application/json", 400, "missing-field"),
            (#"{"flow": "basic", "visitor": "a b"}"#, "application/json", 400, "bad-visitor"),
            (#"{"flow": "basic", "visitor": "ada"}"#, "text/plain", 415, "json-only"),
            (#"{"flow": "basic", "visitor": "ada"}"#, nil, 415, "json-only"),
            (#"{"flow": "nope", "visitor": "ada"}"#, "application/json", 404, "unknown-flow"),
            (#"{"flow": "../etc/passwd", "visitor": "ada"}"#, "application/json", 404, "unknown-flow"),
            (#"{"flow": "basic", "visitor": "ada", "vars": {"a": [1]}}"#, "application/json", 400, "bad-field"),
            (String(repeating: "[", count: 100), "application/json", 400, "bad-json"),
            // A field given twice is refused, not "the last one wins" (a proxy may read the first).
            (#"{"flow": "basic", "visitor": "ada", "visitor": "eve"}"#, "application/json", 400, "bad-body"),
            (#"{"flow": "basic", "visitor": "ada", "vars": {"a": "1", "a": "2"}}"#, "application/json", 400, "bad-field"),
            (#"{"flow": "basic", "visitor": "ada", "reducedMotion": "yes"}"#, "application/json", 400, "bad-field"),
        ]
        for (body, type, status, code) in cases {
            let r = h.request("POST", "/v1/conversations", body: body, contentType: type)
            #expect(r.status == status, "\(body ?? "") → \(r.text)")
            #expect(r.json?["error"]?["code"]?.string == code, "\(body ?? "")")
            #expect(r.header("Content-Type")?.hasPrefix("application/json") == true)
        }
        // An error quotes at most RocketLimits.quotedCharacters of what the request named.
        let long = String(repeating: "k", count: 10_000)
        let tries: [(String, String, String?)] = [
            ("POST", "/v1/conversations", #"{"flow": "basic", "visitor": "ada", "\#(long)": 1}"#),
            ("GET", "/play/" + long, nil),
        ]
        for (method, path, body) in tries {
            let r = h.request(method, path, body: body, contentType: body == nil ? nil : "application/json")
            #expect(r.status == 400 || r.status == 404, "\(r.status)")
            #expect(r.text.count < 300 && r.text.contains("…"), "\(method) \(path.prefix(20)): \(r.text.count) characters")
        }
        let big = h.service.handle(
            HTTPRequest(method: "POST", path: "/v1/conversations", headers: ["Content-Type": "application/json"], bodyTooLarge: true))
        #expect(big.status == 413)
        let id = try h.start()
        for members in [
            #""intent": "jump""#, #""intent": "submit""#, #""intent": "choose", "option": -1"#, #""intent": "tap", "step": 1.5"#,
            #""intent": "tap", "text": "x""#,
        ] {
            let r = h.send(id, members)
            #expect(r.status == 400, "\(members) → \(r.text)")
        }
    }

    @Test("damaged request bodies are answered 2xx or 4xx, never 5xx or a trap")
    func fuzzedBodies() throws {
        let h = try Harness()
        let id = try h.start()
        var seed: UInt64 = 0x5EED
        func next() -> UInt64 {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return seed >> 11
        }
        let starts = Array(#"{"flow": "basic", "visitor": "ada", "vars": {"name": "Ada"}, "reducedMotion": true, "lang": "it"}"#.utf8)
        let intents = Array(#"{"intent": "submit", "text": "Ada \u00e9", "step": 1}"#.utf8)
        for round in 0..<600 {
            var body = round % 2 == 0 ? starts : intents
            for _ in 0..<(1 + Int(next() % 3)) {
                let at = Int(next() % UInt64(body.count))
                switch next() % 3 {
                case 0: body[at] = UInt8(truncatingIfNeeded: next())
                case 1: body.remove(at: at)
                default:
                    let marks = Array(#"{}[]",:0\"#.utf8)
                    body.insert(marks[Int(next() % UInt64(marks.count))], at: at)
                }
            }
            let text = String(decoding: body, as: UTF8.self)
            let r =
                round % 2 == 0
                ? h.request("POST", "/v1/conversations", body: text) : h.request("POST", "/v1/conversations/\(id)/intents", body: text, visitor: "ada")
            #expect(r.status < 500, "\(text) → \(r.status) \(r.text)")
        }
    }

    @Test("ids are bound to their visitor: another visitor, a made-up id and a malformed id all get 404")
    func visitorBinding() throws {
        let h = try Harness()
        let id = try h.start(visitor: "ada")
        #expect(h.request("GET", "/v1/conversations/\(id)", visitor: "mallory").status == 404)
        #expect(h.send(id, #""intent": "tap""#, visitor: "mallory").status == 404)
        #expect(h.request("GET", "/v1/conversations/\(id)/events", visitor: "mallory").status == 404)
        #expect(h.request("GET", "/v1/conversations/" + String(repeating: "a", count: 32), visitor: "ada").status == 404)
        #expect(h.request("GET", "/v1/conversations/../../etc", visitor: "ada").status == 404)
        #expect(h.view(id)?["step"]?.number == 0)
        #expect(h.request("GET", "/v1/conversations/\(id)?x", visitor: "ada").status == 404)
    }

    @Test("routes: unknown paths are 404, wrong methods 405 with Allow, pages and the widget are served")
    func routes() throws {
        let h = try Harness()
        #expect(h.request("GET", "/nope").status == 404)
        // A path that is nothing is 404 whatever the method; a page asked for by POST is 405.
        #expect(h.request("POST", "/nope").status == 404)
        #expect(h.request("DELETE", "/play/basic/extra").status == 404)
        let post = h.request("POST", "/widget.js")
        #expect(post.status == 405)
        #expect(post.header("Allow") == "GET, HEAD")
        let wrong = h.request("DELETE", "/v1/conversations")
        #expect(wrong.status == 405)
        #expect(wrong.header("Allow") == "POST")
        #expect(h.request("GET", "/v1/flows").json?["flows"]?.array.compactMap(\.string) == ["basic", "gated"])
        let js = h.request("GET", "/widget.js")
        #expect(js.status == 200)
        #expect(js.header("Content-Type")?.hasPrefix("text/javascript") == true)
        #expect(!js.text.contains("\"__CSS__\""))
        let packed = h.request("GET", "/widget.js", headers: ["Accept-Encoding": "br, gzip;q=0.9"])
        #expect(packed.header("Content-Encoding") == "gzip")
        #expect(packed.payload.starts(with: [0x1F, 0x8B]))
        #expect(packed.payload.count < js.payload.count / 2)
        // Held once and shared by every answer (no copy per connection), never rebuilt per request.
        #expect(js.body.isEmpty && js.shared != nil && js.shared === h.request("GET", "/widget.js").shared)
        let page = h.request("GET", "/play/basic")
        #expect(page.status == 200)
        #expect(page.text.contains(#"data-flow="basic""#))
        // The widget is inline, and the policy lets exactly that script run (its SHA-256).
        let csp = try #require(page.header("Content-Security-Policy"))
        let script = try #require(page.text.split(separator: "data-page>").last?.split(separator: "</script>").first)
        #expect(script.count > 10_000)
        #expect(page.text.components(separatedBy: "</script>").count == 2)
        #expect(csp.contains("script-src 'self' 'sha256-\(Base64.encode(SHA256.digest(Array(script.utf8))))'"))
        #expect(!csp.contains("script-src 'self' 'unsafe-inline'"))
        // The tour's page: its attribute on the script's tag, the script (and its hash) the same.
        let tour = WebAssets().playPage(flow: "demo", tour: true)
        #expect(tour.text.contains(#"data-page data-closing-alert>"#))
        #expect(tour.text.split(separator: "data-closing-alert>").last?.split(separator: "</script>").first == script)
        let packedPage = h.request("GET", "/play/basic", headers: ["Accept-Encoding": "gzip"])
        #expect(packedPage.header("Content-Encoding") == "gzip" && packedPage.payload.count < page.payload.count / 2)
        #expect(page.shared != nil && page.shared === h.request("GET", "/play/basic").shared)
        #expect(h.request("GET", "/play/nope").status == 404)
        #expect(h.request("GET", "/").text.contains("/play/gated"))
    }

    @Test("the home page's embed line names where the widget is: --public-url, else the one address listened on; never the Host header")
    func embedLine() throws {
        func line(_ h: Harness, host: String = "evil.example") -> String? {
            let page = h.request("GET", "/", headers: ["Host": host]).text
            return page.range(of: #"src=\"[^\"]*/widget.js\""#, options: .regularExpression).map { String(page[$0]) }
        }
        let behind = try Harness { $0.publicOrigins = ["https://chat.example"] }
        #expect(line(behind) == #"src="https://chat.example/widget.js""#)
        // Not listening yet, and no public address: a placeholder, not the client's Host.
        let plain = try Harness()
        #expect(line(plain, host: "<b>evil</b>") == #"src="…/widget.js""#)
        plain.service.listening(host: "127.0.0.1", port: 8123)
        #expect(line(plain) == #"src="http://127.0.0.1:8123/widget.js""#)
        let everywhere = try Harness()
        everywhere.service.listening(host: "0.0.0.0", port: 8123)
        #expect(line(everywhere) == #"src="…/widget.js""#)
        let six = try Harness()
        six.service.listening(host: "::1", port: 8123)
        #expect(line(six) == #"src="http://[::1]:8123/widget.js""#)
    }

    @Test("the event stream route answers with the current state and names the conversation to follow")
    func streamRoute() throws {
        let h = try Harness()
        let id = try h.start()
        let r = h.request("GET", "/v1/conversations/\(id)/events", visitor: "ada")
        #expect(r.status == 200)
        #expect(r.stream == id)
        #expect(r.header("Content-Type")?.hasPrefix("text/event-stream") == true)
        #expect(r.text.contains("event: state\ndata: {"))
    }

    @Test("pages of other sites are refused unless listed; listed ones get CORS headers and preflights")
    func origins() throws {
        let h = try Harness {
            $0.allowedOrigins = ["https://shop.example"]
            $0.publicOrigins = ["https://chat.example"]
        }
        h.service.listening(host: "127.0.0.1", port: 8080)
        let body = #"{"flow": "basic", "visitor": "ada"}"#
        let foreign = h.request("POST", "/v1/conversations", body: body, headers: ["Origin": "https://evil.example", "Host": "127.0.0.1:8080"])
        #expect(foreign.status == 403)
        #expect(foreign.json?["error"]?["code"]?.string == "origin-not-allowed")
        let same = h.request("POST", "/v1/conversations", body: body, headers: ["Origin": "http://127.0.0.1:8080", "Host": "127.0.0.1:8080"])
        #expect(same.status == 201)
        #expect(same.header("Access-Control-Allow-Origin") == nil)
        // The Host header decides nothing: a rebound name, or the server's address under another
        // scheme, is another site.
        for (origin, host) in [("http://evil.example:8080", "evil.example:8080"), ("https://127.0.0.1:8080", "127.0.0.1:8080")] {
            #expect(h.request("POST", "/v1/conversations", body: body, headers: ["Origin": origin, "Host": host]).status == 403, "\(origin)")
        }
        // Behind a proxy, the public address (--public-url) is the server's own; so is localhost.
        for origin in ["https://chat.example", "http://localhost:8080"] {
            #expect(h.request("POST", "/v1/conversations", body: body, headers: ["Origin": origin, "Host": "127.0.0.1:8080"]).status == 201)
        }
        let listed = h.request("POST", "/v1/conversations", body: body, headers: ["Origin": "https://shop.example", "Host": "127.0.0.1:8080"])
        #expect(listed.status == 201)
        #expect(listed.header("Access-Control-Allow-Origin") == "https://shop.example")
        // The widget on that site reads a refusal's Retry-After (exposed to its script).
        #expect(listed.header("Access-Control-Expose-Headers") == "Retry-After")
        let preflight = h.request("OPTIONS", "/v1/conversations", headers: ["Origin": "https://shop.example"])
        #expect(preflight.status == 204)
        for name in ["Rocket-Visitor", "Rocket-Visitor-Hash", "Rocket-Settled", "Authorization", "Last-Event-ID"] {
            #expect(preflight.header("Access-Control-Allow-Headers")?.contains(name) == true, "\(name)")
        }
        #expect(h.request("OPTIONS", "/v1/conversations", headers: ["Origin": "null"]).status == 403)
    }

    @Test("a budget counts each visitor's own executions: new visitors cannot use it up for everyone, and one visitor's gated flows share theirs")
    func budgetPerVisitor() throws {
        let dir = scratchDirectory()
        for name in ["promo", "survey"] {
            let when = #""when": {"budget": {"executions": 2, "window": "1d"}}"#
            let flow = #"{"version": 1, "scenario": "\#(name)", \#(when), "blocks": [{"id": "a", "type": "text", "text": "Hi"}]}"#
            _ = FileIO.write(flow, to: dir + "/\(name).json")
        }
        let h = try Harness(flowsDirectory: dir)
        func start(_ flow: String, _ visitor: String) -> String? {
            h.request("POST", "/v1/conversations", body: #"{"flow": "\#(flow)", "visitor": "\#(visitor)"}"#).json?["status"]?.string
        }
        // Many visitors, one after another: each has a budget of its own (store-wide, the third
        // would have stopped the flow for everyone for a day).
        for k in 0..<10 { #expect(start("promo", "new\(k)") == "started", "new\(k)") }
        // One visitor: two gated flows shown, the budget is spent for any third, whichever flow.
        #expect(start("promo", "ada") == "started")
        #expect(start("survey", "ada") == "started")
        let refused = h.request("POST", "/v1/conversations", body: #"{"flow": "promo", "visitor": "ada"}"#)
        #expect(refused.json?["status"]?.string == "notNow")
        #expect(refused.text.contains("2 of 2"), "\(refused.text)")
        #expect(start("survey", "bob") == "started")
        // A day later the budget has room again.
        h.clock.advance(by: 86_401)
        #expect(start("promo", "ada") == "started")
    }

    @Test("a refused page's origin is logged once with the --allow-origin to add; an Origin no browser writes is refused and never logged")
    func refusedOriginsLogged() throws {
        let lines = Mutex<[String]>([])
        let h = try Harness(log: { line in lines.withLock { $0.append(line) } })
        let body = #"{"flow": "basic", "visitor": "ada"}"#
        // Junk first, more of it than the log names origins: it must not use them up.
        for k in 0..<150 {
            for junk in ["http:/\(k)/a.b", ",ttp://a\(k).b", "HTTPS://Shop\(k).example:443/", "null"] {
                #expect(h.request("POST", "/v1/conversations", body: body, headers: ["Origin": junk]).status == 403)
            }
        }
        #expect(lines.withLock { $0 }.isEmpty, "\(lines.withLock { $0 }.prefix(3))")
        for _ in 0..<3 {
            #expect(h.request("POST", "/v1/conversations", body: body, headers: ["Origin": "https://shop.example"]).status == 403)
        }
        let logged = lines.withLock { $0 }
        #expect(logged.count == 1 && logged[0].contains("--allow-origin https://shop.example"), "\(logged)")
    }

    @Test("each visitor has a request budget: a burst beyond it is 429 with Retry-After, and it refills")
    func rateLimit() throws {
        let h = try Harness {
            $0.requestBurst = 5
            $0.requestsPerSecond = 1
        }
        let id = try h.start()
        var statuses: [Int] = []
        for _ in 0..<6 { statuses.append(h.send(id, #""intent": "close""#).status) }
        #expect(statuses.contains(429))
        let limited = h.send(id, #""intent": "tap""#)
        #expect(limited.status == 429)
        #expect(limited.header("Retry-After") == "1")
        // Reads and streams cost tokens too, so unknown ids cannot be probed without limit.
        for _ in 0..<3 { _ = h.request("GET", "/v1/conversations/" + String(repeating: "b", count: 32), visitor: "ada") }
        #expect(h.request("GET", "/v1/conversations/\(id)", visitor: "ada").status == 429)
        #expect(h.request("GET", "/v1/conversations/\(id)/events", visitor: "ada").status == 429)
        // Another visitor is not affected.
        _ = try h.start(visitor: "bob")
        h.clock.advance(by: 3)
        #expect(h.send(id, #""intent": "tap""#).status != 429)
    }

    @Test("the number of conversations is bounded; idle ones expire and make room", arguments: ServerStoreKind.allCases)
    func bounds(kind: ServerStoreKind) throws {
        let h = try Harness(kind) {
            $0.maxConversations = 3
            $0.idleTimeout = 100
        }
        let first = try h.start(visitor: "v1")
        _ = try h.start(visitor: "v2")
        _ = try h.start(visitor: "v3")
        let full = h.request("POST", "/v1/conversations", body: #"{"flow": "basic", "visitor": "v4"}"#)
        #expect(full.status == 503)
        #expect(full.json?["error"]?["code"]?.string == "too-many-conversations")
        h.clock.advance(by: 101)
        #expect(h.request("POST", "/v1/conversations", body: #"{"flow": "basic", "visitor": "v4"}"#).status == 201)
        #expect(h.request("GET", "/v1/conversations/\(first)", visitor: "v1").status == 404)
        h.service.expireStored()  // the writer's minutely cleaning
        #expect(try h.archive().load(first) == nil)
    }

    @Test(
        "expired conversations leave the store as fast as they expire: every one in a call (or in the writer's slices), not 500 a minute",
        arguments: ServerStoreKind.allCases)
    func expiredRowsGo(kind: ServerStoreKind) throws {
        let h = try Harness(kind) { $0.idleTimeout = 100 }
        let archive = try h.archive()
        let rows = (0..<1_234).map { k in
            (
                save: ConversationArchive.Save.snapshot(
                    ConversationArchive.Row(
                        id: String(format: "%032x", k), visitor: "v", flow: "basic", step: 0, version: 1, eventSeq: 0, touched: h.clock.now,
                        snapshot: "{}")),
                flow: "basic", events: [(seq: Int, at: Double, record: String)]()
            )
        }
        try archive.save(rows)
        h.clock.advance(by: 101)
        // In slices (the writer's: it commits between them), each saying whether more is left.
        let first = h.service.expireStored(enough: { true })
        #expect(first.gone == ConversationService.expiryBatch && first.more)
        #expect(try archive.load(String(format: "%032x", 1_233)) != nil || archive.load(String(format: "%032x", 0)) != nil)
        #expect(h.service.expireStored() == 1_234 - ConversationService.expiryBatch)
        #expect(try archive.load(String(format: "%032x", 1_233)) == nil)
        #expect(h.service.expireStored(enough: { true }) == (0, false))
    }

    @Test("the flow's scenario gates per visitor: 'not now' is a status of its own with the explanation", arguments: ServerStoreKind.allCases)
    func gate(kind: ServerStoreKind) throws {
        let h = try Harness(kind)
        _ = try h.start("gated", visitor: "ada")
        let second = h.request("POST", "/v1/conversations", body: #"{"flow": "gated", "visitor": "ada"}"#)
        #expect(second.status == 200)
        #expect(second.json?["status"]?.string == "notNow")
        #expect(!(second.json?["explanation"]?.array.isEmpty ?? true))
        #expect(second.json?["conversation"] == nil)
        #expect(h.request("POST", "/v1/conversations", body: #"{"flow": "gated", "visitor": "bob"}"#).status == 201)
        // Events are counted per visitor too.
        #expect(h.request("POST", "/v1/events", body: #"{"scenario": "tour", "visitor": "ada"}"#).status == 204)
        let store: any ScenarioStore & Named = kind == .postgres ? try PostgresScenarioStore(url: h.path) : try SQLiteScenarioStore(path: h.path)
        #expect(try store.stats("tour@ada").eventsCount == 1)
        // A scenario no flow names is no row anyone reads: 404, nothing stored.
        let unknown = h.request("POST", "/v1/events", body: #"{"scenario": "made-up", "visitor": "ada"}"#)
        #expect(unknown.status == 404)
        #expect(unknown.json?["error"]?["code"]?.string == "unknown-scenario")
        #expect(try store.names().contains { $0.hasPrefix("made-up") } == false)
        #expect(h.request("POST", "/v1/events", body: #"{"scenario": "", "visitor": "ada"}"#).status == 400)
    }

    @Test("flow files: a folder of NAME.json, pictures beside them, nothing outside")
    func files() throws {
        let dir = scratchDirectory()
        try basicFlow.write(toFile: dir + "/mine.json", atomically: true, encoding: .utf8)
        try "{".write(toFile: dir + "/broken.json", atomically: true, encoding: .utf8)
        let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 0]
        _ = FileManager.default.createFile(atPath: dir + "/logo.png", contents: Data(png))
        try "secret".write(toFile: dir + "/notes.txt", atomically: true, encoding: .utf8)
        let h = try Harness(flowsDirectory: dir)
        #expect(h.request("GET", "/v1/flows").json?["flows"]?.array.compactMap(\.string) == ["basic", "broken", "gated", "mine"])
        #expect(h.request("POST", "/v1/conversations", body: #"{"flow": "mine", "visitor": "ada"}"#).status == 201)
        let broken = h.request("POST", "/v1/conversations", body: #"{"flow": "broken", "visitor": "ada"}"#)
        #expect(broken.status == 500)
        #expect(broken.json?["error"]?["code"]?.string == "flow-invalid")
        let logo = h.request("GET", "/v1/flows/mine/files/logo.png")
        #expect(logo.status == 200)
        #expect(logo.header("Content-Type") == "image/png")
        // Sent from the open file, not a copy in the answer.
        #expect(logo.body.isEmpty && logo.file?.bytes() == png && logo.file?.size == png.count)
        for bad in ["notes.txt", "../mine.json", "sub/../logo.png", "/etc/passwd", "missing.png"] {
            #expect(h.request("GET", "/v1/flows/mine/files/" + bad).status == 404, "\(bad)")
        }
        #expect(h.request("GET", "/v1/flows/nope/files/logo.png").status == 404)
    }

    @Test("a block's picture comes with the size its header states, read from the folder as it is served; none when it cannot be read")
    func pictureSizes() throws {
        let dir = scratchDirectory()
        let outside = scratchDirectory()
        // A PNG's signature and IHDR chunk: 640 × 360.
        let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13] + Array("IHDR".utf8) + [0, 0, 2, 0x80, 0, 0, 1, 0x68, 8, 2, 0, 0, 0]
        _ = FileManager.default.createFile(atPath: dir + "/wide.png", contents: Data(png))
        _ = FileManager.default.createFile(atPath: outside + "/far.png", contents: Data(png))
        try FileManager.default.createSymbolicLink(atPath: dir + "/linked.png", withDestinationPath: outside + "/far.png")
        #expect(mkfifo(dir + "/pipe.png", 0o600) == 0)
        let gif = "data:image/gif;base64," + Base64.encode(Array("GIF89a".utf8) + [3, 0, 2, 0, 0, 0, 0])
        // A JPEG whose 60 KiB of Exif come before its frame: read past the first bytes looked at.
        let exif: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE1, 0xF0, 0x02] + [UInt8](repeating: 0x45, count: 0xF000)
        let jpeg = exif + [0xFF, 0xC0, 0x00, 0x11, 0x08, 0x03, 0x00, 0x04, 0x00, 0x03] + [UInt8](repeating: 0, count: 64)
        _ = FileManager.default.createFile(atPath: dir + "/photo.jpg", contents: Data(jpeg))
        let pictures = ["wide": "wide.png", "linked": "linked.png", "pipe": "pipe.png", "gone": "gone.png", "inline": gif, "photo": "photo.jpg"]
        for (name, image) in pictures {
            let flow = #"{"version": 1, "blocks": [{"id": "p", "type": "image", "image": "\#(image)", "text": "A picture"}]}"#
            try flow.write(toFile: dir + "/\(name).json", atomically: true, encoding: .utf8)
        }
        let h = try Harness(flowsDirectory: dir)
        for (name, want) in [("wide", "640 × 360"), ("inline", "3 × 2"), ("photo", "1024 × 768"), ("linked", nil), ("pipe", nil), ("gone", nil)] {
            let started = h.request("POST", "/v1/conversations", body: #"{"flow": "\#(name)", "visitor": "v-\#(name)"}"#)
            #expect(started.status == 201, "\(name): \(started.text)")
            let item = started.json?["conversation"]?["transcript"]?.array.first
            let size = item?["imageSize"].map { "\(Int($0["width"]?.number ?? 0)) × \(Int($0["height"]?.number ?? 0))" }
            #expect(size == want, "\(name): \(item.map { "\($0)" } ?? started.text)")
        }
        // A flow that names more picture files than are measured: the first ones have their size.
        let many = RocketLimits.measuredPictures + 2
        for k in 0..<many { _ = FileManager.default.createFile(atPath: dir + "/p\(k).png", contents: Data(png)) }
        let blocks = (0..<many).map { #"{"id": "b\#($0)", "type": "image", "image": "p\#($0).png", "text": "x"}"# }
        let doc = try #require(FlowLoader.load(#"{"version": 1, "blocks": [\#(blocks.joined(separator: ","))]}"#).document)
        let flow = LoadedFlow(name: "many", document: doc, pictures: dir)
        let sized = flow.statics.nodes.map { template -> Bool in
            var w = JSONBytes()
            w.open()
            w.key("type", first: true)
            w.string("image")
            template.write(into: &w, shownText: "") { $0 }
            w.close()
            return String(decoding: w.out, as: UTF8.self).contains(#""imageSize":{"width":640,"height":360}"#)
        }
        #expect(sized.count == many && sized.prefix(RocketLimits.measuredPictures).allSatisfy { $0 } && !sized.suffix(2).contains(true))
    }
}

@Suite("HTTP API: AlertReactor alerts driven live")
struct AlertAPITests {
    @Test("an alert is made, its actions change while it is open, and it is answered once")
    func lifecycle() throws {
        let h = try Harness()
        let made = h.request(
            "POST", "/v1/alerts",
            body: #"{"visitor": "ada", "title": "Delete item?", "actions": [{"title": "Loading…", "enabled": false}, {"title": "Cancel", "style": "cancel"}]}"#)
        #expect(made.status == 201)
        let id = try #require(made.json?["alert"]?["id"]?.string)
        #expect(made.json?["alert"]?["style"]?.string == "alert")
        #expect(made.json?["alert"]?["actions"]?[0]?["enabled"]?.bool == false)
        // Disabled actions cannot be chosen.
        let disabled = h.request("POST", "/v1/alerts/\(id)/select", body: #"{"index": 0}"#, visitor: "ada")
        #expect(disabled.status == 422)
        #expect(disabled.json?["error"]?["code"]?.string == "action-disabled")
        // The app's server sends AlertReactor's mutations; every page showing it is told.
        let changes = Mutex<[Int]>([])
        h.service.onChange { c in changes.withLock { $0.append(c.version) } }
        let mutated = h.request(
            "POST", "/v1/alerts/\(id)/mutations",
            body: #"{"setActions": [{"title": "Edit"}, {"title": "Delete", "style": "destructive"}, {"title": "Cancel", "style": "cancel"}]}"#,
            visitor: "ada")
        #expect(mutated.status == 200)
        #expect(mutated.json?["alert"]?["actions"]?.array.count == 3)
        #expect(h.request("POST", "/v1/alerts/\(id)/mutations", body: #"{"setMessage": "It cannot be undone."}"#, visitor: "ada").status == 200)
        #expect(changes.withLock { $0 } == [2, 3])
        #expect(h.request("GET", "/v1/alerts/\(id)/events", visitor: "ada").stream == id)
        // Answered once: the same answer again is fine, another is a conflict, mutations too.
        let chosen = h.request("POST", "/v1/alerts/\(id)/select", body: #"{"index": 1}"#, visitor: "ada")
        #expect(chosen.json?["alert"]?["status"]?.string == "dismissed")
        #expect(chosen.json?["alert"]?["selected"]?.number == 1)
        #expect(h.request("POST", "/v1/alerts/\(id)/select", body: #"{"index": 1}"#, visitor: "ada").status == 200)
        #expect(h.request("POST", "/v1/alerts/\(id)/select", body: #"{"index": 2}"#, visitor: "ada").status == 409)
        #expect(h.request("POST", "/v1/alerts/\(id)/mutations", body: #"{"setTitle": "x"}"#, visitor: "ada").status == 409)
        #expect(changes.withLock { $0 } == [2, 3, 4])
    }

    @Test("alerts are bound to their visitor, and bad alerts are 4xx")
    func errors() throws {
        let h = try Harness()
        let made = h.request("POST", "/v1/alerts", body: #"{"visitor": "ada", "style": "actionSheet", "actions": [{"title": "OK"}]}"#)
        let id = try #require(made.json?["alert"]?["id"]?.string)
        #expect(made.json?["alert"]?["style"]?.string == "actionSheet")
        #expect(h.request("GET", "/v1/alerts/\(id)", visitor: "mallory").status == 404)
        #expect(h.request("POST", "/v1/alerts/\(id)/select", body: #"{"index": 0}"#, visitor: "mallory").status == 404)
        let bad = [
            #"{"visitor": "ada", "actions": [{"title": "A", "style": "cancel"}, {"title": "B", "style": "cancel"}]}"#,
            #"{"visitor": "ada", "actions": [{"title": ""}]}"#,
            #"{"visitor": "ada", "actions": [{"title": "A", "style": "loud"}]}"#,
            #"{"visitor": "ada", "actions": "A"}"#,
            #"{"visitor": "ada", "style": "popup"}"#,
            #"{"title": "no visitor"}"#,
            "{\"visitor\": \"ada\", \"actions\": [" + Array(repeating: #"{"title": "A"}"#, count: 21).joined(separator: ",") + "]}",
        ]
        for body in bad { #expect(h.request("POST", "/v1/alerts", body: body).status == 400, "\(body)") }
        #expect(h.request("POST", "/v1/alerts/\(id)/mutations", body: #"{"setTitle": "a", "setMessage": "b"}"#, visitor: "ada").status == 400)
        #expect(h.request("POST", "/v1/alerts/\(id)/select", body: #"{"index": 5}"#, visitor: "ada").status == 422)
    }
}

@Suite("Views: the serialized transcript cache")
struct ViewCacheTests {
    @Test("at every step of a flow, the view built from the cache equals one built from nothing")
    func cacheMatchesFresh() throws {
        let flow = """
            {"version": 1, "start": "a", "blocks": [
             {"id": "a", "type": "text", "text": "One {{who}}", "next": "b"},
             {"id": "b", "type": "button", "title": "Go {{who}}", "next": "c"},
             {"id": "c", "type": "doubleButton", "left": {"title": "L", "next": "d"}, "right": {"title": "R", "next": "d"}},
             {"id": "d", "type": "textInput", "text": "Name?", "buttonTitle": "OK", "placeholder": "{{who}}", "next": "e"},
             {"id": "e", "type": "choice", "text": "Pick", "options": [{"title": "X {{d}}", "next": "f"}, {"title": "Y", "next": "f"}]},
             {"id": "f", "type": "text", "text": "Bye {{d}}"}]}
            """
        let dir = scratchDirectory()
        try flow.write(toFile: dir + "/walk.json", atomically: true, encoding: .utf8)
        let h = try Harness(flowsDirectory: dir)
        let r = h.request("POST", "/v1/conversations", body: #"{"flow": "walk", "visitor": "ada", "vars": {"who": "you"}}"#)
        let id = try #require(r.json?["conversation"]?["id"]?.string)
        h.service.advanceDue()
        func check(_ label: String) {
            let slot = h.service.state.withLock { $0.slots[id]! }
            let (cached, fresh) = slot.withEntry { e in
                return (
                    h.service.view(id, e),
                    ConversationView.bytes(
                        id: id, flow: e.flow, conversation: e.conversation, step: e.step, version: e.version, strings: e.shared)
                )
            }
            #expect(cached == fresh, "\(label)")
            #expect((try? JSONReader.parse(cached)) != nil, "\(label)")
        }
        check("start")
        for members in [
            #""intent": "tap""#, #""intent": "pressButton""#, #""intent": "pressRight""#, #""intent": "submit", "text": """#,
            #""intent": "submit", "text": "Ada""#, #""intent": "choose", "option": 0"#, #""intent": "tap""#,
        ] {
            _ = h.send(id, members)
            check(members)
        }
        let v = try #require(h.view(id))
        #expect(v["transcript"]?.array.first { $0["type"]?.string == "button" }?["pressed"]?.bool == true)
        #expect(v["transcript"]?.array.first { $0["type"]?.string == "doubleButton" }?["pressed"]?.string == "right")
        #expect(v["transcript"]?.array.first { $0["type"]?.string == "choice" }?["chosen"]?.number == 0)
        #expect(v["status"]?.string == "dismissed")
    }
}

@Suite("HTTP API: flows with variables")
struct VariablesAPITests {
    static let flow = """
        {"version": 1, "vars": {"plan": "free", "visits": 0, "beta": false}, "blocks": [
         {"id": "s", "type": "set", "set": {"visits": "visits + 1"}, "next": "c"},
         {"id": "c", "type": "condition", "branches": [{"if": "beta and visits > 3", "next": "vip"}], "else": "hi"},
         {"id": "vip", "type": "text", "text": "VIP {{plan}} {{visits}}"},
         {"id": "hi", "type": "text", "text": "Hi {{plan}} {{visits}}"}]}
        """

    @Test("vars are typed by the flow: JSON values or texts that read as the type; a wrong type is a 400 naming it")
    func typed() throws {
        let dir = scratchDirectory()
        try Self.flow.write(toFile: dir + "/vars.json", atomically: true, encoding: .utf8)
        let h = try Harness(flowsDirectory: dir)
        func first(_ vars: String) throws -> String? {
            let r = h.request("POST", "/v1/conversations", body: #"{"flow": "vars", "visitor": "ada", "reducedMotion": true, "vars": "# + vars + "}")
            #expect(r.status == 201, "\(vars): \(r.text)")
            let id = try #require(r.json?["conversation"]?["id"]?.string)
            return h.view(id)?["transcript"]?[0]?["text"]?.string
        }
        #expect(try first("{}") == "Hi free 1")
        #expect(try first(#"{"visits": 5, "beta": true, "plan": "pro"}"#) == "VIP pro 6")
        #expect(try first(#"{"visits": "5", "beta": "true"}"#) == "VIP free 6", "texts from a page's query read as the type")
        for (vars, fragment) in [
            (#"{"visits": "many"}"#, #""visits" holds a number, not "many""#), (#"{"beta": 1}"#, #""beta" holds true or false, not a number"#),
            (#"{"plan": false}"#, #""plan" holds a text"#),
        ] {
            let r = h.request("POST", "/v1/conversations", body: #"{"flow": "vars", "visitor": "ada", "vars": "# + vars + "}")
            #expect(r.status == 400, "\(vars)")
            #expect(r.json?["error"]?["code"]?.string == "bad-field")
            #expect(r.json?["error"]?["message"]?.string?.contains(fragment) == true, "\(r.text)")
        }
    }
}

@Suite("HTTP API: typed inputs")
struct TypedInputAPITests {
    @Test("a number input: the view names its type and bounds; a wrong answer is 422 in the visitor's language; the answer is stored typed")
    func typed() throws {
        let flow = """
            {"version": 1, "blocks": [
             {"id": "age", "type": "textInput", "text": "Age?", "buttonTitle": "OK", "inputType": "integer", "min": 18, "next": "t"},
             {"id": "t", "type": "text", "text": "You are {{age}}."}]}
            """
        let dir = scratchDirectory()
        try flow.write(toFile: dir + "/age.json", atomically: true, encoding: .utf8)
        let h = try Harness(flowsDirectory: dir)
        let r = h.request("POST", "/v1/conversations", body: #"{"flow": "age", "visitor": "ada", "reducedMotion": true, "lang": "it"}"#)
        let id = try #require(r.json?["conversation"]?["id"]?.string)
        let item = try #require(h.view(id)?["transcript"]?[0])
        #expect(item["inputType"]?.string == "integer")
        #expect(item["min"]?.number == 18)
        #expect(h.view(id)?["hint"]?.string == "≥ 18", "the empty field's hint: the answer's bounds")
        var s = h.send(id, #""intent": "submit", "text": "diciotto", "step": 0"#)
        #expect(s.status == 422)
        #expect(s.json?["error"]?["conversation"]?["inputError"]?.string == "Scrivi un numero intero.")
        s = h.send(id, #""intent": "submit", "text": "12", "step": 0"#)
        #expect(s.json?["error"]?["conversation"]?["inputError"]?.string == "Il minimo accettato è 18.")
        s = h.send(id, #""intent": "submit", "text": "42", "step": 0"#)
        #expect(s.status == 200)
        #expect(h.view(id)?["transcript"]?[2]?["text"]?.string == "You are 42.")
    }
}

@Suite("HTTP API: ratings and multiple choices")
struct RatingChoiceAPITests {
    @Test("rate takes value, chooseMany takes options; the view says what was rated and chosen; bounds are 422 with a message")
    func intents() throws {
        let flow = """
            {"version": 1, "blocks": [
             {"id": "stars", "type": "rating", "text": "How was it?", "scale": 5, "labels": {"low": "Poor", "high": "Great"}, "next": "food"},
             {"id": "food", "type": "choice", "text": "What did you have?", "multiple": true, "max": 2,
              "options": [{"title": "Tea"}, {"title": "Cake"}, {"title": "Milk"}], "next": "bye"},
             {"id": "bye", "type": "text", "text": "{{stars}} and {{food}}"}]}
            """
        let dir = scratchDirectory()
        try flow.write(toFile: dir + "/rc.json", atomically: true, encoding: .utf8)
        let h = try Harness(flowsDirectory: dir)
        let r = h.request("POST", "/v1/conversations", body: #"{"flow": "rc", "visitor": "ada", "reducedMotion": true}"#)
        let id = try #require(r.json?["conversation"]?["id"]?.string)
        var v = try #require(h.view(id))
        #expect(v["accepts"]?.array.compactMap(\.string) == ["rate"])
        #expect(v["transcript"]?[0]?["scale"]?.number == 5)
        #expect(v["transcript"]?[0]?["labels"]?["high"]?.string == "Great")
        #expect(h.send(id, #""intent": "rate", "value": 11"#).status == 400)
        #expect(h.send(id, #""intent": "rate", "option": 1"#).status == 400)
        #expect(h.send(id, #""intent": "rate", "value": 4, "step": 0"#).status == 200)
        v = try #require(h.view(id))
        #expect(v["transcript"]?[0]?["rated"]?.number == 4)
        #expect(v["accepts"]?.array.compactMap(\.string) == ["chooseMany", "back"])
        #expect(v["backTo"]?.number == 0)
        #expect(v["transcript"]?[1]?["multiple"]?.bool == true)
        let tooMany = h.send(id, #""intent": "chooseMany", "options": [0, 1, 2], "step": 1"#)
        #expect(tooMany.status == 422)
        #expect(tooMany.json?["error"]?["conversation"]?["inputError"]?.string == "Choose at most 2.")
        #expect(h.send(id, #""intent": "chooseMany", "options": "0", "step": 1"#).status == 400)
        #expect(h.send(id, #""intent": "chooseMany", "options": [2, 0], "step": 1"#).status == 200)
        v = try #require(h.view(id))
        #expect(v["transcript"]?[1]?["chosen"]?.array.compactMap(\.number) == [0, 2])
        #expect(v["transcript"]?[2]?["text"]?.string == "4 and Tea, Milk")
    }

    @Test("a scale from 0: the view says from 0, rate takes 0 (a scale from 1 refuses it) and the view says rated 0")
    func fromZero() throws {
        let dir = scratchDirectory()
        try
            #"{"version": 1, "blocks": [{"id": "nps", "type": "rating", "text": "Would you recommend us?", "from": 0, "scale": 10, "next": "bye"}, {"id": "bye", "type": "text", "text": "You said {{nps}}"}]}"#
            .write(toFile: dir + "/nps.json", atomically: true, encoding: .utf8)
        try #"{"version": 1, "blocks": [{"id": "stars", "type": "rating", "text": "How was it?"}]}"#
            .write(toFile: dir + "/stars.json", atomically: true, encoding: .utf8)
        let h = try Harness(flowsDirectory: dir)
        let id = try #require(h.request("POST", "/v1/conversations", body: #"{"flow": "nps", "visitor": "ada"}"#).json?["conversation"]?["id"]?.string)
        var v = try #require(h.view(id))
        #expect(v["transcript"]?[0]?["from"]?.number == 0 && v["transcript"]?[0]?["scale"]?.number == 10)
        #expect(h.send(id, #""intent": "rate", "value": -1"#).status == 400)
        #expect(h.send(id, #""intent": "rate", "value": 0"#).status == 200)
        v = try #require(h.view(id))
        #expect(v["transcript"]?[0]?["rated"]?.number == 0)
        #expect(v["transcript"]?[1]?["text"]?.string == "You said 0")
        let other = try #require(h.request("POST", "/v1/conversations", body: #"{"flow": "stars", "visitor": "ada"}"#).json?["conversation"]?["id"]?.string)
        #expect(try #require(h.view(other))["transcript"]?[0]?["from"]?.number == 1)
        let refused = h.send(other, #""intent": "rate", "value": 0"#)
        #expect(refused.status == 422 && refused.json?["error"]?["code"]?.string == "no-such-option", "\(refused.text)")
    }
}

@Suite("HTTP API: going back")
struct BackAPITests {
    @Test("back reopens the last answer; the view's backTo names it; a flow without allowBack refuses with 422")
    func back() throws {
        let flow = """
            {"version": 1, "blocks": [
             {"id": "name", "type": "textInput", "text": "Name?", "buttonTitle": "OK", "next": "plan"},
             {"id": "plan", "type": "choice", "text": "Plan, {{name}}?", "options": [{"title": "Free", "next": "bye"}, {"title": "Pro", "next": "bye"}]},
             {"id": "bye", "type": "text", "text": "Bye {{name}}"}]}
            """
        let dir = scratchDirectory()
        try flow.write(toFile: dir + "/b.json", atomically: true, encoding: .utf8)
        try flow.replacing(#"{"version": 1,"#, with: #"{"version": 1, "allowBack": false,"#).write(toFile: dir + "/nb.json", atomically: true, encoding: .utf8)
        let h = try Harness(flowsDirectory: dir)
        let r = h.request("POST", "/v1/conversations", body: #"{"flow": "b", "visitor": "ada", "reducedMotion": true}"#)
        let id = try #require(r.json?["conversation"]?["id"]?.string)
        #expect(h.view(id)?["backTo"]?.isNull == true)
        #expect(h.view(id)?["transcript"]?[0]?["value"] == nil, "no value: the field starts empty")
        #expect(h.send(id, #""intent": "submit", "text": "Ada", "step": 0"#).status == 200)
        var v = try #require(h.view(id))
        #expect(v["backTo"]?.number == 0)
        #expect(v["transcript"]?.array.count == 3)
        #expect(h.send(id, #""intent": "back", "step": 1"#).status == 200)
        v = try #require(h.view(id))
        #expect(v["transcript"]?.array.count == 1, "the reply and the question after it are gone")
        #expect(v["accepts"]?.array.compactMap(\.string) == ["submit"])
        #expect(v["transcript"]?[0]?["value"]?.string == "Ada", "the field starts with the answer being changed")
        #expect(h.send(id, #""intent": "submit", "text": "Grace", "step": 2"#).status == 200)
        #expect(h.view(id)?["transcript"]?[2]?["text"]?.string == "Plan, Grace?")
        let n = h.request("POST", "/v1/conversations", body: #"{"flow": "nb", "visitor": "ada", "reducedMotion": true}"#)
        let nid = try #require(n.json?["conversation"]?["id"]?.string)
        _ = h.send(nid, #""intent": "submit", "text": "Ada", "step": 0"#)
        let refused = h.send(nid, #""intent": "back", "step": 1"#)
        #expect(refused.status == 422)
        #expect(refused.json?["error"]?["code"]?.string == "cannot-go-back")
    }
}

@Suite("HTTP API: a text input's starting text")
struct StartingTextAPITests {
    @Test("the view's value is the flow's value filled for this conversation, only while the input waits")
    func value() throws {
        let dir = scratchDirectory()
        try #"""
        {"version": 1, "vars": {"city": ""}, "blocks": [
         {"id": "mail", "type": "textInput", "text": "E-mail?", "buttonTitle": "OK", "next": "check"},
         {"id": "check", "type": "textInput", "text": "Is it right?", "buttonTitle": "OK", "value": "{{mail}}", "next": "where"},
         {"id": "where", "type": "textInput", "text": "City?", "buttonTitle": "OK", "value": "{{city}}"}]}
        """#.write(toFile: dir + "/v.json", atomically: true, encoding: .utf8)
        let h = try Harness(flowsDirectory: dir)
        let id = try #require(h.request("POST", "/v1/conversations", body: #"{"flow": "v", "visitor": "ada"}"#).json?["conversation"]?["id"]?.string)
        #expect(h.send(id, #""intent": "submit", "text": "ada@example.org", "step": 0"#).status == 200)
        var v = try #require(h.view(id))
        #expect(v["transcript"]?[2]?["value"]?.string == "ada@example.org")
        #expect(v["hint"] == nil, "plain text without a placeholder: no hint")
        #expect(h.send(id, #""intent": "submit", "text": "ada@example.org", "step": 1"#).status == 200)
        v = try #require(h.view(id))
        #expect(v["transcript"]?[2]?["value"] == nil, "answered: no longer sent")
        #expect(v["transcript"]?[4]?["value"] == nil, "an empty variable: an empty field, not {{city}}")
        let given = try #require(
            h.request("POST", "/v1/conversations", body: #"{"flow": "v", "visitor": "bob", "vars": {"city": "Turin"}}"#).json?["conversation"]?["id"]?.string)
        #expect(h.send(given, #""intent": "submit", "text": "bob@example.org", "step": 0"#, visitor: "bob").status == 200)
        #expect(h.send(given, #""intent": "submit", "text": "bob@example.org", "step": 1"#, visitor: "bob").status == 200)
        #expect(h.view(given, visitor: "bob")?["transcript"]?[4]?["value"]?.string == "Turin")
    }
}

@Suite("HTTP API: the visitor's clock")
struct ClockAPITests {
    @Test("today(), weekday() and a date's bounds read the visitor's local time: the start's utcOffset on the server's clock")
    func visitorsDay() throws {
        let dir = scratchDirectory()
        // The harness's clock: Friday 2027-01-15, 08:00 UTC.
        try #"""
        {"version": 1, "when": {"if": "time() >= '06:00' and weekday() <= 5"}, "vars": {"d": ""}, "blocks": [
         {"id": "s", "type": "set", "set": {"d": "today() + ' ' + time()"}, "next": "say"},
         {"id": "say", "type": "text", "text": "It is {{d}}", "next": "when"},
         {"id": "when", "type": "textInput", "text": "Which day?", "buttonTitle": "OK", "inputType": "date", "min": "today"}]}
        """#.write(toFile: dir + "/clk.json", atomically: true, encoding: .utf8)
        let h = try Harness(flowsDirectory: dir)
        func start(_ visitor: String, _ offset: Int) -> HTTPResponse {
            h.request("POST", "/v1/conversations", body: #"{"flow": "clk", "visitor": "\#(visitor)", "utcOffset": \#(offset)}"#)
        }
        let tokyo = start("ada", 540)
        let id = try #require(tokyo.json?["conversation"]?["id"]?.string, "\(tokyo.text)")
        let v = try #require(h.view(id))
        #expect(v["transcript"]?[0]?["text"]?.string == "It is 2027-01-15 17:00")
        _ = h.send(id, #""intent": "tap", "step": 0"#)
        #expect(h.view(id)?["transcript"]?[1]?["min"]?.string == "today", "the widget counts the field's bound from the visitor's own today")
        #expect(h.view(id)?["hint"]?.string == "YYYY-MM-DD", "a view is the same at every moment: a bound counted from today is the page's to show")
        let early = h.send(id, #""intent": "submit", "text": "2027-01-14", "step": 1"#)
        #expect(early.status == 422, "\(early.text)")
        #expect(h.send(id, #""intent": "submit", "text": "2027-01-15", "step": 1"#).status == 200)
        // Hawaii, ten hours behind: a day earlier there, so the 14th is today.
        let hawaii = start("bob", -600)
        let hid = try #require(hawaii.json?["conversation"]?["id"]?.string, "\(hawaii.text)")
        #expect(h.view(hid, visitor: "bob")?["transcript"]?[0]?["text"]?.string == "It is 2027-01-14 22:00")
        _ = h.send(hid, #""intent": "tap", "step": 0"#, visitor: "bob")
        #expect(h.send(hid, #""intent": "submit", "text": "2027-01-14", "step": 1"#, visitor: "bob").status == 200)
        // Three hours behind, it is 05:00 there: when.if says not now.
        let dawn = start("cy", -180)
        #expect(dawn.json?["status"]?.string == "notNow", "\(dawn.text)")
        // A flow that never reads the clock is given none: starts from every time zone are of
        // one kind, made from one kept shape.
        for (k, offset) in [60, -300, 330, 60].enumerated() {
            let r = h.request("POST", "/v1/conversations", body: #"{"flow": "basic", "visitor": "z\#(k)", "utcOffset": \#(offset)}"#)
            #expect(r.status == 201, "\(r.text)")
        }
        guard case .success(let basic) = h.service.flows.flow("basic") else {
            Issue.record("no basic flow")
            return
        }
        #expect(!basic.readsClock && basic.startShapes.count == 1)
    }
}

@Suite("HTTP API: a choice's starting options")
struct StartingChoicesAPITests {
    @Test("the view's starting: a multiple choice's selected options while it waits, a rating's value after going back to it")
    func starting() throws {
        let dir = scratchDirectory()
        try #"""
        {"version": 1, "blocks": [
         {"id": "food", "type": "choice", "text": "What would you like?", "multiple": true,
          "options": [{"title": "Tea", "selected": true}, {"title": "Cake"}], "next": "stars"},
         {"id": "stars", "type": "rating", "text": "How was it?", "next": "bye"},
         {"id": "bye", "type": "textInput", "text": "Bye?", "buttonTitle": "OK"}]}
        """#.write(toFile: dir + "/c.json", atomically: true, encoding: .utf8)
        let h = try Harness(flowsDirectory: dir)
        let id = try #require(h.request("POST", "/v1/conversations", body: #"{"flow": "c", "visitor": "ada"}"#).json?["conversation"]?["id"]?.string)
        var v = try #require(h.view(id))
        #expect(v["transcript"]?[0]?["starting"]?.array.compactMap(\.number) == [0])
        #expect(v["transcript"]?[0]?["options"]?[0]?["selected"] == nil, "the engine says what it starts with; the flow's field stays on the server")
        #expect(h.send(id, #""intent": "chooseMany", "options": [1], "step": 0"#).status == 200)
        v = try #require(h.view(id))
        #expect(v["transcript"]?[0]?["starting"] == nil, "answered: no longer sent")
        #expect(v["transcript"]?[1]?["type"]?.string == "rating" && v["transcript"]?[1]?["starting"] == nil, "a rating starts from nothing")
        #expect(h.send(id, #""intent": "rate", "value": 4, "step": 1"#).status == 200)
        #expect(h.send(id, #""intent": "back", "step": 2"#).status == 200)
        v = try #require(h.view(id))
        #expect(v["transcript"]?[1]?["starting"]?.array.compactMap(\.number) == [4], "the rating's value, as rated says it")
    }
}

@Suite("HTTP API: jumps into other flows")
struct JumpAPITests {
    @Test("a flow of the folder jumps into another and back; editing the other flow is seen by the next start")
    func linked() throws {
        let dir = scratchDirectory()
        try """
        {"version": 1, "blocks": [
         {"id": "go", "type": "jump", "flow": "billing", "return": true, "next": "bye"},
         {"id": "bye", "type": "text", "text": "Bye {{card}}"}]}
        """.write(toFile: dir + "/main.json", atomically: true, encoding: .utf8)
        try #"{"version": 1, "blocks": [{"id": "card", "type": "textInput", "text": "Card?", "buttonTitle": "OK"}]}"#
            .write(toFile: dir + "/billing.json", atomically: true, encoding: .utf8)
        let h = try Harness(flowsDirectory: dir)
        let r = h.request("POST", "/v1/conversations", body: #"{"flow": "main", "visitor": "ada", "reducedMotion": true}"#)
        let id = try #require(r.json?["conversation"]?["id"]?.string)
        #expect(h.view(id)?["transcript"]?[0]?["text"]?.string == "Card?")
        #expect(h.send(id, #""intent": "submit", "text": "4242", "step": 0"#).status == 200)
        #expect(h.view(id)?["transcript"]?[2]?["text"]?.string == "Bye 4242")
        // The other flow changes: a start within the recheck interval still has the flow as it
        // was read; the first start after it sees the change.
        try #"{"version": 1, "blocks": [{"id": "card", "type": "textInput", "text": "Your card number?", "buttonTitle": "OK"}]}"#
            .write(toFile: dir + "/billing.json", atomically: true, encoding: .utf8)
        h.clock.advance(by: FlowLibrary.recheckInterval / 2)
        let soon = h.request("POST", "/v1/conversations", body: #"{"flow": "main", "visitor": "ada", "reducedMotion": true}"#)
        #expect(h.view(try #require(soon.json?["conversation"]?["id"]?.string))?["transcript"]?[0]?["text"]?.string == "Card?")
        h.clock.advance(by: FlowLibrary.recheckInterval / 2)
        let again = h.request("POST", "/v1/conversations", body: #"{"flow": "main", "visitor": "ada", "reducedMotion": true}"#)
        let id2 = try #require(again.json?["conversation"]?["id"]?.string)
        #expect(h.view(id2)?["transcript"]?[0]?["text"]?.string == "Your card number?")
        // The other flow goes: the flow that jumps into it has errors now, so its starts keep
        // the version read before (the log says so, once).
        try FileManager.default.removeItem(atPath: dir + "/billing.json")
        h.clock.advance(by: FlowLibrary.recheckInterval)
        let kept = h.request("POST", "/v1/conversations", body: #"{"flow": "main", "visitor": "ada", "reducedMotion": true}"#)
        #expect(kept.status == 201)
        #expect(h.view(try #require(kept.json?["conversation"]?["id"]?.string))?["transcript"]?[0]?["text"]?.string == "Your card number?")
    }

    @Test("the folder is listed at most once a recheck interval: a flow added is offered, and its scenario counted, within a second")
    func listingKept() throws {
        let dir = scratchDirectory()
        let flow = #"{"version": 1, "scenario": "SCENARIO", "blocks": [{"id": "hi", "type": "text", "text": "Hello"}]}"#
        try flow.replacingOccurrences(of: "SCENARIO", with: "first").write(toFile: dir + "/one.json", atomically: true, encoding: .utf8)
        let h = try Harness(flowsDirectory: dir)
        func listed() -> [String] { h.request("GET", "/v1/flows").json?["flows"]?.array.compactMap(\.string) ?? [] }
        func event(_ scenario: String) -> Int { h.request("POST", "/v1/events", body: #"{"scenario": "\#(scenario)", "visitor": "ada"}"#).status }
        #expect(listed() == ["basic", "gated", "one"])
        #expect(event("first") == 204 && event("second") == 404)
        // The home page is made once for the list and shared by every answer.
        let home = h.request("GET", "/")
        #expect(home.shared != nil && home.shared === h.request("GET", "/").shared && home.text.contains("/play/one"))
        #expect(h.request("GET", "/v1/flows").shared === h.request("GET", "/v1/flows").shared)
        try flow.replacingOccurrences(of: "SCENARIO", with: "second").write(toFile: dir + "/two.json", atomically: true, encoding: .utf8)
        // Within the interval the list is the one read (a request for it reads no folder)…
        h.clock.advance(by: FlowLibrary.recheckInterval / 2)
        #expect(listed() == ["basic", "gated", "one"])
        #expect(event("second") == 404)
        // …and after it, the folder as it is.
        h.clock.advance(by: FlowLibrary.recheckInterval / 2)
        #expect(listed() == ["basic", "gated", "one", "two"])
        #expect(event("second") == 204)
        let later = h.request("GET", "/")
        #expect(later.shared !== home.shared && later.text.contains("/play/two"))
    }

    @Test("the home page gives each flow's title beside its name, escaped and isolated; an edited title shows within a recheck interval")
    func homeTitles() throws {
        let dir = scratchDirectory()
        func write(_ title: String) throws {
            let flow = #"{"version": 1, "title": "TITLE", "blocks": [{"id": "hi", "type": "text", "text": "Hello"}]}"#
            try flow.replacingOccurrences(of: "TITLE", with: title).write(toFile: dir + "/named.json", atomically: true, encoding: .utf8)
        }
        try write(#"Ask <b>first</b> ‮ & then"#)
        try #"{"version": 1, "blocks": [{"id": "hi", "type": "text", "text": "Hello"}]}"#.write(toFile: dir + "/plain.json", atomically: true, encoding: .utf8)
        try "{".write(toFile: dir + "/broken.json", atomically: true, encoding: .utf8)
        let h = try Harness(flowsDirectory: dir)
        let page = h.request("GET", "/").text
        #expect(page.contains(#"<a href="/play/named">named</a> — <bdi>Ask &lt;b&gt;first&lt;/b&gt; \#u{202E} &amp; then</bdi></li>"#), "\(page)")
        // No title, or a file that does not load: the name alone.
        #expect(page.contains(#"<a href="/play/plain">plain</a></li>"#) && page.contains(#"<a href="/play/broken">broken</a></li>"#))
        // GET /v1/flows gives the titles too, by name, for those that have one.
        let list = h.request("GET", "/v1/flows").json
        #expect(list?["flows"]?.array.compactMap(\.string) == ["basic", "broken", "gated", "named", "plain"])
        #expect(list?["titles"]?["named"]?.string == "Ask <b>first</b> \u{202E} & then" && list?["titles"]?["plain"] == nil)
        try write("Second thoughts")
        h.clock.advance(by: FlowLibrary.recheckInterval)
        #expect(h.request("GET", "/").text.contains("<bdi>Second thoughts</bdi>"))
        #expect(h.request("GET", "/v1/flows").json?["titles"]?["named"]?.string == "Second thoughts")
    }

    @Test("an edit that breaks a served flow is not taken: starts keep the version before; its errors are logged once, not once a start")
    func brokenEdit() throws {
        let dir = scratchDirectory()
        let lines = Mutex<[String]>([])
        try #"{"version": 1, "blocks": [{"id": "hi", "type": "text", "text": "Hello"}]}"#.write(toFile: dir + "/hi.json", atomically: true, encoding: .utf8)
        try "{".write(toFile: dir + "/never.json", atomically: true, encoding: .utf8)
        let h = try Harness(flowsDirectory: dir, log: { line in lines.withLock { $0.append(line) } })
        func start(_ flow: String) -> HTTPResponse {
            h.request("POST", "/v1/conversations", body: #"{"flow": "\#(flow)", "visitor": "ada", "reducedMotion": true}"#)
        }
        func firstText(_ r: HTTPResponse) -> String? {
            r.json?["conversation"]?["id"]?.string.flatMap { h.view($0)?["transcript"]?[0]?["text"]?.string }
        }
        #expect(firstText(start("hi")) == "Hello")
        // A flow that was never good has nothing to fall back on: 500, and one log line however many starts.
        for _ in 0..<5 { #expect(start("never").json?["error"]?["code"]?.string == "flow-invalid") }
        #expect(lines.withLock { $0.filter { $0.contains("flow never: never.json:1:2") }.count } == 1, "\(lines.withLock { $0 })")
        // Its play page says the same (not "no flow called never"); a name one typo from a flow
        // is told which.
        let page = h.request("GET", "/play/never")
        #expect(page.status == 500 && page.json?["error"]?["code"]?.string == "flow-invalid")
        #expect(h.request("GET", "/play/hj").json?["error"]?["message"]?.string == "there is no flow called hj; did you mean hi?")
        #expect(start("nevr").json?["error"]?["message"]?.string == "there is no flow called nevr; did you mean never?")
        #expect(start("zzzzzz").json?["error"]?["message"]?.string == "there is no flow called zzzzzz")
        // Anyone may ask: past suggestedAmong flows no name is searched for.
        for k in 0..<FlowLibrary.suggestedAmong {
            try #"{"version": 1, "blocks": [{"id": "a", "type": "text", "text": "x"}]}"#.write(toFile: dir + "/f\(k).json", atomically: true, encoding: .utf8)
        }
        h.clock.advance(by: FlowLibrary.recheckInterval)
        #expect(start("nevr").json?["error"]?["message"]?.string == "there is no flow called nevr")
        // The file is saved half-written: the version before goes on being served.
        try #"{"version": 1, "blocks": [{"id": "hi", "type": "text", "text": "#.write(toFile: dir + "/hi.json", atomically: true, encoding: .utf8)
        h.clock.advance(by: FlowLibrary.recheckInterval)
        for _ in 0..<5 {
            #expect(firstText(start("hi")) == "Hello")
            h.clock.advance(by: FlowLibrary.recheckInterval)
        }
        #expect(lines.withLock { $0.filter { $0.contains("flow hi: hi.json:") }.count } == 1, "\(lines.withLock { $0 })")
        #expect(lines.withLock { $0.contains { $0.contains("flow hi: the edit has errors, so starts keep the version read before it") } })
        // Once fixed, the new version is served.
        try #"{"version": 1, "blocks": [{"id": "hi", "type": "text", "text": "Hello again"}]}"#
            .write(toFile: dir + "/hi.json", atomically: true, encoding: .utf8)
        h.clock.advance(by: FlowLibrary.recheckInterval)
        #expect(firstText(start("hi")) == "Hello again")
    }
}

@Suite("HTTP API: flows in several languages")
struct LanguageAPITests {
    @Test("lang picks the flow's language (and the messages'); a conversation in Italian resumes in Italian after a restart")
    func languages() throws {
        let flow = """
            {"version": 1, "languages": ["en", "it"], "blocks": [
             {"id": "hi", "type": "text", "text": {"en": "Hello", "it": "Ciao"}, "next": "age"},
             {"id": "age", "type": "textInput", "text": {"en": "Age?", "it": "Età?"}, "buttonTitle": "OK", "inputType": "integer"}]}
            """
        let dir = scratchDirectory()
        try flow.write(toFile: dir + "/hello.json", atomically: true, encoding: .utf8)
        let path = scratchDirectory() + "/store.sqlite"
        let clock = ManualClock(now: 1_800_000_000)
        let id: String
        do {
            let h = try Harness(path: path, clock: clock, flowsDirectory: dir)
            let en = h.request("POST", "/v1/conversations", body: #"{"flow": "hello", "visitor": "ada", "reducedMotion": true, "lang": "fr-FR"}"#)
            let enID = try #require(en.json?["conversation"]?["id"]?.string)
            #expect(h.view(enID)?["transcript"]?[0]?["text"]?.string == "Hello")
            let it = h.request("POST", "/v1/conversations", body: #"{"flow": "hello", "visitor": "ada", "reducedMotion": true, "lang": "it-IT"}"#)
            id = try #require(it.json?["conversation"]?["id"]?.string)
            #expect(h.view(id)?["transcript"]?[0]?["text"]?.string == "Ciao")
            #expect(h.send(id, #""intent": "tap", "step": 0"#).status == 200)
        }
        let again = try Harness(path: path, clock: clock, flowsDirectory: dir)
        let read = again.request("GET", "/v1/conversations/\(id)", visitor: "ada")
        let v = try #require(read.json?["conversation"], "\(read.status) \(read.text)")
        #expect(v["transcript"]?[1]?["text"]?.string == "Età?")
        let refused = again.send(id, #""intent": "submit", "text": "tanti", "step": 1"#)
        #expect(refused.json?["error"]?["conversation"]?["inputError"]?.string == "Scrivi un numero intero.")
    }

    @Test("the view names the language of the flow's texts and their direction (rtl for Arabic, Hebrew); a flow with no languages names neither")
    func textDirection() throws {
        let dir = scratchDirectory()
        try #"{"version": 1, "languages": ["en", "ar", "he-IL", "az-Arab", "ku-Latn"], "blocks": [{"id": "hi", "type": "text", "text": "Hi"}]}"#
            .write(toFile: dir + "/multi.json", atomically: true, encoding: .utf8)
        try #"{"version": 1, "blocks": [{"id": "hi", "type": "text", "text": "مرحبا"}]}"#.write(toFile: dir + "/plain.json", atomically: true, encoding: .utf8)
        let h = try Harness(flowsDirectory: dir)
        for (asked, lang, direction) in [
            ("en", "en", "ltr"), ("ar-EG", "ar", "rtl"), ("he-IL", "he-IL", "rtl"), ("az-Arab", "az-Arab", "rtl"), ("ku-Latn", "ku-Latn", "ltr"),
        ] {
            let r = h.request("POST", "/v1/conversations", body: #"{"flow": "multi", "visitor": "ada", "reducedMotion": true, "lang": "\#(asked)"}"#)
            let v = try #require(r.json?["conversation"], "\(r.status) \(r.text)")
            #expect(v["flowLang"]?.string == lang && v["dir"]?.string == direction, "\(asked): \(r.text)")
            #expect(v["lang"]?.string == "en", "the built-in words have no Arabic: English")
        }
        let r = h.request("POST", "/v1/conversations", body: #"{"flow": "plain", "visitor": "ada", "reducedMotion": true, "lang": "ar"}"#)
        let v = try #require(r.json?["conversation"])
        #expect(v["flowLang"] == nil && v["dir"] == nil)
    }
}

@Suite("HTTP API: experiments")
struct ExperimentAPITests {
    @Test("a visitor's variant picks the start; the exposure is the first record and every record names the variant; the holdout is not now")
    func variants() throws {
        let flow = """
            {"version": 1, "experiment": {"name": "copy", "holdout": 0.2,
              "variants": [{"name": "long", "start": "long"}, {"name": "short", "start": "short"}]},
             "blocks": [{"id": "long", "type": "text", "text": "The long welcome"}, {"id": "short", "type": "text", "text": "Hi"}]}
            """
        let dir = scratchDirectory()
        try flow.write(toFile: dir + "/copy.json", atomically: true, encoding: .utf8)
        let experiment = RocketExperiment(
            name: "copy", variants: [RocketExperimentVariant(name: "long"), RocketExperimentVariant(name: "short")], holdout: 0.2)
        let h = try Harness(flowsDirectory: dir)
        var groups: Set<String> = []
        for k in 0..<15 {
            let visitor = "v\(k)"
            let group = experiment.name(of: experiment.assign(visitor: visitor))
            groups.insert(group)
            let r = h.request("POST", "/v1/conversations", body: #"{"flow": "copy", "visitor": "\#(visitor)", "reducedMotion": true}"#)
            if group == "holdout" {
                #expect(r.status == 200 && r.json?["status"]?.string == "notNow" && r.json?["variant"]?.string == "holdout")
                continue
            }
            let id = try #require(r.json?["conversation"]?["id"]?.string)
            #expect(h.view(id, visitor: visitor)?["transcript"]?[0]?["text"]?.string == (group == "long" ? "The long welcome" : "Hi"))
            _ = h.request("POST", "/v1/conversations/\(id)/intents", body: #"{"intent": "tap", "step": 0}"#, visitor: visitor)
            h.service.flush()
            let records = try h.archive().events(id).flatMap { $0.split(separator: "\n").map(String.init) }
            #expect(records.first?.contains(#""event":"exposure","flow":"copy","experiment":"copy","variant":"\#(group)","shown":true"#) == true, "\(records)")
            let version = try h.service.flows.flow("copy").get().version
            #expect(
                records.dropFirst().first?.contains(#""event":"started","flow":"copy","version":"\#(version)","variant":"\#(group)"}"#) == true, "\(records)")
            #expect(records.dropFirst().allSatisfy { $0.hasSuffix(#","variant":"\#(group)"}"#) }, "\(records)")
        }
        #expect(groups.count == 3, "\(groups)")
    }

    @Test(
        "the variant is stored at the first exposure: new weights keep earlier visitors where they were; a removed variant reassigns",
        arguments: ServerStoreKind.allCases)
    func sticky(kind: ServerStoreKind) throws {
        let dir = scratchDirectory()
        func write(_ weights: (Double, Double), holdout: Double = 0, names: (String, String) = ("long", "short")) throws {
            try """
            {"version": 1, "experiment": {"name": "copy", "holdout": \(holdout),
              "variants": [{"name": "\(names.0)", "weight": \(weights.0), "start": "long"}, {"name": "\(names.1)", "weight": \(weights.1), "start": "short"}]},
             "blocks": [{"id": "long", "type": "text", "text": "The long welcome"}, {"id": "short", "type": "text", "text": "Hi"}]}
            """.write(toFile: dir + "/copy.json", atomically: true, encoding: .utf8)
        }
        try write((1, 1))
        let path = kind == .postgres ? try TestPostgres.freshDatabase() : scratchDirectory() + "/store.sqlite"
        let clock = ManualClock(now: 1_800_000_000)
        var first: [String: String] = [:]
        do {
            let h = try Harness(path: path, clock: clock, flowsDirectory: dir)
            for k in 0..<40 {
                let r = h.request("POST", "/v1/conversations", body: #"{"flow": "copy", "visitor": "s\#(k)", "reducedMotion": true}"#)
                first["s\(k)"] = r.json?["conversation"]?["transcript"]?[0]?["text"]?.string
            }
        }
        #expect(Set(first.values) == ["The long welcome", "Hi"])
        // Everyone new goes to "short" now; those seen before stay, in a new process too.
        try write((0.000001, 1))
        clock.advance(by: 5)
        let h = try Harness(path: path, clock: clock, flowsDirectory: dir)
        for k in 0..<40 {
            let r = h.request("POST", "/v1/conversations", body: #"{"flow": "copy", "visitor": "s\#(k)", "reducedMotion": true}"#)
            #expect(r.json?["conversation"]?["transcript"]?[0]?["text"]?.string == first["s\(k)"])
        }
        let fresh = h.request("POST", "/v1/conversations", body: #"{"flow": "copy", "visitor": "new-one", "reducedMotion": true}"#)
        #expect(fresh.json?["conversation"]?["transcript"]?[0]?["text"]?.string == "Hi")
        // A variant renamed away: its visitors are assigned again, by the new weights.
        try write((0.000001, 1), names: ("longer", "short"))
        clock.advance(by: 5)
        for k in 0..<40 where first["s\(k)"] == "The long welcome" {
            let r = h.request("POST", "/v1/conversations", body: #"{"flow": "copy", "visitor": "s\#(k)", "reducedMotion": true}"#)
            #expect(r.json?["conversation"]?["transcript"]?[0]?["text"]?.string == "Hi")
        }
    }
}

@Suite("HTTP API: reports")
struct ReportAPITests {
    static let key = "report-key-0123456789abcdef"

    @Test("the refusals libmicrohttpd makes itself are counted in /metrics and said in the server's log, at most once a minute")
    func libraryAnswers() throws {
        let access = AccessControl(secret: AccessControl.randomBytes(32), keys: [Self.key])
        let lines = Mutex<[String]>([])
        let h = try Harness(access: access, log: { line in lines.withLock { $0.append(line) } })
        let (server, port) = try h.serve()
        defer { server.stop() }
        let refused = [
            ("431", "GET /v1/flows HTTP/1.1\r\nHost: x\r\nX-A: \(String(repeating: "a", count: 20_000))\r\n\r\n"),
            ("414", "GET /\(String(repeating: "a", count: 20_000)) HTTP/1.1\r\nHost: x\r\n\r\n"),
            ("431", "GET /v1/flows HTTP/1.1\r\nHost: x\r\nX-B: \(String(repeating: "b", count: 20_000))\r\n\r\n"),
            ("505", "GET / HTTP/9.9\r\nHost: x\r\n\r\n"),
        ]
        for (status, raw) in refused { #expect(RawClient.exchange(port: port, raw).hasPrefix("HTTP/1.1 \(status)")) }
        // The ticker takes the library's counts once a second.
        var text = ""
        for _ in 0..<100 {
            text = RawClient.get(port: port, "/metrics", headers: "Authorization: Bearer \(Self.key)\r\n")
            if text.contains(#"rocket_http_responses_total{code="505"} 1"#) { break }
            usleep(100_000)
        }
        for sample in [#"{code="431"} 2"#, #"{code="414"} 1"#, #"{code="505"} 1"#] {
            #expect(text.contains("rocket_http_responses_total" + sample), "\(sample): \(text)")
        }
        let said = lines.withLock { $0 }.filter { $0.contains("libmicrohttpd refused") }
        #expect(said.count == 1, "\(said)")
        #expect(said.first?.contains("4 requests itself") == true && said.first?.contains("431 ×2 (a request line and headers over") == true, "\(said)")
        // Another within the minute is counted, and held back from the log.
        #expect(RawClient.exchange(port: port, refused[1].1).hasPrefix("HTTP/1.1 414"))
        for _ in 0..<100 {
            text = RawClient.get(port: port, "/metrics", headers: "Authorization: Bearer \(Self.key)\r\n")
            if text.contains(#"rocket_http_responses_total{code="414"} 2"#) { break }
            usleep(100_000)
        }
        #expect(text.contains(#"rocket_http_responses_total{code="414"} 2"#))
        #expect(lines.withLock { $0 }.filter { $0.contains("libmicrohttpd refused") }.count == 1)
        // Said again after the window, with what came meanwhile.
        var log = LibraryAnswers()
        #expect(log.add([431: 1], at: 1000)?.contains("refused 1 request itself, before this server saw it") == true)
        #expect(log.add([414: 2], at: 1030) == nil)
        #expect(log.add([431: 1], at: 1059) == nil)
        let later = log.add([:], at: 1061)
        #expect(
            later?.contains("refused 3 requests itself") == true && later?.contains("414 ×2") == true && later?.contains("431 ×1") == true, "\(later ?? "")")
        #expect(log.add([:], at: 2000) == nil, "nothing new: nothing said")
    }

    @Test("a flow's expression errors are counted in /metrics by flow and code, and said in the server's log by place, at most once a minute")
    func flowErrors() throws {
        let flows = scratchDirectory()
        let ratio = #"""
            {"version": 1, "vars": {"n": 0, "ratio": 0},
             "blocks": [{"id": "s", "type": "set", "set": {"ratio": "10 / n"}, "next": "t"}, {"id": "t", "type": "text", "text": "{{ratio}}"}]}
            """#
        try ratio.write(toFile: flows + "/ratio.json", atomically: true, encoding: .utf8)
        let access = AccessControl(secret: AccessControl.randomBytes(32), keys: [Self.key])
        let lines = Mutex<[String]>([])
        let h = try Harness(flowsDirectory: flows, access: access, log: { line in lines.withLock { $0.append(line) } })
        let (server, port) = try h.serve()
        defer { server.stop() }
        for k in 0..<3 {
            let r = h.request("POST", "/v1/conversations", body: #"{"flow": "ratio", "visitor": "v\#(k)"}"#, headers: ["Authorization": "Bearer \(Self.key)"])
            #expect(r.status == 201, "\(r.text)")
        }
        #expect(
            h.request("POST", "/v1/conversations", body: #"{"flow": "basic", "visitor": "w"}"#, headers: ["Authorization": "Bearer \(Self.key)"]).status == 201)
        let text = RawClient.get(port: port, "/metrics", headers: "Authorization: Bearer \(Self.key)\r\n")
        #expect(text.contains(#"rocket_flow_errors_total{code="division-by-zero",flow="ratio"} 3"#), "\(text)")
        // A flow without errors adds no series.
        #expect(text.split(separator: "\n").filter { $0.hasPrefix("rocket_flow_errors_total{") }.count == 1, "\(text)")
        // The ticker says it within a second or so: where, what, how many, the message.
        var said: [String] = []
        for _ in 0..<100 where said.isEmpty {
            said = lines.withLock { $0 }.filter { $0.contains("expression error") }
            if said.isEmpty { usleep(50_000) }
        }
        #expect(said.count == 1, "\(lines.withLock { $0 })")
        // (The ticker may say the first before the others are made: those wait for the window.)
        #expect(said.first?.contains(#"flow "ratio" block "s" "set.ratio": division-by-zero ×"#) == true, "\(said)")
        #expect(said.first?.contains("(division by zero)") == true, "\(said)")
        // Held back within the minute, and said as the server stops.
        for k in 3..<5 {
            let r = h.request("POST", "/v1/conversations", body: #"{"flow": "ratio", "visitor": "v\#(k)"}"#, headers: ["Authorization": "Bearer \(Self.key)"])
            #expect(r.status == 201, "\(r.text)")
        }
        server.stop()
        let all = lines.withLock { $0 }.filter { $0.contains("expression error") }
        #expect(all.count == 2 && all.last?.contains("division-by-zero ×") == true, "\(all)")
        // The rule of the window, on its own: the places with most errors first, the rest counted.
        var log = FlowErrors()
        let place = FlowErrors.Place(flow: "f", block: "c", path: "branches[0].if", code: "type")
        log.add(place, message: "m")
        #expect(log.line(at: 1000)?.hasSuffix(#"flow "f" block "c" "branches[0].if": type ×1 (m)"#) == true)
        log.add(place, message: "m")
        #expect(log.line(at: 1030) == nil, "within the window: held back")
        for _ in 0..<12 { log.add(FlowErrors.Place(flow: "g\u{1B}\"", block: nil, path: "", code: "conversation-too-long"), message: "x") }
        for k in 0..<FlowErrors.placesSaid + 2 { log.add(FlowErrors.Place(flow: "h", block: "b\(k)", path: "", code: "loop"), message: "y") }
        let line = log.line(at: 1061)
        let later = try #require(line)
        #expect(later.contains(#"flow "g?\"": conversation-too-long ×12 (x); flow "f" block "c" "branches[0].if": type ×1 (m)"#), "\(later)")
        #expect(later.hasSuffix("; 4 more at 4 other places"), "\(later)")
        #expect(!later.contains("\u{1B}"))
        #expect(log.line(at: 2000) == nil, "nothing new: nothing said")
    }

    @Test("GET /metrics: a site key only; the Prometheus text format; conversations, streams and answers by status as they happen")
    func metrics() throws {
        let access = AccessControl(secret: AccessControl.randomBytes(32), keys: [Self.key])
        let h = try Harness(access: access)
        let (server, port) = try h.serve()
        defer { server.stop() }
        func get(_ headers: String = "") -> String { RawClient.get(port: port, "/metrics", headers: headers) }
        func value(_ text: String, _ sample: String) -> Double? {
            text.split(separator: "\n").first { $0.hasPrefix(sample + " ") }.flatMap { Double($0.split(separator: " ").last ?? "") }
        }
        // Who may call: nobody 401, a visitor 403, a wrong key 401; other methods 405.
        #expect(get().hasPrefix("HTTP/1.1 401"))
        let token = try #require(h.request("POST", "/v1/visitors").json?["token"]?.string)
        #expect(get("Rocket-Visitor: \(token)\r\n").hasPrefix("HTTP/1.1 403"))
        #expect(get("Authorization: Bearer wrong-0123456789abcdef\r\n").hasPrefix("HTTP/1.1 401"))
        #expect(h.request("POST", "/metrics", headers: ["Authorization": "Bearer " + Self.key]).status == 405)
        let key = "Authorization: Bearer \(Self.key)\r\n"
        let before = get(key)
        #expect(before.hasPrefix("HTTP/1.1 200") && before.contains("Content-Type: text/plain; version=0.0.4; charset=utf-8"))
        #expect(before.contains("# TYPE rocket_conversations gauge\nrocket_conversations 0\n"))
        #expect(value(before, "rocket_http_responses_total{code=\"401\"}") == 2 && value(before, "rocket_http_responses_total{code=\"403\"}") == 1)
        // A conversation and a stream on it.
        let start = #"{"flow": "basic", "visitor": "ada"}"#
        let started = RawClient.exchange(
            port: port,
            "POST /v1/conversations HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: \(start.utf8.count)\r\n\(key)Connection: close\r\n\r\n\(start)"
        )
        #expect(started.hasPrefix("HTTP/1.1 201"), "\(started)")
        let id = try #require(bodyJSON(started)?["conversation"]?["id"]?.string)
        let stream = try #require(RawClient(port: port))
        stream.send("GET /v1/conversations/\(id)/events HTTP/1.1\r\nHost: 127.0.0.1\r\n\(key)Accept: text/event-stream\r\n\r\n")
        #expect(stream.read { $0.contains("event: state") }.contains("event: state"))
        let after = get(key)
        #expect(value(after, "rocket_conversations") == 1 && value(after, "rocket_event_streams") == 1)
        #expect(value(after, "rocket_http_responses_total{code=\"201\"}") == 1 && value(after, "rocket_http_responses_total{code=\"200\"}") == 2)
        #expect((value(after, "rocket_changes_saved_total") ?? 0) >= 1 && value(after, "rocket_store_failing") == 0)
        #expect((value(after, "process_resident_memory_bytes") ?? 0) > 1_000_000)
        #expect(value(after, "rocket_start_time_seconds") == h.clock.now)
        // The start and the reads are timed on their routes: cumulative buckets, the last
        // (+Inf) equal to the count; the stream is not timed, nor is a path no route has.
        #expect(value(after, #"rocket_http_request_duration_seconds_count{route="/v1/conversations"}"#) == 1)
        #expect(value(after, #"rocket_http_request_duration_seconds_bucket{route="/v1/conversations",le="+Inf"}"#) == 1)
        #expect((value(after, #"rocket_http_request_duration_seconds_sum{route="/v1/conversations"}"#) ?? -1) > 0)
        #expect(value(after, #"rocket_http_request_duration_seconds_count{route="/metrics"}"#) == 4)
        #expect(!after.contains(#"route="/v1/conversations/{id}/events""#))
        let buckets = after.split(separator: "\n").filter { $0.hasPrefix(#"rocket_http_request_duration_seconds_bucket{route="/metrics""#) }
        let counts = buckets.compactMap { Double($0.split(separator: " ").last ?? "") }
        #expect(counts.count == TimedRoutes.bounds.count + 1 && counts == counts.sorted() && counts.last == 4, "\(buckets)")
        _ = RawClient.get(port: port, "/no/such/path")
        // Starts by flow and outcome: the gated flow shows once a visitor, then says not now.
        for _ in 0..<2 {
            _ = h.request("POST", "/v1/conversations", body: #"{"flow": "gated", "visitor": "bo"}"#, headers: ["Authorization": "Bearer " + Self.key])
        }
        let later = get(key)
        #expect(value(later, "rocket_http_responses_total{code=\"404\"}") == 1 && !later.contains("/no/such"))
        #expect(value(later, #"rocket_starts_total{flow="basic",outcome="started"}"#) == 1, "\(later)")
        #expect(value(later, #"rocket_starts_total{flow="gated",outcome="started"}"#) == 1)
        #expect(value(later, #"rocket_starts_total{flow="gated",outcome="not-now"}"#) == 1)
        for line in after.components(separatedBy: "\r\n\r\n").last!.split(separator: "\n") where !line.hasPrefix("#") {
            #expect(
                line.wholeMatch(of: /[a-z_]+(\{(code="[0-9]{3}"|route="[a-z0-9\/{}._]+"(,le="[0-9.+Inf]+")?|flow="[a-z]+",outcome="[a-z-]+")\})? [0-9.e+-]+/)
                    != nil,
                "\(line)")
        }
    }

    @Test("the timed routes: each template fits the paths it names and no others; a path no route has is no label")
    func timedRoutes() {
        let cases: [(String, String?)] = [
            ("/", "/"), ("/widget.js", "/widget.js"), ("/play/welcome", "/play/{name}"), ("/play", nil), ("/play/a/b", nil),
            ("/v1/conversations", "/v1/conversations"), ("/v1/conversations/01ab", "/v1/conversations/{id}"),
            ("/v1/conversations/01ab/intents", "/v1/conversations/{id}/intents"), ("/v1/conversations/01ab/other", nil),
            ("/v1/flows/tour/files/a.png", "/v1/flows/{name}/files/{path}"),
            ("/v1/flows/tour/files/a/b/c/d/e/f/g/h/i/j.png", "/v1/flows/{name}/files/{path}"), ("/v1/flows/tour/files", nil),
            ("/v1/alerts/x/select", "/v1/alerts/{id}/select"), ("/metrics", "/metrics"), ("/metricsx", nil), ("/v2/conversations", nil),
            ("", nil), ("x", nil), ("/\u{e9}", nil),
        ]
        for (path, label) in cases {
            #expect(TimedRoutes.index(of: path).map { TimedRoutes.labels[$0] } == label, "\(path)")
        }
        #expect(Set(TimedRoutes.labels).count == TimedRoutes.labels.count)
    }

    @Test(
        "GET /v1/report and /report: the site key only; the holdout's exposures are stored; counts by variant; records outlive their conversation",
        arguments: ServerStoreKind.allCases)
    func report(kind: ServerStoreKind) throws {
        let flow = """
            {"version": 1, "experiment": {"name": "copy", "holdout": 0.3,
              "variants": [{"name": "long", "start": "long"}, {"name": "short", "start": "short"}]},
             "blocks": [{"id": "long", "type": "text", "text": "The long welcome"}, {"id": "short", "type": "text", "text": "Hi"}]}
            """
        let dir = scratchDirectory()
        try flow.write(toFile: dir + "/copy.json", atomically: true, encoding: .utf8)
        let experiment = RocketExperiment(
            name: "copy", variants: [RocketExperimentVariant(name: "long"), RocketExperimentVariant(name: "short")], holdout: 0.3)
        let access = AccessControl(secret: AccessControl.randomBytes(32), keys: [Self.key])
        let h = try Harness(
            path: kind == .postgres ? try TestPostgres.freshDatabase() : nil, configure: { $0.idleTimeout = 3600 }, flowsDirectory: dir, access: access)
        let site = ["Authorization": "Bearer " + Self.key]
        var expected: [String: (exposures: Int, completions: Int)] = [:]
        for k in 0..<60 {
            let visitor = "r\(k)"
            let group = experiment.name(of: experiment.assign(visitor: visitor))
            let r = h.request("POST", "/v1/conversations", body: #"{"flow": "copy", "visitor": "\#(visitor)", "reducedMotion": true}"#, headers: site)
            expected[group, default: (0, 0)].exposures += 1
            guard group != "holdout" else { continue }
            let id = try #require(r.json?["conversation"]?["id"]?.string)
            if k % 2 == 0 {
                _ = h.request(
                    "POST", "/v1/conversations/\(id)/intents", body: #"{"intent": "tap", "step": 0}"#, headers: site.merging(["Rocket-Visitor": visitor]) { $1 }
                )
                expected[group, default: (0, 0)].completions += 1
            }
        }
        // Who may call: nobody and a visitor are refused; a wrong key is 401.
        #expect(h.request("GET", "/v1/report").status == 401)
        #expect(h.request("GET", "/report").status == 401)
        let token = try #require(h.request("POST", "/v1/visitors").json?["token"]?.string)
        #expect(h.request("GET", "/v1/report", visitor: token).status == 403)
        #expect(h.request("GET", "/report", visitor: token).status == 403)
        #expect(h.request("GET", "/v1/report", headers: ["Authorization": "Bearer nope-0123456789"]).status == 401)
        #expect(h.request("POST", "/v1/report", headers: site).status == 405)
        #expect(h.request("GET", "/v1/report", headers: site, query: ["minCount": "0"]).status == 400)
        #expect(h.request("GET", "/v1/report", headers: site, query: ["flow": "../x"]).status == 400)
        // The conversations expire; their records stay for the report.
        h.clock.advance(by: 7200)
        _ = h.request("POST", "/v1/conversations", body: #"{"flow": "basic", "visitor": "late"}"#, headers: site)
        #expect(h.service.expireStored() > 0)
        let r = h.request("GET", "/v1/report", headers: site, query: ["flow": "copy", "minCount": "1"])
        #expect(r.status == 200, "\(r.text)")
        let variants = try #require(r.json?["flows"]?[0]?["variants"]?.array)
        #expect(r.json?["flows"]?.array.count == 1)
        #expect(variants.compactMap { $0["variant"]?.string } == ["long", "short", "holdout"])
        for v in variants {
            let name = try #require(v["variant"]?.string)
            #expect(v["exposures"]?.number.map(Int.init) == expected[name]?.exposures, "\(name)")
            #expect((v["completions"]?.number).map(Int.init) == expected[name]?.completions ?? 0, "\(name)")
        }
        #expect(variants[0]["comparison"]?.isNull == true && variants[1]["comparison"]?["against"]?.string == "long")
        // By day: one row, the day the harness's clock started them on (2027-01-15, UTC).
        let byDay = h.request("GET", "/v1/report", headers: site, query: ["flow": "copy", "minCount": "1", "by": "day"])
        #expect(byDay.json?["by"]?.string == "day", "\(byDay.text)")
        #expect(byDay.json?["flows"]?[0]?["variants"]?.array.compactMap { $0["variant"]?.string } == ["2027-01-15"], "\(byDay.text)")
        // A window of beginnings: the day after counts none of them, the day before all; a while
        // ago is counted back from the server's clock (two hours after they began).
        func starts(_ query: [String: String]) -> Int? {
            let r = h.request("GET", "/v1/report", headers: site, query: ["flow": "copy", "minCount": "1"].merging(query) { $1 })
            guard r.status == 200 else { return nil }
            return r.json?["flows"]?.array.first.map { f in f["variants"]?.array.compactMap { $0["starts"]?.number }.reduce(0, +) ?? 0 }.map(Int.init) ?? 0
        }
        let all = try #require(starts([:]))
        #expect(all > 0 && starts(["since": "2027-01-15"]) == all && starts(["until": "2027-01-16"]) == all)
        #expect(starts(["since": "2027-01-16"]) == 0 && starts(["until": "2027-01-15"]) == 0)
        #expect(starts(["since": "3h"]) == all && starts(["since": "1h"]) == 0)
        let windowed = h.request("GET", "/v1/report", headers: site, query: ["flow": "copy", "since": "2027-01-15T06:00:00Z", "until": "2027-01-16"])
        #expect(windowed.json?["since"]?.string == "2027-01-15T06:00:00Z" && windowed.json?["until"]?.string == "2027-01-16", "\(windowed.text)")
        #expect(h.request("GET", "/v1/report", headers: site).json?["since"]?.isNull == true)
        for bad in [["since": "yesterday"], ["until": "2027-13-01"], ["since": "2027-01-16", "until": "2027-01-15"]] {
            let r = h.request("GET", "/v1/report", headers: site, query: bad)
            #expect(r.status == 400 && r.text.contains("bad-query") && r.text.contains("must"), "\(bad): \(r.text)")
        }
        let badBy = h.request("GET", "/v1/report", headers: site, query: ["by": "month"])
        #expect(badBy.status == 400 && badBy.text.contains("variant, version, day or week"), "\(badBy.text)")
        let page = h.request("GET", "/report", headers: site, query: ["minCount": "1"])
        #expect(page.status == 200 && page.header("Content-Type")?.hasPrefix("text/html") == true)
        #expect(page.text.contains("<h2>Flow copy</h2>") && page.text.contains("<svg role=\"img\""))
        // Past the record retention they are gone.
        h.clock.advance(by: RocketLimits.recordRetentionSeconds + 1)
        _ = h.service.expireStored()
        #expect(h.request("GET", "/v1/report", headers: site, query: ["minCount": "1"]).json?["flows"]?.array.isEmpty == true)
    }
}

@Suite("HTTP API: targeting")
struct TargetingAPITests {
    @Test("when.if over the start's vars: not now with the condition named, else started")
    func targeting() throws {
        let dir = scratchDirectory()
        try #"{"version": 1, "vars": {"plan": "free"}, "when": {"if": "plan == 'pro'"}, "blocks": [{"id": "hi", "type": "text", "text": "Hi"}]}"#
            .write(toFile: dir + "/pro.json", atomically: true, encoding: .utf8)
        let h = try Harness(flowsDirectory: dir)
        let no = h.request("POST", "/v1/conversations", body: #"{"flow": "pro", "visitor": "ada"}"#)
        #expect(no.json?["status"]?.string == "notNow")
        #expect(no.json?["explanation"]?[0]?.string == #"when.if "plan == 'pro'" is false"#)
        let yes = h.request("POST", "/v1/conversations", body: #"{"flow": "pro", "visitor": "ada", "vars": {"plan": "pro"}}"#)
        #expect(yes.status == 201)
    }
}

@Suite("HTTP API: the gap between flows")
struct MinGapAPITests {
    @Test("--min-gap: a second flow within the gap is not now, with the time it may come; after it, shown; other visitors unaffected")
    func gap() throws {
        let h = try Harness { $0.minGap = 30 }
        #expect(h.request("POST", "/v1/conversations", body: #"{"flow": "basic", "visitor": "ada"}"#).status == 201)
        let soon = h.request("POST", "/v1/conversations", body: #"{"flow": "basic", "visitor": "ada"}"#)
        #expect(soon.status == 200 && soon.json?["status"]?.string == "notNow")
        #expect(soon.json?["explanation"]?[0]?.string?.contains("the gap is 30s") == true, "\(soon.text)")
        #expect(soon.json?["earliest"]?.string != nil)
        #expect(h.request("POST", "/v1/conversations", body: #"{"flow": "basic", "visitor": "bob"}"#, visitor: "bob").status == 201)
        h.clock.advance(by: 31)
        #expect(h.request("POST", "/v1/conversations", body: #"{"flow": "basic", "visitor": "ada"}"#).status == 201)
        // Kept in the store: another server on it (a restart, a second instance) keeps the gap.
        let other = try Harness(path: h.path, clock: h.clock) { $0.minGap = 30 }
        h.clock.advance(by: 10)
        let again = other.request("POST", "/v1/conversations", body: #"{"flow": "basic", "visitor": "ada"}"#)
        #expect(again.json?["status"]?.string == "notNow", "\(again.text)")
        // The showings are events, never executions: no budget counts them.
        let stats = try SQLiteScenarioStore(path: h.path).stats("rocket.shown@ada")
        #expect(stats.eventsCount == 2 && stats.executionsCount == 0)
    }

    @Test("a flow that ignores the gap starts within it, and its showing counts for the next flow")
    func ignoresGap() throws {
        let dir = scratchDirectory()
        try #"{"version": 1, "blocks": [{"id": "a", "type": "text", "text": "Hi"}]}"#.write(toFile: dir + "/one.json", atomically: true, encoding: .utf8)
        try #"{"version": 1, "ignoresGap": true, "blocks": [{"id": "u", "type": "text", "text": "Payment failed"}]}"#.write(
            toFile: dir + "/urgent.json", atomically: true, encoding: .utf8)
        let h = try Harness(configure: { $0.minGap = 30 }, flowsDirectory: dir)
        #expect(h.request("POST", "/v1/conversations", body: #"{"flow": "one", "visitor": "ada"}"#).status == 201)
        h.clock.advance(by: 10)
        let dry = h.request("POST", "/v1/conversations", body: #"{"flow": "urgent", "visitor": "ada", "dryRun": true}"#)
        #expect(dry.json?["status"]?.string == "wouldStart", "\(dry.text)")
        #expect(h.request("POST", "/v1/conversations", body: #"{"flow": "urgent", "visitor": "ada"}"#).status == 201)
        h.clock.advance(by: 25)  // 35 s after the first, 25 s after the urgent one
        let next = h.request("POST", "/v1/conversations", body: #"{"flow": "one", "visitor": "ada"}"#)
        #expect(next.json?["status"]?.string == "notNow" && next.json?["explanation"]?[0]?.string?.contains("25s ago") == true, "\(next.text)")
    }
}

@Suite("HTTP API: quiet hours")
struct QuietHoursAPITests {
    @Test("not now in the visitor's quiet hours (their utcOffset), with the end as the earliest; a bad offset is 400")
    func quiet() throws {
        let dir = scratchDirectory()
        try """
        {"version": 1, "quietHours": {"from": "22:00", "to": "08:00"}, "blocks": [{"id": "a", "type": "text", "text": "Hi"}]}
        """.write(toFile: dir + "/night.json", atomically: true, encoding: .utf8)
        // 2026-12-04T14:00:00Z: 23:00 in Tokyo, 06:00 in Los Angeles, 15:00 in Rome.
        let h = try Harness(clock: ManualClock(now: 1_796_392_800), flowsDirectory: dir)
        let tokyo = h.request("POST", "/v1/conversations", body: #"{"flow": "night", "visitor": "t", "utcOffset": 540}"#)
        #expect(tokyo.json?["status"]?.string == "notNow")
        #expect(tokyo.json?["explanation"]?[0]?.string == "quiet hours 22:00–08:00 (it is 23:00 there)")
        #expect(tokyo.json?["earliest"]?.string == "2026-12-04T23:00:00Z")
        let la = h.request("POST", "/v1/conversations", body: #"{"flow": "night", "visitor": "l", "utcOffset": -480}"#)
        #expect(la.json?["status"]?.string == "notNow" && la.json?["earliest"]?.string == "2026-12-04T16:00:00Z")
        let rome = h.request("POST", "/v1/conversations", body: #"{"flow": "night", "visitor": "r", "utcOffset": 60}"#)
        #expect(rome.status == 201)
        for bad in ["900", "\"60\"", "1.5", "-841"] {
            #expect(h.request("POST", "/v1/conversations", body: #"{"flow": "night", "visitor": "x", "utcOffset": \#(bad)}"#).status == 400, "\(bad)")
        }
    }
}

@Suite("HTTP API: a flow's schedule")
struct ScheduleAPITests {
    @Test("before the schedule notNow with its beginning as the earliest, after it notNow with none; a dry run says the same; inside it a start")
    func schedule() throws {
        let dir = scratchDirectory()
        try """
        {"version": 1, "schedule": {"from": "2026-12-10T09:00+01:00", "until": "2027-01-06T00:00Z"}, "blocks": [{"id": "a", "type": "text", "text": "Hi"}]}
        """.write(toFile: dir + "/sale.json", atomically: true, encoding: .utf8)
        let clock = ManualClock(now: 1_796_392_800)  // 2026-12-04T14:00:00Z
        let h = try Harness(clock: clock, flowsDirectory: dir)
        for body in [#"{"flow": "sale", "visitor": "v"}"#, #"{"flow": "sale", "visitor": "v", "dryRun": true}"#] {
            let early = h.request("POST", "/v1/conversations", body: body)
            #expect(early.status == 200 && early.json?["status"]?.string == "notNow", "\(early.text)")
            #expect(early.json?["explanation"]?[0]?.string == "scheduled from 2026-12-10T09:00+01:00")
            #expect(early.json?["earliest"]?.string == "2026-12-10T08:00:00Z")
        }
        clock.advance(by: 6 * 86_400 - 6 * 3600)  // 2026-12-10T08:00:00Z, its beginning
        #expect(h.request("POST", "/v1/conversations", body: #"{"flow": "sale", "visitor": "v", "dryRun": true}"#).json?["status"]?.string == "wouldStart")
        let started = h.request("POST", "/v1/conversations", body: #"{"flow": "sale", "visitor": "v"}"#)
        #expect(started.status == 201, "\(started.text)")
        clock.advance(by: 27 * 86_400 - 8 * 3600 - 60)  // 2027-01-05T23:59:00Z, a minute before its end
        let lastOne = h.request("POST", "/v1/conversations", body: #"{"flow": "sale", "visitor": "v"}"#)
        #expect(lastOne.status == 201, "\(lastOne.text)")
        clock.advance(by: 60)  // its end
        let late = h.request("POST", "/v1/conversations", body: #"{"flow": "sale", "visitor": "w"}"#)
        #expect(late.json?["status"]?.string == "notNow" && late.json?["earliest"] == nil, "\(late.text)")
        #expect(late.json?["explanation"]?[0]?.string == "its schedule ended at 2027-01-06T00:00Z")
        // A conversation under way goes on past the end.
        let id = try #require(lastOne.json?["conversation"]?["id"]?.string)
        #expect(h.request("GET", "/v1/conversations/\(id)", visitor: "v").status == 200)
        #expect(h.request("POST", "/v1/conversations/\(id)/intents", body: #"{"intent": "tap"}"#, visitor: "v").status == 200)
    }
}

@Suite("HTTP API: buttons that snooze their flow")
struct SnoozeAPITests {
    @Test(
        "a snoozing press is kept before its answer: the visitor's next start is notNow until it ends, others are shown; forever lasts the visitor retention; erasure forgets it",
        arguments: ServerStoreKind.allCases)
    func snooze(kind: ServerStoreKind) throws {
        let dir = scratchDirectory()
        try #"""
        {"version": 1, "blocks": [{"id": "ask", "type": "choice", "text": "Enjoying it?",
          "options": [{"title": "Yes"}, {"title": "Later", "snooze": "7d"}, {"title": "Never", "snooze": "forever"}]}]}
        """#.write(toFile: dir + "/rate.json", atomically: true, encoding: .utf8)
        let key = "snooze-key-0123456789abcdef"
        let h = try Harness(
            path: kind == .postgres ? try TestPostgres.freshDatabase() : nil, configure: { $0.visitorRetention = 30 * 86_400 }, flowsDirectory: dir,
            access: AccessControl(secret: AccessControl.randomBytes(32), keys: [key]))
        let site = ["Authorization": "Bearer " + key]
        func start(_ visitor: String) -> HTTPResponse {
            h.request("POST", "/v1/conversations", body: #"{"flow": "rate", "visitor": "\#(visitor)"}"#, headers: site)
        }
        func press(_ visitor: String, _ option: Int) throws {
            let id = try #require(start(visitor).json?["conversation"]?["id"]?.string)
            let r = h.request(
                "POST", "/v1/conversations/\(id)/intents", body: #"{"intent": "choose", "option": \#(option)}"#,
                headers: site.merging(["Rocket-Visitor": visitor]) { $1 })
            #expect(r.status == 200, "\(r.text)")
        }
        try press("ada", 1)
        let snoozed = start("ada")
        #expect(snoozed.json?["status"]?.string == "notNow", "\(snoozed.text)")
        #expect(snoozed.json?["explanation"]?[0]?.string?.hasPrefix("snoozed until ") == true)
        #expect(snoozed.json?["earliest"]?.string == "2027-01-22T08:00:00Z", "\(snoozed.text)")  // 1_800_000_000 + 7d
        let dry = h.request("POST", "/v1/conversations", body: #"{"flow": "rate", "visitor": "ada", "dryRun": true}"#, headers: site)
        #expect(dry.json?["status"]?.string == "notNow")
        #expect(start("bob").status == 201, "another visitor is shown")
        h.clock.advance(by: 7 * 86_400)
        #expect(start("ada").status == 201)
        // Forever: for as long as the server keeps the visitor's statistics (here 30 days).
        try press("cy", 2)
        h.clock.advance(by: 29 * 86_400)
        #expect(start("cy").json?["status"]?.string == "notNow")
        h.clock.advance(by: 86_400)
        #expect(start("cy").status == 201)
        // Kept in the store as the visitor's: erasure forgets it.
        try press("dee", 2)
        #expect(start("dee").json?["status"]?.string == "notNow")
        #expect(h.request("DELETE", "/v1/visitors/dee", headers: site).status == 200)
        #expect(start("dee").status == 201)
        // Pressing a button that does not snooze keeps nothing.
        try press("eve", 0)
        #expect(start("eve").status == 201)
        // A snooze that cannot be kept is a 503, and the press is not applied.
        if kind == .sqlite, let store = h.service.scenarios as? SQLiteScenarioStore {
            let id = try #require(start("fay").json?["conversation"]?["id"]?.string)
            try store.execForTesting("DROP TABLE scenarios")
            let headers = site.merging(["Rocket-Visitor": "fay"]) { $1 }
            let refused = h.request("POST", "/v1/conversations/\(id)/intents", body: #"{"intent": "choose", "option": 1}"#, headers: headers)
            #expect(refused.status == 503 && refused.json?["error"]?["code"]?.string == "store-unavailable", "\(refused.text)")
            #expect(refused.headers.contains { $0.0 == "Retry-After" })
            let view = h.request("GET", "/v1/conversations/\(id)", headers: headers)
            #expect(view.json?["conversation"]?["accepts"]?.array.compactMap(\.string).contains("choose") == true, "\(view.text)")
        }
    }
}

@Suite("HTTP API: results, the answers of ended conversations")
struct ResultsAPITests {
    static let key = "results-key-0123456789abcdef"

    /// A harness that needs a site key, on a store of `kind`.
    static func harness(_ kind: ServerStoreKind, configure: (inout ServerConfiguration) -> Void = { _ in }) throws -> Harness {
        try Harness(
            path: kind == .postgres ? try TestPostgres.freshDatabase() : nil, configure: configure,
            access: AccessControl(secret: AccessControl.randomBytes(32), keys: [key]))
    }

    static let site = ["Authorization": "Bearer " + key]

    /// Starts the basic flow for `visitor` as the site and answers it up to the choice.
    static func answered(_ h: Harness, visitor: String, name: String) throws -> String {
        let headers = site.merging(["Rocket-Visitor": visitor]) { $1 }
        let r = h.request("POST", "/v1/conversations", body: #"{"flow": "basic", "visitor": "\#(visitor)"}"#, headers: site)
        let id = try #require(r.json?["conversation"]?["id"]?.string, "\(r.text)")
        for intent in [#""intent": "tap""#, #""intent": "submit", "text": "\#(name)""#, #""intent": "submit", "text": "4711""#] {
            #expect(h.request("POST", "/v1/conversations/\(id)/intents", body: "{\(intent)}", headers: headers).status == 200)
        }
        return id
    }

    static func send(_ h: Harness, _ id: String, visitor: String, _ intent: String) -> HTTPResponse {
        h.request("POST", "/v1/conversations/\(id)/intents", body: "{\(intent)}", headers: site.merging(["Rocket-Visitor": visitor]) { $1 })
    }

    @Test(
        "GET /v1/results: each ended conversation's answers once, secrets left out, in the order written, page by page; the site key only",
        arguments: ServerStoreKind.allCases)
    func results(kind: ServerStoreKind) throws {
        let h = try Self.harness(kind)
        // Ada completes; Bo closes after giving a name; Cy is still under way.
        let ada = try Self.answered(h, visitor: "ada", name: "Ada")
        #expect(Self.send(h, ada, visitor: "ada", #""intent": "choose", "option": 1"#).status == 200)
        #expect(Self.send(h, ada, visitor: "ada", #""intent": "tap""#).status == 200)
        let bo = try Self.answered(h, visitor: "bo", name: "Bo")
        #expect(Self.send(h, bo, visitor: "bo", #""intent": "close""#).status == 200)
        _ = try Self.answered(h, visitor: "cy", name: "Cy")
        h.service.flush()
        let r = h.request("GET", "/v1/results", headers: Self.site)
        #expect(r.status == 200, "\(r.text)")
        let results = try #require(r.json?["results"]?.array)
        #expect(results.compactMap { $0["conversation"]?.string } == [ada, bo])
        #expect(results.compactMap { $0["visitor"]?.string } == ["ada", "bo"])
        #expect(results.compactMap { $0["reason"]?.string } == ["completed", "closed"])
        #expect(results[0]["answers"]?["name"]?.string == "Ada" && results[0]["answers"]?["pick"]?.string == "Blue")
        #expect(results[1]["answers"]?.object?.map(\.key) == ["name"])
        #expect(!r.text.contains("4711"), "no secret answer")
        let seqs = results.compactMap { $0["seq"]?.number }.map { Int($0) }
        #expect(seqs.count == 2 && seqs[0] < seqs[1] && r.json?["next"]?.number == Double(seqs[1]))
        // Page by page: after a page's `next`, the one after; past the last, none, `next` kept.
        let first = h.request("GET", "/v1/results", headers: Self.site, query: ["limit": "1"])
        #expect(first.json?["results"]?.array.count == 1 && first.json?["next"]?.number == Double(seqs[0]))
        let second = h.request("GET", "/v1/results", headers: Self.site, query: ["limit": "1", "after": "\(seqs[0])"])
        #expect(second.json?["results"]?[0]?["conversation"]?.string == bo)
        let none = h.request("GET", "/v1/results", headers: Self.site, query: ["after": "\(seqs[1])"])
        #expect(none.json?["results"]?.array.isEmpty == true && none.json?["next"]?.number == Double(seqs[1]))
        #expect(h.request("GET", "/v1/results", headers: Self.site, query: ["flow": "gated"]).json?["results"]?.array.isEmpty == true)
        #expect(h.request("GET", "/v1/results", headers: Self.site, query: ["flow": "basic"]).json?["results"]?.array.count == 2)
        // Nothing is written twice: more changes and saves of an ended conversation add no result.
        _ = Self.send(h, ada, visitor: "ada", #""intent": "tap""#)
        h.service.flush()
        #expect(h.request("GET", "/v1/results", headers: Self.site).json?["results"]?.array.count == 2)
        // Who may call: nobody is 401, a visitor 403.
        #expect(h.request("GET", "/v1/results").status == 401)
        let token = try #require(h.request("POST", "/v1/visitors").json?["token"]?.string)
        #expect(h.request("GET", "/v1/results", visitor: token).status == 403)
        #expect(h.request("POST", "/v1/results", headers: Self.site).status == 405)
        // One page is read at a time: another asker meanwhile is told to come back.
        h.service.readingResults.store(true, ordering: .sequentiallyConsistent)
        let busy = h.request("GET", "/v1/results", headers: Self.site)
        #expect(busy.status == 429 && busy.json?["error"]?["code"]?.string == "results-busy" && busy.header("Retry-After") == "1")
        h.service.readingResults.store(false, ordering: .sequentiallyConsistent)
        #expect(h.request("GET", "/v1/results", headers: Self.site).status == 200)
        // Wrong queries say what is wrong.
        for query in [["limit": "0"], ["limit": "1001"], ["after": "-1"], ["after": "x"], ["flow": "../x"], ["page": "2"]] {
            let bad = h.request("GET", "/v1/results", headers: Self.site, query: query)
            #expect(bad.status == 400 && bad.json?["error"]?["code"]?.string == "bad-query", "\(query): \(bad.text)")
        }
        // A page ends once its answers pass its bytes, with one result at least.
        let archive = try h.archive()
        let one = try archive.results(flow: nil, after: 0, limit: 10, maxBytes: 1)
        #expect(one.map(\.seq) == [seqs[0]])
        let both = try archive.results(flow: nil, after: 0, limit: 10, maxBytes: one[0].result.answers.utf8.count + 1)
        #expect(both.map(\.seq) == seqs)
        // Kept for --keep-results, then gone. (Cy's conversation, answered and left, expired
        // meanwhile: its answers are the one result now.)
        h.clock.advance(by: RocketLimits.resultRetentionSeconds + 1)
        _ = h.service.expireStored()
        let kept = h.request("GET", "/v1/results", headers: Self.site).json?["results"]?.array
        #expect(kept?.compactMap { $0["reason"]?.string } == ["expired"] && kept?.first?["visitor"]?.string == "cy")
    }

    @Test(
        "GET /v1/results?since=&until=: only the conversations that ended in the window, page by page in the order written; a while ago from the server's clock; bad bounds 400",
        arguments: ServerStoreKind.allCases)
    func resultsInWindow(kind: ServerStoreKind) throws {
        let h = try Self.harness(kind)
        let t0 = h.clock.now
        // Two end on day 0, three on day 1, one on day 2 (each closed after giving a name).
        var ended: [[String]] = []
        for (day, count) in [2, 3, 1].enumerated() {
            h.clock.advance(by: day == 0 ? 0 : 86_400)
            var ids: [String] = []
            for k in 0..<count {
                let visitor = "v\(day)x\(k)"
                let id = try Self.answered(h, visitor: visitor, name: "N\(k)")
                #expect(Self.send(h, id, visitor: visitor, #""intent": "close""#).status == 200)
                ids.append(id)
            }
            ended.append(ids)
        }
        h.service.flush()
        func listed(_ query: [String: String], limit: Int = 1000) -> [String]? {
            var out: [String] = [], after = 0
            while true {
                let q = query.merging(["limit": "\(limit)", "after": "\(after)"]) { $1 }
                let r = h.request("GET", "/v1/results", headers: Self.site, query: q)
                guard r.status == 200, let page = r.json?["results"]?.array, let next = r.json?["next"]?.number else { return nil }
                if page.isEmpty { return out }
                out += page.compactMap { $0["conversation"]?.string }
                after = Int(next)
            }
        }
        let day = { (d: Double) in ReportFormat.instant(t0 + d * 86_400) }
        #expect(listed([:]) == ended.flatMap { $0 })
        #expect(listed(["since": day(1), "until": day(2)], limit: 1) == ended[1], "page by page, one at a time")
        #expect(listed(["since": day(1)], limit: 2) == ended[1] + ended[2])
        #expect(listed(["until": day(1)]) == ended[0])
        #expect(listed(["since": day(3)]) == [])
        #expect(listed(["since": "23h"]) == ended[2] && listed(["since": "25h"]) == ended[1] + ended[2], "a while before the server's clock")
        #expect(listed(["since": day(1), "flow": "gated"]) == [])
        let (from, to) = (t0 + 86_400, t0 + 2 * 86_400)
        #expect(
            try h.archive().results(flow: "basic", visitor: nil, ended: ReportWindow(since: from, until: to), after: 0, limit: 10, maxBytes: 1 << 20)
                .map(\.result.id) == ended[1])
        for bad in [["since": "yesterday"], ["until": "2027-02-30"], ["since": day(2), "until": day(1)], ["since": day(1), "until": day(1)]] {
            let r = h.request("GET", "/v1/results", headers: Self.site, query: bad)
            #expect(r.status == 400 && r.json?["error"]?["code"]?.string == "bad-query", "\(bad): \(r.text)")
        }
    }

    @Test("--keep-results 0: no result is written, and the route says so")
    func keepNone() throws {
        let h = try Self.harness(.sqlite) { $0.resultRetention = 0 }
        let ada = try Self.answered(h, visitor: "ada", name: "Ada")
        _ = Self.send(h, ada, visitor: "ada", #""intent": "close""#)
        h.service.flush()
        let r = h.request("GET", "/v1/results", headers: Self.site)
        #expect(r.status == 404 && r.json?["error"]?["code"]?.string == "no-results")
        #expect(try h.archive().results(flow: nil, after: 0, limit: 10, maxBytes: 1 << 20).isEmpty)
    }
}

extension ResultsAPITests {
    @Test("a save of a conversation's end that fails is tried again: its result is written with it, once")
    func failedSaveKeepsTheResult() throws {
        let h = try Self.harness(.sqlite)
        let ada = try Self.answered(h, visitor: "ada", name: "Ada")
        // Another connection makes every write of a result fail, so the batch with the end fails.
        let db = try SQLiteDatabase(path: h.path, mode: .readWrite)
        try db.withConnection { (c) throws(SQLiteError) in
            try c.exec("CREATE TRIGGER refuse BEFORE INSERT ON server_results BEGIN SELECT RAISE(ABORT, 'refused by the test'); END")
        }
        _ = Self.send(h, ada, visitor: "ada", #""intent": "close""#)
        #expect(h.service.flush().saved == false)
        #expect(try h.archive().results(flow: nil, after: 0, limit: 10, maxBytes: 1 << 20).isEmpty)
        try db.withConnection { (c) throws(SQLiteError) in try c.exec("DROP TRIGGER refuse") }
        #expect(h.service.flush().saved)
        h.service.flush()
        let stored = try h.archive().results(flow: nil, after: 0, limit: 10, maxBytes: 1 << 20)
        #expect(stored.map(\.result.id) == [ada])
        #expect(stored.first?.result.answers == #"{"name":"Ada"}"#)
    }

    @Test(
        "a conversation answered and left leaves its answers when it expires (reason expired), in the removal's transaction; one never answered, or ended, none",
        arguments: ServerStoreKind.allCases)
    func expiredLeaveTheirAnswers(kind: ServerStoreKind) throws {
        let h = try Self.harness(kind) { $0.idleTimeout = 100 }
        let ada = try Self.answered(h, visitor: "ada", name: "Ada")
        _ = Self.send(h, ada, visitor: "ada", #""intent": "close""#)
        let cy = try Self.answered(h, visitor: "cy", name: "Cy")
        let dee = try #require(
            h.request("POST", "/v1/conversations", body: #"{"flow": "basic", "visitor": "dee"}"#, headers: Self.site).json?["conversation"]?["id"]?
                .string)
        h.service.flush()
        let archive = try h.archive()
        // Not yet idle for long enough: nothing expires, no result but Ada's.
        h.clock.advance(by: 50)
        #expect(h.service.expireStored() == 0)
        #expect(try archive.results(flow: nil, after: 0, limit: 10, maxBytes: 1 << 20).map(\.result.id) == [ada])
        h.clock.advance(by: 51)
        #expect(h.service.expireStored() == 3)
        for id in [ada, cy, dee] { #expect(try archive.load(id) == nil) }
        let stored = try archive.results(flow: nil, after: 0, limit: 10, maxBytes: 1 << 20)
        #expect(stored.map(\.result.id) == [ada, cy])
        #expect(stored.map(\.result.reason) == ["closed", "expired"])
        // Its answers as they were (the secret one left out), its visitor and flow.
        #expect(stored.last?.result.answers == #"{"name":"Cy"}"#)
        #expect(stored.last?.result.visitor == "cy" && stored.last?.result.flow == "basic")
        #expect(stored.last.map { $0.result.at == h.clock.now } == true)
        // The route shows it as any other.
        let page = h.request("GET", "/v1/results", headers: Self.site).json?["results"]?.array
        #expect(page?.last?["reason"]?.string == "expired" && page?.last?["answers"]?["name"]?.string == "Cy")
        // Monitoring counts them by reason.
        let metrics = h.request("GET", "/metrics", headers: Self.site).text
        #expect(
            metrics.contains("rocket_results_written_total{flow=\"basic\",reason=\"closed\"} 1\n")
                && metrics.contains("rocket_results_written_total{flow=\"basic\",reason=\"expired\"} 1\n"), "\(metrics)")
    }

    @Test("a conversation that expires but cannot be read (its row damaged) leaves no result, goes all the same, and the log counts it once")
    func expiredUnreadable() throws {
        let path = scratchDirectory() + "/store.sqlite"
        let said = Mutex<[String]>([])
        let h = try Harness(path: path, configure: { $0.idleTimeout = 100 }, log: { line in said.withLock { $0.append(line) } })
        let ids = try ["ada", "bo"].map { visitor in
            let id = try h.start(visitor: visitor)
            #expect(h.send(id, #""intent": "tap""#, visitor: visitor).status == 200)
            #expect(h.send(id, #""intent": "submit", "text": "N""#, visitor: visitor).status == 200)
            return id
        }
        h.service.flush()
        let db = try SQLiteDatabase(path: path, mode: .readWrite)
        try db.withConnection { (c) throws(SQLiteError) in
            try c.exec("UPDATE server_conversations SET snapshot = '{\"start\":[1,2]}' WHERE id = '\(ids[0])'")
        }
        h.clock.advance(by: 101)
        #expect(h.service.expireStored() == 2)
        let stored = try h.archive().results(flow: nil, after: 0, limit: 10, maxBytes: 1 << 20)
        #expect(stored.map(\.result.id) == [ids[1]] && stored.first?.result.reason == "expired")
        let told = said.withLock { $0 }.filter { $0.contains("could not be read") }
        #expect(told.count == 1 && told[0].contains("1 expired"), "\(said.withLock { $0 })")
    }

    @Test(
        "an expiring conversation's answers come from its snapshot and the steps saved after it (a choice is saved as a step)",
        arguments: ServerStoreKind.allCases)
    func expiredReplaysSteps(kind: ServerStoreKind) throws {
        let dir = scratchDirectory()
        let flow = #"""
            {"version": 1, "blocks": [
             {"id": "pick", "type": "choice", "text": "Which?", "options": [{"title": "Tea", "next": "more"}, {"title": "Coffee", "next": "more"}]},
             {"id": "more", "type": "choice", "text": "And?", "options": [{"title": "Milk", "next": "bye"}, {"title": "None", "next": "bye"}]},
             {"id": "bye", "type": "text", "text": "Bye"}]}
            """#
        try flow.write(toFile: dir + "/drinks.json", atomically: true, encoding: .utf8)
        let h = try Harness(kind, configure: { $0.idleTimeout = 100 }, flowsDirectory: dir)
        let id = try h.start("drinks")
        #expect(h.send(id, #""intent": "choose", "option": 1"#).status == 200)
        h.service.flush()
        let archive = try h.archive()
        let stored = try #require(try archive.load(id))
        #expect(!stored.steps.isEmpty, "the choice is saved as a step after the start")
        h.clock.advance(by: 101)
        #expect(h.service.expireStored() == 1)
        let results = try archive.results(flow: nil, after: 0, limit: 10, maxBytes: 1 << 20)
        #expect(results.map(\.result.reason) == ["expired"])
        #expect(results.first?.result.answers == #"{"pick":"Coffee"}"#, "\(results)")
    }

    @Test("--keep-results 0: an answered conversation expires without a result")
    func keepNoneExpired() throws {
        let h = try Self.harness(.sqlite) {
            $0.resultRetention = 0
            $0.idleTimeout = 100
        }
        let cy = try Self.answered(h, visitor: "cy", name: "Cy")
        h.service.flush()
        h.clock.advance(by: 101)
        #expect(h.service.expireStored() == 1)
        #expect(try h.archive().load(cy) == nil)
        #expect(try h.archive().results(flow: nil, after: 0, limit: 10, maxBytes: 1 << 20).isEmpty)
    }
}

extension ResultsAPITests {
    @Test("two servers on one PostgreSQL store: each writes the results of what ended there; either lists all of them, each once, in order")
    func sharedStore() throws {
        let url = try TestPostgres.freshDatabase()
        let access = AccessControl(secret: AccessControl.randomBytes(32), keys: [Self.key])
        let a = try Harness(path: url, access: access), b = try Harness(path: url, access: access)
        var ended: [String] = []
        for k in 0..<6 {
            let h = k % 2 == 0 ? a : b
            let id = try Self.answered(h, visitor: "v\(k)", name: "N\(k)")
            #expect(Self.send(h, id, visitor: "v\(k)", #""intent": "close""#).status == 200)
            h.service.flush()
            ended.append(id)
        }
        for h in [a, b] {
            var seen: [String] = [], after = 0
            while true {
                let page = h.request("GET", "/v1/results", headers: Self.site, query: ["after": "\(after)", "limit": "4"])
                let items = page.json?["results"]?.array ?? []
                if items.isEmpty { break }
                seen += items.compactMap { $0["conversation"]?.string }
                after = Int(page.json?["next"]?.number ?? 0)
            }
            #expect(seen == ended)
        }
    }
}

extension ResultsAPITests {
    @Test("a result names the experiment's variant its visitor was in", arguments: ServerStoreKind.allCases)
    func variant(kind: ServerStoreKind) throws {
        let dir = scratchDirectory()
        try #"""
        {"version": 1, "experiment": {"name": "copy", "variants": [{"name": "long", "start": "long"}, {"name": "short", "start": "short"}]},
         "blocks": [{"id": "long", "type": "textInput", "text": "The long question?", "buttonTitle": "OK"},
                    {"id": "short", "type": "textInput", "text": "Short?", "buttonTitle": "OK"}]}
        """#.write(toFile: dir + "/copy.json", atomically: true, encoding: .utf8)
        let h = try Harness(
            path: kind == .postgres ? try TestPostgres.freshDatabase() : nil, flowsDirectory: dir,
            access: AccessControl(secret: AccessControl.randomBytes(32), keys: [Self.key]))
        let experiment = RocketExperiment(name: "copy", variants: [RocketExperimentVariant(name: "long"), RocketExperimentVariant(name: "short")])
        var expected: [String: String] = [:]
        for k in 0..<6 {
            let visitor = "x\(k)"
            let r = h.request("POST", "/v1/conversations", body: #"{"flow": "copy", "visitor": "\#(visitor)"}"#, headers: Self.site)
            let id = try #require(r.json?["conversation"]?["id"]?.string, "\(r.text)")
            #expect(Self.send(h, id, visitor: visitor, #""intent": "submit", "text": "yes""#).status == 200)
            h.service.flush()
            expected[id] = experiment.name(of: experiment.assign(visitor: visitor))
        }
        let results = try #require(h.request("GET", "/v1/results", headers: Self.site).json?["results"]?.array)
        #expect(results.count == 6)
        for r in results {
            let id = try #require(r["conversation"]?.string)
            #expect(r["variant"]?.string == expected[id], "\(id)")
        }
        #expect(Set(expected.values).count == 2, "both variants were drawn")
    }
}

@Suite("HTTP API: a start's dry run")
struct DryRunAPITests {
    @Test(
        "dryRun asks a start's gates and keeps nothing: notNow with why and from when, or wouldStart with the variant a start then gets; no conversation, execution, record, assignment or statistics row",
        arguments: ServerStoreKind.allCases)
    func dryRun(kind: ServerStoreKind) throws {
        let dir = scratchDirectory()
        try """
        {"version": 1, "scenario": "tips", "when": {"eventsOf": "visit", "minEventsRequired": 2, "maxExecutionsPermitted": 1},
         "experiment": {"name": "copy", "holdout": 0.3, "variants": [{"name": "long", "start": "long"}, {"name": "short", "start": "short"}]},
         "blocks": [{"id": "long", "type": "text", "text": "The long welcome"}, {"id": "short", "type": "text", "text": "Hi"}]}
        """.write(toFile: dir + "/tips.json", atomically: true, encoding: .utf8)
        let experiment = RocketExperiment(
            name: "copy", variants: [RocketExperimentVariant(name: "long"), RocketExperimentVariant(name: "short")], holdout: 0.3)
        let h = try Harness(path: kind == .postgres ? try TestPostgres.freshDatabase() : nil, flowsDirectory: dir)
        func dry(_ visitor: String) -> JSONNode? {
            let r = h.request("POST", "/v1/conversations", body: #"{"flow": "tips", "visitor": "\#(visitor)", "dryRun": true}"#)
            #expect(r.status == 200, "\(r.text)")
            #expect(r.json?["dryRun"]?.bool == true && r.json?["conversation"] == nil)
            return r.json
        }
        func kept(_ visitor: String) -> JSONNode? { h.request("GET", "/v1/visitors/\(visitor)").json }
        func records() throws -> Int {
            h.service.flush()
            if kind == .postgres {
                return try PostgresDatabase(url: try #require(PostgresURL(h.path)), capacity: 1).withConnection { (c) throws(PostgresError) in
                    try c.query("SELECT count(*) FROM rocket_events").firstInt ?? -1
                }
            }
            return try SQLiteDatabase(path: h.path, mode: .readOnly).withConnection { (c) throws(SQLiteError) in
                try c.integer("SELECT count(*) FROM server_events")
            }
        }
        let visitors = (0..<20).map { "d\($0)" }
        let shown = try #require(visitors.first { experiment.name(of: experiment.assign(visitor: $0)) != "holdout" })
        let held = try #require(visitors.first { experiment.name(of: experiment.assign(visitor: $0)) == "holdout" })
        // Not yet: the reasons a start would give, nothing kept of the visitor.
        let before = dry(shown)
        #expect(before?["status"]?.string == "notNow" && before?["explanation"]?.array.isEmpty == false, "\(String(describing: before))")
        for _ in 0..<2 { #expect(h.request("POST", "/v1/events", body: #"{"scenario": "visit", "visitor": "\#(shown)"}"#).status == 204) }
        // Now it would start, in the visitor's variant, as often as asked: a dry run executes nothing.
        let variant = experiment.name(of: experiment.assign(visitor: shown))
        for _ in 0..<3 {
            let now = dry(shown)
            #expect(now?["status"]?.string == "wouldStart" && now?["variant"]?.string == variant, "\(String(describing: now))")
        }
        #expect(h.service.count == 0, "no conversation is held")
        #expect(kept(shown)?["conversations"]?.array.isEmpty == true && kept(shown)?["assignments"]?.array.isEmpty == true)
        let scenarios = kept(shown)?["scenarios"]?.array.compactMap { $0["scenario"]?.string } ?? []
        #expect(scenarios == ["visit"], "the events only; the dry run made no row for the flow's scenario: \(scenarios)")
        #expect(try records() == 0, "no record, no exposure")
        // The start itself: started, in that variant; after it, the dry run says not now (shown once).
        let started = h.request("POST", "/v1/conversations", body: #"{"flow": "tips", "visitor": "\#(shown)", "reducedMotion": true}"#)
        #expect(started.status == 201)
        #expect(started.json?["conversation"]?["transcript"]?[0]?["text"]?.string == (variant == "long" ? "The long welcome" : "Hi"))
        #expect(dry(shown)?["status"]?.string == "notNow")
        // The holdout: not now, saying so, and no holdout record kept.
        let out = dry(held)
        #expect(out?["status"]?.string == "notNow" && out?["variant"]?.string == "holdout")
        #expect(try records() == 1, "the start's records only (a conversation's records are one row), no holdout's")
        // A dry run is a request like any other: dryRun must be true or false.
        let bad = h.request("POST", "/v1/conversations", body: #"{"flow": "tips", "visitor": "x", "dryRun": "yes"}"#)
        #expect(bad.status == 400)
    }
}
