#if canImport(Glibc)
    import Glibc
#endif
import RocketCore
import RocketTerminalApps
import RocketText
import Testing

@testable import RocketTerminal
@testable import RocketTerminalCore

import RocketTestSupport

@Suite("ASCII terminals: every cell written as an ASCII look-alike of the same width")
struct GlyphSetTests {
    @Test("The environment decides: ROCKET_ASCII, the kernel's console, a locale's charset; C and no locale stay Unicode")
    func detect() {
        let cases: [([String: String], GlyphSet)] = [
            ([:], .unicode),
            (["TERM": "xterm-256color", "LANG": "en_US.UTF-8"], .unicode),
            (["LANG": "C"], .unicode),
            (["LANG": "POSIX", "TERM": "xterm"], .unicode),
            (["LANG": "C.utf8"], .unicode),
            (["LANG": "de_DE.utf-8@euro"], .unicode),
            (["TERM": "linux"], .ascii),
            (["TERM": "linux", "ROCKET_ASCII": "0"], .unicode),
            (["ROCKET_ASCII": "1", "LANG": "en_US.UTF-8"], .ascii),
            (["ROCKET_ASCII": "yes", "LANG": "en_US.UTF-8"], .ascii),
            (["TERM": "linux", "ROCKET_ASCII": "Off"], .unicode),
            (["TERM": "linux", "ROCKET_ASCII": "maybe"], .ascii),  // no answer: the console decides
            (["LANG": "de_DE.ISO-8859-1"], .ascii),
            (["LANG": "ja_JP.eucJP"], .ascii),
            (["LC_ALL": "en_US.UTF-8", "LANG": "de_DE.ISO-8859-15"], .unicode),
            (["LC_CTYPE": "fr_FR.ISO-8859-1", "LANG": "fr_FR.UTF-8"], .ascii),
            (["LC_ALL": "", "LANG": "ru_RU.KOI8-R"], .ascii),
        ]
        for (env, want) in cases { #expect(GlyphSet.detect(env) == want, "\(env)") }
    }

    @Test("Look-alikes, base letters and ? keep every character's width, and only ASCII is written")
    func widths() {
        #expect(GlyphSet.ascii("╭─ Café ★★☆ ─╮") == "+- Cafe **. -+")
        #expect(GlyphSet.ascii("│ › Ada") == "| > Ada")
        #expect(GlyphSet.ascii("Perché ñandú Łódź") == "Perche nandu Lodz")
        #expect(GlyphSet.ascii("e\u{301}") == "e", "a letter written with a combining mark")
        #expect(GlyphSet.ascii("R 🚀 界") == "R ?? ??", "as many ? as columns")
        #expect(GlyphSet.ascii("plain") == "plain")
        // Everything the terminal apps draw and say, in every language, and a spread of scripts.
        var texts = [
            "╭╮╰╯│─›❯✕★☆•◉○✓▀▄…←→↑↓·–—⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏⏎✉☑☐▣", "👩‍👩‍👧‍👦 ❤️ 🇮🇹 界 한 ä ß ı ĳ Ω ж א ع ก \u{3000}\u{A0}",
        ]
        for strings in UIStrings.all {
            texts += [
                strings.typing, strings.continueHint, strings.chooseHint, strings.sendHint, strings.bannerHint, strings.alertHint, strings.timedOut,
                strings.plainType, strings.noMatch,
            ]
        }
        for text in texts {
            let shown = GlyphSet.ascii(text)
            #expect(shown.utf8.allSatisfy { $0 < 0x80 }, "\(text) → \(shown)")
            #expect(DisplayWidth.of(shown) == DisplayWidth.of(text), "\(text) → \(shown)")
            for c in text {
                let one = GlyphSet.ascii(character: String(c))
                #expect(DisplayWidth.of(one) == DisplayWidth.of(String(c)), "\(c) → \(one)")
            }
        }
    }

    @Test("A frame drawn for an ASCII terminal writes no byte above 0x7F, and lands cell for cell where the Unicode one does")
    func renderer() {
        var f = ScreenBuffer(width: 30)
        for line in ["╭──────────╮", "│ Perché ★☆ │", "╰──────────╯", "› 界 ok •••"] {
            let r = f.addRow()
            f.put(line, row: r, column: 0)
        }
        var unicode = InlineRenderer(depth: .truecolor)
        var ascii = InlineRenderer(depth: .truecolor)
        ascii.glyphs = .ascii
        var vu = VirtualTerminal(width: 30, height: 8)
        var va = VirtualTerminal(width: 30, height: 8)
        vu.feed(unicode.render(f, screenHeight: 8))
        let bytes = ascii.render(f, screenHeight: 8)
        #expect(bytes.allSatisfy { $0 < 0x80 })
        va.feed(bytes)
        #expect(Array(va.lines.prefix(4)) == ["+----------+", "| Perche *. |", "+----------+", "> ?? ok ***"])
        for row in 0..<4 { #expect(DisplayWidth.of(va.lines[row]) == DisplayWidth.of(vu.lines[row])) }
    }

    @Test("A line printed above the frame (an action's output, a link's address) is folded to ASCII too")
    @MainActor
    func printedAbove() throws {
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        defer { close(fds[0]) }
        let runner = ProgramRunner(terminal: Terminal(inputFD: fds[0], outputFD: fds[1]), clock: ManualClock(), strings: .english)
        runner.glyphs = .ascii
        runner.printAbove("Café → https://x.example\nthé")
        runner.glyphs = .unicode
        runner.printAbove("Café →")
        close(fds[1])
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 256)
        while case let n = read(fds[0], &buffer, 256), n > 0 { bytes += buffer[0..<n] }
        #expect(String(decoding: bytes, as: UTF8.self) == "Cafe > https://x.example\nthe\nCafé →\n")
    }
}

@Suite("On/off environment variables: one reading")
struct EnvironmentFlagTests {
    @Test("1, true, yes, on are on and 0, false, no, off are off, in any case; anything else says nothing and is named")
    func reading() {
        for on in ["1", "true", "YES", "On"] { #expect(EnvironmentFlag.value(on) == true, "\(on)") }
        for off in ["0", "False", "no", "OFF"] { #expect(EnvironmentFlag.value(off) == false, "\(off)") }
        for none in [nil, "", "2", "y", "enable"] { #expect(EnvironmentFlag.value(none) == nil, "\(String(describing: none))") }
        let env = ["ROCKET_PLAIN": "maybe", "ROCKET_ASCII": "1", "ROCKET_REDUCED_MOTION": "", "OTHER": "x"]
        #expect(EnvironmentFlag.unreadable(in: env).map(\.name) == ["ROCKET_PLAIN"])
    }
}
