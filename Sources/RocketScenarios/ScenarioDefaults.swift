@_exported public import RocketScenarioEngine
@_exported public import RocketScenariosSQLite
import RocketCore
import Synchronization
#if canImport(Glibc)
    import Glibc
#endif

// WaitForIt's API as an app uses it: a scenario type's calls with a default store and the time
// now. The rule engine (RocketScenarioEngine) is pure; the environment, the file system and the
// clock are read here, and only here.

extension Scenario {
    /// Counts an event now (or at `timeNow`, seconds since 1970, as the original's test hook;
    /// `import RocketScenariosDefaults` adds the original's `Date` form).
    public static func triggerEvent(store: any ScenarioStore = ScenarioStores.standard, timeNow: Double = WallTime.now) throws(ScenarioStoreError) {
        try named.triggerEvent(in: store, at: timeNow)
    }

    /// Tries to execute and calls `completion` once, synchronously, with the answer; a true
    /// answer has already been counted as an execution.
    public static func tryToExecute(
        store: any ScenarioStore = ScenarioStores.standard, timeNow: Double = WallTime.now,
        completion: (Bool) -> Void
    ) throws(ScenarioStoreError) {
        completion(try named.tryToExecute(in: store, at: timeNow))
    }

    /// Tries to execute and returns the answer.
    public static func tryToExecute(store: any ScenarioStore = ScenarioStores.standard, timeNow: Double = WallTime.now) async throws(ScenarioStoreError) -> Bool
    {
        try named.tryToExecute(in: store, at: timeNow)
    }

    /// Clears the statistics (the rules are kept).
    public static func reset(store: any ScenarioStore = ScenarioStores.standard) throws(ScenarioStoreError) {
        try named.reset(in: store)
    }
}

extension WallTime {
    /// Now, from the system's real-time clock.
    public static var now: Double { WallClock().now }
}

/// Where `Scenario` types keep their statistics by default.
///
/// The default is an SQLite store at `defaultPath` (the same file `rocket scenario` uses),
/// opened on first use; an app that used WaitForIt and wants to keep its counts calls
/// `ScenarioStores.use(UserDefaultsScenarioStore(defaults: .standard))` (module
/// `RocketScenariosDefaults`) once at launch.
///
/// ```swift
/// ScenarioStores.use(InMemoryScenarioStore())   // previews and tests
/// ```
public enum ScenarioStores {
    private static let configured = Mutex<(any ScenarioStore)?>(nil)

    /// The process-wide default store.
    public static var standard: any ScenarioStore {
        configured.withLock { current in
            if let current { return current }
            let store = LazySQLiteScenarioStore(path: defaultPath())
            current = store
            return store
        }
    }

    /// Makes `store` the process-wide default.
    public static func use(_ store: any ScenarioStore) {
        configured.withLock { $0 = store }
    }

    /// `$ROCKET_STORE`, else `$XDG_STATE_HOME/rocket/scenarios.sqlite`, else
    /// `~/.local/state/rocket/scenarios.sqlite`.
    public static func defaultPath(environment: [String: String]? = nil) -> String {
        func env(_ key: String) -> String? {
            if let environment { return environment[key].flatMap { $0.isEmpty ? nil : $0 } }
            guard let p = getenv(key) else { return nil }
            let v = String(cString: p)
            return v.isEmpty ? nil : v
        }
        if let p = env("ROCKET_STORE") { return p }
        let state = env("XDG_STATE_HOME") ?? ((env("HOME") ?? "/tmp") + "/.local/state")
        return state + "/rocket/scenarios.sqlite"
    }
}

/// An SQLite store opened on first use, so that merely naming the default store never touches
/// the disk; an error opening it is thrown by the first operation (and the next ones retry).
final class LazySQLiteScenarioStore: ScenarioStore {
    private let path: String
    private let opened = Mutex<SQLiteScenarioStore?>(nil)

    init(path: String) { self.path = path }

    private func store() throws(ScenarioStoreError) -> SQLiteScenarioStore {
        let result: Result<SQLiteScenarioStore, ScenarioStoreError> = opened.withLock { current in
            if let current { return .success(current) }
            let directory = path.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
            if !directory.isEmpty { LazySQLiteScenarioStore.makeDirectories(directory) }
            do throws(ScenarioStoreError) {
                let s = try SQLiteScenarioStore(path: path)
                current = s
                return .success(s)
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    private static func makeDirectories(_ path: String) {
        var prefix = path.hasPrefix("/") ? "/" : ""
        for part in path.split(separator: "/") {
            prefix += part + "/"
            _ = mkdir(prefix, 0o755)
        }
    }

    func triggerEvent(_ name: String, at now: Double) throws(ScenarioStoreError) { try store().triggerEvent(name, at: now) }
    func tryExecute(
        _ name: String, at now: Double, rules: ScenarioRules,
        decide: (ScenarioStats, [Double]) -> Bool
    ) throws(ScenarioStoreError) -> Bool {
        try store().tryExecute(name, at: now, rules: rules, decide: decide)
    }
    func stats(_ name: String) throws(ScenarioStoreError) -> ScenarioStats { try store().stats(name) }
    func reset(_ name: String) throws(ScenarioStoreError) { try store().reset(name) }
    func resetAll() throws(ScenarioStoreError) { try store().resetAll() }
    func snapshot() throws(ScenarioStoreError) -> ScenarioSnapshot { try store().snapshot() }
    func restore(_ snapshot: ScenarioSnapshot) throws(ScenarioStoreError) { try store().restore(snapshot) }
}
