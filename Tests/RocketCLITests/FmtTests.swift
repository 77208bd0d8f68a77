import Foundation
import RocketTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

@Suite("rocket fmt")
struct FmtTests {
    static let messy =
        #"{"version":1,"blocks":[{"id":"a","type":"text","text":"caf\u00e9 1.50","showNextAfter":1.50,"next":"b"},{"id":"b","type":"text","text":"Bye"}]}"#

    @Test("lays out files in place (printing the ones changed), keeps their mode and values, and a second run changes nothing")
    func inPlace() throws {
        let dir = scratchDirectory()
        write(Self.messy, to: dir + "/a.json")
        chmod(dir + "/a.json", 0o640)
        write("{\n  \"cases\": []\n}\n", to: dir + "/a.test.json")
        let first = try runRocket(["fmt", dir])
        #expect(first.status == 0 && first.stdout == dir + "/a.json\n", "\(first.stdout)\(first.stderr)")
        let text = try String(contentsOfFile: dir + "/a.json", encoding: .utf8)
        #expect(
            text == """
                {
                  "version": 1,
                  "blocks": [
                    {"id": "a", "type": "text", "text": "caf\\u00e9 1.50", "showNextAfter": 1.50, "next": "b"},
                    {"id": "b", "type": "text", "text": "Bye"}
                  ]
                }

                """, "\(text)")
        var st = stat()
        stat(dir + "/a.json", &st)
        #expect(st.st_mode & 0o777 == 0o640, "the file keeps its mode")
        let again = try runRocket(["fmt", dir + "/a.json", dir + "/a.test.json"])
        #expect(again.status == 0 && again.stdout.isEmpty)
        #expect(try runRocket(["lint", dir + "/a.json"]).status == 0)
    }

    @Test("--check changes nothing: it names the files not laid out and exits 1; standard input goes to standard output")
    func check() throws {
        let dir = scratchDirectory()
        write(Self.messy, to: dir + "/a.json")
        let checked = try runRocket(["fmt", "--check", dir + "/a.json"])
        #expect(checked.status == 1 && checked.stdout == dir + "/a.json\n")
        #expect(try String(contentsOfFile: dir + "/a.json", encoding: .utf8) == Self.messy)
        let piped = try runRocket(["fmt", "--width", "40", "-"], stdin: Self.messy)
        #expect(
            piped.status == 0 && piped.stdout.hasPrefix("{\n  \"version\": 1,\n  \"blocks\": [\n    {\"id\": \"a\", \"type\": \"text\",\n"), "\(piped.stdout)")
        #expect(try runRocket(["fmt", "--check", "-"], stdin: piped.stdout.replacingOccurrences(of: "\n", with: "")).status == 1)
        let laid = try runRocket(["fmt", "--check", "-"], stdin: try runRocket(["fmt", "-"], stdin: Self.messy).stdout)
        #expect(laid.status == 0 && laid.stdout.isEmpty)
        // rocket new writes what rocket fmt would.
        let starter = try runRocket(["new", "-"]).stdout
        #expect(try runRocket(["fmt", "--check", "-"], stdin: starter).status == 0)
    }

    @Test("the examples are laid out as rocket fmt lays them out")
    func examplesLaidOut() throws {
        let examples = TestCommandTests.examples
        let r = try runRocket(["fmt", "--check", examples])
        #expect(r.status == 0 && r.stdout.isEmpty, "not laid out (run rocket fmt examples): \(r.stdout)\(r.stderr)")
    }

    @Test("a file that is not JSON is said where, the others are laid out; unreadable files, FIFOs and bad widths are refused")
    func refusals() throws {
        let dir = scratchDirectory()
        write("{\"version\": 1,\n  \"blocks\": [,]}", to: dir + "/bad.json")
        write(Self.messy, to: dir + "/good.json")
        let r = try runRocket(["fmt", dir + "/bad.json", dir + "/good.json"])
        #expect(r.status == 65 && r.stderr.hasPrefix(dir + "/bad.json:2:14: error:"), "\(r.stderr)")
        #expect(r.stdout == dir + "/good.json\n", "the good file is laid out")
        #expect(try String(contentsOfFile: dir + "/bad.json", encoding: .utf8) == "{\"version\": 1,\n  \"blocks\": [,]}")
        #expect(try runRocket(["fmt", dir + "/missing.json"]).status == 66)
        mkfifo(dir + "/fifo.json", 0o600)
        let fifo = try runRocket(["fmt", dir + "/fifo.json"])
        #expect(fifo.status == 66 && fifo.stderr.contains("not a regular file"), "\(fifo.stderr)")
        for width in ["39", "1001", "x", "-5"] {
            let w = try runRocket(["fmt", "--width", width, dir + "/good.json"])
            #expect(w.status == 64 && w.stderr.contains("--width"), "\(width): \(w.stderr)")
        }
    }
}
