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
        let found = check(doc, assumedIDs: assumedIDs, partial: partial, sourceIndices: nil)
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
    /// `sourceIndices[i]` is the place in the file's `blocks` array of the document's block `i`,
    /// when blocks that could not be read were left out (nil: the same places).
    static func check(_ doc: FlowDocument, assumedIDs: Set<String>, partial: Bool, sourceIndices: [Int]?) -> FlowDiagnosticList {
        var found = FlowDiagnosticList()
        func blockPath(_ i: Int) -> String { "blocks[\(sourceIndices?[i] ?? i)]" }
        func report(_ severity: FlowDiagnostic.Severity, _ code: String, _ message: String, _ path: @autoclosure () -> String) {
            found.add(severity, code, message, path: path())
        }

        // "Did you mean" costs a pass over every id: offer it for the first 20 unknown names only.
        var hintsLeft = 20
        func hint(_ name: String) -> String {
            guard hintsLeft > 0, doc.blocks.count < 5_000 else { return "" }
            hintsLeft -= 1
            return Suggestions.closest(to: name, in: doc.blocks.lazy.map(\.id).filter { !$0.isEmpty }).map { "; did you mean \"\($0)\"?" } ?? ""
        }

        // Ids.
        let n = doc.blocks.count
        var indexByID = BlockIDIndex(doc.blocks)
        var registered = [Bool](repeating: false, count: n)  // the block its id names
        indexByID.insertAll { i, first in
            if doc.blocks[i].id.isEmpty {
                report(.error, "empty-id", "a block id may not be empty", "\(blockPath(i)).id")
            } else if let first {
                report(.error, "duplicate-id", "the id \"\(doc.blocks[i].id)\" is already used by \(blockPath(first))", "\(blockPath(i)).id")
            } else {
                registered[i] = true
            }
        }
        if doc.blocks.isEmpty {
            if !partial { report(.error, "no-blocks", "a flow needs at least one block", "blocks") }
            return found
        }
        /// The block an id names; most name the block after `i`, found without hashing.
        func index(of id: String, after i: Int) -> Int? {
            if i + 1 < n, registered[i + 1], doc.blocks[i + 1].id == id { return i + 1 }
            return indexByID.index(of: id)
        }

        // One pass over the blocks' contents (a large flow's blocks do not stay in the cache
        // between passes): references, inline images, patterns and lengths, what the later
        // checks need, and the placeholders to check once every answer is known.
        if let start = doc.start, indexByID.index(of: start) == nil, !assumedIDs.contains(start) {
            report(.error, "unknown-target", "\"start\" names no block: \"\(start)\"\(hint(start))", "start")
        }
        func checkImage(_ reference: String?, _ path: @autoclosure () -> String) {
            guard let reference, reference.hasPrefix("data:") else { return }
            if Base64.dataURI(reference) == nil {
                report(.error, "invalid-image-data", "the image is a data URI but not valid base64 (data:<type>;base64,<data>)", path())
            }
        }
        func checkPattern(_ pattern: String, _ path: @autoclosure () -> String, _ slow: String) {
            if let problem = regexProblem(pattern) {
                report(.error, "invalid-pattern", "invalid regular expression \"\(pattern)\": \(problem)", path())
            } else if RocketPattern.hasNestedQuantifier(pattern) {
                report(
                    .warning, "slow-pattern",
                    "\"\(pattern)\" repeats a repetition, which can take exponential time; answers that need more than \(RocketPattern.stepLimit) steps \(slow)",
                    path())
            }
        }
        checkImage(doc.author?.image, "author.image")
        // Edges in one flat array (block i's targets are edges[edgeStart[i]..<edgeStart[i + 1]]).
        var edges: [Int] = []
        edges.reserveCapacity(n * 2)
        var edgeStart: [Int] = []
        edgeStart.reserveCapacity(n + 1)
        var autoNext = [Int](repeating: -1, count: n)  // the block an auto-advancing block moves to
        // What each id's block answers, kept at the block the id names (the last such block
        // decides, as ids are reported when used twice): 0 nothing, 1 an answer, 2 a secret one.
        var answers = [UInt8](repeating: 0, count: n)
        func setAnswer(_ i: Int, secret: Bool) {
            guard let at = registered[i] ? i : indexByID.index(of: doc.blocks[i].id) else { return }
            answers[at] = secret ? 2 : 1
        }
        var placeholders: [(block: Int, name: String)] = []
        for (i, block) in doc.blocks.enumerated() {
            edgeStart.append(edges.count)
            block.forEachTarget { field, target in
                if let t = index(of: target, after: i) {
                    edges.append(t)
                } else if !assumedIDs.contains(target) {
                    report(.error, "unknown-target", "no block has the id \"\(target)\"\(hint(target))", "\(blockPath(i)).\(field)")
                }
            }
            switch block.content {
            case .text(_, let next, let delay, _):
                if (delay ?? 0) > 0, let next, let t = index(of: next, after: i) { autoNext[i] = t }
            case .image(let img):
                checkImage(img.image, "\(blockPath(i)).image")
                if (img.showNextAfter ?? 0) > 0, let next = img.next, let t = index(of: next, after: i) { autoNext[i] = t }
            case .textInput(let input):
                setAnswer(i, secret: input.secret)
                if let pattern = input.validate?.pattern { checkPattern(pattern, "\(blockPath(i)).validate.pattern", "are refused") }
                if let lo = input.validate?.minLength, let hi = input.validate?.maxLength, lo > hi {
                    report(.error, "impossible-length", "\"minLength\" \(lo) is greater than \"maxLength\" \(hi)", "\(blockPath(i)).validate.minLength")
                }
                for (b, branch) in input.branches.enumerated() {
                    if case .pattern(let p) = branch.when { checkPattern(p, "\(blockPath(i)).branches[\(b)].when.matches", "do not match") }
                }
            case .button, .doubleButton, .choice:
                setAnswer(i, secret: false)
            }
            block.forEachText { text in
                for name in RocketTemplate.placeholders(in: text) { placeholders.append((i, name)) }
            }
        }
        edgeStart.append(edges.count)

        // Cycles of auto-advancing blocks.
        var color = [UInt8](repeating: 0, count: n)  // 0 new, 1 on the current walk, 2 done
        for s in doc.blocks.indices where color[s] == 0 {
            var walk: [Int] = []
            var cur = s
            while cur >= 0, color[cur] == 0 {
                color[cur] = 1
                walk.append(cur)
                cur = autoNext[cur]
            }
            if cur >= 0, color[cur] == 1, let at = walk.firstIndex(of: cur) {
                let ids = walk[at...].map { doc.blocks[$0].id } + [doc.blocks[cur].id]
                report(
                    .error, "auto-advance-cycle",
                    "these blocks advance by themselves in a loop with no user input: \(shortList(ids, separator: " → "))",
                    "\(blockPath(cur)).next")
            }
            for w in walk { color[w] = 2 }
        }

        // Reachability.
        let startIndex = doc.start.flatMap { indexByID.index(of: $0) } ?? 0
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
                    "\(blockPath(head - 1))")
            } else {
                report(.warning, "unreachable", "the block \"\(id)\" can never be shown: nothing leads to it\(after)", "\(blockPath(head))")
            }
        }

        // Placeholders.
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
        for (i, name) in placeholders {
            if let at = index(of: name, after: i), answers[at] != 0 {
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

    static func regexProblem(_ pattern: String) -> String? {
        switch RocketPattern.compile(pattern) {
        case .success: return nil
        case .failure(let error): return error.description
        }
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
    private let blocks: [FlowBlock]

    init(_ blocks: [FlowBlock]) {
        var size = 16
        while size < blocks.count * 2 { size <<= 1 }
        slots = [UInt64](repeating: 0, count: size)
        mask = size - 1
        self.blocks = blocks
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
        var hashes = (0..<ahead).map { $0 < blocks.count ? Self.hash(blocks[$0].id) : 0 }
        var touched: UInt64 = 0
        for k in blocks.indices {
            let h = hashes[k % ahead]
            if k + ahead < blocks.count {
                let h2 = Self.hash(blocks[k + ahead].id)
                hashes[k % ahead] = h2
                touched &+= slots[h2 & mask]
            }
            each(k, blocks[k].id.isEmpty ? nil : insert(k, hash: h))
        }
        readAhead = touched
    }

    /// What the early reads loaded: kept so that the compiler does not drop them.
    private var readAhead: UInt64 = 0

    /// Records block `i` under its id, unless a block already has that id: then that block's index.
    private mutating func insert(_ i: Int, hash h: Int) -> Int? {
        let id = blocks[i].id
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
        return blocks[k].id == id ? k : nil
    }

    private static func hash(_ id: String) -> Int {
        var h = Hasher()
        h.combine(id)
        return h.finalize()
    }
}
