/// A dictionary keyed by conversation id, kept as 64 dictionaries chosen by the id's hash. The
/// service's index holds every live conversation under one lock; one dictionary of about 100,000 of
/// them took 30–80 ms to grow (a rehash into newly faulted memory), every other request waiting
/// on the lock meanwhile. Here a growth rehashes one shard, a sixty-fourth of the entries.
struct ShardedIndex<Value>: Sequence {
    /// How many dictionaries: a pass over one of them (``forEach(inShard:_:)``) sees about this
    /// fraction of the entries.
    static var shardCount: Int { 64 }
    private var shards: [[String: Value]] = Array(repeating: [:], count: shardCount)
    /// The number of entries.
    private(set) var count = 0

    /// The shard of `key`: for a conversation id (its last two hex digits are random), read
    /// from them without hashing the key (the dictionary hashes it once more anyway); for any
    /// other key, its hash.
    private static func shard(_ key: String) -> Int {
        let utf8 = key.utf8
        if utf8.count == 32, let last = utf8.last, let before = utf8.dropLast().last, let a = hexValue(before), let b = hexValue(last) {
            return (a << 4 | b) & 63
        }
        return key.hashValue & 63
    }

    private static func hexValue(_ c: UInt8) -> Int? {
        switch c {
        case 0x30...0x39: Int(c - 0x30)
        case 0x61...0x66: Int(c - 0x61 + 10)
        default: nil
        }
    }

    /// The value of `key`; assigning nil removes it.
    subscript(key: String) -> Value? {
        get { shards[Self.shard(key)][key] }
        set {
            let i = Self.shard(key)
            if let newValue {
                if shards[i].updateValue(newValue, forKey: key) == nil { count += 1 }
            } else if shards[i].removeValue(forKey: key) != nil {
                count -= 1
            }
        }
    }

    /// Removes `key`; its value, if it had one.
    @discardableResult
    mutating func removeValue(forKey key: String) -> Value? {
        let old = shards[Self.shard(key)].removeValue(forKey: key)
        if old != nil { count -= 1 }
        return old
    }

    /// Every key, in no particular order.
    var keys: [String] { shards.flatMap(\.keys) }
    /// Every value, in no particular order.
    var values: [Value] { shards.flatMap(\.values) }
    /// True when there are no entries.
    var isEmpty: Bool { count == 0 }

    /// The entries for which `isIncluded` holds.
    func filter(_ isIncluded: ((key: String, value: Value)) throws -> Bool) rethrows -> ShardedIndex {
        var out = ShardedIndex()
        for i in shards.indices {
            out.shards[i] = try shards[i].filter(isIncluded)
            out.count += out.shards[i].count
        }
        return out
    }

    /// Calls `body` with every entry of shard `shard` (0 ..< ``shardCount``; others have none):
    /// a long pass can be made a shard at a time, letting go of a lock in between.
    func forEach(inShard shard: Int, _ body: (String, Value) throws -> Void) rethrows {
        guard shards.indices.contains(shard) else { return }
        for (k, v) in shards[shard] { try body(k, v) }
    }

    func makeIterator() -> FlattenSequence<[[String: Value]]>.Iterator {
        shards.joined().makeIterator()
    }
}

extension ShardedIndex: Sendable where Value: Sendable {}
