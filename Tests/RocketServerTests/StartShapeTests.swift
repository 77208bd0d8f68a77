import Foundation
import RocketConversation
import RocketCore
import RocketFlow
import RocketJSON
import RocketText
import Testing

@testable import RocketServer

/// Starts of a kind are made from what the first one made (``ConversationService/StartShape``):
/// each must be what a start made in full would have been, then and later.
@Suite("Starts of a kind")
struct StartShapeTests {
    /// An experiment (an exposure record, a start from the variant's block, the variant on every
    /// record) beside the examples and a flow with timers.
    static let experiment = """
        {"version": 1, "experiment": {"name": "copy", "holdout": 0.2,
          "variants": [{"name": "long", "start": "long"}, {"name": "short", "start": "short"}]},
         "blocks": [{"id": "long", "type": "text", "text": "The long welcome", "next": "short", "showNextAfter": 1.5},
                    {"id": "short", "type": "text", "text": "Hi"}]}
        """

    /// A folder with every example flow (and its pictures), the experiment and the timed flow.
    static func flows() throws -> (folder: String, names: [String]) {
        let dir = scratchDirectory()
        let examples = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("examples").path
        var names: [String] = []
        for file in try FileManager.default.contentsOfDirectory(atPath: examples).sorted() {
            try FileManager.default.copyItem(atPath: examples + "/" + file, toPath: dir + "/" + file)
            if file.hasSuffix(".json"), !file.hasSuffix(FlowTestFormat.suffix) { names.append(String(file.dropLast(5))) }
        }
        try experiment.write(toFile: dir + "/copy.json", atomically: true, encoding: .utf8)
        try FreshSlotTests.timed.write(toFile: dir + "/timed.json", atomically: true, encoding: .utf8)
        return (dir, names + ["copy", "timed"])
    }

    /// An answer's text with its conversation's id written as ID.
    static func normalized(_ r: HTTPResponse) -> String {
        guard let id = r.json?["conversation"]?["id"]?.string else { return r.text }
        return r.text.replacingOccurrences(of: id, with: "ID")
    }

    /// What the store holds of conversation `id`: its row (id written as ID) and its records.
    static func stored(_ h: Harness, _ id: String) throws -> String {
        let archive = try h.archive()
        guard var row = try archive.load(id)?.row else { return "nothing" }
        row.id = "ID"
        return "\(row) \(try archive.events(id))"
    }

    @Test("every start of a kind answers, stores and records what a start made in full does, and goes on the same")
    func sameAsInFull() throws {
        let (dir, names) = try Self.flows()
        #expect(names.count >= 10, "\(names)")
        let clock = ManualClock(now: 1_800_000_000.123_456_7)
        let configure: (inout ServerConfiguration) -> Void = { $0.timing = .original }
        // One server makes every start in full, the other each kind's first only.
        let full = try Harness(clock: clock, configure: configure, flowsDirectory: dir, keepsStarts: false)
        let shaped = try Harness(clock: clock, configure: configure, flowsDirectory: dir)
        var ids: [(full: String, shaped: String, visitor: String)] = []
        for name in names {
            var started = false
            for reduced in [false, true] {
                for k in 0..<4 {
                    // Times whose fractions print at different lengths (and one on a whole second).
                    clock.advance(by: k == 2 ? 1 - clock.now.truncatingRemainder(dividingBy: 1) : 0.370_1 * Double(k + 1))
                    let visitor = "v\(k)"
                    let body = #"{"flow": "\#(name)", "visitor": "\#(visitor)", "reducedMotion": \#(reduced)}"#
                    let a = full.request("POST", "/v1/conversations", body: body)
                    let b = shaped.request("POST", "/v1/conversations", body: body)
                    #expect(Self.normalized(a) == Self.normalized(b), "\(name), reduced \(reduced), start \(k)")
                    guard a.status == 201, let x = a.json?["conversation"]?["id"]?.string, let y = b.json?["conversation"]?["id"]?.string else {
                        continue
                    }
                    #expect(try Self.stored(full, x) == Self.stored(shaped, y), "\(name), reduced \(reduced), start \(k)")
                    ids.append((x, y, visitor))
                    started = true
                }
            }
            // (A flow whose gate says not now starts nothing.)
            guard started, case .success(let flow) = shaped.service.flows.flow(name) else { continue }
            // Every kind started here made one shape (the experiment: one for each variant); a
            // flow that reads the clock makes none, as its starts differ by when they ran.
            if flow.readsClock {
                #expect(flow.startShapes.count == 0, "\(name)")
            } else {
                #expect(flow.startShapes.count >= 1, "\(name)")
            }
        }
        #expect(ids.count >= 60)
        // Their timers fall due and their views stay the same, second by second.
        for second in 0..<6 {
            clock.advance(by: 1)
            full.service.advanceDue()
            shaped.service.advanceDue()
            full.service.flush()
            shaped.service.flush()
            for (x, y, visitor) in ids {
                let a = full.request("GET", "/v1/conversations/\(x)", visitor: visitor)
                let b = shaped.request("GET", "/v1/conversations/\(y)", visitor: visitor)
                #expect(Self.normalized(a) == Self.normalized(b), "second \(second + 1)")
            }
        }
        for (x, y, _) in ids { #expect(try Self.stored(full, x) == Self.stored(shaped, y)) }
    }

    @Test("starts with values of their own are made in full, and a flow keeps at most a few kinds")
    func valuesAndLimit() throws {
        let h = try Harness()
        for k in 0..<3 {
            let r = h.request("POST", "/v1/conversations", body: #"{"flow": "basic", "visitor": "ada", "vars": {"name": "n\#(k)"}}"#)
            #expect(r.status == 201, "\(r.text)")
        }
        guard case .success(let flow) = h.service.flows.flow("basic") else { Issue.record("no basic flow"); return }
        #expect(flow.startShapes.count == 0)
        let r = h.request("POST", "/v1/conversations", body: #"{"flow": "basic", "visitor": "ada"}"#)
        #expect(r.status == 201)
        #expect(flow.startShapes.count == 1)
        // Past the limit, kinds are not kept (each of these languages is a kind of its own).
        let shapes = StartShapes()
        let shape = try #require(
            flow.startShapes.shape(
                ConversationService.StartKey(
                    flowName: "basic",
                    // A flow that does not read the clock is given none.
                    options: ConversationOptions(timing: .instant, echoReplies: true),
                    from: nil,
                    exposure: nil, variant: nil, language: "en"),
                strings: .forLocale("en")))
        for k in 0..<(StartShapes.limit + 5) {
            shapes.keep(shape, for: .init(flowName: "basic", options: .init(), from: nil, exposure: nil, variant: nil, language: "l\(k)"))
        }
        #expect(shapes.count == StartShapes.limit)
        // Another language's messages do not use a shape made with English ones.
        let other = try #require(ConversationService.SharedStrings.known.first { $0.value.language != "en" })
        #expect(
            flow.startShapes.shape(
                .init(
                    flowName: "basic",
                    // A flow that does not read the clock is given none.
                    options: ConversationOptions(timing: .instant, echoReplies: true),
                    from: nil, exposure: nil, variant: nil,
                    language: "en"),
                strings: other) == nil)
    }
}
