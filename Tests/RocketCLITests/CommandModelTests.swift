import RocketScenarios
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
        let rules = try ScenarioCommand.rules(ok, command: spec.name)
        #expect(rules.minEventsRequired == 5 && rules.minSecondsSinceFirstEvent == 14 * 86_400 && rules.eventsOf == "launch")
        let bad = try parse(["x", "--window", "7d"], as: spec)
        #expect(throws: UsageError.self) { try ScenarioCommand.rules(bad, command: spec.name) }
    }
}
