import Testing

@testable import RocketServer

/// The service's sharded index behaves as one dictionary.
@Suite("ShardedIndex: 64 dictionaries that behave as one")
struct ShardedIndexTests {
    @Test("conversation ids (their shard read from their last digits) and other keys (by their hash) spread over every shard")
    func spread() {
        var index = ShardedIndex<Int>()
        for k in 0..<6_400 { index[k % 2 == 0 ? ConversationService.newID(at: 1_800_000_000) : ConversationService.newID()] = k }
        for k in 0..<640 { index["visitor-\(k)"] = k }
        var sizes: [Int] = []
        for shard in 0..<ShardedIndex<Int>.shardCount {
            var n = 0
            index.forEach(inShard: shard) { _, _ in n += 1 }
            sizes.append(n)
        }
        #expect(sizes.reduce(0, +) == 7_040)
        #expect(sizes.allSatisfy { (60...170).contains($0) }, "\(sizes)")
        #expect(index["visitor-7"] == 7)
    }

    @Test("20,000 random inserts, replacements and removals agree with a Dictionary at every count, key and filter")
    func agrees() {
        var index = ShardedIndex<Int>()
        var model: [String: Int] = [:]
        var state: UInt64 = 42
        func next() -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int(state >> 33)
        }
        for step in 0..<20_000 {
            let key = "c\(next() % 3_000)"
            switch next() % 4 {
            case 0:
                #expect(index.removeValue(forKey: key) == model.removeValue(forKey: key))
            case 1:
                index[key] = nil
                model[key] = nil
            default:
                index[key] = step
                model[key] = step
            }
            #expect(index.count == model.count)
            #expect(index[key] == model[key])
        }
        #expect(Set(index.keys) == Set(model.keys))
        #expect(index.values.sorted() == model.values.sorted())
        #expect(Dictionary(uniqueKeysWithValues: index.map { ($0.key, $0.value) }) == model)
        let even = index.filter { $0.value % 2 == 0 }
        #expect(even.count == model.filter { $0.value % 2 == 0 }.count)
        #expect(Set(even.keys) == Set(model.filter { $0.value % 2 == 0 }.keys))
        #expect(!index.isEmpty && ShardedIndex<Int>().isEmpty)
        // A pass shard by shard sees every entry exactly once, with its value; no shard holds
        // most of them; a shard out of range has none.
        var seen: [String: Int] = [:]
        var largest = 0
        for shard in 0..<ShardedIndex<Int>.shardCount {
            var inShard = 0
            index.forEach(inShard: shard) { key, value in
                #expect(seen.updateValue(value, forKey: key) == nil, "\(key) seen twice")
                inShard += 1
            }
            largest = max(largest, inShard)
        }
        #expect(seen == model)
        #expect(largest < model.count / 16)
        var outside = 0
        index.forEach(inShard: ShardedIndex<Int>.shardCount) { _, _ in outside += 1 }
        index.forEach(inShard: -1) { _, _ in outside += 1 }
        #expect(outside == 0)
    }
}
