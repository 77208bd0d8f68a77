import Testing
import RocketBanners
import RocketCore
import RocketFlow
import RocketScenarios

/// Flow files and command-line flags read banners and scenario rules through one codec each, so
/// they accept and refuse the same values.
@Suite("One codec for banners and scenario rules")
struct CodecTests {
    func lintCodes(when: String) -> [String] {
        FlowLoader.load(#"{"version": 1, "scenario": "s", "when": {"# + when + #"}, "blocks": [{"id": "a", "type": "text", "text": "Hi"}]}"#)
            .diagnostics.map(\.code)
    }

    @Test("Every scenario-rule value: the flow and the flag agree")
    func rules() {
        let samples = ["5", "0", "-1", "1e30", "2.5", "14d", "500ms", "soon", "99999999999999999999w", "101y", ""]
        for field in ScenarioRulesCodec.Field.allCases where !field.flowKey.contains(".") && field != .priority {  // priority has no flag
            for sample in samples {
                let flagOK = ScenarioRulesCodec.rules([field: .text(sample)]).problems.isEmpty
                // The flow gives counts as numbers and durations as strings or numbers.
                let json: String
                if field.kind == .duration || field.kind == .name {
                    json = "\"\(sample)\""
                } else if let n = Double(sample) {
                    json = String(n)
                } else {
                    continue
                }
                let flowOK = lintCodes(when: "\"\(field.rawValue)\": \(json)").isEmpty
                #expect(flagOK == flowOK, "\(field) \(sample): flag \(flagOK), flow \(flowOK)")
            }
        }
        #expect(!ScenarioRulesCodec.rules([.windowCount: .text("3")]).problems.isEmpty)  // needs its window
        #expect(
            ScenarioRulesCodec.rules([.windowCount: .text("3"), .windowSeconds: .text("7d")]).rules.minEventsInWindow
                == EventWindow(count: 3, seconds: 7 * 86_400))
    }

    @Test("Banner values: the icon rule, colours, buttons and durations are the same in both")
    func banners() {
        #expect(BannerCodec.icon("data:image/png;base64,AAAA") == .success(.image(RocketImage(reference: "data:image/png;base64,AAAA"))))
        #expect(BannerCodec.icon("logo.png") == .success(.image(.file("logo.png"))))
        #expect(BannerCodec.icon("✉") == .success(.text("✉")))
        #expect((try? BannerCodec.icon("").get()) == nil)
        #expect((try? BannerCodec.buttons(["", "No"], close: false).get()) == nil)
        #expect((try? BannerCodec.buttons(["A", "B", "C"], close: false).get()) == nil)
        #expect(BannerCodec.duration(.text("5s")) == .success(5))
        #expect(BannerCodec.duration(.number(2.5)) == .success(2.5))
        #expect((try? BannerCodec.duration(.text("1e300")).get()) == nil)
        let flow = FlowLoader.load(
            #"""
            {"version": 1, "banner": {"title": "T", "icon": "data:image/png;base64,AAAA", "buttons": ["", "No"], "duration": "5s"},
             "blocks": [{"id": "a", "type": "text", "text": "Hi"}]}
            """#)
        #expect(flow.diagnostics.map(\.code) == ["empty-value"])
        let ok = FlowLoader.load(
            #"""
            {"version": 1, "banner": {"title": "T", "buttons": ["Yes"], "duration": "1.5m", "animation": "drop"},
             "blocks": [{"id": "a", "type": "text", "text": "Hi"}]}
            """#)
        #expect(ok.diagnostics.isEmpty)
        #expect(ok.document?.banner?.duration == 90)
        #expect(ok.document?.banner?.animationType == .drop)
    }
}
