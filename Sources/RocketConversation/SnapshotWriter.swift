import RocketCore
package import RocketJSON

// The snapshot's JSON, version 2 (docs/SNAPSHOT_FORMAT.md), written straight into bytes and read
// straight from the tape: blocks are named by their ids, enumerations are words, every field is
// stated here and in the document, nothing comes from the compiler's synthesized shapes. A
// server writes one per changed conversation every few milliseconds.

extension ConversationSnapshot {
    /// The JSON form (one line, without the newline ``jsonText()`` adds), as UTF-8 bytes.
    public func jsonBytes() -> [UInt8] {
        var writer = SnapshotWriter(w: JSONBytes(capacity: 256 + state.transcript.count * 64))
        writer.snapshot(self)
        return writer.out
    }
}

/// The words of version 2, for the status, the timer actions and the validation rules.
enum SnapshotWords {
    static let status = [ConversationStatus.notShown, .presenting, .active, .closing(.completed), .dismissed(.completed)].map(\.word)
    static let actions = ["appendRoot", "autoAdvance", "advance", "closeByUser", "finishClosing"]
    static let rules = [
        "required", "tooShort", "tooLong", "pattern", "invalidPattern", "patternTooComplex", "wrongType", "tooSmall", "tooLarge", "tooFewChosen",
        "tooManyChosen",
    ]
    static let top = [
        "format", "version", "flow", "status", "reason", "blocks", "transcript", "answers", "inputError", "timers", "sequence",
        "awaitingDecision", "includesSecrets", "held", "variables", "checkpoints", "returns", "returnCheckpoints", "draft",
        "patternSteps",
    ]
    static let draft = ["block", "text", "chosen"]
    static let block = ["id", "fired", "tapEnabled", "pressed", "chosen"]
    static let item = ["block", "reply", "text", "secret"]
    static let answer = ["value", "secret"]
    static let failure = ["rule", "limit", "pattern", "type", "bound", "message"]
    static let timer = ["remaining", "sequence", "action", "block", "to", "reason"]
}

/// Appends a snapshot as version-2 JSON.
struct SnapshotWriter {
    var w = JSONBytes()
    var out: [UInt8] { w.out }

    mutating func snapshot(_ s: ConversationSnapshot) {
        let st = s.state
        func name(_ id: RocketNodeID) -> String { s.names.name(of: id) }
        w.open()
        w.key("format", first: true)
        w.string(s.format)
        w.key("version")
        w.number(ConversationSnapshot.currentVersion)
        w.key("flow")
        w.string(s.flow)
        w.key("status")
        w.string(st.status.word)
        if let r = st.status.reason {
            w.key("reason")
            w.string(r.rawValue)
        }
        w.key("blocks")
        w.openArray()
        for (i, id) in st.shown.enumerated() {
            if i > 0 { w.comma() }
            let flags = i < st.flags.count ? st.flags[i] : ConversationState.BlockFlags(fired: false, tapEnabled: true)
            w.open()
            w.key("id", first: true)
            w.string(name(id))
            w.key("fired")
            w.bool(flags.fired)
            w.key("tapEnabled")
            w.bool(flags.tapEnabled)
            if let side = st.pressedSide[i] {
                w.key("pressed")
                w.string(side.rawValue)
            }
            if let chosen = st.chosenOptions?[i] {
                w.key("chosen")
                w.number(chosen)
            } else if let set = st.chosenSets?[i] {
                // A multiple choice's options, in option order.
                w.key("chosen")
                w.numbers(set)
            }
            w.close()
        }
        w.closeArray()
        w.key("transcript")
        w.openArray()
        for (i, item) in st.transcript.enumerated() {
            if i > 0 { w.comma() }
            w.open()
            switch item {
            case .block(let index, _, let text):
                w.key("block", first: true)
                w.number(index)
                w.key("text")
                w.string(text)
            case .reply(let blockIndex, let text, let isSecret):
                w.key("reply", first: true)
                w.number(blockIndex)
                w.key("text")
                w.string(text)
                if isSecret {
                    w.key("secret")
                    w.bool(true)
                }
            }
            w.close()
        }
        w.closeArray()
        w.key("answers")
        w.open()
        for (i, key) in st.answers.keys.sorted().enumerated() {
            let a = st.answers[key] ?? RocketAnswer(value: "")
            w.key(escaping: key, first: i == 0)
            w.open()
            w.key("value", first: true)
            // A typed answer is written as its value (a number as a number); a text as a string.
            if let typed = a.typed { typed.write(into: &w) } else { w.string(a.value) }
            if a.isSecret {
                w.key("secret")
                w.bool(true)
            }
            w.close()
        }
        w.close()
        if let e = st.inputError {
            w.key("inputError")
            failure(e)
        }
        w.key("timers")
        w.openArray()
        for (i, t) in s.timers.enumerated() {
            if i > 0 { w.comma() }
            w.open()
            w.key("remaining", first: true)
            w.number(t.remaining)
            w.key("sequence")
            w.number(t.sequence)
            w.key("action")
            switch t.action {
            case .appendRoot: w.string("appendRoot")
            case .autoAdvance(let index):
                w.string("autoAdvance")
                w.key("block")
                w.number(index)
            case .advance(let from, let to):
                w.string("advance")
                w.key("block")
                w.number(from)
                if let to {
                    w.key("to")
                    w.string(name(to))
                }
            case .closeByUser: w.string("closeByUser")
            case .finishClosing(let r):
                w.string("finishClosing")
                w.key("reason")
                w.string(r.rawValue)
            }
            w.close()
        }
        w.closeArray()
        w.key("sequence")
        w.number(st.sequence)
        if let waiting = st.awaitingDecision {
            w.key("awaitingDecision")
            w.number(waiting)
        }
        w.key("includesSecrets")
        w.bool(s.includesSecrets)
        if st.heldSince != nil {
            w.key("held")
            w.bool(true)
        }
        if !st.variables.isEmpty {
            w.key("variables")
            RocketValue.write(st.variables, into: &w)
        }
        if !st.checkpoints.isEmpty {
            // The variables as each answered block found them, by its position in `blocks`.
            w.key("checkpoints")
            w.open()
            for (i, c) in st.checkpoints.enumerated() {
                w.key(escaping: String(c.index), first: i == 0)
                RocketValue.write(c.value, into: &w)
            }
            w.close()
        }
        func returns(_ list: [RocketNodeID?]) {
            w.openArray()
            for (k, r) in list.enumerated() {
                if k > 0 { w.comma() }
                if let r { w.string(name(r)) } else { w.null() }
            }
            w.closeArray()
        }
        if !st.returns.isEmpty {
            // Where each returning jump goes on, innermost last.
            w.key("returns")
            returns(st.returns)
        }
        if !st.returnCheckpoints.isEmpty {
            w.key("returnCheckpoints")
            w.open()
            for (i, c) in st.returnCheckpoints.enumerated() {
                w.key(escaping: String(c.index), first: i == 0)
                returns(c.value)
            }
            w.close()
        }
        if let d = st.draft {
            // The block gone back to, and the answer it starts from.
            w.key("draft")
            w.open()
            w.key("block", first: true)
            w.number(d.index)
            if let text = d.text {
                w.key("text")
                w.string(text)
            }
            if let chosen = d.chosen {
                w.key("chosen")
                w.numbers(chosen)
            }
            w.close()
        }
        if st.patternSteps > 0 {
            w.key("patternSteps")
            w.number(st.patternSteps)
        }
        w.close()
    }

    private mutating func failure(_ f: RocketValidationFailure) {
        var word = "", limit: Int? = nil, pattern: String? = nil
        var type: String?, bound: String?
        switch f.rule {
        case .required: (word, limit, pattern) = ("required", nil, nil)
        case .tooShort(let n): (word, limit, pattern) = ("tooShort", n, nil)
        case .tooLong(let n): (word, limit, pattern) = ("tooLong", n, nil)
        case .pattern(let p): (word, limit, pattern) = ("pattern", nil, p)
        case .invalidPattern(let p): (word, limit, pattern) = ("invalidPattern", nil, p)
        case .patternTooComplex(let p): (word, limit, pattern) = ("patternTooComplex", nil, p)
        case .wrongType(let t): (word, type) = ("wrongType", t.rawValue)
        case .tooSmall(let b): (word, bound) = ("tooSmall", b)
        case .tooLarge(let b): (word, bound) = ("tooLarge", b)
        case .tooFewChosen(let n): (word, limit) = ("tooFewChosen", n)
        case .tooManyChosen(let n): (word, limit) = ("tooManyChosen", n)
        }
        w.open()
        w.key("rule", first: true)
        w.string(word)
        if let limit {
            w.key("limit")
            w.number(limit)
        }
        if let pattern {
            w.key("pattern")
            w.string(pattern)
        }
        if let type {
            w.key("type")
            w.string(type)
        }
        if let bound {
            w.key("bound")
            w.string(bound)
        }
        if let m = f.message {
            w.key("message")
            w.string(m)
        }
        w.close()
    }
}

/// How a graph's blocks are named in snapshots: by their id when no other block has it, else
/// `#index` (graphs made in code may lack ids or share them). Made with one pass over the graph;
/// hosts that write many snapshots of one flow keep it.
///
/// ```swift
/// let names = BlockNames(graph)
/// names.name(of: RocketNodeID(0))   // "welcome"
/// names.node(named: "welcome")      // RocketNodeID(0)
/// ```
public struct BlockNames: Hashable, Sendable {
    /// The nodes whose id no other node has, by id.
    private let unique: [String: RocketNodeID]
    /// Each node's id.
    private let ids: [String?]

    /// The names of `graph`'s blocks.
    public init(_ graph: RocketGraph) {
        var first: [String: RocketNodeID] = [:]
        var shared = Set<String>()
        for (i, node) in graph.nodes.enumerated() {
            guard let id = node.id, !id.isEmpty, !id.hasPrefix("#") else { continue }
            if first.updateValue(RocketNodeID(i), forKey: id) != nil { shared.insert(id) }
        }
        for id in shared { first[id] = nil }
        unique = first
        ids = graph.nodes.map { $0.id }
    }

    /// The name of a node.
    public func name(of node: RocketNodeID) -> String {
        if node.rawValue >= 0, node.rawValue < ids.count, let id = ids[node.rawValue], unique[id] == node { return id }
        return "#\(node.rawValue)"
    }

    /// The node a name stands for, or nil.
    public func node(named name: String) -> RocketNodeID? {
        if name.hasPrefix("#"), let i = Int(name.dropFirst()), i >= 0, i < ids.count { return RocketNodeID(i) }
        return unique[name]
    }
}

/// Reads version-2 JSON against the flow's block names.
struct SnapshotReader {
    let tape: JSONTape
    let names: BlockNames

    /// The node a name stands for: an id of the flow, or `#index`.
    func node(_ name: String, path: String) throws(JSONShapeError) -> RocketNodeID {
        if let id = names.node(named: name) { return id }
        throw JSONShapeError("\"\(path)\" names \"\(name)\", which is no block of this flow")
    }

    func word(_ v: Int, path: String, in words: [String]) throws(JSONShapeError) -> Int {
        let s = try JSONFields.string(tape, v, path: path)
        guard let k = words.firstIndex(of: s) else {
            throw JSONShapeError("\"\(path)\" must be one of \(words.map { "\"\($0)\"" }.joined(separator: ", ")), not \"\(s)\"")
        }
        return k
    }

    func snapshot(_ entry: Int, path: String) throws(JSONShapeError) -> ConversationSnapshot {
        let top = try JSONFields(tape, entry, path: path, allowed: SnapshotWords.top)
        var state = ConversationState()
        let reason = try top.member("reason").map { v throws(JSONShapeError) in
            try JSONFields.word(tape, v, path: top.child("reason"), RocketDismissReason.self)
        }
        let statusWord = SnapshotWords.status[try self.word(try top.required("status"), path: top.child("status"), in: SnapshotWords.status)]
        guard let status = ConversationStatus(word: statusWord, reason: reason) else {
            throw JSONShapeError("\"\(top.child("reason"))\" is missing")
        }
        state.status = status
        for (i, v) in try top.items("blocks").enumerated() {
            let b = try JSONFields(tape, v, path: top.child("blocks") + "[\(i)]", allowed: SnapshotWords.block)
            state.shown.append(try node(try b.string("id"), path: b.child("id")))
            state.flags.append(ConversationState.BlockFlags(fired: try b.bool("fired"), tapEnabled: try b.bool("tapEnabled")))
            if let side = try b.member("pressed").map({ v throws(JSONShapeError) in
                try JSONFields.word(tape, v, path: b.child("pressed"), RocketButtonSide.self)
            }) {
                state.pressedSide[i] = side
            }
            if let v = b.member("chosen"), tape.kind(v) == .array {
                var set: [Int] = []
                for (k, j) in try JSONFields.items(tape, v, path: b.child("chosen")).enumerated() {
                    guard let n = tape.number(j), n == n.rounded(), n >= 0, n < 1_000 else {
                        throw JSONShapeError("\"\(b.child("chosen"))[\(k)]\" must be a whole number from 0 to 999")
                    }
                    set.append(Int(n))
                }
                state.chosenSets = (state.chosenSets ?? [:]).merging([i: set]) { $1 }
            } else if let chosen = try b.optionalInt("chosen") {
                state.chosenOptions = (state.chosenOptions ?? [:]).merging([i: chosen]) { $1 }
            }
        }
        for (i, v) in try top.items("transcript").enumerated() {
            let t = try JSONFields(tape, v, path: top.child("transcript") + "[\(i)]", allowed: SnapshotWords.item)
            let text = try t.string("text")
            switch (try t.optionalInt("block"), try t.optionalInt("reply")) {
            case (let index?, nil):
                guard state.shown.indices.contains(index) else { throw JSONShapeError("\"\(t.child("block"))\" is not a shown block") }
                state.transcript.append(.block(index: index, node: state.shown[index], text: text))
            case (nil, let index?):
                state.transcript.append(.reply(blockIndex: index, text: text, isSecret: try t.flag("secret")))
            default:
                throw JSONShapeError("\(t.path) needs exactly one of \"block\" and \"reply\"")
            }
        }
        for (key, v) in try top.entries("answers") {
            let a = try JSONFields(tape, v, path: top.child("answers") + "." + key, allowed: SnapshotWords.answer)
            let v = try a.required("value")
            if let text = tape.string(v) {
                state.answers[key] = RocketAnswer(value: text, isSecret: try a.flag("secret"))
            } else {
                let typed = try RocketValue(tape, v, path: a.child("value"))
                state.answers[key] = RocketAnswer(value: typed.displayText, isSecret: try a.flag("secret"), typed: typed)
            }
        }
        if let e = try top.optionalObject("inputError", allowed: SnapshotWords.failure) {
            let rule: RocketValidationFailure.Rule
            switch try word(try e.required("rule"), path: e.child("rule"), in: SnapshotWords.rules) {
            case 0: rule = .required
            case 1: rule = .tooShort(try e.int("limit"))
            case 2: rule = .tooLong(try e.int("limit"))
            case 3: rule = .pattern(try e.string("pattern"))
            case 4: rule = .invalidPattern(try e.string("pattern"))
            case 5: rule = .patternTooComplex(try e.string("pattern"))
            case 6: rule = .wrongType(try JSONFields.word(tape, try e.required("type"), path: e.child("type"), RocketInputType.self))
            case 7: rule = .tooSmall(try e.string("bound"))
            case 8: rule = .tooLarge(try e.string("bound"))
            case 9: rule = .tooFewChosen(try e.int("limit"))
            default: rule = .tooManyChosen(try e.int("limit"))
            }
            state.inputError = RocketValidationFailure(rule: rule, message: try e.optionalString("message"))
        }
        var timers: [ConversationSnapshot.PendingTimer] = []
        for (i, v) in try top.items("timers").enumerated() {
            let t = try JSONFields(tape, v, path: top.child("timers") + "[\(i)]", allowed: SnapshotWords.timer)
            let action: ConversationState.TimerAction
            switch try word(try t.required("action"), path: t.child("action"), in: SnapshotWords.actions) {
            case 0: action = .appendRoot
            case 1: action = .autoAdvance(index: try t.int("block"))
            case 2:
                let to = try t.optionalString("to").map { name throws(JSONShapeError) in try node(name, path: t.child("to")) }
                action = .advance(from: try t.int("block"), to: to)
            case 3: action = .closeByUser
            default:
                action = .finishClosing(
                    try JSONFields.word(tape, try t.required("reason"), path: t.child("reason"), RocketDismissReason.self))
            }
            timers.append(ConversationSnapshot.PendingTimer(remaining: try t.double("remaining"), sequence: try t.int("sequence"), action: action))
        }
        state.sequence = try top.int("sequence")
        state.awaitingDecision = try top.optionalInt("awaitingDecision")
        // Held auto-advance: the timers' remaining time is as it was when held; the restore
        // holds again from its own now.
        if try top.flag("held") { state.heldSince = 0 }
        state.variables = try RocketValue.read(top, "variables")
        for (key, v) in try top.entries("checkpoints") {
            guard let index = Int(key), state.shown.indices.contains(index) else {
                throw JSONShapeError("\"\(top.child("checkpoints")).\(key)\" is not a shown block")
            }
            state.checkpoints.append(.init(index: index, value: try RocketValue.values(tape, v, path: top.child("checkpoints") + "." + key)))
        }
        state.checkpoints.sort { $0.index < $1.index }
        func returns(_ v: Int, path: String) throws(JSONShapeError) -> [RocketNodeID?] {
            var out: [RocketNodeID?] = []
            for (k, j) in try JSONFields.items(tape, v, path: path).enumerated() {
                out.append(tape.kind(j) == .null ? nil : try node(try JSONFields.string(tape, j, path: path + "[\(k)]"), path: path + "[\(k)]"))
            }
            return out
        }
        if let v = top.member("returns") { state.returns = try returns(v, path: top.child("returns")) }
        if let v = top.member("returnCheckpoints") {
            guard tape.kind(v) == .object else { throw JSONShapeError("\"\(top.child("returnCheckpoints"))\" must be an object") }
            var j = v + 1
            for _ in 0..<tape.count(v) {
                let key = tape.string(j) ?? ""
                guard let index = Int(key), state.shown.indices.contains(index) else {
                    throw JSONShapeError("\"\(top.child("returnCheckpoints")).\(key)\" is not a shown block")
                }
                state.returnCheckpoints.append(.init(index: index, value: try returns(j + 1, path: top.child("returnCheckpoints") + "." + key)))
                j = tape.next(after: j + 1)
            }
            state.returnCheckpoints.sort { $0.index < $1.index }
        }
        if let v = top.member("draft") {
            let d = try JSONFields(tape, v, path: top.child("draft"), allowed: SnapshotWords.draft)
            let index = try d.int("block")
            guard state.shown.indices.contains(index) else { throw JSONShapeError("\"\(d.child("block"))\" is not a shown block") }
            var chosen: [Int]?
            if d.member("chosen") != nil {
                chosen = []
                for (k, v) in try d.items("chosen").enumerated() {
                    let n = try JSONFields.int(tape, v, path: d.child("chosen") + "[\(k)]")
                    guard n >= 0 else { throw JSONShapeError("\"\(d.child("chosen"))[\(k)]\" must be a whole number from 0") }
                    chosen?.append(n)
                }
            }
            state.draft = .init(index: index, text: try d.optionalString("text"), chosen: chosen)
        }
        if let n = try top.optionalInt("patternSteps") {
            guard (0...RocketLimits.conversationPatternSteps).contains(n) else {
                throw JSONShapeError("\"\(top.child("patternSteps"))\" must be a whole number from 0 to \(RocketLimits.conversationPatternSteps)")
            }
            state.patternSteps = n
        }
        return ConversationSnapshot(
            format: try top.string("format"), version: ConversationSnapshot.currentVersion, flow: try top.string("flow"), state: state,
            timers: timers, includesSecrets: try top.bool("includesSecrets"), names: names)
    }
}

extension ConversationOptions {
    /// The stored form (docs/SNAPSHOT_FORMAT.md, "Options"): the timing's five numbers, whether
    /// replies are echoed, and the answers given before the start.
    package func write(into w: inout JSONBytes) {
        w.open()
        w.key("timing", first: true)
        w.open()
        w.key("intro", first: true)
        w.number(timing.intro)
        w.key("bounce")
        w.number(timing.bounce)
        w.key("doubleBounce")
        w.number(timing.doubleBounce)
        w.key("closing")
        w.number(timing.closing)
        w.key("autoAdvanceScale")
        w.number(timing.autoAdvanceScale)
        w.close()
        w.key("echoReplies")
        w.bool(echoReplies)
        w.key("initialAnswers")
        w.open()
        for (i, key) in initialAnswers.keys.sorted().enumerated() {
            w.key(escaping: key, first: i == 0)
            w.string(initialAnswers[key] ?? "")
        }
        w.close()
        if !initialVariables.isEmpty {
            w.key("initialVariables")
            RocketValue.write(initialVariables, into: &w)
        }
        if let localShift {
            w.key("localShift")
            w.number(localShift)
        }
        if !boundsLength {
            w.key("boundsLength")
            w.bool(false)
        }
        w.close()
    }

    /// Reads the stored form (the same keys the version-1 `Codable` form had).
    package init(_ o: JSONFields) throws(JSONShapeError) {
        let t = try o.object("timing", allowed: ["intro", "bounce", "doubleBounce", "closing", "autoAdvanceScale"])
        func seconds(_ key: String) throws(JSONShapeError) -> Double {
            let v = try t.double(key)
            guard v.isFinite, v >= 0, v <= 1e9 else { throw JSONShapeError("\"\(t.child(key))\" must be from 0 to 10⁹, not \(v)") }
            return v
        }
        let timing = RocketTiming(
            intro: try seconds("intro"), bounce: try seconds("bounce"), doubleBounce: try seconds("doubleBounce"),
            closing: try seconds("closing"), autoAdvanceScale: try seconds("autoAdvanceScale"))
        var answers: [String: String] = [:]
        for (key, v) in try o.entries("initialAnswers") { answers[key] = try JSONFields.string(o.tape, v, path: o.child("initialAnswers") + "." + key) }
        var shift: Double?
        if o.member("localShift") != nil {
            let v = try o.double("localShift")
            guard v.isFinite, abs(v) <= 1e12 else { throw JSONShapeError("\"\(o.child("localShift"))\" must be a number of seconds, not \(v)") }
            shift = v
        }
        self.init(
            timing: timing, echoReplies: try o.bool("echoReplies"), initialAnswers: answers,
            initialVariables: try RocketValue.read(o, "initialVariables"), localShift: shift,
            boundsLength: o.member("boundsLength") == nil ? true : try o.bool("boundsLength"))
    }

    /// The keys of the stored form.
    package static let storedKeys = ["timing", "echoReplies", "initialAnswers", "initialVariables", "localShift", "boundsLength"]
}

extension RocketValue {
    /// Writes values by name as one JSON object, names in order.
    package static func write(_ values: [String: RocketValue], into w: inout JSONBytes) {
        w.open()
        for (i, key) in values.keys.sorted().enumerated() {
            w.key(escaping: key, first: i == 0)
            values[key, default: .null].write(into: &w)
        }
        w.close()
    }

    /// The value as a JSON value.
    package var json: JSONValue {
        switch self {
        case .null: return .null
        case .bool(let b): return .bool(b)
        case .number(let n): return .number(n)
        case .text(let s): return .string(s)
        case .list(let items): return .array(items.map { .string($0) })
        }
    }

    /// Writes the value as the JSON value it is.
    package func write(into w: inout JSONBytes) {
        switch self {
        case .null: w.null()
        case .bool(let b): w.bool(b)
        case .number(let n): w.number(n)
        case .text(let s): w.string(s)
        case .list(let items):
            w.strings(items)
        }
    }

    /// Reads the object member `key` of `o` as values by name (absent: none).
    package static func read(_ o: JSONFields, _ key: String) throws(JSONShapeError) -> [String: RocketValue] {
        guard let v = o.member(key) else { return [:] }
        return try values(o.tape, v, path: o.child(key))
    }

    /// Reads the object at entry `v` as values by name (a name given twice is refused).
    package static func values(_ tape: JSONTape, _ v: Int, path: String) throws(JSONShapeError) -> [String: RocketValue] {
        guard tape.kind(v) == .object else { throw JSONShapeError("\"\(path)\" must be an object, not \(tape.typeName(v))") }
        var out: [String: RocketValue] = [:]
        var j = v + 1
        for _ in 0..<tape.count(v) {
            let name = tape.string(j) ?? ""
            guard out[name] == nil else { throw JSONShapeError("the key \"\(name)\" appears twice in \"\(path)\"") }
            out[name] = try RocketValue(tape, j + 1, path: path + "." + name)
            j = tape.next(after: j + 1)
        }
        return out
    }

    /// Reads a JSON value: null, a boolean, a finite number, a string, or an array of strings.
    package init(_ tape: JSONTape, _ v: Int, path: String) throws(JSONShapeError) {
        switch tape.kind(v) {
        case .null: self = .null
        case .bool: self = .bool(tape.bool(v)!)
        case .number:
            guard let n = tape.number(v), n.isFinite else { throw JSONShapeError("\"\(path)\" must be a finite number") }
            self = .number(n)
        case .string: self = .text(tape.string(v)!)
        case .array:
            var items: [String] = []
            for (k, j) in try JSONFields.items(tape, v, path: path).enumerated() { items.append(try JSONFields.string(tape, j, path: path + "[\(k)]")) }
            self = .list(items)
        case .object: throw JSONShapeError("\"\(path)\" must be null, true or false, a number, a string or a list of strings, not an object")
        }
    }
}
