import RocketCore

/// A single-line text editor: the model behind the terminal's text input.
///
/// Keys follow readline: ←/→, Home/End (Ctrl-A/Ctrl-E), Backspace/Delete, Ctrl-U (kill to
/// start), Ctrl-K (kill to end), Ctrl-W (kill the word before the cursor). Pasted text is
/// inserted with newlines and tabs turned into spaces and controls removed. Positions are
/// grapheme clusters, so wide and combining characters move as one.
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

    /// An empty editor.
    public init() {}

    /// The text.
    public var text: String { String(characters) }

    /// Inserts text at the cursor (sanitised: no controls, newlines become spaces).
    public mutating func insert(_ s: String) {
        let spaced = String(s.map { $0 == "\n" || $0 == "\r" || $0 == "\r\n" ? " " : $0 })
        let clean = Sanitizer.clean(spaced, keepNewlines: false).filter { $0 != "\u{FFFD}" }
        let new = Array(clean)
        characters.insert(contentsOf: new, at: cursor)
        cursor += new.count
        // A combining mark typed after a letter merges with it: re-segment.
        let whole = String(characters)
        if whole.count != characters.count {
            let before = String(characters[..<cursor]).count
            characters = Array(whole)
            cursor = min(before, characters.count)
        }
    }

    /// Empties the editor.
    public mutating func clear() {
        characters = []
        cursor = 0
    }

    /// Applies an editing key; returns true when the key was an editing key.
    @discardableResult
    public mutating func handle(_ key: Key) -> Bool {
        switch key {
        case .character(let c): insert(String(c))
        case .paste(let s): insert(s)
        case .left: cursor = max(0, cursor - 1)
        case .right: cursor = min(characters.count, cursor + 1)
        case .home, .ctrl("a"): cursor = 0
        case .end, .ctrl("e"): cursor = characters.count
        case .backspace, .ctrl("h"):
            if cursor > 0 { characters.remove(at: cursor - 1); cursor -= 1 }
        case .delete, .ctrl("d"):
            if cursor < characters.count { characters.remove(at: cursor) }
        case .ctrl("u"):
            characters.removeFirst(cursor); cursor = 0
        case .ctrl("k"):
            characters.removeLast(characters.count - cursor)
        case .ctrl("w"):
            var i = cursor
            while i > 0 && characters[i - 1] == " " { i -= 1 }
            while i > 0 && characters[i - 1] != " " { i -= 1 }
            characters.removeSubrange(i..<cursor)
            cursor = i
        default:
            return false
        }
        return true
    }

    /// What to draw in a field `width` columns wide: the visible slice (scrolled so the cursor
    /// shows) and the cursor's column in it. With `mask`, every character draws as `mask`.
    ///
    /// ```swift
    /// var e = LineEditor(); e.insert("界界界界")
    /// e.view(width: 5)   // (text: "界界", cursorColumn: 4) — the cursor after the last
    /// ```
    public func view(width: Int, mask: Character? = nil) -> (text: String, cursorColumn: Int) {
        let chars = mask.map { m in Array(repeating: m, count: characters.count) } ?? characters
        let widths = chars.map { DisplayWidth.of($0) }
        let width = max(1, width)
        // Start as far left as possible while the cursor (plus one cell for it) fits.
        var start = 0
        var used = widths[..<cursor].reduce(0, +)
        while used + 1 > width && start < cursor {
            used -= widths[start]
            start += 1
        }
        var text = ""
        var columns = 0
        var i = start
        while i < chars.count && columns + widths[i] <= width {
            text.append(chars[i])
            columns += widths[i]
            i += 1
        }
        return (text, used)
    }
}
