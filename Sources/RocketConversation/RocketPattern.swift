import CPCRE2
import RocketCore

/// A regular expression with a bounded cost: validation patterns and branch conditions of
/// flows, matched by PCRE2 with limits on backtracking steps, depth and heap.
///
/// Whatever the pattern and whatever the text (up to the 64 KiB string limit), a match finishes
/// within ``stepLimit`` steps; a match that would need more reports
/// ``Outcome/limitExceeded`` instead of running for minutes.
///
/// Syntax is Perl's (PCRE2) in UTF mode with Unicode properties: `(?i)`, classes, `\d`, `\w`,
/// anchors, groups, alternation, counted repetition, look-around. The text matches when the
/// pattern matches anywhere in it (anchor with `^…$` for the whole text).
///
/// ```swift
/// let p = try RocketPattern("^[^0-9]*$").get()
/// p.match("Ada")        // .matched
/// try RocketPattern("^(a+)+$").get().match(String(repeating: "a", count: 30) + "!")   // .limitExceeded
/// ```
public final class RocketPattern: @unchecked Sendable {
    // @unchecked: the compiled code is immutable after init, and PCRE2 documents compiled
    // patterns as safe to use from several threads at once (match data is per call).
    private let code: OpaquePointer

    /// The pattern's source text.
    public let source: String

    /// Backtracking steps allowed per match (PCRE2's match limit).
    public static let stepLimit = UInt32(RocketLimits.patternSteps)
    /// Nesting of backtracking allowed per match (PCRE2's depth limit).
    public static let depthLimit = UInt32(RocketLimits.patternDepth)
    /// Heap for backtracking, in KiB, per match.
    public static let heapLimitKiB: UInt32 = 8_192

    /// What a match found.
    public enum Outcome: Hashable, Sendable {
        /// The pattern matches somewhere in the text.
        case matched
        /// It does not.
        case noMatch
        /// Matching needed more than the step, depth or heap limit; treated as a failure.
        case limitExceeded
    }

    /// Why a pattern does not compile.
    public struct CompileError: Error, Hashable, Sendable, CustomStringConvertible {
        /// PCRE2's message.
        public var message: String
        /// The byte offset in the pattern where the problem was found.
        public var offset: Int
        /// "message at offset N".
        public var description: String { "\(message) at offset \(offset)" }
    }

    private init(code: OpaquePointer, source: String) {
        self.code = code
        self.source = source
    }

    deinit { pcre2_code_free_8(code) }

    /// Compiles `source`.
    public static func compile(_ source: String) -> Result<RocketPattern, CompileError> {
        guard source.utf8.count <= 65_536 else {
            return .failure(CompileError(message: "pattern longer than 65536 bytes", offset: 0))
        }
        var errorCode: Int32 = 0
        var errorOffset = 0
        let options = UInt32(PCRE2_UTF) | UInt32(PCRE2_UCP) | UInt32(PCRE2_NEVER_BACKSLASH_C)
        let compiled: OpaquePointer? = source.withCString { pointer in
            pointer.withMemoryRebound(to: UInt8.self, capacity: source.utf8.count + 1) { bytes in
                pcre2_compile_8(bytes, source.utf8.count, options, &errorCode, &errorOffset, nil)
            }
        }
        guard let compiled else {
            var buffer = [UInt8](repeating: 0, count: 256)
            let n = pcre2_get_error_message_8(errorCode, &buffer, buffer.count)
            let message = n > 0 ? String(decoding: buffer[0..<Int(n)], as: UTF8.self) : "invalid pattern"
            return .failure(CompileError(message: message, offset: errorOffset))
        }
        return .success(RocketPattern(code: compiled, source: source))
    }

    /// Matches the pattern anywhere in `text`, within the limits (`steps`: at most ``stepLimit``).
    public func match(_ text: String, steps: UInt32 = RocketPattern.stepLimit) -> Outcome {
        guard let context = pcre2_match_context_create_8(nil) else { return .limitExceeded }
        defer { pcre2_match_context_free_8(context) }
        pcre2_set_match_limit_8(context, min(steps, RocketPattern.stepLimit))
        pcre2_set_depth_limit_8(context, RocketPattern.depthLimit)
        pcre2_set_heap_limit_8(context, RocketPattern.heapLimitKiB)
        guard let data = pcre2_match_data_create_from_pattern_8(code, nil) else { return .limitExceeded }
        defer { pcre2_match_data_free_8(data) }
        var copy = text
        let rc = copy.withUTF8 { buffer in
            pcre2_match_8(code, buffer.baseAddress, buffer.count, 0, 0, data, context)
        }
        if rc >= 0 { return .matched }
        if rc == PCRE2_ERROR_NOMATCH { return .noMatch }
        return .limitExceeded
    }

    /// Repetition inside a repeated group (`(a+)+`, `(\w*)*`, `(?:x+y?){2,}`): the shape that makes
    /// backtracking matchers take exponential time. Lint warns about it; matching stays bounded.
    public static func hasNestedQuantifier(_ source: String) -> Bool {
        let b = Array(source.utf8)
        var stack: [Bool] = []  // per open group: it contains an unbounded repetition
        var i = 0
        func isUnboundedQuantifier(at k: Int) -> Bool {
            guard k < b.count else { return false }
            if b[k] == UInt8(ascii: "*") || b[k] == UInt8(ascii: "+") { return true }
            if b[k] == UInt8(ascii: "{") {
                var j = k + 1
                while j < b.count, b[j] != UInt8(ascii: "}") {
                    if b[j] == UInt8(ascii: ",") { return j + 1 < b.count && b[j + 1] == UInt8(ascii: "}") }
                    j += 1
                }
            }
            return false
        }
        while i < b.count {
            let c = b[i]
            switch c {
            case UInt8(ascii: "\\"):
                i += 2
                if isUnboundedQuantifier(at: i), !stack.isEmpty { stack[stack.count - 1] = true }
                continue
            case UInt8(ascii: "["):
                i += 1
                if i < b.count, b[i] == UInt8(ascii: "^") { i += 1 }
                if i < b.count, b[i] == UInt8(ascii: "]") { i += 1 }
                while i < b.count, b[i] != UInt8(ascii: "]") { i += b[i] == UInt8(ascii: "\\") ? 2 : 1 }
                i += 1
                if isUnboundedQuantifier(at: i), !stack.isEmpty { stack[stack.count - 1] = true }
                continue
            case UInt8(ascii: "("):
                stack.append(false)
            case UInt8(ascii: ")"):
                let inner = stack.popLast() ?? false
                let quantified = isUnboundedQuantifier(at: i + 1)
                if inner && quantified { return true }
                if inner || quantified, !stack.isEmpty { stack[stack.count - 1] = true }
            default:
                if isUnboundedQuantifier(at: i + 1), !stack.isEmpty, c != UInt8(ascii: "(") { stack[stack.count - 1] = true }
            }
            i += 1
        }
        return false
    }
}
