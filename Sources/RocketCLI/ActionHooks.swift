#if canImport(Glibc)
    import Glibc
#endif
import RocketConversation
import RocketTerminal

/// `rocket play --on-action NAME=COMMAND`: a flow names actions, never commands; the person who
/// runs the flow maps names to shell commands. A command runs with `/bin/sh -c` when its action
/// fires, with the non-secret answers so far in its environment as `ROCKET_ANSWER_<ID>` (the id
/// upper-cased, anything but letters and digits as `_`), standard input from /dev/null, and its
/// output on standard error in line mode (in the terminal UI it is discarded, so it cannot tear
/// the screen). Play waits for it; its exit status goes to the events file.
struct ActionHooks {
    /// Commands by action name.
    var commands: [String: String] = [:]

    /// Reads `--on-action NAME=COMMAND` values.
    static func parse(_ values: [String], command: String) throws(UsageError) -> ActionHooks {
        var hooks = ActionHooks()
        for v in values {
            guard let eq = v.firstIndex(of: "="), eq != v.startIndex, v.index(after: eq) != v.endIndex else {
                throw UsageError(message: "'--on-action \(v)' must be NAME=COMMAND", command: command)
            }
            let name = String(v[..<eq])
            guard hooks.commands[name] == nil else {
                throw UsageError(message: "'--on-action \(name)=…' is given twice", command: command)
            }
            hooks.commands[name] = String(v[v.index(after: eq)...])
        }
        return hooks
    }

    /// The environment variable name for an answer id.
    static func variable(for id: String) -> String {
        "ROCKET_ANSWER_" + String(id.uppercased().unicodeScalars.map { ($0.value < 128 && (CharacterSet.isAlnum($0))) ? Character($0) : "_" })
    }

    /// Runs the command for `name`, if any; its exit status (128 + signal when killed), or nil.
    func run(_ name: String, answers: [String: RocketAnswer], showOutput: Bool) -> Int32? {
        guard let command = commands[name] else { return nil }
        var environment: [String] = []
        var p = environ
        while let entry = p.pointee {
            let text = String(cString: entry)
            if !text.hasPrefix("ROCKET_ANSWER_") { environment.append(text) }
            p += 1
        }
        for (id, answer) in answers.sorted(by: { $0.key < $1.key }) where !answer.isSecret {
            environment.append(ActionHooks.variable(for: id) + "=" + answer.value)
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        if showOutput {
            posix_spawn_file_actions_adddup2(&actions, 2, 1)
        } else {
            posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
            posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        }
        let argv = ["/bin/sh", "-c", command]
        var pid = pid_t()
        let rc = withCStrings(argv) { cArgv in
            withCStrings(environment) { cEnv in posix_spawn(&pid, "/bin/sh", &actions, nil, cArgv, cEnv) }
        }
        guard rc == 0 else { return 127 }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            if errno != EINTR { return 127 }
        }
        return ChildProcess.exitStatus(status)
    }
}

private enum CharacterSet {
    static func isAlnum(_ s: Unicode.Scalar) -> Bool {
        (s >= "A" && s <= "Z") || (s >= "a" && s <= "z") || (s >= "0" && s <= "9")
    }
}
