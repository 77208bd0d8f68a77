import RocketCore
import Testing

@testable import RocketServer

/// Who may call what: every route with each kind of caller, and the forgeries of the issue.
@Suite("Who may call what: site keys, visitor tokens, identified visitors")
struct AccessTests {
    static let key = "site-key-0123456789abcdef"
    static let identity = Array("identity-secret-of-the-site-0123".utf8)

    /// A server that is not in `--insecure-dev`: one site key, identified visitors vouched for
    /// by ``identity``.
    func secure() throws -> Harness {
        try Harness(access: AccessControl(secret: AccessControl.randomBytes(32), identitySecret: Self.identity, keys: [Self.key]))
    }

    /// A fresh visitor's token, from the route a widget calls.
    func token(_ h: Harness) throws -> String {
        let r = h.request("POST", "/v1/visitors", contentType: nil)
        #expect(r.status == 201, "\(r.text)")
        let token = try #require(r.json?["token"]?.string)
        let visitor = try #require(r.json?["visitor"]?.string)
        #expect(token.hasPrefix(visitor + "."))
        #expect(visitor.hasPrefix("anon."))
        return token
    }

    func start(_ h: Harness, headers: [String: String], body: String = #"{"flow": "basic"}"#) -> HTTPResponse {
        h.request("POST", "/v1/conversations", body: body, headers: headers)
    }

    @Test("a dry run is a start's call: a visitor asks only for itself, a forged token is 401, a site key asks for anyone")
    func dryRunCallers() throws {
        let h = try secure()
        let good = try token(h)
        let own = start(h, headers: ["Rocket-Visitor": good], body: #"{"flow": "basic", "dryRun": true}"#)
        #expect(own.status == 200 && own.json?["status"]?.string == "wouldStart", "\(own.text)")
        let other = start(h, headers: ["Rocket-Visitor": good], body: #"{"flow": "basic", "visitor": "victim", "dryRun": true}"#)
        #expect(other.status == 403, "\(other.text)")
        #expect(start(h, headers: ["Rocket-Visitor": "victim"], body: #"{"flow": "basic", "dryRun": true}"#).status == 401)
        #expect(start(h, headers: ["Authorization": "Bearer wrong-key-0123456789"], body: #"{"flow": "basic", "visitor": "v", "dryRun": true}"#).status == 401)
        let site = start(h, headers: ["Authorization": "Bearer " + Self.key], body: #"{"flow": "basic", "visitor": "v", "dryRun": true}"#)
        #expect(site.status == 200 && site.json?["dryRun"]?.bool == true, "\(site.text)")
        #expect(h.service.count == 0, "a dry run holds no conversation")
    }

    @Test("HMAC-SHA256 gives RFC 4231's answers; codes compare equal only when every byte is")
    func hmacVectors() {
        #expect(
            HMAC.hex(key: [UInt8](repeating: 0x0B, count: 20), message: Array("Hi There".utf8))
                == "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7")
        #expect(
            HMAC.hex(key: Array("Jefe".utf8), message: Array("what do ya want for nothing?".utf8))
                == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
        let longKey = [UInt8](repeating: 0xAA, count: 131)
        #expect(
            HMAC.hex(key: longKey, message: Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8))
                == "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54")
        #expect(HMAC.equal([1, 2, 3], [1, 2, 3]))
        #expect(!HMAC.equal([1, 2, 3], [1, 2, 4]))
        #expect(!HMAC.equal([1, 2, 3], [1, 2]))
    }

    @Test("a visitor is who its token says: no credentials 401, a forged, altered or foreign token 401, a claimed plain id 401")
    func tokens() throws {
        let h = try secure()
        #expect(start(h, headers: [:], body: #"{"flow": "basic", "visitor": "victim"}"#).status == 401)
        #expect(start(h, headers: ["Rocket-Visitor": "victim"]).status == 401, "a plain id is a claim, not a proof")
        let good = try token(h)
        var altered = Array(good.utf8)
        altered[altered.count - 1] = altered.last == UInt8(ascii: "0") ? UInt8(ascii: "1") : UInt8(ascii: "0")
        #expect(start(h, headers: ["Rocket-Visitor": String(decoding: altered, as: UTF8.self)]).status == 401)
        // The same id signed by another server's secret.
        let other = AccessControl.random()
        let visitor = String(good.prefix(while: { $0 != "." }) + "." + good.dropFirst(5).prefix(while: { $0 != "." }))
        #expect(start(h, headers: ["Rocket-Visitor": other.token(for: visitor)]).status == 401)
        // Another visitor's id with this token's signature.
        let forged = AccessControl.anonymousPrefix + String(repeating: "b", count: 32) + String(good.suffix(65))
        #expect(start(h, headers: ["Rocket-Visitor": forged]).status == 401)
        let refused = start(h, headers: ["Rocket-Visitor": "anon.x.y"])
        #expect(refused.status == 401)
        #expect(refused.json?["error"]?["code"]?.string == "bad-token")
        let started = start(h, headers: ["Rocket-Visitor": good])
        #expect(started.status == 201, "\(started.text)")
        // Once a token has been checked it is remembered; altered or forged ones still are not.
        #expect(start(h, headers: ["Rocket-Visitor": good]).status == 201)
        #expect(start(h, headers: ["Rocket-Visitor": String(decoding: altered, as: UTF8.self)]).status == 401)
        #expect(start(h, headers: ["Rocket-Visitor": forged]).status == 401)
        // Many good tokens: the memory of them stays bounded and every one still works.
        let access = AccessControl.random()
        for k in 0..<(AccessControl.verifiedTokens + 10) {
            let hex = String(k, radix: 16)
            let id = AccessControl.anonymousPrefix + String(repeating: "0", count: 32 - hex.count) + hex
            let t = access.token(for: id)
            #expect(access.visitor(ofToken: t) == id)
            if k % 5_000 == 0 { #expect(access.visitor(ofToken: t + "0") == nil && access.visitor(ofToken: String(t.dropLast()) + "x") == nil) }
        }
        #expect(access.rememberedTokens <= AccessControl.verifiedTokens)
    }

    @Test("a first start without credentials makes a new anonymous visitor: its token comes with the answer and works")
    func firstStart() throws {
        let h = try secure()
        let first = start(h, headers: [:])
        #expect(first.status == 201, "\(first.text)")
        let token = try #require(first.json?["token"]?.string)
        let visitor = try #require(first.json?["visitor"]?.string)
        #expect(token.hasPrefix(visitor + ".") && visitor.hasPrefix(AccessControl.anonymousPrefix))
        let id = try #require(first.json?["conversation"]?["id"]?.string)
        #expect(h.request("GET", "/v1/conversations/\(id)", headers: ["Rocket-Visitor": token]).status == 200)
        #expect(h.request("GET", "/v1/conversations/\(id)").status == 401)
        // Two first visits are two visitors; an answer to a caller with credentials carries none.
        let second = start(h, headers: [:])
        #expect(second.json?["visitor"]?.string != visitor)
        #expect(start(h, headers: ["Rocket-Visitor": token]).json?["token"] == nil)
    }

    @Test("a visitor reaches only its own conversations and acts only as itself; a site key reaches any")
    func ownership() throws {
        let h = try secure()
        let ada = try token(h), bob = try token(h)
        let adaID = String(ada.prefix(AccessControl.anonymousPrefix.count + 32))
        let started = start(h, headers: ["Rocket-Visitor": ada])
        let id = try #require(started.json?["conversation"]?["id"]?.string)
        h.service.advanceDue()
        #expect(h.request("GET", "/v1/conversations/\(id)", headers: ["Rocket-Visitor": ada]).status == 200)
        #expect(h.request("GET", "/v1/conversations/\(id)", headers: ["Rocket-Visitor": bob]).status == 404)
        #expect(h.request("GET", "/v1/conversations/\(id)").status == 401)
        // HEAD asks the same as GET: it is refused to the same callers.
        #expect(h.request("HEAD", "/v1/conversations/\(id)", headers: ["Rocket-Visitor": bob]).status == 404)
        #expect(h.request("HEAD", "/v1/conversations/\(id)").status == 401)
        #expect(h.request("HEAD", "/v1/report").status == 401)
        #expect(h.request("HEAD", "/v1/report", headers: ["Rocket-Visitor": ada]).status == 403)
        #expect(h.request("HEAD", "/v1/conversations/\(id)", headers: ["Rocket-Visitor": ada]).status == 200)
        #expect(h.request("GET", "/v1/conversations/\(id)/events", headers: ["Rocket-Visitor": bob]).status == 404)
        #expect(h.request("GET", "/v1/conversations/\(id)/events").status == 401)
        #expect(h.request("GET", "/v1/conversations/\(id)/events", headers: ["Rocket-Visitor": ada]).status == 200)
        let tap = #"{"intent": "tap", "step": 0}"#
        #expect(h.request("POST", "/v1/conversations/\(id)/intents", body: tap, headers: ["Rocket-Visitor": bob]).status == 404)
        #expect(h.request("POST", "/v1/conversations/\(id)/intents", body: tap, headers: ["Rocket-Visitor": ada]).status == 200)
        // Starting under someone else's id.
        let asOther = start(h, headers: ["Rocket-Visitor": bob], body: #"{"flow": "basic", "visitor": "\#(adaID)"}"#)
        #expect(asOther.status == 403)
        #expect(asOther.json?["error"]?["code"]?.string == "not-this-visitor")
        // A site acts for any visitor, and reads any conversation.
        let site = ["Authorization": "Bearer " + Self.key]
        #expect(h.request("GET", "/v1/conversations/\(id)", headers: site).status == 200)
        #expect(start(h, headers: site).status == 400, "a site names the visitor")
        let forAda = start(h, headers: site, body: #"{"flow": "basic", "visitor": "\#(adaID)"}"#)
        #expect(forAda.status == 201)
        let second = try #require(forAda.json?["conversation"]?["id"]?.string)
        #expect(h.request("GET", "/v1/conversations/\(second)", headers: ["Rocket-Visitor": ada]).status == 200)
    }

    @Test("scenario events are a site's: without a key 401, a visitor 403, a wrong key 401; keys rotate")
    func events() throws {
        let h = try secure()
        let body = #"{"scenario": "tour", "visitor": "victim"}"#
        let none = h.request("POST", "/v1/events", body: body)
        #expect(none.status == 401)
        #expect(none.header("WWW-Authenticate") == "Bearer")
        #expect(h.request("POST", "/v1/events", body: body, headers: ["Rocket-Visitor": try token(h)]).status == 403)
        #expect(h.request("POST", "/v1/events", body: body, headers: ["Authorization": "Bearer wrong-key-0123456789"]).status == 401)
        #expect(h.request("POST", "/v1/events", body: body, headers: ["Authorization": Self.key]).status == 401, "the scheme is Bearer")
        #expect(h.request("POST", "/v1/events", body: body, headers: ["Authorization": "Bearer " + Self.key]).status == 204)
        h.service.access.setKeys(["the-next-key-0123456789"])
        #expect(h.request("POST", "/v1/events", body: body, headers: ["Authorization": "Bearer " + Self.key]).status == 401)
        #expect(h.request("POST", "/v1/events", body: body, headers: ["Authorization": "Bearer the-next-key-0123456789"]).status == 204)
    }

    @Test("a show-once flow cannot be used up under someone else's name")
    func gateNotStolen() throws {
        let h = try secure()
        let victim = try token(h), mallory = try token(h)
        let victimID = String(victim.prefix(AccessControl.anonymousPrefix.count + 32))
        let stolen = start(h, headers: ["Rocket-Visitor": mallory], body: #"{"flow": "gated", "visitor": "\#(victimID)"}"#)
        #expect(stolen.status == 403)
        let own = start(h, headers: ["Rocket-Visitor": victim], body: #"{"flow": "gated"}"#)
        #expect(own.json?["status"]?.string == "started", "\(own.text)")
    }

    @Test("identified visitors: the site's hash proves the id; a wrong or missing hash is 401; anon. ids cannot be claimed")
    func identified() throws {
        let h = try secure()
        let hash = HMAC.hex(key: Self.identity, message: Array("u123".utf8))
        let ok = start(h, headers: ["Rocket-Visitor": "u123", "Rocket-Visitor-Hash": hash])
        #expect(ok.status == 201, "\(ok.text)")
        let id = try #require(ok.json?["conversation"]?["id"]?.string)
        #expect(h.request("GET", "/v1/conversations/\(id)", headers: ["Rocket-Visitor": "u123", "Rocket-Visitor-Hash": hash.uppercased()]).status == 200)
        let wrong = HMAC.hex(key: Self.identity, message: Array("u124".utf8))
        #expect(start(h, headers: ["Rocket-Visitor": "u123", "Rocket-Visitor-Hash": wrong]).status == 401)
        #expect(start(h, headers: ["Rocket-Visitor": "u123"]).status == 401)
        #expect(start(h, headers: ["Rocket-Visitor-Hash": hash]).status == 401)
        let anon = AccessControl.anonymousPrefix + String(repeating: "c", count: 32)
        let anonHash = HMAC.hex(key: Self.identity, message: Array(anon.utf8))
        #expect(start(h, headers: ["Rocket-Visitor": anon, "Rocket-Visitor-Hash": anonHash]).status == 401)
        // A server without an identity secret takes no identified visitors.
        let plain = try Harness(access: .random())
        let refused = start(plain, headers: ["Rocket-Visitor": "u123", "Rocket-Visitor-Hash": hash])
        #expect(refused.status == 401)
        #expect(refused.json?["error"]?["code"]?.string == "identity-not-configured")
    }

    @Test("alerts: a site makes them for anyone, a visitor for itself; only its visitor or a site reads, changes or answers one")
    func alerts() throws {
        let h = try secure()
        let ada = try token(h), bob = try token(h)
        let adaID = String(ada.prefix(AccessControl.anonymousPrefix.count + 32))
        let actions = #""actions": [{"title": "OK"}]"#
        let site = ["Authorization": "Bearer " + Self.key]
        #expect(h.request("POST", "/v1/alerts", body: "{\"visitor\": \"\(adaID)\", \(actions)}").status == 401)
        #expect(h.request("POST", "/v1/alerts", body: "{\"visitor\": \"\(adaID)\", \(actions)}", headers: ["Rocket-Visitor": bob]).status == 403)
        let made = h.request("POST", "/v1/alerts", body: "{\"visitor\": \"\(adaID)\", \(actions)}", headers: site)
        #expect(made.status == 201)
        let id = try #require(made.json?["alert"]?["id"]?.string)
        #expect(h.request("GET", "/v1/alerts/\(id)", headers: ["Rocket-Visitor": bob]).status == 404)
        #expect(h.request("POST", "/v1/alerts/\(id)/mutations", body: #"{"setTitle": "x"}"#, headers: ["Rocket-Visitor": bob]).status == 404)
        #expect(h.request("POST", "/v1/alerts/\(id)/select", body: #"{"index": 0}"#, headers: ["Rocket-Visitor": bob]).status == 404)
        #expect(h.request("GET", "/v1/alerts/\(id)/events").status == 401)
        #expect(h.request("POST", "/v1/alerts/\(id)/mutations", body: #"{"setTitle": "Sure?"}"#, headers: site).status == 200)
        #expect(h.request("POST", "/v1/alerts/\(id)/select", body: #"{"index": 0}"#, headers: ["Rocket-Visitor": ada]).status == 200)
        let own = h.request("POST", "/v1/alerts", body: "{\(actions)}", headers: ["Rocket-Visitor": bob])
        #expect(own.status == 201, "\(own.text)")
    }

    @Test("a visitor id in the query string is no credential (ids never travel in URLs)")
    func noQueryVisitor() throws {
        let h = try secure()
        let started = start(h, headers: ["Rocket-Visitor": try token(h)])
        let id = try #require(started.json?["conversation"]?["id"]?.string)
        let viaQuery = h.service.handle(HTTPRequest(method: "GET", path: "/v1/conversations/\(id)/events", query: ["visitor": "anon.x"]))
        #expect(viaQuery.status == 401)
    }

    @Test("a key file: one key per line, comments and blank lines skipped, a line that is no key named")
    func keyFile() throws {
        let text = "# keys of shop.example\n\n  key-one-0123456789abcdef  \nkey-two-0123456789abcdef\r\n"
        #expect(try AccessControl.keys(fromText: text).get() == ["key-one-0123456789abcdef", "key-two-0123456789abcdef"])
        #expect(AccessControl.keys(fromText: "good-key-0123456789abc\nshort\n") == .failure(AccessControl.KeyFileError(line: 2)))
        #expect(AccessControl.keys(fromText: "has a space in it 0123456789") == .failure(AccessControl.KeyFileError(line: 1)))
    }

    @Test("the routes anyone may call answer without credentials: pages, the widget, flows, files, new visitors")
    func publicRoutes() throws {
        let h = try secure()
        for path in ["/", "/widget.js", "/play/basic", "/v1/flows", "/healthz", "/readyz"] {
            #expect(h.request("GET", path).status == 200, "\(path)")
        }
        #expect(h.request("POST", "/v1/visitors", contentType: nil).status == 201)
        #expect(h.request("POST", "/v1/visitors", body: #"{"x": 1}"#).status == 400)
    }
}
