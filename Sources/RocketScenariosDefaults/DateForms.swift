public import Foundation
public import RocketScenarios

/// WaitForIt's `Date` forms of the scenario calls, for apps that move from the original.
///
/// ```swift
/// try ShowTutorial.triggerEvent(timeNow: Date())
/// try ShowTutorial.tryToExecute(timeNow: Date()) { didExecute in if didExecute { showTutorial() } }
/// ```
extension Scenario {
    /// Counts an event at `timeNow`.
    public static func triggerEvent(store: any ScenarioStore = ScenarioStores.standard, timeNow: Date) throws(ScenarioStoreError) {
        try triggerEvent(store: store, timeNow: timeNow.timeIntervalSince1970)
    }

    /// Tries to execute at `timeNow` and calls `completion` once with the answer.
    public static func tryToExecute(
        store: any ScenarioStore = ScenarioStores.standard, timeNow: Date,
        completion: (Bool) -> Void
    ) throws(ScenarioStoreError) {
        try tryToExecute(store: store, timeNow: timeNow.timeIntervalSince1970, completion: completion)
    }

    /// Tries to execute at `timeNow` and returns the answer.
    public static func tryToExecute(store: any ScenarioStore = ScenarioStores.standard, timeNow: Date) async throws(ScenarioStoreError) -> Bool {
        try await tryToExecute(store: store, timeNow: timeNow.timeIntervalSince1970)
    }
}

extension ScenarioSnapshot {
    /// The export format as `Data`.
    public func jsonData() -> Data { Data(jsonText.utf8) }

    /// Reads an export from `Data`.
    public init(jsonData: Data) throws(ScenarioStoreError) {
        try self.init(json: [UInt8](jsonData))
    }
}
