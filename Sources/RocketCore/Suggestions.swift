/// Helpers for "did you mean …?" hints in error messages.
///
/// ```swift
/// Suggestions.editDistance("nxt", "next")                       // 1
/// Suggestions.editDistance("plya", "play")                      // 1 (two letters swapped)
/// Suggestions.closest(to: "--plian", in: ["--plain", "--json"])  // "--plain"
/// ```
package enum Suggestions {
    /// The edit distance between two strings, by characters: insertions, deletions,
    /// substitutions, and two neighbours swapped counted as one edit ("plya" is one from
    /// "play"), the commonest typo of all (the optimal-string-alignment distance).
    package static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        if a.isEmpty || b.isEmpty { return max(a.count, b.count) }
        var before = Array(repeating: 0, count: b.count + 1)  // the row two back, for swaps
        var prev = Array(0...b.count)
        for i in 1...a.count {
            var cur = [i] + Array(repeating: 0, count: b.count)
            for j in 1...b.count {
                cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] { cur[j] = min(cur[j], before[j - 2] + 1) }
            }
            (before, prev) = (prev, cur)
        }
        return prev[b.count]
    }

    /// The longest word, in characters, a hint is looked for: typos are made in names people
    /// type, and the distance costs the product of two lengths (two 60,000-character names took
    /// 40 s), so longer words and candidates are passed over.
    package static let maxWordLength = 128

    /// The candidate nearest to `word` (case-insensitive) within `maxDistance` edits, and
    /// within a third of the word's length, rounded up (one edit for a word of up to 3
    /// characters, two from 4), or nil: a two-letter id is two edits from every other short one
    /// ("zz" from "a"), which is no hint. Candidates whose length alone puts them further away are not
    /// measured.
    package static func closest(to word: String, in candidates: some Sequence<String>, maxDistance: Int = 2) -> String? {
        let lower = word.lowercased()
        let length = lower.count
        guard length <= maxWordLength else { return nil }
        let maxDistance = min(maxDistance, (length + 2) / 3)
        var best: (String, Int)?
        for candidate in candidates {
            let other = candidate.lowercased()
            let otherLength = other.count
            guard otherLength <= maxWordLength, abs(otherLength - length) <= maxDistance else { continue }
            let d = editDistance(other, lower)
            guard d <= maxDistance, d < length else { continue }  // one letter for another is a guess
            if let b = best, (b.1, b.0) <= (d, candidate) { continue }
            best = (candidate, d)
        }
        return best?.0
    }
}
