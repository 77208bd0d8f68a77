import RocketCore
import Foundation
import Testing
@testable import RocketScenarios
@testable import RocketScenarioEngine
@testable import RocketScenariosSQLite
import RocketScenariosDefaults

@Suite("Scenario semantics, property by property")
struct SemanticsTests {
    let now = 1_800_000_000.0

    @Test("Event bounds are inclusive over counts 0…6", arguments: [(2, 4), (0, 0), (3, 3), (1, 6)])
    func eventBounds(min: Int, max: Int) {
        for count in 0...6 {
            let stats = ScenarioStats(eventsCount: count)
            let d = ScenarioEvaluator.evaluate(
                rules: ScenarioRules(minEventsRequired: min, maxEventsPermitted: max), stats: stats,
                recentExecutions: [], now: now)
            #expect(d.allowed == (min <= count && count <= max), "count \(count)")
        }
    }

    @Test("The execution cap is strict; 0 never executes", arguments: 0...4)
    func executionCap(cap: Int) {
        for executed in 0...5 {
            let d = ScenarioEvaluator.evaluate(
                rules: ScenarioRules(maxExecutionsPermitted: cap), stats: ScenarioStats(executionsCount: executed),
                recentExecutions: [], now: now)
            #expect(d.allowed == (executed < cap))
        }
    }

    @Test("The three time conditions are strict and pass when nothing is recorded", arguments: [0.0, 10, 86_400])
    func timeConditions(min: Double) {
        for (elapsed, expected) in [(min, false), (min + 0.001, true), (min - 1, false)] {
            let stats = ScenarioStats(
                eventsCount: 1, executionsCount: 1, firstEventDate: now - elapsed, lastEventDate: now - elapsed,
                lastExecutionDate: now - elapsed)
            for rules in [
                ScenarioRules(minSecondsSinceFirstEvent: min), ScenarioRules(minSecondsSinceLastEvent: min),
                ScenarioRules(minSecondsBetweenExecutions: min),
            ] {
                #expect(ScenarioEvaluator.evaluate(rules: rules, stats: stats, recentExecutions: [], now: now).allowed == expected)
                #expect(ScenarioEvaluator.evaluate(rules: rules, stats: ScenarioStats(), recentExecutions: [], now: now).allowed)
            }
        }
    }

    @Test("The custom condition runs on every try, even when another check fails")
    func customAlwaysCalled() throws {
        let calls = Counter()
        let s = NamedScenario(
            "c", rules: ScenarioRules(minEventsRequired: 5),
            customCondition: {
                calls.increment(); return true
            })
        let store = InMemoryScenarioStore()
        #expect(try !s.tryToExecute(in: store, at: now))
        #expect(try !s.tryToExecute(in: store, at: now))
        #expect(calls.value == 2)
    }

    @Test("A successful try is the execution, recorded before the completion runs")
    func executionBeforeCompletion() async throws {
        struct Once: Scenario { static var rules: ScenarioRules { ScenarioRules(maxExecutionsPermitted: 1) } }
        let store = InMemoryScenarioStore()
        var seen: (Bool, Int)?
        try Once.tryToExecute(store: store, timeNow: Date(timeIntervalSince1970: now)) { did in
            seen = (did, (try? store.stats(Once.name).executionsCount) ?? -1)
        }
        #expect(seen?.0 == true && seen?.1 == 1)
        #expect(try store.stats(Once.name).lastExecutionDate == now)
        let again = try await Once.tryToExecute(store: store, timeNow: Date(timeIntervalSince1970: now))
        #expect(again == false)
    }

    @Test("triggerEvent counts without checking anything, past the maximum; the first date is set once")
    func trigger() throws {
        let store = InMemoryScenarioStore()
        let s = NamedScenario("t", rules: ScenarioRules(maxEventsPermitted: 1))
        for k in 0..<5 { try s.triggerEvent(in: store, at: now + Double(k)) }
        let stats = try store.stats("t")
        #expect(stats.eventsCount == 5 && stats.firstEventDate == now && stats.lastEventDate == now + 4)
    }

    @Test("reset clears the statistics only; the rules are kept", arguments: StoreKind.allCases)
    func reset(kind: StoreKind) throws {
        let store = try kind.make()
        let s = NamedScenario("r", rules: ScenarioRules(maxExecutionsPermitted: 1))
        try s.triggerEvent(in: store, at: now)
        #expect(try s.tryToExecute(in: store, at: now))
        #expect(try !s.tryToExecute(in: store, at: now))
        try s.reset(in: store)
        #expect(try store.stats("r") == ScenarioStats())
        #expect(try s.tryToExecute(in: store, at: now))
        #expect(try !s.tryToExecute(in: store, at: now))
    }

    @Test("Type names are stable and nested types never collide; a name can be overridden")
    func names() {
        enum Outer { struct Inner: Scenario { static var rules: ScenarioRules { ScenarioRules() } } }
        enum Other { struct Inner: Scenario { static var rules: ScenarioRules { ScenarioRules() } } }
        struct Renamed: Scenario {
            static var name: String { "ShowTutorial" }
            static var rules: ScenarioRules { ScenarioRules() }
        }
        #expect(Outer.Inner.name != Other.Inner.name)
        #expect(Outer.Inner.name.hasSuffix("Outer.Inner"))
        #expect(Renamed.name == "ShowTutorial")
    }

    @Test("Events within a window: at least 3 in the last 7 days")
    func window() throws {
        let store = InMemoryScenarioStore()
        let day = 86_400.0
        let s = NamedScenario("w", rules: ScenarioRules(minEventsInWindow: EventWindow(count: 3, seconds: 7 * day)))
        for t in [now - 10 * day, now - 6 * day, now - 2 * day] { try s.triggerEvent(in: store, at: t) }
        #expect(try !s.tryToExecute(in: store, at: now))  // only 2 in the window
        try s.triggerEvent(in: store, at: now - day)
        let d = try s.decide(in: store, at: now)
        #expect(d.allowed)
        #expect(d.checks.first?.detail == "events in the last 7d: 3 ≥ 3")
    }

    @Test("An interruption budget is shared by every scenario of the store", arguments: StoreKind.allCases)
    func budget(kind: StoreKind) throws {
        let store = try kind.make()
        let daily = InterruptionBudget(executions: 1, seconds: 86_400)
        let a = NamedScenario("a", rules: ScenarioRules(budget: daily))
        let b = NamedScenario("b", rules: ScenarioRules(budget: daily))
        #expect(try a.tryToExecute(in: store, at: now))
        let d = try b.decide(in: store, at: now + 3600)
        #expect(!d.allowed)
        #expect(d.earliestTime == (now + 86_400).nextUp)
        #expect(try b.tryToExecute(in: store, at: now + 86_401))
    }

    @Test("Priority: the eligible scenario with the highest priority executes; the others are untouched")
    func priority() throws {
        let store = InMemoryScenarioStore()
        let low = NamedScenario("low", rules: ScenarioRules(priority: 1))
        let high = NamedScenario("high", rules: ScenarioRules(priority: 5))
        let blocked = NamedScenario("blocked", rules: ScenarioRules(minEventsRequired: 1, priority: 9))
        #expect(try ScenarioArbiter.executeFirst(of: [low, blocked, high], in: store, at: now) == "high")
        #expect(try store.stats("low").executionsCount == 0)
        let tieA = NamedScenario("tieA"), tieB = NamedScenario("tieB")
        #expect(try ScenarioArbiter.executeFirst(of: [tieA, tieB], in: store, at: now) == "tieA")
        #expect(try ScenarioArbiter.executeFirst(of: [blocked], in: store, at: now) == nil)
    }

    @Test("An explanation names the failed condition, the counts and the earliest time")
    func explanation() throws {
        let store = InMemoryScenarioStore()
        let s = NamedScenario("e", rules: ScenarioRules(minEventsRequired: 5, maxExecutionsPermitted: 3, minSecondsSinceFirstEvent: 14 * 86_400))
        try s.triggerEvent(in: store, at: now)
        let d = try s.explain(in: store, at: now + 86_400)
        #expect(
            d.explanation == [
                "✗ events 1 ≥ 5 required", "✗ 1d since the first event > 14d", "✓ executions 0 < 3 permitted",
            ])
        #expect(d.earliestTime == nil)  // an event-count failure cannot be fixed by waiting
        #expect(try store.stats("e").executionsCount == 0)  // explaining records nothing
        let timeOnly = NamedScenario("e", rules: ScenarioRules(minSecondsSinceFirstEvent: 14 * 86_400))
        #expect(try timeOnly.explain(in: store, at: now + 86_400).earliestTime == (now + 14 * 86_400).nextUp)
    }

    @Test("A clock that moved backwards is reported and fails the strict time checks")
    func backwards() throws {
        let store = InMemoryScenarioStore()
        let s = NamedScenario("b", rules: ScenarioRules(minSecondsBetweenExecutions: 10))
        #expect(try s.tryToExecute(in: store, at: now))
        let d = try s.decide(in: store, at: now - 5)
        #expect(!d.allowed && d.clockMovedBackwards)
        #expect(d.explanation.last?.contains("moved backwards") == true)
    }

    @Test("Export and import of all state as JSON", arguments: StoreKind.allCases)
    func exportImport(kind: StoreKind) throws {
        let source = InMemoryScenarioStore()
        try source.triggerEvent("x", at: now)
        try source.triggerEvent("x", at: now + 1)
        _ = try NamedScenario("y").tryToExecute(in: source, at: now + 2)
        let json = try source.snapshot().jsonData()
        let target = try kind.make()
        try target.restore(try ScenarioSnapshot(jsonData: json))
        #expect(try target.snapshot() == source.snapshot())
        #expect(throws: ScenarioStoreError.self) { try ScenarioSnapshot(jsonData: Data("{\"nope\": 1}".utf8)) }
    }

    @Test("An import holds only names trigger and try take: a control character, an empty or blank name, or 1,025 bytes is an error at its place")
    func importNames() throws {
        let long = String(repeating: "n", count: 1025)
        for bad in [#"a\u001bb"#, "", "  ", long] {
            let scenario = #"{"version": 1, "executions": [], "scenarios": {"\#(bad)": {"eventsCount": 1, "executionsCount": 0}}}"#
            let execution = #"{"version": 1, "scenarios": {}, "executions": [{"scenario": "\#(bad)", "at": 1800000000}]}"#
            for text in [scenario, execution] {
                #expect {
                    try ScenarioSnapshot(json: Array(text.utf8))
                } throws: { error in
                    guard let e = error as? ScenarioStoreError else { return false }
                    return e.message.contains("is not a scenario name") && e.offset != nil && e.message.count < 300
                }
            }
        }
        let good =
            #"{"version": 1, "executions": [{"scenario": "tour@v", "at": 1800000000}], "scenarios": {"tour@v": {"eventsCount": 1, "executionsCount": 1}}}"#
        #expect(try ScenarioSnapshot(json: Array(good.utf8)).scenarios.count == 1)
    }

    @Test("Durations parse and format", arguments: [("90", 90.0), ("1.5h", 5400), ("14d", 1_209_600), ("2w", 1_209_600), ("30s", 30), ("5m", 300)])
    func durations(text: String, seconds: Double) {
        #expect(ScenarioDuration.parse(text) == seconds)
    }

    @Test("Bad durations are refused", arguments: ["", "-5", "5x", "d", "1e3", "abc", "nan"])
    func badDurations(text: String) {
        #expect(ScenarioDuration.parse(text) == nil)
    }

    @Test("Concurrent tries from many tasks never exceed the cap", arguments: StoreKind.allCases)
    func concurrency(kind: StoreKind) async throws {
        let store = try kind.make()
        let s = NamedScenario("cap", rules: ScenarioRules(maxExecutionsPermitted: 10))
        let results = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<64 { group.addTask { (try? s.tryToExecute(in: store, at: 1_800_000_000)) ?? false } }
            return await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(results.filter { $0 }.count == 10)
        #expect(try store.stats("cap").executionsCount == 10)
    }
}

final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var n = 0
    func increment() { lock.withLock { n += 1 } }
    /// The value before adding one.
    func take() -> Int {
        lock.withLock {
            defer { n += 1 }; return n
        }
    }
    var value: Int { lock.withLock { n } }
}

@Suite("UserDefaults store: WaitForIt's keys")
struct UserDefaultsStoreTests {
    @Test("Data written by WaitForIt is read as it is, and updated under the same keys")
    func migration() throws {
        let holder = DisposableDefaultsStore()
        defer { withExtendedLifetime(holder) {} }
        let defaults = holder.defaults
        // What WaitForIt 2.0 left behind for `struct ShowTutorial: ScenarioProtocol`.
        defaults.set(4, forKey: "net.pabloweb.WaitForIt.ShowTutorial.eventsCount")
        defaults.set(1, forKey: "net.pabloweb.WaitForIt.ShowTutorial.executionsCount")
        defaults.set(Date(timeIntervalSince1970: 1000), forKey: "net.pabloweb.WaitForIt.ShowTutorial.firstEventDate")
        defaults.set(Date(timeIntervalSince1970: 2000), forKey: "net.pabloweb.WaitForIt.ShowTutorial.lastEventDate")
        let store = UserDefaultsScenarioStore(defaults: defaults)
        struct Tutorial: Scenario {
            static var name: String { "ShowTutorial" }  // WaitForIt's simple type name
            static var rules: ScenarioRules { ScenarioRules(maxExecutionsPermitted: 2) }
        }
        let stats = try store.stats(Tutorial.name)
        #expect(stats.eventsCount == 4 && stats.executionsCount == 1 && stats.firstEventDate == 1000 && stats.lastEventDate == 2000)
        try Tutorial.tryToExecute(store: store, timeNow: Date(timeIntervalSince1970: 3000)) { #expect($0) }
        #expect(defaults.integer(forKey: "net.pabloweb.WaitForIt.ShowTutorial.executionsCount") == 2)
        #expect((defaults.object(forKey: "net.pabloweb.WaitForIt.ShowTutorial.lastExecutionDate") as? Date)?.timeIntervalSince1970 == 3000)
    }

    @Test("A count that is not a number is an error naming the key, not a crash (W4)")
    func corruptCount() throws {
        let holder = DisposableDefaultsStore()
        defer { withExtendedLifetime(holder) {} }
        let defaults = holder.defaults
        defaults.set("lots", forKey: "net.pabloweb.WaitForIt.X.eventsCount")
        let store = UserDefaultsScenarioStore(defaults: defaults)
        #expect { try store.triggerEvent("X", at: 1) } throws: {
            let e = $0 as? ScenarioStoreError
            return e?.kind == .corrupt && e?.message.contains("net.pabloweb.WaitForIt.X.eventsCount") == true
        }
    }
}
