import RocketJSON

// The snapshot's JSON written straight into bytes. It is the same document the synthesized
// `Codable` conformances give through `JSONCoding` (the reader decodes it with them; a test
// compares the two over generated states), about twenty times cheaper: a server writes one per
// changed conversation every few milliseconds. Integer-keyed maps are written in key order (the
// `Codable` form writes them in hash order); numbers that are not finite are written as 0, where
// the `Codable` form refuses the whole snapshot.

extension ConversationSnapshot {
    /// The JSON form (one line, without the newline ``jsonText()`` adds), as UTF-8 bytes.
    public func jsonBytes() -> [UInt8] {
        var writer = SnapshotWriter(w: JSONBytes(capacity: 256 + state.transcript.count * 64))
        writer.snapshot(self)
        return writer.out
    }
}

/// Appends the snapshot's parts as JSON.
struct SnapshotWriter {
    var w = JSONBytes()
    var out: [UInt8] { w.out }

    private mutating func key(_ k: StaticString, first: Bool = false) { w.key(k, first: first) }
    private mutating func string(_ s: String) { w.string(s) }
    private mutating func int(_ n: Int) { w.number(n) }
    private mutating func bool(_ b: Bool) { w.bool(b) }
    private mutating func double(_ v: Double) { w.number(v) }
    private mutating func enumCase(_ name: StaticString) { w.enumCase(name) }
    private mutating func emptyCase(_ name: StaticString) { w.emptyCase(name) }
    private mutating func close(_ n: Int = 1) { w.close(n) }

    /// `{"name":{"_0":"value"}}`: a case with one unlabeled string.
    private mutating func unlabeledCase(_ name: StaticString, _ value: String) {
        enumCase(name)
        key("_0", first: true)
        string(value)
        close(2)
    }

    /// `{"name":{"_0":n}}`: a case with one unlabeled whole number.
    private mutating func unlabeledCase(_ name: StaticString, _ value: Int) {
        enumCase(name)
        key("_0", first: true)
        int(value)
        close(2)
    }

    mutating func snapshot(_ s: ConversationSnapshot) {
        w.open()
        key("format", first: true)
        string(s.format)
        key("version")
        int(s.version)
        key("flow")
        string(s.flow)
        key("state")
        state(s.state)
        key("timers")
        timers(s.timers, "remaining") { ($0.remaining, $0.sequence, $0.action) }
        key("includesSecrets")
        bool(s.includesSecrets)
        close()
    }

    mutating func state(_ s: ConversationState) {
        w.open()
        key("status", first: true)
        status(s.status)
        key("shown")
        w.openArray()
        for (i, id) in s.shown.enumerated() {
            if i > 0 { w.comma() }
            int(id.rawValue)
        }
        w.closeArray()
        key("flags")
        w.openArray()
        for (i, f) in s.flags.enumerated() {
            if i > 0 { w.comma() }
            w.open()
            key("fired", first: true)
            bool(f.fired)
            key("tapEnabled")
            bool(f.tapEnabled)
            close()
        }
        w.closeArray()
        key("transcript")
        w.openArray()
        for (i, item) in s.transcript.enumerated() {
            if i > 0 { w.comma() }
            transcriptItem(item)
        }
        w.closeArray()
        key("answers")
        w.open()
        for (i, name) in s.answers.keys.sorted().enumerated() {
            if i > 0 { w.comma() }
            w.key(escaping: name, first: true)
            let a = s.answers[name] ?? RocketAnswer(value: "")
            w.open()
            key("value", first: true)
            string(a.value)
            key("isSecret")
            bool(a.isSecret)
            close()
        }
        close()
        if let e = s.inputError {
            key("inputError")
            failure(e)
        }
        key("pressedSide")
        intMap(s.pressedSide) { w, side in w.string(side.rawValue) }
        if let chosen = s.chosenOptions {
            key("chosenOptions")
            intMap(chosen) { w, n in w.int(n) }
        }
        key("timers")
        timers(s.timers, "deadline") { ($0.deadline, $0.sequence, $0.action) }
        key("sequence")
        int(s.sequence)
        if let waiting = s.awaitingDecision {
            key("awaitingDecision")
            int(waiting)
        }
        close()
    }

    /// An `[Int: V]` map as the `Codable` form writes it: an object keyed by the decimal numbers.
    private mutating func intMap<V>(_ map: [Int: V], _ value: (inout SnapshotWriter, V) -> Void) {
        w.open()
        for (i, k) in map.keys.sorted().enumerated() {
            if i > 0 { w.comma() }
            w.key(escaping: String(k), first: true)  // the decimal Int, whatever its size
            if let v = map[k] { value(&self, v) }
        }
        close()
    }

    /// `[{"<time>":t,"sequence":n,"action":…},…]`: timers, pending (time left) or running
    /// (deadline), as their `Codable` forms write them.
    private mutating func timers<T>(_ items: [T], _ time: StaticString, _ parts: (T) -> (Double, Int, ConversationState.TimerAction)) {
        w.openArray()
        for (i, item) in items.enumerated() {
            if i > 0 { w.comma() }
            let (t, sequence, a) = parts(item)
            w.open()
            key(time, first: true)
            double(t)
            key("sequence")
            int(sequence)
            key("action")
            action(a)
            close()
        }
        w.closeArray()
    }

    private mutating func status(_ s: ConversationStatus) {
        switch s {
        case .notShown: emptyCase("notShown")
        case .presenting: emptyCase("presenting")
        case .active: emptyCase("active")
        case .closing(let r):
            unlabeledCase("closing", r.rawValue)
        case .dismissed(let r):
            unlabeledCase("dismissed", r.rawValue)
        }
    }

    private mutating func transcriptItem(_ item: TranscriptItem) {
        switch item {
        case .block(let index, let node, let text):
            enumCase("block")
            key("index", first: true)
            int(index)
            key("node")
            int(node.rawValue)
            key("text")
            string(text)
        case .reply(let blockIndex, let text, let isSecret):
            enumCase("reply")
            key("blockIndex", first: true)
            int(blockIndex)
            key("text")
            string(text)
            key("isSecret")
            bool(isSecret)
        }
        close(2)
    }

    private mutating func action(_ a: ConversationState.TimerAction) {
        switch a {
        case .appendRoot: emptyCase("appendRoot")
        case .autoAdvance(let index):
            enumCase("autoAdvance")
            key("index", first: true)
            int(index)
            close(2)
        case .advance(let from, let to):
            enumCase("advance")
            key("from", first: true)
            int(from)
            if let to {
                key("to")
                int(to.rawValue)
            }
            close(2)
        case .closeByUser: emptyCase("closeByUser")
        case .finishClosing(let r):
            unlabeledCase("finishClosing", r.rawValue)
        }
    }

    private mutating func failure(_ f: RocketValidationFailure) {
        w.open()
        key("rule", first: true)
        switch f.rule {
        case .required: emptyCase("required")
        case .tooShort(let n):
            unlabeledCase("tooShort", n)
        case .tooLong(let n):
            unlabeledCase("tooLong", n)
        case .pattern(let p):
            unlabeledCase("pattern", p)
        case .invalidPattern(let p):
            unlabeledCase("invalidPattern", p)
        case .patternTooComplex(let p):
            unlabeledCase("patternTooComplex", p)
        }
        if let m = f.message {
            key("message")
            string(m)
        }
        close()
    }
}
