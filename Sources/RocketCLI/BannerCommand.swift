import RocketJSON
import RocketBanners
import RocketCore
import RocketFlow
import RocketTerminalApps
import RocketTerminal
import RocketTerminalCore
import RocketScenarios
import RocketPlatform
import RocketText

enum BannerCommand {
    static let spec = CommandSpec(
        name: "banner", abstract: "Show an in-app notification banner (MPGNotification) and print what ended it.",
        positionals: [("TITLE", "The banner's title.")], positionalCount: 1...1,
        options: [
            .value("--subtitle", "S", "A subtitle (two lines at most)."),
            .value("--icon", "I", "An emoji, or a PNG/JPEG file.").completing(.file),
            .value("--color", "C", "Background: a name (\(RocketColor.names.keys.sorted().joined(separator: ", "))) or #RRGGBB.")
                .completing(.words(RocketColor.names.keys.sorted())),
            .value("--title-color", "C", "Title colour (default white).").completing(.words(RocketColor.names.keys.sorted())),
            .value("--subtitle-color", "C", "Subtitle colour (default white).").completing(.words(RocketColor.names.keys.sorted())),
            .value("--button", "T", "A button (at most two).", repeatable: true),
            .flag("--close-button", "A close (X) button instead of titled buttons."),
            .value("--duration", "D", "Dismiss by itself after this long: seconds, or 500ms, 5s, 2m (0: stay; the default)."),
            .value("--animation", "A", "linear (default), drop or snap.").completing(.words(BannerAnimation.allCases.map(\.rawValue))),
            .flag("--no-background-tap", "Taps on the banner itself do nothing."),
            .flag("--no-swipe", "It cannot be swiped away."),
            .flag("--full-width", "Content spans the whole width."),
        ]
            + ([
                .flag("--plain", "Line mode: print the banner as text and read one line (also ROCKET_PLAIN=1)."),
                OptionGroups.theme,
                .flag("--json", "Print the result as a JSON object."),
            ] as [OptionSpec]).map { $0.inGroup("FRONT END") }
            + ([
                .value(
                    "--scenario", "NAME", "Show only if this scenario may execute now (the rule flags below apply); the showing counts."),
                .flag("--explain", "Say why it is shown or not, on stderr (with --scenario, like --store and --now)."),
                ScenarioCommand.storeOption,
                ScenarioCommand.nowOption,
            ] as [OptionSpec]).map { $0.inGroup("SCENARIO") }
            + ScenarioCommand.ruleOptions.map { $0.inGroup("SCENARIO RULES (with --scenario)") },
        discussion: """
            Prints one line saying what ended it: button:TITLE, background, close, swipe or timeout.
            In a terminal: ←/→ choose a button, Enter presses it (with no buttons, Enter taps the
            banner), Esc or ↑ swipes it away. ROCKET_REDUCED_MOTION=1 skips the animations.
            """,
        exitStatus: """
            0 a button or the banner was tapped; 1 otherwise; 3 not now (--scenario said no; nothing
            shown); 64 usage error; 65 the icon is not a picture; 66 the icon file is missing;
            74 scenario store error; 130 Ctrl-C.
            """,
        examples: [
            "rocket banner 'New message' --subtitle 'From Ada' --button Reply --button Ignore --icon ✉ --duration 5s",
            "rocket banner 'Rate us?' --scenario rate --events-of app-launch --min-events 5 --button Sure",
        ])

    /// The banner the flags describe, read by the same codec as a flow file's `"banner"`.
    static func banner(from parsed: ParsedArguments) throws(UsageError) -> Banner {
        var values: [BannerCodec.Field: BannerCodec.Input] = [.title: .text(parsed.positionals[0])]
        for field in [BannerCodec.Field.subtitle, .icon, .color, .titleColor, .subtitleColor, .animation, .duration] {
            if let v = parsed.value(field.flag) { values[field] = .text(v) }
        }
        let titles = parsed.all("--button")
        if parsed.has("--close-button") {
            if !titles.isEmpty { throw UsageError(message: "--button and --close-button cannot be combined", command: spec.name) }
            values[.buttons] = .text("close")
        } else if !titles.isEmpty {
            values[.buttons] = .list(titles)
        }
        values[.backgroundTaps] = .bool(!parsed.has("--no-background-tap"))
        values[.swipe] = .bool(!parsed.has("--no-swipe"))
        values[.fullWidth] = .bool(parsed.has("--full-width"))
        let (banner, problems) = BannerCodec.banner(values)
        if let p = problems.first {
            let given: String
            switch values[p.field] {
            case .text(let t)?: given = " " + t
            default: given = ""
            }
            throw UsageError(message: "'\(p.field.flag)\(given)' \(p.message)", command: spec.name)
        }
        return banner
    }

    @MainActor
    static func run(_ args: [String]) async throws(UsageError) -> ExitStatus {
        let parsed = try parse(args, as: spec)
        if parsed.helpRequested { printOut(spec.help); return ExitStatus.ok }
        let options = try BannerOptions(parsed, command: spec.name)
        let banner = options.banner
        if case .image(let image)? = banner.icon, case .file(let file) = image, let problem = AssetCheck.problem(with: file, base: "") {
            printError("rocket: error: --icon: \(problem)")
            return FileIO.exists(file) ? ExitStatus.dataError : ExitStatus.noInput
        }
        if let (name, rules) = options.scenario {
            let status = options.gate.decide(name, rules: rules)
            if status != ExitStatus.ok { return status }
        }
        let env = Environment.current
        let terminal = Terminal.forUserInterface()
        let plain = options.plain || terminal.prefersLineMode(env)
        let reduced = EnvironmentFlag.value("ROCKET_REDUCED_MOTION", in: env) == true
        let center = BannerCenter(clock: SystemClock(), queue: BannerQueue(reducedMotion: reduced || plain))
        let strings = UIStrings.forEnvironment(env)
        let runner = ProgramRunner(terminal: plain ? terminal.forLineMode() : terminal, clock: center.clock, strings: strings)
        runner.adopt(env)
        let depth = runner.depth
        var view = BannerView(width: 40, strings: strings)
        view.reducedMotion = reduced
        view.hint = banner.buttons.items.isEmpty ? strings.bannerHintNoButtons : strings.bannerHint
        if case .image(let img)? = banner.icon, depth > .none, let picture = try? img.decoded().get() { view.images[img.cacheKey] = picture }
        let app = BannerApp(banner: banner, center: center, view: view, strings: strings)
        runner.theme = options.theme
        runner.mouse = true  // a banner is short-lived: clicks on its buttons work without --mouse
        let outcome = await runner.run(app, lineMode: plain)
        if options.json {
            var o: [(String, JSONValue)] = []
            switch outcome.value?.dismissal {
            case .button(let tag)?:
                o = [("result", .string(tag == .close ? "close" : "button")), ("tag", .number(Double(tag.rawValue)))]
                if tag != .close { o.append(("title", .string(outcome.value?.buttonTitle ?? ""))) }
            case .background?: o = [("result", .string("background")), ("tag", .number(0))]
            default: o = [("result", .string(outcome.line))]
            }
            printOut(JSONValue.object(o).serialized(pretty: false))
        } else {
            printOut(outcome.line)
        }
        return outcome.exitStatusForCLI
    }
}
