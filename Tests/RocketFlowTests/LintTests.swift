import RocketJSON
import Foundation
import Testing
@testable import RocketFlow
import RocketAlert
import RocketScenarios
import RocketBanners
import RocketCore

/// Loads `text` and returns its diagnostics as "LINE:COL severity code".
func lint(_ text: String) -> [String] {
    FlowLoader.load(text).diagnostics.map { "\($0.line ?? 0):\($0.column ?? 0) \($0.severity.rawValue) \($0.code)" }
}

@Suite("Flow validation: every rule, with its place")
struct LintTests {
    @Test("scenario names may hold no @ (a server's NAME@VISITOR) and may not start with rocket. (rocket's own)")
    func scenarioNames() {
        func flow(_ scenario: String, eventsOf: String = "app-launch") -> String {
            #"{"version": 1, "scenario": "\#(scenario)", "when": {"eventsOf": "\#(eventsOf)", "minEventsRequired": 1}, "blocks": [{"id": "a", "type": "text", "text": "x"}]}"#
        }
        #expect(lint(flow("ask-review")).isEmpty)
        #expect(lint(flow("rocket-tips")).isEmpty)
        #expect(lint(flow("a@b")) == ["1:28 error bad-name"])
        #expect(lint(flow("rocket.shown")) == ["1:28 error bad-name"])
        #expect(lint(flow("tips", eventsOf: "x@y")) == ["1:57 error bad-name"])
        #expect(lint(flow("tips", eventsOf: "rocket.executed")) == ["1:57 error bad-name"])
        #expect(FlowLoader.load(flow("a@b")).document == nil, "a flow with errors does not load")
        // The one rule of ScenarioRulesCodec.isName: no control characters, at most 1,024 bytes.
        #expect(lint(flow(#"a\nb"#)) == ["1:28 error bad-name"])
        #expect(lint(flow(#"a\u0085b"#)) == ["1:28 error bad-name"])
        #expect(lint(flow(String(repeating: "n", count: 1025))) == ["1:28 error bad-name"])
        #expect(lint(flow(String(repeating: "n", count: 1024))).isEmpty)
        #expect(lint(flow("tips", eventsOf: #"x\ty"#)) == ["1:57 error bad-value"], "the rules codec says it: must be a scenario name")
    }

    @Test("A diagnostic quotes at most RocketLimits.quotedCharacters of a value, whatever the value's length, at its place")
    func longValuesAreCut() {
        let long = String(repeating: "é", count: 20_000)
        let cases: [(String, String)] = [
            (#"{"version": 1, "blocks": [{"id": "a", "type": "text", "text": "x", "next": "\#(long)"}]}"#, "unknown-target"),
            (#"{"version": 1, "blocks": [{"id": "a", "type": "text", "text": "x"}], "\#(long)": 1}"#, "unknown-field"),
            (#"{"version": 1, "blocks": [{"id": "a", "type": "\#(long)"}]}"#, "unknown-block-type"),
            (#"{"version": 1, "vars": {"\#(long)!": 1}, "blocks": [{"id": "a", "type": "text", "text": "x"}]}"#, "bad-name"),
            (#"{"version": 1, "blocks": [{"id": "\#(long)", "type": "text", "text": "x"}, {"id": "\#(long)", "type": "text", "text": "y"}]}"#, "duplicate-id"),
            (#"{"version": 1, "scenario": "a@\#(long)", "blocks": [{"id": "a", "type": "text", "text": "x"}]}"#, "bad-name"),
        ]
        for (text, code) in cases {
            let found = FlowLoader.load(text).diagnostics
            let d = found.first { $0.code == code }
            #expect(d != nil, "\(code) in \(found.map(\.code))")
            guard let d else { continue }
            let line = d.formatted(file: "f.json")
            #expect(line.count < 400, "\(code): \(line.count) characters")
            #expect(line.contains("…"), "\(code): the value is said to go on")
            #expect(d.line == 1 && (d.column ?? 0) > 1, "\(code): placed in the file")
        }
        // A value that fits is quoted whole.
        #expect(
            FlowDiagnostic.quoted(String(repeating: "b", count: RocketLimits.quotedCharacters)) == "\""
                + String(repeating: "b", count: RocketLimits.quotedCharacters) + "\"")
        #expect(Sanitizer.excerpt(String(repeating: "b", count: 81), limit: 80) == String(repeating: "b", count: 79) + "…")
        #expect(Sanitizer.excerpt("👩‍👩‍👧‍👦x", limit: 1) == "…", "characters, not bytes or scalars, are counted")
        #expect(Sanitizer.excerpt("👩‍👩‍👧‍👦", limit: 1) == "👩‍👩‍👧‍👦")
    }

    @Test("Duplicate and empty ids are reported as a dictionary would find them, at any distance")
    func duplicateIDsAgainstReference() {
        // The id index reads its slots ahead of its inserts; ids repeat near and far (inside and
        // outside that window), and empty ids sit anywhere.
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<40 {
            let n = Int.random(in: 1...60, using: &rng)
            let pool = Int.random(in: 1...40, using: &rng)
            let ids = (0..<n).map { _ in Int.random(in: 0..<10, using: &rng) == 0 ? "" : "b\(Int.random(in: 0..<pool, using: &rng))" }
            let blocks = ids.map { #"{"id": "\#($0)", "type": "text", "text": "x"}"# }
            let doc = FlowLoader.load(#"{"version": 1, "blocks": ["# + blocks.joined(separator: ",\n") + "]}").document!
            // The reference: a dictionary of first places; a repeated finding (the same id used
            // again, another empty id) is one diagnostic at its first place, with a count.
            var expected: [String] = []
            var repeats: [String: (at: Int, more: Int)] = [:]
            var first: [String: Int] = [:]
            for (i, id) in ids.enumerated() {
                let key: String
                if id.isEmpty {
                    key = "empty-id"
                } else if let f = first[id] {
                    key = "duplicate-id of \(id) at \(f)"
                } else {
                    first[id] = i
                    continue
                }
                if let r = repeats[key] {
                    repeats[key] = (r.at, r.more + 1)
                } else {
                    repeats[key] = (expected.count, 0)
                    expected.append("\(key.prefix { $0 != " " }) blocks[\(i)].id \(key.contains(" at ") ? String(key.split(separator: " ").last!) : "-")")
                }
            }
            for (_, r) in repeats where r.more > 0 { expected[r.at] += " +\(r.more)" }
            let found = FlowValidator.validate(doc).filter { $0.code == "duplicate-id" || $0.code == "empty-id" }.map { d in
                let firstIndex = d.code == "empty-id" ? "-" : String(d.message.split(separator: "blocks[")[1].prefix { $0.isNumber })
                let more = d.message.split(separator: "(and ").dropFirst().first.map { " +" + $0.prefix { $0.isNumber } } ?? ""
                return "\(d.code) \(d.path) \(firstIndex)\(more)"
            }
            #expect(found == expected, "ids: \(ids)")
        }
    }

    @Test(
        "Errors after a block that cannot be read keep their own places",
        arguments: [
            #""type": "nope", "text": "x""#, #""type": "text", "text": 5"#, #""type": "text""#, #""text": "x""#,
            #""type": "image", "image": []"#, #""type": "doubleButton", "left": {"title": "L"}"#,
        ])
    func placesAfterBrokenBlocks(_ broken: String) throws {
        let text = """
            {"version": 1, "start": "b",
             "blocks": [
              {"id": "a", \(broken)},
              {"id": "b", "type": "text", "text": "Hi", "next": "zzz"},
              {"id": "c", "type": "text", "text": "Hi"},
              {"id": "c", "type": "text", "text": "Hi", "next": "b"}
             ]}
            """
        let found = FlowLoader.load(text).diagnostics.filter { $0.code == "unknown-target" || $0.code == "duplicate-id" }
        #expect(found.map(\.path) == ["blocks[1].next", "blocks[3].id"])
        #expect(found.map(\.line) == [4, 6])
        #expect(found.last?.message.hasSuffix("blocks[2]") == true)
    }

    @Test("JSON syntax errors name line and column")
    func syntax() {
        #expect(lint("{\"version\": 1,\n \"blocks\": [\n  {\"id\": \"a\" \"type\": \"text\"}]}") == ["3:14 error json-syntax"])
        #expect(lint("") == ["1:1 error json-syntax"])
        #expect(lint("{\"version\": 1} x") == ["1:16 error json-syntax"])
    }

    @Test("A mistyped start gets a suggestion, as other names do")
    func startSuggestion() throws {
        let d = try #require(
            FlowLoader.load(#"{"version": 1, "start": "welcom", "blocks": [{"id": "welcome", "type": "text", "text": "x"}]}"#).diagnostics.first)
        #expect(d.message.hasSuffix(#"did you mean "welcome"?"#) && d.path == "start")
    }

    @Test("A trailing comma is named as such, at the comma", arguments: ["[1, 2,\n]", "{\"a\": 1 ,}", "[{}, ]"])
    func trailingComma(_ value: String) throws {
        let text = "{\"version\": 1, \"x\": " + value + "}"
        let d = try #require(FlowLoader.load(text).diagnostics.first)
        #expect(d.message.contains("trailing comma"))
        let comma = text.firstIndex(of: ",").map { text.index(after: $0) }.flatMap { i in text[i...].lastIndex(of: ",") }
        #expect(d.column == comma.map { text.distance(from: text.startIndex, to: $0) + 1 })
    }

    @Test("Columns count characters, not bytes")
    func columnsInCharacters() {
        // "é" is two bytes; the error (missing comma) is at character column 19.
        #expect(lint("{\"title\": \"héllo\" \"x\": 1}") == ["1:19 error json-syntax"])
    }

    @Test("Nested quantifiers are a warning at the pattern; bad PCRE2 syntax is an error")
    func slowPatterns() {
        let d = lint(
            """
            {"version": 1, "blocks": [
              {"id": "q", "type": "textInput", "text": "A?", "buttonTitle": "OK", "validate": {"pattern": "^(a+)+$"},
               "branches": [{"when": {"matches": "(\\\\w*)*"}, "next": null}, {"when": {"matches": "(?<"}, "next": null}]}
            ]}
            """)
        #expect(d == ["2:95 warning slow-pattern", "3:38 warning slow-pattern", "3:86 error invalid-pattern"])
    }

    @Test("Wrong types")
    func wrongTypes() {
        let d = lint(
            """
            {"version": 1, "blocks": [
              {"id": "a", "type": "text", "text": 5, "showNextAfter": "soon"}
            ]}
            """)
        // "soon" is a string, but not a duration.
        #expect(d == ["2:39 error wrong-type", "2:59 error bad-duration"])
    }

    @Test("Unknown block types and fields, with suggestions")
    func unknownThings() {
        let text = """
            {"version": 1, "blocks": [
              {"id": "a", "type": "txt", "text": "x"},
              {"id": "b", "type": "text", "text": "x", "nxt": "a"}
            ]}
            """
        #expect(lint(text) == ["2:23 error unknown-block-type", "3:44 error unknown-field"])
        let messages = FlowLoader.load(text).diagnostics.map(\.message)
        #expect(messages[1].contains("did you mean \"next\""))
    }

    @Test("Missing required fields, wrong version, duplicate keys, empty blocks")
    func missing() {
        #expect(lint(#"{"version": 1, "blocks": [{"id": "a", "type": "button"}]}"#) == ["1:27 error missing-field"])
        #expect(lint(#"{"blocks": [{"id": "a", "type": "text", "text": "x"}]}"#) == ["1:1 error missing-field"])
        #expect(lint(#"{"version": 2, "blocks": [{"id": "a", "type": "text", "text": "x"}]}"#) == ["1:13 error unsupported-version"])
        #expect(lint(#"{"version": 1, "version": 1, "blocks": [{"id": "a", "type": "text", "text": "x"}]}"#) == ["1:16 error duplicate-key"])
        #expect(lint(#"{"version": 1, "blocks": []}"#) == ["1:26 error no-blocks"])
    }

    @Test("Duplicate ids")
    func duplicateIDs() {
        #expect(
            lint(
                """
                {"version": 1, "blocks": [
                  {"id": "a", "type": "text", "text": "x", "next": "a2"},
                  {"id": "a2", "type": "text", "text": "y"},
                  {"id": "a", "type": "text", "text": "z"}
                ]}
                """) == ["3:3 warning missing-next", "4:10 error duplicate-id"])
    }

    @Test("Targets that do not exist: start, next, double-button sides, branches")
    func unknownTargets() {
        let d = lint(
            """
            {"version": 1, "start": "nope", "blocks": [
              {"id": "a", "type": "text", "text": "x", "next": "b"},
              {"id": "c", "type": "doubleButton", "left": {"title": "L", "next": "zz"}, "right": {"title": "R"}},
              {"id": "d", "type": "textInput", "text": "?", "buttonTitle": "ok", "branches": [{"when": {"empty": true}, "next": "qq"}]}
            ]}
            """)
        #expect(
            d.filter { $0.contains("error") } == [
                "1:25 error unknown-target", "2:52 error unknown-target", "3:70 error unknown-target", "4:117 error unknown-target",
            ])
    }

    @Test("Invalid regular expressions and impossible lengths")
    func patterns() {
        #expect(
            lint(
                """
                {"version": 1, "blocks": [
                  {"id": "a", "type": "textInput", "text": "?", "buttonTitle": "ok",
                   "validate": {"pattern": "([a-z", "minLength": 5, "maxLength": 2},
                   "branches": [{"when": {"matches": "*x"}}]}
                ]}
                """) == ["3:28 error invalid-pattern", "3:50 error impossible-length", "4:38 error invalid-pattern"])
    }

    @Test("A cycle of auto-advancing blocks is an error; a cycle through user input is fine")
    func cycles() {
        let bad = FlowLoader.load(
            """
            {"version": 1, "blocks": [
              {"id": "a", "type": "text", "text": "1", "next": "b", "showNextAfter": 1},
              {"id": "b", "type": "text", "text": "2", "next": "c", "showNextAfter": 1},
              {"id": "c", "type": "image", "image": "x.png", "next": "b", "showNextAfter": 1}
            ]}
            """)
        #expect(bad.errors.map(\.code) == ["auto-advance-cycle"])
        #expect(bad.errors.first?.message.contains("\"b\" → \"c\" → \"b\"") == true)
        #expect(bad.isPlayable == false)
        let fine = FlowLoader.load(
            """
            {"version": 1, "blocks": [
              {"id": "a", "type": "text", "text": "1", "next": "b", "showNextAfter": 1},
              {"id": "b", "type": "text", "text": "2", "next": "a"}
            ]}
            """)
        #expect(fine.diagnostics.isEmpty)
    }

    @Test("Warnings: unreachable blocks, unknown placeholders, secret placeholders")
    func warnings() {
        let r = FlowLoader.load(
            """
            {"version": 1, "variables": ["user"], "blocks": [
              {"id": "pw", "type": "textInput", "text": "Password, {{user}}?", "buttonTitle": "ok", "secret": true, "next": "a"},
              {"id": "a", "type": "text", "text": "Got {{pw}} and {{nmae}}"},
              {"id": "lost", "type": "text", "text": "never"}
            ]}
            """)
        #expect(
            r.diagnostics.map { "\($0.line!) \($0.severity.rawValue) \($0.code)" } == [
                "3 warning missing-next", "3 warning secret-placeholder", "3 warning unknown-placeholder",
            ])
        #expect(r.isPlayable)
    }

    @Test("Keys written with escapes are the same keys; suggestions come in file order and never offer an empty id")
    func escapedKeysAndSuggestions() throws {
        let r = FlowLoader.load(
            #"{"versio\u006e": 1, "blocks": [{"id": "a", "t\u0079pe": "text", "text": "Hi", "next": "bc"}, "#
                + #"{"id": "", "type": "text", "text": "x"}, {"id": "bd", "type": "text", "text": "y"}, {"id": "be", "type": "text", "text": "z"}]}"#)
        let target = try #require(r.diagnostics.first { $0.code == "unknown-target" })
        #expect(target.message == #"no block has the id "bc"; did you mean "bd"?"#)
        #expect(target.line == 1 && target.column == 87)  // the value of "next"
        #expect(r.diagnostics.contains { $0.code == "empty-id" })
        #expect(!r.diagnostics.contains { $0.code == "unknown-field" || $0.code == "missing-field" })
    }

    @Test("Placeholders are found however their braces are written")
    func escapedPlaceholders() {
        for text in [#"Hi {{who}}"#, #"Hi \u007b{who}}"#, #"Hi {\u007Bwho}}"#, #"Hi \u007b\u007bwho}}"#] {
            let flow =
                #"{"version": 1, "blocks": [{"id": "a", "type": "text", "text": "plain", "next": "b"}, "#
                + #"{"id": "b", "type": "text", "text": "\#(text)"}]}"#
            #expect(lint(flow) == ["1:86 warning unknown-placeholder"], "\(text)")
        }
    }

    @Test("At most 1,000 different diagnostics are listed; the rest are counted in a last note")
    func boundedDiagnostics() throws {
        // 3,000 blocks, each with a field of its own name: 3,000 different errors.
        let blocks = (0..<3_000).map { #"{"id": "b\#($0)", "type": "text", "text": "x", "odd\#($0)": 1}"# }
        let r = FlowLoader.load(#"{"version": 1, "blocks": ["# + blocks.joined(separator: ",") + "]}")
        #expect(r.diagnostics.count == FlowDiagnosticList.limit + 1)
        let note = try #require(r.diagnostics.last)
        #expect(note.code == "too-many-diagnostics" && note.severity == .error)
        #expect(note.message.hasPrefix("2000 more problems are not listed"))
        #expect(r.diagnostics.dropLast().allSatisfy { $0.code == "unknown-field" && $0.line == 1 })
        #expect(!r.isPlayable)
        // Repeats are one line however many there are, and cost no list.
        let numbers = FlowLoader.load(#"{"version": 1, "blocks": ["# + Array(repeating: "1", count: 200_000).joined(separator: ",") + "]}")
        #expect(numbers.diagnostics.count == 1)
        #expect(numbers.diagnostics[0].message.hasSuffix("(and 199999 more like it)"))
        // The validator keeps to the same bound: 1,500 different unknown targets.
        let targets = (0..<1_500).map { #"{"id": "t\#($0)", "type": "text", "text": "x", "next": "nowhere\#($0)"}"# }
        let t = FlowLoader.load(#"{"version": 1, "blocks": ["# + targets.joined(separator: ",") + "]}")
        #expect(t.diagnostics.filter { $0.code == "unknown-target" }.count <= FlowDiagnosticList.limit)
        #expect(t.diagnostics.last?.code == "too-many-diagnostics")
    }

    @Test("Diagnostics format as FILE:LINE:COL: severity: message")
    func formatting() {
        let d = FlowLoader.load(#"{"version": 1, "blocks": [{"id": "ask", "type": "text", "text": "x", "next": "aks"}]}"#).diagnostics[0]
        #expect(d.formatted(file: "f.json") == "f.json:1:78: error: no block has the id \"aks\"; did you mean \"ask\"? (blocks[0].next)")
        // One letter for another is a guess, not a hint.
        let guess = FlowLoader.load(#"{"version": 1, "blocks": [{"id": "a", "type": "text", "text": "x", "next": "b"}]}"#).diagnostics[0]
        #expect(guess.formatted(file: "f.json") == "f.json:1:76: error: no block has the id \"b\" (blocks[0].next)")
    }
}

@Suite("Hostile input: a clear error, bounded memory, never a trap")
struct HostileInputTests {
    @Test("A 100 MB file is refused by size before parsing")
    func hugeFile() {
        var bytes = Array(#"{"version": 1, "title": ""#.utf8)
        bytes += [UInt8](repeating: UInt8(ascii: "a"), count: 100 << 20)
        bytes += Array(#"", "blocks": []}"#.utf8)
        let r = FlowLoader.load(bytes)
        #expect(r.diagnostics.map(\.code) == ["too-large"])
        #expect(r.diagnostics[0].message.contains("limit is 100663296 bytes"))
    }

    @Test("JSON nested 100,000 deep stops at the depth limit")
    func deepNesting() {
        let bytes = [UInt8](repeating: UInt8(ascii: "["), count: 100_000) + [UInt8](repeating: UInt8(ascii: "]"), count: 100_000)
        let r = FlowLoader.load(bytes)
        #expect(r.diagnostics.map(\.code) == ["json-syntax"])
        #expect(r.diagnostics[0].message.contains("nesting deeper than 64"))
        #expect(r.diagnostics[0].column == 65)
    }

    @Test("A 1M-character string is refused with its place")
    func longString() {
        let text = #"{"version": 1, "blocks": [{"id": "a", "type": "text", "text": ""# + String(repeating: "é", count: 1_000_000) + #""}]}"#
        let r = FlowLoader.load(text)
        #expect(r.diagnostics.map(\.code) == ["json-syntax"])
        #expect(r.diagnostics[0].message.contains("longer than 65536 bytes"))
        #expect(r.diagnostics[0].column == 63)
    }

    @Test(
        "Invalid UTF-8 is named with its byte and place",
        arguments: [
            [0xFF] as [UInt8], [0xC0, 0x80], [0xE0, 0x80, 0x80], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0xE2, 0x82],
        ])
    func invalidUTF8(bad: [UInt8]) {
        let bytes = Array("{\"version\": 1,\n \"title\": \"ab".utf8) + bad + Array("\", \"blocks\": []}".utf8)
        let r = FlowLoader.load(bytes)
        #expect(r.diagnostics.count == 1)
        #expect(r.diagnostics[0].message.hasPrefix("invalid UTF-8"))
        #expect(r.diagnostics[0].line == 2 && r.diagnostics[0].column == 14)
    }

    @Test("Random garbage never traps", arguments: 0..<20)
    func fuzz(seed: Int) {
        var rng = SplitMix(seed: UInt64(seed))
        let alphabet = Array(#"{}[]":,0123456789.eE+-truefalsn \"\\u"#.utf8) + [0x0A, 0xC3, 0xA9, 0x80]
        for _ in 0..<200 {
            let n = Int(rng.next() % 64)
            let bytes = (0..<n).map { _ in alphabet[Int(rng.next() % UInt64(alphabet.count))] }
            _ = FlowLoader.load(bytes)
            _ = FlowLoader.load(
                Array(sampleFlow.utf8).enumerated().map { i, b in i == Int(rng.next() % 900) ? alphabet[Int(rng.next() % UInt64(alphabet.count))] : b })
        }
    }
}

struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed &+ 0x9E3779B97F4A7C15 }
    mutating func next() -> UInt64 {
        state &+= 0x9E3779B97F4A7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58476D1CE4E5B9
        z = (z ^ (z >> 27)) &* 0x94D049BB133111EB
        return z ^ (z >> 31)
    }
}

@Suite("JSON reader")
struct JSONReaderTests {
    func parse(_ s: String) throws -> JSONNode { try JSONReader.parse(Array(s.utf8)) }

    /// Reads `bytes` and checks what any answer must satisfy: an error points inside the input
    /// (or just after it), a tape has no more entries than bytes and reads back as a tree.
    func check(_ bytes: [UInt8]) {
        do {
            let tape = try JSONTape.parse(bytes)
            #expect(tape.entryCount <= max(1, bytes.count))
            _ = tape.node()
        } catch {
            #expect(error.offset >= 0 && error.offset <= bytes.count, "\(error)")
        }
    }

    @Test("Every truncation of a flow, and thousands of damaged copies and random byte strings, are read or refused: never a trap")
    func fuzzReader() {
        let sample = Array(sampleFlow.utf8)
        for n in 0...sample.count { check(Array(sample[0..<n])) }
        var rng = SplitMix(seed: 21)
        for _ in 0..<2_000 {
            var copy = sample
            for _ in 0..<(1 + Int(rng.next() % 4)) {
                let at = Int(rng.next() % UInt64(copy.count))
                switch rng.next() % 3 {
                case 0: copy[at] = UInt8(truncatingIfNeeded: rng.next())
                case 1: copy.remove(at: at)
                default: copy.insert(UInt8(truncatingIfNeeded: rng.next()), at: at)
                }
            }
            check(copy)
            check((0..<Int(rng.next() % 96)).map { _ in UInt8(truncatingIfNeeded: rng.next()) })
        }
        // Escapes cut at every place: a \u escape or a surrogate pair that ends early.
        let escapes = Array(#"["a\u00e9\ud83d\ude00\n\"", 1.5e-3, -0, true, null]"#.utf8)
        for n in 0...escapes.count { check(Array(escapes[0..<n])) }
    }

    @Test("Escapes, surrogate pairs and numbers")
    func values() throws {
        let node = try parse(#"["a\"b\\\/\n\t\u00e9\ud83d\ude80", -1.5e3, 0, true, null, {}]"#)
        guard case .array(let items) = node.value else { Issue.record("not an array"); return }
        guard case .string(let s) = items[0].value else { Issue.record("not a string"); return }
        #expect(s == "a\"b\\/\n\té🚀")
        guard case .number(let n) = items[1].value else { Issue.record("not a number"); return }
        #expect(n == -1500)
        #expect(items.map(\.typeName) == ["string", "number", "number", "boolean", "null", "object"])
        #expect(items.map(\.offset) == [1, 35, 43, 46, 52, 58])
    }

    @Test("Strictness", arguments: ["01", "1.", "-", "[1,]", "{\"a\" 1}", "\"\\x\"", "\"\\ud800\"", "tru", "\"a\nb\"", "1e", "[1 2]"])
    func rejects(text: String) {
        #expect(throws: JSONSyntaxError.self) { try parse(text) }
    }

    @Test("The tape: kinds, counts, skipping, keys compared in place with and without escapes")
    func tape() throws {
        let text = #"{"a\u0062": [1, {"k": null}, "x"], "s": "x\ny", "t": true, "n": -2.5}"#
        let tape = try JSONTape.parse(Array(text.utf8))
        #expect(tape.kind(0) == .object && tape.count(0) == 4)
        // The first member: an escaped key, then an array whose items are skipped as a whole.
        #expect(tape.string(1, is: "ab") && tape.string(1, is: "ab" as StaticString))
        #expect(!tape.string(1, is: "a\\u0062") && tape.string(1) == "ab")
        #expect(tape.kind(2) == .array && tape.count(2) == 3 && tape.offset(2) == 12)
        let afterArray = tape.next(after: 2)
        #expect(tape.string(afterArray, is: "s" as StaticString) && tape.string(afterArray + 1) == "x\ny")
        #expect(tape.bool(afterArray + 3) == true && tape.number(afterArray + 5) == -2.5)
        #expect(tape.next(after: 0) == tape.entryCount)
        // Items of the array: a number, an object (skipped with its member), a string.
        var j = 3
        var kinds: [JSONTape.Kind] = []
        for _ in 0..<tape.count(2) {
            kinds.append(tape.kind(j))
            j = tape.next(after: j)
        }
        #expect(kinds == [.number, .object, .string] && j == afterArray)
        // The tree built from the tape is the tree of the same text.
        let node = tape.node()
        #expect(node.object?.map(\.key) == ["ab", "s", "t", "n"])
        #expect(node.object?.map(\.keyOffset) == [1, 35, 48, 59])
    }

    @Test("Any document the writer makes reads back equal, through the tape and the tree", arguments: 0..<6)
    func roundTrip(seed: Int) throws {
        var rng = SplitMix(seed: UInt64(seed) &+ 1_000)
        let pieces = ["a", "Z", "0", " ", "\"", "\\", "/", "\n", "\t", "\u{0}", "\u{1F}", "é", "ß", "\u{2028}", "🚀", "{", "]", ":", ","]
        func text() -> String {
            (0..<Int(rng.next() % 12)).map { _ in pieces[Int(rng.next() % UInt64(pieces.count))] }.joined()
        }
        func value(_ depth: Int) -> JSONValue {
            switch rng.next() % (depth >= 12 ? 4 : 6) {
            case 0: return .null
            case 1: return .bool(rng.next() % 2 == 0)
            case 2: return .number(Double(Int64(bitPattern: rng.next()) >> 12) / 8)
            case 3: return .string(text())
            case 4: return .array((0..<Int(rng.next() % 5)).map { _ in value(depth + 1) })
            default: return .object((0..<Int(rng.next() % 5)).map { _ in (text(), value(depth + 1)) })
            }
        }
        for _ in 0..<300 {
            let v = value(0)
            for pretty in [false, true] {
                let back = try JSONReader.parse(v.serializedBytes(pretty: pretty)).plainValue
                #expect(back == v)
            }
        }
    }

    @Test("Positions of many offsets, in any order and past the end")
    func positions() {
        let lines = SourceLines(Array("ab\nçd\n\nx".utf8))
        // Bytes: a b LF ç(2) d LF LF x; a continuation byte is in the column of its character's end.
        let p = lines.positions(of: [8, 0, 3, 7, 6, 100, 4])
        #expect(p.map(\.line) == [4, 1, 2, 3, 2, 4, 2])
        #expect(p.map(\.column) == [1, 1, 1, 1, 3, 2, 2])
        #expect(lines.position(of: 6) == (2, 3))
    }

    @Test("Writer escapes control characters and reads back")
    func writer() throws {
        let original = "tab\t nul\u{0} esc\u{1B} line\u{2028} é"
        let text = JSONValue.string(original).serialized()
        #expect(!text.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x1B })
        guard case .string(let back) = try parse(text).value else { Issue.record("not a string"); return }
        #expect(back == original)
    }
}

@Suite("The JSON Schema and the examples stay true")
struct SchemaTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    @Test("Every example flow lints clean")
    func examples() throws {
        let dir = Self.root.appendingPathComponent("examples")
        let files = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasSuffix(".json") && !$0.hasSuffix(FlowTestFormat.suffix) }
        #expect(!files.isEmpty)
        for f in files {
            let bytes = Array(try Data(contentsOf: dir.appendingPathComponent(f)))
            #expect(FlowLoader.load(bytes).diagnostics.isEmpty, "\(f)")
        }
    }
}

@Suite("Flows gated by a scenario")
struct GatedFlowTests {
    @Test("scenario and when load, with durations as numbers or strings, and round-trip")
    func loads() throws {
        let r = FlowLoader.load(
            #"""
            {"version": 1, "scenario": "ask-review",
             "when": {"minEventsRequired": 5, "maxExecutionsPermitted": 3, "minSecondsSinceFirstEvent": "14d", "minSecondsBetweenExecutions": 3600,
                      "minEventsInWindow": {"count": 3, "window": "7d"}, "budget": {"executions": 1, "window": "24h"}, "priority": 2},
             "blocks": [{"id": "a", "type": "text", "text": "Enjoying it?"}]}
            """#)
        #expect(r.diagnostics.isEmpty)
        let doc = try #require(r.document)
        #expect(doc.scenario == "ask-review")
        #expect(
            doc.when
                == ScenarioRules(
                    minEventsRequired: 5, maxExecutionsPermitted: 3, minSecondsSinceFirstEvent: 1_209_600,
                    minSecondsBetweenExecutions: 3600, minEventsInWindow: EventWindow(count: 3, seconds: 604_800),
                    budget: InterruptionBudget(executions: 1, seconds: 86_400), priority: 2))
        #expect(FlowLoader.load(doc.jsonValue.serialized()).document == doc)
    }

    @Test("Bad rules are errors with their place")
    func errors() {
        #expect(
            lint(#"{"version": 1, "when": {"minEventsRequired": 1}, "blocks": [{"id": "a", "type": "text", "text": "x"}]}"#)
                == ["1:16 error missing-field"])
        #expect(
            lint(#"{"version": 1, "scenario": "s", "when": {"minSecondsSinceFirstEvent": "soon"}, "blocks": [{"id": "a", "type": "text", "text": "x"}]}"#)
                == ["1:71 error bad-duration"])
        #expect(
            lint(
                #"{"version": 1, "scenario": "s", "when": {"minEventsRequired": -1, "budget": {"executions": 1}}, "blocks": [{"id": "a", "type": "text", "text": "x"}]}"#
            )
                == ["1:63 error out-of-range", "1:77 error missing-field"])
        #expect(
            lint(#"{"version": 1, "scenario": "s", "when": {"minEvents": 1}, "blocks": [{"id": "a", "type": "text", "text": "x"}]}"#)
                == ["1:42 error unknown-field"])
    }
}

@Suite("Flow-level banners")
struct FlowBannerTests {
    @Test("A banner loads with every field and round-trips")
    func loads() throws {
        let r = FlowLoader.load(
            #"""
            {"version": 1, "banner": {"title": "Hi", "subtitle": "there", "icon": "🚀", "color": "teal", "titleColor": "#FFEE00",
               "buttons": ["Open", "Later"], "duration": 4, "animation": "snap", "backgroundTaps": false, "swipe": false, "fullWidth": true},
             "blocks": [{"id": "a", "type": "text", "text": "x"}]}
            """#)
        #expect(r.diagnostics.isEmpty)
        let banner = try #require(r.document?.banner)
        #expect(banner.title == "Hi" && banner.icon == .text("🚀") && banner.buttons == .two("Open", "Later"))
        #expect(banner.backgroundColor == RocketColor.names["teal"] && banner.titleColor == RocketColor(hex: "#FFEE00"))
        #expect(
            banner.duration == 4 && banner.animationType == .snap && !banner.backgroundTapsEnabled && !banner.swipeToDismissEnabled && banner.fullWidthMessages)
        #expect(FlowLoader.load(try #require(r.document).jsonValue.serialized()).document == r.document)
    }

    @Test("Bad banners are errors with their place")
    func errors() {
        #expect(lint(#"{"version": 1, "banner": {"subtitle": "x"}, "blocks": [{"id": "a", "type": "text", "text": "x"}]}"#) == ["1:26 error missing-field"])
        #expect(
            lint(#"{"version": 1, "banner": {"title": "x", "buttons": ["a", "b", "c"]}, "blocks": [{"id": "a", "type": "text", "text": "x"}]}"#)
                == ["1:52 error too-many-buttons"])
        #expect(
            lint(#"{"version": 1, "banner": {"title": "x", "color": "mauve"}, "blocks": [{"id": "a", "type": "text", "text": "x"}]}"#)
                == ["1:50 error bad-color"])
    }
}

@Suite("Lint that points at the cause")
struct LintCauseTests {
    @Test("A forgotten next is reported once, at the block that lacks it, with what it hides")
    func missingNext() {
        var blocks: [String] = []
        for i in 0..<6 {
            let next = i == 0 || i == 5 ? "" : #", "next": "b\#(i + 1)""#
            blocks.append(#"{"id": "b\#(i)", "type": "text", "text": "t\#(i)"\#(next)}"#)
        }
        let r = FlowLoader.load(#"{"version": 1, "blocks": ["# + blocks.joined(separator: ", ") + "]}")
        #expect(r.diagnostics.map(\.code) == ["missing-next"])
        #expect(r.diagnostics.first?.path == "blocks[0]")
        #expect(r.diagnostics.first?.message.contains("nor can the 4 blocks after it") == true)
    }

    @Test("Long lists are shortened; 13,000 copies of one warning are one line with a count")
    func shortened() {
        var blocks: [String] = []
        for i in 0..<13_000 {
            blocks.append(#"{"id": "b\#(i)", "type": "text", "text": "Hi {{nobody}}", "next": "b\#((i + 1) % 13_000)", "showNextAfter": 1}"#)
        }
        let r = FlowLoader.load(#"{"version": 1, "blocks": ["# + blocks.joined(separator: ", ") + "]}")
        let cycle = r.diagnostics.first { $0.code == "auto-advance-cycle" }
        #expect(cycle?.message.contains("… and 12991 more") == true)
        #expect((cycle?.message.count ?? 0) < 400)
        let placeholders = r.diagnostics.filter { $0.code == "unknown-placeholder" }
        #expect(placeholders.count == 1)
        #expect(placeholders.first?.message.hasSuffix("(and 12999 more like it)") == true)
    }
}

@Suite("Every error of a file in one run")
struct OneRunTests {
    @Test("Shape errors no longer hide reference and pattern errors; a reference to a broken block is not an error")
    func allAtOnce() {
        let r = FlowLoader.load(
            """
            {"version": 1, "blocks": [
              {"id": "a", "type": "text", "txt": "typo", "next": "b"},
              {"id": "b", "type": "text", "text": "Hi", "next": "nowhere"},
              {"id": "c", "type": "textInput", "text": "?", "buttonTitle": "OK", "validate": {"pattern": "("}, "next": "a"}
            ]}
            """)
        let codes = r.diagnostics.map(\.code)
        #expect(codes.contains("unknown-field"))
        #expect(codes.contains("missing-field"))
        #expect(codes.contains("unknown-target"))
        #expect(codes.contains("invalid-pattern"))
        #expect(!r.diagnostics.contains { $0.code == "unknown-target" && $0.message.contains("\"a\"") })
        #expect(r.diagnostics.allSatisfy { $0.severity == .error })
    }
}
