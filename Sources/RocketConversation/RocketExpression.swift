import RocketCore

/// A problem with an expression: where it is (a byte offset in the expression's UTF-8) and why.
public struct RocketExpressionError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A stable name: `syntax`, `too-long`, `too-deep`, `unknown-name`, `type`, `division-by-zero`,
    /// `not-a-number`, `out-of-range`, `bad-pattern`, `pattern-limit`, `pattern-budget`,
    /// `no-clock`; the conversation's own: `loop`, `jump-depth`, `conversation-too-long`.
    public let code: String
    /// A sentence saying what is wrong.
    public let message: String
    /// The byte offset in the expression's text where the problem is.
    public let offset: Int

    /// Creates an error.
    public init(code: String, message: String, offset: Int) {
        self.code = code
        self.message = message
        self.offset = offset
    }

    /// The message.
    public var description: String { message }
}

/// A condition or an assignment of a flow: one small, total language over the flow's variables.
///
/// Literals (`3`, `2.5`, `'text'`, `true`, `false`, `null`), variable names (a name with other
/// characters between backquotes), `== != < <= > >=`, `and or not`, `+ - * / %` on numbers, `+`
/// on texts, `in` and `not in` (an item of a list, a part of a text), parentheses, and the
/// functions `lower`, `upper`, `trim`, `length`, `contains`, `number`, `text`. No loops, no calls
/// out. At most `RocketLimits.expressionBytes` and nesting `RocketLimits.expressionDepth`;
/// evaluation takes time in proportion to its length and the texts it touches.
///
/// An expression is compiled once, when it is made, into a list of steps (no recursion, here or
/// in evaluation). Evaluation never traps: an error (a division by zero, a name with no value
/// where a number is needed) is a value that `and`/`or` can pass over as they would in a
/// short-circuit (`x != 0 and 10 / x > 1` is false for `x` 0).
///
/// ```swift
/// let e = RocketExpression("visits > 3 and plan == 'pro'")
/// e.evaluate { ["visits": .number(4), "plan": .text("pro")][$0] }   // .success(.bool(true))
/// ```
public struct RocketExpression: Hashable, Sendable, Codable, CustomStringConvertible {
    /// The expression as written.
    public let source: String
    /// Its steps, in postfix order; empty when it does not parse.
    let program: [Step]
    /// The most values its evaluation holds at once.
    let stackSize: Int
    /// Why it does not parse, or nil.
    public let syntaxError: RocketExpressionError?
    /// The patterns its `matches(…)` calls name, compiled once, by their text.
    let patterns: [String: RocketPattern]

    /// Compiles `source`; a syntax error is kept in ``syntaxError`` (and evaluating it returns it).
    public init(_ source: String) {
        self.source = source
        switch Compiler.compile(source) {
        case .success(let p):
            switch Self.compilePatterns(p) {
            case .success(let compiled):
                program = p
                patterns = compiled
                syntaxError = nil
            case .failure(let e):
                program = []
                patterns = [:]
                syntaxError = e
            }
        case .failure(let e):
            program = []
            patterns = [:]
            syntaxError = e
        }
        var height = 0, most = 0
        for step in program {
            switch step.op {
            case .constant, .name: height += 1
            case .not, .negate: break
            case .call(_, let n): height -= n - 1
            default: height -= 1
            }
            most = max(most, height)
        }
        stackSize = max(1, most)
    }

    /// The source.
    public var description: String { source }

    /// The patterns its `matches(…)` calls name (each once), for lint's warnings.
    public var patternSources: [String] { patterns.keys.sorted() }

    /// The pattern of each `matches(…)` call in `program`, compiled: it must be a text in quotes
    /// (the step just before the call, which is then its whole second value), so that lint
    /// compiles every pattern a flow can run, and each is compiled once.
    static func compilePatterns(_ program: [Step]) -> Result<[String: RocketPattern], RocketExpressionError> {
        var out: [String: RocketPattern] = [:]
        for (i, step) in program.enumerated() {
            guard case .call(.matches, _) = step.op else { continue }
            guard i > 0, case .constant(.text(let source)) = program[i - 1].op else {
                return .failure(
                    RocketExpressionError(
                        code: "syntax", message: "matches(…) takes its pattern as a text in quotes, such as matches(mail, '@example\\.com$')",
                        offset: step.offset))
            }
            if out[source] != nil { continue }
            switch RocketPattern.compile(source) {
            case .success(let pattern): out[source] = pattern
            case .failure(let e):
                return .failure(
                    RocketExpressionError(
                        code: "bad-pattern", message: "the pattern does not compile: \(e.message) (at its byte \(e.offset))",
                        offset: program[i - 1].offset))
            }
        }
        return .success(out)
    }

    /// True when it calls `today()`, `time()` or `weekday()`: its value depends on when it is
    /// evaluated, not only on the names it reads.
    public var readsClock: Bool {
        program.contains { if case .call(let f, _) = $0.op { return f.readsClock } else { return false } }
    }

    /// Decodes from its source text.
    public init(from decoder: any Decoder) throws {
        self.init(try decoder.singleValueContainer().decode(String.self))
    }

    /// Encodes as its source text.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(source)
    }

    /// Two expressions are equal when written the same.
    public static func == (a: RocketExpression, b: RocketExpression) -> Bool { a.source == b.source }

    /// Hashes the source.
    public func hash(into h: inout Hasher) { h.combine(source) }

    /// The variable names it reads, in order of appearance, each once.
    public var names: [String] {
        var out: [String] = []
        for s in program { if case .name(let n) = s.op, !out.contains(n) { out.append(n) } }
        return out
    }

    // MARK: Steps

    enum Function: String, CaseIterable, Sendable {
        case lower, upper, trim, length, contains, startsWith, endsWith, matches, replace, number, text, round, floor, ceil, abs, min, max
        case `if`
        case today, time, weekday, days, weekdayOf, addDays

        /// How many values a call gives it.
        var arity: ClosedRange<Int> {
            switch self {
            case .contains, .startsWith, .endsWith, .matches, .min, .max, .days, .addDays: return 2...2
            case .round: return 1...2
            case .if, .replace: return 3...3
            case .today, .time, .weekday: return 0...0
            default: return 1...1
            }
        }

        /// True for the functions of the person's local time.
        var readsClock: Bool { self == .today || self == .time || self == .weekday }

        var signature: String {
            switch self {
            case .lower, .upper, .trim: return "\(rawValue)(text)"
            case .length: return "length(text or list)"
            case .contains: return "contains(text or list, text)"
            case .startsWith, .endsWith: return "\(rawValue)(text, text)"
            case .replace: return "replace(text, text, text)"
            case .matches: return "matches(text, pattern in quotes)"
            case .number: return "number(text or number)"
            case .text: return "text(any value)"
            case .round: return "round(number) or round(number, whole number of digits)"
            case .floor, .ceil, .abs: return "\(rawValue)(number)"
            case .min, .max: return "\(rawValue)(two numbers or two texts)"
            case .if: return "if(true or false, value, value)"
            case .today, .time, .weekday: return "\(rawValue)()"
            case .days: return "days(date, date)"
            case .weekdayOf: return "weekdayOf(date)"
            case .addDays: return "addDays(date, whole number)"
            }
        }

        /// How a call is written in the reference, with short names for its values (each form
        /// its function takes).
        var usages: [String] {
            switch self {
            case .lower, .upper, .trim: return ["\(rawValue)(t)"]
            case .length, .number, .text: return ["\(rawValue)(x)"]
            case .contains: return ["contains(x, t)"]
            case .startsWith, .endsWith: return ["\(rawValue)(t, part)"]
            case .replace: return ["replace(t, part, with)"]
            case .matches: return ["matches(t, 'pattern')"]
            case .round: return ["round(n)", "round(n, digits)"]
            case .floor, .ceil, .abs: return ["\(rawValue)(n)"]
            case .min, .max: return ["\(rawValue)(a, b)"]
            case .if: return ["if(c, a, b)"]
            case .today, .time, .weekday: return ["\(rawValue)()"]
            case .days: return ["days(a, b)"]
            case .weekdayOf: return ["weekdayOf(d)"]
            case .addDays: return ["addDays(d, n)"]
            }
        }

        /// What it gives, for the reference (docs/FLOW_FORMAT.md's functions are made of these).
        var gives: String {
            switch self {
            case .lower: return "the text `t` in lower case"
            case .upper: return "the text `t` in upper case"
            case .trim: return "the text `t` without spaces at either end"
            case .length: return "characters of a text, items of a list"
            case .contains: return "`t` is a part of the text `x`, or an item of the list `x`"
            case .startsWith: return "the text `t` begins with `part` (as written: no case folding)"
            case .endsWith: return "the text `t` ends with `part` (as written: no case folding)"
            case .matches:
                return "the text `t` matches the pattern somewhere: a Perl-style regular expression written in quotes, "
                    + "as `validate.pattern` is (`(?i)` for any case, `^…$` for the whole text), compiled by lint; "
                    + "one that needs more than \(RocketLimits.expressionPatternSteps) steps on a text is an error (`pattern-limit`), "
                    + "and once a conversation's matches have taken \(RocketLimits.conversationPatternSteps) steps, every later one is (`pattern-budget`)"
            case .replace:
                return "the text `t` with every `part` in it (left to right, as written) replaced by `with`: "
                    + "`replace(phone, ' ', '')`; `t` itself when `part` is empty"
            case .number: return "a number, or a text read as a decimal number"
            case .text: return "any value as `{{name}}` shows it"
            case .round:
                return "`n` rounded to a whole number, or to `digits` after the point (before it, when negative: "
                    + "`round(1250, -2)` is 1300), halves away from zero, as written: `round(1.005, 2)` is 1.01"
            case .floor: return "the whole number at or below `n`"
            case .ceil: return "the whole number at or above `n`"
            case .abs: return "`n` without its sign"
            case .min: return "the smaller of two numbers, or the first of two texts in code-point order (the earlier of two dates)"
            case .max: return "the larger of two numbers, or the last of two texts in code-point order (the later of two dates)"
            case .if:
                return "`a` when `c` is true, `b` when it is false; an error on the side not taken is passed over "
                    + "(`if(n == 0, 0, 10 / n)`), and lint wants both sides of one type (or `null`)"
            case .today: return "the person's local day (`'2026-12-06'`)"
            case .time: return "the person's local time of day (`'09:30'`)"
            case .weekday: return "the person's local day of the week, 1 Monday … 7 Sunday"
            case .days: return "the days from the date `a` to the date `b` (texts `YYYY-MM-DD`): `days(today(), '2026-12-25')`"
            case .weekdayOf: return "the day of the week of the date `d`, 1 Monday … 7 Sunday (`weekdayOf(day) >= 6`: a weekend day answered)"
            case .addDays: return "the date `n` days after `d` (before, for a negative `n`): `addDays(today(), 3)`"
            }
        }

        /// "takes 2 values", "takes 1 or 2 values", "takes no value".
        var takes: String {
            let (a, b) = (arity.lowerBound, arity.upperBound)
            if b == 0 { return "takes no value" }
            return "takes \(a == b ? "\(a)" : "\(a) or \(b)") value\(b == 1 ? "" : "s")"
        }
    }

    /// The person's local date and time, which `today()`, `time()` and `weekday()` read: the
    /// host knows the clock and the time zone, the expression only this.
    public struct LocalTime: Hashable, Sendable {
        /// Days since 1970-01-01 in the person's calendar.
        public var day: Int
        /// Minutes since local midnight, 0 to 1439.
        public var minute: Int

        /// The local time at `seconds` since 1970-01-01T00:00 local (an instant plus its
        /// offset from UTC), or nil outside the years 1 to 9999.
        public init?(localSeconds seconds: Double) {
            guard seconds.isFinite, CivilDate.instants.contains(seconds) else { return nil }
            let whole = Int(seconds.rounded(.down))
            day = Int((Double(whole) / 86_400).rounded(.down))
            minute = (whole - day * 86_400) / 60
        }

        /// Its day as `YYYY-MM-DD` (what `today()` gives, and what a date's bound counted from
        /// today counts from).
        public var dayText: String { CivilDate.text(days: day) }

        /// Its time as `HH:MM` (what `time()` gives).
        public var timeText: String { CivilDate.clock(minutes: minute) }
    }

    enum Op: Hashable, Sendable {
        case constant(RocketValue)
        case name(String)
        case not, negate
        case and, or
        case eq, ne, lt, le, gt, ge, isIn, notIn
        case add, sub, mul, div, mod
        /// A function and how many values the call gives it.
        case call(Function, Int)

        var spelling: String {
            switch self {
            case .constant, .name, .call: return ""
            case .not: return "not"
            case .negate: return "-"
            case .and: return "and"
            case .or: return "or"
            case .eq: return "=="
            case .ne: return "!="
            case .lt: return "<"
            case .le: return "<="
            case .gt: return ">"
            case .ge: return ">="
            case .isIn: return "in"
            case .notIn: return "not in"
            case .add: return "+"
            case .sub: return "-"
            case .mul: return "*"
            case .div: return "/"
            case .mod: return "%"
            }
        }

        var precedence: Int {
            switch self {
            case .or: return 1
            case .and: return 2
            case .not: return 3
            case .eq, .ne, .lt, .le, .gt, .ge, .isIn, .notIn: return 4
            case .add, .sub: return 5
            case .mul, .div, .mod: return 6
            case .negate: return 7
            default: return 0
            }
        }

        var isComparison: Bool { precedence == 4 }
    }

    struct Step: Hashable, Sendable {
        let op: Op
        /// Where it was written (byte offset).
        let offset: Int
    }
}

// MARK: Compiling

extension RocketExpression {
    /// Tokens and the shunting-yard: infix text → postfix steps, with positions, no recursion.
    enum Compiler {
        enum Token: Equatable {
            case value(RocketValue)
            case name(String)
            case op(String)  // == != < <= > >= + - * / % and or not in
            case open, close, comma
            case end
        }

        struct Lexer {
            let b: [UInt8]
            var at = 0

            static func isNameStart(_ c: UInt8) -> Bool {
                (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || c == 0x5F || c >= 0x80
            }
            static func isName(_ c: UInt8) -> Bool { isNameStart(c) || (c >= 0x30 && c <= 0x39) || c == 0x2E }

            func text(_ r: Range<Int>) -> String { String(decoding: b[r], as: UTF8.self) }

            /// The next token and where it starts.
            mutating func next() -> Result<(Token, Int), RocketExpressionError> {
                while at < b.count, b[at] == 0x20 || b[at] == 0x09 || b[at] == 0x0A || b[at] == 0x0D { at += 1 }
                let start = at
                guard at < b.count else { return .success((.end, start)) }
                let c = b[at]
                func fail(_ m: String) -> Result<(Token, Int), RocketExpressionError> {
                    .failure(RocketExpressionError(code: "syntax", message: m, offset: start))
                }
                switch c {
                case 0x28:
                    at += 1
                    return .success((.open, start))
                case 0x29:
                    at += 1
                    return .success((.close, start))
                case 0x2C:
                    at += 1
                    return .success((.comma, start))
                case 0x2B, 0x2D, 0x2A, 0x2F, 0x25:
                    at += 1
                    return .success((.op(String(UnicodeScalar(c))), start))
                case 0x3D, 0x21, 0x3C, 0x3E:  // = ! < >
                    let two = at + 1 < b.count && b[at + 1] == 0x3D
                    if c == 0x3D && !two { return fail("\"=\" alone is not an operator: compare with \"==\"") }
                    if c == 0x21 && !two { return fail("\"!\" is not an operator: write \"not\"") }
                    at += two ? 2 : 1
                    return .success((.op(text(start..<at)), start))
                case 0x26, 0x7C:  // & |
                    return fail("\"\(UnicodeScalar(c))\" is not an operator: write \"\(c == 0x26 ? "and" : "or")\"")
                case 0x27, 0x22:  // ' "
                    var out: [UInt8] = []
                    at += 1
                    while at < b.count, b[at] != c {
                        if b[at] == 0x5C, at + 1 < b.count, b[at + 1] == c || b[at + 1] == 0x5C {
                            at += 1
                        }
                        out.append(b[at])
                        at += 1
                    }
                    guard at < b.count else { return fail("this text is not closed: end it with \(UnicodeScalar(c))") }
                    at += 1
                    return .success((.value(.text(String(decoding: out, as: UTF8.self))), start))
                case 0x60:  // `name`
                    at += 1
                    let from = at
                    while at < b.count, b[at] != 0x60 { at += 1 }
                    guard at < b.count else { return fail("this name is not closed: end it with `") }
                    guard at > from else { return fail("`` names nothing") }
                    at += 1
                    return .success((.name(text(from..<(at - 1))), start))
                case 0x30...0x39, 0x2E:
                    while at < b.count, (b[at] >= 0x30 && b[at] <= 0x39) || b[at] == 0x2E { at += 1 }
                    if at < b.count, b[at] == 0x65 || b[at] == 0x45 {
                        var k = at + 1
                        if k < b.count, b[k] == 0x2B || b[k] == 0x2D { k += 1 }
                        if k < b.count, b[k] >= 0x30 && b[k] <= 0x39 {
                            at = k
                            while at < b.count, b[at] >= 0x30 && b[at] <= 0x39 { at += 1 }
                        }
                    }
                    if at < b.count, Lexer.isNameStart(b[at]) { return fail("\"\(text(start..<min(b.count, at + 1)))\" is not a number") }
                    guard let n = RocketValue.parseNumber(text(start..<at)) else { return fail("\"\(text(start..<at))\" is not a number") }
                    return .success((.value(.number(n)), start))
                default:
                    guard Lexer.isNameStart(c) else { return fail("\"\(text(start..<start + 1))\" is not allowed here") }
                    while at < b.count, Lexer.isName(b[at]) { at += 1 }
                    let word = text(start..<at)
                    switch word {
                    case "and", "or", "not", "in": return .success((.op(word), start))
                    case "true": return .success((.value(.bool(true)), start))
                    case "false": return .success((.value(.bool(false)), start))
                    case "null": return .success((.value(.null), start))
                    default: return .success((.name(word), start))
                    }
                }
            }
        }

        enum Pending {
            case op(Op, Int)
            case paren(Int)
            case call(Function, Int, args: Int)
        }

        static let binary: [String: Op] = [
            "==": .eq, "!=": .ne, "<": .lt, "<=": .le, ">": .gt, ">=": .ge, "in": .isIn,
            "+": .add, "-": .sub, "*": .mul, "/": .div, "%": .mod, "and": .and, "or": .or,
        ]

        static func compile(_ source: String) -> Result<[Step], RocketExpressionError> {
            let bytes = Array(source.utf8)
            func fail(_ code: String, _ m: String, _ at: Int) -> Result<[Step], RocketExpressionError> {
                .failure(RocketExpressionError(code: code, message: m, offset: at))
            }
            guard bytes.count <= RocketLimits.expressionBytes else {
                return fail("too-long", "an expression has at most \(RocketLimits.expressionBytes) bytes, not \(bytes.count)", 0)
            }
            var lexer = Lexer(b: bytes)
            var out: [Step] = []
            var depths: [Int] = []  // the nesting of each value on the output, to bound it
            var stack: [Pending] = []
            var expectValue = true
            var lookahead: (Token, Int)?
            func emit(_ op: Op, _ at: Int, operands: Int) -> RocketExpressionError? {
                var d = 0
                for _ in 0..<operands { d = max(d, depths.popLast() ?? 0) }
                depths.append(d + 1)
                out.append(Step(op: op, offset: at))
                if d + 1 > RocketLimits.expressionDepth {
                    return RocketExpressionError(
                        code: "too-deep", message: "the expression nests deeper than \(RocketLimits.expressionDepth) levels", offset: at)
                }
                return nil
            }
            func operands(_ op: Op) -> Int {
                switch op {
                case .not, .negate: return 1
                case .call(_, let n): return n
                default: return 2
                }
            }
            func describe(_ t: Token) -> String {
                switch t {
                case .value(.text(let s)): return "the text '\(s)'"
                case .value(let v): return "\"\(v.displayText.isEmpty ? "null" : v.displayText)\""
                case .name(let n): return "\"\(n)\""
                case .op(let o): return "\"\(o)\""
                case .open: return "\"(\""
                case .close: return "\")\""
                case .comma: return "\",\""
                case .end: return "the end"
                }
            }
            while true {
                let token: Token, at: Int
                if let l = lookahead {
                    (token, at) = l
                    lookahead = nil
                } else {
                    switch lexer.next() {
                    case .success(let t): (token, at) = t
                    case .failure(let e): return .failure(e)
                    }
                }
                switch token {
                case .value(let v):
                    guard expectValue else { return fail("syntax", "an operator is missing before \(describe(token))", at) }
                    if let e = emit(.constant(v), at, operands: 0) { return .failure(e) }
                    expectValue = false
                case .name(let n):
                    guard expectValue else { return fail("syntax", "an operator is missing before \(describe(token))", at) }
                    // A name followed by "(" calls a function.
                    let saved = lexer
                    if case .success((.open, _)) = lexer.next() {
                        guard let f = Function(rawValue: n) else {
                            let known = Function.allCases.map(\.rawValue).joined(separator: ", ")
                            let hint = Suggestions.closest(to: n, in: Function.allCases.map(\.rawValue)).map { " (did you mean \($0)?)" } ?? ""
                            return fail("syntax", "there is no function \"\(n)\"\(hint); the functions are \(known)", at)
                        }
                        stack.append(.call(f, at, args: 0))
                        expectValue = true
                        continue
                    }
                    lexer = saved
                    if let e = emit(.name(n), at, operands: 0) { return .failure(e) }
                    expectValue = false
                case .open:
                    guard expectValue else { return fail("syntax", "an operator is missing before \"(\"", at) }
                    stack.append(.paren(at))
                case .close, .comma:
                    if expectValue {
                        // "f()" names no argument: a call of a function that takes none, or
                        // allowed only to say what f takes.
                        if token == .close, case .call(let f, let fat, 0)? = stack.last {
                            guard f.arity.contains(0) else { return fail("syntax", "\(f.rawValue) \(f.takes): \(f.signature)", fat) }
                            stack.removeLast()
                            if let e = emit(.call(f, 0), fat, operands: 0) { return .failure(e) }
                            expectValue = false
                            continue
                        }
                        return fail("syntax", "a value is missing before \(describe(token))", at)
                    }
                    var closed = false
                    while let top = stack.last {
                        if case .op(let op, let oat) = top {
                            stack.removeLast()
                            if let e = emit(op, oat, operands: operands(op)) { return .failure(e) }
                            continue
                        }
                        closed = true
                        break
                    }
                    guard closed, let top = stack.popLast() else {
                        return fail("syntax", token == .comma ? "\",\" separates the values of a function call only" : "\")\" closes nothing", at)
                    }
                    switch top {
                    case .paren(let pat):
                        if token == .comma { return fail("syntax", "\",\" separates the values of a function call only", at) }
                        _ = pat
                        expectValue = false
                    case .call(let f, let fat, let args):
                        if token == .comma {
                            // More values than it takes: said at the comma, before the rest is read.
                            guard args + 1 < f.arity.upperBound else {
                                return fail("syntax", "\(f.rawValue) \(f.takes), not more: \(f.signature)", at)
                            }
                            stack.append(.call(f, fat, args: args + 1))
                            expectValue = true
                        } else {
                            guard f.arity.contains(args + 1) else {
                                if f.arity == 0...0 { return fail("syntax", "\(f.rawValue) takes no value: \(f.signature)", fat) }
                                return fail("syntax", "\(f.rawValue) \(f.takes), not \(args + 1): \(f.signature)", fat)
                            }
                            if let e = emit(.call(f, args + 1), fat, operands: args + 1) { return .failure(e) }
                            expectValue = false
                        }
                    case .op: break
                    }
                case .op(let word):
                    var op: Op
                    if expectValue {
                        switch word {
                        case "-": op = .negate
                        case "not": op = .not
                        case "+": return fail("syntax", "\"+\" needs a value on its left", at)
                        default: return fail("syntax", "a value is missing before \(describe(token))", at)
                        }
                        stack.append(.op(op, at))
                        continue
                    }
                    if word == "not" {
                        switch lexer.next() {
                        case .success((.op("in"), _)): op = .notIn
                        case .success: return fail("syntax", "\"not\" after a value must be \"not in\"", at)
                        case .failure(let e): return .failure(e)
                        }
                    } else {
                        guard let o = binary[word] else { return fail("syntax", "\(describe(token)) is not allowed here", at) }
                        op = o
                    }
                    while case .op(let top, let tat)? = stack.last, top.precedence >= op.precedence {
                        if top.isComparison && op.isComparison {
                            return fail(
                                "syntax", "comparisons do not chain: write \"a \(top.spelling) b and b \(op.spelling) c\"", at)
                        }
                        stack.removeLast()
                        if let e = emit(top, tat, operands: operands(top)) { return .failure(e) }
                    }
                    stack.append(.op(op, at))
                    expectValue = true
                case .end:
                    if expectValue {
                        return fail("syntax", out.isEmpty && stack.isEmpty ? "the expression is empty" : "the expression ends where a value is missing", at)
                    }
                    while let top = stack.popLast() {
                        switch top {
                        case .op(let op, let oat): if let e = emit(op, oat, operands: operands(op)) { return .failure(e) }
                        case .paren(let pat): return fail("syntax", "this \"(\" is never closed", pat)
                        case .call(let f, let fat, _): return fail("syntax", "the call of \(f.rawValue) is never closed", fat)
                        }
                    }
                    return .success(out)
                }
            }
        }
    }
}

// MARK: Evaluating

extension RocketExpression {
    /// A value or the error that stands for one.
    enum Cell {
        case value(RocketValue)
        case error(RocketExpressionError)
    }

    /// Evaluates with `lookup` giving each name's value (nil, or `.null`: no value), and `local`
    /// the person's date and time for `today()`, `time()` and `weekday()` (nil: they are an
    /// error, `no-clock`).
    public func evaluate(_ lookup: (String) -> RocketValue?, local: LocalTime? = nil) -> Result<RocketValue, RocketExpressionError> {
        var unbounded = Int.max
        return evaluate(lookup, local: local, patternSteps: &unbounded)
    }

    /// ``evaluate(_:local:)`` with `patternSteps` the backtracking steps its `matches(…)` may
    /// still take: each match takes what it is charged
    /// (`RocketLimits.expressionPatternProbeSteps`, or those and
    /// `RocketLimits.expressionPatternSteps` when it needs more), and one that finds too few is an
    /// error, `pattern-budget`. A conversation passes what is left of its
    /// `RocketLimits.conversationPatternSteps`.
    public func evaluate(
        _ lookup: (String) -> RocketValue?, local: LocalTime? = nil, patternSteps: inout Int
    ) -> Result<RocketValue, RocketExpressionError> {
        if let syntaxError { return .failure(syntaxError) }
        // The values live in a buffer on the stack, as large as the compiler found it must be.
        return withUnsafeTemporaryAllocation(of: Cell.self, capacity: stackSize) { buffer in
            let base = buffer.baseAddress!
            var top = 0
            func push(_ c: Cell) {
                (base + top).initialize(to: c)
                top += 1
            }
            func pop() -> Cell {
                top -= 1
                return (base + top).move()
            }
            for step in program {
                let at = step.offset
                switch step.op {
                case .constant(let v): push(.value(v))
                case .name(let n): push(.value(lookup(n) ?? .null))
                case .not, .negate:
                    let a = pop()
                    guard case .value(let v) = a else {
                        push(a)
                        continue
                    }
                    switch (step.op, v) {
                    case (.not, .bool(let b)): push(.value(.bool(!b)))
                    case (.negate, .number(let n)): push(.value(.number(-n)))
                    default:
                        let m = "\"\(step.op.spelling)\" needs \(step.op == .not ? "true or false" : "a number"), not \(Self.what(v))"
                        push(.error(RocketExpressionError(code: "type", message: m, offset: at)))
                    }
                case .call(let f, let n):
                    if f.readsClock {
                        push(Self.clock(f, local, at))
                    } else if f == .matches {
                        let b = pop(), a = pop()
                        push(match(a, b, at, &patternSteps))
                    } else {
                        // Its values in the order written (at most three).
                        let c = n > 2 ? pop() : nil, b = n > 1 ? pop() : nil, a = pop()
                        push(Self.call(f, a, b, c, at))
                    }
                default:
                    let b = pop(), a = pop()
                    push(Self.binary(step.op, a, b, at))
                }
            }
            let result: Result<RocketValue, RocketExpressionError>
            switch top > 0 ? pop() : .value(.null) {
            case .value(let v): result = .success(v)
            case .error(let e): result = .failure(e)
            }
            base.deinitialize(count: top)
            return result
        }
    }

    /// `matches(a, b)`: `b` is the text of a pattern compiled with the expression. It is tried
    /// within the probe's steps first, then within the limit, each charged to `left`.
    func match(_ a: Cell, _ b: Cell, _ at: Int, _ left: inout Int) -> Cell {
        guard case .value(let x) = a else { return a }
        guard case .value(.text(let source)) = b, let pattern = patterns[source] else { return b }
        guard case .text(let text) = x else {
            return .error(RocketExpressionError(code: "type", message: "\(Function.matches.signature) was given \(Self.what(x))", offset: at))
        }
        let spent = RocketExpressionError(
            code: "pattern-budget",
            message: "matches(…) has used the \(RocketLimits.conversationPatternSteps) steps one conversation may take", offset: at)
        let probe = min(RocketLimits.expressionPatternProbeSteps, left)
        guard probe > 0 else { return .error(spent) }
        left -= probe
        var outcome = pattern.match(text, steps: UInt32(probe))
        if outcome == .limitExceeded {
            guard probe == RocketLimits.expressionPatternProbeSteps, left > 0 else { return .error(spent) }
            let steps = min(RocketLimits.expressionPatternSteps, left)
            left -= steps
            outcome = pattern.match(text, steps: UInt32(steps))
            if outcome == .limitExceeded, steps < RocketLimits.expressionPatternSteps { return .error(spent) }
        }
        switch outcome {
        case .matched: return .value(.bool(true))
        case .noMatch: return .value(.bool(false))
        case .limitExceeded:
            return .error(
                RocketExpressionError(
                    code: "pattern-limit",
                    message: "matches(…) needed more than \(RocketLimits.expressionPatternSteps) steps on this text", offset: at))
        }
    }

    /// Evaluates a condition: true only for `true`; anything else is false, with the error when
    /// it was one (or when the value is not true or false).
    public func test(_ lookup: (String) -> RocketValue?, local: LocalTime? = nil) -> (Bool, RocketExpressionError?) {
        Self.test(evaluate(lookup, local: local))
    }

    /// A condition's outcome from its evaluation (``test(_:)``).
    static func test(_ result: Result<RocketValue, RocketExpressionError>) -> (Bool, RocketExpressionError?) {
        switch result {
        case .success(.bool(let b)): return (b, nil)
        case .success(let v):
            return (false, RocketExpressionError(code: "type", message: "a condition must be true or false, not \(Self.what(v))", offset: 0))
        case .failure(let e): return (false, e)
        }
    }

    /// A value's kind in a message: never the value itself, as a value may be an answer and
    /// messages reach event records.
    static func what(_ v: RocketValue) -> String {
        v == .null ? "null (no value yet)" : v.type.phrase
    }

    static func binary(_ op: Op, _ a: Cell, _ b: Cell, _ at: Int) -> Cell {
        func error(_ code: String, _ m: String) -> Cell { .error(RocketExpressionError(code: code, message: m, offset: at)) }
        // and/or pass over an error on the side they do not need, as a short circuit would.
        if op == .and || op == .or {
            guard case .value(let l) = a else { return a }
            guard case .bool(let lb) = l else { return error("type", "\"\(op.spelling)\" needs true or false, not \(what(l))") }
            if op == .and && !lb { return .value(.bool(false)) }
            if op == .or && lb { return .value(.bool(true)) }
            guard case .value(let r) = b else { return b }
            guard case .bool(let rb) = r else { return error("type", "\"\(op.spelling)\" needs true or false, not \(what(r))") }
            return .value(.bool(rb))
        }
        guard case .value(let l) = a else { return a }
        guard case .value(let r) = b else { return b }
        func number(_ n: Double) -> Cell {
            n.isFinite ? .value(.number(n)) : error("out-of-range", "the result of \"\(op.spelling)\" is too large for a number")
        }
        switch op {
        case .eq: return .value(.bool(l == r))
        case .ne: return .value(.bool(l != r))
        case .lt, .le, .gt, .ge:
            let order: Int
            switch (l, r) {
            case (.number(let x), .number(let y)): order = x < y ? -1 : x > y ? 1 : 0
            case (.text(let x), .text(let y)): order = x < y ? -1 : x == y ? 0 : 1
            default:
                return error("type", "\"\(op.spelling)\" compares two numbers or two texts, not \(what(l)) and \(what(r))")
            }
            switch op {
            case .lt: return .value(.bool(order < 0))
            case .le: return .value(.bool(order <= 0))
            case .gt: return .value(.bool(order > 0))
            default: return .value(.bool(order >= 0))
            }
        case .isIn, .notIn:
            let found: Bool
            switch (l, r) {
            case (.text(let x), .list(let items)): found = items.contains(x)
            case (.text(let x), .text(let y)): found = Self.find(x, in: y)
            case (_, .null): found = false
            default: return error("type", "\"\(op.spelling)\" looks for a text in a list or a text, not \(what(l)) in \(what(r))")
            }
            return .value(.bool(op == .isIn ? found : !found))
        case .add:
            switch (l, r) {
            case (.number(let x), .number(let y)): return number(x + y)
            case (.text(let x), .text(let y)):
                guard x.utf8.count + y.utf8.count <= RocketLimits.renderedTextBytes else {
                    return error("out-of-range", "the text would be longer than \(RocketLimits.renderedTextBytes) bytes")
                }
                return .value(.text(x + y))
            default:
                return error("type", "\"+\" adds two numbers or joins two texts, not \(what(l)) and \(what(r)) (text(…) makes a text)")
            }
        case .sub, .mul, .div, .mod:
            guard case .number(let x) = l, case .number(let y) = r else {
                return error("type", "\"\(op.spelling)\" needs two numbers, not \(what(l)) and \(what(r))")
            }
            switch op {
            case .sub: return number(x - y)
            case .mul: return number(x * y)
            case .div: return y == 0 ? error("division-by-zero", "division by zero") : number(x / y)
            default: return y == 0 ? error("division-by-zero", "\"%\" by zero") : number(x.truncatingRemainder(dividingBy: y))
            }
        default: return error("syntax", "not an operator")
        }
    }

    static func call(_ f: Function, _ a: Cell, _ b: Cell?, _ c: Cell?, _ at: Int) -> Cell {
        func error(_ code: String, _ m: String) -> Cell { .error(RocketExpressionError(code: code, message: m, offset: at)) }
        guard case .value(let x) = a else { return a }
        // if(…) takes its second or third value whatever the other holds, an error too: the
        // side not taken is passed over, as "and" and "or" pass over theirs.
        if f == .if, let b, let c {
            guard case .bool(let yes) = x else { return error("type", "if(…) needs true or false first, not \(what(x))") }
            return yes ? b : c
        }
        var y: RocketValue = .null, z: RocketValue = .null
        if let b {
            guard case .value(let v) = b else { return b }
            y = v
        }
        if let c {
            guard case .value(let v) = c else { return c }
            z = v
        }
        func wrong() -> Cell {
            let given = [what(x)] + (b == nil ? [] : [what(y)]) + (c == nil ? [] : [what(z)])
            return error("type", "\(f.signature) was given " + given.listedForMessage())
        }
        func number(_ n: Double) -> Cell {
            n.isFinite ? .value(.number(n)) : error("out-of-range", "the result of \(f.rawValue)(…) is too large for a number")
        }
        switch f {
        case .lower, .upper, .trim:
            guard case .text(let s) = x else { return wrong() }
            return .value(.text(f == .lower ? s.lowercased() : f == .upper ? s.uppercased() : s.trimmingSpaces()))
        case .length:
            switch x {
            case .text(let s): return .value(.number(Double(s.count)))
            case .list(let items): return .value(.number(Double(items.count)))
            default: return wrong()
            }
        case .contains:
            switch (x, y) {
            case (.text(let s), .text(let part)): return .value(.bool(find(part, in: s)))
            case (.list(let items), .text(let item)): return .value(.bool(items.contains(item)))
            default: return wrong()
            }
        case .startsWith, .endsWith:
            guard case .text(let s) = x, case .text(let part) = y else { return wrong() }
            let (whole, end) = (Array(s.utf8), Array(part.utf8))
            return .value(.bool(f == .startsWith ? whole.starts(with: end) : whole.reversed().starts(with: end.reversed())))
        case .replace:
            guard case .text(let s) = x, case .text(let part) = y, case .text(let with) = z else { return wrong() }
            let (text, old, new) = (Array(s.utf8), Array(part.utf8), Array(with.utf8))
            let found = text.offsets(of: old)
            // The size is known before anything is made: a text of 64 KiB with a part of one byte
            // and a long replacement would otherwise be gigabytes.
            guard text.count + found.count * (new.count - old.count) <= RocketLimits.renderedTextBytes else {
                return error("out-of-range", "replace(…) would make a text longer than \(RocketLimits.renderedTextBytes) bytes")
            }
            guard !found.isEmpty else { return .value(x) }
            var out: [UInt8] = []
            out.reserveCapacity(text.count + found.count * (new.count - old.count))
            var from = 0
            for at in found {
                out += text[from..<at]
                out += new
                from = at + old.count
            }
            out += text[from...]
            return .value(.text(String(decoding: out, as: UTF8.self)))
        case .round:
            guard case .number(let n) = x else { return wrong() }
            guard b != nil else { return number(n.rounded(.toNearestOrAwayFromZero)) }
            guard case .number(let digits) = y else { return wrong() }
            guard digits == digits.rounded(), (-Self.roundDigits...Self.roundDigits).contains(digits) else {
                return error("out-of-range", "round(…) keeps a whole number of digits from -\(Self.roundDigits) to \(Self.roundDigits)")
            }
            return number(Self.round(n, digits: Int(digits)))
        case .floor, .ceil, .abs:
            guard case .number(let n) = x else { return wrong() }
            return .value(.number(f == .floor ? n.rounded(.down) : f == .ceil ? n.rounded(.up) : Swift.abs(n)))
        case .min, .max:
            let first: Bool
            switch (x, y) {
            case (.number(let p), .number(let q)): first = f == .min ? p <= q : p >= q
            case (.text(let p), .text(let q)): first = f == .min ? p <= q : p >= q
            default: return wrong()
            }
            return .value(first ? x : y)
        case .if: return wrong()  // three values: taken above
        case .matches: return wrong()  // its pattern is the expression's: see match(_:_:_:)
        case .number:
            switch x {
            case .number: return .value(x)
            case .text(let s):
                guard let n = RocketValue.parseNumber(s) else { return error("not-a-number", "number(…) was given \(what(x)), which is not a number") }
                return .value(.number(n))
            default: return wrong()
            }
        case .text: return .value(.text(x.displayText))
        case .days:
            guard case .text(let from) = x, case .text(let to) = y else { return wrong() }
            guard let a = RocketInputType.dayNumber(from), let b = RocketInputType.dayNumber(to) else {
                return error("not-a-date", "days(…) was given a text that is no date YYYY-MM-DD")
            }
            return .value(.number(Double(b - a)))
        case .weekdayOf:
            guard case .text(let s) = x else { return wrong() }
            guard let day = RocketInputType.dayNumber(s) else { return error("not-a-date", "weekdayOf(…) was given a text that is no date YYYY-MM-DD") }
            return .value(.number(Double(CivilDate.weekday(days: day))))
        case .addDays:
            guard case .text(let s) = x, case .number(let n) = y else { return wrong() }
            guard RocketInputType.isDate(s) else { return error("not-a-date", "addDays(…) was given a text that is no date YYYY-MM-DD") }
            guard n == n.rounded(), abs(n) <= 3_700_000, let day = RocketInputType.day(s, days: Int(n), months: 0) else {
                return error("out-of-range", "addDays(…) was given a number of days that is not whole, or that leaves the years 1 to 9999")
            }
            return .value(.text(day))
        case .today, .time, .weekday: return wrong()  // no arguments: see clock(_:_:_:)
        }
    }

    /// The reference table of the functions, in Markdown (docs/FLOW_FORMAT.md holds it; a
    /// test compares the two).
    package static var functionsMarkdown: String {
        "| Function | Gives |\n|---|---|\n"
            + Function.allCases.map { f in "| " + f.usages.map { "`\($0)`" }.joined(separator: ", ") + " | \(f.gives) |\n" }.joined()
    }

    /// The most digits `round(x, digits)` keeps, either side of the point.
    static let roundDigits: Double = 15

    /// `n` rounded to `digits` after the point (before it, when negative), halves away from
    /// zero, on the decimal digits `n` is written with: 1.005 kept to 2 is 1.01, as a
    /// spreadsheet gives, though its double lies just under 1.005.
    static func round(_ n: Double, digits: Int) -> Double {
        let scale = (0..<Swift.abs(digits)).reduce(1.0) { r, _ in r * 10 }
        let scaled = digits >= 0 ? n * scale : n / scale
        let nearest = scaled.rounded(.toNearestOrAwayFromZero)
        var r = nearest
        // The product can land a hair under a half written in the source (1.005 × 100 =
        // 100.49999…): within 4 units of its last place it counts as the half. Only where
        // those units are small beside a half (under 2^40); a whole number is kept.
        if Swift.abs(scaled) < 0x1p40, scaled != nearest {
            let half = scaled.rounded(.towardZero) + (scaled < 0 ? -0.5 : 0.5)
            if Swift.abs(scaled - half) <= 4 * scaled.ulp { r = half + (scaled < 0 ? -0.5 : 0.5) }
        }
        return digits >= 0 ? r / scale : r * scale
    }

    /// A function of the person's date and time, or `no-clock` when the host gave none.
    static func clock(_ f: Function, _ local: LocalTime?, _ at: Int) -> Cell {
        guard let local else {
            return .error(
                RocketExpressionError(code: "no-clock", message: "\(f.signature) needs the local time, which this host does not give", offset: at))
        }
        switch f {
        case .today: return .value(.text(local.dayText))
        case .time: return .value(.text(local.timeText))
        default: return .value(.number(Double(CivilDate.weekday(days: local.day))))
        }
    }

    /// True when `part` occurs in `text`, compared byte for byte in UTF-8 (as written: no case
    /// folding), in time linear in the two lengths whatever they hold (`Array.firstOffset`).
    static func find(_ part: String, in text: String) -> Bool {
        Array(text.utf8).firstOffset(of: Array(part.utf8)) != nil
    }
}

// MARK: Checking

extension RocketExpression {
    /// What a name is, for ``check(_:)``: its type when known (nil: any).
    public enum NameKind: Hashable, Sendable {
        /// A name with a value of this type, or of any type (nil).
        case known(RocketValueType?)
        /// A name nothing declares or answers.
        case unknown(suggestion: String?)
    }

    /// The problems visible without running it: a syntax error, unknown names, and operands of
    /// the wrong type where the types are known. Returns them and the type of the result (nil:
    /// not known).
    public func check(_ kind: (String) -> NameKind) -> (problems: [RocketExpressionError], type: RocketValueType?) {
        if let syntaxError { return ([syntaxError], nil) }
        var problems: [RocketExpressionError] = []
        var types: [RocketValueType?] = []
        for step in program {
            let at = step.offset
            func problem(_ m: String) { problems.append(RocketExpressionError(code: "type", message: m, offset: at)) }
            func phrase(_ t: RocketValueType?) -> String { t?.phrase ?? "any value" }
            switch step.op {
            case .constant(let v): types.append(v.type)
            case .name(let n):
                switch kind(n) {
                case .known(let t): types.append(t)
                case .unknown(let suggestion):
                    problems.append(
                        RocketExpressionError(
                            code: "unknown-name",
                            message: "\"\(n)\" is no variable or answer of this flow" + (suggestion.map { " (did you mean \"\($0)\"?)" } ?? ""),
                            offset: at))
                    types.append(nil)
                }
            case .not:
                let t = types.removeLast()
                if let t, t != .bool { problem("\"not\" needs true or false, not \(phrase(t))") }
                types.append(.bool)
            case .negate:
                let t = types.removeLast()
                if let t, t != .number { problem("\"-\" needs a number, not \(phrase(t))") }
                types.append(.number)
            case .call(let f, _) where f.readsClock:
                types.append(f == .weekday ? .number : .text)
            case .call(let f, let n):
                let c: RocketValueType?? = n > 2 ? .some(types.removeLast()) : .none
                let b: RocketValueType?? = n > 1 ? .some(types.removeLast()) : .none
                let a = types.removeLast()
                var ok = true
                var result: RocketValueType? = nil
                switch f {
                case .lower, .upper, .trim:
                    ok = a == nil || a == .text
                    result = .text
                case .length:
                    ok = a == nil || a == .text || a == .list
                    result = .number
                case .contains:
                    let second = b ?? nil
                    ok = (a == nil || a == .text || a == .list) && (second == nil || second == .text)
                    result = .bool
                case .startsWith, .endsWith:
                    ok = (a == nil || a == .text) && ((b ?? nil) == nil || (b ?? nil) == .text)
                    result = .bool
                case .replace:
                    ok = [a, b ?? nil, c ?? nil].allSatisfy { $0 == nil || $0 == .text }
                    result = .text
                case .matches:
                    ok = a == nil || a == .text
                    result = .bool
                case .round, .floor, .ceil, .abs:
                    ok = (a == nil || a == .number) && ((b ?? nil) == nil || (b ?? nil) == .number)
                    result = .number
                case .min, .max:
                    let second = b ?? nil
                    ok = (a == nil || a == .number || a == .text) && (second == nil || second == .number || second == .text)
                    if let a, let second, a != second { ok = false }
                    result = a ?? second
                case .if:
                    let (yes, no) = (b ?? nil, c ?? nil)
                    if let a, a != .bool { problem("if(…) needs true or false first, not \(phrase(a))") }
                    // One type whichever side is taken (null stands for none on either side).
                    let sides = [yes, no].compactMap { $0 }.filter { $0 != .null }
                    if sides.count == 2, sides[0] != sides[1] {
                        problem("if(…) gives \(sides[0].phrase) on one side and \(sides[1].phrase) on the other: give both one type")
                    }
                    result = sides.first ?? (yes == .null && no == .null ? .null : nil)
                case .number:
                    ok = a == nil || a == .text || a == .number
                    result = .number
                case .text: result = .text
                case .days:
                    ok = (a == nil || a == .text) && ((b ?? nil) == nil || (b ?? nil) == .text)
                    result = .number
                case .weekdayOf:
                    ok = a == nil || a == .text
                    result = .number
                case .addDays:
                    ok = (a == nil || a == .text) && ((b ?? nil) == nil || (b ?? nil) == .number)
                    result = .text
                case .today, .time, .weekday: break
                }
                if !ok {
                    let given = ([a] + [b, c].compactMap { $0 }).map(phrase)
                    problem("\(f.signature) is given \(given.dropLast().joined(separator: ", "))\(given.count > 1 ? " and " : "")\(given[given.count - 1])")
                }
                types.append(result)
            default:
                let r = types.removeLast(), l = types.removeLast()
                let op = step.op
                switch op {
                case .and, .or:
                    for t in [l, r] where t != nil && t != .bool { problem("\"\(op.spelling)\" needs true or false, not \(phrase(t))") }
                    types.append(.bool)
                case .eq, .ne:
                    if let l, let r, l != r, l != .null, r != .null {
                        problem("\"\(op.spelling)\" compares \(l.phrase) with \(r.phrase), which are never equal")
                    }
                    types.append(.bool)
                case .lt, .le, .gt, .ge:
                    let fits = (l == nil || l == .number || l == .text) && (r == nil || r == .number || r == .text) && (l == nil || r == nil || l == r)
                    if !fits { problem("\"\(op.spelling)\" compares two numbers or two texts, not \(phrase(l)) and \(phrase(r))") }
                    types.append(.bool)
                case .isIn, .notIn:
                    if (l != nil && l != .text) || (r != nil && r != .list && r != .text) {
                        problem("\"\(op.spelling)\" looks for a text in a list or a text, not \(phrase(l)) in \(phrase(r))")
                    }
                    types.append(.bool)
                case .add:
                    if let l, let r, !(l == r && (l == .number || l == .text)) {
                        problem("\"+\" adds two numbers or joins two texts, not \(l.phrase) and \(r.phrase) (text(…) makes a text)")
                    } else if let t = l ?? r, t != .number && t != .text {
                        problem("\"+\" adds two numbers or joins two texts, not \(t.phrase)")
                    }
                    types.append(l ?? r)
                default:
                    for t in [l, r] where t != nil && t != .number { problem("\"\(op.spelling)\" needs two numbers, not \(phrase(t))") }
                    types.append(.number)
                }
            }
        }
        return (problems, types.last ?? nil)
    }
}
