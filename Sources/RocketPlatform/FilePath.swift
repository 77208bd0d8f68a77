/// Paths of files inside a flow folder.
package enum FilePath {
    /// `path` when it is relative and stays inside its folder (no `..`, `.` or empty segment, no
    /// NUL, no backslash, at most 1024 bytes), else nil.
    package static func relative(_ path: String) -> String? {
        guard !path.isEmpty, path.utf8.count <= 1024, !path.hasPrefix("/"), !path.utf8.contains(0), !path.contains("\\") else { return nil }
        for segment in path.split(separator: "/", omittingEmptySubsequences: false) where segment.isEmpty || segment == "." || segment == ".." {
            return nil
        }
        return path
    }

    /// Percent-encodes everything but unreserved characters and `/`.
    package static func percentEncoded(_ path: String) -> String {
        var out = ""
        for b in path.utf8 {
            let keep =
                (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || b == 0x2D || b == 0x2E || b == 0x5F || b == 0x7E
                || b == 0x2F
            if keep {
                out.unicodeScalars.append(Unicode.Scalar(b))
            } else {
                let hex = Array("0123456789ABCDEF".utf8)
                out += "%" + String(decoding: [hex[Int(b >> 4)], hex[Int(b & 15)]], as: UTF8.self)
            }
        }
        return out
    }
}
