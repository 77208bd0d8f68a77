public import RocketConversation
import RocketCore
public import RocketScenarios
public import RocketBanners

/// A text style in a flow file: a preset name (`"textBold"`) or a custom font.
///
/// ```swift
/// FlowFont.preset("lightButton").rocketFont          // RocketFont.lightButton
/// FlowFont.custom(RocketFont(size: 22, color: .black))
/// ```
public enum FlowFont: Hashable, Sendable {
    /// One of the six seed presets, by name.
    case preset(String)
    /// A custom size, weight, colour and family.
    case custom(RocketFont)

    /// The style, or nil for an unknown preset name (validation reports it).
    public var rocketFont: RocketFont? {
        switch self {
        case .preset(let name): return RocketFont.presets[name]
        case .custom(let font): return font
        }
    }

    /// The preset name when the style is one, else the custom style.
    public init(_ font: RocketFont) {
        if let name = font.presetName { self = .preset(name) } else { self = .custom(font) }
    }
}

/// The speaker of a flow.
public struct FlowAuthor: Hashable, Sendable {
    /// Display name (default "Rocket").
    public var name: String?
    /// Avatar image path, relative to the flow file.
    public var image: String?
    /// Avatar corner style (default circular).
    public var style: RocketImageStyle?

    /// Creates an author.
    public init(name: String? = nil, image: String? = nil, style: RocketImageStyle? = nil) {
        self.name = name
        self.image = image
        self.style = style
    }
}

/// The close button of a flow.
public struct FlowCloseButton: Hashable, Sendable {
    /// Its title.
    public var title: String
    /// Its style (default `cancel`).
    public var font: FlowFont?

    /// Creates a close button.
    public init(title: String, font: FlowFont? = nil) {
        self.title = title
        self.font = font
    }
}

/// One button of a `button` or `doubleButton` block.
public struct FlowButton: Hashable, Sendable {
    /// The title.
    public var title: String
    /// The block shown after the press; nil ends the conversation.
    public var next: String?
    /// A named action the app runs on press.
    public var action: String?
    /// The title's style.
    public var font: FlowFont?

    /// Creates a button.
    public init(title: String, next: String? = nil, action: String? = nil, font: FlowFont? = nil) {
        self.title = title
        self.next = next
        self.action = action
        self.font = font
    }
}

/// A branch of a `textInput` block.
public struct FlowBranch: Hashable, Sendable {
    /// When it applies.
    public var when: RocketInputCondition
    /// Where it goes; nil ends the conversation.
    public var next: String?

    /// Creates a branch.
    public init(when: RocketInputCondition, next: String?) {
        self.when = when
        self.next = next
    }
}

/// What a flow block shows and does.
public indirect enum FlowBlockContent: Hashable, Sendable {
    /// A text bubble.
    case text(text: String, next: String?, showNextAfter: Double?, font: FlowFont?)
    /// A picture with optional text.
    case image(FlowImage)
    /// A single button.
    case button(FlowButton)
    /// Two buttons.
    case doubleButton(left: FlowButton, right: FlowButton)
    /// A text input.
    case textInput(FlowTextInput)
    /// A question with a list of options (`"type": "choice"`, beyond the seed).
    case choice(text: String, options: [FlowButton], font: FlowFont?)

    /// The block kind.
    public var kind: RocketBlockKind {
        switch self {
        case .text: return .text
        case .image: return .image
        case .button: return .button
        case .doubleButton: return .doubleButton
        case .textInput: return .textInput
        case .choice: return .choice
        }
    }
}

/// The fields of an `image` block.
public struct FlowImage: Hashable, Sendable {
    /// Image path, relative to the flow file.
    public var image: String
    /// Text under the picture.
    public var text: String?
    /// Next block.
    public var next: String?
    /// Auto-advance delay in seconds.
    public var showNextAfter: Double?
    /// Text style.
    public var font: FlowFont?
    /// Corner style (default square).
    public var imageStyle: RocketImageStyle?
    /// Left inset.
    public var paddingLeft: Double?
    /// Right inset.
    public var paddingRight: Double?

    /// Creates an image block's fields.
    public init(
        image: String, text: String? = nil, next: String? = nil, showNextAfter: Double? = nil, font: FlowFont? = nil,
        imageStyle: RocketImageStyle? = nil, paddingLeft: Double? = nil, paddingRight: Double? = nil
    ) {
        self.image = image
        self.text = text
        self.next = next
        self.showNextAfter = showNextAfter
        self.font = font
        self.imageStyle = imageStyle
        self.paddingLeft = paddingLeft
        self.paddingRight = paddingRight
    }
}

/// The fields of a `textInput` block.
public struct FlowTextInput: Hashable, Sendable {
    /// The question.
    public var text: String
    /// The submit button's title.
    public var buttonTitle: String
    /// Mask the input and keep it out of every output.
    public var secret: Bool
    /// A hint shown in the empty field.
    public var placeholder: String?
    /// Rules the text must meet.
    public var validate: RocketInputValidation?
    /// Branches tried in order.
    public var branches: [FlowBranch]
    /// Where to go when no branch applies; nil ends the conversation.
    public var next: String?
    /// The question's style.
    public var font: FlowFont?
    /// The submit button's style.
    public var buttonStyle: FlowFont?

    /// Creates an input block's fields.
    public init(
        text: String, buttonTitle: String, secret: Bool = false, placeholder: String? = nil,
        validate: RocketInputValidation? = nil, branches: [FlowBranch] = [], next: String? = nil,
        font: FlowFont? = nil, buttonStyle: FlowFont? = nil
    ) {
        self.text = text
        self.buttonTitle = buttonTitle
        self.secret = secret
        self.placeholder = placeholder
        self.validate = validate
        self.branches = branches
        self.next = next
        self.font = font
        self.buttonStyle = buttonStyle
    }
}

/// A named block of a flow.
public struct FlowBlock: Hashable, Sendable {
    /// The unique name other blocks point to with `next`.
    public var id: String
    /// What it shows and does.
    public var content: FlowBlockContent

    /// Creates a block.
    public init(id: String, content: FlowBlockContent) {
        self.id = id
        self.content = content
    }

    /// Calls `body` with every block this one can lead to and the field that names it, without
    /// building an array (validation calls it for every block).
    public func forEachTarget(_ body: (_ field: String, _ id: String) -> Void) {
        switch content {
        case .text(_, let next, _, _): if let next { body("next", next) }
        case .image(let img): if let n = img.next { body("next", n) }
        case .button(let b): if let n = b.next { body("next", n) }
        case .doubleButton(let l, let r):
            if let n = l.next { body("left.next", n) }
            if let n = r.next { body("right.next", n) }
        case .textInput(let input):
            for (i, b) in input.branches.enumerated() { if let n = b.next { body("branches[\(i)].next", n) } }
            if let n = input.next { body("next", n) }
        case .choice(_, let options, _):
            for (i, o) in options.enumerated() { if let n = o.next { body("options[\(i)].next", n) } }
        }
    }

    /// Every block this one can lead to, with the field that names it.
    public var targets: [(field: String, id: String)] {
        switch content {
        case .text(_, let next, _, _):
            return next.map { [("next", $0)] } ?? []
        case .image(let img):
            return img.next.map { [("next", $0)] } ?? []
        case .button(let b):
            return b.next.map { [("next", $0)] } ?? []
        case .doubleButton(let l, let r):
            return (l.next.map { [("left.next", $0)] } ?? []) + (r.next.map { [("right.next", $0)] } ?? [])
        case .textInput(let input):
            var out: [(String, String)] = []
            for (i, b) in input.branches.enumerated() { if let n = b.next { out.append(("branches[\(i)].next", n)) } }
            if let n = input.next { out.append(("next", n)) }
            return out
        case .choice(_, let options, _):
            return options.enumerated().compactMap { i, o in o.next.map { ("options[\(i)].next", $0) } }
        }
    }

    /// Every text of the block a user sees, where `{{name}}` placeholders are filled: the text,
    /// button titles, an input's question, submit title, hint and validation message.
    public var texts: [String] {
        var out: [String] = []
        forEachText { out.append($0) }
        return out
    }

    /// Calls `body` with each of ``texts`` in order, without collecting them.
    public func forEachText(_ body: (String) -> Void) {
        switch content {
        case .text(let t, _, _, _): body(t)
        case .image(let img): if let t = img.text { body(t) }
        case .button(let b): body(b.title)
        case .doubleButton(let l, let r):
            body(l.title)
            body(r.title)
        case .textInput(let i):
            body(i.text)
            body(i.buttonTitle)
            if let p = i.placeholder { body(p) }
            if let m = i.validate?.message { body(m) }
        case .choice(let text, let options, _):
            body(text)
            for o in options { body(o.title) }
        }
    }
}

/// A conversation as data: the flow-file format (version 1), loaded by ``FlowLoader`` and
/// turned into a value graph by ``makeGraph(imageBase:)`` and a conversation by ``makeConversation(options:imageBase:)``.
///
/// ```swift
/// let doc = FlowDocument(start: "hi", blocks: [
///     FlowBlock(id: "hi", content: .text(text: "Hi!", next: nil, showNextAfter: nil, font: nil)),
/// ])
/// let conversation = doc.makeConversation()
/// ```
public struct FlowDocument: Hashable, Sendable {
    /// The format version (1).
    public var version: Int
    /// Optional title, for people and tools.
    public var title: String?
    /// The speaker.
    public var author: FlowAuthor?
    /// The close button.
    public var closeButton: FlowCloseButton?
    /// The first block's id (default: the first block).
    public var start: String?
    /// Names that callers may supply before the flow starts (`--var NAME=VALUE`).
    public var variables: [String]
    /// The blocks.
    public var blocks: [FlowBlock]
    /// The scenario that gates the flow: it is shown only when the scenario may execute, and the
    /// showing counts as its execution.
    public var scenario: String?
    /// The scenario's rules (WaitForIt's conditions, windows, budget, priority).
    public var when: ScenarioRules?
    /// A banner shown over the conversation when it starts.
    public var banner: Banner?

    /// The newest format version this library reads and writes.
    public static let currentVersion = 1

    /// Creates a document.
    public init(
        version: Int = FlowDocument.currentVersion, title: String? = nil, author: FlowAuthor? = nil,
        closeButton: FlowCloseButton? = nil, start: String? = nil, variables: [String] = [], blocks: [FlowBlock],
        scenario: String? = nil, when: ScenarioRules? = nil, banner: Banner? = nil
    ) {
        self.version = version
        self.title = title
        self.author = author
        self.closeButton = closeButton
        self.start = start
        self.variables = variables
        self.blocks = blocks
        self.scenario = scenario
        self.when = when
        self.banner = banner
    }

    /// The id of the block shown first.
    public var startID: String? { start ?? blocks.first?.id }
}
