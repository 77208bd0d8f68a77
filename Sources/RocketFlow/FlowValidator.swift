import RocketBanners
public import RocketJSON
import RocketConversation
import RocketCore

/// The rules a flow must meet beyond its shape (which ``FlowLoader`` checks while reading).
///
/// Errors: duplicate or empty ids, a `start`, `next` or branch target that does not exist, an
/// invalid regular expression, an impossible length rule, and a cycle of auto-advancing blocks
/// with no user input (it would run forever). Warnings: blocks that can never be reached,
/// `{{name}}` placeholders no answer or variable fills, and placeholders of secret answers.
///
/// ```swift
/// let diagnostics = FlowValidator.validate(document)
/// let errors = diagnostics.filter { $0.severity == .error }
/// ```
public enum FlowValidator {
    /// Checks a document; with a source map and lines (from ``FlowLoader``) each diagnostic has
    /// its line and column.
    public static func validate(_ doc: FlowDocument, sourceMap: FlowSourceMap? = nil, lines: SourceLines? = nil) -> [FlowDiagnostic] {
        let found = check(doc, ids: nil, partial: false)
        var out = found.collapsed
        // Places are found last, for the diagnostics left after collapsing repeats, in one sweep.
        if let lines, let sourceMap {
            let positions = lines.positions(of: sourceMap.offsets(of: out.map(\.path)))
            for k in out.indices { (out[k].line, out[k].column) = positions[k] }
        }
        if let note = found.unlistedNote { out.append(note) }
        return out
    }

    /// The rules' findings, repeats collapsed and bounded (``FlowDiagnosticList``).
    ///
    /// `ids` is the loader's index of the file's block ids (nil: built here, and the graph's
    /// references are checked too, as a graph made in code may hold any index); `partial` says
    /// that some blocks could not be read (they stand in the graph as empty text nodes).
    ///
    /// `broken[i]` is true for a block that could not be read: its id still names it (references
    /// to it are not reported), but nothing else about it is.
    static func check(_ doc: FlowDocument, ids given: BlockIDs?, partial: Bool, broken: [Bool] = []) -> FlowDiagnosticList {
        var found = FlowDiagnosticList()
        let graph = doc.graph
        let nodes = graph.nodes
        let n = nodes.count
        func blockPath(_ i: Int) -> String { "blocks[\(i)]" }
        func report(_ severity: FlowDiagnostic.Severity, _ code: String, _ message: String, _ path: @autoclosure () -> String) {
            found.add(severity, code, message, path: path())
        }

        // Ids.
        let ids = given ?? BlockIDs(ids: doc.blockIDs)
        func isBroken(_ i: Int) -> Bool { i < broken.count && broken[i] }
        for (i, first) in ids.problems where !isBroken(i) {
            if let first {
                if isBroken(first) { continue }
                report(.error, "duplicate-id", "the id \(FlowDiagnostic.quoted(ids.ids[i])) is already used by \(blockPath(first))", "\(blockPath(i)).id")
            } else {
                report(.error, "empty-id", "a block id may not be empty", "\(blockPath(i)).id")
            }
        }
        if n == 0 {
            if !partial { report(.error, "no-blocks", "a flow needs at least one block", "blocks") }
            return found
        }
        if given == nil {
            // A graph made in code: every reference must name one of its nodes.
            if let root = graph.root, !graph.contains(root) { report(.error, "unknown-target", "the start is \(root), which is not a block", "start") }
            for i in 0..<n {
                nodes[i].forEachSuccessor { field, t in
                    if !graph.contains(t) { report(.error, "unknown-target", "\(field) is \(t), which is not a block", "\(blockPath(i)).\(field)") }
                }
            }
        }

        // Names an expression may read: the declared variables (typed), the older `variables`
        // list (texts), and the ids of blocks that take an answer (texts).
        var declared: [String: RocketValueType] = [:]
        for name in doc.variables { declared[name] = .text }
        for v in graph.variables {
            declared[v.name] = v.type
            if let at = ids.index(of: v.name) {
                report(
                    .error, "duplicate-id",
                    "the variable \(FlowDiagnostic.quoted(v.name)) has the name of \(blockPath(at)); expressions and {{\(v.name)}} could mean either",
                    "vars.\(v.name)")
            }
        }
        var hintsLeft = 20
        func nameKind(_ name: String) -> RocketExpression.NameKind {
            if let t = declared[name] { return .known(t) }
            if let at = ids.index(of: name) {
                switch nodes[at].content {
                case .button, .doubleButton: return .known(.text)
                case .choice(let c): return .known(c.multiple ? .list : .text)
                case .rating: return .known(.number)
                case .textInput(let input): return .known(input.inputType.isNumeric ? .number : .text)
                default: break
                }
            }
            guard hintsLeft > 0 else { return .unknown(suggestion: nil) }
            hintsLeft -= 1
            let answering = (0..<n).lazy.filter {
                switch nodes[$0].kind {
                case .button, .doubleButton, .choice, .textInput, .rating: return true
                default: return false
                }
            }.map { ids.ids[$0] }
            return .unknown(suggestion: Suggestions.closest(to: name, in: Array(declared.keys) + answering))
        }
        /// Reports an expression's problems at their place inside it; returns its type.
        func checkExpression(_ e: RocketExpression, _ path: @autoclosure () -> String) -> RocketValueType? {
            let (problems, type) = e.check(nameKind)
            for p in problems {
                let code: String
                switch p.code {
                case "unknown-name": code = "unknown-variable"
                case "too-long": code = "expression-too-long"
                case "too-deep": code = "expression-too-deep"
                case "type": code = "expression-type"
                default: code = "expression-syntax"
                }
                found.add(
                    .error, code, "\(p.message) in \(FlowDiagnostic.quoted(e.source))", path: path(), inner: p.offset)
            }
            for pattern in e.patternSources where RocketPattern.hasNestedQuantifier(pattern) {
                report(
                    .warning, "slow-pattern",
                    "\(FlowDiagnostic.quoted(pattern)) repeats a repetition, which can take exponential time; on a text that needs more than \(RocketLimits.expressionPatternSteps) steps, matches(…) is an error and its condition false",
                    path())
            }
            return problems.isEmpty ? type : nil
        }

        // One pass over the blocks' contents (a large flow's blocks do not stay in the cache
        // between passes): inline images, patterns and lengths, what the later checks need, and
        // the placeholders to check once every answer is known.
        func checkImage(_ image: RocketImage?, _ path: @autoclosure () -> String) {
            // A data: URI that is not valid base64 stays a file reference.
            guard case .file(let reference)? = image, reference.hasPrefix("data:") else { return }
            report(.error, "invalid-image-data", "the image is a data URI but not valid base64 (data:<type>;base64,<data>)", path())
        }
        func checkPattern(_ pattern: String, _ path: @autoclosure () -> String, _ slow: String) {
            if let problem = regexProblem(pattern) {
                report(.error, "invalid-pattern", "invalid regular expression \(FlowDiagnostic.quoted(pattern)): \(problem)", path())
            } else if RocketPattern.hasNestedQuantifier(pattern) {
                report(
                    .warning, "slow-pattern",
                    "\(FlowDiagnostic.quoted(pattern)) repeats a repetition, which can take exponential time; answers that need more than \(RocketPattern.stepLimit) steps \(slow)",
                    path())
            }
        }
        checkImage(doc.author?.image, "author.image")
        // Edges in one flat array (block i's targets are edges[edgeStart[i]..<edgeStart[i + 1]]).
        var edges: [Int] = []
        edges.reserveCapacity(n * 2)
        var edgeStart: [Int] = []
        edgeStart.reserveCapacity(n + 1)
        // Blocks that go on with no user input (auto-advancing text and pictures, set and
        // condition blocks), and whether each can end the conversation on the way.
        var silent = [Bool](repeating: false, count: n)
        var silentEnds = [Bool](repeating: false, count: n)
        // What each id's block answers, kept at the block the id names (the last such block
        // decides, as ids are reported when used twice): 0 nothing, 1 an answer, 2 a secret one.
        var answers = [UInt8](repeating: 0, count: n)
        func setAnswer(_ i: Int, secret: Bool) {
            guard let at = ids.registered[i] ? i : ids.index(of: ids.ids[i]) else { return }
            answers[at] = secret ? 2 : 1
        }
        func valid(_ t: RocketNodeID?) -> Int? {
            guard let t, t.rawValue >= 0, t.rawValue < n else { return nil }
            return t.rawValue
        }
        var placeholders: [(block: Int, name: String)] = []
        for i in 0..<n {
            let node = nodes[i]
            edgeStart.append(edges.count)
            node.forEachSuccessor { _, t in if let t = valid(t) { edges.append(t) } }
            switch node.content {
            case .text(let t):
                if (t.showNextAfter ?? 0) > 0 {
                    silent[i] = true
                    silentEnds[i] = valid(t.next) == nil
                }
            case .image(let img):
                checkImage(img.image, "\(blockPath(i)).image")
                if (img.showNextAfter ?? 0) > 0 {
                    silent[i] = true
                    silentEnds[i] = valid(img.next) == nil
                }
            case .textInput(let input):
                setAnswer(i, secret: input.isSecret)
                if let pattern = input.validation?.pattern { checkPattern(pattern, "\(blockPath(i)).validate.pattern", "are refused") }
                for (bound, key) in [(input.minimum, "min"), (input.maximum, "max")] {
                    guard let bound else { continue }
                    let fits: Bool
                    switch (input.inputType, bound) {
                    case (.number, .number), (.integer, .number): fits = true
                    case (.date, .text(let s)): fits = RocketInputType.isDayBound(s)
                    case (.time, .text(let s)): fits = RocketInputType.isTime(s)
                    default: fits = false
                    }
                    if !fits {
                        let want: String
                        switch input.inputType {
                        case .number, .integer: want = "a number"
                        case .date: want = "a date as YYYY-MM-DD, or counted from today (today+7d) within the years 1 to 9999"
                        case .time: want = "a time as HH:MM"
                        default: want = "nothing: it applies to the inputTypes number, integer, date and time"
                        }
                        report(.error, "bad-bound", "\"\(key)\" of a \(input.inputType.rawValue) input must be \(want)", "\(blockPath(i)).\(key)")
                    }
                }
                if input.multiline, let why = input.multilineProblem {
                    report(.error, "bad-multiline", why, "\(blockPath(i)).multiline")
                }
                if let value = input.value {
                    if input.isSecret {
                        report(
                            .error, "secret-value", "a secret input cannot start with a value: it would be in the flow and on the screen",
                            "\(blockPath(i)).value")
                    } else if RocketTemplate.placeholders(in: value).isEmpty, !value.isEmpty, case .failure(let f) = input.accept(value) {
                        report(
                            .warning, "value-refused", "the field starts with text its own rules refuse: \(f.rule.phrase)", "\(blockPath(i)).value")
                    }
                }
                if let why = input.emptyRange(min: "\"min\"", max: "\"max\"") {
                    report(.error, "impossible-range", why, "\(blockPath(i)).min")
                }
                if let lo = input.validation?.minLength, let hi = input.validation?.maxLength, lo > hi {
                    report(.error, "impossible-length", "\"minLength\" \(lo) is greater than \"maxLength\" \(hi)", "\(blockPath(i)).validate.minLength")
                }
                for (b, branch) in input.branches.enumerated() {
                    if case .pattern(let p) = branch.condition { checkPattern(p, "\(blockPath(i)).branches[\(b)].when.matches", "do not match") }
                }
            case .button, .doubleButton, .rating:
                setAnswer(i, secret: false)
                var sides: [(String, RocketButtonNode)] = []
                if case .button(let b) = node.content { sides = [("", b)] }
                if case .doubleButton(let l, let r) = node.content { sides = [(".left", l), (".right", r)] }
                for (side, b) in sides where b.selected != nil {
                    report(
                        .error, "needs-multiple", "\"selected\" ticks an option of a multiple choice; a button is pressed", "\(blockPath(i))\(side).selected")
                }
            case .choice(let choice):
                setAnswer(i, secret: false)
                if choice.multiple {
                    let n = choice.options.count
                    let least = choice.minChosen ?? 1, most = choice.maxChosen ?? n
                    if most > n { report(.error, "impossible-range", "\"max\" \(most) is more than the \(n) options", "\(blockPath(i)).max") }
                    if least > most { report(.error, "impossible-range", "\"min\" \(least) is greater than \"max\" \(most)", "\(blockPath(i)).min") }
                    for (k, o) in choice.options.enumerated() where o.next != nil {
                        report(
                            .warning, "ignored-next", "a multiple choice goes to its own \"next\"; this option's \"next\" is never taken",
                            "\(blockPath(i)).options[\(k)].next")
                    }
                    for (k, o) in choice.options.enumerated() where o.image != nil {
                        report(
                            .error, "image-in-multiple", "a multiple choice's options are a list of boxes to tick: a picture there is not drawn",
                            "\(blockPath(i)).options[\(k)].image")
                    }
                    for (k, o) in choice.options.enumerated() where o.link != nil {
                        report(
                            .error, "link-in-multiple", "a multiple choice's options are ticked, not pressed: a \"link\" would never open",
                            "\(blockPath(i)).options[\(k)].link")
                    }
                    for (k, o) in choice.options.enumerated() where o.snooze != nil {
                        report(
                            .error, "snooze-in-multiple", "a multiple choice's options are ticked, not pressed: a \"snooze\" would never be kept",
                            "\(blockPath(i)).options[\(k)].snooze")
                    }
                    let ticked = choice.options.filter { $0.selected == true }.count
                    if ticked > most {
                        report(
                            .error, "impossible-range", "\(ticked) options start selected, more than \"max\" \(most) lets be chosen",
                            "\(blockPath(i)).options")
                    }
                } else {
                    for (k, o) in choice.options.enumerated() where o.selected != nil {
                        report(
                            .error, "needs-multiple",
                            "\"selected\" ticks an option of a multiple choice (\"multiple\": true); one of a single choice is pressed",
                            "\(blockPath(i)).options[\(k)].selected")
                    }
                    for (field, present) in [("min", choice.minChosen != nil), ("max", choice.maxChosen != nil), ("next", choice.next != nil)] where present {
                        report(
                            .error, "needs-multiple", "\"\(field)\" applies to a multiple choice only (\"multiple\": true)", "\(blockPath(i)).\(field)")
                    }
                }
            case .set(let set):
                silent[i] = true
                silentEnds[i] = valid(set.next) == nil
                for a in set.assignments {
                    let path = "\(blockPath(i)).set.\(a.name)"
                    let type = checkExpression(a.expression, path)
                    guard let want = declared[a.name] else {
                        let hint = Suggestions.closest(to: a.name, in: declared.keys).map { " (did you mean \(FlowDiagnostic.quoted($0))?)" } ?? ""
                        report(.error, "unknown-variable", "\(FlowDiagnostic.quoted(a.name)) is not declared in \"vars\"\(hint)", path)
                        continue
                    }
                    if let type, type != want, type != .null {
                        found.add(
                            .error, "expression-type",
                            "\(FlowDiagnostic.quoted(a.name)) holds \(want.phrase), but \(FlowDiagnostic.quoted(a.expression.source)) gives \(type.phrase)",
                            path: path,
                            inner: 0)
                    }
                }
            case .jump(let jump):
                silent[i] = true
                silentEnds[i] = valid(jump.to) == nil || (jump.returns && valid(jump.next) == nil)
                // A file names one or the other; a linked graph has both (the flow's first block).
                if jump.flow != nil && jump.to != nil && given != nil {
                    report(.error, "jump-target", "a jump names a block of this flow (\"to\") or another flow (\"flow\"), not both", "\(blockPath(i))")
                }
                if let name = jump.flow, !FlowDocument.isFlowName(name) {
                    report(
                        .error, "bad-name",
                        "\(FlowDiagnostic.quoted(name)) is not a flow name: 1 to 64 letters, digits, - and _ (the file is NAME.json beside this one)",
                        "\(blockPath(i)).flow")
                }
                if jump.flow == nil && jump.to == nil {
                    report(.error, "jump-target", "a jump needs \"to\" (a block of this flow) or \"flow\" (another flow of its folder)", "\(blockPath(i))")
                }
                if !jump.returns && jump.next != nil {
                    report(.warning, "ignored-next", "\"next\" is taken only after a jump with \"return\": true comes back", "\(blockPath(i)).next")
                }
            case .condition(let condition):
                silent[i] = true
                silentEnds[i] = valid(condition.elseNext) == nil || condition.branches.contains { valid($0.next) == nil }
                for (b, branch) in condition.branches.enumerated() {
                    let path = "\(blockPath(i)).branches[\(b)].if"
                    if let type = checkExpression(branch.condition, path), type != .bool {
                        found.add(
                            .error, "expression-type",
                            "a condition must be true or false, but \(FlowDiagnostic.quoted(branch.condition.source)) gives \(type.phrase)",
                            path: path, inner: 0)
                    }
                }
            }
            node.forEachText { text in
                for name in RocketTemplate.placeholders(in: text) { placeholders.append((i, name)) }
            }
        }
        edgeStart.append(edges.count)
        func id(_ i: Int) -> String { ids.ids[i] }

        // Loops with no user input: strongly connected groups of silent blocks (Tarjan's
        // algorithm, with an explicit stack). A group no way leaves runs forever (an error); a
        // group with a way out may still loop a long while (a warning).
        var order = [Int](repeating: -1, count: n), low = [Int](repeating: 0, count: n)
        var onStack = [Bool](repeating: false, count: n)
        var sccStack: [Int] = []
        var counter = 0
        for s in 0..<n where silent[s] && order[s] < 0 {
            var work: [(node: Int, edge: Int)] = [(s, edgeStart[s])]
            order[s] = counter
            low[s] = counter
            counter += 1
            sccStack.append(s)
            onStack[s] = true
            while let (v, e) = work.last {
                if e < edgeStart[v + 1] {
                    work[work.count - 1].edge = e + 1
                    let w = edges[e]
                    guard silent[w] else { continue }
                    if order[w] < 0 {
                        order[w] = counter
                        low[w] = counter
                        counter += 1
                        sccStack.append(w)
                        onStack[w] = true
                        work.append((w, edgeStart[w]))
                    } else if onStack[w] {
                        low[v] = min(low[v], order[w])
                    }
                    continue
                }
                work.removeLast()
                if let parent = work.last { low[parent.node] = min(low[parent.node], low[v]) }
                guard low[v] == order[v] else { continue }
                var members: [Int] = []
                while let w = sccStack.popLast() {
                    onStack[w] = false
                    members.append(w)
                    if w == v { break }
                }
                let selfLoop = members.count == 1 && edges[edgeStart[v]..<edgeStart[v + 1]].contains(v)
                guard members.count > 1 || selfLoop else { continue }
                let inGroup = Set(members)
                let leaves = members.contains { m in
                    silentEnds[m] || edges[edgeStart[m]..<edgeStart[m + 1]].contains { !inGroup.contains($0) }
                }
                // One way around, from the group's first block in the file.
                let first = members.min()!
                var cycle = [first]
                var visited: Set<Int> = [first]
                var cur = first
                while cycle.count <= members.count {
                    guard let next = edges[edgeStart[cur]..<edgeStart[cur + 1]].first(where: { inGroup.contains($0) }) else { break }
                    cycle.append(next)
                    guard visited.insert(next).inserted else { break }
                    cur = next
                }
                let shown = shortList(cycle.map(id), separator: " → ")
                let timed = members.allSatisfy { nodes[$0].kind == .text || nodes[$0].kind == .image }
                if leaves {
                    let shows = members.contains { nodes[$0].kind == .text || nodes[$0].kind == .image }
                    let ends =
                        shows
                        ? "once it has shown \(RocketLimits.shownBlocks) blocks the conversation ends"
                        : "after \(RocketLimits.silentSteps) set and condition blocks in a row the conversation ends"
                    report(
                        .warning, "silent-loop", "these blocks can run in a loop with nothing for the user to answer: \(shown); \(ends)",
                        "\(blockPath(first))")
                } else if timed {
                    report(
                        .error, "auto-advance-cycle", "these blocks advance by themselves in a loop with no user input: \(shown)",
                        "\(blockPath(first)).next")
                } else {
                    report(.error, "endless-loop", "these blocks run in a loop that nothing can leave and no user input stops: \(shown)", "\(blockPath(first))")
                }
            }
        }

        // Reachability.
        let startIndex = valid(graph.root) ?? 0
        var seen = [Bool](repeating: false, count: n)
        var stack = [startIndex]
        seen[startIndex] = true
        // An experiment's variants start where they say: those blocks are reached too.
        for v in doc.experiment?.variants ?? [] {
            if let s = valid(v.start), !seen[s] {
                seen[s] = true
                stack.append(s)
            }
        }
        while let i = stack.popLast() {
            for t in edges[edgeStart[i]..<edgeStart[i + 1]] where !seen[t] { seen[t] = true; stack.append(t) }
        }
        // One warning per unreachable region, at its first block; when the block before it in the
        // file ends the conversation, the warning is there: its `next` is most likely missing.
        var hasUnreachablePredecessor = [Bool](repeating: false, count: n)
        for u in 0..<n where !seen[u] {
            for t in edges[edgeStart[u]..<edgeStart[u + 1]] where t != u { hasUnreachablePredecessor[t] = true }
        }
        var assigned = [Bool](repeating: false, count: n)
        func region(from head: Int) -> [Int] {
            var out: [Int] = []
            var stack = [head]
            assigned[head] = true
            while let i = stack.popLast() {
                out.append(i)
                for t in edges[edgeStart[i]..<edgeStart[i + 1]] where !seen[t] && !assigned[t] { assigned[t] = true; stack.append(t) }
            }
            return out
        }
        let heads = (0..<n).filter { !seen[$0] && !hasUnreachablePredecessor[$0] }
        // Unreachable loops have no head of their own: they start at their first block (below).
        var regions: [(head: Int, members: [Int])] = heads.map { ($0, region(from: $0)) }
        for i in 0..<n where !seen[i] && !assigned[i] { regions.append((i, region(from: i))) }
        for (head, members) in regions {
            let others = members.dropFirst().map(id)
            let after = others.isEmpty ? "" : " (nor can the \(others.count) block\(others.count == 1 ? "" : "s") after it: \(shortList(others)))"
            let name = id(head)
            if head > 0, seen[head - 1], nodes[head - 1].canEnd {
                let before = id(head - 1)
                report(
                    .warning, "missing-next",
                    "the block \(FlowDiagnostic.quoted(before)) can end the conversation, so \(FlowDiagnostic.quoted(name)) after it can never be shown\(after); is a \"next\": \(FlowDiagnostic.quoted(name)) missing?",
                    "\(blockPath(head - 1))")
            } else {
                report(
                    .warning, "unreachable", "the block \(FlowDiagnostic.quoted(name)) can never be shown: nothing leads to it\(after)", "\(blockPath(head))")
            }
        }

        // Targeting: a condition over the variables at the start.
        if let e = doc.showIf, let type = checkExpression(e, "when.if"), type != .bool {
            found.add(
                .error, "expression-type", "a condition must be true or false, but \(FlowDiagnostic.quoted(e.source)) gives \(type.phrase)", path: "when.if",
                inner: 0)
        }

        // A schedule that ends before it begins shows nothing, ever.
        if let s = doc.schedule, let start = s.start, let end = s.end, end <= start {
            report(
                .error, "impossible-range", "the schedule ends (\(s.until ?? "")) before it begins (\(s.from ?? "")): nothing would ever be shown",
                "schedule.until")
        }

        // The experiment's variants: names once each, not the holdout's.
        if let e = doc.experiment {
            var names = Set<String>()
            for (k, v) in e.variants.enumerated() {
                if v.name == "holdout" {
                    report(.error, "bad-name", "\"holdout\" names the visitors shown nothing; choose another variant name", "experiment.variants[\(k)].name")
                } else if !names.insert(v.name).inserted {
                    report(.error, "duplicate-id", "the variant \(FlowDiagnostic.quoted(v.name)) is named twice", "experiment.variants[\(k)].name")
                }
            }
        }

        // Placeholders.
        let variables = Set(doc.variables).union(graph.variables.map(\.name))
        // The banner and the close button show when the flow starts: only declared variables
        // (`--var`) can fill them.
        var startTexts: [(String, String)] = []
        if let banner = doc.banner {
            startTexts.append((banner.title, "banner.title"))
            if let sub = banner.subtitle { startTexts.append((sub, "banner.subtitle")) }
            if banner.buttons != .close {
                for (k, item) in banner.buttons.items.enumerated() { startTexts.append((item.title, "banner.buttons[\(k)]")) }
            }
        }
        if let close = doc.closeButton { startTexts.append((close.title, "closeButton.title")) }
        for (text, path) in startTexts {
            for name in RocketTemplate.placeholders(in: text) where !variables.contains(name) {
                report(
                    .warning, "unknown-placeholder",
                    "{{\(name)}} is shown when the flow starts, so only a declared variable can fill it; it is shown as written", path)
            }
        }
        for (i, name) in placeholders {
            if let at = ids.index(of: name, after: i), answers[at] != 0 {
                if answers[at] == 2 {
                    report(.warning, "secret-placeholder", "{{\(name)}} is a secret answer; it is shown as bullets", "\(blockPath(i))")
                }
            } else if !variables.contains(name) {
                report(
                    .warning, "unknown-placeholder",
                    "{{\(name)}} is filled by no input, button or declared variable, so it is shown as written", "\(blockPath(i))")
            }
        }
        return found
    }

    /// At most ten ids, then how many more.
    static func shortList(_ ids: [String], separator: String = ", ") -> String {
        let shown = ids.prefix(10).map { FlowDiagnostic.quoted($0) }.joined(separator: separator)
        return ids.count > 10 ? shown + separator + "… and \(ids.count - 10) more" : shown
    }

    static func regexProblem(_ pattern: String) -> String? {
        switch RocketPattern.compile(pattern) {
        case .success: return nil
        case .failure(let error): return error.description
        }
    }

}

/// A flow's block ids with their index: which block each id names (the first that has it),
/// and which ids are empty or repeated. The loader builds it in its first pass and the rules use
/// the same one.
struct BlockIDs {
    /// Each block's id, in file order ("" when it has none).
    let ids: [String]
    private var table: BlockIDIndex
    /// True for the block its id names.
    private(set) var registered: [Bool]
    /// In file order, blocks with an empty id (`first` nil) or with an id an earlier block has
    /// (`first`: that block).
    private(set) var problems: [(block: Int, first: Int?)] = []

    init(ids: [String]) {
        self.ids = ids
        table = BlockIDIndex(ids)
        var registered = [Bool](repeating: false, count: ids.count)
        var problems: [(Int, Int?)] = []
        table.insertAll { i, first in
            if ids[i].isEmpty {
                problems.append((i, nil))
            } else if let first {
                problems.append((i, first))
            } else {
                registered[i] = true
            }
        }
        self.registered = registered
        self.problems = problems
    }

    /// The block an id names.
    func index(of id: String) -> Int? { table.index(of: id) }

    /// The block an id names; most name the block after `i`, found without hashing.
    func index(of id: String, after i: Int) -> Int? {
        if i + 1 < ids.count, i + 1 >= 0, registered[i + 1], ids[i + 1] == id { return i + 1 }
        return table.index(of: id)
    }
}

/// Block ids → the first block with each id, for a validation pass.
///
/// Open addressing over 64-bit slots (32 bits of the id's hash, 32 of the block's index + 1):
/// a third of the memory of a `[String: Int]`, which a large flow's validation otherwise spends
/// its time waiting on. The hash is the standard library's seeded one, so no file can choose
/// colliding ids; the table is at most half full.
struct BlockIDIndex {
    private var slots: [UInt64]
    private let mask: Int
    private let blocks: [String]

    init(_ ids: [String]) {
        var size = 16
        while size < ids.count * 2 { size <<= 1 }
        slots = [UInt64](repeating: 0, count: size)
        mask = size - 1
        self.blocks = ids
    }

    /// Records every block with a non-empty id under it, in file order, calling `each` with the
    /// block's index and, when an earlier block has the same id, that block's index (blocks with
    /// an empty id get nil and are not recorded).
    ///
    /// A large flow's table does not fit in the cache, and one insertion after another would
    /// each wait for memory alone: the slot of the block eight places ahead is read early, so the
    /// processor fetches several at once (validation of 100,000 blocks: 43 ms → 36 ms).
    mutating func insertAll(_ each: (Int, Int?) -> Void) {
        let ahead = 8
        var hashes = (0..<ahead).map { $0 < blocks.count ? Self.hash(blocks[$0]) : 0 }
        var touched: UInt64 = 0
        for k in blocks.indices {
            let h = hashes[k % ahead]
            if k + ahead < blocks.count {
                let h2 = Self.hash(blocks[k + ahead])
                hashes[k % ahead] = h2
                touched &+= slots[h2 & mask]
            }
            each(k, blocks[k].isEmpty ? nil : insert(k, hash: h))
        }
        readAhead = touched
    }

    /// What the early reads loaded: kept so that the compiler does not drop them.
    private var readAhead: UInt64 = 0

    /// Records block `i` under its id, unless a block already has that id: then that block's index.
    private mutating func insert(_ i: Int, hash h: Int) -> Int? {
        let id = blocks[i]
        var p = h & mask
        while slots[p] != 0 {
            if let found = match(slots[p], h, id) { return found }
            p = (p + 1) & mask
        }
        slots[p] = UInt64(UInt32(truncatingIfNeeded: h)) << 32 | UInt64(i + 1)
        return nil
    }

    /// The first block with the id.
    func index(of id: String) -> Int? {
        let h = Self.hash(id)
        var p = h & mask
        while slots[p] != 0 {
            if let found = match(slots[p], h, id) { return found }
            p = (p + 1) & mask
        }
        return nil
    }

    private func match(_ slot: UInt64, _ h: Int, _ id: String) -> Int? {
        guard UInt32(slot >> 32) == UInt32(truncatingIfNeeded: h) else { return nil }
        let k = Int(UInt32(truncatingIfNeeded: slot)) - 1
        return blocks[k] == id ? k : nil
    }

    private static func hash(_ id: String) -> Int {
        var h = Hasher()
        h.combine(id)
        return h.finalize()
    }
}
