public import RocketConversation
import RocketCore
public import RocketScenarioEngine
public import RocketBanners

/// A conversation as data: the flow-file format (version 1), read by ``FlowLoader`` and written
/// by ``jsonValue``, both from the one table of the format (``FlowFormat``).
///
/// The blocks are the engine's own model, a `RocketGraph` in file order: each node's `id` is
/// its block id and the graph's root is the `start` block. Image paths are kept as written;
/// ``makeGraph(imageBase:)`` resolves them against a folder.
///
/// ```swift
/// var graph = RocketGraph()
/// graph.root = graph.add(RocketNode(id: "hi", text: "Hi!"))
/// let doc = FlowDocument(graph: graph)
/// let conversation = doc.makeConversation()
/// ```
public struct FlowDocument: Hashable, Sendable {
    /// The format version (1).
    public var version: Int
    /// Optional title, for people and tools.
    public var title: String?
    /// The speaker (nil: the default, "Rocket" with no avatar).
    public var author: RocketAuthor?
    /// The close button.
    public var closeButton: RocketCloseButton?
    /// Names that callers may supply before the flow starts (`--var NAME=VALUE`).
    public var variables: [String]
    /// The blocks, in file order; the root is the first block shown.
    public var graph: RocketGraph
    /// The scenario that gates the flow: it is shown only when the scenario may execute, and the
    /// showing counts as its execution.
    public var scenario: String?
    /// The scenario's rules (WaitForIt's conditions, windows, budget, priority).
    public var when: ScenarioRules?
    /// A banner shown over the conversation when it starts.
    public var banner: Banner?

    /// The newest format version this library reads and writes.
    public static let currentVersion = 1

    /// Creates a document.
    public init(
        version: Int = FlowDocument.currentVersion, title: String? = nil, author: RocketAuthor? = nil,
        closeButton: RocketCloseButton? = nil, variables: [String] = [], graph: RocketGraph,
        scenario: String? = nil, when: ScenarioRules? = nil, banner: Banner? = nil
    ) {
        self.version = version
        self.title = title
        self.author = author
        self.closeButton = closeButton
        self.variables = variables
        self.graph = graph
        self.scenario = scenario
        self.when = when
        self.banner = banner
    }

    /// The id of the block shown first.
    public var startID: String? {
        guard let root = graph.root, graph.contains(root) else { return nil }
        return graph[root].id
    }

    /// The blocks' ids, in file order ("" for a node without one).
    public var blockIDs: [String] { graph.nodes.map { $0.id ?? "" } }
}

/// A value given for a variable at the start that does not fit it.
public struct FlowVariableProblem: Error, Hashable, Sendable {
    /// The variable.
    public let name: String
    /// What is wrong, in a sentence that names it.
    public let message: String
}

extension FlowDocument {
    /// The values given at the start (`--var NAME=VALUE`, the API's `vars`, a page's query) as the
    /// flow's variables take them: a declared variable (`vars`) takes a value of its type, or a
    /// text that reads as one (`"3"` for a number, `"true"` for a flag); a name of the older
    /// `variables` list, or one the flow does not declare, is kept as a text answer, as before
    /// variables had types.
    public func startValues(_ given: [String: RocketValue]) -> Result<(variables: [String: RocketValue], answers: [String: String]), FlowVariableProblem> {
        var variables: [String: RocketValue] = [:]
        var answers: [String: String] = [:]
        for (name, value) in given {
            guard let declared = graph.variable(named: name) else {
                answers[name] = value.displayText
                continue
            }
            if value.type == declared.type {
                variables[name] = value
            } else if case .text(let text) = value, let parsed = RocketValue(parsing: text, as: declared.type) {
                variables[name] = parsed
            } else {
                let shown: String
                if case .text(let text) = value { shown = "\"\(text.count > 40 ? String(text.prefix(40)) + "…" : text)\"" } else { shown = value.type.phrase }
                return .failure(FlowVariableProblem(name: name, message: "\"\(name)\" holds \(declared.type.phrase), not \(shown)"))
            }
        }
        return .success((variables, answers))
    }
}
