import RocketCore
import RocketReport
import Testing

/// Builds event records as `rocket play --events` and `rocket serve` write them.
struct LogWriter {
    var lines: [String] = []
    var clock = 1_700_000_000.0

    mutating func add(_ s: String) { lines.append(s) }

    /// One conversation: exposure (when a variant is given), start, then the blocks in order;
    /// each answered after `seconds[k]`; it ends completed, closed at the last shown block, or
    /// never (nil).
    mutating func conversation(
        flow: String, variant: String? = nil, blocks: [String], answered: Int, seconds: [Double] = [], end: String?, conversation id: String? = nil,
        version: String? = nil
    ) {
        let tail = (variant.map { #","variant":"\#($0)""# } ?? "") + (id.map { #","conversation":"\#($0)""# } ?? "")
        if let variant {
            add(
                #"{"at":\#(clock),"event":"exposure","experiment":"x","variant":"\#(variant)","shown":true,"flow":"\#(flow)"\#(id.map { #","conversation":"\#($0)""# } ?? "")}"#
            )
        }
        add(#"{"at":\#(clock),"event":"started","flow":"\#(flow)"\#(version.map { #","version":"\#($0)""# } ?? "")\#(tail)}"#)
        for (k, b) in blocks.enumerated() {
            add(#"{"at":\#(clock),"event":"blockAdded","index":\#(k),"id":"\#(b)","type":"text"\#(tail)}"#)
            guard k < answered else { break }
            clock += k < seconds.count ? seconds[k] : 1
            add(#"{"at":\#(clock),"event":"tapped","index":\#(k),"id":"\#(b)","automatic":false\#(tail)}"#)
        }
        if let end { add(#"{"at":\#(clock),"event":"dismissed","reason":"\#(end)","count":1,"ids":[]\#(tail)}"#) }
        clock += 10
    }

    func build(minCount: Int = 1, against: String? = nil, by grouping: ReportGrouping = .variant) throws -> Report {
        var b = ReportBuilder(by: grouping)
        for (k, line) in lines.enumerated() { try b.addLine(Array(line.utf8), input: 0, line: k + 1) }
        b.finishInput(0)
        return b.report(ReportOptions(minCount: minCount, against: against))
    }
}

@Suite("Reports")
struct ReportTests {
    @Test("The z-test, interval and sample size against a worked example (130 of 1,000 against 100 of 1,000)")
    func workedExample() throws {
        let c = try #require(ProportionComparison(successes: 130, trials: 1000, againstSuccesses: 100, againstTrials: 1000))
        #expect(abs(c.difference - 0.03) < 1e-12)
        #expect(abs(c.ci95.low - 0.002068) < 1e-6 && abs(c.ci95.high - 0.057932) < 1e-6)
        #expect(abs(c.pValue - 0.035488) < 1e-6)  // z = 2.1027
        #expect(c.neededPerVariant == 1774)
        // No difference: p = 1, nothing to detect.
        let same = try #require(ProportionComparison(successes: 50, trials: 100, againstSuccesses: 50, againstTrials: 100))
        #expect(same.pValue == 1 && same.neededPerVariant == nil && same.ci95.low < 0 && same.ci95.high > 0)
        // All or nothing on both sides: no variance, p = 1, no trap.
        #expect(ProportionComparison(successes: 0, trials: 10, againstSuccesses: 0, againstTrials: 10)?.pValue == 1)
        #expect(ProportionComparison(successes: 1, trials: 0, againstSuccesses: 0, againstTrials: 10) == nil)
        #expect(ProportionComparison(successes: 11, trials: 10, againstSuccesses: 0, againstTrials: 10) == nil)
    }

    /// An experiment's records: variant a completes 40 of 200, b 60 of 200; 3 holdout exposures.
    static func experimentLog() -> LogWriter {
        var log = LogWriter()
        for k in 0..<200 { log.conversation(flow: "w", variant: "a", blocks: ["hi"], answered: 1, end: k < 40 ? "completed" : "closed") }
        for k in 0..<200 { log.conversation(flow: "w", variant: "b", blocks: ["hi"], answered: 1, end: k < 60 ? "completed" : "closed") }
        for _ in 0..<3 { log.add(#"{"at":1,"event":"exposure","experiment":"x","variant":"holdout","shown":false,"flow":"w"}"#) }
        return log
    }

    @Test("Holm's adjustment: the i-th smallest p-value times m − i + 1, never below the one before, at most 1; a flow of several comparisons says them")
    func holm() throws {
        let adjusted = ProportionComparison.holm([0.01, 0.04, 0.03])
        #expect(zip(adjusted, [0.03, 0.06, 0.06]).allSatisfy { abs($0 - $1) < 1e-12 }, "\(adjusted)")
        #expect(ProportionComparison.holm([0.5, 0.6]) == [1, 1] && ProportionComparison.holm([0.02]) == [0.02] && ProportionComparison.holm([]).isEmpty)
        #expect(ProportionComparison.holm([0.04, 0.04]) == [0.08, 0.08], "ties")
        // Three variants against a: b and c are compared, each p adjusted for both.
        var log = Self.experimentLog()
        for k in 0..<200 { log.conversation(flow: "w", variant: "c", blocks: ["hi"], answered: 1, end: k < 50 ? "completed" : "closed") }
        let report = try log.build(minCount: 5)
        let vs = report.flows[0].variants
        let b = try #require(vs.first { $0.variant == "b" }?.comparison), c = try #require(vs.first { $0.variant == "c" }?.comparison)
        let expected = ProportionComparison.holm([b.statistics.pValue, c.statistics.pValue])
        #expect(b.holmPValue == expected[0] && c.holmPValue == expected[1] && b.holmPValue! > b.statistics.pValue)
        let note = try #require(ReportFormat.holmNote(report.flows[0], by: .variant))
        #expect(note == "p-values adjusted for 2 comparisons (Holm): b \(ReportFormat.pValue(expected[0])), c \(ReportFormat.pValue(expected[1]))", "\(note)")
        #expect(report.html.contains(note) && report.json.contains(#""pValueHolm":"#))
        // One comparison stands as it is.
        let one = try Self.experimentLog().build(minCount: 5)
        #expect(one.flows[0].variants.allSatisfy { $0.comparison?.holmPValue == nil } && ReportFormat.holmNote(one.flows[0], by: .variant) == nil)
        #expect(one.json.contains(#""pValueHolm":null"#))
    }

    @Test("a report read back from its JSON (what rocket report --server gets) is the same report: every field, every format; anything else is refused")
    func readBack() throws {
        var log = Self.experimentLog()
        for k in 0..<200 { log.conversation(flow: "w", variant: "c", blocks: ["hi"], answered: 1, end: k < 50 ? "completed" : "closed") }
        for v in [9, 10, 10, 9, 10, 7, 8, 0, 6, 3] { ReportAnswerTests.rated(&log, v) }
        ReportAnswerTests.answered(&log, [[(0, "Tea")], [(1, "Coffee")], [(0, "Tea")], [(0, "Tea")], [(0, "Tea")], [(0, "Tea")]])
        var builder = ReportBuilder(by: .variant)
        builder.window = ReportWindow(since: 0, until: 1_796_083_230.5)
        for (k, line) in log.lines.enumerated() { try builder.addLine(Array(line.utf8), input: 0, line: k + 1) }
        builder.finishInput(0)
        let report = builder.report(ReportOptions(minCount: 5))
        #expect(report.flows.count >= 2 && report.flows.contains { $0.variants.contains { $0.comparison?.holmPValue != nil } })
        #expect(report.flows.contains { $0.variants.contains { $0.blocks.contains { $0.rating?.netPromoter != nil } } })
        let read = try #require(Report(json: Array(report.json.utf8)))
        #expect(read.json == report.json)
        #expect(read.html == report.html)
        #expect(read.window == ReportWindow(since: 0, until: 1_796_083_230), "the JSON's bound is to the second")
        // Not a report: nil, never a trap.
        let json = report.json
        func with(_ old: String, _ new: String) -> String { json.replacingAll(old, with: new) }
        for bad in [
            "", "[]", "{}", "null", #"{"flows":[]}"#, String(json.dropLast()), with(#""by":"variant""#, #""by":"month""#),
            with(#""starts":200"#, #""starts":-1"#),
            with(#""starts":200"#, #""starts":"200""#),
            with(#""ci95":["#, #""ci95":[1,"#),
            with(#""scale":[0,10]"#, #""scale":[10,0]"#),
            with(#""since":"1970-01-01""#, #""since":"yesterday""#),
        ] {
            #expect(Report(json: Array(bad.utf8)) == nil, "\(bad.prefix(80))")
        }
        #expect(json.contains(#""since":"1970-01-01""#) && json.contains(#""scale":[0,10]"#))
    }

    @Test("expression errors are counted by place, once a conversation, the places most met first; hidden under minCount; said in every format")
    func errors() throws {
        var log = LogWriter()
        func error(_ id: String?, _ path: String, _ code: String) -> String {
            #"{"at":1700000000,"event":"expressionError","# + (id.map { #""id":"\#($0)","# } ?? "") + #""path":"\#(path)","code":"\#(code)","message":"m"}"#
        }
        for k in 0..<12 {
            log.add(#"{"at":1700000000,"event":"started","flow":"f"}"#)
            log.add(error("s", "set.ratio", "division-by-zero"))
            if k < 3 { log.add(error("c", "branches[0].if", "type")) }
            log.add(error("s", "set.ratio", "division-by-zero"))  // twice in one conversation: counted once
            if k == 0 { log.add(error(nil, "", "conversation-too-long")) }
            log.add(#"{"at":1700000001,"event":"dismissed","reason":"completed","count":0,"ids":[]}"#)
        }
        // Before any start: not a conversation's, not counted.
        log.add(error("z", "", "loop"))
        let report = try log.build(minCount: 3)
        let v = try #require(report.flows.first?.variants.first)
        #expect(
            v.errors == [
                ErrorReport(block: "s", path: "set.ratio", code: "division-by-zero", conversations: 12),
                ErrorReport(block: "c", path: "branches[0].if", code: "type", conversations: 3),
                ErrorReport(block: "", path: "", code: "conversation-too-long", conversations: nil),
            ])
        #expect(report.flows.count == 1, "the record before a start made no flow of its own")
        #expect(report.json.contains(#""errors":[{"block":"s","path":"set.ratio","code":"division-by-zero","conversations":12},"#))
        #expect(try #require(Report(json: Array(report.json.utf8))).json == report.json)
        #expect(report.html.contains("<h3>Errors: (all)</h3>"), "\(report.html.suffix(800))")
        #expect(report.html.contains(#"<tr><th scope="row">s</th><td class="words">set.ratio</td><td class="words">division-by-zero</td><td>12</td></tr>"#))
        // A hostile file cannot make the report keep more than its places.
        var many = LogWriter()
        many.add(#"{"at":1700000000,"event":"started","flow":"f"}"#)
        for k in 0..<500 { many.add(error("b\(k)", "", "type")) }
        let bounded = try #require(try many.build().flows.first?.variants.first)
        #expect(bounded.errors.count <= 101 && bounded.errors.contains { $0.code == "other" })
    }

    @Test("A known funnel is counted exactly: reached, answered, dropped, medians, dismissals")
    func knownFunnel() throws {
        var log = LogWriter()
        // 50 complete (answer a in 2 s, b in 4 s, c in 1 s); 30 close at b; 20 close at a; 5 never end, at c.
        for _ in 0..<50 { log.conversation(flow: "welcome", blocks: ["a", "b", "c"], answered: 3, seconds: [2, 4, 1], end: "completed") }
        for _ in 0..<30 { log.conversation(flow: "welcome", blocks: ["a", "b"], answered: 1, seconds: [6], end: "closed") }
        for _ in 0..<20 { log.conversation(flow: "welcome", blocks: ["a"], answered: 0, end: "closed") }
        for _ in 0..<5 { log.conversation(flow: "welcome", blocks: ["a", "b", "c"], answered: 2, seconds: [2, 4], end: nil) }
        let report = try log.build()
        #expect(report.flows.count == 1)
        let v = try #require(report.flows.first?.variants.first)
        #expect(v.variant == "" && v.exposures == 0 && v.starts == 105 && v.completions == 50 && v.comparison == nil)
        #expect(v.dismissals.map(\.reason) == ["closed", "completed"] && v.dismissals.map(\.count) == [50, 50])
        #expect(v.blocks.map(\.id) == ["a", "b", "c"])
        #expect(v.blocks.map(\.reached) == [105, 85, 55])
        #expect(v.blocks.map(\.answered) == [85, 55, 50])
        #expect(v.blocks.map(\.dropped) == [20, 30, 5])
        // a: 55 answers in 2 s and 30 in 6 s → 2; b: 55 in 4 s; c: 50 in 1 s.
        #expect(v.blocks.map(\.medianSecondsToAnswer) == [2, 4, 1])
        #expect(v.completionRate == 50.0 / 105.0)
        // No experiment, no exposures: neither the page nor the table has a column that would read 0.
        #expect(report.flows[0].hasExposures == false && !report.html.contains("Exposures"))
    }

    @Test("Variants and the holdout: exposures, comparisons against the first variant or --against, hidden small counts")
    func experiment() throws {
        var log = Self.experimentLog()
        let report = try log.build(minCount: 5)
        let variants = try #require(report.flows.first?.variants)
        #expect(variants.map(\.variant) == ["a", "b", "holdout"])
        #expect(variants[0].exposures == 200 && variants[0].starts == 200 && variants[0].completions == 40)
        #expect(variants[0].comparison == nil, "the reference has no comparison")
        let c = try #require(variants[1].comparison)
        #expect(c.against == "a")
        let expected = try #require(ProportionComparison(successes: 60, trials: 200, againstSuccesses: 40, againstTrials: 200))
        #expect(c.statistics == expected)
        // 3 holdout exposures: under 5, hidden; and too few to compare.
        #expect(variants[2].exposures == nil && variants[2].comparison == nil)
        #expect(report.flows[0].hasExposures && report.html.contains("<th scope=\"col\">Exposures</th>"))
        // The holdout is never compared against a variant (it completes nothing by construction).
        for _ in 0..<10 { log.add(#"{"at":1,"event":"exposure","experiment":"x","variant":"holdout","shown":false,"flow":"w"}"#) }
        #expect(try log.build(minCount: 5).flows[0].variants[2].comparison == nil)
        let all = try log.build(minCount: 1, against: "holdout")
        let vs = try #require(all.flows.first?.variants)
        #expect(vs[2].exposures == 13 && vs[2].starts == 0 && vs[2].comparison == nil)
        #expect(vs[0].comparison?.against == "holdout" && vs[0].comparison?.statistics.difference == 0.2)
        // The JSON has the documented shape.
        let json = report.json
        #expect(json.hasPrefix(#"{"flows":[{"flow":"w","variants":[{"variant":"a","exposures":200,"starts":200,"completions":40,"completionRate":0.2,"#))
        #expect(json.contains(#""comparison":null,"errors":[]}"#) && json.contains(#""comparison":{"against":"a","difference":0.1,"ci95":["#))
        #expect(json.contains(#""variant":"holdout","exposures":null,"starts":0"#))
        #expect(json.hasSuffix(#""records":\#(log.lines.count - 10),"minCount":5,"by":"variant","since":null,"until":null}"#))
    }

    @Test("By version: a row per version of the flow in the order first started (not by name), compared with the oldest; exposures and variants set aside")
    func byVersion() throws {
        var log = LogWriter()
        // The first version ("ffff…", started first): 30 of 100 complete. The edit ("0000…"):
        // 45 of 100. Both in an experiment, whose variants a version report sets aside.
        for k in 0..<100 {
            log.conversation(
                flow: "w", variant: k % 2 == 0 ? "a" : "b", blocks: ["hi", "bye"], answered: k < 30 ? 2 : 1, end: k < 30 ? "completed" : "closed",
                version: "ffffffffffff")
        }
        for k in 0..<100 {
            log.conversation(
                flow: "w", variant: k % 2 == 0 ? "a" : "b", blocks: ["hi", "new", "bye"], answered: k < 45 ? 3 : 1, end: k < 45 ? "completed" : "closed",
                version: "000000000000")
        }
        // Records written before versions were: their own row.
        log.conversation(flow: "w", blocks: ["hi"], answered: 1, end: "completed")
        let report = try log.build(by: .version)
        #expect(report.grouping == .version)
        let rows = try #require(report.flows.first?.variants)
        #expect(rows.map(\.variant) == ["ffffffffffff", "000000000000", ""])
        #expect(rows.map(\.starts) == [100, 100, 1] && rows.map(\.completions) == [30, 45, 1])
        #expect(rows.allSatisfy { $0.exposures == 0 })
        #expect(rows[0].comparison == nil && rows[1].comparison?.against == "ffffffffffff")
        #expect(abs((rows[1].comparison?.statistics.difference ?? 0) - 0.15) < 1e-9)
        #expect(rows[1].blocks.map(\.id) == ["hi", "new", "bye"] && rows[0].blocks.map(\.id) == ["hi", "bye"])
        #expect(report.json.hasSuffix(#""by":"version","since":null,"until":null}"#))
        // Against a version named.
        let against = try log.build(against: "000000000000", by: .version)
        #expect(against.flows.first?.variants.first?.comparison?.against == "000000000000")
        // By variant (the default), the same records give the experiment's variants.
        #expect(try log.build().flows.first?.variants.map(\.variant) == ["", "a", "b"])
    }

    @Test("By day and by week: a row per UTC day or week (named by its Monday) the conversations started in, oldest first, compared with the oldest")
    func byDayAndWeek() throws {
        var log = LogWriter()
        // Thursday 2026-12-03 (3 of 10 complete), Saturday 2026-12-05 (6 of 10), Monday 2026-12-07 (9 of 10).
        for (day, completed) in [(Double(1_796_256_000), 3), (1_796_428_800, 6), (1_796_601_600, 9)] {
            log.clock = day + 3600
            for k in 0..<10 { log.conversation(flow: "w", variant: "a", blocks: ["hi"], answered: 1, end: k < completed ? "completed" : "closed") }
        }
        let days = try log.build(minCount: 1, by: .day)
        let rows = try #require(days.flows.first?.variants)
        #expect(rows.map(\.variant) == ["2026-12-03", "2026-12-05", "2026-12-07"], "\(rows.map(\.variant))")
        #expect(rows.map(\.completions) == [3, 6, 9] && rows.allSatisfy { $0.exposures == 0 })
        #expect(rows[0].comparison == nil && rows[2].comparison?.against == "2026-12-03")
        #expect(abs((rows[2].comparison?.statistics.difference ?? 0) - 0.6) < 1e-9)
        #expect(days.json.hasSuffix(#""by":"day","since":null,"until":null}"#))
        let weeks = try #require(try log.build(minCount: 1, by: .week).flows.first?.variants)
        #expect(weeks.map(\.variant) == ["2026-11-30", "2026-12-07"] && weeks.map(\.starts) == [20, 10], "\(weeks.map(\.variant))")
        #expect(ReportGrouping.week.period(of: 0) == "1969-12-29" && ReportGrouping.week.period(of: -1) == "1969-12-29")
        #expect(ReportGrouping.day.period(of: .nan) == "" && ReportGrouping.day.period(of: 1e300) == "" && ReportGrouping.version.period(of: 0) == "")
        #expect(ReportFormat.variantName("", by: .week) == "(no time)")
    }

    @Test("A window of beginnings: a conversation counts whole or not at all, with or without its conversation field, from a file or a store")
    func window() throws {
        func line(_ text: String) -> [UInt8] { Array(text.utf8) }
        // One after another without a conversation field: an exposure then its start, at 100
        // (outside), then one at 200 (inside), which completes at 400 (past the window's end).
        var b = ReportBuilder()
        b.window = ReportWindow(since: 150, until: 300)
        let lines = [
            #"{"at":100,"event":"exposure","flow":"f","variant":"a"}"#, #"{"at":101,"event":"started","flow":"f","variant":"a"}"#,
            #"{"at":102,"event":"blockAdded","index":0,"id":"q"}"#, #"{"at":103,"event":"dismissed","reason":"completed"}"#,
            #"{"at":200,"event":"exposure","flow":"f","variant":"b"}"#, #"{"at":201,"event":"started","flow":"f","variant":"b"}"#,
            #"{"at":202,"event":"blockAdded","index":0,"id":"q"}"#, #"{"at":400,"event":"tapped","index":0}"#,
            #"{"at":401,"event":"dismissed","reason":"completed"}"#,
            #"{"event":"started","flow":"f","variant":"c"}"#,
        ]
        for (k, text) in lines.enumerated() { try b.addLine(line(text), input: 0, line: k + 1) }
        b.finishInput(0)
        let report = b.report(ReportOptions(minCount: 1))
        let variants = try #require(report.flows.first?.variants)
        #expect(variants.map(\.variant) == ["b"], "the one outside, and the one without a time, are not counted at all")
        #expect(variants[0].exposures == 1 && variants[0].starts == 1 && variants[0].completions == 1)
        #expect(report.records == lines.count && report.window == ReportWindow(since: 150, until: 300))
        // From a store, by conversation: the same rule.
        var s = ReportBuilder()
        s.window = ReportWindow(until: 150)
        for (id, at) in [("x", 100.0), ("y", 200.0)] {
            try s.add(line(#"{"at":\#(at),"event":"started","flow":"f"}"#), conversation: id, flow: "f", line: 1)
            try s.add(line(#"{"at":\#(at + 1),"event":"blockAdded","index":0,"id":"q"}"#), conversation: id, flow: "f", line: 2)
            s.finishConversation(id)
        }
        #expect(s.report(ReportOptions(minCount: 1)).flows.first?.variants.first?.starts == 1)
        #expect(ReportWindow(since: 150, until: 300).phrase == "from 1970-01-01T00:02:30Z to 1970-01-01T00:05:00Z")
        #expect(ReportWindow(since: 1_796_083_200).phrase == "from 2026-12-01" && ReportWindow(until: 1_796_083_200.5).phrase == "before 2026-12-01T00:00:00Z")
    }

    @Test("Conversations interleaved by their conversation field, and one after another without it")
    func grouping() throws {
        var a = LogWriter(), b = LogWriter()
        a.conversation(flow: "f", blocks: ["x", "y"], answered: 2, end: "completed", conversation: "c1")
        b.conversation(flow: "f", blocks: ["x", "y"], answered: 0, end: "closed", conversation: "c2")
        var mixed = LogWriter()
        for k in 0..<max(a.lines.count, b.lines.count) {
            if k < a.lines.count { mixed.add(a.lines[k]) }
            if k < b.lines.count { mixed.add(b.lines[k]) }
        }
        let v = try #require(try mixed.build().flows.first?.variants.first)
        #expect(v.starts == 2 && v.completions == 1 && v.blocks.map(\.reached) == [2, 1] && v.blocks.map(\.dropped) == [1, 0])
        // Without ids: each `started` begins the next conversation (rocket play >> file).
        var plain = LogWriter()
        plain.conversation(flow: "f", blocks: ["x", "y"], answered: 2, end: "completed")
        plain.conversation(flow: "f", blocks: ["x", "y"], answered: 1, end: nil)
        plain.conversation(flow: "g", variant: "v", blocks: ["z"], answered: 1, end: "completed")
        let r = try plain.build()
        #expect(r.flows.map(\.flow) == ["f", "g"])
        #expect(r.flows[0].variants[0].blocks.map(\.dropped) == [0, 1], "the unfinished one dropped at y")
        #expect(r.flows[1].variants.map(\.variant) == ["v"] && r.flows[1].variants[0].exposures == 1 && r.flows[1].variants[0].starts == 1)
    }

    @Test("A wrong record names its line and column; limits hold; the rest of a hostile file never traps")
    func hostileInput() throws {
        var b = ReportBuilder()
        do {
            try b.addLine(Array(#"{"event":}"#.utf8), input: 0, line: 3)
            Issue.record("bad JSON is refused")
        } catch { #expect(error.line == 3 && error.column == 10 && error.message.contains("expected a value")) }
        do {
            try b.addLine(Array("[1]".utf8), input: 0, line: 4)
            Issue.record("an array is refused")
        } catch { #expect(error.line == 4 && error.message.contains("object")) }
        do {
            try b.addLine(Array(#"{"at":1}"#.utf8), input: 0, line: 5)
            Issue.record("a record without event is refused")
        } catch { #expect(error.message.contains("event")) }
        do {
            try b.addLine(Array(#"{"event":"blockAdded","index":-1}"#.utf8), input: 0, line: 6)
            Issue.record("a negative index is refused")
        } catch { #expect(error.message.contains("index")) }
        try b.addLine(Array("   ".utf8), input: 0, line: 7)
        try b.addLine(Array(#"{"event":"somethingNew","x":[1,2]}"#.utf8), input: 0, line: 8)
        try b.addLine(Array(#"{"event":"tapped","index":99}"#.utf8), input: 0, line: 9)  // an answer to nothing shown
        let long = Array(#"{"event":""#.utf8) + [UInt8](repeating: 0x61, count: RocketLimits.reportRecordBytes) + Array(#""}"#.utf8)
        #expect(throws: ReportInputError.self) { try b.addLine(long, input: 0, line: 10) }
        // Many different block ids: refused past the limit, with the line.
        var many = ReportBuilder()
        try many.addLine(Array(#"{"event":"started","flow":"f"}"#.utf8), input: 0, line: 1)
        var refused: ReportInputError?
        for k in 0...RocketLimits.reportBlocks {
            do { try many.addLine(Array(#"{"event":"blockAdded","index":\#(k),"id":"b\#(k)"}"#.utf8), input: 0, line: k + 2) } catch {
                refused = error
                break
            }
        }
        #expect(refused?.line == RocketLimits.reportBlocks + 2)
    }

    @Test("The page: self-contained, escaped, charts labelled")
    func page() throws {
        var log = LogWriter()
        for k in 0..<20 {
            log.conversation(
                flow: "<script>alert(1)</script>", variant: k % 2 == 0 ? "a\u{202E}fdp.exe" : "b", blocks: ["q&a"], answered: 1,
                end: k < 12 ? "completed" : "closed")
        }
        let html = try log.build(minCount: 1).html
        #expect(!html.contains("<script>") && html.contains("&lt;script&gt;") && html.contains("q&amp;a"))
        #expect(!html.unicodeScalars.contains("\u{202E}") && html.contains("a\u{FFFD}fdp.exe"), "a bidirectional override is shown as on a terminal")
        #expect(!html.contains("http://") && !html.contains("https://") && !html.contains(" src="), "nothing fetched")
        #expect(html.split(separator: "<svg role=\"img\"", omittingEmptySubsequences: false).count == 4, "a comparison chart and a funnel per variant")
        #expect(html.contains("<title id=\"chart1-title\">Differences in completion rate"))
    }

    @Test("The page writes a hidden count and a tiny p-value as text (&lt;5, &lt;0.001): every < on it begins one of its own tags")
    func pageLessThan() throws {
        var log = LogWriter()
        // 300 of variant a complete, none of b: p < 0.001; three of c, under a minimum of 5.
        for k in 0..<600 { log.conversation(flow: "f", variant: k % 2 == 0 ? "a" : "b", blocks: ["q"], answered: 1, end: k % 2 == 0 ? "completed" : "closed") }
        for _ in 0..<3 { log.conversation(flow: "f", variant: "c", blocks: ["q"], answered: 1, end: "completed") }
        let report = try log.build(minCount: 5, against: "b")
        #expect(report.flows.first?.variants.contains { $0.comparison?.statistics.pValue ?? 1 < 0.001 } == true)
        let html = report.html
        #expect(html.contains("&lt;5") && html.contains("&lt;0.001"))
        let tags = html.split(separator: "<", omittingEmptySubsequences: false).dropFirst()
        let raw = tags.filter { t in !(t.first.map { $0.isLetter || $0 == "/" || $0 == "!" } ?? false) }
        #expect(raw.isEmpty, "a < that begins no tag: \(raw.prefix(3).map { String($0.prefix(20)) })")
    }

    @Test("Medians: odd and even counts, and unordered input")
    func medians() throws {
        var log = LogWriter()
        for s in [5.0, 1, 3, 2] { log.conversation(flow: "m", blocks: ["a"], answered: 1, seconds: [s], end: "completed") }
        #expect(try log.build().flows[0].variants[0].blocks[0].medianSecondsToAnswer == 2.5)
        log.conversation(flow: "m", blocks: ["a"], answered: 1, seconds: [100], end: "completed")
        #expect(try log.build().flows[0].variants[0].blocks[0].medianSecondsToAnswer == 3)
    }
}

@Suite("Reports: which options were chosen")
struct ReportAnswerTests {
    /// A conversation of `flow` that shows `block` of `type` at place 0 and answers it with each
    /// of `answers` in turn (options' places and titles), then ends completed.
    static func answered(_ log: inout LogWriter, block: String = "pick", type: String = "choice", _ answers: [[(Int, String)]], id: String? = nil) {
        let tail = id.map { #","conversation":"\#($0)""# } ?? ""
        log.add(#"{"at":1,"event":"started","flow":"f"\#(tail)}"#)
        log.add(#"{"at":1,"event":"blockAdded","index":0,"id":"\#(block)","type":"\#(type)"\#(tail)}"#)
        for chosen in answers {
            let places = chosen.map { String($0.0) }.joined(separator: ",")
            let title = chosen.map(\.1).joined(separator: ", ")
            let titles = chosen.count > 1 ? #","titles":[\#(chosen.map { "\"\($0.1)\"" }.joined(separator: ","))]"# : ""
            log.add(#"{"at":2,"event":"buttonPressed","index":0,"id":"\#(block)","title":"\#(title)","options":[\#(places)]\#(titles)\#(tail)}"#)
        }
        log.add(#"{"at":3,"event":"dismissed","reason":"completed","count":1,"ids":["\#(block)"]\#(tail)}"#)
    }

    @Test("each option is counted once per conversation, by the conversation's last answer; a multiple choice counts each option it took")
    func counts() throws {
        var log = LogWriter()
        for _ in 0..<6 { Self.answered(&log, [[(0, "Red")]]) }
        for _ in 0..<5 { Self.answered(&log, [[(0, "Red")], [(1, "Blue")]]) }  // changed their mind: Blue
        for _ in 0..<7 { Self.answered(&log, block: "many", [[(0, "A"), (2, "C")]]) }
        let blocks = try log.build(minCount: 5).flows[0].variants[0].blocks
        let pick = try #require(blocks.first { $0.id == "pick" })
        #expect(pick.answers == [OptionReport(option: 0, title: "Red", count: 6), OptionReport(option: 1, title: "Blue", count: 5)])
        #expect(pick.type == "choice")
        let many = try #require(blocks.first { $0.id == "many" })
        #expect(many.answers == [OptionReport(option: 0, title: "A", count: 7), OptionReport(option: 2, title: "C", count: 7)])
        #expect(ReportFormat.answerShare(many.answers[0], of: many) == 1)
        // The page draws a chart per block (bars by share) beside the table.
        let html = try log.build(minCount: 5).html
        #expect(html.contains("Answers to pick</title>") && html.contains("Answers to many</title>"))
        #expect(html.contains("A: 7 (100.0 %)") && html.contains(#"<rect class="answer" x="0" y="21" width="100.0%""#))
    }

    @Test("an option is named only by a title at least minCount conversations saw; a title filled from a visitor's value is not shown")
    func titlesAreCounted() throws {
        var log = LogWriter()
        // A title with each visitor's name in it: one option, twelve titles.
        for k in 0..<12 { Self.answered(&log, block: "hi", type: "button", [[(0, "Go, visitor\(k)")]]) }
        for _ in 0..<3 { Self.answered(&log, block: "side", type: "doubleButton", [[(1, "Yes")]]) }
        for _ in 0..<5 { Self.answered(&log, block: "side", type: "doubleButton", [[(0, "No")]]) }
        let report = try log.build(minCount: 5)
        let blocks = report.flows[0].variants[0].blocks
        let hi = try #require(blocks.first { $0.id == "hi" })
        #expect(hi.answers == [OptionReport(option: 0, title: nil, count: 12)])
        #expect(ReportFormat.optionName(hi.answers[0], of: hi) == "the button")
        let side = try #require(blocks.first { $0.id == "side" })
        #expect(side.answers == [OptionReport(option: 0, title: "No", count: 5), OptionReport(option: 1, title: nil, count: nil)])
        #expect(ReportFormat.optionName(side.answers[1], of: side) == "right")
        #expect(!report.json.contains("visitor"), "no visitor's title reaches the report")
        #expect(!report.html.contains("visitor"))
        // A block whose counts are all hidden draws no chart (its table rows say <5).
        var hidden = LogWriter()
        for _ in 0..<3 { Self.answered(&hidden, [[(0, "Red")]]) }
        #expect(!(try hidden.build(minCount: 5).html.contains("Answers to pick</title>")))
        // With every count shown, every title a conversation saw may name its option: the most seen.
        let all = try log.build(minCount: 1).flows[0].variants[0].blocks
        #expect(all.first { $0.id == "side" }?.answers.map(\.title) == ["No", "Yes"])
    }

    @Test("a rating's options are named by their numbers however few chose them, so a scale from 0 reads right")
    func ratingNumbers() throws {
        var log = LogWriter()
        for _ in 0..<2 { Self.answered(&log, block: "nps", type: "rating", [[(0, "0")]]) }
        for _ in 0..<6 { Self.answered(&log, block: "nps", type: "rating", [[(10, "10")]]) }
        // A title that is not a number (a hand-written record) is still counted as titles are.
        Self.answered(&log, block: "nps", type: "rating", [[(3, "three")]])
        let nps = try #require(try log.build(minCount: 5).flows[0].variants[0].blocks.first { $0.id == "nps" })
        #expect(nps.answers.map(\.title) == ["0", nil, "10"], "\(nps.answers)")
        #expect(nps.answers.map { ReportFormat.optionName($0, of: nps) } == ["0", "4", "10"])
    }

    /// A conversation answering a rating `value` on the scale `scale` (nil: a record before scales).
    static func rated(_ log: inout LogWriter, _ value: Int, scale: ClosedRange<Int>? = 0...10) {
        let s = scale.map { #","scale":[\#($0.lowerBound),\#($0.upperBound)]"# } ?? ""
        log.add(#"{"at":1,"event":"started","flow":"f"}"#)
        log.add(#"{"at":1,"event":"blockAdded","index":0,"id":"nps","type":"rating"\#(s)}"#)
        let option = value - (scale?.lowerBound ?? 1)
        log.add(#"{"at":2,"event":"buttonPressed","index":0,"id":"nps","title":"\#(value)","options":[\#(option)]}"#)
        log.add(#"{"at":3,"event":"dismissed","reason":"completed","count":1,"ids":["nps"]}"#)
    }

    @Test("a 0–10 rating's Net Promoter Score: promoters' share less detractors', with the mean; hidden below minCount; none without the scale")
    func netPromoterScore() throws {
        var log = LogWriter()
        for v in [9, 10, 10, 9, 10, 9, 10, 10, 9, 10] { Self.rated(&log, v) }  // 10 promoters
        for v in [7, 8, 8, 7, 8] { Self.rated(&log, v) }  // 5 passives
        for v in [0, 6, 3, 0, 5] { Self.rated(&log, v) }  // 5 detractors
        let report = try log.build(minCount: 5)
        let nps = try #require(report.flows[0].variants[0].blocks.first { $0.id == "nps" })
        let r = try #require(nps.rating)
        #expect(r.answers == 20 && r.scale == 0...10)
        #expect(abs(r.mean - 148.0 / 20) < 1e-9, "\(r.mean)")
        #expect(r.netPromoter == NetPromoterScore(score: 25, promoters: 10, passives: 5, detractors: 5))
        #expect(ReportFormat.rating(r, minCount: 5) == "mean 7.4 of 0–10 from 20 answers; NPS +25 (10 promoters, 5 passives, 5 detractors)")
        #expect(
            report.json.contains(#""rating":{"answers":20,"mean":7.4,"scale":[0,10],"nps":{"score":25,"promoters":10,"passives":5,"detractors":5}}"#),
            "\(report.json)")
        #expect(report.html.contains("<strong>nps</strong>: mean 7.4 of 0–10 from 20 answers; NPS +25"))
        // A group under minCount is hidden, as any count; the score still shows once enough answered.
        var few = LogWriter()
        for _ in 0..<6 { Self.rated(&few, 3) }
        Self.rated(&few, 10)
        let fewNPS = try #require(try few.build(minCount: 5).flows[0].variants[0].blocks[0].rating?.netPromoter)
        #expect(fewNPS.promoters == nil && fewNPS.detractors == 6 && fewNPS.passives == 0 && Int(fewNPS.score.rounded()) == -71)
        #expect(ReportFormat.score(fewNPS.score) == "-71" && ReportFormat.score(0) == "0")
        // Fewer answers than minCount: no summary at all.
        #expect(try few.build(minCount: 8).flows[0].variants[0].blocks[0].rating == nil)
        // A scale from 1 to 10 has a mean and no score; records without a scale neither.
        var tens = LogWriter()
        for v in [1, 10, 10, 9, 5] { Self.rated(&tens, v, scale: 1...10) }
        let ten = try #require(try tens.build(minCount: 1).flows[0].variants[0].blocks[0].rating)
        #expect(ten.netPromoter == nil && ten.mean == 7 && ten.scale == 1...10)
        var old = LogWriter()
        for v in [1, 9] { Self.rated(&old, v, scale: nil) }
        let unscaled = try #require(try old.build(minCount: 1).flows[0].variants[0].blocks[0].rating)
        #expect(unscaled.netPromoter == nil && unscaled.scale == nil && unscaled.mean == 5)
        // A hostile scale is ignored, never trusted.
        var bad = LogWriter()
        bad.add(#"{"at":1,"event":"started","flow":"f"}"#)
        bad.add(#"{"at":1,"event":"blockAdded","index":0,"id":"nps","type":"rating","scale":[0,1e300]}"#)
        bad.add(#"{"at":2,"event":"buttonPressed","index":0,"id":"nps","title":"3","options":[3]}"#)
        #expect(try bad.build(minCount: 1).flows[0].variants[0].blocks[0].rating?.scale == nil)
    }

    @Test("records without options (written before they existed) are answered but name no option; wrong options are an error at their place")
    func oldAndWrongRecords() throws {
        var old = LogWriter()
        old.add(#"{"at":1,"event":"started","flow":"f"}"#)
        old.add(#"{"at":1,"event":"blockAdded","index":0,"id":"pick","type":"choice"}"#)
        old.add(#"{"at":2,"event":"buttonPressed","index":0,"id":"pick","title":"Red"}"#)
        let block = try old.build().flows[0].variants[0].blocks[0]
        #expect(block.answered == 1 && block.answers.isEmpty)
        for (options, column) in [(#""x""#, 67), (#"[-1]"#, 67), (#"[1.5]"#, 67), (#"[100]"#, 67), (#"["a"]"#, 67)] {
            var b = ReportBuilder()
            try b.addLine(Array(#"{"at":1,"event":"blockAdded","index":0,"id":"pick","type":"choice"}"#.utf8), input: 0, line: 1)
            let line = #"{"at":2,"event":"buttonPressed","index":0,"id":"pick","title":"Red","options":\#(options)}"#
            #expect(throws: ReportInputError.self) { try b.addLine(Array(line.utf8), input: 0, line: 2) }
            do {
                try b.addLine(Array(line.utf8), input: 0, line: 2)
            } catch {
                #expect(error.line == 2 && error.column == column, "\(options): \(error)")
                #expect(error.message.contains("\"options\""))
            }
        }
    }

    @Test("titles kept to name options are bounded: four per option, 256 bytes each")
    func titlesBounded() throws {
        var log = LogWriter()
        let long = String(repeating: "x", count: 300)
        for _ in 0..<5 { Self.answered(&log, [[(0, long)]]) }
        for k in 0..<40 {
            for _ in 0..<5 { Self.answered(&log, block: "many", [[(0, "t\(k)")]]) }
        }
        let blocks = try log.build(minCount: 5).flows[0].variants[0].blocks
        #expect(blocks.first { $0.id == "pick" }?.answers == [OptionReport(option: 0, title: nil, count: 5)])
        let many = try #require(blocks.first { $0.id == "many" }?.answers.first)
        #expect(many.count == 200)
        #expect(["t0", "t1", "t2", "t3"].contains(many.title ?? ""), "one of the first four kept")
    }
}
