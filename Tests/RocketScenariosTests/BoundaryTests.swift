import RocketCore
import Foundation
import Testing
@testable import RocketScenarios
@testable import RocketScenarioEngine
@testable import RocketScenariosSQLite
import RocketScenariosDefaults

/// Findings of "Engines that survive real use" for scenarios.
@Suite("Scenarios: app code outside locks, stable names, numbers at the boundary")
struct ScenarioBoundaryTests {
    static func stores() throws -> [(String, any ScenarioStore)] {
        let defaults = UserDefaults(suiteName: "rocket-boundary-\(UUID().uuidString)")!
        return [
            ("in-memory", InMemoryScenarioStore()), ("SQLite", try SQLiteScenarioStore(path: temporaryPath())),
            ("UserDefaults", UserDefaultsScenarioStore(defaults: defaults)),
        ]
    }

    @Test("A custom condition that reads the same store works on every store (no deadlock, no recursive lock)")
    func conditionReadsStore() throws {
        for (label, store) in try Self.stores() {
            try store.triggerEvent("launch", at: 1)
            try store.triggerEvent("launch", at: 2)
            let review = NamedScenario(
                "review", rules: ScenarioRules(maxExecutionsPermitted: 1),
                customCondition: {
                    // Mixes another scenario's statistics into this one's decision, as WaitForIt invites.
                    ((try? store.stats("launch").eventsCount) ?? 0) >= 2
                })
            #expect(try review.tryToExecute(in: store, at: 10), "\(label)")
            #expect(try !review.tryToExecute(in: store, at: 11), "\(label): the cap holds")
            #expect(try store.stats("review").executionsCount == 1, "\(label)")
            let explained = try review.explain(in: store, at: 12)
            #expect(explained.checks.contains { $0.condition == .customConditions && $0.passed }, "\(label)")
        }
    }

    @Test("reset clears a scenario's entries in the shared budget on every store; eventsOf counts another's events")
    func resetAndEventsOf() throws {
        for (label, store) in try Self.stores() {
            let budget = ScenarioRules(budget: InterruptionBudget(executions: 1, seconds: 100))
            #expect(try NamedScenario("a", rules: budget).tryToExecute(in: store, at: 10), "\(label)")
            #expect(try !NamedScenario("b", rules: budget).tryToExecute(in: store, at: 11), "\(label)")
            try store.reset("a")
            #expect(try store.snapshot().executions.isEmpty, "\(label)")
            #expect(try NamedScenario("b", rules: budget).tryToExecute(in: store, at: 12), "\(label)")
            for t in 0..<3 { try store.triggerEvent("launch", at: Double(t)) }
            let review = NamedScenario("review", rules: ScenarioRules(minEventsRequired: 3, maxExecutionsPermitted: 1, eventsOf: "launch"))
            #expect(try review.tryToExecute(in: store, at: 20), "\(label)")
            #expect(try !review.tryToExecute(in: store, at: 21), "\(label): its own executions cap it")
            #expect(try store.stats("review").eventsCount == 0, "\(label)")
        }
    }

    @Test("Default names of private, fileprivate and local types carry no address and agree across processes")
    func stableNames() throws {
        func names() throws -> String {
            let p = Process()
            p.executableURL = URL(fileURLWithPath: stressPath)
            p.arguments = ["names"]
            let out = Pipe()
            p.standardOutput = out
            try p.run()
            let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            p.waitUntilExit()
            return text
        }
        let first = try names(), second = try names()
        #expect(first == second)
        #expect(first == "ScenarioStress.PrivateTutorial\nScenarioStress.FilePrivateTip\nScenarioStress.LocalSurvey\n")
        #expect(ScenarioName.stable("App.(unknown context at $55d0f8229988).Tutorial") == "App.Tutorial")
        #expect(ScenarioName.stable("App.Outer.Inner") == "App.Outer.Inner")
    }

    @Test("Durations and instants are range-checked where they enter; formatting never traps")
    func numbers() {
        #expect(ScenarioDuration.parse("99999999999999999999w") == nil)
        #expect(ScenarioDuration.parse("1e400") == nil)
        #expect(ScenarioDuration.parse("101000d") == nil)
        #expect(ScenarioDuration.parse("14d") == Double(14 * 86_400))
        #expect(ScenarioDuration.parse("500ms") == 0.5)
        #expect(ScenarioDuration.parse("-1") == nil)
        #expect(ScenarioDuration.format(1e300) == "1e+300s")
        #expect(ScenarioDuration.format(.infinity) == "infs")
        #expect(WallTime.parse("@99999999999999999999999") == nil)
        #expect(WallTime.parse("@253402300800") == nil)
        #expect(WallTime.parse("@0") == 0)
        #expect(WallTime.format(1e23) == "@1e+23")
        #expect(WallTime.format(-.infinity) == "@-inf")
        // To the millisecond, cut (not rounded), as logs write their times; out of range as above.
        #expect(WallTime.formatMilliseconds(1_796_000_000.2509) == "2026-11-30T00:53:20.250Z")
        #expect(WallTime.formatMilliseconds(1_796_000_000.9999) == "2026-11-30T00:53:20.999Z")
        #expect(WallTime.formatMilliseconds(0) == "1970-01-01T00:00:00.000Z" && WallTime.formatMilliseconds(.nan).hasPrefix("@"))
    }

    @Test("A store that already holds out-of-range instants still opens and reports them")
    func hostileStoredValues() throws {
        let path = temporaryPath()
        let store = try SQLiteScenarioStore(path: path)
        try store.triggerEvent("x", at: 1)
        try rawSQL(path, "UPDATE scenarios SET first_event = 1e23, last_event = -1e300 WHERE name = 'x'")
        let reopened = try SQLiteScenarioStore(path: path)
        let stats = try reopened.stats("x")
        #expect(stats.firstEventDate == 1e23)
        let d = try NamedScenario("x", rules: ScenarioRules(minSecondsSinceFirstEvent: 3600)).explain(in: reopened, at: 100)
        #expect(!d.explanation.isEmpty)
    }
}

/// The one civil calendar every date goes through (instants, typed dates, reports by day).
@Suite("The civil calendar")
struct CivilDateTests {
    @Test("days and dates are each other's inverse from year 1 to 9999, with leap years by the Gregorian rule, and agree with the instants")
    func roundTrip() {
        let first = CivilDate.days(year: 1, month: 1, day: 1), last = CivilDate.days(year: 9999, month: 12, day: 31)
        #expect(Double(first) * 86_400 == CivilDate.instants.lowerBound && Double(last + 1) * 86_400 - 1 == CivilDate.instants.upperBound)
        var n = first
        while n <= last {
            let (y, m, d) = CivilDate.date(days: n)
            #expect(CivilDate.days(year: y, month: m, day: d) == n)
            #expect(d <= CivilDate.daysIn(month: m, year: y))
            n += 997  // every month and weekday is met over the range
        }
        #expect(CivilDate.days(year: 1970, month: 1, day: 1) == 0 && CivilDate.text(days: -1) == "1969-12-31")
        #expect(CivilDate.text(days: first) == "0001-01-01" && CivilDate.text(days: last) == "9999-12-31")
        #expect(CivilDate.daysIn(month: 2, year: 2000) == 29 && CivilDate.daysIn(month: 2, year: 1900) == 28 && CivilDate.daysIn(month: 2, year: 2024) == 29)
        #expect(WallTime.format(CivilDate.instants.lowerBound) == "0001-01-01T00:00:00Z")
    }
}
