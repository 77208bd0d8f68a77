import Foundation
import Testing

/// `scripts/install-deps.sh`, the one script both set-up commands and CI run: it names what is
/// missing and why, and when it cannot install it says so and exits 69 (never a half-done set-up
/// that looks fine).
@Suite("The install script")
struct InstallDepsTests {
    static let script = DocumentedExitStatusTests.root.appendingPathComponent("scripts/install-deps.sh").path

    /// Runs the script with `sh` under `environment` (nothing else of ours), as `user` when given.
    func run(_ args: [String], environment: [String: String], user: String? = nil) throws -> RunResult {
        if let user {
            return try runProgram(
                "/usr/bin/setpriv", ["--reuid=\(user)", "--regid=\(user)", "--clear-groups", "/bin/sh", Self.script] + args, environment: environment)
        }
        return try runProgram("/bin/sh", [Self.script] + args, environment: environment)
    }

    @Test("With everything there it changes nothing and says so")
    func nothingMissing() throws {
        let r = try run([], environment: ["PATH": "/usr/bin:/bin"])
        #expect(r.status == 0 && r.stderr.contains("ok: everything needed is installed") && !r.stderr.contains("installing"))
    }

    @Test("Not root and no sudo: it names each missing package and why, and exits 69", .enabled(if: getuid() == 0, "needs root to become nobody"))
    func notRoot() throws {
        let empty = scratchDirectory()
        let r = try run([], environment: ["PATH": "/usr/bin:/bin", "INSTALL_DEPS_ROOT": empty], user: "65534")
        #expect(r.status == 69)
        #expect(r.stderr.contains("needs libpcre2-dev (bounded validation patterns)") && r.stderr.contains("needs libmicrohttpd-dev (rocket serve)"))
        #expect(r.stderr.contains("this needs root") && r.stderr.contains("apt-get install"))
    }

    @Test("No apt-get: it says to use the system's package manager, and exits 69")
    func noAptGet() throws {
        let empty = scratchDirectory(), bin = scratchDirectory()
        // A PATH with the few tools the script uses, and no apt-get.
        for tool in ["id", "sed"] {
            try FileManager.default.createSymbolicLink(atPath: bin + "/" + tool, withDestinationPath: "/usr/bin/" + tool)
        }
        let r = try run([], environment: ["PATH": bin, "INSTALL_DEPS_ROOT": empty])
        #expect(r.status == 69 && r.stderr.contains("there is no apt-get"), "\(r.stderr)")
    }

    @Test("--bench asks for the tests' packages and wrk; --help prints the whole header, no code")
    func benchAndHelp() throws {
        let empty = scratchDirectory(), bin = scratchDirectory()
        for tool in ["id", "sed"] {
            try FileManager.default.createSymbolicLink(atPath: bin + "/" + tool, withDestinationPath: "/usr/bin/" + tool)
        }
        let r = try run(["--bench"], environment: ["PATH": bin, "INSTALL_DEPS_ROOT": empty])
        #expect(r.status == 69 && r.stderr.contains("needs wrk (the server's benchmark)") && r.stderr.contains("needs tmux"), "\(r.stderr)")
        let tests = try run(["--tests"], environment: ["PATH": bin, "INSTALL_DEPS_ROOT": empty])
        #expect(tests.status == 69 && !tests.stderr.contains("wrk"), "\(tests.stderr)")
        let help = try run(["--help"], environment: ["PATH": "/usr/bin:/bin"])
        #expect(help.status == 0 && help.stdout.hasPrefix("Installs what RocketAlert needs"))
        #expect(help.stdout.contains("wrk") && help.stdout.contains("--bench") && !help.stdout.contains("set -eu"))
    }

    @Test("An unknown argument is a usage error")
    func usage() throws {
        #expect(try run(["--test"], environment: ["PATH": "/usr/bin:/bin"]).status == 64)
    }
}
