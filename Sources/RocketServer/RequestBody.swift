import RocketConversation
import RocketCore
import RocketJSON

/// A request's JSON body, read once from the bytes into a tape and taken field by field from it:
/// no tree, no dictionary. Unknown and repeated fields are refused when it is made; each value
/// is checked for its type and bounds as it is taken, and every refusal names the field.
struct RequestBody {
    let fields: JSONFields

    /// The body of `request`: JSON (`Content-Type: application/json`), at most `maxBytes`, an
    /// object whose fields are among `allowed`, each once.
    static func read(_ request: HTTPRequest, allowed: [String], maxBytes: Int) -> Result<RequestBody, ResponseError> {
        if request.bodyTooLarge {
            return .failure(ResponseError(HTTPResponse.bodyTooLarge(maxBytes)))
        }
        let header = request.header(HTTPRequest.Name.contentType)
        let type = header == "application/json" ? header : header?.split(separator: ";").first.map { $0.trimmingSpaces().lowercased() }
        guard type == "application/json" else {
            return .failure(ResponseError(.error(415, "json-only", "send the body as application/json")))
        }
        var limits = JSONReaderLimits()
        limits.maxBytes = maxBytes
        limits.maxDepth = 8
        let tape: JSONTape
        do {
            tape = try JSONTape.parse(request.body, limits: limits)
        } catch {
            return .failure(ResponseError(.error(400, "bad-json", "the body is not JSON: \(error.message) (byte \(error.offset))")))
        }
        guard tape.kind(0) == .object else { return .failure(ResponseError(.error(400, "bad-body", "the body must be a JSON object"))) }
        do {
            return .success(RequestBody(fields: try JSONFields(tape, 0, path: "", allowed: allowed)))
        } catch {
            let key = error.key ?? ""
            switch error.kind {
            case .unknownField:
                let expected = allowed.sorted().joined(separator: ", ")
                return .failure(ResponseError(.error(400, "unknown-field", "unknown field \"\(Sanitizer.excerpt(key))\"; expected \(expected)")))
            case .repeatedField: return .failure(ResponseError(.error(400, "bad-body", "the field \"\(key)\" is given twice")))
            case .other: return .failure(ResponseError(.error(400, "bad-body", error.message)))
            }
        }
    }

    /// The body's keys, in order (null values included).
    var keys: [String] {
        let tape = fields.tape
        var out: [String] = []
        var j = 1
        for _ in 0..<tape.count(0) {
            out.append(tape.string(j) ?? "")
            j = tape.next(after: j + 1)
        }
        return out
    }

    /// True when the field is there (and not null).
    func has(_ key: String) -> Bool { fields.member(key) != nil }

    /// A string field of at most `maxBytes` (nil when absent or null, unless `required`).
    func string(_ key: String, required: Bool = false, maxBytes: Int) -> Result<String?, ResponseError> {
        guard let v = fields.member(key) else {
            return required ? .failure(ResponseError(.error(400, "missing-field", "\"\(key)\" is required"))) : .success(nil)
        }
        guard let s = fields.tape.string(v) else { return .failure(Self.bad("\"\(key)\" must be a string")) }
        guard s.utf8.count <= maxBytes else { return .failure(Self.bad("\"\(key)\" is longer than \(maxBytes) bytes")) }
        return .success(s)
    }

    /// A string field that must be there.
    func required(_ key: String, maxBytes: Int) -> Result<String, ResponseError> {
        string(key, required: true, maxBytes: maxBytes).map { $0 ?? "" }
    }

    /// A whole number in `range` (nil when absent).
    func integer(_ key: String, range: ClosedRange<Int>) -> Result<Int?, ResponseError> {
        guard let v = fields.member(key) else { return .success(nil) }
        guard let d = fields.tape.number(v), d.rounded() == d, d >= Double(range.lowerBound), d <= Double(range.upperBound) else {
            return .failure(Self.bad("\"\(key)\" must be a whole number from \(range.lowerBound) to \(range.upperBound)"))
        }
        return .success(Int(d))
    }

    /// An array of at most `maxCount` whole numbers in `range` (nil when absent).
    func integers(_ key: String, maxCount: Int, range: ClosedRange<Int>) -> Result<[Int]?, ResponseError> {
        guard let v = fields.member(key) else { return .success(nil) }
        let rule = "\"\(key)\" must be an array of at most \(maxCount) whole numbers from \(range.lowerBound) to \(range.upperBound)"
        guard fields.tape.kind(v) == .array, fields.tape.count(v) <= maxCount else { return .failure(Self.bad(rule)) }
        var out: [Int] = []
        var j = v + 1
        for _ in 0..<fields.tape.count(v) {
            guard let d = fields.tape.number(j), d.rounded() == d, d >= Double(range.lowerBound), d <= Double(range.upperBound) else {
                return .failure(Self.bad(rule))
            }
            out.append(Int(d))
            j = fields.tape.next(after: j)
        }
        return .success(out)
    }

    /// `true` or `false` (nil when absent).
    func bool(_ key: String) -> Result<Bool?, ResponseError> {
        guard let v = fields.member(key) else { return .success(nil) }
        guard let b = fields.tape.bool(v) else { return .failure(Self.bad("\"\(key)\" must be true or false")) }
        return .success(b)
    }

    /// An object field of names with a string, finite number or boolean each (absent: empty),
    /// at most `maxCount` names of 1–`maxName` bytes, strings of at most `maxValue` bytes.
    func valueMap(_ key: String, maxCount: Int, maxName: Int, maxValue: Int) -> Result<[String: RocketValue], ResponseError> {
        // The refusal's text, made only for a refusal (every start reads this field).
        var rule: String {
            "\"\(key)\" must be an object of at most \(maxCount) names of 1–\(maxName) bytes, each with a string of at most \(maxValue) bytes, a number or true or false"
        }
        guard let v = fields.member(key) else { return .success([String: RocketValue]()) }
        guard fields.tape.kind(v) == .object, fields.tape.count(v) <= maxCount else { return .failure(Self.bad(rule)) }
        var out = [String: RocketValue]()
        var j = v + 1
        for _ in 0..<fields.tape.count(v) {
            guard let name = fields.tape.string(j), (1...maxName).contains(name.utf8.count) else { return .failure(Self.bad(rule)) }
            let value: RocketValue
            switch fields.tape.kind(j + 1) {
            case .string:
                let s = fields.tape.string(j + 1)!
                guard s.utf8.count <= maxValue else { return .failure(Self.bad(rule)) }
                value = .text(s)
            case .number:
                guard let n = fields.tape.number(j + 1), n.isFinite else { return .failure(Self.bad(rule)) }
                value = .number(n)
            case .bool: value = .bool(fields.tape.bool(j + 1)!)
            default: return .failure(Self.bad(rule))
            }
            guard out.updateValue(value, forKey: name) == nil else { return .failure(Self.bad("\"\(key)\" names \"\(name)\" twice")) }
            j = fields.tape.next(after: j + 1)
        }
        return .success(out)
    }

    /// The objects of an array field (absent: none), at most `maxCount`, each read with `allowed`
    /// fields.
    func objects(_ key: String, maxCount: Int, allowed: [String]) -> Result<[JSONFields], ResponseError> {
        guard let v = fields.member(key) else { return .success([]) }
        guard fields.tape.kind(v) == .array, fields.tape.count(v) <= maxCount else {
            return .failure(Self.bad("\"\(key)\" must be an array of at most \(maxCount) objects"))
        }
        var out: [JSONFields] = []
        var j = v + 1
        for i in 0..<fields.tape.count(v) {
            do {
                out.append(try JSONFields(fields.tape, j, path: "\(key)[\(i)]", allowed: allowed))
            } catch {
                return .failure(Self.bad(error.message))
            }
            j = fields.tape.next(after: j)
        }
        return .success(out)
    }

    /// The 400 for a field that is there but wrong.
    static func bad(_ message: String) -> ResponseError { ResponseError(.error(400, "bad-field", message)) }
}

/// A request refused: the answer to send instead.
struct ResponseError: Error {
    var response: HTTPResponse
    init(_ r: HTTPResponse) { response = r }
}
