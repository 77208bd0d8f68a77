import Foundation
import RocketPlatform
import RocketTestSupport
import Testing
import Synchronization

/// How rocket writes a whole file in place of another (`FileIO.writeAtomically`).
@Suite("A file written whole: never through a planted link, never readable by more than it was")
struct FileWriteTests {
    func mode(_ path: String) -> mode_t {
        var st = stat()
        return stat(path, &st) == 0 ? st.st_mode & 0o7777 : 0
    }

    @Test("writeAll waits for a descriptor left non-blocking to take more, instead of failing with EAGAIN")
    func nonBlocking() throws {
        var fds: [Int32] = [-1, -1]
        #expect(pipe(&fds) == 0)
        _ = fcntl(fds[1], F_SETFL, fcntl(fds[1], F_GETFL) | O_NONBLOCK)
        let bytes = [UInt8](repeating: 7, count: 300_000)  // several times a pipe's 64 KiB
        let reader = fds[0]
        let received = Mutex(0)
        let drained = Thread {
            var buffer = [UInt8](repeating: 0, count: 1 << 16)
            while true {
                let n = buffer.withUnsafeMutableBytes { read(reader, $0.baseAddress!, $0.count) }
                if n <= 0 { break }
                received.withLock { $0 += n }
            }
        }
        drained.start()
        #expect(FileIO.writeAll(fds[1], bytes) == nil)
        close(fds[1])
        while !drained.isFinished { usleep(1_000) }
        #expect(received.withLock { $0 } == bytes.count)
        close(fds[0])
    }

    @Test("A link planted under the temporary name is not followed: the file it names keeps its bytes")
    func plantedLink() throws {
        let dir = newScratchDirectory("write")
        let victim = dir + "/victim.txt", target = dir + "/page.html"
        try "mine".write(toFile: victim, atomically: false, encoding: .utf8)
        #expect(symlink(victim, target + ".tmp-\(getpid())") == 0)
        guard case .success = FileIO.writeAtomically("page", to: target, access: .umask) else {
            Issue.record("the write failed")
            return
        }
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == "mine", "the planted link was followed")
        #expect(try String(contentsOfFile: target, encoding: .utf8) == "page")
    }

    @Test("A private file written again stays private, and a shared one shared; a new one follows its access")
    func modes() throws {
        let dir = newScratchDirectory("write")
        let page = dir + "/page.html"
        _ = FileIO.writeAtomically("one", to: page, access: .umask)
        #expect(chmod(page, 0o600) == 0)
        _ = FileIO.writeAtomically("two", to: page, access: .umask)
        #expect(mode(page) == 0o600, "not widened to the umask's")
        #expect(chmod(page, 0o644) == 0)
        _ = FileIO.writeAtomically("three", to: page, access: .owner)
        #expect(mode(page) == 0o644, "not narrowed either: the person's choice stands")
        let state = dir + "/state.json"
        _ = FileIO.writeAtomically("{}", to: state, access: .owner)
        #expect(mode(state) == 0o600)
    }
}
