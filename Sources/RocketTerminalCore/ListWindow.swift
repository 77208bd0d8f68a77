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
