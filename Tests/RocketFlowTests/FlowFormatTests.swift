import Foundation
import RocketConversation
import RocketCore
import RocketJSON
import RocketTestSupport
import Testing

@testable import RocketFlow

/// Files the table generates are compared with the committed ones; `ROCKET_UPDATE_GOLDEN=1`
/// writes them instead.
private var updatingGolden: Bool { ProcessInfo.processInfo.environment["ROCKET_UPDATE_GOLDEN"] == "1" }

/// Holds the part of a committed document between `<!-- BEGIN GENERATED NAME …-->` and
/// `<!-- END GENERATED NAME -->` to `made` (with `ROCKET_UPDATE_GOLDEN=1`, writes it there).
func expectGeneratedSection(_ url: URL, named name: String, equals made: String, update: String) throws {
    let text = try String(contentsOf: url, encoding: .utf8)
    let begin = try #require(text.range(of: "<!-- BEGIN GENERATED \(name)"))
    let afterBegin = try #require(text.range(of: "-->\n", range: begin.upperBound..<text.endIndex))
    let end = try #require(text.range(of: "<!-- END GENERATED \(name) -->", range: afterBegin.upperBound..<text.endIndex))
    if updatingGolden {
        try (text[..<afterBegin.upperBound] + made + text[end.lowerBound...]).write(to: url, atomically: true, encoding: .utf8)
        return
    }
    #expect(String(text[afterBegin.upperBound..<end.lowerBound]) == made, "run ROCKET_UPDATE_GOLDEN=1 swift test --filter \(update)")
}

@Suite("The flow format, stated once")
struct FlowFormatTests {
    static let root = SchemaTests.root

    @Test("schema/flow-v1.schema.json is what the table makes (rocket schema)")
    func schemaFile() throws {
        let url = Self.root.appendingPathComponent("schema/flow-v1.schema.json")
        let made = FlowFormat.v1.jsonSchema.serialized() + "\n"
        if updatingGolden { try made.write(to: url, atomically: true, encoding: .utf8) }
        let committed = try String(contentsOf: url, encoding: .utf8)
        #expect(committed == made, "the committed schema differs from the table: run ROCKET_UPDATE_GOLDEN=1 swift test --filter FlowFormatTests")
    }

    @Test("docs/FLOW_FORMAT.md's field reference is what the table makes")
    func referenceSection() throws {
        try expectGeneratedSection(
            Self.root.appendingPathComponent("docs/FLOW_FORMAT.md"), named: "FIELD REFERENCE", equals: FlowFormat.v1.referenceMarkdown,
            update: "FlowFormatTests")
    }

    @Test("docs/FLOW_FORMAT.md's functions are what the expression language defines")
    func functionsSection() throws {
        try expectGeneratedSection(
            Self.root.appendingPathComponent("docs/FLOW_FORMAT.md"), named: "FUNCTIONS", equals: RocketExpression.functionsMarkdown,
            update: "FlowFormatTests")
    }

    @Test("One entry in the table is all a field needs: the loader reads it, the writer writes it, the schema lists it")
    func addedField() throws {
        // A fixture table: text blocks gain "delay", another name for showNextAfter.
        let extended = FlowFormat.textBlock.adding(.duration("delay", \.showNextAfter, doc: "Another name for showNextAfter."))
        let format = FlowFormat.v1.replacingBlock(.text, with: FlowFormat.textKind(extended))
        let file = #"{"version": 1, "blocks": [{"id": "a", "type": "text", "text": "Hi", "delay": "2s"}]}"#
        let loaded = FlowLoader.load(Array(file.utf8), format: format)
        #expect(loaded.diagnostics.isEmpty)
        let doc = try #require(loaded.document)
        guard case .text(let node) = doc.graph.nodes[0].content else { Issue.record("not text"); return }
        #expect(node.showNextAfter == 2)
        // The writer writes it (both names read the same value) …
        let written = doc.jsonValue(format: format).serialized(pretty: false)
        #expect(written.contains(#""delay":2"#))
        #expect(FlowLoader.load(Array(written.utf8), format: format).document == doc)
        // … the schema lists it with its type …
        let schema = format.jsonSchema.serialized(pretty: false)
        #expect(schema.contains(##""delay":{"$ref":"#/$defs/duration","description":"Another name for showNextAfter."}"##))
        #expect(!FlowFormat.v1.jsonSchema.serialized(pretty: false).contains(#""delay""#))
        // … and the real table, which lacks it, refuses it.
        #expect(FlowLoader.load(file).diagnostics.map(\.code) == ["unknown-field"])
    }

    @Test("Loading gives the same graphs as the previous release, so saved conversations resume")
    func identitiesUnchanged() throws {
        // The flow identity a `--state` snapshot and the server's store hold: the graph's content
        // hash, as the release before the one-model change computed it for the examples.
        let expected: [String: (String, String)] = [
            "actions.json": (
                "5ff0471f68476bcc36d5efa492416f3ffcb4b1111cd8c20edb484f2cbace6fbd", "5ff0471f68476bcc36d5efa492416f3ffcb4b1111cd8c20edb484f2cbace6fbd"
            ),
            "banner.json": (
                "b7e9e2dc74f864fe78c1f55e15ce58e3f489e56956cdb30756cbc072cbd640f9", "b7e9e2dc74f864fe78c1f55e15ce58e3f489e56956cdb30756cbc072cbd640f9"
            ),
            "branches.json": (
                "e5b7a770028c14ccb7ce6866b78fee6ec3988ee2b253a8ad49ac6eadf5c9792f", "e5b7a770028c14ccb7ce6866b78fee6ec3988ee2b253a8ad49ac6eadf5c9792f"
            ),
            "choice.json": (
                "e3c62a4f1b516419ef969f42e36c02241d6797c1a99e3cc14dc42e6437e9768a", "e3c62a4f1b516419ef969f42e36c02241d6797c1a99e3cc14dc42e6437e9768a"
            ),
            "images.json": (
                "8f3b867d503c22fbbef2d56fafd312e9cc1cfb6c4ecb18c588de4ca3fd2d9fcc", "946341dc14e6f9166e18fcbb11be1fdfe00273f6bcb3e43ffdad2c86dd5ee485"
            ),
            "scenario-gate.json": (
                "089dedfd82508460dec05f4b60108698879f2848ecaf590391e4c5d356882f57", "089dedfd82508460dec05f4b60108698879f2848ecaf590391e4c5d356882f57"
            ),
            "validation.json": (
                "a646beff87299efe3b2289db306a7d4b01dadf0edf0d7c9959cd4b8d03c0326e", "a646beff87299efe3b2289db306a7d4b01dadf0edf0d7c9959cd4b8d03c0326e"
            ),
            "welcome.json": (
                "b74cbefb98987e16733e741ff0f1b93c25711745ec1c1240d1ccfcee259f52d5", "a8c8ff54f2eac03a663f9be166c6c022c3d8cf4de2463884b572c245c47a8db8"
            ),
        ]
        for (name, (plain, based)) in expected {
            let bytes = Array(try Data(contentsOf: Self.root.appendingPathComponent("examples/" + name)))
            let doc = try #require(FlowLoader.load(bytes).document, "\(name)")
            #expect(doc.makeGraph().contentHash == plain, "\(name)")
            #expect(doc.makeGraph(imageBase: "/base").contentHash == based, "\(name)")
        }
    }

    @Test("makeGraph(imageBase:) takes every relative picture from the base: image blocks, buttons, both sides, options")
    func picturesRebased() throws {
        let flow = #"""
            {"version": 1, "blocks": [
             {"id": "i", "type": "image", "image": "a.png", "next": "b"},
             {"id": "b", "type": "button", "title": "Go", "image": "b.png", "next": "d"},
             {"id": "d", "type": "doubleButton", "left": {"title": "L", "image": "l.png", "next": "c"}, "right": {"title": "R", "image": "/abs/r.png", "next": "c"}},
             {"id": "c", "type": "choice", "text": "Which?", "options": [{"title": "X", "image": "pics/x.png"}, {"title": "Y"},
              {"title": "Z", "image": "data:image/png;base64,iVBORw0KGgo="}]}
            ]}
            """#
        let doc = try #require(FlowLoader.load(Array(flow.utf8)).document)
        func pictures(_ graph: RocketGraph) -> [String] {
            graph.nodes.flatMap { node -> [RocketImage?] in
                switch node.content {
                case .image(let i): [i.image]
                case .button(let b): [b.image]
                case .doubleButton(let l, let r): [l.image, r.image]
                case .choice(let c): c.options.map(\.image)
                default: []
                }
            }.map { image -> String in
                switch image {
                case .file(let p)?: p
                case .bytes(let b)?: "bytes:\(b.count)"
                case nil: "-"
                }
            }
        }
        #expect(pictures(doc.makeGraph()) == ["a.png", "b.png", "l.png", "/abs/r.png", "pics/x.png", "-", "bytes:8"], "\(pictures(doc.makeGraph()))")
        #expect(
            pictures(doc.makeGraph(imageBase: "/srv/flows"))
                == ["/srv/flows/a.png", "/srv/flows/b.png", "/srv/flows/l.png", "/abs/r.png", "/srv/flows/pics/x.png", "-", "bytes:8"],
            "\(pictures(doc.makeGraph(imageBase: "/srv/flows")))")
    }

    @Test("Every example: file → model → file → model is the identity, and the written file is written again the same")
    func exampleRoundTrips() throws {
        let dir = Self.root.appendingPathComponent("examples")
        for f in try FileManager.default.contentsOfDirectory(atPath: dir.path) where f.hasSuffix(".json") && !f.hasSuffix(FlowTestFormat.suffix) {
            let doc = try #require(FlowLoader.load(Array(try Data(contentsOf: dir.appendingPathComponent(f)))).document)
            let text = doc.jsonValue.serialized()
            let again = FlowLoader.load(text)
            #expect(again.diagnostics.isEmpty, "\(f)")
            #expect(again.document == doc, "\(f)")
            #expect(again.document?.jsonValue.serialized() == text, "\(f)")
        }
    }

    @Test("Random flows: the model written and read back is the same model", arguments: 0..<40)
    func randomRoundTrip(seed: UInt64) throws {
        var g = RandomFlow(seed: seed)
        let doc = g.document()
        let text = doc.jsonValue.serialized(pretty: seed % 2 == 0)
        let again = FlowLoader.load(text)
        #expect(again.document == doc, "seed \(seed): \(again.diagnostics.map(\.code)) \(text.prefix(400))")
        #expect(again.document?.jsonValue.serialized(pretty: seed % 2 == 0) == text)
    }

    @Test("The schema refuses what lint refuses by shape, and accepts the examples (jsonschema, draft 2020-12)")
    func schemaAgreesWithLint() throws {
        let dir = Self.root.appendingPathComponent("examples")
        var good: [String] = []
        for f in try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted() where f.hasSuffix(".json") && !f.hasSuffix(FlowTestFormat.suffix) {
            good.append(try String(contentsOf: dir.appendingPathComponent(f), encoding: .utf8))
        }
        for seed in 0..<10 as Range<UInt64> {
            var g = RandomFlow(seed: 1_000 + seed)
            good.append(g.document().jsonValue.serialized(pretty: false))
        }
        let bad = ShapeMutations.all(of: good)
        #expect(bad.count > 100)
        // Lint: the good ones have no shape error; each bad one has one.
        for text in good { #expect(FlowLoader.load(text).document != nil, "\(text.prefix(200))") }
        for (text, what) in bad { #expect(FlowLoader.load(text).document == nil, "lint accepts \(what): \(text.prefix(300))") }
        // The schema, through Python's jsonschema.
        let verdicts = try JSONSchemaCheck.run(schema: FlowFormat.v1.jsonSchema.serialized(pretty: false), documents: good + bad.map(\.text))
        for (k, text) in good.enumerated() { #expect(verdicts[k], "the schema refuses a good flow: \(text.prefix(300))") }
        for (k, (text, what)) in bad.enumerated() { #expect(!verdicts[good.count + k], "the schema accepts \(what): \(text.prefix(300))") }
    }
}

/// Flows made at random from a seed, with every kind and field, for round trips.
struct RandomFlow {
    var rng: SplitMix

    init(seed: UInt64) { rng = SplitMix(seed: seed) }

    mutating func next() -> UInt64 { rng.next() }

    mutating func int(_ range: ClosedRange<Int>) -> Int { range.lowerBound + Int(next() % UInt64(range.count)) }
    mutating func chance(_ percent: Int) -> Bool { int(0...99) < percent }
    mutating func pick<T>(_ items: [T]) -> T { items[int(0...items.count - 1)] }

    mutating func text() -> String {
        let pieces = ["Hi", "héllo", "\"quoted\"", "back\\slash", "tab\there", "new\nline", "{{name}}", "日本語", "🚀", " ", "<b>", ""]
        return (0..<int(1...3)).map { _ in pick(pieces) }.joined(separator: " ")
    }

    mutating func font() -> RocketFont {
        if chance(60) { return RocketFont.presets[pick(RocketFont.presets.keys.sorted())]! }
        return RocketFont(
            size: Double(int(8...40)), weight: pick(RocketFontWeight.allCases),
            color: RocketColor(r8: UInt8(int(0...255)), g8: UInt8(int(0...255)), b8: UInt8(int(0...255))), family: chance(50) ? "Menlo" : nil)
    }

    mutating func target(_ n: Int) -> RocketNodeID? { chance(20) ? nil : RocketNodeID(int(0...n - 1)) }
    mutating func delay() -> Double? { chance(50) ? nil : pick([0, 0.5, 1.25, 2, 90, 86_400]) }

    mutating func button(_ n: Int) -> RocketButtonNode {
        RocketButtonNode(title: text(), font: chance(50) ? .button : font(), next: target(n), actionName: chance(30) ? "act-\(int(0...9))" : nil)
    }

    mutating func node(_ n: Int) -> RocketNodeContent {
        switch int(0...7) {
        case 6:
            let exprs = ["visits + 1", "visits * 2 - 1", "length(plan)"]
            return .set(
                RocketSetNode(
                    assignments: (0..<int(1...2)).map { k in RocketAssignment(k == 0 ? "visits" : "score", RocketExpression(pick(exprs))) },
                    next: target(n)))
        case 7:
            let conditions = ["visits > 3", "plan == 'pro' and not beta", "'x' in lower(plan)", "score >= 2.5 or visits % 2 == 0"]
            return .condition(
                RocketConditionNode(
                    branches: (0..<int(1...3)).map { _ in RocketConditionBranch(if: RocketExpression(pick(conditions)), next: target(n)) },
                    elseNext: target(n)))
        case 0: return .text(RocketTextNode(text: text(), next: target(n), showNextAfter: delay(), font: chance(50) ? .text : font()))
        case 1:
            return .image(
                RocketImageNode(
                    image: chance(50) ? .file(pick(["logo.png", "pics/a b.jpg", "/abs/x.png"])) : .bytes([0x89, 0x50, 0x4E, 0x47, UInt8(int(0...255))]),
                    text: chance(50) ? "" : text(), next: target(n), showNextAfter: delay(), font: chance(50) ? .text : font(),
                    imageStyle: pick(RocketImageStyle.allCases), paddingLeft: Double(int(0...3) * 4), paddingRight: chance(50) ? 0 : 2.5))
        case 2: return .button(button(n))
        case 3: return .doubleButton(left: button(n), right: button(n))
        case 4: return .choice(RocketChoiceNode(text: text(), font: chance(50) ? .text : font(), options: (0..<int(2...5)).map { _ in button(n) }))
        default:
            let validation: RocketInputValidation? =
                chance(50)
                ? nil
                : RocketInputValidation(
                    required: chance(50), minLength: chance(50) ? int(0...3) : nil, maxLength: chance(50) ? int(4...40) : nil,
                    pattern: chance(50) ? "^[a-z]+$" : nil, message: chance(50) ? text() : nil)
            let conditions: [RocketInputCondition] = [.equals("yes"), .pattern("(?i)^no"), .empty, .equals("")]
            var input = RocketInputNode(
                text: text(), buttonTitle: text(), font: chance(50) ? .text : font(), buttonStyle: chance(50) ? .lightButton : font(),
                isSecret: chance(20), placeholder: chance(50) ? text() : nil, validation: validation,
                branches: (0..<int(0...3)).map { _ in RocketNodeBranch(when: pick(conditions), next: target(n)) }, next: target(n))
            input.inputType = pick(RocketInputType.allCases)
            if input.inputType.isNumeric, chance(50) { (input.minimum, input.maximum) = (.number(-2.5), chance(50) ? .number(100) : nil) }
            if input.inputType == .date, chance(50) { input.minimum = .text("2026-01-31") }
            return .textInput(input)
        }
    }

    mutating func document() -> FlowDocument {
        let n = int(1...12)
        var nodes: [RocketNode] = []
        for i in 0..<n { nodes.append(RocketNode(id: "b\(i)-\(int(0...99))", content: node(n))) }
        let root = RocketNodeID(int(0...n - 1))
        var doc = FlowDocument(
            title: chance(50) ? text() : nil,
            author: chance(50) ? RocketAuthor(image: chance(50) ? .file("me.png") : nil, style: pick(RocketImageStyle.allCases), name: text()) : nil,
            closeButton: chance(50) ? RocketCloseButton(title: text(), style: chance(50) ? .cancel : font()) : nil,
            variables: chance(50) ? ["name"] : [],
            graph: RocketGraph(
                nodes: nodes, root: root,
                variables: [
                    RocketVariable(name: "visits", defaultValue: .number(Double(int(0...3)))),
                    RocketVariable(name: "score", defaultValue: .number(chance(50) ? 2.5 : 0)),
                    RocketVariable(name: "plan", defaultValue: .text(text())), RocketVariable(name: "beta", defaultValue: .bool(chance(50))),
                ]))
        doc.ignoresGap = chance(20)
        if chance(30) {
            doc.schedule = RocketSchedule(from: chance(50) ? "2026-12-10T09:00+01:00" : nil, until: chance(50) ? "2027-01-06T00:00:00.5Z" : nil)
        }
        return doc
    }
}

/// Flows broken in their shape in every way the table allows: a wrong type for each field of
/// each object, an unknown field, a missing required field, an unknown block type, bad words,
/// durations, colours and fonts.
enum ShapeMutations {
    static func all(of texts: [String]) -> [(text: String, what: String)] {
        var out: [(String, String)] = []
        for text in texts {
            guard let tree = try? JSONSerialization.jsonObject(with: Data(text.utf8)) else { continue }
            visit(tree, path: [], root: tree, into: &out)
        }
        return out
    }

    /// The table's object for a JSON object at `path` (nil: not one the table describes).
    static func object(at path: [String], in value: [String: Any]) -> FlowObjectInfo? {
        guard let last = path.last else { return FlowFormat.v1.documentInfo }
        let parent = path.count >= 2 ? path[path.count - 2] : ""
        if parent == "blocks", let type = value["type"] as? String, let kind = FlowFormat.v1.blocks.first(where: { $0.kind.rawValue == type }) {
            return kind.info
        }
        let named: [String: String] = [
            "author": "author", "closeButton": "closeButton", "left": "button", "right": "button", "validate": "validate",
            "when": parent.hasPrefix("#") ? "textCondition" : "when", "minEventsInWindow": "minEventsInWindow", "budget": "budget", "banner": "banner",
        ]
        if parent == "options" { return FlowFormat.v1.objects.first { $0.name == "button" } }
        if parent == "branches" { return FlowFormat.v1.objects.first { $0.name == (value["if"] != nil ? "conditionBranch" : "branch") } }
        if let name = named[last] { return FlowFormat.v1.objects.first { $0.name == name } }
        if value["size"] != nil || value["weight"] != nil { return FlowFormat.v1.objects.first { $0.name == "fontObject" } }
        return nil
    }

    static func visit(_ value: Any, path: [String], root: Any, into out: inout [(String, String)]) {
        if let array = value as? [Any] {
            for (i, item) in array.enumerated() { visit(item, path: path + ["#\(i)"], root: root, into: &out) }
            return
        }
        guard let dict = value as? [String: Any] else { return }
        // A branch's condition sits under "when" inside a branch (whose parent is an index).
        var info = object(at: path, in: dict)
        if path.last == "when", path.count >= 2, path[path.count - 2].hasPrefix("#") {
            info = FlowFormat.v1.objects.first { $0.name == "textCondition" }
        }
        if let info {
            let place = path.joined(separator: ".")
            out.append((replaced(root, path, with: dict.merging(["zzUnknown": 1]) { a, _ in a }), "an unknown field at \(place)"))
            for f in info.fields {
                if let wrong = wrongValue(for: f.type) {
                    out.append((replaced(root, path, with: dict.merging([f.name: wrong]) { _, b in b }), "a wrong \(f.name) at \(place)"))
                }
                if f.isRequired, dict[f.name] != nil {
                    var without = dict
                    without[f.name] = nil
                    out.append((replaced(root, path, with: without), "no \(f.name) at \(place)"))
                }
            }
            if dict["type"] is String, path.count >= 2, path[path.count - 2] == "blocks" {
                out.append((replaced(root, path, with: dict.merging(["type": "nope"]) { _, b in b }), "an unknown block type at \(place)"))
                var noID = dict
                noID["id"] = nil
                out.append((replaced(root, path, with: noID), "a block without id at \(place)"))
            }
        }
        for (k, v) in dict { visit(v, path: path + [k], root: root, into: &out) }
    }

    /// A value of the wrong shape for a type (nil: none is wrong, as for `any`).
    static func wrongValue(for type: FlowValueType) -> Any? {
        switch type {
        case .string, .text, .pattern, .blockID, .image: return 42
        case .bool: return "yes"
        case .alwaysTrue: return false
        case .number, .integer: return "many"
        case .duration: return "soon"
        case .font: return "comic-sans"
        case .color: return "#12345"
        case .namedColor: return "not-a-colour"
        case .words: return "no-such-word"
        case .constant: return 2
        case .object: return [1, 2]
        case .list: return "not-a-list"
        case .block: return 7
        case .bannerButtons: return ["a", "b", "c"]
        case .any: return nil
        case .expression: return 42
        case .assignments: return ["visits": 1]
        case .variables: return ["visits": [1]]
        case .inputBound: return true
        case .link: return "javascript:alert(1)"
        case .instant: return "2026-12-10T09:00"
        case .snooze: return "sometimes"
        }
    }

    /// The document with the value at `path` replaced.
    static func replaced(_ root: Any, _ path: [String], with value: Any) -> String {
        func set(_ node: Any, _ rest: ArraySlice<String>) -> Any {
            guard let key = rest.first else { return value }
            if key.hasPrefix("#"), var array = node as? [Any], let i = Int(key.dropFirst()) {
                array[i] = set(array[i], rest.dropFirst())
                return array
            }
            guard var dict = node as? [String: Any] else { return node }
            dict[key] = set(dict[key] as Any, rest.dropFirst())
            return dict
        }
        let data = (try? JSONSerialization.data(withJSONObject: set(root, path[...]), options: [.sortedKeys])) ?? Data()
        return String(decoding: data, as: UTF8.self)
    }
}

@Suite("Limits, stated once")
struct LimitsTests {
    @Test("docs/SEMANTICS.md's table of limits is what RocketLimits makes")
    func table() throws {
        let url = SchemaTests.root.appendingPathComponent("docs/SEMANTICS.md")
        let text = try String(contentsOf: url, encoding: .utf8)
        let begin = try #require(text.range(of: "<!-- BEGIN GENERATED LIMITS"))
        let afterBegin = try #require(text.range(of: "-->\n", range: begin.upperBound..<text.endIndex))
        let end = try #require(text.range(of: "<!-- END GENERATED LIMITS -->", range: afterBegin.upperBound..<text.endIndex))
        if updatingGolden {
            try (text[..<afterBegin.upperBound] + RocketLimits.markdown + text[end.lowerBound...]).write(to: url, atomically: true, encoding: .utf8)
            return
        }
        #expect(String(text[afterBegin.upperBound..<end.lowerBound]) == RocketLimits.markdown, "run ROCKET_UPDATE_GOLDEN=1 swift test --filter LimitsTests")
        #expect(Set(RocketLimits.table.map(\.name)).count == RocketLimits.table.count)
    }

    @Test("docs/deploy/nginx.conf lets through the bodies rocket takes and no larger")
    func proxyBodyLimit() throws {
        let url = SchemaTests.root.appendingPathComponent("docs/deploy/nginx.conf")
        let text = try String(contentsOf: url, encoding: .utf8)
        let lines = text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        let setting = try #require(lines.first { $0.hasPrefix("client_max_body_size ") })
        let value = setting.dropFirst("client_max_body_size ".count).dropLast()  // "16k;" → "16k"
        let kib = try #require(value.hasSuffix("k") ? Int(value.dropLast()) : nil, "\(setting)")
        #expect(kib << 10 == RocketLimits.requestBodyBytes, "\(setting)")
    }

    @Test("RocketJSON's defaults, which cannot refer to RocketCore, are RocketLimits' values")
    func jsonDefaults() {
        let d = JSONReaderLimits()
        #expect(d.maxBytes == RocketLimits.flowFileBytes)
        #expect(d.maxDepth == RocketLimits.jsonDepth)
        #expect(d.maxStringBytes == RocketLimits.jsonStringBytes)
        #expect(JSONReaderLimits.maxNumberCharacters == RocketLimits.jsonNumberCharacters)
    }

    @Test("The limits the code enforces are the table's: one more character is refused")
    func enforced() {
        let long = String(repeating: "1", count: RocketLimits.jsonNumberCharacters + 1)
        #expect(FlowLoader.load(#"{"version": 1, "title": \#(long), "blocks": []}"#).diagnostics.first?.code == "json-syntax")
        let ok = String(repeating: "1", count: RocketLimits.jsonNumberCharacters)
        #expect(FlowLoader.load(#"{"version": 1, "x": \#(ok), "blocks": []}"#).diagnostics.first?.code != "json-syntax")
        #expect(FlowFormat.maxChoiceOptions == RocketLimits.choiceOptions)
        #expect(FlowDiagnosticList.limit == RocketLimits.diagnostics)
    }
}
