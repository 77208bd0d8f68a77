#if canImport(Glibc)
    import Glibc
#endif
import RocketConversation
import RocketCore
import RocketTerminalApps
import RocketTerminal
import RocketTerminalCore
import RocketPlatform
import RocketText

/// The prompts for shell scripts: `input`, `confirm`, `choose` and `spin`. Each draws on the
/// terminal (`/dev/tty` when stdout is captured) and prints only its result on stdout; piped
/// stdin, `--plain` and `TERM=dumb` use line mode (prompts on stderr).
enum PromptCommands {
    static let frontEnd: [OptionSpec] = [
        .flag("--plain", "Line mode: the prompt on stderr, one line of input (also ROCKET_PLAIN=1)."),
        .flag("--mouse", "Capture the mouse: clicks choose (scroll-back and selection then stop working)."),
        OptionGroups.theme,
    ]
    /// What a prompt leaves on the terminal: one summary line, or nothing with `--clear`.
    static let clearOption = OptionSpec.flag(
        "--clear", "Leave nothing on the terminal once answered (by default one dimmed line: the question and the answer).")

    /// How long a prompt waits for a key; `fallback` says what a timeout does without input.
    static func timeoutOption(_ fallback: String) -> OptionSpec {
        .value("--timeout", "D", "Give up after D with no key pressed (each key starts the wait again): \(fallback).")
    }

    /// The residue a prompt leaves (see ``clearOption``).
    static func residue(_ parsed: ParsedArguments) -> ProgramRunner.Residue { parsed.has("--clear") ? .nothing : .summary }

    static let inputSpec = CommandSpec(
        name: "input", abstract: "Ask for a line of text (or several) and print it (a prompt for shell scripts).",
        positionals: [], positionalCount: 0...0,
        options: [
            .value("--title", "T", "The question, shown in a bubble."),
            .value("--placeholder", "P", "Shown in the empty field."),
            .value("--value", "V", "The answer the field starts with (an empty line takes it in line mode)."),
            .value("--button", "T", "The send button's title (default: OK)."),
            .value("--type", "T", "What the answer must be: \(RocketInputType.allCases.map(\.rawValue).joined(separator: ", ")) (default text).")
                .completing(.words(RocketInputType.allCases.map(\.rawValue))),
            .value("--min", "V", "The least answer accepted: a number for number and integer, a day YYYY-MM-DD or today+N(d|w|m|y) for date."),
            .value("--max", "V", "The greatest answer accepted."),
            .flag("--secret", "Hide what is typed (echo off in line mode)."),
            .flag("--twice", "Ask a second time and again until both answers match (a new password)."),
            .flag(
                "--multiline",
                "Take several lines: Enter starts a new one and Ctrl-D sends (line mode: the lines up to one holding only a dot, or the end of input)."),
            .flag("--required", "Refuse an empty answer."),
            .value("--min-length", "N", "At least N characters."),
            .value("--max-length", "N", "At most N characters."),
            .value("--pattern", "RE", "The answer must contain a match of this PCRE2 pattern (bounded cost)."),
            .value("--message", "M", "The message shown when the answer is refused."),
            timeoutOption("--value's answer when it is valid, else exit 124"),
            clearOption,
        ] + frontEnd,
        discussion: """
            Prints the answer on stdout. Refused answers say why and ask again. A number is printed
            as a number (2,5 typed is 2.5), other types as typed without surrounding spaces.
            """,
        exitStatus: "0 answered; 1 Esc or end of input; 64 usage error (a bad pattern or number); 124 timed out; 130 Ctrl-C.",
        examples: [
            "name=$(rocket input --title 'Your name?' --placeholder Ada --required)",
            "pin=$(rocket input --title PIN --secret --pattern '^[0-9]{4}$' --message 'Four digits')",
            "count=$(rocket input --title 'How many?' --type integer --min 1 --max 99)",
        ])

    static let confirmSpec = CommandSpec(
        name: "confirm", abstract: "Ask a yes/no question: exit 0 for yes, 1 for no.",
        positionals: [("QUESTION", "The question, shown in a bubble above the buttons.")], positionalCount: 0...1,
        options: [
            .value("--affirmative", "T", "The yes button's title (default: Yes, in the user's language)."),
            .value("--negative", "T", "The no button's title (default: No, in the user's language)."),
            .value("--default", "yes|no", "Where focus starts (default: yes)."),
            timeoutOption("the --default given, else exit 124 (never yes unless asked)"),
            clearOption,
        ] + frontEnd,
        discussion: "Prints nothing: the answer is the exit status, so `rocket confirm 'Deploy?' && deploy` is safe.",
        exitStatus: "0 yes; 1 no, Esc or end of input; 64 usage error; 124 timed out; 130 Ctrl-C.",
        examples: ["rocket confirm 'Delete the cache?' && rm -rf cache", "printf 'no\\n' | rocket confirm 'Go on?' || echo stopped"])

    static let chooseSpec = CommandSpec(
        name: "choose", abstract: "Choose from a list (arrow keys, type to filter) and print the choice.",
        positionals: [("OPTION", "An option, in order; none: one per line of standard input.")],
        positionalCount: 0...RocketLimits.chooseOptions,
        options: [
            .value("--title", "T", "A heading over the list."),
            .value("--limit", "N", "Up to N choices (Tab selects); default 1."),
            .flag("--no-limit", "Any number of choices."),
            .value("--height", "N", "Rows of options shown at once (default 10)."),
            .value("--selected", "OPTION", "Start with OPTION selected (the cursor on it; ticked with --limit); repeatable.", repeatable: true),
            .flag("--select-if-one", "With a single option, print it without asking (nothing is drawn or read)."),
            .value("--label-delimiter", "D", "Each option is LABEL D VALUE (split at the first D): the list shows the label, the value is printed."),
            .flag("--ordered", "With --limit or --no-limit: print the choices in the order they were ticked (the ticks show 1, 2, 3…), not in list order."),
            timeoutOption("the --selected options when given, else exit 124"),
            clearOption,
        ] + frontEnd,
        discussion: """
            Prints the chosen options on stdout, one per line, in list order (--ordered: in the order
            they were ticked). Without OPTIONs the
            options are the lines of standard input (blank lines skipped), and keys come from the
            terminal. Typing filters, ignoring case and accents: the options that hold what was
            typed come first, then those that hold each of its words, then those that hold each
            word's letters in order (fb finds feature/branch); what matched is underlined.
            With --label-delimiter, an option without D is its own label and value; --selected
            and a typed line (line mode) take a value as well as a label.
            """,
        exitStatus: "0 chosen; 1 Esc or end of input; 64 usage error; 66 standard input cannot be read; 124 timed out; 130 Ctrl-C.",
        examples: [
            "color=$(rocket choose red green blue)", "rocket choose --limit 2 --title Toppings cheese ham olives | xargs echo",
            "git switch \"$(git branch --format='%(refname:short)' | rocket choose --title Branch)\"",
            "env=$(rocket choose --label-delimiter : 'Production:prod' 'Staging:stage')",
        ])

    static let spinSpec = CommandSpec(
        name: "spin", abstract: "Show a spinner while a command runs; exit with its status.",
        positionals: [("CMD", "The command and its arguments, after --.")], positionalCount: 1...100_000,
        options: [
            .value("--title", "T", "The text beside the spinner (default: the command)."),
            .value("--show-after", "D", "Show the spinner only if the command takes longer than this (default 0)."),
            .value("--min-display", "D", "Once shown, keep the spinner up at least this long (default 0)."),
        ] + frontEnd,
        discussion: """
            Put the command after `--`. Its output is kept and written out, unchanged, when it
            ends (stdout to stdout, stderr to stderr). Ctrl-C stops it (SIGTERM) and exits 130.
            """,
        exitStatus: "the command's exit status (128 + N when a signal ended it); 64 usage error; 127 the command cannot be run; 130 Ctrl-C.",
        examples: ["rocket spin --title 'Installing…' -- sleep 2", "out=$(rocket spin --show-after 500ms --min-display 1s -- make -s)"],
        positionalCompletion: .command)

    static func count(_ parsed: ParsedArguments, _ name: String, command: String, range: ClosedRange<Int>) throws(UsageError) -> Int? {
        guard let text = parsed.value(name) else { return nil }
        guard text.utf8.count <= 9, let n = Int(text), range.contains(n) else {
            throw UsageError(message: "'\(name) \(text)' must be a whole number from \(range.lowerBound) to \(range.upperBound)", command: command)
        }
        return n
    }

    static func duration(_ parsed: ParsedArguments, _ name: String, command: String) throws(UsageError) -> Double {
        guard let text = parsed.value(name) else { return 0 }
        guard let seconds = RocketDuration.parse(text) else {
            throw UsageError(message: "'\(name) \(text)' must be \(RocketDuration.syntax)", command: command)
        }
        return seconds
    }

    /// `--timeout`: nil when not given; more than zero.
    static func timeout(_ parsed: ParsedArguments, command: String) throws(UsageError) -> Double? {
        guard let text = parsed.value("--timeout") else { return nil }
        let seconds = try duration(parsed, "--timeout", command: command)
        guard seconds > 0 else { throw UsageError(message: "'--timeout \(text)' must be more than 0", command: command) }
        return seconds
    }

    /// Runs a prompt, within `timeout` when one is given: the outcome, and whether the wait ran
    /// out (the outcome is then `.declined(nil)`). `answerOnTimeout` is the default the prompt
    /// answers with then, for the line it leaves.
    @MainActor
    static func run<P: TerminalProgram>(
        _ app: P, on runner: ProgramRunner, lineMode: Bool, timeout: Double?, question: String?, answerOnTimeout: String? = nil
    ) async -> (outcome: ProgramOutcome<P.Value>, timedOut: Bool) {
        defer { if runner.endedWithoutAnswer { printError(endedWithoutAnswer(terminalExists: Terminal.controllingTerminalExists())) } }
        guard let timeout else { return (await runner.run(app, lineMode: lineMode), false) }
        let timed = PromptTimeout(app, seconds: timeout, question: question, strings: runner.strings)
        timed.answerOnTimeout = answerOnTimeout
        let outcome = await runner.run(timed, lineMode: lineMode)
        return (outcome, timed.timedOut)
    }

    /// What a prompt says when its standard input, no terminal, ended before any answer (the
    /// exit status alone would read as the answer no); with a terminal to ask on, how to ask
    /// there (a git hook's standard input is git's, or nothing).
    static func endedWithoutAnswer(terminalExists: Bool) -> String {
        "rocket: standard input ended before any answer, so none was given (exit 1)"
            + (terminalExists ? "; to ask on the terminal instead (as from a git hook), add < /dev/tty" : "")
    }

    /// A prompt that timed out with no default answer: says so on stderr; exit 124.
    static func reportTimeout(after seconds: Double) -> ExitStatus {
        printError("rocket: timed out after \(RocketDuration.format(seconds)) with no answer")
        return ExitStatus.timedOut
    }

    @MainActor
    static func runner(
        _ parsed: ParsedArguments, command: String, inputTaken: Bool = false, residue: ProgramRunner.Residue = .lastFrame
    ) throws(UsageError) -> (ProgramRunner, lineMode: Bool) {
        let theme = try themeOption(parsed, command: command)
        let env = Environment.current
        let terminal = Terminal.forUserInterface(inputTaken: inputTaken)
        let lineMode = parsed.has("--plain") || terminal.prefersLineMode(env)
        let strings = UIStrings.forEnvironment(env)
        let runner = ProgramRunner(terminal: lineMode ? terminal.forLineMode() : terminal, clock: SystemClock(), strings: strings)
        runner.adopt(env)
        runner.mouse = parsed.has("--mouse")
        runner.theme = theme
        runner.residue = residue
        return (runner, lineMode)
    }

    // MARK: input

    @MainActor
    static func runInput(_ args: [String]) async throws(UsageError) -> ExitStatus {
        let parsed = try parse(args, as: inputSpec)
        if parsed.helpRequested { printOut(inputSpec.help); return ExitStatus.ok }
        let command = inputSpec.name
        let minLength = try count(parsed, "--min-length", command: command, range: 0...1_000_000)
        let maxLength = try count(parsed, "--max-length", command: command, range: 0...1_000_000)
        if let minLength, let maxLength, minLength > maxLength {
            throw UsageError(message: "--min-length \(minLength) is more than --max-length \(maxLength)", command: command)
        }
        let pattern = parsed.value("--pattern")
        if let pattern, case .failure(let e) = RocketPattern.compile(pattern) {
            throw UsageError(message: "'--pattern': \(e)", command: command)
        }
        let required = parsed.has("--required")
        var validation: RocketInputValidation?
        if required || minLength != nil || maxLength != nil || pattern != nil {
            validation = RocketInputValidation(
                required: required, minLength: minLength, maxLength: maxLength, pattern: pattern, message: parsed.value("--message"))
        }
        // A secret: no core file, nobody attaches (docs/SEMANTICS.md).
        if parsed.has("--secret") { SecretGuard.protectProcess() }
        var input = RocketInputNode(
            text: parsed.value("--title") ?? "", buttonTitle: parsed.value("--button") ?? "OK", isSecret: parsed.has("--secret"),
            placeholder: parsed.value("--placeholder"), validation: validation)
        try typeOptions(parsed, into: &input, command: command)
        let value = parsed.value("--value")
        input.value = value
        if parsed.has("--multiline") {
            input.multiline = true
            if let why = input.multilineProblem { throw UsageError(message: "--multiline: \(why)", command: command) }
        }
        // A multi-line answer is printed with its line breaks.
        let keepNewlines = input.multiline
        var graph = RocketGraph()
        let strings = UIStrings.forEnvironment(Environment.current)
        let id: RocketNodeID
        if parsed.has("--twice") {
            // answer → again → (answer == again: the end) else a line saying so → answer.
            var first = input, again = input
            first.next = RocketNodeID(1)
            again.text = strings.typeAgain
            again.placeholder = nil
            again.value = nil
            again.next = RocketNodeID(2)
            id = graph.add(RocketNode(id: "answer", content: .textInput(first)))
            _ = graph.add(RocketNode(id: "again", content: .textInput(again)))
            let same = RocketConditionBranch(if: RocketExpression("answer == again"), next: nil)
            _ = graph.add(RocketNode(content: .condition(RocketConditionNode(branches: [same], elseNext: RocketNodeID(3)))))
            _ = graph.add(RocketNode(text: strings.answersDiffer, next: id, showNextAfter: 0.01))  // goes on by itself (instant timing)
        } else {
            id = graph.add(RocketNode(id: "answer", content: .textInput(input)))
        }
        graph.root = id
        let (runner, lineMode) = try runner(parsed, command: inputSpec.name, residue: residue(parsed))
        let clock = SystemClock()
        let host = ConversationHost(conversation: promptConversation(graph, clock: clock), clock: clock)
        let app = ConversationApp(
            host: host, strings: strings, depth: runner.depth, pictures: TerminalImage.loader)
        let timeout = try timeout(parsed, command: command)
        // On a timeout --value answers, when the answer's rules accept it (a date's bounds
        // counted from today count from the conversation's today, this machine's).
        let today = host.conversation.localTime(at: clock.now)?.dayText
        let fallback = value.flatMap { try? input.accept($0, today: today).get().displayText }
        let masked = parsed.has("--secret") ? ProgramSummary.secretMask : fallback.map { Sanitizer.clean($0, keepNewlines: false) }
        let (outcome, timedOut) = await run(
            app, on: runner, lineMode: lineMode, timeout: timeout, question: input.text, answerOnTimeout: fallback == nil ? nil : masked)
        if timedOut, let timeout {
            guard let fallback else { return reportTimeout(after: timeout) }
            printOut(Sanitizer.clean(fallback, keepNewlines: keepNewlines))
            return ExitStatus.ok
        }
        if case .done = outcome, let answer = host.conversation.answers["answer"] {
            printOut(Sanitizer.clean(answer.typed?.displayText ?? answer.value, keepNewlines: keepNewlines))
        }
        return outcome.exitStatusForCLI
    }

    /// `--type`, `--min` and `--max` of `rocket input`, checked as `rocket lint` checks a flow's.
    static func typeOptions(_ parsed: ParsedArguments, into input: inout RocketInputNode, command: String) throws(UsageError) {
        if let name = parsed.value("--type") {
            guard let type = RocketInputType(rawValue: name) else {
                let names = RocketInputType.allCases.map(\.rawValue)
                throw UsageError(message: "'--type \(name)' must be one of \(names.joined(separator: ", "))", command: command)
            }
            input.inputType = type
        }
        for flag in ["--min", "--max"] {
            guard let text = parsed.value(flag) else { continue }
            let bound: RocketValue?
            switch input.inputType {
            case .number, .integer: bound = RocketInputType.number.parse(text)
            case .date:
                let day = text.trimmingSpaces()
                bound = RocketInputType.isDayBound(day) ? .text(day) : nil
            case .time: bound = RocketInputType.time.parse(text)
            default: throw UsageError(message: "\(flag) needs --type number, integer, date or time", command: command)
            }
            guard let bound else {
                let want =
                    input.inputType == .date
                    ? "a day as YYYY-MM-DD, or counted from today (today, today+7d, today-18y: d, w, m or y) within the years 1 to 9999"
                    : input.inputType == .time ? "a time as HH:MM" : "a number"
                throw UsageError(message: "'\(flag) \(text)' must be \(want)", command: command)
            }
            // The bound a flow's "min" and "max" may have (lint's rule), so both refuse the same.
            if case .number(let n) = bound, n > RocketInputType.largestBound {
                throw UsageError(message: "'\(flag) \(text)' must be at most \(RocketValue.format(RocketInputType.largestBound))", command: command)
            }
            if flag == "--min" { input.minimum = bound } else { input.maximum = bound }
        }
        if let why = input.emptyRange(min: "--min", max: "--max") { throw UsageError(message: why, command: command) }
    }

    /// A prompt's conversation: no author name, no echo of the typed answer, no delays; its
    /// today (a date's bounds counted from today) is this machine's, on `clock`.
    static func promptConversation(_ graph: RocketGraph, clock: SystemClock) -> Conversation {
        let options = ConversationOptions(
            timing: .instant, echoReplies: false, localShift: PlayCommand.localShift(wall: WallClock().now, clock: clock))
        return Conversation(graph: graph, author: RocketAuthor(image: nil, name: ""), options: options)
    }

    // MARK: confirm

    @MainActor
    static func runConfirm(_ args: [String]) async throws(UsageError) -> ExitStatus {
        let parsed = try parse(args, as: confirmSpec)
        if parsed.helpRequested { printOut(confirmSpec.help); return ExitStatus.ok }
        let strings = UIStrings.forEnvironment(Environment.current)
        let yes = parsed.value("--affirmative") ?? strings.yesTitle
        let no = parsed.value("--negative") ?? strings.noTitle
        for (flag, title) in [("--affirmative", yes), ("--negative", no)] where title.allSatisfy(\.isWhitespace) {
            throw UsageError(message: "'\(flag)' needs a title", command: confirmSpec.name)
        }
        let defaultNo: Bool
        let timeout = try timeout(parsed, command: confirmSpec.name)
        switch parsed.value("--default") {
        case nil, "yes"?: defaultNo = false
        case "no"?: defaultNo = true
        case let other?: throw UsageError(message: "'--default \(other)' must be yes or no", command: confirmSpec.name)
        }
        var graph = RocketGraph()
        // The focused button is the left one: the default goes on the left.
        let left = RocketButtonNode(title: defaultNo ? no : yes), right = RocketButtonNode(title: defaultNo ? yes : no)
        let buttons = graph.add(RocketNode(id: "answer", content: .doubleButton(left: left, right: right)))
        if let question = parsed.positionals.first, !question.isEmpty {
            graph.root = graph.add(RocketNode(id: "question", text: question, next: buttons, showNextAfter: 0.01))  // goes on by itself (instant timing)
        } else {
            graph.root = buttons
        }
        let (runner, lineMode) = try runner(parsed, command: confirmSpec.name, residue: residue(parsed))
        let clock = SystemClock()
        let host = ConversationHost(conversation: promptConversation(graph, clock: clock), clock: clock)
        let app = ConversationApp(host: host, strings: strings, depth: runner.depth, pictures: TerminalImage.loader)
        // y/yes and n/no (and the user's language's words) answer as the buttons do.
        let (yesSide, noSide): (RocketIntent, RocketIntent) = defaultNo ? (.pressRight, .pressLeft) : (.pressLeft, .pressRight)
        for word in strings.yesWords { app.shortcuts[word] = yesSide }
        for word in strings.noWords { app.shortcuts[word] = noSide }
        // On a timeout only a --default given answers: a silent yes is never assumed.
        let explicit = parsed.value("--default") != nil
        let (outcome, timedOut) = await run(
            app, on: runner, lineMode: lineMode, timeout: timeout, question: parsed.positionals.first,
            answerOnTimeout: explicit ? (defaultNo ? no : yes) : nil)
        if timedOut, let timeout {
            guard explicit else { return reportTimeout(after: timeout) }
            return defaultNo ? ExitStatus.notCompleted : ExitStatus.ok
        }
        if case .interrupted = outcome { return outcome.exitStatusForCLI }
        return host.conversation.answers["answer"]?.value == yes && outcome.exitCode == 0 ? ExitStatus.ok : ExitStatus.notCompleted
    }

    // MARK: choose

    @MainActor
    static func runChoose(_ args: [String]) async throws(UsageError) -> ExitStatus {
        let parsed = try parse(args, as: chooseSpec)
        if parsed.helpRequested { printOut(chooseSpec.help); return ExitStatus.ok }
        let command = chooseSpec.name
        var limit = try count(parsed, "--limit", command: command, range: 1...1_000_000) ?? 1
        if parsed.has("--no-limit") {
            if parsed.value("--limit") != nil { throw UsageError(message: "--limit and --no-limit exclude each other", command: command) }
            limit = Int.max
        }
        let fromInput = parsed.positionals.isEmpty
        let lines: [String]
        if fromInput {
            guard let read = try optionsFromStandardInput(command: command) else { return ExitStatus.noInput }
            lines = read
        } else {
            lines = parsed.positionals
        }
        let (options, values) = try labelled(lines, delimiter: parsed.value("--label-delimiter"), command: command)
        let wanted = parsed.values["--selected"] ?? []
        var preselected: [Int] = []
        for name in wanted {
            // A value first (what a script knows), else a label.
            guard let index = values.firstIndex(of: name) ?? options.firstIndex(of: name) else {
                throw UsageError(message: "'--selected \(name)' is not one of the options", command: command)
            }
            if !preselected.contains(index) { preselected.append(index) }
        }
        // One option and --select-if-one: it is the answer, with no question (as gum's flag).
        if parsed.has("--select-if-one"), options.count == 1 {
            printOut(Sanitizer.clean(values[0], keepNewlines: false))
            return ExitStatus.ok
        }
        guard preselected.count <= limit else {
            throw UsageError(message: "\(preselected.count) --selected options, but --limit is \(limit)", command: command)
        }
        let ordered = parsed.has("--ordered")
        if ordered && limit == 1 { throw UsageError(message: "--ordered goes with --limit N (above 1) or --no-limit", command: command) }
        let (runner, lineMode) = try runner(parsed, command: chooseSpec.name, inputTaken: fromInput, residue: residue(parsed))
        let app = ChooseApp(title: parsed.value("--title"), options: options, values: values, limit: limit, strings: runner.strings)
        app.ordered = ordered
        if let height = try count(parsed, "--height", command: command, range: 1...1000) { app.visibleRows = height }
        let timeout = try timeout(parsed, command: command)
        app.preselect(preselected)
        let defaults = ordered ? preselected : preselected.sorted()
        let (outcome, timedOut) = await run(
            app, on: runner, lineMode: lineMode, timeout: timeout, question: parsed.value("--title"),
            answerOnTimeout: defaults.isEmpty
                ? nil : Sanitizer.clean(defaults.map { options[$0] }.joined(separator: ", "), keepNewlines: false))
        if timedOut, let timeout {
            guard !defaults.isEmpty else { return reportTimeout(after: timeout) }
            for index in defaults { printOut(Sanitizer.clean(values[index], keepNewlines: false)) }
            return ExitStatus.ok
        }
        if case .done(let chosen) = outcome {
            for item in chosen { printOut(Sanitizer.clean(item, keepNewlines: false)) }
        }
        return outcome.exitStatusForCLI
    }

    /// The labels shown and the values printed of `rocket choose`'s options: with a delimiter
    /// (`--label-delimiter`), each option split at its first one, as `Production:prod`; an
    /// option without it, or with nothing before it, shows its value. Without one, both are the
    /// options.
    static func labelled(_ lines: [String], delimiter: String?, command: String) throws(UsageError) -> (labels: [String], values: [String]) {
        guard let delimiter else { return (lines, lines) }
        guard !delimiter.isEmpty, delimiter.utf8.count <= 64, !delimiter.containsText("\n") else {
            throw UsageError(message: "'--label-delimiter' must be 1 to 64 bytes of one line", command: command)
        }
        var labels: [String] = [], values: [String] = []
        labels.reserveCapacity(lines.count)
        values.reserveCapacity(lines.count)
        let needle = Array(delimiter.utf8)
        for line in lines {
            // Searched as bytes in linear time (an option may be 64 KiB, the delimiter 64 bytes).
            let bytes = Array(line.utf8)
            if let offset = bytes.firstOffset(of: needle) {
                let label = String(decoding: bytes[..<offset], as: UTF8.self)
                let value = String(decoding: bytes[(offset + needle.count)...], as: UTF8.self)
                labels.append(label.allSatisfy(\.isWhitespace) ? value : label)
                values.append(value)
            } else {
                labels.append(line)
                values.append(line)
            }
        }
        return (labels, values)
    }

    /// The options of `rocket choose` without arguments: the lines of standard input, without
    /// blank ones, at most ``RocketLimits/chooseOptions`` of them, each at most a line's bytes;
    /// nil when standard input cannot be read (said on stderr).
    @MainActor
    static func optionsFromStandardInput(command: String) throws(UsageError) -> [String]? {
        guard isatty(0) != 1 else {
            throw UsageError(message: "give at least one OPTION, or pipe the options in, one per line", command: command)
        }
        var options: [String] = []
        var tooMany = false, tooLarge = false
        var bytesRead = 0
        let read = FileIO.forEachLine("-", maxLineBytes: RocketLimits.lineBytes) { bytes, _ in
            bytesRead += bytes.count + 1
            guard bytesRead <= RocketLimits.chooseInputBytes else {
                tooLarge = true
                return false
            }
            var line = String(decoding: bytes, as: UTF8.self)
            if line.hasSuffix("\r") { line.removeLast() }
            guard !line.allSatisfy(\.isWhitespace) else { return true }
            guard options.count < RocketLimits.chooseOptions else {
                tooMany = true
                return false
            }
            options.append(line)
            return true
        }
        if case .failure(let f) = read {
            printError("rocket: error: cannot read standard input: \(f.reason)")
            return nil
        }
        if tooLarge {
            throw UsageError(
                message: "at most \(RocketLimits.chooseInputBytes >> 20) MiB of options on standard input (it holds more)", command: command)
        }
        if tooMany { throw UsageError(message: "at most \(RocketLimits.chooseOptions) OPTIONs (standard input has more lines)", command: command) }
        guard !options.isEmpty else { throw UsageError(message: "standard input holds no options (one per line)", command: command) }
        return options
    }

    // MARK: spin

    @MainActor
    static func runSpin(_ args: [String]) async throws(UsageError) -> ExitStatus {
        let parsed = try parse(args, as: spinSpec)
        if parsed.helpRequested { printOut(spinSpec.help); return ExitStatus.ok }
        let command = spinSpec.name
        let showAfter = try duration(parsed, "--show-after", command: command)
        let minDisplay = try duration(parsed, "--min-display", command: command)
        let argv = parsed.positionals
        // Standard input stays the command's: the spinner draws on the terminal itself.
        let (runner, lineMode) = try runner(parsed, command: spinSpec.name, inputTaken: true)
        let child: ChildProcess
        do {
            child = try ChildProcess(argv, capture: !lineMode)
        } catch {
            printError("rocket: error: cannot run '\(Sanitizer.clean(argv[0], keepNewlines: false))': \(FileIO.Failure(error.code).reason)")
            return ExitStatus.commandNotRun
        }
        let app = SpinApp(
            title: parsed.value("--title") ?? argv.joined(separator: " "), showAfter: showAfter, minDisplay: minDisplay,
            status: { child.poll() })
        let outcome = await runner.run(app, lineMode: lineMode)
        // Interrupted: the command had SIGTERM; it gets two seconds to end, then SIGKILL.
        let status: Int32
        if case .interrupted = outcome { status = child.terminate(grace: 2) } else { status = child.wait() }
        if let code = child.replayOutput() {
            printError("rocket: error: cannot write to standard output: \(FileIO.Failure(code).reason)")
            return ExitStatus.ioError
        }
        if case .interrupted = outcome { return outcome.exitStatusForCLI }
        return ExitStatus.child(status)
    }
}

/// `--theme NAME` (or `ROCKET_THEME`): nil for `auto` (ask the terminal), else the named theme.
func themeOption(_ parsed: ParsedArguments, command: String) throws(UsageError) -> TerminalTheme? {
    let fromFlag = parsed.value("--theme")
    guard let name = fromFlag ?? Environment.current["ROCKET_THEME"], name != "auto", !name.isEmpty else { return nil }
    if let theme = TerminalTheme.named(name), name != "safe" || fromFlag == nil { return theme }
    if fromFlag == nil {
        // An unknown ROCKET_THEME is ignored (the environment is not a command line to refuse),
        // and said, since nothing else would say why the colours are not the ones asked for.
        printError(
            "rocket: warning: ROCKET_THEME=\(Sanitizer.clean(String(name.prefix(40)), keepNewlines: false)) is not auto, dark, light or none; it is ignored")
        return nil
    }
    throw UsageError(message: "'--theme \(name)' must be auto, dark, light or none", command: command)
}
