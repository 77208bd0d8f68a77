import Testing
@testable import RocketTerminal
@testable import RocketTerminalCore

import RocketCore

@Suite("Themes: contrast, the background query, the palette mapping")
struct ThemeTests {
    static let black = RocketColor(r8: 0, g8: 0, b8: 0)
    static let white = RocketColor(r8: 255, g8: 255, b8: 255)

    @Test("Every default colour of the safe theme is readable (≥ 4.5:1) on black and on white; dark on black; light on white")
    func contrast() throws {
        for color in [TerminalTheme.safe.accent, TerminalTheme.safe.danger, TerminalTheme.safe.muted] {
            let c = try #require(color)
            #expect(TerminalTheme.contrast(c, Self.black) >= 4.5 && TerminalTheme.contrast(c, Self.white) >= 4.5, "\(c.rgb8)")
        }
        for color in [TerminalTheme.dark.accent, TerminalTheme.dark.danger, TerminalTheme.dark.muted] {
            let c = try #require(color)
            #expect(TerminalTheme.contrast(c, Self.black) >= 4.5)
        }
        for color in [TerminalTheme.light.accent, TerminalTheme.light.danger, TerminalTheme.light.muted] {
            let c = try #require(color)
            #expect(TerminalTheme.contrast(c, Self.white) >= 4.5)
        }
        // White text on the badge and on the default banner background (the safe accent).
        let accent = try #require(TerminalTheme.safe.accent)
        #expect(TerminalTheme.contrast(Self.white, accent) >= 4.5)
        #expect(TerminalTheme.contrast(Self.white, Self.black) == 21)
    }

    @Test("x^2.4 in the standard library alone matches the C library's pow")
    func power() {
        for (x, expected) in [(0.5, 0.18946457081379978), (0.2, 0.021012222435230144), (0.089, 0.0030097887596570116), (0.9, 0.7765725275664881), (1.0, 1.0)] {
            #expect(abs(TerminalTheme.power2_4(x) - expected) < 1e-12, "\(x)")
        }
        #expect(TerminalTheme.power2_4(0) == 0)
    }

    @Test("Body text in the originals' ink is the terminal's default foreground in every theme; none drops all colours")
    func mapping() {
        for theme in [TerminalTheme.safe, .dark, .light, .none] {
            #expect(theme.map(.rgb(0x29, 0x3B, 0x4D)) == .default)
        }
        #expect(TerminalTheme.safe.map(.rgb(0x31, 0x9C, 0xF7)) == .rgb(0x00, 0x78, 0xD4))
        #expect(TerminalTheme.dark.map(.rgb(0x31, 0x9C, 0xF7)) == .rgb(0x31, 0x9C, 0xF7))
        #expect(TerminalTheme.safe.map(.rgb(1, 2, 3)) == .rgb(1, 2, 3))  // a flow's own colour is kept
        #expect(TerminalTheme.none.map(.rgb(1, 2, 3)) == .default)
        var renderer = InlineRenderer(depth: .truecolor)
        renderer.theme = .none
        var frame = ScreenBuffer(width: 10)
        _ = frame.addRow()
        frame.put("Hi", row: 0, column: 0, style: CellStyle(foreground: .rgb(0xEC, 0x5E, 0x61), bold: true))
        let bytes = String(decoding: renderer.render(frame, screenHeight: 24), as: UTF8.self)
        #expect(bytes.contains("\u{1B}[0;1m") && !bytes.contains("38;2"))
    }

    /// The 24-bit colours of the SGR sequences in `bytes`: (foreground, background), nil for default.
    static func drawnColors(_ bytes: [UInt8]) -> [(RocketColor?, RocketColor?)] {
        let text = String(decoding: bytes, as: UTF8.self)
        return text.split(separator: "\u{1B}[").compactMap { seq -> (RocketColor?, RocketColor?)? in
            guard let m = seq.firstIndex(of: "m") else { return nil }
            let params = seq[..<m].split(separator: ";").compactMap { Int($0) }
            var fg: RocketColor?, bg: RocketColor?
            var i = 0
            while i < params.count {
                if (params[i] == 38 || params[i] == 48), i + 4 < params.count, params[i + 1] == 2 {
                    let c = RocketColor(r8: UInt8(params[i + 2]), g8: UInt8(params[i + 3]), b8: UInt8(params[i + 4]))
                    if params[i] == 38 { fg = c } else { bg = c }
                    i += 5
                } else {
                    i += 1
                }
            }
            return (fg, bg)
        }
    }

    @Test("Every named colour is drawn and readable, as a background under white text and as text on the terminal's background, in every theme")
    func namedColorsReadable() throws {
        for theme in [TerminalTheme.safe, .dark, .light] {
            for (name, color) in RocketColor.names.sorted(by: { $0.key < $1.key }) {
                let (r, g, b) = color.rgb8
                // As a banner's background, under its (white) title.
                var renderer = InlineRenderer(depth: .truecolor)
                renderer.theme = theme
                var frame = ScreenBuffer(width: 10)
                _ = frame.addRow()
                var style = CellStyle(foreground: .rgb(255, 255, 255), bold: true)
                style.background = .rgb(r, g, b)
                frame.put("Title", row: 0, column: 0, style: style)
                let onColor = try #require(Self.drawnColors(renderer.render(frame, screenHeight: 24)).first { $0.1 != nil }, "\(name)")
                let bg = try #require(onColor.1), fg = try #require(onColor.0)
                #expect(TerminalTheme.contrast(fg, bg) >= 4.5, "\(theme.name) \(name) background")
                // As text on the terminal's own background: the ink is the terminal's foreground.
                var text = InlineRenderer(depth: .truecolor)
                text.theme = theme
                var line = ScreenBuffer(width: 10)
                _ = line.addRow()
                line.put("Text", row: 0, column: 0, style: CellStyle(foreground: .rgb(r, g, b)))
                let drawn = Self.drawnColors(text.render(line, screenHeight: 24)).compactMap(\.0).first
                if name == "ink" {
                    #expect(drawn == nil)
                } else {
                    let c = try #require(drawn, "\(theme.name) \(name) text")
                    for background in theme.terminalBackgrounds {
                        #expect(TerminalTheme.contrast(c, background) >= 4.5, "\(theme.name) \(name) text")
                    }
                }
            }
        }
    }

    @Test("A colour that is readable already is drawn exactly; the ink stays a colour on a coloured background")
    func readableKept() {
        let white = TermColor.rgb(255, 255, 255)
        #expect(TerminalTheme.dark.colors(foreground: white, background: .rgb(0x29, 0x3B, 0x4D)) == (white, .rgb(0x29, 0x3B, 0x4D)))
        #expect(TerminalTheme.light.colors(foreground: .rgb(0, 0, 0), background: .default).foreground == .rgb(0, 0, 0))
        #expect(TerminalTheme.light.colors(foreground: .rgb(0x29, 0x3B, 0x4D), background: .default).foreground == .default)
        #expect(TerminalTheme.none.colors(foreground: white, background: .rgb(0x29, 0x3B, 0x4D)) == (.default, .default))
    }

    @Test("The background reply (OSC 11, BEL or ST, 1-4 hex digits) picks dark or light; other bytes are kept as keys")
    func replies() throws {
        let dark = TerminalReplies.parse(Array("x\u{1B}]11;rgb:1c1c/1c1c/1c1c\u{07}\u{1B}[?62;22cy".utf8))
        #expect(dark.done && dark.rest == Array("xy".utf8))
        let darkBackground = try #require(dark.background)
        #expect(TerminalTheme.forBackground(darkBackground) == .dark)
        let light = TerminalReplies.parse(Array("\u{1B}]11;rgb:ff/fa/f0\u{1B}\\".utf8))
        let lightBackground = try #require(light.background)
        #expect(!light.done && TerminalTheme.forBackground(lightBackground) == .light)
        let junk = TerminalReplies.parse(Array("\u{1B}]11;rgb:zz/00/00\u{07}\u{1B}[A".utf8))
        #expect(junk.background == nil && junk.rest == Array("\u{1B}[A".utf8))
        let long = TerminalReplies.parse(Array("\u{1B}]".utf8) + Array(repeating: UInt8(ascii: "1"), count: 10_000))
        #expect(long.background == nil && long.rest.count == 10_002)
    }
}

@Suite("Resize")
struct ResizeEraseTests {
    @Test("A resize erases without ED 2 or erase-below from home, which tmux and VTE copy into the scrollback")
    func erase() {
        var renderer = InlineRenderer(depth: .none)
        let bytes = String(decoding: renderer.invalidate(screenHeight: 24), as: UTF8.self)
        #expect(!bytes.contains("\u{1B}[2J") && !bytes.contains("\u{1B}[H\u{1B}[J"))
        #expect(bytes.hasSuffix("\u{1B}[H"))
    }
}

@Suite("The background reply, split across reads")
struct SplitReplyTests {
    @Test("An OSC or DA1 reply cut by a read is recognised as incomplete; a lone Esc is a key")
    func tails() {
        #expect(TerminalReplies.incompleteTail(Array("ab\u{1B}]11;rgb:00".utf8)) == 2)
        #expect(TerminalReplies.incompleteTail(Array("\u{1B}[?62;".utf8)) == 0)
        #expect(TerminalReplies.incompleteTail(Array("x\u{1B}".utf8)) == nil)
        #expect(TerminalReplies.incompleteTail(Array("\u{1B}[A".utf8)) == nil)
    }

    @Test("repaint rewrites every cell in place without clearing")
    func repaint() {
        var renderer = InlineRenderer(depth: .truecolor)
        var frame = ScreenBuffer(width: 6)
        _ = frame.addRow()
        frame.put("Hi", row: 0, column: 0, style: CellStyle(foreground: .rgb(0x31, 0x9C, 0xF7)))
        _ = renderer.render(frame, screenHeight: 24)
        #expect(renderer.render(frame, screenHeight: 24).count < 20)  // nothing changed: almost nothing written
        renderer.theme = .dark
        renderer.repaint()
        let again = String(decoding: renderer.render(frame, screenHeight: 24), as: UTF8.self)
        #expect(again.contains("Hi") && again.contains("38;2;49;156;247") && !again.contains("\u{1B}[J"))
    }
}
