import Foundation
import RocketConversation
import RocketCore
import RocketJSON
import RocketPostgres
import RocketScenarios
import RocketScenariosPostgres
import RocketTestSupport
import Testing

@testable import RocketServer

/// A flow with every kind of step the API tests need: a tap, a validated input, a secret input.
let basicFlow = """
    {"version": 1, "author": {"name": "Bot"}, "closeButton": {"title": "Close"}, "start": "hi", "blocks": [
     {"id": "hi", "type": "text", "text": "Hi", "next": "name"},
     {"id": "name", "type": "textInput", "text": "Name?", "buttonTitle": "Send", "validate": {"required": true, "maxLength": 10}, "next": "pin"},
     {"id": "pin", "type": "textInput", "text": "PIN?", "buttonTitle": "OK", "secret": true, "next": "pick"},
     {"id": "pick", "type": "choice", "text": "Colour?", "options": [{"title": "Red", "next": "end"}, {"title": "Blue", "next": "end"}]},
     {"id": "end", "type": "text", "text": "Bye {{name}}"}]}
    """

/// The server's two stores, so a store test runs on each.
enum ServerStoreKind: String, CaseIterable, CustomTestStringConvertible {
    case sqlite, postgres
    var testDescription: String { rawValue }
}

/// A flow shown at most once per visitor.
let gatedFlow = """
    {"version": 1, "scenario": "tour", "when": {"maxExecutionsPermitted": 1}, "blocks": [
     {"id": "hi", "type": "text", "text": "Hello"}]}
    """

/// A scratch directory for one test.
func scratchDirectory() -> String {
    newScratchDirectory("server")
}

/// A service over the test flows, on a manual clock, with an archive and a scenario store in a
/// scratch file unless `persistent` is false.
struct Harness {
    let clock: ManualClock
    let service: ConversationService
    let path: String

    init(
        path: String? = nil, clock: ManualClock = ManualClock(now: 1_800_000_000), persistent: Bool = true,
        configure: (inout ServerConfiguration) -> Void = { _ in }, flowsDirectory: String? = nil,
        access: AccessControl = .random(insecureDev: true), log: @escaping @Sendable (String) -> Void = { _ in }, keepsStarts: Bool = true
    ) throws {
        self.clock = clock
        self.path = path ?? scratchDirectory() + "/store.sqlite"
        var c = ServerConfiguration()
        c.timing = .instant
        // Every request of a harness comes from one address (none): tests of the per-address
        // limits set them, the others are not limited by them.
        c.addressRequestsPerSecond = 1e9
        c.addressRequestBurst = 1e9
        c.perAddress = 1 << 30
        configure(&c)
        let flows = FlowLibrary(
            directory: flowsDirectory, builtIn: ["basic": Array(basicFlow.utf8), "gated": Array(gatedFlow.utf8)], clock: clock, log: log)
        let archive: (any ConversationStore)?
        let store: any ScenarioStore
        if persistent, PostgresURL.names(self.path) {
            let postgres = try PostgresScenarioStore(url: self.path)
            (archive, store) = (PostgresConversationArchive(beside: postgres), postgres)
        } else if persistent {
            let sqlite = try SQLiteScenarioStore(path: self.path, pageSize: ConversationArchive.pageSize)
            (archive, store) = (try ConversationArchive(beside: sqlite), sqlite)
        } else {
            (archive, store) = (nil, InMemoryScenarioStore())
        }
        service = ConversationService(
            flows: flows, archive: archive, scenarios: store, clock: clock, configuration: c, access: access, log: log, keepsStarts: keepsStarts)
    }

    func request(
        _ method: String, _ path: String, body: String? = nil, visitor: String? = nil, headers: [String: String] = [:],
        contentType: String? = "application/json", query: [String: String] = [:]
    ) -> HTTPResponse {
        var h = headers
        if body != nil, let contentType { h["Content-Type"] = contentType }
        if let visitor { h["Rocket-Visitor"] = visitor }
        let r = service.handle(HTTPRequest(method: method, path: path, query: query, headers: h, body: Array((body ?? "").utf8)))
        service.flush()  // what the HTTP server does every 20 ms
        return r
    }

    /// Starts a conversation of `flow` for `visitor` and lets its first block appear; its id.
    func start(_ flow: String = "basic", visitor: String = "ada") throws -> String {
        let r = request("POST", "/v1/conversations", body: #"{"flow": "\#(flow)", "visitor": "\#(visitor)"}"#)
        #expect(r.status == 201, "\(r.text)")
        let id = try #require(r.json?["conversation"]?["id"]?.string)
        service.advanceDue()
        service.flush()
        return id
    }

    /// Sends an intent (JSON members without braces) as `visitor`; the response.
    func send(_ id: String, _ members: String, visitor: String = "ada") -> HTTPResponse {
        let r = request("POST", "/v1/conversations/\(id)/intents", body: "{\(members)}", visitor: visitor)
        service.advanceDue()
        service.flush()
        return r
    }

    /// The archive of this harness's file.
    /// An HTTP server over this harness's service, listening on a free loopback port (the
    /// caller stops it).
    func serve() throws -> (server: HTTPServer, port: Int) {
        let server = HTTPServer(service: service)
        return (server, try server.start(host: "127.0.0.1", port: 0))
    }

    func archive() throws -> any ConversationStore {
        if PostgresURL.names(path) { return PostgresConversationArchive(beside: try PostgresScenarioStore(url: path)) }
        return try ConversationArchive(beside: SQLiteScenarioStore(path: path))
    }

    /// A harness on a store of `kind`: a new SQLite file, or a new database of the test cluster.
    init(_ kind: ServerStoreKind, configure: (inout ServerConfiguration) -> Void = { _ in }, flowsDirectory: String? = nil) throws {
        try self.init(path: kind == .postgres ? TestPostgres.freshDatabase() : nil, configure: configure, flowsDirectory: flowsDirectory)
    }

    func view(_ id: String, visitor: String = "ada") -> JSONNode? {
        request("GET", "/v1/conversations/\(id)", visitor: visitor).json?["conversation"]
    }
}

extension HTTPResponse {
    var text: String { String(decoding: payload, as: UTF8.self) }
    var json: JSONNode? { try? JSONReader.parse(payload) }
}

extension JSONNode {
    subscript(key: String) -> JSONNode? { object?.first { $0.key == key }?.value }
    subscript(index: Int) -> JSONNode? {
        if case .array(let a) = value, a.indices.contains(index) { return a[index] }
        return nil
    }
    var string: String? {
        if case .string(let s) = value { return s }
        return nil
    }
    var number: Double? {
        if case .number(let n) = value { return n }
        return nil
    }
    var bool: Bool? {
        if case .bool(let b) = value { return b }
        return nil
    }
    var array: [JSONNode] {
        if case .array(let a) = value { return a }
        return []
    }
    var isNull: Bool {
        if case .null = value { return true }
        return false
    }
}
