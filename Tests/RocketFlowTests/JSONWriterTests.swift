import RocketConversation
import RocketFlow
import RocketJSON
import Testing

@Suite("JSON writer")
struct JSONWriterTests {
    /// The escaping rule, one scalar at a time: the reference the byte writer must match.
    static func reference(_ s: String) -> String {
        var out = "\""
        for scalar in s.unicodeScalars {
            let v = scalar.value
            switch v {
            case 0x22: out += "\\\""
            case 0x5C: out += "\\\\"
            case 0x0A: out += "\\n"
            case 0x0D: out += "\\r"
            case 0x09: out += "\\t"
            case _
            where v < 0x20 || v == 0x7F || (0x80...0x9F).contains(v) || v == 0x2028 || v == 0x2029 || (0x202A...0x202E).contains(v)
                || (0x2066...0x2069).contains(v) || v == 0x061C || v == 0x200B || v == 0x200C || v == 0x200E || v == 0x200F
                || (0x2060...0x2064).contains(v) || v == 0xFEFF:
                let hex = String(v, radix: 16, uppercase: true)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    @Test("strings are escaped exactly as the rule says, in every script and at every boundary")
    func escaping() {
        var cases = [
            "", "plain", "quote \" and \\ back", "tab\tnew\nline\rcr", "\u{0}\u{1F}\u{7F}", "\u{80}\u{9F}\u{A0}é",
            "bidi \u{202E}evil\u{202C} \u{2066}x\u{2069}", "zero\u{200B}width\u{200D}joiner\u{FEFF}", "sep\u{2028}\u{2029}",
            "\u{2060}\u{2064}\u{2065}\u{2070}\u{2030}", "arabic \u{061C} mark \u{061B}", "emoji 👩‍💻 🚀", "中文，标点。", "\u{FEFE}\u{FEFF}\u{FF00}",
        ]
        // Every scalar from U+0000 to U+3000 and a band around U+FEFF, alone and between letters.
        var all = ""
        for v in Array(0...0x3000) + Array(0xFE00...0xFF10) {
            guard let scalar = Unicode.Scalar(UInt32(v)) else { continue }
            all.unicodeScalars.append(scalar)
            cases.append("a" + String(scalar) + "b")
        }
        cases.append(all)
        for c in cases { #expect(JSONValue.quote(c) == Self.reference(c), "\(c.unicodeScalars.map { String($0.value, radix: 16) })") }
    }

    @Test("values serialize the same as text and as bytes, compact and pretty")
    func bytesAndText() {
        let v = JSONValue.object([
            ("a", .array([.number(1), .number(2.5), .bool(true), .null])), ("b", .object([("c", .string("d\u{202E}"))])),
            ("e", .array([.object([("f", .number(-3))])])),
        ])
        #expect(v.serialized(pretty: false) == #"{"a":[1,2.5,true,null],"b":{"c":"d\u202E"},"e":[{"f":-3}]}"#)
        #expect(v.serializedBytes() == Array(v.serialized(pretty: false).utf8))
        #expect(v.serialized(pretty: true) == "{\n  \"a\": [1, 2.5, true, null],\n  \"b\": {\"c\": \"d\\u202E\"},\n  \"e\": [\n    {\"f\": -3}\n  ]\n}")
    }

    @Test("numbers are written exactly as JSONValue.format writes them")
    func numbers() {
        let values: [Double] = [
            0, -0.0, 1, -1, 9, 10, 11, 99, 100, 12_345, -987_654_321, 999_999_999_999_999, -999_999_999_999_999, 1e15, -1e15, 1e16,
            0.5, -2.25, 1.0e-7, 123.456, Double(Int32.max), Double(Int32.min), 4_294_967_296,
        ]
        for v in values {
            #expect(JSONValue.number(v).serialized(pretty: false) == JSONValue.format(v), "\(v)")
        }
        #expect(JSONValue.array([.null, .bool(true), .bool(false)]).serialized(pretty: false) == "[null,true,false]")
    }
    @Test("the direct byte writer writes what the same JSONValue serializes to")
    func directWriter() {
        let texts = ["", "x", "Ada \"L\"", "tab\there", "\u{0}\u{202E}\u{FEFF}", "你好", "🚀"]
        let numbers: [Double] = [0, 1, -1, 0.5, 1e15, 123_456_789, -2.25e-7]
        for (k, text) in texts.enumerated() {
            let number = numbers[k % numbers.count]
            var w = JSONBytes(capacity: 0)
            w.open()
            w.key("a", first: true)  // a one-character literal
            w.string(text)
            w.key("number")
            w.number(number)
            w.key("whole")
            w.number(k)
            w.key(escaping: text)
            w.openArray()
            w.bool(true)
            w.comma()
            w.null()
            w.comma()
            w.raw(Array("[1]".utf8))
            w.comma()
            w.value(.object([("n", .array([.bool(false)]))]))
            w.closeArray()
            w.key("case")
            w.emptyCase("none")
            w.close()
            let expected = JSONValue.object([
                ("a", .string(text)), ("number", .number(number)), ("whole", .number(Double(k))),
                (text, .array([.bool(true), .null, .array([.number(1)]), .object([("n", .array([.bool(false)]))])])),
                ("case", .object([("none", .object([]))])),
            ])
            #expect(w.out == expected.serializedBytes(), "\(text)")
        }
        var w = JSONBytes()
        w.number(.infinity)
        w.comma()
        w.number(.nan)
        #expect(String(decoding: w.out, as: UTF8.self) == "0,0")
    }
    @Test("times are written with at most six decimals, without a general number conversion")
    func fixedDecimals() {
        let cases: [(Double, String)] = [
            (1_764_553_040.123456, "1764553040.123456"), (0.5, "0.5"), (2, "2"), (-0.25, "-0.25"), (-0.000_000_1, "0"),
            (1.000_000_4, "1"), (1.999_999_9, "2"), (0.000_001, "0.000001"), (1e13, "10000000000000"), (.nan, "0"),
        ]
        for (v, text) in cases {
            var w = JSONBytes()
            w.number(v, fractionDigits: 6)
            #expect(String(decoding: w.out, as: UTF8.self) == text, "\(v)")
        }
        // Nine decimals of a large number would not fit in an Int: the general form is written.
        var w = JSONBytes()
        w.number(5e11 + 0.25, fractionDigits: 9)
        #expect(String(decoding: w.out, as: UTF8.self) == "500000000000.25")
    }

    @Test("arrays of numbers and of strings are what the value writer writes")
    func arrays() throws {
        for list in [[], [0], [3, -1, 12]] {
            var w = JSONBytes()
            w.numbers(list)
            #expect(w.out == JSONValue.array(list.map { .number(Double($0)) }).serializedBytes())
        }
        for list in [[], ["a"], ["q\"", "\u{1}", "é"]] {
            var w = JSONBytes()
            w.strings(list)
            #expect(w.out == JSONValue.array(list.map { .string($0) }).serializedBytes())
        }
    }

    @Test("an event's record is what the byte writer writes; with a time, the time comes first")
    func eventRecords() throws {
        let info = RocketBlockInfo(id: "a \"q\"", kind: .text, text: "A")
        let events: [RocketEvent] = [
            .blockAdded(index: 0, block: info), .tapped(index: 0, id: nil, automatic: true),
            .buttonPressed(index: 1, id: "b", side: .left, title: "L\u{202E}"), .buttonPressed(index: 1, id: "b", side: nil, title: "One"),
            .action(name: "go", blockID: nil), .inputSubmitted(index: 2, id: nil, text: "secret"),
            .inputRejected(index: 2, id: nil, failure: RocketValidationFailure(rule: .tooLong(3), message: nil)),
            .replyShown(afterIndex: 2, text: "x"),
            .dismissed(reason: .closedByUser, count: 2, blocks: [info, RocketBlockInfo(id: nil, kind: .button, text: "B")]),
            .didFinishClosing(reason: .completed), .intentRefused(intent: .tap, error: .notActive),
        ]
        for e in events {
            #expect(e.isRecorded == (e.recordText != nil), "\(e)")
            guard let text = e.recordText, case .object(let members) = try JSONReader.parse(Array(text.utf8)).plainValue else { continue }
            #expect(!text.contains("secret"))
            var w = JSONBytes()
            e.writeRecord(into: &w, at: 12.5)
            #expect(w.out == JSONValue.object([("at", .number(12.5))] + members).serializedBytes(), "\(e)")
        }
        #expect(events.filter(\.isRecorded).count == 8)
        #expect(
            RocketEvent.tapped(index: 0, id: "hi", automatic: false).recordText
                == #"{"event":"tapped","index":0,"id":"hi","automatic":false}"#)
    }
}
