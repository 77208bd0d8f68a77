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
    /// `when.if`: a condition over the variables at the start; when false the flow is not shown.
    public var showIf: RocketExpression?
    /// An experiment: which visitors see which start, and which see nothing.
    public var experiment: RocketExperiment?
    /// Quiet hours: when, in local time, the flow is not shown.
    public var quietHours: RocketQuietHours?
    /// When the flow may be shown at all: from one moment until another (a campaign's dates).
    public var schedule: RocketSchedule?
    /// Shown whatever the gap between flows (`--min-gap`) says, as TipKit's
    /// `IgnoresDisplayFrequency` (a message that cannot wait); its showing still counts for the
    /// others.
    public var ignoresGap = false
    /// The languages its texts are written in (the first the default; empty: one language).
    public var languages: [String] = []
    /// The language it was read in (nil: it has one).
    public var language: String?

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

    /// True when a button of the flow (or of a flow it jumps into) snoozes it: its starts then
    /// ask the store whether this person snoozed it (`FlowSnooze`).
    public var snoozes: Bool { graph.nodes.contains { $0.snoozes } }

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
    /// True when the flow reads the person's clock: `today()`, `time()` or `weekday()` in its
    /// `when.if` or its blocks' expressions, or a date input's bound counted from today.
    public var readsClock: Bool { showIf?.readsClock == true || graph.readsClock }

    /// Why the flow is not for this start (`when.if` false, or not evaluable), or nil when it
    /// is: `variables` are the start values over the defaults, `answers` the undeclared ones,
    /// `local` the person's date and time for `today()`, `time()` and `weekday()`.
    public func refusal(variables: [String: RocketValue], answers: [String: String], local: RocketExpression.LocalTime?) -> String? {
        guard let condition = showIf else { return nil }
        var values: [String: RocketValue] = [:]
        for v in graph.variables where v.defaultValue != .null { values[v.name] = v.defaultValue }
        for (k, v) in answers { values[k] = .text(v) }
        for (k, v) in variables { values[k] = v }
        let (holds, error) = condition.test({ values[$0] }, local: local)
        if holds { return nil }
        return error.map { "when.if \(FlowDiagnostic.quoted(condition.source)) cannot be decided: \($0.message)" }
            ?? "when.if \(FlowDiagnostic.quoted(condition.source)) is false"
    }

    /// Why the clock keeps the flow from being shown at wall time `now` (seconds since 1970):
    /// its ``schedule``, then its ``quietHours`` in a local time `utcOffset` seconds ahead of
    /// UTC. Also the earliest instant both let it show, or nil when nothing ever will (the
    /// schedule has ended, or ends before the quiet hours do). Nil when both let it show now.
    public func timeRefusal(at now: Double, utcOffset: Int) -> (reason: String, earliest: Double?)? {
        let end = schedule?.end
        func within(_ r: (reason: String, earliest: Double?)) -> (reason: String, earliest: Double?) {
            guard let e = r.earliest, let end, e >= end, let until = schedule?.until else { return r }
            return (r.reason + "; its schedule ends at \(until), before then", nil)
        }
        if let s = schedule, let refused = s.refusal(at: now) {
            // Not begun: the beginning may itself fall in quiet hours.
            if let start = refused.earliest, let quiet = quietHours?.refusal(at: start, utcOffset: utcOffset) {
                return within((refused.reason + ", then " + quiet.reason, quiet.earliest))
            }
            return within(refused)
        }
        if let quiet = quietHours?.refusal(at: now, utcOffset: utcOffset) { return within((quiet.reason, quiet.earliest)) }
        return nil
    }

    /// True for a language tag as flows name languages: 2–3 letters, then optional parts of 2–8
    /// letters or digits after `-` (`en`, `it`, `pt-BR`, `zh-Hans`).
    public static func isLanguageTag(_ tag: String) -> Bool {
        let parts = tag.split(separator: "-", omittingEmptySubsequences: false)
        guard let first = parts.first, (2...3).contains(first.count), first.allSatisfy({ $0.isASCII && $0.isLetter }) else { return false }
        return parts.dropFirst().allSatisfy { (2...8).contains($0.count) && $0.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) } }
    }

    /// True when text in `language` runs right to left: by its script when the tag names one
    /// (`Arab`, `Hebr`, `Syrc`, `Thaa`, `Nkoo`, `Adlm`, `Rohg`; `az-Arab` is, `ku-Latn` is not),
    /// else by the language (`ar`, `he`, `fa`, `ur`, `ps`, `sd`, `ug`, `yi`, `dv`, `ckb`, …).
    public static func isRightToLeft(_ language: String) -> Bool {
        let parts = language.split(separator: "-").map { $0.lowercased() }
        guard let first = parts.first else { return false }
        if let script = parts.dropFirst().first(where: { $0.count == 4 && $0.allSatisfy(\.isLetter) }) {
            return ["arab", "hebr", "syrc", "thaa", "nkoo", "adlm", "rohg", "mand", "samr"].contains(script)
        }
        return ["ar", "he", "iw", "fa", "ur", "ps", "sd", "ug", "yi", "dv", "ckb", "ks", "syr", "arc", "nqo", "mzn", "glk", "lrc", "azb", "pnb", "bal", "prs"]
            .contains(first)
    }

    /// Which of its languages fits `wanted` (`it-IT` fits `it`, `zh-Hans-CN` fits `zh-Hans` or
    /// `zh`): the exact tag, else the longest one `wanted` starts with, else the default (nil
    /// for a flow in one language).
    public func language(for wanted: String?) -> String? { Self.language(in: languages, for: wanted) }

    /// ``language(for:)`` over a list of languages.
    static func language(in languages: [String], for wanted: String?) -> String? {
        guard let first = languages.first else { return nil }
        guard let wanted, !wanted.isEmpty else { return first }
        let lower = wanted.lowercased()
        if let exact = languages.first(where: { $0.lowercased() == lower }) { return exact }
        let fitting = languages.filter { fits(wanted, $0) }
        return fitting.max { $0.count < $1.count } ?? first
    }

    /// True when a flow's `language` fits the `wanted` tag: the same tag, or one it starts with
    /// (`it` fits `it-IT`), in any case.
    public static func fits(_ wanted: String, _ language: String) -> Bool {
        let (w, l) = (wanted.lowercased(), language.lowercased())
        return w == l || w.hasPrefix(l + "-")
    }
}

extension FlowDocument {
    /// The names a value given at the start can reach: the declared variables (`vars`), the
    /// `variables` list, and every `{{name}}` of a text a person sees (a block's, the banner's,
    /// the close button's). A `--var` of another name changes nothing (`rocket play` says so).
    public var namesRead: Set<String> {
        var names = Set(graph.variables.map(\.name)).union(variables)
        func read(_ text: String) { names.formUnion(RocketTemplate.placeholders(in: text)) }
        for node in graph.nodes { node.forEachText(read) }
        if let banner {
            read(banner.title)
            if let sub = banner.subtitle { read(sub) }
            if banner.buttons != .close { for item in banner.buttons.items { read(item.title) } }
        }
        if let close = closeButton { read(close.title) }
        return names
    }

    /// The values given at the start (`--var NAME=VALUE`, the API's `vars`, a page's query) as the
    /// flow's variables take them: a declared variable (`vars`) takes a value of its type, or a
    /// text that reads as one (`"3"` for a number, `"true"` for a flag); a name of the older
    /// `variables` list, or one the flow does not declare, is kept as a text answer, as before
    /// variables had types.
    public func startValues(_ given: [String: RocketValue]) -> Result<(variables: [String: RocketValue], answers: [String: String]), FlowVariableProblem> {
        var variables = [String: RocketValue]()
        var answers = [String: String]()
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
                if case .text(let text) = value { shown = FlowDiagnostic.quoted(text) } else { shown = value.type.phrase }
                return .failure(FlowVariableProblem(name: name, message: "\(FlowDiagnostic.quoted(name)) holds \(declared.type.phrase), not \(shown)"))
            }
        }
        return .success((variables, answers))
    }
}
