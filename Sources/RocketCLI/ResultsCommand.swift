import RocketCore
import RocketJSON
import RocketPlatform
import RocketScenarios
import RocketServer

/// `rocket results`: what conversations that ended were answered, from the store `rocket serve`
/// keeps (what `GET /v1/results` answers), as JSON Lines.
enum ResultsCommand {
    static let spec = CommandSpec(
        name: "results", abstract: "Print what conversations that ended were answered, from rocket serve's store, as JSON Lines.",
        positionals: [], positionalCount: 0...0,
        options: [
            .value("--store", "FILE|URL", "The store rocket serve keeps: an SQLite FILE, or a postgresql:// URL (required)."),
            .value("--flow", "NAME", "Only the flow NAME."),
            .value("--after", "N", "Only results numbered after N (the seq of the last one printed before; default 0)."),
            .flag("--csv", "Print CSV for a spreadsheet instead: a header, then one row per result, a column per answer."),
            .flag("--follow", "Keep going: print each result as the store writes it, until interrupted (JSON Lines only)."),
        ],
        discussion: """
            One line per conversation that ended, in the order the store wrote them: {"seq",
            "conversation", "flow", "visitor", "at", "reason", "variant", "answers"}, the answers by block
            id with secret answers left out (docs/SERVER.md, Storage). A conversation answered and
            left has its answers so far once it expires, with the reason "expired". The store is opened for
            reading only, beside a running server. Keep the last seq and pass it to --after to
            get only what came since. With --follow it looks for new results every second
            (as tail -f does), goes on after the store could not be read for a while, and ends
            when interrupted or when nobody reads its output any more.
            With --csv: the columns seq, conversation, flow, visitor, ended (ISO-8601, UTC),
            reason, variant, then one per answer id (every id the results have, by name); a multiple
            choice's titles joined by "; ". A typed text that a spreadsheet would take for a
            formula (it begins with =, +, -, @, a tab or a carriage return) begins with ' instead;
            control characters in it (escape sequences) become U+FFFD.
            """,
        exitStatus:
            "0 printed (perhaps nothing); 64 usage error; 65 the store cannot be read (not a store, not a regular file, no results yet); 66 no such store.",
        examples: [
            "rocket results --store rocket.sqlite --flow signup > signup.jsonl",
            "rocket results --store rocket.sqlite --flow signup --csv > signup.csv",
            "rocket results --store rocket.sqlite --follow | jq -c .answers",
        ])

    static func run(_ args: [String]) throws(UsageError) -> ExitStatus {
        let parsed = try parse(args, as: spec)
        if parsed.helpRequested { printOut(spec.help); return ExitStatus.ok }
        guard let store = parsed.value("--store") else { throw UsageError(message: "--store FILE|URL is required", command: spec.name) }
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
        if parsed.has("--csv") {
            // A CSV's columns are every answer id of every result: unknown while more may come.
            if follow { throw UsageError(message: "--csv and --follow cannot go together (a CSV's columns come from every result)", command: spec.name) }
            return csv(store: store, flow: flow, after: after)
        }
        // A page at a time: the results of a busy site need not fit in memory at once.
        var read = false
        var failing = false
        while true {
            switch ConversationArchive.results(store: store, flow: flow, after: after, limit: 1000, maxBytes: RocketLimits.resultPageBytes) {
            case .failure(let e):
                // Following, a store read before that cannot be read now (a database restarting)
                // is tried again every second; said once.
                guard follow, read else {
                    printError("rocket: error: \(Sanitizer.clean(e.message, keepNewlines: false))")
                    return e.missing ? ExitStatus.noInput : ExitStatus.dataError
                }
                if !failing { printError("rocket: \(Sanitizer.clean(e.message, keepNewlines: false)); trying again every second") }
                failing = true
                if FileIO.standardOutputGone(within: 1) { return ExitStatus.ok }
            case .success(let rows):
                read = true
                if failing { printError("rocket: the store can be read again") }
                failing = false
                guard let last = rows.last else {
                    guard follow else { return ExitStatus.ok }
                    if FileIO.standardOutputGone(within: 1) { return ExitStatus.ok }
                    continue
                }
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

    /// The results as CSV: read twice, a page at a time (first the answer ids, which make the
    /// columns, then the rows), so memory holds one page and the ids.
    static func csv(store: String, flow: String?, after: Int) -> ExitStatus {
        func pages(_ each: ([ConversationArchive.StoredResult]) -> Bool) -> ExitStatus? {
            var from = after
            while true {
                switch ConversationArchive.results(store: store, flow: flow, after: from, limit: 1000, maxBytes: RocketLimits.resultPageBytes) {
                case .failure(let e):
                    printError("rocket: error: \(Sanitizer.clean(e.message, keepNewlines: false))")
                    return e.missing ? ExitStatus.noInput : ExitStatus.dataError
                case .success(let rows):
                    guard let last = rows.last else { return nil }
                    guard each(rows) else { return ExitStatus.ok }
                    from = last.seq
                }
            }
        }
        var ids = Set<String>()
        var tooMany = false
        if let status = pages({ rows in
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
}
