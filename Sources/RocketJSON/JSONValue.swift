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
        String(decoding: serializedBytes(pretty: pretty), as: UTF8.self)
    }

    /// The JSON text as UTF-8 bytes (what goes to a file or a socket, without a String between).
    public func serializedBytes(pretty: Bool = false) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(256)
        write(into: &out, pretty: pretty, indent: 0)
        return out
    }

    /// Appends `s` as a JSON string, quotes included, escaped as ``quote(_:)`` does (for writers
    /// that build JSON bytes directly).
    package static func appendString(_ s: String, to out: inout [UInt8]) {
        out.append(0x22)
        quote(s, into: &out)
        out.append(0x22)
    }

    /// Appends `v` as ``format(_:)`` writes it.
    package static func appendNumber(_ v: Double, to out: inout [UInt8]) {
        writeNumber(v, into: &out)
    }

    /// Appends `n` as ``format(_:)`` writes it (whole numbers of 15 digits or more as `Double` does).
    package static func appendNumber(_ n: Int, to out: inout [UInt8]) {
        writeNumber(Double(n), into: &out)
    }

    /// Appends `b` as `true` or `false`.
    package static func appendBool(_ b: Bool, to out: inout [UInt8]) {
        if b { out.append(contentsOf: [0x74, 0x72, 0x75, 0x65] as [UInt8]) } else { out.append(contentsOf: [0x66, 0x61, 0x6C, 0x73, 0x65] as [UInt8]) }
    }

    /// Appends this value's compact JSON to `out`.
    package func append(to out: inout [UInt8]) {
        write(into: &out, pretty: false, indent: 0)
    }

    /// Escapes a string for JSON, including every control character.
    public static func quote(_ s: String) -> String {
        var out: [UInt8] = [0x22]
        out.reserveCapacity(s.utf8.count + 2)
        quote(s, into: &out)
        out.append(0x22)
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends the escaped UTF-8 of `s` (without quotes) to `out`: runs of plain bytes are copied
    /// at once; escaped are the quote, the backslash, C0 and C1 controls, DEL, the line and
    /// paragraph separators, bidi controls and zero-width characters (so a reader sees them).
    static func quote(_ s: String, into out: inout [UInt8]) {
        quote(bytes: s.utf8.span, into: &out)
    }

    private static func quote(bytes b: Span<UInt8>, into out: inout [UInt8]) {
        let n = b.count
        var run = 0
        var i = 0
        while i < n {
            let c = b[i]
            var length = 0
            var scalar: UInt32 = 0
            if c < 0x80 {
                if c >= 0x20 && c != 0x7F && c != 0x22 && c != 0x5C {
                    i += 1
                    continue
                }
                length = 1
                scalar = UInt32(c)
            } else if c == 0xC2, i + 1 < n, b[i + 1] <= 0x9F {
                length = 2
                scalar = UInt32(b[i + 1])  // U+0080…U+009F
            } else if c == 0xD8, i + 1 < n, b[i + 1] == 0x9C {
                length = 2
                scalar = 0x061C
            } else if c == 0xE2, i + 2 < n, b[i + 1] == 0x80 || b[i + 1] == 0x81 {
                let v = 0x2000 + (UInt32(b[i + 1] & 0x3F) << 6) + UInt32(b[i + 2] & 0x3F)
                guard needsEscape(v) else {
                    i += 3
                    continue
                }
                length = 3
                scalar = v
            } else if c == 0xEF, i + 2 < n, b[i + 1] == 0xBB, b[i + 2] == 0xBF {
                length = 3
                scalar = 0xFEFF
            } else {
                i += 1
                continue
            }
            append(b, run..<i, to: &out)
            switch scalar {
            case 0x22: out += [0x5C, 0x22]
            case 0x5C: out += [0x5C, 0x5C]
            case 0x0A: out += [0x5C, 0x6E]
            case 0x0D: out += [0x5C, 0x72]
            case 0x09: out += [0x5C, 0x74]
            default:
                let hex: [UInt8] = Array("0123456789ABCDEF".utf8)
                out += [0x5C, 0x75, hex[Int(scalar >> 12 & 15)], hex[Int(scalar >> 8 & 15)], hex[Int(scalar >> 4 & 15)], hex[Int(scalar & 15)]]
            }
            i += length
            run = i
        }
        append(b, run..<n, to: &out)
    }

    /// Appends the bytes of `range` (checked against the span).
    private static func append(_ b: Span<UInt8>, _ range: Range<Int>, to out: inout [UInt8]) {
        b.extracting(range).withUnsafeBufferPointer { out.append(contentsOf: $0) }
    }

    /// Characters at U+061C and above that are still escaped.
    private static func needsEscape(_ v: UInt32) -> Bool {
        v == 0x2028 || v == 0x2029 || (0x202A...0x202E).contains(v) || (0x2066...0x2069).contains(v) || v == 0x061C
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

    private func write(into out: inout [UInt8], pretty: Bool, indent: Int) {
        func indentation(_ level: Int) {
            out.append(0x0A)
            for _ in 0..<(2 * level) { out.append(0x20) }
        }
        func separator(_ inline: Bool) {
            out.append(0x2C)
            if inline && pretty { out.append(0x20) }
        }
        switch self {
        case .null: out.append(contentsOf: [0x6E, 0x75, 0x6C, 0x6C] as [UInt8])
        case .bool(let b):
            if b { out.append(contentsOf: [0x74, 0x72, 0x75, 0x65] as [UInt8]) } else { out.append(contentsOf: [0x66, 0x61, 0x6C, 0x73, 0x65] as [UInt8]) }
        case .number(let v): JSONValue.writeNumber(v, into: &out)
        case .string(let s):
            out.append(0x22)
            JSONValue.quote(s, into: &out)
            out.append(0x22)
        case .array(let items):
            let inline = !pretty || items.allSatisfy(\.isScalar)
            out.append(0x5B)
            for (i, item) in items.enumerated() {
                if i > 0 { separator(inline) }
                if !inline { indentation(indent + 1) }
                item.write(into: &out, pretty: pretty, indent: indent + 1)
            }
            if !inline && !items.isEmpty { indentation(indent) }
            out.append(0x5D)
        case .object(let members):
            let inline = !pretty || (members.allSatisfy(\.1.isScalar) && members.count <= 4)
            out.append(0x7B)
            for (i, (key, value)) in members.enumerated() {
                if i > 0 { separator(inline) }
                if !inline { indentation(indent + 1) }
                out.append(0x22)
                JSONValue.quote(key, into: &out)
                out.append(0x22)
                out.append(0x3A)
                if pretty { out.append(0x20) }
                value.write(into: &out, pretty: pretty, indent: indent + 1)
            }
            if !inline && !members.isEmpty { indentation(indent) }
            out.append(0x7D)
        }
    }

    /// Writes a number as ``format(_:)`` does; whole numbers digit by digit, without a String.
    private static func writeNumber(_ v: Double, into out: inout [UInt8]) {
        guard v == v.rounded(), abs(v) < 1e15 else {
            out.append(contentsOf: String(v).utf8)
            return
        }
        var n = Int(v)
        if n < 0 {
            out.append(0x2D)
            n = -n
        }
        if n < 10 {
            out.append(UInt8(0x30 + n))
            return
        }
        var digits: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) =
            (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var count = 0
        withUnsafeMutableBytes(of: &digits) { buf in
            while n > 0 {
                buf[count] = UInt8(0x30 + n % 10)
                n /= 10
                count += 1
            }
            for k in stride(from: count - 1, through: 0, by: -1) { out.append(buf[k]) }
        }
    }
}
