/// The one reading of an on/off environment variable (`ROCKET_PLAIN`, `ROCKET_ASCII`,
/// `ROCKET_REDUCED_MOTION`): `1`, `true`, `yes` or `on` is on; `0`, `false`, `no` or `off` is
/// off (any case); unset or empty says nothing. Any other value says nothing either, and
/// ``unreadable(in:)`` names it, so the command can warn instead of acting on a guess.
package enum EnvironmentFlag {
    /// The variables read this way.
    package static let names = ["ROCKET_PLAIN", "ROCKET_ASCII", "ROCKET_REDUCED_MOTION"]

    /// On (true), off (false), or nothing said (nil) by `text`.
    package static func value(_ text: String?) -> Bool? {
        switch text?.lowercased() {
        case "1", "true", "yes", "on": return true
        case "0", "false", "no", "off": return false
        default: return nil
        }
    }

    /// The variable `name` of `environment`, read as ``value(_:)`` reads it.
    package static func value(_ name: String, in environment: [String: String]) -> Bool? { value(environment[name]) }

    /// The variables of ``names`` set in `environment` to something that is neither on nor off,
    /// with their values, in the order of ``names``.
    package static func unreadable(in environment: [String: String]) -> [(name: String, value: String)] {
        names.compactMap { name in
            guard let v = environment[name], !v.isEmpty, value(v) == nil else { return nil }
            return (name, v)
        }
    }
}
