/// Every limit a user or a client can meet, stated once. The code refers to these constants
/// (RocketJSON, which depends on nothing, keeps its own defaults and a test holds them equal),
/// and docs/SEMANTICS.md's table of limits is made from ``table`` (a test compares it).
///
/// ```swift
/// RocketLimits.flowFileBytes   // 100_663_296 (96 MiB)
/// RocketLimits.table.count     // every limit, with what it bounds and what happens past it
/// ```
public enum RocketLimits {
    // MARK: Files

    /// The largest flow file (room for a flow of a million blocks).
    public static let flowFileBytes = 96 << 20
    /// The largest other file read: pictures, `--state` snapshots, imports, the store's companions.
    public static let fileBytes = 64 << 20
    /// The largest flow file `rocket serve` loads.
    public static let servedFlowFileBytes = 16 << 20
    /// The largest picture `rocket serve` sends.
    public static let servedPictureBytes = 8 << 20
    /// The most picture files of one served flow whose size is read from their headers when the
    /// flow is loaded (sent as `imageSize`, so a page keeps each picture's room).
    public static let measuredPictures = 1_000
    /// The most pixels of a decoded picture (checked in its header, before any pixel is decoded).
    public static let picturePixels = 4096 * 4096

    // MARK: JSON

    /// The deepest nesting of arrays and objects.
    public static let jsonDepth = 64
    /// The longest string in a JSON file or body, in bytes of UTF-8.
    public static let jsonStringBytes = 64 << 10
    /// The longest number, in characters.
    public static let jsonNumberCharacters = 64

    // MARK: Conversations

    /// The longest text a conversation renders (a block's text with its placeholders filled),
    /// and so the longest string a snapshot holds.
    public static let renderedTextBytes = 256 << 10
    /// The longest line read from a terminal or a pipe (an answer, a pasted text).
    public static let lineBytes = 65_536
    /// The most options of a `choice` block.
    public static let choiceOptions = 100
    /// The most options of `rocket choose`, as arguments or lines of standard input.
    public static let chooseOptions = 10_000
    /// The most different scenarios a `rocket scenario simulate` timeline may trigger (each
    /// holds statistics in memory for the whole run).
    public static let simulatedScenarios = 10_000
    /// The most bytes of options `rocket choose` reads from standard input, all lines together
    /// (10,000 options of 64 KiB would otherwise hold 600 MiB, twice over while they are read).
    public static let chooseInputBytes = 16 << 20
    /// The most bytes of `rocket serve --access-log` lines held while standard error is slower
    /// than the answers (a stalled log collector never stalls a request).
    public static let accessLogBufferBytes = 1 << 20
    /// The most bytes of a request's path an access log line gives (a longer one ends in `...`).
    public static let accessLogPathBytes = 512
    /// The most backtracking steps a pattern may take on one answer.
    public static let patternSteps = 1_000_000
    /// The deepest recursion of a pattern match.
    public static let patternDepth = 10_000
    /// The most backtracking steps of `matches(…)` in an expression: far fewer than an answer's
    /// validation may take, as a run of silent blocks may evaluate a thousand expressions in one
    /// step of a conversation.
    public static let expressionPatternSteps = 10_000
    /// The backtracking steps all `matches(…)` of one conversation may take, over its whole life:
    /// as many as one answer's validation (`patternSteps`), so a loop of timed and silent blocks
    /// matching a hostile answer costs no more than a hostile answer to a `validate.pattern`. A
    /// match is charged what it may take: `expressionPatternProbeSteps` when it finishes within
    /// them, else those and `expressionPatternSteps`.
    public static let conversationPatternSteps = patternSteps
    /// The steps a match of `matches(…)` is first tried with (and charged, when it finishes):
    /// most patterns on most texts need from a few to a few dozen.
    public static let expressionPatternProbeSteps = 1_000
    /// The most blocks one conversation shows: a loop through a timed block would otherwise grow
    /// its transcript (and what is saved of it) for as long as it runs.
    public static let shownBlocks = 1_000
    /// The most text one conversation's transcript holds (the blocks' texts as shown and the
    /// replies), in bytes of UTF-8.
    public static let transcriptBytes = 1 << 20
    /// The most blocks that fire in one step of time (a loop of zero-second timers stops there).
    public static let firingsPerAdvance = 100_000
    /// The longest expression (a condition or an assignment), in bytes of UTF-8.
    public static let expressionBytes = 1024
    /// The deepest nesting of an expression (operators, parentheses and calls inside each other).
    public static let expressionDepth = 32
    /// The most variables a flow declares.
    public static let variables = 1000
    /// The most assignments of one `set` block, and the most branches of one `condition` block.
    public static let blockRules = 256
    /// The most `set` and `condition` blocks run one after another without a block shown (a
    /// loop of them stops there).
    public static let silentSteps = 1000
    /// The most returning jumps a conversation is inside at once (a flow that jumps into itself
    /// stops there).
    public static let jumpDepth = 32
    /// The most cases one test file of a flow holds (`rocket test`).
    public static let flowTestCases = 1_000
    /// The most steps (a block answered, tapped or timed out) one case of `rocket test` runs.
    public static let flowTestSteps = 10_000
    /// The most distinct diagnostics `rocket lint` lists for a file.
    public static let diagnostics = 1_000
    /// The most characters of a value (an id, a key, a name, a pattern) a diagnostic quotes.
    public static let quotedCharacters = 80
    /// The largest number a count field takes (`minEventsRequired`, `budget.executions`, …).
    public static let count = 1_000_000_000
    /// The longest duration anywhere (100 years).
    public static let durationSeconds: Double = 100 * 365.25 * 86_400
    /// The largest padding of an image block, in points.
    public static let paddingPoints = 10_000
    /// The longest scenario name, in bytes.
    public static let scenarioNameBytes = 1024
    /// The event times a scenario keeps (for `minEventsInWindow`).
    public static let recentEvents = 1000
    /// The executions the budget log keeps (for `budget`).
    public static let executionLog = 1000
    /// The longest event record `rocket report` reads (a line of JSON Lines).
    public static let reportRecordBytes = 64 << 10
    /// The largest report `rocket report --server` takes from a server's `GET /v1/report`.
    public static let reportAnswerBytes = 32 << 20
    /// Conversations whose records `rocket report` holds open at once (records of one
    /// conversation are expected together).
    public static let reportOpenConversations = 200_000
    /// Different blocks in one flow and variant of a report.
    public static let reportBlocks = 10_000
    /// Different flows and variants in a report.
    public static let reportGroups = 10_000
    /// Titles of chosen options a report holds to name them (all together; each at most 256
    /// bytes, at most 4 different ones per option).
    public static let reportTitleBytes = 16 << 20
    /// The output of an `--on-action` command shown in the terminal.
    public static let actionOutputBytes = 16_384

    // MARK: The server

    /// The largest request body.
    public static let requestBodyBytes = 16 << 10
    /// The longest typed answer a `submit` intent carries.
    public static let submittedTextBytes = 8 << 10
    /// The most variables a start gives (the API's `vars`; a page's `data-vars` and address).
    public static let startVariables = 64
    /// The longest name of a variable a start gives, in bytes.
    public static let startVariableNameBytes = 64
    /// The longest text a variable a start gives may hold, in bytes of UTF-8.
    public static let startVariableValueBytes = 1024
    /// Conversations held at once.
    public static let conversations = 10_000
    /// Event streams open at once.
    public static let eventStreams = 10_000
    /// Bytes an event stream's client may leave unread (beyond what the kernel holds).
    public static let streamBacklogBytes = 1 << 20
    /// Bytes a client may send on an event stream after its request (it has no reason to send any).
    public static let streamIgnoredBytes = 64 << 10
    /// Seconds sent bytes of an event stream may stay unacknowledged by the client.
    public static let streamAckSeconds = 60
    /// Seconds a conversation may stay unused before it expires.
    public static let idleSeconds: Double = 24 * 3600
    /// Requests per second a visitor may send, on average.
    public static let requestsPerSecond: Double = 10
    /// Requests a visitor may send in a burst.
    public static let requestBurst: Double = 40
    /// The most actions of an alert made through the API.
    public static let alertActions = 20
    /// Requests per second one client address may send, on average, whatever visitors it names.
    public static let addressRequestsPerSecond: Double = 50
    /// Requests one client address may send in a burst.
    public static let addressRequestBurst: Double = 200
    /// Live conversations (and, apart, alerts) one client address may hold.
    public static let perAddress = 200
    /// Event streams one client address may hold open.
    public static let streamsPerAddress = 64
    /// Connections one client address may hold (not behind a trusted proxy).
    public static let connectionsPerAddress = 128
    /// Header lines of one request to `rocket serve` (more are refused, never read in part).
    public static let requestHeaders = 100
    /// Query parameters of one request to `rocket serve` (more are refused, never read in part).
    public static let queryParameters = 100
    /// Seconds a connection of `rocket serve` may stay idle (it outlasts the event streams'
    /// keep-alives, every 15 s).
    public static let connectionIdleSeconds = 20
    /// The memory of one connection of `rocket serve`, which holds a request's line and headers
    /// (libmicrohttpd zeroes it between requests; an event stream keeps it while it is open).
    public static let connectionMemoryBytes = 12 << 10
    /// Seconds a visitor's scenario statistics are kept after their last event or execution.
    public static let visitorRetentionSeconds: Double = 400 * 86_400
    /// Seconds `rocket serve` keeps event records for reports (`--keep-records`).
    public static let recordRetentionSeconds: Double = 90 * 86_400
    /// How long `rocket serve` keeps the results of ended conversations (`--keep-results`).
    public static let resultRetentionSeconds: Double = 90 * 86_400
    /// The answers one page of results holds (`GET /v1/results`, `rocket results`).
    public static let resultPageBytes = 4 << 20
    /// The conversations, and apart the results and the alerts, `GET /v1/visitors/{id}` lists of one visitor.
    public static let visitorRecordItems = 500
    /// Seconds a request may take to arrive whole from its request line, headers and body (and
    /// at most ``connectionIdleSeconds`` more from when its connection was free for it).
    public static let requestSeconds: Double = 10

    /// One row of the table of limits.
    public struct Entry: Sendable, Hashable {
        /// The name in the code (`RocketLimits.NAME`).
        public let name: String
        /// The value, as people read it ("96 MiB").
        public let value: String
        /// What it bounds.
        public let bounds: String
        /// What happens past it.
        public let past: String
    }

    private static func size(_ bytes: Int) -> String {
        if bytes >= 1 << 20, bytes % (1 << 20) == 0 { return "\(bytes >> 20) MiB" }
        if bytes >= 1 << 10, bytes % (1 << 10) == 0 { return "\(bytes >> 10) KiB" }
        return "\(bytes) bytes"
    }

    private static func number(_ n: Int) -> String {
        var digits = String(n)
        var out = ""
        while digits.count > 3 {
            out = "," + String(digits.suffix(3)) + out
            digits = String(digits.dropLast(3))
        }
        return digits + out
    }

    /// Every limit, in the order of docs/SEMANTICS.md's table.
    public static let table: [Entry] = [
        Entry(name: "flowFileBytes", value: size(flowFileBytes), bounds: "a flow file", past: "refused by its size, before it is read (`too-large`)"),
        Entry(
            name: "fileBytes", value: size(fileBytes), bounds: "any other file read: pictures, `--state`, imports",
            past: "reading stops and the file is refused"),
        Entry(name: "servedFlowFileBytes", value: size(servedFlowFileBytes), bounds: "a flow file of `rocket serve`", past: "the flow is not served"),
        Entry(name: "servedPictureBytes", value: size(servedPictureBytes), bounds: "a picture `rocket serve` sends", past: "404"),
        Entry(
            name: "measuredPictures", value: number(measuredPictures), bounds: "picture files of a served flow whose size is read when it is loaded",
            past: "the others are sent without a size (the page lays them out when they arrive)"),
        Entry(
            name: "picturePixels", value: number(picturePixels) + " pixels", bounds: "a decoded picture",
            past: "refused from its header, before any pixel is decoded"),
        Entry(name: "jsonDepth", value: "\(jsonDepth)", bounds: "nesting of arrays and objects in JSON", past: "a JSON error with its place"),
        Entry(name: "jsonStringBytes", value: size(jsonStringBytes), bounds: "a string in a flow, a body or an import", past: "a JSON error with its place"),
        Entry(name: "jsonNumberCharacters", value: "\(jsonNumberCharacters) characters", bounds: "a number in JSON", past: "a JSON error with its place"),
        Entry(
            name: "renderedTextBytes", value: size(renderedTextBytes), bounds: "a text as shown, placeholders filled (and a snapshot's strings)",
            past: "cut at a character, ending in …"),
        Entry(
            name: "lineBytes", value: size(lineBytes), bounds: "a line read from a terminal or a pipe; the text of a field in the terminal",
            past: "the line is refused and the rest of it skipped; a field keeps what fits and says so"),
        Entry(name: "choiceOptions", value: "\(choiceOptions)", bounds: "options of a `choice` block", past: "a lint error (`too-many-options`)"),
        Entry(
            name: "chooseOptions", value: number(chooseOptions), bounds: "options of `rocket choose` (arguments or lines of standard input)",
            past: "a usage error (exit 64)"),
        Entry(
            name: "simulatedScenarios", value: number(simulatedScenarios), bounds: "different scenarios one `rocket scenario simulate` timeline triggers",
            past: "the line is an error (exit 65)"),
        Entry(
            name: "chooseInputBytes", value: size(chooseInputBytes), bounds: "options `rocket choose` reads from standard input, all lines together",
            past: "a usage error (exit 64), said as soon as the limit is passed"),
        Entry(
            name: "accessLogBufferBytes", value: size(accessLogBufferBytes),
            bounds: "`rocket serve --access-log` lines waiting for standard error to take them",
            past: "lines are dropped and counted; the next line written says how many"),
        Entry(
            name: "accessLogPathBytes", value: "\(accessLogPathBytes) bytes", bounds: "a request's path in an access log line",
            past: "cut, ending in `...`"),
        Entry(
            name: "patternSteps", value: number(patternSteps), bounds: "backtracking steps of a pattern on one answer",
            past: "validation refuses the answer; a branch does not match"),
        Entry(name: "patternDepth", value: number(patternDepth), bounds: "recursion of a pattern match", past: "as for the steps"),
        Entry(
            name: "expressionPatternSteps", value: number(expressionPatternSteps), bounds: "backtracking steps of `matches(…)` in an expression",
            past: "an expression error (`pattern-limit`): a condition with it is false"),
        Entry(
            name: "conversationPatternSteps", value: number(conversationPatternSteps),
            bounds:
                "backtracking steps of all `matches(…)` in one conversation (each charged \(number(expressionPatternProbeSteps)) when it finishes within them, else \(number(expressionPatternProbeSteps + expressionPatternSteps)))",
            past: "an expression error (`pattern-budget`): a condition with it is false"),
        Entry(
            name: "shownBlocks", value: number(shownBlocks), bounds: "blocks one conversation shows",
            past: "an `expressionError` event (`conversation-too-long`), and the conversation ends"),
        Entry(
            name: "transcriptBytes", value: size(transcriptBytes), bounds: "text of one conversation's transcript: its blocks as shown and its replies",
            past: "as for the blocks shown"),
        Entry(
            name: "firingsPerAdvance", value: number(firingsPerAdvance), bounds: "blocks that fire in one step of time",
            past: "the rest wait for the next step"),
        Entry(name: "expressionBytes", value: size(expressionBytes), bounds: "an expression (`if`, `set`)", past: "a lint error (`expression-too-long`)"),
        Entry(
            name: "expressionDepth", value: "\(expressionDepth)", bounds: "nesting of an expression",
            past: "a lint error (`expression-too-deep`)"),
        Entry(name: "variables", value: number(variables), bounds: "variables a flow declares (`vars`)", past: "a lint error"),
        Entry(
            name: "blockRules", value: "\(blockRules)", bounds: "assignments of a `set` block, branches of a `condition` block",
            past: "a lint error (`too-many-rules`)"),
        Entry(
            name: "silentSteps", value: number(silentSteps), bounds: "`set` and `condition` blocks run in a row with nothing shown",
            past: "an `expressionError` event, and the conversation ends"),
        Entry(
            name: "jumpDepth", value: "\(jumpDepth)", bounds: "returning jumps a conversation is inside at once",
            past: "an `expressionError` event, and the conversation ends"),
        Entry(name: "flowTestCases", value: number(flowTestCases), bounds: "cases of one test file (`rocket test`)", past: "an error at the case (exit 65)"),
        Entry(
            name: "flowTestSteps", value: number(flowTestSteps), bounds: "steps of one case of `rocket test` (blocks answered, tapped or timed out)",
            past: "the case fails: the flow did not end"),
        Entry(name: "diagnostics", value: number(diagnostics), bounds: "different diagnostics listed for a file", past: "counted in a last note"),
        Entry(
            name: "quotedCharacters", value: "\(quotedCharacters) characters", bounds: "a value quoted in a diagnostic or a path",
            past: "cut, ending in …"),
        Entry(name: "count", value: number(count), bounds: "a count in `when` or a flag", past: "a lint or usage error"),
        Entry(name: "durationSeconds", value: "\(Int(durationSeconds / (365.25 * 86_400))) years", bounds: "any duration", past: "a lint or usage error"),
        Entry(name: "paddingPoints", value: number(paddingPoints), bounds: "an image block's padding", past: "a lint error"),
        Entry(name: "scenarioNameBytes", value: "\(scenarioNameBytes) bytes", bounds: "a scenario name", past: "a lint or usage error"),
        Entry(name: "recentEvents", value: number(recentEvents), bounds: "event times a scenario keeps", past: "the oldest are dropped"),
        Entry(name: "executionLog", value: number(executionLog), bounds: "executions the budget log keeps", past: "the oldest are dropped"),
        Entry(
            name: "recordRetentionSeconds", value: RocketDuration.format(recordRetentionSeconds),
            bounds: "how long `rocket serve` keeps event records for reports (`--keep-records`)", past: "they are deleted"),
        Entry(
            name: "resultRetentionSeconds", value: RocketDuration.format(resultRetentionSeconds),
            bounds: "how long `rocket serve` keeps the answers of ended conversations (`--keep-results`; 0 keeps none)", past: "they are deleted"),
        Entry(
            name: "resultPageBytes", value: size(resultPageBytes), bounds: "the answers one page of `GET /v1/results` holds",
            past: "the page ends early (with one result at least); `next` goes on from there"),
        Entry(
            name: "visitorRecordItems", value: number(visitorRecordItems),
            bounds: "the conversations, and apart the results and the alerts, `GET /v1/visitors/{id}` lists of one visitor",
            past: "the rest are left out and `truncated` is true"),
        Entry(name: "reportRecordBytes", value: size(reportRecordBytes), bounds: "an event record `rocket report` reads", past: "an error naming its line"),
        Entry(
            name: "reportAnswerBytes", value: size(reportAnswerBytes), bounds: "the report `rocket report --server` takes from a server",
            past: "an error (the server's answer is too large)"),
        Entry(
            name: "reportOpenConversations", value: number(reportOpenConversations), bounds: "conversations a report holds open at once",
            past: "an error naming the line"),
        Entry(
            name: "reportBlocks", value: number(reportBlocks), bounds: "different blocks of one flow and variant in a report", past: "an error naming the line"),
        Entry(name: "reportGroups", value: number(reportGroups), bounds: "different flows and variants in a report", past: "an error naming the line"),
        Entry(
            name: "reportTitleBytes", value: size(reportTitleBytes), bounds: "titles of chosen options a report keeps to name them",
            past: "further titles are not kept: those options are named by their place"),
        Entry(name: "actionOutputBytes", value: size(actionOutputBytes), bounds: "output of an `--on-action` command shown in the terminal", past: "cut"),
        Entry(name: "requestBodyBytes", value: size(requestBodyBytes), bounds: "a request body of `rocket serve`", past: "413"),
        Entry(
            name: "submittedTextBytes", value: size(submittedTextBytes), bounds: "a typed answer sent to `rocket serve`",
            past: "400; the widget refuses it on the field and sends nothing"),
        Entry(
            name: "startVariables", value: "\(startVariables)",
            bounds: "variables a start gives `rocket serve` (`vars`; the widget's `data-vars` and page address)",
            past: "400; the widget refuses `data-vars` and drops address variables past it"),
        Entry(
            name: "startVariableNameBytes", value: "\(startVariableNameBytes) bytes", bounds: "the name of a variable a start gives",
            past: "400; the widget refuses or drops it"),
        Entry(
            name: "startVariableValueBytes", value: size(startVariableValueBytes), bounds: "the text of a variable a start gives",
            past: "400; the widget refuses or drops it"),
        Entry(name: "conversations", value: number(conversations), bounds: "conversations `rocket serve` holds (`--max-conversations`)", past: "503"),
        Entry(name: "eventStreams", value: number(eventStreams), bounds: "event streams `rocket serve` holds open at once (`--max-streams`)", past: "503"),
        Entry(
            name: "streamBacklogBytes", value: size(streamBacklogBytes), bounds: "what an event stream's client leaves unread",
            past: "the stream is closed"),
        Entry(
            name: "streamIgnoredBytes", value: size(streamIgnoredBytes), bounds: "what a client sends on an event stream after its request",
            past: "the stream is closed"),
        Entry(
            name: "streamAckSeconds", value: "\(streamAckSeconds) s", bounds: "how long sent bytes of an event stream may go unacknowledged",
            past: "the stream is closed"),
        Entry(
            name: "idleSeconds", value: RocketDuration.format(idleSeconds), bounds: "how long a conversation may stay unused (`--idle-timeout`)",
            past: "it expires"),
        Entry(name: "requestsPerSecond", value: number(Int(requestsPerSecond)), bounds: "requests per second of one visitor (`--rate`)", past: "429"),
        Entry(name: "requestBurst", value: number(Int(requestBurst)), bounds: "a burst of one visitor's requests", past: "429"),
        Entry(name: "alertActions", value: "\(alertActions)", bounds: "actions of an alert made through the API", past: "400"),
        Entry(
            name: "addressRequestsPerSecond", value: number(Int(addressRequestsPerSecond)),
            bounds: "requests per second of one client address, whatever visitors it names (`--rate-per-address`)", past: "429"),
        Entry(name: "addressRequestBurst", value: number(Int(addressRequestBurst)), bounds: "a burst of one client address's requests", past: "429"),
        Entry(
            name: "perAddress", value: number(perAddress), bounds: "live conversations, and apart alerts, of one client address (`--max-per-address`)",
            past: "429"),
        Entry(name: "streamsPerAddress", value: number(streamsPerAddress), bounds: "event streams of one client address", past: "429"),
        Entry(
            name: "connectionsPerAddress", value: number(connectionsPerAddress), bounds: "connections of one client address (not behind `--trust-proxy`)",
            past: "refused"),
        Entry(name: "requestHeaders", value: "\(requestHeaders)", bounds: "header lines of a request to `rocket serve`", past: "431"),
        Entry(name: "queryParameters", value: "\(queryParameters)", bounds: "query parameters of a request to `rocket serve`", past: "400"),
        Entry(
            name: "connectionIdleSeconds", value: "\(connectionIdleSeconds) s", bounds: "how long a connection of `rocket serve` may stay idle",
            past: "it is closed"),
        Entry(
            name: "connectionMemoryBytes", value: size(connectionMemoryBytes), bounds: "a request's line and headers (`rocket serve`)",
            past: "431"),
        Entry(
            name: "visitorRetentionSeconds", value: RocketDuration.format(visitorRetentionSeconds),
            bounds: "how long a visitor's scenario statistics outlive their last event or execution (`--visitor-retention`)", past: "they are forgotten"),
        Entry(
            name: "requestSeconds", value: "\(Int(requestSeconds)) s",
            bounds: "the time a request may take to arrive whole from its request line (and `connectionIdleSeconds` more from its connection being free)",
            past: "the connection is closed"),
    ]
}

extension RocketLimits {
    /// The table of limits as Markdown (docs/SEMANTICS.md holds it between its markers).
    public static var markdown: String {
        var out = "| Limit | Value | Bounds | Past it |\n|---|---|---|---|\n"
        for e in table { out += "| `\(e.name)` | \(e.value) | \(e.bounds) | \(e.past) |\n" }
        return out
    }
}
