import Testing
import RocketCore
import RocketJSON

@testable import RocketConversation

/// The hand-written snapshot writer against the `Codable` form it stands in for.
@Suite("Snapshots: the direct JSON writer")
struct SnapshotWriterTests {
    /// A small deterministic generator (SplitMix64), so a failure names a reproducible case.
    struct Generator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        mutating func int(_ range: ClosedRange<Int>) -> Int { range.lowerBound + Int(next() % UInt64(range.count)) }
        mutating func bool() -> Bool { next() & 1 == 0 }
        mutating func pick<T>(_ items: [T]) -> T { items[int(0...items.count - 1)] }
        mutating func text() -> String {
            pick([
                "", "Hi", "Ada \"Lovelace\"", "back\\slash", "line\nbreak\ttab", "\u{0}\u{1B}[31mred", "\u{7F}\u{85}\u{9F}",
                "bidi \u{202E}evil\u{202C}", "zero\u{200B}width\u{FEFF}", "\u{2028}\u{2029}", "你好，世界", "emoji 🚀👩‍🚀", "é and e\u{301}",
                String(repeating: "long ", count: 40),
            ])
        }
        mutating func number() -> Int { pick([0, 1, 7, 42, 999, 123_456, -3, Int(Int32.max), 1 << 53, -(1 << 52)]) }
        mutating func seconds() -> Double { pick([0, 0.3, 1.5, 2, 10, 1e-9, 1e9, 123_456.789, 1e16, .leastNonzeroMagnitude]) }
        mutating func reason() -> RocketDismissReason { pick(RocketDismissReason.allCases) }
        mutating func action() -> ConversationState.TimerAction {
            switch int(0...5) {
            case 0: return .appendRoot
            case 1: return .autoAdvance(index: number())
            case 2: return .advance(from: number(), to: RocketNodeID(number()))
            case 3: return .advance(from: number(), to: nil)
            case 4: return .closeByUser
            default: return .finishClosing(reason())
            }
        }
        mutating func rule() -> RocketValidationFailure.Rule {
            switch int(0...5) {
            case 0: return .required
            case 1: return .tooShort(number())
            case 2: return .tooLong(number())
            case 3: return .pattern(text())
            case 4: return .invalidPattern(text())
            default: return .patternTooComplex(text())
            }
        }

        /// A snapshot with every field drawn at random; `maps` bounds the integer-keyed maps.
        mutating func snapshot(maps: Int) -> ConversationSnapshot {
            var s = ConversationState()
            s.status = pick([.notShown, .presenting, .active, .closing(reason()), .dismissed(reason())])
            let shown = int(0...6)
            s.shown = (0..<shown).map { _ in RocketNodeID(number()) }
            s.flags = (0..<shown).map { _ in ConversationState.BlockFlags(fired: bool(), tapEnabled: bool()) }
            s.transcript = (0..<int(0...6)).map { _ in
                bool() ? .block(index: number(), node: RocketNodeID(number()), text: text()) : .reply(blockIndex: number(), text: text(), isSecret: bool())
            }
            for _ in 0..<int(0...4) { s.answers[text()] = RocketAnswer(value: text(), isSecret: bool()) }
            s.inputError = bool() ? RocketValidationFailure(rule: rule(), message: bool() ? text() : nil) : nil
            for _ in 0..<int(0...maps) { s.pressedSide[number()] = bool() ? .left : .right }
            if bool() {
                var chosen: [Int: Int] = [:]
                for _ in 0..<int(0...maps) { chosen[number()] = number() }
                s.chosenOptions = chosen
            }
            s.timers = (0..<int(0...3)).map { _ in ConversationState.Timer(deadline: seconds(), sequence: number(), action: action()) }
            s.sequence = number()
            s.awaitingDecision = bool() ? number() : nil

            var g = RocketGraph()
            g.root = g.add(RocketNode(text: "x"))
            var snapshot = ConversationSnapshot(Conversation(graph: g), at: 0, flow: text(), includeSecrets: bool())
            snapshot.state = s
            snapshot.timers = (0..<int(0...3)).map { _ in ConversationSnapshot.PendingTimer(remaining: seconds(), sequence: number(), action: action()) }
            return snapshot
        }
    }

    /// The value with every object's members in key order (objects are unordered in JSON).
    static func canonical(_ v: JSONValue) -> JSONValue {
        switch v {
        case .array(let items): return .array(items.map(canonical))
        case .object(let members): return .object(members.map { ($0.0, canonical($0.1)) }.sorted { $0.0 < $1.0 })
        default: return v
        }
    }

    @Test("Byte for byte the Codable form (maps of one entry), the same document otherwise, and it reads back equal")
    func matchesCodable() throws {
        var g = Generator(state: 2026)
        for round in 0..<600 {
            let snapshot = g.snapshot(maps: round % 2 == 0 ? 1 : 4)
            let direct = snapshot.jsonBytes()
            let codable = try JSONCoding.encode(snapshot).serializedBytes()
            let smallMaps = snapshot.state.pressedSide.count <= 1 && (snapshot.state.chosenOptions?.count ?? 0) <= 1
            if smallMaps {
                #expect(direct == codable, "round \(round): \(String(decoding: direct, as: UTF8.self))")
            }
            let parsed = try JSONReader.parse(direct).plainValue
            #expect(Self.canonical(parsed) == Self.canonical(try JSONReader.parse(codable).plainValue), "round \(round)")
            #expect(try ConversationSnapshot(jsonText: direct) == snapshot, "round \(round)")
        }
    }

    @Test("Integer-keyed maps are written in key order, so the same state always gives the same bytes")
    func stableOrder() {
        var g = Generator(state: 7)
        var snapshot = g.snapshot(maps: 0)
        snapshot.state.pressedSide = [30: .left, 2: .right, 100: .left, 7: .right]
        snapshot.state.chosenOptions = [9: 1, 1: 0]
        let text = String(decoding: snapshot.jsonBytes(), as: UTF8.self)
        #expect(text.contains(#""pressedSide":{"2":"right","7":"right","30":"left","100":"left"}"#))
        #expect(text.contains(#""chosenOptions":{"1":0,"9":1}"#))
    }

    @Test("A time that is not finite is written as 0 instead of failing the snapshot")
    func notFinite() throws {
        var g = Generator(state: 11)
        var snapshot = g.snapshot(maps: 0)
        snapshot.timers = [ConversationSnapshot.PendingTimer(remaining: .infinity, sequence: 1, action: .appendRoot)]
        let read = try ConversationSnapshot(jsonText: snapshot.jsonBytes())
        #expect(read.timers.map(\.remaining) == [0])
    }
}
