public import RocketFlow

extension FlowDocument {
    /// Converts a conversation built with the seed classes into a flow document.
    ///
    /// - Throws: ``FlowConversionError`` where a closure cannot be written as data.
    ///
    /// ```swift
    /// let second = TextRocketBlock(text: "Second")
    /// let first = TextRocketBlock(text: "First", next: second)
    /// let doc = try FlowDocument(root: first, author: RocketAuthor(image: nil, name: "Bot"))
    /// ```
    public init(root: any RocketBlock, author: RocketAuthor? = nil, closeButton: RocketCloseButton? = nil) throws(FlowConversionError) {
        var graph = RocketGraph()
        graph.root = SeedCompiler().compile(root, into: &graph)
        try self.init(graph: graph, author: author, closeButton: closeButton)
    }

    /// A ready ``Rocket`` for this flow, or nil when the flow has no start block.
    ///
    /// ```swift
    /// let rocket = doc.makeRocket(clock: SystemClock(), options: ConversationOptions(timing: .reducedMotion))
    /// rocket?.actionHandlers["enable-notifications"] = { print("asking…") }
    /// ```
    public func makeRocket(
        clock: any RocketClock, options: ConversationOptions = ConversationOptions(),
        imageBase: String? = nil
    ) -> Rocket? {
        let (graph, _) = makeGraph(imageBase: imageBase)
        guard graph.root != nil else { return nil }
        let rocket = Rocket(author: makeAuthor(imageBase: imageBase), graph: graph, clock: clock, options: options)
        rocket.closeButton = makeCloseButton()
        return rocket
    }

    /// The flow as seed blocks, linked by their ids; `root` is the `start` block.
    ///
    /// ```swift
    /// let (root, byID) = doc.makeBlocks()
    /// byID["ask"]   // the DoubleButtonRocketBlock named "ask"
    /// ```
    public func makeBlocks(imageBase: String? = nil) -> (root: (any RocketBlock)?, byID: [String: any RocketBlock]) {
        let (graph, _) = makeGraph(imageBase: imageBase)
        var made: [any RocketBlock] = []
        made.reserveCapacity(graph.nodes.count)
        func button(_ b: RocketButtonNode) -> ButtonRocketBlock { ButtonRocketBlock(title: b.title, tapHandler: nil, font: b.font, id: nil) }
        for node in graph.nodes {
            switch node.content {
            case .text(let t):
                made.append(TextRocketBlock(text: t.text, next: nil, showNextAfter: t.showNextAfter, id: node.id, font: t.font))
            case .image(let i):
                let b = ImageRocketBlock(image: i.image, text: i.text, next: nil, showNextAfter: i.showNextAfter, id: node.id)
                b.font = i.font
                b.imageStyle = i.imageStyle
                b.paddingLeft = i.paddingLeft
                b.paddingRight = i.paddingRight
                made.append(b)
            case .button(let b):
                let block = button(b)
                block.id = node.id
                made.append(block)
            case .doubleButton(let l, let r):
                made.append(DoubleButtonRocketBlock(left: button(l), right: button(r), id: node.id))
            case .textInput(let i):
                let b = TextInputRocketBlock(
                    text: i.text, buttonTitle: i.buttonTitle, inputHandler: nil, id: node.id,
                    font: i.font, buttonStyle: i.buttonStyle)
                b.isSecret = i.isSecret
                b.placeholder = i.placeholder
                b.validation = i.validation
                made.append(b)
            case .choice(let c):
                // The seed has no list: a text input whose branches match the option titles.
                let b = TextInputRocketBlock(
                    text: c.text + "\n" + c.options.map(\.title).joined(separator: " / "), buttonTitle: "OK", inputHandler: nil,
                    id: node.id, font: c.font)
                made.append(b)
            }
        }
        func target(_ id: RocketNodeID?) -> (any RocketBlock)? { id.map { made[$0.rawValue] } }
        func handler(_ b: RocketButtonNode) -> TapRocketHandler { TapRocketHandler(next: target(b.next), actionName: b.actionName) }
        var byID: [String: any RocketBlock] = [:]
        for (k, node) in graph.nodes.enumerated() {
            if let id = node.id { byID[id] = made[k] }
            switch node.content {
            case .text(let t): (made[k] as? TextRocketBlock)?.next = target(t.next)
            case .image(let i): (made[k] as? TextRocketBlock)?.next = target(i.next)
            case .button(let b): (made[k] as? ButtonRocketBlock)?.tapHandler = handler(b)
            case .doubleButton(let l, let r):
                if let d = made[k] as? DoubleButtonRocketBlock {
                    d.left.tapHandler = handler(l)
                    d.right.tapHandler = handler(r)
                }
            case .textInput(let i):
                if let b = made[k] as? TextInputRocketBlock {
                    b.branches = i.branches.map { RocketInputBranch(when: $0.condition, next: target($0.next)) }
                    b.next = target(i.next)
                }
            case .choice(let c):
                (made[k] as? TextInputRocketBlock)?.branches = c.options.map { RocketInputBranch(when: .equals($0.title), next: target($0.next)) }
            }
        }
        return (target(graph.root), byID)
    }
}
