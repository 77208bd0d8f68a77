/// A JSON value with the byte offset where it starts, so every diagnostic can name its place.
///
/// ```swift
/// let node = try JSONReader.parse(Array(#"{"a": [1, true]}"#.utf8))
/// node.object?.first?.key     // "a"
/// ```
public struct JSONNode: Sendable {
    /// The value.
    public enum Value: Sendable {
        case null
        case bool(Bool)
        case number(Double)
        case string(String)
        case array([JSONNode])
        /// Members in file order, with the offset of each key.
        case object([JSONMember])
    }
    /// The value.
    public var value: Value
    /// Byte offset of the value's first byte in the source.
    public var offset: Int

    /// The members, when this is an object.
    public var object: [JSONMember]? {
        if case .object(let m) = value { return m }
        return nil
    }

    /// A short name of the value's JSON type, for error messages ("string", "object", …).
    public var typeName: String {
        switch value {
        case .null: return "null"
        case .bool: return "boolean"
        case .number: return "number"
        case .string: return "string"
        case .array: return "array"
        case .object: return "object"
        }
    }
}

/// A key and its value inside a JSON object.
public struct JSONMember: Sendable {
    /// The key.
    public var key: String
    /// Byte offset of the key's opening quote.
    public var keyOffset: Int
    /// The value.
    public var value: JSONNode
}

/// Why a JSON text could not be read; `offset` is the byte where reading stopped.
public struct JSONSyntaxError: Error, Hashable, Sendable {
    /// A sentence saying what is wrong.
    public var message: String
    /// Byte offset of the problem.
    public var offset: Int
}

/// Limits that keep reading bounded in time and memory whatever the input.
///
/// ```swift
/// var limits = JSONReader.Limits()
/// limits.maxDepth = 32
/// ```
public struct JSONReaderLimits: Hashable, Sendable {
    /// The largest input, in bytes (default 96 MiB: room for a 1,000,000-block flow).
    public var maxBytes = 96 << 20
    /// The deepest nesting of arrays and objects (default 64).
    public var maxDepth = 64
    /// The longest string, in bytes of UTF-8 (default 64 KiB).
    public var maxStringBytes = 64 << 10

    /// The default limits.
    public init() {}
}

/// A strict JSON reader (RFC 8259) over UTF-8 bytes that records where each value starts.
///
/// It refuses invalid UTF-8, duplicate-free checking is left to callers, and the limits in
/// ``JSONReaderLimits`` bound depth, string length and input size, so hostile input yields a
/// ``JSONSyntaxError`` rather than a crash.
///
/// ```swift
/// do {
///     let root = try JSONReader.parse(Array("[1, 2".utf8))
/// } catch let error as JSONSyntaxError {
///     print(error.message, error.offset)   // "expected ',' or ']' …" 5
/// }
/// ```
public struct JSONReader {
    private let bytes: [UInt8]
    private var index = 0
    private var depth = 0
    private let limits: JSONReaderLimits

    /// Parses a whole document; trailing non-space bytes are an error.
    public static func parse(_ bytes: [UInt8], limits: JSONReaderLimits = JSONReaderLimits()) throws(JSONSyntaxError) -> JSONNode {
        if bytes.count > limits.maxBytes {
            throw JSONSyntaxError(message: "the file is \(bytes.count) bytes; the limit is \(limits.maxBytes) bytes", offset: 0)
        }
        if let bad = firstInvalidUTF8(bytes) {
            throw JSONSyntaxError(message: "invalid UTF-8 (byte 0x\(String(bytes[bad], radix: 16, uppercase: true)))", offset: bad)
        }
        var reader = JSONReader(bytes: bytes, limits: limits)
        var start = 0
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { start = 3 }  // tolerate a byte-order mark
        reader.index = start
        reader.skipSpace()
        guard reader.index < bytes.count else { throw JSONSyntaxError(message: "the file is empty; expected a JSON object", offset: reader.index) }
        let node = try reader.readValue()
        reader.skipSpace()
        if reader.index < bytes.count {
            throw JSONSyntaxError(message: "unexpected \(reader.describe(reader.index)) after the end of the JSON value", offset: reader.index)
        }
        return node
    }

    /// The offset of the first byte that is not valid UTF-8, or nil.
    public static func firstInvalidUTF8(_ bytes: [UInt8]) -> Int? {
        var i = 0
        let n = bytes.count
        return bytes.withUnsafeBufferPointer { b -> Int? in
            while i < n {
                let c = b[i]
                if c < 0x80 { i += 1; continue }
                var need = 0
                var minScalar: UInt32 = 0
                var scalar: UInt32 = 0
                switch c {
                case 0xC2...0xDF: need = 1; scalar = UInt32(c & 0x1F); minScalar = 0x80
                case 0xE0...0xEF: need = 2; scalar = UInt32(c & 0x0F); minScalar = 0x800
                case 0xF0...0xF4: need = 3; scalar = UInt32(c & 0x07); minScalar = 0x10000
                default: return i
                }
                for k in 1...need {
                    guard i + k < n else { return i }
                    let cc = b[i + k]
                    guard cc & 0xC0 == 0x80 else { return i }
                    scalar = scalar << 6 | UInt32(cc & 0x3F)
                }
                if scalar < minScalar || scalar > 0x10FFFF || (0xD800...0xDFFF).contains(scalar) { return i }
                i += need + 1
            }
            return nil
        }
    }

    private init(bytes: [UInt8], limits: JSONReaderLimits) {
        self.bytes = bytes
        self.limits = limits
    }

    private func describe(_ i: Int) -> String {
        guard i < bytes.count else { return "end of file" }
        let c = bytes[i]
        if c >= 0x21 && c < 0x7F { return "'\(Character(Unicode.Scalar(c)))'" }
        if c == 0x20 { return "space" }
        return "byte 0x\(String(c, radix: 16, uppercase: true))"
    }

    private mutating func skipSpace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    private mutating func readValue() throws(JSONSyntaxError) -> JSONNode {
        let start = index
        guard index < bytes.count else { throw JSONSyntaxError(message: "unexpected end of file; expected a value", offset: index) }
        switch bytes[index] {
        case UInt8(ascii: "{"): return JSONNode(value: .object(try readObject()), offset: start)
        case UInt8(ascii: "["): return JSONNode(value: .array(try readArray()), offset: start)
        case UInt8(ascii: "\""): return JSONNode(value: .string(try readString()), offset: start)
        case UInt8(ascii: "t"): try expectWord("true"); return JSONNode(value: .bool(true), offset: start)
        case UInt8(ascii: "f"): try expectWord("false"); return JSONNode(value: .bool(false), offset: start)
        case UInt8(ascii: "n"): try expectWord("null"); return JSONNode(value: .null, offset: start)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return JSONNode(value: .number(try readNumber()), offset: start)
        default:
            throw JSONSyntaxError(message: "unexpected \(describe(index)); expected a value", offset: index)
        }
    }

    private mutating func expectWord(_ word: StaticString) throws(JSONSyntaxError) {
        let start = index
        let w = word.withUTF8Buffer { Array($0) }
        for c in w {
            guard index < bytes.count, bytes[index] == c else {
                throw JSONSyntaxError(message: "unexpected \(describe(start)); expected a value", offset: start)
            }
            index += 1
        }
    }

    private mutating func enter() throws(JSONSyntaxError) {
        depth += 1
        if depth > limits.maxDepth {
            throw JSONSyntaxError(message: "nesting deeper than \(limits.maxDepth) levels", offset: index)
        }
    }

    private mutating func readObject() throws(JSONSyntaxError) -> [JSONMember] {
        try enter()
        index += 1
        var members: [JSONMember] = []
        skipSpace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") { index += 1; depth -= 1; return members }
        members.reserveCapacity(6)  // most objects of a flow have a handful of keys
        while true {
            skipSpace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
                throw JSONSyntaxError(message: "unexpected \(describe(index)); expected a quoted key", offset: index)
            }
            let keyOffset = index
            let key = try readString()
            skipSpace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else {
                throw JSONSyntaxError(message: "unexpected \(describe(index)); expected ':' after the key \"\(key)\"", offset: index)
            }
            index += 1
            skipSpace()
            let value = try readValue()
            members.append(JSONMember(key: key, keyOffset: keyOffset, value: value))
            skipSpace()
            guard index < bytes.count else { throw JSONSyntaxError(message: "unexpected end of file; expected ',' or '}'", offset: index) }
            if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
            if bytes[index] == UInt8(ascii: "}") { index += 1; depth -= 1; return members }
            throw JSONSyntaxError(message: "unexpected \(describe(index)); expected ',' or '}'", offset: index)
        }
    }

    private mutating func readArray() throws(JSONSyntaxError) -> [JSONNode] {
        try enter()
        index += 1
        var items: [JSONNode] = []
        skipSpace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") { index += 1; depth -= 1; return items }
        while true {
            skipSpace()
            items.append(try readValue())
            skipSpace()
            guard index < bytes.count else { throw JSONSyntaxError(message: "unexpected end of file; expected ',' or ']'", offset: index) }
            if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
            if bytes[index] == UInt8(ascii: "]") { index += 1; depth -= 1; return items }
            throw JSONSyntaxError(message: "unexpected \(describe(index)); expected ',' or ']'", offset: index)
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

    private mutating func readHex4() throws(JSONSyntaxError) -> UInt32 {
        guard index + 4 <= bytes.count else { throw JSONSyntaxError(message: "unfinished \\u escape", offset: index) }
        var v: UInt32 = 0
        for k in 0..<4 {
            guard let h = hexValue(bytes[index + k]) else {
                throw JSONSyntaxError(message: "invalid \\u escape: expected 4 hexadecimal digits", offset: index + k)
            }
            v = v << 4 | h
        }
        index += 4
        return v
    }

    private mutating func readString() throws(JSONSyntaxError) -> String {
        let open = index
        index += 1
        let start = index
        // Fast path: no escapes.
        while index < bytes.count {
            let c = bytes[index]
            if c == UInt8(ascii: "\"") {
                if index - start > limits.maxStringBytes { throw tooLong(open) }
                let s = String(decoding: bytes[start..<index], as: UTF8.self)
                index += 1
                return s
            }
            if c == UInt8(ascii: "\\") { break }
            if c < 0x20 {
                throw JSONSyntaxError(message: "control character 0x\(String(c, radix: 16, uppercase: true)) inside a string; escape it", offset: index)
            }
            index += 1
            if index - start > limits.maxStringBytes { throw tooLong(open) }
        }
        var out = Array(bytes[start..<index])
        while index < bytes.count {
            let c = bytes[index]
            if out.count > limits.maxStringBytes { throw tooLong(open) }
            if c == UInt8(ascii: "\"") {
                index += 1
                return String(decoding: out, as: UTF8.self)
            }
            if c < 0x20 {
                throw JSONSyntaxError(message: "control character 0x\(String(c, radix: 16, uppercase: true)) inside a string; escape it", offset: index)
            }
            if c != UInt8(ascii: "\\") { out.append(c); index += 1; continue }
            index += 1
            guard index < bytes.count else { break }
            let e = bytes[index]
            index += 1
            switch e {
            case UInt8(ascii: "\""): out.append(0x22)
            case UInt8(ascii: "\\"): out.append(0x5C)
            case UInt8(ascii: "/"): out.append(0x2F)
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0C)
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = try readHex4()
                if (0xD800...0xDBFF).contains(scalar) {
                    guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                        throw JSONSyntaxError(message: "a \\u escape of a high surrogate must be followed by a low surrogate", offset: index)
                    }
                    index += 2
                    let low = try readHex4()
                    guard (0xDC00...0xDFFF).contains(low) else {
                        throw JSONSyntaxError(message: "invalid low surrogate in \\u escape", offset: index - 4)
                    }
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                } else if (0xDC00...0xDFFF).contains(scalar) {
                    throw JSONSyntaxError(message: "a lone low surrogate in \\u escape", offset: index - 4)
                }
                out.append(contentsOf: Array(String(Character(Unicode.Scalar(scalar)!)).utf8))
            default:
                throw JSONSyntaxError(message: "invalid escape '\\\(Character(Unicode.Scalar(e)))'", offset: index - 2)
            }
        }
        throw JSONSyntaxError(message: "unterminated string", offset: open)
    }

    private func tooLong(_ open: Int) -> JSONSyntaxError {
        JSONSyntaxError(message: "a string longer than \(limits.maxStringBytes) bytes", offset: open)
    }

    private mutating func readNumber() throws(JSONSyntaxError) -> Double {
        let start = index
        func digits(_ r: inout JSONReader) -> Int {
            let s = r.index
            while r.index < r.bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(r.bytes[r.index]) { r.index += 1 }
            return r.index - s
        }
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        guard index < bytes.count else { throw JSONSyntaxError(message: "unfinished number", offset: start) }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
            if index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) {
                throw JSONSyntaxError(message: "numbers may not have leading zeros", offset: start)
            }
        } else if digits(&self) == 0 {
            throw JSONSyntaxError(message: "unexpected \(describe(index)) in a number", offset: index)
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            if digits(&self) == 0 { throw JSONSyntaxError(message: "expected digits after the decimal point", offset: index) }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            if digits(&self) == 0 { throw JSONSyntaxError(message: "expected digits in the exponent", offset: index) }
        }
        if index - start > 64 { throw JSONSyntaxError(message: "a number longer than 64 characters", offset: start) }
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        guard let value = Double(text), value.isFinite else {
            throw JSONSyntaxError(message: "the number \(text) is out of range", offset: start)
        }
        return value
    }
}

/// Turns byte offsets into 1-based line and column numbers (columns count characters).
///
/// ```swift
/// let lines = SourceLines(Array("a\nbé c".utf8))
/// lines.position(of: 5)   // (line: 2, column: 3)
/// ```
public struct SourceLines: Sendable {
    private let lineStarts: [Int]
    private let bytes: [UInt8]

    /// Indexes the line starts of `bytes`.
    public init(_ bytes: [UInt8]) {
        var starts = [0]
        bytes.withUnsafeBufferPointer { buffer in
            for i in buffer.indices where buffer[i] == 0x0A { starts.append(i + 1) }
        }
        self.lineStarts = starts
        self.bytes = bytes
    }

    /// The 1-based line and column of a byte offset.
    public func position(of offset: Int) -> (line: Int, column: Int) {
        let offset = max(0, min(offset, bytes.count))
        var lo = 0, hi = lineStarts.count - 1
        while lo < hi {
            let mid = (lo + hi + 1) / 2
            if lineStarts[mid] <= offset { lo = mid } else { hi = mid - 1 }
        }
        var column = 1
        var i = lineStarts[lo]
        while i < offset {
            if bytes[i] & 0xC0 != 0x80 { column += 1 }
            i += 1
        }
        return (lo + 1, column)
    }

    /// The positions of many offsets at once, in one sweep over each line they fall on (so a
    /// one-line file with thousands of diagnostics costs the line's length once, not per offset).
    public func positions(of offsets: [Int]) -> [(line: Int, column: Int)] {
        var out = [(line: Int, column: Int)](repeating: (1, 1), count: offsets.count)
        let order = offsets.indices.sorted { offsets[$0] < offsets[$1] }
        var line = -1, at = 0, column = 1
        for k in order {
            let offset = max(0, min(offsets[k], bytes.count))
            var lo = 0, hi = lineStarts.count - 1
            while lo < hi {
                let mid = (lo + hi + 1) / 2
                if lineStarts[mid] <= offset { lo = mid } else { hi = mid - 1 }
            }
            if lo != line {
                line = lo
                at = lineStarts[lo]
                column = 1
            }
            while at < offset {
                if bytes[at] & 0xC0 != 0x80 { column += 1 }
                at += 1
            }
            out[k] = (lo + 1, column)
        }
        return out
    }
}
