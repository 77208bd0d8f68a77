/// JSON laid out for people to read and to review in a diff (`rocket fmt`, and the files
/// `rocket new` writes): only the white space between values changes, never a value's text.
///
/// The rules, in order:
/// - the document's own object (or array) has one member per line, indented by two;
/// - any other value is written on one line when it fits within the width, with its closing
///   punctuation (`,`, `}`, `]`);
/// - an array that does not fit has one item per line, two deeper than the line it opens on,
///   and its `]` on a line of its own;
/// - an object that does not fit has as many members on each line as fit, the lines after the
///   first starting one column right of its `{` (so a block's fields read as one paragraph); a
///   member that fits on no line has its own value laid out by these rules, and the member after
///   it begins a line.
///
/// Keys, strings and numbers are copied as written (escapes, exponents and trailing zeros
/// included), so the document means what it meant, byte for byte in every value; the layout
/// depends on nothing but the values, so laying out a laid-out document changes nothing. Widths
/// are counted in characters (Unicode scalars).
///
/// ```swift
/// let tape = try JSONTape.parse(Array(#"{"a": [1,2], "b": {"c": true}}"#.utf8))
/// String(decoding: JSONLayout.format(tape), as: UTF8.self)
/// // {
/// //   "a": [1, 2],
/// //   "b": {"c": true}
/// // }
/// ```
package enum JSONLayout {
    /// The width lines are kept within unless asked otherwise.
    package static let defaultWidth = 100
    /// The widths a caller may ask for.
    package static let widths = 40...1_000

    /// The document of `tape` laid out within `width` characters a line (a value longer than
    /// that on its own, such as a long string, still takes one line), ending with a newline.
    package static func format(_ tape: JSONTape, width: Int = defaultWidth) -> [UInt8] {
        var printer = Printer(tape: tape, width: width)
        printer.document()
        return printer.out
    }

    private struct Printer {
        let tape: JSONTape
        let width: Int
        var out: [UInt8] = []
        var column = 0
        /// Where the current line's text begins: an array opened on it puts its items two further in.
        var lineIndent = 0
        /// Line breaks written so far.
        var lines = 0
        /// Each entry's width written on one line (a key's: its own text).
        var flat: [Int]
        /// Each scalar entry's text in the source (containers: empty).
        var raw: [Range<Int>]

        init(tape: JSONTape, width: Int) {
            self.tape = tape
            self.width = width
            let n = tape.entryCount
            var raw = [Range<Int>](repeating: 0..<0, count: n)
            var flat = [Int](repeating: 0, count: n)
            let bytes = tape.bytes
            func characters(_ r: Range<Int>) -> Int {
                var c = 0
                for k in r where bytes[k] & 0xC0 != 0x80 { c += 1 }
                return c
            }
            // Children follow their parent on the tape: from the end, every child is measured
            // before its parent adds it up.
            for i in stride(from: n - 1, through: 0, by: -1) {
                let start = tape.offset(i)
                switch tape.kind(i) {
                case .null: raw[i] = start..<(start + 4)
                case .bool: raw[i] = start..<(start + (bytes[start] == UInt8(ascii: "t") ? 4 : 5))
                case .number:
                    var end = start
                    while end < bytes.count, Self.isNumberByte(bytes[end]) { end += 1 }
                    raw[i] = start..<end
                case .string:
                    // From its opening quote through the closing one, which the lexer recorded.
                    raw[i] = start..<(Int(tape.entries[i].b) + 1)
                case .array, .object:
                    let object = tape.kind(i) == .object
                    var total = 2, members = 0
                    var j = i + 1
                    let end = tape.next(after: i)
                    while j < end {
                        if object {
                            total += flat[j] + 2 + flat[j + 1]
                            j = tape.next(after: j + 1)
                        } else {
                            total += flat[j]
                            j = tape.next(after: j)
                        }
                        members += 1
                    }
                    flat[i] = total + max(0, members - 1) * 2
                    continue
                }
                flat[i] = characters(raw[i])
            }
            self.raw = raw
            self.flat = flat
        }

        static func isNumberByte(_ b: UInt8) -> Bool {
            (b >= 0x30 && b <= 0x39) || b == UInt8(ascii: "-") || b == UInt8(ascii: "+") || b == UInt8(ascii: ".") || b == UInt8(ascii: "e")
                || b == UInt8(ascii: "E")
        }

        /// The members of object `i` as (key, value) entries, or the items of array `i` as (item, item).
        func children(_ i: Int) -> [(key: Int, value: Int)] {
            var out: [(Int, Int)] = []
            out.reserveCapacity(tape.count(i))
            let object = tape.kind(i) == .object
            var j = i + 1
            let end = tape.next(after: i)
            while j < end {
                let value = object ? j + 1 : j
                out.append((j, value))
                j = tape.next(after: value)
            }
            return out
        }

        mutating func emit(_ s: StaticString) {
            s.withUTF8Buffer { out.append(contentsOf: $0) }
            column += s.utf8CodeUnitCount
        }

        mutating func emitRaw(_ i: Int) {
            out.append(contentsOf: tape.bytes[raw[i]])
            column += flat[i]
        }

        mutating func newline(_ indent: Int) {
            out.append(0x0A)
            lines += 1
            out.append(contentsOf: repeatElement(0x20, count: indent))
            column = indent
            lineIndent = indent
        }

        mutating func document() {
            let kind = tape.kind(0)
            if (kind == .object || kind == .array) && tape.count(0) > 0 {
                let object = kind == .object
                emit(object ? "{" : "[")
                let members = children(0)
                for (n, m) in members.enumerated() {
                    newline(2)
                    let last = n == members.count - 1
                    if object {
                        emitRaw(m.key)
                        emit(": ")
                    }
                    write(m.value, tail: last ? 0 : 1)
                    if !last { emit(",") }
                }
                newline(0)
                emit(object ? "}" : "]")
            } else {
                writeFlat(0)
            }
            out.append(0x0A)
        }

        /// Writes entry `i` where the column is, `tail` characters of punctuation to follow it.
        mutating func write(_ i: Int, tail: Int) {
            let kind = tape.kind(i)
            guard kind == .object || kind == .array, tape.count(i) > 0, column + flat[i] + tail > width else {
                writeFlat(i)
                return
            }
            if kind == .array {
                let outer = lineIndent
                emit("[")
                let items = children(i)
                for (n, item) in items.enumerated() {
                    newline(outer + 2)
                    let last = n == items.count - 1
                    write(item.value, tail: last ? 0 : 1)
                    if !last { emit(",") }
                }
                newline(outer)
                emit("]")
                return
            }
            let next = column + 1
            emit("{")
            var firstOnLine = true, brokenBefore = false
            let members = children(i)
            for (n, m) in members.enumerated() {
                let last = n == members.count - 1
                let after = last ? 1 + tail : 1
                if !firstOnLine {
                    // After a value laid over several lines, the next member begins a line.
                    if !brokenBefore && column + 1 + flat[m.key] + 2 + flat[m.value] + after <= width {
                        emit(" ")
                    } else {
                        newline(next)
                    }
                }
                emitRaw(m.key)
                emit(": ")
                let before = lines
                write(m.value, tail: after)
                brokenBefore = lines != before
                emit(last ? "}" : ",")
                firstOnLine = false
            }
        }

        /// Writes entry `i` on one line.
        mutating func writeFlat(_ i: Int) {
            let kind = tape.kind(i)
            guard kind == .object || kind == .array else {
                emitRaw(i)
                return
            }
            let object = kind == .object
            emit(object ? "{" : "[")
            for (n, m) in children(i).enumerated() {
                if n > 0 { emit(", ") }
                if object {
                    emitRaw(m.key)
                    emit(": ")
                }
                writeFlat(m.value)
            }
            emit(object ? "}" : "]")
        }
    }
}
