import RocketBanners
package import RocketConversation
import RocketCore
import RocketFlow
import RocketJSON
import RocketPlatform
package import RocketText

/// The JSON a client draws a conversation from (the API's `conversation` object): status, author,
/// the transcript with every block's content and style, what the newest block accepts, the
/// typing indicator and the input error. Text is data: clients render it as text, never as HTML.
package enum ConversationView {
    /// Serialized transcript items that can no longer change (replies, text and picture
    /// blocks, and blocks that fired), kept with the conversation so each answer serializes only
    /// what is new.
    package struct TranscriptCache: Sendable {
        /// How many leading transcript items `bytes` holds.
        package var count = 0
        /// Those items' JSON, comma-separated, without brackets.
        package var bytes: [UInt8] = []

        /// Adds the items after `count` that are final now.
        package mutating func extend(_ c: Conversation, flow: LoadedFlow) {
            let items = c.transcript
            guard count < items.count else { return }
            var w = JSONBytes(capacity: 0)
            swap(&w.out, &bytes)
            defer { swap(&w.out, &bytes) }
            while count < items.count {
                let item = items[count]
                if case .block(let index, let node, _) = item {
                    let kind = c.graph[node].kind
                    guard kind == .text || kind == .image || c.hasFired(index) else { return }
                }
                if !w.out.isEmpty { w.comma() }
                ConversationView.item(item, c, flow: flow, into: &w)
                count += 1
            }
        }
    }

    /// Writes one transcript item's JSON.
    static func item(_ item: TranscriptItem, _ c: Conversation, flow: LoadedFlow, into w: inout JSONBytes) {
        switch item {
        case .block(let index, let node, let text):
            block(c, index: index, node: c.graph[node], text: text, statics: flow.statics.nodes[node.rawValue], into: &w)
        case .reply(let blockIndex, let text, let isSecret):
            w.open()
            w.key("type", first: true)
            w.string("reply")
            w.key("after")
            w.number(blockIndex)
            w.key("text")
            w.string(text)
            w.key("secret")
            w.bool(isSecret)
            w.close()
        }
    }

    /// The view of `conversation`, as JSON bytes (`cache`: its final transcript items, serialized).
    package static func bytes(
        id: String, flow: LoadedFlow, conversation c: Conversation, step: Int, version: Int, strings: UIStrings,
        cache: TranscriptCache = TranscriptCache()
    ) -> [UInt8] {
        var w = JSONBytes(capacity: cache.bytes.count + 512)
        w.open()
        w.key("id", first: true)
        w.string(id)
        w.key("flow")
        w.string(flow.name)
        w.key("step")
        w.number(step)
        w.key("version")
        w.number(version)
        w.key("status")
        w.string(c.status.word)
        if let r = c.status.reason {
            w.key("reason")
            w.string(r.recordName)
        }
        w.key("author")
        w.raw(flow.statics.author)
        w.key("closeButton")
        w.raw(flow.statics.closeButton)
        w.key("typing")
        w.bool(typing(c))
        // The transcript: the cached final items as they are, then the rest.
        w.key("transcript")
        w.openArray()
        let known = min(cache.count, c.transcript.count)
        w.raw(cache.bytes)
        var first = known == 0
        for item in c.transcript[known...] {
            if !first { w.comma() }
            first = false
            Self.item(item, c, flow: flow, into: &w)
        }
        w.closeArray()
        w.key("active")
        if let active = c.interactiveIndex { w.number(active) } else { w.null() }
        w.key("accepts")
        w.openArray()
        for (i, name) in c.acceptedIntents.enumerated() {
            if i > 0 { w.comma() }
            w.string(name.rawValue)
        }
        w.closeArray()
        w.key("inputError")
        if let e = c.inputError { w.string(strings.message(for: e)) } else { w.null() }
        if let banner = flow.document.banner, c.status.isVisible {
            var json = banner.filled { c.interpolate($0) }.flowJSON
            // A picture icon becomes a URL the page can load (a data: URI or the flow's file route).
            if case .image(let image) = banner.icon, case .object(var members) = json {
                members.removeAll { $0.0 == "icon" }
                members.append(("iconImage", imageSource(image, flow: flow.name)))
                json = .object(members)
            }
            w.key("banner")
            w.value(json)
        }
        w.close()
        return w.out
    }

    /// True while a block is on its way: the intro, a bounce, or an auto-advance countdown.
    static func typing(_ c: Conversation) -> Bool {
        guard c.status == .presenting || c.status == .active else { return false }
        return c.state.timers.contains { t in
            switch t.action {
            case .appendRoot, .autoAdvance: return true
            case .advance(_, let to): return to != nil
            case .closeByUser, .finishClosing: return false
            }
        }
    }

    static func font(_ f: RocketFont) -> JSONValue {
        if let preset = f.presetName { return .object([("preset", .string(preset))]) }
        var o: [(String, JSONValue)] = [
            ("size", .number(f.font.size)), ("weight", .string(f.font.weight.rawValue)), ("color", .string(f.color.hexString)),
        ]
        if let family = f.font.family { o.append(("family", .string(family))) }
        return .object(o)
    }

    /// A URL for an image: a `data:` URI for bytes, the flow's file route for a relative path.
    static func imageSource(_ image: RocketImage, flow: String) -> JSONValue {
        switch image {
        case .bytes(let b):
            let type = b.starts(with: [0xFF, 0xD8]) ? "image/jpeg" : "image/png"
            return .string("data:\(type);base64,\(Base64.encode(b))")
        case .file(let path):
            guard let safe = FilePath.relative(path) else { return .null }
            return .string("/v1/flows/\(flow)/files/" + FilePath.percentEncoded(safe))
        }
    }

    static func block(_ c: Conversation, index: Int, node: RocketNode, text: String, statics: ViewStatics.Node, into w: inout JSONBytes) {
        w.open()
        w.key("type", first: true)
        w.string(node.kind.rawValue)
        w.key("index")
        w.number(index)
        w.key("id")
        if let id = node.id { w.string(id) } else { w.null() }
        func titled(_ title: String, font: [UInt8]) {
            w.open()
            w.key("title", first: true)
            w.string(c.interpolate(title))
            w.key("font")
            w.raw(font)
            w.close()
        }
        switch node.content {
        case .text, .image:
            w.key("text")
            w.string(text)
        case .button(let b):
            w.key("title")
            w.string(c.interpolate(b.title))
            w.key("pressed")
            w.bool(c.hasFired(index))
        case .doubleButton(let l, let r):
            w.key("left")
            titled(l.title, font: statics.fonts[0])
            w.key("right")
            titled(r.title, font: statics.fonts[1])
            w.key("pressed")
            if let side = c.pressedSide[index] { w.string(side.rawValue) } else { w.null() }
        case .textInput(let i):
            w.key("text")
            w.string(text)
            w.key("buttonTitle")
            w.string(c.interpolate(i.buttonTitle))
            w.key("placeholder")
            if let p = i.placeholder { w.string(c.interpolate(p)) } else { w.null() }
        case .choice(let ch):
            w.key("text")
            w.string(text)
            w.key("options")
            w.openArray()
            for k in ch.options.indices {
                if k > 0 { w.comma() }
                titled(ch.options[k].title, font: statics.fonts[k])
            }
            w.closeArray()
            w.key("chosen")
            if let n = c.chosenOptions[index] { w.number(n) } else { w.null() }
        }
        w.raw(statics.members)
        w.close()
    }
}

/// The parts of a flow's view that never change while it runs, built once when the flow is
/// loaded: every font, picture (a data: URI is base64-encoded once, not per answer), style and
/// rule, and the author and close button.
package struct ViewStatics: Sendable {
    /// Per node (by graph index): its unchanging members, and the fonts of its buttons or options.
    struct Node: Sendable {
        /// Its unchanging members, serialized, each after a comma.
        var members: [UInt8]
        /// The fonts of its buttons or options, serialized.
        var fonts: [[UInt8]]

        init(members: [(String, JSONValue)], fonts: [JSONValue]) {
            var w = JSONBytes(capacity: 64)
            for (key, value) in members {
                w.key(escaping: key)
                w.value(value)
            }
            self.members = w.out
            self.fonts = fonts.map { $0.serializedBytes() }
        }
    }
    /// The author, serialized.
    var author: [UInt8]
    /// The close button (`null` when there is none), serialized.
    var closeButton: [UInt8]
    var nodes: [Node]

    /// The statics of `graph` (flow `flow`) with its speaker and close button.
    init(graph: RocketGraph, author: RocketAuthor, closeButton: RocketCloseButton?, flow: String) {
        let F = ConversationView.font
        self.author = JSONValue.object([
            ("name", .string(author.name)), ("imageStyle", .string(author.style.rawValue)),
            ("image", author.image.map { ConversationView.imageSource($0, flow: flow) } ?? .null),
        ]).serializedBytes()
        self.closeButton = (closeButton.map { .object([("title", .string($0.title)), ("font", F($0.style))]) } ?? JSONValue.null).serializedBytes()
        nodes = graph.nodes.map { node in
            switch node.content {
            case .text(let t): return Node(members: [("font", F(t.font))], fonts: [])
            case .image(let i):
                return Node(
                    members: [
                        ("font", F(i.font)), ("image", ConversationView.imageSource(i.image, flow: flow)), ("imageStyle", .string(i.imageStyle.rawValue)),
                        ("paddingLeft", .number(i.paddingLeft)), ("paddingRight", .number(i.paddingRight)),
                    ], fonts: [])
            case .button(let b): return Node(members: [("font", F(b.font))], fonts: [])
            case .doubleButton(let l, let r): return Node(members: [], fonts: [F(l.font), F(r.font)])
            case .textInput(let i):
                var m: [(String, JSONValue)] = [("font", F(i.font)), ("buttonFont", F(i.buttonStyle)), ("secret", .bool(i.isSecret))]
                if let v = i.validation {
                    var rules: [(String, JSONValue)] = [("required", .bool(v.required))]
                    if let n = v.minLength { rules.append(("minLength", .number(Double(n)))) }
                    if let n = v.maxLength { rules.append(("maxLength", .number(Double(n)))) }
                    m.append(("validation", .object(rules)))
                }
                return Node(members: m, fonts: [])
            case .choice(let ch): return Node(members: [("font", F(ch.font))], fonts: ch.options.map { F($0.font) })
            }
        }
    }
}
