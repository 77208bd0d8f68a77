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
        let lines = SourceLines(bytes)
        let root: JSONNode
        do {
            root = try JSONReader.parse(bytes, limits: limits)
        } catch {
            let (l, c) = lines.position(of: error.offset)
            return FlowLoadResult(
                document: nil,
                diagnostics: [
                    FlowDiagnostic(severity: .error, code: "json-syntax", message: error.message, path: "", line: l, column: c)
                ])
        }
        var decoder = FlowDecoder(lines: lines)
        let document = decoder.decodeDocument(root)
        var diagnostics = decoder.placedDiagnostics()
        if let document {
            // Every error of a file in one run: the rules run on what could be decoded, too. With
            // shape errors present only their errors are kept (warnings would guess at the rest).
            let shapeErrors = decoder.diagnostics.contains { $0.severity == .error }
            let rules = FlowValidator.validate(
                document, sourceMap: FlowSourceMap(root: root), lines: lines,
                assumedIDs: decoder.brokenIDs, partial: shapeErrors)
            diagnostics += shapeErrors ? rules.filter { $0.severity == .error } : rules
        }
        diagnostics.sort { ($0.line ?? 0, $0.column ?? 0) < ($1.line ?? 0, $1.column ?? 0) }
        return FlowLoadResult(
            document: decoder.diagnostics.contains { $0.severity == .error } ? nil : document,
            diagnostics: diagnostics)
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
        guard !diagnostics.isEmpty, let root = try? JSONReader.parse(bytes) else { return diagnostics }
        let map = FlowSourceMap(root: root)
        let offsets = diagnostics.map { map.offset(of: $0.path) ?? 0 }
        let positions = SourceLines(bytes).positions(of: offsets)
        var out = diagnostics
        for k in out.indices { (out[k].line, out[k].column) = positions[k] }
        return out
    }

    /// Loads a flow from a string.
    public static func load(_ text: String) -> FlowLoadResult {
        load(Array(text.utf8))
    }
}

/// Finds the byte offset of a document path (`blocks[3].left.next`) in the parsed JSON, on demand.
///
/// Only diagnostics need places, and they are few, so nothing is indexed while loading.
public struct FlowSourceMap: Sendable {
    let root: JSONNode

    /// The offset of a path, falling back to its nearest existing parent.
    func offset(of path: String) -> Int? {
        var node = root
        var rest = Substring(path)
        while !rest.isEmpty {
            if rest.hasPrefix(".") { rest = rest.dropFirst() }
            if rest.hasPrefix("[") {
                guard let close = rest.firstIndex(of: "]"), let i = Int(rest[rest.index(after: rest.startIndex)..<close]),
                    case .array(let items) = node.value, items.indices.contains(i)
                else { return node.offset }
                node = items[i]
                rest = rest[rest.index(after: close)...]
            } else {
                let end = rest.firstIndex { $0 == "." || $0 == "[" } ?? rest.endIndex
                let key = rest[..<end]
                guard let member = node.object?.last(where: { $0.key == key }) else { return node.offset }
                node = member.value
                rest = rest[end...]
            }
        }
        return node.offset
    }
}

/// Turns JSON nodes into a document, collecting type errors instead of stopping at the first.
struct FlowDecoder {
    let lines: SourceLines
    var diagnostics: [FlowDiagnostic] = []

    init(lines: SourceLines) {
        self.lines = lines
    }

    /// Byte offsets of ``diagnostics``, turned into lines and columns at the end (in one sweep).
    var offsets: [Int] = []
    /// Ids of blocks that could not be decoded (validation still runs on the others).
    var brokenIDs: Set<String> = []

    mutating func error(_ code: String, _ message: String, path: String, at offset: Int) {
        diagnostics.append(FlowDiagnostic(severity: .error, code: code, message: message, path: path))
        offsets.append(offset)
    }

    /// The diagnostics with repeats collapsed and their places filled in.
    func placedDiagnostics() -> [FlowDiagnostic] {
        var seen: [String: Int] = [:]
        var keptOffsets: [Int] = []
        var kept: [FlowDiagnostic] = []
        var counts: [Int] = []
        for (d, offset) in zip(diagnostics, offsets) {
            let key = d.code + "\u{0}" + d.message
            if let k = seen[key] { counts[k] += 1; continue }
            seen[key] = kept.count
            kept.append(d)
            keptOffsets.append(offset)
            counts.append(0)
        }
        for (k, n) in counts.enumerated() where n > 0 { kept[k].message += " (and \(n) more like it)" }
        let positions = lines.positions(of: keptOffsets)
        for k in kept.indices { (kept[k].line, kept[k].column) = positions[k] }
        return kept
    }

    /// A reader over one JSON object that reports unknown and missing fields.
    struct Fields {
        /// Objects hold a handful of keys, so a linear search beats hashing.
        struct Members {
            var list: [JSONMember] = []
            subscript(key: String) -> JSONMember? {
                get {
                    // Lengths first: most keys of an object differ in length, and a length is
                    // read without a comparison call.
                    let n = key.utf8.count
                    return list.first { $0.key.utf8.count == n && $0.key == key }
                }
                set { if let v = newValue { list.append(v) } }
            }
            var count: Int { list.count }
        }
        var members = Members()
        let path: String
        let offset: Int
    }

    /// `allowed` is a short list (objects in flows have a handful of fields): a linear search of
    /// short strings beats hashing each key.
    mutating func fields(_ node: JSONNode, path: String, allowed: [String], what: @autoclosure () -> String) -> Fields? {
        guard let members = node.object else {
            error("wrong-type", "\(what()) must be an object, not \(node.typeName)", path: path, at: node.offset)
            return nil
        }
        var f = Fields(path: path, offset: node.offset)
        f.members.list.reserveCapacity(members.count)
        for m in members {
            var p: String { path.isEmpty ? m.key : "\(path).\(m.key)" }
            if f.members[m.key] != nil {
                error("duplicate-key", "the key \"\(m.key)\" appears twice in \(what())", path: p, at: m.keyOffset)
            } else if !allowed.contains(m.key) {
                let hint = Self.suggestion(for: m.key, in: allowed).map { "; did you mean \"\($0)\"?" } ?? ""
                error("unknown-field", "unknown field \"\(m.key)\" in \(what())\(hint)", path: p, at: m.keyOffset)
            } else {
                f.members[m.key] = m
            }
        }
        return f
    }

    static func suggestion(for key: String, in allowed: [String]) -> String? {
        Suggestions.closest(to: key, in: allowed)
    }

    static func path(_ f: Fields, _ key: String) -> String { f.path.isEmpty ? key : "\(f.path).\(key)" }

    mutating func required(_ f: Fields, _ key: String, what: @autoclosure () -> String) -> JSONNode? {
        guard let m = f.members[key] else {
            error("missing-field", "\(what()) needs the field \"\(key)\"", path: f.path, at: f.offset)
            return nil
        }
        return m.value
    }

    mutating func string(_ node: JSONNode?, path: @autoclosure () -> String) -> String? {
        guard let node else { return nil }
        if case .string(let s) = node.value { return s }
        let path = path()
        error("wrong-type", "\"\(path.split(separator: ".").last ?? "")\" must be a string, not \(node.typeName)", path: path, at: node.offset)
        return nil
    }

    mutating func optionalString(_ f: Fields, _ key: String) -> String? {
        guard let m = f.members[key] else { return nil }
        if case .null = m.value.value { return nil }
        return string(m.value, path: Self.path(f, key))
    }

    mutating func requiredString(_ f: Fields, _ key: String, what: @autoclosure () -> String) -> String? {
        string(required(f, key, what: what()), path: Self.path(f, key))
    }

    mutating func number(_ f: Fields, _ key: String, min: Double? = nil, max: Double = 1_000_000_000) -> Double? {
        guard let m = f.members[key] else { return nil }
        if case .null = m.value.value { return nil }
        guard case .number(let v) = m.value.value else {
            error("wrong-type", "\"\(key)\" must be a number, not \(m.value.typeName)", path: Self.path(f, key), at: m.value.offset)
            return nil
        }
        if let min, v < min {
            error("out-of-range", "\"\(key)\" must be at least \(Self.format(min)), not \(Self.format(v))", path: Self.path(f, key), at: m.value.offset)
            return nil
        }
        if v > max {
            error("out-of-range", "\"\(key)\" must be at most \(Self.format(max)), not \(Self.format(v))", path: Self.path(f, key), at: m.value.offset)
            return nil
        }
        return v
    }

    mutating func integer(_ f: Fields, _ key: String, min: Int) -> Int? {
        guard let v = number(f, key) else { return nil }
        guard v == v.rounded(), v >= Double(min), v <= 1_000_000_000 else {
            error(
                "out-of-range", "\"\(key)\" must be a whole number from \(min), not \(Self.format(v))", path: Self.path(f, key),
                at: f.members[key]!.value.offset)
            return nil
        }
        return Int(v)
    }

    mutating func bool(_ f: Fields, _ key: String) -> Bool? {
        guard let m = f.members[key] else { return nil }
        guard case .bool(let v) = m.value.value else {
            error("wrong-type", "\"\(key)\" must be true or false, not \(m.value.typeName)", path: Self.path(f, key), at: m.value.offset)
            return nil
        }
        return v
    }

    static func format(_ v: Double) -> String {
        v == v.rounded() && abs(v) < 1e15 ? String(Int(v)) : String(v)
    }

    mutating func enumValue<E: RawRepresentable & CaseIterable>(_ f: Fields, _ key: String, _: E.Type) -> E? where E.RawValue == String {
        guard let s = optionalString(f, key) else { return nil }
        if let v = E(rawValue: s) { return v }
        let names = E.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")
        error("bad-value", "\"\(key)\" must be one of \(names), not \"\(s)\"", path: Self.path(f, key), at: f.members[key]!.value.offset)
        return nil
    }

    // MARK: Document

    static let documentFields = [
        "$schema", "version", "title", "author", "closeButton", "start", "variables", "blocks",
        "scenario", "when", "banner",
    ]
    static let bannerFields = [
        "title", "subtitle", "icon", "color", "titleColor", "subtitleColor", "buttons", "duration",
        "animation", "backgroundTaps", "swipe", "fullWidth",
    ]

    mutating func decodeBanner(_ node: JSONNode) -> Banner? {
        guard let f = fields(node, path: "banner", allowed: Self.bannerFields, what: "\"banner\"") else { return nil }
        // The shape is the file's; the values go through the same codec as `rocket banner`'s flags.
        let title = requiredString(f, "title", what: "\"banner\"")
        var values: [BannerCodec.Field: BannerCodec.Input] = [:]
        for field in BannerCodec.Field.allCases {
            guard let m = f.members[field.flowKey] else { continue }
            switch m.value.value {
            case .null: continue
            case .string(let t): values[field] = .text(t)
            case .number(let v): values[field] = .number(v)
            case .bool(let b): values[field] = .bool(b)
            case .array(let items):
                let titles = items.enumerated().compactMap { string($0.element, path: "banner.\(field.flowKey)[\($0.offset)]") }
                if titles.count == items.count { values[field] = .list(titles) } else { continue }
            case .object:
                error("wrong-type", "\"\(field.flowKey)\" must not be an object", path: "banner.\(field.flowKey)", at: m.value.offset)
            }
        }
        let (banner, problems) = BannerCodec.banner(values)
        for p in problems {
            guard let m = f.members[p.field.flowKey] else { continue }
            error(p.code, "\"\(p.field.flowKey)\" \(p.message)", path: "banner.\(p.field.flowKey)", at: m.value.offset)
        }
        return title == nil ? nil : banner
    }
    static let whenFields = [
        "minEventsRequired", "maxEventsPermitted", "maxExecutionsPermitted", "minSecondsSinceFirstEvent",
        "minSecondsSinceLastEvent", "minSecondsBetweenExecutions", "minEventsInWindow", "budget", "priority", "eventsOf",
    ]

    /// A duration: a number of seconds, or a string with s, m, h, d or w ("14d").
    mutating func duration(_ f: Fields, _ key: String) -> Double? {
        guard let m = f.members[key] else { return nil }
        switch m.value.value {
        case .null: return nil
        case .number: return number(f, key, min: 0, max: ScenarioDuration.maxSeconds)
        case .string(let text):
            if let d = ScenarioDuration.parse(text) { return d }
            error(
                "bad-duration", "\"\(key)\" must be seconds or a duration like \"500ms\", \"90s\", \"2h\", \"14d\" (at most 100 years), not \"\(text)\"",
                path: Self.path(f, key), at: m.value.offset)
            return nil
        default:
            error(
                "wrong-type", "\"\(key)\" must be a number of seconds or a duration string, not \(m.value.typeName)",
                path: Self.path(f, key), at: m.value.offset)
            return nil
        }
    }

    mutating func decodeWhen(_ node: JSONNode) -> ScenarioRules? {
        guard let f = fields(node, path: "when", allowed: Self.whenFields, what: "\"when\"") else { return nil }
        // The shape is the file's; the values go through the same codec as the command line's flags.
        var values: [ScenarioRulesCodec.Field: ScenarioRulesCodec.Input] = [:]
        var places: [ScenarioRulesCodec.Field: (path: String, offset: Int)] = [:]
        func take(_ field: ScenarioRulesCodec.Field, _ fields: Fields, _ key: String) {
            guard let m = fields.members[key] else { return }
            let path = Self.path(fields, key)
            switch m.value.value {
            case .null: return
            case .number(let v): values[field] = .number(v)
            case .string(let text) where field.kind == .duration || field.kind == .name: values[field] = .text(text)
            default:
                let expected =
                    field.kind == .duration
                    ? "a number of seconds or a duration string"
                    : field.kind == .name ? "a scenario name" : "a whole number"
                error("wrong-type", "\"\(key)\" must be \(expected), not \(m.value.typeName)", path: path, at: m.value.offset)
                return
            }
            places[field] = (path, m.value.offset)
        }
        for field in ScenarioRulesCodec.Field.allCases where !field.flowKey.contains(".") { take(field, f, field.rawValue) }
        for (key, count, window) in [
            ("minEventsInWindow", ScenarioRulesCodec.Field.windowCount, ScenarioRulesCodec.Field.windowSeconds),
            ("budget", .budgetExecutions, .budgetSeconds),
        ] {
            guard let m = f.members[key] else { continue }
            let countKey = key == "budget" ? "executions" : "count"
            guard let nf = fields(m.value, path: "when.\(key)", allowed: [countKey, "window"], what: "\"\(key)\"") else { continue }
            take(count, nf, countKey)
            take(window, nf, "window")
            if nf.members[countKey] == nil { error("missing-field", "\"\(key)\" needs \"\(countKey)\"", path: "when.\(key)", at: m.value.offset) }
            if nf.members["window"] == nil { error("missing-field", "\"\(key)\" needs \"window\"", path: "when.\(key)", at: m.value.offset) }
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

    mutating func decodeDocument(_ root: JSONNode) -> FlowDocument? {
        guard let f = fields(root, path: "", allowed: Self.documentFields, what: "the flow") else { return nil }
        var version = FlowDocument.currentVersion
        if let vNode = required(f, "version", what: "the flow") {
            if case .number(let v) = vNode.value, v == 1 {
                version = 1
            } else {
                error(
                    "unsupported-version", "\"version\" must be 1 (the only version this rocket reads); found \(Self.describe(vNode))",
                    path: "version", at: vNode.offset)
            }
        }
        let title = optionalString(f, "title")
        var author: FlowAuthor?
        if let a = f.members["author"] {
            if let af = fields(a.value, path: "author", allowed: ["name", "image", "style"], what: "\"author\"") {
                author = FlowAuthor(
                    name: optionalString(af, "name"), image: optionalString(af, "image"),
                    style: enumValue(af, "style", RocketImageStyle.self))
            }
        }
        var close: FlowCloseButton?
        if let c = f.members["closeButton"] {
            if let cf = fields(c.value, path: "closeButton", allowed: ["title", "font"], what: "\"closeButton\"") {
                if let t = requiredString(cf, "title", what: "\"closeButton\"") {
                    close = FlowCloseButton(title: t, font: font(cf, "font"))
                }
            }
        }
        let start = optionalString(f, "start")
        var variables: [String] = []
        if let v = f.members["variables"] {
            if case .array(let items) = v.value.value {
                for (i, item) in items.enumerated() {
                    if let s = string(item, path: "variables[\(i)]") { variables.append(s) }
                }
            } else {
                error("wrong-type", "\"variables\" must be an array of names, not \(v.value.typeName)", path: "variables", at: v.value.offset)
            }
        }
        var blocks: [FlowBlock] = []
        if let bNode = required(f, "blocks", what: "the flow") {
            if case .array(let items) = bNode.value {
                blocks.reserveCapacity(items.count)
                for (i, item) in items.enumerated() {
                    if let b = decodeBlock(item, path: "blocks[\(i)]") {
                        blocks.append(b)
                    } else if let idMember = item.object?.first(where: { $0.key == "id" }), case .string(let id) = idMember.value.value {
                        brokenIDs.insert(id)  // other blocks may still name it: not an unknown target
                    }
                }
                if items.isEmpty {
                    error("no-blocks", "\"blocks\" is empty; a flow needs at least one block", path: "blocks", at: bNode.offset)
                }
            } else {
                error("wrong-type", "\"blocks\" must be an array, not \(bNode.typeName)", path: "blocks", at: bNode.offset)
            }
        }
        let scenario = optionalString(f, "scenario")
        let when = f.members["when"].flatMap { decodeWhen($0.value) }
        if let w = f.members["when"], f.members["scenario"] == nil {
            error("missing-field", "\"when\" needs a \"scenario\" name to keep its statistics under", path: "when", at: w.keyOffset)
        }
        if let name = scenario, name.isEmpty, let s = f.members["scenario"] {
            error("empty-id", "\"scenario\" may not be empty", path: "scenario", at: s.value.offset)
        }
        let banner = f.members["banner"].flatMap { decodeBanner($0.value) }
        return FlowDocument(
            version: version, title: title, author: author, closeButton: close, start: start,
            variables: variables, blocks: blocks, scenario: scenario, when: when, banner: banner)
    }

    static func describe(_ node: JSONNode) -> String {
        switch node.value {
        case .number(let v): return format(v)
        case .string(let s): return "\"\(s.prefix(40))\""
        default: return node.typeName
        }
    }

    // MARK: Fonts

    mutating func font(_ f: Fields, _ key: String) -> FlowFont? {
        guard let m = f.members[key] else { return nil }
        var p: String { Self.path(f, key) }
        switch m.value.value {
        case .null:
            return nil
        case .string(let name):
            if RocketFont.presets[name] != nil { return .preset(name) }
            let names = RocketFont.presets.keys.sorted().map { "\"\($0)\"" }.joined(separator: ", ")
            error("unknown-font", "unknown font preset \"\(name)\"; use one of \(names) or an object", path: p, at: m.value.offset)
            return nil
        case .object:
            guard let ff = fields(m.value, path: p, allowed: Self.fontFields, what: "a font") else { return nil }
            let size = number(ff, "size", min: 1) ?? 16
            let weight = enumValue(ff, "weight", RocketFontWeight.self) ?? .regular
            var color = RocketColor.black
            if let hex = optionalString(ff, "color") {
                if let c = RocketColor(hex: hex) {
                    color = c
                } else {
                    error(
                        "bad-color", "\"color\" must be #RGB or #RRGGBB, not \"\(hex)\"", path: Self.path(ff, "color"),
                        at: ff.members["color"]!.value.offset)
                }
            }
            return .custom(RocketFont(size: size, weight: weight, color: color, family: optionalString(ff, "family")))
        default:
            error("wrong-type", "\"\(key)\" must be a preset name or a font object, not \(m.value.typeName)", path: p, at: m.value.offset)
            return nil
        }
    }

    // MARK: Blocks

    static let commonFields = ["id", "type"]
    // The fields of the objects inside blocks, built once (a set literal builds a set per use).
    static let buttonFields = ["title", "next", "action", "font"]
    static let validateFields = ["required", "minLength", "maxLength", "pattern", "message"]
    static let branchFields = ["when", "next"]
    static let conditionFields = ["equals", "matches", "empty"]
    static let fontFields = ["size", "weight", "color", "family"]
    /// The most options a choice block may have.
    static let maxChoiceOptions = 100
    static let blockFields: [String: [String]] = [
        "text": commonFields + ["text", "next", "showNextAfter", "font"],
        "image": commonFields + ["image", "text", "next", "showNextAfter", "font", "imageStyle", "paddingLeft", "paddingRight"],
        "button": commonFields + ["title", "next", "action", "font"],
        "doubleButton": commonFields + ["left", "right"],
        "choice": commonFields + ["text", "options", "font"],
        "textInput": commonFields + ["text", "buttonTitle", "secret", "placeholder", "validate", "branches", "next", "font", "buttonStyle"],
    ]

    mutating func decodeBlock(_ node: JSONNode, path: String) -> FlowBlock? {
        guard let members = node.object else {
            error("wrong-type", "a block must be an object, not \(node.typeName)", path: path, at: node.offset)
            return nil
        }
        guard let typeMember = members.first(where: { $0.key == "type" }) else {
            error("missing-field", "a block needs the field \"type\"", path: path, at: node.offset)
            return nil
        }
        guard case .string(let type) = typeMember.value.value else {
            error("wrong-type", "\"type\" must be a string, not \(typeMember.value.typeName)", path: "\(path).type", at: typeMember.value.offset)
            return nil
        }
        guard let allowed = Self.blockFields[type] else {
            let kinds = Self.blockFields.keys.sorted().map { "\"\($0)\"" }.joined(separator: ", ")
            error("unknown-block-type", "unknown block type \"\(type)\"; use one of \(kinds)", path: "\(path).type", at: typeMember.value.offset)
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
            for side in ["left", "right"] {
                guard let node = required(f, side, what: "a doubleButton block") else { sides.append(nil); continue }
                let p = "\(path).\(side)"
                guard let bf = fields(node, path: p, allowed: Self.buttonFields, what: "\"\(side)\"") else {
                    sides.append(nil); continue
                }
                sides.append(decodeButton(bf, what: "\"\(side)\""))
            }
            if let l = sides[0], let r = sides[1] { content = .doubleButton(left: l, right: r) } else { content = nil }
        case "choice":
            let text = requiredString(f, "text", what: "a choice block")
            var options: [FlowButton] = []
            var complete = true
            if let o = required(f, "options", what: "a choice block") {
                if case .array(let items) = o.value {
                    for (i, item) in items.enumerated() {
                        let p = "\(path).options[\(i)]"
                        guard let bf = fields(item, path: p, allowed: Self.buttonFields, what: "an option"),
                            let option = decodeButton(bf, what: "an option")
                        else {
                            complete = false
                            continue
                        }
                        options.append(option)
                    }
                    if items.count < 2 {
                        error("too-few-options", "a choice block needs at least two options", path: "\(path).options", at: o.offset)
                        complete = false
                    } else if items.count > Self.maxChoiceOptions {
                        // A list in a chat, drawn whole: more belongs in `rocket choose` (which scrolls).
                        error(
                            "too-many-options", "a choice block has at most \(Self.maxChoiceOptions) options, not \(items.count)", path: "\(path).options",
                            at: o.offset)
                        complete = false
                    }
                } else {
                    error("wrong-type", "\"options\" must be an array, not \(o.typeName)", path: "\(path).options", at: o.offset)
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

    mutating func decodeInput(_ f: Fields, path: String) -> FlowTextInput? {
        let text = requiredString(f, "text", what: "a textInput block")
        let buttonTitle = requiredString(f, "buttonTitle", what: "a textInput block")
        var validation: RocketInputValidation?
        if let v = f.members["validate"] {
            let vp = "\(path).validate"
            if let vf = fields(v.value, path: vp, allowed: Self.validateFields, what: "\"validate\"") {
                validation = RocketInputValidation(
                    required: bool(vf, "required") ?? false, minLength: integer(vf, "minLength", min: 0),
                    maxLength: integer(vf, "maxLength", min: 1), pattern: optionalString(vf, "pattern"),
                    message: optionalString(vf, "message"))
            }
        }
        var branches: [FlowBranch] = []
        if let b = f.members["branches"] {
            if case .array(let items) = b.value.value {
                for (i, item) in items.enumerated() {
                    let bp = "\(path).branches[\(i)]"
                    guard let bf = fields(item, path: bp, allowed: Self.branchFields, what: "a branch") else { continue }
                    guard let whenNode = required(bf, "when", what: "a branch") else { continue }
                    let wp = "\(bp).when"
                    guard let wf = fields(whenNode, path: wp, allowed: Self.conditionFields, what: "\"when\"") else { continue }
                    let condition: RocketInputCondition?
                    if wf.members.count != 1 {
                        error("bad-condition", "\"when\" needs exactly one of \"equals\", \"matches\" or \"empty\"", path: wp, at: whenNode.offset)
                        condition = nil
                    } else if wf.members["equals"] != nil {
                        condition = optionalString(wf, "equals").map { .equals($0) }
                    } else if wf.members["matches"] != nil {
                        condition = optionalString(wf, "matches").map { .pattern($0) }
                    } else {
                        condition = bool(wf, "empty") == true ? .empty : nil
                        if condition == nil, bool(wf, "empty") == false {
                            error("bad-condition", "\"empty\" can only be true", path: "\(wp).empty", at: wf.members["empty"]!.value.offset)
                        }
                    }
                    let next = optionalString(bf, "next")
                    if let condition { branches.append(FlowBranch(when: condition, next: next)) }
                }
            } else {
                error("wrong-type", "\"branches\" must be an array, not \(b.value.typeName)", path: "\(path).branches", at: b.value.offset)
            }
        }
        let input = FlowTextInput(
            text: text ?? "", buttonTitle: buttonTitle ?? "", secret: bool(f, "secret") ?? false,
            placeholder: optionalString(f, "placeholder"), validate: validation, branches: branches,
            next: optionalString(f, "next"), font: font(f, "font"), buttonStyle: font(f, "buttonStyle"))
        return text == nil || buttonTitle == nil ? nil : input
    }
}
