public import RocketCore

/// The one reading of a banner, shared by flow files (`"banner": {…}`) and `rocket banner`'s
/// flags: one table of fields with their flow keys and flags, defaults, and one rule per value
/// (the icon rule, colours, buttons, the duration syntax). Front ends only say where a value came
/// from.
///
/// ```swift
/// let (banner, problems) = BannerCodec.banner([.title: .text("Saved"), .buttons: .list(["Undo"]), .duration: .text("5s")])
/// problems.isEmpty     // true
/// banner.buttons       // .one("Undo")
/// ```
public enum BannerCodec {
    /// A value as given.
    public enum Input: Hashable, Sendable {
        /// Text (a flag's value, a JSON string).
        case text(String)
        /// A number (JSON).
        case number(Double)
        /// A switch (a JSON boolean; a flag that is present).
        case bool(Bool)
        /// Titles (repeated `--button`, a JSON array).
        case list([String])
    }

    /// Every field of a banner, with its flow key and flag.
    public enum Field: String, CaseIterable, Hashable, Sendable {
        case title, subtitle, icon, color, titleColor, subtitleColor, buttons, duration, animation, backgroundTaps, swipe, fullWidth

        /// The key in a flow file's `"banner"` object.
        public var flowKey: String { rawValue }

    }

    /// Why a value was refused.
    public struct Problem: Error, Hashable, Sendable {
        /// The field.
        public var field: Field
        /// A sentence about the value (front ends add where it came from).
        public var message: String
        /// A short code for diagnostics (`bad-color`, `bad-duration`, `too-many-buttons`, …).
        public var code: String
    }

    /// The icon rule: a `data:` URI, or text with a `.` or `/`, is a picture; anything else is
    /// shown as text (an emoji). Empty text is refused.
    public static func icon(_ text: String) -> Result<BannerIcon, Problem> {
        guard !text.isEmpty else { return .failure(Problem(field: .icon, message: "must not be empty", code: "empty-value")) }
        if text.hasPrefix("data:") || text.contains(".") || text.contains("/") { return .success(.image(RocketImage(reference: text))) }
        return .success(.text(text))
    }

    /// A colour name or `#RRGGBB`.
    public static func color(_ text: String, for field: Field) -> Result<RocketColor, Problem> {
        guard let c = RocketColor(nameOrHex: text) else {
            return .failure(Problem(field: field, message: "must be a colour name or #RRGGBB, not \"\(text)\"", code: "bad-color"))
        }
        return .success(c)
    }

    /// Up to two non-empty titles, or the close button.
    public static func buttons(_ titles: [String], close: Bool) -> Result<BannerButtons, Problem> {
        if close && !titles.isEmpty {
            return .failure(Problem(field: .buttons, message: "titled buttons and the close button cannot be combined", code: "too-many-buttons"))
        }
        if close { return .success(.close) }
        if titles.count > 2 {
            return .failure(Problem(field: .buttons, message: "a banner has at most two buttons (got \(titles.count))", code: "too-many-buttons"))
        }
        if titles.contains(where: { $0.allSatisfy(\.isWhitespace) }) {
            return .failure(Problem(field: .buttons, message: "a button title must not be empty", code: "empty-value"))
        }
        do throws(BannerError) {
            return .success(try BannerButtons(configuration: titles.count, titles: titles))
        } catch {
            return .failure(Problem(field: .buttons, message: error.message, code: "too-many-buttons"))
        }
    }

    /// A duration (`RocketDuration`): text or a number of seconds.
    public static func duration(_ input: Input) -> Result<Double, Problem> {
        let d: Double?
        switch input {
        case .text(let text): d = RocketDuration.parse(text)
        case .number(let v): d = RocketDuration.seconds(v)
        default: d = nil
        }
        guard let d else { return .failure(Problem(field: .duration, message: "must be " + RocketDuration.syntax, code: "bad-duration")) }
        return .success(d)
    }

    /// An animation name.
    public static func animation(_ text: String) -> Result<BannerAnimation, Problem> {
        guard let a = BannerAnimation(rawValue: text) else {
            return .failure(Problem(field: .animation, message: "must be linear, drop or snap, not \"\(text)\"", code: "bad-value"))
        }
        return .success(a)
    }

    /// The banner the values describe (defaults for the rest: white text, no buttons, no timer,
    /// linear, taps and swipes on), and every problem found.
    public static func banner(_ values: [Field: Input]) -> (banner: Banner, problems: [Problem]) {
        var problems: [Problem] = []
        func text(_ field: Field) -> String? {
            guard let v = values[field] else { return nil }
            if case .text(let t) = v { return t }
            problems.append(Problem(field: field, message: "must be text", code: "wrong-type"))
            return nil
        }
        func flag(_ field: Field, default d: Bool) -> Bool {
            guard let v = values[field] else { return d }
            if case .bool(let b) = v { return b }
            problems.append(Problem(field: field, message: "must be true or false", code: "wrong-type"))
            return d
        }
        func take<T>(_ r: Result<T, Problem>) -> T? {
            switch r {
            case .success(let v): return v
            case .failure(let p): problems.append(p); return nil
            }
        }
        let title = text(.title) ?? ""
        if values[.title] != nil && title.allSatisfy(\.isWhitespace) {
            problems.append(Problem(field: .title, message: "must not be empty", code: "empty-value"))
        }
        var banner = Banner(title: title)
        banner.subtitle = text(.subtitle)
        if let icon = text(.icon) { banner.icon = take(self.icon(icon)) }
        if let c = text(.color) { banner.backgroundColor = take(color(c, for: .color)) }
        banner.titleColor = text(.titleColor).flatMap { take(color($0, for: .titleColor)) } ?? .white
        banner.subtitleColor = text(.subtitleColor).flatMap { take(color($0, for: .subtitleColor)) } ?? .white
        switch values[.buttons] {
        case .list(let titles)?: banner.buttons = take(buttons(titles, close: false)) ?? .none
        case .text("close")?: banner.buttons = .close
        case nil: break
        default: problems.append(Problem(field: .buttons, message: "must be up to two titles, or \"close\"", code: "wrong-type"))
        }
        if let d = values[.duration] { banner.duration = take(duration(d)) ?? 0 }
        if let a = text(.animation) { banner.animationType = take(animation(a)) ?? .linear }
        banner.backgroundTapsEnabled = flag(.backgroundTaps, default: true)
        banner.swipeToDismissEnabled = flag(.swipe, default: true)
        banner.fullWidthMessages = flag(.fullWidth, default: false)
        return (banner, problems)
    }
}
