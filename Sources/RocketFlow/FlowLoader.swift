public import RocketJSON
import RocketConversation
import RocketCore
import RocketScenarioEngine
import RocketBanners

/// Reads flow files: JSON text → ``FlowDocument`` plus diagnostics with line and column.
///
/// Loading never traps. Bad JSON, wrong types, unknown fields and block types, missing fields,
/// and every rule of ``FlowValidator`` come back as ``FlowDiagnostic``s; hostile input (huge
/// files, deep nesting, long strings, invalid UTF-8) is stopped by `JSONReaderLimits`.
///
/// ```swift
/// let result = FlowLoader.load(Array(text.utf8))
/// for d in result.diagnostics { print(d.formatted(file: "flow.json")) }
/// if result.isPlayable, let doc = result.document { … }
/// ```
public enum FlowLoader {
    /// Loads and validates a flow from UTF-8 bytes. A flow in several languages (`languages`)
    /// is read in `language` when it has it (its first language otherwise, and when nil).
    public static func load(_ bytes: [UInt8], limits: JSONReaderLimits = JSONReaderLimits(), language: String? = nil) -> FlowLoadResult {
        load(bytes, limits: limits, format: .v1, language: language)
    }

    /// Loads and validates a flow in the given format (tests pass a changed table).
    static func load(_ bytes: [UInt8], limits: JSONReaderLimits = JSONReaderLimits(), format: FlowFormat, language: String? = nil) -> FlowLoadResult {
        if bytes.count > limits.maxBytes { return tooLarge(size: bytes.count, limits: limits) }
        let tape: JSONTape
        do {
            tape = try JSONTape.parse(bytes, limits: limits)
        } catch {
            let (l, c) = SourceLines(bytes).position(of: error.offset)
            return FlowLoadResult(
                document: nil,
                diagnostics: [
                    FlowDiagnostic(severity: .error, code: "json-syntax", message: error.message, path: "", line: l, column: c)
                ])
        }
        var decoder = FlowDecoder(tape: tape, format: format)
        decoder.language = language
        let document = decoder.decodeDocument()
        let shapeErrors = decoder.shapeBroken
        var diagnostics = decoder.placedDiagnostics()
        var unlisted = decoder.found.unlisted
        var unlistedErrors = decoder.found.unlistedErrors
        if let document {
            // Every error of a file in one run: the rules run on what could be decoded, too. With
            // shape errors present only their errors are kept (warnings would guess at the rest).
            let rules = FlowValidator.check(document, ids: decoder.ids, partial: shapeErrors, broken: decoder.broken)
            let kept = shapeErrors ? rules.collapsed.filter { $0.severity == .error } : rules.collapsed
            diagnostics += placed(kept, in: tape)
            unlisted += shapeErrors ? rules.unlistedErrors : rules.unlisted
            unlistedErrors += rules.unlistedErrors
        }
        diagnostics.sort { ($0.line ?? 0, $0.column ?? 0) < ($1.line ?? 0, $1.column ?? 0) }
        // What was not listed is said last, in one note.
        if let note = FlowDiagnosticList.note(unlisted, error: unlistedErrors > 0) { diagnostics.append(note) }
        return FlowLoadResult(document: shapeErrors ? nil : document, diagnostics: diagnostics)
    }

    /// The result for input over the size limit (callers that stat a file first use it too,
    /// so an over-size file is refused without being read).
    public static func tooLarge(size: Int, limits: JSONReaderLimits = JSONReaderLimits()) -> FlowLoadResult {
        FlowLoadResult(
            document: nil,
            diagnostics: [
                FlowDiagnostic(
                    severity: .error, code: "too-large", message: "the file is \(size) bytes; the limit is \(limits.maxBytes) bytes",
                    path: "", line: 1, column: 1)
            ])
    }

    /// Fills in the line and column of diagnostics found outside the loader (for example by a
    /// host that checks the files a flow names), from the flow's bytes.
    public static func placed(_ diagnostics: [FlowDiagnostic], in bytes: [UInt8]) -> [FlowDiagnostic] {
        guard !diagnostics.isEmpty, let tape = try? JSONTape.parse(bytes) else { return diagnostics }
        return placed(diagnostics, in: tape)
    }

    /// Places diagnostics by their paths; the tree a path is looked up in is built only here.
    static func placed(_ diagnostics: [FlowDiagnostic], in tape: JSONTape) -> [FlowDiagnostic] {
        guard !diagnostics.isEmpty else { return diagnostics }
        var offsets = FlowSourceMap(tape: tape).offsets(of: diagnostics.map(\.path))
        for (k, d) in diagnostics.enumerated() {
            if let inner = d.inner { offsets[k] = Self.offset(inner, inStringAt: offsets[k], tape.bytes) }
        }
        let positions = SourceLines(tape.bytes).positions(of: offsets)
        var out = diagnostics
        for k in out.indices { (out[k].line, out[k].column) = positions[k] }
        return out
    }

    /// The byte offset in the file of byte `inner` of the value of the JSON string whose opening
    /// quote is at `start`: escapes (`\n`, `\u00e9`, surrogate pairs) are walked as the value's
    /// bytes they stand for. The string's start when `start` is not a string.
    static func offset(_ inner: Int, inStringAt start: Int, _ bytes: [UInt8]) -> Int {
        guard start >= 0, start < bytes.count, bytes[start] == 0x22 else { return start }
        var raw = start + 1, value = 0
        while raw < bytes.count, bytes[raw] != 0x22, value < inner {
            if bytes[raw] == 0x5C, raw + 1 < bytes.count {
                if bytes[raw + 1] == 0x75, raw + 5 < bytes.count {
                    let hex = String(decoding: bytes[(raw + 2)..<(raw + 6)], as: UTF8.self)
                    let unit = UInt32(hex, radix: 16) ?? 0
                    if unit >= 0xD800, unit < 0xDC00, raw + 11 < bytes.count, bytes[raw + 6] == 0x5C {
                        raw += 12
                        value += 4
                    } else {
                        raw += 6
                        value += unit < 0x80 ? 1 : unit < 0x800 ? 2 : 3
                    }
                } else {
                    raw += 2
                    value += 1
                }
            } else {
                raw += 1
                value += 1
            }
        }
        return raw
    }

    /// Loads a flow from a string.
    public static func load(_ text: String) -> FlowLoadResult {
        load(Array(text.utf8))
    }
}

/// Finds the byte offsets of document paths (`blocks[3].left.next`) in a flow's JSON, on demand.
///
/// Only diagnostics need places, and they are few, so nothing is indexed while loading; a batch of
/// paths indexes each array and object it passes through once.
public struct FlowSourceMap: Sendable {
    let tape: JSONTape

    /// The offset of each path, falling back to its nearest existing parent.
    func offsets(of paths: [String]) -> [Int] {
        var items: [Int: [Int]] = [:]  // array entry → its items' entries
        var members: [Int: [String: Int]] = [:]  // large object entry → key → value entry (the last one)
        return paths.map { path in
            var node = 0
            var rest = Substring(path)
            while !rest.isEmpty {
                if rest.hasPrefix(".") { rest = rest.dropFirst() }
                if rest.hasPrefix("[") {
                    guard let close = rest.firstIndex(of: "]"), let i = Int(rest[rest.index(after: rest.startIndex)..<close]),
                        tape.kind(node) == .array, i >= 0, i < tape.count(node)
                    else { return tape.offset(node) }
                    if items[node] == nil {
                        var list: [Int] = []
                        list.reserveCapacity(tape.count(node))
                        var j = node + 1
                        for _ in 0..<tape.count(node) {
                            list.append(j)
                            j = tape.next(after: j)
                        }
                        items[node] = list
                    }
                    node = items[node]![i]
                    rest = rest[rest.index(after: close)...]
                } else {
                    let end = rest.firstIndex { $0 == "." || $0 == "[" } ?? rest.endIndex
                    guard tape.kind(node) == .object else { return tape.offset(node) }
                    let key = String(rest[..<end])
                    var found: Int?
                    if tape.count(node) <= 16 {
                        // The objects of a flow have a handful of keys: a walk, the last one wins.
                        var j = node + 1
                        for _ in 0..<tape.count(node) {
                            if tape.string(j, is: key) { found = j + 1 }
                            j = tape.next(after: j + 1)
                        }
                    } else {
                        if members[node] == nil {
                            var keys: [String: Int] = [:]
                            var j = node + 1
                            for _ in 0..<tape.count(node) {
                                keys[tape.string(j) ?? ""] = j + 1
                                j = tape.next(after: j + 1)
                            }
                            members[node] = keys
                        }
                        found = members[node]![key]
                    }
                    guard let value = found else { return tape.offset(node) }
                    node = value
                    rest = rest[end...]
                }
            }
            return tape.offset(node)
        }
    }
}

/// A document path (`blocks[3].left.next`), formed only when a diagnostic needs it: a block's
/// path is its index until then.
struct FlowPath {
    /// The block the path starts at, or -1 for paths outside `blocks`.
    var block = -1
    /// The rest, starting with "." below a block.
    var rest = ""

    static let root = FlowPath()

    init(block: Int = -1, rest: String = "") {
        self.block = block
        self.rest = rest
    }

    init(_ rest: String) { self.rest = rest }

    var isEmpty: Bool { block < 0 && rest.isEmpty }

    /// The path of a field below this one.
    func child(_ key: String) -> FlowPath {
        FlowPath(block: block, rest: isEmpty ? key : rest + "." + key)
    }

    /// The path of a field named in the source.
    func child(_ key: StaticString) -> FlowPath { child(key.description) }

    /// The path of an item of the array at this path.
    func item(_ i: Int) -> FlowPath {
        FlowPath(block: block, rest: rest + "[" + String(i) + "]")
    }

    var text: String { block < 0 ? rest : "blocks[" + String(block) + "]" + rest }

    /// The last key of the path ("title" of `blocks[2].options[1].title`), for messages.
    var lastKey: String { String(text.split(separator: ".").last ?? "") }
}

/// Turns a JSON tape into a document through the format's table, collecting every error
/// instead of stopping at the first.
///
/// It walks the tape's entries directly: keys are compared in place, strings are built only for
/// values the document keeps, and paths are formed only for diagnostics. Block ids are read in a
/// first pass, so `next` and `start` are resolved to nodes as they are read, wherever the block
/// they name stands.
struct FlowDecoder {
    let tape: JSONTape
    /// The table that says what each object holds.
    let format: FlowFormat
    /// What was found, repeats collapsed, bounded.
    var found = FlowDiagnosticList()
    /// True once an error of shape was found (a reference to a missing block is not one: the
    /// document is still whole).
    var shapeBroken = false
    /// The blocks' ids, from the first pass.
    var ids = BlockIDs(ids: [])
    /// The `start` block, once read (nil inside: `start` names no block).
    var start: RocketNodeID??
    /// True for each block that could not be read (empty until one could not).
    var broken: [Bool] = []
    /// The block being read (references to the block after it are found without hashing).
    var currentBlock = -1
    /// "Did you mean" costs a pass over every id: offered for the first 20 unknown names only.
    var hintsLeft = 20
    /// The flow's languages (its `languages`, read before anything else), the first the default.
    var languages: [String] = []
    /// The language the flow is read in (nil: the default).
    var language: String?
    /// `when.if`, once read.
    var showIf: RocketExpression?

    /// The format's `type` words, matched in place.
    let blockWords: [String]

    init(tape: JSONTape, format: FlowFormat = .v1) {
        self.tape = tape
        self.format = format
        blockWords = format.blockWords
    }

    mutating func error(_ code: String, _ message: String, path: FlowPath, at offset: Int) {
        shapeBroken = true
        found.add(.error, code, message, path: path.text, offset: offset)
    }

    /// The diagnostics with repeats collapsed and their places filled in.
    func placedDiagnostics() -> [FlowDiagnostic] { found.placed(in: SourceLines(tape.bytes)) }

    // MARK: Values

    mutating func readString(_ v: Int, _ place: @autoclosure () -> FlowPath) -> String? {
        if let s = tape.string(v) { return s }
        let path = place()
        error("wrong-type", "\"\(path.lastKey)\" must be a string, not \(tape.typeName(v))", path: path, at: tape.offset(v))
        return nil
    }

    /// A text a user reads: a string, or an object of the flow's languages, each a string (the
    /// text in the language the flow is read in is returned). A translation missing, or one whose
    /// placeholders are not the default's, is a warning at it; a language the flow does not
    /// declare, or the default missing, an error.
    mutating func readText(_ v: Int, _ place: @autoclosure () -> FlowPath) -> String? {
        if let s = tape.string(v) { return s }
        guard tape.kind(v) == .object else {
            let path = place()
            error(
                "wrong-type", "\"\(path.lastKey)\" must be a string or an object of texts by language, not \(tape.typeName(v))", path: path,
                at: tape.offset(v))
            return nil
        }
        let path = place()
        guard let main = languages.first else {
            error("no-languages", "a text in several languages needs \"languages\" at the top of the flow", path: path, at: tape.offset(v))
            return nil
        }
        var texts: [String: String] = [:]
        var at: [String: Int] = [:]
        var j = v + 1
        for _ in 0..<tape.count(v) {
            let lang = tape.string(j) ?? ""
            if !languages.contains(lang) {
                let known = languages.map { "\"\($0)\"" }.joined(separator: ", ")
                error(
                    "unknown-language", "\(FlowDiagnostic.quoted(lang)) is not one of the flow's languages (\(known))", path: path.child(lang),
                    at: tape.offset(j))
            } else if let s = readString(j + 1, path.child(lang)) {
                texts[lang] = s
                at[lang] = tape.offset(j)
            }
            j = tape.next(after: j + 1)
        }
        guard let base = texts[main] else {
            error("missing-translation", "the text in the default language \"\(main)\" is missing", path: path, at: tape.offset(v))
            return nil
        }
        for lang in languages.dropFirst() where texts[lang] == nil {
            found.add(.warning, "missing-translation", "no \"\(lang)\" text: the \"\(main)\" one is shown", path: path.text, offset: tape.offset(v))
        }
        let wanted = Set(RocketTemplate.placeholders(in: base))
        for (lang, text) in texts where lang != main {
            let names = Set(RocketTemplate.placeholders(in: text))
            guard names != wanted else { continue }
            let show = { (s: Set<String>) in s.isEmpty ? "none" : s.sorted().map { "{{\($0)}}" }.joined(separator: ", ") }
            found.add(
                .warning, "translation-placeholders",
                "the \(FlowDiagnostic.quoted(lang)) text fills \(show(names)), the \"\(main)\" one \(show(wanted))", path: path.child(lang).text,
                offset: at[lang] ?? tape.offset(v))
        }
        return texts[language ?? main] ?? base
    }

    mutating func readBool(_ v: Int, _ place: @autoclosure () -> FlowPath) -> Bool? {
        if let b = tape.bool(v) { return b }
        let path = place()
        error("wrong-type", "\"\(path.lastKey)\" must be true or false, not \(tape.typeName(v))", path: path, at: tape.offset(v))
        return nil
    }

    mutating func readNumber(_ v: Int, _ place: @autoclosure () -> FlowPath, min: Double?, max: Double) -> Double? {
        guard let n = tape.number(v) else {
            let path = place()
            error("wrong-type", "\"\(path.lastKey)\" must be a number, not \(tape.typeName(v))", path: path, at: tape.offset(v))
            return nil
        }
        if let min, n < min {
            let path = place()
            error("out-of-range", "\"\(path.lastKey)\" must be at least \(Self.format(min)), not \(Self.format(n))", path: path, at: tape.offset(v))
            return nil
        }
        if n > max {
            let path = place()
            error("out-of-range", "\"\(path.lastKey)\" must be at most \(Self.format(max)), not \(Self.format(n))", path: path, at: tape.offset(v))
            return nil
        }
        return n
    }

    mutating func readInteger(_ v: Int, _ place: @autoclosure () -> FlowPath, min: Int, max: Int) -> Int? {
        guard let n = readNumber(v, place(), min: nil, max: Double(max)) else { return nil }
        guard n == n.rounded(), n >= Double(min) else {
            let path = place()
            error("out-of-range", "\"\(path.lastKey)\" must be a whole number from \(min), not \(Self.format(n))", path: path, at: tape.offset(v))
            return nil
        }
        return Int(n)
    }

    static func format(_ v: Double) -> String {
        v == v.rounded() && abs(v) < 1e15 ? String(Int(v)) : String(v)
    }

    mutating func readWord<E: RawRepresentable & CaseIterable>(_ v: Int, _ place: @autoclosure () -> FlowPath, _: E.Type) -> E?
    where E.RawValue == String {
        guard let s = readString(v, place()) else { return nil }
        if let e = E(rawValue: s) { return e }
        let path = place()
        let names = E.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")
        error("bad-value", "\"\(path.lastKey)\" must be one of \(names), not \"\(s)\"", path: path, at: tape.offset(v))
        return nil
    }

    /// A duration: a number of seconds, or a string with ms, s, m, h, d or w ("14d").
    mutating func readDuration(_ v: Int, _ place: @autoclosure () -> FlowPath) -> Double? {
        switch tape.kind(v) {
        case .number: return readNumber(v, place(), min: 0, max: ScenarioDuration.maxSeconds)
        case .string:
            let text = tape.string(v)!
            if let d = ScenarioDuration.parse(text) { return d }
            let path = place()
            error(
                "bad-duration",
                "\"\(path.lastKey)\" must be seconds or a duration like \"500ms\", \"90s\", \"2h\", \"14d\" (at most 100 years), not \"\(text)\"",
                path: path, at: tape.offset(v))
            return nil
        default:
            let path = place()
            error(
                "wrong-type", "\"\(path.lastKey)\" must be a number of seconds or a duration string, not \(tape.typeName(v))", path: path,
                at: tape.offset(v))
            return nil
        }
    }

    /// A font: a preset name or a font object.
    mutating func readFont(_ v: Int, _ place: @autoclosure () -> FlowPath) -> RocketFont? {
        switch tape.kind(v) {
        case .string:
            if let k = tape.index(ofKey: v, in: Self.presetNames) { return Self.presets[k] }
            let name = tape.string(v)!
            let names = Self.presetNames.map { "\"\($0)\"" }.joined(separator: ", ")
            error("unknown-font", "unknown font preset \"\(name)\"; use one of \(names) or an object", path: place(), at: tape.offset(v))
            return nil
        case .object:
            return decodeObject(v, path: place(), FlowFormat.fontObject, what: "a font")
        default:
            let path = place()
            error("wrong-type", "\"\(path.lastKey)\" must be a preset name or a font object, not \(tape.typeName(v))", path: path, at: tape.offset(v))
            return nil
        }
    }

    /// The font presets' names, sorted, and the presets in the same order (matched in place).
    static let presetNames = RocketFont.presets.keys.sorted()
    static let presets = presetNames.map { RocketFont.presets[$0]! }

    /// The node a block id names; a missing block is reported (as an error of the document, not
    /// of its shape) and gives nil, which ends the conversation.
    mutating func resolve(_ id: String, at v: Int, path place: @autoclosure () -> FlowPath) -> RocketNodeID? {
        if let k = ids.index(of: id, after: currentBlock) { return RocketNodeID(k) }
        let path = place()
        let hint = unknownIDHint(id)
        let message =
            path.block < 0 && path.rest == "start"
            ? "\"start\" names no block: \(FlowDiagnostic.quoted(id))\(hint)" : "no block has the id \(FlowDiagnostic.quoted(id))\(hint)"
        found.add(.error, "unknown-target", message, path: path.text, offset: tape.offset(v))
        return nil
    }

    mutating func unknownIDHint(_ name: String) -> String {
        guard hintsLeft > 0, ids.ids.count < 5_000 else { return "" }
        hintsLeft -= 1
        return Suggestions.closest(to: name, in: ids.ids.lazy.filter { !$0.isEmpty }).map { "; did you mean \(FlowDiagnostic.quoted($0))?" } ?? ""
    }

    /// A branch's condition: exactly one of `equals`, `matches`, `empty` (only true).
    mutating func readCondition(_ v: Int, _ place: @autoclosure () -> FlowPath) -> RocketInputCondition? {
        let path = place()
        guard let accepted = fields(v, path: path, allowed: Self.conditionFields, what: "\"when\"") else { return nil }
        guard accepted == 1 else {
            error("bad-condition", "\"when\" needs exactly one of \"equals\", \"matches\" or \"empty\"", path: path, at: tape.offset(v))
            return nil
        }
        if let e = tape.member(of: v, "equals") { return readString(e, path.child("equals")).map { .equals($0) } }
        if let m = tape.member(of: v, "matches") { return readString(m, path.child("matches")).map { .pattern($0) } }
        guard let e = tape.member(of: v, "empty"), let b = readBool(e, path.child("empty")) else { return nil }
        if !b { error("bad-condition", "\"empty\" can only be true", path: path.child("empty"), at: tape.offset(e)) }
        return b ? .empty : nil
    }

    mutating func readVersion(_ v: Int, _ place: @autoclosure () -> FlowPath) -> Bool {
        if tape.number(v) == 1 { return true }
        error(
            "unsupported-version", "\"version\" must be 1 (the only version this rocket reads); found \(describe(v))", path: place(),
            at: tape.offset(v))
        return false
    }

    mutating func readStringList(_ v: Int, _ place: @autoclosure () -> FlowPath) -> [String]? {
        let path = place()
        guard tape.kind(v) == .array else {
            error("wrong-type", "\"\(path.lastKey)\" must be an array of names, not \(tape.typeName(v))", path: path, at: tape.offset(v))
            return nil
        }
        var out: [String] = []
        var ok = true
        var j = v + 1
        for i in 0..<tape.count(v) {
            if let s = readString(j, path.item(i)) { out.append(s) } else { ok = false }
            j = tape.next(after: j)
        }
        return ok ? out : nil
    }

    /// Calls `body` with each member of the object at `v` (a name chosen by the author, not a
    /// field of the format): its key and value entry. Not an object, a key given twice, an
    /// empty key and more than `limit` members are errors; false when there was one.
    mutating func forEachEntry(
        _ v: Int, _ place: @autoclosure () -> FlowPath, limit: Int, what: String, _ body: (inout FlowDecoder, String, Int) -> Bool
    ) -> Bool {
        guard tape.kind(v) == .object else {
            let path = place()
            error("wrong-type", "\"\(path.lastKey)\" must be an object of \(what), not \(tape.typeName(v))", path: path, at: tape.offset(v))
            return false
        }
        let n = tape.count(v)
        if n > limit {
            let path = place()
            error("too-many-rules", "\"\(path.lastKey)\" has \(n) \(what); at most \(limit) are allowed", path: path, at: tape.offset(v))
            return false
        }
        var seen = Set<String>()
        var ok = true
        var j = v + 1
        for _ in 0..<n {
            let key = tape.string(j) ?? ""
            if key.isEmpty {
                error("empty-id", "a name in \"\(place().lastKey)\" may not be empty", path: place(), at: tape.offset(j))
                ok = false
            } else if !seen.insert(key).inserted {
                error("repeated-field", "\(FlowDiagnostic.quoted(key)) is given twice", path: place().child(key), at: tape.offset(j))
                ok = false
            } else if !body(&self, key, j + 1) {
                ok = false
            }
            j = tape.next(after: j + 1)
        }
        return ok
    }

    /// A name a flow gives a variable: letters, digits, `_`, `-` and `.`, not starting with a
    /// digit, and not a word of expressions (`and`, `true`, …).
    mutating func checkVariableName(_ name: String, _ place: @autoclosure () -> FlowPath, at offset: Int) -> Bool {
        var ok = !name.isEmpty && !(name.utf8.first.map { $0 >= 0x30 && $0 <= 0x39 } ?? true)
        for b in name.utf8 where b < 0x80 {
            let fits = (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || b == 0x5F || b == 0x2D || b == 0x2E
            if !fits { ok = false }
        }
        if !ok {
            error(
                "bad-name", "\(FlowDiagnostic.quoted(name)) is not a variable name: use letters, digits, _, - and ., not starting with a digit", path: place(),
                at: offset)
            return false
        }
        if ["and", "or", "not", "in", "true", "false", "null"].contains(name) {
            error("bad-name", "\"\(name)\" is a word of expressions and cannot name a variable", path: place(), at: offset)
            return false
        }
        return true
    }

    func describe(_ node: Int) -> String {
        if let v = tape.number(node) { return Self.format(v) }
        if let s = tape.string(node) { return FlowDiagnostic.quoted(s) }
        return tape.typeName(node)
    }

    // MARK: Objects

    /// Checks an object's keys against `allowed` (unknown and repeated keys are errors) and
    /// returns how many distinct allowed keys it has, or nil when it is not an object.
    mutating func fields(_ node: Int, path: FlowPath, allowed: [String], what: @autoclosure () -> String) -> Int? {
        guard tape.kind(node) == .object else {
            error("wrong-type", "\(what()) must be an object, not \(tape.typeName(node))", path: path, at: tape.offset(node))
            return nil
        }
        var accepted = 0
        var seen: UInt64 = 0  // bits of `allowed` already met
        var j = node + 1
        for _ in 0..<tape.count(node) {
            defer { j = tape.next(after: j + 1) }
            if let k = tape.index(ofKey: j, in: allowed) {
                if k < 64, seen & (1 << k) != 0 {
                    error("duplicate-key", "the key \"\(allowed[k])\" appears twice in \(what())", path: path.child(allowed[k]), at: tape.offset(j))
                } else {
                    if k < 64 { seen |= 1 << k }
                    accepted += 1
                }
                continue
            }
            unknownKey(j, path: path, allowed: allowed, what: what())
        }
        return accepted
    }

    mutating func unknownKey(_ j: Int, path: FlowPath, allowed: [String], what: String) {
        let key = tape.string(j) ?? ""
        // An unknown key said twice is reported twice, as the duplicate of nothing it is.
        let hint = Suggestions.closest(to: key, in: allowed).map { "; did you mean \(FlowDiagnostic.quoted($0))?" } ?? ""
        error("unknown-field", "unknown field \(FlowDiagnostic.quoted(key)) in \(what)\(hint)", path: path.child(key), at: tape.offset(j))
    }

    /// Reads an object through its table entry: every member is matched to a field in place
    /// and read by it; unknown, repeated and missing fields are errors. `reserved` keys (a block's
    /// `id` and `type`) are allowed and left to the caller. Nil when anything could not be read.
    mutating func decodeObject<Root: Sendable>(
        _ node: Int, path: FlowPath, _ object: FlowObject<Root>, what: @autoclosure () -> String, reserved: [String] = []
    ) -> Root? {
        guard let (root, ok) = decodeObjectPartly(node, path: path, object, what: what(), reserved: reserved) else { return nil }
        return ok ? root : nil
    }

    /// ``decodeObject(_:path:_:what:reserved:)`` that keeps what could be read, with whether all could.
    mutating func decodeObjectPartly<Root: Sendable>(
        _ node: Int, path: FlowPath, _ object: FlowObject<Root>, what: @autoclosure () -> String, reserved: [String] = []
    ) -> (Root, Bool)? {
        guard tape.kind(node) == .object else {
            error("wrong-type", "\(what()) must be an object, not \(tape.typeName(node))", path: path, at: tape.offset(node))
            return nil
        }
        var root = object.blank
        var ok = true
        var seen: UInt64 = 0  // bit k: field k met; bit 63 - r: reserved key r met
        var j = node + 1
        for _ in 0..<tape.count(node) {
            defer { j = tape.next(after: j + 1) }
            if let k = tape.index(ofKey: j, in: object.names) {
                let name = object.names[k]
                if seen & (1 << k) != 0 {
                    error("duplicate-key", "the key \"\(name)\" appears twice in \(what())", path: path.child(name), at: tape.offset(j))
                    continue
                }
                seen |= 1 << k
                if !object.decoders[k](&self, j + 1, FieldPlace(parent: path, name: name), &root) { ok = false }
                continue
            }
            if !reserved.isEmpty, let r = tape.index(ofKey: j, in: reserved) {
                let bit: UInt64 = 1 << (63 - r)
                if seen & bit != 0 {
                    error("duplicate-key", "the key \"\(reserved[r])\" appears twice in \(what())", path: path.child(reserved[r]), at: tape.offset(j))
                }
                seen |= bit
                continue
            }
            unknownKey(j, path: path, allowed: reserved + object.names, what: what())
        }
        let missing = object.requiredMask & ~seen
        if missing != 0 {
            for k in object.names.indices where missing & (1 << k) != 0 {
                error("missing-field", "\(what()) needs the field \"\(object.names[k])\"", path: path, at: tape.offset(node))
            }
            ok = false
        }
        return (root, ok)
    }

    // MARK: Document

    static let conditionFields = FlowFormat.condition.fields.map(\.name)
    static let bannerFields = FlowFormat.bannerInfo.fields.map(\.name)

    mutating func decodeBanner(_ node: Int) -> Banner? {
        let path = FlowPath("banner")
        guard fields(node, path: path, allowed: Self.bannerFields, what: "\"banner\"") != nil else { return nil }
        // The shape is the file's; the values go through the same codec as `rocket banner`'s flags.
        var title: String?
        if let t = tape.member(of: node, "title") {
            title = readText(t, path.child("title"))
        } else {
            error("missing-field", "\"banner\" needs the field \"title\"", path: path, at: tape.offset(node))
        }
        var values: [BannerCodec.Field: BannerCodec.Input] = [:]
        for field in BannerCodec.Field.allCases {
            guard let v = tape.member(of: node, field.flowKey) else { continue }
            // The JSON type the table gives the field, before its value goes to the codec.
            let kind = tape.kind(v)
            let fits: Bool
            switch FlowFormat.bannerEntry(field).type {
            case .bool: fits = kind == .bool
            case .duration: fits = kind == .number || kind == .string
            case .bannerButtons: fits = kind == .array || kind == .string
            case .text: fits = kind == .string || kind == .object
            default: fits = kind == .string
            }
            if !fits && kind != .null {
                error(
                    "wrong-type", "\"\(field.flowKey)\" must be \(Self.expected(FlowFormat.bannerEntry(field).type)), not \(tape.typeName(v))",
                    path: path.child(field.flowKey), at: tape.offset(v))
                continue
            }
            switch kind {
            case .null: continue
            case .string: values[field] = .text(tape.string(v)!)
            case .number: values[field] = .number(tape.number(v)!)
            case .bool: values[field] = .bool(tape.bool(v)!)
            case .array:
                var titles: [String] = []
                var j = v + 1
                for k in 0..<tape.count(v) {
                    if let t = readString(j, path.child(field.flowKey).item(k)) { titles.append(t) }
                    j = tape.next(after: j)
                }
                if titles.count == tape.count(v) { values[field] = .list(titles) } else { continue }
            case .object:
                // A text in the flow's languages (the table types only texts so).
                if let text = readText(v, path.child(field.flowKey)) { values[field] = .text(text) }
            }
        }
        let (banner, problems) = BannerCodec.banner(values)
        for p in problems {
            guard let v = tape.member(of: node, p.field.flowKey) else { continue }
            error(p.code, "\"\(p.field.flowKey)\" \(p.message)", path: path.child(p.field.flowKey), at: tape.offset(v))
        }
        return title == nil ? nil : banner
    }

    /// What a value of a type is called in a wrong-type message.
    static func expected(_ type: FlowValueType) -> String {
        switch type {
        case .bool: return "true or false"
        case .duration: return "a number of seconds or a duration string"
        case .bannerButtons: return "an array of titles or \"close\""
        default: return "a string"
        }
    }

    mutating func decodeWhen(_ node: Int) -> ScenarioRules? {
        let path = FlowPath("when")
        guard fields(node, path: path, allowed: FlowFormat.whenKeys, what: "\"when\"") != nil else { return nil }
        if let v = tape.member(of: node, "if"), let s = readString(v, path.child("if")) { showIf = RocketExpression(s) }
        // The shape is the file's; the values go through the same codec as the command line's flags.
        var values: [ScenarioRulesCodec.Field: ScenarioRulesCodec.Input] = [:]
        var places: [ScenarioRulesCodec.Field: (path: FlowPath, offset: Int)] = [:]
        func take(_ field: ScenarioRulesCodec.Field, _ object: Int, _ objectPath: FlowPath, _ key: String) {
            guard let v = tape.member(of: object, key) else { return }
            let path = objectPath.child(key)
            switch tape.kind(v) {
            case .null: return
            case .number where field.kind != .name: values[field] = .number(tape.number(v)!)
            case .string where field.kind == .duration || field.kind == .name: values[field] = .text(tape.string(v)!)
            default:
                let expected =
                    field.kind == .duration
                    ? "a number of seconds or a duration string"
                    : field.kind == .name ? "a scenario name" : "a whole number"
                error("wrong-type", "\"\(key)\" must be \(expected), not \(tape.typeName(v))", path: path, at: tape.offset(v))
                return
            }
            places[field] = (path, tape.offset(v))
        }
        for field in ScenarioRulesCodec.Field.allCases where !field.flowKey.contains(".") { take(field, node, path, field.rawValue) }
        for (nested, count, window) in [
            (FlowFormat.windowInfo, ScenarioRulesCodec.Field.windowCount, ScenarioRulesCodec.Field.windowSeconds),
            (FlowFormat.budgetInfo, .budgetExecutions, .budgetSeconds),
        ] {
            let key = nested.name
            guard let v = tape.member(of: node, key) else { continue }
            let countKey = String(count.flowKey.split(separator: ".").last!)
            let p = path.child(key)
            guard fields(v, path: p, allowed: nested.fields.map(\.name), what: "\"\(key)\"") != nil else { continue }
            take(count, v, p, countKey)
            take(window, v, p, "window")
            if tape.member(of: v, countKey) == nil { error("missing-field", "\"\(key)\" needs \"\(countKey)\"", path: p, at: tape.offset(v)) }
            if tape.member(of: v, "window") == nil { error("missing-field", "\"\(key)\" needs \"window\"", path: p, at: tape.offset(v)) }
        }
        let (rules, problems) = ScenarioRulesCodec.rules(values)
        if let name = rules.eventsOf, let place = places[.eventsOf] { checkScenarioName(name, path: place.path, at: place.offset) }
        for p in problems {
            if case .missingPartner = p.reason { continue }  // reported above as a missing field
            guard let place = places[p.field] else { continue }
            let key = String(p.field.flowKey.split(separator: ".").last ?? "")
            let code = p.reason == .notADuration ? "bad-duration" : p.reason == .badName ? "bad-value" : "out-of-range"
            error(code, "\"\(key)\" \(p.message)", path: place.path, at: place.offset)
        }
        return rules
    }

    /// Refuses a scenario name (`scenario`, `when.eventsOf`) a server or rocket itself would
    /// read as something else: a server keeps a visitor's statistics under NAME@VISITOR, and
    /// rocket keeps its own under names starting "rocket." (showings, a visitor's executions).
    mutating func checkScenarioName(_ name: String, path: FlowPath, at offset: Int) {
        if !name.isEmpty, !ScenarioRulesCodec.isName(name) {
            error("bad-name", "\(FlowDiagnostic.quoted(name)) must be \(ScenarioRulesCodec.nameRule)", path: path, at: offset)
        } else if name.contains("@") {
            error("bad-name", "\(FlowDiagnostic.quoted(name)) holds an @, which a server puts between a scenario and a visitor", path: path, at: offset)
        } else if name.hasPrefix("rocket.") {
            error("bad-name", "\(FlowDiagnostic.quoted(name)): names starting with rocket. are the ones rocket keeps itself", path: path, at: offset)
        }
    }

    mutating func decodeDocument() -> FlowDocument? {
        // The first pass: every block's id, so references resolve as they are read.
        var blockIDs: [String] = []
        if let list = tape.member(of: 0, "blocks"), tape.kind(list) == .array {
            blockIDs.reserveCapacity(tape.count(list))
            var j = list + 1
            for _ in 0..<tape.count(list) {
                blockIDs.append(tape.member(of: j, "id").flatMap { tape.string($0) } ?? "")
                j = tape.next(after: j)
            }
        }
        ids = BlockIDs(ids: blockIDs)
        // The languages, before any text is read (the field itself is checked where it is read).
        if let list = tape.member(of: 0, "languages"), tape.kind(list) == .array {
            var j = list + 1
            for _ in 0..<tape.count(list) {
                if let s = tape.string(j) { languages.append(s) }
                j = tape.next(after: j)
            }
        }
        language = FlowDocument.language(in: languages, for: language)
        guard var (doc, _) = decodeObjectPartly(0, path: .root, format.document, what: "the flow") else { return nil }
        doc.language = language ?? languages.first
        doc.showIf = showIf
        if let start { doc.graph.root = start }
        // A `when` of only `if` needs no scenario: nothing is counted.
        if let w = tape.member(of: 0, "when"), tape.member(of: 0, "scenario") == nil, tape.kind(w) == .object,
            !(tape.count(w) == 1 && tape.member(of: w, "if") != nil)
        {
            error("missing-field", "\"when\" needs a \"scenario\" name to keep its statistics under", path: FlowPath("when"), at: tape.offset(w - 1))
        }
        return doc
    }

    /// The blocks, one node per block in file order: a block that could not be read is an empty
    /// text node with its id (the document is not returned, but the rules still run over it).
    mutating func decodeBlocks(_ list: Int) -> [RocketNode]? {
        let path = FlowPath("blocks")
        guard tape.kind(list) == .array else {
            error("wrong-type", "\"blocks\" must be an array, not \(tape.typeName(list))", path: path, at: tape.offset(list))
            return nil
        }
        let n = tape.count(list)
        if n == 0 { error("no-blocks", "\"blocks\" is empty; a flow needs at least one block", path: path, at: tape.offset(list)) }
        var nodes: [RocketNode] = []
        nodes.reserveCapacity(n)
        var j = list + 1
        for i in 0..<n {
            currentBlock = i
            let id = i < ids.ids.count ? ids.ids[i] : ""
            if let node = decodeBlock(j, path: FlowPath(block: i), id: id) {
                nodes.append(node)
            } else {
                if broken.isEmpty { broken = [Bool](repeating: false, count: n) }
                broken[i] = true
                nodes.append(RocketNode(id: id, content: .text(RocketTextNode(text: ""))))
            }
            j = tape.next(after: j)
        }
        currentBlock = -1
        return nodes
    }

    mutating func decodeBlock(_ node: Int, path: FlowPath, id: String) -> RocketNode? {
        guard tape.kind(node) == .object else {
            error("wrong-type", "a block must be an object, not \(tape.typeName(node))", path: path, at: tape.offset(node))
            return nil
        }
        guard let typeNode = tape.member(of: node, "type") else {
            error("missing-field", "a block needs the field \"type\"", path: path, at: tape.offset(node))
            return nil
        }
        guard tape.kind(typeNode) == .string else {
            error("wrong-type", "\"type\" must be a string, not \(tape.typeName(typeNode))", path: path.child("type"), at: tape.offset(typeNode))
            return nil
        }
        guard let k = tape.index(ofKey: typeNode, in: blockWords) else {
            let type = tape.string(typeNode) ?? ""
            let kinds = format.blocks.map { "\"\($0.kind.rawValue)\"" }.sorted().joined(separator: ", ")
            let hint = Suggestions.closest(to: type, in: format.blocks.map(\.kind.rawValue)).map { "did you mean \(FlowDiagnostic.quoted($0))? " } ?? ""
            error(
                "unknown-block-type", "unknown block type \(FlowDiagnostic.quoted(type)); \(hint)use one of \(kinds)", path: path.child("type"),
                at: tape.offset(typeNode))
            return nil
        }
        let kind = format.blocks[k]
        var idOK = false
        if let v = tape.member(of: node, "id") {
            idOK = tape.kind(v) == .string || readString(v, path.child("id")) != nil
        } else {
            error("missing-field", "a block needs the field \"id\"", path: path, at: tape.offset(node))
        }
        let content = kind.decode(&self, node, path)
        guard idOK, let content else { return nil }
        return RocketNode(id: id, content: content)
    }
}
