import Testing
#if canImport(Glibc)
    import Glibc
#endif
@testable import RocketTerminal
@testable import RocketTerminalCore

import RocketPlatform

@Suite("Key decoder")
struct KeyDecoderTests {
    func keys(_ bytes: [UInt8]) -> [Key] {
        var d = KeyDecoder()
        return d.feed(bytes) + d.flush()
    }

    @Test(
        "CSI and SS3 cursor keys, Home/End variants, Delete, Shift-Tab",
        arguments: [
            ([0x1B, 0x5B, 0x41], Key.up), ([0x1B, 0x5B, 0x42], .down), ([0x1B, 0x5B, 0x43], .right), ([0x1B, 0x5B, 0x44], .left),
            ([0x1B, 0x4F, 0x41], .up), ([0x1B, 0x4F, 0x44], .left), ([0x1B, 0x5B, 0x31, 0x7E], .home), ([0x1B, 0x5B, 0x34, 0x7E], .end),
            ([0x1B, 0x5B, 0x48], .home), ([0x1B, 0x5B, 0x46], .end), ([0x1B, 0x4F, 0x48], .home), ([0x1B, 0x5B, 0x33, 0x7E], .delete),
            ([0x1B, 0x5B, 0x5A], .backTab), ([0x1B, 0x5B, 0x31, 0x3B, 0x35, 0x43], .right),
        ] as [([UInt8], Key)])
    func cursorKeys(bytes: [UInt8], key: Key) {
        #expect(keys(bytes) == [key])
    }

    @Test("Single bytes: Enter, Tab, Backspace, Ctrl letters")
    func singles() {
        #expect(
            keys([0x0D, 0x09, 0x7F, 0x01, 0x03, 0x17, 0x61, 0x1C]) == [
                .enter, .tab, .backspace, .ctrl("a"), .ctrl("c"), .ctrl("w"), .character("a"), .ctrl("\\"),
            ])
    }

    @Test("A lone Esc waits for the quiet time; Esc followed by a key is Alt")
    func escapeVersusAlt() {
        var d = KeyDecoder()
        #expect(d.feed([0x1B]) == [])
        #expect(d.hasPending)
        #expect(d.flush() == [.escape])
        #expect(d.feed([0x1B, 0x78]) == [.alt("x")])
        #expect(d.feed([0x1B, 0x1B]) == [.escape])
        #expect(d.flush() == [.escape])
    }

    @Test("Sequences and UTF-8 split across reads")
    func splitReads() {
        var d = KeyDecoder()
        #expect(d.feed([0x1B, 0x5B]) == [])
        #expect(d.feed([0x41]) == [.up])
        let jie = Array("界".utf8)
        #expect(d.feed([jie[0]]) == [])
        #expect(d.feed([jie[1]]) == [])
        #expect(d.feed([jie[2], 0x62]) == [.character("界"), .character("b")])
    }

    @Test("Bracketed paste arrives whole, even split across reads")
    func paste() {
        var d = KeyDecoder()
        let start: [UInt8] = [0x1B, 0x5B, 0x32, 0x30, 0x30, 0x7E]
        let end: [UInt8] = [0x1B, 0x5B, 0x32, 0x30, 0x31, 0x7E]
        var got = d.feed(start + Array("hello\nwor".utf8))
        got += d.feed(Array("ld".utf8) + end.prefix(3))
        got += d.feed(Array(end.dropFirst(3)) + [0x0D])
        #expect(got == [.paste("hello\nworld"), .enter])
    }

    @Test("A paste that goes on and on keeps a bounded head, cut at a whole character, and what follows its end is read as keys")
    func pasteBounded() {
        var d = KeyDecoder()
        let start: [UInt8] = [0x1B, 0x5B, 0x32, 0x30, 0x30, 0x7E]
        let end: [UInt8] = [0x1B, 0x5B, 0x32, 0x30, 0x31, 0x7E]
        let kept = KeyDecoder.pasteBytesKept
        #expect(kept > LineEditor.limit)
        // "é" is two bytes: starting one byte in, the kept bytes end in the middle of one.
        var got = d.feed(start + [0x78])
        let chunk = Array(String(repeating: "é", count: 4096).utf8)
        for _ in 0..<(4 * kept / chunk.count) { got += d.feed(chunk) }
        got += d.feed(end + [0x61])
        #expect(got.count == 2)
        guard case .paste(let text) = got.first else {
            Issue.record("expected a paste first")
            return
        }
        #expect(text.utf8.count <= kept && text.utf8.count >= kept - 3)
        #expect(text.hasPrefix("xé") && !text.unicodeScalars.contains("\u{FFFD}"))
        #expect(Set(text.dropFirst()) == ["é"])
        #expect(got.last == .character("a"))
        #expect(!d.hasPending)
        // A paste of exactly the kept size loses nothing.
        let exact = Array(String(repeating: "b", count: kept).utf8)
        #expect(d.feed(start + exact + end) == [.paste(String(repeating: "b", count: kept))])
    }

    @Test("A control sequence that never ends is dropped at its bound, and the bytes after it are read as typed")
    func sequenceBounded() {
        var d = KeyDecoder()
        var got = d.feed([0x1B, 0x5B] + Array(repeating: 0x31, count: 40))
        #expect(got.isEmpty && d.hasPending)
        got += d.feed(Array(repeating: 0x31, count: 100) + [0x41])
        #expect(got.first == .unknown)
        #expect(got.dropFirst().allSatisfy { $0 == .character("1") || $0 == .character("A") })
        #expect(got.count == 1 + (42 + 100 - KeyDecoder.sequenceBytes) + 1)
        #expect(!d.hasPending)
        // One long sequence of sensible length still decodes.
        #expect(keys([0x1B, 0x5B, 0x31, 0x3B, 0x35, 0x43]) == [.right])
    }

    @Test("Many keys in one read decode in order, each once, and leave nothing pending")
    func manyKeysInOneRead() {
        var d = KeyDecoder()
        var bytes: [UInt8] = []
        for i in 0..<50_000 { bytes += i % 3 == 0 ? [0x1B, 0x5B, 0x41] : i % 3 == 1 ? Array("界".utf8) : [0x62] }
        let got = d.feed(bytes)
        #expect(got.count == 50_000)
        #expect(got[0] == .up && got[1] == .character("界") && got[2] == .character("b") && got[49_999] == .character("界"))
        #expect(!d.hasPending)
    }

    @Test("A long run of characters in one read is one paste; short runs (typing, a y, a space) stay keys")
    func unbracketedPaste() {
        let long = Array(repeating: Key.character("a"), count: 40)
        #expect(KeyDecoder.coalescingPastes(long) == [.paste(String(repeating: "a", count: 40))])
        let mixed: [Key] = [.character("y"), .enter] + long + [.left] + Array(repeating: .character("b"), count: 31)
        let out = KeyDecoder.coalescingPastes(mixed)
        #expect(out.prefix(3) == [.character("y"), .enter, .paste(String(repeating: "a", count: 40))])
        #expect(out.count == 3 + 1 + 31 && out[3] == .left)
        #expect(KeyDecoder.coalescingPastes([.character(" ")]) == [.character(" ")])
    }

    @Test("SGR mouse presses report 0-based row and column; releases are ignored")
    func mouse() {
        #expect(keys(Array("\u{1B}[<0;12;5M".utf8)) == [.mouse(row: 4, column: 11)])
        #expect(keys(Array("\u{1B}[<0;12;5m".utf8)) == [])
    }

    @Test("Invalid UTF-8 becomes unknown, never a crash")
    func invalid() {
        #expect(keys([0xFF, 0x61]) == [.unknown, .character("a")])
    }
}

@Suite("Line editor")
struct LineEditorTests {
    func editor(_ s: String, cursor: Int? = nil) -> LineEditor {
        var e = LineEditor()
        e.insert(s)
        if let cursor { for _ in 0..<(s.count - cursor) { e.handle(.left) } }
        return e
    }

    @Test("Cursor keys, Home/End, Backspace/Delete")
    func basics() {
        var e = editor("hello", cursor: 2)
        e.handle(.backspace); #expect(e.text == "hllo" && e.cursor == 1)
        e.handle(.delete); #expect(e.text == "hlo" && e.cursor == 1)
        e.handle(.home); e.handle(.character("X")); #expect(e.text == "Xhlo" && e.cursor == 1)
        e.handle(.end); e.handle(.character("!")); #expect(e.text == "Xhlo!" && e.cursor == 5)
        e.handle(.right); #expect(e.cursor == 5)
        e.handle(.ctrl("a")); #expect(e.cursor == 0)
        e.handle(.backspace); #expect(e.text == "Xhlo!")
        e.handle(.ctrl("e")); #expect(e.cursor == 5)
    }

    @Test("Ctrl-U, Ctrl-K, Ctrl-W")
    func kills() {
        var e = editor("one two three", cursor: 7)
        e.handle(.ctrl("k")); #expect(e.text == "one two")
        e.handle(.ctrl("w")); #expect(e.text == "one ")
        e.handle(.ctrl("u")); #expect(e.text == "" && e.cursor == 0)
    }

    @Test("Paste turns newlines into spaces and drops controls")
    func paste() {
        var e = LineEditor()
        e.handle(.paste("a\nb\u{1B}[31mc"))
        #expect(e.text == "a b[31mc")
    }

    @Test("Wide and combining characters move as one")
    func graphemes() {
        var e = LineEditor()
        e.insert("界e")
        e.handle(.character("\u{301}"))
        #expect(e.characters.count == 2 && e.text == "界é")
        e.handle(.backspace)
        #expect(e.text == "界")
    }

    @Test("A paste is capped at the line-mode limit in UTF-8 bytes, never cutting a character; removing makes room again")
    func pasteCap() {
        var e = LineEditor()
        e.insert(String(repeating: "界", count: 30_000))  // 90,000 bytes
        #expect(e.text.utf8.count <= LineEditor.limit && e.text.utf8.count > LineEditor.limit - 3)
        #expect(e.characters.allSatisfy { $0 == "界" } && e.cursor == e.characters.count)
        let full = e.characters.count  // 21,845 × 3 bytes: one byte of room left
        e.handle(.character("界"))
        #expect(e.characters.count == full)  // three bytes do not fit
        e.handle(.character("x"))
        #expect(e.characters.count == full + 1 && e.text.utf8.count == LineEditor.limit)
        e.handle(.character("y"))
        #expect(e.characters.count == full + 1)  // full
        e.handle(.backspace)
        e.handle(.character("y"))
        #expect(e.characters.last == "y" && e.text.utf8.count == LineEditor.limit)
        e.handle(.ctrl("u"))
        #expect(e.text.isEmpty)
        e.insert(String(repeating: "ab", count: 100_000))
        #expect(e.text.utf8.count == LineEditor.limit)
        e.clear()
        e.insert("ok")
        #expect(e.text == "ok")
    }

    @Test("A combining mark inserted in the middle joins the letter before it; the cursor stays after the insertion")
    func combiningInTheMiddle() {
        var e = LineEditor()
        e.insert("abc")
        e.handle(.left)
        e.handle(.left)  // between a and b
        e.insert("\u{301}")
        #expect(e.characters.map { String($0) } == ["a\u{301}", "b", "c"] && e.cursor == 1)
        e.insert("x\u{301}y")
        #expect(e.text == "a\u{301}x\u{301}ybc" && e.cursor == 3)
    }

    @Test("The view of a long text shows the part around the cursor")
    func longView() {
        var e = LineEditor()
        e.insert(String(repeating: "0123456789", count: 5_000))
        let end = e.view(width: 20)
        #expect(end.text == "1234567890123456789" && end.cursorColumn == 19)
        e.handle(.home)
        #expect(e.view(width: 20) == (text: "01234567890123456789", cursorColumn: 0))
        #expect(e.view(width: 4, mask: "•").text == "••••")
    }

    @Test("The view scrolls so the cursor shows; the cursor column counts display width")
    func view() {
        var e = LineEditor()
        e.insert("界界界界")
        let v = e.view(width: 5)
        #expect(v.text == "界界" && v.cursorColumn == 4)
        e.handle(.home)
        #expect(e.view(width: 5).cursorColumn == 0)
        #expect(e.view(width: 5, mask: "•").text == "••••")
    }
}

@Suite("Line editor with several lines")
struct MultilineEditorTests {
    @Test("Line breaks are kept (a pasted CRLF or CR is one), tabs and controls are not; a single-line editor makes them spaces")
    func insert() {
        var e = LineEditor(multiline: true)
        e.handle(.paste("one\r\ntwo\rthree\tfour\u{1B}[31m"))
        #expect(e.text == "one\ntwo\nthree four[31m")
        var single = LineEditor()
        single.insert("one\ntwo")
        #expect(single.text == "one two")
    }

    @Test("↑/↓ keep the column where the line allows it, Home/End go to the ends of the cursor's line")
    func moves() {
        var e = LineEditor(multiline: true)
        e.insert("abcdef\nxy\nlonger line")
        #expect(e.cursor == e.characters.count)
        e.handle(.up)  // from column 11 to the end of "xy"
        #expect(e.cursor == 9)
        e.handle(.up)  // column 2 of "abcdef"
        #expect(e.cursor == 2)
        e.handle(.up)  // the first line: nowhere further
        #expect(e.cursor == 2)
        e.handle(.end)
        #expect(e.cursor == 6)
        e.handle(.down)  // column 6 of "xy" is its end
        #expect(e.cursor == 9)
        e.handle(.home)
        #expect(e.cursor == 7)
        e.handle(.down)
        #expect(e.cursor == 10)
        e.handle(.down)  // the last line: nowhere further
        #expect(e.cursor == 10)
    }

    @Test("Rows: lines wrapped at the width (by display width), the window that shows the cursor, its row and column")
    func rows() {
        var e = LineEditor(multiline: true)
        e.insert("ab\ncdef")
        let all = e.rows(width: 3, rows: 5)
        #expect(all.rows == ["ab", "cde", "f"] && all.cursorRow == 2 && all.cursorColumn == 1)
        let two = e.rows(width: 3, rows: 2)
        #expect(two.rows == ["cde", "f"] && two.cursorRow == 1)
        e.handle(.home)
        e.handle(.up)
        let top = e.rows(width: 3, rows: 2)
        #expect(top.rows == ["ab", "cde"] && top.cursorRow == 0 && top.cursorColumn == 0)
        var wide = LineEditor(multiline: true)
        wide.insert("界界界")
        #expect(wide.rows(width: 5, rows: 3).rows == ["界界", "界"])
        var full = LineEditor(multiline: true)
        full.insert("abc")  // the cursor after a full row shows on the next one
        let after = full.rows(width: 3, rows: 3)
        #expect(after.rows == ["abc", ""] && after.cursorRow == 1 && after.cursorColumn == 0)
        #expect(LineEditor(multiline: true).rows(width: 3, rows: 3).rows == [""])
        var secret = LineEditor(multiline: true)
        secret.insert("ab\nc")
        #expect(secret.rows(width: 4, rows: 3, mask: "•").rows == ["••", "•"])
    }
}

@Suite("Plain-mode line reader")
struct LineReaderTests {
    @Test("Lines across reads, CR LF, a last line without a newline, and typed-ahead input")
    func lines() {
        var r = LineReader()
        r.feed(Array("one\r\ntw".utf8))
        #expect(r.next() == .text("one"))
        #expect(r.next() == nil)
        r.feed(Array("o\nthree".utf8))
        #expect(r.next() == .text("two"))
        #expect(r.next() == nil)
        r.feed([])
        #expect(r.ended && r.next() == .text("three") && r.next() == nil)
        var next = LineReader(pending: Array("ahead\n".utf8), ended: true)
        #expect(next.next() == .text("ahead") && next.next() == nil)
    }

    @Test("A line longer than the limit is refused as soon as the limit is passed, and its rest is skipped")
    func bounded() {
        var r = LineReader(limit: 8)
        r.feed(Array("12345678\r\n".utf8))  // exactly the limit (the CR LF does not count)
        #expect(r.next() == .text("12345678"))
        r.feed(Array("123456789".utf8))  // one past the limit, no newline yet
        #expect(r.next() == .tooLong)
        #expect(r.pending.isEmpty)
        for _ in 0..<1000 { r.feed(Array(repeating: 0x30, count: 4096)) }  // the rest is dropped as it arrives
        #expect(r.pending.isEmpty && r.next() == nil)
        r.feed(Array("tail\nok\n".utf8))
        #expect(r.next() == .text("ok"))
        r.feed(Array("abcdefghij\nafter\n".utf8))  // a complete over-long line
        #expect(r.next() == .tooLong && r.next() == .text("after") && r.next() == nil)
        var endless = LineReader(limit: 65_536)
        var refusals = 0
        for _ in 0..<5000 {  // 20 MB of zeros without a newline: memory stays within one limit
            endless.feed(Array(repeating: 0, count: 4096))
            if endless.next() == .tooLong { refusals += 1 }
            #expect(endless.pending.count <= 65_536 + 1)
        }
        #expect(refusals == 1)
    }

    @Test("Many short lines in one read are handed out in order, each byte scanned once")
    func manyLines() {
        var r = LineReader()
        r.feed(Array((0..<100_000).map { "\($0)\n" }.joined().utf8))
        var count = 0
        while case .text(let line)? = r.next() {
            #expect(line == String(count))
            count += 1
        }
        #expect(count == 100_000)
    }
}

@Suite("Whole-file reads")
struct FileReadTests {
    @Test("A read stops with a failure once more than the limit has arrived; within it, every byte comes back")
    func limit() throws {
        let path = "/tmp/rocket-fileio-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).bin"
        defer { _ = FileIO.remove(path) }
        let bytes = (0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        guard case .success = FileIO.write(String(decoding: bytes.map { $0 & 0x7F }, as: UTF8.self), to: path) else {
            Issue.record("cannot write \(path)")
            return
        }
        guard case .success(let all) = FileIO.read(path, limit: 200_000) else {
            Issue.record("a read within the limit failed")
            return
        }
        #expect(all == bytes.map { $0 & 0x7F })
        guard case .failure(let f) = FileIO.read(path, limit: 199_999) else {
            Issue.record("a read past the limit succeeded")
            return
        }
        #expect(f.reason.contains("larger than 199999 bytes"))
    }
}
