#if canImport(Glibc)
    import Glibc
#endif
import RocketCore
import RocketFlow
import RocketJSON
import RocketPlatform
import RocketReport
import RocketScenarioEngine
import RocketServer
import RocketTerminalApps
import RocketTerminalCore

/// `rocket report`: what the event records say, per flow and variant.
enum ReportCommand {
    static let spec = CommandSpec(
        name: "report", abstract: "Report on event records: starts, completions, a funnel over blocks, the options chosen, and experiments' variants compared.",
        positionals: [("EVENTS.jsonl", "Event records as JSON Lines (rocket play --events; - for standard input).")], positionalCount: 0...1000,
        options: [
            .value("--events", "FILE", "Read event records from FILE as well (repeatable; - for standard input).", repeatable: true),
            .value("--store", "FILE|URL", "Read the records rocket serve keeps in its store: an SQLite FILE, or a postgresql:// URL."),
            .value("--server", "URL", "Or the report of a running rocket serve at URL (http or https), read through GET /v1/report with a site key."),
            .value("--key-file", "FILE", "With --server: the site key, the first of a key file as rocket serve reads one (default: $ROCKET_API_KEY).")
                .completing(.file),
            .value("--ca-file", "FILE", "With --server: the certificates (PEM) to trust for https (default: the system's).").completing(.file),
            .value("--flow", "NAME", "Only the flow NAME."),
            .value(
                "--by", "ROWS",
                "variant (default: an experiment's variants), version (the flow's versions, oldest first: what an edit changed), or day or week (UTC, oldest first: a trend)."
            )
            .completing(.words(ReportGrouping.allCases.map(\.rawValue))),
            .value(
                "--against", "VARIANT",
                "Compare every variant (or version, day or week) with VARIANT instead of the first by name (by version, day or week: the oldest)."),
            .value("--min-count", "N", "Hide counts of fewer than N conversations (default 5; 1 shows all)."),
            .value(
                "--since", "WHEN",
                "Only conversations begun at WHEN or later: a date (2026-12-01, UTC), a time (2026-12-01T09:00:00Z) or a while ago (7d, 12h)."),
            .value("--until", "WHEN", "Only conversations begun before WHEN (as --since)."),
            .flag("--json", "Print the report as JSON (docs/REPORTS.md describes every field); --format json."),
            .value(
                "--format", Output.allCases.map(\.rawValue).joined(separator: "|"),
                "text (default), json (as --json) or markdown: GitHub-flavoured tables, for a pull request or a CI job's summary."
            )
            .completing(.words(Output.allCases.map(\.rawValue))),
            .value("--html", "FILE", "Write the report as a self-contained HTML page with charts to FILE (- for standard output)."),
        ],
        discussion: """
            Reads every record once, holding only counts, the conversations still open and the times to
            answer. Reports hold counts and durations only: never typed text or variables' values.
            A conversation that never ended counts as dropped at the last block it showed.
            Options chosen (buttons, choices, ratings) count each conversation's last answer; an
            option is named by a title only when at least --min-count conversations saw that title.
            With --server URL, the server makes the report of the records it keeps (GET /v1/report,
            with --flow, --by, --against, --min-count and the window as instants this command
            counted) and this command prints it in the format asked for, for a store on another
            machine.
            """,
        exitStatus:
            "0 reported; 64 usage error; 65 a record is not an event record (FILE:LINE:COL names it), or the server's answer is no report; 66 a file cannot be read; 69 the server cannot be reached; 74 --html cannot be written; 77 the server refused the key.",
        examples: [
            "rocket play examples/welcome.json --events - >> events.jsonl; rocket report events.jsonl",
            "rocket report --store rocket.sqlite --flow welcome --json",
            "rocket report events.jsonl --html report.html --min-count 20",
            "rocket report --store rocket.sqlite --flow welcome --by version",
            "rocket report --store rocket.sqlite --format markdown >> \"$GITHUB_STEP_SUMMARY\"",
            "ROCKET_API_KEY=$(cat site-key) rocket report --server https://rocket.example --since 7d --format markdown",
        ])

    /// What `rocket report` prints on standard output: `--format text|json|markdown`, with
    /// `--json` the short form of `--format json`.
    enum Output: String, CaseIterable {
        /// Tables within the terminal's width.
        case text
        /// One JSON document (docs/REPORTS.md).
        case json
        /// GitHub-flavoured Markdown.
        case markdown

        /// The format asked for (with `--html FILE`, nothing else is printed unless one was).
        init(_ parsed: ParsedArguments, command: String) throws(UsageError) {
            self = try chosenFormat(parsed, command: command, json: .json, fallback: .text)
        }
    }

    static func run(_ args: [String]) throws(UsageError) -> ExitStatus {
        let parsed = try parse(args, as: spec)
        if parsed.helpRequested { printOut(spec.help); return ExitStatus.ok }
        let inputs = parsed.positionals + parsed.all("--events")
        let store = parsed.value("--store")
        let serverURL = parsed.value("--server")
        guard !inputs.isEmpty || store != nil || serverURL != nil else {
            throw UsageError(message: "give event records: FILE..., --events FILE, --store FILE or --server URL", command: spec.name)
        }
        if serverURL != nil, !inputs.isEmpty || store != nil {
            throw UsageError(message: "--server reports on the records the server keeps: give no FILE, --events or --store with it", command: spec.name)
        }
        try SiteServer.refuseClientFlags(parsed, command: spec.name)
        if inputs.count(where: { $0 == "-" }) > 1 { throw UsageError(message: "- (standard input) may be given once", command: spec.name) }
        var options = ReportOptions()
        options.minCount = try PromptCommands.count(parsed, "--min-count", command: spec.name, range: 1...1_000_000) ?? 5
        options.flow = parsed.value("--flow")
        options.against = parsed.value("--against")
        let html = parsed.value("--html")
        let output = try Output(parsed, command: spec.name)
        let outputAsked = parsed.has("--json") || parsed.value("--format") != nil
        if html == "-" && outputAsked {
            throw UsageError(
                message: "--\(output == .json && parsed.has("--json") ? "json" : "format \(output.rawValue)") and --html - both write to standard output",
                command: spec.name)
        }

        var grouping = ReportGrouping.variant
        if let by = parsed.value("--by") {
            guard let g = ReportGrouping(rawValue: by) else { throw UsageError(message: "--by must be \(ReportGrouping.phrase)", command: spec.name) }
            grouping = g
        }
        var builder = ReportBuilder(by: grouping)
        builder.window = try window(parsed, now: WallClock().now, command: spec.name)
        if let serverURL {
            let server = try SiteServer(url: serverURL, parsed, command: spec.name)
            switch remote(server, options: options, grouping: grouping, window: builder.window) {
            case .failure(let e):
                printError("rocket: error: \(Sanitizer.clean(e.message, keepNewlines: false))")
                return e.status
            case .success(let report):
                // A flow with no conversations: the nearest of the flows the server offers.
                let seen = options.flow != nil && report.flows.isEmpty ? offered(by: server) : []
                return show(report, options: options, seen: seen, html: html, output: output, outputAsked: outputAsked)
            }
        }
        for (k, path) in inputs.enumerated() {
            var failure: ReportInputError?
            let read = FileIO.forEachLine(path, maxLineBytes: RocketLimits.reportRecordBytes) { line, number in
                do throws(ReportInputError) {
                    try builder.addLine(line, input: k, line: number)
                    return true
                } catch {
                    failure = error
                    return false
                }
            }
            if case .failure(let e) = read {
                printError("rocket: error: cannot read '\(Sanitizer.clean(displayName(path), keepNewlines: false))': \(e.reason)")
                return e.isContent ? ExitStatus.dataError : ExitStatus.noInput
            }
            if let failure {
                let name = Sanitizer.clean(displayName(path), keepNewlines: false)
                // A store given as a file of records: its first line is SQLite's header.
                if failure.line == 1, path != "-", case .success(let head) = FileIO.head(path, count: 16), isSQLiteFile(head) {
                    printError("\(name): error: an SQLite store, not event records: read it with --store \(shellWord(path))")
                } else {
                    printError("\(name):\(failure.line):\(failure.column): error: \(failure.message)")
                }
                return ExitStatus.dataError
            }
            builder.finishInput(k)
        }
        if let store {
            switch ConversationArchive.readRecords(store: store, flow: options.flow, into: &builder) {
            case .success: break
            case .failure(let e):
                printError("rocket: error: \(e.message)")
                return e.missing ? ExitStatus.noInput : ExitStatus.dataError
            }
        }
        return show(builder.report(options), options: options, seen: builder.flowNames, html: html, output: output, outputAsked: outputAsked)
    }

    /// The report a server made of its records (`GET /v1/report` with these options, the window's
    /// bounds as the instants this command counted).
    static func remote(_ server: SiteServer, options: ReportOptions, grouping: ReportGrouping, window: ReportWindow?) -> Result<Report, SiteServer.Failure> {
        var query = ["minCount=\(options.minCount)", "by=" + grouping.rawValue]
        if let flow = options.flow { query.append("flow=" + FilePath.percentEncoded(flow)) }
        if let against = options.against { query.append("against=" + FilePath.percentEncoded(against)) }
        return server.get("/v1/report?" + query.joined(separator: "&") + SiteServer.query(window), maxBody: RocketLimits.reportAnswerBytes).flatMap { body in
            guard let report = Report(json: body) else {
                return .failure(SiteServer.Failure(message: "the answer of \(server.shown) is not a report", status: .dataError))
            }
            return .success(report)
        }
    }

    /// The flows `server` offers (`GET /v1/flows`); none when it does not say.
    static func offered(by server: SiteServer) -> [String] {
        guard case .success(let body) = server.get("/v1/flows", maxBody: 1 << 20),
            case .object(let top)? = try? JSONReader.parse(body).plainValue,
            case .array(let names)? = top.first(where: { $0.0 == "flows" })?.1
        else { return [] }
        return names.compactMap { if case .string(let name) = $0 { name } else { nil } }
    }

    /// Says `report`'s notes on stderr, writes its page to `html` (when given) and prints it in
    /// `output` (with a page, only when a format was asked for).
    static func show(_ report: Report, options: ReportOptions, seen: [String], html: String?, output: Output, outputAsked: Bool) -> ExitStatus {
        for note in notes(report, options, seen: seen) { printError("rocket report: " + note) }
        if let html {
            if html == "-" {
                FileIO.print(report.html)
            } else if case .failure(let e) = FileIO.writeAtomically(report.html, to: html, access: .umask) {
                printError("rocket: error: cannot write '\(Sanitizer.clean(html, keepNewlines: false))': \(e.reason)")
                return ExitStatus.ioError
            }
            guard outputAsked else { return ExitStatus.ok }
        }
        switch output {
        case .json: printOut(report.json)
        case .markdown: printOut(markdown(report))
        case .text: printOut(table(report, width: outputWidth()))
        }
        return ExitStatus.ok
    }

    /// The window of time `--since` and `--until` give (nil: neither), a while ago counted back
    /// from `now` (seconds since 1970): the beginnings `rocket report` counts, the ends of the
    /// results `rocket results` prints (a usage error of `command` when a bound is no good).
    static func window(_ parsed: ParsedArguments, now: Double, command: String) throws(UsageError) -> ReportWindow? {
        switch ConversationService.timeWindow(since: parsed.value("--since"), until: parsed.value("--until"), now: now) {
        case .success(let window): return window
        case .failure(let refusal): throw UsageError(message: refusal.message(commandLine: true), command: command)
        }
    }

    /// What the report leaves unsaid about its options, for stderr: a `--flow` that names no
    /// flow of the records (with the nearest name, and those there are), and an `--against`
    /// that names no row of a flow (which is then compared against its first, as without it).
    static func notes(_ report: Report, _ options: ReportOptions, seen: [String]) -> [String] {
        var out: [String] = []
        func quoted(_ s: String) -> String { FlowDiagnostic.quoted(s) }
        if let flow = options.flow, report.flows.isEmpty {
            out.append(
                "no conversations of flow \(quoted(flow)) in these records" + nearestAndAll(flow, among: seen.filter { !$0.isEmpty }, listedAs: "flows:"))
        }
        if let against = options.against {
            let kind = ReportFormat.rowKind(report.grouping)
            for flow in report.flows where !flow.variants.contains(where: { $0.variant == against }) {
                let rows = flow.variants.map { quoted(ReportFormat.variantName($0.variant, by: report.grouping)) }
                let used = flow.variants.dropFirst().isEmpty ? nil : flow.variants.first { $0.variant != "holdout" }
                let said = used.map { "; compared against \(quoted(ReportFormat.variantName($0.variant, by: report.grouping)))" } ?? ""
                let name = flow.flow.isEmpty ? "(unnamed)" : flow.flow
                out.append("flow \(quoted(name)) has no \(kind) \(quoted(against)) (\(kind)s: \(rows.listedForMessage()))\(said)")
            }
        }
        return out
    }

    /// The width of the terminal stdout writes to; `COLUMNS`, or 100, when it is not one.
    static func outputWidth() -> Int {
        var ws = winsize()
        if isatty(1) == 1, ioctl(1, UInt(TIOCGWINSZ), &ws) == 0, ws.ws_col > 0 { return Int(ws.ws_col) }
        if let c = Environment.current["COLUMNS"], let n = Int(c), n > 0 { return min(n, 1000) }
        return 100
    }

    // MARK: The report as text and as Markdown

    /// A part of the report as text or Markdown says it: both are drawn from one list of these,
    /// so the two never say different things.
    enum Piece: Equatable {
        /// The count of records, and what is hidden under `--min-count` (empty: nothing).
        case records(String, hidden: String)
        /// A line of its own.
        case note(String)
        /// A flow's heading (level 1), or a variant's funnel or answers (level 2).
        case heading(String, level: Int)
        /// A table: the first `textColumns` columns are text, the rest numbers.
        case table(head: [String], rows: [[String]], textColumns: Int)
        /// `label: a, b, c`.
        case items(label: String, [String])
    }

    /// What the report says, in order: per flow its rows (variants), dismissals, and per row a
    /// funnel, the options chosen and the ratings; then per row where its expressions failed.
    static func pieces(_ report: Report) -> [Piece] {
        let m = report.minCount
        let c = { (n: Int?) in ReportFormat.count(n, minCount: m) }
        var out: [Piece] = [.records(ReportFormat.recordsRead(report), hidden: m > 1 ? "counts from 1 to \(m - 1) hidden (<\(m))" : "")]
        if report.flows.isEmpty { return out + [.note(ReportFormat.nothingCounted(report))] }
        for flow in report.flows {
            out.append(.heading("Flow \(clean(flow.flow.isEmpty ? "(unnamed)" : flow.flow))", level: 1))
            // The comparison's columns only where there is a comparison.
            let compared = flow.variants.contains { $0.comparison != nil }
            let exposed = flow.hasExposures
            var head = [ReportFormat.rowKind(report.grouping)] + (exposed ? ["exposures"] : []) + ["starts", "completions", "rate"]
            if compared { head += ["difference (95% CI)", "p", "needed"] }
            var rows: [[String]] = []
            for v in flow.variants {
                var row =
                    [clean(ReportFormat.variantName(v.variant, by: report.grouping))] + (exposed ? [c(v.exposures)] : [])
                    + [c(v.starts), c(v.completions), ReportFormat.percent(v.completionRate)]
                if compared {
                    row += [
                        ReportFormat.difference(v.comparison), ReportFormat.pValue(v.comparison),
                        v.comparison?.statistics.neededPerVariant.map(ReportFormat.grouped) ?? "–",
                    ]
                }
                rows.append(row)
            }
            out.append(.table(head: head, rows: rows, textColumns: 1))
            if let holm = ReportFormat.holm(flow, by: report.grouping) { out.append(.items(label: holm.label, holm.items.map(clean))) }
            for v in flow.variants where !v.dismissals.isEmpty {
                let label =
                    v.variant.isEmpty && report.grouping == .variant
                    ? "dismissed" : "dismissed (\(clean(ReportFormat.variantName(v.variant, by: report.grouping))))"
                out.append(.items(label: label, v.dismissals.map { "\(clean($0.reason)) \(c($0.count))" }))
            }
            for v in flow.variants where !v.blocks.isEmpty {
                let name = clean(ReportFormat.variantName(v.variant, by: report.grouping))
                out.append(.heading("Funnel \(name)", level: 2))
                let rows = v.blocks.map { b in
                    [
                        clean(b.id), c(b.reached), c(b.answered),
                        c(b.dropped) + (ReportFormat.dropShare(b).map { " (\(ReportFormat.percent($0)))" } ?? ""),
                        ReportFormat.seconds(b.medianSecondsToAnswer),
                    ]
                }
                out.append(.table(head: ["block", "reached", "answered", "dropped here", "median answer"], rows: rows, textColumns: 1))
                // Per block that offers options: each option's count and share of the answers.
                var answers: [[String]] = []
                for b in v.blocks {
                    for a in b.answers {
                        answers.append([
                            clean(b.id), clean(ReportFormat.optionName(a, of: b)), c(a.count), ReportFormat.percent(ReportFormat.answerShare(a, of: b)),
                        ])
                    }
                }
                if !answers.isEmpty {
                    out.append(.heading("Answers \(name)", level: 2))
                    out.append(.table(head: ["block", "answer", "chosen", "share"], rows: answers, textColumns: 2))
                }
                // Per rating: the mean, and a 0–10 question's Net Promoter Score.
                for b in v.blocks {
                    guard let r = b.rating else { continue }
                    out.append(.items(label: clean(b.id), [ReportFormat.rating(r, minCount: m)]))
                }
            }
            // Where its expressions failed: the flow's author's to mend.
            for v in flow.variants where !v.errors.isEmpty {
                out.append(.heading("Errors \(clean(ReportFormat.variantName(v.variant, by: report.grouping)))", level: 2))
                let rows = v.errors.map { e in
                    [clean(e.block.isEmpty ? "–" : e.block), clean(e.path.isEmpty ? "–" : e.path), clean(e.code), c(e.conversations)]
                }
                out.append(.table(head: ["block", "where", "error", "conversations"], rows: rows, textColumns: 3))
            }
        }
        return out
    }

    /// The report as text within `width` columns: a table per flow (variants), and a funnel per
    /// variant; rows that would not fit become one "name: value" line each.
    static func table(_ report: Report, width: Int) -> String {
        var out = ""
        for piece in pieces(report) {
            switch piece {
            case .records(let records, let hidden):
                out +=
                    hidden.isEmpty
                    ? wrap(records, width: width)
                    : DisplayWidth.of(records + "; " + hidden) <= width
                        ? records + "; " + hidden + "\n" : wrap(records, width: width) + wrap(hidden, width: width)
            case .note(let text): out += wrap(text, width: width)
            case .heading(let text, let level): out += level == 1 ? "\n\(text)\n" : "\n  \(text)\n"
            case .table(let head, let rows, let textColumns): out += layout(head, rows, width: width, textColumns: textColumns)
            case .items(let label, let items): out += fill("  \(label): ", items, width: width)
            }
        }
        return out
    }

    /// The report as GitHub-flavoured Markdown (`--format markdown`), for a pull request, an
    /// issue or a CI job's summary (`>> "$GITHUB_STEP_SUMMARY"`): a heading per flow, its tables
    /// with the numbers aligned right. Every text that came from the records is escaped, so a
    /// block id or an option's title cannot add a link, a picture, HTML or a column.
    static func markdown(_ report: Report) -> String {
        var out: [String] = []
        for piece in pieces(report) {
            switch piece {
            case .records(let records, let hidden): out.append(markdownEscaped(hidden.isEmpty ? records : records + "; " + hidden, startsLine: true))
            case .note(let text): out.append(markdownEscaped(text, startsLine: true))
            case .heading(let text, let level): out.append(String(repeating: "#", count: level + 1) + " " + markdownEscaped(text))
            case .table(let head, let rows, let textColumns):
                func line(_ cells: [String]) -> String { "| " + cells.map { markdownEscaped($0) }.joined(separator: " | ") + " |" }
                let rule = "|" + head.indices.map { $0 < textColumns ? " :-- |" : " --: |" }.joined()
                out.append(([line(head), rule] + rows.map(line)).joined(separator: "\n"))
            case .items(let label, let items): out.append(markdownEscaped(label + ": " + items.joined(separator: ", "), startsLine: true))
            }
        }
        return out.joined(separator: "\n\n") + "\n"
    }

    /// `text` with what Markdown (CommonMark and GitHub's tables) would read as markup escaped by
    /// a backslash, so it reads as written: emphasis, code, links and pictures, HTML and entities,
    /// a table's column, a heading's closing `#`, and (for a paragraph, `startsLine`) a list's
    /// or heading's mark at its start.
    static func markdownEscaped(_ text: String, startsLine: Bool = false) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        let leadingDigits = text.prefix { $0.isASCII && $0.isNumber }.count
        for (k, c) in text.enumerated() {
            let always = "\\`*_[]<>|~&#!".contains(c)
            let atStart = startsLine && k == 0 && "-+=".contains(c)
            let listNumber = startsLine && k == leadingDigits && k > 0 && (c == "." || c == ")")
            if always || atStart || listNumber { out.append("\\") }
            out.append(c)
        }
        return out
    }

    private static func clean(_ s: String) -> String { Sanitizer.clean(s, keepNewlines: false) }

    /// Columns padded to their widest cell (the first `textColumns` left-aligned, the numbers
    /// after them right-aligned), indented by two; when that is wider than `width`, each row as
    /// "header: value" lines.
    static func layout(_ head: [String], _ rows: [[String]], width: Int, textColumns: Int = 1) -> String {
        var widths = head.map { DisplayWidth.of($0) }
        for row in rows {
            for (k, cell) in row.enumerated() { widths[k] = max(widths[k], DisplayWidth.of(cell)) }
        }
        let total = 2 + widths.reduce(0, +) + 2 * (widths.count - 1)
        if total <= width {
            func line(_ cells: [String]) -> String {
                var s = "  "
                for (k, cell) in cells.enumerated() {
                    let pad = String(repeating: " ", count: widths[k] - DisplayWidth.of(cell))
                    s += (k == 0 ? "" : "  ") + (k < textColumns ? cell + pad : pad + cell)
                }
                return s + "\n"
            }
            return ([line(head)] + rows.map(line)).joined()
        }
        var out = ""
        for row in rows {
            out += wrap("  " + row[0], width: width)
            for k in 1..<row.count { out += wrap("    \(head[k]): \(row[k])", width: width) }
        }
        return out
    }

    /// `items` after `label`, separated by commas, continued on lines indented by four when they
    /// would pass `width`.
    private static func fill(_ label: String, _ items: [String], width: Int) -> String {
        var out = "", line = label
        for (k, item) in items.enumerated() {
            let piece = item + (k < items.count - 1 ? "," : "")
            if DisplayWidth.of(line) + 1 + DisplayWidth.of(piece) > width, line != label, line != "    " {
                out += line + "\n"
                line = "    "
            }
            line += (line == label || line == "    " ? "" : " ") + piece
        }
        return out + wrap(line, width: width)
    }

    /// `text` in lines of at most `width` columns, broken between words, each ending in a
    /// newline: the lines after the first indented four more than it (a report's words are
    /// results, never cut off).
    private static func wrap(_ text: String, width: Int) -> String {
        guard DisplayWidth.of(text) > width else { return text + "\n" }
        let indent = String(text.prefix { $0 == " " })
        let lines = TextWrap.wrap(String(text.dropFirst(indent.count)), width: max(8, width - indent.count - 4))
        return lines.enumerated().map { (k, line) in (k == 0 ? indent : indent + "    ") + line + "\n" }.joined()
    }
}
