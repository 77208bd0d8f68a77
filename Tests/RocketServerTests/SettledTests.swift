import Foundation
import RocketJSON
import Synchronization
import Testing

@testable import RocketServer

@Suite("HTTP API: answers without the transcript items the client holds")
struct SettledTests {
    /// A flow with every kind of item: texts, a button, a double button, an input, a choice, a
    /// reply, and going back (which takes items away and opens an answered one again).
    static let flow = """
        {"version": 1, "start": "a", "blocks": [
         {"id": "a", "type": "text", "text": "One {{who}}", "next": "b"},
         {"id": "b", "type": "button", "title": "Go {{who}}", "next": "c"},
         {"id": "c", "type": "doubleButton", "left": {"title": "L", "next": "d"}, "right": {"title": "R", "next": "d"}},
         {"id": "d", "type": "textInput", "text": "Name?", "buttonTitle": "OK", "next": "e"},
         {"id": "e", "type": "choice", "text": "Pick {{d}}", "options": [{"title": "X", "next": "f"}, {"title": "Y", "next": "f"}]},
         {"id": "f", "type": "textInput", "text": "City?", "buttonTitle": "OK", "next": "g"},
         {"id": "g", "type": "text", "text": "Bye {{d}} of {{f}}"}]}
        """

    struct Seen {
        let version: Int
        let settled: Int
        let transcript: [JSONNode]
        var header: String { "\(version)/\(settled)" }
    }

    /// The whole transcript a client makes of `answer` from the view `held` it holds: the items
    /// the answer left out from that view, then the answer's.
    static func merged(_ answer: JSONNode, held: Seen) throws -> [JSONNode] {
        let from = Int(answer["transcriptFrom"]?.number ?? 0)
        let items = try #require(answer["transcript"]?.array)
        guard from > 0 else {
            #expect(answer["transcriptBase"] == nil)
            return items
        }
        #expect(from <= held.settled && from <= held.transcript.count)
        // The view whose first items the answer leaves out: the one held (a client showing an
        // older one would read the conversation again).
        #expect(answer["transcriptBase"]?.number == Double(held.version), "\(Self.text(answer["transcriptBase"])) for \(held.header)")
        return Array(held.transcript.prefix(from)) + items
    }

    /// A node as text, the same for the same JSON wherever it was read.
    static func text(_ node: JSONNode?) -> String {
        guard let node else { return "-" }
        switch node.value {
        case .null: return "null"
        case .bool(let b): return "\(b)"
        case .number(let n): return "\(n)"
        case .string(let s): return "\"" + s + "\""
        case .array(let items): return "[" + items.map { text($0) }.joined(separator: ",") + "]"
        case .object(let members): return "{" + members.map { $0.key + ":" + text($0.value) }.joined(separator: ",") + "}"
        }
    }

    static func texts(_ items: [JSONNode]?) -> [String]? { items?.map { text($0) } }

    static func seen(_ view: JSONNode) throws -> Seen {
        Seen(
            version: Int(try #require(view["version"]?.number)), settled: Int(try #require(view["settled"]?.number)),
            transcript: try #require(view["transcript"]?.array))
    }

    /// A harness serving ``flow`` (without rate limits: a test asks for the view many times a
    /// step) and a conversation of it started; the start's answer.
    static func walk() throws -> (Harness, String, HTTPResponse) {
        let dir = scratchDirectory()
        try flow.write(toFile: dir + "/walk.json", atomically: true, encoding: .utf8)
        let h = try Harness(
            configure: {
                $0.requestsPerSecond = 1e9
                $0.requestBurst = 1e9
            }, flowsDirectory: dir)
        let r = h.request("POST", "/v1/conversations", body: #"{"flow": "walk", "visitor": "ada", "vars": {"who": "you"}, "reducedMotion": true}"#)
        let id = try #require(r.json?["conversation"]?["id"]?.string, "\(r.text)")
        h.service.advanceDue()
        return (h, id, r)
    }

    @Test("whatever earlier view a client holds, the items an answer leaves out and the answer's make the whole transcript, going back included")
    func everyHeldView() throws {
        let (h, id, r) = try Self.walk()
        var history = [try Self.seen(try #require(r.json?["conversation"]))]
        var omitted = 0
        /// Asks for the view as each earlier view's holder, and checks each makes the whole.
        func check(_ label: String) throws {
            let got = h.request("GET", "/v1/conversations/\(id)", visitor: "ada")
            let whole = try #require(got.json?["conversation"], "\(label): \(got.text)")
            let wholeItems = try #require(whole["transcript"]?.array)
            #expect(whole["transcriptFrom"] == nil, "\(label): a client that names nothing gets it all")
            for held in history {
                let answer = try #require(
                    h.request("GET", "/v1/conversations/\(id)", visitor: "ada", headers: ["Rocket-Settled": held.header]).json?["conversation"])
                #expect(Self.texts(try Self.merged(answer, held: held)) == Self.texts(wholeItems), "\(label), holding \(held.header)")
                #expect(Self.text(answer["settled"]) == Self.text(whole["settled"]) && Self.text(answer["version"]) == Self.text(whole["version"]), "\(label)")
                if (answer["transcriptFrom"]?.number ?? 0) > 0 { omitted += 1 }
            }
            history.append(try Self.seen(whole))
        }
        try check("start")
        var step = 0
        for members in [
            #""intent": "tap""#, #""intent": "pressButton""#, #""intent": "pressRight""#, #""intent": "submit", "text": "Ada""#,
            #""intent": "back""#, #""intent": "submit", "text": "Grace""#, #""intent": "choose", "option": 1"#, #""intent": "back""#,
            #""intent": "back""#, #""intent": "submit", "text": "Ada""#, #""intent": "choose", "option": 0"#,
            #""intent": "submit", "text": "Oslo""#, #""intent": "tap""#,
        ] {
            // The intent's own answer, to a client holding the newest view, makes the whole too.
            let held = try #require(history.last)
            let answer = h.request(
                "POST", "/v1/conversations/\(id)/intents", body: "{\(members), \"step\": \(step)}", visitor: "ada",
                headers: ["Rocket-Settled": held.header])
            #expect(answer.status == 200, "\(members): \(answer.text)")
            h.service.advanceDue()
            h.service.flush()
            let view = try #require(answer.json?["conversation"])
            step = Int(try #require(view["step"]?.number))
            let whole = try #require(h.view(id))
            if Self.text(whole["version"]) == Self.text(view["version"]) {
                #expect(Self.texts(try Self.merged(view, held: held)) == Self.texts(whole["transcript"]?.array), "\(members)")
            }
            try check(members)
        }
        #expect(h.view(id)?["status"]?.string == "dismissed")
        #expect(omitted > 20, "answers leave items out (\(omitted) times)")
    }

    @Test("a page that follows the conversation: each change's frame leaves out what the frame before settled, and makes the whole view with it")
    func streamFrames() throws {
        let (h, id, _) = try Self.walk()
        /// The state view of a change's frames.
        func state(_ frames: [UInt8]) throws -> JSONNode {
            let text = String(decoding: frames, as: UTF8.self)
            let line = try #require(text.split(separator: "\n").first { $0.hasPrefix("data: {") })
            return try JSONReader.parse(Array(line.dropFirst(6).utf8))
        }
        // A page opens its stream: the current frames are whole.
        let opened = try state(try #require(h.service.currentFrames(id)))
        #expect(opened["transcriptFrom"] == nil)
        var shown = (seen: try Self.seen(opened), version: Int(try #require(opened["version"]?.number)))
        let frames = Mutex<[[UInt8]]>([])
        h.service.onChange { c in
            let f = c.frames
            frames.withLock { $0.append(f) }
        }
        var left = 0
        var step = Int(try #require(opened["step"]?.number))
        for (k, members) in [
            #""intent": "tap""#, #""intent": "pressButton""#, #""intent": "pressLeft""#, #""intent": "submit", "text": "Ada""#,
            #""intent": "back""#, #""intent": "submit", "text": "Bo""#, #""intent": "choose", "option": 0"#, #""intent": "back""#,
            #""intent": "back""#, #""intent": "submit", "text": """#, #""intent": "submit", "text": "Ada""#, #""intent": "choose", "option": 1"#,
            #""intent": "submit", "text": "Rome""#, #""intent": "tap""#,
        ].enumerated() {
            // Every other intent comes from the page that follows (naming the view it shows, so its
            // answer and the frame are one view), the others from a client that names nothing.
            let names = k % 2 == 0 ? ["Rocket-Settled": shown.seen.header] : [:]
            let answer = h.request(
                "POST", "/v1/conversations/\(id)/intents", body: "{\(members), \"step\": \(step)}", visitor: "ada", headers: names)
            #expect(answer.status == 200 || answer.status == 422, "\(members): \(answer.text)")
            h.service.advanceDue()
            h.service.flush()
            step = Int(try #require(h.view(id)?["step"]?.number))
            // Every frame the page was sent, in order, as the page applies them.
            for f in frames.withLock({ all in
                defer { all.removeAll() }; return all
            }) {
                let v = try state(f)
                let version = Int(try #require(v["version"]?.number))
                #expect(version > shown.version, "\(members): frames come in order")
                if v["transcriptFrom"] != nil { left += 1 }
                let items = try Self.merged(v, held: shown.seen)
                shown = (Seen(version: version, settled: Int(try #require(v["settled"]?.number)), transcript: items), version)
            }
            let whole = try #require(h.view(id))
            #expect(Self.text(whole["version"]) == "\(Double(shown.version))", "\(members): the page is at the newest version")
            #expect(Self.texts(whole["transcript"]?.array) == Self.texts(shown.seen.transcript), "\(members)")
        }
        #expect(h.view(id)?["status"]?.string == "dismissed")
        #expect(left > 8, "frames leave items out (\(left) did)")
    }

    @Test(
        "after a restart a client's earlier view gets the whole transcript, as does the same version written anew; a view written since gets only what is new")
    func restored() throws {
        let h = try Harness()
        let id = try h.start()
        _ = h.send(id, #""intent": "tap""#)
        _ = h.send(id, #""intent": "submit", "text": "Ada""#)
        let before = try Self.seen(try #require(h.view(id)))
        #expect(before.settled > 0)
        // Within this server, the same view is enough.
        #expect(
            h.request("GET", "/v1/conversations/\(id)", visitor: "ada", headers: ["Rocket-Settled": before.header]).json?["conversation"]?["transcriptFrom"]
                != nil)
        let other = try Harness(path: h.path, clock: h.clock)
        let first = try #require(
            other.request("GET", "/v1/conversations/\(id)", visitor: "ada", headers: ["Rocket-Settled": before.header]).json?["conversation"])
        #expect(first["transcriptFrom"] == nil, "the new server does not know what the old one's views settled")
        #expect(Self.texts(first["transcript"]?.array) == Self.texts(before.transcript))
        // Its view of the same version cannot be told from the old server's: whole again.
        let again = try Self.seen(first)
        let tapped = other.request(
            "POST", "/v1/conversations/\(id)/intents", body: #"{"intent": "submit", "text": "1234"}"#, visitor: "ada", headers: ["Rocket-Settled": again.header]
        )
        let whole = try #require(tapped.json?["conversation"], "\(tapped.text)")
        #expect(whole["transcriptFrom"] == nil, "\(tapped.text)")
        other.service.advanceDue()
        let after = try Self.seen(try #require(other.view(id)))
        #expect(after.settled > 0)
        let next = try #require(
            other.request("GET", "/v1/conversations/\(id)", visitor: "ada", headers: ["Rocket-Settled": after.header]).json?["conversation"])
        #expect(next["transcriptFrom"]?.number == Double(after.settled))
        #expect(Self.texts(try Self.merged(next, held: after)) == Self.texts(other.view(id)?["transcript"]?.array))
    }

    @Test("a start's answer is held like any view: the next answer leaves its settled items out")
    func startHeld() throws {
        let dir = scratchDirectory()
        try #"{"version": 1, "start": "t", "blocks": [{"id": "t", "type": "text", "text": "Tick", "next": "t"}]}"#
            .write(toFile: dir + "/loop.json", atomically: true, encoding: .utf8)
        let h = try Harness(flowsDirectory: dir)
        // The second start of a kind is made from the first one's shape, and kept unmade.
        for _ in 0..<2 {
            let r = h.request("POST", "/v1/conversations", body: #"{"flow": "loop", "visitor": "ada", "reducedMotion": true}"#)
            let view = try #require(r.json?["conversation"])
            let id = try #require(view["id"]?.string)
            let held = try Self.seen(view)
            #expect(held.settled == 1)
            let answer = h.request(
                "POST", "/v1/conversations/\(id)/intents", body: #"{"intent": "tap"}"#, visitor: "ada", headers: ["Rocket-Settled": held.header])
            let next = try #require(answer.json?["conversation"])
            #expect(next["transcriptFrom"]?.number == 1, "\(answer.text)")
            #expect(next["transcript"]?.array.count == 1)
            #expect(Self.texts(try Self.merged(next, held: held)) == Self.texts(h.view(id)?["transcript"]?.array))
        }
    }

    @Test(
        "a page that opens its stream naming the view it holds gets a first frame without those items; the frames go again only when the conversation moved on")
    func streamOpened() throws {
        let (h, id, _) = try Self.walk()
        for members in [#""intent": "tap""#, #""intent": "pressButton""#, #""intent": "pressLeft""#, #""intent": "submit", "text": "Ada""#] {
            let step = Int(try #require(h.view(id)?["step"]?.number))
            #expect(h.send(id, "\(members), \"step\": \(step)").status == 200, "\(members)")
        }
        let held = try Self.seen(try #require(h.view(id)))
        #expect(held.settled >= 4, "the walk settled items (\(held.settled))")
        /// The state view of an event stream's first frames.
        func first(_ r: HTTPResponse) throws -> JSONNode {
            let text = String(decoding: r.body, as: UTF8.self)
            let line = try #require(text.split(separator: "\n").first { $0.hasPrefix("data: {") })
            return try JSONReader.parse(Array(line.dropFirst(6).utf8))
        }
        let named = h.request("GET", "/v1/conversations/\(id)/events", visitor: "ada", headers: ["Rocket-Settled": held.header])
        #expect(named.status == 200 && named.stream == id)
        #expect(named.streamVersion == held.version)
        let frame = try first(named)
        #expect(frame["transcriptFrom"]?.number == Double(held.settled))
        #expect(Self.texts(try Self.merged(frame, held: held)) == Self.texts(held.transcript))
        // Without the header, the first frame is whole.
        let plain = try first(h.request("GET", "/v1/conversations/\(id)/events", visitor: "ada"))
        #expect(plain["transcriptFrom"] == nil)
        #expect(Self.texts(plain["transcript"]?.array) == Self.texts(held.transcript))
        // Registered at the version its first frame showed: nothing is sent again; once the
        // conversation moved on, its current frames are.
        #expect(h.service.currentFrames(id, after: held.version) == nil)
        let step = Int(try #require(h.view(id)?["step"]?.number))
        #expect(h.send(id, #""intent": "choose", "option": 0, "step": \#(step)"#).status == 200)
        let again = try #require(h.service.currentFrames(id, after: held.version))
        let moved = Int(try #require(h.view(id)?["version"]?.number))
        #expect(moved > held.version)
        #expect(String(decoding: again, as: UTF8.self).hasPrefix("id: \(moved)\n"))
    }

    @Test("a view the server never wrote (a later version, more items than settled) gets the whole transcript; a malformed header is a 400 naming it")
    func wrongHeaders() throws {
        let h = try Harness()
        let id = try h.start()
        _ = h.send(id, #""intent": "tap""#)
        let now = try Self.seen(try #require(h.view(id)))
        for header in ["\(now.version + 1)/\(now.settled)", "\(now.version)/\(now.settled + 1)", "0/0", "\(now.version)/0"] {
            let answer = h.request("GET", "/v1/conversations/\(id)", visitor: "ada", headers: ["Rocket-Settled": header])
            #expect(answer.status == 200)
            #expect(answer.json?["conversation"]?["transcriptFrom"] == nil, "\(header)")
            #expect(Self.texts(answer.json?["conversation"]?["transcript"]?.array) == Self.texts(now.transcript), "\(header)")
        }
        for header in ["x", "1", "1/", "/1", "1/2/3", "-1/2", "1/-2", "1234567890/1", "1.5/1", "1/ 1", "１/1"] {
            for (method, path, body) in [
                ("GET", "/v1/conversations/\(id)", nil), ("POST", "/v1/conversations/\(id)/intents", #"{"intent": "tap"}"#),
                ("POST", "/v1/conversations/\(id)/hold", #"{"held": true}"#), ("GET", "/v1/conversations/\(id)/events", nil),
            ] {
                let r = h.request(method, path, body: body, visitor: "ada", headers: ["Rocket-Settled": header])
                #expect(r.status == 400, "\(method) \(path) \(header)")
                #expect(r.json?["error"]?["code"]?.string == "bad-header")
                #expect(r.json?["error"]?["message"]?.string?.hasPrefix("Rocket-Settled") == true)
            }
        }
        #expect(h.view(id)?["version"]?.number == Double(now.version), "nothing refused changed it")
    }
}
