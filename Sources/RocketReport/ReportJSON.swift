package import RocketJSON
import RocketCore

extension Report {
    /// The report as JSON (docs/REPORTS.md describes every field):
    /// `{"flows": [{"flow", "variants": [{"variant", "exposures", "starts", "completions",
    /// "completionRate", "dismissals", "blocks": [{"id", "reached", "answered", "dropped",
    /// "medianSecondsToAnswer", "type", "answers": [{"option", "title", "count"}], "rating": {"answers",
    /// "mean", "scale", "nps": {"score", "promoters", "passives", "detractors"}}}], "comparison": {"against",
    /// "difference", "ci95", "pValue", "pValueHolm", "neededPerVariant"}, "errors": [{"block", "path",
    /// "code", "conversations"}]}]}],
    /// "records", "minCount", "by", "since", "until"}`; a hidden count is null; `"by"` says what the
    /// rows (`variants`) stand for: `variant` or `version`; `"since"` and `"until"` the window of
    /// beginnings counted (null: no bound).
    public var json: String {
        var w = JSONBytes(capacity: 4096)
        write(into: &w)
        return String(decoding: w.out, as: UTF8.self)
    }

    /// Writes ``json`` into `w`.
    package func write(into w: inout JSONBytes) {
        func count(_ n: Int?) {
            if let n { w.number(n) } else { w.null() }
        }
        func real(_ x: Double?) {
            if let x { w.number(x, fractionDigits: 6) } else { w.null() }
        }
        w.open()
        w.key("flows", first: true)
        w.openArray()
        for (f, flow) in flows.enumerated() {
            if f > 0 { w.comma() }
            w.open()
            w.key("flow", first: true)
            w.string(flow.flow)
            w.key("variants")
            w.openArray()
            for (k, v) in flow.variants.enumerated() {
                if k > 0 { w.comma() }
                w.open()
                w.key("variant", first: true)
                w.string(v.variant)
                w.key("exposures")
                count(v.exposures)
                w.key("starts")
                count(v.starts)
                w.key("completions")
                count(v.completions)
                w.key("completionRate")
                real(v.completionRate)
                w.key("dismissals")
                w.open()
                for (d, item) in v.dismissals.enumerated() {
                    w.key(escaping: item.reason, first: d == 0)
                    count(item.count)
                }
                w.close()
                w.key("blocks")
                w.openArray()
                for (b, block) in v.blocks.enumerated() {
                    if b > 0 { w.comma() }
                    w.open()
                    w.key("id", first: true)
                    w.string(block.id)
                    w.key("reached")
                    count(block.reached)
                    w.key("answered")
                    count(block.answered)
                    w.key("dropped")
                    count(block.dropped)
                    w.key("medianSecondsToAnswer")
                    real(block.medianSecondsToAnswer)
                    w.key("type")
                    if let t = block.type { w.string(t) } else { w.null() }
                    w.key("answers")
                    w.openArray()
                    for (a, answer) in block.answers.enumerated() {
                        if a > 0 { w.comma() }
                        w.open()
                        w.key("option", first: true)
                        w.number(answer.option)
                        w.key("title")
                        if let t = answer.title { w.string(t) } else { w.null() }
                        w.key("count")
                        count(answer.count)
                        w.close()
                    }
                    w.closeArray()
                    w.key("rating")
                    if let r = block.rating {
                        w.open()
                        w.key("answers", first: true)
                        w.number(r.answers)
                        w.key("mean")
                        real(r.mean)
                        w.key("scale")
                        if let s = r.scale { w.numbers([s.lowerBound, s.upperBound]) } else { w.null() }
                        w.key("nps")
                        if let nps = r.netPromoter {
                            w.open()
                            w.key("score", first: true)
                            real(nps.score)
                            w.key("promoters")
                            count(nps.promoters)
                            w.key("passives")
                            count(nps.passives)
                            w.key("detractors")
                            count(nps.detractors)
                            w.close()
                        } else {
                            w.null()
                        }
                        w.close()
                    } else {
                        w.null()
                    }
                    w.close()
                }
                w.closeArray()
                w.key("comparison")
                if let c = v.comparison {
                    w.open()
                    w.key("against", first: true)
                    w.string(c.against)
                    w.key("difference")
                    real(c.statistics.difference)
                    w.key("ci95")
                    w.openArray()
                    real(c.statistics.ci95.low)
                    w.comma()
                    real(c.statistics.ci95.high)
                    w.closeArray()
                    w.key("pValue")
                    real(c.statistics.pValue)
                    w.key("pValueHolm")
                    real(c.holmPValue)
                    w.key("neededPerVariant")
                    count(c.statistics.neededPerVariant)
                    w.close()
                } else {
                    w.null()
                }
                w.key("errors")
                w.openArray()
                for (e, error) in v.errors.enumerated() {
                    if e > 0 { w.comma() }
                    w.open()
                    w.key("block", first: true)
                    w.string(error.block)
                    w.key("path")
                    w.string(error.path)
                    w.key("code")
                    w.string(error.code)
                    w.key("conversations")
                    count(error.conversations)
                    w.close()
                }
                w.closeArray()
                w.close()
            }
            w.closeArray()
            w.close()
        }
        w.closeArray()
        w.key("records")
        w.number(records)
        w.key("minCount")
        w.number(minCount)
        w.key("by")
        w.string(grouping.rawValue)
        w.key("since")
        if let t = window?.since { w.string(ReportFormat.instant(t)) } else { w.null() }
        w.key("until")
        if let t = window?.until { w.string(ReportFormat.instant(t)) } else { w.null() }
        w.close()
    }
}

extension Report {
    /// The report a `GET /v1/report` answered (``json``, read back), for `rocket report --server`
    /// to print as the terminal's table, Markdown or a page; nil when `bytes` are not one. Its
    /// numbers are those of the JSON (rates and statistics to six places: what every format
    /// shows, to fewer).
    public init?(json bytes: [UInt8]) {
        guard let node = try? JSONReader.parse(bytes), case .object(let top) = node.plainValue else { return nil }
        let field = Self.fields(top)
        guard case .array(let flowItems)? = field["flows"], let records = Self.int(field["records"]), let minCount = Self.int(field["minCount"]),
            case .string(let by)? = field["by"], let grouping = ReportGrouping(rawValue: by)
        else { return nil }
        var flows: [FlowReport] = []
        for item in flowItems {
            guard case .object(let f) = item, case .string(let name)? = Self.fields(f)["flow"], case .array(let variantItems)? = Self.fields(f)["variants"]
            else { return nil }
            var variants: [VariantReport] = []
            for v in variantItems {
                guard let variant = Self.variant(v) else { return nil }
                variants.append(variant)
            }
            flows.append(FlowReport(flow: name, variants: variants))
        }
        var window: ReportWindow?
        let since = Self.instant(field["since"]), until = Self.instant(field["until"])
        guard since != nil || field["since"] == .null || field["since"] == nil, until != nil || field["until"] == .null || field["until"] == nil else {
            return nil
        }
        if since != nil || until != nil { window = ReportWindow(since: since, until: until) }
        self.init(flows: flows, records: records, minCount: minCount, grouping: grouping, window: window)
    }

    /// An object's members by name (the first of a name given twice).
    private static func fields(_ members: [(String, JSONValue)]) -> [String: JSONValue] {
        Dictionary(members, uniquingKeysWith: { a, _ in a })
    }

    /// A whole number from 0 up (nil for anything else, null included).
    private static func int(_ v: JSONValue?) -> Int? {
        guard case .number(let n)? = v, n >= 0, n < 1e15, n == n.rounded() else { return nil }
        return Int(n)
    }

    /// A count as the JSON writes one: a whole number, or null for a hidden one. The outer nil
    /// is anything else.
    private static func count(_ v: JSONValue?) -> Int?? {
        if v == .null { return .some(nil) }
        return int(v).map { .some($0) }
    }

    /// A number, or null (the outer nil: anything else).
    private static func real(_ v: JSONValue?) -> Double?? {
        if v == .null { return .some(nil) }
        guard case .number(let x)? = v, x.isFinite else { return nil }
        return .some(x)
    }

    /// A window's bound as the JSON writes it (a date or a time, UTC); nil otherwise.
    private static func instant(_ v: JSONValue?) -> Double? {
        guard case .string(let text)? = v else { return nil }
        guard let t = CivilDate.instant(fromText: text)?.instant, CivilDate.instants.contains(t) else { return nil }
        return t
    }

    private static func variant(_ value: JSONValue) -> VariantReport? {
        guard case .object(let members) = value else { return nil }
        let f = fields(members)
        guard case .string(let name)? = f["variant"], let exposures = count(f["exposures"]), let starts = count(f["starts"]),
            let completions = count(f["completions"]), let rate = real(f["completionRate"]), case .object(let ends)? = f["dismissals"],
            case .array(let blockItems)? = f["blocks"]
        else { return nil }
        var dismissals: [(reason: String, count: Int?)] = []
        for (reason, n) in ends {
            guard let n = count(n) else { return nil }
            dismissals.append((reason, n))
        }
        var blocks: [BlockReport] = []
        for b in blockItems {
            guard let block = block(b) else { return nil }
            blocks.append(block)
        }
        var comparison: VariantReport.Comparison?
        switch f["comparison"] {
        case .null?, nil: comparison = nil
        case .object(let c)?:
            let cf = fields(c)
            guard case .string(let against)? = cf["against"], case .number(let difference)? = cf["difference"],
                case .array(let interval)? = cf["ci95"], interval.count == 2, case .number(let low) = interval[0], case .number(let high) = interval[1],
                case .number(let p)? = cf["pValue"], let needed = count(cf["neededPerVariant"])
            else { return nil }
            // Absent (a server of the release before): not adjusted.
            var holm: Double?
            if cf["pValueHolm"] != nil {
                guard let adjusted = real(cf["pValueHolm"]) else { return nil }
                holm = adjusted
            }
            comparison = VariantReport.Comparison(
                against: against, statistics: ProportionComparison(difference: difference, ci95: (low, high), pValue: p, neededPerVariant: needed),
                holmPValue: holm)
        default: return nil
        }
        // Absent (a server of a release before): none said.
        var errors: [ErrorReport] = []
        switch f["errors"] {
        case .null?, nil: break
        case .array(let items)?:
            for item in items {
                guard case .object(let em) = item else { return nil }
                let ef = fields(em)
                guard case .string(let block)? = ef["block"], case .string(let path)? = ef["path"], case .string(let code)? = ef["code"],
                    let n = count(ef["conversations"])
                else { return nil }
                errors.append(ErrorReport(block: block, path: path, code: code, conversations: n))
            }
        default: return nil
        }
        return VariantReport(
            variant: name, exposures: exposures, starts: starts, completions: completions, completionRate: rate, dismissals: dismissals,
            blocks: blocks, comparison: comparison, errors: errors)
    }

    private static func block(_ value: JSONValue) -> BlockReport? {
        guard case .object(let members) = value else { return nil }
        let f = fields(members)
        guard case .string(let id)? = f["id"], let reached = count(f["reached"]), let answered = count(f["answered"]),
            let dropped = count(f["dropped"]), let median = real(f["medianSecondsToAnswer"])
        else { return nil }
        var block = BlockReport(id: id, reached: reached, answered: answered, dropped: dropped, medianSecondsToAnswer: median)
        switch f["type"] {
        case .string(let t)?: block.type = t
        case .null?, nil: break
        default: return nil
        }
        if case .array(let answers)? = f["answers"] {
            for a in answers {
                guard case .object(let am) = a else { return nil }
                let af = fields(am)
                guard let option = int(af["option"]), let n = count(af["count"]) else { return nil }
                var title: String?
                switch af["title"] {
                case .string(let t)?: title = t
                case .null?, nil: title = nil
                default: return nil
                }
                block.answers.append(OptionReport(option: option, title: title, count: n))
            }
        }
        switch f["rating"] {
        case .null?, nil: break
        case .object(let rm)?:
            let rf = fields(rm)
            guard let answers = int(rf["answers"]), case .number(let mean)? = rf["mean"] else { return nil }
            var scale: ClosedRange<Int>?
            if case .array(let ends)? = rf["scale"] {
                guard ends.count == 2, let low = int(ends[0]), let high = int(ends[1]), low <= high else { return nil }
                scale = low...high
            }
            var nps: NetPromoterScore?
            if case .object(let nm)? = rf["nps"] {
                let nf = fields(nm)
                guard case .number(let score)? = nf["score"], let promoters = count(nf["promoters"]), let passives = count(nf["passives"]),
                    let detractors = count(nf["detractors"])
                else { return nil }
                nps = NetPromoterScore(score: score, promoters: promoters, passives: passives, detractors: detractors)
            }
            block.rating = RatingSummary(answers: answers, mean: mean, scale: scale, netPromoter: nps)
        default: return nil
        }
        return block
    }
}
