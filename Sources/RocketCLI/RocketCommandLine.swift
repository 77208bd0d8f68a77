#if canImport(Glibc)
    import Glibc
#endif
import RocketCore
import RocketTerminal
import RocketTerminalCore
import RocketPlatform

/// `rocket`: the RocketAlert command-line tool.
enum Rocket {
    static let version = "0.1.0"

    static let commands: [(name: String, abstract: String)] = [
        ("demo", PlayCommand.demoSpec.abstract),
        ("play", PlayCommand.spec.abstract),
        ("lint", LintCommand.spec.abstract),
        ("fmt", FmtCommand.spec.abstract),
        ("test", TestCommand.spec.abstract),
        ("graph", GraphCommand.spec.abstract),
        ("schema", SchemaCommand.spec.abstract),
        ("new", NewCommand.spec.abstract),
        ("banner", BannerCommand.spec.abstract),
        ("alert", AlertCommand.spec.abstract),
        ("input", PromptCommands.inputSpec.abstract),
        ("confirm", PromptCommands.confirmSpec.abstract),
        ("choose", PromptCommands.chooseSpec.abstract),
        ("spin", PromptCommands.spinSpec.abstract),
        ("serve", ServeCommand.spec.abstract),
        ("report", ReportCommand.spec.abstract),
        ("results", ResultsCommand.spec.abstract),
        ("backup", BackupCommand.spec.abstract),
        ("restore", RestoreCommand.spec.abstract),
        ("webhook-test", WebhookTestCommand.spec.abstract),
        ("scenario", "Decide when something may be shown: trigger, try, status, reset, export, import."),
        ("completions", CompletionsCommand.spec.abstract),
        ("man", ManCommand.spec.abstract),
        ("help", "Show help for a command: rocket help COMMAND [SUBCOMMAND]."),
    ]

    /// Every command's interface, subcommands included: what help, completions and the man page
    /// are made from.
    static var specs: [CommandSpec] {
        [
            PlayCommand.demoSpec, PlayCommand.spec, LintCommand.spec, FmtCommand.spec, TestCommand.spec, GraphCommand.spec, SchemaCommand.spec, NewCommand.spec,
            BannerCommand.spec,
            AlertCommand.spec, PromptCommands.inputSpec, PromptCommands.confirmSpec, PromptCommands.chooseSpec, PromptCommands.spinSpec,
            ServeCommand.spec, ReportCommand.spec, ResultsCommand.spec, BackupCommand.spec, RestoreCommand.spec, WebhookTestCommand.spec,
        ] + ScenarioCommand.subcommands.map(\.spec) + [CompletionsCommand.spec, ManCommand.spec]
    }

    static var help: String {
        var out = """
            OVERVIEW: RocketAlert — engage a user at the right moment without annoying them.

            USAGE: rocket <command> [options]

            COMMANDS:

            """
        for c in commands { out += "  " + pad(c.name, 13) + c.abstract + "\n" }
        out += """

            OPTIONS:
              -v, --version  Show the version.
              -h, --help     Show help information.

              See 'rocket help <command>' for detailed help.
            """
        return out
    }

    @MainActor
    static func run(_ args: [String]) async -> ExitStatus {
        guard let first = args.first else {
            printError(help)
            return ExitStatus.usage
        }
        let rest = Array(args.dropFirst())
        do throws(UsageError) {
            switch first {
            case "-h", "--help": printOut(help); return ExitStatus.ok
            case "-v", "--version": printOut("rocket \(version)"); return ExitStatus.ok
            case "help":
                guard !rest.isEmpty else { printOut(help); return ExitStatus.ok }
                guard rest.count <= 2 else { throw UsageError(message: "help takes a command and at most one subcommand", command: "help") }
                return await run(Array(rest) + ["--help"])
            case "demo": return try await PlayCommand.runDemo(rest)
            case "play": return try await PlayCommand.run(rest)
            case "lint": return try LintCommand.run(rest)
            case "fmt": return try FmtCommand.run(rest)
            case "test": return try TestCommand.run(rest)
            case "graph": return try GraphCommand.run(rest)
            case "report": return try ReportCommand.run(rest)
            case "results": return try ResultsCommand.run(rest)
            case "backup": return try BackupCommand.run(rest)
            case "restore": return try RestoreCommand.run(rest)
            case "webhook-test": return try WebhookTestCommand.run(rest)
            case "schema": return try SchemaCommand.run(rest)
            case "new": return try NewCommand.run(rest)
            case "scenario": return try ScenarioCommand.run(rest)
            case "banner": return try await BannerCommand.run(rest)
            case "alert": return try await AlertCommand.run(rest)
            case "input": return try await PromptCommands.runInput(rest)
            case "confirm": return try await PromptCommands.runConfirm(rest)
            case "choose": return try await PromptCommands.runChoose(rest)
            case "spin": return try await PromptCommands.runSpin(rest)
            case "serve": return try ServeCommand.run(rest)
            case "completions": return try CompletionsCommand.run(rest)
            case "man": return try ManCommand.run(rest)
            default:
                let close = Suggestions.closest(to: first, in: commands.map(\.name))
                throw UsageError(message: "unknown command '\(first)'" + (close.map { "; did you mean '\($0)'?" } ?? ""), command: nil)
            }
        } catch {
            printError(error.text)
            return ExitStatus.usage
        }
    }
}

/// The `rocket` command as a library: `main` parses the arguments against the command tables,
/// runs the command and returns its exit status; the executable is one line around it.
public enum RocketCommandLine {
    /// Runs `rocket` with `arguments` (without the program name) and returns the exit status.
    @MainActor
    public static func main(_ arguments: [String]) async -> ExitStatus {
        // A parent that had signals blocked passes its mask on through fork and exec (a test
        // runner, a supervisor written with threads): Ctrl-C, SIGTERM and SIGHUP then do nothing,
        // and `rocket results --follow` could not be stopped. Start with none blocked; commands
        // that take signals themselves (serve, backup) block them again. Signals a parent set to
        // be ignored (nohup's SIGHUP, a background job's SIGINT) stay ignored, as they should.
        var none = sigset_t()
        sigemptyset(&none)
        pthread_sigmask(SIG_SETMASK, &none, nil)
        // A closed standard descriptor would be taken by the next file opened (the signal pipe, a
        // store): give each one /dev/null instead, so a closed stdin reads as end of input.
        for fd: Int32 in 0...2 where fcntl(fd, F_GETFD) < 0 {
            let null = open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY)
            if null >= 0, null != fd {
                dup2(null, fd)
                close(null)
            }
        }
        // An on/off variable set to something else is ignored, and said (once, whatever the command).
        for (name, value) in EnvironmentFlag.unreadable(in: Environment.current) {
            printError(
                "rocket: warning: \(name)=\(Sanitizer.clean(String(value.prefix(40)), keepNewlines: false)) is neither on (1, true, yes) nor off (0, false, no); it is ignored"
            )
        }
        var status = await Rocket.run(arguments)
        if let failure = FileIO.standardOutputFailure {
            // Every write is checked: output that could not be written is an error, never silent loss.
            printError("rocket: error: cannot write to standard output: \(failure.reason)")
            // The lost output was the result (lint's diagnostics, a choice), so 74 wins over the
            // command's own status; only a signal keeps its 128 + N.
            if case .signal = status {} else { status = .ioError }
        }
        return status
    }
}
