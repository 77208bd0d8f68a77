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
    ///
    /// `assumedIDs` are ids of blocks that exist in the file but could not be read (references to
    /// them are not reported); `partial` says the document lacks such blocks.
    public static func validate(
        _ doc: FlowDocument, sourceMap: FlowSourceMap? = nil, lines: SourceLines? = nil,
        assumedIDs: Set<String> = [], partial: Bool = false
    ) -> [FlowDiagnostic] {
        var out: [FlowDiagnostic] = []
        func report(_ severity: FlowDiagnostic.Severity, _ code: String, _ message: String, _ path: String) {
            out.append(FlowDiagnostic(severity: severity, code: code, message: message, path: path))
        }
        // Places are found last, for the diagnostics left after collapsing repeats, in one sweep.
        func placed(_ diagnostics: [FlowDiagnostic]) -> [FlowDiagnostic] {
            guard let lines, let sourceMap else { return diagnostics }
            let offsets = diagnostics.map { sourceMap.offset(of: $0.path) }
            let positions = lines.positions(of: offsets.map { $0 ?? 0 })
            var result = diagnostics
            for k in result.indices where offsets[k] != nil { (result[k].line, result[k].column) = positions[k] }
            return result
        }

        // "Did you mean" costs a pass over every id: offer it for the first 20 unknown names only.
        var hintsLeft = 20
        func hint(_ name: String, _ ids: [String: Int]) -> String {
            guard hintsLeft > 0 else { return "" }
            hintsLeft -= 1
            return FlowValidator.hint(name, ids)
        }

        // Ids.
        var indexByID: [String: Int] = [:]
        indexByID.reserveCapacity(doc.blocks.count)
        for (i, block) in doc.blocks.enumerated() {
            if block.id.isEmpty {
                report(.error, "empty-id", "a block id may not be empty", "blocks[\(i)].id")
            } else if let first = indexByID[block.id] {
                report(.error, "duplicate-id", "the id \"\(block.id)\" is already used by blocks[\(first)]", "blocks[\(i)].id")
            } else {
                indexByID[block.id] = i
            }
        }
        if doc.blocks.isEmpty {
            if !partial { report(.error, "no-blocks", "a flow needs at least one block", "blocks") }
            return placed(out)
        }

        // References.
        if let start = doc.start, indexByID[start] == nil, !assumedIDs.contains(start) {
            report(.error, "unknown-target", "\"start\" names no block: \"\(start)\"\(hint(start, indexByID))", "start")
        }
        // Edges in one flat array (block i's targets are edges[edgeStart[i]..<edgeStart[i + 1]]).
        var edges: [Int] = []
        edges.reserveCapacity(doc.blocks.count * 2)
        var edgeStart: [Int] = []
        edgeStart.reserveCapacity(doc.blocks.count + 1)
        for (i, block) in doc.blocks.enumerated() {
            edgeStart.append(edges.count)
            block.forEachTarget { field, target in
                if let t = indexByID[target] {
                    edges.append(t)
                } else if !assumedIDs.contains(target) {
                    report(.error, "unknown-target", "no block has the id \"\(target)\"\(hint(target, indexByID))", "blocks[\(i)].\(field)")
                }
            }
        }
        edgeStart.append(edges.count)

        // Images given inline.
        func checkImage(_ reference: String?, _ path: String) {
            guard let reference, reference.hasPrefix("data:") else { return }
            if Base64.dataURI(reference) == nil {
                report(.error, "invalid-image-data", "the image is a data URI but not valid base64 (data:<type>;base64,<data>)", path)
            }
        }
        checkImage(doc.author?.image, "author.image")
        for (i, block) in doc.blocks.enumerated() {
            if case .image(let img) = block.content { checkImage(img.image, "blocks[\(i)].image") }
        }

        // Patterns and lengths.
        for (i, block) in doc.blocks.enumerated() {
            guard case .textInput(let input) = block.content else { continue }
            if let pattern = input.validate?.pattern {
                if let problem = regexProblem(pattern) {
                    report(.error, "invalid-pattern", "invalid regular expression \"\(pattern)\": \(problem)", "blocks[\(i)].validate.pattern")
                } else if RocketPattern.hasNestedQuantifier(pattern) {
                    report(
                        .warning, "slow-pattern",
                        "\"\(pattern)\" repeats a repetition, which can take exponential time; "
                            + "answers that need more than \(RocketPattern.stepLimit) steps are refused", "blocks[\(i)].validate.pattern")
                }
            }
            if let lo = input.validate?.minLength, let hi = input.validate?.maxLength, lo > hi {
                report(.error, "impossible-length", "\"minLength\" \(lo) is greater than \"maxLength\" \(hi)", "blocks[\(i)].validate.minLength")
            }
            for (b, branch) in input.branches.enumerated() {
                if case .pattern(let p) = branch.when {
                    if let problem = regexProblem(p) {
                        report(.error, "invalid-pattern", "invalid regular expression \"\(p)\": \(problem)", "blocks[\(i)].branches[\(b)].when.matches")
                    } else if RocketPattern.hasNestedQuantifier(p) {
                        report(
                            .warning, "slow-pattern",
                            "\"\(p)\" repeats a repetition, which can take exponential time; "
                                + "answers that need more than \(RocketPattern.stepLimit) steps do not match", "blocks[\(i)].branches[\(b)].when.matches")
                    }
                }
            }
        }

        // Cycles of auto-advancing blocks.
        func autoNext(_ i: Int) -> Int? {
            switch doc.blocks[i].content {
            case .text(_, let next, let delay, _) where (delay ?? 0) > 0: return next.flatMap { indexByID[$0] }
            case .image(let img) where (img.showNextAfter ?? 0) > 0: return img.next.flatMap { indexByID[$0] }
            default: return nil
            }
        }
        var color = [UInt8](repeating: 0, count: doc.blocks.count)  // 0 new, 1 on the current walk, 2 done
        for s in doc.blocks.indices where color[s] == 0 {
            var walk: [Int] = []
            var cur: Int? = s
            while let c = cur, color[c] == 0 {
                color[c] = 1
                walk.append(c)
                cur = autoNext(c)
            }
            if let c = cur, color[c] == 1, let at = walk.firstIndex(of: c) {
                let ids = walk[at...].map { doc.blocks[$0].id } + [doc.blocks[c].id]
                report(
                    .error, "auto-advance-cycle",
                    "these blocks advance by themselves in a loop with no user input: \(shortList(ids, separator: " → "))",
                    "blocks[\(c)].next")
            }
            for w in walk { color[w] = 2 }
        }

        // Reachability.
        let startIndex = doc.start.flatMap { indexByID[$0] } ?? 0
        var seen = [Bool](repeating: false, count: doc.blocks.count)
        var stack = [startIndex]
        seen[startIndex] = true
        while let i = stack.popLast() {
            for t in edges[edgeStart[i]..<edgeStart[i + 1]] where !seen[t] { seen[t] = true; stack.append(t) }
        }
        // One warning per unreachable region, at its first block; when the block before it in the
        // file ends the conversation, the warning is there: its `next` is most likely missing.
        var hasUnreachablePredecessor = [Bool](repeating: false, count: doc.blocks.count)
        for u in doc.blocks.indices where !seen[u] {
            for t in edges[edgeStart[u]..<edgeStart[u + 1]] where t != u { hasUnreachablePredecessor[t] = true }
        }
        var assigned = [Bool](repeating: false, count: doc.blocks.count)
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
        let heads = doc.blocks.indices.filter { !seen[$0] && !hasUnreachablePredecessor[$0] }
        // Unreachable loops have no head of their own: they start at their first block (below).
        var regions: [(head: Int, members: [Int])] = heads.map { ($0, region(from: $0)) }
        for i in doc.blocks.indices where !seen[i] && !assigned[i] { regions.append((i, region(from: i))) }
        for (head, members) in regions {
            let others = members.dropFirst().map { doc.blocks[$0].id }
            let after = others.isEmpty ? "" : " (nor can the \(others.count) block\(others.count == 1 ? "" : "s") after it: \(shortList(others)))"
            let id = doc.blocks[head].id
            if head > 0, seen[head - 1], FlowValidator.canEnd(doc.blocks[head - 1]) {
                let before = doc.blocks[head - 1].id
                report(
                    .warning, "missing-next",
                    "the block \"\(before)\" can end the conversation, so \"\(id)\" after it can never be shown\(after); is a \"next\": \"\(id)\" missing?",
                    "blocks[\(head - 1)]")
            } else {
                report(.warning, "unreachable", "the block \"\(id)\" can never be shown: nothing leads to it\(after)", "blocks[\(head)]")
            }
        }

        // Placeholders.
        var answerIDs: [String: Bool] = [:]  // id → secret
        for block in doc.blocks {
            switch block.content {
            case .textInput(let input): answerIDs[block.id] = input.secret
            case .button, .doubleButton, .choice: answerIDs[block.id] = false
            default: break
            }
        }
        let variables = Set(doc.variables)
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
        for (i, block) in doc.blocks.enumerated() {
            for text in block.texts {
                for name in RocketTemplate.placeholders(in: text) {
                    if let secret = answerIDs[name] {
                        if secret {
                            report(.warning, "secret-placeholder", "{{\(name)}} is a secret answer; it is shown as bullets", "blocks[\(i)]")
                        }
                    } else if !variables.contains(name) {
                        report(
                            .warning, "unknown-placeholder",
                            "{{\(name)}} is filled by no input, button or declared variable, so it is shown as written", "blocks[\(i)]")
                    }
                }
            }
        }
        return placed(collapsed(out))
    }

    /// True when the block can end the conversation (a path through it has no `next`).
    static func canEnd(_ block: FlowBlock) -> Bool {
        switch block.content {
        case .text(_, let next, _, _): return next == nil
        case .image(let img): return img.next == nil
        case .button(let b): return b.next == nil
        case .doubleButton(let l, let r): return l.next == nil || r.next == nil
        case .textInput(let i): return i.next == nil
        case .choice(_, let options, _): return options.contains { $0.next == nil }
        }
    }

    /// At most ten ids, then how many more.
    static func shortList(_ ids: [String], separator: String = ", ") -> String {
        let shown = ids.prefix(10).map { "\"\($0)\"" }.joined(separator: separator)
        return ids.count > 10 ? shown + separator + "… and \(ids.count - 10) more" : shown
    }

    /// Diagnostics with the same severity, code and message collapsed into the first, which
    /// says how many more there were.
    package static func collapsed(_ diagnostics: [FlowDiagnostic]) -> [FlowDiagnostic] {
        struct Key: Hashable { let severity: String; let code: String; let message: String }
        var first: [Key: Int] = [:]
        var counts: [Int] = []
        var out: [FlowDiagnostic] = []
        for d in diagnostics {
            let key = Key(severity: d.severity.rawValue, code: d.code, message: d.message)
            if let k = first[key] { counts[k] += 1; continue }
            first[key] = out.count
            out.append(d)
            counts.append(0)
        }
        for (k, n) in counts.enumerated() where n > 0 { out[k].message += " (and \(n) more like it)" }
        return out
    }

    static func regexProblem(_ pattern: String) -> String? {
        switch RocketPattern.compile(pattern) {
        case .success: return nil
        case .failure(let error): return error.description
        }
    }

    static func hint(_ name: String, _ ids: [String: Int]) -> String {
        guard ids.count < 5_000 else { return "" }
        return Suggestions.closest(to: name, in: ids.keys).map { "; did you mean \"\($0)\"?" } ?? ""
    }
}
