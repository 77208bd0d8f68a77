public import RocketJSON
import RocketConversation
import RocketCore
import RocketScenarios
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
    /// Loads and validates a flow from UTF-8 bytes.
    public static func load(_ bytes: [UInt8], limits: JSONReaderLimits = JSONReaderLimits()) -> FlowLoadResult {
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
        var decoder = FlowDecoder(tape: tape)
        let document = decoder.decodeDocument()
        let shapeErrors = decoder.found.hasErrors
        var diagnostics = decoder.placedDiagnostics()
        var unlisted = decoder.found.unlisted
        var unlistedErrors = decoder.found.unlistedErrors
        if let document {
            // Every error of a file in one run: the rules run on what could be decoded, too. With
            // shape errors present only their errors are kept (warnings would guess at the rest).
            let rules = FlowValidator.check(
                document, assumedIDs: decoder.brokenIDs, partial: shapeErrors, sourceIndices: decoder.keptBlockSources)
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
        let offsets = FlowSourceMap(tape: tape).offsets(of: diagnostics.map(\.path))
        let positions = SourceLines(tape.bytes).positions(of: offsets)
        var out = diagnostics
        for k in out.indices { (out[k].line, out[k].column) = positions[k] }
        return out
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
}

/// Turns a JSON tape into a document, collecting type errors instead of stopping at the first.
///
/// It walks the tape's entries directly: keys are compared in place, strings are built only for
/// values the document keeps, and paths are formed only for diagnostics.
struct FlowDecoder {
    let tape: JSONTape
    /// What was found, repeats collapsed, bounded.
    var found = FlowDiagnosticList()

    init(tape: JSONTape) {
        self.tape = tape
    }

    /// Ids of blocks that could not be decoded (validation still runs on the others).
    var brokenIDs: Set<String> = []
    /// Where each decoded block stands in the file's `blocks` array, once a block before it could
    /// not be decoded (nil while every block so far was kept, the common case).
    var keptBlockSources: [Int]?

    mutating func error(_ code: String, _ message: String, path: FlowPath, at offset: Int) {
        found.add(.error, code, message, path: path.text, offset: offset)
    }

    /// The diagnostics with repeats collapsed and their places filled in.
    func placedDiagnostics() -> [FlowDiagnostic] {
        var kept = found.collapsed
        let positions = SourceLines(tape.bytes).positions(of: found.offsets)
        for k in kept.indices { (kept[k].line, kept[k].column) = positions[k] }
        return kept
    }

    /// One JSON object whose members were checked against the fields its place allows.
    struct Fields {
        /// The object's tape entry.
        let object: Int
        let path: FlowPath
        let offset: Int
        /// How many distinct allowed keys it has.
        var accepted = 0
    }

    /// The value entry of the first member named `key`, if any.
    func member(_ f: Fields, _ key: StaticString) -> Int? {
        tape.member(of: f.object, key)
    }

    /// ``member(_:_:)`` for a key made at run time (the codecs' field names).
    func member(_ f: Fields, _ key: String) -> Int? {
        tape.member(of: f.object, key)
    }

    /// The first member named `key` of any object entry (not checked against allowed fields).
    func firstMember(of object: Int, _ key: StaticString) -> Int? {
        tape.member(of: object, key)
    }

    /// `allowed` is a short list (objects in flows have a handful of fields): a linear search of
    /// short strings, compared in place, beats hashing each key.
    mutating func fields(_ node: Int, path: FlowPath, allowed: [StaticString], what: @autoclosure () -> String) -> Fields? {
        guard tape.kind(node) == .object else {
            error("wrong-type", "\(what()) must be an object, not \(tape.typeName(node))", path: path, at: tape.offset(node))
            return nil
        }
        var f = Fields(object: node, path: path, offset: tape.offset(node))
        var seen: UInt64 = 0  // bits of `allowed` already met
        var j = node + 1
        for _ in 0..<tape.count(node) {
            defer { j = tape.next(after: j + 1) }
            if let k = tape.index(ofKey: j, in: allowed) {
                if k < 64, seen & (1 << k) != 0 {
                    error("duplicate-key", "the key \"\(allowed[k])\" appears twice in \(what())", path: path.child(allowed[k]), at: tape.offset(j))
                } else {
                    if k < 64 { seen |= 1 << k }
                    f.accepted += 1
                }
                continue
            }
            let key = tape.string(j) ?? ""
            // An unknown key said twice is reported twice, as the duplicate of nothing it is.
            let hint = Self.suggestion(for: key, in: allowed).map { "; did you mean \"\($0)\"?" } ?? ""
            error("unknown-field", "unknown field \"\(key)\" in \(what())\(hint)", path: path.child(key), at: tape.offset(j))
        }
        return f
    }

    static func suggestion(for key: String, in allowed: [StaticString]) -> String? {
        Suggestions.closest(to: key, in: allowed.map(\.description))
    }

    mutating func required(_ f: Fields, _ key: StaticString, what: @autoclosure () -> String) -> Int? {
        guard let v = member(f, key) else {
            error("missing-field", "\(what()) needs the field \"\(key)\"", path: f.path, at: f.offset)
            return nil
        }
        return v
    }

    mutating func string(_ node: Int?, path: @autoclosure () -> FlowPath) -> String? {
        guard let node else { return nil }
        if let s = tape.string(node) { return s }
        let path = path()
        let last = path.text.split(separator: ".").last ?? ""
        error("wrong-type", "\"\(last)\" must be a string, not \(tape.typeName(node))", path: path, at: tape.offset(node))
        return nil
    }

    mutating func optionalString(_ f: Fields, _ key: StaticString) -> String? {
        guard let v = member(f, key), tape.kind(v) != .null else { return nil }
        return string(v, path: f.path.child(key.description))
    }

    mutating func requiredString(_ f: Fields, _ key: StaticString, what: @autoclosure () -> String) -> String? {
        string(required(f, key, what: what()), path: f.path.child(key.description))
    }

    mutating func number(_ f: Fields, _ key: StaticString, min: Double? = nil, max: Double = 1_000_000_000) -> Double? {
        guard let n = member(f, key), tape.kind(n) != .null else { return nil }
        guard let v = tape.number(n) else {
            error("wrong-type", "\"\(key)\" must be a number, not \(tape.typeName(n))", path: f.path.child(key), at: tape.offset(n))
            return nil
        }
        if let min, v < min {
            error("out-of-range", "\"\(key)\" must be at least \(Self.format(min)), not \(Self.format(v))", path: f.path.child(key), at: tape.offset(n))
            return nil
        }
        if v > max {
            error("out-of-range", "\"\(key)\" must be at most \(Self.format(max)), not \(Self.format(v))", path: f.path.child(key), at: tape.offset(n))
            return nil
        }
        return v
    }

    mutating func integer(_ f: Fields, _ key: StaticString, min: Int) -> Int? {
        guard let v = number(f, key) else { return nil }
        guard v == v.rounded(), v >= Double(min), v <= 1_000_000_000 else {
            error(
                "out-of-range", "\"\(key)\" must be a whole number from \(min), not \(Self.format(v))", path: f.path.child(key),
                at: tape.offset(member(f, key)!))
            return nil
        }
        return Int(v)
    }

    mutating func bool(_ f: Fields, _ key: StaticString) -> Bool? {
        guard let n = member(f, key) else { return nil }
        guard let v = tape.bool(n) else {
            error("wrong-type", "\"\(key)\" must be true or false, not \(tape.typeName(n))", path: f.path.child(key), at: tape.offset(n))
            return nil
        }
        return v
    }

    static func format(_ v: Double) -> String {
        v == v.rounded() && abs(v) < 1e15 ? String(Int(v)) : String(v)
    }

    mutating func enumValue<E: RawRepresentable & CaseIterable>(_ f: Fields, _ key: StaticString, _: E.Type) -> E? where E.RawValue == String {
        guard let s = optionalString(f, key) else { return nil }
        if let v = E(rawValue: s) { return v }
        let names = E.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")
        error("bad-value", "\"\(key)\" must be one of \(names), not \"\(s)\"", path: f.path.child(key), at: tape.offset(member(f, key)!))
        return nil
    }

    // MARK: Document

    static let documentFields: [StaticString] = [
        "$schema", "version", "title", "author", "closeButton", "start", "variables", "blocks",
        "scenario", "when", "banner",
    ]
    static let bannerFields: [StaticString] = [
        "title", "subtitle", "icon", "color", "titleColor", "subtitleColor", "buttons", "duration",
        "animation", "backgroundTaps", "swipe", "fullWidth",
    ]

    mutating func decodeBanner(_ node: Int) -> Banner? {
        let path = FlowPath("banner")
        guard let f = fields(node, path: path, allowed: Self.bannerFields, what: "\"banner\"") else { return nil }
        // The shape is the file's; the values go through the same codec as `rocket banner`'s flags.
        let title = requiredString(f, "title", what: "\"banner\"")
        var values: [BannerCodec.Field: BannerCodec.Input] = [:]
        for field in BannerCodec.Field.allCases {
            guard let v = member(f, field.flowKey) else { continue }
            switch tape.kind(v) {
            case .null: continue
            case .string: values[field] = .text(tape.string(v)!)
            case .number: values[field] = .number(tape.number(v)!)
            case .bool: values[field] = .bool(tape.bool(v)!)
            case .array:
                var titles: [String] = []
                var j = v + 1
                for k in 0..<tape.count(v) {
                    if let t = string(j, path: path.child(field.flowKey).item(k)) { titles.append(t) }
                    j = tape.next(after: j)
                }
                if titles.count == tape.count(v) { values[field] = .list(titles) } else { continue }
            case .object:
                error("wrong-type", "\"\(field.flowKey)\" must not be an object", path: path.child(field.flowKey), at: tape.offset(v))
            }
        }
        let (banner, problems) = BannerCodec.banner(values)
        for p in problems {
            guard let v = member(f, p.field.flowKey) else { continue }
            error(p.code, "\"\(p.field.flowKey)\" \(p.message)", path: path.child(p.field.flowKey), at: tape.offset(v))
        }
        return title == nil ? nil : banner
    }
    static let whenFields: [StaticString] = [
        "minEventsRequired", "maxEventsPermitted", "maxExecutionsPermitted", "minSecondsSinceFirstEvent",
        "minSecondsSinceLastEvent", "minSecondsBetweenExecutions", "minEventsInWindow", "budget", "priority", "eventsOf",
    ]

    /// A duration: a number of seconds, or a string with s, m, h, d or w ("14d").
    mutating func duration(_ f: Fields, _ key: StaticString) -> Double? {
        guard let v = member(f, key) else { return nil }
        switch tape.kind(v) {
        case .null: return nil
        case .number: return number(f, key, min: 0, max: ScenarioDuration.maxSeconds)
        case .string:
            let text = tape.string(v)!
            if let d = ScenarioDuration.parse(text) { return d }
            error(
                "bad-duration", "\"\(key)\" must be seconds or a duration like \"500ms\", \"90s\", \"2h\", \"14d\" (at most 100 years), not \"\(text)\"",
                path: f.path.child(key), at: tape.offset(v))
            return nil
        default:
            error(
                "wrong-type", "\"\(key)\" must be a number of seconds or a duration string, not \(tape.typeName(v))",
                path: f.path.child(key), at: tape.offset(v))
            return nil
        }
    }

    mutating func decodeWhen(_ node: Int) -> ScenarioRules? {
        let path = FlowPath("when")
        guard let f = fields(node, path: path, allowed: Self.whenFields, what: "\"when\"") else { return nil }
        // The shape is the file's; the values go through the same codec as the command line's flags.
        var values: [ScenarioRulesCodec.Field: ScenarioRulesCodec.Input] = [:]
        var places: [ScenarioRulesCodec.Field: (path: FlowPath, offset: Int)] = [:]
        func take(_ field: ScenarioRulesCodec.Field, _ fields: Fields, _ key: String) {
            guard let v = member(fields, key) else { return }
            let path = fields.path.child(key)
            switch tape.kind(v) {
            case .null: return
            case .number: values[field] = .number(tape.number(v)!)
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
        for field in ScenarioRulesCodec.Field.allCases where !field.flowKey.contains(".") { take(field, f, field.rawValue) }
        for (key, count, window) in [
            ("minEventsInWindow", ScenarioRulesCodec.Field.windowCount, ScenarioRulesCodec.Field.windowSeconds),
            ("budget", .budgetExecutions, .budgetSeconds),
        ] {
            guard let v = member(f, key) else { continue }
            let countKey: StaticString = key == "budget" ? "executions" : "count"
            let p = path.child(key)
            guard let nf = fields(v, path: p, allowed: [countKey, "window"], what: "\"\(key)\"") else { continue }
            take(count, nf, countKey.description)
            take(window, nf, "window")
            if member(nf, countKey) == nil { error("missing-field", "\"\(key)\" needs \"\(countKey)\"", path: p, at: tape.offset(v)) }
            if member(nf, "window") == nil { error("missing-field", "\"\(key)\" needs \"window\"", path: p, at: tape.offset(v)) }
        }
        let (rules, problems) = ScenarioRulesCodec.rules(values)
        for p in problems {
            if case .missingPartner = p.reason { continue }  // reported above as a missing field
            guard let place = places[p.field] else { continue }
            let key = String(p.field.flowKey.split(separator: ".").last ?? "")
            let code = p.reason == .notADuration ? "bad-duration" : p.reason == .badName ? "bad-value" : "out-of-range"
            error(code, "\"\(key)\" \(p.message)", path: place.path, at: place.offset)
        }
        return rules
    }

    mutating func decodeDocument() -> FlowDocument? {
        guard let f = fields(0, path: .root, allowed: Self.documentFields, what: "the flow") else { return nil }
        var version = FlowDocument.currentVersion
        if let v = required(f, "version", what: "the flow") {
            if tape.number(v) == 1 {
                version = 1
            } else {
                error(
                    "unsupported-version", "\"version\" must be 1 (the only version this rocket reads); found \(describe(v))",
                    path: FlowPath("version"), at: tape.offset(v))
            }
        }
        let title = optionalString(f, "title")
        var author: FlowAuthor?
        if let a = member(f, "author") {
            if let af = fields(a, path: FlowPath("author"), allowed: ["name", "image", "style"], what: "\"author\"") {
                author = FlowAuthor(
                    name: optionalString(af, "name"), image: optionalString(af, "image"),
                    style: enumValue(af, "style", RocketImageStyle.self))
            }
        }
        var close: FlowCloseButton?
        if let c = member(f, "closeButton") {
            if let cf = fields(c, path: FlowPath("closeButton"), allowed: ["title", "font"], what: "\"closeButton\"") {
                if let t = requiredString(cf, "title", what: "\"closeButton\"") {
                    close = FlowCloseButton(title: t, font: font(cf, "font"))
                }
            }
        }
        let start = optionalString(f, "start")
        var variables: [String] = []
        if let v = member(f, "variables") {
            if tape.kind(v) == .array {
                var j = v + 1
                for i in 0..<tape.count(v) {
                    if let s = string(j, path: FlowPath("variables").item(i)) { variables.append(s) }
                    j = tape.next(after: j)
                }
            } else {
                error("wrong-type", "\"variables\" must be an array of names, not \(tape.typeName(v))", path: FlowPath("variables"), at: tape.offset(v))
            }
        }
        var blocks: [FlowBlock] = []
        if let list = required(f, "blocks", what: "the flow") {
            if tape.kind(list) == .array {
                let n = tape.count(list)
                blocks.reserveCapacity(n)
                var j = list + 1
                for i in 0..<n {
                    if let b = decodeBlock(j, path: FlowPath(block: i)) {
                        keptBlockSources?.append(i)
                        blocks.append(b)
                    } else {
                        if keptBlockSources == nil { keptBlockSources = Array(0..<blocks.count) }
                        if let id = firstMember(of: j, "id").flatMap({ tape.string($0) }) {
                            brokenIDs.insert(id)  // other blocks may still name it: not an unknown target
                        }
                    }
                    j = tape.next(after: j)
                }
                if n == 0 {
                    error("no-blocks", "\"blocks\" is empty; a flow needs at least one block", path: FlowPath("blocks"), at: tape.offset(list))
                }
            } else {
                error("wrong-type", "\"blocks\" must be an array, not \(tape.typeName(list))", path: FlowPath("blocks"), at: tape.offset(list))
            }
        }
        let scenario = optionalString(f, "scenario")
        let whenNode = member(f, "when")
        let when = whenNode.flatMap { decodeWhen($0) }
        if let w = whenNode, member(f, "scenario") == nil {
            error("missing-field", "\"when\" needs a \"scenario\" name to keep its statistics under", path: FlowPath("when"), at: tape.offset(w - 1))
        }
        if let name = scenario, name.isEmpty, let s = member(f, "scenario") {
            error("empty-id", "\"scenario\" may not be empty", path: FlowPath("scenario"), at: tape.offset(s))
        }
        let banner = member(f, "banner").flatMap { decodeBanner($0) }
        return FlowDocument(
            version: version, title: title, author: author, closeButton: close, start: start,
            variables: variables, blocks: blocks, scenario: scenario, when: when, banner: banner)
    }

    func describe(_ node: Int) -> String {
        if let v = tape.number(node) { return Self.format(v) }
        if let s = tape.string(node) { return "\"\(s.prefix(40))\"" }
        return tape.typeName(node)
    }

    // MARK: Fonts

    mutating func font(_ f: Fields, _ key: StaticString) -> FlowFont? {
        guard let v = member(f, key) else { return nil }
        let p = f.path.child(key.description)
        switch tape.kind(v) {
        case .null:
            return nil
        case .string:
            let name = tape.string(v)!
            if RocketFont.presets[name] != nil { return .preset(name) }
            let names = RocketFont.presets.keys.sorted().map { "\"\($0)\"" }.joined(separator: ", ")
            error("unknown-font", "unknown font preset \"\(name)\"; use one of \(names) or an object", path: p, at: tape.offset(v))
            return nil
        case .object:
            guard let ff = fields(v, path: p, allowed: Self.fontFields, what: "a font") else { return nil }
            let size = number(ff, "size", min: 1) ?? 16
            let weight = enumValue(ff, "weight", RocketFontWeight.self) ?? .regular
            var color = RocketColor.black
            if let hex = optionalString(ff, "color") {
                if let c = RocketColor(hex: hex) {
                    color = c
                } else {
                    error("bad-color", "\"color\" must be #RGB or #RRGGBB, not \"\(hex)\"", path: p.child("color"), at: tape.offset(member(ff, "color")!))
                }
            }
            return .custom(RocketFont(size: size, weight: weight, color: color, family: optionalString(ff, "family")))
        default:
            error("wrong-type", "\"\(key)\" must be a preset name or a font object, not \(tape.typeName(v))", path: p, at: tape.offset(v))
            return nil
        }
    }

    // MARK: Blocks

    static let commonFields: [StaticString] = ["id", "type"]
    // The fields of the objects inside blocks, built once (a set literal builds a set per use).
    static let buttonFields: [StaticString] = ["title", "next", "action", "font"]
    static let validateFields: [StaticString] = ["required", "minLength", "maxLength", "pattern", "message"]
    static let branchFields: [StaticString] = ["when", "next"]
    static let conditionFields: [StaticString] = ["equals", "matches", "empty"]
    static let fontFields: [StaticString] = ["size", "weight", "color", "family"]
    /// The most options a choice block may have.
    static let maxChoiceOptions = 100
    static let blockFields: [String: [StaticString]] = [
        "text": commonFields + ["text", "next", "showNextAfter", "font"],
        "image": commonFields + ["image", "text", "next", "showNextAfter", "font", "imageStyle", "paddingLeft", "paddingRight"],
        "button": commonFields + ["title", "next", "action", "font"],
        "doubleButton": commonFields + ["left", "right"],
        "choice": commonFields + ["text", "options", "font"],
        "textInput": commonFields + ["text", "buttonTitle", "secret", "placeholder", "validate", "branches", "next", "font", "buttonStyle"],
    ]

    mutating func decodeBlock(_ node: Int, path: FlowPath) -> FlowBlock? {
        guard tape.kind(node) == .object else {
            error("wrong-type", "a block must be an object, not \(tape.typeName(node))", path: path, at: tape.offset(node))
            return nil
        }
        guard let typeNode = firstMember(of: node, "type") else {
            error("missing-field", "a block needs the field \"type\"", path: path, at: tape.offset(node))
            return nil
        }
        guard let type = tape.string(typeNode) else {
            error("wrong-type", "\"type\" must be a string, not \(tape.typeName(typeNode))", path: path.child("type"), at: tape.offset(typeNode))
            return nil
        }
        guard let allowed = Self.blockFields[type] else {
            let kinds = Self.blockFields.keys.sorted().map { "\"\($0)\"" }.joined(separator: ", ")
            error("unknown-block-type", "unknown block type \"\(type)\"; use one of \(kinds)", path: path.child("type"), at: tape.offset(typeNode))
            return nil
        }
        guard let f = fields(node, path: path, allowed: allowed, what: "a \(type) block") else { return nil }
        let id = requiredString(f, "id", what: "a block")
        let content: FlowBlockContent?
        switch type {
        case "text":
            // Read every field before deciding, so all errors of the block are reported.
            let text = requiredString(f, "text", what: "a text block")
            let next = optionalString(f, "next"), delay = duration(f, "showNextAfter"), style = font(f, "font")
            content = text.map { .text(text: $0, next: next, showNextAfter: delay, font: style) }
        case "image":
            let image = requiredString(f, "image", what: "an image block")
            let fields = FlowImage(
                image: image ?? "", text: optionalString(f, "text"), next: optionalString(f, "next"),
                showNextAfter: duration(f, "showNextAfter"), font: font(f, "font"),
                imageStyle: enumValue(f, "imageStyle", RocketImageStyle.self),
                paddingLeft: number(f, "paddingLeft", min: 0, max: 10_000), paddingRight: number(f, "paddingRight", min: 0, max: 10_000))
            content = image == nil ? nil : .image(fields)
        case "button":
            content = decodeButton(f, what: "a button block").map { .button($0) }
        case "doubleButton":
            var sides: [FlowButton?] = []
            for side: StaticString in ["left", "right"] {
                guard let node = required(f, side, what: "a doubleButton block") else { sides.append(nil); continue }
                guard let bf = fields(node, path: path.child(side.description), allowed: Self.buttonFields, what: "\"\(side)\"") else {
                    sides.append(nil); continue
                }
                sides.append(decodeButton(bf, what: "\"\(side)\""))
            }
            if let l = sides[0], let r = sides[1] { content = .doubleButton(left: l, right: r) } else { content = nil }
        case "choice":
            let text = requiredString(f, "text", what: "a choice block")
            var options: [FlowButton] = []
            var complete = true
            let optionsPath = path.child("options")
            if let o = required(f, "options", what: "a choice block") {
                if tape.kind(o) == .array {
                    let n = tape.count(o)
                    var j = o + 1
                    for i in 0..<n {
                        defer { j = tape.next(after: j) }
                        guard let bf = fields(j, path: optionsPath.item(i), allowed: Self.buttonFields, what: "an option"),
                            let option = decodeButton(bf, what: "an option")
                        else {
                            complete = false
                            continue
                        }
                        options.append(option)
                    }
                    if n < 2 {
                        error("too-few-options", "a choice block needs at least two options", path: optionsPath, at: tape.offset(o))
                        complete = false
                    } else if n > Self.maxChoiceOptions {
                        // A list in a chat, drawn whole: more belongs in `rocket choose` (which scrolls).
                        error(
                            "too-many-options", "a choice block has at most \(Self.maxChoiceOptions) options, not \(n)", path: optionsPath,
                            at: tape.offset(o))
                        complete = false
                    }
                } else {
                    error("wrong-type", "\"options\" must be an array, not \(tape.typeName(o))", path: optionsPath, at: tape.offset(o))
                    complete = false
                }
            } else {
                complete = false
            }
            content = complete ? text.map { .choice(text: $0, options: options, font: font(f, "font")) } : nil
        default:  // textInput
            content = decodeInput(f, path: path).map { .textInput($0) }
        }
        guard let id, let content else { return nil }
        return FlowBlock(id: id, content: content)
    }

    mutating func decodeButton(_ f: Fields, what: @autoclosure () -> String) -> FlowButton? {
        let title = requiredString(f, "title", what: what())
        let next = optionalString(f, "next")
        let action = optionalString(f, "action")
        let font = font(f, "font")
        return title.map { FlowButton(title: $0, next: next, action: action, font: font) }
    }

    mutating func decodeInput(_ f: Fields, path: FlowPath) -> FlowTextInput? {
        let text = requiredString(f, "text", what: "a textInput block")
        let buttonTitle = requiredString(f, "buttonTitle", what: "a textInput block")
        var validation: RocketInputValidation?
        if let v = member(f, "validate") {
            if let vf = fields(v, path: path.child("validate"), allowed: Self.validateFields, what: "\"validate\"") {
                validation = RocketInputValidation(
                    required: bool(vf, "required") ?? false, minLength: integer(vf, "minLength", min: 0),
                    maxLength: integer(vf, "maxLength", min: 1), pattern: optionalString(vf, "pattern"),
                    message: optionalString(vf, "message"))
            }
        }
        var branches: [FlowBranch] = []
        if let b = member(f, "branches") {
            if tape.kind(b) == .array {
                var j = b + 1
                for i in 0..<tape.count(b) {
                    defer { j = tape.next(after: j) }
                    let bp = path.child("branches").item(i)
                    guard let bf = fields(j, path: bp, allowed: Self.branchFields, what: "a branch") else { continue }
                    guard let whenNode = required(bf, "when", what: "a branch") else { continue }
                    let wp = bp.child("when")
                    guard let wf = fields(whenNode, path: wp, allowed: Self.conditionFields, what: "\"when\"") else { continue }
                    let condition: RocketInputCondition?
                    if wf.accepted != 1 {
                        error("bad-condition", "\"when\" needs exactly one of \"equals\", \"matches\" or \"empty\"", path: wp, at: tape.offset(whenNode))
                        condition = nil
                    } else if member(wf, "equals") != nil {
                        condition = optionalString(wf, "equals").map { .equals($0) }
                    } else if member(wf, "matches") != nil {
                        condition = optionalString(wf, "matches").map { .pattern($0) }
                    } else {
                        condition = bool(wf, "empty") == true ? .empty : nil
                        if condition == nil, bool(wf, "empty") == false {
                            error("bad-condition", "\"empty\" can only be true", path: wp.child("empty"), at: tape.offset(member(wf, "empty")!))
                        }
                    }
                    let next = optionalString(bf, "next")
                    if let condition { branches.append(FlowBranch(when: condition, next: next)) }
                }
            } else {
                error("wrong-type", "\"branches\" must be an array, not \(tape.typeName(b))", path: path.child("branches"), at: tape.offset(b))
            }
        }
        let input = FlowTextInput(
            text: text ?? "", buttonTitle: buttonTitle ?? "", secret: bool(f, "secret") ?? false,
            placeholder: optionalString(f, "placeholder"), validate: validation, branches: branches,
            next: optionalString(f, "next"), font: font(f, "font"), buttonStyle: font(f, "buttonStyle"))
        return text == nil || buttonTitle == nil ? nil : input
    }
}
