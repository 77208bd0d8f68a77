import Foundation
import Testing
import RocketCore
import RocketJSON

@testable import RocketConversation

/// The snapshot format, version 2: written field by field, read back equal.
@Suite("Snapshots: the stored format")
struct SnapshotWriterTests {
    @Test("docs/SNAPSHOT_FORMAT.md's tables name exactly the fields the reader takes: a field added in one place only fails here")
    func documentTables() throws {
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("docs/SNAPSHOT_FORMAT.md").path
        let doc = try String(contentsOfFile: path, encoding: .utf8)
        /// The fields of the first table under `heading`: each row's first cell, a name in backticks.
        func fields(under heading: String) -> Set<String> {
            guard let start = doc.range(of: "\n" + heading + "\n") else { return [] }
            var names: Set<String> = []
            var inTable = false
            for line in doc[start.upperBound...].split(separator: "\n", omittingEmptySubsequences: false) {
                if line.hasPrefix("|") {
                    inTable = true
                    let cell = line.dropFirst().prefix { $0 != "|" }.trimmingCharacters(in: .whitespaces)
                    if cell.hasPrefix("`"), cell.hasSuffix("`"), cell.count > 2 { names.insert(String(cell.dropFirst().dropLast())) }
                } else if inTable || line.hasPrefix("#") {
                    break
                }
            }
            return names
        }
        #expect(fields(under: "## Top level") == Set(SnapshotWords.top))
        #expect(fields(under: "### A shown block") == Set(SnapshotWords.block))
        #expect(fields(under: "### A transcript item") == Set(SnapshotWords.item))
        #expect(fields(under: "### An answer") == Set(SnapshotWords.answer))
        #expect(fields(under: "### An input error") == Set(SnapshotWords.failure))
        #expect(fields(under: "### A timer") == Set(SnapshotWords.timer))
        #expect(fields(under: "## The server's stored conversations") == Set(ConversationOptions.storedKeys))
    }

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

        /// A graph of `n` nodes: most with ids of their own, some sharing one, some without.
        mutating func graph(_ n: Int) -> RocketGraph {
            var g = RocketGraph()
            for i in 0..<n {
                let id: String? = int(0...9) == 0 ? nil : int(0...9) == 0 ? "twin" : "b\(i)-\(text().prefix(3))"
                g.add(RocketNode(id: id, text: "x"))
            }
            g.root = RocketNodeID(0)
            return g
        }

        /// A snapshot of a state drawn at random over `g` (what the engine can make: shown blocks
        /// are nodes of the graph, a transcript block item names its shown block).
        mutating func snapshot(over g: RocketGraph) -> ConversationSnapshot {
            let n = g.nodes.count
            var s = ConversationState()
            s.status = pick([.notShown, .presenting, .active, .closing(reason()), .dismissed(reason())])
            let shown = int(0...6)
            s.shown = (0..<shown).map { _ in RocketNodeID(int(0...n - 1)) }
            s.flags = (0..<shown).map { _ in ConversationState.BlockFlags(fired: bool(), tapEnabled: bool()) }
            s.transcript = (0..<int(0...6)).compactMap { _ in
                if bool(), shown > 0 {
                    let i = int(0...shown - 1)
                    return .block(index: i, node: s.shown[i], text: text())
                }
                return .reply(blockIndex: number(), text: text(), isSecret: bool())
            }
            for _ in 0..<int(0...4) { s.answers[text()] = RocketAnswer(value: text(), isSecret: bool()) }
            s.inputError = bool() ? RocketValidationFailure(rule: rule(), message: bool() ? text() : nil) : nil
            if shown > 0 {
                for _ in 0..<int(0...3) { s.pressedSide[int(0...shown - 1)] = bool() ? .left : .right }
                if bool() {
                    var chosen: [Int: Int] = [:]
                    for _ in 0..<int(1...3) { chosen[int(0...shown - 1)] = number() }
                    s.chosenOptions = chosen
                }
            }
            s.sequence = number()
            s.awaitingDecision = bool() ? number() : nil
            var snapshot = ConversationSnapshot(Conversation(graph: g), at: 0, flow: text(), includeSecrets: bool())
            snapshot.state = s
            snapshot.timers = (0..<int(0...3)).map { _ in
                var action = action()
                if case .advance(let from, _?) = action { action = .advance(from: from, to: RocketNodeID(int(0...n - 1))) }
                return ConversationSnapshot.PendingTimer(remaining: seconds(), sequence: number(), action: action)
            }
            return snapshot
        }
    }

    @Test("Any state the engine can make is written and read back equal, blocks named by id (or #index when an id is missing or shared)")
    func roundTrip() throws {
        var g = Generator(state: 2026)
        for round in 0..<600 {
            let graph = g.graph(g.int(1...12))
            let snapshot = g.snapshot(over: graph)
            let bytes = snapshot.jsonBytes()
            let text = String(decoding: bytes, as: UTF8.self)
            #expect(try ConversationSnapshot(jsonText: bytes, graph: graph, identity: snapshot.flow) == snapshot, "round \(round): \(text)")
            // Enumerations are words, blocks are names: no synthesized shapes.
            #expect(!text.contains(#""_0""#) && !text.contains(":{}}"), "round \(round)")
            for id in snapshot.state.shown {
                let name = graph[id].id.flatMap { i in graph.nodes.filter { $0.id == i }.count == 1 ? i : nil } ?? "#\(id.rawValue)"
                #expect(text.contains(#""id":\#(JSONValue.string(name).serialized(pretty: false))"#), "round \(round)")
            }
        }
    }

    @Test("Maps are written in key order, so the same state always gives the same bytes")
    func stableOrder() {
        var g = Generator(state: 7)
        let graph = g.graph(3)
        var snapshot = g.snapshot(over: graph)
        snapshot.state.answers = ["b": RocketAnswer(value: "2"), "a": RocketAnswer(value: "1"), "c": RocketAnswer(value: "3", isSecret: true)]
        let text = String(decoding: snapshot.jsonBytes(), as: UTF8.self)
        #expect(text.contains(#""answers":{"a":{"value":"1"},"b":{"value":"2"},"c":{"value":"3","secret":true}}"#))
        #expect(snapshot.jsonBytes() == snapshot.jsonBytes())
    }

    @Test("A time that is not finite is written as 0 instead of failing the snapshot")
    func notFinite() throws {
        var g = Generator(state: 11)
        let graph = g.graph(2)
        var snapshot = g.snapshot(over: graph)
        snapshot.timers = [ConversationSnapshot.PendingTimer(remaining: .infinity, sequence: 1, action: .appendRoot)]
        let read = try ConversationSnapshot(jsonText: snapshot.jsonBytes(), graph: graph, identity: snapshot.flow)
        #expect(read.timers.map(\.remaining) == [0])
    }
}
