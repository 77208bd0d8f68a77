// RocketBench: measured, never asserted. Run a release build:
//   swift run -c release RocketBench [flows]
// Each figure is the median of several runs; sizes are compared side by side in the same run,
// so the ratio is meaningful on a noisy machine even when the absolute numbers are not.
import RocketJSON
import Foundation
import RocketAlert
import RocketCore
import RocketConversation
import RocketTerminal
import RocketTerminalApps
import RocketTerminalCore
import RocketText
import RocketFlow
import RocketScenarios
import RocketScenariosDefaults
import RocketServer
import RocketPlatform

/// A flow of `n` blocks cycling through every block type, all reachable, ending with a nil next.
func generateFlow(blocks n: Int) -> String {
    var out = "{\"version\": 1, \"author\": {\"name\": \"Bench\"}, \"start\": \"b0\", \"blocks\": [\n"
    for i in 0..<n {
        let next = i + 1 < n ? "\"b\(i + 1)\"" : "null"
        let line: String
        switch i % 5 {
        case 0: line = "{\"id\": \"b\(i)\", \"type\": \"text\", \"text\": \"Message \(i) for {{b\(max(0, i - 3))}}\", \"next\": \(next)}"
        case 1:
            line =
                "{\"id\": \"b\(i)\", \"type\": \"doubleButton\", \"left\": {\"title\": \"Yes\", \"next\": \(next)}, \"right\": {\"title\": \"No\", \"next\": \(next), \"font\": \"lightButton\"}}"
        case 2:
            line =
                "{\"id\": \"b\(i)\", \"type\": \"textInput\", \"text\": \"Name \(i)?\", \"buttonTitle\": \"Send\", \"validate\": {\"required\": true, \"maxLength\": 40}, \"branches\": [{\"when\": {\"equals\": \"skip\"}, \"next\": \(next)}], \"next\": \(next)}"
        case 3: line = "{\"id\": \"b\(i)\", \"type\": \"button\", \"title\": \"Continue \(i)\", \"action\": \"act\", \"next\": \(next)}"
        default: line = "{\"id\": \"b\(i)\", \"type\": \"text\", \"text\": \"Auto \(i)\", \"showNextAfter\": 0.5, \"next\": \(next)}"
        }
        out += line + (i + 1 < n ? ",\n" : "\n")
    }
    return out + "]}\n"
}

/// A flow of `n` blocks that uses the flow language: variables, and a `set` and a `condition`
/// block in every seven (the rest as ``generateFlow(blocks:)``), all reachable.
func generateLanguageFlow(blocks n: Int) -> String {
    var out = "{\"version\": 1, \"vars\": {\"visits\": 0, \"plan\": \"free\"}, \"start\": \"b0\", \"blocks\": [\n"
    for i in 0..<n {
        let next = i + 1 < n ? "\"b\(i + 1)\"" : "null"
        let line: String
        switch i % 7 {
        case 0: line = "{\"id\": \"b\(i)\", \"type\": \"text\", \"text\": \"Visit {{visits}} on {{plan}}\", \"next\": \(next)}"
        case 1:
            line =
                "{\"id\": \"b\(i)\", \"type\": \"doubleButton\", \"left\": {\"title\": \"Yes\", \"next\": \(next)}, \"right\": {\"title\": \"No\", \"next\": \(next)}}"
        case 2:
            line =
                "{\"id\": \"b\(i)\", \"type\": \"textInput\", \"text\": \"Name \(i)?\", \"buttonTitle\": \"Send\", \"validate\": {\"required\": true, \"maxLength\": 40}, \"next\": \(next)}"
        case 3: line = "{\"id\": \"b\(i)\", \"type\": \"button\", \"title\": \"Continue \(i)\", \"next\": \(next)}"
        case 4:
            line = "{\"id\": \"b\(i)\", \"type\": \"set\", \"set\": {\"visits\": \"visits + 1\", \"plan\": \"upper(trim(b\(i - 2)))\"}, \"next\": \(next)}"
        case 5:
            line =
                "{\"id\": \"b\(i)\", \"type\": \"condition\", \"branches\": [{\"if\": \"visits > 3 and plan == 'PRO'\", \"next\": \(next)}, {\"if\": \"b\(i - 3) in lower(plan)\", \"next\": \(next)}], \"else\": \(next)}"
        default: line = "{\"id\": \"b\(i)\", \"type\": \"text\", \"text\": \"Auto \(i)\", \"showNextAfter\": 0.5, \"next\": \(next)}"
        }
        out += line + (i + 1 < n ? ",\n" : "\n")
    }
    return out + "]}\n"
}

/// The flow language: load + validate of a flow that uses it, the engine through it, and
/// expressions evaluated alone.
func benchLanguage() {
    print("## The flow language: variables, set and condition blocks, expressions\n")
    let n = 10_000
    let plain = Array(generateFlow(blocks: n).utf8)
    let language = Array(generateLanguageFlow(blocks: n).utf8)
    var loads: [[Double]] = [[], []]
    for _ in 0..<9 {
        for (k, bytes) in [plain, language].enumerated() {
            var kept: FlowLoadResult?
            loads[k].append(time { kept = FlowLoader.load(bytes) })
            precondition(kept!.isPlayable, "\(kept!.diagnostics.prefix(3))")
        }
    }
    // The value engine through each flow, side by side (as benchEngine drives it).
    let graphs = [plain, language].map { FlowLoader.load($0).document!.makeGraph() }
    var rates: [[Double]] = [[], []]
    for _ in 0..<5 {
        for (k, graph) in graphs.enumerated() {
            var c = Conversation(graph: graph, options: ConversationOptions(timing: .instant))
            c.start(at: 0)
            var steps = 0
            let t = time {
                while let node = c.interactiveBlock {
                    _ = try! c.send(autoIntent(node.kind, step: steps), at: 0)
                    steps += 1
                }
            }
            precondition(c.status.reason == .completed)
            rates[k].append(Double(steps) / t)
        }
    }
    print("| flow of 10,000 blocks | load + validate (median of 9) | per block |")
    print("|---|---:|---:|")
    print(String(format: "| every block kind of the seed (reference) | %.1f ms | %.2f µs |", median(loads[0]) * 1000, median(loads[0]) / Double(n) * 1e6))
    print(
        String(
            format: "| with variables, set and condition blocks | %.1f ms | %.2f µs |", median(loads[1]) * 1000,
            median(loads[1]) / Double(n) * 1e6))
    print(
        String(
            format:
                "\nThe value engine (Conversation), median of 5: %.0f intents/s through the seed-kinds flow, %.0f through the language flow (its set and condition blocks run between intents)\n",
            median(rates[0]), median(rates[1])))
    // Expressions alone: one simple comparison, and a condition of two.
    let vars: [String: RocketValue] = ["visits": .number(4), "plan": .text("pro")]
    for source in ["visits > 3", "visits > 3 and plan == 'pro'", "lower(plan) in 'a pro plan'"] {
        let e = RocketExpression(source)
        let count = 2_000_000
        var results: [Double] = []
        for _ in 0..<5 {
            var trues = 0
            let t = time {
                for _ in 0..<count {
                    if case .success(.bool(true)) = e.evaluate({ vars[$0] }) { trues += 1 }
                }
            }
            precondition(trues == count)
            results.append(Double(count) / t)
        }
        print(String(format: "| `%@` | %.2f million evaluations/s |", source, median(results) / 1e6))
    }
    print("\nTargets: load + validate ≤ 3 µs per block with the new kinds; ≥ 5 million simple comparisons/s; engine ≥ 1,000,000 intents/s.\n")
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
        let intent = autoIntent(block.kind, step: steps)
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
    // Interleave the sizes so machine noise hits both alike; the small one runs 10× as often.
    // Each load starts as a one-shot process's would: no document of an earlier load alive, and
    // no other work in between (the JSON tree reference runs in a loop of its own below).
    for _ in 0..<7 {
        for (k, bytes) in inputs.enumerated() {
            for _ in 0..<(k == 0 ? 10 : 1) {
                var kept: FlowLoadResult?
                loads[k].append(time { kept = FlowLoader.load(bytes) })
                precondition(kept!.isPlayable, "\(kept!.diagnostics.prefix(3))")
            }
        }
    }
    for _ in 0..<3 {
        for (k, bytes) in inputs.enumerated() {
            var node: JSONNode?
            parses[k].append(time { node = try? JSONReader.parse(bytes) })
            precondition(node != nil)
        }
    }
    let docs = inputs.map { FlowLoader.load($0).document }
    print("| blocks | file size | load + validate (median) | JSON to a tree (JSONReader, reference) | per block | engine steps/s | load ratio to 10k |")
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
        print(
            String(
                format: "| %d | %.1f MB | %.1f ms | %.1f ms | %.2f µs | %.0f | %.2f× |", n, Double(inputs[k].count) / 1e6, load * 1000,
                median(parses[k]) * 1000, load / Double(n) * 1e6, median(rates), load / base))
    }
    // One-shot processes: `rocket lint` or `play` loads a flow once, into a heap with nothing
    // warm in it, whatever the size. In the loop above the 10k loads reuse memory the allocator
    // kept from the previous one, while the 100k loads, too large for it to keep, fault in fresh
    // pages every time: the ratio there measures glibc's trimming policy as much as the loader.
    var once: [[Double]] = [[], []]
    for _ in 0..<7 {
        for (k, n) in sizes.enumerated() {
            for _ in 0..<(k == 0 ? 3 : 1) {
                if let t = loadOnceInChild(blocks: n) { once[k].append(t) }
            }
        }
    }
    if !once[0].isEmpty && !once[1].isEmpty {
        print("| blocks | load + validate, one per process (median) | per block | ratio to 10k |")
        print("|---:|---:|---:|---:|")
        for (k, n) in sizes.enumerated() {
            let t = median(once[k])
            print(String(format: "| %d | %.1f ms | %.2f µs | %.2f× |", n, t * 1000, t / Double(n) * 1e6, t / median(once[0])))
        }
    }
    print("\nTargets: at most 3 µs per block, and 100k at most 10.5× 10k (linear would be 10×).\n")
}

/// Runs `RocketBench flow-once N` in a new process: the seconds its one timed load took.
func loadOnceInChild(blocks n: Int) -> Double? {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/proc/self/exe")
    p.arguments = ["flow-once", String(n)]
    let out = Pipe()
    p.standardOutput = out
    guard (try? p.run()) != nil else { return nil }
    let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    p.waitUntilExit()
    return Double(text.trimmingCharacters(in: .whitespacesAndNewlines))
}

/// Runs the real WaitForIt 2.0.0 benchmark binary once; its operations per second.
func runWaitForIt(_ path: String) -> Double? {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: path)
    let out = Pipe()
    p.standardOutput = out
    guard (try? p.run()) != nil else { return nil }
    let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    p.waitUntilExit()
    guard let range = text.range(of: "(real code): ") else { return nil }
    return Double(text[range.upperBound...].prefix { $0.isNumber || $0 == "." })
}

/// trigger + try pairs per second for each store, interleaved with runs of the real WaitForIt
/// 2.0.0 (`WFIBench`, path in $WAITFORIT_BENCH or the first argument after `scenarios`).
func benchScenarios(waitForIt: String?) {
    print("## Scenario stores: trigger + try operations per second\n")
    let dir = NSTemporaryDirectory() + "rocket-bench-\(getpid())"
    try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let benchDefaults = UserDefaults(suiteName: "rocket-bench-\(getpid())")!
    defer { benchDefaults.removePersistentDomain(forName: "rocket-bench-\(getpid())") }
    let rules = ScenarioRules(minEventsRequired: 1, maxExecutionsPermitted: 1_000_000, minSecondsBetweenExecutions: 0)
    let stores: [(String, any ScenarioStore)] = [
        ("in-memory", InMemoryScenarioStore()),
        ("UserDefaults store (WaitForIt's keys, synchronize per write)", UserDefaultsScenarioStore(defaults: benchDefaults)),
        ("SQLite, WAL, synchronous=NORMAL (default; survives a killed process)", try! SQLiteScenarioStore(path: dir + "/normal.sqlite", synchronous: .normal)),
        ("SQLite, WAL, synchronous=FULL (survives power loss: fsync per op)", try! SQLiteScenarioStore(path: dir + "/full.sqlite", synchronous: .full)),
    ]
    var rates = Array(repeating: [Double](), count: stores.count)
    var peer: [Double] = []
    var t = 1_800_000_000.0
    for round in 0..<5 {
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
        // The real WaitForIt between our rounds, so machine noise hits both alike.
        if let waitForIt, round % 2 == 0, let r = runWaitForIt(waitForIt) { peer.append(r) }
    }
    let reference = peer.isEmpty ? nil : median(peer)
    print("| store | operations/s (median of 5 × 600) | µs per operation | vs WaitForIt 2.0.0 (real code, same run) |")
    print("|---|---:|---:|---:|")
    if let reference {
        print(
            String(format: "| WaitForIt 2.0.0, the real library (median of %d runs of 5 × 600) | %.0f | %.1f | 1.0× |", peer.count, reference, 1e6 / reference))
    }
    for (k, (name, _)) in stores.enumerated() {
        let r = median(rates[k])
        let ratio = reference.map { String(format: "%.1f×", r / $0) } ?? "n/a (set WAITFORIT_BENCH)"
        print(String(format: "| %@ | %.0f | %.1f | %@ |", name, r, 1e6 / r, ratio))
    }
    print("\nTarget: SQLite WAL/NORMAL ≥ 25× the real WaitForIt. The fsync cost is the FULL row minus the NORMAL row.\n")
}

/// A chain of `n` nodes cycling through every kind, for the engine benchmark.
func engineGraph(_ n: Int) -> RocketGraph {
    var g = RocketGraph()
    g.reserveCapacity(n)
    for i in 0..<n {
        let next = i + 1 < n ? RocketNodeID(i + 1) : nil
        switch i % 4 {
        case 0: g.add(RocketNode(id: "b\(i)", text: "Message \(i)", next: next))
        case 1:
            g.add(
                RocketNode(
                    id: "b\(i)",
                    content: .doubleButton(
                        left: RocketButtonNode(title: "Yes", next: next),
                        right: RocketButtonNode(title: "No", next: next))))
        case 2:
            g.add(
                RocketNode(
                    id: "b\(i)",
                    content: .textInput(
                        RocketInputNode(
                            text: "Name?", buttonTitle: "Send",
                            validation: RocketInputValidation(required: true, maxLength: 40),
                            next: next))))
        default: g.add(RocketNode(id: "b\(i)", content: .button(RocketButtonNode(title: "Go", next: next, actionName: "act"))))
        }
    }
    g.root = RocketNodeID(0)
    return g
}

/// Intents per second: the value engine alone, and through its host (effects performed).
func benchEngine() {
    print("## Conversation engine: intents per second, headless\n")
    let n = 200_000
    let graph = engineGraph(n)
    func intent(for node: RocketNode, _ step: Int) -> RocketIntent { autoIntent(node.kind, step: step) }
    var engineRates: [Double] = [], hostRates: [Double] = []
    for _ in 0..<5 {
        var c = Conversation(graph: graph, options: ConversationOptions(timing: .instant))
        c.start(at: 0)
        var steps = 0
        let t1 = time {
            while let node = c.interactiveBlock {
                _ = try! c.send(intent(for: node, steps), at: 0)
                steps += 1
            }
        }
        engineRates.append(Double(steps) / t1)
        let host = ConversationHost(conversation: Conversation(graph: graph, options: ConversationOptions(timing: .instant)), clock: ManualClock())
        var actions = 0
        host.actionHandlers["act"] = { actions += 1 }
        host.show()
        var hostSteps = 0
        let t2 = time {
            while let node = host.conversation.interactiveBlock {
                try! host.send(intent(for: node, hostSteps))
                hostSteps += 1
            }
        }
        hostRates.append(Double(hostSteps) / t2)
    }
    print("| driver | intents/s (median of 5 runs through \(n) blocks) | ns per intent |")
    print("|---|---:|---:|")
    print(String(format: "| Conversation (the value engine) | %.0f | %.0f |", median(engineRates), 1e9 / median(engineRates)))
    print(String(format: "| ConversationHost (effects performed, events delivered) | %.0f | %.0f |", median(hostRates), 1e9 / median(hostRates)))
    print("\nTarget: ≥ 1,000,000 intents per second headless.\n")
}

/// One snapshot written per step with fsync and rename, as `rocket play --state` does.
func benchSnapshots() {
    print("## Snapshots: one atomic write (temporary file, fsync, rename, directory fsync) per step\n")
    let dir = NSTemporaryDirectory() + "rocket-bench-snap-\(getpid())"
    try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let result = FlowLoader.load(Array(generateFlow(blocks: 60).utf8))
    var c = result.document!.makeConversation(options: ConversationOptions(timing: .instant, echoReplies: true))!
    c.start(at: 0)
    let identity = result.document!.makeGraph().contentHash
    var costs: [Double] = []
    var bytes = 0
    var step = 0
    while let node = c.interactiveBlock, step < 40 {
        let intent = autoIntent(node.kind, step: 0)
        _ = try! c.send(intent, at: 0)
        step += 1
        let cost = time {
            let text = try! ConversationSnapshot(c, at: 0, flow: identity).jsonText()
            bytes = text.utf8.count
            if case .failure(let f) = FileIO.writeAtomically(text, to: dir + "/state.json", access: .owner) { fatalError(f.reason) }
        }
        costs.append(cost)
    }
    print(
        String(
            format: "| steps | snapshot size at the end | median per step | slowest step |\n|---:|---:|---:|---:|\n| %d | %d bytes | %.2f ms | %.2f ms |",
            costs.count, bytes, median(costs) * 1000, (costs.max() ?? 0) * 1000))
    print("\nTarget: ≤ 2 ms per step.\n")
}

/// The terminal's work per typed key, in process: the app's update, its frame and the renderer's
/// diff, typing into the input of `../shared/tools/peers/rocket-bench.json`'s conversation (what
/// `per_key_ms` of the peers' run measures, without the pseudo-terminal and the harness).
@MainActor
func benchKeys() {
    let flow = #"""
        {"version": 1, "author": {"name": "Rocket"}, "start": "welcome", "blocks": [
          {"id": "welcome", "type": "text", "text": "Welcome to Rocket", "next": "question"},
          {"id": "question", "type": "text", "text": "Enable notifications?", "showNextAfter": 0.05, "next": "ask"},
          {"id": "ask", "type": "doubleButton", "left": {"title": "Sure", "next": "name"}, "right": {"title": "Later", "next": "name"}},
          {"id": "name", "type": "textInput", "text": "What is your name?", "buttonTitle": "Send"}]}
        """#
    var samples: [Double] = []
    let rounds = Int(ProcessInfo.processInfo.environment["KEYS_ROUNDS"] ?? "") ?? 7  // more to profile
    for _ in 0..<rounds {
        let doc = FlowLoader.load(Array(flow.utf8)).document!
        let clock = ManualClock()
        let host = ConversationHost(conversation: doc.makeConversation(options: ConversationOptions(timing: .instant))!, clock: clock)
        let app = ConversationApp(host: host, strings: .english, depth: .indexed256)
        app.lineMode = false
        _ = app.start(now: 0)
        var renderer = InlineRenderer(depth: .indexed256)
        func frame() -> Int { renderer.render(app.view(width: 79, now: clock.now).buffer, screenHeight: 24).count }
        for key in [Key.enter, .right, .enter] {
            _ = app.update(.key(key), now: clock.now)
            _ = app.update(.tick, now: clock.now)
            _ = frame()
        }
        let keys = Array("Ada Lovelace, Countess of Lovelace".repeated(3))
        var bytes = 0
        let t = time {
            for ch in keys {
                _ = app.update(.key(.character(ch)), now: clock.now)
                _ = app.update(.tick, now: clock.now)
                bytes += frame()
            }
        }
        precondition(bytes > 0)
        samples.append(t / Double(keys.count))
    }
    print("| terminal, per typed key (update + frame + diff) | median | fastest |\n|---|---:|---:|")
    print(String(format: "| `ConversationApp` typing into an input | %.1f µs | %.1f µs |", median(samples) * 1e6, (samples.min() ?? 0) * 1e6))
}

extension String {
    fileprivate func repeated(_ n: Int) -> String { String(repeating: self, count: n) }
}

let args = CommandLine.arguments.dropFirst()
if args.first == "flow-once", let n = Int(args.dropFirst().first ?? "") {
    // The child of the one-shot measurement: the file is made and a 10-block flow loaded first
    // (one-time costs of the process, not of the size), then one load is timed.
    let bytes = Array(generateFlow(blocks: n).utf8)
    precondition(FlowLoader.load(Array(generateFlow(blocks: 10).utf8)).isPlayable)
    var kept: FlowLoadResult?
    let t = time { kept = FlowLoader.load(bytes) }
    precondition(kept!.isPlayable)
    print(t)
    exit(0)
}
if args.isEmpty || args.contains("flows") { benchFlows() }
if args.isEmpty || args.contains("engine") { benchEngine() }
if args.isEmpty || args.contains("language") { benchLanguage() }
if args.contains("profile-language") {
    // The value engine through the language flow, for a profiler.
    let graph = FlowLoader.load(Array(generateLanguageFlow(blocks: 10_000).utf8)).document!.makeGraph()
    for _ in 0..<60 {
        var c = Conversation(graph: graph, options: ConversationOptions(timing: .instant))
        c.start(at: 0)
        var steps = 0
        while let node = c.interactiveBlock {
            _ = try! c.send(autoIntent(node.kind, step: steps), at: 0)
            steps += 1
        }
    }
}
if args.isEmpty || args.contains("scenarios") {
    benchScenarios(waitForIt: ProcessInfo.processInfo.environment["WAITFORIT_BENCH"])
}
if args.isEmpty || args.contains("snapshots") { benchSnapshots() }
if args.isEmpty || args.contains("keys") { MainActor.assumeIsolated { benchKeys() } }
if args.contains("profile-flows") {
    // A loop to profile: load + validate a 100k-block flow five times.
    let n = Int(ProcessInfo.processInfo.environment["FLOW_BLOCKS"] ?? "") ?? 100_000
    let bytes = Array(generateFlow(blocks: n).utf8)
    let loads = Int(ProcessInfo.processInfo.environment["FLOW_LOADS"] ?? "") ?? 5
    let seconds = time { for _ in 0..<loads { precondition(FlowLoader.load(bytes).isPlayable) } }
    print(String(format: "%.2f µs per block", seconds / Double(max(1, loads) * n) * 1e6))
}
/// A server configuration for one machine playing every client: no rate or quota gets in the way.
func benchServerConfiguration() -> ServerConfiguration {
    var c = ServerConfiguration()
    c.requestsPerSecond = 1e9
    c.requestBurst = 1e9
    c.addressRequestsPerSecond = 1e9
    c.addressRequestBurst = 1e9
    c.perAddress = 1 << 30
    c.maxConversations = 10_000_000
    return c
}

if args.contains("serve-logic") {
    // rocket serve's logic without HTTP: the wrk workload (a conversation of a one-block loop,
    // 30 taps, then another), through ConversationService.handle on one thread; with the archive
    // (written behind, flushed every 20 ms of work) and without.
    let loop = #"{"version": 1, "start": "tick", "blocks": [{"id": "tick", "type": "text", "text": "Tick", "next": "tick"}]}"#
    print("| rocket serve logic, one thread | requests/s | µs per request |\n|---|---:|---:|")
    for persistent in [false, true] where ProcessInfo.processInfo.environment["SERVE_LOGIC"].map({ $0 == (persistent ? "archive" : "memory") }) ?? true {
        let path = NSTemporaryDirectory() + "rocket-serve-logic-\(getpid()).sqlite"
        let c = benchServerConfiguration()
        let store = persistent ? try! SQLiteScenarioStore(path: path) : nil
        let service = ConversationService(
            flows: FlowLibrary(directory: nil, builtIn: ["loop": Array(loop.utf8)]), archive: store.map { try! ConversationArchive(beside: $0) },
            scenarios: store, clock: WallClock(), configuration: c, access: .random(insecureDev: true))
        let json = ["Content-Type": "application/json"]
        var requests = 0
        var lastFlush = 0.0
        let conversations = Int(ProcessInfo.processInfo.environment["SERVE_LOGIC_CONVERSATIONS"] ?? "") ?? 2_000
        let flushEach = ProcessInfo.processInfo.environment["SERVE_LOGIC_FLUSH"] == "each"
        let seconds = time {
            for _ in 0..<conversations {
                let r = service.handle(
                    HTTPRequest(
                        method: "POST", path: "/v1/conversations", headers: json,
                        body: Array(#"{"flow": "loop", "visitor": "bench", "reducedMotion": true}"#.utf8)))
                let text = String(decoding: r.body, as: UTF8.self)
                guard let range = text.range(of: #""id":""#) else { fatalError(text) }
                let id = String(text[range.upperBound...].prefix(32))
                requests += 1
                for _ in 0..<30 {
                    _ = service.handle(
                        HTTPRequest(
                            method: "POST", path: "/v1/conversations/\(id)/intents", headers: json.merging(["Rocket-Visitor": "bench"]) { a, _ in a },
                            body: Array(#"{"intent": "tap"}"#.utf8)))
                    requests += 1
                    // SERVE_LOGIC_FLUSH=each: a commit per intent, as durable answers need
                    // (one client waiting for each answer).
                    if flushEach { service.flush() }
                }
                let now = WallClock().now
                if now - lastFlush >= 0.02 {
                    service.flush()
                    lastFlush = now
                }
            }
            service.flush()
        }
        print(
            "| \(persistent ? "with the archive (SQLite, written behind)" : "in memory") | \(Int(Double(requests) / seconds)) | \(String(format: "%.1f", seconds / Double(requests) * 1e6)) |"
        )
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }
}

if args.contains("serve-reads") {
    // GET /v1/conversations/{id} through ConversationService.handle with a visitor token (as the
    // HTTP benchmark sends): the read path alone, in memory, on one thread.
    let loop = #"{"version": 1, "start": "tick", "blocks": [{"id": "tick", "type": "text", "text": "Tick", "next": "tick"}]}"#
    let c = benchServerConfiguration()
    let service = ConversationService(
        flows: FlowLibrary(directory: nil, builtIn: ["loop": Array(loop.utf8)]), archive: nil, scenarios: nil, clock: WallClock(), configuration: c,
        access: .random())
    let first = service.handle(
        HTTPRequest(
            method: "POST", path: "/v1/conversations", headers: ["Content-Type": "application/json"],
            body: Array(#"{"flow": "loop", "reducedMotion": true}"#.utf8)))
    let text = String(decoding: first.body, as: UTF8.self)
    guard let idRange = text.range(of: #""id":""#), let tokenRange = text.range(of: #""token":""#) else { fatalError(text) }
    let id = String(text[idRange.upperBound...].prefix(32))
    let token = String(text[tokenRange.upperBound...].prefix { $0 != "\"" })
    if ProcessInfo.processInfo.environment["SERVE_STARTS"] != nil {
        // Starts instead: POST /v1/conversations with the same visitor token.
        let n = Int(ProcessInfo.processInfo.environment["SERVE_STARTS"] ?? "") ?? 50_000
        let body = Array(#"{"flow": "loop", "reducedMotion": true}"#.utf8)
        let seconds = time {
            for _ in 0..<n {
                let r = service.handle(
                    HTTPRequest(method: "POST", path: "/v1/conversations", headers: ["Rocket-Visitor": token, "Content-Type": "application/json"], body: body))
                precondition(r.status == 201, String(decoding: r.body, as: UTF8.self))
            }
        }
        print(String(format: "starts: %.2f µs per request (%d)", seconds / Double(n) * 1e6, n))
        exit(0)
    }
    let reads = Int(ProcessInfo.processInfo.environment["SERVE_READS"] ?? "") ?? 200_000
    let headers = ["Rocket-Visitor": token]
    var ok = 0
    let seconds = time {
        for _ in 0..<reads where service.handle(HTTPRequest(method: "GET", path: "/v1/conversations/\(id)", headers: headers)).status == 200 { ok += 1 }
    }
    precondition(ok == reads)
    print(String(format: "reads: %.2f µs per request (%d)", seconds / Double(reads) * 1e6, reads))
}

if args.contains("profile-sqlite") {
    // A loop to profile (perf record): the SQLite store alone, 20,000 trigger + try pairs.
    let path = NSTemporaryDirectory() + "rocket-profile-\(getpid()).sqlite"
    let store = try! SQLiteScenarioStore(path: path)
    let rules = ScenarioRules(minEventsRequired: 1, maxExecutionsPermitted: 1_000_000, minSecondsBetweenExecutions: 0)
    let seconds = time {
        for i in 0..<20_000 {
            try! store.triggerEvent("bench", at: Double(i))
            _ = try! NamedScenario("bench", rules: rules).tryToExecute(in: store, at: Double(i))
        }
    }
    print(String(format: "%.1f µs per operation", seconds / 40_000 * 1e6))
    for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
}

/// The intent a benchmark sends to a block of a kind: taps, presses (alternating sides), "Ada".
func autoIntent(_ kind: RocketBlockKind, step: Int) -> RocketIntent {
    switch kind {
    case .text, .image: return .tap
    case .button: return .pressButton
    case .doubleButton: return step % 2 == 0 ? .pressLeft : .pressRight
    case .textInput: return .submit("Ada")
    case .choice: return .choose(step % 2)
    case .rating: return .rate(step % 5 + 1)
    case .set, .condition, .jump: return .tap  // never shown
    }
}
if args.contains("flow-phases") {
    // Where a load's time goes, 10k against 100k blocks: the tape alone (fresh memory each time,
    // as in a one-shot process), the whole load, and the validator alone on the loaded document.
    let sizes = [10_000, 100_000]
    let inputs = sizes.map { Array(generateFlow(blocks: $0).utf8) }
    var tapes: [[Double]] = [[], []], loads: [[Double]] = [[], []], vals: [[Double]] = [[], []]
    for _ in 0..<9 {
        for (k, bytes) in inputs.enumerated() {
            for _ in 0..<(k == 0 ? 10 : 1) {
                var tape: JSONTape?
                tapes[k].append(time { tape = try? JSONTape.parse(bytes) })
                precondition(tape != nil)
                tape = nil
                var r: FlowLoadResult?
                loads[k].append(time { r = FlowLoader.load(bytes) })
                let doc = r!.document!
                r = nil
                var d: [FlowDiagnostic] = []
                vals[k].append(time { d = FlowValidator.validate(doc) })
                precondition(d.count < 1000)
            }
        }
    }
    for k in 0..<2 {
        print(
            String(
                format: "%d: tape %.1f ms (%.2f×)  load %.1f ms (%.2f×)  validate %.1f ms (%.2f×)", sizes[k], median(tapes[k]) * 1e3,
                median(tapes[k]) / median(tapes[0]), median(loads[k]) * 1e3, median(loads[k]) / median(loads[0]), median(vals[k]) * 1e3,
                median(vals[k]) / median(vals[0])))
    }
}
