import RocketCore

/// A single-line text editor: the model behind the terminal's text input.
///
/// Keys follow readline: ←/→, Home/End (Ctrl-A/Ctrl-E), Backspace/Delete, Ctrl-U (kill to
/// start), Ctrl-K (kill to end), Ctrl-W (kill the word before the cursor). Pasted text is
/// inserted with newlines and tabs turned into spaces and controls removed, as one edit, and the
/// text is capped at ``limit`` bytes of UTF-8 (the same cap as a line in line mode): what would
/// go past it is dropped. Positions are grapheme clusters, so wide and combining characters move
/// as one. A ``multiline`` editor keeps line breaks (typed with Enter by its owner, or pasted):
/// ↑/↓ move between lines and Home/End go to the ends of the cursor's line.
///
/// ```swift
/// var editor = LineEditor()
/// editor.insert("Ada Lovelace")
/// editor.handle(.ctrl("w"))   // "Ada "
/// editor.text                 // "Ada "
/// ```
public struct LineEditor: Hashable, Sendable {
    /// The characters.
    public private(set) var characters: [Character] = []
    /// The insertion point, 0...characters.count.
    public private(set) var cursor = 0

    /// True when the text may hold line breaks (kept as `"\n"`; a pasted `"\r\n"` or `"\r"` is one).
    public var multiline = false

    /// An empty editor.
    public init() {}

    /// An empty editor whose text may hold line breaks when `multiline`.
    public init(multiline: Bool) { self.multiline = multiline }

    /// The longest text the editor holds, in bytes of UTF-8: a line in line mode has the same cap.
    public static let limit = LineReader.defaultLimit
    private var bytes = 0  // UTF-8 bytes of `characters`
    /// True when the last key or insertion (a paste, a typed key) was cut at ``limit``: the host
    /// says so, since an answer sent without the rest would otherwise lose it unseen.
    public private(set) var cut = false
    private var widths: [UInt8] = []  // the display width of each of `characters`

    /// The text.
    public var text: String { String(characters) }

    /// Inserts text at the cursor (sanitised: no controls, newlines become spaces), as one edit:
    /// its cost is the inserted text's, not the whole field's. Text past ``limit`` is dropped.
    public mutating func insert(_ s: String) {
        var room = Self.limit - bytes
        cut = false
        guard room > 0 else {
            cut = !s.isEmpty
            return
        }
        var new: [Character] = []
        for ch in s {
            var c = ch
            if c == "\n" || c == "\r" || c == "\r\n" { c = multiline ? "\n" : " " }
            if c == "\t" { c = " " }
            if c.unicodeScalars.contains(where: { Sanitizer.isUnsafe($0) }) { continue }
            let size = c.utf8.count
            if size > room {
                cut = true
                break
            }
            room -= size
            new.append(c)
        }
        guard !new.isEmpty else { return }
        bytes = Self.limit - room
        // ASCII next to ASCII never joins a neighbour (newlines were made spaces): no segmenting.
        func isASCII(_ c: Character) -> Bool { c.utf8.count == 1 }
        if new.allSatisfy(isASCII), cursor == 0 || isASCII(characters[cursor - 1]), cursor == characters.count || isASCII(characters[cursor]) {
            characters.insert(contentsOf: new, at: cursor)
            widths.insert(contentsOf: repeatElement(1, count: new.count), at: cursor)
            cursor += new.count
            return
        }
        // A combining mark typed after a letter merges with it (and a letter before a mark):
        // only the clusters at the two edges can change, so only they are segmented again.
        let lower = cursor > 0 ? cursor - 1 : cursor
        let upper = cursor < characters.count ? cursor + 1 : cursor
        let window = characters[lower..<cursor] + new + characters[cursor..<upper]
        let resegmented = Array(String(window))
        let before = String(characters[lower..<cursor] + new).count  // the cursor goes after the insertion
        characters.replaceSubrange(lower..<upper, with: resegmented)
        widths.replaceSubrange(lower..<upper, with: resegmented.map { UInt8(clamping: DisplayWidth.of($0)) })
        cursor = min(lower + before, characters.count)
    }

    /// Empties the editor.
    public mutating func clear() {
        characters = []
        widths = []
        cursor = 0
        bytes = 0
    }

    /// Applies an editing key; returns true when the key was an editing key.
    @discardableResult
    public mutating func handle(_ key: Key) -> Bool {
        cut = false  // about this key only
        switch key {
        case .character(let c): insert(String(c))
        case .paste(let s): insert(s)
        case .left: cursor = max(0, cursor - 1)
        case .right: cursor = min(characters.count, cursor + 1)
        case .home, .ctrl("a"): cursor = multiline ? lineStart(cursor) : 0
        case .end, .ctrl("e"): cursor = multiline ? lineEnd(cursor) : characters.count
        case .up where multiline:
            let start = lineStart(cursor)
            guard start > 0 else { return true }
            let above = lineStart(start - 1)
            cursor = min(above + (cursor - start), start - 1)
        case .down where multiline:
            let end = lineEnd(cursor)
            guard end < characters.count else { return true }
            cursor = min(end + 1 + (cursor - lineStart(cursor)), lineEnd(end + 1))
        case .backspace, .ctrl("h"):
            if cursor > 0 { remove((cursor - 1)..<cursor); cursor -= 1 }
        case .delete, .ctrl("d"):
            if cursor < characters.count { remove(cursor..<(cursor + 1)) }
        case .ctrl("u"):
            remove(0..<cursor); cursor = 0
        case .ctrl("k"):
            remove(cursor..<characters.count)
        case .ctrl("w"):
            var i = cursor
            while i > 0 && characters[i - 1] == " " { i -= 1 }
            while i > 0 && characters[i - 1] != " " { i -= 1 }
            remove(i..<cursor)
            cursor = i
        default:
            return false
        }
        return true
    }

    /// The start of the line `i` is on (just after the line break before it).
    private func lineStart(_ i: Int) -> Int {
        var k = i
        while k > 0 && characters[k - 1] != "\n" { k -= 1 }
        return k
    }

    /// The end of the line `i` is on (its line break, or the end of the text).
    private func lineEnd(_ i: Int) -> Int {
        var k = i
        while k < characters.count && characters[k] != "\n" { k += 1 }
        return k
    }

    private mutating func remove(_ range: Range<Int>) {
        bytes -= characters[range].reduce(0) { $0 + $1.utf8.count }
        characters.removeSubrange(range)
        widths.removeSubrange(range)
    }

    /// What to draw in a field `width` columns wide: the visible slice (scrolled so the cursor
    /// shows) and the cursor's column in it. With `mask`, every character draws as `mask`.
    ///
    /// ```swift
    /// var e = LineEditor(); e.insert("界界界界")
    /// e.view(width: 5)   // (text: "界界", cursorColumn: 4) — the cursor after the last
    /// ```
    public func view(width: Int, mask: Character? = nil) -> (text: String, cursorColumn: Int) {
        let maskWidth = mask.map { DisplayWidth.of($0) }
        func columns(_ i: Int) -> Int { maskWidth ?? Int(widths[i]) }
        let width = max(1, width)
        // Start as far left as possible while the cursor (plus one cell for it) fits: found by
        // walking back from the cursor, so a long text costs the field's width, not its length.
        var start = cursor
        var used = 0
        while start > 0 && used + columns(start - 1) + 1 <= width {
            start -= 1
            used += columns(start)
        }
        var filled = 0
        var i = start
        while i < characters.count && filled + columns(i) <= width {
            filled += columns(i)
            i += 1
        }
        let text = mask.map { String(repeating: $0, count: i - start) } ?? String(characters[start..<i])
        return (text, used)
    }

    /// What to draw of a multi-line text in a field `width` columns wide and at most `rows` rows
    /// high: its lines wrapped at the width, the window of them that shows the cursor, and the
    /// cursor's row in that window and column. With `mask`, every character draws as `mask`.
    ///
    /// ```swift
    /// var e = LineEditor(multiline: true); e.insert("ab\ncdef")
    /// e.rows(width: 3, rows: 5)   // (["ab", "cde", "f"], cursorRow: 2, cursorColumn: 1)
    /// ```
    public func rows(width: Int, rows limit: Int, mask: Character? = nil) -> (rows: [String], cursorRow: Int, cursorColumn: Int) {
        let maskWidth = mask.map { DisplayWidth.of($0) }
        func columns(_ i: Int) -> Int { maskWidth ?? Int(widths[i]) }
        let width = max(1, width)
        var rows: [String] = []
        var row: [Character] = []
        var used = 0
        var at = (row: 0, column: 0)
        func endRow() {
            rows.append(mask.map { String(repeating: $0, count: row.count) } ?? String(row))
            row = []
            used = 0
        }
        for i in 0...characters.count {
            // The cursor before a character that does not fit goes to the next row with it.
            if i < characters.count, characters[i] != "\n", used + columns(i) > width, !row.isEmpty { endRow() }
            if i == cursor {
                if used >= width { endRow() }  // a cursor after a full row shows at the next one
                at = (rows.count, used)
            }
            guard i < characters.count else { break }
            if characters[i] == "\n" {
                endRow()
                continue
            }
            row.append(characters[i])
            used += columns(i)
        }
        endRow()
        let limit = max(1, limit)
        let first = min(max(0, at.row - limit + 1), max(0, rows.count - limit))
        let shown = Array(rows[first..<min(rows.count, first + limit)])
        return (shown, at.row - first, at.column)
    }
}
