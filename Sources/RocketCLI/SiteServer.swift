#if canImport(Glibc)
    import Glibc
#endif
import RocketCore
import RocketJSON
import RocketPlatform
import RocketReport
import RocketServer

/// A running `rocket serve` asked for what a site's back end may read (`--server URL`, with the
/// site key of `--key-file FILE` or `$ROCKET_API_KEY`, and `--ca-file FILE` for https): the pages
/// `rocket results --server` and the report `rocket report --server` print. One kept connection;
/// a busy answer (429) is waited for.
struct SiteServer {
    /// The server's address.
    let target: HTTPTarget
    /// The site key sent as `Authorization: Bearer KEY`.
    let key: String
    /// The certificates to trust for https (nil: the system's).
    let caFile: String?
    /// The connection kept from one request to the next.
    let connection: HTTPConnection

    /// Why an answer could not be had, and the exit status that says so.
    struct Failure: Error {
        let message: String
        let status: ExitStatus
    }

    /// The server at `url`, its key and certificates from `parsed` (a usage error of `command`
    /// for an address that is no http(s) URL, or no key).
    init(url: String, _ parsed: ParsedArguments, command: String) throws(UsageError) {
        switch HTTPTarget.parse(url) {
        case .failure(let e): throw UsageError(message: "--server must be \(e.message)", command: command)
        case .success(let t): target = t
        }
        guard target.path == "/" || !target.path.contains("?") else {
            throw UsageError(message: "--server is the server's address, without a query", command: command)
        }
        if let file = parsed.value("--key-file") {
            switch FileIO.read(file, limit: 4096) {
            case .failure(let f): throw UsageError(message: "--key-file '\(Sanitizer.clean(file, keepNewlines: false))': \(f.reason)", command: command)
            case .success(let bytes):
                // A key file as rocket serve reads one (docs/SERVER.md): its first key.
                switch AccessControl.keys(fromText: String(decoding: bytes, as: UTF8.self)) {
                case .failure(let e):
                    throw UsageError(
                        message: "--key-file '\(Sanitizer.clean(file, keepNewlines: false))': line \(e.line) is no key (16–256 printable characters)",
                        command: command)
                case .success(let keys): key = keys.first ?? ""
                }
            }
        } else {
            key = Environment.current["ROCKET_API_KEY"] ?? ""
        }
        guard !key.isEmpty, key.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            throw UsageError(message: "--server needs a site key: --key-file FILE or $ROCKET_API_KEY (printable, without spaces)", command: command)
        }
        caFile = parsed.value("--ca-file")
        connection = HTTPConnection()
    }

    /// A usage error of `command` when `--key-file` or `--ca-file` is given without `--server`
    /// (they say nothing then).
    static func refuseClientFlags(_ parsed: ParsedArguments, command: String) throws(UsageError) {
        guard parsed.value("--server") != nil || (parsed.value("--key-file") == nil && parsed.value("--ca-file") == nil) else {
            throw UsageError(message: "--key-file and --ca-file go with --server", command: command)
        }
    }

    /// A window's bounds as query parameters (`&since=%40SECONDS&until=…`; "" for none): instants,
    /// so that the server reads the window this command counted, not one of its own clock.
    static func query(_ window: ReportWindow?) -> String {
        [("since", window?.since), ("until", window?.until)].compactMap { name, t in t.map { "&\(name)=%40\($0)" } }.joined()
    }

    /// The server's address as messages show it.
    var shown: String { Sanitizer.clean(target.url, keepNewlines: false) }

    /// The body of `GET` `route` (a path from the server's own, with its query) when the server
    /// answers 200 (at most `maxBody` bytes); a busy answer (429) is asked again each second for
    /// 30 s; any other answer is a failure saying the server's message (77 for a refused key).
    func get(_ route: String, maxBody: Int) -> Result<[UInt8], Failure> {
        let base = target.path.hasSuffix("/") ? String(target.path.dropLast()) : target.path
        for _ in 0..<30 {
            let answer = HTTPClient.get(
                target, path: base + route, headers: [("Authorization", "Bearer " + key), ("Accept", "application/json")], caFile: caFile,
                timeout: 30, maxBody: maxBody, connection: connection)
            switch answer {
            case .failure(let why):
                return .failure(Failure(message: "no answer from \(shown): \(why.message)", status: .unavailable))
            case .success(let (status, body)) where status == 200:
                return .success(body)
            case .success(let (status, _)) where status == 429:
                usleep(1_000_000)
            case .success(let (status, body)):
                var said = ""
                if case .object(let top)? = try? JSONReader.parse(body).plainValue,
                    case .object(let error)? = top.first(where: { $0.0 == "error" })?.1,
                    case .string(let message)? = error.first(where: { $0.0 == "message" })?.1
                {
                    said = ": " + message
                }
                let refused = status == 401 || status == 403
                return .failure(
                    Failure(
                        message: "\(shown) answered \(status)\(Sanitizer.clean(String(said.prefix(300)), keepNewlines: false))"
                            + (refused ? " (is the site key right?)" : ""),
                        status: refused ? .noPermission : status == 404 ? .dataError : .unavailable))
            }
        }
        return .failure(Failure(message: "\(shown) stayed busy (429) for 30 s", status: .unavailable))
    }
}
