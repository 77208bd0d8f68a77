import RocketCore
import RocketJSON

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
    /// For a problem inside a string (an expression): the byte offset in the string's value,
    /// which places the diagnostic inside the string rather than at its start.
    var inner: Int?

    /// Creates a diagnostic.
    public init(severity: Severity, code: String, message: String, path: String, line: Int? = nil, column: Int? = nil) {
        self.severity = severity
        self.code = code
        self.message = message
        self.path = path
        self.line = line
        self.column = column
    }

    /// A value from the file as a message quotes it: in double quotes, cut to
    /// ``RocketLimits/quotedCharacters`` characters (a 64 KiB id makes a line of a screen, not
    /// of a book).
    package static func quoted(_ value: some StringProtocol) -> String { "\"" + Sanitizer.excerpt(value) + "\"" }

    /// `FILE:LINE:COL: severity: message (path)`, the compiler-style form `rocket lint` prints.
    public func formatted(file: String) -> String {
        // File names and messages quote what files contain: nothing reaches the terminal raw.
        let name = Sanitizer.clean(file, keepNewlines: false)
        let place = line.map { "\(name):\($0):\(column ?? 1)" } ?? name
        // A path holds the file's keys: cut as a quoted value is (twice as long, for its steps).
        let shownPath = Sanitizer.excerpt(path, limit: 2 * RocketLimits.quotedCharacters)
        let where_ = path.isEmpty ? "" : " (\(Sanitizer.clean(shownPath, keepNewlines: false)))"
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

/// Diagnostics as they are found: a repeat (same severity, code and message) is counted into the
/// first one, and at most ``limit`` distinct ones are kept, so a file with millions of problems
/// costs a bounded list (the rest are counted, and said to be there).
struct FlowDiagnosticList {
    /// The most distinct diagnostics one list keeps.
    static let limit = RocketLimits.diagnostics
    /// The code of the note that says how many were not listed.
    static let unlistedCode = "too-many-diagnostics"

    private(set) var items: [FlowDiagnostic] = []
    /// The byte offset of each item (0 when its place is found from its path).
    private(set) var offsets: [Int] = []
    private var repeats: [Int] = []
    private struct Key: Hashable {
        let severity: FlowDiagnostic.Severity
        let code: String
        let message: String
    }
    private var index: [Key: Int] = [:]
    /// Diagnostics past the limit: how many, and how many of them are errors.
    private(set) var unlisted = 0
    private(set) var unlistedErrors = 0
    /// Whether any diagnostic added (kept, repeated or past the limit) is an error.
    private(set) var hasErrors = false

    mutating func add(
        _ severity: FlowDiagnostic.Severity, _ code: String, _ message: String, path: @autoclosure () -> String, offset: Int = 0,
        inner: Int? = nil
    ) {
        if severity == .error { hasErrors = true }
        let key = Key(severity: severity, code: code, message: message)
        if let k = index[key] {
            repeats[k] += 1
            return
        }
        guard items.count < Self.limit else {
            unlisted += 1
            if severity == .error { unlistedErrors += 1 }
            return
        }
        index[key] = items.count
        var d = FlowDiagnostic(severity: severity, code: code, message: message, path: path())
        d.inner = inner
        items.append(d)
        offsets.append(offset)
        repeats.append(0)
    }

    /// The kept diagnostics, each saying how many more were like it.
    var collapsed: [FlowDiagnostic] {
        var out = items
        for (k, n) in repeats.enumerated() where n > 0 { out[k].message += " (and \(n) more like it)" }
        return out
    }

    /// The kept diagnostics, collapsed, each placed at the line and column of its offset in
    /// `lines` (one sweep for all of them).
    func placed(in lines: SourceLines) -> [FlowDiagnostic] {
        var kept = collapsed
        let positions = lines.positions(of: offsets)
        for k in kept.indices { (kept[k].line, kept[k].column) = positions[k] }
        return kept
    }

    /// The note for the diagnostics past the limit, if any: an error when one of them is.
    var unlistedNote: FlowDiagnostic? {
        Self.note(unlisted, error: unlistedErrors > 0)
    }

    static func note(_ count: Int, error: Bool) -> FlowDiagnostic? {
        guard count > 0 else { return nil }
        return FlowDiagnostic(
            severity: error ? .error : .warning, code: unlistedCode,
            message: "\(count) more problem\(count == 1 ? " is" : "s are") not listed (at most \(limit) different ones are)", path: "")
    }
}
