import RocketCore
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Who a request comes from, as far as the server can prove it.
package enum Caller: Equatable, Sendable {
    /// A site's back end holding one of the server's keys: it may act for any visitor.
    case site
    /// A visitor, proved by a token the server signed, by the site's identity hash, or (only
    /// with `--insecure-dev`) claimed.
    case visitor(String)
    /// No credentials at all.
    case nobody
}

/// Who may call what: the server's keys, the secret its visitor tokens are signed with, and the
/// site's identity secret. Stateless: a token carries its visitor id and a signature, so issuing
/// one stores nothing and checking one reads nothing.
///
/// - A **visitor token** is `anon.` + 32 hex digits (the visitor id) + `.` + the hex HMAC-SHA256
///   of `"rocket visitor " + id` under the server secret. It travels in `Rocket-Visitor`.
/// - An **identified visitor** (a site that knows its users) sends its id in `Rocket-Visitor`
///   and hex HMAC-SHA256(identity secret, id) in `Rocket-Visitor-Hash`.
/// - A **site key** travels as `Authorization: Bearer KEY`; keys are kept as SHA-256 digests,
///   compared without an early exit, and never logged.
package final class AccessControl: Sendable {
    /// The prefix of the ids the server gives anonymous visitors (refused as an identified id,
    /// so the two never meet).
    package static let anonymousPrefix = "anon."

    private let secret: [UInt8]
    private let identitySecret: [UInt8]?
    private let keys: Mutex<[[UInt8]]>
    /// Tokens already checked, with their visitor (the signature is checked once per token).
    private let verified = Mutex<[String: String]>([:])
    /// The most tokens remembered as checked.
    package static let verifiedTokens = 50_000
    /// Tokens remembered as checked now.
    package var rememberedTokens: Int { verified.withLock { $0.count } }
    /// True with `--insecure-dev`: visitor ids are taken as claimed and routes that need a key
    /// take calls without one (today's behaviour of a server on a developer's machine).
    package let insecureDev: Bool

    /// Access with tokens signed by `secret` (at least 32 bytes), identified visitors vouched
    /// for by `identitySecret` (nil: no identified visitors), and site `keys`.
    package init(secret: [UInt8], identitySecret: [UInt8]? = nil, keys: [String] = [], insecureDev: Bool = false) {
        self.secret = secret
        self.identitySecret = identitySecret
        self.keys = Mutex(keys.map { SHA256.digest(Array($0.utf8)) })
        self.insecureDev = insecureDev
    }

    /// Access for tests and embedded use: a fresh random secret, no keys.
    package static func random(insecureDev: Bool = false) -> AccessControl {
        AccessControl(secret: randomBytes(32), insecureDev: insecureDev)
    }

    /// `count` bytes from the system's random source.
    package static func randomBytes(_ count: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: max(0, count))
        bytes.withUnsafeMutableBytes { fillRandom($0) }
        return bytes
    }

    /// Fills `buffer` from the C library's generator (the kernel's, one `getrandom` call a time):
    /// the one random source of the server's secrets, tokens and ids. Small requests are served
    /// from ``pool``, so an id costs a copy instead of a system call; larger ones go straight to
    /// the generator.
    static func fillRandom(_ buffer: UnsafeMutableRawBufferPointer) {
        guard let out = buffer.baseAddress, buffer.count > 0 else { return }
        guard buffer.count <= RandomPool.size / 16 else { return arc4random_buf(out, buffer.count) }
        // The caller's memory, written only by this call while it runs.
        nonisolated(unsafe) let target = buffer
        while !pool.withLock({ $0.take(into: target) }) {
            // Refilled outside the lock; a thread that refilled meanwhile keeps its bytes.
            let fresh = RandomPool()
            pool.withLock { if $0.left < target.count { $0.replace(with: fresh) } }
        }
    }

    /// Bytes from the generator, drawn 4 KiB at a time and handed out in order: each byte once
    /// (wiped as it is handed out), never to two callers.
    struct RandomPool: Sendable {
        static let size = 4096
        private var bytes = [UInt8](repeating: 0, count: size)
        private var next = 0
        /// Bytes not yet handed out.
        var left: Int { bytes.count - next }

        init() {
            bytes.withUnsafeMutableBytes { if let p = $0.baseAddress { arc4random_buf(p, $0.count) } }
        }

        /// Copies the next `buffer.count` bytes into `buffer`; false when fewer are left.
        mutating func take(into buffer: UnsafeMutableRawBufferPointer) -> Bool {
            guard buffer.count <= left else { return false }
            let from = next
            bytes.withUnsafeMutableBytes { all in
                let part = UnsafeMutableRawBufferPointer(rebasing: all[from..<from + buffer.count])
                buffer.copyMemory(from: UnsafeRawBufferPointer(part))
                part.initializeMemory(as: UInt8.self, repeating: 0)
            }
            next += buffer.count
            return true
        }

        /// Replaces these bytes with `fresh`'s, wiping what was not handed out.
        mutating func replace(with fresh: RandomPool) {
            for k in next..<bytes.count { bytes[k] = 0 }
            self = fresh
        }
    }
    private static let pool = Mutex(RandomPool())

    /// Replaces the site keys (a key file re-read on SIGHUP).
    package func setKeys(_ new: [String]) {
        let digests = new.map { SHA256.digest(Array($0.utf8)) }
        keys.withLock { $0 = digests }
    }

    /// True when at least one site key is set.
    package var hasKeys: Bool { keys.withLock { !$0.isEmpty } }

    /// The keys of a key file's text: one per line; blank lines and lines starting with `#` are
    /// skipped, spaces around a key dropped. A key is 16–256 printable ASCII characters without
    /// spaces; the first line that is not one is named in the failure.
    package static func keys(fromText text: String) -> Result<[String], KeyFileError> {
        var out: [String] = []
        // Split on the byte: "\r\n" is one Character, which a split on "\n" would not cut.
        for (n, raw) in text.utf8.split(separator: 0x0A, omittingEmptySubsequences: false).enumerated() {
            let line = String(decoding: raw, as: UTF8.self).trimmingSpaces()
            if line.isEmpty || line.hasPrefix("#") { continue }
            guard (16...256).contains(line.utf8.count), line.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
                return .failure(KeyFileError(line: n + 1))
            }
            out.append(line)
        }
        return .success(out)
    }

    /// A line of a key file that holds no key.
    package struct KeyFileError: Error, Equatable, Sendable {
        /// The line, from 1.
        package var line: Int
    }

    /// A new anonymous visitor and its token.
    package func issueVisitor() -> (visitor: String, token: String) {
        let id = Self.anonymousPrefix + ConversationService.newID()
        return (id, token(for: id))
    }

    /// The token of anonymous visitor `id`.
    package func token(for id: String) -> String {
        id + "." + HMAC.hex(key: secret, message: Array(("rocket visitor " + id).utf8))
    }

    /// The anonymous visitor a token names, or nil when it is not one this server signed.
    func visitor(ofToken token: String) -> String? {
        // A token verified before (only tokens this server signed are remembered, by all of them).
        if let id = verified.withLock({ $0[token] }) { return id }
        let bytes = Array(token.utf8)
        // anon. + 32 hex + . + 64 hex
        let idLength = Self.anonymousPrefix.utf8.count + 32
        guard bytes.count == idLength + 1 + 64, bytes[idLength] == 0x2E, token.hasPrefix(Self.anonymousPrefix) else { return nil }
        let id = String(decoding: bytes[..<idLength], as: UTF8.self)
        guard ConversationService.isConversationID(String(id.dropFirst(Self.anonymousPrefix.count))) else { return nil }
        let expected = Array(self.token(for: id).utf8.suffix(64))
        guard HMAC.equal(expected, Array(bytes[(idLength + 1)...])) else { return nil }
        // Remembered, so the next request of this visitor costs a lookup, not an HMAC (bounded:
        // emptied when full; only tokens this server signed get in).
        verified.withLock { cache in
            if cache.count >= Self.verifiedTokens { cache.removeAll(keepingCapacity: true) }
            cache[token] = id
        }
        return id
    }

    /// Who sent `request`, or the 401 that says why its credentials fail. Credentials that are
    /// present but wrong are refused, never ignored.
    func caller(of request: HTTPRequest) -> Result<Caller, ResponseError> {
        if let authorization = request.header(HTTPRequest.Name.authorization) {
            guard authorization.hasPrefix("Bearer "), isKey(String(authorization.dropFirst(7))) else {
                var r = HTTPResponse.error(401, "bad-key", "the Authorization header holds no key of this server")
                r.headers.append(("WWW-Authenticate", "Bearer"))
                return .failure(ResponseError(r))
            }
            return .success(.site)
        }
        let claimed = request.header(HTTPRequest.Name.visitor)
        if let hash = request.header(HTTPRequest.Name.visitorHash) {
            guard let identitySecret else {
                return .failure(
                    ResponseError(.error(401, "identity-not-configured", "this server takes no identified visitors (see --identity-secret-file)")))
            }
            guard let claimed, ConversationService.isVisitor(claimed), !claimed.hasPrefix(Self.anonymousPrefix) else {
                return .failure(
                    ResponseError(.error(401, "bad-identity", "an identified visitor is 1–128 letters, digits, '-', '_', '.' or ':', not starting with anon.")))
            }
            let expected = HMAC.hex(key: identitySecret, message: Array(claimed.utf8))
            guard HMAC.equal(Array(expected.utf8), Array(hash.lowercased().utf8)) else {
                return .failure(ResponseError(.error(401, "bad-identity", "Rocket-Visitor-Hash is not the site's signature of this visitor")))
            }
            return .success(.visitor(claimed))
        }
        if let claimed {
            if let id = visitor(ofToken: claimed) { return .success(.visitor(id)) }
            if insecureDev, ConversationService.isVisitor(claimed) { return .success(.visitor(claimed)) }
            return .failure(ResponseError(.error(401, "bad-token", "Rocket-Visitor holds no visitor token of this server; ask POST /v1/visitors for one")))
        }
        return .success(insecureDev ? .site : .nobody)
    }

    /// True when `key` is one of the site keys (every key is compared, whatever matches).
    private func isKey(_ key: String) -> Bool {
        let digest = SHA256.digest(Array(key.utf8))
        return keys.withLock { all in
            var found = false
            for k in all where HMAC.equal(k, digest) { found = true }
            return found
        }
    }
}
