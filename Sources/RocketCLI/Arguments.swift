import RocketTerminal
import RocketTerminalCore
import RocketCore

/// What a shell completes an option's value or a positional argument with (`rocket completions`).
enum ValueCompletion: Equatable {
    /// Nothing (free text).
    case none
    /// File and folder names (folders end in `/`, to go on into them).
    case file
    /// Folder names only.
    case directory
    /// Command names (what `rocket spin` runs).
    case command
    /// One of these words.
    case words([String])

    /// The completion a placeholder implies: `FILE`, `PATH` or a name ending in `.json` are
    /// files, `DIR` is a folder, `a|b|c` are those words; anything else is free text.
    init(placeholder: String?) {
        guard let p = placeholder else { self = .none; return }
        if p == "FILE" || p == "PATH" || p.hasSuffix(".json") {
            self = .file
        } else if p == "DIR" {
            self = .directory
        } else if p.contains("|") {
            self = .words(p.split(separator: "|").map(String.init))
        } else {
            self = .none
        }
    }
}

/// A command-line option: a flag (`--plain`) or an option with a value (`--events FILE`).
struct OptionSpec {
    let name: String
    let value: String?  // the value's placeholder, nil for a flag
    let repeatable: Bool
    let help: String
    /// The heading it is listed under in `--help` (an option group), "OPTIONS" by default.
    var group = "OPTIONS"
    /// What a shell completes the value with (inferred from the placeholder unless set).
    var completion: ValueCompletion

    init(name: String, value: String?, repeatable: Bool, help: String) {
        self.name = name
        self.value = value
        self.repeatable = repeatable
        self.help = help
        completion = ValueCompletion(placeholder: value)
    }

    static func flag(_ name: String, _ help: String) -> OptionSpec {
        OptionSpec(name: name, value: nil, repeatable: false, help: help)
    }

    static func value(_ name: String, _ placeholder: String, _ help: String, repeatable: Bool = false) -> OptionSpec {
        OptionSpec(name: name, value: placeholder, repeatable: repeatable, help: help)
    }

    /// The same option, its value completed with `completion`.
    func completing(_ completion: ValueCompletion) -> OptionSpec {
        var copy = self
        copy.completion = completion
        return copy
    }

    /// The same option listed under `group`.
    func inGroup(_ group: String) -> OptionSpec {
        var copy = self
        copy.group = group
        return copy
    }
}

/// Options declared once and shared by the commands that take them, each group under its own
/// heading in `--help`.
enum OptionGroups {
    /// The `--theme` values (`auto` asks the terminal).
    static let themeNames = ["auto", "dark", "light", "none"]
    /// `--theme NAME`, for every command that draws.
    static let theme = OptionSpec.value(
        "--theme", "NAME", "Colours: auto (ask the terminal for its background), dark, light or none (also ROCKET_THEME)."
    ).completing(.words(themeNames))

    /// How a conversation is shown (demo, play).
    static let frontEnd: [OptionSpec] =
        ([
            .flag("--plain", "Line mode: no escape sequences; one line of input per interactive block (also ROCKET_PLAIN=1)."),
            .flag("--instant", "Every delay fires at once (for scripts and tests)."),
            .flag("--mouse", "Capture the mouse in the terminal: clicks press buttons (scroll-back and selection then stop working)."),
            OptionGroups.theme,
            .flag("--verbose", "Also print the flow's lint warnings (errors are always printed), and where its expressions fail as it plays."),
        ] as [OptionSpec]).map { $0.inGroup("FRONT END") }

    /// What a conversation writes, and what it runs (demo, play).
    static let output: [OptionSpec] =
        ([
            .value("--events", "FILE", "Write events as JSON Lines to FILE as they happen (- for standard output)."),
            .value("--answers-out", "FILE", "Write the answers by block id and the flow's variables by name as a JSON object to FILE (- for standard output)."),
            .flag("--print-actions", "Write each action's name to stdout as it fires."),
            .value(
                "--on-action", "NAME=COMMAND", "Run COMMAND with /bin/sh -c when the flow fires action NAME (answers in ROCKET_ANSWER_<ID>).",
                repeatable: true),
        ] as [OptionSpec]).map { $0.inGroup("OUTPUT") }

    /// Answers known before, and a conversation that outlives the process (demo, play).
    static let conversation: [OptionSpec] =
        ([
            .value("--var", "NAME=VALUE", "Give a variable of the flow its value at the start (typed by the flow's vars).", repeatable: true),
            .value(
                "--answers", "FILE",
                "Answer blocks ahead from a JSON object of block ids and answers, as --answers-out writes it (- for standard input)."),
            .value(
                "--answer", "ID=VALUE", "Answer block ID ahead with VALUE (a title, a number or text; named again for a multiple choice's titles).",
                repeatable: true),
            .value(
                "--lang", "TAG", "Play a flow written in several languages in this one (en, it, pt-BR; default: the environment's); the interface follows."),
            .value(
                "--visitor", "ID",
                "Who plays, for a flow's experiment (default: a stable id kept in $XDG_STATE_HOME/rocket/visitor)."),
            .value(
                "--min-gap", "D", "Show nothing when a flow was shown through the store less than D ago (30s, 5m); a showing is noted there."),
            .value("--state", "FILE", "Save the conversation to FILE after every step and resume from it when it exists."),
            .flag("--restart", "With --state: start over even when FILE holds a conversation (of this flow or another)."),
        ] as [OptionSpec]).map { $0.inGroup("CONVERSATION") }

    /// The store, the time, and a flow's gate (demo, play).
    static let scenarioGate: [OptionSpec] =
        ([
            ScenarioCommand.storeOption,
            .value(
                "--now", "T",
                "The time: ISO-8601 (2026-01-01T00:00:00Z) or @EPOCHSECONDS; the flow's gates and its today(), time() and weekday() (in TZ's zone) read it."),
            .flag("--explain", "When the flow names a scenario, say why it is shown or not, on stderr."),
            .flag(
                "--ignore-rules",
                "Play even when the flow's rules say not now (its scenario, targeting, schedule, quiet hours, --min-gap), and record nothing."),
        ] as [OptionSpec]).map { $0.inGroup("SCENARIO") }
}

/// Which argument of a command line with one too many is most likely an option's value.
enum StrayValue {
    /// The first, as in `cp FROM TO`: `rocket backup A B` for `rocket backup --store A B`.
    case first(String)
    /// The last, as in `cp FROM TO` where the option names the destination, or after the
    /// positionals: `rocket restore A B` for `rocket restore A --store B`, `rocket serve
    /// examples` for `rocket serve --flows examples`.
    case last(String)

    /// The option.
    var option: String {
        switch self {
        case .first(let o), .last(let o): o
        }
    }

    /// `positionals` with the option put before the one that is its value.
    func suggestion(_ positionals: [String]) -> [String] {
        switch self {
        case .first(let o): [o] + positionals
        case .last(let o): positionals.dropLast() + [o] + positionals.suffix(1)
        }
    }
}

/// A subcommand's interface: its positionals and options, for parsing and for `--help`.
struct CommandSpec {
    let name: String
    let abstract: String
    let positionals: [(name: String, help: String)]
    /// How many positionals: a range (e.g. 1...1, 1...Int.max).
    let positionalCount: ClosedRange<Int>
    let options: [OptionSpec]
    let discussion: String
    /// What each exit status means.
    var exitStatus: String = ""
    /// Command lines that show how it is used (at least two).
    var examples: [String] = []
    /// What a shell completes the positionals with (inferred from the first one's name unless set).
    var positionalCompletion: ValueCompletion?
    /// The option whose value an argument too many most likely is: the command's main input
    /// given as if it were a positional. The usage error suggests it.
    var strayValue: StrayValue?

    /// The positionals' completion, set or inferred.
    var completesPositionals: ValueCompletion { positionalCompletion ?? ValueCompletion(placeholder: positionals.first?.name) }

    /// The synopsis: optional arguments in brackets, repeatable ones with "...".
    var usage: String {
        var parts = ["rocket", name]
        if !options.isEmpty { parts.append("[options]") }
        for p in positionals {
            var word = positionalCount.upperBound > 1 ? "\(p.name)..." : p.name
            if positionalCount.lowerBound == 0 { word = "[" + word + "]" }
            parts.append(word)
        }
        return parts.joined(separator: " ")
    }

    var help: String {
        var out = "OVERVIEW: \(abstract)\n\nUSAGE: \(usage)\n"
        let lefts = options.map { $0.name + ($0.value.map { " " + $0 } ?? "") } + positionals.map(\.name) + ["-h, --help"]
        let column = min(30, (lefts.map { DisplayWidth.of($0) }.max() ?? 0) + 2)
        if !positionals.isEmpty {
            out += "\nARGUMENTS:\n"
            for p in positionals { out += "  " + pad(p.name, column) + p.help + "\n" }
        }
        var groups: [String] = []
        for o in options where !groups.contains(o.group) { groups.append(o.group) }
        if !groups.contains("OPTIONS") { groups.append("OPTIONS") }
        for group in groups {
            out += "\n\(group):\n"
            for o in options where o.group == group {
                let left = o.name + (o.value.map { " " + $0 } ?? "")
                out += "  " + pad(left, column) + o.help + "\n"
            }
            if group == "OPTIONS" { out += "  " + pad("-h, --help", column) + "Show help information.\n" }
        }
        if !discussion.isEmpty { out += "\n" + discussion + "\n" }
        if !exitStatus.isEmpty { out += "\nEXIT STATUS:\n" + exitStatus.split(separator: "\n").map { "  " + $0 }.joined(separator: "\n") + "\n" }
        if !examples.isEmpty { out += "\nEXAMPLES:\n" + examples.map { "  " + $0 }.joined(separator: "\n") + "\n" }
        return out
    }
}

/// `s` padded with spaces to `n` columns of display width (two spaces at least after a long one;
/// the next column then starts on a line of its own).
func pad(_ s: String, _ n: Int) -> String {
    let width = DisplayWidth.of(s)
    if width + 2 > n { return s + "\n" + String(repeating: " ", count: n + 2) }
    return s + String(repeating: " ", count: n - width)
}

/// What the user typed, checked against a ``CommandSpec``.
struct ParsedArguments {
    var flags: Set<String> = []
    var values: [String: [String]] = [:]
    var positionals: [String] = []
    var helpRequested = false

    func has(_ flag: String) -> Bool { flags.contains(flag) }
    func value(_ name: String) -> String? { values[name]?.last }
    func all(_ name: String) -> [String] { values[name] ?? [] }
}

/// A usage error: one line, a hint, exit status 64.
struct UsageError: Error {
    let message: String
    let command: String?

    var text: String {
        let hint = command.map { "See 'rocket \($0) --help'." } ?? "See 'rocket --help'."
        return "rocket: error: \(Sanitizer.clean(Self.bounded(message), keepNewlines: false))\n\(hint)"
    }

    /// A message as it is shown: it quotes what was typed, which may be an argument of 128 KiB.
    /// A word longer than ``RocketLimits/quotedCharacters`` keeps its start and its end (a
    /// closing quote stays), and the whole message at most eight times that, its middle cut.
    static func bounded(_ message: String) -> String {
        let limit = RocketLimits.quotedCharacters
        func middleCut(_ s: Substring, keep: Int) -> String {
            guard s.count > keep else { return String(s) }
            let head = keep * 2 / 3
            return String(s.prefix(head)) + "…" + String(s.suffix(keep - head - 1))
        }
        guard message.count > limit else { return message }
        let words = message.split(separator: " ", omittingEmptySubsequences: false).map { middleCut($0, keep: limit) }
        return middleCut(Substring(words.joined(separator: " ")), keep: 8 * limit)
    }
}

func parse(_ args: [String], as spec: CommandSpec) throws(UsageError) -> ParsedArguments {
    var parsed = ParsedArguments()
    var i = 0
    var onlyPositionals = false
    while i < args.count {
        let arg = args[i]
        i += 1
        if onlyPositionals || !arg.hasPrefix("-") || arg == "-" {
            parsed.positionals.append(arg)
            continue
        }
        if arg == "--" { onlyPositionals = true; continue }
        if arg == "-h" || arg == "--help" { parsed.helpRequested = true; continue }
        var name = arg
        var inlineValue: String?
        if let eq = arg.firstIndex(of: "="), arg.hasPrefix("--") {
            name = String(arg[..<eq])
            inlineValue = String(arg[arg.index(after: eq)...])
        }
        guard let option = spec.options.first(where: { $0.name == name }) else {
            let close = Suggestions.closest(to: name, in: spec.options.map(\.name))
            throw UsageError(message: "unknown option '\(name)'" + (close.map { "; did you mean '\($0)'?" } ?? ""), command: spec.name)
        }
        if option.value == nil {
            if inlineValue != nil { throw UsageError(message: "the flag '\(name)' takes no value", command: spec.name) }
            if parsed.flags.contains(name) { throw UsageError(message: "'\(name)' given more than once", command: spec.name) }
            parsed.flags.insert(name)
            continue
        }
        let value: String
        if let inlineValue {
            value = inlineValue
        } else {
            guard i < args.count else { throw UsageError(message: "missing value for '\(name) \(option.value!)'", command: spec.name) }
            value = args[i]
            i += 1
        }
        if !option.repeatable, parsed.values[name] != nil {
            throw UsageError(message: "'\(name)' given more than once", command: spec.name)
        }
        parsed.values[name, default: []].append(value)
    }
    if parsed.helpRequested { return parsed }
    if parsed.positionals.count < spec.positionalCount.lowerBound {
        let missing = spec.positionals.first?.name ?? "argument"
        throw UsageError(message: "missing \(missing)", command: spec.name)
    }
    if parsed.positionals.count > spec.positionalCount.upperBound {
        // A command that takes a list says how long it may be; one that takes a fixed number of
        // arguments names the first one too many.
        if spec.positionalCount.upperBound > 1, let name = spec.positionals.last?.name {
            throw UsageError(
                message: "at most \(spec.positionalCount.upperBound) \(name)s (\(parsed.positionals.count) given)", command: spec.name)
        }
        var message = "unexpected argument '\(Sanitizer.clean(parsed.positionals[spec.positionalCount.upperBound], keepNewlines: false))'"
        if let stray = spec.strayValue, parsed.values[stray.option] == nil, parsed.positionals.count == spec.positionalCount.upperBound + 1 {
            message += "; did you mean \(stray.suggestion(parsed.positionals).map(shellWord).joined(separator: " "))?"
        }
        throw UsageError(message: message, command: spec.name)
    }
    return parsed
}

/// `word` as a shell reads it back: as it is when it holds nothing a shell treats specially,
/// else in single quotes (a quote inside written '\''), with control characters shown
/// escaped.
func shellWord(_ word: String) -> String {
    let word = Sanitizer.clean(word, keepNewlines: false)
    let plain = !word.isEmpty && word.unicodeScalars.allSatisfy { $0.properties.isAlphabetic || "0123456789-_./:=@%+,".unicodeScalars.contains($0) }
    return plain ? word : "'" + word.replacingAll("'", with: "'\\''") + "'"
}
