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
        let read = try ConversationSnapshot(jsonText: Array(text.utf8))
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
        let restored = try ConversationSnapshot(jsonText: Array(text.utf8)).restore(
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
        var newer = snapshot
        newer.version = 99
        let newerText = try JSONCoding.encode(newer).serialized()
        #expect(throws: ConversationSnapshot.Failure.unsupportedVersion(99)) { try ConversationSnapshot(jsonText: Array(newerText.utf8)) }
        for bad in ["", "{", "[]", #"{"format": "rocket-conversation"}"#, String(repeating: "[", count: 10_000)] {
            #expect(throws: ConversationSnapshot.Failure.self) { try ConversationSnapshot(jsonText: Array(bad.utf8)) }
        }
        var broken = snapshot
        broken.state.shown = [RocketNodeID(999)]
        #expect(throws: ConversationSnapshot.Failure.self) {
            try broken.restore(graph: graph(), author: c.author, closeButton: nil, options: c.options, at: 0)
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
