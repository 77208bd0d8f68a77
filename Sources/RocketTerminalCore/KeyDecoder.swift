import RocketCore

/// A key press or other input event decoded from terminal bytes.
public enum Key: Hashable, Sendable {
    /// A printable character (a whole grapheme's first scalar run as typed).
    case character(Character)
    case enter, tab, backTab, backspace, delete, escape
    case up, down, left, right, home, end, pageUp, pageDown
    /// Ctrl plus a letter, lowercased (`ctrl("a")` for Ctrl-A). Ctrl-C is `ctrl("c")`.
    case ctrl(Character)
    /// Alt (Meta) plus a character: ESC followed at once by the character.
    case alt(Character)
    /// Text pasted with bracketed paste.
    case paste(String)
    /// A mouse button press at a 0-based screen row and column (SGR mouse reporting).
    case mouse(row: Int, column: Int)
    /// The terminal's answer to a cursor-position query (ESC [ 6 n): 0-based row and column.
    case cursorPosition(row: Int, column: Int)
    /// A sequence this decoder does not know (ignored by front ends).
    case unknown
}

/// Decodes raw terminal input into ``Key``s, across reads: UTF-8 and escape sequences split
/// between two reads are kept until complete.
///
/// A lone ESC is ambiguous (Esc, or the start of a sequence or of Alt-x): it stays pending until
/// the host calls ``flush()`` after a short quiet time (50 ms).
///
/// ```swift
/// var decoder = KeyDecoder()
/// decoder.feed([0x1B, 0x5B])      // []  (incomplete)
/// decoder.feed([0x41])            // [.up]
/// decoder.feed([0x1B])            // []
/// decoder.flush()                 // [.escape]
/// ```
public struct KeyDecoder: Sendable {
    private var buffer: [UInt8] = []
    private var pasting = false
    private var pasteBytes: [UInt8] = []
    /// Where decoding is in `buffer` during ``feed(_:)``: what is before it is used, and is
    /// removed once at the end of the read rather than key by key.
    private var head = 0

    /// A decoder with nothing pending.
    public init() {}

    /// A run of at least this many characters in one read is a paste, not typing (no one types
    /// 32 keys between two reads): ``coalescingPastes(_:)`` makes it one `.paste`.
    public static let pasteRun = 32

    /// `keys` with each run of ``pasteRun`` or more plain characters (a paste from a terminal
    /// without bracketed paste) joined into one `.paste`, so that it is one edit: a filter is
    /// applied once, not once per character. Shorter runs stay keys (a typed `y`, a space).
    public static func coalescingPastes(_ keys: [Key]) -> [Key] {
        guard keys.count >= pasteRun else { return keys }
        var out: [Key] = []
        var run: [Character] = []
        func flush() {
            if run.count >= pasteRun {
                out.append(.paste(String(run)))
            } else {
                out += run.map { Key.character($0) }
            }
            run.removeAll(keepingCapacity: true)
        }
        for key in keys {
            if case .character(let c) = key {
                run.append(c)
            } else {
                flush()
                out.append(key)
            }
        }
        flush()
        return out
    }

    /// True when bytes are waiting for more input (the host should call ``flush()`` after a pause).
    public var hasPending: Bool { !buffer.isEmpty }

    /// The most bytes of one bracketed paste kept: a few past `RocketLimits.lineBytes` (what a
    /// field holds), so that the field still sees it was cut and says so. The rest of the paste
    /// is read and dropped, so a paste that never ends holds no more than this.
    public static let pasteBytesKept = RocketLimits.lineBytes + 4

    /// The longest control sequence (`ESC [` with its parameters) waited for: longer ones are
    /// no key any terminal sends; they become `.unknown` at once and what follows is read as typed.
    public static let sequenceBytes = 64

    /// Decodes what can be decoded from the bytes so far. Each byte is looked at a bounded number
    /// of times, however many keys one read holds.
    public mutating func feed(_ bytes: [UInt8]) -> [Key] {
        buffer += bytes
        head = 0
        defer {
            buffer.removeFirst(head)
            head = 0
        }
        var keys: [Key] = []
        while head < buffer.count {
            if pasting {
                if let end = findPasteEnd() {
                    keep(pasted: head..<end)
                    head = end + Self.pasteEnd.count
                    pasting = false
                    keys.append(.paste(Self.pasteText(pasteBytes)))
                    pasteBytes = []
                    continue
                }
                // Keep a possible partial end marker (an ESC in the last 5 bytes) in the buffer.
                let tailStart = max(head, buffer.count - (Self.pasteEnd.count - 1))
                let cut = buffer[tailStart...].lastIndex(of: 0x1B) ?? buffer.count
                keep(pasted: head..<cut)
                head = cut
                break
            }
            guard let (key, used) = decodeOne() else { break }
            head += used
            if let key { keys.append(key) }
        }
        return keys
    }

    /// ESC [ 2 0 1 ~, the end of a bracketed paste.
    private static let pasteEnd: [UInt8] = [0x1B, 0x5B, 0x32, 0x30, 0x31, 0x7E]

    /// Adds the buffer's `range` to the paste, up to ``pasteBytesKept``.
    private mutating func keep(pasted range: Range<Int>) {
        let room = Self.pasteBytesKept - pasteBytes.count
        guard room > 0 else { return }
        pasteBytes += buffer[range.lowerBound..<min(range.upperBound, range.lowerBound + room)]
    }

    /// A paste's text: a character cut at ``pasteBytesKept`` is left out rather than replaced.
    private static func pasteText(_ bytes: [UInt8]) -> String {
        var end = bytes.count
        if end == pasteBytesKept {
            // Back off to the start of the last character, and drop it unless it is whole.
            var start = end - 1
            while start > 0, bytes[start] & 0xC0 == 0x80 { start -= 1 }
            let lead = bytes[start]
            let length = lead < 0x80 ? 1 : lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : 2
            if start + length > end { end = start }
        }
        return String(decoding: bytes[..<end], as: UTF8.self)
    }

    /// Resolves what is pending after a quiet time: a lone ESC becomes `.escape`; an incomplete
    /// sequence or character is dropped as `.unknown`.
    public mutating func flush() -> [Key] {
        guard !buffer.isEmpty, !pasting else { return [] }
        defer {
            buffer = []
            head = 0
        }
        if buffer == [0x1B] { return [.escape] }
        if buffer.count == 2 && buffer[0] == 0x1B && buffer[1] == 0x1B { return [.escape, .escape] }
        return [.unknown]
    }

    /// Where the paste's end marker starts in the buffer after `head`, if it is there whole.
    private func findPasteEnd() -> Int? {
        let marker = Self.pasteEnd
        var i = head
        while i + marker.count <= buffer.count {
            if buffer[i] == 0x1B, buffer[(i + 1)..<(i + marker.count)].elementsEqual(marker.dropFirst()) { return i }
            i += 1
        }
        return nil
    }

    /// The byte `offset` bytes after `head`.
    private func byte(_ offset: Int) -> UInt8 { buffer[head + offset] }

    /// How many bytes are there from `head` on.
    private var available: Int { buffer.count - head }

    /// Decodes one key at the start of the buffer: (key, bytes used), or nil when incomplete.
    private mutating func decodeOne() -> (Key?, Int)? {
        let b = byte(0)
        switch b {
        case 0x0D, 0x0A: return (.enter, 1)
        case 0x09: return (.tab, 1)
        case 0x7F, 0x08: return (.backspace, 1)
        case 0x1B: return decodeEscape()
        case 0x00: return (.ctrl(" "), 1)
        case 0x01...0x1A: return (.ctrl(Character(Unicode.Scalar(b + 0x60))), 1)
        case 0x1C: return (.ctrl("\\"), 1)  // Ctrl-\, the quit key
        case 0x1D...0x1F: return (.unknown, 1)
        default:
            guard let (ch, n) = decodeUTF8(at: 0) else { return nil }
            return (ch.map { .character($0) } ?? .unknown, n)
        }
    }

    /// A UTF-8 scalar at `i`: (character or nil if invalid, length), or nil when incomplete.
    private func decodeUTF8(at i: Int) -> (Character?, Int)? {
        let b = byte(i)
        let need: Int
        switch b {
        case 0x00..<0x80: return (Character(Unicode.Scalar(b)), 1)
        case 0xC2...0xDF: need = 2
        case 0xE0...0xEF: need = 3
        case 0xF0...0xF4: need = 4
        default: return (nil, 1)
        }
        guard available - i >= need else { return nil }
        let bytes = Array(buffer[(head + i)..<(head + i + need)])
        guard bytes.dropFirst().allSatisfy({ $0 & 0xC0 == 0x80 }) else { return (nil, 1) }
        let s = String(decoding: bytes, as: UTF8.self)
        guard let ch = s.first, !s.contains("\u{FFFD}") else { return (nil, need) }
        return (ch, need)
    }

    private mutating func decodeEscape() -> (Key?, Int)? {
        guard available >= 2 else { return nil }
        let b1 = byte(1)
        if b1 == 0x5B { return decodeCSI() }  // ESC [
        if b1 == 0x4F {  // ESC O (SS3)
            guard available >= 3 else { return nil }
            switch byte(2) {
            case 0x41: return (.up, 3)
            case 0x42: return (.down, 3)
            case 0x43: return (.right, 3)
            case 0x44: return (.left, 3)
            case 0x48: return (.home, 3)
            case 0x46: return (.end, 3)
            case 0x4D: return (.enter, 3)
            default: return (.unknown, 3)
            }
        }
        if b1 == 0x1B { return (.escape, 1) }
        if b1 == 0x0D { return (.alt("\r"), 2) }
        guard let (ch, n) = decodeUTF8(at: 1) else { return nil }
        return (ch.map { .alt($0) } ?? .unknown, 1 + n)
    }

    private mutating func decodeCSI() -> (Key?, Int)? {
        // ESC [ params(0x30–0x3F)* intermediates(0x20–0x2F)* final(0x40–0x7E)
        var i = 2
        while i < available, i < Self.sequenceBytes, (0x30...0x3F).contains(byte(i)) { i += 1 }
        while i < available, i < Self.sequenceBytes, (0x20...0x2F).contains(byte(i)) { i += 1 }
        if i == Self.sequenceBytes { return (.unknown, i) }
        guard i < available else { return nil }
        let final = byte(i)
        let used = i + 1
        guard (0x40...0x7E).contains(final) else { return (.unknown, used) }
        let paramText = String(decoding: buffer[(head + 2)..<(head + i)], as: UTF8.self)
        if paramText.hasPrefix("<") && (final == 0x4D || final == 0x6D) {  // SGR mouse
            let parts = paramText.dropFirst().split(separator: ";").compactMap { Int($0) }
            if final == 0x4D, parts.count == 3, parts[0] & 0b1100011 == 0 {
                return (.mouse(row: parts[2] - 1, column: parts[1] - 1), used)
            }
            return (nil, used)
        }
        let params = paramText.split(separator: ";", omittingEmptySubsequences: false).map { Int($0) ?? 0 }
        let first = params.first ?? 0
        switch final {
        case 0x41: return (.up, used)
        case 0x42: return (.down, used)
        case 0x43: return (.right, used)
        case 0x44: return (.left, used)
        case 0x48: return (.home, used)
        case 0x46: return (.end, used)
        case 0x5A: return (.backTab, used)  // ESC [ Z
        case 0x52 where params.count == 2 && params[0] > 0 && params[1] > 0:  // ESC [ row ; col R
            return (.cursorPosition(row: params[0] - 1, column: params[1] - 1), used)
        case 0x7E:
            switch first {
            case 1, 7: return (.home, used)
            case 4, 8: return (.end, used)
            case 3: return (.delete, used)
            case 5: return (.pageUp, used)
            case 6: return (.pageDown, used)
            case 200:
                pasting = true
                pasteBytes = []
                return (nil, used)
            default: return (.unknown, used)
            }
        default:
            return (.unknown, used)
        }
    }
}
