import RocketBanners
import RocketConversation
import RocketCore
import RocketReactor
import Testing
import RocketText

@testable import RocketTerminal
@testable import RocketTerminalApps
@testable import RocketTerminalCore

/// No terminal size may crash a view: anything from 0 columns to thousands.
@Suite("Views at every size")
struct TinySizeTests {
    static let widths = Array(-2...24) + [40, 80, 1000, 5000]

    @Test("Alerts and sheets lay out at every width")
    func alerts() {
        let items: [AlertView.Item] = [("Delete", .destructive, true), ("Keep", .default, true), ("Cancel", .cancel, true)]
        for w in Self.widths {
            for style in [AlertStyle.alert, .actionSheet] {
                var view = AlertView(width: 80, strings: .english)
                view.width = w  // as a resize does
                let (screen, _) = view.layout(title: "Delete item?", message: "For ever.", buttons: items, style: style, focus: 1)
                #expect(screen.rows.count < 100, "width \(w)")
            }
        }
    }

    @Test("Banners lay out at every width")
    func banners() throws {
        var banner = Banner(title: "New message", subtitle: "From Ada", backgroundColor: nil, icon: .text("✉"))
        banner.buttons = try BannerButtons(configuration: 2, titles: ["Reply", "Ignore"])
        for w in Self.widths {
            var view = BannerView(width: 80, strings: .english)
            view.width = w
            _ = view.fullRows(for: banner, focus: 0)
            _ = view.buttonColumns(for: banner)
        }
    }

    @Test("Conversations lay out at every width")
    func conversations() {
        var c = sampleConversation()
        c.start(at: 0)
        for w in Self.widths {
            var ui = ConversationUI()
            KeyController.sync(&ui, with: c)
            var view = ConversationView(width: 80, author: RocketAuthor(image: nil, name: "Rocket"), closeTitle: "Close", strings: .english)
            view.width = w
            _ = view.layout(c, ui: ui)
        }
    }
}
