import RocketCore

/// How the report's numbers are written for people (the terminal table and the page share it).
public enum ReportFormat {
    /// A rating's summary in words: `mean 7.4 of 0–10 from 20 answers; NPS +30 (10 promoters, 4
    /// passives, 4 detractors)`.
    public static func rating(_ r: RatingSummary, minCount: Int) -> String {
        let tenths = Int((r.mean * 10).rounded())
        var out = "mean \(tenths / 10).\(tenths % 10)"
        if let s = r.scale { out += " of \(s.lowerBound)–\(s.upperBound)" }
        out += " from \(grouped(r.answers)) answer\(r.answers == 1 ? "" : "s")"
        if let nps = r.netPromoter {
            func counted(_ n: Int?, _ word: String) -> String { count(n, minCount: minCount) + " " + word + (n == 1 ? "" : "s") }
            out += "; NPS " + score(nps.score)
            out += " (\(counted(nps.promoters, "promoter")), \(counted(nps.passives, "passive")), \(counted(nps.detractors, "detractor")))"
        }
        return out
    }

    /// A Net Promoter Score as people write it: a whole number with its sign (`+30`, `-12`, `0`).
    public static func score(_ x: Double) -> String {
        guard x.isFinite else { return "–" }
        let n = Int(x.rounded())
        return n > 0 ? "+\(n)" : "\(n)"
    }

    /// A count, or `<N` when it is hidden.
    public static func count(_ n: Int?, minCount: Int) -> String {
        guard let n else { return "<\(minCount)" }
        return grouped(n)
    }

    /// `n` with thousands separated by commas.
    public static func grouped(_ n: Int) -> String {
        var digits = String(n.magnitude)
        var out = ""
        while digits.count > 3 {
            out = "," + digits.suffix(3) + out
            digits = String(digits.dropLast(3))
        }
        return (n < 0 ? "-" : "") + digits + out
    }

    /// An instant (seconds since 1970) as RFC 3339 in UTC, to the second; a midnight as its
    /// date alone ("2026-12-01"). Outside years 1 to 9999, its seconds ("@…").
    public static func instant(_ t: Double) -> String {
        guard CivilDate.instants.contains(t) else { return "@\(t)" }
        let whole = Int(t.rounded(.down))
        let days = Int((Double(whole) / 86_400).rounded(.down))
        let seconds = whole - days * 86_400
        let date = CivilDate.text(days: days)
        guard seconds != 0 || t != t.rounded(.down) else { return date }
        let s = seconds % 60
        return date + "T" + CivilDate.clock(minutes: seconds / 60) + ":" + (s < 10 ? "0" : "") + String(s) + "Z"
    }

    /// The count of records a report read, and which conversations it counts when a window
    /// chose them ("1,204 event records read; counted: the conversations begun from 2026-12-01").
    public static func recordsRead(_ report: Report) -> String {
        "\(grouped(report.records)) event records read" + (report.window.map { "; counted: the conversations begun \($0.phrase)" } ?? "")
    }

    /// What a report with no conversations says: none in its records, or none begun in its
    /// window ("No conversations began from 2026-12-01.").
    public static func nothingCounted(_ report: Report) -> String {
        report.window.map { "No conversations began \($0.phrase) in these records." } ?? "No conversations in these records."
    }

    /// A share as a percentage with one decimal ("12.5 %"), or "–".
    public static func percent(_ x: Double?) -> String {
        guard let x, x.isFinite else { return "–" }
        let tenths = (x * 1000).rounded()
        let sign = tenths < 0 ? "-" : ""
        let t = Int(abs(tenths))
        return "\(sign)\(t / 10).\(t % 10) %"
    }

    /// A difference in percentage points with its interval ("+3.0 pp [+0.2, +5.8]"), or "–".
    public static func difference(_ c: VariantReport.Comparison?) -> String {
        guard let c else { return "–" }
        let s = c.statistics
        return "\(points(s.difference)) [\(points(s.ci95.low)), \(points(s.ci95.high))]"
    }

    /// A difference of shares in percentage points, signed, one decimal.
    public static func points(_ x: Double) -> String {
        let tenths = (x * 1000).rounded()
        let t = Int(abs(tenths))
        return (tenths < 0 ? "-" : "+") + "\(t / 10).\(t % 10) pp"
    }

    /// A p-value: three decimals, or "<0.001".
    public static func pValue(_ c: VariantReport.Comparison?) -> String {
        guard let p = c?.statistics.pValue else { return "–" }
        return pValue(p)
    }

    /// What is said under a flow whose variants make several comparisons: each one's p-value
    /// adjusted for them all, as a label and its items ("p-values adjusted for 3 comparisons
    /// (Holm)", ["b 0.041", "c 0.120", "d 0.300"]); nil for a flow with one comparison or none.
    /// Unadjusted, one of several small p-values is likely by chance alone.
    public static func holm(_ flow: FlowReport, by grouping: ReportGrouping) -> (label: String, items: [String])? {
        let adjusted = flow.variants.compactMap { v in v.comparison?.holmPValue.map { (variantName(v.variant, by: grouping), $0) } }
        guard adjusted.count >= 2 else { return nil }
        return ("p-values adjusted for \(adjusted.count) comparisons (Holm)", adjusted.map { "\($0.0) \(pValue($0.1))" })
    }

    /// ``holm(_:by:)`` as one line ("p-values adjusted for 2 comparisons (Holm): b 0.042, c 0.078").
    public static func holmNote(_ flow: FlowReport, by grouping: ReportGrouping) -> String? {
        holm(flow, by: grouping).map { $0.label + ": " + $0.items.joined(separator: ", ") }
    }

    /// `p` with three decimals, or "<0.001".
    public static func pValue(_ p: Double) -> String {
        if p < 0.001 { return "<0.001" }
        let m = Int((p * 1000).rounded())
        let frac = String(m % 1000)
        return "\(m / 1000)." + String(repeating: "0", count: 3 - frac.count) + frac
    }

    /// Seconds, short: "0.8 s", "12 s", "3 min 20 s"; "–" when unknown.
    public static func seconds(_ s: Double?) -> String {
        guard let s, s.isFinite else { return "–" }
        if s < 10 {
            let tenths = Int((s * 10).rounded())
            return "\(tenths / 10).\(tenths % 10) s"
        }
        let whole = Int(s.rounded())
        if whole < 120 { return "\(whole) s" }
        return "\(whole / 60) min \(whole % 60) s"
    }

    /// The name a row is shown under: a variant ("(all)" for a flow without an experiment), or
    /// a version ("(no version)" for conversations whose records name none).
    public static func variantName(_ v: String, by grouping: ReportGrouping = .variant) -> String {
        guard v.isEmpty else { return v }
        switch grouping {
        case .version: return "(no version)"
        case .day, .week: return "(no time)"
        case .variant: return "(all)"
        }
    }

    /// What a report's rows are called, capitalized or not.
    public static func rowKind(_ grouping: ReportGrouping, capitalized: Bool = false) -> String {
        let word = grouping.rawValue
        return capitalized ? word.prefix(1).uppercased() + word.dropFirst() : word
    }

    /// The share of those who reached a block that went no further.
    public static func dropShare(_ b: BlockReport) -> Double? {
        guard let reached = b.reached, reached > 0, let dropped = b.dropped else { return nil }
        return Double(dropped) / Double(reached)
    }

    /// What an option is called: its title when the report shows one, else by its place as the
    /// block's kind numbers it ("left", "right", a rating's value, "option 3").
    public static func optionName(_ a: OptionReport, of b: BlockReport) -> String {
        if let t = a.title { return t }
        switch b.type {
        case "doubleButton" where a.option < 2: return a.option == 0 ? "left" : "right"
        case "rating": return "\(a.option + 1)"  // records without titles come from scales from 1
        case "button" where a.option == 0: return "the button"
        default: return "option \(a.option + 1)"
        }
    }

    /// The share of those who answered a block whose last answer chose this option (a multiple
    /// choice's shares may add up to more than all).
    public static func answerShare(_ a: OptionReport, of b: BlockReport) -> Double? {
        guard let answered = b.answered, answered > 0, let n = a.count else { return nil }
        return Double(n) / Double(answered)
    }
}

extension Report {
    /// The report as one self-contained HTML page: tables, an SVG funnel per variant and an SVG
    /// chart of the differences with their intervals; no script and nothing fetched, light and
    /// dark by the reader's preference.
    public var html: String {
        var out = """
            <!doctype html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>RocketAlert report</title>
            <style>
            :root { color-scheme: light dark; --fg: #1b1f24; --bg: #ffffff; --muted: #4f5863; --line: #c9d1d9;
              --reach: #b9d4f5; --answer: #1f5fa8; --ci: #1f5fa8; --zero: #6e7781; --shade: rgba(27, 31, 36, .22); }
            @media (prefers-color-scheme: dark) {
              :root { --fg: #e6edf3; --bg: #0d1117; --muted: #a4afbb; --line: #30363d; --reach: #1d3b5e; --answer: #79b8ff;
                --ci: #79b8ff; --zero: #8b949e; --shade: rgba(164, 175, 187, .32); }
            }
            * { box-sizing: border-box; }
            body { margin: 0; background: var(--bg); color: var(--fg); font: 15px/1.45 system-ui, sans-serif; }
            main { max-width: 76rem; margin: 0 auto; padding: 1rem; }
            caption { text-align: left; padding: 0 .6rem .25rem; }
            h1 { font-size: 1.5rem; margin: .5rem 0; }
            h2 { font-size: 1.25rem; margin: 2rem 0 .5rem; border-bottom: 1px solid var(--line); padding-bottom: .25rem; }
            h3 { font-size: 1.05rem; margin: 1.25rem 0 .25rem; }
            p.note { color: var(--muted); margin: .25rem 0; }
            /* A table wider than the page scrolls sideways; a shade at an edge says more is there (the
               covers move with the table and hide the shade at the end it has reached). */
            .scroll { overflow-x: auto;
              background: linear-gradient(to right, var(--bg) 40%, transparent) left / 2.5rem 100% no-repeat local,
                linear-gradient(to left, var(--bg) 40%, transparent) right / 2.5rem 100% no-repeat local,
                radial-gradient(farthest-side at left, var(--shade), transparent) left / .8rem 100% no-repeat scroll,
                radial-gradient(farthest-side at right, var(--shade), transparent) right / .8rem 100% no-repeat scroll; }
            table { border-collapse: collapse; margin: .5rem 0; font-variant-numeric: tabular-nums; }
            th, td { padding: .3rem .6rem; border-bottom: 1px solid var(--line); text-align: right; white-space: nowrap; }
            @media (max-width: 40rem) { th, td { padding: .3rem .35rem; } }
            th:first-child, td:first-child, .words { text-align: left; }
            figure { margin: .75rem 0; max-width: 40rem; }
            figcaption { color: var(--muted); font-size: .9rem; }
            svg { display: block; }
            svg text { fill: var(--fg); font: 13px system-ui, sans-serif; }
            svg .reach { fill: var(--reach); }
            svg .answer { fill: var(--answer); }
            svg .ci { stroke: var(--ci); stroke-width: 3; }
            svg .dot { fill: var(--ci); }
            svg .zero { stroke: var(--zero); stroke-width: 1; stroke-dasharray: 4 3; }
            .key { display: inline-block; width: .8em; height: .8em; vertical-align: -.05em; margin: 0 .3em 0 .8em; }
            .key.reach { background: var(--reach); } .key.answer { background: var(--answer); }
            </style>
            </head>
            <body>
            <main>
            <h1>RocketAlert report</h1>

            """
        let hidden = minCount > 1 ? " Counts from 1 to \(minCount - 1) are hidden (shown as &lt;\(minCount))." : ""
        out += "<p class=\"note\">\(ReportFormat.recordsRead(self)).\(hidden)</p>\n"
        if flows.isEmpty { out += "<p>\(ReportFormat.nothingCounted(self))</p>\n" }
        var figure = 0
        for flow in flows {
            let name = shown(flow.flow.isEmpty ? "(unnamed flow)" : flow.flow)
            out += "<section>\n<h2>Flow \(name)</h2>\n"
            out += summaryTable(flow)
            let compared = flow.variants.filter { $0.comparison != nil }
            if !compared.isEmpty {
                figure += 1
                out += comparisonChart(flow, compared, id: figure)
            }
            for v in flow.variants where !v.blocks.isEmpty {
                figure += 1
                out += "<h3>Funnel: \(shown(ReportFormat.variantName(v.variant, by: grouping)))</h3>\n"
                out += funnelChart(v, id: figure)
                out += funnelTable(v)
                if v.blocks.contains(where: { !$0.answers.isEmpty }) {
                    out += "<h3>Answers: \(shown(ReportFormat.variantName(v.variant, by: grouping)))</h3>\n"
                    // A chart for each block with a count shown (hidden ones draw no bar).
                    for b in v.blocks where b.answers.contains(where: { $0.count != nil }) {
                        figure += 1
                        out += answersChart(b, variant: v, id: figure)
                    }
                    out += answersTable(v)
                }
                let rated = v.blocks.compactMap { b in b.rating.map { (b.id, $0) } }
                if !rated.isEmpty {
                    out += "<h3>Ratings: \(shown(ReportFormat.variantName(v.variant, by: grouping)))</h3>\n<ul class=\"ratings\">\n"
                    for (id, r) in rated { out += "<li><strong>\(shown(id))</strong>: \(shown(ReportFormat.rating(r, minCount: minCount)))</li>\n" }
                    out += "</ul>\n"
                }
            }
            for v in flow.variants where !v.errors.isEmpty {
                out += "<h3>Errors: \(shown(ReportFormat.variantName(v.variant, by: grouping)))</h3>\n"
                out += errorsTable(v)
            }
            out += "</section>\n"
        }
        out += "</main>\n</body>\n</html>\n"
        return out
    }

    private func summaryTable(_ flow: FlowReport) -> String {
        let c = shownCount
        var out = """
            <div class="scroll" tabindex="0" role="region" aria-label="\(ReportFormat.rowKind(grouping, capitalized: true))s of \(shown(flow.flow.isEmpty ? "this flow" : flow.flow))"><table>
            <caption class="note">\(ReportFormat.rowKind(grouping, capitalized: true))s of \(shown(flow.flow.isEmpty ? "this flow" : flow.flow))</caption>
            <thead><tr><th scope="col">\(ReportFormat.rowKind(grouping, capitalized: true))</th>\(flow.hasExposures ? "<th scope=\"col\">Exposures</th>" : "")<th scope="col">Starts</th><th scope="col">Completions</th>\
            <th scope="col">Completion rate</th>
            """
        // The comparison's columns only where there is a comparison.
        let compared = flow.variants.contains { $0.comparison != nil }
        if compared { out += "<th scope=\"col\">Difference (95 % CI)</th><th scope=\"col\">p-value</th><th scope=\"col\">Needed per variant</th>" }
        out += "</tr></thead>\n<tbody>\n"
        var ended: [String] = []
        for v in flow.variants {
            let dismissals = v.dismissals.map { "\(shown($0.reason)) \(c($0.count))" }.joined(separator: ", ")
            if !dismissals.isEmpty { ended.append("\(shown(ReportFormat.variantName(v.variant, by: grouping))): \(dismissals)") }
            let needed = v.comparison?.statistics.neededPerVariant.map(ReportFormat.grouped) ?? "–"
            out +=
                "<tr><th scope=\"row\">\(shown(ReportFormat.variantName(v.variant, by: grouping)))</th>\(flow.hasExposures ? "<td>\(c(v.exposures))</td>" : "")<td>\(c(v.starts))</td>"
            out += "<td>\(c(v.completions))</td><td>\(ReportFormat.percent(v.completionRate))</td>"
            if compared {
                out += "<td>\(ReportFormat.difference(v.comparison))</td><td>\(shown(ReportFormat.pValue(v.comparison)))</td><td>\(needed)</td>"
            }
            out += "</tr>\n"
        }
        out += "</tbody></table></div>\n"
        if let holm = ReportFormat.holmNote(flow, by: grouping) { out += "<p class=\"note\">\(shown(holm)).</p>\n" }
        if !ended.isEmpty { out += "<p class=\"note\">Ended — \(ended.joined(separator: "; ")).</p>\n" }
        return out
    }

    private func funnelTable(_ v: VariantReport) -> String {
        let c = shownCount
        var out = """
            <div class="scroll" tabindex="0" role="region" aria-label="Funnel of \(shown(ReportFormat.variantName(v.variant, by: grouping))), by block"><table>
            <thead><tr><th scope="col">Block</th><th scope="col">Reached</th><th scope="col">Answered</th><th scope="col">Dropped here</th>\
            <th scope="col">Median time to answer</th></tr></thead>
            <tbody>

            """
        for b in v.blocks {
            let share = ReportFormat.dropShare(b).map { " (\(ReportFormat.percent($0)))" } ?? ""
            out += "<tr><th scope=\"row\">\(shown(b.id))</th><td>\(c(b.reached))</td><td>\(c(b.answered))</td>"
            out += "<td>\(c(b.dropped))\(share)</td><td>\(ReportFormat.seconds(b.medianSecondsToAnswer))</td></tr>\n"
        }
        return out + "</tbody></table></div>\n"
    }

    /// Where a variant's expressions failed, the places most conversations met first.
    private func errorsTable(_ v: VariantReport) -> String {
        let c = shownCount
        var out = """
            <div class="scroll" tabindex="0" role="region" aria-label="Errors of \(shown(ReportFormat.variantName(v.variant, by: grouping))), by place"><table>
            <thead><tr><th scope="col">Block</th><th scope="col" class="words">Where</th><th scope="col" class="words">Error</th><th scope="col">Conversations</th></tr></thead>
            <tbody>

            """
        for e in v.errors {
            out += "<tr><th scope=\"row\">\(shown(e.block.isEmpty ? "–" : e.block))</th><td class=\"words\">\(shown(e.path.isEmpty ? "–" : e.path))</td>"
            out += "<td class=\"words\">\(shown(e.code))</td><td>\(c(e.conversations))</td></tr>\n"
        }
        return out + "</tbody></table></div>\n"
    }

    /// One block's answers as bars: each option's share of those who answered it (a hidden count
    /// draws no bar), placed in percentages as the funnel is.
    private func answersChart(_ b: BlockReport, variant v: VariantReport, id: Int) -> String {
        let rowHeight = 40
        // "Answers to pick", or "Answers to pick, variant b".
        let about = "Answers to \(shown(b.id))" + (v.variant.isEmpty ? "" : ", variant \(shown(v.variant))")
        var out = "<figure>\n<figcaption>\(about): the share of those who answered that chose each (by each conversation's last answer)</figcaption>\n"
        out += "<svg role=\"img\" aria-labelledby=\"chart\(id)-title\" width=\"100%\" height=\"\(b.answers.count * rowHeight + 4)\">\n"
        out += "<title id=\"chart\(id)-title\">\(about)</title>\n"
        for (k, a) in b.answers.enumerated() {
            let y = k * rowHeight
            let share = ReportFormat.answerShare(a, of: b)
            let label =
                "\(shown(ReportFormat.optionName(a, of: b))): \(shownCount(a.count)) (\(ReportFormat.percent(share)))"
            out += "<text x=\"0\" y=\"\(y + 15)\">\(label)</text>\n"
            out += "<rect class=\"answer\" x=\"0\" y=\"\(y + 21)\" width=\"\(Self.percent(100 * (share ?? 0)))\" height=\"12\"/>\n"
        }
        out += "</svg>\n</figure>\n"
        return out
    }

    /// Per block that offers options, how often each was chosen (by the last answer of each
    /// conversation) and its share of those who answered.
    private func answersTable(_ v: VariantReport) -> String {
        let c = shownCount
        var out = """
            <div class="scroll" tabindex="0" role="region" aria-label="Answers of \(shown(ReportFormat.variantName(v.variant, by: grouping))), by block"><table>
            <thead><tr><th scope="col">Block</th><th scope="col" class="words">Answer</th><th scope="col">Chosen</th><th scope="col">Share</th></tr></thead>
            <tbody>

            """
        for b in v.blocks {
            for a in b.answers {
                out += "<tr><th scope=\"row\">\(shown(b.id))</th><td class=\"words\">\(shown(ReportFormat.optionName(a, of: b)))</td><td>\(c(a.count))</td>"
                out += "<td>\(ReportFormat.percent(ReportFormat.answerShare(a, of: b)))</td></tr>\n"
            }
        }
        return out + "</tbody></table></div>\n"
    }

    /// Horizontal bars: per block, those who reached it (light) and answered it (dark), against
    /// the most reached. Bars are placed in percentages and texts in pixels (no viewBox), so the
    /// chart fills any width and its words keep their size.
    private func funnelChart(_ v: VariantReport, id: Int) -> String {
        let rowHeight = 44
        let top = Double(v.blocks.compactMap(\.reached).max() ?? 0)
        let variant = shown(ReportFormat.variantName(v.variant, by: grouping))
        var out = "<figure>\n<svg role=\"img\" aria-labelledby=\"chart\(id)-title\" width=\"100%\" height=\"\(v.blocks.count * rowHeight + 4)\">\n"
        out += "<title id=\"chart\(id)-title\">Funnel of \(variant): conversations that reached and answered each block</title>\n"
        for (k, b) in v.blocks.enumerated() {
            let y = k * rowHeight
            let reached = top > 0 ? 100 * Double(b.reached ?? 0) / top : 0
            let answered = top > 0 ? 100 * Double(b.answered ?? 0) / top : 0
            let label =
                "\(shown(b.id)): reached \(shownCount(b.reached)), answered \(shownCount(b.answered))"
            out += "<text x=\"0\" y=\"\(y + 15)\">\(label)</text>\n"
            out += "<rect class=\"reach\" x=\"0\" y=\"\(y + 21)\" width=\"\(Self.percent(reached))\" height=\"16\"/>"
            out += "<rect class=\"answer\" x=\"0\" y=\"\(y + 25)\" width=\"\(Self.percent(answered))\" height=\"8\"/>\n"
        }
        out +=
            "</svg>\n<figcaption>Funnel of \(variant): <span class=\"key reach\"></span>reached <span class=\"key answer\"></span>answered</figcaption>\n</figure>\n"
        return out
    }

    /// Each compared variant's difference from its reference: a dot on its 95 % interval, with 0
    /// marked on every row (placed in percentages, as the funnel).
    private func comparisonChart(_ flow: FlowReport, _ compared: [VariantReport], id: Int) -> String {
        let rowHeight = 48
        var low = 0.0, high = 0.0
        for v in compared {
            guard let s = v.comparison?.statistics else { continue }
            low = min(low, s.ci95.low)
            high = max(high, s.ci95.high)
        }
        let span = max(high - low, 0.01)
        // 4 % to 96 % of the width, so the dots at the ends stay whole.
        let x = { (d: Double) in Self.percent(4 + 92 * (d - low) / span) }
        let name = shown(flow.flow.isEmpty ? "this flow" : flow.flow)
        var out = "<figure>\n<svg role=\"img\" aria-labelledby=\"chart\(id)-title\" width=\"100%\" height=\"\(compared.count * rowHeight + 4)\">\n"
        out += "<title id=\"chart\(id)-title\">Differences in completion rate of \(name), with 95 % confidence intervals</title>\n"
        for (k, v) in compared.enumerated() {
            guard let c = v.comparison else { continue }
            let s = c.statistics
            let y = k * rowHeight
            let label =
                "\(shown(ReportFormat.variantName(v.variant, by: grouping))) vs \(shown(ReportFormat.variantName(c.against))): \(ReportFormat.difference(c)), p \(shown(ReportFormat.pValue(c)))"
            out += "<text x=\"0\" y=\"\(y + 15)\">\(label)</text>\n"
            out += "<line class=\"zero\" x1=\"\(x(0))\" y1=\"\(y + 22)\" x2=\"\(x(0))\" y2=\"\(y + 44)\"/>"
            out += "<line class=\"ci\" x1=\"\(x(s.ci95.low))\" y1=\"\(y + 33)\" x2=\"\(x(s.ci95.high))\" y2=\"\(y + 33)\"/>"
            out += "<circle class=\"dot\" cx=\"\(x(s.difference))\" cy=\"\(y + 33)\" r=\"5\"/>\n"
        }
        out +=
            "</svg>\n<figcaption>Difference in completion rate against the reference variant, with its 95 % confidence interval; the dashed line is no difference.</figcaption>\n</figure>\n"
        return out
    }

    /// A percentage for an SVG attribute, one decimal.
    private static func percent(_ x: Double) -> String {
        guard x.isFinite else { return "0%" }
        let tenths = Int((min(max(x, 0), 100) * 10).rounded())
        return "\(tenths / 10).\(tenths % 10)%"
    }

    /// A count as the page shows it: hidden ones as `&lt;5`, through the page's one escaping.
    private func shownCount(_ n: Int?) -> String { shown(ReportFormat.count(n, minCount: minCount)) }
}

/// A name from the records (a flow, a variant, a block, a reason), or a figure that may read
/// `<5` or `<0.001`, as the page shows it: through the one sanitizer (a bidirectional override or a control character becomes U+FFFD, as on a
/// terminal), then escaped for HTML.
private func shown(_ name: String) -> String {
    HTMLText.escape(Sanitizer.clean(name, keepNewlines: false))
}
