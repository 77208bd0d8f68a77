import RocketCore
/// `{{name}}` placeholders in block texts, filled from the answers given so far.
///
/// A name is letters, digits, `_`, `-` and `.`; white space inside the braces is ignored.
/// Unknown names are left as written (so seed texts that happen to contain braces are shown
/// unchanged); secret answers show as bullets.
///
/// ```swift
/// RocketTemplate.render("Thanks, {{ name }}!", answers: ["name": RocketAnswer(value: "Ada")])
/// // "Thanks, Ada!"
/// RocketTemplate.placeholders(in: "{{a}} and {{b}}")   // ["a", "b"]
/// ```
public enum RocketTemplate {
    /// The longest text a template renders to, in bytes of UTF-8: a 64 KiB block text filled with
    /// 64 KiB answers could otherwise grow without bound. What would pass it ends in "…".
    public static let maxRenderedBytes = RocketLimits.renderedTextBytes

    /// Replaces every known placeholder in `template`; the result is at most
    /// ``maxRenderedBytes`` (cut at a character, then "…").
    public static func render(_ template: String, answers: [String: RocketAnswer]) -> String {
        guard hasOpening(template) else { return template }
        return render(template) { answers[$0].map { ($0.value, $0.isSecret) } }
    }

    /// Replaces every placeholder `lookup` knows (its text, and whether it is secret); the
    /// result is bounded as ``render(_:answers:)``'s is. A value is put in as it is: placeholders
    /// inside it are not filled again.
    public static func render(_ template: String, lookup: (String) -> (text: String, secret: Bool)?) -> String {
        guard hasOpening(template) else { return template }
        var out = ""
        var full = false
        func add(_ s: some StringProtocol) {
            guard !full else { return }
            if out.utf8.count + s.utf8.count <= maxRenderedBytes {
                out += s
                return
            }
            for c in s {
                if out.utf8.count + c.utf8.count > maxRenderedBytes - 3 { break }
                out.append(c)
            }
            out += "…"
            full = true
        }
        forEachPart(of: template) { part in
            switch part {
            case .literal(let s): add(s)
            case .placeholder(let name, let raw):
                if let found = lookup(name) {
                    add(found.secret ? mask(found.text) : found.text)
                } else {
                    add(raw)
                }
            }
        }
        return out
    }

    /// The placeholder names used in `template`, in order of appearance.
    public static func placeholders(in template: String) -> [String] {
        guard hasOpening(template) else { return [] }
        var names: [String] = []
        forEachPart(of: template) { if case .placeholder(let name, _) = $0 { names.append(name) } }
        return names
    }

    /// Bullets as long as `text` (at most 8), for secret answers.
    public static func mask(_ text: String) -> String {
        String(repeating: "•", count: min(8, max(text.isEmpty ? 0 : 3, text.count)))
    }

    private enum Part {
        case literal(Substring)
        case placeholder(name: String, raw: Substring)
    }

    /// True for a placeholder name: letters, digits, `_`, `-` and `.` (ASCII checked byte by
    /// byte; other scripts by character).
    private static func isName(_ name: String) -> Bool {
        guard !name.isEmpty else { return false }
        var ascii = true
        for b in name.utf8 {
            if b >= 0x80 {
                ascii = false
                break
            }
            let ok = (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || b == 0x5F || b == 0x2D || b == 0x2E
            if !ok { return false }
        }
        return ascii || name.allSatisfy(isNameCharacter)
    }

    private static func isNameCharacter(_ c: Character) -> Bool {
        c.isLetter || c.isNumber || c == "_" || c == "-" || c == "."
    }

    private static func hasOpening(_ s: String) -> Bool {
        var previousBrace = false
        for b in s.utf8 {
            if b == UInt8(ascii: "{") {
                if previousBrace { return true }
                previousBrace = true
            } else {
                previousBrace = false
            }
        }
        return false
    }

    private static func forEachPart(of template: String, _ body: (Part) -> Void) {
        let u = template.utf8
        var literalStart = u.startIndex
        var i = u.startIndex
        while i < u.endIndex {
            // Look for "{{".
            guard u[i] == UInt8(ascii: "{"), u.index(after: i) < u.endIndex, u[u.index(after: i)] == UInt8(ascii: "{") else {
                i = u.index(after: i)
                continue
            }
            let innerStart = u.index(i, offsetBy: 2)
            var j = innerStart
            var close: String.Index?
            while j < u.endIndex {
                if u[j] == UInt8(ascii: "}"), u.index(after: j) < u.endIndex, u[u.index(after: j)] == UInt8(ascii: "}") {
                    close = j
                    break
                }
                j = u.index(after: j)
            }
            guard let close else { break }
            let end = u.index(close, offsetBy: 2)
            let name = template[innerStart..<close].trimmingSpaces()
            body(.literal(template[literalStart..<i]))
            if isName(name) {
                body(.placeholder(name: name, raw: template[i..<end]))
            } else {
                body(.literal(template[i..<end]))
            }
            literalStart = end
            i = end
        }
        body(.literal(template[literalStart...]))
    }
}
