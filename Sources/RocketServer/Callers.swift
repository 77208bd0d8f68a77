import RocketConversation
import RocketCore
import RocketFlow
import RocketJSON
import RocketScenarioEngine
import RocketScenariosSQLite
import Synchronization
import RocketPlatform
import RocketText

// Who is calling and whether they may: origins, credentials, the visitor a call acts for, rates
// and quotas per visitor and per client address.
extension ConversationService {
    // MARK: Requests

    /// The JSON object of a request body with fields among `allowed`, or the error response.
    func body(_ request: HTTPRequest, allowed: [String]) -> Result<RequestBody, ResponseError> {
        RequestBody.read(request, allowed: allowed, maxBytes: configuration.maxBodyBytes)
    }

    /// True for visitor ids: 1–128 ASCII letters, digits and `-_.:`.
    package static func isVisitor(_ s: String) -> Bool {
        guard (1...128).contains(s.utf8.count) else { return false }
        return s.utf8.allSatisfy { b in
            (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || b == 0x2D || b == 0x5F || b == 0x2E || b == 0x3A
        }
    }

    /// The caller of a route that concerns one visitor's things: a site (any visitor's) or a
    /// visitor (its own); a call without credentials is 401.
    func visitorOrSite(_ request: HTTPRequest) -> Result<Caller, ResponseError> {
        switch access.caller(of: request) {
        case .failure(let e): return .failure(e)
        case .success(.nobody):
            return .failure(
                ResponseError(.error(401, "visitor-missing", "send a visitor token in Rocket-Visitor (POST /v1/visitors gives one) or a site key")))
        case .success(let c): return .success(c)
        }
    }

    /// The visitor a call that makes something acts for: a visitor for itself (a `visitor`
    /// field, when given, must name it), a site for the visitor the field names.
    func actingVisitor(_ caller: Caller, named field: Result<String?, ResponseError>) -> Result<String, ResponseError> {
        let named: String?
        switch field {
        case .failure(let e): return .failure(e)
        case .success(let n): named = n
        }
        if let named, !Self.isVisitor(named) {
            return .failure(ResponseError(.error(400, "bad-visitor", "a visitor id is 1–128 letters, digits, '-', '_', '.' or ':'")))
        }
        switch caller {
        case .visitor(let v):
            if let named, named != v { return .failure(ResponseError(.error(403, "not-this-visitor", "a visitor may act only as itself"))) }
            return .success(v)
        case .site, .nobody:
            guard let named else { return .failure(ResponseError(.error(400, "visitor-missing", "a site names the visitor in \"visitor\""))) }
            return .success(named)
        }
    }

    /// Nil when `request` comes from a site (or the server is in `--insecure-dev`); else the
    /// refusal: 401 without credentials, 403 for a visitor.
    func requireSite(_ request: HTTPRequest) -> ResponseError? {
        let caller: Caller
        switch access.caller(of: request) {
        case .failure(let e): return e
        case .success(let c): caller = c
        }
        if caller == .site || access.insecureDev { return nil }
        let message = "this route is for a site's back end: send Authorization: Bearer KEY (see --api-key-file)"
        guard caller == .nobody else { return ResponseError(.error(403, "key-required", message)) }
        var r = HTTPResponse.error(401, "key-required", message)
        r.headers.append(("WWW-Authenticate", "Bearer"))
        return ResponseError(r)
    }

    /// `POST /v1/visitors`: a new anonymous visitor and its token (nothing is stored).
    func newVisitor(_ request: HTTPRequest) -> HTTPResponse {
        if !request.body.isEmpty, case .failure(let e) = body(request, allowed: []) { return e.response }
        let (visitor, token) = access.issueVisitor()
        return .json(201, .object([("visitor", .string(visitor)), ("token", .string(token))]))
    }

    /// Takes a token from the visitor's bucket; false when it is empty.
    func admit(_ visitor: String, in s: inout State, at now: Double) -> Bool {
        Self.take(
            &s.visitorBuckets[visitor, default: Bucket(tokens: configuration.requestBurst, at: now)], at: now, rate: configuration.requestsPerSecond,
            burst: configuration.requestBurst)
    }

    /// Takes a token from client address `address`'s bucket.
    func admit(address: String, in s: inout State, at now: Double) -> Bool {
        let c = configuration
        return Self.take(
            &s.buckets[address, default: Bucket(tokens: c.addressRequestBurst, at: now)], at: now, rate: c.addressRequestsPerSecond,
            burst: c.addressRequestBurst)
    }

    /// Takes a token from bucket `b`, which refills at `rate` per second up to `burst` (changed
    /// in place: one look-up of its key).
    static func take(_ b: inout Bucket, at now: Double, rate: Double, burst: Double) -> Bool {
        let elapsed = max(0, now - b.at)
        b.tokens = min(burst, b.tokens + elapsed * rate)
        b.at = now
        guard b.tokens >= 1 else { return false }
        b.tokens -= 1
        return true
    }

    /// The 429 of an address that holds its share of something.
    func quotaFull(_ what: String) -> HTTPResponse {
        var r = HTTPResponse.error(429, "too-many-for-address", "this address holds its maximum of \(what); finish or wait for some to expire")
        r.headers.append(("Retry-After", "60"))
        return r
    }

    /// Takes one of the visitor's tokens; the 429 when none is left.
    func admit(_ visitor: String) -> HTTPResponse? {
        let now = clock.now
        return state.withLock { s in admit(visitor, in: &s, at: now) } ? nil : tooMany()
    }

    func tooMany() -> HTTPResponse {
        var r = HTTPResponse.error(429, "rate-limited", "too many requests from this visitor; slow down")
        r.headers.append(("Retry-After", "1"))
        return r
    }

    /// A new id: 32 lower-case hex digits, all random (128 bits).
    static func newID() -> String {
        let (a, b) = randomWords()
        return hex((a, 16), (b, 16))
    }

    /// A new id for a row of the store made at `time` (wall-clock seconds): 32 lower-case hex
    /// digits, the first 12 the time in milliseconds, the other 20 random (80 bits). Ids made
    /// later sort later, so the store's tables, keyed by them, grow at their end: a commit of
    /// many starts writes a few pages instead of one per start in random places.
    static func newID(at time: Double) -> String {
        let ms = UInt64(clamping: Int64(max(0, min(time, 1e13)) * 1000))
        let (a, b) = randomWords()
        return hex((ms, 12), (a, 16), (b, 4))
    }

    /// Two random words in one call (the standard generator asks the kernel once per word).
    static func randomWords() -> (UInt64, UInt64) {
        var words: (UInt64, UInt64) = (0, 0)
        withUnsafeMutableBytes(of: &words) { AccessControl.fillRandom($0) }
        return words
    }

    /// The low `digits` hex digits of each value in turn (32 in all).
    private static func hex(_ a: (UInt64, Int), _ b: (UInt64, Int), _ c: (UInt64, Int) = (0, 0)) -> String {
        String(unsafeUninitializedCapacity: 32) { out in
            let table: StaticString = "0123456789abcdef"
            var k = 0
            func put(_ part: (value: UInt64, digits: Int)) {
                for d in stride(from: part.digits - 1, through: 0, by: -1) where k < 32 {
                    out[k] = table.utf8Start[Int((part.value >> UInt64(4 * d)) & 15)]
                    k += 1
                }
            }
            put(a)
            put(b)
            put(c)
            return k
        }
    }
}
