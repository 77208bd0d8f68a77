import RocketTestSupport
import Foundation
import Testing
#if canImport(Glibc)
    import Glibc
#endif

/// `rocket play --state FILE`: resumable conversations.
@Suite("rocket play --state", .serialized)
struct StateTests {
    @Test("Plain mode: the snapshot is written as it goes, resumes with the transcript, and goes when the flow ends")
    func resumePlain() throws {
        let dir = scratchDirectory()
        write(tinyFlow, to: dir + "/flow.json")
        let state = dir + "/state.json"
        let first = try runRocket(["play", dir + "/flow.json", "--plain", "--instant", "--state", state], stdin: "\n1\nAda\n")
        #expect(first.status == 1)  // end of input closes it…
        #expect(FileManager.default.fileExists(atPath: state))  // …and the snapshot stays
        let saved = try String(contentsOfFile: state, encoding: .utf8)
        #expect(saved.contains("\"Ada\""))
        let second = try runRocket(["play", dir + "/flow.json", "--plain", "--instant", "--state", state], stdin: "4711\n1\n\n")
        #expect(second.status == 0, "\(second.stderr)")
        #expect(second.stderr.contains("you: Ada"))  // the transcript so far
        #expect(second.stderr.contains("Thanks, Ada!"))  // earlier answers still fill placeholders
        #expect(!FileManager.default.fileExists(atPath: state))
    }

    @Test("A symbolic link as --state is written through and kept; temporaries of killed writers are removed at the next write")
    func linksAndLeftovers() throws {
        let dir = scratchDirectory()
        write(tinyFlow, to: dir + "/flow.json")
        let fm = FileManager.default
        try fm.createDirectory(atPath: dir + "/real", withIntermediateDirectories: true)
        try fm.createSymbolicLink(atPath: dir + "/state.json", withDestinationPath: "real/state.json")
        // Left by writers killed before their rename: a process that no longer runs, and one that does.
        let probe = Process()
        probe.executableURL = URL(fileURLWithPath: "/bin/true")
        try probe.run()
        probe.waitUntilExit()
        let dead = probe.processIdentifier  // reaped: no such process now
        write("torn", to: dir + "/real/state.json.tmp-\(dead)")
        write("torn", to: dir + "/state.json.tmp-\(dead)")
        write("alive", to: dir + "/real/state.json.tmp-1")
        let first = try runRocket(["play", dir + "/flow.json", "--plain", "--instant", "--state", dir + "/state.json"], stdin: "\n1\nAda\n")
        #expect(first.status == 1)
        let kind = try fm.attributesOfItem(atPath: dir + "/state.json")[.type] as? FileAttributeType
        #expect(kind == .typeSymbolicLink, "the link stays a link")
        #expect(try String(contentsOfFile: dir + "/real/state.json", encoding: .utf8).contains("\"Ada\""))
        #expect(!fm.fileExists(atPath: dir + "/real/state.json.tmp-\(dead)") && !fm.fileExists(atPath: dir + "/state.json.tmp-\(dead)"))
        #expect(fm.fileExists(atPath: dir + "/real/state.json.tmp-1"), "a running writer's temporary is left alone")
        // Reaching the end removes the snapshot the link names; the link stays for the next run.
        let second = try runRocket(["play", dir + "/flow.json", "--plain", "--instant", "--state", dir + "/state.json"], stdin: "4711\n1\n\n")
        #expect(second.status == 0, "\(second.stderr)")
        #expect(!fm.fileExists(atPath: dir + "/real/state.json"))
        #expect((try? fm.destinationOfSymbolicLink(atPath: dir + "/state.json")) == "real/state.json")
    }

    @Test("Snapshots play wrote are always read back: a 64 KiB answer shown twice resumes")
    func bigStringsResume() throws {
        let dir = scratchDirectory()
        write(
            #"{"version": 1, "blocks": [{"id": "name", "type": "textInput", "text": "Name?", "buttonTitle": "OK", "next": "t"},"#
                + #"{"id": "t", "type": "text", "text": "{{name}} and {{name}}", "next": "end"}, {"id": "end", "type": "text", "text": "The end"}]}"#,
            to: dir + "/f.json")
        let answer = String(repeating: "a", count: 65_536)
        let first = try runRocket(["play", dir + "/f.json", "--plain", "--state", dir + "/s.json"], stdin: answer + "\n")
        #expect(first.status == 1)
        let size = try FileManager.default.attributesOfItem(atPath: dir + "/s.json")[.size] as? Int ?? 0
        #expect(size > 3 * 65_536, "the snapshot holds the answer and the text it filled twice")
        let second = try runRocket(["play", dir + "/f.json", "--plain", "--state", dir + "/s.json"], stdin: "\n\n")
        #expect(second.status == 0, "\(second.stderr.prefix(300))")
        #expect(second.stderr.contains("The end"))
    }

    @Test("A snapshot that leaves the conversation unable to go on is refused (65), not waited on; --instant fires a resumed timer at once")
    func stuckAndTimers() throws {
        let dir = scratchDirectory()
        write(
            #"{"version": 1, "blocks": [{"id": "a", "type": "text", "text": "Hi", "next": "w"},"#
                + #"{"id": "w", "type": "text", "text": "wait", "showNextAfter": "1h", "next": "end"}, {"id": "end", "type": "text", "text": "The end"}]}"#,
            to: dir + "/f.json")
        // Tapped past "Hi": the 1-hour timer is pending, and play waits for it; SIGTERM stops it
        // with the snapshot kept.
        let first = Process()
        first.executableURL = URL(fileURLWithPath: rocketPath)
        first.arguments = ["play", dir + "/f.json", "--plain", "--state", dir + "/s.json"]
        let input = Pipe()
        first.standardInput = input
        first.standardOutput = FileHandle.nullDevice
        first.standardError = FileHandle.nullDevice
        try first.run()
        try input.fileHandleForWriting.write(contentsOf: Data("\n".utf8))
        func timers() -> Int? {
            guard let data = FileManager.default.contents(atPath: dir + "/s.json"),
                let json = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
            else { return nil }
            return (json["timers"] as? [Any])?.count
        }
        var waited = 0
        while timers() != 1 && waited < 200 {
            usleep(50_000)
            waited += 1
        }
        first.terminate()
        first.waitUntilExit()
        #expect(timers() == 1)
        let saved = try Data(contentsOf: URL(fileURLWithPath: dir + "/s.json"))
        var json = try #require(try JSONSerialization.jsonObject(with: saved) as? [String: Any])
        // --instant: the hour is not waited for.
        let instant = try runRocket(["play", dir + "/f.json", "--plain", "--instant", "--state", dir + "/s.json"], stdin: "\n")
        #expect(instant.status == 0 && instant.stderr.contains("The end"), "\(instant.stderr)")
        // Hand-edited: the timer removed, so nothing takes input and nothing is due.
        json["timers"] = [Any]()
        try JSONSerialization.data(withJSONObject: json).write(to: URL(fileURLWithPath: dir + "/s.json"))
        let stuck = try runRocket(["play", dir + "/f.json", "--plain", "--state", dir + "/s.json"], stdin: "\n")
        #expect(stuck.status == 65 && stuck.stderr.contains("cannot go on"), "\(stuck.stderr)")
    }

    @Test("A snapshot of another flow is exit 65 unless --restart; a bad path is exit 74 before anything is drawn")
    func refusals() throws {
        let dir = scratchDirectory()
        write(tinyFlow, to: dir + "/flow.json")
        write(tinyFlow.replacingOccurrences(of: "Hello", with: "Howdy"), to: dir + "/other.json")
        let state = dir + "/state.json"
        _ = try runRocket(["play", dir + "/flow.json", "--plain", "--instant", "--state", state], stdin: "\n")
        let other = try runRocket(["play", dir + "/other.json", "--plain", "--instant", "--state", state], stdin: "\n")
        #expect(other.status == 65 && other.stderr.contains("different flow") && other.stdout.isEmpty)
        let restarted = try runRocket(["play", dir + "/other.json", "--plain", "--instant", "--state", state, "--restart"], stdin: "\n")
        #expect(restarted.status == 1 && restarted.stderr.contains("Howdy"))
        write("{ not json", to: state)
        #expect(try runRocket(["play", dir + "/flow.json", "--plain", "--state", state], stdin: "").status == 65)
        let bad = try runRocket(["play", dir + "/flow.json", "--plain", "--state", dir + "/missing/dir/s.json"], stdin: "\n")
        #expect(bad.status == 74 && bad.stdout.isEmpty)
    }

    @Test(
        "The flow's file edited between runs: the conversation goes on with the version it started with (kept beside the state), says so, and both files go at its end; another flow's file is still refused"
    )
    func editedBetweenRuns() throws {
        let dir = scratchDirectory()
        write(tinyFlow, to: dir + "/flow.json")
        let state = dir + "/state.json"
        let first = try runRocket(["play", dir + "/flow.json", "--plain", "--instant", "--state", state], stdin: "\n1\nAda\n")
        #expect(first.status == 1 && FileManager.default.fileExists(atPath: state + ".flow"))
        // The file changes (another text, one block fewer).
        write(tinyFlow.replacingOccurrences(of: "Hello", with: "Howdy"), to: dir + "/flow.json")
        let second = try runRocket(["play", dir + "/flow.json", "--plain", "--instant", "--state", state], stdin: "4711\n1\n\n")
        #expect(second.status == 0, "\(second.stderr)")
        #expect(second.stderr.contains("the flow changed since this conversation started; it goes on as it began"))
        #expect(second.stderr.contains("Hello") && !second.stderr.contains("Howdy") && second.stderr.contains("Thanks, Ada!"), "\(second.stderr)")
        #expect(!FileManager.default.fileExists(atPath: state) && !FileManager.default.fileExists(atPath: state + ".flow"))
        // The next run is a new conversation of the file as it is.
        let third = try runRocket(["play", dir + "/flow.json", "--plain", "--instant", "--state", state], stdin: "\n")
        #expect(third.stderr.contains("Howdy") && !third.stderr.contains("goes on as it began"))
        // A kept version of another flow (by name) is not taken: 65 as before.
        write(tinyFlow, to: dir + "/other.json")
        let other = try runRocket(["play", dir + "/other.json", "--plain", "--instant", "--state", state], stdin: "\n")
        #expect(other.status == 65 && other.stderr.contains("different flow"), "\(other.stderr)")
        // A kept version that does not make the saved flow (damaged) is not taken either.
        write(tinyFlow, to: dir + "/flow2.json")
        let state2 = dir + "/state2.json"
        _ = try runRocket(["play", dir + "/flow2.json", "--plain", "--instant", "--state", state2], stdin: "\n")
        write("\"flow2\"\n{\"version\": 1, \"blocks\": [{\"id\": \"x\", \"type\": \"text\", \"text\": \"Forged\"}]}", to: state2 + ".flow")
        write(tinyFlow.replacingOccurrences(of: "Hello", with: "Hi there"), to: dir + "/flow2.json")
        let forged = try runRocket(["play", dir + "/flow2.json", "--plain", "--instant", "--state", state2], stdin: "\n")
        #expect(forged.status == 65 && !forged.stderr.contains("Forged"), "\(forged.stderr)")
        // A FIFO where the version is kept is never written into (nothing would read it): 74, at once.
        let state3 = dir + "/state3.json"
        #expect(mkfifo(state3 + ".flow", 0o600) == 0)
        let fifo = try runRocket(["play", dir + "/flow2.json", "--plain", "--instant", "--state", state3], stdin: "\n")
        #expect(fifo.status == 74 && fifo.stderr.contains("not a regular file"), "\(fifo.stderr)")
    }

    @Test("kill -9 at any moment between snapshot writes leaves a snapshot that loads")
    func killNine() throws {
        let dir = scratchDirectory()
        // A long chain of buttons: every line of input is one step, and one snapshot write.
        var blocks: [String] = []
        for i in 0..<400 {
            blocks.append(#"{"id": "b\#(i)", "type": "button", "title": "Step \#(i)", "next": \#(i + 1 < 400 ? "\"b\(i + 1)\"" : "null")}"#)
        }
        write(#"{"version": 1, "blocks": ["# + blocks.joined(separator: ",") + "]}", to: dir + "/long.json")
        let state = dir + "/state.json"
        signal(SIGPIPE, SIG_IGN)  // a child that is already gone must not take the test runner with it
        var rng = SystemRandomNumberGenerator()
        for round in 0..<12 {
            let p = Process()
            p.executableURL = URL(fileURLWithPath: rocketPath)
            p.arguments = ["play", dir + "/long.json", "--plain", "--instant", "--state", state]
            let input = Pipe(), output = Pipe()
            p.standardInput = input
            p.standardOutput = FileHandle.nullDevice
            p.standardError = output  // line mode: the transcript is on stderr
            try p.run()
            // Feed steps; kill right after the program has shown a random number of new steps.
            let target = Int.random(in: 1...25, using: &rng)
            var seen = 0
            var text = ""
            while seen < target {
                try? input.fileHandleForWriting.write(contentsOf: Data("1\n".utf8))
                let chunk = output.fileHandleForReading.availableData
                if chunk.isEmpty { break }
                text += String(decoding: chunk, as: UTF8.self)
                seen = text.components(separatedBy: "Step ").count - 1
            }
            kill(p.processIdentifier, SIGKILL)
            p.waitUntilExit()
            try? input.fileHandleForWriting.close()
            let bytes = try Data(contentsOf: URL(fileURLWithPath: state))
            let resumed = try runRocket(["play", dir + "/long.json", "--plain", "--instant", "--state", state], stdin: "")
            #expect(resumed.status == 1, "round \(round): \(resumed.stderr) \(String(decoding: bytes.prefix(200), as: UTF8.self))")
            let leftovers = try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.contains(".tmp-") }
            for l in leftovers { try? FileManager.default.removeItem(atPath: dir + "/" + l) }
        }
    }

    @Test("In a terminal: Ctrl-C keeps the snapshot; the next run continues at the right block with the earlier answers")
    func resumePTY() throws {
        let dir = scratchDirectory()
        write(tinyFlow, to: dir + "/flow.json")
        let state = dir + "/state.json"
        let run = try PTYRun(["play", dir + "/flow.json", "--instant", "--state", state])
        #expect(run.waitFor("Sure"))
        run.send("\r")
        #expect(run.waitFor("Name?"))
        run.send("Grace\r")
        #expect(run.waitFor("PIN?"))
        run.send([0x03])
        #expect(run.waitForExit() == 130)
        #expect(run.terminalRestored)
        let again = try PTYRun(["play", dir + "/flow.json", "--instant", "--state", state])
        #expect(again.waitFor("PIN?"))
        #expect(again.screen.allLines.contains { $0.contains("Grace") })
        again.send("1234\r")
        #expect(again.waitFor("Enable"))
        again.send("\r")
        #expect(again.waitFor("Thanks, Grace!"))
        again.send("\r")
        #expect(again.waitForExit() == 0)
        #expect(!FileManager.default.fileExists(atPath: state))
    }
}
