public import Foundation
public import RocketCore

/// The base protocol of every block: an optional user tag and the kind that decides how it is
/// drawn and what it accepts.
///
/// Blocks are reference types, as in the original; the engine tells them apart by identity.
///
/// ```swift
/// let block: RocketBlock = TextRocketBlock(text: "Hello")
/// block.id = "hello"
/// block.cellIdentifier   // "TextRocketBlock"
/// ```
public protocol RocketBlock: AnyObject {
    /// A user tag: flows use it as the block's name; answers are kept by it.
    var id: String? { get set }
    /// The seed's cell identifier (by default the kind's class name).
    var cellIdentifier: String { get }
    /// What kind of block this is.
    var kind: RocketBlockKind { get }
}

extension RocketBlock {
    /// The kind's class name, whatever the dynamic type (so subclasses still draw).
    public var cellIdentifier: String { kind.cellIdentifier }
}

/// A block the user taps to go on, or that goes on by itself after a delay.
///
/// Public here; the original documented it but kept it internal (R12).
///
/// ```swift
/// func chain(_ a: TappableRocketBlock, _ b: RocketBlock) { a.next = b }
/// ```
public protocol TappableRocketBlock: RocketBlock {
    /// The block shown after a tap or the delay; nil dismisses the conversation.
    var next: (any RocketBlock)? { get set }
    /// When above 0, tapping is disabled and the next block comes by itself after that many seconds.
    var showNextAfter: TimeInterval? { get set }
}

/// A block with controls (one or two buttons).
///
/// ```swift
/// let control: ControlRocketBlock = ButtonRocketBlock(title: "OK")
/// ```
public protocol ControlRocketBlock: RocketBlock {}

/// A block with an input field whose handler picks the next block from the input.
///
/// ```swift
/// let input: any InputRocketBlock = TextInputRocketBlock(text: "Name?", buttonTitle: "Send")
/// ```
public protocol InputRocketBlock: RocketBlock {
    /// The type of the value typed in.
    associatedtype InputType
    /// Chooses the next block from the input; nil (or no handler) dismisses.
    var handler: InputRocketHandler<InputType>? { get set }
}

/// A line or several lines of text.
///
/// Tap it to show ``next``; with ``showNextAfter`` above 0 it cannot be tapped and goes on by
/// itself. A nil `next` dismisses the whole conversation, by tap or by timer.
///
/// ```swift
/// let second = TextRocketBlock(text: "This is your second block")
/// let first = TextRocketBlock(text: "This is your first block", next: second)
/// // flat style
/// let third = TextRocketBlock(text: "Third")
/// second.next = third
/// second.font = .textBold
/// ```
public class TextRocketBlock: TappableRocketBlock {
    /// The text; `{{id}}` placeholders are replaced by earlier answers when shown.
    public var text: String
    /// The block shown after a tap or the delay; nil dismisses.
    public var next: (any RocketBlock)?
    /// Seconds before the next block comes by itself; nil or ≤ 0 means "wait for a tap".
    public var showNextAfter: TimeInterval?
    /// The user tag.
    public var id: String?
    /// The text style (default `.text`).
    public var font: RocketFont?

    /// The kind: `.text`.
    public var kind: RocketBlockKind { .text }

    /// A text that leads to `next` (seed initializer a).
    ///
    /// ```swift
    /// TextRocketBlock(text: "Hi", next: TextRocketBlock(text: "Bye"), showNextAfter: 1)
    /// ```
    public init(text: String, next: any RocketBlock, showNextAfter: TimeInterval? = nil) {
        self.text = text
        self.next = next
        self.showNextAfter = showNextAfter
        self.id = nil
        self.font = .text
    }

    /// A text that goes on by itself after `showNextAfter` seconds, with no next block yet
    /// (seed initializer b).
    ///
    /// ```swift
    /// let waiting = TextRocketBlock(text: "…", showNextAfter: 2)
    /// ```
    public convenience init(text: String, showNextAfter: TimeInterval) {
        self.init(text: text, next: nil, showNextAfter: showNextAfter)
    }

    /// The full initializer (seed initializer c).
    ///
    /// ```swift
    /// TextRocketBlock(text: "🚀", id: "rocket", font: .emoji)
    /// ```
    public init(
        text: String, next: (any RocketBlock)? = nil, showNextAfter: TimeInterval? = nil,
        id: String? = nil, font: RocketFont = .text
    ) {
        self.text = text
        self.next = next
        self.showNextAfter = showNextAfter
        self.id = id
        self.font = font
    }

    /// Sets ``next`` (the original's `add(next:)`).
    ///
    /// ```swift
    /// first.add(next: second)
    /// ```
    public func add(next: any RocketBlock) {
        self.next = next
    }

    /// True when the block goes on by itself (`showNextAfter` above 0).
    public var autoAdvances: Bool { (showNextAfter ?? 0) > 0 }

    deinit {
        var links = detachSuccessors()
        releaseChain(&links)
    }
}

extension TextRocketBlock: ChainLink {
    func detachSuccessors() -> [any RocketBlock] {
        guard let n = next else { return [] }
        next = nil
        return [n]
    }
}

/// A picture with optional text under it; a ``TextRocketBlock`` in every other way.
///
/// ```swift
/// let logo = ImageRocketBlock(image: .file("logo.png"), text: "Our logo")
/// logo.paddingLeft = 10
/// logo.imageStyle = .round
/// ```
public class ImageRocketBlock: TextRocketBlock {
    /// The picture.
    public let image: RocketImage
    /// Inset on the left of the picture (points, or cells in the terminal).
    public var paddingLeft: Double = 0
    /// Inset on the right of the picture.
    public var paddingRight: Double = 0
    /// Corner style of the picture (default `.square`).
    public var imageStyle: RocketImageStyle = .square

    /// The kind: `.image`.
    public override var kind: RocketBlockKind { .image }

    /// The full initializer; a nil text becomes "".
    ///
    /// ```swift
    /// ImageRocketBlock(image: .file("a.png"), text: nil, next: nil, showNextAfter: 2, id: "pic")
    /// ```
    public init(
        image: RocketImage, text: String?, next: (any RocketBlock)?, showNextAfter: TimeInterval? = nil,
        id: String? = nil
    ) {
        self.image = image
        super.init(text: text ?? "", next: next, showNextAfter: showNextAfter, id: id, font: .text)
    }

    /// A picture with text and no next block.
    ///
    /// ```swift
    /// ImageRocketBlock(image: .file("a.png"), text: "A")
    /// ```
    public convenience init(image: RocketImage, text: String?) {
        self.init(image: image, text: text, next: nil)
    }
}

/// What a button does: an optional side effect that runs at once, and the next block.
///
/// Beyond the seed, a handler may carry a *named action*: the conversation reports it as an
/// event and runs the code an app registered under that name (how loaded flows reach app code).
///
/// ```swift
/// let handler = TapRocketHandler(next: TextRocketBlock(text: "Done"), action: { print("tapped") })
/// let named = TapRocketHandler(next: nil, actionName: "enable-notifications")
/// ```
public struct TapRocketHandler {
    /// The block shown after the press; nil dismisses.
    public var next: (any RocketBlock)?
    /// Code run synchronously when the button is pressed.
    public var action: (() -> Void)?
    /// A named action reported and dispatched on press.
    public var actionName: String?

    /// The seed initializer.
    public init(next: (any RocketBlock)?, action: (() -> Void)? = nil) {
        self.next = next
        self.action = action
        self.actionName = nil
    }

    /// A handler with a named action (and optionally code as well).
    public init(next: (any RocketBlock)?, actionName: String?, action: (() -> Void)? = nil) {
        self.next = next
        self.action = action
        self.actionName = actionName
    }
}

/// Chooses the next block from what the user typed; may return nil, which dismisses.
///
/// ```swift
/// let handler = InputRocketHandler<String>(action: { text in
///     text.isEmpty ? TextRocketBlock(text: "Why no text? :(") : TextRocketBlock(text: "Thanks!")
/// })
/// ```
public struct InputRocketHandler<T> {
    /// The chooser.
    public var action: ((T) -> (any RocketBlock)?)?

    /// The seed initializer.
    public init(action: ((T) -> (any RocketBlock)?)?) {
        self.action = action
    }
}

/// A single button. Pressing it runs the handler's action at once, then (after a short bounce)
/// shows the handler's `next`; no handler or a nil `next` dismisses. It fires once.
///
/// ```swift
/// let button = ButtonRocketBlock(title: "PRESS HERE")
/// button.tapHandler = TapRocketHandler(next: TextRocketBlock(text: "You pressed the button!!"),
///                                      action: { print("the user clicked the button") })
/// ```
public class ButtonRocketBlock: ControlRocketBlock {
    /// The title.
    public let title: String
    /// What pressing does.
    public var tapHandler: TapRocketHandler?
    /// The title's style (default `.button`).
    public var font: RocketFont?
    /// The user tag.
    public var id: String?

    /// The kind: `.button`.
    public var kind: RocketBlockKind { .button }

    /// The full initializer.
    ///
    /// ```swift
    /// ButtonRocketBlock(title: "Later", tapHandler: nil, font: .lightButton, id: "later")
    /// ```
    public init(title: String, tapHandler: TapRocketHandler? = nil, font: RocketFont? = .button, id: String? = nil) {
        self.title = title
        self.tapHandler = tapHandler
        self.font = font
        self.id = id
    }

    /// A button with a handler.
    public convenience init(title: String, tapHandler: TapRocketHandler) {
        self.init(title: title, tapHandler: tapHandler, font: .button, id: nil)
    }

    /// A button with a handler and a style.
    public convenience init(title: String, tapHandler: TapRocketHandler, font: RocketFont) {
        self.init(title: title, tapHandler: tapHandler, font: Optional(font), id: nil)
    }

    deinit {
        var links = detachSuccessors()
        releaseChain(&links)
    }
}

extension ButtonRocketBlock: ChainLink {
    func detachSuccessors() -> [any RocketBlock] {
        guard let n = tapHandler?.next else { return [] }
        tapHandler?.next = nil
        return [n]
    }
}

/// Two buttons side by side; the first press of either disables both.
///
/// ```swift
/// let left = ButtonRocketBlock(title: "Left Button")
/// let right = ButtonRocketBlock(title: "Right Button")
/// right.font = .lightButton
/// let both = DoubleButtonRocketBlock(left: left, right: right)
/// ```
public class DoubleButtonRocketBlock: ControlRocketBlock {
    /// The left (first) button.
    public let left: ButtonRocketBlock
    /// The right (second) button.
    public let right: ButtonRocketBlock
    /// The user tag.
    public var id: String?

    /// The kind: `.doubleButton`.
    public var kind: RocketBlockKind { .doubleButton }

    /// Creates the pair.
    public required init(left: ButtonRocketBlock, right: ButtonRocketBlock, id: String? = nil) {
        self.left = left
        self.right = right
        self.id = id
    }
}

/// One branch of an input block: when the condition holds, `next` is shown.
///
/// ```swift
/// let branch = RocketInputBranch(when: .equals("SecretKey"), next: TextRocketBlock(text: "Awesome!!"))
/// ```
public struct RocketInputBranch {
    /// The condition.
    public var condition: RocketInputCondition
    /// The block shown when it holds; nil dismisses.
    public var next: (any RocketBlock)?

    /// Creates a branch.
    public init(when condition: RocketInputCondition, next: (any RocketBlock)?) {
        self.condition = condition
        self.next = next
    }
}

/// Asks the user to type text, then shows the block its handler picks.
///
/// Submitting runs, in order: validation (a failure keeps this block active), the
/// ``handler`` if there is one, else the first matching branch, else ``next``. A nil result
/// dismisses the conversation, as in the original. The typed text is kept as the answer of
/// this block's ``id``.
///
/// ```swift
/// let input = TextInputRocketBlock(text: "Describe your problem:", buttonTitle: "Send")
/// input.handler = InputRocketHandler<String>(action: { input in
///     if input.isEmpty { return TextRocketBlock(text: "Why haven't added a text? :(") }
///     if input == "SecretKey" { return TextRocketBlock(text: "Awesome!! you know the secret key") }
///     return TextRocketBlock(text: "Thanks you so much!")
/// })
/// ```
public class TextInputRocketBlock: InputRocketBlock {
    /// The input's value type.
    public typealias InputType = String

    /// The question shown above the field.
    public let text: String
    /// The title of the submit button.
    public let buttonTitle: String
    /// Chooses the next block; when set it wins over ``branches`` and ``next``.
    public var handler: InputRocketHandler<String>?
    /// The user tag (stored: the original's designated initializer dropped it, R1).
    public var id: String?
    /// The question's style (default `.text`).
    public var font: RocketFont?
    /// The submit button's style (default `.lightButton`).
    public var buttonStyle: RocketFont?
    /// Mask the typed text and keep it out of every event and file.
    public var isSecret: Bool = false
    /// Rules the text must meet.
    public var validation: RocketInputValidation?
    /// Declarative branches, tried in order when there is no handler.
    public var branches: [RocketInputBranch] = []
    /// The block shown when no handler or branch decides; nil dismisses.
    public var next: (any RocketBlock)?
    /// A hint shown in the empty field.
    public var placeholder: String?

    /// The kind: `.textInput`.
    public var kind: RocketBlockKind { .textInput }

    /// An input with no handler yet.
    ///
    /// ```swift
    /// TextInputRocketBlock(text: "Your e-mail?", buttonTitle: "Send")
    /// ```
    public convenience init(text: String, buttonTitle: String) {
        self.init(text: text, buttonTitle: buttonTitle, inputHandler: nil)
    }

    /// The full initializer.
    public init(
        text: String, buttonTitle: String, inputHandler: InputRocketHandler<String>?, id: String? = nil,
        font: RocketFont? = .text, buttonStyle: RocketFont? = .lightButton
    ) {
        self.text = text
        self.buttonTitle = buttonTitle
        self.handler = inputHandler
        self.id = id
        self.font = font
        self.buttonStyle = buttonStyle
    }

    /// Picks the next block for accepted text: the handler, else the first matching branch,
    /// else ``next``.
    public func resolveNext(for text: String) -> (any RocketBlock)? {
        if let handler { return handler.action?(text) }
        if let branch = branches.first(where: { $0.condition.matches(text) }) { return branch.next }
        return next
    }

    deinit {
        var links = detachSuccessors()
        releaseChain(&links)
    }
}

extension TextInputRocketBlock: ChainLink {
    func detachSuccessors() -> [any RocketBlock] {
        var out: [any RocketBlock] = []
        if let n = next { out.append(n) }
        next = nil
        for i in branches.indices {
            if let n = branches[i].next { out.append(n) }
            branches[i].next = nil
        }
        return out
    }
}
