import RocketConversation
import RocketCore
import RocketJSON
import Testing

@testable import RocketFlow

/// Experiments: the documented assignment, its shares, the format and lint.
@Suite("Experiments")
struct ExperimentTests {
    static let experiment = RocketExperiment(
        name: "welcome-copy", variants: [RocketExperimentVariant(name: "a", weight: 1), RocketExperimentVariant(name: "b", weight: 3)], holdout: 0.1)

    @Test("10,000 visitors fall into the holdout and the variants within ±2 % of their shares")
    func shares() {
        var counts: [String: Int] = [:]
        for k in 0..<10_000 { counts[Self.experiment.name(of: Self.experiment.assign(visitor: "visitor-\(k)")), default: 0] += 1 }
        #expect(abs(Double(counts["holdout", default: 0]) / 10_000 - 0.1) <= 0.02, "\(counts)")
        #expect(abs(Double(counts["a", default: 0]) / 10_000 - 0.225) <= 0.02, "\(counts)")
        #expect(abs(Double(counts["b", default: 0]) / 10_000 - 0.675) <= 0.02, "\(counts)")
    }

    @Test("the assignment is the documented hash: fixed values, the same every time, another per experiment name")
    func documented() {
        // SHA-256("rocket-experiment\0welcome-copy\0ada")'s first 8 bytes, big-endian, top 53 bits / 2^53.
        let digest = SHA256.digest(Array("rocket-experiment".utf8) + [0] + Array("welcome-copy".utf8) + [0] + Array("ada".utf8))
        var x: UInt64 = 0
        for b in digest.prefix(8) { x = x << 8 | UInt64(b) }
        #expect(Self.experiment.position(of: "ada") == Double(x >> 11) / 9_007_199_254_740_992)
        #expect(Self.experiment.assign(visitor: "ada") == Self.experiment.assign(visitor: "ada"))
        var other = Self.experiment
        other.name = "another"
        let differs = (0..<200).contains { other.assign(visitor: "v\($0)") != Self.experiment.assign(visitor: "v\($0)") }
        #expect(differs, "the name salts the assignment")
        var none = Self.experiment
        none.holdout = 0
        #expect((0..<1_000).allSatisfy { none.assign(visitor: "v\($0)") != .holdout })
    }

    @Test("the format reads an experiment; lint refuses a variant named holdout or twice")
    func format() throws {
        let json = #"""
            {"version": 1, "experiment": {"name": "welcome-copy", "holdout": 0.1,
              "variants": [{"name": "a", "start": "long"}, {"name": "b", "weight": 2, "start": "short"}]},
             "blocks": [{"id": "long", "type": "text", "text": "Welcome to the long tour"}, {"id": "short", "type": "text", "text": "Hi"}]}
            """#
        let r = FlowLoader.load(json)
        #expect(r.diagnostics.isEmpty, "\(r.diagnostics)")
        let e = try #require(r.document?.experiment)
        #expect(e.name == "welcome-copy" && e.holdout == 0.1 && e.variants.map(\.weight) == [1, 2] && e.variants[1].start == RocketNodeID(1))
        let doc = try #require(r.document)
        let again = try #require(FlowLoader.load(doc.jsonValue.serialized()).document)
        #expect(again.experiment == e)
        let bad = FlowLoader.load(json.replacing(#""name": "b""#, with: #""name": "holdout""#))
        #expect(bad.errors.map(\.code) == ["bad-name"])
        let twice = FlowLoader.load(json.replacing(#""name": "b""#, with: #""name": "a""#))
        #expect(twice.errors.map(\.code) == ["duplicate-id"])
        #expect(FlowLoader.load(json.replacing(#""holdout": 0.1"#, with: #""holdout": 1"#)).errors.map(\.code) == ["out-of-range"])
    }
}

@Suite("Targeting")
struct TargetingTests {
    static let flow = #"""
        {"version": 1, "vars": {"plan": "free", "visits": 0}, "when": {"if": "plan == 'pro' and visits >= 3"},
         "blocks": [{"id": "hi", "type": "text", "text": "Hi, pro"}]}
        """#

    @Test("when.if decides over the start values; it needs no scenario; lint checks it; it is written back")
    func decides() throws {
        let r = FlowLoader.load(Self.flow)
        #expect(r.diagnostics.isEmpty, "\(r.diagnostics)")
        let doc = try #require(r.document)
        #expect(doc.refusal(variables: [:], answers: [:]) == #"when.if "plan == 'pro' and visits >= 3" is false"#)
        #expect(doc.refusal(variables: ["plan": .text("pro"), "visits": .number(3)], answers: [:]) == nil)
        #expect(FlowLoader.load(doc.jsonValue.serialized()).document?.showIf == doc.showIf)
        let bad = FlowLoader.load(Self.flow.replacing("visits >= 3", with: "visitz >= 3"))
        #expect(bad.errors.map(\.code) == ["unknown-variable"])
        #expect(FlowLoader.load(Self.flow.replacing("plan == 'pro' and visits >= 3", with: "visits")).errors.map(\.code) == ["expression-type"])
    }
}
