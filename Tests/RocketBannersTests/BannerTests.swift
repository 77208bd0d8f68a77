import Testing
@testable import RocketBanners
import RocketCore

/// A center on a manual clock recording handler calls and events.
final class BannerHarness {
    let clock = ManualClock()
    let center: BannerCenter
    var log: [String] = []

    init(queue: BannerQueue = BannerQueue()) {
        center = BannerCenter(clock: clock, queue: queue)
        center.onEvent = { [unowned self] e in
            switch e {
            case .willShow(let t): log.append("willShow \(t)")
            case .didShow(let t): log.append("didShow \(t)")
            case .willHide(let t, let r): log.append("willHide \(t) \(r)")
            case .didHide(let t, let r): log.append("didHide \(t) \(r)")
            case .buttonTapped(let t, let tag): log.append("tapped \(t) \(tag.rawValue)")
            case .deduplicated(let id, let t): log.append("dedupe \(id) \(t)")
            }
        }
    }

    @discardableResult
    func show(_ b: Banner, delay: Double = 0, minimum: Double = 0) -> BannerToken {
        center.show(
            b, delay: delay, minimum: minimum, buttonHandler: { [unowned self] tag in log.append("handler \(tag.rawValue)") },
            dismissHandler: { [unowned self] r in log.append("dismissHandler \(r)") })
    }

    func run(_ seconds: Double) {
        let target = clock.now + seconds
        while let d = center.nextDeadline, d <= target { clock.set(max(clock.now, d)); center.tick() }
        clock.set(target)
        center.tick()
    }
}

@Suite("Banners: MPGNotification's semantics")
struct BannerTests {
    @Test("Defaults are the original's")
    func defaults() {
        let b = Banner(title: "Hi", subtitle: "there", backgroundColor: .black, icon: .text("🚀"))
        #expect(b.titleColor == .white && b.subtitleColor == .white && b.backgroundTapsEnabled && b.swipeToDismissEnabled)
        #expect(!b.fullWidthMessages && b.duration == 0 && b.animationType == .linear && b.buttons == .none)
        #expect(b.subtitle == "there" && b.icon == .text("🚀"))
    }

    @Test("The tag table: background 0; one button 1; two buttons 2 and 4319; close 3")
    func tags() throws {
        #expect(BannerTag.background.rawValue == 0)
        #expect(try BannerButtons(configuration: 1, titles: ["OK"]).items.map(\.tag.rawValue) == [1])
        #expect(try BannerButtons(configuration: 2, titles: ["A", "B"]).items.map(\.tag.rawValue) == [2, 4319])
        #expect(try BannerButtons(configuration: 3, titles: ["ignored"]).items.map { "\($0.title) \($0.tag.rawValue)" } == ["X 3"])
        #expect(try BannerButtons(configuration: 0, titles: []).items.isEmpty)
    }

    @Test(
        "Title counts that do not match the configuration are errors, not assertions",
        arguments: [
            (0, ["x"]), (1, []), (1, ["a", "b"]), (2, ["a"]), (2, ["a", "b", "c"]), (7, []),
        ] as [(Int, [String])])
    func titleCounts(configuration: Int, titles: [String]) {
        #expect(throws: BannerError.self) { try BannerButtons(configuration: configuration, titles: titles) }
    }

    @Test("Reconfiguring keeps no stale buttons or tags (M1–M3)")
    func reconfigure() throws {
        var b = Banner(title: "x")
        b.buttons = try BannerButtons(configuration: 1, titles: ["One"])
        b.buttons = try BannerButtons(configuration: 2, titles: ["A", "B"])
        #expect(b.buttons.items.map(\.title) == ["A", "B"])
        #expect(b.buttons.items.map(\.tag) == [.firstOfTwo, .secondOfTwo])
        b.buttons = try BannerButtons(configuration: 0, titles: [])
        #expect(b.buttons.items.isEmpty)
    }

    @Test("A button tap starts the exit, then calls the handler with the tag; the dismiss handler runs at the end")
    func buttonOrdering() throws {
        let h = BannerHarness()
        var b = Banner(title: "x")
        b.buttons = .two("Yes", "No")
        let t = h.show(b)
        h.run(0.25)
        try h.center.send(.tap(.secondOfTwo), to: t)
        #expect(h.log.suffix(3) == ["willHide #1 button(RocketBanners.BannerTag.secondOfTwo)", "handler 4319", "tapped #1 4319"])
        #expect(!h.log.contains { $0.hasPrefix("dismissHandler") })
        h.run(0.25)
        #expect(h.log.suffix(2) == ["dismissHandler button(RocketBanners.BannerTag.secondOfTwo)", "didHide #1 button(RocketBanners.BannerTag.secondOfTwo)"])
    }

    @Test("Input is ignored once the exit began: the handler never runs twice (M4)")
    func noDoubleHandler() throws {
        let h = BannerHarness()
        let t = h.show(Banner(title: "x"))
        h.run(0.25)
        try h.center.send(.tap(.background), to: t)
        try h.center.send(.tap(.background), to: t)
        h.run(1)
        #expect(h.log.filter { $0.hasPrefix("handler") } == ["handler 0"])
        #expect(h.log.filter { $0.hasPrefix("dismissHandler") }.count == 1)
    }

    @Test("A swipe dismisses at once without the button handler; disabled swipes and background taps are refused")
    func swipe() throws {
        let h = BannerHarness()
        let t = h.show(Banner(title: "x"))
        h.run(0.25)
        try h.center.send(.swipe, to: t)
        #expect(h.log.suffix(3) == ["willHide #1 swipe", "dismissHandler swipe", "didHide #1 swipe"])
        #expect(!h.log.contains { $0.hasPrefix("handler") })
        var locked = Banner(title: "y")
        locked.swipeToDismissEnabled = false
        locked.backgroundTapsEnabled = false
        let t2 = h.show(locked)
        h.run(1)
        #expect(throws: BannerError.self) { try h.center.send(.swipe, to: t2) }
        #expect(throws: BannerError.self) { try h.center.send(.tap(.background), to: t2) }
        #expect(throws: BannerError.self) { try h.center.send(.tap(.close), to: t2) }
    }

    @Test("The duration dismisses; linear starts the timer after the slide, drop and snap at once", arguments: BannerAnimation.allCases)
    func timer(animation: BannerAnimation) {
        let h = BannerHarness()
        var b = Banner(title: "x")
        b.duration = 2
        b.animationType = animation
        h.show(b)
        let expectedStart = 2 + (animation == .linear ? animation.entrance : 0)
        h.run(expectedStart - 0.01)
        #expect(!h.log.contains { $0.contains("timeout") })
        h.run(0.02)
        #expect(h.log.contains("willHide #1 timeout"))
        h.run(1)
        #expect(h.log.contains("dismissHandler timeout"))
    }

    @Test("Any drag cancels auto-dismiss for good (M8)")
    func dragCancelsTimer() throws {
        let h = BannerHarness()
        var b = Banner(title: "x")
        b.duration = 1
        let t = h.show(b)
        h.run(0.5)
        try h.center.send(.beginDrag, to: t)
        h.run(60)
        #expect(!h.log.contains { $0.contains("timeout") })
        #expect(h.center.queue.visible.count == 1)
    }

    @Test("Duration 0 stays; dismiss(animated:) ends it either way, once")
    func programmatic() {
        let h = BannerHarness()
        let t = h.show(Banner(title: "x"))
        h.run(100)
        #expect(h.center.queue.visible.count == 1)
        h.center.dismiss(t, animated: false)
        #expect(h.log.suffix(2) == ["dismissHandler programmatic(animated: false)", "didHide #1 programmatic(animated: false)"])
        h.center.dismiss(t, animated: true)
        #expect(h.log.filter { $0.hasPrefix("dismissHandler") }.count == 1)
    }

    @Test("The darker button colour: each component − 0.15, floored at 0")
    func darker() {
        let c = Banner.darker(RocketColor(red: 0.5, green: 0.1, blue: 1))
        #expect(abs(c.red - 0.35) < 1e-9 && c.green == 0 && abs(c.blue - 0.85) < 1e-9)
    }
}

@Suite("Banner queue")
struct BannerQueueTests {
    @Test("One at a time, FIFO within priority, with a pause between banners")
    func order() throws {
        let h = BannerHarness(queue: BannerQueue(pauseBetween: 0.5, reducedMotion: true))
        var a = Banner(title: "a"); a.duration = 1
        var b = Banner(title: "b"); b.duration = 1
        var c = Banner(title: "c"); c.duration = 1; c.priority = 5
        h.show(a); h.show(b); h.show(c)
        #expect(h.center.queue.visible.map(\.banner.title) == ["a"])
        h.run(1)
        #expect(h.center.queue.visible.isEmpty)  // the pause
        h.run(0.5)
        #expect(h.center.queue.visible.map(\.banner.title) == ["c"])  // priority first
        h.run(1.5)
        #expect(h.center.queue.visible.map(\.banner.title) == ["b"])
    }

    @Test("A configurable maximum shows several at once")
    func several() {
        let h = BannerHarness(queue: BannerQueue(maxVisible: 2, pauseBetween: 0))
        for t in ["a", "b", "c"] { h.show(Banner(title: t)) }
        #expect(h.center.queue.visible.map(\.banner.title) == ["a", "b"])
        #expect(h.center.queue.waitingCount == 1)
    }

    @Test("Duplicates by id are reported, never silent")
    func dedupe() {
        let h = BannerHarness()
        var b = Banner(title: "sync"); b.id = "sync"
        let t1 = h.show(b)
        let t2 = h.show(b)
        #expect(t1 == t2)
        #expect(h.log.contains("dedupe sync #1"))
        #expect(h.center.queue.visible.count + h.center.queue.waitingCount == 1)
    }

    @Test("Hide by id, counted hide and hide all")
    func hiding() {
        let h = BannerHarness(queue: BannerQueue(pauseBetween: 0, reducedMotion: true))
        var b = Banner(title: "work"); b.id = "work"
        h.show(b); h.show(b); h.show(b)
        h.center.hideCounted(id: "work")
        h.center.hideCounted(id: "work")
        #expect(h.center.queue.visible.count == 1)
        h.center.hideCounted(id: "work")
        #expect(h.center.queue.visible.isEmpty)
        #expect(h.log.contains("dismissHandler hidden"))
        var x = Banner(title: "x"); x.id = "x"
        h.show(x); h.show(Banner(title: "y")); h.show(Banner(title: "z"))
        h.center.hide(id: "x")
        h.run(0)
        #expect(h.center.queue.visible.map(\.banner.title) == ["y"])
        h.center.hideAll()
        h.run(1)
        #expect(h.center.queue.isIdle)
        #expect(h.log.filter { $0.hasPrefix("dismissHandler") }.count == 4)
    }

    @Test("Show only if the work takes longer than the delay, then keep it up at least the minimum")
    func delayedAndMinimum() {
        let h = BannerHarness(queue: BannerQueue(pauseBetween: 0, reducedMotion: true))
        var quick = Banner(title: "quick"); quick.id = "quick"
        h.show(quick, delay: 1, minimum: 2)
        h.run(0.5)
        h.center.hide(id: "quick")  // the work finished before the delay: never shown
        h.run(5)
        #expect(!h.log.contains("willShow #1"))
        var slow = Banner(title: "slow"); slow.id = "slow"
        h.show(slow, delay: 1, minimum: 2)
        h.run(1)
        #expect(h.center.queue.visible.map(\.banner.title) == ["slow"])
        h.run(0.5)
        h.center.hide(id: "slow")  // hidden early: stays until the minimum
        #expect(h.center.queue.visible.count == 1)
        h.run(1.49)
        #expect(h.center.queue.visible.count == 1)
        h.run(0.02)
        #expect(h.center.queue.visible.isEmpty)
    }

    @Test("The dismiss handler runs exactly once per showing on every path", arguments: ["button", "background", "swipe", "timeout", "dismiss", "hide"])
    func exactlyOnce(path: String) throws {
        let h = BannerHarness()
        var b = Banner(title: "x"); b.buttons = .one("OK"); b.duration = path == "timeout" ? 1 : 0; b.id = "x"
        let t = h.show(b)
        h.run(0.3)
        switch path {
        case "button": try h.center.send(.tap(.oneButton), to: t)
        case "background": try h.center.send(.tap(.background), to: t)
        case "swipe": try h.center.send(.swipe, to: t)
        case "dismiss": h.center.dismiss(t, animated: true)
        case "hide": h.center.hide(id: "x")
        default: break
        }
        h.run(5)
        #expect(h.log.filter { $0.hasPrefix("dismissHandler") }.count == 1)
        #expect(h.log.filter { $0.hasPrefix("didHide") }.count == 1)
    }
}
