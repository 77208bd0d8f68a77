/// Helpers for "did you mean …?" hints in error messages.
///
/// ```swift
/// Suggestions.editDistance("nxt", "next")                       // 1
/// Suggestions.closest(to: "--plian", in: ["--plain", "--json"])  // "--plain"
/// ```
package enum Suggestions {
    /// The Levenshtein distance between two strings, by characters.
    package static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        if a.isEmpty || b.isEmpty { return max(a.count, b.count) }
        var prev = Array(0...b.count)
        for i in 1...a.count {
            var cur = [i] + Array(repeating: 0, count: b.count)
            for j in 1...b.count {
                cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            prev = cur
        }
        return prev[b.count]
    }

    /// The longest word, in characters, a hint is looked for: typos are made in names people
    /// type, and the distance costs the product of two lengths (two 60,000-character names took
    /// 40 s), so longer words and candidates are passed over.
    package static let maxWordLength = 128

    /// The candidate nearest to `word` (case-insensitive) within `maxDistance` edits, or nil.
    /// Candidates whose length alone puts them further away are not measured.
    package static func closest(to word: String, in candidates: some Sequence<String>, maxDistance: Int = 2) -> String? {
        let lower = word.lowercased()
        let length = lower.count
        guard length <= maxWordLength else { return nil }
        var best: (String, Int)?
        for candidate in candidates {
            let other = candidate.lowercased()
            let otherLength = other.count
            guard otherLength <= maxWordLength, abs(otherLength - length) <= maxDistance else { continue }
            let d = editDistance(other, lower)
            guard d <= maxDistance else { continue }
            if let b = best, (b.1, b.0) <= (d, candidate) { continue }
            best = (candidate, d)
        }
        return best?.0
    }
}
