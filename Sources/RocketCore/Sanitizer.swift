/// Makes text from files safe to draw: no control or escape byte from content ever reaches the
/// terminal.
///
/// C0 and C1 controls, DEL, and bidirectional overrides become U+FFFD; tabs become spaces;
/// newlines are kept only when `keepNewlines` is true (layout splits on them).
///
/// ```swift
/// Sanitizer.clean("hi\u{1B}[2Jthere")   // "hi�[2Jthere"
/// ```
public enum Sanitizer {
    /// The cleaned text.
    public static func clean(_ s: String, keepNewlines: Bool = true) -> String {
        var needs = false
        for u in s.unicodeScalars where isUnsafe(u) || u == "\t" || (!keepNewlines && u == "\n") { needs = true; break }
        guard needs else { return s }
        var out = String.UnicodeScalarView()
        for u in s.unicodeScalars {
            if u == "\n" && keepNewlines {
                out.append(u)
            } else if u == "\t" {
                out.append(contentsOf: "    ".unicodeScalars)
            } else if isUnsafe(u) || u == "\n" {
                out.append("\u{FFFD}")
            } else {
                out.append(u)
            }
        }
        return String(out)
    }

    /// At most ``RocketLimits/quotedCharacters`` characters of `s`, ending in "…" when cut: what
    /// a message quotes of a value from a file or a request, which may be 64 KiB long.
    public static func excerpt(_ s: some StringProtocol, limit: Int = RocketLimits.quotedCharacters) -> String {
        guard s.utf8.count > limit else { return String(s) }
        var end = s.startIndex
        guard s.formIndex(&end, offsetBy: limit, limitedBy: s.endIndex), end < s.endIndex else { return String(s) }
        return String(s[s.startIndex..<s.index(before: end)]) + "…"
    }

    package static func isUnsafe(_ u: Unicode.Scalar) -> Bool {
        let v = u.value
        if v < 0x20 { return u != "\n" && u != "\t" }
        if (0x7F...0x9F).contains(v) { return true }
        if (0x202A...0x202E).contains(v) || (0x2066...0x2069).contains(v) || v == 0x061C { return true }  // bidi overrides
        // Zero-width characters that hide or reorder text (U+200D, the joiner inside emoji, stays).
        if v == 0x200B || v == 0x200C || v == 0x200E || v == 0x200F || (0x2060...0x2064).contains(v) || v == 0xFEFF { return true }
        return false
    }
}
