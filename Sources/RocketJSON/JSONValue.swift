/// A JSON value to write, with object keys in a fixed order (so output is stable and diffable).
///
/// ```swift
/// let v = JSONValue.object([("a", .number(1)), ("b", .array([.bool(true), .null]))])
/// v.serialized(pretty: false)   // {"a":1,"b":[true,null]}
/// ```
public enum JSONValue: Hashable, Sendable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([(String, JSONValue)])

    public static func == (a: JSONValue, b: JSONValue) -> Bool {
        a.serialized(pretty: false) == b.serialized(pretty: false)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(serialized(pretty: false))
    }

    /// The JSON text; `pretty` indents with two spaces and keeps short arrays and objects on one line.
    public func serialized(pretty: Bool = true) -> String {
        var out = ""
        write(into: &out, pretty: pretty, indent: 0)
        return out
    }

    /// Escapes a string for JSON, including every control character.
    public static func quote(_ s: String) -> String {
        var out = "\""
        out.reserveCapacity(s.utf8.count + 2)
        quote(s, into: &out)
        return out + "\""
    }

    /// Appends the escaped body of `s` (without quotes) to `out`: runs of plain characters are
    /// copied at once, only the characters that need it are escaped one by one.
    static func quote(_ s: String, into out: inout String) {
        let scalars = s.unicodeScalars
        var run = scalars.startIndex
        var i = run
        while i < scalars.endIndex {
            let v = scalars[i].value
            let plain = (v >= 0x20 && v < 0x7F && v != 0x22 && v != 0x5C) || (v >= 0xA0 && !needsEscape(v))
            if plain {
                i = scalars.index(after: i)
                continue
            }
            out += s[run..<i]
            switch v {
            case 0x22: out += "\\\""
            case 0x5C: out += "\\\\"
            case 0x0A: out += "\\n"
            case 0x0D: out += "\\r"
            case 0x09: out += "\\t"
            default:
                let hex = String(v, radix: 16, uppercase: true)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            }
            i = scalars.index(after: i)
            run = i
        }
        out += s[run..<scalars.endIndex]
    }

    /// Characters at U+00A0 and above that are still escaped: line and paragraph separators,
    /// bidi overrides and zero-width characters, so a reader sees them.
    private static func needsEscape(_ v: UInt32) -> Bool {
        guard v >= 0x061C, v <= 0xFEFF else { return false }
        return v == 0x2028 || v == 0x2029 || (0x202A...0x202E).contains(v) || (0x2066...0x2069).contains(v) || v == 0x061C
            || v == 0x200B || v == 0x200C || v == 0x200E || v == 0x200F || (0x2060...0x2064).contains(v) || v == 0xFEFF
    }

    /// A number as JSON text: whole numbers without a fraction.
    public static func format(_ v: Double) -> String {
        if v == v.rounded(), abs(v) < 1e15 { return String(Int(v)) }
        return String(v)
    }

    private var isScalar: Bool {
        switch self {
        case .array(let a): return a.isEmpty
        case .object(let o): return o.isEmpty
        default: return true
        }
    }

    private func write(into out: inout String, pretty: Bool, indent: Int) {
        switch self {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .number(let v): out += JSONValue.format(v)
        case .string(let s):
            out += "\""
            JSONValue.quote(s, into: &out)
            out += "\""
        case .array(let items):
            let inline = !pretty || items.allSatisfy(\.isScalar)
            out += "["
            for (i, item) in items.enumerated() {
                if i > 0 { out += inline && pretty ? ", " : "," }
                if !inline { out += "\n" + String(repeating: "  ", count: indent + 1) }
                item.write(into: &out, pretty: pretty, indent: indent + 1)
            }
            if !inline && !items.isEmpty { out += "\n" + String(repeating: "  ", count: indent) }
            out += "]"
        case .object(let members):
            let inline = !pretty || (members.allSatisfy(\.1.isScalar) && members.count <= 4)
            out += "{"
            for (i, (key, value)) in members.enumerated() {
                if i > 0 { out += inline && pretty ? ", " : "," }
                if !inline { out += "\n" + String(repeating: "  ", count: indent + 1) }
                out += "\""
                JSONValue.quote(key, into: &out)
                out += pretty ? "\": " : "\":"
                value.write(into: &out, pretty: pretty, indent: indent + 1)
            }
            if !inline && !members.isEmpty { out += "\n" + String(repeating: "  ", count: indent) }
            out += "}"
        }
    }
}
