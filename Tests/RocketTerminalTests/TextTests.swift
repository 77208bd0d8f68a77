import RocketCore
import Testing
@testable import RocketTerminal
@testable import RocketTerminalApps
@testable import RocketTerminalCore

@Suite("Display width, sanitising, wrapping")
struct TextTests {
    @Test(
        "Widths from the table and the cluster rules",
        arguments: [
            ("a", 1), ("界", 2), ("👍", 2), ("Ａ", 2), ("한", 2), ("👍🏽", 2), ("👨‍👩‍👧", 2), ("e\u{301}", 1), ("é", 1),
            ("🇯🇵", 2), ("❤️", 2), ("\u{200B}", 0), ("\u{1B}", 0), ("→", 1),
        ])
    func widths(text: String, expected: Int) {
        #expect(DisplayWidth.of(text) == expected)
    }

    @Test("The table states its Unicode version")
    func version() { #expect(DisplayWidth.unicodeVersion == "14.0.0") }

    @Test("Prefix by width never splits a wide character")
    func prefix() {
        #expect(DisplayWidth.prefix("界界界", fitting: 5) == "界界")
        #expect(DisplayWidth.prefix("ab界", fitting: 3) == "ab")
    }

    @Test("No control or escape byte from content survives")
    func sanitize() {
        let hostile = "hi\u{1B}[2J\u{7}\u{9B}31m\u{202E}evil\tx\r\n"
        let clean = Sanitizer.clean(hostile)
        #expect(!clean.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" })
        #expect(!clean.unicodeScalars.contains { (0x7F...0x9F).contains($0.value) || $0.value == 0x202E })
        #expect(clean == "hi\u{FFFD}[2J\u{FFFD}\u{FFFD}31m\u{FFFD}evil    x\u{FFFD}\n")
        #expect(Sanitizer.clean("a\nb", keepNewlines: false) == "a\u{FFFD}b")
    }

    @Test("Wrapping by display width")
    func wrap() {
        #expect(TextWrap.wrap("the quick brown fox", width: 10) == ["the quick", "brown fox"])
        #expect(TextWrap.wrap("界界界界界", width: 4) == ["界界", "界界", "界"])
        #expect(TextWrap.wrap("a\n\nb", width: 5) == ["a", "", "b"])
        #expect(TextWrap.wrap("supercalifragilistic", width: 8) == ["supercal", "ifragili", "stic"])
        // A word of zero width (a lone joiner) first on a line is kept, not written over by the
        // next word (found by scripts/fuzz.sh).
        #expect(TextWrap.wrap("\u{200D} xy z", width: 10) == ["\u{200D} xy z"])
        #expect(TextWrap.wrap("\u{200D} abcdefghij", width: 10) == ["\u{200D}", "abcdefghij"])
    }
}

@Suite("Screen buffer goldens")
struct ScreenBufferTests {
    @Test("CJK, emoji ZWJ sequences, flags, combining marks")
    func wideAndCombining() {
        var s = ScreenBuffer(width: 12, height: 1)
        let end = s.put("界👨‍👩‍👧🇯🇵e\u{301}!", row: 0, column: 0)
        #expect(end == 8)
        #expect(s.lines == ["界👨‍👩‍👧🇯🇵é!"])
        #expect(s.rows[0][1].text == "" && s.rows[0][3].text == "")
    }

    @Test(
        "A cluster of several spacing letters takes a column for each, as terminals draw it (Indic conjuncts, Thai, jamo)",
        arguments: [
            ("नमस्ते दुनिया हिन्दी किताब", 22), ("स्ते", 2), ("กำลัง", 4), ("กำลัง โหลด ภาษาไทย", 17), ("கொ", 2),
            ("\u{1100}\u{1161}\u{11A8}", 2), ("e\u{301}", 1), ("👍🏽", 2), ("👨‍👩‍👧", 2),
        ])
    func clusters(_ text: String, columns: Int) {
        #expect(DisplayWidth.of(text) == columns)
        // Every letter is kept in the buffer, each cluster in its first cell, the rest continuation cells.
        var s = ScreenBuffer(width: 40, height: 1)
        #expect(s.put(text, row: 0, column: 0) == columns)
        #expect(s.rows[0].prefix(columns).map(\.text).joined() == text)
    }

    @Test("A wide cluster changed in the middle is redrawn from its first cell")
    func redrawWideCluster() {
        var renderer = InlineRenderer(depth: .none)
        var a = ScreenBuffer(width: 10, height: 1)
        _ = a.put("xस्तेy", row: 0, column: 0)
        _ = renderer.render(a, screenHeight: 5)
        var b = ScreenBuffer(width: 10, height: 1)
        _ = b.put("xस्तेz", row: 0, column: 0)
        let bytes = String(decoding: renderer.render(b, screenHeight: 5), as: UTF8.self)
        #expect(bytes.contains("z") && !bytes.contains("स"))
        var c = ScreenBuffer(width: 10, height: 1)
        _ = c.put("xकिताy", row: 0, column: 0)
        let redrawn = String(decoding: renderer.render(c, screenHeight: 5), as: UTF8.self)
        #expect(redrawn.contains("कि") && redrawn.contains("ता") && redrawn.hasSuffix("y"))
    }

    @Test("Truncation at the right edge replaces a cut wide character by a space")
    func truncation() {
        var s = ScreenBuffer(width: 5, height: 2)
        s.put("abcdefg", row: 0, column: 0)
        s.put("ab界界", row: 1, column: 0)
        #expect(s.lines == ["abcde", "ab界"])
        #expect(s.rows[1][4].text == " ")
    }

    @Test("Writes outside the buffer are ignored")
    func outside() {
        var s = ScreenBuffer(width: 3, height: 1)
        s.put("x", row: 5, column: 0)
        s.put("y", row: 0, column: 10)
        #expect(s.lines == [""])
    }
}
