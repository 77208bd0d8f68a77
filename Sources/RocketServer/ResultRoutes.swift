import RocketCore
import RocketJSON
import RocketReport
import Synchronization

extension ConversationService {
    /// The query parameters `GET /v1/results` takes.
    static let resultParameters = ["flow", "visitor", "after", "limit", "since", "until"]
    /// The most results one answer holds.
    static let resultsPerAnswer = 1000

    /// `GET /v1/results`: what conversations that ended were answered, for a site's back end
    /// only (a site key), in the order the store wrote them. Query: `flow`, `visitor`, `after` (the `next`
    /// of the answer before; 0 at first), `limit` (1 to 1,000; default 100), `since` and `until`
    /// (only the results of conversations that ended in that window: as a report's, a date, a
    /// time or a while before now). One page is read at
    /// a time (429 `results-busy` meanwhile), on the thread for long work and, for SQLite,
    /// through a read-only connection of its own: neither the threads that answer requests nor
    /// the writer wait for it.
    func results(_ request: HTTPRequest) -> HTTPResponse {
        if let refusal = requireSite(request) { return refusal.response }
        if let refusal = Self.queryRefusal(request, takes: Self.resultParameters) { return refusal }
        let flow = request.query["flow"]
        if let flow, !FlowLibrary.isName(flow) { return .error(400, "bad-query", "\"flow\" must be a flow's name") }
        let visitor = request.query["visitor"]
        if let visitor, !Self.isVisitor(visitor) { return .error(400, "bad-query", "\"visitor\" must be a visitor id") }
        var after = 0
        if let a = request.query["after"] {
            guard a.utf8.count <= 18, let n = Int(a), n >= 0 else {
                return .error(400, "bad-query", "\"after\" must be a whole number from 0 (the \"next\" of the answer before)")
            }
            after = n
        }
        var limit = 100
        if let l = request.query["limit"] {
            guard l.utf8.count <= 5, let n = Int(l), (1...Self.resultsPerAnswer).contains(n) else {
                return .error(400, "bad-query", "\"limit\" must be a whole number from 1 to \(Self.resultsPerAnswer)")
            }
            limit = n
        }
        let ended: ReportWindow?
        switch Self.timeWindow(since: request.query["since"], until: request.query["until"], now: clock.now) {
        case .success(let w): ended = w
        case .failure(let refusal): return .error(400, "bad-query", refusal.message(commandLine: false))
        }
        guard let archive else {
            return .error(404, "no-results", "this server keeps no results (it runs without a store)")
        }
        guard keepsResults else {
            return .error(404, "no-results", "this server keeps no results (--keep-results 0)")
        }
        // One page at a time, on the thread for long work: a back end that asks in a loop never
        // holds up the database thread that starts and loads conversations.
        guard readingResults.compareExchange(expected: false, desired: true, ordering: .acquiring).exchanged else {
            var r = HTTPResponse.error(429, "results-busy", "a page of results is being read; try again in a moment")
            r.headers.append(("Retry-After", "1"))
            return r
        }
        let (from, most) = (after, limit)
        return .deferred(slow: true) {
            defer { self.readingResults.store(false, ordering: .releasing) }
            let rows: [ConversationArchive.StoredResult]
            do throws(ConversationArchive.Failure) {
                rows = try archive.results(flow: flow, visitor: visitor, ended: ended, after: from, limit: most, maxBytes: RocketLimits.resultPageBytes)
            } catch {
                self.log("rocket serve: results: \(error.message)")
                return .error(503, "store-unavailable", "the results cannot be read now")
            }
            var w = JSONBytes(capacity: 256 + rows.count * 256)
            w.open()
            w.key("results", first: true)
            w.openArray()
            for (k, row) in rows.enumerated() {
                if k > 0 { w.comma() }
                row.write(into: &w)
            }
            w.closeArray()
            w.key("next")
            w.number(rows.last?.seq ?? from)
            w.close()
            return HTTPResponse(status: 200, headers: HTTPResponse.jsonHeaders, body: w.out + [0x0A])
        }
    }
}
