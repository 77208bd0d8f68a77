import CTestSupport
import Foundation
import Testing
#if canImport(Glibc)
    import Glibc
#endif

/// Files a flow or a command names may be anything: a device, a FIFO, a picture whose header
/// lies. Each is refused at once with a message, in bounded memory.
@Suite("Hostile files: devices, FIFOs, lying headers", .serialized)
struct HostileFileTests {
    /// Runs rocket as a child; its exit status, stdout and peak RSS in KiB (wait4's ru_maxrss,
    /// the child's own).
    func measured(_ args: [String]) -> (status: Int32, stdout: String, maxRSS: Int) {
        let dir = scratchDirectory()
        let out = dir + "/out.txt"
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, out, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        var cArgs = ([rocketPath] + args).map { strdup($0) } + [nil]
        defer { for a in cArgs { free(a) } }
        var pid = pid_t()
        guard posix_spawn(&pid, rocketPath, &actions, nil, &cArgs, environ) == 0 else { return (-1, "", 0) }
        var status: Int32 = 0
        var usage = rusage()
        while wait4(pid, &status, 0, &usage) < 0 && errno == EINTR {}
        let text = (try? String(contentsOfFile: out, encoding: .utf8)) ?? ""
        return ((status >> 8) & 0xFF, text, Int(usage.ru_maxrss))
    }

    @Test("A progressive JPEG whose header claims 30000×30000 is refused before any pixel or coefficient buffer is allocated")
    func lyingJPEGHeader() throws {
        let dir = scratchDirectory()
        let rgb = [UInt8](repeating: 128, count: 16 * 16 * 3)
        var out: UnsafeMutablePointer<UInt8>?
        let size = rocket_test_jpeg_mode(rgb, 16, 16, 1, &out)
        try #require(size > 0)
        var bytes = Array(UnsafeBufferPointer(start: out, count: Int(size)))
        free(out)
        // SOF2 (progressive): FF C2, length, precision, then height and width.
        let sof = try #require((0..<(bytes.count - 9)).first { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xC2 })
        for k in [5, 7] {
            bytes[sof + k] = 0x75
            bytes[sof + k + 1] = 0x30
        }
        try Data(bytes).write(to: URL(fileURLWithPath: dir + "/big.jpg"))
        write(#"{"version": 1, "blocks": [{"id": "a", "type": "image", "image": "big.jpg"}]}"#, to: dir + "/f.json")
        let r = measured(["lint", dir + "/f.json"])
        #expect(r.status == 65)
        #expect(r.stdout.contains("is not a PNG or JPEG picture: the image has too many pixels"), "\(r.stdout)")
        #expect(!r.stdout.contains("ImageError"), "the reason, not a dump of the error value")
        #expect(r.maxRSS < 100_000, "peak RSS \(r.maxRSS) KiB")
    }

    @Test("A device or a FIFO as a picture, a state file or an import is refused at once, never read or waited on")
    func devicesAndFIFOs() throws {
        let dir = scratchDirectory()
        try #require(mkfifo(dir + "/pipe.png", 0o600) == 0)
        try #require(mkfifo(dir + "/state.json", 0o600) == 0)
        write(
            #"{"version": 1, "blocks": [{"id": "a", "type": "image", "image": "/dev/zero", "next": "b"}, {"id": "b", "type": "image", "image": "pipe.png"}]}"#,
            to: dir + "/f.json")
        let lint = measured(["lint", dir + "/f.json"])
        #expect(lint.status == 65)
        #expect(lint.stdout.contains(#"the image "/dev/zero" cannot be read: not a regular file"#), "\(lint.stdout)")
        #expect(lint.stdout.contains(#"the image "pipe.png" cannot be read: not a regular file"#), "\(lint.stdout)")
        #expect(lint.maxRSS < 100_000)
        let flow = DocumentedExitStatusTests.root.appendingPathComponent("examples/choice.json").path
        for state in ["/dev/zero", "/dev/urandom", dir + "/state.json"] {
            let play = try runRocket(["play", flow, "--state", state], stdin: "")
            #expect(play.status == 66 && play.stderr.contains("not a regular file"), "\(state): \(play.stderr)")
        }
        let imported = try runRocket(["scenario", "import", "/dev/zero", "--store", dir + "/s.sqlite"])
        #expect(imported.status != 0 && imported.stderr.contains("not a regular file"), "\(imported.stderr)")
    }
}
