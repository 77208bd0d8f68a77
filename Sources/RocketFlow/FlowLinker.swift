import RocketConversation
import RocketCore

/// Flows that jump into other flows of their folder (`{"type": "jump", "flow": "billing"}`),
/// linked into one graph: each flow named is loaded once and its blocks appended, its jumps
/// linked in turn, and every such jump's `to` set to that flow's first block. The variables of
/// the flows become one set (the same variables for all). Block ids must be unique across the
/// flows, since answers and expressions name blocks by id.
///
/// ```swift
/// let linked = doc.linked(name: "main") { name in FlowLoader.load(try? read(name + ".json")) }
/// if linked.diagnostics.isEmpty { play(linked.document) }
/// ```
extension FlowDocument {
    /// The most flows one flow may link, itself included.
    public static let maxLinkedFlows = 64

    /// True for names a flow may have: 1–64 ASCII letters, digits, `-` and `_`, not starting with
    /// `-` or `_` (so a name never reaches outside its folder). The file is `NAME.json`.
    public static func isFlowName(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard (1...64).contains(bytes.count) else { return false }
        for (i, b) in bytes.enumerated() {
            let alnum = (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A)
            if !(alnum || (i > 0 && (b == 0x2D || b == 0x5F))) { return false }
        }
        return true
    }

    /// This flow with the flows its jumps name linked in. `name` is this flow's own name (a jump
    /// to it goes to its first block); `load` gives the flow of a name, or nil when there is
    /// none. Problems are diagnostics at the jump that names the flow (this file's paths for
    /// this file's jumps; a linked flow's problems name that flow).
    public func linked(name: String, load: (String) -> FlowLoadResult?) -> (document: FlowDocument, diagnostics: [FlowDiagnostic]) {
        var diagnostics: [FlowDiagnostic] = []
        guard graph.nodes.contains(where: { if case .jump(let j) = $0.content { j.flow != nil } else { false } }) else { return (self, []) }
        var out = self
        var nodes = graph.nodes
        var roots: [String: RocketNodeID] = [name: graph.root ?? RocketNodeID(0)]
        var owners: [String] = Array(repeating: name, count: nodes.count)  // the flow of each node
        var ids: [String: String] = [:]  // block id → the flow that has it
        for node in nodes { if let id = node.id { ids[id] = name } }
        var variables = graph.variables
        var queue: [Int] = Array(nodes.indices)  // nodes whose jumps are still to link
        func problem(_ at: Int, _ code: String, _ message: String) {
            let path = owners[at] == name ? "blocks[\(at)].flow" : ""
            let prefix = owners[at] == name ? "" : "in the flow \(owners[at]): "
            diagnostics.append(FlowDiagnostic(severity: .error, code: code, message: prefix + message, path: path))
        }
        var k = 0
        while k < queue.count {
            let at = queue[k]
            k += 1
            guard case .jump(var jump) = nodes[at].content, let target = jump.flow else { continue }
            if roots[target] == nil {
                guard roots.count < Self.maxLinkedFlows else {
                    problem(at, "too-many-flows", "a flow links at most \(Self.maxLinkedFlows) flows")
                    continue
                }
                guard Self.isFlowName(target), let result = load(target) else {
                    problem(at, "unknown-flow", "there is no flow \(FlowDiagnostic.quoted(target)) (\(Sanitizer.excerpt(target)).json) in this flow's folder")
                    continue
                }
                guard result.isPlayable, let other = result.document else {
                    problem(at, "invalid-flow", "the flow \(FlowDiagnostic.quoted(target)) has errors (rocket lint \(Sanitizer.excerpt(target)).json)")
                    continue
                }
                let offset = nodes.count
                roots[target] = RocketNodeID(offset + (other.graph.root?.rawValue ?? 0))
                for var node in other.graph.nodes {
                    if let id = node.id {
                        if let first = ids[id] {
                            problem(
                                at, "duplicate-id",
                                "the flow \(FlowDiagnostic.quoted(target)) has a block \(FlowDiagnostic.quoted(id)) and so has the flow \(first); ids must differ across flows that jump into each other"
                            )
                        }
                        ids[id] = target
                    }
                    node.mapTargets { $0.map { RocketNodeID($0.rawValue + offset) } }
                    nodes.append(node)
                    owners.append(target)
                    queue.append(nodes.count - 1)
                }
                for v in other.graph.variables {
                    if let mine = variables.first(where: { $0.name == v.name }) {
                        if mine.type != v.type {
                            problem(
                                at, "variable-type",
                                "the flow \(FlowDiagnostic.quoted(target)) declares \(FlowDiagnostic.quoted(v.name)) as \(v.type.phrase), not \(mine.type.phrase)"
                            )
                        }
                    } else {
                        variables.append(v)
                    }
                }
            }
            jump.to = roots[target]
            nodes[at].content = .jump(jump)
        }
        var graph = RocketGraph(nodes: nodes, root: self.graph.root, variables: variables)
        graph.allowBack = self.graph.allowBack
        out.graph = graph
        // Loops with no user input that only the linked graph has: through a jump into another
        // flow and back (each flow alone has none of them, and its own lint says so).
        if diagnostics.isEmpty {
            let loops: Set = ["endless-loop", "auto-advance-cycle"]
            let own = Set(FlowValidator.check(self, ids: nil, partial: false).collapsed.filter { loops.contains($0.code) }.map(\.message))
            for d in FlowValidator.check(out, ids: nil, partial: false).collapsed where loops.contains(d.code) && !own.contains(d.message) {
                diagnostics.append(FlowDiagnostic(severity: .error, code: d.code, message: d.message + ", across the flows this one jumps into", path: ""))
            }
        }
        return (out, diagnostics)
    }
}
