/// The part of a list that a screen has room for. A frame taller than the screen is drawn from
/// its bottom, and the rows above go into the scrollback, never drawn again: a list longer than
/// the room shows a window of it that holds the focus.
package enum ListWindow {
    /// The `rows` items of `count` that are shown so that `focus` is among them: the window that
    /// last stood at `top`, moved only as far as the focus needs (all of them when they fit).
    package static func visible(count: Int, focus: Int, rows: Int, top: Int) -> Range<Int> {
        let rows = max(1, rows)
        guard count > rows else { return 0..<max(0, count) }
        let focus = min(max(0, focus), count - 1)
        var top = top
        if focus < top { top = focus }
        if focus >= top + rows { top = focus - rows + 1 }
        top = max(0, min(top, count - rows))
        return top..<(top + rows)
    }
}

/// The item a typed character moves the focus to in a list, as the menus of whiptail and dialog
/// do: the next one after the focus (going round) whose title begins with it, letters in any case.
package enum TypeAhead {
    /// The place in `titles` (in the order they are drawn) after `focus` whose title begins with
    /// `typed` and that `allowed` lets through (a disabled action is passed over); nil when none does.
    package static func next(_ typed: Character, after focus: Int?, in titles: [String], allowed: (Int) -> Bool = { _ in true }) -> Int? {
        guard !titles.isEmpty else { return nil }
        let wanted = String(typed).lowercased()
        let from = focus.map { min(max(0, $0), titles.count - 1) } ?? titles.count - 1
        for step in 1...titles.count {
            let k = (from + step) % titles.count
            if allowed(k), titles[k].first.map({ String($0).lowercased() }) == wanted { return k }
        }
        return nil
    }
}
