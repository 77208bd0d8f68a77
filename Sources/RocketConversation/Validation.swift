/// A rule the typed text must meet before the input block accepts it (beyond the seed).
///
/// A failure keeps the same input block active and reports a ``RocketValidationFailure``.
///
/// ```swift
/// let rule = RocketInputValidation(required: true, maxLength: 40, pattern: "^[^0-9]*$",
///                                  message: "No digits, please")
/// ```
public struct RocketInputValidation: Hashable, Sendable, Codable {
    /// Reject empty (or whitespace-only) text.
    public var required: Bool
    /// Minimum length in characters (grapheme clusters).
    public var minLength: Int?
    /// Maximum length in characters (grapheme clusters).
    public var maxLength: Int?
    /// A regular expression (PCRE2 syntax, bounded cost: ``RocketPattern``) the text must contain
    /// a match of.
    public var pattern: String?
    /// The message shown for any failure; nil uses the front end's default text for the rule.
    public var message: String?

    /// Creates a rule set.
    public init(
        required: Bool = false, minLength: Int? = nil, maxLength: Int? = nil,
        pattern: String? = nil, message: String? = nil
    ) {
        self.required = required
        self.minLength = minLength
        self.maxLength = maxLength
        self.pattern = pattern
        self.message = message
    }

    /// Checks `text`; returns the first failed rule, or nil when the text is accepted.
    ///
    /// ```swift
    /// RocketInputValidation(required: true).check("")?.rule   // .required
    /// ```
    public func check(_ text: String) -> RocketValidationFailure? {
        if required && text.allSatisfy(\.isWhitespace) {
            return RocketValidationFailure(rule: .required, message: message)
        }
        let length = text.count
        if let min = minLength, length < min {
            return RocketValidationFailure(rule: .tooShort(min), message: message)
        }
        if let max = maxLength, length > max {
            return RocketValidationFailure(rule: .tooLong(max), message: message)
        }
        if let pattern {
            guard case .success(let compiled) = RocketPattern.compile(pattern) else {
                return RocketValidationFailure(rule: .invalidPattern(pattern), message: nil)
            }
            switch compiled.match(text) {
            case .matched: break
            case .noMatch: return RocketValidationFailure(rule: .pattern(pattern), message: message)
            case .limitExceeded: return RocketValidationFailure(rule: .patternTooComplex(pattern), message: message)
            }
        }
        return nil
    }
}

/// Why typed text was refused.
///
/// ```swift
/// let failure = RocketValidationFailure(rule: .tooLong(40), message: nil)
/// ```
public struct RocketValidationFailure: Hashable, Sendable, Codable, Error {
    /// The rule that failed.
    public enum Rule: Hashable, Sendable, Codable {
        /// Empty text where text is required.
        case required
        /// Shorter than the minimum.
        case tooShort(Int)
        /// Longer than the maximum.
        case tooLong(Int)
        /// No match of the pattern.
        case pattern(String)
        /// The pattern itself does not compile (a flow error `rocket lint` reports).
        case invalidPattern(String)
        /// Checking the pattern against this text needed more than ``RocketPattern/stepLimit``
        /// steps; the text is refused rather than checked for minutes.
        case patternTooComplex(String)
    }
    /// The rule that failed.
    public var rule: Rule
    /// The author's message, if the flow gave one.
    public var message: String?

    /// Creates a failure.
    public init(rule: Rule, message: String?) {
        self.rule = rule
        self.message = message
    }
}

/// A condition on typed text that sends the conversation down a branch (beyond the seed).
///
/// ```swift
/// RocketInputCondition.equals("SecretKey").matches("SecretKey")   // true
/// RocketInputCondition.pattern("(?i)^ada").matches("Ada Lovelace") // true
/// ```
public enum RocketInputCondition: Hashable, Sendable, Codable {
    /// The text equals this string exactly.
    case equals(String)
    /// The text contains a match of this regular expression (``RocketPattern``, bounded cost).
    case pattern(String)
    /// The text is empty (after trimming white space).
    case empty

    /// True when `text` meets the condition (an invalid pattern, or one that exceeds its step
    /// limit on this text, never matches).
    public func matches(_ text: String) -> Bool {
        switch self {
        case .equals(let s): return text == s
        case .empty: return text.allSatisfy(\.isWhitespace)
        case .pattern(let p):
            guard case .success(let compiled) = RocketPattern.compile(p) else { return false }
            return compiled.match(text) == .matched
        }
    }
}
