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
}

/// Path-name arithmetic on plain strings.
package enum PathName {
    /// The last component ("c.png" for "a/b/c.png").
    package static func lastComponent(_ path: String) -> String {
        path.split(separator: "/").last.map(String.init) ?? path
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
