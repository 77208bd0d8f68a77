import Foundation
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
    /// Replaces every known placeholder in `template`.
    public static func render(_ template: String, answers: [String: RocketAnswer]) -> String {
        guard template.contains("{{") else { return template }
        var out = ""
        forEachPart(of: template) { part in
            switch part {
            case .literal(let s): out += s
            case .placeholder(let name, let raw):
                if let answer = answers[name] {
                    out += answer.isSecret ? mask(answer.value) : answer.value
                } else {
                    out += raw
                }
            }
        }
        return out
    }

    /// The placeholder names used in `template`, in order of appearance.
    public static func placeholders(in template: String) -> [String] {
        guard template.contains("{{") else { return [] }
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

    private static func isNameCharacter(_ c: Character) -> Bool {
        c.isLetter || c.isNumber || c == "_" || c == "-" || c == "."
    }

    private static func forEachPart(of template: String, _ body: (Part) -> Void) {
        var rest = template[...]
        while let open = rest.range(of: "{{") {
            guard let close = rest[open.upperBound...].range(of: "}}") else { break }
            let inner = rest[open.upperBound..<close.lowerBound]
            let name = inner.trimmingCharacters(in: .whitespaces)
            body(.literal(rest[..<open.lowerBound]))
            if !name.isEmpty && name.allSatisfy(isNameCharacter) {
                body(.placeholder(name: name, raw: rest[open.lowerBound..<close.upperBound]))
            } else {
                body(.literal(rest[open.lowerBound..<close.upperBound]))
            }
            rest = rest[close.upperBound...]
        }
        body(.literal(rest))
    }
}
