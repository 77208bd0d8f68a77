public import RocketCore

/// A text style: a font description and a colour, the seed's `RocketFont` without UIKit.
///
/// The six presets keep the original sizes, weights and colours. They are constants
/// (the original's mutable `static var`s are global state Swift 6 rejects, R14); to restyle a
/// whole conversation, assign your own `RocketFont` values to the blocks.
///
/// ```swift
/// let block = TextRocketBlock(text: "Hello")
/// block.font = .textBold
/// block.font = RocketFont(font: RocketFontDescription(size: 22, weight: .heavy),
///                         color: RocketColor(hex: "#FF8800")!)
/// ```
public struct RocketFont: Hashable, Sendable, Codable {
    /// The typeface description.
    public var font: RocketFontDescription
    /// The text colour.
    public var color: RocketColor

    /// The original default: system 16 regular, black.
    ///
    /// ```swift
    /// RocketFont().font.size   // 16
    /// ```
    public init() {
        self.init(font: .system16, color: .black)
    }

    /// Creates a style from a font description and a colour (memberwise, as the original).
    ///
    /// ```swift
    /// let style = RocketFont(font: RocketFontDescription(size: 12), color: .black)
    /// ```
    public init(font: RocketFontDescription, color: RocketColor) {
        self.font = font
        self.color = color
    }

    /// A convenience for custom fonts: size, weight, colour and an optional family.
    ///
    /// ```swift
    /// let big = RocketFont(size: 30, weight: .bold, color: .black)
    /// ```
    public init(size: Double, weight: RocketFontWeight = .regular, color: RocketColor, family: String? = nil) {
        self.init(font: RocketFontDescription(size: size, weight: weight, family: family), color: color)
    }

    private static let ink = RocketColor(r8: 0x29, g8: 0x3B, b8: 0x4D)
    private static let blue = RocketColor(r8: 0x31, g8: 0x9C, b8: 0xF7)
    private static let red = RocketColor(r8: 0xEC, g8: 0x5E, b8: 0x61)

    /// 25 pt black weight, #293B4D: for emoji lines.
    public static let emoji = RocketFont(size: 25, weight: .black, color: ink)
    /// 18 pt regular, #293B4D: the default for text blocks.
    public static let text = RocketFont(size: 18, weight: .regular, color: ink)
    /// 18 pt bold, #293B4D.
    public static let textBold = RocketFont(size: 18, weight: .bold, color: ink)
    /// 20 pt black weight, #319CF7: the default for buttons.
    public static let button = RocketFont(size: 20, weight: .black, color: blue)
    /// 18 pt regular, #319CF7: secondary buttons and the input's send button.
    public static let lightButton = RocketFont(size: 18, weight: .regular, color: blue)
    /// 20 pt semibold, #EC5E61: cancel and close buttons.
    public static let cancel = RocketFont(size: 20, weight: .semibold, color: red)

    /// The presets by their seed names, for flow files and the CLI.
    ///
    /// ```swift
    /// RocketFont.presets["textBold"] == .textBold   // true
    /// ```
    public static let presets: [String: RocketFont] = [
        "emoji": .emoji, "text": .text, "textBold": .textBold,
        "button": .button, "lightButton": .lightButton, "cancel": .cancel,
    ]

    /// The seed name of this style when it equals a preset, else nil.
    public var presetName: String? {
        RocketFont.presets.first { $0.value == self }?.key
    }
}

/// How the corners of an image are rounded.
///
/// The radius is computed when drawing, from the drawn height (the original read a height of
/// 0 at configuration time for `.circular`, R7).
///
/// ```swift
/// RocketImageStyle.circular.cornerRadius(forHeight: 60)   // 30
/// RocketImageStyle.round.cornerRadius(forHeight: 60)      // 6
/// ```
public enum RocketImageStyle: String, CaseIterable, Hashable, Sendable, Codable {
    /// A circle (radius = height / 2).
    case circular
    /// Slightly rounded corners (radius 6).
    case round
    /// Square corners (radius 0).
    case square

    /// The corner radius for an image drawn at `height`.
    public func cornerRadius(forHeight height: Double) -> Double {
        switch self {
        case .circular: return height / 2
        case .round: return 6
        case .square: return 0
        }
    }
}

/// The speaker of a conversation: an avatar image, its style, and (beyond the seed) a name.
///
/// ```swift
/// let author = RocketAuthor(image: .file("avatar.png"), style: .round)
/// let named = RocketAuthor(image: nil, style: .circular, name: "Rocket")
/// ```
public struct RocketAuthor: Hashable, Sendable, Codable {
    /// The avatar, or nil to draw a text badge.
    public var image: RocketImage?
    /// The avatar's corner style (default `.circular`).
    public var style: RocketImageStyle
    /// A display name used by text front ends (default "Rocket").
    public var name: String

    /// The seed initializer.
    ///
    /// ```swift
    /// RocketAuthor(image: .file("me.png"))   // circular
    /// ```
    public init(image: RocketImage, style: RocketImageStyle = .circular) {
        self.init(image: Optional(image), style: style, name: "Rocket")
    }

    /// Creates an author with an optional image and a name.
    public init(image: RocketImage?, style: RocketImageStyle = .circular, name: String) {
        self.image = image
        self.style = style
        self.name = name
    }
}

/// The optional close button of a conversation.
///
/// Activating it bounces, then dismisses the conversation as a nil `next` does, posting
/// `rocketDismissEvent`. It may be set or changed at any time, also while the alert is shown
/// (the original read it once, R8).
///
/// ```swift
/// rocket.closeButton = RocketCloseButton(title: "Close", style: .cancel)
/// ```
public struct RocketCloseButton: Hashable, Sendable, Codable {
    /// The button's title.
    public var title: String
    /// The button's text style.
    public var style: RocketFont

    /// Creates a close button.
    public init(title: String, style: RocketFont = .cancel) {
        self.title = title
        self.style = style
    }
}
