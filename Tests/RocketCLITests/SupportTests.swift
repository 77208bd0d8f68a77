import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The helpers every command-line test runs `rocket` through.
@Suite("Running programs from tests")
struct SupportTests {
    @Test("a program that leaves a process running behind it is seen to end when it ends, with its status")
    func leftBehind() throws {
        // The shell starts a long sleep in the background (which inherits what the shell had)
        // and exits 3 at once.
        let r = try runProgram("/bin/sh", ["-c", "sleep 600 & echo $!; exit 3"])
        let pid = try #require(pid_t(r.stdout.trimmingCharacters(in: .whitespacesAndNewlines)))
        defer { kill(pid, SIGKILL) }
        #expect(r.status == 3)
        #expect(kill(pid, 0) == 0, "the sleep still runs: the shell's end was seen without waiting for it")
    }
}
