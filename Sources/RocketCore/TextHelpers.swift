/// Small string helpers that need no Foundation (Foundation's string APIs pull ICU into a
/// static binary: 50 MB more, and slower start-up).
///
/// ```swift
/// "  hi  ".trimmingSpaces()            // "hi"
/// PathName.lastComponent("a/b/c.png")  // "c.png"
/// PathName.directory("a/b/c.png")      // "a/b"
/// ```
extension StringProtocol {
    /// The string without leading and trailing white space.
    package func trimmingSpaces() -> String {
        // Most strings start and end with a visible ASCII character: nothing to trim, and no
        // character-by-character work to find that out.
        let bytes = Substring(self).utf8
        if let a = bytes.first, let z = bytes.last, a > 0x20, a < 0x7F, z > 0x20, z < 0x7F { return String(self) }
        guard let first = firstIndex(where: { !$0.isWhitespace }) else { return "" }
        let last = lastIndex(where: { !$0.isWhitespace })!
        return String(self[first...last])
    }

    /// The string in single quotes for a message, its first 40 characters and "…" when longer:
    /// a message quotes what it was given, and what it was given may be 64 KiB.
    ///
    /// ```swift
    /// "Maybe".quotedForMessage   // "'Maybe'"
    /// ```
    package var quotedForMessage: String {
        "'" + (count > 40 ? String(prefix(40)) + "…" : String(self)) + "'"
    }
}

extension Array where Element == String {
    /// The items as a message lists them: the first `first`, joined with commas and a last
    /// "and" (or `conjunction`: "or" for choices), then how many more.
    ///
    /// ```swift
    /// ["'a'", "'b'", "'c'"].listedForMessage()   // "'a', 'b' and 'c'"
    /// ["x", "y"].listedForMessage(conjunction: "or")   // "x or y"
    /// ```
    package func listedForMessage(first: Int = 8, conjunction: String = "and") -> String {
        let shown = prefix(Swift.max(1, first))
        if count > shown.count { return shown.joined(separator: ", ") + " \(conjunction) \(count - shown.count) more" }
        guard shown.count > 1 else { return shown.first ?? "" }
        return shown.dropLast().joined(separator: ", ") + " \(conjunction) " + shown[shown.count - 1]
    }
}

/// Searching and replacing text, character by character as `==` compares characters. The
/// standard library's `replacing(_:with:)`, `split(separator:)` with a string, `contains(_:)` with
/// a string and `firstRange(of:)` live in `_StringProcessing`, which links Swift's regular
/// expression parser into a static binary (1.3 MB); these do not (scripts/check-static.sh checks
/// that the shipped `rocket` has none of it).
///
/// ```swift
/// "a-b-c".replacingAll("-", with: "+")      // "a+b+c"
/// "x · y · z".splitting(at: " · ")          // ["x", "y", "z"]
/// "no such table".containsText("such")      // true
/// ```
extension StringProtocol {
    /// Where `text` first occurs; nil when it does not, or is empty.
    package func range(ofText text: some StringProtocol) -> Range<Index>? {
        let whole = Substring(self)
        guard let first = text.first else { return nil }
        var from = whole.startIndex
        while let start = whole[from...].firstIndex(of: first) {
            var i = start
            var matched = true
            for c in text {
                guard i < whole.endIndex, whole[i] == c else {
                    matched = false
                    break
                }
                i = whole.index(after: i)
            }
            if matched { return start..<i }
            from = whole.index(after: start)
        }
        return nil
    }

    /// True when `text` occurs (always, for empty text).
    package func containsText(_ text: some StringProtocol) -> Bool {
        text.isEmpty || range(ofText: text) != nil
    }

    /// Every occurrence of `target` (left to right, not overlapping) replaced by `replacement`.
    package func replacingAll(_ target: some StringProtocol, with replacement: some StringProtocol) -> String {
        var rest = Substring(self)
        guard !target.isEmpty, var found = rest.range(ofText: target) else { return String(self) }
        var out = ""
        while true {
            out += rest[..<found.lowerBound]
            out += replacement
            rest = rest[found.upperBound...]
            guard let next = rest.range(ofText: target) else { break }
            found = next
        }
        out += rest
        return out
    }

    /// The pieces between occurrences of `separator`, empty pieces left out (as
    /// `split(separator:)` leaves them out), or all of them when `keepingEmpty`; at most
    /// `maxSplits` splits.
    package func splitting(at separator: some StringProtocol, maxSplits: Int = .max, keepingEmpty: Bool = false) -> [Substring] {
        var pieces: [Substring] = []
        var rest = Substring(self)
        var splits = 0
        while splits < maxSplits, !separator.isEmpty, let found = rest.range(ofText: separator) {
            let piece = rest[..<found.lowerBound]
            if keepingEmpty || !piece.isEmpty { pieces.append(piece) }
            rest = rest[found.upperBound...]
            splits += 1
        }
        if keepingEmpty || !rest.isEmpty { pieces.append(rest) }
        return pieces
    }
}

/// Path-name arithmetic on plain strings.
package enum PathName {
    /// The last component ("c.png" for "a/b/c.png").
    package static func lastComponent(_ path: String) -> String {
        path.split(separator: "/").last.map(String.init) ?? path
    }

    /// Whether `a` comes before `b` in the order people sort names in: as their bytes compare,
    /// except that runs of digits compare as the numbers they write ("step2" before "step10",
    /// "v9.json" before "v10.json"); names that differ only in leading zeros keep the bytes'
    /// order, so the order is total. Time linear in the names' lengths.
    package static func naturalOrder(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        func digit(_ c: UInt8) -> Bool { c >= 0x30 && c <= 0x39 }
        var i = 0, j = 0
        while i < x.count && j < y.count {
            if digit(x[i]) && digit(y[j]) {
                // A run each: without leading zeros the longer is larger; else the first differing digit.
                var ei = i, ej = j
                while ei < x.count && digit(x[ei]) { ei += 1 }
                while ej < y.count && digit(y[ej]) { ej += 1 }
                var si = i, sj = j
                while si < ei - 1 && x[si] == 0x30 { si += 1 }
                while sj < ej - 1 && y[sj] == 0x30 { sj += 1 }
                if ei - si != ej - sj { return ei - si < ej - sj }
                for k in 0..<(ei - si) where x[si + k] != y[sj + k] { return x[si + k] < y[sj + k] }
                i = ei
                j = ej
                continue
            }
            if x[i] != y[j] { return x[i] < y[j] }
            i += 1
            j += 1
        }
        if i < x.count || j < y.count { return j < y.count && i == x.count }
        return a < b
    }

    /// Everything before the last component ("a/b" for "a/b/c.png", "" for "c.png", "/" for "/c").
    package static func directory(_ path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "" }
        if slash == path.startIndex { return "/" }
        return String(path[..<slash])
    }
}

/// Text placed in HTML: the one escaping of every page the package makes.
package enum HTMLText {
    /// `s` with `&`, `<`, `>`, `"` and `'` as character references (safe in text and in quoted
    /// attribute values).
    package static func escape(_ s: String) -> String {
        var out = ""
        out.reserveCapacity(s.utf8.count)
        for ch in s.unicodeScalars {
            switch ch {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.unicodeScalars.append(ch)
            }
        }
        return out
    }
}

extension Array where Element: Equatable {
    /// Where `needle` first occurs whole (its first element's offset; 0 for an empty one), in
    /// time linear in both (see ``offsets(of:limit:)``).
    ///
    /// ```swift
    /// Array("feature/branch".utf8).firstOffset(of: Array("bra".utf8))   // 8
    /// ```
    package func firstOffset(of needle: [Element]) -> Int? {
        needle.isEmpty ? 0 : offsets(of: needle, limit: 1).first
    }

    /// Where `needle` occurs whole, left to right and not overlapping (each match's first
    /// element's offset), at most `limit` of them; none for an empty needle. Time linear in both:
    /// a short needle is compared in place, a longer one by Knuth–Morris–Pratt, so a hostile
    /// needle of 64 KiB in a text of 64 KiB costs no more than reading them (compared in place,
    /// that would be a billion comparisons).
    ///
    /// ```swift
    /// Array("a-b-c".utf8).offsets(of: Array("-".utf8))   // [1, 3]
    /// ```
    package func offsets(of needle: [Element], limit: Int = .max) -> [Int] {
        var found: [Int] = []
        guard let first = needle.first, needle.count <= count, limit > 0 else { return found }
        if needle.count <= 8 {
            var start = 0
            while start + needle.count <= count {
                if self[start] == first {
                    var k = 1
                    while k < needle.count && self[start + k] == needle[k] { k += 1 }
                    if k == needle.count {
                        found.append(start)
                        if found.count == limit { return found }
                        start += needle.count
                        continue
                    }
                }
                start += 1
            }
            return found
        }
        // For each prefix of the needle, its longest proper prefix that is also its suffix: where
        // a mismatch resumes, so no element of the text is looked at twice.
        var fallback = [Int](repeating: 0, count: needle.count)
        var k = 0
        for i in 1..<needle.count {
            while k > 0 && needle[i] != needle[k] { k = fallback[k - 1] }
            if needle[i] == needle[k] { k += 1 }
            fallback[i] = k
        }
        k = 0
        for (i, element) in enumerated() {
            while k > 0 && element != needle[k] { k = fallback[k - 1] }
            if element == needle[k] { k += 1 }
            if k == needle.count {
                found.append(i + 1 - k)
                if found.count == limit { return found }
                // Not overlapping: the next match begins after this one.
                k = 0
            }
        }
        return found
    }
}
