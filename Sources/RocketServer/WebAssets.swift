import CImageCodecs
import RocketCore
import RocketJSON
import RocketText
import Synchronization

/// The web front end `rocket serve` hands out: the widget (plain JavaScript with its CSS inside,
/// no framework, no build step), the page that plays a flow full-window, and the index. They are
/// files in `Sources/RocketServer/Web/`, compiled into the binary through the source that
/// `scripts/gen-web-assets.py` makes of them (`WebAssetsSource.swift`; CI checks it is current).
///
/// The widget renders every piece of flow content with `textContent`, never as HTML.
final class WebAssets: Sendable {
    /// `GET /widget.js`.
    let widget: HTTPResponse
    /// The same, gzipped (compressed once, at start), for clients that accept it.
    let widgetGzipped: HTTPResponse?
    /// The entity tags of the widget, plain and gzipped (each representation its own): the
    /// start of the plain script's SHA-256, so a browser holding this version asks with
    /// `If-None-Match` once its copy is older than `max-age` and gets a 304 without the bytes.
    let widgetTag: String
    let widgetGzippedTag: String
    /// The widget's script as a play page holds it inline (`</` written `<\/`, which means the same
    /// in its strings), and the policy that lets exactly that script run: the page's first bubble
    /// does not wait for a second request.
    let inlineWidget: String
    /// The headers of a play page: the page's, with the inline widget's hash in the policy.
    let playHeaders: [(String, String)]
    /// Play pages made and gzipped once per flow (at most ``maxPlayPages``), held once for every
    /// answer that sends them.
    private let playPages = Mutex<[String: (plain: SharedBytes, gzipped: SharedBytes?)]>([:])
    static let maxPlayPages = 1_024

    init() {
        // The widget's own words come from UIStrings, one table for every front end.
        let words = JSONValue.object(
            UIStrings.all.map { s in (s.language, .object(s.widgetWords.sorted { $0.key < $1.key }.map { ($0.key, .string($0.value)) })) })
        let source = Self.script.replacingAll("\"__CSS__\"", with: JSONValue.quote(Self.style))
            .replacingAll("\"__WORDS__\"", with: words.serialized(pretty: false))
        let headers = [
            ("Content-Type", "text/javascript; charset=utf-8"), ("Cache-Control", "max-age=60"),
            ("Vary", "Accept-Encoding"),
        ]
        let plain = Array(source.utf8)
        let version = SHA256.hex(plain).prefix(20)
        let tag = "\"\(version)\""
        let gzippedTag = "\"\(version)-gz\""
        widgetTag = tag
        widgetGzippedTag = gzippedTag
        widget = .sharing(headers + [("ETag", tag)], SharedBytes(plain))
        widgetGzipped = Self.gzip(plain).map { .sharing(headers + [("ETag", gzippedTag), ("Content-Encoding", "gzip")], SharedBytes($0)) }
        inlineWidget = source.replacingAll("</", with: "<\\/")
        let hash = Base64.encode(SHA256.digest(Array(inlineWidget.utf8)))
        playHeaders = Self.headers(scriptHash: hash)
    }

    /// `bytes` as a gzip member, or nil when compression fails.
    static func gzip(_ bytes: [UInt8]) -> [UInt8]? {
        var out = [UInt8](repeating: 0, count: bytes.count + bytes.count / 100 + 64)
        let n = bytes.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in rocket_gzip(src.baseAddress, src.count, dst.baseAddress, dst.count) }
        }
        return n == 0 ? nil : Array(out[..<n])
    }

    /// The widget for a request: gzipped when its `Accept-Encoding` allows; 304 Not Modified
    /// (its tag, caching and `Vary` headers, no body) when its `If-None-Match` names the tag of
    /// the representation it would get.
    func widget(for request: HTTPRequest) -> HTTPResponse {
        let gzipped = Self.acceptsGzip(request) ? widgetGzipped : nil
        let answer = gzipped ?? widget
        return request.holds(gzipped == nil ? widgetTag : widgetGzippedTag) ? answer.notModified() : answer
    }

    /// True when the request's `Accept-Encoding` takes gzip: named with a quality above 0, or
    /// not named while `*` is, with a quality above 0 (`gzip;q=0` refuses it).
    static func acceptsGzip(_ request: HTTPRequest) -> Bool {
        guard let accepted = request.header(HTTPRequest.Name.acceptEncoding) else { return false }
        var gzip: Bool?
        var any: Bool?
        for item in accepted.lowercased().split(separator: ",") {
            let parts = item.split(separator: ";")
            guard let coding = parts.first?.trimmingSpaces() else { continue }
            // A quality of zero, however written (q=0, q=0.0, q=0.000), refuses the coding.
            let refused = parts.dropFirst().contains { p in
                let kv = p.trimmingSpaces()
                return kv.hasPrefix("q=") && Double(kv.dropFirst(2)) == 0
            }
            if coding == "gzip" || coding == "x-gzip" { gzip = !refused } else if coding == "*" { any = !refused }
        }
        return gzip ?? any ?? false
    }

    /// The headers of every HTML page: no framing by other sites, scripts and images from here only.
    static let pageHeaders = headers(scriptHash: nil)

    /// The headers of an HTML page, whose policy also lets run the one inline script whose
    /// SHA-256 (base64) is `scriptHash`.
    static func headers(scriptHash: String?) -> [(String, String)] {
        let scripts = scriptHash.map { "script-src 'self' 'sha256-\($0)'; " } ?? ""
        return [
            ("Content-Type", "text/html; charset=utf-8"), ("Cache-Control", "no-store"),
            ("Content-Security-Policy", "default-src 'self'; \(scripts)img-src 'self' data:; style-src 'self' 'unsafe-inline'; frame-ancestors 'self'"),
            ("Referrer-Policy", "no-referrer"),
        ]
    }

    /// Escapes text for HTML.
    static func html(_ s: String) -> String { HTMLText.escape(s) }

    /// `GET /play/NAME`: the flow full-window, its widget inline (gzipped when the request
    /// accepts it).
    func playPage(flow: String, tour: Bool = false, for request: HTTPRequest? = nil) -> HTTPResponse {
        let key = (tour ? "t" : "p") + flow
        let made =
            playPages.withLock { $0[key] }
            ?? {
                // The template is cut at the script so a flow's name can never become part of it.
                var parts = Self.playHTML.splitting(at: "__WIDGET__", maxSplits: 1, keepingEmpty: true).map {
                    String($0).replacingAll("__FLOW__", with: Self.html(flow))
                }
                // The tour's attribute goes on the script's tag, never into the script (its hash).
                if tour { parts[0] = parts[0].replacingAll(" data-page>", with: " data-page data-closing-alert>") }
                let page = parts.joined(separator: inlineWidget)
                let plain = Array(page.utf8)
                let made = (plain: SharedBytes(plain), gzipped: Self.gzip(plain).map(SharedBytes.init))
                playPages.withLock { pages in
                    if pages.count >= Self.maxPlayPages { pages.removeAll() }
                    pages[key] = made
                }
                return made
            }()
        if let gzipped = made.gzipped, let request, Self.acceptsGzip(request) {
            return .sharing(playHeaders + [("Vary", "Accept-Encoding"), ("Content-Encoding", "gzip")], gzipped)
        }
        return .sharing(playHeaders + [("Vary", "Accept-Encoding")], made.plain)
    }

    /// `GET /`, the home page: the flows on offer, with links to play them and their titles, and
    /// the line that embeds one, with the widget's address at `origin` (nil when the server does
    /// not know it: "…"). Made again only when the flows or the origin change, and shared by every
    /// answer.
    func index(flows: [FlowListing], origin: String?) -> HTTPResponse {
        let page = home.bytes(for: HomeKey(flows: flows, origin: origin)) {
            var items = ""
            for f in flows {
                items += "<li><a href=\"/play/\(Self.html(f.name))\">\(Self.html(f.name))</a>"
                if let title = f.title, !title.isEmpty { items += " — <bdi>\(Self.html(title))</bdi>" }  // isolated: a title's direction stays its own
                items += "</li>"
            }
            return Array(Self.indexHTML.replacingAll("__ITEMS__", with: items).replacingAll("__ORIGIN__", with: Self.html(origin ?? "…")).utf8)
        }
        return .sharing(Self.pageHeaders, page)
    }

    /// What the home page is made of.
    struct HomeKey: Equatable, Sendable {
        var flows: [FlowListing]
        var origin: String?
    }
    /// The home page last made.
    private let home = KeptBytes<HomeKey>()
}
