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

    /// The candidate nearest to `word` (case-insensitive) within `maxDistance` edits, or nil.
    package static func closest(to word: String, in candidates: some Sequence<String>, maxDistance: Int = 2) -> String? {
        let lower = word.lowercased()
        return
            candidates
            .map { ($0, editDistance($0.lowercased(), lower)) }
            .filter { $0.1 <= maxDistance }
            .min { ($0.1, $0.0) < ($1.1, $1.0) }?.0
    }
}
