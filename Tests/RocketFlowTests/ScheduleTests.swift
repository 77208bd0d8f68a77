import RocketConversation
import RocketFlow
import RocketJSON
import RocketScenarioEngine
import Testing

@Suite("A flow's schedule")
struct ScheduleTests {
    @Test("A moment is a day, a time and its offset; nothing else is one")
    func moments() throws {
        let t = 1_796_342_400.0  // 2026-12-04T00:00:00Z
        #expect(RocketSchedule.instant("2026-12-04T00:00Z") == t)
        #expect(RocketSchedule.instant("2026-12-04T01:00+01:00") == t)
        #expect(RocketSchedule.instant("2026-12-03T19:00:00-0500") == t)
        #expect(RocketSchedule.instant("2026-12-04t00:00:00.5z") == t + 0.5)
        for bad in [
            "2026-12-04", "2026-12-04T00:00", "2026-12-04T00:00:00", "@1796342400", "2026-02-30T00:00Z", "2026-12-04T24:00Z", "2026-12-04T00:00+01:00x",
            "2026-12-04 00:00Z", "", "２０２６-12-04T00:00Z", String(repeating: "9", count: 100_000), "2026-12-04T00:00+25:00",
        ] {
            #expect(RocketSchedule.instant(bad) == nil, "\(bad.prefix(40))")
        }
    }

    @Test("Before its beginning the earliest is the beginning; from its end on, never")
    func refusal() throws {
        let s = RocketSchedule(from: "2026-12-10T09:00+01:00", until: "2027-01-06T00:00Z")
        let start = try #require(s.start), end = try #require(s.end)
        let before = try #require(s.refusal(at: start - 1))
        #expect(before.reason == "scheduled from 2026-12-10T09:00+01:00" && before.earliest == start)
        #expect(s.refusal(at: start) == nil && s.refusal(at: end - 0.001) == nil)
        let after = try #require(s.refusal(at: end))
        #expect(after.reason == "its schedule ended at 2027-01-06T00:00Z" && after.earliest == nil)
        #expect(s.hasEnded(at: end) && !s.hasEnded(at: end - 1))
        // Open ends.
        #expect(RocketSchedule(from: "2026-12-10T09:00+01:00").refusal(at: 1e12) == nil)
        #expect(RocketSchedule(until: "2027-01-06T00:00Z").refusal(at: -1e12) == nil)
        #expect(s.refusal(at: .nan) == nil && !RocketSchedule().hasEnded(at: 1e15))
    }

    @Test("With quiet hours the earliest is when both allow, and none when the schedule ends first")
    func withQuietHours() throws {
        var graph = RocketGraph()
        graph.root = graph.add(RocketNode(id: "a", text: "Hi"))
        var doc = FlowDocument(graph: graph)
        doc.quietHours = RocketQuietHours(from: "22:00", to: "08:00")
        // Begins at 23:00 UTC, inside the quiet hours: the earliest is 08:00 the next morning.
        doc.schedule = RocketSchedule(from: "2026-12-04T23:00Z")
        let t = 1_796_342_400.0  // 2026-12-04T00:00:00Z
        let early = try #require(doc.timeRefusal(at: t + 12 * 3600, utcOffset: 0))
        #expect(early.reason == "scheduled from 2026-12-04T23:00Z, then quiet hours 22:00–08:00 (it is 23:00 there)")
        #expect(early.earliest == t + 32 * 3600)
        // In the schedule and the quiet hours, and the schedule ends at 06:00: never again.
        doc.schedule = RocketSchedule(until: "2026-12-05T06:00Z")
        let last = try #require(doc.timeRefusal(at: t + 23 * 3600, utcOffset: 0))
        #expect(last.earliest == nil && last.reason.hasSuffix("; its schedule ends at 2026-12-05T06:00Z, before then"))
        // Outside both: shown.
        #expect(doc.timeRefusal(at: t + 12 * 3600, utcOffset: 0) == nil)
        #expect(doc.timeRefusal(at: t + 30 * 3600, utcOffset: 0)?.earliest == nil)
    }

    @Test("The schedule is read, written back, and refused at its place when a moment has no offset or it ends first")
    func format() throws {
        func load(_ schedule: String) -> FlowLoadResult {
            FlowLoader.load(Array(#"{"version": 1, "schedule": \#(schedule), "blocks": [{"id": "a", "type": "text", "text": "Hi"}]}"#.utf8))
        }
        let ok = load(#"{"from": "2026-12-10T09:00+01:00", "until": "2027-01-06T00:00Z"}"#)
        #expect(ok.errors.isEmpty && ok.document?.schedule == RocketSchedule(from: "2026-12-10T09:00+01:00", until: "2027-01-06T00:00Z"))
        let written = try #require(ok.document?.jsonValue.serialized(pretty: false))
        #expect(written.contains(#""schedule":{"from":"2026-12-10T09:00+01:00","until":"2027-01-06T00:00Z"}"#), "\(written)")
        #expect(FlowLoader.load(Array(written.utf8)).document == ok.document)
        #expect(load(#"{"until": "2027-01-06T00:00Z"}"#).document?.schedule == RocketSchedule(until: "2027-01-06T00:00Z"))

        let local = load(#"{"from": "2026-12-10T09:00"}"#)
        let e = try #require(local.errors.first)
        #expect(e.code == "bad-value" && e.path == "schedule.from" && e.column == 37, "\(local.diagnostics)")
        #expect(e.message.contains("add its offset from UTC"), "\(e.message)")
        let day = try #require(load(#"{"until": "2027-01-06"}"#).errors.first)
        #expect(day.code == "bad-value" && day.message.contains("add its offset"), "\(day.message)")
        let junk = try #require(load(#"{"until": "next week"}"#).errors.first)
        #expect(junk.code == "bad-value" && !junk.message.contains("add its offset"), "\(junk.message)")
        #expect(load(#"{"until": 1796342400}"#).errors.first?.code == "wrong-type")
        #expect(load(#"{"until": "2027-01-06T00:00Z", "ends": "x"}"#).errors.first?.code == "unknown-field")

        let backwards = load(#"{"from": "2027-01-06T00:00Z", "until": "2027-01-06T01:00+01:00"}"#)
        let b = try #require(backwards.errors.first)
        #expect(b.code == "impossible-range" && b.path == "schedule.until" && b.line == 1, "\(backwards.diagnostics)")
    }

    @Test("rocket graph's start says the schedule and the quiet hours, beside the scenario's gate or alone")
    func graph() throws {
        func drawn(_ fields: String) throws -> String {
            let doc = try #require(FlowLoader.load(Array(#"{"version": 1, \#(fields), "blocks": [{"id": "a", "type": "text", "text": "Hi"}]}"#.utf8)).document)
            return FlowGraph.mermaid(doc)
        }
        let alone = try drawn(#""schedule": {"from": "2026-12-10T09:00+01:00"}, "quietHours": {"from": "22:00", "to": "08:00"}"#)
        #expect(alone.contains(#"(["start (from 2026-12-10T09:00+01:00, quiet 22:00–08:00)"])"#) && alone.contains(#"-->|"may show"|"#), "\(alone)")
        let gated = try drawn(#""scenario": "tip", "when": {"minEventsRequired": 3}, "schedule": {"until": "2027-01-06T00:00Z"}"#)
        #expect(gated.contains("gate: tip (≥3 events); until 2027-01-06T00:00Z"), "\(gated)")
        let open = try drawn(#""title": "x""#)
        #expect(open.contains(#"(["start"])"#) && !open.contains("may show"), "\(open)")
    }

    @Test("The schema and the reference describe it from the table")
    func schema() throws {
        let reference = FlowFormat.v1.referenceMarkdown
        #expect(reference.contains("#### `schedule`") && reference.contains("| `until` | moment with its offset"))
        let schema = FlowFormat.v1.jsonSchema.serialized(pretty: false)
        #expect(schema.contains(#""schedule":{"#))
    }
}
