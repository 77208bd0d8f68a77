public import RocketConversation
import RocketCore
public import RocketJSON

/// What a field of a test file holds: the words docs/FLOW_TESTS.md's tables say and the JSON
/// Schema of the file, made from one value.
public enum FlowTestValueType: Hashable, Sendable {
    /// Any string.
    case string
    /// A string that is not empty.
    case nonEmptyString
    /// A language tag (`en`, `pt-BR`).
    case languageTag
    /// The id of one of the flow's blocks.
    case blockID
    /// A list of block ids.
    case blockIDs
    /// A list of strings.
    case strings
    /// An object of block ids and answers.
    case answers
    /// An object of variable names and values.
    case values
    /// One of these words.
    case words([String])
    /// The list of cases.
    case cases
    /// The `expect` object.
    case expect

    /// The words of the reference's Type column.
    public var phrase: String {
        switch self {
        case .string: return "string"
        case .nonEmptyString: return "non-empty string"
        case .languageTag: return "language tag"
        case .blockID: return "block id"
        case .blockIDs: return "array of block ids"
        case .strings: return "array of non-empty strings"
        case .answers: return "object: block id → answer"
        case .values: return "object: variable → value"
        case .words(let words):
            return words.map { "`\($0)`" }.listedForMessage(first: words.count, conjunction: "or")
        case .cases: return "array of [cases](#a-case), 1 to \(RocketLimits.flowTestCases)"
        case .expect: return "[expect](#expect) object"
        }
    }

    /// The JSON Schema of a value of this type.
    public var schema: JSONValue {
        // An answer or a value: what `rocket play --answers` takes.
        let answer: JSONValue = .object([
            ("type", .array(["string", "number", "boolean", "null", "array"].map(JSONValue.string))), ("items", .object([("type", .string("string"))])),
        ])
        switch self {
        case .string: return .object([("type", .string("string"))])
        case .nonEmptyString, .blockID: return .object([("type", .string("string")), ("minLength", .number(1))])
        case .languageTag: return .object([("type", .string("string")), ("pattern", .string("^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$"))])
        case .blockIDs: return .object([("type", .string("array")), ("items", FlowTestValueType.blockID.schema)])
        case .strings: return .object([("type", .string("array")), ("items", FlowTestValueType.nonEmptyString.schema)])
        case .answers, .values: return .object([("type", .string("object")), ("additionalProperties", answer)])
        case .words(let words): return .object([("enum", .array(words.map(JSONValue.string)))])
        case .cases:
            return .object([
                ("type", .string("array")), ("minItems", .number(1)), ("maxItems", .number(Double(RocketLimits.flowTestCases))),
                ("items", .object([("$ref", .string("#/$defs/case"))])),
            ])
        case .expect: return .object([("$ref", .string("#/$defs/expect"))])
        }
    }
}

/// One field of the test file format (`rocket test`), as the reader takes it, docs/FLOW_TESTS.md's
/// tables describe it and the JSON Schema lists it.
public struct FlowTestField: Hashable, Sendable {
    /// The key.
    public var name: String
    /// What it holds.
    public var type: FlowTestValueType
    /// Whether it must be there.
    public var required: Bool
    /// What it means.
    public var summary: String
}

/// The format of a flow's test file, `NAME.test.json` beside `NAME.json`, stated once: the reader
/// takes these keys and no others, and docs/FLOW_TESTS.md's tables are made from them (a test
/// holds the two together).
///
/// ```swift
/// FlowTestFormat.suffix                  // ".test.json"
/// FlowTestFormat.table(FlowTestFormat.expectation)   // the Markdown table of `expect`
/// ```
public enum FlowTestFormat {
    /// The test files' schema's `$id` (a host that is `.invalid`, as ``FlowFormat/schemaID``'s).
    public static let schemaID = "https://rocketalert.invalid/schema/flow-tests-v1.schema.json"

    /// How a test file's name ends; the flow it tests has the name without `.test`.
    public static let suffix = ".test.json"

    /// The file's top-level object.
    public static let suite: [FlowTestField] = [
        FlowTestField(name: "$schema", type: .string, required: false, summary: "Read by nothing; lets editors find the schema (`rocket schema --tests`)."),
        FlowTestField(
            name: "flow", type: .nonEmptyString, required: false,
            summary: "The flow file, relative to this file; default: this file's name without `.test` (`welcome.test.json` tests `welcome.json`)."),
        FlowTestField(
            name: "cases", type: .cases, required: true,
            summary: "The cases, each played from the flow's start on its own."),
    ]

    /// One case.
    public static let testCase: [FlowTestField] = [
        FlowTestField(name: "name", type: .nonEmptyString, required: true, summary: "What the case shows; unique in the file."),
        FlowTestField(
            name: "answers", type: .answers, required: false,
            summary:
                "The answers, as `rocket play --answers` takes them: a button's or option's title, a list of titles for a multiple choice, a rating's number, an input's text. Each is given once, when its block waits."
        ),
        FlowTestField(
            name: "vars", type: .values, required: false,
            summary: "Start values of the flow's variables, as `--var` and the API's `vars` give them (a string that reads as the variable's type is taken)."
        ),
        FlowTestField(
            name: "lang", type: .languageTag, required: false,
            summary: "Play the flow in this one of its languages (default: its first); `says` is matched in it."),
        FlowTestField(
            name: "variant", type: .nonEmptyString, required: false,
            summary: "Start where this variant of the flow's experiment starts (default: the flow's own start)."),
        FlowTestField(
            name: "now", type: .nonEmptyString, required: false,
            summary:
                "The moment the case is played at, with its offset from UTC (`2026-12-06T09:30+01:00`): the local date and time `today()`, `time()`, `weekday()` and bounds counted from today read. Without it they have no clock, and a flow that reads them fails the case."
        ),
        FlowTestField(name: "expect", type: .expect, required: false, summary: "What must hold; without it, that the flow ends."),
    ]

    /// A case's `expect`.
    public static let expectation: [FlowTestField] = [
        FlowTestField(
            name: "end", type: .words(FlowTestExpectation.End.allCases.map(\.rawValue)), required: false,
            summary:
                "How the case ends: the flow reaches its end (the default), waits at a block no answer was given for, or is not shown (its `when.if` is false for these `vars`)."
        ),
        FlowTestField(name: "waitingAt", type: .blockID, required: false, summary: "It waits at this block (`end` is then `waiting`)."),
        FlowTestField(
            name: "refused", type: .blockID, required: false,
            summary: "The answer given for this block is refused (its validation, type or bounds say no), and the case waits there (`end` is then `waiting`)."),
        FlowTestField(
            name: "refusal", type: .nonEmptyString, required: false,
            summary: "With `refused`: a part of what the refusal says (in the case's language; the flow's own `message` when it has one)."),
        FlowTestField(
            name: "path", type: .blockIDs, required: false,
            summary: "Exactly the blocks shown, in order (`set`, `condition` and `jump` blocks are never shown)."),
        FlowTestField(name: "reaches", type: .blockIDs, required: false, summary: "Blocks that are shown, in any order."),
        FlowTestField(name: "avoids", type: .blockIDs, required: false, summary: "Blocks that are never shown."),
        FlowTestField(
            name: "vars", type: .values, required: false,
            summary: "Values the flow's variables hold at the end (the others are not compared); a number is equal to the same number written otherwise."),
        FlowTestField(name: "actions", type: .strings, required: false, summary: "Exactly the actions fired, in order."),
        FlowTestField(
            name: "snooze", type: .nonEmptyString, required: false,
            summary:
                "The snooze the case's presses leave (the last pressed button's `snooze`: a duration such as `\"7d\"`, equal to the same time written otherwise, or `\"forever\"`); `\"none\"`: no press snoozes the flow."
        ),
        FlowTestField(
            name: "says", type: .strings, required: false,
            summary: "Texts each found in a block shown, placeholders filled (a part of a block's text is enough)."),
    ]

    /// The reference of docs/FLOW_TESTS.md: a section and a table for the file, a case and
    /// `expect`.
    public static var referenceMarkdown: String {
        "### The file\n\n" + table(suite) + "\n### A case\n\n" + table(testCase) + "\n### Expect\n\n" + table(expectation)
    }

    /// The test file format as a JSON Schema (draft 2020-12), made from the same tables: every
    /// object refuses keys it does not list (`rocket schema --tests`,
    /// `schema/flow-tests-v1.schema.json`).
    public static var jsonSchema: JSONValue {
        func object(_ fields: [FlowTestField], title: String) -> [(String, JSONValue)] {
            var properties: [(String, JSONValue)] = []
            for f in fields {
                guard case .object(var members) = f.type.schema else { continue }
                members.append(("description", .string(f.summary)))
                properties.append((f.name, .object(members)))
            }
            return [
                ("title", .string(title)), ("type", .string("object")), ("required", .array(fields.filter(\.required).map { .string($0.name) })),
                ("properties", .object(properties)), ("additionalProperties", .bool(false)),
            ]
        }
        return .object(
            [
                ("$schema", .string("https://json-schema.org/draft/2020-12/schema")),
                ("$id", .string(schemaID)),
            ] + object(suite, title: "RocketAlert flow tests (rocket test)") + [
                (
                    "$defs",
                    .object([("case", .object(object(testCase, title: "A case"))), ("expect", .object(object(expectation, title: "What a case expects")))])
                )
            ])
    }

    /// A Markdown table of `fields`.
    public static func table(_ fields: [FlowTestField]) -> String {
        var out = "| Field | Type | Required | Meaning |\n|---|---|---|---|\n"
        for f in fields { out += "| `\(f.name)` | \(f.type.phrase) | \(f.required ? "yes" : "no") | \(f.summary) |\n" }
        return out
    }
}

/// A flow's test file, read: its cases, with the place of everything a failure names.
///
/// ```swift
/// let suite = try FlowTestSuite.read(bytes).get()
/// let problems = suite.problems(against: doc)          // ids, variables, variants that do not exist
/// let result = suite.cases[0].run(on: doc) { "\($0.rule)" }   // played headless on its own clock
/// result.failures.map(\.message)
/// ```
public struct FlowTestSuite: Sendable {
    /// The flow file as the suite names it (nil: the default).
    public var flow: String?
    /// Where `flow` is written.
    public var flowOffset: Int
    /// The cases, in file order.
    public var cases: [FlowTestCase]
    /// The text, to place offsets.
    let lines: SourceLines

    /// Why a test file cannot be used: every problem, placed.
    public struct Failure: Error, Hashable, Sendable {
        /// The problems, in file order.
        public var diagnostics: [FlowDiagnostic]
    }

    /// The 1-based line and column of a byte offset of the file.
    public func place(_ offset: Int) -> (line: Int, column: Int) { lines.position(of: offset) }

    /// Reads a test file's bytes: its shape only (``problems(against:)`` checks it against the
    /// flow).
    public static func read(_ bytes: [UInt8]) -> Result<FlowTestSuite, Failure> {
        let lines = SourceLines(bytes)
        let root: JSONNode
        do {
            root = try JSONReader.parse(bytes)
        } catch {
            let (line, column) = lines.position(of: error.offset)
            return .failure(
                Failure(diagnostics: [FlowDiagnostic(severity: .error, code: "syntax", message: error.message, path: "", line: line, column: column)]))
        }
        var reader = Reader()
        guard let suite = reader.suite(root, lines: lines), !reader.problems.hasErrors else {
            return .failure(Failure(diagnostics: ordered(reader.problems.placed(in: lines)) + [reader.problems.unlistedNote].compactMap { $0 }))
        }
        return .success(suite)
    }

    /// What in the suite the flow does not have: block ids, variables, its variant or language;
    /// answers that do not fit their blocks. Placed in the test file; empty when it fits.
    public func problems(against doc: FlowDocument) -> [FlowDiagnostic] {
        var problems = FlowDiagnosticList()
        var checker = FlowAnswers.Checker(doc)
        let ids = Set(doc.blockIDs)
        let shownIDs = Set(doc.graph.nodes.filter(\.kind.isShown).compactMap(\.id))
        for (k, c) in cases.enumerated() {
            let at = "cases[\(k)]"
            for answer in c.answers {
                switch checker.check(answer.id, answer.value) {
                case .fits: break
                case .skip:
                    problems.add(
                        .error, "variable", "\(FlowDiagnostic.quoted(answer.id)) is a variable: give it in \"vars\"", path: "\(at).answers",
                        offset: answer.keyOffset)
                case .problem(let code, let message, let atValue):
                    problems.add(.error, code, message, path: "\(at).answers", offset: atValue ? answer.valueOffset : answer.keyOffset)
                }
            }
            var given: [String: RocketValue] = [:]
            for v in c.vars { given[v.name] = v.value }
            for v in c.vars where doc.graph.variable(named: v.name) == nil {
                problems.add(.error, "unknown-variable", "the flow has no variable \(FlowDiagnostic.quoted(v.name))", path: "\(at).vars", offset: v.offset)
            }
            if case .failure(let p) = doc.startValues(given.filter { doc.graph.variable(named: $0.key) != nil }) {
                problems.add(.error, "type", p.message, path: "\(at).vars", offset: c.vars.first { $0.name == p.name }?.offset ?? c.offset)
            }
            if let lang = c.language {
                if doc.languages.isEmpty {
                    problems.add(
                        .error, "unknown-language", "the flow is written in one language; it has no \"languages\"", path: "\(at).lang", offset: lang.offset)
                } else if !doc.languages.contains(lang.value) {
                    problems.add(
                        .error, "unknown-language",
                        "the flow is not written in \(FlowDiagnostic.quoted(lang.value)); its languages are \(doc.languages.joined(separator: ", "))",
                        path: "\(at).lang", offset: lang.offset)
                }
            }
            if let variant = c.variant {
                if let e = doc.experiment {
                    if !e.variants.contains(where: { $0.name == variant.value }) {
                        problems.add(
                            .error, "unknown-variant",
                            "the experiment \(FlowDiagnostic.quoted(e.name)) has no variant \(FlowDiagnostic.quoted(variant.value)); its variants are \(e.variants.map(\.name).joined(separator: ", "))",
                            path: "\(at).variant", offset: variant.offset)
                    }
                } else {
                    problems.add(.error, "unknown-variant", "the flow has no experiment", path: "\(at).variant", offset: variant.offset)
                }
            }
            let e = c.expect
            for list in [e.path, e.reaches, e.avoids].compactMap({ $0 }) + [e.waitingAt, e.refused].compactMap({ $0.map { [$0] } }) {
                for id in list where !shownIDs.contains(id.value) {
                    let why =
                        ids.contains(id.value)
                        ? "block \(FlowDiagnostic.quoted(id.value)) is never shown (a set, condition or jump block)"
                        : "the flow has no block \(FlowDiagnostic.quoted(id.value))"
                    problems.add(.error, "unknown-block", why, path: "\(at).expect", offset: id.offset)
                }
            }
            for v in e.vars where doc.graph.variable(named: v.name) == nil {
                problems.add(
                    .error, "unknown-variable", "the flow has no variable \(FlowDiagnostic.quoted(v.name))", path: "\(at).expect.vars", offset: v.offset)
            }
        }
        return Self.ordered(problems.placed(in: lines)) + [problems.unlistedNote].compactMap { $0 }
    }

    /// Diagnostics in the file's order.
    static func ordered(_ list: [FlowDiagnostic]) -> [FlowDiagnostic] {
        list.enumerated().sorted { ($0.element.line ?? 0, $0.element.column ?? 0, $0.offset) < ($1.element.line ?? 0, $1.element.column ?? 0, $1.offset) }.map(
            \.element)
    }
}

extension RocketBlockKind {
    /// Whether a block of this kind is shown (a `set`, `condition` or `jump` block only routes).
    package var isShown: Bool {
        switch self {
        case .set, .condition, .jump: return false
        default: return true
        }
    }
}

/// A value in a test file and where it is written.
public struct FlowTestPlaced<Value: Hashable & Sendable>: Hashable, Sendable {
    /// The value.
    public var value: Value
    /// The byte offset of its first byte.
    public var offset: Int
}

/// One case of a test file.
public struct FlowTestCase: Sendable {
    /// An answer given for a block.
    public struct Answer: Hashable, Sendable {
        /// The block's id.
        public var id: String
        /// The answer.
        public var value: RocketValue
        /// Where its key and its value are written.
        public var keyOffset: Int, valueOffset: Int
    }
    /// A variable's value.
    public struct Variable: Hashable, Sendable {
        /// Its name.
        public var name: String
        /// The value.
        public var value: RocketValue
        /// Where its key is written.
        public var offset: Int
    }

    /// Its name.
    public var name: String
    /// Where the case's object begins.
    public var offset: Int
    /// The answers given, in file order.
    public var answers: [Answer]
    /// The start values.
    public var vars: [Variable]
    /// The language it is played in.
    public var language: FlowTestPlaced<String>?
    /// The experiment's variant it starts with.
    public var variant: FlowTestPlaced<String>?
    /// The local time it is played at (seconds since 1970-01-01T00:00 local), from its `now`.
    public var localSeconds: Double?
    /// What must hold.
    public var expect: FlowTestExpectation
}

/// What a case expects; every list and value keeps its place in the file.
public struct FlowTestExpectation: Sendable {
    /// How a case ends.
    public enum End: String, Hashable, Sendable, CaseIterable {
        /// The flow reached its end.
        case completed
        /// A block waits for an answer none was given for.
        case waiting
        /// The flow's `when.if` is false for the case's values: nothing is shown.
        case notShown = "not-shown"
    }
    /// How it ends (default: completed; `waitingAt` makes it waiting).
    public var end: FlowTestPlaced<End>?
    /// The block it waits at.
    public var waitingAt: FlowTestPlaced<String>?
    /// The block whose given answer is refused.
    public var refused: FlowTestPlaced<String>?
    /// A part of what the refusal says.
    public var refusal: FlowTestPlaced<String>?
    /// Exactly the blocks shown.
    public var path: [FlowTestPlaced<String>]?
    /// Blocks shown.
    public var reaches: [FlowTestPlaced<String>]?
    /// Blocks never shown.
    public var avoids: [FlowTestPlaced<String>]?
    /// Values at the end.
    public var vars: [FlowTestCase.Variable] = []
    /// Exactly the actions fired.
    public var actions: FlowTestPlaced<[String]>?
    /// The snooze the presses leave (`"none"`: none).
    public var snooze: FlowTestPlaced<String>?
    /// Texts shown.
    public var says: [FlowTestPlaced<String>]?
    /// Where `path` is written.
    public var pathOffset = 0

    /// How the case must end, `end` and `waitingAt` together.
    public var expectedEnd: End { waitingAt != nil || refused != nil ? .waiting : end?.value ?? .completed }
}

/// Reads a test file's tree, collecting every problem with its offset.
private struct Reader {
    var problems = FlowDiagnosticList()

    mutating func problem(_ code: String, _ message: String, _ path: String, _ offset: Int) {
        problems.add(.error, code, message, path: path, offset: offset)
    }

    /// The members of an object whose keys are all in `fields`, each once; nil when `node` is
    /// no object.
    mutating func members(_ node: JSONNode, _ fields: [FlowTestField], path: String, what: String) -> [String: JSONMember]? {
        guard let list = node.object else {
            problem("type", "\(what) must be an object, not \(node.typeName)", path, node.offset)
            return nil
        }
        var out: [String: JSONMember] = [:]
        let names = fields.map(\.name)
        for m in list {
            guard names.contains(m.key) else {
                let hint = Suggestions.closest(to: m.key, in: names).map { "; did you mean \"\($0)\"?" } ?? ""
                problem("unknown-field", "unknown field \(FlowDiagnostic.quoted(m.key)) in \(what)\(hint)", path, m.keyOffset)
                continue
            }
            guard out[m.key] == nil else {
                problem("duplicate-key", "\"\(m.key)\" is written twice in \(what)", path, m.keyOffset)
                continue
            }
            out[m.key] = m
        }
        for f in fields where f.required && out[f.name] == nil {
            problem("missing-field", "\(what) needs the field \"\(f.name)\"", path, node.offset)
        }
        return out
    }

    /// The last step of a path, which a message names (the whole path follows it).
    static func leaf(_ path: String) -> String { "\"" + (path.split(separator: ".").last.map(String.init) ?? path) + "\"" }

    mutating func string(_ node: JSONNode, path: String, nonEmpty: Bool = true) -> FlowTestPlaced<String>? {
        guard case .string(let s) = node.value else {
            problem("type", "\(Self.leaf(path)) must be a string, not \(node.typeName)", path, node.offset)
            return nil
        }
        if nonEmpty, s.isEmpty {
            problem("empty", "\(Self.leaf(path)) must not be empty", path, node.offset)
            return nil
        }
        return FlowTestPlaced(value: s, offset: node.offset)
    }

    mutating func strings(_ node: JSONNode, path: String) -> [FlowTestPlaced<String>]? {
        guard case .array(let items) = node.value else {
            problem("type", "\(Self.leaf(path)) must be an array of strings, not \(node.typeName)", path, node.offset)
            return nil
        }
        var out: [FlowTestPlaced<String>] = []
        for (k, item) in items.enumerated() {
            if let s = string(item, path: "\(path)[\(k)]") { out.append(s) }
        }
        return out
    }

    mutating func variables(_ node: JSONNode, path: String) -> [FlowTestCase.Variable] {
        guard let list = node.object else {
            problem("type", "\(path) must be an object of variables and values, not \(node.typeName)", path, node.offset)
            return []
        }
        var out: [FlowTestCase.Variable] = []
        var seen = Set<String>()
        for m in list {
            guard seen.insert(m.key).inserted else {
                problem("duplicate-key", "\(FlowDiagnostic.quoted(m.key)) is written twice in \(path)", path, m.keyOffset)
                continue
            }
            guard let value = FlowAnswers.value(m.value), m.value.object == nil else {
                problem("type", "\(path).\(Sanitizer.excerpt(m.key)) must be a string, a number, true, false, null or a list of strings", path, m.value.offset)
                continue
            }
            out.append(FlowTestCase.Variable(name: m.key, value: value, offset: m.keyOffset))
        }
        return out
    }

    mutating func suite(_ root: JSONNode, lines: SourceLines) -> FlowTestSuite? {
        guard let top = members(root, FlowTestFormat.suite, path: "", what: "a test file") else { return nil }
        if let schema = top["$schema"] { _ = string(schema.value, path: "$schema", nonEmpty: false) }
        let flow = top["flow"].flatMap { string($0.value, path: "flow") }
        var cases: [FlowTestCase] = []
        if let list = top["cases"] {
            switch list.value.value {
            case .array(let items) where items.isEmpty:
                problem("empty", "\"cases\" must hold at least one case", "cases", list.value.offset)
            case .array(let items) where items.count > RocketLimits.flowTestCases:
                problem("too-many-cases", "a test file holds at most \(RocketLimits.flowTestCases) cases", "cases", items[RocketLimits.flowTestCases].offset)
            case .array(let items):
                var names: [String: Int] = [:]
                for (k, item) in items.enumerated() {
                    guard let c = testCase(item, path: "cases[\(k)]") else { continue }
                    if let first = names[c.name] {
                        problem(
                            "duplicate-name", "the case \(FlowDiagnostic.quoted(c.name)) is named twice (cases[\(first)] has the name)", "cases[\(k)].name",
                            c.offset)
                    }
                    names[c.name] = names[c.name] ?? k
                    cases.append(c)
                }
            default:
                problem("type", "\"cases\" must be an array of cases, not \(list.value.typeName)", "cases", list.value.offset)
            }
        }
        return FlowTestSuite(flow: flow?.value, flowOffset: flow?.offset ?? 0, cases: cases, lines: lines)
    }

    mutating func testCase(_ node: JSONNode, path: String) -> FlowTestCase? {
        guard let m = members(node, FlowTestFormat.testCase, path: path, what: "a case") else { return nil }
        let name = m["name"].flatMap { string($0.value, path: "\(path).name") }
        var answers: [FlowTestCase.Answer] = []
        if let a = m["answers"] {
            if let list = a.value.object {
                var seen = Set<String>()
                for member in list {
                    guard seen.insert(member.key).inserted else {
                        problem("duplicate-key", "\(FlowDiagnostic.quoted(member.key)) is answered twice", "\(path).answers", member.keyOffset)
                        continue
                    }
                    guard let value = FlowAnswers.value(member.value) else {
                        problem(
                            "type", "the answer for \(FlowDiagnostic.quoted(member.key)) is \(member.value.typeName)", "\(path).answers", member.value.offset)
                        continue
                    }
                    answers.append(FlowTestCase.Answer(id: member.key, value: value, keyOffset: member.keyOffset, valueOffset: member.value.offset))
                }
            } else {
                problem("type", "\(path).answers must be an object of block ids and answers, not \(a.value.typeName)", "\(path).answers", a.value.offset)
            }
        }
        let vars = m["vars"].map { variables($0.value, path: "\(path).vars") } ?? []
        let language = m["lang"].flatMap { string($0.value, path: "\(path).lang") }
        if let language, !FlowDocument.isLanguageTag(language.value) {
            problem("language", "\(FlowDiagnostic.quoted(language.value)) is not a language tag (en, it, pt-BR)", "\(path).lang", language.offset)
        }
        let variant = m["variant"].flatMap { string($0.value, path: "\(path).variant") }
        var localSeconds: Double?
        if let now = m["now"].flatMap({ string($0.value, path: "\(path).now") }) {
            localSeconds = RocketSchedule.localSeconds(now.value)
            if localSeconds == nil {
                problem(
                    "type", "\(path).now must be a moment with its offset from UTC (2026-12-06T09:30+01:00), not \(FlowDiagnostic.quoted(now.value))",
                    "\(path).now", now.offset)
            }
        }
        var expect = FlowTestExpectation()
        if let e = m["expect"], let em = members(e.value, FlowTestFormat.expectation, path: "\(path).expect", what: "\"expect\"") {
            let at = "\(path).expect"
            if let end = em["end"], let word = string(end.value, path: "\(at).end") {
                if let value = FlowTestExpectation.End(rawValue: word.value) {
                    expect.end = FlowTestPlaced(value: value, offset: word.offset)
                } else {
                    let words = FlowTestExpectation.End.allCases.map(\.rawValue)
                    problem(
                        "type", "\(at).end must be one of \(words.joined(separator: ", ")), not \(FlowDiagnostic.quoted(word.value))", "\(at).end", word.offset)
                }
            }
            expect.waitingAt = em["waitingAt"].flatMap { string($0.value, path: "\(at).waitingAt") }
            if let w = expect.waitingAt, let end = expect.end, end.value != .waiting {
                problem("conflict", "\(at).waitingAt says the case waits, and \(at).end says \(end.value.rawValue)", "\(at).waitingAt", w.offset)
            }
            expect.refused = em["refused"].flatMap { string($0.value, path: "\(at).refused") }
            if let r = expect.refused, let end = expect.end, end.value != .waiting {
                problem("conflict", "\(at).refused says the case waits, and \(at).end says \(end.value.rawValue)", "\(at).refused", r.offset)
            }
            if let r = expect.refused, let w = expect.waitingAt, r.value != w.value {
                problem(
                    "conflict", "\(at).refused and \(at).waitingAt name different blocks: the case waits where the answer is refused", "\(at).refused", r.offset
                )
            }
            expect.refusal = em["refusal"].flatMap { string($0.value, path: "\(at).refusal") }
            if let r = expect.refusal, expect.refused == nil {
                problem("conflict", "\(at).refusal needs \(at).refused: the block whose answer is refused", "\(at).refusal", r.offset)
            }
            if let p = em["path"] {
                expect.path = strings(p.value, path: "\(at).path")
                expect.pathOffset = p.value.offset
            }
            expect.reaches = em["reaches"].flatMap { strings($0.value, path: "\(at).reaches") }
            expect.avoids = em["avoids"].flatMap { strings($0.value, path: "\(at).avoids") }
            expect.vars = em["vars"].map { variables($0.value, path: "\(at).vars") } ?? []
            if let a = em["actions"], let list = strings(a.value, path: "\(at).actions") {
                expect.actions = FlowTestPlaced(value: list.map(\.value), offset: a.value.offset)
            }
            expect.says = em["says"].flatMap { strings($0.value, path: "\(at).says") }
            if let s = em["snooze"].flatMap({ string($0.value, path: "\(at).snooze") }) {
                if s.value == "none" || RocketButtonNode.snoozeSeconds(s.value) != nil {
                    expect.snooze = s
                } else {
                    problem(
                        "type", "\(at).snooze must be a duration (\"7d\"), \"forever\" or \"none\", not \(FlowDiagnostic.quoted(s.value))", "\(at).snooze",
                        s.offset)
                }
            }
        }
        guard let name else { return nil }
        return FlowTestCase(
            name: name.value, offset: name.offset, answers: answers, vars: vars, language: language, variant: variant, localSeconds: localSeconds,
            expect: expect)
    }
}
