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
    /// A file served as it is, made once at start: its bytes plain and gzipped, each with its own
    /// entity tag (the start of the plain bytes' SHA-256), so a browser holding this version asks
    /// with `If-None-Match` once its copy is older than `max-age` and gets a 304 without the bytes.
    struct Served: Sendable {
        let plain: HTTPResponse
        let gzipped: HTTPResponse?
        let tag: String
        let gzippedTag: String
        /// The version of the bytes: the start of their SHA-256, in hex.
        let version: String

        /// `bytes` served with `headers` (and `Vary: Accept-Encoding`, the tags, the encoding).
        init(_ bytes: [UInt8], headers: [(String, String)]) {
            let version = String(SHA256.hex(bytes).prefix(20))
            self.version = version
            let (tag, zippedTag) = ("\"\(version)\"", "\"\(version)-gz\"")
            let all = headers + [("Vary", "Accept-Encoding")]
            self.tag = tag
            gzippedTag = zippedTag
            plain = .sharing(all + [("ETag", tag)], SharedBytes(bytes))
            gzipped = WebAssets.gzip(bytes).map { .sharing(all + [("ETag", zippedTag), ("Content-Encoding", "gzip")], SharedBytes($0)) }
        }

        /// The same bytes (held once) with header `name` set to `value` in both representations.
        func with(_ name: String, _ value: String) -> Served {
            func changed(_ r: HTTPResponse) -> HTTPResponse {
                var r = r
                r.headers = r.headers.map { $0.0 == name ? (name, value) : $0 }
                return r
            }
            return Served(plain: changed(plain), gzipped: gzipped.map(changed), tag: tag, gzippedTag: gzippedTag, version: version)
        }

        private init(plain: HTTPResponse, gzipped: HTTPResponse?, tag: String, gzippedTag: String, version: String) {
            self.plain = plain
            self.gzipped = gzipped
            self.tag = tag
            self.gzippedTag = gzippedTag
            self.version = version
        }

        /// The answer to `request`: gzipped when its `Accept-Encoding` allows; 304 Not Modified
        /// (its tag, caching and `Vary` headers, no body) when its `If-None-Match` names the tag
        /// of the representation it would get.
        func answer(_ request: HTTPRequest) -> HTTPResponse {
            let zipped = WebAssets.acceptsGzip(request) ? gzipped : nil
            let answer = zipped ?? plain
            return request.holds(zipped == nil ? tag : gzippedTag) ? answer.notModified() : answer
        }
    }

    /// `GET /widget.js`: the script with the CSS and its English words inside.
    let widget: Served
    /// `GET /widget/words/{lang}`: the widget's words in each other language (JSON), which a page
    /// fetches when it needs them (every language in the script cost each page 0.6–0.8 KB
    /// gzipped), for any site (`Access-Control-Allow-Origin: *`: they are the same for everyone).
    /// Asked for with the version the script names (`?v=`), they are kept for a year
    /// (`immutable`: a page after the first asks nothing); otherwise for 60 s, as the script.
    let words: [String: (current: Served, pinned: Served)]
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
        // The widget's own words come from UIStrings, one table for every front end: English in
        // the served script, each language apart; the play page's script holds them all (its
        // first bubble waits for no second request).
        let tables = UIStrings.all.map { s in
            (s.language, JSONValue.object(s.widgetWords.sorted { $0.key < $1.key }.map { ($0.key, .string($0.value)) }))
        }
        let cached = ("Cache-Control", "max-age=60")
        let json = [("Content-Type", "application/json; charset=utf-8"), ("Access-Control-Allow-Origin", "*")]
        let served = tables.map { language, table in
            // Hashed and gzipped once; the pinned answer is the same bytes, kept longer.
            let current = Served(Array(table.serialized(pretty: false).utf8), headers: json + [cached])
            return (language, (current: current, pinned: current.with("Cache-Control", "max-age=31536000, immutable")))
        }
        words = Dictionary(uniqueKeysWithValues: served)
        // The script names each language's version, which its request for the words carries.
        let versions = JSONValue.object(served.map { ($0.0, .string(Self.wordsVersion($0.1.current))) }).serialized(pretty: false)
        func source(words: [(String, JSONValue)]) -> String {
            Self.script.replacingAll("\"__CSS__\"", with: JSONValue.quote(Self.style))
                .replacingAll("\"__WORDS__\"", with: JSONValue.object(words).serialized(pretty: false))
                .replacingAll("\"__WORD_VERSIONS__\"", with: versions)
        }
        widget = Served(
            Array(source(words: tables.filter { $0.0 == "en" }).utf8), headers: [("Content-Type", "text/javascript; charset=utf-8"), cached])
        inlineWidget = source(words: tables).replacingAll("</", with: "<\\/")
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

    /// The widget for a request (as ``Served/answer(_:)``).
    func widget(for request: HTTPRequest) -> HTTPResponse { widget.answer(request) }

    /// The widget's words in `language` for a request (as ``Served/answer(_:)``): kept for a
    /// year when the request names their version (`?v=`), else for 60 s; 404 for a language it
    /// has no words in.
    func words(_ language: String, for request: HTTPRequest) -> HTTPResponse {
        guard let served = words[language] else {
            return .error(404, "not-found", "the widget has no words in this language; it has \(UIStrings.all.map(\.language).joined(separator: ", "))")
        }
        return (request.query["v"] == Self.wordsVersion(served.pinned) ? served.pinned : served.current).answer(request)
    }

    /// The version of a language's words the script names and their request carries: the start
    /// of their SHA-256, 10 hex digits (a new version of the words is a new one; the script
    /// carries one per language, so each digit costs every page).
    static func wordsVersion(_ served: Served) -> String { String(served.version.prefix(10)) }

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
