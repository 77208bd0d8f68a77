import Foundation
import RocketConversation
import RocketCore
import RocketFlow
import RocketJSON
import RocketTestSupport
import Synchronization
import Testing

@testable import RocketScenariosSQLite
@testable import RocketServer

/// A conversation unchanged since it started is stored as its start, and a load starts it again.
@Suite("Stored starts")
struct StartFormTests {
    static func basic() throws -> LoadedFlow {
        let library = FlowLibrary(directory: nil, builtIn: ["basic": Array(basicFlow.utf8)], clock: ManualClock(now: 0))
        return try library.flow("basic").get()
    }

    @Test(
        "a start reads back as the very snapshot the conversation had then: pending intro, first block shown, another first block, given values",
        arguments: [
            (RocketTiming.original, nil as String?, false), (.reducedMotion, nil, false), (.reducedMotion, "pick", false), (.original, "name", true),
        ])
    func readsBackEqual(timing: RocketTiming, root: String?, withValues: Bool) throws {
        let flow = try Self.basic()
        let at = 1_800_000_000.123457
        var options = ConversationOptions(timing: timing, echoReplies: true)
        if withValues {
            options.initialAnswers = ["plan": "pro \"max\""]
            options.initialVariables = ["seats": .number(3)]
        }
        let node = root.flatMap { flow.blockNames.node(named: $0) }
        #expect((root == nil) == (node == nil))
        let started = try #require(flow.started(options: options, from: node, at: at))
        let direct = ConversationSnapshot(started.conversation, at: at, flow: flow.identity, names: flow.blockNames)
        let text = StoredConversation.startText(StoredConversation.startForm(flow: flow.identity, from: root, options: options, language: "it"), at: at)
        let read = try StoredConversation(jsonText: Array(text.utf8), flow: flow)
        #expect(read.snapshot == direct)
        #expect(read.options == options && read.language == "it")
        // Less than the snapshot form, and restored like it: the same conversation, timers and all.
        let whole = StoredConversation(snapshot: direct, options: options, language: "it").jsonText()
        #expect(text.utf8.count < whole.utf8.count, "\(text.utf8.count) ≥ \(whole.utf8.count)")
        let later = at + 30
        let fromStart = try read.snapshot.restore(
            graph: flow.graph, author: flow.author, closeButton: flow.closeButton, options: options, at: later, flow: flow.identity)
        let fromWhole = try direct.restore(
            graph: flow.graph, author: flow.author, closeButton: flow.closeButton, options: options, at: later, flow: flow.identity)
        #expect(ConversationSnapshot(fromStart, at: later) == ConversationSnapshot(fromWhole, at: later))
        #expect(fromStart.nextDeadline == fromWhole.nextDeadline)
    }

    @Test("a start of another flow, from a block the flow lacks, at no time, or with fields it does not know is refused")
    func refusals() throws {
        let flow = try Self.basic()
        let options = ConversationOptions(timing: .original, echoReplies: true)
        func read(_ text: String) -> ConversationSnapshot.Failure? {
            do throws(ConversationSnapshot.Failure) {
                _ = try StoredConversation(jsonText: Array(text.utf8), flow: flow)
                return nil
            } catch {
                return error
            }
        }
        let other = StoredConversation.startText(
            StoredConversation.startForm(flow: String(repeating: "0", count: 64), from: nil, options: options, language: "en"), at: 5)
        guard case .otherFlow(let expected, _) = read(other) else { Issue.record("not refused as another flow's"); return }
        #expect(expected == flow.identity)
        let good = StoredConversation.startText(StoredConversation.startForm(flow: flow.identity, from: nil, options: options, language: "en"), at: 5)
        #expect(read(good) == nil)
        for (bad, because) in [
            (good.replacingOccurrences(of: #""at":5"#, with: #""at":5,"from":"nowhere""#), "nowhere"),
            (good.replacingOccurrences(of: #""at":5"#, with: #""at":-1"#), "start.at"),
            (good.replacingOccurrences(of: #""at":5"#, with: #""at":"soon""#), "start.at"),
            (good.replacingOccurrences(of: #""at":5"#, with: #""at":1e300"#), "start.at"),
            (good.replacingOccurrences(of: #""at":5"#, with: #""at":5,"extra":1"#), "extra"),
            (good.replacingOccurrences(of: #"{"start":"#, with: #"{"snapshot":{},"start":"#), "not both"),
        ] {
            guard case .invalid(let message) = read(bad) else { Issue.record("accepted: \(bad)"); continue }
            #expect(message.contains(because), "\(message)")
        }
    }

    @Test("a new conversation's row holds its start; after a restart it resumes, and a changed one's steps replay on it", arguments: ServerStoreKind.allCases)
    func restart(kind: ServerStoreKind) throws {
        let path = kind == .postgres ? try TestPostgres.freshDatabase() : scratchDirectory() + "/store.sqlite"
        let clock = ManualClock(now: 1_800_000_000.25)
        let (untouched, tapped): (String, String)
        let expected: (status: String?, transcript: [String?])
        do {
            let h = try Harness(path: path, clock: clock) { $0.timing = .original }
            let a = h.request("POST", "/v1/conversations", body: #"{"flow": "basic", "visitor": "ada", "lang": "it"}"#)
            untouched = try #require(a.json?["conversation"]?["id"]?.string)
            let b = h.request("POST", "/v1/conversations", body: #"{"flow": "basic", "visitor": "ada", "reducedMotion": true}"#)
            tapped = try #require(b.json?["conversation"]?["id"]?.string)
            let row = try #require(try h.archive().load(untouched)?.row)
            #expect(row.snapshot.hasPrefix(#"{"start":{"flow":""#) && !row.snapshot.contains("transcript"), "\(row.snapshot)")
            #expect(row.snapshot.hasSuffix(#""language":"it"}"#))
            #expect(h.send(tapped, #""intent": "tap", "step": 0"#).status == 200)
            // The tap is saved as steps after the stored start.
            let saved = try #require(try h.archive().load(tapped))
            #expect(saved.row.snapshot.hasPrefix(#"{"start":"#) && saved.steps.count == 1)
            expected = (h.view(untouched)?["status"]?.string, h.view(tapped)?["transcript"]?.array.map { $0["text"]?.string } ?? [])
            #expect(expected.transcript.count >= 2, "\(expected.transcript)")
        }
        clock.advance(by: 0.5)
        let again = try Harness(path: path, clock: clock) { $0.timing = .original }
        let (first, second) = (again.view(untouched), again.view(tapped))
        #expect(first?["status"]?.string == "presenting" && expected.status == "presenting")
        #expect(second?["transcript"]?.array.map { $0["text"]?.string } == expected.transcript && second?["step"]?.number == 1)
        // In a file of its own, time stood still while it was stored: the intro's 2 s run from
        // the load. In a shared store another server could have run it: they run from its start.
        again.clock.advance(by: kind == .sqlite ? 1.9 : 1.4)
        again.service.advanceDue()
        #expect(again.view(untouched)?["status"]?.string == "presenting")
        again.clock.advance(by: 0.2)
        again.service.advanceDue()
        again.service.flush()
        #expect(again.view(untouched)?["transcript"]?[0]?["text"]?.string == "Hi")
    }

    @Test("a variant's start is stored with the block it started from, and a restart resumes it there", arguments: ServerStoreKind.allCases)
    func variantRestart(kind: ServerStoreKind) throws {
        let dir = scratchDirectory()
        try """
        {"version": 1, "experiment": {"name": "copy", "holdout": 0,
          "variants": [{"name": "long", "start": "long"}, {"name": "short", "start": "short"}]},
         "blocks": [{"id": "long", "type": "text", "text": "The long welcome"}, {"id": "short", "type": "text", "text": "Hi"}]}
        """.write(toFile: dir + "/copy.json", atomically: true, encoding: .utf8)
        let path = kind == .postgres ? try TestPostgres.freshDatabase() : scratchDirectory() + "/store.sqlite"
        let clock = ManualClock(now: 1_800_000_000)
        var started: [(id: String, visitor: String, first: String)] = []
        do {
            let h = try Harness(path: path, clock: clock, flowsDirectory: dir)
            for k in 0..<12 {
                let r = h.request("POST", "/v1/conversations", body: #"{"flow": "copy", "visitor": "w\#(k)", "reducedMotion": true}"#)
                let c = try #require(r.json?["conversation"])
                started.append((try #require(c["id"]?.string), "w\(k)", try #require(c["transcript"]?[0]?["text"]?.string)))
                let row = try #require(try h.archive().load(started[k].id)?.row)
                #expect(row.snapshot.contains(#""from":"short""#) == (started[k].first == "Hi"), "\(row.snapshot)")
            }
        }
        #expect(Set(started.map(\.first)) == ["The long welcome", "Hi"])
        clock.advance(by: 1)
        let again = try Harness(path: path, clock: clock, flowsDirectory: dir)
        for s in started {
            #expect(again.view(s.id, visitor: s.visitor)?["transcript"]?[0]?["text"]?.string == s.first)
        }
    }

    @Test("a stored start that cannot be read is refused as flow-changed, told to the operator, and the server stays ready")
    func corruptRow() throws {
        let path = scratchDirectory() + "/store.sqlite"
        let clock = ManualClock(now: 1_800_000_000)
        var ids: [String] = []
        do {
            let h = try Harness(path: path, clock: clock)
            for _ in 0..<3 { ids.append(try h.start()) }
        }
        let identity = try #require(try Harness(path: path, clock: clock).archive().load(ids[0])?.row.snapshot)
            .split(separator: "\"").dropFirst(5).first.map(String.init)
        let broken = [
            #"{"start":{"flow":"\#(identity ?? "")","at":1e300},"options":{}}"#, #"{"start":[1,2]}"#,
            #"{"start":{"flow":"\#(identity ?? "")","at":5,"from":"nowhere"},"options":{"timing":{"intro":0,"bounce":0,"doubleBounce":0,"closing":0,"autoAdvanceScale":1},"echoReplies":true,"initialAnswers":{}}}"#,
        ]
        try SQLiteScenarioStore.rawExec(path: path, zip(ids, broken).map { "UPDATE server_conversations SET snapshot = '\($1)' WHERE id = '\($0)';" }.joined())
        let said = Mutex<[String]>([])
        let again = try Harness(path: path, clock: clock, log: { line in said.withLock { $0.append(line) } })
        for id in ids {
            let r = again.request("GET", "/v1/conversations/\(id)", visitor: "ada")
            #expect(r.status == 409 && r.json?["error"]?["code"]?.string == "flow-changed", "\(r.text)")
        }
        let lines = said.withLock { $0 }
        #expect(lines.count == 3 && lines.allSatisfy { $0.contains("cannot be restored") }, "\(lines)")
        #expect(again.request("GET", "/readyz").status == 200)
    }
}
