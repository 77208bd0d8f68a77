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
        try self.init(exporting: graph, author: author, closeButton: closeButton)
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
        let graph = makeGraph(imageBase: imageBase)
        guard graph.root != nil else { return nil }
        let rocket = Rocket(author: makeAuthor(imageBase: imageBase), graph: graph, clock: clock, options: options)
        rocket.closeButton = makeCloseButton()
        return rocket
    }
}
