import Testing
@testable import RocketTerminal
@testable import RocketTerminalCore

import RocketTestSupport

/// A frame of `lines`, one a row, `width` wide, the cursor at `cursor`.
private func frame(_ lines: [String], width: Int, cursor: (Int, Int)? = nil) -> ScreenBuffer {
    var s = ScreenBuffer(width: width)
    for l in lines { let r = s.addRow(); s.put(l, row: r, column: 0) }
    s.cursor = cursor
    return s
}

@Suite("Inline renderer round trips through a virtual terminal")
struct RendererTests {
    @Test("Successive frames leave exactly the last frame on screen")
    func roundTrip() {
        var vt = VirtualTerminal(width: 20, height: 10)
        vt.feed(Array("$ prompt\r\n".utf8))
        var r = InlineRenderer(depth: .truecolor)
        let frames = [
            ["hello"], ["hello", "world"], ["hallo", "world", "界界 ok"], ["hallo", "w"], ["x", "", "y", "z"],
        ]
        for f in frames {
            vt.feed(r.render(frame(f, width: 19), screenHeight: 10))
            #expect(Array(vt.lines[1..<(1 + f.count)]) == f, "frame \(f)")
            #expect(vt.lines[(1 + f.count)...].allSatisfy { $0.isEmpty })
            #expect(vt.lines[0] == "$ prompt")
        }
        vt.feed(r.finish())
        #expect(vt.row == 5 && vt.column == 0)
    }

    @Test("A frame taller than the screen scrolls its top into the scrollback")
    func scrolling() {
        var vt = VirtualTerminal(width: 10, height: 4)
        var r = InlineRenderer(depth: .none)
        let lines = (1...7).map { "line \($0)" }
        vt.feed(r.render(frame(lines, width: 9), screenHeight: 4))
        #expect(vt.allLines.suffix(7) == lines[...])
        // Changing a visible row later still works.
        var changed = lines
        changed[6] = "LAST"
        vt.feed(r.render(frame(changed, width: 9), screenHeight: 4))
        #expect(vt.lines == ["line 4", "line 5", "line 6", "LAST"])
    }

    @Test("Typing one character at the cursor costs one byte")
    func bytesPerKey() {
        var r = InlineRenderer(depth: .truecolor)
        var style = CellStyle(foreground: .rgb(1, 2, 3), bold: true)
        style.inverse = true
        var f = frame(["question"], width: 30)
        let row = f.addRow()
        f.put("› ", row: row, column: 0, style: style)
        f.put("[ Send ]", row: row, column: 20, style: style)
        f.cursor = (row, 2)
        _ = r.render(f, screenHeight: 10)
        var typed = ""
        for ch in "Ada" {
            typed.append(ch)
            var g = f
            g.put(typed, row: row, column: 2)
            g.cursor = (row, 2 + typed.count)
            let bytes = r.render(g, screenHeight: 10)
            #expect(bytes == Array(String(ch).utf8), "typing \(ch)")
        }
    }

    @Test("A row that gets shorter is erased whole and written again, never padded with spaces")
    func shorterRowsAreErased() {
        // tmux re-wraps rows by their written length when the window narrows: spaces written to
        // blank out old text would make a short row wrap as if it were full, and so would "erase
        // to end of line", which tmux does not count as shortening the row ("erase line" does).
        var vt = VirtualTerminal(width: 40, height: 6)
        var r = InlineRenderer(depth: .truecolor)
        vt.feed(r.render(frame(["a long first row of text here", "second"], width: 39), screenHeight: 6))
        let bytes = r.render(frame(["short", "second row, longer now"], width: 39), screenHeight: 6)
        vt.feed(bytes)
        #expect(Array(vt.lines[0..<2]) == ["short", "second row, longer now"])
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(text.contains("\u{1B}[2Kshort") && !text.contains("\u{1B}[K"))
        #expect(!text.contains("  "), "no run of spaces: \(text.debugDescription)")
        // A styled blank (a coloured bar) is ink and is written.
        var f = frame(["x"], width: 10)
        var barStyle = CellStyle()
        barStyle.background = .rgb(0, 0, 200)
        f.put("   ", row: 0, column: 5, style: barStyle)
        let bar = String(decoding: r.render(f, screenHeight: 6), as: UTF8.self)
        #expect(bar.contains("   "))
    }

    @Test("Only changed cells are written")
    func minimalDiff() {
        var r = InlineRenderer(depth: .none)
        _ = r.render(frame(["abcdefghij", "klmnopqrst"], width: 12), screenHeight: 10)
        let bytes = r.render(frame(["abcdefghij", "klmnoXqrst"], width: 12), screenHeight: 10)
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(text.contains("X"))
        #expect(!text.contains("klmno") && !text.contains("abc"))
        #expect(bytes.count < 16)
    }

    @Test("Styles encode per colour depth, truecolour downsampled")
    func colours() {
        #expect(InlineRenderer.colorParams(.rgb(0x31, 0x9C, 0xF7), background: false, depth: .truecolor) == ["38", "2", "49", "156", "247"])
        #expect(InlineRenderer.colorParams(.rgb(0x31, 0x9C, 0xF7), background: false, depth: .indexed256) == ["38", "5", "75"])
        #expect(InlineRenderer.colorParams(.rgb(255, 0, 0), background: false, depth: .ansi16) == ["91"])
        #expect(InlineRenderer.colorParams(.rgb(255, 0, 0), background: false, depth: .none) == [])
        #expect(ColorDepth.detect(["TERM": "xterm-256color"]) == .indexed256)
        #expect(ColorDepth.detect(["TERM": "xterm", "COLORTERM": "truecolor"]) == .truecolor)
        #expect(ColorDepth.detect(["TERM": "xterm-256color", "NO_COLOR": "1"]) == .none)
        #expect(ColorDepth.detect(["TERM": "dumb"]) == .none)
        #expect(ColorDepth.detect(["TERM": "dumb", "CLICOLOR_FORCE": "1"]) == .ansi16)
    }

    @Test("Invalidate clears and redraws against the bottom after a resize")
    func invalidate() {
        var vt = VirtualTerminal(width: 20, height: 6)
        var r = InlineRenderer(depth: .none)
        vt.feed(r.render(frame(["one", "two"], width: 19), screenHeight: 6))
        vt.feed(r.invalidate(screenHeight: 6))
        vt.feed(r.render(frame(["ONE", "TWO", "THREE"], width: 19), screenHeight: 6))
        #expect(Array(vt.lines.suffix(3)) == ["ONE", "TWO", "THREE"])
        #expect(!vt.lines.contains("one") && !vt.lines.contains("two"))
    }
}

@Suite("Mouse rows: screen to frame")
struct MouseMappingTests {
    @Test("Frame rows follow the region as the screen scrolls, even when the position report comes late")
    func mapping() {
        var r = InlineRenderer(depth: .none)
        var f = ScreenBuffer(width: 10)
        for k in 0..<6 { let row = f.addRow(); f.put("r\(k)", row: row, column: 0) }
        // The region started on screen row 2 of a 5-row screen; 6 rows scroll the screen by 3.
        var vt = VirtualTerminal(width: 11, height: 5)
        vt.feed(Array("a\r\nb\r\n".utf8))
        vt.feed(r.render(f, screenHeight: 5))
        #expect(r.frameRow(forScreenRow: 0, screenHeight: 5) == nil)
        r.startRow = 2  // the report arrives after the frame
        for screenRow in 0..<5 {
            let frame = r.frameRow(forScreenRow: screenRow, screenHeight: 5)!
            #expect(vt.lines[screenRow] == "r\(frame)")
        }
        // After a resize the region restarts against the bottom of the screen.
        vt.feed(r.invalidate(screenHeight: 5))
        vt.feed(r.render(f, screenHeight: 5))
        for screenRow in 0..<5 {
            #expect(vt.lines[screenRow] == "r\(r.frameRow(forScreenRow: screenRow, screenHeight: 5)!)")
        }
    }

    @Test("Cursor-position reports decode")
    func report() {
        var d = KeyDecoder()
        #expect(d.feed(Array("\u{1B}[12;1R".utf8)) == [.cursorPosition(row: 11, column: 0)])
    }
}

@Suite("Width disagreements")
struct WidthDisagreementTests {
    @Test("After a multi-scalar cluster the cursor is put back where the layout expects it")
    func reposition() {
        var r = InlineRenderer(depth: .none)
        var f = ScreenBuffer(width: 20)
        let row = f.addRow()
        f.put("✉️ ok 👨‍👩‍👧 x", row: row, column: 0)
        let text = String(decoding: r.render(f, screenHeight: 5), as: UTF8.self)
        #expect(text.contains("✉️\u{1B}[3G"))
        #expect(text.contains("👨‍👩‍👧\u{1B}[9G"))
        #expect(!text.contains("o\u{1B}["))  // plain characters need no repositioning
    }
}

@Suite("Resize: placed by the cursor's report")
struct ResizeReportTests {
    @Test("Rows a re-wrapping terminal pushed into its scrollback are not drawn again; the rest are, from the region's new top")
    func pushedRowsAreNotRedrawn() {
        var r = InlineRenderer(depth: .none)
        var f = ScreenBuffer(width: 99)
        // Three short rows, then one as wide as the screen (it re-wraps to three at 40 columns).
        for text in ["a", "b", "c"] { let row = f.addRow(); f.put(text, row: row, column: 0) }
        let wide = f.addRow()
        f.put(String(repeating: "w", count: 99), row: wide, column: 0)
        let last = f.addRow()
        f.put("end", row: last, column: 0)
        _ = r.render(f, screenHeight: 5)
        // The region started at the top of a 5-row screen; at 40 columns its 5 rows take 7 lines,
        // so tmux pushed two into its history and left the cursor (after "end") on the last row.
        let bytes = String(decoding: r.resize(cursorRow: 4, width: 40, screenHeight: 5), as: UTF8.self)
        #expect(bytes.hasPrefix("\u{1B}[1;1H\u{1B}[2K"))  // the region now starts at the screen's top
        var g = ScreenBuffer(width: 39)
        for text in ["a", "b", "c", "w", "end"] { let row = g.addRow(); g.put(text, row: row, column: 0) }
        let next = String(decoding: r.render(g, screenHeight: 5), as: UTF8.self)
        // "a" and "b" are in the scrollback, the same in the new frame: drawn from "c" on.
        #expect(!next.contains("a") && !next.contains("b") && next.hasPrefix("c"), "\(next.debugDescription)")
        #expect(r.frameRow(forScreenRow: 0, screenHeight: 5) == 2)
        // Still two rows in the scrollback at the next resize, but the frame's second row changed:
        // it is drawn from the first row that differs ("a" is kept there, "B" drawn).
        var h = ScreenBuffer(width: 39)
        for text in ["a", "B", "c"] { let row = h.addRow(); h.put(text, row: row, column: 0) }
        _ = r.resize(cursorRow: 2, width: 39, screenHeight: 5)
        let redrawn = String(decoding: r.render(h, screenHeight: 5), as: UTF8.self)
        #expect(redrawn.hasPrefix("B") && !redrawn.contains("a"), "\(redrawn.debugDescription)")
    }

    @Test("Nothing pushed: the region is erased from its top down and redrawn where it is")
    func nothingPushed() {
        var r = InlineRenderer(depth: .none)
        var f = ScreenBuffer(width: 20)
        for text in ["one", "two"] { let row = f.addRow(); f.put(text, row: row, column: 0) }
        _ = r.render(f, screenHeight: 10)
        // The cursor is on the second row, which is screen row 6: the region starts at row 5.
        let bytes = String(decoding: r.resize(cursorRow: 6, width: 30, screenHeight: 10), as: UTF8.self)
        #expect(bytes.hasPrefix("\u{1B}[6;1H\u{1B}[2K\u{1B}[7;1H\u{1B}[J"))
        #expect(String(decoding: r.render(f, screenHeight: 10), as: UTF8.self).hasPrefix("one"))
        #expect(r.frameRow(forScreenRow: 5, screenHeight: 10) == 0)
    }
}

@Suite("Resize: the frame against the bottom")
struct ResizeAnchorTests {
    @Test("After a resize a frame taller than the screen keeps its clicks on their rows as it grows")
    func tallThenGrows() {
        var r = InlineRenderer(depth: .none)
        var f = ScreenBuffer(width: 10)
        for k in 0..<6 { let row = f.addRow(); f.put("r\(k)", row: row, column: 0) }
        var vt = VirtualTerminal(width: 11, height: 4)
        vt.feed(r.render(f, screenHeight: 4))
        vt.feed(r.invalidate(screenHeight: 4))
        vt.feed(r.render(f, screenHeight: 4))
        #expect(vt.lines == ["r2", "r3", "r4", "r5"])
        #expect(r.frameRow(forScreenRow: 0, screenHeight: 4) == 2)
        let row = f.addRow()
        f.put("r6", row: row, column: 0)
        vt.feed(r.render(f, screenHeight: 4))
        #expect(vt.lines == ["r3", "r4", "r5", "r6"])
        #expect(r.frameRow(forScreenRow: 0, screenHeight: 4) == 3 && r.frameRow(forScreenRow: 3, screenHeight: 4) == 6)
    }

    @Test("After a resize a short frame is drawn on the screen's last rows, and clicks map to its rows")
    func bottom() {
        var r = InlineRenderer(depth: .none)
        var f = ScreenBuffer(width: 10)
        for k in 0..<3 { let row = f.addRow(); f.put("r\(k)", row: row, column: 0) }
        var vt = VirtualTerminal(width: 11, height: 8)
        vt.feed(r.render(f, screenHeight: 8))
        vt.feed(r.invalidate(screenHeight: 8))
        vt.feed(r.render(f, screenHeight: 8))
        #expect(Array(vt.lines.suffix(3)) == ["r0", "r1", "r2"])
        #expect(vt.lines.prefix(5).allSatisfy { $0.isEmpty })
        #expect(r.frameRow(forScreenRow: 5, screenHeight: 8) == 0 && r.frameRow(forScreenRow: 7, screenHeight: 8) == 2)
        // It grows upwards from there, scrolling the blank rows above it away.
        let row = f.addRow()
        f.put("r3", row: row, column: 0)
        vt.feed(r.render(f, screenHeight: 8))
        #expect(Array(vt.lines.suffix(4)) == ["r0", "r1", "r2", "r3"])
        #expect(r.frameRow(forScreenRow: 7, screenHeight: 8) == 3)
    }
}

@Suite("Ctrl-Z: the region gives its place to the shell")
struct SuspendTests {
    @Test("The region is erased and the cursor left where it began; the next frame starts below the shell's lines")
    func shortFrame() {
        var vt = VirtualTerminal(width: 20, height: 10)
        vt.feed(Array("$ rocket choose\r\n".utf8))
        var r = InlineRenderer(depth: .truecolor)
        let f = frame(["  Color", "› type", "❯ red", "  green"], width: 19, cursor: (1, 2))
        vt.feed(r.render(f, screenHeight: 10))
        r.startRow = 1
        vt.feed(r.suspend())
        #expect(vt.lines[0] == "$ rocket choose")
        #expect(vt.lines[1...].allSatisfy { $0.isEmpty })
        #expect(vt.row == 1 && vt.column == 0)
        #expect(r.startRow == nil)
        // The shell says the job stopped, then `fg` continues it.
        vt.feed(Array("[1]+  Stopped\r\n$ fg\r\n".utf8))
        r.place(reportedRow: vt.row)
        vt.feed(r.render(f, screenHeight: 10))
        #expect(Array(vt.lines[0..<7]) == ["$ rocket choose", "[1]+  Stopped", "$ fg", "  Color", "› type", "❯ red", "  green"])
        #expect(r.frameRow(forScreenRow: 5, screenHeight: 10) == 2)
        // Drawing goes on in place from there.
        vt.feed(r.render(frame(["  Color", "› type", "  red", "❯ green"], width: 19), screenHeight: 10))
        #expect(Array(vt.lines[5..<7]) == ["  red", "❯ green"])
        #expect(vt.lines[7...].allSatisfy { $0.isEmpty })
    }

    @Test("A frame taller than the screen: the rows in the scrollback stay there once, the rest is drawn again below the shell's lines")
    func tallFrame() {
        var vt = VirtualTerminal(width: 10, height: 4)
        var r = InlineRenderer(depth: .none)
        let lines = (1...7).map { "line \($0)" }
        vt.feed(r.render(frame(lines, width: 9), screenHeight: 4))
        vt.feed(r.suspend())
        #expect(vt.lines.allSatisfy { $0.isEmpty })
        #expect(vt.row == 0)
        vt.feed(Array("stopped\r\n$ fg\r\n".utf8))
        let reported = vt.row
        vt.feed(r.render(frame(lines, width: 9), screenHeight: 4))
        let all = vt.allLines.filter { !$0.isEmpty }
        #expect(all == ["line 1", "line 2", "line 3", "stopped", "$ fg", "line 4", "line 5", "line 6", "line 7"])
        // The report asked for where the region starts arrives after the frame: row 2 held
        // "line 4" (frame row 3) before the frame scrolled the screen by two.
        r.place(reportedRow: reported)
        #expect(vt.lines == ["line 4", "line 5", "line 6", "line 7"])
        #expect(r.frameRow(forScreenRow: 0, screenHeight: 4) == 3)
        #expect(r.frameRow(forScreenRow: 3, screenHeight: 4) == 6)
    }

    @Test("An edited first row is drawn again: only rows the same as those in the scrollback are skipped")
    func changedTop() {
        var vt = VirtualTerminal(width: 10, height: 3)
        var r = InlineRenderer(depth: .none)
        vt.feed(r.render(frame(["a", "b", "c", "d", "e"], width: 9), screenHeight: 3))
        vt.feed(r.suspend())
        vt.feed(r.render(frame(["a", "B", "c", "d", "e"], width: 9), screenHeight: 3))
        #expect(vt.allLines.filter { !$0.isEmpty } == ["a", "b", "B", "c", "d", "e"])
    }
}
