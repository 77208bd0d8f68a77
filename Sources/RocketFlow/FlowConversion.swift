public import RocketConversation
import RocketCore

extension FlowDocument {
    /// The flow's graph with relative image paths (of image blocks, and of the pictures on
    /// buttons and options) taken relative to `imageBase` (for example the flow file's folder);
    /// without a base it is ``graph`` itself.
    ///
    /// Call this on a document without validation errors; a document made in code that names a
    /// node it lacks still never traps (the engine ends the conversation there).
    ///
    /// ```swift
    /// let graph = doc.makeGraph(imageBase: "/srv/flows")
    /// graph.root   // the `start` block
    /// ```
    public func makeGraph(imageBase: String? = nil) -> RocketGraph {
        guard let imageBase, !imageBase.isEmpty else { return graph }
        var out = graph
        for i in out.nodes.indices {
            let id = RocketNodeID(i)
            if case .image(var img) = out[id].content {
                img.image = FlowDocument.image(img.image, base: imageBase)
                out[id].content = .image(img)
            }
            out[id].mapButtons { $0.image = $0.image.map { FlowDocument.image($0, base: imageBase) } }
        }
        return out
    }

    /// A picture taken relative to `base` when it is a relative file path.
    static func image(_ image: RocketImage, base: String?) -> RocketImage {
        guard case .file(let p) = image, let base, !base.isEmpty, !p.hasPrefix("/"), !p.hasPrefix("data:") else { return image }
        return .file(base.hasSuffix("/") ? base + p : base + "/" + p)
    }

    /// The author as a value (name "Rocket" and a circular avatar by default).
    public func makeAuthor(imageBase: String? = nil) -> RocketAuthor {
        var a = author ?? RocketAuthor(image: nil, style: .circular, name: "Rocket")
        a.image = a.image.map { FlowDocument.image($0, base: imageBase) }
        return a
    }

    /// The close button as a value, when the flow has one.
    public func makeCloseButton() -> RocketCloseButton? { closeButton }

    /// A conversation for this flow that has not been shown, or nil when the flow has no start
    /// block.
    ///
    /// ```swift
    /// let host = ConversationHost(conversation: doc.makeConversation()!, clock: SystemClock())
    /// host.actionHandlers["enable-notifications"] = { print("asking…") }
    /// ```
    public func makeConversation(options: ConversationOptions = ConversationOptions(), imageBase: String? = nil) -> Conversation? {
        let graph = makeGraph(imageBase: imageBase)
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
    /// A flow document of a graph made in code: every node reachable from the root, once, in
    /// the order a reader meets them, so shared blocks and loops survive.
    ///
    /// Nodes without an id (or with one already taken) get `block-1`, `block-2`, … (skipping ids
    /// in use). Images given as bytes are written as `data:` URIs.
    ///
    /// - Throws: ``FlowConversionError`` where host code (a closure) cannot be written as data.
    ///
    /// ```swift
    /// var graph = RocketGraph()
    /// graph.root = graph.add(RocketNode(text: "Hi"))
    /// let doc = try FlowDocument(exporting: graph)
    /// ```
    public init(exporting graph: RocketGraph, author: RocketAuthor? = nil, closeButton: RocketCloseButton? = nil) throws(FlowConversionError) {
        var order: [RocketNodeID] = []
        var position = [Int](repeating: -1, count: graph.nodes.count)
        var stack: [RocketNodeID] = graph.root.map { [$0] } ?? []
        while let id = stack.popLast() {
            guard graph.contains(id), position[id.rawValue] < 0 else { continue }
            position[id.rawValue] = order.count
            order.append(id)
            stack.append(contentsOf: graph[id].successors.reversed())
        }
        // Names: keep given ids, generate the rest.
        var used = Set(order.compactMap { graph[$0].id })
        var assigned: Set<String> = []
        var counter = 0
        var names: [String] = []
        names.reserveCapacity(order.count)
        for id in order {
            if let given = graph[id].id, !given.isEmpty, assigned.insert(given).inserted {
                names.append(given)
                continue
            }
            repeat { counter += 1 } while used.contains("block-\(counter)")
            used.insert("block-\(counter)")
            names.append("block-\(counter)")
        }
        func renumber(_ id: RocketNodeID?) -> RocketNodeID? {
            guard let id, graph.contains(id), position[id.rawValue] >= 0 else { return nil }
            return RocketNodeID(position[id.rawValue])
        }
        var nodes: [RocketNode] = []
        nodes.reserveCapacity(order.count)
        for (k, id) in order.enumerated() {
            let name = names[k]
            var node = graph[id]
            // Host code cannot be written: a button's closure needs a named action to stand for
            // it, and an input decided by a closure cannot be written at all.
            var buttons: [RocketButtonNode] = []
            switch node.content {
            case .button(let b): buttons = [b]
            case .doubleButton(let l, let r): buttons = [l, r]
            case .choice(let c): buttons = c.options
            case .textInput(let i) where i.decidedByHost: throw .inputHandlerClosure(blockID: name)
            default: break
            }
            if buttons.contains(where: { $0.hasHostAction && $0.actionName == nil }) { throw .unnamedAction(blockID: name) }
            node.mapTargets(renumber)
            node.mapButtons { $0.hasHostAction = false }
            let content = node.content
            nodes.append(RocketNode(id: name, content: content))
        }
        self.init(
            author: author, closeButton: closeButton,
            graph: {
                var g = RocketGraph(nodes: nodes, root: nodes.isEmpty ? nil : RocketNodeID(0), variables: graph.variables)
                g.allowBack = graph.allowBack
                return g
            }())
    }
}
