public import Foundation
public import RocketScenarios

/// Statistics in `UserDefaults` under WaitForIt's own keys
/// (`net.pabloweb.WaitForIt.<Name>.eventsCount`, `.executionsCount`, `.firstEventDate`,
/// `.lastEventDate`, `.lastExecutionDate`), so an app can move from WaitForIt and keep its counts.
///
/// Thread-safe within a process. Not safe across processes, and not crash-safe on Linux
/// (swift-corelibs-foundation rewrites the plist in place: killed mid-write it lost everything in
/// 24 of 200 runs); prefer `SQLiteScenarioStore` there. A corrupt value (a count that is not a
/// number) is an error, not a crash (the original's `as! Int`).
///
/// ```swift
/// let store = UserDefaultsScenarioStore(defaults: UserDefaults(suiteName: "com.example.app")!)
/// ```
public final class UserDefaultsScenarioStore: ScenarioStore, @unchecked Sendable {
    private let defaults: UserDefaults
    private let lock = NSLock()
    /// The key prefix (WaitForIt's).
    public static let prefix = "net.pabloweb.WaitForIt."
    private static let fields = ["eventsCount", "executionsCount", "firstEventDate", "lastEventDate", "lastExecutionDate", "recentEvents"]
    private var namesKey: String { Self.prefix + "_scenarios" }
    private var executionsKey: String { Self.prefix + "_executions" }

    /// A store over a defaults domain.
    public init(defaults: UserDefaults) {
        self.defaults = defaults
    }

    /// The key of one field (public so migrations and tests can name them).
    public static func key(_ name: String, _ field: String) -> String { prefix + name + "." + field }

    private func count(_ name: String, _ field: String) throws(ScenarioStoreError) -> Int {
        guard let value = defaults.object(forKey: Self.key(name, field)) else { return 0 }
        if let n = value as? Int { return n }
        if let n = value as? NSNumber { return n.intValue }
        throw ScenarioStoreError(.corrupt, "\(Self.key(name, field)) holds \(type(of: value)), not a number")
    }

    private func date(_ name: String, _ field: String) -> Double? {
        (defaults.object(forKey: Self.key(name, field)) as? Date)?.timeIntervalSince1970
    }

    private func read(_ name: String) throws(ScenarioStoreError) -> ScenarioStats {
        ScenarioStats(
            eventsCount: try count(name, "eventsCount"), executionsCount: try count(name, "executionsCount"),
            firstEventDate: date(name, "firstEventDate"), lastEventDate: date(name, "lastEventDate"),
            lastExecutionDate: date(name, "lastExecutionDate"),
            recentEvents: Self.decodeTimes(defaults.data(forKey: Self.key(name, "recentEvents"))))
    }

    private func write(_ name: String, _ s: ScenarioStats) {
        defaults.set(s.eventsCount, forKey: Self.key(name, "eventsCount"))
        defaults.set(s.executionsCount, forKey: Self.key(name, "executionsCount"))
        for (field, value) in [("firstEventDate", s.firstEventDate), ("lastEventDate", s.lastEventDate), ("lastExecutionDate", s.lastExecutionDate)] {
            if let value {
                defaults.set(Date(timeIntervalSince1970: value), forKey: Self.key(name, field))
            } else {
                defaults.removeObject(forKey: Self.key(name, field))
            }
        }
        defaults.set(Self.encodeTimes(s.recentEvents), forKey: Self.key(name, "recentEvents"))
        var names = Set(defaults.stringArray(forKey: namesKey) ?? [])
        if names.insert(name).inserted { defaults.set(names.sorted(), forKey: namesKey) }
    }

    // Event and execution times are kept as compact binary data: a plist array of a thousand
    // numbers made every synchronize() dozens of times slower.

    static func encodeTimes(_ times: [Double]) -> Data {
        var data = Data(capacity: times.count * 8)
        for t in times { withUnsafeBytes(of: t.bitPattern.littleEndian) { data.append(contentsOf: $0) } }
        return data
    }

    static func decodeTimes(_ data: Data?) -> [Double] {
        guard let data, data.count % 8 == 0 else { return [] }
        let bytes = [UInt8](data)
        return stride(from: 0, to: bytes.count, by: 8).map { i in
            var bits: UInt64 = 0
            for k in 0..<8 { bits |= UInt64(bytes[i + k]) << (8 * UInt64(k)) }
            return Double(bitPattern: bits)
        }
    }

    private var executions: [ScenarioSnapshot.Execution] {
        let times = Self.decodeTimes(defaults.data(forKey: executionsKey))
        let names = (defaults.string(forKey: executionsKey + "Names") ?? "").split(separator: "\n", omittingEmptySubsequences: false)
        guard names.count == times.count else { return [] }
        return zip(names, times).map { .init(scenario: String($0), at: $1) }
    }

    private func setExecutions(_ list: [ScenarioSnapshot.Execution]) {
        defaults.set(Self.encodeTimes(list.map(\.at)), forKey: executionsKey)
        defaults.set(list.map(\.scenario).joined(separator: "\n"), forKey: executionsKey + "Names")
    }

    public func triggerEvent(_ name: String, at now: Double) throws(ScenarioStoreError) {
        lock.lock(); defer { lock.unlock() }
        var s = try read(name)
        s.recordEvent(at: now)
        write(name, s)
        defaults.synchronize()
    }

    public func tryExecute(
        _ name: String, at now: Double, rules: ScenarioRules,
        decide: (ScenarioStats, [Double]) -> Bool
    ) throws(ScenarioStoreError) -> Bool {
        lock.lock(); defer { lock.unlock() }
        var s = try read(name)
        let list = rules.budget == nil ? [] : executions
        guard decide(s, list.map(\.at)) else { return false }
        s.recordExecution(at: now)
        write(name, s)
        var all = executions
        all.append(.init(scenario: name, at: now))
        setExecutions(Array(all.suffix(ScenarioSnapshot.executionLimit)))
        defaults.synchronize()
        return true
    }

    public func stats(_ name: String) throws(ScenarioStoreError) -> ScenarioStats {
        lock.lock(); defer { lock.unlock() }
        return try read(name)
    }

    public func reset(_ name: String) throws(ScenarioStoreError) {
        lock.lock(); defer { lock.unlock() }
        for field in Self.fields { defaults.removeObject(forKey: Self.key(name, field)) }
        setExecutions(executions.filter { $0.scenario != name })  // its entries in the shared budget go too
        defaults.synchronize()
    }

    public func resetAll() throws(ScenarioStoreError) {
        lock.lock(); defer { lock.unlock() }
        for name in defaults.stringArray(forKey: namesKey) ?? [] {
            for field in Self.fields { defaults.removeObject(forKey: Self.key(name, field)) }
        }
        defaults.removeObject(forKey: namesKey)
        defaults.removeObject(forKey: executionsKey)
        defaults.removeObject(forKey: executionsKey + "Names")
        defaults.synchronize()
    }

    public func snapshot() throws(ScenarioStoreError) -> ScenarioSnapshot {
        lock.lock(); defer { lock.unlock() }
        var all: [String: ScenarioStats] = [:]
        for name in defaults.stringArray(forKey: namesKey) ?? [] { all[name] = try read(name) }
        return ScenarioSnapshot(scenarios: all, executions: executions)
    }

    public func restore(_ snapshot: ScenarioSnapshot) throws(ScenarioStoreError) {
        try resetAll()
        lock.lock(); defer { lock.unlock() }
        for (name, stats) in snapshot.scenarios { write(name, stats) }
        setExecutions(snapshot.executions)
        defaults.synchronize()
    }
}
