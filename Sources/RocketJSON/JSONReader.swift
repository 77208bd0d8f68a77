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
        let kind: JSONTape.Kind
        switch value {
        case .null: kind = .null
        case .bool: kind = .bool
        case .number: kind = .number
        case .string: kind = .string
        case .array: kind = .array
        case .object: kind = .object
        }
        return kind.name
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
/// var limits = JSONReaderLimits()
/// limits.maxDepth = 32
/// ```
public struct JSONReaderLimits: Hashable, Sendable {
    /// The largest input, in bytes (default 96 MiB: room for a 1,000,000-block flow).
    public var maxBytes = 96 << 20
    /// The deepest nesting of arrays and objects (default 64).
    public var maxDepth = 64
    /// The longest string, in bytes of UTF-8 (default 64 KiB).
    public var maxStringBytes = 64 << 10
    /// The longest number, in characters (RocketCore's `RocketLimits` states every limit; a test
    /// holds these defaults equal to it, as this module depends on nothing).
    public static let maxNumberCharacters = 64

    /// The default limits.
    public init() {}
}

/// A strict JSON reader (RFC 8259) over UTF-8 bytes that records where each value starts.
///
/// It refuses invalid UTF-8, duplicate-free checking is left to callers, and the limits in
/// ``JSONReaderLimits`` bound depth, string length and input size, so hostile input yields a
/// ``JSONSyntaxError`` rather than a crash. Reading is one loop without recursion, and so is
/// building the tree afterwards (releasing a tree recurses per level: keep `maxDepth` modest).
///
/// ```swift
/// do {
///     let root = try JSONReader.parse(Array("[1, 2".utf8))
/// } catch let error as JSONSyntaxError {
///     print(error.message, error.offset)   // "expected ',' or ']' …" 5
/// }
/// ```
public enum JSONReader {
    /// Parses a whole document; trailing non-space bytes are an error.
    public static func parse(_ bytes: [UInt8], limits: JSONReaderLimits = JSONReaderLimits()) throws(JSONSyntaxError) -> JSONNode {
        try JSONTape.parse(bytes, limits: limits).node()
    }

    /// The offset of the first byte that is not valid UTF-8, or nil.
    public static func firstInvalidUTF8(_ bytes: [UInt8]) -> Int? {
        let n = bytes.count
        let b = bytes.span
        let raw = b.bytes
        var i = 0
        while i < n {
            // Eight ASCII bytes at a time: the common case of a flow file (the load is
            // checked against the span's bounds like every other read here).
            if i + 8 <= n, raw.unsafeLoadUnaligned(fromByteOffset: i, as: UInt64.self) & 0x8080_8080_8080_8080 == 0 {
                i += 8
                continue
            }
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

/// Turns byte offsets into 1-based line and column numbers (columns count characters).
///
/// ```swift
/// let lines = SourceLines(Array("a\nbé c".utf8))
/// lines.position(of: 5)   // (line: 2, column: 3)
/// ```
public struct SourceLines: Sendable {
    private let bytes: [UInt8]

    /// Keeps `bytes`; nothing is indexed until a position is asked for (most loads have no
    /// diagnostics to place).
    public init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// The 1-based line and column of a byte offset.
    public func position(of offset: Int) -> (line: Int, column: Int) {
        positions(of: [offset])[0]
    }

    /// The positions of many offsets at once, in one sweep from the start of the text to the
    /// largest offset (so thousands of diagnostics cost one pass, not one per offset).
    public func positions(of offsets: [Int]) -> [(line: Int, column: Int)] {
        var out = [(line: Int, column: Int)](repeating: (1, 1), count: offsets.count)
        let order = offsets.indices.sorted { offsets[$0] < offsets[$1] }
        var line = 1, column = 1, at = 0
        let b = bytes.span
        for k in order {
            let offset = max(0, min(offsets[k], b.count))
            while at < offset {
                let c = b[at]
                if c == 0x0A {
                    line += 1
                    column = 1
                } else if c & 0xC0 != 0x80 {
                    column += 1
                }
                at += 1
            }
            out[k] = (line, column)
        }
        return out
    }
}
