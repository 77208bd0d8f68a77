import RocketCore

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

/// What a text input takes: its answer is stored as a value of this kind (a number as a number),
/// and browsers show the matching keyboard.
///
/// ```swift
/// RocketInputType.number.parse(" 2,5 ")        // .number(2.5)
/// RocketInputType.date.parse("2026-02-30")     // nil: no such day
/// RocketInputType.time.parse("9:30")           // .text("09:30")
/// RocketInputType.time.parse("2:30 pm")        // .text("14:30")
/// ```
public enum RocketInputType: String, Hashable, Sendable, Codable, CaseIterable {
    /// Any text.
    case text
    /// A decimal number (`-3`, `2.5`, `2,5`).
    case number
    /// A whole number.
    case integer
    /// An e-mail address (`name@example.org`).
    case email
    /// A web address starting with `http://` or `https://`.
    case url
    /// A calendar day, `YYYY-MM-DD` (stored as that text, so `<` orders days).
    case date
    /// A time of day on a 24-hour clock, typed `H:MM` or `HH:MM` (stored as `HH:MM`, so `<`
    /// orders times).
    case time
    /// A telephone number: digits with `+`, spaces, `-`, `.` and brackets, 5 to 20 digits.
    case phone

    /// True for the types whose `min` and `max` are numbers.
    public var isNumeric: Bool { self == .number || self == .integer }

    /// The largest magnitude of an integer answer, and the largest `min` or `max` an input may
    /// have (9·10¹⁵: every whole number up to it is exact in a `Double`).
    public static let largestBound: Double = 9e15

    /// The value `text` stands for, or nil when it is not one of this type. White space around
    /// it is ignored, except for `text`.
    public func parse(_ text: String) -> RocketValue? {
        if self == .text { return .text(text) }
        let t = text.trimmingSpaces()
        switch self {
        case .text: return .text(text)
        case .number, .integer:
            var s = t
            // A decimal comma, as many languages write it ("2,5"), when there is no point.
            if !s.contains("."), s.filter({ $0 == "," }).count == 1 { s = s.replacingAll(",", with: ".") }
            guard let n = RocketValue.parseNumber(s) else { return nil }
            if self == .integer && (n != n.rounded() || abs(n) > Self.largestBound) { return nil }
            return .number(n)
        case .email:
            let parts = t.split(separator: "@", omittingEmptySubsequences: false)
            guard t.utf8.count <= 254, parts.count == 2, !parts[0].isEmpty, parts[1].contains("."), !parts[1].hasPrefix("."),
                !parts[1].hasSuffix("."), !t.contains(where: { $0.isWhitespace || $0 == "," || $0 == ";" })
            else { return nil }
            return .text(t)
        case .url:
            let lower = t.lowercased()
            guard let scheme = ["https://", "http://"].first(where: { lower.hasPrefix($0) }), t.utf8.count <= 2048,
                !t.contains(where: { $0.isWhitespace })
            else { return nil }
            let host = t.dropFirst(scheme.count).prefix { $0 != "/" && $0 != "?" && $0 != "#" }
            guard !host.isEmpty, !host.hasPrefix("."), !host.hasPrefix(":") else { return nil }
            return .text(t)
        case .date:
            return RocketInputType.isDate(t) ? .text(t) : nil
        case .time:
            if let twelve = Self.twelveHourTime(t) { return .text(twelve) }
            // One digit of hours is taken ("9:30") and stored as two.
            let padded = t.utf8.count == 4 ? "0" + t : t
            return RocketInputType.isTime(padded) ? .text(padded) : nil
        case .phone:
            var digits = 0
            for c in t {
                if c.isASCII && c.isNumber {
                    digits += 1
                } else if !" +-.()".contains(c) {
                    return nil
                }
            }
            return (5...20).contains(digits) ? .text(t) : nil
        }
    }

    /// A time on a 12-hour clock (`2pm`, `2:30 pm`, `11:59 P.M.`, `12 am`) as `HH:MM` on a 24-hour
    /// one; nil for anything else (hours 1 to 12, minutes 00 to 59).
    static func twelveHourTime(_ t: String) -> String? {
        var b = Array(t.utf8).filter { $0 != 0x20 && $0 != 0x2E }.map { $0 | ($0 >= 0x41 && $0 <= 0x5A ? 0x20 : 0) }
        guard b.count >= 3, b.count <= 7, b.last == UInt8(ascii: "m") else { return nil }
        b.removeLast()
        guard let half = b.popLast(), half == UInt8(ascii: "a") || half == UInt8(ascii: "p") else { return nil }
        let parts = b.split(separator: UInt8(ascii: ":"), omittingEmptySubsequences: false)
        guard parts.count <= 2, parts.allSatisfy({ $0.allSatisfy { $0 >= 0x30 && $0 <= 0x39 } }),
            (1...2).contains(parts[0].count), parts.count == 1 || parts[1].count == 2
        else { return nil }
        let h = parts[0].reduce(0) { $0 * 10 + Int($1 - 0x30) }
        let m = parts.count == 2 ? parts[1].reduce(0) { $0 * 10 + Int($1 - 0x30) } : 0
        guard (1...12).contains(h), m < 60 else { return nil }
        return CivilDate.clock(minutes: (h % 12 + (half == UInt8(ascii: "p") ? 12 : 0)) * 60 + m)
    }

    /// True for `HH:MM` naming a time of day on a 24-hour clock (`00:00` to `23:59`).
    public static func isTime(_ s: String) -> Bool {
        let b = Array(s.utf8)
        guard b.count == 5, b[2] == 0x3A, [0, 1, 3, 4].allSatisfy({ b[$0] >= 0x30 && b[$0] <= 0x39 }) else { return false }
        let h = Int(b[0] - 0x30) * 10 + Int(b[1] - 0x30), m = Int(b[3] - 0x30) * 10 + Int(b[4] - 0x30)
        return h < 24 && m < 60
    }

    /// True for `YYYY-MM-DD` naming a day that exists (years 0001 to 9999).
    public static func isDate(_ s: String) -> Bool {
        let b = Array(s.utf8)
        guard b.count == 10, b[4] == 0x2D, b[7] == 0x2D else { return false }
        func number(_ r: Range<Int>) -> Int? {
            var n = 0
            for i in r {
                guard b[i] >= 0x30, b[i] <= 0x39 else { return nil }
                n = n * 10 + Int(b[i] - 0x30)
            }
            return n
        }
        guard let y = number(0..<4), let m = number(5..<7), let d = number(8..<10), y >= 1, (1...12).contains(m), d >= 1 else { return false }
        return d <= CivilDate.daysIn(month: m, year: y)
    }

    /// The day `days` days and `months` months after the day `s` (`YYYY-MM-DD`): a month step
    /// keeps the day of the month where the month has it, else takes its last day (January 31
    /// plus a month is February 28 or 29). Nil when `s` is no day or the result leaves years
    /// 1 to 9999.
    ///
    /// ```swift
    /// RocketInputType.day("2024-01-31", days: 0, months: 1)   // "2024-02-29"
    /// RocketInputType.day("2026-12-31", days: 1, months: 0)   // "2027-01-01"
    /// ```
    public static func day(_ s: String, days: Int, months: Int) -> String? {
        guard isDate(s), abs(days) <= 3_700_000, abs(months) <= 120_000 else { return nil }
        let b = Array(s.utf8)
        func number(_ r: Range<Int>) -> Int { r.reduce(0) { $0 * 10 + Int(b[$1] - 0x30) } }
        var y = number(0..<4), m = number(5..<7), d = number(8..<10)
        // Months first, keeping the day where it exists.
        let total = y * 12 + (m - 1) + months
        y = total >= 0 ? total / 12 : -1
        m = total % 12 + 1
        guard (1...9999).contains(y) else { return nil }
        d = min(d, CivilDate.daysIn(month: m, year: y))
        // Then days, through the count of days of the one civil calendar.
        let n = CivilDate.days(year: y, month: m, day: d) + days
        guard (1...9999).contains(CivilDate.date(days: n).year) else { return nil }
        return CivilDate.text(days: n)
    }

    /// The days since 1970-01-01 of a day `YYYY-MM-DD`, or nil when `s` is no day.
    public static func dayNumber(_ s: String) -> Int? {
        guard isDate(s) else { return nil }
        let b = Array(s.utf8)
        func number(_ r: Range<Int>) -> Int { r.reduce(0) { $0 * 10 + Int(b[$1] - 0x30) } }
        return CivilDate.days(year: number(0..<4), month: number(5..<7), day: number(8..<10))
    }

    /// The step of a day counted from today (`today`, `today+7d`, `today-18y`: days, weeks,
    /// months or years, at most 6 digits), as days and months; nil when `s` is not one.
    ///
    /// ```swift
    /// RocketInputType.relativeDay("today+2w")    // (days: 14, months: 0)
    /// RocketInputType.relativeDay("today-18y")   // (days: 0, months: -216)
    /// ```
    public static func relativeDay(_ s: String) -> (days: Int, months: Int)? {
        guard s.hasPrefix("today") else { return nil }
        let rest = Array(s.utf8.dropFirst(5))
        if rest.isEmpty { return (0, 0) }
        guard rest.count >= 3, rest.count <= 8, rest[0] == UInt8(ascii: "+") || rest[0] == UInt8(ascii: "-") else { return nil }
        let digits = rest[1..<(rest.count - 1)]
        guard digits.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
        let n = digits.reduce(0) { $0 * 10 + Int($1 - 0x30) } * (rest[0] == UInt8(ascii: "-") ? -1 : 1)
        switch rest[rest.count - 1] {
        case UInt8(ascii: "d"): return (n, 0)
        case UInt8(ascii: "w"): return (n * 7, 0)
        case UInt8(ascii: "m"): return (0, n)
        case UInt8(ascii: "y"): return (0, n * 12)
        default: return nil
        }
    }

    /// True when `s` may bound a date input: a day `YYYY-MM-DD`, or one counted from today that
    /// lands in the years 1 to 9999 from a today of this century (`today+999999y` bounds
    /// nothing, so it is refused). Lint and `rocket input --min/--max` both ask this.
    public static func isDayBound(_ s: String) -> Bool {
        isDate(s) || resolveDay(s, today: anyToday) != nil
    }

    /// A today of this century to count bounds from when any day will do: to check that one
    /// lands in the years 1 to 9999, or to order two bounds both counted from today.
    static let anyToday = "2001-01-01"

    /// A date input's bound as a day: a day `YYYY-MM-DD` as it is, or one counted from `today`
    /// (``relativeDay(_:)``); nil when it is neither, or counted from a today that is not given.
    public static func resolveDay(_ bound: String, today: String?) -> String? {
        if isDate(bound) { return bound }
        guard let step = relativeDay(bound), let today else { return nil }
        return day(today, days: step.days, months: step.months)
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
        /// The text is not a value of the input's type.
        case wrongType(RocketInputType)
        /// Below the input's `min` (as written: a number or a day).
        case tooSmall(String)
        /// Above the input's `max`.
        case tooLarge(String)
        /// Fewer options chosen than a multiple choice's `min`.
        case tooFewChosen(Int)
        /// More options chosen than a multiple choice's `max`.
        case tooManyChosen(Int)
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

extension RocketValidationFailure.Rule {
    /// Why a text was refused, in English for the flow's author (`rocket lint`): "it is not
    /// a number". A person answering is told in their language by the host's strings.
    package var phrase: String {
        switch self {
        case .required: return "it is empty and an answer is required"
        case .tooShort(let n): return "it is shorter than \(n) characters"
        case .tooLong(let n): return "it is longer than \(n) characters"
        case .pattern, .invalidPattern: return "it has no match of the pattern"
        case .patternTooComplex: return "matching the pattern against it takes too many steps"
        case .wrongType(let t): return "it is not \(t == .integer ? "a whole number" : t == .email || t == .url ? "an \(t.rawValue)" : "a \(t.rawValue)")"
        case .tooSmall(let m): return "it is below the least accepted, \(m)"
        case .tooLarge(let m): return "it is above the greatest accepted, \(m)"
        case .tooFewChosen(let n): return "fewer than \(n) options are chosen"
        case .tooManyChosen(let n): return "more than \(n) options are chosen"
        }
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
