import Foundation
import RocketJSON
import RocketTestSupport
import Testing

/// `rocket fmt`'s layout: white space only, within a width, the same however often it is applied.
@Suite("JSON laid out for people")
struct JSONLayoutTests {
    func layout(_ text: String, width: Int = JSONLayout.defaultWidth) throws -> String {
        String(decoding: JSONLayout.format(try JSONTape.parse(Array(text.utf8)), width: width), as: UTF8.self)
    }

    /// The document's scalars as written, in order (keys included): what must never change.
    func scalars(_ text: String) throws -> [String] {
        let tape = try JSONTape.parse(Array(text.utf8))
        var out: [String] = []
        var i = 0
        // Each scalar's text from its offset to where the next token begins, trimmed of the
        // punctuation and spaces that follow it.
        let bytes = Array(text.utf8)
        while i < tape.entryCount {
            if tape.kind(i) != .object && tape.kind(i) != .array {
                var end = tape.offset(i) + 1
                if bytes[tape.offset(i)] == UInt8(ascii: "\"") {
                    while bytes[end] != UInt8(ascii: "\"") { end += bytes[end] == UInt8(ascii: "\\") ? 2 : 1 }
                    end += 1
                } else {
                    while end < bytes.count, !" \n\t\r,]}:".utf8.contains(bytes[end]) { end += 1 }
                }
                out.append(String(decoding: bytes[tape.offset(i)..<end], as: UTF8.self))
            }
            i += 1
        }
        return out
    }

    /// `text` without the white space between its tokens.
    static func minified(_ text: String) -> String {
        var out: [UInt8] = []
        var inString = false, escaped = false
        for b in text.utf8 {
            if inString {
                if escaped { escaped = false } else if b == UInt8(ascii: "\\") { escaped = true } else if b == UInt8(ascii: "\"") { inString = false }
            } else if b == UInt8(ascii: "\"") {
                inString = true
            } else if b == 0x20 || b == 0x0A || b == 0x0D || b == 0x09 {
                continue
            }
            out.append(b)
        }
        return String(decoding: out, as: UTF8.self)
    }

    @Test("a flow's document: one member per line; what fits on a line stays on it; the rest packed or one item per line")
    func shape() throws {
        let text = #"""
            {"version":1,"title":"A flow","blocks":[{"id":"a","type":"text","text":"Hi!","next":"b"},{"id":"b","type":"doubleButton","left":{"title":"Sure, tell me more about it","next":"c"},"right":{"title":"Later","next":"bye","font":"lightButton"}},{"id":"c","type":"textInput","text":"What's your name?","branches":[{"when":{"equals":"SecretKey"},"next":"secret"},{"when":{"matches":"(?i)^ada"},"next":"ada"}],"next":"thanks"}],"empty":{},"none":[]}
            """#
        let laid = try layout(text, width: 80)
        #expect(
            laid == #"""
                {
                  "version": 1,
                  "title": "A flow",
                  "blocks": [
                    {"id": "a", "type": "text", "text": "Hi!", "next": "b"},
                    {"id": "b", "type": "doubleButton",
                     "left": {"title": "Sure, tell me more about it", "next": "c"},
                     "right": {"title": "Later", "next": "bye", "font": "lightButton"}},
                    {"id": "c", "type": "textInput", "text": "What's your name?",
                     "branches": [
                       {"when": {"equals": "SecretKey"}, "next": "secret"},
                       {"when": {"matches": "(?i)^ada"}, "next": "ada"}
                     ],
                     "next": "thanks"}
                  ],
                  "empty": {},
                  "none": []
                }

                """#, "\(laid)")
        for line in laid.split(separator: "\n") { #expect(line.unicodeScalars.count <= 80, "\(line)") }
    }

    @Test("values keep their text: escapes, exponents, trailing zeros, keys in their order (duplicates too)")
    func valuesKept() throws {
        let text = #"{"b":"caf\u00e9 \"q\" \\ \/","a":[1.50,-0,1E+3,2e-7,12345678901234567890],"b":true,"n":null,"é":"ü"}"#
        let laid = try layout(text)
        #expect(try scalars(laid) == scalars(text))
        #expect(laid.contains(#""caf\u00e9 \"q\" \\ \/""#))
        #expect(laid.contains("[1.50, -0, 1E+3, 2e-7, 12345678901234567890]"))
    }

    @Test("laid out twice is laid out once, whatever the white space it came with, at every width")
    func idempotent() throws {
        let root = SchemaTests.root
        let folder = root.appendingPathComponent("examples")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".json") }.sorted()
        #expect(names.count > 10)
        for name in names {
            let text = try String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)
            for width in [40, 80, 100, 160] {
                let once = try layout(text, width: width)
                #expect(try layout(once, width: width) == once, "\(name) at \(width)")
                #expect(try scalars(once) == scalars(text), "\(name) at \(width): a value changed")
                #expect(try layout(Self.minified(text), width: width) == once, "\(name) at \(width): the layout depends on the white space it came with")
            }
        }
    }

    @Test("the deepest document the reader takes, and a string longer than any line, are laid out")
    func extremes() throws {
        let depth = JSONReaderLimits().maxDepth
        let deep = String(repeating: #"{"k": ["#, count: depth / 2) + "1" + String(repeating: "]}", count: depth / 2)
        let laid = try layout(deep, width: 40)
        #expect(try layout(laid, width: 40) == laid && scalars(laid) == scalars(deep))
        let long = #"{"a": [""# + String(repeating: "x", count: 5000) + #"", 1]}"#
        let longLaid = try layout(long, width: 40)
        #expect(longLaid == "{\n  \"a\": [\n    \"" + String(repeating: "x", count: 5000) + "\",\n    1\n  ]\n}\n")
    }

    @Test("random documents: the values are kept, and a second pass changes nothing")
    func random() throws {
        var rng = SplitMix(seed: 33)
        func value(_ depth: Int) -> String {
            let pick = depth > 5 ? rng.next() % 4 : rng.next() % 6
            switch pick {
            case 0: return ["1", "-2.5e3", "0.10", "true", "false", "null"][Int(rng.next() % 6)]
            case 1, 2: return "\"" + String(repeating: ["a", "é", "\\n", "字", " "][Int(rng.next() % 5)], count: Int(rng.next() % 30)) + "\""
            case 3: return "[]"
            case 4: return "[" + (0..<Int(rng.next() % 6)).map { _ in value(depth + 1) }.joined(separator: ",") + "]"
            default: return "{" + (0..<Int(rng.next() % 6)).map { k in "\"k\(k)\":" + value(depth + 1) }.joined(separator: ",") + "}"
            }
        }
        for _ in 0..<300 {
            let text = value(0)
            let width = 40 + Int(rng.next() % 80)
            let once = try layout(text, width: width)
            #expect(try scalars(once) == scalars(text), "\(text)")
            #expect(try layout(once, width: width) == once, "\(text)")
        }
    }
}
