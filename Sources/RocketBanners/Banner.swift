public import RocketCore

/// How a banner enters and leaves (MPGNotification's animation types).
public enum BannerAnimation: String, CaseIterable, Hashable, Sendable {
    /// Slides down over 0.25 s; the timer starts after the slide; slides up to leave.
    case linear
    /// Falls under gravity and bounces; the timer starts at once; slides up to leave.
    case drop
    /// Snaps into place; the timer starts at once; snaps away to leave.
    case snap

    /// Seconds the entrance takes (the terminal draws frames over it; reduced motion skips it).
    public var entrance: Double {
        switch self {
        case .linear: return 0.25
        case .drop: return 0.5
        case .snap: return 0.3
        }
    }

    /// Seconds an animated exit takes.
    public var exit: Double { 0.25 }

    /// Whether the auto-dismiss timer waits for the entrance to finish (only `.linear`).
    public var timerStartsAfterEntrance: Bool { self == .linear }
}

/// The tags a banner's button handler receives: MPGNotification's values, by name.
///
/// ```swift
/// BannerTag.background.rawValue     // 0
/// BannerTag.secondButton.rawValue   // 4319
/// ```
public enum BannerTag: Int, Hashable, Sendable, CaseIterable {
    /// A tap on the banner itself.
    case background = 0
    /// The only button of a one-button banner.
    case oneButton = 1
    /// The first button of a two-button banner.
    case firstOfTwo = 2
    /// The close ("X") button.
    case close = 3
    /// The second button of a two-button banner (2 + 4317, as the original).
    case secondOfTwo = 4319
}

/// Which buttons a banner has (the original's `MPGNotificationButtonConfigration`).
public enum BannerButtons: Hashable, Sendable {
    /// No buttons.
    case none
    /// One button (tag 1).
    case one(String)
    /// Two buttons (tags 2 and 4319).
    case two(String, String)
    /// A close "X" button (tag 3).
    case close

    /// The buttons in order: title and tag.
    public var items: [(title: String, tag: BannerTag)] {
        switch self {
        case .none: return []
        case .one(let t): return [(t, .oneButton)]
        case .two(let a, let b): return [(a, .firstOfTwo), (b, .secondOfTwo)]
        case .close: return [("X", .close)]
        }
    }

    /// The original's numeric configuration value: 0, 1, 2 or 3.
    public var configurationValue: Int {
        switch self {
        case .none: return 0
        case .one: return 1
        case .two: return 2
        case .close: return 3
        }
    }

    /// The original's `setButtonConfiguration:withButtonTitles:` with its rules as errors: zero
    /// takes no titles, one and two take exactly 1 and 2, close ignores them (M18).
    ///
    /// ```swift
    /// try BannerButtons(configuration: 2, titles: ["Yes", "No"])   // .two("Yes", "No")
    /// ```
    public init(configuration: Int, titles: [String]) throws(BannerError) {
        switch configuration {
        case 0:
            guard titles.isEmpty else { throw BannerError("a banner with no buttons takes no titles (got \(titles.count))") }
            self = .none
        case 1:
            guard titles.count == 1 else { throw BannerError("a one-button banner needs exactly 1 title (got \(titles.count))") }
            self = .one(titles[0])
        case 2:
            guard titles.count == 2 else { throw BannerError("a two-button banner needs exactly 2 titles (got \(titles.count))") }
            self = .two(titles[0], titles[1])
        case 3:
            self = .close
        default:
            throw BannerError("unknown button configuration \(configuration); use 0, 1, 2 or 3")
        }
    }
}

/// A misuse the original caught with an assertion, as a value.
public struct BannerError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What is wrong.
    public var message: String
    /// Creates an error.
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// The icon of a banner: a short text (an emoji) or a picture.
public enum BannerIcon: Hashable, Sendable {
    case text(String)
    case image(RocketImage)
}

/// An in-app notification banner: MPGNotification's properties as a value.
///
/// Defaults are the original's: white title and subtitle, background taps and swipe enabled,
/// content in a centred column (not full width), duration 0 (stays until dismissed), linear
/// animation, no buttons. The title is required (M11).
///
/// ```swift
/// var banner = Banner(title: "Saved", subtitle: "Your draft is safe", backgroundColor: RocketColor(hex: "#2E7D32"), icon: .text("✅"))
/// banner.duration = 2
/// banner.buttons = try BannerButtons(configuration: 1, titles: ["Undo"])
/// ```
public struct Banner: Hashable, Sendable {
    /// The title (required).
    public var title: String
    /// A subtitle (at most two lines are drawn).
    public var subtitle: String?
    /// The icon.
    public var icon: BannerIcon?
    /// The background colour (nil: the front end's default).
    public var backgroundColor: RocketColor?
    /// The title colour (white).
    public var titleColor: RocketColor = .white
    /// The subtitle colour (white).
    public var subtitleColor: RocketColor = .white
    /// A tap on the banner dismisses it and calls the button handler with tag 0.
    public var backgroundTapsEnabled = true
    /// Swiping it away is allowed.
    public var swipeToDismissEnabled = true
    /// Content spans the whole width instead of a centred column.
    public var fullWidthMessages = false
    /// Seconds before it dismisses itself; 0 keeps it until dismissed.
    public var duration: Double = 0
    /// How it enters and leaves.
    public var animationType: BannerAnimation = .linear
    /// Its buttons.
    public var buttons: BannerButtons = .none
    /// An identity for the queue: banners with the same id are deduplicated. Default: none.
    public var id: String?
    /// Higher shows first when several wait (default 0).
    public var priority = 0

    /// A banner with a title.
    public init(title: String) {
        self.title = title
    }

    /// The original's convenience constructor.
    public init(title: String, subtitle: String?, backgroundColor: RocketColor?, icon: BannerIcon?) {
        self.title = title
        self.subtitle = subtitle
        self.backgroundColor = backgroundColor
        self.icon = icon
    }

    /// The darker shade the original used behind buttons: each RGB component − 0.15, floored at 0.
    public static func darker(_ color: RocketColor) -> RocketColor {
        RocketColor(red: max(0, color.red - 0.15), green: max(0, color.green - 0.15), blue: max(0, color.blue - 0.15), alpha: color.alpha)
    }
}

extension Banner {
    /// The banner with `fill` applied to every text a user sees: title, subtitle, text icon and
    /// button titles (a flow's `{{name}}` placeholders).
    ///
    /// ```swift
    /// banner.filled { RocketTemplate.render($0, answers: answers) }
    /// ```
    public func filled(_ fill: (String) -> String) -> Banner {
        var b = self
        b.title = fill(title)
        b.subtitle = subtitle.map(fill)
        if case .text(let t)? = icon { b.icon = .text(fill(t)) }
        switch buttons {
        case .one(let t): b.buttons = .one(fill(t))
        case .two(let l, let r): b.buttons = .two(fill(l), fill(r))
        default: break
        }
        return b
    }
}
