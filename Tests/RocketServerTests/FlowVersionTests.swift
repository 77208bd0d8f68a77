import Foundation
import RocketCore
import RocketFlow
import RocketJSON
import RocketTestSupport
import Testing

@testable import RocketServer

#if canImport(Glibc)
    import Glibc
#endif

/// A conversation goes on with the version of its flow it started with, whatever its flow's file
/// says later: the versions conversations are saved with are kept in the store.
@Suite("Flow versions: an edited flow breaks no conversation under way")
struct FlowVersionTests {
    static let first = """
        {"version": 1, "languages": ["en", "it"], "start": "a", "blocks": [
         {"id": "a", "type": "text", "text": {"en": "Version one", "it": "Versione uno"}, "next": "b"},
         {"id": "b", "type": "textInput", "text": {"en": "One: your name?", "it": "Uno: il nome?"}, "buttonTitle": "OK", "next": "c"},
         {"id": "c", "type": "text", "text": "One, the end"}]}
        """
    static let second = """
        {"version": 1, "start": "a", "blocks": [
         {"id": "a", "type": "text", "text": "Version two", "next": "z"},
         {"id": "z", "type": "text", "text": "Two, the end"}]}
        """

    @Test("every example flow (and each of its languages) is kept as a text that makes the same flow again")
    func examplesKept() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let folder = root.appendingPathComponent("examples").path
        let library = FlowLibrary(directory: folder, builtIn: [:])
        let names = library.names()
        #expect(names.count >= 10)
        let dir = scratchDirectory()
        try Self.first.write(toFile: dir + "/edit.json", atomically: true, encoding: .utf8)
        let both = FlowLibrary(directory: dir, builtIn: [:])
        var flows = try names.map { try library.flow($0).get() }
        flows.append(try both.flow("edit", language: "it").get())
        #expect(flows.last?.language == "it")
        for flow in flows {
            let text = try #require(FlowLibrary.versionText(of: flow), "\(flow.name) \(flow.language ?? "")")
            let again = FlowLibrary(directory: nil, builtIn: [:]).version(flow.identity, name: flow.name, text: text, language: flow.language)
            #expect(again?.identity == flow.identity, "\(flow.name)")
        }
        // A text that makes another flow is not taken for the identity asked.
        let other = try #require(FlowLibrary.versionText(of: flows[0]))
        #expect(FlowLibrary(directory: nil, builtIn: [:]).version(flows[1].identity, name: "x", text: other, language: nil) == nil)
    }

    @Test(
        "a conversation started before its flow's file changed goes on with its own version after a restart (in its language), a new one gets the new; without a kept version, 409 as before",
        arguments: ServerStoreKind.allCases)
    func editedFlow(kind: ServerStoreKind) throws {
        let dir = scratchDirectory()
        try Self.first.write(toFile: dir + "/edit.json", atomically: true, encoding: .utf8)
        let path = kind == .postgres ? try TestPostgres.freshDatabase() : scratchDirectory() + "/store.sqlite"
        let clock = ManualClock(now: 1_800_000_000)
        var ids: [String] = []
        do {
            let h = try Harness(path: path, clock: clock, flowsDirectory: dir)
            for (visitor, lang) in [("ada", "en"), ("bo", "it"), ("cy", "en")] {
                let r = h.request("POST", "/v1/conversations", body: #"{"flow": "edit", "visitor": "\#(visitor)", "lang": "\#(lang)"}"#)
                let id = try #require(r.json?["conversation"]?["id"]?.string, "\(r.text)")
                h.service.advanceDue()
                #expect(h.send(id, #""intent": "tap""#, visitor: visitor).status == 200)
                ids.append(id)
            }
        }
        // The file changes (another flow altogether), and the server starts again.
        clock.advance(by: 5)
        try Self.second.write(toFile: dir + "/edit.json", atomically: true, encoding: .utf8)
        let h = try Harness(path: path, clock: clock, flowsDirectory: dir)
        let ada = try #require(h.view(ids[0], visitor: "ada"), "\(h.request("GET", "/v1/conversations/\(ids[0])", visitor: "ada").text)")
        #expect(ada["transcript"]?.array.map { $0["text"]?.string } == ["Version one", "One: your name?"])
        let answered = h.send(ids[0], #""intent": "submit", "text": "Ada""#, visitor: "ada")
        #expect(answered.status == 200, "\(answered.text)")
        #expect(h.view(ids[0], visitor: "ada")?["transcript"]?.array.last?["text"]?.string == "One, the end")
        let bo = h.view(ids[1], visitor: "bo")
        #expect(bo?["transcript"]?[1]?["text"]?.string == "Uno: il nome?")
        // A new conversation gets the file as it is now.
        let fresh = h.request("POST", "/v1/conversations", body: #"{"flow": "edit", "visitor": "dee"}"#)
        #expect(fresh.json?["conversation"]?["transcript"]?[0]?["text"]?.string == "Version two", "\(fresh.text)")
        // Each start's record names its version; a report by version has a row for each, the
        // first version's row first.
        h.service.flush()
        let now = try h.service.flows.flow("edit").get()
        let records = try h.archive().events(try #require(fresh.json?["conversation"]?["id"]?.string))
        #expect(records.first?.contains(#""event":"started","flow":"edit","version":"\#(now.version)""#) == true, "\(records.first ?? "")")
        let report = h.request("GET", "/v1/report", query: ["by": "version", "minCount": "1"])
        let rows = report.json?["flows"]?[0]?["variants"]?.array.compactMap { $0["variant"]?.string } ?? []
        // The Italian conversation is of the first version too (a flow's languages are one
        // version): two rows, not three.
        #expect(rows.count == 2 && rows.last == now.version, "\(report.text)")
        #expect(report.json?["by"]?.string == "version")
        #expect(h.request("GET", "/v1/report", query: ["by": "month"]).status == 400)
        // With its version gone (a store from before versions were kept), 409 as before.
        let archive = try h.archive()
        #expect(try archive.forgetFlowVersions(before: .infinity) >= 2)
        let again = try Harness(path: path, clock: clock, flowsDirectory: dir)
        let refused = again.request("GET", "/v1/conversations/\(ids[2])", visitor: "cy")
        #expect(refused.status == 409 && refused.json?["error"]?["code"]?.string == "flow-changed", "\(refused.text)")
    }

    @Test("a version is forgotten once no conversation of it can be resumed: unused for the idle timeout and an hour", arguments: ServerStoreKind.allCases)
    func forgotten(kind: ServerStoreKind) throws {
        let dir = scratchDirectory()
        try Self.first.write(toFile: dir + "/edit.json", atomically: true, encoding: .utf8)
        let path = kind == .postgres ? try TestPostgres.freshDatabase() : scratchDirectory() + "/store.sqlite"
        let clock = ManualClock(now: 1_800_000_000)
        let h = try Harness(path: path, clock: clock, configure: { $0.idleTimeout = 600 }, flowsDirectory: dir)
        _ = try h.start("edit")
        let identity = try h.service.flows.flow("edit").get().identity
        let archive = try h.archive()
        #expect(try archive.flowVersion(identity)?.name == "edit")
        // Within the idle timeout and the hour: kept.
        clock.advance(by: 600 + 3_600 - 10)
        h.service.expireStored()
        #expect(try archive.flowVersion(identity) != nil)
        clock.advance(by: 120)
        h.service.expireStored()
        #expect(try archive.flowVersion(identity) == nil)
    }
}
