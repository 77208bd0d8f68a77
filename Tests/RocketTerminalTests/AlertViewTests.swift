import Testing
import RocketText
@testable import RocketTerminal
@testable import RocketTerminalApps
@testable import RocketTerminalCore

import RocketReactor

@Suite("Alert screens")
struct AlertViewTests {
    let items: [AlertView.Item] = [("Edit", .default, true), ("Share", .default, false), ("Delete", .destructive, true), ("Cancel", .cancel, true)]

    @Test("An alert is a centred box; cancel is set apart; disabled ones are dimmed; destructive is red")
    func alert() {
        let (screen, hits) = AlertView(width: 40, strings: .english).layout(title: "Item", message: "Choose an action", buttons: items, style: .alert, focus: 0)
        #expect(
            screen.lines == [
                " ╭────────────────────────────────────╮",
                " │                Item                │",
                " │          Choose an action          │",
                " ├────────────────────────────────────┤",
                " │                Edit                │",
                " │              (Share)               │",
                " │               Delete               │",
                " ├────────────────────────────────────┤",
                " │               Cancel               │",
                " ╰────────────────────────────────────╯",
                "     ↑/↓ ←/→ choose · Enter select",  // whole hint items only
            ])
        #expect(hits[3]?.row == 8)
        let delete = screen.rows[6].first { $0.text == "D" }!
        #expect(delete.style.foreground == .rgb(0xEC, 0x5E, 0x61))
        #expect(screen.rows[5].first { $0.text == "S" }!.style.dim)
        #expect(screen.rows[4].first { $0.text == "E" }!.style.inverse)
    }

    @Test("Few short actions sit in one row; a sheet spans the width")
    func rowAndSheet() {
        let two: [AlertView.Item] = [("OK", .default, true), ("Cancel", .cancel, true)]
        let (alert, _) = AlertView(width: 40, strings: .english).layout(title: "Sure?", message: nil, buttons: two, style: .alert, focus: nil)
        #expect(alert.lines[3].contains("[ OK ]  [ Cancel ]"))
        let (sheet, _) = AlertView(width: 40, strings: .english).layout(title: nil, message: nil, buttons: two, style: .actionSheet, focus: nil)
        #expect(sheet.lines[0] == " ╭" + String(repeating: "─", count: 36) + "╮")
    }

    @Test("Focus skips disabled actions and wraps, in drawing order")
    func focus() {
        #expect(AlertView.nextFocus(from: nil, step: 1, buttons: items) == 0)
        #expect(AlertView.nextFocus(from: 0, step: 1, buttons: items) == 2)
        #expect(AlertView.nextFocus(from: 2, step: 1, buttons: items) == 3)
        #expect(AlertView.nextFocus(from: 3, step: 1, buttons: items) == 0)
        #expect(AlertView.nextFocus(from: 0, step: -1, buttons: items) == 3)
        #expect(AlertView.nextFocus(from: nil, step: 1, buttons: [("x", .default, false)]) == nil)
    }
}
