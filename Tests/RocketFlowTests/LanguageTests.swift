import RocketBanners
import RocketConversation
import RocketCore
import Testing

@testable import RocketFlow

/// Flows in several languages.
@Suite("Languages")
struct LanguageTests {
    static let flow = #"""
        {"version": 1, "languages": ["en", "it"], "vars": {"name": "friend"},
         "author": {"name": {"en": "Guide", "it": "Guida"}},
         "banner": {"title": {"en": "Welcome", "it": "Benvenuto"}},
         "blocks": [
          {"id": "hi", "type": "text", "text": {"en": "Hi {{name}}", "it": "Ciao {{name}}"}, "next": "ask"},
          {"id": "ask", "type": "doubleButton", "left": {"title": {"en": "Yes", "it": "Sì"}}, "right": {"title": "OK"}}
         ]}
        """#

    @Test("right to left: by the tag's script when it names one, else by the language")
    func rightToLeft() {
        for tag in ["ar", "AR", "ar-EG", "he", "he-IL", "fa", "ur-PK", "ps", "yi", "dv", "ckb", "az-Arab", "pa-Arab", "sd", "ug"] {
            #expect(FlowDocument.isRightToLeft(tag), "\(tag)")
        }
        for tag in ["en", "fr", "zh-Hant", "ja", "ku-Latn", "uz-Cyrl", "ar-Latn", "hi", "az", "", "-", "arab"] {
            #expect(!FlowDocument.isRightToLeft(tag), "\(tag)")
        }
    }

    @Test("a flow is read in the language asked for, the one that fits it, or its first")
    func picks() throws {
        func text(_ lang: String?) throws -> [String] {
            let doc = try #require(FlowLoader.load(Array(Self.flow.utf8), language: lang).document)
            return [doc.graph.nodes[0].rawText, doc.graph.nodes[1].rawText, doc.author?.name ?? "", doc.banner?.title ?? "", doc.language ?? "-"]
        }
        #expect(try text(nil) == ["Hi {{name}}", "Yes | OK", "Guide", "Welcome", "en"])
        #expect(try text("it") == ["Ciao {{name}}", "Sì | OK", "Guida", "Benvenuto", "it"])
        #expect(try text("it-CH") == ["Ciao {{name}}", "Sì | OK", "Guida", "Benvenuto", "it"])
        #expect(try text("fr") == ["Hi {{name}}", "Yes | OK", "Guide", "Welcome", "en"])
        #expect(FlowLoader.load(Self.flow).diagnostics.isEmpty)
        let doc = try #require(FlowLoader.load(Self.flow).document)
        #expect(doc.language(for: "IT") == "it" && doc.language(for: nil) == "en" && doc.language(for: "zh-Hans-CN") == "en")
    }

    @Test("lint: a missing translation and different placeholders are warnings at their place; an unknown language or no default, errors")
    func lint() {
        func found(_ json: String) -> [String] {
            FlowLoader.load(json).diagnostics.map { "\($0.line ?? 0):\($0.column ?? 0) \($0.severity.rawValue) \($0.code)" }
        }
        let head = #"{"version": 1, "languages": ["en", "it", "zh"], "blocks": [{"id": "a", "type": "text", "text": "#
        #expect(found(head + #"{"en": "Hi", "it": "Ciao", "zh": "你好"}}]}"#).isEmpty)
        #expect(found(head + #"{"en": "Hi", "it": "Ciao"}}]}"#) == ["1:96 warning missing-translation"])
        #expect(
            found(head + #"{"en": "Hi {{n}}", "it": "Ciao {{m}}", "zh": "你好 {{n}}"}}]}"#) == [
                "1:60 warning unknown-placeholder", "1:115 warning translation-placeholders",
            ])
        #expect(found(head + #"{"en": "Hi", "it": "Ciao", "zh": "你好", "fr": "Salut"}}]}"#) == ["1:135 error unknown-language"])
        #expect(found(head + #"{"it": "Ciao", "zh": "你好"}}]}"#) == ["1:96 error missing-translation"])
        #expect(
            found(#"{"version": 1, "blocks": [{"id": "a", "type": "text", "text": {"en": "Hi"}}]}"#).map { String($0.split(separator: " ").last!) } == [
                "no-languages"
            ])
        #expect(
            found(#"{"version": 1, "languages": ["en", "english", "en"], "blocks": [{"id": "a", "type": "text", "text": "x"}]}"#)
                .map { String($0.split(separator: " ").last!) } == ["bad-value", "repeated-field"])
    }
}
