import RocketCore

/// The value of a flow's variable or answer: nothing, a flag, a number, a text or a list of texts
/// (the titles a multiple choice takes).
///
/// ```swift
/// RocketValue.number(3).displayText          // "3"
/// RocketValue.list(["Tea", "Cake"]).displayText   // "Tea, Cake"
/// RocketValue(parsing: "42", as: .number)    // .number(42)
/// ```
public enum RocketValue: Hashable, Sendable, Codable {
    /// No value (a variable never set, an answer not given yet).
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A finite number.
    case number(Double)
    /// A text.
    case text(String)
    /// Texts in order.
    case list([String])

    /// Decodes from the JSON value it is written as (null, a boolean, a number, a string, an array
    /// of strings).
    public init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        if c.decodeNil() {
            self = .null
        } else if let b = try? c.decode(Bool.self) {
            self = .bool(b)
        } else if let n = try? c.decode(Double.self) {
            self = .number(n)
        } else if let s = try? c.decode(String.self) {
            self = .text(s)
        } else {
            self = .list(try c.decode([String].self))
        }
    }

    /// Encodes as the JSON value it is.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        switch self {
        case .null: try c.encodeNil()
        case .bool(let b): try c.encode(b)
        case .number(let n): try c.encode(n)
        case .text(let s): try c.encode(s)
        case .list(let items): try c.encode(items)
        }
    }

    /// The value's type.
    public var type: RocketValueType {
        switch self {
        case .null: return .null
        case .bool: return .bool
        case .number: return .number
        case .text: return .text
        case .list: return .list
        }
    }

    /// The value as `{{name}}` shows it: a whole number without a decimal point, a list joined
    /// with ", ", nothing for null.
    public var displayText: String {
        switch self {
        case .null: return ""
        case .bool(let b): return b ? "true" : "false"
        case .number(let n): return RocketValue.format(n)
        case .text(let s): return s
        case .list(let items): return items.joined(separator: ", ")
        }
    }

    /// A number as people write it: `3`, `2.5`, `-0.125`; a whole number in digits up to 2⁵³
    /// (every one up to there is exact, ``RocketInputType/largestBound`` among them).
    public static func format(_ n: Double) -> String {
        if n == n.rounded(), abs(n) < 0x1p53 { return String(Int(n)) }
        return String(n)
    }

    /// Reads `text` as a value of `type` (a `--var`, a page's query, a typed answer): numbers are
    /// decimal (`-3`, `2.5`, `1e3`), flags are `true` or `false`, a list is one text. Nil when the
    /// text is not one.
    public init?(parsing text: String, as type: RocketValueType) {
        switch type {
        case .text: self = .text(text)
        case .list: self = .list([text])
        case .null: return nil
        case .bool:
            switch text {
            case "true": self = .bool(true)
            case "false": self = .bool(false)
            default: return nil
            }
        case .number:
            guard let n = RocketValue.parseNumber(text) else { return nil }
            self = .number(n)
        }
    }

    /// A decimal number: an optional sign, digits with an optional fraction, an optional
    /// exponent; white space around it is ignored. Nil for anything else (`inf`, `0x10`, `1,5`)
    /// and for numbers too large to hold.
    public static func parseNumber(_ text: String) -> Double? {
        let s = text.trimmingSpaces()
        guard !s.isEmpty, s.utf8.count <= RocketLimits.jsonNumberCharacters else { return nil }
        var digits = 0
        var seenDot = false, seenExp = false, expDigits = 0
        var previous: UInt8 = 0
        for (k, b) in s.utf8.enumerated() {
            switch b {
            case 0x30...0x39:
                if seenExp { expDigits += 1 } else { digits += 1 }
            case 0x2B, 0x2D:  // + -
                guard k == 0 || previous == 0x65 || previous == 0x45 else { return nil }
            case 0x2E:
                guard !seenDot, !seenExp else { return nil }
                seenDot = true
            case 0x65, 0x45:
                guard !seenExp, digits > 0 else { return nil }
                seenExp = true
            default: return nil
            }
            previous = b
        }
        guard digits > 0, !seenExp || expDigits > 0, let n = Double(s), n.isFinite else { return nil }
        return n
    }
}

/// The type of a ``RocketValue``, as expressions and the flow's `vars` name it.
public enum RocketValueType: String, Hashable, Sendable, CaseIterable, Codable {
    /// No value.
    case null
    /// A flag.
    case bool
    /// A number.
    case number
    /// A text.
    case text
    /// A list of texts.
    case list

    /// The word used in messages: "a number", "a text".
    public var phrase: String {
        switch self {
        case .null: return "null"
        case .bool: return "true or false"
        case .number: return "a number"
        case .text: return "a text"
        case .list: return "a list"
        }
    }
}

/// A variable a flow declares, with its default (which gives its type).
///
/// ```swift
/// RocketVariable(name: "visits", defaultValue: .number(0)).type   // .number
/// ```
public struct RocketVariable: Hashable, Sendable, Codable {
    /// The name expressions and `{{name}}` use.
    public var name: String
    /// The value it has until something sets it; null for a variable of the older `variables`
    /// list (a text with no default).
    public var defaultValue: RocketValue
    /// The type every value it takes must have.
    public var type: RocketValueType

    /// A variable whose type is its default's.
    public init(name: String, defaultValue: RocketValue) {
        self.name = name
        self.defaultValue = defaultValue
        self.type = defaultValue.type == .null ? .text : defaultValue.type
    }
}
