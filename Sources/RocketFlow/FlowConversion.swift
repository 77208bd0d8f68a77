public import RocketConversation
import RocketCore

extension FlowDocument {
    /// The flow's blocks as a value graph, in file order; `root` is the `start` block.
    ///
    /// Image paths that are relative are prefixed with `imageBase` (for example the flow file's
    /// folder). Call this on a document without validation errors; unknown targets become nil
    /// (which ends the conversation), so a bad document still never traps. Works in two passes
    /// over the blocks, with no recursion, whatever the length of the chains.
    ///
    /// ```swift
    /// let (graph, ids) = doc.makeGraph()
    /// graph[ids["ask"]!].kind   // .doubleButton
    /// ```
    public func makeGraph(imageBase: String? = nil) -> (graph: RocketGraph, ids: [String: RocketNodeID]) {
        var ids: [String: RocketNodeID] = [:]
        ids.reserveCapacity(blocks.count)
        var kept: [FlowBlock] = []
        kept.reserveCapacity(blocks.count)
        for block in blocks where ids[block.id] == nil {
            ids[block.id] = RocketNodeID(kept.count)
            kept.append(block)
        }
        func target(_ id: String?) -> RocketNodeID? { id.flatMap { ids[$0] } }
        func button(_ b: FlowButton) -> RocketButtonNode {
            RocketButtonNode(title: b.title, font: b.font?.rocketFont ?? .button, next: target(b.next), actionName: b.action)
        }
        var nodes: [RocketNode] = []
        nodes.reserveCapacity(kept.count)
        for block in kept {
            let content: RocketNodeContent
            switch block.content {
            case .text(let text, let next, let delay, let font):
                content = .text(RocketTextNode(text: text, next: target(next), showNextAfter: delay, font: font?.rocketFont ?? .text))
            case .image(let img):
                content = .image(
                    RocketImageNode(
                        image: FlowDocument.image(img.image, base: imageBase), text: img.text ?? "",
                        next: target(img.next), showNextAfter: img.showNextAfter,
                        font: img.font?.rocketFont ?? .text, imageStyle: img.imageStyle ?? .square,
                        paddingLeft: img.paddingLeft ?? 0, paddingRight: img.paddingRight ?? 0))
            case .button(let b):
                content = .button(button(b))
            case .doubleButton(let l, let r):
                content = .doubleButton(left: button(l), right: button(r))
            case .choice(let text, let options, let font):
                content = .choice(RocketChoiceNode(text: text, font: font?.rocketFont ?? .text, options: options.map(button)))
            case .textInput(let input):
                content = .textInput(
                    RocketInputNode(
                        text: input.text, buttonTitle: input.buttonTitle, font: input.font?.rocketFont ?? .text,
                        buttonStyle: input.buttonStyle?.rocketFont ?? .lightButton, isSecret: input.secret,
                        placeholder: input.placeholder, validation: input.validate,
                        branches: input.branches.map { RocketNodeBranch(when: $0.when, next: target($0.next)) },
                        next: target(input.next)))
            }
            nodes.append(RocketNode(id: block.id, content: content))
        }
        return (RocketGraph(nodes: nodes, root: target(startID)), ids)
    }

    /// A flow's image string as an image: a data URI becomes bytes; a relative path is taken
    /// relative to `base`.
    static func image(_ reference: String, base: String?) -> RocketImage {
        let image = RocketImage(reference: reference)
        guard case .file(let p) = image, let base, !base.isEmpty, !p.hasPrefix("/") else { return image }
        return .file(base.hasSuffix("/") ? base + p : base + "/" + p)
    }

    /// The author as a value (name "Rocket" and a circular avatar by default).
    public func makeAuthor(imageBase: String? = nil) -> RocketAuthor {
        RocketAuthor(
            image: author?.image.map { FlowDocument.image($0, base: imageBase) }, style: author?.style ?? .circular,
            name: author?.name ?? "Rocket")
    }

    /// The close button as a value, when the flow has one.
    public func makeCloseButton() -> RocketCloseButton? {
        closeButton.map { RocketCloseButton(title: $0.title, style: $0.font?.rocketFont ?? .cancel) }
    }

    /// A conversation for this flow that has not been shown, or nil when the flow has no start
    /// block.
    ///
    /// ```swift
    /// let host = ConversationHost(conversation: doc.makeConversation()!, clock: SystemClock())
    /// host.actionHandlers["enable-notifications"] = { print("asking…") }
    /// ```
    public func makeConversation(options: ConversationOptions = ConversationOptions(), imageBase: String? = nil) -> Conversation? {
        let (graph, _) = makeGraph(imageBase: imageBase)
        guard graph.root != nil else { return nil }
        return Conversation(graph: graph, author: makeAuthor(imageBase: imageBase), closeButton: makeCloseButton(), options: options)
    }
}

/// Why a conversation built in code cannot become a flow document.
public enum FlowConversionError: Error, Hashable, Sendable {
    /// A button's action is a closure with no name; flows can only hold named actions.
    case unnamedAction(blockID: String)
    /// An input block's handler is a closure; flows hold branches and `next` instead.
    case inputHandlerClosure(blockID: String)
    /// A block that is not one of the five seed kinds.
    case unsupportedBlock(blockID: String)
}

extension FlowDocument {
    /// Converts a value graph into a flow document: every node reachable from the root, once, so
    /// shared blocks and loops survive.
    ///
    /// Nodes without an id get `block-1`, `block-2`, … (skipping ids already in use). Images given
    /// as bytes become `data:` URIs.
    ///
    /// - Throws: ``FlowConversionError`` where host code (a closure) cannot be written as data.
    ///
    /// ```swift
    /// var graph = RocketGraph()
    /// graph.root = graph.add(RocketNode(text: "Hi"))
    /// let doc = try FlowDocument(graph: graph)
    /// ```
    public init(graph: RocketGraph, author: RocketAuthor? = nil, closeButton: RocketCloseButton? = nil) throws(FlowConversionError) {
        var order: [RocketNodeID] = []
        var seen = [Bool](repeating: false, count: graph.nodes.count)
        var stack: [RocketNodeID] = graph.root.map { [$0] } ?? []
        while let id = stack.popLast() {
            guard graph.contains(id), !seen[id.rawValue] else { continue }
            seen[id.rawValue] = true
            order.append(id)
            stack.append(contentsOf: graph[id].successors.reversed())
        }
        // Names: keep given ids, generate the rest.
        var used = Set(order.compactMap { graph[$0].id })
        var names: [Int: String] = [:]
        var counter = 0
        var assigned: Set<String> = []
        for id in order {
            if let given = graph[id].id, !given.isEmpty, assigned.insert(given).inserted {
                names[id.rawValue] = given
                continue
            }
            repeat { counter += 1 } while used.contains("block-\(counter)")
            used.insert("block-\(counter)")
            names[id.rawValue] = "block-\(counter)"
        }
        func name(_ id: RocketNodeID?) -> String? { id.flatMap { names[$0.rawValue] } }
        func font(_ f: RocketFont, default d: RocketFont) -> FlowFont? { f == d ? nil : FlowFont(f) }
        func button(_ b: RocketButtonNode, owner: String) throws(FlowConversionError) -> FlowButton {
            if b.hasHostAction && b.actionName == nil { throw .unnamedAction(blockID: owner) }
            return FlowButton(title: b.title, next: name(b.next), action: b.actionName, font: font(b.font, default: .button))
        }
        var blocks: [FlowBlock] = []
        blocks.reserveCapacity(order.count)
        for id in order {
            let blockName = name(id) ?? ""
            let content: FlowBlockContent
            switch graph[id].content {
            case .image(let img):
                content = .image(
                    FlowImage(
                        image: img.image.reference, text: img.text.isEmpty ? nil : img.text, next: name(img.next),
                        showNextAfter: img.showNextAfter, font: font(img.font, default: .text),
                        imageStyle: img.imageStyle == .square ? nil : img.imageStyle,
                        paddingLeft: img.paddingLeft == 0 ? nil : img.paddingLeft,
                        paddingRight: img.paddingRight == 0 ? nil : img.paddingRight))
            case .text(let t):
                content = .text(text: t.text, next: name(t.next), showNextAfter: t.showNextAfter, font: font(t.font, default: .text))
            case .button(let b):
                content = .button(try button(b, owner: blockName))
            case .doubleButton(let l, let r):
                content = .doubleButton(left: try button(l, owner: blockName), right: try button(r, owner: blockName))
            case .choice(let c):
                var options: [FlowButton] = []
                for o in c.options { options.append(try button(o, owner: blockName)) }
                content = .choice(text: c.text, options: options, font: font(c.font, default: .text))
            case .textInput(let i):
                if i.decidedByHost { throw .inputHandlerClosure(blockID: blockName) }
                content = .textInput(
                    FlowTextInput(
                        text: i.text, buttonTitle: i.buttonTitle, secret: i.isSecret,
                        placeholder: i.placeholder, validate: i.validation,
                        branches: i.branches.map { FlowBranch(when: $0.condition, next: name($0.next)) },
                        next: name(i.next), font: font(i.font, default: .text),
                        buttonStyle: font(i.buttonStyle, default: .lightButton)))
            }
            blocks.append(FlowBlock(id: blockName, content: content))
        }
        var flowAuthor: FlowAuthor?
        if let author {
            flowAuthor = FlowAuthor(name: author.name, image: author.image?.reference, style: author.style == .circular ? nil : author.style)
        }
        self.init(
            author: flowAuthor,
            closeButton: closeButton.map { FlowCloseButton(title: $0.title, font: $0.style == .cancel ? nil : FlowFont($0.style)) },
            start: name(graph.root), blocks: blocks)
    }
}
