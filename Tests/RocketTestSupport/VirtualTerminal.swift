import RocketTerminal
import RocketTerminalApps
import RocketTerminalCore

/// A small terminal emulator for renderer round trips: printable text by display width, CR, LF
/// (scrolling at the bottom), CSI A/B/C/D/H/J/K/m, DEC private modes ignored. It records the
/// scrollback so inline output that scrolled away can be checked too.
public struct VirtualTerminal {
    public let width: Int
    public let height: Int
    public var screen: [[String]]
    public var scrollback: [[String]] = []
    public var row = 0
    public var column = 0
    public var cursorVisible = true
    /// How many times text ran past the right margin and wrapped (a row wider than the screen).
    public private(set) var wraps = 0
    private var pending: [UInt8] = []

    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
        screen = Array(repeating: Array(repeating: " ", count: width), count: height)
    }

    public mutating func feed(_ bytes: [UInt8]) {
        pending += bytes
        var text = String(decoding: pending, as: UTF8.self)
        pending = []
        while !text.isEmpty {
            let c = text.removeFirst()
            switch c {
            case "\r": column = 0
            case "\n", "\r\n":
                if c == "\r\n" { column = 0 }
                lineFeed()
            case "\u{1B}":
                if text.first == "]" {
                    // An OSC (a query such as the background colour): skipped up to BEL or ST.
                    while let f = text.first {
                        text.removeFirst()
                        if f == "\u{07}" { break }
                        if f == "\u{1B}" {
                            if text.first == "\\" { text.removeFirst() }
                            break
                        }
                    }
                    continue
                }
                guard text.first == "[" else {
                    if !text.isEmpty { text.removeFirst() }
                    continue
                }
                text.removeFirst()
                var params = ""
                while let f = text.first, f.isNumber || f == ";" || f == "?" { params.append(f); text.removeFirst() }
                guard !text.isEmpty else { break }
                let final = text.removeFirst()
                let n = Int(params) ?? 1
                switch final {
                case "A": row = max(0, row - n)
                case "B": row = min(height - 1, row + n)
                case "C": column = min(width - 1, column + n)
                case "D": column = max(0, column - n)
                case "H":
                    // Absolute position, 1-based "row;column" (home when absent).
                    let parts = params.split(separator: ";", omittingEmptySubsequences: false).map { Int($0) ?? 1 }
                    row = min(height - 1, max(0, (parts.first ?? 1) - 1))
                    column = min(width - 1, max(0, (parts.count > 1 ? parts[1] : 1) - 1))
                case "G": column = min(width - 1, max(0, n - 1))
                case "J":
                    if params == "2" {
                        screen = Array(repeating: Array(repeating: " ", count: width), count: height)
                    } else {
                        for c in column..<width { screen[row][c] = " " }
                        for r in (row + 1)..<height { screen[r] = Array(repeating: " ", count: width) }
                    }
                case "K": for c in column..<width { screen[row][c] = " " }
                case "h", "l": if params == "?25" { cursorVisible = final == "h" }
                default: break
                }
            default:
                let w = DisplayWidth.of(c)
                if w == 0 { continue }
                if column + w > width {
                    wraps += 1
                    column = 0
                    lineFeed()
                }
                guard column < width else { continue }
                screen[row][column] = String(c)
                if w == 2 && column + 1 < width { screen[row][column + 1] = "" }
                column = min(width, column + w)
            }
        }
    }

    private mutating func lineFeed() {
        if row == height - 1 {
            scrollback.append(screen.removeFirst())
            screen.append(Array(repeating: " ", count: width))
        } else {
            row += 1
        }
    }

    public static func trim(_ cells: [String]) -> String {
        var s = cells.joined()
        while s.hasSuffix(" ") { s.removeLast() }
        return s
    }

    public var lines: [String] { screen.map(VirtualTerminal.trim) }
    public var allLines: [String] { scrollback.map(VirtualTerminal.trim) + lines }
}
