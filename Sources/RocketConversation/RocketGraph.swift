public import RocketCore

/// The position of a block in a ``RocketGraph``.
///
/// ```swift
/// var graph = RocketGraph()
/// let hello: RocketNodeID = graph.add(RocketNode(text: "Hello"))
/// graph[hello].id   // nil
/// ```
public struct RocketNodeID: Hashable, Sendable, Codable, Comparable, CustomStringConvertible {
    /// The index in ``RocketGraph/nodes``.
    public let rawValue: Int

    /// Creates an id from an index.
    public init(_ rawValue: Int) { self.rawValue = rawValue }

    /// Orders ids by index.
    public static func < (a: RocketNodeID, b: RocketNodeID) -> Bool { a.rawValue < b.rawValue }

    /// `#index`.
    public var description: String { "#\(rawValue)" }

    /// Decodes from a bare number.
    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(Int.self)
    }

    /// Encodes as a bare number.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(rawValue)
    }
}

/// A text bubble: tap it, or it goes on by itself after ``showNextAfter`` seconds.
public struct RocketTextNode: Hashable, Sendable, Codable {
    /// The text; `{{name}}` placeholders are filled when shown.
    public var text: String
    /// The block after it; nil ends the conversation.
    public var next: RocketNodeID?
    /// Seconds before it goes on by itself; nil or ≤ 0 waits for a tap.
    public var showNextAfter: Double?
    /// The text style.
    public var font: RocketFont

    /// Creates a text node.
    public init(text: String, next: RocketNodeID? = nil, showNextAfter: Double? = nil, font: RocketFont = .text) {
        self.text = text
        self.next = next
        self.showNextAfter = showNextAfter
        self.font = font
    }
}

/// A picture with optional text under it; a text node in every other way.
public struct RocketImageNode: Hashable, Sendable, Codable {
    /// The picture.
    public var image: RocketImage
    /// Text under the picture ("" for none).
    public var text: String
    /// The block after it; nil ends the conversation.
    public var next: RocketNodeID?
    /// Seconds before it goes on by itself; nil or ≤ 0 waits for a tap.
    public var showNextAfter: Double?
    /// The text style.
    public var font: RocketFont
    /// Corner style of the picture.
    public var imageStyle: RocketImageStyle
    /// Inset on the left.
    public var paddingLeft: Double
    /// Inset on the right.
    public var paddingRight: Double

    /// Creates an image node.
    public init(
        image: RocketImage, text: String = "", next: RocketNodeID? = nil, showNextAfter: Double? = nil,
        font: RocketFont = .text, imageStyle: RocketImageStyle = .square, paddingLeft: Double = 0, paddingRight: Double = 0
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

/// A button: pressing it reports a named action (if any), lets the host run its own code (if
/// ``hasHostAction``), then shows ``next`` after a bounce.
public struct RocketButtonNode: Hashable, Sendable, Codable {
    /// The title; `{{name}}` placeholders are filled when shown.
    public var title: String
    /// The title's style.
    public var font: RocketFont
    /// The block after the press; nil ends the conversation.
    public var next: RocketNodeID?
    /// A named action reported as ``RocketEvent/action(name:blockID:)``.
    public var actionName: String?
    /// True when the host holds code for this button (a seed `TapRocketHandler` closure): the
    /// engine returns ``ConversationEffect/runTapAction(node:side:)`` for it.
    public var hasHostAction: Bool
    /// A page the press opens (an `http:` or `https:` URL): the browser opens it in a new tab,
    /// the terminal prints it. The press is the answer as any other.
    public var link: String?
    /// A picture drawn in the button above its title (a picture choice in the browser; a
    /// terminal with colour draws the focused button's or option's picture under the block).
    public var image: RocketImage?
    /// How long a press keeps the flow from being shown again to this person, as written: a
    /// duration (`"7d"`) or `"forever"` ("Remind me later", "No thanks"); the host keeps it.
    public var snooze: String?
    /// True for an option of a multiple choice that starts ticked (nil: it does not).
    public var selected: Bool?

    /// Creates a button node.
    public init(
        title: String, font: RocketFont = .button, next: RocketNodeID? = nil, actionName: String? = nil,
        hasHostAction: Bool = false, link: String? = nil, image: RocketImage? = nil, snooze: String? = nil
    ) {
        self.title = title
        self.font = font
        self.next = next
        self.actionName = actionName
        self.hasHostAction = hasHostAction
        self.link = link
        self.image = image
        self.snooze = snooze
    }

    /// The seconds a ``snooze`` names: a duration from one second up to the longest any
    /// duration may be (`RocketDuration.maxSeconds`), or `Double.infinity` for `"forever"`; nil
    /// for anything else.
    public static func snoozeSeconds(_ text: String) -> Double? {
        if text == "forever" { return .infinity }
        guard let seconds = RocketDuration.parse(text), seconds >= 1 else { return nil }
        return seconds
    }

    /// True for a link a button may open: an absolute `http:` or `https:` URL with a host, at
    /// most 2,048 bytes, without spaces, control characters, bidirectional overrides, quotes or
    /// angle brackets (nothing that could end an attribute, start a script or hide where it goes).
    public static func isLink(_ url: String) -> Bool {
        let bytes = Array(url.utf8)
        guard bytes.count <= 2048 else { return false }
        let lower = url.lowercased()
        let rest: Substring
        if lower.hasPrefix("https://") {
            rest = url.dropFirst(8)
        } else if lower.hasPrefix("http://") {
            rest = url.dropFirst(7)
        } else {
            return false
        }
        guard let first = rest.first, first != "/", first != "?", first != "#", first != ":" else { return false }
        return !url.unicodeScalars.contains { $0.value <= 0x20 || Sanitizer.isUnsafe($0) || "\"'<>\\`".unicodeScalars.contains($0) }
    }
}

/// A question with a list of options (more than two buttons), beyond the seed: one is chosen,
/// and the conversation goes where that option leads; or, when ``multiple``, several are, and
/// it goes to ``next``.
public struct RocketChoiceNode: Hashable, Sendable, Codable {
    /// The question, shown in a bubble above the list.
    public var text: String
    /// The question's style.
    public var font: RocketFont
    /// The options, in order.
    public var options: [RocketButtonNode]
    /// Several options may be chosen; the answer is the list of their titles.
    public var multiple = false
    /// The fewest options a multiple choice takes (nil: 1).
    public var minChosen: Int?
    /// The most options a multiple choice takes (nil: all).
    public var maxChosen: Int?
    /// Where a multiple choice goes once answered; nil ends the conversation.
    public var next: RocketNodeID?
    /// The title of a multiple choice's button that confirms the options ticked (nil: the
    /// front end's own word).
    public var buttonTitle: String?

    /// Creates a choice node.
    public init(text: String, font: RocketFont = .text, options: [RocketButtonNode]) {
        self.text = text
        self.font = font
        self.options = options
    }

    private enum CodingKeys: String, CodingKey { case text, font, options, multiple, minChosen, maxChosen, next, buttonTitle }

    /// Decodes a choice (one written before multiple choices existed takes one option).
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        text = try c.decode(String.self, forKey: .text)
        font = try c.decode(RocketFont.self, forKey: .font)
        options = try c.decode([RocketButtonNode].self, forKey: .options)
        multiple = try c.decodeIfPresent(Bool.self, forKey: .multiple) ?? false
        minChosen = try c.decodeIfPresent(Int.self, forKey: .minChosen)
        maxChosen = try c.decodeIfPresent(Int.self, forKey: .maxChosen)
        next = try c.decodeIfPresent(RocketNodeID.self, forKey: .next)
        buttonTitle = try c.decodeIfPresent(String.self, forKey: .buttonTitle)
    }

    /// Encodes the choice; a single choice is written as it was before multiple ones existed.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(text, forKey: .text)
        try c.encode(font, forKey: .font)
        try c.encode(options, forKey: .options)
        if multiple { try c.encode(multiple, forKey: .multiple) }
        try c.encodeIfPresent(minChosen, forKey: .minChosen)
        try c.encodeIfPresent(maxChosen, forKey: .maxChosen)
        try c.encodeIfPresent(next, forKey: .next)
        try c.encodeIfPresent(buttonTitle, forKey: .buttonTitle)
    }
}

/// The words under the ends of a rating's scale.
public struct RocketRatingLabels: Hashable, Sendable, Codable {
    /// Under the bottom of the scale ("Poor").
    public var low: String?
    /// Under the top of the scale ("Great").
    public var high: String?

    /// Creates labels.
    public init(low: String? = nil, high: String? = nil) {
        self.low = low
        self.high = high
    }
}

/// A question answered with a whole number from ``lowest`` (1, or 0 for a 0–10 question as Net
/// Promoter Score asks) to ``scale`` (stars in the terminal from 1, numbers from 0; a radio group
/// in the browser), beyond the seed.
public struct RocketRatingNode: Hashable, Sendable, Codable {
    /// The question.
    public var text: String
    /// The question's style.
    public var font: RocketFont
    /// The top of the scale (2 to 10).
    public var scale: Int
    /// The bottom of the scale: 1 (the default) or 0.
    public var lowest: Int
    /// The words under its ends.
    public var labels: RocketRatingLabels
    /// The block after the answer; nil ends the conversation.
    public var next: RocketNodeID?

    /// The labels as an optional value (absent when neither is given), as flow files write them.
    public var optionalLabels: RocketRatingLabels? {
        get { labels.low == nil && labels.high == nil ? nil : labels }
        set { labels = newValue ?? RocketRatingLabels() }
    }

    /// How soon after a digit typed on a scale another one makes a number with it, in seconds
    /// ("1" then "0" picks 10), in the terminal and in the browser alike.
    public static let digitPause = 1.0

    /// The answers it takes, bottom to top (never empty, whatever the fields hold).
    public var values: ClosedRange<Int> {
        let bottom = lowest == 0 ? 0 : 1
        return bottom...max(bottom + 1, scale)
    }

    /// Creates a rating node.
    public init(
        text: String, font: RocketFont = .text, scale: Int = 5, lowest: Int = 1, labels: RocketRatingLabels = RocketRatingLabels(),
        next: RocketNodeID? = nil
    ) {
        self.text = text
        self.font = font
        self.scale = scale
        self.lowest = lowest
        self.labels = labels
        self.next = next
    }

    private enum CodingKeys: String, CodingKey { case text, font, scale, lowest, labels, next }

    /// Decodes the node (one written before `lowest` existed starts at 1).
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        text = try c.decode(String.self, forKey: .text)
        font = try c.decode(RocketFont.self, forKey: .font)
        scale = try c.decode(Int.self, forKey: .scale)
        lowest = try c.decodeIfPresent(Int.self, forKey: .lowest) ?? 1
        labels = try c.decode(RocketRatingLabels.self, forKey: .labels)
        next = try c.decodeIfPresent(RocketNodeID.self, forKey: .next)
    }

    /// Encodes the node; one from 1 is written as it was before `lowest` existed (so a graph's
    /// ``RocketGraph/contentHash``, which names saved conversations' flows, stays).
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(text, forKey: .text)
        try c.encode(font, forKey: .font)
        try c.encode(scale, forKey: .scale)
        if lowest != 1 { try c.encode(lowest, forKey: .lowest) }
        try c.encode(labels, forKey: .labels)
        try c.encodeIfPresent(next, forKey: .next)
    }
}

/// A branch of an input node.
public struct RocketNodeBranch: Hashable, Sendable, Codable {
    /// When it applies.
    public var condition: RocketInputCondition
    /// Where it goes; nil ends the conversation.
    public var next: RocketNodeID?

    /// Creates a branch.
    public init(when condition: RocketInputCondition, next: RocketNodeID?) {
        self.condition = condition
        self.next = next
    }
}

/// What an empty text field says it takes (``Conversation/fieldHint(at:now:)``), for a host
/// to put in its own words (the terminal's dim text, line mode's prompt, the browser's field).
///
/// ```swift
/// c.fieldHint(at: c.interactiveIndex!, now: now)   // .range(low: "2026-12-08", high: "2026-12-21")
/// ```
public enum RocketFieldHint: Hashable, Sendable {
    /// The flow's `placeholder`, its `{{name}}` placeholders filled.
    case text(String)
    /// The least or greatest answer accepted, or both, as they are typed.
    case range(low: String?, high: String?)
    /// The form a date or a time is typed in (``RocketInputType/date`` or ``RocketInputType/time``).
    case form(RocketInputType)

    /// True for what the input's type makes (a range or a form), false for the flow's text.
    public var isTypeHint: Bool {
        if case .text = self { false } else { true }
    }
}

/// A question with a text field. Accepted text goes, in order, to the host's decision (when
/// ``decidedByHost``), the first matching branch, or ``next``.
public struct RocketInputNode: Hashable, Sendable, Codable {
    /// The question.
    public var text: String
    /// The submit button's title.
    public var buttonTitle: String
    /// The question's style.
    public var font: RocketFont
    /// The submit button's style.
    public var buttonStyle: RocketFont
    /// Mask the typed text and keep it out of every event and file.
    public var isSecret: Bool
    /// A hint shown in the empty field.
    public var placeholder: String?
    /// Rules the text must meet.
    public var validation: RocketInputValidation?
    /// Branches tried in order.
    public var branches: [RocketNodeBranch]
    /// Where to go when nothing else decides; nil ends the conversation.
    public var next: RocketNodeID?
    /// True when host code (a seed `InputRocketHandler`) picks the next block: the engine returns
    /// ``ConversationEffect/decideInput(node:index:text:)`` and waits for
    /// ``Conversation/resolveInput(next:at:)``.
    public var decidedByHost: Bool
    /// What the input takes; the answer is stored as a value of it.
    public var inputType: RocketInputType = .text
    /// The least value accepted: a number for numbers, a `YYYY-MM-DD` text for dates.
    public var minimum: RocketValue?
    /// The greatest value accepted.
    public var maximum: RocketValue?
    /// The answer may hold several lines (a text area; Enter starts a new line in a terminal).
    public var multiline = false
    /// The text the field starts with, `{{name}}` placeholders filled when the block is asked
    /// (``Conversation/startingText(at:)``); the person may change it or send it as it is.
    public var value: String?

    /// Creates an input node.
    public init(
        text: String, buttonTitle: String, font: RocketFont = .text, buttonStyle: RocketFont = .lightButton,
        isSecret: Bool = false, placeholder: String? = nil, validation: RocketInputValidation? = nil,
        branches: [RocketNodeBranch] = [], next: RocketNodeID? = nil, decidedByHost: Bool = false
    ) {
        self.text = text
        self.buttonTitle = buttonTitle
        self.font = font
        self.buttonStyle = buttonStyle
        self.isSecret = isSecret
        self.placeholder = placeholder
        self.validation = validation
        self.branches = branches
        self.next = next
        self.decidedByHost = decidedByHost
    }

    private enum CodingKeys: String, CodingKey {
        case text, buttonTitle, font, buttonStyle, isSecret, placeholder, validation, branches, next, decidedByHost, inputType, minimum, maximum
        case multiline, value
    }

    /// Decodes an input node (one written before typed inputs existed takes text).
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        text = try c.decode(String.self, forKey: .text)
        buttonTitle = try c.decode(String.self, forKey: .buttonTitle)
        font = try c.decode(RocketFont.self, forKey: .font)
        buttonStyle = try c.decode(RocketFont.self, forKey: .buttonStyle)
        isSecret = try c.decode(Bool.self, forKey: .isSecret)
        placeholder = try c.decodeIfPresent(String.self, forKey: .placeholder)
        validation = try c.decodeIfPresent(RocketInputValidation.self, forKey: .validation)
        branches = try c.decode([RocketNodeBranch].self, forKey: .branches)
        next = try c.decodeIfPresent(RocketNodeID.self, forKey: .next)
        decidedByHost = try c.decode(Bool.self, forKey: .decidedByHost)
        inputType = try c.decodeIfPresent(RocketInputType.self, forKey: .inputType) ?? .text
        minimum = try c.decodeIfPresent(RocketValue.self, forKey: .minimum)
        maximum = try c.decodeIfPresent(RocketValue.self, forKey: .maximum)
        multiline = try c.decodeIfPresent(Bool.self, forKey: .multiline) ?? false
        value = try c.decodeIfPresent(String.self, forKey: .value)
    }

    /// Encodes the node; a text input is written as it was before typed inputs existed (so a
    /// graph's ``RocketGraph/contentHash``, which names saved conversations' flows, stays).
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(text, forKey: .text)
        try c.encode(buttonTitle, forKey: .buttonTitle)
        try c.encode(font, forKey: .font)
        try c.encode(buttonStyle, forKey: .buttonStyle)
        try c.encode(isSecret, forKey: .isSecret)
        try c.encodeIfPresent(placeholder, forKey: .placeholder)
        try c.encodeIfPresent(validation, forKey: .validation)
        try c.encode(branches, forKey: .branches)
        try c.encodeIfPresent(next, forKey: .next)
        try c.encode(decidedByHost, forKey: .decidedByHost)
        if inputType != .text { try c.encode(inputType, forKey: .inputType) }
        try c.encodeIfPresent(minimum, forKey: .minimum)
        try c.encodeIfPresent(maximum, forKey: .maximum)
        if multiline { try c.encode(multiline, forKey: .multiline) }
        try c.encodeIfPresent(value, forKey: .value)
    }

    /// Checks `text` against the validation rules, then reads it as a value of ``inputType``
    /// within ``minimum`` and ``maximum``: the value, or the first rule it fails. Empty text that
    /// no rule requires is accepted as null for a typed input. `today` (`YYYY-MM-DD`, the
    /// person's) is the day bounds counted from today (`today+7d`) count from.
    public func accept(_ text: String, today: String? = nil) -> Result<RocketValue, RocketValidationFailure> {
        if let failure = validation?.check(text) { return .failure(failure) }
        guard inputType != .text else { return .success(.text(text)) }
        if text.allSatisfy(\.isWhitespace) { return .success(.null) }
        guard let value = inputType.parse(text) else {
            return .failure(RocketValidationFailure(rule: .wrongType(inputType), message: validation?.message))
        }
        func order(_ a: RocketValue, _ b: RocketValue) -> Int? {
            switch (a, b) {
            case (.number(let x), .number(let y)): return x < y ? -1 : x > y ? 1 : 0
            case (.text(let x), .text(let y)): return x < y ? -1 : x > y ? 1 : 0
            default: return nil
            }
        }
        let (low, high) = bounds(today: today)
        if let low, let o = order(value, low), o < 0 {
            return .failure(RocketValidationFailure(rule: .tooSmall(low.displayText), message: validation?.message))
        }
        if let high, let o = order(value, high), o > 0 {
            return .failure(RocketValidationFailure(rule: .tooLarge(high.displayText), message: validation?.message))
        }
        return .success(value)
    }

    /// ``minimum`` and ``maximum`` as the values they bound on the person's day `today`
    /// (`YYYY-MM-DD`): a date's bound counted from today (`today+7d`) is that day, and with no
    /// `today` given it bounds nothing (nil).
    public func bounds(today: String?) -> (low: RocketValue?, high: RocketValue?) {
        func bound(_ b: RocketValue?) -> RocketValue? {
            guard inputType == .date, case .text(let s)? = b else { return b }
            return RocketInputType.resolveDay(s, today: today).map { .text($0) }
        }
        return (bound(minimum), bound(maximum))
    }

    /// What the empty field says it takes, when the flow gives no ``placeholder``: the bounds of
    /// a typed answer on day `today` (``bounds(today:)``), else the form a date or time is typed
    /// in; nil for text, for a type with no form to show, and for a secret.
    public func typeHint(today: String?) -> RocketFieldHint? {
        guard !isSecret, inputType != .text else { return nil }
        let (low, high) = bounds(today: today)
        if low != nil || high != nil { return .range(low: low?.displayText, high: high?.displayText) }
        return inputType == .date || inputType == .time ? .form(inputType) : nil
    }

    /// Why this input cannot take several lines (a secret, or a type that is one line by
    /// nature), or nil: lint says it for a flow, `rocket input --multiline` for its flags.
    public var multilineProblem: String? {
        if isSecret { return "a secret input takes one line" }
        if inputType != .text { return "a \(inputType.rawValue) input takes one line; several lines are for text" }
        return nil
    }

    /// True when no answer could be accepted between ``minimum`` and ``maximum``: the minimum is
    /// above the maximum (both numbers, or both days), or an integer input's range holds no
    /// whole number.
    public var rangeIsEmpty: Bool { emptyRange(min: "min", max: "max") != nil }

    /// Why no answer could be accepted between ``minimum`` and ``maximum``, the two named as
    /// the caller's reader knows them (lint: `"min"`; `rocket input`: `--min`); nil when some
    /// answer could be.
    public func emptyRange(min: String, max: String) -> String? {
        switch (minimum, maximum) {
        case (.number(let a)?, .number(let b)?):
            if a > b { return "\(min) \(RocketValue.format(a)) is greater than \(max) \(RocketValue.format(b))" }
            if inputType == .integer, a.rounded(.up) > b.rounded(.down) {
                return "no whole number lies from \(min) \(RocketValue.format(a)) to \(max) \(RocketValue.format(b))"
            }
            return nil
        case (.text(let a)?, .text(let b)?):
            // Days counted from today are compared as they fall on any one day (both counted,
            // or both written out); one of each can be compared on no day before it comes.
            let relative = [a, b].filter { RocketInputType.relativeDay($0) != nil }.count
            if relative == 1 { return nil }
            let day = RocketInputType.anyToday
            let x = RocketInputType.resolveDay(a, today: day) ?? a, y = RocketInputType.resolveDay(b, today: day) ?? b
            return x > y ? "\(min) \(a) is later than \(max) \(b)" : nil
        default: return nil
        }
    }

    /// The next block for accepted text when the host does not decide: the first matching
    /// branch, else ``next``.
    public func resolveNext(for text: String) -> RocketNodeID? {
        for branch in branches where branch.condition.matches(text) { return branch.next }
        return next
    }
}

/// One assignment of a `set` block: a variable and the expression that gives its new value.
public struct RocketAssignment: Hashable, Sendable, Codable {
    /// The variable set.
    public var name: String
    /// Its new value.
    public var expression: RocketExpression

    /// Creates an assignment.
    public init(_ name: String, _ expression: RocketExpression) {
        self.name = name
        self.expression = expression
    }
}

/// A block that sets variables, in order (each sees the ones before), then goes on at once.
public struct RocketSetNode: Hashable, Sendable, Codable {
    /// The assignments, in order.
    public var assignments: [RocketAssignment]
    /// The block after it; nil ends the conversation.
    public var next: RocketNodeID?

    /// Creates a set node.
    public init(assignments: [RocketAssignment], next: RocketNodeID? = nil) {
        self.assignments = assignments
        self.next = next
    }
}

/// A branch of a `condition` block.
public struct RocketConditionBranch: Hashable, Sendable, Codable {
    /// The condition.
    public var condition: RocketExpression
    /// Where it goes when the condition holds; nil ends the conversation.
    public var next: RocketNodeID?

    /// Creates a branch.
    public init(if condition: RocketExpression, next: RocketNodeID?) {
        self.condition = condition
        self.next = next
    }
}

/// A block that goes to the first branch whose condition is true, else to ``elseNext``; never
/// shown.
public struct RocketConditionNode: Hashable, Sendable, Codable {
    /// The branches, tried in order.
    public var branches: [RocketConditionBranch]
    /// Where it goes when no branch holds; nil ends the conversation.
    public var elseNext: RocketNodeID?

    /// Creates a condition node.
    public init(branches: [RocketConditionBranch], elseNext: RocketNodeID? = nil) {
        self.branches = branches
        self.elseNext = elseNext
    }
}

/// A block that goes to another block at once, never shown: within the flow, or into another
/// flow (linked into this graph when the flow was loaded). With ``returns``, the way it goes
/// comes back when it ends, and the conversation goes on at ``next``.
public struct RocketJumpNode: Hashable, Sendable, Codable {
    /// Where it goes (nil: the end, or back to where the last returning jump came from).
    public var to: RocketNodeID?
    /// The flow it goes into, by name (nil: this flow).
    public var flow: String?
    /// When the way it goes ends, come back and go on at ``next``.
    public var returns: Bool
    /// Where to go on after coming back.
    public var next: RocketNodeID?

    /// Creates a jump.
    public init(to: RocketNodeID?, flow: String? = nil, returns: Bool = false, next: RocketNodeID? = nil) {
        self.to = to
        self.flow = flow
        self.returns = returns
        self.next = next
    }
}

/// What a block shows and does.
public indirect enum RocketNodeContent: Hashable, Sendable, Codable {
    /// A text bubble.
    case text(RocketTextNode)
    /// A picture.
    case image(RocketImageNode)
    /// A single button.
    case button(RocketButtonNode)
    /// Two buttons side by side.
    case doubleButton(left: RocketButtonNode, right: RocketButtonNode)
    /// A text input.
    case textInput(RocketInputNode)
    /// A list of options.
    case choice(RocketChoiceNode)
    /// A rating on a scale.
    case rating(RocketRatingNode)
    /// Variables set (not shown).
    case set(RocketSetNode)
    /// A branch on conditions (not shown).
    case condition(RocketConditionNode)
    /// A jump (not shown).
    case jump(RocketJumpNode)
}

/// One block of a conversation, as a value.
///
/// ```swift
/// let node = RocketNode(id: "hi", content: .text(RocketTextNode(text: "Hi!")))
/// node.kind   // .text
/// ```
public struct RocketNode: Hashable, Sendable, Codable {
    /// The user tag: answers are kept by it, flows name blocks with it.
    public var id: String?
    /// What it shows and does.
    public var content: RocketNodeContent

    /// Creates a node.
    public init(id: String? = nil, content: RocketNodeContent) {
        self.id = id
        self.content = content
    }

    /// A text node.
    public init(id: String? = nil, text: String, next: RocketNodeID? = nil, showNextAfter: Double? = nil) {
        self.init(id: id, content: .text(RocketTextNode(text: text, next: next, showNextAfter: showNextAfter)))
    }

    /// The block's kind.
    public var kind: RocketBlockKind {
        switch content {
        case .text: return .text
        case .image: return .image
        case .button: return .button
        case .doubleButton: return .doubleButton
        case .textInput: return .textInput
        case .choice: return .choice
        case .rating: return .rating
        case .set: return .set
        case .condition: return .condition
        case .jump: return .jump
        }
    }

    /// The text as written: the text, the button title, or both titles joined by " | ".
    public var rawText: String {
        switch content {
        case .text(let t): return t.text
        case .image(let i): return i.text
        case .button(let b): return b.title
        case .doubleButton(let l, let r): return l.title + " | " + r.title
        case .textInput(let i): return i.text
        case .choice(let c): return c.text
        case .rating(let r): return r.text
        case .set, .condition, .jump: return ""
        }
    }

    /// The auto-advance delay of a text or image node.
    public var showNextAfter: Double? {
        switch content {
        case .text(let t): return t.showNextAfter
        case .image(let i): return i.showNextAfter
        default: return nil
        }
    }

    /// The next block of a text or image node.
    public var tapNext: RocketNodeID? {
        switch content {
        case .text(let t): return t.next
        case .image(let i): return i.next
        default: return nil
        }
    }

    /// Calls `body` with every text of the block a user sees, where `{{name}}` placeholders are
    /// filled: the text, button titles, an input's question, submit title, hint, starting text and
    /// validation message, a choice's question and option titles.
    public func forEachText(_ body: (String) -> Void) {
        switch content {
        case .text(let t): body(t.text)
        case .image(let i): if !i.text.isEmpty { body(i.text) }
        case .button(let b): body(b.title)
        case .doubleButton(let l, let r):
            body(l.title)
            body(r.title)
        case .textInput(let i):
            body(i.text)
            body(i.buttonTitle)
            if let p = i.placeholder { body(p) }
            if let v = i.value { body(v) }
            if let m = i.validation?.message { body(m) }
        case .choice(let c):
            body(c.text)
            for o in c.options { body(o.title) }
            if let t = c.buttonTitle { body(t) }
        case .rating(let r):
            body(r.text)
            if let l = r.labels.low { body(l) }
            if let h = r.labels.high { body(h) }
        case .set, .condition, .jump: break
        }
    }

    /// The button a press of this block pressed: the button, the pressed side of a double
    /// button, the chosen option of a single choice; nil for none.
    public func pressed(side: RocketButtonSide?, option: Int?) -> RocketButtonNode? {
        switch content {
        case .button(let b): return b
        case .doubleButton(let l, let r): return side == .left ? l : side == .right ? r : nil
        case .choice(let c):
            guard !c.multiple, let option, c.options.indices.contains(option) else { return nil }
            return c.options[option]
        default: return nil
        }
    }

    /// The page a press of this block opens (``RocketButtonNode/link``), of the button it pressed.
    public func link(side: RocketButtonSide?, option: Int?) -> String? { pressed(side: side, option: option)?.link }

    /// True when some button of this block snoozes its flow (``RocketButtonNode/snooze``).
    public var snoozes: Bool {
        switch content {
        case .button(let b): return b.snooze != nil
        case .doubleButton(let l, let r): return l.snooze != nil || r.snooze != nil
        case .choice(let c): return c.options.contains { $0.snooze != nil }
        default: return false
        }
    }

    /// True for blocks the user answers (buttons, choices, inputs, ratings), which `.back` can
    /// return to; a tap on a text is not an answer.
    public var takesAnswer: Bool {
        switch content {
        case .button, .doubleButton, .choice, .textInput, .rating: return true
        case .text, .image, .set, .condition, .jump: return false
        }
    }

    /// True when the block can end the conversation: some way through it has no next block.
    public var canEnd: Bool {
        switch content {
        case .text(let t): return t.next == nil
        case .image(let i): return i.next == nil
        case .button(let b): return b.next == nil
        case .doubleButton(let l, let r): return l.next == nil || r.next == nil
        case .textInput(let i): return i.next == nil
        case .choice(let c): return c.multiple ? c.next == nil : c.options.contains { $0.next == nil }
        case .rating(let r): return r.next == nil
        case .set(let s): return s.next == nil
        case .condition(let c): return c.elseNext == nil || c.branches.contains { $0.next == nil }
        case .jump(let j): return j.to == nil || (j.returns && j.next == nil)
        }
    }

    /// Calls `body` with every block this one can lead to and the field that names it (for
    /// messages), without building an array.
    public func forEachSuccessor(_ body: (_ field: String, _ id: RocketNodeID) -> Void) {
        switch content {
        case .text(let t): if let n = t.next { body("next", n) }
        case .image(let i): if let n = i.next { body("next", n) }
        case .button(let b): if let n = b.next { body("next", n) }
        case .doubleButton(let l, let r):
            if let n = l.next { body("left.next", n) }
            if let n = r.next { body("right.next", n) }
        case .textInput(let i):
            for (k, b) in i.branches.enumerated() { if let n = b.next { body("branches[\(k)].next", n) } }
            if let n = i.next { body("next", n) }
        case .choice(let c):
            if c.multiple {
                if let n = c.next { body("next", n) }
            } else {
                for (k, o) in c.options.enumerated() { if let n = o.next { body("options[\(k)].next", n) } }
            }
        case .rating(let r): if let n = r.next { body("next", n) }
        case .set(let s): if let n = s.next { body("next", n) }
        case .condition(let c):
            for (k, b) in c.branches.enumerated() { if let n = b.next { body("branches[\(k)].next", n) } }
            if let n = c.elseNext { body("else", n) }
        case .jump(let j):
            if let n = j.to { body("to", n) }
            if j.returns, let n = j.next { body("next", n) }
        }
    }

    /// Changes every block this one names (every `next`, branch, option, `to` and `else`) with
    /// `f`: the one place that knows where a node keeps its targets, for graphs renumbered or
    /// appended to others.
    package mutating func mapTargets(_ f: (RocketNodeID?) -> RocketNodeID?) {
        func button(_ b: RocketButtonNode) -> RocketButtonNode {
            var b = b
            b.next = f(b.next)
            return b
        }
        switch content {
        case .text(var t):
            t.next = f(t.next)
            content = .text(t)
        case .image(var i):
            i.next = f(i.next)
            content = .image(i)
        case .button(let b): content = .button(button(b))
        case .doubleButton(let l, let r): content = .doubleButton(left: button(l), right: button(r))
        case .choice(var c):
            c.options = c.options.map(button)
            c.next = f(c.next)
            content = .choice(c)
        case .rating(var r):
            r.next = f(r.next)
            content = .rating(r)
        case .textInput(var i):
            i.next = f(i.next)
            i.branches = i.branches.map { RocketNodeBranch(when: $0.condition, next: f($0.next)) }
            content = .textInput(i)
        case .set(var s):
            s.next = f(s.next)
            content = .set(s)
        case .condition(var c):
            c.branches = c.branches.map { RocketConditionBranch(if: $0.condition, next: f($0.next)) }
            c.elseNext = f(c.elseNext)
            content = .condition(c)
        case .jump(var j):
            j.to = f(j.to)
            j.next = f(j.next)
            content = .jump(j)
        }
    }

    /// Changes every button of the block (a button, both sides, a choice's options) with `f`.
    package mutating func mapButtons(_ f: (inout RocketButtonNode) -> Void) {
        switch content {
        case .button(var b):
            f(&b)
            content = .button(b)
        case .doubleButton(var l, var r):
            f(&l)
            f(&r)
            content = .doubleButton(left: l, right: r)
        case .choice(var c):
            for k in c.options.indices { f(&c.options[k]) }
            content = .choice(c)
        default: break
        }
    }

    /// Every block this one can lead to.
    public var successors: [RocketNodeID] {
        switch content {
        case .text(let t): return t.next.map { [$0] } ?? []
        case .image(let i): return i.next.map { [$0] } ?? []
        case .button(let b): return b.next.map { [$0] } ?? []
        case .doubleButton(let l, let r): return [l.next, r.next].compactMap { $0 }
        case .textInput(let i): return i.branches.compactMap(\.next) + (i.next.map { [$0] } ?? [])
        case .choice(let c): return c.multiple ? (c.next.map { [$0] } ?? []) : c.options.compactMap(\.next)
        case .rating(let r): return r.next.map { [$0] } ?? []
        case .set(let s): return s.next.map { [$0] } ?? []
        case .condition(let c): return c.branches.compactMap(\.next) + (c.elseNext.map { [$0] } ?? [])
        case .jump(let j): return [j.to, j.returns ? j.next : nil].compactMap { $0 }
        }
    }
}

/// A conversation's blocks as values, linked by ``RocketNodeID``.
///
/// Nothing in it refers to anything else by reference, so it is `Sendable`, `Codable`, cheap to
/// copy, and released without recursion however long its chains are.
///
/// ```swift
/// var graph = RocketGraph()
/// let bye = graph.add(RocketNode(text: "Bye"))
/// graph.root = graph.add(RocketNode(text: "Hi", next: bye))
/// ```
public struct RocketGraph: Hashable, Sendable, Codable {
    /// Every block; a node's id is its index here.
    public private(set) var nodes: [RocketNode]
    /// The block shown first.
    public var root: RocketNodeID?
    /// The variables the flow declares, with their defaults (the flow's `vars`).
    public var variables: [RocketVariable] = []
    /// Whether `.back` may return to an earlier answer (the flow's `allowBack`).
    public var allowBack = true

    /// An empty graph.
    public init() {
        nodes = []
        root = nil
    }

    /// A graph of `nodes` (successor ids must be indices into it) starting at `root`.
    public init(nodes: [RocketNode], root: RocketNodeID?, variables: [RocketVariable] = []) {
        self.nodes = nodes
        self.root = root
        self.variables = variables
    }

    private enum CodingKeys: String, CodingKey { case nodes, root, variables, allowBack }

    /// Decodes a graph (one written before variables existed has none).
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        nodes = try c.decode([RocketNode].self, forKey: .nodes)
        root = try c.decodeIfPresent(RocketNodeID.self, forKey: .root)
        variables = try c.decodeIfPresent([RocketVariable].self, forKey: .variables) ?? []
        allowBack = try c.decodeIfPresent(Bool.self, forKey: .allowBack) ?? true
    }

    /// Encodes the graph; a graph without variables is written as it was before they existed
    /// (so its ``contentHash``, which names saved conversations' flows, stays the same).
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(nodes, forKey: .nodes)
        try c.encodeIfPresent(root, forKey: .root)
        if !variables.isEmpty { try c.encode(variables, forKey: .variables) }
        if !allowBack { try c.encode(allowBack, forKey: .allowBack) }
    }

    /// The declared variable of this name.
    public func variable(named name: String) -> RocketVariable? {
        variables.first { $0.name == name }
    }

    /// Appends a node and returns its id.
    @discardableResult
    public mutating func add(_ node: RocketNode) -> RocketNodeID {
        nodes.append(node)
        return RocketNodeID(nodes.count - 1)
    }

    /// Reserves room for `count` more nodes.
    public mutating func reserveCapacity(_ count: Int) {
        nodes.reserveCapacity(nodes.count + count)
    }

    /// True when a block reads the clock: an expression of a `set` or `condition` block
    /// (`today()`), or a date input's bound counted from today (`today+1d`). Two conversations
    /// started alike may then differ by when they ran.
    public var readsClock: Bool {
        nodes.contains { node in
            switch node.content {
            case .set(let s): return s.assignments.contains { $0.expression.readsClock }
            case .condition(let c): return c.branches.contains { $0.condition.readsClock }
            case .textInput(let i) where i.inputType == .date:
                return [i.minimum, i.maximum].contains { if case .text(let s)? = $0 { RocketInputType.relativeDay(s) != nil } else { false } }
            default: return false
            }
        }
    }

    /// The node with this id.
    public subscript(id: RocketNodeID) -> RocketNode {
        get { nodes[id.rawValue] }
        set { nodes[id.rawValue] = newValue }
    }

    /// True when `id` names a node of this graph.
    public func contains(_ id: RocketNodeID) -> Bool { nodes.indices.contains(id.rawValue) }

    /// The ids of the blocks that take an answer reachable after block `id` (by any path, so
    /// some may never be asked on the way a conversation goes), nearest first; `id` itself is
    /// left out, even when a loop leads back to it. Empty when no block has that id.
    public func answerable(after id: String) -> [String] {
        guard let start = nodes.firstIndex(where: { $0.id == id }) else { return [] }
        var seen: Set<Int> = [start]
        var queue = nodes[start].successors.map(\.rawValue)
        var out: [String] = []
        var head = 0
        while head < queue.count {
            let k = queue[head]
            head += 1
            guard nodes.indices.contains(k), seen.insert(k).inserted else { continue }
            if nodes[k].takesAnswer, let name = nodes[k].id { out.append(name) }
            queue += nodes[k].successors.map(\.rawValue)
        }
        return out
    }

    /// The first id that names no node, or nil when every successor and the root are valid.
    public func firstDanglingReference() -> RocketNodeID? {
        if let root, !contains(root) { return root }
        for node in nodes {
            for s in node.successors where !contains(s) { return s }
        }
        return nil
    }
}
