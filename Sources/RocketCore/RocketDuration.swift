/// The one duration syntax of every flag, flow-file field and message: seconds (`90`, `1.5`),
/// or a number with `ms`, `s`, `m`, `h`, `d` or `w`; from 0 to 100 years.
///
/// ```swift
/// RocketDuration.parse("14d")     // 1_209_600
/// RocketDuration.parse("500ms")   // 0.5
/// RocketDuration.format(90)       // "1m30s"
/// ```
public enum RocketDuration {
    /// The longest duration accepted anywhere (100 years): larger values are refused where they
    /// enter, so no arithmetic on them can overflow.
    public static let maxSeconds: Double = RocketLimits.durationSeconds

    /// Seconds from "90", "1.5", "500ms", "90s", "5m", "1.5h", "14d", "2w"; nil for anything else,
    /// negative values and values above ``maxSeconds`` included.
    public static func parse(_ text: String) -> Double? {
        var number = Substring(text)
        var scale = 1.0
        if number.hasSuffix("ms") {
            number = number.dropLast(2)
            scale = 0.001
        } else if let last = number.last {
            switch last {
            case "s": scale = 1
            case "m": scale = 60
            case "h": scale = 3600
            case "d": scale = 86_400
            case "w": scale = 604_800
            default: scale = 0
            }
            if scale == 0 { scale = 1 } else { number = number.dropLast() }
        }
        guard !number.isEmpty, number.utf8.count <= 32,
            number.utf8.allSatisfy({ ($0 >= 48 && $0 <= 57) || $0 == UInt8(ascii: ".") }),
            let v = Double(number), v.isFinite, v >= 0
        else { return nil }
        let seconds = v * scale
        guard seconds <= maxSeconds else { return nil }
        return seconds
    }

    /// A number of seconds given as a number (a JSON value), when it is within range.
    public static func seconds(_ value: Double) -> Double? {
        value.isFinite && value >= 0 && value <= maxSeconds ? value : nil
    }

    /// What the syntax is, for messages.
    public static let syntax = "seconds or a duration like \"500ms\", \"90s\", \"5m\", \"2h\", \"14d\", \"2w\" (at most 100 years)"

    /// A short human form: "45s", "1m30s", "2h", "14d".
    public static func format(_ seconds: Double) -> String {
        // Values from outside (an old store, a hand-edited file) may be anything: never trap.
        guard seconds.isFinite, seconds.magnitude <= 1e15 else { return "\(seconds)s" }
        if seconds < 0 { return "-" + format(-seconds) }
        if seconds < 60 {
            return seconds == seconds.rounded() ? "\(Int(seconds))s" : "\((seconds * 1000).rounded() / 1000)s"
        }
        let s = Int(seconds.rounded())
        let parts = [(s / 86_400, "d"), (s % 86_400 / 3600, "h"), (s % 3600 / 60, "m"), (s % 60, "s")]
        return parts.filter { $0.0 > 0 }.prefix(2).map { "\($0.0)\($0.1)" }.joined()
    }
}
