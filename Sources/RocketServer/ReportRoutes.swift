import RocketCore
package import RocketReport
import RocketScenarioEngine
import Synchronization

extension ConversationService {
    /// Why a report's window cannot be read.
    package enum WindowRefusal: Error, Equatable {
        /// A bound (`since` or `until`) that is no date, time or while ago.
        case unreadable(bound: String, text: String)
        /// `since` not before `until`.
        case order(since: Double, until: Double)

        /// The refusal in words, its bounds named as the command line writes them (`'--since 5'`)
        /// or as the API does (`"since"`).
        package func message(commandLine: Bool) -> String {
            let what = "must be a date (2026-12-01, UTC), a time (2026-12-01T09:00:00Z) or a while ago (7d, 12h)"
            switch self {
            case .unreadable(let bound, let text):
                let shown = Sanitizer.clean(String(text.prefix(64)), keepNewlines: false)
                return commandLine ? "'--\(bound) \(shown)' \(what)" : "\"\(bound)\" \(what)"
            case .order(let a, let b):
                let order = commandLine ? "--since must come before --until" : "\"since\" must come before \"until\""
                return order + " (\(ReportFormat.instant(a)) is not before \(ReportFormat.instant(b)))"
            }
        }
    }

    /// A window of time (`since`, `until`; nil when neither is given), each bound a date, a time
    /// or a while before `now`: the beginnings a report counts (`rocket report --since/--until`,
    /// `GET /v1/report?since=&until=`) and the ends of the results listed (`rocket results
    /// --since/--until`, `GET /v1/results?since=&until=`).
    package static func timeWindow(since: String?, until: String?, now: Double) -> Result<ReportWindow?, WindowRefusal> {
        var bounds: [Double?] = []
        for (bound, text) in [("since", since), ("until", until)] {
            guard let text else {
                bounds.append(nil)
                continue
            }
            guard let t = WallTime.parse(text, orDurationBefore: now) else { return .failure(.unreadable(bound: bound, text: text)) }
            bounds.append(t)
        }
        if let a = bounds[0], let b = bounds[1], a >= b { return .failure(.order(since: a, until: b)) }
        return .success(bounds[0] == nil && bounds[1] == nil ? nil : ReportWindow(since: bounds[0], until: bounds[1]))
    }

    /// The query parameters the report routes take.
    static let reportParameters = ["flow", "minCount", "against", "by", "since", "until"]

    /// 400 `bad-query` for a query parameter a route does not take (a typo must not give an
    /// answer about something else without a word) or one given twice; nil when the query is
    /// made of `parameters`, each at most once.
    static func queryRefusal(_ request: HTTPRequest, takes parameters: [String]) -> HTTPResponse? {
        if let unknown = request.query.keys.sorted().first(where: { !parameters.contains($0) }) {
            return .error(
                400, "bad-query",
                "unknown query parameter \"\(Sanitizer.clean(String(unknown.prefix(64)), keepNewlines: false))\"; this route takes \(parameters.joined(separator: ", "))"
            )
        }
        if let name = request.repeatedParameter {
            return .error(400, "bad-query", "\"\(name)\" is given more than once; give it once")
        }
        return nil
    }

    /// `GET /v1/report` (JSON) and `GET /report` (the page): the report of the records this
    /// server keeps, for a site's back end only (a site key). Query: `flow`, `minCount` (default
    /// 5), `against`, `by` (`variant`, `version`, `day` or `week`), `since` and `until` (the
    /// conversations begun in that window: a date, a time or a while before now). One report is
    /// made at a time (429 while another is), on a thread of its own through a read-only
    /// connection of its own: the writer and the database thread never wait for it.
    func report(_ request: HTTPRequest, page: Bool) -> HTTPResponse {
        if let refusal = requireSite(request) { return refusal.response }
        if let refusal = Self.queryRefusal(request, takes: Self.reportParameters) { return refusal }
        var options = ReportOptions()
        if let flow = request.query["flow"] {
            guard FlowLibrary.isName(flow) else { return .error(400, "bad-query", "\"flow\" must be a flow's name") }
            options.flow = flow
        }
        if let m = request.query["minCount"] {
            guard m.utf8.count <= 7, let n = Int(m), (1...1_000_000).contains(n) else {
                return .error(400, "bad-query", "\"minCount\" must be a whole number from 1 to 1000000")
            }
            options.minCount = n
        }
        if let against = request.query["against"] {
            guard (1...128).contains(against.utf8.count) else { return .error(400, "bad-query", "\"against\" must be a variant's name") }
            options.against = against
        }
        var grouping = ReportGrouping.variant
        if let by = request.query["by"] {
            guard let g = ReportGrouping(rawValue: by) else { return .error(400, "bad-query", "\"by\" must be \(ReportGrouping.phrase)") }
            grouping = g
        }
        let window: ReportWindow?
        switch Self.timeWindow(since: request.query["since"], until: request.query["until"], now: clock.now) {
        case .success(let w): window = w
        case .failure(let refusal): return .error(400, "bad-query", refusal.message(commandLine: false))
        }
        guard let archive else {
            return .error(404, "no-records", "this server keeps no event records (it runs without a store)")
        }
        guard reporting.compareExchange(expected: false, desired: true, ordering: .acquiring).exchanged else {
            var r = HTTPResponse.error(429, "report-busy", "a report is being made; try again in a moment")
            r.headers.append(("Retry-After", "5"))
            return r
        }
        let chosen = options
        let rows = grouping
        return .deferred(slow: true) {
            defer { self.reporting.store(false, ordering: .releasing) }
            var builder = ReportBuilder(by: rows)
            builder.window = window
            do throws(ReportReadFailure) {
                try archive.readRecords(flow: chosen.flow, into: &builder)
            } catch {
                self.log("rocket serve: report: \(error.message)")
                return .error(503, "store-unavailable", "the records cannot be read now")
            }
            let report = builder.report(chosen)
            if page { return HTTPResponse(status: 200, headers: WebAssets.pageHeaders, body: Array(report.html.utf8)) }
            return HTTPResponse(
                status: 200, headers: HTTPResponse.jsonHeaders,
                body: Array(report.json.utf8) + [0x0A])
        }
    }
}
