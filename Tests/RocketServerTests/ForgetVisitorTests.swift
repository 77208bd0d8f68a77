import Foundation
import RocketCore
import RocketJSON
import RocketScenarioEngine
import RocketScenariosSQLite
import RocketTestSupport
import Testing

@testable import RocketServer

/// `DELETE /v1/visitors/{id}`: a site's back end erases what the server keeps of one visitor.
@Suite("Forgetting a visitor")
struct ForgetVisitorTests {
    typealias R = ResultsAPITests

    @Test(
        "DELETE /v1/visitors/{id}: the visitor's conversations, results, scenario counts and records go, in memory and in the store, for good; others' stay; the site key only",
        arguments: ServerStoreKind.allCases)
    func forget(kind: ServerStoreKind) throws {
        let h = try R.harness(kind)
        // Ada ends one conversation (a result) and has another under way, and was shown the
        // gated flow (its per-visitor count); Bo the same.
        var ids: [String: [String]] = [:]
        var alerts: [String: String] = [:]
        for visitor in ["ada", "bo"] {
            let ended = try R.answered(h, visitor: visitor, name: visitor.capitalized)
            #expect(R.send(h, ended, visitor: visitor, #""intent": "close""#).status == 200)
            let open = try R.answered(h, visitor: visitor, name: visitor.capitalized)
            let gated = h.request("POST", "/v1/conversations", body: #"{"flow": "gated", "visitor": "\#(visitor)"}"#, headers: R.site)
            #expect(gated.status == 201, "\(gated.text)")
            ids[visitor] = [ended, open, try #require(gated.json?["conversation"]?["id"]?.string)]
            // An alert the site made for each.
            let alert = h.request(
                "POST", "/v1/alerts", body: #"{"visitor": "\#(visitor)", "title": "For \#(visitor)", "actions": [{"title": "OK"}]}"#, headers: R.site)
            #expect(alert.status == 201, "\(alert.text)")
            alerts[visitor] = try #require(alert.json?["alert"]?["id"]?.string ?? alert.json?["id"]?.string, "\(alert.text)")
        }
        h.service.flush()
        let archive = try h.archive()
        #expect(try archive.results(flow: nil, after: 0, limit: 10, maxBytes: 1 << 20).count == 2)
        #expect(try !archive.events(ids["ada"]![0]).isEmpty)
        // Who may call: nobody 401, a visitor (even itself) 403, a malformed id 400.
        #expect(h.request("DELETE", "/v1/visitors/ada").status == 401)
        let token = try #require(h.request("POST", "/v1/visitors").json?["token"]?.string)
        #expect(h.request("DELETE", "/v1/visitors/ada", headers: ["Rocket-Visitor": token]).status == 403)
        #expect(h.request("DELETE", "/v1/visitors/a%20b", headers: R.site).status == 400)
        #expect(h.request("PUT", "/v1/visitors/ada", headers: R.site).status == 405)
        // What is kept of her, before: a site key reads it (a visitor may not).
        #expect(h.request("GET", "/v1/visitors/ada", headers: ["Rocket-Visitor": token]).status == 403)
        let before = h.request("GET", "/v1/visitors/ada", headers: R.site)
        #expect(before.status == 200, "\(before.text)")
        #expect(Set(before.json?["conversations"]?.array.compactMap { $0["id"]?.string } ?? []) == Set(ids["ada"]!))
        #expect(before.json?["results"]?.array.compactMap { $0["visitor"]?.string } == ["ada"])
        #expect(before.json?["results"]?[0]?["answers"]?["name"]?.string == "Ada")
        // Her gated flow's count, and the flows shown to her (for --min-gap and budgets).
        let scenarios = before.json?["scenarios"]?.array ?? []
        #expect(scenarios.compactMap { $0["scenario"]?.string } == ["rocket.executed", "tour"], "\(before.text)")
        #expect(scenarios.last?["executions"]?.number == 1 && scenarios.last?["lastExecution"]?.string != nil)
        #expect(before.json?["truncated"]?.bool == false && !before.text.contains("\"bo\""), "\(before.text)")
        // Her alert, as GET /v1/alerts/{id} shows it; not Bo's.
        #expect(before.json?["alerts"]?.array.compactMap { $0["id"]?.string } == [alerts["ada"]!], "\(before.text)")
        #expect(before.json?["alerts"]?[0]?["title"]?.string == "For ada")
        let r = h.request("DELETE", "/v1/visitors/ada", headers: R.site)
        #expect(r.status == 200, "\(r.text)")
        #expect(r.json?["visitor"]?.string == "ada")
        #expect(r.json?["forgotten"]?["conversations"]?.number == 3 && r.json?["forgotten"]?["results"]?.number == 1)
        #expect((r.json?["forgotten"]?["scenarios"]?.number ?? 0) >= 1, "\(r.text)")
        // Gone from memory and from the store: reads are 404, the result and records are gone.
        for id in ids["ada"]! {
            #expect(h.request("GET", "/v1/conversations/\(id)", headers: R.site.merging(["Rocket-Visitor": "ada"]) { $1 }).status == 404)
            #expect(try archive.load(id) == nil)
            #expect(try archive.events(id).isEmpty)
        }
        let left = try archive.results(flow: nil, after: 0, limit: 10, maxBytes: 1 << 20)
        #expect(left.map(\.result.visitor) == ["bo"])
        #expect(h.request("GET", "/v1/results", headers: R.site, query: ["visitor": "ada"]).json?["results"]?.array.isEmpty == true)
        #expect(h.request("GET", "/v1/results", headers: R.site, query: ["visitor": "bo"]).json?["results"]?.array.count == 1)
        #expect(h.request("GET", "/v1/results", headers: R.site, query: ["visitor": "b o"]).status == 400)
        // Ada's count is gone: the gated flow shows to her again; Bo's stays (not now).
        let again = h.request("POST", "/v1/conversations", body: #"{"flow": "gated", "visitor": "ada"}"#, headers: R.site)
        #expect(again.status == 201, "\(again.text)")
        let bo = h.request("POST", "/v1/conversations", body: #"{"flow": "gated", "visitor": "bo"}"#, headers: R.site)
        #expect(bo.json?["status"]?.string == "notNow", "\(bo.text)")
        // Bo's conversations are untouched.
        for id in ids["bo"]! { #expect(try archive.load(id) != nil) }
        // For good: a server started again on the store finds none of hers.
        h.service.flush()
        let restarted = try Harness(path: h.path, access: AccessControl(secret: AccessControl.randomBytes(32), keys: [R.key]))
        for id in ids["ada"]! {
            #expect(restarted.request("GET", "/v1/conversations/\(id)", headers: R.site.merging(["Rocket-Visitor": "ada"]) { $1 }).status == 404)
        }
        // Read from the store by a server that has none of Bo's in memory: listed, none loaded.
        let boRecord = restarted.request("GET", "/v1/visitors/bo", headers: R.site)
        #expect(Set(boRecord.json?["conversations"]?.array.compactMap { $0["id"]?.string } ?? []) == Set(ids["bo"]!), "\(boRecord.text)")
        #expect(restarted.service.count == 0)
        // After her erasure, nothing of hers is listed but what came since (the gated start).
        let after = h.request("GET", "/v1/visitors/ada", headers: R.site)
        #expect(after.json?["conversations"]?.array.count == 1 && after.json?["results"]?.array.isEmpty == true, "\(after.text)")
        #expect(after.json?["alerts"]?.array.isEmpty == true, "\(after.text)")
        #expect(h.request("GET", "/v1/alerts/\(alerts["ada"]!)", headers: R.site).status == 404)
        #expect(h.request("GET", "/v1/visitors/bo", headers: R.site).json?["alerts"]?.array.count == 1)
        // Forgetting a visitor the server never saw is no error: nothing went.
        let none = h.request("DELETE", "/v1/visitors/nobody-here", headers: R.site)
        #expect(none.status == 200 && none.json?["forgotten"]?["conversations"]?.number == 0, "\(none.text)")
    }

    @Test("a forgotten visitor's open event streams end at once; another visitor's stays open")
    func streamsEnd() throws {
        let h = try R.harness(.sqlite)
        let (server, port) = try h.serve()
        defer { server.stop() }
        let key = "Authorization: Bearer \(R.key)\r\n"
        var streams: [RawClient] = []
        for visitor in ["ada", "bo"] {
            let id = try R.answered(h, visitor: visitor, name: visitor)
            let stream = try #require(RawClient(port: port))
            stream.send(
                "GET /v1/conversations/\(id)/events HTTP/1.1\r\nHost: 127.0.0.1\r\n\(key)Rocket-Visitor: \(visitor)\r\nAccept: text/event-stream\r\n\r\n")
            #expect(stream.read { $0.contains("event: state") }.contains("event: state"))
            streams.append(stream)
        }
        let r = RawClient.exchange(port: port, "DELETE /v1/visitors/ada HTTP/1.1\r\nHost: x\r\n\(key)Connection: close\r\n\r\n")
        #expect(r.hasPrefix("HTTP/1.1 200"), "\(r)")
        // Ada's stream is closed by the server; Bo's is not.
        streams[0].read(timeout: 10)
        #expect(streams[0].closed)
        streams[1].read(timeout: 0.3)
        #expect(!streams[1].closed)
    }

    @Test("a visitor's executions stay in the store-wide count under their scenario's name alone; its statistics and assignments go")
    func scenarioStore() throws {
        let path = scratchDirectory() + "/store.sqlite"
        let store = try SQLiteScenarioStore(path: path)
        for visitor in ["ada", "ada_2", "xada"] {
            try store.triggerEvent("tour@" + visitor, at: 100)
            #expect(try NamedScenario("tour@" + visitor).tryToExecute(in: store, at: 100))
            _ = try store.assignment(experiment: "copy", visitor: visitor, at: 100, known: ["a"], fresh: "a")
        }
        let kept = try store.kept(ofVisitor: "ada")
        #expect(kept.statistics.map(\.scenario) == ["tour"] && kept.statistics.first?.stats.eventsCount == 1, "\(kept.statistics)")
        #expect(kept.assignments.map(\.experiment) == ["copy"] && kept.assignments.first?.variant == "a")
        #expect(try store.forget(visitor: "ada") == 2)
        #expect(try store.kept(ofVisitor: "ada") == VisitorRecord())
        #expect(try store.stats("tour@ada").eventsCount == 0)
        // A name that merely ends alike, or holds "_" (a LIKE wildcard), is someone else's.
        #expect(try store.stats("tour@ada_2").eventsCount == 1 && store.stats("tour@xada").eventsCount == 1)
        #expect(try store.snapshot().executions.map(\.scenario).sorted() == ["tour", "tour@ada_2", "tour@xada"])
        // Her assignment is gone: a new one is made (and kept) at her next exposure.
        #expect(try store.assignment(experiment: "copy", visitor: "ada", at: 200, known: ["a", "b"], fresh: "b") == "b")
        #expect(try store.assignment(experiment: "copy", visitor: "ada_2", at: 200, known: ["a", "b"], fresh: "b") == "a")
    }
}
