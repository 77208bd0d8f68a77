public import RocketJSON
import RocketCore
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// An HTTP request as the server's logic sees it: decoded by the HTTP layer, so the logic runs
/// (and is tested) without sockets.
public struct HTTPRequest: Sendable {
    /// `GET`, `POST`, `OPTIONS`, …
    public var method: String
    /// The path without the query string, as sent (`/v1/conversations`).
    public var path: String
    /// Query arguments (the last value of a repeated name wins; routes that read the query
    /// refuse a request that repeats one).
    public var query: [String: String]
    /// A query parameter the request gives more than once (the first such), if any.
    package var repeatedParameter: String?
    /// Header values by lower-case name.
    public var headers: [String: String]
    /// The body (empty when none); never longer than the server's body limit.
    public var body: [UInt8]
    /// True when the client sent more than the body limit (the body is then empty).
    public var bodyTooLarge: Bool
    /// The address of the connection's peer (empty when not known): the client, or the proxy in
    /// front of it.
    public var peer: String = ""

    /// Creates a request.
    public init(
        method: String, path: String, query: [String: String] = [:], headers: [String: String] = [:], body: [UInt8] = [],
        bodyTooLarge: Bool = false
    ) {
        self.method = method
        self.path = path
        self.query = query
        var lower: [String: String] = [:]
        lower.reserveCapacity(headers.count)
        for (k, v) in headers { lower[Self.lowercased(k)] = v }
        self.headers = lower
        self.body = body
        self.bodyTooLarge = bodyTooLarge
    }

    /// A request whose header names are lower case already (the HTTP layer's).
    init(method: String, path: String, query: [String: String], lowercasedHeaders: [String: String], body: [UInt8], bodyTooLarge: Bool) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = lowercasedHeaders
        self.body = body
        self.bodyTooLarge = bodyTooLarge
    }

    /// A header's value (`name` in any case).
    public func header(_ name: String) -> String? { headers[Self.lowercased(name)] }

    /// The names of the headers the server reads (lower case, as ``headers`` holds them).
    package enum Name {
        /// A site's key (`Bearer KEY`).
        package static let authorization = "authorization"
        /// A visitor's token, or an identified visitor's id.
        package static let visitor = "rocket-visitor"
        /// An identified visitor's hash.
        package static let visitorHash = "rocket-visitor-hash"
        /// The page that made the request.
        package static let origin = "origin"
        /// What the body is.
        package static let contentType = "content-type"
        /// The encodings the client takes.
        package static let acceptEncoding = "accept-encoding"
        /// The versions the client holds (entity tags).
        package static let ifNoneMatch = "if-none-match"
        /// The addresses a request came through (read from trusted proxies only).
        package static let forwardedFor = "x-forwarded-for"
        /// The view of a conversation the client holds (``ConversationView/Held``).
        package static let settled = "rocket-settled"

        /// The headers a request may give at most once: who calls, from which page, and what its
        /// body is. Given twice, which one counts would be a guess (and a proxy in front may guess
        /// the other way), so the HTTP layer refuses the request (400 `bad-header`).
        package static let singleValued: Set<String> = [authorization, visitor, visitorHash, origin, contentType, settled]
    }

    /// True when the request's `If-None-Match` names `tag` (an entity tag, quotes included):
    /// `*`, or a list holding it, weak (`W/`) or not, since the header asks for the weak
    /// comparison. The client then holds that version already.
    func holds(_ tag: String) -> Bool {
        guard let value = header(Name.ifNoneMatch)?.trimmingSpaces() else { return false }
        if value == "*" { return true }
        return value.split(separator: ",").contains { item in
            let t = item.trimmingSpaces()
            return (t.hasPrefix("W/") ? t.dropFirst(2) : t[...]) == tag
        }
    }

    /// The path a request target names: the target itself in origin form (`/v1/flows`), the
    /// path of one in absolute form (`http://chat.example/v1/flows`, which RFC 9112 has a server
    /// take as well; the name in it decides nothing, as `Host` does not), `/` when it has none.
    /// Anything else is returned as it is, and matches no route.
    static func path(ofTarget target: String) -> String {
        var target = target
        return target.withUTF8 { b -> String? in
            guard b.first != 0x2F else { return nil }
            func scheme(_ s: StaticString) -> Bool {
                let n = s.utf8CodeUnitCount
                return b.count >= n && (0..<n).allSatisfy { b[$0] | (b[$0] >= 0x41 && b[$0] <= 0x5A ? 0x20 : 0) == s.utf8Start[$0] }
            }
            let start = scheme("http://") ? 7 : scheme("https://") ? 8 : nil
            guard let start else { return nil }
            guard let slash = b[start...].firstIndex(of: 0x2F) else { return "/" }
            return String(decoding: UnsafeBufferPointer(rebasing: b[slash...]), as: UTF8.self)
        } ?? target
    }

    /// `name` with ASCII letters in lower case (header names are ASCII; anything else is kept as
    /// it is). Returns `name` itself when it has no upper-case letter, which is the common case.
    static func lowercased(_ name: String) -> String {
        var text = name
        let lowered: String? = text.withUTF8 { bytes in
            guard bytes.contains(where: { $0 >= 0x41 && $0 <= 0x5A }) else { return nil }
            return lowercased(bytes)
        }
        return lowered ?? name
    }

    /// `bytes` (a header name as it came) with ASCII letters in lower case, as a string, made in
    /// one pass (the HTTP layer calls it for every header of every request).
    static func lowercased(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        String(unsafeUninitializedCapacity: bytes.count) { out in
            for i in 0..<bytes.count {
                let b = bytes[i]
                out[i] = b >= 0x41 && b <= 0x5A ? b | 0x20 : b
            }
            return bytes.count
        }
    }
}

/// An HTTP response: a status, headers and a body, or an event stream the HTTP layer keeps open.
public struct HTTPResponse: Sendable {
    /// The status code.
    public var status: Int
    /// Headers in order (`Content-Type` among them).
    public var headers: [(String, String)]
    /// The body.
    public var body: [UInt8]
    /// A body sent from an open file (a flow's picture), ``body`` then empty: the HTTP layer gives
    /// the library a descriptor of its own, so the bytes go from the page cache to the socket and
    /// no copy of them is held for each connection that reads slowly.
    package var file: FileBody?
    /// A body many answers send as it is (the widget, a play page), ``body`` then empty: held
    /// once and handed to the library without a copy for each answer, so slow readers of it
    /// cost no memory each.
    package var shared: SharedBytes?
    /// The body's bytes wherever they are held (``body``, ``shared`` or ``file``): for tests and
    /// for consumers other than the HTTP layer.
    package var payload: [UInt8] { shared?.bytes ?? file?.bytes() ?? body }
    /// For `text/event-stream` responses: the conversation whose changes the stream carries
    /// (``body`` then holds the first events).
    public var stream: String?
    /// For an event stream: the version its first frame shows (nil: not known). Once the stream
    /// is registered, the HTTP layer sends the frames again only when the conversation has moved
    /// on since.
    package var streamVersion: Int?
    /// The number of the change this answer reports: the HTTP layer sends it only once the
    /// store holds that change (nil: nothing to wait for).
    package var durableAfter: UInt64?
    /// Work that waits for a database (the scenario store, a conversation loaded from the
    /// archive): the HTTP layer runs it on its database thread, the connection parked meanwhile,
    /// and answers with what it returns. No thread that answers requests waits for SQLite.
    package var deferred: (@Sendable () -> HTTPResponse)?
    /// True when the deferred work is long (a report): it runs on a thread of its own, so the
    /// database thread's short work never waits behind it.
    package var slow = false

    /// Creates a response.
    public init(status: Int, headers: [(String, String)] = [], body: [UInt8] = [], stream: String? = nil) {
        self.status = status
        self.headers = headers
        self.body = body
        self.stream = stream
    }

    /// An answer that `work` makes on the database thread (`slow`: on the thread for long work).
    package static func deferred(slow: Bool = false, _ work: @escaping @Sendable () -> HTTPResponse) -> HTTPResponse {
        var r = HTTPResponse(status: 202)
        r.deferred = work
        r.slow = slow
        return r
    }

    /// The answer with `extra` headers added (to what deferred work returns, too).
    package func adding(headers extra: [(String, String)]) -> HTTPResponse {
        var r = self
        if let work = deferred {
            r.deferred = { work().adding(headers: extra) }
        } else {
            r.headers += extra
        }
        return r
    }

    /// The final answer: deferred work done here, on the caller's thread (tests, embedding).
    package func resolved() -> HTTPResponse {
        var r = self
        while let work = r.deferred { r = work() }
        return r
    }

    /// A JSON response.
    public static func json(_ status: Int, _ value: JSONValue) -> HTTPResponse {
        HTTPResponse(status: status, headers: jsonHeaders, body: value.serializedBytes() + [0x0A])
    }

    /// The headers of every JSON answer.
    package static let jsonHeaders = [("Content-Type", "application/json; charset=utf-8"), ("Cache-Control", "no-store")]

    /// A 200 answer of bytes held once and shared by every answer that sends them.
    package static func sharing(_ headers: [(String, String)], _ bytes: SharedBytes) -> HTTPResponse {
        var r = HTTPResponse(status: 200, headers: headers)
        r.shared = bytes
        return r
    }

    /// 304 Not Modified in place of this answer, for a client that holds its version: the
    /// headers a cache updates from (`ETag`, `Cache-Control`, `Vary`), no body.
    func notModified() -> HTTPResponse {
        HTTPResponse(status: 304, headers: headers.filter { ["ETag", "Cache-Control", "Vary"].contains($0.0) })
    }

    /// A JSON answer `{HEAD…, "KEY": VALUE}` whose value is already serialized (a view).
    public static func wrapping(_ status: Int, _ head: [(String, JSONValue)], _ key: String, _ value: [UInt8]) -> HTTPResponse {
        // Room for the head's members too (a visitor token is over 100 bytes): the body is not
        // copied into a larger buffer halfway.
        var w = JSONBytes(capacity: value.count + 192 * (head.count + 1))
        w.open()
        for (k, (name, member)) in head.enumerated() {
            w.key(escaping: name, first: k == 0)
            w.value(member)
        }
        w.key(escaping: key, first: head.isEmpty)
        w.raw(value)
        w.close()
        w.out.append(0x0A)
        let body = w.out
        return HTTPResponse(status: status, headers: jsonHeaders, body: body)
    }

    /// A JSON error carrying an already serialized value under `key` in its `error` object.
    public static func errorWrapping(_ status: Int, _ code: String, _ message: String, _ key: String, _ value: [UInt8]) -> HTTPResponse {
        var r = error(status, code, message, [(key, .null)])
        r.body.removeLast(7)  // `null}}` and the line end
        r.body += value + [0x7D, 0x7D, 0x0A]
        return r
    }

    /// An event stream following `id` (`text/event-stream`), opening with `first`.
    public static func eventStream(_ id: String, first: [UInt8]) -> HTTPResponse {
        HTTPResponse(
            status: 200,
            headers: [("Content-Type", "text/event-stream; charset=utf-8"), ("Cache-Control", "no-store"), ("X-Accel-Buffering", "no")],
            body: Array("retry: 2000\n\n".utf8) + first, stream: id)
    }

    /// ``eventStream(_:first:)`` whose first frame shows `version` (``streamVersion``).
    package static func eventStream(_ id: String, first: [UInt8], version: Int) -> HTTPResponse {
        var r = eventStream(id, first: first)
        r.streamVersion = version
        return r
    }

    /// The answer to a body larger than `limit` bytes (413 `body-too-large`), declared or sent.
    package static func bodyTooLarge(_ limit: Int) -> HTTPResponse {
        .error(413, "body-too-large", "the body is larger than \(limit) bytes")
    }

    /// A JSON error: `{"error": {"code": …, "message": …}}`, plus any `extra` members.
    public static func error(_ status: Int, _ code: String, _ message: String, _ extra: [(String, JSONValue)] = []) -> HTTPResponse {
        json(status, .object([("error", .object([("code", .string(code)), ("message", .string(message))] + extra))]))
    }

    /// A header's value (`name` in any case).
    public func header(_ name: String) -> String? {
        let lower = name.lowercased()
        return headers.first { $0.0.lowercased() == lower }?.1
    }
}

/// An open file whose bytes are a response's body; closed when the last response holding it goes.
package final class FileBody: Sendable {
    /// The descriptor, open for reading.
    package let descriptor: Int32
    /// The size to send, in bytes.
    package let size: Int

    /// Takes ownership of `descriptor`: it is closed with this body.
    package init(descriptor: Int32, size: Int) {
        self.descriptor = descriptor
        self.size = size
    }

    /// Up to `count` bytes from the start of the file (to tell its type by).
    package func prefix(_ count: Int) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: count)
        let n = out.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, count, 0) }
        return Array(out.prefix(max(0, n)))
    }

    /// The whole file (for tests, which read a response in-process).
    package func bytes() -> [UInt8] { prefix(size) }

    deinit { close(descriptor) }
}

/// Bytes that many answers send unchanged, held once. The library is handed their address with
/// a retain that its free callback gives back, so no answer copies them. Immutable once made.
package final class SharedBytes: @unchecked Sendable {
    private let storage: UnsafeMutableRawBufferPointer

    /// A copy of `bytes`, made once.
    package init(_ bytes: [UInt8]) {
        let made = UnsafeMutableRawBufferPointer.allocate(byteCount: max(1, bytes.count), alignment: 16)
        bytes.withUnsafeBytes { raw in
            if let base = raw.baseAddress { made.baseAddress?.copyMemory(from: base, byteCount: raw.count) }
        }
        storage = made
        count = bytes.count
    }

    /// The number of bytes.
    package let count: Int
    /// Where they are (valid while this object lives).
    package var baseAddress: UnsafeRawPointer { UnsafeRawPointer(storage.baseAddress!) }
    /// A copy of them as an array (for tests, which read answers in-process).
    package var bytes: [UInt8] { Array(UnsafeRawBufferPointer(start: baseAddress, count: count)) }

    deinit { storage.deallocate() }
}

/// The bytes last made of a key (a page of the flows on offer, say), made again only when the key
/// changes: the one answer every request for it shares.
package final class KeptBytes<Key: Equatable & Sendable>: Sendable {
    private let kept = Mutex<(key: Key, bytes: SharedBytes)?>(nil)

    /// An empty keeper.
    package init() {}

    /// The bytes of `key`: those kept when it is the key they were made of, else `make()`'s,
    /// made outside the lock and kept.
    package func bytes(for key: Key, make: () -> [UInt8]) -> SharedBytes {
        if let k = kept.withLock({ $0 }), k.key == key { return k.bytes }
        let made = SharedBytes(make())
        kept.withLock { $0 = (key, made) }
        return made
    }
}
