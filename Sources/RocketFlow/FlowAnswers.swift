public import RocketConversation
import RocketCore
package import RocketJSON

/// Answers given ahead for a flow's blocks, read from the JSON object that
/// `rocket play --answers-out` writes (`rocket play --answers FILE`): block id → answer.
///
/// Keys that name one of the flow's variables are left out (the flow computes those; `--var`
/// sets start values), so a file written by `--answers-out` can be given back as it is. Every
/// other key must be the id of a block that takes an answer, and each answer must have the
/// shape of that block's answers. Titles are matched now when they hold no `{{…}}`, else when
/// the block is reached.
///
/// ```swift
/// let given = try FlowAnswers.read(Array(#"{"name": "Ada"}"#.utf8), for: doc).get()
/// given.byBlock["name"]?.value   // .text("Ada")
/// ```
public struct FlowAnswers: Hashable, Sendable {
    /// One given answer and where it stands in the file.
    public struct Given: Hashable, Sendable {
        /// The answer.
        public var value: RocketValue
        /// 1-based line and column (in characters) of the answer's key.
        public var line: Int, column: Int
    }

    /// The answers by block id.
    public var byBlock: [String: Given]

    /// Why an answers file cannot be used: every problem, placed.
    public struct Failure: Error, Hashable, Sendable {
        /// The problems, in file order.
        public var diagnostics: [FlowDiagnostic]
    }

    /// Reads `bytes` as answers for `doc`'s blocks.
    public static func read(_ bytes: [UInt8], for doc: FlowDocument) -> Result<FlowAnswers, Failure> {
        func failure(_ message: String, code: String, at offset: Int) -> Failure {
            let (line, column) = SourceLines(bytes).position(of: offset)
            return Failure(diagnostics: [FlowDiagnostic(severity: .error, code: code, message: message, path: "", line: line, column: column)])
        }
        let root: JSONNode
        do {
            root = try JSONReader.parse(bytes)
        } catch {
            return .failure(failure(error.message, code: "syntax", at: error.offset))
        }
        guard let members = root.object else {
            return .failure(failure("the answers must be a JSON object of block ids and answers, not \(root.typeName)", code: "type", at: root.offset))
        }
        var checker = Checker(doc)
        var problems = FlowDiagnosticList()
        var seen = Set<String>()
        var given: [(key: String, value: RocketValue, offset: Int)] = []
        for member in members {
            let key = member.key
            guard seen.insert(key).inserted else {
                problems.add(.error, "duplicate-key", "\(key.quotedForMessage) is answered twice", path: "", offset: member.keyOffset)
                continue
            }
            let value = Self.value(member.value)
            switch (checker.check(key, value ?? .null), value) {
            case (.skip, _): continue
            case (.problem(let code, let message, false), _):
                problems.add(.error, code, message, path: "", offset: member.keyOffset)
            case (_, nil):
                problems.add(.error, "type", "the answer for \(key.quotedForMessage) is \(member.value.typeName)", path: "", offset: member.value.offset)
            case (.problem(let code, let message, true), _):
                problems.add(.error, code, message, path: "", offset: member.value.offset)
            case (.fits, let value?):
                given.append((key, value, member.keyOffset))
            }
        }
        let lines = SourceLines(bytes)
        if problems.hasErrors { return .failure(Failure(diagnostics: problems.placed(in: lines) + [problems.unlistedNote].compactMap { $0 })) }
        let positions = lines.positions(of: given.map(\.offset))
        var byBlock: [String: Given] = [:]
        for (k, g) in given.enumerated() {
            byBlock[g.key] = Given(value: g.value, line: positions[k].line, column: positions[k].column)
        }
        return .success(FlowAnswers(byBlock: byBlock))
    }

    /// Answers given as `ID=VALUE` flags (`rocket play --answer`), checked as a file's are: the
    /// value is text, and a block named more than once gets the list of them (a multiple
    /// choice's titles). Each problem is a diagnostic without a line, its message naming the id.
    public static func fromFlags(_ flags: [String], flag: String, for doc: FlowDocument) -> Result<[String: RocketValue], Failure> {
        var values: [String: RocketValue] = [:]
        var order: [String] = []
        var problems: [FlowDiagnostic] = []
        func problem(_ code: String, _ message: String) {
            problems.append(FlowDiagnostic(severity: .error, code: code, message: message, path: ""))
        }
        for text in flags {
            guard let eq = text.firstIndex(of: "="), eq != text.startIndex else {
                problem("usage", "\(text.quotedForMessage) must be ID=VALUE")
                continue
            }
            let key = String(text[..<eq]), value = String(text[text.index(after: eq)...])
            switch values[key] {
            case nil:
                values[key] = .text(value)
                order.append(key)
            case .text(let first)?: values[key] = .list([first, value])
            case .list(let items)?: values[key] = .list(items + [value])
            default: break
            }
        }
        var checker = Checker(doc)
        for key in order {
            guard let value = values[key] else { continue }
            if case .problem(let code, let message, _) = checker.check(key, value) { problem(code, message) }
        }
        return problems.isEmpty ? .success(values.filter { checker.blocks[$0.key] != nil }) : .failure(Failure(diagnostics: problems))
    }

    /// The rules one answer meets, whatever it came from: its id names a block that takes an
    /// answer (a variable's name is skipped), and the value has that block's shape and, when the
    /// titles hold no `{{…}}`, names one of them.
    struct Checker {
        enum Outcome {
            case fits, skip
            /// `atValue`: the problem is the value's, not the id's.
            case problem(code: String, message: String, atValue: Bool)
        }
        let blocks: [String: RocketNode]
        let variables: Set<String>
        let answerable: [String]
        /// Hints for the first few unknown ids only: each is measured against every id.
        var hintsLeft = 20

        init(_ doc: FlowDocument) {
            var blocks: [String: RocketNode] = [:]
            for node in doc.graph.nodes { if let id = node.id, !id.isEmpty { blocks[id] = node } }
            self.blocks = blocks
            variables = Set(doc.graph.variables.map(\.name))
            answerable = blocks.filter { $0.value.takesAnswer }.keys.sorted()
        }

        mutating func check(_ key: String, _ value: RocketValue) -> Outcome {
            let quoted = key.quotedForMessage
            guard let block = blocks[key] else {
                if variables.contains(key) { return .skip }
                hintsLeft -= 1
                let hint = hintsLeft < 0 ? "" : Suggestions.closest(to: key, in: answerable).map { "; did you mean '\($0)'?" } ?? ""
                return .problem(code: "unknown-block", message: "the flow has no block \(quoted)\(hint)", atValue: false)
            }
            guard block.takesAnswer else {
                return .problem(code: "no-answer", message: "block \(quoted) is a \(block.kind.rawValue) block, which takes no answer", atValue: false)
            }
            if let problem = block.answerShapeProblem(value) {
                return .problem(code: "type", message: "the answer for \(quoted) does not fit: \(problem.message)", atValue: true)
            }
            // Titles without `{{…}}` are what is shown: a wrong one is said now, not mid-flow.
            if !block.answerTitles.contains(where: { $0.containsText("{{") }), case .failure(let refusal) = block.intent(answering: value, shown: { $0 }) {
                return .problem(code: "no-such-answer", message: "the answer for \(quoted) does not fit: \(refusal.message)", atValue: true)
            }
            return .fits
        }
    }

    /// The answer a JSON value stands for: a string, number, true, false, null, or a list of
    /// strings; nil for anything else.
    static func value(_ node: JSONNode) -> RocketValue? {
        switch node.value {
        case .null: return .null
        case .bool(let b): return .bool(b)
        case .number(let n): return .number(n)
        case .string(let s): return .text(s)
        case .array(let items):
            var list: [String] = []
            for item in items {
                guard case .string(let s) = item.value else { return nil }
                list.append(s)
            }
            return .list(list)
        case .object: return nil
        }
    }
}

extension FlowDocument {
    /// The answers `conversation` was given, by block id in order of the ids: a typed answer as
    /// its JSON value (a number, a date's text, a multiple choice's list of titles), any other
    /// as its text. Secret answers are left out, and so are values given at the start for names
    /// that are no block's. What `rocket play --answers-out` writes (with the variables) and
    /// what the server's view of an ended conversation carries, stated once.
    package func answerValues(of conversation: Conversation) -> [(id: String, value: JSONValue)] {
        answerValues(of: conversation.answers)
    }

    /// ``answerValues(of:)-(Conversation)`` of a conversation's answers taken out of it.
    package func answerValues(of answers: [String: RocketAnswer]) -> [(id: String, value: JSONValue)] {
        let ids = Set(blockIDs)
        return answers.filter { ids.contains($0.key) && !$0.value.isSecret }.sorted { $0.key < $1.key }.map { key, answer in
            (key, answer.typed?.json ?? .string(answer.value))
        }
    }
}
