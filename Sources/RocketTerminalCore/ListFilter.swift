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
    /// The search keys of its words (split at spaces), each once, at most ``maxWords``.
    public let words: [[Character]]

    /// The most words a filter looks for (the first ones typed, each once): a paste of thousands
    /// of one-letter words would otherwise cost a search of every option for each.
    public static let maxWords = 16

    /// The filter `typed` makes.
    public init(_ typed: String) {
        let key = GlyphSet.searchKey(typed)
        var seen = Set<Substring>()
        words = key.split(separator: " ").filter { seen.insert($0).inserted }.prefix(Self.maxWords).map { Array($0) }
        phrase = Array(key.trimmingSpaces())
        asciiWords = words.map(Self.ascii)
        asciiPhrase = Self.ascii(phrase)
    }

    /// The words and the phrase as bytes, for options whose keys are ASCII (nil: one that is not
    /// ASCII, which no such option holds).
    private let asciiWords: [[UInt8]?]
    private let asciiPhrase: [UInt8]?
    private static func ascii(_ characters: [Character]) -> [UInt8]? {
        var out: [UInt8] = []
        out.reserveCapacity(characters.count)
        for c in characters {
            guard let a = c.asciiValue else { return nil }
            out.append(a)
        }
        return out
    }

    /// True when nothing but spaces was typed: every option is kept, in order.
    public var isEmpty: Bool { words.isEmpty }

    /// An option's text as the filter compares it: its search key, with the option's character
    /// each of the key's came from. An ASCII text (the common case) is kept as its lower-cased
    /// bytes, a byte a character: a list of 10,000 options holds a byte per letter, not a
    /// `Character` and an offset.
    public struct Key: Sendable {
        fileprivate enum Storage: Sendable {
            /// An ASCII text's lower-cased bytes (one for each of its characters; controls are
            /// cleaned from what a list shows, so no CR LF is one character of two bytes).
            case ascii([UInt8])
            /// Any other text's key, a character at a time, with the offset of the character each came from.
            case characters([Character], source: [Int])
        }
        fileprivate let storage: Storage

        /// The key of `text` (as the list shows it: controls cleaned).
        public init(_ text: String) {
            if text.utf8.allSatisfy({ $0 < 0x80 }) {
                storage = .ascii(text.utf8.map { $0 >= 0x41 && $0 <= 0x5A ? $0 + 0x20 : $0 })
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
            storage = .characters(characters, source: source)
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
        switch key.storage {
        case .ascii(let text):
            guard let phrase = asciiPhrase else { return nil }
            var words: [[UInt8]] = []
            for word in asciiWords {
                guard let word else { return nil }
                words.append(word)
            }
            return Self.match(phrase: phrase, words: words, in: text) { $0 }
        case .characters(let text, let source):
            return Self.match(phrase: phrase, words: self.words, in: text) { source[$0] }
        }
    }

    /// The match of `phrase` and `words` in `text`, its key's offsets turned into the option's
    /// by `source`.
    private static func match<E: Equatable>(phrase: [E], words: [[E]], in text: [E], source: (Int) -> Int) -> Match? {
        if let at = text.firstOffset(of: phrase) {
            return Match(rank: 0, positions: Array(Set((at..<(at + phrase.count)).map(source))).sorted())
        }
        var exact = true
        var found: Set<Int> = []
        for word in words {
            guard word.count <= text.count else { return nil }
            if let at = text.firstOffset(of: word) {
                for k in at..<(at + word.count) { found.insert(source(k)) }
                continue
            }
            exact = false
            // Each letter at its first place after the one before (a word that is not there
            // whole): linear in the option's length.
            var k = 0
            for letter in word {
                while k < text.count && text[k] != letter { k += 1 }
                guard k < text.count else { return nil }
                found.insert(source(k))
                k += 1
            }
        }
        return Match(rank: exact ? 1 : 2, positions: found.sorted())
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
