import CTestSupport
import Foundation
import Testing
#if canImport(Glibc)
    import Glibc
#endif

/// Files a flow or a command names may be anything: a device, a FIFO, a picture whose header
/// lies. Each is refused at once with a message, in bounded memory.
@Suite(
    "Hostile files: devices, FIFOs, lying headers",
    .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/prlimit"), "util-linux's prlimit is missing"))
struct HostileFileTests {
    /// The address space rocket is run in here: 1 GiB, far above what any of these needs and far
    /// below what reading or decoding them unbounded would take (a memory figure of the child
    /// itself; wait4's includes what it shares with the test process).
    static let addressSpace = "1073741824"

    /// Runs rocket under `prlimit --as`; its exit status and stdout.
    func bounded(_ args: [String]) throws -> RunResult {
        try runRocket(["--as=" + Self.addressSpace, "--", rocketPath] + args, executable: "/usr/bin/prlimit")
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
        let r = try bounded(["lint", dir + "/f.json"])
        #expect(r.status == 65)
        #expect(r.stdout.contains("the image \"big.jpg\" is a JPEG that cannot be decoded: the image has too many pixels"), "\(r.stdout)")
        #expect(!r.stdout.contains("ImageError"), "the reason, not a dump of the error value")
    }

    @Test("A device or a FIFO as a picture, a state file or an import is refused at once, never read or waited on")
    func devicesAndFIFOs() throws {
        let dir = scratchDirectory()
        try #require(mkfifo(dir + "/pipe.png", 0o600) == 0)
        try #require(mkfifo(dir + "/state.json", 0o600) == 0)
        write(
            #"{"version": 1, "blocks": [{"id": "a", "type": "image", "image": "/dev/zero", "next": "b"}, {"id": "b", "type": "image", "image": "pipe.png"}]}"#,
            to: dir + "/f.json")
        let lint = try bounded(["lint", dir + "/f.json"])
        #expect(lint.status == 65)
        #expect(lint.stdout.contains(#"the image "/dev/zero" cannot be read: not a regular file"#), "\(lint.stdout)")
        #expect(lint.stdout.contains(#"the image "pipe.png" cannot be read: not a regular file"#), "\(lint.stdout)")
        let flow = DocumentedExitStatusTests.root.appendingPathComponent("examples/choice.json").path
        for state in ["/dev/zero", "/dev/urandom", dir + "/state.json"] {
            let play = try runRocket(["play", flow, "--state", state], stdin: "")
            #expect(play.status == 66 && play.stderr.contains("not a regular file"), "\(state): \(play.stderr)")
        }
        let imported = try runRocket(["scenario", "import", "/dev/zero", "--store", dir + "/s.sqlite"])
        #expect(imported.status != 0 && imported.stderr.contains("not a regular file"), "\(imported.stderr)")
    }

    @Test("A store that is a folder, a device or a FIFO is refused at once as not a regular file, by the server and the scenario commands")
    func storesThatAreNoFiles() throws {
        let dir = scratchDirectory()
        try #require(mkfifo(dir + "/store.fifo", 0o600) == 0)
        try FileManager.default.createDirectory(atPath: dir + "/flows", withIntermediateDirectories: true)
        for store in [dir, "/dev/null", "/dev/zero", dir + "/store.fifo"] {
            let serve = try bounded(["serve", "--port", "0", "--flows", dir + "/flows", "--store", store])
            #expect(serve.status == 74, "\(store): \(serve.status)")
            #expect(serve.stderr.contains("\(store)") && serve.stderr.contains("not a regular file"), "\(store): \(serve.stderr)")
            let status = try bounded(["scenario", "status", "launch", "--store", store])
            #expect(status.status != 0 && status.stderr.contains("not a regular file"), "\(store): \(status.stderr)")
        }
    }
}
