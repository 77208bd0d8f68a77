import RocketCore
import RocketJSON
import RocketPlatform
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
        ],
        discussion: """
            One line per conversation that ended, in the order the store wrote them: {"seq",
            "conversation", "flow", "visitor", "at", "reason", "answers"}, the answers by block
            id with secret answers left out (docs/SERVER.md, Storage). The store is opened for
            reading only, beside a running server. Keep the last seq and pass it to --after to
            get only what came since.
            """,
        exitStatus:
            "0 printed (perhaps nothing); 64 usage error; 65 the store cannot be read (not a store, not a regular file, no results yet); 66 no such store.",
        examples: [
            "rocket results --store rocket.sqlite --flow signup > signup.jsonl",
            "rocket results --store rocket.sqlite | jq -r '[.conversation, .answers.email] | @csv'",
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
        // A page at a time: the results of a busy site need not fit in memory at once.
        while true {
            switch ConversationArchive.results(store: store, flow: flow, after: after, limit: 1000, maxBytes: RocketLimits.resultPageBytes) {
            case .failure(let e):
                printError("rocket: error: \(Sanitizer.clean(e.message, keepNewlines: false))")
                return e.missing ? ExitStatus.noInput : ExitStatus.dataError
            case .success(let rows):
                guard let last = rows.last else { return ExitStatus.ok }
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
}
