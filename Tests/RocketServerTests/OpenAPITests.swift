import Foundation
import RocketConversation
import RocketFlow
import RocketJSON
import RocketTestSupport
import Testing

@testable import RocketServer

/// docs/openapi.json against the routes the server has: the document is written by hand, so
/// this holds it to the code.
@Suite("docs/openapi.json and the routes")
struct OpenAPITests {
    static let document = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("docs/openapi.json").path

    /// The operations the document describes: method (lower case) and path segments.
    static func operations() throws -> [(method: String, path: [String], responses: Set<String>)] {
        let root = try JSONReader.parse(Array(try Data(contentsOf: URL(fileURLWithPath: document))))
        let paths = try #require(root.object?.first { $0.key == "paths" }?.value.object)
        var out: [(String, [String], Set<String>)] = []
        for p in paths {
            for op in p.value.object ?? [] {
                guard let responses = op.value.object?.first(where: { $0.key == "responses" })?.value.object else { continue }
                out.append((op.key, p.key.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map(String.init), Set(responses.map(\.key))))
            }
        }
        return out
    }

    /// True when a document path fits a route's shape ("*" one segment, "**" the rest).
    static func fits(_ path: [String], _ shape: [String]) -> Bool {
        guard path.count == shape.count else { return false }
        return zip(path, shape).allSatisfy { part, want in
            want == "*" || want == "**" ? part.hasPrefix("{") && part.hasSuffix("}") : part == want
        }
    }

    @Test("every API route is in the document with its method, and the document names no route the server lacks")
    func routesMatch() throws {
        let ops = try Self.operations()
        for (method, shape, _) in ConversationService.routes {
            let full = ["v1"] + shape
            let listed = ops.contains { $0.method == method.lowercased() && Self.fits($0.path, full) }
            #expect(listed, "\(method) /\(full.joined(separator: "/")) is not in openapi.json")
        }
        let pages: Set<String> = ["healthz", "readyz", "metrics"]
        for op in ops {
            if op.path.first == "v1" {
                let known = ConversationService.routes.contains { $0.0.lowercased() == op.method && Self.fits(op.path, ["v1"] + $0.1) }
                #expect(known, "openapi.json has \(op.method.uppercased()) /\(op.path.joined(separator: "/")), which the server does not route")
            } else {
                #expect(op.path.count == 1 && pages.contains(op.path[0]) && op.method == "get", "\(op.path)")
            }
        }
    }

    @Test("the routes /metrics times are named as the document names them: every API path and the pages it lists, nothing else under /v1")
    func timedRoutesNamed() throws {
        let paths = Set(try Self.operations().map { "/" + $0.path.joined(separator: "/") })
        let api = Set(TimedRoutes.labels.filter { $0.hasPrefix("/v1/") })
        #expect(api == paths.filter { $0.hasPrefix("/v1/") })
        #expect(paths.subtracting(api).isSubset(of: Set(TimedRoutes.labels)))
    }

    @Test("every operation lists the refusals made before any route reads a request, and every API one the rate limit")
    func refusalsListed() throws {
        for op in try Self.operations() {
            let at = "\(op.method.uppercased()) /\(op.path.joined(separator: "/"))"
            for code in ["400", "413", "431", "501"] { #expect(op.responses.contains(code), "\(at) lacks \(code)") }
            if op.path.first == "v1" { #expect(op.responses.contains("429"), "\(at) lacks 429") }
        }
    }

    /// The JSON pointer of the schema docs/openapi.json gives the JSON answer `status` of
    /// `method path` (a concrete path, matched against the document's templates); nil with why
    /// when the document does not describe it.
    static func schemaPointer(_ root: JSONNode, _ method: String, _ path: String, _ status: Int) -> Result<String, Problem> {
        func escape(_ s: String) -> String { s.replacingOccurrences(of: "~", with: "~0").replacingOccurrences(of: "/", with: "~1") }
        let segments = path.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard
            let template = root["paths"]?.object?.first(where: { entry in
                let t = entry.key.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
                return t.count == segments.count && zip(t, segments).allSatisfy { $0.hasPrefix("{") || $0 == $1 }
            })
        else { return .failure(Problem("\(method) \(path): no such path in the document")) }
        guard let response = template.value[method.lowercased()]?["responses"]?["\(status)"] else {
            return .failure(Problem("\(method) \(template.key): status \(status) is not listed"))
        }
        var base = "#/paths/\(escape(template.key))/\(method.lowercased())/responses/\(status)"
        var node = response
        if let ref = response["$ref"]?.string {
            base = ref
            let parts = ref.dropFirst(2).split(separator: "/").map(String.init)
            guard let found = parts.reduce(Optional(root), { $0?[$1] }) else { return .failure(Problem("\(ref) does not resolve")) }
            node = found
        }
        guard node["content"]?["application/json"]?["schema"] != nil else {
            return .failure(Problem("\(method) \(template.key) \(status): the document gives this answer no JSON body"))
        }
        return .success(base + "/content/application~1json/schema")
    }

    struct Problem: Error, CustomStringConvertible {
        var description: String
        init(_ d: String) { description = d }
    }

    @Test("every JSON answer of a walk over the API (successes and refusals) is what docs/openapi.json says, with no field it does not list")
    func answersMatchSchemas() throws {
        let key = "openapi-key-0123456789abcdef"
        // Beside the built-in flows, one with every other kind of block and answer.
        let dir = scratchDirectory()
        try #"""
        {"version": 1, "author": {"name": "Ada", "style": "round"}, "blocks": [
         {"id": "go", "type": "button", "title": "Go", "next": "side"},
         {"id": "side", "type": "doubleButton", "left": {"title": "No", "next": "score"}, "right": {"title": "Yes", "next": "score"}},
         {"id": "score", "type": "rating", "text": "How likely?", "scale": 10, "labels": {"low": "Not", "high": "Very"}, "next": "liked"},
         {"id": "liked", "type": "choice", "text": "Which?", "multiple": true, "min": 1, "max": 2, "buttonTitle": "Send",
          "options": [{"title": "A"}, {"title": "B"}, {"title": "C"}], "next": "day"},
         {"id": "day", "type": "textInput", "text": "When?", "buttonTitle": "OK", "inputType": "date", "min": "2026-01-01", "max": "2026-12-31", "next": "count"},
         {"id": "count", "type": "textInput", "text": "How many?", "buttonTitle": "OK", "inputType": "integer", "min": 1, "max": 9, "next": "notes"},
         {"id": "notes", "type": "textInput", "text": "Notes?", "buttonTitle": "Send", "multiline": true, "next": "bye"},
         {"id": "bye", "type": "text", "text": "Thanks"}]}
        """#.write(toFile: dir + "/kinds.json", atomically: true, encoding: .utf8)
        let h = try Harness(flowsDirectory: dir, access: AccessControl(secret: AccessControl.randomBytes(32), keys: [key]))
        let site = ["Authorization": "Bearer " + key]
        let ada = site.merging(["Rocket-Visitor": "ada"]) { $1 }
        var answers: [(method: String, path: String, response: HTTPResponse)] = []
        func call(_ method: String, _ path: String, _ body: String? = nil, headers: [String: String] = ada, query: [String: String] = [:]) -> HTTPResponse {
            let r = h.request(method, path, body: body, headers: headers, query: query)
            h.service.advanceDue()
            h.service.flush()
            answers.append((method, path, r))
            return r
        }
        // Visitors and flows.
        let token = try #require(call("POST", "/v1/visitors", headers: [:]).json?["token"]?.string)
        _ = call("GET", "/v1/flows", headers: [:])
        // A conversation through every kind of answer the basic flow has, with refusals on the way.
        let started = call("POST", "/v1/conversations", #"{"flow": "basic", "visitor": "ada"}"#, headers: site)
        let id = try #require(started.json?["conversation"]?["id"]?.string)
        _ = call("POST", "/v1/conversations", #"{"flow": "basic", "visitor": "ada"}"#, headers: site)
        _ = call("GET", "/v1/conversations/\(id)")
        _ = call("POST", "/v1/conversations/\(id)/intents", #"{"intent": "tap", "step": 0}"#)
        _ = call("POST", "/v1/conversations/\(id)/intents", #"{"intent": "submit", "text": "far too long a name"}"#)
        _ = call("POST", "/v1/conversations/\(id)/intents", #"{"intent": "tap", "step": 0}"#)
        _ = call("POST", "/v1/conversations/\(id)/intents", #"{"intent": "submit", "text": "Ada"}"#)
        let named = try #require(call("POST", "/v1/conversations/\(id)/intents", #"{"intent": "submit", "text": "1234"}"#).json?["conversation"])
        // Answers and a read that leave out what the client holds (Rocket-Settled), and one refused for it.
        let holds = ada.merging(["Rocket-Settled": "\(Int(named["version"]?.number ?? 0))/\(Int(named["settled"]?.number ?? 0))"]) { $1 }
        #expect(call("GET", "/v1/conversations/\(id)", headers: holds).json?["conversation"]?["transcriptBase"] != nil)
        _ = call("POST", "/v1/conversations/\(id)/hold", #"{"held": true}"#, headers: holds)
        _ = call("GET", "/v1/conversations/\(id)", headers: ada.merging(["Rocket-Settled": "x"]) { $1 })
        _ = call("POST", "/v1/conversations/\(id)/hold", #"{"held": true}"#)
        _ = call("POST", "/v1/conversations/\(id)/hold", #"{"held": false}"#)
        _ = call("POST", "/v1/conversations/\(id)/intents", #"{"intent": "choose", "option": 1}"#)
        _ = call("GET", "/v1/conversations/\(id)")
        _ = call("POST", "/v1/conversations/\(id)/intents", #"{"intent": "choose", "option": 0}"#)
        _ = call("GET", "/v1/conversations/\(id)", headers: site.merging(["Rocket-Visitor": "bob"]) { $1 })
        _ = call("GET", "/v1/conversations/\(id)", headers: ["Rocket-Visitor": token])
        _ = call("GET", "/v1/conversations/nope")
        _ = call("POST", "/v1/conversations", #"{"flow": "made-up", "visitor": "ada"}"#, headers: site)
        _ = call("POST", "/v1/conversations", #"{"flow": 3}"#, headers: site)
        _ = call("POST", "/v1/conversations", "{", headers: site)
        _ = call("POST", "/v1/conversations", #"{"flow": "basic", "visitor": "ada"}"#, headers: [:])
        // Every other kind of answer.
        let kinds = try #require(call("POST", "/v1/conversations", #"{"flow": "kinds", "visitor": "ada"}"#, headers: site).json?["conversation"]?["id"]?.string)
        for intent in [
            #""intent": "pressButton""#, #""intent": "pressRight""#, #""intent": "rate", "value": 11"#, #""intent": "rate", "value": 9"#,
            #""intent": "chooseMany", "options": [0, 1, 2]"#, #""intent": "chooseMany", "options": [0, 2]"#, #""intent": "submit", "text": "2027-01-01""#,
            #""intent": "submit", "text": "2026-03-04""#, #""intent": "submit", "text": "4""#, #""intent": "submit", "text": "one\ntwo""#,
        ] {
            _ = call("POST", "/v1/conversations/\(kinds)/intents", "{\(intent)}")
        }
        _ = call("POST", "/v1/conversations/\(kinds)/intents", #"{"intent": "tap"}"#)
        let ended = call("GET", "/v1/conversations/\(kinds)")
        #expect(ended.json?["conversation"]?["answers"]?["liked"]?.array.count == 2, "\(ended.text)")
        // A visitor's own conversation, by its token.
        let own = call("POST", "/v1/conversations", #"{"flow": "basic"}"#, headers: ["Rocket-Visitor": token])
        if let mine = own.json?["conversation"]?["id"]?.string {
            _ = call("POST", "/v1/conversations/\(mine)/intents", #"{"intent": "tap", "step": 0}"#, headers: ["Rocket-Visitor": token])
        }
        // Events, alerts and the report.
        _ = call("POST", "/v1/events", #"{"scenario": "made-up", "visitor": "ada"}"#, headers: site)
        _ = call("POST", "/v1/events", #"{"scenario": "tour", "visitor": "ada"}"#, headers: site)
        let alert = call(
            "POST", "/v1/alerts",
            #"{"visitor": "ada", "title": "Delete?", "actions": [{"title": "Delete", "style": "destructive"}, {"title": "Cancel", "style": "cancel"}]}"#,
            headers: site)
        let alertID = try #require(alert.json?["alert"]?["id"]?.string)
        _ = call("GET", "/v1/alerts/\(alertID)")
        _ = call("POST", "/v1/alerts/\(alertID)/mutations", #"{"setMessage": "It cannot be undone."}"#)
        _ = call("POST", "/v1/alerts/\(alertID)/select", #"{"index": 7}"#)
        _ = call("POST", "/v1/alerts/\(alertID)/select", #"{"index": 1}"#)
        _ = call("POST", "/v1/alerts/\(alertID)/mutations", #"{"setTitle": "x"}"#)
        _ = call("POST", "/v1/alerts", #"{"visitor": "ada", "actions": "none"}"#, headers: site)
        let report = call("GET", "/v1/report", headers: site, query: ["minCount": "1"])
        #expect(report.text.contains(#""answers":[{"option":0,"title":"A","count":1},{"option":2,"title":"C","count":1}]"#), "\(report.text)")
        _ = call("GET", "/v1/report", headers: site, query: ["minCount": "0"])
        let results = call("GET", "/v1/results", headers: site)
        #expect(results.json?["results"]?.array.isEmpty == false, "\(results.text)")
        _ = call("GET", "/v1/results", headers: site, query: ["limit": "0"])
        _ = call("GET", "/v1/results", headers: ["Rocket-Visitor": token])
        _ = call("GET", "/v1/report", headers: ["Rocket-Visitor": token])
        let record = call("GET", "/v1/visitors/ada", headers: site)
        #expect(record.status == 200 && record.json?["conversations"]?.array.isEmpty == false, "\(record.text)")
        #expect(record.json?["results"]?.array.isEmpty == false && record.json?["scenarios"]?.array.isEmpty == false, "\(record.text)")
        _ = call("GET", "/v1/visitors/ada", headers: ["Rocket-Visitor": token])
        let forgotten = call("DELETE", "/v1/visitors/bo", headers: site)
        #expect(forgotten.status == 200, "\(forgotten.text)")
        _ = call("DELETE", "/v1/visitors/bo", headers: ["Rocket-Visitor": token])
        _ = call("DELETE", "/v1/visitors/b%20o", headers: site)

        // Every JSON answer against the schema the document gives it.
        let text = try String(contentsOfFile: Self.document, encoding: .utf8)
        let root = try JSONReader.parse(Array(text.utf8))
        var checked: [(what: String, pointer: String, body: String)] = []
        var statuses = Set<Int>()
        for a in answers {
            let what = "\(a.method) \(a.path) → \(a.response.status)"
            statuses.insert(a.response.status)
            guard a.response.header("Content-Type")?.hasPrefix("application/json") == true else {
                #expect(a.response.status == 204, "\(what): not JSON")
                continue
            }
            switch Self.schemaPointer(root, a.method, a.path, a.response.status) {
            case .failure(let p): Issue.record("\(p)")
            case .success(let pointer): checked.append((what, pointer, a.response.text))
            }
        }
        // The walk reaches what it means to: successes, made and refused, and each kind of refusal.
        #expect(statuses.isSuperset(of: [200, 201, 204, 400, 401, 403, 404, 409, 422]), "\(statuses.sorted())")
        var byPointer: [String: [(what: String, body: String)]] = [:]
        for c in checked { byPointer[c.pointer, default: []].append((c.what, c.body)) }
        for (pointer, docs) in byPointer {
            let problems = try JSONSchemaCheck.problems(schema: text, root: pointer, closed: true, documents: docs.map(\.body))
            for (d, problem) in zip(docs, problems) where problem != nil {
                Issue.record("\(d.what) is not what \(pointer) says: \(problem!)\n\(d.body.prefix(600))")
            }
        }
    }

    @Test("TranscriptItem in docs/openapi.json lists every kind of block a view shows, and every field the flow format's table sends the web")
    func transcriptItemFollowsTheTable() throws {
        let root = try JSONReader.parse(Array(try Data(contentsOf: URL(fileURLWithPath: Self.document))))
        let item = try #require(root["components"]?["schemas"]?["TranscriptItem"])
        let properties = Set((item["properties"]?.object ?? []).map(\.key))
        let kinds = Set((item["properties"]?["type"]?["enum"]?.array ?? []).compactMap(\.string))
        for block in FlowFormat.v1.blocks where !block.kind.isSilent {
            #expect(kinds.contains(block.kind.rawValue), "TranscriptItem's type lacks \(block.kind.rawValue)")
            for field in block.info.fields where field.shownBy.contains(.web) && field.role != .logic {
                #expect(properties.contains(field.name), "TranscriptItem lacks \(field.name) (of \(block.kind.rawValue))")
            }
        }
    }

    @Test("each request body's fields in docs/openapi.json are the fields its route reads: an unknown one is refused with exactly the documented list")
    func requestFieldsMatch() throws {
        let key = "openapi-key-0123456789abcdef"
        let h = try Harness(access: AccessControl(secret: AccessControl.randomBytes(32), keys: [key]))
        let site = ["Authorization": "Bearer " + key, "Rocket-Visitor": "ada"]
        let conversation = try #require(
            h.request("POST", "/v1/conversations", body: #"{"flow": "basic", "visitor": "ada"}"#, headers: site).json?["conversation"]?["id"]?.string)
        let alert = try #require(
            h.request("POST", "/v1/alerts", body: #"{"visitor": "ada", "actions": [{"title": "OK"}]}"#, headers: site).json?["alert"]?["id"]?.string)
        let root = try JSONReader.parse(Array(try Data(contentsOf: URL(fileURLWithPath: Self.document))))
        var checked = 0
        for entry in root["paths"]?.object ?? [] {
            let template = entry.key
            for op in entry.value.object ?? [] {
                let (method, operation) = (op.key, op.value)
                guard var schema = operation["requestBody"]?["content"]?["application/json"]?["schema"] else { continue }
                if let ref = schema["$ref"]?.string, let found = root["components"]?["schemas"]?[String(ref.split(separator: "/").last ?? "")] {
                    schema = found
                }
                let documented = (schema["properties"]?.object ?? []).map(\.key).sorted()
                let path = template.replacingOccurrences(of: "{id}", with: template.hasPrefix("/v1/alerts") ? alert : conversation)
                let r = h.request(method.uppercased(), path, body: #"{"undocumented-field": 1}"#, headers: site)
                #expect(r.status == 400 && r.json?["error"]?["code"]?.string == "unknown-field", "\(method) \(template): \(r.status) \(r.text)")
                let message = r.json?["error"]?["message"]?.string ?? ""
                let listed = message.components(separatedBy: "; expected ").last?.components(separatedBy: ", ").sorted() ?? []
                #expect(listed == documented, "\(method.uppercased()) \(template): the route reads \(listed), the document lists \(documented)")
                checked += 1
            }
        }
        #expect(checked >= 7, "every operation with a body was tried")
    }
}
