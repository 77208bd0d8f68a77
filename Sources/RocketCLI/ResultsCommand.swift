#if canImport(Glibc)
    import Glibc
#endif
import RocketCore
import RocketFlow
import RocketJSON
import RocketPlatform
import RocketReport
import RocketScenarios
import RocketServer

/// `rocket results`: what conversations that ended were answered, from the store `rocket serve`
/// keeps or from a server's `GET /v1/results`, as JSON Lines or CSV.
enum ResultsCommand {
    static let spec = CommandSpec(
        name: "results", abstract: "Print what conversations that ended were answered, from rocket serve's store or API, as JSON Lines.",
        positionals: [], positionalCount: 0...0,
        options: [
            .value("--store", "FILE|URL", "The store rocket serve keeps: an SQLite FILE, or a postgresql:// URL."),
            .value("--server", "URL", "Or a running rocket serve at URL (http or https), read through GET /v1/results with a site key."),
            .value("--key-file", "FILE", "With --server: the site key, the first of a key file as rocket serve reads one (default: $ROCKET_API_KEY).")
                .completing(.file),
            .value("--ca-file", "FILE", "With --server: the certificates (PEM) to trust for https (default: the system's).").completing(.file),
            .value("--flow", "NAME", "Only the flow NAME."),
            .value("--after", "N", "Only results numbered after N (the seq of the last one printed before; default 0)."),
            .value(
                "--since", "WHEN",
                "Only conversations that ended at WHEN or later: a date (2026-12-01, UTC), a time (2026-12-01T09:00:00Z) or a while ago (7d, 12h)."),
            .value("--until", "WHEN", "Only conversations that ended before WHEN (as --since; not with --follow)."),
            .flag("--csv", "Print CSV for a spreadsheet instead: a header, then one row per result, a column per answer."),
            .flag("--follow", "Keep going: print each result as the store writes it, until interrupted (JSON Lines only)."),
        ],
        discussion: """
            One line per conversation that ended, in the order the store wrote them: {"seq",
            "conversation", "flow", "visitor", "at", "reason", "variant", "answers"}, the answers by block
            id with secret answers left out (docs/SERVER.md, Storage). A conversation answered and
            left has its answers so far once it expires, with the reason "expired". The store is opened for
            reading only, beside a running server. Keep the last seq and pass it to --after to
            get only what came since. --since and --until keep the conversations that ended in
            that window (a while ago is counted once, when the command starts), read through the
            store's index of times. A --flow with no results is said on stderr, with the flows
            the results hold, and so is a window with none. With --follow it looks for new results four times a second
            (once a second from a server; as tail -f does), goes on after the store could not be
            read for a while, and ends
            when interrupted or when nobody reads its output any more. With --server URL instead of
            --store, the same pages come from a running server (GET /v1/results with the site key,
            on one kept connection; a busy answer, 429, waits its Retry-After), for a store on
            another machine.
            With --csv: the columns seq, conversation, flow, visitor, ended (ISO-8601, UTC),
            reason, variant, then one per answer id (every id the results have, by name); a multiple
            choice's titles joined by "; ". A typed text that a spreadsheet would take for a
            formula (it begins with =, +, -, @, a tab or a carriage return) begins with ' instead;
            control characters in it (escape sequences) become U+FFFD.
            """,
        exitStatus:
            "0 printed (perhaps nothing); 64 usage error; 65 the store cannot be read (not a store, not a regular file, no results yet), or the server's answer is no results page; 66 no such store; 69 the server cannot be reached; 77 the server refused the key.",
        examples: [
            "rocket results --store rocket.sqlite --flow signup > signup.jsonl",
            "rocket results --store rocket.sqlite --flow signup --csv > signup.csv",
            "rocket results --store rocket.sqlite --flow signup --since 7d --csv > last-week.csv",
            "rocket results --store rocket.sqlite --follow | jq -c .answers",
            "ROCKET_API_KEY=$(cat site-key) rocket results --server https://rocket.example --flow signup --csv > signup.csv",
        ], strayValue: .last("--store"))

    static func run(_ args: [String]) throws(UsageError) -> ExitStatus {
        let parsed = try parse(args, as: spec)
        if parsed.helpRequested { printOut(spec.help); return ExitStatus.ok }
        let source = try Source(parsed, command: spec.name)
        let flow = parsed.value("--flow")
        var after = 0
        if let text = parsed.value("--after") {
            guard text.utf8.count <= 18, let n = Int(text), n >= 0 else {
                throw UsageError(
                    message: "'--after \(Sanitizer.clean(String(text.prefix(40)), keepNewlines: false))' must be a whole number from 0 (a seq)",
                    command: spec.name)
            }
            after = n
        }
        if let flow = parsed.value("--flow"), !FlowLibrary.isName(flow) {
            throw UsageError(message: "'--flow': not a flow's name", command: spec.name)
        }
        let follow = parsed.has("--follow")
        // A while ago is counted once: every page reads the same window.
        let ended = try ReportCommand.window(parsed, now: WallClock().now, command: spec.name)
        if follow, ended?.until != nil {
            throw UsageError(message: "--until and --follow cannot go together (no result that ends from now on ends before it)", command: spec.name)
        }
        if parsed.has("--csv") {
            // A CSV's columns are every answer id of every result: unknown while more may come.
            if follow { throw UsageError(message: "--csv and --follow cannot go together (a CSV's columns come from every result)", command: spec.name) }
            return csv(from: source, flow: flow, ended: ended, after: after)
        }
        // A page at a time: the results of a busy site need not fit in memory at once.
        var read = false
        var failing = false
        var printed = false
        while true {
            switch source.page(flow: flow, ended: ended, after: after) {
            case .failure(let e):
                // Following, a store read before that cannot be read now (a database restarting)
                // is tried again every second; said once.
                guard follow, read else {
                    printError("rocket: error: \(Sanitizer.clean(e.message, keepNewlines: false))")
                    return e.status
                }
                if !failing { printError("rocket: \(Sanitizer.clean(e.message, keepNewlines: false)); trying again every second") }
                failing = true
                if FileIO.standardOutputGone(within: 1) { return ExitStatus.ok }
            case .success(let rows):
                read = true
                if failing { printError("rocket: the results can be read again") }
                failing = false
                guard let last = rows.last else {
                    if !printed { noneOf(flow, ended: ended, in: source, following: follow) }
                    printed = true  // said once, not at each wait of --follow
                    guard follow else { return ExitStatus.ok }
                    if FileIO.standardOutputGone(within: source.followInterval) { return ExitStatus.ok }
                    continue
                }
                printed = true
                var w = JSONBytes(capacity: rows.count * 256)
                for row in rows {
                    row.write(into: &w)
                    w.out.append(0x0A)
                }
                FileIO.print(String(decoding: w.out, as: UTF8.self))
                // Standard output gone (a closed pipe): no use reading on.
                if FileIO.standardOutputFailure != nil { return ExitStatus.ok }
                after = last.seq
            }
        }
    }

    /// Says on stderr that no result is of `flow` (with the flows the first page of all results
    /// holds and the nearest of them: a mistyped `--flow` printed nothing, and `--follow` waited
    /// for it for good), or ended in `ended`; nothing when neither was asked for.
    static func noneOf(_ flow: String?, ended: ReportWindow?, in source: Source, following: Bool) {
        guard flow != nil || ended != nil else { return }
        var note = "rocket results: no results" + (flow.map { " of flow \(FlowDiagnostic.quoted($0))" } ?? "")
        if let ended { note += " ended \(ended.phrase)" }
        if following { note += " yet" }
        if let flow, case .success(let rows) = source.page(flow: nil, ended: nil, after: 0) {
            let flows = Set(rows.map(\.result.flow)).sorted()
            // In a window, a flow the results hold is no typo.
            if ended == nil || !flows.contains(flow) { note += nearestAndAll(flow, among: flows, listedAs: "the results hold") }
        }
        printError(note + (following ? "; following" : ""))
    }

    /// The results as CSV: read twice, a page at a time (first the answer ids, which make the
    /// columns, then the rows), so memory holds one page and the ids.
    static func csv(from source: Source, flow: String?, ended: ReportWindow?, after: Int) -> ExitStatus {
        func pages(_ each: ([ConversationArchive.StoredResult]) -> Bool) -> ExitStatus? {
            var from = after
            while true {
                switch source.page(flow: flow, ended: ended, after: from) {
                case .failure(let e):
                    printError("rocket: error: \(Sanitizer.clean(e.message, keepNewlines: false))")
                    return e.status
                case .success(let rows):
                    guard let last = rows.last else { return nil }
                    guard each(rows) else { return ExitStatus.ok }
                    from = last.seq
                }
            }
        }
        var ids = Set<String>()
        var tooMany = false
        var any = false
        if let status = pages({ rows in
            any = true
            for row in rows { ids.formUnion(answers(of: row).map(\.key)) }
            tooMany = ids.count > maxColumns
            return !tooMany
        }) {
            return status
        }
        if tooMany {
            printError("rocket: error: the results hold more than \(maxColumns) different answer ids; give --flow NAME")
            return ExitStatus.dataError
        }
        if !any { noneOf(flow, ended: ended, in: source, following: false) }
        let columns = ids.sorted()
        var header = ["seq", "conversation", "flow", "visitor", "ended", "reason", "variant"] + columns
        header = header.map(csvCell)
        FileIO.print(header.joined(separator: ",") + "\r\n")
        return pages({ rows in
            var out = ""
            for row in rows {
                let r = row.result
                let answers = Dictionary(answers(of: row), uniquingKeysWith: { a, _ in a })
                var cells = [String(row.seq), r.id, r.flow, r.visitor, WallTime.format(r.at), r.reason, r.variant].map(csvCell)
                cells += columns.map { answers[$0].map(csvText) ?? "" }
                out += cells.joined(separator: ",") + "\r\n"
            }
            FileIO.print(out)
            return FileIO.standardOutputFailure == nil
        }) ?? ExitStatus.ok
    }

    /// The most answer ids (columns) a CSV has.
    static let maxColumns = 10_000

    /// A result's answers as (id, value) pairs ([] when they are not a JSON object).
    static func answers(of row: ConversationArchive.StoredResult) -> [(key: String, value: JSONValue)] {
        guard case .object(let members)? = try? JSONReader.parse(Array(row.result.answers.utf8)).plainValue else { return [] }
        return members.map { (key: $0.0, value: $0.1) }
    }

    /// An answer as a cell: a number as written, a list's items joined by "; ", text kept from
    /// being read as a formula.
    static func csvText(_ v: JSONValue) -> String {
        switch v {
        case .number(let n): return csvCell(JSONValue.number(n).serialized())
        case .bool(let b): return b ? "true" : "false"
        case .null: return ""
        case .string(let s): return csvCell(safeForSpreadsheets(s))
        case .array(let items):
            return csvCell(safeForSpreadsheets(items.map { if case .string(let s) = $0 { s } else { $0.serialized() } }.joined(separator: "; ")))
        case .object: return csvCell(safeForSpreadsheets(v.serialized()))
        }
    }

    /// Text a spreadsheet would run as a formula (OWASP's CSV injection) begins with `'`, and
    /// control characters (an escape sequence a visitor typed, which a terminal showing the CSV
    /// would obey) become U+FFFD, as everywhere text reaches a terminal; line breaks stay.
    static func safeForSpreadsheets(_ s: String) -> String {
        let formula = s.unicodeScalars.first.map { "=+-@\t\r".unicodeScalars.contains($0) } ?? false
        return (formula ? "'" : "") + Sanitizer.clean(s, keepNewlines: true)
    }

    /// A CSV cell (RFC 4180): quoted when it holds a comma, a quote or a line break.
    static func csvCell(_ s: String) -> String {
        guard s.utf8.contains(where: { $0 == 0x2C || $0 == 0x22 || $0 == 0x0A || $0 == 0x0D }) else { return s }
        return "\"" + s.replacingAll("\"", with: "\"\"") + "\""
    }

    /// Where results are read from, a page at a time.
    enum Source {
        /// A store, opened for reading only for each page.
        case store(String)
        /// A running server's `GET /v1/results`.
        case server(SiteServer)

        /// Seconds `--follow` waits before it looks again when nothing was new: a quarter of a
        /// second in a store (a look is a query of its newest rows, through their index), a
        /// second from a server (a request it counts against the address's rate).
        var followInterval: Double {
            switch self {
            case .store: return 0.25
            case .server: return 1
            }
        }

        /// Why a page could not be read, and the exit status that says so.
        typealias Failure = SiteServer.Failure

        /// The source `--store` or `--server` names (one of them, never both).
        init(_ parsed: ParsedArguments, command: String) throws(UsageError) {
            try SiteServer.refuseClientFlags(parsed, command: command)
            switch (parsed.value("--store"), parsed.value("--server")) {
            case (let store?, nil):
                self = .store(store)
            case (nil, let url?):
                self = .server(try SiteServer(url: url, parsed, command: command))
            case (nil, nil): throw UsageError(message: "--store FILE|URL or --server URL is required", command: command)
            case (_?, _?): throw UsageError(message: "--store and --server cannot go together", command: command)
            }
        }

        /// The results after `after` (of `flow` only, when given; ended in `ended` only, when
        /// given), one page.
        func page(flow: String?, ended: ReportWindow?, after: Int) -> Result<[ConversationArchive.StoredResult], Failure> {
            switch self {
            case .store(let store):
                return ConversationArchive.results(
                    store: store, flow: flow, ended: ended, after: after, limit: 1000, maxBytes: RocketLimits.resultPageBytes
                )
                .mapError { Failure(message: $0.message, status: $0.missing ? ExitStatus.noInput : ExitStatus.dataError) }
            case .server(let server):
                let query = "/v1/results?after=\(after)&limit=1000" + (flow.map { "&flow=" + $0 } ?? "") + SiteServer.query(ended)
                return server.get(query, maxBody: 4 * RocketLimits.resultPageBytes).flatMap { body in
                    guard let rows = Self.results(body) else {
                        return .failure(Failure(message: "the answer of \(server.shown) is not a page of results", status: .dataError))
                    }
                    return .success(rows)
                }
            }
        }

        /// The results of a page `GET /v1/results` answered (`{"results": [...], "next": N}`),
        /// nil when it is not one.
        static func results(_ body: [UInt8]) -> [ConversationArchive.StoredResult]? {
            guard case .object(let members)? = try? JSONReader.parse(body).plainValue,
                case .array(let items)? = members.first(where: { $0.0 == "results" })?.1
            else { return nil }
            var rows: [ConversationArchive.StoredResult] = []
            for item in items {
                guard case .object(let fields) = item else { return nil }
                let field = Dictionary(fields, uniquingKeysWith: { a, _ in a })
                guard case .number(let seq)? = field["seq"], seq >= 0, seq < 9e15, seq == seq.rounded(),
                    case .string(let id)? = field["conversation"], case .string(let flow)? = field["flow"],
                    case .string(let visitor)? = field["visitor"], case .number(let at)? = field["at"],
                    case .string(let reason)? = field["reason"], case .object? = field["answers"], let answers = field["answers"]
                else { return nil }
                var variant = ""
                if case .string(let v)? = field["variant"] { variant = v }
                rows.append(
                    ConversationArchive.StoredResult(
                        seq: Int(seq),
                        result: ConversationArchive.ResultRow(
                            id: id, flow: flow, visitor: visitor, at: at, reason: reason, answers: answers.serialized(), variant: variant)))
            }
            return rows
        }
    }
}
