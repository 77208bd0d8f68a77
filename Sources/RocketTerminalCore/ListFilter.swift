import RocketCore

/// What a list's filter keeps (`rocket choose`): the words typed, each compared by its search key
/// (``GlyphSet/searchKey(_:)``: case and Latin accents folded).
///
/// Options come in three groups, each in list order: those that hold what was typed as it was
/// typed; then those that hold every word of it, in any order (`bra fea` keeps
/// `feature/branch`); then those in which each word's letters stand in order with others between
/// them (`ftbr` keeps `feature/branch` too), as a fuzzy finder keeps them. Each match says which
/// characters matched, so a list can mark them.
///
/// ```swift
/// let filter = ListFilter("fb")
/// filter.match(ListFilter.Key("Feature/branch"))   // .init(rank: 2, positions: [0, 8])
/// ```
public struct ListFilter: Sendable {
    /// The search key of what was typed, without spaces around it.
    public let phrase: [Character]
    /// The search keys of its words (split at spaces).
    public let words: [[Character]]

    /// The filter `typed` makes.
    public init(_ typed: String) {
        let key = GlyphSet.searchKey(typed)
        words = key.split(separator: " ").map { Array($0) }
        phrase = Array(key.trimmingSpaces())
    }

    /// True when nothing but spaces was typed: every option is kept, in order.
    public var isEmpty: Bool { words.isEmpty }

    /// An option's text as the filter compares it: its search key, a character at a time, with
    /// the option's character each came from.
    public struct Key: Sendable {
        /// The search key's characters.
        public let characters: [Character]
        /// For each of them, the offset of the option's character it came from.
        public let source: [Int]

        /// The key of `text`.
        public init(_ text: String) {
            if text.utf8.allSatisfy({ $0 < 0x80 }) {
                // ASCII: one character each way (the common case, without a key per character).
                characters = Array(text.lowercased())
                source = Array(characters.indices)
                return
            }
            var characters: [Character] = []
            var source: [Int] = []
            for (offset, c) in text.enumerated() {
                for k in GlyphSet.searchKey(String(c)) {
                    characters.append(k)
                    source.append(offset)
                }
            }
            self.characters = characters
            self.source = source
        }
    }

    /// What the filter found in one option.
    public struct Match: Equatable, Sendable {
        /// Its group, first to last: 0, what was typed stands in the option whole; 1, every word
        /// does, in any order; 2, a word's letters stand in order with others between them.
        public var rank: Int
        /// The offsets of the option's characters that matched, ascending, each once.
        public var positions: [Int]

        /// A match.
        public init(rank: Int, positions: [Int]) {
            self.rank = rank
            self.positions = positions
        }
    }

    /// What the filter finds in the option whose key is `key`, or nil when it is not kept. An
    /// empty filter keeps every option, marking nothing.
    public func match(_ key: Key) -> Match? {
        let text = key.characters
        if let at = Self.firstOccurrence(of: phrase, in: text) {
            return Match(rank: 0, positions: Array(Set(key.source[at..<(at + phrase.count)])).sorted())
        }
        var exact = true
        var found: Set<Int> = []
        for word in words {
            guard word.count <= text.count else { return nil }
            if let at = Self.firstOccurrence(of: word, in: text) {
                for k in at..<(at + word.count) { found.insert(key.source[k]) }
                continue
            }
            exact = false
            // Each letter at its first place after the one before (a word that is not there
            // whole): linear in the option's length.
            var k = 0
            for letter in word {
                while k < text.count && text[k] != letter { k += 1 }
                guard k < text.count else { return nil }
                found.insert(key.source[k])
                k += 1
            }
        }
        return Match(rank: exact ? 1 : 2, positions: found.sorted())
    }

    /// Where `word` first stands whole in `text` (its first character's offset).
    private static func firstOccurrence(of word: [Character], in text: [Character]) -> Int? {
        guard let first = word.first, word.count <= text.count else { return word.isEmpty ? 0 : nil }
        var start = 0
        while start + word.count <= text.count {
            if text[start] == first {
                var k = 1
                while k < word.count && text[start + k] == word[k] { k += 1 }
                if k == word.count { return start }
            }
            start += 1
        }
        return nil
    }

    /// The options `keys` the filter keeps, as (option index, match): by ``Match/rank``, each
    /// group in list order.
    public func kept(_ keys: [Key]) -> [(index: Int, match: Match)] {
        guard !isEmpty else { return keys.indices.map { ($0, Match(rank: 0, positions: [])) } }
        var groups: [[(index: Int, match: Match)]] = [[], [], []]
        for (i, key) in keys.enumerated() {
            guard let m = match(key) else { continue }
            groups[m.rank].append((i, m))
        }
        return groups.flatMap { $0 }
    }
}
