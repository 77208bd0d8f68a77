/// A JSON text read into one flat array of entries: the reader's only lexer.
///
/// Each value is one entry, in document order; an object's members are its key (a string entry)
/// followed by the value's entries, and a container records where its last descendant ends, so a
/// reader walks or skips any value without a tree. Strings stay as byte ranges of the source until
/// asked for (only those with escapes are decoded while reading). ``JSONReader/parse(_:limits:)``
/// builds its ``JSONNode`` tree from a tape; the flow loader reads the tape directly, which spares
/// it a tree it would only free again.
///
/// Reading is iterative (no recursion per element or per nesting level), bounded by
/// ``JSONReaderLimits``, and reports the same ``JSONSyntaxError``s as ``JSONReader``.
package struct JSONTape: Sendable {
    /// The JSON type of an entry.
    package enum Kind: UInt8, Sendable {
        case null, bool, number, string, array, object

        /// A short name for error messages ("string", "object", …).
        package var name: String {
            switch self {
            case .null: return "null"
            case .bool: return "boolean"
            case .number: return "number"
            case .string: return "string"
            case .array: return "array"
            case .object: return "object"
            }
        }
    }

    struct Entry: Sendable {
        var kind: Kind
        /// A bool's value; for a string, whether it had escapes (its text is in `unescaped`).
        var flag: Bool
        /// The byte offset where the value (or key) starts.
        var offset: UInt32
        /// A string's first content byte or index in `unescaped`; a number's low bits; a
        /// container's number of members or items.
        var a: UInt32
        /// A string's end of content (its closing quote, escaped or not); a number's high bits;
        /// the index after a container's last descendant.
        var b: UInt32
    }

    /// The source text.
    package let bytes: [UInt8]
    var entries: [Entry]
    var unescaped: [String]

    /// Reads a whole document; trailing non-space bytes are an error.
    package static func parse(_ bytes: [UInt8], limits: JSONReaderLimits = JSONReaderLimits()) throws(JSONSyntaxError) -> JSONTape {
        if bytes.count > limits.maxBytes {
            throw JSONSyntaxError(message: "the file is \(bytes.count) bytes; the limit is \(limits.maxBytes) bytes", offset: 0)
        }
        if bytes.count >= Int(UInt32.max) {
            throw JSONSyntaxError(message: "the file is \(bytes.count) bytes; the reader takes less than 4 GiB", offset: 0)
        }
        if let bad = JSONReader.firstInvalidUTF8(bytes) {
            throw JSONSyntaxError(message: "invalid UTF-8 (byte 0x\(String(bytes[bad], radix: 16, uppercase: true)))", offset: bad)
        }
        var lexer = Lexer(limits: limits)
        lexer.entries.reserveCapacity(bytes.count / 8 + 1)
        // The lexer reads through a `Span`: every index is checked, whatever the bytes say.
        try lexer.document(bytes.span)
        return JSONTape(bytes: bytes, entries: lexer.entries, unescaped: lexer.unescaped)
    }

    /// The number of entries; the root is entry 0.
    package var entryCount: Int { entries.count }

    /// The JSON type of entry `i`.
    package func kind(_ i: Int) -> Kind { entries[i].kind }

    /// The byte offset where entry `i` starts.
    package func offset(_ i: Int) -> Int { Int(entries[i].offset) }

    /// The index after entry `i` and its descendants: the next sibling, or the next key.
    package func next(after i: Int) -> Int {
        let e = entries[i]
        return e.kind == .array || e.kind == .object ? Int(e.b) : i + 1
    }

    /// The number of members of an object or items of an array (0 for other values).
    package func count(_ i: Int) -> Int {
        let e = entries[i]
        return e.kind == .array || e.kind == .object ? Int(e.a) : 0
    }

    /// The text of a string entry (or a key), else nil.
    package func string(_ i: Int) -> String? {
        let e = entries[i]
        guard e.kind == .string else { return nil }
        if e.flag { return unescaped[Int(e.a)] }
        return String(decoding: bytes[Int(e.a)..<Int(e.b)], as: UTF8.self)
    }

    /// The value of a number entry, else nil.
    package func number(_ i: Int) -> Double? {
        let e = entries[i]
        guard e.kind == .number else { return nil }
        return Double(bitPattern: UInt64(e.b) << 32 | UInt64(e.a))
    }

    /// The value of a bool entry, else nil.
    package func bool(_ i: Int) -> Bool? {
        let e = entries[i]
        return e.kind == .bool ? e.flag : nil
    }

    /// Whether string entry `i` (a key, usually) is exactly `text`, compared without building a
    /// string.
    package func string(_ i: Int, is text: String) -> Bool {
        let e = entries[i]
        guard e.kind == .string else { return false }
        if e.flag { return unescaped[Int(e.a)] == text }
        let range = Int(e.a)..<Int(e.b)
        guard text.utf8.count == range.count else { return false }
        // Compared as two byte buffers (a generic elementsEqual walks both one element at a time).
        var text = text
        return text.withUTF8 { t in
            bytes.withUnsafeBufferPointer { b in
                t.indices.allSatisfy { b[range.lowerBound + $0] == t[$0] }
            }
        }
    }

    /// Whether string entry `i` is exactly `text`: the fast form for keys known at compile time.
    package func string(_ i: Int, is text: StaticString) -> Bool {
        let e = entries[i]
        guard e.kind == .string else { return false }
        if e.flag { return unescaped[Int(e.a)] == text.description }
        return Self.equal(bytes.span, Int(e.a)..<Int(e.b), text)
    }

    /// The value entry of the first member of object entry `object` whose key is `key`, or nil:
    /// a walk over the members, lengths compared first (objects hold a handful of keys).
    package func member(of object: Int, _ key: StaticString) -> Int? {
        let o = entries[object]
        guard o.kind == .object else { return nil }
        let b = bytes.span
        var j = object + 1
        for _ in 0..<o.a {
            if keyMatches(b, j, key) { return j + 1 }
            j = next(after: j + 1)
        }
        return nil
    }

    /// ``member(of:_:)`` for a key made at run time.
    package func member(of object: Int, _ key: String) -> Int? {
        guard kind(object) == .object else { return nil }
        var j = object + 1
        for _ in 0..<count(object) {
            if string(j, is: key) { return j + 1 }
            j = next(after: j + 1)
        }
        return nil
    }

    /// The position in `keys` of the string at entry `j` (a key), or nil.
    package func index(ofKey j: Int, in keys: [StaticString]) -> Int? {
        let b = bytes.span
        return keys.firstIndex { keyMatches(b, j, $0) }
    }

    /// The position in `keys` of the string at entry `j` (a key), or nil: keys made at run time
    /// (a table's field names), compared in place.
    package func index(ofKey j: Int, in keys: [String]) -> Int? {
        let e = entries[j]
        guard e.kind == .string else { return nil }
        if e.flag {
            let text = unescaped[Int(e.a)]
            return keys.firstIndex(of: text)
        }
        let range = Int(e.a)..<Int(e.b)
        return keys.firstIndex { key in key.utf8.count == range.count && bytes[range].elementsEqual(key.utf8) }
    }

    @inline(__always)
    private func keyMatches(_ b: Span<UInt8>, _ j: Int, _ key: StaticString) -> Bool {
        let e = entries[j]
        guard e.kind == .string else { return false }
        if e.flag { return unescaped[Int(e.a)] == key.description }
        return Self.equal(b, Int(e.a)..<Int(e.b), key)
    }

    @inline(__always)
    private static func equal(_ b: Span<UInt8>, _ range: Range<Int>, _ key: StaticString) -> Bool {
        guard key.hasPointerRepresentation else {
            return key.withUTF8Buffer { k in k.count == range.count && k.indices.allSatisfy { b[range.lowerBound + $0] == k[$0] } }
        }
        let n = key.utf8CodeUnitCount
        guard n == range.count else { return false }
        let p = key.utf8Start
        var k = range.lowerBound
        for t in 0..<n {
            if b[k] != p[t] { return false }
            k += 1
        }
        return true
    }

    /// A short name of entry `i`'s JSON type, for error messages ("string", "object", …).
    package func typeName(_ i: Int) -> String { entries[i].kind.name }

    /// Entry `i` as a tree, built with an explicit stack (no recursion, whatever the depth limit
    /// the tape was read with).
    package func node(_ i: Int = 0) -> JSONNode {
        /// A container being built: its entry, its next child, how many are left, what is built.
        struct Frame {
            let entry: Int
            let key: Int  // the key entry naming it in its parent object, or -1
            var next: Int
            var left: Int
            var items: [JSONNode] = []
            var members: [JSONMember] = []
        }
        func leaf(_ i: Int) -> JSONNode? {
            let e = entries[i]
            let offset = Int(e.offset)
            switch e.kind {
            case .null: return JSONNode(value: .null, offset: offset)
            case .bool: return JSONNode(value: .bool(e.flag), offset: offset)
            case .number: return JSONNode(value: .number(number(i)!), offset: offset)
            case .string: return JSONNode(value: .string(string(i)!), offset: offset)
            case .array, .object: return nil
            }
        }
        func frame(_ i: Int, key: Int) -> Frame {
            var f = Frame(entry: i, key: key, next: i + 1, left: count(i))
            if kind(i) == .object { f.members.reserveCapacity(f.left) } else { f.items.reserveCapacity(f.left) }
            return f
        }
        func attach(_ value: JSONNode, key: Int, to parent: inout Frame) {
            if key >= 0 {
                parent.members.append(JSONMember(key: string(key)!, keyOffset: offset(key), value: value))
            } else {
                parent.items.append(value)
            }
        }
        if let value = leaf(i) { return value }
        var stack = [frame(i, key: -1)]
        while true {
            let top = stack.count - 1
            if stack[top].left == 0 {
                let done = stack.removeLast()
                let offset = self.offset(done.entry)
                let value =
                    kind(done.entry) == .object
                    ? JSONNode(value: .object(done.members), offset: offset) : JSONNode(value: .array(done.items), offset: offset)
                guard !stack.isEmpty else { return value }
                attach(value, key: done.key, to: &stack[stack.count - 1])
                continue
            }
            let isObject = kind(stack[top].entry) == .object
            let key = isObject ? stack[top].next : -1
            let child = isObject ? key + 1 : stack[top].next
            stack[top].next = next(after: child)
            stack[top].left -= 1
            if let value = leaf(child) {
                attach(value, key: key, to: &stack[top])
            } else {
                stack.append(frame(child, key: key))
            }
        }
    }
}

/// The tape's reader: one loop over the bytes with a stack of open containers.
private struct Lexer {
    let limits: JSONReaderLimits
    var entries: [JSONTape.Entry] = []
    var unescaped: [String] = []
    var i = 0

    init(limits: JSONReaderLimits) {
        self.limits = limits
    }

    private static let quote = UInt8(ascii: "\"")

    /// The bytes of `range` (checked against the span) as text.
    private static func text(_ b: Span<UInt8>, _ range: Range<Int>) -> String {
        b.extracting(range).withUnsafeBufferPointer { String(decoding: $0, as: UTF8.self) }
    }
    private static let backslash = UInt8(ascii: "\\")

    mutating func document(_ b: Span<UInt8>) throws(JSONSyntaxError) {
        if b.count >= 3, b[0] == 0xEF, b[1] == 0xBB, b[2] == 0xBF { i = 3 }  // tolerate a byte-order mark
        skipSpace(b)
        guard i < b.count else { throw JSONSyntaxError(message: "the file is empty; expected a JSON object", offset: i) }
        var open: [Int] = []  // entries of the containers being read; at most `maxDepth`
        values: while true {
            // A value starts at `i` (spaces skipped).
            guard i < b.count else { throw JSONSyntaxError(message: "unexpected end of file; expected a value", offset: i) }
            let start = i
            switch b[i] {
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                let isObject = b[i] == UInt8(ascii: "{")
                if open.count >= limits.maxDepth {
                    throw JSONSyntaxError(message: "nesting deeper than \(limits.maxDepth) levels", offset: i)
                }
                open.append(entries.count)
                append(isObject ? .object : .array, at: start)
                i += 1
                skipSpace(b)
                if i < b.count, b[i] == (isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) {
                    i += 1
                    entries[open.removeLast()].b = UInt32(entries.count)
                } else {
                    if isObject { try key(b) }
                    continue values
                }
            case Self.quote: try string(b)
            case UInt8(ascii: "t"): try word(b, "true"); append(.bool, at: start, flag: true)
            case UInt8(ascii: "f"): try word(b, "false"); append(.bool, at: start)
            case UInt8(ascii: "n"): try word(b, "null"); append(.null, at: start)
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                let bits = try number(b).bitPattern
                entries.append(.init(kind: .number, flag: false, offset: UInt32(start), a: UInt32(truncatingIfNeeded: bits), b: UInt32(bits >> 32)))
            default:
                throw JSONSyntaxError(message: "unexpected \(describe(b, i)); expected a value", offset: i)
            }
            // After a value: the next one of its container, or the container's end.
            while let top = open.last {
                let isObject = entries[top].kind == .object
                entries[top].a += 1
                skipSpace(b)
                let close = isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")
                guard i < b.count else {
                    throw JSONSyntaxError(message: "unexpected end of file; expected ',' or '\(isObject ? "}" : "]")'", offset: i)
                }
                if b[i] == UInt8(ascii: ",") {
                    let comma = i
                    i += 1
                    skipSpace(b)
                    if i < b.count, b[i] == close {
                        throw JSONSyntaxError(
                            message: "a trailing comma: JSON allows no ',' before '\(isObject ? "}" : "]")'; remove it", offset: comma)
                    }
                    if isObject { try key(b) }
                    continue values
                }
                guard b[i] == close else {
                    throw JSONSyntaxError(message: "unexpected \(describe(b, i)); expected ',' or '\(isObject ? "}" : "]")'", offset: i)
                }
                i += 1
                entries[open.removeLast()].b = UInt32(entries.count)
            }
            break
        }
        skipSpace(b)
        if i < b.count {
            throw JSONSyntaxError(message: "unexpected \(describe(b, i)) after the end of the JSON value", offset: i)
        }
    }

    private mutating func append(_ kind: JSONTape.Kind, at offset: Int, flag: Bool = false) {
        entries.append(.init(kind: kind, flag: flag, offset: UInt32(offset), a: 0, b: 0))
    }

    private func describe(_ b: Span<UInt8>, _ i: Int) -> String {
        guard i < b.count else { return "end of file" }
        let c = b[i]
        if c >= 0x21 && c < 0x7F { return "'\(Character(Unicode.Scalar(c)))'" }
        if c == 0x20 { return "space" }
        return "byte 0x\(String(c, radix: 16, uppercase: true))"
    }

    private mutating func skipSpace(_ b: Span<UInt8>) {
        while i < b.count {
            switch b[i] {
            case 0x20, 0x09, 0x0A, 0x0D: i += 1
            default: return
            }
        }
    }

    /// A member's key and its colon; leaves `i` at the value.
    private mutating func key(_ b: Span<UInt8>) throws(JSONSyntaxError) {
        guard i < b.count, b[i] == Self.quote else {
            throw JSONSyntaxError(message: "unexpected \(describe(b, i)); expected a quoted key", offset: i)
        }
        try string(b)
        skipSpace(b)
        guard i < b.count, b[i] == UInt8(ascii: ":") else {
            let e = entries[entries.count - 1]
            let key =
                e.flag ? unescaped[Int(e.a)] : Self.text(b, Int(e.a)..<Int(e.b))
            throw JSONSyntaxError(message: "unexpected \(describe(b, i)); expected ':' after the key \"\(key)\"", offset: i)
        }
        i += 1
        skipSpace(b)
    }

    private mutating func word(_ b: Span<UInt8>, _ word: StaticString) throws(JSONSyntaxError) {
        let start = i
        let n = word.utf8CodeUnitCount
        let w = word.utf8Start
        for k in 0..<n {
            guard i < b.count, b[i] == w[k] else {
                throw JSONSyntaxError(message: "unexpected \(describe(b, start)); expected a value", offset: start)
            }
            i += 1
        }
    }

    private func hexValue(_ c: UInt8) -> UInt32? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return UInt32(c - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return UInt32(c - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return UInt32(c - UInt8(ascii: "A") + 10)
        default: return nil
        }
    }

    private mutating func hex4(_ b: Span<UInt8>) throws(JSONSyntaxError) -> UInt32 {
        guard i + 4 <= b.count else { throw JSONSyntaxError(message: "unfinished \\u escape", offset: i) }
        var v: UInt32 = 0
        for k in 0..<4 {
            guard let h = hexValue(b[i + k]) else {
                throw JSONSyntaxError(message: "invalid \\u escape: expected 4 hexadecimal digits", offset: i + k)
            }
            v = v << 4 | h
        }
        i += 4
        return v
    }

    private func tooLong(_ open: Int) -> JSONSyntaxError {
        JSONSyntaxError(message: "a string longer than \(limits.maxStringBytes) bytes", offset: open)
    }

    /// A string at `i` (its opening quote) becomes an entry: its byte range, or its decoded text
    /// when it has escapes.
    private mutating func string(_ b: Span<UInt8>) throws(JSONSyntaxError) {
        let open = i
        i += 1
        let start = i
        // Fast path: no escapes.
        while i < b.count {
            let c = b[i]
            if c == Self.quote {
                if i - start > limits.maxStringBytes { throw tooLong(open) }
                entries.append(.init(kind: .string, flag: false, offset: UInt32(open), a: UInt32(start), b: UInt32(i)))
                i += 1
                return
            }
            if c == Self.backslash { break }
            if c < 0x20 {
                throw JSONSyntaxError(message: "control character 0x\(String(c, radix: 16, uppercase: true)) inside a string; escape it", offset: i)
            }
            i += 1
            if i - start > limits.maxStringBytes { throw tooLong(open) }
        }
        var out: [UInt8] = []
        out.reserveCapacity(i - start + 16)
        for k in start..<i { out.append(b[k]) }
        while i < b.count {
            let c = b[i]
            if out.count > limits.maxStringBytes { throw tooLong(open) }
            if c == Self.quote {
                entries.append(.init(kind: .string, flag: true, offset: UInt32(open), a: UInt32(unescaped.count), b: UInt32(i)))
                i += 1
                unescaped.append(String(decoding: out, as: UTF8.self))
                return
            }
            if c < 0x20 {
                throw JSONSyntaxError(message: "control character 0x\(String(c, radix: 16, uppercase: true)) inside a string; escape it", offset: i)
            }
            if c != Self.backslash { out.append(c); i += 1; continue }
            i += 1
            guard i < b.count else { break }
            let e = b[i]
            i += 1
            switch e {
            case Self.quote: out.append(0x22)
            case Self.backslash: out.append(0x5C)
            case UInt8(ascii: "/"): out.append(0x2F)
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0C)
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = try hex4(b)
                if (0xD800...0xDBFF).contains(scalar) {
                    guard i + 1 < b.count, b[i] == Self.backslash, b[i + 1] == UInt8(ascii: "u") else {
                        throw JSONSyntaxError(message: "a \\u escape of a high surrogate must be followed by a low surrogate", offset: i)
                    }
                    i += 2
                    let low = try hex4(b)
                    guard (0xDC00...0xDFFF).contains(low) else {
                        throw JSONSyntaxError(message: "invalid low surrogate in \\u escape", offset: i - 4)
                    }
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                } else if (0xDC00...0xDFFF).contains(scalar) {
                    throw JSONSyntaxError(message: "a lone low surrogate in \\u escape", offset: i - 4)
                }
                out.append(contentsOf: String(Character(Unicode.Scalar(scalar)!)).utf8)
            default:
                throw JSONSyntaxError(message: "invalid escape '\\\(Character(Unicode.Scalar(e)))'", offset: i - 2)
            }
        }
        throw JSONSyntaxError(message: "unterminated string", offset: open)
    }

    private mutating func number(_ b: Span<UInt8>) throws(JSONSyntaxError) -> Double {
        let start = i
        func digits(_ l: inout Lexer) -> Int {
            let s = l.i
            while l.i < b.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(b[l.i]) { l.i += 1 }
            return l.i - s
        }
        if b[i] == UInt8(ascii: "-") { i += 1 }
        guard i < b.count else { throw JSONSyntaxError(message: "unfinished number", offset: start) }
        if b[i] == UInt8(ascii: "0") {
            i += 1
            if i < b.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(b[i]) {
                throw JSONSyntaxError(message: "numbers may not have leading zeros", offset: start)
            }
        } else if digits(&self) == 0 {
            throw JSONSyntaxError(message: "unexpected \(describe(b, i)) in a number", offset: i)
        }
        if i < b.count, b[i] == UInt8(ascii: ".") {
            i += 1
            if digits(&self) == 0 { throw JSONSyntaxError(message: "expected digits after the decimal point", offset: i) }
        }
        if i < b.count, b[i] == UInt8(ascii: "e") || b[i] == UInt8(ascii: "E") {
            i += 1
            if i < b.count, b[i] == UInt8(ascii: "+") || b[i] == UInt8(ascii: "-") { i += 1 }
            if digits(&self) == 0 { throw JSONSyntaxError(message: "expected digits in the exponent", offset: i) }
        }
        if i - start > JSONReaderLimits.maxNumberCharacters {
            throw JSONSyntaxError(message: "a number longer than \(JSONReaderLimits.maxNumberCharacters) characters", offset: start)
        }
        let text = Self.text(b, start..<i)
        guard let value = Double(text), value.isFinite else {
            throw JSONSyntaxError(message: "the number \(text) is out of range", offset: start)
        }
        return value
    }
}
