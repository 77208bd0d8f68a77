import CHTTPClient
import RocketCore

/// An `http://` or `https://` URL rocket sends to: a webhook (`rocket serve --webhook`), a
/// server (`rocket results --server`).
public struct HTTPTarget: Sendable, Equatable {
    /// The URL as given.
    public let url: String
    /// True for `https://`.
    public let tls: Bool
    /// The host (a name, or an IP address without brackets).
    public let host: String
    /// The port (80 or 443 when the URL names none).
    public let port: Int
    /// The path and query (`/` when the URL has none).
    public let path: String

    /// Reads `text`; nil with why when it is not an http(s) URL with a host, a port of 1 to
    /// 65535 and no user name, fragment, space or control character.
    public static func parse(_ text: String) -> Result<HTTPTarget, HTTPClientError> {
        guard text.utf8.count <= 2048, text.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            return .failure(HTTPClientError(message: "at most 2,048 printable ASCII characters, without spaces"))
        }
        let tls: Bool
        let rest: Substring
        if text.hasPrefix("https://") {
            (tls, rest) = (true, text.dropFirst(8))
        } else if text.hasPrefix("http://") {
            (tls, rest) = (false, text.dropFirst(7))
        } else {
            return .failure(HTTPClientError(message: "an http:// or https:// URL"))
        }
        let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        var path = String(rest.dropFirst(authority.count))
        guard !path.utf8.contains(0x23) else { return .failure(HTTPClientError(message: "a URL without a fragment (#)")) }
        guard !authority.utf8.contains(0x40) else { return .failure(HTTPClientError(message: "a URL without a user name or password")) }
        if path.isEmpty || path.hasPrefix("?") { path = "/" + path }
        var host = Substring(authority), portText: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return .failure(HTTPClientError(message: "a closed [IPv6 address]")) }
            host = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { return .failure(HTTPClientError(message: "a port after the address")) }
                portText = after.dropFirst()
            }
        } else if let colon = authority.lastIndex(of: ":") {
            host = authority[..<colon]
            portText = authority[authority.index(after: colon)...]
        }
        guard !host.isEmpty else { return .failure(HTTPClientError(message: "a URL with a host")) }
        var port = tls ? 443 : 80
        if let portText {
            guard portText.utf8.count <= 5, let p = Int(portText), (1...65_535).contains(p) else {
                return .failure(HTTPClientError(message: "a port from 1 to 65535"))
            }
            port = p
        }
        return .success(HTTPTarget(url: text, tls: tls, host: String(host), port: port, path: path))
    }
}

/// Why a URL was refused (what it must be), or why a request got no answer.
public struct HTTPClientError: Error, Sendable, Equatable {
    /// A sentence saying so.
    public let message: String
}

extension HTTPTarget {
    /// The warning for a target whose deliveries would cross a network in clear text (`http://`
    /// to another machine), nil for one that is fine; `who` names the command.
    package func clearTextWarning(_ who: String) -> String? {
        guard !tls, !Addresses.isLoopback(host) else { return nil }
        return "\(who): --webhook \(Sanitizer.clean(url, keepNewlines: false)) is http://: visitors' answers cross the network unencrypted; use https://"
    }
}

/// The HTTP(S) requests rocket makes (`CHTTPClient`): a webhook's POSTs, which keep only the
/// answer's status, and `rocket results --server`'s GETs, which keep its body.
package enum HTTPClient {
    /// POSTs `body` with `headers` to `target`: the answer's status, or why there was none. With
    /// a `connection`, the request goes on the one kept open from the request before when it can
    /// (HTTP/1.1 keep-alive: over TLS, one round trip a delivery instead of three).
    package static func post(
        _ target: HTTPTarget, headers: [(String, String)], body: [UInt8], caFile: String?, timeout: Double,
        connection: HTTPConnection? = nil
    ) -> Result<Int, HTTPClientError> {
        let lines = headers.map { "\($0.0): \($0.1)\r\n" }.joined()
        var result = rocket_http_result()
        let rc = body.withUnsafeBufferPointer { b in
            rocket_http_post(
                connection?.session, target.host, Int32(target.port), target.tls ? 1 : 0, target.path, lines, b.baseAddress, b.count, caFile,
                Int32(max(1, min(timeout, 600)) * 1000), &result)
        }
        guard rc == 0 else { return .failure(failure(result)) }
        return .success(Int(result.status))
    }

    /// GETs `target`'s path with `headers`: the answer's status and body (at most `maxBody`
    /// bytes), or why there was none.
    package static func get(
        _ target: HTTPTarget, path: String, headers: [(String, String)], caFile: String?, timeout: Double, maxBody: Int,
        connection: HTTPConnection? = nil
    ) -> Result<(status: Int, body: [UInt8]), HTTPClientError> {
        let lines = headers.map { "\($0.0): \($0.1)\r\n" }.joined()
        var result = rocket_http_result()
        var body: UnsafeMutablePointer<UInt8>?
        var length = 0
        let rc = rocket_http_get(
            connection?.session, target.host, Int32(target.port), target.tls ? 1 : 0, path, lines, caFile, Int32(max(1, min(timeout, 600)) * 1000),
            max(0, maxBody), &result, &body, &length)
        defer { rocket_http_free(body) }
        guard rc == 0 else { return .failure(failure(result)) }
        let bytes = body.map { Array(UnsafeBufferPointer(start: $0, count: length)) } ?? []
        return .success((Int(result.status), bytes))
    }

    /// Reads one answer from `fd`, a plain connection already open, as ``get(_:path:headers:caFile:timeout:maxBody:connection:)``
    /// reads one when `maxBody` is given (the body kept, at most that many bytes) and as
    /// ``post(_:headers:body:caFile:timeout:connection:)`` does when it is nil (the body dropped):
    /// the status, the body, and whether another answer could follow on the connection.
    package static func read(
        from fd: Int32, maxBody: Int?, timeout: Double
    ) -> Result<(status: Int, body: [UInt8], reusable: Bool), HTTPClientError> {
        var result = rocket_http_result()
        var body: UnsafeMutablePointer<UInt8>?
        var length = 0
        var reusable: Int32 = 0
        let rc = rocket_http_read(
            fd, maxBody == nil ? 0 : 1, max(0, maxBody ?? 0), Int32(max(0.001, min(timeout, 600)) * 1000), &result, &body, &length, &reusable)
        defer { rocket_http_free(body) }
        guard rc == 0 else { return .failure(failure(result)) }
        let bytes = body.map { Array(UnsafeBufferPointer(start: $0, count: length)) } ?? []
        return .success((Int(result.status), bytes, reusable != 0))
    }

    /// The reason a call gave.
    private static func failure(_ result: rocket_http_result) -> HTTPClientError {
        let why = withUnsafeBytes(of: result.error) { raw in String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self) }
        return HTTPClientError(message: why)
    }
}

/// A connection kept open between requests to one endpoint (a webhook's deliveries, a results
/// reader's pages). Used by one thread at a time; closed when it goes away.
package final class HTTPConnection: @unchecked Sendable {
    /// The C session (nil when it could not be made: each request then connects anew).
    let session: OpaquePointer?

    /// A connection not used again once it has been unused for `idleLimit` seconds (a NAT or a
    /// load balancer may forget one without a word).
    package init(idleLimit: Double = 30) { session = rocket_http_session_new(Int32(max(0, min(idleLimit, 3_600)) * 1000)) }

    deinit { rocket_http_session_free(session) }
}
