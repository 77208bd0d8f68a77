import Foundation
import Testing
#if canImport(Glibc)
    import Glibc
#endif

/// rocket in tmux, which re-wraps its grid (scrollback included) when a window narrows: what a
/// person sees in a real terminal multiplexer. Polls the pane for what should appear (bounded).
@Suite(
    "rocket in tmux", .serialized,
    .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/tmux"), "tmux is not installed (install-deps --tests installs it)"))
struct TmuxTests {
    /// One tmux server on a socket of its own, ended with the test.
    final class Server {
        let socket = "rocket-test-" + UUID().uuidString.prefix(8)

        /// Runs tmux (spawned and waited for directly: the server a first command starts double
        /// forks, which Foundation's Process does not always see end); its standard output.
        @discardableResult
        func tmux(_ args: String...) -> String {
            let path = NSTemporaryDirectory() + socket + "-" + UUID().uuidString
            defer { unlink(path) }
            var actions = posix_spawn_file_actions_t()
            posix_spawn_file_actions_init(&actions)
            defer { posix_spawn_file_actions_destroy(&actions) }
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
            posix_spawn_file_actions_addopen(&actions, 1, path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
            posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
            let argv = ["/usr/bin/tmux", "-L", socket] + args
            var cArgs = argv.map { strdup($0) } + [nil]
            defer { for a in cArgs { free(a) } }
            var pid = pid_t()
            guard posix_spawn(&pid, "/usr/bin/tmux", &actions, nil, &cArgs, environ) == 0 else { return "" }
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
            return (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        }

        /// The pane's scrollback and screen.
        var everything: String { tmux("capture-pane", "-p", "-S", "-", "-t", "t") }

        /// Waits until the screen satisfies `condition`; false after 10 s.
        func waitUntil(_ condition: (String) -> Bool) -> Bool {
            for _ in 0..<200 {
                if condition(tmux("capture-pane", "-p", "-t", "t")) { return true }
                usleep(50_000)
            }
            return false
        }

        /// Waits until the screen shows `text`.
        func waitFor(_ text: String) -> Bool { waitUntil { $0.contains(text) } }

        /// Ends the server and what runs in it (by their process ids too: the server must not
        /// outlive the test whatever tmux makes of the request).
        func stop() {
            let pids = tmux("display-message", "-p", "-t", "t", "#{pid} #{pane_pid}").split(whereSeparator: \.isWhitespace).compactMap { Int32($0) }
            tmux("kill-server")
            for pid in pids where pid > 1 { kill(pid, SIGKILL) }
        }
    }

    @Test("Narrowing the window mid-play leaves the transcript once in the scrollback, not its top twice")
    func narrowingKeepsOneCopy() throws {
        let server = Server()
        defer { server.stop() }
        let flow = DocumentedExitStatusTests.root.appendingPathComponent("examples/welcome.json").path
        // The pane starts empty, so the UI starts at its top with blank rows below: the case in
        // which tmux pushes the frame's first rows into its history when it re-wraps.
        server.tmux("new-session", "-d", "-s", "t", "-x", "100", "-y", "30", "exec '\(rocketPath)' play '\(flow)' --instant")
        #expect(server.waitFor("Sure"))
        server.tmux("send-keys", "-t", "t", "Enter")
        #expect(server.waitFor("What's your name?"))
        server.tmux("send-keys", "-t", "t", "Ada", "Enter")
        #expect(server.waitFor("Hello Countess Ada"))
        // The reply bubble sits at the right edge of 100 columns: it re-wraps at 40.
        server.tmux("resize-window", "-t", "t", "-x", "40", "-y", "30")
        // Redrawn at 40 columns: the hint has dropped "Ctrl-C quit", which no longer fits (the
        // re-wrapped old hint still had it).
        #expect(server.waitUntil { $0.contains("Esc Close") && !$0.contains("Ctrl-C") })
        let once = server.everything
        #expect(once.components(separatedBy: "Hi!").count - 1 == 1, "\(once)")
        #expect(once.components(separatedBy: "What's your name?").count - 1 == 1, "\(once)")
        #expect(once.components(separatedBy: "Hello Countess Ada").count - 1 == 1, "\(once)")
    }
}
