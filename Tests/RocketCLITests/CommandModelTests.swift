import RocketBanners
import RocketJSON
import RocketPlatform
import RocketReactor
import RocketScenarios
import RocketServer
import Testing

@testable import RocketCLI

/// The command model, tested in-process: the same tables make parsing, help, completions and the
/// man page.
@Suite("The command model, in-process")
struct CommandModelTests {
    @Test("Parsing refuses what the tables do not allow, with exit status 64 meaning")
    func parsing() throws {
        let spec = PlayCommand.spec
        let parsed = try parse(["f.json", "--plain", "--var", "a=1", "--var", "b=2", "--events=e.jsonl"], as: spec)
        #expect(parsed.has("--plain") && parsed.all("--var") == ["a=1", "b=2"] && parsed.value("--events") == "e.jsonl")
        #expect(throws: UsageError.self) { try parse(["f.json", "--plain", "--plain"], as: spec) }
        #expect(throws: UsageError.self) { try parse(["f.json", "--events", "a", "--events", "b"], as: spec) }
        #expect(throws: UsageError.self) { try parse(["f.json", "--plain=yes"], as: spec) }
        #expect(throws: UsageError.self) { try parse([], as: spec) }
        #expect(throws: UsageError.self) { try parse(["a.json", "b.json"], as: spec) }
        #expect(throws: UsageError.self) { try parse(["f.json", "--bogus"], as: spec) }
        #expect(try parse(["--", "--not-an-option.json"], as: spec).positionals == ["--not-an-option.json"])
    }

    @Test("An argument too many where a command's main input is an option's value suggests that option, shell-quoted")
    func strayValues() throws {
        func message(_ args: [String], _ spec: CommandSpec) -> String {
            do {
                _ = try parse(args, as: spec)
                return "parsed"
            } catch { return error.message }
        }
        #expect(message(["a.sqlite", "b.sqlite"], BackupCommand.spec) == "unexpected argument 'b.sqlite'; did you mean --store a.sqlite b.sqlite?")
        // restore COPY STORE, as cp reads FROM TO: the store is the last.
        #expect(message(["my copy.sqlite", "s.sqlite"], RestoreCommand.spec).hasSuffix("did you mean 'my copy.sqlite' --store s.sqlite?"))
        let status = try #require(ScenarioCommand.subcommands.first { $0.name == "status" }?.spec)
        #expect(message(["ask", "s.sqlite"], status).hasSuffix("did you mean ask --store s.sqlite?"))
        #expect(message(["it's"], ResultsCommand.spec) == #"unexpected argument 'it's'; did you mean --store 'it'\''s'?"#)
        #expect(message(["https://shop.example/h"], WebhookTestCommand.spec).hasSuffix("did you mean --webhook https://shop.example/h?"))
        #expect(message(["flows"], ServeCommand.spec).hasSuffix("did you mean --flows flows?"))
        // Not when the option is given already, nor for two too many, nor for a command without one.
        #expect(message(["--store", "s", "a", "b"], BackupCommand.spec) == "unexpected argument 'b'")
        #expect(message(["a", "b"], ServeCommand.spec) == "unexpected argument 'a'")
        #expect(message(["a.json", "b.json"], PlayCommand.spec) == "unexpected argument 'b.json'")
        #expect(shellWord("plain/path-1.json") == "plain/path-1.json" && shellWord("") == "''" && shellWord("a b") == "'a b'")
    }

    @Test("Every command's help, completion words and man page come from its table")
    func tables() {
        let man = ManCommand.page()
        let bash = CompletionsCommand.bash(), zsh = CompletionsCommand.zsh(), fish = CompletionsCommand.fish()
        for spec in Rocket.specs {
            let help = spec.help
            #expect(help.contains("USAGE: rocket \(spec.name)"), "\(spec.name)")
            #expect(spec.examples.count >= 2, "\(spec.name)")
            #expect(!spec.exitStatus.isEmpty, "\(spec.name)")
            for option in spec.options {
                #expect(help.contains(option.name), "\(spec.name) help lacks \(option.name)")
                #expect(bash.contains(option.name) && zsh.contains(option.name), "\(spec.name): \(option.name)")
                #expect(fish.contains("-l " + option.name.dropFirst(2)), "\(spec.name): \(option.name)")
                #expect(man.contains(option.name.replacing("-", with: "\\-")), "\(spec.name): \(option.name)")
            }
        }
    }

    @Test("Exit statuses are one enum with the documented numbers")
    func exitStatuses() {
        let table: [(RocketCLI.ExitStatus, Int32)] = [
            (.ok, 0), (.notCompleted, 1), (.notNow, 3), (.usage, 64), (.dataError, 65), (.noInput, 66), (.unavailable, 69),
            (.cannotCreate, 73), (.ioError, 74), (.signal(2), 130), (.signal(15), 143),
        ]
        for (status, code) in table {
            #expect(status.code == code)
            #expect(RocketCLI.ExitStatus(code: code) == status)
        }
    }

    @Test("Scenario rule flags resolve through the shared codec once, with the flag in the message")
    func ruleFlags() throws {
        let spec = ScenarioCommand.subcommands.first { $0.name == "try" }!.spec
        let ok = try parse(["x", "--min-events", "5", "--min-since-first-event", "14d", "--events-of", "launch"], as: spec)
        let rules = try GateOptions.rules(ok, command: spec.name)
        #expect(rules.minEventsRequired == 5 && rules.minSecondsSinceFirstEvent == 14 * 86_400 && rules.eventsOf == "launch")
        let bad = try parse(["x", "--window", "7d"], as: spec)
        #expect(throws: UsageError.self) { try GateOptions.rules(bad, command: spec.name) }
    }

    @Test("Each command resolves its options once into typed values, refusing what does not go together")
    func resolvedOptions() throws {
        let play = try PlayOptions(
            parse(["f.json", "--plain", "--var", "a=1", "--state", "s.json", "--restart", "--now", "@60", "--explain"], as: PlayCommand.spec),
            command: "play")
        #expect(play.plain && play.vars == ["a": "1"] && play.state == "s.json" && play.restart)
        #expect(play.gate.now == 60 && play.gate.explain && play.gate.store == nil)
        #expect(throws: UsageError.self) { try PlayOptions(parse(["f.json", "--restart"], as: PlayCommand.spec), command: "play") }
        #expect(throws: UsageError.self) { try PlayOptions(parse(["f.json", "--now", "soon"], as: PlayCommand.spec), command: "play") }

        let banner = try BannerOptions(
            parse(["Hi", "--scenario", "rate", "--min-events", "5", "--json", "--duration", "2s"], as: BannerCommand.spec), command: "banner")
        #expect(banner.json && !banner.plain && banner.scenario?.name == "rate" && banner.scenario?.rules.minEventsRequired == 5)
        #expect(banner.banner.duration == 2)
        for lonely in [["Hi", "--explain"], ["Hi", "--min-events", "3"], ["Hi", "--now", "@0"], ["Hi", "--scenario", ""]] {
            #expect(throws: UsageError.self, "\(lonely)") { try BannerOptions(parse(lonely, as: BannerCommand.spec), command: "banner") }
        }

        let alert = try AlertOptions(parse(["--action", "OK", "--action", "No:cancel", "--sheet"], as: AlertCommand.spec), command: "alert")
        #expect(alert.sheet && alert.actions.map(\.title) == ["OK", "No"] && alert.actions[1].style == .cancel)
        #expect(throws: UsageError.self) { try AlertOptions(parse(["--title", "T"], as: AlertCommand.spec), command: "alert") }

        let graph = try GraphOptions(parse(["f.json", "--format", "dot"], as: GraphCommand.spec), command: "graph")
        #expect(graph.format == .dot && graph.file == "f.json")
        #expect(throws: UsageError.self) { try GraphOptions(parse(["f.json", "--format", "png"], as: GraphCommand.spec), command: "graph") }

        let reset = ScenarioCommand.subcommands.first { $0.name == "reset" }!.spec
        #expect(try ScenarioOptions(parse(["--all"], as: reset), subcommand: "reset", command: "reset").all)
        #expect(throws: UsageError.self) { try ScenarioOptions(parse(["x", "--all"], as: reset), subcommand: "reset", command: "reset") }
        #expect(throws: UsageError.self) { try ScenarioOptions(parse([], as: reset), subcommand: "reset", command: "reset") }
    }

    @Test("--allow-origin and --public-url become origins as browsers send them, or are refused")
    func origins() throws {
        let canonical: [(String, String)] = [
            ("https://shop.example", "https://shop.example"),
            ("https://shop.example/", "https://shop.example"),
            ("HTTPS://Shop.Example:443", "https://shop.example"),
            ("http://shop.example:80", "http://shop.example"),
            ("http://shop.example:8080", "http://shop.example:8080"),
            ("https://shop.example:80", "https://shop.example:80"),
            ("http://[0:0:0:0:0:0:0:1]:9000", "http://[::1]:9000"),
            ("http://127.0.0.1:3000", "http://127.0.0.1:3000"),
            ("http://localhost:3000", "http://localhost:3000"),
            ("https://a-b.c-d.example", "https://a-b.c-d.example"),
        ]
        for (given, want) in canonical {
            #expect(Addresses.origin(given) == want, "\(given)")
        }
        let refused = [
            "http://[::1", "http://[::1]x", "http://[fe80::1%eth0]", "http://[::ffff:1.2.3.4]", "http://a.example:99999",
            "http://a.example:0", "http://a.example:", "http://a.example:8o", "http://a..example", "http://-a.example",
            "http://a-.example", "http://a.example.", "http://:80", "http://a:b:c", "http://u:p@a.example", "http://a b",
            "http://a.example/path", "http://a.example?q", "http://a.example#f", "ftp://a.example", "a.example", "*",
            "http://127.1", "http://999.1.1.1", "http://ex\u{e4}mple.de", "http://" + String(repeating: "a", count: 64) + ".example",
        ]
        for given in refused {
            #expect(Addresses.origin(given) == nil, "\(given)")
        }
        let parsed = try parse(["--allow-origin", "HTTPS://Shop.example:443/", "--public-url", "https://Chat.example"], as: ServeCommand.spec)
        let options = try ServeCommand.Options(parsed, command: "serve")
        #expect(options.configuration.allowedOrigins == ["https://shop.example"])
        #expect(options.configuration.publicOrigins == ["https://chat.example"])
        // A host alone, or an address with a path, is refused with the origin it most likely means.
        func refusal(_ value: String) -> String? {
            do throws(UsageError) {
                _ = try ServeCommand.Options(try parse(["--allow-origin", value], as: ServeCommand.spec), command: "serve")
                return nil
            } catch {
                return error.message
            }
        }
        #expect(refusal("shop.example")?.hasSuffix("not 'shop.example'; did you mean 'https://shop.example'?") == true)
        #expect(refusal("https://Shop.example:8443/cart")?.hasSuffix("; did you mean 'https://shop.example:8443'?") == true)
        #expect(refusal("*")?.hasSuffix("not '*'") == true, "no guess for what is no host")
        // --trust-proxy: an address or a network; a network of every address is refused.
        let pool = try ServeCommand.Options(
            try parse(["--trust-proxy", "10.0.0.0/8", "--trust-proxy", "::ffff:127.0.0.1"], as: ServeCommand.spec), command: "serve")
        #expect(pool.configuration.trusts("10.4.5.6") && pool.configuration.trusts("127.0.0.1") && !pool.configuration.trusts("11.0.0.1"))
        for bad in ["0.0.0.0/0", "::/0", "10.0.0.0/40", "proxy.internal"] {
            #expect(throws: UsageError.self, "\(bad)") { try ServeCommand.Options(try parse(["--trust-proxy", bad], as: ServeCommand.spec), command: "serve") }
        }
        // A key file: a byte-order mark, Windows line ends, blank lines, comments and spaces
        // around a key are no part of any key; a line that is no key names its line.
        let dir = scratchDirectory()
        _ = FileIO.write("\u{FEFF}key-one-0123456789abcdef\r\n# a comment\n\n  key-two-0123456789abcdef  \n", to: dir + "/keys")
        guard case .success(let keys) = ServeCommand.siteKeys(file: dir + "/keys", environment: nil) else {
            Issue.record("the key file was refused")
            return
        }
        #expect(keys.count == 2)
        _ = FileIO.write("key-one-0123456789abcdef\nshort\n", to: dir + "/bad")
        if case .failure(let f) = ServeCommand.siteKeys(file: dir + "/bad", environment: nil) {
            #expect(f.message.hasSuffix("/bad:2: not a key (16–256 printable characters without spaces)"), "\(f.message)")
        } else {
            Issue.record("a file with a line that is no key was taken")
        }
        // --host takes addresses, and localhost as the loopback address; no other name.
        for (given, want) in [("localhost", "127.0.0.1"), ("LocalHost", "127.0.0.1"), ("::1", "::1"), ("0.0.0.0", "0.0.0.0")] {
            #expect(try ServeCommand.Options(parse(["--host", given], as: ServeCommand.spec), command: "serve").host == want, "\(given)")
        }
        for given in ["example.com", "localhost.", "999.1.1.1", ""] {
            #expect(throws: UsageError.self, "\(given)") { try ServeCommand.Options(parse(["--host", given], as: ServeCommand.spec), command: "serve") }
        }
    }
}

@Suite("rocket results --csv: cells")
struct ResultsCSVCellTests {
    @Test("cells follow RFC 4180 and keep a spreadsheet from running a visitor's text as a formula; numbers stay numbers")
    func cells() {
        #expect(ResultsCommand.csvText(.string("plain")) == "plain")
        #expect(ResultsCommand.csvText(.string("a, b")) == #""a, b""#)
        #expect(ResultsCommand.csvText(.string("say \"hi\"")) == #""say ""hi""""#)
        #expect(ResultsCommand.csvText(.string("two\nlines")) == "\"two\nlines\"")
        for formula in ["=HYPERLINK(\"x\")", "+1", "-1", "@SUM(A1)", "\tx", "\rx"] {
            #expect(ResultsCommand.csvText(.string(formula)).hasPrefix("'") || ResultsCommand.csvText(.string(formula)).hasPrefix("\"'"), "\(formula)")
        }
        #expect(ResultsCommand.csvText(.number(-3)) == "-3")
        #expect(ResultsCommand.csvText(.number(2.5)) == "2.5")
        #expect(ResultsCommand.csvText(.array([.string("=x"), .string("B")])) == "'=x; B")
        #expect(ResultsCommand.csvText(.null) == "" && ResultsCommand.csvText(.bool(true)) == "true")
        // An escape sequence a visitor typed is not handed to the terminal that shows the CSV.
        #expect(ResultsCommand.csvText(.string("a\u{1B}[31mred\u{7}")) == "a\u{FFFD}[31mred\u{FFFD}")
    }
}
