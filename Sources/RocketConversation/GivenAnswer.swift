import RocketCore

/// Why a recorded answer cannot be given to a block: a sentence that names what the block takes.
public struct RocketAnswerRefusal: Error, Hashable, Sendable {
    /// What is wrong ("'Blue' is not one of its options: Red, Green").
    public var message: String

    /// A refusal saying `message`.
    public init(message: String) { self.message = message }
}

extension RocketNode {
    /// Whether `value` has the shape this block's answers have (checked before a conversation
    /// starts; the titles are matched when the block is reached, as they may hold `{{…}}`).
    /// Nil when it fits, else what the block takes.
    public func answerShapeProblem(_ value: RocketValue) -> RocketAnswerRefusal? {
        switch (content, value) {
        case (.button, .text), (.doubleButton, .text), (.choice, .text): return nil
        case (.choice(let c), .list) where c.multiple: return nil
        case (.rating, .number), (.rating, .text): return nil
        case (.textInput, .text), (.textInput, .number), (.textInput, .bool), (.textInput, .null): return nil
        case (.button, _), (.doubleButton, _): return RocketAnswerRefusal(message: "a button's answer is its title, a string")
        case (.choice(let c), _) where c.multiple:
            return RocketAnswerRefusal(message: "a multiple choice's answer is a list of option titles (or one title)")
        case (.choice, _): return RocketAnswerRefusal(message: "a choice's answer is an option's title, a string")
        case (.rating, _): return RocketAnswerRefusal(message: "a rating's answer is a whole number")
        case (.textInput, _): return RocketAnswerRefusal(message: "an input's answer is a string, a number, true, false or null")
        default: return RocketAnswerRefusal(message: "this block takes no answer")
        }
    }
}

extension Conversation {
    /// The intent that gives the block at `index` the answer `value`, in the form
    /// `rocket play --answers-out` and the event records write answers: a button's or option's
    /// title, a list of titles for a multiple choice, a rating's number, an input's text or
    /// typed value (null: an optional input left empty).
    ///
    /// A title matches as written or as shown (`{{…}}` filled in), exactly or else ignoring case
    /// and surrounding spaces when that names one option. An input's text is not checked here:
    /// the block's own rules decide when the intent is sent.
    ///
    /// ```swift
    /// conversation.intent(answering: .text("Red"), at: index)   // .success(.choose(0))
    /// ```
    public func intent(answering value: RocketValue, at index: Int) -> Result<RocketIntent, RocketAnswerRefusal> {
        node(at: index).intent(answering: value) { interpolate($0) }
    }
}

extension RocketNode {
    /// The intent that gives this block the answer `value`, its titles shown through `shown`
    /// (``Conversation/intent(answering:at:)`` fills in `{{…}}`; before a conversation runs,
    /// titles without `{{` are already what is shown).
    public func intent(answering value: RocketValue, shown: (String) -> String) -> Result<RocketIntent, RocketAnswerRefusal> {
        if let problem = answerShapeProblem(value) { return .failure(problem) }
        let titles = answerTitles
        let displayed = titles.map(shown)  // once, whatever the number of titles a list names
        func title(_ text: String) -> Result<Int, RocketAnswerRefusal> {
            if let k = displayed.firstIndex(of: text) ?? titles.firstIndex(of: text) { return .success(k) }
            let wanted = text.trimmingSpaces().lowercased()
            let loose = titles.indices.filter {
                displayed[$0].trimmingSpaces().lowercased() == wanted || titles[$0].trimmingSpaces().lowercased() == wanted
            }
            if loose.count == 1 { return .success(loose[0]) }
            let list = displayed.prefix(10).map(\.quotedForMessage).joined(separator: ", ") + (displayed.count > 10 ? ", …" : "")
            return .failure(RocketAnswerRefusal(message: "\(text.quotedForMessage) is not \(titles.count == 1 ? "its title" : "one of its options"): \(list)"))
        }
        switch (content, value) {
        case (.button, .text(let t)):
            return title(t).map { _ in .pressButton }
        case (.doubleButton, .text(let t)):
            return title(t).map { $0 == 0 ? .pressLeft : .pressRight }
        case (.choice(let c), .text(let t)):
            return title(t).map { c.multiple ? .chooseMany([$0]) : .choose($0) }
        case (.choice, .list(let items)):
            var chosen = Set<Int>()
            for item in items {
                switch title(item) {
                case .success(let k): chosen.insert(k)
                case .failure(let refusal): return .failure(refusal)
                }
            }
            return .success(.chooseMany(chosen.sorted()))
        case (.rating(let r), _):
            let number: Double?
            if case .number(let n) = value { number = n } else { number = Double(value.displayText.trimmingSpaces()) }
            let values = r.values
            guard let n = number, n == n.rounded(), n >= Double(values.lowerBound), n <= Double(values.upperBound) else {
                return .failure(
                    RocketAnswerRefusal(
                        message: "\(value.displayText.quotedForMessage) is not a whole number from \(values.lowerBound) to \(values.upperBound)"))
            }
            return .success(.rate(Int(n)))
        case (.textInput, _):
            return .success(.submit(value.displayText))
        default:
            return .failure(RocketAnswerRefusal(message: "this block takes no answer"))
        }
    }

    /// The titles an answer to this block is matched against (a button's, a double button's
    /// two, a choice's options).
    public var answerTitles: [String] {
        switch content {
        case .button(let b): return [b.title]
        case .doubleButton(let l, let r): return [l.title, r.title]
        case .choice(let c): return c.options.map(\.title)
        default: return []
        }
    }
}
