import Foundation
import Testing

/// Help, completions and the man page, all made from the same command tables.
@Suite("Help, completions and the man page")
struct HelpTests {
    static let commands: [[String]] = [
        ["demo"], ["play"], ["lint"], ["test"], ["graph"], ["schema"], ["new"], ["banner"], ["alert"],
        ["scenario", "trigger"], ["scenario", "try"], ["scenario", "status"], ["scenario", "reset"], ["scenario", "export"],
        ["scenario", "import"], ["completions"], ["man"],
    ]
    static let golden = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Golden")

    @Test("Every help text matches its golden file (ROCKET_UPDATE_GOLDEN=1 rewrites them)")
    func goldens() throws {
        let update = ProcessInfo.processInfo.environment["ROCKET_UPDATE_GOLDEN"] == "1"
        for command in Self.commands + [[], ["scenario"]] {
            let r = try runRocket(command + ["--help"])
            #expect(r.status == 0, "\(command)")
            let file = Self.golden.appendingPathComponent("help-" + (command.isEmpty ? "rocket" : command.joined(separator: "-")) + ".txt")
            if update {
                try FileManager.default.createDirectory(at: Self.golden, withIntermediateDirectories: true)
                try r.stdout.write(to: file, atomically: true, encoding: .utf8)
            } else {
                #expect(r.stdout == (try? String(contentsOf: file, encoding: .utf8)), "\(command): run with ROCKET_UPDATE_GOLDEN=1 after a deliberate change")
            }
        }
    }

    @Test("Every command has a synopsis, an EXIT STATUS section and at least two examples; rocket help A B is B of A")
    func sections() throws {
        for command in Self.commands {
            let text = try runRocket(command + ["--help"]).stdout
            #expect(text.contains("USAGE: rocket " + command.joined(separator: " ")), "\(command)")
            #expect(text.contains("\nEXIT STATUS:\n"), "\(command)")
            let examples =
                text.components(separatedBy: "\nEXAMPLES:\n").last?.split(separator: "\n").filter { $0.hasPrefix("  rocket") || $0.hasPrefix("  printf") } ?? []
            #expect(examples.count >= 2, "\(command)")
        }
        #expect(try runRocket(["help", "scenario", "try"]).stdout == runRocket(["scenario", "try", "--help"]).stdout)
        #expect(try runRocket(["scenario", "status", "--help"]).stdout.contains("USAGE: rocket scenario status [options] [NAME]"))
        #expect(try runRocket(["-v"]).stdout.hasPrefix("rocket "))
        let noSub = try runRocket(["scenario"])
        #expect(noSub.status == 64 && noSub.stderr.contains("SUBCOMMANDS:"))
    }

    @Test("Completions for bash, zsh and fish and the man page name every command and option")
    func completionsAndMan() throws {
        let man = try runRocket(["man"]).stdout
        #expect(man.hasPrefix(".TH ROCKET 1"))
        var everyOption: Set<String> = []
        for command in Self.commands {
            let help = try runRocket(command + ["--help"]).stdout
            for line in help.split(separator: "\n") where line.hasPrefix("  --") {
                everyOption.insert(String(line.dropFirst(2).split(separator: " ")[0]))
            }
        }
        #expect(everyOption.count > 30)
        for shell in ["bash", "zsh", "fish"] {
            let script = try runRocket(["completions", shell])
            #expect(script.status == 0, "\(shell)")
            for option in everyOption {
                let word = shell == "fish" ? "-l " + option.dropFirst(2) : option
                #expect(script.stdout.contains(word), "\(shell) lacks \(option)")
            }
            for command in ["play", "lint", "graph", "scenario", "trigger"] { #expect(script.stdout.contains(command), "\(shell) lacks \(command)") }
        }
        for option in everyOption { #expect(man.contains(option.replacingOccurrences(of: "-", with: "\\-")), "man lacks \(option)") }
        #expect(try runRocket(["completions", "tcsh"]).status == 64)
        if FileManager.default.isExecutableFile(atPath: "/bin/bash") {
            let dir = scratchDirectory()
            write(try runRocket(["completions", "bash"]).stdout, to: dir + "/c.bash")
            let p = Process()
            p.executableURL = URL(fileURLWithPath: "/bin/bash")
            p.arguments = ["-n", dir + "/c.bash"]
            try p.run()
            p.waitUntilExit()
            #expect(p.terminationStatus == 0, "the bash script parses")
        }
    }

    /// Runs `shell` with `arguments` in `dir`; its standard output.
    static func runShell(_ shell: String, _ arguments: [String], in dir: String) throws -> String {
        try runProgram(shell, arguments, in: dir).stdout
    }

    /// A folder with a flow, a subfolder and a name with a space, to complete in.
    static func completionFixture() -> String {
        let dir = scratchDirectory()
        try? FileManager.default.createDirectory(atPath: dir + "/examples/more", withIntermediateDirectories: true)
        write("{}", to: dir + "/examples/welcome.json")
        write("{}", to: dir + "/my flow.json")
        return dir
    }

    /// What bash's completion function offers for the words (the last one is being completed).
    static func bashCompletes(_ words: [String], script: String, in dir: String) throws -> [String] {
        let quoted = words.map { "'" + $0 + "'" }.joined(separator: " ")
        let out = try runShell(
            "/bin/bash", ["-c", "source '\(script)'; COMP_WORDS=(\(quoted)); COMP_CWORD=\(words.count - 1); _rocket; printf '%s\\n' \"${COMPREPLY[@]}\""],
            in: dir)
        return out.split(separator: "\n").map(String.init)
    }

    @Test("bash completion: folders as folders, files, every enumerated value, subcommands, options (driven through COMP_WORDS)")
    func bashCompletion() throws {
        let dir = Self.completionFixture()
        let script = dir + "/rocket.bash"
        write(try runRocket(["completions", "bash"]).stdout, to: script)
        func c(_ words: String...) throws -> [String] { try Self.bashCompletes(["rocket"] + words, script: script, in: dir) }
        #expect(try c("play", "ex") == ["examples/"])  // a folder goes on: a slash and no space
        #expect(try c("play", "examples/") == ["examples/more/", "examples/welcome.json"])
        #expect(try c("lint", "my") == ["my\\ flow.json"])  // quoted for the shell
        #expect(try c("serve", "--flows", "") == ["examples/"])  // folders only
        #expect(try c("play", "--theme", "") == ["auto", "dark", "light", "none"])
        #expect(try c("graph", "x.json", "--format", "") == ["mermaid", "dot", "svg", "text"])
        #expect(try c("completions", "") == ["bash", "zsh", "fish"])
        #expect(try c("confirm", "--default", "") == ["yes", "no"])
        #expect(try c("banner", "T", "--animation", "") == ["linear", "drop", "snap"])
        #expect(try c("banner", "T", "--color", "te") == ["teal"])
        #expect(try c("scenario", "") == ["trigger", "try", "simulate", "status", "reset", "export", "import"])
        #expect(try c("scenario", "try", "--min-ev").sorted() == ["--min-events", "--min-events-in-window"])
        #expect(try c("pl") == ["play"])
        #expect(try c("help", "sc").sorted() == ["scenario", "schema"])
        #expect(try c("choose", "--title", "").isEmpty)  // free text: nothing offered
        #expect(try c("play", "--state", "my") == ["my\\ flow.json"])
    }

    @Test(
        "zsh completion: the same values through zsh's own file and folder completion",
        .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/zsh"), "zsh is not installed (install-deps --tests installs it)"))
    func zshCompletion() throws {
        let dir = Self.completionFixture()
        let script = dir + "/rocket.zsh"
        write(try runRocket(["completions", "zsh"]).stdout, to: script)
        // zsh's completion builtins stand in as functions that print what they were given.
        func c(_ words: String...) throws -> [String] {
            let quoted = (["rocket"] + words).map { "'" + $0 + "'" }.joined(separator: " ")
            let stub = "compdef() { :; }; compadd() { [[ $1 == -- ]] && shift; print -l -- \"$@\"; }; _files() { print \"FILES $*\"; }"
            let out = try Self.runShell("/usr/bin/zsh", ["-c", stub + "; source '\(script)'; words=(\(quoted)); CURRENT=$#words; _rocket"], in: dir)
            return out.split(separator: "\n").map(String.init)
        }
        #expect(try c("play", "--theme", "") == ["auto", "dark", "light", "none"])
        #expect(try c("serve", "--flows", "") == ["FILES -/"])
        #expect(try c("play", "ex") == ["FILES "])
        #expect(try c("completions", "") == ["bash", "zsh", "fish"])
        #expect(try c("scenario", "").contains("import"))
        #expect(try c("graph", "x", "--format", "") == ["mermaid", "dot", "svg", "text"])
    }

    @Test(
        "fish completion: complete -C gives folders, files and every enumerated value",
        .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/fish"), "fish is not installed (install-deps --tests installs it)"))
    func fishCompletion() throws {
        let dir = Self.completionFixture()
        let script = dir + "/rocket.fish"
        write(try runRocket(["completions", "fish"]).stdout, to: script)
        func c(_ line: String) throws -> [String] {
            let out = try Self.runShell("/usr/bin/fish", ["-c", "source '\(script)'; complete -C '\(line)'"], in: dir)
            return out.split(separator: "\n").map { String($0.split(separator: "\t").first ?? "") }
        }
        #expect(try c("rocket play --theme ") == ["auto", "dark", "light", "none"])
        #expect(try c("rocket completions ").sorted() == ["bash", "fish", "zsh"])
        #expect(try c("rocket play ex") == ["examples/"])
        #expect(try c("rocket serve --flows ") == ["examples/"])
        #expect(try c("rocket scenario ").contains("import"))
        #expect(try c("rocket graph x --format ").sorted() == ["dot", "mermaid", "svg", "text"])
    }

    @Test("Strict flags: a flag twice, an empty name, a bad --now on every command")
    func strict() throws {
        #expect(try runRocket(["play", "x.json", "--plain", "--plain"]).status == 64)
        #expect(try runRocket(["demo", "--now", "garbage"]).status == 64)
        #expect(try runRocket(["play", "x.json", "--now", "garbage"]).status == 64)
        #expect(try runRocket(["scenario", "trigger", "x", "--now", "garbage"]).status == 64)
        #expect(try runRocket(["banner", "T", "--scenario", "s", "--now", "garbage"]).status == 64)
        let raw = try runRocket(["play", "x.json", "--bogus\u{1B}[2J"])
        #expect(raw.status == 64 && !raw.stderr.contains("\u{1B}"))
    }
}

@Suite("README shell examples")
struct ReadmeShellTests {
    @Test("The README's shell-script block for scenarios runs exactly as written")
    func scenarioBlock() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        let blocks = readme.components(separatedBy: "```sh\n").dropFirst().map { $0.components(separatedBy: "```")[0] }
        let block = try #require(blocks.first { $0.hasPrefix("rocket scenario trigger app-launch") })
        let dir = scratchDirectory()
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/bin/sh")
        p.arguments = ["-c", block]
        var env = ProcessInfo.processInfo.environment
        env["PATH"] = URL(fileURLWithPath: rocketPath).deletingLastPathComponent().path + ":" + (env["PATH"] ?? "/usr/bin:/bin")
        env["XDG_STATE_HOME"] = dir
        env.removeValue(forKey: "ROCKET_STORE")
        p.environment = env
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        p.standardInput = FileHandle.nullDevice
        try p.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let errors = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        #expect(p.terminationStatus == 0, "\(errors)")
        #expect(text.contains("\"app-launch\""))
        #expect(errors.contains("events 1 ≥ 5 required"))
        #expect(FileManager.default.fileExists(atPath: dir + "/rocket/scenarios.sqlite"))
    }
}
