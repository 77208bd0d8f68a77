public import RocketAlert
public import RocketCore

extension FlowDocument {
    /// The seed blocks of this flow, linked by their ids; `root` is the `start` block.
    ///
    /// Image paths that are relative are prefixed with `imageBase` (for example the flow file's
    /// folder). Call this on a document without validation errors; unknown targets become nil
    /// (which dismisses), so a bad document still never traps.
    ///
    /// ```swift
    /// let (root, byID) = doc.makeBlocks()
    /// byID["ask"]   // the DoubleButtonRocketBlock named "ask"
    /// ```
    public func makeBlocks(imageBase: String? = nil) -> (root: RocketBlock?, byID: [String: RocketBlock]) {
        var byID: [String: RocketBlock] = [:]
        byID.reserveCapacity(blocks.count)
        func image(_ p: String) -> RocketImage { FlowDocument.image(p, base: imageBase) }
        func button(_ b: FlowButton, id: String?) -> ButtonRocketBlock {
            let block = ButtonRocketBlock(title: b.title, tapHandler: nil, font: b.font?.rocketFont ?? .button, id: id)
            return block
        }
        // Create every block first, then link, so forward references work.
        for block in blocks where byID[block.id] == nil {
            let made: RocketBlock
            switch block.content {
            case .text(let text, _, let delay, let font):
                made = TextRocketBlock(text: text, next: nil, showNextAfter: delay, id: block.id, font: font?.rocketFont ?? .text)
            case .image(let img):
                let b = ImageRocketBlock(image: image(img.image), text: img.text, next: nil,
                                         showNextAfter: img.showNextAfter, id: block.id)
                b.font = img.font?.rocketFont ?? .text
                b.imageStyle = img.imageStyle ?? .square
                b.paddingLeft = img.paddingLeft ?? 0
                b.paddingRight = img.paddingRight ?? 0
                made = b
            case .button(let b):
                made = button(b, id: block.id)
            case .doubleButton(let l, let r):
                made = DoubleButtonRocketBlock(left: button(l, id: nil), right: button(r, id: nil), id: block.id)
            case .textInput(let input):
                let b = TextInputRocketBlock(text: input.text, buttonTitle: input.buttonTitle, inputHandler: nil, id: block.id,
                                             font: input.font?.rocketFont ?? .text,
                                             buttonStyle: input.buttonStyle?.rocketFont ?? .lightButton)
                b.isSecret = input.secret
                b.placeholder = input.placeholder
                b.validation = input.validate
                made = b
            }
            byID[block.id] = made
        }
        func target(_ id: String?) -> RocketBlock? { id.flatMap { byID[$0] } }
        func handler(_ b: FlowButton) -> TapRocketHandler {
            TapRocketHandler(next: target(b.next), actionName: b.action)
        }
        for block in blocks {
            guard let made = byID[block.id] else { continue }
            switch block.content {
            case .text(_, let next, _, _): (made as? TextRocketBlock)?.next = target(next)
            case .image(let img): (made as? TextRocketBlock)?.next = target(img.next)
            case .button(let b): (made as? ButtonRocketBlock)?.tapHandler = handler(b)
            case .doubleButton(let l, let r):
                if let d = made as? DoubleButtonRocketBlock {
                    d.left.tapHandler = handler(l)
                    d.right.tapHandler = handler(r)
                }
            case .textInput(let input):
                if let b = made as? TextInputRocketBlock {
                    b.branches = input.branches.map { RocketInputBranch(when: $0.when, next: target($0.next)) }
                    b.next = target(input.next)
                }
            }
        }
        return (target(startID), byID)
    }

    /// A flow's image string as an image: a data URI becomes bytes; a relative path is taken
    /// relative to `base`.
    static func image(_ reference: String, base: String?) -> RocketImage {
        let image = RocketImage(reference: reference)
        guard case .file(let p) = image, let base, !base.isEmpty, !p.hasPrefix("/") else { return image }
        return .file(base.hasSuffix("/") ? base + p : base + "/" + p)
    }

    /// The author as a seed value (name "Rocket" and a circular avatar by default).
    public func makeAuthor(imageBase: String? = nil) -> RocketAuthor {
        RocketAuthor(image: author?.image.map { FlowDocument.image($0, base: imageBase) }, style: author?.style ?? .circular,
                     name: author?.name ?? "Rocket")
    }

    /// A ready ``Rocket`` for this flow, or nil when the flow has no start block.
    ///
    /// ```swift
    /// let rocket = doc.makeRocket(clock: SystemClock(), options: ConversationOptions(timing: .reducedMotion))
    /// rocket?.actionHandlers["enable-notifications"] = { print("asking…") }
    /// ```
    public func makeRocket(clock: any RocketClock, options: ConversationOptions = ConversationOptions(),
                           imageBase: String? = nil) -> Rocket? {
        guard let root = makeBlocks(imageBase: imageBase).root else { return nil }
        let rocket = Rocket(author: makeAuthor(imageBase: imageBase), block: root, clock: clock, options: options)
        if let close = closeButton {
            rocket.closeButton = RocketCloseButton(title: close.title, style: close.font?.rocketFont ?? .cancel)
        }
        return rocket
    }
}

/// Why a Swift-built conversation cannot become a flow document.
public enum FlowConversionError: Error, Hashable, Sendable {
    /// A button's action is a closure with no name; flows can only hold named actions.
    case unnamedAction(blockID: String)
    /// An input block's handler is a closure; flows hold branches and `next` instead.
    case inputHandlerClosure(blockID: String)
    /// A block conforming to ``RocketBlock`` that is not one of the five seed classes.
    case unsupportedBlock(blockID: String)
}

extension FlowDocument {
    /// Converts a conversation built in Swift with the seed classes into a flow document.
    ///
    /// Blocks without an id get `block-1`, `block-2`, … (skipping ids already in use). Every
    /// block reachable from `root` is included once, so shared blocks and loops survive.
    ///
    /// Images given as bytes become `data:` URIs.
    ///
    /// - Throws: ``FlowConversionError`` where a closure cannot be written as data.
    ///
    /// ```swift
    /// let second = TextRocketBlock(text: "Second")
    /// let first = TextRocketBlock(text: "First", next: second)
    /// let doc = try FlowDocument(root: first, author: RocketAuthor(image: nil, name: "Bot"))
    /// ```
    public init(root: RocketBlock, author: RocketAuthor? = nil, closeButton: RocketCloseButton? = nil) throws(FlowConversionError) {
        var order: [RocketBlock] = []
        var seen: Set<ObjectIdentifier> = []
        var stack: [RocketBlock] = [root]
        func successors(_ b: RocketBlock) -> [RocketBlock?] {
            switch b {
            case let t as TextRocketBlock: return [t.next]
            case let btn as ButtonRocketBlock: return [btn.tapHandler?.next]
            case let d as DoubleButtonRocketBlock: return [d.left.tapHandler?.next, d.right.tapHandler?.next]
            case let i as TextInputRocketBlock: return i.branches.map(\.next) + [i.next]
            default: return []
            }
        }
        while let b = stack.popLast() {
            guard seen.insert(ObjectIdentifier(b)).inserted else { continue }
            order.append(b)
            stack.append(contentsOf: successors(b).compactMap { $0 }.reversed())
        }
        // Names: keep given ids, generate the rest.
        var used = Set(order.compactMap(\.id))
        var names: [ObjectIdentifier: String] = [:]
        var counter = 0
        var assigned: Set<String> = []
        for b in order {
            if let id = b.id, !id.isEmpty, assigned.insert(id).inserted {
                names[ObjectIdentifier(b)] = id
                continue
            }
            repeat { counter += 1 } while used.contains("block-\(counter)")
            used.insert("block-\(counter)")
            names[ObjectIdentifier(b)] = "block-\(counter)"
        }
        func name(_ b: RocketBlock?) -> String? { b.map { names[ObjectIdentifier($0)]! } }
        func font(_ f: RocketFont?, default d: RocketFont) -> FlowFont? {
            guard let f, f != d else { return nil }
            return FlowFont(f)
        }
        func button(_ b: ButtonRocketBlock, owner: String) throws(FlowConversionError) -> FlowButton {
            if b.tapHandler?.action != nil && b.tapHandler?.actionName == nil { throw .unnamedAction(blockID: owner) }
            return FlowButton(title: b.title, next: name(b.tapHandler?.next), action: b.tapHandler?.actionName,
                              font: font(b.font, default: .button))
        }
        var blocks: [FlowBlock] = []
        for b in order {
            let id = name(b)!
            let content: FlowBlockContent
            switch b {
            case let img as ImageRocketBlock:
                content = .image(FlowImage(image: img.image.reference, text: img.text.isEmpty ? nil : img.text, next: name(img.next),
                                           showNextAfter: img.showNextAfter, font: font(img.font, default: .text),
                                           imageStyle: img.imageStyle == .square ? nil : img.imageStyle,
                                           paddingLeft: img.paddingLeft == 0 ? nil : img.paddingLeft,
                                           paddingRight: img.paddingRight == 0 ? nil : img.paddingRight))
            case let t as TextRocketBlock:
                content = .text(text: t.text, next: name(t.next), showNextAfter: t.showNextAfter, font: font(t.font, default: .text))
            case let btn as ButtonRocketBlock:
                content = .button(try button(btn, owner: id))
            case let d as DoubleButtonRocketBlock:
                content = .doubleButton(left: try button(d.left, owner: id), right: try button(d.right, owner: id))
            case let i as TextInputRocketBlock:
                if i.handler != nil { throw .inputHandlerClosure(blockID: id) }
                content = .textInput(FlowTextInput(text: i.text, buttonTitle: i.buttonTitle, secret: i.isSecret,
                                                   placeholder: i.placeholder, validate: i.validation,
                                                   branches: i.branches.map { FlowBranch(when: $0.condition, next: name($0.next)) },
                                                   next: name(i.next), font: font(i.font, default: .text),
                                                   buttonStyle: font(i.buttonStyle, default: .lightButton)))
            default:
                throw .unsupportedBlock(blockID: id)
            }
            blocks.append(FlowBlock(id: id, content: content))
        }
        var flowAuthor: FlowAuthor?
        if let author {
            flowAuthor = FlowAuthor(name: author.name, image: author.image?.reference, style: author.style == .circular ? nil : author.style)
        }
        self.init(author: flowAuthor, closeButton: closeButton.map { FlowCloseButton(title: $0.title, font: $0.style == .cancel ? nil : FlowFont($0.style)) },
                  start: name(root), blocks: blocks)
    }
}
