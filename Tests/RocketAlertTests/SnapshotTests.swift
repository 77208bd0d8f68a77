import Testing
import RocketConversation
import RocketCore
import RocketJSON

@Suite("Resumable conversations: snapshots")
struct SnapshotTests {
    func graph() -> RocketGraph {
        var g = RocketGraph()
        let done = g.add(RocketNode(id: "done", text: "Thanks {{name}}, PIN {{pin}}"))
        let pin = g.add(RocketNode(id: "pin", content: .textInput(RocketInputNode(text: "PIN?", buttonTitle: "OK", isSecret: true, next: done))))
        let name = g.add(RocketNode(id: "name", content: .textInput(RocketInputNode(text: "Name?", buttonTitle: "Send", next: pin))))
        let wait = g.add(RocketNode(id: "wait", text: "One moment…", next: name, showNextAfter: 10))
        g.root = g.add(RocketNode(id: "hi", text: "Hi", next: wait))
        return g
    }

    @Test("A snapshot round-trips through JSON: transcript, answers, current block, timers as remaining time")
    func roundTrip() throws {
        var c = Conversation(graph: graph(), options: ConversationOptions(timing: .reducedMotion, echoReplies: true))
        c.start(at: 100)
        try c.send(.tap, at: 101)
        #expect(c.isWaitingForAutoAdvance)
        let snapshot = ConversationSnapshot(c, at: 104)  // 6 s of the 10 s left
        #expect(snapshot.timers.map(\.remaining) == [7])
        let text = try snapshot.jsonText()
        let read = try ConversationSnapshot(jsonText: Array(text.utf8), graph: graph())
        #expect(read == snapshot)
        var resumed = try read.restore(graph: graph(), author: c.author, closeButton: nil, options: c.options, at: 5000)
        #expect(resumed.transcript == c.transcript)
        #expect(resumed.nextDeadline == 5007)
        resumed.advance(to: 5006.9)
        #expect(resumed.interactiveBlock?.id == nil)
        resumed.advance(to: 5007)
        #expect(resumed.interactiveBlock?.id == "name")
    }

    @Test("Secret answers never reach a snapshot unless the host opts in")
    func secrets() throws {
        var c = Conversation(graph: graph(), options: ConversationOptions(timing: .instant, echoReplies: true))
        c.start(at: 0)
        try c.send(.tap, at: 0)
        try c.send(.submit("Ada"), at: 0)
        try c.send(.submit("4711"), at: 0)
        let text = try ConversationSnapshot(c, at: 0).jsonText()
        #expect(!text.contains("4711"))
        #expect(text.contains("Ada"))
        let kept = try ConversationSnapshot(c, at: 0, includeSecrets: true).jsonText()
        #expect(kept.contains("4711"))
        let restored = try ConversationSnapshot(jsonText: Array(text.utf8), graph: graph()).restore(
            graph: graph(), author: c.author, closeButton: nil,
            options: c.options, at: 0)
        #expect(restored.interpolate("{{pin}}") == "••••")
    }

    @Test("Another flow, an unknown version, bad JSON and states that do not fit are refused")
    func refusals() throws {
        var c = Conversation(graph: graph(), options: ConversationOptions(timing: .instant))
        c.start(at: 0)
        let snapshot = ConversationSnapshot(c, at: 0)
        var other = RocketGraph()
        other.root = other.add(RocketNode(text: "Other"))
        #expect(throws: ConversationSnapshot.Failure.self) {
            try snapshot.restore(graph: other, author: c.author, closeButton: nil, options: c.options, at: 0)
        }
        let text = try snapshot.jsonText()
        let newerText = text.replacing(#""version":2"#, with: #""version":99"#)
        #expect(throws: ConversationSnapshot.Failure.unsupportedVersion(99)) { try ConversationSnapshot(jsonText: Array(newerText.utf8), graph: graph()) }
        #expect(throws: ConversationSnapshot.Failure.otherFlow(expected: other.contentHash, found: snapshot.flow)) {
            try ConversationSnapshot(jsonText: Array(text.utf8), graph: other)
        }
        for bad in [
            "", "{", "[]", #"{"format": "rocket-conversation"}"#, String(repeating: "[", count: 10_000),
            text.replacing(#""status":"active""#, with: #""status":{"active":{}}"#),
            text.replacing(#""id":"hi""#, with: #""id":"nowhere""#),
            text.replacing(#""sequence""#, with: #""sequence":1,"extra""#),
            text.replacing(#""fired":false"#, with: #""fired":"yes""#),
        ] {
            #expect(bad != text)
            #expect(throws: ConversationSnapshot.Failure.self) { try ConversationSnapshot(jsonText: Array(bad.utf8), graph: graph()) }
        }
        var broken = snapshot
        broken.state.shown = [RocketNodeID(999)]
        #expect(throws: ConversationSnapshot.Failure.self) {
            try broken.restore(graph: graph(), author: c.author, closeButton: nil, options: c.options, at: 0)
        }
    }

    @Test("Truncated and damaged snapshots are refused or read, never a trap: every prefix, and 2,000 random byte changes")
    func fuzz() throws {
        var c = Conversation(graph: graph(), options: ConversationOptions(timing: .reducedMotion, echoReplies: true))
        c.start(at: 0)
        try c.send(.tap, at: 0)
        let bytes = ConversationSnapshot(c, at: 1).jsonBytes()
        let g = graph()
        for n in 0..<bytes.count {
            #expect(throws: ConversationSnapshot.Failure.self) { try ConversationSnapshot(jsonText: Array(bytes[..<n]), graph: g) }
        }
        var state: UInt64 = 42
        for _ in 0..<2_000 {
            var damaged = bytes
            for _ in 0..<3 {
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                damaged[Int(state >> 33) % damaged.count] = UInt8(truncatingIfNeeded: state >> 20)
            }
            // Either outcome is fine; what matters is that it returns.
            if let read = try? ConversationSnapshot(jsonText: damaged, graph: g) {
                _ = try? read.restore(graph: g, author: c.author, closeButton: nil, options: c.options, at: 0)
            }
        }
    }

    @Test("SHA-256 matches the standard test vectors")
    func sha() {
        #expect(SHA256.hex(Array("abc".utf8)) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(SHA256.hex([]) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(
            SHA256.hex(Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8))
                == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
    }
}
