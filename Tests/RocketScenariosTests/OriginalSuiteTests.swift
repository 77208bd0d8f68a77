import Foundation
import Testing
@testable import RocketScenarios
@testable import RocketScenarioEngine
@testable import RocketScenariosSQLite
import RocketScenariosDefaults
import RocketScenariosPostgres
import RocketTestSupport

/// A UserDefaults store over a fresh suite that deletes its plist when the test lets go of it.
final class DisposableDefaultsStore: ScenarioStore, @unchecked Sendable {
    let suite = "rocket-tests-\(UUID().uuidString)"
    let defaults: UserDefaults
    let inner: UserDefaultsScenarioStore

    init() {
        defaults = UserDefaults(suiteName: suite)!
        inner = UserDefaultsScenarioStore(defaults: defaults)
    }

    deinit { defaults.removePersistentDomain(forName: suite) }

    func triggerEvent(_ name: String, at now: Double) throws(ScenarioStoreError) { try inner.triggerEvent(name, at: now) }
    func tryExecute(_ name: String, at now: Double, rules: ScenarioRules, decide: (ScenarioStats, [Double]) -> Bool) throws(ScenarioStoreError) -> Bool {
        try inner.tryExecute(name, at: now, rules: rules, decide: decide)
    }
    func stats(_ name: String) throws(ScenarioStoreError) -> ScenarioStats { try inner.stats(name) }
    func reset(_ name: String) throws(ScenarioStoreError) { try inner.reset(name) }
    func resetAll() throws(ScenarioStoreError) { try inner.resetAll() }
    func snapshot() throws(ScenarioStoreError) -> ScenarioSnapshot { try inner.snapshot() }
    func restore(_ snapshot: ScenarioSnapshot) throws(ScenarioStoreError) { try inner.restore(snapshot) }
}

/// Every store, so each semantic test runs against each implementation.
enum StoreKind: String, CaseIterable, CustomTestStringConvertible {
    case memory, userDefaults, sqlite, postgres
    var testDescription: String { rawValue }

    func make() throws -> any ScenarioStore {
        switch self {
        case .memory: return InMemoryScenarioStore()
        case .userDefaults:
            return DisposableDefaultsStore()
        case .sqlite:
            return try SQLiteScenarioStore(path: newScratchPath("original", suffix: ".sqlite"))
        case .postgres:
            return try PostgresScenarioStore(url: TestPostgres.freshDatabase())
        }
    }
}

/// WaitForIt's own test suite, re-expressed on injected time (no sleeps), on every store.
@Suite("WaitForIt's original tests")
struct OriginalSuiteTests {
    let now = 1_800_000_000.0

    func run(_ rules: ScenarioRules, custom: (@Sendable () -> Bool)? = nil, store: any ScenarioStore) -> NamedScenario {
        NamedScenario("T", rules: rules, customCondition: custom)
    }

    @Test("testCustomConditionTrue / False", arguments: StoreKind.allCases)
    func custom(kind: StoreKind) throws {
        let store = try kind.make()
        #expect(try NamedScenario("A", customCondition: { true }).tryToExecute(in: store, at: now))
        #expect(try !NamedScenario("B", customCondition: { false }).tryToExecute(in: store, at: now))
    }

    @Test("testMinRequired: F; event; F; event; T", arguments: StoreKind.allCases)
    func minRequired(kind: StoreKind) throws {
        let store = try kind.make(), s = NamedScenario("T", rules: ScenarioRules(minEventsRequired: 2))
        #expect(try !s.tryToExecute(in: store, at: now))
        try s.triggerEvent(in: store, at: now)
        #expect(try !s.tryToExecute(in: store, at: now))
        try s.triggerEvent(in: store, at: now)
        #expect(try s.tryToExecute(in: store, at: now))
    }

    @Test("testMaxPermitted: T; event; T; event; T; event; F", arguments: StoreKind.allCases)
    func maxPermitted(kind: StoreKind) throws {
        let store = try kind.make(), s = NamedScenario("T", rules: ScenarioRules(maxEventsPermitted: 2))
        var got: [Bool] = [try s.tryToExecute(in: store, at: now)]
        for _ in 0..<3 {
            try s.triggerEvent(in: store, at: now)
            got.append(try s.tryToExecute(in: store, at: now))
        }
        #expect(got == [true, true, true, false])
    }

    @Test("textMinMaxRequired (dormant in the original): with the code's inclusive max, count 3 executes", arguments: StoreKind.allCases)
    func minMax(kind: StoreKind) throws {
        let store = try kind.make(), s = NamedScenario("T", rules: ScenarioRules(minEventsRequired: 2, maxEventsPermitted: 3))
        var got: [Bool] = [try s.tryToExecute(in: store, at: now)]
        for _ in 0..<4 {
            try s.triggerEvent(in: store, at: now)
            got.append(try s.tryToExecute(in: store, at: now))
        }
        // Counts 0…4 → [F, F, T, T, F]: the dormant test expected F at 3; the code says T (W8: keep inclusive).
        #expect(got == [false, false, true, true, false])
    }

    @Test("textNoConditions (dormant): T; event; T — and every try counts", arguments: StoreKind.allCases)
    func noConditions(kind: StoreKind) throws {
        let store = try kind.make(), s = NamedScenario("T")
        #expect(try s.tryToExecute(in: store, at: now))
        try s.triggerEvent(in: store, at: now)
        #expect(try s.tryToExecute(in: store, at: now))
        #expect(try store.stats("T").executionsCount == 2)
    }

    @Test("testExecuteEverySecond: T, F, +1 s (strict: F), +1.001 s T, F", arguments: StoreKind.allCases)
    func everySecond(kind: StoreKind) throws {
        let store = try kind.make(), s = NamedScenario("T", rules: ScenarioRules(minSecondsBetweenExecutions: 1))
        #expect(try s.tryToExecute(in: store, at: now))
        #expect(try !s.tryToExecute(in: store, at: now))
        #expect(try !s.tryToExecute(in: store, at: now + 1))
        #expect(try s.tryToExecute(in: store, at: now + 1.001))
        #expect(try !s.tryToExecute(in: store, at: now + 1.001))
    }

    @Test("testMockedExecutionDate: at now−2000 T; now−1500 F; now+1500 T", arguments: StoreKind.allCases)
    func mockedExecutionDate(kind: StoreKind) throws {
        let store = try kind.make(), s = NamedScenario("T", rules: ScenarioRules(minSecondsBetweenExecutions: 1000))
        #expect(try s.tryToExecute(in: store, at: now - 2000))
        #expect(try !s.tryToExecute(in: store, at: now - 1500))
        #expect(try s.tryToExecute(in: store, at: now + 1500))
    }

    @Test("testExecuteOnce / testExecuteThreeTimes", arguments: StoreKind.allCases)
    func executeTimes(kind: StoreKind) throws {
        let store = try kind.make()
        let once = NamedScenario("once", rules: ScenarioRules(maxExecutionsPermitted: 1))
        #expect(try [once.tryToExecute(in: store, at: now), once.tryToExecute(in: store, at: now)] == [true, false])
        let three = NamedScenario("three", rules: ScenarioRules(maxExecutionsPermitted: 3))
        #expect(try (0..<4).map { _ in try three.tryToExecute(in: store, at: now) } == [true, true, true, false])
        let zero = NamedScenario("zero", rules: ScenarioRules(maxExecutionsPermitted: 0))
        #expect(try !zero.tryToExecute(in: store, at: now))
    }

    @Test("testBasicFirstDate / testMockedFirstDate", arguments: StoreKind.allCases)
    func firstDate(kind: StoreKind) throws {
        let store = try kind.make()
        let basic = NamedScenario("basic", rules: ScenarioRules(minSecondsSinceFirstEvent: 1))
        try basic.triggerEvent(in: store, at: now)
        #expect(try basic.tryToExecute(in: store, at: now + 1.5))
        let mocked = NamedScenario("mocked", rules: ScenarioRules(minSecondsSinceFirstEvent: 1500))
        try mocked.triggerEvent(in: store, at: now - 2000)
        #expect(try mocked.tryToExecute(in: store, at: now))
        #expect(try !mocked.tryToExecute(in: store, at: now - 2000))
    }

    @Test("testBasicLastDate / testMockedLastDate", arguments: StoreKind.allCases)
    func lastDate(kind: StoreKind) throws {
        let store = try kind.make()
        let basic = NamedScenario("basic", rules: ScenarioRules(minSecondsSinceLastEvent: 1))
        try basic.triggerEvent(in: store, at: now)
        #expect(try basic.tryToExecute(in: store, at: now + 1.5))
        let mocked = NamedScenario("mocked", rules: ScenarioRules(minSecondsSinceLastEvent: 500))
        try mocked.triggerEvent(in: store, at: now - 2000)
        #expect(try mocked.tryToExecute(in: store, at: now))
        #expect(try !mocked.tryToExecute(in: store, at: now - 2000))
    }

    @Test("testMixedA: max executions 1 + min events 2: F; event; event; T; F", arguments: StoreKind.allCases)
    func mixedA(kind: StoreKind) throws {
        let store = try kind.make(), s = NamedScenario("T", rules: ScenarioRules(minEventsRequired: 2, maxExecutionsPermitted: 1))
        #expect(try !s.tryToExecute(in: store, at: now))
        try s.triggerEvent(in: store, at: now)
        try s.triggerEvent(in: store, at: now)
        #expect(try s.tryToExecute(in: store, at: now))
        #expect(try !s.tryToExecute(in: store, at: now))
    }

    @Test("testMixedB: between executions 1 + max events 0: T; F; +1.5 s; event; F", arguments: StoreKind.allCases)
    func mixedB(kind: StoreKind) throws {
        let store = try kind.make(), s = NamedScenario("T", rules: ScenarioRules(maxEventsPermitted: 0, minSecondsBetweenExecutions: 1))
        #expect(try s.tryToExecute(in: store, at: now))
        #expect(try !s.tryToExecute(in: store, at: now))
        try s.triggerEvent(in: store, at: now + 1.5)
        #expect(try !s.tryToExecute(in: store, at: now + 1.5))
    }
}
