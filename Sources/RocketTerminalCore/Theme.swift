public import RocketCore

/// The colours the terminal front end draws with, for a dark, a light or an unknown background.
///
/// Views speak in the originals' palette (#319CF7 blue, #EC5E61 red, #293B4D ink, greys); the
/// renderer maps those colours through the theme, so a flow's own colours are kept and Apple
/// front ends can use the original palette unchanged. Body text in the ink colour becomes the
/// terminal's default foreground, readable on any background (on a coloured background, such as
/// an ink banner, the ink stays a colour). The `safe` palette (for an unknown background) has
/// every colour at 4.5:1 or more against black and against white, and any other coloured text is
/// lightened or darkened until it is readable where it is drawn (``colors(foreground:background:)``).
///
/// ```swift
/// var renderer = InlineRenderer(depth: .truecolor)
/// renderer.theme = .light
/// ```
public struct TerminalTheme: Hashable, Sendable {
    /// `auto`, `dark`, `light`, `safe` or `none`.
    public var name: String
    /// Buttons, replies, the badge, the default banner background. Nil: no colours at all.
    public var accent: RocketColor?
    /// Destructive actions, validation messages, close buttons.
    public var danger: RocketColor?
    /// Borders and secondary text.
    public var muted: RocketColor?

    /// For an unknown background: every colour readable (≥ 4.5:1) on black and on white.
    public static let safe = TerminalTheme(
        name: "safe", accent: RocketColor(r8: 0x00, g8: 0x78, b8: 0xD4), danger: RocketColor(r8: 0xD9, g8: 0x36, b8: 0x3E),
        muted: RocketColor(r8: 0x76, g8: 0x76, b8: 0x76))
    /// For a dark background: the originals' own blue and red.
    public static let dark = TerminalTheme(
        name: "dark", accent: RocketColor(r8: 0x31, g8: 0x9C, b8: 0xF7), danger: RocketColor(r8: 0xEC, g8: 0x5E, b8: 0x61),
        muted: RocketColor(r8: 0x8A, g8: 0x8A, b8: 0x8A))
    /// For a light background: deeper shades of the same hues.
    public static let light = TerminalTheme(
        name: "light", accent: RocketColor(r8: 0x0B, g8: 0x62, b8: 0xB5), danger: RocketColor(r8: 0xC9, g8: 0x3A, b8: 0x3F),
        muted: RocketColor(r8: 0x6B, g8: 0x6B, b8: 0x6B))
    /// No colours: the terminal's own foreground and background, with bold, dim and inverse.
    public static let none = TerminalTheme(name: "none", accent: nil, danger: nil, muted: nil)

    /// The theme for a `--theme` value other than `auto`; nil for an unknown name.
    public static func named(_ name: String) -> TerminalTheme? {
        switch name {
        case "dark": return .dark
        case "light": return .light
        case "none": return TerminalTheme.none
        case "safe": return .safe
        default: return nil
        }
    }

    /// The theme for a background colour the terminal reported (OSC 11).
    public static func forBackground(_ color: RocketColor) -> TerminalTheme {
        relativeLuminance(color) < 0.2 ? .dark : .light
    }

    /// WCAG relative luminance.
    public static func relativeLuminance(_ color: RocketColor) -> Double {
        func channel(_ v: UInt8) -> Double {
            let c = Double(v) / 255
            return c <= 0.03928 ? c / 12.92 : Self.power2_4((c + 0.055) / 1.055)
        }
        let (r, g, b) = color.rgb8
        return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b)
    }

    /// x^2.4 for x in 0...1, in the standard library alone (the core imports no C library):
    /// x² times the fifth root of x², by Newton's method.
    static func power2_4(_ x: Double) -> Double {
        guard x > 0 else { return 0 }
        let square = x * x
        var root = 1.0  // the fifth root of `square`, which is in (0, 1]
        for _ in 0..<40 {
            let next = root - (root * root * root * root * root - square) / (5 * root * root * root * root)
            if abs(next - root) < 1e-15 { break }
            root = next
        }
        return square * root
    }

    /// WCAG contrast ratio of two colours (1 to 21).
    public static func contrast(_ a: RocketColor, _ b: RocketColor) -> Double {
        let la = relativeLuminance(a), lb = relativeLuminance(b)
        return (max(la, lb) + 0.05) / (min(la, lb) + 0.05)
    }

    private static func term(_ c: RocketColor?) -> TermColor {
        guard let c else { return .default }
        let (r, g, b) = c.rgb8
        return .rgb(r, g, b)
    }

    /// A colour of the originals' palette in this theme; any other colour unchanged (or the
    /// default colour for `none`). The originals' ink is body text: the terminal's foreground.
    public func map(_ color: TermColor) -> TermColor {
        if case .rgb(0x29, 0x3B, 0x4D) = color { return .default }
        return mapKeepingInk(color)
    }

    /// ``map(_:)`` for a background, and for text on a coloured background: the ink is a colour
    /// there (an ink banner), not the terminal's own.
    func mapKeepingInk(_ color: TermColor) -> TermColor {
        switch color {
        case .rgb(0x31, 0x9C, 0xF7), .indexed(33): return accent == nil ? .default : Self.term(accent)
        case .rgb(0xEC, 0x5E, 0x61): return danger == nil ? .default : Self.term(danger)
        case .indexed(245): return muted == nil ? .default : Self.term(muted)
        default: return accent == nil ? .default : color
        }
    }

    /// The backgrounds that text on the terminal's own background must be readable on: a dark
    /// and a light terminal's for `safe` (the background is unknown), a greyish dark one for
    /// `dark`, an off-white for `light` (the less contrasting ends of what those terminals use).
    var terminalBackgrounds: [RocketColor] {
        switch name {
        case "dark": return [RocketColor(r8: 0x2B, g8: 0x2B, b8: 0x2B)]
        case "light": return [RocketColor(r8: 0xEE, g8: 0xEE, b8: 0xEE)]
        default: return [RocketColor(r8: 0, g8: 0, b8: 0), RocketColor(r8: 0xFF, g8: 0xFF, b8: 0xFF)]
        }
    }

    /// The least contrast (WCAG) text is drawn with: a colour below it is lightened or darkened.
    public static let minimumContrast = 4.5

    /// The colours a cell is drawn in: both mapped through the theme, then a coloured text made
    /// readable (``minimumContrast``) on its background, the cell's own or the terminal's. A
    /// colour that is readable already is kept exactly.
    public func colors(foreground: TermColor, background: TermColor) -> (foreground: TermColor, background: TermColor) {
        let bg = mapKeepingInk(background)
        var fg = bg == .default ? map(foreground) : mapKeepingInk(foreground)
        if case .rgb(let r, let g, let b) = fg {
            let on: [RocketColor]
            if case .rgb(let br, let bgreen, let bb) = bg {
                on = [RocketColor(r8: br, g8: bgreen, b8: bb)]
            } else {
                on = terminalBackgrounds
            }
            let (r2, g2, b2) = Self.readable(RocketColor(r8: r, g8: g, b8: b), on: on).rgb8
            fg = .rgb(r2, g2, b2)
        }
        return (fg, bg)
    }

    /// `color`, or the nearest mix of it with black or white (in 1 % steps) that has at least
    /// ``minimumContrast`` on every background; black or white when no mix has (the one with
    /// more contrast).
    static func readable(_ color: RocketColor, on backgrounds: [RocketColor]) -> RocketColor {
        func worst(_ c: RocketColor) -> Double { backgrounds.map { contrast(c, $0) }.min() ?? 21 }
        if worst(color) >= minimumContrast { return color }
        let (r, g, b) = color.rgb8
        func mix(_ t: Double, toward v: Double) -> RocketColor {
            func channel(_ c: UInt8) -> UInt8 { UInt8((Double(c) + (v - Double(c)) * t).rounded()) }
            return RocketColor(r8: channel(r), g8: channel(g), b8: channel(b))
        }
        for step in 1...100 {
            let t = Double(step) / 100
            let darker = mix(t, toward: 0), lighter = mix(t, toward: 255)
            let (d, l) = (worst(darker), worst(lighter))
            if d >= minimumContrast || l >= minimumContrast { return d >= l ? darker : lighter }
        }
        let black = RocketColor(r8: 0, g8: 0, b8: 0), white = RocketColor(r8: 255, g8: 255, b8: 255)
        return worst(black) >= worst(white) ? black : white
    }
}

/// The replies a terminal sends to the start-up queries: the background colour (OSC 11) and the
/// primary device attributes (DA1, which every terminal answers, so it ends the wait).
public enum TerminalReplies {
    /// The query bytes: OSC 11 (background), then DA1.
    public static let query = "\u{1B}]11;?\u{1B}\\\u{1B}[c"

    /// Splits what arrived into the background colour (if reported), whether the DA1 reply has
    /// arrived (the end of the replies), and the other bytes (keys typed meanwhile, kept).
    public static func parse(_ bytes: [UInt8]) -> (background: RocketColor?, done: Bool, rest: [UInt8]) {
        var rest: [UInt8] = []
        var background: RocketColor?
        var done = false
        var i = 0
        while i < bytes.count {
            // OSC 11 reply: ESC ] 1 1 ; rgb:RRRR/GGGG/BBBB (BEL or ESC \)
            if bytes[i] == 0x1B, i + 1 < bytes.count, bytes[i + 1] == 0x5D {
                var j = i + 2
                while j < bytes.count, j - i < 64, bytes[j] != 0x07, !(bytes[j] == 0x1B && j + 1 < bytes.count && bytes[j + 1] == 0x5C) { j += 1 }
                if j < bytes.count, j - i < 64 {
                    background = background ?? parseColor(Array(bytes[(i + 2)..<j]))
                    i = j + (bytes[j] == 0x07 ? 1 : 2)
                    continue
                }
            }
            // DA1 reply: ESC [ ? … c
            if bytes[i] == 0x1B, i + 2 < bytes.count, bytes[i + 1] == 0x5B, bytes[i + 2] == 0x3F {
                var j = i + 3
                while j < bytes.count, j - i < 64, (bytes[j] >= 0x30 && bytes[j] <= 0x3B) { j += 1 }
                if j < bytes.count, bytes[j] == 0x63 {
                    done = true
                    i = j + 1
                    continue
                }
            }
            rest.append(bytes[i])
            i += 1
        }
        return (background, done, rest)
    }

    /// Where a reply that has begun but not ended starts in `bytes` (an OSC or a DA1 reply cut
    /// by the read), if anywhere.
    public static func incompleteTail(_ bytes: [UInt8]) -> Int? {
        guard let start = bytes.lastIndex(of: 0x1B) else { return nil }
        let tail = bytes[start...]
        // A lone ESC is the Esc key far more often than half a reply: the key decoder has it.
        guard tail.count >= 2 else { return nil }
        let second = tail[tail.index(after: start)]
        if second == 0x5D { return tail.contains(0x07) ? nil : start }  // OSC without BEL (ST would be a new ESC)
        if second == 0x5B, tail.count >= 3, tail[start + 2] == 0x3F {
            return tail.dropFirst(3).allSatisfy { $0 >= 0x30 && $0 <= 0x3B } ? start : nil
        }
        return nil
    }

    /// "11;rgb:RRRR/GGGG/BBBB" (1 to 4 hex digits per channel) as a colour.
    static func parseColor(_ body: [UInt8]) -> RocketColor? {
        let text = String(decoding: body, as: UTF8.self)
        guard let colon = text.firstIndex(of: ":"), text.hasPrefix("11;rgb") else { return nil }
        let parts = text[text.index(after: colon)...].split(separator: "/")
        guard parts.count == 3 else { return nil }
        var values: [UInt8] = []
        for p in parts {
            guard (1...4).contains(p.count), let v = UInt32(p, radix: 16) else { return nil }
            let maxValue = (UInt32(1) << (4 * UInt32(p.count))) - 1
            values.append(UInt8(v * 255 / maxValue))
        }
        return RocketColor(r8: values[0], g8: values[1], b8: values[2])
    }
}
