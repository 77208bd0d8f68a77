import RocketCore

/// Plain mode's input: bytes as they arrive, handed out one line at a time (CR LF or LF; a last
/// line without a newline counts once the input has ended). Lines read ahead stay for whoever
/// reads next.
///
/// Memory and time are bounded whatever arrives: a line longer than `limit` bytes is refused
/// (``Line/tooLong``) as soon as the limit is passed, and the rest of it is dropped as it arrives,
/// so `/dev/zero` on stdin costs at most `limit` bytes plus one read. Each byte is scanned once.
///
/// ```swift
/// var reader = LineReader()
/// reader.feed(Array("1\nAd".utf8))
/// reader.next()        // .text("1")
/// reader.next()        // nil (incomplete)
/// reader.feed([])      // end of input
/// reader.next()        // .text("Ad")
/// ```
public struct LineReader: Sendable {
    /// One line of input.
    public enum Line: Sendable, Hashable {
        /// A complete line, without its line ending.
        case text(String)
        /// A line longer than the limit: refused, and the rest of it skipped.
        case tooLong
    }

    /// The longest line accepted, in bytes: the flow format's string limit, 64 KiB.
    public static let defaultLimit = RocketLimits.lineBytes

    /// The longest line accepted, in bytes.
    public let limit: Int
    /// True once the input has ended.
    public private(set) var ended: Bool
    private var buffer: [UInt8]
    /// Where the unread input starts in `buffer`.
    private var head = 0
    /// Everything before this index (from `head`) is known to hold no newline.
    private var scanned = 0
    /// True while the rest of a refused line is being dropped.
    private var skipping = false

    /// A reader, optionally starting with input read ahead by an earlier session.
    public init(pending: [UInt8] = [], ended: Bool = false, limit: Int = LineReader.defaultLimit) {
        self.buffer = pending
        self.ended = ended
        self.limit = max(1, limit)
    }

    /// Bytes not yet handed out.
    public var pending: [UInt8] { Array(buffer[head...]) }

    /// Adds what a read returned; an empty read is the end of input.
    public mutating func feed(_ bytes: [UInt8]) {
        if bytes.isEmpty { ended = true; return }
        guard skipping else { buffer += bytes; return }
        guard let nl = bytes.firstIndex(of: 0x0A) else { return }
        skipping = false
        buffer += bytes[(nl + 1)...]
    }

    /// The next line, `.tooLong` for a refused one, or nil until more input arrives.
    public mutating func next() -> Line? {
        if let nl = buffer[scanned...].firstIndex(of: 0x0A) {
            var end = nl
            if end > head && buffer[end - 1] == 0x0D { end -= 1 }
            let tooLong = end - head > limit
            let line = tooLong ? Line.tooLong : .text(String(decoding: buffer[head..<end], as: UTF8.self))
            head = nl + 1
            scanned = head
            compact()
            return line
        }
        scanned = buffer.count
        let unterminated = buffer.count - head
        // A trailing CR may still turn out to be half of a CR LF, so it is not counted yet.
        if unterminated > limit + 1 || (unterminated > limit && buffer.last != 0x0D) {
            buffer.removeAll(keepingCapacity: false)
            head = 0
            scanned = 0
            skipping = !ended
            return .tooLong
        }
        guard ended, unterminated > 0 else { return nil }
        var end = buffer.count
        if buffer[end - 1] == 0x0D { end -= 1 }
        let line = String(decoding: buffer[head..<end], as: UTF8.self)
        buffer.removeAll()
        head = 0
        scanned = 0
        return .text(line)
    }

    /// Drops consumed bytes once they are the larger part of the buffer (amortised O(1) per byte).
    private mutating func compact() {
        guard head > 4096, head * 2 > buffer.count else { return }
        buffer.removeFirst(head)
        scanned -= head
        head = 0
    }
}
