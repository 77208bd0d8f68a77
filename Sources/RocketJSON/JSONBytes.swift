/// JSON written straight into UTF-8 bytes, for documents written often enough that building a
/// ``JSONValue`` first would cost (conversation snapshots, the server's views). Strings are
/// escaped and numbers formatted exactly as ``JSONValue`` writes them; the caller places the
/// commas (`first:`) and closes what it opens.
///
/// ```swift
/// var w = JSONBytes()
/// w.open()
/// w.key("a", first: true); w.number(1)
/// w.key("b"); w.string("x")
/// w.close()        // {"a":1,"b":"x"}
/// ```
package struct JSONBytes {
    /// The bytes written so far.
    package var out: [UInt8] = []

    /// An empty writer with room for `capacity` bytes.
    package init(capacity: Int = 256) {
        out.reserveCapacity(capacity)
    }

    /// `{`.
    package mutating func open() { out.append(0x7B) }
    /// `}`, `count` times.
    package mutating func close(_ count: Int = 1) {
        for _ in 0..<count { out.append(0x7D) }
    }
    /// `[`.
    package mutating func openArray() { out.append(0x5B) }
    /// `]`.
    package mutating func closeArray() { out.append(0x5D) }
    /// `,`.
    package mutating func comma() { out.append(0x2C) }

    /// `"k":`, after a comma unless it is the object's first member. `k` is written as it is: an
    /// ASCII literal that needs no escaping.
    package mutating func key(_ k: StaticString, first: Bool = false) {
        if !first { out.append(0x2C) }
        out.append(0x22)
        if k.hasPointerRepresentation {
            out.append(contentsOf: UnsafeBufferPointer(start: k.utf8Start, count: k.utf8CodeUnitCount))
        } else {
            k.withUTF8Buffer { out.append(contentsOf: $0) }  // a one-character literal
        }
        out.append(0x22)
        out.append(0x3A)
    }

    /// `"k":` for a key that may need escaping (a name from data).
    package mutating func key(escaping k: String, first: Bool = false) {
        if !first { out.append(0x2C) }
        JSONValue.appendString(k, to: &out)
        out.append(0x3A)
    }

    /// A string.
    package mutating func string(_ s: String) { JSONValue.appendString(s, to: &out) }
    /// A whole number.
    package mutating func number(_ n: Int) { JSONValue.appendNumber(n, to: &out) }
    /// An array of whole numbers (`[0,2]`).
    package mutating func numbers(_ list: [Int]) {
        out.append(0x5B)
        for (k, n) in list.enumerated() {
            if k > 0 { out.append(0x2C) }
            number(n)
        }
        out.append(0x5D)
    }
    /// An array of strings (`["a","b"]`).
    package mutating func strings(_ list: [String]) {
        out.append(0x5B)
        for (k, s) in list.enumerated() {
            if k > 0 { out.append(0x2C) }
            string(s)
        }
        out.append(0x5D)
    }
    /// A number; one that is not finite is written as 0 (JSON has no such numbers).
    package mutating func number(_ v: Double) { JSONValue.appendNumber(v.isFinite ? v : 0, to: &out) }
    /// A number written with at most `fractionDigits` (0–9) decimals, trailing zeros dropped:
    /// for times, where the shortest exact form costs a general conversion. When the scaled value
    /// would not fit in 10¹⁸, or `v` is not finite, it is written as ``number(_:)-(Double)``
    /// writes it.
    package mutating func number(_ v: Double, fractionDigits: Int) {
        let digits = min(max(fractionDigits, 0), 9)
        var scale = 1
        for _ in 0..<digits { scale *= 10 }
        guard v.isFinite, abs(v) * Double(scale) < 1e18 else { return number(v) }
        let scaled = Int((abs(v) * Double(scale)).rounded())
        let whole = scaled / scale
        var fraction = scaled % scale
        if v < 0 && scaled != 0 { out.append(0x2D) }
        JSONValue.appendNumber(whole, to: &out)
        guard fraction != 0 else { return }
        var width = digits
        while fraction % 10 == 0 {
            fraction /= 10
            width -= 1
        }
        out.append(0x2E)
        var divisor = 1
        for _ in 1..<width { divisor *= 10 }
        while divisor > 0 {
            out.append(UInt8(0x30 + fraction / divisor % 10))
            divisor /= 10
        }
    }

    /// `true` or `false`.
    package mutating func bool(_ b: Bool) { JSONValue.appendBool(b, to: &out) }
    /// `null`.
    package mutating func null() { out.append(contentsOf: [0x6E, 0x75, 0x6C, 0x6C] as [UInt8]) }
    /// A value.
    package mutating func value(_ v: JSONValue) { v.append(to: &out) }
    /// Bytes that are already JSON.
    package mutating func raw(_ bytes: [UInt8]) { out.append(contentsOf: bytes) }

    /// Appends part of some bytes as they are (JSON the caller made).
    package mutating func raw(_ bytes: ArraySlice<UInt8>) { out.append(contentsOf: bytes) }

    /// `{"name":{` — the synthesized `Codable` form of an enum case; close with `close(2)`.
    package mutating func enumCase(_ name: StaticString) {
        open()
        key(name, first: true)
        open()
    }

    /// `{"name":{}}` — an enum case without associated values, as `Codable` writes it.
    package mutating func emptyCase(_ name: StaticString) {
        enumCase(name)
        close(2)
    }
}
