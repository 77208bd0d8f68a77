/// `Codable` values to and from ``JSONValue``, without Foundation.
///
/// Keys keep the order in which a type encodes them; dictionaries with `String` keys are written
/// with sorted keys, so the same value always gives the same text.
///
/// ```swift
/// struct Point: Codable { var x: Int; var y: Int }
/// let json = try JSONCoding.encode(Point(x: 1, y: 2))        // {"x":1,"y":2}
/// let back = try JSONCoding.decode(Point.self, from: json)
/// let text = try JSONCoding.encode(Point(x: 1, y: 2)).serialized(pretty: false)
/// let again = try JSONCoding.decode(Point.self, fromText: Array(text.utf8))
/// ```
public enum JSONCoding {
    /// Why a value could not be encoded or decoded: a sentence naming the place (`a.b[2]`).
    public struct Failure: Error, Hashable, Sendable, CustomStringConvertible {
        /// The sentence.
        public var message: String
        /// The sentence.
        public var description: String { message }
    }

    /// Encodes `value` as a JSON value.
    public static func encode<T: Encodable>(_ value: T) throws(Failure) -> JSONValue {
        let root = EncodingNode()
        do {
            try value.encode(to: ValueEncoder(node: root, path: []))
        } catch let failure as Failure {
            throw failure
        } catch {
            throw Failure(message: "cannot encode: \(error)")
        }
        return root.resolved()
    }

    /// Decodes a `T` from a JSON value.
    public static func decode<T: Decodable>(_ type: T.Type, from value: JSONValue) throws(Failure) -> T {
        do {
            return try T(from: ValueDecoder(value: value, path: []))
        } catch let failure as Failure {
            throw failure
        } catch {
            throw Failure(message: "cannot decode: \(error)")
        }
    }

    /// Parses JSON text (with ``JSONReader``'s limits) and decodes a `T` from it.
    public static func decode<T: Decodable>(
        _ type: T.Type, fromText bytes: [UInt8],
        limits: JSONReaderLimits = JSONReaderLimits()
    ) throws(Failure) -> T {
        let node: JSONNode
        do {
            node = try JSONReader.parse(bytes, limits: limits)
        } catch {
            throw Failure(message: "\(error.message) (byte \(error.offset))")
        }
        return try decode(type, from: node.plainValue)
    }

    static func pathText(_ path: [any CodingKey]) -> String {
        var out = ""
        for key in path {
            if let i = key.intValue, key.stringValue == "Index \(i)" || key.stringValue == String(i) {
                out += "[\(i)]"
            } else {
                out += out.isEmpty ? key.stringValue : "." + key.stringValue
            }
        }
        return out.isEmpty ? "the top level" : out
    }
}

extension JSONNode {
    /// The value without source offsets.
    public var plainValue: JSONValue {
        switch value {
        case .null: return .null
        case .bool(let b): return .bool(b)
        case .number(let n): return .number(n)
        case .string(let s): return .string(s)
        case .array(let items): return .array(items.map(\.plainValue))
        case .object(let members): return .object(members.map { ($0.key, $0.value.plainValue) })
        }
    }
}

// MARK: Encoding

/// A value being built: a leaf, or an object or array whose children are filled in later.
final class EncodingNode {
    enum Content {
        case leaf(JSONValue)
        case object([(String, EncodingNode)])
        case array([EncodingNode])
    }
    var content: Content = .leaf(.null)

    func resolved() -> JSONValue {
        switch content {
        case .leaf(let v): return v
        case .object(let members): return .object(members.map { ($0.0, $0.1.resolved()) })
        case .array(let items): return .array(items.map { $0.resolved() })
        }
    }

    func makeObject() {
        if case .object = content { return }
        content = .object([])
    }

    func makeArray() {
        if case .array = content { return }
        content = .array([])
    }

    /// Member positions by key, once an object is large enough for a scan to cost.
    private var index: [String: Int]?

    func child(forKey key: String) -> EncodingNode {
        makeObject()
        guard case .object(var members) = content else { return EncodingNode() }
        if let index {
            if let at = index[key] { return members[at].1 }
        } else if let existing = members.first(where: { $0.0 == key }) {
            return existing.1
        }
        content = .leaf(.null)  // the array is uniquely referenced again: the append does not copy it
        let node = EncodingNode()
        members.append((key, node))
        if index != nil {
            index?[key] = members.count - 1
        } else if members.count >= 16 {
            var built: [String: Int] = [:]
            for (i, m) in members.enumerated() { built[m.0] = i }
            index = built
        }
        content = .object(members)
        return node
    }

    func appendChild() -> EncodingNode {
        makeArray()
        guard case .array(var items) = content else { return EncodingNode() }
        content = .leaf(.null)  // the array is uniquely referenced again: the append does not copy it
        let node = EncodingNode()
        items.append(node)
        content = .array(items)
        return node
    }

    var count: Int {
        if case .array(let items) = content { return items.count }
        return 0
    }
}

struct IndexKey: CodingKey {
    var stringValue: String
    var intValue: Int?
    init(_ i: Int) { stringValue = String(i); intValue = i }
    init?(stringValue: String) { self.stringValue = stringValue; intValue = Int(stringValue) }
    init?(intValue: Int) { self.init(intValue) }
}

func encodeLeaf<T: Encodable>(_ value: T, into node: EncodingNode, path: [any CodingKey]) throws {
    switch value {
    case let v as String: node.content = .leaf(.string(v))
    case let v as Bool: node.content = .leaf(.bool(v))
    case let v as Double:
        guard v.isFinite else { throw JSONCoding.Failure(message: "\(JSONCoding.pathText(path)): \(v) is not a JSON number") }
        node.content = .leaf(.number(v))
    case let v as Float:
        guard v.isFinite else { throw JSONCoding.Failure(message: "\(JSONCoding.pathText(path)): \(v) is not a JSON number") }
        node.content = .leaf(.number(Double(v)))
    case let v as Int: node.content = .leaf(.number(Double(v)))
    case let v as Int64: node.content = .leaf(.number(Double(v)))
    case let v as Int32: node.content = .leaf(.number(Double(v)))
    case let v as UInt8: node.content = .leaf(.number(Double(v)))
    case let v as UInt32: node.content = .leaf(.number(Double(v)))
    case let v as UInt64: node.content = .leaf(.number(Double(v)))
    case let v as [String: String]:
        node.content = .leaf(.object(v.sorted { $0.key < $1.key }.map { ($0.key, .string($0.value)) }))
    default:
        try value.encode(to: ValueEncoder(node: node, path: path))
        if case .object(let members) = node.content, isStringKeyedDictionary(value) {
            node.content = .object(members.sorted { $0.0 < $1.0 })
        }
    }
}

private func isStringKeyedDictionary<T>(_ value: T) -> Bool {
    value is any StringKeyedDictionary
}

private protocol StringKeyedDictionary {}
extension Dictionary: StringKeyedDictionary where Key == String {}

struct ValueEncoder: Encoder {
    let node: EncodingNode
    let path: [any CodingKey]
    var codingPath: [any CodingKey] { path }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        node.makeObject()
        return KeyedEncodingContainer(KeyedEncoder<Key>(node: node, path: path))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        node.makeArray()
        return UnkeyedEncoder(node: node, path: path)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer { SingleEncoder(node: node, path: path) }
}

struct KeyedEncoder<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let node: EncodingNode
    let path: [any CodingKey]
    var codingPath: [any CodingKey] { path }

    mutating func encodeNil(forKey key: Key) throws { node.child(forKey: key.stringValue).content = .leaf(.null) }
    // The common leaves directly: no dynamic cast, no coding path built.
    mutating func encode(_ value: String, forKey key: Key) throws { node.child(forKey: key.stringValue).content = .leaf(.string(value)) }
    mutating func encode(_ value: Bool, forKey key: Key) throws { node.child(forKey: key.stringValue).content = .leaf(.bool(value)) }
    mutating func encode(_ value: Int, forKey key: Key) throws { node.child(forKey: key.stringValue).content = .leaf(.number(Double(value))) }
    mutating func encode(_ value: Double, forKey key: Key) throws {
        guard value.isFinite else { throw JSONCoding.Failure(message: "\(JSONCoding.pathText(path + [key])): \(value) is not a JSON number") }
        node.child(forKey: key.stringValue).content = .leaf(.number(value))
    }
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        try encodeLeaf(value, into: node.child(forKey: key.stringValue), path: path + [key])
    }
    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        let child = node.child(forKey: key.stringValue)
        child.makeObject()
        return KeyedEncodingContainer(KeyedEncoder<NestedKey>(node: child, path: path + [key]))
    }
    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let child = node.child(forKey: key.stringValue)
        child.makeArray()
        return UnkeyedEncoder(node: child, path: path + [key])
    }
    mutating func superEncoder() -> any Encoder { ValueEncoder(node: node.child(forKey: "super"), path: path) }
    mutating func superEncoder(forKey key: Key) -> any Encoder { ValueEncoder(node: node.child(forKey: key.stringValue), path: path + [key]) }
}

struct UnkeyedEncoder: UnkeyedEncodingContainer {
    let node: EncodingNode
    let path: [any CodingKey]
    var codingPath: [any CodingKey] { path }
    var count: Int { node.count }

    mutating func encodeNil() throws { node.appendChild().content = .leaf(.null) }
    mutating func encode(_ value: String) throws { node.appendChild().content = .leaf(.string(value)) }
    mutating func encode(_ value: Bool) throws { node.appendChild().content = .leaf(.bool(value)) }
    mutating func encode(_ value: Int) throws { node.appendChild().content = .leaf(.number(Double(value))) }
    mutating func encode(_ value: Double) throws {
        guard value.isFinite else { throw JSONCoding.Failure(message: "\(JSONCoding.pathText(path + [IndexKey(count)])): \(value) is not a JSON number") }
        node.appendChild().content = .leaf(.number(value))
    }
    mutating func encode<T: Encodable>(_ value: T) throws {
        let key = IndexKey(count)
        try encodeLeaf(value, into: node.appendChild(), path: path + [key])
    }
    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        let key = IndexKey(count)
        let child = node.appendChild()
        child.makeObject()
        return KeyedEncodingContainer(KeyedEncoder<NestedKey>(node: child, path: path + [key]))
    }
    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let key = IndexKey(count)
        let child = node.appendChild()
        child.makeArray()
        return UnkeyedEncoder(node: child, path: path + [key])
    }
    mutating func superEncoder() -> any Encoder { ValueEncoder(node: node.appendChild(), path: path) }
}

struct SingleEncoder: SingleValueEncodingContainer {
    let node: EncodingNode
    let path: [any CodingKey]
    var codingPath: [any CodingKey] { path }

    mutating func encodeNil() throws { node.content = .leaf(.null) }
    mutating func encode<T: Encodable>(_ value: T) throws { try encodeLeaf(value, into: node, path: path) }
}

// MARK: Decoding

func decodeFailure(_ path: [any CodingKey], _ what: String) -> JSONCoding.Failure {
    JSONCoding.Failure(message: "\(JSONCoding.pathText(path)): \(what)")
}

func typeName(_ v: JSONValue) -> String {
    switch v {
    case .null: return "null"
    case .bool: return "a boolean"
    case .number: return "a number"
    case .string: return "a string"
    case .array: return "an array"
    case .object: return "an object"
    }
}

func decodeLeaf<T: Decodable>(_ type: T.Type, from value: JSONValue, path: [any CodingKey]) throws -> T {
    func number() throws -> Double {
        guard case .number(let n) = value else { throw decodeFailure(path, "expected a number, found \(typeName(value))") }
        return n
    }
    func integer<I: BinaryInteger>(_: I.Type) throws -> I {
        let n = try number()
        guard n == n.rounded(), let i = I(exactly: n) else { throw decodeFailure(path, "\(n) is not a whole number in range") }
        return i
    }
    switch type {
    case is String.Type:
        guard case .string(let s) = value else { throw decodeFailure(path, "expected a string, found \(typeName(value))") }
        return s as! T
    case is Bool.Type:
        guard case .bool(let b) = value else { throw decodeFailure(path, "expected true or false, found \(typeName(value))") }
        return b as! T
    case is Double.Type: return try number() as! T
    case is Float.Type: return Float(try number()) as! T
    case is Int.Type: return try integer(Int.self) as! T
    case is Int64.Type: return try integer(Int64.self) as! T
    case is Int32.Type: return try integer(Int32.self) as! T
    case is UInt8.Type: return try integer(UInt8.self) as! T
    case is UInt32.Type: return try integer(UInt32.self) as! T
    case is UInt64.Type: return try integer(UInt64.self) as! T
    default: return try T(from: ValueDecoder(value: value, path: path))
    }
}

struct ValueDecoder: Decoder {
    let value: JSONValue
    let path: [any CodingKey]
    var codingPath: [any CodingKey] { path }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .object(let members) = value else { throw decodeFailure(path, "expected an object, found \(typeName(value))") }
        var map: [String: JSONValue] = [:]
        map.reserveCapacity(members.count)
        for (k, v) in members { map[k] = v }
        return KeyedDecodingContainer(KeyedDecoder<Key>(members: map, order: members.map(\.0), path: path))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .array(let items) = value else { throw decodeFailure(path, "expected an array, found \(typeName(value))") }
        return UnkeyedDecoder(items: items, path: path)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { SingleDecoder(value: value, path: path) }
}

struct KeyedDecoder<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let members: [String: JSONValue]
    let order: [String]
    let path: [any CodingKey]
    var codingPath: [any CodingKey] { path }
    var allKeys: [Key] { order.compactMap { Key(stringValue: $0) } }

    func contains(_ key: Key) -> Bool { members[key.stringValue] != nil }

    private func value(_ key: Key) throws -> JSONValue {
        guard let v = members[key.stringValue] else { throw decodeFailure(path + [key], "missing") }
        return v
    }

    func decodeNil(forKey key: Key) throws -> Bool {
        if case .null = try value(key) { return true }
        return false
    }
    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try decodeLeaf(type, from: try value(key), path: path + [key])
    }
    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        guard let v = members[key.stringValue] else { return nil }
        if case .null = v { return nil }
        return try decodeLeaf(type, from: v, path: path + [key])
    }
    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        try ValueDecoder(value: try value(key), path: path + [key]).container(keyedBy: type)
    }
    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try ValueDecoder(value: try value(key), path: path + [key]).unkeyedContainer()
    }
    func superDecoder() throws -> any Decoder { ValueDecoder(value: members["super"] ?? .null, path: path) }
    func superDecoder(forKey key: Key) throws -> any Decoder { ValueDecoder(value: try value(key), path: path + [key]) }
}

struct UnkeyedDecoder: UnkeyedDecodingContainer {
    let items: [JSONValue]
    let path: [any CodingKey]
    var codingPath: [any CodingKey] { path }
    var count: Int? { items.count }
    var isAtEnd: Bool { currentIndex >= items.count }
    var currentIndex = 0

    init(items: [JSONValue], path: [any CodingKey]) {
        self.items = items
        self.path = path
    }

    private mutating func next() throws -> (JSONValue, [any CodingKey]) {
        guard !isAtEnd else { throw decodeFailure(path, "the array has too few items") }
        defer { currentIndex += 1 }
        return (items[currentIndex], path + [IndexKey(currentIndex)])
    }

    mutating func decodeNil() throws -> Bool {
        guard !isAtEnd else { throw decodeFailure(path, "the array has too few items") }
        if case .null = items[currentIndex] {
            currentIndex += 1
            return true
        }
        return false
    }
    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        let (v, p) = try next()
        return try decodeLeaf(type, from: v, path: p)
    }
    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        let (v, p) = try next()
        return try ValueDecoder(value: v, path: p).container(keyedBy: type)
    }
    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let (v, p) = try next()
        return try ValueDecoder(value: v, path: p).unkeyedContainer()
    }
    mutating func superDecoder() throws -> any Decoder {
        let (v, p) = try next()
        return ValueDecoder(value: v, path: p)
    }
}

struct SingleDecoder: SingleValueDecodingContainer {
    let value: JSONValue
    let path: [any CodingKey]
    var codingPath: [any CodingKey] { path }

    func decodeNil() -> Bool {
        if case .null = value { return true }
        return false
    }
    func decode<T: Decodable>(_ type: T.Type) throws -> T { try decodeLeaf(type, from: value, path: path) }
}
