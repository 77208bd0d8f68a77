// RocketBench: measured, never asserted. Run a release build:
//   swift run -c release RocketBench [flows]
// Each figure is the median of several runs; sizes are compared side by side in the same run,
// so the ratio is meaningful on a noisy machine even when the absolute numbers are not.
import RocketJSON
import Foundation
import RocketAlert
import RocketCore
import RocketFlow
import RocketScenarios
import RocketScenariosDefaults

/// A flow of `n` blocks cycling through every block type, all reachable, ending with a nil next.
func generateFlow(blocks n: Int) -> String {
    var out = "{\"version\": 1, \"author\": {\"name\": \"Bench\"}, \"start\": \"b0\", \"blocks\": [\n"
    for i in 0..<n {
        let next = i + 1 < n ? "\"b\(i + 1)\"" : "null"
        let line: String
        switch i % 5 {
        case 0: line = "{\"id\": \"b\(i)\", \"type\": \"text\", \"text\": \"Message \(i) for {{b\(max(0, i - 3))}}\", \"next\": \(next)}"
        case 1: line = "{\"id\": \"b\(i)\", \"type\": \"doubleButton\", \"left\": {\"title\": \"Yes\", \"next\": \(next)}, \"right\": {\"title\": \"No\", \"next\": \(next), \"font\": \"lightButton\"}}"
        case 2: line = "{\"id\": \"b\(i)\", \"type\": \"textInput\", \"text\": \"Name \(i)?\", \"buttonTitle\": \"Send\", \"validate\": {\"required\": true, \"maxLength\": 40}, \"branches\": [{\"when\": {\"equals\": \"skip\"}, \"next\": \(next)}], \"next\": \(next)}"
        case 3: line = "{\"id\": \"b\(i)\", \"type\": \"button\", \"title\": \"Continue \(i)\", \"action\": \"act\", \"next\": \(next)}"
        default: line = "{\"id\": \"b\(i)\", \"type\": \"text\", \"text\": \"Auto \(i)\", \"showNextAfter\": 0.5, \"next\": \(next)}"
        }
        out += line + (i + 1 < n ? ",\n" : "\n")
    }
    return out + "]}\n"
}

func median(_ xs: [Double]) -> Double {
    let s = xs.sorted()
    return s[s.count / 2]
}

func time(_ body: () -> Void) -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    body()
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
}

/// Plays a loaded flow to its end with the instant timing; returns the number of intents sent.
func play(_ doc: FlowDocument) -> Int {
    let clock = ManualClock()
    guard let rocket = doc.makeRocket(clock: clock, options: ConversationOptions(timing: .instant)) else { return 0 }
    rocket.show()
    var steps = 0
    while case .active = rocket.conversation.status {
        guard let block = rocket.conversation.interactiveBlock else {
            clock.advance(by: 1)
            rocket.tick()
            continue
        }
        let intent: RocketIntent
        switch block.kind {
        case .text, .image: intent = .tap
        case .button: intent = .pressButton
        case .doubleButton: intent = steps % 2 == 0 ? .pressLeft : .pressRight
        case .textInput: intent = .submit("Ada")
        }
        do { try rocket.send(intent) } catch { fatalError("bench flow refused \(intent): \(error)") }
        steps += 1
    }
    return steps
}

func benchFlows() {
    print("## Flow files: load + validate, and headless engine steps\n")
    let sizes = [10_000, 100_000]
    let inputs = sizes.map { Array(generateFlow(blocks: $0).utf8) }
    var loads: [[Double]] = [[], []]
    var parses: [[Double]] = [[], []]
    var docs: [FlowDocument?] = [nil, nil]
    // Interleave the sizes so machine noise hits both alike; the small one runs 10× as often.
    for _ in 0..<7 {
        for (k, bytes) in inputs.enumerated() {
            for _ in 0..<(k == 0 ? 10 : 1) {
                var kept: FlowLoadResult?
                loads[k].append(time { kept = FlowLoader.load(bytes) })
                precondition(kept!.isPlayable, "\(kept!.diagnostics.prefix(3))")
                docs[k] = kept!.document
                var node: JSONNode?
                parses[k].append(time { node = try? JSONReader.parse(bytes) })
                precondition(node != nil)
            }
        }
    }
    print("| blocks | file size | load + validate (median) | of which JSON parse | per block | engine steps/s | load ratio to 10k |")
    print("|---:|---:|---:|---:|---:|---:|---:|")
    let base = median(loads[0])
    for (k, n) in sizes.enumerated() {
        var rates: [Double] = []
        for _ in 0..<3 {
            var steps = 0
            let t = time { steps = play(docs[k]!) }
            rates.append(Double(steps) / t)
        }
        let load = median(loads[k])
        print(String(format: "| %d | %.1f MB | %.1f ms | %.1f ms | %.2f µs | %.0f | %.2f× |", n, Double(inputs[k].count) / 1e6, load * 1000,
                     median(parses[k]) * 1000, load / Double(n) * 1e6, median(rates), load / base))
    }
    print("\nTarget: 100k costs at most 12× 10k (linear would be 10×).\n")
}

/// trigger + try pairs per second for each store, measured in alternating rounds.
func benchScenarios() {
    print("## Scenario stores: trigger + try operations per second\n")
    let dir = NSTemporaryDirectory() + "rocket-bench-\(getpid())"
    try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let benchDefaults = UserDefaults(suiteName: "rocket-bench-\(getpid())")!
    defer { benchDefaults.removePersistentDomain(forName: "rocket-bench-\(getpid())") }
    let rules = ScenarioRules(minEventsRequired: 1, maxExecutionsPermitted: 1_000_000, minSecondsBetweenExecutions: 0)
    let stores: [(String, any ScenarioStore)] = [
        ("in-memory", InMemoryScenarioStore()),
        ("UserDefaults (synchronize per write, as WaitForIt)", UserDefaultsScenarioStore(defaults: benchDefaults)),
        ("SQLite, WAL, synchronous=NORMAL (default; survives a killed process)", try! SQLiteScenarioStore(path: dir + "/normal.sqlite", synchronous: .normal)),
        ("SQLite, WAL, synchronous=FULL (survives power loss: fsync per op)", try! SQLiteScenarioStore(path: dir + "/full.sqlite", synchronous: .full)),
    ]
    var rates = Array(repeating: [Double](), count: stores.count)
    var t = 1_800_000_000.0
    for _ in 0..<5 {
        for (k, (_, store)) in stores.enumerated() {
            let pairs = 300
            let seconds = time {
                for _ in 0..<pairs {
                    t += 1
                    try! store.triggerEvent("bench", at: t)
                    _ = try! NamedScenario("bench", rules: rules).tryToExecute(in: store, at: t)
                }
            }
            rates[k].append(Double(pairs * 2) / seconds)
        }
    }
    // WaitForIt's own write pattern, for reference: five keys, synchronize per write.
    let original = UserDefaults(suiteName: "rocket-bench-original-\(getpid())")!
    var originalRates: [Double] = []
    for _ in 0..<5 {
        let pairs = 300
        let seconds = time {
            for _ in 0..<pairs {
                t += 1
                let key = "net.pabloweb.WaitForIt.Bench."
                original.set(original.integer(forKey: key + "eventsCount") + 1, forKey: key + "eventsCount")
                original.set(Date(timeIntervalSince1970: t), forKey: key + "lastEventDate")
                original.synchronize()
                original.set(original.integer(forKey: key + "executionsCount") + 1, forKey: key + "executionsCount")
                original.set(Date(timeIntervalSince1970: t), forKey: key + "lastExecutionDate")
                original.synchronize()
            }
        }
        originalRates.append(Double(pairs * 2) / seconds)
    }
    original.removePersistentDomain(forName: "rocket-bench-original-\(getpid())")
    let userDefaults = median(originalRates)
    print("| store | operations/s (median of 5 × 600) | µs per operation | vs WaitForIt's UserDefaults pattern |")
    print("|---|---:|---:|---:|")
    print(String(format: "| WaitForIt's own pattern: 5 keys in UserDefaults, synchronize per write (reference) | %.0f | %.1f | 1.0× |",
                 userDefaults, 1e6 / userDefaults))
    for (k, (name, _)) in stores.enumerated() {
        let r = median(rates[k])
        print(String(format: "| %@ | %.0f | %.1f | %.1f× |", name, r, 1e6 / r, r / userDefaults))
    }
    print("\nTarget: SQLite ≥ 10× UserDefaults while durable. The fsync cost is the FULL row minus the NORMAL row, per operation.\n")
}

let args = CommandLine.arguments.dropFirst()
if args.isEmpty || args.contains("flows") { benchFlows() }
if args.isEmpty || args.contains("scenarios") { benchScenarios() }
