import RocketCore

/// Which characters a terminal can show: any (a UTF-8 terminal with a full font), or ASCII only.
///
/// Boxes, arrows, stars, the spinner's frames and pictures' half blocks are drawn with
/// characters that the Linux kernel's console and terminals in a legacy charset cannot show. On
/// those every cell is written as an ASCII look-alike of the same width (`╭` `+`, `│` `|`, `›`
/// `>`, `★` `*`, `☆` `.`, `é` `e`), and anything without one as `?` per column, so the layout
/// stays whole. What is drawn is the same; only the bytes written differ.
///
/// ```swift
/// GlyphSet.detect(["TERM": "linux"])                 // .ascii
/// GlyphSet.detect(["LANG": "de_DE.ISO-8859-1"])      // .ascii
/// GlyphSet.detect(["LANG": "C", "TERM": "xterm"])    // .unicode (a container's default locale)
/// GlyphSet.ascii("╭─ Café ★☆ ─╮")                   // "+- Cafe *. -+"
/// ```
public enum GlyphSet: Hashable, Sendable {
    /// Any character.
    case unicode
    /// ASCII only.
    case ascii

    /// The set a terminal takes, from the environment:
    /// - `ROCKET_ASCII=1` or `0` decides (or any other on/off word: `EnvironmentFlag`);
    /// - else `TERM=linux` (the kernel's console, whose font lacks most of these) is ASCII;
    /// - else a locale (the first of `LC_ALL`, `LC_CTYPE`, `LANG` that is set) naming a charset
    ///   other than UTF-8 (`de_DE.ISO-8859-1`) is ASCII;
    /// - else Unicode: `C`, `POSIX` or no locale at all is what containers start with, on
    ///   terminals that show UTF-8.
    public static func detect(_ env: [String: String]) -> GlyphSet {
        switch EnvironmentFlag.value("ROCKET_ASCII", in: env) {
        case true?: return .ascii
        case false?: return .unicode
        case nil: break
        }
        if env["TERM"] == "linux" { return .ascii }
        let locale = ["LC_ALL", "LC_CTYPE", "LANG"].lazy.compactMap { env[$0] }.first { !$0.isEmpty } ?? ""
        guard let dot = locale.firstIndex(of: ".") else { return .unicode }
        let charset = locale[locale.index(after: dot)...].prefix { $0 != "@" }.lowercased().filter { $0 != "-" && $0 != "_" }
        return charset == "utf8" ? .unicode : .ascii
    }

    /// `text` as an ASCII terminal shows it: each character replaced by ``ascii(character:)``.
    public static func ascii(_ text: String) -> String {
        guard !text.utf8.allSatisfy({ $0 < 0x80 }) else { return text }
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for c in text { out += ascii(character: String(c)) }
        return out
    }

    /// One character (a grapheme cluster, as a screen cell holds) as an ASCII terminal shows it,
    /// as many columns wide as the character: its look-alike, a Latin letter's base letter (also
    /// when written with combining marks), else `?` per column (nothing for a mark alone).
    public static func ascii(character g: String) -> String {
        guard let first = g.unicodeScalars.first, g.utf8.count > 1 else { return g }
        let width = DisplayWidth.of(g)
        var mapped: String
        if first.isASCII {
            mapped = String(first)  // a letter with combining marks
        } else if let look = lookAlike[first.value] {
            mapped = look
        } else if first.value >= 0xC0, first.value < 0xC0 + UInt32(latinBases.count) {
            let base = latinBases[Int(first.value - 0xC0)]
            mapped = String(UnicodeScalar(base))
        } else {
            mapped = ""
        }
        if mapped == "?" || mapped.isEmpty { return String(repeating: "?", count: width) }
        // Keep the columns: a look-alike narrower than its character is padded.
        if mapped.count < width { mapped += String(repeating: " ", count: width - mapped.count) }
        return mapped
    }

    /// `text` as a search compares it: lower-cased, a Latin letter with accents as its base letter
    /// (`Café` and `cafe` are one key), everything else as it is. What `rocket choose` filters
    /// with and line mode matches a typed title with, so a word typed without its accents (as an
    /// ASCII terminal shows it) still finds it.
    public static func searchKey(_ text: String) -> String {
        guard !text.utf8.allSatisfy({ $0 < 0x80 }) else { return text.lowercased() }
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for c in text {
            guard let first = c.unicodeScalars.first, c.utf8.count > 1 else {
                out += c.lowercased()
                continue
            }
            let v = first.value
            if first.isASCII {
                out += String(first).lowercased()  // a letter with combining marks
            } else if v >= 0xC0, v < 0xC0 + UInt32(latinBases.count), v != 0xD7, v != 0xF7, latinBases[Int(v - 0xC0)] != UInt8(ascii: "?") {
                out += String(UnicodeScalar(latinBases[Int(v - 0xC0)])).lowercased()
            } else {
                out += c.lowercased()
            }
        }
        return out
    }

    /// The base letters of U+00C0 to U+024F (Latin-1's letters and Latin Extended-A and -B), `?`
    /// where there is none.
    private static let latinBases: [UInt8] = Array(
        ("AAAAAAACEEEEIIIIDNOOOOOxOUUUUYPsaaaaaaaceeeeiiiidnooooo/ouuuuypy"
            + "AaAaAaCcCcCcCcDdDdEeEeEeEeEeGgGgGgGgHhHhIiIiIiIiIiIiJjKkkLlLlLlLlLlNnNnNnnNnOoOoOoOoRrRrRrSsSsSsSsTtTtTtUuUuUuUuUuUuWwYyYZzZzZzs"
            + "????????????????????????????????Oo?????????????Uu???????????????????DDdLLlNNnAaIiOoUuUuUuUuUu?AaAa????GgKkOoOo??jDDdGg??NnAa????"
            + "AaAaEeEeIiIiOoOoRrRrUuUuSsTt??Hh??????AaEeOoOoOoOoYy????????????????????????????").utf8)

    /// The look-alikes of the drawing characters rocket and its built-in texts use, and of
    /// common punctuation.
    private static let lookAlike: [UInt32: String] = {
        var table: [UInt32: String] = [:]
        func set(_ chars: String, _ look: String) { for s in chars.unicodeScalars { table[s.value] = look } }
        set("╭╮╰╯┌┐└┘├┤┬┴┼╔╗╚╝", "+")
        set("│┃┊┆║▏", "|")
        set("─━┄═–—―", "-")
        set("›❯▸►→»", ">")
        set("‹◂◄←«", "<")
        set("↑", "^")
        set("↗", ">")
        set("↓", "v")
        set("≥", ">")
        set("≤", "<")
        set("·", "|")
        set("…", ".")
        set("•●◉★✱", "*")
        set("☆", ".")
        set("○◯", "o")
        set("✕✖×", "x")
        set("✓✔☑", "v")
        set("☐", "_")
        set("▀▄█▌▐░▒▓▣■", "#")
        set("⏎", "<")
        set("✉", "@")
        set("⌘", "#")
        set("“”„″", "\"")
        set("‘’‚′", "'")
        set("\u{00A0}\u{2002}\u{2003}\u{2009}\u{3000}", " ")
        // The spinner's braille frames turn as | / - \ does.
        for (k, frame) in "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏".unicodeScalars.enumerated() { table[frame.value] = ["|", "/", "-", "\\"][k % 4] }
        return table
    }()
}
