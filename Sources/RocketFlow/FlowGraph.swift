import RocketConversation
import RocketCore
import RocketScenarioEngine

/// A picture of a flow as text: Mermaid (renders on GitHub and in many editors), Graphviz DOT, or
/// an outline to read in a terminal.
/// Blocks with their kind and text, every way from one block to the next with what takes it
/// (a tap, a button, a branch's condition, the time of an auto-advance), named actions, the end,
/// and the scenario that gates the flow. Set blocks are parallelograms, conditions diamonds,
/// jumps subroutines (a box with double sides).
///
/// ```swift
/// print(FlowGraph.mermaid(document))
/// ```
public enum FlowGraph {
    /// One edge of the picture.
    struct Edge {
        let from: String
        let to: String
        let label: String
    }

    /// How a node is drawn: shown blocks as boxes, `set` blocks as parallelograms, `condition`
    /// blocks as diamonds, start and end as ovals.
    enum Shape { case box, set, condition, jump, terminal }

    /// Nodes (id, label, shape) and edges, in file order; "end" and "start" are pseudo-nodes.
    static func parts(_ doc: FlowDocument) -> (nodes: [(String, String, Shape)], edges: [Edge]) {
        var nodes: [(String, String, Shape)] = []
        var edges: [Edge] = []
        let graph = doc.graph
        let names = doc.blockNames
        func target(_ id: RocketNodeID?) -> String {
            guard let id, graph.contains(id) else { return "(end)" }
            return names[id.rawValue]
        }
        func short(_ text: String) -> String {
            let flat = text.replacingAll("\n", with: " ")
            return flat.count > 40 ? String(flat.prefix(39)) + "…" : flat
        }
        // A button's action, ↗ when it opens a page, ⏸ and how long when it snoozes the flow.
        func marks(_ b: RocketButtonNode) -> String {
            (b.actionName.map { " ⚡" + $0 } ?? "") + (b.link == nil ? "" : " ↗") + (b.snooze.map { " ⏸" + $0 } ?? "")
        }
        func after(_ delay: Double?) -> String {
            guard let delay, delay > 0 else { return "tap" }
            return "after " + RocketDuration.format(delay)
        }
        var start = "start"
        if let scenario = doc.scenario {
            var rules: [String] = []
            if let w = doc.when {
                if let n = w.minEventsRequired { rules.append("≥\(n) events") }
                if let n = w.maxEventsPermitted { rules.append("≤\(n) events") }
                if let n = w.maxExecutionsPermitted { rules.append("<\(n) shows") }
                if let d = w.minSecondsSinceFirstEvent { rules.append(">\(RocketDuration.format(d)) since first") }
                if let d = w.minSecondsSinceLastEvent { rules.append(">\(RocketDuration.format(d)) since last") }
                if let d = w.minSecondsBetweenExecutions { rules.append(">\(RocketDuration.format(d)) between shows") }
                if let e = w.minEventsInWindow { rules.append("≥\(e.count) events in \(RocketDuration.format(e.seconds))") }
                if let b = w.budget { rules.append("budget \(b.executions) per \(RocketDuration.format(b.seconds))") }
                if let other = w.eventsOf { rules.append("events of \(other)") }
            }
            start = "gate: \(scenario)" + (rules.isEmpty ? "" : " (" + rules.joined(separator: ", ") + ")")
        }
        // The clock's rules: the schedule and the quiet hours.
        var clock: [String] = []
        if let s = doc.schedule {
            if let from = s.from { clock.append("from \(from)") }
            if let until = s.until { clock.append("until \(until)") }
        }
        if let q = doc.quietHours { clock.append("quiet \(q.from)–\(q.to)") }
        if !clock.isEmpty { start += (doc.scenario == nil ? " (" : "; ") + clock.joined(separator: ", ") + (doc.scenario == nil ? ")" : "") }
        nodes.append(("(start)", start, .terminal))
        if let root = graph.root, graph.contains(root) {
            edges.append(Edge(from: "(start)", to: target(root), label: doc.scenario == nil && clock.isEmpty ? "" : "may show"))
        }
        var usesEnd = false
        for (k, node) in graph.nodes.enumerated() {
            let id = names[k]
            let label: String
            var shape = Shape.box
            switch node.content {
            case .text(let t):
                label = "text: " + short(t.text)
                edges.append(Edge(from: id, to: target(t.next), label: after(t.showNextAfter)))
            case .image(let img):
                let picture: String
                if case .file(let path) = img.image, !path.hasPrefix("data:") { picture = PathName.lastComponent(path) } else { picture = "inline" }
                label = "image: " + short(picture)
                edges.append(Edge(from: id, to: target(img.next), label: after(img.showNextAfter)))
            case .button(let b):
                label = "button: " + short(b.title) + marks(b)
                edges.append(Edge(from: id, to: target(b.next), label: short(b.title)))
            case .doubleButton(let l, let r):
                label = "buttons: " + short(l.title) + marks(l) + " | " + short(r.title) + marks(r)
                edges.append(Edge(from: id, to: target(l.next), label: short(l.title)))
                edges.append(Edge(from: id, to: target(r.next), label: short(r.title)))
            case .choice(let c):
                label = (c.multiple ? "choices: " : "choice: ") + short(c.text)
                if c.multiple {
                    // ☑ marks an option that starts ticked ("selected").
                    let titles = c.options.map { ($0.selected == true ? "☑ " : "") + $0.title }
                    edges.append(Edge(from: id, to: target(c.next), label: short(titles.joined(separator: ", "))))
                } else {
                    for o in c.options { edges.append(Edge(from: id, to: target(o.next), label: short(o.title) + marks(o))) }
                }
            case .rating(let r):
                label = "rating \(r.values.lowerBound)–\(r.values.upperBound): " + short(r.text)
                edges.append(Edge(from: id, to: target(r.next), label: "rated"))
            case .textInput(let input):
                // A typed input names its type and bounds as the flow writes them (today+1d stays so).
                var kind = "input"
                if input.inputType != .text {
                    kind += " " + input.inputType.rawValue
                    switch (input.minimum?.displayText, input.maximum?.displayText) {
                    case (let lo?, let hi?): kind += " \(lo)–\(hi)"
                    case (let lo?, nil): kind += " ≥\(lo)"
                    case (nil, let hi?): kind += " ≤\(hi)"
                    case (nil, nil): break
                    }
                }
                label = kind + ": " + short(input.text) + (input.isSecret ? " (secret)" : "") + (input.value.map { " = " + short($0) } ?? "")
                for branch in input.branches {
                    let condition: String
                    switch branch.condition {
                    case .equals(let s): condition = "= \"\(short(s))\""
                    case .pattern(let p): condition = "~ /\(short(p))/"
                    case .empty: condition = "empty"
                    }
                    edges.append(Edge(from: id, to: target(branch.next), label: condition))
                }
                edges.append(Edge(from: id, to: target(input.next), label: input.branches.isEmpty ? "answer" : "otherwise"))
            case .set(let set):
                shape = .set
                label = "set: " + short(set.assignments.map { "\($0.name) = \($0.expression.source)" }.joined(separator: "; "))
                edges.append(Edge(from: id, to: target(set.next), label: ""))
            case .jump(let jump):
                shape = .jump
                label = jump.flow.map { "jump into flow " + short($0) + (jump.returns ? " and back" : "") } ?? "jump"
                if jump.flow == nil || jump.to != nil { edges.append(Edge(from: id, to: target(jump.to), label: "")) }
                if jump.returns { edges.append(Edge(from: id, to: target(jump.next), label: "after " + short(jump.flow ?? "it"))) }
            case .condition(let condition):
                shape = .condition
                label = "condition"
                for branch in condition.branches { edges.append(Edge(from: id, to: target(branch.next), label: "if " + short(branch.condition.source))) }
                edges.append(Edge(from: id, to: target(condition.elseNext), label: "else"))
            }
            nodes.append((id, label, shape))
        }
        for e in edges where e.to == "(end)" { usesEnd = true }
        if usesEnd { nodes.append(("(end)", "end", .terminal)) }
        return (nodes, edges)
    }

    /// The flow as a Mermaid flowchart (`flowchart TD`).
    public static func mermaid(_ doc: FlowDocument) -> String {
        let (nodes, edges) = parts(doc)
        var ids: [String: String] = [:]
        for (k, node) in nodes.enumerated() { ids[node.0] = "n\(k)" }
        func text(_ s: String) -> String {
            // Mermaid labels in quotes; quotes and markup characters as entities.
            var out = ""
            for ch in Sanitizer.clean(s, keepNewlines: false) {
                switch ch {
                case "\"": out += "#quot;"
                case "<": out += "#lt;"
                case ">": out += "#gt;"
                case "|": out += "#124;"
                default: out.append(ch)
                }
            }
            return "\"" + out + "\""
        }
        var out = "flowchart TD\n"
        for (id, label, kind) in nodes {
            let shape: (String, String)
            switch kind {
            case .terminal: shape = ("([", "])")
            case .box: shape = ("[", "]")
            case .set: shape = ("[/", "/]")
            case .condition: shape = ("{", "}")
            case .jump: shape = ("[[", "]]")
            }
            out += "  \(ids[id]!)\(shape.0)\(text(kind == .terminal ? label : id + ": " + label))\(shape.1)\n"
        }
        for e in edges {
            guard let a = ids[e.from], let b = ids[e.to] else { continue }
            out += e.label.isEmpty ? "  \(a) --> \(b)\n" : "  \(a) -->|\(text(e.label))| \(b)\n"
        }
        return out
    }

    /// The flow as an outline to read in a terminal (or a review): each block on a line of its
    /// own, `id: kind: text`, and under it every way on, `what takes it → where`, in file order,
    /// with the start (and its gate) first. Every character is cleaned as printed text is.
    ///
    /// ```
    /// (start) → hello
    /// hello: text: Hi!
    ///   after 1.5s → ask
    /// ask: buttons: Sure | Later
    ///   Sure → name
    ///   Later → (end)
    /// ```
    public static func outline(_ doc: FlowDocument) -> String {
        let (nodes, edges) = parts(doc)
        var from: [String: [Edge]] = [:]
        for e in edges { from[e.from, default: []].append(e) }
        func clean(_ s: String) -> String { Sanitizer.clean(s, keepNewlines: false) }
        var out = ""
        for (id, label, kind) in nodes {
            let ways = from[id] ?? []
            if id == "(start)" {
                // The start on one line: what gates it, and the first block.
                let gate = label == "start" ? "" : " " + clean(label)
                out += "(start)\(gate)" + (ways.first.map { " → " + clean($0.to) } ?? "") + "\n"
                continue
            }
            if kind == .terminal { continue }  // the end is named where a way leads to it
            out += clean(id) + ": " + clean(label) + "\n"
            for e in ways { out += "  " + (e.label.isEmpty ? "" : clean(e.label) + " ") + "→ " + clean(e.to) + "\n" }
        }
        return out
    }

    /// The flow as a Graphviz DOT digraph.
    public static func dot(_ doc: FlowDocument) -> String {
        let (nodes, edges) = parts(doc)
        func quoted(_ s: String) -> String {
            var out = "\""
            for ch in Sanitizer.clean(s, keepNewlines: false) {
                if ch == "\"" || ch == "\\" { out.append("\\") }
                out.append(ch)
            }
            return out + "\""
        }
        var out = "digraph flow {\n  rankdir=TB;\n  node [shape=box, style=rounded, fontname=\"Helvetica\"];\n"
        for (id, label, kind) in nodes {
            let shown = kind == .terminal ? label : id + ": " + label
            let shape: String
            switch kind {
            case .terminal: shape = ", shape=oval"
            case .box: shape = ""
            case .set: shape = ", shape=parallelogram, style=solid"
            case .condition: shape = ", shape=diamond, style=solid"
            case .jump: shape = ", shape=box, style=solid, peripheries=2"
            }
            out += "  \(quoted(id)) [label=\(quoted(shown))\(shape)];\n"
        }
        for e in edges {
            out += "  \(quoted(e.from)) -> \(quoted(e.to))" + (e.label.isEmpty ? "" : " [label=\(quoted(e.label))]") + ";\n"
        }
        return out + "}\n"
    }
}
