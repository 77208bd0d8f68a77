import CTestSupport
import Foundation
import RocketTestSupport
#if canImport(Glibc)
    import Glibc
#endif

/// The built `rocket` executable (swift test builds it, since this target depends on it).
let rocketPath: String = {
    let candidates = [
        Bundle.main.bundleURL.appendingPathComponent("rocket").path,
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent(".build/debug/rocket").path,
    ]
    return candidates.first { FileManager.default.isExecutableFile(atPath: $0) } ?? candidates[1]
}()

/// A scratch directory for one test.
func scratchDirectory() -> String {
    newScratchDirectory("cli")
}

func write(_ text: String, to path: String) {
    _ = FileManager.default.createFile(atPath: path, contents: Data(text.utf8))
}

struct RunResult {
    var status: Int32
    var stdout: String
    var stderr: String
}

/// The exit status of the started `p` (its exit code, or the signal that ended it, as
/// `terminationStatus` says), seen through `waitid` without reaping it, not through
/// `waitUntilExit`: Foundation learns that a child ended when a socket the child inherited
/// closes, and a process the child started and left running holds that socket open
/// (swift-corelibs-foundation #4795), so `waitUntilExit` can wait long after the child is gone.
/// Foundation still reaps it. A child still running after `timeout` seconds is killed (a hung
/// run fails its test instead of stopping the whole run).
func exitStatus(of p: Process, timeout: Double = 300) -> Int32 {
    let deadline = Date().addingTimeInterval(timeout)
    var status: Int32 = 0
    var killed = false
    while true {
        switch rocket_test_exited(p.processIdentifier, &status) {
        case 1: return killed ? -1 : status
        case 0:
            if !killed, Date() > deadline {
                // Where it waited, for whoever reads the failure: each thread's kernel wait and
                // system call (and its kernel stack, where this runs as root).
                FileHandle.standardError.write(Data(hungThreads(p.processIdentifier).utf8))
                kill(p.processIdentifier, SIGKILL)
                killed = true
            }
            usleep(1000)
        default:
            // Already reaped by Foundation, which then knows how it ended.
            p.waitUntilExit()
            return killed ? -1 : p.terminationStatus
        }
    }
}

/// What each thread of the hung process `pid` waits in: `/proc`'s `comm`, `wchan`, `syscall`
/// and, when readable, `stack`, a paragraph per thread.
func hungThreads(_ pid: Int32) -> String {
    let base = "/proc/\(pid)/task"
    var out = "process \(pid) did not exit in time; its threads:\n"
    for task in ((try? FileManager.default.contentsOfDirectory(atPath: base)) ?? []).sorted() {
        func read(_ name: String) -> String {
            (try? String(contentsOfFile: "\(base)/\(task)/\(name)", encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "?"
        }
        out += "  \(task) \(read("comm")): wchan \(read("wchan")), syscall \(read("syscall"))\n"
        let stack = read("stack")
        if stack != "?" { out += stack.split(separator: "\n").map { "    " + $0 }.joined(separator: "\n") + "\n" }
    }
    return out
}

/// Runs any program with no input: its exit status, stdout and stderr (kept in files, which never
/// fill). `environment` nil is ours; given, it is all the program gets.
func runProgram(_ executable: String, _ arguments: [String], environment: [String: String]? = nil, in directory: String? = nil) throws -> RunResult {
    let base = scratchDirectory() + "/run"
    _ = FileManager.default.createFile(atPath: base + ".out", contents: nil)
    _ = FileManager.default.createFile(atPath: base + ".err", contents: nil)
    let p = Process()
    p.executableURL = URL(fileURLWithPath: executable)
    p.arguments = arguments
    if let environment { p.environment = environment }
    if let directory { p.currentDirectoryURL = URL(fileURLWithPath: directory) }
    let out = try FileHandle(forWritingTo: URL(fileURLWithPath: base + ".out"))
    let err = try FileHandle(forWritingTo: URL(fileURLWithPath: base + ".err"))
    p.standardInput = FileHandle.nullDevice
    p.standardOutput = out
    p.standardError = err
    try p.run()
    let status = exitStatus(of: p)
    try out.close()
    try err.close()
    let stdout = FileManager.default.contents(atPath: base + ".out") ?? Data()
    let stderr = FileManager.default.contents(atPath: base + ".err") ?? Data()
    return RunResult(status: status, stdout: String(decoding: stdout, as: UTF8.self), stderr: String(decoding: stderr, as: UTF8.self))
}

/// Runs rocket with pipes for stdin, stdout and stderr (plain mode, as a script would).
func runRocket(_ args: [String], stdin: String = "", environment: [String: String] = [:], executable: String? = nil) throws -> RunResult {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: executable ?? rocketPath)
    p.arguments = args
    var env = ProcessInfo.processInfo.environment
    env["LANG"] = "C.UTF-8"
    env.removeValue(forKey: "LC_ALL"); env.removeValue(forKey: "LC_MESSAGES")
    for (k, v) in environment { env[k] = v }
    p.environment = env
    // stdout and stderr go to files, which never fill: with two pipes read one after the other,
    // a child writing much to the second would block forever while the first is drained.
    let base = NSTemporaryDirectory() + "rocket-run-\(getpid())-\(UUID().uuidString)"
    _ = FileManager.default.createFile(atPath: base + ".out", contents: nil)
    _ = FileManager.default.createFile(atPath: base + ".err", contents: nil)
    defer {
        try? FileManager.default.removeItem(atPath: base + ".out")
        try? FileManager.default.removeItem(atPath: base + ".err")
    }
    let input = Pipe()
    guard let output = FileHandle(forWritingAtPath: base + ".out"), let errors = FileHandle(forWritingAtPath: base + ".err") else {
        throw CocoaError(.fileWriteUnknown)
    }
    p.standardInput = input
    p.standardOutput = output
    p.standardError = errors
    try p.run()
    try output.close()
    try errors.close()
    // A child that exits before reading (a usage error) closes the pipe: that must be an error
    // here, never a SIGPIPE that takes the whole test runner down.
    signal(SIGPIPE, SIG_IGN)
    try? input.fileHandleForWriting.write(contentsOf: Data(stdin.utf8))
    try input.fileHandleForWriting.close()
    let status = exitStatus(of: p)
    let out = FileManager.default.contents(atPath: base + ".out") ?? Data()
    let err = FileManager.default.contents(atPath: base + ".err") ?? Data()
    return RunResult(status: status, stdout: String(decoding: out, as: UTF8.self), stderr: String(decoding: err, as: UTF8.self))
}

/// rocket running in a real pseudo-terminal, as a person would use it, with the screen kept by
/// a virtual terminal.
final class PTYRun {
    let master: Int32
    let slave: Int32
    let process = Process()
    var screen: VirtualTerminal
    var raw: [UInt8] = []
    let savedTermios: termios

    init(_ args: [String], columns: Int = 80, rows: Int = 24, environment: [String: String] = [:], shell: String? = nil) throws {
        var name = [CChar](repeating: 0, count: 128)
        master = rocket_pty_open(&name, 128)
        guard master >= 0 else { throw POSIXFailure(what: "posix_openpt") }
        let path = String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        slave = open(path, O_RDWR | O_NOCTTY)
        guard slave >= 0 else { throw POSIXFailure(what: "open pty") }
        _ = rocket_pty_resize(master, Int32(rows), Int32(columns))
        var t = termios()
        tcgetattr(slave, &t)
        savedTermios = t
        screen = VirtualTerminal(width: columns, height: rows)
        process.executableURL = URL(fileURLWithPath: "/usr/bin/setsid")
        // A shell command line instead of rocket's arguments (to redirect stdout, as scripts do).
        process.arguments = shell.map { ["-c", "-w", "/bin/sh", "-c", $0] } ?? (["-c", "-w", rocketPath] + args)
        var env = ProcessInfo.processInfo.environment
        env["TERM"] = "xterm-256color"
        env["LANG"] = "C.UTF-8"
        env.removeValue(forKey: "LC_ALL"); env.removeValue(forKey: "NO_COLOR"); env.removeValue(forKey: "COLUMNS"); env.removeValue(forKey: "LINES")
        env.removeValue(forKey: "ROCKET_PLAIN")  // a person's own line-mode setting is not the test's
        for (k, v) in environment { env[k] = v }
        process.environment = env
        let handle = FileHandle(fileDescriptor: slave, closeOnDealloc: false)
        process.standardInput = handle
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
    }

    deinit {
        if process.isRunning { process.terminate() }
        close(master)
        close(slave)
    }

    /// rocket's own pid: the child of the `setsid -w` wrapper.
    var rocketPID: pid_t {
        let pid = process.processIdentifier
        let children = (try? String(contentsOfFile: "/proc/\(pid)/task/\(pid)/children", encoding: .utf8)) ?? ""
        return children.split(separator: " ").first.flatMap { pid_t($0) } ?? pid
    }

    func send(_ text: String) { send(Array(text.utf8)) }
    func send(_ bytes: [UInt8]) { _ = bytes.withUnsafeBytes { write(master, $0.baseAddress, $0.count) } }

    /// Reads whatever the program wrote within `seconds`.
    func pump(_ seconds: Double) {
        var fd = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            let n = poll(&fd, 1, 20)
            if n > 0 {
                var buffer = [UInt8](repeating: 0, count: 65536)
                let r = read(master, &buffer, buffer.count)
                if r <= 0 { return }
                raw += buffer[..<r]
                // Answer cursor-position queries as a terminal does, with the cursor where it
                // is when the query arrives.
                var chunk = Array(buffer[..<r])
                let query: [UInt8] = [0x1B, 0x5B, 0x36, 0x6E]
                while let at = (0..<max(0, chunk.count - 3)).first(where: { Array(chunk[$0..<($0 + 4)]) == query }) {
                    screen.feed(Array(chunk[..<at]))
                    send("\u{1B}[\(screen.row + 1);\(screen.column + 1)R")
                    chunk.removeFirst(at + 4)
                }
                screen.feed(chunk)
            }
        }
    }

    /// Waits (reading output) until the screen shows `text`; false after the timeout.
    @discardableResult
    /// Pumps output until `condition` holds or the timeout passes.
    func waitUntil(timeout: Double = 10, _ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if condition() { return true }
            pump(0.05)
        }
        return condition()
    }

    func waitFor(_ text: String, timeout: Double = 10) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if screen.allLines.contains(where: { $0.contains(text) }) { return true }
            pump(0.05)
        }
        return screen.allLines.contains(where: { $0.contains(text) })
    }

    func resize(columns: Int, rows: Int) {
        _ = rocket_pty_resize(master, Int32(rows), Int32(columns))
        screen = VirtualTerminal(width: max(1, columns), height: max(1, rows))  // the test's own screen needs a cell
    }

    /// Waits for the exit status, reading output meanwhile.
    func waitForExit(timeout: Double = 10) -> Int32? {
        let deadline = Date().addingTimeInterval(timeout)
        var status: Int32 = 0
        // Seen through waitid, as `exitStatus(of:)` sees it, not through `isRunning`.
        while rocket_test_exited(process.processIdentifier, &status) == 0 && Date() < deadline { pump(0.05) }
        pump(0.05)
        switch rocket_test_exited(process.processIdentifier, &status) {
        case 1: return status
        case 0: return nil
        default: return process.isRunning ? nil : process.terminationStatus
        }
    }

    /// True when every terminal setting is as it was before the program started.
    var terminalRestored: Bool {
        var now = termios()
        tcgetattr(slave, &now)
        var saved = savedTermios
        return now.c_iflag == saved.c_iflag && now.c_oflag == saved.c_oflag && now.c_lflag == saved.c_lflag
            && now.c_cflag == saved.c_cflag && memcmp(&now.c_cc, &saved.c_cc, MemoryLayout.size(ofValue: now.c_cc)) == 0
    }
}

struct POSIXFailure: Error {
    let what: String
}

/// Event records without their times (`"at":…,`), for comparing what they say.
func withoutTimes(_ records: String) -> String {
    records.replacingOccurrences(of: #""at":[0-9.]+,"#, with: "", options: .regularExpression)
}
