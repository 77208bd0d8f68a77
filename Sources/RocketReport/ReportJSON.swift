package import RocketJSON

extension Report {
    /// The report as JSON (docs/REPORTS.md describes every field):
    /// `{"flows": [{"flow", "variants": [{"variant", "exposures", "starts", "completions",
    /// "completionRate", "dismissals", "blocks": [{"id", "reached", "answered", "dropped",
    /// "medianSecondsToAnswer", "type", "answers": [{"option", "title", "count"}], "rating": {"answers",
    /// "mean", "scale", "nps": {"score", "promoters", "passives", "detractors"}}}], "comparison"}]}],
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
                    w.key("neededPerVariant")
                    count(c.statistics.neededPerVariant)
                    w.close()
                } else {
                    w.null()
                }
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
