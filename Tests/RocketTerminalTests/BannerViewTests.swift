import Testing
import RocketText
@testable import RocketTerminal
@testable import RocketTerminalApps
@testable import RocketTerminalCore

import RocketBanners
import RocketCore

@Suite("Banner screens")
struct BannerViewTests {
    func text(_ rows: [[Cell]]) -> [String] {
        rows.map { row in
            var s = row.map(\.text).joined()
            while s.hasSuffix(" ") { s.removeLast() }
            return s
        }
    }

    @Test("Title, subtitle, icon and buttons at 60 columns; background colour across the width")
    func layout() {
        var b = Banner(title: "New message", subtitle: "From Ada", backgroundColor: RocketColor(hex: "#2E7D32"), icon: .text("✉"))
        b.buttons = .two("Reply", "Ignore")
        var view = BannerView(width: 60, strings: .english)
        view.hint = "Esc dismiss"
        let rows = view.fullRows(for: b, focus: 1)
        #expect(
            text(rows) == [
                " ✉  New message                             Reply   Ignore",
                "    From Ada",
                "                        Esc dismiss",
            ])
        #expect(rows.allSatisfy { $0.allSatisfy { $0.style.background != .default } })
        // The focused button is inverted, on the darker shade.
        let ignore = rows[0].first { $0.text == "I" }!
        #expect(ignore.style.inverse && ignore.style.background == .rgb(0x08, 0x57, 0x0C))
        #expect(view.buttonColumns(for: b).map(\.tag) == [.firstOfTwo, .secondOfTwo])
    }

    @Test("Wide characters and long titles are cut at the edge, never past it", arguments: [20, 30, 44])
    func narrow(width: Int) {
        var b = Banner(title: "界界界界界界界界界界界界界界界界界界界界界", subtitle: String(repeating: "word ", count: 30), backgroundColor: nil, icon: nil)
        b.buttons = .close
        let rows = BannerView(width: width, strings: .english).fullRows(for: b, focus: nil)
        #expect(rows.allSatisfy { $0.count == width })
        #expect(rows.count == 3)  // title + two subtitle lines
        #expect(text(rows)[2].hasSuffix("…"))
        #expect(text(rows)[0].hasSuffix(" ✕"))
    }

    @Test("Entrance animations reveal rows: slide, drop with an overshoot, snap; reduced motion draws the end")
    func animations() {
        var b = Banner(title: "T", subtitle: "S", backgroundColor: nil, icon: nil)
        var view = BannerView(width: 30, strings: .english)
        view.hint = "hint"
        for animation in BannerAnimation.allCases {
            b.animationType = animation
            var q = BannerQueue()
            _ = q.enqueue(b, at: 0)
            let showing = q.visible[0]
            let counts = stride(from: 0.0, through: animation.entrance, by: animation.entrance / 10).map { view.rows(for: showing, at: $0, focus: nil).count }
            #expect(counts.last == 3, "\(animation)")
            switch animation {
            case .linear: #expect(counts.first! <= 1 && counts == counts.sorted())
            case .drop: #expect(counts.contains(4))
            case .snap: #expect(Set(counts) == [0, 3])
            }
            view.reducedMotion = true
            #expect(view.rows(for: showing, at: 0, focus: nil).count == 3)
            view.reducedMotion = false
        }
    }
}
