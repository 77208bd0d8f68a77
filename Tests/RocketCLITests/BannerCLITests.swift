import RocketTestSupport
import Foundation
import Testing

@Suite("rocket banner")
struct BannerCLITests {
    @Test(
        "Plain mode: a number or a title presses; an empty line taps the banner; end of input swipes",
        arguments: [
            ("1\n", "button:Reply", 0), ("IGNORE\n", "button:Ignore", 0), ("\n", "background", 0), ("", "swipe", 1), ("9\nreply\n", "button:Reply", 0),
        ] as [(String, String, Int32)])
    func plain(input: String, line: String, status: Int32) throws {
        let r = try runRocket(["banner", "New message", "--subtitle", "From Ada", "--button", "Reply", "--button", "Ignore", "--icon", "✉"], stdin: input)
        #expect(r.status == status)
        #expect(r.stdout == "\(line)\n")
        #expect(r.stderr.hasPrefix("✉ [New message] From Ada\n[1] Reply  [2] Ignore\n"))
        if input.hasPrefix("9") { #expect(r.stderr.contains("Not a choice: \"9\"")) }
    }

    @Test("A disabled background tap is refused on stderr and the line is read again; close and timeout", arguments: [true, false])
    func disabledAndClose(close: Bool) throws {
        if close {
            let r = try runRocket(["banner", "x", "--close-button"], stdin: "close\n")
            #expect(r.status == 1 && r.stdout.hasSuffix("close\n"))
        } else {
            let r = try runRocket(["banner", "x", "--no-background-tap", "--button", "OK"], stdin: "\n1\n")
            #expect(r.status == 0 && r.stdout.hasSuffix("button:OK\n"))
            #expect(r.stderr.contains("cannot be opened"))
        }
    }

    @Test("The duration still applies in plain mode")
    func timeout() throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: rocketPath)
        p.arguments = ["banner", "x", "--duration", "0.2", "--plain"]
        let input = Pipe(), output = Pipe()
        p.standardInput = input  // kept open: only the timer can end it
        p.standardOutput = output
        try p.run()
        p.waitUntilExit()
        try input.fileHandleForWriting.close()
        #expect(p.terminationStatus == 1)
        #expect(String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).hasSuffix("timeout\n"))
    }

    @Test("--json prints the result as an object")
    func json() throws {
        let r = try runRocket(["banner", "x", "--button", "OK", "--json"], stdin: "1\n")
        #expect(r.stdout.hasSuffix(#"{"result":"button","tag":1,"title":"OK"}"# + "\n"))
    }

    @Test(
        "Usage errors exit 64",
        arguments: [
            ["banner", "x", "--button", "a", "--button", "b", "--button", "c"], ["banner", "x", "--button", "a", "--close-button"],
            ["banner", "x", "--color", "mauve"], ["banner", "x", "--color", "#12345"], ["banner", "x", "--title-color", "nope"],
            ["banner", "x", "--duration", "-1"], ["banner", "x", "--animation", "bounce"], ["banner"],
        ])
    func usage(args: [String]) throws {
        let r = try runRocket(args)
        #expect(r.status == 64 && r.stderr.hasPrefix("rocket: error: "))
    }

    @Test("In a terminal: arrows and Enter press a button; Esc swipes; the terminal is restored")
    func tty() throws {
        let run = try PTYRun(["banner", "Hello", "--button", "Yes", "--button", "No"])
        #expect(run.waitFor("Yes"))
        run.send("\u{1B}[C\r")
        #expect(run.waitForExit() == 0)
        #expect(String(decoding: run.raw, as: UTF8.self).contains("button:No"))
        #expect(run.terminalRestored)
        let swipe = try PTYRun(["banner", "Hello"], environment: ["ROCKET_REDUCED_MOTION": "1"])
        #expect(swipe.waitFor("Hello"))
        swipe.send([0x1B])
        #expect(swipe.waitForExit() == 1)
        #expect(String(decoding: swipe.raw, as: UTF8.self).contains("swipe"))
    }
}

@Suite("Banners during rocket play")
struct FlowBannerCLITests {
    @Test("Plain mode prints the banner first; in a terminal Ctrl-X dismisses it and the event is logged")
    func flowBanner() throws {
        let dir = scratchDirectory()
        write(
            #"""
            {"version": 1, "banner": {"title": "Heads up", "subtitle": "Maintenance at noon", "icon": "🔧"},
             "blocks": [{"id": "a", "type": "text", "text": "Hello"}]}
            """#, to: dir + "/f.json")
        let plain = try runRocket(["play", dir + "/f.json"], stdin: "\n")
        #expect(plain.stderr == "🔧 [Heads up] Maintenance at noon\nRocket: Hello\n" && plain.stdout.isEmpty)
        let run = try PTYRun(["play", dir + "/f.json", "--events", dir + "/e.jsonl"], environment: ["ROCKET_REDUCED_MOTION": "1"])
        #expect(run.waitFor("Heads up"))
        #expect(run.screen.lines.firstIndex { $0.contains("Heads up") }! < run.screen.lines.firstIndex { $0.contains("Hello") }!)
        run.send([0x18])  // Ctrl-X
        #expect(run.waitUntil { !run.screen.lines.contains { $0.contains("Heads up") } })
        run.send("\r")
        #expect(run.waitForExit() == 0)
        #expect(withoutTimes(try String(contentsOfFile: dir + "/e.jsonl", encoding: .utf8)).contains(#"{"event":"banner","result":"swipe"}"#))
    }
}

@Suite("rocket banner reads its flags through the banner codec")
struct BannerFlagCodecTests {
    @Test("Durations in the one syntax; empty titles and icons refused; data URIs are pictures")
    func flags() throws {
        #expect(try runRocket(["banner", "Saved", "--plain", "--duration", "5s"], stdin: "\n").status != 64)
        #expect(try runRocket(["banner", "Saved", "--plain", "--duration", "500ms"], stdin: "\n").status != 64)
        let empty = try runRocket(["banner", "Saved", "--plain", "--button", ""], stdin: "\n")
        #expect(empty.status == 64 && empty.stderr.contains("--button"))
        #expect(try runRocket(["banner", "Saved", "--plain", "--icon", ""], stdin: "\n").status == 64)
        #expect(try runRocket(["banner", " ", "--plain"], stdin: "\n").status == 64)
        let three = try runRocket(["banner", "Saved", "--plain", "--button", "A", "--button", "B", "--button", "C"], stdin: "\n")
        #expect(three.status == 64 && three.stderr.contains("at most two"))
    }
}
