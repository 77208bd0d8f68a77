import Foundation
import RocketFlow
import RocketConversation
import RocketCore
import RocketJSON
import RocketText
import Testing

@testable import RocketServer

/// The widget's script, as committed (what the binary embeds).
private func widgetScript() throws -> String {
    let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Sources/RocketServer/Web/widget.js")
    return try String(contentsOf: path, encoding: .utf8)
}

/// The names read after `prefix` in `script` (`item.font` → "font").
private func names(after prefix: String, in script: String) -> Set<String> {
    let pattern = try! NSRegularExpression(pattern: "(?<![A-Za-z0-9_$])" + NSRegularExpression.escapedPattern(for: prefix) + "([A-Za-z_$][A-Za-z0-9_$]*)")
    let range = NSRange(script.startIndex..., in: script)
    return Set(pattern.matches(in: script, range: range).compactMap { Range($0.range(at: 1), in: script).map { String(script[$0]) } })
}

/// The fields of `object` that the table says the web is sent.
private func webFields(_ object: FlowObjectInfo) -> Set<String> {
    Set(object.fields.filter { $0.shownBy.contains(.web) && $0.role != .logic }.map(\.name))
}

@Suite("The view's fields come from the flow format's table, and the widget reads those")
struct ViewFieldTests {
    @Test("the widget's limits on a start's variables and on a typed answer are the server's (RocketLimits), its digits' pause a rating's")
    func variableLimits() throws {
        let script = try widgetScript()
        let expected =
            "varLimits: { count: \(RocketLimits.startVariables), nameBytes: \(RocketLimits.startVariableNameBytes), "
            + "valueBytes: \(RocketLimits.startVariableValueBytes) }"
        #expect(script.contains(expected), "widget.js should say \(expected)")
        let answer = "answerBytes: \(RocketLimits.submittedTextBytes),"
        #expect(script.contains(answer), "widget.js should say \(answer)")
        let pause = "digitPause: \(Int(RocketRatingNode.digitPause * 1000)),"
        #expect(script.contains(pause), "widget.js should say \(pause)")
        let side = "largestSide: \(PictureFormat.largestSide),"
        #expect(script.contains(side), "widget.js should say \(side)")
    }

    @Test("every word the widget says by name is in every language's table, with the same keys and the same %d and %@ as English")
    func widgetWords() throws {
        let script = try widgetScript()
        // Said directly (say("done")) or handed to say as a rule's key (key: "chooseRange").
        let pattern = try NSRegularExpression(pattern: #"(?:say\(|key: )"([A-Za-z]+)""#)
        let named = Set(
            pattern.matches(in: script, range: NSRange(script.startIndex..., in: script)).compactMap {
                Range($0.range(at: 1), in: script).map { String(script[$0]) }
            })
        #expect(named.count > 20 && named.contains("chooseExactly"), "\(named.sorted())")
        let english = UIStrings.english.widgetWords
        for key in named.sorted() { #expect(english[key] != nil, "widget.js says \(key), which English lacks") }
        func marks(_ s: String) -> [String] {
            var out: [String] = []
            var rest = Substring(s)
            while let i = rest.firstIndex(of: "%") {
                let next = rest.index(after: i)
                guard next < rest.endIndex else { break }
                out.append(String(rest[i...next]))
                rest = rest[rest.index(after: next)...]
            }
            return out
        }
        for strings in UIStrings.all where strings.language != "en" {
            let words = strings.widgetWords
            #expect(Set(words.keys) == Set(english.keys), "\(strings.language): \(Set(words.keys).symmetricDifference(english.keys).sorted())")
            for (key, text) in words {
                #expect(marks(text).sorted() == marks(english[key] ?? "").sorted(), "\(strings.language) \(key): \(text)")
            }
        }
    }

    @Test("every block field the table sends the web is in the view under its flow-file name, and nothing else is")
    func viewFollowsTheTable() throws {
        let flow = #"""
            {"version": 1, "author": {"name": "Ada", "style": "round"}, "closeButton": {"title": "Close"}, "blocks": [
             {"id": "t", "type": "text", "text": "Hi {{name}}", "next": "p", "font": "textBold"},
             {"id": "p", "type": "image", "image": "p.png", "text": "A picture", "next": "b"},
             {"id": "b", "type": "button", "title": "Go {{name}}", "action": "go", "next": "d", "font": {"size": 20, "color": "#123456"}, "image": "b.png",
              "link": "https://rocket.example/{{name}}"},
             {"id": "d", "type": "doubleButton", "left": {"title": "L", "next": "c"}, "right": {"title": "R", "next": "c"}},
             {"id": "c", "type": "choice", "text": "Pick", "options": [{"title": "A", "next": "i", "action": "a", "image": "cards/a b.png"}, {"title": "B", "next": "i"}]},
             {"id": "i", "type": "textInput", "text": "Name?", "buttonTitle": "OK", "placeholder": "you", "secret": true,
              "validate": {"required": true, "maxLength": 9, "pattern": "^a", "message": "no"}, "branches": [{"when": {"empty": true}, "next": "t"}]}]}
            """#
        let loaded = FlowLoader.load(flow)
        let doc = try #require(loaded.document)
        let graph = doc.makeGraph()
        // Every picture's size is known here: each one at the top of a block is followed by it.
        let statics = ViewStatics(
            graph: graph, author: doc.makeAuthor(), closeButton: doc.makeCloseButton(), flow: "f", size: { _ in PictureSize(width: 3, height: 2) })
        var sized = 0
        for (k, node) in graph.nodes.enumerated() {
            var w = JSONBytes()
            w.open()
            w.key("type", first: true)
            w.string(node.kind.rawValue)
            statics.nodes[k].write(into: &w, shownText: "shown") { "filled(" + $0 + ")" }
            w.close()
            let members = try #require(try JSONReader.parse(w.out).object)
            let kind = try #require(FlowFormat.v1.blocks.first { $0.kind == node.kind })
            let pictures = kind.info.fields.filter { $0.shownBy.contains(.web) && $0.role != .logic && $0.type == .image }.map(\.name)
            let expected = webFields(kind.info).union(pictures.map { $0 + ViewTemplate.sizeSuffix })
            let written = Set(members.map(\.key)).subtracting(["type"])
            for name in pictures where written.contains(name) {
                let json = String(decoding: w.out, as: UTF8.self)
                #expect(json.contains("\"\(name)\(ViewTemplate.sizeSuffix)\":{\"width\":3,\"height\":2}"), "\(json)")
                sized += 1
            }
            // Optional fields absent from this flow are absent from the view; nothing outside the table is there.
            #expect(written.isSubset(of: expected), "\(node.kind): \(written.subtracting(expected))")
            #expect(!written.contains("next") && !written.contains("action") && !written.contains("branches"))
            let text = String(decoding: w.out, as: UTF8.self)
            #expect(!text.contains("\"pattern\"") && !text.contains("\"message\""), "rules the engine applies stay on the server")
            if node.kind == .button {
                #expect(text.contains("filled(Go {{name}})"), "a title is filled for the conversation")
                #expect(text.contains(#""link":"https://rocket.example/{{name}}""#), "a link is sent as written: no answer becomes part of it")
            }
            if node.kind == .text { #expect(text.contains("\"text\":\"shown\""), "a block's text is the one the transcript shows") }
            if node.kind == .choice {
                #expect(text.contains(#""image":"/v1/flows/f/files/cards/a%20b.png""#), "an option's picture is the flow folder's file: \(text)")
            }
        }
        #expect(sized == 2, "the image block's picture and the button's")
        #expect(String(decoding: statics.author, as: UTF8.self) == #"{"name":"Ada","style":"round"}"#)
    }

    @Test("the widget reads exactly the block fields the table sends the web (and the view's own members)")
    func widgetReadsTheTable() throws {
        let script = try widgetScript()
        let read = names(after: "item.", in: script)
        var sent = Set<String>()
        for kind in FlowFormat.v1.blocks { sent.formUnion(webFields(kind.info)) }
        // What the view adds to every block (a waiting input's starting text among them), and what
        // a reply item holds.
        let own: Set<String> = [
            "type", "index", "id", "pressed", "chosen", "rated", "value", "starting", "after", "secret", "text", "image" + ViewTemplate.sizeSuffix,
        ]
        #expect(read.isSubset(of: sent.union(own)), "the widget reads fields no view has: \(read.subtracting(sent.union(own)).sorted())")
        #expect(sent.isSubset(of: read), "the widget draws no \(sent.subtracting(read).sorted())")
        let validate = try #require(FlowFormat.v1.objects.first { $0.name == "validate" })
        #expect(names(after: "item.validate.", in: script) == webFields(validate))
        let author = try #require(FlowFormat.v1.objects.first { $0.name == "author" })
        #expect(names(after: "v.author.", in: script) == webFields(author))
    }

    @Test("the widget sends and offers only the intents the engine names")
    func widgetIntents() throws {
        let script = try widgetScript()
        let pattern = try NSRegularExpression(pattern: #"intent: "([A-Za-z]+)"|can\("([A-Za-z]+)"\)|accepts\.indexOf\("([A-Za-z]+)"\)"#)
        var used = Set<String>()
        for m in pattern.matches(in: script, range: NSRange(script.startIndex..., in: script)) {
            for g in 1...3 { if let r = Range(m.range(at: g), in: script) { used.insert(String(script[r])) } }
        }
        #expect(used == Set(RocketIntent.Name.allCases.map(\.rawValue)), "\(used.symmetricDifference(Set(RocketIntent.Name.allCases.map(\.rawValue))))")
    }
}
