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
        #expect(doc.refusal(variables: [:], answers: [:], local: nil) == #"when.if "plan == 'pro' and visits >= 3" is false"#)
        #expect(doc.refusal(variables: ["plan": .text("pro"), "visits": .number(3)], answers: [:], local: nil) == nil)
        #expect(FlowLoader.load(doc.jsonValue.serialized()).document?.showIf == doc.showIf)
        let bad = FlowLoader.load(Self.flow.replacing("visits >= 3", with: "visitz >= 3"))
        #expect(bad.errors.map(\.code) == ["unknown-variable"])
        #expect(FlowLoader.load(Self.flow.replacing("plan == 'pro' and visits >= 3", with: "visits")).errors.map(\.code) == ["expression-type"])
    }
}

@Suite("Quiet hours")
struct QuietHoursTests {
    @Test("A window past midnight, a window within a day, an empty one; times read strictly")
    func windows() {
        let night = RocketQuietHours(from: "22:00", to: "08:00")
        #expect(night.contains(minuteOfDay: 22 * 60) && night.contains(minuteOfDay: 23 * 60 + 59) && night.contains(minuteOfDay: 0))
        #expect(night.contains(minuteOfDay: 7 * 60 + 59) && !night.contains(minuteOfDay: 8 * 60) && !night.contains(minuteOfDay: 12 * 60))
        let lunch = RocketQuietHours(from: "12:00", to: "13:30")
        #expect(lunch.contains(minuteOfDay: 12 * 60) && lunch.contains(minuteOfDay: 13 * 60 + 29) && !lunch.contains(minuteOfDay: 13 * 60 + 30))
        #expect(!RocketQuietHours(from: "09:00", to: "09:00").contains(minuteOfDay: 9 * 60))
        for bad in ["24:00", "9:00", "09:60", "09-00", "", "０９:００", "09:00 "] { #expect(RocketQuietHours.minutes(bad) == nil, "\(bad)") }
        #expect(RocketQuietHours.minutes("23:59") == 1439 && RocketQuietHours.minutes("00:00") == 0)
    }

    @Test("The refusal says the local time and ends when the window does, in the visitor's offset")
    func refusal() throws {
        let night = RocketQuietHours(from: "22:00", to: "08:00")
        let t = 1_796_342_400.0  // 2026-12-04T00:00:00Z
        let utc = try #require(night.refusal(at: t + 1800, utcOffset: 0))
        #expect(utc.reason == "quiet hours 22:00–08:00 (it is 00:30 there)")
        #expect(utc.earliest == t + 8 * 3600)
        // 00:30 UTC is 09:30 in Tokyo (+9): not quiet; 16:30 in Los Angeles (−8): not quiet.
        #expect(night.refusal(at: t + 1800, utcOffset: 9 * 3600) == nil)
        #expect(night.refusal(at: t + 1800, utcOffset: -8 * 3600) == nil)
        // 14:00 UTC is 23:00 in Tokyo: quiet until 08:00 there, 23:00 UTC.
        let tokyo = try #require(night.refusal(at: t + 14 * 3600, utcOffset: 9 * 3600))
        #expect(tokyo.earliest == t + 23 * 3600)
        // Before midnight, the end is the next morning.
        let evening = try #require(night.refusal(at: t - 3600, utcOffset: 0))
        #expect(evening.earliest == t + 8 * 3600)
        #expect(night.refusal(at: .nan, utcOffset: 0) == nil && night.refusal(at: 1e300, utcOffset: 0) == nil)
    }

    @Test("A flow's quietHours is read, written back and linted at its place")
    func format() throws {
        let ok = FlowLoader.load(
            Array(#"{"version": 1, "quietHours": {"from": "22:00", "to": "08:00"}, "blocks": [{"id": "a", "type": "text", "text": "Hi"}]}"#.utf8))
        #expect(ok.document?.quietHours == RocketQuietHours(from: "22:00", to: "08:00"))
        #expect(ok.errors.isEmpty)
        let bad = FlowLoader.load(
            Array(#"{"version": 1, "quietHours": {"from": "22h", "to": "08:00"}, "blocks": [{"id": "a", "type": "text", "text": "Hi"}]}"#.utf8))
        #expect(bad.errors.first?.path == "quietHours.from" && bad.errors.first?.column == 39)
        let missing = FlowLoader.load(Array(#"{"version": 1, "quietHours": {"from": "22:00"}, "blocks": [{"id": "a", "type": "text", "text": "Hi"}]}"#.utf8))
        #expect(!missing.errors.isEmpty)
    }
}
