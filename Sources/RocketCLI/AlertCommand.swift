import RocketCore
import RocketJSON
import RocketReactor
import RocketTerminalApps
import RocketTerminal
import RocketTerminalCore
import RocketFlow
#if canImport(Glibc)
    import Glibc
#endif
import RocketPlatform
import RocketText

/// An action given on the command line.
struct CLIAlertAction: AlertActionType {
    var title: String
    var style: AlertActionStyle
    var isEnabled: Bool
}

enum AlertCommand {
    static let spec = CommandSpec(
        name: "alert", abstract: "Show an alert or an action sheet (AlertReactor) and print the chosen action.",
        positionals: [], positionalCount: 0...0,
        options: [
            .value("--title", "T", "The title."),
            .value("--message", "M", "The message."),
            .value("--action", "SPEC", "An action: TITLE[:default|cancel|destructive][:disabled], in order (a title may contain ':').", repeatable: true),
            .flag("--sheet", "An action sheet (a list at the bottom) instead of a centred alert."),
            .flag("--plain", "Line mode: print the actions numbered and read a line (also ROCKET_PLAIN=1)."),
            OptionGroups.theme,
            .flag("--json", "Print the choice as a JSON object."),
            PromptCommands.timeoutOption("exit 124 (no action is chosen for the user)"),
            PromptCommands.clearOption,
        ],
        discussion: """
            Prints the chosen action's title on the last line of stdout. Esc chooses the cancel
            action when there is one.
            """,
        exitStatus: """
            0 an action other than cancel was chosen; 1 the cancel action was chosen (Esc chooses it),
            or Esc with no cancel action, or end of input;
            64 usage error (two cancel actions, no enabled action, an unknown style); 124 timed out; 130 Ctrl-C.
            """,
        examples: [
            "rocket alert --title 'Delete item?' --action Delete:destructive --action Cancel:cancel",
            "rocket alert --sheet --title Share --action Mail --action Messages --action Cancel:cancel --json",
        ])

    /// Parses `TITLE[:style][:disabled]`: only known words after the last colons count as the
    /// style and `disabled`, so a title may contain colons ("Time: 5:00", "Re: lunch").
    static func action(_ spec: String) throws(UsageError) -> CLIAlertAction {
        var parts = spec.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        var style: AlertActionStyle?
        var disabled = false
        while parts.count > 1, let last = parts.last {
            if last == "disabled" && !disabled {
                disabled = true
            } else if let s = AlertActionStyle(rawValue: last), style == nil {
                style = s
            } else if last == "disabled" || AlertActionStyle(rawValue: last) != nil {
                throw UsageError(message: "'--action \(spec)' repeats '\(last)'", command: self.spec.name)
            } else {
                break
            }
            parts.removeLast()
        }
        let title = parts.joined(separator: ":")
        guard !title.allSatisfy(\.isWhitespace) else { throw UsageError(message: "'--action \(spec)' has no title", command: self.spec.name) }
        return CLIAlertAction(title: title, style: style ?? .default, isEnabled: !disabled)
    }

    /// A warning for an action `spec` whose last `:` part is one edit or two from a style or
    /// `disabled` (`Delete:destrutive`): it was taken as part of the title, which a typo of a
    /// style most likely was not meant to be; nil otherwise.
    static func styleTypo(_ spec: String) -> String? {
        guard let colon = spec.lastIndex(of: ":") else { return nil }
        let last = String(spec[spec.index(after: colon)...])
        let words = AlertActionStyle.allCases.map(\.rawValue) + ["disabled"]
        guard !words.contains(last), last.allSatisfy(\.isLetter), let near = Suggestions.closest(to: last, in: words) else { return nil }
        let meant = spec[..<colon] + ":" + near
        return "rocket alert: warning: '--action \(spec)': '\(last)' is no style, so it is part of the title; did you mean '\(meant)'?"
    }

    @MainActor
    static func run(_ args: [String]) async throws(UsageError) -> ExitStatus {
        let parsed = try parse(args, as: spec)
        if parsed.helpRequested { printOut(spec.help); return ExitStatus.ok }
        let options = try AlertOptions(parsed, command: spec.name)
        for warning in parsed.all("--action").compactMap(styleTypo) { printError(warning) }
        let timeout = try PromptCommands.timeout(parsed, command: spec.name)
        let actions = options.actions
        let controller = AlertController(
            reactor: AlertReactor<CLIAlertAction>(title: options.title, message: options.message, actions: actions),
            style: options.sheet ? .actionSheet : .alert)
        let (outcome, timedOut) = await present(
            controller, plain: options.plain, theme: options.theme, residue: PromptCommands.residue(parsed), timeout: timeout)
        if timedOut, let timeout { return PromptCommands.reportTimeout(after: timeout) }
        if let choice = outcome.value {
            let (index, title) = (choice.index, choice.title)
            if options.json {
                printOut(
                    JSONValue.object([
                        ("index", .number(Double(index))), ("title", .string(title)),
                        ("style", .string(actions[index].style.rawValue)),
                    ]).serialized(pretty: false))
            } else {
                printOut(Sanitizer.clean(title, keepNewlines: false))
            }
        }
        // Choosing the cancel action (Esc included) prints it and exits 1, so `&&` is safe.
        return outcome.exitStatusForCLI
    }

    /// Shows a controller in the terminal (or in plain mode) until it ends, or until `timeout`
    /// passes with no key (then `timedOut`).
    @MainActor
    static func present<A: AlertActionType>(
        _ controller: AlertController<A>, plain: Bool, theme: TerminalTheme?,
        typedAhead: (bytes: [UInt8], ended: Bool) = ([], false), residue: ProgramRunner.Residue = .lastFrame, timeout: Double? = nil
    ) async -> (outcome: ProgramOutcome<AlertChoice>, timedOut: Bool) {
        let env = Environment.current
        let terminal = Terminal.forUserInterface()
        let lineMode = plain || terminal.prefersLineMode(env)
        let strings = UIStrings.forEnvironment(env)
        let runner = ProgramRunner(terminal: lineMode ? terminal.forLineMode() : terminal, clock: SystemClock(), strings: strings)
        runner.adopt(env)
        runner.mouse = true  // an alert is short-lived: clicks on its actions work without --mouse
        runner.typedAhead = typedAhead
        runner.theme = theme
        runner.residue = residue
        let app = AlertApp(controller: controller, strings: strings)
        return await PromptCommands.run(
            app, on: runner, lineMode: lineMode, timeout: timeout, question: controller.title.flatMap { $0.isEmpty ? nil : $0 } ?? controller.message)
    }
}

/// The demo's closing alert: its choices load lazily, as AlertReactor's example does.
final class DemoAlertReactor: AlertReactor<CLIAlertAction> {
    let delay: Double

    init(delay: Double) {
        self.delay = delay
        super.init(title: "How was the tour?", message: "This alert is AlertReactor's: its choices load lazily and it updates live.")
    }

    override func mutate(action: Action) -> Mutations<Mutation> {
        guard case .prepare = action else { return .empty }
        let delay = self.delay
        let loading = [CLIAlertAction(title: "Loading…", style: .default, isEnabled: false), CLIAlertAction(title: "Not now", style: .cancel, isEnabled: true)]
        return .concat(
            .just(.setActions(loading)),
            .run { send in
                try await Task.sleep(for: .seconds(delay))
                send(
                    .setActions([
                        CLIAlertAction(title: "Loved it", style: .default, isEnabled: true),
                        CLIAlertAction(title: "It was fine", style: .default, isEnabled: true),
                        CLIAlertAction(title: "Not now", style: .cancel, isEnabled: true),
                    ]))
            })
    }
}
