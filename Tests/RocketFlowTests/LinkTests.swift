import Foundation
import RocketConversation
import RocketCore
import RocketFlow
import RocketJSON
import Testing

@Suite("Buttons that open pages (link)")
struct LinkTests {
    static let flow = #"""
        {"version": 1, "blocks": [
         {"id": "a", "type": "button", "title": "Docs", "link": "https://rocket.example/docs?x=1#y", "next": "b"},
         {"id": "b", "type": "doubleButton", "left": {"title": "Pricing", "link": "http://rocket.example/pricing", "next": "c"}, "right": {"title": "No", "next": "c"}},
         {"id": "c", "type": "choice", "text": "More?", "options": [{"title": "Blog", "link": "https://blog.example"}, {"title": "None"}]}
        ]}
        """#

    @Test("A button, a side and an option may name a page; the press names it, and it is written back as it was read")
    func loads() throws {
        let r = FlowLoader.load(Self.flow)
        #expect(r.diagnostics.isEmpty, "\(r.diagnostics)")
        let doc = try #require(r.document)
        let nodes = doc.graph.nodes
        #expect(nodes[0].link(side: nil, option: nil) == "https://rocket.example/docs?x=1#y")
        #expect(nodes[1].link(side: .left, option: 0) == "http://rocket.example/pricing")
        #expect(nodes[1].link(side: .right, option: 1) == nil)
        #expect(nodes[2].link(side: nil, option: 0) == "https://blog.example")
        #expect(nodes[2].link(side: nil, option: 1) == nil && nodes[2].link(side: nil, option: 9) == nil)
        // rocket graph marks each button that opens a page.
        let mermaid = FlowGraph.mermaid(doc)
        #expect(mermaid.contains("button: Docs ↗") && mermaid.contains("buttons: Pricing ↗ #124; No\"") && mermaid.contains(#"|"Blog ↗"|"#), "\(mermaid)")
        let again = FlowLoader.load(doc.jsonValue.serialized())
        #expect(again.document == doc)
        // A flow without links keeps its graph's identity (saved conversations name it).
        let plain = #"{"version": 1, "blocks": [{"id": "a", "type": "button", "title": "Docs"}]}"#
        let encoded = try JSONCoding.encode(try #require(FlowLoader.load(plain).document).makeGraph()).serialized(pretty: false)
        #expect(!encoded.contains("link"))
        #expect(try JSONCoding.encode(doc.makeGraph()).serialized(pretty: false).contains(#""link":"https://rocket.example/docs?x=1#y""#))
    }

    @Test("Lint refuses a link that is not an http or https page with a host, or that could hide where it goes, at its place")
    func refused() {
        for bad in [
            "javascript:alert(1)", "JAVASCRIPT:alert(1)", "data:text/html,x", "//rocket.example", "https://", "https:///x", "https://?q", "ftp://x",
            "https://a b", "https://a\\\"b", "https://a'b", "https://a<b", "https://a\\\\b", "https://a`b", "https://x/\\u202Eevil",
            "https://x/\\u0007", "https://" + String(repeating: "a", count: 2041),
        ] {
            let text = #"{"version": 1, "blocks": [{"id": "a", "type": "button", "title": "Go", "link": "\#(bad)"}]}"#
            let r = FlowLoader.load(text)
            #expect(r.errors.map(\.code) == ["bad-link"], "\(bad): \(r.diagnostics)")
            // At the value: the column after `"link": `.
            let column = text.distance(from: text.startIndex, to: text.range(of: #""link": "#)!.upperBound) + 1
            #expect(r.errors.first?.path == "blocks[0].link" && r.errors.first?.column == column, "\(bad)")
        }
        #expect(RocketButtonNode.isLink("https://" + String(repeating: "a", count: 2040)))
        // A multiple choice's options are ticked, never pressed.
        let many = #"""
            {"version": 1, "blocks": [{"id": "c", "type": "choice", "text": "Pick", "multiple": true,
              "options": [{"title": "A", "link": "https://a.example"}, {"title": "B"}]}]}
            """#
        let r = FlowLoader.load(many)
        #expect(r.errors.map(\.code) == ["link-in-multiple"] && r.errors.first?.path == "blocks[0].options[0].link", "\(r.diagnostics)")
    }

    @Test("A button, side or option may show a picture; a multiple choice's may not; it is written back as read")
    func pictures() throws {
        let flow = #"""
            {"version": 1, "blocks": [
             {"id": "c", "type": "choice", "text": "Which?", "options": [{"title": "Red", "image": "red.png", "next": "d"}, {"title": "None", "next": "d"}]},
             {"id": "d", "type": "button", "title": "OK", "image": "data:image/png;base64,iVBORw0KGgo="}]}
            """#
        let r = FlowLoader.load(flow)
        #expect(r.diagnostics.isEmpty, "\(r.diagnostics)")
        let doc = try #require(r.document)
        guard case .choice(let c) = doc.graph.nodes[0].content else { Issue.record("not a choice"); return }
        #expect(c.options[0].image == .file("red.png") && c.options[1].image == nil)
        #expect(FlowLoader.load(doc.jsonValue.serialized()).document == doc)
        let many = #"""
            {"version": 1, "blocks": [{"id": "c", "type": "choice", "text": "Pick", "multiple": true,
              "options": [{"title": "A", "image": "a.png"}, {"title": "B"}]}]}
            """#
        let m = FlowLoader.load(many)
        #expect(m.errors.map(\.code) == ["image-in-multiple"] && m.errors.first?.path == "blocks[0].options[0].image", "\(m.diagnostics)")
    }
}
