import Foundation
import Testing
@testable import RocketCLI

@Suite("rocket report")
struct ReportCLITests {
    @Test("Runs of examples/nps.json: its records give the scale, and the report says the Net Promoter Score")
    func netPromoterScore() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let nps = root.appendingPathComponent("examples/nps.json").path
        var log = ""
        // Two promoters, a passive and two detractors (one of them a 0): (2 − 2) / 5 = 0; mean 5.6.
        for input in ["10\nFast\n\n", "9\n\n\n", "7\nMore\n\n", "0\nAll\n\n", "2\nPrice\n\n"] {
            let r = try runRocket(["play", nps, "--instant", "--events", "-"], stdin: input)
            #expect(r.status == 0, "\(r.stderr)")
            log += r.stdout
        }
        #expect(log.contains(#""type":"rating","scale":[0,10]"#), "\(log)")
        let dir = scratchDirectory()
        try log.write(toFile: dir + "/events.jsonl", atomically: true, encoding: .utf8)
        let table = try runRocket(["report", dir + "/events.jsonl", "--min-count", "1"])
        #expect(table.stdout.contains("score: mean 5.6 of 0–10 from 5 answers; NPS 0 (2 promoters, 1 passive, 2 detractors)"), "\(table.stdout)")
        let json = try runRocket(["report", dir + "/events.jsonl", "--json", "--min-count", "1"])
        #expect(json.stdout.contains(#""nps":{"score":0,"promoters":2,"passives":1,"detractors":2}"#), "\(json.stdout)")
    }

    @Test("--format markdown: the same report as GitHub tables, every text from the records escaped; --format json is --json")
    func markdown() throws {
        let dir = scratchDirectory()
        write(
            """
            {"version": 1, "blocks": [
              {"id": "ask", "type": "doubleButton", "left": {"title": "<img src=x onerror=alert(1)>|*b*", "next": "bye"}, "right": {"title": "[No](http://x)"}},
              {"id": "bye", "type": "text", "text": "Bye"}]}
            """, to: dir + "/t.json")
        var log = ""
        for input in ["1\n\n", "1\n\n", "2\n"] { log += try runRocket(["play", dir + "/t.json", "--instant", "--events", "-"], stdin: input).stdout }
        try log.write(toFile: dir + "/e.jsonl", atomically: true, encoding: .utf8)
        let md = try runRocket(["report", dir + "/e.jsonl", "--min-count", "1", "--format", "markdown"])
        #expect(md.status == 0 && md.stderr.isEmpty, "\(md.stderr)")
        #expect(
            md.stdout.hasPrefix(
                "\(log.split(separator: "\n").count) event records read\n\n## Flow t\n\n| variant | starts | completions | rate |\n| :-- | --: | --: | --: |\n"),
            "\(md.stdout)")
        #expect(md.stdout.contains("### Funnel (all)\n\n| block | reached | answered | dropped here | median answer |\n"))
        #expect(md.stdout.contains(#"| ask | \<img src=x onerror=alert(1)\>\|\*b\* | 2 | 66.7 % |"#), "\(md.stdout)")
        #expect(md.stdout.contains(#"| ask | \[No\](http://x) | 1 | 33.3 % |"#), "\(md.stdout)")
        // Every row of a table has as many columns (unescaped bars) as its head.
        for table in md.stdout.components(separatedBy: "\n\n") where table.hasPrefix("|") {
            let bars = table.split(separator: "\n").map { line in
                zip(line, [" "] + line.dropLast()).filter { $0.0 == "|" && $0.1 != "\\" }.count
            }
            #expect(Set(bars).count == 1, "\(table)")
        }
        #expect(md.stdout.contains("\ndismissed: completed 3\n"), "\(md.stdout)")
        // As --json, and refused with it or with --html - (both on stdout); --html FILE prints it too.
        #expect(try runRocket(["report", dir + "/e.jsonl", "--format", "json"]).stdout == runRocket(["report", dir + "/e.jsonl", "--json"]).stdout)
        let wrong = try runRocket(["report", dir + "/e.jsonl", "--format", "md"])
        #expect(wrong.status == 64 && wrong.stderr.contains("'--format md' must be text, json or markdown"), "\(wrong.stderr)")
        #expect(try runRocket(["report", dir + "/e.jsonl", "--json", "--format", "markdown"]).status == 64)
        #expect(try runRocket(["report", dir + "/e.jsonl", "--format", "markdown", "--html", "-"]).status == 64)
        let both = try runRocket(["report", dir + "/e.jsonl", "--min-count", "1", "--format", "markdown", "--html", dir + "/r.html"])
        #expect(both.status == 0 && both.stdout == md.stdout && FileManager.default.fileExists(atPath: dir + "/r.html"))
        #expect(try runRocket(["report", dir + "/e.jsonl", "--html", dir + "/r2.html"]).stdout.isEmpty, "nothing asked, nothing printed")
    }

    @Test("--since and --until: only the conversations begun in the window count, each whole; the window is said in every format")
    func window() throws {
        let dir = scratchDirectory()
        let day = 86_400.0, now = Date().timeIntervalSince1970
        // a began two days before 2026-12-01 ends and ends after it; b on 2026-12-01; c ten days ago; d an hour ago.
        var lines: [String] = []
        func conversation(_ id: String, _ at: Double, completes: Bool, endsAt: Double? = nil) {
            lines.append(#"{"conversation":"\#(id)","at":\#(at),"event":"started","flow":"f"}"#)
            lines.append(#"{"conversation":"\#(id)","at":\#(at + 1),"event":"blockAdded","index":0,"id":"q"}"#)
            if completes {
                lines.append(#"{"conversation":"\#(id)","at":\#(endsAt ?? at + 2),"event":"tapped","index":0}"#)
                lines.append(#"{"conversation":"\#(id)","at":\#(endsAt ?? at + 2),"event":"dismissed","reason":"completed"}"#)
            }
        }
        let dec1 = 1_796_083_200.0  // 2026-12-01T00:00:00Z
        conversation("a", dec1 - 2 * day, completes: true, endsAt: dec1 + day)
        conversation("b", dec1 + 3_600, completes: false)
        conversation("c", now - 10 * day, completes: true)
        conversation("d", now - 3_600, completes: false)
        write(lines.joined(separator: "\n") + "\n", to: dir + "/e.jsonl")
        func starts(_ args: [String]) throws -> (Int, Int)? {
            let r = try runRocket(["report", dir + "/e.jsonl", "--json", "--min-count", "1"] + args)
            guard r.status == 0, let o = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any] else { return nil }
            let v = ((o["flows"] as? [[String: Any]])?.first?["variants"] as? [[String: Any]])?.first
            return (v?["starts"] as? Int ?? 0, v?["completions"] as? Int ?? 0)
        }
        #expect(try starts([])! == (4, 2))
        // a began before the window: its completion inside it is not counted (a conversation is whole).
        #expect(try starts(["--since", "2026-12-01", "--until", "2026-12-02"])! == (1, 0))
        #expect(try starts(["--since", "2d"])! == (1, 0), "an hour ago only")
        // c was ten days ago: where it falls beside the fixed days depends on today.
        let began = [(dec1 - 2 * day, true), (dec1 + 3_600, false), (now - 10 * day, true)]
        func expected(_ from: Double, _ to: Double) -> (Int, Int) {
            let inside = began.filter { $0.0 >= from && $0.0 < to }
            return (inside.count, inside.filter(\.1).count)
        }
        #expect(try starts(["--until", "2026-11-30"])! == expected(0, dec1 - day))
        #expect(try starts(["--since", "30d", "--until", "2d"])! == expected(now - 30 * day, now - 2 * day))
        let text = try runRocket(["report", dir + "/e.jsonl", "--since", "2026-12-01", "--until", "2026-12-01T12:30:00Z"], environment: ["COLUMNS": "200"])
        #expect(text.stdout.hasPrefix("12 event records read; counted: the conversations begun from 2026-12-01 to 2026-12-01T12:30:00Z;"), "\(text.stdout)")
        let json = try runRocket(["report", dir + "/e.jsonl", "--json", "--since", "2026-12-01T09:30+01:00"])
        #expect(json.stdout.contains(#""since":"2026-12-01T08:30:00Z","until":null"#), "\(json.stdout)")
        let html = try runRocket(["report", dir + "/e.jsonl", "--html", "-", "--until", "2026-12-01"])
        #expect(html.stdout.contains("counted: the conversations begun before 2026-12-01."))
        let none = try runRocket(["report", dir + "/e.jsonl", "--since", "2026-12-01", "--until", "2026-12-01T00:30:00Z"])
        #expect(none.stdout.hasSuffix("No conversations began from 2026-12-01 to 2026-12-01T00:30:00Z in these records.\n"), "\(none.stdout)")
        let unreadable = try runRocket(["report", dir + "/e.jsonl", "--since", "yesterday"])
        #expect(unreadable.stderr.contains("'--since yesterday' must be a date (2026-12-01, UTC), a time"), "\(unreadable.stderr)")
        let order = try runRocket(["report", dir + "/e.jsonl", "--since", "2026-12-02", "--until", "2026-12-01"])
        #expect(order.stderr.contains("--since must come before --until (2026-12-02 is not before 2026-12-01)"), "\(order.stderr)")
        for bad in [["--since", "yesterday"], ["--until", "2026-02-30"], ["--since", "2026-12-02", "--until", "2026-12-01"], ["--since", "5"]] {
            let r = try runRocket(["report", dir + "/e.jsonl"] + bad)
            #expect(r.status == 64, "\(bad): \(r.stderr)")
        }
    }

    @Test("Markdown escaping: markup everywhere, a list's or heading's mark only where a line starts")
    func markdownEscaping() {
        #expect(ReportCommand.markdownEscaped("a*b_c`d[e]f<g>h|i~j&k#l!m\\n") == ##"a\*b\_c\`d\[e\]f\<g\>h\|i\~j\&k\#l\!m\\n"##)
        #expect(ReportCommand.markdownEscaped("12. x", startsLine: true) == #"12\. x"#)
        #expect(ReportCommand.markdownEscaped("12.5 %") == "12.5 %")
        #expect(ReportCommand.markdownEscaped("- a", startsLine: true) == #"\- a"# && ReportCommand.markdownEscaped("a - b", startsLine: true) == "a - b")
        #expect(ReportCommand.markdownEscaped("=== x", startsLine: true) == #"\=== x"#)
        #expect(ReportCommand.markdownEscaped("é (ok) 3.0") == "é (ok) 3.0")
    }

    @Test("Runs of rocket play appended to one file: counts, the funnel, JSON, the page; errors name the file, line and column")
    func fromPlay() throws {
        let dir = scratchDirectory()
        write(
            """
            {"version": 1, "blocks": [
              {"id": "ask", "type": "doubleButton", "left": {"title": "Yes", "next": "name"}, "right": {"title": "No"}},
              {"id": "name", "type": "textInput", "text": "Name?", "buttonTitle": "OK", "next": "bye"},
              {"id": "bye", "type": "text", "text": "Bye {{name}}"}]}
            """, to: dir + "/survey.json")
        var log = ""
        // 3 finish, 2 say no (that completes too: "No" has no next), 2 stop at the name.
        for input in ["1\nAda\n\n", "1\nBo\n\n", "1\nCy\n\n", "2\n", "2\n", "1\n", "1\n"] {
            let r = try runRocket(["play", dir + "/survey.json", "--instant", "--events", "-"], stdin: input)
            log += r.stdout
        }
        try log.write(toFile: dir + "/events.jsonl", atomically: true, encoding: .utf8)
        #expect(!log.contains("Ada") && !log.contains("Bo\""), "typed text never in records")
        let json = try runRocket(["report", dir + "/events.jsonl", "--json", "--min-count", "1"])
        #expect(json.status == 0, "\(json.stderr)")
        let parsed = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let flow = try #require((parsed["flows"] as? [[String: Any]])?.first)
        #expect(flow["flow"] as? String == "survey")
        let v = try #require((flow["variants"] as? [[String: Any]])?.first)
        #expect(v["variant"] as? String == "" && v["starts"] as? Int == 7 && v["completions"] as? Int == 5)
        #expect((v["dismissals"] as? [String: Int]) == ["completed": 5, "closed": 2])
        let blocks = try #require(v["blocks"] as? [[String: Any]])
        #expect(blocks.compactMap { $0["id"] as? String } == ["ask", "name", "bye"])
        #expect(blocks.compactMap { $0["reached"] as? Int } == [7, 5, 3])
        #expect(blocks.compactMap { $0["answered"] as? Int } == [7, 3, 3])
        #expect(blocks.compactMap { $0["dropped"] as? Int } == [0, 2, 0])
        #expect(v["comparison"] is NSNull)
        // A --flow that names no flow here, and an --against that names no row, are said on
        // stderr (the nearest name, what there is); the report itself is as asked.
        let typo = try runRocket(["report", dir + "/events.jsonl", "--flow", "survy"])
        #expect(typo.status == 0 && typo.stdout.contains("No conversations"))
        let said = "rocket report: no conversations of flow \"survy\" in these records; did you mean \"survey\"? (flows: \"survey\")\n"
        #expect(typo.stderr == said, "\(typo.stderr)")
        let against = try runRocket(["report", dir + "/events.jsonl", "--against", "b", "--json"])
        #expect(against.stderr == "rocket report: flow \"survey\" has no variant \"b\" (variants: \"(all)\")\n", "\(against.stderr)")
        #expect(try runRocket(["report", dir + "/events.jsonl", "--flow", "survey"]).stderr.isEmpty)
        // Which side was chosen: 5 said yes, 2 no.
        let answers = try #require(blocks.first?["answers"] as? [[String: Any]])
        #expect(answers.compactMap { $0["option"] as? Int } == [0, 1] && answers.compactMap { $0["count"] as? Int } == [5, 2])
        #expect(answers.compactMap { $0["title"] as? String } == ["Yes", "No"])
        let table = try runRocket(["report", dir + "/events.jsonl", "--min-count", "1"], environment: ["COLUMNS": "100"])
        #expect(
            table.stdout.contains("  Answers (all)\n  block  answer  chosen   share\n  ask    Yes          5  71.4 %\n  ask    No           2  28.6 %\n"),
            "\(table.stdout)")
        #expect(table.stdout.contains("  variant  starts  completions") && !table.stdout.contains("exposures"), "no experiment, no exposures: \(table.stdout)")
        // With the default of 5, the side 2 chose is named by its place, its count hidden.
        let named = try runRocket(["report", dir + "/events.jsonl"], environment: ["COLUMNS": "100"])
        #expect(named.stdout.contains("  ask    right       <5       –\n"), "\(named.stdout)")
        // The default hides counts under 5 (but not 0).
        let hidden = try runRocket(["report", dir + "/events.jsonl", "--json"])
        #expect(hidden.stdout.contains(#""dismissals":{"closed":null,"completed":5}"#), "\(hidden.stdout)")
        // The table fits the width it is given, its words wrapped, never cut off.
        for width in [100, 40, 24] {
            let table = try runRocket(["report", dir + "/events.jsonl"], environment: ["COLUMNS": "\(width)"])
            #expect(table.status == 0 && table.stdout.contains("Flow survey"))
            #expect(table.stdout.split(separator: "\n").allSatisfy { $0.count <= width } && !table.stdout.contains("…"), "\(table.stdout)")
            let words = table.stdout.split(whereSeparator: { $0 == " " || $0 == "\n" }).joined(separator: " ")
            #expect(words.contains("counts from 1 to 4 hidden (<5)"), "\(table.stdout)")
        }
        // From standard input, and as a page.
        let piped = try runRocket(["report", "-", "--json", "--min-count", "1"], stdin: log)
        #expect(piped.stdout == json.stdout)
        let page = try runRocket(["report", "--events", dir + "/events.jsonl", "--html", dir + "/r.html"])
        #expect(page.status == 0 && page.stdout.isEmpty)
        #expect(try String(contentsOfFile: dir + "/r.html", encoding: .utf8).contains("<h2>Flow survey</h2>"))
        // A named pipe is read once its writer comes (a writer that starts late is waited for).
        #expect(mkfifo(dir + "/fifo", 0o600) == 0)
        let writer = Process()
        writer.executableURL = URL(fileURLWithPath: "/bin/sh")
        writer.arguments = ["-c", "sleep 0.3; cat '\(dir)/events.jsonl' > '\(dir)/fifo'"]
        try writer.run()
        let fromFIFO = try runRocket(["report", dir + "/fifo", "--json", "--min-count", "1"])
        writer.waitUntilExit()
        #expect(fromFIFO.stdout == json.stdout, "\(fromFIFO.stderr)")
        // Errors. A store given as records says how to read it.
        let store = dir + "/store.sqlite"
        #expect(try runRocket(["scenario", "trigger", "launch", "--store", store]).status == 0)
        let asRecords = try runRocket(["report", store])
        #expect(
            asRecords.status == 65 && asRecords.stderr == "\(store): error: an SQLite store, not event records: read it with --store \(store)\n",
            "\(asRecords.stderr)")
        write(log + "{\"event\": }\n", to: dir + "/bad.jsonl")
        let bad = try runRocket(["report", dir + "/bad.jsonl"])
        #expect(bad.status == 65)
        #expect(bad.stderr.hasPrefix("\(dir)/bad.jsonl:\(log.split(separator: "\n").count + 1):11: error: "), "\(bad.stderr)")
        write(String(repeating: "x", count: 70_000) + "\n", to: dir + "/long.jsonl")
        let long = try runRocket(["report", dir + "/long.jsonl"])
        #expect(long.status == 65 && long.stderr.contains("line 1 is longer than 65536 bytes"), "\(long.stderr)")
        #expect(try runRocket(["report", dir + "/missing.jsonl"]).status == 66)
        #expect(try runRocket(["report", dir]).status == 66)
        #expect(try runRocket(["report", "/dev/zero"]).status == 66, "a device is refused, not read forever")
        #expect(try runRocket(["report"]).status == 64)
        #expect(try runRocket(["report", dir + "/events.jsonl", "--min-count", "0"]).status == 64)
        #expect(try runRocket(["report", dir + "/events.jsonl", "--html", dir + "/no/such/r.html"]).status == 74)
        #expect(try runRocket(["report", "--store", dir + "/none.sqlite"]).status == 66)
    }

    @Test(
        "--by version: runs of a flow before and after an edit, a row per version in the order played, the edit compared with the first; a wrong --by is a usage error"
    )
    func byVersion() throws {
        let dir = scratchDirectory()
        let first =
            #"{"version": 1, "blocks": [{"id": "ask", "type": "doubleButton", "left": {"title": "Yes", "next": "bye"}, "right": {"title": "No"}}, {"id": "bye", "type": "text", "text": "Bye"}]}"#
        let second =
            #"{"version": 1, "blocks": [{"id": "ask", "type": "doubleButton", "left": {"title": "Sure", "next": "bye"}, "right": {"title": "No"}}, {"id": "bye", "type": "text", "text": "Bye now"}]}"#
        var log = ""
        for (flow, inputs) in [(first, ["1\n\n", "2\n", "2\n"]), (second, ["1\n\n", "1\n\n", "2\n", "1\n"])] {
            write(flow, to: dir + "/ask.json")
            for input in inputs { log += try runRocket(["play", dir + "/ask.json", "--instant", "--events", "-"], stdin: input).stdout }
        }
        try log.write(toFile: dir + "/events.jsonl", atomically: true, encoding: .utf8)
        let versions = log.split(separator: "\n").filter { $0.contains(#""event":"started""#) }.compactMap { line -> String? in
            line.range(of: #""version":""#).map { String(line[$0.upperBound...].prefix(12)) }
        }
        #expect(versions.count == 7 && Set(versions).count == 2, "\(versions)")
        let r = try runRocket(["report", dir + "/events.jsonl", "--by", "version", "--json", "--min-count", "1"])
        #expect(r.status == 0, "\(r.stderr)")
        let parsed = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        #expect(parsed["by"] as? String == "version")
        let rows = try #require(((parsed["flows"] as? [[String: Any]])?.first?["variants"]) as? [[String: Any]])
        #expect(rows.compactMap { $0["variant"] as? String } == [versions[0], versions[3]])
        #expect(rows.compactMap { $0["starts"] as? Int } == [3, 4])
        #expect((rows[1]["comparison"] as? [String: Any])?["against"] as? String == versions[0])
        let table = try runRocket(["report", dir + "/events.jsonl", "--by", "version", "--min-count", "1"], environment: ["COLUMNS": "100"])
        #expect(table.stdout.contains("Funnel " + versions[3]) && !table.stdout.contains("(all)"), "\(table.stdout)")
        #expect(try runRocket(["report", dir + "/events.jsonl", "--by", "versions"]).status == 64)
        // --against a version that is not there: said, with the rows there are and the one compared against.
        let missing = try runRocket(["report", dir + "/events.jsonl", "--by", "version", "--against", "v0", "--min-count", "1"])
        #expect(
            missing.stderr
                == "rocket report: flow \"ask\" has no version \"v0\" (versions: \"\(versions[0])\" and \"\(versions[3])\"); compared against \"\(versions[0])\"\n",
            "\(missing.stderr)")
    }
}

@Suite("rocket play: quiet hours")
struct PlayQuietHoursTests {
    @Test("in the machine's local time (TZ); --explain says why and until when; --ignore-rules shows it")
    func quiet() throws {
        let dir = scratchDirectory()
        write(#"{"version": 1, "quietHours": {"from": "22:00", "to": "08:00"}, "blocks": [{"id": "a", "type": "text", "text": "Hi"}]}"#, to: dir + "/q.json")
        let at = "2026-12-04T14:00:00Z"
        let tokyo = try runRocket(["play", dir + "/q.json", "--instant", "--now", at, "--explain"], stdin: "\n", environment: ["TZ": "JST-9"])
        #expect(tokyo.status == 3)
        #expect(tokyo.stderr.contains("quiet hours 22:00–08:00 (it is 23:00 there); not before 2026-12-04T23:00:00Z"), "\(tokyo.stderr)")
        let utc = try runRocket(["play", dir + "/q.json", "--instant", "--now", at], stdin: "\n", environment: ["TZ": "UTC0"])
        #expect(utc.status == 0 && utc.stderr.contains("Hi"))
        let forced = try runRocket(["play", dir + "/q.json", "--instant", "--now", at, "--ignore-rules"], stdin: "\n", environment: ["TZ": "JST-9"])
        #expect(forced.status == 0)
    }
}

@Suite("rocket play: the gap between flows")
struct PlayMinGapTests {
    @Test("--min-gap: any flow shown through the store less than D ago is not now, with when; later it shows")
    func gap() throws {
        let dir = scratchDirectory()
        write(#"{"version": 1, "blocks": [{"id": "a", "type": "text", "text": "Hi"}]}"#, to: dir + "/one.json")
        write(#"{"version": 1, "blocks": [{"id": "b", "type": "text", "text": "Other"}]}"#, to: dir + "/two.json")
        let store = ["--store", dir + "/s.sqlite"]
        let first = try runRocket(["play", dir + "/one.json", "--instant", "--min-gap", "1m", "--now", "2026-12-04T10:00:00Z"] + store, stdin: "\n")
        #expect(first.status == 0)
        let soon = try runRocket(
            ["play", dir + "/two.json", "--instant", "--min-gap", "1m", "--now", "2026-12-04T10:00:30Z", "--explain"] + store, stdin: "\n")
        #expect(soon.status == 3)
        #expect(soon.stderr.contains("another flow was shown 30s ago; the gap is 1m; not before 2026-12-04T10:01:00Z"), "\(soon.stderr)")
        let later = try runRocket(["play", dir + "/two.json", "--instant", "--min-gap", "1m", "--now", "2026-12-04T10:01:00Z"] + store, stdin: "\n")
        #expect(later.status == 0 && later.stderr.contains("Other"))
        #expect(try runRocket(["play", dir + "/two.json", "--min-gap", "soon"]).status == 64)
    }

    @Test("\"ignoresGap\": true is shown within the gap, and its showing counts: the next flow waits the gap after it")
    func ignoresGap() throws {
        let dir = scratchDirectory()
        write(#"{"version": 1, "blocks": [{"id": "a", "type": "text", "text": "Hi"}]}"#, to: dir + "/one.json")
        write(#"{"version": 1, "ignoresGap": true, "blocks": [{"id": "u", "type": "text", "text": "Your payment failed"}]}"#, to: dir + "/urgent.json")
        let store = ["--store", dir + "/s.sqlite"]
        func play(_ flow: String, at time: String) throws -> RunResult {
            try runRocket(["play", dir + "/\(flow).json", "--instant", "--min-gap", "1m", "--now", time, "--explain"] + store, stdin: "\n")
        }
        #expect(try play("one", at: "2026-12-04T10:00:00Z").status == 0)
        let urgent = try play("urgent", at: "2026-12-04T10:00:10Z")
        #expect(urgent.status == 0 && urgent.stderr.contains("Your payment failed"), "\(urgent.stderr)")
        let next = try play("one", at: "2026-12-04T10:01:05Z")
        #expect(next.status == 3 && next.stderr.contains("not before 2026-12-04T10:01:10Z"), "\(next.stderr)")
        // Its own file reads and writes the field back.
        #expect(try runRocket(["lint", dir + "/urgent.json"]).status == 0)
    }
}
