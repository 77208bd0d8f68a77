import RocketBanners
package import RocketConversation
import RocketCore
import RocketFlow
import RocketJSON
import RocketPlatform
import RocketText

/// The JSON a client draws a conversation from (the API's `conversation` object): status, author,
/// the transcript with every block's content and style, what the newest block accepts, the
/// typing indicator and the input error. Text is data: clients render it as text, never as HTML.
package enum ConversationView {
    /// Serialized transcript items that can no longer change (replies, text and picture
    /// blocks, and blocks that fired), kept with the conversation so each answer serializes only
    /// what is new, and so an answer can leave out what the client holds already.
    package struct TranscriptCache: Sendable {
        /// How many leading transcript items `bytes` holds (the view's `settled`).
        package var count = 0
        /// Those items' JSON, comma-separated, without brackets.
        package var bytes: [UInt8] = []
        /// Where each of those items' JSON ends in `bytes`.
        package var ends: [UInt32] = []
        /// The first version whose view's settled items are still the first items now: a client
        /// that holds the view of this version or a later one holds them (``Held``). Set when the
        /// cache starts over (going back), and, for a cache made for a conversation whose earlier
        /// views were written by another (a restart, another server), to the version after the
        /// one it was made at: nil until then.
        package var validFrom: Int?

        /// An empty cache; `validFrom` as that property says (nil: set by the first ``extend(_:flow:version:)``).
        package init(validFrom: Int? = nil) { self.validFrom = validFrom }

        /// Adds the items after `count` that are final now, in the view of `version`. Going back
        /// makes items leave the transcript and its answered block open again: then the cache
        /// starts over.
        package mutating func extend(_ c: Conversation, flow: LoadedFlow, version: Int) {
            let items = c.transcript
            func isFinal(_ item: TranscriptItem) -> Bool { ConversationView.isFinal(item, c) }
            if validFrom == nil { validFrom = version + 1 }
            if count > items.count || (count > 0 && !isFinal(items[count - 1])) {
                count = 0
                bytes.removeAll(keepingCapacity: true)
                ends.removeAll(keepingCapacity: true)
                validFrom = version
            }
            guard count < items.count else { return }
            var w = JSONBytes(capacity: 0)
            swap(&w.out, &bytes)
            defer { swap(&w.out, &bytes) }
            while count < items.count {
                let item = items[count]
                guard isFinal(item) else { return }
                if !w.out.isEmpty { w.comma() }
                ConversationView.item(item, c, flow: flow, into: &w)
                ends.append(UInt32(truncatingIfNeeded: w.out.count))
                count += 1
            }
        }

        /// How many leading items of the view of `version` a client that holds `held` need not
        /// be sent (0: the whole transcript goes).
        func omitted(for held: Held?, version: Int) -> Int {
            guard let held, let validFrom, held.settled > 0, validFrom <= held.version, held.version <= version,
                held.settled <= count, held.settled <= ends.count
            else { return 0 }
            return held.settled
        }
    }

    /// What a client holds of a conversation, as its `Rocket-Settled` header says: the view of
    /// `version`, whose first `settled` transcript items can no longer change (that view's
    /// `settled`). An answer then leaves out the items the client holds (`transcriptFrom`).
    package struct Held: Equatable, Sendable {
        /// The version of the view the client holds.
        package var version: Int
        /// That view's `settled`.
        package var settled: Int

        /// The header's value, `VERSION/SETTLED` (two whole numbers of at most 9 digits each),
        /// or nil when it is not that.
        package init?(header value: String) {
            let parts = value.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
            guard parts.count == 2, let v = Self.number(parts[0]), let s = Self.number(parts[1]) else { return nil }
            version = v
            settled = s
        }

        /// `VERSION/SETTLED`.
        package init(version: Int, settled: Int) {
            self.version = version
            self.settled = settled
        }

        private static func number(_ digits: Substring.UTF8View.SubSequence) -> Int? {
            guard (1...9).contains(digits.count), digits.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
            return digits.reduce(0) { $0 * 10 + Int($1 - 0x30) }
        }
    }

    /// True when `item` of `c`'s transcript can no longer change while it stays there: a reply, a
    /// text or picture block, or a block that fired.
    static func isFinal(_ item: TranscriptItem, _ c: Conversation) -> Bool {
        guard case .block(let index, let node, _) = item else { return true }
        let kind = c.graph[node].kind
        return kind == .text || kind == .image || c.hasFired(index)
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
    static func bytes(
        id: String, flow: LoadedFlow, conversation c: Conversation, step: Int, version: Int, strings: ConversationService.SharedStrings,
        cache: TranscriptCache = TranscriptCache(), held: Held? = nil
    ) -> [UInt8] {
        let omitted = cache.omitted(for: held, version: version)
        var w = JSONBytes(capacity: cache.bytes.count + 512)
        writeID(id, into: &w)
        writeRest(
            flow: flow, conversation: c, step: step, version: version, strings: strings, cache: cache,
            omitting: held.map { Held(version: $0.version, settled: omitted) }, into: &w)
        return w.out
    }

    /// A view's opening: `{"id":"ID"`, which ``writeRest(flow:conversation:step:version:strings:cache:into:)``
    /// continues. A view is these two in turn; a start whose rest is known already writes only this.
    static func writeID(_ id: String, into w: inout JSONBytes) {
        w.open()
        w.key("id", first: true)
        w.string(id)
    }

    /// Everything of a view after its id (see ``writeID(_:into:)``), to its closing brace; the
    /// transcript without the first items of the view `omitting` names (at most the cache's: the
    /// client holds them), which `transcriptFrom` and `transcriptBase` then say.
    static func writeRest(
        flow: LoadedFlow, conversation c: Conversation, step: Int, version: Int, strings: ConversationService.SharedStrings,
        cache: TranscriptCache, omitting: Held? = nil, into w: inout JSONBytes
    ) {
        w.key("flow")
        w.string(flow.name)
        w.key("step")
        w.number(step)
        w.key("version")
        w.number(version)
        w.key("status")
        w.string(c.status.word)
        // The language of the conversation's own words (the widget's follow it).
        w.key("lang")
        w.string(strings.value.language)
        // The language of the flow's texts, and their direction (a page lays the conversation out by it).
        if let text = flow.statics.textLanguage {
            w.key("flowLang")
            w.string(text.tag)
            w.key("dir")
            w.string(text.rightToLeft ? "rtl" : "ltr")
        }
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
        // Auto-advance the visitor may hold (WCAG 2.2.1), and whether it is held.
        w.key("autoAdvance")
        w.bool(c.autoAdvancePending)
        w.key("held")
        w.bool(c.isHoldingAutoAdvance)
        // The transcript: the cached final items as they are (but those the client holds), then
        // the rest; how many of its first items can no longer change.
        let known = min(cache.count, c.transcript.count)
        let from = min(omitting?.settled ?? 0, known)
        if from > 0, let base = omitting {
            // Which view's first items these are: a client that shows an older one (a stream's
            // frames can come out of order) cannot fill them in.
            w.key("transcriptFrom")
            w.number(from)
            w.key("transcriptBase")
            w.number(base.version)
        }
        w.key("transcript")
        w.openArray()
        if from == 0 {
            w.raw(cache.bytes[..<(known == 0 ? 0 : Int(cache.ends[known - 1]))])
        } else if from < known {
            // After the comma that ends the last item held.
            w.raw(cache.bytes[(Int(cache.ends[from - 1]) + 1)..<Int(cache.ends[known - 1])])
        }
        var first = known == from
        // The settled items: the cache's, and the final ones after them (a cache made anew).
        var settled = known
        var settling = true
        for item in c.transcript[known...] {
            if !first { w.comma() }
            first = false
            settling = settling && Self.isFinal(item, c)
            if settling { settled += 1 }
            Self.item(item, c, flow: flow, into: &w)
        }
        w.closeArray()
        w.key("settled")
        w.number(settled)
        w.key("active")
        if let active = c.interactiveIndex { w.number(active) } else { w.null() }
        // The shown block `back` returns to (the widget offers "Edit" on its answer), or null.
        w.key("backTo")
        if let t = c.backTarget { w.number(t) } else { w.null() }
        w.key("accepts")
        w.openArray()
        for (i, name) in c.acceptedIntents.enumerated() {
            if i > 0 { w.comma() }
            w.string(name.rawValue)
        }
        w.closeArray()
        w.key("inputError")
        if let e = c.inputError { w.string(strings.value.message(for: e)) } else { w.null() }
        // What the waiting text input's empty field shows: the flow's placeholder, else the
        // answer's bounds or form. The view is the same at every moment (starts share it), so a
        // date's bound counted from today is left to the page, which bounds its date field by it.
        if let active = c.interactiveIndex, let hint = c.fieldHint(at: active, now: nil) {
            w.key("hint")
            w.string(strings.value.words(for: hint))
        }
        // Once it ends, the answers it was given (secret ones left out), as --answers-out writes them.
        if c.status.reason != nil {
            w.key("answers")
            w.open()
            for (k, answer) in flow.document.answerValues(of: c).enumerated() {
                w.key(escaping: answer.id, first: k == 0)
                w.value(answer.value)
            }
            w.close()
        }
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
    }

    /// True while a block is on its way: the intro, a bounce, or an auto-advance countdown.
    static func typing(_ c: Conversation) -> Bool {
        guard c.status == .presenting || c.status == .active else { return false }
        return c.state.timers.contains { t in
            switch t.action {
            case .appendRoot: return true
            case .autoAdvance: return !c.isHoldingAutoAdvance
            case .advance(_, let to): return to != nil
            case .closeByUser, .finishClosing: return false
            }
        }
    }

    /// A URL for an image: a `data:` URI for bytes, the flow's file route for a relative path.
    static func imageSource(_ image: RocketImage, flow: String) -> JSONValue {
        switch image {
        case .bytes: return .string(image.reference)
        case .file(let path):
            guard let safe = FilePath.relative(path) else { return .null }
            return .string("/v1/flows/\(flow)/files/" + FilePath.percentEncoded(safe))
        }
    }

    /// Writes one block: its kind, place and id, then the fields the flow format says the web
    /// draws (``ViewTemplate``: looks as they are, texts filled for this conversation), then
    /// what the conversation did with it (a pressed button, a chosen option).
    static func block(_ c: Conversation, index: Int, node: RocketNode, text: String, statics: ViewTemplate, into w: inout JSONBytes) {
        w.open()
        w.key("type", first: true)
        w.string(node.kind.rawValue)
        w.key("index")
        w.number(index)
        w.key("id")
        if let id = node.id { w.string(id) } else { w.null() }
        statics.write(into: &w, shownText: text) { c.interpolate($0) }
        switch node.content {
        case .text, .image, .set, .condition, .jump: break
        case .textInput:
            // What the field starts with while it waits: the flow's `value`, or the answer gone back to.
            if let text = c.startingText(at: index) {
                w.key("value")
                w.string(text)
            }
        case .button:
            w.key("pressed")
            w.bool(c.hasFired(index))
        case .doubleButton:
            w.key("pressed")
            if let side = c.pressedSide[index] { w.string(side.rawValue) } else { w.null() }
        case .choice(let choice):
            // What it starts with while it waits: the options ticked (or, of a single choice, the
            // one to start on), from the flow's "selected" or the answer gone back to.
            if let start = c.startingChoices(at: index) {
                w.key("starting")
                w.numbers(start)
            }
            w.key("chosen")
            if choice.multiple {
                if let set = c.chosenSets[index] {
                    w.numbers(set)
                } else {
                    w.null()
                }
            } else if let n = c.chosenOptions[index] {
                w.number(n)
            } else {
                w.null()
            }
        case .rating(let rating):
            if let start = c.startingChoices(at: index) {
                w.key("starting")
                w.numbers(start.map { $0 + rating.values.lowerBound })
            }
            w.key("rated")
            if let n = c.chosenOptions[index] { w.number(n + rating.values.lowerBound) } else { w.null() }
        }
        w.close()
    }
}

/// The members of a view made from the flow format's table (``FlowFormat/view(of:for:)``), as
/// pieces: bytes that are the same in every conversation of the flow (written once, when the flow
/// is loaded), and texts filled for the conversation when the view is written.
package struct ViewTemplate: Sendable {
    enum Piece: Sendable {
        /// Fixed JSON.
        case bytes([UInt8])
        /// A text with `{{name}}` placeholders, filled for the conversation.
        case content(String)
        /// The block's text as the transcript shows it (filled when the block appeared).
        case shownText
    }
    let pieces: [Piece]

    /// What a picture's name is followed by to name its size (`image`, `imageSize`).
    static let sizeSuffix = "Size"

    /// The template of `members`, each written as `,"name":value`; a content `"text"` at the top
    /// is the text the transcript shows. Pictures become URLs of flow `flow`; a picture at the
    /// top whose size `size` knows is followed by `,"nameSize":{"width":W,"height":H}`, so a page
    /// keeps its room before it arrives.
    init(_ members: [FlowViewMember], flow: String, size: (RocketImage) -> PictureSize? = { _ in nil }) {
        var pieces: [Piece] = []
        var w = JSONBytes(capacity: 128)
        func flush() {
            if !w.out.isEmpty { pieces.append(.bytes(w.out)) }
            w.out.removeAll(keepingCapacity: true)
        }
        // Values are written with an explicit stack of what is left to write (no recursion
        // per level of nesting, however the table nests its objects).
        enum Step {
            case value(FlowViewValue, top: String?)
            case key(String, first: Bool)
            case raw(UInt8)
        }
        var steps: [Step] = []
        for m in members.reversed() {
            if case .image(let image) = m.value, let known = size(image) {
                steps.append(.value(.look(.object([("width", .number(Double(known.width))), ("height", .number(Double(known.height)))])), top: nil))
                steps.append(.key(m.name + Self.sizeSuffix, first: false))
            }
            steps.append(.value(m.value, top: m.name))
            steps.append(.key(m.name, first: false))
        }
        while let step = steps.popLast() {
            switch step {
            case .raw(let byte): w.out.append(byte)
            case .key(let name, let first): w.key(escaping: name, first: first)
            case .value(let value, let top):
                switch value {
                case .look(let json): w.value(json)
                case .image(let image): w.value(ConversationView.imageSource(image, flow: flow))
                case .content(let text):
                    flush()
                    pieces.append(top == "text" ? .shownText : .content(text))
                case .object(let members):
                    w.out.append(UInt8(ascii: "{"))
                    steps.append(.raw(UInt8(ascii: "}")))
                    for (k, m) in members.enumerated().reversed() {
                        steps.append(.value(m.value, top: nil))
                        steps.append(.key(m.name, first: k == 0))
                    }
                case .list(let items):
                    w.out.append(UInt8(ascii: "["))
                    steps.append(.raw(UInt8(ascii: "]")))
                    for (k, item) in items.enumerated().reversed() {
                        steps.append(.value(item, top: nil))
                        if k > 0 { steps.append(.raw(UInt8(ascii: ","))) }
                    }
                }
            }
        }
        flush()
        self.pieces = pieces
    }

    /// Writes the members: fixed bytes as they are, texts filled by `fill`.
    func write(into w: inout JSONBytes, shownText: String, fill: (String) -> String) {
        for piece in pieces {
            switch piece {
            case .bytes(let b): w.raw(b)
            case .content(let text): w.string(fill(text))
            case .shownText: w.string(shownText)
            }
        }
    }

    /// The members as one object's JSON (for templates without texts: the author, the close
    /// button).
    var object: [UInt8] {
        var w = JSONBytes(capacity: 64)
        w.out.append(UInt8(ascii: "{"))
        write(into: &w, shownText: "") { $0 }
        if w.out.count > 1 { w.out.remove(at: 1) }  // the first member's comma
        w.out.append(UInt8(ascii: "}"))
        return w.out
    }
}

/// The parts of a flow's view that never change while it runs, made once when the flow is
/// loaded from the flow format's table: every block's template (fonts, pictures, styles and
/// rules, with a data: URI base64-encoded once), the author and the close button.
package struct ViewStatics: Sendable {
    /// The author, serialized.
    var author: [UInt8]
    /// The close button (`null` when there is none), serialized.
    var closeButton: [UInt8]
    /// Per node (by graph index): its template.
    var nodes: [ViewTemplate]
    /// The language the flow's texts are read in, and whether it runs right to left; nil for a
    /// flow that names no languages.
    var textLanguage: (tag: String, rightToLeft: Bool)?

    /// The statics of `graph` (flow `flow`, its texts in `language`) with its speaker and close
    /// button; the blocks' pictures that `size` knows the size of are sent with it.
    init(
        graph: RocketGraph, author: RocketAuthor, closeButton: RocketCloseButton?, flow: String, language: String? = nil,
        size: (RocketImage) -> PictureSize? = { _ in nil }
    ) {
        textLanguage = language.map { ($0, FlowDocument.isRightToLeft($0)) }
        let format = FlowFormat.v1
        self.author = ViewTemplate(format.view(of: author, for: .web), flow: flow).object
        self.closeButton = closeButton.map { ViewTemplate(format.view(of: $0, for: .web), flow: flow).object } ?? Array("null".utf8)
        nodes = graph.nodes.map { ViewTemplate(format.view(of: $0, for: .web), flow: flow, size: size) }
    }
}
