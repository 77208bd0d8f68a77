/// An sRGB colour with alpha, the platform-neutral stand-in for `UIColor`.
///
/// Components are stored as doubles in `0...1`. Colours are plain values, so engines can
/// compare, store and encode them without touching any UI framework.
///
/// ```swift
/// let blue = RocketColor(hex: "#319CF7")!
/// blue.hexString            // "#319CF7"
/// RocketColor.white.red     // 1.0
/// ```
public struct RocketColor: Hashable, Sendable, Codable, CustomStringConvertible {
    /// Red component, `0...1`.
    public var red: Double
    /// Green component, `0...1`.
    public var green: Double
    /// Blue component, `0...1`.
    public var blue: Double
    /// Opacity, `0...1`.
    public var alpha: Double

    /// Creates a colour from components; values outside `0...1` are clamped.
    ///
    /// ```swift
    /// let grey = RocketColor(red: 0.5, green: 0.5, blue: 0.5)
    /// ```
    public init(red: Double, green: Double, blue: Double, alpha: Double = 1) {
        func clamp(_ v: Double) -> Double { v.isNaN ? 0 : min(1, max(0, v)) }
        self.red = clamp(red)
        self.green = clamp(green)
        self.blue = clamp(blue)
        self.alpha = clamp(alpha)
    }

    /// Creates a colour from 8-bit components.
    ///
    /// ```swift
    /// let ink = RocketColor(r8: 0x29, g8: 0x3B, b8: 0x4D)
    /// ```
    public init(r8: UInt8, g8: UInt8, b8: UInt8, a8: UInt8 = 255) {
        self.init(red: Double(r8) / 255, green: Double(g8) / 255, blue: Double(b8) / 255, alpha: Double(a8) / 255)
    }

    /// Parses `#RGB`, `#RRGGBB` or `#RRGGBBAA` (the `#` is optional); returns nil for anything else.
    ///
    /// ```swift
    /// RocketColor(hex: "#EC5E61")   // the seed's cancel red
    /// RocketColor(hex: "nope")      // nil
    /// ```
    public init?(hex: String) {
        var digits = Substring(hex)
        if digits.hasPrefix("#") { digits = digits.dropFirst() }
        var values: [UInt8] = []
        for ch in digits {
            guard ch.isASCII, let v = ch.hexDigitValue else { return nil }
            values.append(UInt8(v))
        }
        switch values.count {
        case 3:
            self.init(r8: values[0] * 17, g8: values[1] * 17, b8: values[2] * 17)
        case 6, 8:
            var bytes: [UInt8] = []
            var i = 0
            while i < values.count { bytes.append(values[i] << 4 | values[i + 1]); i += 2 }
            self.init(r8: bytes[0], g8: bytes[1], b8: bytes[2], a8: bytes.count == 4 ? bytes[3] : 255)
        default:
            return nil
        }
    }

    /// The 8-bit red, green and blue components, rounded.
    public var rgb8: (r: UInt8, g: UInt8, b: UInt8) {
        func byte(_ v: Double) -> UInt8 { UInt8((v * 255).rounded()) }
        return (byte(red), byte(green), byte(blue))
    }

    /// `#RRGGBB`, or `#RRGGBBAA` when the colour is not opaque.
    ///
    /// ```swift
    /// RocketColor.black.hexString   // "#000000"
    /// ```
    public var hexString: String {
        let (r, g, b) = rgb8
        var parts = [r, g, b]
        if alpha < 1 { parts.append(UInt8((alpha * 255).rounded())) }
        let hexDigits = Array("0123456789ABCDEF")
        return "#" + String(parts.flatMap { [hexDigits[Int($0 >> 4)], hexDigits[Int($0 & 15)]] })
    }

    /// The same as ``hexString``.
    public var description: String { hexString }

    /// The colour names `rocket` accepts, with their values.
    public static let names: [String: RocketColor] = [
        "black": .black, "white": .white, "red": RocketColor(r8: 0xE5, g8: 0x39, b8: 0x35), "green": RocketColor(r8: 0x2E, g8: 0x7D, b8: 0x32),
        "blue": RocketColor(r8: 0x31, g8: 0x9C, b8: 0xF7), "yellow": RocketColor(r8: 0xF9, g8: 0xA8, b8: 0x25),
        "orange": RocketColor(r8: 0xEF, g8: 0x6C, b8: 0x00), "purple": RocketColor(r8: 0x8E, g8: 0x24, b8: 0xAA),
        "pink": RocketColor(r8: 0xD8, g8: 0x1B, b8: 0x60), "teal": RocketColor(r8: 0x00, g8: 0x89, b8: 0x7B),
        "gray": RocketColor(r8: 0x61, g8: 0x61, b8: 0x61), "grey": RocketColor(r8: 0x61, g8: 0x61, b8: 0x61),
        "ink": RocketColor(r8: 0x29, g8: 0x3B, b8: 0x4D),
    ]

    /// A colour from a name in ``names`` or `#RRGGBB` (also `#RGB`); nil otherwise.
    ///
    /// ```swift
    /// RocketColor(nameOrHex: "teal")      // #00897B
    /// RocketColor(nameOrHex: "#FF0000")   // red
    /// ```
    public init?(nameOrHex text: String) {
        if let named = RocketColor.names[text.lowercased()] { self = named; return }
        guard text.hasPrefix("#"), text.count == 7 || text.count == 4, let c = RocketColor(hex: text) else { return nil }
        self = c
    }

    /// Opaque black.
    public static let black = RocketColor(red: 0, green: 0, blue: 0)
    /// Opaque white.
    public static let white = RocketColor(red: 1, green: 1, blue: 1)
}
