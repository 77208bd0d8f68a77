import Foundation
import RocketTestSupport
import Synchronization
import Testing
@testable import RocketCLI
@testable import RocketScenarios
@testable import RocketScenarioEngine
@testable import RocketScenariosSQLite

@Suite("rocket scenario and gated flows")
struct ScenarioCLITests {
    func env(_ dir: String) -> [String: String] { ["ROCKET_STORE": dir + "/s.sqlite"] }

    @Test("The typical use: trigger, then try with rules; exit 0 executed, 1 not")
    func typical() throws {
        let dir = scratchDirectory()
        for day in 1...5 {
            #expect(try runRocket(["scenario", "trigger", "app-launch", "--now", "2026-01-0\(day)T09:00:00Z"], environment: env(dir)).status == 0)
        }
        let rules = ["--min-events", "5", "--min-since-first-event", "14d", "--max-executions", "3"]
        let early = try runRocket(["scenario", "try", "app-launch"] + rules + ["--now", "2026-01-10T00:00:00Z", "--explain"], environment: env(dir))
        #expect(early.status == 1)
        #expect(early.stderr.contains("✗ 8d15h since the first event > 14d"))
        #expect(early.stderr.contains("→ not now; earliest 2026-01-15T09:00:01Z"))
        for k in 0..<3 {
            let r = try runRocket(["scenario", "try", "app-launch"] + rules + ["--now", "@\(1_768_867_200 + k)"], environment: env(dir))
            #expect(r.status == 0 && r.stderr.isEmpty)
        }
        #expect(try runRocket(["scenario", "try", "app-launch"] + rules + ["--now", "@1768867300"], environment: env(dir)).status == 1)
        let status = try runRocket(["scenario", "status", "app-launch", "--now", "2026-01-25T00:00:00Z"], environment: env(dir))
        #expect(
            status.stdout == """
                app-launch: events 5 (first 2026-01-01T09:00:00Z, last 2026-01-05T09:00:00Z); executions 3 (last 2026-01-20T00:00:02Z); 3 in the budget log
                budget log: 3 executions across all scenarios; 0 in the last 24h, 3 in the last 7d; latest app-launch at 2026-01-20T00:00:02Z

                """)
    }

    @Test("tries from many processes at once: the cap holds, and a record another process made while this one waited is no clock that moved back")
    func concurrentTries() throws {
        let dir = scratchDirectory()
        let results = Mutex<[RunResult]>([])
        DispatchQueue.concurrentPerform(iterations: 24) { _ in
            let r = try? runRocket(["scenario", "try", "launch", "--max-executions", "3"], environment: env(dir))
            if let r { results.withLock { $0.append(r) } }
        }
        let all = results.withLock { $0 }
        #expect(all.count == 24)
        #expect(all.filter { $0.status == 0 }.count == 3)
        #expect(all.allSatisfy { $0.status <= 1 && $0.stderr.isEmpty }, "\(all.map(\.stderr).filter { !$0.isEmpty })")
        // The rule itself, decided without processes: a time recorded after `now` was read but
        // before the decision ended is forgiven only when `now` is the wall clock's.
        let store = InMemoryScenarioStore()
        try store.triggerEvent("s", at: 1_000.5)
        let d = try NamedScenario("s", rules: ScenarioRules()).decide(in: store, at: 1_000)
        #expect(d.clockMovedBackwards && d.latestRecorded == 1_000.5)
        #expect(!ScenarioCommand.reported(d, wallClock: true, clockAfter: 1_000.6).clockMovedBackwards)
        #expect(ScenarioCommand.reported(d, wallClock: true, clockAfter: 1_000.4).clockMovedBackwards)
        #expect(ScenarioCommand.reported(d, wallClock: false, clockAfter: 1_000.6).clockMovedBackwards)
        // --now earlier than a record is still reported.
        #expect(try runRocket(["scenario", "trigger", "late", "--now", "@2000"], environment: env(dir)).status == 0)
        let back = try runRocket(["scenario", "try", "late", "--now", "@1000"], environment: env(dir))
        #expect(back.status == 0 && back.stderr.contains("moved backwards"))
    }

    @Test("status --json, reset, reset --all, export and import")
    func stateCommands() throws {
        let dir = scratchDirectory()
        _ = try runRocket(["scenario", "trigger", "a", "--now", "@100"], environment: env(dir))
        _ = try runRocket(["scenario", "trigger", "b", "--now", "@200"], environment: env(dir))
        let json = try runRocket(["scenario", "status", "--json"], environment: env(dir))
        let object = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
        let scenarios = object?["scenarios"] as? [String: [String: Any]]
        #expect(scenarios?["a"]?["eventsCount"] as? Int == 1 && scenarios?["b"]?["firstEventDate"] as? Double == 200)
        let export = try runRocket(["scenario", "export"], environment: env(dir))
        write(export.stdout, to: dir + "/state.json")
        #expect(try runRocket(["scenario", "reset", "a"], environment: env(dir)).status == 0)
        #expect(try runRocket(["scenario", "status", "a"], environment: env(dir)).stdout.contains("events 0"))
        #expect(try runRocket(["scenario", "reset", "--all"], environment: env(dir)).status == 0)
        #expect(try runRocket(["scenario", "status"], environment: env(dir)).stdout == "budget log: empty (no executions yet)\n")
        #expect(try runRocket(["scenario", "import", dir + "/state.json"], environment: env(dir)).status == 0)
        #expect(try runRocket(["scenario", "export"], environment: env(dir)).stdout == export.stdout)
    }

    @Test(
        "Usage errors exit 64",
        arguments: [
            ["scenario", "try", "x", "--min-events", "many"], ["scenario", "try", "x", "--min-since-first-event", "2 weeks"],
            ["scenario", "trigger", "x", "--now", "yesterday"], ["scenario", "trigger"], ["scenario", "trigger", "x", "--bogus"],
            ["scenario", "reset"], ["scenario", "reset", "x", "--all"], ["scenario", "frobnicate"],
            ["scenario", "try", "x", "--window", "7d"],
        ])
    func usage(args: [String]) throws {
        let r = try runRocket(args, environment: env(scratchDirectory()))
        #expect(r.status == 64)
        #expect(r.stderr.hasPrefix("rocket: error: "))
    }

    @Test("Store errors exit 74 with a clear message and touch nothing")
    func storeErrors() throws {
        let dir = scratchDirectory()
        write("not a database", to: dir + "/junk.sqlite")
        let junk = try runRocket(["scenario", "trigger", "x", "--store", dir + "/junk.sqlite"])
        #expect(junk.status == 74 && junk.stderr.contains("is not a rocket scenario store"))
        #expect(try String(contentsOfFile: dir + "/junk.sqlite", encoding: .utf8) == "not a database")
        let readOnly = try runRocket(["scenario", "trigger", "x", "--store", "/proc/rocket.sqlite"])
        #expect(readOnly.status == 74 && readOnly.stderr.contains("cannot be written"))
        // Every store error names the store: a folder, a device that fails every write.
        for place in [dir, "/dev/null", "/proc/rocket.sqlite"] {
            let r = try runRocket(["scenario", "trigger", "x", "--store", place])
            #expect(r.status == 74 && r.stderr.contains("store \(place)"), "\(r.stderr)")
        }
    }

    @Test("The default store follows XDG_STATE_HOME")
    func defaultLocation() throws {
        let dir = scratchDirectory()
        let r = try runRocket(["scenario", "trigger", "x"], environment: ["XDG_STATE_HOME": dir + "/state", "ROCKET_STORE": ""])
        #expect(r.status == 0)
        #expect(FileManager.default.fileExists(atPath: dir + "/state/rocket/scenarios.sqlite"))
    }

    @Test("A flow gated by a scenario plays only when it may; the showing counts; --ignore-rules overrides")
    func gatedFlow() throws {
        let dir = scratchDirectory()
        write(
            #"""
            {"version": 1, "scenario": "ask-review", "when": {"minEventsRequired": 2, "maxExecutionsPermitted": 1},
             "blocks": [{"id": "q", "type": "text", "text": "Enjoying it?"}]}
            """#, to: dir + "/f.json")
        let first = try runRocket(["play", dir + "/f.json", "--explain"], stdin: "\n", environment: env(dir))
        #expect(first.status == 3 && first.stdout.isEmpty && first.stderr.contains("✗ events 0 ≥ 2 required"))
        _ = try runRocket(["scenario", "trigger", "ask-review"], environment: env(dir))
        _ = try runRocket(["scenario", "trigger", "ask-review"], environment: env(dir))
        let shown = try runRocket(["play", dir + "/f.json"], stdin: "\n", environment: env(dir))
        #expect(shown.status == 0 && shown.stderr == "Rocket: Enjoying it?\n" && shown.stdout.isEmpty)
        #expect(try runRocket(["scenario", "status", "ask-review"], environment: env(dir)).stdout.contains("executions 1"))
        #expect(try runRocket(["play", dir + "/f.json"], stdin: "\n", environment: env(dir)).status == 3)
        let forced = try runRocket(["play", dir + "/f.json", "--ignore-rules"], stdin: "\n", environment: env(dir))
        #expect(forced.status == 0)
        #expect(try runRocket(["scenario", "status", "ask-review"], environment: env(dir)).stdout.contains("executions 1"))
    }
}

@Suite("Banners gated by a scenario")
struct GatedBannerTests {
    @Test("rocket banner --scenario shows only when the rules allow, counting the showing; otherwise exit 3")
    func gated() throws {
        let dir = scratchDirectory()
        let env = ["ROCKET_STORE": dir + "/s.sqlite"]
        let args = ["banner", "Rate us?", "--scenario", "rate", "--min-events", "1", "--max-executions", "1", "--plain"]
        let first = try runRocket(args + ["--explain"], stdin: "\n", environment: env)
        #expect(first.status == 3 && first.stdout.isEmpty && first.stderr.contains("✗ events 0 ≥ 1 required"))
        _ = try runRocket(["scenario", "trigger", "rate"], environment: env)
        let shown = try runRocket(args, stdin: "\n", environment: env)
        #expect(shown.status == 0 && shown.stderr == "[Rate us?]\n" && shown.stdout == "background\n")
        #expect(try runRocket(args, stdin: "\n", environment: env).status == 3)
    }
}

@Suite("Numbers at the boundary of the command line and flow files")
struct NumberBoundaryCLITests {
    @Test("Every duration and count flag refuses values out of range with exit 64, never a trap")
    func flags() throws {
        let dir = scratchDirectory()
        let env = ["ROCKET_STORE": dir + "/s.sqlite"]
        for flag in ["--min-since-first-event", "--min-since-last-event", "--min-between-executions"] {
            for value in ["99999999999999999999w", "1e400", "-5", "101y"] {
                let r = try runRocket(["scenario", "try", "x", flag, value], environment: env)
                #expect(r.status == 64, "\(flag) \(value): \(r.stderr)")
                let b = try runRocket(["banner", "T", "--plain", "--scenario", "x", flag, value], environment: env)
                #expect(b.status == 64, "banner \(flag) \(value): \(b.stderr)")
            }
        }
        #expect(try runRocket(["scenario", "try", "x", "--min-events", "99999999999999999999999"], environment: env).status == 64)
        #expect(try runRocket(["scenario", "try", "x", "--min-events-in-window", "2", "--window", "1e30"], environment: env).status == 64)
        #expect(try runRocket(["banner", "T", "--plain", "--duration", "1e300"], environment: env).status == 64)
        let now = try runRocket(["scenario", "trigger", "x", "--now", "@99999999999999999999999"], environment: env)
        #expect(now.status == 64 && now.stderr.contains("--now"))
        #expect(try runRocket(["scenario", "status"], environment: env).status == 0)
    }

    @Test("A store holding an out-of-range time still answers status")
    func hostileStore() throws {
        let dir = scratchDirectory()
        let env = ["ROCKET_STORE": dir + "/s.sqlite"]
        #expect(try runRocket(["scenario", "trigger", "x", "--now", "@100"], environment: env).status == 0)
        try SQLiteScenarioStore.rawExec(path: dir + "/s.sqlite", "UPDATE scenarios SET first_event = 1e23, last_event = -1e300 WHERE name = 'x'")
        let status = try runRocket(["scenario", "status", "x"], environment: env)
        #expect(status.status == 0)
        #expect(status.stdout.contains("first @1e+23, last @-1e+300"))
        let tried = try runRocket(["scenario", "try", "x", "--min-since-first-event", "1h", "--explain"], environment: env)
        #expect(tried.status == 1 && tried.stderr.contains("moved backwards"), "\(tried.stderr)")
    }

    @Test("scenario import refuses bad and out-of-range exports with exit 65 and a sentence, never a type dump")
    func importChecks() throws {
        let dir = scratchDirectory()
        let env = ["ROCKET_STORE": dir + "/s.sqlite"]
        let cases: [(String, String)] = [
            ("{}", "scenarios"),
            (#"{"version": 1, "scenarios": {"x": {"eventsCount": 1, "executionsCount": 0, "firstEventDate": 1e23}}, "executions": []}"#, "firstEventDate"),
            (#"{"version": 1, "scenarios": {"x": {"eventsCount": -4, "executionsCount": 0}}, "executions": []}"#, "eventsCount"),
            (#"{"version": 1, "scenarios": {}, "executions": [{"scenario": "x", "at": "soon"}]}"#, "executions[0].at"),
            (#"{"version": 2, "scenarios": {}, "executions": []}"#, "version 2"),
            // Strict as a flow file: unknown and repeated fields are named.
            (#"{"version": 1, "scenarios": {"x": {"eventsCount": 1, "executionsCount": 0, "evntsCount": 3}}, "executions": []}"#, "scenarios.x.evntsCount"),
            (#"{"version": 1, "scenarios": {}, "executions": [], "execution": []}"#, "unknown field \"execution\""),
            (#"{"version": 1, "version": 1, "scenarios": {}, "executions": []}"#, "\"version\" is given twice"),
            (
                #"{"version": 1, "scenarios": {"x": {"eventsCount": 1, "executionsCount": 0}, "x": {"eventsCount": 2, "executionsCount": 0}}, "executions": []}"#,
                "scenario \"x\" is given twice"
            ),
            (#"{"version": 1, "scenarios": {}, "executions": [{"scenario": "x", "at": 5, "when": 6}]}"#, "executions[0].when"),
        ]
        for (text, place) in cases {
            write(text, to: dir + "/bad.json")
            let r = try runRocket(["scenario", "import", dir + "/bad.json"], environment: env)
            #expect(r.status == 65, "\(text)")
            #expect(r.stderr.contains(place) && !r.stderr.contains("DecodingError") && !r.stderr.contains("CodingKeys"), "\(r.stderr)")
        }
        // The file, line and column of the problem, where the reader knows them.
        let placed: [(String, String)] = [
            ("{\n  \"version\": 1,\n  x\n}", "bad.json:3:3: "),
            ("{\"version\": 1,\n \"scenarios\": {},\n \"executions\": [],\n   \"extra\": 1}", "bad.json:4:4: unknown field"),
            ("{\"version\": 1, \"executions\": [],\n\"scenarios\": {\"x\": {\"eventsCount\": -4, \"executionsCount\": 0}}}", "bad.json:2:20: scenarios.x"),
            (
                "{\"version\": 1, \"scenarios\": {},\n\"executions\": [{\"scenario\": \"x\", \"at\": 1}, {\"scenario\": \"x\", \"at\": 1e300}]}",
                "bad.json:2:44: executions[1]"
            ),
        ]
        for (text, place) in placed {
            write(text, to: dir + "/bad.json")
            let r = try runRocket(["scenario", "import", dir + "/bad.json"], environment: env)
            #expect(r.status == 65 && r.stderr.contains(place), "\(r.stderr)")
        }
        let piped = try runRocket(["scenario", "import", "-"], stdin: "[1,", environment: env)
        #expect(piped.status == 65 && piped.stderr.contains("<stdin>:1:4: "), "\(piped.stderr)")
        // An export of older versions without "recentEvents" still imports.
        write(
            #"{"version": 1, "scenarios": {"x": {"eventsCount": 2, "executionsCount": 1, "firstEventDate": 5}}, "executions": []}"#,
            to: dir + "/old.json")
        #expect(try runRocket(["scenario", "import", dir + "/old.json"], environment: env).status == 0)
        #expect(try runRocket(["scenario", "status", "x"], environment: env).stdout.contains("events 2"))
    }

    @Test("Flow files: out-of-range durations and numbers are lint errors (65), and play never starts")
    func flowNumbers() throws {
        let dir = scratchDirectory()
        let cases = [
            #""when": {"minSecondsSinceFirstEvent": "99999999999999999999w"}"#,
            #""when": {"minSecondsSinceLastEvent": 1e300}"#,
            #""when": {"minEventsRequired": 1e30}"#,
        ]
        for (k, extra) in cases.enumerated() {
            let path = dir + "/f\(k).json"
            write(#"{"version": 1, "scenario": "s", "# + extra + #", "blocks": [{"id": "a", "type": "text", "text": "Hi"}]}"#, to: path)
            #expect(try runRocket(["lint", path]).status == 65, "\(extra)")
            #expect(try runRocket(["play", path, "--plain"], environment: ["ROCKET_STORE": dir + "/s.sqlite"]).status == 65, "\(extra)")
        }
        let delay = dir + "/delay.json"
        write(#"{"version": 1, "blocks": [{"id": "a", "type": "text", "text": "Hi", "showNextAfter": 1e300}]}"#, to: delay)
        #expect(try runRocket(["lint", delay]).status == 65)
        let twoSeconds = dir + "/two.json"
        write(#"{"version": 1, "blocks": [{"id": "a", "type": "text", "text": "Hi", "showNextAfter": "2s"}]}"#, to: twoSeconds)
        #expect(try runRocket(["lint", twoSeconds]).status == 0)
    }
}

@Suite("Scenarios from shell scripts")
struct ScenarioScriptTests {
    func env(_ dir: String) -> [String: String] { ["ROCKET_STORE": dir + "/s.sqlite"] }

    @Test("The README's review example fires: --events-of counts app launches for ask-review")
    func eventsOf() throws {
        let dir = scratchDirectory()
        for day in 1...5 {
            #expect(try runRocket(["scenario", "trigger", "app-launch", "--now", "2026-01-0\(day)T09:00:00Z"], environment: env(dir)).status == 0)
        }
        let rules = ["--events-of", "app-launch", "--min-events", "5", "--min-since-first-event", "14d", "--max-executions", "3"]
        #expect(try runRocket(["scenario", "try", "ask-review"] + rules + ["--now", "2026-01-10T00:00:00Z"], environment: env(dir)).status == 1)
        #expect(try runRocket(["scenario", "try", "ask-review"] + rules + ["--now", "2026-01-20T00:00:00Z"], environment: env(dir)).status == 0)
        let status = try runRocket(["scenario", "status", "ask-review"], environment: env(dir))
        #expect(status.stdout.hasPrefix("ask-review: events 0 (first never, last never); executions 1"))
        // Without --events-of it counts its own events, none.
        #expect(try runRocket(["scenario", "try", "ask-review", "--min-events", "5", "--now", "2026-01-21T00:00:00Z"], environment: env(dir)).status == 1)
        // A flow may say the same with "eventsOf".
        write(
            #"{"version": 1, "scenario": "tour", "when": {"eventsOf": "app-launch", "minEventsRequired": 5}, "blocks": [{"id": "a", "type": "text", "text": "Hi"}]}"#,
            to: dir + "/f.json")
        #expect(
            try runRocket(["play", dir + "/f.json", "--plain", "--instant", "--now", "2026-01-21T00:00:00Z"], stdin: "\n", environment: env(dir)).status == 0)
        #expect(try runRocket(["scenario", "try", "x", "--events-of", ""], environment: env(dir)).status == 64)
    }

    @Test("reset clears the scenario's entries in the shared budget; status shows the budget log; --json NAME shows only NAME")
    func budget() throws {
        let dir = scratchDirectory()
        let budget = ["--budget", "1", "--budget-window", "1d"]
        #expect(try runRocket(["scenario", "try", "a"] + budget + ["--now", "@1000"], environment: env(dir)).status == 0)
        #expect(try runRocket(["scenario", "try", "b"] + budget + ["--now", "@1001"], environment: env(dir)).status == 1)
        let status = try runRocket(["scenario", "status", "--now", "@1002"], environment: env(dir))
        #expect(status.stdout.contains("a: events 0 (first never, last never); executions 1 (last 1970-01-01T00:16:40Z); 1 in the budget log"))
        #expect(status.stdout.contains("budget log: 1 executions across all scenarios; 1 in the last 24h, 1 in the last 7d; latest a at 1970-01-01T00:16:40Z"))
        let json = try runRocket(["scenario", "status", "--json", "b"], environment: env(dir))
        #expect(!json.stdout.contains("\"a\""))
        #expect(try runRocket(["scenario", "reset", "a"], environment: env(dir)).status == 0)
        #expect(try runRocket(["scenario", "try", "b"] + budget + ["--now", "@1003"], environment: env(dir)).status == 0)
    }

    @Test("Empty names are refused; an explicit store in a missing folder is an error and creates nothing")
    func names() throws {
        let dir = scratchDirectory()
        #expect(try runRocket(["scenario", "trigger", ""], environment: env(dir)).status == 64)
        let newline = try runRocket(["scenario", "trigger", "a\nb"], environment: env(dir))
        #expect(newline.status == 64 && newline.stderr.contains("no control characters"), "a line end would break status's lines")
        #expect(try runRocket(["banner", "Hi", "--scenario", "a\u{7}b"], environment: env(dir)).status == 64)
        #expect(try runRocket(["scenario", "try", " "], environment: env(dir)).status == 64)
        let missing = dir + "/no/such/dir/s.sqlite"
        let r = try runRocket(["scenario", "trigger", "x"], environment: ["ROCKET_STORE": missing])
        #expect(r.status == 74 && r.stderr.contains("does not exist"))
        #expect(!FileManager.default.fileExists(atPath: dir + "/no"))
        #expect(try runRocket(["scenario", "trigger", "x", "--store", missing]).status == 74)
        // Reading a store in a missing folder is the same typo, not "no data yet".
        for command in [["status"], ["status", "--json"], ["export"]] {
            let read = try runRocket(["scenario"] + command + ["--store", missing])
            #expect(read.status == 74 && read.stderr.contains("does not exist") && read.stdout.isEmpty, "\(command)")
        }
        // A missing file in an existing folder is an empty store (status before the first trigger).
        #expect(try runRocket(["scenario", "status", "--store", dir + "/fresh.sqlite"]).status == 0)
        // The default folder is created.
        let home = scratchDirectory()
        #expect(try runRocket(["scenario", "trigger", "x"], environment: ["ROCKET_STORE": "", "XDG_STATE_HOME": home + "/state"]).status == 0)
        #expect(FileManager.default.fileExists(atPath: home + "/state/rocket/scenarios.sqlite"))
    }

    @Test("A store nobody may write to can still be read: status and export")
    func readOnly() throws {
        let dir = scratchDirectory()
        #expect(try runRocket(["scenario", "trigger", "seen", "--now", "@5"], environment: env(dir)).status == 0)
        if getuid() == 0 {
            // As another user, who may read the folder and the file but write neither.
            chmod(dir, 0o755)
            chmod(dir + "/s.sqlite", 0o644)
            for name in ["s.sqlite-wal", "s.sqlite-shm"] { try? FileManager.default.removeItem(atPath: dir + "/" + name) }
            for command in [["status"], ["export"]] {
                let r = try runRocket(
                    ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", rocketPath, "scenario"] + command,
                    environment: env(dir), executable: "/usr/bin/env")
                #expect(r.status == 0, "\(command): \(r.stderr)")
                #expect(r.stdout.contains("seen"), "\(command): \(r.stdout)")
            }
        } else {
            chmod(dir, 0o555)
            defer { chmod(dir, 0o755) }
            #expect(try runRocket(["scenario", "status"], environment: env(dir)).stdout.contains("seen"))
        }
        // A missing store reads as empty and is not created.
        let empty = scratchDirectory() + "/none.sqlite"
        #expect(try runRocket(["scenario", "status"], environment: ["ROCKET_STORE": empty]).status == 0)
        #expect(!FileManager.default.fileExists(atPath: empty))
    }
}

@Suite("rocket scenario simulate: a timeline played against the rules, in memory")
struct ScenarioSimulateTests {
    static let timeline = """
        # a week of launches
        2026-01-01T09:00:00Z trigger app-launch
        +1d trigger app-launch
        +1h try

        +1d trigger app-launch
        +1h try
        +2h try
        +3d try
        """

    @Test("Each try's verdict with what failed and the earliest time the clock allows; executions count; nothing is stored")
    func verdicts() throws {
        let store = scratchDirectory() + "/never.sqlite"
        let r = try runRocket(
            [
                "scenario", "simulate", "review", "--events-of", "app-launch", "--min-events", "3", "--min-since-first-event", "2d",
                "--max-executions", "2", "--min-between-executions", "3d",
            ], stdin: Self.timeline, environment: ["ROCKET_STORE": store])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(
            r.stdout == """
                2026-01-02T10:00:00Z  not now: events 2 ≥ 3 required; 1d1h since the first event > 2d
                2026-01-03T11:00:00Z  executes
                2026-01-03T13:00:00Z  not now: 2h since the last execution > 3d; earliest 2026-01-06T11:00:01Z
                2026-01-06T13:00:00Z  executes
                executed 2 of 4 tries

                """)
        #expect(!FileManager.default.fileExists(atPath: store))
        // From a file, with every check under each try.
        let dir = scratchDirectory()
        write("@1767258000 try\n+1s try\n", to: dir + "/t.txt")
        let explained = try runRocket(["scenario", "simulate", "tip", dir + "/t.txt", "--max-executions", "1", "--explain"])
        #expect(
            explained.stdout == """
                2026-01-01T09:00:00Z  executes
                    ✓ executions 0 < 1 permitted
                2026-01-01T09:00:01Z  not now: executions 1 < 1 permitted
                    ✗ executions 1 < 1 permitted
                executed 1 of 2 tries

                """, "\(explained.stdout)")
    }

    @Test("--flow FILE: the flow's scenario and its when rules; a flow with none, rule flags beside it or no NAME at all are refused")
    func fromFlow() throws {
        let dir = scratchDirectory()
        write(
            #"""
            {"version": 1, "scenario": "ask", "when": {"eventsOf": "launch", "minEventsRequired": 2, "maxExecutionsPermitted": 1},
             "blocks": [{"id": "a", "type": "text", "text": "Hi"}]}
            """#, to: dir + "/gated.json")
        write("@0 trigger launch\n+1h try\n+1h trigger launch\n+1h try\n+1h try\n", to: dir + "/t.txt")
        let r = try runRocket(["scenario", "simulate", "--flow", dir + "/gated.json", dir + "/t.txt"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(
            r.stdout == """
                1970-01-01T01:00:00Z  not now: events 1 ≥ 2 required
                1970-01-01T03:00:00Z  executes
                1970-01-01T04:00:00Z  not now: executions 1 < 1 permitted
                executed 1 of 3 tries

                """, "\(r.stdout)")
        write(#"{"version": 1, "blocks": [{"id": "a", "type": "text", "text": "Hi"}]}"#, to: dir + "/open.json")
        let open = try runRocket(["scenario", "simulate", "--flow", dir + "/open.json"])
        #expect(open.status == 65 && open.stderr.contains("names no \"scenario\", \"schedule\" or \"quietHours\""))
        #expect(try runRocket(["scenario", "simulate", "--flow", dir + "/gated.json", "--min-events", "3"]).status == 64)
        #expect(try runRocket(["scenario", "simulate", "--flow", dir + "/gated.json", "a", "b"]).status == 64)
        #expect(try runRocket(["scenario", "simulate", "--flow", dir + "/none.json"]).status == 66)
        #expect(try runRocket(["scenario", "simulate"]).status == 64)
    }

    @Test("--flow FILE asks the flow's schedule and quiet hours first (in TZ's local time), and a refusal there counts no execution")
    func timedFlow() throws {
        let dir = scratchDirectory()
        write(
            #"""
            {"version": 1, "scenario": "ask", "when": {"maxExecutionsPermitted": 1},
             "schedule": {"from": "2026-12-10T00:00Z", "until": "2026-12-12T00:00Z"}, "quietHours": {"from": "22:00", "to": "08:00"},
             "blocks": [{"id": "a", "type": "text", "text": "Hi"}]}
            """#, to: dir + "/sale.json")
        let timeline = "2026-12-09T12:00:00Z try\n2026-12-10T23:00:00Z try\n+10h try\n+1h try\n2026-12-12T00:00:00Z try\n"
        write(timeline, to: dir + "/t.txt")
        let r = try runRocket(["scenario", "simulate", "--flow", dir + "/sale.json", dir + "/t.txt"], environment: ["TZ": "UTC"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(
            r.stdout == """
                2026-12-09T12:00:00Z  not now: scheduled from 2026-12-10T00:00Z, then quiet hours 22:00–08:00 (it is 00:00 there); earliest 2026-12-10T08:00:00Z
                2026-12-10T23:00:00Z  not now: quiet hours 22:00–08:00 (it is 23:00 there); earliest 2026-12-11T08:00:00Z
                2026-12-11T09:00:00Z  executes
                2026-12-11T10:00:00Z  not now: executions 1 < 1 permitted
                2026-12-12T00:00:00Z  not now: its schedule ended at 2026-12-12T00:00Z; never again
                executed 1 of 5 tries

                """, "\(r.stdout)")
        // In Tokyo (UTC+9) 23:00 UTC is 08:00: not quiet.
        let tokyo = try runRocket(["scenario", "simulate", "--flow", dir + "/sale.json", dir + "/t.txt"], environment: ["TZ": "Asia/Tokyo"])
        #expect(tokyo.stdout.contains("2026-12-10T23:00:00Z  executes"), "\(tokyo.stdout)")
        // A flow with a schedule and no scenario: the schedule alone; a bare trigger names nothing.
        write(#"{"version": 1, "schedule": {"until": "2026-12-12T00:00Z"}, "blocks": [{"id": "a", "type": "text", "text": "Hi"}]}"#, to: dir + "/open.json")
        let open = try runRocket(["scenario", "simulate", "--flow", dir + "/open.json"], stdin: "2026-12-11T00:00:00Z try\n+1d try\n")
        #expect(
            open.status == 0 && open.stdout.hasPrefix("2026-12-11T00:00:00Z  executes\n2026-12-12T00:00:00Z  not now: its schedule ended"), "\(open.stdout)")
        let bare = try runRocket(["scenario", "simulate", "--flow", dir + "/open.json"], stdin: "2026-12-11T00:00:00Z trigger\n")
        #expect(bare.status == 65 && bare.stderr.contains("<stdin>:1:1: error: the flow names no \"scenario\""), "\(bare.stderr)")
    }

    @Test("A timeline may trigger at most 10,000 different scenarios (each is held in memory for the whole run)")
    func manyScenarios() throws {
        let lines = (0...10_000).map { "@0 trigger s\($0)\n" }.joined()
        let r = try runRocket(["scenario", "simulate", "tip"], stdin: lines)
        #expect(r.status == 65)
        #expect(r.stderr.hasPrefix("<stdin>:10001:1: error: a timeline triggers at most 10000 different scenarios"), "\(r.stderr)")
    }

    @Test(
        "A line it cannot read is named at FILE:LINE:COL (exit 65)",
        arguments: [
            ("+1d try\n", "<stdin>:1:1: error: a time after + needs an earlier line with a time"),
            ("2026-01-01T00:00:00Z tri\n", "<stdin>:1:22: error: 'tri' is neither 'trigger' nor 'try'; did you mean 'try'?"),
            ("2026-01-02T00:00:00Z try\n2026-01-01T00:00:00Z try\n", "<stdin>:2:1: error: the time goes back"),
            ("yesterday try\n", "<stdin>:1:1: error: 'yesterday' is not a time"),
            ("@0 try now\n", "<stdin>:1:8: error: 'try' takes nothing after it"),
            ("@0\n", "<stdin>:1:3: error: a time needs 'trigger' or 'try' after it"),
            ("@0 trigger a b\n", "<stdin>:1:14: error: 'trigger' takes one SCENARIO at most"),
            ("@0 +1x try\n", "<stdin>:1:4: error: '+1x' is neither 'trigger' nor 'try'"),
            ("@0 try\n+1e400d try\n", "<stdin>:2:1: error: '+1e400d' is not +D"),
        ])
    func badLines(text: String, message: String) throws {
        let r = try runRocket(["scenario", "simulate", "tip"], stdin: text)
        #expect(r.status == 65)
        #expect(r.stderr.hasPrefix(message), "\(r.stderr)")
    }
}

@Suite("A snooze rocket play cannot keep")
struct SnoozeWriteFailureTests {
    @Test("a snooze the store refuses once the flow is on screen is said, and play exits 74, not 0")
    func refused() throws {
        let dir = scratchDirectory()
        write(
            #"{"version": 1, "blocks": [{"id": "ask", "type": "doubleButton", "left": {"title": "Later", "snooze": "7d"}, "right": {"title": "Sure"}}]}"#,
            to: dir + "/rate.json")
        let path = dir + "/s.sqlite"
        // The store exists before the run (the start reads it).
        #expect(try runRocket(["scenario", "trigger", "made", "--store", path]).status == 0)
        let run = try PTYRun(["play", dir + "/rate.json", "--instant", "--store", path])
        #expect(run.waitFor("Later"))
        // The flow is on screen and its store open: the store's table goes away under it.
        try SQLiteScenarioStore(path: path).execForTesting("DROP TABLE scenarios")
        run.send("\r")
        #expect(run.waitForExit() == 74)
        #expect(run.screen.allLines.contains { $0.contains("rocket: error: the snooze is not kept") }, "\(run.screen.allLines)")
        #expect(run.terminalRestored)
    }
}
