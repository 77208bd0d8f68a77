import RocketText
import Testing

/// The built-in texts in every language: each one translated (nothing left in English by
/// mistake), with the placeholders its English text has, and found from a locale.
@Suite("Built-in texts in every language")
struct UIStringsTests {
    /// Every text of `s` by its field's name; the web widget's words as "web.KEY"; a list of
    /// words joined.
    static func texts(_ s: UIStrings) -> [String: String] {
        var out: [String: String] = [:]
        for child in Mirror(reflecting: s).children {
            guard let name = child.label else { continue }
            switch child.value {
            case let text as String: out[name] = text
            case let words as [String]: out[name] = words.joined(separator: "|")
            case let table as [String: String]: for (k, v) in table { out["web." + k] = v }
            default: Issue.record("\(name) is of a kind this test does not read")
            }
        }
        return out
    }

    /// The placeholders of `text`, in order (`%d`, `%@`, and `%b`, the bottom of a scale).
    static func placeholders(_ text: String) -> [String] {
        let chars = Array(text)
        return chars.indices.dropLast().compactMap { i in
            chars[i] == "%" && (chars[i + 1] == "d" || chars[i + 1] == "@" || chars[i + 1] == "b") ? "%" + String(chars[i + 1]) : nil
        }
    }

    /// Texts that are the same word in a language as in English.
    static let sameAsEnglish: [String: Set<String>] = [
        "zh": ["closeHint", "dateForm", "timeForm"],
        "it": ["closeHint", "noWords", "noTitle", "timeForm", "aside"],
        "es": ["closeHint", "noWords", "noTitle", "timeForm", "aside"],
        "fr": ["imageLabel", "styleDestructive", "web.pause", "web.conversation", "timeForm", "aside"],
        "de": ["closeHint", "web.pause", "timeForm", "aside"],
        "pt": ["closeHint", "timeForm", "aside"],
        "ja": ["closeHint", "dateForm", "timeForm"],
        "ru": ["closeHint", "timeForm", "aside"],
        "ko": ["closeHint", "dateForm", "timeForm", "aside"],
        "nl": ["closeHint", "timeForm", "aside"],
    ]

    @Test("every language gives every text, the web widget's words too, in its own words, with English's placeholders in the same order")
    func complete() {
        let english = Self.texts(.english)
        #expect(english.count > 70, "the fields were read: \(english.count)")
        #expect(Set(UIStrings.all.map(\.language)).count == UIStrings.all.count, "one entry per language")
        #expect(UIStrings.all.first?.language == "en")
        for strings in UIStrings.all.dropFirst() {
            let texts = Self.texts(strings)
            #expect(Set(texts.keys) == Set(english.keys), "\(strings.language): the same texts as English")
            for (name, text) in texts where name != "language" {
                let base = english[name] ?? ""
                #expect(!text.isEmpty, "\(strings.language).\(name) is empty")
                #expect(Self.placeholders(text) == Self.placeholders(base), "\(strings.language).\(name): \(text) against \(base)")
                if text == base {
                    #expect(
                        Self.sameAsEnglish[strings.language]?.contains(name) == true,
                        "\(strings.language).\(name) is still English: \(text)")
                }
            }
            // Yes and no are told apart, in lower case, and the English words work too.
            #expect(Set(strings.yesWords).isDisjoint(with: strings.noWords), "\(strings.language)")
            #expect(strings.yesWords.allSatisfy { $0 == $0.lowercased() } && strings.noWords.allSatisfy { $0 == $0.lowercased() })
            #expect(strings.yesWords.contains("y") && strings.yesWords.contains("yes"), "\(strings.language)")
            #expect(strings.noWords.contains("n") && strings.noWords.contains("no"), "\(strings.language)")
        }
        // The list of same words names only texts that are the same.
        for (language, names) in Self.sameAsEnglish {
            guard let strings = UIStrings.all.first(where: { $0.language == language }) else {
                Issue.record("no language \(language)")
                continue
            }
            let texts = Self.texts(strings)
            for name in names { #expect(texts[name] == english[name], "\(language).\(name) is translated now: drop it from the list") }
        }
    }

    @Test("a locale finds its language by its first two letters, whatever its region and encoding; others get English")
    func locales() {
        for strings in UIStrings.all {
            let code = strings.language
            for locale in [code, code.uppercased(), code + "_XX.UTF-8", code + "-YY"] {
                #expect(UIStrings.language(forLocale: locale) == code, "\(locale)")
                #expect(UIStrings.forEnvironment(["LANG": locale]) == strings, "\(locale)")
            }
        }
        for other in ["", "C", "POSIX", "sv_SE.UTF-8", "x", "e", "sv-FI"] {
            #expect(UIStrings.language(forLocale: other) == "en", "\(other)")
        }
        #expect(UIStrings.forEnvironment(["LC_ALL": "fr_CA.UTF-8", "LANG": "de_DE.UTF-8"]).language == "fr")
        #expect(UIStrings.forEnvironment(["LC_MESSAGES": "ja_JP.UTF-8", "LANG": "es_ES.UTF-8"]).language == "ja")
    }
}
