// A child process for the scenario store's durability and concurrency tests:
//   ScenarioStress STORE NAME COUNT
// triggers NAME COUNT times in the store at STORE (an SQLite file, or a postgresql:// URL), writing "k\n" to stdout after the k-th
// trigger has returned (so a parent that kills it knows which triggers were acknowledged).
//   ScenarioStress names
// prints the default scenario names of a private, a fileprivate and a function-local type.
import RocketScenarios
import RocketScenarioEngine
import RocketScenariosPostgres
#if canImport(Glibc)
    import Glibc
#endif

func fail(_ message: String, _ status: Int32) -> Never {
    let bytes = Array((message + "\n").utf8)
    _ = bytes.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    exit(status)
}

private struct PrivateTutorial: Scenario {
    static var rules: ScenarioRules { ScenarioRules(maxExecutionsPermitted: 1) }
}

fileprivate enum FilePrivateTip: Scenario {
    static var rules: ScenarioRules { ScenarioRules() }
}

func localName() -> String {
    struct LocalSurvey: Scenario {
        static var rules: ScenarioRules { ScenarioRules() }
    }
    return LocalSurvey.name
}

let args = CommandLine.arguments
if args.count == 2 && args[1] == "names" {
    let text = [PrivateTutorial.name, FilePrivateTip.name, localName()].joined(separator: "\n") + "\n"
    let bytes = Array(text.utf8)
    _ = bytes.withUnsafeBytes { write(1, $0.baseAddress, $0.count) }
    exit(0)
}
guard args.count == 4, let count = Int(args[3]) else {
    fail("usage: ScenarioStress STORE NAME COUNT", 64)
}
do {
    let store: any ScenarioStore =
        args[1].hasPrefix("postgresql://") ? try PostgresScenarioStore(url: args[1]) : try SQLiteScenarioStore(path: args[1])
    for k in 1...max(1, count) {
        try store.triggerEvent(args[2], at: Double(k))
        let line = Array("\(k)\n".utf8)
        _ = line.withUnsafeBytes { write(1, $0.baseAddress, $0.count) }
    }
} catch {
    fail("ScenarioStress: \(error)", 74)
}
