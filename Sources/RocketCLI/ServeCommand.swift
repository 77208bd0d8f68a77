#if canImport(Glibc)
    import Glibc
#endif
import RocketCore
import RocketJSON
import RocketPlatform
import RocketScenarios
import RocketServer
import RocketPostgres
import RocketScenariosPostgres
import RocketScenarioEngine
import RocketTerminal
import RocketTerminalCore
import RocketFlow

/// `rocket serve`: conversations, banners and scenario gates for web pages, over HTTP and JSON.
enum ServeCommand {
    static let spec = CommandSpec(
        name: "serve", abstract: "Serve flows to web pages: a JSON API, event streams, an embeddable widget.",
        positionals: [], positionalCount: 0...0,
        options: [
            .value("--host", "ADDRESS", "The IP address to listen on (default 127.0.0.1, also written localhost; 0.0.0.0 or :: for every interface)."),
            .value("--port", "N", "The port (default 8080; 0 picks a free one)."),
            .value("--flows", "DIR", "Serve DIR/NAME.json as flow NAME (default: the built-in demo flow)."),
            ScenarioCommand.storeOption,
            .value("--allow-origin", "ORIGIN", "A site whose pages may use the API (https://shop.example); repeatable.", repeatable: true),
            .value("--max-conversations", "N", "Conversations held at once (default \(RocketLimits.conversations))."),
            .value("--max-streams", "N", "Event streams held open at once (default \(RocketLimits.eventStreams); the limit on open files is raised to fit)."),
            .value("--idle-timeout", "D", "Forget a conversation unused for D (default 24h)."),
            .value("--rate", "N", "Requests a visitor may send per second, bursts of 4×N (default 10)."),
            .value("--rate-per-address", "N", "Requests one client address may send per second, whatever visitors it names, bursts of 4×N (default 50)."),
            .value("--max-per-address", "N", "Live conversations (and, apart, alerts) one client address may hold (default 200)."),
            .value("--visitor-retention", "D", "Forget a visitor's scenario counts after D without events or shows (default 400d)."),
            .value("--keep-records", "D", "Keep event records for reports for D (default 90d)."),
            .value("--keep-results", "D", "Keep the answers of ended conversations for GET /v1/results for D (default 90d; 0 keeps none)."),
            .value("--webhook", "URL", "POST each result to URL (http or https) as it is written, signed with --webhook-secret-file."),
            .value("--webhook-secret-file", "FILE", "The secret the webhook's Rocket-Signature is made with (needed with --webhook)."),
            .value("--webhook-ca-file", "FILE", "The certificates (PEM) to trust for an https webhook (default: the system's)."),
            .value("--min-gap", "D", "Show a visitor no flow within D of the last one shown to them (30s; default none)."),
            .value(
                "--trust-proxy", "ADDRESS", "A proxy whose X-Forwarded-For names the client (its own address, or its network: 10.0.0.0/8); repeatable.",
                repeatable: true),
            .value("--api-key-file", "FILE", "Site keys, one per line: calls with Authorization: Bearer KEY act for any visitor (re-read on SIGHUP)."),
            .value("--secret-file", "FILE", "The secret visitor tokens are signed with (default: made once and kept in the store)."),
            .value("--identity-secret-file", "FILE", "The secret a site signs its own visitor ids with (Rocket-Visitor-Hash)."),
            .value("--public-url", "URL", "The address pages reach this server at (https://chat.example); its pages are same-origin."),
            .flag("--insecure-dev", "Take visitor ids as claimed and site routes without a key (a developer's machine only)."),
            .value("--log-format", "F", "text (default: a line each) or json (one object a line: time, level, message) for log collectors.")
                .completing(.words(ServeLog.Format.allCases.map(\.rawValue))),
            .flag("--access-log", "A line per answer on stderr: time, client, method, path (no query), status, bytes, milliseconds."),
            .flag("--check", "Check the configuration (flags, key and secret files, every flow, the store) and exit without serving."),
        ],
        discussion: """
            Prints the URL on stdout, then serves until Ctrl-C, SIGTERM or SIGQUIT, finishing the requests
            under way; SIGHUP re-reads --api-key-file. Keys may also come from $ROCKET_API_KEYS (separated by
            spaces or commas). Without keys, the routes for a site's back end (scenario events) are refused
            unless --insecure-dev is given. Open the URL for the flows on offer; /play/NAME plays one full-window; a page
            embeds one with <script src="URL/widget.js" data-flow="NAME"></script>. Conversations are
            kept in the store, so a restart resumes them. Under systemd, a socket it passes
            (LISTEN_FDS) is listened on instead of --host and --port, and NOTIFY_SOCKET is told
            ready, reloading, stopping and the watchdog's pings (docs/DEPLOY.md). The API is
            described in docs/SERVER.md and docs/openapi.json. D is seconds, or a number with ms,
            s, m, h, d or w.
            """,
        exitStatus:
            "0 stopped by a signal; 64 usage error; 65 a key or secret file holds no key or secret; 66 no such flows folder, or a key or secret file cannot be read or every user may change it; 69 the address cannot be used, the PostgreSQL store cannot be reached, or the store file is in use by another rocket serve; 74 store error.",
        examples: ["rocket serve", "rocket serve --flows ./flows --port 9000 --allow-origin https://shop.example"], strayValue: .last("--flows"))

    struct Options {
        var host = "127.0.0.1"
        var port = 8080
        var flows: String?
        var store: String?
        var configuration = ServerConfiguration()
        var keyFile: String?
        var secretFile: String?
        var identityFile: String?
        var webhook: HTTPTarget?
        var webhookSecretFile: String?
        var webhookCAFile: String?
        var insecureDev = false
        var log = ServeLog(format: .text)

        init(_ parsed: ParsedArguments, command: String) throws(UsageError) {
            if let h = parsed.value("--host") {
                // The one name taken: it needs no lookup, and means the loopback address.
                if h.lowercased() == "localhost" {
                    host = "127.0.0.1"
                } else {
                    guard Addresses.isAddress(h) else {
                        throw UsageError(
                            message: "--host must be an IPv4 or IPv6 address (or localhost), not '\(Sanitizer.clean(h, keepNewlines: false))'", command: command
                        )
                    }
                    host = h
                }
            }
            if let p = parsed.value("--port") {
                guard let n = Int(p), (0...65535).contains(n) else { throw UsageError(message: "--port must be a number from 0 to 65535", command: command) }
                port = n
            }
            flows = parsed.value("--flows")
            store = parsed.value("--store")
            // An origin as browsers send it: scheme, host and port (a final "/" is dropped).
            func origin(_ value: String, _ flag: String, _ example: String) throws(UsageError) -> String {
                guard let o = Addresses.origin(value) else {
                    // A host alone, or an address with a path: the origin it most likely means.
                    let meant =
                        value.range(ofText: "://") == nil
                        ? Addresses.origin("https://" + value)
                        : value.range(ofText: "://").flatMap { scheme in
                            value[scheme.upperBound...].firstIndex(of: "/").flatMap { Addresses.origin(String(value[..<$0])) }
                        }
                    throw UsageError(
                        message:
                            "\(flag) takes an origin such as \(example) (scheme, host and port, no path), not '\(Sanitizer.clean(value, keepNewlines: false))'"
                            + (meant.map { "; did you mean '\($0)'?" } ?? ""),
                        command: command)
                }
                return o
            }
            for o in parsed.all("--allow-origin") { configuration.allowedOrigins.insert(try origin(o, "--allow-origin", "https://shop.example")) }
            if let m = parsed.value("--max-conversations") {
                guard let n = Int(m), (1...10_000_000).contains(n) else {
                    throw UsageError(message: "--max-conversations must be a number from 1 to 10000000", command: command)
                }
                configuration.maxConversations = n
            }
            if let m = parsed.value("--max-streams") {
                guard let n = Int(m), (1...1_000_000).contains(n) else {
                    throw UsageError(message: "--max-streams must be a number from 1 to 1000000", command: command)
                }
                configuration.maxStreams = n
            }
            // A rate N per second allows bursts of 4×N.
            func rate(_ flag: String) throws(UsageError) -> (perSecond: Double, burst: Double)? {
                guard let r = parsed.value(flag) else { return nil }
                guard let n = Double(r), n.isFinite, n >= 0.01, n <= 1_000_000 else {
                    throw UsageError(message: "\(flag) must be a number from 0.01 to 1000000", command: command)
                }
                return (n, max(1, (n * 4).rounded()))
            }
            if let r = try rate("--rate") { (configuration.requestsPerSecond, configuration.requestBurst) = r }
            if let r = try rate("--rate-per-address") { (configuration.addressRequestsPerSecond, configuration.addressRequestBurst) = r }
            if let m = parsed.value("--max-per-address") {
                guard let n = Int(m), (1...10_000_000).contains(n) else {
                    throw UsageError(message: "--max-per-address must be a number from 1 to 10000000", command: command)
                }
                configuration.perAddress = n
            }
            if let d = parsed.value("--min-gap") {
                guard let s = RocketDuration.parse(d), s <= 86_400 else {
                    throw UsageError(message: "--min-gap must be a duration of at most 1d (30s, 5m)", command: command)
                }
                configuration.minGap = s
            }
            if let d = parsed.value("--keep-records") {
                guard let s = RocketDuration.parse(d), s >= 60 else {
                    throw UsageError(message: "--keep-records must be a duration of at least 1m (30d, 90d)", command: command)
                }
                configuration.recordRetention = s
            }
            if let d = parsed.value("--keep-results") {
                guard d == "0" || (RocketDuration.parse(d).map { $0 >= 60 } ?? false), let s = d == "0" ? 0 : RocketDuration.parse(d) else {
                    throw UsageError(message: "--keep-results must be 0 (keep none) or a duration of at least 1m (30d, 90d)", command: command)
                }
                configuration.resultRetention = s
            }
            if let d = parsed.value("--visitor-retention") {
                guard let s = RocketDuration.parse(d), s >= 60 else {
                    throw UsageError(message: "--visitor-retention must be a duration of at least 1m (30d, 400d)", command: command)
                }
                configuration.visitorRetention = s
            }
            for a in parsed.all("--trust-proxy") {
                if Addresses.isAddress(a) {
                    configuration.trustedProxies.insert(Addresses.canonical(a))
                    continue
                }
                guard a.utf8.contains(0x2F), let network = AddressNetwork(a) else {
                    throw UsageError(
                        message:
                            "--trust-proxy takes the proxy's IP address, or its network (10.0.0.0/8), not '\(Sanitizer.clean(a, keepNewlines: false))'",
                        command: command)
                }
                guard !network.isEverything else {
                    throw UsageError(
                        message: "--trust-proxy \(a) would trust every client's X-Forwarded-For; name the proxies' own network", command: command)
                }
                configuration.trustedNetworks.append(network)
            }
            keyFile = parsed.value("--api-key-file")
            secretFile = parsed.value("--secret-file")
            identityFile = parsed.value("--identity-secret-file")
            if let u = parsed.value("--webhook") {
                switch HTTPTarget.parse(u) {
                case .failure(let e): throw UsageError(message: "--webhook must be \(e.message)", command: command)
                case .success(let t): webhook = t
                }
                guard parsed.value("--webhook-secret-file") != nil else {
                    throw UsageError(message: "--webhook needs --webhook-secret-file (openssl rand -hex 32 makes one)", command: command)
                }
                guard configuration.resultRetention > 0 else {
                    throw UsageError(message: "--webhook sends the results kept: it cannot go with --keep-results 0", command: command)
                }
            } else if parsed.value("--webhook-secret-file") != nil || parsed.value("--webhook-ca-file") != nil {
                throw UsageError(message: "--webhook-secret-file and --webhook-ca-file go with --webhook URL", command: command)
            }
            webhookSecretFile = parsed.value("--webhook-secret-file")
            webhookCAFile = parsed.value("--webhook-ca-file")
            insecureDev = parsed.has("--insecure-dev")
            if let f = parsed.value("--log-format") {
                guard let format = ServeLog.Format(rawValue: f) else {
                    throw UsageError(message: "--log-format must be text or json", command: command)
                }
                log = ServeLog(format: format)
            }
            if parsed.has("--access-log") { configuration.accessLog = log.format }
            if let u = parsed.value("--public-url") { configuration.publicOrigins.insert(try origin(u, "--public-url", "https://chat.example")) }
            if let d = parsed.value("--idle-timeout") {
                guard let s = RocketDuration.parse(d), s >= 1 else {
                    throw UsageError(message: "--idle-timeout must be a duration of at least 1s (90, 30m, 24h, 7d; at most 100 years)", command: command)
                }
                configuration.idleTimeout = s
            }
        }

    }

    /// Why a key or secret file cannot be used: a sentence naming the option or file.
    struct SetupFailure: Error {
        var message: String
        /// 66 when the file cannot be read, 65 when what it holds is no key or secret.
        var status: ExitStatus
        init(_ message: String, _ status: ExitStatus = .dataError) {
            self.message = message
            self.status = status
        }
    }

    /// The webhook `--webhook`, `--webhook-secret-file` and `--webhook-ca-file` describe (for
    /// `serve` and `webhook-test` alike): its secret read, its certificates readable.
    static func webhook(_ target: HTTPTarget, secretFile: String, caFile: String?) -> Result<WebhookConfiguration, SetupFailure> {
        switch secret("--webhook-secret-file", secretFile) {
        case .failure(let failure): return .failure(failure)
        case .success(let s):
            if let ca = caFile, case .failure(let f) = FileIO.read(ca, limit: RocketLimits.fileBytes) {
                return .failure(SetupFailure("--webhook-ca-file '\(Sanitizer.clean(ca, keepNewlines: false))': \(f.reason)", .noInput))
            }
            return .success(WebhookConfiguration(target: target, secret: s, caFile: caFile))
        }
    }

    /// A key or secret file every user of the machine may change is refused: whoever writes it
    /// decides who the server trusts.
    static func refusedAsWritable(_ option: String, _ file: String) -> SetupFailure? {
        guard FileIO.openToOthers(file)?.write == true else { return nil }
        let shown = Sanitizer.clean(file, keepNewlines: false)
        return SetupFailure("\(option) '\(shown)': every user of this machine may change it (chmod o-w '\(shown)')", .noInput)
    }

    /// The warning for a key or secret file, or the store holding the token secret, that every
    /// user of the machine may read; nil when it is kept closer.
    static func readableWarning(_ what: String, _ path: String) -> String? {
        guard FileIO.openToOthers(path)?.read == true else { return nil }
        let shown = Sanitizer.clean(path, keepNewlines: false)
        return "rocket serve: \(what) '\(shown)' can be read by every user of this machine (chmod 600 '\(shown)')"
    }

    /// The site keys of `file` and of `$ROCKET_API_KEYS`, or the message that says why not.
    static func siteKeys(file: String?, environment: String?) -> Result<[String], SetupFailure> {
        var keys: [String] = []
        if let file {
            let shown = Sanitizer.clean(file, keepNewlines: false)
            if let refused = refusedAsWritable("--api-key-file", file) { return .failure(refused) }
            switch FileIO.read(file, limit: 1 << 20) {
            case .failure(let f): return .failure(SetupFailure("--api-key-file '\(shown)': \(f.reason)", .noInput))
            case .success(let bytes):
                // A byte-order mark, as some editors start a file with, is no part of the first key.
                let text = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? Array(bytes.dropFirst(3)) : bytes
                switch AccessControl.keys(fromText: String(decoding: text, as: UTF8.self)) {
                case .failure(let e): return .failure(SetupFailure("\(shown):\(e.line): not a key (16–256 printable characters without spaces)"))
                case .success(let k): keys += k
                }
            }
        }
        if let environment {
            let words = environment.split(whereSeparator: { $0 == " " || $0 == "," || $0 == "\n" || $0 == "\t" }).map(String.init)
            switch AccessControl.keys(fromText: words.joined(separator: "\n")) {
            case .failure(let e): return .failure(SetupFailure("ROCKET_API_KEYS: key \(e.line) is not a key (16–256 printable characters without spaces)"))
            case .success(let k): keys += k
            }
        }
        return .success(keys)
    }

    /// A secret of at least 32 bytes from `file` (a final line end is not part of it).
    static func secret(_ option: String, _ file: String) -> Result<[UInt8], SetupFailure> {
        let shown = Sanitizer.clean(file, keepNewlines: false)
        if let refused = refusedAsWritable(option, file) { return .failure(refused) }
        switch FileIO.read(file, limit: 4096) {
        case .failure(let f): return .failure(SetupFailure("\(option) '\(shown)': \(f.reason)", .noInput))
        case .success(var bytes):
            while let last = bytes.last, last == 0x0A || last == 0x0D { bytes.removeLast() }
            guard bytes.count >= 32 else {
                return .failure(SetupFailure("\(option) '\(shown)': a secret is at least 32 bytes (openssl rand -hex 32 makes one)"))
            }
            return .success(bytes)
        }
    }

    /// What the key and secret files (and `$ROCKET_API_KEYS`) give, read and checked as a start
    /// reads them; `secret` nil when the token secret is the store's.
    struct Secrets {
        var keys: [String]
        var secret: [UInt8]?
        var identity: [UInt8]?
        var webhook: WebhookConfiguration?
    }

    /// Reads the files `options` names: the site keys, the token and identity secrets, the
    /// webhook's secret and certificates; the first that cannot be used says why.
    static func secrets(_ options: Options) -> Result<Secrets, SetupFailure> {
        var out = Secrets(keys: [])
        switch siteKeys(file: options.keyFile, environment: Environment.current["ROCKET_API_KEYS"]) {
        case .failure(let failure): return .failure(failure)
        case .success(let k): out.keys = k
        }
        for (option, file, isIdentity) in [("--secret-file", options.secretFile, false), ("--identity-secret-file", options.identityFile, true)] {
            guard let file else { continue }
            switch secret(option, file) {
            case .failure(let failure): return .failure(failure)
            case .success(let s):
                if isIdentity { out.identity = s } else { out.secret = s }
            }
        }
        if let target = options.webhook, let file = options.webhookSecretFile {
            switch webhook(target, secretFile: file, caFile: options.webhookCAFile) {
            case .failure(let failure): return .failure(failure)
            case .success(let w): out.webhook = w
            }
        }
        return .success(out)
    }

    /// What the start says about a configuration that works but may not be what was meant: no
    /// keys, `--insecure-dev`, answers sent in clear text, secrets other users may read (the store
    /// at `store` among them when it holds the token secret), a proxy without a public address.
    /// What the flows folder holds that will not be served, as the start and `--check` say it:
    /// `.json` files passed over (links, names that are no flow names; the first ten, then how
    /// many more) and a folder with no flow at all (pages get 404 until one is added).
    static func folderWarnings(_ flows: FlowLibrary) -> [String] {
        guard let folder = flows.directory.map({ Sanitizer.clean($0, keepNewlines: false) }) else { return [] }
        var out: [String] = []
        let passed = flows.passedOver()
        for entry in passed.prefix(10) { out.append("rocket serve: \(folder)/\(Sanitizer.clean(entry.file, keepNewlines: false)) \(entry.why)") }
        if passed.count > 10 { out.append("rocket serve: \(folder): and \(passed.count - 10) more .json files not offered") }
        if flows.names().isEmpty {
            out.append(
                "rocket serve: \(folder) holds no flows (NAME.json): every page is 404 until one is added (flows added later are served within a second)")
        }
        return out
    }

    static func warnings(_ options: Options, keys: [String], store: String) -> [String] {
        var out: [String] = []
        if options.insecureDev {
            out.append("rocket serve: --insecure-dev: visitor ids are taken as claimed and site routes need no key; never expose this server")
        } else if keys.isEmpty {
            out.append("rocket serve: no site keys (--api-key-file, ROCKET_API_KEYS): the routes for a site's back end are refused")
        }
        // Too few open files for the streams allowed: streams and connections would be refused
        // long before --max-streams (a start raises the soft limit as far as the hard one).
        var files = rlimit()
        let needed = options.configuration.descriptorsNeeded
        if getrlimit(Int32(RLIMIT_NOFILE.rawValue), &files) == 0, files.rlim_max < rlim_t(needed) {
            let even = ServerConfiguration.streamsFitting(descriptors: Int(files.rlim_max))
            out.append(
                "rocket serve: this process may open \(files.rlim_max) files, too few for \(options.configuration.maxStreams) event streams beside other connections (\(needed)): it holds at most \(even) streams; raise the limit for more (ulimit -Hn, LimitNOFILE= under systemd)"
            )
        }
        // Visitors' answers sent in clear text over a network.
        if let warning = options.webhook?.clearTextWarning("rocket serve") { out.append(warning) }
        // Secrets other users of the machine may read.
        var readable: [(String, String)] = []
        if let file = options.keyFile { readable.append(("--api-key-file", file)) }
        if let file = options.secretFile { readable.append(("--secret-file", file)) }
        if let file = options.identityFile { readable.append(("--identity-secret-file", file)) }
        if let file = options.webhookSecretFile { readable.append(("--webhook-secret-file", file)) }
        if options.secretFile == nil, !store.containsText("://") { readable.append(("the store, which holds the token secret,", store)) }
        for (what, path) in readable { if let warning = readableWarning(what, path) { out.append(warning) } }
        // Behind a proxy, pages come from the proxy's address, which the server cannot know: the
        // forwarded scheme and host are a client's word (nginx passes on the Host it was sent).
        if options.configuration.trustsProxies && options.configuration.publicOrigins.isEmpty {
            out.append(
                "rocket serve: --trust-proxy without --public-url: pages served through the proxy (/play, the home page) count as another site's and are refused; give the proxy's address as --public-url"
            )
        }
        return out
    }

    /// `rocket serve --check`: what a start would read, read and checked, without serving or
    /// writing anything (as `nginx -t` does): the key and secret files, every flow in each of its
    /// languages (and the pictures they name, as warnings), and the store (opened for reading: a
    /// running server may hold it). Each problem is said; the status is the first problem's (0
    /// when there is none).
    static func check(_ options: Options, say: ServeLog) -> ExitStatus {
        var status = ExitStatus.ok
        var keys: [String] = []
        switch secrets(options) {
        case .failure(let failure):
            say.error(failure.message)
            status = failure.status
        case .success(let r): keys = r.keys
        }
        // The store, for reading: its schema is one this rocket reads (it is migrated at the start).
        let named = options.store ?? Environment.current["ROCKET_STORE"]
        var place = named ?? "the default store"
        /// A store of an older schema is not a problem: the start migrates it (said, as a rolling
        /// upgrade wants to know).
        func migrates(_ stored: Int, to current: Int, _ place: String, _ doc: String) {
            say(
                "rocket serve: the store \(Sanitizer.clean(place, keepNewlines: false)) holds schema \(stored): the start migrates it to \(current) first (\(doc))",
                .info)
        }
        let opened = ScenarioCommand.openStore(options.store, forReading: true, pageSize: ConversationArchive.pageSize)
        var migrating = false
        if let named, PostgresURL.names(named), case .failure = opened {
            // A PostgreSQL store of an older schema is not opened for reading: its version says
            // what the start does with it.
            if case .success(let stored?) = Result(catching: { () throws(ScenarioStoreError) in try PostgresScenarioStore.storedSchemaVersion(url: named) }),
                stored < PostgresScenarioStore.schemaVersion
            {
                place = PostgresURL(named)?.description ?? place
                migrates(stored, to: PostgresScenarioStore.schemaVersion, place, "docs/DEPLOY.md, \"The database\"")
                migrating = true
            }
        }
        switch opened {
        case _ where migrating: break
        case .failure(let e):
            say.error(Sanitizer.clean(e.message, keepNewlines: false))
            if status == .ok { status = named.map(PostgresURL.names) == true ? .unavailable : .ioError }
        case .success(let s as SQLiteScenarioStore):
            place = s.path
            if FileIO.holdExclusively(s.path) == false {
                say("rocket serve: the store \(Sanitizer.clean(s.path, keepNewlines: false)) is in use by a running rocket serve", .info)
            }
            if let stored = try? s.storedSchemaVersion, stored < SQLiteScenarioStore.schemaVersion {
                migrates(stored, to: SQLiteScenarioStore.schemaVersion, s.path, "docs/SERVER.md, \"Storage\"")
            }
        case .success(_ as PostgresScenarioStore): place = named.flatMap(PostgresURL.init)?.description ?? place
        case .success: say("rocket serve: the store \(Sanitizer.clean(place, keepNewlines: false)) does not exist yet: the first start makes it", .info)
        }
        // Every flow, in every language it is written in.
        let flows = FlowLibrary(
            directory: options.flows, builtIn: options.flows == nil ? ["demo": Array(DemoFlow.json.utf8)] : [:], tours: [], log: { _ in })
        let names = flows.names()
        var bad = 0
        for name in names {
            var lines: [String] = []
            switch flows.flow(name) {
            case .failure(.invalid(let errors)): lines = errors
            case .failure(.unreadable(let why)): lines = [why]
            case .failure(.unknown): lines = ["\(name).json: not found"]
            case .success(let flow):
                if let s = flow.document.schedule, s.hasEnded(at: WallTime.now), let until = s.until {
                    let folder = options.flows.map { Sanitizer.clean($0, keepNewlines: false) + "/" } ?? ""
                    say.warning("\(folder)\(name).json: its schedule ended at \(until): it is never shown again")
                }
                for lang in flow.document.languages.dropFirst() {
                    if case .failure(.invalid(let errors)) = flows.flow(name, language: lang) { lines += errors }
                }
                // Its pictures, as lint checks them: one that is missing or not a picture would be
                // a broken image on every page, one larger than pages show a download for nothing.
                // Said, not refused: the flow itself can be served.
                if let folder = options.flows {
                    for d in AssetCheck.check(flow.document, base: folder) {
                        say.warning("\(Sanitizer.clean(folder, keepNewlines: false))/\(name).json: \(d.message) (\(d.path))")
                    }
                }
            }
            guard !lines.isEmpty else { continue }
            bad += 1
            let folder = options.flows.map { Sanitizer.clean($0, keepNewlines: false) + "/" } ?? ""
            for line in lines { say(folder + line, .error) }
        }
        if bad > 0, status == .ok { status = .dataError }
        for warning in folderWarnings(flows) + warnings(options, keys: keys, store: place) { say.warning(warning) }
        let shownPlace = Sanitizer.clean(place, keepNewlines: false)
        if status == .ok {
            say("rocket serve: the configuration is good: \(names.count) flow(s), \(keys.count) site key(s), the store \(shownPlace)", .info)
        } else {
            say("rocket serve: the configuration has problems (above)\(bad > 0 ? "; \(bad) of \(names.count) flow(s) cannot be served" : "")", .error)
        }
        return status
    }

    /// The listening socket a service manager passed (systemd's socket activation: `LISTEN_FDS`,
    /// `LISTEN_PID`), or nil to listen on `--host` and `--port`. The variables are taken out of
    /// the environment either way, so nothing the server starts takes the socket too.
    static func passedSocket(_ parsed: ParsedArguments, environment: [String: String], pid: Int32) throws(UsageError) -> Int32? {
        defer { ServiceManager.forgetPassedSockets() }
        switch ServiceManager.passedSockets(environment: environment, pid: pid) {
        case .failure(let e): throw UsageError(message: e.message, command: spec.name)
        case .success(let sockets):
            guard let first = sockets.first else { return nil }
            guard sockets.count == 1 else {
                throw UsageError(
                    message:
                        "the service manager passed \(sockets.count) sockets (LISTEN_FDS); rocket serve listens on one: give its socket unit one ListenStream=",
                    command: spec.name)
            }
            if parsed.value("--host") != nil || parsed.value("--port") != nil {
                throw UsageError(
                    message:
                        "--host and --port cannot go with a socket the service manager passed (LISTEN_FDS): the socket unit's ListenStream= says where to listen",
                    command: spec.name)
            }
            return first
        }
    }

    static func run(_ args: [String]) throws(UsageError) -> ExitStatus {
        let parsed = try parse(args, as: spec)
        if parsed.helpRequested { printOut(spec.help); return ExitStatus.ok }
        let options = try Options(parsed, command: spec.name)
        let passed = try passedSocket(parsed, environment: Environment.current, pid: getpid())
        let say = options.log
        if let dir = options.flows {
            var st = stat()
            guard stat(dir, &st) == 0, (st.st_mode & S_IFMT) == S_IFDIR else {
                var why = "--flows '\(Sanitizer.clean(dir, keepNewlines: false))' is not a folder"
                if dir.hasSuffix(".json"), (st.st_mode & S_IFMT) == S_IFREG {
                    // A flow file given for the folder: serve the folder, and the flow is its name.
                    let folder = PathName.directory(dir).isEmpty ? "." : PathName.directory(dir)
                    let name = String(PathName.lastComponent(dir).dropLast(5))
                    why +=
                        "; serve the flow's folder (--flows \(shellWord(folder))), and the flow is \(Sanitizer.clean(name, keepNewlines: false)) (/play/\(Sanitizer.clean(name, keepNewlines: false)))"
                }
                say.error(why)
                return .noInput
            }
        }
        if parsed.has("--check") { return check(options, say: say) }
        // The store: an SQLite file (one server), or a PostgreSQL database that several share.
        let store: any ScenarioStore
        let archive: any ConversationStore
        switch ScenarioCommand.openStore(options.store, pageSize: ConversationArchive.pageSize) {
        case .failure(let e):
            say.error("\(e.message)")
            // A database that cannot be reached is a service that is not there (69), as sysexits says.
            return (options.store ?? Environment.current["ROCKET_STORE"]).map(PostgresURL.names) == true ? .unavailable : .ioError
        case .success(let s as PostgresScenarioStore):
            store = s
            archive = PostgresConversationArchive(beside: s)
        case .success(let s as SQLiteScenarioStore):
            store = s
            // One server a file: an SQLite store keeps no versions, so two servers on it would
            // each save their own copy of a conversation over the other's.
            if FileIO.holdExclusively(s.path) == false {
                say.error(
                    "the store \(Sanitizer.clean(s.path, keepNewlines: false)) is in use by another rocket serve; two servers on one file would overwrite each other's conversations (several servers share a postgresql:// store)"
                )
                return .unavailable
            }
            do throws(ConversationArchive.Failure) {
                archive = try ConversationArchive(beside: s)
            } catch {
                say.error("\(Sanitizer.clean(error.message, keepNewlines: false))")
                return .ioError
            }
        case .success:
            say.error("the store must be an SQLite file or a postgresql:// URL")
            return .ioError
        }
        var read: Secrets
        switch secrets(options) {
        case .failure(let failure):
            say.error("\(failure.message)")
            return failure.status
        case .success(let r): read = r
        }
        let keys = read.keys
        var secret: [UInt8]
        if let s = read.secret {
            secret = s
        } else {
            do throws(ConversationArchive.Failure) {
                let hex = try archive.setting("visitor-secret") { SHA256.hex(AccessControl.randomBytes(32)) }
                secret = Array(hex.utf8)
            } catch {
                say.error("\(Sanitizer.clean(error.message, keepNewlines: false))")
                return .ioError
            }
        }
        var configuration = options.configuration
        configuration.webhook = read.webhook
        let access = AccessControl(secret: secret, identitySecret: read.identity, keys: keys, insecureDev: options.insecureDev)
        secret = []
        read.secret = nil
        let log: @Sendable (String) -> Void = { line in say(line, .warning) }
        let flows = FlowLibrary(
            directory: options.flows, builtIn: options.flows == nil ? ["demo": Array(DemoFlow.json.utf8)] : [:],
            tours: options.flows == nil ? ["demo"] : [], log: log)
        let service = ConversationService(
            flows: flows, archive: archive, scenarios: store, clock: WallClock(), configuration: configuration, access: access, log: log)
        // The signals are taken by this thread alone: blocked before any server thread starts
        // (threads inherit the mask), then awaited.
        var set = sigset_t()
        sigemptyset(&set)
        // Every signal that would end the process stops it cleanly instead (saves written first);
        // SIGQUIT would otherwise wait in the Swift backtracer. Ctrl-Z still suspends, as a shell expects.
        for s in [SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM] { sigaddset(&set, s) }
        pthread_sigmask(SIG_BLOCK, &set, nil)
        signal(SIGPIPE, SIG_IGN)
        // Room for every stream and connection the limits allow: the soft limit on open files is
        // raised as far as the hard one lets it (a shell's default of 1,024 would cap streams).
        var files = rlimit()
        if getrlimit(Int32(RLIMIT_NOFILE.rawValue), &files) == 0, files.rlim_cur < files.rlim_max {
            let wanted = rlim_t(options.configuration.descriptorsWanted)
            files.rlim_cur = min(files.rlim_max, max(files.rlim_cur, wanted))
            _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &files)
        }
        // A service manager (systemd, Type=notify) is told when the server is ready, reloads
        // and stops, and its watchdog that the server lives.
        let manager = ServiceManagerLink(ServiceManager.current, service: service)
        let server = HTTPServer(service: service, heartbeat: manager.heartbeat)
        let host: String
        let port: Int
        do throws(HTTPServer.Failure) {
            if let socket = passed {
                (host, port) = try server.start(passedSocket: socket)
            } else {
                (host, port) = (options.host, try server.start(host: options.host, port: options.port))
            }
        } catch {
            pthread_sigmask(SIG_UNBLOCK, &set, nil)
            let cause = Sanitizer.clean(error.message, keepNewlines: false)
            say.error(passed == nil ? cause : "the socket the service manager passed: \(cause)")
            return .unavailable
        }
        let shown = host.contains(":") ? "[\(host)]" : host
        let url = "http://\(shown):\(port)/"
        printOut(url)
        manager.ready(url: url)
        say(
            "rocket serve: listening on \(url) (flows: \(Sanitizer.clean(options.flows ?? "the built-in demo", keepNewlines: false)); store: \(Sanitizer.clean(archive.place, keepNewlines: false))); Ctrl-C stops",
            .info
        )
        for warning in folderWarnings(flows) + warnings(options, keys: keys, store: archive.place) { say.warning(warning) }
        // Every flow read now, so one that cannot be served is said at the start (its errors, by
        // the library's log, once for this version of its file), not at its first visitor.
        let broken = flows.names().filter { if case .failure = flows.flow($0) { true } else { false } }
        if !broken.isEmpty {
            say.warning(
                "rocket serve: \(broken.count) of \(flows.names().count) flow(s) cannot be served until fixed (errors above; rocket lint): "
                    + broken.map { Sanitizer.clean($0, keepNewlines: false) }.listedForMessage())
        }
        var received: Int32 = 0
        while true {
            sigwait(&set, &received)
            guard received == SIGHUP else { break }
            // SIGHUP re-reads the key file: keys rotate without a restart.
            manager.reloading()
            switch siteKeys(file: options.keyFile, environment: Environment.current["ROCKET_API_KEYS"]) {
            case .failure(let failure):
                say.warning("rocket serve: the keys were kept: \(failure.message)")
                manager.reloaded("the keys were kept: \(failure.message)")
            case .success(let k):
                access.setKeys(k)
                say("rocket serve: \(k.count) site key(s) loaded", .info)
                manager.reloaded("\(k.count) site key(s) loaded")
            }
        }
        say("rocket serve: stopping", .info)
        manager.stopping()
        server.stop()
        pthread_sigmask(SIG_UNBLOCK, &set, nil)
        return ExitStatus.ok
    }
}

/// Where `rocket serve` says what it has to say, on standard error: a line of text each, or with
/// `--log-format json` one JSON object a line, `{"time", "level", "message"}` (the time in
/// RFC 3339, UTC, to the millisecond; the level `info`, `warning` or `error`), for collectors
/// that read JSON Lines. Every line is cleaned of control characters first.
struct ServeLog: Sendable {
    /// How lines are written.
    typealias Format = LogFormat

    /// How much a line matters.
    enum Level: String, Sendable {
        case info, warning, error
    }

    let format: Format

    /// Says `line` at `level`.
    func callAsFunction(_ line: String, _ level: Level) {
        let clean = Sanitizer.clean(line, keepNewlines: false)
        switch format {
        case .text: printError(clean)
        case .json:
            // The program's name, which begins every text line, says nothing in a record.
            let prefix = "rocket serve: "
            let message = clean.hasPrefix(prefix) ? String(clean.dropFirst(prefix.count)) : clean
            let time = WallTime.formatMilliseconds(WallClock().now)
            var w = JSONBytes(capacity: message.utf8.count + 80)
            w.open()
            w.key("time", first: true)
            w.string(time)
            w.key("level")
            w.string(level.rawValue)
            w.key("message")
            w.string(message)
            w.close()
            printError(String(decoding: w.out, as: UTF8.self))
        }
    }

    /// Says an error that stops the server from starting (`rocket: error: …` as text).
    func error(_ message: String) { self(format == .text ? "rocket: error: " + message : message, .error) }

    /// Says a warning.
    func warning(_ message: String) { self(message, .warning) }
}
