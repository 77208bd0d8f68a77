/// How many terminal columns text takes, from a checked-in table (Unicode 14.0.0, generated
/// from glibc's charmap by `scripts/gen-width-table.py`), never `String.count`.
///
/// Rules per grapheme cluster (`Character`): a regional-indicator pair (a flag) is 2; an
/// emoji-presentation scalar, or VS16 after an emoji, is 2 (so ZWJ families and skin tones
/// are 2, as tmux draws them); otherwise the sum of its scalars' widths from the table, as
/// terminals draw them: combining marks, joiners and variation selectors add nothing, while a
/// cluster of several spacing letters takes a column for each (Devanagari "स्ते" is 2, Thai
/// "กำ" is 2, a Hangul syllable of conjoining jamo is 2).
///
/// ```swift
/// DisplayWidth.of("界")        // 2
/// DisplayWidth.of("e\u{301}")  // 1
/// DisplayWidth.of("👨‍👩‍👧")        // 2
/// DisplayWidth.of("🇯🇵")        // 2
/// ```
public enum DisplayWidth {
    /// The Unicode version of the width table.
    public static let unicodeVersion = WidthTable.unicodeVersion

    /// Columns taken by a string (sum over its characters).
    public static func of(_ s: some StringProtocol) -> Int {
        var total = 0
        for c in s { total += of(c) }
        return total
    }

    /// Columns taken by one character: 0, 1 or 2 for most; a cluster of several spacing letters
    /// (an Indic conjunct with its vowel signs) may take more.
    public static func of(_ c: Character) -> Int {
        let scalars = c.unicodeScalars
        guard let first = scalars.first else { return 0 }
        if first.value < 0x7F { return first.value < 0x20 ? 0 : 1 }  // fast path for ASCII
        // No scalar below U+231A, nor box drawing, blocks and shapes up to U+25FC, is an emoji
        // by default: a lone one needs only the table (the property lookup is the slow part).
        if scalars.count == 1 && (first.value < 0x231A || (0x2500...0x25FC).contains(first.value)) { return width(of: first.value) }
        if first.properties.isEmojiPresentation { return 2 }
        guard scalars.count > 1 else { return width(of: first.value) }
        var regional = 0
        var sum = 0
        var joined = false
        for s in scalars {
            if (0x1F1E6...0x1F1FF).contains(s.value) { regional += 1 }
            if s.value == 0xFE0F && first.properties.isEmoji { return 2 }
            if s.value == 0x200D { joined = true }
            sum += width(of: s.value)
        }
        if regional >= 2 || (joined && first.properties.isEmoji) { return 2 }
        return sum
    }

    /// The table width of a single code point: 0, 1 or 2 (controls count 0).
    public static func width(of scalar: UInt32) -> Int {
        if scalar < 0x20 || (0x7F...0x9F).contains(scalar) { return 0 }
        if contains(WidthTable.zeroWidth, scalar) { return 0 }
        if contains(WidthTable.doubleWidth, scalar) { return 2 }
        return 1
    }

    private static func contains(_ table: [(UInt32, UInt32)], _ v: UInt32) -> Bool {
        var lo = 0, hi = table.count - 1
        while lo <= hi {
            let mid = (lo + hi) / 2
            if v < table[mid].0 { hi = mid - 1 } else if v > table[mid].1 { lo = mid + 1 } else { return true }
        }
        return false
    }

    /// The longest prefix of `s` that fits in `columns`.
    ///
    /// ```swift
    /// DisplayWidth.prefix("界界界", fitting: 5)   // "界界"
    /// ```
    public static func prefix(_ s: String, fitting columns: Int) -> String {
        var used = 0
        var out = ""
        for c in s {
            let w = of(c)
            if used + w > columns { break }
            used += w
            out.append(c)
        }
        return out
    }

    /// `s` when it fits in `columns`, else its longest prefix that fits with "…" after it.
    ///
    /// ```swift
    /// DisplayWidth.truncate("Maintenance", to: 6)   // "Maint…"
    /// ```
    public static func truncate(_ s: String, to columns: Int) -> String {
        guard columns > 0 else { return "" }
        if of(s) <= columns { return s }
        return prefix(s, fitting: columns - 1) + "…"
    }
}
