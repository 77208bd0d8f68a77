import CTestSupport
import Foundation
import RocketCore
import RocketPostgres
import RocketTestSupport
import Testing

@testable import RocketScenariosPostgres
@testable import RocketScenariosSQLite
@testable import RocketServer

#if canImport(Glibc)
    import Glibc
#endif

/// `rocket serve`'s keys and secrets as an operator sets them up: files, the environment, SIGHUP.
@Suite("rocket serve: site keys, secrets and the public address")
struct ServeAccessTests {
    /// A running `rocket serve` on a free port.
    final class Running {
        let process = Process()
        let port: Int
        let errors: String

        /// `openFiles`: the process's soft and hard limits on open files (set by a shell that
        /// then runs rocket in its place).
        init(_ args: [String], environment: [String: String] = [:], store: String? = nil, flows: String? = nil, openFiles: Int? = nil) throws {
            let dir = scratchDirectory()
            errors = dir + "/stderr"
            _ = FileManager.default.createFile(atPath: errors, contents: nil)
            let flow = #"{"version": 1, "scenario": "tour", "blocks": [{"id": "hi", "type": "text", "text": "Hello"}]}"#
            try flow.write(toFile: dir + "/tour.json", atomically: true, encoding: .utf8)
            let serve = ["serve", "--port", "0", "--flows", flows ?? dir, "--store", store ?? dir + "/s.sqlite"] + args
            if let openFiles {
                process.executableURL = URL(fileURLWithPath: "/bin/sh")
                process.arguments = ["-c", "ulimit -n \(openFiles) && ulimit -Hn \(openFiles) && exec \"$0\" \"$@\"", rocketPath] + serve
            } else {
                process.executableURL = URL(fileURLWithPath: rocketPath)
                process.arguments = serve
            }
            var env = ProcessInfo.processInfo.environment
            for (k, v) in environment { env[k] = v }
            process.environment = env
            let out = Pipe()
            process.standardOutput = out
            process.standardError = FileHandle(forWritingAtPath: errors)
            process.standardInput = FileHandle.nullDevice
            try process.run()
            // The URL is the first line on stdout.
            var line: [UInt8] = []
            let fd = out.fileHandleForReading.fileDescriptor
            var byte: UInt8 = 0
            while read(fd, &byte, 1) == 1, byte != 0x0A { line.append(byte) }
            let url = String(decoding: line, as: UTF8.self)
            guard let last = url.split(separator: ":").last, let p = Int(last.filter(\.isNumber)) else {
                throw CocoaError(.fileReadUnknown)
            }
            port = p
        }

        /// The status of one request with `headers`.
        func status(_ method: String, _ path: String, body: String = "", headers: [String: String] = [:]) -> Int {
            var r = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
            for (k, v) in headers { r += "\(k): \(v)\r\n" }
            if !body.isEmpty { r += "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n" }
            let answer = RawClient.exchange(port: port, r + "\r\n" + body)
            return Int(answer.split(separator: " ").dropFirst().first ?? "") ?? 0
        }

        /// The whole answer to one request.
        func exchange(_ method: String, _ path: String, body: String = "", headers: [String: String] = [:]) -> String {
            var r = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
            for (k, v) in headers { r += "\(k): \(v)\r\n" }
            if !body.isEmpty { r += "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n" }
            return RawClient.exchange(port: port, r + "\r\n" + body)
        }

        /// Stops it with SIGTERM; its exit status.
        func stop() -> Int32 {
            kill(process.processIdentifier, SIGTERM)
            process.waitUntilExit()
            return process.terminationStatus
        }

        var stderr: String { (try? String(contentsOfFile: errors, encoding: .utf8)) ?? "" }
    }

    @Test("rocket serve on a postgresql:// store: two processes share it (a start on one, a tap on the other); the URL's password never reaches the log")
    func postgresStore() throws {
        let base = try TestPostgres.freshDatabase()
        // A password the test cluster does not ask for (it trusts local users), in the URL as an operator writes it.
        let url = base.replacingOccurrences(of: "postgresql:///", with: "postgresql://postgres:s3cret-pa55@/")
        let a = try Running(["--insecure-dev"], store: url), b = try Running(["--insecure-dev"], store: url)
        let started = a.exchange("POST", "/v1/conversations", body: #"{"flow": "tour", "visitor": "ada"}"#)
        #expect(started.hasPrefix("HTTP/1.1 201"), "\(started.prefix(300))")
        let id = try #require(started.range(of: #""id":""#).map { String(started[$0.upperBound...].prefix(32)) })
        #expect(b.status("GET", "/v1/conversations/\(id)", headers: ["Rocket-Visitor": "ada"]) == 200)
        #expect(b.status("GET", "/readyz") == 200)
        #expect(a.stop() == 0 && b.stop() == 0)
        for log in [a.stderr, b.stderr] {
            #expect(log.contains("postgres:***@") && !log.contains("s3cret-pa55"), "\(log)")
        }
        // The records both kept, as a report; a database with no store yet is no input (66).
        let report = try runRocket(["report", "--store", url, "--json", "--min-count", "1"])
        #expect(report.status == 0 && report.stdout.contains(#""flow":"tour""#), "\(report.stdout.prefix(300)) \(report.stderr)")
        let empty = try runRocket(["report", "--store", try TestPostgres.freshDatabase()])
        #expect(empty.status == 66 && empty.stderr.contains("holds no rocket store"), "\(empty.stderr)")
    }

    @Test("the start says which flows cannot be served (their errors, then a count) and which files of the folder are passed over")
    func startSaysBrokenFlows() throws {
        let dir = scratchDirectory()
        write(#"{"version": 1, "blocks": [{"id": "hi", "type": "text", "text": "Hello"}]}"#, to: dir + "/fine.json")
        write(#"{"version": 1, "blocks": ["#, to: dir + "/broken.json")
        write(#"{"version": 1, "blocks": [{"id": "hi", "type": "text", "text": "Hello"}]}"#, to: dir + "/onboarding.v2.json")
        let server = try Running(["--insecure-dev"], flows: dir)
        var log = ""
        for _ in 0..<200 where !log.contains("cannot be served until fixed") {
            log = (try? String(contentsOfFile: server.errors, encoding: .utf8)) ?? ""
            if !log.contains("cannot be served until fixed") { usleep(25_000) }
        }
        #expect(log.contains("rocket serve: flow broken: broken.json:1:"), "\(log)")
        #expect(log.contains("rocket serve: 1 of 2 flow(s) cannot be served until fixed (errors above; rocket lint): broken\n"), "\(log)")
        #expect(log.contains("onboarding.v2.json is not offered"), "\(log)")
        // Still served: the others, and the broken one's start says why it is not.
        #expect(server.status("POST", "/v1/conversations", body: #"{"flow": "fine", "visitor": "ada"}"#) == 201)
        #expect(server.status("POST", "/v1/conversations", body: #"{"flow": "broken", "visitor": "ada"}"#) == 500)
        #expect(server.stop() == 0)
    }

    @Test(
        "rocket results reads what ended conversations were answered from a running server's store (SQLite and PostgreSQL), after a seq",
        arguments: [false, true])
    func results(postgres: Bool) throws {
        let store = postgres ? try TestPostgres.freshDatabase() : scratchDirectory() + "/r.sqlite"
        let server = try Running(["--insecure-dev"], store: store)
        let ended = try ["ada", "bo"].map { try endTour(server, visitor: $0) }
        // The tap ends each after its bounce (a change of its own, on the server's clock).
        for (id, visitor) in zip(ended, ["ada", "bo"]) {
            var view = ""
            for _ in 0..<100 where !view.contains(#""status":"dismissed""#) {
                view = server.exchange("GET", "/v1/conversations/\(id)", headers: ["Rocket-Visitor": visitor])
                if !view.contains(#""status":"dismissed""#) { usleep(50_000) }
            }
            #expect(view.contains(#""answers":{}"#), "\(view.suffix(300))")
        }
        let all = try runRocket(["results", "--store", store])
        #expect(all.status == 0, "\(all.stderr)")
        let lines = all.stdout.split(separator: "\n").map(String.init)
        #expect(
            lines.count == 2 && lines.allSatisfy { $0.contains(#""reason":"completed","variant":"","answers":{}"#) }, "\(all.stdout)")
        #expect(ended.allSatisfy { id in lines.contains { $0.contains(id) } })
        let seq = try #require(lines.first?.range(of: #""seq":"#).map { Int(lines[0][$0.upperBound...].prefix { $0.isNumber }) ?? 0 })
        let later = try runRocket(["results", "--store", store, "--after", "\(seq)"])
        #expect(later.stdout.split(separator: "\n").count == 1 && later.stdout.contains(ended[1]), "\(later.stdout)")
        let other = try runRocket(["results", "--store", store, "--flow", "tuor"])
        #expect(other.stdout.isEmpty && other.status == 0)
        // Nothing of that flow: said on stderr, with the flows the results hold and the nearest.
        #expect(
            other.stderr == "rocket results: no results of flow \"tuor\"; did you mean \"tour\"? (the results hold \"tour\")\n", "\(other.stderr)")
        let csv = try runRocket(["results", "--store", store, "--flow", "zzz", "--csv"])
        #expect(csv.stderr == "rocket results: no results of flow \"zzz\" (the results hold \"tour\")\n", "\(csv.stderr)")
        #expect(try runRocket(["results", "--store", store, "--flow", "tour"]).stderr.isEmpty)
        // A window of ends: the last hour holds both; before it, none (said, with the window).
        let lastHour = try runRocket(["results", "--store", store, "--since", "1h"])
        #expect(lastHour.status == 0 && lastHour.stdout == all.stdout && lastHour.stderr.isEmpty, "\(lastHour.stderr)")
        let before = try runRocket(["results", "--store", store, "--until", "1h", "--flow", "tour"])
        #expect(before.status == 0 && before.stdout.isEmpty, "\(before.stdout)")
        #expect(
            before.stderr.hasPrefix("rocket results: no results of flow \"tour\" ended before 20") && !before.stderr.contains("did you mean"),
            "a flow the results hold is no typo: \(before.stderr)")
        let old = try runRocket(["results", "--store", store, "--since", "2000-01-01", "--until", "2000-01-02", "--csv"])
        #expect(old.status == 0 && old.stderr == "rocket results: no results ended from 2000-01-01 to 2000-01-02\n", "\(old.stderr)")
        let csvHour = try runRocket(["results", "--store", store, "--since", "1h", "--csv"])
        #expect(csvHour.stdout.split(separator: "\r\n").count == 3, "\(csvHour.stdout)")
        for bad in [["--since", "yesterday"], ["--until", "1h", "--follow"], ["--since", "1h", "--until", "2h"]] {
            let r = try runRocket(["results", "--store", store] + bad)
            #expect(r.status == 64 && r.stderr.contains("--"), "\(bad): \(r.stderr)")
        }
        #expect(try runRocket(["results", "--store", store, "--after", "-1"]).status == 64)
        #expect(try runRocket(["results"]).status == 64)
        #expect(server.stop() == 0)
        #expect(try runRocket(["results", "--store", scratchDirectory() + "/none.sqlite"]).status == 66)
        // A FIFO is never opened (it would wait for a writer): said as a store that cannot be read.
        let fifo = scratchDirectory() + "/fifo"
        #expect(mkfifo(fifo, 0o600) == 0)
        let refused = try runRocket(["results", "--store", fifo])
        #expect(refused.status == 65 && refused.stderr.contains("cannot be read") && refused.stderr.contains("not a regular file"), "\(refused.stderr)")
    }

    /// Starts the tour flow for `visitor` on `server` and taps it (the bubble takes a tap once
    /// it is shown, after the intro, on the server's clock); its id. The tap ends it after its
    /// bounce, a change of its own.
    func endTour(_ server: Running, visitor: String) throws -> String {
        let started = server.exchange("POST", "/v1/conversations", body: #"{"flow": "tour", "visitor": "\#(visitor)", "reducedMotion": true}"#)
        let id = try #require(started.range(of: #""id":""#).map { String(started[$0.upperBound...].prefix(32)) })
        var tapped = 0
        for _ in 0..<100 where tapped != 200 {
            tapped = server.status("POST", "/v1/conversations/\(id)/intents", body: #"{"intent": "tap"}"#, headers: ["Rocket-Visitor": visitor])
            if tapped != 200 { usleep(50_000) }
        }
        #expect(tapped == 200)
        return id
    }

    @Test("rocket starts with no signal blocked, whatever its parent blocked: SIGTERM ends a follower started with it blocked")
    func inheritedSignalMask() throws {
        let store = scratchDirectory() + "/m.sqlite"
        #expect(try runRocket(["scenario", "trigger", "x", "--store", store]).status == 0)
        // Python blocks SIGTERM and SIGINT, then becomes rocket (the mask goes through exec).
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = [
            "python3", "-c",
            "import os, signal, sys; signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM, signal.SIGINT}); os.execv(sys.argv[1], sys.argv[1:])",
            rocketPath, "results", "--store", store, "--follow",
        ]
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try p.run()
        // Once it is rocket (its command line says so), SIGTERM ends it.
        for _ in 0..<200 {
            let cmdline = (try? String(contentsOfFile: "/proc/\(p.processIdentifier)/cmdline", encoding: .utf8)) ?? ""
            if cmdline.contains("--follow") && !cmdline.contains("python3") { break }
            usleep(10_000)
        }
        usleep(100_000)  // past its first page, into its wait
        kill(p.processIdentifier, SIGTERM)
        for _ in 0..<100 where p.isRunning { usleep(50_000) }
        let ended = !p.isRunning
        if !ended { kill(p.processIdentifier, SIGKILL) }
        p.waitUntilExit()
        #expect(ended && p.terminationReason == .uncaughtSignal && p.terminationStatus == SIGTERM)
    }

    @Test(
        "rocket results --server and rocket report --server read the same results and report through GET /v1/results and /v1/report with a site key; a wrong key is 77, no server 69"
    )
    func resultsFromServer() throws {
        let dir = scratchDirectory()
        let key = "results-reader-key-0123456789"
        try "# the site's key\n\(key)\n".write(toFile: dir + "/keys", atomically: true, encoding: .utf8)
        chmod(dir + "/keys", 0o600)
        let store = dir + "/r.sqlite"
        let server = try Running(["--insecure-dev", "--api-key-file", dir + "/keys"], store: store)
        for visitor in ["ada", "bo"] { _ = try endTourStored(server, store: store, visitor: visitor) }
        let fromStore = try runRocket(["results", "--store", store])
        let url = "http://127.0.0.1:\(server.port)"
        let fromServer = try runRocket(["results", "--server", url, "--key-file", dir + "/keys"])
        #expect(fromServer.status == 0 && fromServer.stdout == fromStore.stdout, "\(fromServer.stdout) \(fromServer.stderr)")
        #expect(fromServer.stdout.split(separator: "\n").count == 2)
        let fromEnvironment = try runRocket(["results", "--server", url + "/", "--csv"], environment: ["ROCKET_API_KEY": key])
        let csvFromStore = try runRocket(["results", "--store", store, "--csv"])
        #expect(fromEnvironment.status == 0 && fromEnvironment.stdout == csvFromStore.stdout, "\(fromEnvironment.stderr)")
        // A window goes to the server as the instants this command counted.
        let windowed = try runRocket(["results", "--server", url, "--key-file", dir + "/keys", "--since", "1h", "--until", "2099-01-01"])
        #expect(windowed.status == 0 && windowed.stdout == fromStore.stdout, "\(windowed.stderr)")
        let none = try runRocket(["results", "--server", url, "--key-file", dir + "/keys", "--until", "1h"])
        #expect(none.status == 0 && none.stdout.isEmpty && none.stderr.hasPrefix("rocket results: no results ended before "), "\(none.stderr)")
        // The report of the server's records, as the store's own in every format (the JSON read
        // back and printed again), its window counted here.
        for format in [["--format", "text"], ["--format", "markdown"], ["--json"], ["--html", "-"], ["--since", "2000-01-01", "--by", "day", "--json"]] {
            let remote = try runRocket(["report", "--server", url, "--key-file", dir + "/keys", "--min-count", "1"] + format, environment: ["COLUMNS": "120"])
            let local = try runRocket(["report", "--store", store, "--min-count", "1"] + format, environment: ["COLUMNS": "120"])
            #expect(
                remote.status == 0 && remote.stdout == local.stdout && !remote.stdout.isEmpty, "\(format): \(remote.stderr)\n\(remote.stdout)\n\(local.stdout)")
        }
        let old = try runRocket(["report", "--server", url, "--key-file", dir + "/keys", "--since", "2000-01-01", "--until", "2000-01-02"])
        #expect(old.status == 0 && old.stdout.contains("No conversations began from 2000-01-01 to 2000-01-02"), "\(old.stdout) \(old.stderr)")
        let typo = try runRocket(["report", "--server", url, "--key-file", dir + "/keys", "--flow", "tuor"])
        #expect(
            typo.status == 0 && typo.stderr.contains("no conversations of flow \"tuor\"") && typo.stderr.contains("did you mean \"tour\"?"), "\(typo.stderr)")
        let tour = try runRocket(["report", "--server", url, "--key-file", dir + "/keys", "--flow", "tour", "--against", "a b/c&d", "--min-count", "1"])
        #expect(tour.status == 0 && tour.stdout.contains("tour") && tour.stderr.contains("has no variant \"a b/c&d\""), "\(tour.stdout) \(tour.stderr)")
        // The server refuses another key: 77, said.
        try "another-key-0123456789abcdef\n".write(toFile: dir + "/wrong", atomically: true, encoding: .utf8)
        let refused = try runRocket(["results", "--server", url, "--key-file", dir + "/wrong"])
        #expect(refused.status == 77 && refused.stderr.contains("401"), "\(refused.stderr)")
        let refusedReport = try runRocket(["report", "--server", url, "--key-file", dir + "/wrong"])
        #expect(refusedReport.status == 77 && refusedReport.stderr.contains("401"), "\(refusedReport.stderr)")
        // An address that answers something else than a report: 65, said.
        let notReport = try runRocket(["report", "--server", url + "/widget.js#", "--key-file", dir + "/keys"])
        #expect(notReport.status != 0 && !notReport.stderr.isEmpty, "\(notReport.stderr)")
        #expect(try runRocket(["report", "--server", url, "--store", store, "--key-file", dir + "/keys"]).status == 64)
        #expect(try runRocket(["report", "--store", store, "--key-file", dir + "/keys"]).status == 64)
        #expect(try runRocket(["report", "some.jsonl", "--server", url, "--key-file", dir + "/keys"]).status == 64)
        #expect(server.stop() == 0)
        #expect(try runRocket(["results", "--server", url, "--key-file", dir + "/keys"]).status == 69)
        #expect(try runRocket(["report", "--server", url, "--key-file", dir + "/keys"]).status == 69)
        // Wrong setups are usage errors.
        #expect(try runRocket(["results", "--server", url, "--store", store, "--key-file", dir + "/keys"]).status == 64)
        #expect(try runRocket(["results", "--server", url], environment: ["ROCKET_API_KEY": ""]).status == 64)
        #expect(try runRocket(["results", "--server", "ftp://x/", "--key-file", dir + "/keys"]).status == 64)
        #expect(try runRocket(["results", "--store", store, "--key-file", dir + "/keys"]).status == 64)
    }

    /// ``endTour(_:visitor:)``, then waits until the result is in `store` (the end is saved after
    /// the tap's bounce, a change of its own): its id.
    func endTourStored(_ server: Running, store: String, visitor: String) throws -> String {
        let id = try endTour(server, visitor: visitor)
        for _ in 0..<100 where !(try runRocket(["results", "--store", store]).stdout.contains(id)) { usleep(50_000) }
        #expect(try runRocket(["results", "--store", store]).stdout.contains(id))
        return id
    }

    @Test("rocket results --follow prints each result as the store writes it, and ends once nobody reads its output")
    func resultsFollow() throws {
        let store = scratchDirectory() + "/f.sqlite"
        let server = try Running(["--insecure-dev"], store: store)
        let first = try endTour(server, visitor: "ada")
        let follower = Process()
        follower.executableURL = URL(fileURLWithPath: rocketPath)
        follower.arguments = ["results", "--store", store, "--follow"]
        // Its output pipe is made close-on-exec: a child another test starts meanwhile (a
        // database, a server) must not keep its read end, or closing ours would leave it a
        // reader and it would never see that nobody reads.
        var ends: [Int32] = [0, 0]
        #expect(rocket_test_pipe(&ends) == 0)
        let fd = ends[0]
        follower.standardOutput = FileHandle(fileDescriptor: ends[1], closeOnDealloc: false)
        let errors = scratchDirectory() + "/follower.err"
        _ = FileManager.default.createFile(atPath: errors, contents: nil)
        follower.standardError = FileHandle(forWritingAtPath: errors)
        try follower.run()
        close(ends[1])
        /// The next line it prints (waiting for it at most 20 s: the end is saved, then read).
        func nextLine() -> String {
            var line: [UInt8] = []
            var byte: UInt8 = 0
            var waited = 0
            while waited < 400 {
                var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                guard poll(&p, 1, 50) > 0 else {
                    waited += 1
                    continue
                }
                guard read(fd, &byte, 1) == 1 else { break }
                if byte == 0x0A { break }
                line.append(byte)
            }
            return String(decoding: line, as: UTF8.self)
        }
        let one = nextLine()
        #expect(one.contains(first) && one.contains(#""reason":"completed""#), "\(one)")
        // A result written later comes out without asking again.
        let second = try endTour(server, visitor: "bo")
        let two = nextLine()
        #expect(two.contains(second) && !two.contains(first), "\(two)")
        // The store out of reach for a while (moved away; the server keeps writing it): said
        // once, and the follower goes on once it is back.
        #expect(rename(store, store + ".away") == 0)
        var said = ""
        for _ in 0..<200 where !said.contains("trying again") {
            said = (try? String(contentsOfFile: errors, encoding: .utf8)) ?? ""
            if !said.contains("trying again") { usleep(50_000) }
        }
        #expect(said.contains("trying again"), "\(said)")
        let third = try endTour(server, visitor: "cy")
        #expect(rename(store + ".away", store) == 0)
        let three = nextLine()
        #expect(three.contains(third), "\(three)")
        let afterwards = (try? String(contentsOfFile: errors, encoding: .utf8)) ?? ""
        #expect(afterwards.components(separatedBy: "trying again").count == 2 && afterwards.contains("can be read again"), "\(afterwards)")
        // Nobody reads any more: it ends by itself (it looks every second), status 0.
        close(fd)
        for _ in 0..<200 where follower.isRunning { usleep(50_000) }
        #expect(!follower.isRunning)
        // (SIGKILL if it did not end: nothing a child inherited can hold that back, so the test
        // never waits for ever.)
        if follower.isRunning { kill(follower.processIdentifier, SIGKILL) }
        follower.waitUntilExit()
        #expect(follower.terminationStatus == 0)
        #expect(server.stop() == 0)
        // A CSV's columns come from every result: it cannot follow.
        let both = try runRocket(["results", "--store", store, "--csv", "--follow"])
        #expect(both.status == 64 && both.stderr.contains("--follow"), "\(both.stderr)")
        // A store that cannot be read at first is an error at once, following or not.
        #expect(try runRocket(["results", "--store", scratchDirectory() + "/none.sqlite", "--follow"]).status == 66)
    }

    @Test(
        "rocket backup copies a store a running server writes: the copy holds what was committed (the log's changes too), owner-only; it never replaces a file"
    )
    func backupLive() throws {
        let dir = scratchDirectory()
        let store = dir + "/live.sqlite"
        let server = try Running(["--insecure-dev"], store: store)
        let ended = try endTourStored(server, store: store, visitor: "ada")
        let copy = dir + "/copy.sqlite"
        let made = try runRocket(["backup", "--store", store, copy])
        #expect(made.status == 0 && made.stdout.isEmpty && made.stderr.contains("copied"), "\(made.stderr)")
        // Read with the server still running: the copy alone, no log beside it.
        #expect(!FileManager.default.fileExists(atPath: copy + "-wal"))
        let results = try runRocket(["results", "--store", copy])
        #expect(results.status == 0 && results.stdout.contains(ended), "\(results.stdout) \(results.stderr)")
        var st = stat()
        #expect(stat(copy, &st) == 0 && st.st_mode & 0o777 == 0o600)
        let again = try runRocket(["backup", "--store", store, copy])
        #expect(again.status == 73 && again.stderr.contains("never replaces"), "\(again.stderr)")
        #expect(server.stop() == 0)
        #expect(try runRocket(["backup", "--store", "postgresql://localhost/x", dir + "/pg.sqlite"]).status == 64)
        #expect(try runRocket(["backup", "--store", dir + "/none.sqlite", dir + "/n.sqlite"]).status == 66)
        #expect(try runRocket(["backup", "--store", "/dev/zero", dir + "/z.sqlite"]).status == 65)
        #expect(try runRocket(["backup", "--store", store, dir + "/no/such/folder.sqlite"]).status == 73)
        // To standard output: the same copy through a pipe or into a file, never to a terminal,
        // and nothing left where it was staged, whether the output takes it or not.
        let staging = scratchDirectory()
        let piped = try runRocket(["backup", "--store", store, "-"], environment: ["TMPDIR": staging])
        #expect(piped.status == 0 && piped.stdout.hasPrefix("SQLite format 3\u{0}"), "\(piped.stderr)")
        /// `rocket backup --store STORE -` with its standard output at `path`; its exit status.
        func backup(toOutput path: String) throws -> Int32 {
            let p = Process()
            p.executableURL = URL(fileURLWithPath: rocketPath)
            p.arguments = ["backup", "--store", store, "-"]
            p.environment = ["TMPDIR": staging]
            p.standardOutput = FileHandle(forWritingAtPath: path)
            p.standardError = FileHandle.nullDevice
            try p.run()
            p.waitUntilExit()
            return p.terminationStatus
        }
        let poured = dir + "/poured.sqlite"
        _ = FileManager.default.createFile(atPath: poured, contents: nil)
        #expect(try backup(toOutput: poured) == 0)
        #expect(try runRocket(["results", "--store", poured]).stdout.contains(ended))
        #expect(try backup(toOutput: "/dev/full") == 74)
        #expect(try FileManager.default.contentsOfDirectory(atPath: staging).isEmpty)
        let terminal = try PTYRun(["backup", "--store", store, "-"])
        #expect(terminal.waitFor("not to the terminal"))
        // Nothing half-made is left beside a copy that failed.
        let left = try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.contains(".tmp-") }
        #expect(left.isEmpty, "\(left)")
    }

    @Test("rocket restore puts a backup in place of a store no server uses, removing a log left beside it, which would be replayed onto the copy")
    func restore() throws {
        let dir = scratchDirectory()
        let store = dir + "/live.sqlite"
        let server = try Running(["--insecure-dev"], store: store)
        let ended = try endTourStored(server, store: store, visitor: "ada")
        let copy = dir + "/copy.sqlite"
        #expect(try runRocket(["backup", "--store", store, copy]).status == 0)
        // A server is using it: refused, untouched.
        let busy = try runRocket(["restore", "--store", store, copy])
        #expect(busy.status == 69 && busy.stderr.contains("stop it"), "\(busy.stderr)")
        // The server's log as it stands, kept to be put back later (as if a crash had left it).
        _ = try endTour(server, visitor: "bo")
        let log = try #require(FileManager.default.contents(atPath: store + "-wal"))
        #expect(server.stop() == 0)
        #expect(FileManager.default.createFile(atPath: store + "-wal", contents: log))
        let restored = try runRocket(["restore", "--store", store, copy])
        #expect(restored.status == 0 && restored.stderr.contains("restored"), "\(restored.stderr)")
        #expect(!FileManager.default.fileExists(atPath: store + "-wal"))
        let results = try runRocket(["results", "--store", store])
        #expect(results.status == 0 && results.stdout.split(separator: "\n").count == 1 && results.stdout.contains(ended), "\(results.stdout)")
        var st = stat()
        #expect(stat(store, &st) == 0 && st.st_mode & 0o777 == 0o600)
        // What cannot be a copy, or a place, is refused with the reason.
        #expect(try runRocket(["restore", "--store", store, dir + "/none.sqlite"]).status == 66)
        #expect(try runRocket(["restore", "--store", store, store]).status == 64)
        try "not a store".write(toFile: dir + "/text", atomically: true, encoding: .utf8)
        #expect(try runRocket(["restore", "--store", store, dir + "/text"]).status == 65)
        #expect(try runRocket(["restore", "--store", dir, copy]).status == 73)
        #expect(try runRocket(["restore", "--store", "postgresql://localhost/x", copy]).status == 64)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.contains(".tmp-") }.isEmpty)
    }

    @Test(
        "rocket restore run by root keeps the store's owner and permissions (a service's own user must still open it); another user who cannot give them is refused, the store untouched",
        .enabled(if: getuid() == 0, "needs root to give files to another user"))
    func restoreKeepsOwner() throws {
        let dir = scratchDirectory()
        chmod(dir, 0o777)
        let store = dir + "/live.sqlite"
        #expect(try runRocket(["scenario", "trigger", "x", "--store", store]).status == 0)
        let copy = dir + "/copy.sqlite"
        #expect(try runRocket(["backup", "--store", store, copy]).status == 0)
        #expect(chown(store, 65534, 65534) == 0 && chmod(store, 0o640) == 0)
        #expect(try runRocket(["restore", "--store", store, copy]).status == 0)
        var st = stat()
        #expect(stat(store, &st) == 0 && st.st_uid == 65534 && st.st_gid == 65534 && st.st_mode & 0o7777 == 0o640)
        // Back to root's, readable by all; nobody may replace it (the folder is open to all) but
        // cannot give the copy root as its owner: refused before anything is replaced.
        #expect(chown(store, 0, 0) == 0 && chmod(store, 0o644) == 0 && chmod(copy, 0o644) == 0)
        var before = stat()
        #expect(stat(store, &before) == 0)
        let refused = try runProgram(
            "/usr/bin/setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", rocketPath, "restore", "--store", store, copy],
            environment: ["PATH": "/usr/bin:/bin", "TMPDIR": dir])
        #expect(refused.status == 73 && refused.stderr.contains("run this as root or as the store's owner"), "\(refused.stderr)")
        var after = stat()
        #expect(stat(store, &after) == 0 && after.st_ino == before.st_ino && after.st_uid == 0)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.contains(".tmp-") }.isEmpty)
    }

    @Test("rocket backup stopped by Ctrl-C leaves no file, whole or partial, and exits 130")
    func backupInterrupted() throws {
        let dir = scratchDirectory()
        let store = dir + "/big.sqlite"
        #expect(try runRocket(["scenario", "trigger", "x", "--store", store]).status == 0)
        // Forty megabytes more, so the copy takes a while.
        let python = Process()
        python.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        python.arguments = [
            "python3", "-c",
            "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute('CREATE TABLE filler(x)'); c.executemany('INSERT INTO filler VALUES (randomblob(4000))', [()]*10000); c.commit()",
            store,
        ]
        try python.run()
        python.waitUntilExit()
        #expect(python.terminationStatus == 0)
        let copy = dir + "/copy.sqlite"
        let backup = Process()
        backup.executableURL = URL(fileURLWithPath: rocketPath)
        backup.arguments = ["backup", "--store", store, copy]
        backup.standardError = FileHandle.nullDevice
        try backup.run()
        // Its partial file exists once the signals are held: then Ctrl-C.
        let partial = copy + ".tmp-\(backup.processIdentifier)"
        for _ in 0..<5_000 where !FileManager.default.fileExists(atPath: partial) && backup.isRunning { usleep(1_000) }
        kill(backup.processIdentifier, SIGINT)
        backup.waitUntilExit()
        if backup.terminationReason == .exit {
            #expect(backup.terminationStatus == 130)
            #expect(!FileManager.default.fileExists(atPath: copy))
        } else {
            // The signal came after the copy was in place (a very slow test machine): then it is whole.
            #expect(try runRocket(["scenario", "status", "x", "--store", copy]).status == 0)
        }
        #expect(!FileManager.default.fileExists(atPath: partial))
    }

    @Test("rocket results --csv: a header, a row per result, a column per answer id; text a spreadsheet would run as a formula begins with '")
    func resultsCSV() throws {
        let dir = scratchDirectory()
        let flow = #"""
            {"version": 1, "blocks": [
             {"id": "name", "type": "textInput", "text": "Name?", "buttonTitle": "Send", "next": "pick"},
             {"id": "pick", "type": "choice", "text": "Which?", "multiple": true, "buttonTitle": "OK",
              "options": [{"title": "A, the first"}, {"title": "B"}, {"title": "C"}]}]}
            """#
        try flow.write(toFile: dir + "/ask.json", atomically: true, encoding: .utf8)
        let store = dir + "/r.sqlite"
        let server = try Running(["--insecure-dev"], store: store, flows: dir)
        for (visitor, name) in [("ada", "=2+3"), ("bo", "Bo \"B\" Smith")] {
            let started = server.exchange("POST", "/v1/conversations", body: #"{"flow": "ask", "visitor": "\#(visitor)", "reducedMotion": true}"#)
            let id = try #require(started.range(of: #""id":""#).map { String(started[$0.upperBound...].prefix(32)) })
            let escaped = name.replacingOccurrences(of: "\"", with: "\\\"")
            for body in [#"{"intent": "submit", "text": "\#(escaped)"}"#, #"{"intent": "chooseMany", "options": [0, 2]}"#] {
                var status = 0
                for _ in 0..<100 where status != 200 {
                    status = server.status("POST", "/v1/conversations/\(id)/intents", body: body, headers: ["Rocket-Visitor": visitor])
                    if status != 200 { usleep(50_000) }
                }
                #expect(status == 200, "\(body)")
            }
        }
        var csv = ""
        for _ in 0..<100 where csv.split(separator: "\r\n").count < 3 {
            csv = try runRocket(["results", "--store", store, "--csv"]).stdout
            if csv.split(separator: "\r\n").count < 3 { usleep(50_000) }
        }
        let rows = csv.split(separator: "\r\n").map(String.init)
        #expect(rows.first == "seq,conversation,flow,visitor,ended,reason,variant,name,pick", "\(csv)")
        #expect(rows.count == 3 && rows[1].hasSuffix(#",completed,,'=2+3,"A, the first; C""#), "\(csv)")
        #expect(rows.count == 3 && rows[2].hasSuffix(#",completed,,"Bo ""B"" Smith","A, the first; C""#), "\(csv)")
        #expect(rows.count == 3 && rows[1].split(separator: ",")[4].hasSuffix("Z"), "ended is ISO-8601 UTC")
        #expect(server.stop() == 0)
    }

    @Test(
        "rocket serve --check reads what a start reads and serves nothing: every flow (each error placed), the key files, the store (even one a server holds, never made); the first problem's status"
    )
    func check() throws {
        let dir = scratchDirectory()
        let flows = dir + "/flows"
        try FileManager.default.createDirectory(atPath: flows, withIntermediateDirectories: true)
        try #"{"version": 1, "blocks": [{"id": "hi", "type": "text", "text": "Hello"}]}"#.write(toFile: flows + "/a.json", atomically: true, encoding: .utf8)
        try #"{"version": 1, "languages": ["en", "it"], "blocks": [{"id": "hi", "type": "text", "text": {"en": "Hi", "it": "Ciao"}}]}"#.write(
            toFile: flows + "/b.json", atomically: true, encoding: .utf8)
        try "k-0123456789abcdef-0123\n".write(toFile: dir + "/keys", atomically: true, encoding: .utf8)
        chmod(dir + "/keys", 0o600)
        let store = dir + "/s.sqlite"
        let base = ["serve", "--check", "--flows", flows, "--api-key-file", dir + "/keys", "--store", store]
        let good = try runRocket(base)
        #expect(good.status == 0 && good.stdout.isEmpty, "\(good.stderr)")
        #expect(good.stderr.contains("the configuration is good: 2 flow(s), 1 site key(s)"), "\(good.stderr)")
        #expect(good.stderr.contains("does not exist yet") && !FileManager.default.fileExists(atPath: store))
        // A flow with an error, placed in its file; the others still counted.
        try #"{"version": 1, "blocks": [{"id": "x", "type": "texte", "text": "Hi"}]}"#.write(toFile: flows + "/bad.json", atomically: true, encoding: .utf8)
        let bad = try runRocket(base)
        #expect(bad.status == 65, "\(bad.stderr)")
        #expect(bad.stderr.contains(flows + "/bad.json:1:") && bad.stderr.contains("1 of 3 flow(s) cannot be served"), "\(bad.stderr)")
        try FileManager.default.removeItem(atPath: flows + "/bad.json")
        // A key file every user may change: refused as a start refuses it.
        chmod(dir + "/keys", 0o666)
        #expect(try runRocket(base).status == 66)
        chmod(dir + "/keys", 0o600)
        // A store a running server holds is read, not refused (a check before a reload).
        let server = try Running(["--api-key-file", dir + "/keys"], store: store, flows: flows)
        let running = try runRocket(base)
        #expect(running.status == 0 && running.stderr.contains("in use by a running rocket serve"), "\(running.stderr)")
        #expect(server.stop() == 0)
        // A database that cannot be reached: 69, as a start.
        let unreachable = try runRocket(["serve", "--check", "--flows", flows, "--store", "postgresql://rocket@127.0.0.1:1/none?connect_timeout=2"])
        #expect(unreachable.status == 69, "\(unreachable.stderr)")
        // --log-format json: each line one object.
        let json = try runRocket(base + ["--log-format", "json"])
        #expect(json.status == 0 && json.stderr.split(separator: "\n").allSatisfy { $0.hasPrefix("{\"time\":") }, "\(json.stderr)")
        // Too few open files for the streams allowed: said, with what would fit; --max-streams
        // within the limit is not. Out of range is a usage error.
        for n in ["0", "1000001", "x"] { #expect(try runRocket(base + ["--max-streams", n]).status == 64, "\(n)") }
        func limited(_ extra: [String]) throws -> RunResult {
            try runRocket(
                ["-c", "ulimit -n 1024 && ulimit -Hn 1024 && exec \"$0\" \"$@\"", rocketPath] + base + extra, executable: "/bin/sh")
        }
        let few = try limited([])
        #expect(few.status == 0, "\(few.stderr)")
        #expect(few.stderr.contains("may open 1024 files, too few for 10000 event streams"), "\(few.stderr)")
        #expect(few.stderr.contains("it holds at most 480 streams"), "\(few.stderr)")
        let fits = try limited(["--max-streams", "480"])
        #expect(fits.status == 0 && !fits.stderr.contains("too few"), "\(fits.stderr)")
    }

    @Test("rocket serve under a low limit on open files holds the streams that fit beside other connections, says so at its start, and keeps serving the rest")
    func fewOpenFiles() throws {
        let server = try Running(["--insecure-dev", "--trust-proxy", "127.0.0.1", "--rate", "1000"], openFiles: 200)
        let started = server.exchange("POST", "/v1/conversations", body: #"{"flow": "tour", "visitor": "ada"}"#)
        let id = try #require(started.range(of: #""id":""#).map { String(started[$0.upperBound...].prefix(32)) }, "\(started)")
        func stream(_ k: Int) -> (RawClient?, String) {
            let c = RawClient(port: server.port)
            c?.send(
                "GET /v1/conversations/\(id)/events HTTP/1.1\r\nHost: 127.0.0.1\r\nRocket-Visitor: ada\r\nX-Forwarded-For: 10.0.\(k / 32).\(k % 32)\r\n\r\n")
            return (c, c?.read { $0.contains("\r\n\r\n") } ?? "")
        }
        var held: [RawClient] = []
        for k in 0..<68 {
            let (c, head) = stream(k)
            #expect(head.hasPrefix("HTTP/1.1 200"), "stream \(k): \(head.prefix(200))")
            if let c { held.append(c) }
        }
        let (_, refused) = stream(68)
        #expect(refused.hasPrefix("HTTP/1.1 503") && refused.contains("too-many-streams"), "\(refused.prefix(300))")
        // Other requests keep their room beside the streams.
        for _ in 0..<20 { #expect(server.status("GET", "/healthz") == 200) }
        withExtendedLifetime(held) {}
        #expect(server.stop() == 0)
        // Said at its start (read once it has ended: every line is written by then).
        #expect(server.stderr.contains("may open 200 files") && server.stderr.contains("it holds at most 68 streams"), "\(server.stderr)")
    }

    @Test(
        "rocket serve --check before an upgrade: a store of the schema before (SQLite and PostgreSQL) is no problem; it says the start migrates it, and the start does"
    )
    func checkOlderSchema() throws {
        let dir = scratchDirectory()
        try "k-0123456789abcdef-0123\n".write(toFile: dir + "/keys", atomically: true, encoding: .utf8)
        chmod(dir + "/keys", 0o600)
        // An SQLite store taken back to schema 12: the indexes schemas 13 and 14 left are dropped.
        let store = dir + "/s.sqlite"
        try SQLiteScenarioStore(path: store).execForTesting(
            """
            DROP INDEX server_conversations_by_visitor; DROP INDEX assignments_by_visitor; DROP INDEX scenarios_by_visitor;
            DROP INDEX assignments_by_time; PRAGMA user_version = 12;
            """)
        let older = try runRocket(["serve", "--check", "--api-key-file", dir + "/keys", "--store", store])
        #expect(older.status == 0 && older.stderr.contains("holds schema 12: the start migrates it to 14 first"), "\(older.stderr)")
        #expect(try SQLiteScenarioStore.rawInt(path: store, "PRAGMA user_version") == 12, "a check writes nothing")
        let server = try Running(["--api-key-file", dir + "/keys"], store: store)
        #expect(server.stop() == 0)
        #expect(try SQLiteScenarioStore.rawInt(path: store, "PRAGMA user_version") == 14)
        let current = try runRocket(["serve", "--check", "--api-key-file", dir + "/keys", "--store", store])
        #expect(current.status == 0 && !current.stderr.contains("holds schema"), "\(current.stderr)")
        // A PostgreSQL store at schema 7 (a check used to refuse it: 69, "open it once with a
        // command that writes", while a start migrates it).
        let url = try TestPostgres.freshDatabase()
        _ = try PostgresScenarioStore(url: url)
        try PostgresDatabase(url: try #require(PostgresURL(url)), capacity: 1).withConnection { (c) throws(PostgresError) in
            try c.execute(
                """
                DROP INDEX rocket_conversations_by_visitor; DROP INDEX rocket_alerts_by_visitor; DROP INDEX rocket_assignments_by_visitor;
                DROP INDEX rocket_scenarios_by_visitor; UPDATE rocket_schema SET version = 7;
                """)
        }
        let olderPG = try runRocket(["serve", "--check", "--api-key-file", dir + "/keys", "--store", url])
        #expect(
            olderPG.status == 0 && olderPG.stderr.contains("holds schema 7: the start migrates it to \(PostgresScenarioStore.schemaVersion) first")
                && PostgresScenarioStore.schemaVersion == 10, "\(olderPG.stderr)")
        let pgServer = try Running(["--api-key-file", dir + "/keys"], store: url)
        #expect(pgServer.stop() == 0)
        let currentPG = try runRocket(["serve", "--check", "--api-key-file", dir + "/keys", "--store", url])
        #expect(currentPG.status == 0 && !currentPG.stderr.contains("holds schema"), "\(currentPG.stderr)")
    }

    @Test("rocket serve --webhook: each result is POSTed as it is written, signed; wrong setups are usage errors")
    func webhook() throws {
        let dir = scratchDirectory()
        let secret = String(repeating: "s", count: 40)
        try (secret + "\n").write(toFile: dir + "/hook-secret", atomically: true, encoding: .utf8)
        let receiver = try HTTPReceiver(statuses: [204])
        defer { receiver.stop() }
        let url = "http://127.0.0.1:\(receiver.port)/hook"
        let server = try Running(["--insecure-dev", "--webhook", url, "--webhook-secret-file", dir + "/hook-secret"], store: dir + "/w.sqlite")
        let id = try endTour(server, visitor: "ada")
        // The end is saved, then sent (the sender looks once a second).
        for _ in 0..<200 where receiver.requests.isEmpty { usleep(50_000) }
        let got = try #require(receiver.requests.first)
        let body = String(decoding: got.body, as: UTF8.self)
        #expect(body.contains(id) && body.contains(#""reason":"completed""#), "\(body)")
        #expect(got.headers["Rocket-Signature"]?.hasPrefix("t=") == true && got.headers["Rocket-Delivery"] == "1")
        #expect(server.stop() == 0)
        #expect(!server.stderr.contains("unencrypted"), "http:// on this machine is no network")
        // Setups that cannot work are said at once.
        let store = ["--store", dir + "/x.sqlite"]
        for args in [
            ["--webhook", url], ["--webhook", "ftp://x/", "--webhook-secret-file", dir + "/hook-secret"],
            ["--webhook", url, "--webhook-secret-file", dir + "/hook-secret", "--keep-results", "0"], ["--webhook-ca-file", dir + "/hook-secret"],
        ] {
            let r = try runRocket(["serve"] + args + store)
            #expect(r.status == 64 && r.stderr.contains("--webhook"), "\(args): \(r.stderr)")
        }
        try "short\n".write(toFile: dir + "/short", atomically: true, encoding: .utf8)
        #expect(try runRocket(["serve", "--webhook", url, "--webhook-secret-file", dir + "/short"] + store).status != 0)
    }

    @Test(
        "--access-log: a line per answer (time, client, method, path without its query, status, bytes, ms), refusals before the request included; text or JSON")
    func accessLog() throws {
        let server = try Running(["--insecure-dev", "--access-log", "--trust-proxy", "127.0.0.1"])
        #expect(server.status("GET", "/healthz") == 200)
        let started = server.exchange(
            "POST", "/v1/conversations?secret=s3cr3t", body: #"{"flow": "tour", "visitor": "ada-lovelace"}"#, headers: ["X-Forwarded-For": "203.0.113.9"])
        #expect(started.hasPrefix("HTTP/1.1 201"), "\(started.prefix(200))")
        #expect(server.status("GET", "/no/such%0Apath%22x") == 404)
        // Refused before the request is read: both framings at once.
        let smuggled = RawClient.exchange(
            port: server.port, "POST /v1/events HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n")
        #expect(smuggled.hasPrefix("HTTP/1.1 400"), "\(smuggled.prefix(200))")
        #expect(server.stop() == 0)
        let lines = server.stderr.split(separator: "\n").map(String.init).filter { $0.hasPrefix("20") }
        func fields(_ path: String) -> [String]? {
            lines.first { $0.split(separator: " ").dropFirst(3).first.map(String.init) == path }?.split(separator: " ").map(String.init)
        }
        let health = try #require(fields("/healthz"), "\(server.stderr)")
        #expect(
            health.count == 7 && health[0].hasSuffix("Z") && health[1] == "127.0.0.1" && health[2] == "GET" && health[4] == "200" && health[6].hasSuffix("ms"))
        #expect(Int(health[5]) ?? 0 > 0, "the body's bytes")
        let start = try #require(fields("/v1/conversations"), "\(server.stderr)")
        #expect(start[1] == "203.0.113.9" && start[2] == "POST" && start[4] == "201", "the client through the trusted proxy: \(start)")
        #expect(!server.stderr.contains("s3cr3t") && !server.stderr.contains("ada-lovelace"), "no query string, no visitor")
        // A path's bytes that could break or forge a line are percent-encoded.
        #expect(fields("/no/such%0Apath%22x")?[4] == "404", "\(lines)")
        #expect(lines.contains { $0.contains(" POST /v1/events 400 ") }, "a refusal of the framing: \(lines)")
        // As JSON, one object a line with the same fields by name.
        let json = try Running(["--insecure-dev", "--access-log", "--log-format", "json"])
        #expect(json.status("GET", "/healthz?x=1") == 200)
        #expect(json.stop() == 0)
        let records = json.stderr.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        let access = try #require(records.first { $0["path"] as? String == "/healthz" }, "\(json.stderr)")
        #expect(access["method"] as? String == "GET" && access["status"] as? Int == 200 && access["client"] as? String == "127.0.0.1")
        #expect(access["level"] as? String == "info" && access["message"] as? String == "GET /healthz 200" && (access["ms"] is Double || access["ms"] is Int))
        // Without the flag, nothing per answer.
        let quiet = try Running(["--insecure-dev"])
        #expect(quiet.status("GET", "/healthz") == 200)
        #expect(quiet.stop() == 0)
        #expect(!quiet.stderr.contains("/healthz"), "\(quiet.stderr)")
    }

    @Test("The access log's lines: a path cut at its limit and encoded, a stalled reader drops lines and says how many, never blocks an answer")
    func accessLogLines() throws {
        var fds: [Int32] = [-1, -1]
        #expect(pipe(&fds) == 0)
        let log = AccessLog(format: .text, descriptor: fds[1], now: { 1_796_000_000.25 })
        let line = String(
            decoding: log.line(method: "GET", path: "/a b\u{1B}é", client: "::1", status: 200, bytes: 5, seconds: 0.00123, now: 1_796_000_000.25), as: UTF8.self
        )
        #expect(line == "2026-11-30T00:53:20.250Z ::1 GET /a%20b%1B%C3%A9 200 5 1.2ms\n", "\(line)")
        let long = AccessLog.printable(String(repeating: "x", count: 2_000), limit: RocketLimits.accessLogPathBytes)
        #expect(long.utf8.count == RocketLimits.accessLogPathBytes + 3 && long.hasSuffix("..."))
        // Nobody reads the pipe (64 KiB) yet: the writer waits on it, lines past the buffer are
        // dropped and counted (never waited for), and said once the reader catches up.
        log.start()
        let many = 3 * RocketLimits.accessLogBufferBytes / 50
        for _ in 0..<many { log.answered(method: "GET", path: "/healthz", client: "127.0.0.1", status: 200, bytes: 2, seconds: 0) }
        var read = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        _ = fcntl(fds[0], F_SETFL, fcntl(fds[0], F_GETFL) | O_NONBLOCK)
        let finisher = Thread { log.finish() }
        finisher.start()
        var idle = 0
        while idle < 200 {
            let n = buffer.withUnsafeMutableBytes { Glibc.read(fds[0], $0.baseAddress!, $0.count) }
            if n > 0 { read += buffer[..<n]; idle = 0 } else { usleep(5_000); idle += 1 }
        }
        let text = String(decoding: read, as: UTF8.self)
        let written = text.split(separator: "\n").filter { $0.hasSuffix("ms") }.count
        #expect(written < many && written > 1_000, "\(written) of \(many)")
        #expect(text.contains("access log line(s) dropped: standard error was not read fast enough"))
        close(fds[0])
        close(fds[1])
    }

    @Test("--log-format json: every line the server says is one JSON object with its time, level and message; a start that fails says so too")
    func jsonLog() throws {
        let server = try Running(["--insecure-dev", "--log-format", "json"])
        #expect(server.stop() == 0)
        let lines = server.stderr.split(separator: "\n").map(String.init)
        #expect(lines.count >= 3, "\(server.stderr)")
        var levels: [String: String] = [:]
        for line in lines {
            let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: String]
            #expect(object.map { Set($0.keys) } == ["time", "level", "message"], "\(line)")
            if let o = object, let message = o["message"], let level = o["level"] { levels[String(message.prefix(12))] = level }
            let time = object?["time"] ?? ""
            #expect(time.count == 24 && time.hasSuffix("Z") && time.contains("."), "RFC 3339 to the millisecond: \(time)")
        }
        #expect(levels["listening on"] == "info" && levels["--insecure-d"] == "warning" && levels["stopping"] == "info", "\(levels)")
        let failed = try runRocket(["serve", "--log-format", "json", "--flows", "/nonexistent", "--store", scratchDirectory() + "/s.sqlite"])
        let record = try? JSONSerialization.jsonObject(with: Data(failed.stderr.utf8)) as? [String: String]
        #expect(failed.status == 66 && record?["level"] == "error" && record?["message"]?.contains("not a folder") == true, "\(failed.stderr)")
        #expect(try runRocket(["serve", "--log-format", "xml"]).status == 64)
        // A flow file given for the folder: the error says what to give instead.
        let dir = scratchDirectory()
        write(#"{"version": 1, "blocks": [{"id": "a", "type": "text", "text": "hi"}]}"#, to: dir + "/welcome.json")
        let file = try runRocket(["serve", "--flows", dir + "/welcome.json", "--store", dir + "/s.sqlite"])
        #expect(
            file.status == 66 && file.stderr.contains("is not a folder; serve the flow's folder (--flows \(dir)), and the flow is welcome (/play/welcome)"),
            "\(file.stderr)")
    }

    @Test("rocket webhook-test sends one made-up result, numbered 0 and signed as deliveries are, and says what the endpoint answered")
    func webhookTest() throws {
        let dir = scratchDirectory()
        let secret = String(repeating: "k", count: 40)
        try (secret + "\n").write(toFile: dir + "/hook-secret", atomically: true, encoding: .utf8)
        let receiver = try HTTPReceiver(statuses: [204, 401])
        defer { receiver.stop() }
        let url = "http://127.0.0.1:\(receiver.port)/hook"
        let args = ["webhook-test", "--webhook", url, "--webhook-secret-file", dir + "/hook-secret"]
        let taken = try runRocket(args)
        #expect(taken.status == 0 && taken.stderr.contains("answered 204"), "\(taken.stderr)")
        let got = try #require(receiver.requests.first)
        #expect(taken.stdout == String(decoding: got.body, as: UTF8.self) + "\n", "the body sent is printed")
        #expect(got.headers["Rocket-Delivery"] == "0" && String(decoding: got.body, as: UTF8.self).contains(#""seq":0"#))
        // The signature is the documented one: HMAC-SHA256(secret, "TIME.BODY"), checked here with openssl.
        let signature = try #require(got.headers["Rocket-Signature"])
        let parts = signature.split(separator: ",").map { $0.split(separator: "=", maxSplits: 1).map(String.init) }
        let time = try #require(parts.first { $0.first == "t" }?.last)
        let mac = try #require(parts.first { $0.first == "v1" }?.last)
        try (time + "." + String(decoding: got.body, as: UTF8.self)).write(toFile: dir + "/signed", atomically: true, encoding: .utf8)
        let openssl = try runRocket(
            ["-c", "openssl dgst -sha256 -hmac \"$0\" -hex < \"$1\" | sed 's/.*= //'", secret, dir + "/signed"], executable: "/bin/sh")
        #expect(openssl.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == mac, "\(openssl.stdout) \(openssl.stderr)")
        // Refused: said, exit 1, with a hint about the secret.
        let refused = try runRocket(args)
        #expect(refused.status == 1 && refused.stderr.contains("401") && refused.stderr.contains("secret"), "\(refused.stderr)")
        // http:// to another machine is said, as rocket serve says it (0.0.0.0 is no loopback
        // name, and nothing listens there: refused at once).
        let clear = try runRocket(["webhook-test", "--webhook", "http://0.0.0.0:1/", "--webhook-secret-file", dir + "/hook-secret"])
        #expect(clear.status == 69 && clear.stderr.contains("unencrypted"), "\(clear.stderr)")
        #expect(!taken.stderr.contains("unencrypted"))
        // Nobody there: 69; setups that cannot work: 64.
        #expect(try runRocket(["webhook-test", "--webhook", "http://127.0.0.1:1/", "--webhook-secret-file", dir + "/hook-secret"]).status == 69)
        #expect(try runRocket(["webhook-test", "--webhook", url]).status == 64)
        let noCA = try runRocket(args + ["--webhook-ca-file", dir + "/no-such.pem"])
        #expect(noCA.status == 66 && noCA.stderr.contains("--webhook-ca-file"), "\(noCA.stderr)")
        #expect(try runRocket(["webhook-test", "--webhook", "ftp://x/", "--webhook-secret-file", dir + "/hook-secret"]).status == 64)
    }

    /// The page size an SQLite file's header states (bytes 16–17, big-endian; 1 means 65,536).
    static func pageSize(_ path: String) -> Int? {
        guard let h = FileManager.default.contents(atPath: path), h.count >= 18, h.starts(with: Array("SQLite format 3\0".utf8)) else { return nil }
        let v = Int(h[16]) << 8 | Int(h[17])
        return v == 1 ? 65_536 : v
    }

    @Test("a store file rocket serve makes has 2 KiB pages, one the scenario commands make 1 KiB; a file keeps its pages when the other opens it")
    func storePages() throws {
        let dir = scratchDirectory()
        let served = try Running(["--insecure-dev"], store: dir + "/served.sqlite")
        #expect(served.status("POST", "/v1/conversations", body: #"{"flow": "tour", "visitor": "ada"}"#) == 201)
        #expect(served.stop() == 0)
        #expect(Self.pageSize(dir + "/served.sqlite") == 2048)
        let trigger = try runRocket(["scenario", "trigger", "tour", "--store", dir + "/cli.sqlite"])
        #expect(trigger.status == 0, "\(trigger.stderr)")
        #expect(Self.pageSize(dir + "/cli.sqlite") == 1024)
        // Each opened by the other: the pages it was made with, and both still work.
        let again = try Running(["--insecure-dev"], store: dir + "/cli.sqlite")
        #expect(again.status("POST", "/v1/conversations", body: #"{"flow": "tour", "visitor": "ada"}"#) == 201)
        #expect(again.stop() == 0)
        #expect(try runRocket(["scenario", "trigger", "tour", "--store", dir + "/served.sqlite"]).status == 0)
        #expect(Self.pageSize(dir + "/cli.sqlite") == 1024 && Self.pageSize(dir + "/served.sqlite") == 2048)
    }

    /// An event of the scenario of the flow each server offers.
    static let event = #"{"scenario": "tour", "visitor": "u1"}"#

    @Test("a key file that cannot be used stops the start: missing 66, a line that is no key 65 naming it; a short secret; a bad --public-url 64")
    func badSetups() throws {
        let dir = scratchDirectory()
        let store = ["--store", dir + "/s.sqlite", "--port", "0"]
        let missing = try runRocket(["serve", "--api-key-file", dir + "/nope"] + store)
        #expect(missing.status == 66, "\(missing.stderr)")
        try "# keys\nsite-key-0123456789abcdef\nshort\n".write(toFile: dir + "/keys", atomically: true, encoding: .utf8)
        let bad = try runRocket(["serve", "--api-key-file", dir + "/keys"] + store)
        #expect(bad.status == 65)
        #expect(bad.stderr.contains("keys:3: not a key"), "\(bad.stderr)")
        #expect(!bad.stderr.contains("site-key-0123456789abcdef"), "a key is never printed")
        try "too short\n".write(toFile: dir + "/secret", atomically: true, encoding: .utf8)
        let secret = try runRocket(["serve", "--secret-file", dir + "/secret"] + store)
        #expect(secret.status == 65, "a secret too short is bad data")
        #expect(try runRocket(["serve", "--secret-file", dir + "/absent"] + store).status == 66)
        #expect(try runRocket(["serve", "--api-key-file", "/dev/zero"] + store).status == 66, "a device is no file")
        #expect(secret.stderr.contains("at least 32 bytes"))
        let env = try runRocket(["serve"] + store, environment: ["ROCKET_API_KEYS": "good-key-0123456789abcdef,tiny"])
        #expect(env.status == 65)
        #expect(env.stderr.contains("ROCKET_API_KEYS: key 2"))
        for url in ["ftp://chat.example", "https://chat.example/path", "chat.example"] {
            #expect(try runRocket(["serve", "--public-url", url] + store).status == 64, "\(url)")
        }
    }

    @Test("site keys from a file and the environment; SIGHUP re-reads the file, so keys rotate without a restart")
    func rotation() throws {
        let dir = scratchDirectory()
        try "site-key-one-0123456789\n".write(toFile: dir + "/keys", atomically: true, encoding: .utf8)
        let server = try Running(["--api-key-file", dir + "/keys"], environment: ["ROCKET_API_KEYS": "env-key-0123456789abcdef"])
        #expect(server.status("POST", "/v1/events", body: Self.event) == 401)
        #expect(server.status("POST", "/v1/events", body: Self.event, headers: ["Authorization": "Bearer site-key-one-0123456789"]) == 204)
        #expect(server.status("POST", "/v1/events", body: Self.event, headers: ["Authorization": "Bearer env-key-0123456789abcdef"]) == 204)
        try "site-key-two-0123456789\n".write(toFile: dir + "/keys", atomically: true, encoding: .utf8)
        kill(server.process.processIdentifier, SIGHUP)
        // The process takes the signal in its own time: wait (bounded) for the new key to work.
        var rotated = false
        for _ in 0..<200 where !rotated {
            rotated = server.status("POST", "/v1/events", body: Self.event, headers: ["Authorization": "Bearer site-key-two-0123456789"]) == 204
            if !rotated { usleep(10_000) }
        }
        #expect(rotated)
        #expect(server.status("POST", "/v1/events", body: Self.event, headers: ["Authorization": "Bearer site-key-one-0123456789"]) == 401)
        #expect(server.process.isRunning, "SIGHUP does not stop the server")
        #expect(server.stop() == 0)
        #expect(!server.stderr.contains("0123456789"), "keys never reach the log: \(server.stderr)")
    }

    @Test("without keys the site routes are refused and the start says so; --insecure-dev says what it opens; a proxy without --public-url is named")
    func startMessages() throws {
        let plain = try Running([])
        #expect(plain.status("POST", "/v1/events", body: Self.event) == 401)
        #expect(plain.stop() == 0)
        #expect(plain.stderr.contains("no site keys"))
        let dev = try Running(["--insecure-dev"])
        #expect(dev.status("POST", "/v1/events", body: Self.event) == 204)
        #expect(dev.stop() == 0)
        #expect(dev.stderr.contains("--insecure-dev"))
        #expect(!dev.stderr.contains("--public-url"))
        // Behind a proxy without --public-url, the proxy's pages are another site's: the start says so.
        let proxied = try Running(["--insecure-dev", "--trust-proxy", "127.0.0.1"])
        #expect(proxied.status("POST", "/v1/conversations", body: #"{"flow": "tour", "visitor": "ada"}"#, headers: ["Origin": "https://chat.example"]) == 403)
        #expect(proxied.stop() == 0)
        #expect(proxied.stderr.contains("--trust-proxy without --public-url"))
        let told = try Running(["--insecure-dev", "--trust-proxy", "127.0.0.1", "--public-url", "https://chat.example"])
        #expect(told.status("POST", "/v1/conversations", body: #"{"flow": "tour", "visitor": "ada"}"#, headers: ["Origin": "https://chat.example"]) == 201)
        #expect(told.stop() == 0)
        #expect(!told.stderr.contains("without --public-url"))
    }

    @Test("one server a store file: a second rocket serve on it is refused (69), the first keeps serving; after a kill -9 the file is free again")
    func oneServerAFile() throws {
        let store = scratchDirectory() + "/shared.sqlite"
        let first = try Running([], store: store)
        // Started, the second would print its address; refused, it ends first.
        var second: Running?
        #expect(throws: (any Error).self) { second = try Running([], store: store) }
        if let second { _ = second.stop() }
        if second == nil {
            let refused = try runRocket(["serve", "--port", "0", "--store", store])
            #expect(refused.status == 69)
            #expect(refused.stderr.contains("is in use by another rocket serve"), "\(refused.stderr)")
        }
        #expect(first.status("GET", "/healthz") == 200)
        // Commands that share the store with a server still use it.
        #expect(try runRocket(["scenario", "trigger", "tour", "--store", store]).status == 0)
        kill(first.process.processIdentifier, SIGKILL)
        first.process.waitUntilExit()
        let third = try Running([], store: store)
        #expect(third.status("GET", "/healthz") == 200)
        #expect(third.stop() == 0)
    }

    @Test("secrets kept close: a key file every user may change is refused (at start and on SIGHUP), readable ones are named, a new store is its owner's")
    func filePermissions() throws {
        let dir = scratchDirectory()
        let keys = dir + "/keys", secret = dir + "/secret", store = dir + "/new.sqlite"
        try "key-0123456789abcdef0123\n".write(toFile: keys, atomically: true, encoding: .utf8)
        try String(repeating: "s", count: 40).write(toFile: secret, atomically: true, encoding: .utf8)
        chmod(keys, 0o666)
        let refused = try runRocket(["serve", "--port", "0", "--store", store, "--api-key-file", keys])
        #expect(refused.status == 66 && refused.stderr.contains("every user of this machine may change it (chmod o-w"), "\(refused.stderr)")
        chmod(keys, 0o644)
        chmod(secret, 0o604)
        let server = try Running(["--api-key-file", keys, "--secret-file", secret], store: store)
        func mode(_ path: String) -> mode_t {
            var st = stat()
            return stat(path, &st) == 0 ? st.st_mode & 0o777 : 0
        }
        #expect(server.status("GET", "/healthz") == 200)
        #expect(mode(store) == 0o600 && mode(store + "-wal") == 0o600 && mode(store + "-shm") == 0o600, "SQLite gives its log the database's mode")
        // A key file that became writable by everyone is not read again: the keys are kept.
        chmod(keys, 0o646)
        kill(server.process.processIdentifier, SIGHUP)
        #expect(server.status("GET", "/healthz") == 200)
        #expect(server.stop() == 0)
        let said = server.stderr
        #expect(said.contains("--api-key-file '\(keys)' can be read by every user of this machine (chmod 600"))
        #expect(said.contains("--secret-file '\(secret)' can be read by every user"))
        #expect(said.contains("the keys were kept: --api-key-file '\(keys)': every user of this machine may change it"), "\(said)")
        // Without --secret-file the token secret lives in the store.
        chmod(keys, 0o600)
        chmod(store, 0o644)
        let second = try Running(["--api-key-file", keys], store: store)
        #expect(second.stop() == 0)
        #expect(second.stderr.contains("the store, which holds the token secret, '\(store)' can be read by every user"))
        #expect(!second.stderr.contains("--api-key-file '\(keys)' can be read"))
    }

    @Test("the token secret is made once and kept in the store: a token still works after a restart")
    func secretKept() throws {
        let dir = scratchDirectory()
        let first = try Running([], store: dir + "/kept.sqlite")
        let answer = RawClient.exchange(port: first.port, "POST /v1/visitors HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        let token = try #require(answer.split(separator: "\"").first { $0.hasPrefix("anon.") && $0.count > 40 }.map(String.init))
        #expect(first.stop() == 0)
        let second = try Running([], store: dir + "/kept.sqlite")
        #expect(second.status("POST", "/v1/conversations", body: #"{"flow": "tour"}"#, headers: ["Rocket-Visitor": token]) == 201)
        #expect(second.stop() == 0)
    }

    @Test("a flow's picture read slowly by many connections is sent from its file: no copy per connection (8 MiB each before, 1 GB for 120)")
    func picturesToSlowReaders() throws {
        let dir = scratchDirectory()
        let flow = #"{"version": 1, "blocks": [{"id": "hi", "type": "text", "text": "Hello"}]}"#
        try flow.write(toFile: dir + "/pics.json", atomically: true, encoding: .utf8)
        // A picture at the size limit (8 MiB): the PNG signature, then filler.
        var picture = [UInt8](repeating: 0x2A, count: RocketLimits.servedPictureBytes)
        picture.replaceSubrange(0..<8, with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        _ = FileManager.default.createFile(atPath: dir + "/big.png", contents: Data(picture))
        let server = try Running(["--insecure-dev"], flows: dir)
        defer { _ = server.stop() }
        func rssKB() -> Int {
            let status = (try? String(contentsOfFile: "/proc/\(server.process.processIdentifier)/status", encoding: .utf8)) ?? ""
            let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
            return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
        }
        // Whole, to one client that reads it.
        let whole = RawClient.exchange(port: server.port, "GET /v1/flows/pics/files/big.png HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        #expect(whole.hasPrefix("HTTP/1.1 200") && whole.contains("Content-Length: \(picture.count)"), "\(whole.prefix(200))")
        let before = rssKB()
        // Forty clients ask for it and read nothing (a small receive buffer each): a copy of the
        // picture per connection would be 320 MB.
        var sockets: [Int32] = []
        defer { for s in sockets { close(s) } }
        for _ in 0..<40 {
            let s = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var small: Int32 = 4096
            setsockopt(s, SOL_SOCKET, SO_RCVBUF, &small, socklen_t(MemoryLayout<Int32>.size))
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(server.port).bigEndian)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(s, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            #expect(connected == 0)
            let request = Array("GET /v1/flows/pics/files/big.png HTTP/1.1\r\nHost: x\r\n\r\n".utf8)
            _ = request.withUnsafeBytes { send(s, $0.baseAddress, $0.count, 0) }
            sockets.append(s)
        }
        // Every request answered (its head is in each socket) before memory is read.
        for s in sockets {
            var head = [UInt8](repeating: 0, count: 12)
            #expect(recv(s, &head, 12, Int32(MSG_WAITALL)) == 12 && String(decoding: head, as: UTF8.self) == "HTTP/1.1 200")
        }
        let grown = rssKB() - before
        #expect(grown < 64 * 1024, "the server grew by \(grown) KB for 40 slow readers of an 8 MiB picture")
        // Another client is still served.
        #expect(server.status("GET", "/healthz") == 200)
    }
}
