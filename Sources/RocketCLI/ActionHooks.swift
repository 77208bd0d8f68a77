#if canImport(Glibc)
    import Glibc
#endif
import RocketConversation
import RocketCore
import RocketTerminal
import RocketTerminalCore
import RocketPlatform

/// `rocket play --on-action NAME=COMMAND`: a flow names actions, never commands; the person who
/// runs the flow maps names to shell commands. A command runs with `/bin/sh -c` when its action
/// fires, with the non-secret answers so far in its environment as `ROCKET_ANSWER_<ID>` (the id
/// upper-cased, anything but letters and digits as `_`), standard input from /dev/null, and its
/// output on standard error in line mode; in the terminal UI its output is kept and printed above
/// the live area, so it cannot tear the screen. Play waits for it; its exit status goes to the
/// events file.
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

    /// Where a command's output goes.
    enum Output {
        /// Our standard error (line mode, where the transcript is on standard error too).
        case standardError
        /// Kept (its first ``capturedLimit`` bytes) and handed back, for the terminal UI to print
        /// above its live area.
        case captured
    }

    /// At most this much of a command's output is kept for the terminal UI (the rest is counted).
    static let capturedLimit = RocketLimits.actionOutputBytes

    /// Runs the command for `name`, if any: its exit status (128 + signal when killed) and, when
    /// `output` is `.captured`, what it wrote (standard output and error, in order); nil when no
    /// command is mapped to the name.
    func run(_ name: String, answers: [String: RocketAnswer], output: Output) -> (status: Int32, output: String)? {
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
        var file: Int32 = -1
        switch output {
        case .standardError:
            posix_spawn_file_actions_adddup2(&actions, 2, 1)
        case .captured:
            file = FileIO.anonymousFile()
            if file >= 0 {
                posix_spawn_file_actions_adddup2(&actions, file, 1)
                posix_spawn_file_actions_adddup2(&actions, file, 2)
            } else {
                posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
                posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
            }
        }
        defer { if file >= 0 { close(file) } }
        let argv = ["/bin/sh", "-c", command]
        var pid = pid_t()
        let rc = withCStrings(argv) { cArgv in
            withCStrings(environment) { cEnv in posix_spawn(&pid, "/bin/sh", &actions, nil, cArgv, cEnv) }
        }
        guard rc == 0 else { return (127, "") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            if errno != EINTR { return (127, "") }
        }
        return (ChildProcess.exitStatus(status), file >= 0 ? Self.readBack(file) : "")
    }

    /// The start of what a command wrote to `fd`, bounded, with a note of what was left out.
    private static func readBack(_ fd: Int32) -> String {
        let size = Int(lseek(fd, 0, SEEK_END))
        guard size > 0, lseek(fd, 0, SEEK_SET) == 0 else { return "" }
        var buffer = [UInt8](repeating: 0, count: min(size, capturedLimit))
        var got = 0
        while got < buffer.count {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress! + got, $0.count - got) }
            if n < 0, errno == EINTR { continue }
            if n <= 0 { break }
            got += n
        }
        var text = String(decoding: buffer[0..<got], as: UTF8.self)
        if text.hasSuffix("\n") { text.removeLast() }
        if size > got { text += "\n… (\(size - got) more bytes)" }
        return text
    }
}

private enum CharacterSet {
    static func isAlnum(_ s: Unicode.Scalar) -> Bool {
        (s >= "A" && s <= "Z") || (s >= "a" && s <= "z") || (s >= "0" && s <= "9")
    }
}
