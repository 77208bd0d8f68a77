/// Why a stored document does not have the shape its format states: a sentence naming the
/// place (`state.blocks[2].fired`).
package struct JSONShapeError: Error, Hashable, Sendable {
    /// What kind of problem it is.
    package enum Kind: Hashable, Sendable {
        /// A key the object does not have.
        case unknownField
        /// A key given twice.
        case repeatedField
        /// Anything else: a missing field, a wrong type, a value out of its range.
        case other
    }
    /// A sentence saying what is wrong, and where.
    package var message: String
    /// What kind of problem it is.
    package var kind: Kind
    /// The key concerned, for an unknown or repeated field.
    package var key: String?

    package init(_ message: String, kind: Kind = .other, key: String? = nil) {
        self.message = message
        self.kind = kind
        self.key = key
    }
}

/// One JSON object of a stored format, read strictly from a tape: unknown and repeated keys
/// are refused, every value is checked for its type as it is taken, and every error names the
/// path. Stored formats (snapshots, the server's conversations) are read with it directly,
/// without a tree or `Codable` between the bytes and the value.
///
/// ```swift
/// let tape = try JSONTape.parse(bytes)
/// let top = try JSONFields(tape, 0, path: "", allowed: ["format", "version"])
/// let version = try top.int("version")
/// ```
package struct JSONFields {
    package let tape: JSONTape
    /// The object's entry.
    package let entry: Int
    /// Its path, for messages ("" at the top).
    package let path: String

    /// Checks that `entry` is an object whose keys are all in `allowed`, each once.
    package init(_ tape: JSONTape, _ entry: Int, path: String, allowed: [String]) throws(JSONShapeError) {
        guard tape.kind(entry) == .object else {
            throw JSONShapeError("\(Self.name(path)) must be an object, not \(tape.typeName(entry))")
        }
        var seen: UInt64 = 0
        var j = entry + 1
        for _ in 0..<tape.count(entry) {
            guard let k = tape.index(ofKey: j, in: allowed) else {
                let key = tape.string(j) ?? ""
                throw JSONShapeError("unknown field \"\(key)\" in \(Self.name(path))", kind: .unknownField, key: key)
            }
            if k < 64 {
                if seen & (1 << k) != 0 {
                    throw JSONShapeError("the key \"\(allowed[k])\" appears twice in \(Self.name(path))", kind: .repeatedField, key: allowed[k])
                }
                seen |= 1 << k
            }
            j = tape.next(after: j + 1)
        }
        self.tape = tape
        self.entry = entry
        self.path = path
    }

    /// "the document" or the path in quotes.
    static func name(_ path: String) -> String { path.isEmpty ? "the document" : "\"\(path)\"" }

    /// The path of a member.
    package func child(_ key: String) -> String { path.isEmpty ? key : path + "." + key }

    /// The value entry of `key`, or nil when it is absent or null.
    package func member(_ key: String) -> Int? {
        guard let v = tape.member(of: entry, key), tape.kind(v) != .null else { return nil }
        return v
    }

    /// The value entry of `key`, which must be there.
    package func required(_ key: String) throws(JSONShapeError) -> Int {
        guard let v = member(key) else { throw JSONShapeError("\"\(child(key))\" is missing") }
        return v
    }

    /// A nested object.
    package func object(_ key: String, allowed: [String]) throws(JSONShapeError) -> JSONFields {
        try JSONFields(tape, try required(key), path: child(key), allowed: allowed)
    }

    /// A nested object that may be absent.
    package func optionalObject(_ key: String, allowed: [String]) throws(JSONShapeError) -> JSONFields? {
        guard let v = member(key) else { return nil }
        return try JSONFields(tape, v, path: child(key), allowed: allowed)
    }

    package func string(_ key: String) throws(JSONShapeError) -> String {
        try Self.string(tape, try required(key), path: child(key))
    }

    package func optionalString(_ key: String) throws(JSONShapeError) -> String? {
        guard let v = member(key) else { return nil }
        return try Self.string(tape, v, path: child(key))
    }

    package func bool(_ key: String) throws(JSONShapeError) -> Bool {
        try Self.bool(tape, try required(key), path: child(key))
    }

    /// A boolean that is false when absent.
    package func flag(_ key: String) throws(JSONShapeError) -> Bool {
        guard let v = member(key) else { return false }
        return try Self.bool(tape, v, path: child(key))
    }

    package func int(_ key: String) throws(JSONShapeError) -> Int {
        try Self.int(tape, try required(key), path: child(key))
    }

    package func optionalInt(_ key: String) throws(JSONShapeError) -> Int? {
        guard let v = member(key) else { return nil }
        return try Self.int(tape, v, path: child(key))
    }

    package func double(_ key: String) throws(JSONShapeError) -> Double {
        try Self.double(tape, try required(key), path: child(key))
    }

    /// The entries of an array member (absent: empty).
    package func items(_ key: String) throws(JSONShapeError) -> [Int] {
        guard let v = member(key) else { return [] }
        return try Self.items(tape, v, path: child(key))
    }

    /// The members of an object member, as (key, value entry), in file order (absent: none).
    package func entries(_ key: String) throws(JSONShapeError) -> [(key: String, value: Int)] {
        guard let v = member(key) else { return [] }
        guard tape.kind(v) == .object else { throw JSONShapeError("\"\(child(key))\" must be an object, not \(tape.typeName(v))") }
        var out: [(String, Int)] = []
        var seen = Set<String>()
        var j = v + 1
        for _ in 0..<tape.count(v) {
            let name = tape.string(j) ?? ""
            guard seen.insert(name).inserted else { throw JSONShapeError("the key \"\(name)\" appears twice in \"\(child(key))\"") }
            out.append((name, j + 1))
            j = tape.next(after: j + 1)
        }
        return out
    }

    // MARK: Values

    package static func string(_ tape: JSONTape, _ v: Int, path: String) throws(JSONShapeError) -> String {
        guard let s = tape.string(v) else { throw JSONShapeError("\"\(path)\" must be a string, not \(tape.typeName(v))") }
        return s
    }

    package static func bool(_ tape: JSONTape, _ v: Int, path: String) throws(JSONShapeError) -> Bool {
        guard let b = tape.bool(v) else { throw JSONShapeError("\"\(path)\" must be true or false, not \(tape.typeName(v))") }
        return b
    }

    /// A whole number that a `Double` holds exactly (|n| ≤ 2⁵³).
    package static func int(_ tape: JSONTape, _ v: Int, path: String) throws(JSONShapeError) -> Int {
        guard let n = tape.number(v), n == n.rounded(), abs(n) <= 9_007_199_254_740_992 else {
            throw JSONShapeError("\"\(path)\" must be a whole number, not \(tape.number(v).map { String($0) } ?? tape.typeName(v))")
        }
        return Int(n)
    }

    package static func double(_ tape: JSONTape, _ v: Int, path: String) throws(JSONShapeError) -> Double {
        guard let n = tape.number(v) else { throw JSONShapeError("\"\(path)\" must be a number, not \(tape.typeName(v))") }
        return n
    }

    package static func items(_ tape: JSONTape, _ v: Int, path: String) throws(JSONShapeError) -> [Int] {
        guard tape.kind(v) == .array else { throw JSONShapeError("\"\(path)\" must be an array, not \(tape.typeName(v))") }
        var out: [Int] = []
        out.reserveCapacity(tape.count(v))
        var j = v + 1
        for _ in 0..<tape.count(v) {
            out.append(j)
            j = tape.next(after: j)
        }
        return out
    }

    /// One of `words` (an enumeration spelled as words).
    package static func word<E: RawRepresentable & CaseIterable>(_ tape: JSONTape, _ v: Int, path: String, _: E.Type) throws(JSONShapeError) -> E
    where E.RawValue == String {
        let s = try string(tape, v, path: path)
        guard let e = E(rawValue: s) else {
            throw JSONShapeError("\"\(path)\" must be one of \(E.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")), not \"\(s)\"")
        }
        return e
    }

    package func word<E: RawRepresentable & CaseIterable>(_ key: String, _ type: E.Type) throws(JSONShapeError) -> E where E.RawValue == String {
        try Self.word(tape, try required(key), path: child(key), type)
    }
}
