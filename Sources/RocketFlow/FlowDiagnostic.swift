import RocketCore

/// A problem found in a flow file, with its place.
///
/// ```swift
/// let d = FlowDiagnostic(severity: .error, code: "unknown-target", message: "no block named \"x\"",
///                        path: "blocks[2].next", line: 7, column: 14)
/// d.formatted(file: "flow.json")   // "flow.json:7:14: error: no block named \"x\" (blocks[2].next)"
/// ```
public struct FlowDiagnostic: Hashable, Sendable {
    /// How bad it is.
    public enum Severity: String, Hashable, Sendable {
        /// The flow cannot be played.
        case error
        /// The flow plays, but something looks unintended.
        case warning
    }

    /// How bad it is.
    public var severity: Severity
    /// A stable, machine-readable name of the rule (for example `duplicate-id`).
    public var code: String
    /// A sentence saying what is wrong.
    public var message: String
    /// Where in the document, as a path like `blocks[3].left.next` (empty for the file itself).
    public var path: String
    /// 1-based line, when the document came from text.
    public var line: Int?
    /// 1-based column (in characters), when the document came from text.
    public var column: Int?

    /// Creates a diagnostic.
    public init(severity: Severity, code: String, message: String, path: String, line: Int? = nil, column: Int? = nil) {
        self.severity = severity
        self.code = code
        self.message = message
        self.path = path
        self.line = line
        self.column = column
    }

    /// `FILE:LINE:COL: severity: message (path)`, the compiler-style form `rocket lint` prints.
    public func formatted(file: String) -> String {
        // File names and messages quote what files contain: nothing reaches the terminal raw.
        let name = Sanitizer.clean(file, keepNewlines: false)
        let place = line.map { "\(name):\($0):\(column ?? 1)" } ?? name
        let where_ = path.isEmpty ? "" : " (\(Sanitizer.clean(path, keepNewlines: false)))"
        return "\(place): \(severity.rawValue): \(Sanitizer.clean(message, keepNewlines: false))\(where_)"
    }
}

/// The result of loading a flow: the document when it could be built, and every diagnostic.
public struct FlowLoadResult: Sendable {
    /// The document, or nil when the text could not be turned into one.
    public var document: FlowDocument?
    /// Errors and warnings, in file order.
    public var diagnostics: [FlowDiagnostic]

    /// Creates a result.
    public init(document: FlowDocument?, diagnostics: [FlowDiagnostic]) {
        self.document = document
        self.diagnostics = diagnostics
    }

    /// True when there is no error (warnings allowed) and a document exists.
    public var isPlayable: Bool { document != nil && !diagnostics.contains { $0.severity == .error } }
    /// The errors only.
    public var errors: [FlowDiagnostic] { diagnostics.filter { $0.severity == .error } }
}
