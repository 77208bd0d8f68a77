import RocketCore
import RocketJSON
import Synchronization

/// Why a store could not do what was asked. Nothing is lost when one is thrown: the operation
/// did not happen.
///
/// ```swift
/// do { try store.triggerEvent("launch", at: now) }
/// catch { print(error.message) }   // "the store /etc/x.sqlite cannot be written: …"
/// ```
public struct ScenarioStoreError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The kind of failure.
    public enum Kind: String, Hashable, Sendable {
        case corrupt, foreign, readOnly, full, newerSchema, busy, io, invalidData
    }
    /// The kind.
    public var kind: Kind
    /// A sentence naming the place.
    public var message: String
    /// For an export that cannot be read, the byte of it where the problem is, when known (a
    /// caller turns it into a line and column with `SourceLines`).
    public var offset: Int?

    /// Creates an error.
    public init(_ kind: Kind, _ message: String, offset: Int? = nil) {
        self.kind = kind
        self.message = message
        self.offset = offset
    }

    public var description: String { message }
}

/// Everything a store holds, as plain data: for export, import and tests.
///
/// ```swift
/// let json = try store.snapshot().jsonText
/// try otherStore.restore(try ScenarioSnapshot(json: Array(json.utf8)))
/// ```
public struct ScenarioSnapshot: Hashable, Sendable, Codable {
    /// Per-scenario statistics, by name.
    public var scenarios: [String: ScenarioStats]
    /// Recent executions across all scenarios (for budgets), oldest first.
    public var executions: [Execution]
    /// The snapshot format version (1).
    public var version: Int

    /// One execution: which scenario, when.
    public struct Execution: Hashable, Sendable, Codable {
        /// The scenario that executed.
        public var scenario: String
        /// When (seconds since 1970).
        public var at: Double
        /// An execution.
        public init(scenario: String, at: Double) {
            self.scenario = scenario
            self.at = at
        }
    }

    /// Creates a snapshot.
    public init(scenarios: [String: ScenarioStats] = [:], executions: [Execution] = []) {
        self.scenarios = scenarios
        self.executions = executions
        self.version = 1
    }

    /// How many executions are kept for budgets.
    public static let executionLimit = RocketLimits.executionLog
}

/// Where scenario statistics live. Every operation is atomic; `tryExecute` reads, decides and
/// records in one step, so two callers (threads, tasks or — for SQLite — processes) can never
/// both pass a cap.
public protocol ScenarioStore: Sendable {
    /// Counts an event (no condition checked).
    func triggerEvent(_ name: String, at now: Double) throws(ScenarioStoreError)
    /// Reads the statistics (and, when `rules` need them, recent executions), calls `decide`,
    /// and records an execution when it returns true — atomically. Returns what `decide` returned.
    func tryExecute(
        _ name: String, at now: Double, rules: ScenarioRules,
        decide: (ScenarioStats, [Double]) -> Bool
    ) throws(ScenarioStoreError) -> Bool
    /// The statistics of one scenario (empty when unknown).
    func stats(_ name: String) throws(ScenarioStoreError) -> ScenarioStats
    /// Clears one scenario's statistics and its entries in the shared budget (its rules live
    /// elsewhere and are kept).
    func reset(_ name: String) throws(ScenarioStoreError)
    /// Clears everything.
    func resetAll() throws(ScenarioStoreError)
    /// Everything, as data.
    func snapshot() throws(ScenarioStoreError) -> ScenarioSnapshot
    /// Replaces everything with a snapshot.
    func restore(_ snapshot: ScenarioSnapshot) throws(ScenarioStoreError)
}

/// A store in memory: for tests, previews and short-lived processes. Thread-safe.
///
/// ```swift
/// let store = InMemoryScenarioStore()
/// try store.triggerEvent("launch", at: 0)
/// ```
public final class InMemoryScenarioStore: ScenarioStore {
    private struct State {
        var scenarios: [String: ScenarioStats] = [:]
        var executions: [ScenarioSnapshot.Execution] = []
    }
    private let state = Mutex(State())

    /// An empty store.
    public init() {}

    public func triggerEvent(_ name: String, at now: Double) throws(ScenarioStoreError) {
        state.withLock { $0.scenarios[name, default: ScenarioStats()].recordEvent(at: now) }
    }

    public func tryExecute(
        _ name: String, at now: Double, rules: ScenarioRules,
        decide: (ScenarioStats, [Double]) -> Bool
    ) throws(ScenarioStoreError) -> Bool {
        state.withLock { s in
            let stats = s.scenarios[name] ?? ScenarioStats()
            guard decide(stats, s.executions.map(\.at)) else { return false }
            s.scenarios[name, default: ScenarioStats()].recordExecution(at: now)
            s.executions.append(.init(scenario: name, at: now))
            if s.executions.count > ScenarioSnapshot.executionLimit { s.executions.removeFirst() }
            return true
        }
    }

    public func stats(_ name: String) throws(ScenarioStoreError) -> ScenarioStats {
        state.withLock { $0.scenarios[name] ?? ScenarioStats() }
    }

    public func reset(_ name: String) throws(ScenarioStoreError) {
        state.withLock {
            $0.scenarios[name] = nil
            $0.executions.removeAll { $0.scenario == name }
        }
    }

    public func resetAll() throws(ScenarioStoreError) {
        state.withLock { $0 = State() }
    }

    public func snapshot() throws(ScenarioStoreError) -> ScenarioSnapshot {
        state.withLock { ScenarioSnapshot(scenarios: $0.scenarios, executions: $0.executions) }
    }

    public func restore(_ snapshot: ScenarioSnapshot) throws(ScenarioStoreError) {
        state.withLock { $0 = State(scenarios: snapshot.scenarios, executions: snapshot.executions) }
    }
}

extension ScenarioSnapshot {
    /// Pretty JSON text (the export format): scenarios by name in sorted order.
    public var jsonText: String {
        ((try? JSONCoding.encode(self))?.serialized(pretty: true) ?? "{}") + "\n"
    }

    /// Reads an export. Every count and time is range-checked; a problem is a sentence a person
    /// can act on, naming the place.
    /// The fields of an export, by level: what `init(json:)` accepts (a test checks them against
    /// what ``ScenarioSnapshot`` writes).
    static let exportFields = (
        top: ["scenarios", "executions", "version"],
        scenario: ["eventsCount", "executionsCount", "firstEventDate", "lastEventDate", "lastExecutionDate", "recentEvents"],
        execution: ["scenario", "at"]
    )

    /// Reads an export, as strictly as a flow file is read: an unknown or repeated field is an
    /// error naming it (a typo must not be dropped without a word), then every value is checked.
    public init(json bytes: [UInt8]) throws(ScenarioStoreError) {
        let root: JSONNode
        do {
            root = try JSONReader.parse(bytes)
        } catch {
            throw ScenarioStoreError(.invalidData, "not a scenario export: \(error.message)", offset: error.offset)
        }
        func fields(_ node: JSONNode, _ allowed: [String], _ place: String) throws(ScenarioStoreError) {
            guard case .object(let members) = node.value else { return }  // the decoder names wrong types
            var seen: Set<String> = []
            for m in members {
                let at = place.isEmpty ? m.key : place + "." + m.key
                guard seen.insert(m.key).inserted else { throw ScenarioStoreError(.invalidData, "\"\(at)\" is given twice", offset: m.keyOffset) }
                guard allowed.contains(m.key) else {
                    throw ScenarioStoreError(
                        .invalidData, "unknown field \"\(at)\"; an export has \(allowed.map { "\"\($0)\"" }.joined(separator: ", "))",
                        offset: m.keyOffset)
                }
            }
        }
        try fields(root, Self.exportFields.top, "")
        if case .object(let members) = root.value {
            for m in members {
                switch (m.key, m.value.value) {
                case ("scenarios", .object(let scenarios)):
                    var names: Set<String> = []
                    for s in scenarios {
                        guard names.insert(s.key).inserted else {
                            throw ScenarioStoreError(.invalidData, "scenario \"\(s.key)\" is given twice", offset: s.keyOffset)
                        }
                        try fields(s.value, Self.exportFields.scenario, "scenarios." + s.key)
                    }
                case ("executions", .array(let items)):
                    for (i, item) in items.enumerated() { try fields(item, Self.exportFields.execution, "executions[\(i)]") }
                default: break
                }
            }
        }
        do {
            self = try JSONCoding.decode(ScenarioSnapshot.self, from: root.plainValue)
        } catch {
            throw ScenarioStoreError(.invalidData, "not a scenario export: \(error.message)")
        }
        guard version == 1 else { throw ScenarioStoreError(.invalidData, "unsupported export version \(version); this rocket reads version 1") }
        // The byte where a top-level member's value holds the item `pick` chooses.
        func offset(_ key: String, _ pick: (JSONNode.Value) -> JSONNode?) -> Int? {
            root.object?.first(where: { $0.key == key }).flatMap { pick($0.value.value) }?.offset
        }
        for (name, stats) in scenarios.sorted(by: { $0.key < $1.key }) {
            let at = offset("scenarios") { v in
                if case .object(let m) = v { return m.first(where: { $0.key == name })?.value }
                return nil
            }
            // The rule `trigger` and `try` apply, so that an import holds no name they refuse.
            guard ScenarioRulesCodec.isName(name) else {
                throw ScenarioStoreError(.invalidData, "\"\(Sanitizer.excerpt(name))\" is not \(ScenarioRulesCodec.nameRule)", offset: at)
            }
            if let problem = stats.outOfRange {
                throw ScenarioStoreError(.invalidData, "scenarios.\(Sanitizer.excerpt(name)): \(problem)", offset: at)
            }
        }
        if let bad = executions.firstIndex(where: { !ScenarioRulesCodec.isName($0.scenario) }) {
            let at = offset("executions") { v in
                if case .array(let items) = v, bad < items.count { return items[bad] }
                return nil
            }
            throw ScenarioStoreError(
                .invalidData, "executions[\(bad)].scenario \"\(Sanitizer.excerpt(executions[bad].scenario))\" is not \(ScenarioRulesCodec.nameRule)",
                offset: at)
        }
        if let bad = executions.firstIndex(where: { !WallTime.validRange.contains($0.at) }) {
            let at = offset("executions") { v in
                if case .array(let items) = v, bad < items.count { return items[bad] }
                return nil
            }
            throw ScenarioStoreError(.invalidData, "executions[\(bad)].at is \(executions[bad].at); times go from year 1 to 9999", offset: at)
        }
        if executions.count > ScenarioSnapshot.executionLimit {
            throw ScenarioStoreError(.invalidData, "more than \(ScenarioSnapshot.executionLimit) executions")
        }
    }
}

/// What `rocket serve` needs of a store beside WaitForIt's statistics: per-visitor statistics
/// (scenarios named `NAME@VISITOR`) forgotten after a while, and experiments' assignments kept
/// from a visitor's first exposure. The SQLite and PostgreSQL stores provide it.
package protocol VisitorStore: ScenarioStore {
    /// ``ScenarioStore/tryExecute(_:at:rules:decide:)``, and when it executes, an event of
    /// scenario `other` counted in the same transaction: one commit for both, and never one
    /// without the other.
    func tryExecute(
        _ name: String, at now: Double, rules: ScenarioRules, countingEventOf other: String,
        decide: (ScenarioStats, [Double]) -> Bool
    ) throws(ScenarioStoreError) -> Bool
    /// Looks at the `count` statistics after `cursor` in name order and removes those of
    /// per-visitor scenarios (`NAME@VISITOR`) with no event and no execution since `time`, with
    /// their event times: how many went, and the cursor of the next call (nil: the end was
    /// reached; the next pass begins at ""). A slice at a time keeps each call short whatever
    /// the store's size.
    func forgetVisitors(
        inactiveSince time: Double, after cursor: String, examining count: Int
    ) throws(ScenarioStoreError) -> (
        forgotten: Int, next: String?
    )
    /// The variant experiment `experiment` gave `visitor` at their first exposure; when none is
    /// stored (or the stored one is not in `known`), `fresh` is stored and returned. When two
    /// callers race, the first answer wins for both.
    func assignment(experiment: String, visitor: String, at: Double, known: Set<String>, fresh: String) throws(ScenarioStoreError) -> String
    /// Forgets assignments made before `time` (at most 5,000 per call); how many went.
    func forgetAssignments(before time: Double) throws(ScenarioStoreError) -> Int
    /// Forgets everything kept of `visitor` (a visitor's erasure): the statistics and event times
    /// of its per-visitor scenarios (`NAME@visitor`) and its experiments' assignments, in one
    /// transaction. Its executions stay, counted in the store-wide budget, under their
    /// scenario's name alone. How many statistics and assignments went.
    func forget(visitor: String) throws(ScenarioStoreError) -> Int
    /// What is kept of `visitor` (a visitor's access to its data): the statistics of its
    /// per-visitor scenarios, by scenario (the name without `@visitor`), and its experiments'
    /// assignments.
    func kept(ofVisitor visitor: String) throws(ScenarioStoreError) -> VisitorRecord
}

/// What a scenario store keeps of one visitor (``VisitorStore/kept(ofVisitor:)``).
package struct VisitorRecord: Sendable, Equatable {
    /// Its per-visitor scenarios' statistics, by scenario name, in name order.
    package var statistics: [(scenario: String, stats: ScenarioStats)] = []
    /// Its experiments' assignments, in experiment order.
    package var assignments: [(experiment: String, variant: String, at: Double)] = []

    /// Nothing kept.
    package init() {}

    package static func == (a: VisitorRecord, b: VisitorRecord) -> Bool {
        a.statistics.map(\.scenario) == b.statistics.map(\.scenario) && a.statistics.map(\.stats) == b.statistics.map(\.stats)
            && a.assignments.map(\.experiment) == b.assignments.map(\.experiment) && a.assignments.map(\.variant) == b.assignments.map(\.variant)
            && a.assignments.map(\.at) == b.assignments.map(\.at)
    }
}
