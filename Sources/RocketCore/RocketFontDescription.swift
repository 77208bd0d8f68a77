/// The weight of a font, mirroring the system weights UIKit offers.
///
/// ```swift
/// let heavy: RocketFontWeight = .black
/// heavy.isBold   // true
/// ```
public enum RocketFontWeight: String, CaseIterable, Hashable, Sendable, Codable {
    case ultraLight, thin, light, regular, medium, semibold, bold, heavy, black

    /// True for weights a terminal should draw in bold (semibold and heavier).
    public var isBold: Bool {
        switch self {
        case .semibold, .bold, .heavy, .black: return true
        default: return false
        }
    }
}

/// A neutral description of a typeface: a point size, a weight and an optional family name.
///
/// It replaces `UIFont` in the engines. Apple front ends map it to a system or named font;
/// the terminal maps the weight to bold and ignores the size.
///
/// ```swift
/// let title = RocketFontDescription(size: 20, weight: .black)
/// let custom = RocketFontDescription(size: 14, weight: .regular, family: "Menlo")
/// ```
public struct RocketFontDescription: Hashable, Sendable, Codable {
    /// The point size.
    public var size: Double
    /// The weight.
    public var weight: RocketFontWeight
    /// A family name, or nil for the system font.
    public var family: String?

    /// Creates a font description.
    ///
    /// ```swift
    /// RocketFontDescription(size: 16)   // system 16 regular
    /// ```
    public init(size: Double, weight: RocketFontWeight = .regular, family: String? = nil) {
        self.size = size
        self.weight = weight
        self.family = family
    }

    /// The system font at 16 points, regular: what `RocketFont()` uses.
    public static let system16 = RocketFontDescription(size: 16)
}
