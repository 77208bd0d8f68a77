import CTestSupport
import Foundation
import RocketCore
import RocketText
import Testing
@testable import RocketTerminal
@testable import RocketTerminalApps
@testable import RocketTerminalCore

#if canImport(Glibc)
    import Glibc
#endif

/// A task's cancellation reaches a prompt waiting for keys on a real pseudo-terminal.
@Suite("Cancelling the task that runs a prompt", .serialized)
struct CancellationTests {
    /// A pseudo-terminal pair: the primary side the test reads, the secondary side the runner draws on.
    static func openPair() throws -> (primary: Int32, secondary: Int32) {
        var name = [CChar](repeating: 0, count: 128)
        let primary = rocket_pty_open(&name, 128)
        try #require(primary >= 0)
        let path = String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let secondary = open(path, O_RDWR | O_NOCTTY)
        try #require(secondary >= 0)
        _ = rocket_pty_resize(primary, 24, 80)
        return (primary, secondary)
    }

    /// Reads what the runner drew until `text` shows (bounded by the poll's own timeout).
    static func read(_ fd: Int32, until text: String) -> String {
        var seen: [UInt8] = []
        var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        while !String(decoding: seen, as: UTF8.self).contains(text), poll(&p, 1, 10_000) > 0 {
            var buffer = [UInt8](repeating: 0, count: 4096)
            let n = Glibc.read(fd, &buffer, buffer.count)
            if n <= 0 { break }
            seen += buffer[..<n]
        }
        return String(decoding: seen, as: UTF8.self)
    }

    @MainActor
    @Test("Task.cancel() ends a prompt waiting for a key as Ctrl-C does, and the terminal's settings are back before run returns")
    func cancelWhileWaiting() async throws {
        let (primary, secondary) = try Self.openPair()
        defer {
            close(primary)
            close(secondary)
        }
        var before = termios()
        tcgetattr(secondary, &before)
        let runner = ProgramRunner(terminal: Terminal(inputFD: secondary, outputFD: secondary), clock: SystemClock(), strings: .english)
        runner.theme = TerminalTheme.dark  // no background query: the test's side never answers one
        let app = ChooseApp(title: "Colour", options: ["red", "green"], limit: 1, strings: .english)
        let task = Task { @MainActor in await runner.run(app, lineMode: false) }
        // The prompt is drawn and waits in poll() on the main actor; the cancel comes from
        // another thread once the prompt shows.
        let canceller = Task.detached {
            let drawn = Self.read(primary, until: "green")
            task.cancel()
            // A cancel that never reached the wait would hang the run: after 10 s an Enter ends it
            // with a choice instead, and the expectation below fails.
            var p = pollfd(fd: primary, events: Int16(POLLIN), revents: 0)
            var rest = ""
            while !rest.contains("\u{1B}[?25h"), poll(&p, 1, 10_000) > 0 {
                var buffer = [UInt8](repeating: 0, count: 4096)
                let n = Glibc.read(primary, &buffer, buffer.count)
                if n <= 0 { break }
                rest += String(decoding: buffer[..<n], as: UTF8.self)
            }
            if !rest.contains("\u{1B}[?25h") { _ = Glibc.write(primary, "\r", 1) }
            return drawn
        }
        let outcome = await task.value
        #expect(await canceller.value.contains("Colour"))
        #expect(outcome == .interrupted(signal: SIGINT))
        var after = termios()
        tcgetattr(secondary, &after)
        #expect(after.c_lflag == before.c_lflag, "raw mode was left")
    }

    @MainActor
    @Test("A task cancelled before the prompt starts ends it at once, in line mode too")
    func cancelledBefore() async throws {
        let (primary, secondary) = try Self.openPair()
        defer {
            close(primary)
            close(secondary)
        }
        let runner = ProgramRunner(terminal: Terminal(inputFD: secondary, outputFD: secondary), clock: SystemClock(), strings: .english)
        let app = ChooseApp(title: "Colour", options: ["red", "green"], limit: 1, strings: .english)
        let task = Task { @MainActor in
            withUnsafeCurrentTask { $0?.cancel() }
            return await runner.run(app, lineMode: true)
        }
        let outcome = await task.value
        #expect(outcome == .interrupted(signal: SIGINT))
    }
}
