/// Plain mode's input: bytes as they arrive, handed out one line at a time (CR LF or LF; a last
/// line without a newline counts once the input has ended). Lines read ahead stay for whoever
/// reads next.
///
/// ```swift
/// var reader = LineReader()
/// reader.feed(Array("1\nAd".utf8))
/// reader.nextLine()    // "1"
/// reader.nextLine()    // nil (incomplete)
/// reader.feed([])      // end of input
/// reader.nextLine()    // "Ad"
/// ```
public struct LineReader: Sendable {
    /// Bytes not yet handed out.
    public private(set) var pending: [UInt8]
    /// True once the input has ended.
    public private(set) var ended: Bool

    /// A reader, optionally starting with input read ahead by an earlier session.
    public init(pending: [UInt8] = [], ended: Bool = false) {
        self.pending = pending
        self.ended = ended
    }

    /// Adds what a read returned; an empty read is the end of input.
    public mutating func feed(_ bytes: [UInt8]) {
        if bytes.isEmpty { ended = true } else { pending += bytes }
    }

    /// The next complete line, without its line ending, or nil.
    public mutating func nextLine() -> String? {
        guard let nl = pending.firstIndex(of: 0x0A) ?? (ended && !pending.isEmpty ? pending.count : nil) else { return nil }
        var line = Array(pending[..<nl])
        pending.removeFirst(min(pending.count, nl + 1))
        if line.last == 0x0D { line.removeLast() }
        return String(decoding: line, as: UTF8.self)
    }
}
