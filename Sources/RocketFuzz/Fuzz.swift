// Coverage-guided fuzzing of the parsers that read what others wrote (scripts/fuzz.sh): each
// target feeds hostile bytes to one reader and checks what must hold whatever the bytes are.
// Built normally it replays files (the corpus, or a crash libFuzzer saved); built by
// scripts/fuzz.sh with `-sanitize=fuzzer -D ROCKET_FUZZ` libFuzzer drives it.
import RocketConversation
import RocketCore
import RocketFlow
import RocketJSON
import RocketPlatform
import RocketReport
import RocketScenarioEngine
import RocketServer
import RocketTerminal
import RocketTerminalApps
import RocketTerminalCore

#if canImport(Glibc)
    import Glibc
#endif

/// The readers fuzzed, by name (`ROCKET_FUZZ_TARGET`).
enum FuzzTarget: String, CaseIterable {
    /// JSON: the two readers agree, and `rocket fmt`'s layout is stable and means the same.
    case json
    /// Flow files: loaded, validated, drawn and written again without a trap.
    case flow
    /// Expressions of flows: parsed and evaluated.
    case expression
    /// Keys from a terminal: the same keys however the bytes are split.
    case keys
    /// A field edited by keys: what it draws fits its width, the cursor inside it.
    case editor
    /// Pictures: PNG and JPEG decoded or refused.
    case image
    /// Requests to `rocket serve`'s service (no sockets): every answer a status it may give,
    /// never 500, its JSON readable.
    case server
    /// Text drawn in a terminal: cleaned of what could drive it, wrapped and cut to fit.
    case text
    /// Test files of flows (`rocket test`): read, and their cases played on each example flow
    /// they fit, twice, with the same result.
    case tests
    /// Saved conversations (`rocket play --state`): refused, or restored into one that goes on,
    /// whose snapshot reads back.
    case snapshot
    /// Templates: `{{name}}` filled, secrets masked.
    case template
    /// Answers of HTTP servers to rocket's own client (webhooks' endpoints, `--server`): read or
    /// refused, the same status whether the body is kept or dropped, a kept body within its bound.
    case answer
    /// Reports: event records (JSON Lines) counted, and a server's report read back; either
    /// drawn as a page whose tags are all the page's own, and as JSON that reads back the same.
    case report
    /// Scenario exports (`rocket scenario import`): refused, or read into a store whose export
    /// reads back as the same state.
    case scenarios
    /// Answers given ahead (`rocket play --answers FILE`), read for each example flow: refused
    /// with places in the file, or answers only for the flow's own blocks.
    case answers

    /// The target `ROCKET_FUZZ_TARGET` names (default: json).
    static var chosen: FuzzTarget {
        guard let raw = getenv("ROCKET_FUZZ_TARGET") else { return .json }
        let name = String(cString: raw)
        guard let t = FuzzTarget(rawValue: name) else {
            say("RocketFuzz: no target \(name); one of \(allCases.map(\.rawValue).joined(separator: ", "))")
            exit(64)
        }
        return t
    }

    /// Runs one input; a broken property stops the process (libFuzzer keeps the input).
    func run(_ bytes: [UInt8]) {
        switch self {
        case .json: Self.json(bytes)
        case .flow: Self.flow(bytes)
        case .expression: Self.expression(bytes)
        case .keys: Self.keys(bytes)
        case .editor: Self.editor(bytes)
        case .image: _ = TerminalImage.decode(bytes)
        case .server: ServerFuzz.shared.run(bytes)
        case .text: Self.text(bytes)
        case .tests: TestsFuzz.shared.run(bytes)
        case .snapshot: SnapshotFuzz.shared.run(bytes)
        case .template: Self.template(bytes)
        case .answer: Self.answer(bytes)
        case .report: Self.report(bytes)
        case .scenarios: Self.scenarios(bytes)
        case .answers: TestsFuzz.shared.answers(bytes)
        }
    }

    static func fail(_ message: String) -> Never {
        say("RocketFuzz: \(message)")
        abort()
    }

    /// The bytes of the file at `path` (a corpus file, a flow), or nil when it cannot be read
    /// (the project's one reading of a file, bounded by `RocketLimits.fileBytes`).
    static func contents(of path: String) -> [UInt8]? {
        guard case .success(let bytes) = FileIO.read(path) else { return nil }
        return bytes
    }

    /// A line on standard error.
    static func say(_ line: String) {
        let bytes = Array((line + "\n").utf8)
        _ = bytes.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    }

    /// One reading of `bytes` as an answer that arrives on a connection the server then closes
    /// (`maxBody` nil: its body dropped, as a webhook's POST reads it).
    static func readAnswer(_ bytes: [UInt8], maxBody: Int?) -> Result<(status: Int, body: [UInt8], reusable: Bool), HTTPClientError> {
        var ends: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &ends) == 0 else { fail("no socket pair: errno \(errno)") }
        defer {
            close(ends[0])
            close(ends[1])
        }
        var room = Int32(1 << 20)
        setsockopt(ends[0], SOL_SOCKET, SO_SNDBUF, &room, socklen_t(MemoryLayout<Int32>.size))
        let sent = bytes.withUnsafeBytes { send(ends[0], $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        guard sent == bytes.count else { fail("the socket pair took \(sent) of \(bytes.count) bytes") }
        shutdown(ends[0], Int32(SHUT_WR))
        return HTTPClient.read(from: ends[1], maxBody: maxBody, timeout: 5)
    }

    static func answer(_ bytes: [UInt8]) {
        // Larger than a socket pair holds at once, and than an answer's head and a small body.
        guard bytes.count <= 100_000 else { return }
        let small = 64
        let dropped = readAnswer(bytes, maxBody: nil)
        let kept = readAnswer(bytes, maxBody: 1 << 20)
        let keptSmall = readAnswer(bytes, maxBody: small)
        if case .success(let a) = dropped, !(100...599).contains(a.status) { fail("a status of \(a.status)") }
        guard case .success(let whole) = kept else { return }
        // A body read whole leaves the status and the connection's fate as dropping it would.
        guard case .success(let d) = dropped, d.status == whole.status, d.reusable == whole.reusable else {
            fail("the answer read whole (\(whole.status)) is another when its body is dropped: \(dropped)")
        }
        if whole.status < 200 { fail("an interim answer (\(whole.status)) was taken as the answer") }
        switch keptSmall {
        case .success(let s):
            if s.body != whole.body || s.body.count > small { fail("a body within \(small) bytes differs when the bound is larger") }
        case .failure(let why):
            if whole.body.count <= small { fail("a body of \(whole.body.count) bytes was refused under a bound of \(small): \(why.message)") }
        }
    }

    /// The elements a report's page is made of: any other tag came from the records.
    static let reportTags: Set<String> = [
        "!doctype", "html", "head", "meta", "title", "style", "body", "main", "h1", "h2", "h3", "p", "section", "div", "table",
        "caption", "thead", "tbody", "tr", "th", "td", "figure", "figcaption", "svg", "text", "line", "rect", "circle", "ul", "li",
        "strong", "span", "abbr", "small", "em", "code", "dl", "dt", "dd", "details", "summary", "g", "tspan",
    ]

    static func report(_ bytes: [UInt8]) {
        // Records: each line in turn, up to the first a report refuses (as `rocket report` stops).
        let grouping = ReportGrouping.allCases[Int(bytes.first ?? 0) % ReportGrouping.allCases.count]
        var builder = ReportBuilder(by: grouping)
        for (k, line) in bytes.split(separator: 0x0A, omittingEmptySubsequences: false).enumerated() {
            do throws(ReportInputError) { try builder.addLine(Array(line), input: 0, line: k + 1) } catch {
                if error.line != k + 1 || error.column < 1 { fail("a refusal of line \(k + 1) names \(error.line):\(error.column)") }
                break
            }
        }
        builder.finishInput(0)
        for minCount in [1, 5] { checkReport(builder.report(ReportOptions(minCount: minCount))) }
        // A server's answer (`rocket report --server`), read as a report.
        if let told = Report(json: bytes) { checkReport(told) }
    }

    /// A report drawn as a page holds only the page's own tags, and its JSON reads back as the same.
    static func checkReport(_ report: Report) {
        let page = Array(report.html.utf8)
        var i = 0
        while i < page.count {
            defer { i += 1 }
            guard page[i] == UInt8(ascii: "<") else { continue }
            var j = i + 1
            if j < page.count, page[j] == UInt8(ascii: "/") { j += 1 }
            let start = j
            while j < page.count,
                page[j] == UInt8(ascii: "!") || (page[j] | 0x20 >= UInt8(ascii: "a") && page[j] | 0x20 <= UInt8(ascii: "z"))
                    || (page[j] >= 0x30 && page[j] <= 0x39)
            { j += 1 }
            let name = String(decoding: page[start..<j], as: UTF8.self).lowercased()
            if !reportTags.contains(name) { fail("the report's page holds a tag of its records: <\(name.prefix(40))") }
        }
        let json = Array(report.json.utf8)
        do throws(JSONSyntaxError) { _ = try JSONReader.parse(json) } catch { fail("the report's JSON is not JSON: \(error.message)") }
        guard let again = Report(json: json) else { fail("the report's JSON is not read back as a report") }
        if again.json != report.json { fail("the report's JSON read back and written again differs") }
    }

    static func scenarios(_ bytes: [UInt8]) {
        let read: ScenarioSnapshot
        do throws(ScenarioStoreError) { read = try ScenarioSnapshot(json: bytes) } catch {
            if let offset = error.offset, !(0...bytes.count).contains(offset) { fail("a refusal at byte \(offset) of \(bytes.count)") }
            return
        }
        let store = InMemoryScenarioStore()
        let held: ScenarioSnapshot
        do throws(ScenarioStoreError) {
            try store.restore(read)
            held = try store.snapshot()
        } catch { fail("an export that was read could not be restored: \(error.message)") }
        let again: ScenarioSnapshot
        do throws(ScenarioStoreError) { again = try ScenarioSnapshot(json: Array(held.jsonText.utf8)) } catch {
            fail("a store's export is refused: \(error.message)")
        }
        if again != held { fail("a store's export reads back as another state") }
        if held != read { fail("a restored export is exported as another state") }
    }

    static func json(_ bytes: [UInt8]) {
        let tree: JSONNode?
        do throws(JSONSyntaxError) { tree = try JSONReader.parse(bytes) } catch { tree = nil }
        let tape: JSONTape?
        do throws(JSONSyntaxError) { tape = try JSONTape.parse(bytes) } catch { tape = nil }
        if (tree == nil) != (tape == nil) {
            fail("the tree reader \(tree == nil ? "refused" : "took") what the tape reader \(tape == nil ? "refused" : "took")")
        }
        guard let tape else { return }
        for width in [JSONLayout.widths.lowerBound, JSONLayout.defaultWidth] {
            let laid = JSONLayout.format(tape, width: width)
            let again: JSONTape
            do throws(JSONSyntaxError) { again = try JSONTape.parse(laid) } catch { fail("the layout at width \(width) is not JSON: \(error.message)") }
            if JSONLayout.format(again, width: width) != laid { fail("laying out the layout at width \(width) changed it") }
            let before: JSONNode
            let after: JSONNode
            do throws(JSONSyntaxError) {
                before = try JSONReader.parse(bytes)
                after = try JSONReader.parse(laid)
            } catch { fail("the layout at width \(width) is refused by the tree reader: \(error.message)") }
            if before.plainValue != after.plainValue { fail("the layout at width \(width) means another value") }
        }
    }

    static func flow(_ bytes: [UInt8]) {
        let loaded = FlowLoader.load(bytes)
        guard let doc = loaded.document else { return }
        _ = FlowValidator.validate(doc)
        _ = FlowGraph.mermaid(doc)
        _ = FlowGraph.dot(doc)
        _ = FlowGraph.outline(doc)
        // Written again, a flow that loaded without errors loads as the same document
        // (FlowDocument.jsonValue's promise); one with errors is only what could be read.
        guard !loaded.diagnostics.contains(where: { $0.severity == .error }) else { return }
        let written = doc.jsonValue.serializedBytes(pretty: true)
        let reloaded = FlowLoader.load(written)
        guard let again = reloaded.document else {
            fail("a flow that loaded, written again, does not load: \(reloaded.diagnostics.map { $0.message })")
        }
        if again != doc { fail("a flow written again loads as another document:\n\(String(decoding: written, as: UTF8.self))") }
        if var conversation = doc.makeConversation() {
            _ = conversation.start(at: 0)
        }
    }

    static func expression(_ bytes: [UInt8]) {
        let e = RocketExpression(String(decoding: bytes, as: UTF8.self))
        guard e.syntaxError == nil else { return }
        let values: [String: RocketValue] = ["n": .number(3), "s": .text("ab c"), "b": .bool(true), "l": .list(["x", "y"])]
        _ = e.evaluate({ values[$0] })
        _ = e.names
        _ = e.description
    }

    static func text(_ bytes: [UInt8]) {
        let width = Int(bytes.first ?? 0) % 100
        let text = String(decoding: bytes.dropFirst(), as: UTF8.self)
        let clean = Sanitizer.clean(text)
        if clean.unicodeScalars.contains(where: { Sanitizer.isUnsafe($0) }) { fail("cleaned text still holds a control") }
        if Sanitizer.clean(clean) != clean { fail("cleaning cleaned text changed it") }
        let lines = TextWrap.wrap(clean, width: width)
        for line in lines where DisplayWidth.of(line) > max(1, width) && line.count > 1 {
            fail("a wrapped line is \(DisplayWidth.of(line)) columns wide, over \(max(1, width)): \(Array(line.unicodeScalars.map(\.value)))")
        }
        let kept = lines.joined().filter { $0 != " " && $0 != "\n" }
        let given = clean.filter { $0 != " " && $0 != "\n" }
        if kept.unicodeScalars.count != given.unicodeScalars.count {
            fail("wrapping lost or added text: \(given.unicodeScalars.map(\.value)) became \(lines.map { $0.unicodeScalars.map(\.value) })")
        }
        if DisplayWidth.of(DisplayWidth.truncate(clean, to: width)) > width { fail("a truncated text is over its width") }
        if DisplayWidth.of(DisplayWidth.prefix(clean, fitting: width)) > width { fail("a prefix is over its width") }
    }

    static func editor(_ bytes: [UInt8]) {
        guard bytes.count >= 2 else { return }
        let width = Int(bytes[0] & 0x3F) + 1
        let rows = Int(bytes[1] & 0x07) + 1
        var editor = LineEditor(multiline: bytes[0] & 0x40 != 0)
        var decoder = KeyDecoder()
        let keys = decoder.feed(Array(bytes.dropFirst(2))) + decoder.flush()
        for key in keys { _ = editor.handle(key) }
        for mask: Character? in [nil, "•"] {
            let view = editor.view(width: width, mask: mask)
            if DisplayWidth.of(view.text) > width { fail("a field \(width) wide draws \(DisplayWidth.of(view.text)) columns") }
            if view.cursorColumn < 0 || view.cursorColumn > width { fail("a field \(width) wide puts its cursor at \(view.cursorColumn)") }
            let lines = editor.rows(width: width, rows: rows, mask: mask)
            if lines.rows.count > rows { fail("a field \(rows) rows high draws \(lines.rows.count)") }
            if lines.cursorRow < 0 || lines.cursorRow >= max(1, lines.rows.count) {
                fail("the cursor's row \(lines.cursorRow) is outside \(lines.rows.count) rows")
            }
            if lines.cursorColumn < 0 || lines.cursorColumn > width { fail("the cursor's column \(lines.cursorColumn) is outside \(width)") }
            for line in lines.rows where DisplayWidth.of(line) > width && line.count > 1 {
                fail("a row of a field \(width) wide is \(DisplayWidth.of(line)) columns")
            }
            var screen = ScreenBuffer(width: width, height: 1)
            screen.put(view.text, row: 0, column: 0)
            if screen.rows[0].count != width { fail("a screen row holds \(screen.rows[0].count) cells, not \(width)") }
        }
    }

    static func template(_ bytes: [UInt8]) {
        let text = String(decoding: bytes, as: UTF8.self)
        let names = RocketTemplate.placeholders(in: text)
        let filled = RocketTemplate.render(text) { name in names.contains(name) ? (text: "<\(name)>", secret: name.count % 2 == 0) : nil }
        _ = RocketTemplate.mask(filled)
    }

    static func keys(_ bytes: [UInt8]) {
        var whole = KeyDecoder()
        let all = whole.feed(bytes) + whole.flush()
        var split = KeyDecoder()
        var pieces: [Key] = []
        // Split where the input says: its first byte picks a stride.
        let stride = max(1, Int(bytes.first ?? 1) % 7)
        var i = 0
        while i < bytes.count {
            pieces += split.feed(Array(bytes[i..<min(bytes.count, i + stride)]))
            i += stride
        }
        pieces += split.flush()
        if all != pieces { fail("the keys depend on how the bytes were split: \(all) against \(pieces)") }
    }
}

#if ROCKET_FUZZ
    /// libFuzzer's driver (its own `main` is not linked: SwiftPM names the target's entry point).
    @_silgen_name("LLVMFuzzerRunDriver")
    func runDriver(
        _ argc: UnsafeMutablePointer<Int32>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
        _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32
    ) -> Int32

    /// The target's entry point under libFuzzer.
    @_cdecl("RocketFuzz_main")
    func rocketFuzzMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
        var count = argc
        var vector = argv
        return runDriver(&count, &vector) { data, size in
            let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
            FuzzTarget.chosen.run(bytes)
            return 0
        }
    }
#else
    /// Replays the files named (a corpus or a saved crash) through the chosen target.
    @main
    enum Replay {
        static func main() {
            let target = FuzzTarget.chosen
            for path in CommandLine.arguments.dropFirst() {
                guard let bytes = FuzzTarget.contents(of: path) else {
                    FuzzTarget.say("RocketFuzz: cannot open \(path)")
                    exit(66)
                }
                target.run(bytes)
            }
        }
    }
#endif

/// The example flows that have test files (`ROCKET_FUZZ_FLOWS`, default `examples`), loaded
/// once: a test file read is played on each of them it fits, as `rocket test` plays it.
final class TestsFuzz: @unchecked Sendable {
    static let shared = TestsFuzz()

    let flows: [FlowDocument]
    /// `ROCKET_FUZZ_VERBOSE` set: how many cases each input played, on standard error.
    let verbose = getenv("ROCKET_FUZZ_VERBOSE") != nil

    init() {
        let directory = getenv("ROCKET_FUZZ_FLOWS").map { String(cString: $0) } ?? "examples"
        var flows: [FlowDocument] = []
        for name in ["branches", "callback", "nps", "pictures", "review", "survey", "validation", "variables", "welcome"] {
            guard let bytes = FuzzTarget.contents(of: "\(directory)/\(name).json") else { continue }
            let loaded = FlowLoader.load(bytes)
            if let doc = loaded.document, !loaded.diagnostics.contains(where: { $0.severity == .error }) { flows.append(doc) }
        }
        self.flows = flows
    }

    func run(_ bytes: [UInt8]) {
        guard case .success(let suite) = FlowTestSuite.read(bytes) else { return }
        var played = 0
        defer { if verbose { FuzzTarget.say("\(played) cases played on \(flows.count) flows") } }
        for doc in flows where suite.problems(against: doc).isEmpty {
            for c in suite.cases.prefix(8) {
                played += 1
                let first = c.run(on: doc) { _ in "refused" }
                let second = c.run(on: doc) { _ in "refused" }
                if first.shown != second.shown || first.texts != second.texts || first.failures != second.failures || first.end != second.end {
                    FuzzTarget.fail("a case played twice on one flow did two things")
                }
                if first.failures.contains(where: { !(0...bytes.count).contains($0.offset) }) { FuzzTarget.fail("a failure placed outside the file") }
            }
        }
    }
}

extension TestsFuzz {
    /// Reads `bytes` as an answers file for each example flow.
    func answers(_ bytes: [UInt8]) {
        let lines = 1 + bytes.count { $0 == 0x0A }
        for doc in flows {
            switch FlowAnswers.read(bytes, for: doc) {
            case .failure(let failure):
                if failure.diagnostics.isEmpty { FuzzTarget.fail("an answers file refused without a reason") }
                for d in failure.diagnostics {
                    if let line = d.line, !(1...lines).contains(line) || (d.column ?? 1) < 1 {
                        FuzzTarget.fail("a problem placed at \(line):\(d.column ?? 0) of \(lines) lines")
                    }
                }
            case .success(let given):
                let ids = Set(doc.graph.nodes.compactMap(\.id))
                for (key, answer) in given.byBlock {
                    if !ids.contains(key) { FuzzTarget.fail("an answer taken for \(key), no block of the flow") }
                    if answer.line < 1 || answer.line > lines || answer.column < 1 { FuzzTarget.fail("an answer placed at \(answer.line):\(answer.column)") }
                }
            }
        }
    }
}

/// One service over the example flows (`ROCKET_FUZZ_FLOWS`, default `examples`), in memory, on a
/// manual clock. An input is requests apart by NUL bytes, each `METHOD TARGET`, header lines, an
/// empty line and its body; `{id}` in a target or body is a conversation started for the input,
/// `{alert}` an alert made for it, and a request that is only `+` moves the clock on ten seconds.
final class ServerFuzz: @unchecked Sendable {
    static let shared = ServerFuzz()

    let clock = ManualClock(now: 1_800_000_000)
    let service: ConversationService

    init() {
        var c = ServerConfiguration()
        c.timing = .instant
        let directory = getenv("ROCKET_FUZZ_FLOWS").map { String(cString: $0) } ?? "examples"
        service = ConversationService(
            flows: FlowLibrary(directory: directory, clock: clock), archive: nil, scenarios: InMemoryScenarioStore(), clock: clock,
            configuration: c, access: .random(insecureDev: true))
    }

    func run(_ bytes: [UInt8]) {
        let started = service.handle(
            HTTPRequest(
                method: "POST", path: "/v1/conversations", headers: ["Content-Type": "application/json", "Rocket-Visitor": "fuzz"],
                body: Array(#"{"flow": "welcome", "visitor": "fuzz"}"#.utf8)))
        let made = service.handle(
            HTTPRequest(
                method: "POST", path: "/v1/alerts", headers: ["Content-Type": "application/json"],
                body: Array(
                    #"{"visitor": "fuzz", "title": "Delete?", "actions": [{"title": "Delete", "style": "destructive"}, {"title": "Cancel", "style": "cancel"}]}"#
                        .utf8)))
        let id = Self.id(in: started, under: "conversation")
        let alert = Self.id(in: made, under: "alert")
        for part in bytes.split(separator: 0, omittingEmptySubsequences: true).prefix(16) {
            if part.elementsEqual([0x2B]) {
                clock.advance(by: 10)
                _ = service.advanceDue()
                continue
            }
            let text = String(decoding: part, as: UTF8.self).replacingAll("{id}", with: id).replacingAll("{alert}", with: alert)
            let (head, body) = text.firstRange(of: "\n\n").map { (String(text[..<$0.lowerBound]), String(text[$0.upperBound...])) } ?? (text, "")
            let lines = head.split(separator: "\n", omittingEmptySubsequences: false)
            let line = lines.first.map(String.init) ?? ""
            let words = line.split(separator: " ", maxSplits: 1)
            guard words.count == 2 else { continue }
            let target = String(words[1])
            let (path, queryText) = target.firstIndex(of: "?").map { (String(target[..<$0]), String(target[target.index(after: $0)...])) } ?? (target, "")
            var query: [String: String] = [:]
            for pair in queryText.split(separator: "&") {
                let kv = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                query[String(kv[0])] = kv.count > 1 ? String(kv[1]) : ""
            }
            var headers: [String: String] = [:]
            for h in lines.dropFirst() {
                guard let colon = h.firstIndex(of: ":") else { continue }
                headers[String(h[..<colon])] = String(h[h.index(after: colon)...].drop { $0 == " " })
            }
            let answer = service.handle(HTTPRequest(method: String(words[0]), path: path, query: query, headers: headers, body: Array(body.utf8)))
            check(answer, for: line)
        }
        _ = service.flush()
    }

    /// The `id` of the object under `key` in an answer ("none" when there is none).
    static func id(in answer: HTTPResponse, under key: String) -> String {
        guard let node = try? JSONReader.parse(answer.payload), case .object(let top) = node.value,
            case .object(let inner)? = top.first(where: { $0.key == key })?.value.value,
            case .string(let s)? = inner.first(where: { $0.key == "id" })?.value.value
        else { return "none" }
        return s
    }

    /// `ROCKET_FUZZ_VERBOSE` set: each request's line and status on standard error (to see
    /// what a corpus reaches).
    let verbose = getenv("ROCKET_FUZZ_VERBOSE") != nil

    func check(_ answer: HTTPResponse, for line: String) {
        if verbose { FuzzTarget.say("\(answer.status) \(line) \(String(decoding: answer.payload.prefix(120), as: UTF8.self))") }
        if !(100...599).contains(answer.status) { FuzzTarget.fail("\(line) was answered \(answer.status)") }
        if answer.status == 500 { FuzzTarget.fail("\(line) was answered 500: \(String(decoding: answer.payload.prefix(300), as: UTF8.self))") }
        let type = answer.headers.first { $0.0.lowercased() == "content-type" }?.1 ?? ""
        if answer.stream == nil, type.hasPrefix("application/json"), (try? JSONReader.parse(answer.payload)) == nil {
            FuzzTarget.fail("\(line) was answered JSON that does not parse: \(String(decoding: answer.payload.prefix(300), as: UTF8.self))")
        }
    }
}

/// The flow saved conversations are read against (`ROCKET_FUZZ_SNAPSHOT_FLOW`, default the
/// snapshot fixtures' welcome flow).
final class SnapshotFuzz: @unchecked Sendable {
    static let shared = SnapshotFuzz()

    let document: FlowDocument

    init() {
        let path = getenv("ROCKET_FUZZ_SNAPSHOT_FLOW").map { String(cString: $0) } ?? "Tests/RocketCLITests/Fixtures/snapshot-v1/welcome.json"
        guard let bytes = FuzzTarget.contents(of: path), let doc = FlowLoader.load(bytes).document else { FuzzTarget.fail("cannot load the flow \(path)") }
        document = doc
    }

    func run(_ bytes: [UInt8]) {
        let graph = document.makeGraph()
        // A snapshot naming another flow is read as this flow's: what is fuzzed is its state,
        // not the check of which flow it names.
        let snapshot: ConversationSnapshot
        do throws(ConversationSnapshot.Failure) {
            snapshot = try ConversationSnapshot(jsonText: bytes, graph: graph)
        } catch {
            guard case .otherFlow(_, let found) = error,
                let read = try? ConversationSnapshot(jsonText: bytes, graph: graph, identity: found)
            else { return }
            snapshot = read
        }
        var conversation: Conversation
        do throws(ConversationSnapshot.Failure) {
            conversation = try snapshot.restore(
                graph: graph, author: document.makeAuthor(), closeButton: document.makeCloseButton(), options: ConversationOptions(), at: 100,
                flow: snapshot.flow)
        } catch { return }
        let again = ConversationSnapshot(conversation, at: 100, flow: snapshot.flow)
        guard let text = try? again.jsonText() else { FuzzTarget.fail("a restored conversation's snapshot cannot be written") }
        do throws(ConversationSnapshot.Failure) {
            _ = try ConversationSnapshot(jsonText: Array(text.utf8), graph: graph, identity: snapshot.flow)
        } catch { FuzzTarget.fail("a restored conversation's snapshot does not read back: \(error)\n\(text)") }
        var now = 100.0
        for intent: RocketIntent in [.tap, .submit("Ada"), .choose(0), .back, .tap, .close] {
            now += 5
            _ = conversation.advance(to: now)
            _ = try? conversation.send(intent, at: now)
        }
    }
}
